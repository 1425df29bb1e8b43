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
//!
//! This module runs and merges studies; its parts are the options and the runs they select
//! (`options`), the studies and their plans ([`studies`]), the result files ([`store`],
//! [`manifest`]), the summary ([`summary`]) and the summary files and figures written from it
//! (`report`, on [`plot`]).

pub mod manifest;
mod options;
pub mod plot;
mod report;
pub mod store;
pub mod studies;
pub mod summary;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::signal;
pub use options::{ExperimentArgs, MAX_RUNS, MergeArgs, Shard, parse_args};
use pgomea::error::{Error, Result};
use pgomea::gomea::run::StopReason;
use pgomea::problem::GrayBoxProblem;
use pgomea::solve::config;
use pgomea::solve::{Backend, Hooks, solve};
pub use report::{write_figures, write_summary};
use store::RunRecord;
use studies::RunSpec;
pub use studies::Study;

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
    let mut observer = crate::console::CliObserver::new(progress.then_some(Duration::from_secs(30)), None)?;
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
