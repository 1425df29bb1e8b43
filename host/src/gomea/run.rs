//! The state every optimizer shares during one run: the problem, the clock, the work counters,
//! the elitist (best solution found so far, across all populations), the termination limits and
//! the stop flag, the trace of elitist improvements, and the [`Observer`] the caller listens
//! with (the library itself never prints).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, TryRecvError};
use std::time::{Duration, Instant};

use crate::gomea::budget::AnnealBudget;
pub use crate::gomea::budget::SearchPlan;
use crate::gomea::partition::{self, PartitionMixing};
use crate::problem::{EvaluationCounter, GrayBoxProblem};
use crate::stop::StopCheck;

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
    pub elapsed: Duration,
    pub best_fitness: Option<i64>,
    pub evaluations: f64,
    pub status: &'s str,
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
    /// Partition mixing of the populations' solutions into the elitist, where the run uses it
    /// ([`Run::set_partition_mixing`]).
    partition: Option<PartitionMixing>,
    /// Whether the run mixes (the state above is away while the mixing thread mixes).
    partition_on: bool,
    /// The mixing thread, while the multi-start scheme runs ([`Run::with_mixing_thread`]).
    mixer: Option<Mixer>,
    /// A donor waiting to be mixed into the elitist while the run's next piece of work runs
    /// ([`Run::queue_mix`], or an elitist that [`Run::offer`] displaced).
    queued_mix: Option<Vec<u8>>,
    /// Whether the queued donor is a displaced elitist (a population's best does not replace it).
    queued_displaced: bool,
    /// The last best that each population queued ([`Run::queue_best`]), by population, with the
    /// elitist's version when it was last mixed into the elitist: mixed again while no donor is
    /// queued and the elitist changed since ([`Run::overlapping_mix`]).
    bests: Vec<Option<(Vec<u8>, u64)>>,
    /// Where the search of `bests` for the next one to mix again starts (round robin).
    next_best: usize,
    /// Counts the elitist's changes.
    elitist_version: u64,
    /// The mixes into the elitist done so far, and their time (on a thread of their own where
    /// they overlapped other work).
    pub mixes: MixCount,
}

/// The run's end of its mixing thread ([`Run::with_mixing_thread`]).
struct Mixer {
    jobs: mpsc::Sender<MixJob>,
    mixed: mpsc::Receiver<MixDone>,
    /// The fitness of the elitist's copy that a mix is away with.
    away: Option<i64>,
}

/// A mix for the mixing thread: the mixing state, a copy of the elitist, the donor.
struct MixJob {
    mixing: PartitionMixing,
    genes: Vec<u8>,
    donor: Vec<u8>,
}

/// A mix done: the mixing state back, the mixed copy, what the mix did and how long it took.
struct MixDone {
    mixing: PartitionMixing,
    genes: Vec<u8>,
    report: partition::MixReport,
    took: Duration,
}

/// Partition mixes into the elitist and the time they took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MixCount {
    pub mixes: u64,
    pub seconds: f64,
}

