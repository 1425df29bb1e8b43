//! End-to-end tests of the binary: exit codes, the JSON result, the trace file, error messages.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn pgomea(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgomea")).args(args).output().expect("the binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgomea-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "failed: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn default_run_solves_the_embedded_instance_and_reports_every_field() {
    let o = pgomea(&["run", "--target", "best-known", "--json", "--quiet", "--seed", "3"]);
    let v = json(&o);
    for field in [
        "instance",
        "algorithm",
        "backend",
        "seed",
        "best_fitness",
        "best_known",
        "reached_target",
        "time_s",
        "evaluations",
        "subfunction_evaluations",
        "generations",
        "populations",
        "solution",
    ] {
        assert!(v.get(field).is_some(), "JSON lacks {field}: {v}");
    }
    assert_eq!(v["reached_target"], true);
    assert_eq!(v["best_fitness"], v["best_known"]);
    assert_eq!(v["seed"], 3);
    let solution = v["solution"].as_str().unwrap();
    assert_eq!(solution.len(), 400);
    assert!(solution.bytes().all(|b| b == b'0' || b == b'1'));
}

#[test]
fn human_readable_run_and_progress_on_stderr() {
    let o = pgomea(&["run", "--time-limit", "0.5"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("best fitness"), "{out}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("default-torus-20x20"), "{err}");
}

#[test]
fn parallel_cpu_backend_through_the_cli() {
    let o = pgomea(&[
        "run",
        "--algo",
        "parallel",
        "--backend",
        "cpu",
        "--threads",
        "2",
        "--target",
        "best-known",
        "--json",
        "--quiet",
    ]);
    let v = json(&o);
    assert_eq!(v["reached_target"], true);
    assert!(v["backend"].as_str().unwrap().starts_with("cpu"));
}

#[test]
fn trace_file_has_one_row_per_improvement() {
    let path = tmp("trace.csv");
    let o = pgomea(&["run", "--target", "best-known", "--quiet", "--trace", path.to_str().unwrap(), "--json"]);
    let v = json(&o);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("time_s,evaluations,best_fitness"));
    let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|x| x.parse().unwrap()).collect()).collect();
    assert!(rows.len() > 1);
    for w in rows.windows(2) {
        assert!(w[1][2] > w[0][2], "fitness must improve strictly: {w:?}");
        assert!(w[1][0] >= w[0][0] && w[1][1] >= w[0][1]);
    }
    assert_eq!(rows.last().unwrap()[2] as i64, v["best_fitness"].as_i64().unwrap());
}

