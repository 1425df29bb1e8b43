//! Ising models and QUBOs reduced to Max-Cut on one more vertex: brute force over every
//! assignment of random small models (SPIN and BINARY, with fields, repeated terms and
//! self-couplings, integer and decimal biases): the energy through the reduction equals the
//! energy computed from the model's terms as written, and the reduced problem's optimum maps back
//! to the model's minimum energy. Then the `.qubo` and `.ising` formats (good files, malformed ones
//! with `file:line`, detection), the energy in a run's report, and a seeded fuzz of the readers'
//! headers and bodies.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::assert_parse_error;
use pgomea::problem::graph::Graph;
use pgomea::problem::ising::{self, IsingProblem, Vartype};
use pgomea::problem::load::{self, ProblemFormat};
use pgomea::problem::scale::Decimal;
use pgomea::problem::{GrayBoxProblem, text};
use pgomea::stop::StopCheck;
use pgomea_device::rng::SplitMix64;

/// A model as written: terms over n variables (repeats and i == j allowed), biases in
/// thousandths.
struct Model {
    vartype: Vartype,
    n: usize,
    linear: Vec<(u32, i64)>,
    quadratic: Vec<(u32, u32, i64)>,
    offset: i64,
}

impl Model {
    fn random(seed: u64) -> Model {
        let mut rng = SplitMix64::stream(seed, 0x151);
        let n = 1 + rng.index(10);
        let vartype = if seed.is_multiple_of(2) { Vartype::Spin } else { Vartype::Binary };
        // Integers (multiples of 1000 thousandths) or decimals of up to three places.
        let decimals = seed % 4 >= 2;
        let bias = |rng: &mut SplitMix64| {
            let b = rng.index(2001) as i64 - 1000;
            if decimals { b * (1 + rng.index(7) as i64) } else { 1000 * (b / 100) }
        };
        let linear = (0..rng.index(2 * n + 1)).map(|_| (rng.index(n) as u32, bias(&mut rng))).collect();
        let quadratic = (0..rng.index(3 * n + 1))
            .map(|_| {
                let i = rng.index(n) as u32;
                // Now and then a self-coupling.
                let j = if rng.index(8) == 0 { i } else { rng.index(n) as u32 };
                (i, j, bias(&mut rng))
            })
            .collect();
        let offset = bias(&mut rng);
        Model { vartype, n, linear, quadratic, offset }
    }

    /// The energy in thousandths, from the terms as written: s = 2x - 1 for SPIN (+1 is 1).
    fn energy(&self, x: &[u8]) -> i128 {
        let v = |i: u32| match self.vartype {
            Vartype::Spin => 2 * x[i as usize] as i128 - 1,
            Vartype::Binary => x[i as usize] as i128,
        };
        self.offset as i128
            + self.linear.iter().map(|&(i, b)| b as i128 * v(i)).sum::<i128>()
            + self.quadratic.iter().map(|&(i, j, b)| b as i128 * v(i) * v(j)).sum::<i128>()
    }

    /// The linear terms, the quadratic terms and the offset as floats.
    #[allow(clippy::type_complexity)]
    fn floats(&self) -> (Vec<(u32, f64)>, Vec<(u32, u32, f64)>, f64) {
        let f = |b: i64| b as f64 / 1000.0;
        (
            self.linear.iter().map(|&(i, b)| (i, f(b))).collect(),
            self.quadratic.iter().map(|&(i, j, b)| (i, j, f(b))).collect(),
            f(self.offset),
        )
    }
}

fn bits(x: u64, n: usize) -> Vec<u8> {
    (0..n).map(|i| (x >> i & 1) as u8).collect()
}

fn thousandths(e: Decimal) -> i128 {
    let e = e.normalized();
    assert!(e.decimals() <= 3, "{e}");
    e.units() * 10i128.pow(3 - e.decimals())
}

/// Every assignment's energy through the reduction is the model's; the reduced optimum is the
/// model's minimum.
fn check_by_brute_force(model: &Model, p: &IsingProblem, what: &str) {
    let n = model.n;
    assert_eq!((p.model_variables(), p.variables()), (n, n + 1), "{what}");
    let mut min_energy = i128::MAX;
    for x in 0..1u64 << n {
        let values = bits(x, n);
        let direct = model.energy(&values);
        min_energy = min_energy.min(direct);
        assert_eq!(thousandths(p.energy_of_model_solution(&values).unwrap()), direct, "{what}: x = {values:?}");
        // The same cut with the field vertex on side 1: flipped back whole, the same energy.
        let mut flipped: Vec<u8> = values.iter().map(|g| 1 - g).collect();
        flipped.push(1);
        assert_eq!(p.model_solution(&flipped), values, "{what}");
        assert_eq!(thousandths(p.energy(p.evaluate(&flipped)).unwrap()), direct, "{what}");
    }
    // The reduced problem's optimum, over all its genotypes, is the model's minimum energy, and
    // its genotype maps back to an assignment of that energy.
    let (best, genes) = (0..1u64 << (n + 1)).map(|g| (p.evaluate(&bits(g, n + 1)), g)).max().unwrap();
    assert_eq!(thousandths(p.energy(best).unwrap()), min_energy, "{what}");
    assert_eq!(model.energy(&p.model_solution(&bits(genes, n + 1))), min_energy, "{what}");
}

