//! Ising models and QUBOs (binary quadratic models) as Max-Cut on one more vertex, exactly.
//!
//! A model over n variables minimises an energy: SPIN, `E(s) = offset + sum_i h_i s_i +
//! sum_{i<j} J_ij s_i s_j` over s in {-1, +1}^n; BINARY (QUBO), `E(x) = offset + sum_i Q_ii x_i +
//! sum_{i<j} Q_ij x_i x_j` over x in {0, 1}^n. As in dimod, spin +1 is binary 1: s_i = 2 x_i - 1.
//!
//! The reduction adds vertex n (the *field vertex*) and reads x_i as the side of vertex i, the
//! field vertex on side 0. With [x_i != x_j] the cut indicator of edge ij:
//!
//! - SPIN: s_i s_j = 1 - 2 [x_i != x_j] and s_i = 2 [x_i != x_n] - 1, so
//!   `E = C - 2 cut(w)` with w_ij = J_ij, w_in = -h_i and C = offset + sum J - sum h.
//! - BINARY: x_i x_j = (x_i + x_j - [x_i != x_j]) / 2 and x_i = [x_i != x_n], so
//!   `2E = 2 offset - cut(w)` with w_ij = Q_ij and w_in = -(2 Q_ii + sum_j Q_ij).
//!
//! Maximising the cut minimises the energy. A cut is the same with every side flipped, so a
//! solution whose field vertex is on side 1 is read flipped whole ([`IsingProblem::model_solution`]).
//! All of it is integer arithmetic on biases that are integer multiples of a resolution
//! ([`crate::problem::scale`]); the energy of a fitness is exact ([`IsingProblem::energy`]).
//!
//! Two text formats ([`parse_qubo`], [`parse_ising`]) read into it.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::problem::scale::{self, Decimal, ScaleError};
use crate::problem::{GrayBoxProblem, Subfunctions};
use crate::stop::{StopCheck, WORK_PER_CHECK};
use rayon::prelude::*;

/// Bytes a term of a model takes at the peak of its reduction, at most: the pairs sorted (16 bytes
/// each, twice) and summed (32), the reduced edge's arrays, bounds and incidence (40).
const REDUCTION_BYTES_PER_TERM: u128 = 104;

/// Bytes a term line takes at the peak of reading a file: the term with its line (48), the check
/// for repeated pairs (about 32), its value and integer (40), and then the reduction.
const FILE_BYTES_PER_TERM: u128 = 120 + REDUCTION_BYTES_PER_TERM;

/// The values of a model's variables: spins (-1/+1) or binary (0/1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vartype {
    /// Spins: -1 or +1.
    Spin,
    /// Binary: 0 or 1.
    Binary,
}

impl Vartype {
    /// dimod's name: `SPIN` or `BINARY`.
    pub fn name(self) -> &'static str {
        match self {
            Vartype::Spin => "SPIN",
            Vartype::Binary => "BINARY",
        }
    }

    /// The reduced problem's fitness range is at most this times the sum of |biases| (see the
    /// module documentation: a binary field weight sums a variable's couplings).
    fn range_factor(self) -> u32 {
        match self {
            Vartype::Spin => 1,
            Vartype::Binary => 3,
        }
    }
}

/// A quadratic model (Ising or QUBO) reduced to Max-Cut on n + 1 vertices; see the module
/// documentation. Its genotypes have n + 1 genes, the last one the field vertex.
#[derive(Clone, Debug)]
pub struct IsingProblem {
    name: String,
    vartype: Vartype,
    variables: usize,
    /// Over n + 1 variables: the couplings, then (from `first_field` on) the field edges (i, n).
    functions: Subfunctions,
    first_field: usize,
    /// energy = (constant - per_cut x fitness) x resolution / (2 when binary).
    constant: i128,
    resolution: Decimal,
    /// How far any energy moves where real biases were rounded to the grid (0: exact).
    rounding: f64,
}

