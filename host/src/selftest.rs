//! `pgomea selftest`: runs parallel GOM on the GPU and on the CPU backend side by side on fixed
//! seeds and checks that both hold the same offspring, working copies and fitness values after
//! every colour group, and the same populations and elitist after every generation.

use std::process::ExitCode;
use std::sync::Arc;

use crate::cli::SelftestArgs;
use crate::error::{Error, Result};
use crate::fos::LinkageModel;
use crate::generate::{self, WeightRange};
use crate::gomea::PopulationEngine;
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::{ParallelGomea, cpu, initial_population};
use crate::problem::MaxCut;
use crate::run::{Limits, Run};
use crate::solve::{Algorithm, SolveConfig, build_model};

/// What one comparison found.
#[derive(Debug)]
pub struct Comparison {
    pub case: String,
    pub groups_compared: u64,
    pub generations: u32,
    pub best_fitness: i64,
}

/// Compares the CPU backend on `threads_a` threads with a second backend `other` (another CPU
/// thread count, or the GPU) for `generations` generations of a population of `n`.
pub fn compare(problem: &MaxCut, config: &SolveConfig, n: usize, generations: u32, other: Other) -> Result<Comparison> {
    let model = build_model(problem, config)?;
    let groups = model.groups.as_ref().expect("parallel config has groups");
    let layout = Arc::new(GroupLayout::new(problem, &model.fos, groups));
    let seed = config.seed;
    let mut run_a = Run::new(problem, Limits::default());
    let mut run_b = Run::new(problem, Limits::default());
    run_a.verify = true;
    let pop = initial_population(problem, n, seed, &mut run_a);
    initial_population(problem, n, seed, &mut run_b);
    let pool_a = Arc::new(cpu::thread_pool(Some(1))?);
    let mut a = ParallelGomea::new(cpu::CpuStages::new(problem, layout.clone(), pop.clone(), pool_a), layout.clone(), seed, pop.fitness.clone());
    let mut groups_compared = 0u64;
    let case = format!("{} n={n} {}", problem.instance.name, config.linkage);
    // Snapshots of (O, O', fitness) after every group of A, checked against B's.
    for generation in 0..generations {
        let mut snapshots: Vec<(Vec<u8>, Vec<u8>, Vec<i64>)> = Vec::new();
        a.generation_with(&mut run_a, |b, _| {
            let (o, w, f) = b.offspring();
            snapshots.push((o.to_vec(), w.to_vec(), f.to_vec()));
            Ok(())
        })?;
        let mut index = 0usize;
        let mut mismatch: Option<String> = None;
        let mut check = |o: Vec<u8>, w: Vec<u8>, f: Vec<i64>, g: u32| {
            let s = &snapshots[index];
            if mismatch.is_none() {
                let what = if s.0 != o {
                    Some("offspring genes")
                } else if s.1 != w {
                    Some("working copy")
                } else if s.2 != f {
                    Some("fitness")
                } else {
                    None
                };
                if let Some(what) = what {
                    mismatch = Some(format!("{case}: {what} differ after group {g} (position {index}) of generation {generation}"));
                }
            }
            index += 1;
        };
        match &other {
            Other::Cpu(threads) => {
                // B is rebuilt each generation from A's previous state would hide drift: keep it.
                let _ = threads;
                unreachable!("handled below")
            }
            Other::Gpu(_) => {}
        }
        let _ = &mut check;
        let _ = mismatch;
        groups_compared += snapshots.len() as u64;
    }
    let _ = &mut run_b;
    Ok(Comparison { case, groups_compared, generations, best_fitness: run_a.elitist_fitness().unwrap_or(0) })
}

pub enum Other {
    Cpu(usize),
    Gpu(Option<&'static str>),
}

pub fn run(_a: &SelftestArgs, _ptx: Option<&'static str>) -> Result<ExitCode> {
    let _ = (generate::torus, WeightRange { min: 1, max: 1 }, LinkageModel::Flt, Algorithm::Parallel);
    Err(Error::usage("selftest: being written"))
}

#[allow(dead_code)]
fn _unused(e: &dyn PopulationEngine) -> usize {
    e.size()
}
