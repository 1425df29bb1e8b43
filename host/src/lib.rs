//! pgomea: Gene-pool Optimal Mixing (GOMEA) for gray-box problems, serial on the CPU and parallel
//! by colour groups of independent linkage sets on a multi-core CPU or an NVIDIA GPU, after
//! Bouter and Bosman, "GPU-Accelerated Parallel Gene-pool Optimal Mixing in a Gray-Box
//! Optimization Setting", GECCO 2022.
//!
//! The modules are one-way layers, each using only those listed before it (ARCHITECTURE.md,
//! checked by tests/layers.rs): [`stop`] (why a run ends, and the check of its clock and stop
//! flag), [`error`] and [`choice`], [`problem`] (the gray-box interface, the problem kinds,
//! instance formats, generators), [`linkage`] (linkage models, their interaction graph,
//! colouring), [`gomea`] (populations, the multi-start scheme, serial GOMEA, the parallel
//! generation loop), [`backend`] (where parallel GOM runs: CPU cores or a CUDA GPU) and
//! [`solve`](mod@solve) (a configuration to an outcome: the library's front door). The command
//! line, the benchmarks, the self-test and the experiments are another crate (`pgomea-cli`), and
//! the Python package a third: the library knows no command line, prints nothing and never ends
//! the process; a caller hears of a run through a [`gomea::run::Observer`] and gets errors as
//! values.
//!
//! Start with [`solve()`]: a problem (built in code, e.g. [`problem::tables::TableProblem::new`],
//! [`problem::maxcut::MaxCut::new`], [`problem::maxsat::MaxSat::from_literals`],
//! [`problem::ising::IsingProblem::spin`]; read from a file, [`problem::load::read`]; or
//! generated, [`problem::generate`]) and a [`RunConfig`] resolved from [`RunOptions`], to an
//! [`Outcome`]. `cargo run --release -p pgomea --example tables` solves a problem of tables with
//! every algorithm and backend.

pub mod backend;
pub mod choice;
pub mod error;
pub mod gomea;
pub mod linkage;
pub mod problem;
pub mod solve;
pub mod stop;

pub use error::{Error, Result};
pub use solve::{Hooks, Outcome, RunConfig, RunOptions, solve};
