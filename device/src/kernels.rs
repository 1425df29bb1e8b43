//! Every GPU kernel of pgomea (compiled for `nvptx64-nvidia-cuda` only). The kernels only share
//! the work out over the GPU's threads; what each thread does is a step of [`crate::stage`], the
//! code the CPU backend runs too.
//!
//! Per problem kind of the registry ([`crate::problem::for_each_kind`]) one kernel set, named by
//! [`crate::kernel_names`]:
//! - `pgomea_generation_<kind>`: a whole generation, every colour group of the schedule, each as
//!   its passes ([`crate::stage::group_passes`]) with a grid barrier after each (GOM in one pass:
//!   a barrier of each solution's [`Team`] of blocks), in one cooperative launch;
//! - `pgomea_generation_by_solution_<kind>`: the same, or parallel Forced Improvement, with one
//!   block per solution and block barriers instead of grid barriers (any launch);
//! - `pgomea_generation_one_pass_<kind>`, `pgomea_generation_by_solution_one_pass_<kind>`: the
//!   two ways of GOM with each group in one pass ([`crate::stage::ONE_PASS`]);
//! - `pgomea_forced_improvement_<kind>`: the generation's kernel for parallel Forced Improvement;
//! - `pgomea_pass_<kind>`: one pass (one stage, or fused stages) of the group at `a.step`, of GOM
//!   or of Forced Improvement; the host launches these one by one (tests, per-stage timing, runs
//!   that watch the clock between groups) or captures a whole generation of them as a CUDA graph
//!   where a device cannot launch cooperatively;
//! - `pgomea_flip_search_<kind>`: one call of colour-grouped local search of every solution (its
//!   annealing sweeps, then the greedy descent to a local optimum), in one cooperative launch, or
//!   with one block per solution in any launch;
//!   `pgomea_flip_search_color_<kind>` one colour of one sweep or round (or the round's end), for
//!   devices without cooperative launch;
//!
//! and, for every kind, `pgomea_mark_elitist`, `pgomea_mark_converged_genes`,
//! `pgomea_mark_converged` and `pgomea_forced_improvement_end`.
//!
//! How threads share a pass: a per-element pass gives one thread to each (solution, element); a
//! per-pair pass gives each (solution, slot) pair one lane, one warp or one block, as the layout's
//! crew boundaries say ([`crate::gom::crew_kind`]). All loops are grid-stride, so any grid covers
//! any group: one grid size serves every group, which a captured graph needs.

use crate::atomic;
use crate::crew::{Block, Lane, Warp, spread_starts, team_of_block};
use crate::kernel_names::kernel_name;
use crate::mem::Ptr;
use crate::problem::{Kind, for_each_kind};
use crate::stage::args::row;
use crate::stage::{
    Buffers, GomArgs, Group, Layout, ONE_PASS, Pass, THREE_PASSES, element_step, keep_gain, kept_takes, kept_together,
    mark_converged, mark_converged_gene, mark_elitist, pair_step, parallel_anneal_flip, parallel_kept_flip,
    parallel_try_flip, replace_unimproved, search_round_end, update_partners,
};
use crate::thread::{self, GridBarrier};
use crate::warp::{WARP_SIZE, lane_id, warp_id};

/// This warp's first item and the number of warps in the grid.
#[inline(always)]
fn warps() -> (usize, usize) {
    let per_block = (thread::block_dim_x() / WARP_SIZE) as usize;
    (thread::block_idx_x() as usize * per_block + warp_id() as usize, thread::grid_dim_x() as usize * per_block)
}

/// This thread's first item and the number of threads in the grid.
#[inline(always)]
fn threads() -> (usize, usize) {
    (thread::index_1d() as usize, thread::grid_stride() as usize)
}

/// (x / d, x % d), in 32-bit arithmetic when both fit (a 64-bit division is a long subroutine on
/// the GPU).
#[inline(always)]
fn divmod(x: usize, d: usize) -> (usize, usize) {
    if (x | d) <= u32::MAX as usize {
        let (x, d) = (x as u32, d as u32);
        ((x / d) as usize, (x % d) as usize)
    } else {
        (x / d, x % d)
    }
}

