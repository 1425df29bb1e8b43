//! Serial GOMEA (Algorithms 1 and 2 of the paper): for each solution, GOM over every linkage set in
//! a random order with a random donor from the population, partial evaluations, the acceptance
//! rule of [`pgomea_device::gom::accept`], then Forced Improvement where the solution did not change
//! or has not improved for too long.

use std::sync::Arc;

use pgomea_device::gom::{DonorOrder, accept};
use pgomea_device::rng::SplitMix64;

use super::{Population, PopulationEngine};
use crate::error::Result;
use crate::linkage::fos::Fos;
use crate::problem::GrayBoxProblem;
use crate::problem::maxcut::MaxCut;
use crate::gomea::run::Run;

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

#[derive(Clone, Debug)]
pub struct SerialConfig {
    pub forced_improvement: bool,
    pub order: FosOrder,
    pub linkage: LinkageSource,
}

pub struct SerialGomea {
    config: SerialConfig,
    population: Population,
    offspring: Population,
    no_improvement_stretch: Vec<u32>,
    rng: SplitMix64,
    generations: u64,
    fos: Arc<Fos>,
    // Scratch, kept to avoid allocation per GOM step.
    order: Vec<u32>,
    changed: Vec<u32>,
    in_changed: Vec<bool>,
    elitist_copy: Vec<u8>,
}

impl SerialGomea {
    /// A new random population of size `n`, fully evaluated (counted in `run`).
    pub fn new(config: SerialConfig, n: usize, seed: u64, run: &mut Run) -> Self {
        let problem = run.problem;
        let mut rng = SplitMix64::new(seed);
        let population = super::population::random_population(problem, n, &mut rng, run);
        let l = problem.variables();
        let fos = match &config.linkage {
            LinkageSource::Static(f) => f.clone(),
            LinkageSource::Learned => Arc::new(Fos::univariate(l)),
        };
        SerialGomea {
            offspring: population.clone(),
            population,
            no_improvement_stretch: vec![0; n],
            rng,
            generations: 0,
            fos,
            order: Vec::new(),
            changed: Vec::new(),
            in_changed: vec![false; l],
            elitist_copy: Vec::new(),
            config,
        }
    }

    /// Fills `self.order` with this solution's visiting order of the linkage sets.
    fn draw_order(&mut self) {
        self.order.clear();
        match &self.config.order {
            FosOrder::Random => {
                self.order.extend(0..self.fos.sets.len() as u32);
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

    /// GOM on solution i (written into `offspring`); returns whether any step was accepted.
    fn gom(&mut self, i: usize, run: &mut Run) -> bool {
        let problem: &MaxCut = run.problem;
        let (n, l) = (self.population.n, self.population.l);
        self.draw_order();
        let mut changed_any = false;
        let o = &mut self.offspring.genes[i * l..(i + 1) * l];
        let mut f_o = self.offspring.fitness[i];
        run.gom_steps += self.order.len() as u64;
        for k in 0..self.order.len() {
            let set = &self.fos.sets[self.order[k] as usize];
            // Donor: the first solution, in a random order, whose genes differ from o on the set.
            let donors = DonorOrder::from_bits(self.rng.next_u64(), self.rng.next_u64(), n as u32);
            self.changed.clear();
            for c in 0..n as u32 {
                let d = donors.candidate(c) as usize;
                if d == i {
                    continue;
                }
                let donor = &self.population.genes[d * l..(d + 1) * l];
                self.changed.extend(set.iter().copied().filter(|&v| donor[v as usize] != o[v as usize]));
                if !self.changed.is_empty() {
                    break;
                }
            }
            if self.changed.is_empty() {
                continue;
            }
            let (delta, evaluated) = problem.cut_flip_delta(o, &self.changed, &mut self.in_changed);
            run.counter.add_subfunctions(evaluated);
            let is_elitist = run.elitist().is_some_and(|e| e.fitness == f_o && e.genes == *o);
            if accept(delta, true, is_elitist) {
                for &v in &self.changed {
                    o[v as usize] ^= 1;
                }
                f_o += delta;
                changed_any = true;
                if run.verify {
                    assert_eq!(f_o, problem.evaluate(o), "incremental fitness differs from a full evaluation after GOM");
                }
                if delta > 0 {
                    run.offer(o, f_o);
                }
            }
        }
        self.offspring.fitness[i] = f_o;
        changed_any
    }

    /// Forced Improvement on solution i: GOM with the elitist as the donor, stopping at the first
    /// strict improvement; without one, the solution becomes a copy of the elitist.
    fn forced_improvement(&mut self, i: usize, run: &mut Run) {
        let problem: &MaxCut = run.problem;
        let l = self.population.l;
        let Some(elitist) = run.elitist() else { return };
        let elitist_fitness = elitist.fitness;
        self.elitist_copy.clear();
        self.elitist_copy.extend_from_slice(&elitist.genes);
        self.draw_order();
        let o = &mut self.offspring.genes[i * l..(i + 1) * l];
        let mut f_o = self.offspring.fitness[i];
        let mut improved = false;
        for k in 0..self.order.len() {
            let set = &self.fos.sets[self.order[k] as usize];
            run.gom_steps += 1;
            self.changed.clear();
            self.changed.extend(set.iter().copied().filter(|&v| self.elitist_copy[v as usize] != o[v as usize]));
            if self.changed.is_empty() {
                continue;
            }
            let (delta, evaluated) = problem.cut_flip_delta(o, &self.changed, &mut self.in_changed);
            run.counter.add_subfunctions(evaluated);
            let is_elitist = f_o == elitist_fitness && *o == self.elitist_copy[..];
            if accept(delta, true, is_elitist) {
                for &v in &self.changed {
                    o[v as usize] ^= 1;
                }
                f_o += delta;
                if run.verify {
                    assert_eq!(f_o, problem.evaluate(o), "incremental fitness differs from a full evaluation after FI");
                }
                if delta > 0 {
                    improved = true;
                    run.offer(o, f_o);
                    break;
                }
            }
        }
        if !improved {
            o.copy_from_slice(&self.elitist_copy);
            f_o = elitist_fitness;
        }
        self.offspring.fitness[i] = f_o;
    }
}

impl PopulationEngine for SerialGomea {
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
        // The patience of FI: 1 + floor(log10(n)) generations without improvement.
        let patience = 1 + (n as f64).log10().floor() as u32;
        for i in 0..n {
            if run.should_stop() {
                break;
            }
            let changed = self.gom(i, run);
            if self.config.forced_improvement && (!changed || self.no_improvement_stretch[i] > patience) {
                self.forced_improvement(i, run);
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
}
