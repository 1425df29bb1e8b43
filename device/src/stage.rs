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
//! | 3 [`Stage::SubfunctionEvaluation`] | element | f_s(O'[i]) - f_s(O[i]) of every dependent subfunction s |
//! | 4 [`Stage::ReduceByKey`] | pair | the sum of the slot's segment of those differences: the pair's delta |
//! | 5 [`Stage::ImprovementMask`] | pair | the acceptance rule on the delta |
//! | 6 [`Stage::ResetInsert`] | pair | accepted: O'[i] -> O[i] on the set, delta into the fitness; rejected: O[i] -> O'[i] |
//!
//! A [`Pass`] is a set of stages that one sweep over the group does together: stages 1+2 and
//! 4+5+6 fuse per pair (the crew that finds a donor inserts its genes; the crew that sums a
//! segment applies the rule and resets or inserts), stage 3 needs every insertion done and stands
//! alone. [`GROUP_PASSES`] is the sequence of one group: the whole-generation kernel runs it with
//! a grid barrier after each pass, the CPU backend with a join after each. Any single stage is a
//! pass too (the per-stage kernels, used by tests and per-stage timing).
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
//! - **Colour-grouped local search** ([`try_flip`], [`local_search`]): the variables are coloured
//!   so that two of one colour share no subfunction; every improving single-variable flip of one
//!   colour is then exact together, so the GPU flips them all at once, colour after colour, round
//!   after round, until a round flips nothing; the host runs the same flips one solution at a
//!   time, which gives the same local optimum.

use crate::atomic;
use crate::crew::{Crew, Lane};
use crate::gom::{DonorOrder, NO_DONOR, accept, first_differing_donor};
use crate::mem::Ptr;
use crate::problem::{Flipped, Kind};

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
    /// The stages `stages` in one sweep: either stages of pairs (1, 2, 4, 5, 6, in stage order)
    /// or one element stage (3, or 5 alone).
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
        self.0 == Pass::stage(Stage::SubfunctionEvaluation).0 || self.0 == Pass::stage(Stage::ImprovementMask).0
    }

    /// Whether the stages can be done in one sweep (see [`Pass::of`]).
    pub const fn is_valid(self) -> bool {
        self.0 != 0 && self.0 < 1 << 6 && (self.per_element() || !self.has(Stage::SubfunctionEvaluation))
    }
}

/// One colour group in three passes.
pub const GROUP_PASSES: [Pass; 3] = [
    Pass::of(&[Stage::DonorSelection, Stage::DonorInsertion]),
    Pass::stage(Stage::SubfunctionEvaluation),
    Pass::of(&[Stage::ReduceByKey, Stage::ImprovementMask, Stage::ResetInsert]),
];

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

/// The buffers of one population (rows of `l` genes, or of `row_slots`/`row_deps` entries).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Buffers {
    /// P (n rows): the population at the generation's start, the donors.
    pub parents: Ptr<u8>,
    /// O (n rows): the offspring being mixed.
    pub offspring: Ptr<u8>,
    /// O' (n rows): O's working copy, equal to O between groups.
    pub work: Ptr<u8>,
    /// The fitness of O (n).
    pub fitness: Ptr<i64>,
    /// Stage 1's donors (n rows of `row_slots`), [`NO_DONOR`] for none.
    pub donors: Ptr<i32>,
    /// Stage 3's differences (n rows of `row_deps`).
    pub diff: Ptr<i64>,
    /// Stage 4's deltas and stage 5's mask (n rows of `row_slots`).
    pub delta: Ptr<i64>,
    pub mask: Ptr<u8>,
    /// 1 where P[i] is the elitist (n).
    pub is_elitist: Ptr<u8>,
    /// The elitist's genotype (one row).
    pub reference: Ptr<u8>,
    /// 1 where GOM accepted a set of O[i] this generation (n; set atomically, cleared by the host).
    pub changed: Ptr<u8>,
    /// Forced Improvement's state of each solution (n): [`FI_OFF`], [`FI_ACTIVE`], [`FI_IMPROVED`].
    pub forced: Ptr<u8>,
    /// Local search: whether solution i is still searched, and whether it flipped a variable in
    /// the current round (n each).
    pub ls_active: Ptr<u8>,
    pub ls_flipped: Ptr<u8>,
    /// Local search's counters: [solution rounds, solutions still active summed over rounds].
    pub ls_counters: Ptr<u64>,
}

