//! The arguments of every step: the stages and their passes, the layout of the colour groups,
//! local search's colouring and annealing ([`SearchArgs`], [`Anneal`]), [`GomArgs`] (the argument
//! block of every kernel and of the CPU backend's steps) and the group at one position of a
//! generation's order.

use super::buffers::Buffers;
use crate::mem::Ptr;
use crate::problem::Csr;
use crate::rng::{Counter, streams};

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
    /// The variables of slot s: row s.
    pub vars: Csr,
    /// The dependent subfunctions of slot s: row s (each listed once); a group's are contiguous.
    pub deps: Csr,
}
// ANCHOR_END: layout

impl Layout {
    /// The number of arrays of a layout.
    pub const ARRAYS: usize = 7;

    /// The layout of the arrays `p`, in the order of the fields (the host's
    /// `GroupLayout::arrays` gives them in that order).
    pub const fn from_arrays(p: [Ptr<u32>; Layout::ARRAYS]) -> Layout {
        let [group_slots, group_crews, slot_set, var_offsets, vars, dep_offsets, dep_subfunctions] = p;
        Layout {
            group_slots,
            group_crews,
            slot_set,
            vars: Csr { offsets: var_offsets, entries: vars },
            deps: Csr { offsets: dep_offsets, entries: dep_subfunctions },
        }
    }
}

/// Forced Improvement's marks: not in FI, in FI, improved in the current group (leaves FI).
pub const FI_OFF: u8 = 0;
pub const FI_ACTIVE: u8 = 1;
pub const FI_IMPROVED: u8 = 2;

/// The donor of Forced Improvement: the elitist, held in `Buffers::reference`.
pub const ELITIST_DONOR: i32 = -2;

/// The variables in colour groups, and the subfunctions of each variable in the colours' order,
/// sliced for reads side by side: what local search reads besides the problem (read only), and
/// the annealing of the current call.
///
/// A variable's *position* is its place in `color_vars`. The entries of position p (one per
/// subfunction of its variable, `degrees[p]` of them) lie in slices of `2^shift` positions:
/// entry j at `slices[p >> shift] + (j << shift) + p % 2^shift`, each slice as wide as its
/// largest degree. With a shift of [`WARP_SHIFT`] (the GPU's) the 32 lanes of a warp flipping
/// positions side by side read their j-th entries from consecutive addresses; with 0 (the
/// host's) a position's entries are consecutive. An entry is its subfunction, or for a kind with
/// [`Kind::PARTNERS`](crate::problem::Kind::PARTNERS) the subfunction's other variable, with its weight in `weights` at the same
/// index.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchArgs {
    /// Number of colours; colour c holds `color_vars[color_offsets[c]..color_offsets[c+1]]`.
    pub colors: u32,
    /// log2 of the positions per slice.
    pub shift: u32,
    pub color_offsets: Ptr<u32>,
    pub color_vars: Ptr<u32>,
    /// Per position, its variable's number of subfunctions.
    pub degrees: Ptr<u32>,
    /// Per slice, where its entries begin.
    pub slices: Ptr<u64>,
    pub entries: Ptr<u32>,
    /// For a kind with partners, each entry's weight (else not read).
    pub weights: Ptr<i64>,
    /// Annealing sweeps before the greedy descent (none: `anneal.sweeps == 0`).
    pub anneal: Anneal,
    /// The GPU's rows of kept gains, l values for each block of the search by solution (null:
    /// the gains are recomputed; see `search::keep_gain`).
    pub gains: Ptr<i64>,
}

/// The GPU's slices: a warp's 32 positions.
pub const WARP_SHIFT: u32 = 5;

/// Where entry j of position p lies in slices of `2^shift` positions, from where p's slice
/// begins (`slices[p >> shift]`; 0 for the index within the slice).
#[inline(always)]
pub const fn entry_index(slice_start: usize, shift: u32, p: usize, j: usize) -> usize {
    slice_start + (j << shift) + (p & ((1 << shift) - 1))
}

impl SearchArgs {
    /// The position of the `k`-th variable of colour `c`.
    ///
    /// # Safety
    ///
    /// `c < colors`, the colour arrays live.
    #[inline(always)]
    pub(super) unsafe fn position(&self, c: usize, k: usize) -> usize {
        // SAFETY: the function's precondition.
        unsafe { self.color_offsets.read(c) as usize + k }
    }

