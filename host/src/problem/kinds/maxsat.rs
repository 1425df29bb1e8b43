//! MAX-SAT as a gray-box problem (the device crate's clauses kind): one variable per Boolean
//! variable, one subfunction per clause, worth the clause's weight when one of its literals holds.
//! The fitness is the total weight of the satisfied clauses (maximised).
//!
//! # File formats
//!
//! DIMACS CNF (`.cnf`), every clause of weight 1:
//!
//! ```text
//! c a comment                comment lines start with `c`; they may appear anywhere
//! p cnf 3 2                  the header: `p cnf VARIABLES CLAUSES`
//! 1 -3 0                     a clause: signed 1-based literals (-3 is "not x3"), ended by 0;
//! 2 3                        a clause may span lines, and a line may hold several clauses
//! -1 0
//! %                          optional: SATLIB's end marker; after it only `0` lines follow
//! 0
//! ```
//!
//! Weighted CNF (`.wcnf`) in the classic format of the MAX-SAT evaluations: a header
//! `p wcnf VARIABLES CLAUSES [TOP]`, then every clause starts with its weight (a positive
//! integer): `4 1 -3 0`. With TOP (partial MAX-SAT), a clause of weight TOP is hard; no weight may
//! exceed TOP. The fitness is still the total weight of the satisfied clauses, so when TOP is larger
//! than the sum of the soft weights (as the format asks), every hard clause outweighs all soft
//! ones together. A file whose TOP is not (solvers read such files all the same, taking weight TOP
//! as hard) is read with a warning ([`GrayBoxProblem::warnings`]): its hard clauses weigh 1 + the
//! sum of the soft weights instead, so that the best solution never breaks a hard clause to
//! satisfy soft ones.
//!
//! Weighted CNF in the 2022 format of the MAX-SAT evaluations: no `p` line; a hard clause is
//! `h 1 -3 0`, a soft one `4 1 -3 0`; the variables are numbered up to the largest one used. A hard
//! clause weighs 1 + the sum of the soft weights. A file without a `p` line is read in this format
//! only if its name ends in `.wcnf` or its first clause is hard (`h`): a headerless DIMACS CNF
//! file would otherwise be misread, its first literal taken for a weight.
//!
//! In every format, a comment `c optimum M` before the first clause states the optimum (the
//! generator of planted 3-SAT writes it); an M outside the fitness range of the clauses is an
//! error.
//!
//! Within a clause a repeated literal is dropped (x or x is x); a clause with both x and not x is
//! kept as it stands: it is always satisfied and always counts its weight. An empty clause (`0`
//! alone) is never satisfied. Every malformed file is an error naming the file and the line.
//!
//! A file is parsed in pieces at once ([`text::parse_chunks`]), each beginning after a line that
//! ends a clause; every size is checked against the memory left before it is allocated.

use std::path::Path;

use crate::error::{Error, Result};
use crate::problem::memory;
use crate::problem::text::{self, Chunk, ChunkParser};
use crate::problem::{GrayBoxProblem, KindArrays, Subfunctions};
use crate::stop::StopCheck;

/// The generator of planted 3-SAT instances, where it lives: with the other generators.
pub use crate::problem::generate::sat::planted_3sat;

/// The format a MAX-SAT instance was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatFormat {
    /// DIMACS CNF: `p cnf`, every clause of weight 1.
    Cnf,
    /// Classic weighted CNF: `p wcnf`, a weight before each clause, hard clauses of weight TOP.
    Wcnf,
    /// The 2022 weighted CNF: no header, `h` before hard clauses, a weight before soft ones.
    Wcnf2022,
}

impl SatFormat {
    pub(crate) fn name(self) -> &'static str {
        match self {
            SatFormat::Cnf => "cnf",
            SatFormat::Wcnf => "wcnf",
            SatFormat::Wcnf2022 => "wcnf-2022",
        }
    }
}

/// A (weighted, partial) MAX-SAT instance.
#[derive(Clone, Debug)]
pub struct MaxSat {
    pub(crate) name: String,
    /// The file format it was read from or is written in.
    pub format: SatFormat,
    functions: Subfunctions,
    /// Whether each clause is hard (partial MAX-SAT).
    hard: Vec<bool>,
    /// The weight of a hard clause, when there are hard clauses.
    pub top: Option<i64>,
    /// Literals dropped because they repeated one of their clause.
    pub duplicate_literals: usize,
    /// The optimum, when known: a generator planted a satisfying assignment, and its file says so
    /// in a comment `c optimum M` before the first clause.
    pub optimum: Option<i64>,
    /// What the reader adjusted in accepting the file.
    warnings: Vec<String>,
}

