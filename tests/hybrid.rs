//! Hybrid parallel GOMEA (the paper's future work): colour-grouped local search ends in a local
//! optimum and the CPU backend's parallel search equals the sequential one; parallel Forced
//! Improvement's rules on a constructed case (strict improvements only, the elitist as donor,
//! leaving FI after the first improving group, the never improved replaced by the elitist); and
//! the hybrid reaching proven optima with every incremental fitness checked.

mod common;

use std::sync::Arc;
use std::time::Duration;

use pgomea::backend::cpu;
use pgomea::gomea::LocalSearchMode;
use pgomea::gomea::local_search::{self, AnnealSchedule, SearchCalls, SearchStep, VariableColors};
use pgomea::gomea::parallel::layout::GroupLayout;
use pgomea::gomea::parallel::{Hybrid, ParallelGomea};
use pgomea::gomea::population::initial_population;
use pgomea::gomea::run::{Limits, Run};
use pgomea::gomea::{Population, PopulationEngine};
use pgomea::linkage::coloring::{ColoringMethod, variable_coloring};
use pgomea::linkage::fos::{Fos, LinkageModel};
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::graph::{Edge, Graph};
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::{GrayBoxProblem, KindVisitor, nk};
use pgomea::solve::{Algorithm, Backend, RunOptions};
use pgomea::stop::StopCheck;
use pgomea_device::mem::Ptr;
use pgomea_device::rng::SplitMix64;
use pgomea_device::stage::{self, WARP_SHIFT};

fn problems() -> Vec<Box<dyn GrayBoxProblem>> {
    vec![
        Box::new(MaxCut::new(generate::random(200, 900, WeightRange { min: -3, max: 7 }, 1).unwrap()).unwrap()),
        Box::new(MaxCut::new(generate::torus(10, WeightRange { min: 1, max: 5 }, 2).unwrap()).unwrap()),
        Box::new(MaxCut::new(generate::complete(25, WeightRange { min: -2, max: 5 }, 3).unwrap()).unwrap()),
        Box::new(nk::sliding_window(120, 5, 4).unwrap()),
    ]
}

/// One call of the host's sequential local search of genotype `x` (solution `i`, seed 5).
fn search_call(
    p: &dyn GrayBoxProblem,
    (colors, schedule): (&VariableColors, &AnnealSchedule),
    step: SearchStep,
    i: u32,
    x: &mut [u8],
    stop: &StopCheck,
) -> (i64, u64, bool) {
    struct Search<'x>((&'x VariableColors, &'x AnnealSchedule), SearchStep, u32, &'x mut [u8], &'x StopCheck);
    impl KindVisitor for Search<'_> {
        type Output = (i64, u64, bool);
        fn visit<K: pgomea_device::problem::Kind>(self, kind: K) -> (i64, u64, bool) {
            let Search((colors, schedule), step, i, x, stop) = self;
            // SAFETY: the kind of the problem, its colours, l genes.
            unsafe { local_search::search_genotype(&kind, colors, schedule, 5, step, i, x, stop) }
        }
    }
    p.functions().with_kind(Search((colors, schedule), step, i, x, stop))
}

/// The host's sequential local search of one genotype (solution `i`, seed 5), every call of a
/// search of `sweeps` annealing sweeps and the descent, of stream `stream`, in calls of
/// `per_call` sweeps or rounds.
fn search_in_calls(
    p: &dyn GrayBoxProblem,
    colors: &VariableColors,
    schedule: &AnnealSchedule,
    (sweeps, stream, i): (u32, u32, u32),
    per_call: u32,
    x: &mut [u8],
) -> (i64, u64) {
    let (mut gain, mut rounds) = (0, 0);
    let mut calls = SearchCalls::new(stream, sweeps, per_call);
    let mut descending = true;
    while let Some(step) = calls.next(descending) {
        let (g, r, d) = search_call(p, (colors, schedule), step, i, &mut *x, &StopCheck::never());
        gain += g;
        rounds += r;
        descending = d;
    }
    (gain, rounds)
}

/// As [`search_in_calls`], in calls of one sweep or round.
fn search(
    p: &dyn GrayBoxProblem,
    colors: &VariableColors,
    schedule: &AnnealSchedule,
    search: (u32, u32, u32),
    x: &mut [u8],
) -> (i64, u64) {
    search_in_calls(p, colors, schedule, search, 1, x)
}

