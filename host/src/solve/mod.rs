//! One optimisation run, the library's front door: a problem and a [`RunConfig`] (resolved from
//! [`RunOptions`], [`config`]) to an [`Outcome`].
//!
//! [`solve`] runs in steps, each a function below: open the device (on another thread, while the
//! model is built), build the linkage model and its colourings ([`build_model`]), make the
//! multi-start scheme over the chosen algorithm and backend (`serial_ims`, `parallel_ims`),
//! run it, and check and report the best solution (`finish`). Every step of the set-up checks
//! the run's clock and stop flag; a run stopped before its first population was evaluated still
//! answers, with a random solution evaluated in full.
//!
//! ```
//! use pgomea::problem::GrayBoxProblem;
//! use pgomea::solve::{Hooks, RunOptions, solve};
//! let problem = pgomea::problem::maxcut::MaxCut::new(pgomea::problem::generate::default_instance())?;
//! let config = RunOptions { max_evaluations: Some(2000.0), ..RunOptions::default() }.resolve(&problem, None)?;
//! let outcome = solve(&problem, &config, Hooks::default())?;
//! assert_eq!(outcome.best_fitness, problem.evaluate(&outcome.genes()));
//! # Ok::<(), pgomea::Error>(())
//! ```

mod checks;
pub mod config;
mod defaults;
pub mod options;
mod values;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::Serialize;

pub use self::config::{Algorithm, Backend, FosOrderKind, RunConfig, RunOptions, Target};
use crate::backend::{cpu, cuda};
use crate::error::{Error, Result};
use crate::gomea::LocalSearchMode;
use crate::gomea::ims::Ims;
use crate::gomea::local_search::{AnnealSchedule, AnnealStart, VariableColors};
use crate::gomea::parallel::Hybrid;
use crate::gomea::parallel::ParallelGomea;
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::population::{PopulationStart, new_population, population_seed};
use crate::gomea::run::{Observer, Run, StopReason, TracePoint};
use crate::gomea::serial::{self, FosOrder, LinkageSource, LocalSearchSetting, SerialConfig};
use crate::gomea::{Population, PopulationEngine};
use crate::linkage::coloring::variable_coloring;
use crate::linkage::conflicts::Sets;
use crate::linkage::fos::{Fos, LinkageModel};
use crate::problem::GrayBoxProblem;
use crate::stop::StopCheck;
use pgomea_device::rng::SplitMix64;
use pgomea_device::stage::WARP_SHIFT;

/// What a caller lends a run besides its configuration: when it started (the time limit counts
/// from there; default: now), the flag that stops it (a signal handler's, Ctrl-C in Python),
/// and who hears of its progress ([`Observer`]).
///
/// A clock started before the run (say, before the instance was read) counts against its time
/// limit; a run whose limit is spent before its first population still answers, with a random
/// solution evaluated in full:
///
/// ```
/// use std::time::{Duration, Instant};
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::solve::{Hooks, RunOptions, solve};
/// use pgomea::stop::StopReason;
/// let problem = pgomea::problem::maxcut::MaxCut::new(pgomea::problem::generate::default_instance())?;
/// let config = RunOptions { time_limit: Some(1.0), ..RunOptions::default() }.resolve(&problem, None)?;
/// let start = Instant::now().checked_sub(Duration::from_secs(2)).expect("the clock has run 2 s");
/// let outcome = solve(&problem, &config, Hooks { start: Some(start), ..Hooks::default() })?;
/// assert_eq!(outcome.stop_reason, StopReason::TimeLimit);
/// assert!(outcome.time_s >= 2.0);
/// assert_eq!(outcome.best_fitness, problem.evaluate(&outcome.genes()));
/// # Ok::<(), pgomea::Error>(())
/// ```
///
/// The stop flag, set from another thread, ends a run within a moment (the time limit here
/// would end it after 10 minutes):
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::time::Duration;
/// use pgomea::solve::{Hooks, RunOptions, solve};
/// use pgomea::stop::StopReason;
/// let problem = pgomea::problem::maxcut::MaxCut::new(pgomea::problem::generate::default_instance())?;
/// let config = RunOptions { time_limit: Some(600.0), ..RunOptions::default() }.resolve(&problem, None)?;
/// let stop = Arc::new(AtomicBool::new(false));
/// let flag = stop.clone();
/// let stopper = std::thread::spawn(move || {
///     std::thread::sleep(Duration::from_millis(200));
///     flag.store(true, Ordering::Relaxed);
/// });
/// let outcome = solve(&problem, &config, Hooks { stop: Some(stop), ..Hooks::default() })?;
/// stopper.join().unwrap();
/// assert_eq!(outcome.stop_reason, StopReason::Interrupted);
/// assert!(outcome.time_s < 600.0);
/// # Ok::<(), pgomea::Error>(())
/// ```
#[derive(Default)]
pub struct Hooks<'a> {
    /// When the run's clock started (default: the call of `solve`).
    pub start: Option<Instant>,
    /// A flag that stops the run when set, from any thread.
    pub stop: Option<Arc<AtomicBool>>,
    /// Who hears of the run's progress, improvements and notes.
    pub observer: Option<&'a mut dyn Observer>,
}