/// Who shares a pass out: the threads, warps and blocks taking part, and the solutions they
/// cover. The whole grid covers every solution (the cooperative generation, the pass kernels); a
/// team of blocks covers its solution (the cooperative generation of GOM in one pass, [`Team`]);
/// one block covers one solution (the generation by solution). The last two are enough because
/// the solutions of a generation never read each other's rows (donors come from P, which no pass
/// writes): a team's or a block's barrier then orders the passes where a grid barrier would
/// otherwise.
#[derive(Clone, Copy)]
struct Share {
    /// The first solution and how many follow it.
    first: u32,
    solutions: u32,
    /// This thread's first item and the stride in a per-element pass (consecutive items to
    /// consecutive threads), and the first items and strides of its lane, warp and block crews
    /// in a pair pass. In 32 bits, which they fit (threads of a grid, solutions), so that they
    /// take one register each while the crews' loops run.
    thread: (u32, u32),
    lane: (u32, u32),
    warp: (u32, u32),
    block: (u32, u32),
    /// Whether warps take a group's lane pairs where they are few for the warps
    /// (`LANES_TO_WARPS`).
    lanes_to_warps: bool,
}

impl Share {
    /// The whole grid, over all `n` solutions, for the kernels whose grid may be larger than
    /// what is resident (the pass kernels) or whose registers a different placement raised (the
    /// three-pass generation kernels: 70-72 instead of 64 on sm_90, one block of 512 per
    /// multiprocessor instead of two, and 3-SAT of 10^5 variables 13 % slower at n = 256). A
    /// pass's crews start in three places: lanes at the grid's first thread, warps at its middle
    /// warp (wrapping round), blocks at its last block (counting down). Where a group's pairs fit
    /// in the grid (small populations) the three then mostly run on blocks of their own, at once,
    /// rather than one after the other on the first blocks, which took less time per generation
    /// (`docs/decisions/0022-crew-placement-and-teams.md`). Each
    /// start is a rotation of the items' order, so every item is still taken once, and which
    /// thread takes it changes nothing it computes.
    #[inline(always)]
    fn grid(n: usize) -> Share {
        let blocks = thread::grid_dim_x();
        let (warp, warps) = warps();
        let (warp, warps) = (warp as u32, warps as u32);
        let half = warps / 2;
        let threads = (thread::index_1d(), thread::grid_stride());
        Share {
            first: 0,
            solutions: n as u32,
            thread: threads,
            lane: threads,
            warp: (if warp >= half { warp - half } else { warp + (warps - half) }, warps),
            block: (blocks - 1 - thread::block_idx_x(), blocks),
            lanes_to_warps: false,
        }
    }

    /// A team of the cooperative generation kernel of GOM in one pass (every block resident),
    /// over the team's solutions. The crews of a pair pass are spread out over the team's blocks,
    /// so that where a group's pairs fit in them (small populations) every multiprocessor takes a
    /// little of each kind at once ([`spread_starts`]: lanes take runs of 32 items on every
    /// block's first warps, warps one item each on every block's last warps; block crews start at
    /// the team's last block, counting down), and warps take the lanes' pairs where they are few
    /// (`LANES_TO_WARPS`). Each placement is a permutation of the team's lanes (or warps, or
    /// blocks), so every item is still taken once by a crew, and which crew takes it changes
    /// nothing it computes. With [`Share::grid`]'s placement, small populations' lane pairs filled
    /// the first blocks, about a thousand threads on each of their multiprocessors doing scattered
    /// loads one after the other (`docs/decisions/0022-crew-placement-and-teams.md`).
    #[inline(always)]
    fn spread(team: &Team) -> Share {
        let (block, warp, lane) = (thread::block_idx_x() - team.first_block, warp_id(), lane_id());
        let (blocks, per_block) = (team.blocks, thread::block_dim_x() / WARP_SIZE);
        let warps = blocks * per_block;
        let (lane_start, warp_start) = spread_starts(block, warp, lane, blocks, per_block, WARP_SIZE);
        let size = thread::block_dim_x();
        Share {
            first: team.first,
            solutions: team.solutions,
            thread: (block * size + thread::thread_idx_x(), blocks * size),
            lane: (lane_start, warps * WARP_SIZE),
            warp: (warp_start, warps),
            block: (blocks - 1 - block, blocks),
            lanes_to_warps: true,
        }
    }

    /// This block alone, over solution i.
    #[inline(always)]
    fn block(i: usize) -> Share {
        let size = thread::block_dim_x();
        Share {
            first: i as u32,
            solutions: 1,
            thread: (thread::thread_idx_x(), size),
            lane: (thread::thread_idx_x(), size),
            warp: (warp_id(), size / WARP_SIZE),
            block: (0, 1),
            lanes_to_warps: false,
        }
    }
}

