//! Colour-grouped local search on the host: the variables' colour groups in flat form (what the
//! layout carries to both backends), the annealing schedule, the calls a search is split into,
//! and the search of one genotype that serial GOMEA runs ([`search_genotype`]), which is the
//! device crate's `stage::search_genotype`, the code the CPU backend runs per solution and whose
//! flips the GPU runs for all solutions at once.

use std::time::Duration;

use pgomea_device::mem::Ptr;
use pgomea_device::problem::Kind;
use pgomea_device::rng::{SplitMix64, streams};
use pgomea_device::stage::{self, ANNEAL_LEVELS, Anneal, SearchArgs, entry_index};
use rayon::prelude::*;

use crate::error::Error;
use crate::linkage::coloring::Coloring;
use crate::problem::{ArrayPlace, InHost, Subfunctions, kind_visitor};
use crate::stop::{StopCheck, StopReason};

/// Variables in colour groups (no subfunction reads two of one group), flat: colour c holds
/// `vars[offsets[c]..offsets[c+1]]`; and their subfunctions in that order, in slices of
/// `2^shift` positions (the layout of the device crate's `stage::SearchArgs`, which points to
/// these): a shift of 0 puts a position's entries side by side, for the host; `stage::WARP_SHIFT`
/// puts a warp's 32 positions' j-th entries side by side, for the GPU. Built once, in the form
/// the run's backend reads (either backend reads either form: the steps take the shift).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VariableColors {
    pub(crate) offsets: Vec<u32>,
    /// The variables, colour group after colour group.
    pub vars: Vec<u32>,
    /// log2 of the positions (places in `vars`) per slice.
    pub shift: u32,
    /// Per position, its variable's number of subfunctions.
    pub degrees: Vec<u32>,
    /// Per slice, where its entries begin in `entries`.
    pub slices: Vec<u64>,
    /// Entry j of position p at `slices[p >> shift] + (j << shift) + p % 2^shift`: the j-th
    /// subfunction of the position's variable, or for the pairwise kind that subfunction's other
    /// variable.
    pub entries: Vec<u32>,
    /// For the pairwise kind, each entry's weight (else empty).
    pub weights: Vec<i64>,
}

impl VariableColors {
    /// The colour groups `groups` of the variables of `f`, in slices of `2^shift` positions.
    pub fn new(groups: &[Vec<u32>], f: &Subfunctions, shift: u32) -> Self {
        let mut offsets = vec![0];
        let mut vars = Vec::new();
        for g in groups {
            vars.extend_from_slice(g);
            offsets.push(vars.len() as u32);
        }
        Self::sliced(offsets, vars, f, shift, &StopCheck::never()).expect("a check that never stops")
    }

    /// The colour groups of a colouring of the variables of `f`, ascending within each colour
    /// (in the GPU's form by degree, the largest first): the same arrays as
    /// `new(&coloring.groups(), f, shift)`, without the groups.
    pub fn from_coloring(coloring: &Coloring, f: &Subfunctions, shift: u32) -> Self {
        Self::build(coloring, f, shift, &StopCheck::never()).expect("a check that never stops")
    }

    /// [`VariableColors::from_coloring`], stopped when `stop` says so (it checks every
    /// [`crate::stop::WORK_PER_CHECK`] or so variables or entries: 10^8 variables take seconds);
    /// stopped, what it made so far is freed aside.
    pub fn build(coloring: &Coloring, f: &Subfunctions, shift: u32, stop: &StopCheck) -> Result<Self, StopReason> {
        let (offsets, vars) = coloring.flat_groups(stop)?;
        Self::sliced(offsets, vars, f, shift, stop)
    }

    /// The entries of the positions `vars` in slices of `2^shift` positions, each slice as wide
    /// as its largest degree; filled in parallel, some slices at a time. In slices of more than
    /// one position (the GPU's form) each colour's variables go by degree, the largest first and
    /// ties ascending, so that a slice's positions have degrees alike: few of its entries are
    /// padding, and a warp's lanes have about as many entries each to read
    /// (`docs/decisions/0027-local-search-entries.md`). This changes no flip: the
    /// flips of one colour are independent, and each draws its random numbers by its variable,
    /// not its position.
    fn sliced(
        offsets: Vec<u32>,
        vars: Vec<u32>,
        f: &Subfunctions,
        shift: u32,
        stop: &StopCheck,
    ) -> Result<Self, StopReason> {
        let mut colors = VariableColors { offsets, vars, shift, ..VariableColors::default() };
        match colors.fill(f, stop) {
            Ok(()) => Ok(colors),
            Err(reason) => {
                crate::stop::drop_aside(colors);
                Err(reason)
            }
        }
    }

