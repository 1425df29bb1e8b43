//! Serial GOMEA (Algorithms 1 and 2 of the paper): for each solution, GOM over every linkage set in
//! a random order with a random donor from the population, partial evaluations, the acceptance
//! rule of [`pgomea_device::gom::accept`], then Forced Improvement where the solution did not change
//! or has not improved for too long.
//!
//! The donor search ([`first_differing_donor`]) and the evaluation of each subfunction (the
//! problem kind's `delta`) are the device crate's, the code parallel GOM runs on both targets.

use std::sync::Arc;

use pgomea_device::crew::Lane;
use pgomea_device::gom::{DonorOrder, NO_DONOR, accept, first_differing_donor};
use pgomea_device::problem::Kind;
use pgomea_device::rng::SplitMix64;

use super::local_search::{AnnealSchedule, AnnealStart, SearchCalls, SearchStep, VariableColors, per_call};
use super::population::{PopulationStart, new_population};
use super::run::{Run, SearchPlan};
use super::{LocalSearchMode, Population, PopulationEngine};
use crate::error::Result;
use crate::linkage::fos::Fos;
use crate::problem::{GrayBoxProblem, PartialEvaluation, kind_visitor};
use crate::stop::StopCheck;

/// Linkage sets between two looks at the clock within one solution's GOM or FI: a solution of a
/// million variables has two million sets and takes seconds.
const CLOCK_SETS: usize = 1024;

/// The order in which GOM visits the linkage sets of one solution.
#[derive(Clone, Debug)]
pub enum FosOrder {
    /// A uniformly random permutation per solution (classic GOMEA).
    Random,
    /// The order parallel GOM imposes ("parOrder"): colour groups in random order, the sets of a
    /// group in random order. Holds the groups (set indices).
    Colored(Arc<Vec<Vec<u32>>>),
}

/// Where the linkage model comes from.
#[derive(Clone, Debug)]
pub enum LinkageSource {
    /// Fixed for the whole run (univariate, FLT, BFLT).
    Static(Arc<Fos>),
    /// Learned from the population at the start of every generation (LT, mutual information).
    Learned,
}

/// What serial GOMEA does in each generation of one population.
#[derive(Clone, Debug)]
pub struct SerialConfig {
    /// Forced Improvement (the elitist as donor) for a solution that GOM did not change or that has
    /// not improved for longer than its patience.
    pub forced_improvement: bool,
    /// The order of the linkage sets in a generation.
    pub order: FosOrder,
    /// The linkage sets, fixed or learned every generation.
    pub linkage: LinkageSource,
    /// Colour-grouped local search, sequential (the same flips as parallel GOMEA's, one solution
    /// at a time): when, and the variables' colour groups.
    pub local_search: Option<LocalSearchSetting>,
    /// How the population begins (set per population by the multi-start scheme's factory).
    pub start: PopulationStart,
}

/// Serial GOMEA's colour-grouped local search: when, on which colour groups, and with which annealing.
#[derive(Clone, Debug)]
pub struct LocalSearchSetting {
    /// When local search runs.
    pub mode: LocalSearchMode,
    /// The variables' colour groups.
    pub colors: Arc<VariableColors>,
    /// The annealing schedule.
    pub anneal: Arc<AnnealSchedule>,
    /// Annealing sweeps before the greedy descent.
    pub sweeps: u32,
    /// The largest share of the time left that the annealing of a new population may take
    /// (its sweeps fitted to it: [`Run::fitted_search`]); `None`: all it asks for.
    pub share: Option<f64>,
    /// Where the annealing begins in its schedule (set per population).
    pub start: AnnealStart,
    /// The threads that anneal a new population's solutions side by side (none, or one: one
    /// after another; `docs/decisions/0030-serial-annealing-side-by-side.md`).
    pub threads: Option<Arc<rayon::ThreadPool>>,
}

