//! Thread, block and grid indices and the block barrier, named like rust-cuda's `cuda_std::thread`.
//!
//! Only the x dimension: every pgomea kernel is launched with one-dimensional blocks and grids.
//! The index readers are safe: they read PTX special registers (`%tid.x`, `%ctaid.x`, `%ntid.x`,
//! `%nctaid.x`) and have no preconditions; `core::arch::nvptx` merely declares them `unsafe`.
//!
//! On the host (the CPU backend runs the same stage steps) every function here describes a grid
//! of one block of one thread: indices 0, sizes 1, barriers that have nothing to wait for. The
//! [`GridBarrier`] exists on the GPU only.

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx;

/// Index of this thread in its block (`threadIdx.x`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    // SAFETY: reads the special register %tid.x; no preconditions.
    unsafe { nvptx::_thread_idx_x() }
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    0
}

/// Index of this block in the grid (`blockIdx.x`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn block_idx_x() -> u32 {
    // SAFETY: reads the special register %ctaid.x; no preconditions.
    unsafe { nvptx::_block_idx_x() }
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn block_idx_x() -> u32 {
    0
}

/// Threads per block (`blockDim.x`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn block_dim_x() -> u32 {
    // SAFETY: reads the special register %ntid.x; no preconditions.
    unsafe { nvptx::_block_dim_x() }
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn block_dim_x() -> u32 {
    1
}

/// Blocks in the grid (`gridDim.x`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    // SAFETY: reads the special register %nctaid.x; no preconditions.
    unsafe { nvptx::_grid_dim_x() }
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    1
}

/// Global index of this thread: `blockIdx.x * blockDim.x + threadIdx.x` (as `cuda_std`'s
/// `index_1d`). The host keeps `gridDim.x * blockDim.x` below 2^32.
#[inline(always)]
pub fn index_1d() -> u32 {
    block_idx_x() * block_dim_x() + thread_idx_x()
}

/// Number of threads in the grid, `gridDim.x * blockDim.x`: the step of a grid-stride loop.
#[inline(always)]
pub fn grid_stride() -> u32 {
    grid_dim_x() * block_dim_x()
}

// ANCHOR: sync_threads
/// Block-wide barrier, `__syncthreads()` (PTX `bar.sync 0`); also orders shared-memory accesses
/// of the block before and after it.
///
/// # Safety
///
/// Every thread of the block that has not exited must reach this same barrier (it must not sit in
/// code that only some threads of the block run): otherwise the block hangs or its threads mix up
/// different barriers.
#[inline(always)]
pub unsafe fn sync_threads() {
    // SAFETY: the caller guarantees block-uniform control flow (see above).
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        nvptx::_syncthreads()
    }
}
// ANCHOR_END: sync_threads

/// `__syncthreads_or(predicate)`: a block-wide barrier that also tells every thread whether the
/// predicate held on any thread of the block (PTX `bar.red.or`).
///
/// # Safety
///
/// As [`sync_threads`]: every thread of the block must reach it.
#[inline(always)]
pub unsafe fn sync_threads_or(predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: block-uniform control flow is the caller's precondition.
    return unsafe { nvptx_barrier0_or(predicate as i32) != 0 };
    #[cfg(not(target_arch = "nvptx64"))]
    predicate
}

#[cfg(target_arch = "nvptx64")]
#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.barrier0.or"]
    fn nvptx_barrier0_or(predicate: i32) -> i32;
}

/// A barrier for the whole grid (`grid.sync()` of cooperative groups), or for a run of its blocks
/// that work apart from the rest (a team: [`GridBarrier::among`]), over a counter in global memory
/// that the host zeroes before the launch. The kernel must be launched cooperatively
/// (`cuLaunchCooperativeKernel`), which guarantees that all blocks are resident at once;
/// otherwise blocks waiting here could wait for blocks that never start.
#[cfg(target_arch = "nvptx64")]
pub struct GridBarrier {
    /// The counters, and which of them is this barrier's.
    counters: crate::mem::Ptr<u32>,
    index: u32,
    passed: u32,
    /// The blocks that meet at this barrier.
    blocks: u32,
}

#[cfg(target_arch = "nvptx64")]
impl GridBarrier {
    /// # Safety
    ///
    /// `counter` points to a u32 in global memory, zero at launch, used by nothing else.
    #[inline(always)]
    pub unsafe fn new(counter: crate::mem::Ptr<u32>) -> Self {
        // SAFETY: the caller's precondition is `among`'s for counter 0 and the whole grid.
        unsafe { GridBarrier::among(counter, 0, grid_dim_x()) }
    }

    /// A barrier for `blocks` blocks of the grid that meet on counter `index`.
    ///
    /// # Safety
    ///
    /// `counter` has an element `index`, zero at launch and used by no other barrier; exactly
    /// `blocks` blocks of the grid use this barrier.
    #[inline(always)]
    pub unsafe fn among(counter: crate::mem::Ptr<u32>, index: u32, blocks: u32) -> Self {
        GridBarrier { counters: counter, index, passed: 0, blocks }
    }

    // ANCHOR: grid_barrier_sync
    /// Waits until every block of the barrier has arrived here; memory writes of every thread
    /// of them before it are visible to every thread of them after it.
    ///
    /// # Safety
    ///
    /// As [`sync_threads`], for every thread of every block of the barrier: all must reach the
    /// same sequence of barriers, and the launch must be cooperative (see the type).
    #[inline(always)]
    pub unsafe fn sync(&mut self) {
        self.passed += 1;
        // SAFETY: every thread of the block gets here (the caller's precondition), so the block
        // barriers are uniform; the counter is a live u32 that only this barrier touches, always
        // atomically (the crate's atomic rule: fences around the atomic publish the writes).
        unsafe {
            sync_threads();
            if thread_idx_x() == 0 {
                // Arrivals only grow during a launch: barrier k is passed once k * blocks blocks
                // have arrived (no reset, so no race between consecutive barriers).
                let target = self.passed * self.blocks;
                // SAFETY: element `index` exists (the constructors' preconditions).
                let counter = self.counters.at(self.index as usize);
                crate::atomic::fence_gpu();
                crate::atomic::atomic_add_u32(counter, 1);
                while crate::atomic::atomic_load_u32(counter) < target {}
                crate::atomic::fence_gpu();
            }
            sync_threads();
        }
    }
    // ANCHOR_END: grid_barrier_sync
}
