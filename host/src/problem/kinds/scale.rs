//! Exact decimals, and real-valued biases turned into the integers pgomea computes with.
//!
//! Fitness is a 64-bit integer, so a model given in decimals or floats (an Ising model's fields
//! and couplings, a QUBO, a table of floats, a graph's real weights) is solved on a grid: every
//! value is rounded to the nearest integer multiple of a *resolution* r, and the integers are what
//! the problem kinds add up. The grid is the one the caller gives, or the values' own decimals
//! (10^-d, d the most decimal places any value's shortest decimal form has: 0.25 needs 2) where
//! that fits, exactly, or else the finest grid on which every sum the run forms stays within
//! 64-bit integers ([`finest_grid`]). [`Scaled::rounding`] bounds how far any cut or energy moves
//! on the grid. NaN and infinities are refused. This module is the one place where reals meet the
//! grid: Max-Cut weights, `.ising`/`.qubo` files, binary quadratic models and gray-box tables all
//! come through [`to_integers`].
//!
//! [`Decimal`] is the exact number type of both directions: values parsed from text (`-1.25e-3`)
//! and energies handed back (an integer count of a decimal unit, printed exactly).

use std::fmt;

/// An exact decimal number: `units` / 10^`decimals`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decimal {
    units: i128,
    decimals: u32,
}

/// The most decimal digits an i128 holds (10^38 < 2^127).
const MAX_DIGITS: u32 = 38;

impl Decimal {
    /// `units` / 10^`decimals`.
    pub const fn new(units: i128, decimals: u32) -> Self {
        Decimal { units, decimals }
    }

    /// The integer `v`.
    pub const fn integer(v: i64) -> Self {
        Decimal { units: v as i128, decimals: 0 }
    }

    /// The integer count of the unit 10^-[`decimals`](Self::decimals).
    pub fn units(self) -> i128 {
        self.units
    }

    /// The number of decimal digits after the point.
    pub fn decimals(self) -> u32 {
        self.decimals
    }

    /// Whether the number is 0.
    pub fn is_zero(self) -> bool {
        self.units == 0
    }

    /// The same number with no trailing zero in `units` beyond the decimal point.
    pub fn normalized(self) -> Self {
        let mut d = self;
        while d.decimals > 0 && d.units % 10 == 0 {
            d.units /= 10;
            d.decimals -= 1;
        }
        d
    }

    /// An exact decimal from text: an optional sign, digits with an optional decimal point, an
    /// optional exponent (`-12`, `0.25`, `.5`, `3.`, `1e-3`, `2.5E+2`). Refuses anything else,
    /// and numbers of more than 38 significant digits.
    pub fn parse(text: &str) -> Result<Decimal, String> {
        let bad = || format!("`{text}` is not a decimal number");
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(k) => (&text[..k], Some(&text[k + 1..])),
            None => (text, None),
        };
        let (negative, digits) = match mantissa.as_bytes().first() {
            Some(b'-') => (true, &mantissa[1..]),
            Some(b'+') => (false, &mantissa[1..]),
            _ => (false, mantissa),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty() && fraction.is_empty() || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let exponent: i64 = match exponent {
            Some(e) => e.parse().map_err(|_| bad())?,
            None => 0,
        };
        // Leading zeros carry nothing; count only significant digits against i128.
        let significant = whole.bytes().chain(fraction.bytes()).skip_while(|&b| b == b'0');
        let mut units: i128 = 0;
        let mut count = 0u32;
        for b in significant {
            count += 1;
            if count > MAX_DIGITS {
                return Err(format!("`{text}` has more than {MAX_DIGITS} significant digits"));
            }
            units = units * 10 + (b - b'0') as i128;
        }
        if negative {
            units = -units;
        }
        // value = units * 10^(exponent - fraction digits)
        let scale = exponent - fraction.len() as i64;
        let d = if scale <= 0 {
            let decimals = u32::try_from(-scale).map_err(|_| bad())?;
            Decimal { units, decimals }
        } else {
            let factor = u32::try_from(scale).ok().and_then(|s| 10i128.checked_pow(s));
            match factor.and_then(|f| units.checked_mul(f)) {
                Some(units) => Decimal { units, decimals: 0 },
                None if units == 0 => Decimal { units: 0, decimals: 0 },
                None => return Err(format!("`{text}` is too large for exact arithmetic (above 10^{MAX_DIGITS})")),
            }
        };
        Ok(d.normalized())
    }

