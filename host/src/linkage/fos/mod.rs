//! Linkage models (families of subsets, FOS).
//!
//! A FOS is a list of linkage sets, each a sorted list of variable indices; GOM mixes a solution
//! with a donor over one set at a time. The models:
//!
//! - **univariate**: the l singletons {i}.
//! - **fixed linkage tree (FLT)**: UPGMA (average linkage) over the problem's variable interaction
//!   graph, where the similarity of two variables is the summed linkage weight of the
//!   subfunctions that read both (the problem's `linkage_weight`: |w_ij| for an edge of Max-Cut,
//!   the range of a table's values; 0 when no subfunction reads both), and the similarity of two
//!   clusters A, B is the average pairwise similarity, (sum of similarities between A and B) /
//!   (|A||B|). Built sparsely: only clusters joined by a nonzero similarity are candidates.
//!   When none remains (a disconnected graph, or only zero weights left), the remaining clusters are
//!   merged as UPGMA does when every similarity is 0 and ties are broken at random: a uniformly
//!   random pair at a time, until one cluster remains.
//! - **bounded FLT (BFLT k)**: the same, never creating a set of more than k variables; it stops
//!   when no allowed merge of edge-connected clusters remains (no similarity-0 merges at all).
//! - **learned linkage tree (LT)**: UPGMA over the mutual information of every pair of variables
//!   in a population (dense, O(l^2) memory), rebuilt every generation by serial GOMEA.
//!
//! The trees list the l singletons first (set i is {i}), then one set per merge in merge order
//! (decreasing similarity); the root (the set of all variables) is left out, as in the classic
//! linkage tree, so a tree over a connected graph has 2l - 2 sets (l = 1: the one singleton).
//! Every random choice (tie breaks, the similarity-0 merges) comes from the caller's seeded
//! [`SplitMix64`], so a seed fixes the model, whatever the number of threads that builds it.
//!
//! This module holds the model ([`Fos`], [`LinkageModel`]); the trees are built in its parts
//! `fixed_tree` (FLT and BFLT: sparse UPGMA over the linkage weights) and `learned_tree` (LT:
//! UPGMA over the mutual information), which return the linkage sets.

use std::fmt;
use std::str::FromStr;

use pgomea_device::rng::SplitMix64;

use crate::error::Error;
use crate::problem::GrayBoxProblem;
use crate::stop::StopCheck;

mod fixed_tree;
mod learned_tree;

/// A family of subsets of the variables: the linkage sets GOM mixes. Each set is sorted ascending
/// and holds distinct variables. The sets lie one after another in one array (not one allocation
/// per set), so that the univariate model of a header announcing 10^8 variables is built, and
/// freed when a stop comes, in a fraction of a second.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fos {
    /// Set i is `vars[offsets[i]..offsets[i + 1]]`; `None` exactly when every set holds one
    /// variable (set i is `vars[i..i + 1]`), which halves the univariate model's memory.
    offsets: Option<Vec<usize>>,
    vars: Vec<u32>,
}

/// Which linkage model to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkageModel {
    /// The l singletons.
    Univariate,
    /// Fixed linkage tree from the edge weights.
    Flt,
    /// Fixed linkage tree with no set larger than the bound (>= 1).
    Bflt(usize),
    /// Linkage tree learned from the population (mutual information) every generation.
    Lt,
}

impl LinkageModel {
    /// True for the model that is rebuilt from the population every generation.
    pub fn is_learned(&self) -> bool {
        matches!(self, LinkageModel::Lt)
    }
}

impl fmt::Display for LinkageModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkageModel::Univariate => write!(f, "univariate"),
            LinkageModel::Flt => write!(f, "flt"),
            LinkageModel::Bflt(k) => write!(f, "bflt:{k}"),
            LinkageModel::Lt => write!(f, "lt"),
        }
    }
}

impl FromStr for LinkageModel {
    type Err = Error;

