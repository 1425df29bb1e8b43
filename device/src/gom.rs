//! The pure per-element rules of Gene-pool Optimal Mixing that the CPU backend and the kernels
//! share: the order in which donors are tried, the value of one Max-Cut subfunction, and the
//! acceptance rule.

use crate::rng::{Counter, below};

/// "No donor": every candidate's genes equal the parent's on the linkage set.
pub const NO_DONOR: i32 = -1;

/// The candidate donors of one GOM step are visited in the order start, start+step, ... (mod n),
/// a permutation of the population because step is coprime to n. The first candidate is uniform;
/// the first that differs from the parent on the linkage set is the donor, so "no donor" is only
/// answered when really no solution differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DonorOrder {
    pub start: u32,
    pub step: u32,
    pub n: u32,
}

impl DonorOrder {
    /// The order of GOM step (solution, set) of a group in a generation; `n` is the population size.
    #[inline(always)]
    pub fn new(seed: u64, generation: u32, group: u32, solution: u32, set: u32, n: u32) -> Self {
        let c = Counter { seed, generation, group, solution, set, attempt: 0 };
        Self::from_bits(c.bits(), Counter { attempt: 1, ..c }.bits(), n)
    }

    /// The order drawn from two random words (serial GOMEA draws them from its own stream).
    #[inline(always)]
    pub fn from_bits(a: u64, b: u64, n: u32) -> Self {
        let start = below(a, n);
        let mut step = if n > 1 { 1 + below(b, n - 1) } else { 1 };
        while gcd(step, n) != 1 {
            step += 1;
            if step >= n {
                step = 1;
            }
        }
        DonorOrder { start, step, n }
    }

    /// The k-th candidate, k in 0..n.
    #[inline(always)]
    pub fn candidate(&self, k: u32) -> u32 {
        ((self.start as u64 + k as u64 * self.step as u64) % self.n as u64) as u32
    }

    /// The distance `stride` candidates cover: candidate(k + stride) == advance(candidate(k), jump(stride)).
    #[inline(always)]
    pub fn jump(&self, stride: u32) -> u32 {
        (stride as u64 * self.step as u64 % self.n as u64) as u32
    }

    /// `c + by (mod n)` for c, by in 0..n, without a division (kernels walk the order with it).
    #[inline(always)]
    pub fn advance(&self, c: u32, by: u32) -> u32 {
        if c >= self.n - by { c - (self.n - by) } else { c + by }
    }
}

#[inline(always)]
pub fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// How many GPU threads work on one (solution, linkage set) pair, by the set's size: one lane for
/// sets of at most 8 variables with at most 32 dependent subfunctions, a whole block for sets of
/// more than 256 variables or 1024 dependent subfunctions (on a sparse graph a linkage tree's
/// top sets hold thousands), a warp for the others. This only shares out the work; no result
/// depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Crew {
    Lane,
    Warp,
    Block,
}

#[inline(always)]
pub fn crew(variables: usize, dependent_subfunctions: usize) -> Crew {
    if variables <= 8 && dependent_subfunctions <= 32 {
        Crew::Lane
    } else if variables > 256 || dependent_subfunctions > 1024 {
        Crew::Block
    } else {
        Crew::Warp
    }
}

/// One Max-Cut subfunction: the weight of the edge if its ends lie on different sides.
#[inline(always)]
pub fn cut_value(gene_u: u8, gene_v: u8, weight: i64) -> i64 {
    if gene_u != gene_v { weight } else { 0 }
}

/// The change of one Max-Cut subfunction between a solution (old ends) and its working copy
/// (new ends): stage 3 of parallel GOM evaluates this for every dependent edge.
#[inline(always)]
pub fn edge_delta(old_u: u8, old_v: u8, new_u: u8, new_v: u8, weight: i64) -> i64 {
    cut_value(new_u, new_v, weight) - cut_value(old_u, old_v, weight)
}

/// The acceptance rule of GOM: strictly better, or equally good when the solution is not the
/// elitist (equal moves let the population drift across plateaus, but the elitist must not drift).
#[inline(always)]
pub fn accept(delta: i64, has_donor: bool, is_elitist: bool) -> bool {
    has_donor && (delta > 0 || (delta == 0 && !is_elitist))
}