    /// Orders, counts and fills what [`VariableColors::sliced`] makes of `offsets` and `vars`,
    /// checking `stop` between pieces of [`crate::stop::WORK_PER_CHECK`] or so variables.
    fn fill(&mut self, f: &Subfunctions, stop: &StopCheck) -> Result<(), StopReason> {
        use crate::stop::WORK_PER_CHECK;
        let VariableColors { offsets, vars, shift, degrees, slices, entries, weights } = self;
        let shift = *shift;
        stop.check()?;
        if shift > 0 {
            for colour in offsets.windows(2) {
                by_degree(&mut vars[colour[0] as usize..colour[1] as usize], f, stop)?;
            }
        }
        let ordered: &[u32] = vars;
        *degrees = stop.par_filled(ordered.len(), |p| f.dependent(ordered[p] as usize).len() as u32)?;
        let pairwise = f.arrays().pairwise_weights();
        let width = 1usize << shift;
        slices.reserve_exact(degrees.len().div_ceil(width));
        let mut end = 0u64;
        for (q, chunk) in degrees.chunks(width).enumerate() {
            stop.every(q, WORK_PER_CHECK)?;
            slices.push(end);
            end += width as u64 * chunk.iter().copied().max().unwrap_or(0) as u64;
        }
        let weighted = pairwise.is_some();
        // Zeroed by the system as the fill first touches them (no pass over them here).
        *entries = vec![0u32; end as usize];
        *weights = vec![0i64; if weighted { end as usize } else { 0 }];
        let start = |q: usize| slices.get(q).map_or(end, |&s| s);
        // A piece of 4096 positions (whole slices) per task; a round of pieces per check, ended
        // early where its slices hold many entries.
        let per_piece = (4096 >> shift).max(1);
        let (mut rest, mut rest_w) = (entries.as_mut_slice(), weights.as_mut_slice());
        let mut q = 0;
        while q < slices.len() {
            stop.check()?;
            let round = start(q);
            let mut pieces = Vec::new();
            while q < slices.len() && pieces.len() < 64 && start(q) - round < 64 * WORK_PER_CHECK as u64 {
                let next = (q + per_piece).min(slices.len());
                let len = (start(next) - start(q)) as usize;
                let (piece, tail) = std::mem::take(&mut rest).split_at_mut(len);
                let (piece_w, tail_w) = std::mem::take(&mut rest_w).split_at_mut(if weighted { len } else { 0 });
                pieces.push((q..next, piece, piece_w));
                (rest, rest_w, q) = (tail, tail_w, next);
            }
            pieces.into_par_iter().for_each(|(qs, piece, piece_w)| {
                let base = slices[qs.start];
                for (p, &v) in vars.iter().enumerate().take(qs.end * width).skip(qs.start * width) {
                    let at = (slices[p >> shift] - base) as usize;
                    // Entry j: the j-th subfunction of v, or for the pairwise kind that
                    // subfunction's other variable and its weight.
                    for (j, &s) in f.dependent(v as usize).iter().enumerate() {
                        let e = entry_index(at, shift, p, j);
                        match pairwise {
                            Some(w) => {
                                let ends = f.variables_of(s as usize);
                                piece[e] = ends[0] ^ ends[1] ^ v;
                                piece_w[e] = w[s as usize];
                            }
                            None => piece[e] = s,
                        }
                    }
                }
            });
        }
        Ok(())
    }

    /// The index of entry j of position p.
    pub fn entry(&self, p: usize, j: usize) -> usize {
        entry_index(self.slices[p >> self.shift] as usize, self.shift, p, j)
    }

