//! The annealing budget of a new population: the sweeps of its annealed local search fitted to
//! a share of the time left, at the pace of the run's last whole annealing where one is known,
//! else refitted by the search itself as it goes ([`SearchPlan`];
//! `docs/decisions/0008-annealing-pace.md`).

use std::time::{Duration, Instant};

use crate::gomea::local_search::{AnnealPace, show_share};

/// What a run learns of its annealings: the pace of the last whole one, which fits the next
/// ([`AnnealBudget::plan`], [`AnnealBudget::learn`]).
#[derive(Clone, Debug, Default)]
pub struct AnnealBudget {
    pace: AnnealPace,
}

impl AnnealBudget {
    /// The plan of a search of `asked` sweeps for `solutions` solutions, given `share` of
    /// `time_left`: fitted to that share now where the pace of an earlier annealing is known,
    /// else adaptive (the search fits its rest to its own pace as it goes).
    pub fn plan(&self, asked: u32, solutions: usize, share: Option<f64>, time_left: Option<Duration>) -> SearchPlan {
        let budget = share.zip(time_left).map(|(share, left)| left.mul_f64(share));
        let mut plan = SearchPlan {
            sweeps: asked,
            asked,
            solutions,
            share: share.unwrap_or(0.0),
            budget,
            start: Instant::now(),
            adaptive: budget.is_some() && !self.pace.known(),
            fitted: false,
            refitted: false,
            work: 0.0,
            early_ratio: self.pace.early_ratio(),
            early: EarlySweeps::Waiting,
        };
        if let Some(budget) = budget.filter(|_| self.pace.known()) {
            plan.sweeps = self.pace.fit(asked, solutions, budget);
            plan.fitted = true;
        }
        plan
    }

    /// Learns the pace of a search that ran as `plan` says (one the run did not stop).
    pub fn learn(&mut self, plan: &SearchPlan) {
        self.pace.record(plan.work, plan.start.elapsed(), plan.early_pace());
    }
}

/// The sweeps of a new population's annealed local search under [`crate::gomea::run::Run::fitted_search`]: fitted
/// to its share of the time left before it starts where the pace of an earlier annealing is
/// known, else refitted by the search itself as it goes.
#[derive(Clone, Debug)]
pub struct SearchPlan {
    /// The sweeps of a solution's whole schedule, as planned now; once the search is done, those
    /// it says it ran (what the run's note reports).
    pub sweeps: u32,
    asked: u32,
    solutions: usize,
    share: f64,
    budget: Option<Duration>,
    start: Instant,
    /// No pace was known when the search began: it fits its rest to its own pace as it goes.
    adaptive: bool,
    /// Fitted at a known pace before it began ([`AnnealBudget::plan`]).
    fitted: bool,
    refitted: bool,
    /// The solution-sweeps run, as the search reports them ([`SearchPlan::ran`]).
    work: f64,
    /// The last whole search's early pace over its whole pace ([`AnnealPace::early_ratio`]):
    /// a search fitted at a known pace refits once when its own early pace is timed, and uses
    /// it up then.
    early_ratio: Option<f64>,
    /// The timing of the search's early sweeps ([`SearchPlan::observe`]).
    early: EarlySweeps,
}

/// Where the timing of a search's early sweeps stands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum EarlySweeps {
    /// Before the end of the first call.
    Waiting,
    /// Timed from the end of the first call (the first carries costs of its own): the time
    /// and solution-sweeps then.
    From(Duration, f64),
    /// Seconds per solution-sweep from there to the first call that ends within
    /// [`SearchPlan::EARLY_SHARE`] to twice it of the schedule.
    Timed(f64),
    /// No call ended within that share (calls of many sweeps each): not timed.
    Missed,
}

impl SearchPlan {
    /// A plan of `sweeps` that no clock changes (the offspring's searches).
    pub fn fixed(sweeps: u32) -> Self {
        SearchPlan {
            sweeps,
            asked: sweeps,
            solutions: 0,
            share: 0.0,
            budget: None,
            start: Instant::now(),
            adaptive: false,
            fitted: false,
            refitted: false,
            work: 0.0,
            early_ratio: None,
            early: EarlySweeps::Waiting,
        }
    }

    /// The share of a schedule by which a search's early sweeps are timed.
    pub const EARLY_SHARE: f64 = 0.1;

    /// After a call of a search that begins at its schedule's hottest level, `work`
    /// solution-sweeps run since the plan began and `done` the share of its schedule they
    /// reach: times its early sweeps, from the end of its first call to the first call that
    /// ends within [`SearchPlan::EARLY_SHARE`] to twice it of the schedule (none such: not
    /// timed). Their pace over the whole search's teaches the next search its whole pace from
    /// its own early sweeps ([`SearchPlan::refit`]). Searches that begin halfway down a
    /// schedule, whose early sweeps are cooler, are not timed.
    pub fn observe(&mut self, work: f64, done: f64) {
        // Once timed (or missed), no clock is read again.
        if matches!(self.early, EarlySweeps::Waiting | EarlySweeps::From(..)) {
            self.observe_at(work, done, self.start.elapsed());
        }
    }

