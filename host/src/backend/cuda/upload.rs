//! Device memory: a run's budget (the option `device_memory_limit`) and its accounting, the arrays every
//! population of a run shares, uploaded once ([`SharedArrays`]), and the buffers of one
//! population (`DeviceBuffers`), all counted against the budget before they are allocated.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaSlice, CudaStream, DriverError};
use pgomea_device::mem::Ptr;
use pgomea_device::stage::{BUFFERS, BufferSizes, Layout, SearchArgs, population_bytes};

use super::gpu::{Gpu, cuda_err, device_ptr};
use super::tuning::CudaTuning;
use crate::error::{Error, Result};
use crate::gomea::parallel::StageDevice;
use crate::gomea::parallel::layout::GroupLayout;
use crate::problem::{ArrayPlace, GrayBoxProblem, Plain, bytes_of, kind_visitor};
use crate::stop::StopCheck;

/// A run's limit on the device memory it may allocate (the option `device_memory_limit`), and what it has
/// allocated: populations that would exceed it fail as out of memory (the multi-start scheme
/// then stops growing), as a real `cuMemAlloc` failure does.
#[derive(Debug, Default)]
pub struct DeviceBudget {
    limit: Option<u64>,
    used: AtomicU64,
}

impl DeviceBudget {
    pub(crate) fn new(limit: Option<u64>) -> Self {
        DeviceBudget { limit, used: 0.into() }
    }

    /// Takes `bytes` for a population of `population_size` solutions, until the reservation is
    /// dropped.
    fn reserve(self: &Arc<Self>, bytes: u64, population_size: usize) -> Result<Reservation> {
        let used = self.used.fetch_add(bytes, Relaxed) + bytes;
        if let Some(limit) = self.limit
            && used > limit
        {
            self.used.fetch_sub(bytes, Relaxed);
            return Err(Error::OutOfMemory {
                population_size,
                message: format!(
                    "{bytes} bytes more would pass the device memory limit (device_memory_limit) of {limit} bytes"
                ),
            });
        }
        Ok(Reservation { budget: self.clone(), bytes })
    }
}

/// Bytes taken from a [`DeviceBudget`], given back on drop.
struct Reservation {
    budget: Arc<DeviceBudget>,
    bytes: u64,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.bytes, Relaxed);
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

/// Nowhere: counts the bytes of the arrays (for the budget, before anything is allocated).
struct Count(usize);

impl ArrayPlace for Count {
    type Error = std::convert::Infallible;
    fn place<T: Plain>(&mut self, array: &[T]) -> std::result::Result<Ptr<T>, Self::Error> {
        self.0 += size_of_val(array);
        Ok(Ptr::default())
    }
}

/// Device memory: a copy of each array on the GPU (an empty one as eight zero bytes), kept here;
/// `stop` is checked before each array (one array of 10^7 entries copies in milliseconds).
struct Upload<'s> {
    stream: &'s Arc<CudaStream>,
    arrays: Vec<CudaSlice<u8>>,
    stop: &'s StopCheck,
}

impl ArrayPlace for Upload<'_> {
    type Error = Error;
    fn place<T: Plain>(&mut self, array: &[T]) -> Result<Ptr<T>> {
        self.stop.check()?;
        let bytes = if array.is_empty() { &[0u8; 8][..] } else { bytes_of(array) };
        let copy = self.stream.clone_htod(bytes).map_err(cuda_err("upload"))?;
        let at = device_ptr(&copy, self.stream).cast();
        self.arrays.push(copy);
        Ok(at)
    }
}

/// What the device of one population is made of.
pub(super) struct NewPopulation<'t> {
    pub gpu: Arc<Gpu>,
    /// The arrays of `layout` and of the problem, uploaded.
    pub shared: Arc<SharedArrays>,
    pub layout: Arc<GroupLayout>,
    /// Solutions, the seed of its random numbers, its launch shapes.
    pub n: usize,
    pub seed: u64,
    pub tuning: &'t CudaTuning,
}

/// Makes the device of one population for the problem's kind (the CUDA backend's stages).
pub(super) trait MakeDevice: Send + Sync {
    fn make(&self, population: NewPopulation) -> Result<Box<dyn StageDevice>>;
}

/// The problem's kind over device memory.
pub(super) struct KindOnDevice<K>(pub K);

kind_visitor! {
    /// The kind of the uploaded problem, kept for making each population's device.
    struct OnDevice {}
    fn visit<K>(kind) -> Box<dyn MakeDevice> {
        Box::new(KindOnDevice(kind))
    }
}

/// The problem and layout arrays, uploaded once per run and shared by all populations.
pub struct SharedArrays {
    /// The run's device memory budget, shared by its populations, and these arrays' part of it.
    budget: Arc<DeviceBudget>,
    _reserved: Reservation,
    /// The uploaded arrays, kept alive: `layout`, `search` and the kind point into them.
    _arrays: Vec<CudaSlice<u8>>,
    pub(super) layout: Layout,
    pub(super) search: SearchArgs,
    pub(super) kind: Box<dyn MakeDevice>,
    /// The subfunctions' entries (the sum of their arities): on pairwise kinds, each variable's
    /// partners summed, which the search's choice to keep gains reads.
    pub(super) entries: u64,
}

impl SharedArrays {
    /// Uploads the arrays of `problem` and `layout`, counted in a new budget of `limit` bytes
    /// for the run (None: no limit but the device's). Stops with `Error::Stopped` between two
    /// arrays when `stop` says so (what was uploaded is freed).
    pub fn upload(
        gpu: &Gpu,
        problem: &dyn GrayBoxProblem,
        layout: &GroupLayout,
        limit: Option<u64>,
        stop: &StopCheck,
    ) -> Result<Arc<SharedArrays>> {
        let budget = Arc::new(DeviceBudget::new(limit));
        let f = problem.functions();
        let mut count = Count(0);
        let Ok(_) = layout.place(&mut count);
        let Ok(_) = f.arrays().place(&mut count, OnDevice {});
        let reserved = budget
            .reserve(count.0 as u64, 0)
            .map_err(|e| Error::usage(format!("the problem's arrays do not fit: {e}")))?;
        let mut upload = Upload { stream: &gpu.stream, arrays: Vec::new(), stop };
        let (layout_arrays, search) = layout.place(&mut upload)?;
        let kind = f.arrays().place(&mut upload, OnDevice {})?;
        gpu.note_memory()?;
        Ok(Arc::new(SharedArrays {
            budget,
            entries: f.entries() as u64,
            _reserved: reserved,
            _arrays: upload.arrays,
            layout: layout_arrays,
            search,
            kind,
        }))
    }
}

/// The buffers of one population on the GPU, as bytes in the order of the device crate's
/// `BUFFERS`, zeroed, and counted against the run's budget until they are dropped.
pub(super) struct DeviceBuffers {
    pub slices: Vec<CudaSlice<u8>>,
    _reserved: Reservation,
}

impl DeviceBuffers {
    pub fn new(gpu: &Gpu, shared: &SharedArrays, sizes: &BufferSizes) -> Result<Self> {
        // Every buffer, counted against the run's budget before any is allocated.
        let reserved = shared.budget.reserve(population_bytes(sizes) as u64, sizes.n)?;
        let oom = alloc_err(sizes.n);
        let slices = BUFFERS
            .iter()
            .map(|b| gpu.stream.alloc_zeros::<u8>(b.bytes(sizes).max(1)).map_err(&oom))
            .collect::<Result<Vec<_>>>()?;
        gpu.note_memory()?;
        Ok(DeviceBuffers { slices, _reserved: reserved })
    }
}