    /// The number of colour groups.
    pub fn colors(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

/// One colour's variables `vars` by their degree in `f`, the largest first and ties ascending
/// (the GPU's form of [`VariableColors`]). Where the colour has more variables than its largest
/// degree, by a stable count, checked every [`crate::stop::WORK_PER_CHECK`] variables (a colour
/// of 10^8 variables takes seconds to sort), each degree's variables then sorted where the
/// colour did not list them ascending; else (a colour smaller than a degree) by a sort.
fn by_degree(vars: &mut [u32], f: &Subfunctions, stop: &StopCheck) -> Result<(), StopReason> {
    use crate::stop::WORK_PER_CHECK;
    let degree = |v: u32| f.dependent(v as usize).len();
    let mut most = 0;
    for (i, &v) in vars.iter().enumerate() {
        stop.every(i, WORK_PER_CHECK)?;
        most = most.max(degree(v));
    }
    if most >= vars.len() {
        stop.check()?;
        vars.par_sort_unstable_by_key(|&v| (std::cmp::Reverse(degree(v)), v));
        return Ok(());
    }
    // Where each degree's variables begin, the largest degree first.
    let mut next = vec![0usize; most + 1];
    for (i, &v) in vars.iter().enumerate() {
        stop.every(i, WORK_PER_CHECK)?;
        next[degree(v)] += 1;
    }
    let mut at = 0;
    for count in next.iter_mut().rev() {
        at += std::mem::replace(count, at);
    }
    let begins = next.clone();
    let mut sorted = vec![0u32; vars.len()];
    for (i, &v) in vars.iter().enumerate() {
        stop.every(i, WORK_PER_CHECK)?;
        let d = degree(v);
        sorted[next[d]] = v;
        next[d] += 1;
    }
    for (&begin, &end) in begins.iter().zip(&next) {
        stop.check()?;
        let tie = &mut sorted[begin..end];
        if !tie.is_sorted() {
            tie.par_sort_unstable();
        }
    }
    for (to, from) in vars.chunks_mut(16 * WORK_PER_CHECK).zip(sorted.chunks(16 * WORK_PER_CHECK)) {
        stop.check()?;
        to.copy_from_slice(from);
    }
    Ok(())
}

/// The temperatures of annealed local search (`stage::Anneal`), [`ANNEAL_LEVELS`] of them, from
/// one at which the median worsening single flip of a random genotype is taken half the time,
/// down (geometrically) to one at which the smallest is taken once in a thousand. A search of S
/// sweeps walks through the levels, then descends greedily.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnnealSchedule {
    /// Per level, 2^(32 + gain_shift) log2(e) / T.
    pub scales: Vec<u64>,
    /// The low bits of a gain left out, so that the hottest level's scale keeps at least
    /// [`SCALE_PRECISION`] bits where the gains are large (without it, gains of 2^40 and more,
    /// as on a fine grid of real values, round every scale to 0: every flip taken).
    pub gain_shift: u32,
    /// 2^32 * 2^(-f/256) for f = 0..256.
    pub table: Vec<u64>,
}

/// The bits of the hottest level's scale below which gains are shifted (see
/// [`AnnealSchedule::gain_shift`]): 2^-8 relative at the hottest level and finer at the cooler
/// ones. Median gains up to 2^24 (about 1.7 x 10^7, as on the G-set graphs and on Gaussian spin
/// glasses' couplings of 10^5 scale) need no shift, so their annealing is as before, bit for
/// bit; only fine grids of real values, with gains of 2^40 and more, are shifted.
pub const SCALE_PRECISION: u32 = 8;

/// Subfunction evaluations that one call of a search spends at most: its sweeps or rounds times
/// those of one sweep of every solution it searches. About 0.1-0.3 s on two CPU cores and a few
/// milliseconds on a GPU, so that the host's clock, checked between calls, ends a run within a
/// second of its limit. The calls depend only on the problem's and the population's sizes and on
/// whether the device keeps the gains ([`least_per_call`]), so a run under an evaluation budget
/// stays deterministic.
pub const EVALUATIONS_PER_CALL: u64 = 1 << 25;

/// The sweeps or rounds of one call of a search of `solutions` solutions at once whose sweep
/// evaluates `per_sweep` subfunctions each ([`evaluations_per_round`]): at least one, and at
/// least `least` ([`least_per_call`]).
pub fn per_call(per_sweep: u64, solutions: usize, least: u32) -> u32 {
    let sweep = per_sweep.saturating_mul(solutions as u64).max(1);
    (EVALUATIONS_PER_CALL / sweep).clamp(u64::from(least.max(1)), u32::MAX as u64) as u32
}

/// The fewest sweeps or rounds of a call of a search of kind `K` on a device that keeps the gains
/// or not (`keeps`: the CPU always, and its search asks the stop inside a call; the GPU where its
/// tuning says): [`stage::KEEP_GAINS_FROM`] where it keeps them on a kind with partners, else 1. A dense model's sweep of 16
/// solutions is past [`EVALUATIONS_PER_CALL`] / 2, and its calls of 1 or 2 sweeps would recompute
/// every gain, the slow way on a dense model (`docs/decisions/0029-kept-gains.md`); the flips and
/// the counted evaluations are the same however the calls are cut.
pub fn least_per_call<K: Kind>(keeps: bool) -> u32 {
    if keeps && K::PARTNERS { stage::KEEP_GAINS_FROM } else { 1 }
}

/// One call of a local search: sweeps `from..to` of a search of `sweeps`, then at most
/// `descent_rounds` rounds of the greedy descent; `resume` when it goes on with the descent of
/// the call before (only the solutions whose descent has not ended take part); `stream` numbers
/// the search for its random numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchStep {
    /// The number of the search, for its random numbers.
    pub stream: u32,
    /// The annealing sweeps of the whole search.
    pub sweeps: u32,
    /// The first annealing sweep of this call.
    pub from: u32,
    /// The sweep after this call's last (`from == to`: no annealing in this call).
    pub to: u32,
    /// The most rounds of the greedy descent in this call (0: none).
    pub descent_rounds: u32,
    /// The descent goes on from the call before, for the solutions whose descent has not ended.
    pub resume: bool,
}

