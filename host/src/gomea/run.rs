//! The state every optimizer shares during one run: the problem, the clock, the work counters,
//! the elitist (best solution found so far, across all populations), the termination limits and
//! the stop flag, the trace of elitist improvements, and the [`Observer`] the caller listens
//! with (the library itself never prints). A new population's annealing budget is in
//! `gomea::budget`; partition mixing into the elitist, owned by the multi-start scheme,
//! in `gomea::mixing`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::gomea::budget::AnnealBudget;
pub use crate::gomea::budget::SearchPlan;
use crate::problem::{EvaluationCounter, GrayBoxProblem};
use crate::stop::StopCheck;

/// When a run ends (whichever comes first). All `None` means: until every population is gone.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// The most wall-clock time from the run's start.
    pub time: Option<Duration>,
    /// In full-evaluation equivalents.
    pub evaluations: Option<f64>,
    /// A fitness to reach: the run ends as soon as its best is at least this.
    pub target: Option<i64>,
}

pub use crate::stop::StopReason;

/// The best solution found so far.
#[derive(Clone, Debug)]
pub struct Elitist {
    pub(crate) genes: Vec<u8>,
    pub(crate) fitness: i64,
}

/// One row of the trace: the elitist improved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TracePoint {
    /// Seconds since the run's start.
    pub time_s: f64,
    /// Full-evaluation equivalents so far.
    pub evaluations: f64,
    /// The elitist's new fitness.
    pub best_fitness: i64,
}

/// What a caller hears of a run while it goes on (all methods do nothing by default). The CLI
/// prints progress lines and writes the trace file from these; the Python package calls its
/// `on_improvement` callback. Called on the solving thread; keep them quick.
///
/// An observer that collects every improvement of the best solution, and the notes:
///
/// ```
/// use pgomea::gomea::run::{Observer, TracePoint};
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::solve::{Hooks, RunOptions, solve};
///
/// #[derive(Default)]
/// struct Collect {
///     improvements: Vec<(i64, Vec<u8>)>,
///     notes: Vec<String>,
/// }
///
/// impl Observer for Collect {
///     fn improvement(&mut self, point: &TracePoint, genes: &[u8]) {
///         self.improvements.push((point.best_fitness, genes.to_vec()));
///     }
///     fn note(&mut self, note: &str) {
///         self.notes.push(note.to_string());
///     }
/// }
///
/// let problem = pgomea::problem::nk::sliding_window(30, 4, 1)?;
/// let config = RunOptions { max_evaluations: Some(3000.0), ..RunOptions::default() }.resolve(&problem, None)?;
/// let mut seen = Collect::default();
/// let outcome = solve(&problem, &config, Hooks { observer: Some(&mut seen), ..Hooks::default() })?;
/// // Each improvement strictly better than the last, its genes worth its fitness; the last is
/// // the outcome's.
/// assert!(seen.improvements.windows(2).all(|w| w[0].0 < w[1].0));
/// assert!(seen.improvements.iter().all(|(fitness, genes)| problem.evaluate(genes) == *fitness));
/// assert_eq!(seen.improvements.last().map(|i| i.0), Some(outcome.best_fitness));
/// assert_eq!(seen.improvements.len(), outcome.trace.len());
/// # Ok::<(), pgomea::Error>(())
/// ```
pub trait Observer {
    /// The elitist improved: `point` is the new trace row, `genes` the new best solution.
    fn improvement(&mut self, point: &TracePoint, genes: &[u8]) {
        let _ = (point, genes);
    }
    /// A snapshot of the run, about every [`Observer::progress_interval`] (at the run's checks
    /// of its limits), and once more when it ends.
    fn progress(&mut self, progress: &Progress<'_>) {
        let _ = progress;
    }
    /// How often [`Observer::progress`] is wanted (None: never).
    fn progress_interval(&self) -> Option<Duration> {
        None
    }
    /// Something worth telling the user: the backend a run took and why, a fallback, why the
    /// multi-start scheme stopped growing.
    fn note(&mut self, note: &str) {
        let _ = note;
    }
}

/// One progress report: how long the run has gone, its best fitness so far, its evaluations,
/// and what it is doing (the live populations).
#[derive(Clone, Copy, Debug)]
pub struct Progress<'s> {
    /// How long the run has gone.
    pub elapsed: Duration,
    /// The best fitness so far (`None` before the first evaluation).
    pub best_fitness: Option<i64>,
    /// Full-evaluation equivalents so far.
    pub evaluations: f64,
    /// What the run is doing (the live populations), in words.
    pub status: &'s str,
}

