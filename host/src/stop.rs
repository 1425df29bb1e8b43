//! Why a run ends, and the check that every long phase makes: set-up (reading an instance, the
//! linkage model, its colouring, the layout and its upload) as much as the generations. A phase
//! asks [`StopCheck::check`] often enough (about every 10 ms of work) that the first signal or
//! the time limit ends any run within a second, and passes the [`StopReason`] up with `?` (it
//! becomes `Error::Stopped`) when it must stop; `solve` then answers with the best solution
//! evaluated so far.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The best reached the target.
    TargetReached,
    /// The time limit passed.
    TimeLimit,
    /// The evaluation budget ran out.
    EvaluationLimit,
    /// Every population of the multi-start scheme was terminated, and no larger one could start.
    AllPopulationsTerminated,
    /// The caller's stop flag was set (a signal, a Python interrupt).
    Interrupted,
    /// Every solution has the same fitness (e.g. no subfunctions): the first one is optimal.
    ConstantFitness,
    /// A run without limits enumerated every solution of its small instance: the answer is optimal.
    OptimumProven,
    /// A run without limits saw its best not improve for long enough ([`StopCheck::with_stall`]).
    Stalled,
}

impl StopReason {
    /// The reason in words, as every face shows it (and as stored results read it).
    pub fn as_str(&self) -> &'static str {
        match self {
            StopReason::TargetReached => "target reached",
            StopReason::TimeLimit => "time limit",
            StopReason::EvaluationLimit => "evaluation limit",
            StopReason::AllPopulationsTerminated => "all populations terminated",
            StopReason::Interrupted => "interrupted",
            StopReason::ConstantFitness => "constant fitness (every solution is optimal)",
            StopReason::OptimumProven => "optimum-proven",
            StopReason::Stalled => "stalled",
        }
    }
}

/// The work (variables, entries visited) between two checks of [`StopCheck::after`]: well
/// under a millisecond of work, and many clock reads' worth.
pub const WORK_PER_CHECK: usize = 1 << 16;

/// The values of a run that [`StopCheck::sorted_by`] sorts whole before it merges: a few
/// milliseconds of work, and two merge passes fewer than runs of [`WORK_PER_CHECK`] would take.
pub const SORTED_RUN: usize = 4 * WORK_PER_CHECK;

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
    stall: Option<Arc<Stall>>,
}

/// The stall rule's clock, shared by every clone of a [`StopCheck`]: when the best last improved.
#[derive(Debug)]
struct Stall {
    start: Instant,
    /// Stalled once the best has not improved for max(`least`, `share` x the time since `start`).
    least: Duration,
    share: f64,
    /// Nanoseconds from `start` to the last improvement; `u64::MAX` before the first (no best, no
    /// stall).
    last: AtomicU64,
    /// Once stalled, the run stays stopped: a phase that gave up its work must not see it go on.
    stalled: AtomicBool,
}

impl Stall {
    fn reached(&self) -> bool {
        if self.stalled.load(Ordering::Relaxed) {
            return true;
        }
        let last = self.last.load(Ordering::Relaxed);
        if last == u64::MAX {
            return false;
        }
        let now = self.start.elapsed();
        let quiet = now.saturating_sub(Duration::from_nanos(last));
        let stalled = quiet >= self.least.max(now.mul_f64(self.share));
        if stalled {
            self.stalled.store(true, Ordering::Relaxed);
        }
        stalled
    }
}

impl StopCheck {
    /// A check that never stops (tests, library calls without limits).
    pub fn never() -> Self {
        StopCheck::default()
    }

    /// Stops at `deadline` (the time limit counted from the run's start) or once `flag` is set
    /// (the first SIGINT/SIGTERM, Ctrl-C in Python, or another thread of the caller).
    pub fn new(deadline: Option<Instant>, flag: Option<Arc<AtomicBool>>) -> Self {
        StopCheck { deadline, flag, stall: None }
    }

