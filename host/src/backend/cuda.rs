//! The CUDA backend of parallel GOM on cudarc's driver API: the kernels of `device/` (compiled to
//! PTX by build.rs and embedded in the binary), the instance and colour-group arrays uploaded once
//! per run, and each population resident on the GPU. Only the fitness vector (n values) comes back
//! per generation, and one solution when the elitist improves.
//!
//! A whole generation runs as one cooperative launch of `pgomea_generation` (grid barriers
//! between the stages) where the device allows it, else as a replayed CUDA graph of the six stage
//! kernels per group ([`WholeGeneration`]); tests, the self-test and per-stage timing launch the
//! stage kernels one by one.

use std::sync::Arc;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use pgomea_device::args::GomArgs;

use crate::error::{Error, Result};
use crate::gomea::Population;
use crate::gomea::parallel::{StageBackend, StageState};
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::stages::GroupKey;
use crate::problem::maxcut::MaxCut;

/// The kernels, in stage order, then the utility kernels.
const STAGE_KERNELS: [&str; 6] = [
    "pgomea_donor_selection",
    "pgomea_donor_insertion",
    "pgomea_subfunction_evaluation",
    "pgomea_reduce_by_key",
    "pgomea_improvement_mask",
    "pgomea_reset_insert",
];
const EQUAL_KERNEL: &str = "pgomea_equal_to_reference";
const GENERATION_KERNEL: &str = "pgomea_generation";

/// Warps per block of the warp-per-item kernels, threads per block of the thread-per-item ones.
const WARPS_PER_BLOCK: u32 = 4;
const THREADS_PER_BLOCK: u32 = 256;
/// Blocks of 128 threads per multiprocessor in a full grid: 2048 threads, a full H100 SM.
const DEFAULT_BLOCKS_PER_SM: u32 = 16;
/// Threads per block of the whole-generation kernel, and the most blocks per multiprocessor (the
/// occupancy of the kernel may allow fewer: all blocks of a cooperative launch must be resident).
const GENERATION_BLOCK: u32 = 512;
const GENERATION_BLOCKS_PER_SM: u32 = 2;

/// How the CUDA backend runs a whole generation when it need not stop between groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WholeGeneration {
    /// One cooperative launch of the whole-generation kernel (grid barriers between stages).
    Cooperative,
    /// The six stage kernels of every group, captured once as a CUDA graph and replayed.
    Graph,
}

impl WholeGeneration {
    /// `PGOMEA_CUDA_GENERATION=graph|cooperative` overrides the default (for comparisons).
    fn from_env() -> Option<WholeGeneration> {
        match std::env::var("PGOMEA_CUDA_GENERATION").ok()?.as_str() {
            "graph" => Some(WholeGeneration::Graph),
            "cooperative" => Some(WholeGeneration::Cooperative),
            _ => None,
        }
    }
}

fn env_u32(name: &str) -> Option<u32> {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).filter(|&b| b > 0)
}

/// The kernel argument block, passed by value.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct Args(GomArgs);
// SAFETY: GomArgs is #[repr(C)], Copy, and made of plain integers: valid to copy to the device.
unsafe impl DeviceRepr for Args {}

fn cuda_err(what: &str) -> impl Fn(DriverError) -> Error + '_ {
    move |e| {
        let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
        Error::Cuda(format!("{what}: {name}"))
    }
}

/// Maps an allocation failure to [`Error::OutOfMemory`] so that the multi-start scheme can stop
/// growing instead of failing.
fn alloc_err(population_size: usize) -> impl Fn(DriverError) -> Error {
    move |e| {
        if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            Error::OutOfMemory { population_size, message: "cuMemAlloc failed".into() }
        } else {
            cuda_err("allocation")(e)
        }
    }
}

/// Whether a CUDA driver and a device are there; the device's name, or why not.
pub fn probe() -> std::result::Result<String, String> {
    // SAFETY: only tries to open the driver library; cudarc would panic later without it.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver (libcuda.so) found".into());
    }
    let count = CudaContext::device_count().map_err(|e| format!("the CUDA driver did not start: {e:?}"))?;
    if count < 1 {
        return Err("the CUDA driver reports no device".into());
    }
    let ctx = CudaContext::new(0).map_err(|e| format!("cannot open CUDA device 0: {e:?}"))?;
    ctx.name().map_err(|e| format!("{e:?}"))
}

