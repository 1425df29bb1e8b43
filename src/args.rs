//! The instance options every command shares (`--instance`, or `--set`/`--name` from the data
//! directory), and the instance they load.

use std::path::PathBuf;

use std::marker::PhantomData;

use clap::builder::PossibleValue;
use clap::{Arg, ArgAction, Args};

use pgomea::choice::Choice;
use pgomea::error::{Error, Result};
use pgomea::problem::GrayBoxProblem;
use pgomea::problem::data;
use pgomea::problem::generate;
use pgomea::problem::load::{self, ProblemFormat};
use pgomea::problem::maxcut::MaxCut;
use pgomea::solve::RunOptions;
use pgomea::solve::options::{Given, Heading, RUN_OPTIONS, RunOption, Value, run_option};

#[derive(Args, Debug, Clone)]
pub struct InstanceArgs {
    /// An instance file: Max-Cut (G-set), tables (.nk, MK), MAX-SAT (cnf, wcnf), QUBO or Ising
    ///
    /// A graph in the G-set format (`n m`, then `i j w` lines, 1-based) for
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
        self.load_until(None)
    }

    /// [`InstanceArgs::load`], the reading stopped at `deadline` too (a run's time limit covers
    /// its reading) as well as by a signal.
    pub fn load_until(&self, deadline: Option<std::time::Instant>) -> Result<LoadedInstance> {
        let stop = super::signal::stop_check().with_deadline(deadline);
        if let (Some(set), Some(name)) = (&self.set, &self.name) {
            let dir = data_dir(self.instances_dir.as_deref())?;
            let rows = data::read_best_known(&dir)?;
            let row = data::find(&rows, set, name)?;
            let problem = load::read(&row.path(&dir), None, &stop)?;
            return Ok(LoadedInstance { problem, best_known: Some(row.best_known), is_optimal: row.is_optimal });
        }
        if let Some(path) = &self.instance {
            let problem = load::read(path, self.problem, &stop)?;
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

/// Run options as flags, each from its entry of the library's table ([`RUN_OPTIONS`]): those of
/// the set `S` ([`AllRunOptions`] for `run`). Dereferences to the [`RunOptions`] given.
#[derive(Debug, Clone, Default)]
pub struct OptionArgs<S> {
    pub options: RunOptions,
    set: PhantomData<S>,
}

/// A set of run options that a command takes as flags.
pub trait OptionSet: Clone + Default + std::fmt::Debug + Send + Sync + 'static {
    /// The options' names, or `None` for every option of the table.
    const NAMES: Option<&'static [&'static str]>;

    /// The options' entries, in the table's order.
    fn entries() -> impl Iterator<Item = &'static RunOption> {
        RUN_OPTIONS.iter().filter(|o| Self::NAMES.is_none_or(|names| names.contains(&o.name)))
    }
}

/// Every run option (`run`).
#[derive(Debug, Clone, Default)]
pub struct AllRunOptions;
impl OptionSet for AllRunOptions {
    const NAMES: Option<&'static [&'static str]> = None;
}

/// The linkage model and its colouring (`info`, `bench throughput`).
#[derive(Debug, Clone, Default)]
pub struct ModelOptions;
impl OptionSet for ModelOptions {
    const NAMES: Option<&'static [&'static str]> = Some(&["linkage", "coloring"]);
}

/// Where parallel GOM runs (`bench`, `experiment`).
#[derive(Debug, Clone, Default)]
pub struct BackendOptions;
impl OptionSet for BackendOptions {
    const NAMES: Option<&'static [&'static str]> = Some(&["backend", "threads"]);
}

/// The linkage model and its colouring as flags.
pub type ModelArgs = OptionArgs<ModelOptions>;
/// The backend and the CPU backend's threads as flags.
pub type BackendArgs = OptionArgs<BackendOptions>;

impl<S> std::ops::Deref for OptionArgs<S> {
    type Target = RunOptions;
    fn deref(&self) -> &RunOptions {
        &self.options
    }
}

/// The command line's spelling of a run option: `--flag`, or the environment variables of the
/// CUDA tuning.
pub fn spelling(option: &RunOption) -> String {
    match option.value {
        Value::Settings => option.flag.to_string(),
        _ => format!("--{}", option.flag),
    }
}

/// The command line's spelling of option `name`: a run option's from its entry, another library
/// option's (a benchmark's `serial_time_limit`) as `--serial-time-limit`.
pub fn option_spelling(name: &str) -> String {
    run_option(name).map_or_else(|| format!("--{}", name.replace('_', "-")), spelling)
}

/// The id of a switch's `off` flag.
fn off_id(option: &RunOption) -> String {
    format!("no_{}", option.name)
}