    /// This check with the stall rule: [`StopCheck::stalled`] once the best has not improved
    /// ([`StopCheck::improved`]) for max(`least`, `share` x the time since `start`); never before
    /// the first improvement. Stalled, it stays stopped.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use pgomea::stop::{StopCheck, StopReason};
    /// let stop = StopCheck::never().with_stall(Instant::now(), Duration::from_millis(20), 0.5);
    /// assert!(!stop.stalled(), "no best yet");
    /// stop.improved();
    /// assert!(!stop.stalled());
    /// std::thread::sleep(Duration::from_millis(30));
    /// assert!(stop.stalled());
    /// assert_eq!(stop.reason(), None, "a phase's own check does not stop for a stall");
    /// stop.improved(); // too late: a stalled run stays stopped
    /// assert!(stop.stalled());
    /// ```
    pub fn with_stall(self, start: Instant, least: Duration, share: f64) -> Self {
        let stall = Stall { start, least, share, last: AtomicU64::new(u64::MAX), stalled: AtomicBool::new(false) };
        StopCheck { stall: Some(Arc::new(stall)), ..self }
    }

    /// The time the stall rule leaves from now, where the check has it: until max(`least`,
    /// `share` x the time spent) after the last improvement, counting from now before the first.
    pub fn stall_left(&self) -> Option<Duration> {
        let s = self.stall.as_ref()?;
        let now = s.start.elapsed();
        let last = match s.last.load(Ordering::Relaxed) {
            u64::MAX => now,
            nanos => Duration::from_nanos(nanos),
        };
        Some((last + s.least.max(now.mul_f64(s.share))).saturating_sub(now))
    }

    /// The best improved now (the stall rule's clock, where the check has one).
    pub fn improved(&self) {
        if let Some(s) = &self.stall {
            let now = u64::try_from(s.start.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
            s.last.store(now, Ordering::Relaxed);
        }
    }

    /// Why the run must stop now, if it must: an interruption first, then the time limit. The
    /// stall rule is not asked here but between two steps of the run ([`StopCheck::stalled`]), so
    /// that a generation or an annealing that takes long is not cut off as a stall.
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

    /// Whether the stall rule says stop, where the check has one: the best has not improved for
    /// its span. Asked between two steps of the run (a generation, a new population).
    pub fn stalled(&self) -> bool {
        self.stall.as_ref().is_some_and(|s| s.reached())
    }

    /// `Err(reason)` when the run must stop now (`?` turns it into `Error::Stopped`).
    #[inline]
    pub fn check(&self) -> Result<(), StopReason> {
        match self.reason() {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    /// Whether anything can ever stop a run with this check: a deadline, a flag or the stall
    /// rule. Without any, waiting for the device between pieces of work only to ask it is waste.
    pub fn can_stop(&self) -> bool {
        self.deadline.is_some() || self.flag.is_some() || self.stall.is_some()
    }

    /// The stop flag this check reads, if any (a caller handing the same flag to a run).
    pub fn flag(&self) -> Option<&Arc<AtomicBool>> {
        self.flag.as_ref()
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

    /// `n` values, value i made by `make(i)`, checked every [`WORK_PER_CHECK`] values: an array
    /// over 10^8 variables takes a large fraction of a second to fill. Stopped, what was made so
    /// far is freed aside ([`drop_aside`]).
    pub fn filled<T: Send + 'static>(&self, n: usize, mut make: impl FnMut(usize) -> T) -> Result<Vec<T>, StopReason> {
        self.filled_in_blocks(n, WORK_PER_CHECK, |values, block| values.extend(block.map(&mut make)))
    }

    /// [`StopCheck::filled`] on rayon's threads: value i made by `make(i)`, a block of
    /// 16 x [`WORK_PER_CHECK`] values at a time, checked between blocks. An array of one value
    /// per variable first touches its memory as it is made (10^8 lists take seconds): a
    /// parallel collect over all of them could not be stopped. Stopped, what was made so far is
    /// freed aside ([`drop_aside`]).
    pub fn par_filled<T: Send + 'static>(
        &self,
        n: usize,
        make: impl Fn(usize) -> T + Sync + Send,
    ) -> Result<Vec<T>, StopReason> {
        use rayon::prelude::*;
        self.filled_in_blocks(n, 16 * WORK_PER_CHECK, |values, block| {
            values.par_extend(block.into_par_iter().map(&make))
        })
    }

    /// [`StopCheck::par_filled`] for values that take a while each (a list built, a cluster's
    /// links merged): checked also before every `every`th value within a block, where a stop
    /// makes the block's remaining values `T::default()` at once. Stopped, what was made so far
    /// is freed aside ([`drop_aside`]).
    pub fn par_filled_every<T: Send + Default + 'static>(
        &self,
        n: usize,
        every: usize,
        make: impl Fn(usize) -> T + Sync + Send,
    ) -> Result<Vec<T>, StopReason> {
        let stopped = AtomicBool::new(false);
        let values = self.par_filled(n, |i| {
            if stopped.load(Ordering::Relaxed) || self.every(i, every).is_err() {
                stopped.store(true, Ordering::Relaxed);
                return T::default();
            }
            make(i)
        })?;
        if stopped.into_inner() {
            drop_aside(values);
            return Err(self.reason().unwrap_or(StopReason::Interrupted));
        }
        Ok(values)
    }

    /// `n` values appended by `extend`, `block` indices at a time, checked before each block;
    /// stopped, what was made so far is freed aside.
    fn filled_in_blocks<T: Send + 'static>(
        &self,
        n: usize,
        block: usize,
        mut extend: impl FnMut(&mut Vec<T>, std::ops::Range<usize>),
    ) -> Result<Vec<T>, StopReason> {
        let mut values = Vec::with_capacity(n);
        for start in (0..n).step_by(block) {
            if let Err(reason) = self.check() {
                drop_aside(values);
                return Err(reason);
            }
            extend(&mut values, start..n.min(start + block));
        }
        Ok(values)
    }

