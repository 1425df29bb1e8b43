//! The library's architecture, checked on its source: the modules of host/ form one-way layers
//! (stop -> error -> choice -> problem -> linkage -> gomea -> backend -> solve, each using only
//! those before it), no two modules import each other in a circle, and the library depends on
//! none of the command line's crates (clap, plotters, png, the font): those belong to the CLI
//! crate (the repository root), which Cargo keeps apart. Every `use` and every
//! `crate::`/`super::` path counts as an import; unit-test modules (`#[cfg(test)]` to the end of a
//! file) do not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 8] = ["stop", "error", "choice", "problem", "linkage", "gomea", "backend", "solve"];
/// Crates of the command line alone.
const APP_ONLY_CRATES: [&str; 4] = ["clap", "plotters", "png", "dejavu"];

/// The module path of a source file: host/src/gomea/parallel/mod.rs -> [gomea, parallel].
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments, string literals and its unit-test module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(k) => &text[..k],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let b: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if b[i] == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else { return vec![tree.to_string()] };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap()];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items.into_iter().filter(|s| !s.trim().is_empty()).flat_map(expand).map(|s| format!("{prefix}{s}")).collect()
}

/// Every path the code names that starts at `crate`, `super` or `self`, made absolute.
fn imports(code: &str, module: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    // `use` statements (taken out of the code), then paths written inline in what is left.
    let mut inline = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(k) = rest.find("use ") {
        let before_ok = k == 0 || !rest.as_bytes()[k - 1].is_ascii_alphanumeric() && rest.as_bytes()[k - 1] != b'_';
        inline.push_str(&rest[..k]);
        let tail = &rest[k + 4..];
        if !before_ok {
            inline.push_str("use ");
            rest = tail;
            continue;
        }
        let end = tail.find(';').unwrap_or(tail.len());
        paths.extend(expand(&tail[..end]));
        rest = &tail[end..];
    }
    inline.push_str(rest);
    let code = inline.as_str();
    for (k, _) in code.match_indices("crate::") {
        if k > 0
            && (code.as_bytes()[k - 1].is_ascii_alphanumeric()
                || code.as_bytes()[k - 1] == b'_'
                || code.as_bytes()[k - 1] == b':')
        {
            continue;
        }
        let p: String = code[k..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        paths.push(p);
    }
    let mut out = Vec::new();
    for p in paths {
        let segs: Vec<&str> = p.split("::").map(str::trim).filter(|s| !s.is_empty()).collect();
        let mut abs: Vec<String> = match segs.first() {
            Some(&"crate") => Vec::new(),
            // In a mod.rs (or lib.rs), `self` is the directory's module and `super` its parent.
            Some(&"self") => module.to_vec(),
            Some(&"super") => {
                let mut m = module.to_vec();
                if !is_mod_file || !m.is_empty() {
                    m.pop();
                }
                m
            }
            _ => continue,
        };
        let mut it = segs.iter().skip(1).peekable();
        while it.peek() == Some(&&"super") {
            abs.pop();
            it.next();
        }
        abs.extend(it.map(|s| s.split_whitespace().next().unwrap_or("").to_string()));
        out.push(abs);
    }
    out
}

#[test]
fn host_modules_are_one_way_layers_without_circles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("host").join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(&root, f), f.clone())).collect();
    assert!(modules.len() > 20, "found only {} modules under {}", modules.len(), root.display());
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let code = code(&text);
        let stem = file.file_stem().unwrap();
        let is_mod_file = stem == "mod" || stem == "lib";
        for krate in APP_ONLY_CRATES {
            if code.contains(&format!("{krate}::")) {
                problems.push(format!("{}: uses {krate}, which belongs to the command line", file.display()));
            }
        }
        for path in imports(&code, module, is_mod_file) {
            // The longest prefix of the path that is a module of the crate.
            let target = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains_key(p))
                .unwrap_or_default();
            if target == *module || target.is_empty() || module.starts_with(&target) && is_mod_file {
                continue;
            }
            if module.is_empty() {
                continue; // lib.rs re-exports the error type
            }
            edges.entry(module.clone()).or_default().insert(target);
        }
    }
    let layer = |m: &[String]| LAYERS.iter().position(|l| m.first().map(String::as_str) == Some(*l));
    for (from, tos) in &edges {
        let lf = layer(from).unwrap_or_else(|| panic!("module {} is in no layer", from.join("::")));
        for to in tos {
            let lt = layer(to).unwrap_or_else(|| panic!("module {} is in no layer", to.join("::")));
            if lt > lf {
                problems.push(format!(
                    "{} ({}) imports {} ({}): a lower layer may not use a higher one",
                    from.join("::"),
                    LAYERS[lf],
                    to.join("::"),
                    LAYERS[lt]
                ));
            }
        }
    }
    // Circles: depth-first search for a back edge.
    fn visit(
        m: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
        found: &mut Vec<String>,
    ) {
        state.insert(m.clone(), 1);
        stack.push(m.clone());
        for t in edges.get(m).into_iter().flatten() {
            match state.get(t).copied().unwrap_or(0) {
                0 => visit(t, edges, state, stack, found),
                1 => {
                    let start = stack.iter().position(|x| x == t).unwrap();
                    let circle: Vec<String> = stack[start..].iter().chain([t]).map(|x| x.join("::")).collect();
                    found.push(format!("import circle: {}", circle.join(" -> ")));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.clone(), 2);
    }
    let mut state = BTreeMap::new();
    for m in modules.keys() {
        if !state.contains_key(m) {
            visit(m, &edges, &mut state, &mut Vec::new(), &mut problems);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_library_does_not_depend_on_the_command_line_crates() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("host").join("Cargo.toml")).unwrap();
    let deps = manifest.split("[dependencies]").nth(1).expect("host/Cargo.toml has dependencies");
    let deps = deps.split("\n[").next().unwrap();
    for krate in APP_ONLY_CRATES {
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with(krate)),
            "host/Cargo.toml depends on {krate}, a crate of the command line"
        );
    }
}

