//! Reading an instance file of any supported format. The format comes from the file's extension,
//! else from its first line, and can be forced ([`ProblemFormat`], `--problem` on the command
//! line).

use std::path::Path;

use super::GrayBoxProblem;
use super::graph::Graph;
use super::maxcut::MaxCut;
use super::tables::TableProblem;
use crate::choice::Choice;
use crate::error::{Error, Result};

/// The instance file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemFormat {
    /// Weighted Max-Cut: a graph in the G-set / rudy format (`n m`, then `i j w` lines).
    MaxCut,
    /// Table subfunctions (NK landscapes and others) in the `.nk` format.
    Nk,
}

impl Choice for ProblemFormat {
    const ALL: &'static [Self] = &[ProblemFormat::MaxCut, ProblemFormat::Nk];
    fn name(self) -> &'static str {
        match self {
            ProblemFormat::MaxCut => "max-cut",
            ProblemFormat::Nk => "nk",
        }
    }
    fn help(self) -> &'static str {
        match self {
            ProblemFormat::MaxCut => {
                "Weighted Max-Cut: a graph in the G-set format (`n m`, then `i j w` lines, 1-based)"
            }
            ProblemFormat::Nk => {
                "Table subfunctions (NK landscapes, ...) in the .nk format (`p nk N M`, then `f K V.. T..` lines)"
            }
        }
    }
}

impl ProblemFormat {
    /// The format of a file by its extension, else by its first line that is not blank or a
    /// comment: `p ...` is a `.nk` file, anything else a graph.
    pub fn detect(path: &Path, text: &str) -> ProblemFormat {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("nk") => return ProblemFormat::Nk,
            Some("txt" | "gset" | "rud" | "mc") => return ProblemFormat::MaxCut,
            _ => {}
        }
        let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('c'));
        match first {
            Some(l) if l.starts_with("p ") => ProblemFormat::Nk,
            _ => ProblemFormat::MaxCut,
        }
    }
}

/// Reads the instance file at `path` in `format`, or in the format [`ProblemFormat::detect`]
/// finds.
pub fn read(path: &Path, format: Option<ProblemFormat>) -> Result<Box<dyn GrayBoxProblem>> {
    let text = super::read_text(path)?;
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let file = path.display().to_string();
    Ok(match format.unwrap_or_else(|| ProblemFormat::detect(path, &text)) {
        ProblemFormat::MaxCut => {
            Box::new(MaxCut::new(Graph::parse(&text, &file, &name)?).map_err(|e| Error::usage(format!("{file}: {e}")))?)
        }
        ProblemFormat::Nk => Box::new(TableProblem::parse(&text, &file, &name)?),
    })
}