impl IsingProblem {
    /// An Ising model over `n` spins with integer fields h_i, couplings J_ij and offset.
    /// Repeated terms are summed, a coupling of a spin with itself is the constant it is
    /// (s_i s_i = 1: added to the offset), as dimod's C++ core does; indices must be below n.
    ///
    /// ```
    /// use pgomea::problem::GrayBoxProblem;
    /// use pgomea::problem::ising::IsingProblem;
    /// // E(s) = s0 - s0 s1 - s1 s2 + 5 over 3 spins: Max-Cut on 4 vertices (the last the field
    /// // vertex). Spin +1 is 1.
    /// let model = IsingProblem::spin(3, &[(0, 1)], &[(0, 1, -1), (1, 2, -1)], 5)?;
    /// assert_eq!((model.model_variables(), model.variables()), (3, 4));
    /// assert_eq!(model.energy_of_model_solution(&[0, 0, 0]).unwrap().to_string(), "2"); // -1 - 1 - 1 + 5
    /// assert_eq!(model.energy_of_model_solution(&[1, 1, 1]).unwrap().to_string(), "4");
    /// // Exact: the best cut of the 16 genotypes is the lowest energy, and reads as s = (-1, -1, -1).
    /// let genotypes = (0..16u8).map(|i| (0..4).map(|v| i >> v & 1).collect::<Vec<u8>>());
    /// let best = genotypes.max_by_key(|g| model.evaluate(g)).unwrap();
    /// assert_eq!(model.energy_of(model.evaluate(&best)).unwrap().to_string(), "2");
    /// assert_eq!(model.model_solution(&best), vec![0, 0, 0]);
    /// // An index beyond n is refused.
    /// assert!(IsingProblem::spin(3, &[(3, 1)], &[], 0).unwrap_err().to_string().contains("out of range 0..3"));
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn spin(n: usize, fields: &[(u32, i64)], couplings: &[(u32, u32, i64)], offset: i64) -> Result<Self> {
        IsingProblem::new(Vartype::Spin, n, fields, couplings, offset, Decimal::integer(1))
    }

    /// A QUBO over `n` binary variables with integer linear terms Q_ii, quadratic terms Q_ij and
    /// offset. Repeated terms are summed, a quadratic term of a variable with itself is linear
    /// (x_i x_i = x_i), as dimod's C++ core does; indices must be below n.
    ///
    /// ```
    /// use pgomea::problem::ising::IsingProblem;
    /// use pgomea::solve::{Hooks, RunOptions, solve};
    /// // E(x) = x0 + x1 - 3 x0 x1: lowest (-1) at x = (1, 1).
    /// let qubo = IsingProblem::binary(2, &[(0, 1), (1, 1)], &[(0, 1, -3)], 0)?;
    /// assert_eq!(qubo.energy_of_model_solution(&[1, 1]).unwrap().to_string(), "-1");
    /// let config = RunOptions { max_evaluations: Some(1e5), ..RunOptions::default() }.resolve(&qubo, None)?;
    /// let outcome = solve(&qubo, &config, Hooks::default())?;
    /// assert_eq!((outcome.energy, outcome.model_solution_text().as_deref()), (Some(-1.0), Some("11")));
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn binary(n: usize, linear: &[(u32, i64)], quadratic: &[(u32, u32, i64)], offset: i64) -> Result<Self> {
        IsingProblem::new(Vartype::Binary, n, linear, quadratic, offset, Decimal::integer(1))
    }

