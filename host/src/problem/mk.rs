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

use super::tables::TableProblem;
use super::{GrayBoxProblem, KindArrays};
use crate::error::{Error, Result};
use pgomea_device::problem::MAX_TABLE_ARITY;

/// Reads an MK-landscape file.
pub fn read(path: &Path) -> Result<TableProblem> {
    let text = super::read_text(path)?;
    let name = super::instance_name(path);
    parse(&text, &path.display().to_string(), &name)
}

/// Parses the text of an MK-landscape file; `file` names it in error messages.
pub fn parse(text: &str, file: &str, name: &str) -> Result<TableProblem> {
    let err = |line: usize, message: String| Error::Parse { file: file.to_string(), line, message };
    let mut header: Option<(String, usize, usize)> = None;
    let mut subfunctions: Vec<(Vec<u32>, Vec<i64>)> = Vec::new();
    // The variables of an `m` line whose table has not come yet, with its line.
    let mut pending: Option<(Vec<u32>, usize)> = None;
    for (k, raw) in text.lines().enumerate() {
        let lineno = k + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('c') {
            continue;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if let Some((vars, mline)) = pending.take() {
            let want = 1usize << vars.len();
            if tokens.len() != want {
                return Err(err(
                    lineno,
                    format!(
                        "the table of the subfunction of line {mline} ({} variables) needs {want} values; found {} tokens",
                        vars.len(),
                        tokens.len()
                    ),
                ));
            }
            let table = tokens.iter().map(|t| value(t)).collect::<std::result::Result<Vec<i64>, String>>();
            subfunctions.push((vars, table.map_err(|m| err(lineno, m))?));
            continue;
        }
        match (tokens[0], &header) {
            ("p", None) => {
                let kind = tokens.get(1).copied().unwrap_or("");
                if !(kind == "MK" || kind == "NK") || !(3..=4).contains(&tokens.len()) {
                    return Err(err(lineno, format!("expected a header `p MK N K` or `p NK N K`, found `{line}`")));
                }
                let l: usize = tokens[2].parse().map_err(|_| {
                    err(lineno, format!("number of variables `{}` is not an integer in range", tokens[2]))
                })?;
                if l == 0 || l > u32::MAX as usize / 2 {
                    return Err(err(lineno, format!("{l} variables: expected 1 to {}", u32::MAX / 2)));
                }
                if let Some(t) = tokens.get(3) {
                    t.parse::<u32>()
                        .map_err(|_| err(lineno, format!("subfunction size K `{t}` is not an integer in range")))?;
                }
                header = Some((kind.to_ascii_lowercase(), l, lineno));
            }
            ("p", Some(_)) => return Err(err(lineno, "a second header line".into())),
            (_, None) => {
                return Err(err(
                    lineno,
                    format!("expected the header `p MK N K` or `p NK N K` before anything else, found `{line}`"),
                ));
            }
            ("m", Some((_, l, _))) => {
                let k = tokens.len() - 1;
                if k == 0 || k > MAX_TABLE_ARITY as usize {
                    return Err(err(lineno, format!("a subfunction reads 1 to {MAX_TABLE_ARITY} variables, not {k}")));
                }
                let mut vars = Vec::with_capacity(k);
                for t in &tokens[1..] {
                    let v: u64 =
                        t.parse().map_err(|_| err(lineno, format!("variable `{t}` is not an integer in range")))?;
                    if v >= *l as u64 {
                        return Err(err(lineno, format!("variable {v} is out of range 0..={} (0-based)", l - 1)));
                    }
                    if vars.contains(&(v as u32)) {
                        return Err(err(lineno, format!("variable {v} appears twice in one subfunction")));
                    }
                    vars.push(v as u32);
                }
                pending = Some((vars, lineno));
            }
            _ => {
                return Err(err(
                    lineno,
                    format!("unknown line `{line}`: expected `c ...`, `m V1 .. VK` or a table after an `m` line"),
                ));
            }
        }
    }
    if let Some((_, mline)) = pending {
        return Err(err(mline, "this subfunction has no table: the file ends after its `m` line".into()));
    }
    let Some((problem_type, l, hline)) = header else {
        return Err(err(1, "no header line `p MK N K` or `p NK N K`".into()));
    };
    TableProblem::new(name, problem_type, l, &subfunctions, None).map_err(|e| err(hline, e.to_string()))
}

fn value(token: &str) -> std::result::Result<i64, String> {
    token.parse::<i64>().map_err(|_| {
        if token.parse::<f64>().is_ok() {
            format!(
                "table value `{token}` is not an integer: pgomea computes fitness exactly in 64-bit integers, so scale the values to integers"
            )
        } else {
            format!("table value `{token}` is not an integer in range")
        }
    })
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
