//! The subfunctions of a problem ([`Subfunctions`]): the flat arrays of one of the device crate's
//! problem kinds, checked once when they are built, with the two-way incidence (variables of a
//! subfunction, subfunctions of a variable) that partial evaluation, the linkage models and the
//! colourings need; and where those arrays are put for the steps that read them ([`ArrayPlace`]).

use pgomea_device::mem::Ptr;
use pgomea_device::problem::{Clauses, Csr, Kind, MAX_TABLE_ARITY, Pairwise, Tables};
use rayon::prelude::*;

use super::{KindVisitor, memory};
use crate::error::{Error, Result};
use crate::stop::{StopCheck, WORK_PER_CHECK};

/// Element types of the arrays the steps read: plain integers (every bit pattern a value, no
/// padding), so that an array may be handled as its bytes (what the CUDA upload copies).
///
/// # Safety
///
/// Only for plain integer types.
pub unsafe trait Plain: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static {}
// SAFETY: plain integers.
unsafe impl Plain for u8 {}
// SAFETY: plain integers.
unsafe impl Plain for i32 {}
// SAFETY: plain integers.
unsafe impl Plain for u32 {}
// SAFETY: plain integers.
unsafe impl Plain for i64 {}
// SAFETY: plain integers.
unsafe impl Plain for u64 {}

/// The bytes of `array`.
pub fn bytes_of<T: Plain>(array: &[T]) -> &[u8] {
    // SAFETY: a `Plain` array is its bytes (no padding); the length is the array's own.
    unsafe { std::slice::from_raw_parts(array.as_ptr().cast(), std::mem::size_of_val(array)) }
}

/// The bytes of `array`, writable.
pub fn bytes_of_mut<T: Plain>(array: &mut [T]) -> &mut [u8] {
    // SAFETY: a `Plain` array is its bytes, and any bytes are a `Plain` value.
    unsafe { std::slice::from_raw_parts_mut(array.as_mut_ptr().cast(), std::mem::size_of_val(array)) }
}

/// Where the arrays the steps read are put for them: host memory as they are ([`InHost`]: the
/// CPU backend, serial GOMEA), device memory (the CUDA upload), or nowhere, counting their bytes
/// (the CUDA memory budget).
pub trait ArrayPlace {
    /// Why an array could not be placed.
    type Error;
    /// The address, in this place, of a copy of `array` (or of `array` itself), valid as long
    /// as the place keeps it.
    fn place<T: Plain>(&mut self, array: &[T]) -> std::result::Result<Ptr<T>, Self::Error>;
}

/// Host memory: the arrays where they are (their addresses are valid while they live).
pub struct InHost;

impl ArrayPlace for InHost {
    type Error = std::convert::Infallible;
    fn place<T: Plain>(&mut self, array: &[T]) -> std::result::Result<Ptr<T>, Self::Error> {
        Ok(Ptr::from_slice(array))
    }
}

/// The arrays of one problem kind (see `pgomea_device::problem` for their meaning), checked by the
/// constructors of [`Subfunctions`]. The host's part of the registry of kinds: a new kind is a
/// variant here, its arms in [`KindArrays::place`] and [`KindArrays::listing`] and a constructor
/// of `Subfunctions`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum KindArrays {
    Pairwise { ends: Vec<u32>, weights: Vec<i64> },
    Tables { var_offsets: Vec<u32>, vars: Vec<u32>, table_offsets: Vec<u32>, values: Vec<i64> },
    Clauses { lit_offsets: Vec<u32>, lits: Vec<u32>, weights: Vec<i64> },
}

impl KindArrays {
    /// The weights of the pairwise kind's subfunctions (an edge's or coupling's), none for
    /// another kind.
    pub fn pairwise_weights(&self) -> Option<&[i64]> {
        match self {
            KindArrays::Pairwise { weights, .. } => Some(weights),
            _ => None,
        }
    }

    /// Calls `visitor` with the kind over these arrays, put in `place` (in the order of the
    /// kind's fields).
    pub fn place<P: ArrayPlace, V: KindVisitor>(
        &self,
        place: &mut P,
        visitor: V,
    ) -> std::result::Result<V::Output, P::Error> {
        Ok(match self {
            KindArrays::Pairwise { ends, weights } => {
                visitor.visit(Pairwise { ends: place.place(ends)?, weights: place.place(weights)? })
            }
            KindArrays::Tables { var_offsets, vars, table_offsets, values } => visitor.visit(Tables {
                vars: Csr { offsets: place.place(var_offsets)?, entries: place.place(vars)? },
                table_offsets: place.place(table_offsets)?,
                values: place.place(values)?,
            }),
            KindArrays::Clauses { lit_offsets, lits, weights } => visitor.visit(Clauses {
                lits: Csr { offsets: place.place(lit_offsets)?, entries: place.place(lits)? },
                weights: place.place(weights)?,
            }),
        })
    }

    /// Calls `visitor` with the kind over these (host) arrays.
    pub fn with_kind<V: KindVisitor>(&self, visitor: V) -> V::Output {
        let Ok(out) = self.place(&mut InHost, visitor);
        out
    }

