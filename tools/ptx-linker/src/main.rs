//! pgomea-ptx-linker: the linker of pgomea's kernel build (the `nvptx64-nvidia-cuda` target).
//!
//! rustc's nvptx64 target uses the `llbc` linker flavour: every object it hands over is LLVM bitcode
//! (the crate's own objects and the rlibs it still needs, in practice `compiler_builtins`). The
//! upstream `llvm-bitcode-linker` tool is not shipped for this target, so scripts/ptx
//! compiles this small program and passes it with `-Clinker=`. It does what that tool does:
//!
//! 1. collect the bitcode: plain bitcode objects as they are, and the bitcode members of `.rlib`
//!    archives (their `lib.rmeta` members are skipped; llvm-link 22 cannot skip them itself);
//! 2. `llvm-link` them into one module;
//! 3. `opt --passes=internalize,globaldce,default<O3>` with the exported kernels as the only public
//!    API: **the symbols kept are exactly those rustc passes with `--export-symbol`**, that is the
//!    `#[unsafe(no_mangle)] pub` items of the device cdylib (its `extern "ptx-kernel"` kernels).
//!    Everything else (core, compiler_builtins, helpers) becomes internal, is inlined or deleted;
//! 4. `llc -mcpu=<sm>` to PTX;
//! 5. check the PTX: no unresolved `.extern .func` / `.extern .global` (only the CUDA syscalls
//!    `vprintf`, `malloc`, `free`, `__assertfail` may stay external, the driver provides those),
//!    and every exported kernel present as an `.entry`.
//!
//! Command line (what rustc passes, plus two options of ours given with `-Clink-arg=`):
//!   INPUT... -o OUT [-L DIR]... [--target TRIPLE] [--target-cpu CPU] [-O0|-O1|-O2|-O3|-Os|-Oz]
//!   [--debug] [--export-symbol SYM]... [--llvm-bin-dir DIR] [--linker-hash HASH] [--keep-temps]
//!   and `@FILE` response files.
//!
//! The LLVM tools must be those of the rustc that made the bitcode (the `llvm-tools` rustup
//! component of the same toolchain). They are looked up in `--llvm-bin-dir`, then
//! `$PGOMEA_LLVM_BIN_DIR`, then `<sysroot>/lib/rustlib/*/bin` of the sysroot rustc names with `-L`,
//! then `PATH`. Set `PGOMEA_PTX_KEEP_TEMPS=1` (or pass `--keep-temps`) to keep the intermediate
//! bitcode next to the output.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// CUDA "syscalls" the driver resolves when it loads a module; they may stay `.extern .func`.
const DRIVER_PROVIDED: &[&str] = &["vprintf", "malloc", "free", "__assertfail"];

#[derive(Default)]
struct Options {
    inputs: Vec<PathBuf>,
    output: Option<PathBuf>,
    search_dirs: Vec<PathBuf>,
    target: Option<String>,
    target_cpu: Option<String>,
    opt_level: Option<String>,
    exports: Vec<String>,
    llvm_bin_dir: Option<PathBuf>,
    keep_temps: bool,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pgomea-ptx-linker: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = expand_response_files(std::env::args_os().skip(1).collect())?;
    let opts = parse(args)?;
    let output = opts.output.clone().ok_or("no output file given (-o)")?;
    if opts.inputs.is_empty() {
        return Err("no input files".into());
    }
    if let Some(t) = &opts.target
        && !t.starts_with("nvptx64")
    {
        return Err(format!("this linker only links nvptx64 targets, not {t}"));
    }
    let tools = Tools::find(&opts)?;
    let cpu = opts.target_cpu.clone().unwrap_or_else(|| "sm_80".to_owned());
    let level = opts.opt_level.clone().unwrap_or_else(|| "3".to_owned());

    let temp = output.with_extension("pgomea-link");
    let _ = fs::remove_dir_all(&temp);
    fs::create_dir_all(&temp).map_err(|e| format!("cannot create {}: {e}", temp.display()))?;

    // 1. The bitcode inputs.
    let mut bitcode = Vec::new();
    for (i, input) in opts.inputs.iter().enumerate() {
        collect_bitcode(input, i, &temp, &mut bitcode)?;
    }

    // 2. One module.
    let linked = temp.join("linked.bc");
    let mut cmd = Command::new(&tools.llvm_link);
    cmd.args(&bitcode).arg("-o").arg(&linked);
    exec(cmd)?;

