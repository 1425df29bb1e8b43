//! Colour-grouped local search, written once for both targets: the variables are coloured so
//! that two of one colour share no subfunction, so every flip of one colour can be tried at once.
//! [`anneal_flip`] (a Metropolis flip of an annealing sweep) and [`try_flip`] (a flip taken when
//! it improves) are the per-variable steps, both on [`flip_gain`]. The host runs a whole search of
//! one genotype ([`search_genotype`]: serial GOMEA; [`search_solution`]: the CPU backend, one
//! solution per task); the GPU runs each colour for every solution at once
//! ([`parallel_anneal_flip`], [`parallel_try_flip`], [`search_round_end`]), which reaches the same
//! genotypes, since within a colour the flips (and their random numbers) are independent.

use super::args::{GomArgs, row};
use super::buffers::Buffers;
use crate::atomic;
use crate::mem::Ptr;
use crate::problem::Kind;
use crate::rng::{Counter, streams};

/// The variables in colour groups, and the subfunctions of each variable in the colours' order,
/// sliced for reads side by side: what local search reads besides the problem (read only), and
/// the annealing of the current call.
///
/// A variable's *position* is its place in `color_vars`. The entries of position p (one per
/// subfunction of its variable, `degrees[p]` of them) lie in slices of `2^shift` positions:
/// entry j at `slices[p >> shift] + (j << shift) + p % 2^shift`, each slice as wide as its
/// largest degree. With a shift of [`WARP_SHIFT`] (the GPU's) the 32 lanes of a warp flipping
/// positions side by side read their j-th entries from consecutive addresses; with 0 (the
/// host's) a position's entries are consecutive. An entry is its subfunction, or for a kind with
/// [`Kind::PARTNERS`] the subfunction's other variable, with its weight in `weights` at the same
/// index.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchArgs {
    /// Number of colours; colour c holds `color_vars[color_offsets[c]..color_offsets[c+1]]`.
    pub colors: u32,
    /// log2 of the positions per slice.
    pub shift: u32,
    pub color_offsets: Ptr<u32>,
    pub color_vars: Ptr<u32>,
    /// Per position, its variable's number of subfunctions.
    pub degrees: Ptr<u32>,
    /// Per slice, where its entries begin.
    pub slices: Ptr<u64>,
    pub entries: Ptr<u32>,
    /// For a kind with partners, each entry's weight (else not read).
    pub weights: Ptr<i64>,
    /// Annealing sweeps before the greedy descent (none: `anneal.sweeps == 0`).
    pub anneal: Anneal,
}

/// The GPU's slices: a warp's 32 positions.
pub const WARP_SHIFT: u32 = 5;

/// Where entry j of position p lies in slices of `2^shift` positions, from where p's slice
/// begins (`slices[p >> shift]`; 0 for the index within the slice).
#[inline(always)]
pub const fn entry_index(slice_start: usize, shift: u32, p: usize, j: usize) -> usize {
    slice_start + (j << shift) + (p & ((1 << shift) - 1))
}

impl SearchArgs {
    /// The position of the `k`-th variable of colour `c`.
    ///
    /// # Safety
    ///
    /// `c < colors`, the colour arrays live.
    #[inline(always)]
    unsafe fn position(&self, c: usize, k: usize) -> usize {
        // SAFETY: the function's precondition.
        unsafe { self.color_offsets.read(c) as usize + k }
    }

