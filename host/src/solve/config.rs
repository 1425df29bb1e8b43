//! One run's configuration, resolved in one place.
//!
//! A face of the library (the CLI, the Python package, the dimod sampler, an experiment) says
//! what it wants in a [`RunOptions`], every field optional; [`RunOptions::resolve`] checks it and
//! fills in the defaults, giving a complete, serialisable [`RunConfig`] that `solve` runs and
//! every result carries. Defaults and their reasons live here and nowhere else.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::backend::cuda::CudaTuning;
use crate::error::{Error, Result};
use crate::gomea::LocalSearchMode;
use crate::gomea::ims::ImsConfig;
use crate::gomea::run::Limits;
use crate::linkage::coloring::ColoringMethod;
use crate::linkage::fos::LinkageModel;
use crate::problem::GrayBoxProblem;

pub use super::checks::{MAX_ANNEAL_GROWTH, MAX_THREADS, positive, seconds, show_number, threads};
use super::checks::{check_anneal_growth, check_anneal_only, check_elitist_restarts};
pub use super::defaults::*;
pub use super::options::{Algorithm, Backend, BestKnownTag, FosOrderKind, RunOptions, Target};

/// A complete run configuration: what `solve` runs, and what every result records. Build it with
/// [`RunOptions::resolve`]; its fields are checked there.
///
/// ```
/// use pgomea::solve::{Algorithm, Backend, RunConfig, RunOptions};
/// let problem = pgomea::problem::maxcut::MaxCut::new(pgomea::problem::generate::default_instance())?;
/// let (backend, threads) = (Some(Backend::Cpu), Some(2));
/// let options = RunOptions { seed: Some(7), max_evaluations: Some(1e4), backend, threads, ..RunOptions::default() };
/// let config = options.resolve(&problem, None)?;
/// // Every default filled in: on 2 CPU threads, serial GOMEA with Forced Improvement (on a GPU or
/// // on 8 threads, parallel GOMEA), no time limit beside the budget.
/// assert_eq!((config.algorithm, config.forced_improvement, config.seed), (Algorithm::Serial, true, 7));
/// assert_eq!((config.time_limit, config.limits().evaluations), (None, Some(1e4)));
/// // What a result file records, and reads back as the same configuration.
/// let again: RunConfig = serde_json::from_str(&serde_json::to_string(&config).unwrap()).unwrap();
/// assert_eq!(again, config);
/// # Ok::<(), pgomea::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The backend asked for (`auto` is decided when the run opens its device; the outcome says
    /// which it got).
    pub backend: Backend,
    /// The linkage model.
    #[serde(with = "super::values::text")]
    pub linkage: LinkageModel,
    /// Why the run took another linkage model than the paper's fixed linkage tree, where it chose
    /// the model itself (see [`default_linkage`]); `None` where the model was asked for, or is
    /// the fixed linkage tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linkage_chosen: Option<String>,
    /// The colouring of the linkage sets (parallel GOM, or serial GOMEA in colour-group order).
    #[serde(with = "super::values::text")]
    pub coloring: ColoringMethod,
    /// Serial GOMEA's order of the linkage sets.
    pub fos_order: FosOrderKind,
    /// Forced Improvement: serial GOMEA's, or parallel FI for parallel GOMEA.
    pub forced_improvement: bool,
    /// Colour-grouped local search (both algorithms); off in the paper.
    pub local_search: LocalSearchMode,
    /// Annealing sweeps of every local search before its greedy descent (0: greedy alone): those
    /// asked for, else [`default_anneal_sweeps`]; `None` only in a configuration built without
    /// [`RunOptions::resolve`], until the run decides.
    pub anneal_sweeps: Option<u32>,
    /// Population `i` of the multi-start scheme anneals with `anneal_sweeps x anneal_growth^i`
    /// sweeps ([`RunConfig::anneal_sweeps_of`]): 1 keeps every population's annealing the same;
    /// 2 doubles it with every population, as a multi-start annealer doubles the sweeps of its
    /// restarts, so that a long run gets long anneals and a short one its short first ones.
    /// `None` until the run knows its backend: then [`default_anneal_growth`] (the outcome's
    /// configuration has the number; one stored before the option reads as 1).
    #[serde(default = "one")]
    pub anneal_growth: Option<u32>,
    /// Why the run anneals as it does, where it chose the annealing sweeps itself (see
    /// [`default_anneal_sweeps`]); `None` where they were asked for, or before the run decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annealing_chosen: Option<String>,
    /// The control of the hybrid (no GOM): every population of the multi-start scheme is
    /// initialised and annealed (its local search), its best offered, and then terminated,
    /// before any generation (GOM, Forced Improvement); the scheme goes on with the next larger
    /// population. What a multi-start annealer alone finds, to set against the default. Needs the
    /// local search of every new population with annealing sweeps; ends when the population cap
    /// stops the scheme's growth.
    #[serde(default)]
    pub anneal_only: bool,
    /// Under a time limit, the largest share of the time left that the annealing of a new
    /// population may take: where its sweeps (`anneal_sweeps_of`) would take longer at the pace
    /// of the population annealed before (the first: at its own pace as it runs), it
    /// gets as many as fit, so that its whole schedule,
    /// hot to cold, ends in time and GOM gets the rest (see [`Run::fitted_search`]). 0: every
    /// annealing as long as asked, the clock cutting off the one it reaches, often while still
    /// hot (one stored before the option reads as 0).
    ///
    /// [`Run::fitted_search`]: crate::gomea::run::Run::fitted_search
    #[serde(default)]
    pub anneal_share: f64,
    /// Partition mixing into the elitist ([`crate::gomea::partition`]): every new population,
    /// once its local search is done (below 10^5 variables:
    /// [`crate::gomea::partition::NEW_POPULATIONS_BELOW`]), and a population's best whenever it
    /// improved (on a thread of its own during the next generation), are mixed into the elitist,
    /// which takes their genes on every connected component of the variables where they differ
    /// (connected through shared subfunctions) that improves it, and on flip-symmetric problems
    /// (Max-Cut, Ising) their complements' too. By default ([`default_partition_mixing`]) on for
    /// problems of fewer than 10^5 variables that are not clauses and for larger lattices of
    /// pairwise terms, except in the control (`anneal_only`) and in the paper's configurations
    /// of `pgomea experiment`; false in a result stored before the option.
    #[serde(default)]
    pub partition_mixing: bool,
    /// Why the run mixes or not, where it chose itself ([`default_partition_mixing`]); `None`
    /// where it was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_mixing_chosen: Option<String>,
    /// Restarts from the elitist: every second population of the multi-start scheme, from the
    /// second on, begins as copies of the elitist and anneals from halfway down its schedule
    /// (`gomea::population::PopulationStart::Elitist`), an iterated local search around the best
    /// solution; the others begin at random as always. Needs the local search of new populations
    /// and its annealing (turned off where the run chooses 0 sweeps, which `annealing_chosen`
    /// then says). Off by default, since it lost about as often as it gained
    /// (`docs/decisions/0017-elitist-restarts-off.md`); false in a result stored before the option.
    #[serde(default)]
    pub elitist_restarts: bool,
    /// The seed of every random choice.
    pub seed: u64,
    /// Seconds from the run's start.
    pub time_limit: Option<f64>,
    /// Why the run has its time limit, where it chose it ([`DEFAULT_CAP`]); `None` where it was
    /// asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_chosen: Option<String>,
    /// The stop rule of a run given no limit at all: it stops when it has its answer, at once
    /// where it can enumerate every solution ([`PROVEN_OPTIMUM_MAX_VARIABLES`]), else once its
    /// best stalls ([`STALL_LEAST_S`], [`STALL_SHARE`]), at the latest at the default cap.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stop_when_answered: bool,
    /// Full-evaluation equivalents after which the run stops.
    pub max_evaluations: Option<f64>,
    /// The fitness at which the run stops (`best-known` resolved to its value).
    pub target: Option<i64>,
    /// The instance's best-known value, when known (reports, and the target `best-known`).
    pub best_known: Option<i64>,
    /// The multi-start scheme's base population size.
    pub n_base: usize,
    /// Generations of a population per generation of the next larger one.
    pub c_ims: u32,
    /// The largest population the multi-start scheme may start (by default what fits in a
    /// quarter of the memory, [`default_population_cap`]).
    pub max_population: usize,
    /// Threads of the CPU backend (None: all cores).
    pub threads: Option<usize>,
    /// MiB of device memory the CUDA backend may use (None: what the device has).
    pub device_memory_limit: Option<u64>,
    /// The CUDA backend's tuning, checked.
    pub cuda: CudaTuning,
    /// Check the incremental fitness of every step against a full evaluation (tests; slow).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
    /// Why the run took each option it was not given, in words, by the option's name (its
    /// [`RunOptions`] field), where no field of its own says it (`linkage_chosen`,
    /// `annealing_chosen`, `partition_mixing_chosen`); [`RunConfig::reason`] reads them all.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, String>,
}

