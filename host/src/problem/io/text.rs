//! The text of instance files, as every parser reads it: bytes to a `String` with one line
//! ending. A UTF-8 byte-order mark is dropped, Windows (`\r\n`) and old Mac (`\r`) line endings
//! become `\n`, and bytes that are not UTF-8 are an error naming the line and column, so that a
//! parser never sees a file other than as lines of text and never reports a confusing
//! "expected a header" for a file saved in another encoding.
//!
//! Large files are parsed in pieces at once: [`chunks`] cuts the text at line starts a format
//! accepts (where no subfunction is left open), and [`parse_chunks`] parses every piece in
//! parallel from the state it most likely starts in, then walks the pieces in file order and
//! parses again the rare piece whose true start state differs (after a `%` end marker, after a
//! second `o` line) or that holds an error, so that the first error in file order, with its
//! line, is the one reported, exactly as a sequential reader would.

use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::stop::StopCheck;

/// The UTF-8 encoding of U+FEFF, which some editors write at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Bytes read between two checks of the stop flag and the clock.
const READ_BLOCK: usize = 16 << 20;

/// Reads the file at `path` as text (see [`decode`]), checking `stop` every 16 MiB. A file
/// larger than half the memory this process may take is refused before it is read (its text and
/// the parsed instance would not both fit), and so is a stream (a pipe, a device) that goes on
/// past that.
pub fn read(path: &Path, stop: &StopCheck) -> Result<String> {
    use std::io::Read;
    let headroom = crate::problem::memory::headroom();
    let limit = headroom.map_or(u64::MAX, |h| h.bytes / 2);
    let too_large = |size: String| {
        let (bytes, bound) = headroom.map(|h| (h.bytes, h.bound.describe())).unwrap_or((u64::MAX, "available"));
        Error::usage(format!(
            "{}: {size} is more than half the memory {bound} ({}): not an instance this process can hold",
            path.display(),
            crate::problem::memory::human(bytes as u128)
        ))
    };
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_file() && meta.len() > limit {
        return Err(too_large(format!("a file of {}", crate::problem::memory::human(meta.len() as u128))));
    }
    let mut bytes =
        crate::problem::memory::vec_with_capacity(if meta.is_file() { meta.len() as usize } else { 0 }, "the text")?;
    let mut reader = file.take(limit.saturating_add(1));
    loop {
        stop.check()?;
        let got = (&mut reader).take(READ_BLOCK as u64).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
        if got == 0 {
            break;
        }
    }
    if bytes.len() as u64 > limit {
        return Err(too_large(format!("a stream of over {}", crate::problem::memory::human(limit as u128))));
    }
    decode_owned(bytes, &path.display().to_string())
}

/// The text of a file's bytes: the byte-order mark dropped, line endings made `\n`; `file` names
/// the file in the error for bytes that are not UTF-8.
pub fn decode(bytes: &[u8], file: &str) -> Result<String> {
    decode_owned(bytes.to_vec(), file)
}

/// [`decode`], taking the bytes (no copy of a valid file without `\r`).
pub fn decode_owned(mut bytes: Vec<u8>, file: &str) -> Result<String> {
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    if let Err(e) = std::str::from_utf8(&bytes) {
        let at = e.valid_up_to();
        let before = &bytes[..at];
        // Lines as the parsers count them: \r\n, \r and \n each end one.
        let line = 1 + before.iter().enumerate().filter(|&(i, &b)| is_line_end(before, i, b)).count();
        let line_start = before.iter().rposition(|&b| b == b'\n' || b == b'\r').map(|i| i + 1).unwrap_or(0);
        let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
        let shown: Vec<String> =
            bytes[at..].iter().take(e.error_len().unwrap_or(1).max(1)).map(|b| format!("0x{b:02X}")).collect();
        return Err(Error::Parse {
            file: file.to_string(),
            line,
            message: format!(
                "column {column}: byte {} is not UTF-8 text (save the file as UTF-8 or plain ASCII)",
                shown.join(" ")
            ),
        });
    }
    if bytes.contains(&b'\r') {
        // In place: `\r\n` becomes `\n`, a lone `\r` becomes `\n` (ASCII only, so still UTF-8).
        let mut w = 0;
        for r in 0..bytes.len() {
            let b = bytes[r];
            if b == b'\r' && bytes.get(r + 1) == Some(&b'\n') {
                continue;
            }
            bytes[w] = if b == b'\r' { b'\n' } else { b };
            w += 1;
        }
        bytes.truncate(w);
    }
    Ok(String::from_utf8(bytes).expect("checked to be UTF-8 above; only ASCII bytes were changed"))
}

