//! One optimisation run from a configuration: builds the linkage model (and colouring), drives
//! the interleaved multi-start scheme with the chosen algorithm and backend, and returns the
//! outcome that the CLI prints and the experiments record.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::coloring::{ColoringMethod, Lmig};
use crate::error::{Error, Result};
use crate::fos::{Fos, LinkageModel};
use crate::gomea::PopulationEngine;
use crate::gomea::ims::{Ims, ImsConfig};
use crate::gomea::serial::{FosOrder, LinkageSource, SerialConfig, SerialGomea};
use crate::problem::{GrayBoxProblem, MaxCut};
use crate::run::Run;
use pgomea_device::rng::SplitMix64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Serial GOMEA with Forced Improvement (Algorithms 1 and 2 of the paper).
    Serial,
    /// Parallel GOMEA: GOM on colour groups of independent linkage sets (Algorithms 3 and 4).
    Parallel,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// CUDA when a driver and a device exist, else the CPU.
    Auto,
    /// Parallel GOM on all CPU cores.
    Cpu,
    /// Parallel GOM on an NVIDIA GPU.
    Cuda,
}

impl Backend {
    /// `Auto` becomes `Cuda` when a driver and a device exist, else `Cpu`; with `say`, prints which
    /// and why on stderr.
    pub fn resolve(self, say: bool) -> Backend {
        match self {
            Backend::Auto => match crate::cuda::probe() {
                Ok(name) => {
                    if say {
                        eprintln!("backend: CUDA on {name}");
                    }
                    Backend::Cuda
                }
                Err(why) => {
                    if say {
                        eprintln!("backend: CPU ({why})");
                    }
                    Backend::Cpu
                }
            },
            other => other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FosOrderKind {
    /// A random permutation of the linkage sets per solution.
    Random,
    /// Colour groups in random order, the sets of a group in random order (parallel GOM's order).
    Colored,
}

#[derive(Clone, Debug)]
pub struct SolveConfig {
    pub algorithm: Algorithm,
    pub backend: Backend,
    pub linkage: LinkageModel,
    pub coloring: ColoringMethod,
    pub fos_order: FosOrderKind,
    pub forced_improvement: bool,
    pub seed: u64,
    pub ims: ImsConfig,
    /// Threads of the CPU backend (None: all cores).
    pub threads: Option<usize>,
    /// The PTX of the kernels (embedded by the binary); needed by the CUDA backend.
    pub ptx: Option<&'static str>,
}

impl Default for SolveConfig {
    fn default() -> Self {
        SolveConfig {
            algorithm: Algorithm::Serial,
            backend: Backend::Auto,
            linkage: LinkageModel::Flt,
            coloring: ColoringMethod::WelshPowell,
            fos_order: FosOrderKind::Random,
            forced_improvement: true,
            seed: 1,
            ims: ImsConfig::default(),
            threads: None,
            ptx: None,
        }
    }
}

/// What a run found, and what it cost.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub instance: String,
    pub vertices: usize,
    pub edges: usize,
    pub algorithm: Algorithm,
    pub backend: String,
    pub linkage: String,
    pub seed: u64,
    pub best_fitness: i64,
    pub best_known: Option<i64>,
    pub target: Option<i64>,
    pub reached_target: bool,
    pub stop_reason: String,
    pub time_s: f64,
    pub evaluations: f64,
    pub subfunction_evaluations: u64,
    /// (solution, linkage set) pairs mixed, in GOM and in Forced Improvement.
    pub gom_steps: u64,
    pub generations: u64,
    /// Sizes of every population the multi-start scheme started.
    pub populations: Vec<usize>,
    pub fos_sets: usize,
    pub colors: Option<usize>,
    pub setup_s: f64,
    pub note: Option<String>,
    /// The best solution as a 0/1 string, one character per vertex.
    pub solution: String,
}

/// The linkage model, with the colour groups when the algorithm needs them.
pub struct Model {
    pub fos: Arc<Fos>,
    pub groups: Option<Arc<Vec<Vec<u32>>>>,
}

pub fn build_model(problem: &MaxCut, config: &SolveConfig) -> Result<Model> {
    let mut rng = SplitMix64::stream(config.seed, 0x666f73);
    let needs_groups = config.algorithm == Algorithm::Parallel || config.fos_order == FosOrderKind::Colored;
    if config.linkage == LinkageModel::Lt && needs_groups {
        return Err(Error::usage(
            "the learned linkage tree (lt) changes every generation and cannot be coloured once: \
             use it with --algo serial --fos-order random, or pick flt, bflt:K or univariate",
        ));
    }
    let fos = Arc::new(Fos::build(&config.linkage, problem, &mut rng));
    let groups = if needs_groups {
        let lmig = Lmig::build(&fos, problem);
        let coloring = config.coloring.color(&lmig);
        Some(Arc::new(coloring.groups()))
    } else {
        None
    };
    Ok(Model { fos, groups })
}

/// Runs the configured algorithm on `problem` within `run`'s limits.
pub fn solve<'a>(problem: &'a MaxCut, config: &SolveConfig, run: &mut Run, best_known: Option<i64>) -> Result<Outcome> {
    let setup_start = Instant::now();
    // Opening the GPU (context, kernel load) takes a fraction of a second: do it on another
    // thread while the linkage model and its colouring are built.
    let backend = match config.algorithm {
        Algorithm::Parallel => config.backend.resolve(run.verbose()),
        Algorithm::Serial => Backend::Cpu,
    };
    let opening = (backend == Backend::Cuda).then(|| {
        let ptx = config.ptx;
        std::thread::spawn(move || crate::cuda::Gpu::shared(ptx))
    });
    let model = build_model(problem, config)?;
    let setup_s = setup_start.elapsed().as_secs_f64();
    let seed = config.seed;
    let (backend_name, mut ims) = match config.algorithm {
        Algorithm::Serial => {
            let serial = SerialConfig {
                forced_improvement: config.forced_improvement,
                order: match &model.groups {
                    Some(g) => FosOrder::Colored(g.clone()),
                    None => FosOrder::Random,
                },
                linkage: match config.linkage {
                    LinkageModel::Lt => LinkageSource::Learned,
                    _ => LinkageSource::Static(model.fos.clone()),
                },
            };
            let factory = move |index: usize, size: usize, run: &mut Run| -> Result<Box<dyn PopulationEngine + 'a>> {
                Ok(Box::new(SerialGomea::new(serial.clone(), size, population_seed(seed, index), run)))
            };
            ("cpu (serial)".to_string(), Ims::new(config.ims.clone(), Box::new(factory))?)
        }
        Algorithm::Parallel => {
            let gpu = match opening {
                Some(handle) => Some(handle.join().map_err(|_| Error::Cuda("opening the GPU failed".into()))??),
                None => None,
            };
            crate::gomea::parallel::make_ims(problem, config, gpu, &model)?
        }
    };
    ims.run(run)?;
    run.flush_trace()?;
    let elitist = run.elitist().ok_or_else(|| Error::usage("the run ended before any solution was evaluated"))?;
    let target = run.limits.target;
    Ok(Outcome {
        instance: problem.instance.name.clone(),
        vertices: problem.variables(),
        edges: problem.subfunctions(),
        algorithm: config.algorithm,
        backend: backend_name,
        linkage: config.linkage.to_string(),
        seed,
        best_fitness: elitist.fitness,
        best_known,
        target,
        reached_target: target.is_some_and(|t| elitist.fitness >= t),
        stop_reason: run.stop_reason().map(|r| r.as_str()).unwrap_or("").to_string(),
        time_s: run.elapsed().as_secs_f64(),
        evaluations: run.evaluations(),
        subfunction_evaluations: run.counter.subfunction_evaluations(),
        gom_steps: run.gom_steps,
        generations: ims.total_generations(),
        populations: ims.populations().map(|p| p.size()).collect(),
        fos_sets: model.fos.sets.len(),
        colors: model.groups.as_ref().map(|g| g.len()),
        setup_s,
        note: ims.cap_note.clone(),
        solution: elitist.genes.iter().map(|&g| if g == 0 { '0' } else { '1' }).collect(),
    })
}

/// The seed of population `index` of a run.
pub fn population_seed(seed: u64, index: usize) -> u64 {
    pgomea_device::rng::mix64(seed ^ pgomea_device::rng::mix64(0x706f70 + index as u64))
}
