//! The flat arrays of parallel GOM, built once per run and shared by both backends (the CUDA
//! backend uploads them as they are).
//!
//! The linkage sets are renumbered into *slots*, ordered by colour group: group g owns slots
//! `group_slots[g]..group_slots[g+1]`. Slot s has the variables `vars[var_offsets[s]..var_offsets[s+1]]`
//! and the dependent subfunctions (those that read a variable of the set, each once)
//! `dep_subfunctions[dep_offsets[s]..dep_offsets[s+1]]`. Within a group the slots' dependent
//! subfunctions are contiguous, so a group's are one range `dep_offsets[first]..dep_offsets[last]`
//! and stage 4 reduces them by key (the slot) segment by segment. The device crate's
//! `stage::Layout` is this layout's pointers.
//!
//! Within a group, the slots are ordered by how many GPU threads work on one of them
//! ([`pgomea_device::gom::crew_kind`]: a lane, a warp, a block), with `group_crews` marking where each
//! crew's slots end; the order of the slots of a group changes no result (they are mixed in
//! parallel), only how the kernels share the work out.

use std::sync::Arc;

use pgomea_device::gom::{CrewKind, crew_kind};
use pgomea_device::stage::{BufferSizes, Layout, SearchArgs};
use rayon::prelude::*;

use crate::error::Error;
use crate::gomea::local_search::{AnnealSchedule, VariableColors, search_args};
use crate::linkage::fos::Fos;
use crate::problem::{ArrayPlace, GrayBoxProblem};
use crate::stop::{StopCheck, StopReason};

/// Consecutive linkage sets whose dependent subfunctions the layout lists into one buffer.
const RUN: usize = 1024;

/// The linkage sets of a colour-grouped model renumbered into slots, ordered by colour group, with each slot's variables and dependent subfunctions: the arrays both backends read (the device crate's `stage::Layout` points into them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupLayout {
    /// The problem's variables.
    pub variables: usize,
    pub(crate) group_slots: Vec<u32>,
    /// Per group, two counts from its first slot: where the slots for one lane end, and where
    /// the slots for one warp end (the rest are for one block each).
    pub group_crews: Vec<u32>,
    /// The FOS index of each slot (the `set` coordinate of the random counter).
    pub slot_set: Vec<u32>,
    pub(crate) var_offsets: Vec<u32>,
    pub(crate) vars: Vec<u32>,
    pub(crate) dep_offsets: Vec<u32>,
    /// The subfunctions that read a variable of each slot, each once per slot; a group's are contiguous.
    pub dep_subfunctions: Vec<u32>,
    /// The largest number of slots, and of dependent entries, in one group (buffer sizes).
    pub max_group_slots: usize,
    pub(crate) max_group_deps: usize,
    /// The colour groups of the variables for local search (none when it is off), and its
    /// annealing schedule.
    pub variable_colors: Arc<VariableColors>,
    /// The annealing schedule of local search (empty when it is off).
    pub anneal: AnnealSchedule,
}

