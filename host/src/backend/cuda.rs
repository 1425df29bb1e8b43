//! The CUDA backend of parallel GOM on cudarc's driver API: the kernels of `device/` (compiled to
//! PTX by build.rs and embedded in the binary), the instance and colour-group arrays uploaded once
//! per run, and each population resident on the GPU. Only the fitness vector (n values) comes back
//! per generation, and one solution when the elitist improves.
//!
//! The kernels are the device crate's (`pgomea_device::kernels`), one set per problem kind; they
//! share the steps of `pgomea_device::stage` out over the GPU's threads, the steps the CPU
//! backend runs too. A whole generation runs as one cooperative launch of the kind's
//! `pgomea_generation_<kind>` (grid barriers between the passes) where the device allows it, else
//! as a replayed CUDA graph of the pass kernels of every group ([`WholeGeneration`]); tests, the
//! self-test and per-stage timing launch the pass kernel once per stage or pass.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr, DriverError, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use pgomea_device::mem::Ptr;
use pgomea_device::problem::{Clauses, Kind, Pairwise, Tables};
use pgomea_device::stage::{Anneal, Buffers, GROUP_PASSES, GomArgs, Layout, LocalSearch, Pass, Stage};

use crate::error::{Error, Result};
use crate::gomea::Population;
use crate::gomea::local_search::SearchStep;
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::{StageBackend, StageState};
use crate::problem::{GrayBoxProblem, KindArrays};

/// The PTX of every kernel, compiled from the device crate by build.rs and carried by the library.
pub const KERNELS_PTX: &str = include_str!(env!("PGOMEA_KERNELS_PTX"));

/// The kernels for every kind: marking the solutions equal to the elitist, and the end of Forced
/// Improvement.
const MARK_ELITIST_KERNEL: &str = "pgomea_mark_elitist";
const FORCED_IMPROVEMENT_END_KERNEL: &str = "pgomea_forced_improvement_end";

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

/// The device crate's problem kinds: `#[repr(C)]` structs of device addresses, which is what
/// makes them valid kernel arguments (see [`Args`]).
trait DeviceKind: Kind {}
impl DeviceKind for Pairwise {}
impl DeviceKind for Tables {}
impl DeviceKind for Clauses {}

/// The argument block of the generation and pass kernels, passed by value.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct Args<K>(GomArgs<K>);
// SAFETY: GomArgs is #[repr(C)] and made of integers and `Ptr`s (addresses, #[repr(transparent)]
// over a pointer), and so is every DeviceKind: valid to copy to the device as they are; the
// device crate declares the kernels' parameter with the same type.
unsafe impl<K: DeviceKind> DeviceRepr for Args<K> {}

/// The pass argument of the pass kernels.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct PassArg(Pass);
// SAFETY: Pass is #[repr(transparent)] over a u32.
unsafe impl DeviceRepr for PassArg {}

/// The buffer block of the elitist-marking kernel.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct BuffersArg(Buffers);
// SAFETY: Buffers is #[repr(C)] and made of `Ptr`s.
unsafe impl DeviceRepr for BuffersArg {}

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

/// One problem kind's kernels.
struct KindKernels {
    generation: CudaFunction,
    forced_improvement: CudaFunction,
    pass: CudaFunction,
    local_search: CudaFunction,
    local_search_pass: CudaFunction,
    /// The grids of the cooperative kernels (all blocks resident), or None where the device
    /// cannot launch cooperatively.
    generation_grid: Option<LaunchConfig>,
    forced_grid: Option<LaunchConfig>,
    local_search_grid: Option<LaunchConfig>,
}

/// An open GPU with the kernels loaded.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    _module: Arc<CudaModule>,
    /// By kind name (`Kind::NAME`).
    kinds: HashMap<&'static str, KindKernels>,
    mark_elitist: CudaFunction,
    forced_improvement_end: CudaFunction,
    name: String,
    multiprocessors: u32,
    /// Most blocks (of 128 threads) per multiprocessor in one grid; the kernels loop grid-stride
    /// over the rest. `PGOMEA_BLOCKS_PER_SM` overrides it (for tuning).
    blocks_per_sm: u32,
    /// Free device memory when the current measurement began, and the least seen since (after
    /// every allocation of the backend): their difference is the peak the run used.
    memory_baseline: std::sync::atomic::AtomicUsize,
    memory_lowest: std::sync::atomic::AtomicUsize,
}

