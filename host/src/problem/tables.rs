//! Problems whose subfunctions are given as tables (the device crate's tables kind): NK
//! landscapes, deceptive traps, or any small-arity function a user writes down, and their file
//! format, `.nk`.
//!
//! # The `.nk` format
//!
//! A text file of lines; tokens are separated by spaces or tabs; blank lines are ignored.
//!
//! ```text
//! c any comment                  comment lines start with `c` (anywhere)
//! p nk 6 4                       the header: `p TYPE VARIABLES SUBFUNCTIONS` (TYPE names the
//!                                problem in reports: nk, trap, ... of letters, digits and `-`)
//! o 3127766                      optional: the optimum, when known
//! f 3 1 2 3 v0 v1 v2 v3 v4 v5 v6 v7
//! ...                            one `f` line per subfunction
//! ```
//!
//! An `f` line is `f K V1 .. VK T0 .. T(2^K - 1)`: the subfunction reads the K variables V1..VK
//! (1-based, all different, K from 1 to 16) and its value for genes x_V1 .. x_VK is the table
//! entry T_i, where i is the genes read as a binary number with x_V1 the most significant bit
//! (i = 0 when all are 0, i = 2^K - 1 when all are 1). Values are integers. The fitness is the
//! sum of all subfunctions (maximised).
//!
//! Every malformed line is an error naming the file and the line.

use std::fmt::Write as _;
use std::path::Path;

use super::scale::{self, Decimal};
use super::{GrayBoxProblem, KindArrays, Subfunctions};
use crate::error::{Error, Result};
use pgomea_device::problem::MAX_TABLE_ARITY;

/// A problem of table subfunctions.
#[derive(Clone, Debug)]
pub struct TableProblem {
    pub name: String,
    /// The problem's type in reports (`nk`, `trap`, ...).
    pub problem_type: String,
    functions: Subfunctions,
    /// The optimum, when it is known (the generators compute it; a file may give it).
    pub optimum: Option<i64>,
}

impl TableProblem {
    /// A problem of `l` variables whose subfunction s reads `subfunctions[s].0` and has the table
    /// `subfunctions[s].1` (2^k entries for k variables).
    pub fn new(
        name: impl Into<String>,
        problem_type: impl Into<String>,
        l: usize,
        subfunctions: &[(Vec<u32>, Vec<i64>)],
        optimum: Option<i64>,
    ) -> Result<Self> {
        let mut var_offsets = Vec::with_capacity(subfunctions.len() + 1);
        let mut vars = Vec::new();
        let mut table_offsets = Vec::with_capacity(subfunctions.len());
        let mut values = Vec::new();
        var_offsets.push(0u32);
        for (s, (v, t)) in subfunctions.iter().enumerate() {
            if v.is_empty() || v.len() > MAX_TABLE_ARITY as usize || t.len() != 1 << v.len() {
                return Err(Error::usage(format!(
                    "subfunction {s}: {} variables and {} table entries (expected 1 to {MAX_TABLE_ARITY} variables and 2^k entries)",
                    v.len(),
                    t.len()
                )));
            }
            vars.extend_from_slice(v);
            var_offsets.push(u32::try_from(vars.len()).map_err(|_| Error::usage("too many table entries"))?);
            table_offsets.push(u32::try_from(values.len()).map_err(|_| Error::usage("too many table entries"))?);
            values.extend_from_slice(t);
        }
        u32::try_from(values.len()).map_err(|_| Error::usage("too many table entries (at most 2^32)"))?;
        let functions = Subfunctions::tables(l, var_offsets, vars, table_offsets, values)?;
        Ok(TableProblem { name: name.into(), problem_type: problem_type.into(), functions, optimum })
    }

