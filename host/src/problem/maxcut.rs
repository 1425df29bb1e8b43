//! Weighted Max-Cut as a gray-box problem: one variable per vertex (its side), one pairwise
//! subfunction per edge, worth the edge's weight when the edge is cut. Nothing outside this
//! module needs to know that a problem is Max-Cut.

use super::graph::Graph;
use super::{GrayBoxProblem, Subfunctions};
use crate::error::Result;

#[derive(Clone, Debug)]
pub struct MaxCut {
    pub graph: Graph,
    functions: Subfunctions,
}

impl MaxCut {
    /// The problem of a graph; fails (with a clear message) when its cut values do not fit in
    /// 64-bit integers.
    pub fn new(graph: Graph) -> Result<Self> {
        let mut ends = Vec::with_capacity(2 * graph.edges.len());
        let mut weights = Vec::with_capacity(graph.edges.len());
        for e in &graph.edges {
            ends.extend_from_slice(&[e.u, e.v]);
            weights.push(e.w);
        }
        let functions = Subfunctions::pairwise(graph.vertices, ends, weights)?;
        Ok(MaxCut { graph, functions })
    }

    /// The number of edges at vertex v.
    pub fn degree(&self, v: usize) -> usize {
        self.functions.dependent(v).len()
    }
}

impl GrayBoxProblem for MaxCut {
    fn name(&self) -> &str {
        &self.graph.name
    }
    fn problem_type(&self) -> &str {
        "max-cut"
    }
    fn functions(&self) -> &Subfunctions {
        &self.functions
    }
    fn statistics(&self) -> Vec<(&'static str, String)> {
        let g = &self.graph;
        let l = g.vertices;
        let degrees: Vec<usize> = (0..l).map(|v| self.degree(v)).collect();
        let (wmin, wmax) = g.edges.iter().fold((i64::MAX, i64::MIN), |(a, b), e| (a.min(e.w), b.max(e.w)));
        let empty = g.edges.is_empty();
        vec![
            ("vertices", l.to_string()),
            ("edges", g.edges.len().to_string()),
            ("weight_min", if empty { 0 } else { wmin }.to_string()),
            ("weight_max", if empty { 0 } else { wmax }.to_string()),
            ("total_weight", g.total_weight().map(|t| t.to_string()).unwrap_or_else(|e| e.to_string())),
            ("degree_min", degrees.iter().min().copied().unwrap_or(0).to_string()),
            ("degree_max", degrees.iter().max().copied().unwrap_or(0).to_string()),
            ("degree_mean", format!("{}", 2.0 * g.edges.len() as f64 / l.max(1) as f64)),
        ]
    }
}
