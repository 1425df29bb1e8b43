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
//! Every malformed line is an error naming the file and the line, and so is a file that
//! contradicts itself: an optimum `o` outside the range of fitness its tables allow, or, for
//! subfunctions that are sliding windows (whose optimum is computed exactly when the file is
//! read), other than the exact optimum.

use std::path::Path;

use crate::error::{Error, Result};
use crate::problem::memory;
use crate::problem::scale::{self, Decimal};
use crate::problem::text::{self, Chunk, ChunkParser};
use crate::problem::{GrayBoxProblem, KindArrays, Subfunctions};
use crate::stop::StopCheck;
use pgomea_device::problem::MAX_TABLE_ARITY;

/// A problem of table subfunctions.
#[derive(Clone, Debug)]
pub struct TableProblem {
    /// A short name for reports.
    pub name: String,
    /// The problem's type in reports (`nk`, `trap`, ...).
    pub problem_type: String,
    functions: Subfunctions,
    /// The optimum, when it is known (the generators compute it; a file may give it).
    pub optimum: Option<i64>,
}

impl TableProblem {
    /// A problem of `l` variables whose subfunction s reads `subfunctions[s].0` and has the table
    /// `subfunctions[s].1` (2^k entries for k variables): entry i is its value when its genes,
    /// read as a binary number with the first variable the most significant bit, are i.
    /// `optimum`, when known, is kept as given (what a target `best-known` reaches for).
    ///
    /// ```
    /// use pgomea::problem::GrayBoxProblem;
    /// use pgomea::problem::tables::TableProblem;
    /// // Two overlapping subfunctions: x0 XOR x1 (worth 4), and 3 when x1 = 0 and x2 = 1.
    /// let tables = [(vec![0, 1], vec![0, 4, 4, 0]), (vec![1, 2], vec![0, 3, 0, 0])];
    /// let problem = TableProblem::new("tiny", "example", 3, &tables, Some(7))?;
    /// // The optimum by enumeration: 7, at x = (1, 0, 1) alone.
    /// let all: Vec<Vec<u8>> = (0..8u8).map(|i| vec![i >> 2 & 1, i >> 1 & 1, i & 1]).collect();
    /// let best = all.iter().max_by_key(|x| problem.evaluate(x)).unwrap();
    /// assert_eq!((best.as_slice(), problem.evaluate(best)), (&[1, 0, 1][..], 7));
    /// assert_eq!(problem.known_optimum(), Some(7));
    /// // A table of the wrong length is refused, naming the subfunction.
    /// let error = TableProblem::new("bad", "example", 2, &[(vec![0, 1], vec![1, 2, 3])], None).unwrap_err();
    /// assert!(error.to_string().starts_with("subfunction 0: 2 variables and 3 table entries"));
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn new(
        name: impl Into<String>,
        problem_type: impl Into<String>,
        l: usize,
        subfunctions: &[(Vec<u32>, Vec<i64>)],
        optimum: Option<i64>,
    ) -> Result<Self> {
        let mut piece = TablePiece::default();
        for (s, (v, t)) in subfunctions.iter().enumerate() {
            if v.is_empty() || v.len() > MAX_TABLE_ARITY as usize || t.len() != 1 << v.len() {
                return Err(Error::usage(format!(
                    "subfunction {s}: {} variables and {} table entries (expected 1 to {MAX_TABLE_ARITY} variables and 2^k entries)",
                    v.len(),
                    t.len()
                )));
            }
            piece.vars.extend_from_slice(v);
            piece.values.extend_from_slice(t);
            piece.end_subfunction()?;
        }
        TableProblem::from_arrays(
            name,
            problem_type,
            l,
            assemble(vec![piece], "table subfunctions")?,
            optimum,
            &StopCheck::never(),
        )
    }