#[test]
fn a_search_gives_the_same_genotype_however_it_is_split_into_calls() {
    let mut rng = SplitMix64::new(17);
    let never = StopCheck::never();
    for p in problems() {
        let colors = VariableColors::from_coloring(
            &variable_coloring(&*p, ColoringMethod::DSatur, &never).unwrap(),
            p.functions(),
            0,
        );
        let schedule = AnnealSchedule::new(p.functions(), 9, &never).unwrap();
        for sweeps in [0, 1, 37] {
            let x: Vec<u8> = (0..p.variables()).map(|_| rng.coin() as u8).collect();
            let results: Vec<_> = [1, 2, 5, 64, u32::MAX]
                .into_iter()
                .map(|per_call| {
                    let mut y = x.clone();
                    let r = search_in_calls(&*p, &colors, &schedule, (sweeps, 3, 1), per_call, &mut y);
                    (y, r)
                })
                .collect();
            // From a random genotype the descent takes several rounds, so that the calls really
            // split it.
            if sweeps == 0 {
                assert!(results[0].1.1 > 2, "{}: {} rounds", p.name(), results[0].1.1);
            }
            for r in &results[1..] {
                assert_eq!(r, &results[0], "{}, {sweeps} sweeps", p.name());
            }
        }
    }
}

#[test]
fn kept_gains_take_the_flips_of_recomputed_gains_and_stay_each_flips_gain() {
    // The device's search of one genotype, once recomputing every flip's gain and once keeping
    // the gains (the local fields; pairwise kinds only): the same genotype and gain, and after
    // the search every kept gain is the variable's gain in the final genotype. The complete
    // graph (every colour one variable) and negative weights included; per call of 1 sweep the
    // gains are not kept, so the split test above compares the two as well.
    let never = StopCheck::never();
    // The first three problems are Max-Cut (pairwise).
    for p in problems().into_iter().take(3) {
        let colors = VariableColors::from_coloring(
            &variable_coloring(&*p, ColoringMethod::DSatur, &never).unwrap(),
            p.functions(),
            0,
        );
        let schedule = AnnealSchedule::new(p.functions(), 9, &never).unwrap();
        let mut rng = SplitMix64::new(23);
        let x: Vec<u8> = (0..p.variables()).map(|_| rng.coin() as u8).collect();
        struct Both<'x>(&'x VariableColors, &'x AnnealSchedule, &'x [u8]);
        impl KindVisitor for Both<'_> {
            type Output = ();
            fn visit<K: pgomea_device::problem::Kind>(self, kind: K) {
                let Both(colors, schedule, x) = self;
                assert!(K::PARTNERS);
                let Ok(mut args) = local_search::search_args(colors, schedule, &mut pgomea::problem::InHost);
                let step = SearchStep { stream: 2, sweeps: 40, from: 0, to: 40, descent_rounds: 50, resume: false };
                args.anneal = step.anneal(7, args.anneal);
                let go_on = || true;
                let (mut recomputed, mut kept) = (x.to_vec(), x.to_vec());
                let mut gains = vec![0i64; x.len()];
                let (a, b) = unsafe {
                    (
                        stage::search_genotype(
                            &kind,
                            &args,
                            Ptr::from_mut_slice(&mut recomputed),
                            Ptr::default(),
                            3,
                            &go_on,
                        ),
                        stage::search_genotype(
                            &kind,
                            &args,
                            Ptr::from_mut_slice(&mut kept),
                            Ptr::from_mut_slice(&mut gains),
                            3,
                            &go_on,
                        ),
                    )
                };
                assert_eq!(a, b);
                assert_eq!(recomputed, kept);
                assert_ne!(&recomputed[..], x, "the search flips something");
                // Every kept gain is the variable's gain in the final genotype.
                let mut fresh = vec![0i64; x.len()];
                let y = Ptr::from_mut_slice(&mut kept);
                for p in 0..x.len() {
                    let v = unsafe { args.color_vars.read(p) };
                    unsafe { stage::keep_gain(&kind, &args, y, Ptr::from_mut_slice(&mut fresh), p, v) };
                }
                assert_eq!(gains, fresh);
            }
        }
        p.functions().with_kind(Both(&colors, &schedule, &x));
    }
}