impl Gpu {
    pub fn open(ordinal: usize) -> Result<Gpu> {
        probe().map_err(|why| Error::Cuda(format!("{why}; use the CPU backend")))?;
        let ctx = CudaContext::new(ordinal).map_err(cuda_err("open device"))?;
        // One stream and raw pointers in one argument block: cudarc's per-buffer event tracking
        // would only add two events per launch.
        // SAFETY: all work of this context goes to the one stream created below.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(cuda_err("stream"))?;
        let module = ctx.load_module(Ptx::from_src(KERNELS_PTX)).map_err(cuda_err("loading the kernels (PTX)"))?;
        let load = |n: &str| module.load_function(n).map_err(cuda_err("kernel lookup"));
        let name = ctx.name().map_err(cuda_err("name"))?;
        use cudarc::driver::sys::CUdevice_attribute as A;
        let multiprocessors =
            ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(cuda_err("attribute"))? as u32;
        let blocks_per_sm = env_u32("PGOMEA_BLOCKS_PER_SM").unwrap_or(DEFAULT_BLOCKS_PER_SM);
        let cooperative = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH).map_err(cuda_err("attribute"))? == 1;
        // The grid of a cooperative kernel: as many blocks per multiprocessor as its occupancy
        // allows, at most PGOMEA_GENERATION_BLOCKS_PER_SM (default 2), of PGOMEA_GENERATION_BLOCK
        // threads (default 512; tuning knobs for benchmarks).
        let block =
            env_u32("PGOMEA_GENERATION_BLOCK").map(|b| b.div_ceil(32) * 32).unwrap_or(GENERATION_BLOCK).min(1024);
        let blocks_per_sm_cap = env_u32("PGOMEA_GENERATION_BLOCKS_PER_SM").unwrap_or(GENERATION_BLOCKS_PER_SM);
        let cooperative_grid = |f: &CudaFunction| -> Result<Option<LaunchConfig>> {
            if !cooperative {
                return Ok(None);
            }
            let resident =
                f.occupancy_max_active_blocks_per_multiprocessor(block, 0, None).map_err(cuda_err("occupancy"))?;
            let per_sm = resident.min(blocks_per_sm_cap);
            Ok((per_sm > 0).then(|| LaunchConfig {
                grid_dim: (per_sm * multiprocessors, 1, 1),
                block_dim: (block, 1, 1),
                shared_mem_bytes: 0,
            }))
        };
        let mut kinds: HashMap<&'static str, KindKernels> = HashMap::new();
        for kind in [Pairwise::NAME, Tables::NAME, Clauses::NAME] {
            let generation = load(&format!("pgomea_generation_{kind}"))?;
            let forced_improvement = load(&format!("pgomea_forced_improvement_{kind}"))?;
            let local_search = load(&format!("pgomea_local_search_{kind}"))?;
            let k = KindKernels {
                generation_grid: cooperative_grid(&generation)?,
                forced_grid: cooperative_grid(&forced_improvement)?,
                local_search_grid: cooperative_grid(&local_search)?,
                generation,
                forced_improvement,
                local_search,
                pass: load(&format!("pgomea_pass_{kind}"))?,
                local_search_pass: load(&format!("pgomea_local_search_pass_{kind}"))?,
            };
            kinds.insert(kind, k);
        }
        let mark_elitist = load(MARK_ELITIST_KERNEL)?;
        let forced_improvement_end = load(FORCED_IMPROVEMENT_END_KERNEL)?;
        let free = ctx.mem_get_info().map_err(cuda_err("memory info"))?.0;
        Ok(Gpu {
            ctx,
            stream,
            _module: module,
            kinds,
            mark_elitist,
            forced_improvement_end,
            name,
            multiprocessors,
            blocks_per_sm,
            memory_baseline: free.into(),
            memory_lowest: free.into(),
        })
    }

    /// The launch shape of the whole-generation kernel of problem kind `kind` (`Kind::NAME`), if
    /// the device can launch it.
    pub fn generation_grid(&self, kind: &str) -> Option<LaunchConfig> {
        self.kinds.get(kind).and_then(|k| k.generation_grid)
    }

    /// The process's one open GPU (device 0), opened on first use: creating a context and loading
    /// the kernels costs far more than most runs' first generations, and every run, self-test
    /// case and benchmark pass of a process can share them. An error is remembered too.
    ///
    /// The device is number 0, or the one `PGOMEA_CUDA_DEVICE` names.
    pub fn shared() -> Result<Arc<Gpu>> {
        static GPU: std::sync::OnceLock<std::result::Result<Arc<Gpu>, String>> = std::sync::OnceLock::new();
        GPU.get_or_init(|| {
            let ordinal = match std::env::var("PGOMEA_CUDA_DEVICE") {
                Ok(v) => v
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("PGOMEA_CUDA_DEVICE={v}: expected a device number"))?,
                Err(_) => 0,
            };
            Gpu::open(ordinal).map(Arc::new).map_err(|e| match e {
                // Kept without the prefix that displaying adds again.
                Error::Cuda(m) => m,
                other => other.to_string(),
            })
        })
        .clone()
        .map_err(Error::Cuda)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn free_memory(&self) -> Result<usize> {
        Ok(self.ctx.mem_get_info().map_err(cuda_err("memory info"))?.0)
    }

    /// Starts measuring the peak device memory used from now on (`peak_memory`).
    pub fn reset_memory_peak(&self) -> Result<()> {
        use std::sync::atomic::Ordering::Relaxed;
        let free = self.free_memory()?;
        self.memory_baseline.store(free, Relaxed);
        self.memory_lowest.store(free, Relaxed);
        Ok(())
    }

    /// Notes the free device memory now (after an allocation).
    fn note_memory(&self) -> Result<()> {
        self.memory_lowest.fetch_min(self.free_memory()?, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// The most device memory in use since `reset_memory_peak`, in bytes (as seen after every
    /// allocation of the backend).
    pub fn peak_memory(&self) -> usize {
        use std::sync::atomic::Ordering::Relaxed;
        self.memory_baseline.load(Relaxed).saturating_sub(self.memory_lowest.load(Relaxed))
    }

    /// The grid for `items` work items: enough blocks to cover them, at most a full chip's worth
    /// (the kernels loop grid-stride over the rest).
    fn grid(&self, items: u64, per_warp: bool) -> LaunchConfig {
        let (per_block, threads, cap) = if per_warp {
            (WARPS_PER_BLOCK as u64, 32 * WARPS_PER_BLOCK, self.blocks_per_sm as u64 * self.multiprocessors as u64)
        } else {
            (
                THREADS_PER_BLOCK as u64,
                THREADS_PER_BLOCK,
                (self.blocks_per_sm as u64 / 2).max(1) * self.multiprocessors as u64,
            )
        };
        let blocks = items.div_ceil(per_block).clamp(1, cap.max(1)) as u32;
        LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
    }

    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(cuda_err("kernel execution"))
    }

    fn kernels(&self, kind: &str) -> Result<&KindKernels> {
        self.kinds.get(kind).ok_or_else(|| Error::Cuda(format!("no kernels for problem kind {kind}")))
    }
}

