//! Partition mixing: GOM's step on one receiver with one donor, where the linkage sets are the
//! connected components of the variables on which the two differ (connected through the
//! subfunctions they share). Such components share no subfunction, so each one's change of
//! fitness is its own, every component is tried against the same receiver, and the receiver
//! takes the donor's genes on every component that strictly improves it: the best of the
//! 2^components mixes in one pass over the difference. The operator is the partition crossover of
//! gray-box optimisation (Tinós, Whitley and Chicano, FOGA 2015), with GOM's roles of receiver
//! and donor.
//!
//! The run uses it to mix solutions into the elitist (`ElitistMixing::mix_into_elitist`):
//! every solution of a new population once its local search is done, one after the other (below
//! [`NEW_POPULATIONS_BELOW`] variables), and a population's best whenever it improved, on a
//! thread of its own beside the run's next generation (`ElitistMixing::queue_best`);
//! each population's last best is mixed again while the elitist changes, and an elitist that a
//! population's better solution displaces is mixed into its successor.
//! The elitist then holds, region by region, the best that any population found: on a lattice,
//! whole domains of the other phase that a population's local moves never remove
//! (`docs/decisions/0016-partition-mixing-donors-and-pieces.md`). One after the other into the
//! elitist, not pairwise first: two solutions of a new population differ where either has a
//! defect, and where their defects meet the components merge, so a pairwise mix often has to take
//! or leave a large region whole; the elitist, better with every mix, differs from a solution
//! mostly where one of the two is wrong, in small separate components. Where the fitness does not
//! change when every gene is flipped (Max-Cut, Ising models without fields), the donor's
//! complement is tried as a second donor: two good cuts often agree on a region up to which side
//! is which.
//!
//! A component that does not improve the receiver whole is cut into pieces at the subfunctions
//! the receiver leaves below their largest value, and each piece that improves it is taken
//! (`PartitionMixing::take_pieces`; in the donor's aligned form only, see
//! [`PartitionMixing::mix`]). On a lattice a domain of the other phase in the receiver is one
//! piece: a donor right on the domain gives it whole, even where the donor's own wrong bands
//! join the domain into one component too large to improve the receiver (the same record).
//!
//! Cost: one pass over the genotypes to find the difference, then each differing variable and
//! each subfunction it reads once, twice for a component cut into pieces: O(l + the
//! difference's incidences), on one core: parallel passes over a union-find forest were slower
//! where the default mixes every new population.

use pgomea_device::mem::Ptr;
use pgomea_device::problem::{Genes, Kind};
use rayon::prelude::*;

use crate::problem::{Subfunctions, kind_visitor};
use crate::stop::StopCheck;

/// New populations' solutions are mixed into the elitist below this many variables; from it on
/// only the populations' bests are: a mix costs O(l) on one core, too long for every solution of
/// a large population, where the bests alone, their mixes overlapping the GPU's generations, took
/// the run closer to the optimum (`docs/decisions/0015-partition-mixing-default.md`).
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
    /// Each subfunction's largest value ([`SubfunctionSurvey`]), and whether the receiver had
    /// it when the subfunction's component was found: the pieces of a component are not cut
    /// where it did.
    maxima: Vec<i64>,
    receiver_at_max: Vec<bool>,
    /// The piece of a component that each variable was last put in (numbered by piece, never
    /// cleared between calls), the piece that each subfunction was last evaluated for, and the
    /// last piece's number.
    piece_mark: Vec<u32>,
    piece_subfunction_mark: Vec<u32>,
    piece: u32,
    piece_variables: Vec<u32>,
}

/// What one mix did: the receiver's gain, the components taken and found, the subfunction
/// evaluations spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MixReport {
    /// How much the receiver's fitness rose.
    pub gain: i64,
    pub(crate) taken: usize,
    /// The components found.
    pub components: usize,
    /// Pieces taken from components that were not taken whole.
    pub pieces: usize,
    pub(crate) evaluations: u64,
}

