//! The state every optimizer shares during one run: the problem, the clock, the work counters,
//! the elitist (best solution found so far, across all populations), the termination limits, the
//! trace of elitist improvements and the progress lines on stderr.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

use crate::problem::{EvaluationCounter, GrayBoxProblem};

/// When a run ends (whichever comes first). All `None` means: until every population is gone.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub time: Option<Duration>,
    /// In full-evaluation equivalents.
    pub evaluations: Option<f64>,
    pub target: Option<i64>,
}

pub use crate::stop::StopReason;

/// The best solution found so far.
#[derive(Clone, Debug)]
pub struct Elitist {
    pub genes: Vec<u8>,
    pub fitness: i64,
}

/// One row of the trace: the elitist improved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TracePoint {
    pub time_s: f64,
    pub evaluations: f64,
    pub best_fitness: i64,
}

pub struct Run<'a> {
    pub problem: &'a dyn GrayBoxProblem,
    pub counter: EvaluationCounter,
    /// GOM steps: (solution, linkage set) pairs mixed, in GOM and in Forced Improvement.
    pub gom_steps: u64,
    pub limits: Limits,
    start: Instant,
    elitist: Option<Elitist>,
    pub trace: Vec<TracePoint>,
    trace_out: Option<Box<dyn Write + Send + 'a>>,
    /// The first error writing the trace: the run goes on, the caller warns.
    trace_error: Option<String>,
    stop: Option<StopReason>,
    /// The fitness is the same for every genotype: nothing can improve on the first solution.
    constant_fitness: bool,
    /// Progress lines on stderr every `progress_every`; `None` for quiet runs.
    progress_every: Option<Duration>,
    last_progress: Instant,
    /// Extra words for the progress line (live populations), set by the driver.
    pub status: String,
    /// Checks the incremental fitness of every accepted step against a full evaluation (tests).
    pub verify: bool,
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl<'a> Run<'a> {
    pub fn new(problem: &'a dyn GrayBoxProblem, limits: Limits) -> Self {
        let now = Instant::now();
        Run {
            problem,
            counter: EvaluationCounter::default(),
            gom_steps: 0,
            limits,
            start: now,
            elitist: None,
            trace: Vec::new(),
            trace_out: None,
            trace_error: None,
            stop: None,
            constant_fitness: {
                let (low, high) = problem.functions().fitness_bounds();
                low == high
            },
            progress_every: None,
            last_progress: now,
            status: String::new(),
            verify: false,
            interrupt: None,
        }
    }

    /// Writes one CSV row per improvement of the elitist to `out` (with a header).
    pub fn with_trace_writer(mut self, mut out: Box<dyn Write + Send + 'a>) -> Result<Self> {
        writeln!(out, "time_s,evaluations,best_fitness").map_err(|e| Error::io("trace", e))?;
        self.trace_out = Some(out);
        Ok(self)
    }

    /// Counts time (the time limit, the trace, the reported time) from `start` instead of from
    /// now: the command line starts the clock before it reads the instance.
    pub fn with_start(mut self, start: Instant) -> Self {
        self.start = start;
        self.last_progress = start;
        self
    }

    pub fn with_progress(mut self, every: Duration) -> Self {
        self.progress_every = Some(every);
        self
    }

    /// Whether progress and notes go to stderr.
    pub fn verbose(&self) -> bool {
        self.progress_every.is_some()
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    pub fn elitist(&self) -> Option<&Elitist> {
        self.elitist.as_ref()
    }

    pub fn elitist_fitness(&self) -> Option<i64> {
        self.elitist.as_ref().map(|e| e.fitness)
    }

    /// Full-evaluation equivalents so far.
    pub fn evaluations(&self) -> f64 {
        self.counter.evaluations(self.problem.subfunctions())
    }

    /// Offers a solution; it becomes the elitist if strictly better (or if there is none yet).
    /// Returns true if it did.
    pub fn offer(&mut self, genes: &[u8], fitness: i64) -> bool {
        if self.elitist.as_ref().is_some_and(|e| e.fitness >= fitness) {
            return false;
        }
        match &mut self.elitist {
            Some(e) => {
                e.genes.copy_from_slice(genes);
                e.fitness = fitness;
            }
            None => self.elitist = Some(Elitist { genes: genes.to_vec(), fitness }),
        }
        self.record_improvement(fitness);
        true
    }

    /// [`Run::offer`] for a solution that was the elitist before a step changed its `changed`
    /// variables: only those genes are copied. GOM that improves the elitist step after step on
    /// a large instance would otherwise copy the whole genotype at every step.
    pub fn offer_changes(&mut self, genes: &[u8], changed: &[u32], fitness: i64) -> bool {
        let Some(e) = self.elitist.as_mut().filter(|e| e.fitness < fitness) else {
            return false;
        };
        for &v in changed {
            e.genes[v as usize] = genes[v as usize];
        }
        e.fitness = fitness;
        if self.verify {
            assert!(e.genes == genes, "offer_changes: the solution was not the elitist before the step");
        }
        self.record_improvement(fitness);
        true
    }

    /// The trace point, the trace file's row and the target check of a new elitist.
    fn record_improvement(&mut self, fitness: i64) {
        let point =
            TracePoint { time_s: self.elapsed().as_secs_f64(), evaluations: self.evaluations(), best_fitness: fitness };
        self.trace.push(point);
        if let Some(out) = &mut self.trace_out
            && self.trace_error.is_none()
        {
            // A trace that cannot be written must not end the run: the first error is kept for
            // the caller to report, and nothing more is written after it.
            if let Err(e) = writeln!(out, "{:.6},{:.3},{}", point.time_s, point.evaluations, point.best_fitness) {
                self.trace_error = Some(e.to_string());
            }
        }
        if self.limits.target.is_some_and(|t| fitness >= t) {
            self.stop = Some(StopReason::TargetReached);
        }
    }

    /// True when a limit is hit; optimizers call it often enough to honour a time limit.
    pub fn should_stop(&mut self) -> bool {
        if self.stop.is_some() {
            return true;
        }
        if self.interrupt.as_ref().is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed)) {
            self.stop = Some(StopReason::Interrupted);
        } else if self.constant_fitness && self.elitist.is_some() {
            self.stop = Some(StopReason::ConstantFitness);
        } else if self.limits.time.is_some_and(|t| self.elapsed() >= t) {
            self.stop = Some(StopReason::TimeLimit);
        } else if self.limits.evaluations.is_some_and(|e| self.evaluations() >= e) {
            self.stop = Some(StopReason::EvaluationLimit);
        }
        self.report_progress(false);
        self.stop.is_some()
    }

    /// True when the time limit has passed or the run was interrupted (and then the stop reason
    /// says so): what cuts a population's initial evaluation short. An evaluation budget does
    /// not, so that budgeted runs stay those of pgomea 0.1.0 (tests/golden.rs).
    pub fn out_of_time(&mut self) -> bool {
        if matches!(self.stop, Some(StopReason::TimeLimit | StopReason::Interrupted)) {
            return true;
        }
        if self.interrupt.as_ref().is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed)) {
            self.set_stop(StopReason::Interrupted);
            return true;
        }
        if self.limits.time.is_some_and(|t| self.elapsed() >= t) {
            self.set_stop(StopReason::TimeLimit);
            return true;
        }
        false
    }

    /// The time left before the time limit (None without one).
    pub fn time_left(&self) -> Option<Duration> {
        self.limits.time.map(|t| t.saturating_sub(self.elapsed()))
    }

    /// The check of this run's time limit and interrupt flag, for the phases before the first
    /// generation (set-up).
    pub fn stop_check(&self) -> crate::stop::StopCheck {
        crate::stop::StopCheck::new(self.limits.time.map(|t| self.start + t), self.interrupt.clone())
    }

    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stop
    }

    pub fn set_stop(&mut self, reason: StopReason) {
        self.stop.get_or_insert(reason);
    }

    /// A progress line on stderr, at most every `progress_every` unless forced.
    pub fn report_progress(&mut self, force: bool) {
        let Some(every) = self.progress_every else { return };
        if !force && self.last_progress.elapsed() < every {
            return;
        }
        self.last_progress = Instant::now();
        eprintln!(
            "[{:>8.1} s] best {:>10}  evaluations {:>12.1}  {}",
            self.elapsed().as_secs_f64(),
            self.elitist_fitness().map(|f| f.to_string()).unwrap_or_else(|| "-".into()),
            self.evaluations(),
            self.status
        );
    }

    /// Flushes the trace; an error (this one or an earlier write's) is also kept for
    /// [`Run::trace_error`].
    pub fn flush_trace(&mut self) -> Result<()> {
        if let Some(out) = &mut self.trace_out
            && let Err(e) = out.flush()
        {
            self.trace_error.get_or_insert(e.to_string());
        }
        match &self.trace_error {
            Some(e) => Err(Error::usage(format!("the trace could not be written completely: {e}"))),
            None => Ok(()),
        }
    }

    /// The first error writing the trace, if any (the run itself went on).
    pub fn trace_error(&self) -> Option<&str> {
        self.trace_error.as_deref()
    }
}
