//! Welsh-Powell's rule without the LMIG: each set, in a given order, takes the smallest colour
//! that no coloured set it conflicts with has, read from the colours its variables' subfunctions
//! remember (its *slots*), block of colours after block, in order or in parallel batches.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::groups::{Coloring, UNCOLORED};
use crate::error::Error;
use crate::linkage::conflicts::Members;
use crate::stop::StopCheck;

/// Greedy colouring of the sets in `order`, each with the smallest colour that no coloured set
/// conflicting with it has: Welsh-Powell's rule. Conflicts are never enumerated: every
/// subfunction, and every variable that no subfunction reads, keeps a bitset of the colours of
/// the coloured sets touching it (its *slot*), and a set must avoid the union of its slots'
/// bitsets, which is exactly the colours of its coloured conflicts. The colours are taken in
/// blocks (64, then 128, 256, 512, then 1024 at a time): the sets that find no free colour in a
/// block go on, in order, to the next, which gives each set the colour the one-pass greedy would
/// (within a block, exactly the sets coloured before it in the block's colours are seen). Time
/// per block: the blocks' words times the sum over the sets still uncoloured of their variables'
/// subfunctions. With [`Pace::PARALLEL_THREADS`] threads or more a block is coloured in parallel
/// ([`Block::color_in_batches`]), to the same colours.
pub(super) fn greedy_by_incidence(c: &Members, order: &[u32], stop: &StopCheck) -> Result<Coloring, Error> {
    greedy_by_incidence_paced(c, order, Pace::for_threads(rayon::current_num_threads()), stop)
}

fn greedy_by_incidence_paced(c: &Members, order: &[u32], pace: Pace, stop: &StopCheck) -> Result<Coloring, Error> {
    let (l, m) = (c.problem().variables(), c.problem().subfunctions());
    let mut colors = stop.filled(c.len(), |_| UNCOLORED)?;
    let mut pending: Vec<u32> = match stop.filled(order.len(), |k| order[k]) {
        Ok(pending) => pending,
        Err(reason) => {
            // Stopped: the colours of 10^8 sets are freed aside, not before the answer.
            crate::stop::drop_aside(colors);
            return Err(reason.into());
        }
    };
    let mut base = 0usize;
    let mut words = 1usize;
    while !pending.is_empty() {
        // The bitsets, and with batches each slot's earliest toucher.
        let ranks = if pace.batched() { 8 } else { 0 };
        crate::problem::memory::ensure(
            (8 * words as u128 + ranks) * (l + m) as u128,
            &format!("the colour marks of {l} variables and {m} subfunctions"),
        )?;
        let block = Block { sets: c, base, stop };
        let colored = match words {
            1 => block.color::<1>(&pending, &mut colors, pace),
            2 => block.color::<2>(&pending, &mut colors, pace),
            4 => block.color::<4>(&pending, &mut colors, pace),
            8 => block.color::<8>(&pending, &mut colors, pace),
            _ => block.color::<16>(&pending, &mut colors, pace),
        };
        pending = match colored {
            Ok(later) => later,
            Err(e) => {
                // Stopped: the arrays of 10^8 sets are freed aside, not before the answer.
                crate::stop::drop_aside((colors, pending));
                return Err(e);
            }
        };
        base += 64 * words;
        words = (2 * words).min(16);
    }
    Ok(Coloring::from_colors(colors))
}

/// How a block is coloured: in order, one set after another, or in parallel, where sets of at
/// least `large` variables are each coloured by all threads (their slots read and marked in
/// chunks) and runs of smaller sets, each run touching up to `batch` slots, are coloured in
/// batches ([`Block::color_in_batches`]).
#[derive(Clone, Copy, Debug)]
struct Pace {
    large: usize,
    batch: usize,
}

impl Pace {
    /// Below this many threads the batches' extra passes cost more than they share out.
    const PARALLEL_THREADS: usize = 4;
    const IN_ORDER: Pace = Pace { large: usize::MAX, batch: 0 };
    /// A set of 4096 variables or more splits into chunks worth a task each; a batch of 2^16
    /// slots or more is worth its three parallel passes, and few of its sets meet.
    const PARALLEL: Pace = Pace { large: 4096, batch: 1 << 16 };

