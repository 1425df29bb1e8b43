//! Support for the self-test, the benchmarks and the tests: parallel GOM on a second backend
//! checked against the CPU backend on one thread, bit for bit ([`compare`]), and one population's
//! generations timed on a backend ([`measure`]). Both work on a [`Case`]: a problem with its
//! linkage model, colouring and colour-group layout, ready for parallel GOM. The generated cases
//! ([`generated_cases`]) need no data and cover every problem kind, every linkage model that
//! colours and both colourings; [`data_cases`] adds instances of the paper's sets.

pub mod compare;
pub mod measure;

use std::path::Path;
use std::sync::Arc;

use pgomea_device::rng::{SplitMix64, streams};
use pgomea_device::stage::WARP_SHIFT;

use crate::error::{Error, Result};
use crate::gomea::LocalSearchMode;
use crate::gomea::local_search::{AnnealSchedule, VariableColors};
use crate::gomea::parallel::Hybrid;
use crate::gomea::parallel::layout::GroupLayout;
use crate::gomea::run::{Limits, Run};
use crate::linkage::coloring::{ColoringMethod, variable_coloring};
use crate::linkage::fos::{Fos, LinkageModel};
use crate::problem::generate::{self, WeightRange};
use crate::problem::graph::Graph;
use crate::problem::maxcut::MaxCut;
use crate::problem::maxsat::{self, MaxSat, SatFormat};
use crate::problem::{GrayBoxProblem, data, nk, trap};
use crate::solve::{Algorithm, RunConfig, RunOptions, build_model};
use crate::stop::StopCheck;

pub use compare::{Candidate, check_generations, check_stages, kernels_not_launched, launch_counts};
pub use measure::{Bench, Timed};

/// One problem with a linkage model and colouring, ready for parallel GOM.
pub struct Case {
    /// The problem, its linkage model and its colouring, in words.
    pub name: String,
    /// The problem.
    pub problem: Box<dyn GrayBoxProblem>,
    /// The run's configuration the case was built from (its seed draws every random number).
    pub config: RunConfig,
    /// The linkage sets.
    pub fos: Arc<Fos>,
    /// The linkage sets renumbered by colour group, as the backends read them.
    pub layout: Arc<GroupLayout>,
    /// Forced Improvement and local search in the generations (the paper's variant: none).
    pub hybrid: Hybrid,
}

impl Case {
    /// Parallel GOMEA on `problem` with `linkage` coloured by `coloring`, seeded by `seed`,
    /// without local search.
    pub fn new(
        problem: Box<dyn GrayBoxProblem>,
        linkage: LinkageModel,
        coloring: ColoringMethod,
        seed: u64,
    ) -> Result<Case> {
        let config = RunOptions {
            algorithm: Some(Algorithm::Parallel),
            linkage: Some(linkage),
            coloring: Some(coloring),
            seed: Some(seed),
            local_search: Some(LocalSearchMode::Off),
            ..RunOptions::default()
        }
        .resolve(&*problem, None)?;
        let name = format!("{} ({}) {linkage} {coloring}", problem.name(), problem.problem_type());
        Case::with_config(name, problem, config, false)
    }

    /// The case of a resolved configuration of parallel GOMEA, named `name`; `gpu`: local
    /// search's entries in the form the GPU reads.
    pub fn with_config(name: String, problem: Box<dyn GrayBoxProblem>, config: RunConfig, gpu: bool) -> Result<Case> {
        let model = build_model(&*problem, &config, &Run::new(&*problem, Limits::default()), gpu)?;
        let groups =
            model.groups.as_ref().ok_or_else(|| Error::Internal("a parallel model has colour groups".into()))?;
        let layout = Arc::new(GroupLayout::new(&*problem, &model.fos, groups, &StopCheck::never())?);
        Ok(Case { name, problem, config, fos: model.fos.clone(), layout, hybrid: Hybrid::default() })
    }

    /// The case with parallel Forced Improvement and local search of the offspring, annealed by
    /// `sweeps` sweeps first (the layout gets the variables' colour groups and the schedule).
    pub fn hybrid(mut self, sweeps: u32) -> Result<Case> {
        self.hybrid = Hybrid {
            forced_improvement: true,
            local_search: LocalSearchMode::Offspring,
            anneal_sweeps: sweeps,
            ..Hybrid::default()
        };
        let never = StopCheck::never();
        let coloring = variable_coloring(&*self.problem, self.config.coloring, &never)?;
        let mut layout = (*self.layout).clone();
        layout.variable_colors =
            Arc::new(VariableColors::from_coloring(&coloring, self.problem.functions(), WARP_SHIFT));
        layout.anneal = AnnealSchedule::new(self.problem.functions(), self.config.seed, &never)?;
        self.layout = Arc::new(layout);
        self.name =
            format!("{} +fi +ls{}", self.name, if sweeps > 0 { format!(" +anneal {sweeps}") } else { String::new() });
        Ok(self)
    }
}

