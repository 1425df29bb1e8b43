//! The command-line interface (clap, derive). The binary's `main` only embeds the kernels' PTX
//! and calls [`main`].

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::app::args::InstanceArgs;
use crate::app::experiment::summary::median_of;
use crate::app::{options, signal};
use crate::choice::Choice;
use crate::error::{Error, Result};
use crate::gomea::LocalSearchMode;
use crate::gomea::ims::ImsConfig;
use crate::gomea::run::{Limits, Run, StopReason};
use crate::linkage::coloring::ColoringMethod;
use crate::linkage::fos::LinkageModel;
use crate::problem::generate::{self, WeightRange};
use crate::problem::maxsat;
use crate::problem::nk;
use crate::problem::tables::TableProblem;
use crate::problem::trap;
use crate::solve::{Algorithm, Backend, FosOrderKind, Outcome, SolveConfig, build_model, solve};
use crate::stop::StopCheck;

#[derive(Parser, Debug)]
#[command(
    name = "pgomea",
    version,
    about = "GPU-parallel Gene-pool Optimal Mixing (GOMEA) for gray-box problems (Max-Cut, MAX-SAT, NK landscapes, traps, tables)",
    long_about = "GPU-parallel Gene-pool Optimal Mixing (GOMEA) for gray-box problems, after Bouter and Bosman, \
GECCO 2022: weighted Max-Cut (G-set files), weighted partial MAX-SAT (DIMACS cnf and wcnf files), and problems \
given by tables of subfunction values (.nk files, MK-landscape files: NK landscapes, deceptive traps and others). Serial GOMEA with Forced Improvement, and parallel GOMEA that mixes colour groups \
of independent linkage sets at once, on all CPU cores or on an NVIDIA GPU (every kernel written in Rust).\n\n\
Instances: --instance PATH, or --set S --name N from the data directory (--instances-dir, else \
$PGOMEA_INSTANCES, else ./instances, else ../shared/instances). Without either, `run` solves an embedded \
20x20 torus whose optimum (its total weight) is known.",
    after_help = EXIT_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Exit statuses and signals, in `--help` (the README states the same guarantees).