    /// A model with real biases, rounded to the grid of `resolution`, or when None of the
    /// biases' own decimals where that fits 64-bit integers, else the finest grid that does
    /// ([`scale::to_integers`]); [`IsingProblem::rounding`] bounds what the rounding moves an
    /// energy by.
    ///
    /// ```
    /// use pgomea::problem::ising::{IsingProblem, Vartype};
    /// // E(s) = 0.5 s0 - 1.25 s0 s1 + 0.1, on the grid of hundredths.
    /// let model = IsingProblem::from_f64(Vartype::Spin, 2, &[(0, 0.5)], &[(0, 1, -1.25)], 0.1, None)?;
    /// assert_eq!(model.resolution().to_string(), "0.01");
    /// assert_eq!(model.energy_of_model_solution(&[0, 0]).unwrap().to_string(), "-1.65");
    /// assert_eq!(model.rounding(), 0.0);
    /// // Float noise beside 1000: its own grid (10^-17) leaves 64 bits, so the finest grid that
    /// // fits, and the rounding's bound.
    /// let model = IsingProblem::from_f64(Vartype::Spin, 2, &[(0, 0.1 + 0.2)], &[(0, 1, 1000.0)], 0.0, None)?;
    /// assert!(model.rounding() > 0.0 && model.rounding() < 1e-15);
    /// let error = IsingProblem::from_f64(Vartype::Spin, 2, &[(0, f64::NAN)], &[], 0.0, None).unwrap_err();
    /// assert!(error.to_string().starts_with("linear term 0: "));
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn from_f64(
        vartype: Vartype,
        n: usize,
        linear: &[(u32, f64)],
        quadratic: &[(u32, u32, f64)],
        offset: f64,
        resolution: Option<f64>,
    ) -> Result<Self> {
        let floats: Vec<f64> =
            linear.iter().map(|t| t.1).chain(quadratic.iter().map(|t| t.2)).chain([offset]).collect();
        let name = |i: usize| bias_name(i, linear.len(), quadratic.len());
        let to_error = |e: ScaleError| {
            Error::usage(match e.index {
                Some(i) => format!("{}: {}", name(i), e.message),
                None => e.message,
            })
        };
        let values = scale::decimals_of(&floats).map_err(to_error)?;
        let resolution = resolution
            .map(|r| Decimal::from_f64(r).map_err(|m| Error::usage(format!("resolution: {m}"))))
            .transpose()?;
        let scaled = scale::to_integers(&values, resolution, vartype.range_factor()).map_err(to_error)?;
        let (k, q) = scaled.integers.split_at(linear.len());
        let linear: Vec<(u32, i64)> = linear.iter().zip(k).map(|(t, &b)| (t.0, b)).collect();
        let quadratic: Vec<(u32, u32, i64)> = quadratic.iter().zip(q).map(|(t, &b)| (t.0, t.1, b)).collect();
        let rounding = scaled.rounding();
        Ok(IsingProblem::new(vartype, n, &linear, &quadratic, q[q.len() - 1], scaled.resolution)?
            .with_rounding(rounding))
    }

    /// The general constructor: biases as integer multiples of `resolution`.
    pub fn new(
        vartype: Vartype,
        n: usize,
        linear: &[(u32, i64)],
        quadratic: &[(u32, u32, i64)],
        offset: i64,
        resolution: Decimal,
    ) -> Result<Self> {
        IsingProblem::new_with_stop(vartype, n, linear, quadratic, offset, resolution, &StopCheck::never())
    }

