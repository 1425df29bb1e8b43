//! Order-1 deception of table subfunctions: whether single flips mislead.
//!
//! A table is deceptive (in Goldberg's sense, of order 1) when it has one maximum and no variable's
//! order-1 schema average points to it: for every variable, the table's entries with the value
//! the maximum does not have average at least as high as those with the value it has. Flipping one
//! variable at a time, as a local search or an annealer does, then leads away from the maximum:
//! a deceptive trap of k >= 3 genes is such a table (its schema averages tie at k = 3), a random
//! NK table almost never is (about 0.5 % of random tables of 6 variables, 0.4 % of 5). `run`
//! decides by it whether new populations are annealed by default ([`crate::solve::config`]).

use crate::problem::{KindArrays, Subfunctions};

/// The most tables the probe reads, evenly spaced over the subfunctions.
pub const PROBED_TABLES: usize = 4096;

/// The most steps (table entries x arity) the probe takes, about 0.1 s: fewer tables are read
/// where they are large (4096 tables of 2^14 entries would take 2^30).
pub const PROBE_STEPS: u64 = 1 << 26;

/// How many of the probed tables are deceptive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deception {
    /// Deceptive tables among those probed.
    pub deceptive: usize,
    /// Tables probed: all, or [`PROBED_TABLES`] evenly spaced.
    pub probed: usize,
}

impl Deception {
    /// Whether at least half of the probed tables are deceptive.
    pub fn mostly(&self) -> bool {
        self.probed > 0 && 2 * self.deceptive >= self.probed
    }
}

/// The order-1 deception of `functions`' tables, or `None` for the other kinds (pairwise terms
/// and clauses are never deceptive: a clause's satisfying literals and an edge's two cut
/// assignments are each one flip apart).
///
/// ```
/// use pgomea::problem::GrayBoxProblem;
/// use pgomea::problem::deception::deception;
/// let traps = pgomea::problem::trap::concatenated(5, 20, 1, true)?;
/// let nk = pgomea::problem::nk::sliding_window(100, 5, 1)?;
/// assert_eq!(deception(traps.functions()).map(|d| (d.deceptive, d.mostly())), Some((20, true)));
/// assert!(!deception(nk.functions()).unwrap().mostly());
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn deception(functions: &Subfunctions) -> Option<Deception> {
    let KindArrays::Tables { var_offsets, table_offsets, values, .. } = functions.arrays() else {
        return None;
    };
    let count = functions.len();
    let arity = |s: usize| (var_offsets[s + 1] - var_offsets[s]) as usize;
    let steps = |s: usize| (1u64 << arity(s)) * arity(s).max(1) as u64;
    // Table i of `n` evenly spaced ones (all of them when n = count).
    let spaced = |i: usize, n: usize| (i as u128 * count as u128 / n as u128) as usize;
    // As many tables as PROBE_STEPS allow at the mean size of 64 of them.
    let sample = count.min(64);
    let mean = (0..sample).map(|i| steps(spaced(i, sample))).sum::<u64>() / sample.max(1) as u64;
    let planned = count.min(PROBED_TABLES).min((PROBE_STEPS / mean.max(1)).max(1) as usize);
    let (mut probed, mut deceptive, mut taken) = (0, 0, 0u64);
    for i in 0..planned {
        let s = spaced(i, planned);
        if probed > 0 && taken + steps(s) > PROBE_STEPS {
            break;
        }
        taken += steps(s);
        probed += 1;
        let start = table_offsets[s] as usize;
        deceptive += usize::from(is_deceptive(&values[start..start + (1 << arity(s))], arity(s)));
    }
    Some(Deception { deceptive, probed })
}