/// A run of the cooperative grid's blocks that works on its own solutions and meets at barriers
/// of its own. The solutions of a generation of GOM never read each other's rows (donors come
/// from P, which no pass writes), so only the blocks working on one solution need to wait for
/// each other between groups: a solution whose pairs of a group are done goes on to the next
/// group while others are still busy, and a barrier is passed by a team's blocks alone instead of
/// the whole grid's.
struct Team {
    /// Its blocks: the first, and how many.
    first_block: u32,
    blocks: u32,
    /// Its solutions: the first (also the counter of its barrier: teams never share a first
    /// solution), and how many.
    first: u32,
    solutions: u32,
}

impl Team {
    /// This block's team where there are at most as many solutions as blocks: one team per
    /// solution ([`team_of_block`]), team k on solution k.
    #[inline(always)]
    fn of_this_block(n: u32) -> Team {
        let (k, first_block, blocks) = team_of_block(thread::block_idx_x(), thread::grid_dim_x(), n);
        Team { first_block, blocks, first: k, solutions: 1 }
    }

    /// The whole grid as one team, on all `n` solutions.
    #[inline(always)]
    fn whole_grid(n: u32) -> Team {
        Team { first_block: 0, blocks: thread::grid_dim_x(), first: 0, solutions: n }
    }
}

/// A share's (first item, stride), 32-bit as [`Share`] holds them, widened for the item loops.
#[inline(always)]
fn wide((start, stride): (u32, u32)) -> (usize, usize) {
    (start as usize, stride as usize)
}

/// Warps take the lanes' pairs of a group where there are at most this many per warp of the
/// grid. A lane walks the donor candidates and evaluates a set's dependent subfunctions one after
/// the other (G81: up to 23); a warp tests up to 32 candidates and evaluates 32 subfunctions at
/// once, so where the lanes' pairs fit the warps in a few rounds, the group's lanes are no longer
/// its longest chain of loads; 2 was the fastest bound at 16 solutions and within 2 % of the
/// others at 32 and 64 (`docs/decisions/0022-crew-placement-and-teams.md`).
const LANES_TO_WARPS: usize = 2;

// ANCHOR: run_pass
/// Pass `pass` of group `g`, shared out as `share` says.
///
/// # Safety
///
/// The precondition of [`crate::stage`] for `a` and `g`; `pass` is valid; every thread that
/// `share` names calls it (block and warp crews need their whole block or warp), with a block
/// size that is a multiple of 32.
#[inline(always)]
unsafe fn run_pass<K: Kind, const FORCED: bool>(a: &GomArgs<K>, g: &Group, pass: Pass, share: Share) {
    let (first, n) = (share.first as usize, share.solutions as usize);
    // SAFETY: the function's precondition. Each loop's bound is the same for every thread of a
    // warp (the warp loop) or block (the block loop), so crews reach their collectives together.
    unsafe {
        if pass.per_element() {
            let per = g.items(pass);
            let (mut t, stride) = wide(share.thread);
            while t < n * per {
                let (i, k) = divmod(t, per);
                element_step::<K, FORCED>(a, g, first + i, k, pass);
                t += stride;
            }
            return;
        }
        // Where the lanes' pairs are few for the grid's warps, warps take them.
        let alone =
            if share.lanes_to_warps && n * g.alone <= LANES_TO_WARPS * share.warp.1 as usize { 0 } else { g.alone };
        let (mut t, stride) = wide(share.lane);
        while t < n * alone {
            let (i, j) = divmod(t, alone);
            pair_step::<K, Lane, FORCED>(&Lane, a, g, first + i, j, pass);
            t += stride;
        }
        let warped = g.warped - alone;
        let (mut w, stride) = wide(share.warp);
        while w < n * warped {
            let (i, j) = divmod(w, warped);
            pair_step::<K, Warp, FORCED>(&Warp, a, g, first + i, alone + j, pass);
            w += stride;
        }
        let blocked = g.slots - g.warped;
        let (mut b, stride) = wide(share.block);
        while b < n * blocked {
            let (i, j) = divmod(b, blocked);
            pair_step::<K, Block, FORCED>(&Block, a, g, first + i, g.warped + j, pass);
            b += stride;
        }
    }
}
// ANCHOR_END: run_pass

