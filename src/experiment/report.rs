//! What a result directory gets from its records: the summary files and the figures.

use std::path::Path;

use super::plot::{self, Figure, Series};
use super::store::{self, RunRecord};
use super::studies::{self, Study};
use super::summary::{self, Summary};
use pgomea::error::{Error, Result};
use pgomea::solve::Algorithm;

/// Writes summary.csv, summary.json (and speedup.csv), and the figures, of every record.
pub fn write_summary(dir: &Path, records: &[RunRecord], figures: bool) -> Result<Summary> {
    let s = summary::summarize(records);
    let json = serde_json::to_vec_pretty(&s).map_err(|e| Error::usage(format!("JSON: {e}")))?;
    store::write_atomic(&dir.join("summary.json"), &json)?;
    store::write_atomic(&dir.join("summary.csv"), summary::summary_csv(&s).as_bytes())?;
    if !s.speedup.is_empty() {
        store::write_atomic(&dir.join("speedup.csv"), summary::speedup_csv(&s).as_bytes())?;
    }
    if figures {
        write_figures(&dir.join("figures"), records, &s)?;
    }
    Ok(s)
}

fn study_title(study: &str) -> &'static str {
    match Study::from_name(study) {
        Some(Study::ImsPopsize) => "Parallel GOMEA (FLT), IMS base population",
        Some(Study::Scalability) => "Time to the optimum",
        Some(Study::Convergence) | Some(Study::Speedup) => "Serial vs parallel GOMEA",
        Some(Study::LinkageModels) => "Serial GOMEA, linkage models",
        Some(Study::FosOrder) => "Serial GOMEA, FOS order and FI",
        Some(Study::Hybrid) => "Parallel GOMEA, paper vs hybrid (FI, local search)",
        None => "Runs",
    }
}

/// The legend label of a group: the variant, with the backend for parallel GOMEA.
fn legend(g: &[&RunRecord]) -> String {
    let r = g[0];
    let name = match r.variant.as_str() {
        "serial" => "serial GOMEA".to_string(),
        "parallel" => "parallel GOMEA".to_string(),
        v if v.starts_with("nbase") => format!("n_base = {}", &v[5..]),
        "lt" => "learned LT".into(),
        "flt" => "FLT".into(),
        "bflt10" => "BFLT 10".into(),
        "bflt100" => "BFLT 100".into(),
        "random-fi" => "random order, FI".into(),
        "random-nofi" => "random order, no FI".into(),
        "colored-fi" => "colour-group order, FI".into(),
        "colored-nofi" => "colour-group order, no FI".into(),
        studies::ANNEAL_ONLY => "annealing alone, no GOM (control)".into(),
        studies::ANNEAL_ONLY_MIX => "annealing and partition mixing, no GOM generation".into(),
        v => v.to_string(),
    };
    if r.config.algorithm == Algorithm::Parallel {
        let mut b: Vec<&str> = g.iter().map(|r| r.backend_used.split(' ').next().unwrap_or("")).collect();
        b.sort();
        b.dedup();
        format!("{name} [{}]", b.join(", "))
    } else {
        name
    }
}

