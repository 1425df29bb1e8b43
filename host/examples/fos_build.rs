//! Times the linkage models, the LMIG and the colourings on one instance.
//!
//! cargo run --release --example fos_build -- INSTANCE [MODEL ...] [--lt-population N]
//!
//! MODEL is `univariate`, `flt`, `bflt:K` or `lt` (default: univariate flt bflt:10 bflt:100);
//! `lt` is learned from a uniformly random population of N solutions (default 100).

use std::path::PathBuf;
use std::time::Instant;

use pgomea::linkage::coloring::{ColoringMethod, Lmig, check_groups_independent};
use pgomea::linkage::fos::{Fos, LinkageModel};
use pgomea_device::rng::SplitMix64;

fn cpu_s() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    unsafe {
        let mut r: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut r);
        (r.ru_utime.tv_sec + r.ru_stime.tv_sec) as f64 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) as f64 * 1e-6
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path: Option<PathBuf> = None;
    let mut models: Vec<LinkageModel> = Vec::new();
    let mut population = 100usize;
    while let Some(a) = args.next() {
        if a == "--lt-population" {
            population = args.next().and_then(|s| s.parse().ok()).expect("--lt-population N");
        } else if path.is_none() {
            path = Some(PathBuf::from(a));
        } else {
            models.push(a.parse().unwrap_or_else(|e| panic!("{e}")));
        }
    }
    let path = path.expect("usage: fos_build INSTANCE [MODEL ...] [--lt-population N]");
    if models.is_empty() {
        models = vec![LinkageModel::Univariate, LinkageModel::Flt, LinkageModel::Bflt(10), LinkageModel::Bflt(100)];
    }
    let t = Instant::now();
    let problem = pgomea::problem::load::read(&path, None).unwrap_or_else(|e| panic!("{e}"));
    let problem = &*problem;
    let l = problem.variables();
    println!(
        "{}: {} variables, {} subfunctions (read in {:.3} s)",
        problem.name(),
        l,
        problem.subfunctions(),
        t.elapsed().as_secs_f64()
    );
    for model in models {
        let mut rng = SplitMix64::new(12345);
        let mut t = Instant::now();
        let c0 = cpu_s();
        let fos = match model {
            LinkageModel::Lt => {
                // Time the learning alone, not the drawing of the population.
                let genes: Vec<u8> = (0..population * l).map(|_| rng.coin() as u8).collect();
                println!("[lt] learned from {population} uniformly random solutions");
                t = Instant::now();
                Fos::learned_linkage_tree(&genes, population, l, &mut rng)
            }
            _ => Fos::build(&model, problem, &mut rng, &pgomea::stop::StopCheck::never()).unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(2)
            }),
        };
        let fos_s = t.elapsed().as_secs_f64();
        println!("[{model}] FOS cpu {:.3} s", cpu_s() - c0);
        println!(
            "[{model}] FOS: {:.3} s, {} sets, largest {}, total size {}",
            fos_s,
            fos.len(),
            fos.largest_set(),
            fos.total_size()
        );
        let t = Instant::now();
        let lmig = Lmig::build(&fos, problem);
        println!(
            "[{model}] LMIG: {:.3} s, {} edges, max degree {}",
            t.elapsed().as_secs_f64(),
            lmig.num_edges(),
            lmig.max_degree()
        );
        for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur] {
            let t = Instant::now();
            let coloring = method.color(&lmig);
            let secs = t.elapsed().as_secs_f64();
            coloring.validate(&lmig).expect("invalid colouring");
            check_groups_independent(&coloring.groups(), &fos, problem).expect("dependent group");
            println!("[{model}] {method}: {secs:.3} s, {} (validated)", coloring.stats());
        }
    }
}