/// Forced Improvement's marks: not in FI, in FI, improved in the current group (leaves FI).
pub const FI_OFF: u8 = 0;
pub const FI_ACTIVE: u8 = 1;
pub const FI_IMPROVED: u8 = 2;

/// The donor of Forced Improvement: the elitist, held in `Buffers::reference`.
pub const ELITIST_DONOR: i32 = -2;

/// The variables in colour groups, and the subfunctions of each variable: what local search needs
/// besides the problem (read only).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalSearch {
    /// Number of colours; colour c holds `color_vars[color_offsets[c]..color_offsets[c+1]]`.
    pub colors: u32,
    pub color_offsets: Ptr<u32>,
    pub color_vars: Ptr<u32>,
    /// The subfunctions of variable v: `var_subs[var_offsets[v]..var_offsets[v+1]]`.
    pub var_offsets: Ptr<u32>,
    pub var_subs: Ptr<u32>,
    /// Annealing sweeps before the greedy descent (none: `anneal.sweeps == 0`).
    pub anneal: Anneal,
}

/// The temperature levels of an annealing schedule, hottest first: a search of any number of
/// sweeps walks through them (sweep k of `sweeps` is at level `k * LEVELS / sweeps`).
pub const ANNEAL_LEVELS: usize = 256;

/// An annealed local search: `sweeps` Metropolis sweeps over the colours, then the greedy
/// descent. This call runs sweeps `from..to` and then, with `descend`, the descent (the host
/// splits a long search into calls, watching its clock between them). In sweep k a flip that
/// changes the fitness by `gain` is taken when `gain >= 0`, and when `gain < 0` with probability
/// 2^(-|gain| * scale / 2^32), i.e. exp(gain / T), for the level's `scale` = 2^32 log2(e) / T.
/// The power of two is computed in integers (`table[f]` = 2^32 * 2^(-f/256) for the fraction's
/// top 8 bits), so that every target takes the same decisions; the random numbers are counters
/// of (seed, stream, sweep, solution, variable).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Anneal {
    pub sweeps: u32,
    pub from: u32,
    pub to: u32,
    /// 1: the greedy descent after the sweeps.
    pub descend: u32,
    /// Which search this is (the host numbers them), so that every search draws its own numbers.
    pub stream: u32,
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
        let Some(y) = gain.unsigned_abs().checked_mul(scale) else { return false };
        let whole = y >> 32;
        if whole >= 32 {
            return false;
        }
        // SAFETY: the index is 8 bits, below the table's 256 entries.
        let threshold = unsafe { self.table.read(((y >> 24) & 0xff) as usize) } >> whole;
        let c =
            crate::rng::Counter { seed: self.seed, generation: self.stream, group: k, solution: i, set: v, attempt: 3 };
        (c.bits() >> 32) < threshold
    }
}

/// Everything the stages need for one population: the argument of every kernel, and what the
/// CPU backend hands to [`for_solution`].
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
    /// `[generation, group order...]`: read from memory, so that a captured CUDA graph of a
    /// whole generation can be replayed with a new order.
    pub schedule: Ptr<u32>,
    pub layout: Layout,
    pub buffers: Buffers,
    /// The problem's arrays.
    pub problem: K,
    /// The colouring of the variables for local search.
    pub local_search: LocalSearch,
    /// A u32 the host zeroes before each whole-generation launch: its grid barrier's counter.
    pub barrier: Ptr<u32>,
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
            let generation = a.schedule.read(0);
            let group = a.schedule.read(1 + step as usize);
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
        if pass.has(Stage::SubfunctionEvaluation) { self.deps } else { self.slots }
    }
}

// Every function below is `unsafe` with one precondition, which the host establishes when it
// builds the arguments: `a` describes live arrays of the documented sizes, consistent with each
// other (every index read from the layout is in range), the group `g` comes from `a`, and
// `i < n`. Writes go only to solution i's rows, so calls for different solutions may run at
// once; calls for the same solution run one pass after the other.

/// Loads issued together by one thread in the loops over a set or a segment: a large set worked
/// on by a warp is a long loop per lane, and one load in flight per iteration would leave it
/// waiting on memory latency every time.
const UNROLL: usize = 4;

