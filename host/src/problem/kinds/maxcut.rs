//! Weighted Max-Cut as a gray-box problem: one variable per vertex (its side), one pairwise
//! subfunction per edge, worth the edge's weight when the edge is cut. Nothing outside this
//! module needs to know that a problem is Max-Cut.
//!
//! The graph's edge arrays become the pairwise kind's arrays as they are (no copy): the edges are
//! read back from the subfunctions.

use crate::error::Result;
use crate::problem::graph::{Edge, Graph};
use crate::problem::{GrayBoxProblem, Subfunctions};
use crate::stop::StopCheck;

/// Max-Cut on a weighted graph: a gray-box problem of one pairwise subfunction per edge, worth its weight when the edge is cut.
#[derive(Clone, Debug)]
pub struct MaxCut {
    name: String,
    /// The proven maximum cut, when the graph came with one.
    optimum: Option<i64>,
    functions: Subfunctions,
}

impl MaxCut {
    /// The problem of a graph (its edge arrays taken over without a copy); fails (with a clear
    /// message) when an edge joins a vertex to itself, or when its cut values do not fit in
    /// 64-bit integers.
    ///
    /// ```
    /// use pgomea::problem::GrayBoxProblem;
    /// use pgomea::problem::graph::{Edge, EdgeList, Graph};
    /// use pgomea::problem::maxcut::MaxCut;
    /// // A square of unit edges: cutting it into alternate corners cuts every edge.
    /// let edges = (0..4).map(|u| Edge { u, v: (u + 1) % 4, w: 1 }).collect();
    /// let square = MaxCut::new(Graph::new("square", 4, edges))?;
    /// assert_eq!(square.evaluate(&[0, 1, 0, 1]), 4);
    /// assert_eq!(square.evaluate(&[0, 0, 1, 1]), 2);
    /// // From the arrays of an edge list: ends two per edge, then the weights.
    /// let path = EdgeList::from_arrays(vec![0, 1, 1, 2], vec![5, -2]).expect("two ends per weight");
    /// let path = MaxCut::new(Graph::with_edges("path", 3, path))?;
    /// assert_eq!((path.evaluate(&[0, 1, 1]), path.edge(1)), (5, Edge { u: 1, v: 2, w: -2 }));
    /// // Cuts that 64-bit integers cannot hold are refused.
    /// let heavy = Graph::new("heavy", 3, vec![Edge { u: 0, v: 1, w: i64::MAX }, Edge { u: 1, v: 2, w: 1 }]);
    /// assert!(MaxCut::new(heavy).unwrap_err().to_string().contains("beyond 64-bit integers"));
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn new(graph: Graph) -> Result<Self> {
        MaxCut::new_with_stop(graph, &StopCheck::never())
    }

    /// [`MaxCut::new`], stopped (`Error::Stopped`) when `stop` says so, as a read file's graph
    /// is ([`Subfunctions::pairwise_with_stop`]).
    pub fn new_with_stop(graph: Graph, stop: &StopCheck) -> Result<Self> {
        let Graph { name, vertices, edges, optimum } = graph;
        let (ends, weights) = edges.into_arrays();
        let functions = Subfunctions::pairwise_with_stop(vertices, ends, weights, stop)?;
        Ok(MaxCut { name, optimum, functions })
    }

    /// The number of vertices.
    pub fn vertices(&self) -> usize {
        self.functions.variables()
    }

    /// Edge `k` (subfunction k).
    pub fn edge(&self, k: usize) -> Edge {
        let [u, v] = self.functions.variables_of(k) else { unreachable!("a pairwise subfunction reads two variables") };
        // A pairwise subfunction is worth w or 0: its bounds are (min(w, 0), max(w, 0)), read
        // from the weights themselves.
        let (low, high) = self.functions.bounds(k);
        Edge { u: *u, v: *v, w: low + high }
    }

    /// The edges in the order of the graph they came from.
    pub fn edges(&self) -> impl ExactSizeIterator<Item = Edge> + '_ {
        (0..self.functions.len()).map(|k| self.edge(k))
    }

    /// The sum of all weights (the optimum of an even torus with positive weights); an error when
    /// it does not fit in 64 bits.
    pub fn total_weight(&self) -> Result<i64> {
        crate::problem::graph::checked_total(&self.name, self.edges().map(|e| e.w as i128).sum())
    }

    /// The number of edges at vertex v.
    pub fn degree(&self, v: usize) -> usize {
        self.functions.dependent(v).len()
    }
}

impl GrayBoxProblem for MaxCut {
    fn name(&self) -> &str {
        &self.name
    }
    fn problem_type(&self) -> &str {
        "max-cut"
    }
    fn functions(&self) -> &Subfunctions {
        &self.functions
    }
    fn known_optimum(&self) -> Option<i64> {
        self.optimum
    }
    fn statistics(&self) -> Vec<(&'static str, String)> {
        let l = self.vertices();
        let m = self.functions.len();
        let degrees: Vec<usize> = (0..l).map(|v| self.degree(v)).collect();
        let (wmin, wmax) = self.edges().fold((i64::MAX, i64::MIN), |(a, b), e| (a.min(e.w), b.max(e.w)));
        let empty = m == 0;
        vec![
            ("vertices", l.to_string()),
            ("edges", m.to_string()),
            ("weight_min", if empty { 0 } else { wmin }.to_string()),
            ("weight_max", if empty { 0 } else { wmax }.to_string()),
            ("total_weight", self.total_weight().map(|t| t.to_string()).unwrap_or_else(|e| e.to_string())),
            ("degree_min", degrees.iter().min().copied().unwrap_or(0).to_string()),
            ("degree_max", degrees.iter().max().copied().unwrap_or(0).to_string()),
            ("degree_mean", format!("{}", 2.0 * m as f64 / l.max(1) as f64)),
        ]
    }
}
