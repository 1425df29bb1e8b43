//! The application layer: the command line ([`cli`]), the shared instance options ([`args`]),
//! the benchmarks ([`bench`]), the GPU self-test ([`selftest`]) and the paper's experiments
//! ([`experiment`]). The only layer that knows clap, plotters and result files.

pub mod args;
pub mod bench;
pub mod cli;
pub mod experiment;
pub mod options;
pub mod selftest;
pub mod signal;
