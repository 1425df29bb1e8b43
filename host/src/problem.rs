//! Gray-box problems: a fitness that is a sum of subfunctions, each over a few variables, so that a
//! change of a few variables can be re-evaluated from the subfunctions that depend on them alone.
//!
//! GOMEA only talks to [`GrayBoxProblem`]; weighted Max-Cut is the one implementation for now.

use std::sync::atomic::{AtomicU64, Ordering};

use pgomea_device::gom::cut_value;

use crate::instance::Instance;

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

/// Weighted Max-Cut: one variable per vertex (its side), one subfunction per edge, worth the
/// edge's weight when the edge is cut.
#[derive(Clone, Debug)]
pub struct MaxCut {
    pub instance: Instance,
    /// The two ends of each edge, flat: edge e reads ends[2e] and ends[2e+1].
    pub ends: Vec<u32>,
    pub weights: Vec<i64>,
    /// Incidence CSR: the edges of vertex v are incident[offsets[v]..offsets[v+1]].
    pub offsets: Vec<u32>,
    pub incident: Vec<u32>,
}

impl MaxCut {
    pub fn new(instance: Instance) -> Self {
        let n = instance.vertices;
        let mut degree = vec![0u32; n + 1];
        let mut ends = Vec::with_capacity(2 * instance.edges.len());
        let mut weights = Vec::with_capacity(instance.edges.len());
        for e in &instance.edges {
            degree[e.u as usize] += 1;
            degree[e.v as usize] += 1;
            ends.extend_from_slice(&[e.u, e.v]);
            weights.push(e.w);
        }
        let mut offsets = vec![0u32; n + 1];
        for v in 0..n {
            offsets[v + 1] = offsets[v] + degree[v];
        }
        let mut fill = offsets.clone();
        let mut incident = vec![0u32; offsets[n] as usize];
        for (i, e) in instance.edges.iter().enumerate() {
            for v in [e.u, e.v] {
                incident[fill[v as usize] as usize] = i as u32;
                fill[v as usize] += 1;
            }
        }
        MaxCut { instance, ends, weights, offsets, incident }
    }

    pub fn degree(&self, v: usize) -> usize {
        (self.offsets[v + 1] - self.offsets[v]) as usize
    }

    /// The neighbours of v.
    pub fn neighbours(&self, v: usize) -> impl Iterator<Item = (u32, i64)> + '_ {
        self.dependent_subfunctions(v).iter().map(move |&e| {
            let (a, b) = (self.ends[2 * e as usize], self.ends[2 * e as usize + 1]);
            (if a as usize == v { b } else { a }, self.weights[e as usize])
        })
    }
}

impl GrayBoxProblem for MaxCut {
    fn variables(&self) -> usize {
        self.instance.vertices
    }
    fn subfunctions(&self) -> usize {
        self.weights.len()
    }
    fn subfunction_variables(&self, s: usize) -> &[u32] {
        &self.ends[2 * s..2 * s + 2]
    }
    fn dependent_subfunctions(&self, v: usize) -> &[u32] {
        &self.incident[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
    #[inline]
    fn evaluate_subfunction(&self, s: usize, x: &[u8]) -> i64 {
        cut_value(x[self.ends[2 * s] as usize], x[self.ends[2 * s + 1] as usize], self.weights[s])
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

impl MaxCut {
    /// [`flip_delta`] specialised to Max-Cut: an edge with exactly one flipped end changes from cut
    /// to uncut or back; an edge with both ends flipped keeps its state and is skipped. Counts the
    /// edges it looks at as one evaluation each, before and after.
    #[inline]
    pub fn cut_flip_delta(&self, x: &[u8], flipped: &[u32], in_flipped: &mut [bool]) -> (i64, u64) {
        if let [v] = flipped {
            let v = *v as usize;
            let xv = x[v];
            let mut delta = 0;
            let range = self.offsets[v] as usize..self.offsets[v + 1] as usize;
            for &e in &self.incident[range.clone()] {
                let (a, b) = (self.ends[2 * e as usize], self.ends[2 * e as usize + 1]);
                let u = (a ^ b ^ v as u32) as usize;
                let w = self.weights[e as usize];
                delta += if x[u] == xv { w } else { -w };
            }
            return (delta, range.len() as u64);
        }
        for &v in flipped {
            in_flipped[v as usize] = true;
        }
        let mut delta = 0;
        let mut visited = 0u64;
        for &v in flipped {
            let v = v as usize;
            let xv = x[v];
            for &e in self.dependent_subfunctions(v) {
                let (a, b) = (self.ends[2 * e as usize], self.ends[2 * e as usize + 1]);
                let u = (a ^ b ^ v as u32) as usize;
                if in_flipped[u] {
                    // Both ends flip: the edge keeps its state; count it once (from its lower end).
                    visited += (v < u) as u64;
                    continue;
                }
                visited += 1;
                let w = self.weights[e as usize];
                delta += if x[u] == xv { w } else { -w };
            }
        }
        for &v in flipped {
            in_flipped[v as usize] = false;
        }
        (delta, visited)
    }
}
