//! One population's generations timed on a backend, as `pgomea bench throughput` measures them:
//! parallel GOM from the same initial population on each path a backend has (so that each
//! measures the same generations, which the backends compute identically), and serial GOMEA on the
//! same population size for comparison.

use std::sync::Arc;
use std::time::Instant;

use super::Case;
use crate::backend::{cpu, cuda};
use crate::error::{Error, Result};
use crate::gomea::parallel::{ParallelGomea, StageTimes, Stages};
use crate::gomea::population::{PopulationStart, initial_population};
use crate::gomea::run::{Limits, Run};
use crate::gomea::serial::{self, FosOrder, LinkageSource, SerialConfig};
use crate::gomea::{Population, PopulationEngine};
#[cfg(feature = "cuda")]
use crate::stop::StopCheck;

/// What [`Bench::parallel`] timed over its generations.
#[derive(Clone, Debug)]
pub struct Timed {
    /// The backend in words (CUDA: the device and how it ran whole generations).
    pub backend: String,
    /// Wall time on the fastest path (CUDA: one cooperative launch per generation), seconds.
    pub wall_s: f64,
    /// Subfunction evaluations on that path.
    pub evaluations: f64,
    /// Each stage's time with a synchronisation after every stage, in the order of `Stage::ALL`,
    /// seconds.
    pub stage_s: [f64; 6],
    /// The generations' wall time in that measurement (minus the stages: the host's own work).
    pub synchronised_s: f64,
    /// Wall time with one launch per stage and group, unsynchronised, seconds.
    pub launches_s: f64,
    /// CUDA only: wall time with the stages of every group replayed as one captured graph.
    pub graph_s: Option<f64>,
}

/// Where the measured populations run, opened once for every population size.
enum Device {
    Cpu,
    #[cfg(feature = "cuda")]
    Cuda(Arc<cuda::Gpu>, Arc<cuda::SharedArrays>),
}

/// A case's backend, opened once, for timing populations of several sizes.
pub struct Bench {
    case: Case,
    device: Device,
    pool: Arc<rayon::ThreadPool>,
}

impl Bench {
    /// Opens the case's backend: the GPU (the case's arrays uploaded) where `gpu`, else the CPU
    /// backend on the case's threads.
    pub fn open(case: Case, gpu: bool) -> Result<Bench> {
        let device = if gpu { Bench::open_gpu(&case)? } else { Device::Cpu };
        let pool = Arc::new(cpu::thread_pool(case.config.threads)?);
        Ok(Bench { case, device, pool })
    }

    #[cfg(feature = "cuda")]
    fn open_gpu(case: &Case) -> Result<Device> {
        let gpu = cuda::Gpu::shared()?;
        let shared = cuda::SharedArrays::upload(&gpu, &*case.problem, &case.layout, None, &StopCheck::never())?;
        Ok(Device::Cuda(gpu, shared))
    }

    #[cfg(not(feature = "cuda"))]
    fn open_gpu(_: &Case) -> Result<Device> {
        match *cuda::Gpu::shared()? {}
    }

    /// The case measured.
    pub fn case(&self) -> &Case {
        &self.case
    }

    /// Times `generations` generations of parallel GOM of a population of `n` after one warm-up
    /// generation (module loading, graph capture, first-touch allocations), on every path of the
    /// backend: the fastest, one launch per stage and group, each stage synchronised, and (CUDA)
    /// graph replays.
    pub fn parallel(&self, n: usize, generations: u32) -> Result<Timed> {
        let layout = &self.case.layout;
        // P, O, O' and the stage rows of every solution, before they are allocated.
        let per_solution =
            3 * layout.variables as u128 + 32 + 13 * layout.max_group_slots as u128 + 8 * layout.max_group_deps as u128;
        crate::problem::memory::ensure(n as u128 * per_solution, &format!("a population of {n}"))?;
        let seed = self.case.config.seed;
        match &self.device {
            #[cfg(feature = "cuda")]
            Device::Cuda(gpu, shared) => {
                let tuning = self.case.config.cuda;
                let graph = cuda::CudaTuning { generation: Some(cuda::WholeGeneration::Graph), ..tuning };
                let how = gpu.whole_generation(
                    self.case.problem.functions().arrays().kind_name(),
                    &tuning,
                    n,
                    layout.slot_set.len(),
                    layout.groups(),
                )?;
                let mut make = |p, pass| {
                    let tuning = if pass == 3 { &graph } else { &tuning };
                    cuda::new_backend(gpu.clone(), shared.clone(), layout.clone(), p, seed, tuning)
                };
                self.measure(format!("cuda ({}; {how})", gpu.name()), n, generations, true, &mut make)
            }
            Device::Cpu => {
                let problem = &*self.case.problem;
                let mut make = |p, _| cpu::new_backend(problem, layout.clone(), p, seed, self.pool.clone());
                let name = format!("cpu ({} threads)", self.pool.current_num_threads());
                self.measure(name, n, generations, false, &mut make)
            }
        }
    }

