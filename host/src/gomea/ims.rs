//! The interleaved multi-start scheme (IMS, Bouter et al. 2021): populations of size n_base,
//! 2 n_base, 4 n_base, ...; one generation of population i+1 after every c_IMS generations of
//! population i. A population is terminated when it has converged, or when a larger population
//! has a better average fitness (then every smaller one goes too).
//!
//! With [`ImsConfig::anneal_only`] (the control of the hybrid) the scheme makes the same
//! populations, each initialised and annealed by its factory as always, and terminates each one
//! as soon as it is made: no generation runs, and the next larger population follows.

use super::PopulationEngine;
use crate::error::{Error, Result};
use crate::gomea::mixing::{ElitistMixing, MixCount};
use crate::gomea::run::{Run, StopReason};

/// The settings of the interleaved multi-start scheme.
#[derive(Clone, Debug)]
pub struct ImsConfig {
    /// The size of the first population (n_base); each next one is twice the size of the one before.
    pub n_base: usize,
    /// The generations a population runs for every one of the next larger population (c_IMS).
    pub c_ims: u32,
    /// The largest population the scheme may start (memory cap); `None` for no cap.
    pub max_population: Option<usize>,
    /// The control (no GOM): every population ends as soon as its factory has made it (with its
    /// local search), before any generation; the scheme goes on with the next larger one.
    pub anneal_only: bool,
}

impl Default for ImsConfig {
    fn default() -> Self {
        ImsConfig { n_base: 16, c_ims: 4, max_population: None, anneal_only: false }
    }
}

/// Makes population `index` of the scheme with `size` solutions; None when the run had to stop
/// while the population was made (its evaluation is abandoned, see
/// [`crate::gomea::population::random_population`]). May fail with [`Error::OutOfMemory`]; the
/// scheme then stops growing instead of failing (or fails, for its first population).
pub type EngineFactory<'f> = dyn FnMut(usize, usize, &mut Run) -> Result<Option<Box<dyn PopulationEngine + 'f>>> + 'f;

struct Slot<'f> {
    /// The population while it lives; a terminated one is dropped (its memory, on the GPU too,
    /// goes back), keeping only what the report needs.
    engine: Option<Box<dyn PopulationEngine + 'f>>,
    size: usize,
    /// Generations of a terminated population.
    generations: u64,
    terminated: bool,
    /// Generations since the next larger population last ran one.
    since_larger: u32,
    /// The population's best fitness when it was last mixed into the elitist (partition mixing).
    mixed: Option<i64>,
}

/// The interleaved multi-start scheme over populations that its factory makes: which population runs the next generation, when a larger one starts and when one is terminated.
pub struct Ims<'f> {
    config: ImsConfig,
    factory: Box<EngineFactory<'f>>,
    slots: Vec<Slot<'f>>,
    /// No larger population may be started (cap reached or out of memory).
    growth_stopped: bool,
    /// Which population ran each generation, in order (for tests and reports).
    pub schedule: Vec<usize>,
    /// A note on why growth stopped, for the report.
    pub cap_note: Option<String>,
    /// Partition mixing into the elitist, beside the scheme's work ([`Ims::set_partition_mixing`]).
    mixing: ElitistMixing,
}

impl<'f> Ims<'f> {
    /// A scheme of `config` whose populations `factory` makes; an error names the setting that cannot work.
    pub fn new(config: ImsConfig, factory: Box<EngineFactory<'f>>) -> Result<Self> {
        if config.n_base < 2 {
            return Err(Error::option("n_base", "must be at least 2 (GOM needs a donor besides the parent)"));
        }
        if config.c_ims < 1 {
            return Err(Error::option("c_ims", "must be at least 1"));
        }
        if config.n_base > isize::MAX as usize {
            return Err(Error::option("n_base", format!("{}: no population that large can exist", config.n_base)));
        }
        if let Some(cap) = config.max_population
            && cap < config.n_base
        {
            return Err(Error::option(
                "max_population",
                format!("{cap} is smaller than n_base {}: no population could start", config.n_base),
            ));
        }
        Ok(Ims {
            config,
            factory,
            slots: Vec::new(),
            growth_stopped: false,
            schedule: Vec::new(),
            cap_note: None,
            mixing: ElitistMixing::default(),
        })
    }