impl PartitionMixing {
    /// Mixing for the problem of `f`, trying donors' complements too where its subfunctions are
    /// flip-symmetric ([`SubfunctionSurvey`]).
    pub fn new(f: &Subfunctions) -> Self {
        let SubfunctionSurvey { maxima, flip_symmetric } = SubfunctionSurvey::of(f);
        PartitionMixing {
            variable_mark: vec![0; f.variables()],
            subfunction_mark: vec![0; f.len()],
            call: 0,
            stack: Vec::new(),
            component: Vec::new(),
            flip_symmetric,
            maxima,
            receiver_at_max: vec![false; f.len()],
            piece_mark: vec![0; f.variables()],
            piece_subfunction_mark: vec![0; f.len()],
            piece: 0,
            piece_variables: Vec::new(),
        }
    }

    /// Mixes `donor` into `receiver` (both of l genes), and, for a flip-symmetric problem, then
    /// the donor's complement: the receiver takes the (complemented) donor's genes on every
    /// component of their difference where that strictly improves it, and on pieces of the
    /// others (`PartitionMixing::take_pieces`) in the donor's aligned form only: the donor
    /// itself, or for a flip-symmetric problem whichever of the donor and its complement differs
    /// from the receiver on at most half of the variables. Returns what both did.
    ///
    /// Checks `stop` as each component begins and while a component is searched, about every
    /// [`crate::stop::WORK_PER_CHECK`] subfunctions visited (a difference of 10^6 variables is
    /// one component on a lattice), and ends early when it must: the receiver then holds the
    /// components and pieces taken so far, and the report says what they gained, so the two stay
    /// exact. Without a stop, the checks change nothing.
    pub fn mix(&mut self, f: &Subfunctions, receiver: &mut [u8], donor: &[u8], stop: &StopCheck) -> MixReport {
        // The complement differs where the donor agrees: cut pieces where the difference is the
        // smaller. In the other form a component spans nearly the whole genotype, and its pieces
        // would be the receiver's own regions cut at its own unmet subfunctions, whatever the
        // donor holds: flipping them is a move of the receiver alone (on an unfrustrated lattice
        // it removes every domain of the other phase), not a mix.
        let aligned = if self.flip_symmetric {
            let differing = receiver.iter().zip(donor).filter(|(a, b)| a != b).count();
            (2 * differing > receiver.len()) as u8
        } else {
            0
        };
        let mut report = self.mix_masked(f, receiver, donor, 0, aligned == 0, stop);
        if self.flip_symmetric && stop.reason().is_none() {
            let other = self.mix_masked(f, receiver, donor, 1, aligned == 1, stop);
            report.gain += other.gain;
            report.taken += other.taken;
            report.components += other.components;
            report.pieces += other.pieces;
            report.evaluations += other.evaluations;
        }
        report
    }

