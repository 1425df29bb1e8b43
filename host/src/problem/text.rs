//! The text of instance files, as every parser reads it: bytes to a `String` with one line
//! ending. A UTF-8 byte-order mark is dropped, Windows (`\r\n`) and old Mac (`\r`) line endings
//! become `\n`, and bytes that are not UTF-8 are an error naming the line and column, so that a
//! parser never sees a file other than as lines of text and never reports a confusing
//! "expected a header" for a file saved in another encoding.

use std::path::Path;

use crate::error::{Error, Result};

/// The UTF-8 encoding of U+FEFF, which some editors write at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads the file at `path` as text (see [`decode`]). A file larger than half the memory
/// available is refused before it is read (its text and the parsed instance would not both fit),
/// and so is a stream (a pipe, a device) that goes on past that.
pub fn read(path: &Path) -> Result<String> {
    use std::io::Read;
    let limit = super::memory::available().map_or(u64::MAX, |a| a / 2);
    let too_large = |size: String| {
        Error::usage(format!(
            "{}: {size} is more than half the memory available ({}): not an instance this machine can hold",
            path.display(),
            super::memory::human(limit as u128 * 2)
        ))
    };
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_file() && meta.len() > limit {
        return Err(too_large(format!("a file of {}", super::memory::human(meta.len() as u128))));
    }
    let mut bytes = Vec::with_capacity(if meta.is_file() { meta.len() as usize } else { 0 });
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(format!("a stream of over {}", super::memory::human(limit as u128))));
    }
    decode(&bytes, &path.display().to_string())
}

/// The text of a file's bytes: the byte-order mark dropped, line endings made `\n`; `file` names
/// the file in the error for bytes that are not UTF-8.
pub fn decode(bytes: &[u8], file: &str) -> Result<String> {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
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
    };
    if !text.contains('\r') {
        return Ok(text.to_string());
    }
    Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Whether byte `b` at `i` ends a line: `\n`, or a `\r` not followed by `\n`.
fn is_line_end(bytes: &[u8], i: usize, b: u8) -> bool {
    b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
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
    }

    #[test]
    fn invalid_utf8_names_line_and_column() {
        let e = decode(b"2 1\n1 2 \xFF\n", "g.txt").unwrap_err().to_string();
        assert!(e.starts_with("g.txt:2: column 5: byte 0xFF is not UTF-8"), "{e}");
        let e = decode(b"x\ry\r\n\xC3(", "g.txt").unwrap_err().to_string();
        assert!(e.starts_with("g.txt:3: column 1:"), "{e}");
    }
}