    /// [`IsingProblem::new`], stopped (`Error::Stopped`) when `stop` says so: every pass over
    /// the terms and the variables checks it (a model of 10^8 variables takes seconds).
    pub fn new_with_stop(
        vartype: Vartype,
        n: usize,
        linear: &[(u32, i64)],
        quadratic: &[(u32, u32, i64)],
        offset: i64,
        resolution: Decimal,
        stop: &StopCheck,
    ) -> Result<Self> {
        if n >= u32::MAX as usize / 2 {
            return Err(Error::usage(format!("{n} variables is more than this program supports")));
        }
        let terms = linear.len() as u128 + quadratic.len() as u128;
        crate::problem::memory::ensure(
            REDUCTION_BYTES_PER_TERM * terms + 40 * n as u128,
            &format!("a model of {n} variables and {terms} terms"),
        )?;
        let what = if vartype == Vartype::Spin { "coupling" } else { "quadratic term" };
        let out_of_range = |kind: &str, k: usize, v: u32| {
            Error::usage(format!("{kind} {k}: variable {v} is out of range 0..{n} (the model has {n} variables)"))
        };
        // Per variable: h_i (SPIN) or Q_ii (BINARY), summed exactly.
        let mut field = vec![0i128; n];
        for (k, &(i, b)) in linear.iter().enumerate() {
            stop.every(k, WORK_PER_CHECK)?;
            *field.get_mut(i as usize).ok_or_else(|| out_of_range("linear term", k, i))? += b as i128;
        }
        let mut constant = offset as i128;
        // A pair's term as given (16 bytes: half the sort's traffic), summed in i128 below.
        let mut pairs: Vec<(u64, i64)> = Vec::with_capacity(quadratic.len());
        for (k, &(i, j, b)) in quadratic.iter().enumerate() {
            stop.every(k, WORK_PER_CHECK)?;
            for v in [i, j] {
                if v as usize >= n {
                    return Err(out_of_range(what, k, v));
                }
            }
            match (i == j, vartype) {
                (true, Vartype::Spin) => constant += b as i128,
                (true, Vartype::Binary) => field[i as usize] += b as i128,
                (false, _) => pairs.push(((i.min(j) as u64) << 32 | i.max(j) as u64, b)),
            }
        }
        // Repeated pairs summed; pairs summing to 0 add nothing to any energy and are left out.
        // Sorted stably and checked as it goes (10^8 pairs take seconds); a repeated pair's
        // terms are summed exactly, so that their order within the sort never shows.
        let pairs = stop.sorted_by(pairs, |x, y| x.0.cmp(&y.0))?;
        let mut couplings: Vec<(u64, i128)> = Vec::with_capacity(pairs.len());
        for (k, (key, b)) in pairs.into_iter().enumerate() {
            stop.every(k, WORK_PER_CHECK)?;
            match couplings.last_mut() {
                Some(last) if last.0 == key => last.1 += b as i128,
                _ => couplings.push((key, b as i128)),
            }
        }
        couplings.retain(|c| c.1 != 0);
        let ends_of = |key: u64| [(key >> 32) as u32, key as u32];
        let fits = |v: i128, what: String| {
            i64::try_from(v).map_err(|_| Error::usage(format!("{what} is {v}: beyond 64-bit integers")))
        };
        // Field-vertex weights (before the sign): h_i, or 2 Q_ii + sum_j Q_ij.
        if vartype == Vartype::Binary {
            for (k, f) in field.iter_mut().enumerate() {
                stop.every(k, WORK_PER_CHECK)?;
                *f *= 2;
            }
            for (k, &(key, b)) in couplings.iter().enumerate() {
                stop.every(k, WORK_PER_CHECK)?;
                let [i, j] = ends_of(key);
                field[i as usize] += b;
                field[j as usize] += b;
            }
        }
        stop.check()?;
        let fields = field.par_iter().filter(|&&f| f != 0).count();
        let mut ends = Vec::with_capacity(2 * (couplings.len() + fields));
        let mut weights = Vec::with_capacity(couplings.len() + fields);
        let mut sum_couplings = 0i128;
        for (k, &(key, b)) in couplings.iter().enumerate() {
            stop.every(k, WORK_PER_CHECK)?;
            let [i, j] = ends_of(key);
            ends.extend_from_slice(&[i, j]);
            weights.push(fits(b, format!("the {what} of ({i}, {j}), summed,"))?);
            sum_couplings += b;
        }
        drop(couplings);
        let first_field = weights.len();
        let mut sum_fields = 0i128;
        for (i, &f) in field.iter().enumerate() {
            stop.every(i, WORK_PER_CHECK)?;
            if f != 0 {
                ends.extend_from_slice(&[i as u32, n as u32]);
                weights.push(fits(-f, format!("the field edge of variable {i}"))?);
                sum_fields += f;
            }
        }
        drop(field);
        let constant = match vartype {
            Vartype::Spin => constant + sum_couplings - sum_fields,
            Vartype::Binary => 2 * constant,
        };
        let functions = Subfunctions::pairwise_with_stop(n + 1, ends, weights, stop)?;
        let name = format!("{}-n{n}", if vartype == Vartype::Spin { "ising" } else { "qubo" });
        Ok(IsingProblem { name, vartype, variables: n, functions, first_field, constant, resolution, rounding: 0.0 })
    }

    /// The same problem, its biases rounded to the grid by at most `rounding` in all.
    pub fn with_rounding(mut self, rounding: f64) -> Self {
        self.rounding = rounding;
        self
    }

    /// The most the rounding of real biases to the grid moves any energy (0 where exact): the
    /// sum of the biases' roundings.
    pub fn rounding(&self) -> f64 {
        self.rounding
    }

    /// The same problem under another name (reports name it).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Whether the model's variables are spins or binary.
    pub fn vartype(&self) -> Vartype {
        self.vartype
    }

    /// The model's number of variables n (the reduced problem has n + 1).
    pub fn model_variables(&self) -> usize {
        self.variables
    }

    /// The unit of the integer biases.
    pub fn resolution(&self) -> Decimal {
        self.resolution
    }

    /// The model's energy at a fitness (cut value) of the reduced problem, exactly. None only
    /// when it leaves i128 (not for any model this type accepts: |constant| and the fitness are
    /// below 2^66, the resolution's units below 10^38 / 2^66 for every resolution the scale
    /// module makes from f64 or 38-digit text).
    pub fn energy_of(&self, fitness: i64) -> Option<Decimal> {
        let per_cut = if self.vartype == Vartype::Spin { 2 } else { 1 };
        let units = self.constant.checked_sub(per_cut * fitness as i128)?;
        let energy = self.resolution.checked_mul_int(units)?;
        if self.vartype == Vartype::Binary { energy.checked_half() } else { Some(energy) }
    }

