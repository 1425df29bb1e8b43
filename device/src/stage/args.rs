//! The arguments of every step: the stages and their passes, the layout of the colour groups,
//! [`GomArgs`] (the argument block of every kernel and of the CPU backend's steps) and the group
//! at one position of a generation's order.

use super::buffers::Buffers;
use super::search::SearchArgs;
use crate::mem::Ptr;

/// A stage of parallel GOM.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    DonorSelection = 0,
    DonorInsertion = 1,
    SubfunctionEvaluation = 2,
    ReduceByKey = 3,
    ImprovementMask = 4,
    ResetInsert = 5,
}

impl Stage {
    pub const ALL: [Stage; 6] = [
        Stage::DonorSelection,
        Stage::DonorInsertion,
        Stage::SubfunctionEvaluation,
        Stage::ReduceByKey,
        Stage::ImprovementMask,
        Stage::ResetInsert,
    ];

    /// The stage's name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Stage::DonorSelection => "donor-selection",
            Stage::DonorInsertion => "donor-insertion",
            Stage::SubfunctionEvaluation => "subfunction-evaluation",
            Stage::ReduceByKey => "reduce-by-key",
            Stage::ImprovementMask => "improvement-mask",
            Stage::ResetInsert => "reset-insert",
        }
    }

    /// Position in [`Stage::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A set of stages done in one sweep over a group (see the module documentation). Passed to the
/// pass kernels by value (a `u32` bit set).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pass(u32);

impl Pass {
    /// The stages `stages` in one sweep: either stages of pairs (1, 2, 4, 5, 6, in stage order,
    /// and 3 together with 4: the pair's crew evaluates its own segment and sums it at once), or
    /// one element stage (3, or 5 alone).
    pub const fn of(stages: &[Stage]) -> Pass {
        let mut bits = 0;
        let mut k = 0;
        while k < stages.len() {
            bits |= 1 << stages[k] as u32;
            k += 1;
        }
        Pass(bits)
    }

    pub const fn stage(stage: Stage) -> Pass {
        Pass(1 << stage as u32)
    }

    #[inline(always)]
    pub const fn has(self, stage: Stage) -> bool {
        self.0 & (1 << stage as u32) != 0
    }

    /// Whether the pass gives a thread to each element rather than a crew to each pair: stage 3,
    /// or stage 5 alone.
    #[inline(always)]
    pub const fn per_element(self) -> bool {
        self.per_subfunction() || self.0 == Pass::stage(Stage::ImprovementMask).0
    }

    /// Whether the pass gives a thread to each dependent subfunction (stage 3 alone): its items
    /// are a group's subfunctions, every other pass's its slots.
    #[inline(always)]
    pub const fn per_subfunction(self) -> bool {
        self.0 == Pass::stage(Stage::SubfunctionEvaluation).0
    }

    /// Whether the stages can be done in one sweep (see [`Pass::of`]).
    pub const fn is_valid(self) -> bool {
        self.0 != 0
            && self.0 < 1 << 6
            && (self.per_element() || !self.has(Stage::SubfunctionEvaluation) || self.has(Stage::ReduceByKey))
    }
}

// ANCHOR: passes
/// A colour group of GOM in one pass: each pair's crew selects its donor, inserts its genes,
/// evaluates the set's own segment of dependent subfunctions, applies the rule and resets or
/// inserts. Exact because the sets of one colour share no subfunction: a pair's segment reads no
/// gene that another pair of the group writes. One barrier per group, but a pair's subfunctions
/// are evaluated by its crew alone: best where a group has many pairs.
pub const ONE_PASS: [Pass; 1] = [Pass::of(&Stage::ALL)];

/// A colour group in three passes, stage 3 with a thread per subfunction in the middle: best
/// where a group has few pairs with many subfunctions. Forced Improvement always runs this way: a
/// solution leaves FI when one of its pairs improves (stage 6), and stage 1 reads that mark, for
/// the next group; every stage 1 of a group must come before any of its stage 6.
pub const THREE_PASSES: [Pass; 3] = [
    Pass::of(&[Stage::DonorSelection, Stage::DonorInsertion]),
    Pass::stage(Stage::SubfunctionEvaluation),
    Pass::of(&[Stage::ReduceByKey, Stage::ImprovementMask, Stage::ResetInsert]),
];
// ANCHOR_END: passes

/// The passes of one colour group: of Forced Improvement where `forced`, else of GOM in one pass
/// where `one_pass` (the same results either way; the backend chooses what runs faster).
#[inline(always)]
pub const fn group_passes(forced: bool, one_pass: bool) -> &'static [Pass] {
    if one_pass && !forced { &ONE_PASS } else { &THREE_PASSES }
}

