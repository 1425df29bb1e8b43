//! The checks of run options that [`RunOptions::resolve`](super::RunOptions::resolve) makes: each
//! refusal an [`Error::Option`] naming the option by its library name (each face spells it its
//! own way) with what is wrong in a short sentence.

use std::time::Duration;

use crate::choice::Choice;
use crate::error::{Error, Result};
use crate::gomea::LocalSearchMode;

/// The most threads the CPU backend accepts.
pub const MAX_THREADS: usize = 4096;

/// The largest `anneal_growth` accepted: beyond it the third population would already anneal for
/// longer than any run lasts.
pub const MAX_ANNEAL_GROWTH: u32 = 1024;

/// A number as people write it: `10`, `0.5`, `1e300` (never 301 digits).
pub fn show_number(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e15 { format!("{x}") } else { format!("{x:e}") }
}

/// Option `name` is a positive, finite number (of evaluations, ...).
pub fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(Error::option(name, format!("{}: expected a positive number", show_number(value))))
    }
}

/// Option `name` is a positive number of seconds that a `Duration` can hold.
pub fn seconds(name: &'static str, value: f64) -> Result<Duration> {
    positive(name, value)?;
    Duration::try_from_secs_f64(value).map_err(|_| {
        Error::option(name, format!("{}: too large (at most {:e} seconds)", show_number(value), u64::MAX as f64))
    })
}

/// Option `threads`: 1 to [`MAX_THREADS`].
pub fn threads(value: Option<usize>) -> Result<()> {
    match value {
        Some(t) if t == 0 || t > MAX_THREADS => {
            Err(Error::option("threads", format!("{t}: expected 1 to {MAX_THREADS} threads")))
        }
        _ => Ok(()),
    }
}

/// The control (`anneal_only`) anneals every new population and runs no generation: it needs
/// that local search, with annealing, and no Forced Improvement (a part of the generations).
pub(super) fn check_anneal_only(
    local_search: LocalSearchMode,
    anneal_sweeps: Option<u32>,
    forced_improvement: bool,
) -> Result<()> {
    let why = "the control anneals every new population and runs no generation";
    if local_search != LocalSearchMode::Initial {
        return Err(Error::option(
            "anneal_only",
            format!(
                "{why}: it needs the local search of new populations alone (local search `initial`, not `{}`)",
                local_search.name()
            ),
        ));
    }
    if anneal_sweeps == Some(0) {
        return Err(Error::option("anneal_only", format!("{why}: it needs annealing sweeps (at least 1, not 0)")));
    }
    if forced_improvement {
        return Err(Error::option(
            "anneal_only",
            format!("{why}: Forced Improvement, a part of the generations, cannot be on (leave it out or off)"),
        ));
    }
    Ok(())
}

/// Restarts from the elitist need an annealing that moves each copy of the elitist away from it:
/// the local search of new populations with annealing sweeps.
pub(super) fn check_elitist_restarts(local_search: LocalSearchMode, anneal_sweeps: Option<u32>) -> Result<()> {
    let why = "a population started from the elitist stays as many copies of it until its annealing";
    if local_search == LocalSearchMode::Off {
        return Err(Error::option(
            "elitist_restarts",
            format!("needs the local search of new populations (on, not off): {why}"),
        ));
    }
    if anneal_sweeps == Some(0) {
        return Err(Error::option("elitist_restarts", format!("needs annealing sweeps (at least 1, not 0): {why}")));
    }
    Ok(())
}

/// `anneal_growth` is at least 1 and at most [`MAX_ANNEAL_GROWTH`], and above 1 only where there
/// is an annealing to grow (a local search of new populations, with sweeps).
pub(super) fn check_anneal_growth(
    growth: u32,
    local_search: LocalSearchMode,
    anneal_sweeps: Option<u32>,
) -> Result<()> {
    if !(1..=MAX_ANNEAL_GROWTH).contains(&growth) {
        return Err(Error::option(
            "anneal_growth",
            format!("{growth}: from 1 (the same annealing for every population) to {MAX_ANNEAL_GROWTH}"),
        ));
    }
    if growth > 1 && local_search == LocalSearchMode::Off {
        return Err(Error::option(
            "anneal_growth",
            format!("{growth}: there is no annealing to grow with the local search off"),
        ));
    }
    if growth > 1 && anneal_sweeps == Some(0) {
        return Err(Error::option(
            "anneal_growth",
            format!("{growth}: there is no annealing to grow with 0 annealing sweeps"),
        ));
    }
    Ok(())
}
