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

/// Kept gains: `gains[v]`, for every variable v, is the change of fitness if v flips in `x`, kept
/// up to date as flips are taken, so that a flip is decided from one read instead of its
/// subfunctions (the local fields of simulated annealing). Only for a kind with
/// [`Kind::PARTNERS`]: when v flips, each partner's gain changes by twice the negated change of
/// their shared subfunction. The gains are exact integers, so every decision is the one the
/// recomputed gain gives (docs/decisions/0029-kept-gains.md).
///
/// Sets `gains[v]` to v's gain in `x`.
///
/// # Safety
///
/// As [`flip_gain`], and `gains` holds l values that no other thread touches at v meanwhile.
#[inline(always)]
pub unsafe fn keep_gain<K: Kind>(kind: &K, s: &SearchArgs, x: Ptr<u8>, gains: Ptr<i64>, p: usize, v: u32) {
    // SAFETY: the function's precondition.
    unsafe { gains.write(v as usize, flip_gain(kind, s, x, p, v)) }
}

/// The partners' part of a kept flip of variable `v` (position `p`) of `x`, before `x` changes:
/// entries `first, first + stride, ...` of p each add twice the negated change of their
/// subfunction to the partner's gain (atomically where `ATOMIC`: flips running at once may share
/// a partner).
///
/// # Safety
///
/// As [`keep_gain`] for a kind with [`Kind::PARTNERS`], `stride > 0`; without `ATOMIC` no other
/// thread touches the partners' gains meanwhile.
#[inline(always)]
pub unsafe fn update_partners<K: Kind, const ATOMIC: bool>(
    kind: &K,
    s: &SearchArgs,
    x: Ptr<u8>,
    gains: Ptr<i64>,
    p: usize,
    v: u32,
    (first, stride): (usize, usize),
) {
    // SAFETY: the function's precondition; every partner is a variable, below l.
    unsafe {
        let degree = s.degrees.read(p) as usize;
        let start = s.slices.read(p >> s.shift) as usize;
        let mut j = first;
        while j < degree {
            let e = entry_index(start, s.shift, p, j);
            let partner = s.entries.read(e);
            let change = -2 * kind.flip_change(partner, s.weights.read(e), x, v);
            if ATOMIC {
                atomic::atomic_add_i64(gains.at(partner as usize), change);
            } else {
                gains.write(partner as usize, gains.read(partner as usize) + change);
            }
            j += stride;
        }
    }
}