/// The flag (or, for a switch, the two flags) of one run option, from its entry.
fn option_flags(cmd: clap::Command, o: &'static RunOption) -> clap::Command {
    use clap::builder::TypedValueParser;
    let shown = o.default.shown();
    let help = if shown.is_empty() { o.help.to_string() } else { format!("{} [default: {shown}]", o.help) };
    let long_help = format!("{help}\n\n{}", o.details_spelled(spelling));
    let arg = Arg::new(o.name).long(o.flag).help(help).long_help(long_help).help_heading(o.heading.title());
    let value = |arg: Arg| arg.value_name(o.value_name).allow_negative_numbers(true).action(ArgAction::Set);
    let integer = || clap::value_parser!(u64).map(|v| Given::Integer(v.into()));
    match o.value {
        Value::Settings => cmd,
        Value::Switch => {
            // clap keeps an argument's id and flag for the program's life: a few bytes, once.
            let (off, flag): (&'static str, &'static str) = (off_id(o).leak(), format!("no-{}", o.flag).leak());
            cmd.arg(arg.action(ArgAction::SetTrue).overrides_with(off)).arg(
                Arg::new(off)
                    .long(flag)
                    .help(o.off)
                    .action(ArgAction::SetTrue)
                    .overrides_with(o.name)
                    .help_heading(o.heading.title()),
            )
        }
        Value::Choice(of) => {
            let names = of().into_iter().map(|(name, help)| PossibleValue::new(name).help(help));
            cmd.arg(value(arg).value_parser(clap::builder::PossibleValuesParser::new(names).map(Given::Text)))
        }
        Value::Text => {
            cmd.arg(value(arg).value_parser(clap::builder::NonEmptyStringValueParser::new().map(Given::Text)))
        }
        Value::Integer => cmd.arg(value(arg).value_parser(integer())),
        Value::Number => cmd.arg(value(arg).value_parser(|v: &str| v.parse::<f64>().map(Given::Number))),
        Value::Target => cmd.arg(value(arg).value_parser(clap::builder::NonEmptyStringValueParser::new().map(|v| {
            match v.trim().parse::<i64>() {
                Ok(fitness) => Given::Integer(fitness.into()),
                Err(_) => Given::Text(v),
            }
        }))),
    }
}

impl<S: OptionSet> clap::Args for OptionArgs<S> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        S::entries().fold(cmd, option_flags)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl<S: OptionSet> clap::FromArgMatches for OptionArgs<S> {
    fn from_arg_matches(m: &clap::ArgMatches) -> std::result::Result<Self, clap::Error> {
        let mut given = Vec::new();
        for o in S::entries() {
            let value = match o.value {
                Value::Settings => None,
                // clap keeps only the last of `--flag` and `--no-flag`.
                Value::Switch if m.get_flag(o.name) => Some(Given::Switch(true)),
                Value::Switch => m.get_flag(&off_id(o)).then_some(Given::Switch(false)),
                _ => m.get_one::<Given>(o.name).cloned(),
            };
            given.extend(value.map(|v| (o.name, v)));
        }
        let options = RunOptions::from_given(given)
            .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{}\n", message(&e))))?;
        Ok(OptionArgs { options, set: PhantomData })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> std::result::Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

/// An error as the command line says it: library option names in their command-line spelling.
pub fn message(e: &Error) -> String {
    match e {
        Error::Option { name, message } => format!("{} {message}", option_spelling(name)),
        other => other.to_string(),
    }
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

/// The guide's page of every run option (`docs/src/cli/options.md`), from the library's table:
/// tests/help.rs checks that the page is this, and writes it where `PGOMEA_BLESS` is set.
pub fn options_markdown() -> String {
    let cell = |text: &str| text.replace('|', "\\|");
    let mut page = String::from(
        "# Every run option\n\n\
         <!-- Generated from the library's table of run options (host/src/solve/options.rs): \
         `PGOMEA_BLESS=1 cargo test --release --test help` writes it, and tests/help.rs fails where it differs. -->\n\n\
         The options of `pgomea run` and the keyword arguments of Python's `pgomea.solve` are one table of the \
         library, with one default each; `pgomea run --explain` prints every option as a run would take it, each \
         default with its reason ([Defaults and why](../how-it-works/defaults.md)).\n",
    );
    for heading in [Heading::Algorithm, Heading::Backend, Heading::Hybrid, Heading::Stopping] {
        page.push_str(&format!(
            "\n## {}\n\n| `pgomea run` | Python | default | what |\n|---|---|---|---|\n",
            heading.title()
        ));
        for o in RUN_OPTIONS.iter().filter(|o| o.heading == heading) {
            let flag = match o.value {
                Value::Switch => format!("`--{0}`, `--no-{0}`", o.flag),
                Value::Settings => format!("`{}`", o.flag),
                _ => format!("`--{} {}`", o.flag, o.value_name),
            };
            let values: Vec<String> = o.choices().iter().map(|(name, help)| format!("`{name}`: {help}")).collect();
            let values = if values.is_empty() { String::new() } else { format!(" Values: {}.", values.join("; ")) };
            let default = match o.default.shown() {
                "" => "none".to_string(),
                shown => shown.to_string(),
            };
            page.push_str(&format!(
                "| {flag} | `{}` | {} | {}. {}{values} |\n",
                o.name,
                cell(&default),
                cell(o.help),
                cell(&o.details_spelled(spelling))
            ));
        }
    }
    page
}