/// The calls of one whole search of `sweeps` annealing sweeps and then the greedy descent, each
/// of `per_call` sweeps or rounds (the calls of the descent go on while a solution's descent
/// does). The result of a search does not depend on `per_call`: a sweep's random numbers are
/// counters of its number, and the descent is deterministic.
///
/// ```
/// use pgomea::gomea::local_search::SearchCalls;
/// let mut calls = SearchCalls::new(7, 10, 4);
/// let mut descending = true;
/// let mut steps = Vec::new();
/// while let Some(step) = calls.next(descending) {
///     steps.push((step.from, step.to, step.descent_rounds, step.resume));
///     // Say the descent ends in its second call.
///     descending = !step.resume;
/// }
/// assert_eq!(steps, [(0, 4, 0, false), (4, 8, 0, false), (8, 10, 0, false), (10, 10, 4, false), (10, 10, 4, true)]);
/// ```
#[derive(Clone, Debug)]
pub struct SearchCalls {
    stream: u32,
    sweeps: u32,
    per_call: u32,
    last: Option<SearchStep>,
}

impl SearchCalls {
    /// The calls of search number `stream` of `sweeps` sweeps and the descent, each of `per_call` sweeps or rounds (at least one).
    pub fn new(stream: u32, sweeps: u32, per_call: u32) -> Self {
        SearchCalls { stream, sweeps, per_call: per_call.max(1), last: None }
    }

    /// The rest of the search that `step` belongs to as a schedule of `sweeps` sweeps: it goes
    /// on from the same share of the new schedule as `step` ended at (rounded up; the sweeps
    /// before count as run). A schedule refitted on the way.
    ///
    /// ```
    /// use pgomea::gomea::local_search::SearchCalls;
    /// // Sweep 14 of 20 ended: 70 % of a schedule of 10 is sweep 7.
    /// let mut calls = SearchCalls::new(0, 20, 14);
    /// let step = calls.next(true).unwrap();
    /// let mut calls = SearchCalls::rescaled(step, 10, 4);
    /// assert_eq!(calls.next(true).map(|s| (s.from, s.to, s.descent_rounds)), Some((7, 10, 0)));
    /// assert_eq!(calls.next(true).map(|s| (s.from, s.to, s.descent_rounds)), Some((10, 10, 4)));
    /// ```
    pub fn rescaled(step: SearchStep, sweeps: u32, per_call: u32) -> Self {
        let from = (u64::from(step.to) * u64::from(sweeps))
            .div_ceil(u64::from(step.sweeps.max(1)))
            .min(u64::from(sweeps)) as u32;
        let mut calls = Self::new(step.stream, sweeps, per_call);
        if from > 0 {
            calls.last = Some(SearchStep { sweeps, from: 0, to: from, descent_rounds: 0, resume: false, ..step });
        }
        calls
    }

    /// A search of `sweeps` annealing sweeps that begins at `start` of its schedule: from the
    /// hottest level, or ([`AnnealStart::Halfway`]) the `sweeps` sweeps of the cooler half of a
    /// schedule twice as long.
    ///
    /// ```
    /// use pgomea::gomea::local_search::{AnnealStart, SearchCalls};
    /// let mut calls = SearchCalls::starting(0, 6, 4, AnnealStart::Halfway);
    /// assert_eq!(calls.next(true).map(|s| (s.sweeps, s.from, s.to)), Some((12, 6, 10)));
    /// assert_eq!(calls.next(true).map(|s| (s.sweeps, s.from, s.to)), Some((12, 10, 12)));
    /// assert_eq!(calls.next(true).map(|s| (s.from, s.descent_rounds)), Some((12, 4)));
    /// let mut calls = SearchCalls::starting(0, 6, 4, AnnealStart::Hot);
    /// assert_eq!(calls.next(true).map(|s| (s.sweeps, s.from, s.to)), Some((6, 0, 4)));
    /// ```
    pub fn starting(stream: u32, sweeps: u32, per_call: u32, start: AnnealStart) -> Self {
        match start {
            AnnealStart::Hot => Self::new(stream, sweeps, per_call),
            AnnealStart::Halfway => {
                let whole = sweeps.saturating_mul(2);
                let mut calls = Self::new(stream, whole, per_call);
                if sweeps > 0 {
                    let before = whole - sweeps;
                    calls.last = Some(SearchStep {
                        stream,
                        sweeps: whole,
                        from: 0,
                        to: before,
                        descent_rounds: 0,
                        resume: false,
                    });
                }
                calls
            }
        }
    }

