//! Colouring of the linkage-model interaction graph (LMIG).
//!
//! The LMIG has one vertex per linkage set of a FOS; sets i and j are adjacent (they *conflict*)
//! when they share a variable or an edge of the variable interaction graph (VIG, the Max-Cut graph;
//! every edge counts, whatever its weight) joins a variable of i to a variable of j. Sets of one
//! colour are then mutually independent: GOM can mix all of them at the same time, as each one's
//! partial evaluation reads no variable another one writes.
//!
//! Two greedy colourings: Welsh-Powell (the paper's; sets by decreasing LMIG degree, each takes the
//! smallest colour its coloured neighbours leave free) and DSatur (Brélaz; always the uncoloured
//! set with the most distinct colours among its neighbours next). [`check_groups_independent`]
//! re-checks groups against the FOS and the problem directly, without the LMIG.

use std::cmp::Reverse;
use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;

use crate::error::Error;
use crate::linkage::fos::Fos;
use crate::problem::GrayBoxProblem;

/// Which greedy colouring to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColoringMethod {
    WelshPowell,
    DSatur,
}

impl ColoringMethod {
    /// Colours `lmig` with this method.
    pub fn color(&self, lmig: &Lmig) -> Coloring {
        match self {
            ColoringMethod::WelshPowell => welsh_powell(lmig),
            ColoringMethod::DSatur => dsatur(lmig),
        }
    }
}

impl fmt::Display for ColoringMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ColoringMethod::WelshPowell => "welsh-powell",
            ColoringMethod::DSatur => "dsatur",
        })
    }
}

impl FromStr for ColoringMethod {
    type Err = Error;

    /// Parses `welsh-powell` or `dsatur` (ASCII case ignored).
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "welsh-powell" => Ok(ColoringMethod::WelshPowell),
            "dsatur" => Ok(ColoringMethod::DSatur),
            _ => Err(Error::usage(format!("unknown colouring method `{s}`: expected `welsh-powell` or `dsatur`"))),
        }
    }
}

/// The linkage-model interaction graph in CSR form: the neighbours of set i are
/// `adj[offsets[i]..offsets[i+1]]`, sorted ascending, without i itself and without duplicates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lmig {
    pub offsets: Vec<usize>,
    pub adj: Vec<u32>,
}

impl Lmig {
    /// Builds the LMIG of `fos` over the VIG of `problem` (variables that share a subfunction
    /// are joined).
    ///
    /// Through a variable-to-sets index, never by testing pairs of sets: for set i, the variables
    /// of i and all their VIG neighbours are collected once (a stamp array dedups them), then every
    /// set that holds one of them is a neighbour of i (a second stamp array dedups those). Rows
    /// are built in parallel (rayon) and sorted; the result does not depend on the thread count.
    /// Time: the sum over sets i of the sets-per-variable counts of i's closed neighbourhood.
    pub fn build(fos: &Fos, problem: &dyn GrayBoxProblem) -> Lmig {
        let l = problem.variables();
        let s = fos.len();
        assert!(s < u32::MAX as usize, "too many linkage sets");
        // Variable -> sets holding it, CSR, sets ascending.
        let mut count = vec![0usize; l + 1];
        for set in &fos.sets {
            for &v in set {
                assert!((v as usize) < l, "linkage set holds variable {v}, out of range 0..{l}");
                count[v as usize + 1] += 1;
            }
        }
        for v in 0..l {
            count[v + 1] += count[v];
        }
        let var_offsets = count;
        let mut fill = var_offsets.clone();
        let mut var_sets = vec![0u32; var_offsets[l]];
        for (i, set) in fos.sets.iter().enumerate() {
            for &v in set {
                var_sets[fill[v as usize]] = i as u32;
                fill[v as usize] += 1;
            }
        }
        drop(fill);

        let rows: Vec<Vec<u32>> = (0..s)
            .into_par_iter()
            .map_init(
                || (vec![0u32; l], vec![0u32; s], Vec::<u32>::new()),
                |(var_stamp, set_stamp, closure), i| {
                    let stamp = i as u32 + 1;
                    closure.clear();
                    for &v in &fos.sets[i] {
                        if var_stamp[v as usize] != stamp {
                            var_stamp[v as usize] = stamp;
                            closure.push(v);
                        }
                        for &e in problem.dependent_subfunctions(v as usize) {
                            for &u in problem.subfunction_variables(e as usize) {
                                if var_stamp[u as usize] != stamp {
                                    var_stamp[u as usize] = stamp;
                                    closure.push(u);
                                }
                            }
                        }
                    }
                    set_stamp[i] = stamp; // no self loop
                    let mut row = Vec::new();
                    for &x in closure.iter() {
                        for &j in &var_sets[var_offsets[x as usize]..var_offsets[x as usize + 1]] {
                            if set_stamp[j as usize] != stamp {
                                set_stamp[j as usize] = stamp;
                                row.push(j);
                            }
                        }
                    }
                    row.sort_unstable();
                    row
                },
            )
            .collect();
        let mut offsets = Vec::with_capacity(s + 1);
        offsets.push(0);
        let total: usize = rows.iter().map(Vec::len).sum();
        let mut adj = Vec::with_capacity(total);
        for row in rows {
            adj.extend_from_slice(&row);
            offsets.push(adj.len());
        }
        Lmig { offsets, adj }
    }

