//! The six stage kernels of parallel GOM, and the comparison kernel that marks solutions equal to
//! a reference (the elitist). Each computes exactly the elements of the CPU stage of the same
//! name in the host's `gomea::parallel::stages`, with the same pure functions of [`crate::gom`].
//!
//! Launch shapes (the host's `cuda` module): "per pair" kernels give each (solution, slot) pair
//! one lane, one warp or one block, by the size of the set (see [`for_each_pair`]);
//! "per element"
//! kernels give one thread to each element. All loop grid-stride, so any grid covers any group:
//! the host launches one grid size per kernel for every group, which lets a whole generation be
//! captured once as a CUDA graph and replayed. The group and the generation are read from the
//! device-side schedule (see [`GomArgs::schedule`]).
//!
//! [`pgomea_generation`] runs the same per-pair and per-element steps for every group of a
//! generation in one cooperative launch, with grid barriers between the stages instead of kernel
//! boundaries: a chain of 6 x groups small kernels costs 5-20 us each on the GPU, a grid barrier
//! a few microseconds.
//!
//! Which threads work on a pair changes nothing in the result: every step below is written once,
//! generic over its crew `W` (1: a lane, 32: a warp, [`BLOCK`]: a block), and computes the same
//! elements either way.

use crate::args::GomArgs;
use crate::gom::{DonorOrder, NO_DONOR, accept, edge_delta};
use crate::thread::GridBarrier;
use crate::warp::{FULL_MASK, WARP_SIZE, lane_id, vote_any_sync, vote_ballot_sync, warp_id, warp_sum_i64};
use crate::{atomic, static_shared_array, thread};

/// Element `i` of the array at device address `base`.
///
/// SAFETY (callers): `base` is the address of an allocation of at least `i + 1` elements of T;
/// the host sizes every buffer from the same layout the kernels index with.
#[inline(always)]
unsafe fn at<T>(base: u64, i: usize) -> *mut T {
    unsafe { (base as *mut T).add(i) }
}

/// The group at position `step` of the schedule, resolved from the layout.
struct Group {
    generation: u32,
    group: u32,
    slot_begin: usize,
    slots: usize,
    /// Slots from the group's first: up to `alone` for one lane each, up to `warped` for one warp
    /// each, the rest for one block each.
    alone: usize,
    warped: usize,
    dep_begin: usize,
    deps: usize,
}

#[inline(always)]
unsafe fn group(a: &GomArgs, step: u32) -> Group {
    unsafe {
        let generation = *at::<u32>(a.schedule, 0);
        let group = *at::<u32>(a.schedule, 1 + step as usize);
        let s0 = *at::<u32>(a.group_slots, group as usize) as usize;
        let s1 = *at::<u32>(a.group_slots, group as usize + 1) as usize;
        let d0 = *at::<u32>(a.dep_offsets, s0) as usize;
        let d1 = *at::<u32>(a.dep_offsets, s1) as usize;
        let alone = *at::<u32>(a.group_crews, 2 * group as usize) as usize;
        let warped = *at::<u32>(a.group_crews, 2 * group as usize + 1) as usize;
        Group { generation, group, slot_begin: s0, slots: s1 - s0, alone, warped, dep_begin: d0, deps: d1 - d0 }
    }
}

/// This warp's first item and the number of warps in the grid.
#[inline(always)]
fn warps() -> (usize, usize) {
    let per_block = (thread::block_dim_x() / WARP_SIZE) as usize;
    (thread::block_idx_x() as usize * per_block + warp_id() as usize, thread::grid_dim_x() as usize * per_block)
}

/// This thread's first item and the number of threads in the grid.
#[inline(always)]
fn threads() -> (usize, usize) {
    let b = thread::block_dim_x() as usize;
    (thread::block_idx_x() as usize * b + thread::thread_idx_x() as usize, thread::grid_dim_x() as usize * b)
}

