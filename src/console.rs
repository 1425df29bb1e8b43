//! What the command line shows of a run, for every command that runs one: progress lines, notes
//! and the --trace file ([`CliObserver`]). (Option names in their command-line spelling:
//! [`crate::args::option_spelling`].)

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use pgomea::error::{Error, Result};
use pgomea::gomea::run::{Observer, Progress, TracePoint};

/// What `run` prints while it runs: progress lines and notes on stderr (unless --quiet), and the
/// --trace file, one line per improvement, each written whole (a second signal ends the process
/// at once: the file then ends with a whole line, its header first).
pub struct CliObserver {
    progress_every: Option<Duration>,
    trace: Option<(PathBuf, std::io::LineWriter<std::fs::File>)>,
    trace_error: Option<String>,
}

impl CliObserver {
    /// Progress every `progress_every` (None: quiet); the trace to `trace`, created now (an error
    /// before solving if it cannot be).
    pub fn new(progress_every: Option<Duration>, trace: Option<&std::path::Path>) -> Result<Self> {
        let trace = match trace {
            Some(path) => {
                let f = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
                Some((path.to_path_buf(), std::io::LineWriter::new(f)))
            }
            None => None,
        };
        let mut observer = CliObserver { progress_every, trace, trace_error: None };
        // The header now, whole: a file that takes it and fails later (a full disk) is a warning.
        if let Some((_, out)) = &mut observer.trace
            && let Err(e) = writeln!(out, "time_s,evaluations,best_fitness")
        {
            observer.trace_error = Some(e.to_string());
        }
        Ok(observer)
    }

    /// Flushes the trace; the first error writing it, if any (the run itself went on).
    pub fn finish_trace(&mut self) -> Option<(PathBuf, String)> {
        let (path, out) = self.trace.as_mut()?;
        if let Err(e) = out.flush() {
            self.trace_error.get_or_insert(e.to_string());
        }
        self.trace_error.clone().map(|e| (path.clone(), e))
    }
}

impl Observer for CliObserver {
    fn improvement(&mut self, p: &TracePoint, _genes: &[u8]) {
        if let Some((_, out)) = &mut self.trace
            && self.trace_error.is_none()
        {
            // A trace that cannot be written must not end the run: the first error is kept and
            // reported after the result, and nothing more is written.
            if let Err(e) = writeln!(out, "{:.6},{:.3},{}", p.time_s, p.evaluations, p.best_fitness) {
                self.trace_error = Some(e.to_string());
            }
        }
    }

    fn progress(&mut self, p: &Progress<'_>) {
        eprintln!(
            "[{:>8.1} s] best {:>10}  evaluations {:>12.1}  {}",
            p.elapsed.as_secs_f64(),
            p.best_fitness.map(|f| f.to_string()).unwrap_or_else(|| "-".into()),
            p.evaluations,
            p.status
        );
    }

    fn progress_interval(&self) -> Option<Duration> {
        self.progress_every
    }

    fn note(&mut self, note: &str) {
        if self.progress_every.is_some() {
            if note.starts_with("backend:") { eprintln!("{note}") } else { eprintln!("note: {note}") }
        }
    }
}
