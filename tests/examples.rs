//! The code of `host/examples/tables.rs` (a problem built in code as tables of subfunctions,
//! solved with every algorithm and backend), run here on the CPU: the hand-written tables are the
//! traps they claim to be, and every CPU run reaches the optimum, all ones.

#[allow(dead_code)]
#[path = "../host/examples/tables.rs"]
mod tables;

use pgomea::gomea::run::{Observer, TracePoint};
use pgomea::problem::GrayBoxProblem;
use pgomea::problem::trap::trap_value;
use pgomea::solve::{Algorithm, Backend};
use pgomea_device::rng::SplitMix64;

#[test]
fn the_hand_written_tables_are_interleaved_traps() {
    let (k, blocks) = (tables::K, tables::BLOCKS);
    let problem = tables::trap_problem(k, blocks).unwrap();
    assert_eq!((problem.variables(), problem.subfunctions()), (k * blocks, blocks));
    assert_eq!(problem.known_optimum(), Some((k * blocks) as i64));
    assert_eq!(problem.evaluate(&vec![1; k * blocks]), (k * blocks) as i64);
    // The fitness of random genotypes against the traps counted block by block (the library's own
    // trap value), block b reading the variables b, b + blocks, ...
    let mut rng = SplitMix64::new(7);
    for _ in 0..200 {
        let x: Vec<u8> = (0..k * blocks).map(|_| rng.coin() as u8).collect();
        let expected: i64 = (0..blocks).map(|b| trap_value(k, (0..k).filter(|t| x[b + t * blocks] == 1).count())).sum();
        assert_eq!(problem.evaluate(&x), expected);
    }
}

/// Every improvement of the best solution, as the example's observer sees them.
#[derive(Default)]
struct Improvements(Vec<i64>);

impl Observer for Improvements {
    fn improvement(&mut self, point: &TracePoint, genes: &[u8]) {
        self.0.push(point.best_fitness);
        assert_eq!(genes.len(), tables::K * tables::BLOCKS);
    }
}

#[test]
fn every_cpu_variant_of_the_example_reaches_the_optimum() {
    let problem = tables::trap_problem(tables::K, tables::BLOCKS).unwrap();
    let optimum = problem.known_optimum().unwrap();
    let mut ran = 0;
    for mut variant in tables::variants(optimum, 60.0) {
        if variant.needs_gpu {
            continue;
        }
        // The hybrid default's auto backend on the CPU, whatever machine runs the test.
        if variant.options.algorithm == Some(Algorithm::Parallel) {
            variant.options.backend = Some(Backend::Cpu);
        }
        let mut improvements = Improvements::default();
        let outcome = tables::run(&problem, &variant, &mut improvements).unwrap();
        let name = variant.name;
        assert!(outcome.reached_target, "{name}: {} of {optimum}", outcome.best_fitness);
        assert_eq!(outcome.best_fitness, optimum, "{name}");
        assert_eq!(outcome.genes(), vec![1; problem.variables()], "{name}: the optimum is all ones");
        assert!(outcome.backend.starts_with("cpu"), "{name}: ran on {}", outcome.backend);
        // The observer heard every improvement, in order, the last one the optimum.
        assert!(improvements.0.windows(2).all(|w| w[0] < w[1]), "{name}: {:?}", improvements.0);
        assert_eq!(improvements.0.last(), Some(&optimum), "{name}");
        assert_eq!(improvements.0.len(), outcome.trace.len(), "{name}");
        ran += 1;
    }
    assert_eq!(ran, 3, "serial, parallel on the CPU backend, and the hybrid default");
}