    /// Parses `univariate`, `flt`, `bflt:K` (K >= 1) or `lt` (ASCII case ignored).
    fn from_str(s: &str) -> Result<Self, Error> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "univariate" => return Ok(LinkageModel::Univariate),
            "flt" => return Ok(LinkageModel::Flt),
            "lt" => return Ok(LinkageModel::Lt),
            "bflt" => {
                return Err(Error::usage(
                    "linkage model `bflt` needs a bound: write `bflt:K` with K >= 1 the largest set size, e.g. `bflt:10`",
                ));
            }
            _ => {}
        }
        if let Some(k) = t.strip_prefix("bflt:") {
            return match k.trim().parse::<usize>() {
                Ok(k) if k >= 1 => Ok(LinkageModel::Bflt(k)),
                Ok(_) => Err(Error::usage(format!("linkage model `{s}`: the bound K of `bflt:K` must be at least 1"))),
                Err(_) => Err(Error::usage(format!(
                    "linkage model `{s}`: the bound K of `bflt:K` must be a positive integer"
                ))),
            };
        }
        Err(Error::usage(format!(
            "unknown linkage model `{s}`: expected one of `univariate`, `flt`, `bflt:K` (K >= 1), `lt`"
        )))
    }
}

impl Fos {
    /// The univariate FOS: {0}, {1}, ..., {l-1}.
    pub fn univariate(l: usize) -> Fos {
        Fos { offsets: None, vars: (0..l as u32).collect() }
    }

    /// The family of `sets`, in their order.
    pub fn from_sets(sets: Vec<Vec<u32>>) -> Fos {
        let mut offsets = Vec::with_capacity(sets.len() + 1);
        let mut vars = Vec::with_capacity(sets.iter().map(Vec::len).sum());
        offsets.push(0);
        for set in sets {
            vars.extend_from_slice(&set);
            offsets.push(vars.len());
        }
        Fos::from_offsets(offsets, vars)
    }

    /// The family whose set i is `vars[offsets[i]..offsets[i + 1]]`.
    fn from_offsets(offsets: Vec<usize>, vars: Vec<u32>) -> Fos {
        let singletons = offsets.len() == vars.len() + 1;
        Fos { offsets: (!singletons).then_some(offsets), vars }
    }

    /// Linkage set i.
    #[inline]
    pub fn set(&self, i: usize) -> &[u32] {
        match &self.offsets {
            Some(offsets) => &self.vars[offsets[i]..offsets[i + 1]],
            None => std::slice::from_ref(&self.vars[i]),
        }
    }

