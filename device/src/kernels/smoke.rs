//! Smoke-test kernels: the host self-test launches them to check that the PTX module loads and
//! that indices, warp shuffles, atomics, shared memory and barriers work on the GPU at hand.
//!
//! | kernel | launch | result |
//! |---|---|---|
//! | `pgomea_smoke_iota(out: *mut u32, n: u32)` | any grid | `out[i] = 3 i + 1` for `i < n` |
//! | `pgomea_smoke_warp_sum(input: *const i64, n: u32, out: *mut i64)` | block size a multiple of 32 | `*out += sum(input[..n])` |
//! | `pgomea_smoke_block_sum(input: *const i64, n: u32, out: *mut i64)` | block size a multiple of 32 | `*out += sum(input[..n])` |
//! | `pgomea_smoke_reverse(input: *const u32, n: u32, out: *mut u32)` | dynamic shared memory `4 * blockDim.x` bytes | each block's chunk of `blockDim.x` elements reversed (`n` a multiple of `blockDim.x`) |
//!
//! | `pgomea_smoke_warp_ops(input: *const i64, out: *mut i64)` | one block of 32 threads | see the kernel |
//!
//! The sums wrap on overflow; `*out` must be zeroed before the launch.

use crate::{atomic, shared, static_shared_array, thread, warp};
use warp::FULL_MASK;

/// `out[i] = 3 i + 1` for every `i < n`.
///
/// # Safety
///
/// `out` points to `n` writable `u32` in device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_smoke_iota(out: *mut u32, n: u32) {
    let i = thread::index_1d();
    if i < n {
        // SAFETY: i < n and `out` holds n elements.
        unsafe { out.add(i as usize).write(i.wrapping_mul(3).wrapping_add(1)) };
    }
}

/// This thread's share of `sum(input[..n])` in a grid-stride loop.
#[inline(always)]
unsafe fn thread_sum(input: *const i64, n: u32) -> i64 {
    let mut acc = 0i64;
    let mut i = thread::index_1d() as u64;
    while i < n as u64 {
        // SAFETY: i < n and `input` holds n elements (the caller's precondition).
        acc = acc.wrapping_add(unsafe { input.add(i as usize).read() });
        i += thread::grid_stride() as u64;
    }
    acc
}

/// `*out += sum(input[..n])`: a warp reduction per warp, one atomic add per warp.
///
/// # Safety
///
/// `input` points to `n` readable `i64`, `out` to one `i64`, in device memory; the block size is
/// a multiple of 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_smoke_warp_sum(input: *const i64, n: u32, out: *mut i64) {
    // SAFETY: the launch precondition above; every lane of every (full) warp reaches the
    // reduction, the grid-stride loop being the only branch before it.
    unsafe {
        let sum = warp::warp_sum_i64(thread_sum(input, n));
        if warp::lane_id() == 0 {
            atomic::atomic_add_i64(out, sum);
        }
    }
}

/// `*out += sum(input[..n])`: warp reductions, the warps' sums through a static shared-memory
/// array, a block barrier, a second warp reduction and one atomic add per block.
///
/// # Safety
///
/// As [`pgomea_smoke_warp_sum`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_smoke_block_sum(input: *const i64, n: u32, out: *mut i64) {
    let warp_sums: *mut i64 = static_shared_array!(pgomea_smoke_block_sum_warps: i64; 32);
    let warps = thread::block_dim_x() / warp::WARP_SIZE;
    // SAFETY: the launch precondition; the reductions and barriers are reached by whole warps /
    // the whole block (the branches around them are warp- or block-uniform); warp_sums has 32
    // slots and a block has at most 32 warps.
    unsafe {
        let sum = warp::warp_sum_i64(thread_sum(input, n));
        if warp::lane_id() == 0 {
            warp_sums.add(warp::warp_id() as usize).write(sum);
        }
        thread::sync_threads();
        if warp::warp_id() == 0 {
            let lane = warp::lane_id();
            let part = if lane < warps {
                warp_sums.add(lane as usize).read()
            } else {
                0
            };
            let total = warp::warp_sum_i64(part);
            if lane == 0 {
                atomic::atomic_add_i64(out, total);
            }
        }
    }
}