    /// The next call, if any; `descending` says whether the call before left a solution's
    /// descent going on (read only after a call of the descent).
    pub fn next(&mut self, descending: bool) -> Option<SearchStep> {
        let (sweeps, per_call) = (self.sweeps, self.per_call);
        let sweep_from = |from: u32| SearchStep {
            stream: self.stream,
            sweeps,
            from,
            to: from.saturating_add(per_call).min(sweeps),
            descent_rounds: 0,
            resume: false,
        };
        let descent = SearchStep { from: sweeps, to: sweeps, descent_rounds: per_call, ..sweep_from(sweeps) };
        let next = match self.last {
            None if sweeps == 0 => descent,
            None => sweep_from(0),
            Some(s) if s.descent_rounds == 0 && s.to < sweeps => sweep_from(s.to),
            Some(s) if s.descent_rounds == 0 => descent,
            Some(_) if descending => SearchStep { resume: true, ..descent },
            Some(_) => return None,
        };
        self.last = Some(next);
        Some(next)
    }
}

/// Where a new population's annealing begins in its schedule of temperatures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AnnealStart {
    /// At the hottest level: a random population's, which the annealing must order first.
    #[default]
    Hot,
    /// Halfway down (the cooler half of a schedule twice as long): a population started from
    /// the elitist ([`crate::gomea::population::new_population`]). Hot enough that each
    /// solution walks its own way from the elitist's genes, too cool to lose their order.
    Halfway,
}

/// The pace of annealing on this machine: the seconds one sweep of one solution took, its greedy
/// descent included. Learned from the last whole search of a population, which tells the pace
/// of the next: a search's first sweeps overstate the whole one's (a hot sweep accepts more flips
/// than a cold one, and the first call carries costs of its own), so a search goes by its own
/// sweeps as they are only where no whole one came before it
/// ([`crate::gomea::run::SearchPlan::refit`]; `docs/decisions/0008-annealing-pace.md`).
///
/// It also keeps how much slower the early sweeps of that search were than the whole
/// ([`AnnealPace::early_ratio`]): a search of another size, whose sweeps may cost far from in
/// proportion to its solutions (on the GPU about the same from 128 to 512 of them), times its own
/// early sweeps and divides by that ratio to learn its whole pace.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnnealPace {
    pace: Option<f64>,
    early_ratio: Option<f64>,
}

impl AnnealPace {
    /// A pace of `pace` seconds per sweep of one solution.
    pub fn at(pace: f64) -> Self {
        AnnealPace { pace: Some(pace), early_ratio: None }
    }

    /// A search of `work` solution-sweeps in all (sweeps times solutions) took `took`; `early`,
    /// where the search measured it, is the pace of its early sweeps
    /// ([`crate::gomea::run::SearchPlan::observe`]).
    pub fn record(&mut self, work: f64, took: Duration, early: Option<f64>) {
        if work > 0.0 && took > Duration::ZERO {
            let pace = took.as_secs_f64() / work;
            self.pace = Some(pace);
            if let Some(early) = early.filter(|&e| e > 0.0) {
                self.early_ratio = Some(early / pace);
            }
        }
    }

    /// Whether a pace was recorded.
    pub fn known(&self) -> bool {
        self.pace.is_some_and(|pace| pace > 0.0)
    }

    /// The pace of the last whole search's early sweeps over its whole pace, where measured.
    pub fn early_ratio(&self) -> Option<f64> {
        self.early_ratio
    }

    /// The sweeps of a search of `solutions` solutions that end within `budget` at this pace,
    /// at most `sweeps` (all of them while no pace is known).
    ///
    /// ```
    /// use std::time::Duration;
    /// use pgomea::gomea::local_search::AnnealPace;
    /// let mut pace = AnnealPace::default();
    /// assert_eq!(pace.fit(3000, 32, Duration::ZERO), 3000);
    /// // 16 solutions of 1000 sweeps took 2 s: 32 solutions fit 500 sweeps into 2 s.
    /// pace.record(16.0 * 1000.0, Duration::from_secs(2), None);
    /// assert_eq!(pace.fit(3000, 32, Duration::from_secs(2)), 500);
    /// assert_eq!(pace.fit(3000, 32, Duration::from_secs(60)), 3000);
    /// assert_eq!(pace.fit(3000, 32, Duration::ZERO), 0);
    /// ```
    pub fn fit(&self, sweeps: u32, solutions: usize, budget: Duration) -> u32 {
        match self.pace {
            Some(pace) if pace > 0.0 => {
                let fit = budget.as_secs_f64() / (pace * solutions.max(1) as f64);
                // Rounded to the nearest: a quotient that floating point leaves just below a
                // whole number still counts it.
                fit.round().min(f64::from(sweeps)) as u32
            }
            _ => sweeps,
        }
    }
}

/// A share of the time as people read it: `75 %`, `0.5 %`, `< 0.01 %` (to two decimals).
///
/// ```
/// use pgomea::gomea::local_search::show_share;
/// assert_eq!([0.75, 0.005, 1e-9].map(show_share), ["75 %", "0.5 %", "< 0.01 %"]);
/// ```
pub fn show_share(share: f64) -> String {
    let p = (share * 1e4).round() / 1e2;
    if p == 0.0 && share > 0.0 { "< 0.01 %".to_string() } else { format!("{p} %") }
}