pub(crate) struct SerialGomea<'a, K: Kind> {
    config: SerialConfig,
    problem: &'a dyn GrayBoxProblem,
    /// The problem's kind over its host arrays (valid while `problem` lives).
    kind: K,
    population: Population,
    offspring: Population,
    no_improvement_stretch: Vec<u32>,
    rng: SplitMix64,
    /// The population's seed (local search's random numbers).
    seed: u64,
    generations: u64,
    fos: Arc<Fos>,
    // Scratch, kept to avoid allocation per GOM step.
    order: Vec<u32>,
    changed: Vec<u32>,
    /// The solution being mixed with the donor's genes on the current set (equal to it between
    /// steps).
    trial: Vec<u8>,
    partial: PartialEvaluation,
    elitist_copy: Vec<u8>,
    /// Per variable, how many parents have the gene 1 (the parents do not change during a
    /// generation): whether any donor differs from a solution on a set follows from these in
    /// O(|set|), without the search through the population.
    ones: Vec<u32>,
}

/// Serial GOMEA on `problem` with a new random population of size `n`, fully evaluated (counted
/// in `run`); None when the run had to stop during that evaluation (never for a run's first
/// population: [`super::population::random_population`]).
pub fn new_engine<'a>(
    config: SerialConfig,
    problem: &'a dyn GrayBoxProblem,
    n: usize,
    seed: u64,
    run: &mut Run,
) -> Option<Box<dyn PopulationEngine + 'a>> {
    kind_visitor! {
        struct Make<'a, 'r, 'p> {
            config: SerialConfig,
            problem: &'a dyn GrayBoxProblem,
            n: usize,
            seed: u64,
            run: &'r mut Run<'p>,
        }
        fn visit<K>(kind) -> Option<Box<dyn PopulationEngine + 'a>> {
            let engine = SerialGomea::new(config, problem, kind, n, seed, run)?;
            Some(Box::new(engine))
        }
    }
    problem.functions().with_kind(Make { config, problem, n, seed, run })
}

/// One solution's local search, call by call ([`SearchCalls`]): what it gained, the annealing
/// sweeps it ran, the calls' subfunction rounds. The caller asks the stop between calls.
struct SolutionSearch {
    calls: SearchCalls,
    descending: bool,
    gain: i64,
    ran: u32,
    /// `seed`, `stream` and `solution`: the search's random numbers.
    ids: (u64, u32, u32),
}

impl SolutionSearch {
    /// A solution's search on `problem`: the subfunction evaluations of one round, and the
    /// sweeps or rounds of a call (the host keeps the gains and asks the stop inside a call).
    fn call_size<K: Kind>(problem: &dyn GrayBoxProblem) -> (u64, u32) {
        let per_round = super::local_search::evaluations_per_round(problem.functions());
        (per_round, per_call(per_round, 1, Self::least_per_call::<K>()))
    }

    /// The fewest sweeps or rounds of a call.
    fn least_per_call<K: Kind>() -> u32 {
        super::local_search::least_per_call::<K>(true)
    }

    fn new(ls: &LocalSearchSetting, ids: (u64, u32, u32), per_call: u32) -> Self {
        SolutionSearch {
            calls: SearchCalls::starting(ids.1, ls.sweeps, per_call, ls.start),
            descending: true,
            gain: 0,
            ran: 0,
            ids,
        }
    }

    /// The next call on `genes`: its step and subfunction rounds, or None when the search is done.
    ///
    /// # Safety
    ///
    /// `kind` is the kind of the problem whose variables `ls.colors` colours, and `genes` holds
    /// its l genes.
    unsafe fn call<K: Kind>(
        &mut self,
        kind: &K,
        ls: &LocalSearchSetting,
        genes: &mut [u8],
        stop: &StopCheck,
    ) -> Option<(SearchStep, u64)> {
        let step = self.calls.next(self.descending)?;
        let (seed, _, solution) = self.ids;
        // SAFETY: the caller's precondition.
        let (g, rounds, d) = unsafe {
            super::local_search::search_genotype(kind, &ls.colors, &ls.anneal, seed, step, solution, genes, stop)
        };
        self.gain += g;
        self.descending = d;
        if step.descent_rounds == 0 {
            self.ran += step.to - step.from;
        }
        Some((step, rounds))
    }
}

