//! Parallel GOM on a second backend (the GPU, or the CPU backend on several threads) against the
//! CPU backend on one thread, on fixed seeds, as `pgomea selftest` and the tests run it:
//! - every stage alone, on random (valid) inputs: all buffers must be equal afterwards;
//! - whole generations: the offspring, working copy and fitness after every colour group, and the
//!   population and elitist after every generation, must be equal bit for bit.

use std::sync::Arc;

use pgomea_device::rng::{SplitMix64, streams};
use pgomea_device::stage::{Pass, Stage};

use super::Case;
use crate::backend::cuda::{CudaTuning, GroupPasses, WholeGeneration};
use crate::backend::{cpu, cuda};
use crate::error::{Error, Result};
use crate::gomea::local_search::{AnnealStart, SearchCalls};
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::parallel::{ParallelGomea, StageState, Stages};
use crate::gomea::population::initial_population;
use crate::gomea::run::{Limits, Run};
use crate::gomea::{LocalSearchMode, Population, PopulationEngine};
use crate::stop::StopCheck;

/// The backend checked against the CPU backend on one thread.
#[derive(Clone, Copy, Debug)]
pub enum Candidate {
    /// The CPU backend on this many threads.
    Cpu {
        /// The threads of its pool.
        threads: usize,
    },
    /// The CUDA backend on the process's GPU.
    Cuda,
}

/// The CUDA tuning of a way to run whole generations: `whole`, and GOM's groups in one pass or
/// three (`passes`), or as the default rule says.
fn way(whole: WholeGeneration, passes: Option<GroupPasses>) -> CudaTuning {
    // The gains recomputed: the ways that keep them are listed apart, whatever the default picks.
    CudaTuning { generation: Some(whole), group_passes: passes, kept_gains: Some(false), ..CudaTuning::default() }
}

