//! From run records to the numbers of the paper's figures: per (study, instance, variant) the
//! median and deciles over runs of the final fitness and of the time to the target; the curves of
//! best fitness over time (median and 10th-90th percentile band over runs); time to the optimum
//! against the number of vertices; the speed-up of parallel over serial GOMEA per fitness level.

use std::collections::BTreeMap;

use serde::Serialize;

use super::store::{RunRecord, first_reaching};
use super::studies::Study;
use pgomea::choice::Choice;
use pgomea::gomea::run::TracePoint;

/// The q-quantile (0..=1) of sorted values, interpolated linearly between neighbours (as
/// numpy's default); infinite values (runs that never reached a target) sort last.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    if lo == hi || sorted[lo] == sorted[hi] {
        return sorted[lo];
    }
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Median, deciles and range of a sample; `None` where the value is infinite (e.g. the median
/// time to the target when fewer than half of the runs reached it).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Stats {
    pub median: Option<f64>,
    pub p10: Option<f64>,
    pub p90: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Stats {
    pub fn of(values: &[f64]) -> Stats {
        let mut v = values.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        Stats {
            median: finite(quantile(&v, 0.5)),
            p10: finite(quantile(&v, 0.1)),
            p90: finite(quantile(&v, 0.9)),
            min: v.first().copied().and_then(finite),
            max: v.last().copied().and_then(finite),
        }
    }
}

/// One run, briefly (the deterministic fields first).
#[derive(Clone, Debug, Serialize)]
pub struct RunBrief {
    pub run_id: String,
    pub seed: u64,
    pub best_fitness: i64,
    pub evaluations: f64,
    pub reached_target: bool,
    pub stop_reason: String,
    pub time_s: f64,
    pub time_to_target_s: Option<f64>,
    pub evaluations_to_target: Option<f64>,
}

/// The runs of one (study, instance, variant).
#[derive(Clone, Debug, Serialize)]
pub struct GroupSummary {
    pub study: String,
    pub instance: String,
    pub instance_set: String,
    pub instance_source: String,
    pub vertices: usize,
    pub edges: usize,
    pub variant: String,
    pub algorithm: String,
    pub linkage: String,
    pub fos_order: String,
    pub forced_improvement: bool,
    pub n_base: usize,
    pub best_known: Option<i64>,
    pub is_optimal: bool,
    pub target: Option<i64>,
    pub time_limit_s: Option<f64>,
    pub max_evals: Option<f64>,
    pub runs: usize,
    pub seeds: Vec<u64>,
    /// Runs that reached the target (None without a target).
    pub reached: Option<usize>,
    pub final_fitness: Stats,
    pub time_to_target_s: Stats,
    pub evaluations_to_target: Stats,
    pub time_s: Stats,
    pub evaluations: Stats,
    /// The backends the runs used.
    pub backends: Vec<String>,
    pub run_details: Vec<RunBrief>,
}

/// The speed-up at one fitness level: medians over runs of the time each algorithm needed.
#[derive(Clone, Debug, Serialize)]
pub struct SpeedupLevel {
    pub fitness: i64,
    pub parallel_time_s: f64,
    pub serial_time_s: Option<f64>,
    pub speedup: Option<f64>,
    pub parallel_reached: usize,
    pub serial_reached: usize,
}

/// The speed-up of one seed's pair of runs ([`speedup_table`]).
#[derive(Clone, Debug, Serialize)]
pub struct PairSpeedup {
    pub seed: u64,
    pub levels: usize,
    pub levels_reached_by_serial: usize,
    pub median_speedup: Option<f64>,
    pub max_speedup: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SpeedupSummary {
    pub study: String,
    pub instance: String,
    pub vertices: usize,
    pub parallel_runs: usize,
    pub serial_runs: usize,
    /// Fitness levels that the median parallel run reached (at most 1000, evenly picked).
    pub levels: Vec<SpeedupLevel>,
    pub median_speedup: Option<f64>,
    pub max_speedup: Option<f64>,
    /// The speed-up at the highest level that the median serial run also reached.
    pub final_speedup: Option<f64>,
    pub pairs: Vec<PairSpeedup>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub pgomea_version: String,
    pub studies: Vec<String>,
    pub runs: usize,
    pub groups: Vec<GroupSummary>,
    pub speedup: Vec<SpeedupSummary>,
}

/// The order of variants within a study (its definition order), unknown ones last.
fn variant_rank(study: &str, variant: &str) -> usize {
    Study::from_name(study).and_then(|s| s.variants().iter().position(|v| v.name == variant)).unwrap_or(usize::MAX)
}

fn study_rank(study: &str) -> usize {
    Study::ALL.iter().position(|s| s.name() == study).unwrap_or(usize::MAX)
}

/// The key that orders groups: study, instance (by set, size, name), variant.
type GroupKey = (usize, String, String, usize, String, usize, String);

fn key(r: &RunRecord) -> GroupKey {
    (
        study_rank(&r.study),
        r.study.clone(),
        r.instance_set.clone(),
        r.variables,
        r.instance.clone(),
        variant_rank(&r.study, &r.variant),
        r.variant.clone(),
    )
}

/// The records grouped by (study, instance, variant), in report order; runs by seed.
pub fn groups(records: &[RunRecord]) -> Vec<Vec<&RunRecord>> {
    let mut map: BTreeMap<GroupKey, Vec<&RunRecord>> = BTreeMap::new();
    for r in records {
        map.entry(key(r)).or_default().push(r);
    }
    map.into_values()
        .map(|mut v| {
            v.sort_by_key(|r| r.seed);
            v
        })
        .collect()
}

fn group_summary(runs: &[&RunRecord]) -> GroupSummary {
    let r0 = runs[0];
    let inf = f64::INFINITY;
    let col = |f: &dyn Fn(&RunRecord) -> f64| -> Vec<f64> { runs.iter().map(|r| f(r)).collect() };
    let mut backends: Vec<String> = runs.iter().map(|r| r.backend_used.clone()).collect();
    backends.sort();
    backends.dedup();
    GroupSummary {
        study: r0.study.clone(),
        instance: r0.instance.clone(),
        instance_set: r0.instance_set.clone(),
        instance_source: r0.instance_source.clone(),
        vertices: r0.variables,
        edges: r0.subfunctions,
        variant: r0.variant.clone(),
        algorithm: r0.config.algorithm.name().into(),
        linkage: r0.config.linkage.to_string(),
        fos_order: r0.config.fos_order.name().into(),
        forced_improvement: r0.config.forced_improvement,
        n_base: r0.config.n_base,
        best_known: r0.best_known,
        is_optimal: r0.is_optimal,
        target: r0.config.target,
        time_limit_s: r0.config.time_limit,
        max_evals: r0.config.max_evaluations,
        runs: runs.len(),
        seeds: runs.iter().map(|r| r.seed).collect(),
        reached: r0.config.target.map(|_| runs.iter().filter(|r| r.reached_target).count()),
        final_fitness: Stats::of(&col(&|r| r.best_fitness as f64)),
        time_to_target_s: Stats::of(&col(&|r| r.time_to_target_s.unwrap_or(inf))),
        evaluations_to_target: Stats::of(&col(&|r| r.evaluations_to_target.unwrap_or(inf))),
        time_s: Stats::of(&col(&|r| r.time_s)),
        evaluations: Stats::of(&col(&|r| r.evaluations)),
        backends,
        run_details: runs
            .iter()
            .map(|r| RunBrief {
                run_id: r.run_id.clone(),
                seed: r.seed,
                best_fitness: r.best_fitness,
                evaluations: r.evaluations,
                reached_target: r.reached_target,
                stop_reason: r.stop_reason.clone(),
                time_s: r.time_s,
                time_to_target_s: r.time_to_target_s,
                evaluations_to_target: r.evaluations_to_target,
            })
            .collect(),
    }
}

/// The time at which a (fitness-monotone) trace first reaches `level`, if it does.
fn time_to(trace: &[TracePoint], level: i64) -> Option<f64> {
    let i = trace.partition_point(|p| p.best_fitness < level);
    trace.get(i).map(|p| p.time_s)
}

fn median_time(traces: &[Vec<TracePoint>], level: i64) -> (f64, usize) {
    let mut t: Vec<f64> = traces.iter().map(|tr| time_to(tr, level).unwrap_or(f64::INFINITY)).collect();
    t.sort_by(|a, b| a.total_cmp(b));
    (quantile(&t, 0.5), t.iter().filter(|x| x.is_finite()).count())
}

/// The median of `v` (interpolated between the two middle values of an even count), `None` when
/// it is not finite or `v` is empty: the project's one median.
pub fn median_of(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(|a, b| a.total_cmp(b));
    finite(quantile(&v, 0.5))
}

/// The speed-up at every fitness level that the median parallel run reached, in ascending order:
/// the median time serial GOMEA needed over the median time parallel GOMEA needed (a run that
/// never reached a level counts as slower than every run that did). `bench speedup` and the
/// speed-up study share it.
pub fn speedup_levels(ptraces: &[Vec<TracePoint>], straces: &[Vec<TracePoint>]) -> Vec<SpeedupLevel> {
    let mut all: Vec<i64> = ptraces.iter().flatten().map(|p| p.best_fitness).collect();
    all.sort_unstable();
    all.dedup();
    all.into_iter()
        .filter_map(|f| {
            let (tp, pn) = median_time(ptraces, f);
            if !tp.is_finite() {
                return None;
            }
            let (ts, sn) = if straces.is_empty() { (f64::INFINITY, 0) } else { median_time(straces, f) };
            let ts = finite(ts);
            Some(SpeedupLevel {
                fitness: f,
                parallel_time_s: tp,
                serial_time_s: ts,
                speedup: ts.map(|s| s / tp.max(1e-6)),
                parallel_reached: pn,
                serial_reached: sn,
            })
        })
        .collect()
}

/// For each distinct fitness of one parallel trace: (fitness, t_parallel, t_serial if reached).
pub fn speedup_table(parallel: &[TracePoint], serial: &[TracePoint]) -> Vec<(i64, f64, Option<f64>)> {
    parallel.iter().map(|p| (p.best_fitness, p.time_s, time_to(serial, p.best_fitness))).collect()
}

/// The paper's speed-up (Fig. 7): for every fitness that the parallel runs reached, the median
/// time serial GOMEA needed over the median time parallel GOMEA needed ([`speedup_levels`], at
/// most 1000 levels kept, evenly spaced, with the last); and per seed the same ratio from the two
/// runs of that seed ([`speedup_table`]).
pub fn speedup_summary(study: &str, parallel: &[&RunRecord], serial: &[&RunRecord]) -> Option<SpeedupSummary> {
    let p0 = parallel.first()?;
    let ptraces: Vec<Vec<TracePoint>> = parallel.iter().map(|r| r.trace_points()).collect();
    let straces: Vec<Vec<TracePoint>> = serial.iter().map(|r| r.trace_points()).collect();
    let all = speedup_levels(&ptraces, &straces);
    let step = all.len().div_ceil(1000).max(1);
    let mut levels: Vec<SpeedupLevel> = all.iter().step_by(step).cloned().collect();
    if let Some(last) = all.last()
        && levels.last().map(|l| l.fitness) != Some(last.fitness)
    {
        levels.push(last.clone());
    }
    let ratios: Vec<f64> = levels.iter().filter_map(|l| l.speedup).collect();
    let pairs = parallel
        .iter()
        .filter_map(|p| {
            let s = serial.iter().find(|s| s.seed == p.seed)?;
            let table = speedup_table(&p.trace_points(), &s.trace_points());
            let r: Vec<f64> = table.iter().filter_map(|(_, tp, ts)| ts.map(|ts| ts / tp.max(1e-6))).collect();
            Some(PairSpeedup {
                seed: p.seed,
                levels: table.len(),
                levels_reached_by_serial: r.len(),
                median_speedup: median_of(r.clone()),
                max_speedup: r.iter().copied().fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x)))),
            })
        })
        .collect();
    Some(SpeedupSummary {
        study: study.to_string(),
        instance: p0.instance.clone(),
        vertices: p0.variables,
        parallel_runs: parallel.len(),
        serial_runs: serial.len(),
        median_speedup: median_of(ratios.clone()),
        max_speedup: ratios.iter().copied().fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x)))),
        final_speedup: levels.iter().rev().find_map(|l| l.speedup),
        levels,
        pairs,
    })
}