/// Local search of one solution (its fitness updated), counted in `run`; an improvement is
/// offered to the run. Returns the annealing sweeps it ran.
/// `seed`, `stream` and `solution` number the search's random numbers (annealing). With `plan`
/// (the plan of a new population searched as `solutions` solutions one after another, this
/// solution the first), the search refits the plan after each call where it adapts
/// ([`SearchPlan::refit`]): its own rest and the others' sweeps.
#[allow(clippy::too_many_arguments)]
fn search_solution<K: Kind>(
    kind: &K,
    problem: &dyn GrayBoxProblem,
    ls: &LocalSearchSetting,
    ids: (u64, u32, u32),
    genes: &mut [u8],
    fitness: &mut i64,
    run: &mut Run,
    mut plan: Option<(&mut SearchPlan, usize)>,
) -> u32 {
    // Call by call, the clock checked between them (a search cut short keeps what it reached).
    let stop = run.stop_check().clone();
    let (per_round, mut per_call) = SolutionSearch::call_size::<K>(problem);
    if let Some((plan, _)) = &plan {
        per_call = plan.timing_call(per_call, SolutionSearch::least_per_call::<K>());
    }
    let mut search = SolutionSearch::new(ls, ids, per_call);
    while !run.should_stop() {
        // SAFETY: `kind` is the kind of `problem`, the colours colour its variables, `genes`
        // holds l genes.
        let Some((step, rounds)) = (unsafe { search.call(kind, ls, genes, &stop) }) else { break };
        run.counter.add_subfunctions(rounds * per_round);
        if step.descent_rounds == 0 {
            // Every solution of the population (this one's rest included) as if it had its
            // whole schedule still to run: a refit that errs towards ending early.
            if let Some((plan, solutions)) = plan.as_mut()
                && let Some(fit) = plan.refit(f64::from(search.ran), *solutions, step.sweeps, plan.asked())
            {
                // This search goes on from the same share of a schedule of `fit` sweeps.
                plan.sweeps = fit;
                search.calls = SearchCalls::rescaled(step, fit, per_call);
            }
        }
    }
    settle(problem, search.gain, genes, fitness, run);
    search.ran
}

/// A searched solution's gain added to its fitness (checked against a full evaluation in the
/// tests' runs), and an improvement offered to the run.
fn settle(problem: &dyn GrayBoxProblem, gain: i64, genes: &[u8], fitness: &mut i64, run: &mut Run) {
    if gain != 0 {
        *fitness += gain;
        if run.verify {
            assert_eq!(
                *fitness,
                problem.evaluate(genes),
                "incremental fitness differs from a full evaluation after local search"
            );
        }
        if gain > 0 {
            run.offer(genes, *fitness);
        }
    }
}

/// The local search of solutions `first..` of a new population (genes and fitness), side by side
/// on `threads`, each its whole schedule of `ls.sweeps` with the same flips as one after another;
/// counted in `run` and offered to it in the solutions' order afterwards. Each search asks the
/// clock and the stop flag between its calls, and ends once any solution reaches the run's
/// target. Returns the solution-sweeps they ran.
#[allow(clippy::too_many_arguments)]
fn search_side_by_side<K: Kind>(
    kind: &K,
    problem: &dyn GrayBoxProblem,
    ls: &LocalSearchSetting,
    threads: &rayon::ThreadPool,
    seed: u64,
    population: &mut Population,
    first: usize,
    run: &mut Run,
) -> f64 {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (per_round, per_call) = SolutionSearch::call_size::<K>(problem);
    let stop = run.stop_check().clone();
    let target = run.limits.target;
    let reached = AtomicBool::new(false);
    let l = population.l;
    let (genes, fitness) = (&mut population.genes[first * l..], &population.fitness[first..]);
    let searched: Vec<(i64, u32, u64)> = threads.install(|| {
        genes
            .par_chunks_mut(l.max(1))
            .zip(fitness.par_iter())
            .enumerate()
            .map(|(k, (genes, &fitness))| {
                let mut search = SolutionSearch::new(ls, (seed, u32::MAX, (first + k) as u32), per_call);
                let mut rounds = 0;
                while stop.reason().is_none() && !reached.load(Ordering::Relaxed) {
                    // SAFETY: as in `search_solution`; each task searches only its own solution.
                    let Some((_, r)) = (unsafe { search.call(kind, ls, genes, &stop) }) else { break };
                    rounds += r;
                    if target.is_some_and(|t| fitness + search.gain >= t) {
                        reached.store(true, Ordering::Relaxed);
                    }
                }
                (search.gain, search.ran, rounds)
            })
            .collect()
    });
    let mut ran = 0.0;
    for (k, (gain, sweeps, rounds)) in searched.into_iter().enumerate() {
        let i = first + k;
        run.counter.add_subfunctions(rounds * per_round);
        let (genes, fitness) = (&population.genes[i * l..(i + 1) * l], &mut population.fitness[i]);
        settle(problem, gain, genes, fitness, run);
        ran += f64::from(sweeps);
    }
    ran
}

