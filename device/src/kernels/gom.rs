//! The six stage kernels of parallel GOM, and the comparison kernel that marks solutions equal to
//! a reference (the elitist). Each computes exactly the elements of the CPU stage of the same
//! name in the host's `gomea::parallel::stages`, with the same pure functions of [`crate::gom`].
//!
//! Launch shapes (the host's `cuda` module): "per pair" kernels give one warp at a time to each
//! (solution, slot) pair of the group, "per element" kernels one thread to each element. All loop
//! grid-stride, so any grid covers any group: the host launches one grid size per kernel for every
//! group, which lets a whole generation be captured once as a CUDA graph and replayed. The group
//! and the generation are read from the device-side schedule (see [`GomArgs::schedule`]).

use crate::args::GomArgs;
use crate::gom::{DonorOrder, NO_DONOR, accept, edge_delta};
use crate::warp::{FULL_MASK, WARP_SIZE, lane_id, vote_any_sync, warp_id, warp_sum_i64};
use crate::{atomic, thread};

/// Element `i` of the array at device address `base`.
///
/// SAFETY (callers): `base` is the address of an allocation of at least `i + 1` elements of T;
/// the host sizes every buffer from the same layout the kernels index with.
#[inline(always)]
unsafe fn at<T>(base: u64, i: usize) -> *mut T {
    unsafe { (base as *mut T).add(i) }
}

/// The group of this launch, resolved from the schedule and the layout.
struct Group {
    generation: u32,
    group: u32,
    slot_begin: usize,
    slots: usize,
    dep_begin: usize,
    deps: usize,
}

#[inline(always)]
unsafe fn group(a: &GomArgs) -> Group {
    unsafe {
        let generation = *at::<u32>(a.schedule, 0);
        let group = *at::<u32>(a.schedule, 1 + a.step as usize);
        let s0 = *at::<u32>(a.group_slots, group as usize) as usize;
        let s1 = *at::<u32>(a.group_slots, group as usize + 1) as usize;
        let d0 = *at::<u32>(a.dep_offsets, s0) as usize;
        let d1 = *at::<u32>(a.dep_offsets, s1) as usize;
        Group { generation, group, slot_begin: s0, slots: s1 - s0, dep_begin: d0, deps: d1 - d0 }
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

/// The variables of slot `slot`: the range into `vars`.
#[inline(always)]
unsafe fn set_range(a: &GomArgs, slot: usize) -> (usize, usize) {
    unsafe { (*at::<u32>(a.var_offsets, slot) as usize, *at::<u32>(a.var_offsets, slot + 1) as usize) }
}

/// Calls `f(i, j)` for every (solution, slot-in-group) pair this warp owns, grid-stride. The pair
/// is the same for all lanes, so warp collectives inside `f` always see the whole warp.
#[inline(always)]
fn for_each_pair(a: &GomArgs, g: &Group, mut f: impl FnMut(usize, usize)) {
    let (mut w, stride) = warps();
    while w < a.n as usize * g.slots {
        f(w / g.slots, w % g.slots);
        w += stride;
    }
}

/// Calls `f(i, k)` for every (solution, k in 0..per_solution) element this thread owns.
#[inline(always)]
fn for_each_element(a: &GomArgs, per_solution: usize, mut f: impl FnMut(usize, usize)) {
    let (mut t, stride) = threads();
    while t < a.n as usize * per_solution {
        f(t / per_solution, t % per_solution);
        t += stride;
    }
}

/// Calls `f(v)` for this lane's share of the variables of slot `slot` (lanes stride by 32).
#[inline(always)]
unsafe fn for_lane_vars(a: &GomArgs, slot: usize, mut f: impl FnMut(usize)) {
    unsafe {
        let (v0, v1) = set_range(a, slot);
        let mut t = v0 + lane_id() as usize;
        while t < v1 {
            f(*at::<u32>(a.vars, t) as usize);
            t += WARP_SIZE as usize;
        }
    }
}

/// Stage 1, donor selection: one warp per (solution, slot). The candidates are visited in the
/// counter-drawn [`DonorOrder`]; the lanes compare the candidate with O[i] on the set, and a vote
/// decides whether it differs. The pair index is the same for all lanes, so the vote always sees
/// the whole warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_donor_selection(a: GomArgs) {
    let l = a.l as usize;
    unsafe {
        let g = group(&a);
        for_each_pair(&a, &g, |i, j| {
            let slot = g.slot_begin + j;
            let set = *at::<u32>(a.slot_set, slot);
            let order = DonorOrder::new(a.seed, g.generation, g.group, i as u32, set, a.n);
            let o = at::<u8>(a.offspring, i * l);
            let mut donor = NO_DONOR;
            for k in 0..a.n {
                let d = order.candidate(k) as usize;
                if d == i {
                    continue;
                }
                let p = at::<u8>(a.parents, d * l);
                let mut differs = false;
                for_lane_vars(&a, slot, |v| differs |= *p.add(v) != *o.add(v));
                if vote_any_sync(FULL_MASK, differs) {
                    donor = d as i32;
                    break;
                }
            }
            if lane_id() == 0 {
                *at::<i32>(a.donors, i * a.row_slots as usize + j) = donor;
            }
        });
    }
}

/// Stage 2, donor-gene insertion: one warp per (solution, slot) copies the donor's genes on the
/// set into O'[i].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_donor_insertion(a: GomArgs) {
    let l = a.l as usize;
    unsafe {
        let g = group(&a);
        for_each_pair(&a, &g, |i, j| {
            let d = *at::<i32>(a.donors, i * a.row_slots as usize + j);
            if d != NO_DONOR {
                let p = at::<u8>(a.parents, d as usize * l);
                let o2 = at::<u8>(a.work, i * l);
                for_lane_vars(&a, g.slot_begin + j, |v| *o2.add(v) = *p.add(v));
            }
        });
    }
}

