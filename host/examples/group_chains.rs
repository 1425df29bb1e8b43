//! The longest chain of dependent linkage sets in the order of parallel GOM's colour groups:
//! sets of one group share no subfunction, and a set must wait for every set of an earlier group
//! that shares a subfunction with it, so no schedule that keeps the populations as they are runs
//! in fewer dependent phases than this chain's length. A first-fit colouring (each of
//! Welsh-Powell, DSatur and incidence gives a set the smallest colour no conflicting set holds)
//! makes it equal to the number of groups: a set of colour c conflicts with one of colour c - 1.
//!
//! cargo run --release -p pgomea --example group_chains -- INSTANCE [--coloring METHOD]

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
    while let Some(a) = args.next() {
        if a == "--coloring" {
            method = args.next().expect("--coloring METHOD").parse().unwrap_or_else(|e| panic!("{e}"));
        } else {
            path = Some(PathBuf::from(a));
        }
    }
    let path = path.expect("usage: group_chains INSTANCE [--coloring METHOD]");
    let never = StopCheck::never();
    let problem = pgomea::problem::load::read(&path, None, &never).unwrap_or_else(|e| panic!("{e}"));
    let problem = &*problem;
    let fos =
        Fos::build(&LinkageModel::Flt, problem, &mut SplitMix64::new(1), &never).unwrap_or_else(|e| panic!("{e}"));
    let (coloring, _) = method.color_sets(Sets::Fos(&fos), problem, &never).unwrap_or_else(|e| panic!("{e}"));
    let layout = GroupLayout::new(problem, &fos, &coloring.groups(), &never).unwrap_or_else(|e| panic!("{e}"));
    // Slots are numbered group by group; each subfunction remembers the last slot that read it.
    let mut last = vec![u32::MAX; problem.subfunctions()];
    let slots = layout.slot_set.len();
    let mut depth = vec![0u32; slots];
    for s in 0..slots {
        let deps = &layout.dep_subfunctions[layout.dep_offsets[s] as usize..layout.dep_offsets[s + 1] as usize];
        depth[s] = 1 + deps
            .iter()
            .filter(|&&f| last[f as usize] != u32::MAX)
            .map(|&f| depth[last[f as usize] as usize])
            .max()
            .unwrap_or(0);
        for &f in deps {
            last[f as usize] = s as u32;
        }
    }
    println!(
        "{}: {} linkage sets in {} colour groups ({method}); the longest chain of dependent sets: {}",
        problem.name(),
        slots,
        layout.group_slots.len() - 1,
        depth.iter().max().copied().unwrap_or(0)
    );
}