impl<'a, K: Kind> SerialGomea<'a, K> {
    /// A new random population of size `n`, fully evaluated (counted in `run`); `kind` is the
    /// kind of `problem`'s subfunctions. None when the run had to stop during the evaluation.
    fn new(
        config: SerialConfig,
        problem: &'a dyn GrayBoxProblem,
        kind: K,
        n: usize,
        seed: u64,
        run: &mut Run,
    ) -> Option<Self> {
        let mut rng = SplitMix64::new(seed);
        let (mut population, anneal_start) = new_population(problem, config.start, n, &mut rng, run)?;
        let l = problem.variables();
        if let Some(ls) = &config.local_search {
            // Side by side on the run's threads where nothing needs the searches one after
            // another: under an evaluation budget they end at the same call on every machine.
            let threads =
                (ls.threads.as_deref()).filter(|t| t.current_num_threads() > 1 && run.limits.evaluations.is_none());
            run.fitted_search(ls.sweeps, n, ls.share, |run, plan| {
                let mut work = 0.0;
                let mut next = 0;
                // The first solution's search tells the pace where none was known, alone; the
                // others then follow side by side, as many at once as there are threads.
                if threads.is_none() || plan.adapts() {
                    let ls = LocalSearchSetting { start: anneal_start, ..ls.clone() };
                    let one_after_another = 1 + threads.map_or(n - 1, |t| (n - 1).div_ceil(t.current_num_threads()));
                    let (genes, fitness) = (&mut population.genes[..l], &mut population.fitness[0]);
                    let plan = Some((&mut *plan, one_after_another));
                    work +=
                        f64::from(search_solution(&kind, problem, &ls, (seed, u32::MAX, 0), genes, fitness, run, plan));
                    next = 1;
                }
                let ls = LocalSearchSetting { sweeps: plan.sweeps, start: anneal_start, ..ls.clone() };
                match threads {
                    Some(threads) => {
                        work += search_side_by_side(&kind, problem, &ls, threads, seed, &mut population, next, run);
                    }
                    None => {
                        for i in next..n {
                            let (genes, fitness) =
                                (&mut population.genes[i * l..(i + 1) * l], &mut population.fitness[i]);
                            let ids = (seed, u32::MAX, i as u32);
                            work += f64::from(search_solution(&kind, problem, &ls, ids, genes, fitness, run, None));
                        }
                    }
                }
                plan.ran(work);
            });
        }
        let fos = match &config.linkage {
            LinkageSource::Static(f) => f.clone(),
            LinkageSource::Learned => Arc::new(Fos::univariate(l)),
        };
        Some(SerialGomea {
            offspring: population.clone(),
            population,
            problem,
            kind,
            no_improvement_stretch: vec![0; n],
            rng,
            seed,
            generations: 0,
            fos,
            order: Vec::new(),
            changed: Vec::new(),
            trial: vec![0; l],
            partial: PartialEvaluation::new(problem.functions()),
            elitist_copy: Vec::new(),
            ones: vec![0; l],
            config,
        })
    }

    /// Fills `self.order` with this solution's visiting order of the linkage sets.
    fn draw_order(&mut self) {
        self.order.clear();
        match &self.config.order {
            FosOrder::Random => {
                self.order.extend(0..self.fos.len() as u32);
                self.rng.shuffle(&mut self.order);
            }
            FosOrder::Colored(groups) => {
                let mut group_order: Vec<u32> = (0..groups.len() as u32).collect();
                self.rng.shuffle(&mut group_order);
                for g in group_order {
                    let start = self.order.len();
                    self.order.extend_from_slice(&groups[g as usize]);
                    self.rng.shuffle(&mut self.order[start..]);
                }
            }
        }
    }

