#![no_std]
// ANCHOR: nightly_features
// The kernel build (nvptx64-nvidia-cuda, built by scripts/ptx) needs these nightly features:
// `extern "ptx-kernel"`, core::arch::nvptx, the NVVM intrinsics of `warp` and `thread`, and
// asm!/global_asm! for shared memory and fences. The host build of this crate uses none of them.
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, link_llvm_intrinsics, asm_experimental_arch),
    allow(internal_features)
)]
// ANCHOR_END: nightly_features
//! pgomea's device crate: the code that runs on the GPU and, compiled a second time for the
//! host, on the CPU: problem kinds and their registry ([`problem`]), the kernels' names
//! ([`kernel_names`]), random numbers and their stream ids ([`rng`]), the GOM rules ([`gom`]), the
//! crews that share a step ([`crew`]) and the steps of every stage ([`stage`]).
//! On the GPU, [`kernels`] shares those steps out over threads; on the host, the CPU backend and
//! serial GOMEA call them directly, so both targets compute the same numbers bit for bit.
//!
//! Helpers named like rust-cuda's `cuda_std` modules: [`thread`] and [`atomic`] (on both
//! targets: on the host a grid of one thread, and `core::sync::atomic`), `warp` and `shared`
//! (GPU only: the host has no warps; its crew is a lone [`crew::Lane`]).

pub mod atomic;
pub mod crew;
pub mod gom;
pub mod kernel_names;
pub mod mem;
pub mod problem;
pub mod rng;
pub mod stage;
pub mod thread;

#[cfg(target_arch = "nvptx64")]
pub mod kernels;
#[cfg(target_arch = "nvptx64")]
pub mod shared;
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
