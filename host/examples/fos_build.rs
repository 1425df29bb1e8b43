//! Times the set-up phases on one instance: reading it, the linkage models, their colourings
//! (the LMIG is never built: Welsh-Powell and DSatur count its edges on the way), and with
//! `--layout` parallel GOM's group layout and local search's variable colouring and annealing
//! schedule. Each phase prints its wall and processor seconds and the peak resident memory
//! during it (Linux: the peak is reset before each phase).
//!
//! cargo run --release --example fos_build -- INSTANCE [MODEL ...] [--lt-population N]
//!     [--coloring METHOD,...] [--no-check] [--layout]
//!
//! MODEL is `univariate`, `flt`, `bflt:K` or `lt` (default: univariate flt bflt:10 bflt:100);
//! `lt` is learned from a uniformly random population of N solutions (default 100). METHOD is
//! `welsh-powell`, `dsatur` or `incidence` (default: all three; the layout uses the first).
//! Every colouring is checked against the FOS and the problem unless `--no-check`.

use std::path::PathBuf;
use std::time::Instant;

use pgomea::gomea::local_search::{AnnealSchedule, VariableColors};
use pgomea::gomea::parallel::layout::GroupLayout;
use pgomea::linkage::coloring::{ColoringMethod, check_groups_independent, variable_coloring};
use pgomea::linkage::conflicts::Sets;
use pgomea::linkage::fos::{Fos, LinkageModel};
use pgomea::stop::StopCheck;
use pgomea_device::rng::SplitMix64;

/// Processor seconds of the process so far (user and system, all threads).
fn cpu_s() -> f64 {
    // SAFETY: getrusage only writes the zeroed plain C struct it is given.
    let r = unsafe {
        let mut r: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut r);
        r
    };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(r.ru_utime) + t(r.ru_stime)
}

/// The peak resident memory since the last reset (VmHWM), in MiB, where Linux tells it.
fn peak_mib() -> Option<u64> {
    pgomea::solve::peak_resident_memory().map(|b| b >> 20)
}

/// Wall and processor seconds since `(wall, cpu)`, and the peak memory since.
fn since(start: (Instant, f64)) -> String {
    let peak = peak_mib().map(|m| format!(", peak {m} MiB")).unwrap_or_default();
    format!("{:.3} s (cpu {:.3} s{peak})", start.0.elapsed().as_secs_f64(), cpu_s() - start.1)
}

/// Starts a phase: resets the peak resident memory (writing 5 to clear_refs) and the clocks.
fn now() -> (Instant, f64) {
    pgomea::solve::reset_peak_resident_memory();
    (Instant::now(), cpu_s())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path: Option<PathBuf> = None;
    let mut models: Vec<LinkageModel> = Vec::new();
    let mut methods = vec![ColoringMethod::WelshPowell, ColoringMethod::DSatur, ColoringMethod::Incidence];
    let mut population = 100usize;
    let mut check = true;
    let mut layout = false;
    while let Some(a) = args.next() {
        if a == "--lt-population" {
            population = args.next().and_then(|s| s.parse().ok()).expect("--lt-population N");
        } else if a == "--coloring" {
            let list = args.next().expect("--coloring METHOD,...");
            methods = list.split(',').map(|m| m.parse().unwrap_or_else(|e| panic!("{e}"))).collect();
        } else if a == "--no-check" {
            check = false;
        } else if a == "--layout" {
            layout = true;
        } else if path.is_none() {
            path = Some(PathBuf::from(a));
        } else {
            models.push(a.parse().unwrap_or_else(|e| panic!("{e}")));
        }
    }
    let path = path.expect("usage: fos_build INSTANCE [MODEL ...] [--lt-population N] [--coloring M,...] [--no-check]");
    if models.is_empty() {
        models = vec![LinkageModel::Univariate, LinkageModel::Flt, LinkageModel::Bflt(10), LinkageModel::Bflt(100)];
    }
    let never = StopCheck::never();
    let t = now();
    let problem = pgomea::problem::load::read(&path, None, &never).unwrap_or_else(|e| panic!("{e}"));
    let problem = &*problem;
    let l = problem.variables();
    println!("{}: {} variables, {} subfunctions (read in {})", problem.name(), l, problem.subfunctions(), since(t));
    for model in models {
        let mut rng = SplitMix64::new(12345);
        let mut t = now();
        let fos = match model {
            LinkageModel::Lt => {
                // Time the learning alone, not the drawing of the population.
                let genes: Vec<u8> = (0..population * l).map(|_| rng.coin() as u8).collect();
                println!("[lt] learned from {population} uniformly random solutions");
                t = now();
                Fos::learned_linkage_tree(&genes, population, l, &mut rng)
            }
            _ => Fos::build(&model, problem, &mut rng, &never).unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(2)
            }),
        };
        println!(
            "[{model}] FOS: {}, {} sets, largest {}, total size {}",
            since(t),
            fos.len(),
            fos.largest_set(),
            fos.total_size()
        );
        let mut first_groups = None;
        for &method in &methods {
            let t = now();
            let (coloring, report) = method.color_sets(Sets::Fos(&fos), problem, &never).unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(2)
            });
            let took = since(t);
            first_groups.get_or_insert_with(|| coloring.groups());
            if check {
                check_groups_independent(&coloring.groups(), &fos, problem).expect("dependent group");
            }
            let edges = report.lmig_edges.map(|e| format!(", {e} LMIG edges counted in {:.3} s", report.degrees_s));
            println!(
                "[{model}] {method}: {took}, {}{}{}",
                coloring.stats(),
                edges.unwrap_or_default(),
                if check { " (checked)" } else { "" }
            );
        }
        if let (true, Some(groups)) = (layout, first_groups) {
            let t = now();
            let layout = GroupLayout::new(problem, &fos, &groups, &never).unwrap_or_else(|e| panic!("{e}"));
            println!(
                "[{model}] layout: {}, {} slots, {} dependent subfunctions",
                since(t),
                layout.slot_set.len(),
                layout.dep_subfunctions.len()
            );
        }
    }
    if layout {
        let t = now();
        let coloring = variable_coloring(problem, methods[0], &never).unwrap_or_else(|e| panic!("{e}"));
        let colors = VariableColors::from_coloring(&coloring, problem.functions(), 0);
        println!("variable colouring ({}): {}, {} colours", methods[0], since(t), colors.colors());
        let t = now();
        AnnealSchedule::new(problem.functions(), 1, &never).unwrap_or_else(|e| panic!("{e}"));
        println!("annealing schedule: {}", since(t));
    }
}
