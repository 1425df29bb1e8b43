//! The control of the hybrid (`anneal_only`): the multi-start scheme's populations, each
//! initialised and annealed exactly as the default hybrid does it, and no GOM generation. Checks
//! that no generation runs (generations, GOM steps), that every incremental fitness and the best
//! solution are exact on every problem kind, and that the control's first population is the
//! default's, annealed the same (same best, same evaluations, same trace).

mod common;

use common::Notes;

use pgomea::gomea::LocalSearchMode;
use pgomea::gomea::run::{Limits, Run, StopReason};
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::{GrayBoxProblem, maxsat, nk, trap};
use pgomea::solve::{Algorithm, Backend, Outcome, RunOptions, solve_run};

fn problems() -> Vec<Box<dyn GrayBoxProblem>> {
    vec![
        Box::new(MaxCut::new(generate::random(150, 600, WeightRange { min: -3, max: 7 }, 1).unwrap()).unwrap()),
        Box::new(nk::sliding_window(90, 4, 2).unwrap()),
        Box::new(trap::concatenated(5, 12, 3, true).unwrap()),
        Box::new(maxsat::planted_3sat(60, 250, 4).unwrap().0),
    ]
}

/// The hybrid's options (local search of new populations, `sweeps` annealing sweeps) on the CPU,
/// up to populations of `cap`, as the control or not, without partition mixing (the elitist is
/// then a solution of the populations).
fn options(algorithm: Algorithm, anneal_only: bool, cap: usize, sweeps: u32) -> RunOptions {
    RunOptions {
        algorithm: Some(algorithm),
        backend: Some(Backend::Cpu),
        threads: Some(2),
        local_search: Some(LocalSearchMode::Initial),
        anneal_sweeps: Some(sweeps),
        anneal_only: Some(anneal_only),
        partition_mixing: Some(false),
        max_population: Some(cap),
        seed: Some(7),
        ..RunOptions::default()
    }
}

/// Solves with `options` under `limits`, every incremental fitness checked.
fn solve(p: &dyn GrayBoxProblem, options: &RunOptions, limits: Limits) -> Outcome {
    let config = options.resolve(p, None).unwrap();
    let mut run = Run::new(p, limits);
    run.verify = true;
    solve_run(p, &config, &mut run).unwrap()
}

#[test]
fn the_control_anneals_every_population_and_runs_no_gom() {
    for p in problems() {
        for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
            let o = solve(&*p, &options(algorithm, true, 64, 48), Limits::default());
            let what = format!("{} {algorithm:?}", p.name());
            assert_eq!(o.populations, [16, 32, 64], "{what}: the scheme's sizes and growth, up to the cap");
            assert_eq!((o.generations, o.gom_steps), (0, 0), "{what}: no GOM");
            assert_eq!(o.stop_reason, StopReason::AllPopulationsTerminated, "{what}");
            assert!(o.config.anneal_only, "{what}");
            assert_eq!(o.best_fitness, p.evaluate(&o.genes()), "{what}: the best against a full evaluation");
            assert_eq!(o.trace.last().map(|t| t.best_fitness), Some(o.best_fitness), "{what}: the trace");
            // More than the three populations' initial evaluations: their annealing was counted.
            assert!(o.evaluations > (16 + 32 + 64) as f64, "{what}: {} evaluations", o.evaluations);
        }
    }
}

