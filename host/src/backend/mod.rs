//! Where parallel GOM runs: [`cpu`] (every core, through rayon) and [`cuda`] (an NVIDIA GPU,
//! through cudarc and the kernels of the device crate). Both implement only the small device
//! trait [`StageDevice`](crate::gomea::parallel::StageDevice); the stage schedule over it is
//! written once ([`Stages`](crate::gomea::parallel::Stages)).

pub mod cpu;
pub mod cuda;
