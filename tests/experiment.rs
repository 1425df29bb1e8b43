//! `pgomea experiment` and `pgomea merge` end to end, on generated instances (no data directory
//! needed), the CPU backend and tiny evaluation budgets (deterministic termination): every study
//! writes its run files, summary and figures; shards merge to the summary of one run; a second
//! invocation skips finished runs; an interrupt leaves finished runs intact; errors are clear.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use pgomea::problem::generate::{self, WeightRange};

fn pgomea(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgomea")).args(args).output().expect("the binary runs")
}

fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "failed ({:?}):\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh scratch folder per test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgomea-experiment-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The maximum cut of a small graph by enumeration.
fn brute_force(inst: &pgomea::problem::graph::Graph) -> i64 {
    let n = inst.vertices;
    assert!(n <= 16);
    (0u32..1 << (n - 1))
        .map(|m| inst.edges.iter().filter(|e| (m >> e.u & 1) != (m >> e.v & 1)).map(|e| e.w).sum())
        .max()
        .unwrap()
}

/// Writes a generated instance and, when `best` is given, its best-known value as FILE.bkv.
fn write(dir: &Path, name: &str, inst: pgomea::problem::graph::Graph, best: Option<i64>) -> String {
    let path = dir.join(format!("{name}.txt"));
    inst.write(&path).unwrap();
    if let Some(b) = best {
        std::fs::write(path.with_extension("bkv"), format!("{b}\n")).unwrap();
    }
    path.display().to_string()
}

/// Two tiny instances: an even torus (optimum = total weight) and a random sparse graph.
fn tiny_instances(dir: &Path) -> Vec<String> {
    let w = WeightRange { min: 1, max: 5 };
    let torus = generate::torus(6, w, 1).unwrap();
    let total = torus.total_weight().unwrap();
    vec![write(dir, "tor6", torus, Some(total)), write(dir, "rnd30", generate::random(30, 70, w, 2).unwrap(), None)]
}

fn list(dir: &Path, sub: &str) -> BTreeSet<String> {
    match std::fs::read_dir(dir.join(sub)) {
        Ok(rd) => {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| !n.starts_with('.')).collect()
        }
        Err(_) => BTreeSet::new(),
    }
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
}

/// The deterministic part of a summary: per group the study, instance, variant and, per run, the
/// run id, seed, final best fitness and evaluations (all fixed by the seed and the budget).
fn deterministic(s: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for g in s["groups"].as_array().unwrap() {
        out.push(format!("{} {} {} runs={}", g["study"], g["instance"], g["variant"], g["runs"]));
        for r in g["run_details"].as_array().unwrap() {
            out.push(format!(
                "  {} seed={} best={} evals={}",
                r["run_id"], r["seed"], r["best_fitness"], r["evaluations"]
            ));
        }
    }
    out
}

/// Checks a figure pair: the SVG is an SVG document, the PNG decodes to an 800x560 picture that is
/// not blank.
fn check_figure(dir: &Path, name: &str) {
    let svg = std::fs::read_to_string(dir.join("figures").join(format!("{name}.svg")))
        .unwrap_or_else(|e| panic!("{name}.svg: {e}"));
    assert!(svg.trim_start().starts_with("<svg"), "{name}.svg does not start with <svg");
    assert!(svg.trim_end().ends_with("</svg>"), "{name}.svg is not closed");
    assert!(svg.matches("<text").count() >= 5, "{name}.svg has no axis labels");
    assert!(svg.contains("<polyline") || svg.contains("<path") || svg.contains("<polygon"), "{name}.svg draws no line");
    let png = std::fs::read(dir.join("figures").join(format!("{name}.png"))).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}.png lacks the PNG signature");
    let (w, h, channels, pixels) =
        pgomea_cli::experiment::plot::decode_png(&png).unwrap_or_else(|e| panic!("{name}.png: {e}"));
    assert_eq!((w, h), (800, 560));
    assert_eq!(pixels.len(), (w * h) as usize * channels);
    let inked = pixels.chunks(channels).filter(|p| p.iter().take(3).any(|&c| c < 200)).count();
    let share = inked as f64 / (w * h) as f64;
    assert!(share > 0.005 && share < 0.6, "{name}.png: {:.1}% of the pixels are drawn", share * 100.0);
    // Coloured pixels: the curves (not only black text and grey grid lines).
    assert!(pixels.chunks(channels).any(|p| p[0].abs_diff(p[2]) > 80), "{name}.png has no coloured line");
}

