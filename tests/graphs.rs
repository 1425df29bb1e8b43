//! Graphs at scale and the generators that carry their optimum: the optimum comment of the G-set
//! reader (round trip, malformed and impossible values), the parallel reader's first error in
//! file order across many pieces, its stop check, tori in 2 and 3 dimensions (edges, degrees,
//! bipartite optimum, weight distributions), `generate torus` and `run --target best-known` on
//! its file, and large round trips (10^7 vertices behind `--ignored`).

mod common;

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use common::assert_parse_error;
use pgomea::error::Error;
use pgomea::problem::generate::{self, EdgeWeights, GAUSSIAN_SCALE, WeightRange};
use pgomea::problem::graph::{Edge, EdgeList, Graph};
use pgomea::problem::maxcut::MaxCut;
use pgomea::problem::{GrayBoxProblem, load};
use pgomea::stop::{StopCheck, StopReason};
use pgomea_device::rng::SplitMix64;

const EXE: &str = env!("CARGO_BIN_EXE_pgomea");

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pgomea-graphs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn comment_lines_come_before_the_header_and_one_may_state_the_optimum() {
    let g = Graph::parse("c a comment\n\nc optimum 7\nc\n3 2\n1 2 5\n2 3 2\n", "g.txt", "g").unwrap();
    assert_eq!((g.vertices, g.edges.len(), g.optimum), (3, 2, Some(7)));
    // Without the line, no optimum; the text written back states it again.
    assert_eq!(Graph::parse("3 1\n1 2 5\n", "g.txt", "g").unwrap().optimum, None);
    let again = Graph::parse(&g.to_text(), "again.txt", "g").unwrap();
    assert_eq!((again.optimum, &again.edges), (Some(7), &g.edges));
    assert!(g.to_text().starts_with("c optimum 7\n3 2\n"));
    let cases: &[(&str, usize, &str)] = &[
        ("c optimum\n3 1\n1 2 5\n", 1, "expected `c optimum V`"),
        ("c optimum 5 6\n3 1\n1 2 5\n", 1, "expected `c optimum V`"),
        ("c optimum x\n3 1\n1 2 5\n", 1, "optimum `x` is not an integer"),
        ("c optimum 5\nc optimum 5\n3 1\n1 2 5\n", 2, "a second `c optimum` line"),
        // Above the sum of the positive weights, or below half the total: no cut has it.
        ("c optimum 6\n3 1\n1 2 5\n", 1, "impossible: the maximum cut of this graph lies in 3..=5"),
        ("c optimum 2\n3 1\n1 2 5\n", 1, "lies in 3..=5"),
        ("c optimum -1\n3 2\n1 2 -5\n2 3 -1\n", 1, "lies in 0..=0"),
        ("c only comments\n", 1, "empty file"),
        ("3 1\nc late comment\n", 2, "vertex `c` is not an integer"),
    ];
    for (text, line, what) in cases {
        assert_parse_error(Graph::parse(text, "g.txt", "g"), text, "g.txt", *line, what);
    }
    // The optimum of a file is the problem's known optimum.
    let d = scratch("optimum");
    let path = d.join("t.txt");
    let torus = generate::torus(6, WeightRange { min: 1, max: 9 }, 3).unwrap();
    let total = torus.total_weight().unwrap();
    assert_eq!(torus.optimum, Some(total));
    torus.write(&path).unwrap();
    assert_eq!(load::read(&path, None, &pgomea::stop::StopCheck::never()).unwrap().known_optimum(), Some(total));
    assert_eq!(MaxCut::new(Graph::read(&path).unwrap()).unwrap().known_optimum(), Some(total));
}

