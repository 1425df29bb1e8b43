//! One optimisation run from a configuration: builds the linkage model (and colouring), drives
//! the interleaved multi-start scheme with the chosen algorithm and backend, and returns the
//! outcome that the CLI prints and the experiments record.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::backend::{cpu, cuda};
use crate::choice::Choice;
use crate::error::{Error, Result};
use crate::gomea::LocalSearchMode;
use crate::gomea::PopulationEngine;
use crate::gomea::ims::{Ims, ImsConfig};
use crate::gomea::local_search::{AnnealSchedule, VariableColors};
use crate::gomea::parallel::Hybrid;
use crate::gomea::parallel::ParallelGomea;
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::population::{initial_population, population_seed};
use crate::gomea::run::Run;
use crate::gomea::serial::{self, FosOrder, LinkageSource, LocalSearchSetting, SerialConfig};
use crate::linkage::coloring::{ColoringMethod, variable_coloring};
use crate::linkage::conflicts::Sets;
use crate::linkage::fos::{Fos, LinkageModel};
use crate::problem::GrayBoxProblem;
use crate::stop::StopCheck;
use pgomea_device::rng::SplitMix64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Serial GOMEA with Forced Improvement (Algorithms 1 and 2 of the paper).
    Serial,
    /// Parallel GOMEA: GOM on colour groups of independent linkage sets (Algorithms 3 and 4).
    Parallel,
}

impl Choice for Algorithm {
    const ALL: &'static [Self] = &[Algorithm::Serial, Algorithm::Parallel];
    fn name(self) -> &'static str {
        match self {
            Algorithm::Serial => "serial",
            Algorithm::Parallel => "parallel",
        }
    }
    fn help(self) -> &'static str {
        match self {
            Algorithm::Serial => "Serial GOMEA with Forced Improvement (Algorithms 1 and 2 of the paper)",
            Algorithm::Parallel => {
                "Parallel GOMEA: GOM on colour groups of independent linkage sets (Algorithms 3 and 4)"
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// CUDA when a driver and a device exist, else the CPU.
    Auto,
    /// Parallel GOM on all CPU cores.
    Cpu,
    /// Parallel GOM on an NVIDIA GPU.
    Cuda,
}

impl Choice for Backend {
    const ALL: &'static [Self] = &[Backend::Auto, Backend::Cpu, Backend::Cuda];
    fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }
    }
    fn help(self) -> &'static str {
        match self {
            Backend::Auto => "CUDA when a driver and a device exist, else the CPU",
            Backend::Cpu => "Parallel GOM on all CPU cores",
            Backend::Cuda => "Parallel GOM on an NVIDIA GPU",
        }
    }
}

