//! The pgomea binary: the command line of the `pgomea` library (the library carries the kernels).

fn main() -> std::process::ExitCode {
    pgomea_cli::cli::main()
}
