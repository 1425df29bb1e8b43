//! No loss across refactors: fixed-seed Max-Cut runs under an evaluation budget (no clock
//! involved, so they are deterministic) must give exactly the results recorded in
//! `tests/golden/maxcut.json`: best fitness, evaluation counts, GOM steps, generations,
//! populations, linkage and colouring sizes and the best solution itself, for serial GOMEA and
//! parallel GOMEA on the CPU backend. (The GPU gives the CPU backend's results bit for bit;
//! `pgomea selftest` and tests/gpu.rs check that.) The file says which build recorded it: pgomea
//! 0.1.0 first; a change that is meant to change results (a new tie rule of a model) records it
//! again with `PGOMEA_GOLDEN_RECORD="what changed" cargo test --test golden`, and says so in its
//! commit.

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
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/maxcut.json");
    let text = std::fs::read_to_string(path).unwrap();
    let mut golden: Value = serde_json::from_str(&text).unwrap();
    let record = std::env::var("PGOMEA_GOLDEN_RECORD").ok();
    let mut cases = golden["cases"].as_array().unwrap().clone();
    assert!(cases.len() >= 10);
    for (k, case) in cases.iter_mut().enumerate() {
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
            // Recorded before partition mixing (a part of the elitist, not of the populations).
            partition_mixing: Some(false),
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
        if record.is_some() {
            case["expected"] = serde_json::json!({
                "best_fitness": o.best_fitness,
                "evaluations": o.evaluations,
                "subfunction_evaluations": o.subfunction_evaluations,
                "gom_steps": o.gom_steps,
                "generations": o.generations,
                "populations": o.populations,
                "fos_sets": o.fos_sets,
                "colors": o.colors,
                "solution": o.solution_text(),
                "stop_reason": o.stop_reason.as_str(),
            });
            continue;
        }
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
        assert_eq!(o.stop_reason.as_str(), e["stop_reason"].as_str().unwrap(), "{what}: stop reason");
        assert_eq!(o.solution_text(), e["solution"].as_str().unwrap(), "{what}: best solution");
    }
    if let Some(why) = record {
        golden["produced_by"] = Value::String(why);
        golden["cases"] = Value::Array(cases);
        std::fs::write(path, serde_json::to_string_pretty(&golden).unwrap() + "\n").unwrap();
        eprintln!("recorded {path}");
    }
}
