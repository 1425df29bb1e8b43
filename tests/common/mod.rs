//! Shared helpers of the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The instance data directory, or None with a printed reason (tests on shipped sets then skip).
pub fn data_dir() -> Option<PathBuf> {
    use pgomea::problem::data::{INSTANCES_VARIABLE, data_dir};
    match data_dir(None, std::env::var_os(INSTANCES_VARIABLE).as_deref()) {
        Ok(d) => Some(d),
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED: test on shipped instances skipped: {e}");
            None
        }
    }
}

/// The rows of best_known.csv of one set.
pub fn known(set: &str) -> Option<(PathBuf, Vec<pgomea::problem::data::KnownInstance>)> {
    let dir = data_dir()?;
    let rows = pgomea::problem::data::read_best_known(&dir).expect("best_known.csv parses");
    let rows = rows.into_iter().filter(|r| r.set == set).collect();
    Some((dir, rows))
}

/// Asserts that `parsed`, the parse of `text`, failed with an error at `file:line` that says
/// `what`.
pub fn assert_parse_error<T>(parsed: pgomea::error::Result<T>, text: &str, file: &str, line: usize, what: &str) {
    let e = match parsed {
        Ok(_) => panic!("{text:?} parsed, expected `{file}:{line}: ...{what}...`"),
        Err(e) => e.to_string(),
    };
    assert!(e.starts_with(&format!("{file}:{line}: ")), "{text:?}: {e}");
    assert!(e.contains(what), "{text:?}: {e}");
}

/// Solves `p` within `run`'s limits with `options`, the tests' defaults filled in first: the
/// paper's algorithms as pgomea 0.1 ran them (no local search, no annealing, Forced Improvement
/// on), every other setting at the library's default.
pub fn solve_in(
    p: &dyn pgomea::problem::GrayBoxProblem,
    options: pgomea::solve::RunOptions,
    run: &mut pgomea::gomea::run::Run,
    best_known: Option<i64>,
) -> pgomea::error::Result<pgomea::solve::Outcome> {
    let options = pgomea::solve::RunOptions {
        local_search: options.local_search.or(Some(pgomea::gomea::LocalSearchMode::Off)),
        anneal_sweeps: options.anneal_sweeps.or(Some(0)),
        forced_improvement: options.forced_improvement.or(Some(true)),
        ..options
    };
    let config = options.resolve(p, best_known)?;
    pgomea::solve::solve_run(p, &config, run)
}

/// Options for `algorithm` with `linkage` on the CPU backend's two threads, seeded.
pub fn cpu_options(
    algorithm: pgomea::solve::Algorithm,
    linkage: pgomea::linkage::fos::LinkageModel,
    seed: u64,
) -> pgomea::solve::RunOptions {
    pgomea::solve::RunOptions {
        algorithm: Some(algorithm),
        backend: Some(pgomea::solve::Backend::Cpu),
        linkage: Some(linkage),
        threads: Some(2),
        seed: Some(seed),
        ..pgomea::solve::RunOptions::default()
    }
}

/// The notes a run tells its observer, in order.
#[derive(Default)]
pub struct Notes(pub Vec<String>);

impl pgomea::gomea::run::Observer for Notes {
    fn note(&mut self, note: &str) {
        self.0.push(note.to_string());
    }
}

/// The load averages over 1, 5 and 15 minutes (Linux's `/proc/loadavg`), for a latency test's
/// report.
pub fn load_average() -> String {
    match std::fs::read_to_string("/proc/loadavg") {
        Ok(text) => text.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        Err(_) => "unknown".to_string(),
    }
}

/// A stop's latency held to `bound` on a busy machine without going blind: `case` stops a run
/// (or a phase) once and returns what it made and the latency; a miss is measured once more, and
/// that second measurement must hold. A phase that does not check the stop misses by seconds
/// every time, where other heavy work on the same cores (a CI run beside other builds missed the
/// 0.5 s by a little so) delays one measurement and seldom the next. Both latencies are printed
/// with the load average. Returns what the held case made and its latency.
pub fn latency_held<R>(
    what: &str,
    bound: std::time::Duration,
    mut case: impl FnMut() -> (R, std::time::Duration),
) -> (R, std::time::Duration) {
    let (made, latency) = case();
    let load = load_average();
    if latency <= bound {
        println!("{what}: stopped {:.3} s late (load average {load})", latency.as_secs_f64());
        return (made, latency);
    }
    let (made, again) = case();
    let load_again = load_average();
    println!(
        "{what}: stopped {:.3} s late (load average {load}), over {:.3} s; measured again: {:.3} s (load \
         average {load_again})",
        latency.as_secs_f64(),
        bound.as_secs_f64(),
        again.as_secs_f64()
    );
    assert!(
        again <= bound,
        "{what}: stopped {latency:?} late at a load average of {load}, and {again:?} late again at {load_again}: \
         over {bound:?} twice"
    );
    (made, again)
}
