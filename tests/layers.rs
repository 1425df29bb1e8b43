//! The architecture, checked on the source: the modules of host/ form one-way layers (stop ->
//! error -> choice -> problem -> linkage -> gomea -> backend -> solve -> testing, each using only
//! those before it); in none of the three crates (device/, host/, the command line's src/) do modules
//! import each other in a circle; no source file has over 700 lines of code; and the library
//! depends on none of the command line's crates (clap, plotters, png, the font): those belong to
//! the CLI crate (the repository root), which Cargo keeps apart. Every `use` and every
//! `crate::`/`super::` path counts as an import; unit tests (`#[cfg(test)]` items) do not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 9] = ["stop", "error", "choice", "problem", "linkage", "gomea", "backend", "solve", "testing"];
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

/// The code of a file without comments, the contents of string and character literals, and its
/// unit tests (every `#[cfg(test)]` item: a test module, or a helper compiled for tests only).
/// What is left out keeps its line breaks, so that the lines of the result are the file's lines.
fn code(text: &str) -> String {
    without_tests(&without_comments_and_literals(text))
}

/// The line breaks of `cs`: what stands for a piece of text that is left out.
fn breaks(cs: &[char]) -> String {
    "\n".repeat(cs.iter().filter(|&&c| c == '\n').count())
}

