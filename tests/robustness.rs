//! Issue 12: no wrong answer, no lost result, no panic, whatever the input, signal or budget.
//! Exact arithmetic, signals, budgets and degenerate instances, random and mutated files into the
//! parsers and random option values into the command line (a seeded generator of our own: a
//! failing case prints its seed), experiment directories made with other options, and the small
//! ones (byte-order mark, CR line endings, invalid UTF-8, traces that cannot be written).

mod common;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use pgomea::error::Error;
use pgomea::gomea::population::random_population;
use pgomea::gomea::run::{Limits, Run, StopReason};
use pgomea::linkage::fos::Fos;
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::graph::Graph;
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::tables::TableProblem;
use pgomea::problem::{GrayBoxProblem, Subfunctions, text};
use pgomea::solve::{Algorithm, Backend, RunOptions};
use pgomea::stop::StopCheck;
use pgomea_device::rng::SplitMix64;

const EXE: &str = env!("CARGO_BIN_EXE_pgomea");

fn pgomea(args: &[&str]) -> Output {
    Command::new(EXE).args(args).output().expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgomea-robust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A failed command: exit status 2, a message containing `needle`, and no panic.
fn refused(args: &[&str], needle: &str) -> String {
    let o = pgomea(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?} should be refused with status 2: {err}");
    assert!(err.contains(needle), "{args:?}: `{err}` should mention `{needle}`");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

fn genes(solution: &str) -> Vec<u8> {
    solution.bytes().map(|b| b - b'0').collect()
}

fn cpu(algorithm: Algorithm) -> RunOptions {
    RunOptions {
        algorithm: Some(algorithm),
        backend: Some(Backend::Cpu),
        threads: Some(2),
        max_population: Some(1024),
        ..RunOptions::default()
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Exact arithmetic.

#[test]
fn total_weight_is_exact_or_an_error() {
    let g = Graph::new(
        "big",
        3,
        vec![
            pgomea::problem::graph::Edge { u: 0, v: 1, w: i64::MAX },
            pgomea::problem::graph::Edge { u: 1, v: 2, w: 1 },
        ],
    );
    let e = g.total_weight().unwrap_err().to_string();
    assert!(e.contains("beyond 64-bit"), "{e}");
    let g = Graph::new(
        "fits",
        3,
        vec![
            pgomea::problem::graph::Edge { u: 0, v: 1, w: i64::MAX },
            pgomea::problem::graph::Edge { u: 1, v: 2, w: -1 },
        ],
    );
    assert_eq!(g.total_weight().unwrap(), i64::MAX - 1);
    // On the command line: an instance whose cut values overflow is refused before solving.
    let d = scratch("overflow");
    let path = d.join("overflow.txt");
    std::fs::write(&path, format!("3 2\n1 2 {}\n2 3 {}\n", i64::MAX, i64::MAX)).unwrap();
    refused(&["run", "--instance", path.to_str().unwrap(), "--quiet"], "beyond 64-bit");
}

/// Max-Cut whose full evaluation drifts after its first 16 calls: incremental fitness and a
/// re-evaluation then disagree, as they would after a bug in an evaluation path.
struct Drifting {
    inner: MaxCut,
    calls: AtomicU64,
}

impl GrayBoxProblem for Drifting {
    fn name(&self) -> &str {
        "drifting"
    }
    fn problem_type(&self) -> &str {
        "max-cut"
    }
    fn functions(&self) -> &Subfunctions {
        self.inner.functions()
    }
    fn evaluate(&self, x: &[u8]) -> i64 {
        let k = self.calls.fetch_add(1, Ordering::Relaxed) as i64;
        self.inner.evaluate(x) + if k >= 16 { 1 + k } else { 0 }
    }
}

#[test]
fn the_reported_best_is_re_evaluated_and_a_mismatch_is_an_internal_error() {
    // Every algorithm's answer equals a full evaluation of its solution.
    let p = MaxCut::new(generate::random(60, 180, WeightRange { min: -3, max: 5 }, 2).unwrap()).unwrap();
    for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
        let mut run = Run::new(&p, Limits { evaluations: Some(2000.0), ..Limits::default() });
        let o = common::solve_in(&p, cpu(algorithm).clone(), &mut run, None).unwrap();
        assert_eq!(p.evaluate(&genes(&o.solution)), o.best_fitness);
    }
    // A result that a re-evaluation contradicts is refused, never reported.
    let drifting = Drifting { inner: p.clone(), calls: AtomicU64::new(0) };
    let mut run = Run::new(&drifting, Limits { evaluations: Some(50.0), ..Limits::default() });
    match common::solve_in(&drifting, cpu(Algorithm::Serial).clone(), &mut run, None) {
        Err(Error::Internal(m)) => assert!(m.contains("full evaluation"), "{m}"),
        Err(e) => panic!("expected an internal error, got {e}"),
        Ok(o) => panic!("a contradicted result was reported: {}", o.best_fitness),
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Signals.

/// Spawns the binary, waits `after`, sends `signal` (by the kill command), and collects it.
fn signalled(args: &[&str], after: Duration, signal: &str) -> (Output, Duration) {
    let mut child: Child =
        Command::new(EXE).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    std::thread::sleep(after);
    let sent = Instant::now();
    assert!(Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
    // Read while waiting so that a full pipe cannot block the child.
    let (mut out, mut err) = (Vec::new(), Vec::new());
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let status = child.wait().unwrap();
    (Output { status, stdout: out, stderr: err }, sent.elapsed())
}

#[test]
fn sigint_prints_the_result_so_far_flushes_the_trace_and_exits_130() {
    let d = scratch("sigint");
    let trace = d.join("trace.csv");
    let instance = d.join("torus.txt");
    generate::torus(60, WeightRange { min: -3, max: 5 }, 2).unwrap().write(&instance).unwrap();
    let (o, took) = signalled(
        &["run", "--instance", instance.to_str().unwrap(), "--time-limit", "60", "--trace", trace.to_str().unwrap()],
        Duration::from_millis(1500),
        "-INT",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{out}{}", stderr(&o));
    assert!(took < Duration::from_secs(5), "stopping took {took:?}");
    assert!(out.contains("stopped by       interrupted"), "{out}");
    let best: i64 = out
        .lines()
        .find(|l| l.starts_with("best fitness"))
        .unwrap()
        .split_whitespace()
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    // The trace holds whole lines only, and ends at the reported best.
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.ends_with('\n'), "a line cut in the middle: {text:?}");
    let last = text.lines().last().unwrap();
    assert_eq!(last.split(',').count(), 3, "{last}");
    assert_eq!(last.split(',').nth(2).unwrap().parse::<i64>().unwrap(), best);
}

#[test]
fn sigterm_prints_the_json_result_and_exits_143() {
    let (o, took) = signalled(
        &["run", "--algo", "parallel", "--backend", "cpu", "--threads", "2", "--time-limit", "60", "--json", "--quiet"],
        Duration::from_millis(1500),
        "-TERM",
    );
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(took < Duration::from_secs(5), "stopping took {took:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("the JSON result");
    assert_eq!(v["stop_reason"], "interrupted");
    let p = MaxCut::new(generate::default_instance()).unwrap();
    assert_eq!(p.evaluate(&genes(v["solution"].as_str().unwrap())), v["best_fitness"].as_i64().unwrap());
}

#[test]
fn experiment_and_bench_stop_on_a_signal_and_discard_the_run_in_flight() {
    let d = scratch("signal-experiment");
    let instance = d.join("torus.txt");
    // Without its optimum in the file, so that no run ends at it before the signal.
    let mut torus = generate::torus(8, WeightRange { min: 1, max: 5 }, 1).unwrap();
    torus.optimum = None;
    torus.write(&instance).unwrap();
    let out = d.join("out");
    let (o, took) = signalled(
        &[
            "experiment",
            "fos-order",
            "--out",
            out.to_str().unwrap(),
            "--runs",
            "1",
            "--time-limit",
            "60",
            "--backend",
            "cpu",
            "--instances",
            instance.to_str().unwrap(),
        ],
        Duration::from_millis(1500),
        "-TERM",
    );
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(took < Duration::from_secs(5), "stopping took {took:?}");
    assert!(stderr(&o).contains("discarded"), "{}", stderr(&o));
    // The run in flight was not stored: a rerun makes it whole.
    let runs = out.join("runs");
    assert!(!runs.exists() || std::fs::read_dir(&runs).unwrap().count() == 0);
    let (o, took) =
        signalled(&["bench", "speedup", "--time-limit", "60", "--backend", "cpu"], Duration::from_millis(1500), "-INT");
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(took < Duration::from_secs(5), "stopping took {took:?}");
}

// ---------------------------------------------------------------------------------------------
// 3. Budgets and degenerate instances.

#[test]
fn a_time_limit_shorter_than_the_set_up_still_answers_with_an_evaluated_solution() {
    let p = MaxCut::new(generate::torus(40, WeightRange { min: -2, max: 5 }, 3).unwrap()).unwrap();
    for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
        let mut run = Run::new(&p, Limits { time: Some(Duration::from_nanos(1)), ..Limits::default() });
        let o = common::solve_in(&p, cpu(algorithm).clone(), &mut run, None).expect("a result, not an error");
        assert_eq!(o.stop_reason, "time limit");
        // Stopped during the set-up: no population, one random solution evaluated in full.
        assert!(o.populations.is_empty(), "{algorithm:?}: {:?}", o.populations);
        assert_eq!(o.evaluations, 1.0);
        assert_eq!(p.evaluate(&genes(&o.solution)), o.best_fitness);
        assert!(o.setup_s < 1.0, "{algorithm:?}: set-up went on for {} s", o.setup_s);
    }
}

#[test]
fn a_population_is_abandoned_when_the_clock_runs_out_after_the_runs_first_solution() {
    let p = MaxCut::new(generate::torus(10, WeightRange { min: 1, max: 5 }, 1).unwrap()).unwrap();
    let mut run = Run::new(&p, Limits { time: Some(Duration::ZERO), ..Limits::default() });
    assert!(random_population(&p, 64, &mut SplitMix64::new(1), &mut run).is_none());
    // The run's first solution is evaluated whatever the clock says: the run has an answer.
    assert_eq!(run.counter.subfunction_evaluations(), 200);
    assert!(run.elitist().is_some());
    assert!(random_population(&p, 4096, &mut SplitMix64::new(2), &mut run).is_none());
    assert_eq!(run.counter.subfunction_evaluations(), 200, "no evaluation after the limit");
    assert_eq!(run.stop_reason(), Some(StopReason::TimeLimit));
    // Without a limit, a population is made whole.
    let mut run = Run::new(&p, Limits::default());
    assert_eq!(random_population(&p, 64, &mut SplitMix64::new(1), &mut run).unwrap().fitness.len(), 64);
}

#[test]
fn the_time_limit_counts_from_the_start_of_the_command() {
    let p = MaxCut::new(generate::torus(10, WeightRange { min: 1, max: 5 }, 1).unwrap()).unwrap();
    let start = Instant::now() - Duration::from_secs(5);
    let mut run = Run::new(&p, Limits { time: Some(Duration::from_secs(2)), ..Limits::default() }).with_start(start);
    let o = common::solve_in(&p, cpu(Algorithm::Serial).clone(), &mut run, None).unwrap();
    assert_eq!(o.stop_reason, "time limit");
    assert!(o.time_s >= 5.0, "time counted from the start: {}", o.time_s);
    // The limit had passed before the set-up: it stopped there, with an evaluated answer.
    assert!(o.populations.is_empty(), "{:?}", o.populations);
    assert_eq!(p.evaluate(&genes(&o.solution)), o.best_fitness);
}

#[test]
fn degenerate_instances_terminate_under_every_limit() {
    let no_edges = MaxCut::new(Graph::new("empty", 5, Vec::new())).unwrap();
    let one_vertex = MaxCut::new(Graph::new("one", 1, Vec::new())).unwrap();
    let constant = TableProblem::new("flat", "nk", 3, &[(vec![0, 2], vec![4, 4, 4, 4])], None).unwrap();
    let one_variable = TableProblem::new("one", "nk", 1, &[(vec![0], vec![3, 5])], None).unwrap();
    let limits = [
        Limits { evaluations: Some(100.0), ..Limits::default() },
        Limits { time: Some(Duration::from_millis(300)), ..Limits::default() },
        Limits { target: Some(1_000_000), ..Limits::default() },
        Limits::default(),
    ];
    let problems: [(&dyn GrayBoxProblem, i64); 4] =
        [(&no_edges, 0), (&one_vertex, 0), (&constant, 4), (&one_variable, 5)];
    for (p, optimum) in problems {
        for limit in &limits {
            for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
                let t = Instant::now();
                let mut run = Run::new(p, limit.clone());
                let o = common::solve_in(p, cpu(algorithm).clone(), &mut run, None).unwrap();
                let what = format!("{} {algorithm:?} {limit:?}: {}", p.name(), o.stop_reason);
                assert!(t.elapsed() < Duration::from_secs(20), "{what}: took {:?}", t.elapsed());
                assert_eq!(o.best_fitness, optimum, "{what}");
                assert!(o.populations.iter().all(|&n| n <= 1024), "{what}: {:?}", o.populations);
                if p.functions().fitness_bounds().0 == p.functions().fitness_bounds().1 {
                    assert_eq!(o.stop_reason, StopReason::ConstantFitness.as_str(), "{what}");
                    assert_eq!(o.populations, vec![16], "{what}");
                }
            }
        }
    }
    // The command line too: --max-evals on a graph without edges ends at once.
    let d = scratch("degenerate");
    let path = d.join("empty.txt");
    std::fs::write(&path, "3 0\n").unwrap();
    let t = Instant::now();
    let o = pgomea(&["run", "--instance", path.to_str().unwrap(), "--max-evals", "100", "--json", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(t.elapsed() < Duration::from_secs(10));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["best_fitness"], 0);
}

// ---------------------------------------------------------------------------------------------
// 4. No panic, no abort: random and mutated files into the parsers.

fn mutate(rng: &mut SplitMix64, text: &str) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    let pieces: [&[u8]; 14] = [
        b"0",
        b"-1",
        b"99999999999999999999",
        b"9223372036854775807",
        b"-9223372036854775808",
        b"2147483647",
        b"4294967295",
        b" ",
        b"\n",
        b"\r",
        b"\xEF\xBB\xBF",
        b"\xFF",
        b"c",
        b"f 16",
    ];
    for _ in 0..1 + rng.index(4) {
        let at = rng.index(b.len() + 1);
        match rng.index(6) {
            0 if !b.is_empty() => {
                let end = (at + rng.index(8)).min(b.len());
                b.drain(at.min(end)..end);
            }
            1 if at < b.len() => b[at] = rng.next_u64() as u8,
            2 => {
                let p = pieces[rng.index(pieces.len())];
                b.splice(at..at, p.iter().copied());
            }
            3 => b.truncate(at),
            4 if !b.is_empty() => {
                // A line duplicated.
                let line: Vec<u8> = b[at.min(b.len() - 1)..].split(|&c| c == b'\n').next().unwrap().to_vec();
                b.splice(at..at, line.into_iter().chain(*b"\n"));
            }
            _ => {
                let p = pieces[rng.index(pieces.len())];
                let end = b[at..].iter().position(|c| c.is_ascii_whitespace()).map_or(b.len(), |k| at + k);
                b.splice(at..end, p.iter().copied());
            }
        }
    }
    b
}

/// Parses `bytes` as both formats: a clean error, or an instance whose evaluation agrees with a
/// sum computed here in 128 bits.
fn parse_both(bytes: &[u8], seed: u64) {
    let Ok(text) = text::decode(bytes, "fuzz") else { return };
    if let Ok(g) = Graph::parse(&text, "fuzz.txt", "fuzz") {
        assert!(g.edges.iter().all(|e| (e.u as usize) < g.vertices && (e.v as usize) < g.vertices && e.u != e.v));
        if let Ok(p) = MaxCut::new(g.clone()) {
            let x: Vec<u8> = (0..g.vertices).map(|i| (seed >> (i % 64) & 1) as u8).collect();
            let cut: i128 = g.edges.iter().filter(|e| x[e.u as usize] != x[e.v as usize]).map(|e| e.w as i128).sum();
            assert_eq!(p.evaluate(&x) as i128, cut, "seed {seed}");
        }
    }
    if let Ok(p) = TableProblem::parse(&text, "fuzz.nk", "fuzz") {
        let f = p.functions();
        let x: Vec<u8> = (0..f.variables()).map(|i| (seed >> (i % 64) & 1) as u8).collect();
        let (lo, hi) = f.fitness_bounds();
        let v = p.evaluate(&x);
        assert!(lo <= v && v <= hi, "seed {seed}");
    }
}

#[test]
fn random_and_mutated_files_give_a_clean_error_or_a_correct_instance() {
    let graph = generate::random(12, 30, WeightRange { min: -9, max: 9 }, 5).unwrap().to_text();
    let nk = pgomea::problem::nk::sliding_window(8, 3, 2).unwrap().to_text();
    let seeds = 3000u64;
    for seed in 0..seeds {
        let mut rng = SplitMix64::stream(seed, 0xf022);
        let bytes = match seed % 5 {
            0 => (0..rng.index(64)).map(|_| b"0123456789 -\ncfpo\r\t"[rng.index(19)]).collect(),
            1 | 2 => mutate(&mut rng, &graph),
            _ => mutate(&mut rng, &nk),
        };
        let outcome = std::panic::catch_unwind(|| parse_both(&bytes, seed));
        assert!(outcome.is_ok(), "seed {seed} panicked on {:?}", String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn headers_larger_than_the_file_or_the_memory_are_refused_before_allocating() {
    let d = scratch("headers");
    let cases: &[(&str, &str, &str)] = &[
        ("huge-m.txt", "100000 2000000000\n1 2 1\n", "more than a file of"),
        ("huge-n.txt", "2000000000 0\n", "memory"),
        ("huge-nk.nk", "p nk 2000000000 1\nf 1 1 0 1\n", "memory"),
        ("huge-m.nk", "p nk 3 4000000000\nf 1 1 0 1\n", "more than a file of"),
    ];
    // A file larger than the memory (sparse: it takes no disk) is refused before it is read.
    let sparse = d.join("sparse.txt");
    std::fs::File::create(&sparse).unwrap().set_len(1 << 42).unwrap();
    let t = Instant::now();
    refused(&["run", "--instance", sparse.to_str().unwrap(), "--quiet"], "more than half the memory available");
    assert!(t.elapsed() < Duration::from_secs(10));
    for (name, content, needle) in cases {
        let path = d.join(name);
        std::fs::write(&path, content).unwrap();
        let t = Instant::now();
        refused(&["run", "--instance", path.to_str().unwrap(), "--quiet"], needle);
        assert!(t.elapsed() < Duration::from_secs(10), "{name}");
    }
}

#[test]
fn a_linkage_tree_that_would_not_fit_in_memory_is_an_error_not_an_abort() {
    // A star: the centre absorbs one leaf per merge (a caterpillar tree, l^2 / 2 set entries) and
    // re-queues every remaining leaf each time; at 20 000 leaves that is gigabytes.
    let edges = (1..2001).map(|v| pgomea::problem::graph::Edge { u: 0, v, w: 1 + (v % 7) as i64 }).collect();
    let p = MaxCut::new(Graph::new("star", 2001, edges)).unwrap();
    let e = Fos::fixed_linkage_tree_within(&p, None, &mut SplitMix64::new(1), 1 << 20, &StopCheck::never())
        .unwrap_err()
        .to_string();
    assert!(e.contains("star") && e.contains("bflt:K"), "{e}");
    let fos =
        Fos::fixed_linkage_tree_within(&p, None, &mut SplitMix64::new(1), u128::MAX, &StopCheck::never()).unwrap();
    assert_eq!(fos.len(), 2 * 2001 - 2);
    assert_eq!(fos.largest_set(), 2000);
}

// ---------------------------------------------------------------------------------------------
// 4. No panic, no abort: absurd and random option values on the command line.

#[test]
fn absurd_option_values_are_errors_naming_the_option() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--time-limit", "1e300"], "--time-limit"),
        (&["run", "--time-limit", "nan"], "--time-limit"),
        (&["run", "--time-limit", "inf"], "--time-limit"),
        (&["run", "--max-evals", "nan"], "--max-evals"),
        (&["run", "--max-evals", "1e400"], "--max-evals"),
        (&["run", "--n-base", "100000000000000"], "memory"),
        (&["run", "--n-base", "18446744073709551615", "--algo", "parallel", "--backend", "cpu"], "--n-base"),
        (&["run", "--n-base", "1000000000000", "--algo", "parallel", "--backend", "cpu"], "memory"),
        (&["run", "--max-population", "1"], "--max-population"),
        (&["run", "--threads", "0"], "--threads"),
        (&["run", "--threads", "1000000000"], "--threads"),
        (&["run", "--c-ims", "0"], "--c-ims"),
        (&["run", "--target", "1e30"], "--target"),
        (&["bench", "speedup", "--time-limit=-1"], "--time-limit"),
        (&["bench", "speedup", "--time-limit", "1", "--serial-time-limit", "1e300"], "--serial-time-limit"),
        (&["bench", "throughput", "--population", "0"], "--population"),
        (&["bench", "throughput", "--generations", "0"], "--generations"),
        (&["experiment", "fos-order", "--out", "/tmp/x", "--time-limit", "1e300"], "--time-limit"),
        (&["experiment", "fos-order", "--out", "/tmp/x", "--runs", "100000000000"], "--runs"),
        (&["generate", "torus", "--side", "4000000000"], "torus"),
        (&["generate", "torus", "--side", "4", "--min-weight=-9223372036854775808"], "weight range"),
        (&["generate", "complete", "--n", "3000000000"], "vertices"),
        (&["generate", "nk", "--n", "2000000000", "--k", "1"], "NK"),
    ];
    for (args, needle) in cases {
        refused(args, needle);
    }
}

#[test]
fn random_option_values_give_a_clean_error_or_a_correct_result() {
    let values = [
        "0",
        "1",
        "2",
        "-1",
        "0.5",
        "1e-9",
        "nan",
        "inf",
        "-inf",
        "1e300",
        "1e400",
        "abc",
        "",
        "3",
        "16",
        "4294967296",
        "18446744073709551615",
        "9223372036854775807",
        "-9223372036854775808",
        "1e15",
    ];
    let options = [
        "--time-limit",
        "--max-evals",
        "--n-base",
        "--c-ims",
        "--max-population",
        "--threads",
        "--target",
        "--seed",
        "--linkage",
    ];
    let default = MaxCut::new(generate::default_instance()).unwrap();
    let mut rng = SplitMix64::new(12);
    for case in 0..36 {
        let mut args: Vec<String> = vec!["run".into(), "--json".into(), "--quiet".into()];
        if case % 2 == 1 {
            args.extend(["--algo".into(), "parallel".into(), "--backend".into(), "cpu".into()]);
        }
        let mut chosen = Vec::new();
        for _ in 0..1 + rng.index(3) {
            let option = options[rng.index(options.len())];
            let value = values[rng.index(values.len())];
            // One of the two budgets stays ours, so that every run ends soon.
            let budget = |o: &str| o == "--time-limit" || o == "--max-evals";
            if chosen.contains(&option) || (budget(option) && chosen.iter().any(|o| budget(o))) {
                continue;
            }
            chosen.push(option);
            args.push(format!("{option}={value}"));
        }
        if !chosen.contains(&"--max-evals") {
            args.push("--max-evals=3000".into());
        }
        if !chosen.contains(&"--time-limit") {
            args.push("--time-limit=1".into());
        }
        let t = Instant::now();
        let o = pgomea(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        match o.status.code() {
            Some(0) => {
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                assert_eq!(
                    default.evaluate(&genes(v["solution"].as_str().unwrap())),
                    v["best_fitness"].as_i64().unwrap()
                );
            }
            Some(2) => assert!(err.starts_with("error: "), "{args:?}: {err}"),
            other => panic!("{args:?}: exit status {other:?}: {err}"),
        }
        assert!(t.elapsed() < Duration::from_secs(30), "{args:?} took {:?}", t.elapsed());
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Experiments made with other options, corrupt run files.

#[test]
fn an_experiment_folder_made_with_other_options_is_refused_with_the_differences() {
    let d = scratch("manifest");
    let instance = d.join("torus.txt");
    generate::torus(4, WeightRange { min: 1, max: 5 }, 1).unwrap().write(&instance).unwrap();
    let out = d.join("out");
    let run = |extra: &[&str]| {
        let mut a = vec![
            "experiment",
            "fos-order",
            "--out",
            out.to_str().unwrap(),
            "--runs",
            "1",
            "--backend",
            "cpu",
            "--no-figures",
            "--quiet",
            "--instances",
            instance.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        pgomea(&a)
    };
    let o = run(&["--max-evals", "600"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("experiment-fos-order.json").is_file());
    // The same options resume; others are refused, saying what differs.
    assert!(run(&["--max-evals", "600"]).status.success());
    let o = run(&["--max-evals", "700"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--max-evals 600 (this command: 700)"), "{}", stderr(&o));
    let o = run(&["--max-evals", "600", "--time-limit", "5"]);
    assert!(stderr(&o).contains("--time-limit none (this command: 5)"), "{}", stderr(&o));
    // A folder without a manifest (older pgomea) is checked run by run.
    std::fs::remove_file(out.join("experiment-fos-order.json")).unwrap();
    let o = run(&["--max-evals", "700"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("was made with other options: --max-evals 600 (this command: 700)"), "{}", stderr(&o));
    // A corrupt run file is named, with what to do.
    std::fs::remove_file(out.join("experiment-fos-order.json")).ok();
    let runs = out.join("runs");
    let first = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    std::fs::write(&first, "{\"format\": 1, \"study\": ").unwrap();
    let o = run(&["--max-evals", "600"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&first.display().to_string()) && stderr(&o).contains("delete it"), "{}", stderr(&o));
    // Merging shards made with other options is refused too.
    std::fs::remove_file(&first).unwrap();
    assert!(run(&["--max-evals", "600"]).status.success());
    let other = d.join("other");
    let o = pgomea(&[
        "experiment",
        "fos-order",
        "--out",
        other.to_str().unwrap(),
        "--runs",
        "1",
        "--max-evals",
        "800",
        "--no-figures",
        "--quiet",
        "--instances",
        instance.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let merged = d.join("merged");
    let o = pgomea(&[
        "merge",
        "--no-figures",
        "--out",
        merged.to_str().unwrap(),
        out.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--max-evals 600 (the second: 800)"), "{}", stderr(&o));
}

// ---------------------------------------------------------------------------------------------
// 7. The small ones.

#[test]
fn byte_order_marks_and_every_line_ending_read_the_same() {
    let d = scratch("encodings");
    let lf = "4 3\n1 2 5\n2 3 -2\n3 4 7\n";
    let variants: [(&str, Vec<u8>); 4] = [
        ("lf.txt", lf.as_bytes().to_vec()),
        ("bom.txt", [b"\xEF\xBB\xBF".as_slice(), lf.as_bytes()].concat()),
        ("crlf.txt", lf.replace('\n', "\r\n").into_bytes()),
        ("cr.txt", lf.replace('\n', "\r").into_bytes()),
    ];
    for (name, bytes) in &variants {
        let path = d.join(name);
        std::fs::write(&path, bytes).unwrap();
        let o = pgomea(&["info", "--instance", path.to_str().unwrap(), "--json"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!((v["vertices"].as_u64(), v["edges"].as_u64()), (Some(4), Some(3)), "{name}");
    }
    let nk = "c an NK file\rp nk 2 1\ro 7\rf 2 1 2 1 7 3 0\r";
    let path = d.join("cr.nk");
    std::fs::write(&path, nk).unwrap();
    let o = pgomea(&["run", "--instance", path.to_str().unwrap(), "--target", "best-known", "--json", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Bytes that are not UTF-8: the line and column.
    let path = d.join("latin1.txt");
    std::fs::write(&path, b"3 2\n1 2 1\n2 3 \xE91\n").unwrap();
    refused(&["run", "--instance", path.to_str().unwrap()], &format!("{}:3: column 5: byte 0xE9", path.display()));
}

#[test]
fn backend_cuda_with_serial_gomea_is_refused() {
    refused(&["run", "--backend", "cuda", "--algo", "serial"], "serial GOMEA runs on one CPU core");
}

#[test]
fn an_unwritable_trace_is_refused_before_solving_and_a_failing_one_loses_no_result() {
    let o = pgomea(&["run", "--time-limit", "0.2", "--trace", "/no/such/folder/trace.csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/no/such/folder/trace.csv"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    // /dev/full accepts the file but fails every write: the result still comes, with a warning.
    if std::path::Path::new("/dev/full").exists() {
        let o = pgomea(&["run", "--max-evals", "3000", "--trace", "/dev/full", "--json", "--quiet"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["best_fitness"].as_i64().is_some());
        assert!(stderr(&o).contains("warning: the trace /dev/full could not be written"), "{}", stderr(&o));
    }
}

#[test]
fn a_cuda_error_has_one_prefix() {
    if pgomea::backend::cuda::probe().is_ok() {
        eprintln!("SKIPPED: there is a GPU, so --backend cuda does not fail here");
        return;
    }
    let err = refused(&["run", "--algo", "parallel", "--backend", "cuda", "--time-limit", "0.1"], "CUDA: ");
    assert!(!err.contains("CUDA: CUDA:"), "{err}");
}

#[test]
fn help_states_the_exit_statuses_and_signals() {
    for args in [&["--help"][..], &["run", "--help"]] {
        let o = pgomea(args);
        let out = String::from_utf8_lossy(&o.stdout);
        for needle in ["Exit status: 0", "2 refused", "70 internal", "130 (SIGINT)", "143", "second signal"] {
            assert!(out.contains(needle), "{args:?}: {needle} missing from\n{out}");
        }
    }
}