#[test]
fn the_control_population_is_the_default_one_annealed_the_same() {
    for p in problems() {
        for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
            let what = format!("{} {algorithm:?}", p.name());
            // One population: the control stops at the cap once it is made and annealed.
            let control = solve(&*p, &options(algorithm, true, 16, 64), Limits::default());
            assert_eq!(control.populations, [16], "{what}");
            // The default hybrid with exactly that many evaluations stops before its first
            // generation: the same population, annealed by the same search, must be there.
            let budget = Limits { evaluations: Some(control.evaluations), ..Limits::default() };
            let default = solve(&*p, &options(algorithm, false, 16, 64), budget);
            assert_eq!(default.stop_reason, StopReason::EvaluationLimit, "{what}");
            assert_eq!(default.generations, 0, "{what}");
            assert_eq!(
                (default.best_fitness, default.subfunction_evaluations, &default.solution),
                (control.best_fitness, control.subfunction_evaluations, &control.solution),
                "{what}"
            );
            let fitness = |o: &Outcome| o.trace.iter().map(|t| (t.evaluations, t.best_fitness)).collect::<Vec<_>>();
            assert_eq!(fitness(&default), fitness(&control), "{what}: the trace");
            // And given more, the default goes on with GOM from there, the control does not.
            let longer = Limits { evaluations: Some(control.evaluations + 200.0), ..Limits::default() };
            let default = solve(&*p, &options(algorithm, false, 16, 64), longer);
            assert!(default.generations > 0 && default.gom_steps > 0, "{what}");
        }
    }
}

/// Partition mixing into the elitist, on the control's populations (which it leaves as they
/// are: the control runs no generation, so the scheme makes the same populations either way):
/// the elitist mixed from them is exact (checked at every mix: `verify`), at least as good as
/// the best of the populations, better on most instances, and its evaluations are counted.
#[test]
fn partition_mixing_improves_the_elitist_of_the_same_populations() {
    let mut problems = problems();
    problems.push(Box::new(MaxCut::new(generate::torus(16, WeightRange { min: -1, max: 1 }, 3).unwrap()).unwrap()));
    let mut better = Vec::new();
    for p in &problems {
        for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
            let what = format!("{} {algorithm:?}", p.name());
            // One annealing length for every population (the Max-Cut default doubles it, which
            // leaves the control's own bests at the optimum of these small instances).
            let same = RunOptions { anneal_growth: Some(1), ..options(algorithm, true, 64, 48) };
            let plain = solve(&**p, &same, Limits::default());
            let mixing = RunOptions { partition_mixing: Some(true), ..same.clone() };
            let mixed = solve(&**p, &mixing, Limits::default());
            assert!(mixed.config.partition_mixing && !plain.config.partition_mixing, "{what}");
            assert_eq!(mixed.populations, plain.populations, "{what}");
            assert!(
                mixed.best_fitness >= plain.best_fitness,
                "{what}: {} < {}",
                mixed.best_fitness,
                plain.best_fitness
            );
            assert_eq!(mixed.best_fitness, p.evaluate(&mixed.genes()), "{what}");
            assert!(mixed.subfunction_evaluations > plain.subfunction_evaluations, "{what}: mixing is counted");
            if mixed.best_fitness > plain.best_fitness {
                better.push(what);
            }
        }
    }
    assert!(
        better.len() >= problems.len(),
        "better on {} of {} runs only: {better:?}",
        better.len(),
        2 * problems.len()
    );
}

#[test]
fn the_control_stops_at_the_budget_and_the_target_like_the_default() {
    let p = MaxCut::new(generate::torus(12, WeightRange { min: 1, max: 5 }, 5).unwrap()).unwrap();
    for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
        // An evaluation budget that ends the run during an annealing (about 6000 evaluations a
        // population of 16 here).
        let budget = Limits { evaluations: Some(2500.0), ..Limits::default() };
        let o = solve(&p, &options(algorithm, true, 1 << 12, 200), budget);
        assert_eq!(o.stop_reason, StopReason::EvaluationLimit, "{algorithm:?}");
        assert!(o.evaluations >= 2500.0 && o.generations == 0, "{algorithm:?}: {}", o.evaluations);
        assert_eq!(o.best_fitness, p.evaluate(&o.genes()), "{algorithm:?}");
        // The first population's best as the target: reached there, the scheme stops growing.
        let first = solve(&p, &options(algorithm, true, 16, 200), Limits::default());
        let target = Limits { target: Some(first.best_fitness), ..Limits::default() };
        let o = solve(&p, &options(algorithm, true, 1 << 12, 200), target);
        assert_eq!(o.stop_reason, StopReason::TargetReached, "{algorithm:?}");
        assert_eq!((o.best_fitness, &o.populations[..], o.generations), (first.best_fitness, &[16][..], 0));
    }
}