    /// Builds an LMIG from neighbour lists (made symmetric, sorted, deduplicated, self loops
    /// dropped): for tests and for other graphs.
    pub fn from_lists(lists: &[Vec<u32>]) -> Lmig {
        let n = lists.len();
        let mut sym: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, list) in lists.iter().enumerate() {
            for &j in list {
                assert!((j as usize) < n, "neighbour {j} out of range 0..{n}");
                if j as usize != i {
                    sym[i].push(j);
                    sym[j as usize].push(i as u32);
                }
            }
        }
        let mut offsets = vec![0];
        let mut adj = Vec::new();
        for mut row in sym {
            row.sort_unstable();
            row.dedup();
            adj.extend_from_slice(&row);
            offsets.push(adj.len());
        }
        Lmig { offsets, adj }
    }

    /// Number of vertices (linkage sets).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sets conflicting with set i, ascending.
    pub fn neighbours(&self, i: usize) -> &[u32] {
        &self.adj[self.offsets[i]..self.offsets[i + 1]]
    }

    pub fn degree(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// Number of undirected edges.
    pub fn num_edges(&self) -> usize {
        self.adj.len() / 2
    }

    pub fn max_degree(&self) -> usize {
        (0..self.len()).map(|i| self.degree(i)).max().unwrap_or(0)
    }
}

/// A colouring of the LMIG: `colors[i]` is the colour of set i, all below `num_colors`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coloring {
    pub colors: Vec<u32>,
    pub num_colors: usize,
}

/// Summary of a colouring: the number of colours and the sizes of the colour groups
/// (`median_group` is the lower median).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColoringStats {
    pub num_colors: usize,
    pub min_group: usize,
    pub median_group: usize,
    pub max_group: usize,
}

impl fmt::Display for ColoringStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} colours, group sizes min {} median {} max {}",
            self.num_colors, self.min_group, self.median_group, self.max_group
        )
    }
}

impl Coloring {
    /// The sets of each colour, ascending; one group per colour 0..num_colors.
    pub fn groups(&self) -> Vec<Vec<u32>> {
        let mut groups = vec![Vec::new(); self.num_colors];
        for (i, &c) in self.colors.iter().enumerate() {
            groups[c as usize].push(i as u32);
        }
        groups
    }

    /// Checks that the colouring covers the LMIG, every colour is below `num_colors`, and no two
    /// adjacent sets share a colour.
    pub fn validate(&self, lmig: &Lmig) -> Result<(), String> {
        if self.colors.len() != lmig.len() {
            return Err(format!("{} colours for {} linkage sets", self.colors.len(), lmig.len()));
        }
        for (i, &c) in self.colors.iter().enumerate() {
            if c as usize >= self.num_colors {
                return Err(format!("set {i} has colour {c}, out of range 0..{}", self.num_colors));
            }
            if let Some(&j) = lmig.neighbours(i).iter().find(|&&j| self.colors[j as usize] == c) {
                return Err(format!("conflicting sets {i} and {j} share colour {c}"));
            }
        }
        Ok(())
    }