/// (x / d, x % d), in 32-bit arithmetic when both fit (a 64-bit division is a long subroutine
/// on the GPU).
#[inline(always)]
fn divmod(x: usize, d: usize) -> (usize, usize) {
    if (x | d) <= u32::MAX as usize {
        let (x, d) = (x as u32, d as u32);
        ((x / d) as usize, (x % d) as usize)
    } else {
        (x / d, x % d)
    }
}

/// The variables of slot `slot`: the range into `vars`.
#[inline(always)]
unsafe fn set_range(a: &GomArgs, slot: usize) -> (usize, usize) {
    unsafe { (*at::<u32>(a.var_offsets, slot) as usize, *at::<u32>(a.var_offsets, slot + 1) as usize) }
}

/// Calls `f::<1>(i, j)` on one lane, `f::<32>(i, j)` with a whole warp, or `f::<BLOCK>(i, j)`
/// with a whole block, for every (solution, slot-in-group) pair of the group, grid-stride, by the
/// slot's crew (see [`crate::gom::crew`]): warp collectives inside `f::<32>` see the whole warp,
/// block barriers inside `f::<BLOCK>` the whole block. (Rust closures cannot be generic, hence
/// three arguments, which must be the same function.)
#[inline(always)]
fn for_each_pair(
    a: &GomArgs,
    g: &Group,
    mut by_lane: impl FnMut(usize, usize),
    mut by_warp: impl FnMut(usize, usize),
    mut by_block: impl FnMut(usize, usize),
) {
    let n = a.n as usize;
    let (mut t, stride) = threads();
    while t < n * g.alone {
        let (i, j) = divmod(t, g.alone);
        by_lane(i, j);
        t += stride;
    }
    let warped = g.warped - g.alone;
    let (mut w, stride) = warps();
    while w < n * warped {
        let (i, j) = divmod(w, warped);
        by_warp(i, g.alone + j);
        w += stride;
    }
    let blocked = g.slots - g.warped;
    let mut b = thread::block_idx_x() as usize;
    while b < n * blocked {
        let (i, j) = divmod(b, blocked);
        by_block(i, g.warped + j);
        b += thread::grid_dim_x() as usize;
    }
}

/// Calls `f(i, k)` for every (solution, k in 0..per_solution) element this thread owns.
#[inline(always)]
fn for_each_element(a: &GomArgs, per_solution: usize, mut f: impl FnMut(usize, usize)) {
    let (mut t, stride) = threads();
    while t < a.n as usize * per_solution {
        let (i, k) = divmod(t, per_solution);
        f(i, k);
        t += stride;
    }
}

/// The crew parameter `W` of the per-pair steps for a whole block (1 is a lane alone, 32 a warp).
const BLOCK: u32 = 0;

/// This thread's index among the threads of the crew that works on one pair.
#[inline(always)]
fn member<const W: u32>() -> usize {
    match W {
        1 => 0,
        BLOCK => thread::thread_idx_x() as usize,
        _ => lane_id() as usize,
    }
}

/// The number of threads of the crew.
#[inline(always)]
fn crew_size<const W: u32>() -> usize {
    if W == BLOCK { thread::block_dim_x() as usize } else { W as usize }
}

/// The sum of `x` over the crew of a pair.
#[inline(always)]
unsafe fn crew_sum<const W: u32>(x: i64) -> i64 {
    unsafe {
        match W {
            1 => x,
            BLOCK => block_sum(x),
            _ => warp_sum_i64(x),
        }
    }
}

/// The sum of `x` over the block, on every thread (all threads of the block must call it).
#[inline(always)]
unsafe fn block_sum(x: i64) -> i64 {
    let sums: *mut i64 = static_shared_array!(pgomea_gom_block_sums: i64; 33);
    unsafe {
        let part = warp_sum_i64(x);
        if lane_id() == 0 {
            *sums.add(warp_id() as usize) = part;
        }
        thread::sync_threads();
        if warp_id() == 0 {
            let lane = lane_id();
            let part = if lane < thread::block_dim_x() / WARP_SIZE { *sums.add(lane as usize) } else { 0 };
            let total = warp_sum_i64(part);
            if lane == 0 {
                *sums.add(32) = total;
            }
        }
        thread::sync_threads();
        let total = *sums.add(32);
        // The slots are reused by the next call.
        thread::sync_threads();
        total
    }
}

