//! Why a run ends, and the check that every long phase makes: set-up (reading an instance, the
//! linkage model, its colouring, the layout and its upload) as much as the generations. A phase
//! asks [`StopCheck::check`] often enough (about every 10 ms of work) that the first signal or
//! the time limit ends any run within a second, and passes the [`StopReason`] up with `?` (it
//! becomes `Error::Stopped`) when it must stop; `solve` then answers with the best solution
//! evaluated so far.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    TargetReached,
    TimeLimit,
    EvaluationLimit,
    AllPopulationsTerminated,
    Interrupted,
    /// Every solution has the same fitness (e.g. no subfunctions): the first one is optimal.
    ConstantFitness,
}

impl StopReason {
    pub const ALL: [StopReason; 6] = [
        StopReason::TargetReached,
        StopReason::TimeLimit,
        StopReason::EvaluationLimit,
        StopReason::AllPopulationsTerminated,
        StopReason::Interrupted,
        StopReason::ConstantFitness,
    ];

    pub fn as_str(&self) -> &'static str {
        match self {
            StopReason::TargetReached => "target reached",
            StopReason::TimeLimit => "time limit",
            StopReason::EvaluationLimit => "evaluation limit",
            StopReason::AllPopulationsTerminated => "all populations terminated",
            StopReason::Interrupted => "interrupted",
            StopReason::ConstantFitness => "constant fitness (every solution is optimal)",
        }
    }
}

/// The work (variables, entries visited) between two checks of [`StopCheck::after`]: well
/// under a millisecond of work, and many clock reads' worth.
pub const WORK_PER_CHECK: usize = 1 << 16;

/// The clock and the stop flag of one run, as every phase checks them: cheap to clone and to ask
/// (an atomic load and, with a deadline, a read of the monotonic clock).
///
/// A long phase of the caller's own, stopped by a flag (which another thread or a signal
/// handler may set):
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use pgomea::stop::{StopCheck, StopReason};
///
/// fn sum(n: usize, stop: &StopCheck) -> pgomea::Result<usize> {
///     let mut total = 0;
///     for i in 0..n {
///         stop.every(i, 4096)?; // the clock and the flag, every 4096 steps
///         total += i;
///     }
///     Ok(total)
/// }
///
/// let flag = Arc::new(AtomicBool::new(false));
/// let stop = StopCheck::new(None, Some(flag.clone()));
/// assert_eq!(sum(10_000, &stop)?, 49_995_000);
/// flag.store(true, Ordering::Relaxed);
/// assert_eq!(stop.reason(), Some(StopReason::Interrupted));
/// assert!(matches!(sum(10_000, &stop), Err(pgomea::Error::Stopped(StopReason::Interrupted))));
/// # Ok::<(), pgomea::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct StopCheck {
    deadline: Option<Instant>,
    flag: Option<Arc<AtomicBool>>,
}

impl StopCheck {
    /// A check that never stops (tests, library calls without limits).
    pub fn never() -> Self {
        StopCheck::default()
    }

    /// Stops at `deadline` (the time limit counted from the run's start) or once `flag` is set
    /// (the first SIGINT/SIGTERM, Ctrl-C in Python, or another thread of the caller).
    pub fn new(deadline: Option<Instant>, flag: Option<Arc<AtomicBool>>) -> Self {
        StopCheck { deadline, flag }
    }

    /// Why the run must stop now, if it must: an interruption first, then the time limit.
    #[inline]
    pub fn reason(&self) -> Option<StopReason> {
        if self.flag.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
            Some(StopReason::Interrupted)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(StopReason::TimeLimit)
        } else {
            None
        }
    }

    /// `Err(reason)` when the run must stop now (`?` turns it into `Error::Stopped`).
    #[inline]
    pub fn check(&self) -> Result<(), StopReason> {
        match self.reason() {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    /// Checks only when `i` is a multiple of `every`, so that a tight loop pays for the clock
    /// rarely: `stop.every(i, 4096)?` inside the loop.
    #[inline]
    pub fn every(&self, i: usize, every: usize) -> Result<(), StopReason> {
        if i.is_multiple_of(every.max(1)) { self.check() } else { Ok(()) }
    }

    /// Counts `work` units into `done` and checks on a fresh counter (`done == 0`: a phase, or a
    /// thread's share of it, starting) and then once [`WORK_PER_CHECK`] units have been counted
    /// since the last check: for loops whose iterations differ widely in cost (a linkage set of
    /// one variable or of 10^6): `let mut done = 0; ... stop.after(&mut done, set.len())?`.
    #[inline]
    pub fn after(&self, done: &mut usize, work: usize) -> Result<(), StopReason> {
        let due = *done == 0 || *done >= WORK_PER_CHECK;
        *done = if due { 0 } else { *done } + work.max(1);
        if due { self.check() } else { Ok(()) }
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    pub fn flag(&self) -> Option<&Arc<AtomicBool>> {
        self.flag.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn after_checks_as_a_phase_starts_and_then_by_work_done() {
        let past = StopCheck::new(Some(Instant::now() - Duration::from_millis(1)), None);
        let mut done = 0;
        assert_eq!(past.after(&mut done, 10), Err(StopReason::TimeLimit), "a fresh counter checks");
        assert_eq!(done, 10);
        // Then not before WORK_PER_CHECK units, then at once.
        assert_eq!(past.after(&mut done, WORK_PER_CHECK - 11), Ok(()));
        assert_eq!(past.after(&mut done, 1), Ok(()));
        assert_eq!(past.after(&mut done, 5), Err(StopReason::TimeLimit));
        assert_eq!(done, 5, "counted from the check");
        // Work of 0 still counts, so that a loop of empty items checks too.
        let mut done = 1;
        let empties = (0..WORK_PER_CHECK).take_while(|_| past.after(&mut done, 0).is_ok()).count();
        assert_eq!(empties, WORK_PER_CHECK - 1);
    }

    #[test]
    fn a_set_flag_or_a_past_deadline_stops_and_says_why() {
        assert!(StopCheck::never().check().is_ok());
        let flag = Arc::new(AtomicBool::new(false));
        let past = Instant::now() - Duration::from_millis(1);
        let future = Instant::now() + Duration::from_secs(3600);
        let check = StopCheck::new(Some(future), Some(flag.clone()));
        assert!(check.check().is_ok());
        flag.store(true, Ordering::Relaxed);
        assert_eq!(check.reason(), Some(StopReason::Interrupted));
        assert_eq!(check.check(), Err(StopReason::Interrupted));
        assert_eq!(StopCheck::new(Some(past), None).reason(), Some(StopReason::TimeLimit));
        // Every 4th call only: the 3rd passes even though the deadline is gone.
        let expired = StopCheck::new(Some(past), None);
        assert!(expired.every(3, 4).is_ok());
        assert!(expired.every(4, 4).is_err());
    }
}
