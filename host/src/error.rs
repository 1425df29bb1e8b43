//! The error type of the library: every failure a user can cause ends here, with a message that
//! says what is wrong and, where it helps, what to do.

use std::fmt;
use std::path::PathBuf;

/// Every failure a caller can cause, as a value with a message to show as it is:
///
/// ```
/// use pgomea::Error;
/// use pgomea::problem::maxsat::MaxSat;
/// use pgomea::stop::StopCheck;
/// // Literal -4 on line 3 names a fourth variable of a file that announces three.
/// let text = "c a comment\np cnf 3 2\n1 -4 0\n2 3 0\n";
/// let error = MaxSat::parse(text, "tiny.cnf", "tiny", &StopCheck::never()).unwrap_err();
/// assert!(matches!(&error, Error::Parse { file, line: 3, .. } if file == "tiny.cnf"));
/// assert!(error.to_string().starts_with("tiny.cnf:3: "));
/// ```
#[derive(Debug)]
pub enum Error {
    /// A malformed instance file: where, and what is wrong.
    Parse {
        /// The file, as it was named.
        file: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// A file that could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// An invalid option or combination of options.
    Usage(String),
    /// A run option refused: its field name (`time_limit`; each face spells it its own way, the
    /// command line as a flag, Python as a keyword) and what is wrong with its value.
    Option {
        /// The option's name (a `RunOptions` field).
        name: &'static str,
        /// What is wrong with its value.
        message: String,
    },
    /// The CUDA backend could not be used (no driver, no device, a failed launch).
    Cuda(String),
    /// A population of this size does not fit in memory: the host's (checked before serial
    /// GOMEA or the CPU backend allocates it) or the GPU's (the CUDA backend). The multi-start
    /// scheme stops growing there; only a first population that does not fit ends the run (as
    /// [`Error::Usage`]).
    OutOfMemory {
        /// The population's size, in solutions.
        population_size: usize,
        /// Which memory, and how much was asked for.
        message: String,
    },
    /// A check of the program's own results failed (a bug): no answer is given rather than a
    /// wrong one.
    Internal(String),
    /// A phase stopped because the run must end (time limit, signal): not a failure; `solve`
    /// answers with the best solution evaluated so far.
    Stopped(crate::stop::StopReason),
}

/// The library's result: a value or an [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { file, line, message } => write!(f, "{file}:{line}: {message}"),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Usage(m) => write!(f, "{m}"),
            Error::Option { name, message } => write!(f, "{name} {message}"),
            // Messages are sometimes built from a displayed Error::Cuda (the shared GPU keeps
            // its opening error as text): one prefix, never two.
            Error::Cuda(m) => write!(f, "CUDA: {}", m.strip_prefix("CUDA: ").unwrap_or(m)),
            Error::OutOfMemory { population_size, message } => {
                write!(f, "CUDA: out of device memory for a population of {population_size} solutions ({message})")
            }
            Error::Internal(m) => write!(f, "internal error (please report it): {m}"),
            Error::Stopped(reason) => write!(f, "stopped ({})", reason.as_str()),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::stop::StopReason> for Error {
    fn from(reason: crate::stop::StopReason) -> Self {
        Error::Stopped(reason)
    }
}

impl Error {
    /// A file that could not be read or written.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
    /// An invalid option or combination of options, in words.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }
    /// What a reader of `file` makes its errors with: `err(line, message)` is a malformed
    /// instance at `file:line`.
    pub(crate) fn parse_in(file: &str) -> impl Fn(usize, String) -> Error + '_ {
        move |line, message| Error::Parse { file: file.to_string(), line, message }
    }
    /// This error of building what line `line` of a file describes, as `err` (the file's
    /// [`Error::parse_in`]) reports one there; a stop stays a stop.
    pub(crate) fn in_line(self, line: usize, err: impl Fn(usize, String) -> Error) -> Error {
        match self {
            Error::Stopped(_) => self,
            other => err(line, other.to_string()),
        }
    }
    /// Run option `name` (its library name; each face spells it its own way) refused: `message`
    /// says what is wrong with its value.
    pub fn option(name: &'static str, message: impl Into<String>) -> Self {
        Error::Option { name, message: message.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cuda_error_made_from_a_cuda_error_has_one_prefix() {
        let inner = Error::Cuda("no CUDA driver (libcuda.so) found".into());
        assert_eq!(Error::Cuda(inner.to_string()).to_string(), inner.to_string());
        assert_eq!(inner.to_string(), "CUDA: no CUDA driver (libcuda.so) found");
    }

    #[test]
    fn a_readers_error_names_its_line_and_a_stop_stays_a_stop() {
        let err = Error::parse_in("a.cnf");
        let at = Error::usage("3 literals too many").in_line(4, &err);
        assert_eq!(at.to_string(), err(4, "3 literals too many".into()).to_string());
        let stopped = Error::Stopped(crate::stop::StopReason::Interrupted).in_line(4, &err);
        assert!(matches!(stopped, Error::Stopped(crate::stop::StopReason::Interrupted)), "{stopped:?}");
    }
}
