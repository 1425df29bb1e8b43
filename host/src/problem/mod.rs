//! Gray-box problems: binary variables, a fitness that is a sum of integer subfunctions, each
//! over a few variables, so that a change of a few variables can be re-evaluated from the
//! subfunctions that depend on them alone.
//!
//! Everything above this layer talks to [`GrayBoxProblem`]. A problem's subfunctions are stored
//! in a [`Subfunctions`]: the flat arrays of one of the device crate's problem kinds (pairwise
//! weighted, tables, clauses), checked once when they are built, with the two-way incidence
//! (variables of a subfunction, subfunctions of a variable) that partial evaluation, the linkage
//! models and the colourings need. Evaluation itself is the device crate's code, the same that
//! the kernels run.
//!
//! Its rooms: the problems, each over one kind ([`kinds`]: weighted Max-Cut over a G-set
//! [`graph`], tables with their `.nk` format, weighted partial MAX-SAT with DIMACS `cnf` and
//! `wcnf`, Ising models and QUBOs reduced exactly to Max-Cut with the `.qubo` and `.ising`
//! formats, real biases on an integer grid by [`scale`]); reading instances ([`io`]: a file's
//! text and lines, the MK-landscape files of other tools, [`load`] for any format, the data
//! directory of shipped instances, the memory checks of sizes a header announces); generators
//! ([`generate`]: graphs, NK landscapes, deceptive traps, planted 3-SAT); and the structural
//! probes that the run's defaults read ([`probe`]). Each of their modules keeps its path here too
//! (`pgomea::problem::maxcut`).

pub mod generate;
pub mod io;
pub mod kinds;
pub mod probe;
mod subfunctions;

pub use generate::{nk, trap};
pub use io::{data, load, mk, text};
pub(crate) use io::{lines, memory};
pub use kinds::{graph, ising, maxcut, maxsat, scale, tables};
pub use probe::{deception, lattice};
pub(crate) use subfunctions::KindArrays;
pub use subfunctions::{ArrayPlace, InHost, Plain, Subfunctions, bytes_of, bytes_of_mut};

use std::sync::atomic::{AtomicU64, Ordering};

use pgomea_device::mem::Ptr;
use pgomea_device::problem::Kind;

use crate::error::Result;