/// The summary of every record.
pub fn summarize(records: &[RunRecord]) -> Summary {
    let groups_v = groups(records);
    let mut studies: Vec<String> = records.iter().map(|r| r.study.clone()).collect();
    studies.sort_by_key(|s| (study_rank(s), s.clone()));
    studies.dedup();
    let mut speedup = Vec::new();
    // The speed-up study, and the convergence study, which runs the same two algorithms.
    for study in studies.iter().filter(|s| [Study::Speedup.name(), Study::Convergence.name()].contains(&s.as_str())) {
        let mut instances: Vec<(usize, String)> =
            records.iter().filter(|r| &r.study == study).map(|r| (r.variables, r.instance.clone())).collect();
        instances.sort();
        instances.dedup();
        for (_, inst) in instances {
            let pick = |alg: &str| -> Vec<&RunRecord> {
                let mut v: Vec<&RunRecord> = records
                    .iter()
                    .filter(|r| &r.study == study && r.instance == inst && r.config.algorithm.name() == alg)
                    .collect();
                v.sort_by_key(|r| r.seed);
                v
            };
            if let Some(s) = speedup_summary(study, &pick("parallel"), &pick("serial")) {
                speedup.push(s);
            }
        }
    }
    Summary {
        pgomea_version: env!("CARGO_PKG_VERSION").to_string(),
        studies,
        runs: records.len(),
        groups: groups_v.iter().map(|g| group_summary(g)).collect(),
        speedup,
    }
}

