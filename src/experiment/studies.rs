//! The studies of section 6 of the paper as plans: which instances, which
//! algorithm variants, which seeds, which limits. A plan is a deterministic list of runs, so that
//! `--list`, `--shard i/n` and `--only RUN_ID` of the same command agree on every run.

use std::path::{Path, PathBuf};

use serde::Serialize;

use pgomea::error::{Error, Result};
use pgomea::gomea::LocalSearchMode;
use pgomea::linkage::coloring::ColoringMethod;
use pgomea::linkage::fos::LinkageModel;
use pgomea::problem::data::{self, KnownInstance};
use pgomea::solve::{Algorithm, Backend, FosOrderKind, RunOptions, Target};

/// The annealing sweeps of the hybrid study's local search: `pgomea run`'s annealed local search on
/// the GPU (its default on the study's Max-Cut graphs).
pub const HYBRID_ANNEAL_SWEEPS: u32 = pgomea::solve::config::ANNEALING_SWEEPS;

/// The hybrid study's control variant: the `ls` variant's multi-start scheme and annealing, no GOM.
pub const ANNEAL_ONLY: &str = "anneal-only";
/// The control with partition mixing into the elitist: annealing and mixing, no GOM generation.
pub const ANNEAL_ONLY_MIX: &str = "anneal-only-mix";

/// The studies. Each reproduces one figure of the paper (section 6), but `hybrid`, which compares
/// the paper's parallel GOMEA with the hybrid parts the paper names as future work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Study {
    /// Fig. 4: parallel GOMEA (FLT) with IMS base population 8/16/32/64, fitness over time, g1, g65.
    ImsPopsize,
    /// Fig. 5: time to the optimum against the number of vertices, serial and parallel, Sets A and B.
    Scalability,
    /// Fig. 6: fitness over time, serial and parallel GOMEA, Set C (g1, g65 shown).
    Convergence,
    /// Fig. 7: speed-up of parallel over serial GOMEA for each fitness parallel reached, Set C.
    Speedup,
    /// Fig. 8: serial GOMEA with learned LT, FLT, BFLT 10, BFLT 100, fitness over time, g55, g65.
    LinkageModels,
    /// Fig. 9: serial GOMEA, random vs colour-group FOS order, FI on/off, fitness over time, g1, g65.
    FosOrder,
    /// Beyond the paper (its future work): parallel GOMEA as in the paper, with parallel Forced
    /// Improvement, with annealed colour-grouped local search, and with both, and the control
    /// (the annealed new populations of the multi-start scheme without GOM), fitness over time,
    /// g22, g55.
    Hybrid,
}

