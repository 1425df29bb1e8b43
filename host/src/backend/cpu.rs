//! The CPU backend of parallel GOM: the device crate's stage steps (`pgomea_device::stage`), the
//! very functions the kernels run, on all cores. A pass is one rayon task per solution, each
//! calling [`for_solution`] on the flat arrays of the population (host memory here, device
//! memory for the kernels). Every task writes only its solution's rows, so the result is the
//! same for any number of threads, and the same as the GPU's.

use std::sync::Arc;

use pgomea_device::crew::Lane;
use pgomea_device::mem::Ptr;
use pgomea_device::problem::Kind;
use pgomea_device::stage::{
    Buffers, GomArgs, Group, Layout, LocalSearch, Pass, for_solution, local_search_solution, mark_elitist,
    replace_unimproved,
};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::gomea::Population;
use crate::gomea::local_search::SearchStep;
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::{StageBackend, StageState};
use crate::problem::{GrayBoxProblem, KindVisitor};

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

/// A CPU backend for a population of `problem`, with the random numbers of `seed`.
pub fn new_backend<'a>(
    problem: &'a dyn GrayBoxProblem,
    layout: Arc<GroupLayout>,
    population: Population,
    seed: u64,
    pool: Arc<rayon::ThreadPool>,
) -> Box<dyn StageBackend + 'a> {
    struct Make {
        layout: Arc<GroupLayout>,
        population: Population,
        seed: u64,
        pool: Arc<rayon::ThreadPool>,
        incidence: (Ptr<u32>, Ptr<u32>),
    }
    impl KindVisitor for Make {
        type Output = Box<dyn StageBackend>;
        fn visit<K: Kind>(self, kind: K) -> Self::Output {
            let (row_slots, row_deps) = (self.layout.max_group_slots.max(1), self.layout.max_group_deps.max(1));
            Box::new(CpuStages {
                kind,
                incidence: self.incidence,
                layout: self.layout,
                pool: self.pool,
                seed: self.seed,
                forced: false,
                buffers: CpuBuffers::new(self.population, row_slots, row_deps),
            })
        }
    }
    let (offsets, subs) = problem.functions().incidence();
    let incidence = (Ptr::from_slice(offsets), Ptr::from_slice(subs));
    // The kind and the incidence point into `problem`'s arrays; the box is returned bound to
    // their lifetime 'a.
    problem.functions().with_kind(Make { layout, population, seed, pool, incidence })
}

/// The buffers of one population in host memory (the same as the CUDA backend's on the device).
struct CpuBuffers {
    n: usize,
    l: usize,
    /// P: the population at the generation's start (the donors), and its fitness.
    parents: Population,
    offspring: Vec<u8>,
    work: Vec<u8>,
    fitness: Vec<i64>,
    donors: Vec<i32>,
    diff: Vec<i64>,
    delta: Vec<i64>,
    mask: Vec<u8>,
    is_elitist: Vec<u8>,
    reference: Vec<u8>,
    changed: Vec<u8>,
    forced: Vec<u8>,
    schedule: Vec<u32>,
}

impl CpuBuffers {
    fn new(population: Population, row_slots: usize, row_deps: usize) -> Self {
        let (n, l) = (population.n, population.l);
        CpuBuffers {
            n,
            l,
            offspring: population.genes.clone(),
            work: population.genes.clone(),
            fitness: population.fitness.clone(),
            parents: population,
            donors: vec![0; n * row_slots],
            diff: vec![0; n * row_deps],
            delta: vec![0; n * row_slots],
            mask: vec![0; n * row_slots],
            is_elitist: vec![0; n],
            reference: vec![0; l],
            changed: vec![0; n],
            forced: vec![0; n],
            schedule: Vec::new(),
        }
    }

    fn pointers(&mut self) -> Buffers {
        Buffers {
            parents: Ptr::from_mut_slice(&mut self.parents.genes),
            offspring: Ptr::from_mut_slice(&mut self.offspring),
            work: Ptr::from_mut_slice(&mut self.work),
            fitness: Ptr::from_mut_slice(&mut self.fitness),
            donors: Ptr::from_mut_slice(&mut self.donors),
            diff: Ptr::from_mut_slice(&mut self.diff),
            delta: Ptr::from_mut_slice(&mut self.delta),
            mask: Ptr::from_mut_slice(&mut self.mask),
            is_elitist: Ptr::from_mut_slice(&mut self.is_elitist),
            reference: Ptr::from_mut_slice(&mut self.reference),
            changed: Ptr::from_mut_slice(&mut self.changed),
            forced: Ptr::from_mut_slice(&mut self.forced),
            // The GPU's local-search marks: the CPU searches one solution at a time.
            ls_active: Ptr::default(),
            ls_flipped: Ptr::default(),
            ls_counters: Ptr::default(),
        }
    }
}

