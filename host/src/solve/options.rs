//! The run options, each defined once: [`RUN_OPTIONS`] is the table (name, value, default,
//! one-line help, long help, help heading) from which every face takes them: the command line's
//! flags and their help, the Python keywords and their docstring, the guide's option table and
//! `run --explain`. [`RunOptions`] holds what a caller gave (a test checks that its fields are
//! the table's names, in order); [`RunOptions::resolve`] checks it and decides every default.
//!
//! Long help names other options as `{name}`; each face spells them its own way
//! ([`RunOption::details_spelled`]).

use serde::de::{self, IntoDeserializer, Visitor};
use serde::{Deserialize, Serialize};

use crate::backend::cuda::CudaTuning;
use crate::choice::Choice;
use crate::error::{Error, Result};
use crate::gomea::LocalSearchMode;
use crate::linkage::coloring::ColoringMethod;
use crate::linkage::fos::LinkageModel;

pub use super::values::{Algorithm, Backend, BestKnownTag, FosOrderKind, Target};

/// What a caller asks of one run; every field left `None` takes the default that
/// [`RunOptions::resolve`] decides (those of `pgomea run`). Each field is an entry of
/// [`RUN_OPTIONS`], which says what it means; serialised with these names (the Python package's
/// keyword arguments are the same names).
///
/// ```
/// use pgomea::solve::{Algorithm, RunOptions, Target};
/// let options: RunOptions =
///     serde_json::from_str(r#"{"algorithm": "parallel", "time_limit": 5, "target": "best-known"}"#).unwrap();
/// assert_eq!(options.algorithm, Some(Algorithm::Parallel));
/// assert_eq!((options.time_limit, options.target), (Some(5.0), Some(Target::BEST_KNOWN)));
/// assert!(serde_json::from_str::<RunOptions>(r#"{"time_limt": 5}"#).is_err()); // misspelt
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)] // Each field's meaning is its entry of `RUN_OPTIONS`.
pub struct RunOptions {
    pub algorithm: Option<Algorithm>,
    pub backend: Option<Backend>,
    #[serde(default, with = "super::values::text_option")]
    pub linkage: Option<LinkageModel>,
    #[serde(default, with = "super::values::text_option")]
    pub coloring: Option<ColoringMethod>,
    pub fos_order: Option<FosOrderKind>,
    pub forced_improvement: Option<bool>,
    pub local_search: Option<LocalSearchMode>,
    pub anneal_sweeps: Option<u32>,
    pub anneal_growth: Option<u32>,
    pub anneal_only: Option<bool>,
    pub anneal_share: Option<f64>,
    pub partition_mixing: Option<bool>,
    pub elitist_restarts: Option<bool>,
    pub seed: Option<u64>,
    pub time_limit: Option<f64>,
    pub max_evaluations: Option<f64>,
    pub target: Option<Target>,
    pub n_base: Option<usize>,
    pub c_ims: Option<u32>,
    pub max_population: Option<usize>,
    pub threads: Option<usize>,
    pub device_memory_limit: Option<u64>,
    pub cuda: Option<CudaTuning>,
}

/// Where an option's help stands (the command line's help headings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heading {
    /// The algorithm and its parameters.
    Algorithm,
    /// Where parallel GOM runs.
    Backend,
    /// What the hybrid adds to GOM: Forced Improvement, local search, annealing, mixing.
    Hybrid,
    /// When the run stops.
    Stopping,
}

impl Heading {
    /// The heading as the help shows it.
    pub fn title(self) -> &'static str {
        match self {
            Heading::Algorithm => "Algorithm",
            Heading::Backend => "Backend",
            Heading::Hybrid => "Hybrid",
            Heading::Stopping => "Stopping",
        }
    }
}

/// The kind of value an option takes, which says how each face reads it.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// One of a closed set of names ([`Choice`]), each with its line of help.
    Choice(fn() -> Vec<(&'static str, &'static str)>),
    /// A name the library parses (a linkage model `bflt:16`, a colouring `welsh-powell`).
    Text,
    /// A whole number from 0.
    Integer,
    /// A number.
    Number,
    /// On or off (the command line: `--flag` and `--no-flag`).
    Switch,
    /// A fitness or `best-known`.
    Target,
    /// Settings that the command line takes from the environment (`PGOMEA_CUDA_*`), Python as a
    /// dict.
    Settings,
}

