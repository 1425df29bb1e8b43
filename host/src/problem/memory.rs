//! Sizes that come from a file header or an option (variables, population sizes) are checked
//! against the memory the machine has left before anything of that size is allocated: a failed
//! allocation aborts the process, and a header may announce two billion variables in ten bytes.

use crate::error::{Error, Result};

/// The memory the system can still hand out (`MemAvailable`), or None where it cannot be read
/// (then only arithmetic overflow is checked).
pub fn available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Ok when `bytes` fit in the available memory; else an error saying that `what` needs them.
pub fn ensure(bytes: u128, what: &str) -> Result<()> {
    if bytes > isize::MAX as u128 {
        return Err(Error::usage(format!("{what} would need {}: more than any machine can address", human(bytes))));
    }
    match available() {
        Some(free) if bytes > free as u128 => Err(Error::usage(format!(
            "{what} would need about {} of memory, but only {} are available",
            human(bytes),
            human(free as u128)
        ))),
        _ => Ok(()),
    }
}

/// Bytes for people: `1.5 GiB`.
pub fn human(bytes: u128) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{bytes} bytes") } else { format!("{v:.1} {}", units[u]) }
}