/// What a run found, and what it cost.
///
/// For a problem reduced from an energy model (here an Ising model of 3 spins, solved as Max-Cut
/// on 4 vertices), the outcome has the energy and the solution in the model's variables too:
///
/// ```
/// use pgomea::problem::ising::IsingProblem;
/// use pgomea::solve::{Hooks, RunOptions, solve};
/// use pgomea::stop::StopReason;
/// // E(s) = s0 - s0 s1 - s1 s2, lowest (-3) at s = (-1, -1, -1).
/// let model = IsingProblem::spin(3, &[(0, 1)], &[(0, 1, -1), (1, 2, -1)], 0)?;
/// // (The default local search anneals each new population: a budget smaller than that anneal
/// // ends the run before the first population has cooled.)
/// let config = RunOptions { max_evaluations: Some(1e5), ..RunOptions::default() }.resolve(&model, None)?;
/// let outcome = solve(&model, &config, Hooks::default())?;
/// assert_eq!(outcome.stop_reason, StopReason::EvaluationLimit);
/// assert_eq!(outcome.energy, Some(-3.0));
/// assert_eq!(outcome.energy_text.as_deref(), Some("-3"));
/// assert_eq!(outcome.model_solution_text().as_deref(), Some("000")); // spin -1 is 0
/// assert_eq!(outcome.genes().len(), 4); // the last gene is the reduction's field vertex
/// assert_eq!((outcome.variables, outcome.problem.as_str()), (4, "ising"));
/// # Ok::<(), pgomea::Error>(())
/// ```
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The instance's name.
    pub instance: String,
    /// The type of problem (`max-cut`, `nk`, ...).
    pub problem: String,
    /// The problem's variables.
    pub variables: usize,
    /// The problem's subfunctions.
    pub subfunctions: usize,
    /// The algorithm that ran.
    pub algorithm: Algorithm,
    /// The backend the run got, in words (`cuda (NVIDIA H100 ...)`, `cpu (16 threads)`, `cpu
    /// (serial)` for serial GOMEA, `none (stopped during set-up)`).
    pub backend: String,
    /// The linkage model, as the options spell it (`flt`, `bflt:16`).
    pub linkage: String,
    /// The seed of every random choice.
    pub seed: u64,
    /// The best solution's fitness, evaluated again in full.
    pub best_fitness: i64,
    /// The instance's best-known value, where known.
    pub best_known: Option<i64>,
    /// The fitness at which the run would stop, if any.
    pub target: Option<i64>,
    /// Whether the best fitness reached the target (false without one).
    pub reached_target: bool,
    /// Why the run ended (in JSON as its words, [`StopReason::as_str`]).
    #[serde(serialize_with = "stop_words")]
    pub stop_reason: StopReason,
    /// Seconds from the run's start ([`Hooks::start`], default: the call) to its end.
    pub time_s: f64,
    /// Full-evaluation equivalents: a partial evaluation of k of the m subfunctions counts k/m.
    pub evaluations: f64,
    /// Subfunction evaluations, partial ones each counted.
    pub subfunction_evaluations: u64,
    /// (solution, linkage set) pairs mixed, in GOM and in Forced Improvement.
    pub gom_steps: u64,
    /// Partition mixes into the elitist (`RunConfig::partition_mixing`) and the seconds they
    /// took on the host: a population's best is mixed on a thread of its own while the next
    /// generation runs, so those seconds overlap the search.
    pub partition_mixes: u64,
    /// Host seconds of the partition mixes (see `partition_mixes`).
    pub partition_mixing_s: f64,
    /// Generations of every population together.
    pub generations: u64,
    /// Sizes of every population the multi-start scheme started.
    pub populations: Vec<usize>,
    /// Linkage sets of the model.
    pub fos_sets: usize,
    /// Colour groups of the linkage sets, where the run coloured them.
    pub colors: Option<usize>,
    /// Seconds from the run's start to its set-up: where the caller's clock started earlier (the
    /// CLI's starts with the process), reading the instance and choosing the defaults from it
    /// (the lattice probe); `time_s` is this, then `setup_s`, then the search.
    pub before_setup_s: f64,
    /// Seconds before the first generation could start: the linkage model, its colourings, the
    /// layout and its upload.
    pub setup_s: f64,
    /// The process's peak resident memory when the run ended (Linux), and the peak device memory
    /// the run used (CUDA), in bytes.
    pub peak_host_memory_bytes: Option<u64>,
    /// The device's peak (see `peak_host_memory_bytes`).
    pub peak_device_memory_bytes: Option<u64>,
    /// What the run had to say about its course (a population cap, a shortened annealing).
    pub note: Option<String>,
    /// The best solution, one bit per variable (in JSON as a 0/1 string, one character each).
    #[serde(serialize_with = "bit_string")]
    pub solution: Vec<bool>,
    /// For a problem reduced from a model that minimises an energy (an Ising model, a QUBO): the
    /// best solution's energy (exact as text: `energy_text`) and the solution in the model's
    /// variables (0/1; spin +1 is 1).
    #[serde(skip)]
    pub energy: Option<f64>,
    /// In JSON as `energy`, exact: an integer where it is one (and fits 64 bits), else its
    /// decimal text (a float would round past 2^53).
    #[serde(rename = "energy", serialize_with = "exact_number", skip_serializing_if = "Option::is_none")]
    pub energy_text: Option<String>,
    /// The best solution in the model's variables (see `energy`).
    #[serde(serialize_with = "bit_string_option", skip_serializing_if = "Option::is_none")]
    pub model_solution: Option<Vec<bool>>,
    /// Problem-specific facts about the best solution (`GrayBoxProblem::solution_report`: for
    /// MAX-SAT its unsatisfied clauses); numbers as JSON numbers.
    pub report: serde_json::Map<String, serde_json::Value>,
    /// The configuration the run ran, complete (the annealing sweeps of the backend it got).
    pub config: RunConfig,
    /// One point per improvement of the best solution (in result files apart from the outcome).
    #[serde(skip)]
    pub trace: Vec<TracePoint>,
}

