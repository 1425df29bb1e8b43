//! Closed sets of named choices (an algorithm, a backend, a problem format, ...): their names on
//! the command line and in result files, and a line of help each. The app layer turns every
//! [`Choice`] into a command-line option; the layers below name their choices with it.

use crate::error::{Error, Result};

/// A closed set of named choices (algorithm, backend, ...): their names on the command line and
/// in result files, and a line of help each. The app layer turns these into command-line options.
pub trait Choice: Copy + Sized + 'static {
    /// Every choice, in the order the help lists them.
    const ALL: &'static [Self];
    /// The choice's name on the command line and in result files.
    fn name(self) -> &'static str;
    /// What the choice does, in a line.
    fn help(self) -> &'static str;
    /// The choice called `name`, or an error listing the choices.
    fn parse(name: &str) -> Result<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
            Error::usage(format!("`{name}`: expected one of {}", names.join(", ")))
        })
    }
}