// ANCHOR: layout
/// The colour groups in the flat form of the host's `GroupLayout` (read only).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Layout {
    /// groups + 1: the slots of group g are `group_slots[g]..group_slots[g+1]`.
    pub group_slots: Ptr<u32>,
    /// 2 per group: counted from the group's first slot, its slots up to `group_crews[2g]` are
    /// worked on by one lane each, up to `group_crews[2g+1]` by one warp each, the rest by one
    /// block each ([`crate::gom::crew_kind`]).
    pub group_crews: Ptr<u32>,
    /// The FOS index of each slot (the `set` coordinate of its random numbers).
    pub slot_set: Ptr<u32>,
    /// The variables of slot s: `vars[var_offsets[s]..var_offsets[s+1]]`.
    pub var_offsets: Ptr<u32>,
    pub vars: Ptr<u32>,
    /// The dependent subfunctions of slot s: `dep_subfunctions[dep_offsets[s]..dep_offsets[s+1]]`
    /// (each listed once); a group's are contiguous.
    pub dep_offsets: Ptr<u32>,
    pub dep_subfunctions: Ptr<u32>,
}
// ANCHOR_END: layout

impl Layout {
    /// The number of arrays of a layout.
    pub const ARRAYS: usize = 7;

    /// The layout of the arrays `p`, in the order of the fields (the host's
    /// `GroupLayout::arrays` gives them in that order).
    pub const fn from_arrays(p: [Ptr<u32>; Layout::ARRAYS]) -> Layout {
        let [group_slots, group_crews, slot_set, var_offsets, vars, dep_offsets, dep_subfunctions] = p;
        Layout { group_slots, group_crews, slot_set, var_offsets, vars, dep_offsets, dep_subfunctions }
    }
}

/// Forced Improvement's marks: not in FI, in FI, improved in the current group (leaves FI).
pub const FI_OFF: u8 = 0;
pub const FI_ACTIVE: u8 = 1;
pub const FI_IMPROVED: u8 = 2;

/// The donor of Forced Improvement: the elitist, held in `Buffers::reference`.
pub const ELITIST_DONOR: i32 = -2;

/// Everything the stages need for one population: the argument of every kernel, and what the
/// CPU backend hands to [`super::for_solution`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct GomArgs<K> {
    /// The run's seed (the first coordinate of every random counter).
    pub seed: u64,
    /// Population size and number of variables.
    pub n: u32,
    pub l: u32,
    /// The position in the generation's group order of the group a pass kernel works on.
    pub step: u32,
    /// Row strides: the most slots, and the most dependent subfunctions, of any group.
    pub row_slots: u32,
    pub row_deps: u32,
    /// Number of colour groups (the whole-generation kernel runs every position of the order).
    pub groups: u32,
    pub layout: Layout,
    /// The population's buffers, the schedule and the barrier counters among them.
    pub buffers: Buffers,
    /// The problem's arrays.
    pub problem: K,
    /// The colouring of the variables and the annealing of local search.
    pub search: SearchArgs,
}

/// The group at one position of the generation's order, resolved from the layout.
#[derive(Clone, Copy, Debug)]
pub struct Group {
    pub generation: u32,
    pub group: u32,
    pub slot_begin: usize,
    pub slots: usize,
    /// Slots from the group's first: up to `alone` for one lane each, up to `warped` for one
    /// warp each, the rest for one block each.
    pub alone: usize,
    pub warped: usize,
    pub dep_begin: usize,
    pub deps: usize,
}

impl Group {
    /// The group at position `step` of the schedule.
    ///
    /// # Safety
    ///
    /// `a` points to a live, consistent layout and schedule, and `step < a.groups`.
    #[inline(always)]
    pub unsafe fn at<K>(a: &GomArgs<K>, step: u32) -> Group {
        // SAFETY: the schedule holds 1 + groups entries, the layout arrays their documented
        // lengths (the caller's precondition).
        unsafe {
            let generation = a.buffers.schedule.read(0);
            let group = a.buffers.schedule.read(1 + step as usize);
            let s0 = a.layout.group_slots.read(group as usize) as usize;
            let s1 = a.layout.group_slots.read(group as usize + 1) as usize;
            let d0 = a.layout.dep_offsets.read(s0) as usize;
            let d1 = a.layout.dep_offsets.read(s1) as usize;
            let alone = a.layout.group_crews.read(2 * group as usize) as usize;
            let warped = a.layout.group_crews.read(2 * group as usize + 1) as usize;
            Group { generation, group, slot_begin: s0, slots: s1 - s0, alone, warped, dep_begin: d0, deps: d1 - d0 }
        }
    }

    /// How many items each solution has in `pass`: elements of a per-element pass, else pairs.
    #[inline(always)]
    pub fn items(&self, pass: Pass) -> usize {
        if pass.per_subfunction() { self.deps } else { self.slots }
    }
}

/// Row `i` of a matrix of `width` columns.
///
/// # Safety
///
/// The matrix has more than `i` rows.
#[inline(always)]
pub(crate) unsafe fn row<T>(base: Ptr<T>, i: usize, width: usize) -> Ptr<T> {
    // SAFETY: i < the rows (the function's precondition).
    unsafe { base.offset(i * width) }
}
