//! The instance options every command shares (`--instance`, or `--set`/`--name` from the data
//! directory), and the instance they load.

use std::path::PathBuf;

use clap::Args;
use clap::builder::PossibleValue;

use pgomea::choice::Choice;
use pgomea::error::Result;
use pgomea::linkage::coloring::ColoringMethod;
use pgomea::linkage::fos::LinkageModel;
use pgomea::problem::GrayBoxProblem;
use pgomea::problem::data;
use pgomea::problem::generate;
use pgomea::problem::load::{self, ProblemFormat};
use pgomea::problem::maxcut::MaxCut;
use pgomea::solve::Backend;

#[derive(Args, Debug, Clone)]
pub struct InstanceArgs {
    /// An instance file: a graph in the G-set format (`n m`, then `i j w` lines, 1-based) for
    /// Max-Cut, table subfunctions in the .nk format (`p nk N M`, then `f K V.. T..` lines) or the
    /// MK-landscape format (`p NK N K`, `m V..` lines each followed by its table), MAX-SAT in
    /// DIMACS cnf or wcnf, a QUBO (qbsolv's .qubo) or an Ising model (.ising). The format comes
    /// from the extension (.nk, .mk, .cnf, .wcnf, .qubo, .ising; .txt, .gset, .rud, .mc), else the
    /// content.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["set", "name"])]
    pub instance: Option<PathBuf>,
    /// Read --instance in this format, whatever its extension.
    #[arg(long, value_parser = choice::<ProblemFormat>(), value_name = "FORMAT", requires = "instance", conflicts_with_all = ["set", "name"])]
    pub problem: Option<ProblemFormat>,
    /// An instance set of the data directory: A, B, Bgrid, C or G (with --name).
    #[arg(long, value_name = "S", requires = "name")]
    pub set: Option<String>,
    /// An instance name in that set, e.g. G1 or n0000400i00.
    #[arg(long, value_name = "N", requires = "set")]
    pub name: Option<String>,
    /// The data directory with the instance sets and best_known.csv.
    #[arg(long, value_name = "DIR")]
    pub instances_dir: Option<PathBuf>,
}

/// An instance with its best-known value when the data directory (or the instance itself)
/// knows it.
pub struct LoadedInstance {
    pub problem: Box<dyn GrayBoxProblem>,
    pub best_known: Option<i64>,
    pub is_optimal: bool,
}

/// The data directory: `--instances-dir` if given, else `$PGOMEA_INSTANCES`, else the library's
/// default places ([`data::data_dir`]).
pub fn data_dir(explicit: Option<&std::path::Path>) -> Result<std::path::PathBuf> {
    data::data_dir(explicit, std::env::var_os(data::INSTANCES_VARIABLE).as_deref())
}

/// As [`data_dir`], but `None` where no directory is named (neither `--instances-dir` nor
/// `$PGOMEA_INSTANCES`) and none is found in the default places; a named one that is not there
/// is still an error.
pub fn data_dir_if_any(explicit: Option<&std::path::Path>) -> Result<Option<std::path::PathBuf>> {
    let variable = std::env::var_os(data::INSTANCES_VARIABLE);
    let named = explicit.is_some() || variable.is_some();
    match data::data_dir(explicit, variable.as_deref()) {
        Ok(dir) => Ok(Some(dir)),
        Err(e) if named => Err(e),
        Err(_) => Ok(None),
    }
}

impl InstanceArgs {
    /// Options naming no instance (`run` then solves the embedded default).
    pub fn none() -> Self {
        InstanceArgs { instance: None, problem: None, set: None, name: None, instances_dir: None }
    }