/// Loads issued together by one lane in the loops over a set or a segment: a large set worked on
/// by a warp is a long loop per lane, and one load in flight per iteration would leave it waiting
/// on memory latency every time.
const UNROLL: usize = 4;

/// Copies the genes of the variables of slot `slot` from `from` to `to` (rows of l genes), this
/// thread's share of them (the crew strides by its size).
#[inline(always)]
unsafe fn copy_set<const W: u32>(a: &GomArgs, slot: usize, from: *const u8, to: *mut u8) {
    unsafe {
        let (v0, v1) = set_range(a, slot);
        let w = crew_size::<W>();
        let var = |t: usize| *at::<u32>(a.vars, t) as usize;
        let mut t = v0 + member::<W>();
        while t + (UNROLL - 1) * w < v1 {
            let x: [usize; UNROLL] = core::array::from_fn(|u| var(t + u * w));
            let genes: [u8; UNROLL] = core::array::from_fn(|u| *from.add(x[u]));
            for u in 0..UNROLL {
                *to.add(x[u]) = genes[u];
            }
            t += UNROLL * w;
        }
        while t < v1 {
            let x = var(t);
            *to.add(x) = *from.add(x);
            t += w;
        }
    }
}

/// Whether rows `p` and `o` differ on this lane's share of the variables `vars[from..to]`, taken
/// every `by`-th.
#[inline(always)]
unsafe fn differs_on(a: &GomArgs, p: *const u8, o: *const u8, from: usize, to: usize, by: usize) -> bool {
    unsafe {
        let var = |t: usize| *at::<u32>(a.vars, t) as usize;
        let mut t = from;
        while t + (UNROLL - 1) * by < to {
            let x: [usize; UNROLL] = core::array::from_fn(|u| var(t + u * by));
            if (0..UNROLL).any(|u| *p.add(x[u]) != *o.add(x[u])) {
                return true;
            }
            t += UNROLL * by;
        }
        while t < to {
            let x = var(t);
            if *p.add(x) != *o.add(x) {
                return true;
            }
            t += by;
        }
        false
    }
}

// The per-pair and per-element steps of the six stages. The stage kernels below run each over
// a whole group; the whole-generation kernel runs them all, for every group, in one launch.

/// Stage 1 for pair (i, slot) (all W lanes get the answer): the first candidate in the
/// counter-drawn [`DonorOrder`] other than i whose genes on the set differ from O[i], or NO_DONOR.
/// A lane alone, or a block, walks the candidates one by one. A warp splits into teams of `width` lanes (the
/// set's size rounded up to a power of two, at most 32); each team tests one candidate per round,
/// its lanes striding over the set, and a ballot finds the first differing candidate in order.
#[inline(always)]
unsafe fn select_donor<const W: u32>(a: &GomArgs, g: &Group, i: usize, slot: usize) -> i32 {
    let l = a.l as usize;
    unsafe {
        let set = *at::<u32>(a.slot_set, slot);
        let order = DonorOrder::new(a.seed, g.generation, g.group, i as u32, set, a.n);
        let o = at::<u8>(a.offspring, i * l);
        let (v0, v1) = set_range(a, slot);
        let differs = |d: usize, from: usize, by: usize| differs_on(a, at::<u8>(a.parents, d * l), o, from, v1, by);
        if W == 1 || W == BLOCK {
            // One candidate at a time, in order; a block's threads stride over the set.
            let mut c = order.start;
            for _ in 0..a.n {
                let hit = c as usize != i && differs(c as usize, v0 + member::<W>(), crew_size::<W>());
                let any = if W == BLOCK { thread::sync_threads_or(hit) } else { hit };
                if any {
                    return c as i32;
                }
                c = order.advance(c, order.step);
            }
            return NO_DONOR;
        }
        let width = ((v1 - v0) as u32).clamp(1, WARP_SIZE).next_power_of_two();
        let (team, teams) = (lane_id() / width, WARP_SIZE / width);
        let jump = order.jump(teams);
        let mut c = order.candidate(team);
        let mut first = 0u32;
        while first < a.n {
            let hit = first + team < a.n && c as usize != i && differs(c as usize, v0 + (lane_id() % width) as usize, width as usize);
            let ballot = vote_ballot_sync(FULL_MASK, hit);
            if ballot != 0 {
                return order.candidate(first + ballot.trailing_zeros() / width) as i32;
            }
            first += teams;
            c = order.advance(c, jump);
        }
        NO_DONOR
    }
}

