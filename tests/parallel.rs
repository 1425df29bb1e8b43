//! Parallel GOM on the CPU backend: the stages against a naive reference that uses full
//! evaluations, equal results for 1 and N threads, incremental fitness after every group (the
//! self-test records with run.verify on), colouring validity, and proven optima.

mod common;

use std::time::Duration;

use pgomea::app::selftest::{
    Candidate, Case, check_generations, check_stages, generated_cases, interesting_groups, random_state,
};
use pgomea::backend::cpu;
use pgomea::gomea::parallel::StageBackend;
use pgomea::gomea::run::{Limits, Run};
use pgomea::linkage::coloring::{ColoringMethod, Lmig, check_groups_independent};
use pgomea::linkage::fos::{Fos, LinkageModel};
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::graph::Graph;
use pgomea::problem::maxcut::MaxCut;
use pgomea::solve::{Algorithm, Backend, SolveConfig, solve};
use pgomea::stop::StopCheck;
use pgomea_device::gom::{DonorOrder, NO_DONOR, accept};
use pgomea_device::stage::{GROUP_PASSES, Pass, Stage};
use std::sync::Arc;

/// Stages 1-6 of one group from a consistent state (O' == O) against a naive reference: the
/// donor is the first differing candidate, the delta a difference of two full evaluations. Both
/// as six single-stage passes and as the fused passes of a generation, for every problem kind of
/// the self-test's cases.
#[test]
fn one_group_of_stages_matches_a_naive_full_evaluation_reference() {
    let sequences: [Vec<Pass>; 2] = [Stage::ALL.map(Pass::stage).to_vec(), GROUP_PASSES.to_vec()];
    for case in generated_cases().unwrap() {
        let layout = &case.layout;
        let l = layout.variables;
        let n = 12;
        let seed = case.config.seed;
        for (k, g) in interesting_groups(layout, 3).into_iter().enumerate() {
            for passes in &sequences {
                let mut state = random_state(&case, n, 40 + k as u64);
                state.work = state.offspring.clone();
                let placeholder = pgomea::gomea::Population { n, l, genes: vec![0; n * l], fitness: vec![0; n] };
                let pool = Arc::new(cpu::thread_pool(Some(2)).unwrap());
                let mut b = cpu::new_backend(&*case.problem, case.layout.clone(), placeholder, seed, pool);
                b.set_state(&state).unwrap();
                b.begin_groups(2, &[g], false).unwrap();
                for &pass in passes {
                    b.pass(pass, 0).unwrap();
                }
                let out = b.state().unwrap();
                let slots = layout.slots(g as usize);
                for i in 0..n {
                    let o = &state.offspring[i * l..(i + 1) * l];
                    let f_o = case.problem.evaluate(o);
                    let mut expected = o.to_vec();
                    let mut expected_fitness = state.fitness[i];
                    for (j, slot) in slots.clone().enumerate() {
                        let vars = layout.set_vars(slot);
                        let order = DonorOrder::new(seed, 2, g, i as u32, layout.slot_set[slot], n as u32);
                        let donor = (0..n as u32)
                            .map(|c| order.candidate(c) as usize)
                            .filter(|&d| d != i)
                            .find(|&d| vars.iter().any(|&v| state.parents[d * l + v as usize] != o[v as usize]));
                        let e = i * layout.max_group_slots + j;
                        assert_eq!(
                            out.donors[e],
                            donor.map(|d| d as i32).unwrap_or(NO_DONOR),
                            "{}: donor of ({i},{j})",
                            case.name
                        );
                        let mut trial = o.to_vec();
                        if let Some(d) = donor {
                            for &v in vars {
                                trial[v as usize] = state.parents[d * l + v as usize];
                            }
                        }
                        let delta = case.problem.evaluate(&trial) - f_o;
                        assert_eq!(out.delta[e], delta, "{}: delta of ({i},{j})", case.name);
                        let ok = accept(delta, donor.is_some(), state.is_elitist[i] != 0);
                        assert_eq!(out.mask[e] != 0, ok, "{}: mask of ({i},{j})", case.name);
                        if ok {
                            for &v in vars {
                                expected[v as usize] = trial[v as usize];
                            }
                            expected_fitness += delta;
                        }
                    }
                    assert_eq!(&out.offspring[i * l..(i + 1) * l], &expected[..], "{}: offspring {i}", case.name);
                    assert_eq!(&out.work[i * l..(i + 1) * l], &expected[..], "{}: working copy {i}", case.name);
                    assert_eq!(out.fitness[i], expected_fitness, "{}: fitness {i}", case.name);
                }
            }
        }
    }
}

#[test]
fn each_stage_on_random_inputs_is_the_same_on_one_and_four_threads() {
    for case in generated_cases().unwrap() {
        let checks = check_stages(&case, Candidate::Cpu { threads: 4 }, 20, 5).unwrap_or_else(|e| panic!("{e}"));
        assert!(checks >= 12);
    }
}