    fn for_threads(threads: usize) -> Pace {
        if threads >= Pace::PARALLEL_THREADS { Pace::PARALLEL } else { Pace::IN_ORDER }
    }

    fn batched(&self) -> bool {
        self.batch > 0
    }
}

/// One block of colours of [`greedy_by_incidence`]: colours `base..base + 64 W`.
struct Block<'c> {
    sets: &'c Members<'c>,
    base: usize,
    stop: &'c StopCheck,
}

/// A slot's colours taken in the block: bit b of word w is colour base + 64 w + b. Atomic so that
/// sets touching other slots mark theirs at the same time; a slot is marked by one set at a time.
type Taken<const W: usize> = [AtomicU64; W];

/// What a set of a batch came to in the parallel passes.
#[derive(Clone, Copy)]
enum Outcome {
    Colored(u32),
    /// No colour of the block is free: on to the next block.
    Deferred,
    /// An earlier set of the batch touches one of its slots: coloured afterwards, in order.
    Met,
}

impl Block<'_> {
    /// Calls `f` on each slot set i touches: the subfunctions reading its variables (index s), and
    /// its variables that no subfunction reads (index m + v). A variable read by a subfunction
    /// needs no slot of its own: every set holding it touches its subfunctions too.
    fn slots(&self, members: &[u32], mut f: impl FnMut(usize)) {
        let p = self.sets.problem().functions();
        let m = p.len();
        for &v in members {
            let subs = p.dependent(v as usize);
            if subs.is_empty() {
                f(m + v as usize);
            }
            for &s in subs {
                f(s as usize);
            }
        }
    }

    /// The number of slots the variables touch: the work of reading or marking them.
    fn work(&self, members: &[u32]) -> usize {
        let p = self.sets.problem().functions();
        members.iter().map(|&v| p.dependent(v as usize).len().max(1)).sum()
    }

    /// The colours the slots of `members` have taken, checking `stop` on the way.
    fn forbidden<const W: usize>(
        &self,
        taken: &[Taken<W>],
        members: &[u32],
        done: &mut usize,
    ) -> Result<[u64; W], Error> {
        let mut forbidden = [0u64; W];
        // Sets of an FLT hold from one variable to all of them: the work is counted per chunk of
        // variables, as the slots are read.
        for chunk in members.chunks(256) {
            let mut read = 0;
            self.slots(chunk, |x| {
                read += 1;
                for (f, t) in forbidden.iter_mut().zip(&taken[x]) {
                    *f |= t.load(Relaxed);
                }
            });
            self.stop.after(done, W * read)?;
        }
        Ok(forbidden)
    }

    /// The smallest colour of the block that `forbidden` leaves free, as (word, bit).
    fn free<const W: usize>(forbidden: &[u64; W]) -> Option<(usize, u64)> {
        let w = forbidden.iter().position(|&f| f != u64::MAX)?;
        Some((w, 1u64 << (!forbidden[w]).trailing_zeros()))
    }

    fn color_of(&self, (w, bit): (usize, u64)) -> u32 {
        (self.base + 64 * w + bit.trailing_zeros() as usize) as u32
    }

    /// Adds colour (w, bit) to the slots of `members`. A plain load and store, not a locked
    /// `fetch_or`: while a set marks, no other set writes its slots (one set at a time in order;
    /// a large set's chunks all write the same bit; in a batch's second pass each slot belongs to
    /// at most the one set that met no other), and a locked instruction on x86 waits for its
    /// cache line, so the marks of a set could not overlap their misses
    /// (`docs/decisions/0012-default-colouring.md`).
    fn mark<const W: usize>(&self, taken: &[Taken<W>], members: &[u32], (w, bit): (usize, u64)) {
        self.slots(members, |x| {
            let t = &taken[x][w];
            let v = t.load(Relaxed);
            if v & bit == 0 {
                t.store(v | bit, Relaxed);
            }
        });
    }

    /// Colours the sets of `pending`, in order, that find a free colour in the block; returns the
    /// others, in order.
    fn color<const W: usize>(&self, pending: &[u32], colors: &mut [u32], pace: Pace) -> Result<Vec<u32>, Error> {
        let p = self.sets.problem().functions();
        let slots = p.len() + p.variables();
        let taken: Vec<Taken<W>> = self.stop.filled(slots, |_| std::array::from_fn(|_| AtomicU64::new(0)))?;
        let colored = if pace.batched() {
            self.color_in_batches(pending, colors, &taken, pace)
        } else {
            let mut later = Vec::new();
            let mut done = 0;
            pending.iter().try_for_each(|&i| self.color_one(&taken, i, colors, &mut later, &mut done)).map(|()| later)
        };
        if colored.is_err() {
            crate::stop::drop_aside(taken);
        }
        colored
    }

    /// Gives set i the smallest colour of the block its slots leave free and marks them, or puts
    /// it on `later`: one step of the one-pass greedy.
    fn color_one<const W: usize>(
        &self,
        taken: &[Taken<W>],
        i: u32,
        colors: &mut [u32],
        later: &mut Vec<u32>,
        done: &mut usize,
    ) -> Result<(), Error> {
        let members = self.sets.of(i as usize);
        match Self::free(&self.forbidden(taken, members, done)?) {
            Some(free) => {
                colors[i as usize] = self.color_of(free);
                self.mark(taken, members, free);
            }
            None => later.push(i),
        }
        Ok(())
    }

    /// [`Block::color`] in parallel, to the same colours. A large set reads and marks its slots in
    /// parallel chunks. Smaller sets go in batches, runs of `pending`: (1) each set of the batch
    /// reads the colours its slots have taken before the batch and leaves its rank in the batch on
    /// them (the smallest rank stays); (2) a set that finds only its own rank on its slots meets
    /// no earlier set of the batch, so what it read is all greedy would see: it takes its colour
    /// and marks its slots, alongside the others like it (which touch other slots); (3) the sets
    /// that meet an earlier one are coloured in order, as one pass would: they see every colour
    /// of (2), and none of a later set's, as every set meeting them later is among them.
    fn color_in_batches<const W: usize>(
        &self,
        pending: &[u32],
        colors: &mut [u32],
        taken: &[Taken<W>],
        pace: Pace,
    ) -> Result<Vec<u32>, Error> {
        let c = self.sets;
        // A slot's earliest toucher in the latest batch that touched it: (u32::MAX - batch) << 32
        // | rank, so the current batch's keys are below every earlier batch's and need no reset.
        let rank: Vec<AtomicU64> = self.stop.filled(taken.len(), |_| AtomicU64::new(u64::MAX))?;
        let mut later = Vec::new();
        let mut batch = 0u64;
        let mut k = 0;
        while k < pending.len() {
            self.stop.check()?;
            let members = c.of(pending[k] as usize);
            if members.len() >= pace.large {
                let forbidden = members
                    .par_chunks(pace.large)
                    .map_init(|| 0, |done, chunk| self.forbidden(taken, chunk, done))
                    .try_reduce(
                        || [0u64; W],
                        |mut a, b| {
                            or_into(&mut a, &b);
                            Ok(a)
                        },
                    )?;
                match Self::free(&forbidden) {
                    Some(free) => {
                        colors[pending[k] as usize] = self.color_of(free);
                        members.par_chunks(pace.large).for_each(|chunk| self.mark(taken, chunk, free));
                    }
                    None => later.push(pending[k]),
                }
                k += 1;
                continue;
            }
            let mut end = k;
            let mut work = 0;
            while end < pending.len() && work < pace.batch {
                let members = c.of(pending[end] as usize);
                if members.len() >= pace.large {
                    break;
                }
                work += self.work(members);
                end += 1;
            }
            let run = &pending[k..end];
            let key = |r: usize| (u32::MAX as u64 - batch) << 32 | r as u64;
            let forbidden: Vec<[u64; W]> = run
                .par_iter()
                .enumerate()
                .map_init(
                    || 0,
                    |done, (r, &i)| {
                        let members = c.of(i as usize);
                        let forbidden = self.forbidden(taken, members, done)?;
                        self.slots(members, |x| {
                            if rank[x].load(Relaxed) > key(r) {
                                rank[x].fetch_min(key(r), Relaxed);
                            }
                        });
                        Ok(forbidden)
                    },
                )
                .collect::<Result<_, Error>>()?;
            // The passes are apart (rayon joins them), so every rank of (1) is seen in (2).
            let outcomes: Vec<Outcome> = run
                .par_iter()
                .zip(&forbidden)
                .enumerate()
                .map(|(r, (&i, forbidden))| {
                    let members = c.of(i as usize);
                    let mut met = false;
                    self.slots(members, |x| met |= rank[x].load(Relaxed) < key(r));
                    if met {
                        return Outcome::Met;
                    }
                    match Self::free(forbidden) {
                        Some(free) => {
                            self.mark(taken, members, free);
                            Outcome::Colored(self.color_of(free))
                        }
                        None => Outcome::Deferred,
                    }
                })
                .collect();
            let mut done = 0;
            for (&i, outcome) in run.iter().zip(outcomes) {
                match outcome {
                    Outcome::Colored(color) => colors[i as usize] = color,
                    Outcome::Deferred => later.push(i),
                    Outcome::Met => self.color_one(taken, i, colors, &mut later, &mut done)?,
                }
            }
            batch += 1;
            k = end;
        }
        Ok(later)
    }
}

