//! Decisions are recorded once, in `docs/decisions/NNNN-title.md`, and the code cites them there:
//! no source file, script or CI file cites a section of the retired results log
//! (`benchmarks/RESULTS.md`), every record path that one cites exists, and every record is listed
//! in the records' index with the parts every record has.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What is scanned: (folder, the file names' endings it takes; empty: every file).
const SCANNED: [(&str, &[&str]); 8] = [
    ("host", &[".rs", ".py"]),
    ("device", &[".rs", ".py"]),
    ("src", &[".rs", ".py"]),
    ("tests", &[".rs", ".py"]),
    ("python", &[".rs", ".py"]),
    ("benchmarks", &[".py", ".sh"]),
    ("scripts", &[]),
    (".ci", &[]),
];

/// Files that name the citation patterns in order to check them: this test and the documents'
/// check of the CI.
const CHECKERS: [&str; 2] = ["tests/decisions.rs", ".ci/check-docs"];

/// Folders never scanned: build outputs, caches and virtual environments.
const SKIPPED_DIRS: [&str; 6] = ["target", "build", "dist", "node_modules", "__pycache__", "site-packages"];

const RECORDS: &str = "docs/decisions";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, endings: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_str()) {
                files(&path, endings, out);
            }
        } else if endings.is_empty() || endings.iter().any(|e| name.ends_with(e)) {
            out.push(path);
        }
    }
}

/// The scanned files, as (path relative to the repository, text); files that are not UTF-8 text
/// are left out (no citation can hide in them that a reader would see).
fn scanned() -> Vec<(String, String)> {
    let root = root();
    let mut paths = Vec::new();
    for (dir, endings) in SCANNED {
        files(&root.join(dir), endings, &mut paths);
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).ok()?;
            (!CHECKERS.contains(&rel.as_str())).then_some((rel, text))
        })
        .collect()
}

/// Whether `word` occurs in `line` as a word of its own (not inside an identifier).
fn has_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word).any(|(i, _)| {
        !line[..i].chars().next_back().is_some_and(ident) && !line[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// Whether `line` cites a section of the results log: it names the log (`RESULTS`, `RESULTS.md`,
/// `results.md`), or a numbered section ("section 60", "Sections 46 and 47") without naming another
/// document (the paper, ARCHITECTURE.md).
fn cites_results(line: &str) -> bool {
    let lower = line.to_lowercase();
    if has_word(line, "RESULTS") || lower.contains("results.md") {
        return true;
    }
    let numbered = ["section ", "sections "].iter().any(|s| {
        lower.match_indices(s).any(|(i, _)| {
            !lower[..i].chars().next_back().is_some_and(char::is_alphanumeric)
                && lower[i + s.len()..].chars().next().is_some_and(|c| c.is_ascii_digit())
        })
    });
    numbered && !lower.contains("paper") && !lower.contains("architecture")
}

/// The record paths `text` cites, with their line numbers: every `docs/decisions/` followed by a
/// digit, up to the end of the path (a malformed one is returned as it is, and then not found).
fn cited_records(text: &str) -> Vec<(usize, String)> {
    let prefix = "docs/decisions/";
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (i, _) in line.match_indices(prefix) {
            let rest = &line[i + prefix.len()..];
            if !rest.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.')).unwrap_or(rest.len());
            out.push((n + 1, format!("{prefix}{}", rest[..end].trim_end_matches('.'))));
        }
    }
    out
}

/// A record's file name, `NNNN-kebab-title.md`: its number.
fn record_number(name: &str) -> Option<u32> {
    let (number, rest) = name.split_once('-')?;
    let slug = rest.strip_suffix(".md")?;
    let kebab = !slug.is_empty() && slug.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    (number.len() == 4 && number.bytes().all(|b| b.is_ascii_digit()) && kebab).then(|| number.parse().ok())?
}

fn records() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join(RECORDS))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(|c: char| c.is_ascii_digit()) && n.ends_with(".md"))
        .collect();
    names.sort();
    names
}

