//! Range checks of numeric options that clap parses but cannot judge: each error names the option
//! and what it accepts, so that no typeable value reaches a panic (a duration beyond `Duration`,
//! a thread pool of a billion threads, a population of zero).

use std::time::Duration;

use pgomea::error::{Error, Result};

/// The most threads `--threads` accepts.
pub const MAX_THREADS: usize = 4096;

/// A positive, finite number (of seconds, evaluations, ...).
pub fn positive(option: &str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(Error::usage(format!("{option} {value}: expected a positive number")))
    }
}

/// A positive number of seconds that a `Duration` can hold.
pub fn seconds(option: &str, value: f64) -> Result<Duration> {
    positive(option, value)?;
    Duration::try_from_secs_f64(value)
        .map_err(|_| Error::usage(format!("{option} {value}: too large (at most {:e} seconds)", u64::MAX as f64)))
}

/// `--threads`: 1 to [`MAX_THREADS`].
pub fn threads(value: Option<usize>) -> Result<()> {
    match value {
        Some(t) if t == 0 || t > MAX_THREADS => {
            Err(Error::usage(format!("--threads {t}: expected 1 to {MAX_THREADS} threads")))
        }
        _ => Ok(()),
    }
}