impl Backend {
    /// `Auto` becomes `Cuda` when a driver and a device exist, else `Cpu`; with `say`, prints which
    /// and why on stderr.
    pub fn resolve(self, say: bool) -> Backend {
        match self {
            Backend::Auto => match crate::backend::cuda::probe() {
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FosOrderKind {
    /// A random permutation of the linkage sets per solution.
    Random,
    /// Colour groups in random order, the sets of a group in random order (parallel GOM's order).
    Colored,
}

impl Choice for FosOrderKind {
    const ALL: &'static [Self] = &[FosOrderKind::Random, FosOrderKind::Colored];
    fn name(self) -> &'static str {
        match self {
            FosOrderKind::Random => "random",
            FosOrderKind::Colored => "colored",
        }
    }
    fn help(self) -> &'static str {
        match self {
            FosOrderKind::Random => "A random permutation of the linkage sets per solution",
            FosOrderKind::Colored => {
                "Colour groups in random order, the sets of a group in random order (parallel GOM's order)"
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct SolveConfig {
    pub algorithm: Algorithm,
    pub backend: Backend,
    pub linkage: LinkageModel,
    pub coloring: ColoringMethod,
    pub fos_order: FosOrderKind,
    /// Forced Improvement (serial GOMEA's, or parallel FI for parallel GOMEA). The paper: on for
    /// serial GOMEA, off for parallel GOMEA.
    pub forced_improvement: bool,
    /// Colour-grouped local search (both algorithms); off in the paper.
    pub local_search: LocalSearchMode,
    /// Annealing sweeps of every local search before its greedy descent (0: greedy alone; None:
    /// [`default_anneal_sweeps`] for the backend the run gets).
    pub anneal_sweeps: Option<u32>,
    pub seed: u64,
    pub ims: ImsConfig,
    /// Threads of the CPU backend (None: all cores).
    pub threads: Option<usize>,
    /// The most device memory the CUDA backend may allocate for the run, in bytes (None: what
    /// the device has).
    pub device_memory_limit: Option<u64>,
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
            local_search: LocalSearchMode::Off,
            anneal_sweeps: Some(0),
            seed: 1,
            ims: ImsConfig::default(),
            threads: None,
            device_memory_limit: None,
            ptx: None,
        }
    }
}

/// What a run found, and what it cost.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub instance: String,
    /// The type of problem (`max-cut`, `nk`, ...).
    pub problem: String,
    pub variables: usize,
    pub subfunctions: usize,
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
    /// The process's peak resident memory when the run ended (Linux), and the peak device memory
    /// the run used (CUDA), in bytes.
    pub peak_host_memory_bytes: Option<u64>,
    pub peak_device_memory_bytes: Option<u64>,
    pub note: Option<String>,
    /// The best solution as a 0/1 string, one character per variable.
    pub solution: String,
    /// Problem-specific facts about the best solution (`GrayBoxProblem::solution_report`: for
    /// MAX-SAT its unsatisfied clauses); numbers as JSON numbers.
    pub report: serde_json::Map<String, serde_json::Value>,
}

/// The linkage model, with the colour groups when the algorithm needs them.
pub struct Model {
    pub fos: Arc<Fos>,
    pub groups: Option<Arc<Vec<Vec<u32>>>>,
    /// Edges of the linkage-model interaction graph, when it was built.
    pub lmig_edges: Option<usize>,
    /// The variables' colour groups and the annealing schedule, when local search runs.
    pub variable_colors: Option<Arc<VariableColors>>,
    pub anneal: Arc<AnnealSchedule>,
    pub times: ModelTimes,
}

/// Seconds spent building each part of a [`Model`]: the linkage model, the counting of the
/// LMIG's edges (for colourings that order by degree; the LMIG itself is never built), the rest
/// of the colouring, and local search's variable colouring and annealing schedule.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ModelTimes {
    pub fos_s: f64,
    pub lmig_s: f64,
    pub coloring_s: f64,
    pub local_search_s: f64,
}

/// The linkage model of `config` for `problem`, coloured when the algorithm needs colour groups:
/// what `solve` runs with, and what `pgomea info` describes.
/// Stops with `Error::Stopped` when `stop` says so.
pub fn build_model(problem: &dyn GrayBoxProblem, config: &SolveConfig, stop: &StopCheck) -> Result<Model> {
    let mut rng = SplitMix64::stream(config.seed, 0x666f73);
    let needs_groups = config.algorithm == Algorithm::Parallel || config.fos_order == FosOrderKind::Colored;
    if config.linkage == LinkageModel::Lt && needs_groups {
        return Err(Error::usage(
            "the learned linkage tree (lt) changes every generation and cannot be coloured once: \
             use it with --algo serial --fos-order random, or pick flt, bflt:K or univariate",
        ));
    }
    // The linkage sets (a tree has 2l - 1), their interaction graph and colouring take about this
    // much per variable (the learned tree a dense l x l matrix of mutual information): checked
    // before any of it is allocated.
    let l = problem.variables() as u128;
    let learned = if config.linkage == LinkageModel::Lt { 4 * l * l + l * l.div_ceil(8) } else { 0 };
    crate::problem::memory::ensure(
        96 * l + 32 * problem.subfunctions() as u128 + learned,
        &format!("the linkage model {} of {l} variables", config.linkage),
    )?;
    let mut times = ModelTimes::default();
    let t = Instant::now();
    let fos = Arc::new(Fos::build(&config.linkage, problem, &mut rng, stop)?);
    times.fos_s = t.elapsed().as_secs_f64();
    let (groups, lmig_edges) = if needs_groups {
        let t = Instant::now();
        let (coloring, report) = config.coloring.color_sets(Sets::Fos(&fos), problem, stop)?;
        times.lmig_s = report.degrees_s;
        times.coloring_s = t.elapsed().as_secs_f64() - report.degrees_s;
        (Some(Arc::new(coloring.groups())), report.lmig_edges.map(|e| e as usize))
    } else {
        (None, None)
    };
    let t = Instant::now();
    let variable_colors = match config.local_search {
        LocalSearchMode::Off => None,
        _ => Some(Arc::new(VariableColors::from_coloring(&variable_coloring(problem, config.coloring, stop)?))),
    };
    let anneal = Arc::new(match variable_colors {
        Some(_) => AnnealSchedule::new(problem.functions(), config.seed, stop)?,
        None => AnnealSchedule::default(),
    });
    times.local_search_s = t.elapsed().as_secs_f64();
    Ok(Model { fos, groups, lmig_edges, variable_colors, anneal, times })
}

/// The default population cap: the largest power-of-two multiple of n_base whose genes (three
/// copies, as parallel GOM keeps) fit in a quarter of the available memory.
pub fn default_population_cap(l: usize, n_base: usize) -> usize {
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok())
        })
        .map(|kib| kib * 1024)
        .unwrap_or(4 << 30);
    let budget = available / 4;
    let mut n = n_base.max(1);
    while n.saturating_mul(8).saturating_mul(l.max(1)) <= budget && n < (1 << 24) {
        n *= 2;
    }
    n
}