impl Outcome {
    /// The best solution, one gene (0 or 1) per variable: what [`GrayBoxProblem::evaluate`] takes.
    pub fn genes(&self) -> Vec<u8> {
        self.solution.iter().map(|&bit| u8::from(bit)).collect()
    }

    /// The best solution as a 0/1 string, one character per variable (as in JSON).
    pub fn solution_text(&self) -> String {
        bit_text(&self.solution)
    }

    /// The model's solution (an Ising model's, a QUBO's) as a 0/1 string, as in JSON.
    pub fn model_solution_text(&self) -> Option<String> {
        self.model_solution.as_deref().map(bit_text)
    }

    /// The stop reason with what it means where the run chose its own stop (a run without
    /// limits, [`RunConfig::stop_when_answered`]): which of the rule's stops it took.
    pub fn stop_explained(&self) -> String {
        let words = self.stop_reason.as_str().to_string();
        let why = match self.stop_reason {
            StopReason::OptimumProven => format!("every one of the 2^{} solutions evaluated", self.variables),
            StopReason::Stalled => format!(
                "no improvement for max({} s, {} x the time spent), the stop of a run without limits",
                config::STALL_LEAST_S,
                config::STALL_SHARE
            ),
            StopReason::TimeLimit => match &self.config.time_limit_chosen {
                Some(chosen) => format!("{chosen}, {} s", self.config.time_limit.unwrap_or(0.0)),
                None => return words,
            },
            _ => return words,
        };
        format!("{words} ({why})")
    }
}

/// Runs `config` on `problem` and returns its outcome; `hooks` give the start of the clock, the
/// stop flag and the observer ([`Hooks`] shows both). The best solution is evaluated again in
/// full before it is returned; errors (a GPU asked for that cannot be used, a population that
/// cannot fit) are values, and the library prints nothing.
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::problem::trap;
/// use pgomea::solve::{Algorithm, Backend, Hooks, RunOptions, Target, solve};
/// // 4 deceptive traps of 4 variables: the optimum, 16, is all ones.
/// let problem = trap::concatenated(4, 4, 1, true)?;
/// let options = RunOptions {
///     algorithm: Some(Algorithm::Parallel),
///     backend: Some(Backend::Cpu),
///     target: Some(Target::BEST_KNOWN),
///     time_limit: Some(60.0),
///     ..RunOptions::default()
/// };
/// let config = options.resolve(&problem, problem.known_optimum())?;
/// let outcome = solve(&problem, &config, Hooks::default())?;
/// assert!(outcome.reached_target);
/// assert_eq!(outcome.best_fitness, 16);
/// assert_eq!(outcome.solution, vec![true; 16]);
/// assert!(outcome.backend.starts_with("cpu"));
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn solve(problem: &dyn GrayBoxProblem, config: &RunConfig, hooks: Hooks<'_>) -> Result<Outcome> {
    let mut run = Run::new(problem, config.limits());
    if let Some(start) = hooks.start {
        run = run.with_start(start);
    }
    if let Some(flag) = hooks.stop {
        run = run.with_stop_flag(flag);
    }
    if let Some(observer) = hooks.observer {
        run = run.with_observer(observer);
    }
    run.verify = config.verify;
    if config.stop_when_answered {
        run.stop_when_answered(std::time::Duration::from_secs_f64(config::STALL_LEAST_S), config::STALL_SHARE);
    }
    solve_run(problem, config, &mut run)
}

/// [`solve`] with a run the caller made (and may look into afterwards: its trace, its counters).
/// The run's limits are the caller's; `config`'s limits are not applied again.
///
/// ```
/// use pgomea::gomea::run::Run;
/// use pgomea::solve::{RunOptions, solve_run};
/// let problem = pgomea::problem::maxcut::MaxCut::new(pgomea::problem::generate::default_instance())?;
/// let config = RunOptions { max_evaluations: Some(2000.0), ..RunOptions::default() }.resolve(&problem, None)?;
/// let mut run = Run::new(&problem, config.limits());
/// let outcome = solve_run(&problem, &config, &mut run)?;
/// // The run is the caller's to look into: its trace ends at the best fitness, its counter
/// // stopped at the budget.
/// assert_eq!(run.trace.last().map(|p| p.best_fitness), Some(outcome.best_fitness));
/// assert_eq!(run.elitist_fitness(), Some(outcome.best_fitness));
/// assert!(run.evaluations() >= 2000.0);
/// assert_eq!(run.evaluations(), outcome.evaluations);
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn solve_run(problem: &dyn GrayBoxProblem, config: &RunConfig, run: &mut Run) -> Result<Outcome> {
    // The set-up's seconds are the run's clock since it began.
    let before_setup_s = run.elapsed().as_secs_f64();
    let since_setup = |run: &Run| run.elapsed().as_secs_f64() - before_setup_s;
    if run.stops_when_answered() && problem.variables() <= config::PROVEN_OPTIMUM_MAX_VARIABLES {
        match enumerate(problem, run) {
            Ok(()) => run.set_stop(StopReason::OptimumProven),
            Err(Error::Stopped(reason)) => run.set_stop(reason),
            Err(e) => return Err(e),
        }
        let backend = "none (every solution enumerated)".to_string();
        return finish(problem, config, run, Report { backend, before_setup_s, ..Report::default() });
    }
    let mut effective = config.clone();
    let setup = match set_up(problem, config, &mut effective, run) {
        Ok(setup) => setup,
        Err(Error::Stopped(reason)) => {
            // Stopped before a population could be evaluated: answer with one random solution.
            run.set_stop(reason);
            let after = since_setup(run);
            run.note(&match reason {
                StopReason::TimeLimit => format!(
                    "the time limit ended the set-up (linkage model, colouring, layout) {after:.1} s after it began, before any population: the answer is one random solution; a longer time limit leaves time for the search"
                ),
                _ => format!("stopped during the set-up, {after:.1} s after it began: the answer is one random solution"),
            });
            let x = random_genotype(problem.variables(), config.seed);
            let fitness = crate::problem::full_evaluation(problem, &x, &run.counter);
            run.offer_owned(x, fitness);
            let setup_s = since_setup(run);
            return finish(problem, &effective, run, Report { before_setup_s, setup_s, ..Report::default() });
        }
        Err(e) => return Err(e),
    };
    let mut ims = setup.ims;
    ims.set_partition_mixing(run, config.partition_mixing);
    let setup_s = since_setup(run);
    ims.run(run)?;
    let report = Report {
        backend: setup.backend,
        before_setup_s,
        setup_s,
        generations: ims.total_generations(),
        populations: ims.sizes(),
        fos_sets: setup.fos_sets,
        colors: setup.colors,
        note: ims.cap_note.clone(),
        device: setup.device,
        mixes: ims.mixes(),
    };
    drop(ims);
    finish(problem, &effective, run, report)
}

