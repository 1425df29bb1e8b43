//! `pgomea bench`: measurements that users can repeat on their own machine.
//! - `throughput`: one population of fixed size, parallel GOM on a backend for a number of
//!   generations: GOM steps and subfunction evaluations per second, and the time per generation
//!   split by stage (each stage synchronised) against the unsynchronised wall time; serial GOMEA on
//!   the same population size on one core for comparison.
//! - `speedup`: the paper's speed-up measure: parallel GOMEA and serial GOMEA (IMS, default
//!   settings), each with its time budget (equal by default; the paper gave serial 6x), over one
//!   or more seeds; for every fitness the parallel runs reached, the (median) time serial GOMEA
//!   needed to reach it divided by the (median) time parallel GOMEA needed. The GPU is opened
//!   before the timed runs and its opening time reported apart.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde::Serialize;

use pgomea_device::stage::Stage;

use crate::args::{BackendArgs, InstanceArgs, ModelArgs};
use crate::experiment::summary::median_of;
use crate::signal;
use pgomea::error::{Error, Result};
use pgomea::gomea::LocalSearchMode;
use pgomea::gomea::run::Observer;
use pgomea::solve::config;
use pgomea::solve::{Algorithm, Backend, Hooks, Outcome, RunOptions, solve};
use pgomea::testing::{Bench, Case};

/// The most runs `bench speedup --runs` accepts.
pub const MAX_RUNS: u64 = 10_000;

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// GOM steps and subfunction evaluations per second, and time per stage, of one population.
    Throughput(ThroughputArgs),
    /// Time serial GOMEA needs to reach each fitness parallel GOMEA reached, over time needed by parallel.
    Speedup(SpeedupArgs),
}

#[derive(Args, Debug)]
pub struct ThroughputArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Population sizes to measure (comma separated).
    #[arg(long, value_delimiter = ',', default_value = "16,64,256")]
    pub population: Vec<usize>,
    /// Generations measured per population size (after one warm-up generation).
    #[arg(long, default_value_t = 5)]
    pub generations: u32,
    /// Also measure serial GOMEA (one core) on the same population sizes.
    #[arg(long)]
    pub serial: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct SpeedupArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Seconds for each parallel run (and each serial run, unless --serial-time-limit is given).
    #[arg(long, default_value_t = 60.0)]
    pub time_limit: f64,
    /// Seconds for each serial run (the paper gave serial GOMEA 6 h against 1 h on its largest
    /// instances, i.e. 6 x --time-limit).
    #[arg(long)]
    pub serial_time_limit: Option<f64>,
    /// Pairs of runs, with seeds --seed, --seed + 1, ...
    ///
    /// Each fitness level's speed-up is the median over runs of the serial time over the median
    /// of the parallel time (a run that did not reach the level counts as slower than every run
    /// that did).
    #[arg(long, default_value_t = 1)]
    pub runs: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the per-fitness table as CSV.
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize, Debug)]
pub struct ThroughputRow {
    pub instance: String,
    pub algorithm: String,
    pub backend: String,
    pub population: usize,
    pub generations: u32,
    pub fos_sets: usize,
    pub groups: usize,
    /// Wall time per generation on the fastest path (CUDA: one cooperative launch of the
    /// whole-generation kernel per generation).
    pub seconds_per_generation: f64,
    /// CUDA only: wall time per generation when the six stage kernels of every group are replayed
    /// as one captured CUDA graph.
    pub seconds_per_generation_graph: Option<f64>,
    /// Wall time per generation with one launch per stage and group, unsynchronised.
    pub seconds_per_generation_launches: f64,
    pub gom_steps_per_s: f64,
    pub subfunction_evaluations_per_s: f64,
    /// Synchronised per-stage time per generation (s), in stage order.
    pub stage_s: Vec<f64>,
    /// Synchronised generation time minus the stage times: host work per generation (s).
    pub host_s: f64,
}

pub fn run(cmd: &BenchCommand) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Throughput(a) => throughput(a),
        BenchCommand::Speedup(a) => speedup(a),
    }
}

/// The options of the paper's algorithms: `algorithm` without local search, Forced Improvement
/// for serial GOMEA only (Algorithms 1-4 of the paper).
fn paper_options(algorithm: Algorithm, backend: Backend, seed: u64) -> RunOptions {
    RunOptions {
        algorithm: Some(algorithm),
        backend: (algorithm == Algorithm::Parallel).then_some(backend),
        seed: Some(seed),
        forced_improvement: Some(algorithm == Algorithm::Serial),
        local_search: Some(LocalSearchMode::Off),
        ..RunOptions::default()
    }
}

/// A note on stderr for every note of the library (the backend a run took, a fallback).
struct Notes {
    progress_every: Option<Duration>,
}

impl Observer for Notes {
    fn note(&mut self, note: &str) {
        eprintln!("{note}");
    }
    fn progress(&mut self, p: &pgomea::gomea::run::Progress<'_>) {
        eprintln!(
            "[{:>8.1} s] best {:>10}  {}",
            p.elapsed.as_secs_f64(),
            p.best_fitness.map(|f| f.to_string()).unwrap_or_else(|| "-".into()),
            p.status
        );
    }
    fn progress_interval(&self) -> Option<Duration> {
        self.progress_every
    }
}