    /// The device crate's name of the kind (its kernels are named after it).
    pub fn kind_name(&self) -> &'static str {
        struct Name;
        impl KindVisitor for Name {
            type Output = &'static str;
            fn visit<K: Kind>(self, _: K) -> &'static str {
                K::NAME
            }
        }
        self.with_kind(Name)
    }

    /// Where the subfunctions' variables and bounds are read: these arrays where the kind holds
    /// them (the pairwise kind's ends and weights), else the lists the constructors built
    /// (`offsets`, `vars`, `bounds`, in [`Subfunctions`]).
    #[inline]
    fn listing<'a>(&'a self, offsets: &'a [u32], vars: &'a [u32], bounds: &'a [(i64, i64)]) -> Listing<'a> {
        match self {
            KindArrays::Pairwise { ends, weights } => Listing::Pairs { ends, weights },
            KindArrays::Tables { .. } | KindArrays::Clauses { .. } => Listing::Lists { offsets, vars, bounds },
        }
    }
}

/// The subfunctions of a problem: the arrays of one kind, checked, with the incidence both ways
/// and the range of each subfunction's values. A pairwise subfunction's variables and bounds are
/// read from the kind's `ends` and `weights` arrays themselves, so that a large graph's edges are
/// stored once.
///
/// Invariant (checked by every constructor): every variable index is below `l`; every table has
/// `2^arity` entries inside `values`; no subfunction's variable list names a variable twice (a
/// clause's literals may repeat one: its list holds the distinct variables of its literals); each
/// subfunction's bounds are its exact smallest and largest value; the fitness of every genotype,
/// and the sum of the value ranges (which bounds every partial delta), fit in i64. The kind's
/// evaluation on a genotype of `l` genes therefore reads only inside the arrays, and a
/// subfunction's value depends on the genes of its listed variables alone.
#[derive(Clone, Debug)]
pub struct Subfunctions {
    l: usize,
    arrays: KindArrays,
    /// The variables of s: `sub_vars[sub_offsets[s]..sub_offsets[s+1]]`, in the kind's order
    /// (both empty for the pairwise kind, see [`Listing`]).
    sub_offsets: Vec<u32>,
    sub_vars: Vec<u32>,
    /// The subfunctions of v, ascending: `var_subs[var_offsets[v]..var_offsets[v+1]]`.
    var_offsets: Vec<u32>,
    var_subs: Vec<u32>,
    /// The smallest and largest value of each subfunction (empty for the pairwise kind, see
    /// [`Listing`]).
    bounds: Vec<(i64, i64)>,
}

/// Where the variables and the bounds of the subfunctions are read, by the shape of the kind's
/// arrays ([`KindArrays::listing`]): every question about a subfunction's variables or bounds
/// goes through here, so that a kind is told apart in one place.
#[derive(Clone, Copy)]
enum Listing<'a> {
    /// The kind's own arrays (pairwise): s reads `ends[2s]` and `ends[2s+1]` and is worth
    /// `weights[s]` or 0; a large graph's edges are stored once.
    Pairs { ends: &'a [u32], weights: &'a [i64] },
    /// The lists the constructors built: s reads `vars[offsets[s]..offsets[s+1]]`, in the kind's
    /// order, and its values lie in `bounds[s]`.
    Lists { offsets: &'a [u32], vars: &'a [u32], bounds: &'a [(i64, i64)] },
}

impl<'a> Listing<'a> {
    /// The number of subfunctions.
    #[inline]
    fn len(self) -> usize {
        match self {
            Listing::Pairs { weights, .. } => weights.len(),
            Listing::Lists { bounds, .. } => bounds.len(),
        }
    }

    /// The (subfunction, variable) entries: the sum of the subfunctions' arities.
    #[inline]
    fn entries(self) -> usize {
        match self {
            Listing::Pairs { ends, .. } => ends.len(),
            Listing::Lists { vars, .. } => vars.len(),
        }
    }

    /// The variables of subfunction `s`, in the kind's order.
    #[inline]
    fn vars(self, s: usize) -> &'a [u32] {
        match self {
            Listing::Pairs { ends, .. } => &ends[2 * s..2 * s + 2],
            Listing::Lists { offsets, vars, .. } => &vars[offsets[s] as usize..offsets[s + 1] as usize],
        }
    }

    /// The smallest and largest value of subfunction `s`.
    #[inline]
    fn bounds(self, s: usize) -> (i64, i64) {
        match self {
            Listing::Pairs { weights, .. } => (weights[s].min(0), weights[s].max(0)),
            Listing::Lists { bounds, .. } => bounds[s],
        }
    }
}

/// Checks that a CSR offset array starts at 0, never decreases and ends at `len`.
fn check_offsets(what: &str, offsets: &[u32], len: usize) -> Result<()> {
    if offsets.first() != Some(&0)
        || offsets.windows(2).any(|w| w[0] > w[1])
        || *offsets.last().unwrap_or(&0) as usize != len
    {
        return Err(Error::usage(format!("{what}: offsets must start at 0, never decrease and end at {len}")));
    }
    Ok(())
}

impl Subfunctions {
    /// Bytes that the subfunctions of `l` variables, `m` subfunctions and `entries` (subfunction,
    /// variable) entries take beyond the kind's own arrays: the variables of each subfunction,
    /// the incidence, the bounds and what building them needs for a while. Readers and generators
    /// check this (with their arrays) before they allocate anything of that size.
    pub fn bytes_beyond_arrays(l: usize, m: usize, entries: usize) -> u128 {
        20 * m as u128 + 16 * entries as u128 + 12 * l as u128 + 64
    }

