//! One population on the GPU: the small device trait ([`StageDevice`]) as kernel launches and
//! device copies. A whole generation runs as one cooperative launch of the kind's
//! `pgomea_generation_<kind>` (grid barriers between the passes, or a team of blocks per solution
//! with its own barriers) where the device and the tuning
//! allow it, else as a replayed CUDA graph of the pass kernels of every group; tests, the
//! self-test and per-stage timing launch the pass kernel once per stage or pass.

use std::cell::OnceCell;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg};
use pgomea_device::kernel_names::Registered;
use pgomea_device::mem::Ptr;
use pgomea_device::problem::Kind;
use pgomea_device::stage::{BUFFER, Buffers, GomArgs, Layout, Pass, group_passes, keeps_gains};

use super::gpu::{Gpu, Kernel, cuda_err, device_ptr};
use super::tuning::CudaTuning;
use super::upload::{DeviceBuffers, KindOnDevice, MakeDevice, NewPopulation, SharedArrays};
use crate::error::{Error, Result};
use crate::gomea::Population;
use crate::gomea::local_search::{SearchStep, least_per_call};
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::{StageDevice, Stages};
use crate::problem::bytes_of_mut;
use crate::stop::StopCheck;

/// A CUDA backend for a population, on `gpu`, with the arrays of `shared` (uploaded for this
/// layout and problem), the random numbers of `seed` and the launch shapes of `tuning`.
pub fn new_backend(
    gpu: Arc<Gpu>,
    shared: Arc<SharedArrays>,
    layout: Arc<GroupLayout>,
    population: Population,
    seed: u64,
    tuning: &CudaTuning,
) -> Result<Stages<'static>> {
    tuning.validate()?;
    let new = NewPopulation { gpu, shared: shared.clone(), layout: layout.clone(), n: population.n, seed, tuning };
    let device = shared.kind.make(new)?;
    Stages::new(device, layout, &population)
}

impl<K: Kind> MakeDevice for KindOnDevice<K> {
    fn make(&self, population: NewPopulation) -> Result<Box<dyn StageDevice>> {
        Ok(Box::new(CudaDevice::new(population, self.0)?))
    }
}

// ANCHOR: args_repr
/// The argument block of the generation and pass kernels, passed by value.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct Args<K>(GomArgs<K>);
// SAFETY: GomArgs is #[repr(C)] and made of integers and `Ptr`s (addresses, #[repr(transparent)]
// over a pointer), and so is every `Kind` (the trait's contract): valid to copy to the device as
// they are; the device crate declares the kernels' parameter with the same type.
unsafe impl<K: Kind> DeviceRepr for Args<K> {}
// ANCHOR_END: args_repr

/// The pass argument of the pass kernels.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct PassArg(Pass);
// SAFETY: Pass is #[repr(transparent)] over a u32.
unsafe impl DeviceRepr for PassArg {}

/// The buffer block of the marking and FI-end kernels.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct BuffersArg(Buffers);
// SAFETY: Buffers is #[repr(C)] and made of `Ptr`s.
unsafe impl DeviceRepr for BuffersArg {}

/// The layout block of the convergence-marking kernel.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct LayoutArg(Layout);
// SAFETY: Layout is #[repr(C)] and made of `Ptr`s.
unsafe impl DeviceRepr for LayoutArg {}

/// A launch shape decided on first use (where it depends on a kernel's registers, that kernel is
/// loaded then, and only where the rule asks for its registers).
type LazyGrid = OnceCell<Option<LaunchConfig>>;

/// `cell`'s grid, computed by `grid` on the first call that succeeds (an error leaves it empty).
fn lazy_grid(cell: &LazyGrid, grid: impl FnOnce() -> Result<Option<LaunchConfig>>) -> Result<Option<LaunchConfig>> {
    if let Some(g) = cell.get() {
        return Ok(*g);
    }
    let g = grid()?;
    Ok(*cell.get_or_init(|| g))
}

// ANCHOR: kernels_struct
/// The kernels one population may launch, by name: [`Gpu::kernel`] loads each (the driver
/// compiles it, unless its cache has it) when it is first launched, and keeps it.
struct Kernels {
    /// GOM's whole generation (cooperative, and with a block per solution), in one pass per
    /// group or in three, as `CudaDevice::one_pass` says.
    generation: &'static str,
    generation_by_solution: &'static str,
    /// The generation by solution in three passes: Forced Improvement's, whatever GOM's is.
    three_passes_by_solution: &'static str,
    forced_improvement: &'static str,
    pass: &'static str,
    flip_search: &'static str,
    flip_search_color: &'static str,
    mark_elitist: &'static str,
    mark_converged_genes: &'static str,
    mark_converged: &'static str,
    forced_improvement_end: &'static str,
}
// ANCHOR_END: kernels_struct

