//! The steps of GOM's six stages and of parallel Forced Improvement (the module documentation of
//! [`super`] has the table), each generic over the problem kind and the crew, and the two steps
//! around them: marking the solutions equal to the elitist, and ending Forced Improvement.

use super::args::{ELITIST_DONOR, FI_ACTIVE, FI_IMPROVED, GomArgs, Group, Layout, Pass, Stage, row};
use super::buffers::Buffers;
use crate::atomic;
use crate::crew::{Crew, Lane, strided_sum};
use crate::gom::{DonorOrder, LANE_VARIABLES, NO_DONOR, accept, first_differing_donor};
use crate::mem::Ptr;
use crate::problem::Kind;

// Every function below is `unsafe` with one precondition, which the host establishes when it
// builds the arguments: `a` describes live arrays of the documented sizes, consistent with each
// other (every index read from the layout is in range), the group `g` comes from `a`, and
// `i < n`. Writes go only to solution i's rows, so calls for different solutions may run at
// once; calls for the same solution run one pass after the other.

/// Loads issued together by one thread in the loops over a set or a segment: a large set worked
/// on by a warp is a long loop per lane, and one load in flight per iteration would leave it
/// waiting on memory latency every time.
const UNROLL: usize = 4;

/// The variables `vars[v0..v0 + k]`, `k <= LANE_VARIABLES`, read together (the rest 0): a thread
/// alone holds a lane set's variables in registers for stage 1's walk ([`select_donor`]).
#[inline(always)]
unsafe fn gather_vars(layout: &Layout, v0: usize, k: usize) -> [u32; LANE_VARIABLES] {
    // SAFETY: the module's precondition; v0 + u < v0 + k is inside the set's range.
    core::array::from_fn(|u| if u < k { unsafe { layout.vars.entries.read(v0 + u) } } else { 0 })
}

/// Row `p`'s genes on the first `k` gathered variables `x`, one bit each in a word (genes are 0
/// or 1; the rest 0), loaded together.
#[inline(always)]
unsafe fn gathered_genes(p: Ptr<u8>, x: &[u32; LANE_VARIABLES], k: usize) -> u32 {
    let mut word = 0u32;
    for (u, &v) in x.iter().enumerate() {
        if u < k {
            // SAFETY: the module's precondition: every variable index is below l.
            word |= (unsafe { p.read(v as usize) } as u32) << u;
        }
    }
    word
}

