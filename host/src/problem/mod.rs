//! Gray-box problems: a fitness that is a sum of subfunctions, each over a few variables, so that a
//! change of a few variables can be re-evaluated from the subfunctions that depend on them alone.
//!
//! GOMEA only talks to [`GrayBoxProblem`]; weighted Max-Cut ([`maxcut`]) is the one implementation for now.

pub mod data;
pub mod generate;
pub mod graph;
pub mod maxcut;

use std::sync::atomic::{AtomicU64, Ordering};

/// A binary gray-box problem with additive subfunctions and i64 fitness (maximised).
pub trait GrayBoxProblem: Sync {
    /// Number of variables l.
    fn variables(&self) -> usize;
    /// Number of subfunctions m.
    fn subfunctions(&self) -> usize;
    /// The variables subfunction `s` reads.
    fn subfunction_variables(&self, s: usize) -> &[u32];
    /// The subfunctions that read variable `v`.
    fn dependent_subfunctions(&self, v: usize) -> &[u32];
    /// The value of subfunction `s` on genotype `x`.
    fn evaluate_subfunction(&self, s: usize, x: &[u8]) -> i64;

    /// The full fitness: the sum of all subfunctions.
    fn evaluate(&self, x: &[u8]) -> i64 {
        (0..self.subfunctions()).map(|s| self.evaluate_subfunction(s, x)).sum()
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
    pub fn add_subfunctions(&self, count: u64) {
        self.subfunction_evaluations.fetch_add(count, Ordering::Relaxed);
    }
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

/// Partial evaluation of a GOM step on a binary problem: the change of fitness when the variables
/// `flipped` of `x` change value (the donor's genes that differ from the parent's). `in_flipped`
/// is a mark per variable, all false on entry and on return. Returns (delta, subfunction
/// evaluations). Only the subfunctions of the changed variables are visited; a subfunction is
/// evaluated once before and once after the change.
pub fn flip_delta<P: GrayBoxProblem + ?Sized>(
    p: &P,
    x: &mut [u8],
    flipped: &[u32],
    in_flipped: &mut [bool],
    dependent: &mut Vec<u32>,
) -> (i64, u64) {
    dependent.clear();
    for &v in flipped {
        in_flipped[v as usize] = true;
    }
    // A subfunction is collected by the first flipped variable it reads, so each appears once.
    for &v in flipped {
        for &s in p.dependent_subfunctions(v as usize) {
            let first = p.subfunction_variables(s as usize).iter().find(|&&u| in_flipped[u as usize]);
            if first == Some(&v) {
                dependent.push(s);
            }
        }
    }
    let before: i64 = dependent.iter().map(|&s| p.evaluate_subfunction(s as usize, x)).sum();
    for &v in flipped {
        x[v as usize] ^= 1;
    }
    let after: i64 = dependent.iter().map(|&s| p.evaluate_subfunction(s as usize, x)).sum();
    for &v in flipped {
        x[v as usize] ^= 1;
        in_flipped[v as usize] = false;
    }
    (after - before, dependent.len() as u64)
}
