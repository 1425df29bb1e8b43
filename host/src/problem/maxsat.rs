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
//! ones together.
//!
//! Weighted CNF in the 2022 format of the MAX-SAT evaluations: no `p` line; a hard clause is
//! `h 1 -3 0`, a soft one `4 1 -3 0`; the variables are numbered up to the largest one used. A hard
//! clause weighs 1 + the sum of the soft weights. A file without a `p` line is read in this format
//! only if its name ends in `.wcnf` or its first clause is hard (`h`): a headerless DIMACS CNF
//! file would otherwise be misread, its first literal taken for a weight.
//!
//! Within a clause a repeated literal is dropped (x or x is x); a clause with both x and not x is
//! kept as it stands: it is always satisfied and always counts its weight. An empty clause (`0`
//! alone) is never satisfied. Every malformed file is an error naming the file and the line.

use std::fmt::Write as _;
use std::path::Path;

use pgomea_device::rng::{SplitMix64, streams};

use super::{GrayBoxProblem, KindArrays, Subfunctions};
use crate::error::{Error, Result};

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
    pub fn name(self) -> &'static str {
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
    pub name: String,
    pub format: SatFormat,
    functions: Subfunctions,
    /// Whether each clause is hard (partial MAX-SAT).
    hard: Vec<bool>,
    /// The weight of a hard clause, when there are hard clauses.
    pub top: Option<i64>,
    /// Literals dropped because they repeated one of their clause.
    pub duplicate_literals: usize,
    /// The optimum, when known (a generator planted a satisfying assignment); files never state
    /// one.
    pub optimum: Option<i64>,
}

/// A header `p cnf N M` or `p wcnf N M [TOP]`, with its line.
struct Header {
    weighted: bool,
    variables: usize,
    clauses: usize,
    top: Option<i64>,
    line: usize,
}

