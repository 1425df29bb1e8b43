#![no_std]
// The kernel build (nvptx64-nvidia-cuda, see the root build.rs) needs these nightly features:
// `extern "ptx-kernel"`, core::arch::nvptx, the NVVM intrinsics of `warp`, and asm!/global_asm!
// for shared memory. The host build of this crate (the pure functions) uses none of them.
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, link_llvm_intrinsics, asm_experimental_arch),
    allow(internal_features)
)]
//! pgomea's device crate: every CUDA kernel of the project, and the pure per-element functions the
//! kernels share with the host (random numbers, subfunction evaluation, the acceptance rule), so
//! that the CPU backend and the CUDA backend compute the same numbers.

pub mod args;
pub mod gom;
pub mod rng;

// GPU-only helpers (named like rust-cuda's cuda_std modules) and the kernels.
#[cfg(target_arch = "nvptx64")]
pub mod atomic;
#[cfg(target_arch = "nvptx64")]
pub mod kernels;
#[cfg(target_arch = "nvptx64")]
pub mod shared;
#[cfg(target_arch = "nvptx64")]
pub mod thread;
#[cfg(target_arch = "nvptx64")]
pub mod warp;

/// A kernel that panics traps (the kernel build uses `-Cpanic=immediate-abort`, so panics trap
/// before they get here; no formatting code is pulled in).
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no preconditions.
    unsafe { core::arch::nvptx::trap() }
}