    /// The exact value of the shortest decimal that reads back as `v` (0.1 is 1/10, not the
    /// binary fraction nearest to it). NaN and infinities are refused.
    pub fn from_f64(v: f64) -> Result<Decimal, String> {
        if !v.is_finite() {
            return Err(format!("{v} is not a finite number"));
        }
        // `{:e}` prints the shortest digits that round-trip.
        Decimal::parse(&format!("{v:e}"))
    }

    /// The nearest f64 (the decimal text parsed, so correctly rounded).
    pub fn to_f64(self) -> f64 {
        self.to_string().parse().unwrap_or(f64::NAN)
    }

    /// `self` times the integer `k`, or None when it leaves i128.
    pub fn checked_mul_int(self, k: i128) -> Option<Decimal> {
        Some(Decimal { units: self.units.checked_mul(k)?, decimals: self.decimals })
    }

    /// `self` / 2, exactly (one more decimal place), or None when it leaves i128.
    pub fn checked_half(self) -> Option<Decimal> {
        Some(Decimal { units: self.units.checked_mul(5)?, decimals: self.decimals + 1 }.normalized())
    }

    /// `self` times `other`, exactly, or None when it leaves i128.
    pub fn checked_mul(self, other: Decimal) -> Option<Decimal> {
        Some(
            Decimal {
                units: self.units.checked_mul(other.units)?,
                decimals: self.decimals.checked_add(other.decimals)?,
            }
            .normalized(),
        )
    }
}

impl fmt::Display for Decimal {
    /// Exact: `-0.125`, `12`, `3.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.normalized();
        let digits = d.units.unsigned_abs().to_string();
        let sign = if d.units < 0 { "-" } else { "" };
        let places = d.decimals as usize;
        if places == 0 {
            return write!(f, "{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = places + 1);
        let (whole, fraction) = padded.split_at(padded.len() - places);
        write!(f, "{sign}{whole}.{fraction}")
    }
}

/// Why values could not be put on a grid: the message, and the index of the value it is about
/// (so that a file reader can name the value's line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleError {
    pub(crate) index: Option<usize>,
    pub(crate) message: String,
}

/// Values as integer multiples of a resolution: value i is `integers[i]` x `resolution` up to
/// `errors[i]`, its rounding (at most half the resolution; `errors` is empty where every value is
/// on the grid exactly).
#[derive(Clone, Debug, PartialEq)]
pub struct Scaled {
    /// The values as integer multiples of `resolution`.
    pub integers: Vec<i64>,
    /// The grid's step.
    pub resolution: Decimal,
    pub(crate) errors: Vec<f64>,
}

impl Scaled {
    /// The sum of the roundings: no sum of the values, each taken at most once with a factor of
    /// at most 1 in magnitude (a cut, an energy), moves by more on the grid.
    pub fn rounding(&self) -> f64 {
        self.errors.iter().fold(0.0, |a, b| a + b)
    }
}

/// The values of `floats` as exact decimals (their shortest decimal forms); the first that is
/// NaN or infinite is an error.
pub fn decimals_of(floats: &[f64]) -> Result<Vec<Decimal>, ScaleError> {
    floats
        .iter()
        .enumerate()
        .map(|(i, &v)| Decimal::from_f64(v).map_err(|message| ScaleError { index: Some(i), message }))
        .collect()
}

