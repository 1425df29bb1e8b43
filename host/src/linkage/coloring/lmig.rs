//! The linkage-model interaction graph (LMIG) built, for tests and small instances: the
//! colourings never build it, but the built graph is what they are checked against.

use std::cmp::Reverse;

use rayon::prelude::*;

use crate::error::Result;
use crate::linkage::conflicts::Conflicts;
use crate::linkage::fos::Fos;
use crate::problem::GrayBoxProblem;
use crate::stop::StopCheck;

/// The linkage-model interaction graph in CSR form: the neighbours of set i are
/// `adj[offsets[i]..offsets[i+1]]`, sorted ascending, without i itself and without duplicates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lmig {
    pub(crate) offsets: Vec<usize>,
    pub(crate) adj: Vec<u32>,
}

impl Lmig {
    /// Builds the LMIG of `fos` over the VIG of `problem` (variables that share a subfunction
    /// are joined): every set's conflicts, found through the index of the sets holding each
    /// variable ([`Conflicts::indexed`]), never by testing pairs of sets. Rows are built in
    /// parallel (rayon) and sorted; the result does not depend on the thread count. Time: the sum
    /// over sets i of the sets-per-variable counts of i's closure. Fails as the index does (a
    /// variable out of range, too little memory, more sets than a `u32` names).
    pub fn build(fos: &Fos, problem: &dyn GrayBoxProblem) -> Result<Lmig> {
        let conflicts = Conflicts::indexed(fos, problem, &StopCheck::never())?;
        let rows: Vec<Vec<u32>> = (0..fos.len())
            .into_par_iter()
            .map_init(
                || conflicts.marks(),
                |marks, i| {
                    let mut row = Vec::new();
                    conflicts.for_each(i, marks, |j| row.push(j));
                    row.sort_unstable();
                    row
                },
            )
            .collect();
        let mut offsets = Vec::with_capacity(fos.len() + 1);
        offsets.push(0);
        let total: usize = rows.iter().map(Vec::len).sum();
        let mut adj = Vec::with_capacity(total);
        for row in rows {
            adj.extend_from_slice(&row);
            offsets.push(adj.len());
        }
        Ok(Lmig { offsets, adj })
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

    /// Whether the graph has no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sets conflicting with set i, ascending.
    pub fn neighbours(&self, i: usize) -> &[u32] {
        &self.adj[self.offsets[i]..self.offsets[i + 1]]
    }

    pub(crate) fn degree(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// Number of undirected edges.
    pub fn num_edges(&self) -> usize {
        self.adj.len() / 2
    }

    pub(crate) fn max_degree(&self) -> usize {
        (0..self.len()).map(|i| self.degree(i)).max().unwrap_or(0)
    }

    /// The degree of every set.
    pub fn degrees(&self) -> Vec<u32> {
        (0..self.len()).map(|i| self.degree(i) as u32).collect()
    }
}

/// The sets in order of decreasing LMIG degree, ties by lower index first: Welsh-Powell's
/// order, and DSatur's tie break.
pub(super) fn degree_order(degrees: &[u32]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..degrees.len() as u32).collect();
    order.sort_by_key(|&i| (Reverse(degrees[i as usize]), i));
    order
}