#[test]
fn a_stopped_search_ends_within_its_next_question_with_exact_fitness() {
    // A search asks whether to go on every ASK_EVERY flips: stopped from the start, it flips
    // only the first ASK_EVERY variables in colour order, in its first sweep or round.
    let p = MaxCut::new(generate::torus(120, WeightRange { min: 1, max: 5 }, 6).unwrap()).unwrap();
    let l = p.variables();
    let every = pgomea_device::stage::ASK_EVERY as usize;
    assert!(l > 3 * every);
    let never = StopCheck::never();
    let colors = VariableColors::from_coloring(
        &variable_coloring(&p, ColoringMethod::DSatur, &never).unwrap(),
        p.functions(),
        0,
    );
    let schedule = AnnealSchedule::new(p.functions(), 2, &never).unwrap();
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let stopped = StopCheck::new(None, Some(flag));
    let mut rng = SplitMix64::new(3);
    for step in [
        SearchStep { stream: 0, sweeps: 10, from: 0, to: 10, descent_rounds: 0, resume: false },
        SearchStep { stream: 0, sweeps: 0, from: 0, to: 0, descent_rounds: 50, resume: false },
    ] {
        let x: Vec<u8> = (0..l).map(|_| rng.coin() as u8).collect();
        let mut y = x.clone();
        let (gain, rounds, going_on) = search_call(&p, (&colors, &schedule), step, 0, &mut y, &stopped);
        assert_eq!((rounds, going_on), (1, true), "{step:?}");
        assert_eq!(p.evaluate(&y), p.evaluate(&x) + gain, "{step:?}");
        let asked: std::collections::HashSet<u32> = colors.vars[..every].iter().copied().collect();
        let changed: Vec<usize> = (0..l).filter(|&v| x[v] != y[v]).collect();
        assert!(!changed.is_empty() && changed.iter().all(|&v| asked.contains(&(v as u32))), "{step:?}");
    }
}

#[test]
fn local_search_ends_in_a_local_optimum_with_exact_fitness() {
    let mut rng = SplitMix64::new(7);
    for p in problems() {
        let l = p.variables();
        for method in [ColoringMethod::WelshPowell, ColoringMethod::DSatur] {
            let groups = variable_coloring(&*p, method, &StopCheck::never()).unwrap().groups();
            // A valid colouring: every variable once, no subfunction reads two of one colour.
            let mut color = vec![usize::MAX; l];
            for (c, g) in groups.iter().enumerate() {
                for &v in g {
                    assert_eq!(color[v as usize], usize::MAX, "variable {v} coloured twice");
                    color[v as usize] = c;
                }
            }
            assert!(color.iter().all(|&c| c != usize::MAX));
            for s in 0..p.subfunctions() {
                let vars = p.subfunction_variables(s);
                for (a, &u) in vars.iter().enumerate() {
                    for &v in &vars[a + 1..] {
                        assert_ne!(
                            color[u as usize],
                            color[v as usize],
                            "{}: subfunction {s} reads {u} and {v} of one colour",
                            p.name()
                        );
                    }
                }
            }
            let colors = VariableColors::new(&groups, p.functions(), 0);
            let schedule = AnnealSchedule::new(p.functions(), 3, &StopCheck::never()).unwrap();
            for sweeps in [0, 40] {
                for _ in 0..5 {
                    let mut x: Vec<u8> = (0..l).map(|_| rng.coin() as u8).collect();
                    let before = p.evaluate(&x);
                    let (gain, rounds) = search(&*p, &colors, &schedule, (sweeps, 0, 0), &mut x);
                    let after = p.evaluate(&x);
                    assert_eq!(after, before + gain, "{}: the gain is the change of fitness", p.name());
                    assert!(rounds >= 1);
                    for v in 0..l {
                        x[v] ^= 1;
                        assert!(p.evaluate(&x) <= after, "{}: flipping {v} improves a local optimum", p.name());
                        x[v] ^= 1;
                    }
                    // A local optimum stays put: one round, no gain (after the annealing sweeps,
                    // whose result is not claimed).
                    if sweeps == 0 {
                        assert_eq!(search(&*p, &colors, &schedule, (0, 0, 0), &mut x), (0, 1));
                    } else {
                        assert!(rounds > sweeps as u64);
                    }
                }
            }
        }
    }
}

