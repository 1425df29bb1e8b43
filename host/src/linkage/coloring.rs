//! Colouring of the linkage-model interaction graph (LMIG).
//!
//! The LMIG has one vertex per linkage set of a FOS; sets i and j are adjacent (they *conflict*)
//! when they share a variable or an edge of the variable interaction graph (VIG, the Max-Cut graph;
//! every edge counts, whatever its weight) joins a variable of i to a variable of j. Sets of one
//! colour are then mutually independent: GOM can mix all of them at the same time, as each one's
//! partial evaluation reads no variable another one writes.
//!
//! Three greedy colourings: Welsh-Powell (the paper's; sets by decreasing LMIG degree, each takes
//! the smallest colour its coloured neighbours leave free), DSatur (Brélaz; always the uncoloured
//! set with the most distinct colours among its neighbours next), and incidence (Welsh-Powell's
//! rule in the order of decreasing set size, which needs no degrees). None builds the LMIG: the
//! conflicts of a set are enumerated when needed ([`Conflicts`]), and the colours a set must
//! avoid are read from the variables and subfunctions it touches, each of which remembers the
//! colours of the coloured sets touching it. [`Lmig`] builds the graph for tests and small
//! instances; [`welsh_powell`] and [`dsatur`] colour it as the streamed versions do.
//! [`check_groups_independent`] re-checks groups against the FOS and the problem directly.

use std::cmp::Reverse;
use std::fmt;
use std::str::FromStr;

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use crate::error::Error;
use crate::linkage::conflicts::{Conflicts, Members, Sets};
use crate::linkage::fos::Fos;
use crate::problem::GrayBoxProblem;
use crate::stop::StopCheck;

/// Which greedy colouring to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColoringMethod {
    WelshPowell,
    DSatur,
    /// Welsh-Powell's rule with the sets by decreasing size (ties: lower index first) instead of
    /// decreasing LMIG degree: no conflict is ever counted, so it takes time linear in the total
    /// size of the sets times the subfunctions per variable.
    Incidence,
}

impl ColoringMethod {
    /// Colours the linkage sets of `fos` over `problem`'s subfunctions, without building the
    /// LMIG; stops with `Error::Stopped` when `stop` says so.
    pub fn color(&self, fos: &Fos, problem: &dyn GrayBoxProblem, stop: &StopCheck) -> Result<Coloring, Error> {
        Ok(self.color_sets(Sets::Fos(fos), problem, stop)?.0)
    }

    /// Colours `sets`, and reports what it counted on the way.
    pub fn color_sets(
        &self,
        sets: Sets,
        problem: &dyn GrayBoxProblem,
        stop: &StopCheck,
    ) -> Result<(Coloring, ColoringReport), Error> {
        let members = Members::new(sets, problem)?;
        let mut report = ColoringReport::default();
        let mut count = |conflicts: &Conflicts, stop: &StopCheck| -> Result<Vec<u32>, Error> {
            let t = std::time::Instant::now();
            let degrees = conflicts.degrees(stop)?;
            report.lmig_edges = Some(degrees.iter().map(|&d| d as u64).sum::<u64>() / 2);
            report.degrees_s = t.elapsed().as_secs_f64();
            Ok(degrees)
        };
        let coloring = match self {
            ColoringMethod::WelshPowell => {
                let conflicts = Conflicts::new(sets, problem, stop)?;
                let order = degree_order(&count(&conflicts, stop)?);
                greedy_by_incidence(&members, &order, stop)?
            }
            ColoringMethod::DSatur => {
                let conflicts = Conflicts::new(sets, problem, stop)?;
                let degrees = count(&conflicts, stop)?;
                let mut marks = conflicts.marks();
                dsatur_by(&degrees, |i, f| conflicts.for_each(i, &mut marks, f), stop)?
            }
            // No conflict is counted or enumerated: the sets' nesting is not needed either.
            ColoringMethod::Incidence => {
                let mut order: Vec<u32> = (0..members.len() as u32).collect();
                // Stable: ties keep the lower index first.
                stop.check()?;
                order.par_sort_by_key(|&i| Reverse(members.of(i as usize).len()));
                stop.check()?;
                greedy_by_incidence(&members, &order, stop)?
            }
        };
        Ok((coloring, report))
    }
}

/// What a colouring counted on the way: the LMIG's edges and the seconds spent counting them,
/// when the method orders by LMIG degree (Welsh-Powell, DSatur).
#[derive(Clone, Copy, Debug, Default)]
pub struct ColoringReport {
    pub lmig_edges: Option<u64>,
    pub degrees_s: f64,
}

impl fmt::Display for ColoringMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ColoringMethod::WelshPowell => "welsh-powell",
            ColoringMethod::DSatur => "dsatur",
            ColoringMethod::Incidence => "incidence",
        })
    }
}

impl FromStr for ColoringMethod {
    type Err = Error;

    /// Parses `welsh-powell`, `dsatur` or `incidence` (ASCII case ignored).
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "welsh-powell" => Ok(ColoringMethod::WelshPowell),
            "dsatur" => Ok(ColoringMethod::DSatur),
            "incidence" => Ok(ColoringMethod::Incidence),
            _ => Err(Error::usage(format!(
                "unknown colouring method `{s}`: expected `welsh-powell`, `dsatur` or `incidence`"
            ))),
        }
    }
}

