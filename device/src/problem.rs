//! Problem kinds: how one subfunction of a gray-box problem is evaluated, on the GPU and on the
//! host alike. A kind is a small `#[repr(C)]` struct of [`Ptr`]s to the problem's flat arrays;
//! the kernels are instantiated once per kind, and the host's CPU backend, serial GOMEA and full
//! evaluations call the very same `evaluate`/`delta`.
//!
//! Subfunction `s` reads the variables `variable(s, 0..arity(s))`; the fitness is the sum of all
//! subfunctions (i64, exact in any order of summation).
//!
//! To add a kind: a struct here implementing [`Kind`] and its line in the registry
//! ([`for_each_kind`], at the end of this file), which gives the kind its name, its kernel set and
//! their exported names; on the host, its arrays (`problem::KindArrays`) and a problem type that
//! fills them (ARCHITECTURE.md, section 4).

use crate::mem::Ptr;

/// Read access to one genotype (one byte per gene, 0 or 1).
pub trait Genes: Copy {
    /// The gene of variable `v`.
    ///
    /// # Safety
    ///
    /// `v` is a variable of the problem (below l) and the genotype is live.
    unsafe fn gene(self, v: u32) -> u8;
}

/// A genotype stored as a row of l bytes.
impl Genes for Ptr<u8> {
    #[inline(always)]
    unsafe fn gene(self, v: u32) -> u8 {
        // SAFETY: v < l, the row's length (the caller's precondition).
        unsafe { self.read(v as usize) }
    }
}

/// A genotype with one variable flipped (the single-variable moves of local search).
#[derive(Clone, Copy, Debug)]
pub struct Flipped<G> {
    pub genes: G,
    pub variable: u32,
}

impl<G: Genes> Genes for Flipped<G> {
    #[inline(always)]
    unsafe fn gene(self, v: u32) -> u8 {
        // SAFETY: forwarded precondition.
        unsafe { self.genes.gene(v) ^ (v == self.variable) as u8 }
    }
}

// ANCHOR: kind_trait
/// One kind of subfunction. Its name ([`Named::NAME`]) comes from the registry
/// ([`for_each_kind`]), and with it the names of its kernels (`kernel_names::Registered`).
///
/// # Safety
///
/// Implementing: the kind is a `#[repr(C)]` struct of [`Ptr`]s and integers (kernels take it by
/// value, and the host copies it to the GPU as it is), and its methods read only inside its
/// arrays under their preconditions.
///
/// Calling (every method): `s` is a subfunction of the problem whose arrays the kind points to, those arrays are live
/// and well-formed (the host checks them when it builds the problem), and the genotypes are
/// valid for every variable of `s`.
pub unsafe trait Kind: Named + Copy + Send + Sync + 'static {
    /// The number of variables subfunction `s` reads.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn arity(&self, s: u32) -> u32;
    /// The `k`-th variable subfunction `s` reads, `k < arity(s)`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn variable(&self, s: u32, k: u32) -> u32;
    /// The value of subfunction `s` on genotype `x`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn evaluate<G: Genes>(&self, s: u32, x: G) -> i64;
    /// `f_s(new) - f_s(old)`: the change of subfunction `s` between two genotypes (stage 3 of
    /// parallel GOM, and every partial evaluation).
    ///
    /// # Safety
    ///
    /// See the trait.
    #[inline(always)]
    unsafe fn delta<G: Genes, H: Genes>(&self, s: u32, old: G, new: H) -> i64 {
        // SAFETY: forwarded precondition.
        unsafe { self.evaluate(s, new) - self.evaluate(s, old) }
    }
    /// Whether local search's entries of this kind are partners: its subfunctions read two
    /// variables, and each entry of a variable is the other variable of one of its subfunctions,
    /// with that subfunction's weight (`stage::SearchArgs`).
    const PARTNERS: bool = false;
    /// The change of one subfunction of `v` when variable `v` of `x` flips, from local search's
    /// entry: the subfunction `entry`, or for a kind with [`Kind::PARTNERS`] the other variable
    /// `entry` of a subfunction of weight `weight`. The step of a flip's gain, which a kind can
    /// take with fewer dependent loads than `delta`.
    ///
    /// # Safety
    ///
    /// See the trait; the entry is one of `v`'s.
    #[inline(always)]
    unsafe fn flip_change(&self, entry: u32, _weight: i64, x: Ptr<u8>, v: u32) -> i64 {
        // SAFETY: forwarded precondition.
        unsafe { self.delta(entry, x, Flipped { genes: x, variable: v }) }
    }
}
// ANCHOR_END: kind_trait

/// Pairwise weighted subfunctions: `f_s = w_s` if the two variables differ, else 0 (Max-Cut: one
/// subfunction per edge, worth its weight when the edge is cut).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pairwise {
    /// The two variables of each subfunction: s reads ends[2s] and ends[2s+1].
    pub ends: Ptr<u32>,
    pub weights: Ptr<i64>,
}

