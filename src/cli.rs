//! The command-line interface (clap, derive). The binary's `main` only calls [`main`].

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::args::{AllRunOptions, InstanceArgs, ModelArgs, OptionArgs, choice, message, spelling};
use crate::console::CliObserver;
use crate::experiment::summary::median_of;
use crate::signal;
use pgomea::choice::Choice;
use pgomea::error::{Error, Result};
use pgomea::gomea::LocalSearchMode;
use pgomea::gomea::parallel::layout::GroupLayout;
use pgomea::gomea::run::{Limits, Run, StopReason};
use pgomea::problem::generate::{self, WeightDistribution, WeightRange};
use pgomea::problem::maxsat;
use pgomea::problem::nk;
use pgomea::problem::tables::TableProblem;
use pgomea::problem::trap;
use pgomea::solve::config::{RunConfig, RunOptions};
use pgomea::solve::options::RUN_OPTIONS;
use pgomea::solve::{Algorithm, Hooks, Outcome, build_model, peak_resident_memory, reset_peak_resident_memory, solve};
use pgomea::stop::StopCheck;

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
    after_help = EXIT_SHORT_HELP,
    after_long_help = EXIT_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The exit statuses in one line, in `-h` (`--help` has [`EXIT_HELP`]).
pub const EXIT_SHORT_HELP: &str =
    "Exit status: 0 done, 2 refused or failed, 70 internal error, 130 or 143 on SIGINT or SIGTERM (--help says more).";

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
    #[command(after_help = EXIT_SHORT_HELP, after_long_help = EXIT_HELP)]
    Run(RunArgs),
    /// Describe an instance: size, weights, degrees, the linkage model and its colouring.
    Info(InfoArgs),
    /// Write a generated instance: a graph, an NK landscape, deceptive traps or 3-SAT
    ///
    /// A graph (torus, random, complete) in the G-set format, an NK landscape or concatenated
    /// deceptive traps in the .nk format, or satisfiable 3-SAT in cnf.
    Generate(GenerateArgs),
    /// List the CUDA devices.
    Devices,
    /// Check this machine's GPU against the CPU backend on fixed seeds (bit for bit).
    Selftest(crate::selftest::SelftestArgs),
    /// Measure throughput per stage, or the speed-up of parallel over serial GOMEA.
    #[command(subcommand)]
    Bench(crate::bench::BenchCommand),
    /// Run a study of the paper's section 6 (many runs, summary, figures)
    ///
    /// Resumable (rerunning skips the runs stored) and shardable (--shard).
    Experiment(crate::experiment::ExperimentArgs),
    /// Combine result directories of `pgomea experiment` into one summary and figures
    ///
    /// The shards of one study, or several studies.
    Merge(crate::experiment::MergeArgs),
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten, next_help_heading = "Instance")]
    pub instance: InstanceArgs,
    /// Every run option, from the library's table of run options.
    #[command(flatten)]
    pub options: OptionArgs<AllRunOptions>,
    /// Print the resolved configuration with each default's reason, and exit
    ///
    /// Every option as the run would take it, after the defaults chosen from the instance and the
    /// backend (the backend `auto` is decided now), with why where the run chose it.
    #[arg(long, help_heading = "Output")]
    pub explain: bool,
    /// Write each improvement of the best solution to a CSV file
    ///
    /// One row per improvement: time_s,evaluations,best_fitness.
    #[arg(long, value_name = "FILE.csv", help_heading = "Output")]
    pub trace: Option<PathBuf>,
    /// Print the result as one JSON object.
    #[arg(long, help_heading = "Output")]
    pub json: bool,
    /// No progress lines on stderr.
    #[arg(long, short, help_heading = "Output")]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// The seed of the linkage model's random choices.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Print the description as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug, Clone, Copy)]