/// Runs a study and checks everything it must write. Returns the result directory.
fn run_study(
    study: &str,
    instances: &[String],
    runs: usize,
    variants: usize,
    figures: &[String],
    extra: &[&str],
) -> PathBuf {
    let dir = scratch(study).join("out");
    let out = dir.display().to_string();
    let mut args =
        vec!["experiment", study, "--out", &out, "--backend", "cpu", "--threads", "2", "--max-population", "256"];
    let runs_s = runs.to_string();
    args.extend(["--runs", &runs_s, "--instances"]);
    args.extend(instances.iter().map(|s| s.as_str()));
    args.extend(extra);
    let o = ok(pgomea(&args));
    let err = stderr(&o);
    let total = instances.len() * variants * runs;
    assert!(err.contains(&format!("[{total}/{total}]")), "no progress k/N on stderr:\n{err}");

    let run_files = list(&dir, "runs");
    let trace_files = list(&dir, "traces");
    assert_eq!(run_files.len(), total, "{run_files:?}");
    assert_eq!(trace_files.len(), total, "{trace_files:?}");
    for f in &run_files {
        let id = f.strip_suffix(".json").unwrap();
        assert!(id.starts_with(&format!("{study}-")) && id.contains("-seed"), "run id {id}");
        let r = pgomea_cli::experiment::store::load(&dir.join("runs").join(f)).unwrap();
        assert_eq!(r.run_id, id);
        assert_eq!(r.study, study);
        assert!(r.seed >= 1 && r.seed <= runs as u64);
        assert!(!r.trace.is_empty());
        assert_eq!(r.trace.last().unwrap().best_fitness, r.best_fitness);
        assert_eq!(r.outcome["best_fitness"], r.best_fitness);
        assert!(r.trace.windows(2).all(|w| w[0].best_fitness < w[1].best_fitness && w[0].time_s <= w[1].time_s));
        let csv = std::fs::read_to_string(dir.join("traces").join(format!("{id}.csv"))).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("time_s,evaluations,best_fitness"));
        assert_eq!(lines.count(), r.trace.len());
    }
    let s = summary(&dir);
    assert_eq!(s["runs"], total);
    assert_eq!(s["groups"].as_array().unwrap().len(), instances.len() * variants);
    let csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    assert!(csv.starts_with("study,instance,"));
    assert_eq!(csv.lines().count(), 1 + instances.len() * variants);
    for name in figures {
        check_figure(&dir, name);
    }
    dir
}

#[test]
fn ims_popsize_study() {
    let d = scratch("inst-ims");
    let inst = tiny_instances(&d);
    let dir = run_study(
        "ims-popsize",
        &inst,
        1,
        4,
        &["ims-popsize-tor6".into(), "ims-popsize-rnd30".into()],
        &["--max-evals", "1500"],
    );
    let s = summary(&dir);
    let variants: Vec<&str> =
        s["groups"].as_array().unwrap().iter().take(4).map(|g| g["variant"].as_str().unwrap()).collect();
    assert_eq!(variants, ["nbase8", "nbase16", "nbase32", "nbase64"]);
    for g in s["groups"].as_array().unwrap() {
        assert_eq!(g["algorithm"], "parallel");
        assert_eq!(g["linkage"], "flt");
        assert!(g["backends"][0].as_str().unwrap().starts_with("cpu"));
    }
}

