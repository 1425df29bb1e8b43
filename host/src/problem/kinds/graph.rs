//! Weighted graph instances in the G-set / rudy format: a header `n m`, then `m` lines `i j w`
//! with 1-based vertex numbers and integer weights. Lines starting with `c` before the header are
//! comments; one of them may state the instance's proven optimum, `c optimum V` (the maximum cut
//! value), which pgomea's generators write and a best-known target uses. The parser refuses
//! every malformed file with the file, the line and what is wrong; it never repairs input
//! silently.
//!
//! Graphs of 10^7 vertices read in seconds: the edge lines are parsed on every core
//! (`problem::lines`) straight into the two arrays the pairwise problem kind uses (ends and
//! weights, [`EdgeList`]), which [`crate::problem::maxcut::MaxCut`] then takes over without a copy.

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::problem::lines::{self, Piece, is_blank};
use crate::stop::StopCheck;

/// The comment that states a graph's proven optimum: `c optimum V` before the header.
pub const OPTIMUM_COMMENT: &str = "c optimum";

/// One undirected weighted edge, 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// One end.
    pub u: u32,
    /// The other end.
    pub v: u32,
    /// The weight.
    pub w: i64,
}

/// The edges of a graph as the pairwise problem kind stores them: edge k joins `ends[2k]` and
/// `ends[2k+1]` and weighs `weights[k]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeList {
    ends: Vec<u32>,
    weights: Vec<i64>,
}

impl EdgeList {
    pub(crate) fn with_capacity(edges: usize) -> Self {
        EdgeList { ends: Vec::with_capacity(2 * edges), weights: Vec::with_capacity(edges) }
    }

    /// The list of the arrays `ends` (two per edge) and `weights`; None when their lengths
    /// disagree.
    pub fn from_arrays(ends: Vec<u32>, weights: Vec<i64>) -> Option<Self> {
        (ends.len() == 2 * weights.len()).then_some(EdgeList { ends, weights })
    }

    pub(crate) fn push(&mut self, e: Edge) {
        self.ends.extend_from_slice(&[e.u, e.v]);
        self.weights.push(e.w);
    }

    /// The number of edges.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Whether there are no edges.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// Edge `k`.
    ///
    /// # Panics
    ///
    /// If `k` is not below [`len`](Self::len).
    pub fn get(&self, k: usize) -> Edge {
        Edge { u: self.ends[2 * k], v: self.ends[2 * k + 1], w: self.weights[k] }
    }

    /// The edges in order.
    pub fn iter(&self) -> Edges<'_> {
        Edges { list: self, next: 0 }
    }

    /// The weights, edge by edge.
    pub fn weights(&self) -> &[i64] {
        &self.weights
    }

    /// The arrays (`ends`, `weights`), handed over without a copy.
    pub fn into_arrays(self) -> (Vec<u32>, Vec<i64>) {
        (self.ends, self.weights)
    }
}

impl From<Vec<Edge>> for EdgeList {
    fn from(edges: Vec<Edge>) -> Self {
        let mut list = EdgeList::with_capacity(edges.len());
        edges.into_iter().for_each(|e| list.push(e));
        list
    }
}

/// The edges of an [`EdgeList`] in order.
#[derive(Clone, Debug)]
pub struct Edges<'a> {
    list: &'a EdgeList,
    next: usize,
}

