//! A population in the flat layout both backends use: the genes of solution i are
//! `genes[i*l..(i+1)*l]` (one byte per gene, 0 or 1), its fitness `fitness[i]`.

use pgomea_device::rng::SplitMix64;

use super::local_search::AnnealStart;
use super::run::Run;
use crate::problem::{EvaluationCounter, GrayBoxProblem, full_evaluation};

/// A population: n solutions of l genes each, and their fitness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Population {
    /// The number of solutions.
    pub n: usize,
    /// The genes per solution (the problem's variables).
    pub l: usize,
    /// The genes, solution after solution (`n * l` bytes, 0 or 1).
    pub genes: Vec<u8>,
    /// The fitness of each solution.
    pub fitness: Vec<i64>,
}

impl Population {
    /// n solutions drawn uniformly at random and fully evaluated.
    pub fn random<P: GrayBoxProblem + ?Sized>(
        p: &P,
        n: usize,
        rng: &mut SplitMix64,
        counter: &EvaluationCounter,
    ) -> Self {
        let l = p.variables();
        let genes = random_genes(n, l, rng);
        let fitness = genes.chunks(l.max(1)).take(n).map(|x| full_evaluation(p, x, counter)).collect();
        Population { n, l, genes, fitness }
    }

    /// The genes of solution i.
    pub fn solution(&self, i: usize) -> &[u8] {
        &self.genes[i * self.l..(i + 1) * self.l]
    }

    pub(crate) fn average_fitness(&self) -> f64 {
        self.fitness.iter().map(|&f| f as f64).sum::<f64>() / self.n.max(1) as f64
    }

    /// The index of the best solution ([`best_index`]).
    pub fn best(&self) -> usize {
        best_index(&self.fitness)
    }

    /// Every solution has the genotype of the first.
    pub fn converged(&self) -> bool {
        let first = self.solution(0);
        self.fitness.iter().all(|&f| f == self.fitness[0]) && (1..self.n).all(|i| self.solution(i) == first)
    }
}

/// The seed of population `index` of a run (the multi-start scheme's populations draw from
/// independent streams).
pub fn population_seed(seed: u64, index: usize) -> u64 {
    pgomea_device::rng::mix64(seed ^ pgomea_device::rng::mix64(0x706f70 + index as u64))
}

/// n genotypes of l genes drawn uniformly at random (64 genes per draw).
fn random_genes(n: usize, l: usize, rng: &mut SplitMix64) -> Vec<u8> {
    let mut genes = vec![0u8; n * l];
    for chunk in genes.chunks_mut(64) {
        let bits = rng.next_u64();
        for (i, g) in chunk.iter_mut().enumerate() {
            *g = ((bits >> i) & 1) as u8;
        }
    }
    genes
}

/// The initial population of population `index` of a run: the same on every backend (see
/// [`random_population`] for when it is None).
pub fn initial_population<P: GrayBoxProblem + ?Sized>(
    problem: &P,
    size: usize,
    seed: u64,
    run: &mut Run,
) -> Option<Population> {
    random_population(problem, size, &mut SplitMix64::new(seed), run)
}

/// How a population of the multi-start scheme begins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PopulationStart {
    /// Drawn at random ([`initial_population`]), annealed from the hottest level.
    #[default]
    Random,
    /// Copies of the elitist ([`elitist_population`]), annealed from halfway down the schedule
    /// ([`AnnealStart::Halfway`]): each solution leaves the elitist its own way, the local
    /// search brings it back to a local optimum near it, and the run's partition mixing and
    /// GOM's generations take from these what improves the elitist (an iterated local search
    /// around the best solution, in populations).
    Elitist,
}

impl PopulationStart {
    /// How population `index` begins: with restarts from the elitist every second population
    /// from the second on starts from it (the others stay random, so that the scheme keeps
    /// finding new regions); without, every one at random.
    pub fn of(index: usize, elitist_restarts: bool) -> Self {
        if elitist_restarts && index % 2 == 1 { PopulationStart::Elitist } else { PopulationStart::Random }
    }

    /// Where its annealing begins.
    pub fn anneal_start(self) -> AnnealStart {
        match self {
            PopulationStart::Random => AnnealStart::Hot,
            PopulationStart::Elitist => AnnealStart::Halfway,
        }
    }
}

/// `size` copies of the run's elitist, with its fitness (nothing to evaluate). None when the
/// run has no elitist yet or its time is up.
pub fn elitist_population(size: usize, run: &mut Run) -> Option<Population> {
    if run.out_of_time() {
        return None;
    }
    let e = run.elitist()?;
    Some(Population { n: size, l: e.genes.len(), genes: e.genes.repeat(size), fitness: vec![e.fitness; size] })
}