impl SearchStep {
    /// The device's annealing of this call, drawing from `seed`, with the schedule's levels and
    /// table where `placed` has them.
    pub fn anneal(self, seed: u64, placed: Anneal) -> Anneal {
        Anneal {
            sweeps: self.sweeps,
            from: self.from,
            to: self.to,
            descent_rounds: self.descent_rounds,
            stream: self.stream,
            seed,
            ..placed
        }
    }
}

impl AnnealSchedule {
    /// Time linear in the subfunction entries; stops with `Error::Stopped` when `stop` says so.
    pub fn new(f: &Subfunctions, seed: u64, stop: &StopCheck) -> Result<Self, Error> {
        // The gains of the single flips of a random genotype.
        let mut rng = SplitMix64::stream(seed, streams::ANNEAL_PROBE);
        let x: Vec<u8> = stop.filled(f.variables(), |_| rng.coin() as u8)?;
        kind_visitor! {
            struct Gains<'x> { f: &'x Subfunctions, genes: &'x [u8], stop: &'x StopCheck }
            fn visit<K>(kind) -> Result<Vec<u64>, StopReason> {
                let x = Ptr::from_slice(genes);
                let mut gains = Vec::new();
                for v in 0..f.variables() as u32 {
                    stop.every(v as usize, 4096)?;
                    let flipped = pgomea_device::problem::Flipped { genes: x, variable: v };
                    // SAFETY: s is a subfunction of the kind's checked arrays, x has l genes.
                    let g: i64 = f.dependent(v as usize).iter().map(|&s| unsafe { kind.delta(s, x, flipped) }).sum();
                    if g != 0 {
                        gains.push(g.unsigned_abs());
                    }
                }
                Ok(gains)
            }
        }
        let mut gains = f.with_kind(Gains { f, genes: &x, stop })?;
        // The median (the middle of the sorted gains) and the smallest, in linear time.
        let (median, smallest) = match gains.iter().min() {
            Some(&m) => {
                let middle = gains.len() / 2;
                (*gains.select_nth_unstable(middle).1 as f64, m as f64)
            }
            None => (1.0, 1.0),
        };
        let hot = median / std::f64::consts::LN_2;
        let cold = (smallest / 1000f64.ln()).min(hot);
        let last = (ANNEAL_LEVELS - 1) as f64;
        let hottest = std::f64::consts::LOG2_E / hot * 4294967296.0;
        let gain_shift = ((SCALE_PRECISION as f64) - hottest.log2()).ceil().clamp(0.0, 62.0) as u32;
        let scales = (0..ANNEAL_LEVELS)
            .map(|k| {
                let t = hot * (cold / hot).powf(k as f64 / last);
                (std::f64::consts::LOG2_E / t * 4294967296.0 * (gain_shift as f64).exp2()).round() as u64
            })
            .collect();
        let table = (0..256).map(|q| (4294967296.0 * (-(q as f64) / 256.0).exp2()).round() as u64).collect();
        Ok(AnnealSchedule { scales, gain_shift, table })
    }

    /// The device's view of one call of a search over these (host) arrays, drawing from `seed`.
    pub fn anneal(&self, seed: u64, step: SearchStep) -> Anneal {
        let placed = Anneal {
            scales: Ptr::from_slice(&self.scales),
            table: Ptr::from_slice(&self.table),
            gain_shift: self.gain_shift,
            ..Anneal::default()
        };
        step.anneal(seed, placed)
    }
}

/// What local search reads besides the problem, put in `place`: the colours of the variables
/// with their entries, and the annealing schedule (the rest of the annealing is set per call,
/// [`SearchStep::anneal`]).
pub fn search_args<P: ArrayPlace>(
    colors: &VariableColors,
    schedule: &AnnealSchedule,
    place: &mut P,
) -> Result<SearchArgs, P::Error> {
    Ok(SearchArgs {
        colors: colors.colors() as u32,
        color_offsets: place.place(&colors.offsets)?,
        color_vars: place.place(&colors.vars)?,
        shift: colors.shift,
        degrees: place.place(&colors.degrees)?,
        slices: place.place(&colors.slices)?,
        entries: place.place(&colors.entries)?,
        weights: place.place(&colors.weights)?,
        anneal: Anneal {
            scales: place.place(&schedule.scales)?,
            table: place.place(&schedule.table)?,
            gain_shift: schedule.gain_shift,
            ..Anneal::default()
        },
        gains: Ptr::default(),
    })
}

/// The subfunction evaluations of one round of local search of one solution: every variable's
/// subfunctions once, i.e. the sum of the subfunctions' arities.
pub fn evaluations_per_round(f: &Subfunctions) -> u64 {
    f.entries() as u64
}