/// The linkage-model interaction graph in CSR form: the neighbours of set i are
/// `adj[offsets[i]..offsets[i+1]]`, sorted ascending, without i itself and without duplicates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lmig {
    pub offsets: Vec<usize>,
    pub adj: Vec<u32>,
}

impl Lmig {
    /// Builds the LMIG of `fos` over the VIG of `problem` (variables that share a subfunction
    /// are joined).
    ///
    /// Through a variable-to-sets index, never by testing pairs of sets: for set i, the variables
    /// of i and all their VIG neighbours are collected once (a stamp array dedups them), then every
    /// set that holds one of them is a neighbour of i (a second stamp array dedups those). Rows
    /// are built in parallel (rayon) and sorted; the result does not depend on the thread count.
    /// Time: the sum over sets i of the sets-per-variable counts of i's closed neighbourhood.
    pub fn build(fos: &Fos, problem: &dyn GrayBoxProblem) -> Lmig {
        let l = problem.variables();
        let s = fos.len();
        assert!(s < u32::MAX as usize, "too many linkage sets");
        // Variable -> sets holding it, CSR, sets ascending.
        let mut count = vec![0usize; l + 1];
        for set in &fos.sets {
            for &v in set {
                assert!((v as usize) < l, "linkage set holds variable {v}, out of range 0..{l}");
                count[v as usize + 1] += 1;
            }
        }
        for v in 0..l {
            count[v + 1] += count[v];
        }
        let var_offsets = count;
        let mut fill = var_offsets.clone();
        let mut var_sets = vec![0u32; var_offsets[l]];
        for (i, set) in fos.sets.iter().enumerate() {
            for &v in set {
                var_sets[fill[v as usize]] = i as u32;
                fill[v as usize] += 1;
            }
        }
        drop(fill);

        let rows: Vec<Vec<u32>> = (0..s)
            .into_par_iter()
            .map_init(
                || (vec![0u32; l], vec![0u32; s], Vec::<u32>::new()),
                |(var_stamp, set_stamp, closure), i| {
                    let stamp = i as u32 + 1;
                    closure.clear();
                    for &v in &fos.sets[i] {
                        if var_stamp[v as usize] != stamp {
                            var_stamp[v as usize] = stamp;
                            closure.push(v);
                        }
                        for &e in problem.dependent_subfunctions(v as usize) {
                            for &u in problem.subfunction_variables(e as usize) {
                                if var_stamp[u as usize] != stamp {
                                    var_stamp[u as usize] = stamp;
                                    closure.push(u);
                                }
                            }
                        }
                    }
                    set_stamp[i] = stamp; // no self loop
                    let mut row = Vec::new();
                    for &x in closure.iter() {
                        for &j in &var_sets[var_offsets[x as usize]..var_offsets[x as usize + 1]] {
                            if set_stamp[j as usize] != stamp {
                                set_stamp[j as usize] = stamp;
                                row.push(j);
                            }
                        }
                    }
                    row.sort_unstable();
                    row
                },
            )
            .collect();
        let mut offsets = Vec::with_capacity(s + 1);
        offsets.push(0);
        let total: usize = rows.iter().map(Vec::len).sum();
        let mut adj = Vec::with_capacity(total);
        for row in rows {
            adj.extend_from_slice(&row);
            offsets.push(adj.len());
        }
        Lmig { offsets, adj }
    }

    /// Builds an LMIG from neighbour lists (made symmetric, sorted, deduplicated, self loops
    /// dropped): for tests and for other graphs.
    pub fn from_lists(lists: &[Vec<u32>]) -> Lmig {
        let n = lists.len();
        let mut sym: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, list) in lists.iter().enumerate() {
            for &j in list {
                assert!((j as usize) < n, "neighbour {j} out of range 0..{n}");
                if j as usize != i {
                    sym[i].push(j);
                    sym[j as usize].push(i as u32);
                }
            }
        }
        let mut offsets = vec![0];
        let mut adj = Vec::new();
        for mut row in sym {
            row.sort_unstable();
            row.dedup();
            adj.extend_from_slice(&row);
            offsets.push(adj.len());
        }
        Lmig { offsets, adj }
    }

    /// Number of vertices (linkage sets).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sets conflicting with set i, ascending.
    pub fn neighbours(&self, i: usize) -> &[u32] {
        &self.adj[self.offsets[i]..self.offsets[i + 1]]
    }

    pub fn degree(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// Number of undirected edges.
    pub fn num_edges(&self) -> usize {
        self.adj.len() / 2
    }

    pub fn max_degree(&self) -> usize {
        (0..self.len()).map(|i| self.degree(i)).max().unwrap_or(0)
    }
}

/// A colouring of the LMIG: `colors[i]` is the colour of set i, all below `num_colors`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coloring {
    pub colors: Vec<u32>,
    pub num_colors: usize,
}