/// What the library's code must not do (the faces decide these): read the process environment,
/// print, or end the process. A face reads a variable and passes its value
/// (`CudaTuning::from_variables`, `data::data_dir`).
const FACE_ONLY_CALLS: &[&str] = &[
    "env::var",
    "env::vars",
    "var_os",
    "println!",
    "eprintln!",
    "print!",
    "eprint!",
    "process::exit",
    "process::abort",
];

/// The calls of `FACE_ONLY_CALLS` in a file's code (comments, strings and unit tests left out).
fn face_only_calls(text: &str) -> Vec<&'static str> {
    let code = code(text);
    FACE_ONLY_CALLS.iter().copied().filter(|call| code.contains(call)).collect()
}

#[test]
fn the_library_reads_no_environment_prints_nothing_and_never_exits() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("host").join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let calls = face_only_calls(&std::fs::read_to_string(f).unwrap());
            calls.into_iter().map(move |c| format!("{}: {c}", f.display()))
        })
        .collect();
    assert!(found.is_empty(), "the library does what only a face may:\n{}", found.join("\n"));
    // The check itself sees such a call in code, and not in comments, strings or unit tests.
    assert!(face_only_calls("fn f() { let d = std::env::var_os(X); }").contains(&"var_os"));
    let loud = face_only_calls("fn f() { eprintln!(\"x\"); std::process::exit(2) }");
    assert!(loud.contains(&"eprintln!") && loud.contains(&"process::exit"), "{loud:?}");
    let quiet =
        "// println!(...)\nfn f() -> &'static str { \"env::var\" }\n#[cfg(test)]\nmod t { fn g() { print!(\"\") } }";
    assert!(face_only_calls(quiet).is_empty());
}

#[test]
fn the_checker_sees_circles_and_upward_imports() {
    // The parser itself: a use tree expands to its paths, relative paths resolve.
    let m = vec!["gomea".to_string(), "serial".to_string()];
    let got = imports(
        &code(
            "use crate::{error::{Error, Result}, problem::maxcut::MaxCut};\nuse super::run::Run;\nfn f() { crate::app::cli::main(None); }",
        ),
        &m,
        false,
    );
    let got: Vec<String> = got.into_iter().map(|p| p.join("::")).collect();
    assert_eq!(got, ["error::Error", "error::Result", "problem::maxcut::MaxCut", "gomea::run::Run", "app::cli::main"]);
    let m = vec!["gomea".to_string()];
    let got = imports("use super::error::Error; use self::run::Run;", &m, true);
    assert_eq!(got, [vec!["error".to_string(), "Error".into()], vec!["gomea".to_string(), "run".into(), "Run".into()]]);
}
