//! Structural probes of an instance, which the run's defaults read: whether its tables deceive
//! single flips ([`deception`]), whether it is a two-dimensional spin glass ([`lattice`]).

pub mod deception;
pub mod lattice;
