//! The PTX builder of pgomea (the project's own "cuda_builder").
//!
//! Compiles the `device/` crate for `nvptx64-nvidia-cuda` into one PTX module,
//! `$OUT_DIR/kernels.ptx`, which the library embeds (`backend::cuda::KERNELS_PTX`, through the
//! compile-time variable `PGOMEA_KERNELS_PTX`), so that every program built on it, the CLI and the
//! Python package alike, carries the kernels. ARCHITECTURE.md ("Rust kernels on rustc's nvptx64 target") has the
//! facts behind each step.
//!
//! 1. Find the pinned kernel toolchain (`nightly-2026-05-20`, with `rust-src` and `llvm-tools`)
//!    through rustup, whatever toolchain runs this host build.
//! 2. Build the linker `tools/ptx-linker` (llvm-link + opt internalize/O3 + llc; see its source).
//! 3. Run a nested `cargo rustc --release --lib --crate-type cdylib --target nvptx64-nvidia-cuda
//!    -Zbuild-std=core` on `device/` with its own target dir and a cleaned environment, so that
//!    none of the host build's settings (another toolchain, RUSTFLAGS, clippy or coverage
//!    wrappers, CARGO_* variables) leak into the kernel build. The host keeps using `device/` as
//!    an ordinary rlib; only this nested build makes a cdylib of it.
//! 4. Copy the PTX to `$OUT_DIR/kernels.ptx` and to `<target dir>/ptx/kernels.ptx` (a stable path
//!    for `.ci/check-ptx`), and next to each the device crate's list of exported kernels
//!    (`pgomea_device::kernel_names::KERNELS`, one name per line: `kernels.list`), which
//!    `.ci/check-ptx` holds the PTX's entries against, and the kernels' register budgets on sm_90
//!    (`kernel_names::register_budget`, "name registers" per line: `kernels.budgets`), which it
//!    checks them under.
//! 5. Ask cargo to rerun only when a kernel source (the files in the nested build's dep-info), the
//!    device manifest, the linker or this file changes.
//!
//! The nested target dir is `<target dir>/ptx` (shared by the debug and release host builds: the
//! kernels are always built in release), or `$PGOMEA_PTX_TARGET_DIR` when set.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const TOOLCHAIN: &str = "nightly-2026-05-20";
const TARGET: &str = "nvptx64-nvidia-cuda";
/// sm_80 PTX (ISA 7.0) runs on A100 and is JIT-compiled by the driver for H100/H200.
const TARGET_CPU: &str = "sm_80";

fn main() {
    if let Err(message) = build() {
        eprintln!("\nerror: pgomea's build script could not build the CUDA kernels (PTX):\n");
        eprintln!("{message}\n");
        eprintln!(
            "The kernels need the pinned toolchain {TOOLCHAIN} with the rust-src and llvm-tools \
             components:\n    rustup toolchain install {TOOLCHAIN} --profile minimal -c rust-src \
             -c llvm-tools\n"
        );
        std::process::exit(1);
    }
}

