//! The six stages of parallel GOM (Algorithm 4 of the paper), written once for both targets.
//!
//! A colour group's linkage sets are renumbered into *slots* (the host's `GroupLayout`); each
//! stage works on every (solution, slot) pair of the group, or on every (solution, dependent
//! subfunction) element:
//!
//! | stage | per | what |
//! |---|---|---|
//! | 1 [`Stage::DonorSelection`] | pair | the first candidate (counter-drawn order) whose genes differ from O[i] on the set, or none |
//! | 2 [`Stage::DonorInsertion`] | pair | the donor's genes on the set into the working copy O'[i] |
//! | 3 [`Stage::SubfunctionEvaluation`] | element (GOM: pair) | f_s(O'[i]) - f_s(O[i]) of every dependent subfunction s |
//! | 4 [`Stage::ReduceByKey`] | pair | the sum of the slot's segment of those differences: the pair's delta |
//! | 5 [`Stage::ImprovementMask`] | pair | the acceptance rule on the delta |
//! | 6 [`Stage::ResetInsert`] | pair | accepted: O'[i] -> O[i] on the set, delta into the fitness; rejected: O[i] -> O'[i] |
//!
//! A [`Pass`] is a set of stages that one sweep over the group does together. GOM runs a group in
//! one pass ([`ONE_PASS`]: each pair's crew selects and inserts its donor, evaluates the set's own
//! segment of dependent subfunctions, sums it, applies the rule and resets or inserts; exact
//! because the sets of one colour share no subfunction, so no pair's segment reads a gene another
//! pair of the group writes) or in three ([`THREE_PASSES`]: stages 1+2, stage 3 alone with a
//! thread per subfunction, 4+5+6), as the backend finds faster; Forced Improvement always in
//! three, because its stage 1 reads the marks that stage 6 writes, for the next group only. The cooperative
//! whole-generation kernel runs a group's passes over every solution with a grid barrier after
//! each (GOM in one pass: each solution on a team of blocks with a barrier of its own); the kernel
//! with a block per solution, and the CPU backend's task per solution, run every
//! group of one solution in order (the solutions of a generation are independent), with a block
//! barrier or nothing between passes. Any single stage is a pass too (the per-stage kernels, used
//! by tests and per-stage timing).
//!
//! Each step below is generic over the problem kind `K` and the crew `C` ([`crate::crew`]): the
//! kernels call it with a lane, a warp or a block per pair, the CPU backend with a lane from a
//! rayon task per solution ([`for_solution`]). The results are the same bit for bit.
//!
//! Two further procedures of hybrid parallel GOMEA (the paper's future work) reuse them:
//!
//! - **Parallel Forced Improvement** (`FORCED = true`): the same stages for the solutions marked
//!   in `forced`, with the elitist (`reference`) as the donor of every set, accepting strict
//!   improvements only; a solution that improved in a group leaves FI (its mark turns from
//!   [`FI_ACTIVE`] to [`FI_IMPROVED`], read by the next group's stage 1), and those never improved
//!   become copies of the elitist at the end ([`replace_unimproved`]).
//! - **Colour-grouped local search** ([`search`]: [`try_flip`], [`search_genotype`]): the
//!   variables are coloured so that two of one colour share no subfunction; every improving
//!   single-variable flip of one colour is then exact together, so the GPU flips them all at
//!   once, colour after colour, round after round, until a round flips nothing; the host runs the
//!   same flips one solution at a time, which gives the same local optimum.
//!
//! The module's parts: [`args`] (the stages and passes, the layout, local search's arguments,
//! [`GomArgs`], [`Group`]), [`buffers`] (the population's buffers, declared once), [`mixing`] (the
//! steps of GOM and Forced Improvement) and [`search`] (the steps of local search).

pub mod args;
pub mod buffers;
pub mod mixing;
pub mod search;

pub use args::{
    ANNEAL_LEVELS, ASK_EVERY, Anneal, ELITIST_DONOR, FI_ACTIVE, FI_IMPROVED, FI_OFF, GomArgs, Group, Layout, ONE_PASS,
    Pass, SearchArgs, Stage, THREE_PASSES, WARP_SHIFT, entry_index, group_passes,
};
pub use buffers::{
    BUFFER, BUFFERS, Buf, BufferIds, BufferSizes, BufferSpec, Buffers, Length, Values, population_bytes,
};
pub use mixing::{
    element_step, for_solution, mark_converged, mark_converged_gene, mark_elitist, pair_step, replace_unimproved,
};
pub use search::{
    KEEP_GAINS_FROM, anneal_flip, flip_gain, keep_gain, keeps_gains, kept_takes, kept_together, parallel_anneal_flip,
    parallel_kept_flip, parallel_try_flip, search_genotype, search_round_end, search_solution, try_flip,
    update_partners,
};
