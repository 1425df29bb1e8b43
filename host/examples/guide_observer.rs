//! The guide's second Rust program (docs/src/rust.md): an instance file of any format, solved
//! under a time limit, an observer printing every improvement and the run's notes as they come.
//!
//! cargo run --release -p pgomea --example guide_observer -- FILE [SECONDS]

use std::path::PathBuf;
use std::process::ExitCode;

use pgomea::gomea::run::{Observer, TracePoint};
use pgomea::problem::load;
use pgomea::solve::{Hooks, RunOptions, Target, solve};
use pgomea::stop::StopCheck;

/// Prints each improvement of the best solution, and each note (the backend chosen, and why).
struct Print;

impl Observer for Print {
    fn improvement(&mut self, point: &TracePoint, _genes: &[u8]) {
        println!("{:8.3} s {:>12.0} evaluations: {}", point.time_s, point.evaluations, point.best_fitness);
    }
    fn note(&mut self, note: &str) {
        println!("note: {note}");
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first().map(PathBuf::from) else {
        eprintln!("usage: guide_observer FILE [SECONDS]");
        return ExitCode::from(2);
    };
    // Errors are values with a message for people: a file's errors name the file and the line.
    match run(path, args.get(1)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(path: PathBuf, seconds: Option<&String>) -> pgomea::Result<()> {
    let seconds = match seconds {
        Some(s) => s.parse().map_err(|_| pgomea::Error::usage(format!("SECONDS {s}: expected a number")))?,
        None => 10.0,
    };
    // The format from the extension, else the content; a malformed file is an error with its line.
    let problem = load::read(&path, None, &StopCheck::never())?;
    let best_known = problem.known_optimum();
    let options = RunOptions {
        time_limit: Some(seconds),
        // Stop at the optimum the file states, where it states one.
        target: best_known.map(|_| Target::BEST_KNOWN),
        ..RunOptions::default()
    };
    let config = options.resolve(problem.as_ref(), best_known)?;
    let mut print = Print;
    let outcome = solve(problem.as_ref(), &config, Hooks { observer: Some(&mut print), ..Hooks::default() })?;
    println!(
        "{}: best {} (best known {:?}) after {:.3} s, {:.0} evaluations: {}",
        outcome.instance,
        outcome.best_fitness,
        outcome.best_known,
        outcome.time_s,
        outcome.evaluations,
        outcome.stop_reason.as_str()
    );
    Ok(())
}
