//! Concatenated deceptive traps (the tables kind): `blocks` subfunctions of `k` variables each,
//! every variable in exactly one block. A block with u of its k genes at 1 is worth k when u = k,
//! else k - 1 - u: every step towards all ones loses until the last one, so an optimiser that does
//! not mix a whole block at once is led to all zeros. The optimum, blocks * k, is all ones (the
//! file states it, `o`).
//!
//! Block b reads the variables b*k .. b*k+k-1, or with `shuffle` the k variables at those places
//! of a seeded random permutation, so that linked variables are not neighbours and no linkage
//! model can profit from the order of the variables.

use pgomea_device::problem::MAX_TABLE_ARITY;
use pgomea_device::rng::{SplitMix64, streams};

use crate::error::{Error, Result};
use crate::problem::tables::{TableArrays, TableProblem};
use crate::problem::{Subfunctions, memory};
use crate::stop::StopCheck;

/// The value of a trap of `k` genes with `ones` of them at 1.
pub fn trap_value(k: usize, ones: usize) -> i64 {
    if ones == k { k as i64 } else { (k - 1 - ones) as i64 }
}

/// Concatenated traps of size `k` over `blocks` blocks (`blocks * k` variables), the blocks
/// adjacent or (with `shuffle`) a random assignment drawn from `seed`, with the optimum. The
/// memory is checked before anything is allocated.
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::problem::trap::{concatenated, trap_value};
/// let problem = concatenated(4, 3, 9, true)?;
/// assert_eq!((problem.variables(), problem.known_optimum()), (12, Some(12)));
/// assert_eq!(problem.evaluate(&[1; 12]), 12); // the optimum: all ones
/// assert_eq!(problem.evaluate(&[0; 12]), 3 * trap_value(4, 0)); // the deceptive attractor: 9
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn concatenated(k: usize, blocks: usize, seed: u64, shuffle: bool) -> Result<TableProblem> {
    if k == 0 || k > MAX_TABLE_ARITY as usize {
        return Err(Error::usage(format!("trap: k = {k}; k must be 1 to {MAX_TABLE_ARITY} (a table has 2^k entries)")));
    }
    let l = blocks.checked_mul(k).filter(|&l| blocks >= 1 && l <= u32::MAX as usize / 2).ok_or_else(|| {
        Error::usage(format!("trap: {blocks} blocks of {k}: expected 1 to {} variables in all", u32::MAX / 2))
    })?;
    if blocks.saturating_mul(1 << k) > u32::MAX as usize {
        return Err(Error::usage(format!("trap: {blocks} blocks of k = {k} need more than 2^32 table entries")));
    }
    let what = format!("{blocks} traps of k = {k}");
    // The arrays of the tables kind and the subfunctions built from them.
    let arrays = blocks as u128 * (8 * (1u128 << k) + 4 * k as u128 + 8);
    memory::ensure(arrays + Subfunctions::bytes_beyond_arrays(l, blocks, l), &what)?;
    let mut vars: Vec<u32> = memory::vec_with_capacity(l, &what)?;
    vars.extend(0..l as u32);
    if shuffle {
        SplitMix64::stream(seed, streams::TRAP_SHUFFLE).shuffle(&mut vars);
    }
    // Index bit k-1-t is the gene of the block's t-th variable; the value depends on the count alone.
    let table: Vec<i64> = (0..1usize << k).map(|i| trap_value(k, i.count_ones() as usize)).collect();
    let mut values = memory::vec_with_capacity(blocks << k, &what)?;
    for _ in 0..blocks {
        values.extend_from_slice(&table);
    }
    let mut var_offsets = memory::vec_with_capacity(blocks + 1, &what)?;
    var_offsets.extend((0..=blocks).map(|b| (b * k) as u32));
    let mut table_offsets = memory::vec_with_capacity(blocks, &what)?;
    table_offsets.extend((0..blocks).map(|b| (b << k) as u32));
    let name = if shuffle { format!("trap-k{k}-b{blocks}-s{seed}-shuffled") } else { format!("trap-k{k}-b{blocks}") };
    let arrays = TableArrays { var_offsets, vars, table_offsets, values };
    TableProblem::from_arrays(name, "trap", l, arrays, Some((blocks * k) as i64), &StopCheck::never())
}
