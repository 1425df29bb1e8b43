//! The six stage kernels of parallel GOM, and the comparison kernel that marks solutions equal to
//! a reference (the elitist). Each computes exactly the elements of the CPU stage of the same
//! name in the host's `gomea::parallel::stages`, with the same pure functions of [`crate::gom`].
//!
//! Launch shapes (the host's `cuda` module): "per pair" kernels give one warp to each
//! (solution, slot) pair of the group, blocks of whole warps; "per element" kernels give one thread
//! to each element. Every kernel takes the whole [`GomArgs`] block by value.

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

/// The global index of this warp.
#[inline(always)]
fn global_warp() -> u64 {
    thread::block_idx_x() as u64 * (thread::block_dim_x() / WARP_SIZE) as u64 + warp_id() as u64
}

/// The global index of this thread.
#[inline(always)]
fn global_thread() -> u64 {
    thread::block_idx_x() as u64 * thread::block_dim_x() as u64 + thread::thread_idx_x() as u64
}

/// The (solution, slot-in-group) pair of the calling warp, or None for warps past the end. The
/// answer is the same for all lanes, so whole warps return together and the warp collectives that
/// follow see all 32 lanes.
#[inline(always)]
fn warp_pair(a: &GomArgs) -> Option<(usize, usize)> {
    let w = global_warp();
    let pairs = a.n as u64 * a.slots as u64;
    if w >= pairs {
        return None;
    }
    Some(((w / a.slots as u64) as usize, (w % a.slots as u64) as usize))
}

/// The variables of slot `slot`: the range into `vars`.
#[inline(always)]
unsafe fn set_range(a: &GomArgs, slot: usize) -> (usize, usize) {
    unsafe { (*at::<u32>(a.var_offsets, slot) as usize, *at::<u32>(a.var_offsets, slot + 1) as usize) }
}

/// Stage 1, donor selection: one warp per (solution, slot). The candidates are visited in the
/// counter-drawn [`DonorOrder`]; the lanes compare the candidate with O[i] on the set, and a vote
/// decides whether it differs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_donor_selection(a: GomArgs) {
    let Some((i, j)) = warp_pair(&a) else { return };
    let l = a.l as usize;
    let slot = a.slot_begin as usize + j;
    unsafe {
        let (v0, v1) = set_range(&a, slot);
        let set = *at::<u32>(a.slot_set, slot);
        let order = DonorOrder::new(a.seed, a.generation, a.group, i as u32, set, a.n);
        let o = at::<u8>(a.offspring, i * l);
        let mut donor = NO_DONOR;
        for k in 0..a.n {
            let d = order.candidate(k) as usize;
            if d == i {
                continue;
            }
            let p = at::<u8>(a.parents, d * l);
            let mut differs = false;
            let mut t = v0 + lane_id() as usize;
            while t < v1 {
                let v = *at::<u32>(a.vars, t) as usize;
                differs |= *p.add(v) != *o.add(v);
                t += WARP_SIZE as usize;
            }
            if vote_any_sync(FULL_MASK, differs) {
                donor = d as i32;
                break;
            }
        }
        if lane_id() == 0 {
            *at::<i32>(a.donors, i * a.row_slots as usize + j) = donor;
        }
    }
}

/// Stage 2, donor-gene insertion: one warp per (solution, slot) copies the donor's genes on the
/// set into O'[i].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_donor_insertion(a: GomArgs) {
    let Some((i, j)) = warp_pair(&a) else { return };
    let l = a.l as usize;
    unsafe {
        let d = *at::<i32>(a.donors, i * a.row_slots as usize + j);
        if d == NO_DONOR {
            return;
        }
        let (v0, v1) = set_range(&a, a.slot_begin as usize + j);
        let p = at::<u8>(a.parents, d as usize * l);
        let w = at::<u8>(a.work, i * l);
        let mut t = v0 + lane_id() as usize;
        while t < v1 {
            let v = *at::<u32>(a.vars, t) as usize;
            *w.add(v) = *p.add(v);
            t += WARP_SIZE as usize;
        }
    }
}