    /// `values` sorted by `compare`, stably (equal values keep their order), checked between
    /// pieces of a few milliseconds: a parallel sort of 10^8 values takes seconds unchecked. Runs
    /// of [`SORTED_RUN`] values are sorted on rayon's threads, then merged in pairs, each merge cut
    /// into pieces of [`WORK_PER_CHECK`] values of its output; about twice the time of rayon's
    /// unstable sort, with a second array of `values`' size, freed before it returns. Stopped,
    /// both arrays are freed aside ([`drop_aside`]).
    ///
    /// ```
    /// use pgomea::stop::StopCheck;
    /// let pairs: Vec<(u32, char)> = vec![(2, 'a'), (1, 'b'), (2, 'c'), (0, 'd')];
    /// let sorted = StopCheck::never().sorted_by(pairs, |x, y| x.0.cmp(&y.0))?;
    /// assert_eq!(sorted, [(0, 'd'), (1, 'b'), (2, 'a'), (2, 'c')]);
    /// # Ok::<(), pgomea::stop::StopReason>(())
    /// ```
    pub fn sorted_by<T: Copy + Send + Sync + 'static>(
        &self,
        mut values: Vec<T>,
        compare: impl Fn(&T, &T) -> std::cmp::Ordering + Sync,
    ) -> Result<Vec<T>, StopReason> {
        use rayon::prelude::*;
        let n = values.len();
        let runs = values.par_chunks_mut(SORTED_RUN).try_for_each(|run| {
            self.check()?;
            run.sort_by(&compare);
            Ok(())
        });
        if let Err(reason) = runs {
            drop_aside(values);
            return Err(reason);
        }
        if n <= SORTED_RUN {
            return Ok(values);
        }
        // The merges' second array: every value is written before it is read, so it is filled
        // with one value rather than copied.
        let first = values[0];
        let mut to = match self.par_filled(n, |_| first) {
            Ok(copy) => copy,
            Err(reason) => {
                drop_aside(values);
                return Err(reason);
            }
        };
        let mut from = values;
        let mut width = SORTED_RUN;
        while width < n {
            if let Err(reason) = self.merge_pass(&from, &mut to, width, &compare) {
                drop_aside((from, to));
                return Err(reason);
            }
            std::mem::swap(&mut from, &mut to);
            width *= 2;
        }
        drop(to);
        Ok(from)
    }

    /// One pass of [`StopCheck::sorted_by`]: the sorted runs of `width` values of `from` merged in
    /// pairs into `to`, in pieces of [`WORK_PER_CHECK`] values of output on rayon's threads,
    /// checked before each piece.
    fn merge_pass<T: Copy + Send + Sync>(
        &self,
        from: &[T],
        to: &mut [T],
        width: usize,
        compare: &(impl Fn(&T, &T) -> std::cmp::Ordering + Sync),
    ) -> Result<(), StopReason> {
        use rayon::prelude::*;
        let n = from.len();
        let mut pieces = Vec::new();
        let mut rest = to;
        for start in (0..n).step_by(2 * width) {
            let middle = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (left, right) = (&from[start..middle], &from[middle..end]);
            // Piece by piece: the first `k` values of the merge are left[..i] and right[..k - i].
            let (mut k, mut i) = (0, 0);
            while k < end - start {
                let next = (k + WORK_PER_CHECK).min(end - start);
                let next_i = merged_from_left(left, right, next, compare);
                let (out, tail) = std::mem::take(&mut rest).split_at_mut(next - k);
                pieces.push((&left[i..next_i], &right[k - i..next - next_i], out));
                (rest, k, i) = (tail, next, next_i);
            }
        }
        pieces.into_par_iter().try_for_each(|(left, right, out)| {
            self.check()?;
            let (mut i, mut j) = (0, 0);
            while i < left.len() && j < right.len() {
                // The left value first where they are equal: the sort stays stable.
                if compare(&right[j], &left[i]) == std::cmp::Ordering::Less {
                    out[i + j] = right[j];
                    j += 1;
                } else {
                    out[i + j] = left[i];
                    i += 1;
                }
            }
            let (out_left, out_right) = out[i + j..].split_at_mut(left.len() - i);
            out_left.copy_from_slice(&left[i..]);
            out_right.copy_from_slice(&right[j..]);
            Ok(())
        })
    }

    /// This check with `deadline` instead of its own.
    pub fn with_deadline(self, deadline: Option<Instant>) -> Self {
        StopCheck { deadline, ..self }
    }

    /// This check with `flag` instead of its own.
    pub fn with_flag(self, flag: Option<Arc<AtomicBool>>) -> Self {
        StopCheck { flag, ..self }
    }
}