/// The variables of slot `slot`: the range into `vars`.
#[inline(always)]
unsafe fn set_range<K>(a: &GomArgs<K>, slot: usize) -> (usize, usize) {
    // SAFETY: slot + 1 is inside var_offsets (the module's precondition).
    unsafe { (a.layout.var_offsets.read(slot) as usize, a.layout.var_offsets.read(slot + 1) as usize) }
}

/// Row `i` of a matrix of `width` columns.
#[inline(always)]
unsafe fn row<T>(base: Ptr<T>, i: usize, width: usize) -> Ptr<T> {
    // SAFETY: i < n rows (the module's precondition).
    unsafe { base.offset(i * width) }
}

/// Copies the genes of slot `slot`'s variables from row `from` to row `to`, this thread's share
/// (the crew strides over the set).
#[inline(always)]
unsafe fn copy_set<K, C: Crew>(crew: &C, a: &GomArgs<K>, slot: usize, from: Ptr<u8>, to: Ptr<u8>) {
    // SAFETY: the module's precondition; every variable index is below l.
    unsafe {
        let (v0, v1) = set_range(a, slot);
        let w = crew.size();
        let var = |t: usize| a.layout.vars.read(t) as usize;
        let mut t = v0 + crew.member();
        while t + (UNROLL - 1) * w < v1 {
            let x: [usize; UNROLL] = core::array::from_fn(|u| var(t + u * w));
            let genes: [u8; UNROLL] = core::array::from_fn(|u| from.read(x[u]));
            for u in 0..UNROLL {
                to.write(x[u], genes[u]);
            }
            t += UNROLL * w;
        }
        while t < v1 {
            let x = var(t);
            to.write(x, from.read(x));
            t += w;
        }
    }
}

/// Whether rows `p` and `o` differ on the variables `vars[from..to]` taken every `by`-th.
#[inline(always)]
unsafe fn differs_on<K>(a: &GomArgs<K>, p: Ptr<u8>, o: Ptr<u8>, from: usize, to: usize, by: usize) -> bool {
    // SAFETY: the module's precondition.
    unsafe {
        let var = |t: usize| a.layout.vars.read(t) as usize;
        let mut t = from;
        while t + (UNROLL - 1) * by < to {
            let x: [usize; UNROLL] = core::array::from_fn(|u| var(t + u * by));
            if (0..UNROLL).any(|u| p.read(x[u]) != o.read(x[u])) {
                return true;
            }
            t += UNROLL * by;
        }
        while t < to {
            let x = var(t);
            if p.read(x) != o.read(x) {
                return true;
            }
            t += by;
        }
        false
    }
}

/// Stage 1 for pair (i, slot), on every member of the crew: the first candidate in the
/// counter-drawn [`DonorOrder`] other than i whose genes on the set differ from O[i], or
/// [`NO_DONOR`].
#[inline(always)]
unsafe fn select_donor<K, C: Crew>(crew: &C, a: &GomArgs<K>, g: &Group, i: usize, slot: usize) -> i32 {
    let l = a.l as usize;
    // SAFETY: the module's precondition; the crew calls this together (pair steps are per crew).
    unsafe {
        let set = a.layout.slot_set.read(slot);
        let order = DonorOrder::new(a.seed, g.generation, g.group, i as u32, set, a.n);
        let o = row(a.buffers.offspring, i, l);
        let (v0, v1) = set_range(a, slot);
        first_differing_donor(crew, &order, i as u32, v1 - v0, |d, from, by| {
            differs_on(a, row(a.buffers.parents, d as usize, l), o, v0 + from, v1, by)
        })
    }
}

/// Stage 1 of Forced Improvement for pair (i, slot), on every member: the elitist if solution i
/// is in FI and the elitist's genes on the set differ from O[i], else [`NO_DONOR`].
#[inline(always)]
unsafe fn elitist_donor<K, C: Crew>(crew: &C, a: &GomArgs<K>, i: usize, slot: usize) -> i32 {
    // SAFETY: the module's precondition; the crew calls this together, and `active` is the same
    // on every member, so the collective `any` is reached by all or none.
    unsafe {
        let active = a.buffers.forced.read(i) == FI_ACTIVE;
        if !active {
            return NO_DONOR;
        }
        let (v0, v1) = set_range(a, slot);
        let o = row(a.buffers.offspring, i, a.l as usize);
        let differs = differs_on(a, a.buffers.reference, o, v0 + crew.member(), v1, crew.size());
        if crew.any(differs) { ELITIST_DONOR } else { NO_DONOR }
    }
}

