//! Linkage: the families of subsets (FOS) GOM mixes over, the interaction graph of their sets
//! (LMIG), and its colouring into groups of sets that can be mixed at the same time.

pub mod coloring;
pub mod conflicts;
pub mod fos;
#[cfg(test)]
pub(crate) mod testing;
