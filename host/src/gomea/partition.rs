//! Partition mixing: GOM's step on one receiver with one donor, where the linkage sets are the
//! connected components of the variables on which the two differ (connected through the
//! subfunctions they share). Such components share no subfunction, so each one's change of
//! fitness is its own, every component is tried against the same receiver, and the receiver
//! takes the donor's genes on every component that strictly improves it: the best of the
//! 2^components mixes in one pass over the difference. The operator is the partition crossover of
//! gray-box optimisation (Tinós, Whitley and Chicano, FOGA 2015), with GOM's roles of receiver
//! and donor.
//!
//! The run uses it to mix solutions into the elitist ([`crate::gomea::run::Run::mix_into_elitist`]):
//! every solution of a new population once its local search is done, one after the other (below
//! [`NEW_POPULATIONS_BELOW`] variables), and a population's best whenever it improved, on a
//! thread of its own beside the run's next generation ([`crate::gomea::run::Run::queue_best`]);
//! each population's last best is mixed again while the elitist changes, and an elitist that a
//! population's better solution displaces is mixed into its successor (section 66).
//! The elitist then holds, region by region, the best that any population found: on a lattice,
//! whole domains of the other phase that a population's local moves never remove (RESULTS.md
//! section 65). One after the other into the elitist, not pairwise first: two
//! solutions of a new population differ where either has a defect, and where their defects meet
//! the components merge, so a pairwise mix often has to take or leave a large region whole; the
//! elitist, better with every mix, differs from a solution mostly where one of the two is wrong,
//! in small separate components (dev machine, 100^2 torus: the optimum from the first
//! population's 16 solutions one after the other, 59735 of 59909 after two populations
//! pairwise). Where the fitness does not change when every gene is flipped (Max-Cut, Ising
//! models without fields), the donor's complement is tried as a second donor: two good cuts
//! often agree on a region up to which side is which.
//!
//! Cost: one pass over the genotypes to find the difference, then each differing variable and
//! each subfunction it reads once: O(l + the difference's incidences), on one core. (Four
//! parallel passes over a union-find forest gave the same results 1.5-3x faster at 10^6
//! variables and 3.6x slower on a G-set graph of 20000, where the default mixes; RESULTS.md
//! section 62.)

use pgomea_device::mem::Ptr;
use pgomea_device::problem::{Genes, Kind};
use rayon::prelude::*;

use crate::problem::{KindVisitor, Subfunctions};

/// New populations' solutions are mixed into the elitist below this many variables; from it on
/// only the populations' bests are. A mix costs O(l): on a 10^6-vertex torus about 90 ms on one
/// core, so a new population of 256 would take 23 s to mix, where the bests alone, their mixes
/// overlapping the GPU's generations, took the run closer to the optimum (RESULTS.md section 65).
pub const NEW_POPULATIONS_BELOW: usize = 100_000;

/// A genotype read with every gene xor'ed with `mask` (0: as it is, 1: its complement).
#[derive(Clone, Copy)]
struct Masked<G> {
    genes: G,
    mask: u8,
}

impl<G: Genes> Genes for Masked<G> {
    #[inline(always)]
    unsafe fn gene(self, v: u32) -> u8 {
        // SAFETY: forwarded precondition.
        unsafe { self.genes.gene(v) ^ self.mask }
    }
}

/// What partition mixing keeps between calls: a visit mark per variable and per subfunction
/// (numbered by call, so that none is cleared between calls), the search's stack and the
/// component found.
#[derive(Debug)]
pub struct PartitionMixing {
    variable_mark: Vec<u32>,
    subfunction_mark: Vec<u32>,
    call: u32,
    stack: Vec<u32>,
    component: Vec<u32>,
    /// Whether flipping every gene leaves every subfunction's value as it is.
    flip_symmetric: bool,
}

