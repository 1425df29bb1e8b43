//! Colour-grouped local search on the host: the variables' colour groups in flat form (what the
//! layout carries to both backends), and the search of one genotype that serial GOMEA runs,
//! which is the device crate's `stage::local_search`, the code the CPU backend runs per solution
//! and whose flips the GPU runs for all solutions at once.

use pgomea_device::mem::Ptr;
use pgomea_device::problem::Kind;
use pgomea_device::rng::SplitMix64;
use pgomea_device::stage::{self, Anneal, LocalSearch};

use crate::problem::{KindVisitor, Subfunctions};

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

/// The temperatures of annealed local search (`stage::Anneal`): `sweeps` Metropolis sweeps, from a
/// temperature at which the median worsening single flip of a random genotype is taken half the
/// time, down (geometrically) to one at which the smallest is taken once in a thousand; then the
/// greedy descent. No sweeps: greedy local search alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnnealSchedule {
    pub sweeps: u32,
    /// Per sweep, 2^32 log2(e) / T.
    pub scales: Vec<u64>,
    /// 2^32 * 2^(-f/256) for f = 0..256.
    pub table: Vec<u64>,
}

impl AnnealSchedule {
    pub fn new(f: &Subfunctions, sweeps: u32, seed: u64) -> Self {
        if sweeps == 0 {
            return AnnealSchedule::default();
        }
        // The gains of the single flips of a random genotype.
        let mut rng = SplitMix64::stream(seed, 0x616e6e);
        let x: Vec<u8> = (0..f.variables()).map(|_| rng.coin() as u8).collect();
        struct Gains<'x>(&'x Subfunctions, &'x [u8]);
        impl KindVisitor for Gains<'_> {
            type Output = Vec<u64>;
            fn visit<K: Kind>(self, kind: K) -> Vec<u64> {
                let x = Ptr::from_slice(self.1);
                (0..self.0.variables() as u32)
                    .map(|v| {
                        let flipped = pgomea_device::problem::Flipped { genes: x, variable: v };
                        // SAFETY: s is a subfunction of the kind's checked arrays, x has l genes.
                        let g: i64 =
                            self.0.dependent(v as usize).iter().map(|&s| unsafe { kind.delta(s, x, flipped) }).sum();
                        g.unsigned_abs()
                    })
                    .filter(|&g| g != 0)
                    .collect()
            }
        }
        let mut gains = f.with_kind(Gains(f, &x));
        gains.sort_unstable();
        let (median, smallest) = match gains.first() {
            Some(&m) => (gains[gains.len() / 2] as f64, m as f64),
            None => (1.0, 1.0),
        };
        let hot = median / std::f64::consts::LN_2;
        let cold = (smallest / 1000f64.ln()).min(hot);
        let scales = (0..sweeps)
            .map(|k| {
                let t = if sweeps == 1 { cold } else { hot * (cold / hot).powf(k as f64 / (sweeps - 1) as f64) };
                (std::f64::consts::LOG2_E / t * 4294967296.0).round() as u64
            })
            .collect();
        let table = (0..256).map(|q| (4294967296.0 * (-(q as f64) / 256.0).exp2()).round() as u64).collect();
        AnnealSchedule { sweeps, scales, table }
    }

    /// The device's view of the schedule (host arrays), for search `stream` with `seed`.
    pub fn anneal(&self, seed: u64, stream: u32) -> Anneal {
        Anneal {
            sweeps: self.sweeps,
            stream,
            seed,
            scales: Ptr::from_slice(&self.scales),
            table: Ptr::from_slice(&self.table),
        }
    }
}

/// The subfunction evaluations of one round of local search of one solution: every variable's
/// subfunctions once, i.e. the sum of the subfunctions' arities.
pub fn evaluations_per_round(f: &Subfunctions) -> u64 {
    (0..f.len()).map(|s| f.variables_of(s).len() as u64).sum()
}

/// Local search of `x` (the genotype of solution `solution`) to a local optimum (no single flip
/// improves it), colour after colour, after the annealing sweeps of `anneal` (drawing from
/// `seed` and `stream`): returns the gain in fitness and the number of rounds and sweeps.
///
/// # Safety
///
/// `kind` is the kind of `f` (from its `with_kind`), `colors` colours the variables of `f`, and
/// `x` holds its l genes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn search<K: Kind>(
    kind: &K,
    f: &Subfunctions,
    colors: &VariableColors,
    anneal: &AnnealSchedule,
    seed: u64,
    stream: u32,
    solution: u32,
    x: &mut [u8],
) -> (i64, u64) {
    let (var_offsets, var_subs) = f.incidence();
    let ls = LocalSearch {
        colors: colors.colors() as u32,
        color_offsets: Ptr::from_slice(&colors.offsets),
        color_vars: Ptr::from_slice(&colors.vars),
        var_offsets: Ptr::from_slice(var_offsets),
        var_subs: Ptr::from_slice(var_subs),
        anneal: anneal.anneal(seed, stream),
    };
    // SAFETY: the caller's precondition: the arrays describe the kind's problem, x holds l genes
    // and nothing else touches it; the schedule holds its sweeps' scales and the table.
    unsafe { stage::local_search(kind, &ls, Ptr::from_mut_slice(x), solution) }
}