/// The comment that states a file's optimum (written by the generator of planted 3-SAT).
const OPTIMUM_COMMENT: &str = "c optimum ";

/// The largest variable number this program supports.
pub(in crate::problem) const MAX_VARIABLE: u64 = u32::MAX as u64 / 2;

/// A header `p cnf N M` or `p wcnf N M [TOP]`, with its line.
#[derive(Clone, Copy, Debug)]
struct Header {
    weighted: bool,
    variables: usize,
    clauses: usize,
    top: Option<i64>,
    line: usize,
}

impl MaxSat {
    /// Weighted clauses over `l` variables: clause s holds the literals `clauses[s].1` (`2v` for
    /// x_v, `2v + 1` for not x_v) and weighs `clauses[s].0`; `hard[s]` marks the hard ones.
    pub fn new(
        name: impl Into<String>,
        format: SatFormat,
        l: usize,
        clauses: &[(i64, Vec<u32>)],
        hard: Vec<bool>,
        top: Option<i64>,
    ) -> Result<Self> {
        let mut lit_offsets = Vec::with_capacity(clauses.len() + 1);
        let mut lits = Vec::new();
        lit_offsets.push(0u32);
        for (_, c) in clauses {
            lits.extend_from_slice(c);
            lit_offsets.push(u32::try_from(lits.len()).map_err(|_| Error::usage("too many literals (at most 2^32)"))?);
        }
        let weights = clauses.iter().map(|c| c.0).collect();
        MaxSat::from_arrays(name, format, l, lit_offsets, lits, weights, hard, top, &StopCheck::never())
    }

    /// [`MaxSat::new`] from the flat arrays of the clauses kind: clause s holds
    /// `lits[lit_offsets[s]..lit_offsets[s+1]]` and weighs `weights[s]`; the clauses' build checks
    /// `stop` (a file of 10^7 clauses takes seconds).
    #[allow(clippy::too_many_arguments)]
    pub fn from_arrays(
        name: impl Into<String>,
        format: SatFormat,
        l: usize,
        lit_offsets: Vec<u32>,
        lits: Vec<u32>,
        weights: Vec<i64>,
        hard: Vec<bool>,
        top: Option<i64>,
        stop: &StopCheck,
    ) -> Result<Self> {
        if hard.len() != weights.len() {
            return Err(Error::usage(format!("MAX-SAT: {} hard marks for {} clauses", hard.len(), weights.len())));
        }
        let functions = Subfunctions::clauses_with_stop(l, lit_offsets, lits, weights, stop)?;
        Ok(MaxSat {
            name: name.into(),
            format,
            functions,
            hard,
            top,
            duplicate_literals: 0,
            optimum: None,
            warnings: Vec::new(),
        })
    }

    /// Clauses of signed 1-based literals (DIMACS: `3` is x3, `-3` is not x3) over `l`
    /// variables, each soft with its weight (a positive integer) or hard (`None`): a hard clause
    /// weighs 1 + the sum of the soft weights, so that it outweighs them all (as in the 2022
    /// `wcnf` format). A repeated literal is dropped (and counted in `duplicate_literals`); an
    /// error names the clause (0-based) and what is wrong.
    ///
    /// ```
    /// use pgomea::problem::GrayBoxProblem;
    /// use pgomea::problem::maxsat::MaxSat;
    /// // (x1 or not x2) of weight 2, (x2 or x3 or x3) of weight 1, and the hard clause (not x1).
    /// let clauses = [(Some(2), vec![1, -2]), (Some(1), vec![2, 3, 3]), (None, vec![-1])];
    /// let sat = MaxSat::from_literals("tiny", 3, &clauses)?;
    /// assert_eq!((sat.top, sat.duplicate_literals), (Some(4), 1)); // hard: 1 + 2 + 1
    /// assert_eq!(sat.evaluate(&[0, 0, 1]), 2 + 1 + 4); // every clause satisfied
    /// assert_eq!(sat.unsatisfied(&[1, 0, 0]), vec![1, 2]);
    /// let error = MaxSat::from_literals("bad", 3, &[(Some(1), vec![1, 4])]).unwrap_err();
    /// assert_eq!(error.to_string(), "clause 0: literal 4 is not a variable of 1..=3 (negative for a negated one)");
    /// # Ok::<(), pgomea::Error>(())
    /// ```
    pub fn from_literals(name: impl Into<String>, l: usize, clauses: &[(Option<i64>, Vec<i64>)]) -> Result<Self> {
        if l > u32::MAX as usize / 2 {
            return Err(Error::usage(format!("{l} variables is more than this program supports")));
        }
        let mut duplicates = 0usize;
        let mut encoded = Vec::with_capacity(clauses.len());
        for (c, (weight, literals)) in clauses.iter().enumerate() {
            if let Some(w) = weight
                && *w < 1
            {
                return Err(Error::usage(format!("clause {c}: weight {w}; a weight is a positive integer")));
            }
            let mut lits: Vec<u32> = Vec::with_capacity(literals.len());
            // Long clauses look their repeats up in a set (short ones in the list itself).
            let mut seen = std::collections::HashSet::new();
            for &lit in literals {
                let v = lit.unsigned_abs();
                if lit == 0 || v > l as u64 {
                    return Err(Error::usage(format!(
                        "clause {c}: literal {lit} is not a variable of 1..={l} (negative for a negated one)"
                    )));
                }
                let code = (2 * (v - 1) + (lit < 0) as u64) as u32;
                let repeated = if literals.len() > 16 { !seen.insert(code) } else { lits.contains(&code) };
                if repeated {
                    duplicates += 1;
                } else {
                    lits.push(code);
                }
            }
            encoded.push((*weight, lits));
        }
        let top = hard_weight(&encoded).map_err(Error::usage)?;
        let (weighted, hard) = weigh(encoded, top);
        let format = if top.is_some() || weighted.iter().any(|c| c.0 != 1) { SatFormat::Wcnf } else { SatFormat::Cnf };
        let mut problem = MaxSat::new(name, format, l, &weighted, hard, top)?;
        problem.duplicate_literals = duplicates;
        Ok(problem)
    }