impl GroupLayout {
    /// The layout of the colour groups `groups` of `fos`'s sets. One pass over the sets lists
    /// each one's dependent subfunctions, in parallel, into buffers of consecutive sets, or only
    /// counts them (where `keep_lists` says not to keep them); the counts fix each set's crew
    /// and its place. A second pass copies the variables and the lists (or lists them again)
    /// into their places, group by group in parallel. Time linear in the sum over the sets of
    /// their variables' subfunction entries; memory: the arrays themselves, and kept lists once
    /// more while they are copied. Stops with `Error::Stopped` when `stop` says so.
    pub fn new(problem: &dyn GrayBoxProblem, fos: &Fos, groups: &[Vec<u32>], stop: &StopCheck) -> Result<Self, Error> {
        let l = problem.variables();
        let slots: usize = groups.iter().map(Vec::len).sum();
        let n = fos.len();
        if let Some(&s) = groups.iter().flatten().find(|&&s| s as usize >= n) {
            return Err(Error::Internal(format!("colour group names linkage set {s} of {n}")));
        }
        crate::problem::memory::ensure(
            4 * (2 * slots as u128 + groups.len() as u128 * 3) + 8 * n as u128,
            &format!("the layout of {slots} linkage sets"),
        )?;
        // Pass 1 lists the dependent subfunctions of every set into the buffer of its run of
        // `RUN` consecutive sets, with where each set's list ends in it, or only counts them
        // where pass 2 lists them again instead (`keep_lists`). A list holds at most one entry
        // per subfunction of each of the set's variables; kept lists and the layout's copy of
        // them must fit.
        let keep = keep_lists(problem);
        let run_of = |r: usize| fos.sets_in(r * RUN..n.min((r + 1) * RUN));
        let bounds: Vec<usize> = (0..n.div_ceil(RUN))
            .into_par_iter()
            .map(|r| {
                let entries = run_of(r).flatten().map(|&v| problem.functions().dependent(v as usize).len());
                if keep { entries.sum() } else { 0 }
            })
            .collect();
        let entries: u128 = bounds.iter().map(|&b| b as u128).sum();
        crate::problem::memory::ensure(
            8 * entries,
            &format!("the layout's lists of at most {entries} dependent subfunctions"),
        )?;
        let runs: Vec<(Vec<u32>, Vec<u64>)> = bounds
            .par_iter()
            .enumerate()
            .map_init(
                || (Seen::default(), 0),
                |(seen, done), (r, &bound)| -> Result<(Vec<u32>, Vec<u64>), StopReason> {
                    let (mut list, mut ends) = (Vec::with_capacity(bound), Vec::with_capacity(RUN));
                    let mut end = 0;
                    for set in run_of(r) {
                        stop.after(done, set.len())?;
                        for_each_dependent(problem, set, seen, |e| {
                            if keep {
                                list.push(e);
                            }
                            end += 1;
                        });
                        ends.push(end);
                    }
                    Ok((list, ends))
                },
            )
            .collect::<Result<_, StopReason>>()?;
        // Set i's list: `runs[i / RUN].0[range]`.
        let listed = |i: usize| {
            let ends = &runs[i / RUN].1;
            let k = i % RUN;
            (if k == 0 { 0 } else { ends[k - 1] as usize })..ends[k] as usize
        };
        // The slots: group by group, within a group by crew (stable: the colouring's order).
        let mut layout = GroupLayout {
            variables: l,
            group_slots: Vec::with_capacity(groups.len() + 1),
            group_crews: Vec::with_capacity(2 * groups.len()),
            slot_set: Vec::with_capacity(slots),
            var_offsets: Vec::with_capacity(slots + 1),
            vars: Vec::new(),
            dep_offsets: Vec::with_capacity(slots + 1),
            dep_subfunctions: Vec::new(),
            max_group_slots: 0,
            max_group_deps: 0,
            variable_colors: Arc::default(),
            anneal: AnnealSchedule::default(),
        };
        let (mut var_end, mut dep_end) = (0u64, 0u64);
        layout.group_slots.push(0);
        layout.var_offsets.push(0);
        layout.dep_offsets.push(0);
        for group in groups {
            let crew = |s: u32| crew_kind(fos.set(s as usize).len(), listed(s as usize).len());
            let dep_start = dep_end;
            let first = layout.slot_set.len();
            for kind in [CrewKind::Lane, CrewKind::Warp, CrewKind::Block] {
                for (k, &s) in group.iter().enumerate() {
                    // A group may hold 10^8 sets (the univariate model of a huge header).
                    stop.every(k, crate::stop::WORK_PER_CHECK)?;
                    if crew(s) != kind {
                        continue;
                    }
                    layout.slot_set.push(s);
                    var_end += fos.set(s as usize).len() as u64;
                    dep_end += listed(s as usize).len() as u64;
                    layout.var_offsets.push(u32::try_from(var_end).map_err(|_| too_large(var_end))?);
                    layout.dep_offsets.push(u32::try_from(dep_end).map_err(|_| too_large(dep_end))?);
                }
                if kind != CrewKind::Block {
                    layout.group_crews.push((layout.slot_set.len() - first) as u32);
                }
            }
            layout.group_slots.push(layout.slot_set.len() as u32);
            layout.max_group_slots = layout.max_group_slots.max(group.len());
            layout.max_group_deps = layout.max_group_deps.max((dep_end - dep_start) as usize);
        }
        crate::problem::memory::ensure(
            4 * (var_end + dep_end) as u128,
            &format!("the layout's {var_end} variables and {dep_end} dependent subfunctions"),
        )?;
        layout.vars = vec![0; var_end as usize];
        layout.dep_subfunctions = vec![0; dep_end as usize];
        // Pass 2: every slot's variables and subfunctions into their places, group by group in
        // parallel (each group's ranges are its own).
        let mut work = Vec::with_capacity(groups.len());
        let (mut vars, mut deps) = (&mut layout.vars[..], &mut layout.dep_subfunctions[..]);
        for g in 0..groups.len() {
            let range = layout.group_slots[g] as usize..layout.group_slots[g + 1] as usize;
            let v = layout.var_offsets[range.end] - layout.var_offsets[range.start];
            let d = layout.dep_offsets[range.end] - layout.dep_offsets[range.start];
            let (gv, rest_v) = std::mem::take(&mut vars).split_at_mut(v as usize);
            let (gd, rest_d) = std::mem::take(&mut deps).split_at_mut(d as usize);
            (vars, deps) = (rest_v, rest_d);
            work.push((range, gv, gd));
        }
        let slot_set = &layout.slot_set;
        work.into_par_iter().try_for_each_init(
            || (Seen::default(), 0),
            |(seen, done), (range, gv, gd)| -> Result<(), StopReason> {
                let (mut v, mut d) = (0, 0);
                for &s in &slot_set[range] {
                    let (set, deps) = (fos.set(s as usize), listed(s as usize));
                    stop.after(done, set.len() + deps.len())?;
                    gv[v..v + set.len()].copy_from_slice(set);
                    v += set.len();
                    if keep {
                        gd[d..d + deps.len()].copy_from_slice(&runs[s as usize / RUN].0[deps.clone()]);
                        d += deps.len();
                    } else {
                        for_each_dependent(problem, set, seen, |e| {
                            gd[d] = e;
                            d += 1;
                        });
                    }
                }
                Ok(())
            },
        )?;
        Ok(layout)
    }

