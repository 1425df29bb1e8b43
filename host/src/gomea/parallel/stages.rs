//! The stage schedule of one population, written once over a small device trait.
//!
//! A backend (the CPU backend, the CUDA backend) implements [`StageDevice`]: it holds the
//! population's buffers (those of the device crate's table, `pgomea_device::population_buffers!`,
//! each as bytes) and runs the device crate's steps on them. [`Stages`] is everything else, the
//! same for every backend: what a generation does at its start, the group order and its checks,
//! Forced Improvement's start and end, local search, the generation's end, and the copies of the
//! population and of its state that the generation loop and the tests read.

use std::ops::Range;
use std::sync::Arc;

use pgomea_device::stage::{BUFFER, BUFFERS, Buf, BufferSizes, Pass, group_passes};

use super::layout::GroupLayout;
use super::state::StageState;
use crate::error::{Error, Result};
use crate::gomea::Population;
use crate::gomea::local_search::SearchStep;
use crate::problem::{Plain, bytes_of, bytes_of_mut};
use crate::stop::StopCheck;

// ANCHOR: stage_device
/// What a backend does for the stage schedule. A buffer is named by its index in the device
/// crate's `BUFFERS` and handled as bytes; [`Stages`] checks every range before it asks.
pub trait StageDevice {
    /// Copies buffer `from` into buffer `to` (of the same size).
    fn copy(&mut self, from: usize, to: usize) -> Result<()>;
    /// Sets every byte of `buffer` to `byte`.
    fn fill(&mut self, buffer: usize, byte: u8) -> Result<()>;
    /// Writes `bytes` into `buffer` from byte `offset` on.
    fn upload(&mut self, buffer: usize, offset: usize, bytes: &[u8]) -> Result<()>;
    /// Reads `out.len()` bytes of `buffer` from byte `offset` on.
    fn download(&self, buffer: usize, offset: usize, out: &mut [u8]) -> Result<()>;
    /// Runs `pass` (valid) on the group at position `step` of the uploaded schedule, group
    /// `group`: of GOM, or of Forced Improvement with `forced`.
    fn pass(&mut self, pass: Pass, step: u32, group: u32, forced: bool) -> Result<()>;
    /// Runs every group of the uploaded schedule (all of them) at once, if the device can; false
    /// if it cannot, and then the caller runs them group by group.
    fn run_all_groups(&mut self, forced: bool) -> Result<bool>;
    /// Whether GOM runs a group in one pass (`pgomea_device::stage::ONE_PASS`) rather than in
    /// three, here and in `run_all_groups`: the same results, whichever the device runs faster.
    fn one_pass(&self) -> bool;
    /// One call of the colour-grouped local search of every solution of O (the annealing sweeps
    /// and the rounds of the greedy descent `step` asks for, the descent of the solutions marked
    /// in `search_active`); returns the sweeps and rounds, summed over the solutions. A device
    /// that runs the solutions one by one skips those not begun when `stop` says so.
    fn search(&mut self, step: SearchStep, stop: &StopCheck) -> Result<u64>;
    /// The fewest sweeps or rounds a call of [`StageDevice::search`] should have: where the device
    /// keeps the gains of its kind, enough to keep them
    /// ([`least_per_call`](crate::gomea::local_search::least_per_call)).
    fn least_per_call(&self) -> u32;
    /// `is_elitist[i]` = whether `P[i]` equals `reference`.
    fn mark_elitist(&mut self) -> Result<()>;
    /// `converged[s]` = whether every solution of P has the same genes on slot s's linkage set.
    fn mark_converged(&mut self) -> Result<()>;
    /// Forced Improvement's end: the solutions still marked active become copies of
    /// `reference`, with `elitist_fitness`.
    fn end_forced_improvement(&mut self, elitist_fitness: i64) -> Result<()>;
    /// Waits until all queued work is done.
    fn synchronize(&mut self) -> Result<()>;
    /// Whether the device checks `stop` itself as its passes and whole generations go (a device
    /// that runs the solutions one by one: it skips a group of the solutions not begun once
    /// `stop` says so, a solution always whole through a group's passes, so that its fitness
    /// stays that of its genes); false by default, and then the caller checks between groups.
    fn watch(&mut self, stop: &StopCheck) -> bool {
        let _ = stop;
        false
    }
}
// ANCHOR_END: stage_device

/// One population on a backend: its buffers on the [`StageDevice`], and the stage schedule over
/// them. The random numbers come from the seed the device was made with.
pub struct Stages<'a> {
    device: Box<dyn StageDevice + 'a>,
    layout: Arc<GroupLayout>,
    sizes: BufferSizes,
    /// The group order announced for this generation (also in `schedule` on the device), and
    /// whether its groups run Forced Improvement.
    order: Vec<u32>,
    forced: bool,
}