/// One population on the GPU, running the stages of parallel GOM with problem kind `K`.
struct CudaDevice<K: Kind> {
    gpu: Arc<Gpu>,
    // Keeps the shared arrays alive: `base` holds their device pointers.
    shared: Arc<SharedArrays>,
    layout: Arc<GroupLayout>,
    n: usize,
    buffers: DeviceBuffers,
    base: GomArgs<K>,
    tuning: CudaTuning,
    /// Whether GOM runs a group in one pass (`CudaTuning::one_pass`).
    one_pass: bool,
    kernels: Kernels,
    /// The grids of the cooperative kernels (all blocks resident), or None where the device or
    /// the tuning rules cooperative launches out.
    generation_grid: LazyGrid,
    /// The grid of the generation-by-solution kernel where whole generations (GOM and Forced
    /// Improvement) run that way; it goes before the cooperative grids.
    by_solution_grid: LazyGrid,
    forced_by_solution_grid: LazyGrid,
    forced_grid: LazyGrid,
    search_grid: LazyGrid,
    /// The grid of local search with a block per solution, where it runs that way (before the
    /// cooperative grid).
    search_by_solution_grid: LazyGrid,
    /// The launch shape of each pass of GOM's group, the same for every group.
    grids: Vec<LaunchConfig>,
    /// A whole generation (every group's passes) captured once, replayed every generation.
    graph: Option<cudarc::driver::CudaGraph>,
    /// The kept gains of the search by solution, a row of l per block, allocated at its first
    /// call that keeps them (docs/decisions/0029-kept-gains.md).
    gains: Option<CudaSlice<u8>>,
}

/// The most memory the kept gains of a search by solution take (a row of l per solution); a
/// larger population recomputes its gains instead (the same flips, slower on dense models).
const KEPT_GAINS_BYTES: usize = 256 << 20;

impl<K: Kind> CudaDevice<K> {
    fn new(population: NewPopulation, kind: K) -> Result<Self> {
        let NewPopulation { gpu, shared, layout, n, seed, tuning } = population;
        let tuning = *tuning;
        let sizes = layout.buffer_sizes(n);
        let buffers = DeviceBuffers::new(&gpu, &shared, &sizes)?;
        let s = &gpu.stream;
        let base = GomArgs {
            seed,
            n: n as u32,
            l: sizes.l as u32,
            step: 0,
            row_slots: sizes.row_slots as u32,
            row_deps: sizes.row_deps as u32,
            groups: sizes.groups as u32,
            layout: shared.layout,
            buffers: Buffers::at(|k| device_ptr(&buffers.slices[k], s)),
            problem: kind,
            search: shared.search,
        };
        let names = K::KERNELS;
        let one_pass = tuning.one_pass(layout.slot_set.len(), layout.groups());
        let (generation, by_solution) = names.gom_generation(one_pass);
        let kernels = Kernels {
            generation,
            generation_by_solution: by_solution,
            three_passes_by_solution: names.generation_by_solution,
            forced_improvement: names.forced_improvement,
            pass: names.pass,
            flip_search: names.flip_search,
            flip_search_color: names.flip_search_color,
            mark_elitist: pgomea_device::kernel_names::MARK_ELITIST,
            mark_converged_genes: pgomea_device::kernel_names::MARK_CONVERGED_GENES,
            mark_converged: pgomea_device::kernel_names::MARK_CONVERGED,
            forced_improvement_end: pgomea_device::kernel_names::FORCED_IMPROVEMENT_END,
        };
        // Graph nodes serve whichever group the schedule puts at their step: one grid per pass,
        // sized for the largest group.
        let (pairs, deps) = ((n * layout.max_group_slots) as u64, (n * layout.max_group_deps) as u64);
        let grids = group_passes(false, one_pass)
            .iter()
            .map(|p| {
                if p.per_element() {
                    tuning.grid(gpu.multiprocessors, deps, false)
                } else {
                    tuning.grid(gpu.multiprocessors, pairs, true)
                }
            })
            .collect();
        // The buffers' device pointers never change afterwards (P = O is a copy, not a swap), so
        // a captured graph stays valid.
        Ok(CudaDevice {
            search_by_solution_grid: LazyGrid::new(),
            generation_grid: LazyGrid::new(),
            by_solution_grid: LazyGrid::new(),
            forced_by_solution_grid: LazyGrid::new(),
            forced_grid: LazyGrid::new(),
            search_grid: LazyGrid::new(),
            grids,
            gpu,
            shared,
            layout,
            n,
            buffers,
            base,
            tuning,
            one_pass,
            kernels,
            graph: None,
            gains: None,
        })
    }