/// One line per GPU: index, name, compute capability, memory.
pub fn devices() -> Result<Vec<String>> {
    probe().map_err(Error::Cuda)?;
    let count = CudaContext::device_count().map_err(cuda_err("device count"))?;
    let mut out = Vec::new();
    for i in 0..count as usize {
        let ctx = CudaContext::new(i).map_err(cuda_err("open device"))?;
        let (major, minor) = ctx.compute_capability().map_err(cuda_err("compute capability"))?;
        let (free, total) = ctx.mem_get_info().map_err(cuda_err("memory info"))?;
        let sms = ctx
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(cuda_err("attribute"))?;
        out.push(format!(
            "{i}: {} (compute capability {major}.{minor}, {sms} SMs, {:.1} GiB, {:.1} GiB free)",
            ctx.name().map_err(cuda_err("name"))?,
            total as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64
        ));
    }
    Ok(out)
}

/// An open GPU with the kernels loaded.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    _module: Arc<CudaModule>,
    stages: Vec<CudaFunction>,
    equal: CudaFunction,
    generation: CudaFunction,
    /// The grid of the whole-generation kernel (all blocks resident), or None where the device
    /// cannot launch cooperatively.
    generation_grid: Option<LaunchConfig>,
    name: String,
    multiprocessors: u32,
    /// Most blocks (of 128 threads) per multiprocessor in one grid; the kernels loop grid-stride
    /// over the rest. `PGOMEA_BLOCKS_PER_SM` overrides it (for tuning).
    blocks_per_sm: u32,
}

impl Gpu {
    pub fn open(ptx: Option<&'static str>, ordinal: usize) -> Result<Gpu> {
        probe().map_err(|why| Error::Cuda(format!("{why}; use --backend cpu")))?;
        let ptx = ptx.ok_or_else(|| Error::Cuda("this build carries no kernels (PTX)".into()))?;
        let ctx = CudaContext::new(ordinal).map_err(cuda_err("open device"))?;
        // One stream and raw pointers in one argument block: cudarc's per-buffer event tracking
        // would only add two events per launch.
        // SAFETY: all work of this context goes to the one stream created below.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(cuda_err("stream"))?;
        let module = ctx.load_module(Ptx::from_src(ptx)).map_err(cuda_err("loading the kernels (PTX)"))?;
        let load = |n: &str| module.load_function(n).map_err(cuda_err("kernel lookup"));
        let stages = STAGE_KERNELS.iter().map(|n| load(n)).collect::<Result<Vec<_>>>()?;
        let equal = load(EQUAL_KERNEL)?;
        let generation = load(GENERATION_KERNEL)?;
        let name = ctx.name().map_err(cuda_err("name"))?;
        use cudarc::driver::sys::CUdevice_attribute as A;
        let multiprocessors = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(cuda_err("attribute"))? as u32;
        let blocks_per_sm = env_u32("PGOMEA_BLOCKS_PER_SM").unwrap_or(DEFAULT_BLOCKS_PER_SM);
        let cooperative = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH).map_err(cuda_err("attribute"))? == 1;
        let generation_grid = if cooperative {
            // Tuning knobs: PGOMEA_GENERATION_BLOCK (threads, a multiple of 32) and
            // PGOMEA_GENERATION_BLOCKS_PER_SM.
            let block = env_u32("PGOMEA_GENERATION_BLOCK").map(|b| b.div_ceil(32) * 32).unwrap_or(GENERATION_BLOCK).min(1024);
            let resident = generation.occupancy_max_active_blocks_per_multiprocessor(block, 0, None).map_err(cuda_err("occupancy"))?;
            let per_sm = resident.min(env_u32("PGOMEA_GENERATION_BLOCKS_PER_SM").unwrap_or(GENERATION_BLOCKS_PER_SM));
            (per_sm > 0).then(|| LaunchConfig { grid_dim: (per_sm * multiprocessors, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 })
        } else {
            None
        };
        Ok(Gpu { ctx, stream, _module: module, stages, equal, generation, generation_grid, name, multiprocessors, blocks_per_sm })
    }

