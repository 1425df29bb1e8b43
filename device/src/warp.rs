//! Warp-level primitives, named like rust-cuda's `cuda_std::warp`: lane id, the butterfly
//! shuffle, votes, the warp barrier and the warp sum (what the crews use; nothing else is kept).
//!
//! They call the LLVM NVVM intrinsics (`llvm.nvvm.shfl.sync.*`, `llvm.nvvm.vote.*.sync`) rather
//! than `asm!`: LLVM knows the intrinsics are *convergent* (it never moves them into or out of
//! control flow), which it does not know of inline assembly. All wrappers are `#[inline(always)]`
//! so that the convergent call lands in the kernel itself.
//!
//! # Safety of the collective operations
//!
//! A `*_sync` operation with `mask` must be reached, together, by every lane named in `mask`
//! (the PTX rule for `shfl.sync` / `vote.sync`); the `warp_*` reductions use [`FULL_MASK`], so all
//! 32 lanes of the warp must call them: launch blocks whose size is a multiple of 32 and keep the
//! call out of lane-dependent branches. Breaking this is undefined behaviour in PTX, hence `unsafe`.

/// Lanes in a warp.
pub const WARP_SIZE: u32 = 32;

/// Mask naming all 32 lanes.
pub const FULL_MASK: u32 = u32::MAX;

/// `c` operand of shfl.sync for a full-width warp: clamp to lane 31, no segments (as CUDA's
/// `__shfl_*_sync` with width 32).
const CLAMP: u32 = 0x1f;

// ANCHOR: nvvm_intrinsics
#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
    fn nvvm_laneid() -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn nvvm_shfl_bfly(mask: u32, value: i32, lane_mask: u32, clamp: u32) -> i32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn nvvm_vote_ballot(mask: u32, predicate: bool) -> u32;
    #[link_name = "llvm.nvvm.vote.any.sync"]
    fn nvvm_vote_any(mask: u32, predicate: bool) -> bool;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn nvvm_bar_warp_sync(mask: u32);
}
// ANCHOR_END: nvvm_intrinsics

/// Index of this thread in its warp, 0..32 (`%laneid`).
#[inline(always)]
pub fn lane_id() -> u32 {
    // SAFETY: reads a special register; no preconditions.
    unsafe { nvvm_laneid() }
}

/// Index of this thread's warp in its block (`threadIdx.x / 32`).
#[inline(always)]
pub fn warp_id() -> u32 {
    crate::thread::thread_idx_x() / WARP_SIZE
}

/// `__shfl_xor_sync(mask, value, lane_mask)` (PTX `shfl.sync.bfly`): the value of lane
/// `lane_id() ^ lane_mask`.
///
/// # Safety
///
/// See the module documentation: every lane in `mask` must execute this call.
#[inline(always)]
pub unsafe fn shfl_bfly_sync_i32(mask: u32, value: i32, lane_mask: u32) -> i32 {
    // SAFETY: convergence of the lanes in `mask` is the caller's precondition.
    unsafe { nvvm_shfl_bfly(mask, value, lane_mask, CLAMP) }
}

#[inline(always)]
fn split(v: i64) -> (i32, i32) {
    (v as i32, (v >> 32) as i32)
}

#[inline(always)]
fn join(lo: i32, hi: i32) -> i64 {
    ((hi as i64) << 32) | (lo as u32 as i64)
}

/// [`shfl_bfly_sync_i32`] for 64-bit values (two 32-bit shuffles).
///
/// # Safety
///
/// See the module documentation: every lane in `mask` must execute this call.
#[inline(always)]
pub unsafe fn shfl_bfly_sync_i64(mask: u32, value: i64, lane_mask: u32) -> i64 {
    let (lo, hi) = split(value);
    // SAFETY: convergence of the lanes in `mask` is the caller's precondition.
    unsafe { join(shfl_bfly_sync_i32(mask, lo, lane_mask), shfl_bfly_sync_i32(mask, hi, lane_mask)) }
}

// ANCHOR: vote_ballot
/// `__ballot_sync(mask, predicate)`: bit i set where lane i (in `mask`) has `predicate` true.
///
/// # Safety
///
/// See the module documentation: every lane in `mask` must execute this call.
#[inline(always)]
pub unsafe fn vote_ballot_sync(mask: u32, predicate: bool) -> u32 {
    // SAFETY: convergence of the lanes in `mask` is the caller's precondition.
    unsafe { nvvm_vote_ballot(mask, predicate) }
}
// ANCHOR_END: vote_ballot

/// `__any_sync(mask, predicate)`: whether `predicate` holds on any lane in `mask`.
///
/// # Safety
///
/// See the module documentation: every lane in `mask` must execute this call.
#[inline(always)]
pub unsafe fn vote_any_sync(mask: u32, predicate: bool) -> bool {
    // SAFETY: convergence of the lanes in `mask` is the caller's precondition.
    unsafe { nvvm_vote_any(mask, predicate) }
}

/// `__syncwarp(mask)` (PTX `bar.warp.sync`): waits for every lane in `mask`, and orders memory
/// among them: what a lane wrote before it, every lane in `mask` reads after it.
///
/// # Safety
///
/// See the module documentation: every lane in `mask` must execute this call.
#[inline(always)]
pub unsafe fn sync_warp(mask: u32) {
    // SAFETY: convergence of the lanes in `mask` is the caller's precondition.
    unsafe { nvvm_bar_warp_sync(mask) }
}

/// Butterfly reduction of `value` over the 32 lanes with `op` (which must be associative and
/// commutative); every lane gets the result.
///
/// # Safety
///
/// All 32 lanes of the warp must call it together (see the module documentation).
#[inline(always)]
pub unsafe fn warp_reduce_i64(mut value: i64, op: impl Fn(i64, i64) -> i64) -> i64 {
    let mut lane_mask = WARP_SIZE / 2;
    while lane_mask > 0 {
        // SAFETY: all 32 lanes take part, the caller's precondition.
        value = op(value, unsafe { shfl_bfly_sync_i64(FULL_MASK, value, lane_mask) });
        lane_mask /= 2;
    }
    value
}

/// Sum (wrapping) of `value` over the 32 lanes; every lane gets the result.
///
/// # Safety
///
/// All 32 lanes of the warp must call it together (see the module documentation).
#[inline(always)]
pub unsafe fn warp_sum_i64(value: i64) -> i64 {
    // SAFETY: forwarded precondition.
    unsafe { warp_reduce_i64(value, i64::wrapping_add) }
}