fn throughput(a: &ThroughputArgs) -> Result<ExitCode> {
    if let Some(&n) = a.population.iter().find(|&&n| n < 2) {
        return Err(Error::usage(format!("--population {n}: GOM needs at least 2 solutions (a donor)")));
    }
    if a.generations == 0 {
        return Err(Error::usage("--generations 0: expected at least one generation to measure"));
    }
    let interrupt = signal::install()?;
    let loaded = a.instance.load()?;
    let backend = pgomea::solve::decide_backend(a.backend.backend.unwrap_or(Backend::Auto)).0;
    let config = RunOptions {
        linkage: a.model.linkage,
        coloring: a.model.coloring,
        threads: a.backend.threads,
        cuda: crate::args::cuda_tuning()?,
        ..paper_options(Algorithm::Parallel, backend, a.seed)
    }
    .resolve(&*loaded.problem, loaded.best_known)?;
    let name = loaded.problem.name().to_string();
    let case = Case::with_config(name.clone(), loaded.problem, config, backend == Backend::Cuda)?;
    let (sets, groups) = (case.fos.len(), case.layout.groups());
    let bench = Bench::open(case, backend == Backend::Cuda)?;
    let mut rows = Vec::new();
    for &n in &a.population {
        if interrupt.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        let t = bench.parallel(n, a.generations)?;
        let g = a.generations as f64;
        let stage_s: Vec<f64> = t.stage_s.iter().map(|s| s / g).collect();
        let staged: f64 = stage_s.iter().sum();
        rows.push(ThroughputRow {
            instance: name.clone(),
            algorithm: "parallel".into(),
            backend: t.backend,
            population: n,
            generations: a.generations,
            fos_sets: sets,
            groups,
            seconds_per_generation: t.wall_s / g,
            seconds_per_generation_graph: t.graph_s.map(|w| w / g),
            seconds_per_generation_launches: t.launches_s / g,
            gom_steps_per_s: (n * sets) as f64 * g / t.wall_s,
            subfunction_evaluations_per_s: t.evaluations / t.wall_s,
            stage_s,
            host_s: (t.synchronised_s / g - staged).max(0.0),
        });
        if a.serial {
            let (wall, evaluations) = bench.serial(n, a.generations)?;
            rows.push(ThroughputRow {
                instance: name.clone(),
                algorithm: "serial".into(),
                backend: "cpu (1 thread)".into(),
                population: n,
                generations: a.generations,
                fos_sets: sets,
                groups,
                seconds_per_generation: wall / g,
                seconds_per_generation_graph: None,
                seconds_per_generation_launches: wall / g,
                gom_steps_per_s: (n * sets) as f64 * g / wall,
                subfunction_evaluations_per_s: evaluations / wall,
                stage_s: Vec::new(),
                host_s: 0.0,
            });
        }
    }
    if let Some(code) = signal::received() {
        eprintln!("bench: stopped by {}; the rows measured so far follow", signal::name(code));
    }
    if a.json {
        println!("{}", serde_json::to_string(&rows).map_err(|e| Error::usage(e.to_string()))?);
    } else {
        println!(
            "| instance | algorithm | backend | n | sets | groups | s/generation | s/gen, graph | s/gen, launches | GOM steps/s | subfn evals/s | {} | host s/gen |",
            Stage::ALL.map(Stage::name).join(" | ")
        );
        println!("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|{}---:|", "---:|".repeat(6));
        for r in &rows {
            let st: Vec<String> = if r.stage_s.is_empty() {
                vec!["-".into(); 6]
            } else {
                r.stage_s.iter().map(|s| format!("{:.2e}", s)).collect()
            };
            println!(
                "| {} | {} | {} | {} | {} | {} | {:.3e} | {} | {:.3e} | {:.3e} | {:.3e} | {} | {:.2e} |",
                r.instance,
                r.algorithm,
                r.backend,
                r.population,
                r.fos_sets,
                r.groups,
                r.seconds_per_generation,
                r.seconds_per_generation_graph.map(|w| format!("{w:.3e}")).unwrap_or_else(|| "-".into()),
                r.seconds_per_generation_launches,
                r.gom_steps_per_s,
                r.subfunction_evaluations_per_s,
                st.join(" | "),
                r.host_s
            );
        }
    }
    Ok(signal::received().map(ExitCode::from).unwrap_or(ExitCode::SUCCESS))
}

