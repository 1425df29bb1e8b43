//! Times the instance readers on large files (issue 16: parsing near I/O speed).
//!
//! cargo run --release --example read_bench -- --make DIR
//!     writes the benchmark files: planted 3-SAT `sat.cnf` (n = 10^6, m = 4.26 x 10^6), the same
//!     clauses weighted `sat.wcnf` (classic, weights 1..100, every 10th clause hard) and
//!     `sat2022.wcnf` (the 2022 format), a random-neighbourhood NK landscape `nk.nk`
//!     (n = 10^6, k = 5) and the same in the MK format, `nk.mk`.
//! cargo run --release --example read_bench -- FILE... [--repeat R]
//!     reads each file R times (default 3) and prints the best time of the bytes alone (the I/O
//!     and UTF-8 check) and of the whole read (bytes, text and parse).

use std::path::{Path, PathBuf};
use std::time::Instant;

use pgomea::problem::maxsat::{self, MaxSat, SatFormat};
use pgomea::problem::{mk, nk};

fn make(dir: &Path) {
    std::fs::create_dir_all(dir).expect("the folder");
    let (sat, _) = maxsat::planted_3sat(1_000_000, 4_260_000, 1).expect("3-SAT");
    sat.write(&dir.join("sat.cnf")).expect("sat.cnf");
    let clauses: Vec<(i64, Vec<u32>)> = (0..sat.clauses())
        .map(|s| (if s % 10 == 0 { 1_000_000_000 } else { 1 + (s as i64 * 7919) % 100 }, sat.clause(s).0.to_vec()))
        .collect();
    let hard: Vec<bool> = (0..clauses.len()).map(|s| s % 10 == 0).collect();
    let weighted =
        MaxSat::new("sat-weighted", SatFormat::Wcnf, 1_000_000, &clauses, hard, Some(1_000_000_000)).expect("wcnf");
    weighted.write(&dir.join("sat.wcnf")).expect("sat.wcnf");
    // The 2022 format: the classic text without its header, `h` for the weight of hard clauses.
    let text = weighted.to_text();
    let modern: String = text
        .lines()
        .filter(|l| !l.starts_with('p'))
        .map(|l| match l.strip_prefix("1000000000 ") {
            Some(rest) => format!("h {rest}\n"),
            None => format!("{l}\n"),
        })
        .collect();
    std::fs::write(dir.join("sat2022.wcnf"), modern).expect("sat2022.wcnf");
    let nk = nk::random_neighbourhood(1_000_000, 5, 1).expect("NK");
    nk.write(&dir.join("nk.nk")).expect("nk.nk");
    std::fs::write(dir.join("nk.mk"), mk::to_text(&nk)).expect("nk.mk");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, dir] = &args[..]
        && flag == "--make"
    {
        make(Path::new(dir));
        return;
    }
    let mut repeat = 3;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--repeat" {
            repeat = it.next().and_then(|s| s.parse().ok()).expect("--repeat R");
        } else {
            files.push(PathBuf::from(a));
        }
    }
    assert!(!files.is_empty(), "usage: read_bench --make DIR | read_bench FILE... [--repeat R]");
    for path in files {
        let mut bytes_s = f64::INFINITY;
        let mut read_s = f64::INFINITY;
        let mut size = 0;
        let mut summary = String::new();
        for _ in 0..repeat {
            let t = Instant::now();
            let bytes = std::fs::read(&path).expect("readable");
            std::str::from_utf8(&bytes).expect("UTF-8");
            bytes_s = bytes_s.min(t.elapsed().as_secs_f64());
            size = bytes.len();
            drop(bytes);
            let t = Instant::now();
            let p = pgomea::problem::load::read(&path, None, &pgomea::stop::StopCheck::never())
                .unwrap_or_else(|e| panic!("{e}"));
            read_s = read_s.min(t.elapsed().as_secs_f64());
            summary = format!("{} variables, {} subfunctions", p.variables(), p.subfunctions());
        }
        println!(
            "{}: {:.1} MB, {summary}: bytes {bytes_s:.3} s, read {read_s:.3} s ({:.0} MB/s)",
            path.display(),
            size as f64 / 1e6,
            size as f64 / 1e6 / read_s
        );
    }
}
