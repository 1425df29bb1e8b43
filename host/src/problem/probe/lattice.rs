//! Whether a pairwise instance is a two-dimensional spin glass: a square lattice with frustrated
//! squares and distinct couplings.
//!
//! On such an instance the annealing of new populations costs more than it gives, where it gains
//! on 3D glasses, on sparse random graphs of the same degree and weights and on 2D lattices with
//! +-1 couplings: neither the degree nor the weights tell these apart, but the shape does
//! (`docs/decisions/0004-no-annealing-for-2d-spin-glasses.md`). A square lattice
//! puts every edge in two 4-cycles (squares); a cubic one in four, with six neighbours; a sparse
//! random graph in almost none. In 2D glasses, large domains of spins cost little energy to flip,
//! so single-flip annealing stalls there, while GOM's nested linkage sets, built from distinct
//! couplings, move whole domains. `run` reads this probe to choose its default annealing
//! ([`crate::solve::config`]).
//!
//! A square is frustrated when no assignment cuts all of its positive edges and none of its
//! negative ones: when an odd number of its edges are negative. A bipartite graph of positive
//! weights (a torus of Max-Cut, where annealing is fast) has no frustrated square.
//!
//! The same probe reads the other kinds (tables, clauses) as a hypergraph: a subfunction is an
//! edge over its variables, and a cycle runs through distinct subfunctions, each sharing a
//! distinct variable with the next. A square is a cycle of four subfunctions (on a graph, its
//! 4-cycles); shorter cycles, of two subfunctions sharing two variables or of three (a graph's
//! triangles), are counted apart. Overlapping windows (an NK landscape of adjacent neighbourhoods)
//! or a lattice have at least one short cycle or square per subfunction; random clauses, random
//! neighbourhoods and sparse random graphs of 10^6 variables almost none, and disjoint
//! subfunctions (traps) none. `run` reads that to choose its default linkage model.

use crate::problem::Subfunctions;

/// The most subfunctions (edges) the probe reads, evenly spaced over the instance's.
pub const PROBED_EDGES: usize = 4096;

/// Variables read by more subfunctions than this are counted but not searched for cycles (a
/// lattice has few; a dense instance would take degree^3 steps per edge).
pub const MAX_SEARCHED_DEGREE: usize = 64;

/// Subfunctions of more variables than this are counted but not searched for cycles.
pub const MAX_SEARCHED_ARITY: usize = 16;

/// What the probe saw on its edges (subfunctions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SquareProbe {
    /// Edges (subfunctions) probed: all, or [`PROBED_EDGES`] evenly spaced.
    pub edges: usize,
    /// The ends of the probed edges: two per edge of a graph, a subfunction's variables else.
    pub ends: usize,
    /// The degrees of the probed edges' ends (the subfunctions reading each), summed.
    pub degree_sum: usize,
    /// The squares (cycles of four subfunctions) through the probed edges, each counted once per
    /// probed edge.
    pub squares: usize,
    /// The cycles of two or three subfunctions through the probed edges (a graph's triangles).
    pub short_cycles: usize,
    /// The squares with an odd number of negative edges (pairwise terms only).
    pub frustrated: usize,
    /// Distinct absolute weights among the probed edges (pairwise terms only: 0 for the others).
    pub distinct_weights: usize,
}

impl SquareProbe {
    /// The mean degree of the probed edges' ends.
    pub fn mean_degree(&self) -> f64 {
        self.degree_sum as f64 / self.ends.max(1) as f64
    }

    /// Squares per probed edge: 2 on a square lattice, 4 on a cubic one.
    pub fn squares_per_edge(&self) -> f64 {
        self.squares as f64 / self.edges.max(1) as f64
    }

    /// Cycles of up to four subfunctions (squares and shorter) per probed edge.
    pub fn cycles_per_edge(&self) -> f64 {
        (self.squares + self.short_cycles) as f64 / self.edges.max(1) as f64
    }

    /// Whether the probe saw a lattice, or overlapping neighbourhoods: at least one cycle of up to
    /// four subfunctions per edge (2 squares on a square lattice, 4 on a cubic one; a sparse
    /// random graph, random clauses or neighbourhoods of 10^6 variables have almost none).
    pub fn is_lattice(&self) -> bool {
        self.cycles_per_edge() >= 1.0
    }