/// One call of the local search of `x` (the genotype of solution `solution`), colour after
/// colour: the annealing sweeps and the rounds of the greedy descent that `step` asks for,
/// drawing from `seed`, asking `stop` as it goes. Returns the gain in fitness, the number of
/// sweeps and rounds, and whether the descent goes on (see
/// `pgomea_device::stage::search_genotype`).
///
/// # Safety
///
/// `kind` is the kind of the problem `colors` was built for (from its `with_kind`), and `x` holds
/// its l genes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn search_genotype<K: Kind>(
    kind: &K,
    colors: &VariableColors,
    schedule: &AnnealSchedule,
    seed: u64,
    step: SearchStep,
    solution: u32,
    x: &mut [u8],
    stop: &StopCheck,
) -> (i64, u64, bool) {
    let Ok(mut args) = search_args(colors, schedule, &mut InHost);
    args.anneal = step.anneal(seed, args.anneal);
    let mut gains = gains_scratch::<K>(step, x.len());
    // SAFETY: the caller's precondition: the arrays describe the kind's problem, x holds l genes
    // and nothing else touches it; the schedule holds its levels and table; the gains are l
    // values of this call's own, or none.
    unsafe {
        stage::search_genotype(kind, &args, Ptr::from_mut_slice(x), gains.as_ptr(), solution, &|| {
            stop.reason().is_none()
        })
    }
}

/// The scratch of a host's call of local search of l variables for its kept gains
/// (`pgomea_device::stage::keep_gain`): l values where the call keeps them, else none.
pub fn gains_scratch<K: Kind>(step: SearchStep, l: usize) -> GainsScratch {
    let keeps = stage::keeps_gains::<K>(step.to - step.from, step.descent_rounds);
    GainsScratch(if keeps { vec![0; l] } else { Vec::new() })
}

/// A search's scratch for its kept gains ([`gains_scratch`]).
pub struct GainsScratch(Vec<i64>);