/// Every solution of `problem`, in the order of a Gray code (one variable flipped from one to
/// the next), each offered to `run` where it is better: what proves the optimum of a run without
/// limits on a small instance ([`config::PROVEN_OPTIMUM_MAX_VARIABLES`]). A flip's change is
/// the problem's own subfunctions of that variable, and a solution that looks better is
/// evaluated again in full before it is offered, so the answer is always an evaluated solution.
/// Stops (`Error::Stopped`) when the run must, its best offered so far.
fn enumerate(problem: &dyn GrayBoxProblem, run: &mut Run) -> Result<()> {
    let (l, f) = (problem.variables(), problem.functions());
    let mut x = vec![0u8; l];
    let mut fitness = crate::problem::full_evaluation(problem, &x, &run.counter);
    run.offer(&x, fitness);
    // Each subfunction's value on `x`.
    let mut values: Vec<i64> = (0..problem.subfunctions()).map(|s| problem.evaluate_subfunction(s, &x)).collect();
    let stop = run.stop_check().clone();
    let mut best = fitness;
    for k in 1..1usize << l {
        stop.every(k, 1 << 12)?;
        let v = k.trailing_zeros() as usize;
        x[v] ^= 1;
        let dependent = f.dependent(v);
        for &s in dependent {
            let value = problem.evaluate_subfunction(s as usize, &x);
            fitness += value - std::mem::replace(&mut values[s as usize], value);
        }
        run.counter.add_subfunctions(dependent.len() as u64);
        if fitness > best {
            let full = crate::problem::full_evaluation(problem, &x, &run.counter);
            if full != fitness {
                return Err(Error::Internal(format!(
                    "enumeration: a flip's change gave the fitness {fitness}, a full evaluation {full}"
                )));
            }
            best = fitness;
            run.offer(&x, fitness);
        }
    }
    Ok(())
}

/// What the set-up made: the multi-start scheme, ready to run, and facts for the report.
struct Setup<'a> {
    ims: Ims<'a>,
    backend: String,
    fos_sets: usize,
    colors: Option<usize>,
    device: Option<Arc<cuda::Gpu>>,
}

/// Everything before the first generation; `effective` gets the settings that depend on the
/// device the run got.
fn set_up<'a>(
    problem: &'a dyn GrayBoxProblem,
    config: &RunConfig,
    effective: &mut RunConfig,
    run: &mut Run,
) -> Result<Setup<'a>> {
    run.stop_check().check()?;
    // Opening the GPU (context, kernel load) takes a fraction of a second: on another thread
    // while the linkage model and its colouring are built.
    let backend = match config.algorithm {
        Algorithm::Parallel => choose_backend(config.backend, run),
        Algorithm::Serial => Backend::Cpu,
    };
    let opening = (backend == Backend::Cuda).then(|| std::thread::spawn(cuda::Gpu::shared));
    // A GPU that fails at start leaves the run to the CPU with the GPU's form of the entries,
    // which the CPU reads too (one form is built, not both).
    let model = match build_model(problem, config, run, backend == Backend::Cuda) {
        Ok(model) => model,
        Err(e) => {
            // Stopped or failed: the opening still ends before the run does. A process that
            // exits while another thread is inside the driver (loading the kernels takes seconds
            // on a host that has not compiled them yet) is aborted by the driver.
            if let Some(handle) = opening {
                let _ = handle.join();
            }
            return Err(e);
        }
    };
    let (fos_sets, colors) = (model.fos.len(), model.groups.as_ref().map(|g| g.len()));
    effective.settle_annealing(problem);
    let made = (|| -> Result<(String, Ims<'a>, Option<Arc<cuda::Gpu>>)> {
        Ok(match config.algorithm {
            Algorithm::Serial => {
                let (name, ims) = serial_ims(problem, effective, &model)?;
                (name, ims, None)
            }
            Algorithm::Parallel => {
                let gpu = match opening.map(|handle| handle.join()) {
                    Some(Ok(Ok(gpu))) => Some(gpu),
                    // Auto: a GPU that fails at start leaves the run to the CPU.
                    Some(Ok(Err(e))) if config.backend == Backend::Auto => {
                        run.note(&format!("backend: CPU (the GPU failed at start: {e})"));
                        None
                    }
                    Some(Ok(Err(e))) => return Err(e),
                    Some(Err(_)) => return Err(Error::Cuda("opening the GPU failed".into())),
                    None => None,
                };
                if let Some(gpu) = &gpu {
                    gpu.reset_memory_peak()?;
                }
                run.stop_check().check()?;
                let (name, ims) = parallel_ims(problem, effective, gpu.clone(), &model, run.stop_check())?;
                (name, ims, gpu)
            }
        })
    })()
    .and_then(|made| {
        run.stop_check().check()?;
        Ok(made)
    });
    match made {
        Ok((backend, ims, device)) => Ok(Setup { ims, backend, fos_sets, colors, device }),
        Err(e) => {
            // Stopped (the layout of 10^8 slots, say), the model is freed aside (see
            // `build_model`): what the run made of it went with the error.
            crate::stop::drop_aside(model);
            Err(e)
        }
    }
}