    /// The grid of cooperative kernel `kernel`, kept in `cell` ([`CudaTuning::cooperative_grid`]).
    fn cooperative_grid(&self, cell: &LazyGrid, kernel: &'static str) -> Result<Option<LaunchConfig>> {
        let function = || Ok(self.gpu.kernel(kernel)?.function);
        lazy_grid(cell, || self.tuning.cooperative_grid(function, self.gpu.multiprocessors, self.gpu.cooperative))
    }

    /// The grid of the generation by solution, of Forced Improvement (`forced`) or GOM
    /// ([`CudaTuning::by_solution_grid`]).
    fn by_solution_grid(&self, forced: bool) -> Result<Option<LaunchConfig>> {
        let (cell, kernel) = match forced {
            true => (&self.forced_by_solution_grid, self.kernels.three_passes_by_solution),
            false => (&self.by_solution_grid, self.kernels.generation_by_solution),
        };
        let function = || Ok(self.gpu.kernel(kernel)?.function);
        let (sms, slots, groups) = (self.gpu.multiprocessors, self.layout.slot_set.len(), self.layout.groups());
        lazy_grid(cell, || self.tuning.by_solution_grid(function, sms, self.n, slots, groups))
    }

    /// The rows of kept gains for a search by solution, `bytes` of them, allocated once.
    fn gains_rows(&mut self, bytes: usize) -> Result<Ptr<i64>> {
        if self.gains.is_none() {
            let rows = self.gpu.stream.alloc_zeros::<u8>(bytes.max(1)).map_err(cuda_err("the kept gains"))?;
            self.gains = Some(rows);
        }
        let rows = self.gains.as_ref().expect("allocated above");
        Ok(device_ptr(rows, &self.gpu.stream).cast())
    }

    /// The grid of local search with a block per solution ([`CudaTuning::search_by_solution_grid`]).
    fn search_by_solution_grid(&self) -> Result<Option<LaunchConfig>> {
        let function = || Ok(self.gpu.kernel(self.kernels.flip_search)?.function);
        let (sms, l) = (self.gpu.multiprocessors, self.base.l as usize);
        lazy_grid(&self.search_by_solution_grid, || self.tuning.search_by_solution_grid(function, sms, self.n, l))
    }

    /// Whether the search by solution on grid `cfg` keeps the gains (`CudaTuning::keeps_gains`).
    fn keeps_gains(&self, cfg: &LaunchConfig) -> bool {
        let (l, colors) = (self.base.l as u64, self.base.search.colors as u64);
        self.tuning.keeps_gains(l, colors, self.shared.entries, cfg.block_dim.0)
    }

    /// The grid for `items` work items, one warp or one thread each.
    fn grid(&self, items: u64, per_warp: bool) -> LaunchConfig {
        self.tuning.grid(self.gpu.multiprocessors, items, per_warp)
    }

    // ANCHOR: launch_pass
    /// Launches the pass kernel of `pass` on the group at `step`, on grid `cfg`, of GOM or of
    /// Forced Improvement.
    fn launch_pass(&self, pass: Pass, step: u32, forced: bool, cfg: LaunchConfig) -> Result<()> {
        let a = Args(GomArgs { step, ..self.base });
        let p = PassArg(pass);
        let forced = forced as u32;
        let kernel = &self.gpu.kernel(self.kernels.pass)?;
        let mut b = self.gpu.stream.launch_builder(&kernel.function);
        b.arg(&a).arg(&p).arg(&forced);
        // SAFETY: the kernel reads and writes only through the pointers of `a`, which point to
        // live allocations sized from the same layout the kernel indexes with; `step` is below
        // the number of groups and `pass` is valid (checked by `Stages`); blocks of 128 or 256
        // threads.
        self.gpu.launched(kernel, unsafe { b.launch(cfg) })
    }
    // ANCHOR_END: launch_pass