    /// Calls `f` with every position and its variable, colour after colour, asking `go_on`
    /// every [`ASK_EVERY`] variables; returns false (at once) when it says no.
    ///
    /// # Safety
    ///
    /// The colour arrays are live and hold `colors + 1` offsets.
    #[inline(always)]
    pub(super) unsafe fn each_variable(&self, go_on: &impl Fn() -> bool, mut f: impl FnMut(usize, u32)) -> bool {
        let mut since = 0;
        // SAFETY: the function's precondition.
        unsafe {
            for c in 0..self.colors as usize {
                for p in self.color_offsets.read(c) as usize..self.color_offsets.read(c + 1) as usize {
                    f(p, self.color_vars.read(p));
                    since += 1;
                    if since == ASK_EVERY {
                        since = 0;
                        if !go_on() {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
}

/// How many flips a host's search of one genotype tries between two questions whether to go on
/// (a sweep of 10^7 variables takes seconds on a CPU core; a question reads the clock).
pub const ASK_EVERY: u32 = 4096;

/// The temperature levels of an annealing schedule, hottest first: a search of any number of
/// sweeps walks through them (sweep k of `sweeps` is at level `k * LEVELS / sweeps`).
pub const ANNEAL_LEVELS: usize = 256;

/// An annealed local search: `sweeps` Metropolis sweeps over the colours, then the greedy
/// descent. This call runs sweeps `from..to` and then at most `descent_rounds` rounds of the
/// descent (the host splits a long search into short calls, watching its clock between them; a
/// solution's descent goes on over calls while it is marked active). In sweep k a flip that
/// changes the fitness by `gain` is taken when `gain >= 0`, and when `gain < 0` with probability
/// 2^(-(|gain| >> gain_shift) * scale / 2^32), i.e. exp(gain / T), for the level's `scale` =
/// 2^(32 + gain_shift) log2(e) / T (the shift keeps the scales' precision where fitness values
/// are large, as on a fine grid of real values).
/// The power of two is computed in integers (`table[f]` = 2^32 * 2^(-f/256) for the fraction's
/// top 8 bits), so that every target takes the same decisions; the random numbers are counters
/// of (seed, stream, sweep, solution, variable).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Anneal {
    pub sweeps: u32,
    pub from: u32,
    pub to: u32,
    /// The rounds of the greedy descent after the sweeps, at most (0: none).
    pub descent_rounds: u32,
    /// Which search this is (the host numbers them), so that every search draws its own numbers.
    pub stream: u32,
    /// The low bits of a gain that the scales leave out (see above).
    pub gain_shift: u32,
    pub seed: u64,
    /// The [`ANNEAL_LEVELS`] scales, and the 256 entries of the table.
    pub scales: Ptr<u64>,
    pub table: Ptr<u64>,
}

impl Anneal {
    /// Whether a flip of `gain` is taken in sweep `k` by solution `i` at variable `v`.
    ///
    /// # Safety
    ///
    /// `k < sweeps`, and `scales` and `table` hold their entries.
    #[inline(always)]
    pub unsafe fn accepts(&self, gain: i64, k: u32, i: u32, v: u32) -> bool {
        if gain >= 0 {
            return true;
        }
        let level = (k as u64 * ANNEAL_LEVELS as u64 / self.sweeps as u64) as usize;
        // SAFETY: k < sweeps, so the level is below ANNEAL_LEVELS (the function's precondition).
        let scale = unsafe { self.scales.read(level) };
        let Some(y) = (gain.unsigned_abs() >> self.gain_shift).checked_mul(scale) else { return false };
        let whole = y >> 32;
        if whole >= 32 {
            return false;
        }
        // SAFETY: the index is 8 bits, below the table's 256 entries.
        let threshold = unsafe { self.table.read(((y >> 24) & 0xff) as usize) } >> whole;
        let attempt = streams::ANNEAL_FLIP;
        let c = Counter { seed: self.seed, generation: self.stream, group: k, solution: i, set: v, attempt };
        (c.bits() >> 32) < threshold
    }
}

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
            let d0 = a.layout.deps.offsets.read(s0) as usize;
            let d1 = a.layout.deps.offsets.read(s1) as usize;
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