/// Refuses (as out of memory, so that the multi-start scheme stops growing there) a population of
/// `size` solutions of `per_solution` bytes each that the machine's memory cannot hold.
fn fits_in_memory(size: usize, per_solution: u128) -> Result<()> {
    crate::problem::memory::ensure(size as u128 * per_solution, &format!("a population of {size} solutions"))
        .map_err(|e| Error::OutOfMemory { population_size: size, message: e.to_string() })
}

/// The annealing sweeps of a local search by default: 3000 on the GPU, 1000 on the CPU (serial
/// GOMEA and the CPU backend), both measured (benchmarks/RESULTS.md, section 9.1): on G-set
/// graphs a longer anneal finds better cuts; on the CPU, 1000 sweeps found cuts as good as 3000
/// and better than 300 in 15 s, and spend a third of what 3000 do on instances that GOM solves
/// quickly (small traps, SAT).
pub fn default_anneal_sweeps(backend: Backend) -> u32 {
    match backend {
        Backend::Cuda => 3000,
        Backend::Cpu | Backend::Auto => 1000,
    }
}

/// Runs the configured algorithm on `problem` within `run`'s limits.
pub fn solve<'a>(
    problem: &'a dyn GrayBoxProblem,
    config: &SolveConfig,
    run: &mut Run,
    best_known: Option<i64>,
) -> Result<Outcome> {
    let setup_start = Instant::now();
    // Opening the GPU (context, kernel load) takes a fraction of a second: do it on another
    // thread while the linkage model and its colouring are built.
    let backend = match config.algorithm {
        Algorithm::Parallel => config.backend.resolve(run.verbose()),
        Algorithm::Serial => Backend::Cpu,
    };
    let opening = (backend == Backend::Cuda).then(|| {
        let ptx = config.ptx;
        std::thread::spawn(move || crate::backend::cuda::Gpu::shared(ptx))
    });
    let stop = run.stop_check();
    let seed = config.seed;
    let verbose = run.verbose();
    // The set-up: the linkage model, its colourings and (parallel GOM) the layout and its upload.
    let set_up = || -> Result<(Model, Option<Arc<cuda::Gpu>>, String, Ims<'a>)> {
        let model = build_model(problem, config, &stop)?;
        let mut device: Option<Arc<cuda::Gpu>> = None;
        let (backend_name, ims) = match config.algorithm {
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
                    local_search: model.variable_colors.clone().map(|colors| LocalSearchSetting {
                        mode: config.local_search,
                        colors,
                        anneal: model.anneal.clone(),
                        sweeps: config.anneal_sweeps.unwrap_or(default_anneal_sweeps(Backend::Cpu)),
                    }),
                };
                // Population and offspring, their fitness, the FI counters.
                let per_solution = 2 * problem.variables() as u128 + 24;
                let factory =
                    move |index: usize, size: usize, run: &mut Run| -> Result<Option<Box<dyn PopulationEngine + 'a>>> {
                        fits_in_memory(size, per_solution)?;
                        Ok(serial::new_engine(serial.clone(), problem, size, population_seed(seed, index), run))
                    };
                ("cpu (serial)".to_string(), Ims::new(config.ims.clone(), Box::new(factory))?)
            }
            Algorithm::Parallel => {
                let gpu = match opening.map(|handle| handle.join()) {
                    Some(Ok(Ok(gpu))) => Some(gpu),
                    // `--backend auto`: a GPU that fails at start leaves the run to the CPU.
                    Some(Ok(Err(e))) if config.backend == Backend::Auto => {
                        if verbose {
                            eprintln!("backend: CPU (the GPU failed at start: {e})");
                        }
                        None
                    }
                    Some(Ok(Err(e))) => return Err(e),
                    Some(Err(_)) => return Err(Error::Cuda("opening the GPU failed".into())),
                    None => None,
                };
                if let Some(gpu) = &gpu {
                    gpu.reset_memory_peak()?;
                }
                device = gpu.clone();
                let sweeps = config
                    .anneal_sweeps
                    .unwrap_or_else(|| default_anneal_sweeps(if gpu.is_some() { Backend::Cuda } else { Backend::Cpu }));
                parallel_ims(problem, config, gpu, &model, sweeps, &stop)?
            }
        };
        Ok((model, device, backend_name, ims))
    };
    let mut setup = match set_up() {
        Ok(setup) => Some(setup),
        // Cut short by the time limit or a signal: the answer is the best of a first population
        // drawn and evaluated whole, as every run's first population is.
        Err(Error::Stopped(reason)) => {
            run.set_stop(reason);
            initial_population(problem, config.ims.n_base.max(1), population_seed(seed, 0), run);
            None
        }
        Err(e) => return Err(e),
    };
    let setup_s = setup_start.elapsed().as_secs_f64();
    if let Some((_, _, _, ims)) = &mut setup {
        ims.run(run)?;
    }
    // A trace write error does not lose the result: the run keeps it for the caller to report.
    let _ = run.flush_trace();
    let elitist =
        run.elitist().ok_or_else(|| Error::Internal("the run ended before any solution was evaluated".into()))?;
    // The reported best is the full evaluation of the reported solution, or no answer at all.
    let full = problem.evaluate(&elitist.genes);
    if full != elitist.fitness {
        return Err(Error::Internal(format!(
            "the best solution's fitness was computed as {} but a full evaluation gives {full}",
            elitist.fitness
        )));
    }
    let target = run.limits.target;
    Ok(Outcome {
        instance: problem.name().to_string(),
        problem: problem.problem_type().to_string(),
        variables: problem.variables(),
        subfunctions: problem.subfunctions(),
        algorithm: config.algorithm,
        backend: setup.as_ref().map_or_else(|| "none (stopped during set-up)".to_string(), |s| s.2.clone()),
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
        generations: setup.as_ref().map_or(0, |s| s.3.total_generations()),
        populations: setup.as_ref().map_or_else(Vec::new, |s| s.3.sizes()),
        fos_sets: setup.as_ref().map_or(0, |s| s.0.fos.sets.len()),
        colors: setup.as_ref().and_then(|s| s.0.groups.as_ref().map(|g| g.len())),
        setup_s,
        peak_host_memory_bytes: peak_resident_memory(),
        peak_device_memory_bytes: setup.as_ref().and_then(|s| s.1.as_ref().map(|g| g.peak_memory() as u64)),
        note: setup.as_ref().and_then(|s| s.3.cap_note.clone()),
        solution: elitist.genes.iter().map(|&g| if g == 0 { '0' } else { '1' }).collect(),
        report: facts_json(problem.solution_report(&elitist.genes)),
    })
}

