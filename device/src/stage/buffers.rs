//! The buffers of one population, declared once in [`population_buffers!`](crate::population_buffers):
//! a table of name, element type, length rule ([`Length`]), values ([`Values`]) and doc. From it
//! follow the kernels' argument block [`Buffers`] (typed pointers), the table [`BUFFERS`] with
//! each buffer's size in bytes (what the backends allocate and the CUDA memory budget counts) and
//! [`BUFFER`], a typed handle of each (what the host's stage schedule copies, fills, uploads and
//! downloads). The host makes its snapshot of a population's state (`StageState`) from the same
//! table. Adding a buffer is a line in the table, and its use in a stage.

use core::marker::PhantomData;

use crate::mem::Ptr;

/// The sizes a population's buffers are made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSizes {
    /// Solutions and variables.
    pub n: usize,
    pub l: usize,
    /// The most slots, and the most dependent subfunctions, of any group (at least 1 each).
    pub row_slots: usize,
    pub row_deps: usize,
    /// Colour groups.
    pub groups: usize,
    /// Slots of every group together: the linkage sets (the buffer of one per slot holds at
    /// least one element, [`Length::Slots`]).
    pub slots: usize,
}

/// How many elements a buffer holds; the table writes each as its formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// `n * l`: n rows of l genes.
    Rows,
    /// `l`: one row of l genes (at least one element).
    Row,
    /// `n`: one per solution.
    Solutions,
    /// `n * row_slots`: one entry per slot of a group, a row per solution.
    SlotRows,
    /// `n * row_deps`: one entry per dependent subfunction of a group, a row per solution.
    DepRows,
    /// `slots`: one per slot of the layout, that is per linkage set (at least one element).
    Slots,
    /// `1 + groups`: the generation and the order of the groups (at least 2).
    Schedule,
    /// `1`, `2`: one, or two, elements.
    One,
    Two,
}

impl Length {
    pub const fn elements(self, s: &BufferSizes) -> usize {
        const fn at_least_one(x: usize) -> usize {
            if x == 0 { 1 } else { x }
        }
        match self {
            Length::Rows => s.n * s.l,
            Length::Row => at_least_one(s.l),
            Length::Solutions => s.n,
            Length::SlotRows => s.n * s.row_slots,
            Length::DepRows => s.n * s.row_deps,
            Length::Slots => at_least_one(s.slots),
            Length::Schedule => 1 + at_least_one(s.groups),
            Length::One => 1,
            Length::Two => 2,
        }
    }
}

/// What a buffer holds, as far as the steps rely on it. A random state that keeps to these is
/// valid input for any single stage (the self-test draws them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// Genes, 0 or 1.
    Genes,
    /// Any number (fitness values, differences, sums, counters).
    Any,
    /// A solution index below n, or [`crate::gom::NO_DONOR`].
    Donor,
    /// 0 or 1.
    Flag,
    /// A mark of Forced Improvement: [`super::FI_OFF`], [`super::FI_ACTIVE`], [`super::FI_IMPROVED`].
    ForcedMark,
    /// Colour groups (below the number of groups), after the generation.
    Schedule,
    /// A promise about P, 1 only where it holds (0 promises nothing, so 0 is valid on any P).
    Promise,
}

/// One buffer of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSpec {
    pub name: &'static str,
    pub element_bytes: usize,
    pub length: Length,
    pub values: Values,
    /// Whether the buffer is part of a population's state that the backends must agree on bit
    /// for bit (the rest is the GPU's own bookkeeping or the host's inputs to it).
    pub compared: bool,
}

impl BufferSpec {
    /// The buffer's size in bytes.
    pub const fn bytes(&self, sizes: &BufferSizes) -> usize {
        self.element_bytes * self.length.elements(sizes)
    }
}

/// The bytes of every buffer of a population of these sizes.
pub const fn population_bytes(sizes: &BufferSizes) -> usize {
    let (mut total, mut k) = (0, 0);
    while k < BUFFERS.len() {
        total += BUFFERS[k].bytes(sizes);
        k += 1;
    }
    total
}

/// A buffer's handle: its index into [`BUFFERS`], typed by its elements.
#[derive(Debug)]
pub struct Buf<T> {
    index: usize,
    _element: PhantomData<fn() -> T>,
}

impl<T> Clone for Buf<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Buf<T> {}

impl<T> Buf<T> {
    const fn new(index: usize) -> Self {
        Buf { index, _element: PhantomData }
    }

    pub const fn index(self) -> usize {
        self.index
    }
}