    /// Parses the text of a MAX-SAT file, in parallel pieces, checking `stop` every few thousand
    /// lines; `file` names it in error messages (and a name ending in `.wcnf` allows the 2022
    /// format's missing header).
    pub fn parse(text: &str, file: &str, name: &str, stop: &StopCheck) -> Result<Self> {
        let err = Error::parse_in(file);
        let headerless_allowed = file.to_ascii_lowercase().ends_with(".wcnf");
        // The prologue, read in order: comments (one may state the optimum), then the header, or
        // the first clause, which decides the 2022 format.
        let mut optimum: Option<(u64, usize)> = None;
        let mut header: Option<Header> = None;
        let mut modern = false;
        let (mut rest, mut line) = (text, 1);
        while !rest.is_empty() {
            let (raw, after) = text::split_line(rest);
            let trimmed = raw.trim_ascii();
            if !text::is_data(trimmed) {
                if let Some(value) = trimmed.strip_prefix(OPTIMUM_COMMENT).and_then(|v| text::uint(v.trim_ascii())) {
                    if let Some((_, at)) = optimum {
                        return Err(err(line, format!("a second `c optimum` line (the first is line {at})")));
                    }
                    optimum = Some((value, line));
                }
                (rest, line) = (after, line + 1);
                continue;
            }
            if trimmed.starts_with('p') {
                let h = parse_header(trimmed, text.len()).map_err(|m| err(line, m))?;
                // Nothing sized by the header is allocated before this check.
                memory::ensure(
                    Subfunctions::bytes_beyond_arrays(h.variables, h.clauses, 0) + 17 * h.clauses as u128,
                    &format!("an instance of {} variables and {} clauses", h.variables, h.clauses),
                )
                .map_err(|e| err(line, e.to_string()))?;
                header = Some(Header { line, ..h });
                (rest, line) = (after, line + 1);
            } else if trimmed.starts_with('%') {
                // SATLIB's end marker before any clause: the pieces read it.
            } else if headerless_allowed || trimmed.starts_with('h') {
                modern = true;
            } else {
                return Err(err(
                    line,
                    format!(
                        "expected the header `p cnf VARIABLES CLAUSES` or `p wcnf VARIABLES CLAUSES [TOP]` before the first clause, found `{trimmed}` (a headerless file must be a .wcnf file in the 2022 format)"
                    ),
                ));
            }
            break;
        }
        let variables = header.map_or(MAX_VARIABLE, |h| h.variables as u64);
        let reader = SatReader { file, header, variables, modern };
        // A piece begins after a line of clauses that ends in `0`: no clause is open there.
        let chunks = text::chunks(&text[text.len() - rest.len()..], line, |previous| {
            text::is_data(previous)
                && !previous.starts_with(['p', '%'])
                && previous.split_ascii_whitespace().next_back() == Some("0")
        });
        let what = format!("reading {file}");
        let (pieces, end) = text::parse_chunks(
            &reader,
            &chunks,
            SatState::default(),
            SatState::default(),
            header.map(|h| h.clauses),
            &what,
            stop,
        )?;
        let last_line = pieces.iter().rev().find_map(|p| p.last_line).or(header.map(|h| h.line)).unwrap_or(1);
        if let Some(begun) = end.open {
            return Err(err(last_line, format!("the clause begun on line {begun} is not ended by 0")));
        }
        let count: usize = pieces.iter().map(|p| p.weights.len()).sum();
        let (format, l, hline, mut top) = match &header {
            Some(h) => {
                if count != h.clauses {
                    return Err(err(
                        last_line,
                        format!(
                            "the header (line {}) announces {} clauses but the file has {count}",
                            h.line, h.clauses
                        ),
                    ));
                }
                (if h.weighted { SatFormat::Wcnf } else { SatFormat::Cnf }, h.variables, h.line, h.top)
            }
            None => {
                if count == 0 {
                    return Err(err(
                        1,
                        "no clauses and no header `p cnf VARIABLES CLAUSES` or `p wcnf VARIABLES CLAUSES [TOP]`".into(),
                    ));
                }
                let max_var = pieces.iter().map(|p| p.max_var).max().unwrap_or(0);
                (SatFormat::Wcnf2022, max_var.max(1), 1, None)
            }
        };
        // Hard clauses: weight TOP (classic) or `h` (2022, weight 0 until now).
        let hard_weight = top.unwrap_or(0);
        let soft = pieces
            .iter()
            .flat_map(|p| &p.weights)
            .filter(|&&w| w != hard_weight)
            .try_fold(0i64, |a, &w| a.checked_add(w));
        let any_hard = pieces.iter().any(|p| p.weights.contains(&hard_weight));
        let mut warnings = Vec::new();
        if any_hard {
            // A hard clause outweighs all soft ones together: the 2022 format's rule, and the
            // classic format's demand on TOP, made good where a file breaks it.
            let needed = soft
                .and_then(|s| s.checked_add(1))
                .ok_or_else(|| err(hline, "the soft weights add up to more than 64-bit integers hold".into()))?;
            match top {
                None => top = Some(needed),
                Some(t) if t < needed => {
                    warnings.push(format!(
                        "{file}:{hline}: the top weight {t} does not exceed the sum of the soft weights ({}): a hard clause would not outweigh the soft ones, so the hard clauses weigh {needed} (1 + that sum) instead",
                        needed - 1
                    ));
                    top = Some(needed);
                }
                Some(_) => {}
            }
        }
        let mut lit_offsets = memory::vec_with_capacity(count + 1, &what)?;
        let total_lits: usize = pieces.iter().map(|p| p.lits.len()).sum();
        let mut lits = memory::vec_with_capacity(total_lits, &what)?;
        let mut weights = memory::vec_with_capacity(count, &what)?;
        let mut hard = memory::vec_with_capacity(count, &what)?;
        lit_offsets.push(0u32);
        let mut duplicates = 0;
        for piece in pieces {
            let base = lits.len() as u32;
            lit_offsets.extend(piece.ends.iter().map(|&e| base + e));
            lits.extend_from_slice(&piece.lits);
            for w in piece.weights {
                hard.push(any_hard && w == hard_weight);
                weights.push(if any_hard && w == hard_weight { top.expect("hard clauses have a top") } else { w });
            }
            duplicates += piece.duplicates;
        }
        let mut problem = MaxSat::from_arrays(name, format, l, lit_offsets, lits, weights, hard, top, stop)
            .map_err(|e| e.in_line(hline, &err))?;
        problem.duplicate_literals = duplicates;
        problem.warnings = warnings;
        if let Some((value, at)) = optimum {
            let (low, high) = problem.functions.fitness_bounds();
            match i64::try_from(value) {
                Ok(o) if (low..=high).contains(&o) => problem.optimum = Some(o),
                _ => {
                    return Err(err(
                        at,
                        format!(
                            "the stated optimum {value} is outside the fitness range {low}..={high} of these clauses"
                        ),
                    ));
                }
            }
        }
        Ok(problem)
    }

