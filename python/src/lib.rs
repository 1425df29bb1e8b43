//! `pgomea._pgomea`, the compiled half of the Python package `pgomea`: the library's problems,
//! its `solve` and its devices, with arrays passed as `bytes` in native byte order (the
//! pure-Python layer `pgomea/` turns numpy arrays into them and back, and checks their shapes).
//! Nothing here decides a default or re-implements a check of the library: options go to
//! `RunOptions::resolve` by their field names, problems to the library's constructors.
//!
//! No panic crosses into Python: every entry point runs under [`guarded`], and the solving thread
//! catches its own; a panic becomes a `RuntimeError` that says it is an internal error.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use pgomea::choice::Choice;
use pgomea::gomea::run::{Observer, TracePoint};
use pgomea::problem::GrayBoxProblem;
use pgomea::problem::graph::{EdgeList, Graph};
use pgomea::problem::ising::{IsingProblem, Vartype};
use pgomea::problem::load::{ProblemFormat, read as read_instance};
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::maxsat::MaxSat;
use pgomea::problem::scale::{self, Decimal};
use pgomea::problem::tables::TableProblem;
use pgomea::solve::config::RunOptions;
use pgomea::solve::{Backend, Hooks, Outcome};

pyo3::create_exception!(
    _pgomea,
    Error,
    PyValueError,
    "Bad input: a malformed instance file (with file:line), a bad array or value (naming it), an \
     invalid option (by its keyword name)."
);
pyo3::create_exception!(
    _pgomea,
    BackendError,
    PyRuntimeError,
    "The CUDA backend failed (no driver or device with backend='cuda', a failed launch, device memory)."
);

/// The library's error as a Python exception.
fn to_py(e: pgomea::Error) -> PyErr {
    use pgomea::Error as E;
    let message = e.to_string();
    match e {
        E::Parse { .. } | E::Usage(_) | E::Option { .. } => Error::new_err(message),
        E::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        E::Io { .. } => PyOSError::new_err(message),
        E::Cuda(_) | E::OutOfMemory { .. } => BackendError::new_err(message),
        E::Internal(_) | E::Stopped(_) => PyRuntimeError::new_err(message),
    }
}

/// The text of a panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

fn internal(what: String) -> PyErr {
    PyRuntimeError::new_err(format!("internal error (please report it): {what}"))
}

/// Runs `f`, turning a panic into a `RuntimeError` (never a crash of the interpreter).
fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(internal(panic_text(&*p))))
}

/// Native-endian numbers of a `bytes` object (numpy's `tobytes()` of a contiguous array).
fn numbers<T, const N: usize>(what: &str, bytes: &[u8], from: fn([u8; N]) -> T) -> PyResult<Vec<T>> {
    if !bytes.len().is_multiple_of(N) {
        return Err(internal(format!("{what}: {} bytes is not a whole number of {N}-byte values", bytes.len())));
    }
    Ok(bytes.chunks_exact(N).map(|c| from(c.try_into().expect("chunks of N"))).collect())
}

fn u32s(what: &str, b: &[u8]) -> PyResult<Vec<u32>> {
    numbers(what, b, u32::from_ne_bytes)
}
fn i64s(what: &str, b: &[u8]) -> PyResult<Vec<i64>> {
    numbers(what, b, i64::from_ne_bytes)
}
fn f64s(what: &str, b: &[u8]) -> PyResult<Vec<f64>> {
    numbers(what, b, f64::from_ne_bytes)
}

/// A problem of the library, ready to solve.
#[pyclass(frozen, module = "pgomea._pgomea", name = "Problem")]
struct Problem {
    inner: Arc<dyn GrayBoxProblem>,
    /// The grid: the worth of one integer unit of the values (a fitness unit, or an Ising
    /// model's bias unit) in the problem's own terms.
    grid: Decimal,
    /// The most the rounding to the grid moves any fitness or energy (0: exact).
    rounding: f64,
    /// The best-known value found for an instance file in the data directory (a G-set graph's),
    /// where the file states none.
    best_known: Option<i64>,
    /// Variables of the problem's own model: the reduced problem's, or an Ising model's n.
    model_variables: usize,
}

