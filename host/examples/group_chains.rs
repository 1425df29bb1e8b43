//! The longest chain of dependent linkage sets in the order of parallel GOM's colour groups:
//! sets of one group share no subfunction, and a set must wait for every set of an earlier group
//! that shares a subfunction with it, so no schedule that keeps the populations as they are runs
//! in fewer dependent phases than this chain's length. A first-fit colouring (each of
//! Welsh-Powell, DSatur and incidence gives a set the smallest colour no conflicting set holds)
//! makes it equal to the number of groups: a set of colour c conflicts with one of colour c - 1.
//!
//! A generation runs the groups in an order of its own (shuffled every generation). With
//! `--orders K` it also draws K such orders and gives, for each, the longest chain and the phases
//! of a schedule that runs consecutive groups in one phase while no set of one shares a
//! subfunction with a set of another (the fewest barriers that keep the populations, where the
//! phases follow the order).
//!
//! cargo run --release -p pgomea --example group_chains -- INSTANCE [--coloring METHOD] [--orders K]

use std::path::PathBuf;

use pgomea::gomea::parallel::layout::GroupLayout;
use pgomea::linkage::coloring::ColoringMethod;
use pgomea::linkage::conflicts::Sets;
use pgomea::linkage::fos::{Fos, LinkageModel};
use pgomea::stop::StopCheck;
use pgomea_device::rng::SplitMix64;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut method = ColoringMethod::WelshPowell;
    let mut orders = 0;
    while let Some(a) = args.next() {
        if a == "--orders" {
            orders = args.next().and_then(|k| k.parse().ok()).expect("--orders K");
        } else if a == "--coloring" {
            method = args.next().expect("--coloring METHOD").parse().unwrap_or_else(|e| panic!("{e}"));
        } else {
            path = Some(PathBuf::from(a));
        }
    }
    let path = path.expect("usage: group_chains INSTANCE [--coloring METHOD] [--orders K]");
    let never = StopCheck::never();
    let problem = pgomea::problem::load::read(&path, None, &never).unwrap_or_else(|e| panic!("{e}"));
    let problem = &*problem;
    let fos =
        Fos::build(&LinkageModel::Flt, problem, &mut SplitMix64::new(1), &never).unwrap_or_else(|e| panic!("{e}"));
    let (coloring, _) = method.color_sets(Sets::Fos(&fos), problem, &never).unwrap_or_else(|e| panic!("{e}"));
    let layout = GroupLayout::new(problem, &fos, &coloring.groups(), &never).unwrap_or_else(|e| panic!("{e}"));
    let groups = layout.groups();
    let in_order: Vec<usize> = (0..groups).collect();
    println!(
        "{}: {} linkage sets in {groups} colour groups ({method}); the longest chain of dependent sets: {}",
        problem.name(),
        layout.slot_set.len(),
        longest_chain(&layout, problem.subfunctions(), &in_order)
    );
    if orders == 0 {
        return;
    }
    // Which groups share a subfunction: every pair of groups that reads one.
    let mut readers = vec![Vec::new(); problem.subfunctions()];
    for g in 0..groups {
        for s in layout.slots(g) {
            for &f in layout.set_deps(s) {
                readers[f as usize].push(g);
            }
        }
    }
    let mut conflict = vec![false; groups * groups];
    for r in &readers {
        for &a in r {
            for &b in r {
                conflict[a * groups + b] = a != b;
            }
        }
    }
    let pairs = conflict.iter().filter(|&&c| c).count() / 2;
    println!("  pairs of groups that share a subfunction: {pairs} of {}", groups * (groups - 1) / 2);
    let reads: usize = readers.iter().map(Vec::len).sum();
    println!(
        "  sets reading a subfunction: {:.1} on average, at most {}",
        reads as f64 / readers.len().max(1) as f64,
        readers.iter().map(Vec::len).max().unwrap_or(0)
    );
    let mut rng = SplitMix64::new(7);
    for k in 0..orders {
        let mut order = in_order.clone();
        rng.shuffle(&mut order);
        let mut phases = 0;
        let mut phase: Vec<usize> = Vec::new();
        for &g in &order {
            if phase.is_empty() || phase.iter().any(|&h| conflict[g * groups + h]) {
                phases += 1;
                phase.clear();
            }
            phase.push(g);
        }
        println!(
            "  order {k}: longest chain {}, phases of independent consecutive groups {phases}",
            longest_chain(&layout, problem.subfunctions(), &order)
        );
    }
}

/// The longest chain of sets, each sharing a subfunction with the one before it in an earlier
/// group of `order`.
fn longest_chain(layout: &GroupLayout, subfunctions: usize, order: &[usize]) -> u32 {
    // Each subfunction remembers the depth of the last set that read it.
    let mut last = vec![0u32; subfunctions];
    let mut longest = 0;
    for &g in order {
        // Sets of one group share no subfunction, so their depths can be written as they go.
        for s in layout.slots(g) {
            let depth = 1 + layout.set_deps(s).iter().map(|&f| last[f as usize]).max().unwrap_or(0);
            for &f in layout.set_deps(s) {
                last[f as usize] = depth;
            }
            longest = longest.max(depth);
        }
    }
    longest
}