/// `anneal_growth`: population i anneals with `anneal_sweeps x anneal_growth^i` sweeps. The
/// control with two populations, growth 2 against 1: the first population is the same, the
/// second (32 solutions) anneals 48 sweeps more per solution, each sweep a round of local search
/// (every variable's subfunctions once); only the greedy descents after the annealing may differ.
#[test]
fn each_population_anneals_growth_times_longer_than_the_one_before() {
    let p = MaxCut::new(generate::random(150, 600, WeightRange { min: -3, max: 7 }, 1).unwrap()).unwrap();
    let per_sweep = 32.0 * p.functions().entries() as f64 / p.functions().len() as f64;
    for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
        let control = |growth| {
            let options = RunOptions { anneal_growth: Some(growth), ..options(algorithm, true, 32, 48) };
            solve(&p, &options, Limits::default())
        };
        let (same, doubled) = (control(1), control(2));
        assert_eq!((same.config.anneal_growth, doubled.config.anneal_growth), (Some(1), Some(2)));
        assert_eq!((&same.populations[..], &doubled.populations[..]), (&[16, 32][..], &[16, 32][..]));
        let extra_sweeps = (doubled.evaluations - same.evaluations) / per_sweep;
        assert!((44.0..52.0).contains(&extra_sweeps), "{algorithm:?}: {extra_sweeps} sweeps more, not about 48");
    }
}

/// `anneal_share`: under a time limit, a new population's annealing is shortened to end within
/// its share of the time left, at the pace of the population annealed before. With a share so
/// small that no sweep fits, the second population only descends, the run says so, and its
/// answer stays exact; with a share of 0 both anneal as asked, and the evaluations show it. (The
/// first population, with no pace known, refits itself as it goes: serial GOMEA's first call is
/// its first solution's whole schedule; parallel GOMEA's covers every solution's here.)
#[test]
fn an_annealing_longer_than_its_share_of_the_time_left_is_shortened() {
    let p = MaxCut::new(generate::random(150, 600, WeightRange { min: -3, max: 7 }, 1).unwrap()).unwrap();
    // Evaluations of one sweep of 16 solutions.
    let sweep = 16.0 * p.functions().entries() as f64 / p.functions().len() as f64;
    for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
        let run = |share: f64| {
            let options =
                RunOptions { anneal_share: Some(share), anneal_growth: Some(1), ..options(algorithm, true, 32, 300) };
            let config = options.resolve(&p, None).unwrap();
            let mut notes = Notes::default();
            let limits = Limits { time: Some(std::time::Duration::from_secs(600)), ..Limits::default() };
            let mut run = Run::new(&p, limits).with_observer(&mut notes);
            run.verify = true;
            let o = solve_run(&p, &config, &mut run).unwrap();
            drop(run);
            assert_eq!(o.populations, [16, 32], "{algorithm:?} {share}");
            assert_eq!(o.best_fitness, p.evaluate(&o.genes()), "{algorithm:?} {share}");
            (o.evaluations / sweep, notes.0)
        };
        let (short, notes) = run(1e-12);
        assert!(notes.iter().any(|n| n.contains("population of 32: annealing fitted")), "{algorithm:?}: {notes:?}");
        let refit = notes.iter().any(|n| n.contains("population of 16: annealing fitted") && n.contains("own pace"));
        assert_eq!(refit, algorithm == Algorithm::Serial, "{algorithm:?}: {notes:?}");
        let (full, notes) = run(0.0);
        assert!(!notes.iter().any(|n| n.contains("fitted")), "{algorithm:?}: {notes:?}");
        // 300 sweeps of 16 and of 32 solutions (900 sweeps of 16), against the first 300 and
        // the descents.
        assert!(full >= 900.0 && short < 450.0, "{algorithm:?}: {full} {short}");
    }
}