impl Problem {
    fn new(inner: Arc<dyn GrayBoxProblem>, grid: Decimal, rounding: f64) -> Problem {
        let model_variables = inner.model_solution(&vec![0; inner.variables()]).len();
        Problem { inner, grid, rounding, best_known: None, model_variables }
    }

    /// The reduced problem's genotype of a solution of the model's variables (an Ising model's
    /// field vertex on side 0), each checked to be 0 or 1.
    fn genes_of(&self, solution: &[u8]) -> PyResult<Vec<u8>> {
        if solution.len() != self.model_variables {
            return Err(Error::new_err(format!(
                "a solution of {} values for a problem of {} variables",
                solution.len(),
                self.model_variables
            )));
        }
        if let Some(i) = solution.iter().position(|&g| g > 1) {
            return Err(Error::new_err(format!("solution[{i}] is {}: expected 0 or 1", solution[i])));
        }
        let mut genes = solution.to_vec();
        genes.resize(self.inner.variables(), 0);
        Ok(genes)
    }
}

#[pymethods]
impl Problem {
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }
    /// `max-cut`, `max-sat`, `nk`, `trap`, `ising`, `qubo`, ...
    #[getter]
    fn problem_type(&self) -> &str {
        self.inner.problem_type()
    }
    /// Variables of the model (an Ising model's spins, not counting the extra field vertex).
    #[getter]
    fn variables(&self) -> usize {
        self.model_variables
    }
    /// Variables of the problem that is solved (an Ising model's n + 1).
    #[getter]
    fn genes(&self) -> usize {
        self.inner.variables()
    }
    #[getter]
    fn subfunctions(&self) -> usize {
        self.inner.subfunctions()
    }
    /// The optimum the instance states or the library computed, or the data directory's
    /// best-known value of the file, as an integer fitness.
    #[getter]
    fn best_known(&self) -> Option<i64> {
        self.inner.known_optimum().or(self.best_known)
    }
    /// One integer unit of the values in the problem's own terms, exactly (a decimal string).
    #[getter]
    fn grid(&self) -> String {
        self.grid.to_string()
    }
    /// The most the rounding to the grid moves any fitness or energy (0.0: exact).
    #[getter]
    fn rounding(&self) -> f64 {
        self.rounding
    }
    /// Facts about the instance (name, value).
    fn statistics(&self) -> Vec<(&'static str, String)> {
        self.inner.statistics()
    }
    /// The model's energy at a fitness of the reduced problem, exactly (a decimal string), for
    /// Ising models and QUBOs; None for the other problems.
    fn energy_of_fitness(&self, fitness: i64) -> Option<String> {
        self.inner.energy(fitness).map(|e| e.to_string())
    }
    /// The fitness of `solution` (bytes of 0/1, one per model variable).
    fn evaluate(&self, solution: &[u8]) -> PyResult<i64> {
        guarded(|| Ok(self.inner.evaluate(&self.genes_of(solution)?)))
    }
    /// The energy of `solution` for Ising models and QUBOs (exact, a decimal string); None for
    /// the other problems.
    fn energy(&self, solution: &[u8]) -> PyResult<Option<String>> {
        guarded(|| {
            let fitness = self.inner.evaluate(&self.genes_of(solution)?);
            Ok(self.inner.energy(fitness).map(|e| e.to_string()))
        })
    }
}

/// Weighted Max-Cut on `n` vertices; edge k joins `ends[2k]` and `ends[2k+1]` (u32) with weight
/// `weights[k]` (i64, or f64 with `float_weights`, put on a grid by the scale module).
#[pyfunction]
#[pyo3(signature = (name, n, ends, weights, float_weights, resolution))]
fn max_cut(
    name: String,
    n: usize,
    ends: &[u8],
    weights: &[u8],
    float_weights: bool,
    resolution: Option<f64>,
) -> PyResult<Problem> {
    guarded(|| {
        let ends = u32s("ends", ends)?;
        let (weights, unit, rounding) = if float_weights {
            let scaled = scale::floats_to_integers(&f64s("weights", weights)?, resolution, 1, |k| format!("edge {k}"))
                .map_err(to_py)?;
            let rounding = scaled.rounding();
            (scaled.integers, scaled.resolution, rounding)
        } else {
            (i64s("weights", weights)?, Decimal::integer(1), 0.0)
        };
        let edges = EdgeList::from_arrays(ends, weights).ok_or_else(|| internal("edges and weights differ".into()))?;
        let problem = MaxCut::new(Graph::with_edges(name, n, edges)).map_err(to_py)?;
        Ok(Problem::new(Arc::new(problem), unit, rounding))
    })
}

