//! GPU tests: the CUDA backend against the CPU backend, bit for bit: every kernel alone on random
//! inputs (including segments longer than a block and groups of one set), and whole generations
//! (offspring, working copy and fitness after every group; population and elitist after every
//! generation). Without a CUDA driver or device they say so and pass as skipped.

mod common;

use pgomea::app::selftest::{Candidate, check_generations, check_stages, data_cases, generated_cases};

const KERNELS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

fn gpu() -> Option<Candidate> {
    match pgomea::backend::cuda::probe() {
        Ok(name) => {
            eprintln!("GPU: {name}");
            Some(Candidate::Cuda { ptx: KERNELS_PTX })
        }
        Err(why) => {
            // Straight to stderr (not the captured eprintln!), so that the skip shows in every run.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED: GPU test skipped: {why}");
            None
        }
    }
}

fn all_cases() -> Vec<pgomea::app::selftest::Case> {
    let mut cases = generated_cases().unwrap();
    let args = pgomea::app::args::InstanceArgs::none();
    cases.extend(data_cases(&args).unwrap());
    cases
}

#[test]
fn the_ptx_is_complete() {
    // No unresolved functions: every call is defined in the module (checked without a GPU too).
    assert!(!KERNELS_PTX.contains(".extern .func"), "the PTX calls a function it does not define");
    // Every problem kind's kernel set, and the elitist marking.
    for kind in ["pairwise", "tables", "clauses"] {
        for k in [format!("pgomea_generation_{kind}"), format!("pgomea_pass_{kind}")] {
            assert!(KERNELS_PTX.contains(&format!(".entry {k}(")), "kernel {k} missing from the PTX");
        }
    }
    assert!(KERNELS_PTX.contains(".entry pgomea_mark_elitist("), "kernel pgomea_mark_elitist missing from the PTX");
}

#[test]
fn every_kernel_matches_its_cpu_stage_on_random_inputs() {
    let Some(gpu) = gpu() else { return };
    for case in all_cases() {
        for n in [1, 24, 100] {
            check_stages(&case, gpu, n, 9 + n as u64).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[test]
fn cuda_generations_equal_cpu_generations_bit_for_bit() {
    let Some(gpu) = gpu() else { return };
    for case in all_cases() {
        for n in [16, 64] {
            let (groups, _) = check_generations(&case, gpu, n, 3).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(groups, 3 * case.layout.groups());
        }
    }
}

#[test]
fn cuda_backend_solves_a_torus_through_the_cli_path() {
    let Some(_) = gpu() else { return };
    use pgomea::gomea::run::{Limits, Run};
    use pgomea::problem::generate::{WeightRange, torus};
    use pgomea::problem::maxcut::MaxCut;
    use pgomea::solve::{Algorithm, Backend, SolveConfig, solve};
    let p = MaxCut::new(torus(16, WeightRange { min: 1, max: 5 }, 2).unwrap()).unwrap();
    let target = p.graph.total_weight().unwrap();
    let config = SolveConfig {
        algorithm: Algorithm::Parallel,
        backend: Backend::Cuda,
        ptx: Some(KERNELS_PTX),
        ..SolveConfig::default()
    };
    let mut run = Run::new(
        &p,
        Limits { time: Some(std::time::Duration::from_secs(60)), evaluations: None, target: Some(target) },
    );
    let o = solve(&p, &config, &mut run, Some(target)).unwrap();
    assert!(o.backend.starts_with("cuda"), "{}", o.backend);
    assert!(o.reached_target, "{} of {target}", o.best_fitness);
}