/// An option's default, as the help shows it.
#[derive(Clone, Copy, Debug)]
pub enum DefaultIs {
    /// A fixed value, spelled as `--explain` shows it ([`RunOptions::resolve`] takes the same: a
    /// test checks it).
    Fixed(&'static str),
    /// Decided for each run from the instance and the backend by the function `by` of
    /// [`crate::solve::config`] (the configuration records why); `shown` says how in short.
    Decided {
        /// The rule in a few words.
        shown: &'static str,
        /// The function that decides it.
        by: &'static str,
    },
    /// No value: the option's absence means what `shown` says ("" shows nothing).
    Unset(&'static str),
}

impl DefaultIs {
    /// The default in a few words ("" where there is nothing to show).
    pub fn shown(self) -> &'static str {
        match self {
            DefaultIs::Fixed(shown) | DefaultIs::Decided { shown, .. } | DefaultIs::Unset(shown) => shown,
        }
    }
}

/// One run option: its entry of [`RUN_OPTIONS`].
#[derive(Clone, Copy, Debug)]
pub struct RunOption {
    /// Its name: the [`RunOptions`] field, the Python keyword, the name in messages.
    pub name: &'static str,
    /// The command line's spelling, without `--` (for [`Value::Settings`]: the environment
    /// variables).
    pub flag: &'static str,
    /// The kind of value.
    pub value: Value,
    /// The value's name in the command line's help (`SECONDS`).
    pub value_name: &'static str,
    /// Where its help stands.
    pub heading: Heading,
    /// Its default.
    pub default: DefaultIs,
    /// What it does, in one line.
    pub help: &'static str,
    /// The long help: what each value does, and why the default is what it is (other options
    /// named as `{name}`; no measured figures, which are in the decision records).
    pub details: &'static str,
    /// For a [`Value::Switch`]: the one line of its `off` form (`--no-flag`).
    pub off: &'static str,
    /// Why a fixed default (or none) is what it is, in words: the reason the configuration
    /// records where the option was left out (a decided default's reason comes from its function).
    pub why: &'static str,
}

/// The names and help of a [`Choice`]'s values.
fn choices<C: Choice>() -> Vec<(&'static str, &'static str)> {
    C::ALL.iter().map(|c| (c.name(), c.help())).collect()
}

/// An entry with nothing beyond the required.
const ENTRY: RunOption = RunOption {
    name: "",
    flag: "",
    value: Value::Integer,
    value_name: "N",
    heading: Heading::Algorithm,
    default: DefaultIs::Unset(""),
    help: "",
    details: "",
    off: "",
    why: "",
};

/// Every run option, in the order of [`RunOptions`]' fields.
// Every entry ends with `..ENTRY`, also where it names every field, so that they all read alike.
#[allow(clippy::needless_update)]
pub const RUN_OPTIONS: &[RunOption] = &[
    RunOption {
        name: "algorithm",
        flag: "algo",
        value: Value::Choice(choices::<Algorithm>),
        value_name: "ALGORITHM",
        default: DefaultIs::Decided {
            shown: "parallel on a GPU and from 8 CPU threads, else serial",
            by: "default_algorithm",
        },
        help: "The algorithm",
        details: "Serial GOMEA runs on one CPU core; parallel GOMEA runs GOM on colour groups of independent \
                  linkage sets at once, on the backend ({backend}). By default parallel where it runs on a GPU or \
                  on at least 8 CPU threads, serial on fewer, where it was ahead or level (decision record 0028); \
                  the run says which it took and why.",
        ..ENTRY
    },
    RunOption {
        name: "backend",
        flag: "backend",
        value: Value::Choice(choices::<Backend>),
        value_name: "BACKEND",
        heading: Heading::Backend,
        default: DefaultIs::Fixed("auto"),
        help: "Where parallel GOM runs",
        details: "auto picks CUDA when a driver and a device exist, else the CPU; serial GOMEA always runs on one \
                  CPU core.",
        why: "CUDA where a driver and a device exist, else the CPU (serial GOMEA uses neither: it runs on one CPU core)",
        ..ENTRY
    },
    RunOption {
        name: "linkage",
        flag: "linkage",
        value: Value::Text,
        value_name: "MODEL",
        default: DefaultIs::Decided { shown: "from the instance", by: "default_linkage" },
        help: "Linkage model: flt, bflt:K, lt or univariate",
        details: "flt: the fixed linkage tree from |w| (the paper's default); bflt:K: that tree with sets of at \
                  most K variables; lt: learned from the population every generation (serial GOMEA only); \
                  univariate: one set per variable. By default flt, except: univariate for clauses (MAX-SAT) under \
                  parallel GOM, which reaches the optimum of random 3-SAT sooner without linkage sets (decision \
                  record 0011); for instances of at least 10^5 variables that are not lattices (fewer than one \
                  cycle of up to four subfunctions per subfunction, as sparse random graphs, random 3-SAT, random \
                  NK neighbourhoods, disjoint traps), univariate for clauses under serial GOMEA too and bflt:16 for \
                  the other kinds, where the full tree needs far more colour groups and a set-up longer than the \
                  run (decision record 0010). Lattices and overlapping windows keep flt; the run says which it \
                  took and why.",
        ..ENTRY
    },
    RunOption {
        name: "coloring",
        flag: "coloring",
        value: Value::Text,
        value_name: "METHOD",
        default: DefaultIs::Decided { shown: "from the size", by: "default_coloring" },
        help: "Colouring of the linkage sets into groups of independent sets",
        details: "Parallel GOM's and {fos_order} colored's: welsh-powell and dsatur order the sets by their \
                  conflicts, incidence by size and counts no conflicts (faster at scale). By default welsh-powell \
                  up to 50,000 variables, incidence beyond, where it gives as many colour groups without the \
                  conflict count's share of the set-up (decision record 0012).",
        ..ENTRY
    },
    RunOption {
        name: "fos_order",
        flag: "fos-order",
        value: Value::Choice(choices::<FosOrderKind>),
        value_name: "ORDER",
        default: DefaultIs::Fixed("random"),
        help: "Serial GOMEA's order of the linkage sets",
        details: "random, as in the paper; colored: parallel GOM's order, for comparing the two.",
        why: "as in the paper",
        ..ENTRY
    },
    RunOption {
        name: "forced_improvement",
        flag: "fi",
        value: Value::Switch,
        value_name: "",
        heading: Heading::Hybrid,
        default: DefaultIs::Decided { shown: "on for serial, off for parallel", by: "default_hybrid" },
        help: "Forced Improvement on",
        details: "Serial GOMEA's Forced Improvement, or parallel Forced Improvement for parallel GOMEA. On by \
                  default for serial GOMEA, as in the paper; off for parallel GOMEA, where it cost time without a \
                  better result (decision record 0001).",
        off: "Forced Improvement off",
        ..ENTRY
    },
    RunOption {
        name: "local_search",
        flag: "local-search",
        value: Value::Choice(choices::<LocalSearchMode>),
        value_name: "WHEN",
        heading: Heading::Hybrid,
        default: DefaultIs::Fixed("initial"),
        help: "Colour-grouped local search",
        details: "off: none (the paper); initial: every new population is annealed (where {anneal_sweeps} says \
                  so) and brought to local optima; offspring: also the offspring of every generation. initial by \
                  default: searching every offspring takes the time that annealing new populations puts to better \
                  use (decision record 0001).",
        why: "annealing new populations puts the time to better use than searching every offspring",
        ..ENTRY
    },
    RunOption {
        name: "anneal_sweeps",
        flag: "anneal-sweeps",
        heading: Heading::Hybrid,
        default: DefaultIs::Decided { shown: "from the instance", by: "default_anneal_sweeps" },
        help: "Annealing sweeps before every local search's greedy descent",
        details: "Colour-grouped Metropolis sweeps from a hot to a cold temperature; 0: the greedy descent alone. \
                  By default 0 where GOM after the greedy descent does better: for MAX-SAT, for deceptive tables \
                  (most tables' maximum is where no single variable's average points, as in traps) and for 2D spin \
                  glasses (a square lattice with frustrated squares and distinct couplings); else 3000 on a GPU and \
                  on 8 or more CPU threads, 10000 where fewer CPU threads anneal, and \
                  fewer beyond 10^5 variables, so that large runs still search (decision records 0002 to 0005). \
                  The run says which it took and why.",
        ..ENTRY
    },
    RunOption {
        name: "anneal_growth",
        flag: "anneal-growth",
        value_name: "G",
        heading: Heading::Hybrid,
        default: DefaultIs::Decided { shown: "from the instance", by: "default_anneal_growth" },
        help: "Each new population anneals G times longer than the one before",
        details: "Population i of the multi-start scheme gets {anneal_sweeps} x G^i sweeps (1: every population \
                  the same; 2: the doubling of a multi-start annealer's restarts, so that long runs get long \
                  anneals). By default 2 up to 10^5 variables for Max-Cut, Ising and QUBO, and for tables (NK \
                  landscapes) annealed on the CPU (not yet measured on a GPU), else 1: beyond that size the \
                  doubling leaves too few populations (decision record 0006).",
        ..ENTRY
    },
    RunOption {
        name: "anneal_only",
        flag: "anneal-only",
        value: Value::Switch,
        value_name: "",
        heading: Heading::Hybrid,
        default: DefaultIs::Fixed("off"),
        help: "The control of the hybrid: the multi-start scheme and its annealing alone, no GOM",
        details: "The same multi-start scheme (population sizes and growth) and the same annealed local search of \
                  every new population, but each population is terminated right after its local search, before \
                  any generation (GOM, Forced Improvement), so the scheme goes on with the next larger one: what a \
                  multi-start annealer alone finds. Needs {local_search} initial (the default) and \
                  {anneal_sweeps} > 0 (by default annealed on every kind); the result shows 0 generations and 0 \
                  GOM steps. Both algorithms, every backend.",
        off: "GOM runs (the default)",
        why: "GOM runs (the control is the annealing alone)",
        ..ENTRY
    },
    RunOption {
        name: "anneal_share",
        flag: "anneal-share",
        value: Value::Number,
        value_name: "SHARE",
        heading: Heading::Hybrid,
        default: DefaultIs::Fixed("0.75"),
        help: "Largest share of the time left that a new population's annealing may take",
        details: "A share from 0 to 1. Under a time limit, where the sweeps asked for would take longer (at the \
                  pace of the population annealed before; the first one goes by its own pace as it runs), the \
                  annealing gets as many as fit, so that it still cools down and GOM gets the rest of the time, \
                  instead of the clock stopping an annealing while it is hot. 0: every annealing as long as asked. \
                  0.75 by default, so that GOM gets the rest (decision record 0007); the run says when it \
                  shortened one.",
        why: "GOM gets the rest of the time left, instead of the limit cutting an annealing off while it is hot",
        ..ENTRY
    },
    RunOption {
        name: "partition_mixing",
        flag: "partition-mixing",
        value: Value::Switch,
        value_name: "",
        heading: Heading::Hybrid,
        default: DefaultIs::Decided { shown: "from the instance", by: "default_partition_mixing" },
        help: "Partition mixing into the elitist on",
        details: "Every new population, once its local search is done (below 10^5 variables), and a population's \
                  best whenever it improved (on a thread of its own, during the next generation; kept, and mixed \
                  again whenever the best solution has changed since; a best solution displaced by a better one is \
                  mixed into it too), are mixed into the best solution found so far, which takes their genes on \
                  each connected component of the variables where the two differ (connected through shared \
                  subfunctions) where that improves it; on Max-Cut and Ising models also their complements' genes. \
                  A component that does not improve it whole is cut into pieces where the best solution leaves a \
                  subfunction below its largest value, and each piece that improves it is taken (with the donor or \
                  its complement, whichever differs on fewer variables). GOM's step with the components of a \
                  difference as the linkage sets (the partition crossover of gray-box optimisation). On by default \
                  below 10^5 variables, except for clauses (MAX-SAT) and {anneal_only}, and from 10^5 on for \
                  lattices of pairwise terms such as tori and spin glasses: elsewhere the mixes cost more than they \
                  gain (decision record 0015). Off: as in the paper.",
        off: "Partition mixing off",
        ..ENTRY
    },
    RunOption {
        name: "elitist_restarts",
        flag: "elitist-restarts",
        value: Value::Switch,
        value_name: "",
        heading: Heading::Hybrid,
        default: DefaultIs::Fixed("off"),
        help: "Every second new population begins as copies of the elitist",
        details: "Restarts from the elitist: every second new population of the multi-start scheme (the second, \
                  the fourth, ...) begins as copies of the best solution found so far and anneals from halfway \
                  down its schedule, so that each copy leaves it its own way and the local search brings it back \
                  to a local optimum near it; the mixing and GOM then take from these what improves the best. The \
                  other populations begin at random. Needs the annealing of new populations. Off by default: it \
                  lost about as often as it gained (decision record 0017).",
        off: "Restarts from the elitist off (the default)",
        why: "restarts from the elitist lost about as often as they gained",
        ..ENTRY
    },
    RunOption {
        name: "seed",
        flag: "seed",
        value_name: "SEED",
        default: DefaultIs::Fixed("1"),
        help: "The seed of every random choice",
        details: "From 0 to 2^64 - 1. A seed and an evaluation budget repeat a run exactly.",
        why: "a fixed seed, so that a run repeats",
        ..ENTRY
    },
    RunOption {
        name: "time_limit",
        flag: "time-limit",
        value: Value::Number,
        value_name: "SECONDS",
        heading: Heading::Stopping,
        default: DefaultIs::Decided { shown: "none; without limits, at the answer, by 60 s", by: "stop_rule" },
        help: "Stop after this many seconds, counted from the start",
        details: "Reading the instance and building the linkage model included; the run ends within 0.5 s of the \
                  limit. Without {time_limit}, {max_evaluations} and {target}, the run stops when it has its \
                  answer: at once with the proven optimum up to 20 variables (every solution evaluated; \
                  `optimum-proven`), else once its best has not improved for max(1 s, half the time spent so far) \
                  (`stalled`), at the latest at 60 s (`time-limit`, the default cap).",
        ..ENTRY
    },
    RunOption {
        name: "max_evaluations",
        flag: "max-evals",
        value: Value::Number,
        value_name: "E",
        heading: Heading::Stopping,
        help: "Stop after this many evaluations (full-evaluation equivalents)",
        details: "A partial evaluation of k of the m subfunctions counts k/m. With it alone, no time limit and no \
                  stop of a run without limits.",
        why: "no evaluation budget",
        ..ENTRY
    },
    RunOption {
        name: "target",
        flag: "target",
        value: Value::Target,
        value_name: "VALUE|best-known",
        heading: Heading::Stopping,
        help: "Stop at this fitness: a number, or best-known",
        details: "best-known: the instance's best-known value (from the data directory's best_known.csv, or the \
                  optimum the instance states). With it alone, no time limit and no stop of a run without limits.",
        why: "no target fitness",
        ..ENTRY
    },
    RunOption {
        name: "n_base",
        flag: "n-base",
        default: DefaultIs::Fixed("16"),
        help: "Base population size of the interleaved multi-start scheme",
        details: "At least 2: GOM needs a donor besides the parent. 16 as in the paper.",
        why: "the multi-start scheme's base population size in the paper",
        ..ENTRY
    },
    RunOption {
        name: "c_ims",
        flag: "c-ims",
        value_name: "C",
        default: DefaultIs::Fixed("4"),
        help: "Generations of a population per generation of the next larger one",
        details: "At least 1. 4 as in the paper.",
        why: "the multi-start scheme's generation ratio in the paper",
        ..ENTRY
    },
    RunOption {
        name: "max_population",
        flag: "max-population",
        default: DefaultIs::Decided { shown: "what fits in memory", by: "default_population_cap" },
        help: "Largest population the multi-start scheme may start",
        details: "By default the largest power-of-two multiple of {n_base} whose solutions fit in a quarter of \
                  the memory available.",
        ..ENTRY
    },
    RunOption {
        name: "threads",
        flag: "threads",
        heading: Heading::Backend,
        default: DefaultIs::Unset("all cores"),
        help: "Threads of the CPU backend",
        details: "1 to 4096; by default all the cores the process may use.",
        why: "the CPU backend uses every core the process may use",
        ..ENTRY
    },
    RunOption {
        name: "device_memory_limit",
        flag: "device-memory-limit",
        value_name: "MIB",
        heading: Heading::Backend,
        default: DefaultIs::Unset("what the device has"),
        help: "The most device memory the CUDA backend may use, in MiB",
        details: "A larger population fails as out of memory and the multi-start scheme stops growing.",
        why: "a population that does not fit stops the scheme's growth",
        ..ENTRY
    },
    RunOption {
        name: "cuda",
        flag: "PGOMEA_CUDA_*",
        value: Value::Settings,
        value_name: "",
        heading: Heading::Backend,
        default: DefaultIs::Unset("tuned"),
        help: "The CUDA backend's tuning, for benchmarks",
        details: "generation (cooperative or graph), group_passes, generation_block, generation_blocks_per_sm, \
                  blocks_per_sm; the defaults are those measured best.",
        why: "the launch shapes the kernels were tuned for",
        ..ENTRY
    },
];

/// The entry of option `name`.
pub fn run_option(name: &str) -> Option<&'static RunOption> {
    RUN_OPTIONS.iter().find(|o| o.name == name)
}

