//! NK landscapes, the tables kind's first user: the dynamic-programming optimum against
//! enumeration, the `.nk` format (round trip and every malformed case), format detection, and
//! serial and parallel GOMEA reaching the proven optimum, through the library and the CLI.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use pgomea::choice::Choice;
use pgomea::gomea::run::{Limits, Run};
use pgomea::linkage::fos::LinkageModel;
use pgomea::problem::GrayBoxProblem;
use pgomea::problem::load::{self, ProblemFormat};
use pgomea::problem::nk;
use pgomea::problem::tables::TableProblem;
use pgomea::solve::Algorithm;
use pgomea::stop::StopCheck;

fn brute_force(p: &dyn GrayBoxProblem) -> i64 {
    let l = p.variables();
    assert!(l <= 20);
    (0u32..1 << l).map(|bits| p.evaluate(&(0..l).map(|v| (bits >> v & 1) as u8).collect::<Vec<u8>>())).max().unwrap()
}

#[test]
fn the_dynamic_programming_optimum_is_the_enumerated_one_and_is_attained() {
    for (n, k, seed) in [(1, 1, 1), (5, 1, 2), (6, 2, 3), (9, 3, 4), (12, 4, 5), (14, 5, 6), (13, 13, 7), (16, 6, 8)] {
        let p = nk::sliding_window(n, k, seed).unwrap();
        let (value, witness) = pgomea::problem::tables::sliding_window_optimum(p.functions()).unwrap();
        assert_eq!(value, brute_force(&p), "n {n} k {k}");
        assert_eq!(p.evaluate(&witness), value, "n {n} k {k}: the witness attains the optimum");
        assert_eq!(p.optimum, Some(value));
        assert_eq!(p.subfunctions(), n - k + 1);
    }
    // Not sliding windows: no claim.
    let p = TableProblem::new("x", "tables", 3, &[(vec![0, 2], vec![1, 2, 3, 4])], None).unwrap();
    assert!(pgomea::problem::tables::sliding_window_optimum(p.functions()).is_none());
}

#[test]
fn generator_arguments_are_checked() {
    assert!(nk::sliding_window(10, 0, 1).unwrap_err().to_string().contains("k must be 1 to 16"));
    assert!(nk::sliding_window(10, 17, 1).unwrap_err().to_string().contains("k must be 1 to 16"));
    assert!(nk::sliding_window(3, 4, 1).unwrap_err().to_string().contains("cannot hold"));
    // Table values are in [0, 10^6) and the generator is deterministic per seed.
    let p = nk::sliding_window(40, 3, 9).unwrap();
    let text = p.to_text();
    assert_eq!(text, nk::sliding_window(40, 3, 9).unwrap().to_text());
    assert_ne!(text, nk::sliding_window(40, 3, 10).unwrap().to_text());
    for s in 0..p.subfunctions() {
        let (lo, hi) = p.functions().bounds(s);
        assert!(lo >= 0 && hi < nk::VALUES as i64);
    }
}

#[test]
fn the_nk_format_round_trips() {
    let p = nk::sliding_window(30, 4, 2).unwrap();
    let q = TableProblem::parse(&p.to_text(), "x.nk", "x", &StopCheck::never()).unwrap();
    assert_eq!(q.to_text().lines().skip(1).collect::<Vec<_>>(), p.to_text().lines().skip(1).collect::<Vec<_>>());
    assert_eq!(q.optimum, p.optimum);
    assert_eq!(q.problem_type, "nk");
    let mut rng = pgomea_device::rng::SplitMix64::new(3);
    for _ in 0..50 {
        let x: Vec<u8> = (0..30).map(|_| rng.coin() as u8).collect();
        assert_eq!(p.evaluate(&x), q.evaluate(&x));
    }
    // The bit order: x_V1 is the most significant bit of the table index.
    let t = TableProblem::parse("p tables 2 1\nf 2 2 1 0 10 20 30\n", "t.nk", "t", &StopCheck::never()).unwrap();
    assert_eq!(t.evaluate(&[0, 0]), 0); // index 0
    assert_eq!(t.evaluate(&[0, 1]), 20); // x_2 = 1 is the top bit: index 2
    assert_eq!(t.evaluate(&[1, 0]), 10); // x_1 = 1: index 1
    assert_eq!(t.evaluate(&[1, 1]), 30);
}