/// Every group of the schedule for the solutions `share` covers, in order, each group's passes
/// (of Forced Improvement where `FORCED`, else of GOM in one pass where `ONE`: see
/// [`crate::stage::group_passes`]), each followed by `barrier` (a pass, and the next group, read
/// what other threads wrote before it). Each combination is a kernel of its own: one kernel for
/// both would need the registers of the larger.
///
/// # Safety
///
/// As [`run_pass`] for every group; `barrier` is reached by every thread that `share` names and
/// orders their memory.
#[inline(always)]
unsafe fn all_groups<K: Kind, const FORCED: bool, const ONE: bool>(
    a: &GomArgs<K>,
    share: Share,
    mut barrier: impl FnMut(),
) {
    // SAFETY: the function's precondition.
    unsafe {
        for step in 0..a.groups {
            let g = Group::at(a, step);
            // Named one by one (not looped over) so that each pass is a constant where it is
            // used: every stage test in the steps folds away.
            if FORCED || !ONE {
                let [first, second, third] = THREE_PASSES;
                run_pass::<K, FORCED>(a, &g, first, share);
                barrier();
                run_pass::<K, FORCED>(a, &g, second, share);
                barrier();
                run_pass::<K, FORCED>(a, &g, third, share);
            } else {
                let [whole] = ONE_PASS;
                run_pass::<K, FORCED>(a, &g, whole, share);
            }
            barrier();
        }
    }
}

/// A whole generation over every solution, the passes separated by grid barriers (GOM in one
/// pass: by barriers of each [`Team`]).
///
/// # Safety
///
/// As [`run_pass`] for every group, a cooperative launch, and `a.buffers.barrier` zero at launch.
#[inline(always)]
unsafe fn generation<K: Kind, const FORCED: bool, const ONE: bool>(a: &GomArgs<K>) {
    // SAFETY: the function's precondition: every thread reaches every grid barrier.
    unsafe {
        let n = a.n as usize;
        // GOM in one pass works in teams and spreads its crews; the other ways keep the whole
        // grid and their crews' places (see `Share::grid`).
        if ONE && !FORCED {
            // One team per solution where every solution can have a block of its own, else the
            // whole grid as one team. (A general split, T = min(n, B) teams of n / T solutions
            // each, held more values through the group loop and spilled past the register
            // budget: 48-64 bytes of stores and 60-72 of loads on sm_90.)
            let team = if n <= thread::grid_dim_x() as usize {
                Team::of_this_block(n as u32)
            } else {
                Team::whole_grid(n as u32)
            };
            let mut barrier = GridBarrier::among(a.buffers.barrier, team.first, team.blocks);
            all_groups::<K, FORCED, ONE>(a, Share::spread(&team), || barrier.sync());
        } else {
            let mut barrier = GridBarrier::new(a.buffers.barrier);
            all_groups::<K, FORCED, ONE>(a, Share::grid(n), || barrier.sync());
        }
    }
}

/// A whole generation with one block per solution: each block runs every group of the schedule
/// on its solutions (block `b` on solutions b, b + blocks, ...), the passes separated by block
/// barriers. The same steps on the same pairs as [`generation`], so the same results; no grid
/// barrier, so no cooperative launch and any grid.
///
/// # Safety
///
/// As [`run_pass`] for every group; one-dimensional blocks of a multiple of 32 threads.
#[inline(always)]
unsafe fn generation_by_solution<K: Kind, const FORCED: bool, const ONE: bool>(a: &GomArgs<K>) {
    // SAFETY: the function's precondition; the loop over solutions is block-uniform, so every
    // thread of the block reaches every block barrier.
    unsafe {
        let mut i = thread::block_idx_x() as usize;
        while i < a.n as usize {
            all_groups::<K, FORCED, ONE>(a, Share::block(i), || thread::sync_threads());
            i += thread::grid_dim_x() as usize;
        }
    }
}

/// Colour `c`'s flips of the local search for every solution still searched (or, with `sweep`
/// `Some(k)`, of annealing sweep k for every solution) that `share` covers, strided over
/// (solution, variable of the colour) as `share` says.
///
/// # Safety
///
/// The precondition of [`crate::stage`] for `a`, `a.search` describing `a.problem`, `c < colors`,
/// and `k` below the annealing sweeps.
#[inline(always)]
unsafe fn search_color<K: Kind>(a: &GomArgs<K>, c: usize, sweep: Option<u32>, share: Share) {
    let s = &a.search;
    // SAFETY: the function's precondition; every flip of one launch or pass is of colour c.
    unsafe {
        let size = (s.color_offsets.read(c + 1) - s.color_offsets.read(c)) as usize;
        let (mut t, stride) = wide(share.thread);
        while t < share.solutions as usize * size {
            let (i, k) = divmod(t, size);
            let i = share.first as usize + i;
            match sweep {
                Some(s) => parallel_anneal_flip(a, i, c, k, s),
                None => parallel_try_flip(a, i, c, k),
            }
            t += stride;
        }
    }
}

