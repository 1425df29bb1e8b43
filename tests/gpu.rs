//! GPU tests: the CUDA backend against the CPU backend, bit for bit: every stage alone on random
//! inputs (including segments longer than a block and groups of one set), and whole generations
//! (offspring, working copy and fitness after every group; population and elitist after every
//! generation), cooperatively and without cooperative launches, so that every kernel of every
//! kind runs (the test checks that it did). Without a CUDA driver or device they say so and pass
//! as skipped.
// The CUDA backend exists in builds with the `cuda` feature only.
#![cfg(feature = "cuda")]

mod common;

use pgomea::testing::{
    Candidate, Case, check_generations, check_stages, data_cases, generated_cases, kernels_not_launched, launch_counts,
};
use pgomea_device::kernel_names::{KERNELS, KIND_KERNELS};

use pgomea::backend::cuda::KERNELS_PTX;

fn gpu() -> Option<Candidate> {
    match pgomea::backend::cuda::probe() {
        Ok(name) => {
            eprintln!("GPU: {name}");
            Some(Candidate::Cuda)
        }
        Err(why) => {
            // Straight to stderr (not the captured eprintln!), so that the skip shows in every run.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED: GPU test skipped: {why}");
            None
        }
    }
}

/// The generated cases, and those of the instance data directory when it is there.
fn all_cases() -> Vec<Case> {
    let mut cases = generated_cases().unwrap();
    if let Some(dir) = common::data_dir() {
        cases.extend(data_cases(&dir).unwrap());
    }
    cases
}

// ANCHOR: ptx_is_complete
#[test]
fn the_ptx_is_complete() {
    // No unresolved functions: every call is defined in the module (checked without a GPU too).
    assert!(!KERNELS_PTX.contains(".extern .func"), "the PTX calls a function it does not define");
    // Every kernel of every kind of the device crate's list, and no other.
    for k in KERNELS {
        assert!(KERNELS_PTX.contains(&format!(".entry {k}(")), "kernel {k} missing from the PTX");
    }
    let entries = KERNELS_PTX.matches(".entry ").count();
    assert_eq!(entries, KERNELS.len(), "the PTX has {entries} kernels, the list {}", KERNELS.len());
    // Eight per kind of the registry, named after the kind, and the four every kind shares.
    assert_eq!(KERNELS.len(), 8 * KIND_KERNELS.len() + 4);
    for (kind, names) in KIND_KERNELS {
        assert!(names.all().iter().all(|k| k.starts_with("pgomea_") && k.ends_with(&format!("_{kind}"))), "{kind}");
    }
}
// ANCHOR_END: ptx_is_complete