#[test]
fn the_cpu_backend_searches_every_solution_as_the_sequential_search_does() {
    // Greedy and annealed searches; the backend reads the host's form of the entries, or the
    // GPU's (as a run whose GPU failed at start does, its colours' variables by degree), the
    // sequential search the host's: the same flips.
    let cases = problems().into_iter().flat_map(|p| {
        let p: Arc<dyn GrayBoxProblem> = Arc::from(p);
        [(0, 0), (50, 0), (0, WARP_SHIFT), (50, WARP_SHIFT)].map(|(sweeps, shift)| (p.clone(), sweeps, shift))
    });
    for (p, sweeps, shift) in cases {
        let never = StopCheck::never();
        let coloring = variable_coloring(&*p, ColoringMethod::WelshPowell, &never).unwrap();
        let colors = VariableColors::from_coloring(&coloring, p.functions(), 0);
        let schedule = AnnealSchedule::new(p.functions(), 4, &StopCheck::never()).unwrap();
        let fos = Fos::univariate(p.variables());
        let groups = ColoringMethod::WelshPowell.color(&fos, &*p, &never).unwrap().groups();
        let mut layout = GroupLayout::new(&*p, &fos, &groups, &never).unwrap();
        layout.variable_colors = Arc::new(VariableColors::from_coloring(&coloring, p.functions(), shift));
        layout.anneal = schedule.clone();
        let layout = Arc::new(layout);
        let mut run = Run::new(&*p, Limits::default());
        run.verify = true;
        let population = initial_population(&*p, 24, 5, &mut run).unwrap();
        let mut expected = population.clone();
        let l = p.variables();
        let mut expected_rounds = 0;
        for i in 0..24 {
            let (gain, rounds) =
                search(&*p, &colors, &schedule, (sweeps, u32::MAX, i as u32), &mut expected.genes[i * l..(i + 1) * l]);
            expected.fitness[i] += gain;
            expected_rounds += rounds;
        }
        let fitness = population.fitness.clone();
        let pool = Arc::new(cpu::thread_pool(Some(3)).unwrap());
        // The backend's search in calls of one sweep or round (each call of the descent only
        // of the solutions whose descent goes on).
        let mut b = cpu::new_backend(&*p, layout.clone(), population.clone(), 5, pool.clone()).unwrap();
        b.start_generation(population.solution(0), fitness[0], &fitness).unwrap();
        let (mut calls, mut descending, mut descent_calls, mut rounds) =
            (SearchCalls::new(u32::MAX, sweeps, 1), true, 0, 0);
        while let Some(step) = calls.next(descending) {
            descent_calls += (step.descent_rounds > 0) as u32;
            let r;
            (r, descending) = b.search_offspring(step, &never).unwrap();
            rounds += r;
        }
        assert!(sweeps > 0 || descent_calls > 1, "{}", p.name());
        // The solutions whose descent has ended sit out the later calls.
        assert_eq!(rounds, expected_rounds, "{}", p.name());
        let st = b.state().unwrap();
        assert_eq!((st.offspring, st.fitness), (expected.genes.clone(), expected.fitness.clone()), "{}", p.name());
        let backend = cpu::new_backend(&*p, layout.clone(), population, 5, pool).unwrap();
        // The initial population's search is stream u32::MAX, seed 5 (the backend's).
        let hybrid = Hybrid {
            forced_improvement: false,
            local_search: LocalSearchMode::Initial,
            anneal_sweeps: sweeps,
            ..Hybrid::default()
        };
        let engine = ParallelGomea::new(backend, layout, 5, fitness).hybrid(hybrid, &mut run).unwrap();
        assert_eq!(engine.population().unwrap(), expected, "{}", p.name());
    }
}