    /// [`TableProblem::new`] from the flat arrays of the tables kind; every subfunction reads 1
    /// to 16 variables.
    /// The subfunctions' build checks `stop` (a file of 10^7 tables takes seconds).
    pub fn from_arrays(
        name: impl Into<String>,
        problem_type: impl Into<String>,
        l: usize,
        arrays: TableArrays,
        optimum: Option<i64>,
        stop: &StopCheck,
    ) -> Result<Self> {
        let TableArrays { var_offsets, vars, table_offsets, values } = arrays;
        if let Some(s) = var_offsets.windows(2).position(|w| w[0] == w[1]) {
            return Err(Error::usage(format!(
                "subfunction {s} reads no variable (a table reads 1 to {MAX_TABLE_ARITY})"
            )));
        }
        let functions = Subfunctions::tables_with_stop(l, var_offsets, vars, table_offsets, values, stop)?;
        Ok(TableProblem { name: name.into(), problem_type: problem_type.into(), functions, optimum })
    }

    /// A problem of tables of real values (a Python gray-box function's, tabulated), rounded to
    /// one grid of integers by [`scale::floats_to_integers`]: the grid of `resolution`, or, when
    /// None, of the values' own decimals where that fits (integers stay integers, exactly), else
    /// the finest grid that fits 64-bit integers. `optimum` (a value to reach, when known) goes on
    /// the same grid. Returns the problem, its resolution (a fitness f is worth f x resolution)
    /// and the rounding's bound: the most any fitness moves on the grid (the sum over the tables
    /// of their largest rounding; 0 where exact). Errors name the subfunction and the entry of a
    /// value that cannot be put on a grid.
    ///
    /// ```
    /// use pgomea::problem::GrayBoxProblem;
    /// use pgomea::problem::tables::TableProblem;
    /// let tables = [(vec![0, 1], vec![0.0, 0.5, 0.25, 1.5])];
    /// // The grid of the values' own decimals: hundredths.
    /// let (problem, resolution, rounding) = TableProblem::from_f64("real", "example", 2, &tables, None, None)?;
    /// assert_eq!((resolution.to_string(), problem.evaluate(&[1, 1]), rounding), ("0.01".to_string(), 150, 0.0));
    /// // A grid given: quarters.
    /// let (problem, resolution, _) = TableProblem::from_f64("real", "example", 2, &tables, None, Some(0.25))?;
    /// assert_eq!((resolution.to_string(), problem.evaluate(&[1, 1])), ("0.25".to_string(), 6));
    /// // A grid the values are not on: rounded (0.25 to 0.3 and 0.5 to 0.6, 1.5 stays 1.5).
    /// let (problem, _, rounding) = TableProblem::from_f64("real", "example", 2, &tables, None, Some(0.3))?;
    /// assert_eq!(problem.evaluate(&[1, 0]), 1);
    /// assert!((rounding - 0.1).abs() < 1e-12);
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn from_f64(
        name: impl Into<String>,
        problem_type: impl Into<String>,
        l: usize,
        subfunctions: &[(Vec<u32>, Vec<f64>)],
        optimum: Option<f64>,
        resolution: Option<f64>,
    ) -> Result<(Self, Decimal, f64)> {
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
        // A solution reads one entry of each table: its largest rounding counts.
        let rounding = if scaled.errors.is_empty() {
            0.0
        } else {
            starts
                .iter()
                .zip(subfunctions)
                .map(|(&start, (_, t))| scaled.errors[start..start + t.len()].iter().fold(0.0, |a: f64, &b| a.max(b)))
                .sum()
        };
        Ok((problem, scaled.resolution, rounding))
    }

