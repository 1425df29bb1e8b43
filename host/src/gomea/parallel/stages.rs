//! The six stages of parallel GOM (DESIGN.md section 5) as plain functions over one solution's
//! rows of the flat arrays. The CPU backend runs them for all solutions on many threads; each CUDA
//! kernel in `device/src/kernels/gom.rs` computes exactly the same elements with the same pure
//! functions of `pgomea_device::gom`, so both backends agree bit for bit.
//!
//! Row shapes for a group with G slots and D dependent entries: `donors`, `delta`, `mask` have G
//! elements, `diff` has D. `offspring` is O[i] (the solution being mixed), `work` is O'[i] (its
//! working copy, equal to O[i] between groups), `parents` is the whole population P of the
//! generation's start (the donors).

use pgomea_device::gom::{DonorOrder, NO_DONOR, accept, edge_delta};

use super::layout::GroupLayout;
use crate::problem::maxcut::MaxCut;

/// The counter coordinates shared by every random draw of one group in one generation.
#[derive(Clone, Copy, Debug)]
pub struct GroupKey {
    pub seed: u64,
    pub generation: u32,
    pub group: u32,
    /// The group's position in the generation's order (the CUDA kernels look the group up there).
    pub step: u32,
}

/// Stage 1, donor selection: for each slot, the first candidate (in the counter-drawn order)
/// other than the solution itself whose genes differ from O[i] on the set, or NO_DONOR.
pub fn select_donors(layout: &GroupLayout, key: GroupKey, n: usize, i: usize, parents: &[u8], offspring: &[u8], donors: &mut [i32]) {
    let l = layout.variables;
    for (j, slot) in layout.slots(key.group as usize).enumerate() {
        let vars = layout.set_vars(slot);
        let order = DonorOrder::new(key.seed, key.generation, key.group, i as u32, layout.slot_set[slot], n as u32);
        donors[j] = NO_DONOR;
        for k in 0..n as u32 {
            let d = order.candidate(k) as usize;
            if d == i {
                continue;
            }
            let donor = &parents[d * l..(d + 1) * l];
            if vars.iter().any(|&v| donor[v as usize] != offspring[v as usize]) {
                donors[j] = d as i32;
                break;
            }
        }
    }
}

/// Stage 2, donor-gene insertion: O'[i] takes the donor's genes on each set that has a donor.
pub fn insert_donor_genes(layout: &GroupLayout, g: usize, parents: &[u8], donors: &[i32], work: &mut [u8]) {
    let l = layout.variables;
    for (j, slot) in layout.slots(g).enumerate() {
        if donors[j] == NO_DONOR {
            continue;
        }
        let donor = &parents[donors[j] as usize * l..(donors[j] as usize + 1) * l];
        for &v in layout.set_vars(slot) {
            work[v as usize] = donor[v as usize];
        }
    }
}

/// Stage 3, subfunction evaluation: the change of every dependent edge between O[i] and O'[i].
pub fn evaluate_dependent(layout: &GroupLayout, g: usize, problem: &MaxCut, offspring: &[u8], work: &[u8], diff: &mut [i64]) {
    let deps = layout.deps(g);
    for (k, &e) in layout.dep_edges[deps].iter().enumerate() {
        let (u, v) = (problem.ends[2 * e as usize] as usize, problem.ends[2 * e as usize + 1] as usize);
        diff[k] = edge_delta(offspring[u], offspring[v], work[u], work[v], problem.weights[e as usize]);
    }
}

/// Stage 4, segmented reduce-by-key: delta[j] = the sum of the changes of slot j's dependent edges.
pub fn reduce_by_key(layout: &GroupLayout, g: usize, diff: &[i64], delta: &mut [i64]) {
    let slots = layout.slots(g);
    let base = layout.dep_offsets[slots.start] as usize;
    for (j, slot) in slots.enumerate() {
        let seg = layout.dep_offsets[slot] as usize - base..layout.dep_offsets[slot + 1] as usize - base;
        delta[j] = diff[seg].iter().sum();
    }
}

/// Stage 5, improvement mask: the acceptance rule per slot.
pub fn improvement_mask(donors: &[i32], delta: &[i64], is_elitist: bool, mask: &mut [u8]) {
    for j in 0..mask.len() {
        mask[j] = accept(delta[j], donors[j] != NO_DONOR, is_elitist) as u8;
    }
}

/// Stage 6, reset and insert: accepted sets go from O'[i] into O[i] (and their deltas into the
/// fitness), rejected ones are restored in O'[i] from O[i]. Afterwards O[i] == O'[i].
pub fn reset_and_insert(layout: &GroupLayout, g: usize, mask: &[u8], delta: &[i64], offspring: &mut [u8], work: &mut [u8], fitness: &mut i64) {
    for (j, slot) in layout.slots(g).enumerate() {
        let vars = layout.set_vars(slot);
        if mask[j] != 0 {
            for &v in vars {
                offspring[v as usize] = work[v as usize];
            }
            *fitness += delta[j];
        } else {
            for &v in vars {
                work[v as usize] = offspring[v as usize];
            }
        }
    }
}
