//! NK landscapes and other table problems in the MK-landscape file format of B. W. Goldman's
//! gray-box optimisation code (its `MKLandscape` reader, 2015: "Mk landscapes", sums of
//! subfunctions of at most k variables, which cover NK and NKq landscapes, MAX-kSAT and Ising spin
//! glasses written as tables), read into a [`TableProblem`]. PyPI `gomea` 1.1 neither reads nor
//! writes NK files (it draws its tables from a seed in memory), so this is the file layout of
//! another tool that pgomea reads besides its own `.nk`.
//!
//! # The format
//!
//! A text file of lines; tokens are separated by spaces or tabs; blank lines are ignored.
//!
//! ```text
//! c any comment                  comment lines start with `c`
//! p NK 6 3                       the header: `p MK N K` or `p NK N K`: N variables; K (the
//!                                subfunctions' size, for information) may be left out
//! m 0 1 2                        a subfunction over the 0-based variables 0, 1, 2 (all different)
//! 5 9 2 0 7 7 1 3                its table, on the next line that is not blank or a comment:
//! ...                            2^k integers for k variables; one `m` line and table per subfunction
//! ```
//!
//! Entry i of a table is the subfunction's value when its genes, read as a binary number with
//! the first listed variable the most significant bit, equal i (the `.nk` format's order, with
//! 0-based rather than 1-based variables). The fitness is the sum of all subfunctions
//! (maximised). Table values must be integers: pgomea computes fitness exactly in 64-bit
//! integers, so a file of real values must be scaled first. The problem's type in reports is
//! `nk` for a `p NK` header, else `mk`. Every malformed line is an error naming the file and the
//! line.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{Error, Result};
use crate::problem::tables::{self, TablePiece, TableProblem};
use crate::problem::text::{self, Chunk, ChunkParser};
use crate::problem::{GrayBoxProblem, KindArrays, Subfunctions, memory};
use crate::stop::StopCheck;
use pgomea_device::problem::MAX_TABLE_ARITY;

/// Reads an MK-landscape file, checking `stop` as it goes.
pub fn read(path: &Path, stop: &StopCheck) -> Result<TableProblem> {
    let text = text::read(path, stop)?;
    let name = crate::problem::instance_name(path);
    parse(&text, &path.display().to_string(), &name, stop)
}

/// Parses the text of an MK-landscape file, in parallel pieces, checking `stop` every few
/// thousand lines; `file` names it in error messages. Sliding windows get their exact optimum.
pub fn parse(text: &str, file: &str, name: &str, stop: &StopCheck) -> Result<TableProblem> {
    let err = Error::parse_in(file);
    let (hline, header, rest) = tables::p_header(text, "`p MK N K` or `p NK N K`", &err)?;
    let tokens: Vec<&str> = header.split_ascii_whitespace().collect();
    let kind = tokens.get(1).copied().unwrap_or("");
    if !(kind == "MK" || kind == "NK") || !(3..=4).contains(&tokens.len()) {
        return Err(err(hline, format!("expected a header `p MK N K` or `p NK N K`, found `{header}`")));
    }
    let l = text::uint(tokens[2])
        .and_then(|l| usize::try_from(l).ok())
        .ok_or_else(|| err(hline, format!("number of variables `{}` is not an integer in range", tokens[2])))?;
    if l == 0 || l > u32::MAX as usize / 2 {
        return Err(err(hline, format!("{l} variables: expected 1 to {}", u32::MAX / 2)));
    }
    if let Some(t) = tokens.get(3) {
        t.parse::<u32>().map_err(|_| err(hline, format!("subfunction size K `{t}` is not an integer in range")))?;
    }
    // Nothing sized by the header is allocated before this check.
    memory::ensure(Subfunctions::bytes_beyond_arrays(l, 0, 0), &format!("an instance of {l} variables"))
        .map_err(|e| err(hline, e.to_string()))?;
    let reader = MkReader { file, l };
    // A piece begins after a table line: no `m` line waits for its table there.
    let chunks = text::chunks(rest, hline + 1, |previous| text::is_data(previous) && !previous.starts_with(['m', 'p']));
    let what = format!("reading {file}");
    let (pieces, end) = text::parse_chunks(&reader, &chunks, None, None, None, &what, stop)?;
    if let Some((_, mline)) = end {
        return Err(err(mline, "this subfunction has no table: the file ends after its `m` line".into()));
    }
    let arrays = tables::assemble(pieces.into_iter().map(|p| p.tables).collect(), &what)?;
    let mut problem = TableProblem::from_arrays(name, kind.to_ascii_lowercase(), l, arrays, None, stop)
        .map_err(|e| e.in_line(hline, &err))?;
    problem.settle_optimum(None).map_err(|m| err(hline, m))?;
    Ok(problem)
}

/// How the pieces of an MK file are read: its number of variables.
struct MkReader<'f> {
    file: &'f str,
    l: usize,
}

