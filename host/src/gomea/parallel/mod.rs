//! Parallel GOMEA (Algorithms 3 and 4 of the paper): per generation O = clone(P); for each colour
//! group, in a random order, the six stages of `pgomea_device::stage` (in the passes of
//! `group_passes`: one or three for GOM, as the backend runs faster, three for Forced
//! Improvement); then P = O and the elitist is updated.
//! No Forced Improvement (the paper's choice). The generation loop is written once, here, over
//! [`Stages`], the stage schedule of one population, itself written once over a
//! [`StageDevice`]: the CPU backend and the CUDA backend (`crate::backend`) only hold the buffers
//! and run the device crate's steps.

pub mod layout;
pub(crate) mod stages;
pub(crate) mod state;

use std::sync::Arc;
use std::time::{Duration, Instant};

use pgomea_device::gom::forced_improvement_patience;
use pgomea_device::rng::{SplitMix64, streams};
use pgomea_device::stage::{Pass, Stage};

use self::layout::GroupLayout;
pub use self::stages::{StageDevice, Stages};
pub use self::state::StageState;
use super::local_search::{AnnealStart, SearchCalls, per_call};
use super::population::best_index;
use super::run::{Run, SearchPlan, StopReason};
use super::{LocalSearchMode, Population, PopulationEngine};
use crate::error::{Error, Result};

/// The longest whole generation that a device which does not check the stop itself
/// ([`StageDevice::watch`]) runs at once: a stop (the time limit, a signal) lands between its
/// groups otherwise, well within the 0.5 s that every stop is given.
pub const UNCHECKED_GENERATION: Duration = Duration::from_millis(100);

/// Time spent per stage, summed over groups and generations (with `timing` on, each stage is
/// followed by a synchronisation, so the sum is the stage's own time including launch overhead).
#[derive(Clone, Debug, Default)]
pub struct StageTimes {
    /// In the order of `Stage::ALL`.
    pub stages: [Duration; 6],
    /// Wall time of whole generations; minus the stages, the host's own work per generation.
    pub generations: Duration,
    pub(crate) groups_run: u64,
}

/// The hybrid parts of parallel GOMEA (the paper's future work), off in the paper's variant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hybrid {
    /// Parallel Forced Improvement after GOM, for the solutions serial GOMEA's rule picks.
    pub forced_improvement: bool,
    /// When local search runs.
    pub local_search: LocalSearchMode,
    /// Annealing sweeps of each local search before its greedy descent.
    pub anneal_sweeps: u32,
    /// The largest share of the time left that the annealing of the new population may take
    /// (its sweeps fitted to it: [`Run::fitted_search`]); `None`: all it asks for.
    pub anneal_share: Option<f64>,
    /// Where the new population's annealing begins in its schedule (Halfway for a population
    /// started from the elitist).
    pub anneal_start: AnnealStart,
}

/// Parallel GOMEA's generation loop over one population on a backend: GOM colour group by colour group, and the hybrid parts where they are on.
pub struct ParallelGomea<'a> {
    backend: Stages<'a>,
    layout: Arc<GroupLayout>,
    seed: u64,
    n: usize,
    generations: u64,
    fitness: Vec<i64>,
    hybrid: Hybrid,
    /// Generations since each solution last improved (Forced Improvement's rule).
    stretch: Vec<u32>,
    /// Measure each stage (synchronises after every stage: slower, for benchmarks).
    pub timing: Option<StageTimes>,
    group_order: Vec<u32>,
    /// The wall time of the last generation whose groups ran at once (None before one).
    last_generation: Option<Duration>,
    /// Each colour group's time when it last ran alone, waited for (GOM's, then Forced
    /// Improvement's): a group is not begun where the time limit could not hold it.
    group_times: [Vec<Duration>; 2],
}

