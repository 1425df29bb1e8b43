//! The CPU backend of parallel GOM: the device crate's stage steps (`pgomea_device::stage`), the
//! very functions the kernels run, on all cores. It implements the small device trait
//! ([`StageDevice`]); the stage schedule over it is the generation loop's own (`Stages`). A pass
//! is one rayon task per solution, each calling [`for_solution`] on the flat arrays of the
//! population (host memory here, device memory for the kernels); a whole generation is one task
//! per solution running every group's passes in order. Every task writes only its
//! solution's rows, so the result is the same for any number of threads, and the same as the
//! GPU's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pgomea_device::crew::Lane;
use pgomea_device::mem::Ptr;
use pgomea_device::problem::Kind;
use pgomea_device::stage::{
    BUFFERS, BufferSizes, Buffers, GomArgs, Group, Layout, Pass, SearchArgs, for_solution, group_passes,
    mark_converged, mark_converged_gene, mark_elitist, replace_unimproved, search_solution,
};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::gomea::Population;
use crate::gomea::local_search::{SearchStep, gains_scratch, least_per_call};
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::{StageDevice, Stages};
use crate::problem::{GrayBoxProblem, InHost, bytes_of, bytes_of_mut, kind_visitor};
use crate::stop::StopCheck;

/// A rayon pool of `threads` threads (`None`: one per core), on which the CPU backend runs its passes.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if t == 0 {
            return Err(Error::option("threads", "0: expected at least 1 thread"));
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
) -> Result<Stages<'a>> {
    let device = new_device(problem, layout.clone(), population.n, seed, pool);
    Stages::new(device, layout, &population)
}

/// The CPU's device for `n` solutions of `problem` ([`new_backend`] without the population).
pub(crate) fn new_device<'a>(
    problem: &'a dyn GrayBoxProblem,
    layout: Arc<GroupLayout>,
    n: usize,
    seed: u64,
    pool: Arc<rayon::ThreadPool>,
) -> Box<dyn StageDevice + 'a> {
    kind_visitor! {
        struct Make {
            layout: Arc<GroupLayout>,
            shared: (Layout, SearchArgs),
            sizes: BufferSizes,
            seed: u64,
            pool: Arc<rayon::ThreadPool>,
        }
        fn visit<K>(kind) -> Box<dyn StageDevice> {
            let buffers = BUFFERS.iter().map(|b| HostBuffer::new(b.bytes(&sizes))).collect();
            let skipped = (0..sizes.n).map(|_| AtomicBool::new(false)).collect();
            let stop = StopCheck::never();
            Box::new(CpuDevice { kind, _layout: layout, shared, sizes, seed, pool, buffers, stop, skipped })
        }
    }
    let f = problem.functions();
    let Ok(shared) = layout.place(&mut InHost);
    let sizes = layout.buffer_sizes(n);
    // The kind and the shared arrays point into `problem`'s and `layout`'s arrays; the device
    // is returned bound to the problem's lifetime 'a and keeps the layout.
    f.with_kind(Make { layout, shared, sizes, seed, pool })
}

/// One buffer in host memory: its bytes, held in 8-byte words so that they are aligned for every
/// element type.
struct HostBuffer {
    words: Vec<u64>,
    len: usize,
}

impl HostBuffer {
    fn new(len: usize) -> Self {
        HostBuffer { words: vec![0; len.div_ceil(8)], len }
    }

    fn bytes(&self) -> &[u8] {
        &bytes_of(&self.words)[..self.len]
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        &mut bytes_of_mut(&mut self.words)[..len]
    }
}

/// One population in host memory, running the steps of parallel GOM with problem kind `K`.
struct CpuDevice<K: Kind> {
    /// The problem's kind over its host arrays (the caller keeps the problem alive).
    kind: K,
    /// Kept alive: `shared` points into it.
    _layout: Arc<GroupLayout>,
    /// The layout's and local search's arrays (the colours' entries among them).
    shared: (Layout, SearchArgs),
    sizes: BufferSizes,
    seed: u64,
    pool: Arc<rayon::ThreadPool>,
    /// In the order of the device crate's `BUFFERS`.
    buffers: Vec<HostBuffer>,
    /// The run's clock and stop flag, checked as each solution begins a group ([`StageDevice::watch`]).
    stop: StopCheck,
    /// The solutions that did not begin the current group's passes (the run stopped first).
    skipped: Vec<AtomicBool>,
}