    /// The launch shape of the whole-generation kernel, if the device can launch it.
    pub fn generation_grid(&self) -> Option<LaunchConfig> {
        self.generation_grid
    }

    /// The process's one open GPU (device 0), opened on first use: creating a context and loading
    /// the kernels costs far more than most runs' first generations, and every run, self-test
    /// case and benchmark pass of a process can share them. An error is remembered too.
    pub fn shared(ptx: Option<&'static str>) -> Result<Arc<Gpu>> {
        static GPU: std::sync::OnceLock<std::result::Result<Arc<Gpu>, String>> = std::sync::OnceLock::new();
        GPU.get_or_init(|| Gpu::open(ptx, 0).map(Arc::new).map_err(|e| e.to_string())).clone().map_err(Error::Cuda)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn free_memory(&self) -> Result<usize> {
        Ok(self.ctx.mem_get_info().map_err(cuda_err("memory info"))?.0)
    }

    /// The grid for `items` work items: enough blocks to cover them, at most a full chip's worth
    /// (the kernels loop grid-stride over the rest).
    fn grid(&self, items: u64, per_warp: bool) -> LaunchConfig {
        let (per_block, threads, cap) = if per_warp {
            (WARPS_PER_BLOCK as u64, 32 * WARPS_PER_BLOCK, self.blocks_per_sm as u64 * self.multiprocessors as u64)
        } else {
            (THREADS_PER_BLOCK as u64, THREADS_PER_BLOCK, (self.blocks_per_sm as u64 / 2).max(1) * self.multiprocessors as u64)
        };
        let blocks = items.div_ceil(per_block).clamp(1, cap.max(1)) as u32;
        LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
    }

    fn launch(&self, f: &CudaFunction, args: &GomArgs, cfg: LaunchConfig) -> Result<()> {
        let a = Args(*args);
        let mut b = self.stream.launch_builder(f);
        b.arg(&a);
        // SAFETY: the kernel reads and writes only through the pointers of `a`, which point to
        // live allocations of the sizes the host computed from the same layout.
        unsafe { b.launch(cfg) }.map_err(cuda_err("kernel launch"))?;
        Ok(())
    }

    /// A cooperative launch: all blocks of `cfg` resident at once, as grid barriers need.
    fn launch_cooperative(&self, f: &CudaFunction, args: &GomArgs, cfg: LaunchConfig) -> Result<()> {
        let a = Args(*args);
        let mut b = self.stream.launch_builder(f);
        b.arg(&a);
        // SAFETY: as in `launch`; the grid is at most the kernel's occupancy on every
        // multiprocessor, which the driver checks (it refuses larger cooperative grids).
        unsafe { b.launch_cooperative(cfg) }.map_err(cuda_err("cooperative kernel launch"))?;
        Ok(())
    }

    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(cuda_err("kernel execution"))
    }
}

fn ptr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    let (p, _sync) = s.device_ptr(stream);
    p
}

/// The problem and layout arrays, uploaded once per run and shared by all populations.
pub struct SharedArrays {
    group_slots: CudaSlice<u32>,
    group_crews: CudaSlice<u32>,
    slot_set: CudaSlice<u32>,
    var_offsets: CudaSlice<u32>,
    vars: CudaSlice<u32>,
    dep_offsets: CudaSlice<u32>,
    dep_edges: CudaSlice<u32>,
    ends: CudaSlice<u32>,
    weights: CudaSlice<i64>,
}

impl SharedArrays {
    pub fn upload(gpu: &Gpu, problem: &MaxCut, layout: &GroupLayout) -> Result<Arc<SharedArrays>> {
        let up = |v: &[u32]| gpu.stream.clone_htod(v).map_err(cuda_err("upload"));
        Ok(Arc::new(SharedArrays {
            group_slots: up(&layout.group_slots)?,
            group_crews: up(&layout.group_crews)?,
            slot_set: up(&layout.slot_set)?,
            var_offsets: up(&layout.var_offsets)?,
            vars: up(&layout.vars)?,
            dep_offsets: up(&layout.dep_offsets)?,
            dep_edges: up(&layout.dep_edges)?,
            ends: up(&problem.ends)?,
            weights: gpu.stream.clone_htod(&problem.weights).map_err(cuda_err("upload"))?,
        }))
    }
}