fn opt(x: Option<f64>) -> String {
    x.map(|v| format!("{v}")).unwrap_or_default()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// summary.csv: one row per (study, instance, variant).
pub fn summary_csv(s: &Summary) -> String {
    let mut out = String::from(
        "study,instance,set,vertices,edges,variant,algorithm,linkage,fos_order,forced_improvement,n_base,best_known,is_optimal,target,\
time_limit_s,max_evals,runs,reached,final_fitness_median,final_fitness_p10,final_fitness_p90,final_fitness_min,final_fitness_max,\
time_to_target_median_s,time_to_target_p10_s,time_to_target_p90_s,evaluations_to_target_median,time_median_s,evaluations_median,seeds,backends\n",
    );
    for g in &s.groups {
        let seeds: Vec<String> = g.seeds.iter().map(|s| s.to_string()).collect();
        let fields = [
            csv_field(&g.study),
            csv_field(&g.instance),
            csv_field(&g.instance_set),
            g.vertices.to_string(),
            g.edges.to_string(),
            csv_field(&g.variant),
            g.algorithm.clone(),
            csv_field(&g.linkage),
            g.fos_order.clone(),
            g.forced_improvement.to_string(),
            g.n_base.to_string(),
            g.best_known.map(|v| v.to_string()).unwrap_or_default(),
            g.is_optimal.to_string(),
            g.target.map(|v| v.to_string()).unwrap_or_default(),
            opt(g.time_limit_s),
            opt(g.max_evals),
            g.runs.to_string(),
            g.reached.map(|v| v.to_string()).unwrap_or_default(),
            opt(g.final_fitness.median),
            opt(g.final_fitness.p10),
            opt(g.final_fitness.p90),
            opt(g.final_fitness.min),
            opt(g.final_fitness.max),
            opt(g.time_to_target_s.median),
            opt(g.time_to_target_s.p10),
            opt(g.time_to_target_s.p90),
            opt(g.evaluations_to_target.median),
            opt(g.time_s.median),
            opt(g.evaluations.median),
            seeds.join(" "),
            csv_field(&g.backends.join("; ")),
        ];
        out += &fields.join(",");
        out.push('\n');
    }
    out
}

/// speedup.csv: one row per instance and fitness level.
pub fn speedup_csv(s: &Summary) -> String {
    let mut out =
        String::from("study,instance,fitness,parallel_time_s,serial_time_s,speedup,parallel_reached,serial_reached\n");
    for sp in &s.speedup {
        for l in &sp.levels {
            out += &format!(
                "{},{},{},{},{},{},{},{}\n",
                sp.study,
                csv_field(&sp.instance),
                l.fitness,
                l.parallel_time_s,
                opt(l.serial_time_s),
                opt(l.speedup),
                l.parallel_reached,
                l.serial_reached
            );
        }
    }
    out
}

/// One point of a fitness-over-time curve: the median and the 10th and 90th percentile over runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    pub time_s: f64,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
}

