//! The pgomea command line and its tools, on the `pgomea` library: the command line ([`cli`]), the
//! shared instance options ([`args`]), what a run shows while it runs ([`console`]), the
//! benchmarks ([`bench`](mod@bench)), the GPU self-test ([`selftest`]) and the paper's experiments
//! ([`experiment`]), with their result files and figures. The only crate that knows clap, plotters
//! and fonts; the library below it knows nothing of a command line (Cargo keeps it so: it does not
//! depend on them).

pub mod args;
pub mod bench;
pub mod cli;
pub mod console;
pub mod experiment;
pub mod selftest;
pub mod signal;