/// Stage 3 for element (i, k): the change of the group's k-th dependent subfunction between O[i]
/// and O'[i], into diff.
#[inline(always)]
unsafe fn evaluate_dependent<K: Kind>(a: &GomArgs<K>, g: &Group, i: usize, k: usize) {
    let l = a.l as usize;
    // SAFETY: the module's precondition; k < g.deps.
    unsafe {
        let s = a.layout.dep_subfunctions.read(g.dep_begin + k);
        let change = a.problem.delta(s, row(a.buffers.offspring, i, l), row(a.buffers.work, i, l));
        a.buffers.diff.write(i * a.row_deps as usize + k, change);
    }
}

/// Stage 4 for pair (i, slot), on every member: the sum of the slot's segment of diff (the crew
/// strides over it, then sums across its members).
#[inline(always)]
unsafe fn reduce_segment<K, C: Crew>(crew: &C, a: &GomArgs<K>, g: &Group, i: usize, slot: usize) -> i64 {
    // SAFETY: the module's precondition.
    unsafe {
        let s0 = a.layout.dep_offsets.read(slot) as usize - g.dep_begin;
        let s1 = a.layout.dep_offsets.read(slot + 1) as usize - g.dep_begin;
        let diff = row(a.buffers.diff, i, a.row_deps as usize);
        let w = crew.size();
        let mut sums = [0i64; UNROLL];
        let mut t = s0 + crew.member();
        while t + (UNROLL - 1) * w < s1 {
            for (u, sum) in sums.iter_mut().enumerate() {
                *sum += diff.read(t + u * w);
            }
            t += UNROLL * w;
        }
        while t < s1 {
            sums[0] += diff.read(t);
            t += w;
        }
        crew.sum(sums.iter().sum())
    }
}

/// Stage 5 for pair entry `e` of solution i: the acceptance rule on its delta and donor (for
/// Forced Improvement: strict improvements only).
#[inline(always)]
unsafe fn improvement<K, const FORCED: bool>(a: &GomArgs<K>, i: usize, e: usize, delta: i64) -> bool {
    // SAFETY: the module's precondition.
    unsafe {
        let has_donor = a.buffers.donors.read(e) != NO_DONOR;
        if FORCED { has_donor && delta > 0 } else { accept(delta, has_donor, a.buffers.is_elitist.read(i) != 0) }
    }
}

/// Stage 6 for pair (i, slot): an accepted set goes from O'[i] into O[i] and the leader adds its
/// delta to the fitness (sets of one group share no variable and integer addition is exact in
/// any order, so the atomic additions of a solution's pairs give the same sum on every target);
/// a rejected one is restored in O'[i] from O[i].
#[inline(always)]
unsafe fn reset_insert<K, C: Crew, const FORCED: bool>(
    crew: &C,
    a: &GomArgs<K>,
    i: usize,
    slot: usize,
    accepted: bool,
    delta: i64,
) {
    let l = a.l as usize;
    // SAFETY: the module's precondition; the fitness and the per-solution marks, which the
    // leaders of several pairs of solution i may write at once, are only written atomically.
    unsafe {
        let (o, w) = (row(a.buffers.offspring, i, l), row(a.buffers.work, i, l));
        let (from, to) = if accepted { (w, o) } else { (o, w) };
        copy_set(crew, a, slot, from, to);
        if accepted && crew.leads() {
            atomic::atomic_add_i64(a.buffers.fitness.at(i), delta);
            if FORCED {
                atomic::atomic_store_u8(a.buffers.forced.at(i), FI_IMPROVED);
            } else {
                atomic::atomic_store_u8(a.buffers.changed.at(i), 1);
            }
        }
    }
}

