//! No loss across refactors: fixed-seed Max-Cut runs under an evaluation budget (no clock
//! involved, so they are deterministic) must give exactly the results recorded in
//! `tests/golden/maxcut-0.1.json` by pgomea 0.1.0 before the one-source refactor: best fitness,
//! evaluation counts, GOM steps, generations, populations, linkage and colouring sizes and the
//! best solution itself, for serial GOMEA and parallel GOMEA on the CPU backend. (The GPU gives
//! the CPU backend's results bit for bit; `pgomea selftest` and tests/gpu.rs check that.)

use std::time::Duration;

use pgomea::gomea::run::{Limits, Run};
use pgomea::linkage::coloring::ColoringMethod;
use pgomea::linkage::fos::LinkageModel;
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::maxcut::MaxCut;
use pgomea::solve::{Algorithm, Backend, FosOrderKind, RunOptions, solve_run};
use serde_json::Value;

fn instance(spec: &Value) -> MaxCut {
    let int = |k: &str| spec[k].as_i64().unwrap_or_else(|| panic!("golden instance field {k}"));
    let w = WeightRange { min: int("min_weight"), max: int("max_weight") };
    let seed = int("seed") as u64;
    let inst = match spec["generator"].as_str().unwrap() {
        "torus" => generate::torus(int("side") as usize, w, seed),
        "random" => generate::random(int("n") as usize, int("m") as usize, w, seed),
        "complete" => generate::complete(int("n") as usize, w, seed),
        g => panic!("unknown generator {g}"),
    };
    MaxCut::new(inst.unwrap()).unwrap()
}

#[test]
fn fixed_seed_runs_give_the_recorded_results() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/maxcut-0.1.json")).unwrap();
    let golden: Value = serde_json::from_str(&text).unwrap();
    let cases = golden["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for (k, case) in cases.iter().enumerate() {
        let problem = instance(&case["instance"]);
        let s = |key: &str| case[key].as_str().unwrap().to_string();
        let config = RunOptions {
            algorithm: Some(if s("algorithm") == "parallel" { Algorithm::Parallel } else { Algorithm::Serial }),
            backend: Some(Backend::Cpu),
            linkage: Some(s("linkage").parse::<LinkageModel>().unwrap()),
            coloring: Some(s("coloring").parse::<ColoringMethod>().unwrap()),
            fos_order: Some(if s("fos_order") == "colored" { FosOrderKind::Colored } else { FosOrderKind::Random }),
            // 0.1.0 ran parallel GOMEA without Forced Improvement whatever the option said.
            forced_improvement: Some(case["forced_improvement"].as_bool().unwrap() && s("algorithm") == "serial"),
            seed: case["seed"].as_u64(),
            local_search: Some(pgomea::gomea::LocalSearchMode::Off),
            anneal_sweeps: Some(0),
            max_population: Some(4096),
            threads: Some(2),
            ..RunOptions::default()
        }
        .resolve(&problem, None)
        .unwrap();
        let limits =
            Limits { time: Some(Duration::from_secs(600)), evaluations: case["max_evals"].as_f64(), target: None };
        let mut run = Run::new(&problem, limits);
        let o = solve_run(&problem, &config, &mut run).unwrap();
        let e = &case["expected"];
        let what = format!("case {k} ({} {} seed {})", s("algorithm"), s("linkage"), config.seed);
        assert_eq!(o.best_fitness, e["best_fitness"].as_i64().unwrap(), "{what}: best fitness");
        assert_eq!(
            o.subfunction_evaluations,
            e["subfunction_evaluations"].as_u64().unwrap(),
            "{what}: subfunction evaluations"
        );
        // Derived from the exact count above; serde_json's float parsing may differ in the last bit.
        let evals = e["evaluations"].as_f64().unwrap();
        assert!((o.evaluations - evals).abs() <= 1e-9 * evals, "{what}: evaluations {} != {evals}", o.evaluations);
        assert_eq!(o.gom_steps, e["gom_steps"].as_u64().unwrap(), "{what}: GOM steps");
        assert_eq!(o.generations, e["generations"].as_u64().unwrap(), "{what}: generations");
        let pops: Vec<usize> =
            e["populations"].as_array().unwrap().iter().map(|p| p.as_u64().unwrap() as usize).collect();
        assert_eq!(o.populations, pops, "{what}: populations");
        assert_eq!(o.fos_sets as u64, e["fos_sets"].as_u64().unwrap(), "{what}: linkage sets");
        assert_eq!(o.colors.map(|c| c as u64), e["colors"].as_u64(), "{what}: colours");
        assert_eq!(o.stop_reason, e["stop_reason"].as_str().unwrap(), "{what}: stop reason");
        assert_eq!(o.solution, e["solution"].as_str().unwrap(), "{what}: best solution");
    }
}