    /// Parses the text of a `.nk` file, in parallel pieces, checking `stop` every few thousand
    /// lines; `file` names it in error messages. The optimum is the one the file states (checked
    /// against the tables), else the exact one of sliding windows, else unknown.
    ///
    /// ```
    /// use pgomea::problem::GrayBoxProblem;
    /// use pgomea::problem::tables::TableProblem;
    /// use pgomea::stop::StopCheck;
    /// let text = "p trap 2 1\no 2\nf 2 1 2 1 0 0 2\n";
    /// let problem = TableProblem::parse(text, "two.nk", "two", &StopCheck::never())?;
    /// assert_eq!((problem.problem_type(), problem.known_optimum()), ("trap", Some(2)));
    /// assert_eq!(problem.evaluate(&[1, 1]), 2);
    /// assert_eq!(problem.to_text(), "c two (trap), written by pgomea\n".to_string() + text);
    /// // An optimum the tables cannot reach is refused, with its line.
    /// let error = TableProblem::parse("p trap 2 1\no 3\nf 2 1 2 1 0 0 2\n", "two.nk", "two", &StopCheck::never());
    /// assert!(error.unwrap_err().to_string().starts_with("two.nk:2: the stated optimum 3 is above"));
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn parse(text: &str, file: &str, name: &str, stop: &StopCheck) -> Result<Self> {
        let err = Error::parse_in(file);
        let (hline, header, rest) = p_header(text, "`p TYPE VARIABLES SUBFUNCTIONS`", &err)?;
        let t: Vec<&str> = header.split_ascii_whitespace().collect();
        if t.len() != 4 {
            return Err(err(hline, format!("expected a header `p TYPE VARIABLES SUBFUNCTIONS`, found `{header}`")));
        }
        if !t[1].chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(err(hline, format!("problem type `{}`: letters, digits and `-` only", t[1])));
        }
        let count = |token: &str, what: &str| {
            text::uint(token)
                .and_then(|v| usize::try_from(v).ok())
                .ok_or_else(|| err(hline, format!("{what} `{token}` is not an integer in range")))
        };
        let l = count(t[2], "number of variables")?;
        let m = count(t[3], "number of subfunctions")?;
        if l == 0 {
            return Err(err(hline, "the number of variables must be at least 1".into()));
        }
        if l > u32::MAX as usize / 2 {
            return Err(err(hline, format!("{l} variables is more than this program supports")));
        }
        // Each `f` line takes at least 5 bytes: a larger count cannot be in the file.
        if m > text.len() / 5 + 1 {
            return Err(err(
                hline,
                format!("the header announces {m} subfunctions, more than a file of {} bytes can hold", text.len()),
            ));
        }
        // Nothing sized by the header is allocated before this check (a table has 2 values at least).
        memory::ensure(
            Subfunctions::bytes_beyond_arrays(l, m, m) + 32 * m as u128,
            &format!("an instance of {l} variables and {m} subfunctions"),
        )
        .map_err(|e| err(hline, e.to_string()))?;
        let reader = NkReader { file, l, m };
        let chunks = text::chunks(rest, hline + 1, |_| true);
        let what = format!("reading {file}");
        let (pieces, end) =
            text::parse_chunks(&reader, &chunks, NkState::default(), NkState::default(), Some(m), &what, stop)?;
        let found: usize = pieces.iter().map(|p| p.tables.var_ends.len()).sum();
        if found != m {
            let last_line = pieces.iter().rev().find_map(|p| p.last_line).unwrap_or(hline);
            return Err(err(
                last_line,
                format!("the header (line {hline}) announces {m} subfunctions but the file has {found}"),
            ));
        }
        let arrays = assemble(pieces.into_iter().map(|p| p.tables).collect(), &what)?;
        let mut problem =
            TableProblem::from_arrays(name, t[1], l, arrays, None, stop).map_err(|e| e.in_line(hline, &err))?;
        problem.settle_optimum(end.optimum.map(|(value, _)| value)).map_err(|m| {
            let (_, line) = end.optimum.expect("only a stated optimum can contradict the tables");
            err(line, m)
        })?;
        Ok(problem)
    }

    /// Sets the optimum: the `stated` one, when the tables allow it (between the least and the
    /// largest fitness their values give, and equal to the exact optimum of sliding windows),
    /// else the exact optimum of sliding windows, else none. A stated optimum that the tables
    /// contradict is an error saying so (a best-known target would never be reached).
    pub fn settle_optimum(&mut self, stated: Option<i64>) -> std::result::Result<(), String> {
        let exact = sliding_window_optimum(&self.functions).map(|(value, _)| value);
        let (low, high) = self.functions.fitness_bounds();
        self.optimum = match (stated, exact) {
            (Some(o), _) if o > high => {
                return Err(format!(
                    "the stated optimum {o} is above the largest fitness these tables allow, {high} (the sum of their largest values)"
                ));
            }
            (Some(o), _) if o < low => {
                return Err(format!(
                    "the stated optimum {o} is below the least fitness these tables allow, {low} (the sum of their least values)"
                ));
            }
            (Some(o), Some(e)) if o != e => {
                return Err(format!(
                    "the stated optimum {o} is not the exact optimum {e} of these subfunctions (sliding windows, solved exactly when read)"
                ));
            }
            (Some(o), _) => Some(o),
            (None, e) => e,
        };
        Ok(())
    }

    /// Writes the problem in the `.nk` format to `out`.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let f = &self.functions;
        writeln!(out, "c {} ({}), written by pgomea", self.name, self.problem_type)?;
        writeln!(out, "p {} {} {}", self.problem_type, f.variables(), f.len())?;
        if let Some(o) = self.optimum {
            writeln!(out, "o {o}")?;
        }
        let KindArrays::Tables { var_offsets, vars, table_offsets, values } = f.arrays() else {
            unreachable!("a table problem has tables")
        };
        for sub in 0..f.len() {
            let vs = &vars[var_offsets[sub] as usize..var_offsets[sub + 1] as usize];
            let start = table_offsets[sub] as usize;
            write!(out, "f {}", vs.len())?;
            for v in vs {
                write!(out, " {}", v + 1)?;
            }
            for t in &values[start..start + (1 << vs.len())] {
                write!(out, " {t}")?;
            }
            writeln!(out)?;
        }
        Ok(())
    }

    /// The problem in the `.nk` format.
    pub fn to_text(&self) -> String {
        text::written(|out| self.write_to(out))
    }

    /// Writes the problem in the `.nk` format to the file at `path`, as it goes (no copy of the
    /// whole text in memory).
    pub fn write(&self, path: &Path) -> Result<()> {
        text::write_file(path, |out| self.write_to(out))
    }
}

