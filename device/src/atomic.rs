//! Atomic read-modify-write on device memory (global or shared), named like rust-cuda's
//! `cuda_std::atomic`, and memory fences.
//!
//! Thin wrappers over `core::sync::atomic` on raw device pointers (`AtomicU64::from_ptr`), which
//! the nvptx backend lowers to `atom.add` and plain atomic loads and stores. They are all
//! `Relaxed`: the backend currently ignores the ordering of read-modify-write operations
//! (rust-lang/rust#136480), so code that publishes data through an atomic must order it with an
//! explicit fence: write the data, [`fence_gpu`], then the atomic; on the reading side the
//! atomic, then [`fence_gpu`], then read the data (the grid barrier does both). Only what the
//! steps use is here.
//!
//! # Safety (all functions taking a pointer)
//!
//! `ptr` must be valid for reads and writes, aligned to the size of the value, point to global or
//! shared memory, and every concurrent access to that location must be atomic as well.
//!
//! On the host (the CPU backend) the same functions are `core::sync::atomic` on host memory, and
//! [`fence_gpu`] is a sequentially consistent fence.

use core::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};

/// `atomicAdd` on a `u32`; returns the old value (wrapping).
///
/// # Safety
///
/// See the module documentation.
#[inline(always)]
pub unsafe fn atomic_add_u32(ptr: *mut u32, value: u32) -> u32 {
    // SAFETY: validity, alignment and atomic-only access are the caller's precondition.
    unsafe { AtomicU32::from_ptr(ptr) }.fetch_add(value, Ordering::Relaxed)
}

/// `atomicAdd` on a `u64`; returns the old value (wrapping).
///
/// # Safety
///
/// See the module documentation.
#[inline(always)]
pub unsafe fn atomic_add_u64(ptr: *mut u64, value: u64) -> u64 {
    // SAFETY: validity, alignment and atomic-only access are the caller's precondition.
    unsafe { AtomicU64::from_ptr(ptr) }.fetch_add(value, Ordering::Relaxed)
}

// ANCHOR: atomic_add_i64
/// `atomicAdd` on an `i64`; returns the old value (wrapping).
///
/// # Safety
///
/// See the module documentation.
#[inline(always)]
pub unsafe fn atomic_add_i64(ptr: *mut i64, value: i64) -> i64 {
    // SAFETY: validity, alignment and atomic-only access are the caller's precondition.
    unsafe { AtomicI64::from_ptr(ptr) }.fetch_add(value, Ordering::Relaxed)
}
// ANCHOR_END: atomic_add_i64

/// A relaxed atomic load of a `u32` (a spin loop must load atomically: a plain or volatile read
/// racing with atomic writes is undefined behaviour).
///
/// # Safety
///
/// See the module documentation.
#[inline(always)]
pub unsafe fn atomic_load_u32(ptr: *mut u32) -> u32 {
    // SAFETY: validity, alignment and atomic-only access are the caller's precondition.
    unsafe { AtomicU32::from_ptr(ptr) }.load(Ordering::Relaxed)
}

/// A relaxed atomic load of a `u64`.
///
/// # Safety
///
/// See the module documentation.
#[inline(always)]
pub unsafe fn atomic_load_u64(ptr: *mut u64) -> u64 {
    // SAFETY: validity, alignment and atomic-only access are the caller's precondition.
    unsafe { AtomicU64::from_ptr(ptr) }.load(Ordering::Relaxed)
}

/// A relaxed atomic store of a `u8` (flags that several threads may set at once).
///
/// # Safety
///
/// See the module documentation.
#[inline(always)]
pub unsafe fn atomic_store_u8(ptr: *mut u8, value: u8) {
    // SAFETY: validity and atomic-only access are the caller's precondition.
    unsafe { core::sync::atomic::AtomicU8::from_ptr(ptr) }.store(value, Ordering::Relaxed)
}

// ANCHOR: fence_gpu
/// Acquire-release fence at GPU scope (`fence.acq_rel.gpu`, what `__threadfence()` provides for
/// publishing data between blocks): writes before it are visible to any thread that observes a
/// later atomic of this thread and then fences itself.
#[inline(always)]
pub fn fence_gpu() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a fence has no operands and no preconditions; asm! without `nomem` is also a
    // compiler barrier, so no memory access moves across it.
    unsafe {
        core::arch::asm!("fence.acq_rel.gpu;", options(nostack, preserves_flags))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::fence(Ordering::SeqCst);
}
// ANCHOR_END: fence_gpu
