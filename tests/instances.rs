//! Instance parsing (every malformed case: missing header, wrong counts, index out of range, self-loop, duplicate edge, non-integer token), generators, the exact
//! enumeration, and partial evaluation against full evaluation.

mod common;

use pgomea::problem::generate::{self, WeightRange, brute_force_max_cut};
use pgomea::problem::graph::Graph;
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::{EvaluationCounter, GrayBoxProblem, KindVisitor, PartialEvaluation, full_evaluation};
use pgomea_device::rng::SplitMix64;

fn parse_err(text: &str) -> String {
    match Graph::parse(text, "bad.txt", "bad") {
        Ok(_) => panic!("accepted a malformed instance: {text:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parses_a_valid_instance() {
    let i = Graph::parse("3 2\n1 2 5\n2 3 -1\n", "ok.txt", "ok").unwrap();
    assert_eq!(i.vertices, 3);
    assert_eq!(i.edges.len(), 2);
    let e = i.edges.get(1);
    assert_eq!((e.u, e.v, e.w), (1, 2, -1));
    let again = Graph::parse(&i.to_text(), "x", "x").unwrap();
    assert_eq!(again.edges, i.edges);
}

#[test]
fn every_malformed_case_names_file_and_line() {
    let cases: &[(&str, &str, &str)] = &[
        ("", "bad.txt:1:", "empty file"),
        ("3\n", "bad.txt:1:", "header"),
        ("3 x\n1 2 1\n", "bad.txt:1:", "not an integer"),
        ("3 2\n1 2 1\n", "bad.txt:2:", "announces 2 edges but the file has 1"),
        ("3 1\n1 2 1\n2 3 1\n", "bad.txt:3:", "more edge lines"),
        ("3 1\n1 4 1\n", "bad.txt:2:", "out of range"),
        ("3 1\n0 2 1\n", "bad.txt:2:", "out of range"),
        ("3 1\n2 2 1\n", "bad.txt:2:", "self-loop"),
        ("3 2\n1 2 1\n2 1 3\n", "bad.txt:3:", "duplicate edge"),
        ("3 1\n1 2 1.5\n", "bad.txt:2:", "weight `1.5` is not an integer"),
        ("3 1\n1 2\n", "bad.txt:2:", "three integers"),
        ("3 1\n1 -2 1\n", "bad.txt:2:", "not an integer"),
        ("2 5\n1 2 1\n", "bad.txt:1:", "cannot exist"),
    ];
    for (text, place, what) in cases {
        let e = parse_err(text);
        assert!(e.starts_with(place), "{text:?}: `{e}` should start with {place}");
        assert!(e.contains(what), "{text:?}: `{e}` should say {what}");
    }
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let e = Graph::read(std::path::Path::new("/no/such/file.txt")).unwrap_err().to_string();
    assert!(e.contains("/no/such/file.txt"), "{e}");
}

#[test]
fn even_torus_optimum_is_its_total_weight() {
    // Even tori are bipartite: cutting every edge is possible. Checked by enumeration on 4x4.
    let t = generate::torus(4, WeightRange { min: 1, max: 5 }, 9).unwrap();
    assert_eq!(t.edges.len(), 32);
    assert_eq!(brute_force_max_cut(&t), t.total_weight().unwrap());
    // An odd torus is not bipartite: its optimum is below the total weight.
    let odd = generate::torus(3, WeightRange { min: 1, max: 1 }, 1).unwrap();
    assert!(brute_force_max_cut(&odd) < odd.total_weight().unwrap());
}

#[test]
fn brute_force_matches_set_a_optima() {
    let Some((dir, rows)) = common::known("A") else { return };
    for r in rows.iter().filter(|r| r.vertices <= 12) {
        let inst = Graph::read(&r.path(&dir)).unwrap();
        assert_eq!(brute_force_max_cut(&inst), r.best_known, "{}", r.name);
    }
}

#[test]
fn every_shipped_instance_parses_with_the_announced_size() {
    let Some(dir) = common::data_dir() else { return };
    let rows = pgomea::problem::data::read_best_known(&dir).unwrap();
    assert!(rows.len() > 200);
    for r in &rows {
        let inst = Graph::read(&r.path(&dir)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((inst.vertices, inst.edges.len()), (r.vertices, r.edges), "{}/{}", r.set, r.name);
    }
}

#[test]
fn partial_evaluation_equals_full_re_evaluation() {
    // The partial evaluation of serial GOMEA (the device crate's kind delta over the collected
    // dependent subfunctions) against full evaluations, on Max-Cut and NK problems.
    let mut rng = SplitMix64::new(5);
    let problems: Vec<Box<dyn GrayBoxProblem>> = vec![
        Box::new(MaxCut::new(generate::random(60, 300, WeightRange { min: -3, max: 7 }, 1).unwrap()).unwrap()),
        Box::new(MaxCut::new(generate::complete(20, WeightRange { min: 1, max: 5 }, 2).unwrap()).unwrap()),
        Box::new(MaxCut::new(generate::torus(6, WeightRange { min: -1, max: 1 }, 3).unwrap()).unwrap()),
        Box::new(pgomea::problem::nk::sliding_window(50, 5, 4).unwrap()),
    ];
    struct Delta<'x> {
        partial: &'x mut PartialEvaluation,
        f: &'x pgomea::problem::Subfunctions,
        changed: &'x [u32],
        old: &'x [u8],
        new: &'x [u8],
    }
    impl KindVisitor for Delta<'_> {
        type Output = (i64, usize);
        fn visit<K: pgomea_device::problem::Kind>(self, kind: K) -> (i64, usize) {
            // SAFETY: the kind of `f`; l genes each, differing on `changed` alone.
            unsafe { self.partial.delta(&kind, self.f, self.changed, self.old, self.new) }
        }
    }
    for (k, p) in problems.iter().enumerate() {
        let l = p.variables();
        let counter = EvaluationCounter::default();
        let mut x: Vec<u8> = (0..l).map(|_| rng.coin() as u8).collect();
        let mut f = full_evaluation(&**p, &x, &counter);
        let mut partial = PartialEvaluation::new(p.functions());
        for step in 0..300 {
            let size = 1 + rng.index(l.min(12));
            let mut set: Vec<u32> = (0..l as u32).collect();
            rng.shuffle(&mut set);
            set.truncate(size);
            let mut y = x.clone();
            for &v in &set {
                y[v as usize] ^= 1;
            }
            // Every subfunction that reads a changed variable, once.
            let mut expected: Vec<u32> =
                set.iter().flat_map(|&v| p.dependent_subfunctions(v as usize).iter().copied()).collect();
            expected.sort_unstable();
            expected.dedup();
            let (d, evaluated) = p.functions().with_kind(Delta {
                partial: &mut partial,
                f: p.functions(),
                changed: &set,
                old: &x,
                new: &y,
            });
            assert_eq!(evaluated, expected.len(), "case {k} step {step}: subfunctions evaluated");
            f += d;
            x = y;
            assert_eq!(f, p.evaluate(&x), "case {k} step {step}: incremental fitness differs from full evaluation");
        }
    }
}
