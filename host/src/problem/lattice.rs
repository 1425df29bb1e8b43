//! Whether a pairwise instance is a two-dimensional spin glass: a square lattice with frustrated
//! squares and distinct couplings.
//!
//! On such an instance the annealing of new populations costs more than it gives. Measured in
//! benchmarks/RESULTS.md, sections 23 and 37, on the GPU:
//! - 2D Gaussian glasses: -0.21 to -0.27 % at 10 s and -0.24 % at 60 s against GOM after the greedy
//!   descent alone, or GOM alone.
//! - 3D Gaussian glasses: +2.5 to +2.9 %.
//! - Sparse random graphs of the same degree and the same weights: +3 to +6 %.
//! - 2D lattices with +-1 couplings: +0.07 to +0.12 %.
//!
//! So neither the degree nor the weights tell these apart, but the shape does. A square lattice
//! puts every edge in two 4-cycles (squares); a cubic one in four, with six neighbours; a sparse
//! random graph in almost none. In 2D glasses, large domains of spins cost little energy to flip,
//! so single-flip annealing stalls there, while GOM's nested linkage sets, built from distinct
//! couplings, move whole domains. `run` reads this probe to choose its default annealing
//! ([`crate::solve::config`]).
//!
//! A square is frustrated when no assignment cuts all of its positive edges and none of its
//! negative ones: when an odd number of its edges are negative. A bipartite graph of positive
//! weights (a torus of Max-Cut, where annealing is fast) has no frustrated square.

use super::{KindArrays, Subfunctions};

/// The most edges the probe reads, evenly spaced over the instance's edges.
pub const PROBED_EDGES: usize = 4096;

/// Edges with an end of more neighbours than this are counted but not searched for squares (a
/// lattice has few; a dense graph would take degree^3 steps per edge).
pub const MAX_SEARCHED_DEGREE: usize = 16;

/// What the probe saw on its edges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SquareProbe {
    /// Edges probed: all, or [`PROBED_EDGES`] evenly spaced.
    pub edges: usize,
    /// The degrees of the probed edges' ends, summed (two per edge).
    pub degree_sum: usize,
    /// The squares (4-cycles) through the probed edges, counted once per probed edge.
    pub squares: usize,
    /// Those with an odd number of negative edges.
    pub frustrated: usize,
    /// Distinct absolute weights among the probed edges.
    pub distinct_weights: usize,
}

impl SquareProbe {
    /// The mean degree of the probed edges' ends.
    pub fn mean_degree(&self) -> f64 {
        self.degree_sum as f64 / (2 * self.edges).max(1) as f64
    }

    /// Squares per probed edge: 2 on a square lattice, 4 on a cubic one.
    pub fn squares_per_edge(&self) -> f64 {
        self.squares as f64 / self.edges.max(1) as f64
    }

    /// Whether the probe saw a lattice: at least one square per edge (2 on a square lattice, 4 on
    /// a cubic one; a sparse random graph has almost none).
    pub fn is_lattice(&self) -> bool {
        self.squares_per_edge() >= 1.0
    }

    /// Whether the probe saw a two-dimensional spin glass with distinct couplings: at least 16
    /// edges; a mean degree of at most 4.5; 1.5 to 2.5 squares per edge; at least a quarter of the
    /// squares frustrated; distinct absolute weights on at least half of the edges.
    pub fn is_2d_glass(&self) -> bool {
        self.edges >= 16
            && self.mean_degree() <= 4.5
            && (1.5..=2.5).contains(&self.squares_per_edge())
            && 4 * self.frustrated >= self.squares
            && 2 * self.distinct_weights >= self.edges
    }

    /// The probe in words, for `run`'s note on its choice.
    pub fn describe(&self) -> String {
        format!(
            "{:.1} squares per edge, {} % of them frustrated, mean degree {:.1}, {} distinct |weights| on {} edges probed",
            self.squares_per_edge(),
            (100 * self.frustrated).checked_div(self.squares).unwrap_or(0),
            self.mean_degree(),
            self.distinct_weights,
            self.edges
        )
    }
}