impl RunOption {
    /// [`RunOption::details`] with each `{name}` spelled by `spell` (the face's spelling of
    /// option `name`).
    pub fn details_spelled(&self, spell: impl Fn(&RunOption) -> String) -> String {
        let mut text = self.details.to_string();
        for other in RUN_OPTIONS {
            text = text.replace(&format!("{{{}}}", other.name), &spell(other));
        }
        text
    }

    /// The values of a [`Value::Choice`] with their help; empty for other kinds.
    pub fn choices(&self) -> Vec<(&'static str, &'static str)> {
        match self.value {
            Value::Choice(of) => of(),
            _ => Vec::new(),
        }
    }
}

/// A value as a face without JSON gives it (the command line): parsed there as its kind says,
/// and read into [`RunOptions`] by the same deserialiser as JSON ([`RunOptions::from_given`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Given {
    /// On or off.
    Switch(bool),
    /// A whole number.
    Integer(i128),
    /// A number (NaN and infinities included, which the checks refuse by name).
    Number(f64),
    /// A name, or a value the library parses.
    Text(String),
}

impl Given {
    /// The value as it was given.
    pub fn show(&self) -> String {
        match self {
            Given::Switch(on) => (if *on { "on" } else { "off" }).into(),
            Given::Integer(i) => i.to_string(),
            Given::Number(x) => super::checks::show_number(*x),
            Given::Text(t) => format!("`{t}`"),
        }
    }
}