/// Summary of a colouring: the number of colours and the sizes of the colour groups
/// (`median_group` is the lower median).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColoringStats {
    pub num_colors: usize,
    pub min_group: usize,
    pub median_group: usize,
    pub max_group: usize,
}

impl fmt::Display for ColoringStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} colours, group sizes min {} median {} max {}",
            self.num_colors, self.min_group, self.median_group, self.max_group
        )
    }
}

impl Coloring {
    /// The sets of each colour in flat form: colour c holds `members[offsets[c]..offsets[c+1]]`,
    /// ascending (the groups of [`Coloring::groups`] one after another).
    pub fn flat_groups(&self) -> (Vec<u32>, Vec<u32>) {
        let mut offsets = vec![0u32; self.num_colors + 1];
        for &c in &self.colors {
            offsets[c as usize + 1] += 1;
        }
        for c in 0..self.num_colors {
            offsets[c + 1] += offsets[c];
        }
        let mut fill = offsets.clone();
        let mut members = vec![0u32; self.colors.len()];
        for (i, &c) in self.colors.iter().enumerate() {
            members[fill[c as usize] as usize] = i as u32;
            fill[c as usize] += 1;
        }
        (offsets, members)
    }

    /// The sets of each colour, ascending; one group per colour 0..num_colors.
    pub fn groups(&self) -> Vec<Vec<u32>> {
        let mut groups = vec![Vec::new(); self.num_colors];
        for (i, &c) in self.colors.iter().enumerate() {
            groups[c as usize].push(i as u32);
        }
        groups
    }

    /// Checks that the colouring covers the LMIG, every colour is below `num_colors`, and no two
    /// adjacent sets share a colour.
    pub fn validate(&self, lmig: &Lmig) -> Result<(), String> {
        if self.colors.len() != lmig.len() {
            return Err(format!("{} colours for {} linkage sets", self.colors.len(), lmig.len()));
        }
        for (i, &c) in self.colors.iter().enumerate() {
            if c as usize >= self.num_colors {
                return Err(format!("set {i} has colour {c}, out of range 0..{}", self.num_colors));
            }
            if let Some(&j) = lmig.neighbours(i).iter().find(|&&j| self.colors[j as usize] == c) {
                return Err(format!("conflicting sets {i} and {j} share colour {c}"));
            }
        }
        Ok(())
    }

    pub fn is_valid(&self, lmig: &Lmig) -> bool {
        self.validate(lmig).is_ok()
    }

    pub fn stats(&self) -> ColoringStats {
        let mut sizes = vec![0usize; self.num_colors];
        for &c in &self.colors {
            sizes[c as usize] += 1;
        }
        sizes.sort_unstable();
        ColoringStats {
            num_colors: self.num_colors,
            min_group: sizes.first().copied().unwrap_or(0),
            median_group: if sizes.is_empty() { 0 } else { sizes[(sizes.len() - 1) / 2] },
            max_group: sizes.last().copied().unwrap_or(0),
        }
    }
}

const UNCOLORED: u32 = u32::MAX;

/// The sets in order of decreasing LMIG degree, ties by lower index first: Welsh-Powell's
/// order, and DSatur's tie break.
fn degree_order(degrees: &[u32]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..degrees.len() as u32).collect();
    order.sort_by_key(|&i| (Reverse(degrees[i as usize]), i));
    order
}

/// Welsh-Powell on a built LMIG: sets in order of decreasing LMIG degree (ties: lower index
/// first), each given the smallest colour no already-coloured neighbour has. O(edges + sets log
/// sets). [`ColoringMethod::WelshPowell`] gives the same colouring without the LMIG.
pub fn welsh_powell(lmig: &Lmig) -> Coloring {
    let n = lmig.len();
    let order = degree_order(&lmig_degrees(lmig));
    let mut colors = vec![UNCOLORED; n];
    // forbidden[c] == i + 1: colour c is taken by a neighbour of set i.
    let mut forbidden = vec![0u32; lmig.max_degree() + 2];
    let mut num_colors = 0usize;
    for &i in &order {
        let stamp = i + 1;
        for &j in lmig.neighbours(i as usize) {
            let c = colors[j as usize];
            if c != UNCOLORED {
                forbidden[c as usize] = stamp;
            }
        }
        let c = forbidden.iter().position(|&f| f != stamp).expect("a free colour below degree + 1");
        colors[i as usize] = c as u32;
        num_colors = num_colors.max(c + 1);
    }
    Coloring { colors, num_colors }
}

fn lmig_degrees(lmig: &Lmig) -> Vec<u32> {
    (0..lmig.len()).map(|i| lmig.degree(i) as u32).collect()
}

/// DSatur on a built LMIG: see `dsatur_by`. [`ColoringMethod::DSatur`] gives the same colouring
/// without the LMIG.
pub fn dsatur(lmig: &Lmig) -> Coloring {
    dsatur_by(&lmig_degrees(lmig), |i, f| lmig.neighbours(i).iter().for_each(|&j| f(j)), &StopCheck::never())
        .expect("a check that never stops")
}

