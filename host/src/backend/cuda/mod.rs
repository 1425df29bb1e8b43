//! The CUDA backend of parallel GOM on cudarc's driver API: the kernels of `device/` (compiled to
//! PTX by scripts/ptx, shipped in `kernels/` and embedded in the library, `KERNELS_PTX`), the
//! instance and colour-group arrays uploaded once per run, and each population resident on the GPU.
//! Only the fitness vector (n values) comes back per generation, and one solution when the elitist
//! improves.
//!
//! The kernels are the device crate's (`pgomea_device::kernels`), one set per problem kind; they
//! share the steps of `pgomea_device::stage` out over the GPU's threads, the steps the CPU
//! backend runs too. The backend implements only the small device trait of the stage schedule
//! (`gomea::parallel::StageDevice`), in four parts:
//!
//! - `gpu`: opening the device ([`probe`], [`devices`], [`Gpu`]) and its kernels by name;
//! - `tuning`: the knobs ([`CudaTuning`], [`WholeGeneration`]) and the launch shapes they give;
//! - `upload`: device memory, its budget ([`DeviceBudget`]), the arrays a run shares
//!   ([`SharedArrays`]) and a population's buffers;
//! - `stages`: the device trait as launches and copies (`new_backend`).
//!
//! All but the tuning's values are built with the `cuda` feature only (a default feature). Without
//! it there is no GPU code: [`probe`] and [`devices`] say that the build has no CUDA support,
//! `Backend::Auto` runs on the CPU, and [`Gpu`] has no value, so that a run asking for the GPU
//! gets [`Gpu::shared`]'s error.

#[cfg(feature = "cuda")]
pub(crate) mod gpu;
#[cfg(feature = "cuda")]
pub(crate) mod stages;
pub(crate) mod tuning;
#[cfg(feature = "cuda")]
pub(crate) mod upload;

#[cfg(feature = "cuda")]
pub use gpu::{Gpu, devices, present, probe, use_device};

/// The PTX of every kernel, compiled from the device crate by scripts/ptx and shipped with the
/// library.
#[cfg(feature = "cuda")]
pub const KERNELS_PTX: &str = include_str!("../../../kernels/kernels.ptx");
#[cfg(feature = "cuda")]
pub use stages::new_backend;
pub use tuning::{CudaTuning, GroupPasses, WholeGeneration};
#[cfg(feature = "cuda")]
pub use upload::{DeviceBudget, SharedArrays};

#[cfg(not(feature = "cuda"))]
pub use without::{Gpu, devices, present, probe, use_device};

/// A build without the `cuda` feature: the answers of a machine with no GPU, and why.
#[cfg(not(feature = "cuda"))]
mod without {
    use std::sync::Arc;

    use crate::error::{Error, Result};

    /// Why there is no GPU, in every answer of this build.
    const WHY: &str = "this build of pgomea has no CUDA support (its `cuda` feature is off)";

    /// Whether a CUDA driver with a device is there: never, in this build.
    pub fn present() -> bool {
        false
    }

    /// Whether a CUDA driver and a device are there: never, in this build; why not.
    pub fn probe() -> std::result::Result<String, String> {
        Err(WHY.into())
    }

    /// One line per GPU: an error, in this build.
    pub fn devices() -> Result<Vec<String>> {
        Err(Error::Cuda(WHY.into()))
    }

    /// Chooses the device the process's runs use: there is none in this build, so nothing.
    pub fn use_device(_ordinal: usize) {}

    /// The process's open device, of which this build has none: the type has no value, so that
    /// its methods (those of the CUDA build that code outside the backend calls) never run.
    pub enum Gpu {}

    impl Gpu {
        /// The error a run that asks for the GPU gets in this build.
        pub fn shared() -> Result<Arc<Gpu>> {
            Err(Error::Cuda(format!("the CUDA backend cannot run: {WHY}")))
        }

        /// The device's name: never asked, as there is no device.
        pub fn name(&self) -> &str {
            match *self {}
        }

        /// Starts measuring the peak device memory: never asked, as there is no device.
        pub fn reset_memory_peak(&self) -> Result<()> {
            match *self {}
        }

        /// The peak device memory: never asked, as there is no device.
        pub fn peak_memory(&self) -> usize {
            match *self {}
        }

        /// Loads every kernel: never asked, as there is no device.
        pub fn load_all_kernels(&self) -> Result<()> {
            match *self {}
        }

        /// Whether the device can launch cooperatively: never asked, as there is no device.
        pub fn can_launch_cooperatively(&self) -> bool {
            match *self {}
        }

        /// The launches of every kernel: never asked, as there is no device.
        pub fn launch_counts(&self) -> Vec<(&'static str, u64)> {
            match *self {}
        }
    }
}

#[cfg(all(test, feature = "cuda"))]
mod tests {
    use pgomea_device::kernel_names::{KERNELS, register_budget};

    /// The shipped kernel tables are the device crate's (scripts/ptx writes both; CI also checks
    /// the PTX itself byte for byte, which needs the nightly): a kernel added, renamed or given
    /// another budget without running scripts/ptx fails here, on stable Rust.
    #[test]
    fn shipped_kernel_tables_are_the_device_crates() {
        let list: Vec<&str> = include_str!("../../../kernels/kernels.list").lines().collect();
        assert_eq!(list, KERNELS, "host/kernels/kernels.list is stale: run scripts/ptx");
        let budgets: Vec<String> =
            KERNELS.iter().filter_map(|k| register_budget(k).map(|b| format!("{k} {b}"))).collect();
        let shipped: Vec<&str> = include_str!("../../../kernels/kernels.budgets").lines().collect();
        assert_eq!(shipped, budgets, "host/kernels/kernels.budgets is stale: run scripts/ptx");
        for k in KERNELS {
            assert!(
                super::KERNELS_PTX.contains(&format!(".entry {k}(")),
                "kernel {k} is not in host/kernels/kernels.ptx: run scripts/ptx"
            );
        }
    }
}