/// The header of a table file: the first line of `text` that is not blank or a comment, trimmed,
/// which must begin with the word `p`, with its number and the text after it. `expected` names the
/// header in the errors (`p TYPE VARIABLES SUBFUNCTIONS`, in backquotes); `err` makes them.
pub(in crate::problem) fn p_header<'t>(
    text: &'t str,
    expected: &str,
    err: impl Fn(usize, String) -> Error,
) -> Result<(usize, &'t str, &'t str)> {
    let (mut rest, mut line) = (text, 1);
    while !rest.is_empty() {
        let (raw, after) = text::split_line(rest);
        let header = raw.trim_ascii();
        if text::is_data(header) {
            if header.split_ascii_whitespace().next() != Some("p") {
                return Err(err(
                    line,
                    format!("expected the header {expected} before anything else, found `{header}`"),
                ));
            }
            return Ok((line, header, after));
        }
        (rest, line) = (after, line + 1);
    }
    Err(err(1, format!("no header line {expected}")))
}

/// Table subfunctions read from a piece of a file, in the order read.
#[derive(Debug, Default)]
pub(in crate::problem) struct TablePiece {
    /// Where each subfunction's variables end in `vars`.
    pub var_ends: Vec<u32>,
    /// Its variables, 0-based.
    pub vars: Vec<u32>,
    /// Its table, 2^k values for k variables.
    pub values: Vec<i64>,
}

impl TablePiece {
    /// Ends the subfunction whose variables and table were pushed last.
    pub fn end_subfunction(&mut self) -> Result<()> {
        let end = u32::try_from(self.vars.len()).map_err(|_| Error::usage("too many table entries (at most 2^32)"))?;
        self.var_ends.push(end);
        Ok(())
    }

