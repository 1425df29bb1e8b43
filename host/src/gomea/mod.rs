//! GOMEA: the run's shared state ([`run`]), the population, the interleaved multi-start scheme,
//! serial GOMEA with Forced Improvement, and the generation loop of parallel (colour-grouped)
//! GOMEA over a [`parallel::StageBackend`].

pub mod ims;
pub mod parallel;
pub mod population;
pub mod run;
pub mod serial;

pub use population::Population;

use crate::error::Result;
use crate::gomea::run::Run;

/// One population and the algorithm that evolves it, as the interleaved multi-start scheme sees
/// it. Serial GOMEA, parallel GOMEA on the CPU and parallel GOMEA on the GPU all implement it.
pub trait PopulationEngine {
    fn size(&self) -> usize;
    /// Runs one generation. May return early when `run.should_stop()`.
    fn generation(&mut self, run: &mut Run) -> Result<()>;
    fn generations(&self) -> u64;
    /// The mean fitness of the population (the multi-start scheme compares these).
    fn average_fitness(&self) -> f64;
    /// All solutions equal.
    fn converged(&self) -> bool;
    /// Copies the population out (for tests and final reports).
    fn population(&self) -> Result<Population>;
}