fn one() -> Option<u32> {
    Some(1)
}

impl RunOptions {
    /// Checks the options against each other and against `problem`, and fills in every default:
    /// the configuration `solve` runs. `best_known` is the instance's best-known value, if known
    /// (for `target: best-known` and for reports).
    ///
    /// ```
    /// use pgomea::solve::config::{Algorithm, RunOptions};
    /// let problem = pgomea::problem::maxcut::MaxCut::new(pgomea::problem::generate::default_instance())?;
    /// let config = RunOptions { algorithm: Some(Algorithm::Parallel), ..RunOptions::default() }
    ///     .resolve(&problem, None)?;
    /// assert!(!config.forced_improvement); // parallel GOMEA's default
    /// // No limit given: the run stops when it has its answer, at the latest at the default cap.
    /// assert!(config.stop_when_answered);
    /// assert_eq!(config.time_limit, Some(60.0));
    /// assert_eq!(config.time_limit_chosen.as_deref(), Some("the default cap"));
    ///
    /// // A refused option is an error naming its field.
    /// let refused = RunOptions { threads: Some(0), ..RunOptions::default() }.resolve(&problem, None);
    /// let error = refused.unwrap_err();
    /// assert!(matches!(error, pgomea::Error::Option { name: "threads", .. }));
    /// assert_eq!(error.to_string(), "threads 0: expected 1 to 4096 threads");
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn resolve(&self, problem: &dyn GrayBoxProblem, best_known: Option<i64>) -> Result<RunConfig> {
        let backend = self.backend.unwrap_or(Backend::Auto);
        let (algorithm, algorithm_chosen) = match self.algorithm {
            Some(algorithm) => (algorithm, None),
            None => {
                let (algorithm, why) = default_algorithm(backend, self.threads);
                (algorithm, Some(why))
            }
        };
        let (linkage, linkage_chosen) = match self.linkage {
            Some(model) => (model, None),
            None => default_linkage(problem, algorithm),
        };
        let fos_order = self.fos_order.unwrap_or(FosOrderKind::Random);
        if algorithm == Algorithm::Serial && backend == Backend::Cuda {
            return Err(Error::option(
                "backend",
                "cuda: serial GOMEA runs on one CPU core; the backend is where parallel GOM runs (choose the \
                 parallel algorithm for the GPU, or leave the backend out)",
            ));
        }
        if linkage == LinkageModel::Lt && (algorithm == Algorithm::Parallel || fos_order == FosOrderKind::Colored) {
            return Err(Error::option(
                "linkage",
                "lt: the learned linkage tree changes every generation and cannot be coloured once: use it with \
                 serial GOMEA and the random FOS order, or pick flt, bflt:K or univariate",
            ));
        }
        if let Some(mib) = self.device_memory_limit {
            if mib == 0 {
                return Err(Error::option("device_memory_limit", "0: expected a number of MiB of at least 1"));
            }
            if algorithm == Algorithm::Serial || backend == Backend::Cpu {
                return Err(Error::option(
                    "device_memory_limit",
                    format!(
                        "{mib}: only the CUDA backend uses device memory, and serial GOMEA or the CPU backend \
                         would ignore it (leave it out, or run parallel GOMEA on a GPU)"
                    ),
                ));
            }
        }
        threads(self.threads)?;
        if let Some(t) = self.time_limit {
            seconds("time_limit", t)?;
        }
        if let Some(e) = self.max_evaluations {
            positive("max_evaluations", e)?;
        }
        let target = match self.target {
            None => None,
            Some(Target::Fitness(v)) => Some(v),
            Some(Target::BestKnown(_)) => Some(best_known.ok_or_else(|| {
                Error::option("target", "best-known: no best-known value for this instance (give a number)")
            })?),
        };
        let stop_when_answered = (self.time_limit, self.max_evaluations, target) == (None, None, None);
        let (time_limit, time_limit_chosen) = match self.time_limit {
            None if stop_when_answered => (Some(DEFAULT_TIME_LIMIT_S), Some(DEFAULT_CAP.to_string())),
            t => (t, None),
        };
        let n_base = self.n_base.unwrap_or(ImsConfig::default().n_base);
        if n_base < 2 {
            return Err(Error::option(
                "n_base",
                format!("{n_base}: at least 2 (GOM needs a donor besides the parent)"),
            ));
        }
        let c_ims = self.c_ims.unwrap_or(ImsConfig::default().c_ims);
        if c_ims < 1 {
            return Err(Error::option("c_ims", "0: at least 1"));
        }
        let max_population = self.max_population.unwrap_or_else(|| default_population_cap(problem.variables(), n_base));
        if max_population < n_base {
            return Err(Error::option(
                "max_population",
                format!("{max_population} is smaller than n_base {n_base}: no population could start"),
            ));
        }
        let cuda = self.cuda.unwrap_or_default();
        cuda.validate()?;
        let anneal_only = self.anneal_only.unwrap_or(false);
        let (fi, ls) = default_hybrid(algorithm);
        // The control runs no generation, so no Forced Improvement either (serial GOMEA's default
        // is off there).
        let forced_improvement = self.forced_improvement.unwrap_or(fi && !anneal_only);
        let local_search = self.local_search.unwrap_or(ls);
        if anneal_only {
            check_anneal_only(local_search, self.anneal_sweeps, forced_improvement)?;
        }
        if let Some(growth) = self.anneal_growth {
            check_anneal_growth(growth, local_search, self.anneal_sweeps)?;
        }
        let anneal_share = self.anneal_share.unwrap_or(DEFAULT_ANNEAL_SHARE);
        if !(0.0..=1.0).contains(&anneal_share) {
            return Err(Error::option(
                "anneal_share",
                format!("{}: a share of the time left, from 0 (no limit) to 1", show_number(anneal_share)),
            ));
        }
        let elitist_restarts = self.elitist_restarts.unwrap_or(false);
        if elitist_restarts {
            check_elitist_restarts(local_search, self.anneal_sweeps)?;
        }
        let (partition_mixing, partition_mixing_chosen) = match self.partition_mixing {
            Some(on) => (on, None),
            None => {
                let (on, why) = default_partition_mixing(problem, anneal_only);
                (on, Some(why))
            }
        };
        let defaults = self.default_reasons(
            problem,
            (algorithm, algorithm_chosen),
            linkage_chosen.is_some(),
            time_limit,
            max_population,
        );
        let mut config = RunConfig {
            algorithm,
            backend,
            linkage,
            linkage_chosen,
            coloring: self.coloring.unwrap_or_else(|| default_coloring(problem.variables())),
            fos_order,
            forced_improvement,
            local_search,
            anneal_sweeps: self.anneal_sweeps,
            anneal_growth: self.anneal_growth,
            annealing_chosen: None,
            anneal_only,
            anneal_share,
            partition_mixing,
            partition_mixing_chosen,
            elitist_restarts,
            seed: self.seed.unwrap_or(1),
            time_limit,
            time_limit_chosen,
            stop_when_answered,
            max_evaluations: self.max_evaluations,
            target,
            best_known,
            n_base,
            c_ims,
            max_population,
            threads: self.threads,
            device_memory_limit: self.device_memory_limit,
            cuda,
            verify: false,
            defaults,
        };
        config.decide_annealing(problem, self.anneal_sweeps, self.anneal_growth);
        Ok(config)
    }
}