// ANCHOR: stages_test
#[test]
fn every_kernel_matches_its_cpu_stage_on_random_inputs() {
    let Some(gpu) = gpu() else { return };
    for case in all_cases() {
        for n in [1, 24, 100] {
            check_stages(&case, gpu, n, 9 + n as u64).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
// ANCHOR_END: stages_test

#[test]
fn cuda_generations_equal_cpu_generations_bit_for_bit() {
    let Some(gpu) = gpu() else { return };
    let before = launch_counts(gpu).unwrap().unwrap();
    for case in all_cases() {
        for n in [16, 64] {
            let (groups, _) = check_generations(&case, gpu, n, 3).unwrap_or_else(|e| panic!("{e}"));
            // Three generations of GOM over every group, and Forced Improvement's groups too.
            if case.hybrid.forced_improvement {
                assert!(groups >= 3 * case.layout.groups());
            } else {
                assert_eq!(groups, 3 * case.layout.groups());
            }
        }
    }
    // Cooperatively and as graphs (without cooperative launches), with the hybrid cases: every
    // kernel of every kind ran (other tests only add launches).
    let missing = kernels_not_launched(&before, &launch_counts(gpu).unwrap().unwrap());
    assert!(missing.is_empty(), "kernels that never ran in the comparisons: {missing:?}");
}

#[test]
fn cuda_backend_solves_a_torus_through_the_cli_path() {
    let Some(_) = gpu() else { return };
    use pgomea::gomea::run::{Limits, Run};
    use pgomea::problem::generate::{WeightRange, torus};
    use pgomea::problem::maxcut::MaxCut;
    use pgomea::solve::{Algorithm, Backend, RunOptions};
    let p = MaxCut::new(torus(16, WeightRange { min: 1, max: 5 }, 2).unwrap()).unwrap();
    let target = p.total_weight().unwrap();
    let options = RunOptions {
        algorithm: Some(Algorithm::Parallel),
        backend: Some(Backend::Cuda),
        time_limit: Some(60.0),
        ..RunOptions::default()
    };
    let mut run = Run::new(
        &p,
        Limits { time: Some(std::time::Duration::from_secs(60)), evaluations: None, target: Some(target) },
    );
    let o = common::solve_in(&p, options, &mut run, Some(target)).unwrap();
    assert!(o.backend.starts_with("cuda"), "{}", o.backend);
    assert!(o.reached_target, "{} of {target}", o.best_fitness);
}

#[test]
fn a_device_memory_limit_stops_the_multi_start_scheme_growing() {
    let Some(_) = gpu() else { return };
    use pgomea::gomea::run::{Limits, Run};
    use pgomea::problem::GrayBoxProblem;
    use pgomea::problem::generate::{WeightRange, torus};
    use pgomea::problem::maxcut::MaxCut;
    use pgomea::solve::{Algorithm, Backend, RunOptions};
    let p = MaxCut::new(torus(64, WeightRange { min: 1, max: 5 }, 3).unwrap()).unwrap();
    // About two small populations' worth (MiB): the scheme must stop growing, not fail.
    let options = RunOptions {
        algorithm: Some(Algorithm::Parallel),
        backend: Some(Backend::Cuda),
        device_memory_limit: Some(6),
        ..RunOptions::default()
    };
    let mut run =
        Run::new(&p, Limits { time: Some(std::time::Duration::from_secs(20)), evaluations: None, target: None });
    let o = common::solve_in(&p, options.clone(), &mut run, None).unwrap();
    let note = o.note.clone().unwrap_or_default();
    assert!(note.contains("did not fit") && note.contains("device_memory_limit"), "{note}");
    assert!(o.populations.len() >= 2 && *o.populations.last().unwrap() <= 256, "{:?}", o.populations);
    let solution: Vec<u8> = o.genes();
    assert_eq!(p.evaluate(&solution), o.best_fitness);
    // Too little for the problem's own arrays (1 MiB for a torus of 65536 vertices): a clear error.
    let p = MaxCut::new(torus(256, WeightRange { min: 1, max: 5 }, 3).unwrap()).unwrap();
    let mut run =
        Run::new(&p, Limits { time: Some(std::time::Duration::from_secs(5)), evaluations: None, target: None });
    let tiny = RunOptions { device_memory_limit: Some(1), ..options };
    let e = common::solve_in(&p, tiny, &mut run, None).unwrap_err().to_string();
    assert!(e.contains("do not fit"), "{e}");
}

#[test]
fn backend_auto_falls_back_to_the_cpu_when_the_gpu_fails_at_start() {
    let Some(_) = gpu() else { return };
    let bin = env!("CARGO_BIN_EXE_pgomea");
    let run = |backend: &str| {
        std::process::Command::new(bin)
            .env("PGOMEA_CUDA_DEVICE", "99")
            .args(["run", "--algo", "parallel", "--backend", backend, "--time-limit", "1", "--json"])
            .output()
            .unwrap()
    };
    let auto = run("auto");
    assert!(auto.status.success(), "{}", String::from_utf8_lossy(&auto.stderr));
    let j: serde_json::Value = serde_json::from_slice(&auto.stdout).unwrap();
    assert!(j["backend"].as_str().unwrap().starts_with("cpu"), "{}", j["backend"]);
    assert!(String::from_utf8_lossy(&auto.stderr).contains("the GPU failed at start"));
    let cuda = run("cuda");
    assert_eq!(cuda.status.code(), Some(2));
    let err = String::from_utf8_lossy(&cuda.stderr);
    assert!(err.contains("CUDA: ") && !err.contains("CUDA: CUDA:"), "{err}");
}

/// A file `name` in a fresh directory of this process, written by `pgomea generate` with `args`.
fn generated(name: &str, args: &[&str]) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("pgomea-gpu-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pgomea"))
        .arg("generate")
        .args(args)
        .arg("-o")
        .arg(&file)
        .output();
    assert!(out.unwrap().status.success());
    (dir, file)
}

/// `pgomea run` of parallel GOMEA on the GPU on `file` with a time `limit`, `--json -q`, and
/// the environment variables `env`.
fn run_on_the_gpu(file: &std::path::Path, limit: &str, env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pgomea"))
        .envs(env.iter().copied())
        .args(["run", "--algo", "parallel", "--backend", "cuda", "--json", "-q", "--time-limit", limit, "--instance"])
        .arg(file)
        .output()
        .unwrap()
}

/// A run stopped during its set-up while another thread is still opening the GPU (the driver
/// compiling the kernels, seconds with its cache off) answers and exits cleanly: a process that
/// exited with that thread inside the driver was aborted by it
/// (`docs/decisions/0026-kernels-loaded-when-first-needed.md`).
#[test]
fn a_stop_while_the_driver_compiles_the_kernels_still_answers() {
    let Some(_) = gpu() else { return };
    let (dir, file) = generated("trap.nk", &["trap", "--k", "5", "--blocks", "200000"]);
    for _ in 0..3 {
        let out = run_on_the_gpu(&file, "0.3", &[("CUDA_CACHE_DISABLE", "1")]);
        assert!(out.status.success(), "{:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["backend"], "none (stopped during set-up)");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_time_limit_holds_when_generations_are_long() {
    let Some(_) = gpu() else { return };
    let (dir, file) = generated("torus.txt", &["torus", "--side", "400"]);
    for limit in [2.0f64, 6.0] {
        let out = run_on_the_gpu(&file, &limit.to_string(), &[]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let (t, setup) = (j["time_s"].as_f64().unwrap(), j["setup_s"].as_f64().unwrap());
        // A limit shorter than the set-up is overrun by it (and by the first population's
        // evaluation); otherwise by one colour group or one call of local search at most.
        assert!(t <= limit.max(setup) + 0.5, "a {limit} s limit ended at {t} s (set-up {setup} s)");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cuda_control_anneals_as_the_cpu_backend_and_runs_no_gom() {
    let Some(_) = gpu() else { return };
    use pgomea::gomea::LocalSearchMode;
    use pgomea::gomea::run::{Limits, Run};
    use pgomea::problem::GrayBoxProblem;
    use pgomea::problem::generate::{WeightRange, torus};
    use pgomea::problem::maxcut::MaxCut;
    use pgomea::solve::{Algorithm, Backend, RunOptions, solve_run};
    let p = MaxCut::new(torus(16, WeightRange { min: -2, max: 5 }, 4).unwrap()).unwrap();
    let outcome = |backend: Backend| {
        let options = RunOptions {
            algorithm: Some(Algorithm::Parallel),
            backend: Some(backend),
            local_search: Some(LocalSearchMode::Initial),
            anneal_sweeps: Some(96),
            // Given, since the default differs by backend (2 on the GPU for Max-Cut, 1 on the CPU).
            anneal_growth: Some(2),
            anneal_only: Some(true),
            max_population: Some(64),
            seed: Some(3),
            ..RunOptions::default()
        };
        let config = options.resolve(&p, None).unwrap();
        solve_run(&p, &config, &mut Run::new(&p, Limits::default())).unwrap()
    };
    let (cuda, cpu) = (outcome(Backend::Cuda), outcome(Backend::Cpu));
    // Max-Cut on the GPU doubles its annealing with every population by default.
    let options = RunOptions {
        algorithm: Some(Algorithm::Parallel),
        backend: Some(Backend::Cuda),
        max_evaluations: Some(1e3),
        ..RunOptions::default()
    };
    let config = options.resolve(&p, None).unwrap();
    let default = solve_run(&p, &config, &mut Run::new(&p, config.limits())).unwrap();
    assert_eq!((default.config.anneal_sweeps, default.config.anneal_growth), (Some(3000), Some(2)));
    assert!(cuda.backend.starts_with("cuda"), "{}", cuda.backend);
    assert_eq!(cuda.populations, [16, 32, 64]);
    assert_eq!((cuda.generations, cuda.gom_steps), (0, 0));
    assert_eq!(p.evaluate(&cuda.genes()), cuda.best_fitness);
    // The same populations annealed by the same steps: the CPU backend's result, bit for bit.
    assert_eq!(
        (cuda.best_fitness, cuda.subfunction_evaluations, &cuda.solution),
        (cpu.best_fitness, cpu.subfunction_evaluations, &cpu.solution)
    );
}
