//! SIGINT (Ctrl-C) and SIGTERM for the commands that optimise (`run`, `experiment`, `bench`).
//!
//! The first signal only sets a flag, which the run's `should_stop` reads (`Run::interrupt`): the
//! optimiser stops at its next check (between solutions of serial GOMEA, between colour groups
//! of parallel GOM), and the command reports what it has, then exits with [`EXIT_SIGINT`] or
//! [`EXIT_SIGTERM`] (128 + the signal's number, as shells report a process killed by it). A
//! second signal ends the process at once with the same status. Other commands keep the default
//! behaviour (they end at the first signal). A signal the process inherited as ignored (a
//! script's background job ignores SIGINT) stays ignored.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use signal_hook::consts::{SIGINT, SIGTERM};

use pgomea::error::{Error, Result};

/// The exit status of a command stopped by SIGINT (its result printed).
pub const EXIT_SIGINT: u8 = 130;
/// The exit status of a command stopped by SIGTERM (its result printed).
pub const EXIT_SIGTERM: u8 = 143;

struct Flags {
    stop: Arc<AtomicBool>,
    /// The number of the last signal received.
    signal: Arc<AtomicUsize>,
}

static FLAGS: OnceLock<std::result::Result<Flags, String>> = OnceLock::new();

fn register() -> std::io::Result<Flags> {
    let flags = Flags { stop: Arc::new(AtomicBool::new(false)), signal: Arc::new(AtomicUsize::new(0)) };
    for sig in [SIGINT, SIGTERM] {
        if ignored(sig) {
            continue;
        }
        // Actions run in the order registered: with the flag already set (a second signal) the
        // process exits at once; otherwise the signal is noted and the flag set.
        signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, flags.stop.clone())?;
        signal_hook::flag::register_usize(sig, flags.signal.clone(), sig as usize)?;
        signal_hook::flag::register(sig, flags.stop.clone())?;
    }
    Ok(flags)
}

/// Whether `sig` is ignored (SIG_IGN, inherited from the parent).
fn ignored(sig: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one into `old`, a
    // zero-initialised plain C struct owned here.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Installs the handlers (once per process) and returns the flag the first signal sets.
pub fn install() -> Result<Arc<AtomicBool>> {
    match FLAGS.get_or_init(|| register().map_err(|e| e.to_string())) {
        Ok(flags) => Ok(flags.stop.clone()),
        Err(e) => Err(Error::usage(format!("cannot install the SIGINT/SIGTERM handlers: {e}"))),
    }
}

/// The flag, when [`install`] has installed the handlers.
pub fn flag() -> Option<Arc<AtomicBool>> {
    match FLAGS.get() {
        Some(Ok(flags)) => Some(flags.stop.clone()),
        _ => None,
    }
}

/// The exit status for the signal received, if one was.
pub fn received() -> Option<u8> {
    let Some(Ok(flags)) = FLAGS.get() else { return None };
    if !flags.stop.load(Ordering::SeqCst) {
        return None;
    }
    Some(match flags.signal.load(Ordering::SeqCst) as i32 {
        SIGTERM => EXIT_SIGTERM,
        _ => EXIT_SIGINT,
    })
}

/// A check of the first signal, for a phase that stops on it (reading an instance), when
/// [`install`] has installed the handlers; one that never stops otherwise.
pub fn stop_check() -> pgomea::stop::StopCheck {
    match FLAGS.get() {
        Some(Ok(flags)) => pgomea::stop::StopCheck::new(None, Some(flags.stop.clone())),
        _ => pgomea::stop::StopCheck::never(),
    }
}

/// The signal's name for messages.
pub fn name(code: u8) -> &'static str {
    if code == EXIT_SIGTERM { "SIGTERM" } else { "SIGINT" }
}