pub enum Shape {
    /// A torus of side L in 2 or 3 dimensions, in the G-set format
    ///
    /// L^2 vertices of degree 4, or L^3 of degree 6. Even L and no negative weight: optimum = total
    /// weight, stated in the file (`c optimum V`) and printed
    /// as `optimum V`; else `optimum unknown` (on stderr when the instance goes to stdout).
    Torus {
        /// The side L.
        #[arg(long, allow_negative_numbers = true)]
        side: usize,
        /// 2 or 3 dimensions.
        #[arg(long, default_value_t = 2, allow_negative_numbers = true)]
        dims: usize,
        /// The edge weights: uniform, pm1 or gaussian
        ///
        /// uniform: --min-weight..=--max-weight; pm1: +1/-1, the +-J spin glass; gaussian:
        /// round(N(0,1) * 10^5), the Gaussian spin glass in integers.
        #[arg(long, value_parser = choice::<WeightDistribution>(), default_value = "uniform")]
        weights: WeightDistribution,
    },
    /// A random graph with n vertices and m edges, in the G-set format.
    Random {
        /// Vertices.
        #[arg(long, allow_negative_numbers = true)]
        n: usize,
        /// Edges.
        #[arg(long, allow_negative_numbers = true)]
        m: usize,
    },
    /// A complete graph on n vertices, in the G-set format.
    Complete {
        /// Vertices.
        #[arg(long, allow_negative_numbers = true)]
        n: usize,
    },
    /// An NK landscape in the .nk format, adjacent or random neighbourhoods
    ///
    /// Table values uniform integers in [0, 10^6): adjacent
    /// (sliding windows: n - k + 1 subfunctions over k consecutive variables) or random (n
    /// subfunctions, subfunction i over variable i and k - 1 others drawn at random). Prints
    /// `optimum V` (adjacent: exact, by dynamic programming; also in the file) or `optimum
    /// unknown` (random) on stdout, or on stderr when the instance itself goes to stdout.
    Nk {
        /// Variables.
        #[arg(long, allow_negative_numbers = true)]
        n: usize,
        /// Variables of each subfunction.
        #[arg(long, allow_negative_numbers = true)]
        k: usize,
        /// The variables a subfunction reads besides its own.
        #[arg(long, value_enum, default_value = "adjacent")]
        neighbourhood: Neighbourhood,
    },
    /// Concatenated deceptive traps in the .nk format
    ///
    /// `blocks` traps of k variables (k * blocks
    /// variables), a trap worth k when all its genes are 1, else k - 1 - (its ones). Prints
    /// `optimum V` (blocks * k, all ones; also in the file) like `nk`.
    Trap {
        /// Variables of each trap.
        #[arg(long, allow_negative_numbers = true)]
        k: usize,
        /// Traps.
        #[arg(long, allow_negative_numbers = true)]
        blocks: usize,
        /// Assign the variables to the blocks by a random permutation (from --seed)
        ///
        /// Instead of adjacent runs, so that linked variables are not neighbours.
        #[arg(long)]
        shuffle: bool,
    },
    /// A satisfiable random 3-SAT instance in DIMACS cnf
    ///
    /// An assignment is planted, then each of
    /// the m clauses reads 3 distinct variables with random signs, redrawn until the assignment
    /// satisfies it. Prints `optimum M` (every clause satisfied) like `nk`.
    Sat {
        /// Variables.
        #[arg(long, allow_negative_numbers = true)]
        n: usize,
        /// Clauses.
        #[arg(long, allow_negative_numbers = true)]
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
    /// The seed of the generator's random choices.
    #[arg(long, default_value_t = 1, global = true, allow_negative_numbers = true)]
    pub seed: u64,
    /// Smallest edge weight of a generated graph
    ///
    /// Integers are drawn uniformly from the range; a negative one makes a spin glass, e.g.
    /// --min-weight -1000000 --max-weight 1000000.
    #[arg(long, default_value_t = 1, global = true, allow_negative_numbers = true)]
    pub min_weight: i64,
    /// Largest edge weight of a generated graph.
    #[arg(long, default_value_t = 5, global = true, allow_negative_numbers = true)]
    pub max_weight: i64,
}

/// The exit status of an internal error (EX_SOFTWARE of sysexits.h).
pub const EXIT_INTERNAL: u8 = 70;

/// Runs the CLI; returns the process exit code (see [`EXIT_HELP`]).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", message(&e));
            // Stopped before a result (while reading the instance): the signal's status.
            ExitCode::from(match e {
                Error::Internal(_) => EXIT_INTERNAL,
                Error::Stopped(_) => signal::received().unwrap_or(2),
                _ => 2,
            })
        }
    }
}