/// What one mix did: the receiver's gain, the components taken and found, the subfunction
/// evaluations spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MixReport {
    pub gain: i64,
    pub taken: usize,
    pub components: usize,
    pub evaluations: u64,
}

impl PartitionMixing {
    /// Mixing for the problem of `f`, trying donors' complements too where `flip_symmetric`
    /// (what [`flip_symmetric`] says of `f`).
    pub fn new(f: &Subfunctions, flip_symmetric: bool) -> Self {
        PartitionMixing {
            variable_mark: vec![0; f.variables()],
            subfunction_mark: vec![0; f.len()],
            call: 0,
            stack: Vec::new(),
            component: Vec::new(),
            flip_symmetric,
        }
    }

    /// Mixes `donor` into `receiver` (both of l genes), and, for a flip-symmetric problem, then
    /// the donor's complement: the receiver takes the (complemented) donor's genes on every
    /// component of their difference where that strictly improves it. Returns what both did.
    pub fn mix(&mut self, f: &Subfunctions, receiver: &mut [u8], donor: &[u8]) -> MixReport {
        let mut report = self.mix_masked(f, receiver, donor, 0);
        if self.flip_symmetric {
            let other = self.mix_masked(f, receiver, donor, 1);
            report.gain += other.gain;
            report.taken += other.taken;
            report.components += other.components;
            report.evaluations += other.evaluations;
        }
        report
    }

    /// One mix with the donor's genes xor'ed with `mask`.
    fn mix_masked(&mut self, f: &Subfunctions, receiver: &mut [u8], donor: &[u8], mask: u8) -> MixReport {
        assert!(
            receiver.len() == f.variables() && donor.len() == f.variables(),
            "partition mixing: genotypes of {} and {} genes for {} variables",
            receiver.len(),
            donor.len(),
            f.variables()
        );
        self.call = self.call.wrapping_add(1);
        if self.call == 0 {
            // The marks of 2^32 calls ago would look current: start them again.
            self.variable_mark.fill(0);
            self.subfunction_mark.fill(0);
            self.call = 1;
        }
        struct Visit<'m> {
            mixing: &'m mut PartitionMixing,
            f: &'m Subfunctions,
            receiver: &'m mut [u8],
            donor: &'m [u8],
            mask: u8,
        }
        impl KindVisitor for Visit<'_> {
            type Output = MixReport;
            fn visit<K: Kind>(self, kind: K) -> MixReport {
                let Visit { mixing, f, receiver, donor, mask } = self;
                let call = mixing.call;
                let mut report = MixReport::default();
                for start in 0..receiver.len() {
                    if receiver[start] == donor[start] ^ mask || mixing.variable_mark[start] == call {
                        continue;
                    }
                    // The component of `start`: every differing variable reached through the
                    // subfunctions of differing variables, and the change of each such
                    // subfunction when the receiver takes the donor's genes on the component.
                    // A subfunction reads differing variables of one component only (two it
                    // reads are connected through it), and where the two agree the donor's
                    // genes are the receiver's: the change is that from the receiver to the
                    // donor on the subfunction's variables.
                    mixing.component.clear();
                    mixing.stack.push(start as u32);
                    mixing.variable_mark[start] = call;
                    let mut change = 0i64;
                    let (old, new) = (Ptr::from_slice(receiver), Masked { genes: Ptr::from_slice(donor), mask });
                    while let Some(v) = mixing.stack.pop() {
                        mixing.component.push(v);
                        for &s in f.dependent(v as usize) {
                            let mark = &mut mixing.subfunction_mark[s as usize];
                            if *mark == call {
                                continue;
                            }
                            *mark = call;
                            // SAFETY: s is a subfunction of the arrays `kind` points to (they
                            // are `f`'s, alive for the call), and both genotypes hold l genes
                            // (asserted above).
                            change += unsafe { kind.delta(s, old, new) };
                            report.evaluations += 2;
                            for &u in f.variables_of(s as usize) {
                                let u = u as usize;
                                if receiver[u] != donor[u] ^ mask && mixing.variable_mark[u] != call {
                                    mixing.variable_mark[u] = call;
                                    mixing.stack.push(u as u32);
                                }
                            }
                        }
                    }
                    report.components += 1;
                    if change > 0 {
                        for &v in &mixing.component {
                            receiver[v as usize] = donor[v as usize] ^ mask;
                        }
                        report.gain += change;
                        report.taken += 1;
                    }
                }
                report
            }
        }
        f.with_kind(Visit { mixing: self, f, receiver, donor, mask })
    }
}