/// Every colour of annealing sweep k (`sweep` `Some(k)`) or of a round of the greedy descent
/// (`None`) for the solutions `share` covers, `barrier` after each colour (the flips of one colour
/// read what the colour before wrote).
///
/// # Safety
///
/// As [`search_color`] for every colour; `barrier` is reached by every thread that `share` names
/// and orders their memory.
#[inline(always)]
unsafe fn search_colors<K: Kind>(a: &GomArgs<K>, sweep: Option<u32>, share: Share, barrier: &mut impl FnMut()) {
    for c in 0..a.search.colors as usize {
        // SAFETY: the function's precondition.
        unsafe { search_color(a, c, sweep, share) };
        barrier();
    }
}

/// The end of a round of the greedy descent for every solution (grid-stride).
///
/// # Safety
///
/// As [`search_color`]; no flip runs at the same time.
#[inline(always)]
unsafe fn search_round_ends(b: &Buffers, n: usize) {
    let (mut i, stride) = threads();
    while i < n {
        // SAFETY: the function's precondition.
        unsafe { search_round_end(b, i) };
        i += stride;
    }
}

/// One call of the local search of every solution: its annealing sweeps, then at most
/// `descent_rounds` rounds of the greedy descent of the solutions marked active, over the
/// colours, a grid barrier after each colour, until a round leaves no solution active. Every
/// thread decides alike: the count of solutions still active after a round's end is read by all
/// threads between two barriers, before any thread can change it again.
///
/// # Safety
///
/// As [`search_color`] for every colour, a cooperative launch, `a.buffers.barrier` and
/// `a.buffers.search_counters` zero at launch, no solution marked flipped.
#[inline(always)]
unsafe fn search_all<K: Kind>(a: &GomArgs<K>) {
    // SAFETY: the function's precondition.
    unsafe {
        let mut barrier = GridBarrier::new(a.buffers.barrier);
        let mut sync = || barrier.sync();
        let share = Share::grid(a.n as usize);
        let anneal = &a.search.anneal;
        for k in anneal.from..anneal.to {
            search_colors(a, Some(k), share, &mut sync);
        }
        // The greedy descent: at most `descent_rounds` rounds, until a whole round flips nothing
        // in any solution.
        let mut before = 0;
        for _ in 0..anneal.descent_rounds {
            search_colors(a, None, share, &mut sync);
            search_round_ends(&a.buffers, a.n as usize);
            sync();
            let now = atomic::atomic_load_u64(a.buffers.search_counters.at(1));
            sync();
            if now == before {
                return;
            }
            before = now;
        }
    }
}

/// One call of the local search with one block per solution: each block runs the annealing
/// sweeps and the greedy rounds of its solutions (block `b` on solutions b, b + blocks, ...),
/// colour after colour with block barriers, and ends a solution's descent at the first round that
/// flips nothing in it. The same flips as [`search_all`], and the same rounds counted: there a
/// solution no longer active is skipped until every solution is done.
///
/// # Safety
///
/// As [`search_color`] for every colour, one-dimensional blocks of a multiple of 32 threads,
/// `a.buffers.search_counters` zero at launch, no solution marked flipped.
#[inline(always)]
unsafe fn search_by_solution<K: Kind>(a: &GomArgs<K>) {
    // SAFETY: the function's precondition; the loops are block-uniform (the descent's end is the
    // block's vote), so every thread reaches every block barrier.
    unsafe {
        let anneal = &a.search.anneal;
        if K::PARTNERS && a.search.gains.addr() != 0 {
            let gains = row(a.search.gains, thread::block_idx_x() as usize, a.l as usize);
            let mut i = thread::block_idx_x() as usize;
            while i < a.n as usize {
                search_solution_kept(a, i, gains);
                i += thread::grid_dim_x() as usize;
            }
            return;
        }
        let mut sync = || thread::sync_threads();
        let mut i = thread::block_idx_x() as usize;
        while i < a.n as usize {
            let share = Share::block(i);
            for k in anneal.from..anneal.to {
                search_colors(a, Some(k), share, &mut sync);
            }
            for _ in 0..anneal.descent_rounds {
                search_colors(a, None, share, &mut sync);
                // The leader ends the round; the barrier's vote tells every thread whether the
                // solution's descent goes on.
                let leader = thread::thread_idx_x() == 0;
                if leader {
                    search_round_end(&a.buffers, i);
                }
                if !thread::sync_threads_or(leader && a.buffers.search_active.read(i) != 0) {
                    break;
                }
            }
            i += thread::grid_dim_x() as usize;
        }
    }
}

