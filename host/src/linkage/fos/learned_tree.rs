//! The learned linkage tree (LT): UPGMA over the mutual information of every pair of variables
//! in a population, on a dense matrix by the nearest-neighbour chain
//! ([`Fos::learned_linkage_tree`](super::Fos::learned_linkage_tree) says what it builds and how).

use std::cmp::Ordering;

use pgomea_device::rng::SplitMix64;
use rayon::prelude::*;

/// The sets of the learned linkage tree of the `n` solutions in `genes`
/// ([`Fos::learned_linkage_tree`](super::Fos::learned_linkage_tree) says how).
pub(super) fn linkage_tree(genes: &[u8], n: usize, l: usize, rng: &mut SplitMix64) -> Vec<Vec<u32>> {
    let mut sets: Vec<Vec<u32>> = (0..l as u32).map(|i| vec![i]).collect();
    if l <= 1 {
        return sets;
    }
    let sim = mutual_information(genes, n, l);
    let merges = upgma_nn_chain(sim, l, rng);
    // Replay the merges: slot a holds the merged cluster.
    let mut set_of: Vec<usize> = (0..l).collect();
    let mut merges: Vec<(f32, Vec<u32>)> = merges
        .into_iter()
        .map(|(height, a, b)| {
            let members = union_sorted(&sets[set_of[a]], &sets[set_of[b]]);
            set_of[a] = sets.len();
            sets.push(members.clone());
            (height, members)
        })
        .collect();
    // Relist the merges in decreasing similarity; the stable sort keeps a child before its
    // parent at equal heights (the chain creates children first).
    sets.truncate(l);
    merges.sort_by(|x, y| y.0.total_cmp(&x.0));
    for (_, m) in merges {
        if m.len() < l {
            sets.push(m);
        }
    }
    sets
}

/// UPGMA (average linkage, largest similarity first) over a dense symmetric l x l similarity
/// matrix by the nearest-neighbour chain. Returns the merges in the order made, as (similarity,
/// slot a, slot b): the merged cluster takes slot a, slot b dies. Ties: on the chain the previous
/// element wins (the algorithm needs it), otherwise the lower of a random rank per variable; a
/// chain starts at the live cluster of lowest rank. Searches scan a whole row sequentially (dead
/// slots are skipped by a flag, looked at only for values that could win); the Lance-Williams
/// update combines two whole rows and then writes the merged cluster's column.
fn upgma_nn_chain(mut s: Vec<f32>, l: usize, rng: &mut SplitMix64) -> Vec<(f32, usize, usize)> {
    assert_eq!(s.len(), l * l);
    let mut rank: Vec<u32> = (0..l as u32).collect();
    rng.shuffle(&mut rank);
    let mut size: Vec<f64> = vec![1.0; l];
    let mut alive = vec![true; l];
    let mut live: Vec<usize> = (0..l).collect(); // the live slots, ascending (rebuilt now and then)
    let mut live_count = l;
    let mut chain: Vec<usize> = Vec::with_capacity(l);
    let mut merges = Vec::with_capacity(l.saturating_sub(1));
    while live_count > 1 {
        if chain.is_empty() {
            // Start a chain at the live cluster of lowest random rank.
            chain.push((0..l).filter(|&c| alive[c]).min_by_key(|&c| rank[c]).unwrap());
        }
        loop {
            let a = *chain.last().unwrap();
            let prev = if chain.len() >= 2 { chain[chain.len() - 2] } else { usize::MAX };
            let mut best = usize::MAX;
            let mut best_sim = f32::NEG_INFINITY;
            for (c, &v) in s[a * l..(a + 1) * l].iter().enumerate() {
                // Cheap test first: most entries cannot win.
                if v < best_sim || !alive[c] || c == a {
                    continue;
                }
                let better = if v != best_sim {
                    true
                } else if best == prev {
                    false
                } else {
                    // Equal: the chain predecessor wins, else the lower random rank.
                    c == prev || rank[c] < rank[best]
                };
                if better {
                    best = c;
                    best_sim = v;
                }
            }
            if best == prev {
                break;
            }
            chain.push(best);
        }
        let b = chain.pop().unwrap();
        let a = chain.pop().unwrap();
        let height = s[a * l + b];
        // Lance-Williams on the whole row a (entries of dead slots are never read), in f64 then
        // rounded: the result stays between the two f32 inputs, so the update is exactly
        // reducible and the chain stays valid.
        let (na, nb) = (size[a], size[b]);
        let (wa, wb) = (na / (na + nb), nb / (na + nb));
        {
            let (ra, rb) = if a < b {
                let (lo, hi) = s.split_at_mut(b * l);
                (&mut lo[a * l..(a + 1) * l], &hi[..l])
            } else {
                let (lo, hi) = s.split_at_mut(a * l);
                (&mut hi[..l], &lo[b * l..(b + 1) * l])
            };
            for (x, &y) in ra.iter_mut().zip(rb.iter()) {
                *x = (wa * *x as f64 + wb * y as f64) as f32;
            }
        }
        size[a] = na + nb;
        alive[b] = false;
        live_count -= 1;
        if live.len() >= 2 * live_count {
            live.retain(|&c| alive[c]);
        }
        // Column a, for the live slots.
        for &c in &live {
            if alive[c] && c != a {
                s[c * l + a] = s[a * l + c];
            }
        }
        merges.push((height, a, b));
    }
    merges
}