/// The text of a random graph whose lines are faulted at chosen lines, and the first fault's line
/// and message, as a sequential reader meets them.
fn faulted(seed: u64) -> (String, usize, &'static str) {
    let mut rng = SplitMix64::stream(seed, 0xfa17);
    let n = 40_000;
    let g = generate::random(n, 140_000, WeightRange { min: -1000, max: 1000 }, seed).unwrap();
    let mut lines: Vec<String> = g.to_text().lines().map(str::to_string).collect();
    // Line 1 is the header; edge lines are 2..=m+1.
    let edge_lines = lines.len() - 1;
    let mut faults: Vec<(usize, &'static str)> = Vec::new();
    for _ in 0..1 + rng.index(3) {
        let at = 2 + rng.index(edge_lines);
        if faults.iter().any(|f| f.0 == at) {
            continue;
        }
        let (text, what) = match rng.index(6) {
            0 => ("1 2".to_string(), "three integers"),
            1 => (format!("{} 1 1", n + 1), "out of range"),
            2 => ("5 5 1".to_string(), "self-loop"),
            3 => ("1 2 1.5".to_string(), "not an integer"),
            4 if at > 2 => {
                // A repeat of an earlier line that is no fault itself, reversed.
                let earlier = 2 + rng.index(at - 2);
                if faults.iter().any(|f| f.0 == earlier) {
                    continue;
                }
                let t: Vec<&str> = lines[earlier - 1].split_whitespace().collect();
                (format!("{} {} 3", t[1], t[0]), "duplicate edge")
            }
            _ => ("x y z".to_string(), "not an integer"),
        };
        lines[at - 1] = text;
        faults.push((at, what));
    }
    let &(line, what) = faults.iter().min().unwrap();
    (lines.join("\n") + "\n", line, what)
}

#[test]
fn the_parallel_reader_reports_the_first_error_in_file_order() {
    // About 2.5 MB a text: three pieces or more, parsed at once; the error of the first
    // faulted line wins, whichever piece finds its own first.
    for seed in 0..12 {
        let (text, line, what) = faulted(seed);
        assert!(text.len() > 2 << 20);
        assert_parse_error(Graph::parse(&text, "big.txt", "big"), "(large text)", "big.txt", line, what);
    }
    // A duplicate names the line it repeats.
    let e = Graph::parse("3 3\n1 2 1\n2 3 1\n2 1 4\n", "d.txt", "d").unwrap_err().to_string();
    assert_eq!(e, "d.txt:4: duplicate edge 2-1 (already on line 2)");
    // Too many and too few lines, counted over all pieces.
    let g = generate::random(40_000, 140_000, WeightRange { min: 1, max: 9 }, 1).unwrap();
    let text = g.to_text();
    let fewer = text.replacen("40000 140000", "40000 140001", 1);
    assert_parse_error(
        Graph::parse(&fewer, "f.txt", "f"),
        "",
        "f.txt",
        140_001,
        "announces 140001 edges but the file has 140000",
    );
    let more = text.replacen("40000 140000", "40000 139999", 1);
    assert_parse_error(Graph::parse(&more, "f.txt", "f"), "", "f.txt", 140_001, "more edge lines than the 139999");
    let parsed = Graph::parse(&text, "ok.txt", "ok").unwrap();
    assert_eq!(parsed.edges, g.edges);
    // The arrays handed over and taken back.
    let (ends, weights) = parsed.edges.into_arrays();
    assert_eq!((ends.len(), weights.len()), (280_000, 140_000));
    assert_eq!(EdgeList::from_arrays(ends, weights), Some(g.edges.clone()));
    assert_eq!(EdgeList::from_arrays(vec![0, 1, 2], vec![1]), None);
}

#[test]
fn reading_stops_when_the_run_must_end() {
    let text = generate::torus(300, WeightRange { min: 1, max: 5 }, 1).unwrap().to_text();
    let flag = Arc::new(AtomicBool::new(true));
    match Graph::parse_with_stop(&text, "t.txt", "t", &StopCheck::new(None, Some(flag))) {
        Err(Error::Stopped(StopReason::Interrupted)) => {}
        other => panic!("expected a stop, got {:?}", other.map(|g| g.edges.len())),
    }
    let past = std::time::Instant::now() - std::time::Duration::from_millis(1);
    match Graph::parse_with_stop(&text, "t.txt", "t", &StopCheck::new(Some(past), None)) {
        Err(Error::Stopped(StopReason::TimeLimit)) => {}
        other => panic!("expected a stop, got {:?}", other.map(|g| g.edges.len())),
    }
    assert_eq!(Graph::parse_with_stop(&text, "t.txt", "t", &StopCheck::never()).unwrap().edges.len(), 180_000);
}

/// The coordinates of vertex v of a torus of side L in `dims` dimensions.
fn coordinates(v: u32, side: usize, dims: usize) -> Vec<usize> {
    (0..dims).rev().map(|axis| v as usize / side.pow(axis as u32) % side).collect()
}

#[test]
fn a_torus_has_dims_times_l_to_the_dims_edges_each_to_a_neighbour() {
    for (dims, side) in [(2, 3), (2, 6), (3, 3), (3, 4), (3, 5)] {
        let g = generate::torus_nd(dims, side, EdgeWeights::Uniform(WeightRange { min: 1, max: 3 }), 7).unwrap();
        let n = side.pow(dims as u32);
        assert_eq!((g.vertices, g.edges.len()), (n, dims * n), "{dims}D side {side}");
        let mut degree = vec![0; n];
        let mut seen = std::collections::HashSet::new();
        for e in &g.edges {
            degree[e.u as usize] += 1;
            degree[e.v as usize] += 1;
            assert!(seen.insert((e.u.min(e.v), e.u.max(e.v))), "{dims}D side {side}: {e:?} twice");
            // Neighbours differ by one step (with wrap-around) along exactly one axis.
            let (a, b) = (coordinates(e.u, side, dims), coordinates(e.v, side, dims));
            let steps: Vec<usize> = (0..dims).filter(|&k| a[k] != b[k]).collect();
            assert_eq!(steps.len(), 1, "{e:?}");
            assert_eq!((a[steps[0]] + 1) % side, b[steps[0]], "{e:?}");
        }
        assert!(degree.iter().all(|&d| d == 2 * dims));
        // Even sides: the parity of the coordinate sum cuts every edge, which proves the optimum.
        if side.is_multiple_of(2) {
            let p = MaxCut::new(g.clone()).unwrap();
            let parity: Vec<u8> =
                (0..n as u32).map(|v| (coordinates(v, side, dims).iter().sum::<usize>() % 2) as u8).collect();
            assert_eq!(Some(p.evaluate(&parity)), g.optimum);
            assert_eq!(g.optimum, Some(g.total_weight().unwrap()));
        } else {
            assert_eq!(g.optimum, None);
        }
    }
    // Three dimensions name themselves so; 2D keeps the old names.
    assert_eq!(generate::torus_nd(3, 4, EdgeWeights::PlusMinusOne, 2).unwrap().name, "torus-4x4x4-pm1-s2");
    assert_eq!(generate::torus(4, WeightRange { min: 1, max: 2 }, 2).unwrap().name, "torus-4x4-s2");
    for (dims, side) in [(1, 5), (4, 5), (2, 2)] {
        assert!(generate::torus_nd(dims, side, EdgeWeights::PlusMinusOne, 1).is_err());
    }
}

#[test]
fn the_weight_distributions_are_what_they_say() {
    let pm = generate::torus_nd(2, 100, EdgeWeights::PlusMinusOne, 5).unwrap();
    let plus = pm.edges.weights().iter().filter(|&&w| w == 1).count();
    assert!(pm.edges.weights().iter().all(|&w| w == 1 || w == -1));
    // 20000 fair coins: within 5 standard deviations (70) of 10000.
    assert!((plus as i64 - 10_000).abs() < 350, "{plus}");
    assert_eq!(pm.optimum, None, "negative weights: no claim");
    let g = generate::torus_nd(2, 100, EdgeWeights::Gaussian, 5).unwrap();
    let w: Vec<f64> = g.edges.weights().iter().map(|&w| w as f64 / GAUSSIAN_SCALE).collect();
    let mean = w.iter().sum::<f64>() / w.len() as f64;
    let var = w.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / w.len() as f64;
    assert!(mean.abs() < 0.04 && (var.sqrt() - 1.0).abs() < 0.03, "mean {mean}, sd {}", var.sqrt());
    // Tails of a normal: about 4.6 % beyond 2 sd.
    let tails = w.iter().filter(|x| x.abs() > 2.0).count() as f64 / w.len() as f64;
    assert!((0.035..0.057).contains(&tails), "{tails}");
    assert_eq!(g.optimum, None);
    // Uniform weights from 0 up on an even side still prove the optimum (every edge cut).
    let zero = generate::torus_nd(3, 4, EdgeWeights::Uniform(WeightRange { min: 0, max: 1 }), 1).unwrap();
    assert_eq!(zero.optimum, Some(zero.total_weight().unwrap()));
}

fn pgomea(args: &[&str]) -> std::process::Output {
    Command::new(EXE).args(args).output().expect("the binary runs")
}

#[test]
fn generate_torus_states_its_optimum_and_run_reaches_it_as_best_known() {
    let d = scratch("cli");
    let even = d.join("even.txt");
    let o = pgomea(&["generate", "torus", "--side", "6", "--seed", "3", "-o", even.to_str().unwrap()]);
    assert!(o.status.success());
    let text = std::fs::read_to_string(&even).unwrap();
    let total: i64 = text.lines().skip(2).map(|l| l.split_whitespace().nth(2).unwrap().parse::<i64>().unwrap()).sum();
    assert_eq!(String::from_utf8_lossy(&o.stdout), format!("optimum {total}\n"));
    assert!(text.starts_with(&format!("c optimum {total}\n36 72\n")));
    // The same graph as before the optimum line existed: the generator's function, written.
    let g = generate::torus(6, WeightRange { min: 1, max: 5 }, 3).unwrap();
    assert_eq!(Graph::read(&even).unwrap().edges, g.edges);
    let o = pgomea(&["run", "--instance", even.to_str().unwrap(), "--target", "best-known", "--json", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["best_fitness"].as_i64(), v["best_known"].as_i64()), (Some(total), Some(total)));
    assert_eq!(v["reached_target"], true);
    // Odd sides and signed weights: no claim, no line; 3D; the optimum on stderr with stdout.
    for (args, dims) in [
        (&["--side", "5"][..], 2),
        (&["--side", "4", "--weights", "pm1"][..], 2),
        (&["--side", "4", "--dims", "3", "--weights", "gaussian"][..], 3),
    ] {
        let path = d.join("other.txt");
        let mut all = vec!["generate", "torus", "-o", path.to_str().unwrap()];
        all.extend_from_slice(args);
        let o = pgomea(&all);
        assert_eq!(String::from_utf8_lossy(&o.stdout), "optimum unknown\n", "{args:?}");
        let g = Graph::read(&path).unwrap();
        assert_eq!((g.optimum, g.edges.len()), (None, dims * g.vertices), "{args:?}");
    }
    let o = pgomea(&["generate", "torus", "--side", "4", "--dims", "3"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!("optimum {}\n", {
            generate::torus_nd(3, 4, EdgeWeights::Uniform(WeightRange { min: 1, max: 5 }), 1)
                .unwrap()
                .total_weight()
                .unwrap()
        })
    );
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("c optimum "));
    let o = pgomea(&["generate", "torus", "--side", "4", "--dims", "4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("2 or 3 dimensions"));
}

/// Writes a generated graph, reads it back through `load`, and checks every edge and the
/// optimum; returns the problem.
fn round_trip(graph: &Graph, path: &std::path::Path) -> Box<dyn GrayBoxProblem> {
    graph.write(path).unwrap();
    let p = load::read(path, None, &pgomea::stop::StopCheck::never()).unwrap();
    assert_eq!((p.variables(), p.subfunctions()), (graph.vertices, graph.edges.len()));
    assert_eq!(p.known_optimum(), graph.optimum);
    for (k, e) in graph.edges.iter().enumerate() {
        let Edge { u, v, w } = e;
        assert_eq!(p.subfunction_variables(k), &[u, v]);
        assert_eq!(p.functions().bounds(k), (w.min(0), w.max(0)));
    }
    p
}

#[test]
fn large_graphs_round_trip_through_the_file() {
    let d = scratch("round-trip");
    round_trip(&generate::torus_nd(2, 300, EdgeWeights::Gaussian, 4).unwrap(), &d.join("t2.txt"));
    round_trip(
        &generate::torus_nd(3, 40, EdgeWeights::Uniform(WeightRange { min: 1, max: 9 }), 4).unwrap(),
        &d.join("t3.txt"),
    );
    round_trip(&generate::random(100_000, 250_000, WeightRange { min: -5, max: 5 }, 4).unwrap(), &d.join("r.txt"));
}

/// 10^7 vertices: the torus of side 3163 and a random graph of degree 4.5 (a few GB of memory and
/// a minute on two cores). `cargo test --release --test graphs -- --ignored`.
#[test]
#[ignore]
fn graphs_of_ten_million_vertices_round_trip() {
    let d = scratch("ten-million");
    round_trip(&generate::torus(3163, WeightRange { min: 1, max: 5 }, 1).unwrap(), &d.join("t.txt"));
    round_trip(&generate::random(10_000_000, 22_500_000, WeightRange { min: 1, max: 5 }, 1).unwrap(), &d.join("r.txt"));
    let _ = std::fs::remove_dir_all(&d);
}