    /// A problem of tables of real values (a Python gray-box function's, tabulated), put on one
    /// grid of integers by [`scale::floats_to_integers`]: the grid of `resolution`, each value a
    /// multiple of it within 1e-9 relative, or, when None, of the values' own decimals (integers
    /// stay integers, exactly). `optimum` (a value to reach, when known) goes on the same grid.
    /// Returns the problem and its resolution: a fitness f is worth f x resolution. Errors name
    /// the subfunction and the entry of a value that does not fit.
    pub fn from_f64(
        name: impl Into<String>,
        problem_type: impl Into<String>,
        l: usize,
        subfunctions: &[(Vec<u32>, Vec<f64>)],
        optimum: Option<f64>,
        resolution: Option<f64>,
    ) -> Result<(Self, Decimal)> {
        let mut floats: Vec<f64> = subfunctions.iter().flat_map(|(_, t)| t.iter().copied()).collect();
        let entries = floats.len();
        floats.extend(optimum);
        // The flat index of each subfunction's first entry, to name a value.
        let starts: Vec<usize> = subfunctions
            .iter()
            .scan(0usize, |at, (_, t)| {
                let start = *at;
                *at += t.len();
                Some(start)
            })
            .collect();
        let name_of = |i: usize| {
            if i >= entries {
                return "the value to reach".to_string();
            }
            let s = starts.partition_point(|&start| start <= i) - 1;
            format!("subfunction {s}, entry {}", i - starts[s])
        };
        // A table's values range over at most twice its largest magnitude.
        let scaled = scale::floats_to_integers(&floats, resolution, 2, name_of)?;
        let (values, optimum) = scaled.integers.split_at(entries);
        let mut rest = values;
        let integer_tables: Vec<(Vec<u32>, Vec<i64>)> = subfunctions
            .iter()
            .map(|(vars, t)| {
                let (table, after) = rest.split_at(t.len());
                rest = after;
                (vars.clone(), table.to_vec())
            })
            .collect();
        let problem = TableProblem::new(name, problem_type, l, &integer_tables, optimum.first().copied())?;
        Ok((problem, scaled.resolution))
    }

    /// Reads a `.nk` file.
    pub fn read(path: &Path) -> Result<Self> {
        let text = super::read_text(path)?;
        let name = super::instance_name(path);
        Self::parse(&text, &path.display().to_string(), &name)
    }