fn dispatch(cli: Cli) -> Result<ExitCode> {
    // The GPU the runs of this process use (the library reads no environment).
    if let Ok(v) = std::env::var("PGOMEA_CUDA_DEVICE") {
        let ordinal = v
            .trim()
            .parse::<usize>()
            .map_err(|_| Error::usage(format!("PGOMEA_CUDA_DEVICE={v}: expected a device number")))?;
        pgomea::backend::cuda::use_device(ordinal);
    }
    match cli.command {
        Command::Run(a) => cmd_run(&a),
        Command::Info(a) => cmd_info(&a),
        Command::Generate(a) => cmd_generate(&a),
        Command::Devices => {
            for line in pgomea::backend::cuda::devices()? {
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Selftest(a) => crate::selftest::run(&a),
        Command::Bench(b) => crate::bench::run(&b),
        Command::Experiment(a) => crate::experiment::run(&a),
        Command::Merge(a) => crate::experiment::merge(&a),
    }
}

impl RunArgs {
    /// The run options these arguments ask for (what is left out takes the library's defaults),
    /// the CUDA tuning from the environment.
    pub fn options(&self) -> Result<RunOptions> {
        Ok(RunOptions { cuda: crate::args::cuda_tuning()?, ..self.options.options.clone() })
    }
}

fn cmd_run(a: &RunArgs) -> Result<ExitCode> {
    // The time limit covers everything from here, reading the instance included.
    let start = std::time::Instant::now();
    let options = a.options()?;
    let interrupt = signal::install()?;
    let deadline = options.time_limit.and_then(|t| start.checked_add(Duration::try_from_secs_f64(t).ok()?));
    let loaded = a.instance.load_until(deadline).map_err(|e| match e {
        Error::Stopped(StopReason::TimeLimit) => {
            Error::usage("the time limit ran out while the instance was read: there is no solution to report")
        }
        e => e,
    })?;
    let problem = &*loaded.problem;
    let config = options.resolve(problem, loaded.best_known)?;
    if a.explain {
        return explain(problem, &config, a.json);
    }
    if !a.quiet {
        eprintln!(
            "pgomea: {} ({}, {} variables, {} subfunctions), {} GOMEA, linkage {}{}, seed {}",
            problem.name(),
            problem.problem_type(),
            problem.variables(),
            problem.subfunctions(),
            config.algorithm.name(),
            config.linkage,
            config.linkage_chosen.as_ref().map(|why| format!(" (by default, {why})")).unwrap_or_default(),
            config.seed
        );
    }
    let mut observer = CliObserver::new((!a.quiet).then_some(Duration::from_secs(2)), a.trace.as_deref())?;
    let hooks = Hooks { start: Some(start), stop: Some(interrupt), observer: Some(&mut observer) };
    let outcome = solve(problem, &config, hooks)?;
    // The instance is freed while the answer is written: 10^8 variables' arrays take tenths of a
    // second to free, which the end of a stopped run need not wait for.
    pgomea::stop::drop_aside(loaded);
    print_outcome(&outcome, a.json)?;
    if let Some((path, e)) = observer.finish_trace() {
        eprintln!(
            "warning: the trace {} could not be written completely ({e}); the result above is complete",
            path.display()
        );
    }
    match signal::received() {
        Some(code) => {
            if !a.quiet && outcome.stop_reason == StopReason::Interrupted {
                eprintln!("pgomea: stopped by {}; the result above is the best found so far", signal::name(code));
            }
            Ok(ExitCode::from(code))
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

/// `run --explain`: every run option as the run would take it, the backend decided now, each
/// default with its reason; nothing runs.
fn explain(problem: &dyn pgomea::problem::GrayBoxProblem, config: &RunConfig, json: bool) -> Result<ExitCode> {
    let (config, backend, why) = pgomea::solve::decide(problem, config);
    let mut out = std::io::stdout().lock();
    let w = |r: std::io::Result<()>| r.map_err(|e| Error::io("stdout", e));
    if json {
        let v = serde_json::json!({ "config": config, "backend": backend.name(), "backend_chosen": why });
        w(writeln!(out, "{v}"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let show = |e: serde_json::Error| Error::Internal(format!("the run options as JSON: {e}"));
    let values = serde_json::to_value(&config).map_err(show)?;
    w(writeln!(
        out,
        "instance {} ({}, {} variables, {} subfunctions)",
        problem.name(),
        problem.problem_type(),
        problem.variables(),
        problem.subfunctions()
    ))?;
    // Every option of the table; the configuration has each of them resolved.
    for option in RUN_OPTIONS {
        let name = option.name;
        let value = match &values[name] {
            serde_json::Value::Null => "none".to_string(),
            serde_json::Value::Bool(on) => (if *on { "on" } else { "off" }).to_string(),
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        w(writeln!(out, "{:<44} {value}", spelling(option)))?;
        if let Some(why) = config.reason(name) {
            w(writeln!(out, "    by default: {why}"))?;
        }
    }
    let why = if why.is_empty() { String::new() } else { format!(": {why}") };
    w(writeln!(out, "the run would take the {} backend{why}", backend.name()))?;
    Ok(ExitCode::SUCCESS)
}

/// The hybrid parts a run took, in words: Forced Improvement, the local search and its
/// annealing (the sweeps of the first population, and their growth with every population).
fn hybrid_text(c: &RunConfig) -> String {
    let fi = if c.forced_improvement { "Forced Improvement, " } else { "" };
    let search = match (c.local_search, c.anneal_sweeps.unwrap_or(0)) {
        (LocalSearchMode::Off, _) => "no local search".to_string(),
        (mode, 0) => format!("local search {} (greedy)", mode.name()),
        (mode, sweeps) => {
            let growth = match c.anneal_growth.unwrap_or(1) {
                1 => String::new(),
                2 => ", doubled with every population".to_string(),
                g => format!(", x{g} with every population"),
            };
            // The share applies where a clock runs.
            let share = match c.anneal_share() {
                Some(share) if c.time_limit.is_some() => {
                    format!(", each within {} of the time left", pgomea::gomea::local_search::show_share(share))
                }
                _ => String::new(),
            };
            format!("local search {} ({sweeps} annealing sweeps{growth}{share})", mode.name())
        }
    };
    let control = if c.anneal_only { "; the control: no GOM" } else { "" };
    let mixing = match (c.partition_mixing, &c.partition_mixing_chosen) {
        (true, _) => "; partition mixing into the elitist".to_string(),
        // (The control's own words say it.)
        (false, Some(why)) if !c.anneal_only => format!("; by default, {why}"),
        (false, _) => String::new(),
    };
    let restarts = if c.elitist_restarts { "; every second population started from the elitist" } else { "" };
    let chosen = c.annealing_chosen.as_ref().map(|why| format!("; by default, {why}")).unwrap_or_default();
    format!("{fi}{search}{control}{mixing}{restarts}{chosen}")
}

/// Where stdout is a pipe, its buffer as large as the system lets a process make it (1 MiB by
/// default on Linux, against 64 KiB): the JSON answer of 10^8 variables then passes in a
/// sixteenth of the round trips between this process and its reader. Nothing changes elsewhere.
fn widen_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on the process's own stdout; it fails harmlessly where stdout is no pipe.
    unsafe {
        libc::fcntl(1, libc::F_SETPIPE_SZ, 1 << 20);
    }
}

pub fn print_outcome(o: &Outcome, json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let w = |r: std::io::Result<()>| r.map_err(|e| Error::io("stdout", e));
    if json {
        // Written as it is made, in large writes: the solution of 10^8 variables is not held
        // twice, nor written in pieces of stdout's own small buffer.
        let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
        widen_pipe();
        serde_json::to_writer(&mut out, o).map_err(|e| Error::usage(format!("JSON: {e}")))?;
        return w(writeln!(out).and_then(|()| out.flush()));
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
    w(writeln!(out, "hybrid           {}", hybrid_text(&o.config)))?;
    w(writeln!(out, "seed             {}", o.seed))?;
    let known = o
        .best_known
        .map(|b| format!("  (best known {b}{})", if o.best_fitness >= b { ", reached" } else { "" }))
        .unwrap_or_default();
    w(writeln!(out, "best fitness     {}{known}", o.best_fitness))?;
    if let Some(e) = &o.energy_text {
        w(writeln!(out, "energy           {e}  (the model's, minimised)"))?;
    }
    w(writeln!(out, "stopped by       {}", o.stop_explained()))?;
    w(writeln!(
        out,
        "time             {:.3} s (reading and choosing defaults {:.3} s, set-up {:.3} s)",
        o.time_s, o.before_setup_s, o.setup_s
    ))?;
    w(writeln!(
        out,
        "evaluations      {:.1} full-evaluation equivalents ({} subfunction evaluations)",
        o.evaluations, o.subfunction_evaluations
    ))?;
    w(writeln!(out, "GOM steps        {} ({:.3e} per second)", o.gom_steps, o.gom_steps as f64 / o.time_s.max(1e-9)))?;
    if o.partition_mixes > 0 {
        w(writeln!(out, "partition mixes  {} ({:.3} s of host time)", o.partition_mixes, o.partition_mixing_s))?;
    }
    w(writeln!(out, "generations      {} over populations {:?}", o.generations, o.populations))?;
    if let Some(note) = &o.note {
        w(writeln!(out, "note             {note}"))?;
    }
    for (k, v) in &o.report {
        let v = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
        w(writeln!(out, "{:<16} {v}", k.replace('_', " ")))?;
    }
    if let Some(m) = o.model_solution.as_ref().filter(|m| m.len() <= 200) {
        w(writeln!(out, "model solution   {}", pgomea::solve::bit_text(m)))?;
    }
    if o.solution.len() <= 200 {
        w(writeln!(out, "solution         {}", o.solution_text()))?;
    } else {
        w(writeln!(out, "solution         {} genes (use --json for the full string)", o.solution.len()))?;
    }
    Ok(())
}

fn cmd_info(a: &InfoArgs) -> Result<ExitCode> {
    // Each set-up phase's time and peak resident memory (the phase's own where the peak can be
    // reset, else the process's so far).
    let resettable = reset_peak_resident_memory();
    let t = std::time::Instant::now();
    let loaded = a.instance.load()?;
    let read = (t.elapsed().as_secs_f64(), peak_resident_memory());
    let problem = &*loaded.problem;
    // The model `run --algo parallel` would build, through the same function.
    let config: RunConfig = RunOptions {
        algorithm: Some(Algorithm::Parallel),
        linkage: a.model.linkage,
        coloring: a.model.coloring,
        seed: Some(a.seed),
        local_search: Some(LocalSearchMode::Off),
        max_population: Some(16),
        ..RunOptions::default()
    }
    .resolve(problem, loaded.best_known)?;
    reset_peak_resident_memory();
    let model = build_model(problem, &config, &Run::new(problem, Limits::default()), false)?;
    let model_peak = peak_resident_memory();
    reset_peak_resident_memory();
    let t = std::time::Instant::now();
    let groups = model.groups.as_ref().ok_or_else(|| Error::Internal("a parallel model has colour groups".into()))?;
    let layout = GroupLayout::new(problem, &model.fos, groups, &StopCheck::never())?;
    let layout_time = (t.elapsed().as_secs_f64(), peak_resident_memory());
    drop(layout);
    let peak = [read.1, model_peak, layout_time.1].into_iter().flatten().max();
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
        "linkage": config.linkage.to_string(),
        "fos_sets": fos.len(),
        "fos_largest_set": fos.largest_set(),
        "fos_total_size": fos.total_size(),
        "fos_build_s": model.times.fos_s,
        "lmig_edges": model.lmig_edges,
        "lmig_build_s": model.times.lmig_s,
        "coloring": config.coloring.to_string(),
        "colors": sizes.len(),
        "group_size_min": sizes.first().copied().unwrap_or(0),
        "group_size_median": median_of(sizes.iter().map(|&s| s as f64).collect()).unwrap_or(0.0),
        "group_size_max": sizes.last().copied().unwrap_or(0),
        "coloring_s": model.times.coloring_s,
        "read_s": read.0,
        "layout_s": layout_time.0,
        "peak_rss_resettable": resettable,
        "read_peak_rss_bytes": read.1,
        "model_peak_rss_bytes": model_peak,
        "layout_peak_rss_bytes": layout_time.1,
        "peak_rss_bytes": peak,
    });
    info.extend(json.as_object().expect("object").clone());
    // Why the linkage model is not the paper's tree, where the instance chose it.
    if let Some(why) = &config.linkage_chosen {
        info.insert("linkage_chosen".into(), why.clone().into());
    }
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
    let output = a.output.as_deref();
    let graph = match a.shape {
        Shape::Torus { side, dims, weights } => generate::torus_nd(dims, side, weights.weights(w), a.seed)?,
        Shape::Random { n, m } => generate::random(n, m, w, a.seed)?,
        Shape::Complete { n } => generate::complete(n, w, a.seed)?,
        Shape::Nk { n, k, neighbourhood } => {
            let problem = match neighbourhood {
                Neighbourhood::Adjacent => nk::sliding_window(n, k, a.seed)?,
                Neighbourhood::Random => nk::random_neighbourhood(n, k, a.seed)?,
            };
            return write_tables(&problem, output);
        }
        Shape::Trap { k, blocks, shuffle } => {
            return write_tables(&trap::concatenated(k, blocks, a.seed, shuffle)?, output);
        }
        Shape::Sat { n, m } => {
            let (sat, _) = maxsat::planted_3sat(n, m, a.seed)?;
            return write_generated(
                output,
                sat.optimum,
                |p| sat.write(p),
                |out| out.write_all(sat.to_text().as_bytes()),
            );
        }
    };
    write_generated(output, graph.optimum, |p| graph.write(p), |out| graph.write_text(out))
}

/// Writes a generated table problem as [`write_generated`] does.
fn write_tables(problem: &TableProblem, output: Option<&std::path::Path>) -> Result<ExitCode> {
    write_generated(output, problem.optimum, |p| problem.write(p), |out| out.write_all(problem.to_text().as_bytes()))
}

/// Writes a generated instance to `output` by `write`, its optimum (or that it is unknown) on
/// stdout; or to stdout by `print`, the optimum on stderr, so that the instance can be piped.
fn write_generated(
    output: Option<&std::path::Path>,
    optimum: Option<i64>,
    write: impl FnOnce(&std::path::Path) -> Result<()>,
    print: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<ExitCode> {
    let optimum = optimum.map(|o| o.to_string()).unwrap_or_else(|| "unknown".into());
    match output {
        Some(p) => {
            write(p)?;
            println!("optimum {optimum}");
        }
        None => {
            print(&mut std::io::stdout().lock()).map_err(|e| Error::io("stdout", e))?;
            eprintln!("optimum {optimum}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