/// Real values on one grid of integers, for a problem built from them (a Python gray-box
/// function's tables, a graph's float weights): [`decimals_of`] and [`to_integers`] with
/// `resolution` given as a float (None: chosen from the values). An error names the value it is
/// about through `name_of(index)` (`edge 3`, `subfunction 2, entry 5`).
pub fn floats_to_integers(
    floats: &[f64],
    resolution: Option<f64>,
    range_factor: u32,
    name_of: impl Fn(usize) -> String,
) -> crate::error::Result<Scaled> {
    let to_error = |e: ScaleError| {
        crate::error::Error::usage(match e.index {
            Some(i) => format!("{}: {}", name_of(i), e.message),
            None => e.message,
        })
    };
    let values = decimals_of(floats).map_err(to_error)?;
    let resolution = resolution
        .map(|r| Decimal::from_f64(r).map_err(|m| crate::error::Error::usage(format!("resolution: {m}"))))
        .transpose()?;
    to_integers(&values, resolution, range_factor).map_err(to_error)
}

/// How far below `i64::MAX` the fitness range must stay: the run forms differences of two
/// fitness values (a flip's or a donor's gain) and sums of such gains, each within twice the
/// range.
pub const RANGE_MARGIN: f64 = 4.0;

/// `values` on a grid of integers, each rounded to the nearest multiple of the grid (half away
/// from zero). `range_factor` bounds how much the integers add up to in the problem built from
/// them (its fitness range is at most `range_factor` x the sum of their absolute values); that
/// bound, times a margin of [`RANGE_MARGIN`], must fit in i64. The grid is `resolution` when
/// given (an error says when it is too fine, and the finest that fits); when None, the grid of
/// the values' own decimals (10^-d, d the most decimal places of any value's shortest form: exact)
/// where it fits, else the finest grid that fits ([`finest_grid`]), on which the values are
/// rounded.
pub fn to_integers(values: &[Decimal], resolution: Option<Decimal>, range_factor: u32) -> Result<Scaled, ScaleError> {
    let err = |index: Option<usize>, message: String| ScaleError { index, message };
    if let Some(r) = resolution {
        if r.units <= 0 {
            return Err(err(None, format!("the resolution must be positive, not {r}")));
        }
        return round_to(values, r, range_factor).ok_or_else(|| {
            let finest = finest_grid(values, range_factor).map_or_else(|e| e.message, |f| format!("at least {f}"));
            err(
                None,
                format!(
                    "on the grid of the resolution {r} the sums of the values leave 64-bit integers: give a coarser \
                     resolution, {finest}"
                ),
            )
        });
    }
    let places = values.iter().map(|v| v.normalized().decimals).max().unwrap_or(0);
    // The values' own grid is exact wherever it fits (round_to then rounds nothing).
    if let Some(exact) = round_to(values, Decimal::new(1, places), range_factor) {
        return Ok(exact);
    }
    let mut grid = finest_grid(values, range_factor)?;
    // The finest grid is found in floating point: a value rounded up may still tip the sum over,
    // and the next coarser grid then fits.
    loop {
        if let Some(scaled) = round_to(values, grid, range_factor) {
            return Ok(scaled);
        }
        grid = Decimal { units: grid.units + 1, decimals: grid.decimals };
    }
}

/// The finest grid, of two significant digits, on which `range_factor` x the sum of |values|,
/// times [`RANGE_MARGIN`], fits in i64 (a grid of 1 where every value is 0).
pub fn finest_grid(values: &[Decimal], range_factor: u32) -> Result<Decimal, ScaleError> {
    let total: f64 = values.iter().map(|v| v.to_f64().abs()).sum::<f64>() * range_factor as f64;
    let finest = total * RANGE_MARGIN / i64::MAX as f64 * (1.0 + 1e-9);
    if finest == 0.0 {
        return Ok(Decimal::integer(1));
    }
    // finest = m x 10^e with m in [10, 100): the grid is ceil(m) x 10^e.
    let e = finest.log10().floor() as i32 - 1;
    let units = (finest / 10f64.powi(e)).ceil() as i128;
    if e >= 0 {
        let scaled = u32::try_from(e).ok().and_then(|e| 10i128.checked_pow(e)).and_then(|f| units.checked_mul(f));
        return scaled.map(|u| Decimal::new(u, 0)).ok_or_else(|| ScaleError {
            index: None,
            message: format!("the values add up to {total:e}, beyond any grid of 64-bit integers"),
        });
    }
    Ok(Decimal::new(units, (-e) as u32).normalized())
}