    /// Pushes the variables `vars` (tokens and their values, [`text::Tokens`]; each below `l` once
    /// `base` is taken off, all different) of a subfunction of 1 to 16 variables; `base` is what
    /// the file adds to a variable (1 for `.nk`, 0 for MK).
    pub fn push_variables<'t>(
        &mut self,
        vars: impl Iterator<Item = (&'t str, Option<i64>)>,
        l: usize,
        base: u64,
    ) -> std::result::Result<(), String> {
        let first = self.vars.len();
        for (token, value) in vars {
            let v = value
                .and_then(|v| u64::try_from(v).ok())
                .ok_or_else(|| format!("variable `{token}` is not an integer in range"))?;
            if v < base || v - base >= l as u64 {
                return Err(format!(
                    "variable {v} is out of range {base}..={}{}",
                    l as u64 - 1 + base,
                    if base == 0 { " (0-based)" } else { "" }
                ));
            }
            let v = (v - base) as u32;
            if self.vars[first..].contains(&v) {
                return Err(format!("variable {} appears twice in one subfunction", v as u64 + base));
            }
            self.vars.push(v);
        }
        Ok(())
    }
}

/// The arrays of the tables kind (see [`Subfunctions::tables`]): subfunction s reads
/// `vars[var_offsets[s]..var_offsets[s+1]]` and has the table `values[table_offsets[s]..]`.
#[derive(Clone, Debug, Default)]
pub struct TableArrays {
    pub(crate) var_offsets: Vec<u32>,
    pub(crate) vars: Vec<u32>,
    pub(crate) table_offsets: Vec<u32>,
    pub(crate) values: Vec<i64>,
}

/// The arrays of the tables kind from the pieces in file order, allocated after their memory
/// check.
pub(in crate::problem) fn assemble(pieces: Vec<TablePiece>, what: &str) -> Result<TableArrays> {
    let m: usize = pieces.iter().map(|p| p.var_ends.len()).sum();
    let entries: usize = pieces.iter().map(|p| p.vars.len()).sum();
    let total: usize = pieces.iter().map(|p| p.values.len()).sum();
    if entries > u32::MAX as usize || total > u32::MAX as usize {
        return Err(Error::usage("too many table entries (at most 2^32)"));
    }
    let mut var_offsets = memory::vec_with_capacity(m + 1, what)?;
    let mut table_offsets = memory::vec_with_capacity(m, what)?;
    let mut vars = memory::vec_with_capacity(entries, what)?;
    let mut values = memory::vec_with_capacity(total, what)?;
    var_offsets.push(0u32);
    let mut table = 0u32;
    for piece in pieces {
        let base = vars.len() as u32;
        let mut previous = 0;
        for &end in &piece.var_ends {
            var_offsets.push(base + end);
            table_offsets.push(table);
            table += 1 << (end - previous);
            previous = end;
        }
        vars.extend_from_slice(&piece.vars);
        values.extend_from_slice(&piece.values);
    }
    Ok(TableArrays { var_offsets, vars, table_offsets, values })
}

/// How the pieces of a `.nk` file are read: its header's sizes.
struct NkReader<'f> {
    file: &'f str,
    l: usize,
    m: usize,
}

/// What the text before a piece of a `.nk` file leaves for it: the optimum stated, with its line.
#[derive(Clone, Debug, Default)]
struct NkState {
    optimum: Option<(i64, usize)>,
}

/// A piece of a `.nk` file.
struct NkPiece {
    tables: TablePiece,
    /// The optimum stated so far (before the piece or in it).
    optimum: Option<(i64, usize)>,
    last_line: Option<usize>,
}