impl<'a> Stages<'a> {
    /// The population `population` on `device`, whose buffers are made for
    /// `layout.buffer_sizes(population.n)`: P and its fitness are uploaded.
    pub fn new(device: Box<dyn StageDevice + 'a>, layout: Arc<GroupLayout>, population: &Population) -> Result<Self> {
        let sizes = layout.buffer_sizes(population.n);
        let mut stages = Stages { device, layout, sizes, order: Vec::new(), forced: false };
        stages.upload(BUFFER.parents, 0, &population.genes)?;
        stages.upload(BUFFER.parent_fitness, 0, &population.fitness)?;
        Ok(stages)
    }

    /// The number of elements of the buffer with index `buffer`.
    fn elements(&self, buffer: usize) -> usize {
        BUFFERS[buffer].length.elements(&self.sizes)
    }

    /// Checks that `range` lies inside the buffer.
    fn check<T>(&self, b: Buf<T>, range: &Range<usize>) -> Result<()> {
        let len = self.elements(b.index());
        if range.start > range.end || range.end > len {
            return Err(Error::Internal(format!(
                "elements {range:?} of the buffer `{}` of {len} elements",
                BUFFERS[b.index()].name
            )));
        }
        Ok(())
    }

    fn upload<T: Plain>(&mut self, b: Buf<T>, at: usize, data: &[T]) -> Result<()> {
        self.check(b, &(at..at + data.len()))?;
        self.device.upload(b.index(), at * size_of::<T>(), bytes_of(data))
    }

    fn download<T: Plain>(&self, b: Buf<T>, range: Range<usize>) -> Result<Vec<T>> {
        self.check(b, &range)?;
        let mut out = vec![T::default(); range.len()];
        self.device.download(b.index(), range.start * size_of::<T>(), bytes_of_mut(&mut out))?;
        Ok(out)
    }

    fn download_all<T: Plain>(&self, b: Buf<T>) -> Result<Vec<T>> {
        self.download(b, 0..self.elements(b.index()))
    }

    /// Row `i` of a buffer of rows of l genes.
    fn genotype(&self, b: Buf<u8>, i: usize) -> Result<Vec<u8>> {
        let l = self.sizes.l;
        self.download(b, i * l..(i + 1) * l)
    }

    // ANCHOR: start_generation
    /// O = P and O' = P; marks the linkage sets on which P has converged, and which solutions of
    /// P equal the elitist. `fitness` is P's fitness (the host keeps a copy).
    pub fn start_generation(&mut self, elitist: &[u8], elitist_fitness: i64, fitness: &[i64]) -> Result<()> {
        let d = &mut self.device;
        d.copy(BUFFER.parents.index(), BUFFER.offspring.index())?;
        d.copy(BUFFER.parents.index(), BUFFER.work.index())?;
        d.copy(BUFFER.parent_fitness.index(), BUFFER.fitness.index())?;
        d.fill(BUFFER.changed.index(), 0)?;
        d.mark_converged()?;
        // Equality with the elitist matters only where the fitness is equal: compare only when
        // some solution has the elitist's fitness.
        if fitness.contains(&elitist_fitness) {
            self.upload(BUFFER.reference, 0, elitist)?;
            self.device.mark_elitist()
        } else {
            self.device.fill(BUFFER.is_elitist.index(), 0)
        }
    }
    // ANCHOR_END: start_generation

    /// Marks the linkage sets on which P has converged, as the generation's start does (for a
    /// state set by hand: stage 1 trusts the marks).
    pub fn mark_converged(&mut self) -> Result<()> {
        self.device.mark_converged()
    }

    /// Announces the generation's number, its order of the colour groups (the schedule the
    /// passes read), and whether the groups run GOM or Forced Improvement (`forced`).
    pub fn begin_groups(&mut self, generation: u32, order: &[u32], forced: bool) -> Result<()> {
        let groups = self.layout.groups();
        if order.len() > groups || order.iter().any(|&g| g as usize >= groups) {
            return Err(Error::Internal(format!("a group order {order:?} of more than {groups} groups")));
        }
        self.forced = forced;
        self.order.clear();
        self.order.extend_from_slice(order);
        let schedule: Vec<u32> = std::iter::once(generation).chain(order.iter().copied()).collect();
        self.upload(BUFFER.schedule, 0, &schedule)
    }

    /// Runs `pass` on the group at position `step` of the announced order.
    pub fn pass(&mut self, pass: Pass, step: u32) -> Result<()> {
        let Some(&group) = self.order.get(step as usize).filter(|_| pass.is_valid()) else {
            return Err(Error::Internal(format!(
                "pass {pass:?} at step {step} of an order of {} groups",
                self.order.len()
            )));
        };
        self.device.pass(pass, step, group, self.forced)
    }

    /// Runs every group of the announced order at once, if the backend can (the CUDA backend's
    /// whole-generation kernel or graph) and the order holds every group; false otherwise.
    pub fn run_all_groups(&mut self) -> Result<bool> {
        if self.order.len() != self.layout.groups() {
            return Ok(false);
        }
        self.device.run_all_groups(self.forced)
    }