fn build() -> Result<(), String> {
    // This crate is host/; the device crate, the linker and the toolchain file are beside it.
    let crate_dir = PathBuf::from(env_var("CARGO_MANIFEST_DIR")?);
    let root = crate_dir.parent().ok_or("host/ has no parent directory")?.to_path_buf();
    let out_dir = PathBuf::from(env_var("OUT_DIR")?);
    let device = root.join("device");
    let linker_crate = root.join("tools").join("ptx-linker");
    let ptx_target = ptx_target_dir(&out_dir);
    fs::create_dir_all(&ptx_target).map_err(|e| format!("cannot create {}: {e}", ptx_target.display()))?;

    // 1. The kernel toolchain.
    let tc = Toolchain::find()?;

    // 2. The linker.
    let started = Instant::now();
    let linker_target = ptx_target.join("linker");
    let mut cmd = tc.cargo_command();
    cmd.arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(linker_crate.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&linker_target);
    run(cmd, "building the PTX linker (tools/ptx-linker)")?;
    let linker = linker_target.join("release").join(format!("pgomea-ptx-linker{}", env::consts::EXE_SUFFIX));
    let linker_sources = files_under(&linker_crate.join("src"))?;
    let mut linker_id = fnv1a(&fs::read(linker_crate.join("Cargo.toml")).unwrap_or_default(), FNV_SEED);
    for f in &linker_sources {
        linker_id = fnv1a(&fs::read(f).unwrap_or_default(), linker_id);
    }

    // 3. The kernels. Flags for every crate of the nested build (core included), so that core is
    // built the same way as the kernels.
    let flags = [
        "-Cpanic=immediate-abort".to_owned(),
        "-Zunstable-options".to_owned(),
        format!("-Ctarget-cpu={TARGET_CPU}"),
        format!("-Clinker={}", path_str(&linker)?),
        "-Clinker-flavor=llbc".to_owned(),
    ];
    let mut cmd = tc.cargo_command();
    cmd.env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
        .arg("rustc")
        .arg("--release")
        .arg("--lib")
        .arg("--crate-type")
        .arg("cdylib")
        .arg("--target")
        .arg(TARGET)
        .arg("-Zbuild-std=core")
        .arg("--manifest-path")
        .arg(device.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&ptx_target)
        // Flags of the device crate alone: a changed linker relinks it without rebuilding core.
        .arg("--")
        .arg(format!("-Clink-arg=--llvm-bin-dir={}", path_str(&tc.llvm_bin)?))
        .arg(format!("-Clink-arg=--linker-hash={linker_id:016x}"));
    run(cmd, "building the kernels (device/ for nvptx64-nvidia-cuda)")?;
    eprintln!("pgomea build.rs: kernel build took {:.1} s", started.elapsed().as_secs_f64());

    // 4. The PTX.
    let artifacts = ptx_target.join(TARGET).join("release");
    let built = artifacts.join("pgomea_device.ptx");
    let ptx =
        fs::read_to_string(&built).map_err(|e| format!("the kernel build made no PTX at {}: {e}", built.display()))?;
    if !ptx.contains(".entry ") || ptx.contains(".extern .func") {
        return Err(format!("{} is not a complete PTX module", built.display()));
    }
    let kernels_ptx = out_dir.join("kernels.ptx");
    let names = pgomea_device::kernel_names::KERNELS;
    let list: String = names.iter().map(|k| format!("{k}\n")).collect();
    let budget = pgomea_device::kernel_names::register_budget;
    let budgets: String = names.iter().filter_map(|k| budget(k).map(|b| format!("{k} {b}\n"))).collect();
    for dir in [&out_dir, &ptx_target] {
        write_atomically(&dir.join("kernels.list"), &list)?;
        write_atomically(&dir.join("kernels.budgets"), &budgets)?;
        write_atomically(&dir.join("kernels.ptx"), &ptx)?;
    }
    println!("cargo:rustc-env=PGOMEA_KERNELS_PTX={}", path_str(&kernels_ptx)?);

    // 5. When to run again. Never a folder the nested build writes into.
    let dep_info = artifacts.join("pgomea_device.d");
    let deps = fs::read_to_string(&dep_info)
        .map_err(|e| format!("cannot read the kernel build's dep-info {}: {e}", dep_info.display()))?;
    for dep in parse_dep_info(&deps) {
        // Sources of core in the toolchain's rust-src change only with the toolchain.
        if !dep.starts_with(&tc.sysroot) {
            println!("cargo:rerun-if-changed={}", dep.display());
        }
    }
    // (No Cargo.lock: the nested builds may write those, which would make every build rerun this.)
    let mut watched = vec![
        crate_dir.join("build.rs"),
        root.join("rust-toolchain.toml"),
        device.join("Cargo.toml"),
        device.join(".cargo").join("config.toml"),
        linker_crate.join("Cargo.toml"),
    ];
    watched.extend(linker_sources);
    for f in watched.iter().filter(|f| f.is_file()) {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    println!("cargo:rerun-if-env-changed=PGOMEA_PTX_TARGET_DIR");
    Ok(())
}

/// `<target dir>/ptx`: the target dir is the ancestor of OUT_DIR that holds cargo's CACHEDIR.TAG.
fn ptx_target_dir(out_dir: &Path) -> PathBuf {
    if let Some(dir) = env::var_os("PGOMEA_PTX_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    out_dir
        .ancestors()
        .skip(1)
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .map(|d| d.join("ptx"))
        .unwrap_or_else(|| out_dir.join("ptx-target"))
}

struct Toolchain {
    cargo: PathBuf,
    rustc: PathBuf,
    sysroot: PathBuf,
    llvm_bin: PathBuf,
}

impl Toolchain {
    fn find() -> Result<Toolchain, String> {
        let (cargo, rustc) = match rustup() {
            Some(rustup) => {
                let which = |tool: &str| -> Result<PathBuf, String> {
                    let mut cmd = clean_command(&rustup);
                    cmd.args(["which", "--toolchain", TOOLCHAIN, tool]);
                    let out = output(cmd).map_err(|e| format!("the toolchain {TOOLCHAIN} is not installed:\n{e}"))?;
                    Ok(PathBuf::from(out.trim()))
                };
                (which("cargo")?, which("rustc")?)
            }
            // No rustup: trust the cargo and rustc on PATH to be the pinned nightly.
            None => (PathBuf::from("cargo"), PathBuf::from("rustc")),
        };
        let mut cmd = clean_command(&rustc);
        cmd.args(["--print", "sysroot"]);
        let sysroot = PathBuf::from(output(cmd)?.trim());
        let mut cmd = clean_command(&rustc);
        cmd.arg("-vV");
        let version = output(cmd)?;
        let host = version
            .lines()
            .find_map(|l| l.strip_prefix("host: "))
            .ok_or_else(|| format!("cannot read the host triple from `{} -vV`", rustc.display()))?
            .trim()
            .to_owned();
        if !version.contains("nightly") {
            return Err(format!("{} is not a nightly rustc:\n{version}", rustc.display()));
        }
        let rustlib = sysroot.join("lib").join("rustlib");
        if !rustlib.join("src").join("rust").join("library").join("core").is_dir() {
            return Err(format!("the rust-src component is missing from {}", sysroot.display()));
        }
        let llvm_bin = rustlib.join(&host).join("bin");
        for tool in ["llvm-link", "opt", "llc"] {
            if !llvm_bin.join(tool).is_file() {
                return Err(format!("the llvm-tools component is missing: no {} in {}", tool, llvm_bin.display()));
            }
        }
        Ok(Toolchain { cargo, rustc, sysroot, llvm_bin })
    }

    /// A cargo of the kernel toolchain in a clean environment.
    fn cargo_command(&self) -> Command {
        let mut cmd = clean_command(&self.cargo);
        cmd.env("RUSTC", &self.rustc);
        cmd
    }
}

/// rustup: on PATH, or in $CARGO_HOME/bin, or in ~/.cargo/bin.
fn rustup() -> Option<PathBuf> {
    let name = format!("rustup{}", env::consts::EXE_SUFFIX);
    let mut dirs: Vec<PathBuf> = env::var_os("PATH").map(|p| env::split_paths(&p).collect()).unwrap_or_default();
    dirs.extend(env::var_os("CARGO_HOME").map(|h| PathBuf::from(h).join("bin")));
    dirs.extend(env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo").join("bin")));
    dirs.into_iter().map(|d| d.join(&name)).find(|p| p.is_file())
}

/// `program` with the environment of this build script minus everything that configures a Rust
/// build: RUSTC*, RUSTDOC*, RUSTFLAGS, the CARGO_* variables cargo sets for build scripts (and
/// CARGO_TARGET_DIR, CARGO_BUILD_*, CARGO_PROFILE_*, CARGO_ENCODED_RUSTFLAGS, ...) and cargo's
/// other build-script variables. Kept: CARGO_HOME, the jobserver (CARGO_MAKEFLAGS) and the
/// network and registry settings. RUSTUP_TOOLCHAIN is set to the kernel toolchain.
fn clean_command(program: &Path) -> Command {
    const KEEP: &[&str] = &["CARGO_HOME", "CARGO_MAKEFLAGS"];
    const KEEP_PREFIXES: &[&str] =
        &["CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTRY_", "CARGO_REGISTRIES_", "CARGO_SOURCE_"];
    const BUILD_SCRIPT_VARS: &[&str] = &["TARGET", "HOST", "OUT_DIR", "PROFILE", "OPT_LEVEL", "DEBUG", "NUM_JOBS"];
    let mut cmd = Command::new(program);
    for (key, _) in env::vars_os() {
        let Some(k) = key.to_str() else { continue };
        let cargo = k.starts_with("CARGO") && !KEEP.contains(&k) && !KEEP_PREFIXES.iter().any(|p| k.starts_with(p));
        if cargo
            || k.starts_with("RUSTC")
            || k.starts_with("RUSTDOC")
            || k == "RUSTFLAGS"
            || k.starts_with("__CARGO")
            || BUILD_SCRIPT_VARS.contains(&k)
        {
            cmd.env_remove(&key);
        }
    }
    cmd.env("RUSTUP_TOOLCHAIN", TOOLCHAIN);
    cmd
}

fn run(mut cmd: Command, what: &str) -> Result<(), String> {
    // The nested cargo's stdout goes to our stderr: only this script may talk to cargo on stdout.
    cmd.stdout(Stdio::from(std::io::stderr()));
    let shown = describe(&cmd);
    let status = cmd.status().map_err(|e| format!("{what}: cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({status}); the command (in a cleaned environment) was\n    {shown}\n\
             and its messages are above"
        ))
    }
}

fn output(mut cmd: Command) -> Result<String, String> {
    let shown = describe(&cmd);
    cmd.env_remove("RUST_BACKTRACE");
    let out = cmd.output().map_err(|e| format!("cannot run {shown}: {e}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message: Vec<&str> = stderr
            .lines()
            .take_while(|l| !l.trim_start().starts_with("Stack backtrace"))
            .filter(|l| !l.trim().is_empty())
            .collect();
        return Err(format!("`{shown}` failed ({}): {}", out.status, message.join("\n")));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("{shown} printed non-UTF-8"))
}

/// The program and arguments of `cmd` (without its environment changes).
fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

fn env_var(name: &str) -> Result<OsString, String> {
    env::var_os(name).ok_or_else(|| format!("{name} is not set (not run by cargo?)"))
}

fn path_str(p: &Path) -> Result<&str, String> {
    p.to_str().ok_or_else(|| format!("path is not UTF-8: {}", p.display()))
}

fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    let temp = path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&temp, text)
        .and_then(|()| fs::rename(&temp, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The files a Makefile-style dep-info (`target: dep dep ...`) names, `\ ` being a space.
fn parse_dep_info(text: &str) -> Vec<PathBuf> {
    let mut deps = Vec::new();
    for line in text.lines() {
        let Some((_, rest)) = line.split_once(": ") else {
            continue;
        };
        let mut current = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek().is_some_and(|n| *n == ' ' || *n == '\\') => {
                    current.extend(chars.next());
                }
                ' ' => {
                    if !current.is_empty() {
                        deps.push(PathBuf::from(std::mem::take(&mut current)));
                    }
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            deps.push(PathBuf::from(current));
        }
    }
    deps
}

/// The files under `dir`, recursively, sorted.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let entries = fs::read_dir(&d).map_err(|e| format!("cannot list {}: {e}", d.display()))?;
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() { stack.push(p) } else { files.push(p) }
        }
    }
    files.sort();
    Ok(files)
}

const FNV_SEED: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a: a stable hash (the same on every toolchain) of the linker's sources.
fn fnv1a(bytes: &[u8], mut hash: u64) -> u64 {
    for &b in bytes {
        hash = (hash ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
