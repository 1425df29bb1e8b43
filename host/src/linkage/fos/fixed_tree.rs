//! The fixed linkage tree (FLT) and the bounded one (BFLT): sparse UPGMA over the pairs of
//! clusters joined by a nonzero linkage weight, in rounds of mutual best pairs merged in parallel
//! ([`Fos::fixed_linkage_tree`](super::Fos::fixed_linkage_tree) says what it builds and how).

use super::Fos;
use std::cmp::Ordering;

use pgomea_device::rng::{SplitMix64, mix64};
use rayon::prelude::*;

use crate::error::Error;
use crate::problem::GrayBoxProblem;
use crate::stop::{StopCheck, StopReason};

/// Rounds of merges with fewer clusters to look at than this run on the calling thread: late in
/// a tree a round has a handful, and rayon's hand-off would cost more than the work.
pub(super) const PARALLEL_FROM: usize = 2048;

/// The sets of [`Fos::fixed_linkage_tree_within`](super::Fos::fixed_linkage_tree_within), for
/// two variables or more and a bound of two or more (the caller gives the singletons otherwise),
/// handling rounds of fewer than `parallel_from` clusters on the calling thread (tests pass 1 to
/// run every round on rayon's pool).
pub(super) fn linkage_tree(
    problem: &dyn GrayBoxProblem,
    max_set_size: Option<usize>,
    rng: &mut SplitMix64,
    budget: u128,
    stop: &StopCheck,
    parallel_from: usize,
) -> Result<Fos, Error> {
    let l = problem.variables();
    let bound = max_set_size.unwrap_or(usize::MAX).max(1);
    assert!(l >= 2 && bound >= 2, "a linkage tree of {l} variables under a bound of {bound}");
    let too_large = |bytes: u128| {
        Error::option(
            "linkage",
            format!(
                "flt: the fixed linkage tree of {} would need more than {} of memory (some variable is \
                 linked to very many others, as in a star): take bflt:K (e.g. bflt:100) or univariate",
                problem.name(),
                crate::problem::memory::human(bytes)
            ),
        )
    };
    // Per variable: its cluster's list header, best pair, size, node and liveness, a mate and one
    // merge record; the links of the variables.
    let pairs_bound: u128 = (0..problem.subfunctions())
        .map(|s| {
            let k = problem.subfunction_variables(s).len() as u128;
            if problem.linkage_weight(s) == 0 { 0 } else { k * k.saturating_sub(1) }
        })
        .sum();
    let first = l as u128 * PER_VARIABLE_BYTES + LINK_BYTES * pairs_bound;
    if first > budget {
        return Err(too_large(first));
    }
    crate::problem::memory::ensure(first, &format!("the fixed linkage tree of {}", problem.name()))?;
    let keys = TieKeys(rng.next_u64());
    let mut upgma = MutualPairs::new(problem, bound, keys, parallel_from, stop)?;
    if let Err(e) = upgma.merge_linked(budget, stop) {
        // The lists of 10^8 variables take tenths of a second to free: not on the way to the answer.
        crate::stop::drop_aside(upgma);
        return Err(e.into_error(&too_large));
    }
    let MutualPairs { merges, node, alive, mut set_entries, links, best, size, .. } = upgma;
    crate::stop::drop_aside((links, best, size));
    // Its second array of merges takes the place of the lists and pairs freed above.
    let merges = greedy_order(merges, stop)?;
    let mut index = stop.filled(merges.len(), |_| 0u32)?;
    for (k, m) in merges.iter().enumerate() {
        stop.every(k, crate::stop::WORK_PER_CHECK)?;
        index[m.node as usize - l] = (l + k) as u32;
    }
    let place = |x: u32| if (x as usize) < l { x } else { index[x as usize - l] };
    let mut children: Vec<(u32, u32)> =
        stop.filled(merges.len(), |k| (place(merges[k].left), place(merges[k].right)))?;
    let mut size = subtree_sizes(l, &children, stop)?;
    if max_set_size.is_none() {
        // No linked pair left: merge random pairs (UPGMA, similarity 0 everywhere, random tie
        // breaks) until one cluster remains. The clusters left, ascending: marked, then listed
        // (not sorted, which takes seconds unchecked for 10^8 clusters).
        let mut left = stop.filled(size.len(), |_| false)?;
        for v in 0..l {
            stop.every(v, crate::stop::WORK_PER_CHECK)?;
            if alive[v] {
                left[place(node[v]) as usize] = true;
            }
        }
        let mut rest = Vec::new();
        for (x, &is_left) in left.iter().enumerate() {
            stop.every(x, crate::stop::WORK_PER_CHECK)?;
            if is_left {
                rest.push(x as u32);
            }
        }
        drop(left);
        while rest.len() > 1 {
            stop.every(rest.len(), 64)?;
            let i = rng.index(rest.len());
            let a = rest.swap_remove(i);
            let j = rng.index(rest.len());
            let b = rest.swap_remove(j);
            let merged = size[a as usize] + size[b as usize];
            set_entries += merged as u128;
            if 4 * set_entries > budget {
                return Err(too_large(4 * set_entries));
            }
            rest.push((l + children.len()) as u32);
            children.push((a, b));
            size.push(merged);
        }
    }
    drop((merges, index, node, alive));
    Ok(members(l, &children, &size, stop)?)
}

/// The merges in greedy UPGMA's order: decreasing (similarity, key), which puts every child
/// before its parent. No two merges tie (each merges its own pair of clusters, and the order is
/// strict over pairs), so that this checked sort gives the order any sort would; 10^7 merges take
/// a second to sort on two cores.
fn greedy_order(merges: Vec<Merge>, stop: &StopCheck) -> Result<Vec<Merge>, StopReason> {
    stop.sorted_by(merges, |x, y| y.pair.cmp(&x.pair))
}

/// The number of variables under every node of a forest whose node l + k has the children
/// `children[k]` (listed after them) and whose nodes 0..l are the variables.
fn subtree_sizes(l: usize, children: &[(u32, u32)], stop: &StopCheck) -> Result<Vec<u64>, StopReason> {
    let mut size = stop.filled(l + children.len(), |_| 1u64)?;
    for (k, &(a, b)) in children.iter().enumerate() {
        stop.every(k, crate::stop::WORK_PER_CHECK)?;
        size[l + k] = size[a as usize] + size[b as usize];
    }
    Ok(size)
}

