//! Partition mixing into the elitist, as the multi-start scheme drives it ([`ElitistMixing`],
//! owned by [`crate::gomea::ims::Ims`]): every solution of a new population mixed now, below
//! [`partition::NEW_POPULATIONS_BELOW`] variables, and the populations' bests, the elitists they
//! displaced and kept bests mixed on a thread of its own beside the scheme's next piece of work
//! (`docs/decisions/0016-partition-mixing-donors-and-pieces.md`). The run keeps the donor waiting
//! to be mixed ([`crate::gomea::run::Run::queue_mix`]), since its [`crate::gomea::run::Run::offer`]
//! may displace the elitist into it.

use std::sync::mpsc::{self, TryRecvError};
use std::time::{Duration, Instant};

use crate::gomea::partition::{self, PartitionMixing};
use crate::gomea::run::Run;

/// The mixer: the partition mixing state (away on the mixing thread while it mixes), the
/// populations' kept bests, and the count of mixes.
#[derive(Debug, Default)]
pub struct ElitistMixing {
    /// Partition mixing of the populations' solutions into the elitist, where the run uses it
    /// ([`ElitistMixing::set_on`]).
    partition: Option<PartitionMixing>,
    /// The mixing thread, while the multi-start scheme runs ([`ElitistMixing::with_thread`]).
    thread: Option<MixThread>,
    /// The last best that each population queued ([`ElitistMixing::queue_best`]), by population,
    /// with the elitist's version when it was last mixed into the elitist: mixed again while no
    /// donor is queued and the elitist changed since ([`ElitistMixing::overlapping_mix`]).
    bests: Vec<Option<(Vec<u8>, u64)>>,
    /// Where the search of `bests` for the next one to mix again starts (round robin).
    next_best: usize,
    /// The mixes into the elitist done so far, and their time (on a thread of their own where
    /// they overlapped other work).
    pub mixes: MixCount,
}

/// The mixer's end of its mixing thread ([`ElitistMixing::with_thread`]).
#[derive(Debug)]
struct MixThread {
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
    pub(crate) mixes: u64,
    pub(crate) seconds: f64,
}

impl ElitistMixing {
    /// Mixes solutions into `run`'s elitist from now on where `on` ([`ElitistMixing::mix_into_elitist`]).
    pub fn set_on(&mut self, run: &mut Run, on: bool) {
        self.partition = on.then(|| PartitionMixing::new(run.problem.functions()));
        run.set_mixing(on);
    }

    /// Whether the run mixes every solution of a new population into the elitist: where it
    /// mixes, below [`partition::NEW_POPULATIONS_BELOW`] variables.
    pub fn mixes_new_populations(&self, run: &Run) -> bool {
        run.partition_mixing() && run.problem.variables() < partition::NEW_POPULATIONS_BELOW
    }

