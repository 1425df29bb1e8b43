//! Shared memory, named like rust-cuda's `cuda_std::shared`.
//!
//! A Rust `static` never lands in PTX's `.shared` state space (`#[link_section]` does not do it),
//! so shared memory is declared in module-level PTX with `global_asm!` and its address taken with
//! `cvta.shared` (shared window address to a generic pointer), which ordinary loads and stores can
//! use.
//!
//! - Dynamic shared memory: one block, [`dynamic_shared_mem`], sized by the host at launch
//!   (`shared_mem_bytes` of the launch config); 16-byte aligned.
//! - Static shared memory: [`static_shared_array!`](crate::static_shared_array), a fixed-size
//!   array of one kernel's block, no host setting needed.
//!
//! Accesses through these pointers are generic `ld`/`st` (LLVM cannot see through the asm that
//! they are shared; the hardware resolves the shared window).
//!
//! Shared memory is uninitialised at kernel start and visible to the whole block: order accesses
//! of different threads with [`sync_threads`](crate::thread::sync_threads).

// The one dynamic shared-memory block of the module: `extern __shared__` in CUDA C.
core::arch::global_asm!(".extern .shared .align 16 .b8 pgomea_dynamic_shared[];");

/// Generic pointer to the start of this block's dynamic shared memory (as many bytes as the host
/// passed in the launch's `shared_mem_bytes`; 16-byte aligned).
#[inline(always)]
pub fn dynamic_shared_mem<T>() -> *mut T {
    let address: u64;
    // SAFETY: cvta.shared only computes the generic address of the module's dynamic shared block
    // (declared above); it reads and writes no memory.
    unsafe {
        core::arch::asm!(
            "cvta.shared.u64 {a}, pgomea_dynamic_shared;",
            a = out(reg64) address,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    address as *mut T
}

/// Declares a fixed-size shared-memory array and gives a `*mut T` to its first element:
/// `let slots: *mut i64 = static_shared_array!(pgomea_block_sums: i64; 32);`
///
/// The name is the PTX symbol of the array and must be unique in the whole device crate (use the
/// kernel's name as a prefix). The array is uninitialised at kernel start.
#[macro_export]
macro_rules! static_shared_array {
    ($name:ident : $ty:ty ; $len:expr) => {{
        ::core::arch::global_asm!(
            concat!(".shared .align {align} .b8 ", stringify!($name), "[{bytes}];"),
            align = const ::core::mem::align_of::<$ty>(),
            bytes = const ::core::mem::size_of::<$ty>() * ($len),
        );
        let address: u64;
        // SAFETY: cvta.shared only computes the generic address of the array declared above.
        unsafe {
            ::core::arch::asm!(
                concat!("cvta.shared.u64 {a}, ", stringify!($name), ";"),
                a = out(reg64) address,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        address as *mut $ty
    }};
}