    /// One GOM step on `o` (fitness `f_o`) over the variables in `self.changed`, whose new genes
    /// are already in `self.trial`: partial evaluation, the acceptance rule, and `o` takes the
    /// genes if accepted (else `trial` is restored). Returns the delta if accepted.
    fn try_step(&mut self, o: &mut [u8], f_o: i64, is_elitist: bool, run: &mut Run) -> Option<i64> {
        // SAFETY: `kind` is the kind of `problem`'s subfunctions; `o` and `trial` hold l genes
        // and differ on `changed` alone.
        let (delta, evaluated) =
            unsafe { self.partial.delta(&self.kind, self.problem.functions(), &self.changed, o, &self.trial) };
        run.counter.add_subfunctions(evaluated as u64);
        let accepted = accept(delta, true, is_elitist);
        for &v in &self.changed {
            if accepted {
                o[v as usize] = self.trial[v as usize];
            } else {
                self.trial[v as usize] = o[v as usize];
            }
        }
        if accepted && run.verify {
            assert_eq!(
                f_o + delta,
                self.problem.evaluate(o),
                "incremental fitness differs from a full evaluation after a GOM step"
            );
        }
        accepted.then_some(delta)
    }

    /// GOM on solution i (written into `offspring`); returns whether any step was accepted.
    /// Stops early when the time is up (see [`CLOCK_SETS`]).
    fn gom(&mut self, i: usize, run: &mut Run) -> bool {
        let (n, l) = (self.population.n, self.population.l);
        self.draw_order();
        let mut changed_any = false;
        let mut o = std::mem::take(&mut self.offspring.genes);
        let oi = i * l..(i + 1) * l;
        self.trial.copy_from_slice(&o[oi.clone()]);
        let mut f_o = self.offspring.fitness[i];
        // Whether o is the elitist: computed again only when o or the elitist change.
        let mut is_elitist = run.elitist().is_some_and(|e| e.fitness == f_o && e.genes == o[oi.clone()]);
        run.gom_steps += self.order.len() as u64;
        for k in 0..self.order.len() {
            if k % CLOCK_SETS == CLOCK_SETS - 1 && run.out_of_time() {
                break;
            }
            let set = self.fos.set(self.order[k] as usize);
            let oi_genes = &o[oi.clone()];
            // Donor: the first solution, in a random order, whose genes differ from o on the set.
            let donors = DonorOrder::from_bits(self.rng.next_u64(), self.rng.next_u64(), n as u32);
            let pop = &self.population.genes;
            let parent = &pop[oi.clone()];
            // A donor exists iff some parent other than i differs from o at some variable of the
            // set: the gene counts say so without the search, which would visit all n parents
            // to find none (most often so in a converged population).
            let exists = set.iter().any(|&v| {
                let (g, ones) = (oi_genes[v as usize], self.ones[v as usize]);
                let differing = if g == 1 { n as u32 - ones } else { ones };
                differing > (parent[v as usize] != g) as u32
            });
            if !exists {
                continue;
            }
            // SAFETY: a lane is its whole crew: it tests the whole set (from 0 by 1).
            let d = unsafe {
                first_differing_donor(&Lane, &donors, i as u32, set.len(), |c, _, _| {
                    let donor = &pop[c as usize * l..(c as usize + 1) * l];
                    set.iter().any(|&v| donor[v as usize] != oi_genes[v as usize])
                })
            };
            debug_assert_ne!(d, NO_DONOR, "the gene counts promised a donor");
            if d == NO_DONOR {
                continue;
            }
            let donor = &pop[d as usize * l..(d as usize + 1) * l];
            self.changed.clear();
            for &v in set {
                if donor[v as usize] != oi_genes[v as usize] {
                    self.changed.push(v);
                    self.trial[v as usize] = donor[v as usize];
                }
            }
            if let Some(delta) = self.try_step(&mut o[oi.clone()], f_o, is_elitist, run) {
                f_o += delta;
                changed_any = true;
                is_elitist = if is_elitist {
                    // o was the elitist: an improvement makes it the elitist again (copying only
                    // the changed genes), a neutral step moves it off the unchanged elitist.
                    delta > 0 && run.offer_changes(&o[oi.clone()], &self.changed, f_o)
                } else {
                    if delta > 0 {
                        run.offer(&o[oi.clone()], f_o);
                    }
                    run.elitist().is_some_and(|e| e.fitness == f_o && e.genes == o[oi.clone()])
                };
            }
        }
        self.offspring.genes = o;
        self.offspring.fitness[i] = f_o;
        changed_any
    }