    /// Parses the text of a `.nk` file; `file` names it in error messages.
    pub fn parse(text: &str, file: &str, name: &str) -> Result<Self> {
        let err = |line: usize, message: String| Error::Parse { file: file.to_string(), line, message };
        let mut header: Option<(String, usize, usize, usize)> = None;
        let mut optimum = None;
        let mut subfunctions: Vec<(Vec<u32>, Vec<i64>)> = Vec::new();
        let mut last_line = 1;
        for (k, raw) in text.lines().enumerate() {
            let lineno = k + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('c') {
                continue;
            }
            last_line = lineno;
            let mut tokens = line.split_whitespace();
            let tag = tokens.next().unwrap_or_default();
            match (tag, &header) {
                ("p", None) => {
                    let t: Vec<&str> = tokens.collect();
                    if t.len() != 3 {
                        return Err(err(
                            lineno,
                            format!("expected a header `p TYPE VARIABLES SUBFUNCTIONS`, found `{line}`"),
                        ));
                    }
                    if t[0].is_empty() || !t[0].chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                        return Err(err(lineno, format!("problem type `{}`: letters, digits and `-` only", t[0])));
                    }
                    let l: usize = int(t[1], "number of variables").map_err(|m| err(lineno, m))?;
                    let m: usize = int(t[2], "number of subfunctions").map_err(|m| err(lineno, m))?;
                    if l == 0 {
                        return Err(err(lineno, "the number of variables must be at least 1".into()));
                    }
                    if l > u32::MAX as usize / 2 {
                        return Err(err(lineno, format!("{l} variables is more than this program supports")));
                    }
                    // Each `f` line takes at least 5 bytes: a larger count cannot be in the file.
                    if m > text.len() / 5 + 1 {
                        return Err(err(
                            lineno,
                            format!(
                                "the header announces {m} subfunctions, more than a file of {} bytes can hold",
                                text.len()
                            ),
                        ));
                    }
                    subfunctions.reserve(m);
                    header = Some((t[0].to_string(), l, m, lineno));
                }
                ("p", Some(_)) => return Err(err(lineno, "a second header line".into())),
                (_, None) => {
                    return Err(err(
                        lineno,
                        format!(
                            "expected the header `p TYPE VARIABLES SUBFUNCTIONS` before anything else, found `{line}`"
                        ),
                    ));
                }
                ("o", Some(_)) => {
                    let t: Vec<&str> = tokens.collect();
                    if t.len() != 1 || optimum.is_some() {
                        return Err(err(lineno, format!("expected one line `o VALUE`, found `{line}`")));
                    }
                    optimum = Some(int::<i64>(t[0], "optimum").map_err(|m| err(lineno, m))?);
                }
                ("f", Some((_, l, m, _))) => {
                    if subfunctions.len() == *m {
                        return Err(err(
                            lineno,
                            format!("more `f` lines than the {m} subfunctions the header announces"),
                        ));
                    }
                    let t: Vec<&str> = tokens.collect();
                    let k: usize =
                        int(t.first().copied().unwrap_or(""), "number of variables").map_err(|m| err(lineno, m))?;
                    if k == 0 || k > MAX_TABLE_ARITY as usize {
                        return Err(err(
                            lineno,
                            format!("a subfunction reads 1 to {MAX_TABLE_ARITY} variables, not {k}"),
                        ));
                    }
                    if t.len() != 1 + k + (1 << k) {
                        return Err(err(
                            lineno,
                            format!(
                                "a subfunction of {k} variables needs {k} variables and {} table values; found {} numbers after `f {k}`",
                                1 << k,
                                t.len() - 1
                            ),
                        ));
                    }
                    let mut vars = Vec::with_capacity(k);
                    for tok in &t[1..=k] {
                        let v: u64 = int(tok, "variable").map_err(|m| err(lineno, m))?;
                        if v < 1 || v > *l as u64 {
                            return Err(err(lineno, format!("variable {v} is out of range 1..={l}")));
                        }
                        let v = (v - 1) as u32;
                        if vars.contains(&v) {
                            return Err(err(lineno, format!("variable {} appears twice in one subfunction", v + 1)));
                        }
                        vars.push(v);
                    }
                    let table = t[1 + k..]
                        .iter()
                        .map(|tok| int::<i64>(tok, "table value"))
                        .collect::<std::result::Result<Vec<i64>, String>>()
                        .map_err(|m| err(lineno, m))?;
                    subfunctions.push((vars, table));
                }
                _ => {
                    return Err(err(
                        lineno,
                        format!("unknown line `{line}`: expected `c ...`, `o VALUE` or `f K V1 .. VK T0 ..`"),
                    ));
                }
            }
        }
        let Some((problem_type, l, m, hline)) = header else {
            return Err(err(1, "no header line `p TYPE VARIABLES SUBFUNCTIONS`".into()));
        };
        if subfunctions.len() != m {
            return Err(err(
                last_line,
                format!("the header (line {hline}) announces {m} subfunctions but the file has {}", subfunctions.len()),
            ));
        }
        TableProblem::new(name, problem_type, l, &subfunctions, optimum).map_err(|e| err(hline, e.to_string()))
    }

    /// The problem in the `.nk` format.
    pub fn to_text(&self) -> String {
        let f = &self.functions;
        let mut s = String::new();
        let _ = writeln!(s, "c {} ({}), written by pgomea", self.name, self.problem_type);
        let _ = writeln!(s, "p {} {} {}", self.problem_type, f.variables(), f.len());
        if let Some(o) = self.optimum {
            let _ = writeln!(s, "o {o}");
        }
        let KindArrays::Tables { var_offsets, vars, table_offsets, values } = f.arrays() else {
            unreachable!("a table problem has tables")
        };
        for sub in 0..f.len() {
            let vs = &vars[var_offsets[sub] as usize..var_offsets[sub + 1] as usize];
            let start = table_offsets[sub] as usize;
            let _ = write!(s, "f {}", vs.len());
            for v in vs {
                let _ = write!(s, " {}", v + 1);
            }
            for t in &values[start..start + (1 << vs.len())] {
                let _ = write!(s, " {t}");
            }
            s.push('\n');
        }
        s
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_text()).map_err(|e| Error::io(path, e))
    }
}