/// Every figure of the records: fitness over time per (study, instance); time to the optimum
/// against size per (scalability, set); the speed-up per study.
pub fn write_figures(dir: &Path, records: &[RunRecord], s: &Summary) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let groups = summary::groups(records);
    let y_label = "best fitness (median, 10-90th percentile)";
    for study in &s.studies {
        let mine: Vec<&Vec<&RunRecord>> = groups.iter().filter(|g| &g[0].study == study).collect();
        if study == Study::Scalability.name() {
            let mut sets: Vec<String> = mine.iter().map(|g| g[0].instance_set.clone()).collect();
            sets.sort();
            sets.dedup();
            for set in sets {
                let mut variants: Vec<(String, Vec<&RunRecord>)> = Vec::new();
                for g in mine.iter().filter(|g| g[0].instance_set == set) {
                    match variants.iter_mut().find(|(v, _)| *v == g[0].variant) {
                        Some((_, runs)) => runs.extend(g.iter().copied()),
                        None => variants.push((g[0].variant.clone(), g.to_vec())),
                    }
                }
                let mut fig = Figure {
                    title: format!("{}: Set {set} (median, 10-90th percentile)", study_title(study)),
                    x_label: "vertices".into(),
                    y_label: "time to the optimum (s)".into(),
                    x_log: true,
                    y_log: true,
                    ..Figure::default()
                };
                if set == "files" {
                    fig.title = format!("{}: given files (median, 10-90th percentile)", study_title(study));
                }
                let mut csv = String::from("variant,vertices,runs,reached,median_s,p10_s,p90_s\n");
                for (variant, runs) in &variants {
                    let pts = summary::scalability_points(runs);
                    for p in &pts {
                        let f = |x: f64| if x.is_finite() { x.to_string() } else { String::new() };
                        csv += &format!(
                            "{variant},{},{},{},{},{},{}\n",
                            p.vertices,
                            p.runs,
                            p.reached,
                            f(p.median),
                            f(p.p10),
                            f(p.p90)
                        );
                    }
                    let finite: Vec<_> = pts.iter().filter(|p| p.median.is_finite()).collect();
                    fig.series.push(Series {
                        name: legend(runs),
                        points: finite.iter().map(|p| (p.vertices as f64, p.median)).collect(),
                        band: finite
                            .iter()
                            .map(|p| (p.vertices as f64, p.p10, if p.p90.is_finite() { p.p90 } else { f64::MAX }))
                            .collect(),
                        markers: true,
                    });
                }
                let name = format!("{study}-{}", studies::slug(&set));
                plot::write(dir, &name, &fig)?;
                store::write_atomic(&dir.join(format!("{name}.csv")), csv.as_bytes())?;
            }
            continue;
        }
        let mut instances: Vec<(usize, String)> =
            mine.iter().map(|g| (g[0].variables, g[0].instance.clone())).collect();
        instances.dedup();
        for (_, inst) in &instances {
            let r0 = mine.iter().find(|g| &g[0].instance == inst).expect("group")[0];
            let known = r0.best_known.map(|b| format!(" (best known {b})")).unwrap_or_default();
            let mut fig = Figure {
                title: format!("{}: {inst}{known}", study_title(study)),
                x_label: "time (s)".into(),
                y_label: y_label.into(),
                x_log: true,
                legend_lower_right: true,
                ..Figure::default()
            };
            let mut csv = String::from("variant,time_s,median,p10,p90\n");
            for g in mine.iter().filter(|g| &g[0].instance == inst) {
                let curve = summary::fitness_curve(g, 200);
                for p in &curve {
                    csv += &format!("{},{},{},{},{}\n", g[0].variant, p.time_s, p.median, p.p10, p.p90);
                }
                fig.series.push(Series {
                    name: legend(g),
                    points: curve.iter().map(|p| (p.time_s, p.median)).collect(),
                    band: curve.iter().map(|p| (p.time_s, p.p10, p.p90)).collect(),
                    markers: false,
                });
            }
            let name = format!("{study}-{}", studies::slug(inst));
            plot::write(dir, &name, &fig)?;
            store::write_atomic(&dir.join(format!("{name}.csv")), csv.as_bytes())?;
        }
    }
    for study in &s.studies {
        let speedups: Vec<&summary::SpeedupSummary> = s.speedup.iter().filter(|x| &x.study == study).collect();
        if speedups.is_empty() {
            continue;
        }
        let base = if study == Study::Speedup.name() { "speedup".to_string() } else { format!("{study}-speedup") };
        let mut parts: Vec<(String, &str, Vec<&summary::SpeedupSummary>)> = vec![(base.clone(), "", speedups.clone())];
        // The paper's Fig. 7 has two panels: the five smallest and the four largest Set C graphs.
        if speedups.len() >= 6 {
            let mut by_size = speedups.clone();
            by_size.sort_by_key(|x| x.vertices);
            let large = by_size.split_off(by_size.len() - 4);
            parts.push((format!("{base}-small"), ", smaller graphs", by_size));
            parts.push((format!("{base}-large"), ", four largest graphs", large));
        }
        for (name, which, list) in parts {
            let mut fig = Figure {
                title: format!("Speed-up of parallel over serial GOMEA{which} (medians over runs)"),
                x_label: "time parallel GOMEA needed (s)".into(),
                y_label: "speed-up (time serial / time parallel)".into(),
                x_log: true,
                y_log: true,
                hline: Some((1.0, "no speed-up".into())),
                ..Figure::default()
            };
            for sp in list {
                fig.series.push(Series {
                    name: sp.instance.clone(),
                    points: sp
                        .levels
                        .iter()
                        .filter_map(|l| l.speedup.map(|s| (l.parallel_time_s.max(1e-6), s)))
                        .collect(),
                    band: Vec::new(),
                    markers: sp.levels.iter().filter(|l| l.speedup.is_some()).count() < 30,
                });
            }
            plot::write(dir, &name, &fig)?;
        }
    }
    Ok(())
}
