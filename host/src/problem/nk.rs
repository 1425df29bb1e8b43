//! NK landscapes (the tables kind), every table value an integer drawn uniformly from [0, 10^6)
//! (as CWI's GOMEA generates them, in integers so that fitness is exact), in two neighbourhoods:
//!
//! - adjacent ([`sliding_window`]): `n` variables and `n - k + 1` subfunctions, subfunction i
//!   reading the `k` consecutive variables i..i+k-1. Without wrap-around, the optimum follows
//!   exactly by dynamic programming over the windows, which [`optimum`] computes with a genotype
//!   that attains it;
//! - random ([`random_neighbourhood`]): `n` subfunctions, subfunction i reading variable i and
//!   `k - 1` other distinct variables drawn at random. Finding its optimum is NP-hard for k >= 3;
//!   none is claimed.

use pgomea_device::rng::{SplitMix64, streams};

use super::tables::TableProblem;
use super::{GrayBoxProblem, KindArrays, Subfunctions};
use crate::error::{Error, Result};
use pgomea_device::problem::MAX_TABLE_ARITY;

/// Table values are drawn from 0..VALUES.
pub const VALUES: u32 = 1_000_000;

/// A sliding-window NK landscape of `n` variables and windows of `k`, from `seed`, with its
/// optimum.
pub fn sliding_window(n: usize, k: usize, seed: u64) -> Result<TableProblem> {
    if k == 0 || k > MAX_TABLE_ARITY as usize {
        return Err(Error::usage(format!("NK: k = {k}; k must be 1 to {MAX_TABLE_ARITY} (a table has 2^k entries)")));
    }
    if n < k {
        return Err(Error::usage(format!("NK: n = {n} variables cannot hold a window of k = {k}")));
    }
    if n > u32::MAX as usize / 2 || (n - k + 1).saturating_mul(1 << k) > u32::MAX as usize {
        return Err(Error::usage(format!(
            "NK: n = {n}, k = {k} is more than this program supports (2^32 table entries)"
        )));
    }
    // The tables twice (as built and as checked arrays) and the optimum's choice bits.
    let bytes = (n - k + 1) as u128 * (96 + 8 * k as u128 + 16 * (1u128 << k));
    super::memory::ensure(bytes, &format!("an NK landscape of n = {n}, k = {k}"))?;
    let mut rng = SplitMix64::stream(seed, streams::NK_SLIDING);
    let subfunctions: Vec<(Vec<u32>, Vec<i64>)> = (0..n - k + 1)
        .map(|i| ((i as u32..(i + k) as u32).collect(), (0..1 << k).map(|_| rng.below(VALUES) as i64).collect()))
        .collect();
    let mut problem = TableProblem::new(format!("nk-n{n}-k{k}-s{seed}"), "nk", n, &subfunctions, None)?;
    let (value, witness) = optimum(problem.functions()).expect("a sliding-window NK landscape");
    debug_assert_eq!(problem.evaluate(&witness), value);
    problem.optimum = Some(value);
    Ok(problem)
}

/// An NK landscape of `n` variables with random neighbourhoods, from `seed`: subfunction i reads
/// variable i (the most significant bit of its table index) and `k - 1` other distinct variables
/// drawn uniformly, in the order drawn. Its optimum is unknown.
pub fn random_neighbourhood(n: usize, k: usize, seed: u64) -> Result<TableProblem> {
    if k == 0 || k > MAX_TABLE_ARITY as usize {
        return Err(Error::usage(format!("NK: k = {k}; k must be 1 to {MAX_TABLE_ARITY} (a table has 2^k entries)")));
    }
    if n < k {
        return Err(Error::usage(format!(
            "NK: n = {n} variables cannot give a subfunction k = {k} distinct variables"
        )));
    }
    if n > u32::MAX as usize / 2 || n.saturating_mul(1 << k) > u32::MAX as usize {
        return Err(Error::usage(format!(
            "NK: n = {n}, k = {k} is more than this program supports (2^32 table entries)"
        )));
    }
    let mut rng = SplitMix64::stream(seed, streams::NK_RANDOM);
    let subfunctions: Vec<(Vec<u32>, Vec<i64>)> = (0..n)
        .map(|i| {
            let mut vars = vec![i as u32];
            while vars.len() < k {
                // k <= 16, so a rejected draw is rare unless n is close to k.
                let v = rng.index(n) as u32;
                if !vars.contains(&v) {
                    vars.push(v);
                }
            }
            let table = (0..1 << k).map(|_| rng.below(VALUES) as i64).collect();
            (vars, table)
        })
        .collect();
    TableProblem::new(format!("nk-random-n{n}-k{k}-s{seed}"), "nk", n, &subfunctions, None)
}

