//! The project's own instance generators (seeded): NK landscapes ([`nk`]), concatenated deceptive
//! traps ([`trap`]), planted 3-SAT ([`sat`]), and here tori in 2 and 3 dimensions, random sparse
//! graphs and complete graphs, with uniform, +-1 or Gaussian weights. A torus of even side is
//! bipartite, so when its weights are not negative its maximum cut is the total weight: a proven
//! optimum that the generator puts in the graph (and its file: `c optimum V`), and that tests and
//! the embedded default instance rely on.

pub mod nk;
pub mod sat;
pub mod trap;

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use pgomea_device::rng::{SplitMix64, mix64, streams};

use crate::choice::choices;
use crate::error::{Error, Result};
use crate::problem::graph::{Edge, EdgeList, Graph};

/// Bytes of one edge of a generated graph, and of its subfunction when it is solved.
const EDGE_BYTES: u128 = 48;

/// Gaussian weights are round(N(0, 1) x this): the Gaussian spin glass in integers, resolved to
/// 10^-5 of its standard deviation.
pub const GAUSSIAN_SCALE: f64 = 1e5;

/// Weights drawn uniformly from `min..=max`.
#[derive(Clone, Copy, Debug)]
pub struct WeightRange {
    /// The smallest weight.
    pub min: i64,
    /// The largest weight.
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

/// The weights of a generated graph's edges, one draw (or two, Gaussian) of the generator each.
#[derive(Clone, Copy, Debug)]
pub enum EdgeWeights {
    /// Integers drawn uniformly from a range.
    Uniform(WeightRange),
    /// +1 or -1 with equal probability: the +-J spin glass.
    PlusMinusOne,
    /// round(N(0, 1) x [`GAUSSIAN_SCALE`]): the Gaussian spin glass in integers.
    Gaussian,
}

impl EdgeWeights {
    fn check(&self) -> Result<()> {
        match self {
            EdgeWeights::Uniform(range) => range.check(),
            _ => Ok(()),
        }
    }
    fn draw(&self, rng: &mut SplitMix64) -> i64 {
        match self {
            EdgeWeights::Uniform(range) => range.draw(rng),
            EdgeWeights::PlusMinusOne => {
                if rng.coin() {
                    1
                } else {
                    -1
                }
            }
            EdgeWeights::Gaussian => {
                // Box-Muller from two 53-bit uniforms, the first in (0, 1] for the logarithm.
                let unit = |bits: u64| (bits >> 11) as f64 / (1u64 << 53) as f64;
                let u1 = 1.0 - unit(rng.next_u64());
                let u2 = unit(rng.next_u64());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                (z * GAUSSIAN_SCALE).round() as i64
            }
        }
    }
    /// How names of generated instances tell the weights apart (uniform: nothing, as before).
    fn tag(&self) -> &'static str {
        match self {
            EdgeWeights::Uniform(_) => "",
            EdgeWeights::PlusMinusOne => "-pm1",
            EdgeWeights::Gaussian => "-gaussian",
        }
    }
}

/// How the generators draw edge weights, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightDistribution {
    /// Integers drawn uniformly from a [`WeightRange`].
    Uniform,
    /// -1 or +1, each with probability 1/2.
    PlusMinusOne,
    /// Normally distributed, scaled by [`GAUSSIAN_SCALE`] and rounded to integers.
    Gaussian,
}

impl WeightDistribution {
    /// The weights of this distribution (`range` for the uniform one).
    pub fn weights(self, range: WeightRange) -> EdgeWeights {
        match self {
            WeightDistribution::Uniform => EdgeWeights::Uniform(range),
            WeightDistribution::PlusMinusOne => EdgeWeights::PlusMinusOne,
            WeightDistribution::Gaussian => EdgeWeights::Gaussian,
        }
    }
}

