//! Where parallel GOM runs: [`cpu`] (every core, through rayon) and [`cuda`] (an NVIDIA GPU,
//! through cudarc and the kernels of the device crate). Both implement the generation loop's
//! [`StageBackend`](crate::gomea::parallel::StageBackend).

pub mod cpu;
pub mod cuda;