    /// The number of colour groups.
    pub fn groups(&self) -> usize {
        self.group_slots.len() - 1
    }

    /// The slots of group g.
    pub fn slots(&self, g: usize) -> std::ops::Range<usize> {
        self.group_slots[g] as usize..self.group_slots[g + 1] as usize
    }

    /// The dependent entries of group g.
    pub fn deps(&self, g: usize) -> std::ops::Range<usize> {
        let s = self.slots(g);
        self.dep_offsets[s.start] as usize..self.dep_offsets[s.end] as usize
    }

    /// The variables of a slot.
    pub fn set_vars(&self, slot: usize) -> &[u32] {
        &self.vars[self.var_offsets[slot] as usize..self.var_offsets[slot + 1] as usize]
    }

    /// The dependent subfunctions of a slot.
    pub fn set_deps(&self, slot: usize) -> &[u32] {
        &self.dep_subfunctions[self.dep_offsets[slot] as usize..self.dep_offsets[slot + 1] as usize]
    }

    /// The sizes of the buffers of a population of `n` in this layout.
    pub fn buffer_sizes(&self, n: usize) -> BufferSizes {
        BufferSizes {
            n,
            l: self.variables,
            row_slots: self.max_group_slots.max(1),
            row_deps: self.max_group_deps.max(1),
            groups: self.groups(),
            slots: self.slot_set.len(),
        }
    }

