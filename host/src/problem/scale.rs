//! Exact decimals, and real-valued biases turned into the integers pgomea computes with.
//!
//! Fitness is a 64-bit integer, so a model given in decimals or floats (an Ising model's fields
//! and couplings, a QUBO, later a table of floats) is solved on a grid: every value is an integer
//! multiple of a *resolution* r, and the integers are what the problem kinds add up. Either the
//! caller gives r (each value must then be a multiple of r within 1e-9 relative, else the first
//! that is not is named), or r is found from the values themselves: 10^-d, d the most decimal
//! places any value's shortest decimal form has (0.25 needs 2, so r = 1/100), which is exact. A
//! grid on which the fitness range would leave 64-bit integers is refused with the reason and a
//! resolution that would fit. NaN and infinities are refused.
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

    pub const fn integer(v: i64) -> Self {
        Decimal { units: v as i128, decimals: 0 }
    }

    /// The integer count of the unit 10^-[`decimals`](Self::decimals).
    pub fn units(self) -> i128 {
        self.units
    }

    pub fn decimals(self) -> u32 {
        self.decimals
    }

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
    pub index: Option<usize>,
    pub message: String,
}

/// Values as integer multiples of a resolution: value i = `integers[i]` x `resolution`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scaled {
    pub integers: Vec<i64>,
    pub resolution: Decimal,
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
/// `resolution` given as a float (None: found from the values). An error names the value it is
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

/// `values` on a grid of integers. With `resolution`, each value is divided by it and must be
/// an integer within 1e-9 relative (at most 2^53 steps, where f64 division is still exact to
/// the step); without one, the grid is 10^-d for the largest number d of decimal places among the
/// values (exact). `range_factor` bounds how much the integers add up to in the problem built
/// from them (its fitness range is at most `range_factor` x the sum of their absolute values);
/// that bound must fit in i64, else the error says why and suggests a coarser resolution.
pub fn to_integers(values: &[Decimal], resolution: Option<Decimal>, range_factor: u32) -> Result<Scaled, ScaleError> {
    let err = |index: Option<usize>, message: String| ScaleError { index, message };
    let scaled = match resolution {
        Some(r) => {
            if r.units <= 0 {
                return Err(err(None, format!("the resolution must be positive, not {r}")));
            }
            let step = r.to_f64();
            let mut integers = Vec::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                let x = v.to_f64();
                let k = (x / step).round();
                if k.abs() > (1u64 << 53) as f64 {
                    return Err(err(
                        Some(i),
                        format!("{v} is more than 2^53 steps of the resolution {r}: give a coarser resolution"),
                    ));
                }
                if (k * step - x).abs() > 1e-9 * x.abs() {
                    return Err(err(Some(i), format!("{v} is not a multiple of the resolution {r}")));
                }
                integers.push(k as i64);
            }
            Scaled { integers, resolution: r }
        }
        None => {
            let places = values.iter().map(|v| v.normalized().decimals).max().unwrap_or(0);
            // The value that needs the most places decides the grid: errors name it.
            let finest = values.iter().position(|v| v.normalized().decimals == places);
            let mut integers = Vec::with_capacity(values.len());
            for v in values {
                let v = v.normalized();
                let k = 10i128
                    .checked_pow(places - v.decimals)
                    .and_then(|f| v.units.checked_mul(f))
                    .and_then(|k| i64::try_from(k).ok());
                integers.push(k.ok_or_else(|| too_wide(values, places, range_factor, finest))?);
            }
            if range(&integers, range_factor).is_none() {
                return Err(too_wide(values, places, range_factor, finest));
            }
            return Ok(Scaled { integers, resolution: Decimal::new(1, places) });
        }
    };
    if range(&scaled.integers, range_factor).is_none() {
        let r = scaled.resolution;
        return Err(err(
            None,
            format!(
                "with the resolution {r} the energy range leaves 64-bit integers: give a coarser resolution, at least {}",
                suggested(values, range_factor)
            ),
        ));
    }
    Ok(scaled)
}