#[test]
fn scalability_study() {
    let d = scratch("inst-scal");
    let w = WeightRange { min: 1, max: 5 };
    let mut inst = Vec::new();
    for n in [6, 8] {
        let g = generate::complete(n, w, n as u64).unwrap();
        let best = brute_force(&g);
        inst.push(write(&d, &format!("k{n}"), g, Some(best)));
    }
    for side in [4, 6] {
        let g = generate::torus(side, w, side as u64).unwrap();
        let best = g.total_weight().unwrap();
        inst.push(write(&d, &format!("tor{side}"), g, Some(best)));
    }
    let dir = run_study("scalability", &inst, 2, 2, &["scalability-files".into()], &["--max-evals", "50000"]);
    let s = summary(&dir);
    for g in s["groups"].as_array().unwrap() {
        assert_eq!(g["reached"], 2, "{g}");
        assert!(g["time_to_target_s"]["median"].as_f64().unwrap() >= 0.0);
        assert!(g["evaluations_to_target"]["median"].as_f64().unwrap() > 0.0);
    }
    let csv = std::fs::read_to_string(dir.join("figures/scalability-files.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 * 4, "{csv}");
}

#[test]
fn convergence_study() {
    let d = scratch("inst-conv");
    let inst = tiny_instances(&d);
    run_study(
        "convergence",
        &inst,
        2,
        2,
        &["convergence-tor6".into(), "convergence-rnd30".into(), "convergence-speedup".into()],
        &["--max-evals", "1500"],
    );
}

#[test]
fn speedup_study() {
    let d = scratch("inst-speed");
    let inst = tiny_instances(&d);
    let dir = run_study("speedup", &inst, 2, 2, &["speedup".into(), "speedup-tor6".into()], &["--time-limit", "0.3"]);
    let s = summary(&dir);
    let sp = s["speedup"].as_array().unwrap();
    assert_eq!(sp.len(), 2);
    for x in sp {
        let levels = x["levels"].as_array().unwrap();
        assert!(!levels.is_empty());
        // Levels are the fitness values parallel reached, in increasing order.
        let f: Vec<i64> = levels.iter().map(|l| l["fitness"].as_i64().unwrap()).collect();
        assert!(f.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(x["pairs"].as_array().unwrap().len(), 2);
    }
    let csv = std::fs::read_to_string(dir.join("speedup.csv")).unwrap();
    assert!(csv.starts_with("study,instance,fitness,parallel_time_s,serial_time_s,speedup"));
}

#[test]
fn linkage_models_study() {
    let d = scratch("inst-link");
    let inst = tiny_instances(&d);
    let dir = run_study(
        "linkage-models",
        &inst,
        1,
        4,
        &["linkage-models-tor6".into(), "linkage-models-rnd30".into()],
        &["--max-evals", "1500"],
    );
    let s = summary(&dir);
    let linkages: BTreeSet<String> =
        s["groups"].as_array().unwrap().iter().map(|g| g["linkage"].as_str().unwrap().to_string()).collect();
    assert_eq!(linkages, ["bflt:10", "bflt:100", "flt", "lt"].map(String::from).into_iter().collect());
}

#[test]
fn fos_order_study() {
    let d = scratch("inst-fos");
    let inst = tiny_instances(&d);
    let dir = run_study(
        "fos-order",
        &inst,
        1,
        4,
        &["fos-order-tor6".into(), "fos-order-rnd30".into()],
        &["--max-evals", "1500"],
    );
    let s = summary(&dir);
    let set: BTreeSet<(String, bool)> = s["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["fos_order"].as_str().unwrap().to_string(), g["forced_improvement"].as_bool().unwrap()))
        .collect();
    assert_eq!(set.len(), 4);
}

#[test]
fn shards_merge_to_the_same_summary_as_one_run() {
    let d = scratch("shards");
    let inst = tiny_instances(&d);
    let common = |out: &Path| -> Vec<String> {
        let mut a: Vec<String> = ["experiment", "convergence", "--out"].map(String::from).to_vec();
        a.push(out.display().to_string());
        a.extend(
            [
                "--runs",
                "3",
                "--max-evals",
                "1200",
                "--backend",
                "cpu",
                "--max-population",
                "256",
                "--quiet",
                "--instances",
            ]
            .map(String::from),
        );
        a.extend(inst.iter().cloned());
        a
    };
    let run = |out: &Path, extra: &[&str]| {
        let mut a = common(out);
        a.extend(extra.iter().map(|s| s.to_string()));
        ok(pgomea(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>()))
    };
    let full = d.join("full");
    run(&full, &["--threads", "2"]);
    let shards: Vec<PathBuf> = (1..=3).map(|i| d.join(format!("shard{i}"))).collect();
    for (i, s) in shards.iter().enumerate() {
        // Thread counts differ on purpose: the CPU backend is thread-count invariant.
        run(s, &["--shard", &format!("{}/3", i + 1), "--threads", if i == 1 { "1" } else { "2" }]);
    }
    // Shares are disjoint, of nearly equal size, and together the whole plan.
    let sets: Vec<BTreeSet<String>> = shards.iter().map(|s| list(s, "runs")).collect();
    let all = list(&full, "runs");
    assert_eq!(all.len(), 12);
    assert!(sets.iter().all(|s| s.len() == 4), "{sets:?}");
    let union: BTreeSet<String> = sets.iter().flatten().cloned().collect();
    assert_eq!(union, all);
    let merged = d.join("merged");
    let dirs: Vec<String> = shards.iter().map(|s| s.display().to_string()).collect();
    let mut args = vec!["merge", "--out"];
    let m = merged.display().to_string();
    args.push(&m);
    args.extend(dirs.iter().map(|s| s.as_str()));
    let o = ok(pgomea(&args));
    assert!(stderr(&o).contains("12 runs"), "{}", stderr(&o));
    assert_eq!(list(&merged, "runs"), all);
    assert_eq!(list(&merged, "traces").len(), 12);
    assert_eq!(deterministic(&summary(&merged)), deterministic(&summary(&full)));
    check_figure(&merged, "convergence-tor6");
    // Merging into the first directory (the default --out) gives the same again.
    ok(pgomea(&["merge", "-q", &dirs[0], &dirs[1], &dirs[2]]));
    assert_eq!(deterministic(&summary(&shards[0])), deterministic(&summary(&full)));
}

#[test]
fn a_second_invocation_skips_finished_runs() {
    let d = scratch("resume");
    let inst = tiny_instances(&d);
    let out = d.join("out").display().to_string();
    let args =
        ["experiment", "fos-order", "--out", &out, "--runs", "1", "--max-evals", "1000", "--instances", &inst[0]];
    let first = ok(pgomea(&args));
    assert!(stderr(&first).contains("0 already done, 4 to run"), "{}", stderr(&first));
    let runs = d.join("out/runs");
    let before: Vec<(String, Vec<u8>)> =
        list(&d.join("out"), "runs").into_iter().map(|f| (f.clone(), std::fs::read(runs.join(&f)).unwrap())).collect();
    let second = ok(pgomea(&args));
    assert!(stderr(&second).contains("4 already done, 0 to run"), "{}", stderr(&second));
    assert!(!stderr(&second).contains("[1/4]"), "a finished run ran again:\n{}", stderr(&second));
    for (f, bytes) in &before {
        assert_eq!(&std::fs::read(runs.join(f)).unwrap(), bytes, "{f} was rewritten");
    }
    // A missing result is run again, and only that one.
    std::fs::remove_file(runs.join(&before[1].0)).unwrap();
    let third = ok(pgomea(&args));
    assert!(stderr(&third).contains("3 already done, 1 to run"), "{}", stderr(&third));
    assert_eq!(list(&d.join("out"), "runs").len(), 4);
    // The rerun is the same run (same seed, same evaluation budget).
    assert!(!std::fs::read(runs.join(&before[1].0)).unwrap().is_empty());
    let again = pgomea_cli::experiment::store::load(&runs.join(&before[1].0)).unwrap();
    let old: serde_json::Value = serde_json::from_slice(&before[1].1).unwrap();
    assert_eq!(serde_json::json!(again.best_fitness), old["best_fitness"]);
}

#[test]
fn list_prints_one_runnable_command_per_run_and_shards_split_it() {
    let d = scratch("list");
    let inst = tiny_instances(&d);
    let out = d.join("out").display().to_string();
    let base = [
        "experiment",
        "convergence",
        "--out",
        &out,
        "--runs",
        "2",
        "--max-evals",
        "800",
        "--instances",
        &inst[0],
        &inst[1],
    ];
    let o = ok(pgomea(&[&base[..], &["--list"]].concat()));
    let lines: Vec<String> = String::from_utf8(o.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), 8);
    assert!(
        lines
            .iter()
            .all(|l| l.contains(" experiment convergence ") && l.contains("--only ") && l.contains("--backend auto"))
    );
    let ids: BTreeSet<&str> =
        lines.iter().map(|l| l.split("--only ").nth(1).unwrap().split(' ').next().unwrap()).collect();
    assert_eq!(ids.len(), 8);
    assert!(list(&d.join("out"), "runs").is_empty(), "--list ran something");
    // Shard 2/3 lists runs 1, 4, 7 (0-based) of the plan.
    let o = ok(pgomea(&[&base[..], &["--list", "--shard", "2/3"]].concat()));
    let shard: Vec<String> = String::from_utf8(o.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(shard, [lines[1].clone(), lines[4].clone(), lines[7].clone()]);
    // A listed command runs exactly its run, from another folder.
    let id = ids.iter().next().unwrap();
    let line = lines.iter().find(|l| l.contains(&format!("--only {id} "))).unwrap();
    let o =
        Command::new("sh").arg("-c").arg(format!("{line} --quiet")).current_dir(std::env::temp_dir()).output().unwrap();
    let o = ok(o);
    assert_eq!(list(&d.join("out"), "runs"), [format!("{id}.json")].into_iter().collect());
    assert!(o.stdout.is_empty());
    // --backend cuda is passed on to the parallel runs' commands.
    let o = ok(pgomea(&[&base[..], &["--list", "--backend", "cuda"]].concat()));
    assert!(String::from_utf8(o.stdout).unwrap().lines().all(|l| l.contains("--backend cuda")));
}

#[test]
fn paper_budgets_and_time_limits_in_the_plan() {
    let d = scratch("paper");
    let inst = tiny_instances(&d);
    let parse = |extra: &[&str]| -> pgomea_cli::experiment::ExperimentArgs {
        let mut a = vec!["speedup", "--out", "/nonexistent", "--instances", &inst[0]];
        a.extend(extra);
        pgomea_cli::experiment::parse_args(a).unwrap()
    };
    // Defaults: 3 runs, minutes-sized limits, --backend auto.
    let plan = parse(&[]).plan().unwrap();
    assert_eq!(plan.len(), 2 * 3);
    assert!(plan.iter().all(|r| r.time_limit == Some(15.0) && r.max_evals.is_none()));
    let args = parse(&[]);
    assert_eq!(args.backend.backend, None, "the library decides: auto");
    // --paper: 30 runs, 1 h; 6 h for serial on large instances (tor6 counts as large here).
    let plan = parse(&["--paper", "--large-vertices", "36"]).plan().unwrap();
    assert_eq!(plan.len(), 2 * 30);
    for r in &plan {
        let want = if r.variant.name == "serial" { 21600.0 } else { 3600.0 };
        assert_eq!(r.time_limit, Some(want), "{}", r.run_id);
    }
    let plan = parse(&["--paper"]).plan().unwrap();
    assert!(plan.iter().all(|r| r.time_limit == Some(3600.0)), "tor6 is not one of the large graphs");
    // Explicit options override --paper; an evaluation budget alone means no time limit.
    let plan = parse(&["--paper", "--runs", "2", "--time-limit", "5"]).plan().unwrap();
    assert_eq!(plan.len(), 4);
    assert!(plan.iter().all(|r| r.time_limit == Some(5.0)));
    let plan = parse(&["--max-evals", "100"]).plan().unwrap();
    assert!(plan.iter().all(|r| r.time_limit.is_none() && r.max_evals == Some(100.0)));
    // Run ids: study-instance-variant-seedN, seeds 1..=runs, stable.
    let ids: Vec<String> = parse(&["--runs", "2"]).plan().unwrap().into_iter().map(|r| r.run_id).collect();
    assert_eq!(
        ids,
        [
            "speedup-tor6-serial-seed1",
            "speedup-tor6-serial-seed2",
            "speedup-tor6-parallel-seed1",
            "speedup-tor6-parallel-seed2"
        ]
    );
}

#[test]
fn an_interrupt_leaves_finished_runs_intact_and_the_study_resumes() {
    let d = scratch("interrupt");
    let inst = tiny_instances(&d);
    let out = d.join("out");
    let o = out.display().to_string();
    let args = [
        "experiment",
        "fos-order",
        "--out",
        &o,
        "--runs",
        "2",
        "--time-limit",
        "0.4",
        "--backend",
        "cpu",
        "--instances",
        &inst[0],
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgomea"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while list(&out, "runs").len() < 2 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let done = list(&out, "runs");
    eprintln!("interrupted after {} of 8 runs ({status})", done.len());
    assert!(!status.success() || done.len() == 8, "the study went on after the interrupt");
    assert!(done.len() >= 2 && done.len() <= 8, "{done:?}");
    // Every result file there is complete.
    for f in &done {
        assert!(f.ends_with(".json"), "{f}");
        pgomea_cli::experiment::store::load(&out.join("runs").join(f)).unwrap();
    }
    for f in list(&out, "traces") {
        let text = std::fs::read_to_string(out.join("traces").join(&f)).unwrap();
        assert!(text.starts_with("time_s,evaluations,best_fitness\n") && text.ends_with('\n'), "{f}");
    }
    // The same command resumes: the finished runs are skipped, the rest run.
    let again = ok(pgomea(&args));
    assert!(
        stderr(&again).contains(&format!("{} already done, {} to run", done.len(), 8 - done.len())),
        "{}",
        stderr(&again)
    );
    assert_eq!(list(&out, "runs").len(), 8);
    assert_eq!(summary(&out)["runs"], 8);
}

#[test]
fn errors_are_clear() {
    let d = scratch("errors");
    let out = d.join("out").display().to_string();
    let inst = tiny_instances(&d);
    let fail = |args: &[&str], needle: &str| {
        let o = pgomea(args);
        assert_eq!(o.status.code(), Some(2), "{args:?} should fail with exit code 2");
        let e = stderr(&o);
        assert!(e.contains(needle), "{args:?}: expected `{needle}` in:\n{e}");
    };
    fail(
        &["experiment", "no-such-study", "--out", &out],
        "possible values: ims-popsize, scalability, convergence, speedup, linkage-models, fos-order",
    );
    fail(&["experiment", "convergence", "--out", &out, "--instances", "/no/such/file.txt"], "/no/such/file.txt");
    fail(
        &["experiment", "convergence", "--out", &out, "--instances", "G1", "--instances-dir", "/no/such/dir"],
        "/no/such/dir",
    );
    // rnd30 has no best-known value: scalability needs one.
    fail(&["experiment", "scalability", "--out", &out, "--instances", &inst[1]], "rnd30.bkv");
    fail(&["experiment", "fos-order", "--out", &out, "--instances", &inst[0], "--only", "nope"], "--list");
    fail(&["experiment", "fos-order", "--out", &out, "--instances", &inst[0], "--shard", "4/3"], "1 <= I <= N");
    fail(&["experiment", "fos-order", "--out", &out, "--instances", &inst[0], "--time-limit=0"], "--time-limit 0");
    fail(&["merge", &d.join("nothing").display().to_string()], "not a result directory");
}

#[test]
fn help_says_what_each_study_reproduces() {
    let o = ok(pgomea(&["experiment", "--help"]));
    let h = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "ims-popsize",
        "scalability",
        "convergence",
        "speedup",
        "linkage-models",
        "fos-order",
        "Fig. 4",
        "Fig. 9",
        "--paper",
        "--shard",
        "--list",
        "merge",
    ] {
        assert!(h.contains(needle), "help lacks {needle}:\n{h}");
    }
    let o = ok(pgomea(&["merge", "--help"]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("--out"));
}

#[test]
fn default_instances_come_from_the_data_directory() {
    // A miniature data directory: "G1" and "G65" of Set C (G1 a torus with its proven optimum),
    // and Set A with two instances of one size and one of another.
    let d = scratch("datadir");
    let data = d.join("data");
    for f in ["gset", "setA"] {
        std::fs::create_dir_all(data.join(f)).unwrap();
    }
    let w = WeightRange { min: 1, max: 5 };
    let g1 = generate::torus(6, w, 11).unwrap();
    let g1_best = g1.total_weight().unwrap();
    g1.write(&data.join("gset/G1.txt")).unwrap();
    generate::random(40, 90, w, 12).unwrap().write(&data.join("gset/G65.txt")).unwrap();
    let mut csv = String::from("set,instance,vertices,edges,best_known,is_optimal,source\n");
    csv += &format!("C,G1,36,72,{g1_best},true,test\nC,G65,40,90,999999,false,test\n");
    for (name, n, seed) in [("n0000006i00", 6, 1), ("n0000006i01", 6, 2), ("n0000008i00", 8, 3)] {
        let g = generate::complete(n, w, seed).unwrap();
        csv += &format!("A,{name},{n},{},{},true,test\n", g.edges.len(), brute_force(&g));
        g.write(&data.join(format!("setA/{name}.txt"))).unwrap();
    }
    std::fs::write(data.join("best_known.csv"), csv).unwrap();
    let dd = data.display().to_string();

    let out = d.join("fos").display().to_string();
    ok(pgomea(&[
        "experiment",
        "fos-order",
        "--out",
        &out,
        "--instances-dir",
        &dd,
        "--runs",
        "1",
        "--max-evals",
        "3000",
        "-q",
    ]));
    let runs = list(Path::new(&out), "runs");
    assert!(
        runs.contains("fos-order-g1-random-fi-seed1.json") && runs.contains("fos-order-g65-colored-nofi-seed1.json"),
        "{runs:?}"
    );
    for f in runs.iter().filter(|f| f.contains("-g1-")) {
        let r = pgomea_cli::experiment::store::load(&Path::new(&out).join("runs").join(f)).unwrap();
        // A proven optimum is the target: the run stops there.
        assert_eq!(r.config.target, Some(g1_best));
        assert!(r.is_optimal && r.instance_source == "C/G1");
        if r.reached_target {
            assert_eq!(r.stop_reason, "target reached");
            assert!(r.time_to_target_s.is_some());
        }
    }
    // Names of the data directory, and SET/@sizes: the first instance of every size.
    let out = d.join("scal").display().to_string();
    let o = ok(pgomea(&[
        "experiment",
        "scalability",
        "--out",
        &out,
        "--instances-dir",
        &dd,
        "--instances",
        "A/@sizes",
        "--runs",
        "1",
        "--list",
    ]));
    let ids: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split("--only ").nth(1).unwrap().split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        [
            "scalability-a-n0000006i00-serial-seed1",
            "scalability-a-n0000006i00-parallel-seed1",
            "scalability-a-n0000008i00-serial-seed1",
            "scalability-a-n0000008i00-parallel-seed1"
        ]
    );
    let o = ok(pgomea(&[
        "experiment",
        "convergence",
        "--out",
        &out,
        "--instances-dir",
        &dd,
        "--instances",
        "g1",
        "A/n0000006*",
        "--list",
    ]));
    assert_eq!(String::from_utf8(o.stdout).unwrap().lines().count(), 3 * 2 * 3);
}

#[test]
fn hybrid_study() {
    let d = scratch("inst-hybrid");
    let inst = tiny_instances(&d);
    let dir =
        run_study("hybrid", &inst, 1, 7, &["hybrid-tor6".into(), "hybrid-rnd30".into()], &["--max-evals", "1500"]);
    let s = summary(&dir);
    let variants: BTreeSet<String> =
        s["groups"].as_array().unwrap().iter().map(|g| g["variant"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        variants,
        ["anneal-only", "anneal-only-mix", "fi", "fi-ls", "ls", "ls-mix", "paper"]
            .map(String::from)
            .into_iter()
            .collect()
    );
    // The variants ran as named: forced improvement on in fi and fi-ls only.
    for g in s["groups"].as_array().unwrap() {
        let fi = g["forced_improvement"].as_bool().unwrap();
        assert_eq!(fi, g["variant"].as_str().unwrap().starts_with("fi"), "{g}");
    }
    // The controls ran without GOM, the mixing variants with partition mixing, and their records
    // say so.
    for f in list(&dir, "runs") {
        let r = pgomea_cli::experiment::store::load(&dir.join("runs").join(&f)).unwrap();
        let control = r.variant.starts_with("anneal-only");
        assert_eq!(r.config.anneal_only, control, "{f}");
        assert_eq!(r.config.partition_mixing, r.variant.ends_with("-mix"), "{f}");
        if control {
            assert_eq!((&r.outcome["gom_steps"], &r.outcome["generations"]), (&0.into(), &0.into()), "{f}");
        }
    }
    let csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    assert_eq!(csv.lines().filter(|l| l.contains(",anneal-only,")).count(), 2, "{csv}");
}
