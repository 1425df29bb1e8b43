//! Weighted Max-Cut as a gray-box problem: one variable per vertex (its side), one subfunction per
//! edge, worth the edge's weight when the edge is cut.

use pgomea_device::gom::cut_value;

use super::GrayBoxProblem;
use super::graph::Instance;

/// Weighted Max-Cut: one variable per vertex (its side), one subfunction per edge, worth the
/// edge's weight when the edge is cut.
#[derive(Clone, Debug)]
pub struct MaxCut {
    pub instance: Instance,
    /// The two ends of each edge, flat: edge e reads ends[2e] and ends[2e+1].
    pub ends: Vec<u32>,
    pub weights: Vec<i64>,
    /// Incidence CSR: the edges of vertex v are incident[offsets[v]..offsets[v+1]].
    pub offsets: Vec<u32>,
    pub incident: Vec<u32>,
}

impl MaxCut {
    pub fn new(instance: Instance) -> Self {
        let n = instance.vertices;
        let mut degree = vec![0u32; n + 1];
        let mut ends = Vec::with_capacity(2 * instance.edges.len());
        let mut weights = Vec::with_capacity(instance.edges.len());
        for e in &instance.edges {
            degree[e.u as usize] += 1;
            degree[e.v as usize] += 1;
            ends.extend_from_slice(&[e.u, e.v]);
            weights.push(e.w);
        }
        let mut offsets = vec![0u32; n + 1];
        for v in 0..n {
            offsets[v + 1] = offsets[v] + degree[v];
        }
        let mut fill = offsets.clone();
        let mut incident = vec![0u32; offsets[n] as usize];
        for (i, e) in instance.edges.iter().enumerate() {
            for v in [e.u, e.v] {
                incident[fill[v as usize] as usize] = i as u32;
                fill[v as usize] += 1;
            }
        }
        MaxCut { instance, ends, weights, offsets, incident }
    }

    pub fn degree(&self, v: usize) -> usize {
        (self.offsets[v + 1] - self.offsets[v]) as usize
    }

    /// The neighbours of v.
    pub fn neighbours(&self, v: usize) -> impl Iterator<Item = (u32, i64)> + '_ {
        self.dependent_subfunctions(v).iter().map(move |&e| {
            let (a, b) = (self.ends[2 * e as usize], self.ends[2 * e as usize + 1]);
            (if a as usize == v { b } else { a }, self.weights[e as usize])
        })
    }
}

impl GrayBoxProblem for MaxCut {
    fn variables(&self) -> usize {
        self.instance.vertices
    }
    fn subfunctions(&self) -> usize {
        self.weights.len()
    }
    fn subfunction_variables(&self, s: usize) -> &[u32] {
        &self.ends[2 * s..2 * s + 2]
    }
    fn dependent_subfunctions(&self, v: usize) -> &[u32] {
        &self.incident[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
    #[inline]
    fn evaluate_subfunction(&self, s: usize, x: &[u8]) -> i64 {
        cut_value(x[self.ends[2 * s] as usize], x[self.ends[2 * s + 1] as usize], self.weights[s])
    }
}

impl MaxCut {
    /// [`super::flip_delta`] specialised to Max-Cut: an edge with exactly one flipped end changes from cut
    /// to uncut or back; an edge with both ends flipped keeps its state and is skipped. Counts the
    /// edges it looks at as one evaluation each, before and after.
    #[inline]
    pub fn cut_flip_delta(&self, x: &[u8], flipped: &[u32], in_flipped: &mut [bool]) -> (i64, u64) {
        if let [v] = flipped {
            let v = *v as usize;
            let xv = x[v];
            let mut delta = 0;
            let range = self.offsets[v] as usize..self.offsets[v + 1] as usize;
            for &e in &self.incident[range.clone()] {
                let (a, b) = (self.ends[2 * e as usize], self.ends[2 * e as usize + 1]);
                let u = (a ^ b ^ v as u32) as usize;
                let w = self.weights[e as usize];
                delta += if x[u] == xv { w } else { -w };
            }
            return (delta, range.len() as u64);
        }
        for &v in flipped {
            in_flipped[v as usize] = true;
        }
        let mut delta = 0;
        let mut visited = 0u64;
        for &v in flipped {
            let v = v as usize;
            let xv = x[v];
            for &e in self.dependent_subfunctions(v) {
                let (a, b) = (self.ends[2 * e as usize], self.ends[2 * e as usize + 1]);
                let u = (a ^ b ^ v as u32) as usize;
                if in_flipped[u] {
                    // Both ends flip: the edge keeps its state; count it once (from its lower end).
                    visited += (v < u) as u64;
                    continue;
                }
                visited += 1;
                let w = self.weights[e as usize];
                delta += if x[u] == xv { w } else { -w };
            }
        }
        for &v in flipped {
            in_flipped[v as usize] = false;
        }
        (delta, visited)
    }
}