/// Calls `f` with a fresh backend of the chosen kind holding `population`; `tuning` says how the
/// CUDA backend runs whole generations (and whether it launches cooperatively at all).
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
fn with_backend<R>(
    case: &Case,
    candidate: Option<Candidate>,
    tuning: CudaTuning,
    population: Population,
    f: &mut dyn FnMut(Stages<'_>) -> Result<R>,
) -> Result<R> {
    match candidate {
        None | Some(Candidate::Cpu { .. }) => {
            let threads = match candidate {
                Some(Candidate::Cpu { threads }) => threads,
                _ => 1,
            };
            let pool = Arc::new(cpu::thread_pool(Some(threads))?);
            f(cpu::new_backend(&*case.problem, case.layout.clone(), population, case.config.seed, pool)?)
        }
        #[cfg(not(feature = "cuda"))]
        Some(Candidate::Cuda) => match *cuda::Gpu::shared()? {},
        #[cfg(feature = "cuda")]
        Some(Candidate::Cuda) => {
            let gpu = cuda::Gpu::shared()?;
            let shared = cuda::SharedArrays::upload(&gpu, &*case.problem, &case.layout, None, &StopCheck::never())?;
            f(cuda::new_backend(gpu, shared, case.layout.clone(), population, case.config.seed, &tuning)?)
        }
    }
}

/// A random but valid state of every compared buffer of a population of `n` in the case's
/// layout, for single-stage checks (`StageState::random`: drawn as the buffer table says).
pub fn random_state(case: &Case, n: usize, seed: u64) -> StageState {
    StageState::random(&case.layout.buffer_sizes(n), seed)
}

/// The groups worth checking alone: the one with most slots, the one with most dependent entries,
/// a group of one set if any, and a few at random.
pub fn interesting_groups(layout: &GroupLayout, seed: u64) -> Vec<u32> {
    let g = layout.groups();
    let mut out = Vec::new();
    if g == 0 {
        return out;
    }
    out.push((0..g).max_by_key(|&i| layout.slots(i).len()).unwrap_or(0) as u32);
    out.push((0..g).max_by_key(|&i| layout.deps(i).len()).unwrap_or(0) as u32);
    if let Some(one) = (0..g).find(|&i| layout.slots(i).len() == 1) {
        out.push(one as u32);
    }
    let mut rng = SplitMix64::stream(seed, streams::SELFTEST_GROUPS);
    for _ in 0..3 {
        out.push(rng.index(g) as u32);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A population of `n` placeholder solutions of the case (the stage checks set every buffer).
fn placeholder(case: &Case, n: usize) -> Population {
    let l = case.layout.variables;
    Population { n, l, genes: vec![0; n * l], fitness: vec![0; n] }
}

// ANCHOR: check_stages
/// Runs each stage alone on random inputs on both backends; returns the number of checks, or the
/// first difference.
pub fn check_stages(case: &Case, candidate: Candidate, n: usize, seed: u64) -> Result<usize> {
    // The stages draw their random numbers from the case's seed; `seed` varies the inputs.
    let groups = interesting_groups(&case.layout, seed);
    let l = case.layout.variables;
    let placeholder = placeholder(case, n);
    let mut checks = 0;
    for (gi, &g) in groups.iter().enumerate() {
        for (stage, forced) in Stage::ALL.into_iter().flat_map(|s| [(s, false), (s, true)]) {
            let state = random_state(case, n, seed ^ (((gi as u64) << 8) | (stage.index() as u64 * 2 + forced as u64)));
            // Forced Improvement's donor: a genotype of its own.
            let elitist: Vec<u8> = state.parents.iter().take(l).map(|g| g ^ (forced as u8)).collect();
            let mut run_stage = |mut b: Stages<'_>| -> Result<StageState> {
                b.set_state(&state)?;
                if forced {
                    b.begin_forced_improvement(&state.forced, &elitist)?;
                }
                b.begin_groups(7, &[g], forced)?;
                b.pass(Pass::stage(stage), 0)?;
                b.synchronize()?;
                b.state()
            };
            let cooperative = way(WholeGeneration::Cooperative, None);
            let reference = with_backend(case, None, cooperative, placeholder.clone(), &mut run_stage)?;
            let other = with_backend(case, Some(candidate), cooperative, placeholder.clone(), &mut run_stage)?;
            if let Some(what) = reference.first_difference(&other) {
                return Err(Error::Cuda(format!(
                    "{}: stage {} ({}{}) on group {g} ({} sets, {} dependent subfunctions): the buffer `{what}` differs from the CPU stage's",
                    case.name,
                    stage.index() + 1,
                    stage.name(),
                    if forced { ", forced improvement" } else { "" },
                    case.layout.slots(g as usize).len(),
                    case.layout.deps(g as usize).len()
                )));
            }
            checks += 1;
        }
    }
    if case.hybrid.local_search != LocalSearchMode::Off {
        checks += check_search_calls(case, candidate, n, seed)?;
    }
    Ok(checks)
}
// ANCHOR_END: check_stages

/// The local search of a random population in calls of one sweep or round (every call of the
/// descent only of the solutions whose descent goes on), and in one call, on the candidate, every
/// way it can run on a GPU, against the CPU backend's search in one call, from the hottest level
/// and from halfway down the schedule (a population started from the elitist); returns the
/// number of checks.
fn check_search_calls(case: &Case, candidate: Candidate, n: usize, seed: u64) -> Result<usize> {
    let state = &random_state(case, n, seed ^ 0x5ea4c4);
    let l = case.layout.variables;
    let search = |per_call: u32, start: AnnealStart| {
        move |mut b: Stages<'_>| -> Result<StageState> {
            b.set_state(state)?;
            // O = P: a search from the parents' genotypes.
            b.start_generation(&state.parents[..l], state.parent_fitness[0], &state.parent_fitness)?;
            let mut calls = SearchCalls::starting(3, case.hybrid.anneal_sweeps, per_call, start);
            let mut descending = true;
            while let Some(step) = calls.next(descending) {
                (_, descending) = b.search_offspring(step, &StopCheck::never())?;
            }
            b.state()
        }
    };
    let placeholder = placeholder(case, n);
    let wholes: &[WholeGeneration] = match candidate {
        Candidate::Cuda => &[WholeGeneration::Cooperative, WholeGeneration::Graph, WholeGeneration::BySolution],
        Candidate::Cpu { .. } => &[WholeGeneration::Cooperative],
    };
    // Every way, and on the GPU the search by solution keeping its gains too.
    let mut ways: Vec<(CudaTuning, String)> = wholes.iter().map(|&w| (way(w, None), format!("{w:?}"))).collect();
    if matches!(candidate, Candidate::Cuda) {
        let kept = CudaTuning { kept_gains: Some(true), ..way(WholeGeneration::BySolution, None) };
        ways.push((kept, "BySolution, kept gains".into()));
    }
    let starts = [AnnealStart::Hot, AnnealStart::Halfway];
    for start in starts {
        let reference = with_backend(
            case,
            None,
            way(WholeGeneration::Cooperative, None),
            placeholder.clone(),
            &mut search(u32::MAX, start),
        )?;
        for (tuning, whole) in &ways {
            for (per_call, how) in [(1, "in calls of one sweep or round"), (u32::MAX, "in one call")] {
                let other =
                    with_backend(case, Some(candidate), *tuning, placeholder.clone(), &mut search(per_call, start))?;
                if let Some(what) = reference.first_difference(&other) {
                    return Err(Error::Cuda(format!(
                        "{}: local search {how} from {start:?} ({whole}): the buffer `{what}` differs from the CPU backend's search in one call",
                        case.name
                    )));
                }
            }
        }
    }
    Ok(2 * ways.len() * starts.len())
}

/// What one backend did, group by group.
#[derive(Debug, Default, PartialEq)]
struct Record {
    group_digests: Vec<(u64, u32, u64)>,
    populations: Vec<Population>,
    elitists: Vec<(i64, Vec<u8>)>,
    /// Every buffer after each generation.
    states: Vec<StageState>,
}

/// Runs `generations` generations; `per_group`: group by group with every state recorded and
/// verified, else whole generations at once (on the GPU as `whole` says).
fn record(
    case: &Case,
    candidate: Option<Candidate>,
    n: usize,
    generations: u32,
    per_group: bool,
    tuning: CudaTuning,
) -> Result<Record> {
    let mut run = Run::new(&*case.problem, Limits::default());
    run.verify = per_group;
    let seed = case.config.seed;
    // A run's first population is always made whole.
    let population = initial_population(&*case.problem, n, seed, &mut run)
        .ok_or_else(|| Error::Internal("the first population was abandoned".into()))?;
    let fitness = population.fitness.clone();
    let layout = case.layout.clone();
    with_backend(case, candidate, tuning, population, &mut |b| {
        let mut engine = ParallelGomea::new(b, layout.clone(), seed, fitness.clone()).hybrid(case.hybrid, &mut run)?;
        let mut rec = Record::default();
        for generation in 0..generations as u64 {
            let mut digests = Vec::new();
            engine.generation_with(&mut run, per_group, |b, g| {
                digests.push((generation, g, b.state()?.digest()));
                Ok(())
            })?;
            rec.group_digests.extend(digests);
            rec.populations.push(engine.population()?);
            rec.states.push(engine.backend().state()?);
            let e = run.elitist().expect("evaluated");
            rec.elitists.push((e.fitness, e.genes.clone()));
        }
        Ok(rec)
    })
}

/// Whole generations on both backends; returns the number of groups compared and the best fitness,
/// or the first difference.
pub fn check_generations(case: &Case, candidate: Candidate, n: usize, generations: u32) -> Result<(usize, i64)> {
    let cooperative = way(WholeGeneration::Cooperative, None);
    let a = record(case, None, n, generations, true, cooperative)?;
    let b = record(case, Some(candidate), n, generations, true, cooperative)?;
    let wholes: &[(WholeGeneration, &str)] = match candidate {
        Candidate::Cuda => &[
            (WholeGeneration::Cooperative, "one cooperative launch"),
            (WholeGeneration::Graph, "graph replay"),
            (WholeGeneration::BySolution, "a block per solution"),
        ],
        Candidate::Cpu { .. } => &[(WholeGeneration::Cooperative, "all groups at once")],
    };
    // On the GPU each way with groups in one pass and in three (the CPU backend: one).
    let passes: &[(Option<GroupPasses>, &str)] = match candidate {
        Candidate::Cuda => &[(Some(GroupPasses::One), "one pass"), (Some(GroupPasses::Three), "three passes")],
        Candidate::Cpu { .. } => &[(None, "one pass")],
    };
    for (&(whole, way_of), &(passes, passes_of)) in wholes.iter().flat_map(|w| passes.iter().map(move |p| (w, p))) {
        let how = format!("{way_of}, {passes_of}");
        let fast = record(case, Some(candidate), n, generations, false, way(whole, passes))?;
        if fast.populations != a.populations || fast.elitists != a.elitists {
            return Err(Error::Cuda(format!(
                "{} (n = {n}): whole generations ({how}) differ from the CPU backend",
                case.name
            )));
        }
        for (generation, (x, y)) in a.states.iter().zip(&fast.states).enumerate() {
            if let Some(what) = x.first_result_difference(y) {
                return Err(Error::Cuda(format!(
                    "{} (n = {n}): after generation {generation} ({how}) the buffer `{what}` differs from the CPU backend's",
                    case.name
                )));
            }
        }
    }
    for (k, (x, y)) in a.group_digests.iter().zip(&b.group_digests).enumerate() {
        if x != y {
            return Err(Error::Cuda(format!(
                "{} (n = {n}): the state after group {} of generation {} differs (comparison {k})",
                case.name, x.1, x.0
            )));
        }
    }
    if a.group_digests.len() != b.group_digests.len() {
        return Err(Error::Cuda(format!("{}: the backends ran different numbers of groups", case.name)));
    }
    for (generation, (x, y)) in a.populations.iter().zip(&b.populations).enumerate() {
        if x != y {
            return Err(Error::Cuda(format!(
                "{} (n = {n}): populations differ after generation {generation}",
                case.name
            )));
        }
    }
    if a.elitists != b.elitists {
        return Err(Error::Cuda(format!("{} (n = {n}): the elitists differ", case.name)));
    }
    Ok((a.group_digests.len(), a.elitists.last().map(|e| e.0).unwrap_or(0)))
}

/// How often each kernel that can run on the GPU candidate was launched so far (none for the
/// CPU): every kernel, less the cooperative ones where the device cannot launch cooperatively.
pub fn launch_counts(candidate: Candidate) -> Result<Option<Vec<(&'static str, u64)>>> {
    let Candidate::Cuda = candidate else { return Ok(None) };
    let gpu = cuda::Gpu::shared()?;
    let cooperative: Vec<&str> = pgomea_device::kernel_names::KIND_KERNELS
        .iter()
        .flat_map(|(_, k)| [k.generation, k.forced_improvement, k.flip_search])
        .collect();
    let can = gpu.can_launch_cooperatively();
    Ok(Some(gpu.launch_counts().into_iter().filter(|(k, _)| can || !cooperative.contains(k)).collect()))
}

/// The kernels not launched between two of [`launch_counts`]: the comparisons must run every
/// kernel of every kind.
pub fn kernels_not_launched(before: &[(&'static str, u64)], after: &[(&'static str, u64)]) -> Vec<&'static str> {
    before.iter().zip(after).filter(|(b, a)| a.1 <= b.1).map(|(b, _)| b.0).collect()
}
