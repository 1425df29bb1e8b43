//! Opening the GPU: whether there is one ([`probe`]), the list of devices, and [`Gpu`], the
//! process's open device with the kernels of the device crate loaded by their exported names
//! (`pgomea_device::kernel_names::KERNELS`), counting the launches of each.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError};
use cudarc::nvrtc::Ptx;
use pgomea_device::kernel_names::KERNELS;
use pgomea_device::mem::Ptr;

use crate::error::{Error, Result};

/// A driver error as an error of this program: `what` failed, with the driver's name for why.
pub(super) fn cuda_err(what: &str) -> impl Fn(DriverError) -> Error + '_ {
    move |e| {
        let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
        Error::Cuda(format!("{what}: {name}"))
    }
}

/// The device address of `s`'s first byte.
pub(super) fn device_ptr(s: &CudaSlice<u8>, stream: &CudaStream) -> Ptr<u8> {
    let (p, _sync) = s.device_ptr(stream);
    Ptr::from_addr(p)
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

/// A kernel of the loaded module: its function and its place in `KERNELS`.
#[derive(Clone, Debug)]
pub(super) struct Kernel {
    pub function: CudaFunction,
    index: usize,
}

/// An open GPU with the kernels loaded.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    _module: Arc<CudaModule>,
    /// Every kernel of `KERNELS`, in its order, and how often each was launched.
    kernels: Vec<CudaFunction>,
    launches: Vec<AtomicU64>,
    name: String,
    pub(super) multiprocessors: u32,
    /// Whether the device can launch cooperatively (all blocks resident, grid barriers).
    pub(super) cooperative: bool,
    /// Free device memory when the current measurement began, and the least seen since (after
    /// every allocation of the backend): their difference is the peak the run used.
    memory_baseline: AtomicUsize,
    memory_lowest: AtomicUsize,
}

/// The device [`Gpu::shared`] opens.
static DEVICE: AtomicUsize = AtomicUsize::new(0);

/// Chooses the device (its number, as `devices` lists them) that the process's runs use: call it
/// before the first run on the GPU; once the GPU is open, the choice changes nothing.
pub fn use_device(ordinal: usize) {
    DEVICE.store(ordinal, Relaxed);
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
        let module =
            ctx.load_module(Ptx::from_src(super::KERNELS_PTX)).map_err(cuda_err("loading the kernels (PTX)"))?;
        let kernels = KERNELS
            .iter()
            .map(|&k| module.load_function(k).map_err(|e| cuda_err(&format!("kernel lookup ({k})"))(e)))
            .collect::<Result<Vec<_>>>()?;
        let name = ctx.name().map_err(cuda_err("name"))?;
        use cudarc::driver::sys::CUdevice_attribute as A;
        let multiprocessors =
            ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(cuda_err("attribute"))? as u32;
        let cooperative = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH).map_err(cuda_err("attribute"))? == 1;
        let free = ctx.mem_get_info().map_err(cuda_err("memory info"))?.0;
        Ok(Gpu {
            ctx,
            stream,
            _module: module,
            launches: kernels.iter().map(|_| AtomicU64::new(0)).collect(),
            kernels,
            name,
            multiprocessors,
            cooperative,
            memory_baseline: free.into(),
            memory_lowest: free.into(),
        })
    }

    /// The kernel of exported name `name`.
    pub(super) fn kernel(&self, name: &str) -> Result<Kernel> {
        let index = KERNELS.iter().position(|&k| k == name).ok_or_else(|| Error::Cuda(format!("no kernel {name}")))?;
        Ok(Kernel { function: self.kernels[index].clone(), index })
    }

    /// Counts a launch of `kernel` that the driver accepted; maps a refusal to an error.
    pub(super) fn launched<T>(&self, kernel: &Kernel, result: std::result::Result<T, DriverError>) -> Result<()> {
        result.map_err(cuda_err("kernel launch"))?;
        self.launches[kernel.index].fetch_add(1, Relaxed);
        Ok(())
    }

    /// Whether the device can launch cooperatively (else the whole-generation, Forced
    /// Improvement and local-search kernels of each kind never run).
    pub fn can_launch_cooperatively(&self) -> bool {
        self.cooperative
    }

    /// Every kernel with the number of its launches so far (the GPU tests check that each ran).
    pub fn launch_counts(&self) -> Vec<(&'static str, u64)> {
        KERNELS.iter().zip(&self.launches).map(|(&k, n)| (k, n.load(Relaxed))).collect()
    }

    /// The process's one open GPU (device 0), opened on first use: creating a context and loading
    /// the kernels costs far more than most runs' first generations, and every run, self-test
    /// case and benchmark pass of a process can share them. An error is remembered too.
    ///
    /// The device is number 0, or the one [`use_device`] chose before.
    pub fn shared() -> Result<Arc<Gpu>> {
        static GPU: std::sync::OnceLock<std::result::Result<Arc<Gpu>, String>> = std::sync::OnceLock::new();
        GPU.get_or_init(|| {
            Gpu::open(DEVICE.load(Relaxed)).map(Arc::new).map_err(|e| match e {
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
        let free = self.free_memory()?;
        self.memory_baseline.store(free, Relaxed);
        self.memory_lowest.store(free, Relaxed);
        Ok(())
    }

    /// Notes the free device memory now (after an allocation).
    pub(super) fn note_memory(&self) -> Result<()> {
        self.memory_lowest.fetch_min(self.free_memory()?, Relaxed);
        Ok(())
    }

    /// The most device memory in use since `reset_memory_peak`, in bytes (as seen after every
    /// allocation of the backend).
    pub fn peak_memory(&self) -> usize {
        self.memory_baseline.load(Relaxed).saturating_sub(self.memory_lowest.load(Relaxed))
    }

    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(cuda_err("kernel execution"))
    }
}