impl Study {
    pub const ALL: [Study; 7] = [
        Study::ImsPopsize,
        Study::Scalability,
        Study::Convergence,
        Study::Speedup,
        Study::LinkageModels,
        Study::FosOrder,
        Study::Hybrid,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Study::ImsPopsize => "ims-popsize",
            Study::Scalability => "scalability",
            Study::Convergence => "convergence",
            Study::Speedup => "speedup",
            Study::LinkageModels => "linkage-models",
            Study::FosOrder => "fos-order",
            Study::Hybrid => "hybrid",
        }
    }

    pub fn from_name(s: &str) -> Option<Study> {
        Study::ALL.into_iter().find(|x| x.name() == s)
    }

    /// The time limit of one run when neither --time-limit, --max-evals nor --paper is given:
    /// small enough that the whole study takes minutes.
    pub fn default_time_limit(&self) -> f64 {
        match self {
            Study::Scalability => 10.0,
            _ => 15.0,
        }
    }

    /// The default instances (`SET/NAME`, or `SET/*` for a whole set); `paper` selects the
    /// paper's full list where it differs.
    pub fn default_instances(&self, paper: bool) -> Vec<String> {
        let set_c = ["G1", "G22", "G55", "G60", "G65", "G66", "G72", "G77", "G81"];
        let v = |names: &[&str]| names.iter().map(|n| format!("C/{n}")).collect::<Vec<_>>();
        match self {
            Study::ImsPopsize => v(&["G1", "G65"]),
            // One instance (the first by name) of every size with a best-known value, as in the
            // paper's plot.
            Study::Scalability => vec!["A/@sizes".into(), "B/@sizes".into()],
            Study::Convergence if paper => v(&set_c),
            Study::Convergence => v(&["G1", "G65"]),
            Study::Speedup if paper => v(&set_c),
            Study::Speedup => v(&["G1", "G81"]),
            Study::LinkageModels => v(&["G55", "G65"]),
            Study::FosOrder => v(&["G1", "G65"]),
            Study::Hybrid => v(&["G22", "G55"]),
        }
    }

    /// The sets a bare instance name is looked up in, in order.
    fn lookup_sets(&self) -> &'static [&'static str] {
        match self {
            Study::Scalability => &["A", "B", "Bgrid", "C", "G"],
            _ => &["C", "G", "A", "B", "Bgrid"],
        }
    }

    /// True for studies that measure the time to a target (the optimum), which every instance
    /// then needs.
    pub fn needs_target(&self) -> bool {
        matches!(self, Study::Scalability)
    }

    /// The algorithm variants compared.
    pub fn variants(&self) -> Vec<Variant> {
        let serial = |name: &str, f: fn(&mut RunOptions)| Variant::serial().named(name, f);
        let parallel = |name: &str, f: fn(&mut RunOptions)| Variant::parallel().named(name, f);
        match self {
            Study::ImsPopsize => [8, 16, 32, 64]
                .into_iter()
                .map(|n| {
                    let mut v = Variant::parallel().named(&format!("nbase{n}"), |_| {});
                    v.options.n_base = Some(n);
                    v
                })
                .collect(),
            Study::Scalability | Study::Convergence | Study::Speedup => vec![Variant::serial(), Variant::parallel()],
            Study::LinkageModels => vec![
                serial("lt", |o| o.linkage = Some(LinkageModel::Lt)),
                serial("flt", |o| o.linkage = Some(LinkageModel::Flt)),
                serial("bflt10", |o| o.linkage = Some(LinkageModel::Bflt(10))),
                serial("bflt100", |o| o.linkage = Some(LinkageModel::Bflt(100))),
            ],
            Study::FosOrder => vec![
                serial("random-fi", |o| (o.fos_order, o.forced_improvement) = (Some(FosOrderKind::Random), Some(true))),
                serial("random-nofi", |o| {
                    (o.fos_order, o.forced_improvement) = (Some(FosOrderKind::Random), Some(false))
                }),
                serial("colored-fi", |o| {
                    (o.fos_order, o.forced_improvement) = (Some(FosOrderKind::Colored), Some(true))
                }),
                serial("colored-nofi", |o| {
                    (o.fos_order, o.forced_improvement) = (Some(FosOrderKind::Colored), Some(false))
                }),
            ],
            Study::Hybrid => {
                fn ls(o: &mut RunOptions) {
                    (o.local_search, o.anneal_sweeps) = (Some(LocalSearchMode::Initial), Some(HYBRID_ANNEAL_SWEEPS));
                }
                vec![
                    parallel("paper", |_| {}),
                    parallel("fi", |o| o.forced_improvement = Some(true)),
                    parallel("ls", ls),
                    parallel("fi-ls", |o| {
                        o.forced_improvement = Some(true);
                        ls(o)
                    }),
                    // The control: ls without its GOM generations, so that ls - anneal-only is
                    // what GOM adds to the annealing.
                    parallel(ANNEAL_ONLY, |o| {
                        ls(o);
                        o.anneal_only = Some(true)
                    }),
                    // Partition mixing into the elitist (`run`'s default) with GOM's generations
                    // and without them: what the generations add beyond the mixing.
                    parallel("ls-mix", |o| {
                        ls(o);
                        o.partition_mixing = Some(true)
                    }),
                    parallel(ANNEAL_ONLY_MIX, |o| {
                        ls(o);
                        (o.anneal_only, o.partition_mixing) = (Some(true), Some(true))
                    }),
                ]
            }
        }
    }
}

/// One algorithm setting of a study: a name and the run options it sets (the rest come from the
/// study's command: budgets, backend, threads, population cap).
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub name: String,
    pub options: RunOptions,
}

impl Variant {
    /// Serial GOMEA as the paper runs it: FLT, random FOS order, Forced Improvement, n_base 16,
    /// no local search, no partition mixing.
    pub fn serial() -> Variant {
        Variant {
            name: "serial".into(),
            options: RunOptions {
                algorithm: Some(Algorithm::Serial),
                linkage: Some(LinkageModel::Flt),
                coloring: Some(ColoringMethod::WelshPowell),
                fos_order: Some(FosOrderKind::Random),
                forced_improvement: Some(true),
                local_search: Some(LocalSearchMode::Off),
                anneal_sweeps: Some(0),
                partition_mixing: Some(false),
                n_base: Some(16),
                ..RunOptions::default()
            },
        }
    }

