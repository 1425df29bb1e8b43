//! The problems beyond Max-Cut: MAX-SAT (clauses kind), concatenated deceptive traps and NK
//! landscapes with random neighbourhoods (tables kind), and the MK-landscape files of other tools.
//! Generators and readers against their definitions, every malformed file with its file and line,
//! format detection, exact optima reached by serial and parallel GOMEA, incremental fitness equal
//! to a full evaluation after every accepted step for every kind, and the CLI.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use pgomea::gomea::run::{Limits, Run};
use pgomea::linkage::fos::LinkageModel;
use pgomea::problem::generate::{self, WeightRange};
use pgomea::problem::load::{self, ProblemFormat};
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::maxsat::{self, MaxSat, SatFormat};
use pgomea::problem::tables::TableProblem;
use pgomea::problem::{GrayBoxProblem, mk, nk, trap};
use pgomea::solve::{Algorithm, Outcome};
use pgomea::stop::StopCheck;
use pgomea_device::rng::SplitMix64;

fn brute_force(p: &dyn GrayBoxProblem) -> i64 {
    let l = p.variables();
    assert!(l <= 20);
    (0u32..1 << l).map(|bits| p.evaluate(&(0..l).map(|v| (bits >> v & 1) as u8).collect::<Vec<u8>>())).max().unwrap()
}