/// Whether every subfunction takes the same value on every assignment of its variables and on
/// its complement (subfunctions of more than 12 variables are taken as not symmetric).
pub fn flip_symmetric(f: &Subfunctions) -> bool {
    const MOST: usize = 12;
    struct Check<'f>(&'f Subfunctions);
    impl KindVisitor for Check<'_> {
        type Output = bool;
        fn visit<K: Kind>(self, kind: K) -> bool {
            let f = self.0;
            (0..f.len()).into_par_iter().all(|s| {
                let vars = f.variables_of(s);
                if vars.len() > MOST {
                    return false;
                }
                (0..1u32 << vars.len()).all(|bits| {
                    let at = Assignment { vars, bits };
                    // SAFETY: s is a subfunction of f's arrays, and `Assignment` answers every
                    // variable s reads.
                    unsafe { kind.evaluate(s as u32, at) == kind.evaluate(s as u32, Masked { genes: at, mask: 1 }) }
                })
            })
        }
    }
    f.with_kind(Check(f))
}

/// The genotype that gives the k-th variable of `vars` bit k of `bits` (0 elsewhere).
#[derive(Clone, Copy)]
struct Assignment<'v> {
    vars: &'v [u32],
    bits: u32,
}

impl Genes for Assignment<'_> {
    #[inline(always)]
    unsafe fn gene(self, v: u32) -> u8 {
        // The last position of v wins, as a write of each position in turn would leave it.
        let k = self.vars.iter().rposition(|&w| w == v).unwrap_or(usize::MAX);
        if k < 32 { (self.bits >> k & 1) as u8 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use pgomea_device::rng::SplitMix64;

    use super::*;
    use crate::linkage::testing::instances;
    use crate::problem::GrayBoxProblem;

    fn random_genes(l: usize, rng: &mut SplitMix64) -> Vec<u8> {
        (0..l).map(|_| rng.coin() as u8).collect()
    }

    /// A donor that differs from `x` on a few random variables (several small components), or on
    /// about half of them.
    fn donor_of(x: &[u8], rng: &mut SplitMix64) -> Vec<u8> {
        let mut d = x.to_vec();
        let flips = if rng.coin() { 1 + rng.index(4) } else { x.len() / 2 };
        for _ in 0..flips {
            d[rng.index(x.len())] ^= 1;
        }
        d
    }

    /// The components of the variables where `x` and `d ^ mask` differ, connected through shared
    /// subfunctions, by union-find: the rule, written apart from the search.
    fn reference_components(p: &dyn GrayBoxProblem, x: &[u8], d: &[u8], mask: u8) -> Vec<Vec<usize>> {
        let l = x.len();
        let differs = |v: usize| x[v] != d[v] ^ mask;
        let mut parent: Vec<usize> = (0..l).collect();
        fn root(parent: &mut [usize], mut v: usize) -> usize {
            while parent[v] != v {
                v = parent[v];
            }
            v
        }
        for s in 0..p.subfunctions() {
            let vars: Vec<usize> =
                p.subfunction_variables(s).iter().map(|&v| v as usize).filter(|&v| differs(v)).collect();
            for w in vars.windows(2) {
                let (a, b) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
                parent[a] = b;
            }
        }
        let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for v in (0..l).filter(|&v| differs(v)) {
            let r = root(&mut parent, v);
            groups.entry(r).or_default().push(v);
        }
        groups.into_values().collect()
    }

    #[test]
    fn a_mix_is_exact_never_worse_and_takes_whole_components() {
        let mut rng = SplitMix64::new(11);
        for round in 0..30 {
            for p in instances(6 + round % 25, &mut rng) {
                let f = p.functions();
                let mut mixing = PartitionMixing::new(f, flip_symmetric(f));
                let x = random_genes(p.variables(), &mut rng);
                let d = donor_of(&x, &mut rng);
                for mask in [0u8, 1] {
                    let mut y = x.clone();
                    let report = mixing.mix_masked(f, &mut y, &d, mask);
                    let (before, after) = (p.evaluate(&x), p.evaluate(&y));
                    assert_eq!(after, before + report.gain, "{}: the gain is the change of fitness", p.name());
                    assert!(report.gain >= 0);
                    let components = reference_components(p.as_ref(), &x, &d, mask);
                    assert_eq!(report.components, components.len(), "{}", p.name());
                    // Each component is taken whole, or not at all; nothing else changes.
                    let mut taken = 0;
                    for c in &components {
                        let took = c.iter().filter(|&&v| y[v] == d[v] ^ mask).count();
                        assert!(took == 0 || took == c.len(), "{}: a component taken in part", p.name());
                        taken += (took > 0) as usize;
                    }
                    assert_eq!(taken, report.taken);
                    let changed = (0..x.len()).filter(|&v| x[v] != y[v]).count();
                    assert_eq!(
                        changed,
                        components.iter().filter(|c| y[c[0]] != x[c[0]]).map(|c| c.len()).sum::<usize>()
                    );
                }
            }
        }
    }

    #[test]
    fn a_mix_is_the_best_of_every_combination_of_components() {
        let mut rng = SplitMix64::new(12);
        let mut combinations = 0;
        for round in 0..40 {
            for p in instances(5 + round % 8, &mut rng) {
                let f = p.functions();
                let x = random_genes(p.variables(), &mut rng);
                let d = donor_of(&x, &mut rng);
                let components = reference_components(p.as_ref(), &x, &d, 0);
                if components.len() > 10 {
                    continue;
                }
                let best = (0..1u32 << components.len())
                    .map(|take| {
                        let mut y = x.clone();
                        let taken = components.iter().enumerate().filter(|(k, _)| take >> k & 1 == 1);
                        for (_, c) in taken {
                            for &v in c {
                                y[v] = d[v];
                            }
                        }
                        p.evaluate(&y)
                    })
                    .max()
                    .unwrap();
                combinations += 1 << components.len();
                let mut y = x.clone();
                PartitionMixing::new(f, false).mix_masked(f, &mut y, &d, 0);
                assert_eq!(p.evaluate(&y), best, "{}: not the best mix", p.name());
            }
        }
        assert!(combinations > 1000, "{combinations}");
    }

    #[test]
    fn flip_symmetry_is_found_where_it_holds() {
        use crate::problem::generate::{self, WeightRange};
        use crate::problem::maxcut::MaxCut;
        use crate::problem::{maxsat, nk};
        let torus = MaxCut::new(generate::torus(6, WeightRange { min: -2, max: 3 }, 1).unwrap()).unwrap();
        assert!(flip_symmetric(torus.functions()));
        let nk = nk::random_neighbourhood(30, 3, 1).unwrap();
        assert!(!flip_symmetric(nk.functions()));
        let sat = maxsat::planted_3sat(30, 120, 1).unwrap().0;
        assert!(!flip_symmetric(sat.functions()));
        // A table that is its own complement (parity of two variables) is symmetric.
        let parity =
            crate::problem::tables::TableProblem::new("parity", "tables", 2, &[(vec![0, 1], vec![0, 5, 5, 0])], None)
                .unwrap();
        assert!(flip_symmetric(parity.functions()));
    }
}