pub const EXIT_HELP: &str = "\
Exit status: 0 done (whatever limit stopped the run); 2 refused or failed, with a message on stderr
(bad option, malformed instance with file and line, unreadable file, CUDA failure); 70 internal
error (a check of the program's own result failed: no answer rather than a wrong one).
Signals: the first SIGINT (Ctrl-C) or SIGTERM stops `run`, `experiment` and `bench` cleanly: `run`
prints its best solution so far (text or JSON, `stopped by: interrupted`) and flushes --trace; an
experiment discards the run in flight (rerunning resumes it); exit status 130 (SIGINT) or 143
(SIGTERM). A second signal ends the process at once with the same status.";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Solve one instance and print the result (stdout), with progress on stderr.
    #[command(after_help = EXIT_HELP)]
    Run(RunArgs),
    /// Describe an instance: size, weights, degrees, the linkage model and its colouring.
    Info(InfoArgs),
    /// Write a generated instance: a graph (torus, random, complete) in the G-set format, an NK
    /// landscape or concatenated deceptive traps in the .nk format, or satisfiable 3-SAT in cnf.
    Generate(GenerateArgs),
    /// List the CUDA devices.
    Devices,
    /// Check this machine's GPU against the CPU backend on fixed seeds (bit for bit).
    Selftest(crate::app::selftest::SelftestArgs),
    /// Measure throughput per stage, or the speed-up of parallel over serial GOMEA.
    #[command(subcommand)]
    Bench(crate::app::bench::BenchCommand),
    /// Run a study of the paper's section 6 (many runs, summary, figures); resumable, shardable.
    Experiment(crate::app::experiment::ExperimentArgs),
    /// Combine result directories of `pgomea experiment` (e.g. shards) into one summary and figures.
    Merge(crate::app::experiment::MergeArgs),
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// serial: GOMEA with Forced Improvement; parallel: colour-grouped parallel GOM (no FI).
    #[arg(long, value_enum, default_value = "serial")]
    pub algo: Algorithm,
    /// Where parallel GOM runs: auto picks CUDA when a driver and a device exist, else the CPU.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// Linkage model: flt (fixed linkage tree from |w|, the paper's default), bflt:K (sets of at
    /// most K), lt (learned from the population each generation; serial only), univariate.
    #[arg(long, default_value = "flt")]
    pub linkage: LinkageModel,
    /// Colouring of the linkage-model interaction graph (parallel GOM and --fos-order colored).
    #[arg(long, default_value = "welsh-powell")]
    pub coloring: ColoringMethod,
    /// Serial GOMEA: order of the linkage sets (random, or colored = parallel GOM's group order).
    #[arg(long, value_enum, default_value = "random")]
    pub fos_order: FosOrderKind,
    /// Forced Improvement on (serial GOMEA's; parallel Forced Improvement for --algo parallel).
    /// Default: on for serial, off for parallel (as in the paper; measured, see the README).
    #[arg(long, overrides_with = "no_fi")]
    pub fi: bool,
    /// Forced Improvement off.
    #[arg(long, overrides_with = "fi")]
    pub no_fi: bool,
    /// Colour-grouped local search: off (the paper), initial (every new population is annealed and
    /// brought to local optima), offspring (also the offspring of every generation). Default:
    /// initial (measured, see the README).
    #[arg(long, value_enum, value_name = "WHEN")]
    pub local_search: Option<LocalSearchMode>,
    /// Annealing sweeps before every local search's greedy descent (colour-grouped Metropolis
    /// sweeps from a hot to a cold temperature; 0: greedy descent alone). Default: 3000 on the
    /// GPU, 1000 on the CPU.
    #[arg(long, value_name = "N")]
    pub anneal_sweeps: Option<u32>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop after this many seconds, counted from the start (reading the instance and building
    /// the linkage model included; the first population is always evaluated, so a limit shorter
    /// than that is overrun by it). Default: 10 s when no other limit is given.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Stop after this many evaluations (full-evaluation equivalents).
    #[arg(long, value_name = "E")]
    pub max_evals: Option<f64>,
    /// Stop at this fitness: a number, or best-known (from best_known.csv, or the embedded
    /// instance's optimum).
    #[arg(long, value_name = "VALUE|best-known")]
    pub target: Option<String>,
    /// Base population size of the interleaved multi-start scheme.
    #[arg(long, default_value_t = 16)]
    pub n_base: usize,
    /// Generations of a population per generation of the next larger one.
    #[arg(long, default_value_t = 4)]
    pub c_ims: u32,
    /// Largest population the scheme may start (default: what fits in a quarter of free memory).
    #[arg(long, value_name = "N")]
    pub max_population: Option<usize>,
    /// Threads of the CPU backend (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The most device memory the CUDA backend may use, in MiB: a larger population fails as out
    /// of memory and the multi-start scheme stops growing (default: what the device has).
    #[arg(long, value_name = "MIB")]
    pub device_memory_limit: Option<u64>,
    /// Write one CSV row per improvement of the best solution: time_s,evaluations,best_fitness.
    #[arg(long, value_name = "FILE.csv")]
    pub trace: Option<PathBuf>,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    #[arg(long, default_value = "flt")]
    pub linkage: LinkageModel,
    #[arg(long, default_value = "welsh-powell")]
    pub coloring: ColoringMethod,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug, Clone, Copy)]
pub enum Shape {
    /// An L x L torus (degree 4); even L and positive weights: optimum = total weight.
    Torus {
        #[arg(long)]
        side: usize,
    },
    /// A random graph with n vertices and m edges.
    Random {
        #[arg(long)]
        n: usize,
        #[arg(long)]
        m: usize,
    },
    /// A complete graph on n vertices.
    Complete {
        #[arg(long)]
        n: usize,
    },
    /// An NK landscape in the .nk format, table values uniform integers in [0, 10^6): adjacent
    /// (sliding windows: n - k + 1 subfunctions over k consecutive variables) or random (n
    /// subfunctions, subfunction i over variable i and k - 1 others drawn at random). Prints
    /// `optimum V` (adjacent: exact, by dynamic programming; also in the file) or `optimum
    /// unknown` (random) on stdout, or on stderr when the instance itself goes to stdout.
    Nk {
        #[arg(long)]
        n: usize,
        #[arg(long)]
        k: usize,
        #[arg(long, value_enum, default_value = "adjacent")]
        neighbourhood: Neighbourhood,
    },
    /// Concatenated deceptive traps in the .nk format: `blocks` traps of k variables (k * blocks
    /// variables), a trap worth k when all its genes are 1, else k - 1 - (its ones). Prints
    /// `optimum V` (blocks * k, all ones; also in the file) like `nk`.
    Trap {
        #[arg(long)]
        k: usize,
        #[arg(long)]
        blocks: usize,
        /// Assign the variables to the blocks by a random permutation (from --seed) instead of
        /// adjacent runs, so that linked variables are not neighbours.
        #[arg(long)]
        shuffle: bool,
    },
    /// A satisfiable random 3-SAT instance in DIMACS cnf: an assignment is planted, then each of
    /// the m clauses reads 3 distinct variables with random signs, redrawn until the assignment
    /// satisfies it. Prints `optimum M` (every clause satisfied) like `nk`.
    Sat {
        #[arg(long)]
        n: usize,
        #[arg(long)]
        m: usize,
    },
}