    /// Parallel GOMEA as the paper runs it: FLT, colour-group order, no Forced Improvement, n_base
    /// 16, no local search, no partition mixing.
    pub fn parallel() -> Variant {
        let mut v = Variant::serial();
        v.name = "parallel".into();
        v.options.algorithm = Some(Algorithm::Parallel);
        v.options.fos_order = Some(FosOrderKind::Colored);
        v.options.forced_improvement = Some(false);
        v
    }

    /// This variant renamed, with `change` made to its options.
    fn named(mut self, name: &str, change: impl FnOnce(&mut RunOptions)) -> Variant {
        self.name = name.into();
        change(&mut self.options);
        self
    }

    pub fn algorithm(&self) -> Algorithm {
        self.options.algorithm.unwrap_or(Algorithm::Serial)
    }
}

/// Where an instance comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A row of best_known.csv in the data directory.
    Data { dir: PathBuf, row: KnownInstance },
    /// A file given on the command line.
    File(PathBuf),
}

/// An instance of a plan, with what is known about it.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceRef {
    pub label: String,
    /// A, B, Bgrid, C, G, or `files`.
    pub set: String,
    pub source: Source,
    /// The number of variables (vertices of a graph).
    pub variables: usize,
    pub best_known: Option<i64>,
    pub is_optimal: bool,
}

impl InstanceRef {
    pub fn path(&self) -> PathBuf {
        match &self.source {
            Source::Data { dir, row } => row.path(dir),
            Source::File(p) => p.clone(),
        }
    }
    /// `SET/NAME` for the data directory, else the path.
    pub fn source_text(&self) -> String {
        match &self.source {
            Source::Data { row, .. } => format!("{}/{}", row.set, row.name),
            Source::File(p) => p.display().to_string(),
        }
    }
    /// Reads the instance, of any problem kind (named by its label).
    pub fn load(&self) -> Result<Box<dyn pgomea::problem::GrayBoxProblem>> {
        let path = self.path();
        pgomea::problem::load::read_named(&path, None, &self.label, &crate::signal::stop_check()).map_err(|e| match (&self.source, e) {
            (Source::Data { row, .. }, Error::Io { path, source }) if source.kind() == std::io::ErrorKind::NotFound => Error::usage(format!(
                "instance {}/{}: {} does not exist; the data directory has best_known.csv but not this instance file \
                 (the README says where to get the sets)",
                row.set,
                row.name,
                path.display()
            )),
            (_, e) => e,
        })
    }
}

