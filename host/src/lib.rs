//! pgomea: Gene-pool Optimal Mixing (GOMEA) for gray-box problems, serial on the CPU and parallel
//! by colour groups of independent linkage sets on a multi-core CPU or an NVIDIA GPU, after
//! Bouter and Bosman, "GPU-Accelerated Parallel Gene-pool Optimal Mixing in a Gray-Box
//! Optimization Setting", GECCO 2022.

pub mod bench;
pub mod cli;
pub mod coloring;
pub mod cuda;
pub mod data;
pub mod generate;
pub mod gomea;
pub mod error;
pub mod experiment;
pub mod fos;
pub mod instance;
pub mod problem;
pub mod run;
pub mod selftest;
pub mod solve;

pub use error::{Error, Result};