/// The sets of the nodes of that forest (`size`: its [`subtree_sizes`]), each sorted, the root (the
/// last node, when it holds every variable) left out: one walk lays the variables out so that
/// every node's variables are one contiguous range, then the sets are copied into one array and
/// sorted, in parallel blocks. Time O(total set size x log), no set built twice, no allocation per
/// set (a tree of 10^8 variables has 2 x 10^8 sets).
fn members(l: usize, children: &[(u32, u32)], size: &[u64], stop: &StopCheck) -> Result<Fos, StopReason> {
    let total = size.len();
    let mut has_parent = stop.filled(total, |_| false)?;
    for (k, &(a, b)) in children.iter().enumerate() {
        stop.every(k, crate::stop::WORK_PER_CHECK)?;
        has_parent[a as usize] = true;
        has_parent[b as usize] = true;
    }
    // Each top node takes the next range; a node's first child the front of its range, the second
    // the rest (parents are listed after their children, so walk backwards).
    let mut start = stop.filled(total, |_| 0u64)?;
    let mut offset = 0u64;
    for x in (0..total).filter(|&x| !has_parent[x]) {
        stop.every(x, crate::stop::WORK_PER_CHECK)?;
        start[x] = offset;
        offset += size[x];
    }
    drop(has_parent);
    for (k, &(a, b)) in children.iter().enumerate().rev() {
        stop.every(k, crate::stop::WORK_PER_CHECK)?;
        let s = start[l + k];
        start[a as usize] = s;
        start[b as usize] = s + size[a as usize];
    }
    let mut order = stop.filled(l, |_| 0u32)?;
    for v in 0..l {
        stop.every(v, crate::stop::WORK_PER_CHECK)?;
        order[start[v] as usize] = v as u32;
    }
    let nodes = if total > l && size[total - 1] == l as u64 { total - 1 } else { total };
    let mut offsets = stop.filled(nodes + 1, |_| 0usize)?;
    for x in 0..nodes {
        stop.every(x, crate::stop::WORK_PER_CHECK)?;
        offsets[x + 1] = offsets[x] + size[x] as usize;
    }
    let mut vars = stop.filled(offsets[nodes], |_| 0u32)?;
    // Blocks of consecutive nodes of about WORK_PER_CHECK variables each (or one larger node).
    let mut blocks: Vec<(usize, usize, &mut [u32])> = Vec::new();
    let (mut rest, mut first) = (&mut vars[..], 0);
    while first < nodes {
        stop.every(blocks.len(), 1024)?;
        let mut end = first + 1;
        while end < nodes && offsets[end + 1] - offsets[first] <= crate::stop::WORK_PER_CHECK {
            end += 1;
        }
        let (block, tail) = std::mem::take(&mut rest).split_at_mut(offsets[end] - offsets[first]);
        blocks.push((first, end, block));
        (rest, first) = (tail, end);
    }
    blocks.into_par_iter().try_for_each(|(first, end, block)| {
        stop.check()?;
        for x in first..end {
            let set = &mut block[offsets[x] - offsets[first]..offsets[x + 1] - offsets[first]];
            set.copy_from_slice(&order[start[x] as usize..(start[x] + size[x]) as usize]);
            set.sort_unstable();
        }
        Ok(())
    })?;
    Ok(Fos::from_offsets(offsets, vars))
}

/// Bytes per variable before the first merge (see `linkage_tree`).
const PER_VARIABLE_BYTES: u128 = (24 + CANDIDATE_BYTES + 4 + 4 + 1 + 4 + std::mem::size_of::<Merge>() + 8 + 8) as u128;

/// A candidate merge of the FLT: the clusters whose smallest variables are a < b, with `sum` of
/// linkage weight between them over `pairs` = |a||b| variable pairs, and their tie-break `key`.
/// Ordered by the exact average similarity sum / pairs, then the key, then (a, b): a strict
/// order over the pairs of live clusters.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    sum: u64,
    pairs: u64,
    key: u64,
    a: u32,
    b: u32,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        // sum/pairs against other.sum/other.pairs, exactly.
        let x = self.sum as u128 * other.pairs as u128;
        let y = other.sum as u128 * self.pairs as u128;
        x.cmp(&y).then(self.key.cmp(&other.key)).then(self.a.cmp(&other.a)).then(self.b.cmp(&other.b))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

/// No pair: smaller than every candidate (whose sums are positive).
const NO_PAIR: Candidate = Candidate { sum: 0, pairs: 1, key: 0, a: u32::MAX, b: u32::MAX };

impl Default for Candidate {
    /// No pair (what a relist that a stop cut short leaves).
    fn default() -> Self {
        NO_PAIR
    }
}

/// The tie-break key of two clusters: a hash of the seed's draw and of the clusters' smallest
/// variables. A merged cluster's smallest variable is one of its parts', so its key with any
/// third cluster is one of theirs: the order stays reducible with the keys included, and the
/// key does not depend on when the pair is made (which is what lets merges run in parallel).
#[derive(Clone, Copy)]
struct TieKeys(u64);

impl TieKeys {
    fn key(&self, a: u32, b: u32) -> u64 {
        mix64(self.0 ^ mix64((a as u64) << 32 | b as u64))
    }

    /// The pair of cluster `x`, of `size` variables, and the cluster `link` names.
    fn pair(&self, x: u32, size: usize, link: &Link) -> Candidate {
        let (a, b) = (x.min(link.rep), x.max(link.rep));
        Candidate { sum: link.sum, pairs: size as u64 * link.size as u64, key: self.key(a, b), a, b }
    }
}

impl Candidate {
    /// The other cluster of the pair, seen from `x`.
    fn partner(&self, x: u32) -> u32 {
        if self.a == x { self.b } else { self.a }
    }
}

/// One end of a linked pair of clusters, as the other cluster's list keeps it: the summed linkage
/// weight between the two, and the cluster's smallest variable and size.
#[derive(Clone, Copy, Debug)]
struct Link {
    sum: u64,
    rep: u32,
    size: u32,
}

const LINK_BYTES: u128 = std::mem::size_of::<Link>() as u128;
const CANDIDATE_BYTES: usize = std::mem::size_of::<Candidate>();

/// A merge made: its pair, and the nodes of the merged clusters and of the new one (the variables
/// are nodes 0..l, merges l, l + 1, ... in the order made).
#[derive(Clone, Copy)]
struct Merge {
    pair: Candidate,
    left: u32,
    right: u32,
    node: u32,
}

/// Why the linked phase of the tree stopped early.
enum Halt {
    Stopped(StopReason),
    TooLarge(u128),
}

impl Halt {
    fn into_error(self, too_large: &dyn Fn(u128) -> Error) -> Error {
        match self {
            Halt::Stopped(r) => r.into(),
            Halt::TooLarge(bytes) => too_large(bytes),
        }
    }
}