/// Parallel Forced Improvement on a constructed case: edges 0-1 and 2-3 of weight 1, variable 4
/// alone; sets {0}..{4}; colour groups {0, 2, 4} then {1, 3}; the elitist 1 0 1 0 1 (fitness 2).
#[test]
fn forced_improvement_accepts_strict_improvements_from_the_elitist_and_replaces_the_unimproved() {
    let graph = Graph::new("fi", 5, vec![Edge { u: 0, v: 1, w: 1 }, Edge { u: 2, v: 3, w: 1 }]);
    let p = MaxCut::new(graph).unwrap();
    let fos = Fos::univariate(5);
    let layout = Arc::new(GroupLayout::new(&p, &fos, &[vec![0, 2, 4], vec![1, 3]], &StopCheck::never()).unwrap());
    let elitist = [1u8, 0, 1, 0, 1];
    let rows: [[u8; 5]; 4] = [
        // 0: both sets of the first group improve (+1 each): out of FI after it, = the elitist.
        [0, 0, 0, 0, 1],
        // 1: {0} equals the elitist, {2} improves: out of FI after the first group, so {1}'s
        // improvement in the second group is not taken.
        [1, 1, 0, 0, 1],
        // 2: as good as the elitist (fitness 2), every elitist gene worsens it or (variable 4)
        // changes nothing, which is not strict: never improved, replaced by the elitist.
        [0, 1, 0, 1, 0],
        // 3: not in FI: untouched, though the elitist would improve it.
        [0, 0, 0, 0, 0],
    ];
    let expected: [([u8; 5], i64); 4] =
        [([1, 0, 1, 0, 1], 2), ([1, 1, 1, 0, 1], 1), ([1, 0, 1, 0, 1], 2), ([0, 0, 0, 0, 0], 0)];
    let genes: Vec<u8> = rows.iter().flatten().copied().collect();
    let fitness: Vec<i64> = rows.iter().map(|r| p.evaluate(r)).collect();
    let population = Population { n: 4, l: 5, genes, fitness: fitness.clone() };
    let pool = Arc::new(cpu::thread_pool(Some(2)).unwrap());
    let mut b = cpu::new_backend(&p, layout.clone(), population, 3, pool).unwrap();
    b.start_generation(&elitist, 2, &fitness).unwrap();
    b.begin_forced_improvement(&[1, 1, 1, 0], &elitist).unwrap();
    b.begin_groups(0, &[0, 1], true).unwrap();
    for step in 0..2 {
        for pass in pgomea_device::stage::THREE_PASSES {
            b.pass(pass, step).unwrap();
        }
    }
    b.end_forced_improvement(2).unwrap();
    let after = b.finish_generation().unwrap();
    let pop = b.population().unwrap();
    for (i, (genes, f)) in expected.iter().enumerate() {
        assert_eq!(pop.solution(i), genes, "solution {i}");
        assert_eq!(after[i], *f, "fitness of solution {i}");
        assert_eq!(p.evaluate(pop.solution(i)), *f, "solution {i}: fitness against a full evaluation");
    }
}

fn solve_with(
    p: &dyn GrayBoxProblem,
    algorithm: Algorithm,
    fi: bool,
    ls: LocalSearchMode,
    target: i64,
    seed: u64,
) -> pgomea::solve::Outcome {
    let config = RunOptions {
        algorithm: Some(algorithm),
        backend: Some(Backend::Cpu),
        threads: Some(2),
        forced_improvement: Some(fi),
        local_search: Some(ls),
        linkage: Some(LinkageModel::Flt),
        seed: Some(seed),
        ..RunOptions::default()
    };
    let mut run =
        Run::new(p, Limits { time: Some(Duration::from_secs(120)), evaluations: Some(3e5), target: Some(target) });
    run.verify = true;
    common::solve_in(p, config.clone(), &mut run, Some(target)).unwrap()
}

#[test]
fn hybrid_gomea_reaches_proven_optima_with_exact_incremental_fitness() {
    let mut cases: Vec<(Box<dyn GrayBoxProblem>, i64)> = Vec::new();
    for (side, seed) in [(6, 1), (10, 2)] {
        let g = generate::torus(side, WeightRange { min: 1, max: 5 }, seed).unwrap();
        let opt = g.total_weight().unwrap();
        cases.push((Box::new(MaxCut::new(g).unwrap()), opt));
    }
    let nk = nk::sliding_window(60, 4, 9).unwrap();
    let opt = nk.optimum.unwrap();
    cases.push((Box::new(nk), opt));
    for (p, opt) in &cases {
        for (algorithm, fi, ls) in [
            (Algorithm::Parallel, true, LocalSearchMode::Off),
            (Algorithm::Parallel, false, LocalSearchMode::Initial),
            (Algorithm::Parallel, true, LocalSearchMode::Offspring),
            (Algorithm::Serial, true, LocalSearchMode::Offspring),
            (Algorithm::Serial, false, LocalSearchMode::Initial),
        ] {
            let o = solve_with(&**p, algorithm, fi, ls, *opt, 3);
            assert!(
                o.reached_target,
                "{} {algorithm:?} fi {fi} ls {ls:?}: {} of {opt} after {}",
                p.name(),
                o.best_fitness,
                o.stop_reason.as_str()
            );
        }
    }
}