/// The union of two sorted lists of distinct values (disjoint in the trees, but not assumed).
pub(super) fn union_sorted(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The mutual information of every pair of variables in a population, as a dense row-major l x l
/// matrix (diagonal 0). Joint frequencies come from bit columns and popcounts.
fn mutual_information(genes: &[u8], n: usize, l: usize) -> Vec<f32> {
    let mut mi = vec![0f32; l * l];
    if n == 0 {
        return mi;
    }
    let words = n.div_ceil(64);
    // Column bitsets: bit k of column v is solution k's gene v.
    let mut cols = vec![0u64; l * words];
    for k in 0..n {
        let row = &genes[k * l..(k + 1) * l];
        for (v, &g) in row.iter().enumerate() {
            if g != 0 {
                cols[v * words + k / 64] |= 1 << (k % 64);
            }
        }
    }
    let ones: Vec<u32> =
        (0..l).map(|v| cols[v * words..(v + 1) * words].iter().map(|w| w.count_ones()).sum()).collect();
    // MI = H(X) + H(Y) - H(X,Y) with every entropy from counts: H = ln n - (1/n) sum c ln c, so a
    // table of c ln c (0 ln 0 = 0) replaces every logarithm.
    let clnc: Vec<f64> = (0..=n).map(|c| if c == 0 { 0.0 } else { c as f64 * (c as f64).ln() }).collect();
    let (nf, nu) = (n as f64, n as u32);
    let ln_n = nf.ln();
    let marginal: Vec<f64> = ones.iter().map(|&c| clnc[c as usize] + clnc[(nu - c) as usize]).collect();
    // The upper triangle, rows in parallel...
    mi.par_chunks_mut(l).enumerate().for_each(|(i, row)| {
        let ci = &cols[i * words..(i + 1) * words];
        let n1i = ones[i];
        for j in i + 1..l {
            let cj = &cols[j * words..(j + 1) * words];
            let n11: u32 = ci.iter().zip(cj).map(|(x, y)| (x & y).count_ones()).sum();
            let n10 = n1i - n11;
            let n01 = ones[j] - n11;
            let n00 = nu - n11 - n10 - n01;
            let joint = clnc[n11 as usize] + clnc[n10 as usize] + clnc[n01 as usize] + clnc[n00 as usize];
            let v = ln_n + (joint - marginal[i] - marginal[j]) / nf;
            row[j] = v.max(0.0) as f32;
        }
    });
    // ...then mirrored into the lower one, in tiles (both sides stay in cache).
    const TILE: usize = 64;
    for ib in (0..l).step_by(TILE) {
        for jb in (0..=ib).step_by(TILE) {
            for i in ib..(ib + TILE).min(l) {
                for j in jb..(jb + TILE).min(i) {
                    mi[i * l + j] = mi[j * l + i];
                }
            }
        }
    }
    mi
}

#[cfg(test)]
mod tests {
    use super::super::Fos;
    use super::super::tests::check_tree;
    use super::*;

    fn random_population(n: usize, l: usize, rng: &mut SplitMix64) -> Vec<u8> {
        (0..n * l).map(|_| rng.coin() as u8).collect()
    }

    #[test]
    fn lt_merges_the_linked_pair_first() {
        let mut rng = SplitMix64::new(9);
        for trial in 0..10 {
            let (n, l) = (200 + 37 * trial, 12 + trial);
            let mut genes = random_population(n, l, &mut rng);
            for k in 0..n {
                genes[k * l + 1] = genes[k * l];
                // Variables 4 and 7 are complements: just as linked.
                genes[k * l + 7] = 1 - genes[k * l + 4];
            }
            let fos = Fos::learned_linkage_tree(&genes, n, l, &mut rng);
            assert_eq!(fos.len(), 2 * l - 2);
            check_tree(&fos, l);
            let firsts = [fos.set(l).to_vec(), fos.set(l + 1).to_vec()];
            assert!(firsts.contains(&vec![0, 1]), "{firsts:?}");
            assert!(firsts.contains(&vec![4, 7]), "{firsts:?}");
        }
    }

    #[test]
    fn lt_mutual_information_values() {
        // x0 uniform, x1 = x0, x2 constant, x3 independent of x0 exactly.
        let rows = [[0u8, 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0], [1, 1, 1, 1]];
        let genes: Vec<u8> = rows.iter().flatten().copied().collect();
        let mi = mutual_information(&genes, 4, 4);
        let ln2 = std::f32::consts::LN_2;
        assert!((mi[1] - ln2).abs() < 1e-6 && (mi[4] - ln2).abs() < 1e-6);
        assert!(mi[2].abs() < 1e-7 && mi[3].abs() < 1e-7 && mi[2 * 4 + 3].abs() < 1e-7);
        assert_eq!(mi[0], 0.0);
    }

    #[test]
    fn lt_ties_give_valid_trees_and_depend_on_the_seed() {
        // A constant population: every MI is 0.
        let (n, l) = (10, 20);
        let genes = vec![1u8; n * l];
        let mut distinct = std::collections::HashSet::new();
        for seed in 0..8 {
            let fos = Fos::learned_linkage_tree(&genes, n, l, &mut SplitMix64::new(seed));
            assert_eq!(fos.len(), 2 * l - 2);
            check_tree(&fos, l);
            distinct.insert(fos.sets().map(<[u32]>::to_vec).collect::<Vec<_>>());
        }
        assert!(distinct.len() > 1);
        // Random populations: valid trees, deterministic per seed.
        let mut rng = SplitMix64::new(4);
        for _ in 0..10 {
            let (n, l) = (1 + rng.index(100), 2 + rng.index(40));
            let genes = random_population(n, l, &mut rng);
            let a = Fos::learned_linkage_tree(&genes, n, l, &mut SplitMix64::new(5));
            let b = Fos::learned_linkage_tree(&genes, n, l, &mut SplitMix64::new(5));
            assert_eq!(a, b);
            assert_eq!(a.len(), 2 * l - 2);
            check_tree(&a, l);
        }
    }

    /// Greedy UPGMA, O(l^3), on a dense symmetric l x l similarity matrix: the merged sets in
    /// the order made (the root last), and the smallest gap, over the merges, between the best
    /// pair's similarity and the second best's (near 0: a near-tie could go either way).
    fn greedy_upgma(m: &[f32], l: usize) -> (Vec<Vec<u32>>, f64) {
        let mut clusters: Vec<Vec<u32>> = (0..l as u32).map(|i| vec![i]).collect();
        let mut merged = Vec::new();
        let mut gap = f64::INFINITY;
        let avg = |a: &Vec<u32>, b: &Vec<u32>| -> f64 {
            let mut t = 0.0;
            for &x in a {
                for &y in b {
                    t += m[x as usize * l + y as usize] as f64;
                }
            }
            t / (a.len() * b.len()) as f64
        };
        while clusters.len() > 1 {
            let mut best = (f64::NEG_INFINITY, 0, 0);
            let mut second = f64::NEG_INFINITY;
            for i in 0..clusters.len() {
                for j in i + 1..clusters.len() {
                    let v = avg(&clusters[i], &clusters[j]);
                    if v > best.0 {
                        second = best.0;
                        best = (v, i, j);
                    } else if v > second {
                        second = v;
                    }
                }
            }
            gap = gap.min(best.0 - second);
            let b = clusters.swap_remove(best.2);
            let a = clusters.swap_remove(best.1);
            let u = union_sorted(&a, &b);
            merged.push(u.clone());
            clusters.push(u);
        }
        (merged, gap)
    }

    /// Reference UPGMA: greedy, O(l^3), on the MI matrix; compares the hierarchies (as sets of
    /// sets) when the similarities are distinct.
    #[test]
    fn lt_equals_greedy_upgma() {
        let mut rng = SplitMix64::new(21);
        let mut compared = 0;
        for _ in 0..20 {
            let (n, l) = (64 + rng.index(300), 3 + rng.index(70));
            let genes = random_population(n, l, &mut rng);
            let mi = mutual_information(&genes, n, l);
            let (mut expected, gap) = greedy_upgma(&mi, l);
            expected.pop();
            if gap < 1e-6 {
                continue;
            }
            let fos = Fos::learned_linkage_tree(&genes, n, l, &mut rng);
            assert_eq!(fos.sets_in(l..fos.len()).map(<[u32]>::to_vec).collect::<Vec<_>>(), expected);
            compared += 1;
        }
        assert!(compared >= 5, "only {compared} populations without near-ties");
    }

    #[test]
    fn nn_chain_is_upgma() {
        // Brute-force greedy UPGMA on random symmetric matrices with distinct values: the same
        // hierarchy (as sets of members), and the chain's merge heights sorted are the greedy ones.
        let mut rng = SplitMix64::new(31);
        for trial in 0..30 {
            let l = 2 + rng.index(60);
            let mut m = vec![0f32; l * l];
            for i in 0..l {
                for j in i + 1..l {
                    let v = (rng.next_u64() >> 40) as f32 / 1e6;
                    m[i * l + j] = v;
                    m[j * l + i] = v;
                }
            }
            let merges = upgma_nn_chain(m.clone(), l, &mut SplitMix64::new(trial));
            assert_eq!(merges.len(), l - 1);
            let mut members: Vec<Vec<u32>> = (0..l as u32).map(|i| vec![i]).collect();
            let mut got = std::collections::BTreeSet::new();
            for &(_, a, b) in &merges {
                assert!(!members[a].is_empty() && !members[b].is_empty() && a != b);
                let u = union_sorted(&members[a], &members[b]);
                members[b].clear();
                got.insert(u.clone());
                members[a] = u;
            }
            // Greedy reference.
            let (expected, gap) = greedy_upgma(&m, l);
            if gap >= 1e-4 {
                assert_eq!(got, expected.into_iter().collect(), "trial {trial}");
            }
            // Tied values (few distinct ones): still a full, deterministic hierarchy.
            let q: Vec<f32> = m.iter().map(|v| (v * 4.0).floor()).collect();
            let x = upgma_nn_chain(q.clone(), l, &mut SplitMix64::new(trial));
            assert_eq!(x, upgma_nn_chain(q, l, &mut SplitMix64::new(trial)));
            assert_eq!(x.len(), l - 1);
        }
    }
}