    /// [`SearchPlan::observe`] at `now` since the plan began.
    fn observe_at(&mut self, work: f64, done: f64, now: Duration) {
        if work <= 0.0 {
            return;
        }
        self.early = match self.early {
            EarlySweeps::Waiting => EarlySweeps::From(now, work),
            EarlySweeps::From(_, _) if done > 2.0 * Self::EARLY_SHARE => EarlySweeps::Missed,
            EarlySweeps::From(then, before) if done >= Self::EARLY_SHARE && work > before => {
                EarlySweeps::Timed((now - then).as_secs_f64() / (work - before))
            }
            other => other,
        };
    }

    /// The pace of the early sweeps, where they were timed.
    fn early_pace(&self) -> Option<f64> {
        match self.early {
            EarlySweeps::Timed(pace) => Some(pace),
            _ => None,
        }
    }

    /// After a call of an adaptive search, `work` solution-sweeps run since the plan began: the
    /// sweeps each of `solutions` solutions can still run within the budget at the pace so far,
    /// at most `most`, where they differ from `left`, those each has planned, by more than a
    /// twentieth (and one). The search then runs those (the caller maps its schedule) and
    /// reports its whole work with [`SearchPlan::ran`]; the run says what it did.
    ///
    /// Called after every call, this follows the pace as it changes: a search's first sweeps
    /// are slower than the whole (hot sweeps flip more, and a first call carries costs of its
    /// own), so an early fit cuts too much and later ones give back. Sweeps refitted this way err
    /// towards ending early.
    ///
    /// A search fitted at the last whole search's pace is refitted once instead, when its early
    /// sweeps are timed ([`SearchPlan::observe`]): at their pace over the last search's early
    /// pace over its whole. That corrects the fit where a sweep's time grows far from in
    /// proportion to the solutions (`docs/decisions/0008-annealing-pace.md`).
    pub fn refit(&mut self, work: f64, solutions: usize, left: u32, most: u32) -> Option<u32> {
        let budget = self.budget.filter(|_| left > 0 && work > 0.0)?;
        let spent = self.start.elapsed();
        let pace = if self.adaptive {
            spent.as_secs_f64() / work
        } else {
            let early = self.early_pace()?;
            early / self.early_ratio.take()?
        };
        let fit = AnnealPace::at(pace).fit(most, solutions, budget.saturating_sub(spent));
        if fit.abs_diff(left) <= (left / 20).max(1) {
            return None;
        }
        self.refitted = true;
        Some(fit)
    }

    /// The solution-sweeps the search ran in all (the pace of the next one is learned from them).
    pub fn ran(&mut self, work: f64) {
        self.work = work;
    }

    /// The share of its schedule that one call of the search timing an adaptive plan covers at
    /// most: its first pace is then not that of the schedule's hottest sweeps alone, which fitted
    /// a long schedule too short (377 of 10000 sweeps where 3000 asked gave 772, on a
    /// 5000-variable model at 1 s: `docs/decisions/0008-annealing-pace.md`).
    pub const TIMING_CALL_SHARE: f64 = 0.01;

    /// The sweeps of a call of the search that times this plan (a population's first solution,
    /// searched alone): `per_call`, but where the plan fits itself to its own pace, at most
    /// [`SearchPlan::TIMING_CALL_SHARE`] of the schedule asked for (and at least `least`).
    pub fn timing_call(&self, per_call: u32, least: u32) -> u32 {
        if !self.adaptive {
            return per_call;
        }
        let share = (f64::from(self.asked) * Self::TIMING_CALL_SHARE).ceil() as u32;
        per_call.min(share.max(least).max(1))
    }

    /// Whether the search fits itself to its own pace as it goes (no pace was known).
    pub fn adapts(&self) -> bool {
        self.adaptive
    }

    /// The sweeps asked for (a refit never exceeds them).
    pub fn asked(&self) -> u32 {
        self.asked
    }

    /// The note of a plan fitted before it began to fewer sweeps than asked.
    pub fn fitted_note(&self) -> Option<String> {
        self.budget.filter(|_| self.fitted && self.sweeps < self.asked).map(|budget| self.describe(budget, ""))
    }

    /// The note of a plan the search refitted as it went.
    pub fn refitted_note(&self) -> Option<String> {
        self.budget.filter(|_| self.refitted).map(|budget| self.describe(budget, ", at its own pace as it went"))
    }

