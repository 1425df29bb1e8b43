//! Weighted graph instances in the G-set / rudy format: a header `n m`, then `m` lines `i j w`
//! with 1-based vertex numbers. The parser refuses every malformed file with the file, the line and
//! what is wrong; it never repairs input silently.

use std::collections::HashSet;
use std::path::Path;

use crate::error::{Error, Result};

/// One undirected weighted edge, 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub u: u32,
    pub v: u32,
    pub w: i64,
}

/// A weighted graph: the data of a Max-Cut instance.
#[derive(Clone, Debug)]
pub struct Graph {
    /// A short name for reports (the file stem, or the generator's description).
    pub name: String,
    pub vertices: usize,
    pub edges: Vec<Edge>,
}

impl Graph {
    pub fn new(name: impl Into<String>, vertices: usize, edges: Vec<Edge>) -> Self {
        Graph { name: name.into(), vertices, edges }
    }

    /// Reads and checks an instance file.
    pub fn read(path: &Path) -> Result<Graph> {
        let text = super::read_text(path)?;
        let name = super::instance_name(path);
        Graph::parse(&text, &path.display().to_string(), &name)
    }

    /// Parses the text of an instance; `file` names it in error messages.
    pub fn parse(text: &str, file: &str, name: &str) -> Result<Graph> {
        let err = |line: usize, message: String| Error::Parse { file: file.to_string(), line, message };
        // Blank lines are tolerated (some copies end with one); anything else must be data.
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty());
        let (hline, header) = lines.next().ok_or_else(|| err(1, "empty file: expected a header `n m`".into()))?;
        let h: Vec<&str> = header.split_whitespace().collect();
        if h.len() != 2 {
            return Err(err(
                hline,
                format!("expected a header `n m` (two integers), found {} token(s): `{header}`", h.len()),
            ));
        }
        let n: usize = parse_int(h[0], "number of vertices").map_err(|m| err(hline, m))?;
        let m: usize = parse_int(h[1], "number of edges").map_err(|m| err(hline, m))?;
        if n == 0 {
            return Err(err(hline, "the number of vertices must be at least 1".into()));
        }
        if n > u32::MAX as usize / 2 {
            return Err(err(hline, format!("{n} vertices is more than this program supports")));
        }
        let max_edges = (n as u128) * (n as u128 - 1) / 2;
        if m as u128 > max_edges {
            return Err(err(
                hline,
                format!("{m} edges cannot exist in a simple graph of {n} vertices (at most {max_edges})"),
            ));
        }
        // Each edge line takes at least 6 bytes (`i j w` and its line end): a larger count cannot
        // be in the text, and is not allocated for before the lines are read.
        if m > text.len() / 6 + 1 {
            return Err(err(
                hline,
                format!("the header announces {m} edges, more than a file of {} bytes can hold", text.len()),
            ));
        }
        let mut edges = Vec::with_capacity(m);
        let mut seen: HashSet<(u32, u32)> = HashSet::with_capacity(m);
        let mut last_line = hline;
        for (lineno, line) in lines {
            last_line = lineno;
            if edges.len() == m {
                return Err(err(lineno, format!("more edge lines than the {m} the header announces")));
            }
            let t: Vec<&str> = line.split_whitespace().collect();
            if t.len() != 3 {
                return Err(err(
                    lineno,
                    format!("expected an edge `i j w` (three integers), found {} token(s): `{line}`", t.len()),
                ));
            }
            let i: u64 = parse_int(t[0], "vertex").map_err(|m| err(lineno, m))?;
            let j: u64 = parse_int(t[1], "vertex").map_err(|m| err(lineno, m))?;
            let w: i64 = parse_int(t[2], "weight").map_err(|m| err(lineno, m))?;
            for v in [i, j] {
                if v < 1 || v > n as u64 {
                    return Err(err(lineno, format!("vertex {v} is out of range 1..={n}")));
                }
            }
            if i == j {
                return Err(err(lineno, format!("self-loop on vertex {i}")));
            }
            let (a, b) = ((i - 1) as u32, (j - 1) as u32);
            let key = (a.min(b), a.max(b));
            if !seen.insert(key) {
                return Err(err(lineno, format!("duplicate edge {i}-{j}")));
            }
            edges.push(Edge { u: a, v: b, w });
        }
        if edges.len() != m {
            return Err(err(last_line, format!("the header announces {m} edges but the file has {}", edges.len())));
        }
        Ok(Graph::new(name, n, edges))
    }

    /// Writes the instance in the same format (1-based).
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::with_capacity(16 * self.edges.len() + 32);
        let _ = writeln!(s, "{} {}", self.vertices, self.edges.len());
        for e in &self.edges {
            let _ = writeln!(s, "{} {} {}", e.u + 1, e.v + 1, e.w);
        }
        s
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_text()).map_err(|e| Error::io(path, e))
    }

    /// Sum of all weights: the cut value when every edge is cut (the optimum of an even torus with
    /// positive weights). Summed exactly; an error when it does not fit in 64 bits.
    pub fn total_weight(&self) -> Result<i64> {
        let total: i128 = self.edges.iter().map(|e| e.w as i128).sum();
        i64::try_from(total).map_err(|_| {
            Error::usage(format!(
                "the total weight of {} is {total}: beyond 64-bit integers (at most {})",
                self.name,
                i64::MAX
            ))
        })
    }
}

fn parse_int<T: std::str::FromStr>(token: &str, what: &str) -> std::result::Result<T, String> {
    token.parse::<T>().map_err(|_| format!("{what} `{token}` is not an integer in range"))
}