/// Whether byte `b` at `i` ends a line: `\n`, or a `\r` not followed by `\n`.
fn is_line_end(bytes: &[u8], i: usize, b: u8) -> bool {
    b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// The text that `write` writes (instance writers write ASCII).
pub fn written(write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> String {
    let mut bytes = Vec::new();
    write(&mut bytes).expect("a Vec takes every write");
    String::from_utf8(bytes).expect("instance writers write ASCII")
}

/// Writes the file at `path` with `write`, through a buffer.
pub fn write_file(path: &Path, write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<()> {
    use std::io::Write as _;
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    write(&mut out).and_then(|()| out.flush()).map_err(|e| Error::io(path, e))
}

/// The first line of `text` (without its `\n`) and the text after it.
#[inline]
pub fn split_line(text: &str) -> (&str, &str) {
    match text.find('\n') {
        Some(k) => (&text[..k], &text[k + 1..]),
        None => (text, ""),
    }
}

/// Whether a line (trimmed) carries data: not blank and not a comment (`c ...`).
#[inline]
pub fn is_data(line: &str) -> bool {
    !line.is_empty() && !line.starts_with('c')
}

/// A piece of a text, cut at a line start, with the number of its first line.
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a> {
    pub(crate) text: &'a str,
    pub(crate) line: usize,
}

impl<'a> Chunk<'a> {
    /// The lines of the piece, each trimmed, with its number; `stop` is checked every 4096 lines.
    pub fn lines<'s>(&self, stop: &'s StopCheck) -> Lines<'a, 's> {
        Lines { rest: self.text, next: self.line, stop }
    }
}

/// The lines of a [`Chunk`] (see [`Chunk::lines`]).
pub struct Lines<'a, 's> {
    rest: &'a str,
    next: usize,
    stop: &'s StopCheck,
}

impl<'a> Iterator for Lines<'a, '_> {
    /// The line's number and its text without surrounding ASCII white space, or the reason to stop.
    type Item = std::result::Result<(usize, &'a str), crate::stop::StopReason>;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = split_line(self.rest);
        self.rest = rest;
        let n = self.next;
        self.next += 1;
        if let Err(reason) = self.stop.every(n, 4096) {
            return Some(Err(reason));
        }
        Some(Ok((n, line.trim_ascii())))
    }
}

/// Cuts `text`, whose first line is line `first_line`, into pieces of about equal size for the
/// threads, each starting at a line start whose previous line `boundary` accepts (a line where
/// the format leaves nothing open); the first piece starts at the text's start.
pub fn chunks<'a>(text: &'a str, first_line: usize, boundary: impl Fn(&str) -> bool) -> Vec<Chunk<'a>> {
    let threads = rayon::current_num_threads().max(1);
    let target = (text.len() / (8 * threads)).clamp(256 << 10, 8 << 20);
    let mut starts = vec![0usize];
    let mut at = 0;
    while text.len() - at > target + target / 2 {
        // The line start at or after at + target whose previous line is accepted.
        let mut cut = at + target;
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        let Some(k) = text[cut..].find('\n') else { break };
        let mut line_start = cut + k + 1;
        loop {
            if line_start >= text.len() {
                break;
            }
            let previous_start = text[..line_start - 1].rfind('\n').map_or(0, |p| p + 1);
            if boundary(text[previous_start..line_start - 1].trim_ascii()) {
                break;
            }
            match text[line_start..].find('\n') {
                Some(k) => line_start += k + 1,
                None => line_start = text.len(),
            }
        }
        if line_start >= text.len() {
            break;
        }
        starts.push(line_start);
        at = line_start;
    }
    starts.push(text.len());
    let pieces: Vec<&str> = starts.windows(2).map(|w| &text[w[0]..w[1]]).collect();
    let newlines: Vec<usize> = pieces.par_iter().map(|p| count_newlines(p.as_bytes())).collect();
    let mut line = first_line;
    pieces
        .into_iter()
        .zip(newlines)
        .map(|(text, n)| {
            let chunk = Chunk { text, line };
            line += n;
            chunk
        })
        .collect()
}