/// Stage 2 for pair (i, slot): donor d's genes on the set go into O'[i].
#[inline(always)]
unsafe fn insert_donor_genes<const W: u32>(a: &GomArgs, i: usize, slot: usize, d: i32) {
    let l = a.l as usize;
    unsafe {
        copy_set::<W>(a, slot, at::<u8>(a.parents, d as usize * l), at::<u8>(a.work, i * l));
    }
}

/// Stage 3 for element (i, k): the change of the group's k-th dependent edge between O[i] and
/// O'[i], into diff.
#[inline(always)]
unsafe fn evaluate_dependent(a: &GomArgs, g: &Group, i: usize, k: usize) {
    let l = a.l as usize;
    unsafe {
        let e = *at::<u32>(a.dep_edges, g.dep_begin + k) as usize;
        let (u, v) = (*at::<u32>(a.ends, 2 * e) as usize, *at::<u32>(a.ends, 2 * e + 1) as usize);
        let o = at::<u8>(a.offspring, i * l);
        let o2 = at::<u8>(a.work, i * l);
        *at::<i64>(a.diff, i * a.row_deps as usize + k) = edge_delta(*o.add(u), *o.add(v), *o2.add(u), *o2.add(v), *at::<i64>(a.weights, e));
    }
}

/// Stage 4 for pair (i, slot): the sum of the slot's segment of diff (the crew strides over it,
/// then sums across its threads: correct for any segment length).
#[inline(always)]
unsafe fn reduce_segment<const W: u32>(a: &GomArgs, g: &Group, i: usize, slot: usize) -> i64 {
    unsafe {
        let s0 = *at::<u32>(a.dep_offsets, slot) as usize - g.dep_begin;
        let s1 = *at::<u32>(a.dep_offsets, slot + 1) as usize - g.dep_begin;
        let row = at::<i64>(a.diff, i * a.row_deps as usize);
        let w = crew_size::<W>();
        let mut sums = [0i64; UNROLL];
        let mut t = s0 + member::<W>();
        while t + (UNROLL - 1) * w < s1 {
            for (u, sum) in sums.iter_mut().enumerate() {
                *sum += *row.add(t + u * w);
            }
            t += UNROLL * w;
        }
        while t < s1 {
            sums[0] += *row.add(t);
            t += w;
        }
        crew_sum::<W>(sums.iter().sum())
    }
}

/// Stage 5 for element e = (i, j): the acceptance rule on the pair's delta and donor.
#[inline(always)]
unsafe fn improvement(a: &GomArgs, i: usize, e: usize, delta: i64) -> bool {
    unsafe { accept(delta, *at::<i32>(a.donors, e) != NO_DONOR, *at::<u8>(a.is_elitist, i) != 0) }
}