#[test]
fn every_malformed_nk_file_names_file_and_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 1, "no header"),
        ("f 1 1 0 1\n", 1, "before anything else"),
        ("p nk 2\n", 1, "expected a header"),
        ("p n!k 2 1\n", 1, "letters, digits"),
        ("p nk 0 1\n", 1, "at least 1"),
        ("p nk x 1\n", 1, "not an integer"),
        ("p nk 2 1\np nk 2 1\n", 2, "second header"),
        ("p nk 2 1\nf 1 1 0 1\nf 1 2 0 1\n", 3, "more `f` lines"),
        ("p nk 2 2\nf 1 1 0 1\n", 2, "announces 2 subfunctions but the file has 1"),
        ("p nk 2 1\nf 0\n", 2, "1 to 16 variables, not 0"),
        ("p nk 2 1\nf 17\n", 2, "not 17"),
        ("p nk 2 1\nf 2 1 2 0 1 2\n", 2, "needs 2 variables and 4 table values"),
        ("p nk 2 1\nf 1 3 0 1\n", 2, "out of range 1..=2"),
        ("p nk 2 1\nf 1 0 0 1\n", 2, "out of range"),
        ("p nk 2 1\nf 2 1 1 0 1 2 3\n", 2, "appears twice"),
        ("p nk 2 1\nf 1 1 0 x\n", 2, "table value `x`"),
        ("p nk 2 1\nq 1\n", 2, "unknown line"),
        ("p nk 2 1\no 5\no 6\nf 1 1 0 1\n", 3, "one line `o VALUE`"),
        ("p nk 2 99999999999\n", 1, "more than a file of"),
        ("p nk 2 2\nf 1 1 0 9223372036854775807\nf 1 2 0 9223372036854775807\n", 1, "beyond 64-bit integers"),
    ];
    for &(text, line, what) in cases {
        common::assert_parse_error(
            TableProblem::parse(text, "bad.nk", "bad", &StopCheck::never()),
            text,
            "bad.nk",
            line,
            what,
        );
    }
    // Comments and blank lines anywhere.
    TableProblem::parse("c a\n\np nk 2 1\nc b\n\nf 1 1 0 1\nc end\n", "ok.nk", "ok", &StopCheck::never()).unwrap();
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgomea-nk-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_format_is_detected_from_the_extension_or_the_first_line_and_can_be_forced() {
    let d = scratch("detect");
    let text = nk::sliding_window(20, 3, 1).unwrap().to_text();
    for name in ["a.nk", "a.dat", "a"] {
        std::fs::write(d.join(name), &text).unwrap();
        let p = load::read(&d.join(name), None, &StopCheck::never()).unwrap();
        assert_eq!(p.problem_type(), "nk", "{name}");
    }
    // A .txt file is a graph unless forced.
    std::fs::write(d.join("a.txt"), &text).unwrap();
    assert!(load::read(&d.join("a.txt"), None, &StopCheck::never()).is_err());
    assert_eq!(
        load::read(&d.join("a.txt"), Some(ProblemFormat::Nk), &StopCheck::never()).unwrap().problem_type(),
        "nk"
    );
    std::fs::write(d.join("g"), "3 2\n1 2 5\n2 3 1\n").unwrap();
    assert_eq!(load::read(&d.join("g"), None, &StopCheck::never()).unwrap().problem_type(), "max-cut");
    assert_eq!(ProblemFormat::parse("nk").unwrap(), ProblemFormat::Nk);
}

fn reaches_the_optimum(algorithm: Algorithm, linkage: LinkageModel) {
    for (n, k, seed) in [(40, 3, 1), (60, 4, 2), (80, 5, 3)] {
        let p = nk::sliding_window(n, k, seed).unwrap();
        let opt = p.optimum.unwrap();
        let config = common::cpu_options(algorithm, linkage, seed);
        let mut run =
            Run::new(&p, Limits { time: Some(Duration::from_secs(120)), evaluations: Some(2e6), target: Some(opt) });
        run.verify = true;
        let o = common::solve_in(&p, config.clone(), &mut run, Some(opt)).unwrap();
        assert!(
            o.reached_target,
            "{algorithm:?} {linkage} on n {n} k {k}: {} of {opt} after {}",
            o.best_fitness,
            o.stop_reason.as_str()
        );
        assert_eq!(o.problem, "nk");
    }
}

#[test]
fn serial_gomea_reaches_the_nk_optimum() {
    reaches_the_optimum(Algorithm::Serial, LinkageModel::Flt);
    reaches_the_optimum(Algorithm::Serial, LinkageModel::Lt);
}

#[test]
fn parallel_gomea_reaches_the_nk_optimum() {
    reaches_the_optimum(Algorithm::Parallel, LinkageModel::Flt);
    reaches_the_optimum(Algorithm::Parallel, LinkageModel::Bflt(12));
}

#[test]
fn the_cli_generates_runs_and_describes_nk_instances() {
    let bin = env!("CARGO_BIN_EXE_pgomea");
    let d = scratch("cli");
    let file = d.join("nk.nk");
    let out = Command::new(bin)
        .args(["generate", "nk", "--n", "50", "--k", "4", "--seed", "7", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let optimum: i64 = stdout.trim().strip_prefix("optimum ").unwrap().parse().unwrap();
    assert_eq!(Some(optimum), nk::sliding_window(50, 4, 7).unwrap().optimum);
    for algo in ["serial", "parallel"] {
        let out = Command::new(bin)
            .args([
                "run",
                "--algo",
                algo,
                "--backend",
                "cpu",
                "--target",
                "best-known",
                "--time-limit",
                "60",
                "--json",
                "-q",
                "--instance",
            ])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["best_fitness"], optimum, "{algo}");
        assert_eq!(j["best_known"], optimum);
        assert_eq!(j["problem"], "nk");
        assert_eq!(j["variables"], 50);
        assert_eq!(j["subfunctions"], 47);
    }
    let out = Command::new(bin).args(["info", "--json", "--instance"]).arg(&file).output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (j["problem"].as_str(), j["arity_max"].as_i64(), j["best_known"].as_i64()),
        (Some("nk"), Some(4), Some(optimum))
    );
    // Without -o: the instance on stdout, the optimum on stderr.
    let out = Command::new(bin).args(["generate", "nk", "--n", "10", "--k", "2"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("p nk 10 9"));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("optimum "));
    // A malformed file: file, line, exit code 2.
    std::fs::write(d.join("bad.nk"), "p nk 3 1\nf 2 1 4 0 0 0 0\n").unwrap();
    let out = Command::new(bin).args(["run", "--instance"]).arg(d.join("bad.nk")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.nk:2: variable 4 is out of range 1..=3"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