impl From<StopReason> for Halt {
    fn from(r: StopReason) -> Self {
        Halt::Stopped(r)
    }
}

/// No mate this round.
const NONE: u32 = u32::MAX;

/// A cluster listed as touched, in `mate` while the round's touched clusters are gathered (never
/// a cluster's name: an instance has fewer than 2^31 variables).
const TOUCHED: u32 = u32::MAX - 1;

/// The clusters or pairs of a round between two checks of the stop: a few milliseconds of work.
const ITEMS_PER_CHECK: usize = 4096;

/// The state of sparse UPGMA ([`Fos::fixed_linkage_tree`](super::Fos::fixed_linkage_tree)). A live cluster is named by its
/// smallest variable (its slot), and keeps there its links (sorted by slot), its best pair, its
/// size and its node.
struct MutualPairs {
    l: usize,
    bound: usize,
    keys: TieKeys,
    parallel_from: usize,
    links: Vec<Vec<Link>>,
    best: Vec<Candidate>,
    size: Vec<u32>,
    node: Vec<u32>,
    alive: Vec<bool>,
    merges: Vec<Merge>,
    link_entries: u128,
    set_entries: u128,
}

impl MutualPairs {
    /// The singletons, their links (similarity: the summed linkage weight of the subfunctions both
    /// variables read) and their best pairs, built in parallel.
    fn new(
        problem: &dyn GrayBoxProblem,
        bound: usize,
        keys: TieKeys,
        parallel_from: usize,
        stop: &StopCheck,
    ) -> Result<Self, Error> {
        let l = problem.variables();
        // Collected in place (an indexed collect), not through `Result`'s lists of pieces appended
        // afterwards, which copied the lists of 10^8 variables unchecked after a stop; made a
        // block at a time, checked between blocks and every 4096 variables within one: the
        // lists' headers alone first touch 2.4 GB for 10^8 variables, which a parallel collect
        // over all of them did unchecked.
        let links: Vec<Vec<Link>> = stop.par_filled_every(l, ITEMS_PER_CHECK, |v| {
            let mut list: Vec<Link> = Vec::new();
            for &s in problem.functions().dependent(v) {
                let sum = problem.linkage_weight(s as usize);
                if sum != 0 {
                    list.extend(
                        problem
                            .functions()
                            .variables_of(s as usize)
                            .iter()
                            .filter(|&&u| u as usize != v)
                            .map(|&rep| Link { sum, rep, size: 1 }),
                    );
                }
            }
            sum_duplicates(&mut list);
            list
        })?;
        // One pass over the lists, a block at a time.
        let best =
            match stop.par_filled(l, |v| links[v].iter().map(|e| keys.pair(v as u32, 1, e)).max().unwrap_or(NO_PAIR)) {
                Ok(best) => best,
                Err(reason) => {
                    crate::stop::drop_aside(links);
                    return Err(reason.into());
                }
            };
        let singletons = || {
            stop.check()?;
            Ok::<_, StopReason>((stop.filled(l, |_| 1u32)?, stop.filled(l, |v| v as u32)?, stop.filled(l, |_| true)?))
        };
        let (size, node, alive) = match singletons() {
            Ok(made) => made,
            Err(reason) => {
                crate::stop::drop_aside((links, best));
                return Err(reason.into());
            }
        };
        let link_entries = links.par_iter().map(|list| list.len() as u128).sum();
        Ok(MutualPairs {
            l,
            bound,
            keys,
            parallel_from,
            links,
            best,
            size,
            node,
            alive,
            merges: Vec::with_capacity(l - 1),
            link_entries,
            set_entries: l as u128,
        })
    }

    /// Merges linked clusters while a linked pair is left, in rounds: every pair that is the best
    /// pair of both its clusters merges. Greedy UPGMA merges such a pair too, whatever it merges
    /// first: average linkage is reducible (a merged cluster is never more similar to a third than
    /// the more similar of its parts, nor, at equal similarity, ahead of it by key), so no later
    /// pair can overtake it. Hence the rounds give greedy UPGMA's tree, whatever the thread count;
    /// `linkage_tree` lists the merges in greedy's order. A round touches only the merged
    /// clusters and their neighbours, and only they can form a new mutual pair in the next one.
    fn merge_linked(&mut self, budget: u128, stop: &StopCheck) -> Result<(), Halt> {
        let l = self.l;
        let mut mate = stop.filled(l, |_| NONE)?;
        let mut active: Vec<u32> = stop.filled(l, |v| v as u32)?;
        let fixed = l as u128 * PER_VARIABLE_BYTES;
        loop {
            stop.check()?;
            let best = &self.best;
            let found: Vec<Option<(u32, u32)>> = self.map(&active, stop, |c| {
                let pair = best[c as usize];
                let mutual = pair.sum != 0 && best[pair.partner(c) as usize] == pair;
                mutual.then_some((pair.a, pair.b))
            })?;
            // Each pair once, though both its clusters may have found it: a cluster is in one
            // mutual pair at most, so a pair whose mates are set is listed already. In the
            // active clusters' order, unsorted: the tree does not depend on the order of a
            // round's merges (`linkage_tree` puts them in greedy's order).
            let mut pairs: Vec<(u32, u32)> = Vec::new();
            for (k, &pair) in found.iter().enumerate() {
                stop.every(k, crate::stop::WORK_PER_CHECK)?;
                if let Some((a, b)) = pair
                    && mate[a as usize] == NONE
                {
                    mate[a as usize] = b;
                    mate[b as usize] = a;
                    pairs.push((a, b));
                }
            }
            drop(found);
            if pairs.is_empty() {
                return Ok(());
            }
            let touched = self.touched(&pairs, &mut mate, stop)?;
            let merged: Vec<u32> = pairs.iter().map(|&(a, _)| a).collect();
            let relisted_merged = self.map(&merged, stop, |a| self.relist(a, &mate))?;
            stop.check()?;
            self.apply(&pairs, relisted_merged, &touched, &mut mate, stop)?;
            let held = fixed + 4 * self.set_entries + LINK_BYTES * self.link_entries;
            if held > budget {
                return Err(Halt::TooLarge(held));
            }
            active = merged;
            active.extend_from_slice(&touched);
        }
    }