/// Weighted partial MAX-SAT: clause c holds the signed 1-based literals
/// `literals[offsets[c]..offsets[c+1]]` (i64; offsets u32) and weighs `weights[c]` (i64), or is
/// hard when `hard[c]` is 1.
#[pyfunction]
#[pyo3(signature = (name, n, offsets, literals, weights, hard))]
fn max_sat(name: String, n: usize, offsets: &[u8], literals: &[u8], weights: &[u8], hard: &[u8]) -> PyResult<Problem> {
    guarded(|| {
        let offsets = u32s("offsets", offsets)?;
        let literals = i64s("literals", literals)?;
        let weights = i64s("weights", weights)?;
        let clauses: Vec<(Option<i64>, Vec<i64>)> = (0..weights.len())
            .map(|c| {
                let lits = literals[offsets[c] as usize..offsets[c + 1] as usize].to_vec();
                ((hard[c] == 0).then_some(weights[c]), lits)
            })
            .collect();
        let problem = MaxSat::from_literals(name, n, &clauses).map_err(to_py)?;
        Ok(Problem::new(Arc::new(problem), Decimal::integer(1), 0.0))
    })
}

/// Tables of subfunction values: subfunction s reads `arities[s]` variables of `variables` (u32,
/// in order) and has a table of 2^arity values in `values` (i64, or f64 with `float_values`,
/// put on one grid with the optimum by the scale module); `optimum`, the value to reach when
/// known, an int with integer values.
#[pyfunction]
#[pyo3(signature = (name, problem_type, n, arities, variables, values, float_values, optimum, resolution))]
#[allow(clippy::too_many_arguments)]
fn tables(
    name: String,
    problem_type: String,
    n: usize,
    arities: &[u8],
    variables: &[u8],
    values: &[u8],
    float_values: bool,
    optimum: Option<Bound<'_, PyAny>>,
    resolution: Option<f64>,
) -> PyResult<Problem> {
    guarded(|| {
        let arities = u32s("arities", arities)?;
        let mut vars = u32s("variables", variables)?.into_iter();
        let shapes: Vec<(Vec<u32>, usize)> = arities
            .iter()
            .map(|&k| (vars.by_ref().take(k as usize).collect(), 1usize.checked_shl(k).unwrap_or(0)))
            .collect();
        if float_values {
            let mut flat = f64s("values", values)?.into_iter();
            let subfunctions: Vec<(Vec<u32>, Vec<f64>)> =
                shapes.into_iter().map(|(v, len)| (v, flat.by_ref().take(len).collect())).collect();
            let optimum = optimum.map(|o| o.extract::<f64>()).transpose()?;
            let (problem, unit, rounding) =
                TableProblem::from_f64(name, problem_type, n, &subfunctions, optimum, resolution).map_err(to_py)?;
            Ok(Problem::new(Arc::new(problem), unit, rounding))
        } else {
            let mut flat = i64s("values", values)?.into_iter();
            let subfunctions: Vec<(Vec<u32>, Vec<i64>)> =
                shapes.into_iter().map(|(v, len)| (v, flat.by_ref().take(len).collect())).collect();
            let optimum = optimum.map(|o| o.extract::<i64>()).transpose()?;
            let problem = TableProblem::new(name, problem_type, n, &subfunctions, optimum).map_err(to_py)?;
            Ok(Problem::new(Arc::new(problem), Decimal::integer(1), 0.0))
        }
    })
}