fn random_genes(l: usize, rng: &mut SplitMix64) -> Vec<u8> {
    (0..l).map(|_| rng.coin() as u8).collect()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgomea-problems-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Solves `p` within `limits` with `run.verify` on: every accepted step of serial GOMEA, and
/// every colour group of parallel GOM, asserts that the incremental fitness equals a full
/// evaluation.
fn solve_verified(
    p: &dyn GrayBoxProblem,
    algorithm: Algorithm,
    linkage: LinkageModel,
    seed: u64,
    limits: Limits,
) -> Outcome {
    let config = common::cpu_options(algorithm, linkage, seed);
    let target = limits.target;
    let mut run = Run::new(p, limits);
    run.verify = true;
    let o = common::solve_in(p, config.clone(), &mut run, target).unwrap();
    assert_eq!(p.evaluate(&o.genes()), o.best_fitness, "the reported fitness is the solution's");
    o
}

fn to_optimum(opt: i64) -> Limits {
    Limits { time: Some(Duration::from_secs(120)), evaluations: Some(5e6), target: Some(opt) }
}

// ------------------------------------------------------------------------------------------
// MAX-SAT
// ------------------------------------------------------------------------------------------

fn sat(text: &str, file: &str) -> MaxSat {
    MaxSat::parse(text, file, "t", &StopCheck::never()).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// The clauses of an instance as signed 1-based literals with their weights.
fn signed(p: &MaxSat) -> Vec<(i64, Vec<i64>)> {
    (0..p.clauses())
        .map(|s| {
            let (lits, w) = p.clause(s);
            (w, lits.iter().map(|&l| if l & 1 == 1 { -((l >> 1) as i64 + 1) } else { (l >> 1) as i64 + 1 }).collect())
        })
        .collect()
}

#[test]
fn dimacs_cnf_with_the_quirks_of_public_collections_is_read() {
    // Comments anywhere before and between clauses, a header with two spaces, a clause spanning
    // lines, two clauses on a line, an empty clause, SATLIB's trailing `%` and `0`.
    let text = "c SATLIB-like\nc\np cnf 3  4\n 1 -3\n 0 2 3 0\nc between\n-1 0\n0\n%\n0\n\n";
    let p = sat(text, "q.cnf");
    assert_eq!(p.format, SatFormat::Cnf);
    assert_eq!(p.variables(), 3);
    assert_eq!(signed(&p), vec![(1, vec![1, -3]), (1, vec![2, 3]), (1, vec![-1]), (1, vec![])]);
    assert_eq!(p.problem_type(), "max-sat");
    // Fitness = number of satisfied clauses; the empty clause never is.
    for bits in 0u32..8 {
        let x: Vec<u8> = (0..3).map(|v| (bits >> v & 1) as u8).collect();
        let expected = [x[0] == 1 || x[2] == 0, x[1] == 1 || x[2] == 1, x[0] == 0].iter().filter(|&&b| b).count();
        assert_eq!(p.evaluate(&x), expected as i64, "{x:?}");
        assert_eq!(p.unsatisfied(&x).len(), 4 - expected);
    }
    assert_eq!(p.total_weight(), 4);
    assert_eq!(p.known_optimum(), None, "a file never proves its optimum");
}

#[test]
fn repeated_literals_are_dropped_and_tautologies_always_count() {
    let p = sat("p cnf 3 3\n1 1 -2 1 0\n2 -2 3 -2 0\n-3 -3 0\n", "d.cnf");
    assert_eq!(signed(&p), vec![(1, vec![1, -2]), (1, vec![2, -2, 3]), (1, vec![-3])]);
    assert_eq!(p.duplicate_literals, 4);
    // Each clause lists a variable once, and each variable lists a clause once.
    assert_eq!(p.subfunction_variables(1), &[1, 2]);
    assert_eq!(p.dependent_subfunctions(1), &[0, 1]);
    for bits in 0u32..8 {
        let x: Vec<u8> = (0..3).map(|v| (bits >> v & 1) as u8).collect();
        let first = (x[0] == 1 || x[1] == 0) as i64;
        let last = (x[2] == 0) as i64;
        assert_eq!(p.evaluate(&x), first + 1 + last, "{x:?}: the tautology counts always");
    }
    let stats: std::collections::HashMap<_, _> = p.statistics().into_iter().collect();
    assert_eq!(stats["tautologies"], "1");
    assert_eq!(stats["duplicate_literals_dropped"], "4");
    // A tautology links nothing: its value never changes.
    assert_eq!(p.linkage_weight(1), 0);
}

#[test]
fn weighted_and_partial_wcnf_in_both_formats() {
    // Classic: `p wcnf N M TOP`, hard clauses weigh TOP.
    let p = sat("c w\np wcnf 3 4 100\n100 1 2 0\n7 -1 0\n5 -2 3\n 0\n100 -3 0\n", "w.wcnf");
    assert_eq!(p.format, SatFormat::Wcnf);
    assert_eq!(p.top, Some(100));
    assert_eq!(signed(&p), vec![(100, vec![1, 2]), (7, vec![-1]), (5, vec![-2, 3]), (100, vec![-3])]);
    assert_eq!((0..4).map(|s| p.is_hard(s)).collect::<Vec<_>>(), [true, false, false, true]);
    assert_eq!(p.evaluate(&[0, 1, 0]), 100 + 7 + 100);
    let report: std::collections::HashMap<_, _> = p.solution_report(&[1, 1, 1]).into_iter().collect();
    assert_eq!(report["unsatisfied_clauses"], "2");
    assert_eq!(report["unsatisfied_weight"], "107");
    assert_eq!(report["unsatisfied_hard_clauses"], "1");
    assert_eq!(report["unsatisfied_clause_numbers"], "2 4");
    // Without TOP: weights only, nothing hard.
    let p = sat("p wcnf 2 2\n3 1 0\n4 -1 2 0\n", "w.wcnf");
    assert_eq!((p.top, p.is_hard(0), p.total_weight()), (None, false, 7));
    assert!(!p.solution_report(&[0, 0]).iter().any(|(k, _)| *k == "unsatisfied_hard_clauses"));
    // The 2022 format: no header, `h` for hard; a hard clause outweighs every soft one together.
    let p = sat("c new\nh 1 2 0\n3 -1 0\n5 -2 -4 0\nh 4 0\n", "n.wcnf");
    assert_eq!(p.format, SatFormat::Wcnf2022);
    assert_eq!(p.variables(), 4);
    assert_eq!(p.top, Some(9));
    assert_eq!(signed(&p), vec![(9, vec![1, 2]), (3, vec![-1]), (5, vec![-2, -4]), (9, vec![4])]);
    // Recognised by its `h` line whatever the file is called.
    assert_eq!(sat("h 1 0\n2 -1 0\n", "n.txt").format, SatFormat::Wcnf2022);
    // The classic round trip.
    let p = sat("p wcnf 3 4 100\n100 1 2 0\n7 -1 0\n5 -2 3 0\n100 -3 0\n", "w.wcnf");
    let q = sat(&p.to_text(), "again.wcnf");
    assert_eq!((signed(&q), q.top), (signed(&p), p.top));
}

#[test]
fn every_malformed_sat_file_names_file_and_line() {
    let cases: &[(&str, &str, usize, &str)] = &[
        ("", "b.cnf", 1, "no clauses and no header"),
        ("1 2 0\n", "b.cnf", 1, "expected the header `p cnf"),
        ("p cnf 2\n", "b.cnf", 1, "expected a header"),
        ("p foo 2 1\n", "b.cnf", 1, "expected a header"),
        ("p cnf 0 1\n", "b.cnf", 1, "at least 1"),
        ("p cnf x 1\n", "b.cnf", 1, "number of variables `x`"),
        ("p cnf 2 99999999999\n", "b.cnf", 1, "more than a file of"),
        ("p cnf 2 1\np cnf 2 1\n", "b.cnf", 2, "second header"),
        ("p cnf 2 1\n1 0\n2 0\n", "b.cnf", 3, "more clauses than the 1"),
        ("p cnf 2 2\n1 0\n", "b.cnf", 2, "announces 2 clauses but the file has 1"),
        ("p cnf 2 1\n1 3 0\n", "b.cnf", 2, "variable 3 is out of range 1..=2"),
        ("p cnf 2 1\n1 -3 0\n", "b.cnf", 2, "literal -3"),
        ("p cnf 2 1\n1 x 0\n", "b.cnf", 2, "literal `x` is not an integer"),
        ("p cnf 2 1\n1 99999999999999999999 0\n", "b.cnf", 2, "not an integer in range"),
        ("p cnf 2 1\n1 2\n", "b.cnf", 2, "the clause begun on line 2 is not ended by 0"),
        ("p cnf 2 1\n1\n2\n", "b.cnf", 3, "begun on line 2 is not ended by 0"),
        ("p cnf 2 1\n1 2\n%\n0\n", "b.cnf", 3, "not ended by 0 before the end marker"),
        ("p cnf 2 1\n1 0\n%\n0\n1 0\n", "b.cnf", 5, "after the end marker `%` (line 3)"),
        ("p cnf 2 1\n1 0\n%x\n", "b.cnf", 3, "`%` alone"),
        ("p wcnf 2 1 5\n6 1 0\n", "b.wcnf", 2, "weight 6 exceeds the header's top weight 5"),
        ("p wcnf 2 1\n0 1 0\n", "b.wcnf", 2, "positive integer"),
        ("p wcnf 2 1\n-2 1 0\n", "b.wcnf", 2, "starts with its weight"),
        ("p wcnf 2 1 0\n", "b.wcnf", 1, "top weight"),
        ("p wcnf 2 1 x\n", "b.wcnf", 1, "top weight `x`"),
        ("p wcnf 2 2\n9223372036854775807 1 0\n9223372036854775807 2 0\n", "b.wcnf", 1, "beyond 64-bit integers"),
        ("h 1 0\nx 2 0\n", "b.wcnf", 2, "a positive integer or `h`"),
        ("h 1 0\n9223372036854775807 2 0\n9 1 0\n", "b.wcnf", 1, "soft weights add up"),
        ("1 2 0\np cnf 2 1\n", "b.wcnf", 2, "must come before the clauses"),
    ];
    for &(text, file, line, what) in cases {
        common::assert_parse_error(MaxSat::parse(text, file, "b", &StopCheck::never()), text, file, line, what);
    }
}

#[test]
fn the_planted_generator_gives_satisfiable_3sat() {
    for (n, m, seed) in [(3, 5, 1), (20, 91, 2), (250, 1065, 3)] {
        let (p, planted) = maxsat::planted_3sat(n, m, seed).unwrap();
        assert_eq!(p.evaluate(&planted), m as i64, "the planted assignment satisfies every clause");
        assert_eq!(p.known_optimum(), Some(m as i64));
        for s in 0..m {
            assert_eq!(p.subfunction_variables(s).len(), 3, "three distinct variables");
        }
        assert_eq!(p.to_text(), maxsat::planted_3sat(n, m, seed).unwrap().0.to_text(), "deterministic");
    }
    let small = maxsat::planted_3sat(12, 51, 4).unwrap().0;
    assert_eq!(brute_force(&small), 51);
    assert!(maxsat::planted_3sat(2, 5, 1).is_err());
    assert!(maxsat::planted_3sat(10, 0, 1).is_err());
}

#[test]
fn satlib_uf20_and_uf50_are_satisfied_by_serial_and_parallel_gomea() {
    let Some(dir) = common::data_dir() else { return };
    for (name, m) in [("uf20-01", 91), ("uf50-01", 218)] {
        let path = dir.join("maxsat").join(format!("{name}.cnf"));
        if !path.is_file() {
            eprintln!("SKIPPED: {} is not there", path.display());
            continue;
        }
        let p = load::read(&path, None, &StopCheck::never()).unwrap();
        assert_eq!((p.problem_type(), p.subfunctions()), ("max-sat", m));
        for (algorithm, linkage) in [
            (Algorithm::Serial, LinkageModel::Flt),
            (Algorithm::Serial, LinkageModel::Lt),
            (Algorithm::Parallel, LinkageModel::Flt),
            (Algorithm::Parallel, LinkageModel::Bflt(8)),
        ] {
            for seed in 1..=3 {
                let o = solve_verified(&*p, algorithm, linkage, seed, to_optimum(m as i64));
                assert!(o.reached_target, "{name} {algorithm:?} {linkage} seed {seed}: {} of {m}", o.best_fitness);
                assert_eq!(o.report["unsatisfied_clauses"], 0);
                assert_eq!(o.report["unsatisfied_weight"], 0);
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// Traps
// ------------------------------------------------------------------------------------------

#[test]
fn traps_are_deceptive_with_the_optimum_at_all_ones() {
    assert_eq!((0..=5).map(|u| trap::trap_value(5, u)).collect::<Vec<_>>(), [4, 3, 2, 1, 0, 5]);
    for shuffle in [false, true] {
        let p = trap::concatenated(4, 4, 7, shuffle).unwrap();
        assert_eq!((p.variables(), p.subfunctions(), p.optimum), (16, 4, Some(16)));
        assert_eq!(p.problem_type, "trap");
        assert_eq!(brute_force(&p), 16);
        assert_eq!(p.evaluate(&[1; 16]), 16);
        assert_eq!(p.evaluate(&[0; 16]), 12, "all zeros: the deceptive attractor, k - 1 per block");
        // Every variable in exactly one block; adjacent blocks without shuffling.
        let mut seen = vec![0; 16];
        for s in 0..4 {
            for &v in p.subfunction_variables(s) {
                seen[v as usize] += 1;
            }
        }
        assert_eq!(seen, vec![1; 16]);
        let adjacent = (0..4).all(|s| {
            p.subfunction_variables(s) == [4 * s as u32, 4 * s as u32 + 1, 4 * s as u32 + 2, 4 * s as u32 + 3]
        });
        assert_eq!(adjacent, !shuffle);
    }
    // One gene short of a block's optimum is its worst value.
    let p = trap::concatenated(3, 1, 1, false).unwrap();
    assert_eq!((p.evaluate(&[1, 1, 1]), p.evaluate(&[1, 1, 0]), p.evaluate(&[0, 0, 0])), (3, 0, 2));
    // The shuffle is seeded.
    let a = trap::concatenated(5, 20, 1, true).unwrap().to_text();
    assert_eq!(a, trap::concatenated(5, 20, 1, true).unwrap().to_text());
    assert_ne!(a, trap::concatenated(5, 20, 2, true).unwrap().to_text());
    // The file says what it is, and its optimum.
    let q = TableProblem::parse(&a, "t.nk", "t", &StopCheck::never()).unwrap();
    assert_eq!((q.problem_type.as_str(), q.optimum), ("trap", Some(100)));
    assert!(trap::concatenated(0, 3, 1, false).is_err());
    assert!(trap::concatenated(17, 3, 1, false).is_err());
    assert!(trap::concatenated(3, 0, 1, false).is_err());
}

#[test]
fn serial_and_parallel_gomea_find_all_ones_on_traps() {
    for (k, blocks, shuffle) in [(4, 25, false), (5, 20, true), (6, 10, true)] {
        let p = trap::concatenated(k, blocks, 3, shuffle).unwrap();
        let opt = p.optimum.unwrap();
        for (algorithm, linkage) in [
            (Algorithm::Serial, LinkageModel::Flt),
            (Algorithm::Serial, LinkageModel::Lt),
            (Algorithm::Parallel, LinkageModel::Flt),
            (Algorithm::Parallel, LinkageModel::Bflt(k)),
        ] {
            let o = solve_verified(&p, algorithm, linkage, 1, to_optimum(opt));
            assert!(
                o.reached_target,
                "k {k} x {blocks} (shuffled {shuffle}) {algorithm:?} {linkage}: {} of {opt}",
                o.best_fitness
            );
            assert!(o.solution.iter().all(|&bit| bit), "the optimum is all ones");
        }
    }
}

// ------------------------------------------------------------------------------------------
// NK with random neighbourhoods, MK files
// ------------------------------------------------------------------------------------------

#[test]
fn random_neighbourhood_nk_reads_its_own_variable_and_distinct_others() {
    let p = nk::random_neighbourhood(50, 5, 3).unwrap();
    assert_eq!((p.variables(), p.subfunctions(), p.optimum), (50, 50, None));
    let mut spread = std::collections::BTreeSet::new();
    for s in 0..50 {
        let vars = p.subfunction_variables(s);
        assert_eq!(vars.len(), 5);
        assert_eq!(vars[0], s as u32, "subfunction i reads variable i first");
        spread.extend(vars[1..].iter().map(|&v| (v as i64 - s as i64).rem_euclid(50)));
        let (lo, hi) = p.functions().bounds(s);
        assert!(lo >= 0 && hi < nk::VALUES as i64);
    }
    assert!(spread.len() > 20, "the neighbours are not a fixed window: offsets {spread:?}");
    assert_eq!(p.to_text(), nk::random_neighbourhood(50, 5, 3).unwrap().to_text());
    assert_ne!(p.to_text(), nk::random_neighbourhood(50, 5, 4).unwrap().to_text());
    // n = k: every subfunction reads every variable.
    let q = nk::random_neighbourhood(4, 4, 1).unwrap();
    assert!((0..4).all(|s| q.subfunction_variables(s).len() == 4));
    assert!(nk::random_neighbourhood(3, 4, 1).unwrap_err().to_string().contains("cannot give"));
    assert!(nk::random_neighbourhood(10, 0, 1).is_err());
}

#[test]
fn mk_files_round_trip_and_evaluate_as_the_format_says() {
    let p = nk::random_neighbourhood(30, 4, 2).unwrap();
    let text = mk::to_text(&p);
    assert!(text.lines().nth(1) == Some("p NK 30 4"), "{text}");
    let q = mk::parse(&text, "x.mk", "x", &StopCheck::never()).unwrap();
    assert_eq!(q.problem_type, "nk");
    let mut rng = SplitMix64::new(5);
    for _ in 0..50 {
        let x = random_genes(30, &mut rng);
        assert_eq!(p.evaluate(&x), q.evaluate(&x));
    }
    // 0-based variables, the first listed the most significant bit; comments, blank lines and
    // a header without K.
    let t =
        mk::parse("c a\np MK 3\n\nm 2 0\nc between\n0 10 20 30\nm 1\n5 6\n", "t.mk", "t", &StopCheck::never()).unwrap();
    assert_eq!(t.problem_type, "mk");
    assert_eq!(t.evaluate(&[0, 0, 0]), 5);
    assert_eq!(t.evaluate(&[0, 0, 1]), 20 + 5, "x_2 is the top bit: index 2");
    assert_eq!(t.evaluate(&[1, 1, 0]), 10 + 6, "x_0 is the low bit: index 1");
    assert_eq!(t.evaluate(&[1, 0, 1]), 30 + 5);
    assert_eq!(brute_force(&t), 36);
}

#[test]
fn every_malformed_mk_file_names_file_and_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 1, "no header"),
        ("m 0\n1 2\n", 1, "before anything else"),
        ("p XK 3 2\n", 1, "expected a header `p MK N K`"),
        ("p MK\n", 1, "expected a header"),
        ("p MK 3 2 9\n", 1, "expected a header"),
        ("p MK 0 2\n", 1, "0 variables"),
        ("p MK x 2\n", 1, "number of variables `x`"),
        ("p MK 3 y\n", 1, "subfunction size K `y`"),
        ("p MK 3 2\np MK 3 2\n", 2, "second header"),
        ("p MK 3 2\nm\n", 2, "1 to 16 variables, not 0"),
        ("p MK 3 2\nm 0 3\n1 2 3 4\n", 2, "variable 3 is out of range 0..=2"),
        ("p MK 3 2\nm 0 -1\n", 2, "variable `-1`"),
        ("p MK 3 2\nm 1 1\n1 2 3 4\n", 2, "appears twice"),
        ("p MK 3 2\nm 0 1\n1 2 3\n", 3, "needs 4 values; found 3"),
        ("p MK 3 2\nm 0 1\n1 2 3 0.5\n", 3, "`0.5` is not an integer: pgomea computes fitness exactly"),
        ("p MK 3 2\nm 0 1\n1 2 3 x\n", 3, "table value `x`"),
        ("p MK 3 2\nm 0 1\n", 2, "has no table"),
        ("p MK 3 2\nf 1 1 0 1\n", 2, "unknown line"),
        ("p MK 3 1\nm 0\n9223372036854775807 0\nm 1\n9223372036854775807 0\n", 1, "beyond 64-bit integers"),
    ];
    for &(text, line, what) in cases {
        common::assert_parse_error(mk::parse(text, "bad.mk", "bad", &StopCheck::never()), text, "bad.mk", line, what);
    }
}

#[test]
fn every_format_is_detected_from_its_extension_or_content() {
    let d = scratch("detect");
    let nk_text = nk::sliding_window(20, 3, 1).unwrap().to_text();
    let mk_text = mk::to_text(&nk::sliding_window(20, 3, 1).unwrap());
    let cases: &[(&str, &str, &str)] = &[
        ("a.cnf", "c x\np cnf 2 1\n1 -2 0\n", "max-sat"),
        ("a.wcnf", "p wcnf 2 1 9\n9 1 -2 0\n", "max-sat"),
        ("b.wcnf", "3 1 -2 0\n", "max-sat"),
        ("cnf-noext", "c x\np cnf 2 1\n1 -2 0\n", "max-sat"),
        ("wcnf-noext", "p wcnf 2 1\n3 1 -2 0\n", "max-sat"),
        ("h-noext", "c x\nh 1 -2 0\n", "max-sat"),
        ("a.nk", &nk_text, "nk"),
        ("nk-noext", &nk_text, "nk"),
        ("a.mk", &mk_text, "nk"),
        ("mk-noext", &mk_text, "nk"),
        ("mk2-noext", "p MK 2 1\nm 0\n4 5\n", "mk"),
        ("g-noext", "3 2\n1 2 5\n2 3 1\n", "max-cut"),
    ];
    for (name, text, kind) in cases {
        std::fs::write(d.join(name), text).unwrap();
        let p = load::read(&d.join(name), None, &StopCheck::never()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.problem_type(), *kind, "{name}");
    }
    // The .nk and MK readers tell each other's files apart by content; a forced format wins.
    assert_eq!(ProblemFormat::detect(std::path::Path::new("x"), &mk_text), ProblemFormat::Mk);
    assert_eq!(ProblemFormat::detect(std::path::Path::new("x"), &nk_text), ProblemFormat::Nk);
    std::fs::write(d.join("sat.txt"), "p cnf 2 1\n1 -2 0\n").unwrap();
    assert!(load::read(&d.join("sat.txt"), None, &StopCheck::never()).is_err(), ".txt is a graph");
    assert_eq!(
        load::read(&d.join("sat.txt"), Some(ProblemFormat::MaxSat), &StopCheck::never()).unwrap().problem_type(),
        "max-sat"
    );
    assert_eq!(
        load::read(&d.join("mk-noext"), Some(ProblemFormat::Mk), &StopCheck::never()).unwrap().subfunctions(),
        18
    );
    // Files of sliding windows that state no optimum (the MK format cannot) get the exact one.
    let optimum = nk::sliding_window(20, 3, 1).unwrap().optimum;
    assert!(optimum.is_some());
    assert_eq!(load::read(&d.join("a.mk"), None, &StopCheck::never()).unwrap().known_optimum(), optimum);
    std::fs::write(d.join("no-o.nk"), nk_text.lines().filter(|l| !l.starts_with("o ")).collect::<Vec<_>>().join("\n"))
        .unwrap();
    assert_eq!(load::read(&d.join("no-o.nk"), None, &StopCheck::never()).unwrap().known_optimum(), optimum);
    std::fs::write(d.join("w.mk"), "p MK 2 2\nm 0 1\n4 7 1 0\n").unwrap();
    assert_eq!(
        load::read(&d.join("w.mk"), None, &StopCheck::never()).unwrap().known_optimum(),
        Some(7),
        "one window over both"
    );
    assert_eq!(
        load::read(&d.join("mk2-noext"), None, &StopCheck::never()).unwrap().known_optimum(),
        None,
        "x_1 read by none"
    );
    let random = mk::to_text(&nk::random_neighbourhood(20, 3, 1).unwrap());
    std::fs::write(d.join("r.mk"), random).unwrap();
    assert_eq!(
        load::read(&d.join("r.mk"), None, &StopCheck::never()).unwrap().known_optimum(),
        None,
        "not sliding windows: no claim"
    );
}

// ------------------------------------------------------------------------------------------
// Every kind: incremental fitness = full evaluation; every backend and linkage model
// ------------------------------------------------------------------------------------------

fn one_of_every_kind() -> Vec<Box<dyn GrayBoxProblem>> {
    // Hard clauses, a tautology, a long clause, an empty clause (weight 6), a repeated literal.
    let weighted = MaxSat::parse(
        "p wcnf 40 9 1000\n1000 1 -2 3 0\n7 -1 2 0\n5 4 -4 5 0\n3 -5 6 7 8 9 10 0\n6 0\n1000 -11 12 0\n2 13 13 -14 0\n9 -20 0\n4 30 -31 40 -39 0\n",
        "w.wcnf",
        "w", &StopCheck::never(),
    )
    .unwrap();
    let w = WeightRange { min: -2, max: 5 };
    vec![
        Box::new(MaxCut::new(generate::random(60, 200, w, 1).unwrap()).unwrap()),
        Box::new(nk::sliding_window(60, 4, 2).unwrap()),
        Box::new(nk::random_neighbourhood(60, 4, 3).unwrap()),
        Box::new(trap::concatenated(4, 15, 4, true).unwrap()),
        Box::new(maxsat::planted_3sat(80, 340, 5).unwrap().0),
        Box::new(weighted),
    ]
}

#[test]
fn incremental_fitness_equals_full_evaluation_after_every_accepted_step_for_every_kind() {
    for p in one_of_every_kind() {
        for (algorithm, linkage) in [
            (Algorithm::Serial, LinkageModel::Flt),
            (Algorithm::Serial, LinkageModel::Bflt(5)),
            (Algorithm::Serial, LinkageModel::Lt),
            (Algorithm::Serial, LinkageModel::Univariate),
            (Algorithm::Parallel, LinkageModel::Flt),
            (Algorithm::Parallel, LinkageModel::Bflt(5)),
            (Algorithm::Parallel, LinkageModel::Univariate),
        ] {
            let limits = Limits { time: Some(Duration::from_secs(30)), evaluations: Some(3000.0), target: None };
            let o = solve_verified(&*p, algorithm, linkage, 7, limits);
            assert!(o.gom_steps > 0, "{} {algorithm:?} {linkage}: no GOM step", p.name());
        }
    }
}

#[test]
fn partial_evaluation_of_random_moves_equals_the_difference_of_full_evaluations() {
    use pgomea::problem::{KindVisitor, PartialEvaluation};
    use pgomea_device::problem::Kind;
    struct Check<'a>(&'a dyn GrayBoxProblem);
    impl KindVisitor for Check<'_> {
        type Output = ();
        fn visit<K: Kind>(self, kind: K) {
            let p = self.0;
            let l = p.variables();
            let mut partial = PartialEvaluation::new(p.functions());
            let mut rng = SplitMix64::new(l as u64);
            for _ in 0..300 {
                let old = random_genes(l, &mut rng);
                let mut new = old.clone();
                let mut changed: Vec<u32> = (0..1 + rng.index(6)).map(|_| rng.index(l) as u32).collect();
                changed.sort_unstable();
                changed.dedup();
                for &v in &changed {
                    new[v as usize] ^= 1;
                }
                // SAFETY: the kind of p's subfunctions; both genotypes hold l genes.
                let (delta, _) = unsafe { partial.delta(&kind, p.functions(), &changed, &old, &new) };
                assert_eq!(delta, p.evaluate(&new) - p.evaluate(&old), "{}", p.name());
            }
        }
    }
    for p in one_of_every_kind() {
        p.functions().with_kind(Check(&*p));
    }
}

// ------------------------------------------------------------------------------------------
// The command line
// ------------------------------------------------------------------------------------------

fn pgomea(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgomea")).args(args).output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{:?}: {}", o.status, String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_cli_generates_runs_and_describes_every_kind() {
    let d = scratch("cli");
    let s = |p: &PathBuf| p.display().to_string();
    let (trap_file, nk_file, sat_file) = (d.join("t.nk"), d.join("r.nk"), d.join("s.cnf"));
    let out = stdout(&pgomea(&[
        "generate",
        "trap",
        "--k",
        "5",
        "--blocks",
        "30",
        "--shuffle",
        "--seed",
        "2",
        "-o",
        &s(&trap_file),
    ]));
    assert_eq!(out.trim(), "optimum 150");
    let out =
        stdout(&pgomea(&["generate", "nk", "--n", "40", "--k", "3", "--neighbourhood", "random", "-o", &s(&nk_file)]));
    assert_eq!(out.trim(), "optimum unknown");
    let out = stdout(&pgomea(&["generate", "sat", "--n", "60", "--m", "255", "--seed", "4", "-o", &s(&sat_file)]));
    assert_eq!(out.trim(), "optimum 255");
    let o = pgomea(&["generate", "trap", "--k", "3", "--blocks", "2"]);
    assert!(stdout(&o).contains("p trap 6 2\no 6\n"));
    assert_eq!(String::from_utf8_lossy(&o.stderr).trim(), "optimum 6");

    for algo in ["serial", "parallel"] {
        let run = |file: &PathBuf, target: &str| -> serde_json::Value {
            let out = stdout(&pgomea(&[
                "run",
                "--algo",
                algo,
                "--backend",
                "cpu",
                "--target",
                target,
                "--time-limit",
                "60",
                "--json",
                "-q",
                "--instance",
                &s(file),
            ]));
            serde_json::from_str(&out).unwrap()
        };
        let j = run(&trap_file, "best-known");
        assert_eq!((j["problem"].as_str(), j["best_fitness"].as_i64()), (Some("trap"), Some(150)), "{algo}");
        let j = run(&sat_file, "255");
        assert_eq!((j["problem"].as_str(), j["best_fitness"].as_i64()), (Some("max-sat"), Some(255)), "{algo}");
        assert_eq!(j["report"]["unsatisfied_clauses"], 0);
    }
    // The text result names the unsatisfied clauses.
    let out = stdout(&pgomea(&["run", "--instance", &s(&sat_file), "--max-evals", "1", "-q"]));
    assert!(out.contains("unsatisfied clauses "), "{out}");
    assert!(out.contains("unsatisfied clause numbers"), "{out}");
    // best-known of a file without a known optimum: refused with a message, exit 2.
    let o = pgomea(&["run", "--instance", &s(&nk_file), "--target", "best-known"]);
    assert_eq!(o.status.code(), Some(2));
    // info reports each kind's statistics.
    let info = |file: &PathBuf| -> serde_json::Value {
        serde_json::from_str(&stdout(&pgomea(&["info", "--json", "--instance", &s(file)]))).unwrap()
    };
    let j = info(&sat_file);
    assert_eq!(
        (j["problem"].as_str(), j["clauses"].as_i64(), j["total_weight"].as_i64()),
        (Some("max-sat"), Some(255), Some(255))
    );
    // The generator planted a satisfying assignment and says so in the file (`c optimum 255`).
    assert_eq!((j["optimum"].as_i64(), j["best_known"].as_i64()), (Some(255), Some(255)));
    let j: serde_json::Value = serde_json::from_str(&stdout(&pgomea(&[
        "run",
        "--target",
        "best-known",
        "--time-limit",
        "60",
        "--json",
        "-q",
        "--instance",
        &s(&sat_file),
    ])))
    .unwrap();
    assert_eq!((j["best_fitness"].as_i64(), j["reached_target"].as_bool()), (Some(255), Some(true)));
    // A cnf file of another source proves no optimum.
    std::fs::write(d.join("plain.cnf"), "p cnf 3 2\n1 -2 0\n2 3 0\n").unwrap();
    assert!(info(&d.join("plain.cnf"))["optimum"].as_str().unwrap().starts_with("unknown"));
    let j = info(&trap_file);
    assert_eq!(
        (j["problem"].as_str(), j["arity_max"].as_i64(), j["best_known"].as_i64()),
        (Some("trap"), Some(5), Some(150))
    );
    let j = info(&nk_file);
    assert_eq!((j["problem"].as_str(), j["optimum"].as_str()), (Some("nk"), Some("unknown")));
    // A malformed file: file, line, exit code 2.
    std::fs::write(d.join("bad.cnf"), "p cnf 3 1\n1 -4 0\n").unwrap();
    let o = pgomea(&["run", "--instance", &s(&d.join("bad.cnf"))]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.cnf:2: literal -4: variable 4 is out of range 1..=3"), "{err}");
}

#[test]
fn experiment_runs_on_any_kind() {
    let d = scratch("experiment");
    let trap_file = d.join("tr.nk");
    trap::concatenated(4, 10, 1, true).unwrap().write(&trap_file).unwrap();
    let sat_file = d.join("sat.cnf");
    maxsat::planted_3sat(40, 170, 2).unwrap().0.write(&sat_file).unwrap();
    let out = d.join("out");
    let o = pgomea(&[
        "experiment",
        "fos-order",
        "--out",
        &out.display().to_string(),
        "--backend",
        "cpu",
        "--threads",
        "2",
        "--runs",
        "1",
        "--max-evals",
        "2000",
        "--no-figures",
        "--quiet",
        "--instances",
        &trap_file.display().to_string(),
        &sat_file.display().to_string(),
    ]);
    stdout(&o);
    let records = pgomea_cli::experiment::store::load_dir(&out).unwrap();
    assert_eq!(records.len(), 8);
    for r in &records {
        let (vars, subs) = if r.instance == "tr" { (40, 10) } else { (40, 170) };
        assert_eq!((r.variables, r.subfunctions), (vars, subs), "{}", r.run_id);
        // Both generated files state their optimum.
        assert_eq!(r.best_known, if r.instance == "tr" { Some(40) } else { Some(170) });
    }
}

#[test]
fn records_of_pgomea_0_1_still_load() {
    let d = scratch("old-record");
    let old = r#"{"format":1,"study":"s","run_id":"r","instance":"G1","instance_source":"C/G1","instance_set":"C",
        "vertices":800,"edges":19176,"variant":"v","seed":1,"best_known":11624,"is_optimal":false,
        "config":{"algorithm":"serial","backend":"cpu","linkage":"flt","fos_order":"random","forced_improvement":true,
        "n_base":16,"c_ims":4,"max_population":null,"threads":null,"time_limit_s":1.0,"max_evals":null,"target":null},
        "best_fitness":11000,"reached_target":false,"stop_reason":"time limit","time_s":1.0,"evaluations":10.0,
        "backend_used":"cpu (serial)","time_to_target_s":null,"evaluations_to_target":null,"trace":[],
        "outcome":{},"pgomea_version":"0.1.0"}"#;
    let path = d.join("r.json");
    std::fs::write(&path, old).unwrap();
    let r = pgomea_cli::experiment::store::load(&path).unwrap();
    assert_eq!((r.variables, r.subfunctions), (800, 19176));
}

#[test]
fn generated_files_carry_their_optimum_through_the_readers() {
    let d = scratch("carried-optimum");
    let read = |name: &str, text: &str| {
        std::fs::write(d.join(name), text).unwrap();
        load::read(&d.join(name), None, &StopCheck::never()).unwrap_or_else(|e| panic!("{name}: {e}")).known_optimum()
    };
    for shuffle in [false, true] {
        assert_eq!(read("t.nk", &trap::concatenated(4, 7, 3, shuffle).unwrap().to_text()), Some(28));
    }
    let adjacent = nk::sliding_window(40, 4, 5).unwrap();
    assert!(adjacent.optimum.is_some());
    assert_eq!(read("a.nk", &adjacent.to_text()), adjacent.optimum);
    assert_eq!(read("a.mk", &mk::to_text(&adjacent)), adjacent.optimum, "computed again from the windows");
    let random = nk::random_neighbourhood(40, 4, 5).unwrap();
    assert_eq!((read("r.nk", &random.to_text()), read("r.mk", &mk::to_text(&random))), (None, None));
    let (sat, _) = maxsat::planted_3sat(50, 210, 6).unwrap();
    let text = sat.to_text();
    assert!(text.lines().take(3).any(|l| l == "c optimum 210"), "{text}");
    assert_eq!(read("s.cnf", &text), Some(210));
    // The comment counts before the header only (after it, it is any comment), once, and within
    // the fitness range of the clauses.
    assert_eq!(read("late.cnf", "p cnf 2 1\nc optimum 1\n1 0\n"), None);
    let cases: &[(&str, usize, &str)] = &[
        ("c optimum 2\np cnf 2 1\n1 0\n", 1, "the stated optimum 2 is outside the fitness range 0..=1"),
        ("c optimum 1\nc optimum 1\np cnf 2 1\n1 0\n", 2, "a second `c optimum` line (the first is line 1)"),
        ("c optimum 5\nc\nh 1 0\n", 1, "the stated optimum 5 is outside the fitness range 0..=1"),
    ];
    for &(text, line, what) in cases {
        common::assert_parse_error(MaxSat::parse(text, "o.wcnf", "o", &StopCheck::never()), text, "o.wcnf", line, what);
    }
    assert_eq!(MaxSat::parse("c optimum 1\nh 1 0\n", "o.wcnf", "o", &StopCheck::never()).unwrap().optimum, Some(1));
}
