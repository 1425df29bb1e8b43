//! Random 3-SAT with a planted solution (the clauses kind, [`crate::problem::maxsat`]).

use pgomea_device::rng::{SplitMix64, streams};

use crate::error::{Error, Result};
use crate::problem::maxsat::{MAX_VARIABLE, MaxSat, SatFormat};
use crate::problem::{GrayBoxProblem, Subfunctions, memory};
use crate::stop::StopCheck;

/// A satisfiable random 3-SAT instance of `n` variables and `m` clauses, from `seed`: an
/// assignment is drawn first, then each clause reads 3 distinct variables drawn uniformly with
/// random signs, drawn again until the assignment satisfies it. The optimum is therefore `m`,
/// attained by the returned assignment (its file states it, `c optimum M`). (Such planted
/// instances are somewhat easier than SATLIB's uniform ones of the same size: the clauses lean
/// towards the planted assignment.) The memory is checked before anything is allocated.
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::problem::maxsat::planted_3sat;
/// let (sat, planted) = planted_3sat(20, 85, 3)?;
/// assert_eq!((sat.variables(), sat.clauses(), sat.optimum), (20, 85, Some(85)));
/// assert_eq!(sat.evaluate(&planted), 85); // the planted assignment satisfies every clause
/// assert!(sat.unsatisfied(&planted).is_empty());
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn planted_3sat(n: usize, m: usize, seed: u64) -> Result<(MaxSat, Vec<u8>)> {
    if n < 3 || n as u64 > MAX_VARIABLE {
        return Err(Error::usage(format!("3-SAT: n = {n}; expected 3 to {MAX_VARIABLE} variables")));
    }
    if m == 0 || m > u32::MAX as usize / 3 {
        return Err(Error::usage(format!("3-SAT: m = {m}; expected 1 to {} clauses", u32::MAX / 3)));
    }
    // The assignment, the clauses' arrays (offsets, literals, weights, hard marks) and the
    // subfunctions built from them.
    let what = format!("3-SAT of n = {n}, m = {m}");
    memory::ensure(n as u128 + 29 * m as u128 + Subfunctions::bytes_beyond_arrays(n, m, 3 * m), &what)?;
    let mut rng = SplitMix64::stream(seed, streams::PLANTED_SAT);
    let mut planted = memory::vec_with_capacity(n, &what)?;
    planted.extend((0..n).map(|_| rng.coin() as u8));
    let mut lits: Vec<u32> = memory::vec_with_capacity(3 * m, &what)?;
    for _ in 0..m {
        let mut vars = [0u32; 3];
        let mut drawn = 0;
        while drawn < 3 {
            let v = rng.index(n) as u32;
            if !vars[..drawn].contains(&v) {
                vars[drawn] = v;
                drawn += 1;
            }
        }
        // Literal 2v + 1 (not x_v) holds when x_v = 0: a literal holds when its low bit
        // differs from the gene.
        let clause = loop {
            let clause = vars.map(|v| 2 * v + rng.coin() as u32);
            if clause.iter().any(|&lit| planted[(lit >> 1) as usize] != (lit & 1) as u8) {
                break clause;
            }
        };
        lits.extend_from_slice(&clause);
    }
    let mut lit_offsets = memory::vec_with_capacity(m + 1, &what)?;
    lit_offsets.extend((0..=m as u32).map(|s| 3 * s));
    let weights = memory::vec_filled(1i64, m, &what)?;
    let hard = memory::vec_filled(false, m, &what)?;
    let mut problem = MaxSat::from_arrays(
        format!("sat3-n{n}-m{m}-s{seed}"),
        SatFormat::Cnf,
        n,
        lit_offsets,
        lits,
        weights,
        hard,
        None,
        &StopCheck::never(),
    )?;
    problem.optimum = Some(m as i64);
    debug_assert_eq!(problem.evaluate(&planted), m as i64);
    Ok((problem, planted))
}