/// One population on the GPU, running the stages of parallel GOM.
pub struct CudaStages {
    gpu: Arc<Gpu>,
    // Keeps the shared arrays alive: `base` holds their device pointers.
    _shared: Arc<SharedArrays>,
    layout: Arc<GroupLayout>,
    n: usize,
    parents: CudaSlice<u8>,
    parent_fitness: CudaSlice<i64>,
    offspring: CudaSlice<u8>,
    work: CudaSlice<u8>,
    fitness: CudaSlice<i64>,
    donors: CudaSlice<i32>,
    diff: CudaSlice<i64>,
    delta: CudaSlice<i64>,
    mask: CudaSlice<u8>,
    is_elitist: CudaSlice<u8>,
    reference: CudaSlice<u8>,
    schedule: CudaSlice<u32>,
    barrier: CudaSlice<u32>,
    base: GomArgs,
    whole: WholeGeneration,
    /// The launch shape of each stage kernel, the same for every group.
    grids: [LaunchConfig; 6],
    /// A whole generation (every group's six stages) captured once, replayed every generation.
    graph: Option<cudarc::driver::CudaGraph>,
}

impl CudaStages {
    pub fn new(gpu: Arc<Gpu>, shared: Arc<SharedArrays>, layout: Arc<GroupLayout>, population: Population) -> Result<CudaStages> {
        let n = population.n;
        let l = layout.variables;
        let (gs, ds) = (layout.max_group_slots.max(1), layout.max_group_deps.max(1));
        let oom = alloc_err(n);
        let s = &gpu.stream;
        // SAFETY (alloc): every buffer is written before it is read: offspring/work/fitness at
        // the start of each generation, donors..mask by the stages in order, is_elitist at the
        // start of each generation, reference before each comparison.
        let parents = s.clone_htod(&population.genes).map_err(&oom)?;
        let parent_fitness = s.clone_htod(&population.fitness).map_err(&oom)?;
        let offspring = unsafe { s.alloc::<u8>(n * l) }.map_err(&oom)?;
        let work = unsafe { s.alloc::<u8>(n * l) }.map_err(&oom)?;
        let fitness = unsafe { s.alloc::<i64>(n) }.map_err(&oom)?;
        let donors = unsafe { s.alloc::<i32>(n * gs) }.map_err(&oom)?;
        let diff = unsafe { s.alloc::<i64>(n * ds) }.map_err(&oom)?;
        let delta = unsafe { s.alloc::<i64>(n * gs) }.map_err(&oom)?;
        let mask = unsafe { s.alloc::<u8>(n * gs) }.map_err(&oom)?;
        let is_elitist = unsafe { s.alloc::<u8>(n) }.map_err(&oom)?;
        let reference = unsafe { s.alloc::<u8>(l.max(1)) }.map_err(&oom)?;
        let schedule = unsafe { s.alloc::<u32>(1 + layout.groups().max(1)) }.map_err(&oom)?;
        let barrier = s.alloc_zeros::<u32>(1).map_err(&oom)?;
        let base = GomArgs {
            group_slots: ptr(&shared.group_slots, s),
            group_crews: ptr(&shared.group_crews, s),
            n: n as u32,
            l: l as u32,
            row_slots: gs as u32,
            row_deps: ds as u32,
            groups: layout.groups() as u32,
            slot_set: ptr(&shared.slot_set, s),
            var_offsets: ptr(&shared.var_offsets, s),
            vars: ptr(&shared.vars, s),
            dep_offsets: ptr(&shared.dep_offsets, s),
            dep_edges: ptr(&shared.dep_edges, s),
            ends: ptr(&shared.ends, s),
            weights: ptr(&shared.weights, s),
            ..GomArgs::default()
        };
        let (pairs, deps) = ((n * layout.max_group_slots) as u64, (n * layout.max_group_deps) as u64);
        let grids = [gpu.grid(pairs, true), gpu.grid(pairs, true), gpu.grid(deps, false), gpu.grid(pairs, true), gpu.grid(pairs, false), gpu.grid(pairs, true)];
        let whole = match (WholeGeneration::from_env(), gpu.generation_grid) {
            (Some(WholeGeneration::Graph), _) | (_, None) => WholeGeneration::Graph,
            _ => WholeGeneration::Cooperative,
        };
        let mut st = CudaStages {
            gpu, _shared: shared, layout, n, parents, parent_fitness, offspring, work, fitness, donors, diff, delta, mask, is_elitist, reference, schedule, barrier, base, whole, grids, graph: None,
        };
        st.refresh_pointers();
        Ok(st)
    }