fn addr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    let (p, _sync) = s.device_ptr(stream);
    p
}

fn ptr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> Ptr<T> {
    Ptr::from_addr(addr(s, stream))
}

/// A run's limit on the device memory it may allocate (`--device-memory-limit`), and what it has
/// allocated: populations that would exceed it fail as out of memory (the multi-start scheme
/// then stops growing), as a real `cuMemAlloc` failure does.
#[derive(Debug, Default)]
pub struct DeviceBudget {
    limit: Option<u64>,
    used: std::sync::atomic::AtomicU64,
}

impl DeviceBudget {
    pub fn new(limit: Option<u64>) -> Self {
        DeviceBudget { limit, used: 0.into() }
    }

    /// Takes `bytes` for a population of `population_size` solutions.
    fn reserve(&self, bytes: u64, population_size: usize) -> Result<()> {
        use std::sync::atomic::Ordering::Relaxed;
        let used = self.used.fetch_add(bytes, Relaxed) + bytes;
        if let Some(limit) = self.limit
            && used > limit
        {
            self.used.fetch_sub(bytes, Relaxed);
            return Err(Error::OutOfMemory {
                population_size,
                message: format!("{bytes} bytes more would pass --device-memory-limit of {limit} bytes"),
            });
        }
        Ok(())
    }

    fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The problem's kind over device memory.
#[derive(Clone, Copy, Debug)]
enum UploadedKind {
    Pairwise(Pairwise),
    Tables(Tables),
    Clauses(Clauses),
}

/// The problem and layout arrays, uploaded once per run and shared by all populations.
pub struct SharedArrays {
    /// The run's device memory budget, shared by its populations.
    budget: Arc<DeviceBudget>,
    /// The layout's arrays, in the order of `Layout`'s fields.
    layout: Vec<CudaSlice<u32>>,
    /// The variable colours of local search and the problem's incidence, in the order of
    /// `LocalSearch`'s fields (empty colours when local search is off).
    local_search: Vec<CudaSlice<u32>>,
    colors: u32,
    /// The annealing schedule's levels and table.
    anneal: Vec<CudaSlice<u64>>,
    /// The problem's arrays, kept alive: the kind's pointers point into them.
    _problem_u32: Vec<CudaSlice<u32>>,
    _problem_i64: Vec<CudaSlice<i64>>,
    kind: UploadedKind,
}

impl SharedArrays {
    /// Uploads the arrays of `problem` and `layout`, counted in a new budget of `limit` bytes
    /// for the run (None: no limit but the device's).
    pub fn upload(
        gpu: &Gpu,
        problem: &dyn GrayBoxProblem,
        layout: &GroupLayout,
        limit: Option<u64>,
    ) -> Result<Arc<SharedArrays>> {
        let budget = Arc::new(DeviceBudget::new(limit));
        let (var_offsets, var_subs) = problem.functions().incidence();
        let problem_bytes = match problem.functions().arrays() {
            KindArrays::Pairwise { ends, weights } => 4 * ends.len() + 8 * weights.len(),
            KindArrays::Tables { var_offsets, vars, table_offsets, values } => {
                4 * (var_offsets.len() + vars.len() + table_offsets.len()) + 8 * values.len()
            }
            KindArrays::Clauses { lit_offsets, lits, weights } => {
                4 * (lit_offsets.len() + lits.len()) + 8 * weights.len()
            }
        };
        let layout_bytes = 4
            * (layout.group_slots.len()
                + layout.group_crews.len()
                + layout.slot_set.len()
                + layout.var_offsets.len()
                + layout.vars.len()
                + layout.dep_offsets.len()
                + layout.dep_subfunctions.len()
                + layout.local_search.offsets.len()
                + layout.local_search.vars.len()
                + var_offsets.len()
                + var_subs.len())
            + 8 * (layout.anneal.scales.len() + layout.anneal.table.len());
        budget
            .reserve((problem_bytes + layout_bytes) as u64, 0)
            .map_err(|e| Error::usage(format!("the problem's arrays do not fit: {e}")))?;
        let s = &gpu.stream;
        let up = |v: &[u32]| s.clone_htod(if v.is_empty() { &[0u32][..] } else { v }).map_err(cuda_err("upload"));
        let up64u = |v: &[u64]| s.clone_htod(if v.is_empty() { &[0u64][..] } else { v }).map_err(cuda_err("upload"));
        let up64 = |v: &[i64]| s.clone_htod(if v.is_empty() { &[0i64][..] } else { v }).map_err(cuda_err("upload"));
        let layout_arrays = [
            &layout.group_slots,
            &layout.group_crews,
            &layout.slot_set,
            &layout.var_offsets,
            &layout.vars,
            &layout.dep_offsets,
            &layout.dep_subfunctions,
        ]
        .into_iter()
        .map(|v| up(v))
        .collect::<Result<Vec<_>>>()?;
        let (problem_u32, problem_i64) = match problem.functions().arrays() {
            KindArrays::Pairwise { ends, weights } => (vec![up(ends)?], vec![up64(weights)?]),
            KindArrays::Tables { var_offsets, vars, table_offsets, values } => {
                (vec![up(var_offsets)?, up(vars)?, up(table_offsets)?], vec![up64(values)?])
            }
            KindArrays::Clauses { lit_offsets, lits, weights } => {
                (vec![up(lit_offsets)?, up(lits)?], vec![up64(weights)?])
            }
        };
        let (var_offsets, var_subs) = problem.functions().incidence();
        let anneal =
            [&layout.anneal.scales[..], &layout.anneal.table[..]].into_iter().map(up64u).collect::<Result<Vec<_>>>()?;
        let local_search = [&layout.local_search.offsets[..], &layout.local_search.vars[..], var_offsets, var_subs]
            .into_iter()
            .map(up)
            .collect::<Result<Vec<_>>>()?;
        let (u, i) = (|k: usize| ptr(&problem_u32[k], s), |k: usize| ptr(&problem_i64[k], s));
        let kind = match problem.functions().arrays() {
            KindArrays::Pairwise { .. } => UploadedKind::Pairwise(Pairwise { ends: u(0), weights: i(0) }),
            KindArrays::Tables { .. } => {
                UploadedKind::Tables(Tables { var_offsets: u(0), vars: u(1), table_offsets: u(2), values: i(0) })
            }
            KindArrays::Clauses { .. } => {
                UploadedKind::Clauses(Clauses { lit_offsets: u(0), lits: u(1), weights: i(0) })
            }
        };
        gpu.note_memory()?;
        Ok(Arc::new(SharedArrays {
            budget,
            local_search,
            anneal,
            colors: layout.local_search.colors() as u32,
            layout: layout_arrays,
            _problem_u32: problem_u32,
            _problem_i64: problem_i64,
            kind,
        }))
    }

    fn local_search(&self, s: &CudaStream) -> LocalSearch {
        let p = |k: usize| ptr(&self.local_search[k], s);
        let anneal = Anneal { scales: ptr(&self.anneal[0], s), table: ptr(&self.anneal[1], s), ..Anneal::default() };
        LocalSearch {
            colors: self.colors,
            color_offsets: p(0),
            color_vars: p(1),
            var_offsets: p(2),
            var_subs: p(3),
            anneal,
        }
    }

