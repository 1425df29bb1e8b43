//! The error type of the library: every failure a user can cause ends here, with a message that
//! says what is wrong and, where it helps, what to do.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub enum Error {
    /// A malformed instance file: where, and what is wrong.
    Parse { file: String, line: usize, message: String },
    /// A file that could not be read or written.
    Io { path: PathBuf, source: std::io::Error },
    /// An invalid option or combination of options.
    Usage(String),
    /// The CUDA backend could not be used (no driver, no device, a failed launch).
    Cuda(String),
    /// The device ran out of memory for a population of this size.
    OutOfMemory { population_size: usize, message: String },
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { file, line, message } => write!(f, "{file}:{line}: {message}"),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Usage(m) => write!(f, "{m}"),
            Error::Cuda(m) => write!(f, "CUDA: {m}"),
            Error::OutOfMemory { population_size, message } => {
                write!(f, "CUDA: out of device memory for a population of {population_size} solutions ({message})")
            }
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }
}