    /// The number of clauses.
    pub fn clauses(&self) -> usize {
        self.functions.len()
    }

    /// Whether clause `s` (0-based, in file order) is hard.
    pub fn is_hard(&self, s: usize) -> bool {
        self.hard[s]
    }

    /// The literals of clause `s` and its weight.
    pub fn clause(&self, s: usize) -> (&[u32], i64) {
        let KindArrays::Clauses { lit_offsets, lits, weights } = self.functions.arrays() else {
            unreachable!("MAX-SAT has clauses")
        };
        (&lits[lit_offsets[s] as usize..lit_offsets[s + 1] as usize], weights[s])
    }

    /// The total weight of all clauses: the fitness of an assignment that satisfies every clause,
    /// so the optimum exactly when the instance is satisfiable.
    pub fn total_weight(&self) -> i64 {
        // Every weight is positive, so the bounds' upper sum is the total (checked to fit).
        (0..self.clauses()).map(|s| self.clause(s).1).sum()
    }

    /// The clauses (0-based) that `x` leaves unsatisfied.
    pub fn unsatisfied(&self, x: &[u8]) -> Vec<usize> {
        (0..self.clauses()).filter(|&s| self.functions.evaluate_one(s, x) == 0).collect()
    }

    /// Writes the instance to `out` in DIMACS CNF (every weight 1 and no hard clause) or
    /// classic weighted CNF, with its optimum, when known, in a comment `c optimum M` before the
    /// header.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let weighted = self.top.is_some() || (0..self.clauses()).any(|s| self.clause(s).1 != 1);
        writeln!(out, "c {}, written by pgomea", self.name)?;
        if let Some(o) = self.optimum {
            writeln!(out, "{OPTIMUM_COMMENT}{o}")?;
        }
        let l = self.functions.variables();
        match (weighted, self.top) {
            (false, _) => writeln!(out, "p cnf {l} {}", self.clauses()),
            (true, None) => writeln!(out, "p wcnf {l} {}", self.clauses()),
            (true, Some(top)) => writeln!(out, "p wcnf {l} {} {top}", self.clauses()),
        }?;
        for c in 0..self.clauses() {
            let (lits, w) = self.clause(c);
            if weighted {
                write!(out, "{w} ")?;
            }
            for &lit in lits {
                let v = (lit >> 1) as i64 + 1;
                write!(out, "{} ", if lit & 1 == 1 { -v } else { v })?;
            }
            writeln!(out, "0")?;
        }
        Ok(())
    }

    /// The instance as text ([`MaxSat::write_to`]).
    pub fn to_text(&self) -> String {
        text::written(|out| self.write_to(out))
    }

    /// Writes the instance to the file at `path`, as it goes (no copy of the whole text in memory).
    pub fn write(&self, path: &Path) -> Result<()> {
        text::write_file(path, |out| self.write_to(out))
    }
}

