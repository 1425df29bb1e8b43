//! Reading an instance file of any supported format. The format comes from the file's extension,
//! else from its content, and can be forced ([`ProblemFormat`]).

use std::path::Path;

use crate::choice::choices;
use crate::error::{Error, Result};
use crate::problem::GrayBoxProblem;
use crate::problem::graph::Graph;
use crate::problem::ising;
use crate::problem::maxcut::MaxCut;
use crate::problem::maxsat::MaxSat;
use crate::problem::mk;
use crate::problem::tables::TableProblem;
use crate::stop::StopCheck;

/// The instance file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemFormat {
    /// Weighted Max-Cut: a graph in the G-set / rudy format (`n m`, then `i j w` lines).
    MaxCut,
    /// Table subfunctions (NK landscapes, traps and others) in the `.nk` format.
    Nk,
    /// Table subfunctions in the MK-landscape format of other tools (`p NK N K`, `m` lines).
    Mk,
    /// Weighted partial MAX-SAT: DIMACS `cnf`, or `wcnf` (classic or 2022).
    MaxSat,
    /// A QUBO in qbsolv's `.qubo` format, solved as Max-Cut on one more vertex.
    Qubo,
    /// An Ising model in the `.ising` format, solved as Max-Cut on one more vertex.
    Ising,
}

choices! {
    ProblemFormat {
        MaxCut: "max-cut" => "Weighted Max-Cut: a graph in the G-set format (`n m`, then `i j w` lines, 1-based)",
        Nk: "nk" => "Table subfunctions (NK landscapes, traps, ...) in the .nk format (`p nk N M`, then `f K V.. T..` lines)",
        Mk: "mk" => "Table subfunctions in the MK-landscape format (`p NK N K`, then `m V..` lines, each followed by its table)",
        MaxSat: "max-sat" => "MAX-SAT: DIMACS cnf (`p cnf N M`), weighted wcnf (`p wcnf N M [TOP]`, or the 2022 format with `h` lines)",
        Qubo: "qubo" => "QUBO in qbsolv's .qubo format (`p qubo 0 MAXNODES NNODES NCOUPLERS`, then `i j Q_ij` lines, 0-based): minimise the energy",
        Ising: "ising" => "Ising model in the .ising format (optional `p ising N`, then `i j J` couplings and `i i h` fields, 0-based): minimise the energy",
    }
}

impl ProblemFormat {
    /// The format of a file by its extension (`.nk`, `.mk`, `.cnf`, `.wcnf`, `.qubo`, `.ising`;
    /// `.txt`, `.gset`, `.rud`, `.mc` for graphs), else by its content: the first line that is not
    /// blank or a comment (`c ...`) is `p cnf ...` or `p wcnf ...` for MAX-SAT, `h ...` for a 2022
    /// `wcnf` file, `p qubo ...` for a QUBO, `p ising ...` for an Ising model, `p ...` for a table
    /// file (MK when the next such line is an `m` line, else `.nk`); anything else is a graph.
    pub fn detect(path: &Path, text: &str) -> ProblemFormat {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("nk") => return ProblemFormat::Nk,
            Some("mk") => return ProblemFormat::Mk,
            Some("cnf" | "wcnf") => return ProblemFormat::MaxSat,
            Some("qubo") => return ProblemFormat::Qubo,
            Some("ising") => return ProblemFormat::Ising,
            Some("txt" | "gset" | "rud" | "mc") => return ProblemFormat::MaxCut,
            _ => {}
        }
        let mut data = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('c'));
        let Some(first) = data.next() else { return ProblemFormat::MaxCut };
        let mut tokens = first.split_whitespace();
        match (tokens.next(), tokens.next()) {
            (Some("p"), Some("cnf" | "wcnf")) => ProblemFormat::MaxSat,
            (Some("h"), _) => ProblemFormat::MaxSat,
            (Some("p"), Some("qubo")) => ProblemFormat::Qubo,
            (Some("p"), Some("ising")) => ProblemFormat::Ising,
            (Some("p"), _) if data.next().is_some_and(|l| l.split_whitespace().next() == Some("m")) => {
                ProblemFormat::Mk
            }
            (Some("p"), _) => ProblemFormat::Nk,
            _ => ProblemFormat::MaxCut,
        }
    }
}

/// Reads the instance file at `path` in `format`, or in the format [`ProblemFormat::detect`]
/// finds, checking `stop` as it reads (a signal or the time limit ends a read of any size within
/// well under a second).
///
/// ```
/// use pgomea::problem::load::{ProblemFormat, read};
/// use pgomea::stop::StopCheck;
/// let dir = std::env::temp_dir().join(format!("pgomea-doc-load-read-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("tiny.cnf");
/// std::fs::write(&path, "p cnf 3 2\n1 -3 0\n2 3 0\n").unwrap();
/// let problem = read(&path, None, &StopCheck::never())?;
/// assert_eq!((problem.name(), problem.problem_type()), ("tiny", "max-sat"));
/// assert_eq!((problem.variables(), problem.evaluate(&[0, 0, 0])), (3, 1));
/// // A graph forced on the same text: `p` is no vertex count, and the error says where.
/// let Err(error) = read(&path, Some(ProblemFormat::MaxCut), &StopCheck::never()) else { panic!("read") };
/// assert!(error.to_string().starts_with(&format!("{}:1: ", path.display())), "{error}");
/// std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), pgomea::Error>(())
/// ```
pub fn read(path: &Path, format: Option<ProblemFormat>, stop: &StopCheck) -> Result<Box<dyn GrayBoxProblem>> {
    let name = crate::problem::instance_name(path);
    read_named(path, format, &name, stop)
}

/// [`read`], with `name` as the instance's name in reports instead of the file stem.
pub fn read_named(
    path: &Path,
    format: Option<ProblemFormat>,
    name: &str,
    stop: &StopCheck,
) -> Result<Box<dyn GrayBoxProblem>> {
    let text = crate::problem::text::read(path, stop)?;
    let file = path.display().to_string();
    Ok(match format.unwrap_or_else(|| ProblemFormat::detect(path, &text)) {
        ProblemFormat::MaxCut => {
            let graph = Graph::parse_with_stop(&text, &file, name, stop)?;
            // Freed before the subfunctions are built: the peak is the larger of the two phases.
            drop(text);
            Box::new(MaxCut::new_with_stop(graph, stop).map_err(|e| match e {
                Error::Stopped(reason) => Error::Stopped(reason),
                e => Error::usage(format!("{file}: {e}")),
            })?)
        }
        ProblemFormat::Nk => Box::new(TableProblem::parse(&text, &file, name, stop)?),
        ProblemFormat::Mk => Box::new(mk::parse(&text, &file, name, stop)?),
        ProblemFormat::MaxSat => Box::new(MaxSat::parse(&text, &file, name, stop)?),
        ProblemFormat::Qubo => Box::new(ising::parse_qubo(&text, &file, name, stop)?),
        ProblemFormat::Ising => Box::new(ising::parse_ising(&text, &file, name, stop)?),
    })
}
