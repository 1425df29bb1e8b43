//! Crews: the threads that work together on one (solution, linkage set) pair. Every per-pair
//! step of the stages is written once, generic over its crew; which crew runs a pair changes no
//! result, only how the work is shared out.
//!
//! - [`Lane`]: one thread alone. The only crew on the host: the CPU backend and serial GOMEA run
//!   every step as a lane (from rayon tasks, or sequentially).
//! - `Warp` (GPU): the 32 lanes of a warp, through shuffles and votes.
//! - `Block` (GPU): every thread of a block, through a shared-memory reduction and block votes.
//!
//! # Safety of the collective methods
//!
//! A crew's collective methods ([`Crew::sum`], [`Crew::any`], [`Crew::first_team`],
//! [`Crew::sync`]) must be
//! called by every member of the crew together, in the same order, from control flow that does
//! not depend on the member (the PTX rules for `shfl.sync`/`vote.sync` and `bar.sync`); for a
//! lane this holds trivially.

/// How a crew splits for a donor search: `count` teams of `width` threads; this thread is member
/// `rank` of team `team`. Each team tests one candidate donor per round, its members striding
/// over the linkage set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Teams {
    pub team: u32,
    pub count: u32,
    pub rank: u32,
    pub width: u32,
}

// ANCHOR: crew_trait
/// The threads working on one pair.
pub trait Crew {
    /// Whether the crew is one thread alone ([`Lane`]): a step may then hold a small set's
    /// variables and genes in registers instead of striding over them.
    const ALONE: bool = false;
    /// Threads in the crew.
    fn size(&self) -> usize;
    /// This thread's index in the crew, `0..size()`.
    fn member(&self) -> usize;
    /// Whether this thread is the crew's leader: the one that writes a pair's results.
    #[inline(always)]
    fn leads(&self) -> bool {
        self.member() == 0
    }
    /// The crew's split into teams for the donor search over a set of `set_size` variables.
    fn teams(&self, set_size: usize) -> Teams;
    /// The sum of `x` over the crew, on every member.
    ///
    /// # Safety
    ///
    /// Every member calls it together (see the module documentation).
    unsafe fn sum(&self, x: i64) -> i64;
    /// Whether `predicate` holds on any member, on every member.
    ///
    /// # Safety
    ///
    /// Every member calls it together (see the module documentation).
    unsafe fn any(&self, predicate: bool) -> bool;
    /// The lowest team whose members have `hit` on any member, on every member; `None` if no
    /// team has.
    ///
    /// # Safety
    ///
    /// Every member calls it together (see the module documentation).
    unsafe fn first_team(&self, hit: bool, teams: &Teams) -> Option<u32>;
    /// A barrier of the crew: what any member wrote before it, every member reads after it.
    ///
    /// # Safety
    ///
    /// Every member calls it together (see the module documentation).
    unsafe fn sync(&self);
}
// ANCHOR_END: crew_trait

/// One thread alone: the crew of small sets on the GPU and of everything on the host.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lane;

impl Crew for Lane {
    const ALONE: bool = true;
    #[inline(always)]
    fn size(&self) -> usize {
        1
    }
    #[inline(always)]
    fn member(&self) -> usize {
        0
    }
    #[inline(always)]
    fn teams(&self, _set_size: usize) -> Teams {
        Teams { team: 0, count: 1, rank: 0, width: 1 }
    }
    #[inline(always)]
    unsafe fn sum(&self, x: i64) -> i64 {
        x
    }
    #[inline(always)]
    unsafe fn any(&self, predicate: bool) -> bool {
        predicate
    }
    #[inline(always)]
    unsafe fn first_team(&self, hit: bool, _teams: &Teams) -> Option<u32> {
        hit.then_some(0)
    }
    #[inline(always)]
    unsafe fn sync(&self) {}
}

/// The sum over the crew of `term(t)` for every t in `from..to`, on every member: each member
/// takes every `size()`-th t from `from + member()`, with `N` terms in flight, then the crew
/// sums across its members. The sum is exact in any order (integers), so any crew gives the same.
///
/// # Safety
///
/// Every member calls it together (see the module documentation), and `term` may be called with
/// every t of the range.
#[inline(always)]
pub unsafe fn strided_sum<C: Crew, const N: usize>(
    crew: &C,
    from: usize,
    to: usize,
    term: impl Fn(usize) -> i64,
) -> i64 {
    let w = crew.size();
    let mut sums = [0i64; N];
    let mut t = from + crew.member();
    while t + (N - 1) * w < to {
        for (u, sum) in sums.iter_mut().enumerate() {
            *sum += term(t + u * w);
        }
        t += N * w;
    }
    while t < to {
        sums[0] += term(t);
        t += w;
    }
    // SAFETY: every member calls this together (the function's precondition).
    unsafe { crew.sum(sums.iter().sum()) }
}

/// The first items of this thread's lane crew and of its warp's crew in the spread placement of
/// the cooperative one-pass generation kernel (`Share::spread` in `kernels`), for thread `lane`
/// of warp `warp` of block `block` in a grid of `blocks` blocks of `warps_per_block` warps of
/// `warp_size` lanes. Lanes take their items in runs of `warp_size`: one run to each block's
/// first warp, then one to each block's second warp, and so on; warps take one item to each
/// block's last warp, then one to each block's last but one. Each is a permutation of the grid's
/// lanes (or warps), so a grid-stride loop from these starts takes every item once.
pub const fn spread_starts(
    block: u32,
    warp: u32,
    lane: u32,
    blocks: u32,
    warps_per_block: u32,
    warp_size: u32,
) -> (u32, u32) {
    ((warp * blocks + block) * warp_size + lane, (warps_per_block - 1 - warp) * blocks + block)
}