/// A clause being read: its weight (None: hard in the 2022 format), literals and first line.
struct Open {
    weight: Option<i64>,
    lits: Vec<u32>,
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
        if hard.len() != clauses.len() {
            return Err(Error::usage(format!("MAX-SAT: {} hard marks for {} clauses", hard.len(), clauses.len())));
        }
        let mut lit_offsets = Vec::with_capacity(clauses.len() + 1);
        let mut lits = Vec::new();
        let mut weights = Vec::with_capacity(clauses.len());
        lit_offsets.push(0u32);
        for (w, c) in clauses {
            lits.extend_from_slice(c);
            lit_offsets.push(u32::try_from(lits.len()).map_err(|_| Error::usage("too many literals (at most 2^32)"))?);
            weights.push(*w);
        }
        let functions = Subfunctions::clauses(l, lit_offsets, lits, weights)?;
        Ok(MaxSat { name: name.into(), format, functions, hard, top, duplicate_literals: 0, optimum: None })
    }

    /// Reads a `.cnf` or `.wcnf` file.
    pub fn read(path: &Path) -> Result<Self> {
        let text = super::read_text(path)?;
        let name = super::instance_name(path);
        Self::parse(&text, &path.display().to_string(), &name)
    }

    /// Parses the text of a MAX-SAT file; `file` names it in error messages (and a name ending
    /// in `.wcnf` allows the 2022 format's missing header).
    pub fn parse(text: &str, file: &str, name: &str) -> Result<Self> {
        let err = |line: usize, message: String| Error::Parse { file: file.to_string(), line, message };
        let headerless_allowed = file.to_ascii_lowercase().ends_with(".wcnf");
        let mut header: Option<Header> = None;
        // The 2022 format: decided at the first clause when there is no header.
        let mut modern = false;
        let mut clauses: Vec<(Option<i64>, Vec<u32>)> = Vec::new();
        let mut open: Option<Open> = None;
        let mut end_marker: Option<usize> = None;
        let mut duplicates = 0usize;
        let mut max_var = 0usize;
        let mut last_line = 1;
        // The literals of the clause being read, by variable, to drop repeats in linear time.
        let mut in_clause: Vec<u8> = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let lineno = k + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('c') {
                continue;
            }
            if let Some(at) = end_marker {
                if line == "0" {
                    continue;
                }
                return Err(err(
                    lineno,
                    format!("`{line}` after the end marker `%` (line {at}): only `0` lines may follow it"),
                ));
            }
            last_line = lineno;
            if line.starts_with('%') {
                if line != "%" {
                    return Err(err(lineno, format!("expected the end marker `%` alone on its line, found `{line}`")));
                }
                if let Some(o) = &open {
                    return Err(err(
                        lineno,
                        format!("the clause begun on line {} is not ended by 0 before the end marker `%`", o.line),
                    ));
                }
                end_marker = Some(lineno);
                continue;
            }
            if line.starts_with('p') {
                if let Some(h) = &header {
                    return Err(err(lineno, format!("a second header line (the first is line {})", h.line)));
                }
                if !clauses.is_empty() || open.is_some() || modern {
                    return Err(err(lineno, "the header `p ...` must come before the clauses".into()));
                }
                let h = parse_header(line, text.len()).map_err(|m| err(lineno, m))?;
                in_clause = vec![0; h.variables];
                clauses.reserve(h.clauses);
                header = Some(Header { line: lineno, ..h });
                continue;
            }
            if header.is_none() && clauses.is_empty() && open.is_none() && !modern {
                if headerless_allowed || line.starts_with('h') {
                    modern = true;
                } else {
                    return Err(err(
                        lineno,
                        format!(
                            "expected the header `p cnf VARIABLES CLAUSES` or `p wcnf VARIABLES CLAUSES [TOP]` before the first clause, found `{line}` (a headerless file must be a .wcnf file in the 2022 format)"
                        ),
                    ));
                }
            }
            let weighted = modern || header.as_ref().is_some_and(|h| h.weighted);
            for token in line.split_whitespace() {
                let o = match &mut open {
                    Some(o) => o,
                    None => {
                        if let Some(h) = &header
                            && clauses.len() == h.clauses
                        {
                            return Err(err(
                                lineno,
                                format!(
                                    "more clauses than the {} the header (line {}) announces, at `{token}`",
                                    h.clauses, h.line
                                ),
                            ));
                        }
                        let weight = if !weighted {
                            Some(1)
                        } else if modern && token == "h" {
                            None
                        } else {
                            let w = token.parse::<i64>().ok().filter(|&w| w >= 1).ok_or_else(|| {
                                err(
                                    lineno,
                                    format!(
                                        "a clause of a weighted file starts with its weight, a positive integer{}; found `{token}`",
                                        if modern { " or `h`" } else { "" }
                                    ),
                                )
                            })?;
                            if let Some(top) = header.as_ref().and_then(|h| h.top)
                                && w > top
                            {
                                return Err(err(lineno, format!("weight {w} exceeds the header's top weight {top}")));
                            }
                            Some(w)
                        };
                        open = Some(Open { weight, lits: Vec::new(), line: lineno });
                        if weighted {
                            continue;
                        }
                        open.as_mut().expect("just opened")
                    }
                };
                let lit: i64 =
                    token.parse().map_err(|_| err(lineno, format!("literal `{token}` is not an integer in range")))?;
                if lit == 0 {
                    let done = open.take().expect("open");
                    for &l in &done.lits {
                        in_clause[(l >> 1) as usize] = 0;
                    }
                    clauses.push((done.weight, done.lits));
                    continue;
                }
                let v = lit.unsigned_abs() as usize;
                match &header {
                    Some(h) if v > h.variables => {
                        return Err(err(
                            lineno,
                            format!("literal {lit}: variable {v} is out of range 1..={}", h.variables),
                        ));
                    }
                    None if v > u32::MAX as usize / 2 => {
                        return Err(err(
                            lineno,
                            format!("literal {lit}: variable {v} is more than this program supports"),
                        ));
                    }
                    _ => {}
                }
                if v > in_clause.len() {
                    in_clause.resize(v.max(2 * in_clause.len()), 0);
                }
                max_var = max_var.max(v);
                let negated = lit < 0;
                // in_clause[v - 1]: bit 0 when x_v is in the clause, bit 1 when not x_v is.
                let bit = 1u8 << negated as u8;
                if in_clause[v - 1] & bit != 0 {
                    duplicates += 1;
                    continue;
                }
                in_clause[v - 1] |= bit;
                o.lits.push((2 * (v - 1) + negated as usize) as u32);
            }
        }
        if let Some(o) = &open {
            return Err(err(last_line, format!("the clause begun on line {} is not ended by 0", o.line)));
        }
        let (format, l, hline, top) = match &header {
            Some(h) => {
                if clauses.len() != h.clauses {
                    return Err(err(
                        last_line,
                        format!(
                            "the header (line {}) announces {} clauses but the file has {}",
                            h.line,
                            h.clauses,
                            clauses.len()
                        ),
                    ));
                }
                (if h.weighted { SatFormat::Wcnf } else { SatFormat::Cnf }, h.variables, h.line, h.top)
            }
            None => {
                if clauses.is_empty() {
                    return Err(err(
                        1,
                        "no clauses and no header `p cnf VARIABLES CLAUSES` or `p wcnf VARIABLES CLAUSES [TOP]`".into(),
                    ));
                }
                // A hard clause outweighs all soft ones together.
                let soft = clauses.iter().try_fold(0i64, |a, c| a.checked_add(c.0.unwrap_or(0)));
                let top = soft
                    .and_then(|s| s.checked_add(1))
                    .ok_or_else(|| err(1, "the soft weights add up to more than 64-bit integers hold".into()))?;
                (SatFormat::Wcnf2022, max_var.max(1), 1, clauses.iter().any(|c| c.0.is_none()).then_some(top))
            }
        };
        let hard: Vec<bool> = clauses
            .iter()
            .map(|c| match (c.0, top) {
                (None, _) => true,
                (Some(w), Some(t)) => w == t,
                (Some(_), None) => false,
            })
            .collect();
        let weighted: Vec<(i64, Vec<u32>)> =
            clauses.into_iter().map(|(w, lits)| (w.or(top).expect("a hard clause has a top"), lits)).collect();
        let mut problem = MaxSat::new(name, format, l, &weighted, hard, top).map_err(|e| err(hline, e.to_string()))?;
        problem.duplicate_literals = duplicates;
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

    /// The instance in DIMACS CNF (every weight 1 and no hard clause) or classic weighted CNF.
    pub fn to_text(&self) -> String {
        let weighted = self.top.is_some() || (0..self.clauses()).any(|s| self.clause(s).1 != 1);
        let mut s = String::new();
        let _ = writeln!(s, "c {}, written by pgomea", self.name);
        let l = self.functions.variables();
        match (weighted, self.top) {
            (false, _) => writeln!(s, "p cnf {l} {}", self.clauses()),
            (true, None) => writeln!(s, "p wcnf {l} {}", self.clauses()),
            (true, Some(top)) => writeln!(s, "p wcnf {l} {} {top}", self.clauses()),
        }
        .expect("a String");
        for c in 0..self.clauses() {
            let (lits, w) = self.clause(c);
            if weighted {
                let _ = write!(s, "{w} ");
            }
            for &lit in lits {
                let v = (lit >> 1) as i64 + 1;
                let _ = write!(s, "{} ", if lit & 1 == 1 { -v } else { v });
            }
            s.push_str("0\n");
        }
        s
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_text()).map_err(|e| Error::io(path, e))
    }
}