impl<'a> ParallelGomea<'a> {
    /// `fitness`: of the initial population the backend holds (already offered to the run). The
    /// paper's variant (no Forced Improvement, no local search); see [`ParallelGomea::hybrid`].
    pub fn new(backend: Stages<'a>, layout: Arc<GroupLayout>, seed: u64, fitness: Vec<i64>) -> Self {
        let n = fitness.len();
        ParallelGomea {
            backend,
            layout,
            seed,
            n,
            generations: 0,
            fitness,
            hybrid: Hybrid::default(),
            stretch: vec![0; n],
            timing: None,
            group_order: Vec::new(),
            last_generation: None,
            group_times: [Vec::new(), Vec::new()],
        }
    }

    /// With the hybrid parts `hybrid`: a local search of the initial population now when it is
    /// on (counted in `run`), Forced Improvement and the offspring's local search in every
    /// generation as chosen. Local search needs the layout's variable colours.
    pub fn hybrid(mut self, hybrid: Hybrid, run: &mut Run) -> Result<Self> {
        if hybrid.local_search != LocalSearchMode::Off
            && self.layout.variable_colors.colors() == 0
            && self.layout.variables > 0
        {
            return Err(Error::Internal("local search needs the layout's variable colours".into()));
        }
        self.hybrid = hybrid;
        if hybrid.local_search != LocalSearchMode::Off {
            let elitist = run
                .elitist()
                .ok_or_else(|| Error::Internal("parallel GOM needs an evaluated population".into()))?
                .clone();
            self.backend.start_generation(&elitist.genes, elitist.fitness, &self.fitness)?;
            run.fitted_search(hybrid.anneal_sweeps, self.n, hybrid.anneal_share, |run, plan| {
                self.search_offspring(run, u32::MAX, plan, hybrid.anneal_start)
            })?;
            self.fitness = self.backend.finish_generation()?;
            self.offer_best(run)?;
        }
        Ok(self)
    }
    pub(crate) fn backend(&self) -> &Stages<'a> {
        &self.backend
    }

    pub(crate) fn backend_mut(&mut self) -> &mut Stages<'a> {
        &mut self.backend
    }

    /// The order of the colour groups in generation `generation`, of GOM (`stream`
    /// `streams::GROUP_ORDER`) or of Forced Improvement (`streams::FORCED_ORDER`): drawn on the
    /// host from the seed.
    fn shuffle_groups(&mut self, stream: u64, generation: u64) {
        self.group_order.clear();
        self.group_order.extend(0..self.layout.groups() as u32);
        SplitMix64::stream(self.seed, stream ^ generation.wrapping_mul(streams::GENERATION_MIX))
            .shuffle(&mut self.group_order);
    }

    /// The groups of the announced order: all at once where the backend can and nothing needs
    /// to look between groups, else one by one (with per-stage timing, the run's checks, and
    /// `on_group` after each). Counts the work in `run`.
    fn run_groups(
        &mut self,
        run: &mut Run,
        per_group: bool,
        forced: bool,
        on_group: &mut dyn FnMut(&Stages, u32) -> Result<()>,
    ) -> Result<()> {
        // A device that checks the stop itself (the CPU backend) ends a whole generation within
        // a group of a solution of any stop. Any other (the GPU) runs the groups one by one with
        // the stop checked (and the device waited for) between them, so that a stop lands
        // within one group: wherever a whole generation is not known to be short
        // ([`UNCHECKED_GENERATION`]), and near the time limit. A generation of a large population
        // on the GPU takes seconds; the first of a population counts as long until one has been
        // timed. A run that nothing can stop (no limit, flag or stall rule: the self-test's) runs
        // whole generations whatever their time, so that which kernels run does not depend on
        // the machine's load.
        let watched = self.backend.watch(run.stop_check());
        let near_limit = !watched
            && run.stop_check().can_stop()
            && (self.last_generation.is_none_or(|g| g > UNCHECKED_GENERATION)
                || run.time_left().is_some_and(|left| self.last_generation.is_none_or(|g| left < 2 * g)));
        // Likewise where the evaluation budget could run out within the groups: one by one, they
        // stop at the same group on every backend.
        let deps = self.layout.dep_offsets.last().copied().unwrap_or(0) as u64;
        let at_once = !per_group
            && self.timing.is_none()
            && !run.verify
            && !near_limit
            && run.budget_allows(self.n as u64 * deps)
            && !run.should_stop();
        if at_once && self.backend.run_all_groups()? {
            run.counter.add_subfunctions(self.n as u64 * deps);
            if !forced {
                run.gom_steps += (self.n * self.layout.slot_set.len()) as u64;
            }
            return Ok(());
        }
        let mut times = std::mem::take(&mut self.group_times[forced as usize]);
        times.resize(self.layout.groups(), Duration::ZERO);
        let mut begun: Option<(usize, Instant)> = None;
        for idx in 0..self.group_order.len() {
            if near_limit {
                self.backend.synchronize()?;
                if let Some((g, t)) = begun.take() {
                    times[g] = t.elapsed();
                }
            }
            if run.should_stop() {
                break;
            }
            let g = self.group_order[idx];
            // A group's passes cannot stop inside, and one of a large, nearly converged population
            // takes seconds on the GPU (its donor searches walk most of the population): one that
            // took longer than the time left before the limit when it last ran is not begun, and
            // the run ends at its limit now, not seconds after it
            // (`docs/decisions/0031-groups-begun-within-the-limit.md`).
            if near_limit {
                if run.time_to_limit().is_some_and(|left| times[g as usize] > left) {
                    run.set_stop(StopReason::TimeLimit);
                    break;
                }
                begun = Some((g as usize, Instant::now()));
            }
            let step = idx as u32;
            match self.timing.as_mut() {
                // Each stage alone, each followed by a synchronisation.
                Some(times) if !forced => {
                    for stage in Stage::ALL {
                        let ts = Instant::now();
                        self.backend.pass(Pass::stage(stage), step)?;
                        self.backend.synchronize()?;
                        times.stages[stage.index()] += ts.elapsed();
                    }
                    times.groups_run += 1;
                }
                _ => {
                    for &pass in self.backend.group_passes() {
                        self.backend.pass(pass, step)?;
                    }
                }
            }
            run.counter.add_subfunctions((self.n * self.layout.deps(g as usize).len()) as u64);
            if !forced {
                run.gom_steps += (self.n * self.layout.slots(g as usize).len()) as u64;
            }
            if run.verify {
                // O' == O and the incremental fitness is exact after every group.
                let st = self.backend.state()?;
                assert_eq!(st.offspring, st.work, "the working copy differs from the offspring after group {g}");
                self.verify(run, &st.offspring, &st.fitness, &format!("group {g}"));
            }
            on_group(&self.backend, g)?;
        }
        if let Some((g, t)) = begun {
            // The last group's time too (the generation's end waits for the device anyway).
            self.backend.synchronize()?;
            times[g] = t.elapsed();
        }
        self.group_times[forced as usize] = times;
        Ok(())
    }

    /// Every fitness against a full evaluation (tests: `run.verify`).
    fn verify(&self, run: &Run, genes: &[u8], fitness: &[i64], when: &str) {
        let l = self.layout.variables;
        for i in 0..self.n {
            let full = run.problem.evaluate(&genes[i * l..(i + 1) * l]);
            assert_eq!(
                fitness[i], full,
                "incremental fitness of solution {i} differs from a full evaluation after {when}"
            );
        }
    }

    /// Parallel Forced Improvement after GOM (ARCHITECTURE.md, the stages): for the solutions
    /// GOM did not change or that have not improved for 1 + floor(log10 n) generations, with the
    /// run's elitist (improved by this generation's offspring first) as the donor.
    fn forced_improvement(
        &mut self,
        run: &mut Run,
        per_group: bool,
        on_group: &mut dyn FnMut(&Stages, u32) -> Result<()>,
    ) -> Result<()> {
        let (fitness, changed) = self.backend.mixed()?;
        let best = best_index(&fitness[..self.n]);
        if run.elitist_fitness().is_none_or(|f| fitness[best] > f) {
            let genes = self.backend.offspring(best)?;
            run.offer(&genes, fitness[best]);
        }
        let patience = forced_improvement_patience(self.n);
        let in_fi: Vec<u8> = (0..self.n).map(|i| (changed[i] == 0 || self.stretch[i] > patience) as u8).collect();
        let count = in_fi.iter().filter(|&&x| x != 0).count();
        if count == 0 || run.should_stop() {
            return Ok(());
        }
        let elitist =
            run.elitist().ok_or_else(|| Error::Internal("parallel GOM needs an evaluated population".into()))?.clone();
        self.backend.begin_forced_improvement(&in_fi, &elitist.genes)?;
        self.shuffle_groups(streams::FORCED_ORDER, self.generations);
        self.backend.begin_groups(self.generations as u32, &self.group_order, true)?;
        self.run_groups(run, per_group, true, on_group)?;
        run.gom_steps += (count * self.layout.slot_set.len()) as u64;
        self.backend.end_forced_improvement(elitist.fitness)?;
        if run.verify {
            let st = self.backend.state()?;
            self.verify(run, &st.offspring, &st.fitness, "forced improvement");
        }
        Ok(())
    }

    /// Local search of every solution of O, counted in `run`: each round of a solution evaluates
    /// every variable's subfunctions once. `stream` numbers the search for its random numbers:
    /// the generation, or `u32::MAX` for the initial population; `plan` its annealing sweeps
    /// (refitted on the way where it adapts).
    fn search_offspring(
        &mut self,
        run: &mut Run,
        stream: u32,
        plan: &mut SearchPlan,
        start: AnnealStart,
    ) -> Result<()> {
        let per_round = super::local_search::evaluations_per_round(run.problem.functions());
        // Call by call, the clock checked between them; a search the clock cuts short keeps
        // what it reached (the fitness stays exact).
        let per_call = per_call(per_round, self.n, self.backend.least_per_call());
        let mut calls = SearchCalls::starting(stream, plan.sweeps, per_call, start);
        let mut descending = true;
        let mut work = 0.0;
        while let Some(step) = calls.next(descending) {
            if run.should_stop() {
                return Ok(());
            }
            let rounds;
            (rounds, descending) = self.backend.search_offspring(step, run.stop_check())?;
            run.counter.add_subfunctions(rounds * per_round);
            if step.descent_rounds == 0 {
                work += f64::from(step.to - step.from) * self.n as f64;
                if start == AnnealStart::Hot {
                    plan.observe(work, f64::from(step.to) / f64::from(step.sweeps.max(1)));
                }
                let (sweeps, done) = (u64::from(step.sweeps), u64::from(step.to));
                // At most the rest of the schedule asked for, at the same share of it.
                let most = (u64::from(plan.asked()) * (sweeps - done) / sweeps.max(1)) as u32;
                if let Some(fit) = plan.refit(work, self.n, step.sweeps - step.to, most) {
                    // The rest of the schedule in `fit` sweeps: a schedule of `total` sweeps
                    // that has done the same share of itself as this one has.
                    plan.sweeps = (u64::from(fit) * sweeps).div_ceil(sweeps - done).min(u64::from(u32::MAX)) as u32;
                    calls = SearchCalls::rescaled(step, plan.sweeps, per_call);
                }
            }
        }
        plan.ran(work);
        // The sweeps each solution ran: a schedule refitted near its end names a long one of
        // which little was left.
        plan.sweeps = (work / self.n.max(1) as f64).round() as u32;
        if run.verify {
            let st = self.backend.state()?;
            self.verify(run, &st.offspring, &st.fitness, "local search");
        }
        Ok(())
    }

    /// Offers P's best solution to the run when it beats the elitist.
    fn offer_best(&mut self, run: &mut Run) -> Result<()> {
        let best = best_index(&self.fitness);
        if run.elitist_fitness().is_none_or(|f| self.fitness[best] > f) {
            let genes = self.backend.solution(best)?;
            if run.verify {
                assert_eq!(
                    self.fitness[best],
                    run.problem.evaluate(&genes),
                    "fitness of the best solution differs from a full evaluation"
                );
            }
            run.offer(&genes, self.fitness[best]);
        }
        Ok(())
    }

    /// One generation; with `per_group`, the groups run one by one and `on_group` is called after
    /// every group (tests compare backends there); otherwise the backend may run them all at once.
    pub fn generation_with(
        &mut self,
        run: &mut Run,
        per_group: bool,
        mut on_group: impl FnMut(&Stages, u32) -> Result<()>,
    ) -> Result<()> {
        let t0 = Instant::now();
        let elitist =
            run.elitist().ok_or_else(|| Error::Internal("parallel GOM needs an evaluated population".into()))?;
        self.backend.start_generation(&elitist.genes, elitist.fitness, &self.fitness)?;
        self.shuffle_groups(streams::GROUP_ORDER, self.generations);
        let generation = self.generations as u32;
        self.backend.begin_groups(generation, &self.group_order, false)?;
        self.run_groups(run, per_group, false, &mut on_group)?;
        if self.hybrid.forced_improvement && !run.should_stop() {
            self.forced_improvement(run, per_group, &mut on_group)?;
        }
        if self.hybrid.local_search == LocalSearchMode::Offspring && !run.should_stop() {
            let mut plan = SearchPlan::fixed(self.hybrid.anneal_sweeps);
            self.search_offspring(run, self.generations as u32, &mut plan, AnnealStart::Hot)?;
        }
        let parents = std::mem::replace(&mut self.fitness, self.backend.finish_generation()?);
        if !per_group && self.timing.is_none() && !run.verify {
            self.last_generation = Some(t0.elapsed());
        }
        for (i, s) in self.stretch.iter_mut().enumerate() {
            *s = if self.fitness[i] > parents[i] { 0 } else { *s + 1 };
        }
        self.generations += 1;
        self.offer_best(run)?;
        if let Some(times) = self.timing.as_mut() {
            times.generations += t0.elapsed();
        }
        Ok(())
    }
}

