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
        assert_eq!(p.evaluate(&o.genes()), o.best_fitness);
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
///
/// The child starts with SIGINT and SIGTERM at their default actions: the binary keeps a signal
/// it inherits as ignored ignored, as a script's background job does with SIGINT, so a test
/// suite started in the background would otherwise never interrupt it.
fn signalled(args: &[&str], after: Duration, signal: &str) -> (Output, Duration) {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(EXE);
    command.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: between fork and exec the closure calls only signal(2), which is
    // async-signal-safe, and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child: Child = command.spawn().expect("spawn");
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
        assert_eq!(o.stop_reason.as_str(), "time limit");
        // Stopped during the set-up: no population, one random solution evaluated in full.
        assert!(o.populations.is_empty(), "{algorithm:?}: {:?}", o.populations);
        assert_eq!(o.evaluations, 1.0);
        assert_eq!(p.evaluate(&o.genes()), o.best_fitness);
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
    assert_eq!(o.stop_reason.as_str(), "time limit");
    assert!(o.time_s >= 5.0, "time counted from the start: {}", o.time_s);
    // The limit had passed before the set-up: it stopped there, with an evaluated answer.
    assert!(o.populations.is_empty(), "{:?}", o.populations);
    assert_eq!(p.evaluate(&o.genes()), o.best_fitness);
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
                let what = format!("{} {algorithm:?} {limit:?}: {}", p.name(), o.stop_reason.as_str());
                assert!(t.elapsed() < Duration::from_secs(20), "{what}: took {:?}", t.elapsed());
                assert_eq!(o.best_fitness, optimum, "{what}");
                assert!(o.populations.iter().all(|&n| n <= 1024), "{what}: {:?}", o.populations);
                if p.functions().fitness_bounds().0 == p.functions().fitness_bounds().1 {
                    assert_eq!(o.stop_reason, StopReason::ConstantFitness, "{what}");
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
    if let Ok(p) = TableProblem::parse(&text, "fuzz.nk", "fuzz", &StopCheck::never()) {
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
    refused(&["run", "--instance", sparse.to_str().unwrap(), "--quiet"], "more than half the memory");
    assert!(t.elapsed() < Duration::from_secs(10));
    // Under a 4 GiB address-space limit, so that the refusals do not depend on the machine's
    // memory (two billion isolated vertices fit in some).
    for (name, content, needle) in cases {
        let path = d.join(name);
        std::fs::write(&path, content).unwrap();
        let t = Instant::now();
        refused_under("-v", 4 * GIB_KIB, &["run", "--instance", path.to_str().unwrap(), "--quiet"], &[needle]);
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

// ---------------------------------------------------------------------------------------------
// 8. Memory, the process's own limits, files that contradict themselves, stopping a read
//    (issue 19).

/// 1 GiB in KiB, for `ulimit -v` and `ulimit -d`.
const GIB_KIB: u64 = 1 << 20;

/// The binary under a limit set by `ulimit FLAG KIB` (`-v`: address space, `-d`: data).
fn limited(flag: &str, kib: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit {flag} {kib} && exec \"$0\" \"$@\""))
        .arg(EXE)
        .args(args)
        .output()
        .expect("sh runs the binary")
}

/// Refused under a limit: exit status 2 and a message containing every needle, not an abort.
fn refused_under(flag: &str, kib: u64, args: &[&str], needles: &[&str]) {
    let o = limited(flag, kib, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "ulimit {flag} {kib}: {args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "ulimit {flag} {kib}: {args:?}: `{err}` should mention `{needle}`");
    }
    assert!(!err.contains("panicked") && !err.contains("memory allocation"), "{args:?}: {err}");
}

#[test]
fn every_generator_checks_the_memory_before_allocating() {
    // Each would take from 24 GiB to 128 GiB; under a 4 GiB address-space limit the check says so
    // (before, these aborted, or filled the machine without the limit).
    let cases: &[&[&str]] = &[
        &["nk", "--neighbourhood", "random", "--n", "60000", "--k", "16"],
        &["nk", "--neighbourhood", "random", "--n", "2000000000", "--k", "1"],
        &["nk", "--n", "2000000000", "--k", "1"],
        &["trap", "--k", "16", "--blocks", "60000"],
        &["trap", "--k", "1", "--blocks", "2000000000"],
        &["sat", "--n", "100", "--m", "1431655765"],
        &["sat", "--n", "2000000000", "--m", "1"],
    ];
    let d = scratch("generators");
    let out = d.join("out");
    for case in cases {
        let mut args = vec!["generate"];
        args.extend_from_slice(case);
        args.extend(["-o", out.to_str().unwrap()]);
        refused_under("-v", 4 * GIB_KIB, &args, &["would need about", "of memory"]);
        assert!(!out.exists(), "{case:?}: nothing written");
    }
}

#[test]
fn headers_beyond_the_process_limits_are_refused_before_allocating() {
    let d = scratch("limits");
    // (file, text, what the refusal names): each needs more than 1 GiB, which the machine may well
    // have; the process's limit does not (before, the check read MemAvailable alone, passed, and
    // the allocation aborted the process).
    let cases: &[(&str, &str, &str)] = &[
        ("huge.cnf", "p cnf 2147483647 1\n1 0\n", "huge.cnf:1: "),
        ("huge.wcnf", "h 2147483647 0\n", "huge.wcnf:1: "),
        ("mid.cnf", "c a comment\np cnf 100000000 1\n1 0\n", "mid.cnf:2: "),
        ("mid.wcnf", "p wcnf 100000000 1 9\n9 1 0\n", "mid.wcnf:1: "),
        ("mid.nk", "p nk 1000000000 1\nf 1 1 0 1\n", "mid.nk:1: "),
        ("mid.mk", "p MK 1000000000 1\nm 0\n0 1\n", "mid.mk:1: "),
        ("graph.txt", "100000000 0\n", "graph.txt: "),
    ];
    for (name, text, at) in cases {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        let file = path.to_str().unwrap();
        let t = Instant::now();
        refused_under("-v", GIB_KIB, &["info", "--instance", file], &[at, "RLIMIT_AS, ulimit -v"]);
        refused_under("-d", GIB_KIB, &["info", "--instance", file], &[at, "RLIMIT_DATA, ulimit -d"]);
        assert!(t.elapsed() < Duration::from_secs(20), "{name}: {:?}", t.elapsed());
    }
    // Within the limit the same kind of file is read.
    let small = d.join("small.cnf");
    std::fs::write(&small, "p cnf 1000000 1\n1 0\n").unwrap();
    let o = limited("-v", GIB_KIB, &["info", "--instance", small.to_str().unwrap(), "--linkage", "univariate"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_wcnf_top_that_does_not_outweigh_the_soft_clauses_is_raised_with_a_warning() {
    use pgomea::problem::maxsat::MaxSat;
    // TOP 5, but the soft clauses weigh 6 together: as written, breaking the hard clause (x1)
    // would be worth more (6) than keeping it (5).
    let text = "p wcnf 1 3 5\n5 1 0\n3 -1 0\n3 -1 0\n";
    let p = MaxSat::parse(text, "top.wcnf", "top", &StopCheck::never()).unwrap();
    let warnings = p.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("top.wcnf:1: the top weight 5 does not exceed"), "{}", warnings[0]);
    assert_eq!((p.top, p.clause(0).1, p.is_hard(0), p.is_hard(1)), (Some(7), 7, true, false));
    // The best assignment keeps the hard clause.
    assert!(p.evaluate(&[1]) > p.evaluate(&[0]));
    // A TOP above the soft weights, or no clause of weight TOP, changes nothing.
    for text in ["p wcnf 1 3 7\n7 1 0\n3 -1 0\n3 -1 0\n", "p wcnf 1 2 5\n3 -1 0\n3 -1 0\n"] {
        let q = MaxSat::parse(text, "ok.wcnf", "ok", &StopCheck::never()).unwrap();
        assert!(q.warnings().is_empty(), "{text}");
    }
    // On the command line: a warning on stderr, and a best solution that keeps every hard clause.
    let d = scratch("top");
    let path = d.join("top.wcnf");
    std::fs::write(&path, text).unwrap();
    let o = pgomea(&["run", "--instance", path.to_str().unwrap(), "--max-evals", "200", "--json", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: ") && stderr(&o).contains("weigh 7"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["best_fitness"].as_i64(), v["report"]["unsatisfied_hard_clauses"].as_i64()), (Some(7), Some(0)));
}

#[test]
fn an_nk_optimum_that_its_tables_contradict_is_refused() {
    // (text, line, what): above the largest fitness, below the least, and not the exact optimum of
    // sliding windows (two windows over three variables: the best is 3 + 3 at genes 1 1 1).
    let cases: &[(&str, usize, &str)] = &[
        ("p nk 2 1\no 100\nf 2 1 2 0 1 2 3\n", 2, "the stated optimum 100 is above the largest fitness"),
        ("p nk 2 1\nf 2 1 2 5 6 7 8\nc late\no 4\n", 4, "the stated optimum 4 is below the least fitness"),
        ("p nk 3 2\no 5\nf 2 1 2 0 1 2 3\nf 2 2 3 0 1 2 3\n", 2, "not the exact optimum 6"),
    ];
    for &(text, line, what) in cases {
        let e = TableProblem::parse(text, "o.nk", "o", &StopCheck::never()).unwrap_err().to_string();
        assert!(e.starts_with(&format!("o.nk:{line}: ")) && e.contains(what), "{text:?}: {e}");
    }
    let q = TableProblem::parse("p nk 3 2\no 6\nf 2 1 2 0 1 2 3\nf 2 2 3 0 1 2 3\n", "o.nk", "o", &StopCheck::never());
    assert_eq!(q.unwrap().optimum, Some(6));
    // `--target best-known` on such a file is refused at once, not run to its limit.
    let d = scratch("nk-optimum");
    let path = d.join("bad.nk");
    std::fs::write(&path, cases[0].0).unwrap();
    let t = Instant::now();
    refused(&["run", "--instance", path.to_str().unwrap(), "--target", "best-known", "--time-limit", "60"], ":2: ");
    assert!(t.elapsed() < Duration::from_secs(10));
}

/// The texts of one instance in every format a reader takes, each large enough for several
/// pieces (`lines` subfunctions).
fn every_format(lines: usize) -> Vec<(&'static str, String)> {
    let mut rng = SplitMix64::new(lines as u64);
    let n = 1000;
    let mut cnf = format!("p cnf {n} {lines}\n");
    let mut wcnf = format!("p wcnf {n} {lines} 1000000000\n");
    let mut modern = String::new();
    let mut nk = format!("p nk {n} {lines}\n");
    let mut mk = format!("p MK {n} 3\n");
    for s in 0..lines {
        let vars: Vec<usize> = (0..3).map(|_| 1 + rng.index(n)).collect();
        let clause: String =
            vars.iter().map(|v| format!("{} ", if rng.coin() { *v as i64 } else { -(*v as i64) })).collect();
        cnf.push_str(&format!("{clause}0\n"));
        wcnf.push_str(&format!("{} {clause}0\n", 1 + s % 7));
        modern.push_str(&format!("{} {clause}0\n", if s % 5 == 0 { "h".to_string() } else { (1 + s % 7).to_string() }));
        let table: String = (0..8).map(|_| format!(" {}", rng.index(100))).collect();
        let distinct = [s % n, (s + 1) % n, (s + 2) % n];
        nk.push_str(&format!("f 3 {} {} {}{table}\n", distinct[0] + 1, distinct[1] + 1, distinct[2] + 1));
        mk.push_str(&format!("m {} {} {}\n{}\n", distinct[0], distinct[1], distinct[2], table.trim()));
    }
    vec![("f.cnf", cnf), ("f.wcnf", wcnf), ("g.wcnf", modern), ("f.nk", nk), ("f.mk", mk)]
}

#[test]
fn every_reader_stops_when_asked() {
    use pgomea::problem::load;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let d = scratch("stop");
    let graph = generate::random(2000, 20000, WeightRange { min: 1, max: 9 }, 1).unwrap().to_text();
    let mut files = every_format(50_000);
    files.push(("f.txt", graph));
    let flag = Arc::new(AtomicBool::new(true));
    let past = Instant::now() - Duration::from_millis(1);
    for (name, text) in &files {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        assert!(load::read(&path, None, &StopCheck::never()).is_ok(), "{name}");
        for (check, reason) in [
            (StopCheck::new(None, Some(flag.clone())), StopReason::Interrupted),
            (StopCheck::new(Some(past), None), StopReason::TimeLimit),
        ] {
            match load::read(&path, None, &check) {
                Err(Error::Stopped(r)) => assert_eq!(r, reason, "{name}"),
                Err(e) => panic!("{name}: {e}"),
                Ok(_) => panic!("{name}: read although asked to stop"),
            }
        }
    }
    // Checked during the parse, not only before it: a deadline passed in the middle of a large
    // text ends the parse within well under a second.
    let text = &every_format(400_000)[0].1;
    let flag = Arc::new(AtomicBool::new(false));
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(5));
            flag.store(true, Ordering::Relaxed);
            Instant::now()
        })
    };
    let parsed = pgomea::problem::maxsat::MaxSat::parse(text, "big.cnf", "big", &StopCheck::new(None, Some(flag)));
    let ended = Instant::now();
    let set = setter.join().unwrap();
    match parsed {
        Err(Error::Stopped(StopReason::Interrupted)) => {
            assert!(ended.saturating_duration_since(set) < Duration::from_millis(300), "{:?}", ended - set)
        }
        Err(e) => panic!("{e}"),
        // A machine that parses 400 000 clauses in 5 ms has nothing to stop.
        Ok(_) => assert!(ended <= set + Duration::from_millis(1)),
    }
}

#[test]
#[ignore = "writes a file of 10^7 variables (about 300 MB): run with --ignored"]
fn a_signal_ends_the_read_of_a_ten_million_variable_file_within_a_second() {
    let d = scratch("signal-read");
    let path = d.join("big.cnf");
    let (p, _) = pgomea::problem::maxsat::planted_3sat(10_000_000, 12_000_000, 1).unwrap();
    p.write(&path).unwrap();
    drop(p);
    let (o, took) = signalled(
        &["run", "--instance", path.to_str().unwrap(), "--time-limit", "600", "--quiet"],
        Duration::from_millis(400),
        "-INT",
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(took < Duration::from_secs(1), "stopping took {took:?}");
}

/// The first header of a text, if it announces more than 10^7 variables or subfunctions (those are
/// fuzzed through the binary under a memory limit, not in this process).
fn announces_much(text: &str) -> bool {
    let header = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('c')).unwrap_or("");
    header.split_whitespace().any(|t| t.parse::<u64>().is_ok_and(|v| v > 10_000_000))
        || text.split_whitespace().filter_map(|t| t.trim_start_matches('-').parse::<u64>().ok()).any(|v| v > 10_000_000)
            && text.starts_with('h')
}

/// Parses `bytes` with every reader of table and clause files: a clean error, or an instance
/// whose every subfunction's value lies in its bounds and whose fitness is their sum.
fn parse_every_reader(bytes: &[u8], seed: u64) {
    use pgomea::problem::maxsat::MaxSat;
    let Ok(text) = text::decode(bytes, "fuzz") else { return };
    if announces_much(&text) {
        return;
    }
    let never = StopCheck::never();
    let mut parsed: Vec<Box<dyn GrayBoxProblem>> = Vec::new();
    if let Ok(p) = MaxSat::parse(&text, "fuzz.cnf", "fuzz", &never) {
        parsed.push(Box::new(p));
    }
    if let Ok(p) = MaxSat::parse(&text, "fuzz.wcnf", "fuzz", &never) {
        parsed.push(Box::new(p));
    }
    if let Ok(p) = pgomea::problem::mk::parse(&text, "fuzz.mk", "fuzz", &never) {
        parsed.push(Box::new(p));
    }
    if let Ok(p) = TableProblem::parse(&text, "fuzz.nk", "fuzz", &never) {
        parsed.push(Box::new(p));
    }
    for p in parsed {
        let f = p.functions();
        let x: Vec<u8> = (0..f.variables()).map(|i| (seed >> (i % 64) & 1) as u8).collect();
        let mut sum = 0i128;
        for s in 0..f.len() {
            let (lo, hi) = f.bounds(s);
            let v = f.evaluate_one(s, &x);
            assert!(lo <= v && v <= hi, "seed {seed}");
            sum += v as i128;
        }
        assert_eq!(p.evaluate(&x) as i128, sum, "seed {seed}");
        if let Some(o) = p.known_optimum() {
            let (lo, hi) = f.fitness_bounds();
            assert!(lo <= o && o <= hi, "seed {seed}: a stated optimum inside the fitness range");
        }
    }
}

#[test]
fn random_and_mutated_clause_and_table_files_give_a_clean_error_or_a_correct_instance() {
    let mut bases: Vec<String> = every_format(6).into_iter().map(|(_, t)| t).collect();
    bases.push("c SATLIB\np cnf 3 2\n1 -3\n 0 2 3 0\n%\n0\n".into());
    bases.push("c x\nc optimum 2\np cnf 3 2\n1 -3 0\n2 0\n".into());
    bases.push(pgomea::problem::mk::to_text(&pgomea::problem::nk::sliding_window(6, 2, 1).unwrap()));
    for seed in 0..3000u64 {
        let mut rng = SplitMix64::stream(seed, 0x5a7);
        let bytes = match seed % 6 {
            0 => (0..rng.index(64)).map(|_| b"0123456789 -\ncfpomh%\t"[rng.index(21)]).collect(),
            _ => {
                let base = rng.index(bases.len());
                mutate(&mut rng, &bases[base])
            }
        };
        let outcome = std::panic::catch_unwind(|| parse_every_reader(&bytes, seed));
        assert!(outcome.is_ok(), "seed {seed} panicked on {:?}", String::from_utf8_lossy(&bytes));
    }
}

/// Header values from the extremes and at random.
fn header_value(rng: &mut SplitMix64) -> String {
    let extremes = [
        "0",
        "1",
        "2",
        "3",
        "17",
        "65536",
        "1000000",
        "100000000",
        "1000000000",
        "2147483647",
        "2147483648",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "18446744073709551615",
        "18446744073709551616",
        "-1",
        "x",
    ];
    if rng.coin() { extremes[rng.index(extremes.len())].to_string() } else { rng.index(1 << 20).to_string() }
}

#[test]
fn random_and_extreme_headers_and_generator_arguments_give_a_clean_refusal_or_a_valid_problem() {
    let d = scratch("headers-fuzz");
    let mut rng = SplitMix64::new(19);
    let body = ["1 -2 0\n", "3 1 -2 0\n", "f 1 1 0 1\n", "m 0\n0 1\n", "1 2 5\n", ""];
    for case in 0..48 {
        let (a, b, c) = (header_value(&mut rng), header_value(&mut rng), header_value(&mut rng));
        let (name, header) = match case % 7 {
            0 => ("h.cnf", format!("p cnf {a} {b}\n")),
            1 => ("h.wcnf", format!("p wcnf {a} {b} {c}\n")),
            2 => ("h.wcnf", format!("h {a} 0\n{b} -{c} 0\n")),
            3 => ("h.nk", format!("p nk {a} {b}\no {c}\n")),
            4 => ("h.mk", format!("p MK {a} {b}\n")),
            5 => ("h.txt", format!("{a} {b}\n")),
            _ => ("h.cnf", format!("c optimum {c}\np cnf {a} {b}\n")),
        };
        let path = d.join(name);
        let text = format!("{header}{}", body[rng.index(body.len())]);
        std::fs::write(&path, &text).unwrap();
        let o = limited("-v", 2 * GIB_KIB, &["info", "--instance", path.to_str().unwrap(), "--linkage", "univariate"]);
        let err = stderr(&o);
        assert!(matches!(o.status.code(), Some(0 | 2)), "{text:?}: {:?} {err}", o.status);
        assert!(!err.contains("panicked") && !err.contains("memory allocation"), "{text:?}: {err}");
        if o.status.code() == Some(2) {
            assert!(err.starts_with("error: "), "{text:?}: {err}");
        }
    }
    // Every generator, with random and extreme arguments: refused, or a file every reader of its
    // format takes back with the optimum the generator printed.
    let out = d.join("generated");
    for case in 0..36 {
        let (a, b) = (header_value(&mut rng), header_value(&mut rng));
        let small = (1 + rng.index(40)).to_string();
        let args: Vec<String> = match case % 6 {
            0 => vec!["nk".into(), "--n".into(), a, "--k".into(), small],
            1 => vec!["nk".into(), "--neighbourhood".into(), "random".into(), "--n".into(), small, "--k".into(), b],
            2 => vec!["trap".into(), "--k".into(), small, "--blocks".into(), a],
            3 => vec!["trap".into(), "--k".into(), a, "--blocks".into(), small, "--shuffle".into()],
            4 => vec!["sat".into(), "--n".into(), small, "--m".into(), b],
            _ => vec!["sat".into(), "--n".into(), a, "--m".into(), small],
        };
        let _ = std::fs::remove_file(&out);
        let mut full = vec!["generate".to_string()];
        full.extend(args.iter().cloned());
        full.extend(["-o".into(), out.to_str().unwrap().into()]);
        let full: Vec<&str> = full.iter().map(String::as_str).collect();
        let o = limited("-v", 2 * GIB_KIB, &full);
        let err = stderr(&o);
        assert!(!err.contains("panicked") && !err.contains("memory allocation"), "{full:?}: {err}");
        match o.status.code() {
            Some(0) => {
                let printed = String::from_utf8_lossy(&o.stdout).trim().to_string();
                let format = if args[0] == "sat" {
                    pgomea::problem::load::ProblemFormat::MaxSat
                } else {
                    pgomea::problem::load::ProblemFormat::Nk
                };
                let p = pgomea::problem::load::read(&out, Some(format), &StopCheck::never()).unwrap();
                let known = p.known_optimum().map_or("unknown".to_string(), |o| o.to_string());
                assert_eq!(printed, format!("optimum {known}"), "{full:?}");
            }
            Some(2) => assert!(err.starts_with("error: "), "{full:?}: {err}"),
            other => panic!("{full:?}: exit status {other:?}: {err}"),
        }
    }
}