impl Iterator for Edges<'_> {
    type Item = Edge;
    fn next(&mut self) -> Option<Edge> {
        (self.next < self.list.len()).then(|| {
            self.next += 1;
            self.list.get(self.next - 1)
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.list.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Edges<'_> {}

impl<'a> IntoIterator for &'a EdgeList {
    type Item = Edge;
    type IntoIter = Edges<'a>;
    fn into_iter(self) -> Edges<'a> {
        self.iter()
    }
}

/// A weighted graph: the data of a Max-Cut instance.
#[derive(Clone, Debug)]
pub struct Graph {
    /// A short name for reports (the file stem, or the generator's description).
    pub name: String,
    /// The number of vertices, numbered from 0.
    pub vertices: usize,
    /// The edges.
    pub edges: EdgeList,
    /// The maximum cut, when it is proven (a generator's bipartite torus, or a file's
    /// `c optimum V` line).
    pub optimum: Option<i64>,
}

impl Graph {
    /// The graph named `name` on `vertices` vertices with `edges`, with no proven optimum.
    pub fn new(name: impl Into<String>, vertices: usize, edges: Vec<Edge>) -> Self {
        Graph::with_edges(name, vertices, edges.into())
    }

    /// [`new`](Self::new) from the arrays of an [`EdgeList`].
    pub fn with_edges(name: impl Into<String>, vertices: usize, edges: EdgeList) -> Self {
        Graph { name: name.into(), vertices, edges, optimum: None }
    }

    /// Reads and checks an instance file.
    pub fn read(path: &Path) -> Result<Graph> {
        Graph::read_with_stop(path, &StopCheck::never())
    }

    /// [`read`](Self::read), ending with `Error::Stopped` when `stop` says so.
    pub fn read_with_stop(path: &Path, stop: &StopCheck) -> Result<Graph> {
        let text = crate::problem::read_text(path)?;
        let name = crate::problem::instance_name(path);
        Graph::parse_with_stop(&text, &path.display().to_string(), &name, stop)
    }

    /// Parses the text of an instance; `file` names it in error messages.
    pub fn parse(text: &str, file: &str, name: &str) -> Result<Graph> {
        Graph::parse_with_stop(text, file, name, &StopCheck::never())
    }

    /// [`parse`](Self::parse), checking `stop` every few thousand lines of every piece (a stop
    /// ends it with `Error::Stopped`).
    pub fn parse_with_stop(text: &str, file: &str, name: &str, stop: &StopCheck) -> Result<Graph> {
        let err = Error::parse_in(file);
        let head = Head::read(text, file)?;
        let (hline, n, m) = (head.line, head.vertices, head.edges);
        // Each edge line takes at least 6 bytes (`i j w` and its line end): a larger count cannot
        // be in the text, and is not allocated for before the lines are read.
        if m > text.len() / 6 + 1 {
            return Err(err(
                hline,
                format!("the header announces {m} edges, more than a file of {} bytes can hold", text.len()),
            ));
        }
        // The two arrays (16 bytes an edge), and the keys of the duplicate check.
        crate::problem::memory::ensure(40 * m as u128, &format!("a graph of {m} edges"))?;
        // Every line after the header that is not blank is an edge line: the pieces' counts of
        // them give each piece its own share of the arrays.
        let pieces = lines::split(&text[head.body..], hline + 1);
        let mut first_edge = Vec::with_capacity(pieces.len() + 1);
        first_edge.push(0usize);
        for p in &pieces {
            first_edge.push(first_edge.last().unwrap() + p.data_lines);
        }
        let found = *first_edge.last().unwrap();
        stop.check()?;
        let mut ends = vec![0u32; 2 * m];
        let mut weights = vec![0i64; m];
        let mut shares = Vec::with_capacity(pieces.len());
        let (mut ends_left, mut weights_left) = (&mut ends[..], &mut weights[..]);
        for (k, piece) in pieces.iter().enumerate() {
            let take = first_edge[k + 1].min(m) - first_edge[k].min(m);
            let (e, rest) = std::mem::take(&mut ends_left).split_at_mut(2 * take);
            let (w, rest_w) = std::mem::take(&mut weights_left).split_at_mut(take);
            ends_left = rest;
            weights_left = rest_w;
            shares.push((*piece, (first_edge[k], e, w)));
        }
        // Parse every piece into its share; a line past the m-th edge is an error.
        let parsed = lines::parse_all(shares, stop, |piece, (first, ends, weights)| {
            parse_edges(piece, first, ends, weights, n, m, stop, file)
        });
        // The first error in file order: a duplicate edge before the first other error wins.
        let parse_error = match parsed {
            Ok(()) => None,
            Err(e @ Error::Parse { .. }) => Some(e),
            Err(e) => return Err(e),
        };
        let checked_up_to = match &parse_error {
            Some(Error::Parse { line, .. }) => edges_before_line(&pieces, &first_edge, *line),
            _ => found.min(m),
        };
        stop.check()?;
        if let Some((first, second)) = first_duplicate(&ends[..2 * checked_up_to]) {
            let (u, v) = (ends[2 * second] + 1, ends[2 * second + 1] + 1);
            let line_first = line_of_edge(&pieces, &first_edge, first);
            return Err(err(
                line_of_edge(&pieces, &first_edge, second),
                format!("duplicate edge {u}-{v} (already on line {line_first})"),
            ));
        }
        if let Some(e) = parse_error {
            return Err(e);
        }
        if found != m {
            let last = lines::last_data_line(&pieces).unwrap_or(hline);
            return Err(err(last, format!("the header announces {m} edges but the file has {found}")));
        }
        let mut graph = Graph::with_edges(name, n, EdgeList { ends, weights });
        if let Some((line, value)) = head.optimum {
            let (low, high) = graph.cut_bounds();
            if (value as i128) < low || (value as i128) > high {
                return Err(err(
                    line,
                    format!(
                        "the stated optimum {value} is impossible: the maximum cut of this graph lies in {low}..={high}"
                    ),
                ));
            }
            graph.optimum = Some(value);
        }
        Ok(graph)
    }

    /// Bounds on the maximum cut: at least 0 (the empty cut) and half the total weight (a random
    /// cut's mean), at most the sum of the positive weights.
    pub fn cut_bounds(&self) -> (i128, i128) {
        let (total, positive) = self
            .edges
            .weights()
            .par_iter()
            .map(|&w| (w as i128, (w.max(0)) as i128))
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        ((total + 1).div_euclid(2).max(0), positive)
    }

    /// Writes the instance in the same format (1-based), the optimum comment first when it is
    /// known.
    pub fn to_text(&self) -> String {
        let mut bytes = Vec::with_capacity(16 * self.edges.len() + 32);
        self.write_text(&mut bytes).expect("writing to memory does not fail");
        String::from_utf8(bytes).expect("the text is ASCII")
    }

    /// Writes the file at `path`, formatting blocks of edges on every core.
    pub fn write(&self, path: &Path) -> Result<()> {
        let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        self.write_text(&mut out).and_then(|_| out.flush()).map_err(|e| Error::io(path, e))
    }

    /// Writes the text of the instance to `out`: the edges in blocks formatted in parallel, a
    /// few blocks per core at a time, so that the whole text is never in memory.
    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        const BLOCK: usize = 1 << 16;
        if let Some(v) = self.optimum {
            writeln!(out, "{OPTIMUM_COMMENT} {v}")?;
        }
        writeln!(out, "{} {}", self.vertices, self.edges.len())?;
        let blocks = self.edges.len().div_ceil(BLOCK);
        let round = 4 * rayon::current_num_threads();
        for first in (0..blocks).step_by(round) {
            let texts: Vec<Vec<u8>> = (first..(first + round).min(blocks))
                .into_par_iter()
                .map(|b| {
                    let mut text = Vec::with_capacity(BLOCK * 20);
                    for k in b * BLOCK..((b + 1) * BLOCK).min(self.edges.len()) {
                        let e = self.edges.get(k);
                        push_int(&mut text, e.u as i64 + 1, b' ');
                        push_int(&mut text, e.v as i64 + 1, b' ');
                        push_int(&mut text, e.w, b'\n');
                    }
                    text
                })
                .collect();
            for t in texts {
                out.write_all(&t)?;
            }
        }
        Ok(())
    }

    /// Sum of all weights: the cut value when every edge is cut (the optimum of an even torus with
    /// positive weights). Summed exactly; an error when it does not fit in 64 bits.
    pub fn total_weight(&self) -> Result<i64> {
        checked_total(&self.name, self.edges.weights().par_iter().map(|&w| w as i128).sum())
    }
}

/// The total weight `total` of the instance `name` as an i64, or an error when it does not fit.
pub fn checked_total(name: &str, total: i128) -> Result<i64> {
    i64::try_from(total).map_err(|_| {
        Error::usage(format!("the total weight of {name} is {total}: beyond 64-bit integers (at most {})", i64::MAX))
    })
}

/// What comes before the edge lines: comments (one may state the optimum), the header `n m`.
struct Head {
    /// The header's line, vertices and edges.
    line: usize,
    vertices: usize,
    edges: usize,
    /// The byte where the line after the header starts.
    body: usize,
    /// The `c optimum V` line and V.
    optimum: Option<(usize, i64)>,
}

impl Head {
    fn read(text: &str, file: &str) -> Result<Head> {
        let err = Error::parse_in(file);
        let mut optimum = None;
        let mut start = 0;
        for (k, raw) in text.split_inclusive('\n').enumerate() {
            let (lineno, line) = (k + 1, raw.trim());
            start += raw.len();
            if is_blank(line) {
                continue;
            }
            if line.starts_with('c') {
                let t: Vec<&str> = line.split_whitespace().collect();
                if t.get(1) == Some(&"optimum") {
                    if optimum.is_some() {
                        return Err(err(lineno, "a second `c optimum` line".into()));
                    }
                    let value = match t[..] {
                        [_, _, v] => parse_int::<i64>(v, "optimum").map_err(|m| err(lineno, m))?,
                        _ => {
                            return Err(err(
                                lineno,
                                format!("expected `{OPTIMUM_COMMENT} V` (V an integer): `{line}`"),
                            ));
                        }
                    };
                    optimum = Some((lineno, value));
                }
                continue;
            }
            let h: Vec<&str> = line.split_whitespace().collect();
            if h.len() != 2 {
                return Err(err(
                    lineno,
                    format!("expected a header `n m` (two integers), found {} token(s): `{line}`", h.len()),
                ));
            }
            let n: usize = parse_int(h[0], "number of vertices").map_err(|m| err(lineno, m))?;
            let m: usize = parse_int(h[1], "number of edges").map_err(|m| err(lineno, m))?;
            if n == 0 {
                return Err(err(lineno, "the number of vertices must be at least 1".into()));
            }
            if n > u32::MAX as usize / 2 {
                return Err(err(lineno, format!("{n} vertices is more than this program supports")));
            }
            let max_edges = (n as u128) * (n as u128 - 1) / 2;
            if m as u128 > max_edges {
                return Err(err(
                    lineno,
                    format!("{m} edges cannot exist in a simple graph of {n} vertices (at most {max_edges})"),
                ));
            }
            return Ok(Head { line: lineno, vertices: n, edges: m, body: start, optimum });
        }
        let last = text.lines().count().max(1);
        Err(err(last, "empty file: expected a header `n m` (after any `c` comment lines)".into()))
    }
}

/// Parses the edge lines of `piece` into `ends` and `weights`, its share of the arrays: edges
/// `first..` of the file (0-based), of which those from `m` on are an error.
#[allow(clippy::too_many_arguments)]
fn parse_edges(
    piece: Piece<'_>,
    first: usize,
    ends: &mut [u32],
    weights: &mut [i64],
    n: usize,
    m: usize,
    stop: &StopCheck,
    file: &str,
) -> Result<()> {
    let err = Error::parse_in(file);
    let mut k = 0;
    for (lineno, line) in piece.lines() {
        let fast = fast_edge(line.as_bytes());
        if fast.is_none() && is_blank(line) {
            continue;
        }
        if first + k >= m {
            return Err(err(lineno, format!("more edge lines than the {m} the header announces")));
        }
        let (i, j, w) = check_edge(fast, line, n).map_err(|m| err(lineno, m))?;
        ends[2 * k] = i;
        ends[2 * k + 1] = j;
        weights[k] = w;
        k += 1;
        stop.every(k, lines::STOP_EVERY_LINES)?;
    }
    Ok(())
}

/// One edge line `i j w` (1-based) of a graph of `n` vertices, as 0-based ends and the weight;
/// `fast` is what [`fast_edge`] read of it.
fn check_edge(fast: Option<(u64, u64, i64)>, line: &str, n: usize) -> std::result::Result<(u32, u32, i64), String> {
    let (i, j, w) = match fast {
        Some(t) => t,
        None => {
            let t: Vec<&str> = line.split_whitespace().collect();
            if t.len() != 3 {
                return Err(format!(
                    "expected an edge `i j w` (three integers), found {} token(s): `{}`",
                    t.len(),
                    line.trim()
                ));
            }
            (parse_int::<u64>(t[0], "vertex")?, parse_int::<u64>(t[1], "vertex")?, parse_int::<i64>(t[2], "weight")?)
        }
    };
    for v in [i, j] {
        if v < 1 || v > n as u64 {
            return Err(format!("vertex {v} is out of range 1..={n}"));
        }
    }
    if i == j {
        return Err(format!("self-loop on vertex {i}"));
    }
    Ok(((i - 1) as u32, (j - 1) as u32, w))
}

/// The common case of an edge line, read byte by byte: `i j w` with unsigned i, j and an
/// optionally negative w, separated by spaces or tabs. None for anything else (the slow path
/// then says what is wrong), including numbers of more than 18 digits.
fn fast_edge(b: &[u8]) -> Option<(u64, u64, i64)> {
    let mut at = 0;
    let mut number = |negative_allowed: bool| -> Option<i64> {
        while at < b.len() && (b[at] == b' ' || b[at] == b'\t') {
            at += 1;
        }
        let negative = negative_allowed && at < b.len() && b[at] == b'-';
        at += negative as usize;
        let start = at;
        let mut v: i64 = 0;
        while at < b.len() && b[at].is_ascii_digit() {
            v = v * 10 + (b[at] - b'0') as i64;
            at += 1;
        }
        let digits = at - start;
        // A number must end at white space or the line's end.
        if digits == 0 || digits > 18 || (at < b.len() && !b[at].is_ascii_whitespace()) {
            return None;
        }
        Some(if negative { -v } else { v })
    };
    let i = number(false)?;
    let j = number(false)?;
    let w = number(true)?;
    b[at..].iter().all(|c| c.is_ascii_whitespace()).then_some((i as u64, j as u64, w))
}

/// The number of edges on the lines before `line` (every non-blank line after the header is an
/// edge line); `first_edge[k]` is the number before piece k.
fn edges_before_line(pieces: &[Piece<'_>], first_edge: &[usize], line: usize) -> usize {
    let k = pieces.partition_point(|p| p.first_line <= line).saturating_sub(1);
    let Some(piece) = pieces.get(k) else { return 0 };
    first_edge[k] + piece.lines().take_while(|&(n, _)| n < line).filter(|(_, l)| !is_blank(l)).count()
}

/// The line of edge `e` (0-based, in file order).
fn line_of_edge(pieces: &[Piece<'_>], first_edge: &[usize], e: usize) -> usize {
    let k = first_edge.partition_point(|&f| f <= e) - 1;
    pieces[k].lines().filter(|(_, l)| !is_blank(l)).nth(e - first_edge[k]).map_or(0, |(n, _)| n)
}

/// The first edge (in order) that repeats an earlier one, and that earlier one: (first, second).
/// Whether any repeats is found by sorting the pairs on every core (a counting sort by vertex
/// was faster on files ordered by vertex but 1.5x slower on random ones); only then is the
/// first repetition looked for.
fn first_duplicate(ends: &[u32]) -> Option<(usize, usize)> {
    let key = |e: &[u32]| (e[0].min(e[1]) as u64) << 32 | e[0].max(e[1]) as u64;
    let mut keys: Vec<u64> = ends.par_chunks_exact(2).map(key).collect();
    keys.par_sort_unstable();
    let repeats = keys.par_windows(2).any(|w| w[0] == w[1]);
    drop(keys);
    if !repeats {
        return None;
    }
    let mut first_seen = std::collections::HashMap::new();
    for (k, e) in ends.chunks_exact(2).enumerate() {
        if let Some(&first) = first_seen.get(&key(e)) {
            return Some((first, k));
        }
        first_seen.insert(key(e), k);
    }
    None
}

/// Appends `v` and then `end` to `out` (faster than `write!` for the millions of numbers of a
/// large graph).
fn push_int(out: &mut Vec<u8>, v: i64, end: u8) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = v.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
    out.push(end);
}

fn parse_int<T: std::str::FromStr>(token: &str, what: &str) -> std::result::Result<T, String> {
    token.parse::<T>().map_err(|_| format!("{what} `{token}` is not an integer in range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_rust_writes_them() {
        for v in [0, 1, -1, 9, 10, -10, 123456789, i64::MAX, i64::MIN, i64::MIN + 1] {
            let mut out = Vec::new();
            push_int(&mut out, v, b'\n');
            assert_eq!(String::from_utf8(out).unwrap(), format!("{v}\n"));
        }
    }

    #[test]
    fn the_fast_edge_reader_agrees_with_the_slow_one_or_declines() {
        let cases = [
            ("1 2 3", Some((1, 2, 3))),
            ("  10\t20   -30  ", Some((10, 20, -30))),
            ("1 2 -0", Some((1, 2, 0))),
            ("1 2", None),
            ("1 2 3 4", None),
            ("1 -2 3", None),
            ("1 2 3x", None),
            ("1 2 +3", None),
            ("1 2 1234567890123456789", None),
            ("", None),
        ];
        for (line, expected) in cases {
            assert_eq!(fast_edge(line.as_bytes()), expected, "{line:?}");
        }
        // What it declines the slow path reads or refuses with a message.
        let slow = |line: &str| check_edge(None, line, 2);
        assert_eq!(slow("1 2 +3"), Ok((0, 1, 3)));
        assert_eq!(slow("1 2 1234567890123456789"), Ok((0, 1, 1234567890123456789)));
        assert!(slow("1 2 3 4").unwrap_err().contains("found 4 token(s)"));
    }
}