/// The best-known value of a file from a `.bkv` file beside it (a single number, the convention
/// of the Set A/B sources): not known to be optimal.
fn bkv_beside(path: &Path) -> Option<i64> {
    let text = std::fs::read_to_string(path.with_extension("bkv")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Resolves the instance arguments of a study: file paths, `SET/NAME`, `SET/*`, or bare names
/// looked up in the study's sets of the data directory.
pub fn resolve_instances(
    study: Study,
    items: &[String],
    data_dir: Option<&Path>,
    paper: bool,
) -> Result<Vec<InstanceRef>> {
    let given = !items.is_empty();
    let defaults;
    let items: &[String] = if !given {
        defaults = study.default_instances(paper);
        &defaults
    } else {
        items
    };
    let mut rows_cache: Option<(PathBuf, Vec<KnownInstance>)> = None;
    let mut data = |why: &str| -> Result<(PathBuf, Vec<KnownInstance>)> {
        if let Some(c) = &rows_cache {
            return Ok(c.clone());
        }
        let dir = crate::args::data_dir(data_dir)
            .map_err(|e| Error::usage(format!("{why}: {}", crate::args::message(&e))))?;
        let rows = data::read_best_known(&dir)?;
        rows_cache = Some((dir.clone(), rows.clone()));
        Ok((dir, rows))
    };
    // G-set names are unique; Sets A, B and Bgrid share names (n0000025i00), so their labels, and
    // the run ids built from them, carry the set.
    let from_row = |dir: &Path, row: &KnownInstance| InstanceRef {
        label: if row.set == "C" || row.set == "G" { row.name.clone() } else { format!("{}/{}", row.set, row.name) },
        set: row.set.clone(),
        source: Source::Data { dir: dir.to_path_buf(), row: row.clone() },
        variables: row.vertices,
        best_known: Some(row.best_known),
        is_optimal: row.is_optimal,
    };
    let mut out: Vec<InstanceRef> = Vec::new();
    for item in items {
        let path = Path::new(item);
        if path.is_file() {
            let instance = pgomea::problem::load::read(path, None, &crate::signal::stop_check())?;
            let known = crate::args::data_dir(data_dir).ok().and_then(|dir| {
                data::read_best_known(&dir).ok().and_then(|rows| data::best_known_for_path(&dir, &rows, path))
            });
            // The data directory's value, else the optimum the file states (a generator proved
            // it), else a `.bkv` file beside it (not known to be optimal).
            let (best_known, is_optimal) = match (known, instance.known_optimum()) {
                (Some(k), _) => (Some(k.best_known), k.is_optimal),
                (None, Some(o)) => (Some(o), true),
                (None, None) => (bkv_beside(path), false),
            };
            let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            out.push(InstanceRef {
                label: instance.name().to_string(),
                set: "files".into(),
                source: Source::File(abs),
                variables: instance.variables(),
                best_known,
                is_optimal,
            });
            continue;
        }
        let why = if given {
            format!("instance `{item}` is not a file, so it is looked up in the data directory")
        } else {
            format!(
                "the {} study's default instances ({}) come from the data directory",
                study.name(),
                items.join(", ")
            )
        };
        if let Some((set, name)) = item.split_once('/')
            && data::SETS.iter().any(|s| s.0.eq_ignore_ascii_case(set))
        {
            let (dir, rows) = data(&format!("{why}; pass --instances FILE... to run on your own files"))?;
            if name == "@sizes" || name.contains('*') {
                let mut all: Vec<&KnownInstance> = rows
                    .iter()
                    .filter(|r| r.set.eq_ignore_ascii_case(set) && (name == "@sizes" || glob(name, &r.name)))
                    .collect();
                if name == "@sizes" {
                    all.sort_by(|a, b| (a.vertices, &a.name).cmp(&(b.vertices, &b.name)));
                    all.dedup_by_key(|r| r.vertices);
                }
                if all.is_empty() {
                    return Err(Error::usage(format!(
                        "instance `{item}`: no instance of set {set} in best_known.csv matches"
                    )));
                }
                out.extend(all.into_iter().map(|r| from_row(&dir, r)));
            } else {
                out.push(from_row(&dir, data::find(&rows, set, name)?));
            }
            continue;
        }
        if item.contains('/') || item.ends_with(".txt") {
            return Err(Error::usage(format!("instance `{item}`: no such file")));
        }
        let (dir, rows) = data(&format!("{why}; pass a file path to run on your own instance"))?;
        let row = study
            .lookup_sets()
            .iter()
            .find_map(|set| rows.iter().find(|r| r.set == *set && r.name.eq_ignore_ascii_case(item)))
            .ok_or_else(|| {
                Error::usage(format!(
                    "instance `{item}`: no such file, and no instance of that name in {} (best_known.csv); \
                     write SET/NAME (e.g. C/G1, B/n0000400i00) or a path",
                    dir.display()
                ))
            })?;
        out.push(from_row(&dir, row));
    }
    // Labels name the runs: they must differ.
    for (i, a) in out.iter().enumerate() {
        if let Some(b) = out[..i].iter().find(|b| slug(&b.label) == slug(&a.label)) {
            return Err(Error::usage(format!(
                "two instances are both named `{}` ({} and {}): run ids are built from the name, so rename one file",
                a.label,
                b.source_text(),
                a.source_text()
            )));
        }
    }
    Ok(out)
}

/// `*` matches any run of characters; ASCII case is ignored.
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.to_ascii_lowercase(), name.to_ascii_lowercase());
    let parts: Vec<&str> = p.split('*').collect();
    if parts.len() == 1 {
        return p == n;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !n.starts_with(first) || !n[first.len()..].ends_with(last) || n.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &n[first.len()..n.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Lower-case letters, digits, `.` and `-`; every other character becomes `-`.
pub fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let c = c.to_ascii_lowercase();
        out.push(if c.is_ascii_alphanumeric() || c == '.' { c } else { '-' });
    }
    out
}

/// The termination settings of a study.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Time limit of every run (None: no time limit, e.g. with only an evaluation budget).
    pub time_limit: Option<f64>,
    /// Time limit of serial runs on instances with at least `large_vertices` vertices.
    pub serial_time_limit: Option<f64>,
    pub large_vertices: usize,
    pub max_evals: Option<f64>,
}