/// The stages of `pass` for pair (i, j) of group `g` (j counts from the group's first slot), by
/// crew `crew`: what a pass kernel's crew does for one pair, and what the CPU backend does for
/// every pair. Results are written by the crew's leader, in the same places whichever stages the
/// pass fuses; a stage not in the pass reads what an earlier pass wrote. With `FORCED`, the
/// stages of Forced Improvement (see the module documentation).
///
/// # Safety
///
/// The module's precondition, `j < g.slots`, and every member of the crew calls it together.
#[inline(always)]
pub unsafe fn pair_step<K: Kind, C: Crew, const FORCED: bool>(
    crew: &C,
    a: &GomArgs<K>,
    g: &Group,
    i: usize,
    j: usize,
    pass: Pass,
) {
    let slot = g.slot_begin + j;
    let e = i * a.row_slots as usize + j;
    let b = &a.buffers;
    // SAFETY: the function's precondition.
    unsafe {
        if pass.has(Stage::DonorSelection) || pass.has(Stage::DonorInsertion) {
            let donor = if pass.has(Stage::DonorSelection) {
                let d = if FORCED { elitist_donor(crew, a, i, slot) } else { select_donor(crew, a, g, i, slot) };
                if crew.leads() {
                    b.donors.write(e, d);
                }
                d
            } else {
                b.donors.read(e)
            };
            if pass.has(Stage::DonorInsertion) && donor != NO_DONOR {
                let l = a.l as usize;
                let from = if FORCED { b.reference } else { row(b.parents, donor as usize, l) };
                copy_set(crew, a, slot, from, row(b.work, i, l));
            }
        }
        if pass.has(Stage::ReduceByKey) || pass.has(Stage::ImprovementMask) || pass.has(Stage::ResetInsert) {
            let delta = if pass.has(Stage::ReduceByKey) {
                let d = reduce_segment(crew, a, g, i, slot);
                if crew.leads() {
                    b.delta.write(e, d);
                }
                d
            } else {
                b.delta.read(e)
            };
            if pass.has(Stage::ImprovementMask) || pass.has(Stage::ResetInsert) {
                let accepted = if pass.has(Stage::ImprovementMask) {
                    let ok = improvement::<K, FORCED>(a, i, e, delta);
                    if crew.leads() {
                        b.mask.write(e, ok as u8);
                    }
                    ok
                } else {
                    b.mask.read(e) != 0
                };
                if pass.has(Stage::ResetInsert) {
                    reset_insert::<K, C, FORCED>(crew, a, i, slot, accepted, delta);
                }
            }
        }
    }
}

/// Element `k` of solution i in a per-element pass: stage 3's subfunction k, or stage 5 alone
/// for pair k (by a lane).
///
/// # Safety
///
/// The module's precondition, and `k < g.items(pass)`.
#[inline(always)]
pub unsafe fn element_step<K: Kind, const FORCED: bool>(a: &GomArgs<K>, g: &Group, i: usize, k: usize, pass: Pass) {
    // SAFETY: the function's precondition.
    unsafe {
        if pass.has(Stage::SubfunctionEvaluation) {
            evaluate_dependent(a, g, i, k);
        } else {
            pair_step::<K, Lane, FORCED>(&Lane, a, g, i, k, pass);
        }
    }
}

/// Pass `pass` of group `g` for solution i, every pair or element by a lane: what one rayon task
/// of the CPU backend does. (The GPU shares the same steps out over lanes, warps and blocks.)
///
/// # Safety
///
/// The module's precondition, and `pass` is valid ([`Pass::is_valid`]).
#[inline(always)]
pub unsafe fn for_solution<K: Kind, const FORCED: bool>(a: &GomArgs<K>, g: &Group, i: usize, pass: Pass) {
    // SAFETY: the function's precondition.
    unsafe {
        if pass.per_element() {
            for k in 0..g.items(pass) {
                element_step::<K, FORCED>(a, g, i, k, pass);
            }
        } else {
            for j in 0..g.slots {
                pair_step::<K, Lane, FORCED>(&Lane, a, g, i, j, pass);
            }
        }
    }
}

/// The end of Forced Improvement, element (i, v): a solution still in FI (never improved) becomes
/// a copy of the elitist, in O and O', and (element v = 0) takes the elitist's fitness.
///
/// # Safety
///
/// `b` holds n rows of `l` genes in `offspring` and `work`, one `reference` row, n fitness values
/// and marks, `i < n`, `v < l`.
#[inline(always)]
pub unsafe fn replace_unimproved(b: &Buffers, l: usize, i: usize, v: usize, elitist_fitness: i64) {
    // SAFETY: the function's precondition; element (i, v) writes only gene v of solution i (and
    // element (i, 0) its fitness).
    unsafe {
        if b.forced.read(i) == FI_ACTIVE {
            let gene = b.reference.read(v);
            row(b.offspring, i, l).write(v, gene);
            row(b.work, i, l).write(v, gene);
            if v == 0 {
                b.fitness.write(i, elitist_fitness);
            }
        }
    }
}