impl Pairwise {
    #[inline(always)]
    unsafe fn ends_of(&self, s: u32) -> (u32, u32) {
        // SAFETY: s is a subfunction, so 2s + 1 is inside `ends` (the trait's precondition).
        unsafe { (self.ends.read(2 * s as usize), self.ends.read(2 * s as usize + 1)) }
    }
}

// SAFETY: #[repr(C)], two `Ptr`s; reads ends[2s..2s+2] and weights[s] of a subfunction s.
unsafe impl Kind for Pairwise {
    #[inline(always)]
    unsafe fn arity(&self, _s: u32) -> u32 {
        2
    }
    #[inline(always)]
    unsafe fn variable(&self, s: u32, k: u32) -> u32 {
        // SAFETY: k < 2 (the trait's precondition).
        unsafe { self.ends.read(2 * s as usize + k as usize) }
    }
    /// Arithmetic rather than a branch: whether an edge is cut is a coin flip to the branch
    /// predictor.
    #[inline(always)]
    unsafe fn evaluate<G: Genes>(&self, s: u32, x: G) -> i64 {
        // SAFETY: the trait's precondition.
        unsafe {
            let (u, v) = self.ends_of(s);
            (x.gene(u) != x.gene(v)) as i64 * self.weights.read(s as usize)
        }
    }
    /// The ends and the weight read once for both genotypes; no branch (see `evaluate`).
    #[inline(always)]
    unsafe fn delta<G: Genes, H: Genes>(&self, s: u32, old: G, new: H) -> i64 {
        // SAFETY: the trait's precondition.
        unsafe {
            let (u, v) = self.ends_of(s);
            let change = (new.gene(u) != new.gene(v)) as i64 - (old.gene(u) != old.gene(v)) as i64;
            change * self.weights.read(s as usize)
        }
    }
    const PARTNERS: bool = true;
    /// The partner's gene and the weight come with the entry, without the ends: the edge is cut
    /// after the flip exactly when it was not (a subfunction never reads one variable twice). A
    /// select the compiler keeps as one (whether an edge is cut is a coin flip: as a branch, a
    /// host's predictor misses half the time).
    #[inline(always)]
    unsafe fn flip_change(&self, partner: u32, weight: i64, x: Ptr<u8>, v: u32) -> i64 {
        // SAFETY: the trait's precondition: partner is a variable.
        let cut = unsafe { x.read(partner as usize) != x.read(v as usize) };
        core::hint::select_unpredictable(cut, -weight, weight)
    }
}

/// Rows of variable length, flat (compressed sparse rows): row s is
/// `entries[offsets[s]..offsets[s+1]]`. The variables of the table subfunctions, the literals of
/// the clauses, the variables and the dependent subfunctions of a colour group's slots.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    pub offsets: Ptr<u32>,
    pub entries: Ptr<u32>,
}

impl Csr {
    /// Row `s`: the range into `entries`.
    ///
    /// # Safety
    ///
    /// `offsets` holds `s + 2` entries at least.
    #[inline(always)]
    pub unsafe fn range(self, s: usize) -> (usize, usize) {
        // SAFETY: the function's precondition.
        unsafe { (self.offsets.read(s) as usize, self.offsets.read(s + 1) as usize) }
    }

    /// The length of row `s`.
    ///
    /// # Safety
    ///
    /// As [`Csr::range`].
    #[inline(always)]
    pub unsafe fn len(self, s: u32) -> u32 {
        // SAFETY: the function's precondition.
        let (a, b) = unsafe { self.range(s as usize) };
        (b - a) as u32
    }

    /// Entry `k` of row `s`.
    ///
    /// # Safety
    ///
    /// As [`Csr::range`], and `k < len(s)`.
    #[inline(always)]
    pub unsafe fn entry(self, s: u32, k: u32) -> u32 {
        // SAFETY: the function's precondition.
        unsafe { self.entries.read(self.range(s as usize).0 + k as usize) }
    }
}

/// Subfunctions given by tables: subfunction s reads its variables, row s of `vars` (k of them,
/// k <= 16), and has the value `values[table_offsets[s] + index]`, where `index` reads their
/// genes as a binary number, the first variable the most significant bit. NK landscapes,
/// deceptive traps and any small-arity function are tables.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    pub vars: Csr,
    pub table_offsets: Ptr<u32>,
    pub values: Ptr<i64>,
}

/// The most variables a table subfunction may read (2^16 table entries).
pub const MAX_TABLE_ARITY: u32 = 16;