choices! {
    WeightDistribution {
        Uniform: "uniform" => "Integers drawn uniformly from the weight range, min..=max",
        PlusMinusOne: "pm1" => "+1 or -1 with equal probability (the +-J spin glass)",
        Gaussian: "gaussian" => "round(N(0,1) * 10^5): the Gaussian spin glass in integers (scale 10^5)",
    }
}

/// An L x L torus (every vertex joined to its right and lower neighbour, with wrap-around):
/// n = L^2 vertices, 2n edges for L >= 3, every vertex of degree 4. See [`torus_nd`].
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::problem::generate::{WeightRange, torus};
/// use pgomea::problem::maxcut::MaxCut;
/// let graph = torus(4, WeightRange { min: 1, max: 3 }, 7)?;
/// assert_eq!((graph.vertices, graph.edges.len()), (16, 32));
/// // An even side: bipartite, so the optimum is the total weight, cut by the checkerboard.
/// assert_eq!(graph.optimum, Some(graph.total_weight()?));
/// let problem = MaxCut::new(graph)?;
/// let checkerboard: Vec<u8> = (0..16).map(|v| ((v / 4 + v % 4) % 2) as u8).collect();
/// assert_eq!(Some(problem.evaluate(&checkerboard)), problem.known_optimum());
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn torus(side: usize, weights: WeightRange, seed: u64) -> Result<Graph> {
    torus_nd(2, side, EdgeWeights::Uniform(weights), seed)
}

/// A torus of `dims` (2 or 3) dimensions and side L >= 3: vertex (a, b[, c]) is number
/// (a L + b) L + c, joined to its successor along each axis with wrap-around, the last axis
/// first (in 2D: right, then down). n = L^dims vertices, dims n edges, every vertex of degree
/// 2 dims. The weights are drawn in edge order from one stream of the seed. The optimum is set
/// when it is proven: an even side (the torus is bipartite) and no negative weight, where every
/// edge can be cut.
///
/// ```
/// use pgomea::problem::generate::{EdgeWeights, torus_nd};
/// // A 3D +-J spin glass: negative weights, so no optimum is claimed.
/// let glass = torus_nd(3, 4, EdgeWeights::PlusMinusOne, 2)?;
/// assert_eq!((glass.vertices, glass.edges.len(), glass.optimum), (64, 192, None));
/// assert!(glass.edges.weights().iter().all(|&w| w == 1 || w == -1));
/// assert!(torus_nd(4, 4, EdgeWeights::Gaussian, 2).is_err()); // 2 or 3 dimensions
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn torus_nd(dims: usize, side: usize, weights: EdgeWeights, seed: u64) -> Result<Graph> {
    weights.check()?;
    if !(2..=3).contains(&dims) {
        return Err(Error::usage(format!("a torus has 2 or 3 dimensions, not {dims}")));
    }
    if side < 3 {
        return Err(Error::usage("a torus needs a side of at least 3 (smaller ones have duplicate edges)"));
    }
    let n = side
        .checked_pow(dims as u32)
        .filter(|&n| n <= u32::MAX as usize / 2 && dims * n <= u32::MAX as usize / 2)
        .ok_or_else(|| {
            Error::usage(format!("a torus of side {side} in {dims}D has more vertices than this program supports"))
        })?;
    let m = dims * n;
    crate::problem::memory::ensure(m as u128 * EDGE_BYTES, &format!("a torus of side {side} in {dims}D"))?;
    let mut rng = SplitMix64::stream(seed, streams::TORUS);
    // The stride of each axis: the last axis moves by 1.
    let strides: Vec<usize> = (0..dims).map(|axis| side.pow((dims - 1 - axis) as u32)).collect();
    let mut edges = EdgeList::with_capacity(m);
    for v in 0..n {
        for &stride in strides.iter().rev() {
            let coordinate = v / stride % side;
            let next = if coordinate + 1 == side { v + stride - side * stride } else { v + stride };
            edges.push(Edge { u: v as u32, v: next as u32, w: weights.draw(&mut rng) });
        }
    }
    let shape = vec![side.to_string(); dims].join("x");
    let mut graph = Graph::with_edges(format!("torus-{shape}{}-s{seed}", weights.tag()), n, edges);
    if side.is_multiple_of(2) && graph.edges.weights().iter().all(|&w| w >= 0) {
        graph.optimum = graph.total_weight().ok();
    }
    Ok(graph)
}

