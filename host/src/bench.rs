//! `pgomea bench`: measurements that users can repeat on their own machine.
//! - `throughput`: one population of fixed size, parallel GOM on a backend for a number of
//!   generations: GOM steps and subfunction evaluations per second, and the time per generation
//!   split by stage (each stage synchronised) against the unsynchronised wall time; serial GOMEA on
//!   the same population size on one core for comparison.
//! - `speedup`: the paper's speed-up measure: parallel GOMEA and serial GOMEA (IMS, default
//!   settings) for the same time budget; for every fitness the parallel run reached, the time serial
//!   GOMEA needed to reach it divided by the time parallel GOMEA needed.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde::Serialize;

use crate::cli::InstanceArgs;
use crate::coloring::ColoringMethod;
use crate::error::{Error, Result};
use crate::fos::LinkageModel;
use crate::gomea::PopulationEngine;
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::{ParallelGomea, STAGE_NAMES, StageBackend, StageTimes, cpu, initial_population};
use crate::gomea::serial::{FosOrder, LinkageSource, SerialConfig, SerialGomea};
use crate::problem::MaxCut;
use crate::run::{Limits, Run, TracePoint};
use crate::solve::{Algorithm, Backend, SolveConfig, build_model, solve};

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
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    #[arg(long, default_value = "flt")]
    pub linkage: LinkageModel,
    #[arg(long, default_value = "welsh-powell")]
    pub coloring: ColoringMethod,
    /// Population sizes to measure (comma separated).
    #[arg(long, value_delimiter = ',', default_value = "16,64,256")]
    pub population: Vec<usize>,
    /// Generations measured per population size (after one warm-up generation).
    #[arg(long, default_value_t = 5)]
    pub generations: u32,
    /// Also measure serial GOMEA (one core) on the same population sizes.
    #[arg(long)]
    pub serial: bool,
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct SpeedupArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// Seconds for each of the two runs.
    #[arg(long, default_value_t = 60.0)]
    pub time_limit: f64,
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
    /// Wall time per generation on the fastest path (CUDA: one graph replay per generation).
    pub seconds_per_generation: f64,
    /// Wall time per generation with one launch per stage and group, unsynchronised.
    pub seconds_per_generation_launches: f64,
    pub gom_steps_per_s: f64,
    pub subfunction_evaluations_per_s: f64,
    /// Synchronised per-stage time per generation (s), in stage order.
    pub stage_s: Vec<f64>,
    /// Synchronised generation time minus the stage times: host work per generation (s).
    pub host_s: f64,
    pub kernel_launches_per_generation: u64,
}

pub fn run(cmd: &BenchCommand, ptx: Option<&'static str>) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Throughput(a) => throughput(a, ptx),
        BenchCommand::Speedup(a) => speedup(a, ptx),
    }
}

/// Three passes from the same initial population (so that each measures the same generations,
/// which the backends compute identically): the fastest path (CUDA: one graph replay per
/// generation), one launch per stage and group without synchronisation, and per-stage timing.
/// Returns (wall of the fastest path, its subfunction evaluations, per-stage times, wall of the
/// launch path).
fn measure<B: StageBackend>(
    problem: &MaxCut,
    layout: &Arc<GroupLayout>,
    seed: u64,
    n: usize,
    generations: u32,
    make: &mut dyn FnMut(crate::gomea::Population) -> Result<B>,
) -> Result<(f64, f64, StageTimes, f64)> {
    let mut pass = |mode: u8| -> Result<(f64, f64, StageTimes)> {
        let mut run = Run::new(problem, Limits::default());
        let population = initial_population(problem, n, seed, &mut run);
        let fitness = population.fitness.clone();
        let mut engine = ParallelGomea::new(make(population)?, layout.clone(), seed, fitness);
        engine.generation(&mut run)?; // warm-up: module JIT, graph capture, first-touch allocations
        if mode == 2 {
            engine.timing = Some(StageTimes::default());
        }
        let e0 = run.counter.subfunction_evaluations();
        let t0 = Instant::now();
        for _ in 0..generations {
            engine.generation_with(&mut run, mode == 1, |_, _| Ok(()))?;
        }
        engine.backend_mut().synchronize()?;
        let wall = t0.elapsed().as_secs_f64();
        Ok((wall, (run.counter.subfunction_evaluations() - e0) as f64, engine.timing.take().unwrap_or_default()))
    };
    let (wall, evals, _) = pass(0)?;
    let (launches, _, _) = pass(1)?;
    let (_, _, times) = pass(2)?;
    Ok((wall, evals, times, launches))
}

