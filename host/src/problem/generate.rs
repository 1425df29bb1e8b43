//! The project's own instance generator (seeded): 2D tori, random sparse graphs and complete
//! graphs. Even-sided tori with positive weights are bipartite, so their maximum cut is the total
//! weight: a proven optimum that tests and the embedded default instance rely on.

use pgomea_device::rng::{SplitMix64, streams};

use crate::error::{Error, Result};
use crate::problem::graph::{Edge, Graph};

/// Bytes of one edge of a generated graph, and of its subfunction when it is solved.
const EDGE_BYTES: u128 = 48;

/// Weights drawn uniformly from `min..=max`.
#[derive(Clone, Copy, Debug)]
pub struct WeightRange {
    pub min: i64,
    pub max: i64,
}

impl WeightRange {
    fn draw(&self, rng: &mut SplitMix64) -> i64 {
        self.min + rng.index((self.max - self.min + 1) as usize) as i64
    }
    fn check(&self) -> Result<()> {
        // Checked: max - min overflows i64 for the widest ranges.
        if self.max.checked_sub(self.min).is_none_or(|d| d < 0 || d >= u32::MAX as i64) {
            return Err(Error::usage(format!("invalid weight range {}..={}", self.min, self.max)));
        }
        Ok(())
    }
}

/// An L x L torus (every vertex joined to its right and lower neighbour, with wrap-around):
/// n = L^2 vertices, 2n edges for L >= 3, every vertex of degree 4.
pub fn torus(side: usize, weights: WeightRange, seed: u64) -> Result<Graph> {
    weights.check()?;
    if side < 3 {
        return Err(Error::usage("a torus needs a side of at least 3 (smaller ones have duplicate edges)"));
    }
    let n = side
        .checked_mul(side)
        .filter(|&n| n <= u32::MAX as usize / 2)
        .ok_or_else(|| Error::usage(format!("a torus of side {side} has more vertices than this program supports")))?;
    super::memory::ensure(2 * n as u128 * EDGE_BYTES, &format!("a torus of side {side}"))?;
    let mut rng = SplitMix64::stream(seed, streams::TORUS);
    let id = |r: usize, c: usize| (r * side + c) as u32;
    let mut edges = Vec::with_capacity(2 * side * side);
    for r in 0..side {
        for c in 0..side {
            edges.push(Edge { u: id(r, c), v: id(r, (c + 1) % side), w: weights.draw(&mut rng) });
            edges.push(Edge { u: id(r, c), v: id((r + 1) % side, c), w: weights.draw(&mut rng) });
        }
    }
    Ok(Graph::new(format!("torus-{side}x{side}-s{seed}"), side * side, edges))
}

/// A random graph with n vertices and m distinct edges, chosen uniformly.
pub fn random(n: usize, m: usize, weights: WeightRange, seed: u64) -> Result<Graph> {
    weights.check()?;
    let max = n.saturating_mul(n.saturating_sub(1)) / 2;
    if n < 2 || m > max {
        return Err(Error::usage(format!("a simple graph of {n} vertices has at most {max} edges; asked for {m}")));
    }
    if n > u32::MAX as usize / 2 {
        return Err(Error::usage(format!("{n} vertices is more than this program supports")));
    }
    // The edges and the set of drawn pairs.
    super::memory::ensure(m as u128 * (EDGE_BYTES + 16), &format!("a random graph of {m} edges"))?;
    let mut rng = SplitMix64::stream(seed, streams::RANDOM_GRAPH);
    let mut seen = std::collections::HashSet::with_capacity(m);
    let mut edges = Vec::with_capacity(m);
    while edges.len() < m {
        let (a, b) = (rng.index(n) as u32, rng.index(n) as u32);
        if a != b && seen.insert((a.min(b), a.max(b))) {
            edges.push(Edge { u: a.min(b), v: a.max(b), w: weights.draw(&mut rng) });
        }
    }
    Ok(Graph::new(format!("random-n{n}-m{m}-s{seed}"), n, edges))
}

/// A complete graph on n vertices (like Set A).
pub fn complete(n: usize, weights: WeightRange, seed: u64) -> Result<Graph> {
    weights.check()?;
    if n < 2 {
        return Err(Error::usage("a complete graph needs at least 2 vertices"));
    }
    if n > u32::MAX as usize / 2 {
        return Err(Error::usage(format!("{n} vertices is more than this program supports")));
    }
    let m = n as u128 * (n as u128 - 1) / 2;
    super::memory::ensure(m * EDGE_BYTES, &format!("a complete graph of {n} vertices"))?;
    let mut rng = SplitMix64::stream(seed, streams::COMPLETE_GRAPH);
    let mut edges = Vec::with_capacity(n * (n - 1) / 2);
    for u in 0..n as u32 {
        for v in u + 1..n as u32 {
            edges.push(Edge { u, v, w: weights.draw(&mut rng) });
        }
    }
    Ok(Graph::new(format!("complete-n{n}-s{seed}"), n, edges))
}

/// The exact maximum cut by enumeration of all 2^(n-1) cuts (vertex 0 fixed on side 0), with
/// Gray-code order so that each step flips one vertex. For tests on small graphs (n <= 30).
pub fn brute_force_max_cut(instance: &Graph) -> i64 {
    let n = instance.vertices;
    assert!(n <= 30, "brute force is for small graphs");
    if n == 1 {
        return 0;
    }
    let mut adj = vec![Vec::new(); n];
    for e in &instance.edges {
        adj[e.u as usize].push((e.v as usize, e.w));
        adj[e.v as usize].push((e.u as usize, e.w));
    }
    let mut side = vec![0u8; n];
    let mut cut = 0i64;
    let mut best = 0i64;
    for k in 1u64..(1u64 << (n - 1)) {
        let v = k.trailing_zeros() as usize + 1;
        for &(u, w) in &adj[v] {
            cut += if side[u] == side[v] { w } else { -w };
        }
        side[v] ^= 1;
        best = best.max(cut);
    }
    best
}

/// The embedded default instance of `pgomea run`: a 20 x 20 torus with weights 1..=5 (seed 1),
/// whose optimum is its total weight.
pub fn default_instance() -> Graph {
    let mut i = torus(20, WeightRange { min: 1, max: 5 }, 1).expect("valid generator arguments");
    i.name = "default-torus-20x20".into();
    i
}