/// The generated cases every self-test runs (no data needed): every problem kind, every
/// linkage model that colours, both colourings.
pub fn generated_cases() -> Result<Vec<Case>> {
    let w = WeightRange { min: 1, max: 5 };
    let pm = WeightRange { min: -1, max: 1 };
    let graph = |g: Graph| -> Result<Box<dyn GrayBoxProblem>> { Ok(Box::new(MaxCut::new(g)?)) };
    Ok(vec![
        Case::new(graph(generate::torus(12, w, 3)?)?, LinkageModel::Univariate, ColoringMethod::WelshPowell, 11)?,
        Case::new(graph(generate::torus(16, w, 4)?)?, LinkageModel::Flt, ColoringMethod::WelshPowell, 12)?,
        Case::new(graph(generate::complete(40, w, 5)?)?, LinkageModel::Flt, ColoringMethod::WelshPowell, 13)?,
        Case::new(graph(generate::random(300, 900, pm, 6)?)?, LinkageModel::Bflt(8), ColoringMethod::DSatur, 14)?,
        Case::new(graph(generate::random(2000, 8000, w, 7)?)?, LinkageModel::Flt, ColoringMethod::DSatur, 15)?,
        Case::new(Box::new(nk::sliding_window(60, 4, 16)?), LinkageModel::Flt, ColoringMethod::WelshPowell, 16)?,
        Case::new(Box::new(nk::sliding_window(1000, 5, 17)?), LinkageModel::Bflt(10), ColoringMethod::DSatur, 17)?,
        Case::new(Box::new(nk::random_neighbourhood(300, 4, 18)?), LinkageModel::Flt, ColoringMethod::WelshPowell, 18)?,
        Case::new(Box::new(trap::concatenated(5, 60, 19, true)?), LinkageModel::Flt, ColoringMethod::DSatur, 19)?,
        Case::new(Box::new(weighted_partial_sat(300, 1200, 20)?), LinkageModel::Flt, ColoringMethod::WelshPowell, 20)?,
        Case::new(Box::new(weighted_partial_sat(60, 250, 21)?), LinkageModel::Univariate, ColoringMethod::DSatur, 21)?,
        // Hybrid parallel GOMEA: parallel Forced Improvement and local search of the offspring.
        // (greedy, and annealed by a few sweeps first).
        Case::new(graph(generate::torus(16, w, 4)?)?, LinkageModel::Flt, ColoringMethod::WelshPowell, 18)?.hybrid(0)?,
        Case::new(graph(generate::random(2000, 8000, pm, 7)?)?, LinkageModel::Flt, ColoringMethod::DSatur, 19)?
            .hybrid(6)?,
        Case::new(Box::new(nk::sliding_window(1000, 5, 17)?), LinkageModel::Flt, ColoringMethod::WelshPowell, 20)?
            .hybrid(4)?,
        Case::new(Box::new(weighted_partial_sat(300, 1200, 22)?), LinkageModel::Flt, ColoringMethod::DSatur, 22)?
            .hybrid(4)?,
        Case::new(Box::new(trap::concatenated(5, 60, 23, true)?), LinkageModel::Flt, ColoringMethod::WelshPowell, 23)?
            .hybrid(0)?,
        // A complete graph: every colour one variable, whose taken flips' partners' kept gains
        // the whole block updates.
        Case::new(graph(generate::complete(40, w, 24)?)?, LinkageModel::Flt, ColoringMethod::WelshPowell, 24)?
            .hybrid(6)?,
    ])
}

/// Weighted partial MAX-SAT from a planted 3-SAT instance: weights 1..=9, every tenth clause
/// hard, and a clause of each unusual shape (a tautology, an empty clause, one literal, a long
/// clause), so that every path of the clauses kind is compared.
fn weighted_partial_sat(n: usize, m: usize, seed: u64) -> Result<MaxSat> {
    let (planted, _) = maxsat::planted_3sat(n, m, seed)?;
    let mut rng = SplitMix64::stream(seed, streams::SELFTEST_SAT);
    let mut clauses: Vec<(i64, Vec<u32>)> =
        (0..m).map(|s| (1 + rng.below(9) as i64, planted.clause(s).0.to_vec())).collect();
    clauses.push((4, vec![0, 1, 6]));
    clauses.push((3, vec![]));
    clauses.push((5, vec![9]));
    clauses.push((2, (0..40).map(|v| 2 * v as u32 + 1).collect()));
    let hard: Vec<bool> = (0..clauses.len()).map(|s| s % 10 == 0).collect();
    let top = clauses.iter().zip(&hard).filter(|(_, h)| !**h).map(|(c, _)| c.0).sum::<i64>() + 1;
    for (c, &h) in clauses.iter_mut().zip(&hard) {
        if h {
            c.0 = top;
        }
    }
    MaxSat::new(format!("wsat-n{n}-m{m}-s{seed}"), SatFormat::Wcnf, n, &clauses, hard, Some(top))
}

/// What [`data_cases`] reads: Set A n=100, a Set B torus of 400, G1 (twice).
pub const DATA_CASES: &str = "Set A n=100, Set B n=400, G1";

/// The cases of [`DATA_CASES`] that the instance data directory `dir` holds.
pub fn data_cases(dir: &Path) -> Result<Vec<Case>> {
    let rows = data::read_best_known(dir)?;
    let mut out = Vec::new();
    for (set, name) in [("A", "n0000100i00"), ("B", "n0000400i00"), ("C", "G1")] {
        if let Ok(row) = data::find(&rows, set, name) {
            let read = || -> Result<Box<dyn GrayBoxProblem>> {
                let mut graph = Graph::read(&row.path(dir))?;
                graph.name = format!("{set}/{name}");
                Ok(Box::new(MaxCut::new(graph)?))
            };
            let case = Case::new(read()?, LinkageModel::Flt, ColoringMethod::WelshPowell, 21)?;
            if set == "C" {
                // G1 both ways: the paper's variant and the hybrid.
                out.push(Case::new(read()?, LinkageModel::Flt, ColoringMethod::WelshPowell, 22)?.hybrid(10)?);
            }
            out.push(case);
        }
    }
    Ok(out)
}
