//! Large instance texts parsed on every core: the text is cut into pieces of about a megabyte at
//! line boundaries, each piece knows the number of its first line, and the pieces are parsed in
//! parallel (rayon). Errors stay exact: each piece stops at its first error, and the first error
//! of the first piece that has one is the first error in file order.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::stop::StopCheck;

/// The size a piece aims at: large enough that the per-piece work is noise, small enough that two
/// cores (or a hundred) get many pieces each.
const PIECE_BYTES: usize = 1 << 20;

/// How often (in lines) a piece asks whether the run must stop: about every millisecond.
pub const STOP_EVERY_LINES: usize = 4096;

/// A run of whole lines of a text (the last one may lack its `\n`), the number of its first line
/// in the file (1-based), and how many of its lines hold anything but white space.
#[derive(Clone, Copy, Debug)]
pub struct Piece<'a> {
    pub(crate) text: &'a str,
    pub(crate) first_line: usize,
    pub(crate) data_lines: usize,
}

impl<'a> Piece<'a> {
    /// The lines of the piece with their numbers in the file.
    pub fn lines(&self) -> impl Iterator<Item = (usize, &'a str)> + 'a {
        let first = self.first_line;
        self.text.split_terminator('\n').enumerate().map(move |(i, l)| (first + i, l))
    }
}

/// Cuts `text`, whose first line is line `first_line` of its file, into pieces of whole lines;
/// one parallel pass counts each piece's lines and data lines.
pub fn split(text: &str, first_line: usize) -> Vec<Piece<'_>> {
    let bytes = text.as_bytes();
    let mut bounds = vec![0usize];
    let mut at = 0;
    while at < bytes.len() {
        let target = (at + PIECE_BYTES).min(bytes.len());
        // The piece ends after the first newline at or past the target (or at the text's end).
        let end = match bytes[target..].iter().position(|&b| b == b'\n') {
            Some(k) if target < bytes.len() => target + k + 1,
            _ => bytes.len(),
        };
        bounds.push(end);
        at = end;
    }
    let counts: Vec<(usize, usize)> = bounds.par_windows(2).map(|w| count_lines(&bytes[w[0]..w[1]])).collect();
    let mut line = first_line;
    bounds
        .windows(2)
        .zip(counts)
        .map(|(w, (newlines, data_lines))| {
            // Cut at newlines (ASCII), so every bound is a char boundary.
            let piece = Piece { text: &text[w[0]..w[1]], first_line: line, data_lines };
            line += newlines;
            piece
        })
        .collect()
}

/// The newlines of `bytes`, and its lines that hold anything but white space.
fn count_lines(bytes: &[u8]) -> (usize, usize) {
    let (mut newlines, mut data, mut has_data) = (0, 0, false);
    for &b in bytes {
        if b == b'\n' {
            newlines += 1;
            data += has_data as usize;
            has_data = false;
        } else {
            has_data |= !b.is_ascii_whitespace();
        }
    }
    (newlines, data + has_data as usize)
}

/// Whether a line holds nothing but (ASCII) white space: a blank line, which the line-based
/// formats skip.
pub fn is_blank(line: &str) -> bool {
    line.bytes().all(|b| b.is_ascii_whitespace())
}

/// The number of the last line of the pieces that is not blank, or None.
pub fn last_data_line(pieces: &[Piece<'_>]) -> Option<usize> {
    pieces.iter().rev().find_map(|p| p.lines().filter(|(_, l)| !is_blank(l)).last().map(|(n, _)| n))
}

/// Runs `parse` on every piece in parallel; the first error in file order, if any. A stop
/// (`Error::Stopped`) anywhere wins over parse errors: the run ends either way, and the caller
/// must not present a partial parse as the file's first error.
pub fn parse_all<T, F>(pieces: Vec<(Piece<'_>, T)>, stop: &StopCheck, parse: F) -> Result<()>
where
    T: Send,
    F: Fn(Piece<'_>, T) -> Result<()> + Sync,
{
    let results: Vec<Result<()>> = pieces
        .into_par_iter()
        .map(|(piece, out)| {
            stop.check()?;
            parse(piece, out)
        })
        .collect();
    first_error(results)
}

/// The first error of per-piece results in piece order, with a stop taking precedence.
pub fn first_error(results: Vec<Result<()>>) -> Result<()> {
    if let Some(reason) = results.iter().find_map(|r| match r {
        Err(Error::Stopped(reason)) => Some(*reason),
        _ => None,
    }) {
        return Err(Error::Stopped(reason));
    }
    results.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_text_at_line_boundaries_with_their_line_numbers() {
        let line = "123456 654321 -42\n";
        let text: String = line.repeat(3 * PIECE_BYTES / line.len()) + "last";
        let pieces = split(&text, 7);
        assert!(pieces.len() >= 3);
        assert_eq!(pieces.iter().map(|p| p.text).collect::<String>(), text);
        let mut expected = 7;
        for p in &pieces {
            assert_eq!(p.first_line, expected);
            assert!(p.text.ends_with('\n') || p.text.ends_with("last"));
            expected += p.text.matches('\n').count();
        }
        let all: Vec<(usize, &str)> = pieces.iter().flat_map(|p| p.lines()).collect();
        assert_eq!(pieces.iter().map(|p| p.data_lines).sum::<usize>(), text.lines().count());
        let mixed = split("a\n \n\t\n\nb c\n  d", 1);
        assert_eq!((mixed.len(), mixed[0].data_lines), (1, 3));
        assert_eq!(all.len(), text.lines().count());
        assert_eq!(all.last(), Some(&(7 + text.lines().count() - 1, "last")));
        assert_eq!(last_data_line(&pieces), Some(7 + text.lines().count() - 1));
        assert!(split("", 1).is_empty());
    }

    #[test]
    fn the_first_error_in_file_order_wins_and_a_stop_wins_over_all() {
        let e = |line| Err(Error::Parse { file: "f".into(), line, message: "bad".into() });
        let r = first_error(vec![Ok(()), e(9), e(3)]).unwrap_err().to_string();
        assert_eq!(r, "f:9: bad");
        let r = first_error(vec![e(1), Err(Error::Stopped(crate::stop::StopReason::TimeLimit))]);
        assert!(matches!(r, Err(Error::Stopped(_))));
        assert!(first_error(vec![Ok(()), Ok(())]).is_ok());
    }
}
