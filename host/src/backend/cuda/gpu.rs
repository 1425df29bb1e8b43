//! Opening the GPU: whether there is one ([`probe`]), the list of devices, and [`Gpu`], the
//! process's open device, which loads each kernel of the device crate by its exported name
//! (`pgomea_device::kernel_names::KERNELS`) when it is first asked for, and counts the launches
//! of each.
//!
//! A kernel is loaded alone, as a module of its own cut from the embedded PTX (`entry_module`):
//! the driver compiles PTX to the device's code when a module is loaded (and keeps the result in
//! its cache on disk), and compiling every kernel of every problem kind takes seconds on a machine
//! whose cache is empty, where a run needs a few of its kind's
//! (`docs/decisions/0026-kernels-loaded-when-first-needed.md`).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError};
use cudarc::nvrtc::Ptx;
use pgomea_device::kernel_names::{KERNELS, register_budget};
use pgomea_device::mem::Ptr;

use crate::error::{Error, Result};

/// A driver error as an error of this program: `what` failed, with the driver's name for why.
pub(super) fn cuda_err(what: &str) -> impl Fn(DriverError) -> Error + '_ {
    move |e| Error::Cuda(driver_message(what, e))
}

/// The message of [`cuda_err`]'s error (what [`Error::Cuda`] holds).
fn driver_message(what: &str, e: DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    format!("{what}: {name}")
}

/// The device address of `s`'s first byte.
pub(super) fn device_ptr(s: &CudaSlice<u8>, stream: &CudaStream) -> Ptr<u8> {
    let (p, _sync) = s.device_ptr(stream);
    Ptr::from_addr(p)
}