/// Flips variable `v` (position `p`, gain `gain`) of `x` and keeps the gains: the partners' and
/// v's own, which negates.
///
/// # Safety
///
/// As [`update_partners`] without `ATOMIC`, and no other thread reads `x` at v meanwhile.
#[inline(always)]
unsafe fn take_kept<K: Kind>(kind: &K, s: &SearchArgs, x: Ptr<u8>, gains: Ptr<i64>, p: usize, v: u32, gain: i64) {
    // SAFETY: the function's precondition.
    unsafe {
        update_partners::<K, false>(kind, s, x, gains, p, v, (0, 1));
        gains.write(v as usize, -gain);
        x.write(v as usize, x.read(v as usize) ^ 1);
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
/// the number of rounds and sweeps (each counts as evaluating every variable's subfunctions
/// once), and whether the descent goes on (its last round flipped a variable: a later call
/// continues it).
/// `go_on` is asked every [`ASK_EVERY`](super::ASK_EVERY) flips: when it says no, the search ends there (the gain
/// stays exact; the descent counts as going on).
/// With `gains` (l values of scratch; null: none) and a kind with [`Kind::PARTNERS`], a call of
/// at least [`KEEP_GAINS_FROM`] sweeps and rounds keeps the gains ([`keep_gain`]) instead of
/// recomputing each flip's: the same flips, faster.
/// The descent's rounds and the sweeps' random numbers do not depend on how the host splits a
/// search into calls. The GPU's parallel version reaches the same genotype, since within a
/// colour the flips (and their random numbers) are independent.
///
/// # Safety
///
/// As [`try_flip`], for every variable of every colour; `gains`, unless null, holds l values
/// that nothing else touches meanwhile.
#[inline(always)]
pub unsafe fn search_genotype<K: Kind>(
    kind: &K,
    s: &SearchArgs,
    x: Ptr<u8>,
    gains: Ptr<i64>,
    solution: u32,
    go_on: &impl Fn() -> bool,
) -> (i64, u64, bool) {
    let anneal = &s.anneal;
    let keep = gains.addr() != 0 && keeps_gains::<K>(anneal.to - anneal.from, anneal.descent_rounds);
    // SAFETY: the function's precondition; with `keep`, the gains are filled before any flip
    // reads them and kept by every flip taken.
    unsafe {
        // A stop during the filling leaves the gains unkept: the search then stops as one that
        // recomputes them does (within its next question).
        let keep = keep && s.each_variable(go_on, |p, v| keep_gain(kind, s, x, gains, p, v));
        // A kept flip: decided from v's kept gain, which the flip keeps with its partners'.
        let kept = |p, v, sweep| {
            let gain = gains.read(v as usize);
            let take = kept_takes(s, gain, sweep, solution, v);
            if take {
                take_kept(kind, s, x, gains, p, v, gain);
            }
            if take { gain } else { 0 }
        };
        let anneal_flip = |p, v, k| if keep { kept(p, v, Some(k)) } else { anneal_flip(kind, s, x, p, v, k, solution) };
        let try_flip = |p, v| if keep { kept(p, v, None) } else { try_flip(kind, s, x, p, v) };
        let (mut gain, mut rounds) = (0, 0);
        let mut descending = false;
        for k in anneal.from..anneal.to {
            rounds += 1;
            if !s.each_variable(go_on, |p, v| gain += anneal_flip(p, v, k)) {
                return (gain, rounds, true);
            }
        }
        // The greedy descent: rounds of improving flips until one improves nothing.
        for _ in 0..anneal.descent_rounds {
            rounds += 1;
            descending = false;
            let whole = s.each_variable(go_on, |p, v| {
                let g = try_flip(p, v);
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
        (gain, rounds, descending)
    }
}

/// The sweeps and rounds a host's call of local search needs at least to keep the gains: filling
/// them costs about one sweep of recomputed gains (docs/decisions/0029-kept-gains.md).
pub const KEEP_GAINS_FROM: u32 = 4;

/// Whether a call of local search of `sweeps` annealing sweeps and at most `rounds` descent
/// rounds keeps the gains: on a kind with [`Kind::PARTNERS`], from [`KEEP_GAINS_FROM`] of them.
pub const fn keeps_gains<K: Kind>(sweeps: u32, rounds: u32) -> bool {
    K::PARTNERS && sweeps.saturating_add(rounds) >= KEEP_GAINS_FROM
}

/// The flips a colour may have per thread of the block for its partners' gains to be updated by
/// the whole block, flip after flip (a flip of a dense model's variable updates hundreds of
/// gains); above it each flip's thread updates its own partners.
pub const KEPT_THREADS_PER_FLIP: usize = 8;

/// Whether the GPU's kept search updates the partners of a colour of `flips` variables with the
/// whole block of `threads` (else each flip's thread updates its own, atomically).
#[inline(always)]
pub const fn kept_together(flips: usize, threads: usize) -> bool {
    flips * KEPT_THREADS_PER_FLIP <= threads
}

/// Local search of O[i] (its fitness updated): what one rayon task of the CPU backend does. A
/// call of the descent searches only the solutions marked active (`search_active`, set by the
/// host at the descent's start) and marks those whose descent has ended; `go_on` as in
/// [`search_genotype`], `gains` its scratch. Returns the number of rounds.
///
/// # Safety
///
/// The precondition of the stage steps ([`super::pair_step`]), and `a.search` describes
/// `a.problem`; `gains` as in [`search_genotype`].
#[inline(always)]
pub unsafe fn search_solution<K: Kind>(a: &GomArgs<K>, i: usize, gains: Ptr<i64>, go_on: &impl Fn() -> bool) -> u64 {
    let descent = a.search.anneal.descent_rounds != 0;
    // SAFETY: the function's precondition; only solution i's row, fitness and mark are written.
    unsafe {
        if descent && a.buffers.search_active.read(i) == 0 {
            return 0;
        }
        let (gain, rounds, descending) =
            search_genotype(&a.problem, &a.search, row(a.buffers.offspring, i, a.l as usize), gains, i as u32, go_on);
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

/// Whether a flip of kept gain `gain` is taken: in annealing sweep `Some(k)` by the Metropolis
/// rule, in a round of the descent (`None`) when it improves.
///
/// # Safety
///
/// As [`Anneal::accepts`](super::Anneal::accepts) for a sweep.
#[inline(always)]
pub unsafe fn kept_takes(s: &SearchArgs, gain: i64, sweep: Option<u32>, solution: u32, v: u32) -> bool {
    match sweep {
        // SAFETY: the function's precondition.
        Some(k) => unsafe { s.anneal.accepts(gain, k, solution, v) },
        None => gain > 0,
    }
}

/// The GPU's kept flip of position `p` of solution i (block by solution, the gains at `gains`):
/// where it is taken, v's gain negates, the gene flips and the gain goes into the fitness (and
/// in the descent, the solution is marked as having flipped); with `partners`, this thread also
/// updates the partners' gains first ([`update_partners`], atomically), else a pass before did.
///
/// # Safety
///
/// The precondition of the stage steps, `a.search` describes a kind with [`Kind::PARTNERS`],
/// `gains` holds solution i's l kept gains; the flips running at once are of one colour, and
/// their partners' gains are updated only atomically meanwhile.
#[inline(always)]
pub unsafe fn parallel_kept_flip<K: Kind>(
    a: &GomArgs<K>,
    i: usize,
    gains: Ptr<i64>,
    p: usize,
    sweep: Option<u32>,
    partners: bool,
) {
    // SAFETY: the function's precondition; v's gain and gene are this thread's alone (no other
    // flip of the colour shares a subfunction with v).
    unsafe {
        let (s, b) = (&a.search, &a.buffers);
        let v = s.color_vars.read(p);
        let gain = gains.read(v as usize);
        if !kept_takes(s, gain, sweep, i as u32, v) {
            return;
        }
        let x = row(b.offspring, i, a.l as usize);
        if partners {
            update_partners::<K, true>(&a.problem, s, x, gains, p, v, (0, 1));
        }
        gains.write(v as usize, -gain);
        x.write(v as usize, x.read(v as usize) ^ 1);
        if gain != 0 {
            atomic::atomic_add_i64(b.fitness.at(i), gain);
        }
        if sweep.is_none() {
            atomic::atomic_store_u8(b.search_flipped.at(i), 1);
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