    // 3. Internalize all but the exported kernels, then optimize.
    let api_file = temp.join("exports.txt");
    let mut api = String::new();
    for s in &opts.exports {
        let _ = writeln!(api, "{s}");
    }
    fs::write(&api_file, api).map_err(|e| format!("cannot write {}: {e}", api_file.display()))?;
    let optimized = temp.join("optimized.bc");
    let mut cmd = Command::new(&tools.opt);
    cmd.arg(&linked)
        .arg("-o")
        .arg(&optimized)
        .arg(format!("-mcpu={cpu}"))
        .arg(concat_os("--internalize-public-api-file=", &api_file))
        .arg(format!("--passes=internalize,globaldce,default<O{level}>"))
        // Debug info is not supported by the nvptx backend as rustc emits it.
        .arg("--strip-debug");
    exec(cmd)?;

    // 4. PTX.
    let llc_level = match level.as_str() {
        "s" | "z" => "2",
        l => l,
    };
    let mut cmd = Command::new(&tools.llc);
    cmd.arg(&optimized)
        .arg("-o")
        .arg(&output)
        .arg("-mtriple=nvptx64-nvidia-cuda")
        .arg(format!("-mcpu={cpu}"))
        .arg(format!("-O{llc_level}"));
    exec(cmd)?;

    // 5. Check it.
    let ptx = fs::read_to_string(&output).map_err(|e| format!("cannot read the PTX {}: {e}", output.display()))?;
    check_ptx(&ptx, &opts.exports)?;

    if !opts.keep_temps && std::env::var_os("PGOMEA_PTX_KEEP_TEMPS").is_none() {
        let _ = fs::remove_dir_all(&temp);
    }
    Ok(())
}

fn parse(args: Vec<OsString>) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.into_iter();
    let need =
        |it: &mut std::vec::IntoIter<OsString>, flag: &str| it.next().ok_or_else(|| format!("{flag} needs a value"));
    while let Some(arg) = it.next() {
        let Some(s) = arg.to_str() else {
            o.inputs.push(PathBuf::from(arg));
            continue;
        };
        if let Some((flag, value)) = s.split_once('=')
            && flag.starts_with("--")
        {
            set_valued(&mut o, flag, OsString::from(value))?;
            continue;
        }
        match s {
            "-o" | "-L" | "--target" | "--target-cpu" | "--export-symbol" | "--llvm-bin-dir" | "--linker-hash" => {
                let v = need(&mut it, s)?;
                set_valued(&mut o, s, v)?;
            }
            "--debug" => {} // Debug info is always stripped (see above).
            "--keep-temps" => o.keep_temps = true,
            "-O0" | "-O1" | "-O2" | "-O3" | "-Os" | "-Oz" => o.opt_level = Some(s[2..].to_owned()),
            _ if s.starts_with("-L") => o.search_dirs.push(PathBuf::from(&s[2..])),
            _ if s.starts_with('-') => return Err(format!("unknown option {s}")),
            _ => o.inputs.push(PathBuf::from(arg)),
        }
    }
    Ok(o)
}

fn set_valued(o: &mut Options, flag: &str, v: OsString) -> Result<(), String> {
    let text = || v.to_str().map(str::to_owned).ok_or_else(|| format!("{flag}: not UTF-8"));
    match flag {
        "-o" => o.output = Some(PathBuf::from(&v)),
        "-L" => o.search_dirs.push(PathBuf::from(&v)),
        "--target" => o.target = Some(text()?),
        "--target-cpu" => o.target_cpu = Some(text()?),
        "--export-symbol" => o.exports.push(text()?),
        "--llvm-bin-dir" => o.llvm_bin_dir = Some(PathBuf::from(&v)),
        // Only there so that a new linker changes the device crate's fingerprint.
        "--linker-hash" => {}
        _ => return Err(format!("unknown option {flag}")),
    }
    Ok(())
}

/// `@FILE` arguments: rustc writes one argument per line, with GNU-style backslash escapes.
fn expand_response_files(args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let mut out = Vec::new();
    for a in args {
        match a.to_str().and_then(|s| s.strip_prefix('@')) {
            Some(file) => {
                let text = fs::read_to_string(file).map_err(|e| format!("cannot read response file {file}: {e}"))?;
                for line in text.lines().filter(|l| !l.is_empty()) {
                    let mut arg = String::new();
                    let mut chars = line.chars();
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' => arg.extend(chars.next()),
                            c => arg.push(c),
                        }
                    }
                    out.push(OsString::from(arg));
                }
            }
            None => out.push(a),
        }
    }
    Ok(out)
}

struct Tools {
    llvm_link: PathBuf,
    opt: PathBuf,
    llc: PathBuf,
}

