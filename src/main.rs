fn main() -> std::process::ExitCode { pgomea::cli::main(None) }