impl GainsScratch {
    /// The scratch for the device's search: null where there is none.
    pub fn as_ptr(&mut self) -> Ptr<i64> {
        if self.0.is_empty() { Ptr::default() } else { Ptr::from_mut_slice(&mut self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgomea_device::stage::WARP_SHIFT;

    #[test]
    fn a_call_that_keeps_the_gains_is_long_enough_to_keep_them() {
        use pgomea_device::problem::{Clauses, Pairwise};
        // 16 solutions of a complete graph of 1000 vertices (999,000 entries a sweep): the bound
        // of evaluations alone gives calls of 2 sweeps, which would recompute every gain.
        assert_eq!(per_call(999_000, 16, 1), 2);
        assert_eq!(per_call(999_000, 16, least_per_call::<Pairwise>(true)), stage::KEEP_GAINS_FROM);
        assert!(stage::keeps_gains::<Pairwise>(per_call(999_000, 16, least_per_call::<Pairwise>(true)), 0));
        // Where the device does not keep them, or the kind has none, the bound alone.
        assert_eq!(per_call(999_000, 16, least_per_call::<Pairwise>(false)), 2);
        assert_eq!(per_call(999_000, 16, least_per_call::<Clauses>(true)), 2);
        // A sparse model's calls are longer anyway.
        assert_eq!(per_call(40_000, 16, least_per_call::<Pairwise>(true)), 52);
    }

    #[test]
    fn the_schedule_keeps_its_precision_on_weights_of_any_size() {
        // One ring of weights, at a scale of 1 and of 2^44 (a fine grid of real weights): the
        // same walk of temperatures relative to the weights, with no scale rounded to 0, and the
        // acceptance of a worsening by the median the same at every level.
        let schedule = |unit: i64| {
            let weights: Vec<i64> = (0..64).map(|k| unit * (1 + (k * 37 % 11))).collect();
            let ends: Vec<u32> = (0..64u32).flat_map(|k| [k, (k + 1) % 64]).collect();
            let f = Subfunctions::pairwise(64, ends, weights).unwrap();
            AnnealSchedule::new(&f, 5, &StopCheck::never()).unwrap()
        };
        let (small, large) = (schedule(1), schedule(1 << 44));
        assert_eq!(small.gain_shift, 0, "integer weights anneal as before");
        // Weights of a Gaussian spin glass's scale (round(N(0,1) * 10^5), gains of a few 10^5)
        // anneal as before too, bit for bit.
        assert_eq!(schedule(300_000).gain_shift, 0, "10^5-scale weights anneal as before");
        assert!(large.gain_shift > 0 && large.scales.iter().all(|&s| s >= 1 << (SCALE_PRECISION - 1)));
        for (a, b) in small.scales.iter().zip(&large.scales) {
            let (a, b) = (*a as f64, *b as f64 * ((1u64 << 44) >> large.gain_shift) as f64);
            // Each scale of at least 2^(SCALE_PRECISION - 1) is rounded to within half a unit.
            assert!((a - b).abs() <= a / (1u64 << (SCALE_PRECISION - 1)) as f64, "{a} {b}");
        }
    }

    #[test]
    fn the_sliced_entries_are_each_variables_subfunctions_or_partners() {
        use crate::problem::generate::{self, WeightRange};
        use crate::problem::{GrayBoxProblem, maxcut::MaxCut, nk};
        let graph = generate::random(300, 1400, WeightRange { min: -4, max: 9 }, 2).unwrap();
        let problems: Vec<Box<dyn GrayBoxProblem>> =
            vec![Box::new(MaxCut::new(graph).unwrap()), Box::new(nk::sliding_window(130, 4, 3).unwrap())];
        let mut rng = SplitMix64::new(4);
        for p in problems {
            let f = p.functions();
            // Colours of uneven sizes, not multiples of a slice, the variables out of order.
            let groups: Vec<Vec<u32>> = (0..7u32)
                .map(|c| (0..f.variables() as u32).rev().filter(|v| (v * 5 + v / 3) % 7 == c).collect())
                .collect();
            let host = VariableColors::new(&groups, f, 0);
            let warps = VariableColors::new(&groups, f, WARP_SHIFT);
            assert_eq!((host.shift, warps.shift), (0, WARP_SHIFT));
            // The same variables in each colour; the GPU's form by degree, the largest first
            // (ties ascending), so that a warp's slice is little wider than its entries.
            assert_eq!(host.offsets, warps.offsets);
            for c in host.offsets.windows(2) {
                let (a, b) = (c[0] as usize, c[1] as usize);
                let mut by_degree = host.vars[a..b].to_vec();
                by_degree.sort_by_key(|&v| (std::cmp::Reverse(f.dependent(v as usize).len()), v));
                assert_eq!(warps.vars[a..b], by_degree[..]);
                assert!(host.vars[a..b].is_sorted_by(|x, y| x > y), "the host's form keeps the colour's order");
            }
            let pairwise = f.arrays().pairwise_weights().is_some();
            let x: Vec<u8> = (0..f.variables()).map(|_| rng.coin() as u8).collect();
            for colors in [&host, &warps] {
                assert_eq!(colors.weights.len(), if pairwise { colors.entries.len() } else { 0 });
                let mut seen = vec![false; colors.entries.len()];
                for (p, &v) in colors.vars.iter().enumerate() {
                    let subs = f.dependent(v as usize);
                    assert_eq!(colors.degrees[p] as usize, subs.len());
                    for (j, &s) in subs.iter().enumerate() {
                        let e = colors.entry(p, j);
                        assert!(!seen[e], "entry {e} twice");
                        seen[e] = true;
                        if pairwise {
                            let ends = f.variables_of(s as usize);
                            let other = if ends[0] == v { ends[1] } else { ends[0] };
                            assert_eq!(colors.entries[e], other);
                            assert_eq!(colors.weights[e], f.bounds(s as usize).0 + f.bounds(s as usize).1);
                        } else {
                            assert_eq!(colors.entries[e], s);
                        }
                    }
                }
                // The device's flip gain over these entries is the change of fitness.
                kind_visitor! {
                    struct Gains<'a> { colors: &'a VariableColors, x: &'a [u8], f: &'a Subfunctions }
                    fn visit<K>(kind) -> () {
                        let Ok(args) = search_args(colors, &AnnealSchedule::default(), &mut InHost);
                        let before = f.evaluate(x);
                        for (p, &v) in colors.vars.iter().enumerate() {
                            // SAFETY: the kind of f, its colours, l genes.
                            let gain = unsafe { stage::flip_gain(&kind, &args, Ptr::from_slice(x), p, v) };
                            let mut y = x.to_vec();
                            y[v as usize] ^= 1;
                            assert_eq!(before + gain, f.evaluate(&y), "{}: position {p}", K::NAME);
                        }
                    }
                }
                f.with_kind(Gains { colors, x: &x, f });
            }
        }
    }

    #[test]
    fn the_pace_of_one_search_fits_the_next_into_its_budget() {
        let ms = Duration::from_millis;
        let mut pace = AnnealPace::default();
        // Nothing learned yet: as asked, whatever the budget.
        assert_eq!(pace.fit(100, 16, Duration::ZERO), 100);
        pace.record(16.0 * 100.0, ms(800), None);
        // 0.5 ms a sweep of a solution: 32 solutions fit 50 sweeps into 0.8 s, 100 into 1.6 s,
        // and no more than asked into more.
        assert_eq!([800, 1600, 60_000, 0].map(|b| pace.fit(100, 32, ms(b))), [50, 100, 100, 0]);
        // A search of no sweeps teaches nothing.
        pace.record(0.0, ms(1), Some(1.0));
        assert_eq!(pace.fit(100, 32, ms(800)), 50);
        // The last whole search counts.
        pace.record(32.0 * 50.0, ms(400), None);
        assert_eq!(pace.fit(100, 32, ms(800)), 100);
    }
}
