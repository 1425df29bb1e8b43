//! Serial GOMEA and the interleaved multi-start scheme: proven optima, incremental fitness checked
//! after every accepted step (run.verify), the IMS schedule.

mod common;

use std::time::Duration;

use pgomea::gomea::ims::{Ims, ImsConfig};
use pgomea::gomea::run::{Limits, Run};
use pgomea::gomea::{Population, PopulationEngine};
use pgomea::linkage::fos::LinkageModel;
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::graph::Graph;
use pgomea::problem::maxcut::MaxCut;
use pgomea::solve::{FosOrderKind, RunOptions};

fn solve_with(problem: &MaxCut, config: &RunOptions, target: i64, max_evals: f64) -> pgomea::solve::Outcome {
    let mut run = Run::new(
        problem,
        Limits { time: Some(Duration::from_secs(120)), evaluations: Some(max_evals), target: Some(target) },
    );
    run.verify = true;
    common::solve_in(problem, config.clone(), &mut run, Some(target)).unwrap()
}

#[test]
fn reaches_the_proven_optimum_of_generated_tori() {
    for (side, seed) in [(4, 1), (6, 2), (10, 3), (14, 4)] {
        let p = MaxCut::new(generate::torus(side, WeightRange { min: 1, max: 5 }, seed).unwrap()).unwrap();
        let opt = p.total_weight().unwrap();
        for linkage in [LinkageModel::Flt, LinkageModel::Univariate, LinkageModel::Bflt(4)] {
            let config = RunOptions { linkage: Some(linkage), seed: Some(seed), ..RunOptions::default() };
            let o = solve_with(&p, &config, opt, 2e5);
            assert_eq!(o.best_fitness, opt, "torus {side}x{side} {linkage}: stopped by {}", o.stop_reason.as_str());
        }
    }
}

#[test]
fn reaches_the_proven_optimum_on_set_a_up_to_25() {
    let Some((dir, rows)) = common::known("A") else { return };
    let rows: Vec<_> = rows.into_iter().filter(|r| r.vertices <= 25 && r.is_optimal).collect();
    assert_eq!(rows.len(), 30);
    for r in rows {
        let p = MaxCut::new(Graph::read(&r.path(&dir)).unwrap()).unwrap();
        let o = solve_with(&p, &RunOptions { seed: Some(7), ..RunOptions::default() }, r.best_known, 1e5);
        assert_eq!(o.best_fitness, r.best_known, "{}: stopped by {}", r.name, o.stop_reason.as_str());
    }
}

#[test]
fn reaches_the_optimum_on_set_b_tori_up_to_100() {
    let Some((dir, rows)) = common::known("B") else { return };
    let rows: Vec<_> = rows.into_iter().filter(|r| r.vertices <= 100).collect();
    assert_eq!(rows.len(), 50);
    for r in rows {
        let p = MaxCut::new(Graph::read(&r.path(&dir)).unwrap()).unwrap();
        let o = solve_with(&p, &RunOptions { seed: Some(3), ..RunOptions::default() }, r.best_known, 2e5);
        assert_eq!(
            o.best_fitness,
            r.best_known,
            "{} (proven optimal: {}): stopped by {}",
            r.name,
            r.is_optimal,
            o.stop_reason.as_str()
        );
    }
}

#[test]
fn every_option_combination_keeps_incremental_fitness_exact() {
    let p = MaxCut::new(generate::random(80, 240, WeightRange { min: -2, max: 5 }, 4).unwrap()).unwrap();
    for (linkage, fi, order) in [
        (LinkageModel::Lt, true, FosOrderKind::Random),
        (LinkageModel::Flt, false, FosOrderKind::Colored),
        (LinkageModel::Bflt(10), true, FosOrderKind::Colored),
        (LinkageModel::Univariate, false, FosOrderKind::Random),
    ] {
        let config = RunOptions {
            linkage: Some(linkage),
            forced_improvement: Some(fi),
            fos_order: Some(order),
            seed: Some(2),
            ..RunOptions::default()
        };
        let mut run = Run::new(&p, Limits { evaluations: Some(3000.0), ..Limits::default() });
        run.verify = true;
        let o = common::solve_in(&p, config.clone(), &mut run, None).unwrap();
        assert_eq!(o.stop_reason.as_str(), "evaluation limit");
        assert_eq!(pgomea::problem::GrayBoxProblem::evaluate(&p, &o.genes()), o.best_fitness);
    }
}