/// How the pieces of a file are read: fixed by its prologue.
struct SatReader<'f> {
    file: &'f str,
    header: Option<Header>,
    /// The largest variable number allowed: the header's, else the largest supported.
    variables: u64,
    /// The 2022 format (no header, `h` for hard clauses).
    modern: bool,
}

/// What the text before a piece leaves for it.
#[derive(Clone, Debug, Default)]
struct SatState {
    /// The line of SATLIB's end marker `%`, once seen: only `0` lines may follow.
    end_marker: Option<usize>,
    /// The line where the clause still open began.
    open: Option<usize>,
    /// The last line of data.
    last_line: Option<usize>,
}

/// The clauses begun in a piece of a MAX-SAT file.
#[derive(Default)]
struct SatPiece {
    /// Where each ended clause ends in `lits`.
    ends: Vec<u32>,
    lits: Vec<u32>,
    /// The weight of each clause begun (0: hard, in the 2022 format).
    weights: Vec<i64>,
    duplicates: usize,
    max_var: usize,
    /// The state at the piece's end.
    end_marker: Option<usize>,
    open: Option<usize>,
    last_line: Option<usize>,
}

impl ChunkParser for SatReader<'_> {
    type State = SatState;
    type Out = SatPiece;
    // At worst `0\n` (2 bytes) is a clause: an end offset and a weight.
    const BYTES_PER_BYTE: u128 = 6;

    fn parse(&self, chunk: &Chunk, state: &SatState, allowance: usize, stop: &StopCheck) -> Result<SatPiece> {
        let err = Error::parse_in(self.file);
        if state.open.is_some() {
            return Err(Error::Internal("a clause open across a piece of the file".into()));
        }
        let weighted = self.modern || self.header.is_some_and(|h| h.weighted);
        let top = self.header.and_then(|h| h.top);
        let mut out = SatPiece { end_marker: state.end_marker, last_line: state.last_line, ..SatPiece::default() };
        // The first literal of the clause being read, in `out.lits`.
        let mut start: Option<usize> = None;
        let mut scratch = Vec::new();
        for item in chunk.lines(stop) {
            let (lineno, line) = item?;
            if !text::is_data(line) {
                continue;
            }
            if let Some(at) = out.end_marker {
                if line == "0" {
                    continue;
                }
                return Err(err(
                    lineno,
                    format!("`{line}` after the end marker `%` (line {at}): only `0` lines may follow it"),
                ));
            }
            out.last_line = Some(lineno);
            if line.starts_with('%') {
                if line != "%" {
                    return Err(err(lineno, format!("expected the end marker `%` alone on its line, found `{line}`")));
                }
                if let Some(begun) = out.open {
                    return Err(err(
                        lineno,
                        format!("the clause begun on line {begun} is not ended by 0 before the end marker `%`"),
                    ));
                }
                out.end_marker = Some(lineno);
                continue;
            }
            if line.starts_with('p') {
                return Err(err(
                    lineno,
                    match &self.header {
                        Some(h) => format!("a second header line (the first is line {})", h.line),
                        None => "the header `p ...` must come before the clauses".into(),
                    },
                ));
            }
            for (token, value) in text::Tokens::new(line) {
                let Some(begin) = start else {
                    if out.weights.len() == allowance {
                        let h = self.header.expect("a limit comes from a header");
                        return Err(err(
                            lineno,
                            format!(
                                "more clauses than the {} the header (line {}) announces, at `{token}`",
                                h.clauses, h.line
                            ),
                        ));
                    }
                    start = Some(out.lits.len());
                    out.open = Some(lineno);
                    if !weighted {
                        out.weights.push(1);
                        // An unweighted clause's first token is its first literal.
                        self.literal(token, value, lineno, out.lits.len(), &mut out, &mut start, &mut scratch)?;
                        continue;
                    }
                    let w = match value {
                        Some(w) if w >= 1 => w,
                        _ if self.modern && token == "h" => 0,
                        _ => {
                            return Err(err(
                                lineno,
                                format!(
                                    "a clause of a weighted file starts with its weight, a positive integer{}; found `{token}`",
                                    if self.modern { " or `h`" } else { "" }
                                ),
                            ));
                        }
                    };
                    if let Some(top) = top
                        && w > top
                    {
                        return Err(err(lineno, format!("weight {w} exceeds the header's top weight {top}")));
                    }
                    out.weights.push(w);
                    continue;
                };
                self.literal(token, value, lineno, begin, &mut out, &mut start, &mut scratch)?;
            }
        }
        Ok(out)
    }

    fn same_from(&self, _out: &SatPiece, exact: &SatState) -> bool {
        exact.end_marker.is_none() && exact.open.is_none()
    }

    fn count(&self, out: &SatPiece) -> usize {
        out.weights.len()
    }

    fn after(&self, state: &SatState, out: &SatPiece) -> SatState {
        SatState { end_marker: out.end_marker, open: out.open, last_line: out.last_line.or(state.last_line) }
    }
}

