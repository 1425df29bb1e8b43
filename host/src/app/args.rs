//! The instance options every command shares (`--instance`, or `--set`/`--name` from the data
//! directory), and the instance they load.

use std::path::PathBuf;

use clap::Args;
use clap::builder::PossibleValue;

use crate::error::Result;
use crate::solve::{Algorithm, Backend, Choice, FosOrderKind};
use crate::problem::data;
use crate::problem::generate;
use crate::problem::graph::Instance;

#[derive(Args, Debug, Clone)]
pub struct InstanceArgs {
    /// An instance file (`n m` header, then `i j w` lines, 1-based).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["set", "name"])]
    pub instance: Option<PathBuf>,
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

/// An instance with its best-known value when the data directory knows it.
pub struct LoadedInstance {
    pub instance: Instance,
    pub best_known: Option<i64>,
    pub is_optimal: bool,
}

impl InstanceArgs {
    pub fn load(&self) -> Result<LoadedInstance> {
        if let (Some(set), Some(name)) = (&self.set, &self.name) {
            let dir = data::data_dir(self.instances_dir.as_deref())?;
            let rows = data::read_best_known(&dir)?;
            let row = data::find(&rows, set, name)?;
            let mut instance = Instance::read(&row.path(&dir))?;
            instance.name = row.name.clone();
            return Ok(LoadedInstance { instance, best_known: Some(row.best_known), is_optimal: row.is_optimal });
        }
        if let Some(path) = &self.instance {
            let instance = Instance::read(path)?;
            let known = data::data_dir(self.instances_dir.as_deref())
                .ok()
                .and_then(|dir| data::read_best_known(&dir).ok().and_then(|rows| data::best_known_for_path(&dir, &rows, path)));
            return Ok(LoadedInstance {
                instance,
                best_known: known.as_ref().map(|k| k.best_known),
                is_optimal: known.is_some_and(|k| k.is_optimal),
            });
        }
        let instance = generate::default_instance();
        let total = instance.total_weight();
        Ok(LoadedInstance { instance, best_known: Some(total), is_optimal: true })
    }
}


/// Makes a [`Choice`] of the library a clap value enum (names, help lines, `--help` listing).
macro_rules! value_enum {
    ($($t:ty),*) => {$(
        impl clap::ValueEnum for $t {
            fn value_variants<'a>() -> &'a [Self] {
                <$t as Choice>::ALL
            }
            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(PossibleValue::new(self.name()).help(self.help()))
            }
        }
    )*};
}

value_enum!(Algorithm, Backend, FosOrderKind);