    /// One cooperative launch of `kernel` (the generation, Forced Improvement or local search
    /// kernel of this kind) on grid `cfg`, its grid barrier zeroed first; the search kernel
    /// (`search`) takes `by_solution` = 0 after its arguments.
    fn launch_cooperative(&mut self, kernel: &Kernel, cfg: LaunchConfig, search: bool) -> Result<()> {
        self.fill(BUFFER.barrier.index(), 0)?;
        let a = Args(self.base);
        let by_solution = 0u32;
        let mut b = self.gpu.stream.launch_builder(&kernel.function);
        b.arg(&a);
        if search {
            b.arg(&by_solution);
        }
        // SAFETY: as in `launch_pass`, for every group of the schedule (the generation and FI
        // kernels) or every colour (local search, whose marks and counters the caller set); the
        // barrier counter is zero; the grid is at most the kernel's occupancy on every
        // multiprocessor, which the driver checks (it refuses larger cooperative grids); blocks
        // of a multiple of 32 threads.
        let launched = unsafe { b.launch_cooperative(cfg) };
        self.gpu.launched(kernel, launched)
    }

    /// One launch of a generation-by-solution kernel on grid `cfg`, of GOM or of Forced
    /// Improvement (the kernel in three passes, which takes the flag).
    fn launch_by_solution(&self, forced: bool, cfg: LaunchConfig) -> Result<()> {
        let a = Args(self.base);
        let (kernel, flag) = match (forced, self.one_pass) {
            (true, _) => (self.kernels.three_passes_by_solution, Some(1u32)),
            (false, true) => (self.kernels.generation_by_solution, None),
            (false, false) => (self.kernels.generation_by_solution, Some(0)),
        };
        let kernel = &self.gpu.kernel(kernel)?;
        let mut b = self.gpu.stream.launch_builder(&kernel.function);
        b.arg(&a);
        if let Some(flag) = &flag {
            b.arg(flag);
        }
        // SAFETY: as in `launch_pass`, for every group of the schedule; a block runs its
        // solutions alone (no grid barrier), with a multiple of 32 threads (`by_solution_grid`).
        self.gpu.launched(kernel, unsafe { b.launch(cfg) })
    }

    /// A launch of the kernel of local search's colour `c` (or, for `c == colors`, the round's
    /// end) of sweep `sweep` (a greedy round where `sweep` is the sweeps).
    fn launch_search_color(&self, c: u32, sweep: u32) -> Result<()> {
        let colors = self.base.search.colors;
        let items = if c < colors {
            let o = &self.layout.variable_colors.offsets;
            self.n as u64 * (o[c as usize + 1] - o[c as usize]) as u64
        } else {
            self.n as u64
        };
        let a = Args(self.base);
        let kernel = &self.gpu.kernel(self.kernels.flip_search_color)?;
        let mut b = self.gpu.stream.launch_builder(&kernel.function);
        b.arg(&a).arg(&c).arg(&sweep);
        // SAFETY: as for the cooperative search kernel; the launches of a round run in order on
        // the one stream.
        self.gpu.launched(kernel, unsafe { b.launch(self.grid(items, false)) })
    }

    /// The two counters of local search.
    fn search_counters(&self) -> Result<[u64; 2]> {
        let mut counters = [0u64; 2];
        self.download(BUFFER.search_counters.index(), 0, bytes_of_mut(&mut counters))?;
        Ok(counters)
    }