    fn describe(&self, budget: Duration, how: &str) -> String {
        format!(
            "population of {}: annealing fitted to {:.1} s, {} of the time left{how}: {} of {} sweeps",
            self.solutions,
            budget.as_secs_f64(),
            show_share(self.share),
            self.sweeps,
            self.asked
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An adaptive plan of `asked` sweeps for 16 solutions with a budget of 10 s, begun `ago`.
    fn plan(asked: u32, ago: Duration) -> SearchPlan {
        SearchPlan {
            adaptive: true,
            budget: Some(Duration::from_secs(10)),
            solutions: 16,
            start: Instant::now().checked_sub(ago).unwrap(),
            ..SearchPlan::fixed(asked)
        }
    }

    #[test]
    fn the_search_that_times_an_adaptive_plan_calls_in_short_steps() {
        // A hundredth of the schedule, never below `least`; a plan that does not fit itself keeps
        // the calls it was given.
        assert_eq!(plan(10_000, Duration::ZERO).timing_call(671, 4), 100);
        assert_eq!(plan(3000, Duration::ZERO).timing_call(671, 4), 30);
        assert_eq!(plan(100, Duration::ZERO).timing_call(671, 4), 4);
        assert_eq!(plan(10_000, Duration::ZERO).timing_call(50, 4), 50);
        assert_eq!(SearchPlan::fixed(10_000).timing_call(671, 4), 671);
    }

    #[test]
    fn an_adaptive_plan_follows_the_pace_so_far() {
        // 16 solutions x 10 sweeps in 1 s: 9 s left fit 90 more sweeps each.
        let mut p = plan(1000, Duration::from_secs(1));
        let fit = p.refit(160.0, 16, 990, 990).unwrap();
        assert!((89..=90).contains(&fit), "{fit}");
        assert!(p.refitted);
        // Never more than `most`; no change within a twentieth of what is planned.
        let mut p = plan(1000, Duration::from_secs(1));
        assert_eq!(p.refit(1600.0, 16, 990, 500), Some(500));
        assert_eq!(plan(1000, Duration::from_secs(1)).refit(160.0, 16, 92, 990), None);
        // A fixed plan, or one whose schedule is done, never changes.
        assert_eq!(SearchPlan::fixed(1000).refit(160.0, 16, 990, 990), None);
        assert_eq!(plan(1000, Duration::from_secs(1)).refit(160.0, 16, 0, 990), None);
    }

    #[test]
    fn a_plan_at_a_known_pace_refits_once_at_its_early_sweeps() {
        let s = Duration::from_secs_f64;
        // The last search's early sweeps were twice as slow as its whole: this one's early
        // sweeps, 1 ms per solution-sweep, tell a whole pace of 0.5 ms. 16 solutions in the
        // 9 s left fit 1125 sweeps.
        let mut p = SearchPlan { adaptive: false, early_ratio: Some(2.0), ..plan(400, s(1.0)) };
        p.observe_at(16.0 * 5.0, 0.0125, s(0.2));
        assert_eq!(p.refit(16.0 * 5.0, 16, 395, 2000), None, "not timed yet");
        p.observe_at(16.0 * 45.0, 0.1125, s(0.84));
        assert_eq!(p.early_pace(), Some(0.001));
        let fit = p.refit(16.0 * 45.0, 16, 355, 2000).unwrap();
        assert!((1120..=1125).contains(&fit), "{fit}");
        assert!(p.refitted);
        // Once only.
        assert_eq!(p.refit(16.0 * 45.0, 16, 355, 2000), None);
        // Later calls do not time again.
        p.observe_at(16.0 * 90.0, 0.15, s(2.0));
        assert_eq!(p.early_pace(), Some(0.001));

        // Calls of many sweeps that pass twice the early share leave it untimed: no refit.
        let mut p = SearchPlan { adaptive: false, early_ratio: Some(2.0), ..plan(400, s(1.0)) };
        p.observe_at(16.0 * 5.0, 0.0125, s(0.2));
        p.observe_at(16.0 * 200.0, 0.5, s(0.84));
        p.observe_at(16.0 * 220.0, 0.55, s(0.9));
        assert_eq!(p.early, EarlySweeps::Missed);
        assert_eq!(p.refit(16.0 * 220.0, 16, 180, 2000), None);

        // Without the last search's ratio, a plan at a known pace keeps its sweeps.
        let mut p = SearchPlan { adaptive: false, ..plan(400, s(1.0)) };
        p.observe_at(16.0 * 5.0, 0.0125, s(0.2));
        p.observe_at(16.0 * 45.0, 0.1125, s(0.84));
        assert_eq!(p.refit(16.0 * 45.0, 16, 355, 2000), None);

        // The whole search teaches the next its ratio: 1 ms early against 0.25 ms in all.
        let mut pace = AnnealPace::default();
        pace.record(16.0 * 400.0, s(1.6), p.early_pace());
        assert_eq!(pace.early_ratio(), Some(4.0));
        // A search that timed none keeps the ratio before.
        pace.record(16.0 * 400.0, s(3.2), None);
        assert_eq!(pace.early_ratio(), Some(4.0));
    }
}