    /// The clusters linked to a cluster of `pairs` that do not merge themselves (their `mate`
    /// is [`NONE`]), each once: gathered a few thousand pairs at a time on rayon's pool, then
    /// kept where first found, marked in `mate` meanwhile (a checked sort made the rounds of a
    /// 10^7-vertex torus about a sixth slower), checking `stop` between pieces. Their order does
    /// not matter: each touched cluster is relisted on its own.
    fn touched(&self, pairs: &[(u32, u32)], mate: &mut [u32], stop: &StopCheck) -> Result<Vec<u32>, StopReason> {
        let links = &self.links;
        let seen = &*mate;
        let found: Vec<Vec<u32>> = pairs
            .par_chunks(ITEMS_PER_CHECK)
            .map(|piece| {
                stop.check()?;
                Ok(piece
                    .iter()
                    .flat_map(|&(a, b)| links[a as usize].iter().chain(&links[b as usize]))
                    .map(|e| e.rep)
                    .filter(|&u| seen[u as usize] == NONE)
                    .collect())
            })
            .collect::<Result<_, StopReason>>()?;
        let mut touched = Vec::new();
        for (k, u) in found.into_iter().flatten().enumerate() {
            stop.every(k, crate::stop::WORK_PER_CHECK)?;
            if mate[u as usize] == NONE {
                mate[u as usize] = TOUCHED;
                touched.push(u);
            }
        }
        for (k, &u) in touched.iter().enumerate() {
            stop.every(k, crate::stop::WORK_PER_CHECK)?;
            mate[u as usize] = NONE;
        }
        Ok(touched)
    }

    /// Applies a round: every touched cluster updates its list and best pair in place
    /// ([`MutualPairs::relist_touched`]), every pair (a, b) merges into a with the list and best
    /// pair relisted for it, and the mates are cleared. In parallel: each cluster is written by
    /// one task alone (the pairs are disjoint, the touched clusters merge with none), so that the
    /// old lists' frees and the scattered writes of a round (a fifth to a third of a 10^6-vertex
    /// torus's tree when sequential) overlap. Checks `stop` every few thousand clusters of each
    /// loop (a round of 10^7 merges took 1.9 s unchecked). A stop leaves the round half applied,
    /// which is harmless: `linkage_tree` then frees the state unread, and the run, still in its
    /// set-up, has no solution to keep.
    fn apply(
        &mut self,
        pairs: &[(u32, u32)],
        merged: Vec<(Vec<Link>, Candidate)>,
        touched: &[u32],
        mate: &mut [u32],
        stop: &StopCheck,
    ) -> Result<(), StopReason> {
        let first = self.l + self.merges.len();
        self.merges.reserve(pairs.len());
        let (keys, bound) = (self.keys, self.bound);
        let links = Scatter::new(&mut self.links);
        let best = Scatter::new(&mut self.best);
        let node = Scatter::new(&mut self.node);
        let size = Scatter::new(&mut self.size);
        let alive = Scatter::new(&mut self.alive);
        // (set entries added, link entries added, link entries removed)
        let sums = |x: (u128, u128, u128), y: (u128, u128, u128)| (x.0 + y.0, x.1 + y.1, x.2 + y.2);
        // The touched clusters first: they read the sizes of the merged ones before the merges.
        let from_touched = touched
            .par_iter()
            .enumerate()
            .map(|(i, &c)| {
                stop.every(i, ITEMS_PER_CHECK)?;
                let c = c as usize;
                // SAFETY: c is touched once (the list is deduplicated) and merges with none, so no
                // other task of this loop writes its list or pair; sizes are only read here.
                unsafe {
                    let mut list = links.replace(c, Vec::new());
                    let before = list.len() as u128;
                    let sizes = |u: u32| size.read(u as usize);
                    let pair = Self::relist_touched(
                        &mut list,
                        (c as u32, sizes(c as u32)),
                        best.read(c),
                        mate,
                        sizes,
                        (keys, bound),
                    );
                    best.replace(c, pair);
                    let after = list.len() as u128;
                    links.replace(c, list);
                    Ok((0, after, before))
                }
            })
            .try_reduce(|| (0, 0, 0), |x, y| Ok(sums(x, y)))?;
        let mates = Scatter::new(mate);
        // The round's merge records, written in place (a round of 10^7 merges would copy 400 MB).
        let records = &mut self.merges.spare_capacity_mut()[..pairs.len()];
        let from_pairs = pairs
            .par_iter()
            .zip(merged)
            .zip(records)
            .enumerate()
            .map(|(i, ((&(a, b), (list, pair)), record))| {
                stop.every(i, ITEMS_PER_CHECK)?;
                let (a, b) = (a as usize, b as usize);
                let added = list.len() as u128;
                // SAFETY: a and b belong to this pair alone: the pairs are disjoint, and no
                // touched cluster is a or b.
                unsafe {
                    let joined = size.read(a) + size.read(b);
                    size.replace(a, joined);
                    record.write(Merge {
                        pair: best.replace(a, pair),
                        left: node.replace(a, (first + i) as u32),
                        right: node.read(b),
                        node: (first + i) as u32,
                    });
                    alive.replace(b, false);
                    best.replace(b, NO_PAIR);
                    mates.replace(a, NONE);
                    mates.replace(b, NONE);
                    let removed = links.replace(b, Vec::new()).len() + links.replace(a, list).len();
                    Ok((joined as u128, added, removed as u128))
                }
            })
            .try_reduce(|| (0, 0, 0), |x, y| Ok(sums(x, y)))?;
        // SAFETY: the loop above wrote every one of these records (it was not stopped).
        unsafe { self.merges.set_len(self.merges.len() + pairs.len()) };
        let (set, added, removed) = sums(from_pairs, from_touched);
        self.set_entries += set;
        self.link_entries = self.link_entries + added - removed;
        Ok(())
    }

    /// Cluster c's list and best pair after this round's merges (`mate`): its mate's links joined
    /// to its own (the two sorted lists merged in one walk), then [`MutualPairs::relink`]. For a
    /// cluster that merges; the clusters it touches are relinked in their own buffers
    /// ([`MutualPairs::relist_touched`]). One allocation per relist: on a sparse random graph
    /// the relists are most of the tree's time, and their allocations, freed by other threads in
    /// `apply`, were a fifth of it.
    fn relist(&self, c: u32, mate: &[u32]) -> (Vec<Link>, Candidate) {
        let size_after = |u: u32| match mate[u as usize] {
            NONE => self.size[u as usize],
            m => self.size[u as usize] + self.size[m as usize],
        };
        let size = size_after(c);
        let own = &self.links[c as usize];
        let theirs: &[Link] = match mate[c as usize] {
            NONE => &[],
            m => &self.links[m as usize],
        };
        let mut list: Vec<Link> = Vec::with_capacity(own.len() + theirs.len());
        list.extend(merge_sorted(own, theirs));
        Self::relink(&mut list, (c, size), mate, |u| self.size[u as usize], self.bound, |_| ());
        let pair = list.iter().map(|e| self.keys.pair(c, size as usize, e)).max().unwrap_or(NO_PAIR);
        (list, pair)
    }