/// The best fitness of a run at time `t` (the last improvement at or before `t`).
fn fitness_at(trace: &[super::store::TraceRow], t: f64) -> Option<i64> {
    let i = trace.partition_point(|p| p.time_s <= t);
    (i > 0).then(|| trace[i - 1].best_fitness)
}

/// The end of a run's time window: its time limit, or when it stopped.
fn horizon(r: &RunRecord) -> f64 {
    r.config.time_limit.map_or(r.time_s, |l| l.max(r.time_s))
}

/// Median and interdecile band of best fitness over time on `points` log-spaced times from the
/// first time every run has a solution to the end of the longest run's window; a run that stopped
/// early (at the target) keeps its last value.
pub fn fitness_curve(runs: &[&RunRecord], points: usize) -> Vec<CurvePoint> {
    let runs: Vec<&&RunRecord> = runs.iter().filter(|r| !r.trace.is_empty()).collect();
    if runs.is_empty() {
        return Vec::new();
    }
    let start = runs.iter().map(|r| r.trace[0].time_s).fold(0.0f64, f64::max).max(1e-4);
    let end = runs.iter().map(|r| horizon(r)).fold(0.0f64, f64::max).max(start * 1.01);
    let n = points.max(2);
    (0..n)
        .map(|i| {
            let t = start * (end / start).powf(i as f64 / (n - 1) as f64);
            let mut v: Vec<f64> = runs.iter().filter_map(|r| fitness_at(&r.trace, t)).map(|f| f as f64).collect();
            v.sort_by(|a, b| a.total_cmp(b));
            CurvePoint { time_s: t, median: quantile(&v, 0.5), p10: quantile(&v, 0.1), p90: quantile(&v, 0.9) }
        })
        .filter(|p| p.median.is_finite())
        .collect()
}