/// Stage 6 for pair (i, slot): an accepted set goes from O'[i] into O[i] (one lane adds its delta
/// to the fitness; sets of one group never share a variable, and integer addition is exact in any
/// order), a rejected one is restored in O'[i] from O[i].
#[inline(always)]
unsafe fn reset_insert<const W: u32>(a: &GomArgs, i: usize, slot: usize, accepted: bool, delta: i64) {
    let l = a.l as usize;
    unsafe {
        let o = at::<u8>(a.offspring, i * l);
        let o2 = at::<u8>(a.work, i * l);
        let (from, to) = if accepted { (o2, o) } else { (o, o2) };
        copy_set::<W>(a, slot, from, to);
        if accepted && member::<W>() == 0 {
            atomic::atomic_add_i64(at::<i64>(a.fitness, i), delta);
        }
    }
}

/// Stage 1 (and, with `insert`, stage 2) for pair (i, j): the donor into `donors`.
#[inline(always)]
unsafe fn donor_step<const W: u32>(a: &GomArgs, g: &Group, i: usize, j: usize, insert: bool) {
    unsafe {
        let slot = g.slot_begin + j;
        let donor = select_donor::<W>(a, g, i, slot);
        if member::<W>() == 0 {
            *at::<i32>(a.donors, i * a.row_slots as usize + j) = donor;
        }
        if insert && donor != NO_DONOR {
            insert_donor_genes::<W>(a, i, slot, donor);
        }
    }
}

/// Stage 2 for pair (i, j), from the donor in `donors`.
#[inline(always)]
unsafe fn insertion_step<const W: u32>(a: &GomArgs, g: &Group, i: usize, j: usize) {
    unsafe {
        let d = *at::<i32>(a.donors, i * a.row_slots as usize + j);
        if d != NO_DONOR {
            insert_donor_genes::<W>(a, i, g.slot_begin + j, d);
        }
    }
}

/// Stage 4 for pair (i, j): the sum into `delta`.
#[inline(always)]
unsafe fn reduce_step<const W: u32>(a: &GomArgs, g: &Group, i: usize, j: usize) {
    unsafe {
        let sum = reduce_segment::<W>(a, g, i, g.slot_begin + j);
        if member::<W>() == 0 {
            *at::<i64>(a.delta, i * a.row_slots as usize + j) = sum;
        }
    }
}

/// Stage 6 for pair (i, j), from `mask` and `delta`.
#[inline(always)]
unsafe fn reset_insert_step<const W: u32>(a: &GomArgs, g: &Group, i: usize, j: usize) {
    unsafe {
        let e = i * a.row_slots as usize + j;
        reset_insert::<W>(a, i, g.slot_begin + j, *at::<u8>(a.mask, e) != 0, *at::<i64>(a.delta, e));
    }
}

/// Stages 4, 5 and 6 for pair (i, j): sum, rule, reset or insert; `delta` and `mask` written as
/// the stage kernels write them. `donors` must be visible (written before a grid barrier).
#[inline(always)]
unsafe fn finish_step<const W: u32>(a: &GomArgs, g: &Group, i: usize, j: usize) {
    unsafe {
        let e = i * a.row_slots as usize + j;
        let delta = reduce_segment::<W>(a, g, i, g.slot_begin + j);
        let accepted = improvement(a, i, e, delta);
        if member::<W>() == 0 {
            *at::<i64>(a.delta, e) = delta;
            *at::<u8>(a.mask, e) = accepted as u8;
        }
        reset_insert::<W>(a, i, g.slot_begin + j, accepted, delta);
    }
}

/// Stage 1, donor selection (see [`select_donor`]).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_donor_selection(a: GomArgs) {
    unsafe {
        let g = group(&a, a.step);
        for_each_pair(&a, &g, |i, j| donor_step::<1>(&a, &g, i, j, false), |i, j| donor_step::<32>(&a, &g, i, j, false), |i, j| donor_step::<BLOCK>(&a, &g, i, j, false));
    }
}