#[test]
fn annealing_takes_worsening_flips_with_the_metropolis_probability() {
    // The integer power of two of `Anneal::accepts` against exp(gain / T), over many counters.
    let p = MaxCut::new(generate::random(300, 1500, WeightRange { min: 1, max: 3 }, 8).unwrap()).unwrap();
    let schedule = AnnealSchedule::new(p.functions(), 1, &StopCheck::never()).unwrap();
    assert_eq!(schedule.table.len(), 256);
    assert_eq!(schedule.table[0], 1 << 32);
    assert_eq!(schedule.scales.len(), pgomea_device::stage::ANNEAL_LEVELS);
    // Temperatures fall: the scales (1 / T) grow.
    assert!(schedule.scales.windows(2).all(|w| w[0] < w[1]), "{:?}", schedule.scales);
    // A search of 512 sweeps spends two sweeps on each level.
    let anneal =
        schedule.anneal(11, SearchStep { stream: 2, sweeps: 512, from: 0, to: 512, descent_rounds: 1, resume: false });
    for k in [0u32, 101, 300, 511] {
        let t = std::f64::consts::LOG2_E * 4294967296.0 / schedule.scales[k as usize / 2] as f64;
        for gain in [-1i64, -2, -3, -5, -8] {
            let trials = 40_000u32;
            // SAFETY: k < sweeps; the schedule's arrays live.
            let taken = (0..trials).filter(|&v| unsafe { anneal.accepts(gain, k, 1, v) }).count() as f64;
            let expected = (gain as f64 / t).exp();
            let sd = (expected * (1.0 - expected) / trials as f64).sqrt();
            // 8-bit fraction: the probability is rounded down by at most a factor 2^(-1/256).
            assert!(
                (taken / trials as f64 - expected).abs() < 5.0 * sd + 0.003 * expected + 1e-4,
                "sweep {k}, gain {gain}: {} vs {expected}",
                taken / trials as f64
            );
        }
        // Improving and plateau flips are always taken.
        // SAFETY: as above.
        assert!(unsafe { anneal.accepts(0, k, 0, 0) && anneal.accepts(3, k, 0, 0) });
    }
}

