//! The problems, each a [`crate::problem::GrayBoxProblem`] over one of the device crate's kinds:
//! weighted Max-Cut ([`maxcut`], the pairwise kind, over a [`graph`]), problems given by tables
//! ([`tables`]), weighted partial MAX-SAT ([`maxsat`], the clauses kind), and Ising models and
//! QUBOs reduced exactly to Max-Cut ([`ising`], real biases on an integer grid by [`scale`]).

pub mod graph;
pub mod ising;
pub mod maxcut;
pub mod maxsat;
pub mod scale;
pub mod tables;