#[test]
fn the_reduction_gives_every_assignment_its_energy_and_the_optimum_the_minimum() {
    for seed in 0..80 {
        let m = Model::random(seed);
        let what = format!("seed {seed} ({:?}, n {})", m.vartype, m.n);
        let (linear, quadratic, offset) = m.floats();
        // Real biases with the resolution found from their decimals, and with one given.
        let found = IsingProblem::from_f64(m.vartype, m.n, &linear, &quadratic, offset, None).unwrap();
        check_by_brute_force(&m, &found, &format!("{what}, resolution found"));
        let given = IsingProblem::from_f64(m.vartype, m.n, &linear, &quadratic, offset, Some(0.001)).unwrap();
        check_by_brute_force(&m, &given, &format!("{what}, resolution 0.001"));
        assert_eq!(given.resolution(), Decimal::new(1, 3));
        // Integer biases in thousandths through the integer constructors, energy x 1000.
        let p = match m.vartype {
            Vartype::Spin => IsingProblem::spin(m.n, &m.linear, &m.quadratic, m.offset),
            Vartype::Binary => IsingProblem::binary(m.n, &m.linear, &m.quadratic, m.offset),
        }
        .unwrap();
        for x in 0..1u64 << m.n {
            let values = bits(x, m.n);
            assert_eq!(
                p.energy_of_model_solution(&values).unwrap().normalized(),
                Decimal::new(m.energy(&values), 0).normalized()
            );
        }
    }
}

fn parse(format: &str, text: &str) -> pgomea::error::Result<IsingProblem> {
    match format {
        "qubo" => ising::parse_qubo(text, "m.qubo", "m", &StopCheck::never()),
        _ => ising::parse_ising(text, "m.ising", "m", &StopCheck::never()),
    }
}

#[test]
fn qubo_and_ising_files_read_their_models() {
    let qubo = "c a QUBO\nc of four nodes\np qubo 0 4 3 2\n0 0 -1.5\n2 2 3\n3 3 0.25\n0 2 2\n\n1 3 -0.5\n";
    let p = parse("qubo", qubo).unwrap();
    assert_eq!((p.vartype(), p.model_variables(), p.resolution().to_string()), (Vartype::Binary, 4, "0.01".into()));
    let model = Model {
        vartype: Vartype::Binary,
        n: 4,
        linear: vec![(0, -1500), (2, 3000), (3, 250)],
        quadratic: vec![(0, 2, 2000), (1, 3, -500)],
        offset: 0,
    };
    check_by_brute_force(&model, &p, "qubo file");
    let ising = "# an Ising model\np ising 5\n0 1 -1\nc couplings and fields\n1 2 2.5\n2 2 0.5\n4 0 1\n";
    let p = parse("ising", ising).unwrap();
    assert_eq!((p.vartype(), p.model_variables()), (Vartype::Spin, 5));
    let model = Model {
        vartype: Vartype::Spin,
        n: 5,
        linear: vec![(2, 500)],
        quadratic: vec![(0, 1, -1000), (1, 2, 2500), (4, 0, 1000)],
        offset: 0,
    };
    check_by_brute_force(&model, &p, "ising file");
    // Without a header, the largest index + 1 spins.
    assert_eq!(parse("ising", "0 3 1\n").unwrap().model_variables(), 4);
    // A file of comments only is empty, refused as every format refuses one (issue 57).
    assert!(parse("ising", "# nothing\n").unwrap_err().to_string().contains("empty file"));
}