    /// The model's variables (0/1; for SPIN, 1 is +1) of a genotype of the reduced problem: the
    /// first n genes, all flipped when the field vertex (gene n) is on side 1.
    pub fn model_solution(&self, genes: &[u8]) -> Vec<u8> {
        let flip = genes.get(self.variables).copied().unwrap_or(0) & 1;
        genes.iter().take(self.variables).map(|&g| (g & 1) ^ flip).collect()
    }

    /// The energy of an assignment of the model's variables, computed from the reduced
    /// subfunctions (the field vertex on side 0).
    pub fn energy_of_model_solution(&self, values: &[u8]) -> Option<Decimal> {
        let mut genes = values.to_vec();
        genes.push(0);
        self.energy_of(self.functions.evaluate(&genes))
    }
}

/// How a bias of [`IsingProblem::from_f64`]'s arguments is named in errors: its index among the
/// linear terms, the quadratic terms, or the offset.
fn bias_name(i: usize, linear: usize, quadratic: usize) -> String {
    if i < linear {
        format!("linear term {i}")
    } else if i < linear + quadratic {
        format!("quadratic term {}", i - linear)
    } else {
        "offset".into()
    }
}

impl GrayBoxProblem for IsingProblem {
    fn name(&self) -> &str {
        &self.name
    }
    fn problem_type(&self) -> &str {
        match self.vartype {
            Vartype::Spin => "ising",
            Vartype::Binary => "qubo",
        }
    }
    fn functions(&self) -> &Subfunctions {
        &self.functions
    }
    /// A field is a term of one model variable: it links none, so the field edges carry no
    /// linkage (the field vertex, joined to every variable with a field, would otherwise turn the
    /// linkage tree into a caterpillar).
    fn linkage_weight(&self, s: usize) -> u64 {
        if s >= self.first_field { 0 } else { self.functions.value_range(s) }
    }
    fn statistics(&self) -> Vec<(&'static str, String)> {
        vec![
            ("vartype", self.vartype.name().into()),
            ("model_variables", self.variables.to_string()),
            ("couplings", self.first_field.to_string()),
            ("fields", (self.functions.len() - self.first_field).to_string()),
            ("resolution", self.resolution.to_string()),
        ]
        .into_iter()
        .chain((self.rounding > 0.0).then(|| ("rounding_bound", format!("{:e}", self.rounding))))
        .collect()
    }
    fn energy(&self, fitness: i64) -> Option<Decimal> {
        self.energy_of(fitness)
    }
    fn model_solution(&self, genes: &[u8]) -> Vec<u8> {
        IsingProblem::model_solution(self, genes)
    }
}

// ---------------------------------------------------------------------------------------------
// Text formats.

/// One term line `i j value` of a `.qubo` or `.ising` file, with its line.
struct Term {
    line: usize,
    i: u32,
    j: u32,
    value: Decimal,
}

/// Reads `i j value` (0-based indices below `limit`, the value an exact decimal).
fn parse_term(line: &str, lineno: usize, limit: u64) -> std::result::Result<Term, String> {
    let t: Vec<&str> = line.split_whitespace().collect();
    if t.len() != 3 {
        return Err(format!("expected `i j value` (two indices and a number), found {} token(s): `{line}`", t.len()));
    }
    let index = |s: &str| -> std::result::Result<u32, String> {
        let v: u64 = s.parse().map_err(|_| format!("index `{s}` is not a non-negative integer in range"))?;
        if v >= limit {
            return Err(format!("index {v} is out of range 0..{limit}"));
        }
        Ok(v as u32)
    };
    let (i, j) = (index(t[0])?, index(t[1])?);
    let value = Decimal::parse(t[2])?;
    Ok(Term { line: lineno, i, j, value })
}