    /// Pairwise weighted subfunctions over `l` variables: subfunction s reads `ends[2s]` and
    /// `ends[2s+1]` (two different variables) and is worth `weights[s]` when they differ.
    pub fn pairwise(l: usize, ends: Vec<u32>, weights: Vec<i64>) -> Result<Subfunctions> {
        Subfunctions::pairwise_with_stop(l, ends, weights, &StopCheck::never())
    }

    /// [`Subfunctions::pairwise`], stopped (`Error::Stopped`) when `stop` says so: every pass
    /// over the subfunctions and the variables checks it (10^8 of them take seconds).
    pub fn pairwise_with_stop(l: usize, ends: Vec<u32>, weights: Vec<i64>, stop: &StopCheck) -> Result<Subfunctions> {
        if ends.len() != 2 * weights.len() {
            return Err(Error::usage(format!(
                "pairwise subfunctions: {} ends for {} weights",
                ends.len(),
                weights.len()
            )));
        }
        check_sizes(l, weights.len(), ends.len())?;
        Subfunctions::finish(l, Vec::new(), Vec::new(), Vec::new(), KindArrays::Pairwise { ends, weights }, stop)
    }

    /// Table subfunctions over `l` variables: subfunction s reads `vars[var_offsets[s]..
    /// var_offsets[s+1]]` (at most 16) and is worth `values[table_offsets[s] + index]`, the index
    /// being its genes read as a binary number, the first variable the most significant bit.
    pub fn tables(
        l: usize,
        var_offsets: Vec<u32>,
        vars: Vec<u32>,
        table_offsets: Vec<u32>,
        values: Vec<i64>,
    ) -> Result<Subfunctions> {
        Subfunctions::tables_with_stop(l, var_offsets, vars, table_offsets, values, &StopCheck::never())
    }

    /// [`Subfunctions::tables`], stopped (`Error::Stopped`) when `stop` says so (see
    /// [`Subfunctions::pairwise_with_stop`]).
    pub fn tables_with_stop(
        l: usize,
        var_offsets: Vec<u32>,
        vars: Vec<u32>,
        table_offsets: Vec<u32>,
        values: Vec<i64>,
        stop: &StopCheck,
    ) -> Result<Subfunctions> {
        check_offsets("table subfunctions", &var_offsets, vars.len())?;
        let m = var_offsets.len() - 1;
        if table_offsets.len() != m {
            return Err(Error::usage(format!(
                "table subfunctions: {} table offsets for {m} subfunctions",
                table_offsets.len()
            )));
        }
        check_sizes(l, m, vars.len())?;
        let bounds = (0..m)
            .into_par_iter()
            .with_min_len(4096)
            .map(|s| {
                stop.every(s, WORK_PER_CHECK)?;
                let arity = (var_offsets[s + 1] - var_offsets[s]) as usize;
                if arity as u32 > MAX_TABLE_ARITY {
                    return Err(Error::usage(format!(
                        "subfunction {s} reads {arity} variables; tables read at most {MAX_TABLE_ARITY}"
                    )));
                }
                let start = table_offsets[s] as usize;
                let table = values.get(start..start + (1usize << arity)).ok_or_else(|| {
                    Error::usage(format!(
                        "subfunction {s}: its table of {} values does not fit in the {} values given",
                        1usize << arity,
                        values.len()
                    ))
                })?;
                let (lo, hi) = table.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
                Ok((lo, hi))
            })
            .collect::<Result<Vec<(i64, i64)>>>()?;
        Subfunctions::finish(
            l,
            var_offsets.clone(),
            vars.clone(),
            bounds,
            KindArrays::Tables { var_offsets, vars, table_offsets, values },
            stop,
        )
    }

    /// Weighted clauses over `l` variables: subfunction s is the disjunction of the literals
    /// `lits[lit_offsets[s]..lit_offsets[s+1]]` (`2v` for x_v, `2v + 1` for not x_v), worth
    /// `weights[s]` when satisfied. A clause may repeat a variable: a repeated literal changes
    /// nothing, and a clause holding both x_v and not x_v (a tautology) is always satisfied, which
    /// the kind's evaluation computes as it stands. The clause's variables are the distinct
    /// variables of its literals, in the order of their first literal; its bounds are exact (a
    /// tautology is always worth its weight, an empty clause never anything).
    pub fn clauses(l: usize, lit_offsets: Vec<u32>, lits: Vec<u32>, weights: Vec<i64>) -> Result<Subfunctions> {
        Subfunctions::clauses_with_stop(l, lit_offsets, lits, weights, &StopCheck::never())
    }