    fn layout(&self, s: &CudaStream) -> Layout {
        let p = |k: usize| ptr(&self.layout[k], s);
        Layout {
            group_slots: p(0),
            group_crews: p(1),
            slot_set: p(2),
            var_offsets: p(3),
            vars: p(4),
            dep_offsets: p(5),
            dep_subfunctions: p(6),
        }
    }
}

/// A CUDA backend for a population, on `gpu`, with the arrays of `shared` (uploaded for this
/// layout and problem) and the random numbers of `seed`; `whole` chooses how whole generations
/// run (None: the default, or `PGOMEA_CUDA_GENERATION`).
pub fn new_backend(
    gpu: Arc<Gpu>,
    shared: Arc<SharedArrays>,
    layout: Arc<GroupLayout>,
    population: Population,
    seed: u64,
    whole: Option<WholeGeneration>,
) -> Result<Box<dyn StageBackend>> {
    Ok(match shared.kind {
        UploadedKind::Pairwise(k) => Box::new(CudaStages::new(gpu, shared, layout, population, seed, k, whole)?),
        UploadedKind::Tables(k) => Box::new(CudaStages::new(gpu, shared, layout, population, seed, k, whole)?),
        UploadedKind::Clauses(k) => Box::new(CudaStages::new(gpu, shared, layout, population, seed, k, whole)?),
    })
}

/// One population on the GPU, running the stages of parallel GOM with problem kind `K`.
struct CudaStages<K: DeviceKind> {
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
    changed: CudaSlice<u8>,
    forced: CudaSlice<u8>,
    ls_active: CudaSlice<u8>,
    ls_flipped: CudaSlice<u8>,
    ls_counters: CudaSlice<u64>,
    schedule: CudaSlice<u32>,
    barrier: CudaSlice<u32>,
    base: GomArgs<K>,
    whole: WholeGeneration,
    /// Whether the announced groups run Forced Improvement.
    forced_mode: bool,
    /// The launch shape of each pass of `GROUP_PASSES`, the same for every group.
    grids: [LaunchConfig; 3],
    /// A whole generation (every group's passes) captured once, replayed every generation.
    graph: Option<cudarc::driver::CudaGraph>,
    /// The group order announced for this generation (also in `schedule` on the device).
    order: Vec<u32>,
    /// This population's share of the run's device memory budget, released when it is dropped.
    _reserved: Reservation,
}

/// Bytes taken from a [`DeviceBudget`], given back on drop.
struct Reservation {
    budget: Arc<DeviceBudget>,
    bytes: u64,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

impl<K: DeviceKind> CudaStages<K> {
    fn new(
        gpu: Arc<Gpu>,
        shared: Arc<SharedArrays>,
        layout: Arc<GroupLayout>,
        population: Population,
        seed: u64,
        kind: K,
        whole: Option<WholeGeneration>,
    ) -> Result<Self> {
        let n = population.n;
        let l = layout.variables;
        let (gs, ds) = (layout.max_group_slots.max(1), layout.max_group_deps.max(1));
        let oom = alloc_err(n);
        // Every buffer below, counted against the run's budget before any is allocated.
        let (n64, l64, gs64, ds64) = (n as u64, l as u64, gs as u64, ds as u64);
        let bytes = 3 * n64 * l64
            + l64.max(1)
            + 16 * n64
            + n64 * gs64 * (4 + 8 + 1)
            + 8 * n64 * ds64
            + 5 * n64
            + 16
            + 4 * (2 + layout.groups().max(1) as u64);
        shared.budget.reserve(bytes, n)?;
        let reserved = Reservation { budget: shared.budget.clone(), bytes };
        let s = &gpu.stream;
        // SAFETY (alloc): every buffer is written before it is read: offspring/work/fitness at
        // the start of each generation, donors..mask by the stages in order, is_elitist at the
        // start of each generation, reference before each comparison, the schedule before the
        // groups run.
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
        let changed = s.alloc_zeros::<u8>(n).map_err(&oom)?;
        let forced = s.alloc_zeros::<u8>(n).map_err(&oom)?;
        let ls_active = s.alloc_zeros::<u8>(n).map_err(&oom)?;
        let ls_flipped = s.alloc_zeros::<u8>(n).map_err(&oom)?;
        let ls_counters = s.alloc_zeros::<u64>(2).map_err(&oom)?;
        let schedule = unsafe { s.alloc::<u32>(1 + layout.groups().max(1)) }.map_err(&oom)?;
        let barrier = s.alloc_zeros::<u32>(1).map_err(&oom)?;
        let base = GomArgs {
            seed,
            n: n as u32,
            l: l as u32,
            step: 0,
            row_slots: gs as u32,
            row_deps: ds as u32,
            groups: layout.groups() as u32,
            schedule: ptr(&schedule, s),
            layout: shared.layout(s),
            buffers: Buffers {
                parents: ptr(&parents, s),
                offspring: ptr(&offspring, s),
                work: ptr(&work, s),
                fitness: ptr(&fitness, s),
                donors: ptr(&donors, s),
                diff: ptr(&diff, s),
                delta: ptr(&delta, s),
                mask: ptr(&mask, s),
                is_elitist: ptr(&is_elitist, s),
                reference: ptr(&reference, s),
                changed: ptr(&changed, s),
                forced: ptr(&forced, s),
                ls_active: ptr(&ls_active, s),
                ls_flipped: ptr(&ls_flipped, s),
                ls_counters: ptr(&ls_counters, s),
            },
            problem: kind,
            local_search: LocalSearch {
                anneal: Anneal { seed, ..shared.local_search(s).anneal },
                ..shared.local_search(s)
            },
            barrier: ptr(&barrier, s),
        };
        // Graph nodes serve whichever group the schedule puts at their step: one grid per pass,
        // sized for the largest group.
        let (pairs, deps) = ((n * layout.max_group_slots) as u64, (n * layout.max_group_deps) as u64);
        let grids = GROUP_PASSES.map(|p| if p.per_element() { gpu.grid(deps, false) } else { gpu.grid(pairs, true) });
        let cooperative = gpu.generation_grid(K::NAME).is_some();
        let whole = match whole.or_else(WholeGeneration::from_env) {
            Some(WholeGeneration::Cooperative) | None if cooperative => WholeGeneration::Cooperative,
            _ => WholeGeneration::Graph,
        };
        gpu.note_memory()?;
        // The buffers' device pointers never change afterwards (P = O is a copy, not a swap),
        // so a captured graph stays valid.
        Ok(CudaStages {
            gpu,
            _shared: shared,
            layout,
            n,
            parents,
            parent_fitness,
            offspring,
            work,
            fitness,
            donors,
            diff,
            delta,
            mask,
            is_elitist,
            reference,
            changed,
            forced,
            ls_active,
            ls_flipped,
            ls_counters,
            schedule,
            barrier,
            base,
            whole,
            forced_mode: false,
            grids,
            graph: None,
            order: Vec::new(),
            _reserved: reserved,
        })
    }