    /// What every population of a run shares, put in `place`: the layout's arrays (in the order
    /// of the device's `Layout`) and what local search reads.
    pub fn place<P: ArrayPlace>(&self, place: &mut P) -> Result<(Layout, SearchArgs), P::Error> {
        let arrays = [
            &self.group_slots,
            &self.group_crews,
            &self.slot_set,
            &self.var_offsets,
            &self.vars,
            &self.dep_offsets,
            &self.dep_subfunctions,
        ];
        let mut pointers = [Default::default(); Layout::ARRAYS];
        for (p, a) in pointers.iter_mut().zip(arrays) {
            *p = place.place(a)?;
        }
        let search = search_args(&self.variable_colors, &self.anneal, place)?;
        Ok((Layout::from_arrays(pointers), search))
    }
}

/// Whether the layout keeps the lists of its first pass and copies them, rather than listing
/// every set's dependent subfunctions again: where the subfunctions read more than two variables
/// on average: copying halved the layout of 3-SAT, while on tori listing again (two variables per
/// subfunction, neighbours near each other in memory) was faster and held less memory
/// (`docs/decisions/0013-layout-dependent-lists.md`).
fn keep_lists(problem: &dyn GrayBoxProblem) -> bool {
    let p = problem.functions();
    p.entries() > 2 * p.len()
}

/// Calls `f` with each subfunction reading a variable of `set`, once: where it first appears in
/// the lists of the set's variables, the variables taken in the set's order. Duplicates are
/// found in `seen`: for a set of at most [`SMALL_SET_ENTRIES`] entries an open-addressing table
/// of their subfunctions (in cache), else a flag per subfunction (set, then cleared). Neither
/// reads a subfunction's own variables: that read is a cache miss per entry, and was most of the
/// layout of large clause sets (`docs/decisions/0013-layout-dependent-lists.md`).
fn for_each_dependent(problem: &dyn GrayBoxProblem, set: &[u32], seen: &mut Seen, f: impl FnMut(u32)) {
    for_each_dependent_within(problem, set, seen, SMALL_SET_ENTRIES, f)
}

/// [`for_each_dependent`] with the small sets' bound given (the tests take both ways).
fn for_each_dependent_within(
    problem: &dyn GrayBoxProblem,
    set: &[u32],
    seen: &mut Seen,
    small: usize,
    mut f: impl FnMut(u32),
) {
    let p = problem.functions();
    let entries: usize = set.iter().map(|&v| p.dependent(v as usize).len()).sum();
    if entries <= small {
        let capacity = (2 * entries).next_power_of_two().max(2);
        let table = &mut seen.table;
        table.clear();
        table.resize(capacity, EMPTY);
        for &v in set {
            for &e in p.dependent(v as usize) {
                // Fibonacci hashing into the table; linear probing.
                let mut k = (e.wrapping_mul(0x9E37_79B9) as usize) & (capacity - 1);
                loop {
                    if table[k] == EMPTY {
                        table[k] = e;
                        f(e);
                        break;
                    }
                    if table[k] == e {
                        break;
                    }
                    k = (k + 1) & (capacity - 1);
                }
            }
        }
    } else {
        let flags = seen.flags.get_or_insert_with(|| vec![false; p.len()]);
        for &v in set {
            for &e in p.dependent(v as usize) {
                if !std::mem::replace(&mut flags[e as usize], true) {
                    f(e);
                }
            }
        }
        for &v in set {
            for &e in p.dependent(v as usize) {
                flags[e as usize] = false;
            }
        }
    }
}

/// Sets with at most this many variable-subfunction entries find their duplicates in a table of
/// their own (up to 32 KiB, in a core's cache) rather than in a flag per subfunction.
const SMALL_SET_ENTRIES: usize = 4096;

const EMPTY: u32 = u32::MAX;

/// A task's scratch for [`for_each_dependent`]: the small sets' table, and the large sets' flags
/// (all false between calls, made on first use).
#[derive(Default)]
struct Seen {
    table: Vec<u32>,
    flags: Option<Vec<bool>>,
}

