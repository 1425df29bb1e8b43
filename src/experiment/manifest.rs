//! The identity of a study's runs in a result directory: `experiment-<study>.json` holds the
//! options that change what a run finds, written when the study first uses the directory. A later
//! invocation (a resume, a shard, `merge`) with other options is refused with a message naming
//! each difference, so that runs made under different budgets are never mixed in one summary.
//!
//! Which options count: the budgets (time limits, evaluations), the population cap and c_IMS
//! always; the backend and the thread count only when the runs have a time limit (under an
//! evaluation budget alone every backend and thread count computes the same runs bit for bit,
//! so shards may use different machines). Records already in the directory are checked the same
//! way, run by run, which also covers directories written before manifests existed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::store::{self, RunRecord};
use super::studies::{Budget, Common, RunSpec};
use pgomea::error::{Error, Result};
use pgomea::solve::Backend;

/// The version of the manifest layout (2: fields named as the run options they hold; format 1's
/// names are read too).
pub const FORMAT: u32 = 2;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub format: u32,
    pub study: String,
    #[serde(alias = "time_limit_s")]
    pub time_limit: Option<f64>,
    #[serde(alias = "serial_time_limit_s")]
    pub serial_time_limit: Option<f64>,
    /// Only with a serial time limit (the size from which it applies).
    pub large_vertices: Option<usize>,
    #[serde(alias = "max_evals")]
    pub max_evaluations: Option<f64>,
    /// As given (None: what fits in memory on the machine that runs).
    pub max_population: Option<usize>,
    pub c_ims: u32,
    /// Only for time-limited runs.
    pub backend: Option<Backend>,
    /// Only for time-limited runs: the thread count given (None: all cores, or not counted).
    pub threads: Option<usize>,
}

impl Manifest {
    pub fn new(study: &str, budget: &Budget, common: &Common) -> Manifest {
        let timed = budget.time_limit.is_some() || budget.serial_time_limit.is_some();
        Manifest {
            format: FORMAT,
            study: study.to_string(),
            time_limit: budget.time_limit,
            serial_time_limit: budget.serial_time_limit,
            large_vertices: budget.serial_time_limit.map(|_| budget.large_vertices),
            max_evaluations: budget.max_evals,
            max_population: common.max_population,
            c_ims: common.c_ims,
            backend: timed.then_some(common.backend),
            threads: if timed { common.threads } else { None },
        }
    }

    /// Each difference as `--option THEIRS (this command: OURS)`.
    pub fn differences(&self, ours: &Manifest) -> Vec<String> {
        differences(self, ours, &["format"])
    }
}

/// The top-level fields in which two serialised values differ (except those in `skip`), each as
/// `--option THEIRS (this command: OURS)`, the field named by its command-line flag and a value
/// by its JSON (`none` for null): one comparison for every kind of stored settings.
pub fn differences<T: Serialize>(theirs: &T, ours: &T, skip: &[&str]) -> Vec<String> {
    let as_map = |v: &T| match serde_json::to_value(v) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    let (theirs, ours) = (as_map(theirs), as_map(ours));
    let show = |v: Option<&serde_json::Value>| match v {
        None | Some(serde_json::Value::Null) => "none".to_string(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(x)) => pgomea::solve::config::show_number(x),
            _ => n.to_string(),
        },
        Some(v) => v.to_string(),
    };
    let mut keys: Vec<&String> = theirs.keys().chain(ours.keys()).filter(|k| !skip.contains(&k.as_str())).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| theirs.get(*k) != ours.get(*k))
        .map(|k| {
            format!("{} {} (this command: {})", crate::args::option_spelling(k), show(theirs.get(k)), show(ours.get(k)))
        })
        .collect()
}

pub fn path(dir: &Path, study: &str) -> PathBuf {
    dir.join(format!("experiment-{study}.json"))
}

/// Reads the manifest of `study` in `dir`, if there is one.
pub fn read(dir: &Path, study: &str) -> Result<Option<Manifest>> {
    let p = path(dir, study);
    if !p.exists() {
        return Ok(None);
    }
    let bytes = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        Error::usage(format!(
            "{}: not a pgomea experiment manifest ({e}); delete it only if every run in {} was made with \
             this command's options, else choose another --out",
            p.display(),
            dir.display()
        ))
    })
}

/// Refuses `dir` when the study's manifest there differs from `ours`; writes it when absent.
pub fn check_or_write(dir: &Path, ours: &Manifest) -> Result<()> {
    match read(dir, &ours.study)? {
        Some(theirs) => {
            let diff = theirs.differences(ours);
            if diff.is_empty() {
                return Ok(());
            }
            Err(Error::usage(format!(
                "{} holds runs of the {} study made with other options: {}. Rerun with the same options to \
                 resume, or choose another --out",
                dir.display(),
                ours.study,
                diff.join("; ")
            )))
        }
        None => {
            let json = serde_json::to_vec_pretty(ours).map_err(|e| Error::usage(format!("JSON: {e}")))?;
            store::write_atomic(&path(dir, &ours.study), &json)
        }
    }
}

/// What a stored run and the planned run of the same id disagree on: every run option, except
/// the backend and the thread count of runs without a time limit (under an evaluation budget every
/// backend and thread count computes the same runs bit for bit, so shards may use other
/// machines), and the instance.
pub fn record_differences(record: &RunRecord, spec: &RunSpec, common: &Common) -> Vec<String> {
    let expected = spec.options(common);
    let skip: &[&str] = if expected.time_limit.is_some() { &[] } else { &["backend", "threads"] };
    let mut out = differences(&record.options, &expected, skip);
    if record.instance_source != spec.instance.source_text() {
        out.push(format!("instance {} (this command: {})", record.instance_source, spec.instance.source_text()));
    }
    out
}
