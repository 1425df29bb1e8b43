//! The pgomea binary: embeds the kernels' PTX (built from `device/` by build.rs) and runs the CLI
//! of the host library.

/// The PTX of every kernel, compiled from Rust by the build script.
const KERNELS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

fn main() -> std::process::ExitCode {
    pgomea::app::cli::main(Some(KERNELS_PTX))
}