impl RunConfig {
    /// Why the run took option `name` (a [`RunOptions`] field) by default, in words: from the
    /// field of its own where it has one, else from [`RunConfig::defaults`]; `None` where the
    /// option was given, or the run has not decided it yet (the annealing waits for the backend).
    pub fn reason(&self, name: &str) -> Option<&str> {
        let own = match name {
            "linkage" => self.linkage_chosen.as_deref(),
            "anneal_sweeps" => self.annealing_chosen.as_deref(),
            "partition_mixing" => self.partition_mixing_chosen.as_deref(),
            _ => None,
        };
        own.or_else(|| self.defaults.get(name).map(String::as_str))
    }

    /// The run's limits.
    pub fn limits(&self) -> Limits {
        Limits {
            time: self.time_limit.and_then(|t| Duration::try_from_secs_f64(t).ok()),
            evaluations: self.max_evaluations,
            target: self.target,
        }
    }

    /// The annealing sweeps of population `index` of the multi-start scheme (0 from 0):
    /// `anneal_sweeps x anneal_growth^index`, at most `u32::MAX` (the clock still ends it).
    ///
    /// ```
    /// use pgomea::solve::RunOptions;
    /// let problem = pgomea::problem::maxcut::MaxCut::new(pgomea::problem::generate::default_instance())?;
    /// let options = RunOptions { anneal_sweeps: Some(3000), anneal_growth: Some(2), ..RunOptions::default() };
    /// let config = options.resolve(&problem, None)?;
    /// assert_eq!([0, 1, 4].map(|i| config.anneal_sweeps_of(i)), [3000, 6000, 48000]);
    /// assert_eq!(config.anneal_sweeps_of(40), u32::MAX);
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn anneal_sweeps_of(&self, index: usize) -> u32 {
        let growth =
            u64::from(self.anneal_growth.unwrap_or(1)).saturating_pow(u32::try_from(index).unwrap_or(u32::MAX));
        u64::from(self.anneal_sweeps.unwrap_or(0)).saturating_mul(growth).min(u64::from(u32::MAX)) as u32
    }

    /// The share of the time left that a new population's annealing may take, `None` for no
    /// limit ([`RunConfig::anneal_share`]).
    pub fn anneal_share(&self) -> Option<f64> {
        (self.anneal_share > 0.0).then_some(self.anneal_share)
    }