    pub fn is_valid(&self, lmig: &Lmig) -> bool {
        self.validate(lmig).is_ok()
    }

    pub fn stats(&self) -> ColoringStats {
        let mut sizes = vec![0usize; self.num_colors];
        for &c in &self.colors {
            sizes[c as usize] += 1;
        }
        sizes.sort_unstable();
        ColoringStats {
            num_colors: self.num_colors,
            min_group: sizes.first().copied().unwrap_or(0),
            median_group: if sizes.is_empty() { 0 } else { sizes[(sizes.len() - 1) / 2] },
            max_group: sizes.last().copied().unwrap_or(0),
        }
    }
}

const UNCOLORED: u32 = u32::MAX;

/// Welsh-Powell: sets in order of decreasing LMIG degree (ties: lower index first), each given
/// the smallest colour no already-coloured neighbour has. O(edges + sets log sets).
pub fn welsh_powell(lmig: &Lmig) -> Coloring {
    let n = lmig.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&i| (Reverse(lmig.degree(i as usize)), i));
    let mut colors = vec![UNCOLORED; n];
    // forbidden[c] == i + 1: colour c is taken by a neighbour of set i.
    let mut forbidden = vec![0u32; lmig.max_degree() + 2];
    let mut num_colors = 0usize;
    for &i in &order {
        let stamp = i + 1;
        for &j in lmig.neighbours(i as usize) {
            let c = colors[j as usize];
            if c != UNCOLORED {
                forbidden[c as usize] = stamp;
            }
        }
        let c = forbidden.iter().position(|&f| f != stamp).expect("a free colour below degree + 1");
        colors[i as usize] = c as u32;
        num_colors = num_colors.max(c + 1);
    }
    Coloring { colors, num_colors }
}

/// DSatur (Brélaz 1979): repeatedly colour the uncoloured set whose neighbours already use the
/// most distinct colours (its saturation), ties by larger LMIG degree, then lower index, with the
/// smallest free colour. An indexed binary max-heap over the uncoloured sets (increase-key when a
/// saturation grows) holds the priorities; each set keeps a bitset of its neighbours' colours
/// (freed once it is coloured). O((sets + edges) log sets).
pub fn dsatur(lmig: &Lmig) -> Coloring {
    let n = lmig.len();
    // Static tie-break rank: larger degree first, then lower index; key = saturation << 32 |
    // (n - 1 - rank), so a larger key is the better choice.
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&i| (Reverse(lmig.degree(i as usize)), i));
    let mut key = vec![0u64; n];
    for (r, &i) in order.iter().enumerate() {
        key[i as usize] = (n - 1 - r) as u64;
    }
    // The heap starts as `order`, which is sorted by decreasing key: a valid max-heap.
    let mut heap = IndexedMaxHeap { pos: vec![0; n], heap: order, key };
    for (p, &i) in heap.heap.iter().enumerate() {
        heap.pos[i as usize] = p as u32;
    }
    let mut colors = vec![UNCOLORED; n];
    let mut seen: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut num_colors = 0usize;
    while let Some(i) = heap.pop() {
        let i = i as usize;
        let bits = std::mem::take(&mut seen[i]);
        let c = match bits.iter().position(|&w| w != u64::MAX) {
            Some(k) => 64 * k + (!bits[k]).trailing_zeros() as usize,
            None => 64 * bits.len(),
        };
        colors[i] = c as u32;
        num_colors = num_colors.max(c + 1);
        let (word, bit) = (c / 64, 1u64 << (c % 64));
        for &j in lmig.neighbours(i) {
            let j = j as usize;
            if colors[j] != UNCOLORED {
                continue;
            }
            let s = &mut seen[j];
            if s.len() <= word {
                s.resize(word + 1, 0);
            }
            if s[word] & bit == 0 {
                s[word] |= bit;
                heap.increase(j, 1 << 32);
            }
        }
    }
    Coloring { colors, num_colors }
}