#[test]
fn same_seed_same_run() {
    let p = MaxCut::new(generate::random(100, 300, WeightRange { min: 1, max: 9 }, 5).unwrap()).unwrap();
    let run_once = |seed| {
        let mut run = Run::new(&p, Limits { evaluations: Some(2000.0), ..Limits::default() });
        let o = common::solve_in(&p, RunOptions { seed: Some(seed), ..RunOptions::default() }, &mut run, None).unwrap();
        (o.best_fitness, o.solution, run.trace.len())
    };
    assert_eq!(run_once(9), run_once(9));
}

/// A fake population that records nothing but its size and generations.
struct Fake {
    n: usize,
    generations: u64,
    average: f64,
}

impl PopulationEngine for Fake {
    fn size(&self) -> usize {
        self.n
    }
    fn generation(&mut self, _run: &mut Run) -> pgomea::Result<()> {
        self.generations += 1;
        Ok(())
    }
    fn generations(&self) -> u64 {
        self.generations
    }
    fn average_fitness(&self) -> f64 {
        self.average
    }
    fn converged(&self) -> bool {
        false
    }
    fn population(&self) -> pgomea::Result<Population> {
        unimplemented!("not used by the scheme")
    }
    fn best_fitness(&self) -> i64 {
        self.average as i64
    }
    fn best_solution(&self) -> pgomea::Result<Vec<u8>> {
        unimplemented!("not used by a run without partition mixing")
    }
}

#[test]
fn ims_runs_one_generation_of_the_next_population_every_c_ims() {
    let p = MaxCut::new(generate::torus(4, WeightRange { min: 1, max: 1 }, 1).unwrap()).unwrap();
    for c in [2u32, 4] {
        let mut run = Run::new(&p, Limits::default());
        run.offer(&[0; 16], 0);
        let cap = 16 << 3;
        let mut ims = Ims::new(
            ImsConfig { n_base: 16, c_ims: c, max_population: Some(cap), ..ImsConfig::default() },
            Box::new(|_, size, _| {
                Ok(Some(Box::new(Fake { n: size, generations: 0, average: 0.0 }) as Box<dyn PopulationEngine>))
            }),
        )
        .unwrap();
        let mut run = Run::new(&p, Limits { time: Some(Duration::from_millis(20)), ..Limits::default() });
        run.offer(&[0; 16], 0);
        ims.run(&mut run).unwrap();
        let s = &ims.schedule;
        assert!(s.len() > 100, "schedule too short: {}", s.len());
        assert_eq!(s[0], 0);
        if c == 2 {
            assert_eq!(&s[..7], &[0, 0, 1, 0, 0, 1, 2]);
        }
        // Populations 0..=3 exist (sizes 16..=128, the cap). At every prefix, population j+1 has run floor(gens_j / c) generations, or one fewer
        // while its turn is being taken.
        let mut counts = [0u64; 8];
        for &i in s {
            counts[i] += 1;
            for j in 0..3 {
                let expected = counts[j] / c as u64;
                assert!(counts[j + 1] <= expected && counts[j + 1] + 1 >= expected, "c={c}: counts {counts:?}");
            }
        }
        assert!(counts[4..].iter().all(|&k| k == 0), "no population beyond the cap: {counts:?}");
        assert!(ims.live_sizes().iter().all(|&n| n <= cap));
    }
}

#[test]
fn ims_terminates_smaller_populations_with_worse_averages() {
    let p = MaxCut::new(generate::torus(4, WeightRange { min: 1, max: 1 }, 1).unwrap()).unwrap();
    let mut run = Run::new(&p, Limits { time: Some(Duration::from_millis(30)), ..Limits::default() });
    run.offer(&[0; 16], 0);
    // Larger populations report better averages: each new one ends all smaller ones.
    let mut ims = Ims::new(
        ImsConfig { n_base: 4, c_ims: 2, max_population: Some(64), ..ImsConfig::default() },
        Box::new(|index, size, _| {
            Ok(Some(Box::new(Fake { n: size, generations: 0, average: index as f64 }) as Box<dyn PopulationEngine>))
        }),
    )
    .unwrap();
    ims.run(&mut run).unwrap();
    assert_eq!(ims.live_sizes(), vec![64], "only the largest population survives");
}