    /// Launches the pass kernel of `pass` on the group at `step`, on grid `cfg`, in the
    /// announced mode (GOM or Forced Improvement).
    fn launch_pass(&self, pass: Pass, step: u32, cfg: LaunchConfig) -> Result<()> {
        let a = Args(GomArgs { step, ..self.base });
        let p = PassArg(pass);
        let forced = self.forced_mode as u32;
        let mut b = self.gpu.stream.launch_builder(&self.gpu.kernels(K::NAME)?.pass);
        b.arg(&a).arg(&p).arg(&forced);
        // SAFETY: the kernel reads and writes only through the pointers of `a`, which point to
        // live allocations sized from the same layout the kernel indexes with; `step` is below
        // the number of groups and `pass` is valid (checked by the callers); blocks of 128 or 256
        // threads.
        unsafe { b.launch(cfg) }.map_err(cuda_err("kernel launch"))?;
        Ok(())
    }

    /// Marks in `is_elitist` the solutions of P equal to `reference` (one warp per solution).
    fn compare_with_reference(&mut self, reference: &[u8]) -> Result<()> {
        self.gpu.stream.memcpy_htod(reference, &mut self.reference).map_err(cuda_err("upload"))?;
        let b = BuffersArg(self.base.buffers);
        let (n, l) = (self.n as u32, self.layout.variables as u32);
        let mut launch = self.gpu.stream.launch_builder(&self.gpu.mark_elitist);
        launch.arg(&b).arg(&n).arg(&l);
        // SAFETY: parents holds n rows of l genes, reference one row, is_elitist n bytes; blocks
        // of 128 threads.
        unsafe { launch.launch(self.gpu.grid(self.n as u64, true)) }.map_err(cuda_err("kernel launch"))?;
        Ok(())
    }
}

impl<K: DeviceKind> StageBackend for CudaStages<K> {
    fn start_generation(&mut self, elitist: &[u8], elitist_fitness: i64, fitness: &[i64]) -> Result<()> {
        let s = self.gpu.stream.clone();
        s.memcpy_dtod(&self.parents, &mut self.offspring).map_err(cuda_err("copy"))?;
        s.memcpy_dtod(&self.parents, &mut self.work).map_err(cuda_err("copy"))?;
        s.memcpy_dtod(&self.parent_fitness, &mut self.fitness).map_err(cuda_err("copy"))?;
        s.memset_zeros(&mut self.changed).map_err(cuda_err("memset"))?;
        // Equality with the elitist only matters where the fitness is equal; compare on the GPU
        // only when some solution has the elitist's fitness.
        if fitness.contains(&elitist_fitness) {
            self.compare_with_reference(elitist)?;
        } else {
            s.memset_zeros(&mut self.is_elitist).map_err(cuda_err("memset"))?;
        }
        Ok(())
    }

