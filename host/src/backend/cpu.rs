//! The CPU backend of parallel GOM: the stages of [`super::stages`] over all solutions, one
//! solution's rows per task on a rayon thread pool. Every row is computed independently, so the
//! result is the same for any number of threads.

use std::sync::Arc;

use rayon::prelude::*;

use crate::gomea::parallel::{StageBackend, StageState};
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::stages::{self, GroupKey};
use crate::error::{Error, Result};
use crate::gomea::Population;
use crate::problem::maxcut::MaxCut;

pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if t == 0 {
            return Err(Error::usage("--threads must be at least 1"));
        }
        b = b.num_threads(t);
    }
    b.build().map_err(|e| Error::usage(format!("cannot start the thread pool: {e}")))
}

pub struct CpuStages<'a> {
    problem: &'a MaxCut,
    layout: Arc<GroupLayout>,
    pool: Arc<rayon::ThreadPool>,
    n: usize,
    /// P: the population at the generation's start (the donors).
    parents: Population,
    /// O and its working copy O'.
    offspring: Vec<u8>,
    work: Vec<u8>,
    fitness: Vec<i64>,
    donors: Vec<i32>,
    diff: Vec<i64>,
    delta: Vec<i64>,
    mask: Vec<u8>,
    is_elitist: Vec<u8>,
}

impl<'a> CpuStages<'a> {
    pub fn new(problem: &'a MaxCut, layout: Arc<GroupLayout>, population: Population, pool: Arc<rayon::ThreadPool>) -> Self {
        let n = population.n;
        let (g, d) = (layout.max_group_slots.max(1), layout.max_group_deps.max(1));
        CpuStages {
            problem,
            pool,
            n,
            offspring: population.genes.clone(),
            work: population.genes.clone(),
            fitness: population.fitness.clone(),
            parents: population,
            donors: vec![0; n * g],
            diff: vec![0; n * d],
            delta: vec![0; n * g],
            mask: vec![0; n * g],
            is_elitist: vec![0; n],
            layout,
        }
    }

}

impl StageBackend for CpuStages<'_> {
    fn start_generation(&mut self, elitist: &[u8], elitist_fitness: i64, _fitness: &[i64]) -> Result<()> {
        self.offspring.copy_from_slice(&self.parents.genes);
        self.work.copy_from_slice(&self.parents.genes);
        self.fitness.copy_from_slice(&self.parents.fitness);
        for i in 0..self.n {
            self.is_elitist[i] = (self.parents.fitness[i] == elitist_fitness && self.parents.solution(i) == elitist) as u8;
        }
        Ok(())
    }

    fn begin_groups(&mut self, _seed: u64, _generation: u32, _order: &[u32]) -> Result<()> {
        Ok(())
    }

    fn stage(&mut self, stage: usize, key: GroupKey) -> Result<()> {
        let (n, g) = (self.n, key.group as usize);
        let l = self.layout.variables;
        let slots = self.layout.slots(g).len();
        let deps = self.layout.deps(g).len();
        let (gs, ds) = (self.layout.max_group_slots.max(1), self.layout.max_group_deps.max(1));
        let layout = &*self.layout;
        let parents = &self.parents.genes;
        let problem = self.problem;
        // Each stage: one task per solution over that solution's rows.
        self.pool.install(|| match stage {
            0 => self.donors.par_chunks_mut(gs).zip(self.offspring.par_chunks(l)).enumerate().for_each(|(i, (donors, o))| {
                stages::select_donors(layout, key, n, i, parents, o, &mut donors[..slots]);
            }),
            1 => self.work.par_chunks_mut(l).zip(self.donors.par_chunks(gs)).for_each(|(w, donors)| {
                stages::insert_donor_genes(layout, g, parents, &donors[..slots], w);
            }),
            2 => self.diff.par_chunks_mut(ds).zip(self.offspring.par_chunks(l).zip(self.work.par_chunks(l))).for_each(|(diff, (o, w))| {
                stages::evaluate_dependent(layout, g, problem, o, w, &mut diff[..deps]);
            }),
            3 => self.delta.par_chunks_mut(gs).zip(self.diff.par_chunks(ds)).for_each(|(delta, diff)| {
                stages::reduce_by_key(layout, g, &diff[..deps], &mut delta[..slots]);
            }),
            4 => self.mask.par_chunks_mut(gs).zip(self.donors.par_chunks(gs).zip(self.delta.par_chunks(gs))).zip(self.is_elitist.par_iter()).for_each(
                |((mask, (donors, delta)), &is_elitist)| {
                    stages::improvement_mask(&donors[..slots], &delta[..slots], is_elitist != 0, &mut mask[..slots]);
                },
            ),
            _ => self
                .offspring
                .par_chunks_mut(l)
                .zip(self.work.par_chunks_mut(l))
                .zip(self.fitness.par_iter_mut())
                .zip(self.mask.par_chunks(gs).zip(self.delta.par_chunks(gs)))
                .for_each(|(((o, w), f), (mask, delta))| {
                    stages::reset_and_insert(layout, g, &mask[..slots], &delta[..slots], o, w, f);
                }),
        });
        Ok(())
    }

    fn finish_generation(&mut self) -> Result<Vec<i64>> {
        self.parents.genes.copy_from_slice(&self.offspring);
        self.parents.fitness.copy_from_slice(&self.fitness);
        Ok(self.fitness.clone())
    }

    fn synchronize(&mut self) -> Result<()> {
        Ok(())
    }

    fn solution(&self, i: usize) -> Result<Vec<u8>> {
        Ok(self.parents.solution(i).to_vec())
    }

    fn population(&self) -> Result<Population> {
        Ok(self.parents.clone())
    }

    fn genotypes_equal(&self) -> Result<bool> {
        Ok(self.parents.converged())
    }

    fn state(&self) -> Result<StageState> {
        Ok(StageState {
            parents: self.parents.genes.clone(),
            parent_fitness: self.parents.fitness.clone(),
            offspring: self.offspring.clone(),
            work: self.work.clone(),
            fitness: self.fitness.clone(),
            donors: self.donors.clone(),
            diff: self.diff.clone(),
            delta: self.delta.clone(),
            mask: self.mask.clone(),
            is_elitist: self.is_elitist.clone(),
        })
    }

    fn set_state(&mut self, s: &StageState) -> Result<()> {
        self.parents.genes.copy_from_slice(&s.parents);
        self.parents.fitness.copy_from_slice(&s.parent_fitness);
        self.offspring.copy_from_slice(&s.offspring);
        self.work.copy_from_slice(&s.work);
        self.fitness.copy_from_slice(&s.fitness);
        self.donors.copy_from_slice(&s.donors);
        self.diff.copy_from_slice(&s.diff);
        self.delta.copy_from_slice(&s.delta);
        self.mask.copy_from_slice(&s.mask);
        self.is_elitist.copy_from_slice(&s.is_elitist);
        Ok(())
    }
}