impl SatReader<'_> {
    /// Reads one literal `token` (of `value`) of the clause whose literals begin at `begin` in
    /// `out.lits`; a `0` ends the clause, dropping its repeated literals.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn literal(
        &self,
        token: &str,
        value: Option<i64>,
        lineno: usize,
        begin: usize,
        out: &mut SatPiece,
        start: &mut Option<usize>,
        scratch: &mut Vec<(u32, u32)>,
    ) -> Result<()> {
        let err = |message: String| Error::Parse { file: self.file.to_string(), line: lineno, message };
        let lit = value.ok_or_else(|| err(format!("literal `{token}` is not an integer in range")))?;
        if lit == 0 {
            out.duplicates += drop_repeats(&mut out.lits, begin, scratch);
            out.ends.push(out.lits.len() as u32);
            *start = None;
            out.open = None;
            return Ok(());
        }
        let v = lit.unsigned_abs();
        if v > self.variables {
            return Err(err(match &self.header {
                Some(h) => format!("literal {lit}: variable {v} is out of range 1..={}", h.variables),
                None => format!("literal {lit}: variable {v} is more than this program supports"),
            }));
        }
        out.max_var = out.max_var.max(v as usize);
        out.lits.push((2 * (v - 1) + (lit < 0) as u64) as u32);
        Ok(())
    }
}

/// Drops the literals of `lits[begin..]` (one clause) that repeat an earlier one of it, keeping
/// the order of the rest; returns how many were dropped. Quadratic for short clauses, a sort for
/// long ones.
fn drop_repeats(lits: &mut Vec<u32>, begin: usize, scratch: &mut Vec<(u32, u32)>) -> usize {
    let clause = &lits[begin..];
    let n = clause.len();
    if n <= 32 {
        let mut kept = begin;
        for i in begin..lits.len() {
            let lit = lits[i];
            if !lits[begin..kept].contains(&lit) {
                lits[kept] = lit;
                kept += 1;
            }
        }
        lits.truncate(kept);
        return n - (kept - begin);
    }
    scratch.clear();
    scratch.extend(clause.iter().enumerate().map(|(i, &lit)| (lit, i as u32)));
    scratch.sort_unstable();
    // Positions of the repeats (every occurrence of a literal after its first).
    let mut repeats: Vec<u32> =
        scratch.chunk_by(|a, b| a.0 == b.0).flat_map(|group| group[1..].iter().map(|&(_, i)| i)).collect();
    if repeats.is_empty() {
        return 0;
    }
    repeats.sort_unstable();
    let mut next = repeats.iter().peekable();
    let mut kept = begin;
    for i in 0..n {
        if next.peek() == Some(&&(i as u32)) {
            next.next();
            continue;
        }
        lits[kept] = lits[begin + i];
        kept += 1;
    }
    lits.truncate(kept);
    repeats.len()
}