/// The `\n` bytes of `bytes`, counted 64 bytes at a time into a byte-wide sum (which the compiler
/// turns into vector instructions).
fn count_newlines(bytes: &[u8]) -> usize {
    let blocks = bytes.chunks_exact(64);
    let tail = blocks.remainder().iter().filter(|&&b| b == b'\n').count();
    tail + blocks.map(|block| block.iter().map(|&b| (b == b'\n') as u8).sum::<u8>() as usize).sum::<usize>()
}

/// A format's parser of one piece of text, for [`parse_chunks`].
pub trait ChunkParser: Sync {
    /// What the text before a piece leaves for it (after an end marker, an `o` line seen).
    type State: Clone + Send + Sync;
    /// A parsed piece.
    type Out: Send;
    /// At most this many bytes of `Out` per byte of text (checked against the memory left before
    /// each piece is parsed).
    const BYTES_PER_BYTE: u128;
    /// Parses `chunk` from `state`; at most `allowance` subfunctions may begin in it (the rest of
    /// the header's count).
    fn parse(&self, chunk: &Chunk, state: &Self::State, allowance: usize, stop: &StopCheck) -> Result<Self::Out>;
    /// Whether `out`, parsed from the guessed state, is what parsing from `exact` gives.
    fn same_from(&self, out: &Self::Out, exact: &Self::State) -> bool;
    /// The subfunctions that begin in `out`.
    fn count(&self, out: &Self::Out) -> usize;
    /// The state after `out`, which began in `state`.
    fn after(&self, state: &Self::State, out: &Self::Out) -> Self::State;
}

/// Parses `chunks` in parallel, the first from `first` and the others from `guess`, then
/// confirms them in file order (parsing again from the exact state where the guess was wrong, an
/// error occurred or the header's `limit` on the subfunctions was passed): the pieces and the
/// state after the last, or the first error in file order. `what` names the instance in memory
/// messages.
pub fn parse_chunks<P: ChunkParser>(
    parser: &P,
    chunks: &[Chunk],
    first: P::State,
    guess: P::State,
    limit: Option<usize>,
    what: &str,
    stop: &StopCheck,
) -> Result<(Vec<P::Out>, P::State)> {
    let parse = |chunk: &Chunk, state: &P::State, allowance: usize| {
        stop.check()?;
        crate::problem::memory::ensure(P::BYTES_PER_BYTE * chunk.text.len() as u128, what)?;
        parser.parse(chunk, state, allowance, stop)
    };
    let guessed: Vec<Result<P::Out>> = chunks
        .par_iter()
        .enumerate()
        .map(|(i, chunk)| parse(chunk, if i == 0 { &first } else { &guess }, usize::MAX))
        .collect();
    if let Some(Err(Error::Stopped(reason))) = guessed.iter().find(|r| matches!(r, Err(Error::Stopped(_)))) {
        return Err(Error::Stopped(*reason));
    }
    let mut state = first;
    let mut count = 0usize;
    let mut outs = Vec::with_capacity(chunks.len());
    for (i, (chunk, out)) in chunks.iter().zip(guessed).enumerate() {
        let allowance = limit.map_or(usize::MAX, |m| m.saturating_sub(count));
        let reusable = match &out {
            Ok(o) => (i == 0 || parser.same_from(o, &state)) && parser.count(o) <= allowance,
            Err(_) => false,
        };
        let out = if reusable { out? } else { parse(chunk, &state, allowance)? };
        count += parser.count(&out);
        state = parser.after(&state, &out);
        outs.push(out);
    }
    Ok((outs, state))
}

/// The tokens of a line (runs of bytes other than ASCII white space), each with its value when
/// it is an integer in range of `i64` ([`int`]), found in the same pass over its bytes.
#[derive(Clone)]
pub struct Tokens<'a> {
    line: &'a str,
    at: usize,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(line: &'a str) -> Self {
        Tokens { line, at: 0 }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (&'a str, Option<i64>);
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.line.as_bytes();
        let mut i = self.at;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == b.len() {
            self.at = i;
            return None;
        }
        let start = i;
        let negative = b[i] == b'-';
        if negative || b[i] == b'+' {
            i += 1;
        }
        let digits = i;
        let mut v: u64 = 0;
        while i < b.len() && b[i].is_ascii_digit() && i - digits < 19 {
            v = v * 10 + (b[i] - b'0') as u64;
            i += 1;
        }
        let plain = i > digits && (i == b.len() || b[i].is_ascii_whitespace());
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        self.at = i;
        let token = &self.line[start..i];
        let value = if !plain {
            // Not digits alone, or more than 19 of them (leading zeros, or out of range).
            int(token)
        } else if negative {
            (v <= 1 << 63).then(|| (v as i64).wrapping_neg())
        } else {
            i64::try_from(v).ok()
        };
        Some((token, value))
    }
}