/// A binary quadratic model (`SPIN` or `BINARY`) over `n` variables: linear biases
/// `linear_bias[k]` of `linear_index[k]` (u32, f64), quadratic biases `quadratic_bias[k]` of
/// (`row[k]`, `col[k]`), reduced exactly to Max-Cut on n + 1 vertices.
#[pyfunction]
#[pyo3(signature = (name, vartype, n, linear_index, linear_bias, row, col, quadratic_bias, offset, resolution))]
#[allow(clippy::too_many_arguments)]
fn quadratic_model(
    name: String,
    vartype: &str,
    n: usize,
    linear_index: &[u8],
    linear_bias: &[u8],
    row: &[u8],
    col: &[u8],
    quadratic_bias: &[u8],
    offset: f64,
    resolution: Option<f64>,
) -> PyResult<Problem> {
    guarded(|| {
        let vartype = match vartype {
            "SPIN" => Vartype::Spin,
            "BINARY" => Vartype::Binary,
            other => return Err(Error::new_err(format!("vartype {other:?}: expected SPIN or BINARY"))),
        };
        let linear: Vec<(u32, f64)> =
            u32s("linear_index", linear_index)?.into_iter().zip(f64s("linear_bias", linear_bias)?).collect();
        let quadratic: Vec<(u32, u32, f64)> = u32s("row", row)?
            .into_iter()
            .zip(u32s("col", col)?)
            .zip(f64s("quadratic_bias", quadratic_bias)?)
            .map(|((i, j), b)| (i, j, b))
            .collect();
        let problem =
            IsingProblem::from_f64(vartype, n, &linear, &quadratic, offset, resolution).map_err(to_py)?.with_name(name);
        let (grid, rounding) = (problem.resolution(), problem.rounding());
        Ok(Problem::new(Arc::new(problem), grid, rounding))
    })
}

/// An instance file of any format the command line reads (`format`: a `--problem` name, or
/// None to detect it from the extension or the content). `data_dirs`: the data directories to
/// look the file up in (by its folder and name in best_known.csv, as the command line does), the
/// first that holds it giving its best-known value.
#[pyfunction]
#[pyo3(signature = (path, format=None, data_dirs=Vec::new()))]
fn load(py: Python<'_>, path: PathBuf, format: Option<String>, data_dirs: Vec<PathBuf>) -> PyResult<Problem> {
    guarded(|| {
        let format =
            format.map(|f| ProblemFormat::parse(&f).map_err(|e| Error::new_err(format!("format {e}")))).transpose()?;
        let problem =
            py.detach(|| guarded(|| read_instance(&path, format, &pgomea::stop::StopCheck::never()).map_err(to_py)))?;
        // A `.ising`/`.qubo` file's grid and rounding, as its statistics state them.
        let facts = problem.statistics();
        let fact = |name: &str| facts.iter().find(|f| f.0 == name).map(|f| f.1.clone());
        let grid = fact("resolution").and_then(|r| Decimal::parse(&r).ok()).unwrap_or(Decimal::integer(1));
        let rounding = fact("rounding_bound").and_then(|r| r.parse().ok()).unwrap_or(0.0);
        let mut problem = Problem::new(Arc::from(problem), grid, rounding);
        problem.best_known = data_dirs.iter().find_map(|dir| {
            let rows = pgomea::problem::data::read_best_known(dir).ok()?;
            pgomea::problem::data::best_known_for_path(dir, &rows, &path).map(|row| row.best_known)
        });
        Ok(problem)
    })
}

/// The library's table of run options, as the Python package spells them: for each option, its
/// keyword (the `RunOptions` field), the Python type of its value, its default in a few words, its
/// help in one line and its long help (other options named by their keywords), and its choices:
/// what `solve`'s signature and docstring are made of.
#[pyfunction]
#[allow(clippy::type_complexity)] // One plain tuple per option, for the Python layer to unpack.
fn run_options() -> Vec<(&'static str, &'static str, &'static str, &'static str, String, Vec<&'static str>)> {
    use pgomea::solve::options::{RUN_OPTIONS, Value};
    RUN_OPTIONS
        .iter()
        .map(|o| {
            let kind = match o.value {
                Value::Choice(_) | Value::Text => "str",
                Value::Integer => "int",
                Value::Number => "float",
                Value::Switch => "bool",
                Value::Target => "int | float | str",
                Value::Settings => "dict",
            };
            let details = o.details_spelled(|other| format!("``{}``", other.name));
            let choices = o.choices().into_iter().map(|(name, _)| name).collect();
            (o.name, kind, o.default.shown(), o.help, details, choices)
        })
        .collect()
}

/// Options from JSON (the keyword arguments given, by their names), read as the library reads
/// every face's options; a bad value names its option.
fn run_options_of(json: &str) -> PyResult<RunOptions> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| internal(format!("options: {e}")))?;
    RunOptions::from_json(&value).map_err(to_py)
}

