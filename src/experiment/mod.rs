//! `pgomea experiment` and `pgomea merge`: the studies of section 6 of the paper, run as many
//! independent runs (one `solve()` each), stored one result file per run, then summarised and
//! plotted. A study is resumable (finished runs are skipped), can be split into shards for a
//! cluster (`--shard i/n`, `--list`, `--only RUN_ID`), and shards are combined with `merge`.
//!
//! Layout of a result directory:
//! - `runs/<run_id>.json`: the run (study, instance, variant, seed, limits, outcome, trace);
//! - `traces/<run_id>.csv`: `time_s,evaluations,best_fitness`, one row per improvement;
//! - `summary.csv`, `summary.json` (and `speedup.csv` for the speedup and convergence studies);
//! - `figures/<study>-<instance>.svg|png|csv`: best fitness over time (median, 10-90th percentile);
//!   `figures/scalability-<set>.*`: time to the optimum against the number of vertices;
//!   `figures/speedup.*` (`convergence-speedup.*`; `-small`/`-large` panels from six instances on):
//!   the speed-up per fitness level against the parallel time.

pub mod manifest;
pub mod plot;
pub mod store;
pub mod studies;
pub mod summary;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;
use std::time::{Duration, Instant};

use clap::Args;

use crate::signal;
use pgomea::choice::Choice;
use pgomea::error::{Error, Result};
use pgomea::gomea::run::StopReason;
use pgomea::problem::GrayBoxProblem;
use pgomea::solve::config;
use pgomea::solve::{Algorithm, Backend, Hooks, solve};
use plot::{Figure, Series};
use store::RunRecord;
pub use studies::Study;
use studies::{Budget, RunSpec};
use summary::Summary;