    /// Partition mixing of every solution of a new population (rows of l `genes`, their
    /// `fitness`) into the elitist, the fittest first, until the run must stop
    /// ([`ElitistMixing::mix_into_elitist`]). Does nothing where the run does not mix.
    pub fn mix_population_into_elitist(&mut self, run: &mut Run, genes: &[u8], fitness: &[i64]) {
        let l = run.problem.variables();
        let mut order: Vec<usize> = (0..fitness.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(fitness[i]), i));
        for i in order {
            if run.should_stop() {
                break;
            }
            self.mix_into_elitist(run, &genes[i * l..(i + 1) * l]);
        }
    }

    /// Partition mixing of `donor` into the elitist (the module [`crate::gomea::partition`]),
    /// now: the elitist takes the donor's genes (or, on a flip-symmetric problem, its
    /// complement's) on every component of their difference where that improves it. True if the
    /// elitist improved. Does nothing where the run does not mix or has no elitist yet.
    pub fn mix_into_elitist(&mut self, run: &mut Run, donor: &[u8]) -> bool {
        // The mixing state is away with a mix on the mixing thread: that mix is taken first.
        self.take_mix(run, true);
        let (problem, stop) = (run.problem, run.stop_check().clone());
        let (Some(mixing), Some(e)) = (self.partition.as_mut(), run.elitist_mut()) else {
            return false;
        };
        let start = Instant::now();
        let report = mixing.mix(problem.functions(), &mut e.genes, donor, &stop);
        e.fitness += report.gain;
        self.count_mix(run, start.elapsed(), report.evaluations);
        if report.gain <= 0 {
            return false;
        }
        mixed_elitist_improved(run);
        true
    }

    /// [`Run::queue_mix`] for the best of population `population`, which is also kept to be
    /// mixed into the elitist again later, when no donor is queued and the elitist has changed
    /// since its last mix, as long as the run goes on (also once the population is gone). Why:
    /// a population's best, mixed when it improved, may hold the right phase on a region where a
    /// later elitist, from another population, has a domain of the other phase
    /// (`docs/decisions/0016-partition-mixing-donors-and-pieces.md`).
    pub fn queue_best(&mut self, run: &mut Run, population: usize, donor: Vec<u8>) {
        if !run.partition_mixing() {
            return;
        }
        if self.bests.len() <= population {
            self.bests.resize_with(population + 1, || None);
        }
        // Not mixed yet: no elitist version is its last.
        self.bests[population] = Some((donor.clone(), u64::MAX));
        run.queue_mix(donor);
    }

    /// The next kept best to mix again ([`ElitistMixing::queue_best`]) into the elitist of
    /// `version`: its index and a copy.
    fn best_to_mix_again(&self, version: u64) -> Option<(usize, Vec<u8>)> {
        let n = self.bests.len();
        (0..n).map(|k| (self.next_best + k) % n).find_map(|k| match &self.bests[k] {
            Some((genes, v)) if *v != version => Some((k, genes.clone())),
            _ => None,
        })
    }

    /// Runs `body` (the multi-start scheme) with the mixing thread, on which
    /// [`ElitistMixing::overlapping_mix`] mixes donors into copies of the elitist while the
    /// scheme's generations go on; a mix still away when `body` returns is waited for and taken.
    /// A run bounded by time lets a mix span several pieces of work (the elitist takes it after
    /// the first that ends once it is done), so that generations never wait for a mix longer
    /// than themselves; any other run takes each mix right after the piece of work it began
    /// with, whatever the threads' timing, and stays reproducible. (A run bounded by time already
    /// depends on the machine's speed: how many generations fit, how long a new population
    /// anneals.) A mix stops with the run, so that waiting for it never delays a stop.
    pub fn with_thread<'a, T>(&mut self, run: &mut Run<'a>, body: impl FnOnce(&mut Self, &mut Run<'a>) -> T) -> T {
        let problem = run.problem;
        let f = problem.functions();
        let stop = run.stop_check().clone();
        std::thread::scope(|scope| {
            let (jobs, job) = mpsc::channel::<MixJob>();
            let (done, mixed) = mpsc::channel::<MixDone>();
            // The thread ends when the mixer drops its end of the channel.
            scope.spawn(move || {
                for MixJob { mut mixing, mut genes, donor } in job {
                    let start = Instant::now();
                    let report = mixing.mix(f, &mut genes, &donor, &stop);
                    if done.send(MixDone { mixing, genes, report, took: start.elapsed() }).is_err() {
                        return;
                    }
                }
            });
            self.thread = Some(MixThread { jobs, mixed, away: None });
            // A scheme that panics drops the channel before unwinding out of the scope, which
            // would otherwise wait for the thread forever (the run outlives the scope).
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut *self, &mut *run)));
            if out.is_ok() {
                self.take_mix(run, true);
            }
            self.thread = None;
            out.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// Runs `work` (a generation, the making of a new population) while the mixing thread
    /// ([`ElitistMixing::with_thread`]) mixes the donor queued by [`Run::queue_mix`] (else a
    /// kept best that has not met this elitist, [`ElitistMixing::queue_best`]) into a copy of the
    /// elitist, which replaces the elitist once taken if it is then better. A mix costs O(l + the
    /// difference's incidences) on one core (most of a GPU generation at 10^6 variables): this way
    /// the host's mix and the device's generation overlap
    /// (`docs/decisions/0016-partition-mixing-donors-and-pieces.md`). `work` sees the elitist
    /// without the mix. Where the elitist was displaced by a better solution ([`Run::offer`])
    /// while the mix was away, the mixed copy is queued to be mixed into that one. Without the
    /// mixing thread, `work` runs alone.
    pub fn overlapping_mix<'a, T>(&mut self, run: &mut Run<'a>, work: impl FnOnce(&mut Run<'a>) -> T) -> T {
        // A mix away that is done by now is taken; an idle mixing thread starts the next one.
        self.take_mix(run, false);
        if self.thread.as_ref().is_some_and(|m| m.away.is_none()) {
            self.start_mix(run);
        }
        let out = work(run);
        let bounded_by_time = run.limits.time.is_some();
        self.take_mix(run, !bounded_by_time);
        out
    }

    /// Sends the next donor (queued, else a kept best to mix again) and a copy of the elitist to
    /// the mixing thread, where there are both and the thread is idle.
    fn start_mix(&mut self, run: &mut Run) {
        // The first elitist displaced from here on holds every mix taken so far.
        run.waiting_mut().displaced = false;
        if self.partition.is_none() || run.elitist().is_none() {
            return;
        }
        let version = run.elitist_version();
        let mut again = None;
        let queued = match run.waiting_mut().donor.take() {
            Some(donor) => Some(donor),
            None => self.best_to_mix_again(version).map(|(k, genes)| {
                again = Some(k);
                genes
            }),
        };
        let (Some(donor), Some(e), Some(thread)) = (queued, run.elitist(), self.thread.as_mut()) else {
            return;
        };
        if let Some(k) = again {
            self.next_best = k + 1;
            if let Some((_, v)) = &mut self.bests[k] {
                *v = version;
            }
        }
        let Some(mixing) = self.partition.take() else { return };
        let job = MixJob { mixing, genes: e.genes.clone(), donor };
        thread.away = Some(e.fitness);
        thread.jobs.send(job).expect("partition mixing: the mixing thread is gone");
    }

    /// Takes the mix away on the mixing thread, waiting for it where `wait`, else only if it is
    /// done: the mixed copy replaces the elitist where it is better; where the elitist was
    /// displaced meanwhile by a better solution, the mixed copy (the displaced elitist with
    /// this mix) is queued to be mixed into its successor instead.
    fn take_mix(&mut self, run: &mut Run, wait: bool) {
        let Some(thread) = self.thread.as_mut() else { return };
        let Some(before) = thread.away else { return };
        let done = if wait {
            thread.mixed.recv().map_err(|_| ())
        } else {
            match thread.mixed.try_recv() {
                Ok(done) => Ok(done),
                Err(TryRecvError::Empty) => return,
                Err(TryRecvError::Disconnected) => Err(()),
            }
        };
        let MixDone { mixing, genes, report, took } = done.expect("partition mixing: the mixing thread panicked");
        thread.away = None;
        self.partition = Some(mixing);
        self.count_mix(run, took, report.evaluations);
        let fitness = before + report.gain;
        if report.gain <= 0 {
            return;
        }
        let displaced = run.waiting_mut().displaced;
        match run.elitist_mut().filter(|e| e.fitness < fitness) {
            Some(e) => {
                e.genes = genes;
                e.fitness = fitness;
                // An elitist displaced meanwhile is in the mixed copy.
                if displaced {
                    let waiting = run.waiting_mut();
                    waiting.donor = None;
                    waiting.displaced = false;
                }
                mixed_elitist_improved(run);
            }
            None if displaced => run.waiting_mut().donor = Some(genes),
            None => {}
        }
    }

    /// Counts a mix of `took` with its subfunction evaluations.
    fn count_mix(&mut self, run: &mut Run, took: Duration, evaluations: u64) {
        run.counter.add_subfunctions(evaluations);
        self.mixes.mixes += 1;
        self.mixes.seconds += took.as_secs_f64();
    }
}

