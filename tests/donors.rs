//! The donor order's fast path: for a power-of-two population (every size the multi-start
//! scheme starts from the default base of 16), the step is made odd without the gcd search; it
//! must be the step the search finds, for every size, so that no run changes.

use pgomea_device::gom::{DonorOrder, gcd};
use pgomea_device::rng::{SplitMix64, below};

/// The order as the search defines it: a start, and the first step from the drawn one (wrapping
/// to 1) that is coprime to n.
fn by_search(a: u64, b: u64, n: u32) -> (u32, u32) {
    let start = below(a, n);
    let mut step = if n > 1 { 1 + below(b, n - 1) } else { 1 };
    while gcd(step, n) != 1 {
        step += 1;
        if step >= n {
            step = 1;
        }
    }
    (start, step)
}

#[test]
fn the_donor_order_is_the_one_the_gcd_search_defines() {
    let mut rng = SplitMix64::new(9);
    let sizes = (0..=20).map(|k| 1u32 << k).chain([3, 5, 6, 12, 24, 48, 100, 1000, 1536, 4095]);
    for n in sizes {
        for _ in 0..2000 {
            let (a, b) = (rng.next_u64(), rng.next_u64());
            let o = DonorOrder::from_bits(a, b, n);
            assert_eq!((o.start, o.step), by_search(a, b, n), "n = {n}");
            assert_eq!(gcd(o.step, n), 1);
        }
    }
    // Of n = 16: the drawn steps 1 and 15 stay, the drawn step 2 becomes 3.
    assert_eq!(DonorOrder::from_bits(0, 0, 16).step, 1);
    assert_eq!(DonorOrder::from_bits(0, u64::MAX, 16).step, 15);
    assert_eq!(DonorOrder::from_bits(0, 300_000_000 << 32, 16).step, 3);
}