/// Whether `table` (2^`arity` entries, bit `arity - 1 - j` of an entry's index the value of
/// variable j; the order does not matter here) has one maximum to which no variable's order-1
/// schema average points.
pub fn is_deceptive(table: &[i64], arity: usize) -> bool {
    let Some((top, &max)) = table.iter().enumerate().max_by_key(|&(_, v)| *v) else {
        return false;
    };
    if arity == 0 || table.iter().filter(|&&v| v == max).count() > 1 {
        return false;
    }
    (0..arity).all(|bit| {
        // The sums over the two halves (equal in size) compare as their averages do; i128: a
        // table's 2^16 values of up to 2^63 each.
        let (mut ones, mut zeros) = (0i128, 0i128);
        for (index, &v) in table.iter().enumerate() {
            if index >> bit & 1 == 1 { ones += i128::from(v) } else { zeros += i128::from(v) }
        }
        if top >> bit & 1 == 1 { zeros >= ones } else { ones >= zeros }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::GrayBoxProblem;
    use crate::problem::trap::trap_value;

    fn trap_table(k: usize) -> Vec<i64> {
        (0..1usize << k).map(|i| trap_value(k, i.count_ones() as usize)).collect()
    }

    #[test]
    fn traps_are_deceptive_and_onemax_is_not() {
        for k in 3..=8 {
            assert!(is_deceptive(&trap_table(k), k), "trap k = {k}");
            // The maximum moved to all zeros by mirroring: still deceptive.
            let mirrored: Vec<i64> = trap_table(k).into_iter().rev().collect();
            assert!(is_deceptive(&mirrored, k), "mirrored trap k = {k}");
            let onemax: Vec<i64> = (0..1usize << k).map(|i| i.count_ones() as i64).collect();
            assert!(!is_deceptive(&onemax, k), "onemax k = {k}");
        }
        // k = 2: the trap's maximum 11 is worth 2 and 00 worth 1; the averages point to 11.
        assert!(!is_deceptive(&trap_table(2), 2));
        // One maximum needed: a constant table, or two maxima, is not deceptive.
        assert!(!is_deceptive(&[5; 8], 3));
        assert!(!is_deceptive(&[3, 0, 0, 3], 2));
        // One variable pointing to the maximum is enough to make a table not deceptive: a trap
        // in its first variables and that variable's value added strongly.
        let mut t = trap_table(4);
        for (i, v) in t.iter_mut().enumerate() {
            *v += 10 * (i & 1) as i64;
        }
        assert!(!is_deceptive(&t, 4));
    }

    #[test]
    fn instances_of_traps_nk_and_other_kinds() {
        let traps = crate::problem::trap::concatenated(4, 50, 3, true).unwrap();
        assert_eq!(deception(traps.functions()), Some(Deception { deceptive: 50, probed: 50 }));
        for nk in [
            crate::problem::nk::sliding_window(2000, 5, 1).unwrap(),
            crate::problem::nk::random_neighbourhood(2000, 4, 2).unwrap(),
        ] {
            let d = deception(nk.functions()).unwrap();
            assert_eq!(d.probed, nk.subfunctions());
            assert!(d.deceptive < 40, "{d:?}");
            assert!(!d.mostly());
        }
        let graph = crate::problem::maxcut::MaxCut::new(crate::problem::generate::default_instance()).unwrap();
        assert_eq!(deception(graph.functions()), None);
    }

    #[test]
    fn large_tables_are_probed_within_the_step_budget() {
        // 300 traps of 14 genes: 2^14 x 14 steps each, so 292 fit in PROBE_STEPS.
        let traps = crate::problem::trap::concatenated(14, 300, 1, true).unwrap();
        let d = deception(traps.functions()).unwrap();
        assert_eq!(d.probed as u64, PROBE_STEPS / ((1 << 14) * 14));
        assert_eq!(d.deceptive, d.probed);
    }

    #[test]
    fn large_instances_are_probed_evenly() {
        let traps = crate::problem::trap::concatenated(3, 10_000, 1, true).unwrap();
        assert_eq!(deception(traps.functions()), Some(Deception { deceptive: PROBED_TABLES, probed: PROBED_TABLES }));
    }
}
