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

use super::store::{self, RunConfig, RunRecord};
use super::studies::{Budget, Common, RunSpec};
use pgomea::choice::Choice;
use pgomea::error::{Error, Result};

/// The version of the manifest layout.
pub const FORMAT: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub format: u32,
    pub study: String,
    pub time_limit_s: Option<f64>,
    pub serial_time_limit_s: Option<f64>,
    /// Only with a serial time limit (the size from which it applies).
    pub large_vertices: Option<usize>,
    pub max_evals: Option<f64>,
    /// As given (None: what fits in memory on the machine that runs).
    pub max_population: Option<usize>,
    pub c_ims: u32,
    /// Only for time-limited runs: `auto`, `cpu` or `cuda`.
    pub backend: Option<String>,
    /// Only for time-limited runs: the thread count given (None: all cores, or not counted).
    pub threads: Option<usize>,
}

impl Manifest {
    pub fn new(study: &str, budget: &Budget, common: &Common) -> Manifest {
        let timed = budget.time_limit.is_some() || budget.serial_time_limit.is_some();
        Manifest {
            format: FORMAT,
            study: study.to_string(),
            time_limit_s: budget.time_limit,
            serial_time_limit_s: budget.serial_time_limit,
            large_vertices: budget.serial_time_limit.map(|_| budget.large_vertices),
            max_evals: budget.max_evals,
            max_population: common.max_population,
            c_ims: common.c_ims,
            backend: timed.then(|| common.backend.name().to_string()),
            threads: if timed { common.threads } else { None },
        }
    }

    /// Each difference as `--option THEIRS (this command: OURS)`.
    pub fn differences(&self, ours: &Manifest) -> Vec<String> {
        let mut out = Vec::new();
        let mut cmp = |option: &str, theirs: String, mine: String| {
            if theirs != mine {
                out.push(format!("{option} {theirs} (this command: {mine})"));
            }
        };
        let secs = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_else(|| "none".into());
        let count = |v: Option<usize>, none: &str| v.map(|x| x.to_string()).unwrap_or_else(|| none.into());
        cmp("--time-limit", secs(self.time_limit_s), secs(ours.time_limit_s));
        cmp("--serial-time-limit", secs(self.serial_time_limit_s), secs(ours.serial_time_limit_s));
        cmp("--large-vertices", count(self.large_vertices, "-"), count(ours.large_vertices, "-"));
        cmp("--max-evals", secs(self.max_evals), secs(ours.max_evals));
        cmp("--max-population", count(self.max_population, "default"), count(ours.max_population, "default"));
        cmp("c_ims", self.c_ims.to_string(), ours.c_ims.to_string());
        let or = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        cmp("--backend", or(&self.backend), or(&ours.backend));
        cmp("--threads", count(self.threads, "all"), count(ours.threads, "all"));
        out
    }
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

/// What a stored run and the planned run of the same id disagree on (the fields of
/// [`Manifest`], and the run's own: algorithm, linkage, order, FI, n_base, target, instance).
pub fn record_differences(record: &RunRecord, spec: &RunSpec, expected: &RunConfig, explicit_cap: bool) -> Vec<String> {
    let r = &record.config;
    let timed = expected.time_limit_s.is_some();
    let mut out = Vec::new();
    let mut cmp = |what: &str, theirs: String, mine: String| {
        if theirs != mine {
            out.push(format!("{what} {theirs} (this command: {mine})"));
        }
    };
    let f = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_else(|| "none".into());
    cmp("time limit", f(r.time_limit_s), f(expected.time_limit_s));
    cmp("--max-evals", f(r.max_evals), f(expected.max_evals));
    cmp("target", format!("{:?}", r.target), format!("{:?}", expected.target));
    cmp("c_ims", r.c_ims.to_string(), expected.c_ims.to_string());
    cmp("n_base", r.n_base.to_string(), expected.n_base.to_string());
    cmp("algorithm", r.algorithm.clone(), expected.algorithm.clone());
    cmp("linkage", r.linkage.clone(), expected.linkage.clone());
    cmp("FOS order", r.fos_order.clone(), expected.fos_order.clone());
    cmp("forced improvement", r.forced_improvement.to_string(), expected.forced_improvement.to_string());
    cmp("local search", r.local_search.clone(), expected.local_search.clone());
    cmp("annealing sweeps", r.anneal_sweeps.to_string(), expected.anneal_sweeps.to_string());
    if explicit_cap {
        cmp("--max-population", format!("{:?}", r.max_population), format!("{:?}", expected.max_population));
    }
    if timed {
        cmp("--backend", r.backend.clone(), expected.backend.clone());
        cmp("--threads", format!("{:?}", r.threads), format!("{:?}", expected.threads));
    }
    cmp("instance", record.instance_source.clone(), spec.instance.source_text());
    out
}