/// How many of the first `k` values of the stable merge of the sorted `left` and `right` come
/// from `left`: the least i for which right[k - i - 1] comes before left[i] (a binary search).
fn merged_from_left<T>(left: &[T], right: &[T], k: usize, compare: impl Fn(&T, &T) -> std::cmp::Ordering) -> usize {
    let (mut low, mut high) = (k.saturating_sub(right.len()), k.min(left.len()));
    while low < high {
        let i = (low + high) / 2;
        if compare(&right[k - i - 1], &left[i]) == std::cmp::Ordering::Less {
            high = i;
        } else {
            low = i + 1;
        }
    }
    low
}

/// Frees `value` on a thread of its own: a phase that stops drops what it built so far (10^8
/// linkage sets take a third of a second to free), and the stop must not wait for that.
pub fn drop_aside<T: Send + 'static>(value: T) {
    let free = move || {
        // At the lowest priority (Linux: this thread alone), so that on a busy machine the
        // answer is written first.
        #[cfg(target_os = "linux")]
        // SAFETY: setpriority on the calling thread (who 0); a failure leaves its priority as is.
        unsafe {
            libc::setpriority(libc::PRIO_PROCESS, 0, 19);
        }
        drop(value)
    };
    if std::thread::Builder::new().name("pgomea-free".into()).spawn(free).is_err() {
        // No thread to be had: the value was dropped with the closure, here.
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
    fn filled_makes_every_value_in_order_and_checks_between_pieces() {
        let never = StopCheck::never();
        let n = 2 * WORK_PER_CHECK + 3;
        assert_eq!(never.filled(n, |i| i), Ok((0..n).collect::<Vec<_>>()));
        assert_eq!(never.filled(0, |i| i), Ok(Vec::<usize>::new()));
        let past = StopCheck::new(Some(Instant::now() - Duration::from_millis(1)), None);
        assert_eq!(past.filled(n, |i| i), Err(StopReason::TimeLimit));
        // A flag set while the values are made stops at the next piece.
        let flag = Arc::new(AtomicBool::new(false));
        let check = StopCheck::new(None, Some(flag.clone()));
        let mut made = 0;
        let stopped = check.filled(n, |i| {
            made += 1;
            if i == 10 {
                flag.store(true, Ordering::Relaxed);
            }
            i
        });
        assert_eq!((stopped, made), (Err(StopReason::Interrupted), WORK_PER_CHECK));
    }

    #[test]
    fn par_filled_makes_every_value_in_order_and_checks_between_blocks() {
        let never = StopCheck::never();
        let n = 40 * WORK_PER_CHECK + 3;
        assert_eq!(never.par_filled(n, |i| i), Ok((0..n).collect::<Vec<_>>()));
        assert_eq!(never.par_filled(0, |i| i), Ok(Vec::<usize>::new()));
        let past = StopCheck::new(Some(Instant::now() - Duration::from_millis(1)), None);
        assert_eq!(past.par_filled(n, |i| i), Err(StopReason::TimeLimit));
        // A flag set while a block is made stops before the next.
        let flag = Arc::new(AtomicBool::new(false));
        let check = StopCheck::new(None, Some(flag.clone()));
        let made = AtomicU64::new(0);
        let stopped = check.par_filled(n, |i| {
            made.fetch_add(1, Ordering::Relaxed);
            if i == 10 {
                flag.store(true, Ordering::Relaxed);
            }
            i
        });
        assert_eq!((stopped, made.into_inner()), (Err(StopReason::Interrupted), 16 * WORK_PER_CHECK as u64));
    }

    #[test]
    fn sorted_by_is_the_stable_sort_and_checks_between_pieces() {
        // Keys with many ties, each value its place before the sort: a stable sort keeps the
        // places of equal keys ascending. Sizes within one run, at a run's end, and over several
        // runs and passes with a run and a piece cut short.
        let values = |n: usize| -> Vec<(u64, u32)> {
            (0..n as u32).map(|i| (pgomea_device::rng::mix64(i as u64) % (n as u64 / 8 + 1), i)).collect()
        };
        let never = StopCheck::never();
        for n in [0, 1, 7, SORTED_RUN, SORTED_RUN + 1, 2 * SORTED_RUN + WORK_PER_CHECK + 17] {
            let mut expected = values(n);
            expected.sort_by_key(|v| v.0);
            assert_eq!(never.sorted_by(values(n), |x, y| x.0.cmp(&y.0)), Ok(expected), "{n} values");
        }
        // Sorted already, and reversed: the merges take one side whole.
        let n = 3 * SORTED_RUN + 5;
        let ascending: Vec<u32> = (0..n as u32).collect();
        assert_eq!(never.sorted_by(ascending.clone(), |x, y| x.cmp(y)), Ok(ascending.clone()));
        assert_eq!(never.sorted_by(ascending.clone(), |x, y| y.cmp(x)), Ok(ascending.into_iter().rev().collect()));
        let past = StopCheck::new(Some(Instant::now() - Duration::from_millis(1)), None);
        assert_eq!(past.sorted_by(values(10), |x, y| x.0.cmp(&y.0)), Err(StopReason::TimeLimit));
        // A flag set inside the last merge pass (its last quarter of comparisons to come) stops
        // the sort before the next piece of each of two threads.
        let n = 4 * SORTED_RUN;
        let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let counted = |stop: &StopCheck, flag_at: u64| {
            let compared = AtomicU64::new(0);
            let sorted = two.install(|| {
                stop.sorted_by(values(n), |x, y| {
                    if compared.fetch_add(1, Ordering::Relaxed) == flag_at {
                        stop.flag().unwrap().store(true, Ordering::Relaxed);
                    }
                    x.0.cmp(&y.0)
                })
            });
            (sorted.map(|_| ()), compared.into_inner())
        };
        let flagged = || StopCheck::new(None, Some(Arc::new(AtomicBool::new(false))));
        let (whole, total) = counted(&flagged(), u64::MAX);
        assert_eq!(whole, Ok(()));
        // The last pass merges two halves: at least n / 2 comparisons.
        let flag_at = total - n as u64 / 4;
        let (stopped, compared) = counted(&flagged(), flag_at);
        assert_eq!(stopped, Err(StopReason::Interrupted));
        assert!(compared - flag_at <= 2 * WORK_PER_CHECK as u64, "{} comparisons after the flag", compared - flag_at);
    }

    #[test]
    fn a_set_flag_or_a_past_deadline_stops_and_says_why() {
        assert!(StopCheck::never().check().is_ok());
        assert!(!StopCheck::never().can_stop());
        assert!(StopCheck::new(None, Some(Arc::new(AtomicBool::new(false)))).can_stop());
        assert!(StopCheck::never().with_stall(Instant::now(), Duration::from_secs(1), 0.5).can_stop());
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
