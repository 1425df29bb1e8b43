//! Shared memory, named like rust-cuda's `cuda_std::shared`.
//!
//! A Rust `static` never lands in PTX's `.shared` state space (`#[link_section]` does not do it),
//! so shared memory is declared in module-level PTX with `global_asm!` and its address taken with
//! `cvta.shared` (shared window address to a generic pointer), which ordinary loads and stores can
//! use.
//!
//! [`static_shared_array!`](crate::static_shared_array) declares a fixed-size array of one
//! kernel's block (no host setting needed; the launches use no dynamic shared memory).
//!
//! Accesses through these pointers are generic `ld`/`st` (LLVM cannot see through the asm that
//! they are shared; the hardware resolves the shared window).
//!
//! Shared memory is uninitialised at kernel start and visible to the whole block: order accesses
//! of different threads with [`sync_threads`](crate::thread::sync_threads).

/// Declares a fixed-size shared-memory array and gives a `*mut T` to its first element:
/// `let slots: *mut i64 = static_shared_array!(pgomea_block_sums: i64; 32);`
///
/// The name is the PTX symbol of the array and must be unique in the whole device crate (use the
/// kernel's name as a prefix). The array is uninitialised at kernel start.
// ANCHOR: static_shared_array
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
// ANCHOR_END: static_shared_array