    /// Forced Improvement on solution i: GOM with the elitist as the donor, stopping at the first
    /// strict improvement; without one, the solution becomes a copy of the elitist.
    fn forced_improvement(&mut self, i: usize, run: &mut Run) {
        let l = self.population.l;
        let Some(elitist) = run.elitist() else { return };
        let elitist_fitness = elitist.fitness;
        self.elitist_copy.clear();
        self.elitist_copy.extend_from_slice(&elitist.genes);
        self.draw_order();
        let mut o = std::mem::take(&mut self.offspring.genes);
        let oi = i * l..(i + 1) * l;
        self.trial.copy_from_slice(&o[oi.clone()]);
        let mut f_o = self.offspring.fitness[i];
        let mut improved = false;
        let mut cut = false;
        for k in 0..self.order.len() {
            if k % CLOCK_SETS == CLOCK_SETS - 1 && run.out_of_time() {
                cut = true;
                break;
            }
            let set = self.fos.set(self.order[k] as usize);
            run.gom_steps += 1;
            self.changed.clear();
            for &v in set {
                if self.elitist_copy[v as usize] != o[oi.start + v as usize] {
                    self.changed.push(v);
                    self.trial[v as usize] = self.elitist_copy[v as usize];
                }
            }
            if self.changed.is_empty() {
                continue;
            }
            // o differs from the elitist on `changed`, so it is not the elitist.
            if let Some(delta) = self.try_step(&mut o[oi.clone()], f_o, false, run) {
                f_o += delta;
                if delta > 0 {
                    improved = true;
                    run.offer(&o[oi.clone()], f_o);
                    break;
                }
            }
        }
        if !improved && !cut {
            o[oi].copy_from_slice(&self.elitist_copy);
            f_o = elitist_fitness;
        }
        self.offspring.genes = o;
        self.offspring.fitness[i] = f_o;
    }
}