impl Tools {
    fn find(o: &Options) -> Result<Tools, String> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        dirs.extend(o.llvm_bin_dir.clone());
        dirs.extend(std::env::var_os("PGOMEA_LLVM_BIN_DIR").map(PathBuf::from));
        // rustc passes `-L <sysroot>/lib/rustlib/<target>/lib/self-contained`.
        for d in &o.search_dirs {
            let comps: Vec<_> = d.components().collect();
            if d.ends_with("lib/self-contained") && comps.len() >= 5 {
                let rustlib = d.ancestors().nth(3).unwrap_or(d);
                if rustlib.ends_with("lib/rustlib")
                    && let Ok(rd) = fs::read_dir(rustlib)
                {
                    let mut found: Vec<PathBuf> =
                        rd.flatten().map(|e| e.path().join("bin")).filter(|b| b.join("llvm-link").is_file()).collect();
                    found.sort();
                    dirs.extend(found);
                }
            }
        }
        let dir = dirs.into_iter().find(|d| d.join("llvm-link").is_file());
        let tool = |name: &str| -> Result<PathBuf, String> {
            if let Some(d) = &dir {
                let p = d.join(name);
                if p.is_file() {
                    return Ok(p);
                }
            }
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()).ok_or_else(|| {
                format!(
                    "cannot find the LLVM tool `{name}`; install the llvm-tools component of the \
                     kernel toolchain (rustup component add llvm-tools --toolchain \
                     nightly-2026-05-20) or pass --llvm-bin-dir"
                )
            })
        };
        Ok(Tools { llvm_link: tool("llvm-link")?, opt: tool("opt")?, llc: tool("llc")? })
    }
}

fn concat_os(prefix: &str, p: &Path) -> OsString {
    let mut s = OsString::from(prefix);
    s.push(p.as_os_str());
    s
}

fn exec(mut cmd: Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd.status().map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{shown} failed: {status}")) }
}

fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

/// Adds `input` (a bitcode file, or an ar archive such as an rlib) to `out`, writing archive
/// members to `temp`.
fn collect_bitcode(input: &Path, index: usize, temp: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let data = fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    if is_bitcode(&data) {
        out.push(input.to_owned());
        return Ok(());
    }
    if !data.starts_with(b"!<arch>\n") {
        return Err(format!("{} is neither LLVM bitcode nor an ar archive", input.display()));
    }
    let mut pos = 8;
    let mut member = 0;
    let mut found = 0;
    while pos + 60 <= data.len() {
        let header = &data[pos..pos + 60];
        let field = |r: std::ops::Range<usize>| std::str::from_utf8(&header[r]).map(str::trim).unwrap_or("");
        let name = field(0..16);
        let size: usize =
            field(48..58).parse().map_err(|_| format!("{}: bad archive member header", input.display()))?;
        let mut start = pos + 60;
        let end = start + size;
        if end > data.len() {
            return Err(format!("{}: truncated archive", input.display()));
        }
        // BSD long names: "#1/LEN", the name leads the data.
        if let Some(len) = name.strip_prefix("#1/").and_then(|l| l.parse::<usize>().ok()) {
            start += len.min(size);
        }
        let body = &data[start..end];
        if is_bitcode(body) {
            let p = temp.join(format!("input{index}-member{member}.bc"));
            fs::write(&p, body).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            out.push(p);
            found += 1;
        }
        member += 1;
        pos = end + (end & 1);
    }
    if found == 0 {
        return Err(format!("{}: archive without bitcode members", input.display()));
    }
    Ok(())
}

fn check_ptx(ptx: &str, exports: &[String]) -> Result<(), String> {
    let mut problems = Vec::new();
    for line in ptx.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix(".extern") else {
            continue;
        };
        let rest = rest.trim_start();
        if rest.starts_with(".shared") {
            continue; // dynamic shared memory
        }
        let name = symbol_name(rest);
        if !DRIVER_PROVIDED.contains(&name.as_str()) {
            problems.push(format!("unresolved external `{name}` ({line})"));
        }
    }
    for s in exports {
        let entry = ptx.lines().any(|l| {
            let l = l.trim_start();
            (l.starts_with(".entry ") || l.starts_with(".visible .entry "))
                && symbol_name(l.trim_start_matches(".visible ")) == *s
        });
        if !entry {
            problems.push(format!(
                "exported symbol `{s}` is not a kernel entry in the PTX (export only \
                 `extern \"ptx-kernel\"` functions)"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the PTX is not complete:\n  {}\n(a function core or compiler_builtins does not provide \
             on nvptx64, e.g. exp/log/sin/pow: use the *.approx PTX forms instead)",
            problems.join("\n  ")
        ))
    }
}

/// The symbol of a PTX declaration such as `.func (.param .b32 r) name(`, `.entry name(` or
/// `.global .align 8 .b8 name[16]`: the first identifier that is not a directive, a number or
/// inside the return-value parentheses.
fn symbol_name(decl: &str) -> String {
    let mut s = decl;
    loop {
        s = s.trim_start();
        if s.starts_with('.') || s.starts_with(|c: char| c.is_ascii_digit()) {
            s = s.split_once(char::is_whitespace).map_or("", |(_, r)| r);
        } else if s.starts_with('(') {
            s = s.split_once(')').map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    s.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '%')).collect()
}