/// One population on the CPU, running the stages of parallel GOM with problem kind `K`.
struct CpuStages<K: Kind> {
    /// The problem's kind over its host arrays, and its variables' subfunctions (the caller
    /// keeps the problem alive).
    kind: K,
    incidence: (Ptr<u32>, Ptr<u32>),
    layout: Arc<GroupLayout>,
    pool: Arc<rayon::ThreadPool>,
    seed: u64,
    /// Whether the announced groups run Forced Improvement.
    forced: bool,
    buffers: CpuBuffers,
}

impl<K: Kind> CpuStages<K> {
    /// The arguments of the stage steps: this population's buffers, the layout, the problem.
    fn args(&mut self) -> GomArgs<K> {
        let l = &self.layout;
        GomArgs {
            seed: self.seed,
            n: self.buffers.n as u32,
            l: self.buffers.l as u32,
            step: 0,
            row_slots: l.max_group_slots.max(1) as u32,
            row_deps: l.max_group_deps.max(1) as u32,
            groups: l.groups() as u32,
            schedule: Ptr::from_slice(&self.buffers.schedule),
            layout: Layout {
                group_slots: Ptr::from_slice(&l.group_slots),
                group_crews: Ptr::from_slice(&l.group_crews),
                slot_set: Ptr::from_slice(&l.slot_set),
                var_offsets: Ptr::from_slice(&l.var_offsets),
                vars: Ptr::from_slice(&l.vars),
                dep_offsets: Ptr::from_slice(&l.dep_offsets),
                dep_subfunctions: Ptr::from_slice(&l.dep_subfunctions),
            },
            buffers: self.buffers.pointers(),
            problem: self.kind,
            local_search: LocalSearch {
                colors: l.local_search.colors() as u32,
                color_offsets: Ptr::from_slice(&l.local_search.offsets),
                color_vars: Ptr::from_slice(&l.local_search.vars),
                var_offsets: self.incidence.0,
                var_subs: self.incidence.1,
                anneal: l.anneal.anneal(self.seed, SearchStep { stream: 0, sweeps: 0, from: 0, to: 0, descend: true }),
            },
            barrier: Ptr::default(),
        }
    }
}

impl<K: Kind> StageBackend for CpuStages<K> {
    fn start_generation(&mut self, elitist: &[u8], elitist_fitness: i64, fitness: &[i64]) -> Result<()> {
        let b = &mut self.buffers;
        b.offspring.copy_from_slice(&b.parents.genes);
        b.work.copy_from_slice(&b.parents.genes);
        b.fitness.copy_from_slice(&b.parents.fitness);
        b.changed.fill(0);
        // Equality with the elitist matters only where the fitness is equal (as on the GPU).
        if fitness.contains(&elitist_fitness) {
            b.reference.copy_from_slice(elitist);
            let (n, l) = (b.n, b.l);
            let ptrs = b.pointers();
            // SAFETY: the buffers hold n rows of l genes, one reference row and n marks; each
            // task writes only its own mark.
            self.pool.install(|| {
                (0..n).into_par_iter().for_each(|i| unsafe {
                    mark_elitist(&Lane, &ptrs, l, i);
                })
            });
        } else {
            b.is_elitist.fill(0);
        }
        Ok(())
    }

    fn begin_groups(&mut self, generation: u32, order: &[u32], forced: bool) -> Result<()> {
        self.forced = forced;
        if order.iter().any(|&g| g as usize >= self.layout.groups()) {
            return Err(Error::usage(format!(
                "internal: a group order {order:?} of more than {} groups",
                self.layout.groups()
            )));
        }
        let s = &mut self.buffers.schedule;
        s.clear();
        s.push(generation);
        s.extend_from_slice(order);
        Ok(())
    }

    fn pass(&mut self, pass: Pass, step: u32) -> Result<()> {
        if !pass.is_valid() || step as usize + 1 >= self.buffers.schedule.len() {
            return Err(Error::usage(format!(
                "internal: pass {pass:?} at step {step} of a schedule of {} groups",
                self.buffers.schedule.len().saturating_sub(1)
            )));
        }
        let n = self.buffers.n;
        let a = self.args();
        // SAFETY: `a` points to this backend's buffers, sized from the layout (`sized`), the
        // layout and the problem's checked arrays, all alive for the call; the schedule holds
        // `step`; each task writes only solution i's rows (and i's fitness, atomically).
        let g = unsafe { Group::at(&a, step) };
        let forced = self.forced;
        self.pool.install(|| {
            (0..n).into_par_iter().for_each(|i| unsafe {
                if forced {
                    for_solution::<K, true>(&a, &g, i, pass)
                } else {
                    for_solution::<K, false>(&a, &g, i, pass)
                }
            })
        });
        Ok(())
    }