impl ChunkParser for NkReader<'_> {
    type State = NkState;
    type Out = NkPiece;
    // At worst `0 ` (2 bytes) is a table value of 8 bytes.
    const BYTES_PER_BYTE: u128 = 4;

    fn parse(&self, chunk: &Chunk, state: &NkState, allowance: usize, stop: &StopCheck) -> Result<NkPiece> {
        let err = Error::parse_in(self.file);
        let mut out = NkPiece { tables: TablePiece::default(), optimum: state.optimum, last_line: None };
        let mut tokens: Vec<(&str, Option<i64>)> = Vec::new();
        for item in chunk.lines(stop) {
            let (lineno, line) = item?;
            if !text::is_data(line) {
                continue;
            }
            out.last_line = Some(lineno);
            tokens.clear();
            tokens.extend(text::Tokens::new(line));
            match tokens[0].0 {
                "p" => return Err(err(lineno, "a second header line".into())),
                "o" => {
                    if tokens.len() != 2 || out.optimum.is_some() {
                        return Err(err(lineno, format!("expected one line `o VALUE`, found `{line}`")));
                    }
                    let o = tokens[1]
                        .1
                        .ok_or_else(|| err(lineno, format!("optimum `{}` is not an integer in range", tokens[1].0)))?;
                    out.optimum = Some((o, lineno));
                }
                "f" => {
                    if out.tables.var_ends.len() == allowance {
                        return Err(err(
                            lineno,
                            format!("more `f` lines than the {} subfunctions the header announces", self.m),
                        ));
                    }
                    let t = &tokens[1..];
                    let k_token = t.first().map_or("", |t| t.0);
                    let k = text::uint(k_token).ok_or_else(|| {
                        err(lineno, format!("number of variables `{k_token}` is not an integer in range"))
                    })?;
                    if k == 0 || k > MAX_TABLE_ARITY as u64 {
                        return Err(err(
                            lineno,
                            format!("a subfunction reads 1 to {MAX_TABLE_ARITY} variables, not {k}"),
                        ));
                    }
                    let k = k as usize;
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
                    out.tables.push_variables(t[1..=k].iter().copied(), self.l, 1).map_err(|m| err(lineno, m))?;
                    for &(token, value) in &t[1 + k..] {
                        let v = value
                            .ok_or_else(|| err(lineno, format!("table value `{token}` is not an integer in range")))?;
                        out.tables.values.push(v);
                    }
                    out.tables.end_subfunction().map_err(|e| err(lineno, e.to_string()))?;
                }
                _ => {
                    return Err(err(
                        lineno,
                        format!("unknown line `{line}`: expected `c ...`, `o VALUE` or `f K V1 .. VK T0 ..`"),
                    ));
                }
            }
        }
        Ok(out)
    }

    fn same_from(&self, out: &NkPiece, exact: &NkState) -> bool {
        // A piece read as if no `o` came before is right unless it has one and one did.
        exact.optimum.is_none() || out.optimum.is_none()
    }

    fn count(&self, out: &NkPiece) -> usize {
        out.tables.var_ends.len()
    }

    fn after(&self, state: &NkState, out: &NkPiece) -> NkState {
        NkState { optimum: out.optimum.or(state.optimum) }
    }
}