    /// One mix with the donor's genes xor'ed with `mask`, cutting the components that do not
    /// improve the receiver whole into pieces where `pieces`; ends early where `stop` says so
    /// ([`PartitionMixing::mix`]).
    fn mix_masked(
        &mut self,
        f: &Subfunctions,
        receiver: &mut [u8],
        donor: &[u8],
        mask: u8,
        pieces: bool,
        stop: &StopCheck,
    ) -> MixReport {
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
        kind_visitor! {
            struct Visit<'m> {
                mixing: &'m mut PartitionMixing,
                f: &'m Subfunctions,
                receiver: &'m mut [u8],
                donor: &'m [u8],
                mask: u8,
                pieces: bool,
                stop: &'m StopCheck,
            }
            fn visit<K>(kind) -> MixReport {
                let call = mixing.call;
                let mut report = MixReport::default();
                // Subfunctions visited since the last check of `stop`.
                let mut done = 0;
                'components: for start in 0..receiver.len() {
                    if receiver[start] == donor[start] ^ mask || mixing.variable_mark[start] == call {
                        continue;
                    }
                    if stop.after(&mut done, 0).is_err() {
                        break;
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
                    // Where pieces are cut: whether the receiver has each subfunction at its
                    // largest, and how many it does not have there that read two differing
                    // variables (none: the component is one piece).
                    let mut cuts = 0usize;
                    while let Some(v) = mixing.stack.pop() {
                        mixing.component.push(v);
                        let dependent = f.dependent(v as usize);
                        if stop.after(&mut done, dependent.len()).is_err() {
                            // The component is left untaken: the receiver stays as it was on it.
                            mixing.stack.clear();
                            break 'components;
                        }
                        for &s in dependent {
                            let mark = &mut mixing.subfunction_mark[s as usize];
                            if *mark == call {
                                continue;
                            }
                            *mark = call;
                            // SAFETY: s is a subfunction of the arrays `kind` points to (they
                            // are `f`'s, alive for the call), and both genotypes hold l genes
                            // (asserted above).
                            let at_max = if pieces {
                                let value = unsafe { kind.evaluate(s, old) };
                                change += unsafe { kind.evaluate(s, new) } - value;
                                let at_max = value >= mixing.maxima[s as usize];
                                mixing.receiver_at_max[s as usize] = at_max;
                                at_max
                            } else {
                                change += unsafe { kind.delta(s, old, new) };
                                true
                            };
                            report.evaluations += 2;
                            let mut differing = 0;
                            for &u in f.variables_of(s as usize) {
                                let u = u as usize;
                                if receiver[u] != donor[u] ^ mask {
                                    differing += 1;
                                    if mixing.variable_mark[u] != call {
                                        mixing.variable_mark[u] = call;
                                        mixing.stack.push(u as u32);
                                    }
                                }
                            }
                            cuts += (!at_max && differing >= 2) as usize;
                        }
                    }
                    report.components += 1;
                    if change > 0 {
                        take(receiver, donor, mask, &mixing.component, change, &mut report);
                    } else if cuts > 0
                        && mixing.take_pieces(&kind, f, receiver, donor, mask, &mut report, stop).is_err()
                    {
                        break;
                    }
                }
                report
            }
        }
        f.with_kind(Visit { mixing: self, f, receiver, donor, mask, pieces, stop })
    }

    /// The component just found (`self.component`), which does not improve the receiver whole,
    /// cut into pieces where the receiver left a subfunction below its largest value: a piece is
    /// the component's variables connected through subfunctions the receiver had at their
    /// largest when the component was found. Each piece in turn, against the receiver as the
    /// pieces before it left it, is taken where that strictly improves it (its change evaluated
    /// in full, so a mix stays exact whatever the pieces). Where flipping every gene changes no
    /// subfunction, a piece's inner subfunctions keep their values and its cuts, below their
    /// largest, can only gain. On a lattice, a domain of the other phase in the receiver is one
    /// piece (its walls are the cuts), which a donor right on it gives whole even where the
    /// donor's own wrong regions join the domain into one large component. Checks `stop` as
    /// [`PartitionMixing::mix`] does; stopped, the pieces taken so far stay (`Err`).
    #[allow(clippy::too_many_arguments)]
    fn take_pieces<K: Kind>(
        &mut self,
        kind: &K,
        f: &Subfunctions,
        receiver: &mut [u8],
        donor: &[u8],
        mask: u8,
        report: &mut MixReport,
        stop: &StopCheck,
    ) -> Result<(), crate::stop::StopReason> {
        if self.piece.checked_add(self.component.len() as u32 + 1).is_none() {
            // The marks of 2^32 pieces ago would look current: start them again.
            self.piece_mark.fill(0);
            self.piece_subfunction_mark.fill(0);
            self.piece = 0;
        }
        // Variables marked below `first` are in no piece of this component yet.
        let first = self.piece + 1;
        let mut done = 0;
        for k in 0..self.component.len() {
            let start = self.component[k] as usize;
            if self.piece_mark[start] >= first || receiver[start] == donor[start] ^ mask {
                continue;
            }
            self.piece += 1;
            let piece = self.piece;
            self.piece_variables.clear();
            self.stack.push(start as u32);
            self.piece_mark[start] = piece;
            let at = Ptr::from_slice(receiver);
            while let Some(v) = self.stack.pop() {
                self.piece_variables.push(v);
                let dependent = f.dependent(v as usize);
                if let Err(reason) = stop.after(&mut done, dependent.len()) {
                    self.stack.clear();
                    return Err(reason);
                }
                for &s in dependent {
                    if !self.receiver_at_max[s as usize] {
                        continue;
                    }
                    for &u in f.variables_of(s as usize) {
                        let u = u as usize;
                        if receiver[u] != donor[u] ^ mask && self.piece_mark[u] < first {
                            self.piece_mark[u] = piece;
                            self.stack.push(u as u32);
                        }
                    }
                }
            }
            if self.piece_variables.len() == self.component.len() {
                // One piece: the component itself, which does not improve the receiver.
                return Ok(());
            }
            let taken = Taken {
                receiver: at,
                donor: Ptr::from_slice(donor),
                mask,
                marks: Ptr::from_slice(&self.piece_mark),
                piece,
            };
            let mut change = 0i64;
            for &v in &self.piece_variables {
                for &s in f.dependent(v as usize) {
                    let mark = &mut self.piece_subfunction_mark[s as usize];
                    if *mark != piece {
                        *mark = piece;
                        // SAFETY: as above; `taken` reads genotypes and marks of l entries.
                        change += unsafe { kind.delta(s, at, taken) };
                        report.evaluations += 2;
                    }
                }
            }
            if change > 0 {
                take(receiver, donor, mask, &self.piece_variables, change, report);
                report.pieces += 1;
            }
        }
        Ok(())
    }
}

