//! A colouring of linkage sets and its colour groups: the groups, their sizes, and the checks
//! that no two sets of one group conflict (against a built LMIG, or against the FOS and the
//! problem directly).

use std::fmt;

use super::lmig::Lmig;
use crate::linkage::fos::Fos;
use crate::problem::GrayBoxProblem;
use crate::stop::{StopCheck, StopReason, WORK_PER_CHECK};

/// A colouring of the LMIG: `colors[i]` is the colour of set i, all below `num_colors`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coloring {
    pub(crate) colors: Vec<u32>,
    pub(crate) num_colors: usize,
}

/// Summary of a colouring: the number of colours and the sizes of the colour groups
/// (`median_group` is the lower median).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColoringStats {
    pub(crate) num_colors: usize,
    pub(crate) min_group: usize,
    pub(crate) median_group: usize,
    pub(crate) max_group: usize,
}

impl fmt::Display for ColoringStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} colours, group sizes min {} median {} max {}",
            self.num_colors, self.min_group, self.median_group, self.max_group
        )
    }
}

impl Coloring {
    /// The colouring that gives set i `colors[i]`, with as many colours as the largest needs.
    pub(super) fn from_colors(colors: Vec<u32>) -> Coloring {
        let num_colors = colors.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        Coloring { colors, num_colors }
    }

    /// The sets of each colour in flat form: colour c holds `members[offsets[c]..offsets[c+1]]`,
    /// ascending (the groups of [`Coloring::groups`] one after another); checked every
    /// [`WORK_PER_CHECK`] sets (10^8 variables' colours take a large fraction of a second).
    pub fn flat_groups(&self, stop: &StopCheck) -> Result<(Vec<u32>, Vec<u32>), StopReason> {
        let mut offsets = vec![0u32; self.num_colors + 1];
        for (i, &c) in self.colors.iter().enumerate() {
            stop.every(i, WORK_PER_CHECK)?;
            offsets[c as usize + 1] += 1;
        }
        for c in 0..self.num_colors {
            offsets[c + 1] += offsets[c];
        }
        let mut fill = offsets.clone();
        // Zeroed by the system as the loop below first touches it.
        let mut members = vec![0u32; self.colors.len()];
        for (i, &c) in self.colors.iter().enumerate() {
            if let Err(reason) = stop.every(i, WORK_PER_CHECK) {
                crate::stop::drop_aside(members);
                return Err(reason);
            }
            members[fill[c as usize] as usize] = i as u32;
            fill[c as usize] += 1;
        }
        Ok((offsets, members))
    }

    /// The sets of each colour, ascending; one group per colour 0..num_colors.
    pub fn groups(&self) -> Vec<Vec<u32>> {
        // Each group allocated once, at its size: one colour may hold 10^8 sets.
        let mut sizes = vec![0usize; self.num_colors];
        for &c in &self.colors {
            sizes[c as usize] += 1;
        }
        let mut groups: Vec<Vec<u32>> = sizes.into_iter().map(Vec::with_capacity).collect();
        for (i, &c) in self.colors.iter().enumerate() {
            groups[c as usize].push(i as u32);
        }
        groups
    }

    /// Checks that the colouring covers the LMIG, every colour is below `num_colors`, and no two
    /// adjacent sets share a colour.
    pub fn validate(&self, lmig: &Lmig) -> Result<(), String> {
        if self.colors.len() != lmig.len() {
            return Err(format!("{} colours for {} linkage sets", self.colors.len(), lmig.len()));
        }
        for (i, &c) in self.colors.iter().enumerate() {
            if c as usize >= self.num_colors {
                return Err(format!("set {i} has colour {c}, out of range 0..{}", self.num_colors));
            }
            if let Some(&j) = lmig.neighbours(i).iter().find(|&&j| self.colors[j as usize] == c) {
                return Err(format!("conflicting sets {i} and {j} share colour {c}"));
            }
        }
        Ok(())
    }

    /// Whether no two sets of one colour conflict in `lmig`.
    pub fn is_valid(&self, lmig: &Lmig) -> bool {
        self.validate(lmig).is_ok()
    }

    /// The number of colours and the sizes of the colour groups.
    pub fn stats(&self) -> ColoringStats {
        let mut sizes = vec![0usize; self.num_colors];
        for &c in &self.colors {
            sizes[c as usize] += 1;
        }
        sizes.sort_unstable();
        ColoringStats {
            num_colors: self.num_colors,
            min_group: sizes.first().copied().unwrap_or(0),
            median_group: if sizes.is_empty() { 0 } else { sizes[(sizes.len() - 1) / 2] },
            max_group: sizes.last().copied().unwrap_or(0),
        }
    }
}

/// A set that no colour is given yet.
pub(super) const UNCOLORED: u32 = u32::MAX;

/// Checks groups of linkage sets against the FOS and the problem, without an LMIG: within each
/// group, no variable belongs to two sets and no subfunction reads variables of two different
/// sets.
/// Also refuses set indices out of range and a set listed twice (in one group or in two).
pub fn check_groups_independent(groups: &[Vec<u32>], fos: &Fos, problem: &dyn GrayBoxProblem) -> Result<(), String> {
    let l = problem.variables();
    // owner_group[v] = g + 1 and owner_set[v] = s: variable v belongs to set s of group g.
    let mut owner_group = vec![0u32; l];
    let mut owner_set = vec![0u32; l];
    let mut listed = vec![false; fos.len()];
    for (g, group) in groups.iter().enumerate() {
        let gs = g as u32 + 1;
        for &s in group {
            let set = ((s as usize) < fos.len())
                .then(|| fos.set(s as usize))
                .ok_or_else(|| format!("group {g}: set {s} does not exist"))?;
            if std::mem::replace(&mut listed[s as usize], true) {
                return Err(format!("group {g}: set {s} is listed twice"));
            }
            for &v in set {
                let v = v as usize;
                if v >= l {
                    return Err(format!("set {s} holds variable {v}, out of range 0..{l}"));
                }
                if owner_group[v] == gs && owner_set[v] != s {
                    return Err(format!("group {g}: sets {} and {s} share variable {v}", owner_set[v]));
                }
                owner_group[v] = gs;
                owner_set[v] = s;
            }
        }
        for &s in group {
            for &v in fos.set(s as usize) {
                for &e in problem.dependent_subfunctions(v as usize) {
                    for &u in problem.subfunction_variables(e as usize) {
                        let u = u as usize;
                        if owner_group[u] == gs && owner_set[u] != s {
                            return Err(format!(
                                "group {g}: sets {s} and {} both meet subfunction {e} (variables {v} and {u})",
                                owner_set[u]
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