const STUDIES_HELP: &str = "\
Studies (section 6 of Bouter and Bosman, GECCO 2022, with the figure numbers of the paper):

  ims-popsize     Fig. 4. Parallel GOMEA with a fixed linkage tree (FLT) and IMS base population
                  n_base = 8, 16, 32, 64 on g1 and g65. Claim: n_base hardly matters (only 8 is
                  slightly worse), so 16 is used everywhere else.
  scalability     Fig. 5. Time to reach the optimum (best_known.csv; is_optimal where proven) against
                  the number of vertices, serial and parallel GOMEA, on one instance (the first by
                  name) of every size of Set A (fully connected) and Set B (2D tori). Claims: no gain on fully
                  connected graphs (no two linkage sets may be mixed at once); better scaling of
                  parallel GOMEA on tori.
  convergence     Fig. 6. Best fitness over time, serial vs parallel GOMEA, on g1 and g65 (with
                  --paper: all nine Set C graphs). Claim: parallel GOMEA converges faster on the GPU.
                  (Also draws the speed-up of its runs, as the speedup study does.)
  speedup         Fig. 7. For every fitness parallel GOMEA reached: median time serial GOMEA needed /
                  median time parallel GOMEA needed, plotted against the parallel time; on g1 and
                  g81 (with --paper: all of Set C, 6 h serial on the four largest). Claims: speed-ups
                  up to ~100 on the large graphs; on small ones the speed-up fades late in the run.
  linkage-models  Fig. 8. Serial GOMEA with a learned LT, the FLT, BFLT 10 and BFLT 100, on g55 and
                  g65. Claim: the learned LT ends better on g65 but late; on g55 it is worst in time.
  fos-order       Fig. 9. Serial GOMEA with random vs colour-group (parallel GOM's) FOS order, FI on
                  and off, on g1 and g65. Claim: the order does not matter, FI does (late in the run).
  hybrid          Beyond the paper (its future work, section 7): parallel GOMEA as in the paper, with
                  parallel Forced Improvement (fi), with annealed colour-grouped local search of every
                  new population (ls: 3000 sweeps, then greedy descent), and with both (fi-ls), on g22
                  and g55; and the control anneal-only: ls's multi-start scheme and annealed new
                  populations, each terminated before any GOM generation (what GOM adds: ls vs
                  anneal-only); ls-mix and anneal-only-mix: those two with partition mixing into
                  the elitist (run's default; what the generations add beyond the mixing).

Every run: DIR/runs/<run_id>.json and DIR/traces/<run_id>.csv; then DIR/summary.csv,
DIR/summary.json and DIR/figures/*.svg|png|csv (medians with the 10th-90th percentile band over runs,
time on a log axis). Run ids: <study>-<instance>-<variant>-seed<N>, seeds 1..=--runs.

Defaults take minutes (3 runs, 10-15 s each). The paper's budgets: --paper (30 runs, 1 h per run,
6 h for serial runs on instances of >= --large-vertices vertices, i.e. G66, G72, G77, G81), or
explicitly: --runs 30 --time-limit 3600 --serial-time-limit 21600.

Instances: the defaults come from the data directory (--instances-dir, $PGOMEA_INSTANCES,
./instances, ../shared/instances). --instances takes files (a best-known value is read from
best_known.csv when the file lies in the data directory, else from FILE.bkv beside it), SET/NAME
(C/G1, B/n0000400i00), SET/PATTERN with * wildcards (A/* is the whole set), SET/@sizes (the
first instance of every size of the set) or bare names (G1).

Resuming and scale-out: a run whose result file exists is skipped, so rerunning the same command
resumes a study (results are written atomically; Ctrl-C or SIGTERM discards only the run in
progress and exits with status 130 or 143). DIR/experiment-<study>.json records the options that
change results (budgets, population cap; backend and threads for time-limited runs): a directory
made with other options is refused with the differences.
--list prints one self-contained command per run; --shard I/N runs runs I-1, I-1+N, ... (1-based I,
as SLURM_ARRAY_TASK_ID); `pgomea merge DIR...` combines result directories into one summary.";

/// `I/N`: the I-th of N shares (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || format!("`{s}`: expected I/N with 1 <= I <= N, e.g. 3/8");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Run `index` (0-based, in plan order) belongs to this shard.
    pub fn owns(&self, index: usize) -> bool {
        index % self.count == self.index - 1
    }
}

#[derive(Args, Debug, Clone)]
#[command(after_long_help = STUDIES_HELP)]
pub struct ExperimentArgs {
    /// The study (`--help` says what each reproduces)
    ///
    /// One of the paper's section 6: the list below says which figure of the paper each
    /// reproduces.
    #[arg(value_enum)]
    pub study: Study,
    /// The result directory (created; existing results in it are kept and skipped).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Runs per instance and variant, seeds 1..=N [default: 3, or 30 with --paper].
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// Time limit of every run in seconds [default: 15, scalability 10, --paper 3600]
    ///
    /// None when only --max-evals is given.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Time limit of serial runs on large instances [default: the --time-limit, --paper 21600]
    ///
    /// Instances of at least --large-vertices vertices; with --paper, the paper's 6 h on the four
    /// largest Set C graphs.
    #[arg(long, value_name = "SECONDS")]
    pub serial_time_limit: Option<f64>,
    /// The size from which --serial-time-limit applies (9000: G66, G72, G77, G81).
    #[arg(long, value_name = "VERTICES", default_value_t = 9000)]
    pub large_vertices: usize,
    /// Evaluation budget of every run (full-evaluation equivalents)
    ///
    /// Deterministic termination: with no --time-limit, runs then have no time limit.
    #[arg(long, value_name = "E")]
    pub max_evals: Option<f64>,
    /// The paper's budgets: 30 runs, 1 h per run, 6 h for serial on the large graphs
    ///
    /// Also all of Set C for convergence and speedup. Explicit options override each part.
    #[arg(long)]
    pub paper: bool,
    /// Instances instead of the study's defaults
    ///
    /// FILE, SET/NAME, SET/PATTERN (* wildcards), SET/@sizes (first instance of every size) or
    /// NAME.
    #[arg(long, value_name = "INSTANCE", num_args = 1..)]
    pub instances: Vec<String>,
    /// The data directory with the instance sets and best_known.csv.
    #[arg(long, value_name = "DIR")]
    pub instances_dir: Option<PathBuf>,
    #[command(flatten)]
    pub backend: crate::args::BackendArgs,
    /// Largest population the IMS may start (default: what fits in a quarter of free memory).
    #[arg(long, value_name = "N")]
    pub max_population: Option<usize>,
    /// Print one self-contained command line per run (after --shard/--only) and run nothing.
    #[arg(long)]
    pub list: bool,
    /// Run only the I-th of N shares of the runs (runs whose 0-based index mod N is I-1).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Run only this run (repeatable); `--list` shows the ids.
    #[arg(long, value_name = "RUN_ID")]
    pub only: Vec<String>,
    /// Write the summary but no figures.
    #[arg(long)]
    pub no_figures: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// Result directories of `pgomea experiment` (shards of one study, or several studies).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where the merged runs, summary and figures go [default: the first DIR].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write the summary but no figures.
    #[arg(long)]
    pub no_figures: bool,
    /// No report on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

impl ExperimentArgs {
    fn runs(&self) -> u64 {
        self.runs.unwrap_or(if self.paper { 30 } else { 3 })
    }

    fn budget(&self) -> Result<Budget> {
        for (v, option) in [(self.time_limit, "time_limit"), (self.serial_time_limit, "serial_time_limit")] {
            v.map(|x| config::seconds(option, x)).transpose()?;
        }
        self.max_evals.map(|x| config::positive("max_evaluations", x)).transpose()?;
        let time_limit = match (self.time_limit, self.paper, self.max_evals) {
            (Some(t), _, _) => Some(t),
            (None, true, _) => Some(3600.0),
            (None, false, Some(_)) => None,
            (None, false, None) => Some(self.study.default_time_limit()),
        };
        let serial_time_limit = self.serial_time_limit.or(if self.paper { Some(21600.0) } else { None });
        Ok(Budget { time_limit, serial_time_limit, large_vertices: self.large_vertices, max_evals: self.max_evals })
    }

    /// The whole plan of the study (before --shard and --only).
    pub fn plan(&self) -> Result<Vec<RunSpec>> {
        if self.runs() == 0 || self.runs() > MAX_RUNS {
            return Err(Error::usage(format!("--runs {}: expected 1 to {MAX_RUNS} runs", self.runs())));
        }
        // The options first: a bad limit is reported whether or not the instances can be found.
        let budget = self.budget()?;
        let instances =
            studies::resolve_instances(self.study, &self.instances, self.instances_dir.as_deref(), self.paper)?;
        studies::plan(self.study, &instances, self.runs(), &budget)
    }

    /// The runs this invocation is responsible for (after --only and --shard).
    pub fn selection(&self) -> Result<Vec<RunSpec>> {
        let plan = self.plan()?;
        for id in &self.only {
            if !plan.iter().any(|r| &r.run_id == id) {
                return Err(Error::usage(format!(
                    "--only {id}: the {} study has no such run with these options (`--list` prints the run ids)",
                    self.study.name()
                )));
            }
        }
        Ok(plan
            .into_iter()
            .filter(|r| self.only.is_empty() || self.only.contains(&r.run_id))
            .filter(|r| self.shard.is_none_or(|s| s.owns(r.index)))
            .collect())
    }

    /// One command line that runs exactly `spec` (absolute paths, so it runs from any folder).
    pub fn command_line(&self, spec: &RunSpec) -> String {
        let exe = std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "pgomea".into());
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()).display().to_string();
        let mut t: Vec<String> =
            vec![exe, "experiment".into(), self.study.name().into(), "--out".into(), abs(&self.out)];
        t.extend(["--only".into(), spec.run_id.clone(), "--runs".into(), self.runs().to_string()]);
        t.extend(["--instances".into(), spec.instance.source_text()]);
        if let studies::Source::Data { dir, .. } = &spec.instance.source {
            t.extend(["--instances-dir".into(), abs(dir)]);
        } else if let Some(d) = &self.instances_dir {
            t.extend(["--instances-dir".into(), abs(d)]);
        }
        if self.paper {
            t.push("--paper".into());
        }
        let mut num = |flag: &str, v: Option<String>| {
            if let Some(v) = v {
                t.extend([flag.to_string(), v]);
            }
        };
        num("--time-limit", self.time_limit.map(|v| v.to_string()));
        num("--serial-time-limit", self.serial_time_limit.map(|v| v.to_string()));
        num("--large-vertices", (self.large_vertices != 9000).then(|| self.large_vertices.to_string()));
        num("--max-evals", self.max_evals.map(|v| v.to_string()));
        num("--threads", self.backend.threads.map(|v| v.to_string()));
        num("--max-population", self.max_population.map(|v| v.to_string()));
        t.extend(["--backend".into(), self.backend.backend.unwrap_or(Backend::Auto).name().into()]);
        if self.no_figures {
            t.push("--no-figures".into());
        }
        if self.quiet {
            t.push("--quiet".into());
        }
        t.iter().map(|s| shell_quote(s)).collect::<Vec<_>>().join(" ")
    }
}

/// Parses the arguments of `pgomea experiment` (after the subcommand name), as the CLI does: for
/// tests and tools that want a plan without running it.
pub fn parse_args<I, T>(args: I) -> std::result::Result<ExperimentArgs, String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    #[derive(clap::Parser)]
    #[command(name = "pgomea experiment")]
    struct Command {
        #[command(flatten)]
        args: ExperimentArgs,
    }
    let mut all: Vec<std::ffi::OsString> = vec!["pgomea experiment".into()];
    all.extend(args.into_iter().map(Into::into));
    <Command as clap::Parser>::try_parse_from(all).map(|c| c.args).map_err(|e| e.to_string())
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_./:=@%+-,".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The most runs per instance and variant (`--runs`).
pub const MAX_RUNS: u64 = 100_000;

/// Refuses the directory when a stored run of the plan was made with other options (each record
/// is parsed, so a corrupt one is reported now, with its path, rather than after the study).
fn check_stored_runs(a: &ExperimentArgs, plan: &[RunSpec], common: &studies::Common) -> Result<()> {
    for record in store::load_dir(&a.out)? {
        let Some(spec) = plan.iter().find(|s| s.run_id == record.run_id) else { continue };
        let diff = manifest::record_differences(&record, spec, common);
        if !diff.is_empty() {
            return Err(Error::usage(format!(
                "{}: run {} was made with other options: {}. Rerun with the same options to resume, or choose                  another --out",
                store::record_path(&a.out, &record.run_id).display(),
                record.run_id,
                diff.join("; ")
            )));
        }
    }
    Ok(())
}

/// Runs one planned run and returns its record (not yet stored).
pub fn execute(
    spec: &RunSpec,
    common: &studies::Common,
    problem: &dyn GrayBoxProblem,
    progress: bool,
) -> Result<RunRecord> {
    let v = &spec.variant;
    if spec.time_limit.is_none() && spec.max_evals.is_none() {
        return Err(Error::usage("a run needs a time limit or an evaluation budget"));
    }
    let options = spec.options(common);
    let config = options.resolve(problem, spec.instance.best_known)?;
    let mut observer = crate::cli::CliObserver::new(progress.then_some(Duration::from_secs(30)), None)?;
    // The signal flag, when the command installed the handlers: the run stops at the first signal.
    let hooks = Hooks { stop: signal::flag(), observer: Some(&mut observer), ..Hooks::default() };
    let outcome = solve(problem, &config, hooks)?;
    let trace: Vec<store::TraceRow> = outcome.trace.iter().map(|&p| p.into()).collect();
    let (time_to_target_s, evaluations_to_target) = summary::to_target(&trace, spec.target);
    Ok(RunRecord {
        format: store::FORMAT,
        study: spec.study.name().into(),
        run_id: spec.run_id.clone(),
        instance: spec.instance.label.clone(),
        instance_source: spec.instance.source_text(),
        instance_set: spec.instance.set.clone(),
        variables: problem.variables(),
        subfunctions: problem.subfunctions(),
        variant: v.name.clone(),
        seed: spec.seed,
        best_known: spec.instance.best_known,
        is_optimal: spec.instance.is_optimal,
        options,
        config: outcome.config.clone(),
        best_fitness: outcome.best_fitness,
        reached_target: outcome.reached_target,
        stop_reason: outcome.stop_reason.as_str().to_string(),
        time_s: outcome.time_s,
        evaluations: outcome.evaluations,
        backend_used: outcome.backend.clone(),
        time_to_target_s,
        evaluations_to_target,
        trace,
        outcome: serde_json::to_value(&outcome).map_err(|e| Error::usage(format!("JSON: {e}")))?,
        pgomea_version: env!("CARGO_PKG_VERSION").into(),
    })
}

/// `pgomea experiment`.
pub fn run(a: &ExperimentArgs) -> Result<ExitCode> {
    let selection = a.selection()?;
    if a.list {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        for spec in &selection {
            match writeln!(out, "{}", a.command_line(spec)) {
                Ok(()) => {}
                // `--list | head` closes the pipe early: not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
                Err(e) => return Err(Error::io("stdout", e)),
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    config::threads(a.backend.threads)?;
    let interrupt = signal::install()?;
    std::fs::create_dir_all(&a.out).map_err(|e| Error::io(&a.out, e))?;
    let common = studies::Common {
        backend: a.backend.backend.unwrap_or(Backend::Auto),
        threads: a.backend.threads,
        max_population: a.max_population,
        c_ims: 4,
    };
    manifest::check_or_write(&a.out, &manifest::Manifest::new(a.study.name(), &a.budget()?, &common))?;
    check_stored_runs(a, &selection, &common)?;
    let total = selection.len();
    let pending: Vec<&RunSpec> = selection.iter().filter(|s| !store::is_done(&a.out, &s.run_id)).collect();
    let skipped = total - pending.len();
    if !a.quiet {
        eprintln!(
            "experiment {}: {} runs{}{}; {} already done, {} to run -> {}",
            a.study.name(),
            total,
            a.shard.map(|s| format!(" (shard {}/{})", s.index, s.count)).unwrap_or_default(),
            if a.only.is_empty() { String::new() } else { " (--only)".into() },
            skipped,
            pending.len(),
            a.out.display()
        );
    }
    let started = Instant::now();
    let mut loaded: Option<(String, Box<dyn GrayBoxProblem>)> = None;
    for (k, spec) in pending.iter().enumerate() {
        if interrupt.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(interrupted(a, None));
        }
        let source = spec.instance.source_text();
        if loaded.as_ref().is_none_or(|(s, _)| *s != source) {
            loaded = Some((source.clone(), spec.instance.load()?));
        }
        let problem = &*loaded.as_ref().expect("loaded").1;
        if !a.quiet {
            let limit = match (spec.time_limit, spec.max_evals) {
                (Some(t), Some(e)) => format!("{t} s or {e} evaluations"),
                (Some(t), None) => format!("{t} s"),
                (None, Some(e)) => format!("{e} evaluations"),
                (None, None) => "no limit".into(),
            };
            eprintln!(
                "[{}/{}] {} ({}, {} variables; {}; limit {}{})",
                skipped + k + 1,
                total,
                spec.run_id,
                spec.instance.label,
                problem.variables(),
                spec.variant.name,
                limit,
                spec.target.map(|t| format!(", target {t}")).unwrap_or_default()
            );
        }
        let record = execute(spec, &common, problem, !a.quiet)?;
        // A run cut short by a signal is not the planned run: it is not stored, and a rerun
        // makes it whole.
        if record.stop_reason == StopReason::Interrupted.as_str() {
            return Ok(interrupted(a, Some(&spec.run_id)));
        }
        store::save(&a.out, &record)?;
        if !a.quiet {
            eprintln!(
                "        best {}{} after {:.2} s, {:.0} evaluations ({}) on {}",
                record.best_fitness,
                if record.reached_target { " = target" } else { "" },
                record.time_s,
                record.evaluations,
                record.stop_reason,
                record.backend_used
            );
        }
    }
    let records = store::load_dir(&a.out)?;
    let summary = write_summary(&a.out, &records, !a.no_figures)?;
    if !a.quiet {
        eprintln!(
            "experiment {}: {} runs in {:.1} s ({} skipped as done); {} runs in {}: summary.csv, summary.json{}",
            a.study.name(),
            pending.len(),
            started.elapsed().as_secs_f64(),
            skipped,
            summary.runs,
            a.out.display(),
            if a.no_figures { "" } else { ", figures/" }
        );
        if a.shard.is_some() {
            eprintln!(
                "when every shard is done: pgomea merge DIR... --out MERGED (one summary and the figures of all runs)"
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The report and exit status of a study stopped by a signal (`discarded`: the run in flight).
fn interrupted(a: &ExperimentArgs, discarded: Option<&str>) -> ExitCode {
    let code = signal::received().unwrap_or(signal::EXIT_SIGINT);
    eprintln!(
        "experiment {}: stopped by {}{}; finished runs are kept in {}, rerun the same command to resume",
        a.study.name(),
        signal::name(code),
        discarded.map(|id| format!(", run {id} discarded")).unwrap_or_default(),
        a.out.display()
    );
    ExitCode::from(code)
}

/// `pgomea merge`.
pub fn merge(a: &MergeArgs) -> Result<ExitCode> {
    let out = a.out.clone().unwrap_or_else(|| a.dirs[0].clone());
    let same = |x: &Path, y: &Path| match (x.canonicalize(), y.canonicalize()) {
        (Ok(p), Ok(q)) => p == q,
        _ => false,
    };
    let mut merged: Vec<(RunRecord, PathBuf)> = Vec::new();
    for dir in &a.dirs {
        if !store::runs_dir(dir).is_dir() {
            return Err(Error::usage(format!(
                "{}: no runs/ folder: not a result directory of `pgomea experiment`",
                dir.display()
            )));
        }
        for r in store::load_dir(dir)? {
            match merged.iter().find(|(m, _)| m.run_id == r.run_id) {
                Some((m, from)) => {
                    if (m.best_fitness, m.seed, &m.config) != (r.best_fitness, r.seed, &r.config) && !a.quiet {
                        eprintln!(
                            "warning: run {} differs between {} and {}; keeping the first",
                            r.run_id,
                            from.display(),
                            dir.display()
                        );
                    }
                }
                None => merged.push((r, dir.clone())),
            }
        }
    }
    // Shards made with other options are not one study: refuse them as a resume would.
    let mut manifests: Vec<(manifest::Manifest, PathBuf)> = Vec::new();
    for dir in &a.dirs {
        for study in Study::ALL {
            let Some(m) = manifest::read(dir, study.name())? else { continue };
            match manifests.iter().find(|(x, _)| x.study == m.study) {
                Some((first, from)) if first != &m => {
                    return Err(Error::usage(format!(
                        "{} and {} hold runs of the {} study made with other options: {}",
                        from.display(),
                        dir.display(),
                        m.study,
                        first.differences(&m).join("; ").replace("this command", "the second")
                    )));
                }
                Some(_) => {}
                None => manifests.push((m, dir.clone())),
            }
        }
    }
    std::fs::create_dir_all(&out).map_err(|e| Error::io(&out, e))?;
    for (m, _) in &manifests {
        manifest::check_or_write(&out, m)?;
    }
    let mut copied = 0;
    for (r, from) in &merged {
        if !same(from, &out) && !store::is_done(&out, &r.run_id) {
            store::save(&out, r)?;
            copied += 1;
        }
    }
    let records = store::load_dir(&out)?;
    let summary = write_summary(&out, &records, !a.no_figures)?;
    if !a.quiet {
        eprintln!(
            "merged {} runs from {} directories ({} copied) into {}: {} runs, summary.csv, summary.json{}",
            merged.len(),
            a.dirs.len(),
            copied,
            out.display(),
            summary.runs,
            if a.no_figures { "" } else { ", figures/" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes summary.csv, summary.json (and speedup.csv), and the figures, of every record.
pub fn write_summary(dir: &Path, records: &[RunRecord], figures: bool) -> Result<Summary> {
    let s = summary::summarize(records);
    let json = serde_json::to_vec_pretty(&s).map_err(|e| Error::usage(format!("JSON: {e}")))?;
    store::write_atomic(&dir.join("summary.json"), &json)?;
    store::write_atomic(&dir.join("summary.csv"), summary::summary_csv(&s).as_bytes())?;
    if !s.speedup.is_empty() {
        store::write_atomic(&dir.join("speedup.csv"), summary::speedup_csv(&s).as_bytes())?;
    }
    if figures {
        write_figures(&dir.join("figures"), records, &s)?;
    }
    Ok(s)
}

fn study_title(study: &str) -> &'static str {
    match Study::from_name(study) {
        Some(Study::ImsPopsize) => "Parallel GOMEA (FLT), IMS base population",
        Some(Study::Scalability) => "Time to the optimum",
        Some(Study::Convergence) | Some(Study::Speedup) => "Serial vs parallel GOMEA",
        Some(Study::LinkageModels) => "Serial GOMEA, linkage models",
        Some(Study::FosOrder) => "Serial GOMEA, FOS order and FI",
        Some(Study::Hybrid) => "Parallel GOMEA, paper vs hybrid (FI, local search)",
        None => "Runs",
    }
}

/// The legend label of a group: the variant, with the backend for parallel GOMEA.
fn legend(g: &[&RunRecord]) -> String {
    let r = g[0];
    let name = match r.variant.as_str() {
        "serial" => "serial GOMEA".to_string(),
        "parallel" => "parallel GOMEA".to_string(),
        v if v.starts_with("nbase") => format!("n_base = {}", &v[5..]),
        "lt" => "learned LT".into(),
        "flt" => "FLT".into(),
        "bflt10" => "BFLT 10".into(),
        "bflt100" => "BFLT 100".into(),
        "random-fi" => "random order, FI".into(),
        "random-nofi" => "random order, no FI".into(),
        "colored-fi" => "colour-group order, FI".into(),
        "colored-nofi" => "colour-group order, no FI".into(),
        studies::ANNEAL_ONLY => "annealing alone, no GOM (control)".into(),
        studies::ANNEAL_ONLY_MIX => "annealing and partition mixing, no GOM generation".into(),
        v => v.to_string(),
    };
    if r.config.algorithm == Algorithm::Parallel {
        let mut b: Vec<&str> = g.iter().map(|r| r.backend_used.split(' ').next().unwrap_or("")).collect();
        b.sort();
        b.dedup();
        format!("{name} [{}]", b.join(", "))
    } else {
        name
    }
}

/// Every figure of the records: fitness over time per (study, instance); time to the optimum
/// against size per (scalability, set); the speed-up per study.
pub fn write_figures(dir: &Path, records: &[RunRecord], s: &Summary) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let groups = summary::groups(records);
    let y_label = "best fitness (median, 10-90th percentile)";
    for study in &s.studies {
        let mine: Vec<&Vec<&RunRecord>> = groups.iter().filter(|g| &g[0].study == study).collect();
        if study == Study::Scalability.name() {
            let mut sets: Vec<String> = mine.iter().map(|g| g[0].instance_set.clone()).collect();
            sets.sort();
            sets.dedup();
            for set in sets {
                let mut variants: Vec<(String, Vec<&RunRecord>)> = Vec::new();
                for g in mine.iter().filter(|g| g[0].instance_set == set) {
                    match variants.iter_mut().find(|(v, _)| *v == g[0].variant) {
                        Some((_, runs)) => runs.extend(g.iter().copied()),
                        None => variants.push((g[0].variant.clone(), g.to_vec())),
                    }
                }
                let mut fig = Figure {
                    title: format!("{}: Set {set} (median, 10-90th percentile)", study_title(study)),
                    x_label: "vertices".into(),
                    y_label: "time to the optimum (s)".into(),
                    x_log: true,
                    y_log: true,
                    ..Figure::default()
                };
                if set == "files" {
                    fig.title = format!("{}: given files (median, 10-90th percentile)", study_title(study));
                }
                let mut csv = String::from("variant,vertices,runs,reached,median_s,p10_s,p90_s\n");
                for (variant, runs) in &variants {
                    let pts = summary::scalability_points(runs);
                    for p in &pts {
                        let f = |x: f64| if x.is_finite() { x.to_string() } else { String::new() };
                        csv += &format!(
                            "{variant},{},{},{},{},{},{}\n",
                            p.vertices,
                            p.runs,
                            p.reached,
                            f(p.median),
                            f(p.p10),
                            f(p.p90)
                        );
                    }
                    let finite: Vec<_> = pts.iter().filter(|p| p.median.is_finite()).collect();
                    fig.series.push(Series {
                        name: legend(runs),
                        points: finite.iter().map(|p| (p.vertices as f64, p.median)).collect(),
                        band: finite
                            .iter()
                            .map(|p| (p.vertices as f64, p.p10, if p.p90.is_finite() { p.p90 } else { f64::MAX }))
                            .collect(),
                        markers: true,
                    });
                }
                let name = format!("{study}-{}", studies::slug(&set));
                plot::write(dir, &name, &fig)?;
                store::write_atomic(&dir.join(format!("{name}.csv")), csv.as_bytes())?;
            }
            continue;
        }
        let mut instances: Vec<(usize, String)> =
            mine.iter().map(|g| (g[0].variables, g[0].instance.clone())).collect();
        instances.dedup();
        for (_, inst) in &instances {
            let r0 = mine.iter().find(|g| &g[0].instance == inst).expect("group")[0];
            let known = r0.best_known.map(|b| format!(" (best known {b})")).unwrap_or_default();
            let mut fig = Figure {
                title: format!("{}: {inst}{known}", study_title(study)),
                x_label: "time (s)".into(),
                y_label: y_label.into(),
                x_log: true,
                legend_lower_right: true,
                ..Figure::default()
            };
            let mut csv = String::from("variant,time_s,median,p10,p90\n");
            for g in mine.iter().filter(|g| &g[0].instance == inst) {
                let curve = summary::fitness_curve(g, 200);
                for p in &curve {
                    csv += &format!("{},{},{},{},{}\n", g[0].variant, p.time_s, p.median, p.p10, p.p90);
                }
                fig.series.push(Series {
                    name: legend(g),
                    points: curve.iter().map(|p| (p.time_s, p.median)).collect(),
                    band: curve.iter().map(|p| (p.time_s, p.p10, p.p90)).collect(),
                    markers: false,
                });
            }
            let name = format!("{study}-{}", studies::slug(inst));
            plot::write(dir, &name, &fig)?;
            store::write_atomic(&dir.join(format!("{name}.csv")), csv.as_bytes())?;
        }
    }
    for study in &s.studies {
        let speedups: Vec<&summary::SpeedupSummary> = s.speedup.iter().filter(|x| &x.study == study).collect();
        if speedups.is_empty() {
            continue;
        }
        let base = if study == Study::Speedup.name() { "speedup".to_string() } else { format!("{study}-speedup") };
        let mut parts: Vec<(String, &str, Vec<&summary::SpeedupSummary>)> = vec![(base.clone(), "", speedups.clone())];
        // The paper's Fig. 7 has two panels: the five smallest and the four largest Set C graphs.
        if speedups.len() >= 6 {
            let mut by_size = speedups.clone();
            by_size.sort_by_key(|x| x.vertices);
            let large = by_size.split_off(by_size.len() - 4);
            parts.push((format!("{base}-small"), ", smaller graphs", by_size));
            parts.push((format!("{base}-large"), ", four largest graphs", large));
        }
        for (name, which, list) in parts {
            let mut fig = Figure {
                title: format!("Speed-up of parallel over serial GOMEA{which} (medians over runs)"),
                x_label: "time parallel GOMEA needed (s)".into(),
                y_label: "speed-up (time serial / time parallel)".into(),
                x_log: true,
                y_log: true,
                hline: Some((1.0, "no speed-up".into())),
                ..Figure::default()
            };
            for sp in list {
                fig.series.push(Series {
                    name: sp.instance.clone(),
                    points: sp
                        .levels
                        .iter()
                        .filter_map(|l| l.speedup.map(|s| (l.parallel_time_s.max(1e-6), s)))
                        .collect(),
                    band: Vec::new(),
                    markers: sp.levels.iter().filter(|l| l.speedup.is_some()).count() < 30,
                });
            }
            plot::write(dir, &name, &fig)?;
        }
    }
    Ok(())
}
