//! Colour-grouped local search, written once for both targets: the variables are coloured so
//! that two of one colour share no subfunction, so every flip of one colour can be tried at once.
//! [`anneal_flip`] (a Metropolis flip of an annealing sweep) and [`try_flip`] (a flip taken when
//! it improves) are the per-variable steps, both on [`flip_gain`]. The host runs a whole search of
//! one genotype ([`search_genotype`]: serial GOMEA; [`search_solution`]: the CPU backend, one
//! solution per task); the GPU runs each colour for every solution at once
//! ([`parallel_anneal_flip`], [`parallel_try_flip`], [`search_round_end`]), which reaches the same
//! genotypes, since within a colour the flips (and their random numbers) are independent.

use super::args::{GomArgs, SearchArgs, entry_index, row};
use super::buffers::Buffers;
use crate::atomic;
use crate::mem::Ptr;
use crate::problem::Kind;

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

/// One Metropolis flip of annealing sweep `k` (see [`Anneal`](super::Anneal)) of variable `v` of solution
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
/// `go_on` is asked every [`ASK_EVERY`](super::ASK_EVERY) flips: when it says no, the search ends there (the gain
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