    /// The multi-start scheme's settings.
    pub fn ims(&self) -> ImsConfig {
        ImsConfig {
            n_base: self.n_base,
            c_ims: self.c_ims,
            max_population: Some(self.max_population),
            anneal_only: self.anneal_only,
        }
    }

    /// The device memory cap in bytes.
    pub fn device_memory_limit_bytes(&self) -> Option<u64> {
        self.device_memory_limit.map(|m| m.saturating_mul(1 << 20))
    }

    /// Whether the run colours the linkage sets (parallel GOM, or serial GOMEA in colour-group
    /// order).
    pub fn needs_groups(&self) -> bool {
        self.algorithm == Algorithm::Parallel || self.fos_order == FosOrderKind::Colored
    }
}

impl RunConfig {
    /// The annealing sweeps and their growth: those asked for (`sweeps`, `growth`), or the
    /// defaults for `problem` and the threads that anneal ([`annealing_threads`]), with why: the
    /// one place where a run's annealing is decided.
    pub(super) fn decide_annealing(&mut self, problem: &dyn GrayBoxProblem, sweeps: Option<u32>, growth: Option<u32>) {
        let threads = annealing_threads(self.algorithm, self.backend, self.threads);
        let sweeps = match sweeps {
            Some(sweeps) => sweeps,
            // The control is the annealing alone, on every kind, as long as the hybrid's; without a
            // local search the sweeps are not used.
            None if self.anneal_only || self.local_search == LocalSearchMode::Off => {
                let (sweeps, few) = full_sweeps(threads);
                let why = if self.anneal_only {
                    format!("{sweeps}: the control anneals every kind{few}")
                } else {
                    format!("{sweeps}, unused: no local search")
                };
                self.defaults.insert("anneal_sweeps".into(), why);
                sweeps
            }
            None => {
                let (sweeps, why) = default_anneal_sweeps(problem, threads);
                self.annealing_chosen = Some(why);
                sweeps
            }
        };
        self.anneal_sweeps = Some(sweeps);
        // Without annealing a population started from the elitist would stay its copies (0 sweeps
        // asked for is refused; chosen by default, the run says so).
        if sweeps == 0 && self.elitist_restarts {
            self.elitist_restarts = false;
            if let Some(why) = &mut self.annealing_chosen {
                why.push_str(", so no restarts from the elitist (its copies would stay copies)");
            }
        }
        self.anneal_growth = Some(growth.unwrap_or_else(|| {
            let (growth, why) = default_anneal_growth(problem, self.local_search, sweeps, threads);
            self.defaults.insert("anneal_growth".into(), why);
            growth
        }));
    }