    /// [`Subfunctions::clauses`], stopped (`Error::Stopped`) when `stop` says so (see
    /// [`Subfunctions::pairwise_with_stop`]).
    pub fn clauses_with_stop(
        l: usize,
        lit_offsets: Vec<u32>,
        lits: Vec<u32>,
        weights: Vec<i64>,
        stop: &StopCheck,
    ) -> Result<Subfunctions> {
        check_offsets("clauses", &lit_offsets, lits.len())?;
        let m = lit_offsets.len() - 1;
        if weights.len() != m {
            return Err(Error::usage(format!("clauses: {} weights for {m} clauses", weights.len())));
        }
        check_sizes(l, m, lits.len())?;
        let clause = |s: usize| &lits[lit_offsets[s] as usize..lit_offsets[s + 1] as usize];
        // In blocks of clauses, in parallel: first the number of distinct variables of each
        // clause and its bounds, then (with the offsets known) the variables themselves.
        const BLOCK: usize = 1 << 14;
        let mut counts = vec![0u32; m];
        let mut bounds = vec![(0i64, 0i64); m];
        counts.par_chunks_mut(BLOCK).zip(bounds.par_chunks_mut(BLOCK)).enumerate().try_for_each(
            |(b, (counts, bounds))| {
                stop.check()?;
                let mut scratch = ClauseScratch::default();
                for (k, (count, bound)) in counts.iter_mut().zip(bounds).enumerate() {
                    let s = b * BLOCK + k;
                    let lits = clause(s);
                    if let Some(&lit) = lits.iter().find(|&&lit| (lit >> 1) as usize >= l) {
                        return Err(Error::usage(format!(
                            "clause {s} reads variable {}, but there are only {l} variables",
                            lit >> 1
                        )));
                    }
                    let (distinct, tautology) = scratch.distinct(lits, None);
                    *count = distinct;
                    let w = weights[s];
                    *bound = if tautology {
                        (w, w)
                    } else if lits.is_empty() {
                        (0, 0)
                    } else {
                        (w.min(0), w.max(0))
                    };
                }
                Ok(())
            },
        )?;
        let mut sub_offsets = Vec::with_capacity(m + 1);
        sub_offsets.push(0u32);
        let mut total = 0u64;
        for (s, &c) in counts.iter().enumerate() {
            stop.every(s, WORK_PER_CHECK)?;
            total += c as u64;
            sub_offsets.push(u32::try_from(total).map_err(|_| too_large())?);
        }
        drop(counts);
        let mut vars = vec![0u32; total as usize];
        let mut pieces: Vec<(usize, &mut [u32])> = Vec::with_capacity(m.div_ceil(BLOCK));
        let mut rest = vars.as_mut_slice();
        for b in 0..m.div_ceil(BLOCK) {
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(m));
            let (piece, tail) = rest.split_at_mut((sub_offsets[hi] - sub_offsets[lo]) as usize);
            pieces.push((b, piece));
            rest = tail;
        }
        pieces.into_par_iter().try_for_each(|(b, piece)| {
            stop.check()?;
            let mut scratch = ClauseScratch::default();
            let mut at = 0;
            for s in b * BLOCK..((b + 1) * BLOCK).min(m) {
                let (n, _) = scratch.distinct(clause(s), Some(&mut piece[at..]));
                at += n as usize;
            }
            Ok::<(), Error>(())
        })?;
        Subfunctions::finish(l, sub_offsets, vars, bounds, KindArrays::Clauses { lit_offsets, lits, weights }, stop)
    }

    /// Checks the variables and the value range, and builds the incidence of the variables (the
    /// callers checked the memory for it, [`check_sizes`]).
    fn finish(
        l: usize,
        sub_offsets: Vec<u32>,
        sub_vars: Vec<u32>,
        bounds: Vec<(i64, i64)>,
        arrays: KindArrays,
        stop: &StopCheck,
    ) -> Result<Subfunctions> {
        let listing = arrays.listing(&sub_offsets, &sub_vars, &bounds);
        let (m, entries) = (listing.len(), listing.entries());
        let vars_of = |s: usize| listing.vars(s);
        // The first subfunction (in order) that reads a variable out of range or one twice.
        (0..m).into_par_iter().with_min_len(4096).try_for_each_init(Vec::new, |sorted, s| {
            stop.every(s, WORK_PER_CHECK)?;
            let vs = vars_of(s);
            if let Some(&v) = vs.iter().find(|&&v| v as usize >= l) {
                return Err(Error::usage(format!(
                    "subfunction {s} reads variable {v}, but there are only {l} variables"
                )));
            }
            if let Some(v) = repeated(vs, sorted) {
                return Err(Error::usage(format!("subfunction {s} names variable {v} twice")));
            }
            Ok(())
        })?;
        // Fitness in [sum of minima, sum of maxima]; a partial delta is at most the sum of the
        // ranges in absolute value. Computed in i128: no instance may overflow i64 silently.
        stop.check()?;
        let (low, high, range) = (0..m)
            .into_par_iter()
            .with_min_len(1 << 14)
            .map(|s| listing.bounds(s))
            .fold(
                || (0i128, 0i128, 0i128),
                |(a, b, c), (lo, hi)| (a + lo as i128, b + hi as i128, c + (hi as i128 - lo as i128)),
            )
            .reduce(|| (0, 0, 0), |x, y| (x.0 + y.0, x.1 + y.1, x.2 + y.2));
        if low < i64::MIN as i128 || high > i64::MAX as i128 {
            return Err(Error::usage(format!(
                "the fitness of this instance ranges from {low} to {high}: beyond 64-bit integers (at most {}), so it could not be computed exactly",
                i64::MAX
            )));
        }
        if range > i64::MAX as i128 {
            return Err(Error::usage(format!(
                "the fitness of this instance ranges from {low} to {high}, which fits in 64-bit integers, but its subfunctions' value ranges add up to {range}: beyond 64-bit integers (at most {}), so a change of fitness could not be computed exactly",
                i64::MAX
            )));
        }
        let (var_offsets, var_subs) = incidence(l, m, entries, vars_of, stop)?;
        Ok(Subfunctions { l, arrays, sub_offsets, sub_vars, var_offsets, var_subs, bounds })
    }

    /// Number of variables l.
    pub fn variables(&self) -> usize {
        self.l
    }

    /// Where the subfunctions' variables and bounds are read.
    #[inline]
    fn listing(&self) -> Listing<'_> {
        self.arrays.listing(&self.sub_offsets, &self.sub_vars, &self.bounds)
    }

    /// Number of subfunctions m.
    pub fn len(&self) -> usize {
        self.listing().len()
    }

    /// Whether there are no subfunctions.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The (subfunction, variable) entries: the sum of the subfunctions' arities.
    pub fn entries(&self) -> usize {
        self.listing().entries()
    }

    /// The variables subfunction `s` reads.
    pub fn variables_of(&self, s: usize) -> &[u32] {
        self.listing().vars(s)
    }

    /// The subfunctions that read variable `v`, ascending.
    pub fn dependent(&self, v: usize) -> &[u32] {
        &self.var_subs[self.var_offsets[v] as usize..self.var_offsets[v + 1] as usize]
    }

    /// The smallest and the largest value of subfunction `s`.
    pub fn bounds(&self, s: usize) -> (i64, i64) {
        self.listing().bounds(s)
    }

    /// The largest minus the smallest value of subfunction `s`.
    pub fn value_range(&self, s: usize) -> u64 {
        let (lo, hi) = self.bounds(s);
        hi.abs_diff(lo)
    }

    /// The smallest and largest fitness any genotype could have (sums of the bounds).
    pub fn fitness_bounds(&self) -> (i64, i64) {
        // Checked to fit at construction.
        (0..self.len()).map(|s| self.bounds(s)).fold((0i64, 0i64), |(a, b), (lo, hi)| (a + lo, b + hi))
    }

    /// The kind's arrays.
    pub(crate) fn arrays(&self) -> &KindArrays {
        &self.arrays
    }

    /// Calls `visitor` with the kind over these (host) arrays: how the CPU backend and serial
    /// GOMEA get the code the kernels run. The kind stays valid while `self` lives.
    pub fn with_kind<V: KindVisitor>(&self, visitor: V) -> V::Output {
        self.arrays.with_kind(visitor)
    }

    /// The value of subfunction `s` on `x`.
    ///
    /// # Panics
    ///
    /// If `s` is not a subfunction or `x` has fewer than l genes.
    pub fn evaluate_one(&self, s: usize, x: &[u8]) -> i64 {
        assert!(
            s < self.len() && x.len() >= self.l,
            "evaluate_one: subfunction {s} of {}, {} genes of {}",
            self.len(),
            x.len(),
            self.l
        );
        struct One<'x>(usize, &'x [u8]);
        impl KindVisitor for One<'_> {
            type Output = i64;
            fn visit<K: Kind>(self, kind: K) -> i64 {
                // SAFETY: s is a subfunction and x holds l genes (checked above); the arrays are
                // checked (the type's invariant).
                unsafe { kind.evaluate(self.0 as u32, Ptr::from_slice(self.1)) }
            }
        }
        self.with_kind(One(s, x))
    }

    /// The fitness of `x`: the sum of every subfunction.
    ///
    /// # Panics
    ///
    /// If `x` has fewer than l genes.
    pub fn evaluate(&self, x: &[u8]) -> i64 {
        assert!(x.len() >= self.l, "evaluate: {} genes of {}", x.len(), self.l);
        struct All<'x>(usize, &'x [u8]);
        impl KindVisitor for All<'_> {
            type Output = i64;
            fn visit<K: Kind>(self, kind: K) -> i64 {
                let x = Ptr::from_slice(self.1);
                // SAFETY: as in evaluate_one, for every s < m.
                (0..self.0 as u32).map(|s| unsafe { kind.evaluate(s, x) }).sum()
            }
        }
        self.with_kind(All(self.len(), x))
    }
}