fn or_into<const W: usize>(acc: &mut [u64; W], bits: &[u64; W]) {
    for (a, b) in acc.iter_mut().zip(bits) {
        *a |= b;
    }
}

#[cfg(test)]
mod tests {
    use pgomea_device::rng::SplitMix64;

    use super::super::lmig::degree_order;
    use super::super::tests::{foses, graph, size_order};
    use super::*;
    use crate::linkage::conflicts::{Conflicts, Sets};
    use crate::linkage::fos::Fos;
    use crate::linkage::testing;
    use crate::problem::GrayBoxProblem;

    /// The parallel incidence colouring gives the one-pass colouring, whatever the pace: large
    /// sets of one variable or more, batches from one slot up, every kind, trees and overlapping
    /// families, in size order and in Welsh-Powell's; and past the first blocks of colours (a
    /// complete graph, where sets are deferred from block to block).
    #[test]
    fn batched_incidence_colourings_equal_the_one_pass_ones() {
        let mut rng = SplitMix64::new(29);
        let never = StopCheck::never();
        let mut paces = vec![Pace::PARALLEL, Pace { large: 1, batch: 1 }];
        for _ in 0..4 {
            paces.push(Pace { large: 1 + rng.index(8), batch: 1 + rng.index(60) });
        }
        let check = |fos: &Fos, p: &dyn GrayBoxProblem, paces: &[Pace]| {
            let conflicts = Conflicts::new(Sets::Fos(fos), p, &never).unwrap();
            let degrees = conflicts.degrees(&never).unwrap();
            let members = Members::new(Sets::Fos(fos), p, &StopCheck::never()).unwrap();
            for order in [size_order(fos), degree_order(&degrees)] {
                let one_pass = greedy_by_incidence_paced(&members, &order, Pace::IN_ORDER, &never).unwrap();
                for &pace in paces {
                    let batched = greedy_by_incidence_paced(&members, &order, pace, &never).unwrap();
                    assert_eq!(batched, one_pass, "{} with {pace:?}: {:?}", p.name(), fos);
                }
            }
        };
        for trial in 0..6 {
            for p in testing::instances(4 + rng.index(if trial < 3 { 30 } else { 300 }), &mut rng) {
                for fos in foses(p.variables(), &*p, &mut rng) {
                    check(&fos, &*p, &paces);
                }
            }
        }
        let complete: Vec<(u32, u32)> = (0..200).flat_map(|i| (i + 1..200).map(move |j| (i, j))).collect();
        let p = graph(200, &complete);
        check(&Fos::univariate(200), &p, &paces);
    }
}
