//! The rules of Gene-pool Optimal Mixing that every algorithm and target shares: the order in
//! which donors are tried and the search for the first that differs (parallel GOM's stage 1 and
//! serial GOMEA), the acceptance rule, and which crew works on a pair.

use crate::crew::Crew;
use crate::rng::{Counter, below, streams};

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
        let c = Counter { seed, generation, group, solution, set, attempt: streams::DONOR_START };
        Self::from_bits(c.bits(), Counter { attempt: streams::DONOR_STEP, ..c }.bits(), n)
    }

    /// The order drawn from two random words (serial GOMEA draws them from its own stream).
    #[inline(always)]
    pub fn from_bits(a: u64, b: u64, n: u32) -> Self {
        let start = below(a, n);
        let mut step = if n > 1 { 1 + below(b, n - 1) } else { 1 };
        if n.is_power_of_two() {
            // The steps coprime to a power of two are the odd ones: the search below would stop
            // at step | 1 (an even step is below n - 1), here without a division.
            step |= 1;
        } else {
            while gcd(step, n) != 1 {
                step += 1;
                if step >= n {
                    step = 1;
                }
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

// ANCHOR: first_differing_donor
/// Searches `order` for the donor of `solution`: the first candidate other than the solution
/// itself for which `differs(candidate, from, by)` holds, or [`NO_DONOR`]. `differs` tells
/// whether the candidate's genes differ from the solution's on this thread's share of the
/// linkage set (its entries `from, from + by, ...`); `set_size` is the set's size. Each team of
/// the crew tests one candidate per round, in order, so the answer is the same for every crew.
///
/// # Safety
///
/// Every member of the crew calls it together (the collective rule of [`crate::crew`]).
#[inline(always)]
pub unsafe fn first_differing_donor<C: Crew>(
    crew: &C,
    order: &DonorOrder,
    solution: u32,
    set_size: usize,
    differs: impl Fn(u32, usize, usize) -> bool,
) -> i32 {
    let teams = crew.teams(set_size);
    // One team (a lane, a block) walks the order from `start` by `step`, without a division;
    // several teams start at their own candidate and skip `count` candidates a round.
    let (mut c, jump) = if teams.count == 1 {
        (order.start, order.step)
    } else {
        (order.candidate(teams.team), order.jump(teams.count))
    };
    let mut first = 0u32;
    while first < order.n {
        let hit =
            first + teams.team < order.n && c != solution && differs(c, teams.rank as usize, teams.width as usize);
        // SAFETY: every member gets here together (the caller's precondition; the loop bound is
        // the same on every member).
        if let Some(team) = unsafe { crew.first_team(hit, &teams) } {
            // One team (a lane, a block): the candidate at hand, without a division.
            return if teams.count == 1 { c } else { order.candidate(first + team) } as i32;
        }
        first += teams.count;
        c = order.advance(c, jump);
    }
    NO_DONOR
}
// ANCHOR_END: first_differing_donor

/// Forced Improvement's patience in a population of `n`: a solution not improved for more than
/// 1 + floor(log10 n) generations is forced (serial and parallel GOMEA alike). In integers:
/// floor(log10 n) is the number of decimal digits of n less one (0 for n = 0, as the float rule's
/// floor of minus infinity saturates to 0).
#[inline(always)]
pub const fn forced_improvement_patience(n: usize) -> u32 {
    1 + if n == 0 { 0 } else { n.ilog10() }
}

/// Which crew works on one (solution, linkage set) pair on the GPU, by the set's size: one lane
/// for sets of at most 8 variables with at most 32 dependent subfunctions, a whole block for
/// sets of more than 256 variables or 1024 dependent subfunctions (on a sparse graph a linkage
/// tree's top sets hold thousands), a warp for the others: lower bounds put more sets on blocks
/// and were slower (`docs/decisions/0023-crew-kinds-and-sizes.md`). This only shares out the
/// work; no result depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CrewKind {
    Lane,
    Warp,
    Block,
}

/// The most variables of a set that a lane works on alone ([`crew_kind`]).
pub const LANE_VARIABLES: usize = 8;

#[inline(always)]
pub fn crew_kind(variables: usize, dependent_subfunctions: usize) -> CrewKind {
    if variables <= LANE_VARIABLES && dependent_subfunctions <= 32 {
        CrewKind::Lane
    } else if variables > 256 || dependent_subfunctions > 1024 {
        CrewKind::Block
    } else {
        CrewKind::Warp
    }
}

// ANCHOR: accept
/// The acceptance rule of GOM: strictly better, or equally good when the solution is not the
/// elitist (equal moves let the population drift across plateaus, but the elitist must not drift).
#[inline(always)]
pub fn accept(delta: i64, has_donor: bool, is_elitist: bool) -> bool {
    has_donor && (delta > 0 || (delta == 0 && !is_elitist))
}
// ANCHOR_END: accept