#[test]
fn generate_then_run_and_info_on_the_file() {
    let path = tmp("torus.txt");
    let o = pgomea(&["generate", "torus", "--side", "8", "--seed", "4", "-o", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&path).unwrap();
    let total: i64 = text
        .lines()
        .filter(|l| !l.starts_with('c'))
        .skip(1)
        .map(|l| l.split_whitespace().nth(2).unwrap().parse::<i64>().unwrap())
        .sum();
    let o = pgomea(&["run", "--instance", path.to_str().unwrap(), "--target", &total.to_string(), "--json", "--quiet"]);
    assert_eq!(json(&o)["best_fitness"].as_i64().unwrap(), total);
    let o = pgomea(&["info", "--instance", path.to_str().unwrap(), "--json"]);
    let v = json(&o);
    assert_eq!(v["vertices"], 64);
    assert_eq!(v["edges"], 128);
    assert_eq!(v["fos_sets"], 126);
    // The paper's tree, not chosen from the instance (that takes 10^6 variables off a lattice).
    assert_eq!((v["linkage"].as_str(), v.get("linkage_chosen")), (Some("flt"), None), "{v}");
    // The 64 singletons, then merged sets of which the largest is one.
    let total = v["fos_total_size"].as_u64().unwrap();
    assert!(total >= 64 + v["fos_largest_set"].as_u64().unwrap() && total >= 126, "{v}");
    assert!(v["colors"].as_u64().unwrap() >= 2);
}

#[test]
fn generated_weights_may_be_negative_without_an_equals_sign() {
    let path = tmp("glass.txt");
    let args = "generate random --n 40 --m 100 --min-weight -3 --max-weight 3 -o";
    let o = pgomea(&[args.split(' ').collect::<Vec<_>>(), vec![path.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let weights: Vec<i64> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('c'))
        .skip(1)
        .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    assert_eq!(weights.len(), 100);
    assert!(weights.iter().all(|w| (-3..=3).contains(w)), "{weights:?}");
    assert!(weights.iter().any(|&w| w < 0), "{weights:?}");
}

#[test]
fn malformed_instance_gives_file_line_and_exit_code_2() {
    let path = tmp("bad.txt");
    std::fs::write(&path, "3 2\n1 2 1\n2 2 4\n").unwrap();
    let o = pgomea(&["run", "--instance", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{}:3: self-loop", path.display())), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_options_are_clear_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--linkage", "bflt:0"], "bflt"),
        (&["run", "--linkage", "tree"], "linkage"),
        (&["run", "--target", "lots"], "--target"),
        (&["run", "--time-limit=-1"], "--time-limit"),
        (&["run", "--n-base", "1"], "--n-base"),
        (&["run", "--instance", "/no/such/file.txt"], "/no/such/file.txt"),
        (&["run", "--algo", "parallel", "--linkage", "lt"], "learned linkage tree"),
        (&["run", "--set", "Z", "--name", "x", "--instances-dir", "/"], "has no best_known.csv"),
    ];
    for (args, needle) in cases {
        let o = pgomea(args);
        assert!(!o.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: `{err}` should mention {needle}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn set_and_name_select_from_the_data_directory() {
    let Some(_) = common::data_dir() else { return };
    let o = pgomea(&["run", "--set", "B", "--name", "n0000100i00", "--target", "best-known", "--json", "--quiet"]);
    let v = json(&o);
    assert_eq!(v["best_known"], 586);
    assert_eq!(v["reached_target"], true);
    let o = pgomea(&["run", "--set", "C", "--name", "nope", "--quiet"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no instance `nope`"));
    let o = pgomea(&["info", "--set", "C", "--name", "g1", "--json"]);
    assert_eq!(json(&o)["vertices"], 800);
}

#[test]
fn devices_without_a_gpu_is_a_clear_error() {
    let o = pgomea(&["devices"]);
    if pgomea::backend::cuda::probe().is_err() {
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("CUDA"));
    } else {
        assert!(o.status.success());
    }
}

#[test]
fn selftest_passes() {
    let o = pgomea(&["selftest", "--generations", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(" passed, 0 failed"), "{out}");
}

#[test]
fn selftest_refuses_a_named_data_directory_that_is_not_there() {
    let o = pgomea(&["selftest", "--generations", "2", "--instances-dir", "/no/such/pgomea/data"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--instances-dir /no/such/pgomea/data"), "{err}");
}

#[test]
fn anneal_only_is_the_control_without_gom() {
    let help = String::from_utf8(pgomea(&["run", "--help"]).stdout).unwrap();
    assert!(help.contains("--anneal-only") && help.contains("no GOM"), "{help}");
    let trace = tmp("control.csv");
    let common = ["run", "--anneal-only", "--anneal-sweeps", "40", "--max-population", "64", "--json", "--quiet"];
    for algo in [&["--algo", "serial"][..], &["--algo", "parallel", "--backend", "cpu", "--threads", "2"]] {
        let args: Vec<&str> = common.iter().chain(algo).copied().chain(["--trace", trace.to_str().unwrap()]).collect();
        let v = json(&pgomea(&args));
        // The scheme made and annealed its populations up to the cap, and no GOM ran.
        assert_eq!(v["populations"], serde_json::json!([16, 32, 64]), "{algo:?}: {v}");
        assert_eq!((v["generations"].as_u64(), v["gom_steps"].as_u64()), (Some(0), Some(0)), "{algo:?}");
        assert_eq!(v["stop_reason"], "all populations terminated");
        assert_eq!(v["config"]["anneal_only"], true);
        assert_eq!(v["config"]["forced_improvement"], false);
        // The trace ends at the best fitness.
        let text = std::fs::read_to_string(&trace).unwrap();
        let last = text.lines().last().unwrap();
        assert_eq!(last.rsplit(',').next().unwrap(), v["best_fitness"].to_string(), "{text}");
    }
    // The default says that it is not the control.
    let v = json(&pgomea(&["run", "--max-evals", "2000", "--json", "--quiet"]));
    assert_eq!(v["config"]["anneal_only"], false);
    // Without the annealed local search there is no control.
    for bad in [&["--local-search", "off"][..], &["--anneal-sweeps", "0"], &["--algo", "parallel", "--fi"]] {
        let args: Vec<&str> = ["run", "--anneal-only", "--quiet"].iter().chain(bad).copied().collect();
        let o = pgomea(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("error: --anneal-only ") && err.contains("no generation"), "{bad:?}: {err}");
    }
}

/// `--anneal-share`: under a time limit, `run` fits a new population's annealing into its share
/// of the time left (at the pace of the population annealed before) and says so; 0 anneals as
/// asked. The control with two populations: with a share in which no sweep fits, the second
/// anneals none; the first (no pace known yet) refits itself after each call: with serial
/// GOMEA, whose first call is the first solution's 40 sweeps, the others get none; with parallel
/// GOMEA the first call is the whole schedule, and nothing is left to refit.
#[test]
fn run_fits_the_annealing_into_its_share_of_the_time_left_and_says_so() {
    let help = String::from_utf8(pgomea(&["run", "--help"]).stdout).unwrap();
    assert!(help.contains("--anneal-share") && help.contains("of the time left"), "{help}");
    let common = [
        "run",
        "--anneal-only",
        "--anneal-sweeps",
        "40",
        "--anneal-growth",
        "1",
        "--max-population",
        "32",
        "--time-limit",
        "600",
    ];
    for algo in [&["--algo", "serial"][..], &["--algo", "parallel", "--backend", "cpu", "--threads", "2"]] {
        let run = |share: &str| {
            let args: Vec<&str> = common.iter().chain(algo).copied().chain(["--anneal-share", share]).collect();
            let o = pgomea(&args);
            assert!(o.status.success(), "{algo:?} {share}: {}", String::from_utf8_lossy(&o.stderr));
            (String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
        };
        let (out, err) = run("1e-9");
        assert!(
            err.contains("note: population of 32: annealing fitted to 0.0 s") && err.contains(": 0 of 40 sweeps"),
            "{err}"
        );
        let refit = "note: population of 16: annealing fitted to 0.0 s, < 0.01 % of the time left, at its own pace as it went: 0 of 40 sweeps";
        assert_eq!(err.contains(refit), algo[1] == "serial", "{algo:?}: {err}");
        assert!(!err.contains("population of 16: annealing fitted to 0.0 s, < 0.01 % of the time left: "), "{err}");
        assert!(out.contains("40 annealing sweeps, each within < 0.01 % of the time left"), "{out}");
        let (out, err) = run("0");
        assert!(!err.contains("fitted") && !out.contains("time left"), "{algo:?}: {err}{out}");
    }
    let o = pgomea(&["run", "--anneal-share", "2", "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--anneal-share 2: a share of the time left"), "{err}");
}

#[test]
fn run_chooses_the_annealing_from_the_instance_and_says_why() {
    let traps = tmp("traps.nk");
    let o = pgomea(&["generate", "trap", "--k", "5", "--blocks", "40", "--shuffle", "-o", traps.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let nk = tmp("nk.nk");
    assert!(pgomea(&["generate", "nk", "--n", "200", "--k", "4", "-o", nk.to_str().unwrap()]).status.success());
    let sat = tmp("sat.cnf");
    assert!(pgomea(&["generate", "sat", "--n", "50", "--m", "200", "-o", sat.to_str().unwrap()]).status.success());
    // On 8 CPU threads (as on a GPU) and on 2 (longer annealing, said why).
    let cases = [
        (None, "8", 3000, "annealed: pairwise terms"),
        (None, "2", 10_000, "annealed: pairwise terms (Max-Cut, Ising, QUBO); 10000 sweeps on 2 CPU threads"),
        (Some(&nk), "8", 3000, "annealed: "),
        (Some(&traps), "2", 0, "no annealing: 40 of 40 tables probed deceptive"),
        (Some(&sat), "2", 0, "no annealing: clauses (MAX-SAT)"),
    ];
    for (file, threads, sweeps, why) in cases {
        let mut args =
            vec!["run", "--algo", "parallel", "--backend", "cpu", "--threads", threads, "--max-evals", "500"];
        if let Some(f) = file {
            args.extend(["--instance", f.to_str().unwrap()]);
        }
        let v = json(&pgomea(&[&args[..], &["--json", "--quiet"]].concat()));
        assert_eq!(v["config"]["anneal_sweeps"], sweeps, "{file:?}");
        assert!(v["config"]["annealing_chosen"].as_str().unwrap().starts_with(why), "{file:?}: {v}");
        // The human-readable result says it too.
        let text = String::from_utf8(pgomea(&[&args[..], &["--quiet"]].concat()).stdout).unwrap();
        assert!(text.contains(&format!("; by default, {why}")), "{text}");
    }
    // Asked for, the sweeps are kept and no reason is given; the control anneals traps as well.
    let traps = traps.to_str().unwrap();
    let v =
        json(&pgomea(&["run", "--instance", traps, "--anneal-sweeps", "7", "--max-evals", "500", "--json", "--quiet"]));
    assert_eq!((v["config"]["anneal_sweeps"].as_u64(), v["config"].get("annealing_chosen")), (Some(7), None));
    let control = ["run", "--instance", traps, "--anneal-only", "--max-evals", "500", "--json", "--quiet"];
    let v = json(&pgomea(&[&control[..], &["--algo", "parallel", "--backend", "cpu", "--threads", "8"]].concat()));
    assert_eq!(v["config"]["anneal_sweeps"], 3000);
    // As long as the hybrid's on few threads.
    let v = json(&pgomea(&[&control[..], &["--algo", "serial"]].concat()));
    assert_eq!(v["config"]["anneal_sweeps"], 10_000);
}

#[test]
fn problem_without_an_instance_file_is_refused() {
    // A set's instance (and the embedded default) have their own kind: --problem would be ignored.
    for args in [
        &["run", "--problem", "nk", "--max-evals", "10"][..],
        &["run", "--set", "C", "--name", "G1", "--problem", "nk"],
    ] {
        let o = pgomea(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--problem"), "{err}");
    }
}

#[test]
fn elitist_restarts_are_asked_for_said_and_refused_without_the_annealing() {
    let help = String::from_utf8(pgomea(&["run", "--help"]).stdout).unwrap();
    assert!(help.contains("--elitist-restarts") && help.contains("--no-elitist-restarts"), "{help}");
    // A short run's JSON result with `extra` options.
    let short = |extra: &[&str]| json(&pgomea(&[&["run", "--max-evals", "3000", "--json", "--quiet"], extra].concat()));
    assert_eq!(short(&[])["config"]["elitist_restarts"], false, "off by default");
    let o = pgomea(&["run", "--max-evals", "3000", "--elitist-restarts"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("every second population started from the elitist"), "{out}");
    for algo in ["serial", "parallel"] {
        let v = short(&["--algo", algo, "--backend", "cpu", "--elitist-restarts"]);
        assert_eq!(v["config"]["elitist_restarts"], true, "{v}");
    }
    // The last of the two flags wins.
    assert_eq!(short(&["--elitist-restarts", "--no-elitist-restarts"])["config"]["elitist_restarts"], false);
    // A 2D spin glass is searched by the descent alone by default: no restarts, and it says why.
    let glass = tmp("restarts-glass.txt");
    let made = pgomea(&[
        "generate",
        "torus",
        "--side",
        "30",
        "--dims",
        "2",
        "--weights",
        "gaussian",
        "-o",
        glass.to_str().unwrap(),
    ]);
    assert!(made.status.success());
    let v =
        short(&["--instance", glass.to_str().unwrap(), "--algo", "parallel", "--backend", "cpu", "--elitist-restarts"]);
    let why = v["config"]["annealing_chosen"].as_str().unwrap_or_default();
    assert_eq!(v["config"]["elitist_restarts"], false, "{v}");
    assert!(
        why.starts_with("no annealing")
            && why.ends_with("so no restarts from the elitist (its copies would stay copies)"),
        "{why}"
    );
    for refused in [["--local-search", "off"], ["--anneal-sweeps", "0"]] {
        let o = pgomea(&["run", "--max-evals", "3000", "--quiet", "--elitist-restarts", refused[0], refused[1]]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("--elitist-restarts needs"), "{err}");
    }
}

#[test]
fn partition_mixing_is_the_default_but_for_clauses_and_its_flags_say_so() {
    let help = String::from_utf8(pgomea(&["run", "--help"]).stdout).unwrap();
    assert!(help.contains("--partition-mixing") && help.contains("--no-partition-mixing"), "{help}");
    // Clauses: off by default, and the run says why; tables: on.
    let sat = tmp("mixing-sat.cnf");
    assert!(pgomea(&["generate", "sat", "--n", "50", "--m", "200", "-o", sat.to_str().unwrap()]).status.success());
    let o = pgomea(&["run", "--instance", sat.to_str().unwrap(), "--max-evals", "300"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("by default, no partition mixing: clauses (MAX-SAT)"), "{out}");
    let nk = tmp("mixing-nk.nk");
    assert!(pgomea(&["generate", "nk", "--n", "100", "--k", "4", "-o", nk.to_str().unwrap()]).status.success());
    let v = json(&pgomea(&["run", "--instance", nk.to_str().unwrap(), "--max-evals", "300", "--json", "--quiet"]));
    assert_eq!(v["config"]["partition_mixing"], true, "{v}");
    assert!(v["config"]["partition_mixing_chosen"].as_str().unwrap().starts_with("partition mixing: fewer than"));
    // The embedded default instance is Max-Cut: mixing by default, said in the hybrid line.
    let o = pgomea(&["run", "--max-evals", "3000"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("partition mixing into the elitist"), "{out}");
    let v = json(&pgomea(&["run", "--max-evals", "3000", "--json", "--quiet"]));
    assert_eq!(v["config"]["partition_mixing"], true);
    let v = json(&pgomea(&["run", "--max-evals", "3000", "--json", "--quiet", "--no-partition-mixing"]));
    assert_eq!(
        (v["config"]["partition_mixing"].as_bool(), v["config"].get("partition_mixing_chosen")),
        (Some(false), None)
    );
    // The last of the two flags wins; the control mixes only when asked.
    let v = json(&pgomea(&[
        "run",
        "--max-evals",
        "3000",
        "--json",
        "--quiet",
        "--no-partition-mixing",
        "--partition-mixing",
    ]));
    assert_eq!(v["config"]["partition_mixing"], true);
    let control = ["run", "--anneal-only", "--anneal-sweeps", "20", "--max-population", "32", "--json", "--quiet"];
    assert_eq!(json(&pgomea(&control))["config"]["partition_mixing"], false);
    let mixed: Vec<&str> = control.iter().copied().chain(["--partition-mixing"]).collect();
    let v = json(&pgomea(&mixed));
    assert_eq!((v["config"]["partition_mixing"].as_bool(), v["generations"].as_u64()), (Some(true), Some(0)));
}

#[test]
fn explain_prints_every_option_resolved_with_the_reasons_and_runs_nothing() {
    let graph = tmp("explain-torus.txt");
    let g = graph.to_str().unwrap();
    assert!(pgomea(&["generate", "torus", "--side", "8", "--output", g]).status.success());
    let trace = tmp("explain-trace.csv");
    let start = std::time::Instant::now();
    let o = pgomea(&["run", "--instance", g, "--seed", "5", "--explain", "--trace", trace.to_str().unwrap()]);
    // Nothing ran: no trace file, no result, and well within the 10 s a run would take.
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    assert!(!trace.exists(), "--explain ran: it wrote the trace");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("best fitness"), "{out}");
    // Every option of the library's configuration, in its command-line spelling; the seed asked
    // for has no reason, nor has the CUDA tuning (the command line always passes the environment's),
    // a default has one.
    let options = serde_json::to_value(pgomea::solve::RunOptions::default()).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    for name in options.as_object().unwrap().keys() {
        let flag = pgomea_cli::args::option_spelling(name);
        let at = lines.iter().position(|l| l.split_whitespace().next() == Some(&flag));
        let at = at.unwrap_or_else(|| panic!("--explain lacks {flag}:\n{out}"));
        let reason = lines.get(at + 1).is_some_and(|l| l.starts_with("    by default: "));
        assert_eq!(reason, !["seed", "cuda"].contains(&name.as_str()), "{flag}'s reason:\n{out}");
    }
    assert!(lines.iter().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["--seed", "5"]), "{out}");
    // The reasons the configuration records, the annealing's decided for the backend included.
    let v = json(&pgomea(&["run", "--instance", g, "--seed", "5", "--explain", "--json"]));
    let config = &v["config"];
    assert_eq!((config["seed"].as_u64(), config["anneal_sweeps"].is_u64()), (Some(5), true), "{v}");
    assert_eq!(v["backend"], "cpu", "{v}");
    let mut reasons: Vec<&str> =
        config["defaults"].as_object().unwrap().values().map(|r| r.as_str().unwrap()).collect();
    for own in ["linkage_chosen", "annealing_chosen", "partition_mixing_chosen"] {
        reasons.extend(config[own].as_str());
    }
    assert!(reasons.len() >= 20, "{v}");
    for why in reasons {
        assert!(out.contains(&format!("    by default: {why}\n")), "--explain lacks {why:?}:\n{out}");
    }
}

#[test]
fn an_empty_ising_file_is_refused_like_every_other_format() {
    let dir = tmp("empty-ising");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [("empty.ising", ""), ("comments.ising", "c nothing but comments\n# and this\n\n")] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let o = pgomea(&["run", "--instance", path.to_str().unwrap(), "--quiet"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(name) && err.contains("empty file"), "{name}: {err}");
    }
}

#[test]
fn the_energy_in_json_is_exact() {
    let dir = tmp("exact-energy");
    std::fs::create_dir_all(&dir).unwrap();
    // One spin with the field 2^55 + 1, which no f64 holds: the lowest energy is its negative.
    let big = dir.join("big.ising");
    std::fs::write(&big, "0 0 36028797018963969\n").unwrap();
    let v = json(&pgomea(&["run", "--instance", big.to_str().unwrap(), "--json", "--quiet"]));
    assert_eq!(v["energy"].as_i64(), Some(-36028797018963969), "{}", v["energy"]);
    // Decimal couplings: the energy as its exact decimal text.
    let decimal = dir.join("decimal.ising");
    std::fs::write(&decimal, "0 1 0.1\n1 2 0.2\n").unwrap();
    let v = json(&pgomea(&["run", "--instance", decimal.to_str().unwrap(), "--json", "--quiet"]));
    assert_eq!(v["energy"], "-0.3", "{}", v["energy"]);
    // Integer energies of a QUBO stay JSON integers.
    let qubo = dir.join("model.qubo");
    std::fs::write(&qubo, "p qubo 0 2 2 1\n0 0 -3\n1 1 2\n0 1 -4\n").unwrap();
    let v = json(&pgomea(&["run", "--instance", qubo.to_str().unwrap(), "--json", "--quiet"]));
    assert_eq!(v["energy"].as_i64(), Some(-5), "{}", v["energy"]);
}

#[test]
fn every_refused_option_is_named() {
    let cases = [
        ("--time-limit", "-1"),
        ("--time-limit", "0"),
        ("--max-evals", "-1"),
        ("--target", "x"),
        ("--seed", "-1"),
        ("--threads", "-1"),
        ("--threads", "0"),
        ("--n-base", "-1"),
        ("--n-base", "1"),
        ("--c-ims", "-1"),
        ("--max-population", "-1"),
        ("--anneal-sweeps", "-1"),
        ("--anneal-growth", "-1"),
        ("--anneal-share", "-1"),
        ("--anneal-share", "2"),
        ("--device-memory-limit", "-1"),
    ];
    for (flag, value) in cases {
        let o = pgomea(&["run", "--algo", "parallel", "--backend", "cpu", flag, value, "--quiet"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(flag), "{flag} {value} refused without naming the option: {err}");
    }
}

/// Every run option reaches the same configuration from the command line (its flags) and from
/// Python (the JSON object of keywords that `pgomea.solve` hands to `RunOptions::from_json`).
#[test]
fn every_run_option_reaches_the_same_configuration_from_the_command_line_and_from_python() {
    use clap::Parser;
    use pgomea::solve::RunOptions;
    use pgomea::solve::options::RUN_OPTIONS;
    use serde_json::json;
    let samples = [
        ("algorithm", vec!["--algo", "parallel"], json!("parallel")),
        ("backend", vec!["--backend", "cpu"], json!("cpu")),
        ("linkage", vec!["--linkage", "bflt:8"], json!("bflt:8")),
        ("coloring", vec!["--coloring", "dsatur"], json!("dsatur")),
        ("fos_order", vec!["--fos-order", "colored"], json!("colored")),
        ("forced_improvement", vec!["--fi", "--no-fi"], json!(false)),
        ("local_search", vec!["--local-search", "offspring"], json!("offspring")),
        ("anneal_sweeps", vec!["--anneal-sweeps", "12"], json!(12)),
        ("anneal_growth", vec!["--anneal-growth", "2"], json!(2)),
        ("anneal_only", vec!["--anneal-only"], json!(true)),
        ("anneal_share", vec!["--anneal-share", "0.5"], json!(0.5)),
        ("partition_mixing", vec!["--no-partition-mixing", "--partition-mixing"], json!(true)),
        ("elitist_restarts", vec!["--elitist-restarts"], json!(true)),
        ("seed", vec!["--seed", "18446744073709551615"], json!(u64::MAX)),
        ("time_limit", vec!["--time-limit", "3.5"], json!(3.5)),
        ("max_evaluations", vec!["--max-evals", "1000"], json!(1000)),
        ("target", vec!["--target", "-77"], json!(-77)),
        ("n_base", vec!["--n-base", "8"], json!(8)),
        ("c_ims", vec!["--c-ims", "2"], json!(2)),
        ("max_population", vec!["--max-population", "64"], json!(64)),
        ("threads", vec!["--threads", "2"], json!(2)),
        ("device_memory_limit", vec!["--device-memory-limit", "100"], json!(100)),
    ];
    // Every option of the table but the CUDA tuning, which the command line takes from the
    // environment (`PGOMEA_CUDA_*`) and Python as a dict of the same fields.
    let names: Vec<&str> = samples.iter().map(|(name, _, _)| *name).collect();
    let table: Vec<&str> = RUN_OPTIONS.iter().map(|o| o.name).filter(|&n| n != "cuda").collect();
    assert_eq!(names, table);
    let problem = pgomea::problem::maxcut::MaxCut::new(pgomea::problem::generate::default_instance()).unwrap();
    let cli = |args: &[&str]| {
        let argv = ["pgomea", "run"].iter().chain(args);
        match pgomea_cli::cli::Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{args:?}: {e}")).command {
            pgomea_cli::cli::Command::Run(a) => RunOptions { cuda: None, ..a.options().unwrap() },
            other => panic!("{other:?}"),
        }
    };
    let resolved = |o: &RunOptions| format!("{:?}", o.resolve(&problem, Some(800)));
    let (mut all_args, mut all_json) = (Vec::new(), serde_json::Map::new());
    for (name, args, value) in &samples {
        let from_cli = cli(args);
        let from_python = RunOptions::from_json(&json!({ *name: value.clone() })).unwrap();
        assert_eq!(from_cli, from_python, "{name}");
        assert_ne!(from_cli, RunOptions::default(), "{name} was not given");
        assert_eq!(resolved(&from_cli), resolved(&from_python), "{name}");
        all_args.extend(args.iter().copied());
        all_json.insert(name.to_string(), value.clone());
    }
    let (from_cli, from_python) = (cli(&all_args), RunOptions::from_json(&all_json.into()).unwrap());
    assert_eq!(from_cli, from_python);
    assert_eq!(resolved(&from_cli), resolved(&from_python));
}