#[test]
fn malformed_qubo_and_ising_files_name_file_and_line() {
    let cases: &[(&str, &str, usize, &str)] = &[
        ("qubo", "", 1, "empty file"),
        ("qubo", "c only\n", 1, "empty file"),
        ("qubo", "p qubo 0 4 1\n0 0 1\n", 1, "expected the header `p qubo"),
        ("qubo", "p qubo 0 2 3 0\n", 1, "NNODES > MAXNODES"),
        ("qubo", "p qubo 0 x 1 0\n0 0 1\n", 1, "MAXNODES `x`"),
        ("qubo", "p qubo 0 4 1 0\n0 4 1\n", 2, "index 4 is out of range 0..4"),
        ("qubo", "p qubo 0 4 0 1\n2 1 1\n", 2, "smaller index first"),
        ("qubo", "p qubo 0 4 2 0\n0 0 1\n0 0 2\n", 3, "already given on line 2"),
        ("qubo", "p qubo 0 4 0 2\n0 1 1\n1 2 1\n1 3 1\n", 4, "more coupler lines than the 2"),
        ("qubo", "p qubo 0 4 1 0\n0 0 1\n1 1 1\n", 3, "more node lines"),
        ("qubo", "p qubo 0 4 2 1\n0 0 1\n0 1 1\n", 3, "announces 2 nodes and 1 couplers but the file has 1 and 1"),
        ("qubo", "p qubo 0 4 1 0\n0 0 1.5x\n", 2, "not a decimal number"),
        ("qubo", "p qubo 0 4 1 0\n0 0\n", 2, "found 2 token(s)"),
        ("qubo", "p qubo 0 4 1 0\n-1 0 1\n", 2, "index `-1`"),
        ("qubo", "p qubo 0 4000000 1000000 0\n0 0 1\n", 1, "more than a file of"),
        ("qubo", "p qubo 0 4 1 0\n0 0 0.5\n0 1 1e6\n", 3, "more coupler lines than the 0"),
        ("ising", "p ising\n0 1 1\n", 1, "expected the header `p ising N`"),
        ("ising", "p ising 2\n0 2 1\n", 2, "index 2 is out of range 0..2"),
        ("ising", "0 1 1\n# again, reversed\n1 0 2\n", 3, "the term of (1, 0) was already given on line 1"),
        ("ising", "0 1 nan\n", 1, "not a decimal number"),
        ("ising", "0 1 1e99\n", 1, "too large"),
        ("ising", "0 1 1 1\n", 1, "found 4 token(s)"),
    ];
    for (format, text, line, what) in cases {
        let file = if *format == "qubo" { "m.qubo" } else { "m.ising" };
        assert_parse_error(parse(format, text), text, file, *line, what);
    }
}