fn too_large() -> Error {
    Error::usage("the instance is too large for this program (more than 2^31 variables or 2^32 variable entries)")
}

/// Refuses sizes beyond the kinds' 32-bit indices, and an instance whose incidence and bounds
/// would not fit in the memory left (a header may announce more variables than the machine can
/// hold: isolated variables cost no bytes in the file).
fn check_sizes(l: usize, m: usize, entries: usize) -> Result<()> {
    if l > u32::MAX as usize / 2 || m >= u32::MAX as usize || entries > u32::MAX as usize {
        return Err(too_large());
    }
    memory::ensure(
        Subfunctions::bytes_beyond_arrays(l, m, entries),
        &format!("an instance of {l} variables and {m} subfunctions"),
    )
}

/// Reused buffers for the distinct variables of long clauses.
#[derive(Default)]
struct ClauseScratch {
    /// (literal, position) of each literal, sorted by variable and position.
    sorted: Vec<(u32, u32)>,
    /// (position, variable) of each variable's first literal.
    firsts: Vec<(u32, u32)>,
}

impl ClauseScratch {
    /// The distinct variables of a clause's literals, in the order of their first literal
    /// (written to `out` when given): their number, and whether some variable appears with both
    /// signs (a tautology).
    fn distinct(&mut self, lits: &[u32], mut out: Option<&mut [u32]>) -> (u32, bool) {
        let mut tautology = false;
        if lits.len() <= 32 {
            let mut n = 0;
            for (i, &lit) in lits.iter().enumerate() {
                match lits[..i].iter().find(|&&p| p >> 1 == lit >> 1) {
                    Some(&first) => tautology |= first != lit,
                    None => {
                        if let Some(o) = out.as_deref_mut() {
                            o[n] = lit >> 1;
                        }
                        n += 1;
                    }
                }
            }
            return (n as u32, tautology);
        }
        self.sorted.clear();
        self.sorted.extend(lits.iter().enumerate().map(|(i, &lit)| (lit, i as u32)));
        self.sorted.sort_unstable_by_key(|&(lit, i)| (lit >> 1, i));
        self.firsts.clear();
        for group in self.sorted.chunk_by(|a, b| a.0 >> 1 == b.0 >> 1) {
            tautology |= group.iter().any(|&(lit, _)| lit != group[0].0);
            self.firsts.push((group[0].1, group[0].0 >> 1));
        }
        self.firsts.sort_unstable();
        if let Some(o) = out {
            for (slot, &(_, v)) in o.iter_mut().zip(&self.firsts) {
                *slot = v;
            }
        }
        (self.firsts.len() as u32, tautology)
    }
}

