//! The set-up before the first generation stops when told: every phase (linkage model,
//! colourings, the variables' colouring, the annealing schedule, the group layout) returns
//! `Error::Stopped` once the stop flag is set or the time limit has passed, and a run whose
//! set-up is cut short still answers with the best of a first population.
//!
//! The `#[ignore]` tests measure, at 10^6 scale, how long a stop takes to end the set-up:
//! `cargo test --release --test setup -- --ignored --nocapture`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pgomea::error::Error;
use pgomea::gomea::LocalSearchMode;
use pgomea::gomea::local_search::AnnealSchedule;
use pgomea::gomea::parallel::layout::GroupLayout;
use pgomea::gomea::run::{Limits, Run, StopReason};
use pgomea::linkage::coloring::{ColoringMethod, variable_coloring};
use pgomea::linkage::fos::{Fos, LinkageModel};
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::{GrayBoxProblem, maxsat, nk};
use pgomea::solve::{Algorithm, Backend, SolveConfig, build_model, solve};
use pgomea::stop::StopCheck;
use pgomea_device::rng::SplitMix64;

const WEIGHTS: WeightRange = WeightRange { min: 1, max: 5 };

/// A check whose flag another thread has set.
fn interrupted() -> StopCheck {
    let flag = Arc::new(AtomicBool::new(false));
    let setter = flag.clone();
    std::thread::spawn(move || setter.store(true, Ordering::Relaxed)).join().unwrap();
    StopCheck::new(None, Some(flag))
}

/// A check whose deadline has passed.
fn expired() -> StopCheck {
    StopCheck::new(Some(Instant::now()), None)
}

fn assert_stopped<T>(result: Result<T, Error>, reason: StopReason, what: &str) {
    match result {
        Err(Error::Stopped(r)) => assert_eq!(r, reason, "{what}"),
        Err(e) => panic!("{what}: {e}, expected stopped ({})", reason.as_str()),
        Ok(_) => panic!("{what}: finished, expected stopped ({})", reason.as_str()),
    }
}

fn problems() -> Vec<Box<dyn GrayBoxProblem>> {
    vec![
        Box::new(MaxCut::new(generate::torus(40, WEIGHTS, 1).unwrap()).unwrap()),
        Box::new(maxsat::planted_3sat(1500, 6000, 2).unwrap().0),
        Box::new(nk::random_neighbourhood(1500, 4, 3).unwrap()),
    ]
}

#[test]
fn every_set_up_phase_stops_at_a_flag_or_a_passed_deadline() {
    let never = StopCheck::never();
    for p in problems() {
        let p = &*p;
        for (check, reason) in [(interrupted(), StopReason::Interrupted), (expired(), StopReason::TimeLimit)] {
            let what = |phase: &str| format!("{} {phase}", p.name());
            for model in [LinkageModel::Flt, LinkageModel::Bflt(10)] {
                assert_stopped(Fos::build(&model, p, &mut SplitMix64::new(1), &check), reason, &what("FOS"));
            }
            let fos = Fos::build(&LinkageModel::Flt, p, &mut SplitMix64::new(1), &never).unwrap();
            for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur, ColoringMethod::Incidence] {
                assert_stopped(method.color(&fos, p, &check), reason, &what(&format!("{method}")));
                assert_stopped(variable_coloring(p, method, &check), reason, &what("variable colouring"));
            }
            assert_stopped(AnnealSchedule::new(p.functions(), 1, &check), reason, &what("annealing schedule"));
            let groups = ColoringMethod::WelshPowell.color(&fos, p, &never).unwrap().groups();
            assert_stopped(GroupLayout::new(p, &fos, &groups, &check), reason, &what("layout"));
            let config = SolveConfig {
                algorithm: Algorithm::Parallel,
                local_search: LocalSearchMode::Initial,
                ..SolveConfig::default()
            };
            assert_stopped(build_model(p, &config, &check), reason, &what("model"));
        }
    }
}