/// Block `block`'s team where a grid of `blocks` blocks is split into one team per solution, `n`
/// of them (1 <= n <= blocks): (team k, its first block, its blocks), team k having blocks
/// ceil(k blocks / n) .. ceil((k + 1) blocks / n), so every block is in one team, every team has
/// at least one block, and their sizes differ by at most one. In 32-bit arithmetic (a 64-bit
/// division is a long subroutine on the GPU): block n < blocks^2, which fits where `blocks` is
/// at most the blocks resident at once.
pub const fn team_of_block(block: u32, blocks: u32, n: u32) -> (u32, u32, u32) {
    let k = block * n / blocks;
    let first = (k * blocks).div_ceil(n);
    let end = ((k + 1) * blocks).div_ceil(n);
    (k, first, end - first)
}

#[cfg(target_arch = "nvptx64")]
pub use gpu::{Block, Warp};

#[cfg(target_arch = "nvptx64")]
mod gpu {
    use super::{Crew, Teams};
    use crate::thread;
    use crate::warp::{
        FULL_MASK, WARP_SIZE, lane_id, sync_warp, vote_any_sync, vote_ballot_sync, warp_id, warp_sum_i64,
    };

    /// The 32 lanes of a warp.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Warp;

    impl Crew for Warp {
        #[inline(always)]
        fn size(&self) -> usize {
            WARP_SIZE as usize
        }
        #[inline(always)]
        fn member(&self) -> usize {
            lane_id() as usize
        }
        /// Teams as wide as the set rounded up to a power of two (at most the warp): a small set
        /// lets one warp test up to 32 candidates per round.
        #[inline(always)]
        fn teams(&self, set_size: usize) -> Teams {
            let width = (set_size as u32).clamp(1, WARP_SIZE).next_power_of_two();
            let lane = lane_id();
            Teams { team: lane / width, count: WARP_SIZE / width, rank: lane % width, width }
        }
        #[inline(always)]
        unsafe fn sum(&self, x: i64) -> i64 {
            // SAFETY: all 32 lanes call it together (the trait's precondition).
            unsafe { warp_sum_i64(x) }
        }
        #[inline(always)]
        unsafe fn any(&self, predicate: bool) -> bool {
            // SAFETY: as in `sum`.
            unsafe { vote_any_sync(FULL_MASK, predicate) }
        }
        // ANCHOR: warp_first_team
        /// A ballot: bit k is lane k's hit; the lowest set bit's lane belongs to the first team.
        #[inline(always)]
        unsafe fn first_team(&self, hit: bool, teams: &Teams) -> Option<u32> {
            // SAFETY: as in `sum`.
            let ballot = unsafe { vote_ballot_sync(FULL_MASK, hit) };
            (ballot != 0).then(|| ballot.trailing_zeros() / teams.width)
        }
        // ANCHOR_END: warp_first_team
        #[inline(always)]
        unsafe fn sync(&self) {
            // SAFETY: as in `sum`.
            unsafe { sync_warp(FULL_MASK) }
        }
    }

    /// Every thread of a block (the block size a multiple of 32, at most 1024).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Block;

    impl Crew for Block {
        #[inline(always)]
        fn size(&self) -> usize {
            thread::block_dim_x() as usize
        }
        #[inline(always)]
        fn member(&self) -> usize {
            thread::thread_idx_x() as usize
        }
        /// One team: a block works on sets of hundreds of variables, one candidate at a time.
        #[inline(always)]
        fn teams(&self, _set_size: usize) -> Teams {
            Teams { team: 0, count: 1, rank: thread::thread_idx_x(), width: thread::block_dim_x() }
        }
        #[inline(always)]
        unsafe fn sum(&self, x: i64) -> i64 {
            // SAFETY: every thread of the block calls it (the trait's precondition).
            unsafe { block_sum(x) }
        }
        #[inline(always)]
        unsafe fn any(&self, predicate: bool) -> bool {
            // SAFETY: as in `sum`.
            unsafe { thread::sync_threads_or(predicate) }
        }
        #[inline(always)]
        unsafe fn first_team(&self, hit: bool, _teams: &Teams) -> Option<u32> {
            // SAFETY: as in `sum`.
            unsafe { thread::sync_threads_or(hit) }.then_some(0)
        }
        #[inline(always)]
        unsafe fn sync(&self) {
            // SAFETY: as in `sum`.
            unsafe { thread::sync_threads() }
        }
    }

    // ANCHOR: block_sum
    /// The sum of `x` over the block, on every thread: warp sums into shared memory, then the
    /// first warp sums those.
    ///
    /// # Safety
    ///
    /// Every thread of the block calls it together.
    #[inline(always)]
    unsafe fn block_sum(x: i64) -> i64 {
        // 32 warp sums (1024 threads at most) and the total.
        let sums: *mut i64 = crate::static_shared_array!(pgomea_block_sums: i64; 33);
        // SAFETY: `sums` is this block's shared array of 33 elements; every index below is
        // under 33; the block barriers order the writes before the reads (every thread gets
        // to each barrier: the caller's precondition).
        unsafe {
            let part = warp_sum_i64(x);
            if lane_id() == 0 {
                *sums.add(warp_id() as usize) = part;
            }
            thread::sync_threads();
            if warp_id() == 0 {
                let lane = lane_id();
                let part = if lane < thread::block_dim_x() / WARP_SIZE { *sums.add(lane as usize) } else { 0 };
                let total = warp_sum_i64(part);
                if lane == 0 {
                    *sums.add(32) = total;
                }
            }
            thread::sync_threads();
            let total = *sums.add(32);
            // The next call reuses the slots: nobody may write them before everyone has read.
            thread::sync_threads();
            total
        }
    }
    // ANCHOR_END: block_sum
}
