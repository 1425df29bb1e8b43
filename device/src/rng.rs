//! Random numbers that both the host and the kernels compute, bit for bit.
//!
//! Parallel GOM draws every random number from a counter-based generator: a pure function of
//! (seed, generation, group, solution, set, attempt). No state is carried between threads, so the
//! CPU backend and the CUDA backend see the same numbers whatever the thread count or launch shape.
//! Serial GOMEA uses the sequential [`SplitMix64`] stream built from the same mixing function.
//! Every named sub-stream of a seed and every counter `attempt` is in [`streams`], so that no two
//! uses of one seed draw the same numbers by accident.

/// The SplitMix64 output function (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
#[inline(always)]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The ids of the random streams of one seed, host and device: the `stream` argument of
/// [`SplitMix64::stream`] (ASCII of a short word) and the `attempt` coordinate of a [`Counter`].
/// A new use of the seed takes a new id here.
pub mod streams {
    /// Host: the order of the colour groups of GOM (xor the generation times [`GENERATION_MIX`]).
    pub const GROUP_ORDER: u64 = 0x67726f7570;
    /// Host: the order of the colour groups of Forced Improvement (as [`GROUP_ORDER`]).
    pub const FORCED_ORDER: u64 = 0x666f72636564;
    /// The multiplier that spreads the generation over a group-order stream id.
    pub const GENERATION_MIX: u64 = 0x9e37_79b9;
    /// Host: the random genotype whose single flips set the annealing temperatures.
    pub const ANNEAL_PROBE: u64 = 0x616e6e;
    /// Host: tie breaks of the linkage models.
    pub const FOS_TIES: u64 = 0x666f73;
    /// Host generators: tori, random graphs, complete graphs, sliding-window and
    /// random-neighbourhood NK landscapes, the shuffle of deceptive traps, planted 3-SAT.
    pub const TORUS: u64 = 0x7072;
    pub const RANDOM_GRAPH: u64 = 0x726e64;
    pub const COMPLETE_GRAPH: u64 = 0x636f6d;
    pub const NK_SLIDING: u64 = 0x6e6b;
    pub const NK_RANDOM: u64 = 0x6e6b72;
    pub const TRAP_SHUFFLE: u64 = 0x74726170;
    pub const PLANTED_SAT: u64 = 0x33736174;
    /// Host, self-test: random stage states, the groups it checks, its MAX-SAT instances.
    pub const SELFTEST_STATE: u64 = 0x7374617465;
    pub const SELFTEST_GROUPS: u64 = 0x6772;
    pub const SELFTEST_SAT: u64 = 0x77736174;

    /// Device: the counter attempts of a GOM step's donor order (its start and its step), and of
    /// an annealing flip (its Metropolis test).
    pub const DONOR_START: u32 = 0;
    pub const DONOR_STEP: u32 = 1;
    pub const ANNEAL_FLIP: u32 = 3;
}

/// The coordinates of one random draw in parallel GOM.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counter {
    pub seed: u64,
    pub generation: u32,
    pub group: u32,
    pub solution: u32,
    pub set: u32,
    pub attempt: u32,
}

impl Counter {
    /// The 64 random bits of this counter.
    #[inline(always)]
    pub fn bits(&self) -> u64 {
        let mut h = mix64(self.seed ^ GOLDEN);
        h = mix64(h ^ ((self.generation as u64) << 32 | self.group as u64));
        h = mix64(h.wrapping_add(GOLDEN) ^ ((self.solution as u64) << 32 | self.set as u64));
        mix64(h ^ (self.attempt as u64).wrapping_mul(GOLDEN))
    }
}

/// Maps 64 random bits to 0..n (n >= 1) by a multiply-shift on the high half; the bias is below
/// n / 2^32, far under anything an EA can notice, and it needs no rejection loop.
#[inline(always)]
pub fn below(bits: u64, n: u32) -> u32 {
    (((bits >> 32) * n as u64) >> 32) as u32
}

/// A sequential generator: SplitMix64. Fast, 64-bit state, passes BigCrush; used by serial GOMEA
/// and by host-side choices (initial populations, group order, tie breaks).
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// A generator for a named sub-stream of a seed, so that independent uses of one seed do not
    /// share numbers.
    pub const fn stream(seed: u64, stream: u64) -> Self {
        SplitMix64 { state: mix64(seed ^ mix64(stream.wrapping_add(GOLDEN))) }
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix64(self.state)
    }

    /// Uniform in 0..n, n >= 1.
    #[inline(always)]
    pub fn below(&mut self, n: u32) -> u32 {
        below(self.next_u64(), n)
    }

    /// Uniform in 0..n for usize n (< 2^32).
    #[inline(always)]
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u32) as usize
    }

    #[inline(always)]
    pub fn coin(&mut self) -> bool {
        self.next_u64() >> 63 == 1
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}