/// What the solving thread hears: improvements go to the Python callback (with the GIL), notes
/// are kept; a callback that raises stops the run, and its exception is raised afterwards.
struct PythonObserver {
    on_improvement: Option<Py<PyAny>>,
    error: Arc<Mutex<Option<PyErr>>>,
    notes: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    /// The last `keep` best solutions (in the model's variables), oldest first: each improvement
    /// is a solution better than all before it, so they are distinct.
    kept: Arc<Mutex<VecDeque<Vec<u8>>>>,
    keep: usize,
    problem: Arc<dyn GrayBoxProblem>,
}

impl Observer for PythonObserver {
    fn improvement(&mut self, point: &TracePoint, genes: &[u8]) {
        if self.keep > 0 {
            let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
            if kept.len() == self.keep {
                kept.pop_front();
            }
            kept.push_back(self.problem.model_solution(genes));
        }
        let Some(callback) = &self.on_improvement else { return };
        let called =
            Python::attach(|py| callback.call1(py, (point.time_s, point.evaluations, point.best_fitness)).map(|_| ()));
        if let Err(e) = called {
            let mut first = self.error.lock().unwrap_or_else(|p| p.into_inner());
            first.get_or_insert(e);
            self.stop.store(true, Ordering::SeqCst);
        }
    }
    fn note(&mut self, note: &str) {
        self.notes.lock().unwrap_or_else(|p| p.into_inner()).push(note.to_string());
    }
}

type Finished = std::thread::Result<pgomea::Result<Outcome>>;

/// How often the waiting thread takes the GIL back to let Python run its signal handlers.
const SIGNAL_SLICE: Duration = Duration::from_millis(50);

/// Waits for the solving thread with the GIL released, in slices; between them Python's signal
/// handlers run (`check_signals`). An exception from one (KeyboardInterrupt at Ctrl-C) sets the
/// stop flag, the run ends within a colour group with its best solution, and the exception is
/// returned beside the result.
fn wait(py: Python<'_>, mut rx: Receiver<Finished>, stop: &AtomicBool) -> (Finished, Option<PyErr>) {
    loop {
        let (received, back) = py.detach(move || (rx.recv_timeout(SIGNAL_SLICE), rx));
        rx = back;
        match received {
            Ok(done) => return (done, None),
            Err(RecvTimeoutError::Disconnected) => {
                return (Err(Box::new("the solving thread ended without an answer")), None);
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::SeqCst);
                    let done =
                        py.detach(move || rx.recv().unwrap_or_else(|_| Err(Box::new("the solving thread ended"))));
                    return (done, Some(e));
                }
            }
        }
    }
}