/// One sweep (`Some(k)`) or descent round (`None`) of solution i's search by solution with kept
/// gains: colour after colour, where the colour is small for the block first every taken flip's
/// partners' gains by the whole block, then the flips, a block barrier after each.
///
/// # Safety
///
/// As [`search_solution_kept`].
#[inline(always)]
unsafe fn kept_colors<K: Kind>(a: &GomArgs<K>, i: usize, gains: Ptr<i64>, sweep: Option<u32>) {
    let s = &a.search;
    let (t, stride) = (thread::thread_idx_x() as usize, thread::block_dim_x() as usize);
    // SAFETY: the function's precondition; within a colour no flip changes a gain or gene that
    // another flip of it reads (its partners are of other colours, updated atomically), and
    // the partners' pass reads the genes before any flip of the colour (a barrier between).
    unsafe {
        let x = row(a.buffers.offspring, i, a.l as usize);
        for c in 0..s.colors as usize {
            let (first, end) = (s.color_offsets.read(c) as usize, s.color_offsets.read(c + 1) as usize);
            let together = kept_together(end - first, stride);
            if together {
                for p in first..end {
                    let v = s.color_vars.read(p);
                    if kept_takes(s, gains.read(v as usize), sweep, i as u32, v) {
                        update_partners::<K, true>(&a.problem, s, x, gains, p, v, (t, stride));
                    }
                }
                thread::sync_threads();
            }
            let mut p = first + t;
            while p < end {
                parallel_kept_flip(a, i, gains, p, sweep, !together);
                p += stride;
            }
            thread::sync_threads();
        }
    }
}

/// Solution i's call of the search by solution keeping its gains in `gains` (l values of the
/// block's own): filled, then the sweeps and the descent's rounds as [`search_by_solution`] runs
/// them, with the same flips (the gains are exact: `docs/decisions/0029-kept-gains.md`).
///
/// # Safety
///
/// As [`search_by_solution`], for a kind with partners; every thread of the block calls it.
#[inline(always)]
unsafe fn search_solution_kept<K: Kind>(a: &GomArgs<K>, i: usize, gains: Ptr<i64>) {
    let s = &a.search;
    let (t, stride) = (thread::thread_idx_x() as usize, thread::block_dim_x() as usize);
    // SAFETY: the function's precondition; the loops are block-uniform (the active mark is read
    // between barriers, and written by the leader only before the vote's barrier).
    unsafe {
        let x = row(a.buffers.offspring, i, a.l as usize);
        let positions = s.color_offsets.read(s.colors as usize) as usize;
        let mut p = t;
        while p < positions {
            keep_gain(&a.problem, s, x, gains, p, s.color_vars.read(p));
            p += stride;
        }
        thread::sync_threads();
        for k in s.anneal.from..s.anneal.to {
            kept_colors(a, i, gains, Some(k));
        }
        for _ in 0..s.anneal.descent_rounds {
            if a.buffers.search_active.read(i) != 0 {
                kept_colors(a, i, gains, None);
            }
            let leader = thread::thread_idx_x() == 0;
            if leader {
                search_round_end(&a.buffers, i);
            }
            if !thread::sync_threads_or(leader && a.buffers.search_active.read(i) != 0) {
                break;
            }
        }
    }
}