/// The optimum of table subfunctions that are sliding windows (subfunction i reads the k
/// consecutive variables i..i+k-1 in order, `l - k + 1` of them), with a genotype attaining it;
/// `None` for any other structure. Dynamic programming over the windows: after window i, the
/// state is the genes of its last k - 1 variables; time O(l 2^k), memory one bit per (window,
/// state) to recover the genotype.
pub fn sliding_window_optimum(f: &Subfunctions) -> Option<(i64, Vec<u8>)> {
    let KindArrays::Tables { var_offsets, vars, table_offsets, values } = f.arrays() else { return None };
    let (l, m) = (f.variables(), f.len());
    let k = vars.len().checked_div(m)?;
    if k == 0 || k > l || m != l - k + 1 {
        return None;
    }
    for s in 0..m {
        if (var_offsets[s + 1] - var_offsets[s]) as usize != k
            || (0..k).any(|t| vars[var_offsets[s] as usize + t] as usize != s + t)
        {
            return None;
        }
    }
    // Window s's table index holds x_s as its top bit (k-1) down to x_(s+k-1) as bit 0. The
    // state after window s is its index's low k-1 bits (the genes of s+1..s+k-1); window s's
    // index is (x_s << (k-1) | state after s), and the state before it is index >> 1.
    let states = 1usize << (k - 1);
    let table = |s: usize, index: usize| values[table_offsets[s] as usize + index];
    // best[state]: the best sum of the windows so far that ends in `state`; for window 0 it
    // takes the better x_0 (remembered in `top`), for later windows the better dropped gene x_s
    // (one bit per window and state in `choice`).
    let mut top = vec![0u8; states];
    let mut best: Vec<i64> = (0..states)
        .map(|state| {
            let (a, b) = (table(0, state), table(0, states | state));
            top[state] = (b > a) as u8;
            a.max(b)
        })
        .collect();
    let mut choice = vec![0u64; (m * states).div_ceil(64)];
    let mut next = vec![0i64; states];
    for s in 1..m {
        for (state, slot) in next.iter_mut().enumerate() {
            let (i0, i1) = (state, states | state);
            let (a, b) = (best[i0 >> 1] + table(s, i0), best[i1 >> 1] + table(s, i1));
            *slot = a.max(b);
            if b > a {
                let bit = s * states + state;
                choice[bit / 64] |= 1 << (bit % 64);
            }
        }
        std::mem::swap(&mut best, &mut next);
    }
    let (mut state, &value) = best.iter().enumerate().max_by_key(|&(st, v)| (*v, std::cmp::Reverse(st)))?;
    // Walk back from the last window: its state is the genes of the last k-1 variables.
    let mut x = vec![0u8; l];
    for t in 0..k - 1 {
        x[l - 1 - t] = ((state >> t) & 1) as u8;
    }
    for s in (1..m).rev() {
        let bit = s * states + state;
        let dropped = ((choice[bit / 64] >> (bit % 64)) & 1) as usize;
        x[s] = dropped as u8;
        state = (dropped << (k - 1) | state) >> 1;
    }
    x[0] = top[state];
    Some((value, x))
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
        let (p, r, _) = TableProblem::from_f64(
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
        let (q, r, _) =
            TableProblem::from_f64("t", "g", 1, &[(vec![0], vec![3.0, 9007199254740992.0])], None, None).unwrap();
        assert_eq!((r.to_string(), q.evaluate(&[1])), ("1".to_string(), 1 << 53));
        // A given resolution; values off it are rounded, the bound the largest rounding per table.
        let (q, _, _) =
            TableProblem::from_f64("t", "g", 2, &[(vec![0, 1], vec![0.0, 0.5, 1.0, 1.5])], None, Some(0.5)).unwrap();
        assert_eq!(q.evaluate(&[1, 1]), 3);
        let (q, _, rounding) = TableProblem::from_f64(
            "t",
            "g",
            2,
            &[(vec![0], vec![0.0, 0.5]), (vec![1], vec![0.25, 1.1])],
            None,
            Some(0.5),
        )
        .unwrap();
        assert_eq!(q.evaluate(&[1, 0]), 2);
        assert!((rounding - 0.25).abs() < 1e-12, "{rounding}");
        let e =
            TableProblem::from_f64("t", "g", 1, &[(vec![0], vec![0.0, f64::NAN])], None, None).unwrap_err().to_string();
        assert!(e.contains("subfunction 0, entry 1"), "{e}");
        // Float noise needs a grid too fine for 64-bit integers: the finest that fits, rounded.
        let (q, r, rounding) =
            TableProblem::from_f64("t", "g", 1, &[(vec![0], vec![0.1 + 0.2, 1000.0])], None, None).unwrap();
        assert!(r.to_f64() < 1e-15 && rounding <= r.to_f64() / 2.0, "{r} {rounding}");
        assert!((q.evaluate(&[0]) as f64 * r.to_f64() - 0.3).abs() <= rounding + 1e-15);
    }
}