    /// The annealing of a configuration built without [`RunOptions::resolve`] (its sweeps or
    /// growth `None`), decided as `resolve` decides it, keeping what it has.
    pub fn settle_annealing(&mut self, problem: &dyn GrayBoxProblem) {
        if self.anneal_sweeps.is_none() || self.anneal_growth.is_none() {
            self.decide_annealing(problem, self.anneal_sweeps, self.anneal_growth);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::problem::generate::default_instance;
    use crate::problem::maxcut::MaxCut;

    fn problem() -> MaxCut {
        MaxCut::new(default_instance()).unwrap()
    }

    #[test]
    fn the_algorithm_by_default_is_parallel_on_a_gpu_and_on_many_cores() {
        let resolve = |backend, threads| {
            let options = RunOptions { backend: Some(backend), threads: Some(threads), ..Default::default() };
            let config = options.resolve(&problem(), None).unwrap();
            (config.algorithm, config.forced_improvement, config.defaults["algorithm"].clone())
        };
        let (algorithm, fi, why) = resolve(Backend::Cuda, 2);
        assert_eq!((algorithm, fi), (Algorithm::Parallel, false), "{why}");
        let (algorithm, _, why) = resolve(Backend::Cpu, PARALLEL_FROM_THREADS);
        assert_eq!(algorithm, Algorithm::Parallel, "{why}");
        let (algorithm, fi, why) = resolve(Backend::Cpu, PARALLEL_FROM_THREADS - 1);
        assert_eq!((algorithm, fi), (Algorithm::Serial, true), "{why}");
        assert!(why.contains("serial GOMEA"), "{why}");
        // Asked for, it is no default and has no reason.
        let told = RunOptions { algorithm: Some(Algorithm::Serial), ..Default::default() };
        assert!(!told.resolve(&problem(), None).unwrap().defaults.contains_key("algorithm"));
    }

    #[test]
    fn large_instances_are_coloured_by_incidence_unless_told() {
        use crate::problem::generate::{WeightRange, torus};
        let small = RunOptions::default().resolve(&problem(), None).unwrap();
        assert_eq!(small.coloring, ColoringMethod::WelshPowell);
        // 224^2 = 50,176 variables: just past the threshold.
        let large = MaxCut::new(torus(224, WeightRange { min: 1, max: 1 }, 1).unwrap()).unwrap();
        assert!(large.variables() > INCIDENCE_COLORING_FROM);
        assert_eq!(RunOptions::default().resolve(&large, None).unwrap().coloring, ColoringMethod::Incidence);
        let told = RunOptions { coloring: Some(ColoringMethod::DSatur), ..Default::default() };
        assert_eq!(told.resolve(&large, None).unwrap().coloring, ColoringMethod::DSatur);
    }

    #[test]
    fn large_sparse_graphs_that_are_not_lattices_get_the_bounded_tree_unless_told() {
        use crate::problem::generate::{WeightRange, random, torus};
        let weights = WeightRange { min: 1, max: 5 };
        let chosen = |p: &dyn GrayBoxProblem, options: RunOptions| {
            let c = options.resolve(p, None).unwrap();
            (c.linkage, c.linkage_chosen)
        };
        // Mean degree 4.5.
        let edges = BOUNDED_TREE_FROM * 9 / 4;
        let random_large = MaxCut::new(random(BOUNDED_TREE_FROM, edges, weights, 1).unwrap()).unwrap();
        let (model, why) = chosen(&random_large, RunOptions::default());
        assert_eq!(model, LinkageModel::Bflt(BOUNDED_TREE_SETS));
        assert!(why.unwrap().contains("not a lattice (0.0"), "a sparse random graph has almost no squares");
        // Asked for, the full tree stays, with nothing chosen.
        let told = RunOptions { linkage: Some(LinkageModel::Flt), ..Default::default() };
        assert_eq!(chosen(&random_large, told), (LinkageModel::Flt, None));
        // A lattice of as many vertices, and a random graph of fewer, keep the full tree.
        let side = (BOUNDED_TREE_FROM as f64).sqrt().ceil() as usize;
        let torus_large = MaxCut::new(torus(side, weights, 1).unwrap()).unwrap();
        assert_eq!(chosen(&torus_large, RunOptions::default()), (LinkageModel::Flt, None));
        let random_small = MaxCut::new(random(BOUNDED_TREE_FROM - 1, edges, weights, 1).unwrap()).unwrap();
        assert_eq!(chosen(&random_small, RunOptions::default()), (LinkageModel::Flt, None));
        assert_eq!(chosen(&problem(), RunOptions::default()), (LinkageModel::Flt, None));
    }

    #[test]
    fn elitist_restarts_are_off_by_default_and_need_the_annealing() {
        let p = problem();
        let resolve = |o: RunOptions| o.resolve(&p, None);
        assert!(!resolve(RunOptions::default()).unwrap().elitist_restarts);
        let on = RunOptions { elitist_restarts: Some(true), ..Default::default() };
        assert!(resolve(on.clone()).unwrap().elitist_restarts);
        for (refused, says) in [
            (RunOptions { local_search: Some(LocalSearchMode::Off), ..on.clone() }, "on, not off"),
            (RunOptions { anneal_sweeps: Some(0), ..on.clone() }, "not 0"),
        ] {
            match resolve(refused) {
                Err(Error::Option { name, message }) => {
                    assert_eq!(name, "elitist_restarts");
                    assert!(message.contains(says), "{message}");
                }
                other => panic!("{other:?}"),
            }
        }
        // Off asked for, with the local search off: nothing to refuse.
        let off = RunOptions {
            elitist_restarts: Some(false),
            local_search: Some(LocalSearchMode::Off),
            ..Default::default()
        };
        assert!(!resolve(off).unwrap().elitist_restarts);
    }

    #[test]
    fn partition_mixing_is_on_by_default_below_the_size_except_for_clauses_and_beyond_for_lattices_of_pairwise_terms() {
        let on = |p: &dyn GrayBoxProblem, o: RunOptions| {
            let c = o.clone().resolve(p, None).unwrap();
            // The run says why where it chose; a choice asked for needs no reason.
            let why = c.partition_mixing_chosen.unwrap_or_default();
            match o.partition_mixing {
                Some(_) => assert!(why.is_empty(), "{why}"),
                None => {
                    assert!(why.starts_with(if c.partition_mixing { "partition" } else { "no partition" }), "{why}")
                }
            }
            c.partition_mixing
        };
        let graph = crate::problem::maxcut::MaxCut::new(crate::problem::generate::default_instance()).unwrap();
        assert!(on(&graph, RunOptions::default()));
        let parallel = RunOptions { algorithm: Some(Algorithm::Parallel), ..Default::default() };
        assert!(on(&graph, parallel.clone()));
        assert!(!on(&graph, RunOptions { partition_mixing: Some(false), ..Default::default() }));
        // The control is annealing alone unless asked otherwise.
        let control = RunOptions { anneal_only: Some(true), ..parallel.clone() };
        assert!(!on(&graph, control.clone()));
        assert!(on(&graph, RunOptions { partition_mixing: Some(true), ..control }));
        // Tables (not flip-symmetric) too; clauses: off, unless asked for.
        let nk = crate::problem::nk::random_neighbourhood(200, 4, 1).unwrap();
        let (sat, _) = crate::problem::maxsat::planted_3sat(200, 800, 1).unwrap();
        assert!(on(&nk, RunOptions::default()) && on(&nk, parallel.clone()));
        assert!(!on(&sat, RunOptions::default()) && !on(&sat, parallel.clone()));
        assert!(on(&sat, RunOptions { partition_mixing: Some(true), ..Default::default() }));
        // From the size on: only for lattices of pairwise terms.
        use crate::problem::generate::{WeightRange, random, torus};
        use crate::problem::maxcut::MaxCut;
        let side = (PARTITION_MIXING_BELOW as f64).sqrt().ceil() as usize + 1;
        let w = WeightRange { min: 1, max: 1 };
        let large = MaxCut::new(torus(side, w, 1).unwrap()).unwrap();
        assert!(large.variables() >= PARTITION_MIXING_BELOW && on(&large, parallel.clone()));
        let why = |p: &dyn GrayBoxProblem| RunOptions::default().resolve(p, None).unwrap().partition_mixing_chosen;
        assert!(why(&large).unwrap().contains("populations' bests: a lattice"), "{:?}", why(&large));
        let small = MaxCut::new(torus(side - 2, w, 1).unwrap()).unwrap();
        assert!(small.variables() < PARTITION_MIXING_BELOW && on(&small, RunOptions::default()));
        let sparse = MaxCut::new(random(PARTITION_MIXING_BELOW, 2 * PARTITION_MIXING_BELOW, w, 1).unwrap()).unwrap();
        assert!(!on(&sparse, parallel.clone()));
        assert!(why(&sparse).unwrap().contains("not a lattice"), "{:?}", why(&sparse));
        let tables = crate::problem::nk::random_neighbourhood(PARTITION_MIXING_BELOW, 3, 1).unwrap();
        assert!(!on(&tables, parallel));
    }

    #[test]
    fn large_random_clauses_get_no_tree_random_tables_the_bounded_one_and_windows_the_full_one() {
        let chosen = |p: &dyn GrayBoxProblem| {
            let c = RunOptions::default().resolve(p, None).unwrap();
            (c.linkage, c.linkage_chosen.unwrap_or_default())
        };
        let bounded = LinkageModel::Bflt(BOUNDED_TREE_SETS);
        // 4.26 clauses per variable.
        let clauses = BOUNDED_TREE_FROM * 426 / 100;
        let (sat, _) = crate::problem::maxsat::planted_3sat(BOUNDED_TREE_FROM, clauses, 1).unwrap();
        let (model, why) = chosen(&sat);
        assert_eq!(model, LinkageModel::Univariate);
        assert!(why.contains(&format!("clauses on {BOUNDED_TREE_FROM} variables, not a lattice (0.")), "{why}");
        let nk = crate::problem::nk::random_neighbourhood(BOUNDED_TREE_FROM, 5, 1).unwrap();
        assert_eq!(chosen(&nk).0, bounded);
        let traps = crate::problem::trap::concatenated(5, BOUNDED_TREE_FROM / 5, 1, true).unwrap();
        assert!(chosen(&traps).1.contains(&format!("tables on {BOUNDED_TREE_FROM} variables, not a lattice (0.00")));
        let windows = crate::problem::nk::sliding_window(BOUNDED_TREE_FROM, 5, 1).unwrap();
        assert_eq!(chosen(&windows), (LinkageModel::Flt, String::new()));
        // Below the size, serial GOMEA keeps the full tree on clauses, and parallel GOM does not.
        let (small, _) = crate::problem::maxsat::planted_3sat(BOUNDED_TREE_FROM - 1, clauses, 1).unwrap();
        assert_eq!(chosen(&small).0, LinkageModel::Flt);
        let parallel = RunOptions { algorithm: Some(Algorithm::Parallel), ..Default::default() };
        let c = parallel.resolve(&small, None).unwrap();
        assert_eq!(c.linkage, LinkageModel::Univariate);
        assert!(c.linkage_chosen.unwrap().contains("parallel GOM reached the optimum of random 3-SAT sooner"));
        // Parallel GOM keeps the tree for other kinds below the size.
        let nk_small = crate::problem::nk::random_neighbourhood(BOUNDED_TREE_FROM - 1, 5, 1).unwrap();
        assert_eq!(parallel.resolve(&nk_small, None).unwrap().linkage, LinkageModel::Flt);
    }

    #[test]
    fn defaults_are_those_of_run() {
        let c = RunOptions::default().resolve(&problem(), Some(800)).unwrap();
        assert_eq!(c.algorithm, Algorithm::Serial);
        assert!(c.forced_improvement);
        assert_eq!(c.local_search, LocalSearchMode::Initial);
        assert_eq!(c.time_limit, Some(DEFAULT_TIME_LIMIT_S));
        assert_eq!((c.n_base, c.c_ims, c.seed), (16, 4, 1));
        let p = RunOptions { algorithm: Some(Algorithm::Parallel), max_evaluations: Some(1e4), ..Default::default() }
            .resolve(&problem(), None)
            .unwrap();
        assert!(!p.forced_improvement);
        assert_eq!(p.time_limit, None, "an evaluation budget alone sets no time limit");
        let t = RunOptions { target: Some(Target::BEST_KNOWN), ..Default::default() }.resolve(&problem(), Some(800));
        assert_eq!(t.unwrap().target, Some(800));
    }

    #[test]
    fn refusals_name_the_option() {
        let bad = [
            (RunOptions { time_limit: Some(1e300), ..Default::default() }, "time_limit", "1e300"),
            (RunOptions { time_limit: Some(f64::NAN), ..Default::default() }, "time_limit", "NaN"),
            (RunOptions { max_evaluations: Some(-1.0), ..Default::default() }, "max_evaluations", "-1"),
            (RunOptions { threads: Some(0), ..Default::default() }, "threads", "0"),
            (RunOptions { n_base: Some(1), ..Default::default() }, "n_base", "1"),
            (
                RunOptions { algorithm: Some(Algorithm::Serial), backend: Some(Backend::Cuda), ..Default::default() },
                "backend",
                "serial",
            ),
            (
                RunOptions { algorithm: Some(Algorithm::Serial), device_memory_limit: Some(64), ..Default::default() },
                "device_memory_limit",
                "ignore",
            ),
            (
                RunOptions {
                    algorithm: Some(Algorithm::Parallel),
                    backend: Some(Backend::Cpu),
                    device_memory_limit: Some(64),
                    ..Default::default()
                },
                "device_memory_limit",
                "CUDA",
            ),
            (RunOptions { target: Some(Target::BEST_KNOWN), ..Default::default() }, "target", "best-known"),
            (
                RunOptions {
                    algorithm: Some(Algorithm::Parallel),
                    linkage: Some(LinkageModel::Lt),
                    ..Default::default()
                },
                "linkage",
                "learned",
            ),
            (
                RunOptions { anneal_only: Some(true), local_search: Some(LocalSearchMode::Off), ..Default::default() },
                "anneal_only",
                "`off`",
            ),
            (
                RunOptions {
                    anneal_only: Some(true),
                    local_search: Some(LocalSearchMode::Offspring),
                    ..Default::default()
                },
                "anneal_only",
                "`offspring`",
            ),
            (
                RunOptions { anneal_only: Some(true), anneal_sweeps: Some(0), ..Default::default() },
                "anneal_only",
                "not 0",
            ),
            (
                RunOptions {
                    algorithm: Some(Algorithm::Parallel),
                    anneal_only: Some(true),
                    forced_improvement: Some(true),
                    ..Default::default()
                },
                "anneal_only",
                "Forced Improvement",
            ),
            (RunOptions { anneal_share: Some(-0.5), ..Default::default() }, "anneal_share", "from 0"),
            (RunOptions { anneal_share: Some(1.5), ..Default::default() }, "anneal_share", "1.5"),
            (RunOptions { anneal_share: Some(f64::NAN), ..Default::default() }, "anneal_share", "NaN"),
            (RunOptions { anneal_growth: Some(0), ..Default::default() }, "anneal_growth", "from 1"),
            (RunOptions { anneal_growth: Some(MAX_ANNEAL_GROWTH + 1), ..Default::default() }, "anneal_growth", "1024"),
            (
                RunOptions { anneal_growth: Some(2), local_search: Some(LocalSearchMode::Off), ..Default::default() },
                "anneal_growth",
                "local search off",
            ),
            (
                RunOptions { anneal_growth: Some(2), anneal_sweeps: Some(0), ..Default::default() },
                "anneal_growth",
                "0 annealing",
            ),
        ];
        for (options, name, says) in bad {
            match options.resolve(&problem(), None) {
                Err(Error::Option { name: n, message }) => {
                    assert_eq!(n, name);
                    assert!(message.contains(says), "{name}: `{message}` should say `{says}`");
                    assert!(message.len() < 300, "{name}: a short message, not `{message}`");
                }
                other => panic!("{name}: expected a refusal, got {other:?}"),
            }
        }
    }

    #[test]
    fn anneal_only_is_the_default_hybrid_without_generations() {
        for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
            let plain = RunOptions { algorithm: Some(algorithm), ..Default::default() };
            let control = RunOptions { anneal_only: Some(true), ..plain.clone() };
            let (plain, control) =
                (plain.resolve(&problem(), None).unwrap(), control.resolve(&problem(), None).unwrap());
            assert!(!plain.anneal_only && !plain.ims().anneal_only);
            assert!(control.anneal_only && control.ims().anneal_only, "{algorithm:?}");
            // The same local search and scheme; no Forced Improvement (serial GOMEA's default)
            // and no partition mixing (the default's on Max-Cut).
            assert_eq!(control.local_search, LocalSearchMode::Initial);
            assert!(!control.forced_improvement && !control.partition_mixing && plain.partition_mixing);
            assert_eq!(
                RunConfig {
                    anneal_only: false,
                    forced_improvement: plain.forced_improvement,
                    partition_mixing: true,
                    partition_mixing_chosen: plain.partition_mixing_chosen.clone(),
                    annealing_chosen: plain.annealing_chosen.clone(),
                    defaults: plain.defaults.clone(),
                    ..control.clone()
                },
                plain
            );
            // The effective configuration says so, and one stored without the field is not it.
            let json = serde_json::to_value(&control).unwrap();
            assert_eq!(json["anneal_only"], serde_json::Value::Bool(true));
            let mut old = serde_json::to_value(&plain).unwrap();
            old.as_object_mut().unwrap().remove("anneal_only");
            assert!(!serde_json::from_value::<RunConfig>(old).unwrap().anneal_only);
        }
    }

    #[test]
    fn new_populations_are_annealed_by_default_unless_the_instance_is_clauses_or_deceptive_tables() {
        let graph = problem();
        let nk = crate::problem::nk::sliding_window(300, 5, 1).unwrap();
        let traps = crate::problem::trap::concatenated(5, 60, 1, true).unwrap();
        let sat = crate::problem::maxsat::MaxSat::from_literals("tiny", 3, &[(None, vec![1, -2]), (None, vec![2, 3])])
            .unwrap();
        assert_eq!(default_anneal_sweeps(&graph, None).0, ANNEALING_SWEEPS);
        let (sweeps, why) = default_anneal_sweeps(&nk, None);
        assert_eq!(sweeps, ANNEALING_SWEEPS, "{why}");
        assert!(
            why.starts_with("annealed: ")
                && why.ends_with(&format!(" of {} tables probed deceptive", nk.subfunctions())),
            "{why}"
        );
        assert_eq!(
            default_anneal_sweeps(&traps, Some(2)),
            (0, "no annealing: 60 of 60 tables probed deceptive, single flips lead away from their optima".to_string())
        );
        assert_eq!(default_anneal_sweeps(&sat, Some(1)).0, 0);
        // Fewer sweeps for many variables.
        let sizes = [10_000, 100_000, 200_000, 1_000_000, 10_000_000];
        assert_eq!(sizes.map(sized_sweeps), [3000, 3000, 1500, 300, 100]);
        let torus = crate::problem::maxcut::MaxCut::new(
            crate::problem::generate::torus(400, crate::problem::generate::WeightRange { min: 1, max: 5 }, 1).unwrap(),
        )
        .unwrap();
        assert_eq!(
            default_anneal_sweeps(&torus, Some(2)),
            (1875, "annealed: pairwise terms (Max-Cut, Ising, QUBO); 1875 sweeps for 160000 variables".to_string())
        );
        // A graph of as many vertices that is not a lattice anneals longer.
        assert_eq!(sizes.map(sparse_sweeps), [3000, 3000, 2121, 949, 300]);
        let sparse = crate::problem::maxcut::MaxCut::new(
            crate::problem::generate::random(
                160_000,
                360_000,
                crate::problem::generate::WeightRange { min: 1, max: 5 },
                1,
            )
            .unwrap(),
        )
        .unwrap();
        let (sweeps, why) = default_anneal_sweeps(&sparse, None);
        assert_eq!(sweeps, 2372, "{why}");
        assert!(
            why.ends_with("sweeps for 160000 variables on a graph that is not a lattice (0.00 cycles of up to four edges per edge)"),
            "{why}"
        );
        // 2D glasses with distinct couplings: the descent alone; with +-1 couplings, in 3D or on a
        // random graph of the same degree and weights: annealed.
        use crate::problem::generate::{EdgeWeights, random, torus_nd};
        let glass = |graph| crate::problem::maxcut::MaxCut::new(graph).unwrap();
        let (sweeps, why) = default_anneal_sweeps(&glass(torus_nd(2, 30, EdgeWeights::Gaussian, 1).unwrap()), Some(2));
        assert_eq!(sweeps, 0, "{why}");
        assert!(why.starts_with("no annealing: a 2D spin glass (2.0 squares per edge, "), "{why}");
        let symmetric = crate::problem::generate::WeightRange { min: -1_000_000, max: 1_000_000 };
        for graph in [
            torus_nd(2, 30, EdgeWeights::PlusMinusOne, 1).unwrap(),
            torus_nd(3, 12, EdgeWeights::Gaussian, 1).unwrap(),
            random(900, 1800, symmetric, 1).unwrap(),
        ] {
            let glass = glass(graph);
            let (sweeps, why) = default_anneal_sweeps(&glass, None);
            assert_eq!(sweeps, ANNEALING_SWEEPS, "{why}");
            // Annealed on fewer than 8 CPU threads: longer, and the run says why; from 8, as on a GPU.
            for (threads, sweeps) in [(1, FEW_THREADS_ANNEALING_SWEEPS), (7, 10_000), (8, 3000), (16, 3000)] {
                let (took, why) = default_anneal_sweeps(&glass, Some(threads));
                assert_eq!(took, sweeps, "{threads}: {why}");
                assert_eq!(why.contains("CPU thread"), threads < 8, "{why}");
            }
        }
        let (sweeps, why) = default_anneal_sweeps(&nk, Some(2));
        assert_eq!(sweeps, 10_000, "{why}");
        assert!(why.ends_with("deceptive; 10000 sweeps on 2 CPU threads (3000 on a GPU or from 8 threads)"), "{why}");
    }

    #[test]
    fn the_annealing_grows_by_default_for_pairwise_problems_and_tables_on_the_cpu_up_to_a_hundred_thousand_variables() {
        let graph = problem();
        let traps = crate::problem::trap::concatenated(5, 4, 1, true).unwrap();
        let nk = crate::problem::nk::random_neighbourhood(200, 5, 1).unwrap();
        let sat = crate::problem::maxsat::planted_3sat(50, 200, 1).unwrap().0;
        let initial = LocalSearchMode::Initial;
        // Pairwise terms grow on every backend; tables only where CPU threads anneal them (`None`:
        // a GPU), and not where they are mostly deceptive; clauses never.
        for threads in [None, Some(1), Some(16)] {
            assert_eq!(default_anneal_growth(&graph, initial, 3000, threads).0, 2);
            assert_eq!(default_anneal_growth(&graph, initial, 1000, threads).0, 2);
            let (growth, why) = default_anneal_growth(&nk, initial, 3000, threads);
            assert_eq!(growth, if threads.is_some() { 2 } else { 1 }, "{why}");
            assert_eq!(default_anneal_growth(&traps, initial, 3000, threads).0, 1);
            assert_eq!(default_anneal_growth(&sat, initial, 3000, threads).0, 1);
        }
        // Beyond 10^5 variables every population's annealing is the same.
        let torus = crate::problem::maxcut::MaxCut::new(
            crate::problem::generate::torus(317, crate::problem::generate::WeightRange { min: 1, max: 5 }, 1).unwrap(),
        )
        .unwrap();
        assert_eq!(default_anneal_growth(&torus, initial, 2985, Some(1)).0, 1);
        let large_nk = crate::problem::nk::random_neighbourhood(ANNEAL_IN_FULL_UP_TO + 1, 2, 1).unwrap();
        assert_eq!(default_anneal_growth(&large_nk, initial, 3000, Some(1)).0, 1);
        // Nothing to grow: 1, not a refusal.
        assert_eq!(default_anneal_growth(&graph, LocalSearchMode::Off, 3000, Some(1)).0, 1);
        assert_eq!(default_anneal_growth(&graph, initial, 0, Some(1)).0, 1);
        assert_eq!(default_anneal_growth(&nk, initial, 0, Some(1)).0, 1);
        // Resolved on the CPU an NK landscape grows; traps and clauses are not annealed by default.
        let cpu = RunOptions { backend: Some(Backend::Cpu), ..Default::default() };
        let resolved = cpu.resolve(&nk, None).unwrap();
        assert_eq!(resolved.anneal_growth, Some(2), "{:?}", resolved.reason("anneal_growth"));
        let resolved = cpu.resolve(&traps, None).unwrap();
        assert_eq!((resolved.anneal_sweeps, resolved.anneal_growth), (Some(0), Some(1)));
        // Given, it is kept; left out, `resolve` decides it, the same for every backend.
        let given = RunOptions { anneal_growth: Some(3), ..Default::default() }.resolve(&traps, None).unwrap();
        assert_eq!((given.anneal_growth, given.anneal_sweeps_of(2)), (Some(3), 0));
        // (8 CPU threads anneal as long as a GPU: `full_sweeps`.)
        for backend in [Backend::Cpu, Backend::Cuda] {
            let options = RunOptions {
                algorithm: Some(Algorithm::Parallel),
                backend: Some(backend),
                threads: Some(8),
                ..Default::default()
            };
            let config = options.resolve(&graph, None).unwrap();
            assert_eq!(config.anneal_sweeps, Some(ANNEALING_SWEEPS));
            let threads = (backend == Backend::Cpu).then_some(8);
            assert_eq!(config.anneal_growth, Some(default_anneal_growth(&graph, initial, ANNEALING_SWEEPS, threads).0));
            assert!(config.reason("anneal_growth").is_some() && config.reason("anneal_sweeps").is_some());
            let tables = options.resolve(&nk, None).unwrap();
            assert_eq!(tables.anneal_growth, Some(if backend == Backend::Cpu { 2 } else { 1 }));
            // A configuration built without `resolve` gets the same; what it has is kept.
            let mut unset = RunConfig { anneal_sweeps: None, anneal_growth: None, ..config.clone() };
            unset.settle_annealing(&graph);
            assert_eq!((unset.anneal_sweeps, unset.anneal_growth), (config.anneal_sweeps, config.anneal_growth));
            let mut asked = RunConfig { anneal_sweeps: Some(77), anneal_growth: None, ..config.clone() };
            asked.settle_annealing(&graph);
            assert_eq!((asked.anneal_sweeps, asked.anneal_growth), (Some(77), Some(2)));
        }
        // A configuration stored before the option ran with the same annealing for every population.
        let mut old = serde_json::to_value(RunOptions::default().resolve(&graph, None).unwrap()).unwrap();
        old.as_object_mut().unwrap().remove("anneal_growth");
        assert_eq!(serde_json::from_value::<RunConfig>(old).unwrap().anneal_growth, Some(1));
    }

    #[test]
    fn a_config_survives_json_and_options_refuse_unknown_fields() {
        let options = RunOptions {
            algorithm: Some(Algorithm::Parallel),
            linkage: Some(LinkageModel::Bflt(10)),
            target: Some(Target::Fitness(5)),
            ..Default::default()
        };
        let text = serde_json::to_string(&options).unwrap();
        assert_eq!(serde_json::from_str::<RunOptions>(&text).unwrap(), options);
        let best: RunOptions = serde_json::from_str(r#"{"target": "best-known", "linkage": "bflt:3"}"#).unwrap();
        assert_eq!((best.target, best.linkage), (Some(Target::BEST_KNOWN), Some(LinkageModel::Bflt(3))));
        assert!(serde_json::from_str::<RunOptions>(r#"{"time_limt": 3}"#).is_err());
        let config = options.resolve(&problem(), None).unwrap();
        let again: RunConfig = serde_json::from_value(serde_json::to_value(&config).unwrap()).unwrap();
        assert_eq!(again, config);
    }
}