/// A binary gray-box problem with additive integer subfunctions (maximised).
///
/// The fitness is the sum of the subfunctions, so a change of a few variables is re-evaluated
/// from the subfunctions that read them alone (what GOM does at every step):
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::problem::tables::TableProblem;
/// // f(x) = 3 [x0 != x1] + 2 [x1 = x2 = 1]; a table's index is its genes read as a binary
/// // number, the first variable the most significant bit.
/// let tables = [(vec![0, 1], vec![0, 3, 3, 0]), (vec![1, 2], vec![0, 0, 0, 2])];
/// let problem = TableProblem::new("tiny", "example", 3, &tables, None)?;
/// assert_eq!((problem.variables(), problem.subfunctions()), (3, 2));
/// assert_eq!(problem.subfunction_variables(1), &[1, 2]);
/// assert_eq!(problem.dependent_subfunctions(1), &[0, 1]);
///
/// let mut x = vec![0, 1, 1];
/// let fitness = problem.evaluate(&x);
/// assert_eq!(fitness, 5);
/// assert_eq!(fitness, (0..2).map(|s| problem.evaluate_subfunction(s, &x)).sum::<i64>());
/// // Flip x2: only the subfunctions that read it change.
/// let part = |x: &[u8]| -> i64 {
///     problem.dependent_subfunctions(2).iter().map(|&s| problem.evaluate_subfunction(s as usize, x)).sum()
/// };
/// let before = part(&x);
/// x[2] = 0;
/// assert_eq!(problem.evaluate(&x), fitness - before + part(&x));
/// # Ok::<(), pgomea::Error>(())
/// ```
///
/// A problem of one's own needs a name, a type and its [`Subfunctions`] (checked when they are
/// built); every other method has a default:
///
/// ```
/// use pgomea::problem::{GrayBoxProblem, Subfunctions};
/// use pgomea::solve::{Hooks, RunOptions, Target, solve};
///
/// /// OneMax: one subfunction per variable, worth 1 when the variable is 1.
/// struct OneMax(Subfunctions);
///
/// impl GrayBoxProblem for OneMax {
///     fn name(&self) -> &str {
///         "onemax"
///     }
///     fn problem_type(&self) -> &str {
///         "onemax"
///     }
///     fn functions(&self) -> &Subfunctions {
///         &self.0
///     }
/// }
///
/// let l = 20;
/// let offsets: Vec<u32> = (0..=l as u32).collect();
/// let tables: Vec<u32> = (0..l as u32).map(|s| 2 * s).collect();
/// let values: Vec<i64> = (0..l).flat_map(|_| [0, 1]).collect();
/// let problem = OneMax(Subfunctions::tables(l, offsets, (0..l as u32).collect(), tables, values)?);
/// let options = RunOptions { target: Some(Target::Fitness(20)), time_limit: Some(60.0), ..RunOptions::default() };
/// let outcome = solve(&problem, &options.resolve(&problem, None)?, Hooks::default())?;
/// assert_eq!(outcome.solution_text(), "1".repeat(20));
/// # Ok::<(), pgomea::Error>(())
/// ```
pub trait GrayBoxProblem: Send + Sync {
    /// A short name for reports (the file stem, or the generator's description).
    fn name(&self) -> &str;
    /// The type of problem, as reports and result files name it: `max-cut`, `nk`, ...
    fn problem_type(&self) -> &str;
    /// The subfunctions.
    fn functions(&self) -> &Subfunctions;
    /// How strongly subfunction `s` links its variables, for the fixed linkage tree: by default
    /// the range of its values (|w| for an edge of Max-Cut).
    fn linkage_weight(&self, s: usize) -> u64 {
        self.functions().value_range(s)
    }
    /// Facts about the instance for `pgomea info` (name, value), beyond the sizes.
    fn statistics(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// The optimum, when the instance itself knows it (a generator computed it, or the file
    /// gives it).
    fn known_optimum(&self) -> Option<i64> {
        None
    }
    /// What the reader of the instance's file adjusted in accepting it (a wcnf file's hard weight
    /// that does not outweigh the soft clauses), for the caller to show: the library prints
    /// nothing. None by default.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// Facts about a solution `x` beyond its fitness, for the result of a run (name, value): for
    /// MAX-SAT the clauses it leaves unsatisfied. Nothing by default.
    fn solution_report(&self, x: &[u8]) -> Vec<(&'static str, String)> {
        let _ = x;
        Vec::new()
    }
    /// The energy, in the model's own terms, of a fitness, for problems reduced from a model
    /// that minimises an energy (Ising models and QUBOs, [`ising`]): exact. None for the others.
    fn energy(&self, fitness: i64) -> Option<scale::Decimal> {
        let _ = fitness;
        None
    }
    /// The solution in the variables of the model this problem was reduced from, of a genotype
    /// `genes` of this problem ([`ising`]: without the field vertex, flipped when it is on side
    /// 1); the genotype itself for problems that are not reductions.
    fn model_solution(&self, genes: &[u8]) -> Vec<u8> {
        genes.to_vec()
    }

    /// Number of variables l.
    fn variables(&self) -> usize {
        self.functions().variables()
    }
    /// Number of subfunctions m.
    fn subfunctions(&self) -> usize {
        self.functions().len()
    }
    /// The variables subfunction `s` reads.
    fn subfunction_variables(&self, s: usize) -> &[u32] {
        self.functions().variables_of(s)
    }
    /// The subfunctions that read variable `v`.
    fn dependent_subfunctions(&self, v: usize) -> &[u32] {
        self.functions().dependent(v)
    }
    /// The value of subfunction `s` on genotype `x`.
    fn evaluate_subfunction(&self, s: usize, x: &[u8]) -> i64 {
        self.functions().evaluate_one(s, x)
    }
    /// The fitness of `x`: the sum of all subfunctions.
    fn evaluate(&self, x: &[u8]) -> i64 {
        self.functions().evaluate(x)
    }
}

/// Code generic over the problem kind, called with the kind of a [`Subfunctions`] (Rust closures
/// cannot be generic, hence a trait): the one way the host dispatches on the kind of a problem,
/// for serial GOMEA, the CPU backend and the CUDA upload alike.
pub trait KindVisitor {
    /// What the visit returns.
    type Output;
    /// Runs the code on the problem's arrays as kind `K`.
    fn visit<K: Kind>(self, kind: K) -> Self::Output;
}

/// A [`KindVisitor`] in one piece: the struct of what it takes, and the body of its `visit`
/// with those fields as local variables and `$kind: $K` the kind.
///
/// ```ignore
/// kind_visitor! {
///     struct Count<'a> { x: &'a [u8] }
///     fn visit<K>(kind) -> usize { x.len() + K::NAME.len() }
/// }
/// ```
macro_rules! kind_visitor {
    (
        $(#[$meta:meta])*
        struct $name:ident $(<$($lt:lifetime),+>)? { $($field:ident: $ty:ty),* $(,)? }
        fn visit<$K:ident>($kind:ident) -> $out:ty $body:block
    ) => {
        $(#[$meta])*
        struct $name $(<$($lt),+>)? { $($field: $ty),* }
        impl $(<$($lt),+>)? $crate::problem::KindVisitor for $name $(<$($lt),+>)? {
            type Output = $out;
            fn visit<$K: ::pgomea_device::problem::Kind>(self, $kind: $K) -> $out {
                let $name { $($field),* } = self;
                $body
            }
        }
    };
}
pub(crate) use kind_visitor;

/// The text of an instance file, as every parser reads it: a byte-order mark dropped, line
/// endings made `\n`, bytes that are not UTF-8 an error with their line ([`text::decode`]).
pub fn read_text(path: &std::path::Path) -> Result<String> {
    text::read(path, &crate::stop::StopCheck::never())
}

/// The name an instance read from `path` goes by in reports: the file's stem.
pub fn instance_name(path: &std::path::Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The partial evaluation of a GOM step: the sum, over the subfunctions that read any changed
/// variable (each once), of their change between the old and the new genotype (the kind's
/// `delta`, as in stage 3 of parallel GOM).
#[derive(Clone, Debug)]
pub struct PartialEvaluation {
    /// The round in which each subfunction was last visited.
    stamp: Vec<u32>,
    round: u32,
}

impl PartialEvaluation {
    /// A partial evaluation of the subfunctions `f`.
    pub fn new(f: &Subfunctions) -> Self {
        PartialEvaluation { stamp: vec![0; f.len()], round: 0 }
    }

    /// The change of fitness from `old` to `new`, which differ on the variables `changed` alone
    /// (each listed once), and the number of subfunctions evaluated; `kind` is the kind of `f`.
    ///
    /// # Safety
    ///
    /// `kind` is the kind of `f` (from its `with_kind`), and `old` and `new` hold at least l genes
    /// each.
    #[inline]
    pub unsafe fn delta<K: Kind>(
        &mut self,
        kind: &K,
        f: &Subfunctions,
        changed: &[u32],
        old: &[u8],
        new: &[u8],
    ) -> (i64, usize) {
        let (old, new) = (Ptr::from_slice(old), Ptr::from_slice(new));
        if let [v] = changed {
            // One variable: its subfunctions are distinct, no bookkeeping needed.
            let dependent = f.dependent(*v as usize);
            // SAFETY: every s is a subfunction of the kind's arrays; l genes each (the caller's
            // precondition).
            return (dependent.iter().map(|&s| unsafe { kind.delta(s, old, new) }).sum(), dependent.len());
        }
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.stamp.fill(0);
            self.round = 1;
        }
        let (mut delta, mut evaluated) = (0, 0);
        for &v in changed {
            for &s in f.dependent(v as usize) {
                if self.stamp[s as usize] != self.round {
                    self.stamp[s as usize] = self.round;
                    evaluated += 1;
                    // SAFETY: as above.
                    delta += unsafe { kind.delta(s, old, new) };
                }
            }
        }
        (delta, evaluated)
    }
}

/// Counts the work of a run: full evaluations, and subfunction evaluations (partial ones
/// included). Full-evaluation equivalents = subfunction evaluations / m. Atomic so that parallel
/// backends can count from many threads.
#[derive(Debug, Default)]
pub struct EvaluationCounter {
    subfunction_evaluations: AtomicU64,
}

impl EvaluationCounter {
    pub(crate) fn add_subfunctions(&self, count: u64) {
        self.subfunction_evaluations.fetch_add(count, Ordering::Relaxed);
    }
    /// The subfunction evaluations counted so far.
    pub fn subfunction_evaluations(&self) -> u64 {
        self.subfunction_evaluations.load(Ordering::Relaxed)
    }
    /// Full-evaluation equivalents for a problem of `m` subfunctions.
    pub fn evaluations(&self, m: usize) -> f64 {
        self.subfunction_evaluations() as f64 / m.max(1) as f64
    }
}

/// Evaluates a whole genotype and counts it as one full evaluation.
pub fn full_evaluation<P: GrayBoxProblem + ?Sized>(p: &P, x: &[u8], counter: &EvaluationCounter) -> i64 {
    counter.add_subfunctions(p.subfunctions() as u64);
    p.evaluate(x)
}