/// Hashes the 64-bit key of a vertex pair with the SplitMix64 mixer: many times faster than the
/// default SipHash, and the keys come from our own generator, not from an adversary.
#[derive(Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix64(self.0 ^ b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = mix64(v);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A random graph with n vertices and m distinct edges, chosen uniformly.
///
/// ```
/// use pgomea::problem::generate::{WeightRange, random};
/// let graph = random(10, 20, WeightRange { min: -2, max: 2 }, 1)?;
/// assert_eq!((graph.vertices, graph.edges.len()), (10, 20));
/// assert!(graph.edges.iter().all(|e| e.u < e.v && (-2..=2).contains(&e.w)));
/// assert!(random(4, 7, WeightRange { min: 1, max: 1 }, 1).is_err()); // at most 6 edges
/// # Ok::<(), pgomea::Error>(())
/// ```
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
    crate::problem::memory::ensure(m as u128 * (EDGE_BYTES + 16), &format!("a random graph of {m} edges"))?;
    let mut rng = SplitMix64::stream(seed, streams::RANDOM_GRAPH);
    let mut seen: HashSet<u64, BuildHasherDefault<PairHasher>> =
        HashSet::with_capacity_and_hasher(m, Default::default());
    let mut edges = EdgeList::with_capacity(m);
    while edges.len() < m {
        let (a, b) = (rng.index(n) as u32, rng.index(n) as u32);
        if a != b && seen.insert((a.min(b) as u64) << 32 | a.max(b) as u64) {
            edges.push(Edge { u: a.min(b), v: a.max(b), w: weights.draw(&mut rng) });
        }
    }
    Ok(Graph::with_edges(format!("random-n{n}-m{m}-s{seed}"), n, edges))
}

/// A complete graph on n vertices (like Set A).
///
/// ```
/// use pgomea::problem::generate::{WeightRange, brute_force_max_cut, complete};
/// // Unit weights: the best cut of K5 splits it 2 + 3, cutting 6 edges.
/// let k5 = complete(5, WeightRange { min: 1, max: 1 }, 1)?;
/// assert_eq!((k5.edges.len(), brute_force_max_cut(&k5)), (10, 6));
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn complete(n: usize, weights: WeightRange, seed: u64) -> Result<Graph> {
    weights.check()?;
    if n < 2 {
        return Err(Error::usage("a complete graph needs at least 2 vertices"));
    }
    if n > u32::MAX as usize / 2 {
        return Err(Error::usage(format!("{n} vertices is more than this program supports")));
    }
    let m = n as u128 * (n as u128 - 1) / 2;
    crate::problem::memory::ensure(m * EDGE_BYTES, &format!("a complete graph of {n} vertices"))?;
    let mut rng = SplitMix64::stream(seed, streams::COMPLETE_GRAPH);
    let mut edges = EdgeList::with_capacity(n * (n - 1) / 2);
    for u in 0..n as u32 {
        for v in u + 1..n as u32 {
            edges.push(Edge { u, v, w: weights.draw(&mut rng) });
        }
    }
    Ok(Graph::with_edges(format!("complete-n{n}-s{seed}"), n, edges))
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
/// whose optimum is its total weight (set in the graph).
///
/// ```
/// let graph = pgomea::problem::generate::default_instance();
/// assert_eq!((graph.vertices, graph.edges.len()), (400, 800));
/// assert_eq!(graph.optimum, Some(graph.total_weight()?));
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn default_instance() -> Graph {
    let mut i = torus(20, WeightRange { min: 1, max: 5 }, 1).expect("valid generator arguments");
    i.name = "default-torus-20x20".into();
    i
}