    fn begin_groups(&mut self, generation: u32, order: &[u32], forced: bool) -> Result<()> {
        self.forced_mode = forced;
        if order.len() > self.layout.groups() || order.iter().any(|&g| g as usize >= self.layout.groups()) {
            return Err(Error::usage(format!(
                "internal: a group order {order:?} of more than {} groups",
                self.layout.groups()
            )));
        }
        let mut schedule = Vec::with_capacity(order.len() + 1);
        schedule.push(generation);
        schedule.extend_from_slice(order);
        self.order.clear();
        self.order.extend_from_slice(order);
        self.gpu
            .stream
            .memcpy_htod(&schedule, &mut self.schedule.slice_mut(..schedule.len()))
            .map_err(cuda_err("upload"))
    }

    fn pass(&mut self, pass: Pass, step: u32) -> Result<()> {
        let Some(&group) = self.order.get(step as usize).filter(|_| pass.is_valid()) else {
            return Err(Error::usage(format!(
                "internal: pass {pass:?} at step {step} of an order of {} groups",
                self.order.len()
            )));
        };
        // Launched one by one, each group gets a grid of its own size (a graph node cannot).
        let g = group as usize;
        let items =
            if pass.has(Stage::SubfunctionEvaluation) { self.layout.deps(g).len() } else { self.layout.slots(g).len() };
        let cfg = self.gpu.grid((self.n * items) as u64, !pass.per_element());
        self.launch_pass(pass, step, cfg)
    }

    fn run_all_groups(&mut self) -> Result<bool> {
        if self.order.len() != self.layout.groups() {
            return Ok(false);
        }
        if self.forced_mode {
            // Forced Improvement in one cooperative launch where the device can; else the
            // caller runs it group by group (it is rarer than GOM: no graph is kept for it).
            let Some(cfg) = self.gpu.kernels(K::NAME)?.forced_grid else { return Ok(false) };
            self.gpu.stream.memset_zeros(&mut self.barrier).map_err(cuda_err("memset"))?;
            let a = Args(self.base);
            let mut b = self.gpu.stream.launch_builder(&self.gpu.kernels(K::NAME)?.forced_improvement);
            b.arg(&a);
            // SAFETY: as for the generation kernel below; `forced` and `reference` were set by
            // begin_forced_improvement.
            unsafe { b.launch_cooperative(cfg) }.map_err(cuda_err("cooperative kernel launch"))?;
            return Ok(true);
        }
        if self.whole == WholeGeneration::Cooperative
            && let Some(cfg) = self.gpu.generation_grid(K::NAME)
        {
            self.gpu.stream.memset_zeros(&mut self.barrier).map_err(cuda_err("memset"))?;
            let a = Args(self.base);
            let mut b = self.gpu.stream.launch_builder(&self.gpu.kernels(K::NAME)?.generation);
            b.arg(&a);
            // SAFETY: as in `launch_pass`, for every group of the schedule; the barrier counter
            // is zero; the grid is at most the kernel's occupancy on every multiprocessor, which
            // the driver checks (it refuses larger cooperative grids); blocks of a multiple of 32
            // threads.
            unsafe { b.launch_cooperative(cfg) }.map_err(cuda_err("cooperative kernel launch"))?;
            return Ok(true);
        }
        if self.graph.is_none() {
            let s = self.gpu.stream.clone();
            s.begin_capture(cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
                .map_err(cuda_err("graph capture"))?;
            let mut launched = Ok(());
            'capture: for step in 0..self.base.groups {
                for (k, pass) in GROUP_PASSES.into_iter().enumerate() {
                    launched = self.launch_pass(pass, step, self.grids[k]);
                    if launched.is_err() {
                        break 'capture;
                    }
                }
            }
            let graph =
                s.end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0)).map_err(cuda_err("graph capture"))?;
            launched?;
            self.graph = graph;
        }
        match &self.graph {
            Some(g) => g.launch().map_err(cuda_err("graph launch"))?,
            None => return Ok(false),
        }
        Ok(true)
    }

    fn mixed(&mut self) -> Result<(Vec<i64>, Vec<u8>)> {
        let s = &self.gpu.stream;
        Ok((
            s.clone_dtoh(&self.fitness).map_err(cuda_err("download"))?,
            s.clone_dtoh(&self.changed).map_err(cuda_err("download"))?,
        ))
    }

    fn offspring(&self, i: usize) -> Result<Vec<u8>> {
        let l = self.layout.variables;
        self.gpu.stream.clone_dtoh(&self.offspring.slice(i * l..(i + 1) * l)).map_err(cuda_err("download"))
    }

    fn begin_forced_improvement(&mut self, in_fi: &[u8], elitist: &[u8]) -> Result<()> {
        if in_fi.len() != self.n || elitist.len() != self.layout.variables {
            return Err(Error::usage("internal: forced improvement of another shape"));
        }
        let s = self.gpu.stream.clone();
        s.memcpy_htod(in_fi, &mut self.forced).map_err(cuda_err("upload"))?;
        s.memcpy_htod(elitist, &mut self.reference.slice_mut(..elitist.len())).map_err(cuda_err("upload"))
    }