/// Stage 3, subfunction evaluation: one thread per (solution, dependent entry) writes the change
/// of that edge between O[i] and O'[i].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_subfunction_evaluation(a: GomArgs) {
    let t = global_thread();
    if t >= a.n as u64 * a.deps as u64 {
        return;
    }
    let (i, k) = ((t / a.deps as u64) as usize, (t % a.deps as u64) as usize);
    let l = a.l as usize;
    unsafe {
        let e = *at::<u32>(a.dep_edges, a.dep_begin as usize + k) as usize;
        let (u, v) = (*at::<u32>(a.ends, 2 * e) as usize, *at::<u32>(a.ends, 2 * e + 1) as usize);
        let o = at::<u8>(a.offspring, i * l);
        let w = at::<u8>(a.work, i * l);
        *at::<i64>(a.diff, i * a.row_deps as usize + k) = edge_delta(*o.add(u), *o.add(v), *w.add(u), *w.add(v), *at::<i64>(a.weights, e));
    }
}

/// Stage 4, segmented reduce-by-key: one warp per (solution, slot) sums the slot's segment of the
/// differences, striding by 32, then reduces across the warp: correct for any segment length.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_reduce_by_key(a: GomArgs) {
    let Some((i, j)) = warp_pair(&a) else { return };
    unsafe {
        let slot = a.slot_begin as usize + j;
        let base = *at::<u32>(a.dep_offsets, a.slot_begin as usize) as usize;
        let s0 = *at::<u32>(a.dep_offsets, slot) as usize - base;
        let s1 = *at::<u32>(a.dep_offsets, slot + 1) as usize - base;
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
    }
}

/// Stage 5, improvement mask: one thread per (solution, slot) applies the acceptance rule.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_improvement_mask(a: GomArgs) {
    let t = global_thread();
    if t >= a.n as u64 * a.slots as u64 {
        return;
    }
    let (i, j) = ((t / a.slots as u64) as usize, (t % a.slots as u64) as usize);
    let e = i * a.row_slots as usize + j;
    unsafe {
        let ok = accept(*at::<i64>(a.delta, e), *at::<i32>(a.donors, e) != NO_DONOR, *at::<u8>(a.is_elitist, i) != 0);
        *at::<u8>(a.mask, e) = ok as u8;
    }
}

/// Stage 6, reset and insert: one warp per (solution, slot) copies an accepted set from O'[i]
/// into O[i] (lane 0 adds its delta to the fitness; sets of one group never share a variable, and
/// integer addition is exact in any order) or restores a rejected one in O'[i] from O[i].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_reset_insert(a: GomArgs) {
    let Some((i, j)) = warp_pair(&a) else { return };
    let l = a.l as usize;
    unsafe {
        let e = i * a.row_slots as usize + j;
        let accepted = *at::<u8>(a.mask, e) != 0;
        let (v0, v1) = set_range(&a, a.slot_begin as usize + j);
        let o = at::<u8>(a.offspring, i * l);
        let w = at::<u8>(a.work, i * l);
        let (from, to) = if accepted { (w, o) } else { (o, w) };
        let mut t = v0 + lane_id() as usize;
        while t < v1 {
            let v = *at::<u32>(a.vars, t) as usize;
            *to.add(v) = *from.add(v);
            t += WARP_SIZE as usize;
        }
        if accepted && lane_id() == 0 {
            atomic::atomic_add_i64(at::<i64>(a.fitness, i), *at::<i64>(a.delta, e));
        }
    }
}

/// Marks is_elitist[i] = 1 where P[i] equals the reference genotype: one warp per solution.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_equal_to_reference(a: GomArgs) {
    let i = global_warp();
    if i >= a.n as u64 {
        return;
    }
    let (i, l) = (i as usize, a.l as usize);
    unsafe {
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
    }
}