impl PopulationEngine for ParallelGomea<'_> {
    fn size(&self) -> usize {
        self.n
    }
    fn generation(&mut self, run: &mut Run) -> Result<()> {
        self.generation_with(run, false, |_, _| Ok(()))
    }
    fn generations(&self) -> u64 {
        self.generations
    }
    fn average_fitness(&self) -> f64 {
        self.fitness.iter().map(|&f| f as f64).sum::<f64>() / self.n.max(1) as f64
    }
    fn converged(&self) -> bool {
        self.fitness.iter().all(|&f| f == self.fitness[0]) && self.backend.genotypes_equal().unwrap_or(false)
    }
    fn population(&self) -> Result<Population> {
        self.backend.population()
    }
    fn best_fitness(&self) -> i64 {
        self.fitness[best_index(&self.fitness)]
    }
    fn best_solution(&self) -> Result<Vec<u8>> {
        self.backend.solution(best_index(&self.fitness))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu;
    use crate::gomea::local_search::SearchStep;
    use crate::gomea::run::Limits;
    use crate::linkage::fos::Fos;
    use crate::problem::GrayBoxProblem;
    use crate::problem::generate::{WeightRange, torus};
    use crate::problem::maxcut::MaxCut;
    use crate::stop::StopCheck;
    use std::time::Instant;

    /// The CPU's device with each pass `per_pass` longer and no stop of its own (as the GPU's).
    struct Slow<'a> {
        inner: Box<dyn StageDevice + 'a>,
        per_pass: Duration,
    }

    impl StageDevice for Slow<'_> {
        fn copy(&mut self, from: usize, to: usize) -> Result<()> {
            self.inner.copy(from, to)
        }
        fn fill(&mut self, buffer: usize, byte: u8) -> Result<()> {
            self.inner.fill(buffer, byte)
        }
        fn upload(&mut self, buffer: usize, offset: usize, bytes: &[u8]) -> Result<()> {
            self.inner.upload(buffer, offset, bytes)
        }
        fn download(&self, buffer: usize, offset: usize, out: &mut [u8]) -> Result<()> {
            self.inner.download(buffer, offset, out)
        }
        fn pass(&mut self, pass: Pass, step: u32, group: u32, forced: bool) -> Result<()> {
            std::thread::sleep(self.per_pass);
            self.inner.pass(pass, step, group, forced)
        }
        fn run_all_groups(&mut self, _forced: bool) -> Result<bool> {
            Ok(false)
        }
        fn one_pass(&self) -> bool {
            self.inner.one_pass()
        }
        fn search(&mut self, step: SearchStep, stop: &StopCheck) -> Result<u64> {
            self.inner.search(step, stop)
        }
        fn least_per_call(&self) -> u32 {
            self.inner.least_per_call()
        }
        fn mark_elitist(&mut self) -> Result<()> {
            self.inner.mark_elitist()
        }
        fn mark_converged(&mut self) -> Result<()> {
            self.inner.mark_converged()
        }
        fn end_forced_improvement(&mut self, elitist_fitness: i64) -> Result<()> {
            self.inner.end_forced_improvement(elitist_fitness)
        }
        fn synchronize(&mut self) -> Result<()> {
            self.inner.synchronize()
        }
    }

    #[test]
    fn a_group_that_took_longer_than_the_time_left_is_not_begun() {
        const SIDE: usize = 8;
        let p = MaxCut::new(torus(SIDE, WeightRange { min: -3, max: 5 }, 4).unwrap()).unwrap();
        let l = p.variables();
        // Single-variable sets on an even torus: two colour groups, the checkerboard's.
        let groups: Vec<Vec<u32>> =
            (0..2).map(|c| (0..l).filter(|v| (v / SIDE + v % SIDE) % 2 == c).map(|v| v as u32).collect()).collect();
        let layout = Arc::new(GroupLayout::new(&p, &Fos::univariate(l), &groups, &StopCheck::never()).unwrap());
        let n = 8;
        let mut rng = SplitMix64::new(9);
        let genes: Vec<u8> = (0..n * l).map(|_| rng.coin() as u8).collect();
        let fitness: Vec<i64> = genes.chunks(l).map(|x| p.evaluate(x)).collect();
        let population = Population { n, l, genes, fitness: fitness.clone() };
        let pool = Arc::new(cpu::thread_pool(Some(1)).unwrap());
        let per_pass = Duration::from_millis(150);
        let device = Slow { inner: cpu::new_device(&p, layout.clone(), n, 3, pool), per_pass };
        let stages = Stages::new(Box::new(device), layout.clone(), &population).unwrap();
        let group = per_pass * stages.group_passes().len() as u32;
        // The limit falls half a group into the second generation: its first group is not begun.
        let limit = 2 * group + group / 2;
        let mut run = Run::new(&p, Limits { time: Some(limit), ..Limits::default() });
        let best = best_index(&fitness);
        run.offer(population.solution(best), fitness[best]);
        let mut engine = ParallelGomea::new(stages, layout, 3, fitness);
        let start = Instant::now();
        while !run.should_stop() {
            engine.generation(&mut run).unwrap();
        }
        let ended = start.elapsed();
        assert_eq!(run.stop_reason(), Some(StopReason::TimeLimit));
        assert!(ended < limit, "ended at {ended:?}, the limit {limit:?}, a group {group:?}");
    }
}