/// The process's peak resident set size (VmHWM of /proc/self/status), where the system tells it.
fn peak_resident_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Named facts as a JSON object, in their order; a value that reads as an integer becomes a
/// number.
pub fn facts_json(facts: Vec<(&'static str, String)>) -> serde_json::Map<String, serde_json::Value> {
    facts
        .into_iter()
        .map(|(k, v)| {
            let value = v.parse::<i64>().map(serde_json::Value::from).unwrap_or(serde_json::Value::String(v));
            (k.to_string(), value)
        })
        .collect()
}

/// The multi-start scheme over parallel GOMEA: on `gpu` if one is given (opened by the caller),
/// else on the CPU backend.
fn parallel_ims<'a>(
    problem: &'a dyn GrayBoxProblem,
    config: &SolveConfig,
    gpu: Option<Arc<cuda::Gpu>>,
    model: &Model,
    anneal_sweeps: u32,
    stop: &StopCheck,
) -> Result<(String, Ims<'a>)> {
    let groups = model.groups.as_ref().ok_or_else(|| Error::usage("parallel GOM needs colour groups"))?;
    let mut layout = GroupLayout::new(problem, &model.fos, groups, stop)?;
    if let Some(colors) = &model.variable_colors {
        layout.local_search = (**colors).clone();
        layout.anneal = (*model.anneal).clone();
    }
    let layout = Arc::new(layout);
    let hybrid =
        Hybrid { forced_improvement: config.forced_improvement, local_search: config.local_search, anneal_sweeps };
    // P, O and O' on the host (the CPU backend; the CUDA backend keeps the initial population),
    // fitness, and a row of donors, deltas, masks and subfunction differences per solution.
    let per_solution =
        3 * layout.variables as u128 + 32 + 13 * layout.max_group_slots as u128 + 8 * layout.max_group_deps as u128;
    let seed = config.seed;
    let ims_config: ImsConfig = config.ims.clone();
    match gpu {
        Some(gpu) => {
            let name = format!("cuda ({})", gpu.name());
            let shared = cuda::SharedArrays::upload(&gpu, problem, &layout, config.device_memory_limit)?;
            let factory =
                move |index: usize, size: usize, run: &mut Run| -> Result<Option<Box<dyn PopulationEngine + 'a>>> {
                    fits_in_memory(size, layout.variables as u128 + 16)?;
                    let seed = population_seed(seed, index);
                    let Some(population) = initial_population(problem, size, seed, run) else { return Ok(None) };
                    let fitness = population.fitness.clone();
                    let backend =
                        cuda::new_backend(gpu.clone(), shared.clone(), layout.clone(), population, seed, None)?;
                    Ok(Some(Box::new(ParallelGomea::new(backend, layout.clone(), seed, fitness).hybrid(hybrid, run)?)))
                };
            Ok((name, Ims::new(ims_config, Box::new(factory))?))
        }
        None => {
            let pool = Arc::new(cpu::thread_pool(config.threads)?);
            let name = format!("cpu ({} threads)", pool.current_num_threads());
            let factory =
                move |index: usize, size: usize, run: &mut Run| -> Result<Option<Box<dyn PopulationEngine + 'a>>> {
                    fits_in_memory(size, per_solution)?;
                    let seed = population_seed(seed, index);
                    let Some(population) = initial_population(problem, size, seed, run) else { return Ok(None) };
                    let fitness = population.fitness.clone();
                    let backend = cpu::new_backend(problem, layout.clone(), population, seed, pool.clone());
                    Ok(Some(Box::new(ParallelGomea::new(backend, layout.clone(), seed, fitness).hybrid(hybrid, run)?)))
                };
            Ok((name, Ims::new(ims_config, Box::new(factory))?))
        }
    }
}