/// Reverses each block's chunk of `blockDim.x` elements through dynamic shared memory:
/// `out[b * d + t] = input[b * d + d - 1 - t]` with `d = blockDim.x`, for the chunks inside `n`.
///
/// # Safety
///
/// `input` and `out` point to `n` `u32` in device memory, `n` is a multiple of `blockDim.x`, and
/// the launch gives `4 * blockDim.x` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_smoke_reverse(input: *const u32, n: u32, out: *mut u32) {
    let buffer: *mut u32 = shared::dynamic_shared_mem();
    let d = thread::block_dim_x();
    let t = thread::thread_idx_x();
    let base = thread::block_idx_x() as u64 * d as u64;
    if base + d as u64 > n as u64 {
        return; // block-uniform: the whole block leaves
    }
    // SAFETY: base + d <= n; the buffer holds d elements (launch precondition); the barrier is
    // reached by the whole block.
    unsafe {
        buffer
            .add(t as usize)
            .write(input.add((base + t as u64) as usize).read());
        thread::sync_threads();
        out.add((base + t as u64) as usize)
            .write(buffer.add((d - 1 - t) as usize).read());
    }
}

/// The rest of the warp and atomic helpers, on one warp. With `x = input[lane]` (32 values) and
/// `out` 72 zeroed `i64`:
/// - `out[lane] = x[min(lane + 1, 31)]` (shuffle down by 1),
/// - `out[32 + lane] = x[31 - lane]` (shuffle xor 31),
/// - `out[64] = ballot(x > 0)` as a u32 bit mask, `out[65] = any(x < 0)`, `out[66] = all(x != 0)`,
/// - `out[67] = max(x)` (warp reduction, then broadcast from lane 5 by index shuffle),
/// - `out[68] = active mask` (0xffff_ffff), `out[69] = max(x)` by `atomicMax`,
/// - `out[70] = 32` (atomicAdd u32 on the low half, then atomicAdd u64 of 0),
/// - `out[71] = 1`: one lane of 32 wins a compare-and-swap of the low half from 0 to 1.
///
/// # Safety
///
/// `input` points to 32 `i64`, `out` to 72 zeroed `i64`, in device memory; one block of 32
/// threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_smoke_warp_ops(input: *const i64, out: *mut i64) {
    let lane = warp::lane_id();
    // SAFETY: the launch precondition; all 32 lanes run every collective below (the only
    // branches are around plain stores and atomics).
    unsafe {
        let x = input.add(lane as usize).read();
        out.add(lane as usize)
            .write(warp::shfl_down_sync_i64(FULL_MASK, x, 1));
        out.add(32 + lane as usize)
            .write(warp::shfl_bfly_sync_i64(FULL_MASK, x, 31));
        let ballot = warp::vote_ballot_sync(FULL_MASK, x > 0);
        let any = warp::vote_any_sync(FULL_MASK, x < 0);
        let all = warp::vote_all_sync(FULL_MASK, x != 0);
        let max = warp::shfl_idx_sync_i64(FULL_MASK, warp::warp_max_i64(x), 5);
        let active = warp::active_mask();
        if lane == 0 {
            out.add(64).write(ballot as i64);
            out.add(65).write(any as i64);
            out.add(66).write(all as i64);
            out.add(67).write(max);
            out.add(68).write(active as i64);
        }
        atomic::atomic_max_i64(out.add(69), x);
        // The low halves of out[70] and out[71] (little-endian) as u32 counters.
        atomic::atomic_add_u32(out.add(70).cast::<u32>(), 1);
        atomic::atomic_add_u64(out.add(70).cast::<u64>(), 0);
        atomic::atomic_cas_u32(out.add(71).cast::<u32>(), 0, 1);
        atomic::fence_device();
    }
}