/// Records the elitist that a mix improved (checked against a full evaluation in tests).
fn mixed_elitist_improved(run: &mut Run) {
    let Some(e) = run.elitist() else { return };
    let fitness = e.fitness;
    if run.verify {
        assert_eq!(run.problem.evaluate(&e.genes), fitness, "partition mixing: the elitist's fitness is not exact");
    }
    run.record_improvement(fitness);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gomea::run::Limits;
    use crate::problem::GrayBoxProblem;

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

    /// A run of `p` with mixing on, `x` its elitist, checking every fitness, and its mixer.
    fn mixing_run<'p>(p: &'p dyn GrayBoxProblem, x: &[u8]) -> (Run<'p>, ElitistMixing) {
        let mut run = Run::new(p, Limits::default());
        run.verify = true;
        let mut mixing = ElitistMixing::default();
        mixing.set_on(&mut run, true);
        assert!(run.offer(x, p.evaluate(x)));
        (run, mixing)
    }

    #[test]
    fn a_queued_mix_runs_beside_the_work_and_is_taken_after_it_as_a_mix_now_would_be() {
        let mut improved = 0;
        for seed in 1..=12 {
            let (p, x, d) = mixing_case(seed);
            // The mix now, one after the other.
            let (mut now, mut now_m) = mixing_run(&p, &x);
            now_m.mix_into_elitist(&mut now, &d);
            // The same mix queued, beside work that reads the elitist.
            let (mut beside, mut beside_m) = mixing_run(&p, &x);
            beside.queue_mix(d.clone());
            let seen = beside_m.with_thread(&mut beside, |m, run| {
                m.overlapping_mix(run, |run| {
                    assert!(run.partition_mixing(), "the run still mixes while its mix is away");
                    run.elitist().unwrap().genes.clone()
                })
            });
            assert_eq!(seen, x, "the work sees the elitist without the mix");
            let (a, b) = (now.elitist().unwrap(), beside.elitist().unwrap());
            assert_eq!((&a.genes, a.fitness), (&b.genes, b.fitness), "seed {seed}");
            assert_eq!(now.counter.subfunction_evaluations(), beside.counter.subfunction_evaluations());
            assert_eq!((now_m.mixes.mixes, beside_m.mixes.mixes), (1, 1));
            assert_eq!(now.trace.len(), beside.trace.len());
            improved += (a.fitness > p.evaluate(&x)) as usize;
            // The queue is empty once taken: the next work runs alone.
            beside_m.with_thread(&mut beside, |m, run| m.overlapping_mix(run, |_| ()));
            assert_eq!(beside_m.mixes.mixes, 1);
            // With no work at all, the queued mix is simply done (the end of a scheme).
            let (mut last, mut last_m) = mixing_run(&p, &x);
            last.queue_mix(d.clone());
            last_m.with_thread(&mut last, |m, run| m.overlapping_mix(run, |_| ()));
            assert_eq!(last.elitist().unwrap().genes, a.genes);
        }
        assert!(improved >= 6, "the donors improved {improved} of 12 elitists only");
    }

    #[test]
    fn a_mix_taken_after_work_that_found_better_leaves_the_better() {
        let (p, x, d) = mixing_case(5);
        let (mut now, mut now_m) = mixing_run(&p, &x);
        assert!(now_m.mix_into_elitist(&mut now, &d), "the case's donor improves the elitist");
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
        let (mut beside, mut beside_m) = mixing_run(&p, &x);
        beside.queue_mix(d.clone());
        beside_m.with_thread(&mut beside, |m, run| m.overlapping_mix(run, |run| assert!(run.offer(&best, better))));
        assert_eq!(beside.elitist().unwrap().fitness, better);
        assert_eq!(beside.elitist().unwrap().genes, best);
        // Without mixing nothing is queued.
        let mut off = Run::new(&p, Limits::default());
        let mut off_m = ElitistMixing::default();
        off.offer(&x, p.evaluate(&x));
        off.queue_mix(d);
        off_m.with_thread(&mut off, |m, run| m.overlapping_mix(run, |_| ()));
        assert_eq!((off_m.mixes.mixes, off.elitist().unwrap().genes.clone()), (0, x));
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
        let (mut now, mut now_m) = mixing_run(&p, &x);
        assert!(now_m.mix_into_elitist(&mut now, &d));
        let mixed = now.elitist().unwrap().clone();
        let mut returned_away = 0;
        for _ in 0..10 {
            let mut run = Run::new(&p, Limits { time: Some(Duration::from_secs(3600)), ..Limits::default() });
            run.verify = true;
            let mut run_m = ElitistMixing::default();
            run_m.set_on(&mut run, true);
            run.offer(&x, p.evaluate(&x));
            run.queue_mix(d.clone());
            run_m.with_thread(&mut run, |m, run| {
                m.overlapping_mix(run, |_| ());
                let away = m.thread.as_ref().is_some_and(|t| t.away.is_some());
                returned_away += away as usize;
                if away {
                    // Work goes on, seeing the elitist without the mix while it is away. (The mix
                    // may come back between the two calls on a busy machine: then the second call
                    // takes it first, and its work sees the mixed elitist.)
                    run.queue_mix(x.clone());
                    m.overlapping_mix(run, |run| {
                        let seen = &run.elitist().unwrap().genes;
                        if run.elitist_fitness() == Some(p.evaluate(&x)) {
                            assert_eq!(seen, &x)
                        } else {
                            assert_eq!(seen, &mixed.genes)
                        }
                    });
                }
            });
            // The mix is taken once done, at the latest when the scheme ends.
            let e = run.elitist().unwrap();
            assert_eq!((e.fitness, &e.genes), (mixed.fitness, &mixed.genes));
            assert!(run_m.mixes.mixes >= 1);
            assert_eq!(run.trace.last().map(|t| t.best_fitness), Some(mixed.fitness));
        }
        assert!(returned_away > 0, "the work waited for the mix in every trial");
    }

    #[test]
    fn a_scheme_that_panics_with_a_mix_away_unwinds_and_ends_the_mixing_thread() {
        let (p, x, d) = mixing_case(3);
        let (mut run, mut run_m) = mixing_run(&p, &x);
        run.queue_mix(d);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_m.with_thread(&mut run, |m, run| m.overlapping_mix(run, |_| panic!("the scheme fails")))
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
        let (mut run, mut run_m) = mixing_run(&p, &old);
        assert!(run.offer(&new, p.evaluate(&new)));
        assert_eq!(run.elitist().unwrap().genes, new);
        // A population's best queued now does not push the displaced elitist out.
        let (_, other) = torus_with_domains(&[(15, 15, 3), (8, 14, 5)]);
        run.queue_mix(other);
        run_m.with_thread(&mut run, |m, run| m.overlapping_mix(run, |_| ()));
        assert_eq!(run_m.mixes.mixes, 1);
        let e = run.elitist().unwrap();
        assert_eq!((e.fitness, &e.genes), (best, &optimum), "the old elitist's region mixed into the new one");
        // Without mixing the old elitist is simply replaced.
        let mut off = Run::new(&p, Limits::default());
        let mut off_m = ElitistMixing::default();
        off.offer(&old, p.evaluate(&old));
        off.offer(&new, p.evaluate(&new));
        off_m.with_thread(&mut off, |m, run| m.overlapping_mix(run, |_| ()));
        assert_eq!((off_m.mixes.mixes, off.elitist().unwrap().genes.clone()), (0, new));
    }

    #[test]
    fn a_population_best_is_mixed_again_into_a_later_elitist_until_it_has_met_it() {
        let (p, optimum) = torus_with_domains(&[]);
        // Kept before there is an elitist to mix it into: right where the later elitist is wrong.
        let (_, kept) = torus_with_domains(&[(14, 3, 6)]);
        let mut run = Run::new(&p, Limits::default());
        run.verify = true;
        let mut run_m = ElitistMixing::default();
        run_m.set_on(&mut run, true);
        run_m.queue_best(&mut run, 0, kept);
        run_m.with_thread(&mut run, |m, run| {
            m.overlapping_mix(run, |_| ());
            assert_eq!(m.mixes.mixes, 0, "no elitist yet");
            let (_, later) = torus_with_domains(&[(2, 2, 7)]);
            assert!(run.offer(&later, p.evaluate(&later)));
            // No donor queued: the kept best is mixed again, beside the work.
            m.overlapping_mix(run, |_| ());
            assert_eq!(m.mixes.mixes, 1);
            assert_eq!(run.elitist().unwrap().genes, optimum);
            // Once more, since the elitist changed with that mix; then not again while it stays.
            m.overlapping_mix(run, |_| ());
            m.overlapping_mix(run, |_| ());
            m.overlapping_mix(run, |_| ());
            assert_eq!(m.mixes.mixes, 2);
        });
        let (_, later) = torus_with_domains(&[(2, 2, 7)]);
        // Without mixing nothing is kept.
        let mut off = Run::new(&p, Limits::default());
        let mut off_m = ElitistMixing::default();
        off_m.queue_best(&mut off, 0, optimum.clone());
        off.offer(&later, p.evaluate(&later));
        off_m.with_thread(&mut off, |m, run| m.overlapping_mix(run, |_| ()));
        assert_eq!((off_m.mixes.mixes, off.elitist().unwrap().genes.clone()), (0, later));
    }
}