/// Flips variable `v` of genotype `x` if that improves the fitness strictly; returns the gain (0
/// when it does not flip). The gain is the sum of the changes of v's subfunctions, the kind's
/// `delta` (as every partial evaluation).
///
/// # Safety
///
/// `kind` and `ls` describe the same problem (checked arrays), `v` is one of its variables, `x`
/// holds its l genes, and no other thread reads or writes `x` at v or at any variable that shares
/// a subfunction with v meanwhile (two variables of one colour share none).
#[inline(always)]
pub unsafe fn try_flip<K: Kind>(kind: &K, ls: &LocalSearch, x: Ptr<u8>, v: u32) -> i64 {
    // SAFETY: the function's precondition.
    unsafe {
        let (t0, t1) = (ls.var_offsets.read(v as usize) as usize, ls.var_offsets.read(v as usize + 1) as usize);
        let flipped = Flipped { genes: x, variable: v };
        let mut gain = 0;
        for t in t0..t1 {
            gain += kind.delta(ls.var_subs.read(t), x, flipped);
        }
        if gain > 0 {
            x.write(v as usize, x.read(v as usize) ^ 1);
            gain
        } else {
            0
        }
    }
}

/// One Metropolis flip of annealing sweep `k` (see [`Anneal`]) of variable `v` of solution
/// `solution`'s genotype `x`; returns the change of fitness (0 when it does not flip, or flips a
/// plateau).
///
/// # Safety
///
/// As [`try_flip`], and `k < ls.anneal.sweeps`.
#[inline(always)]
pub unsafe fn anneal_flip<K: Kind>(kind: &K, ls: &LocalSearch, x: Ptr<u8>, v: u32, k: u32, solution: u32) -> i64 {
    // SAFETY: the function's precondition.
    unsafe {
        let (t0, t1) = (ls.var_offsets.read(v as usize) as usize, ls.var_offsets.read(v as usize + 1) as usize);
        let flipped = Flipped { genes: x, variable: v };
        let mut gain = 0;
        for t in t0..t1 {
            gain += kind.delta(ls.var_subs.read(t), x, flipped);
        }
        if ls.anneal.accepts(gain, k, solution, v) {
            x.write(v as usize, x.read(v as usize) ^ 1);
            gain
        } else {
            0
        }
    }
}

/// Local search of genotype `x` (of solution `solution`): the annealing sweeps `from..to` of
/// `ls.anneal`, then, with `descend`, rounds of [`try_flip`] over the colours in order until a
/// round flips nothing (a local optimum: no single flip improves it). Returns the gain and the number of rounds and
/// sweeps (each evaluates every variable's subfunctions once). The GPU's parallel version reaches
/// the same genotype, since within a colour the flips (and their random numbers) are
/// independent.
///
/// # Safety
///
/// As [`try_flip`], for every variable of every colour.
#[inline(always)]
pub unsafe fn local_search<K: Kind>(kind: &K, ls: &LocalSearch, x: Ptr<u8>, solution: u32) -> (i64, u64) {
    let (mut gain, mut rounds) = (0, 0);
    // SAFETY: the function's precondition; the colour arrays hold `colors + 1` offsets.
    unsafe {
        for k in ls.anneal.from..ls.anneal.to {
            rounds += 1;
            for c in 0..ls.colors as usize {
                for t in ls.color_offsets.read(c) as usize..ls.color_offsets.read(c + 1) as usize {
                    gain += anneal_flip(kind, ls, x, ls.color_vars.read(t), k, solution);
                }
            }
        }
        // The greedy descent, when asked for: rounds of improving flips until none improves.
        if ls.anneal.descend != 0 {
            loop {
                rounds += 1;
                let mut flipped = false;
                for c in 0..ls.colors as usize {
                    for t in ls.color_offsets.read(c) as usize..ls.color_offsets.read(c + 1) as usize {
                        let g = try_flip(kind, ls, x, ls.color_vars.read(t));
                        gain += g;
                        flipped |= g > 0;
                    }
                }
                if !flipped {
                    break;
                }
            }
        }
    }
    (gain, rounds)
}