    /// Whether the probe saw a two-dimensional spin glass with distinct couplings: at least 16
    /// edges; a mean degree of at most 4.5; 1.5 to 2.5 squares per edge; at least a quarter of the
    /// squares frustrated; distinct absolute weights on at least half of the edges (so pairwise
    /// terms only).
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

/// The squares and shorter cycles through `functions`' subfunctions (up to [`PROBED_EDGES`]
/// of them, evenly spaced), with the weights' frustration and spread for pairwise terms.
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::problem::generate::{torus_nd, EdgeWeights};
/// use pgomea::problem::lattice::square_probe;
/// use pgomea::problem::maxcut::MaxCut;
/// let glass = |dims, weights| MaxCut::new(torus_nd(dims, 10, weights, 1)?);
/// let gaussian_2d = square_probe(glass(2, EdgeWeights::Gaussian)?.functions());
/// assert_eq!((gaussian_2d.squares_per_edge(), gaussian_2d.mean_degree()), (2.0, 4.0));
/// assert!(gaussian_2d.is_2d_glass());
/// assert!(!square_probe(glass(2, EdgeWeights::PlusMinusOne)?.functions()).is_2d_glass());
/// assert!(!square_probe(glass(3, EdgeWeights::Gaussian)?.functions()).is_2d_glass());
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn square_probe(functions: &Subfunctions) -> SquareProbe {
    use rayon::prelude::*;
    let count = functions.len();
    let n = count.min(PROBED_EDGES);
    let weights = functions.arrays().pairwise_weights();
    let negative = |e: u32| weights.map_or(0, |w| usize::from(w[e as usize] < 0));
    let edge = |i: usize| (i as u128 * count as u128 / n as u128) as u32;
    // The probed edges in parallel (a 3-SAT instance's took half a second on one core), each
    // counting into a probe of its own; the counts are sums, the same in any order.
    // `steps`: the (variable, subfunction) steps out of each end of an edge, sorted; the buffers
    // reused by each task.
    let one = |steps: &mut Vec<Vec<(u32, u32)>>, i: usize| {
        let e = edge(i);
        let ends = functions.variables_of(e as usize);
        let mut probe = SquareProbe {
            ends: ends.len(),
            degree_sum: ends.iter().map(|&v| functions.dependent(v as usize).len()).sum::<usize>(),
            ..SquareProbe::default()
        };
        let searched = |v: u32| functions.dependent(v as usize).len() <= MAX_SEARCHED_DEGREE;
        if ends.len() > MAX_SEARCHED_ARITY || !ends.iter().all(|&v| searched(v)) {
            return probe;
        }
        // Every cycle through e leaves it at one end a and comes back at another end b, a before
        // b in e's order: a - f - x [- h - y] - g - b, with x and y no end of e.
        steps.resize_with(steps.len().max(ends.len()), Vec::new);
        for (&a, out) in ends.iter().zip(steps.iter_mut()) {
            out.clear();
            for &f in functions.dependent(a as usize).iter().filter(|&&f| f != e) {
                for &x in functions.variables_of(f as usize).iter().filter(|x| !ends.contains(x)) {
                    out.push((x, f));
                }
            }
            out.sort_unstable();
        }
        for (j, &b) in ends.iter().enumerate() {
            let (from_b, near_b) = (&steps[j], functions.dependent(b as usize));
            // `from_b`'s steps that reach y.
            let into_b = |y: u32| {
                let start = from_b.partition_point(|&(x, _)| x < y);
                from_b[start..].iter().take_while(move |&&(x, _)| x == y)
            };
            for (i, &a) in ends[..j].iter().enumerate() {
                // Two subfunctions: another one reading a and b.
                probe.short_cycles += functions
                    .dependent(a as usize)
                    .iter()
                    .filter(|&&f| f != e && near_b.binary_search(&f).is_ok())
                    .count();
                for &(x, f) in &steps[i] {
                    // Three: a - f - x - g - b.
                    probe.short_cycles += into_b(x).filter(|&&(_, g)| g != f).count();
                    // Four: a - f - x - h - y - g - b.
                    if !searched(x) {
                        continue;
                    }
                    for &h in functions.dependent(x as usize).iter().filter(|&&h| h != e && h != f) {
                        for &y in functions.variables_of(h as usize).iter().filter(|&&y| y != x && !ends.contains(&y)) {
                            for &(_, g) in into_b(y).filter(|&&(_, g)| g != f && g != h) {
                                probe.squares += 1;
                                probe.frustrated += (negative(e) + negative(f) + negative(h) + negative(g)) % 2;
                            }
                        }
                    }
                }
            }
        }
        probe
    };
    let sum = |a: SquareProbe, b: SquareProbe| SquareProbe {
        ends: a.ends + b.ends,
        degree_sum: a.degree_sum + b.degree_sum,
        squares: a.squares + b.squares,
        short_cycles: a.short_cycles + b.short_cycles,
        frustrated: a.frustrated + b.frustrated,
        ..a
    };
    let mut probe = (0..n).into_par_iter().map_init(Vec::new, one).reduce(SquareProbe::default, sum);
    probe.edges = n;
    if let Some(w) = weights {
        let mut magnitudes: Vec<u64> = (0..n).map(|i| w[edge(i) as usize].unsigned_abs()).collect();
        magnitudes.sort_unstable();
        magnitudes.dedup();
        probe.distinct_weights = magnitudes.len();
    }
    probe
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::GrayBoxProblem;
    use crate::problem::generate::{EdgeWeights, WeightRange, random, torus_nd};
    use crate::problem::maxcut::MaxCut;

    fn probe(graph: crate::problem::graph::Graph) -> SquareProbe {
        square_probe(MaxCut::new(graph).unwrap().functions())
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
    fn the_probe_reads_at_most_its_share_of_a_large_instance() {
        let large = probe(torus_nd(2, 100, EdgeWeights::Gaussian, 1).unwrap());
        assert_eq!(large.edges, PROBED_EDGES);
        assert!(large.is_2d_glass(), "{}", large.describe());
        // A square counted by hand: the 4-cycle 0-1-2-3 with one negative edge.
        let edge = |u, v, w| crate::problem::graph::Edge { u, v, w };
        let edges = vec![edge(0, 1, 5), edge(1, 2, 6), edge(2, 3, -7), edge(3, 0, 8)];
        let square = probe(crate::problem::graph::Graph::new("square", 4, edges));
        assert_eq!((square.edges, square.squares, square.frustrated, square.distinct_weights), (4, 4, 4, 4));
        assert_eq!(square.short_cycles, 0);
    }

    /// Short cycles of tables counted by hand: a triangle of pairs, and two tables sharing two
    /// variables.
    #[test]
    fn tables_are_read_as_a_hypergraph() {
        use crate::problem::tables::TableProblem;
        let table = |vars: Vec<u32>| {
            let values = (0..1i64 << vars.len()).collect();
            (vars, values)
        };
        let triangle = [table(vec![0, 1]), table(vec![1, 2]), table(vec![2, 0])];
        let t = square_probe(TableProblem::new("triangle", "t", 3, &triangle, None).unwrap().functions());
        assert_eq!((t.edges, t.ends, t.short_cycles, t.squares, t.frustrated, t.distinct_weights), (3, 6, 3, 0, 0, 0));
        let overlap = [table(vec![0, 1, 2]), table(vec![1, 2, 3])];
        let o = square_probe(TableProblem::new("overlap", "t", 4, &overlap, None).unwrap().functions());
        assert_eq!((o.short_cycles, o.squares), (2, 0));
        // Four pairs in a ring: one square through each.
        let ring = [table(vec![0, 1]), table(vec![1, 2]), table(vec![2, 3]), table(vec![3, 0])];
        let r = square_probe(TableProblem::new("ring", "t", 4, &ring, None).unwrap().functions());
        assert_eq!((r.short_cycles, r.squares), (0, 4));
    }

    /// What `run`'s default linkage model reads: overlapping windows are a lattice; disjoint
    /// traps, random neighbourhoods and random clauses of 10^6 variables are not.
    #[test]
    fn windows_are_lattices_and_random_subfunctions_are_not() {
        let windows = square_probe(crate::problem::nk::sliding_window(20_000, 5, 1).unwrap().functions());
        assert!(windows.is_lattice() && !windows.is_2d_glass(), "{}", windows.cycles_per_edge());
        let traps = square_probe(crate::problem::trap::concatenated(5, 2000, 1, true).unwrap().functions());
        assert_eq!((traps.short_cycles, traps.squares), (0, 0));
        let nk = square_probe(crate::problem::nk::random_neighbourhood(1_000_000, 5, 1).unwrap().functions());
        assert!(nk.cycles_per_edge() < 0.1, "{}", nk.cycles_per_edge());
        let sat = square_probe(crate::problem::maxsat::planted_3sat(1_000_000, 4_260_000, 1).unwrap().0.functions());
        assert!(sat.cycles_per_edge() < 0.1, "{}", sat.cycles_per_edge());
        assert!(sat.mean_degree() > 10.0 && sat.ends == 3 * sat.edges, "{}", sat.mean_degree());
    }
}