/// The state of one run that every phase shares: its clock and limits, its evaluation counter, the elitist and its trace, the observer and why it stopped.
pub struct Run<'a> {
    pub(crate) problem: &'a dyn GrayBoxProblem,
    /// The subfunction evaluations so far.
    pub counter: EvaluationCounter,
    /// GOM steps: (solution, linkage set) pairs mixed, in GOM and in Forced Improvement.
    pub gom_steps: u64,
    pub(crate) limits: Limits,
    start: Instant,
    elitist: Option<Elitist>,
    /// Every improvement of the elitist, in order.
    pub trace: Vec<TracePoint>,
    stop: Option<StopReason>,
    /// The clock (the time limit from `start`) and the caller's stop flag.
    stop_check: StopCheck,
    /// The stop rule of a run without limits is on ([`Run::stop_when_answered`]).
    answer_rule: bool,
    /// The fitness is the same for every genotype: nothing can improve on the first solution.
    constant_fitness: bool,
    observer: Option<&'a mut dyn Observer>,
    last_progress: Instant,
    /// Extra words for progress reports (live populations), set by the driver.
    pub status: String,
    /// Checks the incremental fitness of every accepted step against a full evaluation (tests).
    pub verify: bool,
    /// The annealing budget of new populations: how fast the last whole annealing went, to fit
    /// the next one into its share of the time left ([`Run::fitted_search`]).
    anneal: AnnealBudget,
    /// The donor waiting to be mixed into the elitist, where the run mixes
    /// ([`crate::gomea::mixing::ElitistMixing`]).
    waiting: Waiting,
    /// Counts the elitist's changes.
    elitist_version: u64,
}

/// The donor waiting to be mixed into the elitist while the run's next piece of work runs
/// ([`Run::queue_mix`], or an elitist that [`Run::offer`] displaced): the run keeps it, since an
/// offer may displace the elitist into it; the mixer ([`crate::gomea::mixing::ElitistMixing`],
/// owned by the multi-start scheme) takes it.
#[derive(Debug, Default)]
pub(crate) struct Waiting {
    /// Whether the run mixes solutions into the elitist.
    pub(crate) on: bool,
    pub(crate) donor: Option<Vec<u8>>,
    /// Whether `donor` is a displaced elitist (a population's best does not replace it).
    pub(crate) displaced: bool,
}

impl<'a> Run<'a> {
    /// A run of `problem` within `limits`, its clock started now.
    pub fn new(problem: &'a dyn GrayBoxProblem, limits: Limits) -> Self {
        let now = Instant::now();
        Run {
            problem,
            counter: EvaluationCounter::default(),
            gom_steps: 0,
            stop_check: StopCheck::new(limits.time.and_then(|t| now.checked_add(t)), None),
            limits,
            start: now,
            elitist: None,
            trace: Vec::new(),
            stop: None,
            answer_rule: false,
            constant_fitness: {
                let (low, high) = problem.functions().fitness_bounds();
                low == high
            },
            observer: None,
            last_progress: now,
            status: String::new(),
            verify: false,
            anneal: AnnealBudget::default(),
            waiting: Waiting::default(),
            elitist_version: 0,
        }
    }

    /// Whether the run mixes solutions into the elitist
    /// (`ElitistMixing::set_on`).
    pub fn partition_mixing(&self) -> bool {
        self.waiting.on
    }

    /// Sets whether the run mixes (its mixer's [`crate::gomea::mixing::ElitistMixing::set_on`]).
    pub(crate) fn set_mixing(&mut self, on: bool) {
        self.waiting.on = on;
    }

    /// Queues `donor` to be mixed into the elitist during the run's next piece of work that
    /// allows it (`ElitistMixing::overlapping_mix`); a donor queued
    /// before and not yet mixed is dropped, unless it is an elitist that [`Run::offer`]
    /// displaced, which stays and `donor` is dropped. Does nothing where the run does not mix.
    pub fn queue_mix(&mut self, donor: Vec<u8>) {
        if self.waiting.on && !self.waiting.displaced {
            self.waiting.donor = Some(donor);
        }
    }

    /// The donor waiting to be mixed (the mixer's).
    pub(crate) fn waiting_mut(&mut self) -> &mut Waiting {
        &mut self.waiting
    }

    /// The elitist, for the mixer to mix into.
    pub(crate) fn elitist_mut(&mut self) -> Option<&mut Elitist> {
        self.elitist.as_mut()
    }

    /// Counts the elitist's changes: a kept best is mixed again once the elitist has changed.
    pub(crate) fn elitist_version(&self) -> u64 {
        self.elitist_version
    }

