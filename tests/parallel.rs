//! Parallel GOM on the CPU backend: the stages against a naive reference that uses full
//! evaluations, equal results for 1 and N threads, incremental fitness after every group (the
//! self-test records with run.verify on), colouring validity, and proven optima.

mod common;

use std::time::Duration;

use pgomea::backend::cpu;
use pgomea::gomea::run::{Limits, Run};
use pgomea::linkage::coloring::{ColoringMethod, Lmig, check_groups_independent};
use pgomea::linkage::fos::{Fos, LinkageModel};
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::graph::Graph;
use pgomea::problem::maxcut::MaxCut;
use pgomea::solve::{Algorithm, Backend, RunOptions};
use pgomea::stop::StopCheck;
use pgomea::testing::compare::{interesting_groups, random_state};
use pgomea::testing::{Candidate, Case, check_generations, check_stages, generated_cases};
use pgomea_device::gom::{DonorOrder, NO_DONOR, accept};
use pgomea_device::stage::{ONE_PASS, Pass, Stage, THREE_PASSES};
use std::sync::Arc;

/// Stages 1-6 of one group from a consistent state (O' == O) against a naive reference: the
/// donor is the first differing candidate, the delta a difference of two full evaluations. As six
/// single-stage passes, in three passes and in one pass, for every problem kind of the
/// self-test's cases; from random O and P, and from O = P with P converged on many sets and those
/// marked (as at a generation's start: stage 1 then finds no donor there without a look).
#[test]
fn one_group_of_stages_matches_a_naive_full_evaluation_reference() {
    let sequences: [Vec<Pass>; 3] = [Stage::ALL.map(Pass::stage).to_vec(), THREE_PASSES.to_vec(), ONE_PASS.to_vec()];
    let mut marked = [0usize; 2];
    for case in generated_cases().unwrap() {
        let layout = &case.layout;
        let l = layout.variables;
        let n = 12;
        let seed = case.config.seed;
        for (k, g) in interesting_groups(layout, 3).into_iter().enumerate() {
            for (passes, converging) in sequences.iter().flat_map(|p| [(p, false), (p, true)]) {
                let mut state = random_state(&case, n, 40 + k as u64);
                if converging {
                    // Every row a copy of row 0 but for a few genes: P has converged on most sets.
                    for i in 1..n {
                        for v in 0..l {
                            let flip = (i * 31 + v * 7) % 53 == 0;
                            state.parents[i * l + v] = state.parents[v] ^ flip as u8;
                        }
                    }
                    state.offspring = state.parents.clone();
                }
                state.work = state.offspring.clone();
                let placeholder = pgomea::gomea::Population { n, l, genes: vec![0; n * l], fitness: vec![0; n] };
                let pool = Arc::new(cpu::thread_pool(Some(2)).unwrap());
                let mut b = cpu::new_backend(&*case.problem, case.layout.clone(), placeholder, seed, pool).unwrap();
                b.set_state(&state).unwrap();
                if converging {
                    b.mark_converged().unwrap();
                    let marks = b.state().unwrap().converged;
                    for slot in layout.slots(g as usize) {
                        marked[marks[slot] as usize] += 1;
                    }
                }
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
    // Both kinds of slot were tried: converged (no donor without a look) and not.
    assert!(marked[0] > 0 && marked[1] > 0, "{marked:?}");
}

/// The convergence marks are 1 exactly on the linkage sets where every row of P has the same
/// genes: on random populations, on one with every row equal, on one where most genes agree (so
/// that small sets converge and large ones do not), and on one of a single solution.
#[test]
fn converged_sets_are_marked_exactly() {
    for case in generated_cases().unwrap() {
        let layout = &case.layout;
        let l = layout.variables;
        for (n, seed, agreeing) in [(12, 7, 0), (12, 8, 100), (1, 9, 0), (33, 10, 0), (20, 11, 97)] {
            let mut state = random_state(&case, n, seed);
            // `agreeing` % of the genes (every gene v with v * 37 % 100 below it) copied from row 0.
            for v in (0..l).filter(|v| v * 37 % 100 < agreeing) {
                for i in 1..n {
                    state.parents[i * l + v] = state.parents[v];
                }
            }
            let equal_rows = agreeing == 100;
            let placeholder = pgomea::gomea::Population { n, l, genes: vec![0; n * l], fitness: vec![0; n] };
            let pool = Arc::new(cpu::thread_pool(Some(2)).unwrap());
            let mut b = cpu::new_backend(&*case.problem, layout.clone(), placeholder, 1, pool).unwrap();
            b.set_state(&state).unwrap();
            b.mark_converged().unwrap();
            let marks = b.state().unwrap().converged;
            assert_eq!(marks.len(), layout.slot_set.len().max(1));
            for (slot, &mark) in marks.iter().enumerate().take(layout.slot_set.len()) {
                let vars = layout.set_vars(slot);
                let agree = (1..n)
                    .all(|i| vars.iter().all(|&v| state.parents[i * l + v as usize] == state.parents[v as usize]));
                assert_eq!(mark != 0, agree, "{} n = {n}: slot {slot}", case.name);
                assert!(!equal_rows || agree);
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
            let lmig = Lmig::build(&fos, &p).unwrap();
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
    let config = RunOptions {
        algorithm: Some(Algorithm::Parallel),
        backend: Some(Backend::Cpu),
        threads: Some(2),
        seed: Some(seed),
        ..RunOptions::default()
    };
    let mut run =
        Run::new(p, Limits { time: Some(Duration::from_secs(120)), evaluations: Some(5e5), target: Some(target) });
    common::solve_in(p, config.clone(), &mut run, Some(target)).unwrap()
}

#[test]
fn parallel_gomea_reaches_proven_optima() {
    for (side, seed) in [(4, 1), (8, 2), (12, 3)] {
        let p = MaxCut::new(generate::torus(side, WeightRange { min: 1, max: 5 }, seed).unwrap()).unwrap();
        let o = parallel_solve(&p, p.total_weight().unwrap(), seed);
        assert!(o.reached_target, "torus {side}: {} after {}", o.best_fitness, o.stop_reason.as_str());
    }
    let Some((dir, a)) = common::known("A") else { return };
    let (_, b) = common::known("B").unwrap();
    let small_a = a.iter().filter(|r| r.vertices <= 25);
    for r in small_a.chain(b.iter().filter(|r| r.vertices <= 100 && r.is_optimal)) {
        let p = MaxCut::new(Graph::read(&r.path(&dir)).unwrap()).unwrap();
        let o = parallel_solve(&p, r.best_known, 5);
        assert!(
            o.reached_target,
            "{}: {} of {} after {}",
            r.name,
            o.best_fitness,
            r.best_known,
            o.stop_reason.as_str()
        );
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

/// The buffer table gives every buffer its length, and the population's bytes are those the CUDA
/// memory budget counted before the table existed (P, O, O' of l genes, six per-solution arrays,
/// the stage rows, one reference row, the counters and the schedule), a byte per linkage set (the
/// convergence marks) and a barrier counter per solution (one for the grid or each team of blocks).
#[test]
fn the_buffer_table_sizes_every_buffer() {
    use pgomea_device::stage::{BUFFER, BUFFERS, BufferSizes, population_bytes};
    for (n, l, gs, ds, groups, slots) in
        [(1, 1, 1, 1, 1, 1), (16, 400, 37, 120, 9, 799), (33, 0, 5, 7, 0, 0), (1000, 20_000, 300, 900, 40, 39_999)]
    {
        let s = BufferSizes { n, l, row_slots: gs, row_deps: ds, groups, slots };
        // Three populations of genes, the reference and the converged genes (l each, at least 1).
        let before = 3 * n * l
            + 2 * l.max(1)
            + 16 * n
            + n * gs * (4 + 8 + 1)
            + 8 * n * ds
            + 5 * n
            + 16
            + 4 * (1 + groups.max(1))
            + slots.max(1)
            + 4 * n;
        assert_eq!(population_bytes(&s), before, "{s:?}");
    }
    let names: Vec<&str> = BUFFERS.iter().map(|b| b.name).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    // A handle is its buffer's place in the table.
    assert_eq!(BUFFERS[BUFFER.parents.index()].name, "parents");
    assert_eq!(BUFFERS[BUFFER.donors.index()].name, "donors");
    assert_eq!(BUFFERS[BUFFER.barrier.index()].name, "barrier");
    assert!(BUFFERS[BUFFER.fitness.index()].compared && !BUFFERS[BUFFER.schedule.index()].compared);
}

/// A random state keeps to the table's values (any single stage may run on it), and a
/// difference between two states is named by its buffer.
#[test]
fn random_states_keep_to_the_table_and_differences_are_named() {
    use pgomea::gomea::parallel::StageState;
    use pgomea_device::stage::{BUFFERS, FI_IMPROVED, Values};
    for case in generated_cases().unwrap().into_iter().take(6) {
        let n = 17;
        let sizes = case.layout.buffer_sizes(n);
        let state = StageState::random(&sizes, 3);
        assert_eq!(state, StageState::random(&sizes, 3));
        assert_ne!(state, StageState::random(&sizes, 4));
        let lengths = [
            ("parents", state.parents.len()),
            ("offspring", state.offspring.len()),
            ("donors", state.donors.len()),
            ("diff", state.diff.len()),
            ("forced", state.forced.len()),
        ];
        for (name, len) in lengths {
            let spec = BUFFERS.iter().find(|b| b.name == name).unwrap();
            assert_eq!(len, spec.length.elements(&sizes), "{name}");
        }
        assert!(state.parents.iter().chain(&state.offspring).chain(&state.work).all(|&g| g <= 1));
        assert!(state.donors.iter().all(|&d| d == NO_DONOR || (0..n as i32).contains(&d)));
        assert!(state.donors.contains(&NO_DONOR));
        assert!(state.mask.iter().chain(&state.is_elitist).chain(&state.changed).all(|&f| f <= 1));
        assert!(state.forced.iter().all(|&m| m <= FI_IMPROVED));
        assert!(state.delta.contains(&0) && state.delta.iter().all(|d| d.abs() <= 10));
        assert!(BUFFERS.iter().any(|b| b.values == Values::Donor));
        let mut other = state.clone();
        assert_eq!(state.first_difference(&other), None);
        other.mask[0] ^= 1;
        assert_eq!(state.first_difference(&other), Some("mask"));
        other.work[3] ^= 1;
        assert_eq!(state.first_difference(&other), Some("work"));
        assert_ne!(state.digest(), other.digest());
    }
}

/// The stage schedule answers a request it cannot run (a group order of other groups, a pass
/// past the order, an invalid pass, a state or FI of another shape) with an internal error, and
/// a state set is the state read back.
#[test]
fn the_stage_schedule_refuses_what_it_cannot_run() {
    use pgomea::error::Error;
    let case = &generated_cases().unwrap()[1];
    let (n, l) = (12, case.layout.variables);
    let placeholder = pgomea::gomea::Population { n, l, genes: vec![0; n * l], fitness: vec![0; n] };
    let pool = Arc::new(cpu::thread_pool(Some(2)).unwrap());
    let mut b = cpu::new_backend(&*case.problem, case.layout.clone(), placeholder, 1, pool).unwrap();
    let state = random_state(case, n, 5);
    b.set_state(&state).unwrap();
    assert_eq!(b.state().unwrap(), state);
    let internal = |r: pgomea::error::Result<()>, what: &str| match r {
        Err(Error::Internal(m)) => assert!(m.contains(what), "{m}"),
        other => panic!("expected an internal error about {what}, got {other:?}"),
    };
    let groups = case.layout.groups() as u32;
    internal(b.begin_groups(0, &[groups], false), "group order");
    b.begin_groups(0, &[0], false).unwrap();
    internal(b.pass(ONE_PASS[0], 1), "step 1");
    internal(b.pass(Pass::of(&[]), 0), "pass");
    internal(b.begin_forced_improvement(&[1; 3], &vec![0; l]), "forced improvement");
    internal(b.set_state(&random_state(case, n + 1, 5)), "another shape");
    // Nothing was run by the refusals.
    assert_eq!(b.state().unwrap(), state);
}

/// Forced Improvement's patience, 1 + floor(log10 n), in integers (serial and parallel GOMEA
/// share it): the float rule of before for every population size a machine can hold.
#[test]
fn the_patience_of_forced_improvement_is_one_plus_floor_log10() {
    use pgomea_device::gom::forced_improvement_patience;
    let float = |n: usize| 1 + (n as f64).log10().floor() as u32;
    for n in (0..=200_000).chain((1..=12).flat_map(|k| [10usize.pow(k) - 1, 10usize.pow(k), 10usize.pow(k) + 1])) {
        assert_eq!(forced_improvement_patience(n), float(n), "n = {n}");
    }
}

/// The registry names every kind's eight kernels after the kind, each once, and the three that
/// every kind shares.
#[test]
fn kernel_names_follow_from_the_registry_of_kinds() {
    use pgomea_device::kernel_names::{KERNELS, KIND_KERNELS, Registered};
    use pgomea_device::problem::{Clauses, Named, Pairwise, Tables};
    let kinds: Vec<&str> = KIND_KERNELS.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, [Pairwise::NAME, Tables::NAME, Clauses::NAME]);
    assert_eq!(Tables::KERNELS.pass, "pgomea_pass_tables");
    assert_eq!(Clauses::KERNELS.flip_search_color, "pgomea_flip_search_color_clauses");
    assert_eq!(Pairwise::KERNELS.generation_by_solution, "pgomea_generation_by_solution_pairwise");
    assert_eq!(Tables::KERNELS.generation_by_solution_one_pass, "pgomea_generation_by_solution_one_pass_tables");
    assert_eq!(KERNELS.len(), 8 * 3 + 4);
    let mut names = KERNELS.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), KERNELS.len());
    for shared in
        ["pgomea_mark_elitist", "pgomea_mark_converged_genes", "pgomea_mark_converged", "pgomea_forced_improvement_end"]
    {
        assert!(KERNELS.contains(&shared), "{shared}");
    }
}