/// A new population of the multi-start scheme as `start` says (a random one drawn from `rng`,
/// seeded with the population's own seed, [`population_seed`]), and where its annealing begins.
/// A population to start from the elitist starts at random where the run has none yet. None
/// when the run had to stop meanwhile.
pub fn new_population<P: GrayBoxProblem + ?Sized>(
    problem: &P,
    start: PopulationStart,
    size: usize,
    rng: &mut SplitMix64,
    run: &mut Run,
) -> Option<(Population, AnnealStart)> {
    if start == PopulationStart::Elitist && run.elitist().is_some() {
        return Some((elitist_population(size, run)?, start.anneal_start()));
    }
    Some((random_population(problem, size, rng, run)?, AnnealStart::Hot))
}

/// A random population, fully evaluated, each solution offered to the run as elitist candidate.
///
/// The solutions are evaluated in parallel (a rayon task each): on a large instance one full
/// evaluation takes a tenth of a second or so, too long to evaluate a population one by one
/// (`docs/decisions/0009-random-population-evaluated-in-parallel.md`). They are offered in their
/// order, so the elitist and the trace are those of a serial evaluation.
///
/// Abandoned (None) as soon as the time limit passes or the run is interrupted while it is
/// evaluated (a large population's evaluation would otherwise overrun the limit by its whole
/// length): a solution not yet started then is not evaluated, and those before the first such
/// are still offered. The run's first solution is always evaluated, so that every run has an
/// answer: the best solution it evaluated.
pub fn random_population<P: GrayBoxProblem + ?Sized>(
    problem: &P,
    size: usize,
    rng: &mut SplitMix64,
    run: &mut Run,
) -> Option<Population> {
    use rayon::prelude::*;
    let first = run.elitist().is_none();
    if !first && run.out_of_time() {
        return None;
    }
    let l = problem.variables();
    let genes = random_genes(size, l, rng);
    let (check, counter) = (run.stop_check(), &run.counter);
    let evaluated: Vec<Option<i64>> = (0..size)
        .into_par_iter()
        .map(|i| {
            let must = i == 0 && first;
            (must || check.reason().is_none()).then(|| full_evaluation(problem, &genes[i * l..(i + 1) * l], counter))
        })
        .collect();
    let mut fitness = Vec::with_capacity(size);
    for (i, f) in evaluated.into_iter().enumerate() {
        let Some(f) = f else {
            // Sets the run's stop reason (the check above saw it).
            run.out_of_time();
            return None;
        };
        run.offer(&genes[i * l..(i + 1) * l], f);
        fitness.push(f);
    }
    Some(Population { n: size, l, genes, fitness })
}

/// The index of the fittest solution, the first of equals (0 for none): the solution a
/// population offers as its best.
pub fn best_index(fitness: &[i64]) -> usize {
    (0..fitness.len()).max_by_key(|&i| (fitness[i], std::cmp::Reverse(i))).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::gomea::run::{Limits, StopReason};
    use crate::problem::maxcut::MaxCut;

    fn problem() -> MaxCut {
        MaxCut::new(crate::problem::generate::default_instance()).unwrap()
    }

    #[test]
    fn the_parallel_evaluation_offers_as_a_serial_one_would() {
        let p = problem();
        let mut run = Run::new(&p, Limits::default());
        let got = random_population(&p, 64, &mut SplitMix64::new(7), &mut run).unwrap();
        let counter = EvaluationCounter::default();
        let want = Population::random(&p, 64, &mut SplitMix64::new(7), &counter);
        assert_eq!(got, want);
        // The elitist is the first of the best, as offered one by one in order.
        let best = *want.fitness.iter().max().unwrap();
        let first_best = want.fitness.iter().position(|&f| f == best).unwrap();
        let elitist = run.elitist().unwrap();
        assert_eq!((elitist.fitness, &elitist.genes[..]), (best, want.solution(first_best)));
        assert_eq!(run.counter.subfunction_evaluations(), counter.subfunction_evaluations());
    }

    #[test]
    fn a_stopped_run_evaluates_only_its_first_solution() {
        let p = problem();
        let flag = Arc::new(AtomicBool::new(true));
        let mut run = Run::new(&p, Limits::default()).with_stop_flag(flag);
        // The first population of a run: its first solution is the answer.
        assert!(random_population(&p, 32, &mut SplitMix64::new(3), &mut run).is_none());
        assert_eq!(run.counter.subfunction_evaluations(), p.subfunctions() as u64);
        assert_eq!(run.stop_reason(), Some(StopReason::Interrupted));
        let first = Population::random(&p, 1, &mut SplitMix64::new(3), &EvaluationCounter::default());
        assert_eq!(run.elitist().map(|e| e.fitness), Some(first.fitness[0]));
        // A later population: nothing evaluated.
        assert!(random_population(&p, 32, &mut SplitMix64::new(4), &mut run).is_none());
        assert_eq!(run.counter.subfunction_evaluations(), p.subfunctions() as u64);
    }
}