/// Restarts from the elitist: a population started from it holds its copies at its fitness,
/// evaluating nothing; annealed from halfway down the schedule, its solutions each leave the
/// elitist their own way and stay near it (nearer than those annealed from the hottest level);
/// serial GOMEA's engine reaches the same population as the CPU backend's parallel search, with
/// every fitness checked against a full evaluation.
#[test]
fn a_population_started_from_the_elitist_anneals_from_halfway_and_stays_near_it() {
    use pgomea::gomea::local_search::AnnealStart;
    use pgomea::gomea::population::{PopulationStart, new_population};
    use pgomea::gomea::serial::{self, FosOrder, LinkageSource, LocalSearchSetting, SerialConfig};

    let p = MaxCut::new(generate::random(300, 1200, WeightRange { min: -3, max: 7 }, 11).unwrap()).unwrap();
    let never = StopCheck::never();
    let colors = VariableColors::from_coloring(
        &variable_coloring(&p, ColoringMethod::WelshPowell, &never).unwrap(),
        p.functions(),
        0,
    );
    let schedule = AnnealSchedule::new(p.functions(), 5, &never).unwrap();
    let (l, n, sweeps) = (p.variables(), 16, 100);
    // The elitist: a random genotype annealed hot to cold.
    let mut elitist: Vec<u8> = {
        let mut rng = SplitMix64::new(3);
        (0..l).map(|_| rng.coin() as u8).collect()
    };
    search(&p, &colors, &schedule, (400, 7, 0), &mut elitist);
    let elitist_fitness = p.evaluate(&elitist);
    // A run whose elitist is that (each search below offers its improvements to its own run).
    let with_elitist = || {
        let mut run = Run::new(&p, Limits::default());
        run.verify = true;
        run.offer(&elitist, elitist_fitness);
        run
    };
    let mut run = with_elitist();

    // Copies, nothing evaluated; a random start where asked, or where the run has no elitist.
    let evaluated = run.counter.subfunction_evaluations();
    let (copies, start) = new_population(&p, PopulationStart::Elitist, n, &mut SplitMix64::new(5), &mut run).unwrap();
    assert_eq!(start, AnnealStart::Halfway);
    assert_eq!(copies, Population { n, l, genes: elitist.repeat(n), fitness: vec![elitist_fitness; n] });
    assert_eq!(run.counter.subfunction_evaluations(), evaluated);
    let (random, start) = new_population(&p, PopulationStart::Random, n, &mut SplitMix64::new(5), &mut run).unwrap();
    assert_eq!(
        (random, start),
        (initial_population(&p, n, 5, &mut Run::new(&p, Limits::default())).unwrap(), AnnealStart::Hot)
    );
    let mut empty = Run::new(&p, Limits::default());
    let (first, start) = new_population(&p, PopulationStart::Elitist, n, &mut SplitMix64::new(5), &mut empty).unwrap();
    assert_eq!((first.genes.len(), start), (n * l, AnnealStart::Hot));
    assert_ne!(first.genes, elitist.repeat(n));
    // Every second population from the second.
    let starts: Vec<_> = (0..5).map(|i| PopulationStart::of(i, true)).collect();
    use PopulationStart::{Elitist, Random};
    assert_eq!(starts, [Random, Elitist, Random, Elitist, Random]);
    assert!((0..5).all(|i| PopulationStart::of(i, false) == Random));

    // The CPU backend's search of the copies, from halfway and from the hottest level.
    let fos = Fos::univariate(l);
    let groups = ColoringMethod::WelshPowell.color(&fos, &p, &never).unwrap().groups();
    let mut layout = GroupLayout::new(&p, &fos, &groups, &never).unwrap();
    layout.variable_colors = Arc::new(colors.clone());
    layout.anneal = schedule.clone();
    let layout = Arc::new(layout);
    let pool = Arc::new(cpu::thread_pool(Some(2)).unwrap());
    let annealed = |anneal_start: AnnealStart, run: &mut Run| {
        let backend = cpu::new_backend(&p, layout.clone(), copies.clone(), 5, pool.clone()).unwrap();
        let hybrid =
            Hybrid { local_search: LocalSearchMode::Initial, anneal_sweeps: sweeps, anneal_start, ..Hybrid::default() };
        let engine =
            ParallelGomea::new(backend, layout.clone(), 5, copies.fitness.clone()).hybrid(hybrid, run).unwrap();
        engine.population().unwrap()
    };
    // Distance to the elitist up to the complement (a cut and its complement are one cut).
    let distance = |x: &[u8]| {
        let d = x.iter().zip(&elitist).filter(|(a, b)| a != b).count();
        d.min(l - d)
    };
    let mean_distance = |pop: &Population| (0..n).map(|i| distance(pop.solution(i))).sum::<usize>() as f64 / n as f64;
    let halfway = annealed(AnnealStart::Halfway, &mut with_elitist());
    let hot = annealed(AnnealStart::Hot, &mut with_elitist());
    for i in 0..n {
        assert_eq!(halfway.fitness[i], p.evaluate(halfway.solution(i)));
    }
    let distinct: std::collections::HashSet<&[u8]> = (0..n).map(|i| halfway.solution(i)).collect();
    assert!(distinct.len() > n / 2, "{} distinct solutions of {n}", distinct.len());
    let (near, far) = (mean_distance(&halfway), mean_distance(&hot));
    assert!(near > 0.0 && near < 0.25 * l as f64 && near < 0.5 * far, "halfway {near}, hot {far}, l {l}");

    // Serial GOMEA's engine started from the elitist: the same search, one solution at a time
    // and side by side on two threads.
    let config = |threads: Option<usize>| SerialConfig {
        forced_improvement: false,
        order: FosOrder::Random,
        linkage: LinkageSource::Static(Arc::new(fos.clone())),
        local_search: Some(LocalSearchSetting {
            mode: LocalSearchMode::Initial,
            colors: Arc::new(colors.clone()),
            anneal: Arc::new(schedule.clone()),
            sweeps,
            share: None,
            start: AnnealStart::Hot,
            threads: threads.map(|t| Arc::new(rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap())),
        }),
        start: PopulationStart::Elitist,
    };
    for threads in [None, Some(2)] {
        let engine = serial::new_engine(config(threads), &p, n, 5, &mut with_elitist()).unwrap();
        assert_eq!(engine.population().unwrap(), halfway, "{threads:?} threads");
    }
}