/// The model of the terms read from `file`: `i i value` lines are linear terms, the others
/// quadratic; a repeated pair is an error naming both lines; the values go on the grid of their
/// own decimals, errors naming the value's line.
fn model_of_terms(
    vartype: Vartype,
    n: usize,
    terms: Vec<Term>,
    file: &str,
    name: &str,
    stop: &StopCheck,
) -> Result<IsingProblem> {
    let err = Error::parse_in(file);
    let mut seen: HashMap<(u32, u32), usize> = HashMap::with_capacity(terms.len());
    for t in &terms {
        if let Some(first) = seen.insert((t.i.min(t.j), t.i.max(t.j)), t.line) {
            return Err(err(t.line, format!("the term of ({}, {}) was already given on line {first}", t.i, t.j)));
        }
    }
    drop(seen);
    let values: Vec<Decimal> = terms.iter().map(|t| t.value).collect();
    let scaled = scale::to_integers(&values, None, vartype.range_factor()).map_err(|e| match e.index {
        Some(k) => err(terms[k].line, e.message),
        None => Error::usage(format!("{file}: {}", e.message)),
    })?;
    drop(values);
    let (mut linear, mut quadratic) = (Vec::new(), Vec::new());
    for (t, &b) in terms.iter().zip(&scaled.integers) {
        if t.i == t.j { linear.push((t.i, b)) } else { quadratic.push((t.i, t.j, b)) }
    }
    drop(terms);
    let problem = IsingProblem::new_with_stop(vartype, n, &linear, &quadratic, 0, scaled.resolution, stop).map_err(
        |e| match e {
            Error::Stopped(reason) => Error::Stopped(reason),
            e => Error::usage(format!("{file}: {e}")),
        },
    )?;
    Ok(problem.with_name(name).with_rounding(scaled.rounding()))
}

/// The lines of `text` with their numbers, blank lines and comment lines (starting with one of
/// `comments`) left out.
fn data_lines<'a>(text: &'a str, comments: &'a [char]) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    text.lines()
        .enumerate()
        .map(|(k, l)| (k + 1, l.trim()))
        .filter(move |(_, l)| !l.is_empty() && !l.starts_with(comments))
}

/// Reads a qbsolv `.qubo` file: comment lines `c ...`; the header `p qubo TOPOLOGY MAXNODES
/// NNODES NCOUPLERS` (the topology is any one word, `0` for unconstrained; the model has
/// MAXNODES variables); then NNODES lines `i i Q_ii` and NCOUPLERS lines `i j Q_ij` with
/// i < j, 0-based, in any order, each pair once. Values are decimals, read exactly. The energy
/// `sum_i Q_ii x_i + sum_{i<j} Q_ij x_i x_j` is minimised.
pub fn parse_qubo(text: &str, file: &str, name: &str, stop: &StopCheck) -> Result<IsingProblem> {
    let err = Error::parse_in(file);
    let mut lines = data_lines(text, &['c']);
    let (hline, header) =
        lines.next().ok_or_else(|| err(1, "empty file: expected `p qubo 0 MAXNODES NNODES NCOUPLERS`".into()))?;
    let h: Vec<&str> = header.split_whitespace().collect();
    if h.len() != 6 || h[0] != "p" || h[1] != "qubo" {
        return Err(err(
            hline,
            format!("expected the header `p qubo TOPOLOGY MAXNODES NNODES NCOUPLERS`, found `{header}`"),
        ));
    }
    let count = |s: &str, what: &str| -> Result<usize> {
        s.parse::<usize>().map_err(|_| err(hline, format!("{what} `{s}` is not a non-negative integer in range")))
    };
    let (max_nodes, nodes, couplers) = (count(h[3], "MAXNODES")?, count(h[4], "NNODES")?, count(h[5], "NCOUPLERS")?);
    if nodes > max_nodes {
        return Err(err(hline, format!("{nodes} nodes cannot be among {max_nodes} (NNODES > MAXNODES)")));
    }
    if max_nodes >= u32::MAX as usize / 2 {
        return Err(err(hline, format!("{max_nodes} nodes is more than this program supports")));
    }
    // Each term line takes at least 6 bytes: a larger count cannot be in the text.
    let terms_announced = nodes as u128 + couplers as u128;
    if terms_announced > (text.len() / 6 + 1) as u128 {
        return Err(err(
            hline,
            format!("the header announces {terms_announced} terms, more than a file of {} bytes can hold", text.len()),
        ));
    }
    crate::problem::memory::ensure(
        FILE_BYTES_PER_TERM * terms_announced,
        &format!("a QUBO of {terms_announced} terms"),
    )?;
    let mut terms = Vec::with_capacity(terms_announced as usize);
    let (mut seen_nodes, mut seen_couplers) = (0usize, 0usize);
    let mut last = hline;
    for (k, (lineno, line)) in lines.enumerate() {
        stop.every(k, crate::problem::lines::STOP_EVERY_LINES)?;
        last = lineno;
        let t = parse_term(line, lineno, max_nodes as u64).map_err(|m| err(lineno, m))?;
        if t.i == t.j {
            seen_nodes += 1;
            if seen_nodes > nodes {
                return Err(err(lineno, format!("more node lines `i i Q_ii` than the {nodes} the header announces")));
            }
        } else {
            if t.i > t.j {
                return Err(err(
                    lineno,
                    format!("a coupler must list the smaller index first (`{} {} ...`)", t.j, t.i),
                ));
            }
            seen_couplers += 1;
            if seen_couplers > couplers {
                return Err(err(lineno, format!("more coupler lines than the {couplers} the header announces")));
            }
        }
        terms.push(t);
    }
    if (seen_nodes, seen_couplers) != (nodes, couplers) {
        return Err(err(
            last,
            format!(
                "the header announces {nodes} nodes and {couplers} couplers but the file has {seen_nodes} and {seen_couplers}"
            ),
        ));
    }
    model_of_terms(Vartype::Binary, max_nodes, terms, file, name, stop)
}