/// The receiver with the donor's genes (xor'ed with `mask`) on the variables marked `piece`.
#[derive(Clone, Copy)]
struct Taken {
    receiver: Ptr<u8>,
    donor: Ptr<u8>,
    mask: u8,
    marks: Ptr<u32>,
    piece: u32,
}

impl Genes for Taken {
    #[inline(always)]
    unsafe fn gene(self, v: u32) -> u8 {
        // SAFETY: forwarded precondition; the three arrays hold l entries.
        unsafe {
            let v = v as usize;
            if self.marks.read(v) == self.piece { self.donor.read(v) ^ self.mask } else { self.receiver.read(v) }
        }
    }
}

/// What partition mixing needs to know of the subfunctions, from one pass over every assignment
/// of each one's variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubfunctionSurvey {
    /// Each subfunction's largest value, or `i64::MIN` for one of more than
    /// [`SubfunctionSurvey::MOST_VARIABLES`] variables (taken as always at its largest: never
    /// cut into pieces).
    pub maxima: Vec<i64>,
    /// Whether every subfunction takes the same value on every assignment and on its complement
    /// (false where one reads more than [`SubfunctionSurvey::MOST_VARIABLES`] variables).
    pub flip_symmetric: bool,
}

impl SubfunctionSurvey {
    /// Subfunctions of more variables are not enumerated (2^12 assignments each at most).
    pub const MOST_VARIABLES: usize = 12;

    /// The survey of `f`, in parallel over its subfunctions.
    pub fn of(f: &Subfunctions) -> Self {
        kind_visitor! {
            struct Survey<'f> { f: &'f Subfunctions }
            fn visit<K>(kind) -> SubfunctionSurvey {
                let (maxima, symmetric): (Vec<i64>, Vec<bool>) = (0..f.len())
                    .into_par_iter()
                    .map(|s| {
                        let vars = f.variables_of(s);
                        if vars.len() > SubfunctionSurvey::MOST_VARIABLES {
                            return (i64::MIN, false);
                        }
                        (0..1u32 << vars.len()).fold((i64::MIN, true), |(most, symmetric), bits| {
                            let at = Assignment { vars, bits };
                            // SAFETY: s is a subfunction of f's arrays, and `Assignment` answers
                            // every variable s reads.
                            let (value, flipped) = unsafe {
                                (kind.evaluate(s as u32, at), kind.evaluate(s as u32, Masked { genes: at, mask: 1 }))
                            };
                            (most.max(value), symmetric && value == flipped)
                        })
                    })
                    .unzip();
                SubfunctionSurvey { maxima, flip_symmetric: symmetric.iter().all(|&b| b) }
            }
        }
        f.with_kind(Survey { f })
    }
}