impl RunOptions {
    /// The options named in `given`, each read as its [`RunOptions`] field: what the command line
    /// passes. A value of the wrong kind is an [`Error::Option`] naming its option.
    pub fn from_given(given: impl IntoIterator<Item = (&'static str, Given)>) -> Result<RunOptions> {
        let given: Vec<(&'static str, Given)> = given.into_iter().collect();
        for (name, value) in &given {
            Self::deserialize(GivenMap(vec![(name, value.clone())]))
                .map_err(|e: de::value::Error| Error::Option { name, message: format!("{}: {e}", value.show()) })?;
        }
        let all = given.iter().map(|(n, v)| (*n, v.clone())).collect();
        Self::deserialize(GivenMap(all)).map_err(|e| Error::Usage(e.to_string()))
    }

    /// The options of a JSON object (what the Python package passes), each field read on its
    /// own first so that a bad value names its option.
    pub fn from_json(json: &serde_json::Value) -> Result<RunOptions> {
        let serde_json::Value::Object(map) = json else {
            return Err(Error::Usage("the run options: expected an object of named options".into()));
        };
        for (name, value) in map {
            let Some(option) = run_option(name) else {
                let names: Vec<&str> = RUN_OPTIONS.iter().map(|o| o.name).collect();
                return Err(Error::Usage(format!("no run option `{name}` (the options: {})", names.join(", "))));
            };
            let one = serde_json::Value::Object([(name.clone(), value.clone())].into_iter().collect());
            serde_json::from_value::<RunOptions>(one)
                .map_err(|e| Error::Option { name: option.name, message: format!("{value}: {e}") })?;
        }
        serde_json::from_value(json.clone()).map_err(|e| Error::Usage(e.to_string()))
    }
}

/// [`Given`] values by option name, as a serde map.
struct GivenMap(Vec<(&'static str, Given)>);

impl<'de> de::Deserializer<'de> for GivenMap {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, Self::Error> {
        visitor.visit_map(de::value::MapDeserializer::new(self.0.into_iter()))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, de::value::Error> for Given {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for Given {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, Self::Error> {
        match self {
            Given::Switch(on) => visitor.visit_bool(on),
            Given::Integer(i) => match (u64::try_from(i), i64::try_from(i)) {
                (Ok(u), _) => visitor.visit_u64(u),
                (_, Ok(i)) => visitor.visit_i64(i),
                _ => visitor.visit_i128(i),
            },
            Given::Number(x) => visitor.visit_f64(x),
            Given::Text(t) => visitor.visit_string(t),
        }
    }

    // A value given is `Some`.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    // A choice is its name.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        match self {
            Given::Text(t) => t.into_deserializer().deserialize_enum(name, variants, visitor),
            other => other.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::generate::default_instance;
    use crate::problem::maxcut::MaxCut;

    #[test]
    fn the_table_is_the_fields_of_run_options_in_order_each_once() {
        let every = RunOptions {
            algorithm: Some(Algorithm::Serial),
            backend: Some(Backend::Cpu),
            linkage: Some(LinkageModel::Flt),
            coloring: Some(ColoringMethod::WelshPowell),
            fos_order: Some(FosOrderKind::Random),
            forced_improvement: Some(true),
            local_search: Some(LocalSearchMode::Initial),
            anneal_sweeps: Some(1),
            anneal_growth: Some(1),
            anneal_only: Some(false),
            anneal_share: Some(0.5),
            partition_mixing: Some(true),
            elitist_restarts: Some(false),
            seed: Some(1),
            time_limit: Some(1.0),
            max_evaluations: Some(1.0),
            target: Some(Target::Fitness(1)),
            n_base: Some(2),
            c_ims: Some(1),
            max_population: Some(2),
            threads: Some(1),
            device_memory_limit: Some(1),
            cuda: Some(CudaTuning::default()),
        };
        // The text keeps the fields' order (a JSON map would sort them).
        let text = serde_json::to_string(&every).unwrap();
        let json = serde_json::to_value(&every).unwrap();
        assert_eq!(json.as_object().unwrap().len(), RUN_OPTIONS.len());
        let at: Vec<Option<usize>> = RUN_OPTIONS.iter().map(|o| text.find(&format!("\"{}\":", o.name))).collect();
        assert!(at.iter().all(Option::is_some) && at.is_sorted(), "{text}");
        for o in RUN_OPTIONS {
            assert!(!o.help.is_empty() && !o.help.ends_with('.') && o.help.len() < 100, "{}: {}", o.name, o.help);
            assert!(!o.details.is_empty(), "{}", o.name);
            assert_eq!(matches!(o.value, Value::Switch), !o.off.is_empty(), "{}: a switch has its off line", o.name);
            // Every `{name}` in the long help is an option's.
            let spelled = o.details_spelled(|other| other.name.to_uppercase());
            assert!(!spelled.contains('{'), "{}: an unknown option in `{spelled}`", o.name);
            assert_eq!(RUN_OPTIONS.iter().filter(|p| p.flag == o.flag).count(), 1, "{}", o.flag);
        }
    }

    /// A resolved value as the table spells a fixed default.
    fn shown(value: &serde_json::Value) -> String {
        match value {
            serde_json::Value::Bool(on) => (if *on { "on" } else { "off" }).into(),
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        }
    }

    #[test]
    fn a_fixed_default_is_what_resolve_takes_and_a_decided_one_has_its_reason() {
        let problem = MaxCut::new(default_instance()).unwrap();
        for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
            let config =
                RunOptions { algorithm: Some(algorithm), ..Default::default() }.resolve(&problem, None).unwrap();
            let json = serde_json::to_value(&config).unwrap();
            for o in RUN_OPTIONS {
                if let DefaultIs::Fixed(value) = o.default {
                    assert_eq!(shown(&json[o.name]), value, "{}", o.name);
                }
                // A fixed default's reason is the table's; a decided one's, its function's.
                assert_eq!(o.why.is_empty(), matches!(o.default, DefaultIs::Decided { .. }), "{}", o.name);
                if o.name != "algorithm" {
                    let why = config.reason(o.name).unwrap_or_else(|| panic!("{} has no reason", o.name));
                    assert!(o.why.is_empty() || why.ends_with(o.why), "{}: {why}", o.name);
                }
            }
        }
    }

    #[test]
    fn given_values_reach_the_fields_and_a_wrong_one_names_its_option() {
        let options = RunOptions::from_given([
            ("algorithm", Given::Text("parallel".into())),
            ("linkage", Given::Text("bflt:4".into())),
            ("forced_improvement", Given::Switch(false)),
            ("anneal_sweeps", Given::Integer(7)),
            ("time_limit", Given::Number(f64::NAN)),
            ("target", Given::Integer(-3)),
        ])
        .unwrap();
        assert_eq!(options.algorithm, Some(Algorithm::Parallel));
        assert_eq!(options.linkage, Some(LinkageModel::Bflt(4)));
        assert_eq!((options.forced_improvement, options.anneal_sweeps), (Some(false), Some(7)));
        assert!(options.time_limit.is_some_and(f64::is_nan), "NaN reaches the check, which names it");
        assert_eq!(options.target, Some(Target::Fitness(-3)));
        let best = RunOptions::from_given([("target", Given::Text("best-known".into()))]).unwrap();
        assert_eq!(best.target, Some(Target::BEST_KNOWN));
        for (name, value, says) in [
            ("anneal_sweeps", Given::Integer(1 << 32), "4294967296"),
            ("linkage", Given::Text("tree".into()), "`tree`"),
            ("algorithm", Given::Text("fast".into()), "fast"),
            ("target", Given::Text("1e30".into()), "best-known"),
            ("seed", Given::Integer(-1), "-1"),
        ] {
            match RunOptions::from_given([(name, value)]) {
                Err(Error::Option { name: n, message }) => {
                    assert_eq!(n, name);
                    assert!(message.contains(says), "{name}: `{message}` should say `{says}`");
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        // JSON (the Python package's way) reaches the same options.
        let json = serde_json::json!({"algorithm": "parallel", "linkage": "bflt:4", "forced_improvement": false,
            "anneal_sweeps": 7, "target": -3});
        let from_json = RunOptions::from_json(&json).unwrap();
        assert_eq!(from_json, RunOptions { time_limit: None, ..options });
        let refused = RunOptions::from_json(&serde_json::json!({"anneal_sweeps": "many"})).unwrap_err();
        assert!(matches!(refused, Error::Option { name: "anneal_sweeps", .. }), "{refused}");
        assert!(
            RunOptions::from_json(&serde_json::json!({"time_limt": 3})).unwrap_err().to_string().contains("time_limit")
        );
    }
}