/// `config` with every default decided as [`solve`] would decide it for `problem`, without
/// running: the backend the run would take (`auto` decided now by [`decide_backend`], with why);
/// a GPU that fails at start would still leave the run to the CPU, with the same annealing.
pub fn decide(problem: &dyn GrayBoxProblem, config: &RunConfig) -> (RunConfig, Backend, String) {
    let (backend, why) = match config.algorithm {
        Algorithm::Serial => (Backend::Cpu, "serial GOMEA runs on one CPU core".to_string()),
        Algorithm::Parallel => decide_backend(config.backend),
    };
    let mut effective = config.clone();
    effective.settle_annealing(problem);
    (effective, backend, why)
}

/// `Auto` as it is decided now: `Cuda` when a CUDA driver and a device exist, else `Cpu`; with
/// the reason, in words (the device's name, or why there is none). Any other backend is
/// returned as it is, with no reason.
///
/// ```
/// use pgomea::solve::{Backend, decide_backend};
/// assert_eq!(decide_backend(Backend::Cpu), (Backend::Cpu, String::new()));
/// match decide_backend(Backend::Auto) {
///     (Backend::Cuda, why) => assert!(why.starts_with("CUDA on ")),
///     (backend, why) => assert_eq!((backend, &why[..4]), (Backend::Cpu, "CPU ")),
/// }
/// ```
pub fn decide_backend(asked: Backend) -> (Backend, String) {
    match asked {
        Backend::Auto => match cuda::probe() {
            Ok(name) => (Backend::Cuda, format!("CUDA on {name}")),
            Err(why) => (Backend::Cpu, format!("CPU ({why})")),
        },
        other => (other, String::new()),
    }
}

/// [`decide_backend`], the run's observer hearing which and why.
fn choose_backend(asked: Backend, run: &mut Run) -> Backend {
    let (backend, why) = decide_backend(asked);
    if !why.is_empty() {
        run.note(&format!("backend: {why}"));
    }
    backend
}

/// The parts of the outcome that the set-up and the multi-start scheme know.
#[derive(Default)]
struct Report {
    backend: String,
    before_setup_s: f64,
    setup_s: f64,
    generations: u64,
    populations: Vec<usize>,
    fos_sets: usize,
    colors: Option<usize>,
    note: Option<String>,
    device: Option<Arc<cuda::Gpu>>,
    /// The partition mixes into the elitist and their time.
    mixes: crate::gomea::mixing::MixCount,
}

/// The outcome: the best solution evaluated again in full (a disagreement is an internal error,
/// never an answer), and what the run cost.
fn finish(problem: &dyn GrayBoxProblem, config: &RunConfig, run: &mut Run, report: Report) -> Result<Outcome> {
    run.report_progress(true);
    let elitist =
        run.elitist().ok_or_else(|| Error::Internal("the run ended before any solution was evaluated".into()))?;
    let full = problem.evaluate(&elitist.genes);
    if full != elitist.fitness {
        return Err(Error::Internal(format!(
            "the best solution's fitness was computed as {} but a full evaluation gives {full}",
            elitist.fitness
        )));
    }
    let target = run.limits.target;
    let energy = problem.energy(elitist.fitness);
    Ok(Outcome {
        instance: problem.name().to_string(),
        problem: problem.problem_type().to_string(),
        variables: problem.variables(),
        subfunctions: problem.subfunctions(),
        algorithm: config.algorithm,
        backend: if report.backend.is_empty() { "none (stopped during set-up)".into() } else { report.backend },
        linkage: config.linkage.to_string(),
        seed: config.seed,
        best_fitness: elitist.fitness,
        best_known: config.best_known,
        target,
        reached_target: target.is_some_and(|t| elitist.fitness >= t),
        stop_reason: run
            .stop_reason()
            .ok_or_else(|| Error::Internal("the run ended without a reason to stop".into()))?,
        time_s: run.elapsed().as_secs_f64(),
        evaluations: run.evaluations(),
        subfunction_evaluations: run.counter.subfunction_evaluations(),
        gom_steps: run.gom_steps,
        partition_mixes: report.mixes.mixes,
        partition_mixing_s: report.mixes.seconds,
        generations: report.generations,
        populations: report.populations,
        fos_sets: report.fos_sets,
        colors: report.colors,
        before_setup_s: report.before_setup_s,
        setup_s: report.setup_s,
        peak_host_memory_bytes: peak_resident_memory(),
        peak_device_memory_bytes: report.device.map(|g| g.peak_memory() as u64),
        note: report.note,
        solution: bits(&elitist.genes),
        energy: energy.map(|e| e.to_f64()),
        energy_text: energy.map(|e| e.to_string()),
        // Turned into bits where it lies (a byte each either way): no second array of 10^8.
        model_solution: energy.map(|_| problem.model_solution(&elitist.genes).into_iter().map(|g| g != 0).collect()),
        report: facts_json(problem.solution_report(&elitist.genes)),
        config: config.clone(),
        trace: run.trace.clone(),
    })
}

