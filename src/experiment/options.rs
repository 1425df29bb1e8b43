//! The options of `pgomea experiment` and `pgomea merge`, and the runs they select: the study's
//! plan, a shard of it, the runs named by `--only`, and the command line of each run.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::Args;

use super::studies::{self, Budget, RunSpec, Study};
use pgomea::choice::Choice;
use pgomea::error::{Error, Result};
use pgomea::solve::Backend;
use pgomea::solve::config;

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
    pub(super) fn runs(&self) -> u64 {
        self.runs.unwrap_or(if self.paper { 30 } else { 3 })
    }

    pub(super) fn budget(&self) -> Result<Budget> {
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