/// The variables an NK subfunction reads besides its own.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Neighbourhood {
    /// The k - 1 variables after it (sliding windows, no wrap-around): exact optimum known.
    Adjacent,
    /// k - 1 other distinct variables drawn at random: optimum unknown.
    Random,
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub shape: Shape,
    /// Output file (default: stdout).
    #[arg(long, short, global = true)]
    pub output: Option<PathBuf>,
    #[arg(long, default_value_t = 1, global = true)]
    pub seed: u64,
    /// Smallest edge weight of a generated graph.
    #[arg(long, default_value_t = 1, global = true)]
    pub min_weight: i64,
    /// Largest edge weight of a generated graph.
    #[arg(long, default_value_t = 5, global = true)]
    pub max_weight: i64,
}

/// The exit status of an internal error (EX_SOFTWARE of sysexits.h).
pub const EXIT_INTERNAL: u8 = 70;

/// Runs the CLI; returns the process exit code (see [`EXIT_HELP`]).
pub fn main(ptx: Option<&'static str>) -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli, ptx) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(if matches!(e, Error::Internal(_)) { EXIT_INTERNAL } else { 2 })
        }
    }
}

fn dispatch(cli: Cli, ptx: Option<&'static str>) -> Result<ExitCode> {
    match cli.command {
        Command::Run(a) => cmd_run(&a, ptx),
        Command::Info(a) => cmd_info(&a),
        Command::Generate(a) => cmd_generate(&a),
        Command::Devices => {
            for line in crate::backend::cuda::devices()? {
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Selftest(a) => crate::app::selftest::run(&a, ptx),
        Command::Bench(b) => crate::app::bench::run(&b, ptx),
        Command::Experiment(a) => crate::app::experiment::run(&a, ptx),
        Command::Merge(a) => crate::app::experiment::merge(&a),
    }
}

/// The defaults of `pgomea run` for Forced Improvement and local search, by algorithm.
///
/// Measured (benchmarks/RESULTS.md, "Hybrid parallel GOMEA"): annealed colour-grouped local search
/// of every new population lifts parallel GOMEA on the GPU from 98.7-98.9 % of the best-known cut
/// of G-set graphs to 99.3-100 % within 10 s, above simulated annealing on 16 cores; Forced
/// Improvement added to it costs time without a better result, and local search of every
/// offspring was worse. Serial GOMEA gets the same local search (so that the two compare fairly)
/// and keeps its Forced Improvement, as in the paper. `experiment` keeps the paper's settings.
pub fn run_defaults(algorithm: Algorithm) -> (bool, LocalSearchMode) {
    match algorithm {
        Algorithm::Serial => (true, LocalSearchMode::Initial),
        Algorithm::Parallel => (false, LocalSearchMode::Initial),
    }
}

/// The solver configuration of `pgomea run`'s options.
pub fn solve_config(a: &RunArgs, ptx: Option<&'static str>) -> SolveConfig {
    SolveConfig {
        algorithm: a.algo,
        backend: a.backend,
        linkage: a.linkage,
        coloring: a.coloring,
        fos_order: a.fos_order,
        forced_improvement: match (a.fi, a.no_fi) {
            (true, _) => true,
            (_, true) => false,
            _ => run_defaults(a.algo).0,
        },
        local_search: a.local_search.unwrap_or(run_defaults(a.algo).1),
        anneal_sweeps: a.anneal_sweeps,
        seed: a.seed,
        ims: ImsConfig { n_base: a.n_base, c_ims: a.c_ims, max_population: a.max_population },
        threads: a.threads,
        device_memory_limit: a.device_memory_limit.map(|m| m.saturating_mul(1 << 20)),
        ptx,
    }
}

/// The limits of `pgomea run`'s options (a 10 s time limit when none is given).
pub fn limits(a: &RunArgs, best_known: Option<i64>) -> Result<Limits> {
    let target = match a.target.as_deref() {
        None => None,
        Some("best-known") => Some(best_known.ok_or_else(|| {
            Error::usage(
                "--target best-known: no best-known value for this instance (use --set/--name, or give a number)",
            )
        })?),
        Some(v) => Some(
            v.parse::<i64>().map_err(|_| Error::usage(format!("--target `{v}`: expected an integer or best-known")))?,
        ),
    };
    let time_limit = a.time_limit.map(|t| options::seconds("--time-limit", t)).transpose()?;
    if let Some(e) = a.max_evals {
        options::positive("--max-evals", e)?;
    }
    let time = match (time_limit, a.max_evals, target) {
        (Some(t), _, _) => Some(t),
        (None, None, None) => Some(Duration::from_secs(10)),
        _ => None,
    };
    Ok(Limits { time, evaluations: a.max_evals, target })
}

fn cmd_run(a: &RunArgs, ptx: Option<&'static str>) -> Result<ExitCode> {
    // The time limit covers everything from here, reading the instance included.
    let start = std::time::Instant::now();
    options::threads(a.threads)?;
    if a.device_memory_limit == Some(0) {
        return Err(Error::usage("--device-memory-limit 0: expected a number of MiB of at least 1"));
    }
    if a.algo == Algorithm::Serial && a.backend == Backend::Cuda {
        return Err(Error::usage(
            "--backend cuda: serial GOMEA runs on one CPU core; the backend is where parallel GOM runs \
             (use --algo parallel --backend cuda, or leave --backend out)",
        ));
    }
    let interrupt = signal::install()?;
    let loaded = a.instance.load()?;
    let limits = limits(a, loaded.best_known)?;
    let problem = &*loaded.problem;
    let mut config = solve_config(a, ptx);
    if config.ims.max_population.is_none() {
        config.ims.max_population = Some(crate::solve::default_population_cap(problem.variables(), a.n_base));
    }
    if !a.quiet {
        eprintln!(
            "pgomea: {} ({}, {} variables, {} subfunctions), {} GOMEA, linkage {}, seed {}",
            problem.name(),
            problem.problem_type(),
            problem.variables(),
            problem.subfunctions(),
            a.algo.name(),
            a.linkage,
            a.seed
        );
    }
    let mut run = Run::new(problem, limits).with_start(start);
    run.interrupt = Some(interrupt.clone());
    if !a.quiet {
        run = run.with_progress(Duration::from_secs(2));
    }
    if let Some(path) = &a.trace {
        let f = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
        run = run.with_trace_writer(Box::new(std::io::BufWriter::new(f)))?;
    }
    let outcome = solve(problem, &config, &mut run, loaded.best_known)?;
    print_outcome(&outcome, a.json)?;
    if let (Some(path), Some(e)) = (&a.trace, run.trace_error()) {
        eprintln!(
            "warning: the trace {} could not be written completely ({e}); the result above is complete",
            path.display()
        );
    }
    match signal::received() {
        Some(code) => {
            if !a.quiet && run.stop_reason() == Some(StopReason::Interrupted) {
                eprintln!("pgomea: stopped by {}; the result above is the best found so far", signal::name(code));
            }
            Ok(ExitCode::from(code))
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

pub fn print_outcome(o: &Outcome, json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let w = |r: std::io::Result<()>| r.map_err(|e| Error::io("stdout", e));
    if json {
        let s = serde_json::to_string(o).map_err(|e| Error::usage(format!("JSON: {e}")))?;
        return w(writeln!(out, "{s}"));
    }
    w(writeln!(
        out,
        "instance         {} ({}, {} variables, {} subfunctions)",
        o.instance, o.problem, o.variables, o.subfunctions
    ))?;
    w(writeln!(
        out,
        "algorithm        {:?} on {}, linkage {} ({} sets{})",
        o.algorithm,
        o.backend,
        o.linkage,
        o.fos_sets,
        o.colors.map(|c| format!(", {c} colours")).unwrap_or_default()
    ))?;
    w(writeln!(out, "seed             {}", o.seed))?;
    let known = o
        .best_known
        .map(|b| format!("  (best known {b}{})", if o.best_fitness >= b { ", reached" } else { "" }))
        .unwrap_or_default();
    w(writeln!(out, "best fitness     {}{known}", o.best_fitness))?;
    w(writeln!(out, "stopped by       {}", o.stop_reason))?;
    w(writeln!(out, "time             {:.3} s (setup {:.3} s)", o.time_s, o.setup_s))?;
    w(writeln!(
        out,
        "evaluations      {:.1} full-evaluation equivalents ({} subfunction evaluations)",
        o.evaluations, o.subfunction_evaluations
    ))?;
    w(writeln!(out, "GOM steps        {} ({:.3e} per second)", o.gom_steps, o.gom_steps as f64 / o.time_s.max(1e-9)))?;
    w(writeln!(out, "generations      {} over populations {:?}", o.generations, o.populations))?;
    if let Some(note) = &o.note {
        w(writeln!(out, "note             {note}"))?;
    }
    for (k, v) in &o.report {
        let v = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
        w(writeln!(out, "{:<16} {v}", k.replace('_', " ")))?;
    }
    if o.solution.len() <= 200 {
        w(writeln!(out, "solution         {}", o.solution))?;
    } else {
        w(writeln!(out, "solution         {} genes (use --json for the full string)", o.solution.len()))?;
    }
    Ok(())
}

fn cmd_info(a: &InfoArgs) -> Result<ExitCode> {
    let loaded = a.instance.load()?;
    let problem = &*loaded.problem;
    // The model `run --algo parallel` would build, through the same function.
    let config = SolveConfig {
        algorithm: Algorithm::Parallel,
        linkage: a.linkage,
        coloring: a.coloring,
        seed: a.seed,
        ..SolveConfig::default()
    };
    let model = build_model(problem, &config, &StopCheck::never())?;
    let fos = &model.fos;
    let mut sizes: Vec<usize> = model.groups.as_ref().map(|g| g.iter().map(Vec::len).collect()).unwrap_or_default();
    sizes.sort_unstable();
    let mut info = serde_json::Map::new();
    info.insert("instance".into(), problem.name().into());
    info.insert("problem".into(), problem.problem_type().into());
    info.insert("variables".into(), problem.variables().into());
    info.insert("subfunctions".into(), problem.subfunctions().into());
    for (k, v) in problem.statistics() {
        // Numbers as numbers in the JSON.
        let value = serde_json::from_str::<serde_json::Value>(&v)
            .ok()
            .filter(|v| v.is_number())
            .unwrap_or(serde_json::Value::String(v));
        info.insert(k.into(), value);
    }
    let json = serde_json::json!({
        "best_known": loaded.best_known,
        "best_known_is_optimal": loaded.is_optimal,
        "linkage": a.linkage.to_string(),
        "fos_sets": fos.sets.len(),
        "fos_largest_set": fos.largest_set(),
        "fos_build_s": model.times.fos_s,
        "lmig_edges": model.lmig_edges,
        "lmig_build_s": model.times.lmig_s,
        "coloring": a.coloring.to_string(),
        "colors": sizes.len(),
        "group_size_min": sizes.first().copied().unwrap_or(0),
        "group_size_median": median_of(sizes.iter().map(|&s| s as f64).collect()).unwrap_or(0.0),
        "group_size_max": sizes.last().copied().unwrap_or(0),
        "coloring_s": model.times.coloring_s,
    });
    info.extend(json.as_object().expect("object").clone());
    if a.json {
        println!("{}", serde_json::Value::Object(info));
    } else {
        for (k, v) in &info {
            println!("{k:<22} {v}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_generate(a: &GenerateArgs) -> Result<ExitCode> {
    let w = WeightRange { min: a.min_weight, max: a.max_weight };
    let graph = match a.shape {
        Shape::Torus { side } => generate::torus(side, w, a.seed)?,
        Shape::Random { n, m } => generate::random(n, m, w, a.seed)?,
        Shape::Complete { n } => generate::complete(n, w, a.seed)?,
        Shape::Nk { n, k, neighbourhood } => {
            let problem = match neighbourhood {
                Neighbourhood::Adjacent => nk::sliding_window(n, k, a.seed)?,
                Neighbourhood::Random => nk::random_neighbourhood(n, k, a.seed)?,
            };
            return write_tables(&problem, a.output.as_deref());
        }
        Shape::Trap { k, blocks, shuffle } => {
            return write_tables(&trap::concatenated(k, blocks, a.seed, shuffle)?, a.output.as_deref());
        }
        Shape::Sat { n, m } => {
            let (problem, _) = maxsat::planted_3sat(n, m, a.seed)?;
            match &a.output {
                Some(p) => {
                    problem.write(p)?;
                    println!("optimum {m}");
                }
                None => {
                    print!("{}", problem.to_text());
                    eprintln!("optimum {m}");
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    match &a.output {
        Some(p) => graph.write(p)?,
        None => print!("{}", graph.to_text()),
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes a generated table problem to `output` (its optimum, or that it is unknown, on stdout),
/// or to stdout (the optimum on stderr).
fn write_tables(problem: &TableProblem, output: Option<&std::path::Path>) -> Result<ExitCode> {
    let optimum = problem.optimum.map(|o| o.to_string()).unwrap_or_else(|| "unknown".into());
    match output {
        Some(p) => {
            problem.write(p)?;
            println!("optimum {optimum}");
        }
        None => {
            print!("{}", problem.to_text());
            eprintln!("optimum {optimum}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