#[test]
fn whole_generations_are_the_same_on_one_and_four_threads_with_exact_fitness() {
    // check_generations runs the reference with run.verify on: every group's incremental fitness
    // is checked against a full evaluation, and O' == O after every group.
    for case in generated_cases().unwrap() {
        for n in [16, 40] {
            let (groups, _) =
                check_generations(&case, Candidate::Cpu { threads: 4 }, n, 3).unwrap_or_else(|e| panic!("{e}"));
            // Three generations of GOM over every group, and Forced Improvement's groups too.
            if case.hybrid.forced_improvement {
                assert!(groups >= 3 * case.layout.groups());
            } else {
                assert_eq!(groups, 3 * case.layout.groups());
            }
        }
    }
}

#[test]
fn colourings_are_valid_on_every_shipped_instance_for_every_linkage_model() {
    let Some(dir) = common::data_dir() else { return };
    let rows = pgomea::problem::data::read_best_known(&dir).unwrap();
    let mut checked = 0;
    for r in rows.iter().filter(|r| r.set != "G" || r.vertices <= 3000) {
        let p = MaxCut::new(Graph::read(&r.path(&dir)).unwrap()).unwrap();
        let models: &[LinkageModel] = if r.vertices > 5000 {
            &[LinkageModel::Flt, LinkageModel::Univariate]
        } else {
            &[LinkageModel::Flt, LinkageModel::Bflt(10), LinkageModel::Bflt(100), LinkageModel::Univariate]
        };
        for m in models {
            let fos = Fos::build(m, &p, &mut pgomea_device::rng::SplitMix64::new(1), &StopCheck::never()).unwrap();
            let lmig = Lmig::build(&fos, &p);
            for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur, ColoringMethod::Incidence] {
                let c = method.color(&fos, &p, &StopCheck::never()).unwrap();
                c.validate(&lmig).unwrap_or_else(|e| panic!("{}/{} {m} {method}: {e}", r.set, r.name));
                if r.vertices <= 2000 {
                    check_groups_independent(&c.groups(), &fos, &p)
                        .unwrap_or_else(|e| panic!("{}/{} {m} {method}: {e}", r.set, r.name));
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100);
}

fn parallel_solve(p: &MaxCut, target: i64, seed: u64) -> pgomea::solve::Outcome {
    let config = SolveConfig {
        algorithm: Algorithm::Parallel,
        backend: Backend::Cpu,
        threads: Some(2),
        seed,
        ..SolveConfig::default()
    };
    let mut run =
        Run::new(p, Limits { time: Some(Duration::from_secs(120)), evaluations: Some(5e5), target: Some(target) });
    solve(p, &config, &mut run, Some(target)).unwrap()
}

#[test]
fn parallel_gomea_reaches_proven_optima() {
    for (side, seed) in [(4, 1), (8, 2), (12, 3)] {
        let p = MaxCut::new(generate::torus(side, WeightRange { min: 1, max: 5 }, seed).unwrap()).unwrap();
        let o = parallel_solve(&p, p.graph.total_weight().unwrap(), seed);
        assert!(o.reached_target, "torus {side}: {} after {}", o.best_fitness, o.stop_reason);
    }
    let Some((dir, a)) = common::known("A") else { return };
    for r in a.iter().filter(|r| r.vertices <= 25) {
        let p = MaxCut::new(Graph::read(&r.path(&dir)).unwrap()).unwrap();
        let o = parallel_solve(&p, r.best_known, 5);
        assert!(o.reached_target, "{}: {} of {} after {}", r.name, o.best_fitness, r.best_known, o.stop_reason);
    }
    let (_, b) = common::known("B").unwrap();
    for r in b.iter().filter(|r| r.vertices <= 100 && r.is_optimal) {
        let p = MaxCut::new(Graph::read(&r.path(&dir)).unwrap()).unwrap();
        let o = parallel_solve(&p, r.best_known, 5);
        assert!(o.reached_target, "{}: {} of {} after {}", r.name, o.best_fitness, r.best_known, o.stop_reason);
    }
}

#[test]
fn a_case_builds_for_every_colouring() {
    let p = MaxCut::new(generate::random(50, 120, WeightRange { min: 1, max: 3 }, 1).unwrap()).unwrap();
    for c in [ColoringMethod::WelshPowell, ColoringMethod::DSatur] {
        let case = Case::new(Box::new(p.clone()), LinkageModel::Flt, c, 1).unwrap();
        assert!(case.layout.groups() > 0);
    }
}

#[test]
fn walking_the_donor_order_by_jumps_visits_the_same_candidates_as_indexing_it() {
    // The kernels walk the order with advance/jump (no division per candidate); the CPU stage
    // indexes it with candidate(k). Both must name the same solution at every k.
    for n in [1u32, 2, 3, 7, 16, 33, 64, 1000, 4097] {
        for seed in 0..20u64 {
            let order = DonorOrder::new(seed, 3, 1, 5, 9, n);
            for stride in [1u32, 2, 4, 8, 32] {
                let jump = order.jump(stride);
                for team in 0..stride {
                    let mut c = order.candidate(team);
                    let mut k = team;
                    while k < n {
                        assert_eq!(c, order.candidate(k), "n {n} seed {seed} stride {stride} k {k}");
                        c = order.advance(c, jump);
                        k += stride;
                    }
                }
            }
        }
    }
}
