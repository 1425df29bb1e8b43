//! Every default of a run and its reason: the functions that decide a default from the instance
//! and the backend, their thresholds, and the reasons recorded for the defaults no function of
//! its own explains. [`RunOptions::resolve`] calls them, in one phase.

use std::collections::BTreeMap;

use crate::gomea::LocalSearchMode;
use crate::linkage::coloring::ColoringMethod;
use crate::linkage::fos::LinkageModel;
use crate::problem::deception::deception;
use crate::problem::lattice::square_probe;
use crate::problem::{GrayBoxProblem, KindArrays};

use super::checks::show_number;
use super::options::{Algorithm, Backend, DefaultIs, RUN_OPTIONS, RunOptions};

/// The stop rule of a run given no time limit, no evaluation budget and no target: it stops when
/// it has its answer (`RunConfig::stop_when_answered`). Why: a caller who names no limit wants
/// the answer, not a fixed wait (a one-variable model used to take the whole default limit), and
/// the rule is the same in the CLI, Python and the dimod sampler.
///
/// At once where the optimum is proven: up to this many variables every solution is enumerated
/// with the problem's own evaluation (2^20 solutions, a flip each: about half a second for 20
/// spins all coupled, on 2 cores)
/// and the run ends with [`StopReason::OptimumProven`](crate::stop::StopReason::OptimumProven).
pub const PROVEN_OPTIMUM_MAX_VARIABLES: usize = 20;

/// Otherwise the rule stops a run ([`StopReason::Stalled`](crate::stop::StopReason::Stalled))
/// once its best has not improved for max([`STALL_LEAST_S`], [`STALL_SHARE`] x the time spent so
/// far), at the end of the step of the multi-start scheme under way (a generation or a new
/// population is never cut off as a stall): a run that found its last improvement at t stops by
/// about 2t, so that it has spent at least
/// as long again looking for a better one; the least span keeps a run of a fast-solved instance
/// from stopping on a lucky early best.
pub const STALL_LEAST_S: f64 = 1.0;
/// The share of the time spent that the best may go without improving ([`STALL_LEAST_S`]).
pub const STALL_SHARE: f64 = 0.5;

/// And at the latest at this time limit, the default cap (its reason, [`DEFAULT_CAP`], in
/// `RunConfig::time_limit_chosen`): what a run without limits may cost at most.
pub const DEFAULT_TIME_LIMIT_S: f64 = 60.0;

/// The reason recorded for the default time limit.
pub const DEFAULT_CAP: &str = "the default cap";

/// CPU threads from which parallel GOMEA on the CPU backend is the default: on 16 cores it ended
/// ahead of serial GOMEA on a 3D Gaussian spin glass and a sparse G-set graph, on 2 cores serial
/// GOMEA was ahead or level (`docs/decisions/0028-algorithm-default.md`).
pub const PARALLEL_FROM_THREADS: usize = 8;

/// The algorithm by default, and why: parallel GOMEA where it runs on a GPU (the backend `cuda`,
/// or `auto` with a CUDA device present), and on the CPU from [`PARALLEL_FROM_THREADS`] threads;
/// serial GOMEA on fewer (`docs/decisions/0028-algorithm-default.md`).
pub fn default_algorithm(backend: Backend, threads: Option<usize>) -> (Algorithm, String) {
    if on_gpu(backend) {
        return (Algorithm::Parallel, "parallel GOMEA: it runs on the GPU".into());
    }
    let threads = cpu_threads(threads);
    if threads >= PARALLEL_FROM_THREADS {
        (
            Algorithm::Parallel,
            format!("parallel GOMEA: no GPU, {threads} CPU threads (serial from fewer than {PARALLEL_FROM_THREADS})"),
        )
    } else {
        (
            Algorithm::Serial,
            format!("serial GOMEA: no GPU, {threads} CPU threads (parallel from {PARALLEL_FROM_THREADS} or on a GPU)"),
        )
    }
}

/// Whether parallel GOM on `backend` runs on a GPU: `cuda`, or `auto` with a CUDA device present.
fn on_gpu(backend: Backend) -> bool {
    backend == Backend::Cuda || backend == Backend::Auto && crate::backend::cuda::present()
}