    /// Sizes of the populations still alive.
    pub fn live_sizes(&self) -> Vec<usize> {
        self.slots.iter().filter(|s| !s.terminated).map(|s| s.size).collect()
    }

    /// The sizes of all populations ever started, alive or not.
    pub fn sizes(&self) -> Vec<usize> {
        self.slots.iter().map(|s| s.size).collect()
    }

    pub(crate) fn total_generations(&self) -> u64 {
        self.slots.iter().map(|s| s.engine.as_ref().map_or(s.generations, |e| e.generations())).sum()
    }

    /// Mixes solutions into `run`'s elitist from now on where `on` (the module
    /// `gomea::mixing`).
    pub fn set_partition_mixing(&mut self, run: &mut Run, on: bool) {
        self.mixing.set_on(run, on);
    }

    /// The mixes into the elitist so far, and their time.
    pub fn mixes(&self) -> MixCount {
        self.mixing.mixes
    }

    /// Runs until a limit of `run` is hit or every population is gone.
    pub fn run(&mut self, run: &mut Run) -> Result<()> {
        // Mixes into the elitist go on beside the generations (`ElitistMixing::overlapping_mix`).
        let mut mixing = std::mem::take(&mut self.mixing);
        let out = mixing.with_thread(run, |mixing, run| self.run_scheme(mixing, run));
        self.mixing = mixing;
        out
    }

    fn run_scheme(&mut self, mixing: &mut ElitistMixing, run: &mut Run) -> Result<()> {
        // The first population is made whatever the limits say (a set-up longer than the time
        // limit, a signal during it): every run reports at least its best solution.
        if self.slots.is_empty() && !self.spawn(mixing, run)? {
            run.set_stop(StopReason::AllPopulationsTerminated);
        }
        while !run.should_stop() && !run.stalled() {
            if self.config.anneal_only {
                // Every population so far was terminated when it was made.
                if !self.spawn(mixing, run)? {
                    run.set_stop(StopReason::AllPopulationsTerminated);
                    break;
                }
                continue;
            }
            let smallest = match self.slots.iter().position(|s| !s.terminated) {
                Some(i) => i,
                None => {
                    // Every population so far is gone: start the next larger one.
                    if !self.spawn(mixing, run)? {
                        run.set_stop(StopReason::AllPopulationsTerminated);
                        break;
                    }
                    self.slots.len() - 1
                }
            };
            self.step(smallest, mixing, run)?;
            run.status = format!("populations {:?}", self.live_sizes());
        }
        // A scheme that ended by itself (every population gone, no larger one possible) has no
        // next generation for the last queued mix to overlap: it is mixed now. A limit that
        // stopped the run stops it too.
        if run.stop_reason() == Some(StopReason::AllPopulationsTerminated) {
            mixing.overlapping_mix(run, |_| ());
        }
        Ok(())
    }