/// DSatur (Brélaz 1979): repeatedly colour the uncoloured set whose neighbours already use the
/// most distinct colours (its saturation), ties by larger LMIG degree (`degrees`), then lower
/// index, with the smallest free colour; `neighbours(i, f)` calls `f` on every neighbour of i.
/// An indexed binary max-heap over the uncoloured sets (increase-key when a saturation grows)
/// holds the priorities; each set keeps a bitset of its neighbours' colours (freed once it is
/// coloured). O((sets + edges) log sets) plus the enumerations.
fn dsatur_by(
    degrees: &[u32],
    mut neighbours: impl FnMut(usize, &mut dyn FnMut(u32)),
    stop: &StopCheck,
) -> Result<Coloring, Error> {
    let n = degrees.len();
    // Static tie-break rank: larger degree first, then lower index; key = saturation << 32 |
    // (n - 1 - rank), so a larger key is the better choice.
    let order = degree_order(degrees);
    let mut key = vec![0u64; n];
    for (r, &i) in order.iter().enumerate() {
        key[i as usize] = (n - 1 - r) as u64;
    }
    // The heap starts as `order`, which is sorted by decreasing key: a valid max-heap.
    let mut heap = IndexedMaxHeap { pos: vec![0; n], heap: order, key };
    for (p, &i) in heap.heap.iter().enumerate() {
        heap.pos[i as usize] = p as u32;
    }
    let mut colors = vec![UNCOLORED; n];
    let mut seen: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut num_colors = 0usize;
    let mut done = 0usize;
    while let Some(i) = heap.pop() {
        stop.every(done, 1024)?;
        done += 1;
        let i = i as usize;
        let bits = std::mem::take(&mut seen[i]);
        let c = match bits.iter().position(|&w| w != u64::MAX) {
            Some(k) => 64 * k + (!bits[k]).trailing_zeros() as usize,
            None => 64 * bits.len(),
        };
        colors[i] = c as u32;
        num_colors = num_colors.max(c + 1);
        let (word, bit) = (c / 64, 1u64 << (c % 64));
        neighbours(i, &mut |j| {
            let j = j as usize;
            if colors[j] != UNCOLORED {
                return;
            }
            let s = &mut seen[j];
            if s.len() <= word {
                s.resize(word + 1, 0);
            }
            if s[word] & bit == 0 {
                s[word] |= bit;
                heap.increase(j, 1 << 32);
            }
        });
    }
    Ok(Coloring { colors, num_colors })
}

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
fn greedy_by_incidence(c: &Members, order: &[u32], stop: &StopCheck) -> Result<Coloring, Error> {
    greedy_by_incidence_paced(c, order, Pace::for_threads(rayon::current_num_threads()), stop)
}

fn greedy_by_incidence_paced(c: &Members, order: &[u32], pace: Pace, stop: &StopCheck) -> Result<Coloring, Error> {
    let (l, m) = (c.problem().variables(), c.problem().subfunctions());
    let mut colors = vec![UNCOLORED; c.len()];
    let mut pending: Vec<u32> = order.to_vec();
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
        pending = match words {
            1 => block.color::<1>(&pending, &mut colors, pace)?,
            2 => block.color::<2>(&pending, &mut colors, pace)?,
            4 => block.color::<4>(&pending, &mut colors, pace)?,
            8 => block.color::<8>(&pending, &mut colors, pace)?,
            _ => block.color::<16>(&pending, &mut colors, pace)?,
        };
        base += 64 * words;
        words = (2 * words).min(16);
    }
    let num_colors = colors.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    Ok(Coloring { colors, num_colors })
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
        let taken: Vec<Taken<W>> = (0..slots).map(|_| std::array::from_fn(|_| AtomicU64::new(0))).collect();
        if pace.batched() {
            return self.color_in_batches(pending, colors, &taken, pace);
        }
        let mut later = Vec::new();
        let mut done = 0;
        for &i in pending {
            self.color_one(&taken, i, colors, &mut later, &mut done)?;
        }
        Ok(later)
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
        let rank: Vec<AtomicU64> = (0..taken.len()).map(|_| AtomicU64::new(u64::MAX)).collect();
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

/// A binary max-heap of items 0..n with keys, positions tracked for increase-key.
struct IndexedMaxHeap {
    heap: Vec<u32>,
    pos: Vec<u32>,
    key: Vec<u64>,
}

impl IndexedMaxHeap {
    fn pop(&mut self) -> Option<u32> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().unwrap();
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.pos[last as usize] = 0;
            self.sift_down(0);
        }
        Some(top)
    }

    fn increase(&mut self, item: usize, by: u64) {
        self.key[item] += by;
        self.sift_up(self.pos[item] as usize);
    }

    fn sift_up(&mut self, mut p: usize) {
        let item = self.heap[p];
        let k = self.key[item as usize];
        while p > 0 {
            let parent = (p - 1) / 2;
            let q = self.heap[parent];
            if self.key[q as usize] >= k {
                break;
            }
            self.heap[p] = q;
            self.pos[q as usize] = p as u32;
            p = parent;
        }
        self.heap[p] = item;
        self.pos[item as usize] = p as u32;
    }

    fn sift_down(&mut self, mut p: usize) {
        let n = self.heap.len();
        let item = self.heap[p];
        let k = self.key[item as usize];
        loop {
            let mut child = 2 * p + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.key[self.heap[child + 1] as usize] > self.key[self.heap[child] as usize] {
                child += 1;
            }
            let c = self.heap[child];
            if self.key[c as usize] <= k {
                break;
            }
            self.heap[p] = c;
            self.pos[c as usize] = p as u32;
            p = child;
        }
        self.heap[p] = item;
        self.pos[item as usize] = p as u32;
    }
}