/// The run's first annealing, with no pace known, measures its own as it goes and fits the rest
/// to its share of the time left: a schedule of 10^6 sweeps (hours on any
/// machine) under a limit of 6 s still ends, GOM gets generations, and the run says what it did.
/// Without the refit the clock cuts the first annealing while it is hot, and no generation runs.
#[test]
fn the_first_annealing_measures_its_pace_and_fits_its_share() {
    let p = MaxCut::new(generate::torus(30, WeightRange { min: 1, max: 1 }, 1).unwrap()).unwrap();
    for algorithm in [Algorithm::Serial, Algorithm::Parallel] {
        let options = RunOptions { anneal_growth: Some(1), ..options(algorithm, false, 16, 1_000_000) };
        let config = options.resolve(&p, None).unwrap();
        let mut notes = Notes::default();
        let limits = Limits { time: Some(std::time::Duration::from_secs(6)), ..Limits::default() };
        let mut run = Run::new(&p, limits).with_observer(&mut notes);
        let o = solve_run(&p, &config, &mut run).unwrap();
        drop(run);
        let refit = notes.0.iter().find(|n| n.starts_with("population of 16: annealing fitted to"));
        assert!(refit.is_some_and(|n| n.contains("at its own pace as it went")), "{algorithm:?}: {:?}", notes.0);
        assert!(o.generations > 0, "{algorithm:?}: no GOM generation ({:?})", notes.0);
        assert_eq!(o.best_fitness, p.evaluate(&o.genes()), "{algorithm:?}");
    }
}

/// From 10^5 variables, on a lattice of pairwise terms (a torus of 317^2 vertices), the default
/// mixes the populations' bests only, each on a thread of its own while the next generation
/// runs: no new population is mixed (fewer mixes than the first population's solutions), the
/// elitist is exact (checked at every mix), and a run under an evaluation budget is the same
/// twice, whatever the threads' timing.
#[test]
fn beyond_the_size_the_default_mixes_the_bests_beside_the_generations_and_runs_repeat() {
    let p = MaxCut::new(generate::torus(317, WeightRange { min: 1, max: 5 }, 2).unwrap()).unwrap();
    let options = RunOptions {
        algorithm: Some(Algorithm::Parallel),
        backend: Some(Backend::Cpu),
        threads: Some(2),
        anneal_sweeps: Some(4),
        seed: Some(3),
        ..RunOptions::default()
    };
    let limits = Limits { evaluations: Some(3000.0), ..Limits::default() };
    let a = solve(&p, &options, limits.clone());
    let b = solve(&p, &options, limits);
    assert!(a.config.partition_mixing, "on by default for a lattice of pairwise terms");
    let why = a.config.partition_mixing_chosen.clone().unwrap_or_default();
    assert!(why.starts_with("partition mixing of the populations' bests"), "{why}");
    assert!(a.generations > 2, "{} generations", a.generations);
    assert!(a.partition_mixes > 0 && a.partition_mixes < 16, "{} mixes", a.partition_mixes);
    assert_eq!(a.best_fitness, p.evaluate(&a.genes()));
    assert_eq!(
        (a.best_fitness, &a.solution, a.subfunction_evaluations, a.partition_mixes, a.generations),
        (b.best_fitness, &b.solution, b.subfunction_evaluations, b.partition_mixes, b.generations)
    );
    let trace = |o: &Outcome| o.trace.iter().map(|t| (t.evaluations, t.best_fitness)).collect::<Vec<_>>();
    assert_eq!(trace(&a), trace(&b));
}