/// One problem kind's kernel set (see the module documentation), in a module named after the kind
/// (the kernels' names come from `kernel_name!`).
macro_rules! kernel_set {
    ($kind:ident: $name:literal) => {
        #[allow(non_snake_case)]
        pub mod $kind {
            use super::*;
            use crate::problem::$kind;

            #[doc = concat!("A whole generation of parallel GOM on a `", stringify!($kind), "` problem.")]
            ///
            /// # Safety
            ///
            /// The launch preconditions:
            ///
            /// - cooperative launch (`cuLaunchCooperativeKernel`): every block resident at once;
            /// - one-dimensional blocks of a multiple of 32 threads, at most 1024;
            /// - `a` points to live arrays sized from the host's layout (`GroupLayout`) for this
            ///   population, `a.buffers.schedule` holds the generation and the order of all
            ///   `a.groups` groups, `a.buffers.barrier` is zero.
            #[unsafe(export_name = kernel_name!(generation, $name))]
            pub unsafe extern "ptx-kernel" fn generation(a: GomArgs<$kind>) {
                // SAFETY: the launch preconditions above.
                unsafe { super::generation::<$kind, false, false>(&a) }
            }

            #[doc = concat!("A whole generation of parallel GOM, each group in one pass, on a `", stringify!($kind), "` problem.")]
            ///
            /// # Safety
            ///
            /// The launch preconditions of the generation kernel.
            #[unsafe(export_name = kernel_name!(generation_one_pass, $name))]
            pub unsafe extern "ptx-kernel" fn generation_one_pass(a: GomArgs<$kind>) {
                // SAFETY: the launch preconditions above.
                unsafe { super::generation::<$kind, false, true>(&a) }
            }

            #[doc = concat!("Parallel Forced Improvement over every group of the schedule, on a `", stringify!($kind), "` problem.")]
            ///
            /// # Safety
            ///
            /// The launch preconditions of the generation kernel, and `a.buffers.forced` marks the
            /// solutions in FI, `a.buffers.reference` holds the elitist.
            #[unsafe(export_name = kernel_name!(forced_improvement, $name))]
            pub unsafe extern "ptx-kernel" fn forced_improvement(a: GomArgs<$kind>) {
                // SAFETY: the launch preconditions above.
                unsafe { super::generation::<$kind, true, false>(&a) }
            }

            #[doc = concat!("A whole generation of parallel GOM (or, where `forced` is not 0, parallel Forced Improvement) with one block per solution, on a `", stringify!($kind), "` problem.")]
            ///
            /// # Safety
            ///
            /// The launch preconditions of the generation kernel (of the Forced Improvement
            /// kernel where `forced` is not 0), except that any grid will do (no cooperative
            /// launch; `a.buffers.barrier` unused).
            #[unsafe(export_name = kernel_name!(generation_by_solution, $name))]
            pub unsafe extern "ptx-kernel" fn generation_by_solution(a: GomArgs<$kind>, forced: u32) {
                // SAFETY: the launch preconditions above.
                unsafe {
                    if forced != 0 {
                        super::generation_by_solution::<$kind, true, false>(&a)
                    } else {
                        super::generation_by_solution::<$kind, false, false>(&a)
                    }
                }
            }

            #[doc = concat!("A whole generation of parallel GOM with one block per solution, each group in one pass, on a `", stringify!($kind), "` problem.")]
            ///
            /// # Safety
            ///
            /// The launch preconditions of the generation-by-solution kernel.
            #[unsafe(export_name = kernel_name!(generation_by_solution_one_pass, $name))]
            pub unsafe extern "ptx-kernel" fn generation_by_solution_one_pass(a: GomArgs<$kind>) {
                // SAFETY: the launch preconditions above.
                unsafe { super::generation_by_solution::<$kind, false, true>(&a) }
            }

            // ANCHOR: pass_kernel
            #[doc = concat!("One pass of the group at position `a.step` of the schedule, on a `", stringify!($kind), "` problem: of GOM, or of Forced Improvement where `forced` is not 0.")]
            ///
            /// # Safety
            ///
            /// The launch preconditions:
            ///
            /// - one-dimensional blocks of a multiple of 32 threads, at most 1024, any grid;
            /// - `a` as for the generation kernel (`a.buffers.barrier` unused), `a.step < a.groups`;
            /// - `pass` valid (`Pass::is_valid`), the passes before it in the group done.
            #[unsafe(export_name = kernel_name!(pass, $name))]
            pub unsafe extern "ptx-kernel" fn pass(a: GomArgs<$kind>, pass: Pass, forced: u32) {
                // SAFETY: the launch preconditions above.
                unsafe {
                    let g = Group::at(&a, a.step);
                    let share = Share::grid(a.n as usize);
                    if forced != 0 {
                        run_pass::<$kind, true>(&a, &g, pass, share)
                    } else {
                        run_pass::<$kind, false>(&a, &g, pass, share)
                    }
                }
            }
            // ANCHOR_END: pass_kernel

            #[doc = concat!("One call of the colour-grouped local search of every solution of O (annealing sweeps, then rounds of the greedy descent towards a local optimum), on a `", stringify!($kind), "` problem.")]
            ///
            /// # Safety
            ///
            /// The launch preconditions:
            ///
            /// - cooperative launch, one-dimensional blocks of a multiple of 32 threads, at most
            ///   1024; where `by_solution` is not 0, any launch and any grid (a block per solution);
            /// - `a` points to live population buffers, `a.search` to the colouring of this
            ///   problem's variables and their subfunctions; `a.buffers.barrier` and
            ///   `a.buffers.search_counters` are zero, `search_flipped` is 0 for every solution,
            ///   and `search_active` marks the solutions whose descent goes on.
            #[unsafe(export_name = kernel_name!(flip_search, $name))]
            pub unsafe extern "ptx-kernel" fn flip_search(a: GomArgs<$kind>, by_solution: u32) {
                // SAFETY: the launch preconditions above.
                unsafe { if by_solution != 0 { search_by_solution(&a) } else { search_all(&a) } }
            }

            #[doc = concat!("One colour (`color < colors`) of annealing sweep `sweep` (when it is below the sweeps) or of a round of the greedy descent, or the round's end (`color == colors`), on a `", stringify!($kind), "` problem.")]
            ///
            /// # Safety
            ///
            /// The launch preconditions of the search kernel, except that any grid will do and
            /// the launches of a round run in order (the counters and marks are kept between them).
            #[unsafe(export_name = kernel_name!(flip_search_color, $name))]
            pub unsafe extern "ptx-kernel" fn flip_search_color(a: GomArgs<$kind>, color: u32, sweep: u32) {
                // SAFETY: the launch preconditions above.
                unsafe {
                    let anneal = (sweep < a.search.anneal.sweeps).then_some(sweep);
                    if color < a.search.colors {
                        search_color(&a, color as usize, anneal, Share::grid(a.n as usize))
                    } else {
                        search_round_ends(&a.buffers, a.n as usize)
                    }
                }
            }
        }
    };
}