/// An exact decimal (`energy_text`) as JSON: a number where it is an integer of 64 bits, else
/// the text itself, which no float could hold exactly.
fn exact_number<S: serde::Serializer>(text: &Option<String>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match text.as_deref().map(|t| (t, t.parse::<i64>())) {
        Some((_, Ok(integer))) => s.serialize_i64(integer),
        Some((t, Err(_))) => s.serialize_str(t),
        None => s.serialize_none(),
    }
}

/// Genes as bits.
fn bits(genes: &[u8]) -> Vec<bool> {
    genes.iter().map(|&g| g != 0).collect()
}

/// Bits as a 0/1 string, one character each: how results show a solution.
pub fn bit_text(bits: &[bool]) -> String {
    let mut text = String::with_capacity(bits.len());
    fmt::write(&mut text, format_args!("{}", BitText(bits))).unwrap_or_default();
    text
}

/// Bits as [`bit_text`] shows them, made a piece at a time: a serializer that writes a string as
/// it is shown (serde_json's `collect_str`) writes the solution of 10^8 variables without
/// holding its text.
struct BitText<'b>(&'b [bool]);

impl fmt::Display for BitText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut piece = [0u8; 1 << 14];
        for bits in self.0.chunks(piece.len()) {
            for (c, &bit) in piece.iter_mut().zip(bits) {
                *c = b'0' + bit as u8;
            }
            f.write_str(std::str::from_utf8(&piece[..bits.len()]).map_err(|_| fmt::Error)?)?;
        }
        Ok(())
    }
}

/// [`bit_text`] in JSON (result files, the command line's JSON output, Python).
fn bit_string<S: serde::Serializer>(bits: &[bool], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(&BitText(bits))
}

/// [`bit_string`] of a solution that may be absent.
fn bit_string_option<S: serde::Serializer>(bits: &Option<Vec<bool>>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match bits {
        Some(bits) => bit_string(bits, s),
        None => s.serialize_none(),
    }
}

/// A stop reason in JSON as its words, as result files have always had it.
fn stop_words<S: serde::Serializer>(reason: &StopReason, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(reason.as_str())
}

/// A genotype drawn from the run's seed (the answer of a run stopped during its set-up).
fn random_genotype(l: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::stream(seed, 0x616e737765);
    let mut x = vec![0u8; l];
    // 64 genes from each draw, gene k bit k, 8 at a time: on a huge instance a stopped set-up's
    // answer must come at once.
    for genes in x.chunks_mut(64) {
        let bits = rng.next_u64();
        for (k, eight) in genes.chunks_mut(8).enumerate() {
            // Byte i of `spread` is bit i of the byte in place (0 or 1 << i); adding 0x7f sets
            // the byte's top bit exactly where it is not 0, and the shift brings that bit down.
            let spread = ((bits >> (8 * k)) & 0xff).wrapping_mul(0x0101_0101_0101_0101) & 0x8040_2010_0804_0201;
            let bytes = ((spread + 0x7f7f_7f7f_7f7f_7f7f) >> 7 & 0x0101_0101_0101_0101).to_le_bytes();
            eight.copy_from_slice(&bytes[..eight.len()]);
        }
    }
    x
}

/// The linkage model, with the colour groups when the algorithm needs them.
pub struct Model {
    /// The linkage sets.
    pub fos: Arc<Fos>,
    /// The colour groups of the linkage sets (their indices), where the algorithm needs them.
    pub groups: Option<Arc<Vec<Vec<u32>>>>,
    /// Edges of the linkage-model interaction graph, when it was built.
    pub lmig_edges: Option<usize>,
    /// The variables' colour groups and the annealing schedule, when local search runs.
    pub variable_colors: Option<Arc<VariableColors>>,
    /// The annealing schedule of local search (empty without one).
    pub anneal: Arc<AnnealSchedule>,
    /// Seconds spent on each part.
    pub times: ModelTimes,
}

/// Seconds spent building each part of a [`Model`]: the linkage model, the counting of the
/// LMIG's edges (for colourings that order by degree; the LMIG itself is never built), the rest
/// of the colouring, and local search's variable colouring and annealing schedule.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ModelTimes {
    /// The linkage model.
    pub fos_s: f64,
    /// The count of the LMIG's edges.
    pub lmig_s: f64,
    /// The rest of the colouring.
    pub coloring_s: f64,
    /// Local search's variable colouring and annealing schedule.
    pub local_search_s: f64,
}