/// The variables of `problem` coloured so that no subfunction reads two variables of one
/// colour: the groups of colour-grouped local search, whose flips within a group are then exact
/// together. This is the colouring of the univariate linkage model's interaction graph (set {v}
/// conflicts with {u} exactly when a subfunction reads both), by `method`, without building the
/// univariate model or the graph.
pub fn variable_coloring(
    problem: &dyn GrayBoxProblem,
    method: ColoringMethod,
    stop: &StopCheck,
) -> Result<Coloring, Error> {
    Ok(method.color_sets(Sets::Variables(problem.variables()), problem, stop)?.0)
}

/// Checks groups of linkage sets against the FOS and the problem, without an LMIG: within each
/// group, no variable belongs to two sets and no subfunction reads variables of two different
/// sets.
/// Also refuses set indices out of range and a set listed twice (in one group or in two).
pub fn check_groups_independent(groups: &[Vec<u32>], fos: &Fos, problem: &dyn GrayBoxProblem) -> Result<(), String> {
    let l = problem.variables();
    // owner_group[v] = g + 1 and owner_set[v] = s: variable v belongs to set s of group g.
    let mut owner_group = vec![0u32; l];
    let mut owner_set = vec![0u32; l];
    let mut listed = vec![false; fos.len()];
    for (g, group) in groups.iter().enumerate() {
        let gs = g as u32 + 1;
        for &s in group {
            let set = fos.sets.get(s as usize).ok_or_else(|| format!("group {g}: set {s} does not exist"))?;
            if std::mem::replace(&mut listed[s as usize], true) {
                return Err(format!("group {g}: set {s} is listed twice"));
            }
            for &v in set {
                let v = v as usize;
                if v >= l {
                    return Err(format!("set {s} holds variable {v}, out of range 0..{l}"));
                }
                if owner_group[v] == gs && owner_set[v] != s {
                    return Err(format!("group {g}: sets {} and {s} share variable {v}", owner_set[v]));
                }
                owner_group[v] = gs;
                owner_set[v] = s;
            }
        }
        for &s in group {
            for &v in &fos.sets[s as usize] {
                for &e in problem.dependent_subfunctions(v as usize) {
                    for &u in problem.subfunction_variables(e as usize) {
                        let u = u as usize;
                        if owner_group[u] == gs && owner_set[u] != s {
                            return Err(format!(
                                "group {g}: sets {s} and {} both meet subfunction {e} (variables {v} and {u})",
                                owner_set[u]
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linkage::testing::{self, random_graph};
    use crate::problem::graph::{Edge, Graph};
    use crate::problem::maxcut::MaxCut;
    use pgomea_device::rng::SplitMix64;

    fn graph(l: usize, edges: &[(u32, u32)]) -> MaxCut {
        MaxCut::new(Graph::new("test", l, edges.iter().map(|&(u, v)| Edge { u, v, w: 1 }).collect())).unwrap()
    }

    fn random_fos(l: usize, rng: &mut SplitMix64) -> Fos {
        let count = 1 + rng.index(3 * l);
        let sets = (0..count)
            .map(|_| {
                let size = 1 + rng.index(l.min(6));
                let mut s: Vec<u32> = (0..size).map(|_| rng.below(l as u32)).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        Fos { sets }
    }

    /// All pairs, straight from the definition.
    fn brute_force_lmig(fos: &Fos, p: &MaxCut) -> Lmig {
        let n = fos.len();
        let conflict = |a: &[u32], b: &[u32]| {
            a.iter().any(|x| b.contains(x))
                || p.edges().any(|e| (a.contains(&e.u) && b.contains(&e.v)) || (a.contains(&e.v) && b.contains(&e.u)))
        };
        let mut offsets = vec![0];
        let mut adj = Vec::new();
        for i in 0..n {
            for j in 0..n {
                if i != j && conflict(&fos.sets[i], &fos.sets[j]) {
                    adj.push(j as u32);
                }
            }
            offsets.push(adj.len());
        }
        Lmig { offsets, adj }
    }

    fn foses(l: usize, p: &dyn GrayBoxProblem, rng: &mut SplitMix64) -> Vec<Fos> {
        vec![
            Fos::univariate(l),
            Fos::fixed_linkage_tree(p, None, rng, &StopCheck::never()).unwrap(),
            Fos::fixed_linkage_tree(p, Some(1 + rng.index(6)), rng, &StopCheck::never()).unwrap(),
            random_fos(l, rng),
        ]
    }

    #[test]
    fn lmig_equals_brute_force() {
        let mut rng = SplitMix64::new(17);
        for _ in 0..40 {
            let l = 1 + rng.index(30);
            let p = random_graph(l, rng.index(3 * l), &mut rng);
            for fos in foses(l, &p, &mut rng) {
                let lmig = Lmig::build(&fos, &p);
                assert_eq!(lmig, brute_force_lmig(&fos, &p), "l = {l}, fos = {:?}", fos.sets);
                for i in 0..lmig.len() {
                    assert!(lmig.neighbours(i).windows(2).all(|w| w[0] < w[1]));
                    assert!(!lmig.neighbours(i).contains(&(i as u32)));
                }
                assert_eq!(lmig.adj.len() % 2, 0);
            }
        }
    }

    /// Every colour below c appears among the neighbours of a set of colour c (every method takes
    /// the smallest free colour), and, for a method colouring in a fixed `order`, among the
    /// neighbours coloured before it.
    fn assert_greedy(coloring: &Coloring, lmig: &Lmig, order: Option<&[u32]>) {
        let n = lmig.len();
        let mut rank = vec![0usize; n];
        for (r, &i) in order.unwrap_or(&[]).iter().enumerate() {
            rank[i as usize] = r;
        }
        for i in 0..n {
            let c = coloring.colors[i];
            for lower in 0..c {
                assert!(
                    lmig.neighbours(i)
                        .iter()
                        .any(|&j| coloring.colors[j as usize] == lower
                            && (order.is_none() || rank[j as usize] < rank[i])),
                    "set {i} has colour {c} but colour {lower} was free"
                );
            }
        }
        let used: std::collections::HashSet<u32> = coloring.colors.iter().copied().collect();
        assert_eq!(used.len(), coloring.num_colors, "unused colours");
    }

    /// The sets by decreasing size, ties by lower index: the incidence colouring's order.
    fn size_order(fos: &Fos) -> Vec<u32> {
        let mut order: Vec<u32> = (0..fos.len() as u32).collect();
        order.sort_by_key(|&i| (Reverse(fos.sets[i as usize].len()), i));
        order
    }

    #[test]
    fn colourings_are_valid() {
        let mut rng = SplitMix64::new(5);
        let never = StopCheck::never();
        for _ in 0..40 {
            let l = 1 + rng.index(60);
            let p = random_graph(l, rng.index(4 * l), &mut rng);
            for fos in foses(l, &p, &mut rng) {
                let lmig = Lmig::build(&fos, &p);
                for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur, ColoringMethod::Incidence] {
                    let coloring = method.color(&fos, &p, &never).unwrap();
                    coloring.validate(&lmig).unwrap();
                    assert!(coloring.is_valid(&lmig));
                    let groups = coloring.groups();
                    check_groups_independent(&groups, &fos, &p).unwrap();
                    // The groups partition the sets, ascending within each group.
                    let mut all: Vec<u32> = groups.iter().flatten().copied().collect();
                    assert!(groups.iter().all(|g| !g.is_empty() && g.windows(2).all(|w| w[0] < w[1])));
                    all.sort_unstable();
                    assert_eq!(all, (0..fos.len() as u32).collect::<Vec<_>>());
                    let order = match method {
                        ColoringMethod::WelshPowell => Some(degree_order(&lmig_degrees(&lmig))),
                        ColoringMethod::DSatur => None,
                        ColoringMethod::Incidence => Some(size_order(&fos)),
                    };
                    assert_greedy(&coloring, &lmig, order.as_deref());
                    assert!(coloring.num_colors <= lmig.max_degree() + 1);
                }
            }
        }
    }

    #[test]
    fn validators_reject_bad_colourings() {
        // Path 0-1-2-3 and sets {0}, {1}, {2,3}, {0,3}.
        let p = graph(4, &[(0, 1), (1, 2), (2, 3)]);
        let fos = Fos { sets: vec![vec![0], vec![1], vec![2, 3], vec![0, 3]] };
        let lmig = Lmig::build(&fos, &p);
        assert_eq!(lmig.neighbours(0), &[1, 3]);
        assert_eq!(lmig.neighbours(2), &[1, 3]);
        let bad = Coloring { colors: vec![0, 1, 0, 0], num_colors: 2 };
        assert!(!bad.is_valid(&lmig));
        assert!(bad.validate(&lmig).unwrap_err().contains("share colour"));
        // Sharing a variable: sets 0 and 3.
        let e = check_groups_independent(&[vec![0, 3], vec![1], vec![2]], &fos, &p).unwrap_err();
        assert!(e.contains("share variable 0"), "{e}");
        // Joined by an edge (a subfunction reads both): sets 0 and 1.
        let e = check_groups_independent(&[vec![0, 1], vec![2], vec![3]], &fos, &p).unwrap_err();
        assert!(e.contains("both meet subfunction"), "{e}");
        // Listed twice / out of range.
        assert!(check_groups_independent(&[vec![0, 2], vec![2]], &fos, &p).is_err());
        assert!(check_groups_independent(&[vec![7]], &fos, &p).is_err());
        // Good: {0,2} and {1,3} would be fine for sets 0 and 2 (no edge 0-2 or 0-3), but 1 and 3
        // conflict (edge 0-1).
        check_groups_independent(&[vec![0, 2], vec![1], vec![3]], &fos, &p).unwrap();
        let good = Coloring { colors: vec![0, 1, 0, 2], num_colors: 3 };
        good.validate(&lmig).unwrap();
        assert!(Coloring { colors: vec![0, 1, 0], num_colors: 3 }.validate(&lmig).is_err());
        assert!(Coloring { colors: vec![0, 1, 0, 3], num_colors: 3 }.validate(&lmig).is_err());
    }

    #[test]
    fn known_chromatic_numbers() {
        let uni = |l: usize, edges: &[(u32, u32)]| Lmig::build(&Fos::univariate(l), &graph(l, edges));
        // Even cycle, grid, tree: bipartite, DSatur is exact there.
        let cycle = |l: u32| (0..l).map(|i| (i, (i + 1) % l)).collect::<Vec<_>>();
        let mut grid = Vec::new();
        for r in 0..6u32 {
            for c in 0..7u32 {
                if c + 1 < 7 {
                    grid.push((r * 7 + c, r * 7 + c + 1));
                }
                if r + 1 < 6 {
                    grid.push((r * 7 + c, (r + 1) * 7 + c));
                }
            }
        }
        assert_eq!(dsatur(&uni(10, &cycle(10))).num_colors, 2);
        assert_eq!(dsatur(&uni(42, &grid)).num_colors, 2);
        assert_eq!(dsatur(&uni(9, &cycle(9))).num_colors, 3);
        assert_eq!(welsh_powell(&uni(9, &cycle(9))).num_colors, 3);
        let complete: Vec<(u32, u32)> = (0..7).flat_map(|i| (i + 1..7).map(move |j| (i, j))).collect();
        assert_eq!(dsatur(&uni(7, &complete)).num_colors, 7);
        assert_eq!(welsh_powell(&uni(7, &complete)).num_colors, 7);
        assert_eq!(dsatur(&uni(5, &[])).num_colors, 1);
        assert_eq!(welsh_powell(&uni(5, &[])).num_colors, 1);
        assert_eq!(dsatur(&Lmig::from_lists(&[])).num_colors, 0);
        // Crown graph, u_i = 2i, v_i = 2i + 1, u_i ~ v_j for i != j: all degrees equal, so
        // Welsh-Powell colours in index order and needs n colours; DSatur needs 2.
        let n = 6u32;
        let crown: Vec<(u32, u32)> =
            (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (2 * i, 2 * j + 1))).collect();
        let lmig = uni(2 * n as usize, &crown);
        assert_eq!(welsh_powell(&lmig).num_colors, n as usize);
        assert_eq!(dsatur(&lmig).num_colors, 2);
        // Welsh-Powell takes the larger degree first: a star's centre gets colour 0.
        let star = uni(6, &[(5, 0), (5, 1), (5, 2), (5, 3), (5, 4)]);
        let wp = welsh_powell(&star);
        assert_eq!(wp.colors, vec![1, 1, 1, 1, 1, 0]);
        assert_eq!(dsatur(&star).colors, vec![1, 1, 1, 1, 1, 0]);
    }

    #[test]
    fn stats_and_groups() {
        let c = Coloring { colors: vec![0, 1, 0, 2, 0, 1], num_colors: 3 };
        assert_eq!(c.groups(), vec![vec![0, 2, 4], vec![1, 5], vec![3]]);
        assert_eq!(c.stats(), ColoringStats { num_colors: 3, min_group: 1, median_group: 2, max_group: 3 });
        let c = Coloring { colors: vec![0, 1, 0, 1, 2, 3, 3, 3], num_colors: 4 };
        assert_eq!(c.stats().median_group, 2);
        assert_eq!(Coloring { colors: vec![], num_colors: 0 }.stats().max_group, 0);
    }

    #[test]
    fn method_parse_and_display() {
        for (s, m) in [
            ("welsh-powell", ColoringMethod::WelshPowell),
            ("dsatur", ColoringMethod::DSatur),
            ("incidence", ColoringMethod::Incidence),
        ] {
            assert_eq!(s.parse::<ColoringMethod>().unwrap(), m);
            assert_eq!(m.to_string(), s);
        }
        assert_eq!("DSatur".parse::<ColoringMethod>().unwrap(), ColoringMethod::DSatur);
        assert!("greedy".parse::<ColoringMethod>().unwrap_err().to_string().contains("welsh-powell"));
    }

    /// Without the LMIG, the same conflicts, degrees, and Welsh-Powell and DSatur colourings as
    /// with it; the incidence colouring is a valid greedy colouring in its order. Random instances
    /// of every kind (pairwise, tables, clauses), with trees (the conflicts walk up the tree) and
    /// random overlapping families (they use the index).
    #[test]
    fn streamed_colourings_equal_the_lmig_ones_on_every_kind() {
        let mut rng = SplitMix64::new(23);
        let never = StopCheck::never();
        for trial in 0..6 {
            for p in testing::instances(4 + rng.index(if trial < 4 { 30 } else { 150 }), &mut rng) {
                let p = &*p;
                for fos in foses(p.variables(), p, &mut rng) {
                    let lmig = Lmig::build(&fos, p);
                    let conflicts = Conflicts::new(Sets::Fos(&fos), p, &never).unwrap();
                    let mut marks = conflicts.marks();
                    for i in 0..fos.len() {
                        let mut row = Vec::new();
                        conflicts.for_each(i, &mut marks, |j| row.push(j));
                        row.sort_unstable();
                        assert_eq!(row, lmig.neighbours(i), "{}: set {i} of {:?}", p.name(), fos.sets);
                    }
                    assert_eq!(conflicts.degrees(&never).unwrap(), lmig_degrees(&lmig));
                    let (wp, report) = ColoringMethod::WelshPowell.color_sets(Sets::Fos(&fos), p, &never).unwrap();
                    assert_eq!(wp, welsh_powell(&lmig), "{}", p.name());
                    assert_eq!(report.lmig_edges, Some(lmig.num_edges() as u64));
                    assert_eq!(ColoringMethod::DSatur.color(&fos, p, &never).unwrap(), dsatur(&lmig), "{}", p.name());
                    let incidence = ColoringMethod::Incidence.color(&fos, p, &never).unwrap();
                    incidence.validate(&lmig).unwrap();
                    check_groups_independent(&incidence.groups(), &fos, p).unwrap();
                    assert_greedy(&incidence, &lmig, Some(&size_order(&fos)));
                }
                // The variables' colouring, as the univariate model's.
                let lmig = Lmig::build(&Fos::univariate(p.variables()), p);
                assert_eq!(variable_coloring(p, ColoringMethod::WelshPowell, &never).unwrap(), welsh_powell(&lmig));
                assert_eq!(variable_coloring(p, ColoringMethod::DSatur, &never).unwrap(), dsatur(&lmig));
                let incidence = variable_coloring(p, ColoringMethod::Incidence, &never).unwrap();
                incidence.validate(&lmig).unwrap();
            }
        }
    }

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
            let members = Members::new(Sets::Fos(fos), p).unwrap();
            for order in [size_order(fos), degree_order(&degrees)] {
                let one_pass = greedy_by_incidence_paced(&members, &order, Pace::IN_ORDER, &never).unwrap();
                for &pace in paces {
                    let batched = greedy_by_incidence_paced(&members, &order, pace, &never).unwrap();
                    assert_eq!(batched, one_pass, "{} with {pace:?}: {:?}", p.name(), fos.sets);
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

    /// Colours beyond the first blocks of 64 and 128: cliques of 300 sets (a complete graph's
    /// univariate model), and a star of cliques.
    #[test]
    fn many_colours_span_several_blocks() {
        let never = StopCheck::never();
        let complete: Vec<(u32, u32)> = (0..300).flat_map(|i| (i + 1..300).map(move |j| (i, j))).collect();
        let p = graph(300, &complete);
        let lmig = Lmig::build(&Fos::univariate(300), &p);
        for method in [ColoringMethod::WelshPowell, ColoringMethod::Incidence] {
            let c = variable_coloring(&p, method, &never).unwrap();
            assert_eq!(c.num_colors, 300);
            assert_eq!(c, welsh_powell(&lmig));
        }
        let mut rng = SplitMix64::new(3);
        let p = random_graph(300, 60000, &mut rng);
        let lmig = Lmig::build(&Fos::univariate(300), &p);
        let c = variable_coloring(&p, ColoringMethod::WelshPowell, &never).unwrap();
        assert!(c.num_colors > 64, "{}", c.num_colors);
        assert_eq!(c, welsh_powell(&lmig));
    }

    #[test]
    fn flat_groups_are_the_groups_in_a_row() {
        let c = Coloring { colors: vec![2, 0, 1, 0, 2, 2], num_colors: 3 };
        let (offsets, members) = c.flat_groups();
        assert_eq!(offsets, vec![0, 2, 3, 6]);
        assert_eq!(members, c.groups().concat());
    }

    #[test]
    fn a_stopped_colouring_says_why() {
        let p = random_graph(2000, 6000, &mut SplitMix64::new(4));
        let fos = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(1), &StopCheck::never()).unwrap();
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let setter = flag.clone();
        std::thread::spawn(move || setter.store(true, std::sync::atomic::Ordering::Relaxed)).join().unwrap();
        let interrupted = StopCheck::new(None, Some(flag));
        let past = StopCheck::new(Some(std::time::Instant::now()), None);
        for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur, ColoringMethod::Incidence] {
            let e = method.color(&fos, &p, &interrupted).unwrap_err();
            assert!(matches!(e, Error::Stopped(crate::stop::StopReason::Interrupted)), "{method}: {e}");
            let e = variable_coloring(&p, method, &past).unwrap_err();
            assert!(matches!(e, Error::Stopped(crate::stop::StopReason::TimeLimit)), "{method}: {e}");
        }
    }

    #[test]
    fn from_lists_symmetrises() {
        let g = Lmig::from_lists(&[vec![1, 1, 0], vec![], vec![0]]);
        assert_eq!(g.neighbours(0), &[1, 2]);
        assert_eq!(g.neighbours(1), &[0]);
        assert_eq!(g.neighbours(2), &[0]);
        assert_eq!(g.num_edges(), 2);
    }
}
