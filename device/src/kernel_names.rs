//! The exported names of every kernel, compiled on both targets: the GPU build gives the kernels
//! these names (`kernels.rs`), the host's CUDA backend loads them by these names, and the build
//! script writes [`KERNELS`] next to the PTX for `.ci/check-ptx`. The names follow from the
//! registry of problem kinds ([`crate::problem::for_each_kind`]): `pgomea_<role>_<kind>` for a
//! kind's kernels, `pgomea_<role>` for those every kind shares; none is spelled by hand.

use crate::problem::{Kind, for_each_kind};

/// The exported name of a kernel: `pgomea_<role>_<kind>`, or `pgomea_<role>` for a kernel every
/// kind shares (a string literal, so that `export_name` can take it).
macro_rules! kernel_name {
    ($role:ident, $kind:literal) => {
        concat!("pgomea_", stringify!($role), "_", $kind)
    };
    ($role:ident) => {
        concat!("pgomea_", stringify!($role))
    };
}
// Used by this module on both targets, and by the kernels (GPU only).
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports))]
pub(crate) use kernel_name;

/// The kernels of one problem kind (`kernels.rs` says what each does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindKernels {
    /// A whole generation of GOM (cooperative launch).
    pub generation: &'static str,
    /// A whole generation of GOM or of Forced Improvement, one block per solution (any launch).
    pub generation_by_solution: &'static str,
    /// The two of GOM with each group in one pass.
    pub generation_one_pass: &'static str,
    pub generation_by_solution_one_pass: &'static str,
    /// Parallel Forced Improvement over every group (cooperative launch).
    pub forced_improvement: &'static str,
    /// One pass of one group, of GOM or of Forced Improvement.
    pub pass: &'static str,
    /// One call of the colour-grouped local search of every solution (cooperative launch).
    pub flip_search: &'static str,
    /// One colour of one round of that search, or the round's end.
    pub flip_search_color: &'static str,
}

impl KindKernels {
    /// GOM's whole-generation kernels, cooperative and with a block per solution: in one pass
    /// per group where `one_pass`, else in three.
    pub const fn gom_generation(self, one_pass: bool) -> (&'static str, &'static str) {
        if one_pass {
            (self.generation_one_pass, self.generation_by_solution_one_pass)
        } else {
            (self.generation, self.generation_by_solution)
        }
    }

    /// GOM's four whole-generation kernels: those with a register budget
    /// ([`GENERATION_REGISTERS`]).
    pub const fn generations(self) -> [&'static str; 4] {
        [self.generation, self.generation_by_solution, self.generation_one_pass, self.generation_by_solution_one_pass]
    }

    /// The eight names.
    pub const fn all(self) -> [&'static str; PER_KIND] {
        [
            self.generation,
            self.generation_by_solution,
            self.generation_one_pass,
            self.generation_by_solution_one_pass,
            self.forced_improvement,
            self.pass,
            self.flip_search,
            self.flip_search_color,
        ]
    }
}

/// The names of a kind's kernels, found by its name in the registry: every [`Kind`] has them.
pub trait Registered {
    const KERNELS: KindKernels;
}

impl<K: Kind> Registered for K {
    const KERNELS: KindKernels = kernels_of(K::NAME);
}

/// The kernels of the registered kind named `kind` (a kind's name is in the registry, so the
/// search ends at compile time, where it is called for `Registered::KERNELS`).
const fn kernels_of(kind: &str) -> KindKernels {
    let mut k = 0;
    while k < KIND_KERNELS.len() {
        let (name, kernels) = KIND_KERNELS[k];
        if name.len() == kind.len() {
            let (a, b) = (name.as_bytes(), kind.as_bytes());
            let mut i = 0;
            while i < a.len() && a[i] == b[i] {
                i += 1;
            }
            if i == a.len() {
                return kernels;
            }
        }
        k += 1;
    }
    panic!("a kind that is not in the registry")
}