/// A satisfiable random 3-SAT instance of `n` variables and `m` clauses, from `seed`: an
/// assignment is drawn first, then each clause reads 3 distinct variables drawn uniformly with
/// random signs, drawn again until the assignment satisfies it. The optimum is therefore `m`,
/// attained by the returned assignment. (Such planted instances are somewhat easier than
/// SATLIB's uniform ones of the same size: the clauses lean towards the planted assignment.)
pub fn planted_3sat(n: usize, m: usize, seed: u64) -> Result<(MaxSat, Vec<u8>)> {
    if n < 3 || n > u32::MAX as usize / 2 {
        return Err(Error::usage(format!("3-SAT: n = {n}; expected 3 to {} variables", u32::MAX / 2)));
    }
    if m == 0 || m > u32::MAX as usize / 3 {
        return Err(Error::usage(format!("3-SAT: m = {m}; expected 1 to {} clauses", u32::MAX / 3)));
    }
    let mut rng = SplitMix64::stream(seed, streams::PLANTED_SAT);
    let planted: Vec<u8> = (0..n).map(|_| rng.coin() as u8).collect();
    let clauses: Vec<(i64, Vec<u32>)> = (0..m)
        .map(|_| {
            let mut vars: Vec<u32> = Vec::with_capacity(3);
            while vars.len() < 3 {
                let v = rng.index(n) as u32;
                if !vars.contains(&v) {
                    vars.push(v);
                }
            }
            // Literal 2v + 1 (not x_v) holds when x_v = 0: a literal holds when its low bit
            // differs from the gene.
            let lits = loop {
                let lits: Vec<u32> = vars.iter().map(|&v| 2 * v + rng.coin() as u32).collect();
                if lits.iter().any(|&lit| planted[(lit >> 1) as usize] != (lit & 1) as u8) {
                    break lits;
                }
            };
            (1, lits)
        })
        .collect();
    let mut problem =
        MaxSat::new(format!("sat3-n{n}-m{m}-s{seed}"), SatFormat::Cnf, n, &clauses, vec![false; m], None)?;
    problem.optimum = Some(m as i64);
    debug_assert_eq!(problem.evaluate(&planted), m as i64);
    Ok((problem, planted))
}

/// Reads `p cnf N M` or `p wcnf N M [TOP]`; `bytes` (the file's size) bounds M.
fn parse_header(line: &str, bytes: usize) -> std::result::Result<Header, String> {
    let t: Vec<&str> = line.split_whitespace().collect();
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
        s.parse::<u64>().map_err(|_| format!("{what} `{s}` is not a non-negative integer in range"))
    };
    let variables = int(t[2], "number of variables")?;
    let clauses = int(t[3], "number of clauses")?;
    if variables == 0 {
        return Err("the number of variables must be at least 1".into());
    }
    if variables > u32::MAX as u64 / 2 {
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