macro_rules! kernel_sets {
    ($($kind:ident: $name:literal,)*) => {
        $(kernel_set!($kind: $name);)*
    };
}
for_each_kind!(kernel_sets);

/// The end of parallel Forced Improvement: solutions still marked in FI (never improved) become
/// copies of the elitist (`buffers.reference`) with its fitness; one thread per (solution, gene).
///
/// # Safety
///
/// The launch preconditions: one-dimensional blocks, any grid; `buffers.offspring` and
/// `buffers.work` hold `n` rows of `l` genes, `buffers.reference` one row, `buffers.fitness` and
/// `buffers.forced` `n` values.
#[unsafe(export_name = kernel_name!(forced_improvement_end))]
pub unsafe extern "ptx-kernel" fn forced_improvement_end(buffers: Buffers, n: u32, l: u32, elitist_fitness: i64) {
    let (mut t, stride) = threads();
    let l = l as usize;
    while t < n as usize * l {
        let (i, v) = divmod(t, l);
        // SAFETY: the launch preconditions; element (i, v) writes only gene v of solution i.
        unsafe { replace_unimproved(&buffers, l, i, v, elitist_fitness) };
        t += stride;
    }
}

// ANCHOR: mark_elitist_kernel
/// Marks `is_elitist[i] = 1` where P[i] equals the reference genotype, else 0: one warp per
/// solution.
///
/// # Safety
///
/// The launch preconditions:
///
/// One-dimensional blocks of a multiple of 32 threads, any grid; `buffers.parents` holds `n`
/// rows of `l` genes, `buffers.reference` one row, `buffers.is_elitist` `n` bytes.
#[unsafe(export_name = kernel_name!(mark_elitist))]
pub unsafe extern "ptx-kernel" fn mark_elitists(buffers: Buffers, n: u32, l: u32) {
    let (mut i, stride) = warps();
    // SAFETY: the launch preconditions; the loop bound is warp-uniform, so each warp calls the
    // collective together.
    unsafe {
        while i < n as usize {
            mark_elitist(&Warp, &buffers, l as usize, i);
            i += stride;
        }
    }
}
// ANCHOR_END: mark_elitist_kernel

/// Marks `converged_genes[v] = 1` for the genes v that every solution of P shares with P[0], else
/// 0: one thread per gene, so that a warp reads 32 neighbouring genes of each row together.
///
/// # Safety
///
/// The launch preconditions:
///
/// One-dimensional blocks, any grid; `buffers.parents` holds `n` rows of `l` genes,
/// `buffers.converged_genes` `l` bytes.
#[unsafe(export_name = kernel_name!(mark_converged_genes))]
pub unsafe extern "ptx-kernel" fn mark_converged_genes(buffers: Buffers, n: u32, l: u32) {
    let (mut v, stride) = threads();
    // SAFETY: the launch preconditions; v < l.
    unsafe {
        while v < l as usize {
            mark_converged_gene(&buffers, n, l as usize, v);
            v += stride;
        }
    }
}

/// Marks `converged[s] = 1` for the slots s whose linkage set holds only genes marked by
/// [`mark_converged_genes`] (launched before it), else 0: one warp per slot.
///
/// # Safety
///
/// The launch preconditions:
///
/// One-dimensional blocks of a multiple of 32 threads, any grid; `layout` is a live layout of
/// `slots` slots, `buffers.converged_genes` holds the marks of every variable, `buffers.converged`
/// `slots` bytes.
#[unsafe(export_name = kernel_name!(mark_converged))]
pub unsafe extern "ptx-kernel" fn mark_converged_sets(layout: Layout, buffers: Buffers, slots: u32) {
    let (mut s, stride) = warps();
    // SAFETY: the launch preconditions; the loop bound is warp-uniform, so each warp calls the
    // collective together.
    unsafe {
        while s < slots as usize {
            mark_converged(&Warp, &layout, &buffers, s);
            s += stride;
        }
    }
}