// ANCHOR: shared_names
/// The kernel that marks the solutions equal to the elitist.
pub const MARK_ELITIST: &str = kernel_name!(mark_elitist);
/// The kernel that marks the genes on which the population has converged (before
/// [`MARK_CONVERGED`]).
pub const MARK_CONVERGED_GENES: &str = kernel_name!(mark_converged_genes);
/// The kernel that marks the linkage sets on which the population has converged.
pub const MARK_CONVERGED: &str = kernel_name!(mark_converged);
/// The kernel that ends parallel Forced Improvement.
pub const FORCED_IMPROVEMENT_END: &str = kernel_name!(forced_improvement_end);
// ANCHOR_END: shared_names

macro_rules! register_kinds {
    ($($kind:ident: $name:literal,)*) => {
        /// Every registered kind's kernels, in the registry's order.
        pub const KIND_KERNELS: &[(&str, KindKernels)] = &[$(
            ($name, KindKernels {
                generation: kernel_name!(generation, $name),
                generation_by_solution: kernel_name!(generation_by_solution, $name),
                generation_one_pass: kernel_name!(generation_one_pass, $name),
                generation_by_solution_one_pass: kernel_name!(generation_by_solution_one_pass, $name),
                forced_improvement: kernel_name!(forced_improvement, $name),
                pass: kernel_name!(pass, $name),
                flip_search: kernel_name!(flip_search, $name),
                flip_search_color: kernel_name!(flip_search_color, $name),
            }),
        )*];
    };
}
for_each_kind!(register_kinds);

/// Registers per thread that GOM's whole-generation kernels may use on sm_90 and later
/// ([`register_budget`]): 64 lets a multiprocessor's 65536 registers hold 1024 threads, the two
/// blocks of 512 of the cooperative grid and of the generation by solution. Left free, ptxas picks
/// the count itself, and small changes of the steps took these kernels from 64 to 66-72 registers
/// on sm_90, which halved the cooperative grid and the blocks resident by solution
/// (`docs/decisions/0024-register-budget.md`). The CUDA backend writes the budget into such a kernel's PTX when it loads it on a
/// device of compute capability 9.0 or more (a `.maxnreg` directive, as CUDA C's launch bounds
/// would), and `.ci/check-ptx` bounds what ptxas then spills. On sm_80 ptxas gives these kernels
/// 80-91 registers, and the budget would spill 40-108 bytes there: not measured, not applied.
pub const GENERATION_REGISTERS: u32 = 64;

/// The register budget of kernel `name` on sm_90 and later: [`GENERATION_REGISTERS`] for GOM's
/// whole-generation kernels of every kind, none for the others (their counts are ptxas's).
pub fn register_budget(name: &str) -> Option<u32> {
    KIND_KERNELS.iter().any(|(_, k)| k.generations().contains(&name)).then_some(GENERATION_REGISTERS)
}

/// Kernels per kind.
const PER_KIND: usize = 8;

// ANCHOR: shared_list
/// The kernels every kind shares.
const SHARED: [&str; 4] = [MARK_ELITIST, MARK_CONVERGED_GENES, MARK_CONVERGED, FORCED_IMPROVEMENT_END];
// ANCHOR_END: shared_list

/// Every exported kernel: the eight of each kind, in the registry's order, then the four every
/// kind shares.
pub const KERNELS: [&str; PER_KIND * KIND_KERNELS.len() + SHARED.len()] = {
    let mut out = [""; PER_KIND * KIND_KERNELS.len() + SHARED.len()];
    let mut k = 0;
    while k < KIND_KERNELS.len() {
        let names = KIND_KERNELS[k].1.all();
        let mut r = 0;
        while r < names.len() {
            out[PER_KIND * k + r] = names[r];
            r += 1;
        }
        k += 1;
    }
    let mut r = 0;
    while r < SHARED.len() {
        out[PER_KIND * KIND_KERNELS.len() + r] = SHARED[r];
        r += 1;
    }
    out
};