/// The weight of a hard clause among `clauses` (weight `None`: hard), 1 + the sum of the soft
/// weights, so that one hard clause outweighs all soft ones together; None without hard clauses.
fn hard_weight<T>(clauses: &[(Option<i64>, T)]) -> std::result::Result<Option<i64>, String> {
    if clauses.iter().all(|c| c.0.is_some()) {
        return Ok(None);
    }
    let soft = clauses.iter().try_fold(0i64, |a, c| a.checked_add(c.0.unwrap_or(0)));
    soft.and_then(|s| s.checked_add(1))
        .map(Some)
        .ok_or_else(|| "the soft weights add up to more than 64-bit integers hold".to_string())
}

/// Clauses with their weights as [`MaxSat::new`] takes them: a hard clause (weight `None`) weighs
/// `top`, and so is any clause of weight `top` (the classic `wcnf` format's hard clauses).
fn weigh(clauses: Vec<(Option<i64>, Vec<u32>)>, top: Option<i64>) -> (Vec<(i64, Vec<u32>)>, Vec<bool>) {
    let hard = clauses
        .iter()
        .map(|c| match (c.0, top) {
            (None, _) => true,
            (Some(w), Some(t)) => w == t,
            (Some(_), None) => false,
        })
        .collect();
    let weighted = clauses.into_iter().map(|(w, lits)| (w.or(top).expect("a hard clause has a top"), lits)).collect();
    (weighted, hard)
}

/// Reads `p cnf N M` or `p wcnf N M [TOP]`; `bytes` (the file's size) bounds M.
fn parse_header(line: &str, bytes: usize) -> std::result::Result<Header, String> {
    let t: Vec<&str> = line.split_ascii_whitespace().collect();
    let weighted = match t.get(1).copied() {
        Some("cnf") if t.len() == 4 => false,
        Some("wcnf") if t.len() == 4 || t.len() == 5 => true,
        _ => {
            return Err(format!(
                "expected a header `p cnf VARIABLES CLAUSES` or `p wcnf VARIABLES CLAUSES [TOP]`, found `{line}`"
            ));
        }
    };
    let int = |s: &str, what: &str| {
        text::uint(s).ok_or_else(|| format!("{what} `{s}` is not a non-negative integer in range"))
    };
    let variables = int(t[2], "number of variables")?;
    let clauses = int(t[3], "number of clauses")?;
    if variables == 0 {
        return Err("the number of variables must be at least 1".into());
    }
    if variables > MAX_VARIABLE {
        return Err(format!("{variables} variables is more than this program supports"));
    }
    // Each clause takes at least two bytes (`0` and a separator): a larger count cannot be there.
    if clauses > bytes as u64 / 2 + 1 {
        return Err(format!("the header announces {clauses} clauses, more than a file of {bytes} bytes can hold"));
    }
    let top = match t.get(4) {
        Some(s) => {
            let top = int(s, "top weight")?;
            if top == 0 || top > i64::MAX as u64 {
                return Err(format!("top weight `{s}`: expected a positive integer below 2^63"));
            }
            Some(top as i64)
        }
        None => None,
    };
    Ok(Header { weighted, variables: variables as usize, clauses: clauses as usize, top, line: 0 })
}