// SAFETY: #[repr(C)], four `Ptr`s; reads s's offsets, variables and table entry (the table of
// 2^arity entries, checked by the host).
unsafe impl Kind for Tables {
    #[inline(always)]
    unsafe fn arity(&self, s: u32) -> u32 {
        // SAFETY: the trait's precondition.
        unsafe { self.vars.len(s) }
    }
    #[inline(always)]
    unsafe fn variable(&self, s: u32, k: u32) -> u32 {
        // SAFETY: k < arity(s) (the trait's precondition).
        unsafe { self.vars.entry(s, k) }
    }
    #[inline(always)]
    unsafe fn evaluate<G: Genes>(&self, s: u32, x: G) -> i64 {
        // SAFETY: the trait's precondition; the index has arity(s) bits, inside s's table.
        unsafe {
            let (a, b) = self.vars.range(s as usize);
            let mut index = 0usize;
            for t in a..b {
                index = index << 1 | x.gene(self.vars.entries.read(t)) as usize;
            }
            self.values.read(self.table_offsets.read(s as usize) as usize + index)
        }
    }
    /// Both table indices from one pass over the variables.
    #[inline(always)]
    unsafe fn delta<G: Genes, H: Genes>(&self, s: u32, old: G, new: H) -> i64 {
        // SAFETY: as in `evaluate`.
        unsafe {
            let (a, b) = self.vars.range(s as usize);
            let (mut i_old, mut i_new) = (0usize, 0usize);
            for t in a..b {
                let v = self.vars.entries.read(t);
                i_old = i_old << 1 | old.gene(v) as usize;
                i_new = i_new << 1 | new.gene(v) as usize;
            }
            if i_old == i_new {
                return 0;
            }
            let table = self.values.offset(self.table_offsets.read(s as usize) as usize);
            table.read(i_new) - table.read(i_old)
        }
    }
}

/// Weighted clauses (MAX-SAT): subfunction s is the disjunction of its literals, row s of
/// `lits`, worth `weights[s]` when satisfied, else 0. A literal is `2 v` (variable v true) or
/// `2 v + 1` (variable v false). A clause may name a variable twice (x or not x is always
/// satisfied, and `satisfied` finds that as it stands); `variable(s, k)` is then the variable of
/// its k-th literal, repeats included (the host lists each once).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clauses {
    pub lits: Csr,
    pub weights: Ptr<i64>,
}

impl Clauses {
    /// Whether clause `s` holds on `x`.
    #[inline(always)]
    unsafe fn satisfied<G: Genes>(&self, s: u32, x: G) -> bool {
        // SAFETY: the trait's precondition.
        unsafe {
            let (a, b) = self.lits.range(s as usize);
            for t in a..b {
                let lit = self.lits.entries.read(t);
                // Literal 2v is true when x_v = 1, literal 2v + 1 when x_v = 0.
                if x.gene(lit >> 1) != (lit & 1) as u8 {
                    return true;
                }
            }
            false
        }
    }
}

// SAFETY: #[repr(C)], three `Ptr`s; reads s's offsets, literals and weight.
unsafe impl Kind for Clauses {
    /// The number of literals.
    #[inline(always)]
    unsafe fn arity(&self, s: u32) -> u32 {
        // SAFETY: the trait's precondition.
        unsafe { self.lits.len(s) }
    }
    /// The variable of the k-th literal.
    #[inline(always)]
    unsafe fn variable(&self, s: u32, k: u32) -> u32 {
        // SAFETY: k < arity(s) (the trait's precondition).
        unsafe { self.lits.entry(s, k) >> 1 }
    }
    #[inline(always)]
    unsafe fn evaluate<G: Genes>(&self, s: u32, x: G) -> i64 {
        // SAFETY: the trait's precondition.
        unsafe { if self.satisfied(s, x) { self.weights.read(s as usize) } else { 0 } }
    }
    #[inline(always)]
    unsafe fn delta<G: Genes, H: Genes>(&self, s: u32, old: G, new: H) -> i64 {
        // SAFETY: the trait's precondition.
        unsafe {
            let (was, is) = (self.satisfied(s, old), self.satisfied(s, new));
            if was == is {
                0
            } else {
                let w = self.weights.read(s as usize);
                if is { w } else { -w }
            }
        }
    }
}

// ANCHOR: registry
/// The registry of problem kinds: each kind's type and name. From this one list follow each
/// kind's [`Named::NAME`], its kernel set (`kernels.rs`) and the exported names of those
/// kernels (`kernel_names::KERNELS`, what the host loads and CI checks). A new kind is a
/// struct above implementing [`Kind`] and a line here.
macro_rules! for_each_kind {
    ($callback:ident) => {
        $callback! {
            Pairwise: "pairwise",
            Tables: "tables",
            Clauses: "clauses",
        }
    };
}
// ANCHOR_END: registry
pub(crate) use for_each_kind;

/// A kind's name in the registry ([`for_each_kind`]): the last part of its kernels' names.
/// Implemented by the registry alone.
pub trait Named {
    const NAME: &'static str;
}

macro_rules! name_kinds {
    ($($kind:ident: $name:literal,)*) => {
        $(
            impl Named for $kind {
                const NAME: &'static str = $name;
            }
        )*
    };
}
for_each_kind!(name_kinds);