    fn end_forced_improvement(&mut self, elitist_fitness: i64) -> Result<()> {
        let b = BuffersArg(self.base.buffers);
        let (n, l) = (self.n as u32, self.layout.variables as u32);
        let mut launch = self.gpu.stream.launch_builder(&self.gpu.forced_improvement_end);
        launch.arg(&b).arg(&n).arg(&l).arg(&elitist_fitness);
        // SAFETY: offspring and work hold n rows of l genes, reference one row, fitness and
        // forced n values; one thread per element, any grid.
        unsafe { launch.launch(self.gpu.grid(self.n as u64 * self.layout.variables as u64, false)) }
            .map_err(cuda_err("kernel launch"))?;
        Ok(())
    }

    fn local_search(&mut self, step: SearchStep) -> Result<u64> {
        let an = &mut self.base.local_search.anneal;
        (an.sweeps, an.from, an.to, an.descend, an.stream) =
            (step.sweeps, step.from, step.to, step.descend as u32, step.stream);
        let s = self.gpu.stream.clone();
        s.memcpy_htod(&vec![1u8; self.n], &mut self.ls_active).map_err(cuda_err("upload"))?;
        s.memset_zeros(&mut self.ls_flipped).map_err(cuda_err("memset"))?;
        s.memset_zeros(&mut self.ls_counters).map_err(cuda_err("memset"))?;
        let kernels = self.gpu.kernels(K::NAME)?;
        let a = Args(self.base);
        if let Some(cfg) = kernels.local_search_grid {
            s.memset_zeros(&mut self.barrier).map_err(cuda_err("memset"))?;
            let mut b = s.launch_builder(&kernels.local_search);
            b.arg(&a);
            // SAFETY: the buffers and the local-search arrays are live and sized for this
            // population and problem; the barrier, the counters and the flipped marks are zero
            // and every solution is active; the grid is at most the kernel's occupancy.
            unsafe { b.launch_cooperative(cfg) }.map_err(cuda_err("cooperative kernel launch"))?;
        } else {
            // Sweep by sweep, round by round, colour by colour; the host reads whether any
            // solution goes on.
            let colors = self.base.local_search.colors;
            let sweeps = step.sweeps;
            for sweep in step.from..step.to {
                for c in 0..colors {
                    let o = &self.layout.local_search.offsets;
                    let items = self.n as u64 * (o[c as usize + 1] - o[c as usize]) as u64;
                    let mut b = s.launch_builder(&kernels.local_search_pass);
                    b.arg(&a).arg(&c).arg(&sweep);
                    // SAFETY: as for the cooperative kernel; the launches run in order.
                    unsafe { b.launch(self.gpu.grid(items, false)) }.map_err(cuda_err("kernel launch"))?;
                }
            }
            let greedy = sweeps;
            let mut before = 0;
            // The descent: rounds until one leaves no solution active.
            if step.descend {
                loop {
                    for c in 0..=colors {
                        let items = if c < colors {
                            let o = &self.layout.local_search.offsets;
                            self.n as u64 * (o[c as usize + 1] - o[c as usize]) as u64
                        } else {
                            self.n as u64
                        };
                        let mut b = s.launch_builder(&kernels.local_search_pass);
                        b.arg(&a).arg(&c).arg(&greedy);
                        // SAFETY: as for the cooperative kernel; the launches of a round run in
                        // order on the one stream.
                        unsafe { b.launch(self.gpu.grid(items, false)) }.map_err(cuda_err("kernel launch"))?;
                    }
                    let now = s.clone_dtoh(&self.ls_counters).map_err(cuda_err("download"))?[1];
                    if now == before {
                        break;
                    }
                    before = now;
                }
            }
        }
        // The greedy rounds counted on the device, and every solution's annealing sweeps.
        let greedy_rounds = s.clone_dtoh(&self.ls_counters).map_err(cuda_err("download"))?[0];
        Ok(greedy_rounds + self.n as u64 * (step.to - step.from) as u64)
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
            changed: d(s, &self.changed)?,
            forced: d(s, &self.forced)?,
        })
    }

    fn set_state(&mut self, st: &StageState) -> Result<()> {
        let s = self.gpu.stream.clone();
        fn u<T: DeviceRepr>(s: &Arc<CudaStream>, h: &[T], b: &mut CudaSlice<T>) -> Result<()> {
            if h.len() != b.len() {
                return Err(Error::usage("internal: a state of another shape"));
            }
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
        u(&s, &st.changed, &mut self.changed)?;
        u(&s, &st.forced, &mut self.forced)?;
        s.synchronize().map_err(cuda_err("upload"))
    }
}