impl ChunkParser for MkReader<'_> {
    /// The `m` line still waiting for its table (arity, line); a piece ends with one only at the
    /// file's end.
    type State = Option<(usize, usize)>;
    type Out = MkPiece;
    // At worst `0 ` (2 bytes) is a table value of 8 bytes.
    const BYTES_PER_BYTE: u128 = 4;

    fn parse(&self, chunk: &Chunk, state: &Self::State, _: usize, stop: &StopCheck) -> Result<MkPiece> {
        let err = Error::parse_in(self.file);
        if state.is_some() {
            return Err(Error::Internal("an MK subfunction open across a piece of the file".into()));
        }
        let mut out = TablePiece::default();
        // The `m` line waiting for its table: its arity and line.
        let mut pending: Option<(usize, usize)> = None;
        for item in chunk.lines(stop) {
            let (lineno, line) = item?;
            if !text::is_data(line) {
                continue;
            }
            if let Some((k, mline)) = pending.take() {
                let want = 1usize << k;
                // One pass: the values, the count, and the first token that is not a value (a
                // wrong count is reported first).
                let (mut found, mut bad) = (0, None);
                for (token, v) in text::Tokens::new(line) {
                    match v {
                        Some(v) if found < want => out.values.push(v),
                        None if bad.is_none() => bad = Some(token),
                        _ => {}
                    }
                    found += 1;
                }
                if found != want {
                    return Err(err(
                        lineno,
                        format!(
                            "the table of the subfunction of line {mline} ({k} variables) needs {want} values; found {found} tokens"
                        ),
                    ));
                }
                if let Some(token) = bad {
                    return Err(err(lineno, value_error(token)));
                }
                out.end_subfunction().map_err(|e| err(lineno, e.to_string()))?;
                continue;
            }
            let mut tokens = text::Tokens::new(line);
            match tokens.next().map(|t| t.0) {
                Some("p") => return Err(err(lineno, "a second header line".into())),
                Some("m") => {
                    let k = tokens.clone().count();
                    if k == 0 || k > MAX_TABLE_ARITY as usize {
                        return Err(err(
                            lineno,
                            format!("a subfunction reads 1 to {MAX_TABLE_ARITY} variables, not {k}"),
                        ));
                    }
                    out.push_variables(tokens, self.l, 0).map_err(|m| err(lineno, m))?;
                    pending = Some((k, lineno));
                }
                _ => {
                    return Err(err(
                        lineno,
                        format!("unknown line `{line}`: expected `c ...`, `m V1 .. VK` or a table after an `m` line"),
                    ));
                }
            }
        }
        // Only the last piece can end with an `m` line waiting (the others end after a table).
        Ok(MkPiece { tables: out, pending })
    }

    fn same_from(&self, _: &MkPiece, exact: &Self::State) -> bool {
        exact.is_none()
    }

    fn count(&self, out: &MkPiece) -> usize {
        out.tables.var_ends.len()
    }

    fn after(&self, _: &Self::State, out: &MkPiece) -> Self::State {
        out.pending
    }
}

/// A piece of an MK file: its subfunctions, and the `m` line at its end that waits for a table.
struct MkPiece {
    tables: TablePiece,
    pending: Option<(usize, usize)>,
}

/// Why a table value `token` is not one.
fn value_error(token: &str) -> String {
    if token.parse::<f64>().is_ok() {
        format!(
            "table value `{token}` is not an integer: pgomea computes fitness exactly in 64-bit integers, so scale the values to integers"
        )
    } else {
        format!("table value `{token}` is not an integer in range")
    }
}

/// A table problem in the MK-landscape format (`p NK` when its type is `nk`, else `p MK`; K is
/// the largest subfunction size). The optimum, if known, is not part of the format.
pub fn to_text(problem: &TableProblem) -> String {
    let f = problem.functions();
    let KindArrays::Tables { var_offsets, vars, table_offsets, values } = f.arrays() else {
        unreachable!("a table problem has tables")
    };
    let k = (0..f.len()).map(|s| f.variables_of(s).len()).max().unwrap_or(0);
    let mut s = String::new();
    let _ = writeln!(s, "c {} ({}), written by pgomea", problem.name, problem.problem_type);
    let _ = writeln!(s, "p {} {} {k}", if problem.problem_type == "nk" { "NK" } else { "MK" }, f.variables());
    for sub in 0..f.len() {
        let vs = &vars[var_offsets[sub] as usize..var_offsets[sub + 1] as usize];
        s.push('m');
        for v in vs {
            let _ = write!(s, " {v}");
        }
        s.push('\n');
        let start = table_offsets[sub] as usize;
        let table: Vec<String> = values[start..start + (1 << vs.len())].iter().map(i64::to_string).collect();
        s.push_str(&table.join(" "));
        s.push('\n');
    }
    s
}
