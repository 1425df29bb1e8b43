//! The guide's first Rust program (docs/src/rust.md): a Max-Cut problem built in code, then
//! concatenated traps, each solved with the library's defaults and one stop.
//!
//! cargo run --release -p pgomea --example guide_first_run

use pgomea::problem::GrayBoxProblem;
use pgomea::problem::graph::{Edge, Graph};
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::trap;
use pgomea::solve::{Algorithm, Hooks, RunOptions, Target, solve};

fn main() -> pgomea::Result<()> {
    // A 4-cycle with a chord: vertices 0..4, edges (u, v, weight), 0-based.
    let edges = [(0, 1, 3), (1, 2, 1), (2, 3, 2), (3, 0, 5), (0, 2, -2)];
    let graph = Graph::new("square", 4, edges.iter().map(|&(u, v, w)| Edge { u, v, w }).collect());
    let problem = MaxCut::new(graph)?;
    // Options left None take the defaults of `pgomea run`; `resolve` fills them in from the problem.
    let options = RunOptions { max_evaluations: Some(2000.0), ..RunOptions::default() };
    let config = options.resolve(&problem, problem.known_optimum())?;
    let outcome = solve(&problem, &config, Hooks::default())?;
    println!(
        "{}: cut {} with sides {:?} ({})",
        problem.name(),
        outcome.best_fitness,
        outcome.genes(),
        outcome.stop_reason.as_str()
    );

    // 25 deceptive traps of 4 variables, their blocks shuffled by seed 1: the optimum (100) is known.
    let traps = trap::concatenated(4, 25, 1, true)?;
    let options =
        RunOptions { algorithm: Some(Algorithm::Parallel), target: Some(Target::BEST_KNOWN), ..RunOptions::default() };
    let config = options.resolve(&traps, traps.known_optimum())?;
    let outcome = solve(&traps, &config, Hooks::default())?; // the GPU if there is one, else the CPU
    println!(
        "{}: {} of {:?} on {} ({})",
        traps.name(),
        outcome.best_fitness,
        outcome.best_known,
        outcome.backend,
        outcome.stop_reason.as_str()
    );
    Ok(())
}
