//! Random problems of every kind for the linkage tests: the models and colourings must hold on
//! pairwise, table and clause subfunctions alike (zero weights, constant tables, tautologies,
//! repeated variables, disconnected instances included).

use pgomea_device::rng::SplitMix64;

use crate::problem::GrayBoxProblem;
use crate::problem::generate::{self, WeightRange};
use crate::problem::graph::{Edge, Graph};
use crate::problem::maxcut::MaxCut;
use crate::problem::maxsat::{self, MaxSat, SatFormat};
use crate::problem::tables::TableProblem;
use crate::problem::{nk, trap};

/// A random graph of `l` vertices and up to `edges` edges, weights in -3..=3 (zero included).
pub fn random_graph(l: usize, edges: usize, rng: &mut SplitMix64) -> MaxCut {
    let mut seen = std::collections::HashSet::new();
    let mut list = Vec::new();
    for _ in 0..edges {
        let (a, b) = (rng.below(l as u32), rng.below(l as u32));
        if a != b && seen.insert((a.min(b), a.max(b))) {
            list.push(Edge { u: a, v: b, w: rng.below(7) as i64 - 3 });
        }
    }
    MaxCut::new(Graph::new("random", l, list)).unwrap()
}

/// Random tables of 1 to 4 distinct variables over `l` >= 4 variables, values in a small range
/// (so some tables are constant: linkage weight 0) or one of two values (many equal weights).
pub fn random_tables(l: usize, m: usize, rng: &mut SplitMix64) -> TableProblem {
    let few = rng.coin();
    let subfunctions: Vec<(Vec<u32>, Vec<i64>)> = (0..m)
        .map(|_| {
            let k = 1 + rng.index(4.min(l));
            let mut vars: Vec<u32> = Vec::with_capacity(k);
            while vars.len() < k {
                let v = rng.below(l as u32);
                if !vars.contains(&v) {
                    vars.push(v);
                }
            }
            let values = (0..1 << k).map(|_| if few { rng.below(2) as i64 } else { rng.below(5) as i64 - 2 }).collect();
            (vars, values)
        })
        .collect();
    TableProblem::new("random-tables", "tables", l, &subfunctions, None).unwrap()
}

/// Random weighted clauses of 1 to 4 literals (a variable may repeat, so tautologies occur).
pub fn random_clauses(l: usize, m: usize, rng: &mut SplitMix64) -> MaxSat {
    let clauses: Vec<(i64, Vec<u32>)> = (0..m)
        .map(|_| {
            let k = 1 + rng.index(4);
            (1 + rng.below(3) as i64, (0..k).map(|_| rng.below(2 * l as u32)).collect())
        })
        .collect();
    MaxSat::new("random-clauses", SatFormat::Wcnf, l, &clauses, vec![false; m], None).unwrap()
}

/// One random instance of each kind and shape, `l` about `size` variables (at least 4).
pub fn instances(size: usize, rng: &mut SplitMix64) -> Vec<Box<dyn GrayBoxProblem>> {
    let l = size.max(4);
    let seed = rng.next_u64();
    let side = (l as f64).sqrt().ceil().max(3.0) as usize;
    let unit = WeightRange { min: -1, max: 1 };
    vec![
        Box::new(random_graph(l, rng.index(3 * l), rng)),
        Box::new(MaxCut::new(generate::torus(side, WeightRange { min: 1, max: 3 }, seed).unwrap()).unwrap()),
        Box::new(MaxCut::new(generate::random(l, (2 * l).min(l * (l - 1) / 2), unit, seed).unwrap()).unwrap()),
        Box::new(random_tables(l, rng.index(2 * l), rng)),
        Box::new(nk::sliding_window(l, 1 + rng.index(4), seed).unwrap()),
        Box::new(nk::random_neighbourhood(l, 1 + rng.index(4), seed).unwrap()),
        Box::new(trap::concatenated(1 + rng.index(5), 1 + l / 5, seed, true).unwrap()),
        Box::new(random_clauses(l, rng.index(3 * l), rng)),
        Box::new(maxsat::planted_3sat(l, 4 * l, seed).unwrap().0),
    ]
}