/// The squares of `functions`' edges, or `None` for the kinds other than pairwise terms.
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::problem::generate::{torus_nd, EdgeWeights};
/// use pgomea::problem::lattice::square_probe;
/// use pgomea::problem::maxcut::MaxCut;
/// let glass = |dims, weights| MaxCut::new(torus_nd(dims, 10, weights, 1)?);
/// let gaussian_2d = square_probe(glass(2, EdgeWeights::Gaussian)?.functions()).unwrap();
/// assert_eq!((gaussian_2d.squares_per_edge(), gaussian_2d.mean_degree()), (2.0, 4.0));
/// assert!(gaussian_2d.is_2d_glass());
/// assert!(!square_probe(glass(2, EdgeWeights::PlusMinusOne)?.functions()).unwrap().is_2d_glass());
/// assert!(!square_probe(glass(3, EdgeWeights::Gaussian)?.functions()).unwrap().is_2d_glass());
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn square_probe(functions: &Subfunctions) -> Option<SquareProbe> {
    let KindArrays::Pairwise { ends, weights } = functions.arrays() else {
        return None;
    };
    let count = weights.len();
    let n = count.min(PROBED_EDGES);
    // The end of edge `e` that is not `v`.
    let other = |e: u32, v: u32| {
        let e = e as usize;
        if ends[2 * e] == v { ends[2 * e + 1] } else { ends[2 * e] }
    };
    let negative = |e: u32| usize::from(weights[e as usize] < 0);
    let mut probe = SquareProbe { edges: n, ..SquareProbe::default() };
    let mut magnitudes = Vec::with_capacity(n);
    for i in 0..n {
        let e = (i as u128 * count as u128 / n as u128) as usize;
        let (u, v) = (ends[2 * e], ends[2 * e + 1]);
        let (near_u, near_v) = (functions.dependent(u as usize), functions.dependent(v as usize));
        probe.degree_sum += near_u.len() + near_v.len();
        magnitudes.push(weights[e].unsigned_abs());
        if near_u.len().max(near_v.len()) > MAX_SEARCHED_DEGREE {
            continue;
        }
        // Squares u - a - b - v - u: a neighbour a of u and b of v, joined by an edge.
        for &f in near_u.iter().filter(|&&f| f as usize != e) {
            let a = other(f, u);
            if a == v {
                continue;
            }
            for &g in near_v.iter().filter(|&&g| g as usize != e) {
                let b = other(g, v);
                if b == u || b == a {
                    continue;
                }
                let near_a = functions.dependent(a as usize);
                if near_a.len() > MAX_SEARCHED_DEGREE {
                    continue;
                }
                for &h in near_a.iter().filter(|&&h| other(h, a) == b) {
                    probe.squares += 1;
                    let negatives = negative(e as u32) + negative(f) + negative(g) + negative(h);
                    probe.frustrated += negatives % 2;
                }
            }
        }
    }
    magnitudes.sort_unstable();
    magnitudes.dedup();
    probe.distinct_weights = magnitudes.len();
    Some(probe)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::GrayBoxProblem;
    use crate::problem::generate::{EdgeWeights, WeightRange, random, torus_nd};
    use crate::problem::maxcut::MaxCut;

    fn probe(graph: crate::problem::graph::Graph) -> SquareProbe {
        square_probe(MaxCut::new(graph).unwrap().functions()).unwrap()
    }

    #[test]
    fn square_and_cubic_lattices_have_two_and_four_squares_per_edge() {
        for side in [5, 8, 31] {
            for seed in 1..=3 {
                let flat = probe(torus_nd(2, side, EdgeWeights::Gaussian, seed).unwrap());
                assert_eq!((flat.squares_per_edge(), flat.mean_degree()), (2.0, 4.0), "side {side}");
                assert!(flat.is_2d_glass(), "{}", flat.describe());
                let cube = probe(torus_nd(3, side.min(12), EdgeWeights::Gaussian, seed).unwrap());
                assert_eq!((cube.squares_per_edge(), cube.mean_degree()), (4.0, 6.0), "side {side}");
                assert!(!cube.is_2d_glass(), "{}", cube.describe());
            }
        }
    }

    #[test]
    fn only_frustrated_lattices_of_distinct_weights_are_2d_glasses() {
        // +-1 couplings: frustrated, but one |weight|.
        let pm1 = probe(torus_nd(2, 40, EdgeWeights::PlusMinusOne, 1).unwrap());
        assert_eq!(pm1.distinct_weights, 1);
        assert!(4 * pm1.frustrated >= pm1.squares && !pm1.is_2d_glass(), "{}", pm1.describe());
        // Positive distinct weights: bipartite, no square frustrated.
        let wide = WeightRange { min: 1, max: 1_000_000 };
        let positive = probe(torus_nd(2, 40, EdgeWeights::Uniform(wide), 1).unwrap());
        assert_eq!(positive.frustrated, 0);
        assert!(!positive.is_2d_glass(), "{}", positive.describe());
        // Symmetric distinct weights: about half the squares frustrated.
        let symmetric = WeightRange { min: -1_000_000, max: 1_000_000 };
        let glass = probe(torus_nd(2, 40, EdgeWeights::Uniform(symmetric), 1).unwrap());
        let share = glass.frustrated as f64 / glass.squares as f64;
        assert!((0.4..=0.6).contains(&share) && glass.is_2d_glass(), "{}", glass.describe());
        // A sparse random graph of the same degree and weights has almost no squares.
        let sparse = probe(random(10_000, 20_000, symmetric, 1).unwrap());
        assert!(sparse.squares_per_edge() < 0.1 && !sparse.is_2d_glass(), "{}", sparse.describe());
    }

    #[test]
    fn the_probe_reads_at_most_its_share_of_a_large_instance_and_only_pairwise_terms() {
        let large = probe(torus_nd(2, 100, EdgeWeights::Gaussian, 1).unwrap());
        assert_eq!(large.edges, PROBED_EDGES);
        assert!(large.is_2d_glass(), "{}", large.describe());
        let nk = crate::problem::nk::sliding_window(50, 3, 1).unwrap();
        assert_eq!(square_probe(nk.functions()), None);
        // A square counted by hand: the 4-cycle 0-1-2-3 with one negative edge.
        let edge = |u, v, w| crate::problem::graph::Edge { u, v, w };
        let edges = vec![edge(0, 1, 5), edge(1, 2, 6), edge(2, 3, -7), edge(3, 0, 8)];
        let square = probe(crate::problem::graph::Graph::new("square", 4, edges));
        assert_eq!((square.edges, square.squares, square.frustrated, square.distinct_weights), (4, 4, 4, 4));
    }
}
