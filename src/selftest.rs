//! `pgomea selftest`: the library's backend cross-checks (`pgomea::testing`) on fixed seeds,
//! parallel GOM on the GPU (or, without one, the CPU backend on several threads) against the CPU
//! backend on one thread, every stage alone and whole generations, bit for bit, on the generated
//! cases and those of the instance data directory when it is there.

use std::process::ExitCode;

use clap::Args;

use crate::args::InstanceArgs;
use pgomea::error::Result;
use pgomea::testing::{
    Candidate, DATA_CASES, check_generations, check_stages, data_cases, generated_cases, kernels_not_launched,
    launch_counts,
};

#[derive(Args, Debug)]
pub struct SelftestArgs {
    /// Generations compared per case.
    #[arg(long, default_value_t = 3)]
    pub generations: u32,
    #[command(flatten)]
    pub instances: InstanceArgs,
}

/// `pgomea selftest`.
pub fn run(a: &SelftestArgs) -> Result<ExitCode> {
    let candidate = match pgomea::backend::cuda::probe() {
        Ok(name) => {
            println!("selftest: GPU {name} against the CPU backend (1 thread)");
            Candidate::Cuda
        }
        Err(why) => {
            let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).max(2);
            println!(
                "selftest: no GPU ({why}); checking the CPU backend on {threads} threads against 1 thread instead"
            );
            Candidate::Cpu { threads }
        }
    };
    let mut cases = generated_cases()?;
    let data = match crate::args::data_dir_if_any(a.instances.instances_dir.as_deref())? {
        Some(dir) => data_cases(&dir)?,
        None => Vec::new(),
    };
    if data.is_empty() {
        // Said, so that a run without the data is not taken for one with it.
        println!(
            "selftest: the data cases ({DATA_CASES}) are skipped: no instance data directory \
             (--instances-dir DIR or PGOMEA_INSTANCES names one)"
        );
    }
    cases.extend(data);
    let launches_before = launch_counts(candidate)?;
    let (mut passed, mut failed) = (0usize, 0usize);
    for case in &cases {
        let stage = check_stages(case, candidate, 24, case.config.seed);
        let gens: Result<Vec<(usize, i64)>> =
            [16usize, 33].iter().map(|&n| check_generations(case, candidate, n, a.generations)).collect();
        match (stage, gens) {
            (Ok(checks), Ok(g)) => {
                passed += 1;
                println!(
                    "ok    {:<40} {:>5} groups, {checks} single-stage checks, {} group states equal, best {}",
                    case.name,
                    case.layout.groups(),
                    g.iter().map(|x| x.0).sum::<usize>(),
                    g.last().map(|x| x.1).unwrap_or(0)
                );
            }
            (s, g) => {
                failed += 1;
                let why = s.err().or(g.err()).map(|e| e.to_string()).unwrap_or_default();
                println!("FAIL  {:<40} {why}", case.name);
            }
        }
    }
    if let Some(before) = launches_before {
        let missing = kernels_not_launched(&before, &launch_counts(candidate)?.unwrap_or_default());
        if missing.is_empty() {
            println!("ok    every kernel of every kind ran ({})", before.len());
            passed += 1;
        } else {
            println!("FAIL  kernels that never ran: {}", missing.join(", "));
            failed += 1;
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
