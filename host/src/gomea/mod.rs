//! GOMEA: the run's shared state ([`run`]), the population, the interleaved multi-start scheme,
//! serial GOMEA with Forced Improvement, and the generation loop of parallel (colour-grouped)
//! GOMEA over a population's [`parallel::Stages`].

pub(crate) mod budget;
pub mod ims;
pub mod local_search;
pub(crate) mod mixing;
pub mod parallel;
pub mod partition;
pub mod population;
pub mod run;
pub mod serial;

pub use population::Population;

use crate::choice::choices;
use crate::error::Result;
use crate::gomea::run::Run;

/// When colour-grouped local search runs (both algorithms): never (the paper), on every new
/// population, or on new populations and on the offspring of every generation (a memetic GOMEA).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LocalSearchMode {
    /// No local search (the paper).
    #[default]
    Off,
    /// Every new population is brought to local optima.
    Initial,
    /// New populations and the offspring of every generation are brought to local optima.
    Offspring,
}

choices! {
    LocalSearchMode {
        Off: "off" => "No local search (the paper)",
        Initial: "initial" => "Every new population is brought to local optima",
        Offspring: "offspring" => "New populations and the offspring of every generation are brought to local optima",
    }
}

/// One population and the algorithm that evolves it, as the interleaved multi-start scheme sees
/// it. Serial GOMEA, parallel GOMEA on the CPU and parallel GOMEA on the GPU all implement it.
pub trait PopulationEngine {
    /// The population size.
    fn size(&self) -> usize;
    /// Runs one generation. May return early when `run.should_stop()`.
    fn generation(&mut self, run: &mut Run) -> Result<()>;
    /// The generations run so far.
    fn generations(&self) -> u64;
    /// The mean fitness of the population (the multi-start scheme compares these).
    fn average_fitness(&self) -> f64;
    /// All solutions equal.
    fn converged(&self) -> bool;
    /// Copies the population out (for tests and final reports).
    fn population(&self) -> Result<Population>;
    /// The fitness of the population's best solution.
    fn best_fitness(&self) -> i64;
    /// The genes of the population's best solution (the first of the best).
    fn best_solution(&self) -> Result<Vec<u8>>;
}