/// The CPU threads a run takes: those asked for, else every core the process may use.
fn cpu_threads(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The CPU threads that anneal a new population's solutions, or `None` where a GPU anneals them:
/// every thread of the run (serial GOMEA anneals its solutions side by side too,
/// `docs/decisions/0030-serial-annealing-side-by-side.md`).
pub fn annealing_threads(algorithm: Algorithm, backend: Backend, threads: Option<usize>) -> Option<usize> {
    match algorithm {
        Algorithm::Parallel if on_gpu(backend) => None,
        Algorithm::Serial | Algorithm::Parallel => Some(cpu_threads(threads)),
    }
}

/// Forced Improvement and local search by default, by algorithm: both algorithms anneal every
/// new population, and only serial GOMEA keeps Forced Improvement (as in the paper), which in
/// parallel GOMEA cost time without a better result
/// (`docs/decisions/0001-hybrid-parallel-gomea-defaults.md`).
pub fn default_hybrid(algorithm: Algorithm) -> (bool, LocalSearchMode) {
    match algorithm {
        Algorithm::Serial => (true, LocalSearchMode::Initial),
        Algorithm::Parallel => (false, LocalSearchMode::Initial),
    }
}

/// Instances of more variables than this are coloured by incidence by default.
pub const INCIDENCE_COLORING_FROM: usize = 50_000;

/// The colouring of a run that names none: Welsh-Powell's (by degree in the linkage-model
/// interaction graph) up to [`INCIDENCE_COLORING_FROM`] variables, beyond that the incidence
/// colouring, which counts no degree: as many colour groups, give or take one, without the degree
/// count's share of a large set-up (`docs/decisions/0012-default-colouring.md`).
pub fn default_coloring(variables: usize) -> ColoringMethod {
    if variables > INCIDENCE_COLORING_FROM { ColoringMethod::Incidence } else { ColoringMethod::WelshPowell }
}

/// Variables from which an instance that is not a lattice gets the bounded tree by default
/// ([`default_linkage`]).
pub const BOUNDED_TREE_FROM: usize = 100_000;

/// The bound on the sets of that bounded tree.
pub const BOUNDED_TREE_SETS: usize = 16;

/// The linkage model by default for `algorithm`, and why where it is not the paper's fixed
/// linkage tree: for clauses under parallel GOM, the univariate model; for instances of at least
/// [`BOUNDED_TREE_FROM`] variables whose subfunctions form fewer than one short cycle (of up to
/// four subfunctions) per subfunction ([`crate::problem::lattice`]: 2 squares per edge on a
/// square lattice, 4 on a cubic one, more where windows overlap; almost none on a sparse random
/// graph, random clauses or random neighbourhoods, none between disjoint traps), the univariate
/// model for clauses (serial GOMEA) and the bounded tree `bflt:16` for the other kinds; else the
/// fixed linkage tree.
///
/// Where the interaction graph is random the full tree's upper sets meet nearly every other set,
/// so its colouring needs hundreds to thousands of groups and its set-up can outlast the run,
/// while lattices lose with the bounded tree
/// (`docs/decisions/0010-bounded-tree-for-large-sparse-instances.md`); planted random clauses
/// carry no structure a tree could find and flip one variable at a time well
/// (`docs/decisions/0011-univariate-model-for-clauses.md`).
pub fn default_linkage(problem: &dyn GrayBoxProblem, algorithm: Algorithm) -> (LinkageModel, Option<String>) {
    let clauses = matches!(problem.functions().arrays(), KindArrays::Clauses { .. });
    if clauses && algorithm == Algorithm::Parallel {
        return (
            LinkageModel::Univariate,
            Some(
                "the univariate model: clauses (MAX-SAT), where parallel GOM reached the optimum of random 3-SAT \
                 sooner without linkage sets than with the tree, from 50 to 10^6 variables"
                    .into(),
            ),
        );
    }
    if problem.variables() < BOUNDED_TREE_FROM {
        return (LinkageModel::Flt, None);
    }
    let p = square_probe(problem.functions());
    if p.is_lattice() {
        return (LinkageModel::Flt, None);
    }
    if clauses {
        return (
            LinkageModel::Univariate,
            Some(format!(
                "the univariate model: clauses on {} variables, not a lattice ({:.2} cycles of up to four subfunctions \
                 per subfunction), where serial GOMEA ended higher at 10 s without linkage sets than with the \
                 bounded tree",
                problem.variables(),
                p.cycles_per_edge()
            )),
        );
    }
    (
        LinkageModel::Bflt(BOUNDED_TREE_SETS),
        Some(format!(
            "the tree bounded to sets of {BOUNDED_TREE_SETS}: {} on {} variables, not a lattice ({:.2} cycles of up to \
             four subfunctions per subfunction), where the full tree's colouring needs hundreds to thousands of groups",
            problem.functions().arrays().kind_name(),
            problem.variables(),
            p.cycles_per_edge()
        )),
    )
}

/// The sweeps of an annealed local search by default on a GPU and on at least
/// [`PARALLEL_FROM_THREADS`] CPU threads (see [`default_anneal_sweeps`]); the control's
/// (`anneal_only`) on every kind. The CPU had 1000 until its local search kept every variable's
/// gain, which made a sweep about twice as cheap (`docs/decisions/0002-annealing-sweeps.md`).
pub const ANNEALING_SWEEPS: u32 = 3000;

/// The sweeps by default where fewer than [`PARALLEL_FROM_THREADS`] CPU threads anneal, up to
/// [`ANNEAL_IN_FULL_UP_TO`] variables: few threads reach few populations in a run, so the first
/// ones' annealing weighs most; on 2 cores at 10 s, 10000 were ahead of 3000 on the 3D spin
/// glasses and NK landscapes and level on the other classes (`docs/decisions/0002-annealing-sweeps.md`).
pub const FEW_THREADS_ANNEALING_SWEEPS: u32 = 10_000;

/// The sweeps by default of an instance of up to [`ANNEAL_IN_FULL_UP_TO`] variables that is
/// annealed, by [`annealing_threads`], and why where they are the few threads' (else empty).
pub fn full_sweeps(annealing_threads: Option<usize>) -> (u32, String) {
    match annealing_threads {
        Some(threads) if threads < PARALLEL_FROM_THREADS => (
            FEW_THREADS_ANNEALING_SWEEPS,
            format!(
                "; {FEW_THREADS_ANNEALING_SWEEPS} sweeps on {threads} CPU thread{} ({ANNEALING_SWEEPS} on a GPU or from \
                 {PARALLEL_FROM_THREADS} threads)",
                if threads == 1 { "" } else { "s" }
            ),
        ),
        _ => (ANNEALING_SWEEPS, String::new()),
    }
}

/// Variables up to which the default annealing keeps all its sweeps.
pub const ANNEAL_IN_FULL_UP_TO: usize = 100_000;

/// The annealed sweeps by default for `l` variables: [`ANNEALING_SWEEPS`], but beyond
/// [`ANNEAL_IN_FULL_UP_TO`] variables in inverse proportion to l, down to a thirtieth (300 at
/// 10^6 variables, 100 from 3 x 10^6 on), so that a large lattice's populations are annealed
/// and still searched within the run (`docs/decisions/0005-annealing-sweeps-at-scale.md`).
pub fn sized_sweeps(l: usize) -> u32 {
    if l <= ANNEAL_IN_FULL_UP_TO {
        return ANNEALING_SWEEPS;
    }
    let scaled = u64::from(ANNEALING_SWEEPS) * ANNEAL_IN_FULL_UP_TO as u64 / l as u64;
    scaled.max(u64::from(ANNEALING_SWEEPS / 30)) as u32
}

/// The annealed sweeps by default for `l` variables of pairwise terms on a graph that is not a
/// lattice ([`crate::problem::lattice`]): [`ANNEALING_SWEEPS`] up to [`ANNEAL_IN_FULL_UP_TO`]
/// variables, beyond in inverse proportion to the square root of l (949 at 10^6 variables, 300 at
/// 10^7), more than a lattice's [`sized_sweeps`]: sparse random graphs gained from the longer
/// annealing (`docs/decisions/0005-annealing-sweeps-at-scale.md`).
pub fn sparse_sweeps(l: usize) -> u32 {
    if l <= ANNEAL_IN_FULL_UP_TO {
        return ANNEALING_SWEEPS;
    }
    (f64::from(ANNEALING_SWEEPS) * (ANNEAL_IN_FULL_UP_TO as f64 / l as f64).sqrt()).round() as u32
}

/// The annealing sweeps of a local search by default, and why, in words: 0 (the greedy descent
/// alone) for clauses, for mostly deceptive tables and for 2D spin glasses with distinct
/// couplings ([`crate::problem::lattice`]), else [`ANNEALING_SWEEPS`], fewer for more than 10^5
/// variables ([`sized_sweeps`], or [`sparse_sweeps`] for pairwise terms on a graph that is not a
/// lattice); up to 10^5 variables [`FEW_THREADS_ANNEALING_SWEEPS`] where fewer than
/// [`PARALLEL_FROM_THREADS`] CPU threads anneal (`annealing_threads`, [`full_sweeps`]).
///
/// The sweeps found the better cuts on G-set graphs (`docs/decisions/0002-annealing-sweeps.md`);
/// on clauses and deceptive tables GOM after the greedy descent reaches the optimum sooner
/// (`docs/decisions/0003-annealing-by-problem-kind.md`), and on 2D spin glasses the annealing
/// costs more than it gives (`docs/decisions/0004-no-annealing-for-2d-spin-glasses.md`).
pub fn default_anneal_sweeps(problem: &dyn GrayBoxProblem, annealing_threads: Option<usize>) -> (u32, String) {
    let l = problem.variables();
    let (full, few) = full_sweeps(annealing_threads);
    // The sweeps for this size, given `sweeps` (the size rule's, which keeps all of them up to
    // 10^5 variables), and in words where the size (and `graph`, the graph's shape) made them
    // fewer or the few threads more.
    let sized = |sweeps: u32, graph: &str| {
        if l <= ANNEAL_IN_FULL_UP_TO {
            (full, few.clone())
        } else if sweeps < ANNEALING_SWEEPS {
            (sweeps, format!("; {sweeps} sweeps for {l} variables{graph}"))
        } else {
            (sweeps, String::new())
        }
    };
    let (annealed, size) = sized(sized_sweeps(l), "");
    match problem.functions().arrays() {
        KindArrays::Pairwise { .. } => match square_probe(problem.functions()) {
            p if p.is_2d_glass() => (
                0,
                format!(
                    "no annealing: a 2D spin glass ({}), where GOM after the greedy descent does better",
                    p.describe()
                ),
            ),
            p if !p.is_lattice() => {
                let shape = format!(
                    " on a graph that is not a lattice ({:.2} cycles of up to four edges per edge)",
                    p.cycles_per_edge()
                );
                let (sweeps, why) = sized(sparse_sweeps(l), &shape);
                (sweeps, format!("annealed: pairwise terms (Max-Cut, Ising, QUBO){why}"))
            }
            _ => (annealed, format!("annealed: pairwise terms (Max-Cut, Ising, QUBO){size}")),
        },
        KindArrays::Clauses { .. } => {
            (0, "no annealing: clauses (MAX-SAT), where GOM after the greedy descent is faster".into())
        }
        KindArrays::Tables { .. } => {
            let d = deception(problem.functions()).unwrap_or_default();
            let share = format!("{} of {} tables probed deceptive", d.deceptive, d.probed);
            if d.mostly() {
                (0, format!("no annealing: {share}, single flips lead away from their optima"))
            } else {
                (annealed, format!("annealed: {share}{size}"))
            }
        }
    }
}

/// The annealing growth by default (see `RunConfig::anneal_growth`): 2 when new populations are
/// annealed, the instance has at most [`ANNEAL_IN_FULL_UP_TO`] variables, and its terms are
/// pairwise (Max-Cut, and Ising and QUBO models through it; on the GPU and on the CPU alike) or
/// tables, not mostly deceptive, annealed on CPU threads (`annealing_threads` not `None`: NK
/// landscapes); else 1. The larger populations' longer annealing lifted spin glasses and NK
/// landscapes and cost G-set graphs little, beyond 10^5 variables it left too few populations,
/// and tables on a GPU keep 1 until it is measured there
/// (`docs/decisions/0006-annealing-growth.md`). Returns the growth and why, in words.
pub fn default_anneal_growth(
    problem: &dyn GrayBoxProblem,
    local_search: LocalSearchMode,
    anneal_sweeps: u32,
    annealing_threads: Option<usize>,
) -> (u32, String) {
    let pays = "where the larger populations' longer annealing pays";
    if local_search == LocalSearchMode::Off || anneal_sweeps == 0 {
        return (1, "1: no annealing to grow".into());
    }
    if problem.variables() > ANNEAL_IN_FULL_UP_TO {
        return (1, format!("1: beyond {ANNEAL_IN_FULL_UP_TO} variables the doubling leaves too few populations"));
    }
    match (problem.functions().arrays(), annealing_threads) {
        (KindArrays::Pairwise { .. }, _) => {
            (2, format!("2: pairwise terms up to {ANNEAL_IN_FULL_UP_TO} variables, {pays}"))
        }
        (KindArrays::Tables { .. }, None) => {
            (1, "1: tables annealed on a GPU, where the doubling is not measured yet (2 on the CPU)".into())
        }
        (KindArrays::Tables { .. }, Some(_)) if deception(problem.functions()).is_some_and(|d| d.mostly()) => {
            (1, "1: mostly deceptive tables, where annealing at all slows GOM down".into())
        }
        (KindArrays::Tables { .. }, Some(_)) => {
            (2, format!("2: tables annealed on the CPU up to {ANNEAL_IN_FULL_UP_TO} variables (NK landscapes), {pays}"))
        }
        (KindArrays::Clauses { .. }, _) => {
            (1, "1: the doubling paid on pairwise terms and on tables, not measured on clauses".into())
        }
    }
}

/// The default population cap: the largest power-of-two multiple of n_base whose genes (three
/// copies, as parallel GOM keeps) fit in a quarter of the memory available to the process.
pub fn default_population_cap(l: usize, n_base: usize) -> usize {
    let available = crate::problem::memory::available().unwrap_or(4 << 30) as usize;
    let budget = available / 4;
    let mut n = n_base.max(1);
    while n.saturating_mul(8).saturating_mul(l.max(1)) <= budget && n < (1 << 24) {
        n *= 2;
    }
    n
}

/// Partition mixing is on by default below this many variables (except for clauses), and from
/// it on for lattices of pairwise terms only: the size from which a run mixes only the
/// populations' bests, not every new population's solutions.
pub const PARTITION_MIXING_BELOW: usize = crate::gomea::partition::NEW_POPULATIONS_BELOW;

/// Partition mixing's default (`RunConfig::partition_mixing`): on for problems of fewer than
/// [`PARTITION_MIXING_BELOW`] variables that are not clauses (Max-Cut, Ising models, QUBOs, NK
/// landscapes, traps, tables), and from that size on for pairwise terms (Max-Cut, Ising, QUBO) on
/// a lattice (as [`square_probe`] sees it); off for MAX-SAT, for larger instances of other kinds
/// and shapes, and in the control: the host's mixes gain where they flip regions that local
/// moves leave, and cost more than they gain on clauses and on large instances that are not
/// lattices (`docs/decisions/0015-partition-mixing-default.md`).
/// Returns the choice and why, in words.
pub fn default_partition_mixing(problem: &dyn GrayBoxProblem, anneal_only: bool) -> (bool, String) {
    let costs = "where the host's mixes cost more than they gain";
    let arrays = problem.functions().arrays();
    let l = problem.variables();
    if anneal_only {
        (false, "no partition mixing: the control is the annealing alone".into())
    } else if matches!(arrays, KindArrays::Clauses { .. }) {
        (false, format!("no partition mixing: clauses (MAX-SAT), {costs}"))
    } else if l < PARTITION_MIXING_BELOW {
        (true, format!("partition mixing: fewer than {PARTITION_MIXING_BELOW} variables, not clauses"))
    } else if !matches!(arrays, KindArrays::Pairwise { .. }) {
        (
            false,
            format!(
                "no partition mixing: {} on {l} variables (from {PARTITION_MIXING_BELOW} on only for lattices of pairwise terms), {costs}",
                arrays.kind_name()
            ),
        )
    } else {
        let p = square_probe(problem.functions());
        if p.is_lattice() {
            (
                true,
                format!(
                    "partition mixing of the populations' bests: a lattice of pairwise terms on {l} variables \
                     ({:.2} cycles of up to four subfunctions per subfunction)",
                    p.cycles_per_edge()
                ),
            )
        } else {
            (
                false,
                format!(
                    "no partition mixing: pairwise terms on {l} variables, not a lattice ({:.2} cycles of up to four \
                     subfunctions per subfunction), {costs}",
                    p.cycles_per_edge()
                ),
            )
        }
    }
}

/// `anneal_share` by default: a new population's annealing may take 3/4 of the time left, so
/// that GOM gets the rest instead of the limit cutting the annealing off
/// (`docs/decisions/0007-anneal-share.md`).
pub const DEFAULT_ANNEAL_SHARE: f64 = 0.75;

impl RunOptions {
    /// Why the run takes each default that no field of its own explains, by option name
    /// (`RunConfig::defaults`): the reasons of [`RunOptions::resolve`]'s choices, in words, for
    /// the options left out; the algorithm comes with its reason where it was a default
    /// ([`default_algorithm`]); `linkage_chosen` says whether the linkage model has its own reason.
    pub(super) fn default_reasons(
        &self,
        problem: &dyn GrayBoxProblem,
        (algorithm, algorithm_chosen): (Algorithm, Option<String>),
        linkage_chosen: bool,
        time_limit: Option<f64>,
        max_population: usize,
    ) -> BTreeMap<String, String> {
        let l = problem.variables();
        let anneal_only = self.anneal_only.unwrap_or(false);
        let reasons: [(&str, bool, String); 6] = [
            ("algorithm", algorithm_chosen.is_some(), algorithm_chosen.unwrap_or_default()),
            ("linkage", self.linkage.is_none() && !linkage_chosen, "the paper's fixed linkage tree".into()),
            (
                "coloring",
                self.coloring.is_none(),
                format!(
                    "{}: {l} variables; welsh-powell up to {INCIDENCE_COLORING_FROM}, beyond that incidence, which \
                     gives as many colour groups without counting conflicts",
                    default_coloring(l)
                ),
            ),
            (
                "forced_improvement",
                self.forced_improvement.is_none(),
                match algorithm {
                    _ if anneal_only => "off: the control runs no generation".into(),
                    Algorithm::Serial => "on: serial GOMEA's, as in the paper".into(),
                    Algorithm::Parallel => "off: in parallel GOMEA it costs time without a better result".into(),
                },
            ),
            (
                "time_limit",
                self.time_limit.is_none(),
                match time_limit {
                    Some(t) => format!(
                        "{} s, {DEFAULT_CAP}: given no limit, the run stops when it has its answer (the optimum \
                         proven up to {PROVEN_OPTIMUM_MAX_VARIABLES} variables, else once its best has not improved \
                         for max({STALL_LEAST_S} s, {STALL_SHARE} x the time spent)), at the latest then",
                        show_number(t)
                    ),
                    None => "none: the evaluation budget or the target ends the run".into(),
                },
            ),
            (
                "max_population",
                self.max_population.is_none(),
                format!(
                    "{max_population}: the largest power-of-two multiple of n_base whose solutions fit in a quarter \
                     of the memory available"
                ),
            ),
        ];
        // The options whose default is fixed, or none: their reasons are the table's.
        let given = serde_json::to_value(self).unwrap_or_default();
        let fixed =
            RUN_OPTIONS.iter().filter(|o| given.get(o.name).is_none_or(serde_json::Value::is_null)).filter_map(|o| {
                match o.default {
                    DefaultIs::Fixed(value) | DefaultIs::Unset(value) => {
                        let value = if value.is_empty() { "none" } else { value };
                        Some((o.name.to_string(), format!("{value}: {}", o.why)))
                    }
                    DefaultIs::Decided { .. } => None,
                }
            });
        let decided = reasons.into_iter().filter(|(_, left_out, _)| *left_out).map(|(name, _, why)| (name.into(), why));
        fixed.chain(decided).collect()
    }
}
