//! Where instance files come from: a data directory (the option `instances_dir`, else `PGOMEA_INSTANCES`,
//! else `./instances`, else `../shared/instances`) holding the sets in their folders and
//! `best_known.csv`, which names every instance of a set with its best-known value. The library
//! reads no environment: a face that honours the variable passes its value ([`data_dir`]).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The instance sets and their folders inside the data directory.
pub const SETS: &[(&str, &str, &str)] = &[
    ("A", "setA", "Set A: fully connected graphs, n = 6..200 (Bosman's set0a)"),
    ("B", "setB", "Set B: 2D tori, every vertex of degree 4, n = 9..1600"),
    ("Bgrid", "setB_grid", "Set B-grid: open 2D grids (extra set), n = 9..1600"),
    ("C", "gset", "Set C: the nine G-set graphs of the paper (G1 .. G81)"),
    ("G", "gset", "other G-set graphs"),
];

/// The environment variable that names the data directory where no option does; the faces read
/// it (the command line, the tests) and pass its value to [`data_dir`].
pub const INSTANCES_VARIABLE: &str = "PGOMEA_INSTANCES";

/// Finds the data directory: the first of the explicit one, `variable` (the value of
/// [`INSTANCES_VARIABLE`] as the caller found it), `./instances`, `../shared/instances` that
/// exists.
pub fn data_dir(explicit: Option<&Path>, variable: Option<&OsStr>) -> Result<PathBuf> {
    if let Some(d) = explicit {
        return if d.is_dir() {
            Ok(d.to_path_buf())
        } else {
            Err(Error::option("instances_dir", format!("{}: no such directory", d.display())))
        };
    }
    if let Some(d) = variable {
        let d = PathBuf::from(d);
        return if d.is_dir() {
            Ok(d)
        } else {
            Err(Error::usage(format!("PGOMEA_INSTANCES={}: no such directory", d.display())))
        };
    }
    for d in ["instances", "../shared/instances"] {
        let p = PathBuf::from(d);
        if p.join("best_known.csv").is_file() || p.join("gset").is_dir() {
            return Ok(p);
        }
    }
    Err(Error::option(
        "instances_dir",
        "not given, and no instance data directory found (PGOMEA_INSTANCES, ./instances): name the \
         folder that holds the sets (the README says where to download them), or give an instance file",
    ))
}

/// One row of best_known.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct KnownInstance {
    /// The set's short name (`A`, `B`, `C`, ...).
    pub set: String,
    /// The instance's name (its file stem).
    pub name: String,
    /// The graph's vertices.
    pub vertices: usize,
    /// The graph's edges.
    pub edges: usize,
    /// The best cut known.
    pub best_known: i64,
    /// Whether the best known cut is proven optimal.
    pub is_optimal: bool,
}

impl KnownInstance {
    /// The instance file inside the data directory.
    pub fn path(&self, dir: &Path) -> PathBuf {
        let folder = SETS.iter().find(|s| s.0 == self.set).map(|s| s.1).unwrap_or(&self.set);
        dir.join(folder).join(format!("{}.txt", self.name))
    }
}

/// Reads best_known.csv (columns set,instance,vertices,edges,best_known,is_optimal,source).
pub fn read_best_known(dir: &Path) -> Result<Vec<KnownInstance>> {
    let path = dir.join("best_known.csv");
    if !path.is_file() {
        return Err(Error::option(
            "instances_dir",
            format!(
                "{}: the data directory has no best_known.csv; name the folder that holds setA/, setB/, \
                 gset/ and best_known.csv (or set PGOMEA_INSTANCES to it)",
                dir.display()
            ),
        ));
    }
    let text = crate::problem::read_text(&path)?;
    let file = path.display().to_string();
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let err = |m: String| Error::Parse { file: file.clone(), line: i + 1, message: m };
        let f: Vec<&str> = line.splitn(7, ',').collect();
        if f.len() < 6 {
            return Err(err(format!("expected at least 6 comma-separated fields, found {}", f.len())));
        }
        let num =
            |s: &str, what: &str| s.trim().parse::<i64>().map_err(|_| err(format!("{what} `{s}` is not an integer")));
        rows.push(KnownInstance {
            set: f[0].trim().to_string(),
            name: f[1].trim().to_string(),
            vertices: num(f[2], "vertices")? as usize,
            edges: num(f[3], "edges")? as usize,
            best_known: num(f[4], "best_known")?,
            is_optimal: f[5].trim() == "true",
        });
    }
    Ok(rows)
}

/// Looks up (set, name); names are matched case-insensitively (`g1` finds `G1`).
pub fn find<'a>(rows: &'a [KnownInstance], set: &str, name: &str) -> Result<&'a KnownInstance> {
    let set_ok = |s: &str| s.eq_ignore_ascii_case(set);
    if !rows.iter().any(|r| set_ok(&r.set)) {
        let sets: Vec<&str> = SETS.iter().map(|s| s.0).collect();
        return Err(Error::usage(format!("unknown set `{set}`: the sets are {}", sets.join(", "))));
    }
    rows.iter()
        .find(|r| set_ok(&r.set) && r.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| Error::usage(format!("set {set} has no instance `{name}` in best_known.csv")))
}

/// The best-known value of an instance file, matched by its place in the data directory (folder
/// and file name), if the file lies there.
pub fn best_known_for_path(dir: &Path, rows: &[KnownInstance], path: &Path) -> Option<KnownInstance> {
    let canon = |p: &Path| p.canonicalize().ok();
    let target = canon(path)?;
    rows.iter().find(|r| canon(&r.path(dir)).as_ref() == Some(&target)).cloned()
}