fn without_comments_and_literals(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let from = i;
        if b[i..].starts_with(&['/', '/']) {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if b[i..].starts_with(&['/', '*']) {
            // Block comments nest.
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(&['/', '*']) {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push_str(&breaks(&b[from..i.min(b.len())]));
        } else if b[i] == 'r'
            && (i == 0 || !b[i - 1].is_alphanumeric() && b[i - 1] != '_')
            && b[i + 1..].iter().find(|&&c| c != '#') == Some(&'"')
        {
            // A raw string, r#"..."#: it ends at a quote followed by as many hashes.
            let hashes = b[i + 1..].iter().take_while(|&&c| c == '#').count();
            let closing: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            i += 2 + hashes;
            while i < b.len() && !b[i..].starts_with(&closing) {
                i += 1;
            }
            i = (i + closing.len()).min(b.len());
            out.push_str("\"\"");
            out.push_str(&breaks(&b[from..i]));
        } else if b[i] == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.push_str("\"\"");
            out.push_str(&breaks(&b[from..i]));
        } else if b[i] == '\'' && (b.get(i + 1) == Some(&'\\') || b.get(i + 2) == Some(&'\'')) {
            // A character literal ('{', '\n', '\u{7f}'); a lifetime ('a) has no closing quote.
            i += 2;
            while i < b.len() && b[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// `code` without its `#[cfg(test)]` items. An item ends at its first `;` outside brackets, or
/// at the bracket that closes its first brace.
fn without_tests(code: &str) -> String {
    const ATTRIBUTE: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(k) = rest.find(ATTRIBUTE) {
        out.push_str(&rest[..k]);
        let item = &rest[k + ATTRIBUTE.len()..];
        let (mut depth, mut end) = (0, item.len());
        for (j, c) in item.char_indices() {
            match c {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => depth -= 1,
                ';' if depth == 0 => {}
                _ => continue,
            }
            if depth == 0 && (c == ';' || c == '}') {
                end = j + 1;
                break;
            }
        }
        out.push_str(&breaks(&item[..end].chars().collect::<Vec<_>>()));
        rest = &item[end..];
    }
    out.push_str(rest);
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

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The modules a file declares inline (`mod name { ... }`): where each one's body lies, and its
/// name. Nested ones come after the one around them.
fn inline_modules(code: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for (k, _) in code.match_indices("mod ") {
        if k > 0 && is_ident(b[k - 1]) {
            continue;
        }
        let after = &code[k + 4..];
        let name: String = after.chars().take_while(|&c| is_ident(c as u8)).collect();
        let Some(open) = after[name.len()..].trim_start().strip_prefix('{').map(|r| code.len() - r.len() - 1) else {
            continue;
        };
        let mut depth = 0;
        let mut close = code.len();
        for (j, c) in code[open..].char_indices() {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            if depth == 0 {
                close = open + j;
                break;
            }
        }
        out.push((open..close, name));
    }
    out
}

/// Every path the code names that starts at `crate`, `super` or `self`, made absolute: those of
/// its `use` trees, then those written inline. A path inside an inline module (`mod m { ... }`)
/// is read from that module.
fn imports(code: &str, module: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    // (where, path) of every path named.
    let mut paths: Vec<(usize, String)> = Vec::new();
    let mut uses = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find("use ").map(|k| k + from) {
        from = k + 4;
        if k > 0 && is_ident(b[k - 1]) {
            continue;
        }
        let end = code[k..].find(';').map_or(code.len(), |e| k + e);
        paths.extend(expand(&code[k + 4..end]).into_iter().map(|p| (k, p)));
        uses.push(k..end);
        from = end;
    }
    for prefix in ["crate::", "super::"] {
        for (k, _) in code.match_indices(prefix) {
            if k > 0 && (is_ident(b[k - 1]) || b[k - 1] == b':') || uses.iter().any(|u| u.contains(&k)) {
                continue;
            }
            let p: String = code[k..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            paths.push((k, p));
        }
    }
    let inline = inline_modules(code);
    let mut out = Vec::new();
    for (at, p) in paths {
        // The module the path is written in: the file's, or an inline one in it.
        let mut here = module.to_vec();
        let mut here_is_mod_file = is_mod_file;
        for (body, name) in &inline {
            if body.contains(&at) {
                here.push(name.clone());
                here_is_mod_file = false;
            }
        }
        let segs: Vec<&str> = p.split("::").map(str::trim).filter(|s| !s.is_empty()).collect();
        let mut abs: Vec<String> = match segs.first() {
            Some(&"crate") => Vec::new(),
            // In a mod.rs (or lib.rs), `self` is the directory's module and `super` its parent.
            Some(&"self") => here,
            Some(&"super") => {
                let mut m = here;
                if !here_is_mod_file || !m.is_empty() {
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

/// The modules of a crate (its source files, by module path) and which modules each imports.
struct ModuleGraph {
    modules: BTreeMap<Vec<String>, PathBuf>,
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

/// The module graph of the crate whose sources are under `root` (its lib.rs imports count for
/// nothing: it declares the modules and re-exports).
fn module_graph(root: &Path) -> ModuleGraph {
    let mut files = Vec::new();
    sources(root, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(root, f), f.clone())).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, file) in &modules {
        if module.is_empty() {
            continue;
        }
        let code = code(&std::fs::read_to_string(file).unwrap());
        let stem = file.file_stem().unwrap();
        let is_mod_file = stem == "mod" || stem == "lib";
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
            edges.entry(module.clone()).or_default().insert(target);
        }
    }
    ModuleGraph { modules, edges }
}

/// Every import circle of `edges`, each named by its modules (`a -> b -> a`): a depth-first
/// search reports each edge back to a module still on its path.
fn circles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
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
    let mut found = Vec::new();
    let mut state = BTreeMap::new();
    for m in edges.keys() {
        if !state.contains_key(m) {
            visit(m, edges, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

/// The import circles among the modules of the crate under `dir` (relative to the repository).
fn circles_of(dir: &str, at_least: usize) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let graph = module_graph(&root);
    assert!(graph.modules.len() >= at_least, "found only {} modules under {}", graph.modules.len(), root.display());
    circles(&graph.edges).into_iter().map(|c| format!("{dir}: {c}")).collect()
}

#[test]
fn host_modules_are_one_way_layers_without_circles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("host").join("src");
    let ModuleGraph { modules, edges } = module_graph(&root);
    assert!(modules.len() > 20, "found only {} modules under {}", modules.len(), root.display());
    let mut problems = Vec::new();
    for file in modules.values() {
        let code = code(&std::fs::read_to_string(file).unwrap());
        for krate in APP_ONLY_CRATES {
            if code.contains(&format!("{krate}::")) {
                problems.push(format!("{}: uses {krate}, which belongs to the command line", file.display()));
            }
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
    problems.extend(circles(&edges));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn device_modules_import_no_circle() {
    let found = circles_of("device/src", 15);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn command_line_modules_import_no_circle() {
    let found = circles_of("src", 12);
    assert!(found.is_empty(), "{}", found.join("\n"));
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

/// The command-line flags (`--time-limit`) that `text` names, in code, strings or comments; a
/// line that runs cargo names cargo's own.
fn flags_named(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines().filter(|l| !l.contains("cargo ")) {
        let mut rest = line;
        while let Some(at) = rest.find("--") {
            let flag: String = rest[at + 2..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '-').collect();
            // A flag starts a word: `a--b` is no flag.
            let starts_word = !rest[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '-');
            if starts_word && flag.starts_with(|c: char| c.is_ascii_lowercase()) {
                found.push(format!("--{flag}"));
            }
            rest = &rest[at + 2..];
        }
    }
    found
}

#[test]
fn the_library_names_no_command_line_flag() {
    // Its messages and docs name the library's options (`time_limit`, `instances_dir`); each face
    // spells them. The option table alone holds each run option's flag, from which the CLI follows.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("host").join("src");
    let table = root.join("solve").join("options.rs");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let found: Vec<String> = files
        .iter()
        .filter(|f| **f != table)
        .flat_map(|f| {
            let flags = flags_named(&std::fs::read_to_string(f).unwrap());
            flags.into_iter().map(move |flag| format!("{}: {flag}", f.display()))
        })
        .collect();
    assert!(found.is_empty(), "the library names command-line flags:\n{}", found.join("\n"));
    assert_eq!(flags_named("Err(\"--instances-dir {}: no such directory\")"), ["--instances-dir"]);
    assert_eq!(flags_named("/// (`--target best-known`), or --no-flag"), ["--target", "--no-flag"]);
    assert!(flags_named("// cargo run --release -p pgomea").is_empty());
    assert!(flags_named("x -- y; a--b; 1 --2; `---`").is_empty());
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
    // In an inline module, `super` is the file's module; inline paths count like `use` paths.
    let m = vec!["experiment".to_string(), "store".to_string()];
    let text =
        "use super::studies::Study;\nmod legacy {\n    use super::RunRecord;\n}\nfn f(t: &super::plot::Figure) {}";
    let got: Vec<String> = imports(&code(text), &m, false).into_iter().map(|p| p.join("::")).collect();
    assert_eq!(got, ["experiment::studies::Study", "experiment::store::RunRecord", "experiment::plot::Figure"]);
}

#[test]
fn the_circle_finder_names_every_circle() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (a, b) in pairs {
            let path = |m: &str| m.split("::").map(String::from).collect::<Vec<_>>();
            edges.entry(path(a)).or_default().insert(path(b));
        }
        edges
    };
    // One way: no circle, however many paths lead to one module.
    assert!(circles(&graph(&[("a", "b"), ("a", "c"), ("b", "c"), ("c", "d::e")])).is_empty());
    // Two modules importing each other, and a longer circle elsewhere.
    let found = circles(&graph(&[
        ("kernel_names", "problem"),
        ("problem", "kernel_names"),
        ("x", "y::z"),
        ("y::z", "w"),
        ("w", "x"),
        ("w", "problem"),
    ]));
    assert_eq!(
        found,
        ["import circle: kernel_names -> problem -> kernel_names", "import circle: w -> x -> y::z -> w"],
        "{found:?}"
    );
}

#[test]
fn code_leaves_out_comments_literals_and_unit_tests() {
    let text = "use a::b; // use c::d;\n/* use e::f;\n /* nested */ */\nconst S: &str = \"x;\n{\";\n\
                const R: &str = r#\"\"use g::h;\"#;\nconst C: char = '{';\nfn f<'a>(x: &'a str) {}\n\
                #[cfg(test)]\nfn helper() { let s = \"}\"; }\nfn kept() {}\n#[cfg(test)]\nmod t;\n\
                #[cfg(test)]\nmod tests {\n    use super::*;\n    fn g() { h(&[1]); }\n}\nfn last() {}\n";
    let got = code(text);
    assert_eq!(got.lines().count(), text.lines().count(), "{got}");
    let kept: Vec<&str> = got.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    assert_eq!(
        kept,
        [
            "use a::b;",
            "const S: &str = \"\"",
            ";",
            "const R: &str = \"\";",
            "const C: char = ' ';",
            "fn f<'a>(x: &'a str) {}",
            "fn kept() {}",
            "fn last() {}"
        ],
        "{got}"
    );
}

/// The most lines of code a source file of device/, host/ or src/ may have: beyond it a file
/// holds more than one concern (issue 54).
const MAX_LINES_OF_CODE: usize = 700;

/// The lines of a file's code: neither blank nor comment, and outside its unit tests.
fn lines_of_code(text: &str) -> usize {
    code(text).lines().filter(|l| !l.trim().is_empty()).count()
}

#[test]
fn no_source_file_has_over_700_lines_of_code() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut over = Vec::new();
    for dir in ["device/src", "host/src", "src"] {
        let mut files = Vec::new();
        sources(&repo.join(dir), &mut files);
        for file in files {
            let name = file.strip_prefix(repo).unwrap().to_string_lossy().into_owned();
            let n = lines_of_code(&std::fs::read_to_string(&file).unwrap());
            if n > MAX_LINES_OF_CODE {
                over.push(format!("{name}: {n} lines of code (at most {MAX_LINES_OF_CODE})"));
            }
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
    assert_eq!(
        lines_of_code("// a\n\nfn f() {\n    g(); // h\n}\n/// doc\n#[cfg(test)]\nmod t {\n    fn x() {}\n}\n"),
        3
    );
}