/// The linkage model of `config` for `problem`, coloured when the algorithm needs colour groups:
/// what `solve` runs with, and what `pgomea info` describes; local search's entries in the form
/// the GPU reads where `gpu` (parallel GOMEA on the GPU), else the host's. Stops
/// (`Error::Stopped`) when the run must.
pub fn build_model(problem: &dyn GrayBoxProblem, config: &RunConfig, run: &Run, gpu: bool) -> Result<Model> {
    let stop = run.stop_check();
    stop.check()?;
    let mut rng = SplitMix64::stream(config.seed, pgomea_device::rng::streams::FOS_TIES);
    // The linkage sets (a tree has 2l - 1), their interaction graph and colouring take about this
    // much per variable (the learned tree a dense l x l matrix of mutual information): checked
    // before any of it is allocated.
    let l = problem.variables() as u128;
    let learned = if config.linkage == LinkageModel::Lt { 4 * l * l + l * l.div_ceil(8) } else { 0 };
    crate::problem::memory::ensure(
        96 * l + 32 * problem.subfunctions() as u128 + learned,
        &format!("the linkage model {} of {l} variables", config.linkage),
    )?;
    let t = Instant::now();
    let fos = Arc::new(Fos::build(&config.linkage, problem, &mut rng, stop)?);
    let times = ModelTimes { fos_s: t.elapsed().as_secs_f64(), ..ModelTimes::default() };
    let mut model = Model { fos, groups: None, lmig_edges: None, variable_colors: None, anneal: Arc::default(), times };
    match colour_model(&mut model, problem, config, stop, gpu) {
        Ok(()) => Ok(model),
        Err(e) => {
            // Stopped (or failed), what was built is freed aside: the linkage sets and colours of
            // 10^8 variables take a tenth of a second to free, which the answer need not wait for.
            crate::stop::drop_aside(model);
            Err(e)
        }
    }
}

/// The rest of `model` after its linkage sets: their colour groups where the algorithm needs
/// them, the variables' colour groups and the annealing schedule where local search runs.
fn colour_model(
    model: &mut Model,
    problem: &dyn GrayBoxProblem,
    config: &RunConfig,
    stop: &StopCheck,
    gpu: bool,
) -> Result<()> {
    if config.needs_groups() {
        let t = Instant::now();
        let (coloring, report) = config.coloring.color_sets(Sets::Fos(&model.fos), problem, stop)?;
        model.groups = Some(Arc::new(coloring.groups()));
        model.lmig_edges = report.lmig_edges.map(|e| e as usize);
        model.times.lmig_s = report.degrees_s;
        model.times.coloring_s = t.elapsed().as_secs_f64() - report.degrees_s;
    }
    let t = Instant::now();
    if config.local_search != LocalSearchMode::Off {
        let coloring = variable_coloring(problem, config.coloring, stop)?;
        // The GPU reads a warp's entries side by side (`docs/decisions/0027-local-search-entries.md`).
        let shift = if gpu { WARP_SHIFT } else { 0 };
        let colors = VariableColors::build(&coloring, problem.functions(), shift, stop);
        crate::stop::drop_aside(coloring);
        model.variable_colors = Some(Arc::new(colors?));
        model.anneal = Arc::new(AnnealSchedule::new(problem.functions(), config.seed, stop)?);
    }
    model.times.local_search_s = t.elapsed().as_secs_f64();
    Ok(())
}

/// Refuses (as out of memory, so that the multi-start scheme stops growing there) a population of
/// `size` solutions of `per_solution` bytes each that the machine's memory cannot hold.
fn fits_in_memory(size: usize, per_solution: u128) -> Result<()> {
    crate::problem::memory::ensure(size as u128 * per_solution, &format!("a population of {size} solutions"))
        .map_err(|e| Error::OutOfMemory { population_size: size, message: e.to_string() })
}

/// The multi-start scheme over serial GOMEA (`config`'s annealing decided).
fn serial_ims<'a>(problem: &'a dyn GrayBoxProblem, config: &RunConfig, model: &Model) -> Result<(String, Ims<'a>)> {
    // A new population's solutions anneal side by side on the run's threads
    // (docs/decisions/0030-serial-annealing-side-by-side.md); GOM itself is serial.
    let threads = model.variable_colors.as_ref().map(|_| cpu::thread_pool(config.threads)).transpose()?.map(Arc::new);
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
            // Each population's own, set by the factory below.
            sweeps: config.anneal_sweeps_of(0),
            share: config.anneal_share(),
            start: AnnealStart::Hot,
            threads,
        }),
        start: PopulationStart::Random,
    };
    let seed = config.seed;
    // Population and offspring, their fitness, the FI counters.
    let per_solution = 2 * problem.variables() as u128 + 24;
    let scheme = config.clone();
    let factory = move |index: usize, size: usize, run: &mut Run| -> Result<Option<Box<dyn PopulationEngine + 'a>>> {
        fits_in_memory(size, per_solution)?;
        // Population `index`'s annealing grows with the index.
        let mut serial = serial.clone();
        if let Some(search) = &mut serial.local_search {
            search.sweeps = scheme.anneal_sweeps_of(index);
        }
        serial.start = PopulationStart::of(index, scheme.elitist_restarts);
        Ok(serial::new_engine(serial, problem, size, population_seed(seed, index), run))
    };
    Ok(("cpu (serial)".to_string(), Ims::new(config.ims(), Box::new(factory))?))
}