    /// [`MutualPairs::relist`] for a cluster c (named, of its size) that does not merge this
    /// round, with its best pair `best` before the round: the same list and pair, made in the
    /// list's own buffer, with no allocation. The best pair is looked for among all links only
    /// when c's best was with a merged cluster; otherwise the links that stay are unchanged and
    /// `best` is still theirs.
    fn relist_touched(
        list: &mut Vec<Link>,
        (c, size): (u32, u32),
        best: Candidate,
        mate: &[u32],
        sizes: impl Fn(u32) -> u32,
        (keys, bound): (TieKeys, usize),
    ) -> Candidate {
        let mut joined = best;
        let dropped = Self::relink(list, (c, size), mate, sizes, bound, |moved| {
            joined = moved.iter().map(|e| keys.pair(c, size as usize, e)).fold(best, Candidate::max)
        });
        let partner = best.partner(c);
        if dropped || mate.get(partner as usize).is_some_and(|&m| m != NONE) {
            list.iter().map(|e| keys.pair(c, size as usize, e)).max().unwrap_or(NO_PAIR)
        } else {
            joined
        }
    }

    /// Cluster c's links (`list`, sorted by cluster, its mate's included if it merges) as after
    /// this round's merges, in place: every linked cluster named and sized as after the round
    /// (`sizes` before it), the links to one cluster summed, c's links to its own mate gone, and
    /// the clusters that no longer fit with c (of `size` after the round) under `bound` dropped.
    /// The links to clusters that did not merge keep their order and are moved down in the
    /// buffer; only the few to merged clusters are renamed and sorted (in a buffer each thread
    /// keeps, shown to `joined`), then merged into the list from the back (the list only
    /// shrinks). Returns whether a link to a cluster that did not merge was dropped.
    fn relink(
        list: &mut Vec<Link>,
        (c, size): (u32, u32),
        mate: &[u32],
        sizes: impl Fn(u32) -> u32,
        bound: usize,
        joined: impl FnOnce(&[Link]),
    ) -> bool {
        thread_local! {
            static MOVED: std::cell::RefCell<Vec<Link>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let fits = |e: &Link| e.size as usize + size as usize <= bound;
        MOVED.with_borrow_mut(|moved| {
            moved.clear();
            let (mut kept, mut dropped) = (0, false);
            for i in 0..list.len() {
                let e = list[i];
                match mate[e.rep as usize] {
                    NONE if fits(&e) => {
                        list[kept] = e;
                        kept += 1;
                    }
                    NONE => dropped = true,
                    // c's link to its own mate, from either side, ends inside the merged cluster.
                    m if e.rep.min(m) == c => {}
                    m => moved.push(Link { sum: e.sum, rep: e.rep.min(m), size: sizes(e.rep) + sizes(m) }),
                }
            }
            list.truncate(kept);
            sum_duplicates(moved);
            moved.retain(fits);
            // A merged cluster is named by a variable of a merged pair: never one of the kept
            // links' clusters, so the merge from the back needs no summing.
            merge_into(list, moved);
            joined(moved);
            dropped
        })
    }

    /// `f` of every item, on rayon's pool when there are `parallel_from` items or more (a round
    /// late in the tree has a handful), checking `stop` every few thousand items. In place (an
    /// indexed collect): `Result`'s collect appends lists of pieces afterwards, which copied the
    /// 640 MB of a round of 10^7 relists unchecked.
    fn map<T: Send + Default + 'static>(
        &self,
        items: &[u32],
        stop: &StopCheck,
        f: impl Fn(u32) -> T + Sync + Send,
    ) -> Result<Vec<T>, StopReason> {
        if items.len() < self.parallel_from {
            items
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    stop.every(i, ITEMS_PER_CHECK)?;
                    Ok(f(x))
                })
                .collect()
        } else {
            stop.par_filled_every(items.len(), ITEMS_PER_CHECK, |i| f(items[i]))
        }
    }
}

/// A slice that several threads write at once, each at indices no other thread reads or writes
/// while it lives: the scattered updates of one round of [`MutualPairs`].
struct Scatter<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: `Scatter` hands out no reference; its `read` and `replace`, whose callers keep every
// index to one thread, move values of T between threads (hence T: Send).
unsafe impl<T: Send> Sync for Scatter<'_, T> {}

impl<'a, T> Scatter<'a, T> {
    fn new(slice: &'a mut [T]) -> Self {
        Scatter { ptr: slice.as_mut_ptr(), len: slice.len(), _slice: std::marker::PhantomData }
    }

    /// The value at `i`.
    ///
    /// # Safety
    ///
    /// While this `Scatter` lives, no other thread writes index `i`.
    unsafe fn read(&self, i: usize) -> T
    where
        T: Copy,
    {
        assert!(i < self.len, "index {i} of {}", self.len);
        // SAFETY: i is in bounds (checked), and no other thread writes it.
        unsafe { self.ptr.add(i).read() }
    }

    /// Puts `value` at `i` and returns what was there.
    ///
    /// # Safety
    ///
    /// While this `Scatter` lives, no other thread reads or writes index `i`.
    unsafe fn replace(&self, i: usize, value: T) -> T {
        assert!(i < self.len, "index {i} of {}", self.len);
        // SAFETY: i is in bounds (checked), and the caller keeps it to this thread.
        unsafe { std::ptr::replace(self.ptr.add(i), value) }
    }
}

/// The links of two lists sorted by cluster, in order, the links of both to one cluster made one
/// (their sums added).
fn merge_sorted<'a>(a: &'a [Link], b: &'a [Link]) -> impl Iterator<Item = Link> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let take_a = match (a.get(i), b.get(j)) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(x), Some(y)) if x.rep == y.rep => {
                i += 1;
                j += 1;
                return Some(Link { sum: x.sum + y.sum, ..*x });
            }
            (Some(x), Some(y)) => x.rep < y.rep,
        };
        if take_a {
            i += 1;
            Some(a[i - 1])
        } else {
            j += 1;
            Some(b[j - 1])
        }
    })
}

/// The list sorted by cluster, the links to one cluster made one (their sums added), in place.
fn sum_duplicates(list: &mut Vec<Link>) {
    list.sort_unstable_by_key(|e| e.rep);
    list.dedup_by(|b, a| {
        if a.rep == b.rep {
            a.sum += b.sum;
            true
        } else {
            false
        }
    });
}