impl GrayBoxProblem for MaxSat {
    fn name(&self) -> &str {
        &self.name
    }
    fn problem_type(&self) -> &str {
        "max-sat"
    }
    fn functions(&self) -> &Subfunctions {
        &self.functions
    }
    fn statistics(&self) -> Vec<(&'static str, String)> {
        let f = &self.functions;
        let m = self.clauses();
        let lengths: Vec<usize> = (0..m).map(|s| self.clause(s).0.len()).collect();
        let tautologies = (0..m).filter(|&s| !self.clause(s).0.is_empty() && f.value_range(s) == 0).count();
        let hard = self.hard.iter().filter(|&&h| h).count();
        let total = self.total_weight();
        let mut out = vec![
            ("format", self.format.name().to_string()),
            ("variables", f.variables().to_string()),
            ("clauses", m.to_string()),
            ("hard_clauses", hard.to_string()),
            ("soft_clauses", (m - hard).to_string()),
            ("clause_length_min", lengths.iter().min().copied().unwrap_or(0).to_string()),
            ("clause_length_max", lengths.iter().max().copied().unwrap_or(0).to_string()),
            ("clause_length_mean", format!("{:.3}", lengths.iter().sum::<usize>() as f64 / m.max(1) as f64)),
            ("empty_clauses", lengths.iter().filter(|&&n| n == 0).count().to_string()),
            ("tautologies", tautologies.to_string()),
            ("duplicate_literals_dropped", self.duplicate_literals.to_string()),
            ("total_weight", total.to_string()),
        ];
        if let Some(top) = self.top {
            out.push(("hard_weight", top.to_string()));
        }
        out.push((
            "optimum",
            match self.optimum {
                Some(o) => o.to_string(),
                None => format!("unknown: at most {total}, exactly {total} if every clause can be satisfied"),
            },
        ));
        out
    }
    fn known_optimum(&self) -> Option<i64> {
        self.optimum
    }
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
    fn solution_report(&self, x: &[u8]) -> Vec<(&'static str, String)> {
        const LISTED: usize = 20;
        let unsat = self.unsatisfied(x);
        let weight: i64 = unsat.iter().map(|&s| self.clause(s).1).sum();
        let mut out =
            vec![("unsatisfied_clauses", unsat.len().to_string()), ("unsatisfied_weight", weight.to_string())];
        if self.top.is_some() {
            out.push(("unsatisfied_hard_clauses", unsat.iter().filter(|&&s| self.hard[s]).count().to_string()));
        }
        if !unsat.is_empty() {
            let mut list: Vec<String> = unsat.iter().take(LISTED).map(|s| (s + 1).to_string()).collect();
            if unsat.len() > LISTED {
                list.push(format!("and {} more", unsat.len() - LISTED));
            }
            out.push(("unsatisfied_clause_numbers", list.join(" ")));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_of_signed_literals_weigh_hard_ones_above_all_soft_ones() {
        // (x1 or not x2) weight 3, (x2) weight 4, hard (not x1); x3 in no clause.
        let p = MaxSat::from_literals("t", 3, &[(Some(3), vec![1, -2]), (Some(4), vec![2]), (None, vec![-1])]).unwrap();
        assert_eq!(p.top, Some(8));
        assert!(p.is_hard(2) && !p.is_hard(0) && !p.is_hard(1));
        assert_eq!(p.clause(0), (&[0u32, 3][..], 3));
        assert_eq!(p.clause(2), (&[1u32][..], 8));
        assert_eq!(p.format, SatFormat::Wcnf);
        // Every assignment: the weight of the clauses it satisfies.
        for bits in 0..8u8 {
            let x: Vec<u8> = (0..3).map(|v| bits >> v & 1).collect();
            let want = 3 * (x[0] == 1 || x[1] == 0) as i64 + 4 * (x[1] == 1) as i64 + 8 * (x[0] == 0) as i64;
            assert_eq!(p.evaluate(&x), want, "{x:?}");
        }
        // The same clauses as a 2022 wcnf file read the same.
        let text = "3 1 -2 0\n4 2 0\nh -1 0\n";
        let file = MaxSat::parse(text, "t.wcnf", "t", &StopCheck::never()).unwrap();
        for s in 0..3 {
            assert_eq!(file.clause(s), p.clause(s));
            assert_eq!(file.is_hard(s), p.is_hard(s));
        }
    }

    #[test]
    fn repeated_literals_are_dropped_and_bad_clauses_are_named() {
        let p = MaxSat::from_literals("t", 2, &[(Some(1), vec![1, 1, -2, 1]), (Some(1), vec![])]).unwrap();
        assert_eq!((p.duplicate_literals, p.clause(0).0), (2, &[0u32, 3][..]));
        assert_eq!(p.format, SatFormat::Cnf);
        let long: Vec<i64> = (0..40).map(|k| 1 + k % 20).collect();
        assert_eq!(MaxSat::from_literals("t", 20, &[(Some(1), long)]).unwrap().duplicate_literals, 20);
        for (clauses, says) in [
            (vec![(Some(1), vec![1]), (Some(1), vec![3])], "clause 1: literal 3"),
            (vec![(Some(1), vec![0])], "clause 0: literal 0"),
            (vec![(Some(1), vec![-3])], "clause 0: literal -3"),
            (vec![(Some(0), vec![1])], "clause 0: weight 0"),
            (vec![(Some(i64::MAX), vec![1]), (Some(1), vec![2]), (None, vec![1])], "64-bit"),
        ] {
            let e = MaxSat::from_literals("t", 2, &clauses).unwrap_err().to_string();
            assert!(e.contains(says), "`{e}` should say `{says}`");
        }
    }
}
