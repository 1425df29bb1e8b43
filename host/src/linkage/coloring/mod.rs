//! Colouring of the linkage-model interaction graph (LMIG).
//!
//! The LMIG has one vertex per linkage set of a FOS; sets i and j are adjacent (they *conflict*)
//! when they share a variable or an edge of the variable interaction graph (VIG, the Max-Cut graph;
//! every edge counts, whatever its weight) joins a variable of i to a variable of j. Sets of one
//! colour are then mutually independent: GOM can mix all of them at the same time, as each one's
//! partial evaluation reads no variable another one writes.
//!
//! Three greedy colourings: Welsh-Powell (the paper's; sets by decreasing LMIG degree, each takes
//! the smallest colour its coloured neighbours leave free), DSatur (Brélaz; always the uncoloured
//! set with the most distinct colours among its neighbours next), and incidence (Welsh-Powell's
//! rule in the order of decreasing set size, which needs no degrees). None builds the LMIG: the
//! conflicts of a set are enumerated when needed ([`Conflicts`]), and the colours a set must
//! avoid are read from the variables and subfunctions it touches, each of which remembers the
//! colours of the coloured sets touching it. [`Lmig`] builds the graph for tests and small
//! instances; [`welsh_powell`] and [`dsatur`] colour it as the streamed versions do.
//! [`check_groups_independent`] re-checks groups against the FOS and the problem directly.
//!
//! The parts: the built graph (`lmig`), a colouring and its groups (`groups`), DSatur
//! (`dsatur`) and Welsh-Powell's rule by incidence (`incidence`); this module chooses among the
//! colourings.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::linkage::conflicts::{Conflicts, Members, Sets};
use crate::linkage::fos::Fos;
use crate::problem::GrayBoxProblem;
use crate::stop::StopCheck;

mod dsatur;
mod groups;
mod incidence;
mod lmig;

use dsatur::dsatur_by;
use groups::UNCOLORED;
pub use groups::{Coloring, ColoringStats, check_groups_independent};
use incidence::greedy_by_incidence;
pub use lmig::Lmig;
use lmig::degree_order;

/// Which greedy colouring to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColoringMethod {
    /// Welsh-Powell: the sets by decreasing LMIG degree, each given the lowest colour free among its neighbours.
    WelshPowell,
    /// DSatur: next the set with the most distinct colours among its neighbours (ties: the higher LMIG degree), given the lowest free colour.
    DSatur,
    /// Welsh-Powell's rule with the sets by decreasing size (ties: lower index first) instead of
    /// decreasing LMIG degree: no conflict is ever counted, so it takes time linear in the total
    /// size of the sets times the subfunctions per variable.
    Incidence,
}

impl ColoringMethod {
    /// Colours the linkage sets of `fos` over `problem`'s subfunctions, without building the
    /// LMIG; stops with `Error::Stopped` when `stop` says so.
    pub fn color(&self, fos: &Fos, problem: &dyn GrayBoxProblem, stop: &StopCheck) -> Result<Coloring, Error> {
        Ok(self.color_sets(Sets::Fos(fos), problem, stop)?.0)
    }