/// The multi-start scheme over parallel GOMEA: on `gpu` if one is given (opened by the caller),
/// else on the CPU backend (`config`'s annealing decided).
fn parallel_ims<'a>(
    problem: &'a dyn GrayBoxProblem,
    config: &RunConfig,
    gpu: Option<Arc<cuda::Gpu>>,
    model: &Model,
    stop: &StopCheck,
) -> Result<(String, Ims<'a>)> {
    let groups = model.groups.as_ref().ok_or_else(|| Error::Internal("parallel GOM needs colour groups".into()))?;
    let mut layout = GroupLayout::new(problem, &model.fos, groups, stop)?;
    if let Some(colors) = &model.variable_colors {
        layout.variable_colors = Arc::clone(colors);
        layout.anneal = (*model.anneal).clone();
    }
    let layout = Arc::new(layout);
    // Population `index` of `size` solutions, begun as the scheme says (at random, or from the
    // elitist with restarts), its seed, and its hybrid parts: its annealing grows with the index
    // and begins where the population's start says. None when the run had to stop meanwhile.
    let begin = {
        let config = config.clone();
        move |index: usize, size: usize, run: &mut Run| -> Option<(Population, u64, Hybrid)> {
            let seed = population_seed(config.seed, index);
            let start = PopulationStart::of(index, config.elitist_restarts);
            let (population, anneal_start) = new_population(problem, start, size, &mut SplitMix64::new(seed), run)?;
            let hybrid = Hybrid {
                forced_improvement: config.forced_improvement,
                local_search: config.local_search,
                anneal_sweeps: config.anneal_sweeps_of(index),
                anneal_share: config.anneal_share(),
                anneal_start,
            };
            Some((population, seed, hybrid))
        }
    };
    // P, O and O' on the host (the CPU backend; the CUDA backend keeps the initial population),
    // fitness, and a row of donors, deltas, masks and subfunction differences per solution.
    let per_solution =
        3 * layout.variables as u128 + 32 + 13 * layout.max_group_slots as u128 + 8 * layout.max_group_deps as u128;
    match gpu {
        #[cfg(not(feature = "cuda"))]
        Some(gpu) => match *gpu {},
        #[cfg(feature = "cuda")]
        Some(gpu) => {
            let name = format!("cuda ({})", gpu.name());
            let shared = cuda::SharedArrays::upload(&gpu, problem, &layout, config.device_memory_limit_bytes(), stop)?;
            let tuning = config.cuda;
            let factory =
                move |index: usize, size: usize, run: &mut Run| -> Result<Option<Box<dyn PopulationEngine + 'a>>> {
                    fits_in_memory(size, layout.variables as u128 + 16)?;
                    let Some((population, seed, hybrid)) = begin(index, size, run) else { return Ok(None) };
                    let fitness = population.fitness.clone();
                    let backend =
                        cuda::new_backend(gpu.clone(), shared.clone(), layout.clone(), population, seed, &tuning)?;
                    Ok(Some(Box::new(ParallelGomea::new(backend, layout.clone(), seed, fitness).hybrid(hybrid, run)?)))
                };
            Ok((name, Ims::new(config.ims(), Box::new(factory))?))
        }
        None => {
            let pool = Arc::new(cpu::thread_pool(config.threads)?);
            let name = format!("cpu ({} threads)", pool.current_num_threads());
            let factory =
                move |index: usize, size: usize, run: &mut Run| -> Result<Option<Box<dyn PopulationEngine + 'a>>> {
                    fits_in_memory(size, per_solution)?;
                    let Some((population, seed, hybrid)) = begin(index, size, run) else { return Ok(None) };
                    let fitness = population.fitness.clone();
                    let backend = cpu::new_backend(problem, layout.clone(), population, seed, pool.clone())?;
                    Ok(Some(Box::new(ParallelGomea::new(backend, layout.clone(), seed, fitness).hybrid(hybrid, run)?)))
                };
            Ok((name, Ims::new(config.ims(), Box::new(factory))?))
        }
    }
}

/// The process's peak resident set size in bytes (VmHWM of /proc/self/status), where the system
/// tells it: since the process started or since the last [`reset_peak_resident_memory`].
pub fn peak_resident_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Starts a new peak of [`peak_resident_memory`] at the present resident size (Linux: writing 5
/// to /proc/self/clear_refs), so that a phase's own peak can be read after it; false where the
/// system does not allow it (the peak then stays the process's).
pub fn reset_peak_resident_memory() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Named facts as a JSON object, in their order; a value that reads as an integer (or else as a
/// finite number) becomes a number.
pub fn facts_json(facts: Vec<(&'static str, String)>) -> serde_json::Map<String, serde_json::Value> {
    facts
        .into_iter()
        .map(|(k, v)| {
            let number = v.parse::<i64>().map(serde_json::Value::from).ok().or_else(|| {
                v.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(serde_json::Value::Number)
            });
            (k.to_string(), number.unwrap_or(serde_json::Value::String(v)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_random_genotype_is_its_draws_bits_in_order() {
        for l in [0, 1, 7, 8, 9, 63, 64, 65, 200] {
            let mut rng = SplitMix64::stream(5, 0x616e737765);
            let mut bits = 0;
            let drawn: Vec<u8> = (0..l)
                .map(|k| {
                    if k % 64 == 0 {
                        bits = rng.next_u64();
                    }
                    (bits >> (k % 64) & 1) as u8
                })
                .collect();
            assert_eq!(random_genotype(l, 5), drawn, "{l} genes");
        }
    }

    #[test]
    fn a_solution_is_shown_one_character_per_bit_in_text_and_json() {
        #[derive(Serialize)]
        struct Shown<'b>(#[serde(serialize_with = "bit_string")] &'b [bool]);
        let mut rng = SplitMix64::new(3);
        // Across the pieces the text is made in.
        for l in [0, 1, 5, (1 << 14) - 1, 1 << 14, 3 * (1 << 14) + 7] {
            let bits: Vec<bool> = (0..l).map(|_| rng.coin()).collect();
            let text: String = bits.iter().map(|&b| if b { '1' } else { '0' }).collect();
            assert_eq!(bit_text(&bits), text);
            assert_eq!(serde_json::to_string(&Shown(&bits)).unwrap(), format!("\"{text}\""));
        }
    }
}