    /// Writes the population buffers' device pointers into the argument block. They never change
    /// afterwards (P = O is a copy, not a swap), so a captured graph stays valid.
    fn refresh_pointers(&mut self) {
        let s = &self.gpu.stream;
        self.base.parents = ptr(&self.parents, s);
        self.base.offspring = ptr(&self.offspring, s);
        self.base.work = ptr(&self.work, s);
        self.base.fitness = ptr(&self.fitness, s);
        self.base.donors = ptr(&self.donors, s);
        self.base.diff = ptr(&self.diff, s);
        self.base.delta = ptr(&self.delta, s);
        self.base.mask = ptr(&self.mask, s);
        self.base.is_elitist = ptr(&self.is_elitist, s);
        self.base.reference = ptr(&self.reference, s);
        self.base.schedule = ptr(&self.schedule, s);
        self.base.barrier = ptr(&self.barrier, s);
    }

    /// Chooses how whole generations run; a cooperative choice falls back to the graph where the
    /// device cannot launch cooperatively.
    pub fn set_whole_generation(&mut self, whole: WholeGeneration) {
        self.whole = if self.gpu.generation_grid.is_some() { whole } else { WholeGeneration::Graph };
    }

    /// Marks in `is_elitist` the solutions of P equal to `reference` (one warp per solution).
    fn compare_with_reference(&mut self, reference: &[u8]) -> Result<()> {
        self.gpu.stream.memcpy_htod(reference, &mut self.reference).map_err(cuda_err("upload"))?;
        self.gpu.launch(&self.gpu.equal, &self.base, self.gpu.grid(self.n as u64, true))
    }

}

impl StageBackend for CudaStages {
    fn start_generation(&mut self, elitist: &[u8], elitist_fitness: i64, fitness: &[i64]) -> Result<()> {
        let s = self.gpu.stream.clone();
        s.memcpy_dtod(&self.parents, &mut self.offspring).map_err(cuda_err("copy"))?;
        s.memcpy_dtod(&self.parents, &mut self.work).map_err(cuda_err("copy"))?;
        s.memcpy_dtod(&self.parent_fitness, &mut self.fitness).map_err(cuda_err("copy"))?;
        // Equality with the elitist only matters where the fitness is equal; compare on the GPU
        // only when some solution has the elitist's fitness.
        if fitness.contains(&elitist_fitness) {
            self.compare_with_reference(elitist)?;
        } else {
            s.memset_zeros(&mut self.is_elitist).map_err(cuda_err("memset"))?;
        }
        Ok(())
    }

    fn begin_groups(&mut self, seed: u64, generation: u32, order: &[u32]) -> Result<()> {
        if self.base.seed != seed {
            self.base.seed = seed;
            self.graph = None;
        }
        let mut schedule = Vec::with_capacity(order.len() + 1);
        schedule.push(generation);
        schedule.extend_from_slice(order);
        self.gpu.stream.memcpy_htod(&schedule, &mut self.schedule).map_err(cuda_err("upload"))
    }

    fn stage(&mut self, stage: usize, key: GroupKey) -> Result<()> {
        // Launched one by one, each group gets a grid of its own size (a graph node cannot).
        let g = key.group as usize;
        let n = self.n as u64;
        let cfg = match stage {
            2 => self.gpu.grid(n * self.layout.deps(g).len() as u64, false),
            4 => self.gpu.grid(n * self.layout.slots(g).len() as u64, false),
            _ => self.gpu.grid(n * self.layout.slots(g).len() as u64, true),
        };
        let args = GomArgs { seed: key.seed, step: key.step, ..self.base };
        self.gpu.launch(&self.gpu.stages[stage], &args, cfg)
    }