/// `range_factor` x the sum of |k|, when it fits in i64.
fn range(integers: &[i64], range_factor: u32) -> Option<i64> {
    let sum: i128 = integers.iter().map(|&k| k.unsigned_abs() as i128).sum();
    i64::try_from(sum * range_factor as i128).ok()
}

/// The error for values whose own decimals make a grid too fine for 64-bit integers; `finest`
/// is the value with the most decimal places.
fn too_wide(values: &[Decimal], places: u32, range_factor: u32, finest: Option<usize>) -> ScaleError {
    let value = finest.map_or(Decimal::integer(0), |i| values[i]);
    ScaleError {
        index: finest,
        message: format!(
            "the values need a resolution of 10^-{places} to be exact ({value} has {places} decimal places), and on that \
             grid the energy range leaves 64-bit integers: give a resolution, e.g. {} (values then count as multiples \
             of it within 1e-9 relative)",
            suggested(values, range_factor)
        ),
    }
}

/// The finest power of ten on which `range_factor` x the sum of |values| fits in i64 (with a
/// margin of 2 for rounding) and no value is more than 2^53 steps, as a decimal.
fn suggested(values: &[Decimal], range_factor: u32) -> Decimal {
    let magnitudes = values.iter().map(|v| v.to_f64().abs());
    let total: f64 = magnitudes.clone().sum::<f64>() * range_factor as f64;
    let largest = magnitudes.fold(0.0, f64::max);
    let finest = (2.0 * total / i64::MAX as f64).max(largest / (1u64 << 53) as f64);
    let exponent = finest.log10().ceil().max(-(MAX_DIGITS as f64)) as i32;
    if exponent >= 0 { Decimal::new(10i128.pow(exponent as u32), 0) } else { Decimal::new(1, (-exponent) as u32) }
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
        assert_eq!(s.integers, vec![25, -100, 350]);
        assert_eq!(s.resolution.to_string(), "0.01");
        let s = to_integers(&[d("5"), d("-20")], None, 3).unwrap();
        assert_eq!((s.integers, s.resolution), (vec![5, -20], Decimal::integer(1)));
        // Float noise needs 17 places: the range leaves i64, and a resolution is suggested.
        let noisy = decimals_of(&[0.1 + 0.2, 1000.0]).unwrap();
        let e = to_integers(&noisy, None, 1).unwrap_err();
        assert!(e.message.contains("10^-17") && e.message.contains("e.g. 0.000000000001 "), "{}", e.message);
        // With a resolution, the noise is within the tolerance.
        let s = to_integers(&noisy, Some(d("1e-9")), 1).unwrap();
        assert_eq!(s.integers, vec![300_000_000, 1_000_000_000_000]);
    }

    #[test]
    fn a_given_resolution_names_the_first_value_off_the_grid() {
        let values = [d("0.5"), d("1.5"), d("0.3"), d("0.7")];
        let e = to_integers(&values, Some(d("0.5")), 1).unwrap_err();
        assert_eq!(e.index, Some(2));
        assert!(e.message.contains("0.3 is not a multiple of the resolution 0.5"), "{}", e.message);
        assert_eq!(to_integers(&values[..2], Some(d("0.5")), 1).unwrap().integers, vec![1, 3]);
        assert!(to_integers(&values, Some(d("-1")), 1).unwrap_err().message.contains("positive"));
        let e = to_integers(&[d("1e17")], Some(d("1e-3")), 1).unwrap_err();
        assert!(e.message.contains("2^53 steps"), "{}", e.message);
        let big = vec![d("9e15"); 1100];
        let e = to_integers(&big, Some(d("1")), 1).unwrap_err();
        assert!(e.message.contains("coarser resolution, at least 10"), "{}", e.message);
        let e = decimals_of(&[1.0, f64::NAN]).unwrap_err();
        assert_eq!(e.index, Some(1));
    }
}