    /// The whole generation as a CUDA graph of the pass kernels of every group, captured on the
    /// first call and replayed.
    fn replay_generation(&mut self) -> Result<bool> {
        if self.graph.is_none() {
            // Loaded before the capture: no module is loaded while the stream is captured.
            self.gpu.kernel(self.kernels.pass)?;
            let s = self.gpu.stream.clone();
            s.begin_capture(cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
                .map_err(cuda_err("graph capture"))?;
            let mut launched = Ok(());
            'capture: for step in 0..self.base.groups {
                for (k, &pass) in group_passes(false, self.one_pass).iter().enumerate() {
                    launched = self.launch_pass(pass, step, false, self.grids[k]);
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
}

impl<K: Kind> StageDevice for CudaDevice<K> {
    fn copy(&mut self, from: usize, to: usize) -> Result<()> {
        let [from, to] = self
            .buffers
            .slices
            .get_disjoint_mut([from, to])
            .map_err(|e| Error::Internal(format!("a copy of buffer {from} into {to}: {e}")))?;
        self.gpu.stream.memcpy_dtod(&*from, to).map_err(cuda_err("copy"))
    }

    fn fill(&mut self, buffer: usize, byte: u8) -> Result<()> {
        let s = &self.gpu.stream;
        let slice = &mut self.buffers.slices[buffer];
        if byte == 0 {
            return s.memset_zeros(slice).map_err(cuda_err("memset"));
        }
        s.context().bind_to_thread().map_err(cuda_err("memset"))?;
        let bytes = slice.len();
        let (at, _sync) = slice.device_ptr_mut(s);
        // SAFETY: `at` is this live allocation of `bytes` bytes, on the stream it was made on;
        // every byte pattern is a value of the buffers' element types.
        unsafe { cudarc::driver::result::memset_d8_async(at, byte, bytes, s.cu_stream()) }.map_err(cuda_err("memset"))
    }

    fn upload(&mut self, buffer: usize, offset: usize, bytes: &[u8]) -> Result<()> {
        let mut to = self.buffers.slices[buffer].slice_mut(offset..offset + bytes.len());
        self.gpu.stream.memcpy_htod(bytes, &mut to).map_err(cuda_err("upload"))
    }

    fn download(&self, buffer: usize, offset: usize, out: &mut [u8]) -> Result<()> {
        let from = self.buffers.slices[buffer].slice(offset..offset + out.len());
        self.gpu.stream.memcpy_dtoh(&from, out).map_err(cuda_err("download"))
    }

    fn pass(&mut self, pass: Pass, step: u32, group: u32, forced: bool) -> Result<()> {
        // Launched one by one, each group gets a grid of its own size (a graph node cannot).
        let g = group as usize;
        let items = if pass.per_subfunction() { self.layout.deps(g).len() } else { self.layout.slots(g).len() };
        let cfg = self.grid((self.n * items) as u64, !pass.per_element());
        self.launch_pass(pass, step, forced, cfg)
    }

    fn one_pass(&self) -> bool {
        self.one_pass
    }

    fn run_all_groups(&mut self, forced: bool) -> Result<bool> {
        if let Some(cfg) = self.by_solution_grid(forced)? {
            self.launch_by_solution(forced, cfg)?;
            return Ok(true);
        }
        if forced {
            // Forced Improvement in one cooperative launch where the device can; else the
            // caller runs it group by group (it is rarer than GOM: no graph is kept for it).
            let Some(cfg) = self.cooperative_grid(&self.forced_grid, self.kernels.forced_improvement)? else {
                return Ok(false);
            };
            let kernel = self.gpu.kernel(self.kernels.forced_improvement)?;
            self.launch_cooperative(&kernel, cfg, false)?;
            return Ok(true);
        }
        match self.cooperative_grid(&self.generation_grid, self.kernels.generation)? {
            Some(cfg) => {
                let kernel = self.gpu.kernel(self.kernels.generation)?;
                self.launch_cooperative(&kernel, cfg, false)?;
                Ok(true)
            }
            None => self.replay_generation(),
        }
    }

    fn search(&mut self, step: SearchStep, _stop: &StopCheck) -> Result<u64> {
        self.base.search.anneal = step.anneal(self.base.seed, self.base.search.anneal);
        self.fill(BUFFER.search_flipped.index(), 0)?;
        self.fill(BUFFER.search_counters.index(), 0)?;
        if let Some(cfg) = self.search_by_solution_grid()? {
            let mut a = Args(self.base);
            let rows = cfg.grid_dim.0 as usize * self.base.l as usize * size_of::<i64>();
            let keeps = keeps_gains::<K>(step.to - step.from, step.descent_rounds);
            if keeps && rows <= KEPT_GAINS_BYTES && self.keeps_gains(&cfg) {
                a.0.search.gains = self.gains_rows(rows)?;
            }
            let by_solution = 1u32;
            let kernel = &self.gpu.kernel(self.kernels.flip_search)?;
            let mut b = self.gpu.stream.launch_builder(&kernel.function);
            b.arg(&a).arg(&by_solution);
            // SAFETY: as for the cooperative search below: the marks and counters are set; a
            // block runs its solutions alone (no grid barrier), with a multiple of 32 threads
            // (`search_by_solution_grid`).
            self.gpu.launched(kernel, unsafe { b.launch(cfg) })?;
        } else if let Some(cfg) = self.cooperative_grid(&self.search_grid, self.kernels.flip_search)? {
            let kernel = self.gpu.kernel(self.kernels.flip_search)?;
            self.launch_cooperative(&kernel, cfg, true)?;
        } else {
            // Sweep by sweep, round by round, colour by colour; the host reads whether any
            // solution goes on.
            let colors = self.base.search.colors;
            for sweep in step.from..step.to {
                for c in 0..colors {
                    self.launch_search_color(c, sweep)?;
                }
            }
            // The descent: rounds (every colour, then the round's end) until one leaves no
            // solution active, at most `descent_rounds` of them.
            let mut before = 0;
            for _ in 0..step.descent_rounds {
                for c in 0..=colors {
                    self.launch_search_color(c, step.sweeps)?;
                }
                let now = self.search_counters()?[1];
                if now == before {
                    break;
                }
                before = now;
            }
        }
        // The greedy rounds counted on the device, and every solution's annealing sweeps.
        Ok(self.search_counters()?[0] + self.n as u64 * (step.to - step.from) as u64)
    }

    /// The GPU keeps the gains only in its search by solution, where its tuning says so (by
    /// default on dense models: `docs/decisions/0029-kept-gains.md`); a call cannot stop inside,
    /// so it stays short otherwise. A grid that cannot be had keeps nothing (the search says why).
    fn least_per_call(&self) -> u32 {
        let keeps = matches!(self.search_by_solution_grid(), Ok(Some(cfg)) if self.keeps_gains(&cfg));
        least_per_call::<K>(keeps)
    }

    // ANCHOR: cuda_mark_elitist
    fn mark_elitist(&mut self) -> Result<()> {
        let b = BuffersArg(self.base.buffers);
        let (n, l) = (self.n as u32, self.base.l);
        let kernel = &self.gpu.kernel(self.kernels.mark_elitist)?;
        let mut launch = self.gpu.stream.launch_builder(&kernel.function);
        launch.arg(&b).arg(&n).arg(&l);
        // SAFETY: parents holds n rows of l genes, reference one row, is_elitist n bytes; blocks
        // of 128 threads.
        self.gpu.launched(kernel, unsafe { launch.launch(self.grid(self.n as u64, true)) })
    }
    // ANCHOR_END: cuda_mark_elitist

    fn mark_converged(&mut self) -> Result<()> {
        let (layout, b) = (LayoutArg(self.base.layout), BuffersArg(self.base.buffers));
        let (n, l, slots) = (self.n as u32, self.base.l, self.layout.slot_set.len() as u32);
        let genes = &self.gpu.kernel(self.kernels.mark_converged_genes)?;
        let mut launch = self.gpu.stream.launch_builder(&genes.function);
        launch.arg(&b).arg(&n).arg(&l);
        // SAFETY: parents holds n rows of l genes, converged_genes l bytes; blocks of 128 threads.
        self.gpu.launched(genes, unsafe { launch.launch(self.grid(u64::from(l), false)) })?;
        let sets = &self.gpu.kernel(self.kernels.mark_converged)?;
        let mut launch = self.gpu.stream.launch_builder(&sets.function);
        launch.arg(&layout).arg(&b).arg(&slots);
        // SAFETY: the layout holds `slots` slots over l variables, converged_genes the marks of
        // all l (the launch before, on the same stream), converged a byte per slot (at least
        // `slots`); blocks of a multiple of 32 threads.
        self.gpu.launched(sets, unsafe { launch.launch(self.grid(slots as u64, true)) })
    }

    fn end_forced_improvement(&mut self, elitist_fitness: i64) -> Result<()> {
        let b = BuffersArg(self.base.buffers);
        let (n, l) = (self.n as u32, self.base.l);
        let kernel = &self.gpu.kernel(self.kernels.forced_improvement_end)?;
        let mut launch = self.gpu.stream.launch_builder(&kernel.function);
        launch.arg(&b).arg(&n).arg(&l).arg(&elitist_fitness);
        // SAFETY: offspring and work hold n rows of l genes, reference one row, fitness and
        // forced n values; one thread per element, any grid.
        self.gpu.launched(kernel, unsafe { launch.launch(self.grid(n as u64 * l as u64, false)) })
    }

    fn synchronize(&mut self) -> Result<()> {
        self.gpu.synchronize()
    }
}