    fn mixed(&mut self) -> Result<(Vec<i64>, Vec<u8>)> {
        Ok((self.buffers.fitness.clone(), self.buffers.changed.clone()))
    }

    fn offspring(&self, i: usize) -> Result<Vec<u8>> {
        let l = self.buffers.l;
        Ok(self.buffers.offspring[i * l..(i + 1) * l].to_vec())
    }

    fn begin_forced_improvement(&mut self, in_fi: &[u8], elitist: &[u8]) -> Result<()> {
        let b = &mut self.buffers;
        if in_fi.len() != b.n || elitist.len() != b.l {
            return Err(Error::usage("internal: forced improvement of another shape"));
        }
        b.forced.copy_from_slice(in_fi);
        b.reference.copy_from_slice(elitist);
        Ok(())
    }

    fn end_forced_improvement(&mut self, elitist_fitness: i64) -> Result<()> {
        let (n, l) = (self.buffers.n, self.buffers.l);
        let ptrs = self.buffers.pointers();
        // SAFETY: the buffers hold n rows of l genes, a reference row, n fitness values and marks;
        // each task writes only its own solution.
        self.pool.install(|| {
            (0..n).into_par_iter().for_each(|i| unsafe {
                for v in 0..l {
                    replace_unimproved(&ptrs, l, i, v, elitist_fitness);
                }
            })
        });
        Ok(())
    }

    fn local_search(&mut self, step: SearchStep) -> Result<u64> {
        let n = self.buffers.n;
        let mut a = self.args();
        a.local_search.anneal = self.layout.anneal.anneal(self.seed, step);
        // SAFETY: as in `pass`; `a.local_search` holds the layout's colours of this problem's
        // variables and the problem's incidence; each task searches only its own solution.
        let rounds =
            self.pool.install(|| (0..n).into_par_iter().map(|i| unsafe { local_search_solution(&a, i) }).sum());
        Ok(rounds)
    }

    fn finish_generation(&mut self) -> Result<Vec<i64>> {
        let b = &mut self.buffers;
        b.parents.genes.copy_from_slice(&b.offspring);
        b.parents.fitness.copy_from_slice(&b.fitness);
        Ok(b.fitness.clone())
    }

    fn synchronize(&mut self) -> Result<()> {
        Ok(())
    }

    fn solution(&self, i: usize) -> Result<Vec<u8>> {
        Ok(self.buffers.parents.solution(i).to_vec())
    }

    fn population(&self) -> Result<Population> {
        Ok(self.buffers.parents.clone())
    }

    fn genotypes_equal(&self) -> Result<bool> {
        Ok(self.buffers.parents.converged())
    }

    fn state(&self) -> Result<StageState> {
        let b = &self.buffers;
        Ok(StageState {
            parents: b.parents.genes.clone(),
            parent_fitness: b.parents.fitness.clone(),
            offspring: b.offspring.clone(),
            work: b.work.clone(),
            fitness: b.fitness.clone(),
            donors: b.donors.clone(),
            diff: b.diff.clone(),
            delta: b.delta.clone(),
            mask: b.mask.clone(),
            is_elitist: b.is_elitist.clone(),
            changed: b.changed.clone(),
            forced: b.forced.clone(),
        })
    }

    fn set_state(&mut self, s: &StageState) -> Result<()> {
        let b = &mut self.buffers;
        let sizes_match = [
            (b.parents.genes.len(), s.parents.len()),
            (b.parents.fitness.len(), s.parent_fitness.len()),
            (b.offspring.len(), s.offspring.len()),
            (b.work.len(), s.work.len()),
            (b.fitness.len(), s.fitness.len()),
            (b.donors.len(), s.donors.len()),
            (b.diff.len(), s.diff.len()),
            (b.delta.len(), s.delta.len()),
            (b.mask.len(), s.mask.len()),
            (b.is_elitist.len(), s.is_elitist.len()),
            (b.changed.len(), s.changed.len()),
            (b.forced.len(), s.forced.len()),
        ];
        if sizes_match.iter().any(|(a, b)| a != b) {
            return Err(Error::usage("internal: a state of another shape"));
        }
        b.parents.genes.copy_from_slice(&s.parents);
        b.parents.fitness.copy_from_slice(&s.parent_fitness);
        b.offspring.copy_from_slice(&s.offspring);
        b.work.copy_from_slice(&s.work);
        b.fitness.copy_from_slice(&s.fitness);
        b.donors.copy_from_slice(&s.donors);
        b.diff.copy_from_slice(&s.diff);
        b.delta.copy_from_slice(&s.delta);
        b.mask.copy_from_slice(&s.mask);
        b.is_elitist.copy_from_slice(&s.is_elitist);
        b.changed.copy_from_slice(&s.changed);
        b.forced.copy_from_slice(&s.forced);
        Ok(())
    }
}