/// Stage 2, donor-gene insertion.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_donor_insertion(a: GomArgs) {
    unsafe {
        let g = group(&a, a.step);
        for_each_pair(&a, &g, |i, j| insertion_step::<1>(&a, &g, i, j), |i, j| insertion_step::<32>(&a, &g, i, j), |i, j| insertion_step::<BLOCK>(&a, &g, i, j));
    }
}

/// Stage 3, subfunction evaluation: one thread per (solution, dependent entry).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_subfunction_evaluation(a: GomArgs) {
    unsafe {
        let g = group(&a, a.step);
        for_each_element(&a, g.deps, |i, k| evaluate_dependent(&a, &g, i, k));
    }
}

/// Stage 4, segmented reduce-by-key.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_reduce_by_key(a: GomArgs) {
    unsafe {
        let g = group(&a, a.step);
        for_each_pair(&a, &g, |i, j| reduce_step::<1>(&a, &g, i, j), |i, j| reduce_step::<32>(&a, &g, i, j), |i, j| reduce_step::<BLOCK>(&a, &g, i, j));
    }
}

/// Stage 5, improvement mask: one thread per (solution, slot).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_improvement_mask(a: GomArgs) {
    unsafe {
        let g = group(&a, a.step);
        for_each_element(&a, g.slots, |i, j| {
            let e = i * a.row_slots as usize + j;
            *at::<u8>(a.mask, e) = improvement(&a, i, e, *at::<i64>(a.delta, e)) as u8;
        });
    }
}

/// Stage 6, reset and insert.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_reset_insert(a: GomArgs) {
    unsafe {
        let g = group(&a, a.step);
        for_each_pair(&a, &g, |i, j| reset_insert_step::<1>(&a, &g, i, j), |i, j| reset_insert_step::<32>(&a, &g, i, j), |i, j| reset_insert_step::<BLOCK>(&a, &g, i, j));
    }
}

/// A whole generation, every group of the schedule in order, in one cooperative launch: the six
/// stages as above, with a grid barrier wherever a stage reads what other lanes wrote. Stages 1
/// and 2 share a pass (the lanes that select a pair's donor insert its genes), and so do stages
/// 4, 5 and 6 (the lanes that sum a pair's segment apply the rule and reset or insert), so a group
/// costs three barriers instead of six kernel launches. Every buffer ends as after the six stage
/// kernels. (Doing a small slot's pair from start to end on one lane, without the barriers, was
/// measured slower: one lane then walks a long chain of dependent loads.)
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_generation(a: GomArgs) {
    unsafe {
        let mut barrier = GridBarrier::new(a.barrier as *mut u32);
        for step in 0..a.groups {
            let g = group(&a, step);
            for_each_pair(&a, &g, |i, j| donor_step::<1>(&a, &g, i, j, true), |i, j| donor_step::<32>(&a, &g, i, j, true), |i, j| donor_step::<BLOCK>(&a, &g, i, j, true));
            barrier.sync();
            for_each_element(&a, g.deps, |i, k| evaluate_dependent(&a, &g, i, k));
            barrier.sync();
            for_each_pair(&a, &g, |i, j| finish_step::<1>(&a, &g, i, j), |i, j| finish_step::<32>(&a, &g, i, j), |i, j| finish_step::<BLOCK>(&a, &g, i, j));
            barrier.sync();
        }
    }
}

/// Marks is_elitist[i] = 1 where P[i] equals the reference genotype: one warp per solution.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_equal_to_reference(a: GomArgs) {
    let l = a.l as usize;
    let (mut i, stride) = warps();
    unsafe {
        while i < a.n as usize {
            let p = at::<u8>(a.parents, i * l);
            let r = at::<u8>(a.reference, 0);
            let mut differs = false;
            let mut v = lane_id() as usize;
            while v < l {
                differs |= *p.add(v) != *r.add(v);
                v += WARP_SIZE as usize;
            }
            let differs = vote_any_sync(FULL_MASK, differs);
            if lane_id() == 0 {
                *at::<u8>(a.is_elitist, i) = !differs as u8;
            }
            i += stride;
        }
    }
}