    /// Colours `sets`, and reports what it counted on the way.
    pub fn color_sets(
        &self,
        sets: Sets,
        problem: &dyn GrayBoxProblem,
        stop: &StopCheck,
    ) -> Result<(Coloring, ColoringReport), Error> {
        let members = Members::new(sets, problem, stop)?;
        let mut report = ColoringReport::default();
        let mut count = |conflicts: &Conflicts, stop: &StopCheck| -> Result<Vec<u32>, Error> {
            let t = std::time::Instant::now();
            let degrees = conflicts.degrees(stop)?;
            report.lmig_edges = Some(degrees.iter().map(|&d| d as u64).sum::<u64>() / 2);
            report.degrees_s = t.elapsed().as_secs_f64();
            Ok(degrees)
        };
        let colored = (|| match self {
            ColoringMethod::WelshPowell => {
                let conflicts = Conflicts::new(sets, problem, stop)?;
                let order = degree_order(&count(&conflicts, stop)?);
                greedy_by_incidence(&members, &order, stop)
            }
            ColoringMethod::DSatur => {
                let conflicts = Conflicts::new(sets, problem, stop)?;
                let degrees = count(&conflicts, stop)?;
                let mut marks = conflicts.marks();
                Ok(dsatur_by(&degrees, |i, f| conflicts.for_each(i, &mut marks, f), stop)?)
            }
            // No conflict is counted or enumerated: the sets' nesting is not needed either.
            ColoringMethod::Incidence => {
                let order = by_decreasing_size(&members, stop)?;
                let colored = greedy_by_incidence(&members, &order, stop);
                if colored.is_err() {
                    crate::stop::drop_aside(order);
                }
                colored
            }
        })();
        // Stopped or not, the variables' own sets (10^8 of them in a huge header) are freed aside.
        members.free_aside();
        let coloring = colored?;
        Ok((coloring, report))
    }
}

/// The sets by decreasing size, ties by index (a stable sort by size), in linear time and checked
/// every [`crate::stop::WORK_PER_CHECK`] sets: sorting the 10^8 sets of a huge header's univariate
/// model took over half a second unchecked.
fn by_decreasing_size(members: &Members, stop: &StopCheck) -> Result<Vec<u32>, Error> {
    let n = members.len();
    let size = |i: usize| members.of(i).len();
    let mut largest = 0;
    for i in 0..n {
        stop.every(i, crate::stop::WORK_PER_CHECK)?;
        largest = largest.max(size(i));
    }
    // Where the sets of each size begin: the largest first.
    let mut next = vec![0usize; largest + 1];
    for i in 0..n {
        stop.every(i, crate::stop::WORK_PER_CHECK)?;
        next[size(i)] += 1;
    }
    let mut start = 0;
    for count in next.iter_mut().rev() {
        (*count, start) = (start, start + *count);
    }
    let mut order = stop.filled(n, |_| 0u32)?;
    for i in 0..n {
        if let Err(reason) = stop.every(i, crate::stop::WORK_PER_CHECK) {
            crate::stop::drop_aside(order);
            return Err(reason.into());
        }
        let at = &mut next[size(i)];
        order[*at] = i as u32;
        *at += 1;
    }
    Ok(order)
}

/// What a colouring counted on the way: the LMIG's edges and the seconds spent counting them,
/// when the method orders by LMIG degree (Welsh-Powell, DSatur).
#[derive(Clone, Copy, Debug, Default)]
pub struct ColoringReport {
    /// The LMIG's edges, where the method counted them.
    pub lmig_edges: Option<u64>,
    /// Seconds spent counting them.
    pub degrees_s: f64,
}

impl fmt::Display for ColoringMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ColoringMethod::WelshPowell => "welsh-powell",
            ColoringMethod::DSatur => "dsatur",
            ColoringMethod::Incidence => "incidence",
        })
    }
}

impl FromStr for ColoringMethod {
    type Err = Error;

    /// Parses `welsh-powell`, `dsatur` or `incidence` (ASCII case ignored).
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "welsh-powell" => Ok(ColoringMethod::WelshPowell),
            "dsatur" => Ok(ColoringMethod::DSatur),
            "incidence" => Ok(ColoringMethod::Incidence),
            _ => Err(Error::usage(format!(
                "unknown colouring method `{s}`: expected `welsh-powell`, `dsatur` or `incidence`"
            ))),
        }
    }
}

