//! A population in the flat layout both backends use: the genes of solution i are
//! `genes[i*l..(i+1)*l]` (one byte per gene, 0 or 1), its fitness `fitness[i]`.

use pgomea_device::rng::SplitMix64;

use super::run::Run;
use crate::problem::{EvaluationCounter, GrayBoxProblem, full_evaluation};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Population {
    pub n: usize,
    pub l: usize,
    pub genes: Vec<u8>,
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

    pub fn solution(&self, i: usize) -> &[u8] {
        &self.genes[i * self.l..(i + 1) * self.l]
    }

    pub fn average_fitness(&self) -> f64 {
        self.fitness.iter().map(|&f| f as f64).sum::<f64>() / self.n.max(1) as f64
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

/// A random population, fully evaluated, each solution offered to the run as elitist candidate.
///
/// Abandoned (None) as soon as the time limit passes or the run is interrupted while it is
/// evaluated (a large population's evaluation would otherwise overrun the limit by its whole
/// length), except that the run's first solution is always evaluated, so that every run has an
/// answer: the best solution it evaluated.
pub fn random_population<P: GrayBoxProblem + ?Sized>(
    problem: &P,
    size: usize,
    rng: &mut SplitMix64,
    run: &mut Run,
) -> Option<Population> {
    let first = run.elitist().is_none();
    let l = problem.variables();
    let genes = random_genes(size, l, rng);
    let mut fitness = Vec::with_capacity(size);
    for i in 0..size {
        if (i > 0 || !first) && run.out_of_time() {
            return None;
        }
        let x = &genes[i * l..(i + 1) * l];
        let f = full_evaluation(problem, x, &run.counter);
        fitness.push(f);
        run.offer(x, f);
    }
    Some(Population { n: size, l, genes, fitness })
}
