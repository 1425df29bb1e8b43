//! Colour-grouped local search on the host: the variables' colour groups in flat form (what the
//! layout carries to both backends), and the search of one genotype that serial GOMEA runs,
//! which is the device crate's `stage::local_search`, the code the CPU backend runs per solution
//! and whose flips the GPU runs for all solutions at once.

use pgomea_device::mem::Ptr;
use pgomea_device::problem::Kind;
use pgomea_device::stage::{self, LocalSearch};

use crate::problem::Subfunctions;

/// Variables in colour groups (no subfunction reads two of one group), flat: colour c holds
/// `vars[offsets[c]..offsets[c+1]]`. The device crate's `stage::LocalSearch` points to these and
/// to the problem's incidence.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VariableColors {
    pub offsets: Vec<u32>,
    pub vars: Vec<u32>,
}

impl VariableColors {
    pub fn new(groups: &[Vec<u32>]) -> Self {
        let mut c = VariableColors { offsets: vec![0], vars: Vec::new() };
        for g in groups {
            c.vars.extend_from_slice(g);
            c.offsets.push(c.vars.len() as u32);
        }
        c
    }

    pub fn colors(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

/// The subfunction evaluations of one round of local search of one solution: every variable's
/// subfunctions once, i.e. the sum of the subfunctions' arities.
pub fn evaluations_per_round(f: &Subfunctions) -> u64 {
    (0..f.len()).map(|s| f.variables_of(s).len() as u64).sum()
}

/// Local search of `x` to a local optimum (no single flip improves it), colour after colour:
/// returns the gain in fitness and the number of rounds.
///
/// # Safety
///
/// `kind` is the kind of `f` (from its `with_kind`), `colors` colours the variables of `f`, and
/// `x` holds its l genes.
pub unsafe fn search<K: Kind>(kind: &K, f: &Subfunctions, colors: &VariableColors, x: &mut [u8]) -> (i64, u64) {
    let (var_offsets, var_subs) = f.incidence();
    let ls = LocalSearch {
        colors: colors.colors() as u32,
        color_offsets: Ptr::from_slice(&colors.offsets),
        color_vars: Ptr::from_slice(&colors.vars),
        var_offsets: Ptr::from_slice(var_offsets),
        var_subs: Ptr::from_slice(var_subs),
    };
    // SAFETY: the caller's precondition: the arrays describe the kind's problem, x holds l genes
    // and nothing else touches it.
    unsafe { stage::local_search(kind, &ls, Ptr::from_mut_slice(x)) }
}