/// Welsh-Powell on a built LMIG: sets in order of decreasing LMIG degree (ties: lower index
/// first), each given the smallest colour no already-coloured neighbour has. O(edges + sets log
/// sets). [`ColoringMethod::WelshPowell`] gives the same colouring without the LMIG.
pub fn welsh_powell(lmig: &Lmig) -> Coloring {
    let n = lmig.len();
    let order = degree_order(&lmig.degrees());
    let mut colors = vec![UNCOLORED; n];
    // forbidden[c] == i + 1: colour c is taken by a neighbour of set i.
    let mut forbidden = vec![0u32; lmig.max_degree() + 2];
    for &i in &order {
        let stamp = i + 1;
        for &j in lmig.neighbours(i as usize) {
            let c = colors[j as usize];
            if c != UNCOLORED {
                forbidden[c as usize] = stamp;
            }
        }
        let c = forbidden.iter().position(|&f| f != stamp).expect("a free colour below degree + 1");
        colors[i as usize] = c as u32;
    }
    Coloring::from_colors(colors)
}

/// DSatur on a built LMIG: see `dsatur_by`. [`ColoringMethod::DSatur`] gives the same colouring
/// without the LMIG.
pub fn dsatur(lmig: &Lmig) -> Coloring {
    dsatur_by(&lmig.degrees(), |i, f| lmig.neighbours(i).iter().for_each(|&j| f(j)), &StopCheck::never())
        .expect("a check that never stops")
}