fn throughput(a: &ThroughputArgs, ptx: Option<&'static str>) -> Result<ExitCode> {
    let loaded = a.instance.load()?;
    let problem = MaxCut::new(loaded.instance);
    let backend = a.backend.resolve(false);
    let config = SolveConfig { algorithm: Algorithm::Parallel, backend, linkage: a.linkage, coloring: a.coloring, seed: a.seed, ptx, threads: a.threads, ..SolveConfig::default() };
    let model = build_model(&problem, &config)?;
    let groups = model.groups.as_ref().expect("groups");
    let layout = Arc::new(GroupLayout::new(&problem, &model.fos, groups));
    let sets = model.fos.sets.len();
    let mut rows = Vec::new();
    let gpu = if backend == Backend::Cuda { Some(Arc::new(crate::cuda::Gpu::open(ptx, 0)?)) } else { None };
    let shared = match &gpu {
        Some(g) => Some(crate::cuda::SharedArrays::upload(g, &problem, &layout)?),
        None => None,
    };
    let pool = Arc::new(cpu::thread_pool(a.threads)?);
    for &n in &a.population {
        let (name, (wall, evals, times, launches_wall)) = match (&gpu, &shared) {
            (Some(g), Some(s)) => {
                let mut make = |p| crate::cuda::CudaStages::new(g.clone(), s.clone(), layout.clone(), p);
                (format!("cuda ({})", g.name()), measure(&problem, &layout, a.seed, n, a.generations, &mut make)?)
            }
            _ => {
                let mut make = |p| Ok(cpu::CpuStages::new(&problem, layout.clone(), p, pool.clone()));
                (format!("cpu ({} threads)", pool.current_num_threads()), measure(&problem, &layout, a.seed, n, a.generations, &mut make)?)
            }
        };
        let g = a.generations as f64;
        let stage_s: Vec<f64> = times.stages.iter().map(|d| d.as_secs_f64() / g).collect();
        let staged: f64 = stage_s.iter().sum();
        rows.push(ThroughputRow {
            instance: problem.instance.name.clone(),
            algorithm: "parallel".into(),
            backend: name,
            population: n,
            generations: a.generations,
            fos_sets: sets,
            groups: layout.groups(),
            seconds_per_generation: wall / g,
            seconds_per_generation_launches: launches_wall / g,
            gom_steps_per_s: (n * sets) as f64 * g / wall,
            subfunction_evaluations_per_s: evals / wall,
            stage_s,
            host_s: (times.generations.as_secs_f64() / g - staged).max(0.0),
            kernel_launches_per_generation: 6 * layout.groups() as u64 + 1,
        });
        if a.serial {
            let mut run = Run::new(&problem, Limits::default());
            let sc = SerialConfig { forced_improvement: true, order: FosOrder::Random, linkage: LinkageSource::Static(model.fos.clone()) };
            let mut s = SerialGomea::new(sc, n, a.seed, &mut run);
            s.generation(&mut run)?;
            let e0 = run.counter.subfunction_evaluations();
            let t0 = Instant::now();
            for _ in 0..a.generations {
                s.generation(&mut run)?;
            }
            let wall = t0.elapsed().as_secs_f64();
            rows.push(ThroughputRow {
                instance: problem.instance.name.clone(),
                algorithm: "serial".into(),
                backend: "cpu (1 thread)".into(),
                population: n,
                generations: a.generations,
                fos_sets: sets,
                groups: layout.groups(),
                seconds_per_generation: wall / g,
                seconds_per_generation_launches: wall / g,
                gom_steps_per_s: (n * sets) as f64 * g / wall,
                subfunction_evaluations_per_s: (run.counter.subfunction_evaluations() - e0) as f64 / wall,
                stage_s: Vec::new(),
                host_s: 0.0,
                kernel_launches_per_generation: 0,
            });
        }
    }
    if a.json {
        println!("{}", serde_json::to_string(&rows).map_err(|e| Error::usage(e.to_string()))?);
    } else {
        println!("| instance | algorithm | backend | n | sets | groups | s/generation | s/gen, launches | GOM steps/s | subfn evals/s | {} | host s/gen |", STAGE_NAMES.join(" | "));
        println!("|---|---|---|---:|---:|---:|---:|---:|---:|---:|{}---:|", "---:|".repeat(6));
        for r in &rows {
            let st: Vec<String> = if r.stage_s.is_empty() { vec!["-".into(); 6] } else { r.stage_s.iter().map(|s| format!("{:.2e}", s)).collect() };
            println!(
                "| {} | {} | {} | {} | {} | {} | {:.3e} | {:.3e} | {:.3e} | {:.3e} | {} | {:.2e} |",
                r.instance, r.algorithm, r.backend, r.population, r.fos_sets, r.groups, r.seconds_per_generation, r.seconds_per_generation_launches, r.gom_steps_per_s, r.subfunction_evaluations_per_s, st.join(" | "), r.host_s
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// For each distinct fitness of the parallel trace: (fitness, t_parallel, t_serial if reached).
pub fn speedup_table(parallel: &[TracePoint], serial: &[TracePoint]) -> Vec<(i64, f64, Option<f64>)> {
    parallel
        .iter()
        .map(|p| {
            let s = serial.iter().find(|s| s.best_fitness >= p.best_fitness).map(|s| s.time_s);
            (p.best_fitness, p.time_s, s)
        })
        .collect()
}

fn speedup(a: &SpeedupArgs, ptx: Option<&'static str>) -> Result<ExitCode> {
    let loaded = a.instance.load()?;
    let problem = MaxCut::new(loaded.instance);
    let limits = Limits { time: Some(Duration::from_secs_f64(a.time_limit)), ..Limits::default() };
    let backend = a.backend.resolve(false);
    let pconf = SolveConfig { algorithm: Algorithm::Parallel, backend, seed: a.seed, ptx, ..SolveConfig::default() };
    let mut prun = Run::new(&problem, limits.clone()).with_progress(Duration::from_secs(10));
    let pout = solve(&problem, &pconf, &mut prun, loaded.best_known)?;
    let sconf = SolveConfig { algorithm: Algorithm::Serial, seed: a.seed, ..SolveConfig::default() };
    let mut srun = Run::new(&problem, limits).with_progress(Duration::from_secs(10));
    let sout = solve(&problem, &sconf, &mut srun, loaded.best_known)?;
    let table = speedup_table(&prun.trace, &srun.trace);
    let ratios: Vec<f64> = table.iter().filter_map(|(_, tp, ts)| ts.map(|ts| ts / tp.max(1e-6))).collect();
    let mut sorted = ratios.clone();
    sorted.sort_by(|x, y| x.total_cmp(y));
    let median = sorted.get(sorted.len() / 2).copied();
    let max = sorted.last().copied();
    if let Some(path) = &a.csv {
        let mut s = String::from("fitness,time_parallel_s,time_serial_s,speedup\n");
        for (f, tp, ts) in &table {
            s += &format!("{f},{tp:.6},{},{}\n", ts.map(|t| format!("{t:.6}")).unwrap_or_default(), ts.map(|t| format!("{:.3}", t / tp.max(1e-6))).unwrap_or_default());
        }
        std::fs::write(path, s).map_err(|e| Error::io(path, e))?;
    }
    // The largest speed-up among the levels serial reached in the last tenth of its fitness gain,
    // i.e. the late, hard part of the search, is what the paper's plots emphasise.
    let summary = serde_json::json!({
        "instance": problem.instance.name,
        "time_limit_s": a.time_limit,
        "parallel_backend": pout.backend,
        "parallel_best": pout.best_fitness,
        "serial_best": sout.best_fitness,
        "fitness_levels": table.len(),
        "levels_reached_by_serial": ratios.len(),
        "median_speedup": median,
        "max_speedup": max,
        "parallel_evaluations": pout.evaluations,
        "serial_evaluations": sout.evaluations,
    });
    if a.json {
        println!("{summary}");
    } else {
        for (k, v) in summary.as_object().expect("object") {
            println!("{k:<26} {v}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