    pub fn load(&self) -> Result<LoadedInstance> {
        if let (Some(set), Some(name)) = (&self.set, &self.name) {
            let dir = data_dir(self.instances_dir.as_deref())?;
            let rows = data::read_best_known(&dir)?;
            let row = data::find(&rows, set, name)?;
            let problem = load::read(&row.path(&dir), None, &super::signal::stop_check())?;
            return Ok(LoadedInstance { problem, best_known: Some(row.best_known), is_optimal: row.is_optimal });
        }
        if let Some(path) = &self.instance {
            let problem = load::read(path, self.problem, &super::signal::stop_check())?;
            for warning in problem.warnings() {
                eprintln!("warning: {warning}");
            }
            let known = data_dir(self.instances_dir.as_deref()).ok().and_then(|dir| {
                data::read_best_known(&dir).ok().and_then(|rows| data::best_known_for_path(&dir, &rows, path))
            });
            let (best_known, is_optimal) = match (known, problem.known_optimum()) {
                (Some(k), _) => (Some(k.best_known), k.is_optimal),
                (None, Some(o)) => (Some(o), true),
                (None, None) => (None, false),
            };
            return Ok(LoadedInstance { problem, best_known, is_optimal });
        }
        let graph = generate::default_instance();
        let total = graph.total_weight()?;
        Ok(LoadedInstance { problem: Box::new(MaxCut::new(graph)?), best_known: Some(total), is_optimal: true })
    }
}

/// The linkage model and its colouring (`run`, `info`, `bench throughput`).
#[derive(Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// Linkage model: flt (fixed linkage tree from |w|, the paper's default), bflt:K (sets of at
    /// most K), lt (learned from the population each generation; serial only), univariate
    /// [default: flt; univariate for clauses (MAX-SAT) under parallel GOM, which reached the
    /// optimum of random 3-SAT sooner without linkage sets from 50 to 10^6 variables; for
    /// instances of at least 10^5 variables that are not lattices (fewer than one cycle of up to
    /// four subfunctions per subfunction, as sparse random graphs, random 3-SAT, random NK
    /// neighbourhoods, disjoint traps) univariate for clauses under serial GOMEA too and bflt:16
    /// for the other kinds: there the full tree needs hundreds to thousands of colour groups
    /// (1058 for 3-SAT of 10^5 variables) and its set-up outlasts a 10 s run at 10^6 variables
    /// (58 s for 3-SAT) and 120 s at 10^7; lattices and overlapping windows keep flt; `run` says
    /// which it took and why].
    #[arg(long, value_name = "MODEL")]
    pub linkage: Option<LinkageModel>,
    /// Colouring of the linkage sets into groups of independent sets (parallel GOM and
    /// --fos-order colored): welsh-powell and dsatur order the sets by their conflicts, incidence
    /// by size and counts no conflicts (faster at scale) [default: welsh-powell up to 50,000
    /// variables, incidence beyond].
    #[arg(long, value_name = "METHOD")]
    pub coloring: Option<ColoringMethod>,
}

/// Where parallel GOM runs (`run`, `bench`, `experiment`).
#[derive(Args, Debug, Clone, Default)]
pub struct BackendArgs {
    /// Where parallel GOM runs: auto picks CUDA when a driver and a device exist, else the CPU;
    /// serial GOMEA always runs on one CPU core [default: auto].
    #[arg(long, value_parser = choice::<Backend>(), value_name = "BACKEND")]
    pub backend: Option<Backend>,
    /// Threads of the CPU backend [default: all cores].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub threads: Option<usize>,
}

/// The command-line parser of a library [`Choice`] (an algorithm, a backend, a format): its
/// names, each with its help line in `--help`, parsed into the choice.
pub fn choice<C: Choice + Clone + Send + Sync>() -> impl clap::builder::TypedValueParser<Value = C> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(C::ALL.iter().map(|c| PossibleValue::new(c.name()).help(c.help())))
        .try_map(|name| C::parse(&name).map_err(|e| e.to_string()))
}

/// The CUDA backend's tuning knobs from the environment (`PGOMEA_CUDA_GENERATION`,
/// `PGOMEA_CUDA_GROUP_PASSES`, `PGOMEA_GENERATION_BLOCK`, `PGOMEA_GENERATION_BLOCKS_PER_SM`,
/// `PGOMEA_BLOCKS_PER_SM`): for benchmarks; a bad value is an error naming its variable.
pub fn cuda_tuning() -> Result<Option<pgomea::backend::cuda::CudaTuning>> {
    pgomea::backend::cuda::CudaTuning::from_variables(|name| std::env::var(name).ok()).map(Some)
}
