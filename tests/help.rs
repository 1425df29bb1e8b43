//! The help of every command fits a screen or two: `-h` is at most 4,000 characters with no line
//! over 160 (one line per option; `--help` has the long text, which states no measured figure:
//! those live in the guide's benchmarks chapter and the decision records it cites).

use std::process::Command;

use clap::CommandFactory;
use pgomea_cli::cli::Cli;

/// The most characters of a command's `-h`.
const MOST_CHARACTERS: usize = 4000;

/// The longest line of a command's `-h`.
const LONGEST_LINE: usize = 160;

/// The binary's help for the command at `path` (`-h` or `--help`).
fn help(path: &[String], flag: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_pgomea")).args(path).arg(flag).output().expect("the binary runs");
    assert!(o.status.success(), "{path:?} {flag}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("the help is UTF-8")
}

/// The path of every command below `cmd` (`path` is `cmd`'s own), subcommands of subcommands
/// included.
fn commands(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
    for sub in cmd.get_subcommands() {
        let mut p = path.clone();
        p.push(sub.get_name().to_string());
        commands(sub, p, out);
    }
    out.push(path);
}

#[test]
fn every_commands_short_help_fits_a_screen_or_two() {
    let mut paths = Vec::new();
    commands(&Cli::command(), Vec::new(), &mut paths);
    // The binary, run, info, generate and its six shapes, devices, selftest, bench and its two,
    // experiment, merge.
    assert!(paths.len() >= 17, "{paths:?}");
    let mut too_long = Vec::new();
    for path in &paths {
        let h = help(path, "-h");
        let chars = h.chars().count();
        let longest = h.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        if chars > MOST_CHARACTERS || longest > LONGEST_LINE {
            too_long.push(format!("pgomea {} -h: {chars} characters, a line of {longest}", path.join(" ")));
        }
    }
    assert!(
        too_long.is_empty(),
        "at most {MOST_CHARACTERS} characters, no line over {LONGEST_LINE}:\n{}",
        too_long.join("\n")
    );
}

/// The measured figures in `text`, each with its line: a speed-up (`1.3x`), a share (`12%`), a
/// time in milliseconds or microseconds, `N times`, or the GPU it was measured on. A rule's own
/// numbers (`within 0.5 s`, `10^5 variables`, `max(1 s, ...)`) are not figures.
fn measured_figures(text: &str) -> Vec<String> {
    let number = |w: &str| !w.is_empty() && w.replace(',', "").parse::<f64>().is_ok();
    let mut found = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> =
            line.split_whitespace().map(|w| w.trim_matches(|c: char| "()[],;:.".contains(c))).collect();
        for (i, &w) in words.iter().enumerate() {
            let after_number = i > 0 && number(words[i - 1]);
            let figure =
                ["x", "\u{d7}", "%", "ms", "\u{b5}s"].iter().any(|unit| w.strip_suffix(unit).is_some_and(number))
                    || (after_number && ["%", "ms", "\u{b5}s", "times"].contains(&w))
                    || ["H100", "H200", "A100"].contains(&w);
            if figure {
                found.push(format!("{w:?} in: {}", line.trim()));
            }
        }
    }
    found
}

#[test]
fn no_long_help_states_a_measured_figure() {
    // The check finds figures where there are some, and takes a rule's numbers for none.
    let figures = measured_figures("1.3x faster (12% fewer), 40 ms, 3 times as many on an H100");
    assert_eq!(figures.len(), 5, "{figures:#?}");
    assert!(measured_figures("within 0.5 s of the limit; --anneal-sweeps x G^i; 10^5 variables; 0.75").is_empty());
    let mut paths = Vec::new();
    commands(&Cli::command(), Vec::new(), &mut paths);
    let found: Vec<String> = paths
        .iter()
        .flat_map(|path| {
            measured_figures(&help(path, "--help")).into_iter().map(move |f| format!("pgomea {}: {f}", path.join(" ")))
        })
        .collect();
    assert!(
        found.is_empty(),
        "measured figures belong in the guide's benchmarks chapter, not in --help:\n{}",
        found.join("\n")
    );
}

#[test]
fn run_short_help_is_one_line_per_option_under_headings_and_long_help_has_the_details() {
    let run = vec!["run".to_string()];
    let short = help(&run, "-h");
    for heading in ["Instance:", "Algorithm:", "Backend:", "Hybrid:", "Stopping:", "Output:"] {
        assert!(short.lines().any(|l| l == heading), "no heading {heading}:\n{short}");
    }
    let cli = Cli::command();
    let command = cli.find_subcommand("run").expect("run");
    let mut options = 0;
    for arg in command.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        let flag = format!("--{long}");
        // The option's line starts with its flag (after a short one such as `-q,`), and no other
        // line does: the summary stays on it.
        let starts = |line: &str| {
            let line = line.trim_start();
            let line = if line.starts_with("--") { line } else { line.split_once(", ").map_or(line, |(_, l)| l) };
            line.split(' ').next() == Some(flag.as_str())
        };
        let lines = short.lines().filter(|l| starts(l)).count();
        assert_eq!(lines, 1, "{flag} on {lines} lines of `run -h`:\n{short}");
        options += 1;
    }
    assert!(options >= 30, "{options} options");
    // `--help` has each option's details, and a default's reason cites a decision record.
    let long = help(&run, "--help");
    assert!(long.len() > 3 * short.len(), "{} against {}", long.len(), short.len());
    for detail in
        ["decision record 0017", "Exit status: 0 done", "runs GOM on colour groups of independent linkage sets at once"]
    {
        assert!(long.contains(detail), "`run --help` lacks {detail:?}:\n{long}");
    }
}

#[test]
fn the_guides_option_page_is_the_librarys_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/cli/options.md");
    let page = pgomea_cli::args::options_markdown();
    if std::env::var_os("PGOMEA_BLESS").is_some() {
        std::fs::write(&path, &page).expect("the guide's option page is writable");
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == page,
        "{} is not the table of run options: regenerate it with `PGOMEA_BLESS=1 cargo test --release --test help`",
        path.display()
    );
    // Every option is on it, by both its spellings.
    for o in pgomea::solve::options::RUN_OPTIONS {
        assert!(page.contains(&format!("| `{}` |", o.name)), "{}", o.name);
    }
}
