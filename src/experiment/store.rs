//! The result files of an experiment directory: one JSON record per finished run
//! (`runs/<run_id>.json`) and its trace (`traces/<run_id>.csv`). Every file is written to a
//! temporary file in the same folder and renamed into place, so a file that exists is complete:
//! an interrupted study leaves its finished runs intact and resumes by skipping them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use pgomea::error::{Error, Result};
use pgomea::gomea::run::TracePoint;
use pgomea::solve::{RunConfig, RunOptions};

/// The version of the record layout, stored in every record (2: the run's options and its
/// resolved configuration as the library names them; 1 still loads, through the private module
/// `legacy`).
pub const FORMAT: u32 = 2;

/// One finished run: what was run, what it found, and the trace of elitist improvements.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    pub format: u32,
    pub study: String,
    pub run_id: String,
    /// The instance's label (G1, n0000400i00, or a file stem).
    pub instance: String,
    /// Where it came from: `C/G1` (set/name in the data directory) or a file path.
    pub instance_source: String,
    /// The set of the data directory (A, B, C, ...), or `files`.
    pub instance_set: String,
    /// The number of variables (vertices of a graph); `vertices` in records of pgomea 0.1.
    #[serde(alias = "vertices")]
    pub variables: usize,
    /// The number of subfunctions (edges of a graph); `edges` in records of pgomea 0.1.
    #[serde(alias = "edges")]
    pub subfunctions: usize,
    pub variant: String,
    pub seed: u64,
    pub best_known: Option<i64>,
    pub is_optimal: bool,
    /// The options the study gave the run (what a resumed study compares).
    pub options: RunOptions,
    /// The configuration the run ran, complete (the library's resolution of the options).
    pub config: RunConfig,
    pub best_fitness: i64,
    pub reached_target: bool,
    pub stop_reason: String,
    pub time_s: f64,
    pub evaluations: f64,
    /// The backend that ran (e.g. `cuda (NVIDIA H100 ...)`, `cpu (16 threads)`, `cpu (serial)`).
    pub backend_used: String,
    /// First time and evaluations at which the target was reached (from the trace).
    pub time_to_target_s: Option<f64>,
    pub evaluations_to_target: Option<f64>,
    /// Every improvement of the best solution: time_s, evaluations, best_fitness.
    pub trace: Vec<TraceRow>,
    /// The solver's full outcome (`pgomea run --json` fields, with the solution).
    pub outcome: serde_json::Value,
    /// The pgomea version that wrote the record.
    pub pgomea_version: String,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct TraceRow {
    pub time_s: f64,
    pub evaluations: f64,
    pub best_fitness: i64,
}

impl From<TracePoint> for TraceRow {
    fn from(p: TracePoint) -> Self {
        TraceRow { time_s: p.time_s, evaluations: p.evaluations, best_fitness: p.best_fitness }
    }
}

impl From<TraceRow> for TracePoint {
    fn from(p: TraceRow) -> Self {
        TracePoint { time_s: p.time_s, evaluations: p.evaluations, best_fitness: p.best_fitness }
    }
}

impl RunRecord {
    pub fn trace_points(&self) -> Vec<TracePoint> {
        self.trace.iter().map(|&r| r.into()).collect()
    }
}

/// The first trace row at or above `target`.
pub fn first_reaching(trace: &[TraceRow], target: i64) -> Option<TraceRow> {
    trace.iter().find(|p| p.best_fitness >= target).copied()
}

pub fn runs_dir(dir: &Path) -> PathBuf {
    dir.join("runs")
}

pub fn traces_dir(dir: &Path) -> PathBuf {
    dir.join("traces")
}

pub fn record_path(dir: &Path, run_id: &str) -> PathBuf {
    runs_dir(dir).join(format!("{run_id}.json"))
}

pub fn trace_path(dir: &Path, run_id: &str) -> PathBuf {
    traces_dir(dir).join(format!("{run_id}.csv"))
}

