//! The CUDA backend of parallel GOM on cudarc's driver API: the kernels of `device/` (compiled to
//! PTX by host/build.rs and embedded in the library, [`KERNELS_PTX`]), the instance and colour-group arrays uploaded once
//! per run, and each population resident on the GPU. Only the fitness vector (n values) comes back
//! per generation, and one solution when the elitist improves.
//!
//! The kernels are the device crate's (`pgomea_device::kernels`), one set per problem kind; they
//! share the steps of `pgomea_device::stage` out over the GPU's threads, the steps the CPU
//! backend runs too. The backend implements only the small device trait of the stage schedule
//! (`gomea::parallel::StageDevice`), in four parts:
//!
//! - [`gpu`]: opening the device ([`probe`], [`devices`], [`Gpu`]) and its kernels by name;
//! - [`tuning`]: the knobs ([`CudaTuning`], [`WholeGeneration`]) and the launch shapes they give;
//! - [`upload`]: device memory, its budget ([`DeviceBudget`]), the arrays a run shares
//!   ([`SharedArrays`]) and a population's buffers;
//! - [`stages`]: the device trait as launches and copies ([`new_backend`]).

pub mod gpu;
pub mod stages;
pub mod tuning;
pub mod upload;

pub use gpu::{Gpu, devices, probe, use_device};

/// The PTX of every kernel, compiled from the device crate by build.rs and carried by the library.
pub const KERNELS_PTX: &str = include_str!(env!("PGOMEA_KERNELS_PTX"));
pub use stages::new_backend;
pub use tuning::{CudaTuning, GroupPasses, WholeGeneration};
pub use upload::{DeviceBudget, SharedArrays};
