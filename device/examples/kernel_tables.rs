//! Writes the device crate's kernel tables beside the PTX that scripts/ptx builds: `kernels.list`
//! (every exported kernel, one name per line) and `kernels.budgets` ("name registers" for each
//! kernel with a register budget on sm_90), which the CUDA backend's tests and `.ci/check-ptx`
//! hold the shipped PTX against.
//!
//!     cargo run --example kernel_tables -- OUT_DIR

use pgomea_device::kernel_names::{KERNELS, register_budget};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("usage: kernel_tables OUT_DIR");
        return ExitCode::FAILURE;
    };
    let dir = PathBuf::from(dir);
    let list: String = KERNELS.iter().map(|k| format!("{k}\n")).collect();
    let budgets: String = KERNELS.iter().filter_map(|k| register_budget(k).map(|b| format!("{k} {b}\n"))).collect();
    for (name, text) in [("kernels.list", list), ("kernels.budgets", budgets)] {
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("kernel_tables: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