/// Copies the genes of slot `slot`'s variables from row `from` to row `to`, this thread's share
/// (the crew strides over the set).
#[inline(always)]
unsafe fn copy_set<K, C: Crew>(crew: &C, a: &GomArgs<K>, slot: usize, from: Ptr<u8>, to: Ptr<u8>) {
    // SAFETY: the module's precondition; every variable index is below l.
    unsafe {
        let (v0, v1) = a.layout.vars.range(slot);
        let w = crew.size();
        let var = |t: usize| a.layout.vars.entries.read(t) as usize;
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
unsafe fn differs_on(layout: &Layout, p: Ptr<u8>, o: Ptr<u8>, from: usize, to: usize, by: usize) -> bool {
    // SAFETY: the module's precondition.
    unsafe {
        let var = |t: usize| layout.vars.entries.read(t) as usize;
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

// ANCHOR: select_donor
/// Stage 1 for pair (i, slot), on every member of the crew: the first candidate in the
/// counter-drawn [`DonorOrder`] other than i whose genes on the set differ from O[i], or
/// [`NO_DONOR`]. None without a look where P has converged on the set ([`mark_converged`]): O[i]
/// takes genes only from P during GOM's groups, so it has P's genes there too; the walk would
/// look at every candidate to find none (a converged population's sets made stage 1 most of a
/// generation: n^2 set comparisons per set).
#[inline(always)]
unsafe fn select_donor<K, C: Crew>(crew: &C, a: &GomArgs<K>, g: &Group, i: usize, slot: usize) -> i32 {
    let l = a.l as usize;
    // SAFETY: the module's precondition; the crew calls this together (pair steps are per crew),
    // and `converged` is the same on every member.
    unsafe {
        let set = a.layout.slot_set.read(slot);
        let order = DonorOrder::new(a.seed, g.generation, g.group, i as u32, set, a.n);
        let o = row(a.buffers.offspring, i, l);
        let (v0, v1) = a.layout.vars.range(slot);
        // Here rather than first: there ptxas gave a by-solution kernel 66 registers (sm_90).
        if a.buffers.converged.read(slot) != 0 {
            return NO_DONOR;
        }
        let k = v1 - v0;
        if C::ALONE && k <= LANE_VARIABLES {
            // A thread alone with a small set reads the set's variables and O[i]'s genes once and
            // compares each candidate's genes, loaded together, as one word: one load a candidate,
            // where `differs_on` waits for the indices and then the genes of both rows, twice for a
            // set of more than UNROLL variables (`docs/decisions/0023-crew-kinds-and-sizes.md`).
            let x = gather_vars(&a.layout, v0, k);
            let mine = gathered_genes(o, &x, k);
            return first_differing_donor(crew, &order, i as u32, k, |d, _, _| {
                gathered_genes(row(a.buffers.parents, d as usize, l), &x, k) != mine
            });
        }
        first_differing_donor(crew, &order, i as u32, k, |d, from, by| {
            differs_on(&a.layout, row(a.buffers.parents, d as usize, l), o, v0 + from, v1, by)
        })
    }
}
// ANCHOR_END: select_donor

/// Marks `converged_genes[v]`: 1 if every solution of P has P[0]'s gene v. The first of the two
/// steps that mark the converged linkage sets ([`mark_converged`]): each gene is looked at once,
/// down the rows until one differs, so the marks cost at most one read of P, where a walk per
/// linkage set read a converged gene once for every set that holds it (seconds at the
/// generation's start of a large converged population, between two checks of the stop).
///
/// # Safety
///
/// `b.parents` holds `n` rows of `l` genes, `b.converged_genes` `l` bytes, and `v < l`.
#[inline(always)]
pub unsafe fn mark_converged_gene(b: &Buffers, n: u32, l: usize, v: usize) {
    // SAFETY: the function's precondition: row i's gene v is element i * l + v < n * l.
    unsafe {
        let first = b.parents.read(v);
        let mut i = 1;
        while i < n as usize && b.parents.read(i * l + v) == first {
            i += 1;
        }
        b.converged_genes.write(v, (i >= n as usize) as u8);
    }
}

/// Marks `converged[slot]`: 1 if every solution of P has the genes of P[0] on the slot's linkage
/// set, that is, if every gene of the set is marked in `converged_genes`
/// ([`mark_converged_gene`], which must have run for every gene), on every member of the crew.
/// Stage 1 trusts the mark while O has P's genes on the converged sets: from the generation's
/// start (O = P) through GOM's groups.
///
/// # Safety
///
/// `layout` and `b` hold live arrays of the documented sizes, `slot` is below the layout's
/// slots, and every member of the crew calls it together.
#[inline(always)]
pub unsafe fn mark_converged<C: Crew>(crew: &C, layout: &Layout, b: &Buffers, slot: usize) {
    // SAFETY: the function's precondition.
    unsafe {
        let (v0, v1) = layout.vars.range(slot);
        let mut differs = false;
        let mut t = v0 + crew.member();
        while t < v1 && !differs {
            differs = b.converged_genes.read(layout.vars.entries.read(t) as usize) == 0;
            t += crew.size();
        }
        let differs = crew.any(differs);
        if crew.leads() {
            b.converged.write(slot, !differs as u8);
        }
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
        let (v0, v1) = a.layout.vars.range(slot);
        let o = row(a.buffers.offspring, i, a.l as usize);
        let differs = differs_on(&a.layout, a.buffers.reference, o, v0 + crew.member(), v1, crew.size());
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
        let s = a.layout.deps.entries.read(g.dep_begin + k);
        let change = a.problem.delta(s, row(a.buffers.offspring, i, l), row(a.buffers.work, i, l));
        a.buffers.diff.write(i * a.row_deps as usize + k, change);
    }
}

/// Stage 4 for pair (i, slot), on every member: the sum of the slot's segment of diff (the crew
/// strides over it, then sums across its members): [`evaluate_segment`]'s sum over another
/// source. Both keep their own unroll in [`strided_sum`], whose PTX is byte for byte that of the
/// two loops written out (an earlier shared helper took the three-pass generation kernels from
/// 64 registers to 72 on sm_90, one block per multiprocessor fewer).
#[inline(always)]
unsafe fn reduce_segment<K, C: Crew>(crew: &C, a: &GomArgs<K>, g: &Group, i: usize, slot: usize) -> i64 {
    // SAFETY: the module's precondition.
    unsafe {
        // Each end shifted as it is read, not through `Csr::range`: the PTX stays as it was.
        let s0 = a.layout.deps.offsets.read(slot) as usize - g.dep_begin;
        let s1 = a.layout.deps.offsets.read(slot + 1) as usize - g.dep_begin;
        let diff = row(a.buffers.diff, i, a.row_deps as usize);
        strided_sum::<C, UNROLL>(crew, s0, s1, |t| diff.read(t))
    }
}

/// Subfunction evaluations issued together by one member in the pair form of stage 3: fewer than
/// [`UNROLL`], since each holds several loads (variables, genes, weights) in registers.
const EVAL_UNROLL: usize = 2;

/// Stages 3 and 4 for pair (i, slot) in one pass, on every member: the changes of the slot's
/// dependent subfunctions between O[i] and O'[i], summed by the crew that inserted the donor's
/// genes (after a crew barrier, so every member reads what the others inserted), the crew
/// striding over the segment with [`EVAL_UNROLL`] evaluations in flight per member. The same sum
/// as the two stages apart: integer addition is exact in any order.
#[inline(always)]
unsafe fn evaluate_segment<K: Kind, C: Crew>(crew: &C, a: &GomArgs<K>, i: usize, slot: usize) -> i64 {
    let l = a.l as usize;
    // SAFETY: the module's precondition; every member calls this together.
    unsafe {
        crew.sync();
        let (o, w) = (row(a.buffers.offspring, i, l), row(a.buffers.work, i, l));
        let change = |t: usize| a.problem.delta(a.layout.deps.entries.read(t), o, w);
        let (s0, s1) = a.layout.deps.range(slot);
        strided_sum::<C, EVAL_UNROLL>(crew, s0, s1, change)
    }
}

/// Stage 5 for solution i's pair with donor `donor`: the acceptance rule on its delta and donor
/// (for Forced Improvement: strict improvements only).
#[inline(always)]
unsafe fn improvement<K, const FORCED: bool>(a: &GomArgs<K>, i: usize, donor: i32, delta: i64) -> bool {
    let has_donor = donor != NO_DONOR;
    // SAFETY: the module's precondition.
    if FORCED { has_donor && delta > 0 } else { accept(delta, has_donor, unsafe { a.buffers.is_elitist.read(i) } != 0) }
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

// ANCHOR: pair_step_donor
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
        // The donor, where this pass selected or read it.
        let mut donor = None;
        if pass.has(Stage::DonorSelection) || pass.has(Stage::DonorInsertion) {
            let d = if pass.has(Stage::DonorSelection) {
                let d = if FORCED { elitist_donor(crew, a, i, slot) } else { select_donor(crew, a, g, i, slot) };
                if crew.leads() {
                    b.donors.write(e, d);
                }
                d
            } else {
                b.donors.read(e)
            };
            if pass.has(Stage::DonorInsertion) && d != NO_DONOR {
                let l = a.l as usize;
                let from = if FORCED { b.reference } else { row(b.parents, d as usize, l) };
                copy_set(crew, a, slot, from, row(b.work, i, l));
            }
            donor = Some(d);
            // ANCHOR_END: pair_step_donor
        }
        if pass.has(Stage::ReduceByKey) || pass.has(Stage::ImprovementMask) || pass.has(Stage::ResetInsert) {
            // Read from the buffer only where an earlier pass wrote it (a barrier ago): a donor
            // selected in this pass is the crew's collective result, the same on every member.
            let the_donor = || donor.unwrap_or_else(|| b.donors.read(e));
            let delta = if pass.has(Stage::SubfunctionEvaluation) {
                // Stage 3 in a pair pass (with stage 4): without a donor O'[i] equals O[i] on
                // the set, so the delta is 0 without evaluating (the crew takes the branch
                // together).
                let d = if the_donor() == NO_DONOR { 0 } else { evaluate_segment(crew, a, i, slot) };
                if crew.leads() {
                    b.delta.write(e, d);
                }
                d
            } else if pass.has(Stage::ReduceByKey) {
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
                    let ok = improvement::<K, FORCED>(a, i, the_donor(), delta);
                    if crew.leads() {
                        b.mask.write(e, ok as u8);
                    }
                    ok
                } else {
                    b.mask.read(e) != 0
                };
                // Without a donor O'[i] equals O[i] on the set: nothing to reset.
                if pass.has(Stage::ResetInsert) && (accepted || the_donor() != NO_DONOR) {
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

// ANCHOR: for_solution
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
// ANCHOR_END: for_solution

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

// ANCHOR: mark_elitist_step
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
// ANCHOR_END: mark_elitist_step
