//! The result files of an experiment directory: one JSON record per finished run
//! (`runs/<run_id>.json`) and its trace (`traces/<run_id>.csv`). Every file is written to a
//! temporary file in the same folder and renamed into place, so a file that exists is complete:
//! an interrupted study leaves its finished runs intact and resumes by skipping them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use pgomea::error::{Error, Result};
use pgomea::gomea::run::TracePoint;

/// The version of the record layout, stored in every record.
pub const FORMAT: u32 = 1;

/// How a run was configured (what the study asked for).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunConfig {
    /// `serial` or `parallel`.
    pub algorithm: String,
    /// The backend asked for (`auto`, `cpu`, `cuda`); the outcome names the one used.
    pub backend: String,
    pub linkage: String,
    /// `random` or `colored`.
    pub fos_order: String,
    pub forced_improvement: bool,
    /// Local search (`off`, `initial`, `offspring`) and its annealing sweeps; records made
    /// before these existed had neither.
    #[serde(default = "local_search_off")]
    pub local_search: String,
    #[serde(default)]
    pub anneal_sweeps: u32,
    pub n_base: usize,
    pub c_ims: u32,
    pub max_population: Option<usize>,
    pub threads: Option<usize>,
    pub time_limit_s: Option<f64>,
    pub max_evals: Option<f64>,
    pub target: Option<i64>,
}

fn local_search_off() -> String {
    "off".into()
}

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