impl<K: Kind> CpuDevice<K> {
    /// The arguments of the stage steps: this population's buffers, the layout, the problem.
    fn args(&mut self) -> GomArgs<K> {
        let s = &self.sizes;
        GomArgs {
            seed: self.seed,
            n: s.n as u32,
            l: s.l as u32,
            step: 0,
            row_slots: s.row_slots as u32,
            row_deps: s.row_deps as u32,
            groups: s.groups as u32,
            layout: self.shared.0,
            buffers: Buffers::at(|k| Ptr::from_mut_slice(self.buffers[k].bytes_mut())),
            problem: self.kind,
            search: self.shared.1,
        }
    }

    /// `step(i)` for every solution i, one rayon task each; the sum of what they return (local
    /// search's rounds; 0 for the other steps).
    fn per_solution(&self, step: impl Fn(usize) -> u64 + Sync + Send) -> u64 {
        self.pool.install(|| (0..self.sizes.n).into_par_iter().map(step).sum())
    }
}

impl<K: Kind> StageDevice for CpuDevice<K> {
    fn copy(&mut self, from: usize, to: usize) -> Result<()> {
        let [from, to] = self
            .buffers
            .get_disjoint_mut([from, to])
            .map_err(|e| Error::Internal(format!("a copy of buffer {from} into {to}: {e}")))?;
        to.bytes_mut().copy_from_slice(from.bytes());
        Ok(())
    }

    fn fill(&mut self, buffer: usize, byte: u8) -> Result<()> {
        self.buffers[buffer].bytes_mut().fill(byte);
        Ok(())
    }