/// A time limit that passes during the set-up ends it; the run still answers, with the best of
/// a first population, fully evaluated, and says why it stopped.
#[test]
fn a_run_whose_set_up_is_cut_short_answers_with_a_first_population() {
    for p in problems() {
        for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
            let config = SolveConfig { algorithm, backend: Backend::Cpu, ..SolveConfig::default() };
            let mut run = Run::new(&*p, Limits { time: Some(Duration::from_nanos(1)), ..Limits::default() });
            let outcome = solve(&*p, &config, &mut run, None).unwrap();
            assert_eq!(outcome.stop_reason, "time limit");
            assert!(outcome.backend.contains("stopped during set-up"), "{}", outcome.backend);
            assert_eq!(outcome.generations, 0);
            let x: Vec<u8> = outcome.solution.bytes().map(|b| b - b'0').collect();
            assert_eq!(p.evaluate(&x), outcome.best_fitness);
            assert!(outcome.evaluations >= 1.0);
        }
    }
}

/// How long after the flag each phase of a parallel run's set-up ends: the flag is set after
/// growing delays (so that it lands in different phases) while another thread builds the model
/// and the layout; the set-up must end within a second of it.
fn measure_stop_latency(p: &dyn GrayBoxProblem) {
    let config = SolveConfig {
        algorithm: Algorithm::Parallel,
        local_search: LocalSearchMode::Initial,
        ..SolveConfig::default()
    };
    let t = Instant::now();
    let never = StopCheck::never();
    let model = build_model(p, &config, &never).unwrap();
    let built = t.elapsed();
    GroupLayout::new(p, &model.fos, model.groups.as_ref().unwrap(), &never).unwrap();
    let whole = t.elapsed();
    drop(model);
    println!("{}: model {:.2} s, with the layout {:.2} s", p.name(), built.as_secs_f64(), whole.as_secs_f64());
    let mut worst = Duration::ZERO;
    for k in 1..=8 {
        let delay = whole.mul_f64(k as f64 / 9.0);
        let flag = Arc::new(AtomicBool::new(false));
        let check = StopCheck::new(None, Some(flag.clone()));
        let ended = std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let result = build_model(p, &config, &check)
                    .and_then(|m| GroupLayout::new(p, &m.fos, m.groups.as_ref().unwrap(), &check).map(|_| ()));
                (result, Instant::now())
            });
            std::thread::sleep(delay);
            flag.store(true, Ordering::Relaxed);
            let set = Instant::now();
            let (result, done) = worker.join().unwrap();
            (result, done.saturating_duration_since(set))
        });
        match ended {
            (Err(Error::Stopped(StopReason::Interrupted)), latency) => {
                println!("  flag at {:.2} s: stopped {:.3} s later", delay.as_secs_f64(), latency.as_secs_f64());
                worst = worst.max(latency);
            }
            (Ok(()), _) => println!("  flag at {:.2} s: finished first", delay.as_secs_f64()),
            (Err(e), _) => panic!("{e}"),
        }
    }
    assert!(worst < Duration::from_secs(1), "{}: a stop took {:.3} s", p.name(), worst.as_secs_f64());
}

#[test]
#[ignore = "10^6 variables: minutes; run with --ignored --nocapture"]
fn a_stop_ends_the_set_up_of_a_million_vertex_torus_within_a_second() {
    measure_stop_latency(&MaxCut::new(generate::torus(1000, WEIGHTS, 1).unwrap()).unwrap());
}

#[test]
#[ignore = "10^6 variables: minutes; run with --ignored --nocapture"]
fn a_stop_ends_the_set_up_of_a_million_variable_3sat_within_a_second() {
    measure_stop_latency(&maxsat::planted_3sat(1_000_000, 4_260_000, 1).unwrap().0);
}

#[test]
#[ignore = "3 x 10^5 variables: minutes; run with --ignored --nocapture"]
fn a_stop_ends_the_set_up_of_a_random_nk_landscape_within_a_second() {
    measure_stop_latency(&nk::random_neighbourhood(300_000, 5, 1).unwrap());
}