    /// Passes from the same initial population: 0, the fastest path; 1, one launch per stage
    /// and group without synchronisation; 2, per-stage timing; with `graph_pass`, 3, whole
    /// generations as CUDA graph replays. `make(population, pass)` builds the backend of a pass.
    fn measure<'a>(
        &'a self,
        backend: String,
        n: usize,
        generations: u32,
        graph_pass: bool,
        make: &mut dyn FnMut(Population, u8) -> Result<Stages<'a>>,
    ) -> Result<Timed> {
        let problem = &*self.case.problem;
        let seed = self.case.config.seed;
        let mut pass = |mode: u8| -> Result<(f64, f64, StageTimes)> {
            let mut run = Run::new(problem, Limits::default());
            // No time limit: the population is made whole.
            let population = initial_population(problem, n, seed, &mut run)
                .ok_or_else(|| Error::Internal("the first population was abandoned".into()))?;
            let fitness = population.fitness.clone();
            let mut engine = ParallelGomea::new(make(population, mode)?, self.case.layout.clone(), seed, fitness);
            engine.generation(&mut run)?; // warm-up: module JIT, graph capture, first-touch allocations
            if mode == 2 {
                engine.timing = Some(StageTimes::default());
            }
            let e0 = run.counter.subfunction_evaluations();
            let t0 = Instant::now();
            for _ in 0..generations {
                engine.generation_with(&mut run, mode == 1, |_, _| Ok(()))?;
            }
            engine.backend_mut().synchronize()?;
            let wall = t0.elapsed().as_secs_f64();
            Ok((wall, (run.counter.subfunction_evaluations() - e0) as f64, engine.timing.take().unwrap_or_default()))
        };
        let (wall_s, evaluations, _) = pass(0)?;
        let (launches_s, _, _) = pass(1)?;
        let (_, _, times) = pass(2)?;
        let graph_s = if graph_pass { Some(pass(3)?.0) } else { None };
        Ok(Timed {
            backend,
            wall_s,
            evaluations,
            stage_s: times.stages.map(|d| d.as_secs_f64()),
            synchronised_s: times.generations.as_secs_f64(),
            launches_s,
            graph_s,
        })
    }

    /// Times `generations` generations of serial GOMEA (Forced Improvement on, the case's linkage
    /// sets in a random order each generation) of a population of `n` on one core, after one
    /// warm-up generation: the wall time in seconds and the subfunction evaluations.
    pub fn serial(&self, n: usize, generations: u32) -> Result<(f64, f64)> {
        let problem = &*self.case.problem;
        let mut run = Run::new(problem, Limits::default());
        let config = SerialConfig {
            forced_improvement: true,
            local_search: None,
            order: FosOrder::Random,
            linkage: LinkageSource::Static(self.case.fos.clone()),
            start: PopulationStart::Random,
        };
        let mut s = serial::new_engine(config, problem, n, self.case.config.seed, &mut run)
            .ok_or_else(|| Error::Internal("the first population was abandoned".into()))?;
        s.generation(&mut run)?;
        let e0 = run.counter.subfunction_evaluations();
        let t0 = Instant::now();
        for _ in 0..generations {
            s.generation(&mut run)?;
        }
        Ok((t0.elapsed().as_secs_f64(), (run.counter.subfunction_evaluations() - e0) as f64))
    }
}