/// Merges `extra` (sorted by cluster) into `list` (sorted by cluster, no cluster of `extra`'s),
/// in place: the list grows by `extra`'s length and is filled from the back.
fn merge_into(list: &mut Vec<Link>, extra: &[Link]) {
    if extra.is_empty() {
        return;
    }
    let mut i = list.len();
    let mut j = extra.len();
    let placeholder = extra[0];
    list.resize(i + j, placeholder);
    let mut k = list.len();
    while j > 0 {
        k -= 1;
        if i > 0 && list[i - 1].rep > extra[j - 1].rep {
            i -= 1;
            list[k] = list[i];
        } else {
            j -= 1;
            list[k] = extra[j];
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BinaryHeap;

    use super::super::Fos;
    use super::super::learned_tree::union_sorted;
    use super::super::tests::{check_tree, graph, random_graph};
    use super::*;
    use crate::problem::graph::Graph;
    use crate::problem::maxcut::MaxCut;

    /// How the reference builder breaks ties between pairs of equal similarity.
    #[derive(Clone, Copy, Debug)]
    enum Ties {
        /// The builder's rule: a key hashed from one draw of the seed and the two clusters'
        /// smallest variables.
        Keys,
        /// The rule before the parallel builder: a key drawn from the seed's stream when the pair
        /// is made (pairs in order of creation), the pair's cluster ids last.
        Drawn,
    }

    /// Greedy UPGMA with a heap of every linked pair, merging the best live pair one at a time:
    /// the reference that the builder must reproduce set for set.
    fn reference_flt(
        problem: &dyn GrayBoxProblem,
        max_set_size: Option<usize>,
        rng: &mut SplitMix64,
        ties: Ties,
    ) -> Fos {
        let l = problem.variables();
        let bound = max_set_size.unwrap_or(usize::MAX).max(1);
        let mut sets: Vec<Vec<u32>> = (0..l as u32).map(|i| vec![i]).collect();
        if l <= 1 || bound == 1 {
            return Fos::from_sets(sets);
        }
        let keys = match ties {
            Ties::Keys => Some(TieKeys(rng.next_u64())),
            Ties::Drawn => None,
        };
        // The pair of clusters x (of `size` variables) and y, in the heap with their ids.
        let pair = |rng: &mut SplitMix64, sets: &[Vec<u32>], sum: u64, size: usize, x: u32, y: u32| {
            let pairs = (size * sets[y as usize].len()) as u64;
            let c = match keys {
                Some(k) => {
                    let (a, b) =
                        (sets[x as usize][0].min(sets[y as usize][0]), sets[x as usize][0].max(sets[y as usize][0]));
                    Candidate { sum, pairs, key: k.key(a, b), a, b }
                }
                None => Candidate { sum, pairs, key: rng.next_u64(), a: x, b: y },
            };
            (c, x, y)
        };
        // Cluster c is sets[c]; alive[c] while it has not been merged.
        let mut alive: Vec<bool> = vec![true; l];
        // Neighbour lists, sorted by cluster id; may hold dead ids (filtered at the next merge).
        let mut links: Vec<Vec<(u32, u64)>> = Vec::with_capacity(2 * l);
        let mut heap: BinaryHeap<(Candidate, u32, u32)> = BinaryHeap::new();
        for v in 0..l {
            // The similarity of v and u: the summed linkage weight of the subfunctions both read.
            let mut list: Vec<(u32, u64)> = Vec::new();
            for &s in problem.dependent_subfunctions(v) {
                let w = problem.linkage_weight(s as usize);
                if w != 0 {
                    list.extend(
                        problem.subfunction_variables(s as usize).iter().filter(|&&u| u as usize != v).map(|&u| (u, w)),
                    );
                }
            }
            list.sort_unstable_by_key(|&(u, _)| u);
            list.dedup_by(|b, a| {
                if a.0 == b.0 {
                    a.1 += b.1;
                    true
                } else {
                    false
                }
            });
            for &(u, s) in &list {
                if (u as usize) > v {
                    heap.push(pair(rng, &sets, s, 1, v as u32, u));
                }
            }
            links.push(list);
        }
        let mut live = l;
        while let Some((_, a, b)) = heap.pop() {
            let (a, b) = (a as usize, b as usize);
            if !alive[a] || !alive[b] {
                continue;
            }
            let size = sets[a].len() + sets[b].len();
            if size > bound {
                // Clusters only grow: this pair (and every later cluster containing either) can
                // never merge under the bound.
                continue;
            }
            let id = sets.len() as u32;
            alive[a] = false;
            alive[b] = false;
            let members = union_sorted(&sets[a], &sets[b]);
            let la = std::mem::take(&mut links[a]);
            let lb = std::mem::take(&mut links[b]);
            let mut merged: Vec<(u32, u64)> = Vec::with_capacity(la.len() + lb.len());
            {
                let keep = |(u, _): &(u32, u64)| alive[*u as usize] && sets[*u as usize].len() + size <= bound;
                let (mut i, mut j) = (0, 0);
                while i < la.len() || j < lb.len() {
                    let next = if j == lb.len() || (i < la.len() && la[i].0 < lb[j].0) {
                        i += 1;
                        la[i - 1]
                    } else if i == la.len() || lb[j].0 < la[i].0 {
                        j += 1;
                        lb[j - 1]
                    } else {
                        i += 1;
                        j += 1;
                        (la[i - 1].0, la[i - 1].1 + lb[j - 1].1)
                    };
                    if keep(&next) {
                        merged.push(next);
                    }
                }
            }
            sets.push(members);
            for &(u, s) in &merged {
                // `id` is larger than every id so far: appending keeps u's list sorted.
                links[u as usize].push((id, s));
                heap.push(pair(rng, &sets, s, size, id, u));
            }
            links.push(merged);
            alive.push(true);
            live -= 1;
            if live == 1 {
                break;
            }
        }
        drop(heap);
        drop(links);
        if max_set_size.is_none() && live > 1 {
            // No edge-connected pair left: merge random pairs (UPGMA, similarity 0 everywhere,
            // random tie breaks) until one cluster remains.
            let mut rest: Vec<usize> = (0..sets.len()).filter(|&c| alive[c]).collect();
            while rest.len() > 1 {
                let i = rng.index(rest.len());
                let a = rest.swap_remove(i);
                let j = rng.index(rest.len());
                let b = rest.swap_remove(j);
                let members = union_sorted(&sets[a], &sets[b]);
                rest.push(sets.len());
                sets.push(members);
            }
        }
        // The root is the last merge, when there is one.
        if sets.len() > l && sets.last().is_some_and(|s| s.len() == l) {
            sets.pop();
        }
        Fos::from_sets(sets)
    }

    /// The builder makes greedy UPGMA's model set for set, in the same order, for the same seed:
    /// FLT and BFLT on random instances of every kind, with its rounds on the calling thread and
    /// (`parallel_from` 1) every round on rayon's pool.
    #[test]
    fn flt_equals_the_reference_builder_on_every_kind() {
        let mut rng = SplitMix64::new(41);
        let mut compared = 0;
        for trial in 0..12 {
            let size = 4 + rng.index(if trial < 8 { 40 } else { 400 });
            for p in crate::linkage::testing::instances(size, &mut rng) {
                for bound in [None, Some(2), Some(3 + rng.index(8)), Some(50)] {
                    let seed = rng.next_u64();
                    let expected = reference_flt(&*p, bound, &mut SplitMix64::new(seed), Ties::Keys);
                    let got =
                        Fos::fixed_linkage_tree(&*p, bound, &mut SplitMix64::new(seed), &StopCheck::never()).unwrap();
                    assert_eq!(
                        got,
                        expected,
                        "{} ({} variables), bound {bound:?}, seed {seed}",
                        p.name(),
                        p.variables()
                    );
                    let never = StopCheck::never();
                    let got = linkage_tree(&*p, bound, &mut SplitMix64::new(seed), u128::MAX, &never, 1).unwrap();
                    assert_eq!(got, expected, "{}, bound {bound:?}, every round in parallel", p.name());
                    compared += 1;
                }
            }
        }
        assert!(compared >= 400);
    }

    /// Where no two pairs tie, the tie keys decide nothing: the builder makes the same sets in the
    /// same order as the rule before it (keys drawn as pairs are made), on graphs and tables with
    /// large random weights, with and without a bound.
    #[test]
    fn flt_without_ties_is_the_model_of_drawn_keys() {
        let mut rng = SplitMix64::new(77);
        for trial in 0..40 {
            let l = 3 + rng.index(if trial < 30 { 60 } else { 600 });
            let big = |rng: &mut SplitMix64| 1 + (rng.next_u64() >> 24) as i64;
            let mut edges: Vec<(u32, u32, i64)> = (1..l as u32).map(|v| (rng.below(v), v, big(&mut rng))).collect();
            for _ in 0..rng.index(2 * l) {
                let (a, b) = (rng.below(l as u32), rng.below(l as u32));
                if a != b && !edges.iter().any(|&(x, y, _)| (x, y) == (a.min(b), a.max(b))) {
                    edges.push((a.min(b), a.max(b), big(&mut rng)));
                }
            }
            let p = graph(l, &edges);
            for bound in [None, Some(2 + rng.index(10))] {
                let seed = rng.next_u64();
                let drawn = reference_flt(&p, bound, &mut SplitMix64::new(seed), Ties::Drawn);
                let got = Fos::fixed_linkage_tree(&p, bound, &mut SplitMix64::new(seed), &StopCheck::never()).unwrap();
                assert_eq!(got, drawn, "l = {l}, bound {bound:?}");
            }
        }
    }

    #[test]
    fn flt_structure_on_connected_graphs() {
        let mut rng = SplitMix64::new(1);
        for trial in 0..30 {
            let l = 2 + rng.index(40);
            let p = random_graph(l, rng.index(3 * l), true, trial % 2 == 0, &mut rng);
            let fos = Fos::fixed_linkage_tree(&p, None, &mut rng, &StopCheck::never()).unwrap();
            assert_eq!(fos.len(), 2 * l - 2, "l = {l}");
            let tops = check_tree(&fos, l);
            // The two top-level clusters partition the variables (the root's children).
            assert_eq!(tops.len(), 2);
            assert_eq!(fos.set(tops[0]).len() + fos.set(tops[1]).len(), l);
        }
    }

    #[test]
    fn flt_is_deterministic_per_seed_and_ties_are_random() {
        // A cycle with equal weights: everything ties.
        let l = 16;
        let edges: Vec<(u32, u32, i64)> = (0..l as u32).map(|i| (i, (i + 1) % l as u32, 1)).collect();
        let p = graph(l, &edges);
        let a = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(7), &StopCheck::never()).unwrap();
        let b = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(7), &StopCheck::never()).unwrap();
        assert_eq!(a, b);
        let distinct: std::collections::HashSet<Vec<u32>> = (0..10)
            .map(|s| {
                Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(s), &StopCheck::never()).unwrap().set(l).to_vec()
            })
            .collect();
        assert!(distinct.len() > 1, "tie breaks do not depend on the seed");
    }

    #[test]
    fn flt_merges_the_heaviest_edge_first() {
        // Path 0-1-2-3-4 with |w| = 1, 5, 2, 9 (the heaviest negative).
        let p = graph(5, &[(0, 1, 1), (1, 2, -5), (2, 3, 2), (3, 4, -9)]);
        for seed in 0..5 {
            let fos = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(seed), &StopCheck::never()).unwrap();
            check_tree(&fos, 5);
            assert_eq!(fos.set(5), vec![3, 4]);
            // Then {1,2} (5) beats {0,1} (1) and {2,{3,4}} (2/2 = 1).
            assert_eq!(fos.set(6), vec![1, 2]);
            // Then {0} with {1,2}: 1/2; {1,2} with {3,4}: 2/4. A tie: either may come first.
            assert_eq!(fos.len(), 8);
        }
        // Average linkage, not single linkage: {0,1} joined by 4 and {2} joined to 1 by 6 but
        // to 0 by nothing: similarity 6/2 = 3 < 4 of {3,4}.
        let p = graph(5, &[(0, 1, 10), (1, 2, 6), (3, 4, 4)]);
        let fos = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(3), &StopCheck::never()).unwrap();
        assert_eq!(fos.set(5), vec![0, 1]);
        assert_eq!(fos.set(6), vec![3, 4]);
        assert_eq!(fos.set(7), vec![0, 1, 2]);
        assert_eq!(fos.len(), 8);
    }

    #[test]
    fn flt_on_disconnected_graphs_merges_everything_but_the_root() {
        // Two components {0..4} and {5..9}, plus isolated vertices 10 and 11.
        let mut edges = vec![];
        for i in 0..4 {
            edges.push((i, i + 1, 1 + i as i64));
            edges.push((5 + i, 6 + i, 2));
        }
        edges.push((0, 4, 3));
        let p = graph(12, &edges);
        for seed in 0..10 {
            let fos = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(seed), &StopCheck::never()).unwrap();
            assert_eq!(fos.len(), 2 * 12 - 2);
            check_tree(&fos, 12);
            assert!(fos.sets().any(|s| s == [0, 1, 2, 3, 4]));
            assert!(fos.sets().any(|s| s == [5, 6, 7, 8, 9]));
        }
        // No edges at all, and zero weights only: still a full tree.
        for p in [graph(6, &[]), graph(6, &[(0, 1, 0), (2, 3, 0)])] {
            let fos = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(5), &StopCheck::never()).unwrap();
            assert_eq!(fos.len(), 10);
            check_tree(&fos, 6);
        }
        // Random disconnected graphs.
        let mut rng = SplitMix64::new(11);
        for _ in 0..20 {
            let l = 2 + rng.index(30);
            let p = random_graph(l, rng.index(l), false, false, &mut rng);
            let fos = Fos::fixed_linkage_tree(&p, None, &mut rng, &StopCheck::never()).unwrap();
            assert_eq!(fos.len(), 2 * l - 2);
            check_tree(&fos, l);
        }
    }

    #[test]
    fn bflt_respects_the_bound_and_stops_only_when_no_merge_is_allowed() {
        let mut rng = SplitMix64::new(3);
        for trial in 0..40 {
            let l = 2 + rng.index(50);
            let k = 1 + rng.index(12);
            let p = random_graph(l, rng.index(2 * l), trial % 3 != 0, trial % 2 == 0, &mut rng);
            let fos = Fos::fixed_linkage_tree(&p, Some(k), &mut rng, &StopCheck::never()).unwrap();
            assert!(fos.largest_set() <= k, "bound {k} exceeded: {}", fos.largest_set());
            let tops = check_tree(&fos, l);
            // Maximality: no two top-level clusters joined by a nonzero edge fit together in k.
            let mut top_of = vec![usize::MAX; l];
            for &t in &tops {
                for &v in fos.set(t) {
                    top_of[v as usize] = t;
                }
            }
            assert!(top_of.iter().all(|&t| t != usize::MAX));
            for e in p.edges() {
                let (a, b) = (top_of[e.u as usize], top_of[e.v as usize]);
                if a != b && e.w != 0 && fos.set(a).len() + fos.set(b).len() < l {
                    assert!(
                        fos.set(a).len() + fos.set(b).len() > k,
                        "clusters {a} and {b} could still merge under bound {k}"
                    );
                }
            }
        }
        // bflt:1 is univariate; a path with bound 2 gives disjoint pairs only.
        let p = random_graph(20, 20, true, false, &mut rng);
        assert_eq!(Fos::fixed_linkage_tree(&p, Some(1), &mut rng, &StopCheck::never()).unwrap(), Fos::univariate(20));
        let edges: Vec<(u32, u32, i64)> = (0..9).map(|i| (i, i + 1, 1 + (i as i64 * 7) % 5)).collect();
        let p = graph(10, &edges);
        let fos = Fos::fixed_linkage_tree(&p, Some(2), &mut rng, &StopCheck::never()).unwrap();
        assert!(fos.sets_in(10..fos.len()).all(|s| s.len() == 2));
        // A bound >= l gives the full tree on a connected graph, root left out.
        let p = random_graph(15, 10, true, false, &mut rng);
        let fos = Fos::fixed_linkage_tree(&p, Some(100), &mut rng, &StopCheck::never()).unwrap();
        assert_eq!(fos.len(), 28);
        // ...but no similarity-0 merges on a disconnected one.
        let p = graph(6, &[(0, 1, 1), (1, 2, 1), (3, 4, 2)]);
        let fos = Fos::fixed_linkage_tree(&p, Some(100), &mut rng, &StopCheck::never()).unwrap();
        assert_eq!(fos.len(), 6 + 3);
        assert_eq!(fos.largest_set(), 3);
    }

    #[test]
    fn g81_flt_if_present() {
        let variable = std::env::var_os(crate::problem::data::INSTANCES_VARIABLE);
        let Some(path) = crate::problem::data::data_dir(None, variable.as_deref())
            .ok()
            .map(|d| d.join("gset").join("G81.txt"))
            .filter(|p| p.exists())
        else {
            println!("SKIPPED: G81 not in the instance data directory");
            return;
        };
        let p = MaxCut::new(Graph::read(&path).unwrap()).unwrap();
        let fos = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(1), &StopCheck::never()).unwrap();
        assert_eq!(fos.len(), 2 * 20000 - 2);
        fos.check(20000).unwrap();
    }

    /// The merges' order is the one an unchecked sort gives (no two merges tie), and a flag set
    /// inside the sort of 4 x 10^6 merges stops it, its latency printed: the sort of 10^7 merges
    /// took a second unchecked before issue 57's last pieces.
    #[test]
    fn greedy_order_is_any_sorts_and_stops_inside() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering as Atomic};
        use std::time::{Duration, Instant};
        let keys = TieKeys(7);
        let mut rng = SplitMix64::new(5);
        // Similarities of few values (many ties, broken by the keys), every pair its own.
        let merges: Vec<Merge> = (0..4_000_000u32)
            .map(|k| {
                let (a, b) = (k, k + 1 + rng.index(1000) as u32);
                let pair = Candidate {
                    sum: 1 + rng.index(4) as u64,
                    pairs: 1 + rng.index(4) as u64,
                    key: keys.key(a, b),
                    a,
                    b,
                };
                Merge { pair, left: a, right: b, node: k }
            })
            .collect();
        let mut unchecked = merges.clone();
        unchecked.par_sort_unstable_by(|x, y| y.pair.cmp(&x.pair));
        let start = Instant::now();
        let ordered = greedy_order(merges.clone(), &StopCheck::never()).unwrap();
        let whole = start.elapsed();
        assert!(ordered.iter().map(|m| m.node).eq(unchecked.iter().map(|m| m.node)));
        let flag = Arc::new(AtomicBool::new(false));
        let stop = StopCheck::new(None, Some(flag.clone()));
        let (stopped, latency) = std::thread::scope(|scope| {
            let setter = scope.spawn(|| {
                std::thread::sleep(whole / 4);
                flag.store(true, Atomic::Relaxed);
                Instant::now()
            });
            let stopped = greedy_order(merges, &stop).map(|_| ());
            let returned = Instant::now();
            (stopped, returned.saturating_duration_since(setter.join().unwrap()))
        });
        println!("the order of 4 x 10^6 merges: {whole:?} whole, stopped {latency:?} after the flag");
        assert_eq!(stopped, Err(StopReason::Interrupted), "the flag came after the sort ({whole:?} whole)");
        assert!(latency <= Duration::from_millis(500), "stopped {latency:?} after the flag");
    }
}