fn too_large(entries: u64) -> Error {
    Error::usage(format!("the layout would hold {entries} entries, more than 2^32: use a smaller linkage model"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linkage::fos::LinkageModel;
    use pgomea_device::rng::SplitMix64;

    /// The cooperative one-pass kernel's placement of lane and warp crews (the GPU's only, so
    /// checked here where CI runs): each a permutation of the grid's lanes or warps, whatever the
    /// grid, and the first runs of lane items and the first warp items on distinct blocks.
    #[test]
    fn spread_crews_are_permutations_that_visit_every_block_first() {
        use pgomea_device::crew::spread_starts;
        for (blocks, per_block) in [(1, 1), (1, 32), (3, 4), (7, 5), (264, 16), (132, 32), (2112, 4)] {
            let (mut lanes, mut warps) =
                (vec![0u8; (blocks * per_block * 32) as usize], vec![0u8; (blocks * per_block) as usize]);
            for block in 0..blocks {
                for warp in 0..per_block {
                    for lane in 0..32 {
                        let (l, w) = spread_starts(block, warp, lane, blocks, per_block, 32);
                        lanes[l as usize] += 1;
                        if lane == 0 {
                            warps[w as usize] += 1;
                        }
                        // Block b takes lane run b and warp item b first.
                        if warp == 0 {
                            assert_eq!(l, block * 32 + lane);
                        }
                        if warp == per_block - 1 {
                            assert_eq!(w, block);
                        }
                    }
                }
            }
            assert!(lanes.iter().all(|&c| c == 1), "lanes, grid {blocks} x {per_block}");
            assert!(warps.iter().all(|&c| c == 1), "warps, grid {blocks} x {per_block}");
        }
    }

    /// The cooperative one-pass kernel's teams (the GPU's only, so checked here where CI runs):
    /// every block of the grid in exactly one team, the teams numbered 0..n in the blocks' order,
    /// each a contiguous run of at least one block, their sizes within one of each other.
    #[test]
    fn teams_split_the_grid_into_one_run_of_blocks_per_solution() {
        use pgomea_device::crew::team_of_block;
        for blocks in [1u32, 2, 3, 7, 132, 264, 528, 4224] {
            for n in [1u32, 2, 3, 5, 16, 17, 64, 131, 132, 133, 264, 4224].into_iter().filter(|&n| n <= blocks) {
                let mut next = 0; // the block the next team must start at
                let (mut smallest, mut largest) = (u32::MAX, 0);
                for block in 0..blocks {
                    let (k, first, size) = team_of_block(block, blocks, n);
                    assert!(k < n && size >= 1 && (first..first + size).contains(&block), "{blocks} {n} {block}");
                    if block == first {
                        assert_eq!(first, next, "grid {blocks}, n {n}: team {k} not where the last ended");
                        assert_eq!(team_of_block(next.saturating_sub(1), blocks, n).0 + u32::from(block > 0), k);
                        next = first + size;
                        (smallest, largest) = (smallest.min(size), largest.max(size));
                    }
                }
                assert_eq!(next, blocks, "grid {blocks}, n {n}: the teams do not cover the grid");
                assert_eq!(team_of_block(blocks - 1, blocks, n).0, n - 1, "grid {blocks}, n {n}: not n teams");
                assert!(largest - smallest <= 1, "grid {blocks}, n {n}: sizes {smallest}..{largest}");
            }
        }
    }

    /// Today's layout before the rewrite (one list per slot, then copied), kept as the reference.
    fn reference(problem: &dyn GrayBoxProblem, fos: &Fos, groups: &[Vec<u32>]) -> GroupLayout {
        let l = problem.variables();
        let mut layout = GroupLayout {
            variables: l,
            group_slots: vec![0],
            group_crews: Vec::new(),
            slot_set: Vec::new(),
            var_offsets: vec![0],
            vars: Vec::new(),
            dep_offsets: vec![0],
            dep_subfunctions: Vec::new(),
            max_group_slots: 0,
            max_group_deps: 0,
            variable_colors: Arc::default(),
            anneal: AnnealSchedule::default(),
        };
        for group in groups {
            let dep_start = layout.dep_subfunctions.len();
            let mut slots: Vec<(CrewKind, u32, Vec<u32>)> = Vec::with_capacity(group.len());
            for &set_index in group {
                let set = fos.set(set_index as usize);
                let deps = reference_dependents(problem, set);
                slots.push((crew_kind(set.len(), deps.len()), set_index, deps));
            }
            // A stable sort: within a crew, the colouring's order.
            slots.sort_by_key(|&(c, _, _)| c);
            let end = |c: CrewKind| slots.partition_point(|&(x, _, _)| x <= c) as u32;
            layout.group_crews.extend([end(CrewKind::Lane), end(CrewKind::Warp)]);
            for (_, set_index, deps) in slots {
                layout.slot_set.push(set_index);
                layout.vars.extend_from_slice(fos.set(set_index as usize));
                layout.var_offsets.push(layout.vars.len() as u32);
                layout.dep_subfunctions.extend_from_slice(&deps);
                layout.dep_offsets.push(layout.dep_subfunctions.len() as u32);
            }
            layout.group_slots.push(layout.slot_set.len() as u32);
            layout.max_group_slots = layout.max_group_slots.max(group.len());
            layout.max_group_deps = layout.max_group_deps.max(layout.dep_subfunctions.len() - dep_start);
        }
        layout
    }

    /// The rule, written plainly: each subfunction where it first appears in the set's variables'
    /// lists.
    fn reference_dependents(problem: &dyn GrayBoxProblem, set: &[u32]) -> Vec<u32> {
        let mut deps: Vec<u32> = Vec::new();
        for &v in set {
            for &e in problem.dependent_subfunctions(v as usize) {
                if !deps.contains(&e) {
                    deps.push(e);
                }
            }
        }
        deps
    }

    /// Both ways of finding a set's duplicates list the subfunctions of the reference's rule (where
    /// they first appear in the set's variables' lists), on every set of every model over random
    /// instances of every kind, with the scratch reused from set to set.
    #[test]
    fn dependent_lists_are_the_same_both_ways() {
        let mut rng = SplitMix64::new(11);
        let never = StopCheck::never();
        for size in [5, 30, 200] {
            for p in crate::linkage::testing::instances(size, &mut rng) {
                let fos = Fos::build(&LinkageModel::Flt, &*p, &mut rng, &never).unwrap();
                let (mut table, mut flags) = (Seen::default(), Seen::default());
                for set in fos.sets() {
                    let expected = reference_dependents(&*p, set);
                    for (seen, small) in [(&mut table, usize::MAX), (&mut flags, 0)] {
                        let mut got = Vec::new();
                        for_each_dependent_within(&*p, set, seen, small, |e| got.push(e));
                        assert_eq!(got, expected, "{} ({} variables), bound {small}", p.name(), p.variables());
                    }
                }
            }
        }
    }

    /// The same arrays as the reference, for random colourings (valid or not: the layout does
    /// not care) of every model over random instances of every kind.
    #[test]
    fn layout_equals_the_reference() {
        let mut rng = SplitMix64::new(8);
        let never = StopCheck::never();
        for size in [5, 30, 200] {
            for p in crate::linkage::testing::instances(size, &mut rng) {
                for model in [LinkageModel::Univariate, LinkageModel::Flt, LinkageModel::Bflt(4)] {
                    let fos = Fos::build(&model, &*p, &mut rng, &never).unwrap();
                    let colors = 1 + rng.index(6);
                    let mut groups = vec![Vec::new(); colors];
                    for s in 0..fos.len() as u32 {
                        groups[rng.index(colors)].push(s);
                    }
                    let got = GroupLayout::new(&*p, &fos, &groups, &never).unwrap();
                    assert_eq!(got, reference(&*p, &fos, &groups), "{} {model}", p.name());
                }
            }
        }
    }

    #[test]
    fn a_stopped_layout_says_why() {
        let p = crate::linkage::testing::random_graph(3000, 9000, &mut SplitMix64::new(1));
        let fos = Fos::univariate(3000);
        let groups = vec![(0..3000).collect::<Vec<u32>>()];
        let past = StopCheck::new(Some(std::time::Instant::now()), None);
        let e = GroupLayout::new(&p, &fos, &groups, &past).unwrap_err();
        assert!(matches!(e, Error::Stopped(StopReason::TimeLimit)), "{e}");
    }
}