    /// The passes of one group of the announced generation (GOM's as the device runs them, or
    /// Forced Improvement's).
    pub fn group_passes(&self) -> &'static [Pass] {
        group_passes(self.forced, self.device.one_pass())
    }

    /// After GOM's groups: the fitness of O, and 1 where GOM accepted a set of `O[i]`.
    pub fn mixed(&self) -> Result<(Vec<i64>, Vec<u8>)> {
        Ok((self.download_all(BUFFER.fitness)?, self.download_all(BUFFER.changed)?))
    }

    /// `O[i]`.
    pub fn offspring(&self, i: usize) -> Result<Vec<u8>> {
        self.genotype(BUFFER.offspring, i)
    }

    /// Forced Improvement's start: `in_fi[i]` = 1 for the solutions it applies to, and the
    /// elitist, the donor of every set.
    pub fn begin_forced_improvement(&mut self, in_fi: &[u8], elitist: &[u8]) -> Result<()> {
        if in_fi.len() != self.sizes.n || elitist.len() != self.sizes.l {
            return Err(Error::Internal(format!(
                "forced improvement of {} solutions and {} genes in a population of {} and {}",
                in_fi.len(),
                elitist.len(),
                self.sizes.n,
                self.sizes.l
            )));
        }
        self.upload(BUFFER.forced, 0, in_fi)?;
        self.upload(BUFFER.reference, 0, elitist)
    }

    /// Forced Improvement's end: the solutions it never improved become copies of the elitist.
    pub fn end_forced_improvement(&mut self, elitist_fitness: i64) -> Result<()> {
        self.device.end_forced_improvement(elitist_fitness)
    }

    /// One call of the colour-grouped local search of every solution of O (the layout's
    /// variable colours and annealing schedule): the annealing sweeps and the rounds of the
    /// greedy descent `step` asks for. Returns the sweeps and rounds, summed over the solutions,
    /// and whether some solution's descent goes on.
    pub fn search_offspring(&mut self, step: SearchStep, stop: &StopCheck) -> Result<(u64, bool)> {
        let descent = step.descent_rounds > 0;
        if descent && !step.resume {
            self.device.fill(BUFFER.search_active.index(), 1)?;
        }
        let rounds = self.device.search(step, stop)?;
        let descending = descent && self.download_all(BUFFER.search_active)?.iter().any(|&a| a != 0);
        Ok((rounds, descending))
    }

    /// P = O. Returns the fitness of every solution.
    pub fn finish_generation(&mut self) -> Result<Vec<i64>> {
        self.device.copy(BUFFER.offspring.index(), BUFFER.parents.index())?;
        self.device.copy(BUFFER.fitness.index(), BUFFER.parent_fitness.index())?;
        self.download_all(BUFFER.parent_fitness)
    }

    /// The fewest sweeps or rounds of a call of the search ([`StageDevice::least_per_call`]).
    pub fn least_per_call(&self) -> u32 {
        self.device.least_per_call()
    }

    /// Whether the device checks `stop` inside passes and whole generations
    /// ([`StageDevice::watch`]).
    pub fn watch(&mut self, stop: &StopCheck) -> bool {
        self.device.watch(stop)
    }

    /// Waits until all queued work is done (for stage timing).
    pub fn synchronize(&mut self) -> Result<()> {
        self.device.synchronize()
    }

    /// `P[i]`.
    pub fn solution(&self, i: usize) -> Result<Vec<u8>> {
        self.genotype(BUFFER.parents, i)
    }

    /// P and its fitness.
    pub fn population(&self) -> Result<Population> {
        Ok(Population {
            n: self.sizes.n,
            l: self.sizes.l,
            genes: self.download_all(BUFFER.parents)?,
            fitness: self.download_all(BUFFER.parent_fitness)?,
        })
    }

    /// All solutions equal (the fitness values are known to be equal when this is asked: rare,
    /// so compared on the host).
    pub fn genotypes_equal(&self) -> Result<bool> {
        Ok(self.population()?.converged())
    }

    /// A copy of every compared buffer (tests and the self-test compare backends with it).
    pub fn state(&self) -> Result<StageState> {
        let mut state = StageState::default();
        for (buffer, column) in state.columns_mut() {
            let bytes = column.zeroed(self.elements(buffer));
            self.device.download(buffer, 0, bytes)?;
        }
        Ok(state)
    }

    /// Overwrites every compared buffer (the self-test feeds random inputs to single stages).
    pub fn set_state(&mut self, state: &StageState) -> Result<()> {
        for (buffer, column) in state.columns() {
            let expected = BUFFERS[buffer].bytes(&self.sizes);
            if column.bytes().len() != expected {
                return Err(Error::Internal(format!(
                    "a state of another shape: the buffer `{}` has {} bytes, not {expected}",
                    BUFFERS[buffer].name,
                    column.bytes().len()
                )));
            }
        }
        for (buffer, column) in state.columns() {
            self.device.upload(buffer, 0, column.bytes())?;
        }
        self.device.synchronize()
    }
}
