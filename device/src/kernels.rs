//! Every GPU kernel of pgomea (compiled for `nvptx64-nvidia-cuda` only). The kernels only share
//! the work out over the GPU's threads; what each thread does is a step of [`crate::stage`], the
//! code the CPU backend runs too.
//!
//! Per problem kind ([`crate::problem`]) one kernel set:
//! - `pgomea_generation_<kind>`: a whole generation, every colour group of the schedule, each as
//!   the passes of [`GROUP_PASSES`] with a grid barrier after each, in one cooperative launch;
//! - `pgomea_pass_<kind>`: one pass (one stage, or fused stages) of the group at `a.step`; the
//!   host launches these one by one (tests, per-stage timing) or captures a whole generation of
//!   them as a CUDA graph where a device cannot launch cooperatively.
//!
//! and, for every kind, `pgomea_mark_elitist`.
//!
//! How threads share a pass: a per-element pass gives one thread to each (solution, element); a
//! per-pair pass gives each (solution, slot) pair one lane, one warp or one block, as the layout's
//! crew boundaries say ([`crate::gom::crew_kind`]). All loops are grid-stride, so any grid covers
//! any group: one grid size serves every group, which a captured graph needs.

use crate::crew::{Block, Lane, Warp};
use crate::problem::{Clauses, Kind, Pairwise, Tables};
use crate::stage::{Buffers, GROUP_PASSES, GomArgs, Group, Pass, element_step, mark_elitist, pair_step};
use crate::thread::{self, GridBarrier};
use crate::warp::{WARP_SIZE, warp_id};

/// This warp's first item and the number of warps in the grid.
#[inline(always)]
fn warps() -> (usize, usize) {
    let per_block = (thread::block_dim_x() / WARP_SIZE) as usize;
    (thread::block_idx_x() as usize * per_block + warp_id() as usize, thread::grid_dim_x() as usize * per_block)
}

/// This thread's first item and the number of threads in the grid.
#[inline(always)]
fn threads() -> (usize, usize) {
    (thread::index_1d() as usize, thread::grid_stride() as usize)
}

/// (x / d, x % d), in 32-bit arithmetic when both fit (a 64-bit division is a long subroutine on
/// the GPU).
#[inline(always)]
fn divmod(x: usize, d: usize) -> (usize, usize) {
    if (x | d) <= u32::MAX as usize {
        let (x, d) = (x as u32, d as u32);
        ((x / d) as usize, (x % d) as usize)
    } else {
        (x / d, x % d)
    }
}

/// Pass `pass` of group `g` over the whole grid.
///
/// # Safety
///
/// The precondition of [`crate::stage`] for `a` and `g`; `pass` is valid; every thread of the
/// grid calls it (block and warp crews need their whole block or warp), with a block size that
/// is a multiple of 32.
#[inline(always)]
unsafe fn run_pass<K: Kind>(a: &GomArgs<K>, g: &Group, pass: Pass) {
    let n = a.n as usize;
    // SAFETY: the function's precondition. Each loop's bound is the same for every thread of a
    // warp (the warp loop) or block (the block loop), so crews reach their collectives together.
    unsafe {
        if pass.per_element() {
            let per = g.items(pass);
            let (mut t, stride) = threads();
            while t < n * per {
                let (i, k) = divmod(t, per);
                element_step(a, g, i, k, pass);
                t += stride;
            }
            return;
        }
        let (mut t, stride) = threads();
        while t < n * g.alone {
            let (i, j) = divmod(t, g.alone);
            pair_step(&Lane, a, g, i, j, pass);
            t += stride;
        }
        let warped = g.warped - g.alone;
        let (mut w, stride) = warps();
        while w < n * warped {
            let (i, j) = divmod(w, warped);
            pair_step(&Warp, a, g, i, g.alone + j, pass);
            w += stride;
        }
        let blocked = g.slots - g.warped;
        let mut b = thread::block_idx_x() as usize;
        while b < n * blocked {
            let (i, j) = divmod(b, blocked);
            pair_step(&Block, a, g, i, g.warped + j, pass);
            b += thread::grid_dim_x() as usize;
        }
    }
}

/// A whole generation: every group of the schedule, its passes separated by grid barriers (a
/// pass reads what other threads wrote in the one before).
///
/// # Safety
///
/// As [`run_pass`] for every group, a cooperative launch, and `a.barrier` zero at launch.
#[inline(always)]
unsafe fn generation<K: Kind>(a: &GomArgs<K>) {
    // SAFETY: the function's precondition.
    unsafe {
        let mut barrier = GridBarrier::new(a.barrier);
        // Named one by one (not looped over) so that each pass is a constant where it is used:
        // every stage test in the steps folds away.
        let [first, second, third] = GROUP_PASSES;
        for step in 0..a.groups {
            let g = Group::at(a, step);
            run_pass(a, &g, first);
            barrier.sync();
            run_pass(a, &g, second);
            barrier.sync();
            run_pass(a, &g, third);
            barrier.sync();
        }
    }
}

/// One problem kind's kernel set (see the module documentation).
macro_rules! kernel_set {
    ($kind:ty, $generation:ident, $pass:ident) => {
        #[doc = concat!("A whole generation of parallel GOM on a `", stringify!($kind), "` problem.")]
        ///
        /// # Safety
        ///
        /// The launch preconditions:
        ///
        /// - cooperative launch (`cuLaunchCooperativeKernel`): every block resident at once;
        /// - one-dimensional blocks of a multiple of 32 threads, at most 1024;
        /// - `a` points to live arrays sized from the host's layout (`GroupLayout`) for this
        ///   population, `a.schedule` holds the generation and the order of all `a.groups`
        ///   groups, `a.barrier` is zero.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $generation(a: GomArgs<$kind>) {
            // SAFETY: the launch preconditions above.
            unsafe { generation(&a) }
        }

        #[doc = concat!("One pass of the group at position `a.step` of the schedule, on a `", stringify!($kind), "` problem.")]
        ///
        /// # Safety
        ///
        /// The launch preconditions:
        ///
        /// - one-dimensional blocks of a multiple of 32 threads, at most 1024, any grid;
        /// - `a` as for the generation kernel (`a.barrier` unused), `a.step < a.groups`;
        /// - `pass` valid (`Pass::is_valid`), the passes before it in the group done.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $pass(a: GomArgs<$kind>, pass: Pass) {
            // SAFETY: the launch preconditions above.
            unsafe {
                let g = Group::at(&a, a.step);
                run_pass(&a, &g, pass)
            }
        }
    };
}

kernel_set!(Pairwise, pgomea_generation_pairwise, pgomea_pass_pairwise);
kernel_set!(Tables, pgomea_generation_tables, pgomea_pass_tables);
kernel_set!(Clauses, pgomea_generation_clauses, pgomea_pass_clauses);

/// Marks `is_elitist[i] = 1` where P[i] equals the reference genotype, else 0: one warp per
/// solution.
///
/// # Safety
///
/// The launch preconditions:
///
/// One-dimensional blocks of a multiple of 32 threads, any grid; `buffers.parents` holds `n`
/// rows of `l` genes, `buffers.reference` one row, `buffers.is_elitist` `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pgomea_mark_elitist(buffers: Buffers, n: u32, l: u32) {
    let (mut i, stride) = warps();
    // SAFETY: the launch preconditions; the loop bound is warp-uniform, so each warp calls the
    // collective together.
    unsafe {
        while i < n as usize {
            mark_elitist(&Warp, &buffers, l as usize, i);
            i += stride;
        }
    }
}