/// The table of a population's buffers: `name: element type [length] values;` with its doc, the
/// state the backends compare first, then the bookkeeping. A length is one of the formulas of
/// [`Length`] in the sizes' names (`n * l`, `n`, `n * row_slots`, `n * row_deps`, `l`, `slots`,
/// `1 + groups`, `1`, `2`). It calls `$callback!` with the table,
/// so that each crate makes what it needs of it (this crate: [`Buffers`], [`BUFFERS`],
/// [`BUFFER`]; the host: its snapshot of a population's state).
#[macro_export]
// ANCHOR: buffer_table
macro_rules! population_buffers {
    ($callback:ident) => {
        $callback! {
            compared {
                /// P (n rows of l genes): the population at the generation's start, the donors.
                parents: u8 [n * l] Genes;
                /// The fitness of P (n): the host's copy, read by no step.
                parent_fitness: i64 [n] Any;
                /// O (n rows): the offspring being mixed.
                offspring: u8 [n * l] Genes;
                /// O' (n rows): O's working copy, equal to O between groups.
                work: u8 [n * l] Genes;
                /// The fitness of O (n).
                fitness: i64 [n] Any;
                /// Stage 1's donors (n rows of `row_slots`), `NO_DONOR` for none.
                donors: i32 [n * row_slots] Donor;
                /// Stage 3's differences (n rows of `row_deps`).
                diff: i64 [n * row_deps] Any;
                /// Stage 4's deltas (n rows of `row_slots`).
                delta: i64 [n * row_slots] Any;
                /// Stage 5's mask (n rows of `row_slots`).
                mask: u8 [n * row_slots] Flag;
                /// 1 where `P[i]` is the elitist (n).
                is_elitist: u8 [n] Flag;
                /// 1 where GOM accepted a set of `O[i]` this generation (n; set atomically, cleared
                /// by the host).
                changed: u8 [n] Flag;
                /// Forced Improvement's state of each solution (n): `FI_OFF`, `FI_ACTIVE`,
                /// `FI_IMPROVED`.
                forced: u8 [n] ForcedMark;
                /// 1 where every solution of P has the same genes on the slot's linkage set (one
                /// per slot, marked at the generation's start): there `O[i]` has them too all
                /// through GOM's groups (it takes genes only from P), so stage 1 finds no donor
                /// without a look.
                converged: u8 [slots] Promise;
            }
            scratch {
                /// 1 where every solution of P has P[0]'s gene (l): what `converged` is marked
                /// from, each gene looked at once instead of once per linkage set that holds it.
                converged_genes: u8 [l] Flag;
                /// The elitist's genotype (one row): the donor of Forced Improvement, and what
                /// `is_elitist` compares P with.
                reference: u8 [l] Genes;
                /// The GPU's local search: whether solution i is still searched, and whether it
                /// flipped a variable in the current round (n each).
                search_active: u8 [n] Flag;
                search_flipped: u8 [n] Flag;
                /// The GPU's local search: [solution rounds, solutions still active summed over
                /// rounds].
                search_counters: u64 [2] Any;
                /// `[generation, group order...]`: read from memory, so that a captured CUDA
                /// graph of a whole generation can be replayed with a new order.
                schedule: u32 [1 + groups] Schedule;
                /// The barrier counters of a cooperative kernel (zero at its launch): the first
                /// for the whole grid, or one for each team of blocks (at most one per solution).
                barrier: u32 [n] Any;
            }
        }
    };
}
// ANCHOR_END: buffer_table

/// The [`Length`] of a length formula of the table.
macro_rules! length {
    (n * l) => {
        Length::Rows
    };
    (l) => {
        Length::Row
    };
    (n) => {
        Length::Solutions
    };
    (n * row_slots) => {
        Length::SlotRows
    };
    (n * row_deps) => {
        Length::DepRows
    };
    (slots) => {
        Length::Slots
    };
    (1 + groups) => {
        Length::Schedule
    };
    (1) => {
        Length::One
    };
    (2) => {
        Length::Two
    };
}

/// The [`BufferSpec`] of a row of the table.
macro_rules! spec {
    ($name:ident: $t:ty [$($len:tt)*] $values:ident, $compared:expr) => {
        BufferSpec {
            name: stringify!($name),
            element_bytes: size_of::<$t>(),
            length: length!($($len)*),
            values: Values::$values,
            compared: $compared,
        }
    };
}

/// This crate's part of the table: the argument block, the sizes and the handles.
macro_rules! declare_buffers {
    (
        compared { $($(#[$cdoc:meta])* $c:ident: $ct:ty [$($cl:tt)*] $cv:ident;)* }
        scratch { $($(#[$sdoc:meta])* $s:ident: $st:ty [$($sl:tt)*] $sv:ident;)* }
    ) => {
        /// Every buffer of one population, as the steps see them (rows of `l` genes, or of
        /// `row_slots`/`row_deps` entries): device addresses in the kernels' arguments, host
        /// addresses for the CPU backend.
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct Buffers {
            $($(#[$cdoc])* pub $c: Ptr<$ct>,)*
            $($(#[$sdoc])* pub $s: Ptr<$st>,)*
        }

        /// The buffers' positions in the table.
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy)]
        enum Index {
            $($c,)*
            $($s,)*
        }

        /// A typed handle of every buffer.
        #[derive(Clone, Copy, Debug)]
        pub struct BufferIds {
            $(pub $c: Buf<$ct>,)*
            $(pub $s: Buf<$st>,)*
        }

        /// The handles: `BUFFER.parents`, ...
        pub const BUFFER: BufferIds = BufferIds {
            $($c: Buf::new(Index::$c as usize),)*
            $($s: Buf::new(Index::$s as usize),)*
        };

        /// Every buffer, in the table's order (a handle's index is its position here).
        pub const BUFFERS: &[BufferSpec] = &[
            $(spec!($c: $ct [$($cl)*] $cv, true),)*
            $(spec!($s: $st [$($sl)*] $sv, false),)*
        ];

        impl Buffers {
            /// The buffers whose first bytes are at `base(k)` for the k-th of [`BUFFERS`] (each
            /// aligned for its elements, and as large as [`BufferSpec::bytes`]).
            pub fn at(mut base: impl FnMut(usize) -> Ptr<u8>) -> Buffers {
                Buffers {
                    $($c: base(Index::$c as usize).cast(),)*
                    $($s: base(Index::$s as usize).cast(),)*
                }
            }
        }
    };
}

population_buffers!(declare_buffers);
