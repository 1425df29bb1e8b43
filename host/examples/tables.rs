//! A problem built in code, as tables of subfunctions, solved with every algorithm and backend
//! the library has: serial GOMEA, parallel GOMEA on the CPU backend, parallel GOMEA on the CUDA
//! backend (when a GPU is there), and the default hybrid (parallel GOMEA with annealed local
//! search of every new population, on the GPU if there is one, else on the CPU). Each run prints
//! the backend it ran on, its best fitness, whether it reached the optimum, and its time; an
//! [`Observer`] prints every improvement of the best solution as it happens.
//!
//! cargo run --release -p pgomea --example tables
//!
//! The problem is a concatenated deceptive trap written out by hand: block b of k variables is
//! worth k when all of them are 1, else k - 1 - (its number of ones), so that every step towards
//! all ones loses until the last one. Block b reads the variables b, b + B, b + 2B, ... (B
//! blocks), so that linked variables are not neighbours. The optimum, B x k, is all ones.
//! tests/examples.rs runs the same construction and checks that the CPU runs reach it.

use pgomea::gomea::LocalSearchMode;
use pgomea::gomea::run::{Observer, TracePoint};
use pgomea::problem::GrayBoxProblem;
use pgomea::problem::tables::TableProblem;
use pgomea::solve::{Algorithm, Backend, Hooks, Outcome, RunOptions, Target, decide_backend, solve};

/// Variables per trap.
pub const K: usize = 5;
/// Traps.
pub const BLOCKS: usize = 20;

/// The value of one trap of `k` genes, `ones` of them at 1.
pub fn trap(k: usize, ones: usize) -> i64 {
    if ones == k { k as i64 } else { (k - 1 - ones) as i64 }
}

/// `blocks` traps of `k` variables, block b reading the variables b, b + blocks, b + 2 blocks,
/// ...: one table of 2^k values per block, entry i for the genes read as the binary number i
/// (the block's first variable the most significant bit). The optimum, `blocks * k`, is given.
pub fn trap_problem(k: usize, blocks: usize) -> pgomea::Result<TableProblem> {
    let table: Vec<i64> = (0..1usize << k).map(|i| trap(k, i.count_ones() as usize)).collect();
    let subfunctions: Vec<(Vec<u32>, Vec<i64>)> =
        (0..blocks).map(|b| ((0..k).map(|t| (b + t * blocks) as u32).collect(), table.clone())).collect();
    TableProblem::new("interleaved-trap", "trap", k * blocks, &subfunctions, Some((k * blocks) as i64))
}

/// One run of the example: a name, the options it asks for, and whether it needs a GPU.
pub struct Variant {
    pub name: &'static str,
    pub options: RunOptions,
    pub needs_gpu: bool,
}

/// Every algorithm and backend: the paper's serial and parallel GOMEA (no local search; Forced
/// Improvement for serial GOMEA alone, as the defaults have it) on the CPU and the GPU, and the
/// default hybrid. Each stops at `optimum` or after `seconds`.
pub fn variants(optimum: i64, seconds: f64) -> Vec<Variant> {
    let limits =
        RunOptions { target: Some(Target::Fitness(optimum)), time_limit: Some(seconds), ..RunOptions::default() };
    let paper = |algorithm, backend| RunOptions {
        algorithm: Some(algorithm),
        backend,
        local_search: Some(LocalSearchMode::Off),
        ..limits.clone()
    };
    vec![
        Variant { name: "serial GOMEA", options: paper(Algorithm::Serial, None), needs_gpu: false },
        Variant {
            name: "parallel GOMEA, CPU backend",
            options: paper(Algorithm::Parallel, Some(Backend::Cpu)),
            needs_gpu: false,
        },
        Variant {
            name: "parallel GOMEA, CUDA backend",
            options: paper(Algorithm::Parallel, Some(Backend::Cuda)),
            needs_gpu: true,
        },
        // The defaults of `--algo parallel`: annealed local search of every new population, no
        // Forced Improvement, the GPU when there is one.
        Variant {
            name: "hybrid default (parallel, auto backend)",
            options: RunOptions { algorithm: Some(Algorithm::Parallel), ..limits },
            needs_gpu: false,
        },
    ]
}

/// Runs `variant` on `problem`, `observer` hearing of its progress.
pub fn run(problem: &dyn GrayBoxProblem, variant: &Variant, observer: &mut dyn Observer) -> pgomea::Result<Outcome> {
    let config = variant.options.resolve(problem, problem.known_optimum())?;
    solve(problem, &config, Hooks { observer: Some(observer), ..Hooks::default() })
}

/// Prints every improvement of the best solution, and the run's notes (the backend it took).
struct PrintImprovements;

impl Observer for PrintImprovements {
    fn improvement(&mut self, point: &TracePoint, genes: &[u8]) {
        let ones = genes.iter().filter(|&&g| g == 1).count();
        println!(
            "    improved: fitness {:>4} after {:>9.0} evaluations, {:.4} s ({ones} ones)",
            point.best_fitness, point.evaluations, point.time_s
        );
    }
    fn note(&mut self, note: &str) {
        println!("    note: {note}");
    }
}

fn main() -> pgomea::Result<()> {
    let problem = trap_problem(K, BLOCKS)?;
    let optimum = problem.known_optimum().expect("the optimum is given");
    println!(
        "{}: {} variables, {} traps of {K}; optimum {optimum} (all ones, fitness {})",
        problem.name,
        problem.variables(),
        problem.subfunctions(),
        problem.evaluate(&vec![1; problem.variables()])
    );
    let (gpu, why) = decide_backend(Backend::Auto);
    for variant in variants(optimum, 10.0) {
        println!("{}:", variant.name);
        if variant.needs_gpu && gpu != Backend::Cuda {
            println!("    skipped: no usable GPU here (the auto backend would take: {why})");
            continue;
        }
        let outcome = run(&problem, &variant, &mut PrintImprovements)?;
        println!(
            "    backend {}; best fitness {} of {optimum}; optimum {}; {:.3} s ({}, {} generations)",
            outcome.backend,
            outcome.best_fitness,
            if outcome.reached_target { "reached" } else { "not reached" },
            outcome.time_s,
            outcome.stop_reason.as_str(),
            outcome.generations,
        );
    }
    Ok(())
}
