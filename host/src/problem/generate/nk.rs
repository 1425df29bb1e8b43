//! NK landscapes (the tables kind), every table value an integer drawn uniformly from [0, 10^6)
//! (as CWI's GOMEA generates them, in integers so that fitness is exact), in two neighbourhoods:
//!
//! - adjacent ([`sliding_window`]): `n` variables and `n - k + 1` subfunctions, subfunction i
//!   reading the `k` consecutive variables i..i+k-1. Without wrap-around, the optimum follows
//!   exactly by dynamic programming over the windows
//!   ([`sliding_window_optimum`](crate::problem::tables::sliding_window_optimum), with a genotype that
//!   attains it), and the file states it (`o`);
//! - random ([`random_neighbourhood`]): `n` subfunctions, subfunction i reading variable i and
//!   `k - 1` other distinct variables drawn at random. Finding its optimum is NP-hard for k >= 3;
//!   none is claimed (for k = 1 it is exact, as for any windows of one variable).
//!
//! Both check the memory their arrays take before they allocate them.

use pgomea_device::rng::{SplitMix64, streams};

use crate::error::{Error, Result};
use crate::problem::tables::{TableArrays, TableProblem};
use crate::problem::{Subfunctions, memory};
use crate::stop::StopCheck;
use pgomea_device::problem::MAX_TABLE_ARITY;

/// Table values are drawn from 0..VALUES.
pub const VALUES: u32 = 1_000_000;

/// Refuses `k` outside 1..=16, fewer than `k` variables (`too_few` says why, `{k}` standing for
/// k), and `m` subfunctions of k variables
/// beyond the kind's 32-bit indices or the memory left (`extra` bytes more are needed).
fn check(n: usize, k: usize, m: usize, extra: u128, too_few: &str) -> Result<()> {
    if k == 0 || k > MAX_TABLE_ARITY as usize {
        return Err(Error::usage(format!("NK: k = {k}; k must be 1 to {MAX_TABLE_ARITY} (a table has 2^k entries)")));
    }
    if n < k {
        return Err(Error::usage(format!("NK: n = {n} variables {}", too_few.replace("{k}", &k.to_string()))));
    }
    if n > u32::MAX as usize / 2 || m.saturating_mul(1 << k) > u32::MAX as usize {
        return Err(Error::usage(format!(
            "NK: n = {n}, k = {k} is more than this program supports (2^32 table entries)"
        )));
    }
    // The arrays of the tables kind, and the subfunctions built from them.
    let arrays = m as u128 * (8 * (1u128 << k) + 4 * k as u128 + 8);
    memory::ensure(
        arrays + Subfunctions::bytes_beyond_arrays(n, m, m * k) + extra,
        &format!("an NK landscape of n = {n}, k = {k}"),
    )
}

/// A sliding-window NK landscape of `n` variables and windows of `k`, from `seed`, with its
/// optimum.
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// let problem = pgomea::problem::nk::sliding_window(12, 3, 5)?;
/// assert_eq!((problem.variables(), problem.subfunctions()), (12, 10));
/// // The optimum (by dynamic programming) is that of all 2^12 genotypes.
/// let best = (0..1u32 << 12)
///     .map(|i| problem.evaluate(&(0..12).map(|v| (i >> v & 1) as u8).collect::<Vec<u8>>()))
///     .max();
/// assert_eq!(problem.known_optimum(), best);
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn sliding_window(n: usize, k: usize, seed: u64) -> Result<TableProblem> {
    let m = n.saturating_sub(k) + 1;
    // The dynamic programming's choice bits and the genotype it returns.
    check(n, k, m, ((m as u128) << k) / 16 + n as u128, "cannot hold a window of k = {k}")?;
    let mut rng = SplitMix64::stream(seed, streams::NK_SLIDING);
    let mut vars = memory::vec_with_capacity(m * k, WHAT)?;
    vars.extend((0..m).flat_map(|s| s as u32..(s + k) as u32));
    let mut values = memory::vec_with_capacity(m << k, WHAT)?;
    values.extend((0..m << k).map(|_| rng.below(VALUES) as i64));
    landscape(format!("nk-n{n}-k{k}-s{seed}"), n, k, vars, values)
}

/// An NK landscape of `n` variables with random neighbourhoods, from `seed`: subfunction i reads
/// variable i (the most significant bit of its table index) and `k - 1` other distinct variables
/// drawn uniformly, in the order drawn. Its optimum is unknown (but for k = 1: each variable alone).
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// let problem = pgomea::problem::nk::random_neighbourhood(10, 3, 1)?;
/// assert_eq!((problem.subfunctions(), problem.known_optimum()), (10, None));
/// // Subfunction i reads variable i first, then 2 others.
/// for s in 0..10 {
///     let vars = problem.subfunction_variables(s);
///     assert_eq!((vars.len(), vars[0]), (3, s as u32));
/// }
/// // k outside 1..=16 is refused.
/// assert!(pgomea::problem::nk::random_neighbourhood(10, 0, 1).unwrap_err().to_string().contains("k must be 1 to 16"));
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn random_neighbourhood(n: usize, k: usize, seed: u64) -> Result<TableProblem> {
    check(n, k, n, 0, "cannot give a subfunction k = {k} distinct variables")?;
    let mut rng = SplitMix64::stream(seed, streams::NK_RANDOM);
    let mut vars: Vec<u32> = memory::vec_with_capacity(n * k, WHAT)?;
    let mut values = memory::vec_with_capacity(n << k, WHAT)?;
    for i in 0..n {
        let first = vars.len();
        vars.push(i as u32);
        while vars.len() - first < k {
            // k <= 16, so a rejected draw is rare unless n is close to k.
            let v = rng.index(n) as u32;
            if !vars[first..].contains(&v) {
                vars.push(v);
            }
        }
        values.extend((0..1 << k).map(|_| rng.below(VALUES) as i64));
    }
    landscape(format!("nk-random-n{n}-k{k}-s{seed}"), n, k, vars, values)
}

/// What the generators' messages call their arrays.
const WHAT: &str = "an NK landscape";

/// The NK landscape of `n` variables whose subfunctions read `k` variables each (`vars`, k per
/// subfunction) and have the tables `values` (2^k per subfunction), with the exact optimum when
/// the subfunctions are sliding windows.
fn landscape(name: String, n: usize, k: usize, vars: Vec<u32>, values: Vec<i64>) -> Result<TableProblem> {
    let m = vars.len() / k;
    let mut var_offsets = memory::vec_with_capacity(m + 1, WHAT)?;
    var_offsets.extend((0..=m).map(|s| (s * k) as u32));
    let mut table_offsets = memory::vec_with_capacity(m, WHAT)?;
    table_offsets.extend((0..m).map(|s| (s << k) as u32));
    let arrays = TableArrays { var_offsets, vars, table_offsets, values };
    let mut problem = TableProblem::from_arrays(name, "nk", n, arrays, None, &StopCheck::never())?;
    // Sliding windows (every adjacent landscape; a random one of k = 1) are solved exactly.
    problem.settle_optimum(None).map_err(Error::usage)?;
    Ok(problem)
}