/// Whether a CUDA driver with at least one device is there, without opening a device (the
/// driver's start only): what the algorithm's default asks before the run opens the backend.
pub fn present() -> bool {
    // SAFETY: only tries to open the driver library; cudarc would panic later without it.
    let driver = unsafe { cudarc::driver::sys::is_culib_present() };
    driver && CudaContext::device_count().is_ok_and(|count| count > 0)
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

/// An open GPU; its kernels are loaded when first asked for (`Gpu::kernel`).
pub struct Gpu {
    ctx: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    /// Every kernel of `KERNELS`, in its order, once loaded (in a module of its own, which the
    /// function keeps alive), or why it could not be; and how often each was launched.
    kernels: Vec<OnceLock<std::result::Result<CudaFunction, String>>>,
    launches: Vec<AtomicU64>,
    name: String,
    pub(super) multiprocessors: u32,
    /// Whether the device can launch cooperatively (all blocks resident, grid barriers).
    pub(super) cooperative: bool,
    /// Whether kernels load with their register budgets (`kernel_names::register_budget`):
    /// compute capability 9.0 or more, where the budget was measured.
    register_budgets: bool,
    /// Free device memory when the current measurement began, and the least seen since (after
    /// every allocation of the backend): their difference is the peak the run used.
    memory_baseline: AtomicUsize,
    memory_lowest: AtomicUsize,
}

/// The PTX module of one kernel, `entry`, cut from `ptx` (a module of many kernels, as the LLVM
/// PTX back-end writes one): the whole text without the other kernels' `.entry` definitions, so
/// that the module's declarations (version, target, shared and global variables, functions) stay
/// as they were. An entry's definition runs from its `.entry` line to the line that closes its
/// body's outermost brace (braces counted outside `//` comments, as PTX has no string literals).
pub(crate) fn entry_module(ptx: &str, entry: &str) -> std::result::Result<String, String> {
    let mut out = String::with_capacity(ptx.len() / 8);
    let (mut found, mut skipping, mut depth, mut opened) = (false, false, 0i64, false);
    for line in ptx.split_inclusive('\n') {
        let code = line.split("//").next().unwrap_or("");
        let start = code.trim_start();
        if !skipping && depth == 0 && (start.starts_with(".visible .entry ") || start.starts_with(".entry ")) {
            let name = start.trim_start_matches(".visible ").trim_start_matches(".entry ");
            let name = name.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or("");
            if name == entry {
                found = true;
            } else {
                (skipping, opened) = (true, false);
            }
        }
        let opens = code.matches('{').count() as i64;
        depth += opens - code.matches('}').count() as i64;
        if skipping {
            opened |= opens > 0;
            if opened && depth == 0 {
                skipping = false;
            }
        } else {
            out.push_str(line);
        }
    }
    if depth != 0 || skipping {
        return Err(format!("the kernels' PTX does not parse: unbalanced braces (cutting out {entry})"));
    }
    if !found {
        return Err(format!("the kernels' PTX has no kernel {entry}"));
    }
    Ok(out)
}

/// `module`, one kernel's PTX ([`entry_module`]), with a `.maxnreg budget` directive between the
/// kernel's parameters and its body: the driver's compiler then keeps the kernel within `budget`
/// registers per thread, as CUDA C's launch bounds would (rustc has none to give).
pub(crate) fn with_register_budget(module: &str, budget: u32) -> std::result::Result<String, String> {
    let entry = module.find(".entry ").ok_or("the kernel's PTX has no .entry")?;
    // The first brace after the entry outside a `//` comment opens its body.
    let mut at = entry;
    let body = module[entry..]
        .split_inclusive('\n')
        .find_map(|line| {
            let found = line.split("//").next().unwrap_or("").find('{').map(|b| at + b);
            at += line.len();
            found
        })
        .ok_or("the kernel's PTX has no body")?;
    let mut out = String::with_capacity(module.len() + 16);
    out.push_str(&module[..body]);
    out.push_str(&format!(".maxnreg {budget}\n"));
    out.push_str(&module[body..]);
    Ok(out)
}

/// The device [`Gpu::shared`] opens.
static DEVICE: AtomicUsize = AtomicUsize::new(0);

/// Chooses the device (its number, as `devices` lists them) that the process's runs use: call it
/// before the first run on the GPU; once the GPU is open, the choice changes nothing.
pub fn use_device(ordinal: usize) {
    DEVICE.store(ordinal, Relaxed);
}

impl Gpu {
    pub(crate) fn open(ordinal: usize) -> Result<Gpu> {
        probe().map_err(|why| Error::Cuda(format!("{why}; use the CPU backend")))?;
        let ctx = CudaContext::new(ordinal).map_err(cuda_err("open device"))?;
        // One stream and raw pointers in one argument block: cudarc's per-buffer event tracking
        // would only add two events per launch.
        // SAFETY: all work of this context goes to the one stream created below.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(cuda_err("stream"))?;
        let name = ctx.name().map_err(cuda_err("name"))?;
        use cudarc::driver::sys::CUdevice_attribute as A;
        let multiprocessors =
            ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(cuda_err("attribute"))? as u32;
        let cooperative = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH).map_err(cuda_err("attribute"))? == 1;
        let (major, _) = ctx.compute_capability().map_err(cuda_err("compute capability"))?;
        let free = ctx.mem_get_info().map_err(cuda_err("memory info"))?.0;
        Ok(Gpu {
            ctx,
            stream,
            kernels: KERNELS.iter().map(|_| OnceLock::new()).collect(),
            launches: KERNELS.iter().map(|_| AtomicU64::new(0)).collect(),
            name,
            multiprocessors,
            cooperative,
            register_budgets: major >= 9,
            memory_baseline: free.into(),
            memory_lowest: free.into(),
        })
    }

    /// The kernel of exported name `name`, loaded (compiled by the driver, unless its cache has
    /// it) on the first call for it; a failure is remembered.
    pub(super) fn kernel(&self, name: &str) -> Result<Kernel> {
        let index = KERNELS.iter().position(|&k| k == name).ok_or_else(|| Error::Cuda(format!("no kernel {name}")))?;
        let loaded = self.kernels[index].get_or_init(|| {
            let mut ptx = entry_module(super::KERNELS_PTX, name)?;
            if let Some(budget) = register_budget(name).filter(|_| self.register_budgets) {
                ptx = with_register_budget(&ptx, budget)?;
            }
            let module = self
                .ctx
                .load_module(Ptx::from_src(ptx))
                .map_err(|e| driver_message(&format!("loading kernel {name} (PTX)"), e))?;
            module.load_function(name).map_err(|e| driver_message(&format!("kernel lookup ({name})"), e))
        });
        match loaded {
            Ok(function) => Ok(Kernel { function: function.clone(), index }),
            Err(why) => Err(Error::Cuda(why.clone())),
        }
    }

    /// Loads every kernel now (what a run would otherwise load when it first needs each): for
    /// benchmarks that keep the process's fixed costs out of the timed runs.
    pub fn load_all_kernels(&self) -> Result<()> {
        KERNELS.iter().try_for_each(|name| self.kernel(name).map(drop))
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

    /// The device's name, as the driver gives it.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn free_memory(&self) -> Result<usize> {
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

    pub(crate) fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(cuda_err("kernel execution"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `ptx` that open a kernel (`.entry`), by the kernel's name.
    fn entries(ptx: &str) -> Vec<&str> {
        ptx.lines()
            .filter_map(|l| {
                l.trim_start().strip_prefix(".visible .entry ").or_else(|| l.trim_start().strip_prefix(".entry "))
            })
            .map(|l| l.split('(').next().unwrap_or("").trim())
            .collect()
    }

    #[test]
    fn every_kernel_is_cut_out_alone_with_the_whole_module_declarations() {
        let all = entries(super::super::KERNELS_PTX);
        assert_eq!(all.len(), KERNELS.len(), "the PTX defines {all:?}");
        let header = |ptx: &str| -> Vec<String> {
            ptx.lines().filter(|l| l.starts_with('.') && !l.contains(".entry")).map(str::to_string).collect()
        };
        let mut lines = 0;
        for name in KERNELS {
            let module = entry_module(super::super::KERNELS_PTX, name).unwrap();
            assert_eq!(entries(&module), [name]);
            assert_eq!(header(&module), header(super::super::KERNELS_PTX), "{name}");
            lines += module.lines().count() - header(&module).len();
        }
        // Every line of the whole module is in some kernel's (comments and declarations in all).
        assert!(lines >= super::super::KERNELS_PTX.lines().count() - header(super::super::KERNELS_PTX).len());
    }

    #[test]
    fn gom_generation_kernels_alone_have_a_register_budget() {
        use pgomea_device::kernel_names::{GENERATION_REGISTERS, KIND_KERNELS};
        let budgeted: Vec<&str> = KERNELS.iter().copied().filter(|k| register_budget(k).is_some()).collect();
        let generations: Vec<&str> = KIND_KERNELS.iter().flat_map(|(_, k)| k.generations()).collect();
        assert_eq!(budgeted, generations);
        for name in budgeted {
            assert_eq!(register_budget(name), Some(GENERATION_REGISTERS));
            let module = with_register_budget(&entry_module(super::super::KERNELS_PTX, name).unwrap(), 64).unwrap();
            // Once, after the parameters (whatever comment ends their line), before the body.
            let (entry, budget) = (module.find(".entry ").unwrap(), module.find(".maxnreg 64\n{").unwrap());
            assert_eq!(module.matches(".maxnreg").count(), 1, "{name}");
            assert!(entry < budget && module[entry..budget].contains(')') && !module[entry..budget].contains('{'));
        }
    }

    #[test]
    fn a_module_keeps_its_functions_and_drops_the_other_kernels_whole() {
        let ptx = ".version 7.0\n.target sm_80\n.shared .align 8 .b8 s[8];\n\
            .func (.reg .b32 r) f(.reg .b32 a)\n{\n\tmov.b32 r, a; // {\n}\n\
            .visible .entry a(\n\t.param .u32 p\n)\n{\n\t{ // inner }\n\tret;\n\t}\n}\n\
            // .globl b\n.visible .entry b(\n\t.param .u32 p\n)\n{\n\tret;\n}\n";
        let a = entry_module(ptx, "a").unwrap();
        assert_eq!(
            a,
            ".version 7.0\n.target sm_80\n.shared .align 8 .b8 s[8];\n\
            .func (.reg .b32 r) f(.reg .b32 a)\n{\n\tmov.b32 r, a; // {\n}\n\
            .visible .entry a(\n\t.param .u32 p\n)\n{\n\t{ // inner }\n\tret;\n\t}\n}\n// .globl b\n"
        );
        let b = entry_module(ptx, "b").unwrap();
        assert!(b.contains(".func") && entries(&b) == ["b"] && !b.contains("{ // inner"), "{b}");
        assert!(entry_module(ptx, "c").unwrap_err().contains("no kernel c"));
        // The budget goes between the entry's parameters and its body, not into a function's.
        let budgeted = with_register_budget(&a, 64).unwrap();
        assert_eq!(budgeted, a.replacen(")\n{\n\t{ // inner", ")\n.maxnreg 64\n{\n\t{ // inner", 1));
        assert!(with_register_budget(".version 7.0\n", 64).is_err());
        let commented = ".visible .entry k(\n\t.param .u32 p\n) // {not the body}\n{\n\tret;\n}\n";
        assert_eq!(
            with_register_budget(commented, 32).unwrap(),
            ".visible .entry k(\n\t.param .u32 p\n) // {not the body}\n.maxnreg 32\n{\n\tret;\n}\n"
        );
        assert!(entry_module(".visible .entry a()\n{\n{\n}\n", "b").unwrap_err().contains("unbalanced"));
    }
}