impl<K: Kind> PopulationEngine for SerialGomea<'_, K> {
    fn size(&self) -> usize {
        self.population.n
    }

    fn generation(&mut self, run: &mut Run) -> Result<()> {
        let n = self.population.n;
        if let LinkageSource::Learned = self.config.linkage {
            self.fos = Arc::new(Fos::learned_linkage_tree(&self.population.genes, n, self.population.l, &mut self.rng));
        }
        self.offspring.genes.copy_from_slice(&self.population.genes);
        self.offspring.fitness.copy_from_slice(&self.population.fitness);
        let l = self.population.l;
        self.ones.fill(0);
        for row in self.population.genes.chunks_exact(l.max(1)) {
            for (count, &g) in self.ones.iter_mut().zip(row) {
                *count += g as u32;
            }
        }
        let patience = pgomea_device::gom::forced_improvement_patience(n);
        for i in 0..n {
            if run.should_stop() {
                break;
            }
            let changed = self.gom(i, run);
            if self.config.forced_improvement && (!changed || self.no_improvement_stretch[i] > patience) {
                self.forced_improvement(i, run);
            }
            if let Some(ls) = self.config.local_search.as_ref().filter(|ls| ls.mode == LocalSearchMode::Offspring) {
                let l = self.population.l;
                let (genes, fitness) = (&mut self.offspring.genes[i * l..(i + 1) * l], &mut self.offspring.fitness[i]);
                search_solution(
                    &self.kind,
                    self.problem,
                    ls,
                    (self.seed, self.generations as u32, i as u32),
                    genes,
                    fitness,
                    run,
                    None,
                );
            }
            if self.offspring.fitness[i] > self.population.fitness[i] {
                self.no_improvement_stretch[i] = 0;
            } else {
                self.no_improvement_stretch[i] += 1;
            }
        }
        std::mem::swap(&mut self.population, &mut self.offspring);
        self.generations += 1;
        Ok(())
    }

    fn generations(&self) -> u64 {
        self.generations
    }

    fn average_fitness(&self) -> f64 {
        self.population.average_fitness()
    }

    fn converged(&self) -> bool {
        self.population.converged()
    }

    fn population(&self) -> Result<Population> {
        Ok(self.population.clone())
    }
    fn best_fitness(&self) -> i64 {
        self.population.fitness[self.population.best()]
    }
    fn best_solution(&self) -> Result<Vec<u8>> {
        Ok(self.population.solution(self.population.best()).to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gomea::local_search::VariableColors;
    use crate::gomea::run::Limits;
    use crate::problem::generate::{WeightRange, torus};
    use crate::problem::maxcut::MaxCut;
    use crate::stop::StopCheck;

    /// Serial GOMEA's settings on `p` with an annealing of `sweeps` on `threads` threads (a
    /// checkerboard colouring of the torus's variables, of side `side`).
    fn settings(p: &MaxCut, side: usize, sweeps: u32, threads: Option<usize>) -> SerialConfig {
        let groups: Vec<Vec<u32>> = (0..2)
            .map(|c| (0..side * side).filter(|v| (v / side + v % side) % 2 == c).map(|v| v as u32).collect())
            .collect();
        let f = p.functions();
        SerialConfig {
            forced_improvement: true,
            order: FosOrder::Random,
            linkage: LinkageSource::Static(Arc::new(Fos::univariate(p.variables()))),
            local_search: Some(LocalSearchSetting {
                mode: LocalSearchMode::Initial,
                colors: Arc::new(VariableColors::new(&groups, f, 0)),
                anneal: Arc::new(AnnealSchedule::new(f, 3, &StopCheck::never()).unwrap()),
                sweeps,
                share: Some(0.75),
                start: AnnealStart::Hot,
                threads: threads.map(|t| Arc::new(rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap())),
            }),
            start: PopulationStart::Random,
        }
    }

    #[test]
    fn a_new_populations_solutions_annealed_side_by_side_are_those_annealed_one_after_another() {
        const SIDE: usize = 16;
        let p = MaxCut::new(torus(SIDE, WeightRange { min: -3, max: 5 }, 11).unwrap()).unwrap();
        // Without limits nothing fits the annealing to a clock: both take the whole schedule.
        let anneal = |threads| {
            let mut run = Run::new(&p, Limits::default());
            run.verify = true;
            let engine = new_engine(settings(&p, SIDE, 300, threads), &p, 24, 5, &mut run).unwrap();
            let population = engine.population().unwrap();
            (population.genes, population.fitness, run.counter.subfunction_evaluations(), run.elitist_fitness())
        };
        let one_after_another = anneal(None);
        for threads in [2, 3] {
            assert_eq!(anneal(Some(threads)), one_after_another, "{threads} threads");
        }
        // The annealing did something: the solutions differ from a population left at random.
        let mut run = Run::new(&p, Limits::default());
        let mut config = settings(&p, SIDE, 300, None);
        config.local_search = None;
        let random = new_engine(config, &p, 24, 5, &mut run).unwrap().population().unwrap();
        assert!(random.fitness.iter().sum::<i64>() < one_after_another.1.iter().sum::<i64>());
    }

    #[test]
    fn solutions_annealed_side_by_side_stop_at_the_target_and_offer_what_they_reached() {
        const SIDE: usize = 16;
        let p = MaxCut::new(torus(SIDE, WeightRange { min: 1, max: 1 }, 2).unwrap()).unwrap();
        // A target that a random solution (half the edges cut) misses and a whole annealing
        // passes (the even torus's optimum cuts every edge): once the first searches under way
        // reach it, those not begun do not begin.
        let target = p.functions().len() as i64 * 9 / 10;
        let mut run = Run::new(&p, Limits { target: Some(target), ..Limits::default() });
        run.verify = true;
        let engine = new_engine(settings(&p, SIDE, 50_000, Some(2)), &p, 64, 5, &mut run).unwrap();
        assert!(run.trace.first().is_some_and(|t| t.best_fitness < target), "reached at random");
        assert!(run.should_stop());
        assert!(run.elitist_fitness().is_some_and(|f| f >= target));
        let population = engine.population().unwrap();
        let best = population.fitness.iter().max().copied();
        assert_eq!(run.elitist_fitness(), best);
        // Far fewer evaluations than 64 whole schedules.
        let whole = 64.0 * 50_000.0 * 2.0 * p.functions().len() as f64;
        assert!(
            (run.counter.subfunction_evaluations() as f64) < whole / 8.0,
            "{}",
            run.counter.subfunction_evaluations()
        );
    }
}