fn int<T: std::str::FromStr>(token: &str, what: &str) -> std::result::Result<T, String> {
    token.parse::<T>().map_err(|_| format!("{what} `{token}` is not an integer in range"))
}

impl GrayBoxProblem for TableProblem {
    fn name(&self) -> &str {
        &self.name
    }
    fn problem_type(&self) -> &str {
        &self.problem_type
    }
    fn functions(&self) -> &Subfunctions {
        &self.functions
    }
    fn known_optimum(&self) -> Option<i64> {
        self.optimum
    }
    fn statistics(&self) -> Vec<(&'static str, String)> {
        let f = &self.functions;
        let arities: Vec<usize> = (0..f.len()).map(|s| f.variables_of(s).len()).collect();
        let (lo, hi) = f.fitness_bounds();
        vec![
            ("variables", f.variables().to_string()),
            ("subfunctions", f.len().to_string()),
            ("arity_min", arities.iter().min().copied().unwrap_or(0).to_string()),
            ("arity_max", arities.iter().max().copied().unwrap_or(0).to_string()),
            ("fitness_bound_low", lo.to_string()),
            ("fitness_bound_high", hi.to_string()),
            ("optimum", self.optimum.map(|o| o.to_string()).unwrap_or_else(|| "unknown".into())),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_tables_go_on_the_grid_of_their_decimals_and_integers_stay_exact() {
        let (p, r) = TableProblem::from_f64(
            "t",
            "g",
            3,
            &[(vec![0], vec![0.5, -1.25]), (vec![1, 2], vec![0.0, 1.0, 2.0, 3.0])],
            Some(4.25),
            None,
        )
        .unwrap();
        assert_eq!(r.to_string(), "0.01");
        assert_eq!(p.optimum, Some(425));
        assert_eq!(p.evaluate(&[0, 1, 1]), 50 + 300);
        assert_eq!(p.evaluate(&[1, 0, 1]), -125 + 100);
        let (q, r) =
            TableProblem::from_f64("t", "g", 1, &[(vec![0], vec![3.0, 9007199254740992.0])], None, None).unwrap();
        assert_eq!((r.to_string(), q.evaluate(&[1])), ("1".to_string(), 1 << 53));
        // A given resolution, and the values off its grid named by subfunction and entry.
        let (q, _) =
            TableProblem::from_f64("t", "g", 2, &[(vec![0, 1], vec![0.0, 0.5, 1.0, 1.5])], None, Some(0.5)).unwrap();
        assert_eq!(q.evaluate(&[1, 1]), 3);
        let e = TableProblem::from_f64(
            "t",
            "g",
            2,
            &[(vec![0], vec![0.0, 0.5]), (vec![1], vec![0.25, 1.0])],
            None,
            Some(0.5),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("subfunction 1, entry 0: 0.25 is not a multiple of the resolution 0.5"), "{e}");
        let e =
            TableProblem::from_f64("t", "g", 1, &[(vec![0], vec![0.0, f64::NAN])], None, None).unwrap_err().to_string();
        assert!(e.contains("subfunction 0, entry 1"), "{e}");
        let e = TableProblem::from_f64("t", "g", 1, &[(vec![0], vec![0.0, 1.0])], Some(0.5), Some(1.0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("the value to reach: 0.5"), "{e}");
        // Float noise needs a grid too fine for 64-bit integers: refused, with a resolution to give.
        let e = TableProblem::from_f64("t", "g", 1, &[(vec![0], vec![0.1 + 0.2, 1000.0])], None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("give a resolution"), "{e}");
    }
}