/// Parses an integer token: an optional sign and decimal digits, in range of `i64` (what
/// `str::parse::<i64>` accepts, faster on the short tokens of instance files).
#[inline]
pub fn int(token: &str) -> Option<i64> {
    let b = token.as_bytes();
    let (negative, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    let Some(v) = decimal(digits) else {
        return if digits.len() > 19 { token.parse().ok() } else { None };
    };
    if negative { (v <= 1 << 63).then(|| (v as i64).wrapping_neg()) } else { i64::try_from(v).ok() }
}

/// A non-negative integer token in range of `u64` (as `str::parse::<u64>`).
#[inline]
pub fn uint(token: &str) -> Option<u64> {
    let digits = token.strip_prefix('+').unwrap_or(token).as_bytes();
    decimal(digits).or_else(|| if digits.len() > 19 { token.parse().ok() } else { None })
}

/// The value of 1 to 19 decimal digits (which always fit in `u64`); None for anything else.
#[inline]
fn decimal(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut v: u64 = 0;
    for &d in digits {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as u64;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_and_line_endings_are_normalised() {
        assert_eq!(decode(b"\xEF\xBB\xBF2 1\n1 2 3\n", "f").unwrap(), "2 1\n1 2 3\n");
        assert_eq!(decode(b"2 1\r\n1 2 3\r\n", "f").unwrap(), "2 1\n1 2 3\n");
        assert_eq!(decode(b"2 1\r1 2 3\r", "f").unwrap(), "2 1\n1 2 3\n");
        assert_eq!(decode(b"a\r\rb", "f").unwrap(), "a\n\nb");
        assert_eq!(decode(b"a\r\n\r\nb\r", "f").unwrap(), "a\n\nb\n");
    }

    #[test]
    fn invalid_utf8_names_line_and_column() {
        let e = decode(b"2 1\n1 2 \xFF\n", "g.txt").unwrap_err().to_string();
        assert!(e.starts_with("g.txt:2: column 5: byte 0xFF is not UTF-8"), "{e}");
        let e = decode(b"x\ry\r\n\xC3(", "g.txt").unwrap_err().to_string();
        assert!(e.starts_with("g.txt:3: column 1:"), "{e}");
    }

    #[test]
    fn integers_parse_as_the_standard_library_does() {
        let tokens = [
            "0",
            "-0",
            "+7",
            "-12",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "0000000000000000000001",
            "",
            "-",
            "+",
            "1x",
            "x",
            "1.5",
            "--1",
            "+-1",
            "99999999999999999999",
        ];
        for t in tokens {
            assert_eq!(int(t), t.parse::<i64>().ok(), "{t:?}");
            assert_eq!(uint(t), t.parse::<u64>().ok(), "{t:?}");
        }
        let line = tokens.join(" \t ");
        let scanned: Vec<(&str, Option<i64>)> = Tokens::new(&line).collect();
        let expected: Vec<(&str, Option<i64>)> =
            line.split_ascii_whitespace().map(|t| (t, t.parse::<i64>().ok())).collect();
        assert_eq!(scanned, expected);
        assert_eq!(Tokens::new("  ").count(), 0);
    }

    #[test]
    fn chunks_cut_at_accepted_lines_and_number_them() {
        let text: String = (0..200_000).map(|i| format!("{} {}\n", i, if i % 3 == 0 { "0" } else { "x" })).collect();
        let chunks = chunks(&text, 1, |prev| prev.ends_with(" 0"));
        assert!(chunks.len() > 1, "a text of {} bytes is cut", text.len());
        assert_eq!(chunks.iter().map(|c| c.text).collect::<String>(), text);
        for c in &chunks {
            // Each piece starts after an accepted line, at the line its number says.
            let first = c.text.lines().next().unwrap();
            let n: usize = first.split(' ').next().unwrap().parse().unwrap();
            assert_eq!(c.line, n + 1);
            if c.line > 1 {
                assert_eq!((n - 1) % 3, 0, "the previous line ends a unit");
            }
        }
        // A text with no accepted line stays whole.
        assert_eq!(super::chunks(&text, 5, |_| false).len(), 1);
        assert_eq!(super::chunks("", 1, |_| true).len(), 1);
    }
}
