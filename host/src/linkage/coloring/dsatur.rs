//! DSatur (Brélaz 1979) over any enumeration of the sets' conflicts: a built LMIG's rows, or the
//! conflicts enumerated set by set ([`crate::linkage::conflicts::Conflicts`]).

use super::groups::{Coloring, UNCOLORED};
use super::lmig::degree_order;
use crate::error::Error;
use crate::stop::StopCheck;

/// DSatur (Brélaz 1979): repeatedly colour the uncoloured set whose neighbours already use the
/// most distinct colours (its saturation), ties by larger LMIG degree (`degrees`), then lower
/// index, with the smallest free colour; `neighbours(i, f)` calls `f` on every neighbour of i.
/// An indexed binary max-heap over the uncoloured sets (increase-key when a saturation grows)
/// holds the priorities; each set keeps a bitset of its neighbours' colours (freed once it is
/// coloured). O((sets + edges) log sets) plus the enumerations.
pub(super) fn dsatur_by(
    degrees: &[u32],
    mut neighbours: impl FnMut(usize, &mut dyn FnMut(u32)),
    stop: &StopCheck,
) -> Result<Coloring, Error> {
    let n = degrees.len();
    // Static tie-break rank: larger degree first, then lower index; key = saturation << 32 |
    // (n - 1 - rank), so a larger key is the better choice.
    let order = degree_order(degrees);
    let mut key = vec![0u64; n];
    for (r, &i) in order.iter().enumerate() {
        key[i as usize] = (n - 1 - r) as u64;
    }
    // The heap starts as `order`, which is sorted by decreasing key: a valid max-heap.
    let mut heap = IndexedMaxHeap { pos: vec![0; n], heap: order, key };
    for p in 0..n {
        heap.place(p, heap.heap[p]);
    }
    let mut colors = vec![UNCOLORED; n];
    let mut seen: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut done = 0usize;
    while let Some(i) = heap.pop() {
        stop.every(done, 1024)?;
        done += 1;
        let i = i as usize;
        let bits = std::mem::take(&mut seen[i]);
        let c = match bits.iter().position(|&w| w != u64::MAX) {
            Some(k) => 64 * k + (!bits[k]).trailing_zeros() as usize,
            None => 64 * bits.len(),
        };
        colors[i] = c as u32;
        let (word, bit) = (c / 64, 1u64 << (c % 64));
        neighbours(i, &mut |j| {
            let j = j as usize;
            if colors[j] != UNCOLORED {
                return;
            }
            let s = &mut seen[j];
            if s.len() <= word {
                s.resize(word + 1, 0);
            }
            if s[word] & bit == 0 {
                s[word] |= bit;
                heap.increase(j, 1 << 32);
            }
        });
    }
    Ok(Coloring::from_colors(colors))
}

/// A binary max-heap of items 0..n with keys, positions tracked for increase-key.
struct IndexedMaxHeap {
    heap: Vec<u32>,
    pos: Vec<u32>,
    key: Vec<u64>,
}

impl IndexedMaxHeap {
    /// Puts `item` at heap slot `p`, recording its position (the heap and the positions change
    /// together only here).
    #[inline]
    fn place(&mut self, p: usize, item: u32) {
        self.heap[p] = item;
        self.pos[item as usize] = p as u32;
    }

    fn pop(&mut self) -> Option<u32> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().unwrap();
        if !self.heap.is_empty() {
            self.place(0, last);
            self.sift_down(0);
        }
        Some(top)
    }

    fn increase(&mut self, item: usize, by: u64) {
        self.key[item] += by;
        self.sift_up(self.pos[item] as usize);
    }

    fn sift_up(&mut self, mut p: usize) {
        let item = self.heap[p];
        let k = self.key[item as usize];
        while p > 0 {
            let parent = (p - 1) / 2;
            let q = self.heap[parent];
            if self.key[q as usize] >= k {
                break;
            }
            self.place(p, q);
            p = parent;
        }
        self.place(p, item);
    }

    fn sift_down(&mut self, mut p: usize) {
        let n = self.heap.len();
        let item = self.heap[p];
        let k = self.key[item as usize];
        loop {
            let mut child = 2 * p + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.key[self.heap[child + 1] as usize] > self.key[self.heap[child] as usize] {
                child += 1;
            }
            let c = self.heap[child];
            if self.key[c as usize] <= k {
                break;
            }
            self.place(p, c);
            p = child;
        }
        self.place(p, item);
    }
}
