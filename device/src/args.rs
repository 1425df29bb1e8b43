//! The one argument block every parallel-GOM kernel takes, by value. Device pointers travel as
//! u64 so that the host can fill the struct without knowing device pointer types; `#[repr(C)]`
//! fixes the layout on both sides.

/// Everything a stage kernel needs for one colour group of one population.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GomArgs {
    /// The run's seed (the first coordinate of every random counter).
    pub seed: u64,
    /// Population size and number of variables.
    pub n: u32,
    pub l: u32,
    /// This launch's position in the generation's group order: the group is
    /// `schedule[1 + step]`, the generation `schedule[0]`. Reading both from device memory lets a
    /// captured CUDA graph of a whole generation be replayed with a new order.
    pub step: u32,
    /// Row strides of the per-solution matrices: donors/delta/mask rows hold `row_slots`
    /// elements, diff rows `row_deps`.
    pub row_slots: u32,
    pub row_deps: u32,
    /// Number of colour groups: the whole-generation kernel runs schedule[1..=groups].
    pub groups: u32,
    /// u32: [generation, group order...].
    pub schedule: u64,
    /// u32, groups + 1: the slots of group g are group_slots[g]..group_slots[g+1].
    pub group_slots: u64,
    /// u32, 2 per group: group g's slots from its first are worked on by one lane each up to
    /// group_crews[2g], by one warp each up to group_crews[2g+1], by one block each after
    /// (counts from the group's first slot).
    pub group_crews: u64,
    // Layout (read only): see the host's `GroupLayout`.
    pub slot_set: u64,
    pub var_offsets: u64,
    pub vars: u64,
    pub dep_offsets: u64,
    pub dep_edges: u64,
    /// Edge ends (2 per edge) and weights (i64).
    pub ends: u64,
    pub weights: u64,
    // Population state.
    /// P (u8, n*l): the donors.
    pub parents: u64,
    /// O (u8, n*l) and O' (u8, n*l).
    pub offspring: u64,
    pub work: u64,
    /// Fitness of O (i64, n).
    pub fitness: u64,
    pub donors: u64,
    pub diff: u64,
    pub delta: u64,
    pub mask: u64,
    /// 1 where P[i] equals the elitist (u8, n).
    pub is_elitist: u64,
    /// A reference genotype (u8, l) for the comparison kernel.
    pub reference: u64,
    /// u32, zeroed before each launch of the whole-generation kernel: its grid barrier's counter.
    pub barrier: u64,
}