/// `values` rounded to the multiples of `grid`, or None when the sums leave the range (see
/// [`to_integers`]) or a value is beyond i64 steps.
fn round_to(values: &[Decimal], grid: Decimal, range_factor: u32) -> Option<Scaled> {
    let step = grid.to_f64();
    let mut integers = Vec::with_capacity(values.len());
    let mut errors = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let (k, error) = round_one(*v, grid, step)?;
        if error != 0.0 {
            if errors.is_empty() {
                errors.resize(i, 0.0);
            }
            errors.push(error);
        } else if !errors.is_empty() {
            errors.push(0.0);
        }
        integers.push(k);
    }
    let sum: i128 = integers.iter().map(|&k| k.unsigned_abs() as i128).sum();
    let bound = sum.checked_mul(range_factor as i128)?.checked_mul(RANGE_MARGIN as i128)?;
    i64::try_from(bound).ok()?;
    Some(Scaled { integers, resolution: grid, errors })
}

/// `v` / `grid` rounded to the nearest integer (half away from zero), exactly, and the rounding
/// |v - k x grid| (`step`: the grid as f64); None beyond i64.
fn round_one(v: Decimal, grid: Decimal, step: f64) -> Option<(i64, f64)> {
    // v / grid = (v.units x 10^grid.decimals) / (grid.units x 10^v.decimals).
    let (mut numerator, mut denominator) = (v.units, grid.units);
    if grid.decimals >= v.decimals {
        numerator = numerator.checked_mul(10i128.checked_pow(grid.decimals - v.decimals)?)?;
    } else {
        // A denominator beyond i128 is beyond every numerator: the value rounds to 0.
        match 10i128.checked_pow(v.decimals - grid.decimals).and_then(|f| denominator.checked_mul(f)) {
            Some(d) => denominator = d,
            None => return Some((0, v.to_f64().abs())),
        }
    }
    let mut k = numerator / denominator;
    let remainder = numerator % denominator;
    if remainder.unsigned_abs() * 2 >= denominator.unsigned_abs() {
        k += numerator.signum();
    }
    let left = numerator - k * denominator;
    let error = (left as f64 / denominator as f64).abs() * step;
    Some((i64::try_from(k).ok()?, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        Decimal::parse(text).unwrap()
    }

    #[test]
    fn decimals_parse_exactly_and_print_back() {
        for (text, units, decimals, shown) in [
            ("0.25", 25, 2, "0.25"),
            ("-12", -12, 0, "-12"),
            ("+3.500", 35, 1, "3.5"),
            (".5", 5, 1, "0.5"),
            ("3.", 3, 0, "3"),
            ("1e-3", 1, 3, "0.001"),
            ("2.5E+2", 250, 0, "250"),
            ("-0.0", 0, 0, "0"),
            ("0e999999999999", 0, 0, "0"),
            ("-1.25e-10", -125, 12, "-0.000000000125"),
        ] {
            let v = d(text);
            assert_eq!((v.units(), v.decimals(), v.to_string()), (units, decimals, shown.to_string()), "{text}");
        }
        for bad in ["", "-", ".", "1..2", "1e", "e5", "0x10", "1,5", "nan", "inf", " 1", "1e1.5", "--1"] {
            assert!(Decimal::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Decimal::parse("1e40").unwrap_err().contains("too large"));
        assert!(Decimal::parse(&"1".repeat(39)).unwrap_err().contains("38 significant"));
    }

    #[test]
    fn floats_become_their_shortest_decimals() {
        assert_eq!(Decimal::from_f64(0.1).unwrap(), Decimal::new(1, 1));
        assert_eq!(Decimal::from_f64(0.1 + 0.2).unwrap(), d("0.30000000000000004"));
        assert_eq!(Decimal::from_f64(-1e20).unwrap(), Decimal::new(-100_000_000_000_000_000_000, 0));
        assert_eq!(Decimal::from_f64(5e-324).unwrap(), Decimal::new(5, 324));
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(Decimal::from_f64(v).is_err());
        }
        for v in [0.1, -2.75, 1e-7, 123456.789, 0.1 + 0.2] {
            assert_eq!(Decimal::from_f64(v).unwrap().to_f64(), v);
        }
        assert_eq!(d("-7").checked_half().unwrap().to_string(), "-3.5");
        assert_eq!(d("0.3").checked_mul(d("-0.5")).unwrap().to_string(), "-0.15");
    }

    #[test]
    fn the_grid_of_the_values_own_decimals_is_exact() {
        let s = to_integers(&[d("0.25"), d("-1"), d("3.5")], None, 1).unwrap();
        assert_eq!(
            (s.integers.clone(), s.resolution.to_string(), s.rounding()),
            (vec![25, -100, 350], "0.01".into(), 0.0)
        );
        let s = to_integers(&[d("5"), d("-20")], None, 3).unwrap();
        assert_eq!((s.integers, s.resolution), (vec![5, -20], Decimal::integer(1)));
    }

    #[test]
    fn values_too_fine_for_their_own_grid_are_rounded_to_the_finest_that_fits() {
        // Float noise needs 17 places, and on that grid the sum leaves i64: the finest grid that
        // keeps 4 x the sum within i64 is taken, 2 significant digits, and the values rounded.
        let noisy = decimals_of(&[0.1 + 0.2, 1000.0]).unwrap();
        let s = to_integers(&noisy, None, 1).unwrap();
        assert_eq!(s.resolution.to_string(), "0.00000000000000044");
        let sum: i128 = s.integers.iter().map(|&k| k.unsigned_abs() as i128).sum();
        assert!(sum * 4 <= i64::MAX as i128 && sum * 4 * 10 / 9 > i64::MAX as i128 / 10, "{sum}");
        // Each value within half a step, and the bound is the sum of the roundings.
        for (v, (&k, &e)) in noisy.iter().zip(s.integers.iter().zip(&s.errors)) {
            let on_grid = k as f64 * s.resolution.to_f64();
            assert!((on_grid - v.to_f64()).abs() <= 0.5 * 4.4e-16 + 1e-18 && e <= 0.5 * 4.4e-16, "{v} {k} {e}");
        }
        assert!(s.rounding() > 0.0 && s.rounding() <= 4.4e-16);
        // Ties round away from zero, on both sides.
        let s = to_integers(&[d("0.25"), d("-0.25"), d("0.2")], Some(d("0.5")), 1).unwrap();
        assert_eq!(s.integers, vec![1, -1, 0]);
        assert_eq!(s.errors, vec![0.25, 0.25, 0.2]);
        // A subnormal is 0 on any grid of the others.
        let s = to_integers(&decimals_of(&[5e-324, 0.1 + 0.2]).unwrap(), None, 1).unwrap();
        assert_eq!(s.integers[0], 0);
    }

    #[test]
    fn a_given_resolution_is_a_grid_to_round_to_and_too_fine_a_one_names_the_finest() {
        let values = [d("0.5"), d("1.5"), d("0.3"), d("0.7")];
        let s = to_integers(&values, Some(d("0.5")), 1).unwrap();
        assert_eq!(s.integers, vec![1, 3, 1, 1]);
        assert!((s.rounding() - 0.4).abs() < 1e-12);
        assert!(to_integers(&values, Some(d("-1")), 1).unwrap_err().message.contains("positive"));
        let big = vec![d("9e15"); 1100];
        let e = to_integers(&big, Some(d("1")), 1).unwrap_err();
        assert!(e.message.contains("give a coarser resolution, at least 4.3"), "{}", e.message);
        let e = decimals_of(&[1.0, f64::NAN]).unwrap_err();
        assert_eq!(e.index, Some(1));
    }
}