/// The variables of `problem` coloured so that no subfunction reads two variables of one
/// colour: the groups of colour-grouped local search, whose flips within a group are then exact
/// together. This is the colouring of the univariate linkage model's interaction graph (set {v}
/// conflicts with {u} exactly when a subfunction reads both), by `method`, without building the
/// univariate model or the graph.
pub fn variable_coloring(
    problem: &dyn GrayBoxProblem,
    method: ColoringMethod,
    stop: &StopCheck,
) -> Result<Coloring, Error> {
    Ok(method.color_sets(Sets::Variables(problem.variables()), problem, stop)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linkage::testing::{self, random_graph};
    use crate::problem::graph::{Edge, Graph};
    use crate::problem::maxcut::MaxCut;
    use pgomea_device::rng::SplitMix64;
    use std::cmp::Reverse;

    pub(super) fn graph(l: usize, edges: &[(u32, u32)]) -> MaxCut {
        MaxCut::new(Graph::new("test", l, edges.iter().map(|&(u, v)| Edge { u, v, w: 1 }).collect())).unwrap()
    }

    #[test]
    fn the_incidence_order_is_a_stable_sort_by_decreasing_size() {
        let mut rng = SplitMix64::new(12);
        for l in [1, 2, 7, 40] {
            let p = graph(l, &[]);
            for _ in 0..20 {
                let fos = random_fos(l, &mut rng);
                let members = Members::new(Sets::Fos(&fos), &p, &StopCheck::never()).unwrap();
                let mut sorted: Vec<u32> = (0..fos.len() as u32).collect();
                sorted.sort_by_key(|&i| Reverse(fos.set(i as usize).len()));
                assert_eq!(by_decreasing_size(&members, &StopCheck::never()).unwrap(), sorted, "{fos:?}");
            }
        }
    }

    fn random_fos(l: usize, rng: &mut SplitMix64) -> Fos {
        let count = 1 + rng.index(3 * l);
        let sets = (0..count)
            .map(|_| {
                let size = 1 + rng.index(l.min(6));
                let mut s: Vec<u32> = (0..size).map(|_| rng.below(l as u32)).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        Fos::from_sets(sets)
    }

    /// All pairs, straight from the definition.
    fn brute_force_lmig(fos: &Fos, p: &MaxCut) -> Lmig {
        let n = fos.len();
        let conflict = |a: &[u32], b: &[u32]| {
            a.iter().any(|x| b.contains(x))
                || p.edges().any(|e| (a.contains(&e.u) && b.contains(&e.v)) || (a.contains(&e.v) && b.contains(&e.u)))
        };
        let mut offsets = vec![0];
        let mut adj = Vec::new();
        for i in 0..n {
            for j in 0..n {
                if i != j && conflict(fos.set(i), fos.set(j)) {
                    adj.push(j as u32);
                }
            }
            offsets.push(adj.len());
        }
        Lmig { offsets, adj }
    }

    pub(super) fn foses(l: usize, p: &dyn GrayBoxProblem, rng: &mut SplitMix64) -> Vec<Fos> {
        vec![
            Fos::univariate(l),
            Fos::fixed_linkage_tree(p, None, rng, &StopCheck::never()).unwrap(),
            Fos::fixed_linkage_tree(p, Some(1 + rng.index(6)), rng, &StopCheck::never()).unwrap(),
            random_fos(l, rng),
        ]
    }

    #[test]
    fn lmig_equals_brute_force() {
        let mut rng = SplitMix64::new(17);
        for _ in 0..40 {
            let l = 1 + rng.index(30);
            let p = random_graph(l, rng.index(3 * l), &mut rng);
            for fos in foses(l, &p, &mut rng) {
                let lmig = Lmig::build(&fos, &p).unwrap();
                assert_eq!(lmig, brute_force_lmig(&fos, &p), "l = {l}, fos = {:?}", fos);
                for i in 0..lmig.len() {
                    assert!(lmig.neighbours(i).windows(2).all(|w| w[0] < w[1]));
                    assert!(!lmig.neighbours(i).contains(&(i as u32)));
                }
                assert_eq!(lmig.adj.len() % 2, 0);
            }
        }
    }

    /// Every colour below c appears among the neighbours of a set of colour c (every method takes
    /// the smallest free colour), and, for a method colouring in a fixed `order`, among the
    /// neighbours coloured before it.
    fn assert_greedy(coloring: &Coloring, lmig: &Lmig, order: Option<&[u32]>) {
        let n = lmig.len();
        let mut rank = vec![0usize; n];
        for (r, &i) in order.unwrap_or(&[]).iter().enumerate() {
            rank[i as usize] = r;
        }
        for i in 0..n {
            let c = coloring.colors[i];
            for lower in 0..c {
                assert!(
                    lmig.neighbours(i)
                        .iter()
                        .any(|&j| coloring.colors[j as usize] == lower
                            && (order.is_none() || rank[j as usize] < rank[i])),
                    "set {i} has colour {c} but colour {lower} was free"
                );
            }
        }
        let used: std::collections::HashSet<u32> = coloring.colors.iter().copied().collect();
        assert_eq!(used.len(), coloring.num_colors, "unused colours");
    }

    /// The sets by decreasing size, ties by lower index: the incidence colouring's order.
    pub(super) fn size_order(fos: &Fos) -> Vec<u32> {
        let mut order: Vec<u32> = (0..fos.len() as u32).collect();
        order.sort_by_key(|&i| (Reverse(fos.set(i as usize).len()), i));
        order
    }

    #[test]
    fn colourings_are_valid() {
        let mut rng = SplitMix64::new(5);
        let never = StopCheck::never();
        for _ in 0..40 {
            let l = 1 + rng.index(60);
            let p = random_graph(l, rng.index(4 * l), &mut rng);
            for fos in foses(l, &p, &mut rng) {
                let lmig = Lmig::build(&fos, &p).unwrap();
                for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur, ColoringMethod::Incidence] {
                    let coloring = method.color(&fos, &p, &never).unwrap();
                    coloring.validate(&lmig).unwrap();
                    assert!(coloring.is_valid(&lmig));
                    let groups = coloring.groups();
                    check_groups_independent(&groups, &fos, &p).unwrap();
                    // The groups partition the sets, ascending within each group.
                    let mut all: Vec<u32> = groups.iter().flatten().copied().collect();
                    assert!(groups.iter().all(|g| !g.is_empty() && g.windows(2).all(|w| w[0] < w[1])));
                    all.sort_unstable();
                    assert_eq!(all, (0..fos.len() as u32).collect::<Vec<_>>());
                    let order = match method {
                        ColoringMethod::WelshPowell => Some(degree_order(&lmig.degrees())),
                        ColoringMethod::DSatur => None,
                        ColoringMethod::Incidence => Some(size_order(&fos)),
                    };
                    assert_greedy(&coloring, &lmig, order.as_deref());
                    assert!(coloring.num_colors <= lmig.max_degree() + 1);
                }
            }
        }
    }

    #[test]
    fn validators_reject_bad_colourings() {
        // Path 0-1-2-3 and sets {0}, {1}, {2,3}, {0,3}.
        let p = graph(4, &[(0, 1), (1, 2), (2, 3)]);
        let fos = Fos::from_sets(vec![vec![0], vec![1], vec![2, 3], vec![0, 3]]);
        let lmig = Lmig::build(&fos, &p).unwrap();
        assert_eq!(lmig.neighbours(0), &[1, 3]);
        assert_eq!(lmig.neighbours(2), &[1, 3]);
        let bad = Coloring { colors: vec![0, 1, 0, 0], num_colors: 2 };
        assert!(!bad.is_valid(&lmig));
        assert!(bad.validate(&lmig).unwrap_err().contains("share colour"));
        // Sharing a variable: sets 0 and 3.
        let e = check_groups_independent(&[vec![0, 3], vec![1], vec![2]], &fos, &p).unwrap_err();
        assert!(e.contains("share variable 0"), "{e}");
        // Joined by an edge (a subfunction reads both): sets 0 and 1.
        let e = check_groups_independent(&[vec![0, 1], vec![2], vec![3]], &fos, &p).unwrap_err();
        assert!(e.contains("both meet subfunction"), "{e}");
        // Listed twice / out of range.
        assert!(check_groups_independent(&[vec![0, 2], vec![2]], &fos, &p).is_err());
        assert!(check_groups_independent(&[vec![7]], &fos, &p).is_err());
        // Good: {0,2} and {1,3} would be fine for sets 0 and 2 (no edge 0-2 or 0-3), but 1 and 3
        // conflict (edge 0-1).
        check_groups_independent(&[vec![0, 2], vec![1], vec![3]], &fos, &p).unwrap();
        let good = Coloring { colors: vec![0, 1, 0, 2], num_colors: 3 };
        good.validate(&lmig).unwrap();
        assert!(Coloring { colors: vec![0, 1, 0], num_colors: 3 }.validate(&lmig).is_err());
        assert!(Coloring { colors: vec![0, 1, 0, 3], num_colors: 3 }.validate(&lmig).is_err());
    }

    #[test]
    fn known_chromatic_numbers() {
        let uni = |l: usize, edges: &[(u32, u32)]| Lmig::build(&Fos::univariate(l), &graph(l, edges)).unwrap();
        // Even cycle, grid, tree: bipartite, DSatur is exact there.
        let cycle = |l: u32| (0..l).map(|i| (i, (i + 1) % l)).collect::<Vec<_>>();
        let mut grid = Vec::new();
        for r in 0..6u32 {
            for c in 0..7u32 {
                if c + 1 < 7 {
                    grid.push((r * 7 + c, r * 7 + c + 1));
                }
                if r + 1 < 6 {
                    grid.push((r * 7 + c, (r + 1) * 7 + c));
                }
            }
        }
        assert_eq!(dsatur(&uni(10, &cycle(10))).num_colors, 2);
        assert_eq!(dsatur(&uni(42, &grid)).num_colors, 2);
        assert_eq!(dsatur(&uni(9, &cycle(9))).num_colors, 3);
        assert_eq!(welsh_powell(&uni(9, &cycle(9))).num_colors, 3);
        let complete: Vec<(u32, u32)> = (0..7).flat_map(|i| (i + 1..7).map(move |j| (i, j))).collect();
        assert_eq!(dsatur(&uni(7, &complete)).num_colors, 7);
        assert_eq!(welsh_powell(&uni(7, &complete)).num_colors, 7);
        assert_eq!(dsatur(&uni(5, &[])).num_colors, 1);
        assert_eq!(welsh_powell(&uni(5, &[])).num_colors, 1);
        assert_eq!(dsatur(&Lmig::from_lists(&[])).num_colors, 0);
        // Crown graph, u_i = 2i, v_i = 2i + 1, u_i ~ v_j for i != j: all degrees equal, so
        // Welsh-Powell colours in index order and needs n colours; DSatur needs 2.
        let n = 6u32;
        let crown: Vec<(u32, u32)> =
            (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (2 * i, 2 * j + 1))).collect();
        let lmig = uni(2 * n as usize, &crown);
        assert_eq!(welsh_powell(&lmig).num_colors, n as usize);
        assert_eq!(dsatur(&lmig).num_colors, 2);
        // Welsh-Powell takes the larger degree first: a star's centre gets colour 0.
        let star = uni(6, &[(5, 0), (5, 1), (5, 2), (5, 3), (5, 4)]);
        let wp = welsh_powell(&star);
        assert_eq!(wp.colors, vec![1, 1, 1, 1, 1, 0]);
        assert_eq!(dsatur(&star).colors, vec![1, 1, 1, 1, 1, 0]);
    }

    #[test]
    fn stats_and_groups() {
        let c = Coloring { colors: vec![0, 1, 0, 2, 0, 1], num_colors: 3 };
        assert_eq!(c.groups(), vec![vec![0, 2, 4], vec![1, 5], vec![3]]);
        assert_eq!(c.stats(), ColoringStats { num_colors: 3, min_group: 1, median_group: 2, max_group: 3 });
        let c = Coloring { colors: vec![0, 1, 0, 1, 2, 3, 3, 3], num_colors: 4 };
        assert_eq!(c.stats().median_group, 2);
        assert_eq!(Coloring { colors: vec![], num_colors: 0 }.stats().max_group, 0);
    }

    #[test]
    fn method_parse_and_display() {
        for (s, m) in [
            ("welsh-powell", ColoringMethod::WelshPowell),
            ("dsatur", ColoringMethod::DSatur),
            ("incidence", ColoringMethod::Incidence),
        ] {
            assert_eq!(s.parse::<ColoringMethod>().unwrap(), m);
            assert_eq!(m.to_string(), s);
        }
        assert_eq!("DSatur".parse::<ColoringMethod>().unwrap(), ColoringMethod::DSatur);
        assert!("greedy".parse::<ColoringMethod>().unwrap_err().to_string().contains("welsh-powell"));
    }

    /// Without the LMIG, the same conflicts, degrees, and Welsh-Powell and DSatur colourings as
    /// with it; the incidence colouring is a valid greedy colouring in its order. Random instances
    /// of every kind (pairwise, tables, clauses), with trees (the conflicts walk up the tree) and
    /// random overlapping families (they use the index).
    #[test]
    fn streamed_colourings_equal_the_lmig_ones_on_every_kind() {
        let mut rng = SplitMix64::new(23);
        let never = StopCheck::never();
        for trial in 0..6 {
            for p in testing::instances(4 + rng.index(if trial < 4 { 30 } else { 150 }), &mut rng) {
                let p = &*p;
                for fos in foses(p.variables(), p, &mut rng) {
                    let lmig = Lmig::build(&fos, p).unwrap();
                    let conflicts = Conflicts::new(Sets::Fos(&fos), p, &never).unwrap();
                    let mut marks = conflicts.marks();
                    for i in 0..fos.len() {
                        let mut row = Vec::new();
                        conflicts.for_each(i, &mut marks, |j| row.push(j));
                        row.sort_unstable();
                        assert_eq!(row, lmig.neighbours(i), "{}: set {i} of {:?}", p.name(), fos);
                    }
                    assert_eq!(conflicts.degrees(&never).unwrap(), lmig.degrees());
                    let (wp, report) = ColoringMethod::WelshPowell.color_sets(Sets::Fos(&fos), p, &never).unwrap();
                    assert_eq!(wp, welsh_powell(&lmig), "{}", p.name());
                    assert_eq!(report.lmig_edges, Some(lmig.num_edges() as u64));
                    assert_eq!(ColoringMethod::DSatur.color(&fos, p, &never).unwrap(), dsatur(&lmig), "{}", p.name());
                    let incidence = ColoringMethod::Incidence.color(&fos, p, &never).unwrap();
                    incidence.validate(&lmig).unwrap();
                    check_groups_independent(&incidence.groups(), &fos, p).unwrap();
                    assert_greedy(&incidence, &lmig, Some(&size_order(&fos)));
                }
                // The variables' colouring, as the univariate model's.
                let lmig = Lmig::build(&Fos::univariate(p.variables()), p).unwrap();
                assert_eq!(variable_coloring(p, ColoringMethod::WelshPowell, &never).unwrap(), welsh_powell(&lmig));
                assert_eq!(variable_coloring(p, ColoringMethod::DSatur, &never).unwrap(), dsatur(&lmig));
                let incidence = variable_coloring(p, ColoringMethod::Incidence, &never).unwrap();
                incidence.validate(&lmig).unwrap();
            }
        }
    }

    /// Colours beyond the first blocks of 64 and 128: cliques of 300 sets (a complete graph's
    /// univariate model), and a star of cliques.
    #[test]
    fn many_colours_span_several_blocks() {
        let never = StopCheck::never();
        let complete: Vec<(u32, u32)> = (0..300).flat_map(|i| (i + 1..300).map(move |j| (i, j))).collect();
        let p = graph(300, &complete);
        let lmig = Lmig::build(&Fos::univariate(300), &p).unwrap();
        for method in [ColoringMethod::WelshPowell, ColoringMethod::Incidence] {
            let c = variable_coloring(&p, method, &never).unwrap();
            assert_eq!(c.num_colors, 300);
            assert_eq!(c, welsh_powell(&lmig));
        }
        let mut rng = SplitMix64::new(3);
        let p = random_graph(300, 60000, &mut rng);
        let lmig = Lmig::build(&Fos::univariate(300), &p).unwrap();
        let c = variable_coloring(&p, ColoringMethod::WelshPowell, &never).unwrap();
        assert!(c.num_colors > 64, "{}", c.num_colors);
        assert_eq!(c, welsh_powell(&lmig));
    }

    #[test]
    fn flat_groups_are_the_groups_in_a_row() {
        let c = Coloring { colors: vec![2, 0, 1, 0, 2, 2], num_colors: 3 };
        let (offsets, members) = c.flat_groups(&StopCheck::never()).unwrap();
        assert_eq!(offsets, vec![0, 2, 3, 6]);
        assert_eq!(members, c.groups().concat());
    }

    #[test]
    fn a_stopped_colouring_says_why() {
        let p = random_graph(2000, 6000, &mut SplitMix64::new(4));
        let fos = Fos::fixed_linkage_tree(&p, None, &mut SplitMix64::new(1), &StopCheck::never()).unwrap();
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let setter = flag.clone();
        std::thread::spawn(move || setter.store(true, std::sync::atomic::Ordering::Relaxed)).join().unwrap();
        let interrupted = StopCheck::new(None, Some(flag));
        let past = StopCheck::new(Some(std::time::Instant::now()), None);
        for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur, ColoringMethod::Incidence] {
            let e = method.color(&fos, &p, &interrupted).unwrap_err();
            assert!(matches!(e, Error::Stopped(crate::stop::StopReason::Interrupted)), "{method}: {e}");
            let e = variable_coloring(&p, method, &past).unwrap_err();
            assert!(matches!(e, Error::Stopped(crate::stop::StopReason::TimeLimit)), "{method}: {e}");
        }
    }

    #[test]
    fn from_lists_symmetrises() {
        let g = Lmig::from_lists(&[vec![1, 1, 0], vec![], vec![0]]);
        assert_eq!(g.neighbours(0), &[1, 2]);
        assert_eq!(g.neighbours(1), &[0]);
        assert_eq!(g.neighbours(2), &[0]);
        assert_eq!(g.num_edges(), 2);
    }
}
