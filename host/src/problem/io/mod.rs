//! Reading instances: a file's text ([`text`]) and its lines parsed on every core (`lines`),
//! each format's reader beside its problem (the G-set's in `graph`, `.nk` in `tables`, DIMACS
//! in `maxsat`, `.qubo` and `.ising` in `ising`) or here (the MK-landscape files, [`mk`]), the one
//! entry that reads any format ([`load`]), the data directory of shipped instances ([`data`]),
//! and the memory checks of sizes a header announces, made before anything of that size is
//! allocated (`memory`).

pub mod data;
pub(crate) mod lines;
pub mod load;
pub(crate) mod memory;
pub mod mk;
pub mod text;