impl<'a> Run<'a> {
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
            partition: None,
            partition_on: false,
            mixer: None,
            queued_mix: None,
            queued_displaced: false,
            bests: Vec::new(),
            next_best: 0,
            elitist_version: 0,
            mixes: MixCount::default(),
        }
    }

    /// Mixes solutions into the elitist from now on where `on` ([`Run::mix_into_elitist`]).
    pub fn set_partition_mixing(&mut self, on: bool) {
        let f = self.problem.functions();
        self.partition = on.then(|| PartitionMixing::new(f));
        self.partition_on = on;
    }

    /// Whether the run mixes solutions into the elitist ([`Run::mix_into_elitist`]).
    pub fn partition_mixing(&self) -> bool {
        self.partition_on
    }

    /// Whether the run mixes every solution of a new population into the elitist: where it
    /// mixes, below [`partition::NEW_POPULATIONS_BELOW`] variables.
    pub fn mixes_new_populations(&self) -> bool {
        self.partition_on && self.problem.variables() < partition::NEW_POPULATIONS_BELOW
    }

    /// Partition mixing of every solution of a new population (rows of l `genes`, their
    /// `fitness`) into the elitist, the fittest first, until the run must stop
    /// ([`Run::mix_into_elitist`]). Does nothing where the run does not mix.
    pub fn mix_population_into_elitist(&mut self, genes: &[u8], fitness: &[i64]) {
        let l = self.problem.variables();
        let mut order: Vec<usize> = (0..fitness.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(fitness[i]), i));
        for i in order {
            if self.should_stop() {
                break;
            }
            self.mix_into_elitist(&genes[i * l..(i + 1) * l]);
        }
    }

    /// Partition mixing of `donor` into the elitist (the module [`crate::gomea::partition`]),
    /// now: the elitist takes the donor's genes (or, on a flip-symmetric problem, its
    /// complement's) on every component of their difference where that improves it. True if the
    /// elitist improved. Does nothing where the run does not mix or has no elitist yet.
    pub fn mix_into_elitist(&mut self, donor: &[u8]) -> bool {
        // The mixing state is away with a mix on the mixing thread: that mix is taken first.
        self.take_mix(true);
        let (Some(mixing), Some(e)) = (self.partition.as_mut(), self.elitist.as_mut()) else {
            return false;
        };
        let start = Instant::now();
        let report = mixing.mix(self.problem.functions(), &mut e.genes, donor, &self.stop_check);
        e.fitness += report.gain;
        self.count_mix(start.elapsed(), report.evaluations);
        if report.gain <= 0 {
            return false;
        }
        self.mixed_elitist_improved();
        true
    }

    /// Queues `donor` to be mixed into the elitist during the run's next piece of work that
    /// allows it ([`Run::overlapping_mix`]); a donor queued before and not yet mixed is dropped,
    /// unless it is an elitist that [`Run::offer`] displaced, which stays and `donor` is dropped.
    /// Does nothing where the run does not mix.
    pub fn queue_mix(&mut self, donor: Vec<u8>) {
        if self.partition_on && !self.queued_displaced {
            self.queued_mix = Some(donor);
        }
    }

    /// [`Run::queue_mix`] for the best of population `population`, which is also kept to be
    /// mixed into the elitist again later, when no donor is queued and the elitist has changed
    /// since its last mix, as long as the run goes on (also once the population is gone). Why:
    /// a population's best, mixed when it improved, may hold the right phase on a region where a
    /// later elitist, from another population, has a domain of the other phase
    /// (`docs/decisions/0016-partition-mixing-donors-and-pieces.md`).
    pub fn queue_best(&mut self, population: usize, donor: Vec<u8>) {
        if !self.partition_on {
            return;
        }
        if self.bests.len() <= population {
            self.bests.resize_with(population + 1, || None);
        }
        // Not mixed yet: no elitist version is its last.
        self.bests[population] = Some((donor.clone(), u64::MAX));
        self.queue_mix(donor);
    }

    /// The next kept best to mix again ([`Run::queue_best`]): its index and a copy.
    fn best_to_mix_again(&mut self) -> Option<(usize, Vec<u8>)> {
        let n = self.bests.len();
        (0..n).map(|k| (self.next_best + k) % n).find_map(|k| match &self.bests[k] {
            Some((genes, version)) if *version != self.elitist_version => Some((k, genes.clone())),
            _ => None,
        })
    }

    /// Runs `body` (the multi-start scheme) with the run's mixing thread, on which
    /// [`Run::overlapping_mix`] mixes donors into copies of the elitist while the scheme's
    /// generations go on; a mix still away when `body` returns is waited for and taken. A run
    /// bounded by time lets a mix span several pieces of work (the elitist takes it after the
    /// first that ends once it is done), so that generations never wait for a mix longer than
    /// themselves; any other run takes each mix right after the piece of work it began with,
    /// whatever the threads' timing, and stays reproducible. (A run bounded by time already
    /// depends on the machine's speed: how many generations fit, how long a new population
    /// anneals.)
    pub fn with_mixing_thread<T>(&mut self, body: impl FnOnce(&mut Self) -> T) -> T {
        let problem = self.problem;
        let f = problem.functions();
        // A mix stops with the run, so that waiting for it never delays a stop.
        let stop = self.stop_check.clone();
        std::thread::scope(|scope| {
            let (jobs, job) = mpsc::channel::<MixJob>();
            let (done, mixed) = mpsc::channel::<MixDone>();
            // The thread ends when the run drops its end of the channel.
            scope.spawn(move || {
                for MixJob { mut mixing, mut genes, donor } in job {
                    let start = Instant::now();
                    let report = mixing.mix(f, &mut genes, &donor, &stop);
                    if done.send(MixDone { mixing, genes, report, took: start.elapsed() }).is_err() {
                        return;
                    }
                }
            });
            self.mixer = Some(Mixer { jobs, mixed, away: None });
            // A scheme that panics drops the channel before unwinding out of the scope, which
            // would otherwise wait for the thread forever (the run outlives the scope).
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut *self)));
            if out.is_ok() {
                self.take_mix(true);
            }
            self.mixer = None;
            out.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// Runs `work` (a generation, the making of a new population) while the mixing thread
    /// ([`Run::with_mixing_thread`]) mixes the donor queued by [`Run::queue_mix`] (else a kept
    /// best that has not met this elitist, [`Run::queue_best`]) into a copy of the elitist,
    /// which replaces the elitist once taken if it is then better. A mix costs O(l + the
    /// difference's incidences) on one core (most of a GPU generation at 10^6 variables): this way
    /// the host's mix and the device's generation overlap
    /// (`docs/decisions/0016-partition-mixing-donors-and-pieces.md`). `work` sees the elitist
    /// without the mix. Where the elitist was displaced by a better solution ([`Run::offer`])
    /// while the mix was away, the mixed copy is queued to be mixed into that one. Without the
    /// mixing thread, `work` runs alone.
    pub fn overlapping_mix<T>(&mut self, work: impl FnOnce(&mut Self) -> T) -> T {
        // A mix away that is done by now is taken; an idle mixing thread starts the next one.
        self.take_mix(false);
        if self.mixer.as_ref().is_some_and(|m| m.away.is_none()) {
            self.start_mix();
        }
        let out = work(self);
        let bounded_by_time = self.limits.time.is_some();
        self.take_mix(!bounded_by_time);
        out
    }

    /// Sends the next donor (queued, else a kept best to mix again) and a copy of the elitist to
    /// the mixing thread, where there are both and the thread is idle.
    fn start_mix(&mut self) {
        // The first elitist displaced from here on holds every mix taken so far.
        self.queued_displaced = false;
        if self.partition.is_none() || self.elitist.is_none() {
            return;
        }
        let mut again = None;
        let queued = self.queued_mix.take().or_else(|| {
            let (k, genes) = self.best_to_mix_again()?;
            again = Some(k);
            Some(genes)
        });
        let (Some(donor), Some(e), Some(mixer)) = (queued, self.elitist.as_ref(), self.mixer.as_mut()) else {
            return;
        };
        if let Some(k) = again {
            self.next_best = k + 1;
            if let Some((_, version)) = &mut self.bests[k] {
                *version = self.elitist_version;
            }
        }
        let Some(mixing) = self.partition.take() else { return };
        let job = MixJob { mixing, genes: e.genes.clone(), donor };
        mixer.away = Some(e.fitness);
        mixer.jobs.send(job).expect("partition mixing: the mixing thread is gone");
    }

    /// Takes the mix away on the mixing thread, waiting for it where `wait`, else only if it is
    /// done: the mixed copy replaces the elitist where it is better; where the elitist was
    /// displaced meanwhile by a better solution, the mixed copy (the displaced elitist with
    /// this mix) is queued to be mixed into its successor instead.
    fn take_mix(&mut self, wait: bool) {
        let Some(mixer) = self.mixer.as_mut() else { return };
        let Some(before) = mixer.away else { return };
        let done = if wait {
            mixer.mixed.recv().map_err(|_| ())
        } else {
            match mixer.mixed.try_recv() {
                Ok(done) => Ok(done),
                Err(TryRecvError::Empty) => return,
                Err(TryRecvError::Disconnected) => Err(()),
            }
        };
        let MixDone { mixing, genes, report, took } = done.expect("partition mixing: the mixing thread panicked");
        mixer.away = None;
        self.partition = Some(mixing);
        self.count_mix(took, report.evaluations);
        let fitness = before + report.gain;
        if report.gain > 0 {
            if let Some(e) = self.elitist.as_mut().filter(|e| e.fitness < fitness) {
                e.genes = genes;
                e.fitness = fitness;
                // An elitist displaced meanwhile is in the mixed copy.
                if self.queued_displaced {
                    self.queued_mix = None;
                    self.queued_displaced = false;
                }
                self.mixed_elitist_improved();
            } else if self.queued_displaced {
                self.queued_mix = Some(genes);
            }
        }
    }

    /// Counts a mix of `took` with its subfunction evaluations.
    fn count_mix(&mut self, took: Duration, evaluations: u64) {
        self.counter.add_subfunctions(evaluations);
        self.mixes.mixes += 1;
        self.mixes.seconds += took.as_secs_f64();
    }

    /// Records the elitist that a mix improved (checked against a full evaluation in tests).
    fn mixed_elitist_improved(&mut self) {
        let Some(e) = self.elitist.as_ref() else { return };
        let fitness = e.fitness;
        if self.verify {
            assert_eq!(
                self.problem.evaluate(&e.genes),
                fitness,
                "partition mixing: the elitist's fitness is not exact"
            );
        }
        self.record_improvement(fitness);
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
    /// Returns true if it did. Where the run mixes, the elitist it displaces is queued to be
    /// mixed into it ([`Run::overlapping_mix`]).
    pub fn offer(&mut self, genes: &[u8], fitness: i64) -> bool {
        if self.elitist.as_ref().is_some_and(|e| e.fitness >= fitness) {
            return false;
        }
        match &mut self.elitist {
            // Where the run mixes, the elitist may hold regions that mixes gave it and that
            // `genes`, a population's solution, lacks: it is queued to be mixed into its
            // successor, so that those stay (`docs/decisions/0016-partition-mixing-donors-and-pieces.md`).
            // The first displaced since the last mix is kept, the one that holds the mixes.
            Some(e) if self.partition_on && !self.queued_displaced => {
                self.queued_mix = Some(std::mem::replace(&mut e.genes, genes.to_vec()));
                self.queued_displaced = true;
                e.fitness = fitness;
            }
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

    /// The trace point, the observer's call and the target check of a new elitist.
    fn record_improvement(&mut self, fitness: i64) {
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

    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stop
    }

    pub fn set_stop(&mut self, reason: StopReason) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A torus, a random genotype of it and a donor that agrees with it outside a few patches.
    fn mixing_case(seed: u64) -> (crate::problem::maxcut::MaxCut, Vec<u8>, Vec<u8>) {
        use crate::problem::generate::{WeightRange, torus};
        use pgomea_device::rng::SplitMix64;
        let p = crate::problem::maxcut::MaxCut::new(torus(24, WeightRange { min: -2, max: 5 }, seed).unwrap()).unwrap();
        let mut rng = SplitMix64::new(seed);
        let x: Vec<u8> = (0..p.variables()).map(|_| rng.coin() as u8).collect();
        let mut d = x.clone();
        for _ in 0..60 {
            d[rng.index(x.len())] ^= 1;
        }
        (p, x, d)
    }

    /// A run of `p` with mixing on, `x` its elitist, checking every fitness.
    fn mixing_run<'p>(p: &'p dyn GrayBoxProblem, x: &[u8]) -> Run<'p> {
        let mut run = Run::new(p, Limits::default());
        run.verify = true;
        run.set_partition_mixing(true);
        assert!(run.offer(x, p.evaluate(x)));
        run
    }

    #[test]
    fn a_queued_mix_runs_beside_the_work_and_is_taken_after_it_as_a_mix_now_would_be() {
        let mut improved = 0;
        for seed in 1..=12 {
            let (p, x, d) = mixing_case(seed);
            // The mix now, one after the other.
            let mut now = mixing_run(&p, &x);
            now.mix_into_elitist(&d);
            // The same mix queued, beside work that reads the elitist.
            let mut beside = mixing_run(&p, &x);
            beside.queue_mix(d.clone());
            let seen = beside.with_mixing_thread(|run| {
                run.overlapping_mix(|run| {
                    assert!(run.partition_mixing(), "the run still mixes while its mix is away");
                    run.elitist().unwrap().genes.clone()
                })
            });
            assert_eq!(seen, x, "the work sees the elitist without the mix");
            let (a, b) = (now.elitist().unwrap(), beside.elitist().unwrap());
            assert_eq!((&a.genes, a.fitness), (&b.genes, b.fitness), "seed {seed}");
            assert_eq!(now.counter.subfunction_evaluations(), beside.counter.subfunction_evaluations());
            assert_eq!((now.mixes.mixes, beside.mixes.mixes), (1, 1));
            assert_eq!(now.trace.len(), beside.trace.len());
            improved += (a.fitness > p.evaluate(&x)) as usize;
            // The queue is empty once taken: the next work runs alone.
            beside.with_mixing_thread(|run| run.overlapping_mix(|_| ()));
            assert_eq!(beside.mixes.mixes, 1);
            // With no work at all, the queued mix is simply done (the end of a scheme).
            let mut last = mixing_run(&p, &x);
            last.queue_mix(d.clone());
            last.with_mixing_thread(|run| run.overlapping_mix(|_| ()));
            assert_eq!(last.elitist().unwrap().genes, a.genes);
        }
        assert!(improved >= 6, "the donors improved {improved} of 12 elitists only");
    }

    #[test]
    fn a_mix_taken_after_work_that_found_better_leaves_the_better() {
        let (p, x, d) = mixing_case(5);
        let mut now = mixing_run(&p, &x);
        assert!(now.mix_into_elitist(&d), "the case's donor improves the elitist");
        let mixed = now.elitist().unwrap().fitness;
        // The work finds a solution better than the mix will give: it stays the elitist.
        let mut best = now.elitist().unwrap().genes.clone();
        let better = (0..best.len())
            .find_map(|v| {
                best[v] ^= 1;
                let f = p.evaluate(&best);
                if f > mixed {
                    return Some(f);
                }
                best[v] ^= 1;
                None
            })
            .expect("a single flip improves the mixed elitist");
        let mut beside = mixing_run(&p, &x);
        beside.queue_mix(d.clone());
        beside.with_mixing_thread(|run| run.overlapping_mix(|run| assert!(run.offer(&best, better))));
        assert_eq!(beside.elitist().unwrap().fitness, better);
        assert_eq!(beside.elitist().unwrap().genes, best);
        // Without mixing nothing is queued.
        let mut off = Run::new(&p, Limits::default());
        off.offer(&x, p.evaluate(&x));
        off.queue_mix(d);
        off.with_mixing_thread(|run| run.overlapping_mix(|_| ()));
        assert_eq!((off.mixes.mixes, off.elitist().unwrap().genes.clone()), (0, x));
    }

    #[test]
    fn a_run_bounded_by_time_goes_on_while_its_mix_is_away_and_takes_it_later() {
        use crate::problem::generate::{WeightRange, torus};
        // A torus large enough that a mix outlasts a piece of work that does nothing.
        const SIDE: usize = 256;
        let p = crate::problem::maxcut::MaxCut::new(torus(SIDE, WeightRange { min: 1, max: 5 }, 7).unwrap()).unwrap();
        let board = |squares: &[(usize, usize)]| -> Vec<u8> {
            let mut x: Vec<u8> = (0..SIDE * SIDE).map(|v| ((v / SIDE + v % SIDE) % 2) as u8).collect();
            for &(r, c) in squares {
                for v in (r..r + 20).flat_map(|i| (c..c + 20).map(move |j| i * SIDE + j)) {
                    x[v] ^= 1;
                }
            }
            x
        };
        // The elitist is wrong on three squares, the donor on two others.
        let (x, d) = (board(&[(10, 10), (100, 40), (200, 200)]), board(&[(60, 60), (150, 150)]));
        let mut now = mixing_run(&p, &x);
        assert!(now.mix_into_elitist(&d));
        let mixed = now.elitist().unwrap().clone();
        let mut returned_away = 0;
        for _ in 0..10 {
            let mut run = Run::new(&p, Limits { time: Some(Duration::from_secs(3600)), ..Limits::default() });
            run.verify = true;
            run.set_partition_mixing(true);
            run.offer(&x, p.evaluate(&x));
            run.queue_mix(d.clone());
            run.with_mixing_thread(|run| {
                run.overlapping_mix(|_| ());
                let away = run.mixer.as_ref().is_some_and(|m| m.away.is_some());
                returned_away += away as usize;
                if away {
                    // Work goes on, seeing the elitist without the mix while it is away. (The mix
                    // may come back between the two calls on a busy machine: then the second call
                    // takes it first, and its work sees the mixed elitist.)
                    run.queue_mix(x.clone());
                    run.overlapping_mix(|run| {
                        let seen = &run.elitist().unwrap().genes;
                        if run.mixes.mixes == 0 { assert_eq!(seen, &x) } else { assert_eq!(seen, &mixed.genes) }
                    });
                }
            });
            // The mix is taken once done, at the latest when the scheme ends.
            let e = run.elitist().unwrap();
            assert_eq!((e.fitness, &e.genes), (mixed.fitness, &mixed.genes));
            assert!(run.mixes.mixes >= 1);
            assert_eq!(run.trace.last().map(|t| t.best_fitness), Some(mixed.fitness));
        }
        assert!(returned_away > 0, "the work waited for the mix in every trial");
    }

    #[test]
    fn a_scheme_that_panics_with_a_mix_away_unwinds_and_ends_the_mixing_thread() {
        let (p, x, d) = mixing_case(3);
        let mut run = mixing_run(&p, &x);
        run.queue_mix(d);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run.with_mixing_thread(|run| run.overlapping_mix(|_| panic!("the scheme fails")))
        }));
        assert!(unwound.is_err());
    }

    /// A bipartite torus of positive weights (its optimum is the checkerboard) and a genotype of
    /// it: the checkerboard with the given squares (row, column, side) of the other phase.
    fn torus_with_domains(squares: &[(usize, usize, usize)]) -> (crate::problem::maxcut::MaxCut, Vec<u8>) {
        use crate::problem::generate::{WeightRange, torus};
        const SIDE: usize = 24;
        let p = crate::problem::maxcut::MaxCut::new(torus(SIDE, WeightRange { min: 1, max: 5 }, 3).unwrap()).unwrap();
        let mut x: Vec<u8> = (0..SIDE * SIDE).map(|v| ((v / SIDE + v % SIDE) % 2) as u8).collect();
        for &(r, c, k) in squares {
            for v in (r..r + k).flat_map(|i| (c..c + k).map(move |j| i * SIDE + j)) {
                x[v] ^= 1;
            }
        }
        (p, x)
    }

    #[test]
    fn an_elitist_displaced_by_a_better_solution_is_mixed_into_it() {
        let (p, optimum) = torus_with_domains(&[]);
        let best = p.evaluate(&optimum);
        // The old elitist is wrong on a large square, the better newcomer on a small one
        // elsewhere, where the old one is right.
        let (_, old) = torus_with_domains(&[(2, 2, 9)]);
        let (_, new) = torus_with_domains(&[(15, 15, 3)]);
        assert!(p.evaluate(&new) > p.evaluate(&old) && p.evaluate(&old) < best);
        let mut run = mixing_run(&p, &old);
        assert!(run.offer(&new, p.evaluate(&new)));
        assert_eq!(run.elitist().unwrap().genes, new);
        // A population's best queued now does not push the displaced elitist out.
        let (_, other) = torus_with_domains(&[(15, 15, 3), (8, 14, 5)]);
        run.queue_mix(other);
        run.with_mixing_thread(|run| run.overlapping_mix(|_| ()));
        assert_eq!(run.mixes.mixes, 1);
        let e = run.elitist().unwrap();
        assert_eq!((e.fitness, &e.genes), (best, &optimum), "the old elitist's region mixed into the new one");
        // Without mixing the old elitist is simply replaced.
        let mut off = Run::new(&p, Limits::default());
        off.offer(&old, p.evaluate(&old));
        off.offer(&new, p.evaluate(&new));
        off.with_mixing_thread(|run| run.overlapping_mix(|_| ()));
        assert_eq!((off.mixes.mixes, off.elitist().unwrap().genes.clone()), (0, new));
    }

    #[test]
    fn a_population_best_is_mixed_again_into_a_later_elitist_until_it_has_met_it() {
        let (p, optimum) = torus_with_domains(&[]);
        // Kept before there is an elitist to mix it into: right where the later elitist is wrong.
        let (_, kept) = torus_with_domains(&[(14, 3, 6)]);
        let mut run = Run::new(&p, Limits::default());
        run.verify = true;
        run.set_partition_mixing(true);
        run.queue_best(0, kept);
        run.with_mixing_thread(|run| {
            run.overlapping_mix(|_| ());
            assert_eq!(run.mixes.mixes, 0, "no elitist yet");
            let (_, later) = torus_with_domains(&[(2, 2, 7)]);
            assert!(run.offer(&later, p.evaluate(&later)));
            // No donor queued: the kept best is mixed again, beside the work.
            run.overlapping_mix(|_| ());
            assert_eq!(run.mixes.mixes, 1);
            assert_eq!(run.elitist().unwrap().genes, optimum);
            // Once more, since the elitist changed with that mix; then not again while it stays.
            run.overlapping_mix(|_| ());
            run.overlapping_mix(|_| ());
            run.overlapping_mix(|_| ());
            assert_eq!(run.mixes.mixes, 2);
        });
        let (_, later) = torus_with_domains(&[(2, 2, 7)]);
        // Without mixing nothing is kept.
        let mut off = Run::new(&p, Limits::default());
        off.queue_best(0, optimum.clone());
        off.offer(&later, p.evaluate(&later));
        off.with_mixing_thread(|run| run.overlapping_mix(|_| ()));
        assert_eq!((off.mixes.mixes, off.elitist().unwrap().genes.clone()), (0, later));
    }
}