#[test]
fn float_noise_in_a_file_is_rounded_to_the_finest_grid_that_fits_and_its_bound_stated() {
    // 0.30000000000000004 needs 10^-17, on which 1e9 leaves 64 bits: the finest grid that fits.
    let p = parse("ising", "0 1 1e9\n1 2 0.30000000000000004\n").unwrap();
    let grid = p.resolution().to_f64();
    assert!(grid > 1e-17 && grid < 1e-8, "{grid}");
    assert!(p.rounding() > 0.0 && p.rounding() <= grid, "{}", p.rounding());
    assert!(p.statistics().iter().any(|(name, _)| *name == "rounding_bound"));
    // Exact decimals stay exact, and say nothing of rounding.
    let q = parse("ising", "0 1 1e9\n1 2 0.25\n").unwrap();
    assert_eq!((q.resolution().to_string(), q.rounding()), ("0.01".to_string(), 0.0));
    assert!(!q.statistics().iter().any(|(name, _)| *name == "rounding_bound"));
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgomea-ising-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_formats_are_found_by_extension_or_content_or_forced() {
    let d = scratch("detect");
    let qubo = "c x\np qubo 0 3 1 1\n0 0 -2\n0 2 1\n";
    for (name, text, format, kind) in [
        ("a.qubo", qubo, None, "qubo"),
        ("no-extension", qubo, None, "qubo"),
        ("a.ising", "0 1 -1\n", None, "ising"),
        ("b-no-extension", "p ising 3\n0 1 -1\n", None, "ising"),
        ("forced.txt", "0 1 -1\n1 2 1\n", Some(ProblemFormat::Ising), "ising"),
        ("forced2.txt", qubo, Some(ProblemFormat::Qubo), "qubo"),
    ] {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        let p = load::read(&path, format, &pgomea::stop::StopCheck::never()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.problem_type(), kind, "{name}");
        assert_eq!(p.name(), path.file_stem().unwrap().to_str().unwrap());
    }
    assert_eq!(ProblemFormat::detect(std::path::Path::new("x"), "3 2\n1 2 1\n2 3 1\n"), ProblemFormat::MaxCut);
}

#[test]
fn a_run_reports_the_model_energy_beside_the_fitness() {
    let d = scratch("run");
    let path = d.join("frustrated.ising");
    // A frustrated triangle with a field: the ground states have energy -1 - 0.5.
    std::fs::write(&path, "0 1 1\n1 2 1\n0 2 1\n0 0 0.5\n").unwrap();
    let m = Model {
        vartype: Vartype::Spin,
        n: 3,
        linear: vec![(0, 500)],
        quadratic: vec![(0, 1, 1000), (1, 2, 1000), (0, 2, 1000)],
        offset: 0,
    };
    let min = (0..8).map(|x| m.energy(&bits(x, 3))).min().unwrap();
    assert_eq!(min, -1500);
    let out = Command::new(env!("CARGO_BIN_EXE_pgomea"))
        .args(["run", "--json", "--quiet", "--max-evals", "200", "--instance"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["problem"], "ising");
    // The energy beside the fitness (exact: a decimal's text, an integer's JSON number), and the
    // solution in the model's variables.
    assert_eq!(v["energy"], "-1.5");
    let model: Vec<u8> = v["model_solution"].as_str().unwrap().bytes().map(|b| b - b'0').collect();
    assert_eq!(model.len(), 3);
    assert_eq!(m.energy(&model), -1500);
    let p = load::read(&path, None, &pgomea::stop::StopCheck::never()).unwrap();
    assert_eq!(p.energy(v["best_fitness"].as_i64().unwrap()).unwrap().to_string(), "-1.5");
    let text = Command::new(env!("CARGO_BIN_EXE_pgomea"))
        .args(["run", "--quiet", "--max-evals", "200", "--instance"])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(text.lines().any(|l| l.split_whitespace().take(2).eq(["energy", "-1.5"])), "{text}");
}

/// A clean error or a problem that keeps the reduction's symmetry, never a panic.
fn parse_all_formats(bytes: &[u8], seed: u64) {
    let Ok(text) = text::decode(bytes, "fuzz") else { return };
    for format in ["qubo", "ising"] {
        if let Ok(p) = parse(format, &text) {
            let n = p.model_variables();
            let values: Vec<u8> = (0..n).map(|i| (seed >> (i % 64) & 1) as u8).collect();
            let mut flipped: Vec<u8> = values.iter().map(|g| 1 - g).collect();
            flipped.push(1);
            let (lo, hi) = p.functions().fitness_bounds();
            let f = p.evaluate(&flipped);
            assert!(lo <= f && f <= hi, "seed {seed}");
            assert_eq!(p.energy(f), p.energy_of_model_solution(&values), "seed {seed}");
            assert_eq!(p.model_solution(&flipped), values, "seed {seed}");
        }
    }
    if let Ok(g) = Graph::parse(&text, "fuzz.txt", "fuzz") {
        let (low, high) = g.cut_bounds();
        assert!(g.optimum.is_none_or(|o| low <= o as i128 && o as i128 <= high), "seed {seed}");
    }
}

#[test]
fn random_headers_and_mutated_files_give_a_clean_error_or_a_consistent_model() {
    let extremes = [
        "0",
        "1",
        "3",
        "-1",
        "2147483647",
        "2147483648",
        "4294967295",
        "18446744073709551615",
        "99999999999999999999",
        "1e3",
        "0.5",
        "x",
        "",
    ];
    let qubo = "c q\np qubo 0 5 2 3\n0 0 1.5\n3 3 -2\n0 1 -1\n1 4 2.25\n2 3 0.5\n";
    let ising = "# i\np ising 4\n0 1 -1\n1 2 1\n2 2 0.125\n3 0 -0.5\n";
    let graph = "c optimum 9\n4 3\n1 2 5\n2 3 4\n3 4 -1\n";
    let pick = |rng: &mut SplitMix64| extremes[rng.index(extremes.len())];
    for seed in 0..3000u64 {
        let mut rng = SplitMix64::stream(seed, 0xf1);
        let mut p = || pick(&mut rng);
        let bytes: Vec<u8> = match seed % 6 {
            // Headers of every format with extreme values.
            0 => format!("p qubo {} {} {} {}\n0 0 1\n0 1 2\n", p(), p(), p(), p()).into_bytes(),
            1 => format!("p ising {}\n0 1 1\n{} {} {}\n", p(), p(), p(), p()).into_bytes(),
            2 => format!("c optimum {}\n{} {}\n1 2 {}\n", p(), p(), p(), p()).into_bytes(),
            // Mutated good files.
            k => {
                let base = [qubo, ising, graph][(k - 3) as usize];
                let mut b = base.as_bytes().to_vec();
                for _ in 0..1 + rng.index(3) {
                    let at = rng.index(b.len() + 1);
                    match rng.index(4) {
                        0 if at < b.len() => b[at] = b"0123456789 -.\nepc#"[rng.index(18)],
                        1 => b.splice(at..at, pick(&mut rng).bytes()).for_each(drop),
                        2 => b.truncate(at),
                        _ => b.splice(at..at, *b"\n").for_each(drop),
                    }
                }
                b
            }
        };
        let outcome = std::panic::catch_unwind(|| parse_all_formats(&bytes, seed));
        assert!(outcome.is_ok(), "seed {seed} panicked on {:?}", String::from_utf8_lossy(&bytes));
    }
}
