//! A population's state in host memory: every buffer of the device crate's table
//! (`pgomea_device::population_buffers!`) that the backends must agree on, made from that table,
//! so that a new buffer is in the snapshot, its comparison, its copies and the self-test's random
//! states without another line.

use pgomea_device::gom::NO_DONOR;
use pgomea_device::rng::{SplitMix64, mix64, streams};
use pgomea_device::stage::{BUFFER, BUFFERS, BufferSizes, Values};

use crate::problem::{Plain, bytes_of, bytes_of_mut};

/// One buffer of a [`StageState`], whatever its element type.
pub(super) trait Column {
    fn bytes(&self) -> &[u8];
    /// Makes it `len` zero elements; returns its bytes.
    fn zeroed(&mut self, len: usize) -> &mut [u8];
    /// Makes it the values `values`, each cast to the element type.
    fn set(&mut self, values: &[i64]);
}

/// The element types of the buffers, as the random states draw them.
trait Element: Plain {
    /// `v` cast (the values drawn fit every element type they are drawn for).
    fn from_i64(v: i64) -> Self;
}

macro_rules! elements {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn from_i64(v: i64) -> Self {
                v as $t
            }
        }
    )*};
}
elements!(u8, i32, u32, i64, u64);

impl<T: Element> Column for Vec<T> {
    fn bytes(&self) -> &[u8] {
        bytes_of(self)
    }
    fn zeroed(&mut self, len: usize) -> &mut [u8] {
        self.clear();
        self.resize(len, T::default());
        bytes_of_mut(self)
    }
    fn set(&mut self, values: &[i64]) {
        self.clear();
        self.extend(values.iter().map(|&v| T::from_i64(v)));
    }
}

/// The snapshot's part of the table: a field per compared buffer, and the buffers as columns.
macro_rules! stage_state {
    (
        compared { $($(#[$doc:meta])* $c:ident: $ct:ty [$($cl:tt)*] $cv:ident;)* }
        scratch { $($scratch:tt)* }
    ) => {
        /// Every buffer of a population in parallel GOM that the backends must agree on, in host
        /// memory (the device crate's table says what each holds). Row strides: `row_slots` and
        /// `row_deps` of the layout's `buffer_sizes`.
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct StageState {
            $($(#[$doc])* pub $c: Vec<$ct>,)*
        }

        impl StageState {
            /// Every buffer with its index in the device crate's `BUFFERS`.
            pub(super) fn columns(&self) -> Vec<(usize, &dyn Column)> {
                vec![$((BUFFER.$c.index(), &self.$c as &dyn Column),)*]
            }

            pub(super) fn columns_mut(&mut self) -> Vec<(usize, &mut dyn Column)> {
                vec![$((BUFFER.$c.index(), &mut self.$c as &mut dyn Column),)*]
            }
        }
    };
}
pgomea_device::population_buffers!(stage_state);

impl StageState {
    /// The first buffer in which two states differ.
    pub fn first_difference(&self, other: &StageState) -> Option<&'static str> {
        self.columns()
            .into_iter()
            .zip(other.columns())
            .find(|((_, a), (_, b))| a.bytes() != b.bytes())
            .map(|((buffer, _), _)| BUFFERS[buffer].name)
    }

    /// The first buffer in which two states differ after whole groups of GOM: every buffer but
    /// stage 3's differences (`diff`), which GOM in one pass keeps in registers, so that backends
    /// running groups in one pass and in three agree on all the rest.
    pub fn first_result_difference(&self, other: &StageState) -> Option<&'static str> {
        let diff = BUFFER.diff.index();
        self.columns()
            .into_iter()
            .zip(other.columns())
            .find(|((buffer, a), (_, b))| *buffer != diff && a.bytes() != b.bytes())
            .map(|((buffer, _), _)| BUFFERS[buffer].name)
    }

    /// A 64-bit digest of O, O' and the fitness (the self-test keeps these instead of whole
    /// states).
    pub fn digest(&self) -> u64 {
        let mut h = 0u64;
        for bytes in [&self.offspring[..], &self.work[..], bytes_of(&self.fitness)] {
            for c in bytes.chunks(8) {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                h = mix64(h ^ u64::from_le_bytes(w));
            }
            h = mix64(h ^ bytes.len() as u64);
        }
        h
    }

    /// A random but valid state of a population of `sizes`, every buffer drawn as the table's
    /// `Values` say: gene rows each near one of three genotypes (so that "no donor" happens),
    /// donors in range or `NO_DONOR`, marks of their range, no promise (`Stages::mark_converged`
    /// makes them), small numbers with many zeros (equal moves happen). Any single stage may run
    /// on it (the self-test's single-stage checks).
    pub fn random(sizes: &BufferSizes, seed: u64) -> StageState {
        let mut rng = SplitMix64::stream(seed, streams::SELFTEST_STATE);
        let l = sizes.l;
        let bases: Vec<Vec<u8>> = (0..3).map(|_| (0..l).map(|_| rng.coin() as u8).collect()).collect();
        let mut state = StageState::default();
        for (buffer, column) in state.columns_mut() {
            let spec = &BUFFERS[buffer];
            let mut base = &bases[0];
            let values: Vec<i64> = (0..spec.length.elements(sizes))
                .map(|k| match spec.values {
                    Values::Genes if l == 0 => 0,
                    Values::Genes => {
                        if k % l == 0 {
                            base = &bases[rng.index(bases.len())];
                        }
                        (base[k % l] ^ (rng.below(30) == 0) as u8) as i64
                    }
                    Values::Any if rng.coin() => 0,
                    Values::Any => rng.below(21) as i64 - 10,
                    Values::Donor if rng.below(4) == 0 => NO_DONOR as i64,
                    Values::Donor => rng.index(sizes.n) as i64,
                    Values::Flag => rng.coin() as i64,
                    Values::ForcedMark => rng.below(3) as i64,
                    Values::Schedule => rng.index(sizes.groups.max(1)) as i64,
                    // A promise drawn at random could be false; none is always true.
                    Values::Promise => 0,
                })
                .collect();
            column.set(&values);
        }
        state
    }
}