    /// Counts time (the time limit, the trace, the reported time) from `start` instead of from
    /// now: a caller starts the clock before it reads the instance.
    pub fn with_start(mut self, start: Instant) -> Self {
        self.start = start;
        self.last_progress = start;
        self.stop_check = self.stop_check.clone().with_deadline(self.limits.time.and_then(|t| start.checked_add(t)));
        self
    }

    /// Stops the run (at its next check) once `flag` is set: by a signal handler, Ctrl-C in
    /// Python, or another thread of the caller.
    pub fn with_stop_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.stop_check = self.stop_check.clone().with_flag(Some(flag));
        self
    }

    /// The stop rule of a run without limits (`RunConfig::stop_when_answered`): `solve_run`
    /// enumerates a small instance, and the run stops ([`StopReason::Stalled`], between two steps
    /// of the multi-start scheme: [`Run::stalled`]) once its best has not improved for
    /// max(`least`, `share` x the time since the run's start).
    pub fn stop_when_answered(&mut self, least: Duration, share: f64) {
        self.answer_rule = true;
        self.stop_check = self.stop_check.clone().with_stall(self.start, least, share);
        if self.elitist.is_some() {
            self.stop_check.improved();
        }
    }

    /// Whether the run stops when it has its answer ([`Run::stop_when_answered`]).
    pub fn stops_when_answered(&self) -> bool {
        self.answer_rule
    }

    /// Reports improvements, progress and notes to `observer`.
    pub fn with_observer(mut self, observer: &'a mut dyn Observer) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The clock and the stop flag, for phases that run outside the optimizers (set-up).
    pub fn stop_check(&self) -> &StopCheck {
        &self.stop_check
    }

    /// Tells the observer `note`.
    pub fn note(&mut self, note: &str) {
        if let Some(o) = self.observer.as_mut() {
            o.note(note);
        }
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The best solution found so far (`None` before the first evaluation).
    pub fn elitist(&self) -> Option<&Elitist> {
        self.elitist.as_ref()
    }

    /// The best fitness so far (`None` before the first evaluation).
    pub fn elitist_fitness(&self) -> Option<i64> {
        self.elitist.as_ref().map(|e| e.fitness)
    }

    /// Full-evaluation equivalents so far.
    pub fn evaluations(&self) -> f64 {
        self.counter.evaluations(self.problem.subfunctions())
    }

    /// Offers a solution; it becomes the elitist if strictly better (or if there is none yet).
    /// Returns true if it did. Where the run mixes, the elitist it displaces is queued to be
    /// mixed into it (`ElitistMixing::overlapping_mix`).
    pub fn offer(&mut self, genes: &[u8], fitness: i64) -> bool {
        self.offer_genes(std::borrow::Cow::Borrowed(genes), fitness)
    }

    /// [`Run::offer`] of a solution the caller gives away: a first elitist takes it as it is,
    /// without a copy (the answer of a run stopped during the set-up of 10^8 variables).
    pub fn offer_owned(&mut self, genes: Vec<u8>, fitness: i64) -> bool {
        self.offer_genes(std::borrow::Cow::Owned(genes), fitness)
    }

    fn offer_genes(&mut self, genes: std::borrow::Cow<'_, [u8]>, fitness: i64) -> bool {
        if self.elitist.as_ref().is_some_and(|e| e.fitness >= fitness) {
            return false;
        }
        match &mut self.elitist {
            // Where the run mixes, the elitist may hold regions that mixes gave it and that
            // `genes`, a population's solution, lacks: it is queued to be mixed into its
            // successor, so that those stay (`docs/decisions/0016-partition-mixing-donors-and-pieces.md`).
            // The first displaced since the last mix is kept, the one that holds the mixes.
            Some(e) if self.waiting.on && !self.waiting.displaced => {
                self.waiting.donor = Some(std::mem::replace(&mut e.genes, genes.into_owned()));
                self.waiting.displaced = true;
                e.fitness = fitness;
            }
            Some(e) => {
                e.genes.copy_from_slice(&genes);
                e.fitness = fitness;
            }
            None => self.elitist = Some(Elitist { genes: genes.into_owned(), fitness }),
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

    /// The trace point, the observer's call and the target check of a new elitist.
    pub(crate) fn record_improvement(&mut self, fitness: i64) {
        self.elitist_version += 1;
        self.stop_check.improved();
        let point =
            TracePoint { time_s: self.elapsed().as_secs_f64(), evaluations: self.evaluations(), best_fitness: fitness };
        self.trace.push(point);
        if let (Some(o), Some(e)) = (self.observer.as_mut(), self.elitist.as_ref()) {
            o.improvement(&point, &e.genes);
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
        let clock = self.stop_check.reason();
        if clock == Some(StopReason::Interrupted) {
            self.stop = clock;
        } else if self.constant_fitness && self.elitist.is_some() {
            self.stop = Some(StopReason::ConstantFitness);
        } else if clock.is_some() {
            self.stop = clock;
        } else if self.limits.evaluations.is_some_and(|e| self.evaluations() >= e) {
            self.stop = Some(StopReason::EvaluationLimit);
        }
        self.report_progress(false);
        self.stop.is_some()
    }

    /// Whether `subfunction_evaluations` more stay under the evaluation budget (always, without
    /// one): work of that size done at once then ends where checks between its parts would have
    /// let it run anyway, so a run's results do not depend on whether it checked.
    pub fn budget_allows(&self, subfunction_evaluations: u64) -> bool {
        let after = self.counter.subfunction_evaluations().saturating_add(subfunction_evaluations) as f64;
        let m = self.problem.subfunctions().max(1) as f64;
        self.limits.evaluations.is_none_or(|e| after / m < e)
    }

    /// True when the stall rule says stop (and then the stop reason says so): asked between two
    /// steps of the multi-start scheme, never inside a generation or an annealing.
    pub fn stalled(&mut self) -> bool {
        if self.stop.is_none() && self.stop_check.stalled() {
            self.stop = Some(StopReason::Stalled);
        }
        self.stop == Some(StopReason::Stalled)
    }

    /// True when the time limit has passed, the run stalled or was interrupted (and then the stop reason
    /// says so): what cuts a population's initial evaluation short. An evaluation budget does
    /// not, so that budgeted runs stay those of pgomea 0.1.0 (tests/golden.rs).
    pub fn out_of_time(&mut self) -> bool {
        if matches!(self.stop, Some(StopReason::TimeLimit | StopReason::Interrupted | StopReason::Stalled)) {
            return true;
        }
        match self.stop_check.reason() {
            Some(reason) => {
                self.set_stop(reason);
                true
            }
            None => false,
        }
    }

    /// Runs `search`, the annealed local search of a new population of `solutions`, with its
    /// plan: `asked` sweeps, or as many as end within `share` of the time left at the pace of the
    /// last whole annealing (said in a note). While no pace is known (the run's first annealing),
    /// the search fits the rest of its schedule to its own pace as it goes ([`SearchPlan::refit`]);
    /// once it is known, a search that measures its early sweeps ([`SearchPlan::observe`]) is
    /// refitted once, early on, to its own pace as the last search's early sweeps tell it. A
    /// search the run did not stop teaches the next one its pace.
    pub fn fitted_search<T>(
        &mut self,
        asked: u32,
        solutions: usize,
        share: Option<f64>,
        search: impl FnOnce(&mut Self, &mut SearchPlan) -> T,
    ) -> T {
        let mut plan = self.anneal.plan(asked, solutions, share, self.time_left());
        if let Some(note) = plan.fitted_note() {
            self.note(&note);
        }
        let out = search(self, &mut plan);
        if let Some(note) = plan.refitted_note() {
            self.note(&note);
        }
        if !self.should_stop() {
            self.anneal.learn(&plan);
        }
        out
    }

    /// The time left before the time limit (None without one), and under the stop rule of a run
    /// without limits before it would stall ([`Run::stop_when_answered`]): a new population's
    /// annealing is fitted to it, so that it cools before the rule could cut it.
    pub fn time_left(&self) -> Option<Duration> {
        let limit = self.limits.time.map(|t| t.saturating_sub(self.elapsed()));
        match (limit, self.stop_check.stall_left()) {
            (Some(limit), Some(stall)) => Some(limit.min(stall)),
            (limit, stall) => limit.or(stall),
        }
    }

    /// The time left before the time limit alone (None without one).
    pub fn time_to_limit(&self) -> Option<Duration> {
        self.limits.time.map(|t| t.saturating_sub(self.elapsed()))
    }

    /// Why the run stopped (`None` while it goes on).
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stop
    }

    pub(crate) fn set_stop(&mut self, reason: StopReason) {
        self.stop.get_or_insert(reason);
    }

    /// A progress report to the observer, at most every `progress_interval` unless forced.
    pub fn report_progress(&mut self, force: bool) {
        let Some(observer) = self.observer.as_mut() else { return };
        let Some(every) = observer.progress_interval() else { return };
        if !force && self.last_progress.elapsed() < every {
            return;
        }
        self.last_progress = Instant::now();
        let progress = Progress {
            elapsed: self.start.elapsed(),
            best_fitness: self.elitist.as_ref().map(|e| e.fitness),
            evaluations: self.counter.evaluations(self.problem.subfunctions()),
            status: &self.status,
        };
        observer.progress(&progress);
    }
}