    /// Starts the next population; false when growth has stopped.
    fn spawn(&mut self, mixing: &mut ElitistMixing, run: &mut Run) -> Result<bool> {
        if self.growth_stopped {
            return Ok(false);
        }
        let index = self.slots.len();
        // n_base 2^index, checked: past the machine word the scheme has long run out of memory.
        let Some(size) = u32::try_from(index)
            .ok()
            .and_then(|i| 1usize.checked_shl(i))
            .and_then(|f| f.checked_mul(self.config.n_base))
            .filter(|&s| s <= isize::MAX as usize)
        else {
            self.growth_stopped = true;
            self.cap_note = Some(format!("population {index} would exceed the machine's address space"));
            return Ok(false);
        };
        if let Some(cap) = self.config.max_population
            && size > cap
        {
            self.growth_stopped = true;
            self.cap_note = Some(format!("population sizes capped at {cap} (memory); no population of {size} started"));
            run.note(self.cap_note.as_deref().unwrap_or_default());
            return Ok(false);
        }
        // The mix queued after the last generation overlaps the new population's making.
        let factory = &mut self.factory;
        match mixing.overlapping_mix(run, |run| factory(index, size, run)) {
            Ok(Some(engine)) => {
                // Every solution of the new population, mixed into the elitist (below
                // `NEW_POPULATIONS_BELOW` variables; from there on its best after its first
                // generation).
                let mut mixed = None;
                if mixing.mixes_new_populations(run) && !run.should_stop() {
                    let p = engine.population()?;
                    mixing.mix_population_into_elitist(run, &p.genes, &p.fitness);
                    mixed = Some(engine.best_fitness());
                }
                let ends = self.config.anneal_only;
                self.slots.push(Slot {
                    size: engine.size(),
                    // The control drops the population (its memory goes back) once it is made.
                    engine: (!ends).then_some(engine),
                    generations: 0,
                    terminated: ends,
                    since_larger: 0,
                    mixed,
                });
                if ends {
                    run.status = format!("anneal only: population {index} ({size} solutions) annealed, no GOM");
                }
                Ok(true)
            }
            // Abandoned because the run must stop; the run's stop reason says why.
            Ok(None) => Ok(false),
            Err(Error::OutOfMemory { population_size, message }) if index == 0 => Err(Error::option(
                "n_base",
                format!("{population_size}: the first population does not fit in memory: {message}"),
            )),
            Err(Error::OutOfMemory { population_size, message }) => {
                self.growth_stopped = true;
                self.cap_note = Some(format!(
                    "a population of {population_size} did not fit in memory ({message}); the scheme stops growing there"
                ));
                run.note(self.cap_note.as_deref().unwrap_or_default());
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// One generation of population i, and, every c_IMS of them, one of the next larger
    /// population (recursively), which is started when it does not exist yet.
    fn step(&mut self, i: usize, mixing: &mut ElitistMixing, run: &mut Run) -> Result<()> {
        if run.should_stop() {
            return Ok(());
        }
        // (A terminated population has no engine any more.)
        let slot = &mut self.slots[i];
        if let Some(engine) = slot.engine.as_mut() {
            // The mix queued after the generation before overlaps this one.
            mixing.overlapping_mix(run, |run| engine.generation(run))?;
            // The population's best, mixed into the elitist whenever it improved: during the
            // next generation or new population (and kept to be mixed again later).
            let best = engine.best_fitness();
            if run.partition_mixing() && slot.mixed.is_none_or(|f| best > f) && !run.should_stop() {
                mixing.queue_best(run, i, engine.best_solution()?);
                slot.mixed = Some(best);
            }
            self.schedule.push(i);
            self.check_termination(i);
        }
        self.slots[i].since_larger += 1;
        if self.slots[i].since_larger >= self.config.c_ims {
            self.slots[i].since_larger = 0;
            let next = i + 1;
            if next == self.slots.len() && !self.spawn(mixing, run)? {
                return Ok(());
            }
            if next < self.slots.len() {
                self.step(next, mixing, run)?;
            }
        }
        Ok(())
    }

    /// Applies the termination rules after a generation of population i, and drops the
    /// populations they end.
    fn check_termination(&mut self, i: usize) {
        let average = |slot: &Slot| slot.engine.as_ref().map(|e| e.average_fitness());
        if self.slots[i].engine.as_ref().is_some_and(|e| e.converged()) {
            self.slots[i].terminated = true;
        }
        // A larger population with a better average ends every smaller one.
        if let Some(avg) = average(&self.slots[i]).filter(|_| i > 0 && !self.slots[i].terminated) {
            for j in 0..i {
                if !self.slots[j].terminated && average(&self.slots[j]).is_some_and(|a| a < avg) {
                    for k in 0..=j {
                        self.slots[k].terminated = true;
                    }
                }
            }
        }
        for slot in &mut self.slots {
            if slot.terminated
                && let Some(engine) = slot.engine.take()
            {
                slot.generations = engine.generations();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::gomea::Population;
    use crate::gomea::run::Limits;
    use crate::problem::generate::default_instance;
    use crate::problem::maxcut::MaxCut;

    /// A population that never converges and whose generation costs one evaluation, and records
    /// that it ran.
    struct Counting {
        n: usize,
        generations: u64,
        log: Rc<RefCell<Vec<usize>>>,
    }

    impl PopulationEngine for Counting {
        fn size(&self) -> usize {
            self.n
        }
        fn generation(&mut self, run: &mut Run) -> Result<()> {
            self.generations += 1;
            self.log.borrow_mut().push(self.n);
            run.counter.add_subfunctions(run.problem.subfunctions() as u64);
            Ok(())
        }
        fn generations(&self) -> u64 {
            self.generations
        }
        fn average_fitness(&self) -> f64 {
            0.0
        }
        fn converged(&self) -> bool {
            false
        }
        fn population(&self) -> Result<Population> {
            Err(Error::Internal("not kept".into()))
        }
        fn best_fitness(&self) -> i64 {
            0
        }
        fn best_solution(&self) -> Result<Vec<u8>> {
            Err(Error::Internal("not kept".into()))
        }
    }

    /// The scheme over counting populations (n_base 4, cap 32, at most 100 evaluations): the
    /// sizes made, the sizes whose generation ran, the scheme's record, and why it stopped.
    fn scheme(anneal_only: bool) -> (Vec<usize>, Vec<usize>, Vec<usize>, u64, Option<StopReason>) {
        let problem = MaxCut::new(default_instance()).unwrap();
        let (made, ran) = (Rc::new(RefCell::new(Vec::new())), Rc::new(RefCell::new(Vec::new())));
        let factory = {
            let (made, ran) = (made.clone(), ran.clone());
            move |_: usize, size: usize, _: &mut Run| -> Result<Option<Box<dyn PopulationEngine>>> {
                made.borrow_mut().push(size);
                Ok(Some(Box::new(Counting { n: size, generations: 0, log: ran.clone() })))
            }
        };
        let config = ImsConfig { n_base: 4, c_ims: 2, max_population: Some(32), anneal_only };
        let mut ims = Ims::new(config, Box::new(factory)).unwrap();
        let mut run = Run::new(&problem, Limits { evaluations: Some(100.0), ..Limits::default() });
        ims.run(&mut run).unwrap();
        assert_eq!(ims.sizes(), *made.borrow());
        let (made, ran) = (made.borrow().clone(), ran.borrow().clone());
        (made, ran, ims.schedule.iter().map(|&i| 4 << i).collect(), ims.total_generations(), run.stop_reason())
    }

    #[test]
    fn anneal_only_makes_every_population_and_runs_no_generation() {
        let (made, ran, schedule, generations, stop) = scheme(true);
        assert_eq!(made, [4, 8, 16, 32], "the same sizes and growth, up to the cap");
        assert!(ran.is_empty() && schedule.is_empty(), "no generation ran: {ran:?}");
        assert_eq!(generations, 0);
        assert_eq!(stop, Some(StopReason::AllPopulationsTerminated), "the cap ends the control");
        // The same scheme without the control runs generations, interleaved, until the budget.
        let (made, ran, schedule, generations, stop) = scheme(false);
        assert_eq!(made, [4, 8, 16, 32]);
        assert_eq!((ran.len(), generations), (100, 100));
        assert_eq!(ran, schedule);
        assert_eq!(&ran[..4], [4, 4, 8, 4]);
        assert_eq!(stop, Some(StopReason::EvaluationLimit));
    }
}