    /// The linkage sets, in order.
    pub fn sets(&self) -> impl ExactSizeIterator<Item = &[u32]> + Clone + '_ {
        self.sets_in(0..self.len())
    }

    /// Sets `range`, in order.
    pub fn sets_in(&self, range: std::ops::Range<usize>) -> impl ExactSizeIterator<Item = &[u32]> + Clone + '_ {
        range.map(|i| self.set(i))
    }

    /// The static model of `model` for `problem`. [`LinkageModel::Lt`] is learned from a
    /// population, which does not exist yet: this returns the univariate FOS for it, to be used
    /// until the first [`Fos::learned_linkage_tree`] is built.
    /// Fails when a linkage tree would not fit in memory ([`Fos::fixed_linkage_tree`]), and
    /// Stops with `Error::Stopped` when `stop` says so.
    pub fn build(
        model: &LinkageModel,
        problem: &dyn GrayBoxProblem,
        rng: &mut SplitMix64,
        stop: &StopCheck,
    ) -> Result<Fos, Error> {
        let l = problem.variables();
        Ok(match *model {
            LinkageModel::Univariate | LinkageModel::Lt => {
                // A set per variable, checked as it goes: a header may announce 10^9 variables.
                Fos { offsets: None, vars: stop.filled(l, |v| v as u32)? }
            }
            LinkageModel::Flt => Fos::fixed_linkage_tree(problem, None, rng, stop)?,
            LinkageModel::Bflt(k) => Fos::fixed_linkage_tree(problem, Some(k), rng, stop)?,
        })
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.offsets.as_ref().map_or(self.vars.len(), |o| o.len() - 1)
    }

    /// Whether the family has no sets.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The size of the largest set (0 for an empty FOS).
    pub fn largest_set(&self) -> usize {
        match &self.offsets {
            Some(offsets) => offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0),
            None => usize::from(!self.vars.is_empty()),
        }
    }

    /// The sum of the set sizes.
    pub fn total_size(&self) -> usize {
        self.vars.len()
    }

    /// The sets in CSR form with 32-bit offsets: the variables of set i are
    /// `vars[offsets[i]..offsets[i+1]]`.
    pub fn to_csr(&self) -> (Vec<u32>, Vec<u32>) {
        let offset = |i: usize| self.offsets.as_ref().map_or(i, |o| o[i]);
        let offsets =
            (0..=self.len()).map(|i| u32::try_from(offset(i)).expect("FOS larger than 2^32 variable slots")).collect();
        (offsets, self.vars.clone())
    }

    /// Checks that every set is non-empty, sorted strictly ascending, and within 0..l.
    pub fn check(&self, l: usize) -> Result<(), String> {
        for (i, s) in self.sets().enumerate() {
            if s.is_empty() {
                return Err(format!("set {i} is empty"));
            }
            if let Some(w) = s.windows(2).find(|w| w[0] >= w[1]) {
                return Err(format!("set {i} is not strictly ascending: {} then {}", w[0], w[1]));
            }
            if let Some(&v) = s.last().filter(|&&v| v as usize >= l) {
                return Err(format!("set {i} holds variable {v}, out of range 0..{l}"));
            }
        }
        Ok(())
    }

    /// The fixed linkage tree (FLT) of `problem`, or the bounded one (BFLT) when `max_set_size`
    /// is `Some(k)`: see the module documentation.
    ///
    /// Sparse UPGMA over the pairs of clusters joined by a nonzero similarity, in rounds: each
    /// live cluster keeps the list of its linked clusters (the summed linkage weight between them,
    /// their size) and its best pair, the largest by (exact average similarity, tie key, the
    /// clusters' smallest variables). Every pair that is the best of both its clusters merges in
    /// the round; then the merged clusters and their neighbours, and only they, rebuild their
    /// lists and best pairs, in parallel. Because average linkage is reducible and the tie key of
    /// a pair is a hash of the seed and the two clusters' smallest variables (a merged cluster's
    /// smallest variable is one of its parts'), such a pair is merged by greedy UPGMA too, and the
    /// rounds give greedy's tree for any number of threads; the merges are listed in greedy's
    /// order (decreasing (similarity, key)). Ties are broken at random (by the keys) as before,
    /// but not by the same draws as the sequential builder this replaced (a key drawn when a pair
    /// was made): trees where no two pairs tie are the same, set for set (tested).
    ///
    /// Time: the summed lengths of the lists rebuilt, O(log) each for a sort, over the rounds,
    /// plus the total size of the sets (one layout of the variables, then every set copied and
    /// sorted in parallel); memory O(l + linked pairs + total set size), never an l x l table.
    ///
    /// With no bound, once no linked pair remains, random pairs of the remaining clusters are
    /// merged until one remains (UPGMA with all similarities 0 and random ties). With a bound k,
    /// pairs that would exceed k are never merged and the build stops when no allowed linked pair
    /// remains. The root (the set of all l variables) is never listed.
    ///
    /// Checks `stop` every round and every few thousand clusters within one, and fails, rather
    /// than exhausting memory, when the sets and the lists outgrow three quarters of the memory
    /// available at the start: a variable linked to very many others (a star) makes a
    /// caterpillar tree, l^2 / 2 set entries, and re-lists its neighbours at every merge.
    pub fn fixed_linkage_tree(
        problem: &dyn GrayBoxProblem,
        max_set_size: Option<usize>,
        rng: &mut SplitMix64,
        stop: &StopCheck,
    ) -> Result<Fos, Error> {
        let budget = crate::problem::memory::available().map_or(u128::MAX, |b| b as u128 / 4 * 3);
        Fos::fixed_linkage_tree_within(problem, max_set_size, rng, budget, stop)
    }

    /// [`Fos::fixed_linkage_tree`] within `budget` bytes (tests give small budgets).
    pub fn fixed_linkage_tree_within(
        problem: &dyn GrayBoxProblem,
        max_set_size: Option<usize>,
        rng: &mut SplitMix64,
        budget: u128,
        stop: &StopCheck,
    ) -> Result<Fos, Error> {
        if problem.variables() <= 1 || max_set_size.is_some_and(|k| k <= 1) {
            return Ok(Fos::univariate(problem.variables()));
        }
        fixed_tree::linkage_tree(problem, max_set_size, rng, budget, stop, fixed_tree::PARALLEL_FROM)
    }

    /// The classic GOMEA linkage tree learned from a population: `genes` holds `n` solutions of
    /// `l` genes each (0/1 bytes, one solution after another).
    ///
    /// The similarity of two variables is their mutual information, from the frequencies of the
    /// four value pairs in the population (0 log 0 = 0, natural logarithm); clusters are joined by
    /// UPGMA (average linkage), computed with the nearest-neighbour chain and the Lance-Williams
    /// update on a dense l x l matrix: O(l^2) memory (4 bytes per entry) and O(l^2) time after the
    /// O(l^2 n / 64) mutual information. Ties are broken by a random rank per variable (and, on
    /// the chain, in favour of the previous element, which the algorithm needs). The merges are
    /// listed in decreasing similarity (the order greedy UPGMA would make them; average linkage
    /// is monotone), after the l singletons; the root is left out.
    pub fn learned_linkage_tree(genes: &[u8], n: usize, l: usize, rng: &mut SplitMix64) -> Fos {
        assert_eq!(genes.len(), n * l, "learned_linkage_tree: genes must hold n * l values");
        Fos::from_sets(learned_tree::linkage_tree(genes, n, l, rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stop::StopCheck;

    use crate::problem::graph::{Edge, Graph};
    use crate::problem::maxcut::MaxCut;

    pub(super) fn graph(l: usize, edges: &[(u32, u32, i64)]) -> MaxCut {
        MaxCut::new(Graph::new("test", l, edges.iter().map(|&(u, v, w)| Edge { u, v, w }).collect())).unwrap()
    }

    /// A random graph: a random spanning tree (when `connected`) plus extra random edges, weights
    /// in -5..=5 without 0 (or only +-1 when `unit`).
    pub(super) fn random_graph(l: usize, extra: usize, connected: bool, unit: bool, rng: &mut SplitMix64) -> MaxCut {
        let mut seen = std::collections::HashSet::new();
        let mut edges = Vec::new();
        let weight = |rng: &mut SplitMix64| -> i64 {
            if unit {
                if rng.coin() { 1 } else { -1 }
            } else {
                let w = rng.below(5) as i64 + 1;
                if rng.coin() { w } else { -w }
            }
        };
        if connected {
            for v in 1..l as u32 {
                let u = rng.below(v);
                seen.insert((u, v));
                let w = weight(rng);
                edges.push((u, v, w));
            }
        }
        let max_edges = l * (l - 1) / 2;
        for _ in 0..extra {
            if seen.len() == max_edges {
                break;
            }
            let (a, b) = (rng.below(l as u32), rng.below(l as u32));
            if a == b || !seen.insert((a.min(b), a.max(b))) {
                continue;
            }
            let w = weight(rng);
            edges.push((a.min(b), a.max(b), w));
        }
        graph(l, &edges)
    }

    /// Checks the tree structure: the first l sets are the singletons in order, every later set
    /// is the disjoint union of exactly two maximal earlier sets, each set is a child at most
    /// once, no set is the root, and sets are valid. Returns the sets no later set contains (the
    /// top-level clusters, the root's would-be children).
    pub(super) fn check_tree(fos: &Fos, l: usize) -> Vec<usize> {
        fos.check(l).unwrap();
        for i in 0..l {
            assert_eq!(fos.set(i), vec![i as u32], "set {i} should be the singleton");
        }
        if l > 1 {
            assert!(fos.sets().all(|s| s.len() < l), "the root is listed");
        }
        let mut parent: Vec<Option<usize>> = vec![None; fos.len()];
        for k in l..fos.len() {
            let sk = fos.set(k);
            assert!(sk.len() >= 2);
            let subset = |i: usize| fos.set(i).iter().all(|v| sk.binary_search(v).is_ok());
            let subs: Vec<usize> = (0..k).filter(|&i| subset(i)).collect();
            // Maximal earlier subsets.
            let maximal: Vec<usize> = subs
                .iter()
                .copied()
                .filter(|&i| {
                    !subs.iter().any(|&j| {
                        j != i
                            && fos.set(j).len() > fos.set(i).len()
                            && fos.set(i).iter().all(|v| fos.set(j).binary_search(v).is_ok())
                    })
                })
                .collect();
            assert_eq!(maximal.len(), 2, "set {k} = {sk:?} is not the union of two earlier sets: {maximal:?}");
            let (a, b) = (maximal[0], maximal[1]);
            assert!(fos.set(a).iter().all(|v| fos.set(b).binary_search(v).is_err()), "children of set {k} overlap");
            assert_eq!(fos.set(a).len() + fos.set(b).len(), sk.len(), "set {k} is not the union of its children");
            for c in [a, b] {
                assert!(parent[c].is_none(), "set {c} is a child of two sets");
                parent[c] = Some(k);
            }
        }
        (0..fos.len()).filter(|&i| parent[i].is_none()).collect()
    }

    #[test]
    fn univariate_and_csr() {
        let fos = Fos::univariate(4);
        assert_eq!(fos.len(), 4);
        assert_eq!(fos.largest_set(), 1);
        let fos = Fos::from_sets(vec![vec![0, 2], vec![1], vec![0, 1, 3]]);
        let (off, vars) = fos.to_csr();
        assert_eq!(off, vec![0, 2, 3, 6]);
        assert_eq!(vars, vec![0, 2, 1, 0, 1, 3]);
        assert_eq!(fos.largest_set(), 3);
        assert_eq!(fos.total_size(), 6);
        assert!(fos.check(4).is_ok());
        assert!(fos.check(3).is_err());
        assert!(Fos::from_sets(vec![vec![1, 0]]).check(4).is_err());
        // Sets of one variable each, in any order, take the form without offsets.
        let singles = Fos::from_sets(vec![vec![2], vec![0], vec![3]]);
        assert_eq!((singles.len(), singles.set(0), singles.set(1), singles.largest_set()), (3, &[2][..], &[0][..], 1));
        assert_eq!(singles.to_csr(), (vec![0, 1, 2, 3], vec![2, 0, 3]));
        assert_eq!(Fos::from_sets((0..5).map(|v| vec![v]).collect()), Fos::univariate(5));
        assert_eq!(Fos::from_sets(Vec::new()), Fos::univariate(0));
        assert_eq!(Fos::univariate(0).largest_set(), 0);
        assert_eq!(fos.sets().collect::<Vec<_>>(), [&[0, 2][..], &[1], &[0, 1, 3]]);
        assert_eq!(fos.sets_in(1..3).map(<[u32]>::len).collect::<Vec<_>>(), [1, 3]);
    }

    #[test]
    fn linkage_model_parse_and_display() {
        for (s, m) in [
            ("univariate", LinkageModel::Univariate),
            ("flt", LinkageModel::Flt),
            ("bflt:10", LinkageModel::Bflt(10)),
            ("bflt:1", LinkageModel::Bflt(1)),
            ("lt", LinkageModel::Lt),
        ] {
            assert_eq!(s.parse::<LinkageModel>().unwrap(), m);
            assert_eq!(m.to_string(), s);
        }
        assert_eq!("FLT".parse::<LinkageModel>().unwrap(), LinkageModel::Flt);
        for bad in ["bflt", "bflt:0", "bflt:-3", "bflt:x", "bflt:", "tree", ""] {
            let e = bad.parse::<LinkageModel>().unwrap_err().to_string();
            assert!(e.contains("bflt") || e.contains("unknown"), "{bad}: {e}");
        }
        assert!("bflt:0".parse::<LinkageModel>().unwrap_err().to_string().contains("at least 1"));
        assert!(LinkageModel::Lt.is_learned() && !LinkageModel::Flt.is_learned());
    }

    #[test]
    fn tiny_trees() {
        let p = graph(1, &[]);
        assert_eq!(
            Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(1), &StopCheck::never()).unwrap(),
            Fos::univariate(1)
        );
        let p = graph(2, &[(0, 1, 3)]);
        assert_eq!(
            Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(1), &StopCheck::never()).unwrap(),
            Fos::univariate(2)
        );
        assert_eq!(
            Fos::fixed_linkage_tree(&p, Some(5), &mut SplitMix64::new(1), &StopCheck::never()).unwrap(),
            Fos::univariate(2)
        );
        let lt = Fos::learned_linkage_tree(&[0, 1, 1, 0], 2, 2, &mut SplitMix64::new(1));
        assert_eq!(lt, Fos::univariate(2));
        let lt = Fos::learned_linkage_tree(&[], 0, 3, &mut SplitMix64::new(1));
        assert_eq!(lt.len(), 4);
        check_tree(&lt, 3);
    }

    #[test]
    fn build_dispatches() {
        let mut rng = SplitMix64::new(2);
        let p = random_graph(30, 30, true, false, &mut rng);
        assert_eq!(
            Fos::build(&LinkageModel::Univariate, &p, &mut rng, &StopCheck::never()).unwrap(),
            Fos::univariate(30)
        );
        assert_eq!(Fos::build(&LinkageModel::Lt, &p, &mut rng, &StopCheck::never()).unwrap(), Fos::univariate(30));
        assert_eq!(Fos::build(&LinkageModel::Flt, &p, &mut rng, &StopCheck::never()).unwrap().len(), 58);
        assert!(Fos::build(&LinkageModel::Bflt(4), &p, &mut rng, &StopCheck::never()).unwrap().largest_set() <= 4);
        assert_eq!(
            Fos::build(&LinkageModel::Flt, &p, &mut SplitMix64::new(8), &StopCheck::never()).unwrap(),
            Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(8), &StopCheck::never()).unwrap()
        );
    }
}