/// Solves `problem` with the options in `options` (JSON: the keyword arguments given), on a
/// thread of its own while this one waits with the GIL released. Returns (the outcome as JSON,
/// the best solution in the model's variables as bytes of 0/1, the trace's times, evaluations
/// and fitness values as f64, f64, i64 bytes, the notes, the exact energy for Ising models and
/// QUBOs, the exception to raise with the result: a signal handler's or the callback's, and the
/// last `keep` best solutions as bytes, best first).
#[pyfunction]
#[pyo3(signature = (problem, options, on_improvement=None, keep=0))]
fn solve<'py>(
    py: Python<'py>,
    problem: &Problem,
    options: &str,
    on_improvement: Option<Py<PyAny>>,
    keep: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    let start = Instant::now();
    let inner = problem.inner.clone();
    let best_known = problem.best_known();
    let config = guarded(|| run_options_of(options)?.resolve(&*inner, best_known).map_err(to_py))?;
    let stop = Arc::new(AtomicBool::new(false));
    let callback_error = Arc::new(Mutex::new(None));
    let notes = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::new(Mutex::new(VecDeque::new()));
    let (tx, rx) = mpsc::channel::<Finished>();
    let mut observer = PythonObserver {
        on_improvement,
        error: callback_error.clone(),
        notes: notes.clone(),
        stop: stop.clone(),
        kept: kept.clone(),
        keep,
        problem: inner.clone(),
    };
    let flag = stop.clone();
    let solver = inner.clone();
    let thread = std::thread::Builder::new()
        .name("pgomea-solve".into())
        .spawn(move || {
            let done = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let hooks = Hooks { start: Some(start), stop: Some(flag), observer: Some(&mut observer) };
                pgomea::solve(&*solver, &config, hooks)
            }));
            // The callback is a Python object: dropped with the GIL.
            Python::attach(|_| drop(observer));
            let _ = tx.send(done);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the solving thread: {e}")))?;
    let (done, signal_error) = wait(py, rx, &stop);
    let _ = py.detach(move || thread.join());
    let outcome = match done {
        Ok(result) => result.map_err(to_py)?,
        Err(panic) => return Err(internal(panic_text(&*panic))),
    };
    let pending = signal_error.or_else(|| callback_error.lock().unwrap_or_else(|p| p.into_inner()).take());
    guarded(|| {
        let genes = outcome.genes();
        let solution = inner.model_solution(&genes);
        let energy = inner.energy(outcome.best_fitness).map(|e| e.to_string());
        let trace = &outcome.trace;
        let times: Vec<u8> = trace.iter().flat_map(|p| p.time_s.to_ne_bytes()).collect();
        let evaluations: Vec<u8> = trace.iter().flat_map(|p| p.evaluations.to_ne_bytes()).collect();
        let fitness: Vec<u8> = trace.iter().flat_map(|p| p.best_fitness.to_ne_bytes()).collect();
        let json = serde_json::to_string(&outcome).map_err(|e| internal(format!("outcome: {e}")))?;
        let notes = std::mem::take(&mut *notes.lock().unwrap_or_else(|p| p.into_inner()));
        let pending: Option<Py<PyAny>> = pending.map(|e| e.into_value(py).into_any());
        let kept: Vec<Bound<'py, PyBytes>> = std::mem::take(&mut *kept.lock().unwrap_or_else(|p| p.into_inner()))
            .into_iter()
            .rev()
            .map(|x| PyBytes::new(py, &x))
            .collect();
        (
            json,
            PyBytes::new(py, &solution),
            PyBytes::new(py, &times),
            PyBytes::new(py, &evaluations),
            PyBytes::new(py, &fitness),
            notes,
            energy,
            pending,
            kept,
        )
            .into_pyobject(py)
            .map_err(|e| internal(format!("result: {e}")))
    })
}

/// One line per CUDA device (index, name, compute capability, memory); empty without a driver or
/// a device.
#[pyfunction]
fn devices(py: Python<'_>) -> PyResult<Vec<String>> {
    guarded(|| Ok(py.detach(|| pgomea::backend::cuda::devices().unwrap_or_default())))
}

/// Where `backend='auto'` runs parallel GOM now: (`cuda` or `cpu`, why in words).
#[pyfunction]
fn backend(py: Python<'_>) -> PyResult<(&'static str, String)> {
    guarded(|| {
        let (chosen, why) = py.detach(|| pgomea::solve::decide_backend(Backend::Auto));
        Ok((chosen.name(), why))
    })
}

#[pymodule]
fn _pgomea(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The GPU the runs of this process use, as the CLI takes it (the library reads no environment).
    if let Ok(v) = std::env::var("PGOMEA_CUDA_DEVICE") {
        let ordinal = v
            .trim()
            .parse::<usize>()
            .map_err(|_| Error::new_err(format!("PGOMEA_CUDA_DEVICE={v}: expected a device number")))?;
        pgomea::backend::cuda::use_device(ordinal);
    }
    m.add("Error", py.get_type::<Error>())?;
    m.add("BackendError", py.get_type::<BackendError>())?;
    m.add("MAX_TABLE_ARITY", pgomea_max_table_arity())?;
    m.add("DEFAULT_TIME_LIMIT_S", pgomea::solve::config::DEFAULT_TIME_LIMIT_S)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Problem>()?;
    for f in [
        wrap_pyfunction!(max_cut, m)?,
        wrap_pyfunction!(max_sat, m)?,
        wrap_pyfunction!(tables, m)?,
        wrap_pyfunction!(quadratic_model, m)?,
        wrap_pyfunction!(load, m)?,
        wrap_pyfunction!(solve, m)?,
        wrap_pyfunction!(run_options, m)?,
        wrap_pyfunction!(devices, m)?,
        wrap_pyfunction!(backend, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}

/// The most variables one table subfunction may read (the library's tables kind).
fn pgomea_max_table_arity() -> u32 {
    pgomea_device::problem::MAX_TABLE_ARITY
}
