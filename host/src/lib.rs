//! pgomea: Gene-pool Optimal Mixing (GOMEA) for gray-box problems, serial on the CPU and parallel
//! by colour groups of independent linkage sets on a multi-core CPU or an NVIDIA GPU, after
//! Bouter and Bosman, "GPU-Accelerated Parallel Gene-pool Optimal Mixing in a Gray-Box
//! Optimization Setting", GECCO 2022.
//!
//! The crate root is the face: [`solve()`], [`RunOptions`] (with [`RUN_OPTIONS`], the table
//! that says what each option means) and [`RunConfig`], the problems' constructors ([`MaxCut`],
//! [`MaxSat`], [`TableProblem`], [`IsingProblem`]) and loader ([`read_instance`]), [`Outcome`],
//! [`StopReason`], [`Observer`], [`Hooks`] and [`Error`]. Start with [`solve()`]: a problem
//! (built in code, e.g. [`TableProblem::new`], [`MaxCut::new`], [`MaxSat::from_literals`],
//! [`IsingProblem::spin`]; read from a file, [`read_instance`]; or generated,
//! [`problem::generate`]) and a [`RunConfig`] resolved from [`RunOptions`], to an [`Outcome`].
//! `cargo run --release -p pgomea --example tables` solves a problem of tables with every
//! algorithm and backend.
//!
//! The modules below the face are its layers, for advanced use (a new problem kind, a backend,
//! the stages one by one), each using only those listed before it (ARCHITECTURE.md, checked by
//! tests/layers.rs): [`stop`] (why a run ends, and the check of its clock and stop flag),
//! [`error`] and [`choice`], [`problem`] (the gray-box interface, the problem kinds, instance
//! formats, generators), [`linkage`] (linkage models, their interaction graph, colouring),
//! [`gomea`] (populations, the multi-start scheme, serial GOMEA, the parallel generation loop),
//! [`backend`] (where parallel GOM runs: CPU cores or a CUDA GPU), [`solve`](mod@solve) (a
//! configuration to an outcome: the front door) and [`testing`] (the GPU-against-CPU comparison
//! and the throughput measurement, for the self-test, the benchmarks and the tests). What only
//! the library itself uses is `pub(crate)`; everything public is documented.
//!
//! The command line (with `pgomea selftest` and `pgomea bench`) and the paper's experiments are
//! another crate (`pgomea-cli`), and the Python package a third: the library knows no command
//! line, prints nothing and never ends the process; a caller hears of a run through an
//! [`Observer`] and gets errors as values. Its messages name options by their library names
//! (`time_limit`, [`Error::Option`]); each face spells them its own way.

#![deny(missing_docs)]

pub mod backend;
pub mod choice;
pub mod error;
pub mod gomea;
pub mod linkage;
pub mod problem;
pub mod solve;
pub mod stop;
pub mod testing;

pub use error::{Error, Result};
pub use gomea::run::Observer;
pub use problem::GrayBoxProblem;
pub use problem::ising::IsingProblem;
pub use problem::load::{ProblemFormat, read as read_instance};
pub use problem::maxcut::MaxCut;
pub use problem::maxsat::MaxSat;
pub use problem::tables::TableProblem;
pub use solve::options::RUN_OPTIONS;
pub use solve::{Algorithm, Backend, Hooks, Outcome, RunConfig, RunOptions, Target, solve};
pub use stop::StopReason;