/// A binary max-heap of items 0..n with keys, positions tracked for increase-key.
struct IndexedMaxHeap {
    heap: Vec<u32>,
    pos: Vec<u32>,
    key: Vec<u64>,
}

impl IndexedMaxHeap {
    fn pop(&mut self) -> Option<u32> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().unwrap();
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.pos[last as usize] = 0;
            self.sift_down(0);
        }
        Some(top)
    }

    fn increase(&mut self, item: usize, by: u64) {
        self.key[item] += by;
        self.sift_up(self.pos[item] as usize);
    }

    fn sift_up(&mut self, mut p: usize) {
        let item = self.heap[p];
        let k = self.key[item as usize];
        while p > 0 {
            let parent = (p - 1) / 2;
            let q = self.heap[parent];
            if self.key[q as usize] >= k {
                break;
            }
            self.heap[p] = q;
            self.pos[q as usize] = p as u32;
            p = parent;
        }
        self.heap[p] = item;
        self.pos[item as usize] = p as u32;
    }

    fn sift_down(&mut self, mut p: usize) {
        let n = self.heap.len();
        let item = self.heap[p];
        let k = self.key[item as usize];
        loop {
            let mut child = 2 * p + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.key[self.heap[child + 1] as usize] > self.key[self.heap[child] as usize] {
                child += 1;
            }
            let c = self.heap[child];
            if self.key[c as usize] <= k {
                break;
            }
            self.heap[p] = c;
            self.pos[c as usize] = p as u32;
            p = child;
        }
        self.heap[p] = item;
        self.pos[item as usize] = p as u32;
    }
}

/// The variables of `problem` in colour groups such that no subfunction reads two variables of
/// one group: the order of colour-grouped local search, whose flips within a group are then
/// exact together. This is the colouring of the univariate linkage model's interaction graph
/// (set {v} conflicts with {u} exactly when a subfunction reads both), by `method`.
pub fn variable_groups(problem: &dyn GrayBoxProblem, method: ColoringMethod) -> Vec<Vec<u32>> {
    let univariate = Fos::univariate(problem.variables());
    method.color(&Lmig::build(&univariate, problem)).groups()
}