/// The optimum of table subfunctions that are sliding windows (subfunction i reads the k
/// consecutive variables i..i+k-1 in order, `l - k + 1` of them), with a genotype attaining it;
/// `None` for any other structure. Dynamic programming over the windows: after window i, the
/// state is the genes of its last k - 1 variables; time O(l 2^k), memory one bit per (window,
/// state) to recover the genotype.
pub fn optimum(f: &Subfunctions) -> Option<(i64, Vec<u8>)> {
    let KindArrays::Tables { var_offsets, vars, table_offsets, values } = f.arrays() else { return None };
    let (l, m) = (f.variables(), f.len());
    let k = vars.len().checked_div(m)?;
    if k == 0 || k > l || m != l - k + 1 {
        return None;
    }
    for s in 0..m {
        if (var_offsets[s + 1] - var_offsets[s]) as usize != k
            || (0..k).any(|t| vars[var_offsets[s] as usize + t] as usize != s + t)
        {
            return None;
        }
    }
    // Window s's table index holds x_s as its top bit (k-1) down to x_(s+k-1) as bit 0. The
    // state after window s is its index's low k-1 bits (the genes of s+1..s+k-1); window s's
    // index is (x_s << (k-1) | state after s), and the state before it is index >> 1.
    let states = 1usize << (k - 1);
    let table = |s: usize, index: usize| values[table_offsets[s] as usize + index];
    // best[state]: the best sum of the windows so far that ends in `state`; for window 0 it
    // takes the better x_0 (remembered in `top`), for later windows the better dropped gene x_s
    // (one bit per window and state in `choice`).
    let mut top = vec![0u8; states];
    let mut best: Vec<i64> = (0..states)
        .map(|state| {
            let (a, b) = (table(0, state), table(0, states | state));
            top[state] = (b > a) as u8;
            a.max(b)
        })
        .collect();
    let mut choice = vec![0u64; (m * states).div_ceil(64)];
    let mut next = vec![0i64; states];
    for s in 1..m {
        for (state, slot) in next.iter_mut().enumerate() {
            let (i0, i1) = (state, states | state);
            let (a, b) = (best[i0 >> 1] + table(s, i0), best[i1 >> 1] + table(s, i1));
            *slot = a.max(b);
            if b > a {
                let bit = s * states + state;
                choice[bit / 64] |= 1 << (bit % 64);
            }
        }
        std::mem::swap(&mut best, &mut next);
    }
    let (mut state, &value) = best.iter().enumerate().max_by_key(|&(st, v)| (*v, std::cmp::Reverse(st)))?;
    // Walk back from the last window: its state is the genes of the last k-1 variables.
    let mut x = vec![0u8; l];
    for t in 0..k - 1 {
        x[l - 1 - t] = ((state >> t) & 1) as u8;
    }
    for s in (1..m).rev() {
        let bit = s * states + state;
        let dropped = ((choice[bit / 64] >> (bit % 64)) & 1) as usize;
        x[s] = dropped as u8;
        state = (dropped << (k - 1) | state) >> 1;
    }
    x[0] = top[state];
    Some((value, x))
}