fn speedup(a: &SpeedupArgs) -> Result<ExitCode> {
    if a.runs == 0 || a.runs > MAX_RUNS {
        return Err(Error::usage(format!("--runs {}: expected 1 to {MAX_RUNS}", a.runs)));
    }
    let parallel_limit = config::seconds("time_limit", a.time_limit)?;
    let serial_limit = a.serial_time_limit.unwrap_or(a.time_limit);
    let serial_duration = config::seconds("serial_time_limit", serial_limit)?;
    let interrupt = signal::install()?;
    let loaded = a.instance.load()?;
    let problem = &*loaded.problem;
    let backend = pgomea::solve::decide_backend(a.backend.backend.unwrap_or(Backend::Auto)).0;
    // The GPU is opened once per process (context, kernel load: a fixed cost of the process, not
    // of the algorithm), before the timed runs; its time is reported apart. Every kernel is
    // loaded here: a run would load (and the driver compile) each when it first needs it.
    let t0 = Instant::now();
    if backend == Backend::Cuda {
        pgomea::backend::cuda::Gpu::shared()?.load_all_kernels()?;
    }
    let gpu_open_s = (backend == Backend::Cuda).then(|| t0.elapsed().as_secs_f64());
    let (mut ptraces, mut straces, mut pbest, mut sbest) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut psetup, mut ssetup) = (Vec::new(), Vec::new());
    let mut backend_name = String::new();
    for r in 0..a.runs {
        let seed = a.seed + r;
        let timed = |algorithm, limit: Duration| -> Result<Outcome> {
            let config =
                RunOptions { time_limit: Some(limit.as_secs_f64()), ..paper_options(algorithm, backend, seed) }
                    .resolve(problem, loaded.best_known)?;
            let mut notes = Notes { progress_every: Some(Duration::from_secs(10)) };
            let hooks = Hooks { stop: Some(interrupt.clone()), observer: Some(&mut notes), ..Hooks::default() };
            solve(problem, &config, hooks)
        };
        let pout = timed(Algorithm::Parallel, parallel_limit)?;
        let sout = timed(Algorithm::Serial, serial_duration)?;
        // A pair cut short by a signal would distort the speed-up: stop without a summary.
        if let Some(code) = signal::received() {
            eprintln!("bench speedup: stopped by {} during run {}; no summary", signal::name(code), r + 1);
            return Ok(ExitCode::from(code));
        }
        eprintln!(
            "run {} (seed {seed}): parallel best {} ({}), serial best {}",
            r + 1,
            pout.best_fitness,
            pout.backend,
            sout.best_fitness
        );
        backend_name = pout.backend;
        pbest.push(pout.best_fitness);
        sbest.push(sout.best_fitness);
        psetup.push(pout.setup_s);
        ssetup.push(sout.setup_s);
        ptraces.push(pout.trace.clone());
        straces.push(sout.trace.clone());
    }
    let table: Vec<(i64, f64, Option<f64>)> = crate::experiment::summary::speedup_levels(&ptraces, &straces)
        .into_iter()
        .map(|l| (l.fitness, l.parallel_time_s, l.serial_time_s))
        .collect();
    let ratios: Vec<f64> = table.iter().filter_map(|(_, tp, ts)| ts.map(|ts| ts / tp.max(1e-6))).collect();
    let median = median_of(ratios.clone());
    let max = ratios.iter().copied().max_by(|x, y| x.total_cmp(y));
    let max_at = table
        .iter()
        .filter_map(|&(f, tp, ts)| ts.map(|ts| (f, tp, ts, ts / tp.max(1e-6))))
        .max_by(|x, y| x.3.total_cmp(&y.3));
    let first_unreached = table.iter().find(|(_, _, ts)| ts.is_none()).map(|&(f, tp, _)| (f, tp));
    if let Some(path) = &a.csv {
        let mut s = String::from("fitness,time_parallel_s,time_serial_s,speedup\n");
        for (f, tp, ts) in &table {
            s += &format!(
                "{f},{tp:.6},{},{}\n",
                ts.map(|t| format!("{t:.6}")).unwrap_or_default(),
                ts.map(|t| format!("{:.3}", t / tp.max(1e-6))).unwrap_or_default()
            );
        }
        std::fs::write(path, s).map_err(|e| Error::io(path, e))?;
    }
    let summary = serde_json::json!({
        "instance": problem.name(),
        "runs": a.runs,
        "time_limit_s": a.time_limit,
        "serial_time_limit_s": serial_limit,
        "parallel_backend": backend_name,
        "gpu_open_s_not_timed": gpu_open_s,
        "parallel_best": pbest,
        "serial_best": sbest,
        "parallel_model_build_s": psetup,
        "serial_model_build_s": ssetup,
        "fitness_levels": table.len(),
        "levels_reached_by_serial": ratios.len(),
        "median_speedup": median,
        "max_speedup": max,
        "max_speedup_at": max_at.map(|(f, tp, ts, _)| serde_json::json!({"fitness": f, "time_parallel_s": tp, "time_serial_s": ts})),
        "first_level_serial_never_reached": first_unreached.map(|(f, tp)| serde_json::json!({"fitness": f, "time_parallel_s": tp, "speedup_at_least": serial_limit / tp.max(1e-6)})),
    });
    if a.json {
        println!("{summary}");
    } else {
        for (k, v) in summary.as_object().expect("object") {
            println!("{k:<34} {v}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