    fn upload(&mut self, buffer: usize, offset: usize, bytes: &[u8]) -> Result<()> {
        self.buffers[buffer].bytes_mut()[offset..offset + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    fn download(&self, buffer: usize, offset: usize, out: &mut [u8]) -> Result<()> {
        out.copy_from_slice(&self.buffers[buffer].bytes()[offset..offset + out.len()]);
        Ok(())
    }

    // ANCHOR: cpu_pass
    fn pass(&mut self, pass: Pass, step: u32, _group: u32, forced: bool) -> Result<()> {
        let a = self.args();
        // SAFETY: `a` points to this backend's buffers, sized from the layout (`BUFFERS`), the
        // layout and the problem's checked arrays, all alive for the call; the schedule holds
        // `step` (checked by `Stages`); each task writes only solution i's rows (and i's
        // fitness, atomically).
        let g = unsafe { Group::at(&a, step) };
        // A solution begins a group only while the run goes on, and then runs all its passes.
        let first = group_passes(forced, self.one_pass()).first() == Some(&pass);
        let (stop, skipped) = (&self.stop, &self.skipped);
        self.per_solution(|i| unsafe {
            if first {
                skipped[i].store(stop.reason().is_some(), Ordering::Relaxed);
            }
            if skipped[i].load(Ordering::Relaxed) {
                return 0;
            }
            if forced {
                for_solution::<K, true>(&a, &g, i, pass)
            } else {
                for_solution::<K, false>(&a, &g, i, pass)
            }
            0
        });
        Ok(())
    }
    // ANCHOR_END: cpu_pass

    fn run_all_groups(&mut self, forced: bool) -> Result<bool> {
        let (a, one_pass) = (self.args(), self.one_pass());
        // SAFETY: as in `pass`, for every group of the schedule (the caller runs this only when
        // the schedule holds them all); each task runs the groups of its own solution in order,
        // which is all the order GOM needs: the solutions of a generation never read each other's
        // rows (donors come from P), so no join is needed between groups, as on the GPU with a
        // block per solution.
        let stop = &self.stop;
        self.per_solution(|i| unsafe {
            for step in 0..a.groups {
                // Between groups, as `pass` does: a stopped run's solutions end whole groups.
                if stop.reason().is_some() {
                    break;
                }
                let g = Group::at(&a, step);
                for &pass in group_passes(forced, one_pass) {
                    if forced {
                        for_solution::<K, true>(&a, &g, i, pass)
                    } else {
                        for_solution::<K, false>(&a, &g, i, pass)
                    }
                }
            }
            0
        });
        Ok(true)
    }

    /// One pass: a task runs a solution's pairs one after the other, so the thread per
    /// subfunction of three passes buys nothing, and one sweep keeps a set's genes in cache
    /// (dev machine, 2 threads: 1.1-3.5x per generation on G1, G81, NK and 3-SAT).
    fn one_pass(&self) -> bool {
        true
    }

    fn search(&mut self, step: SearchStep, stop: &StopCheck) -> Result<u64> {
        let mut a = self.args();
        a.search.anneal = step.anneal(self.seed, a.search.anneal);
        // A solution's sweep or round takes seconds at 10^7 variables: the search asks the
        // clock and the stop flag as it goes (a stopped search keeps what it reached).
        let go_on = || stop.reason().is_none();
        // SAFETY: as in `pass`; `a.search` holds the layout's colours of this problem's
        // variables and their entries; each task searches only its own solution.
        let l = self.sizes.l;
        // Each rayon split keeps its own gains' scratch (docs/decisions/0029-kept-gains.md).
        let rounds = self.pool.install(|| {
            (0..self.sizes.n)
                .into_par_iter()
                .map_init(
                    || gains_scratch::<K>(step, l),
                    |gains, i| unsafe { search_solution(&a, i, gains.as_ptr(), &go_on) },
                )
                .sum()
        });
        Ok(rounds)
    }

    /// The CPU's search keeps the gains of a kind with partners, and asks the stop as it goes.
    fn least_per_call(&self) -> u32 {
        least_per_call::<K>(true)
    }

    // ANCHOR: cpu_mark_elitist
    fn mark_elitist(&mut self) -> Result<()> {
        let a = self.args();
        let l = self.sizes.l;
        // SAFETY: the buffers hold n rows of l genes, one reference row and n marks; each task
        // writes only its own mark.
        self.per_solution(|i| unsafe {
            mark_elitist(&Lane, &a.buffers, l, i);
            0
        });
        Ok(())
    }
    // ANCHOR_END: cpu_mark_elitist

    fn mark_converged(&mut self) -> Result<()> {
        let a = self.args();
        let (n, l) = (a.n, self.sizes.l);
        // SAFETY: P holds n rows of l genes, `converged_genes` l bytes; each task writes only its
        // own genes' marks.
        self.pool.install(|| {
            (0..l).into_par_iter().with_min_len(64).for_each(|v| unsafe { mark_converged_gene(&a.buffers, n, l, v) })
        });
        // SAFETY: the layout's slots lie over the l variables, all marked above, `converged`
        // holds one byte per slot; each task writes only its own slot's mark.
        self.pool.install(|| {
            (0..self.sizes.slots).into_par_iter().for_each(|s| unsafe {
                mark_converged(&Lane, &a.layout, &a.buffers, s);
            })
        });
        Ok(())
    }

    fn end_forced_improvement(&mut self, elitist_fitness: i64) -> Result<()> {
        let a = self.args();
        let l = self.sizes.l;
        // SAFETY: the buffers hold n rows of l genes, a reference row, n fitness values and
        // marks; each task writes only its own solution.
        self.per_solution(|i| unsafe {
            for v in 0..l {
                replace_unimproved(&a.buffers, l, i, v, elitist_fitness);
            }
            0
        });
        Ok(())
    }

    fn synchronize(&mut self) -> Result<()> {
        Ok(())
    }

    fn watch(&mut self, stop: &StopCheck) -> bool {
        self.stop = stop.clone();
        true
    }
}