/// The receiver takes the donor's genes (XOR `mask`) on `vars`, a component or a piece of one
/// whose change to the receiver's fitness is `change`.
fn take(receiver: &mut [u8], donor: &[u8], mask: u8, vars: &[u32], change: i64, report: &mut MixReport) {
    for &v in vars {
        receiver[v as usize] = donor[v as usize] ^ mask;
    }
    report.gain += change;
    report.taken += 1;
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
    fn a_mix_is_exact_never_worse_and_takes_improving_components_whole() {
        let mut rng = SplitMix64::new(11);
        for round in 0..30 {
            for p in instances(6 + round % 25, &mut rng) {
                let f = p.functions();
                let mut mixing = PartitionMixing::new(f);
                let x = random_genes(p.variables(), &mut rng);
                let d = donor_of(&x, &mut rng);
                for mask in [0u8, 1] {
                    let mut y = x.clone();
                    let report = mixing.mix_masked(f, &mut y, &d, mask, true, &StopCheck::never());
                    let (before, after) = (p.evaluate(&x), p.evaluate(&y));
                    assert_eq!(after, before + report.gain, "{}: the gain is the change of fitness", p.name());
                    assert!(report.gain >= 0);
                    let components = reference_components(p.as_ref(), &x, &d, mask);
                    assert_eq!(report.components, components.len(), "{}", p.name());
                    // A component that improves x is taken whole; one that does not is taken in
                    // pieces or not at all, never whole; nothing outside the components changes.
                    let mut whole = 0;
                    for c in &components {
                        let mut z = x.clone();
                        for &v in c {
                            z[v] = d[v] ^ mask;
                        }
                        let improves = p.evaluate(&z) > before;
                        let took = c.iter().filter(|&&v| y[v] == d[v] ^ mask).count();
                        if improves {
                            assert_eq!(took, c.len(), "{}: an improving component not taken whole", p.name());
                            whole += 1;
                        } else {
                            assert!(took < c.len(), "{}: a component that does not improve taken whole", p.name());
                        }
                    }
                    assert_eq!(whole + report.pieces, report.taken);
                    let in_components: std::collections::HashSet<usize> =
                        components.iter().flatten().copied().collect();
                    assert!((0..x.len()).all(|v| x[v] == y[v] || in_components.contains(&v)), "{}", p.name());
                }
            }
        }
    }

    #[test]
    fn a_stopped_mix_takes_nothing_after_its_stop() {
        let mut rng = SplitMix64::new(4);
        let past = StopCheck::new(Some(std::time::Instant::now() - std::time::Duration::from_millis(1)), None);
        for p in instances(20, &mut rng) {
            let f = p.functions();
            let x = random_genes(p.variables(), &mut rng);
            let d = donor_of(&x, &mut rng);
            let mut y = x.clone();
            let report = PartitionMixing::new(f).mix(f, &mut y, &d, &past);
            assert_eq!((report.gain, report.components, &y), (0, 0, &x), "{}: checked before the first", p.name());
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
                let report = PartitionMixing::new(f).mix_masked(f, &mut y, &d, 0, true, &StopCheck::never());
                // Pieces of components can only add to the best mix of whole components.
                if report.pieces == 0 {
                    assert_eq!(p.evaluate(&y), best, "{}: not the best mix", p.name());
                } else {
                    assert!(p.evaluate(&y) > best, "{}: pieces that did not improve", p.name());
                }
            }
        }
        assert!(combinations > 1000, "{combinations}");
    }

    /// On an unfrustrated torus of weight 1, a receiver with a square domain of the other phase
    /// and a donor right there, whose own wrong band touches that square: their difference is one
    /// component, worse to take whole (the band's walls are longer than the square's), and its
    /// pieces are the square and the band, of which the square is taken: the optimum.
    #[test]
    fn a_component_that_does_not_improve_whole_gives_the_pieces_that_do() {
        use crate::problem::generate::{self, WeightRange};
        use crate::problem::maxcut::MaxCut;
        let side = 12;
        let torus = MaxCut::new(generate::torus(side, WeightRange { min: 1, max: 1 }, 1).unwrap()).unwrap();
        let f = torus.functions();
        let optimum: Vec<u8> = (0..side * side).map(|v| ((v / side + v % side) % 2) as u8).collect();
        let flipped = |cells: &dyn Fn(usize, usize) -> bool| -> Vec<u8> {
            (0..side * side).map(|v| optimum[v] ^ cells(v / side, v % side) as u8).collect()
        };
        // The square: rows and columns 2..6; the band: rows 6..8, every column.
        let receiver = flipped(&|a, b| (2..6).contains(&a) && (2..6).contains(&b));
        let donor = flipped(&|a, _| (6..8).contains(&a));
        let total = torus.evaluate(&optimum);
        assert_eq!(torus.evaluate(&receiver), total - 16);
        assert_eq!(torus.evaluate(&donor), total - 2 * side as i64);
        let mut y = receiver.clone();
        let mut mixing = PartitionMixing::new(f);
        let report = mixing.mix(f, &mut y, &donor, &StopCheck::never());
        // The second component is the complement's difference: everything else, not improving.
        assert_eq!((report.components, report.taken, report.pieces, report.gain), (2, 1, 1, 16));
        assert_eq!(y, optimum);
        assert_eq!(reference_components(&torus, &receiver, &donor, 0).len(), 1);
        // Without pieces the component stays.
        let mut z = receiver.clone();
        assert_eq!(mixing.mix_masked(f, &mut z, &donor, 0, false, &StopCheck::never()).gain, 0);
        // The same donor in the other phase: its complement is the aligned form, and gives the
        // same.
        let other: Vec<u8> = donor.iter().map(|g| g ^ 1).collect();
        let mut y = receiver.clone();
        assert_eq!(mixing.mix(f, &mut y, &other, &StopCheck::never()).pieces, 1);
        assert_eq!(y, optimum);
        // The receiver mixed with itself, or with its complement, gains nothing: no piece is
        // cut where the donor holds nothing new (the square would be one, flipped whole).
        for d in [receiver.clone(), receiver.iter().map(|g| g ^ 1).collect()] {
            let mut y = receiver.clone();
            let report = mixing.mix(f, &mut y, &d, &StopCheck::never());
            assert_eq!((report.components, report.taken, report.pieces, report.gain), (1, 0, 0, 0));
            assert_eq!(y, receiver);
        }
    }

    #[test]
    fn subfunction_maxima_are_the_largest_values() {
        use crate::problem::generate::{self, WeightRange};
        use crate::problem::maxcut::MaxCut;
        use crate::problem::nk;
        let torus = MaxCut::new(generate::torus(6, WeightRange { min: -2, max: 3 }, 1).unwrap()).unwrap();
        let maxima = SubfunctionSurvey::of(torus.functions()).maxima;
        let weights: Vec<i64> = torus.edges().map(|e| e.w).collect();
        assert!(maxima.iter().zip(&weights).all(|(&m, &w)| m == w.max(0)));
        assert!(weights.iter().any(|&w| w < 0) && weights.iter().any(|&w| w > 0));
        // NK: the largest entry of each table, by every assignment of its variables.
        let nk = nk::random_neighbourhood(12, 3, 1).unwrap();
        let maxima = SubfunctionSurvey::of(nk.functions()).maxima;
        for (s, &m) in maxima.iter().enumerate() {
            let vars = nk.subfunction_variables(s);
            let best = (0..1u32 << vars.len())
                .map(|bits| {
                    let mut x = vec![0u8; nk.variables()];
                    for (k, &v) in vars.iter().enumerate() {
                        x[v as usize] = (bits >> k & 1) as u8;
                    }
                    nk.evaluate_subfunction(s, &x)
                })
                .max()
                .unwrap();
            assert_eq!(m, best);
        }
    }

    #[test]
    fn flip_symmetry_is_found_where_it_holds() {
        use crate::problem::generate::{self, WeightRange};
        use crate::problem::maxcut::MaxCut;
        use crate::problem::{maxsat, nk};
        let torus = MaxCut::new(generate::torus(6, WeightRange { min: -2, max: 3 }, 1).unwrap()).unwrap();
        assert!(SubfunctionSurvey::of(torus.functions()).flip_symmetric);
        let nk = nk::random_neighbourhood(30, 3, 1).unwrap();
        assert!(!SubfunctionSurvey::of(nk.functions()).flip_symmetric);
        let sat = maxsat::planted_3sat(30, 120, 1).unwrap().0;
        assert!(!SubfunctionSurvey::of(sat.functions()).flip_symmetric);
        // A table that is its own complement (parity of two variables) is symmetric.
        let parity =
            crate::problem::tables::TableProblem::new("parity", "tables", 2, &[(vec![0, 1], vec![0, 5, 5, 0])], None)
                .unwrap();
        assert!(SubfunctionSurvey::of(parity.functions()).flip_symmetric);
    }
}