/// Writes `bytes` to `path` atomically: a hidden temporary file in the same folder, then a
/// rename over `path`. The temporary name holds the process id, the clock and a counter, so
/// shards on several hosts writing into one shared folder never share one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.tmp.{}.{nanos:x}.{n}", std::process::id()));
    let result = (|| {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

/// The trace as CSV, the same layout as `pgomea run --trace`.
pub fn trace_csv(trace: &[TraceRow]) -> String {
    let mut s = String::from("time_s,evaluations,best_fitness\n");
    for p in trace {
        s += &format!("{:.6},{:.3},{}\n", p.time_s, p.evaluations, p.best_fitness);
    }
    s
}

/// Stores a finished run: the trace first, then the record, whose presence marks the run done.
pub fn save(dir: &Path, record: &RunRecord) -> Result<()> {
    write_atomic(&trace_path(dir, &record.run_id), trace_csv(&record.trace).as_bytes())?;
    let json = serde_json::to_vec_pretty(record).map_err(|e| Error::usage(format!("JSON: {e}")))?;
    write_atomic(&record_path(dir, &record.run_id), &json)
}

/// Reads one record; an error names the file.
pub fn load(path: &Path) -> Result<RunRecord> {
    let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    #[derive(Deserialize)]
    struct Format {
        format: u32,
    }
    let damaged = |e: serde_json::Error| {
        Error::usage(format!(
            "{}: not a pgomea run record ({e}); it may be damaged or from another program: delete it and rerun \
             the same command to make that run again",
            path.display()
        ))
    };
    match serde_json::from_slice::<Format>(&text) {
        Ok(Format { format: 1 }) => {
            return serde_json::from_slice::<legacy::Record>(&text)
                .and_then(legacy::Record::into_record)
                .map_err(damaged);
        }
        Ok(Format { format }) if format != FORMAT => {
            return Err(Error::usage(format!(
                "{}: a run record of a newer pgomea (record format {format}; this version reads 1 and {FORMAT})",
                path.display()
            )));
        }
        _ => {}
    }
    serde_json::from_slice(&text).map_err(|e| {
        Error::usage(format!(
            "{}: not a pgomea run record ({e}); it may be damaged or from another program: delete it and rerun \
             the same command to make that run again",
            path.display()
        ))
    })
}

/// True when the run's record exists. Records are only ever renamed into place complete, so
/// existence is enough (and cheap: a study of hundreds of long runs does not parse them all).
pub fn is_done(dir: &Path, run_id: &str) -> bool {
    record_path(dir, run_id).is_file()
}

/// Every record of a result directory, sorted by run id. Temporary files are ignored.
pub fn load_dir(dir: &Path) -> Result<Vec<RunRecord>> {
    let runs = runs_dir(dir);
    if !runs.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&runs).map_err(|e| Error::io(&runs, e))? {
        let entry = entry.map_err(|e| Error::io(&runs, e))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !name.ends_with(".json") {
            continue;
        }
        out.push(load(&path)?);
    }
    out.sort_by(|a, b| a.run_id.cmp(&b.run_id));
    Ok(out)
}

/// Records of format 1 (pgomea 0.1 and 0.2): the configuration as strings, no options. They load
/// as current records, their options and configuration rebuilt from those strings, so that old
/// result directories can still be summarised, merged and resumed.
mod legacy {
    use serde::Deserialize;

    use pgomea::choice::Choice;
    use pgomea::gomea::LocalSearchMode;
    use pgomea::linkage::coloring::ColoringMethod;
    use pgomea::solve::{Algorithm, Backend, FosOrderKind, RunConfig, RunOptions, Target};

    use super::{RunRecord, TraceRow};

    #[derive(Deserialize)]
    pub struct Config {
        algorithm: String,
        backend: String,
        linkage: String,
        fos_order: String,
        forced_improvement: bool,
        #[serde(default = "off")]
        local_search: String,
        #[serde(default)]
        anneal_sweeps: u32,
        n_base: usize,
        c_ims: u32,
        max_population: Option<usize>,
        threads: Option<usize>,
        time_limit_s: Option<f64>,
        max_evals: Option<f64>,
        target: Option<i64>,
    }

    fn off() -> String {
        "off".into()
    }

    #[derive(Deserialize)]
    pub struct Record {
        study: String,
        run_id: String,
        instance: String,
        instance_source: String,
        instance_set: String,
        #[serde(alias = "vertices")]
        variables: usize,
        #[serde(alias = "edges")]
        subfunctions: usize,
        variant: String,
        seed: u64,
        best_known: Option<i64>,
        is_optimal: bool,
        config: Config,
        best_fitness: i64,
        reached_target: bool,
        stop_reason: String,
        time_s: f64,
        evaluations: f64,
        backend_used: String,
        time_to_target_s: Option<f64>,
        evaluations_to_target: Option<f64>,
        trace: Vec<TraceRow>,
        outcome: serde_json::Value,
        pgomea_version: String,
    }

    impl Record {
        /// The record in today's form.
        pub fn into_record(self) -> serde_json::Result<RunRecord> {
            let r = self;
            let c = &r.config;
            let algorithm = Algorithm::parse(&c.algorithm).unwrap_or(Algorithm::Serial);
            let parallel = algorithm == Algorithm::Parallel;
            let backend = Backend::parse(&c.backend).unwrap_or(Backend::Auto);
            let linkage = c.linkage.parse().unwrap_or(pgomea::linkage::fos::LinkageModel::Flt);
            let fos_order = FosOrderKind::parse(&c.fos_order).unwrap_or(FosOrderKind::Random);
            let local_search = LocalSearchMode::parse(&c.local_search).unwrap_or(LocalSearchMode::Off);
            let options = RunOptions {
                algorithm: Some(algorithm),
                backend: parallel.then_some(backend),
                linkage: Some(linkage),
                coloring: Some(ColoringMethod::WelshPowell),
                fos_order: Some(fos_order),
                forced_improvement: Some(c.forced_improvement),
                local_search: Some(local_search),
                anneal_sweeps: Some(c.anneal_sweeps),
                anneal_share: Some(0.0),
                partition_mixing: Some(false),
                elitist_restarts: Some(false),
                seed: Some(r.seed),
                time_limit: c.time_limit_s,
                max_evaluations: c.max_evals,
                target: c.target.map(Target::Fitness),
                n_base: Some(c.n_base),
                c_ims: Some(c.c_ims),
                max_population: c.max_population,
                threads: if parallel { c.threads } else { None },
                ..RunOptions::default()
            };
            // Through serde, so that a field added to the configuration since takes its default
            // for stored results as every result file does.
            let config: RunConfig = serde_json::from_value(serde_json::json!({
                "algorithm": algorithm,
                "backend": backend,
                "linkage": linkage.to_string(),
                "coloring": ColoringMethod::WelshPowell.to_string(),
                "fos_order": fos_order,
                "forced_improvement": c.forced_improvement,
                "local_search": local_search,
                "anneal_sweeps": c.anneal_sweeps,
                "anneal_share": 0.0,
                "seed": r.seed,
                "time_limit": c.time_limit_s,
                "max_evaluations": c.max_evals,
                "target": c.target,
                "best_known": r.best_known,
                "n_base": c.n_base,
                "c_ims": c.c_ims,
                // Not recorded when it was the machine's default.
                "max_population": c.max_population.unwrap_or(0),
                "threads": c.threads,
                "cuda": pgomea::backend::cuda::CudaTuning::default(),
            }))?;
            Ok(RunRecord {
                format: 1,
                study: r.study,
                run_id: r.run_id,
                instance: r.instance,
                instance_source: r.instance_source,
                instance_set: r.instance_set,
                variables: r.variables,
                subfunctions: r.subfunctions,
                variant: r.variant,
                seed: r.seed,
                best_known: r.best_known,
                is_optimal: r.is_optimal,
                options,
                config,
                best_fitness: r.best_fitness,
                reached_target: r.reached_target,
                stop_reason: r.stop_reason,
                time_s: r.time_s,
                evaluations: r.evaluations,
                backend_used: r.backend_used,
                time_to_target_s: r.time_to_target_s,
                evaluations_to_target: r.evaluations_to_target,
                trace: r.trace,
                outcome: r.outcome,
                pgomea_version: r.pgomea_version,
            })
        }
    }
}
