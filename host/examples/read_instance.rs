//! Times reading one instance file (any format `load::read` takes) into its problem, and prints
//! the process's peak resident memory: the measurement behind "graphs at 10^7 vertices".
//!
//! cargo run --release --example read_instance -- INSTANCE
//!
//! Run it under `/usr/bin/time -v` for the same peak from outside the process.

use std::path::PathBuf;
use std::time::Instant;

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN);
    kib / 1024.0
}

fn main() {
    let path = PathBuf::from(std::env::args().nth(1).expect("usage: read_instance INSTANCE [--phases]"));
    if std::env::args().nth(2).as_deref() == Some("--phases") {
        // A graph file, phase by phase: its text, the parsed graph, the Max-Cut problem.
        let t = Instant::now();
        let text = pgomea::problem::read_text(&path).unwrap_or_else(|e| panic!("{e}"));
        let read = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let graph = pgomea::problem::graph::Graph::parse(&text, "file", "graph").unwrap_or_else(|e| panic!("{e}"));
        let parse = t.elapsed().as_secs_f64();
        drop(text);
        let t = Instant::now();
        let problem = pgomea::problem::maxcut::MaxCut::new(graph).unwrap_or_else(|e| panic!("{e}"));
        let build = t.elapsed().as_secs_f64();
        use pgomea::problem::GrayBoxProblem;
        println!(
            "{} edges: text {read:.3} s, parse {parse:.3} s, MaxCut::new {build:.3} s, peak RSS {:.0} MiB",
            problem.subfunctions(),
            peak_rss_mib()
        );
        return;
    }
    let t = Instant::now();
    let problem =
        pgomea::problem::load::read(&path, None, &pgomea::stop::StopCheck::never()).unwrap_or_else(|e| panic!("{e}"));
    let seconds = t.elapsed().as_secs_f64();
    println!(
        "{}: {} ({} variables, {} subfunctions) read in {seconds:.3} s, peak RSS {:.0} MiB",
        path.display(),
        problem.problem_type(),
        problem.variables(),
        problem.subfunctions(),
        peak_rss_mib()
    );
}
