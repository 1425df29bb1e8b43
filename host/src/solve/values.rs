//! The values that run options take besides numbers and switches: the algorithm, the backend,
//! serial GOMEA's order of the linkage sets, the target, and the text form in which the linkage
//! model and the colouring are serialised.

use serde::{Deserialize, Serialize};

use crate::choice::choices;

/// The algorithm of a run: the paper's serial GOMEA, or its parallel GOMEA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Serial GOMEA with Forced Improvement (Algorithms 1 and 2 of the paper).
    Serial,
    /// Parallel GOMEA: GOM on colour groups of independent linkage sets (Algorithms 3 and 4).
    Parallel,
}

choices! {
    Algorithm {
        Serial: "serial" => "Serial GOMEA with Forced Improvement (Algorithms 1 and 2 of the paper)",
        Parallel: "parallel" => "Parallel GOMEA: GOM on colour groups of independent linkage sets (Algorithms 3 and 4)",
    }
}

/// Where parallel GOM runs. `Cuda` asked for where no GPU can be used is an error
/// ([`Error::Cuda`](crate::Error::Cuda)), never a silent fallback; `Auto` falls back to the CPU (and the outcome says
/// which it got):
///
/// ```
/// use pgomea::Error;
/// use pgomea::solve::{Algorithm, Backend, Hooks, RunOptions, solve};
/// let problem = pgomea::problem::trap::concatenated(3, 4, 1, false)?;
/// let options = |backend| RunOptions {
///     algorithm: Some(Algorithm::Parallel),
///     backend: Some(backend),
///     max_evaluations: Some(1000.0),
///     ..RunOptions::default()
/// };
/// let auto = solve(&problem, &options(Backend::Auto).resolve(&problem, None)?, Hooks::default())?;
/// match solve(&problem, &options(Backend::Cuda).resolve(&problem, None)?, Hooks::default()) {
///     Ok(outcome) => assert!(outcome.backend.starts_with("cuda") && auto.backend.starts_with("cuda")),
///     Err(Error::Cuda(why)) => assert!(!why.is_empty() && auto.backend.starts_with("cpu")),
///     Err(e) => panic!("{e}"),
/// }
/// # Ok::<(), pgomea::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// CUDA when a driver and a device exist, else the CPU.
    Auto,
    /// Parallel GOM on the CPU cores (all of them, or [`RunOptions::threads`](crate::RunOptions::threads)).
    Cpu,
    /// Parallel GOM on an NVIDIA GPU.
    Cuda,
}

choices! {
    Backend {
        Auto: "auto" => "CUDA when a driver and a device exist, else the CPU",
        Cpu: "cpu" => "Parallel GOM on all CPU cores",
        Cuda: "cuda" => "Parallel GOM on an NVIDIA GPU",
    }
}

/// The order in which serial GOMEA visits the linkage sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FosOrderKind {
    /// A random permutation of the linkage sets per solution.
    Random,
    /// Colour groups in random order, the sets of a group in random order (parallel GOM's order).
    Colored,
}

choices! {
    FosOrderKind {
        Random: "random" => "A random permutation of the linkage sets per solution",
        Colored: "colored" => "Colour groups in random order, the sets of a group in random order (parallel GOM's order)",
    }
}

/// Where a run stops besides its limits: at a fitness, or at the instance's best-known value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Target {
    /// Stop once the best fitness reaches this value.
    Fitness(i64),
    /// The string `"best-known"`: the value the instance (or the data directory) knows.
    BestKnown(BestKnownTag),
}

/// The spelling of [`Target::BestKnown`] in serialised options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BestKnownTag {
    /// `best-known`.
    BestKnown,
}

impl<'de> Deserialize<'de> for Target {
    // By hand, so that a wrong value says what a target is (an untagged enum says only that no
    // variant matched).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Expected;
        impl serde::de::Visitor<'_> for Expected {
            type Value = Target;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a fitness (an integer) or best-known")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Target, E> {
                Ok(Target::Fitness(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Target, E> {
                i64::try_from(v)
                    .map(Target::Fitness)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Target, E> {
                match v {
                    "best-known" => Ok(Target::BEST_KNOWN),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Expected)
    }
}

impl Target {
    /// The instance's best-known value as the target.
    pub const BEST_KNOWN: Target = Target::BestKnown(BestKnownTag::BestKnown);
}

/// Serde through `Display` and `FromStr` (the linkage model `bflt:10`, the colouring
/// `welsh-powell`): the spelling of the command line.
pub(super) mod text {
    use std::fmt::Display;
    use std::str::FromStr;

    use serde::{Deserialize, Deserializer, Serializer, de};

    pub fn serialize<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    pub fn deserialize<'de, T: FromStr, D: Deserializer<'de>>(d: D) -> Result<T, D::Error>
    where
        T::Err: Display,
    {
        String::deserialize(d)?.parse().map_err(de::Error::custom)
    }
}

/// [`text`] for an optional value.
pub(super) mod text_option {
    use std::fmt::Display;
    use std::str::FromStr;

    use serde::{Deserialize, Deserializer, Serializer, de};

    pub fn serialize<T: Display, S: Serializer>(value: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => s.collect_str(v),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, T: FromStr, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error>
    where
        T::Err: Display,
    {
        Option::<String>::deserialize(d)?.map(|t| t.parse().map_err(de::Error::custom)).transpose()
    }
}