/// Reads an `.ising` file: comment lines starting with `c` or `#`; an optional header
/// `p ising N` (N spins; without it, the largest index + 1); then lines `i j J` (a coupling,
/// i != j) and `i i h` (the field of spin i), 0-based, in any order, each pair once. Values are
/// decimals, read exactly. The energy `sum_i h_i s_i + sum_{i<j} J_ij s_i s_j` over s in
/// {-1, +1} is minimised (spin +1 is binary 1).
pub fn parse_ising(text: &str, file: &str, name: &str, stop: &StopCheck) -> Result<IsingProblem> {
    let err = Error::parse_in(file);
    let mut lines = data_lines(text, &['c', '#']).peekable();
    if lines.peek().is_none() {
        // Like every other reader: a file with nothing in it is a mistake, not a model of no spins.
        let last = text.lines().count().max(1);
        return Err(err(
            last,
            "empty file: expected `p ising N` or lines `i j J` (a coupling) and `i i h` (a field)".into(),
        ));
    }
    let mut declared = None;
    if let Some(&(hline, header)) = lines.peek()
        && header.starts_with('p')
    {
        let h: Vec<&str> = header.split_whitespace().collect();
        let n = match h[..] {
            ["p", "ising", n] => n.parse::<usize>().ok().filter(|&n| n < u32::MAX as usize / 2),
            _ => None,
        };
        let n = n.ok_or_else(|| err(hline, format!("expected the header `p ising N` (N spins), found `{header}`")))?;
        declared = Some(n);
        lines.next();
    }
    let limit = declared.map_or(u32::MAX as u64 / 2 - 1, |n| n as u64);
    let count = data_lines(text, &['c', '#']).count() as u128;
    crate::problem::memory::ensure(FILE_BYTES_PER_TERM * count, &format!("an Ising model of {count} terms"))?;
    let mut terms = Vec::with_capacity(count as usize);
    for (k, (lineno, line)) in lines.enumerate() {
        stop.every(k, crate::problem::lines::STOP_EVERY_LINES)?;
        terms.push(parse_term(line, lineno, limit).map_err(|m| err(lineno, m))?);
    }
    let n = declared.unwrap_or_else(|| terms.iter().map(|t| t.i.max(t.j) as usize + 1).max().unwrap_or(0));
    model_of_terms(Vartype::Spin, n, terms, file, name, stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_spin_and_one_bit_have_the_energies_of_their_definitions() {
        // E(s) = 3 s + 1: -2 at s = -1, 4 at s = +1.
        let p = IsingProblem::spin(1, &[(0, 3)], &[], 1).unwrap();
        assert_eq!(p.energy_of_model_solution(&[0]).unwrap().to_string(), "-2");
        assert_eq!(p.energy_of_model_solution(&[1]).unwrap().to_string(), "4");
        // E(x) = 3 x - 1 (the binary offset may halve: checked exact).
        let p = IsingProblem::binary(1, &[(0, 3)], &[], -1).unwrap();
        assert_eq!(p.energy_of_model_solution(&[0]).unwrap().to_string(), "-1");
        assert_eq!(p.energy_of_model_solution(&[1]).unwrap().to_string(), "2");
        // x0 x1 with Q = 1: odd cut values give half energies in the arithmetic, whole in the end.
        let p = IsingProblem::binary(2, &[], &[(0, 1, 1)], 0).unwrap();
        for (x, e) in [([0, 0], "0"), ([0, 1], "0"), ([1, 0], "0"), ([1, 1], "1")] {
            assert_eq!(p.energy_of_model_solution(&x).unwrap().to_string(), e, "{x:?}");
        }
    }

    #[test]
    fn the_field_vertex_on_side_one_flips_the_solution() {
        let p = IsingProblem::spin(3, &[(0, 1)], &[(0, 1, -1), (1, 2, 1)], 0).unwrap();
        assert_eq!(p.model_solution(&[1, 0, 1, 0]), vec![1, 0, 1]);
        assert_eq!(p.model_solution(&[1, 0, 1, 1]), vec![0, 1, 0]);
        // Both genotypes are the same cut, so the same energy.
        let f = |g: &[u8]| p.energy_of(p.evaluate(g)).unwrap();
        assert_eq!(f(&[1, 0, 1, 0]), f(&[0, 1, 0, 1]));
    }

    #[test]
    fn repeats_are_summed_self_couplings_folded_and_bad_indices_refused() {
        // (0,1) given as 2 and (1,0) as 3: one coupling of 5. J_00 = 4 is a constant.
        let p = IsingProblem::spin(2, &[(1, 2), (1, -2)], &[(0, 1, 2), (1, 0, 3), (0, 0, 4)], 0).unwrap();
        assert_eq!(p.subfunctions(), 1);
        assert_eq!(p.energy_of_model_solution(&[1, 1]).unwrap().to_string(), "9");
        // A binary self-term is linear: E = 2 x0 + 5 x0 x1 with Q_00 given twice.
        let p = IsingProblem::binary(2, &[(0, 1)], &[(0, 0, 1), (0, 1, 5)], 0).unwrap();
        assert_eq!(p.energy_of_model_solution(&[1, 0]).unwrap().to_string(), "2");
        assert_eq!(p.energy_of_model_solution(&[1, 1]).unwrap().to_string(), "7");
        let e = IsingProblem::spin(2, &[], &[(0, 2, 1)], 0).unwrap_err().to_string();
        assert!(e.contains("coupling 0: variable 2 is out of range 0..2"), "{e}");
        let e = IsingProblem::binary(2, &[(5, 1)], &[], 0).unwrap_err().to_string();
        assert!(e.contains("linear term 0: variable 5"), "{e}");
        let e = IsingProblem::spin(2, &[], &[(0, 1, i64::MAX), (1, 0, 1)], 0).unwrap_err().to_string();
        assert!(e.contains("beyond 64-bit"), "{e}");
        let e = IsingProblem::binary(3, &[(1, i64::MAX / 2)], &[(0, 1, i64::MAX / 2)], 0).unwrap_err().to_string();
        assert!(e.contains("beyond 64-bit"), "{e}");
    }

    #[test]
    fn float_biases_are_put_on_their_grid_and_energies_are_exact() {
        let p = IsingProblem::from_f64(Vartype::Spin, 2, &[(0, 0.25)], &[(0, 1, -1.5)], 0.125, None).unwrap();
        assert_eq!(p.resolution().to_string(), "0.001");
        // s = (+1, +1): 0.25 - 1.5 + 0.125.
        assert_eq!(p.energy_of_model_solution(&[1, 1]).unwrap().to_string(), "-1.125");
        assert_eq!(p.energy_of_model_solution(&[1, 1]).unwrap().to_f64(), -1.125);
        let e = IsingProblem::from_f64(Vartype::Binary, 2, &[(0, 0.3)], &[(0, 1, f64::NAN)], 0.0, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("quadratic term 0: NaN"), "{e}");
        // A given grid is rounded to: 0.3 is 0.25 within 0.05.
        let p = IsingProblem::from_f64(Vartype::Binary, 2, &[(0, 0.3)], &[], 0.0, Some(0.25)).unwrap();
        assert_eq!(p.energy_of_model_solution(&[1, 0]).unwrap().to_string(), "0.25");
        assert!((p.rounding() - 0.05).abs() < 1e-12);
    }
}