    fn run_all_groups(&mut self) -> Result<bool> {
        if let (WholeGeneration::Cooperative, Some(cfg)) = (self.whole, self.gpu.generation_grid) {
            self.gpu.stream.memset_zeros(&mut self.barrier).map_err(cuda_err("memset"))?;
            self.gpu.launch_cooperative(&self.gpu.generation, &self.base, cfg)?;
            return Ok(true);
        }
        if self.graph.is_none() {
            let s = self.gpu.stream.clone();
            s.begin_capture(cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED).map_err(cuda_err("graph capture"))?;
            let mut launched = Ok(());
            'capture: for step in 0..self.layout.groups() as u32 {
                for stage in 0..6 {
                    // Graph nodes serve whichever group the schedule puts at their step: one grid
                    // size for all groups.
                    let args = GomArgs { step, ..self.base };
                    launched = self.gpu.launch(&self.gpu.stages[stage], &args, self.grids[stage]);
                    if launched.is_err() {
                        break 'capture;
                    }
                }
            }
            let graph = s.end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0)).map_err(cuda_err("graph capture"))?;
            launched?;
            self.graph = graph;
        }
        match &self.graph {
            Some(g) => g.launch().map_err(cuda_err("graph launch"))?,
            None => return Ok(false),
        }
        Ok(true)
    }

    fn finish_generation(&mut self) -> Result<Vec<i64>> {
        let s = self.gpu.stream.clone();
        s.memcpy_dtod(&self.offspring, &mut self.parents).map_err(cuda_err("copy"))?;
        s.memcpy_dtod(&self.fitness, &mut self.parent_fitness).map_err(cuda_err("copy"))?;
        s.clone_dtoh(&self.parent_fitness).map_err(cuda_err("download"))
    }

    fn synchronize(&mut self) -> Result<()> {
        self.gpu.synchronize()
    }

    fn solution(&self, i: usize) -> Result<Vec<u8>> {
        let l = self.layout.variables;
        self.gpu.stream.clone_dtoh(&self.parents.slice(i * l..(i + 1) * l)).map_err(cuda_err("download"))
    }

    fn population(&self) -> Result<Population> {
        let s = &self.gpu.stream;
        Ok(Population {
            n: self.n,
            l: self.layout.variables,
            genes: s.clone_dtoh(&self.parents).map_err(cuda_err("download"))?,
            fitness: s.clone_dtoh(&self.parent_fitness).map_err(cuda_err("download"))?,
        })
    }

    fn genotypes_equal(&self) -> Result<bool> {
        // Rare (only asked when all fitness values are equal): compare on the host.
        Ok(self.population()?.converged())
    }

    fn state(&self) -> Result<StageState> {
        let s = &self.gpu.stream;
        fn d<T: DeviceRepr + Default + Clone>(s: &Arc<CudaStream>, b: &CudaSlice<T>) -> Result<Vec<T>> {
            s.clone_dtoh(b).map_err(cuda_err("download"))
        }
        Ok(StageState {
            parents: d(s, &self.parents)?,
            parent_fitness: d(s, &self.parent_fitness)?,
            offspring: d(s, &self.offspring)?,
            work: d(s, &self.work)?,
            fitness: d(s, &self.fitness)?,
            donors: d(s, &self.donors)?,
            diff: d(s, &self.diff)?,
            delta: d(s, &self.delta)?,
            mask: d(s, &self.mask)?,
            is_elitist: d(s, &self.is_elitist)?,
        })
    }

    fn set_state(&mut self, st: &StageState) -> Result<()> {
        let s = self.gpu.stream.clone();
        fn u<T: DeviceRepr>(s: &Arc<CudaStream>, h: &[T], b: &mut CudaSlice<T>) -> Result<()> {
            s.memcpy_htod(h, b).map_err(cuda_err("upload"))
        }
        u(&s, &st.parents, &mut self.parents)?;
        u(&s, &st.parent_fitness, &mut self.parent_fitness)?;
        u(&s, &st.offspring, &mut self.offspring)?;
        u(&s, &st.work, &mut self.work)?;
        u(&s, &st.fitness, &mut self.fitness)?;
        u(&s, &st.donors, &mut self.donors)?;
        u(&s, &st.diff, &mut self.diff)?;
        u(&s, &st.delta, &mut self.delta)?;
        u(&s, &st.mask, &mut self.mask)?;
        u(&s, &st.is_elitist, &mut self.is_elitist)?;
        s.synchronize().map_err(cuda_err("upload"))
    }
}