/// Solver settings every run shares.
#[derive(Clone, Debug)]
pub struct Common {
    pub backend: Backend,
    pub threads: Option<usize>,
    pub max_population: Option<usize>,
    pub c_ims: u32,
}

/// One run of a plan.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub index: usize,
    pub run_id: String,
    pub study: Study,
    pub instance: InstanceRef,
    pub variant: Variant,
    pub seed: u64,
    pub time_limit: Option<f64>,
    pub max_evals: Option<f64>,
    pub target: Option<i64>,
}

impl RunSpec {
    /// The run options of this run: its variant's, the study's shared settings, its seed and
    /// budget. What a record stores, and what a resumed study compares.
    pub fn options(&self, common: &Common) -> RunOptions {
        let parallel = self.variant.algorithm() == Algorithm::Parallel;
        RunOptions {
            // Serial GOMEA runs on one CPU core whatever the backend.
            backend: parallel.then_some(common.backend),
            threads: if parallel { common.threads } else { None },
            max_population: common.max_population,
            c_ims: Some(common.c_ims),
            seed: Some(self.seed),
            time_limit: self.time_limit,
            max_evaluations: self.max_evals,
            target: self.target.map(Target::Fitness),
            ..self.variant.options.clone()
        }
    }
}

/// The runs of a study: for each instance, each variant, seeds 1..=runs.
pub fn plan(study: Study, instances: &[InstanceRef], runs: u64, budget: &Budget) -> Result<Vec<RunSpec>> {
    let mut out = Vec::new();
    for inst in instances {
        let target = if study.needs_target() {
            Some(inst.best_known.ok_or_else(|| {
                Error::usage(format!(
                    "the {} study measures the time to the optimum, but instance {} has no best-known value \
                     (a row of best_known.csv in the data directory, or a file {} with the value)",
                    study.name(),
                    inst.source_text(),
                    inst.path().with_extension("bkv").display()
                ))
            })?)
        } else if inst.is_optimal {
            // A proven optimum cannot be improved on: stop there.
            inst.best_known
        } else {
            None
        };
        for variant in study.variants() {
            let time_limit = match (variant.algorithm(), budget.serial_time_limit) {
                (Algorithm::Serial, Some(s)) if inst.variables >= budget.large_vertices => Some(s),
                _ => budget.time_limit,
            };
            for seed in 1..=runs {
                out.push(RunSpec {
                    index: out.len(),
                    run_id: format!("{}-{}-{}-seed{seed}", study.name(), slug(&inst.label), variant.name),
                    study,
                    instance: inst.clone(),
                    variant: variant.clone(),
                    seed,
                    time_limit,
                    max_evals: budget.max_evals,
                    target,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_with_stars_only() {
        assert!(glob("*", "anything"));
        assert!(glob("n0000400*", "n0000400i03"));
        assert!(glob("*i00", "N0000400I00"));
        assert!(glob("n*400*0", "n0000400i00"));
        assert!(!glob("n*400*1", "n0000400i00"));
        assert!(!glob("g1", "g10"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn the_hybrid_study_has_its_control() {
        let variants = Study::Hybrid.variants();
        let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["paper", "fi", "ls", "fi-ls", ANNEAL_ONLY, "ls-mix", ANNEAL_ONLY_MIX]);
        // The control is the ls variant with anneal_only, nothing else; the mixing variants are
        // those two with partition mixing, which every other variant has off (the paper's).
        let (ls, control) = (&variants[2].options, &variants[4].options);
        assert_eq!(control.anneal_only, Some(true));
        assert_eq!(&RunOptions { anneal_only: None, ..control.clone() }, ls);
        assert_eq!(variants[5].options, RunOptions { partition_mixing: Some(true), ..ls.clone() });
        assert_eq!(variants[6].options, RunOptions { partition_mixing: Some(true), ..control.clone() });
        let controls = [ANNEAL_ONLY, ANNEAL_ONLY_MIX];
        assert!(
            variants.iter().filter(|v| !controls.contains(&v.name.as_str())).all(|v| v.options.anneal_only.is_none())
        );
        assert!(variants[..5].iter().all(|v| v.options.partition_mixing == Some(false)));
    }

    #[test]
    fn run_ids_are_slugs() {
        assert_eq!(slug("G1"), "g1");
        assert_eq!(slug("my graph_2.txt"), "my-graph-2.txt");
    }
}