/// A variable that `vars` names twice, if any (`sorted` is a reused buffer for long lists).
fn repeated(vars: &[u32], sorted: &mut Vec<u32>) -> Option<u32> {
    if vars.len() <= 32 {
        return vars.iter().enumerate().find(|&(i, v)| vars[..i].contains(v)).map(|(_, &v)| v);
    }
    sorted.clear();
    sorted.extend_from_slice(vars);
    sorted.sort_unstable();
    sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

/// The subfunctions of every variable, ascending, in CSR form (offsets, subfunctions), from the
/// variables of every subfunction. A transpose in two passes, so that no pass writes at random
/// over all the variables: blocks of subfunctions (in parallel) sort their (variable,
/// subfunction) entries into buckets of consecutive variables, then each bucket (in parallel)
/// counts and places its entries, its counters and its part of the result small enough to stay
/// in cache. Taking the blocks in order keeps each variable's subfunctions ascending.
fn incidence<'a>(
    l: usize,
    m: usize,
    entries: usize,
    vars_of: impl Fn(usize) -> &'a [u32] + Sync,
    stop: &StopCheck,
) -> Result<(Vec<u32>, Vec<u32>)> {
    // Few entries over many variables still take buckets: the per-variable passes then run in
    // parallel, each over a bucket's share, instead of one pass over every variable.
    let small = entries < 1 << 16 && l < 1 << 16;
    // At most about 1024 buckets of at least 2^14 variables; one for small instances.
    let shift = if small { usize::BITS } else { (usize::BITS - l.leading_zeros()).saturating_sub(10).max(14) };
    let buckets = if small { 1 } else { (l >> shift) + 1 };
    let blocks = if small { 1 } else { (4 * rayon::current_num_threads()).min(m.max(1)) };
    let block_len = m.div_ceil(blocks).max(1);
    let scattered: Vec<Vec<Vec<(u32, u32)>>> = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let mut out = vec![Vec::new(); buckets];
            for s in b * block_len..((b + 1) * block_len).min(m) {
                stop.every(s, WORK_PER_CHECK)?;
                for &v in vars_of(s) {
                    out[(v as usize).checked_shr(shift).unwrap_or(0)].push((v, s as u32));
                }
            }
            Ok(out)
        })
        .collect::<Result<_>>()?;
    stop.check()?;
    let totals: Vec<usize> = (0..buckets).map(|k| scattered.iter().map(|b| b[k].len()).sum()).collect();
    let mut var_offsets = vec![0u32; l + 1];
    let mut var_subs = vec![0u32; entries];
    let mut pieces = Vec::with_capacity(buckets);
    let (mut offsets_rest, mut subs_rest) = (&mut var_offsets[1..], var_subs.as_mut_slice());
    let mut base = 0u32;
    for (k, &total) in totals.iter().enumerate() {
        let vars = if small { l } else { (l - (k << shift)).min(1 << shift) };
        let (offsets, rest) = offsets_rest.split_at_mut(vars);
        let (subs, rest_subs) = subs_rest.split_at_mut(total);
        pieces.push((k, base, offsets, subs));
        (offsets_rest, subs_rest) = (rest, rest_subs);
        base += total as u32;
    }
    let scattered = &scattered;
    pieces.into_par_iter().try_for_each(|(k, base, offsets, subs)| {
        stop.check()?;
        let lo = if small { 0 } else { k << shift };
        // offsets[i] ends variable lo + i: its degree first, then the running sum.
        for block in scattered {
            for &(v, _) in &block[k] {
                offsets[v as usize - lo] += 1;
            }
        }
        let mut cursor = Vec::with_capacity(offsets.len());
        let mut run = 0u32;
        for o in offsets.iter_mut() {
            cursor.push(run);
            run += *o;
            *o = base + run;
        }
        for block in scattered {
            for &(v, s) in &block[k] {
                let c = &mut cursor[v as usize - lo];
                subs[*c as usize] = s;
                *c += 1;
            }
        }
        Ok::<(), Error>(())
    })?;
    Ok((var_offsets, var_subs))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One instance of every kind, small enough to check by hand.
    fn one_of_each() -> Vec<Subfunctions> {
        vec![
            Subfunctions::pairwise(4, vec![0, 1, 1, 3, 2, 0], vec![5, -2, 7]).unwrap(),
            Subfunctions::tables(4, vec![0, 2, 5], vec![3, 0, 1, 2, 3], vec![0, 4], (0..12).collect()).unwrap(),
            Subfunctions::clauses(4, vec![0, 2, 3, 6], vec![0, 3, 5, 2 * 3 + 1, 2 * 2, 2], vec![1, 4, 2]).unwrap(),
        ]
    }

    #[test]
    fn the_device_kinds_name_the_variables_the_host_lists() {
        struct Vars(usize);
        impl KindVisitor for Vars {
            type Output = Vec<Vec<u32>>;
            fn visit<K: Kind>(self, kind: K) -> Vec<Vec<u32>> {
                // SAFETY: s < m of the checked arrays; k < arity(s).
                (0..self.0 as u32)
                    .map(|s| unsafe { (0..kind.arity(s)).map(|k| kind.variable(s, k)).collect() })
                    .collect()
            }
        }
        for f in one_of_each().into_iter().chain([repeating_clauses()]) {
            // A clause's list names each variable once, at its first literal.
            let from_kind: Vec<Vec<u32>> = f
                .with_kind(Vars(f.len()))
                .into_iter()
                .map(|vs| vs.iter().enumerate().filter(|&(k, v)| !vs[..k].contains(v)).map(|(_, &v)| v).collect())
                .collect();
            let from_host: Vec<Vec<u32>> = (0..f.len()).map(|s| f.variables_of(s).to_vec()).collect();
            assert_eq!(from_kind, from_host, "{}", f.arrays().kind_name());
            // The incidence is the transpose, ascending.
            for v in 0..f.variables() {
                let expected: Vec<u32> =
                    (0..f.len() as u32).filter(|&s| f.variables_of(s as usize).contains(&(v as u32))).collect();
                assert_eq!(f.dependent(v), &expected[..]);
            }
        }
    }

    /// Clauses that repeat a variable: (x0 or x0 or not x2), (x1 or not x1), (not x2 or x3 or
    /// x2 or not x2), (), (x3).
    fn repeating_clauses() -> Subfunctions {
        let lits = vec![0, 0, 5, 2, 3, 5, 6, 4, 5, 6];
        Subfunctions::clauses(4, vec![0, 3, 5, 9, 9, 10], lits, vec![3, 5, 7, 11, 2]).unwrap()
    }

    #[test]
    fn repeated_literals_and_tautologies_are_counted_exactly() {
        let f = repeating_clauses();
        assert_eq!(f.variables_of(0), &[0, 2]);
        assert_eq!(f.variables_of(1), &[1]);
        assert_eq!(f.variables_of(2), &[2, 3]);
        assert_eq!(f.variables_of(3), &[] as &[u32]);
        assert_eq!(f.dependent(2), &[0, 2]);
        // Tautologies are always worth their weight, the empty clause nothing.
        assert_eq!(
            (f.bounds(0), f.bounds(1), f.bounds(2), f.bounds(3), f.bounds(4)),
            ((0, 3), (5, 5), (7, 7), (0, 0), (0, 2))
        );
        assert_eq!(f.value_range(1), 0);
        for bits in 0u32..16 {
            let x: Vec<u8> = (0..4).map(|v| (bits >> v & 1) as u8).collect();
            let first = if x[0] == 1 || x[2] == 0 { 3 } else { 0 };
            let last = if x[3] == 1 { 2 } else { 0 };
            assert_eq!(f.evaluate(&x), first + 5 + 7 + last, "{x:?}");
            let (lo, hi) = f.fitness_bounds();
            assert!((lo..=hi).contains(&f.evaluate(&x)));
        }
        assert_eq!(f.fitness_bounds(), (12, 17));
    }

    #[test]
    fn every_kind_evaluates_as_defined() {
        let [pairwise, tables, clauses] = &one_of_each()[..] else { unreachable!() };
        let x = [1, 0, 0, 1];
        // Edges 0-1 (cut, 5), 1-3 (cut, -2), 2-0 (cut, 7).
        assert_eq!(pairwise.evaluate(&x), 10);
        // Table 0 reads x3, x0 = 1, 1: index 3 -> 3. Table 1 reads x1, x2, x3 = 0, 0, 1: index 1,
        // at offset 4 -> 5.
        assert_eq!(tables.evaluate(&x), 8);
        // (x0 or not x1): true, 1; (not x2): true, 4; (not x3 or x2 or x1): false.
        assert_eq!(clauses.evaluate(&x), 5);
        assert_eq!(clauses.evaluate_one(2, &[0, 1, 0, 1]), 2);
        assert_eq!(tables.bounds(1), (4, 11));
        assert_eq!(pairwise.value_range(1), 2);
    }

    #[test]
    fn the_incidence_of_a_large_instance_is_the_transpose_in_order() {
        // Enough entries and variables for several buckets and blocks of the two-pass transpose.
        let (l, m) = (100_000u32, 40_000usize);
        let mut rng = pgomea_device::rng::SplitMix64::new(3);
        let mut lits = Vec::new();
        let mut offsets = vec![0u32];
        for _ in 0..m {
            for _ in 0..1 + rng.index(5) {
                lits.push(rng.index(2 * l as usize) as u32);
            }
            offsets.push(lits.len() as u32);
        }
        let f = Subfunctions::clauses(l as usize, offsets, lits, vec![1; m]).unwrap();
        assert!(f.entries() >= 1 << 16);
        let mut expected = vec![Vec::new(); l as usize];
        for s in 0..m {
            for &v in f.variables_of(s) {
                expected[v as usize].push(s as u32);
            }
        }
        for (v, subs) in expected.iter().enumerate() {
            assert_eq!(f.dependent(v), &subs[..], "variable {v}");
        }
    }

    #[test]
    fn a_flip_changes_each_subfunction_as_its_delta_says() {
        // A pairwise instance with repeated edges and negative weights, and one instance of every
        // other kind; a pairwise entry is the other variable, with the subfunction's weight.
        let l = 2000usize;
        let mut rng = pgomea_device::rng::SplitMix64::new(11);
        let (mut ends, mut weights) = (Vec::new(), Vec::new());
        for _ in 0..3 * l {
            let u = rng.index(l) as u32;
            let v = (u as usize + 1 + rng.index(l - 1)) % l;
            ends.extend([u, v as u32]);
            weights.push(rng.index(11) as i64 - 5);
        }
        ends.extend([7, 9, 9, 7]);
        weights.extend([3, -4]);
        let large = Subfunctions::pairwise(l, ends, weights).unwrap();
        struct Changes<'a>(&'a Subfunctions, &'a [u8]);
        impl KindVisitor for Changes<'_> {
            type Output = ();
            fn visit<K: Kind>(self, kind: K) {
                let Changes(f, x) = self;
                let genes = Ptr::from_slice(x);
                for v in 0..f.variables() as u32 {
                    for &s in f.dependent(v as usize) {
                        let (entry, weight) = match f.listing() {
                            Listing::Pairs { weights, .. } => {
                                let ends = f.variables_of(s as usize);
                                (ends[0] ^ ends[1] ^ v, weights[s as usize])
                            }
                            Listing::Lists { .. } => (s, 0),
                        };
                        // The kinds with partners are those whose arrays list pairs.
                        assert_eq!(K::PARTNERS, matches!(f.listing(), Listing::Pairs { .. }));
                        let flipped = pgomea_device::problem::Flipped { genes, variable: v };
                        // SAFETY: s reads v (the incidence), the entry is its partner or itself,
                        // x holds l genes.
                        let (change, delta) =
                            unsafe { (kind.flip_change(entry, weight, genes, v), kind.delta(s, genes, flipped)) };
                        assert_eq!(change, delta, "{}: subfunction {s}, variable {v}", K::NAME);
                    }
                }
            }
        }
        for f in one_of_each().into_iter().chain([repeating_clauses(), large]) {
            for _ in 0..3 {
                let x: Vec<u8> = (0..f.variables()).map(|_| rng.coin() as u8).collect();
                f.with_kind(Changes(&f, &x));
            }
        }
    }

    #[test]
    fn a_range_sum_beyond_64_bits_is_named_as_such() {
        // Both ends of the fitness fit (-2^62 - 2 .. 2^62 - 1), the sum of the ranges does not.
        let e = Subfunctions::pairwise(3, vec![0, 1, 1, 2], vec![i64::MAX / 2, -(i64::MAX / 2) - 2])
            .unwrap_err()
            .to_string();
        assert!(e.contains("which fits in 64-bit integers, but its subfunctions' value ranges add up to"), "{e}");
        let e = Subfunctions::pairwise(2, vec![0, 1, 1, 0], vec![i64::MAX, 1]).unwrap_err().to_string();
        assert!(e.contains("ranges from 0 to") && !e.contains("value ranges add up"), "{e}");
    }

    #[test]
    fn malformed_arrays_are_refused() {
        let e = |r: Result<Subfunctions>| r.unwrap_err().to_string();
        assert!(e(Subfunctions::pairwise(2, vec![0, 2], vec![1])).contains("reads variable 2"));
        assert!(e(Subfunctions::pairwise(2, vec![1, 1], vec![1])).contains("twice"));
        assert!(e(Subfunctions::pairwise(2, vec![0], vec![1])).contains("1 ends for 1 weights"));
        assert!(e(Subfunctions::pairwise(2, vec![0, 1, 1, 0], vec![i64::MAX, 1])).contains("beyond 64-bit"));
        assert!(e(Subfunctions::pairwise(2, vec![0, 1, 1, 0], vec![i64::MIN, -1])).contains("beyond 64-bit"));
        assert!(e(Subfunctions::tables(2, vec![0, 2], vec![0, 1], vec![0], vec![1, 2, 3])).contains("does not fit"));
        assert!(e(Subfunctions::tables(2, vec![0, 3], vec![0, 1], vec![0], vec![0; 8])).contains("offsets"));
        assert!(e(Subfunctions::clauses(2, vec![0, 1], vec![4], vec![1])).contains("reads variable 2"));
        // A range that fits only just: the sum of the ranges is the limit.
        Subfunctions::pairwise(3, vec![0, 1, 1, 2], vec![i64::MAX / 2, i64::MAX / 2]).unwrap();
        assert!(
            e(Subfunctions::pairwise(3, vec![0, 1, 1, 2], vec![i64::MAX / 2, -(i64::MAX / 2) - 2])).contains("beyond")
        );
    }
}