    /// Calls `f` with every position and its variable, colour after colour, asking `go_on`
    /// every [`ASK_EVERY`] variables; returns false (at once) when it says no.
    ///
    /// # Safety
    ///
    /// The colour arrays are live and hold `colors + 1` offsets.
    #[inline(always)]
    unsafe fn each_variable(&self, go_on: &impl Fn() -> bool, mut f: impl FnMut(usize, u32)) -> bool {
        let mut since = 0;
        // SAFETY: the function's precondition.
        unsafe {
            for c in 0..self.colors as usize {
                for p in self.color_offsets.read(c) as usize..self.color_offsets.read(c + 1) as usize {
                    f(p, self.color_vars.read(p));
                    since += 1;
                    if since == ASK_EVERY {
                        since = 0;
                        if !go_on() {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
}

/// How many flips a host's search of one genotype tries between two questions whether to go on
/// (a sweep of 10^7 variables takes seconds on a CPU core; a question reads the clock).
pub const ASK_EVERY: u32 = 4096;

/// The temperature levels of an annealing schedule, hottest first: a search of any number of
/// sweeps walks through them (sweep k of `sweeps` is at level `k * LEVELS / sweeps`).
pub const ANNEAL_LEVELS: usize = 256;

/// An annealed local search: `sweeps` Metropolis sweeps over the colours, then the greedy
/// descent. This call runs sweeps `from..to` and then at most `descent_rounds` rounds of the
/// descent (the host splits a long search into short calls, watching its clock between them; a
/// solution's descent goes on over calls while it is marked active). In sweep k a flip that
/// changes the fitness by `gain` is taken when `gain >= 0`, and when `gain < 0` with probability
/// 2^(-(|gain| >> gain_shift) * scale / 2^32), i.e. exp(gain / T), for the level's `scale` =
/// 2^(32 + gain_shift) log2(e) / T (the shift keeps the scales' precision where fitness values
/// are large, as on a fine grid of real values).
/// The power of two is computed in integers (`table[f]` = 2^32 * 2^(-f/256) for the fraction's
/// top 8 bits), so that every target takes the same decisions; the random numbers are counters
/// of (seed, stream, sweep, solution, variable).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Anneal {
    pub sweeps: u32,
    pub from: u32,
    pub to: u32,
    /// The rounds of the greedy descent after the sweeps, at most (0: none).
    pub descent_rounds: u32,
    /// Which search this is (the host numbers them), so that every search draws its own numbers.
    pub stream: u32,
    /// The low bits of a gain that the scales leave out (see above).
    pub gain_shift: u32,
    pub seed: u64,
    /// The [`ANNEAL_LEVELS`] scales, and the 256 entries of the table.
    pub scales: Ptr<u64>,
    pub table: Ptr<u64>,
}

impl Anneal {
    /// Whether a flip of `gain` is taken in sweep `k` by solution `i` at variable `v`.
    ///
    /// # Safety
    ///
    /// `k < sweeps`, and `scales` and `table` hold their entries.
    #[inline(always)]
    pub unsafe fn accepts(&self, gain: i64, k: u32, i: u32, v: u32) -> bool {
        if gain >= 0 {
            return true;
        }
        let level = (k as u64 * ANNEAL_LEVELS as u64 / self.sweeps as u64) as usize;
        // SAFETY: k < sweeps, so the level is below ANNEAL_LEVELS (the function's precondition).
        let scale = unsafe { self.scales.read(level) };
        let Some(y) = (gain.unsigned_abs() >> self.gain_shift).checked_mul(scale) else { return false };
        let whole = y >> 32;
        if whole >= 32 {
            return false;
        }
        // SAFETY: the index is 8 bits, below the table's 256 entries.
        let threshold = unsafe { self.table.read(((y >> 24) & 0xff) as usize) } >> whole;
        let attempt = streams::ANNEAL_FLIP;
        let c = Counter { seed: self.seed, generation: self.stream, group: k, solution: i, set: v, attempt };
        (c.bits() >> 32) < threshold
    }
}

/// The change of fitness if variable `v`, at position `p`, of genotype `x` flips: the sum of the
/// changes of v's subfunctions, each the kind's [`Kind::flip_change`] of one of the position's
/// entries.
///
/// # Safety
///
/// `kind` and `s` describe the same problem (checked arrays), `p` is a position and `v` its
/// variable, `x` holds its l genes, and no other thread writes `x` at v or at any variable that
/// shares a subfunction with v meanwhile.
#[inline(always)]
pub unsafe fn flip_gain<K: Kind>(kind: &K, s: &SearchArgs, x: Ptr<u8>, p: usize, v: u32) -> i64 {
    // SAFETY: the function's precondition.
    unsafe {
        let degree = s.degrees.read(p) as usize;
        let start = s.slices.read(p >> s.shift) as usize;
        let mut gain = 0;
        for j in 0..degree {
            let e = entry_index(start, s.shift, p, j);
            let weight = if K::PARTNERS { s.weights.read(e) } else { 0 };
            gain += kind.flip_change(s.entries.read(e), weight, x, v);
        }
        gain
    }
}

/// Flips variable `v` of `x` when `take`; returns the flip's gain, or 0 when it does not flip.
///
/// # Safety
///
/// As [`flip_gain`], and no other thread reads `x` at v meanwhile.
#[inline(always)]
unsafe fn flip_if(x: Ptr<u8>, v: u32, gain: i64, take: bool) -> i64 {
    if take {
        // SAFETY: the function's precondition.
        unsafe { x.write(v as usize, x.read(v as usize) ^ 1) };
        gain
    } else {
        0
    }
}

/// Flips variable `v` of genotype `x` if that improves the fitness strictly; returns the gain (0
/// when it does not flip).
///
/// # Safety
///
/// As [`flip_gain`], and no other thread reads `x` at v or at any variable that shares a
/// subfunction with v meanwhile (two variables of one colour share none).
#[inline(always)]
pub unsafe fn try_flip<K: Kind>(kind: &K, s: &SearchArgs, x: Ptr<u8>, p: usize, v: u32) -> i64 {
    // SAFETY: the function's precondition.
    unsafe {
        let gain = flip_gain(kind, s, x, p, v);
        flip_if(x, v, gain, gain > 0)
    }
}

/// One Metropolis flip of annealing sweep `k` (see [`Anneal`]) of variable `v` of solution
/// `solution`'s genotype `x`; returns the change of fitness (0 when it does not flip, or flips a
/// plateau).
///
/// # Safety
///
/// As [`try_flip`], and `k < s.anneal.sweeps`.
#[inline(always)]
pub unsafe fn anneal_flip<K: Kind>(
    kind: &K,
    s: &SearchArgs,
    x: Ptr<u8>,
    p: usize,
    v: u32,
    k: u32,
    solution: u32,
) -> i64 {
    // SAFETY: the function's precondition.
    unsafe {
        let gain = flip_gain(kind, s, x, p, v);
        flip_if(x, v, gain, s.anneal.accepts(gain, k, solution, v))
    }
}

/// Local search of genotype `x` (of solution `solution`): the annealing sweeps `from..to` of
/// `s.anneal`, then at most `descent_rounds` rounds of [`try_flip`] over the colours in order,
/// until a round flips nothing (a local optimum: no single flip improves it). Returns the gain,
/// the number of rounds and sweeps (each evaluates every variable's subfunctions once), and
/// whether the descent goes on (its last round flipped a variable: a later call continues it).
/// `go_on` is asked every [`ASK_EVERY`] flips: when it says no, the search ends there (the gain
/// stays exact; the descent counts as going on).
/// The descent's rounds and the sweeps' random numbers do not depend on how the host splits a
/// search into calls. The GPU's parallel version reaches the same genotype, since within a
/// colour the flips (and their random numbers) are independent.
///
/// # Safety
///
/// As [`try_flip`], for every variable of every colour.
#[inline(always)]
pub unsafe fn search_genotype<K: Kind>(
    kind: &K,
    s: &SearchArgs,
    x: Ptr<u8>,
    solution: u32,
    go_on: &impl Fn() -> bool,
) -> (i64, u64, bool) {
    let (mut gain, mut rounds) = (0, 0);
    let mut descending = false;
    // SAFETY: the function's precondition; the colour arrays hold `colors + 1` offsets.
    unsafe {
        for k in s.anneal.from..s.anneal.to {
            rounds += 1;
            if !s.each_variable(go_on, |p, v| gain += anneal_flip(kind, s, x, p, v, k, solution)) {
                return (gain, rounds, true);
            }
        }
        // The greedy descent: rounds of improving flips until one improves nothing.
        for _ in 0..s.anneal.descent_rounds {
            rounds += 1;
            descending = false;
            let whole = s.each_variable(go_on, |p, v| {
                let g = try_flip(kind, s, x, p, v);
                gain += g;
                descending |= g > 0;
            });
            if !whole {
                return (gain, rounds, true);
            }
            if !descending {
                break;
            }
        }
    }
    (gain, rounds, descending)
}

/// Local search of O[i] (its fitness updated): what one rayon task of the CPU backend does. A
/// call of the descent searches only the solutions marked active (`search_active`, set by the
/// host at the descent's start) and marks those whose descent has ended; `go_on` as in
/// [`search_genotype`]. Returns the number of rounds.
///
/// # Safety
///
/// The precondition of the stage steps ([`super::pair_step`]), and `a.search` describes
/// `a.problem`.
#[inline(always)]
pub unsafe fn search_solution<K: Kind>(a: &GomArgs<K>, i: usize, go_on: &impl Fn() -> bool) -> u64 {
    let descent = a.search.anneal.descent_rounds != 0;
    // SAFETY: the function's precondition; only solution i's row, fitness and mark are written.
    unsafe {
        if descent && a.buffers.search_active.read(i) == 0 {
            return 0;
        }
        let (gain, rounds, descending) =
            search_genotype(&a.problem, &a.search, row(a.buffers.offspring, i, a.l as usize), i as u32, go_on);
        if gain != 0 {
            a.buffers.fitness.write(i, a.buffers.fitness.read(i) + gain);
        }
        if descent {
            a.buffers.search_active.write(i, descending as u8);
        }
        rounds
    }
}

/// One flip of the GPU's greedy descent: the `k`-th variable of colour `c` in O[i], if solution
/// i is still searched; an improving flip adds its gain to the fitness and marks the solution as
/// having flipped this round.
///
/// # Safety
///
/// The precondition of the stage steps, `a.search` describes `a.problem`, `c < colors` and `k`
/// below the colour's size; the calls running at once are of one colour.
#[inline(always)]
pub unsafe fn parallel_try_flip<K: Kind>(a: &GomArgs<K>, i: usize, c: usize, k: usize) {
    // SAFETY: the function's precondition; variables of one colour share no subfunction, so the
    // flips of one solution running at once read and write disjoint genes; fitness and marks are
    // written atomically.
    unsafe {
        let b = &a.buffers;
        if b.search_active.read(i) == 0 {
            return;
        }
        let p = a.search.position(c, k);
        let v = a.search.color_vars.read(p);
        let gain = try_flip(&a.problem, &a.search, row(b.offspring, i, a.l as usize), p, v);
        if gain > 0 {
            atomic::atomic_add_i64(b.fitness.at(i), gain);
            atomic::atomic_store_u8(b.search_flipped.at(i), 1);
        }
    }
}

/// One Metropolis flip of annealing sweep `sweep` of the GPU's local search: the `k`-th variable
/// of colour `c` in O[i]; its change of fitness goes into the fitness.
///
/// # Safety
///
/// As [`parallel_try_flip`], and `sweep < a.search.anneal.sweeps`.
#[inline(always)]
pub unsafe fn parallel_anneal_flip<K: Kind>(a: &GomArgs<K>, i: usize, c: usize, k: usize, sweep: u32) {
    // SAFETY: as in `parallel_try_flip`.
    unsafe {
        let p = a.search.position(c, k);
        let v = a.search.color_vars.read(p);
        let gain = anneal_flip(&a.problem, &a.search, row(a.buffers.offspring, i, a.l as usize), p, v, sweep, i as u32);
        if gain != 0 {
            atomic::atomic_add_i64(a.buffers.fitness.at(i), gain);
        }
    }
}

/// The end of a round of the GPU's greedy descent for solution i: an active solution counts one
/// round; it stays active if it flipped a variable (then it also counts in the second counter,
/// which tells every thread whether any solution goes on).
///
/// # Safety
///
/// The precondition of the stage steps; no flip of solution i runs at the same time.
#[inline(always)]
pub unsafe fn search_round_end(b: &Buffers, i: usize) {
    // SAFETY: the function's precondition; the counters are only updated atomically.
    unsafe {
        if b.search_active.read(i) != 0 {
            atomic::atomic_add_u64(b.search_counters.at(0), 1);
            let flipped = b.search_flipped.read(i);
            b.search_active.write(i, flipped);
            b.search_flipped.write(i, 0);
            if flipped != 0 {
                atomic::atomic_add_u64(b.search_counters.at(1), 1);
            }
        }
    }
}