/// Checks groups of linkage sets against the FOS and the problem, without an LMIG: within each
/// group, no variable belongs to two sets and no subfunction reads variables of two different
/// sets.
/// Also refuses set indices out of range and a set listed twice (in one group or in two).
pub fn check_groups_independent(groups: &[Vec<u32>], fos: &Fos, problem: &dyn GrayBoxProblem) -> Result<(), String> {
    let l = problem.variables();
    // owner_group[v] = g + 1 and owner_set[v] = s: variable v belongs to set s of group g.
    let mut owner_group = vec![0u32; l];
    let mut owner_set = vec![0u32; l];
    let mut listed = vec![false; fos.len()];
    for (g, group) in groups.iter().enumerate() {
        let gs = g as u32 + 1;
        for &s in group {
            let set = fos.sets.get(s as usize).ok_or_else(|| format!("group {g}: set {s} does not exist"))?;
            if std::mem::replace(&mut listed[s as usize], true) {
                return Err(format!("group {g}: set {s} is listed twice"));
            }
            for &v in set {
                let v = v as usize;
                if v >= l {
                    return Err(format!("set {s} holds variable {v}, out of range 0..{l}"));
                }
                if owner_group[v] == gs && owner_set[v] != s {
                    return Err(format!("group {g}: sets {} and {s} share variable {v}", owner_set[v]));
                }
                owner_group[v] = gs;
                owner_set[v] = s;
            }
        }
        for &s in group {
            for &v in &fos.sets[s as usize] {
                for &e in problem.dependent_subfunctions(v as usize) {
                    for &u in problem.subfunction_variables(e as usize) {
                        let u = u as usize;
                        if owner_group[u] == gs && owner_set[u] != s {
                            return Err(format!(
                                "group {g}: sets {s} and {} both meet subfunction {e} (variables {v} and {u})",
                                owner_set[u]
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stop::StopCheck;
    use crate::problem::graph::{Edge, Graph};
    use crate::problem::maxcut::MaxCut;
    use pgomea_device::rng::SplitMix64;

    fn graph(l: usize, edges: &[(u32, u32)]) -> MaxCut {
        MaxCut::new(Graph::new("test", l, edges.iter().map(|&(u, v)| Edge { u, v, w: 1 }).collect())).unwrap()
    }

    fn random_graph(l: usize, edges: usize, rng: &mut SplitMix64) -> MaxCut {
        let mut seen = std::collections::HashSet::new();
        let mut list = Vec::new();
        for _ in 0..edges {
            let (a, b) = (rng.below(l as u32), rng.below(l as u32));
            if a != b && seen.insert((a.min(b), a.max(b))) {
                let w = rng.below(7) as i64 - 3; // zero weights included: they still count
                list.push(Edge { u: a, v: b, w });
            }
        }
        MaxCut::new(Graph::new("random", l, list)).unwrap()
    }

    fn random_fos(l: usize, rng: &mut SplitMix64) -> Fos {
        let count = 1 + rng.index(3 * l);
        let sets = (0..count)
            .map(|_| {
                let size = 1 + rng.index(l.min(6));
                let mut s: Vec<u32> = (0..size).map(|_| rng.below(l as u32)).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        Fos { sets }
    }

    /// All pairs, straight from the definition.
    fn brute_force_lmig(fos: &Fos, p: &MaxCut) -> Lmig {
        let n = fos.len();
        let conflict = |a: &[u32], b: &[u32]| {
            a.iter().any(|x| b.contains(x))
                || p.graph
                    .edges
                    .iter()
                    .any(|e| (a.contains(&e.u) && b.contains(&e.v)) || (a.contains(&e.v) && b.contains(&e.u)))
        };
        let mut offsets = vec![0];
        let mut adj = Vec::new();
        for i in 0..n {
            for j in 0..n {
                if i != j && conflict(&fos.sets[i], &fos.sets[j]) {
                    adj.push(j as u32);
                }
            }
            offsets.push(adj.len());
        }
        Lmig { offsets, adj }
    }

    fn foses(l: usize, p: &MaxCut, rng: &mut SplitMix64) -> Vec<Fos> {
        vec![
            Fos::univariate(l),
            Fos::fixed_linkage_tree(p, None, rng, &StopCheck::never()).unwrap(),
            Fos::fixed_linkage_tree(p, Some(1 + rng.index(6)), rng, &StopCheck::never()).unwrap(),
            random_fos(l, rng),
        ]
    }

    #[test]
    fn lmig_equals_brute_force() {
        let mut rng = SplitMix64::new(17);
        for _ in 0..40 {
            let l = 1 + rng.index(30);
            let p = random_graph(l, rng.index(3 * l), &mut rng);
            for fos in foses(l, &p, &mut rng) {
                let lmig = Lmig::build(&fos, &p);
                assert_eq!(lmig, brute_force_lmig(&fos, &p), "l = {l}, fos = {:?}", fos.sets);
                for i in 0..lmig.len() {
                    assert!(lmig.neighbours(i).windows(2).all(|w| w[0] < w[1]));
                    assert!(!lmig.neighbours(i).contains(&(i as u32)));
                }
                assert_eq!(lmig.adj.len() % 2, 0);
            }
        }
    }

    /// Every colour below c appears among the neighbours of a set of colour c (both methods take
    /// the smallest free colour), and for Welsh-Powell among the neighbours coloured before it.
    fn assert_greedy(coloring: &Coloring, lmig: &Lmig, wp: bool) {
        let n = lmig.len();
        let mut rank = vec![0usize; n];
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (Reverse(lmig.degree(i)), i));
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        for i in 0..n {
            let c = coloring.colors[i];
            for lower in 0..c {
                assert!(
                    lmig.neighbours(i)
                        .iter()
                        .any(|&j| coloring.colors[j as usize] == lower && (!wp || rank[j as usize] < rank[i])),
                    "set {i} has colour {c} but colour {lower} was free"
                );
            }
        }
        let used: std::collections::HashSet<u32> = coloring.colors.iter().copied().collect();
        assert_eq!(used.len(), coloring.num_colors, "unused colours");
    }

    #[test]
    fn colourings_are_valid() {
        let mut rng = SplitMix64::new(5);
        for _ in 0..40 {
            let l = 1 + rng.index(60);
            let p = random_graph(l, rng.index(4 * l), &mut rng);
            for fos in foses(l, &p, &mut rng) {
                let lmig = Lmig::build(&fos, &p);
                for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur] {
                    let coloring = method.color(&lmig);
                    coloring.validate(&lmig).unwrap();
                    assert!(coloring.is_valid(&lmig));
                    let groups = coloring.groups();
                    check_groups_independent(&groups, &fos, &p).unwrap();
                    // The groups partition the sets, ascending within each group.
                    let mut all: Vec<u32> = groups.iter().flatten().copied().collect();
                    assert!(groups.iter().all(|g| !g.is_empty() && g.windows(2).all(|w| w[0] < w[1])));
                    all.sort_unstable();
                    assert_eq!(all, (0..fos.len() as u32).collect::<Vec<_>>());
                    assert_greedy(&coloring, &lmig, method == ColoringMethod::WelshPowell);
                    assert!(coloring.num_colors <= lmig.max_degree() + 1);
                }
            }
        }
    }

    #[test]
    fn validators_reject_bad_colourings() {
        // Path 0-1-2-3 and sets {0}, {1}, {2,3}, {0,3}.
        let p = graph(4, &[(0, 1), (1, 2), (2, 3)]);
        let fos = Fos { sets: vec![vec![0], vec![1], vec![2, 3], vec![0, 3]] };
        let lmig = Lmig::build(&fos, &p);
        assert_eq!(lmig.neighbours(0), &[1, 3]);
        assert_eq!(lmig.neighbours(2), &[1, 3]);
        let bad = Coloring { colors: vec![0, 1, 0, 0], num_colors: 2 };
        assert!(!bad.is_valid(&lmig));
        assert!(bad.validate(&lmig).unwrap_err().contains("share colour"));
        // Sharing a variable: sets 0 and 3.
        let e = check_groups_independent(&[vec![0, 3], vec![1], vec![2]], &fos, &p).unwrap_err();
        assert!(e.contains("share variable 0"), "{e}");
        // Joined by an edge (a subfunction reads both): sets 0 and 1.
        let e = check_groups_independent(&[vec![0, 1], vec![2], vec![3]], &fos, &p).unwrap_err();
        assert!(e.contains("both meet subfunction"), "{e}");
        // Listed twice / out of range.
        assert!(check_groups_independent(&[vec![0, 2], vec![2]], &fos, &p).is_err());
        assert!(check_groups_independent(&[vec![7]], &fos, &p).is_err());
        // Good: {0,2} and {1,3} would be fine for sets 0 and 2 (no edge 0-2 or 0-3), but 1 and 3
        // conflict (edge 0-1).
        check_groups_independent(&[vec![0, 2], vec![1], vec![3]], &fos, &p).unwrap();
        let good = Coloring { colors: vec![0, 1, 0, 2], num_colors: 3 };
        good.validate(&lmig).unwrap();
        assert!(Coloring { colors: vec![0, 1, 0], num_colors: 3 }.validate(&lmig).is_err());
        assert!(Coloring { colors: vec![0, 1, 0, 3], num_colors: 3 }.validate(&lmig).is_err());
    }

    #[test]
    fn known_chromatic_numbers() {
        let uni = |l: usize, edges: &[(u32, u32)]| Lmig::build(&Fos::univariate(l), &graph(l, edges));
        // Even cycle, grid, tree: bipartite, DSatur is exact there.
        let cycle = |l: u32| (0..l).map(|i| (i, (i + 1) % l)).collect::<Vec<_>>();
        let mut grid = Vec::new();
        for r in 0..6u32 {
            for c in 0..7u32 {
                if c + 1 < 7 {
                    grid.push((r * 7 + c, r * 7 + c + 1));
                }
                if r + 1 < 6 {
                    grid.push((r * 7 + c, (r + 1) * 7 + c));
                }
            }
        }
        assert_eq!(dsatur(&uni(10, &cycle(10))).num_colors, 2);
        assert_eq!(dsatur(&uni(42, &grid)).num_colors, 2);
        assert_eq!(dsatur(&uni(9, &cycle(9))).num_colors, 3);
        assert_eq!(welsh_powell(&uni(9, &cycle(9))).num_colors, 3);
        let complete: Vec<(u32, u32)> = (0..7).flat_map(|i| (i + 1..7).map(move |j| (i, j))).collect();
        assert_eq!(dsatur(&uni(7, &complete)).num_colors, 7);
        assert_eq!(welsh_powell(&uni(7, &complete)).num_colors, 7);
        assert_eq!(dsatur(&uni(5, &[])).num_colors, 1);
        assert_eq!(welsh_powell(&uni(5, &[])).num_colors, 1);
        assert_eq!(dsatur(&Lmig::from_lists(&[])).num_colors, 0);
        // Crown graph, u_i = 2i, v_i = 2i + 1, u_i ~ v_j for i != j: all degrees equal, so
        // Welsh-Powell colours in index order and needs n colours; DSatur needs 2.
        let n = 6u32;
        let crown: Vec<(u32, u32)> =
            (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (2 * i, 2 * j + 1))).collect();
        let lmig = uni(2 * n as usize, &crown);
        assert_eq!(welsh_powell(&lmig).num_colors, n as usize);
        assert_eq!(dsatur(&lmig).num_colors, 2);
        // Welsh-Powell takes the larger degree first: a star's centre gets colour 0.
        let star = uni(6, &[(5, 0), (5, 1), (5, 2), (5, 3), (5, 4)]);
        let wp = welsh_powell(&star);
        assert_eq!(wp.colors, vec![1, 1, 1, 1, 1, 0]);
        assert_eq!(dsatur(&star).colors, vec![1, 1, 1, 1, 1, 0]);
    }

    #[test]
    fn stats_and_groups() {
        let c = Coloring { colors: vec![0, 1, 0, 2, 0, 1], num_colors: 3 };
        assert_eq!(c.groups(), vec![vec![0, 2, 4], vec![1, 5], vec![3]]);
        assert_eq!(c.stats(), ColoringStats { num_colors: 3, min_group: 1, median_group: 2, max_group: 3 });
        let c = Coloring { colors: vec![0, 1, 0, 1, 2, 3, 3, 3], num_colors: 4 };
        assert_eq!(c.stats().median_group, 2);
        assert_eq!(Coloring { colors: vec![], num_colors: 0 }.stats().max_group, 0);
    }

    #[test]
    fn method_parse_and_display() {
        for (s, m) in [("welsh-powell", ColoringMethod::WelshPowell), ("dsatur", ColoringMethod::DSatur)] {
            assert_eq!(s.parse::<ColoringMethod>().unwrap(), m);
            assert_eq!(m.to_string(), s);
        }
        assert_eq!("DSatur".parse::<ColoringMethod>().unwrap(), ColoringMethod::DSatur);
        assert!("greedy".parse::<ColoringMethod>().unwrap_err().to_string().contains("welsh-powell"));
    }

    #[test]
    fn from_lists_symmetrises() {
        let g = Lmig::from_lists(&[vec![1, 1, 0], vec![], vec![0]]);
        assert_eq!(g.neighbours(0), &[1, 2]);
        assert_eq!(g.neighbours(1), &[0]);
        assert_eq!(g.neighbours(2), &[0]);
        assert_eq!(g.num_edges(), 2);
    }
}