/// Stage 3, subfunction evaluation: one thread per (solution, dependent entry) writes the change
/// of that edge between O[i] and O'[i].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_subfunction_evaluation(a: GomArgs) {
    let l = a.l as usize;
    unsafe {
        let g = group(&a);
        for_each_element(&a, g.deps, |i, k| {
            let e = *at::<u32>(a.dep_edges, g.dep_begin + k) as usize;
            let (u, v) = (*at::<u32>(a.ends, 2 * e) as usize, *at::<u32>(a.ends, 2 * e + 1) as usize);
            let o = at::<u8>(a.offspring, i * l);
            let o2 = at::<u8>(a.work, i * l);
            *at::<i64>(a.diff, i * a.row_deps as usize + k) = edge_delta(*o.add(u), *o.add(v), *o2.add(u), *o2.add(v), *at::<i64>(a.weights, e));
        });
    }
}

/// Stage 4, segmented reduce-by-key: one warp per (solution, slot) sums the slot's segment of the
/// differences, striding by 32, then reduces across the warp: correct for any segment length.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_reduce_by_key(a: GomArgs) {
    unsafe {
        let g = group(&a);
        for_each_pair(&a, &g, |i, j| {
            let slot = g.slot_begin + j;
            let s0 = *at::<u32>(a.dep_offsets, slot) as usize - g.dep_begin;
            let s1 = *at::<u32>(a.dep_offsets, slot + 1) as usize - g.dep_begin;
            let row = at::<i64>(a.diff, i * a.row_deps as usize);
            let mut sum = 0i64;
            let mut t = s0 + lane_id() as usize;
            while t < s1 {
                sum += *row.add(t);
                t += WARP_SIZE as usize;
            }
            let sum = warp_sum_i64(sum);
            if lane_id() == 0 {
                *at::<i64>(a.delta, i * a.row_slots as usize + j) = sum;
            }
        });
    }
}

/// Stage 5, improvement mask: one thread per (solution, slot) applies the acceptance rule.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_improvement_mask(a: GomArgs) {
    unsafe {
        let g = group(&a);
        for_each_element(&a, g.slots, |i, j| {
            let e = i * a.row_slots as usize + j;
            let ok = accept(*at::<i64>(a.delta, e), *at::<i32>(a.donors, e) != NO_DONOR, *at::<u8>(a.is_elitist, i) != 0);
            *at::<u8>(a.mask, e) = ok as u8;
        });
    }
}

/// Stage 6, reset and insert: one warp per (solution, slot) copies an accepted set from O'[i]
/// into O[i] (lane 0 adds its delta to the fitness; sets of one group never share a variable, and
/// integer addition is exact in any order) or restores a rejected one in O'[i] from O[i].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_reset_insert(a: GomArgs) {
    let l = a.l as usize;
    unsafe {
        let g = group(&a);
        for_each_pair(&a, &g, |i, j| {
            let e = i * a.row_slots as usize + j;
            let accepted = *at::<u8>(a.mask, e) != 0;
            let o = at::<u8>(a.offspring, i * l);
            let o2 = at::<u8>(a.work, i * l);
            let (from, to) = if accepted { (o2, o) } else { (o, o2) };
            for_lane_vars(&a, g.slot_begin + j, |v| *to.add(v) = *from.add(v));
            if accepted && lane_id() == 0 {
                atomic::atomic_add_i64(at::<i64>(a.fitness, i), *at::<i64>(a.delta, e));
            }
        });
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