#[test]
fn the_detector_tells_results_citations_from_other_sections() {
    for cited in [
        "/// 1.70 to 1.31 s (RESULTS.md section 60).",
        "// (benchmarks/RESULTS.md, sections 46 and 47)",
        "# had left them at 64 (RESULTS 74).",
        "/// and the colouring (section 77 of the log).",
        "/// Section 40 (H100) chose 4.",
        "(results.md, section 11.1)",
    ] {
        assert!(cites_results(cited), "not seen as a citation: {cited}");
    }
    for other in [
        "//! the studies of section 6 of the paper",
        "/// Run a study of the paper's section 6.",
        "//! fills them (ARCHITECTURE.md, section 4).",
        "let MAX_RESULTS = 3; // RESULTS_DIR",
        "/// cite `docs/decisions/0007-anneal-share.md` (a section of the guide)",
        "/// the intersection 4 of the sets",
    ] {
        assert!(!cites_results(other), "seen as a citation: {other}");
    }
    assert_eq!(
        cited_records("x (`docs/decisions/0007-anneal-share.md`). docs/decisions/ and docs/decisions/12-x.md."),
        [(1, "docs/decisions/0007-anneal-share.md".to_string()), (1, "docs/decisions/12-x.md".to_string())]
    );
    assert_eq!(record_number("0007-anneal-share.md"), Some(7));
    assert_eq!(record_number("7-anneal-share.md"), None);
    assert_eq!(record_number("0007-Anneal_share.md"), None);
    assert_eq!(record_number("index.md"), None);
}

#[test]
fn no_code_comment_cites_a_results_section() {
    let files = scanned();
    assert!(files.iter().any(|(p, _)| p == "host/src/solve/config.rs"), "the scan found no sources");
    let mut problems = Vec::new();
    for (path, text) in &files {
        for (n, line) in text.lines().enumerate() {
            if cites_results(line) {
                problems.push(format!(
                    "{path}:{}: cites the results log, not a decision record: {}",
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} citation(s) of the results log; say why in a sentence and cite a record (docs/decisions/NNNN-title.md):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn every_cited_record_exists() {
    let root = root();
    let mut texts = scanned();
    if let Ok(text) = std::fs::read_to_string(root.join("ARCHITECTURE.md")) {
        texts.push(("ARCHITECTURE.md".into(), text));
    }
    let mut cited = 0;
    let mut problems = Vec::new();
    for (path, text) in &texts {
        for (line, record) in cited_records(text) {
            cited += 1;
            let name = record.trim_start_matches("docs/decisions/");
            if record_number(name).is_none() || !root.join(&record).is_file() {
                problems.push(format!("{path}:{line}: {record}: no such decision record"));
            }
        }
    }
    assert!(cited > 0, "no file cites a decision record");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_record_is_listed_in_the_index_and_has_its_parts() {
    let dir = root().join(RECORDS);
    let index = std::fs::read_to_string(dir.join("index.md")).expect("docs/decisions/index.md");
    let names = records();
    assert!(!names.is_empty(), "no decision records in {RECORDS}");
    let mut numbers = BTreeMap::new();
    let mut problems = Vec::new();
    for name in &names {
        let at = format!("{RECORDS}/{name}");
        let Some(number) = record_number(name) else {
            problems.push(format!("{at}: not named NNNN-kebab-title.md"));
            continue;
        };
        if let Some(other) = numbers.insert(number, name) {
            problems.push(format!("{at}: number {number:04} is also {other}'s"));
        }
        if !index.contains(&format!("({name})")) {
            problems.push(format!("{at}: not listed in {RECORDS}/index.md"));
        }
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let mut lines = text.lines();
        if !lines.next().is_some_and(|l| l.starts_with(&format!("# {number:04}. "))) {
            problems.push(format!("{at}:1: the title is not `# {number:04}. Title`"));
        }
        if !text.lines().any(|l| {
            l.strip_prefix("Date: ").is_some_and(|d| {
                d.len() == 10
                    && d.char_indices().all(|(i, c)| if i == 4 || i == 7 { c == '-' } else { c.is_ascii_digit() })
            })
        }) {
            problems.push(format!("{at}: no `Date: YYYY-MM-DD` line"));
        }
        for part in ["## Question", "## Decision", "## Numbers"] {
            if !text.lines().any(|l| l.trim_end() == part) {
                problems.push(format!("{at}: no `{part}`"));
            }
        }
    }
    // Listed records exist (a renamed record leaves no dead row).
    for (n, line) in index.lines().enumerate() {
        for (i, _) in line.match_indices("](") {
            let target = &line[i + 2..];
            let target = &target[..target.find(')').unwrap_or(target.len())];
            if record_number(target).is_some() && !names.iter().any(|m| m == target) {
                problems.push(format!("{RECORDS}/index.md:{}: {target}: no such record", n + 1));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