/// Local search of O[i] (its fitness updated): what one rayon task of the CPU backend does.
/// Returns the number of rounds.
///
/// # Safety
///
/// The module's precondition, and `a.local_search` describes `a.problem`.
#[inline(always)]
pub unsafe fn local_search_solution<K: Kind>(a: &GomArgs<K>, i: usize) -> u64 {
    // SAFETY: the function's precondition; only solution i's row and fitness are written.
    unsafe {
        let (gain, rounds) =
            local_search(&a.problem, &a.local_search, row(a.buffers.offspring, i, a.l as usize), i as u32);
        if gain != 0 {
            a.buffers.fitness.write(i, a.buffers.fitness.read(i) + gain);
        }
        rounds
    }
}

/// One flip of the GPU's local search: the `k`-th variable of colour `c` in O[i], if solution i
/// is still searched; an improving flip adds its gain to the fitness and marks the solution as
/// having flipped this round.
///
/// # Safety
///
/// The module's precondition, `a.local_search` describes `a.problem`, `c < colors` and `k` below
/// the colour's size; the calls running at once are of one colour.
#[inline(always)]
pub unsafe fn local_search_flip<K: Kind>(a: &GomArgs<K>, i: usize, c: usize, k: usize) {
    // SAFETY: the function's precondition; variables of one colour share no subfunction, so the
    // flips of one solution running at once read and write disjoint genes; fitness and marks are
    // written atomically.
    unsafe {
        let b = &a.buffers;
        if b.ls_active.read(i) == 0 {
            return;
        }
        let ls = &a.local_search;
        let v = ls.color_vars.read(ls.color_offsets.read(c) as usize + k);
        let gain = try_flip(&a.problem, ls, row(b.offspring, i, a.l as usize), v);
        if gain > 0 {
            atomic::atomic_add_i64(b.fitness.at(i), gain);
            atomic::atomic_store_u8(b.ls_flipped.at(i), 1);
        }
    }
}

/// One Metropolis flip of annealing sweep `k` of the GPU's local search: the `kk`-th variable of
/// colour `c` in O[i]; its change of fitness goes into the fitness.
///
/// # Safety
///
/// As [`local_search_flip`], and `k < a.local_search.anneal.sweeps`.
#[inline(always)]
pub unsafe fn local_search_anneal<K: Kind>(a: &GomArgs<K>, i: usize, c: usize, kk: usize, k: u32) {
    // SAFETY: as in `local_search_flip`.
    unsafe {
        let ls = &a.local_search;
        let v = ls.color_vars.read(ls.color_offsets.read(c) as usize + kk);
        let gain = anneal_flip(&a.problem, ls, row(a.buffers.offspring, i, a.l as usize), v, k, i as u32);
        if gain != 0 {
            atomic::atomic_add_i64(a.buffers.fitness.at(i), gain);
        }
    }
}

/// The end of a round of the GPU's local search for solution i: an active solution counts one
/// round; it stays active if it flipped a variable (then it also counts in the second counter,
/// which tells every thread whether any solution goes on).
///
/// # Safety
///
/// The module's precondition; no flip of solution i runs at the same time.
#[inline(always)]
pub unsafe fn local_search_round_end(b: &Buffers, i: usize) {
    // SAFETY: the function's precondition; the counters are only updated atomically.
    unsafe {
        if b.ls_active.read(i) != 0 {
            atomic::atomic_add_u64(b.ls_counters.at(0), 1);
            let flipped = b.ls_flipped.read(i);
            b.ls_active.write(i, flipped);
            b.ls_flipped.write(i, 0);
            if flipped != 0 {
                atomic::atomic_add_u64(b.ls_counters.at(1), 1);
            }
        }
    }
}

/// Whether P[i] (rows of `l` genes) equals the reference genotype (the elitist), on every member
/// of the crew; the leader writes `is_elitist[i]`.
///
/// # Safety
///
/// `b.parents` holds row i, `b.reference` one row, `b.is_elitist` element i, and every member of
/// the crew calls it together.
#[inline(always)]
pub unsafe fn mark_elitist<C: Crew>(crew: &C, b: &Buffers, l: usize, i: usize) -> bool {
    // SAFETY: the function's precondition.
    unsafe {
        let p = row(b.parents, i, l);
        let mut differs = false;
        let mut v = crew.member();
        while v < l {
            differs |= p.read(v) != b.reference.read(v);
            v += crew.size();
        }
        let equal = !crew.any(differs);
        if crew.leads() {
            b.is_elitist.write(i, equal as u8);
        }
        equal
    }
}