/// One point of the scalability plot: time to the target against the number of vertices,
/// pooled over the runs of every instance of that size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalePoint {
    pub vertices: usize,
    pub runs: usize,
    pub reached: usize,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
}

pub fn scalability_points(runs: &[&RunRecord]) -> Vec<ScalePoint> {
    let mut by_l: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for r in runs {
        by_l.entry(r.variables).or_default().push(r.time_to_target_s.unwrap_or(f64::INFINITY));
    }
    by_l.into_iter()
        .map(|(l, mut t)| {
            t.sort_by(|a, b| a.total_cmp(b));
            ScalePoint {
                vertices: l,
                runs: t.len(),
                reached: t.iter().filter(|x| x.is_finite()).count(),
                median: quantile(&t, 0.5),
                p10: quantile(&t, 0.1),
                p90: quantile(&t, 0.9),
            }
        })
        .collect()
}

/// The first trace row at or above the target, if any (time, evaluations).
pub fn to_target(trace: &[super::store::TraceRow], target: Option<i64>) -> (Option<f64>, Option<f64>) {
    match target.and_then(|t| first_reaching(trace, t)) {
        Some(p) => (Some(p.time_s), Some(p.evaluations)),
        None => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_and_keep_infinity_last() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&v, 0.5), 3.0);
        assert!((quantile(&v, 0.1) - 1.4).abs() < 1e-12);
        assert!((quantile(&v, 0.9) - 4.6).abs() < 1e-12);
        let w = [1.0, 2.0, f64::INFINITY];
        assert_eq!(quantile(&w, 0.5), 2.0);
        assert!(quantile(&w, 0.9).is_infinite());
        let s = Stats::of(&[f64::INFINITY, 1.0, f64::INFINITY]);
        assert_eq!(s.median, None);
        assert_eq!(s.min, Some(1.0));
    }

    #[test]
    fn speedup_levels_take_median_times_and_rank_unreached_runs_last() {
        let t = |time_s, best_fitness| TracePoint { time_s, evaluations: 0.0, best_fitness };
        // Serial runs reaching level 10 at the given times (None: never).
        let serial = |times: &[Option<f64>]| -> Vec<Vec<TracePoint>> {
            times
                .iter()
                .map(|x| match x {
                    Some(s) => vec![t(0.0, 1), t(*s, 10)],
                    None => vec![t(0.0, 1)],
                })
                .collect()
        };
        let parallel = vec![vec![t(0.0, 1), t(1.0, 10)]];
        let at10 = |times: &[Option<f64>]| {
            speedup_levels(&parallel, &serial(times)).into_iter().find(|l| l.fitness == 10).unwrap().serial_time_s
        };
        assert_eq!(at10(&[Some(3.0), Some(1.0), Some(2.0)]), Some(2.0));
        // Two of three runs reached the level: the median run did.
        assert_eq!(at10(&[None, Some(5.0), Some(1.0)]), Some(5.0));
        // Only one of three did: the median run did not.
        assert_eq!(at10(&[None, Some(5.0), None]), None);
        // Even counts interpolate between the two middle runs.
        assert_eq!(at10(&[Some(4.0), Some(1.0), None, Some(2.0)]), Some(3.0));
        assert_eq!(at10(&[Some(7.0)]), Some(7.0));
        let l = speedup_levels(&parallel, &serial(&[Some(7.0)]));
        assert_eq!(l.iter().map(|l| l.fitness).collect::<Vec<_>>(), vec![1, 10]);
        assert_eq!(l[1].speedup, Some(7.0));
        // A level the median parallel run did not reach is left out.
        let two = vec![vec![t(0.0, 1), t(1.0, 10)], vec![t(0.0, 1)]];
        assert!(speedup_levels(&two, &[]).iter().all(|l| l.fitness == 1));
    }

    #[test]
    fn time_to_level_uses_the_first_point_at_or_above() {
        let t = |time_s, best_fitness| TracePoint { time_s, evaluations: 0.0, best_fitness };
        let tr = [t(0.1, 5), t(0.5, 8), t(2.0, 10)];
        assert_eq!(time_to(&tr, 4), Some(0.1));
        assert_eq!(time_to(&tr, 6), Some(0.5));
        assert_eq!(time_to(&tr, 10), Some(2.0));
        assert_eq!(time_to(&tr, 11), None);
    }
}
