//! The conflicts between linkage sets, enumerated set by set and never stored: sets i and j
//! conflict (are adjacent in the linkage-model interaction graph, the LMIG) when they share a
//! variable or a subfunction reads a variable of each. A colouring asks for the conflicts of
//! one set at a time (DSatur) or only for their number (Welsh-Powell's order), so the LMIG, which
//! has 65 million edges for the linkage tree of a 1000 x 1000 torus, is never built.
//!
//! The sets that conflict with set i are the sets holding a variable of its *closure*: its own
//! variables and every variable a subfunction shares with one of them. Two ways to find them:
//!
//! - **a tree** (laminar families: univariate, FLT, BFLT, the learned tree): the sets holding a
//!   variable form a chain, from the smallest one up through its parents, so the conflicts of i
//!   are the union of the chains of its closure. A walk up from each closure variable stops at
//!   the first set already met (its chain above is already counted), so each conflict is met
//!   once and a variable that adds nothing costs one look.
//! - **an index** of the sets holding each variable, for any other family: every set holding a
//!   closure variable, counted once ([`super::coloring::Lmig::build`] stores them so).
//!
//! A set never conflicts with itself. Both are exact; the tests compare them with the LMIG.

use std::cmp::Reverse;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::linkage::fos::Fos;
use crate::problem::{GrayBoxProblem, Subfunctions};
use crate::stop::{StopCheck, StopReason};

const NONE: u32 = u32::MAX;

/// Calls `f` on every variable of the closure of the linkage set `members`: each variable of the
/// set, then the variables of every subfunction that reads it (so a variable comes as often as it
/// is met; a caller that wants each once marks them).
pub(crate) fn for_each_in_closure(p: &Subfunctions, members: &[u32], mut f: impl FnMut(u32)) {
    for &v in members {
        f(v);
        for &s in p.dependent(v as usize) {
            for &u in p.variables_of(s as usize) {
                f(u);
            }
        }
    }
}

/// The linkage sets being coloured: a FOS's, or the variables one by one (the colour groups of
/// local search), without building a univariate FOS.
#[derive(Clone, Copy)]
pub enum Sets<'a> {
    /// The linkage sets of a FOS.
    Fos(&'a Fos),
    /// Each of this many variables as a set of its own.
    Variables(usize),
}

impl Sets<'_> {
    /// The number of sets.
    pub fn len(&self) -> usize {
        match self {
            Sets::Fos(f) => f.len(),
            Sets::Variables(l) => *l,
        }
    }

    /// Whether there are no sets.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How the sets holding a variable are found.
enum Shape {
    /// `leaf[v]`: the smallest set holding v (`NONE`: none does); `parent[s]`: the smallest set
    /// strictly containing s (`NONE` for a top set).
    Tree { leaf: Vec<u32>, parent: Vec<u32> },
    /// The sets holding v: `sets[offsets[v]..offsets[v + 1]]`.
    Index { offsets: Vec<usize>, sets: Vec<u32> },
}

/// The variables of each set of a family, over a problem: all a colouring by incidence needs, and
/// what [`Conflicts`] adds the nesting to.
pub struct Members<'a> {
    problem: &'a dyn GrayBoxProblem,
    sets: Sets<'a>,
    /// 0..l, the variables' own sets (empty for a FOS).
    identity: Vec<u32>,
}

impl<'a> Members<'a> {
    /// Refuses more sets than a `u32` colour or set index can name.
    pub fn new(sets: Sets<'a>, problem: &'a dyn GrayBoxProblem, stop: &StopCheck) -> Result<Self> {
        let n = sets.len();
        if n >= NONE as usize {
            return Err(Error::usage(format!("{n} linkage sets: more than this program can colour")));
        }
        let identity = match sets {
            Sets::Fos(_) => Vec::new(),
            Sets::Variables(l) => stop.filled(l, |v| v as u32)?,
        };
        Ok(Members { problem, sets, identity })
    }

    pub(crate) fn sets(&self) -> Sets<'a> {
        self.sets
    }

    /// Drops these members, their own array freed on a thread of its own
    /// ([`crate::stop::drop_aside`]): 10^8 variables' sets take tens of milliseconds to free.
    pub(crate) fn free_aside(self) {
        if !self.identity.is_empty() {
            crate::stop::drop_aside(self.identity);
        }
    }

    /// The number of sets.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// Whether there are no sets.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn problem(&self) -> &'a dyn GrayBoxProblem {
        self.problem
    }

    /// The variables of set i.
    pub fn of(&self, i: usize) -> &[u32] {
        match self.sets {
            Sets::Fos(fos) => fos.set(i),
            Sets::Variables(_) => std::slice::from_ref(&self.identity[i]),
        }
    }
}

/// The conflicts of a family of linkage sets over a problem.
pub struct Conflicts<'a> {
    members: Members<'a>,
    shape: Shape,
}

/// A thread's marks for one enumeration: `set_mark[j] == mark` once set j was met (and, for the
/// index, `var_mark[v]` for closure variables).
pub struct Marks {
    mark: u32,
    set_mark: Vec<u32>,
    var_mark: Vec<u32>,
    closure: Vec<u32>,
}

impl<'a> Conflicts<'a> {
    /// Finds how the sets nest: a tree when the family is laminar, else an index. Time and memory
    /// linear in the total size of the sets.
    pub fn new(sets: Sets<'a>, problem: &'a dyn GrayBoxProblem, stop: &StopCheck) -> Result<Self> {
        Self::with_shape(sets, problem, true, stop)
    }

    /// The conflicts of a FOS's sets found through the index, whatever the family: what
    /// [`super::coloring::Lmig::build`] stores.
    pub fn indexed(fos: &'a Fos, problem: &'a dyn GrayBoxProblem, stop: &StopCheck) -> Result<Self> {
        Self::with_shape(Sets::Fos(fos), problem, false, stop)
    }

    /// A tree where `as_tree` and the family is laminar, else an index (the variables' own sets
    /// are always a tree).
    fn with_shape(sets: Sets<'a>, problem: &'a dyn GrayBoxProblem, as_tree: bool, stop: &StopCheck) -> Result<Self> {
        let members = Members::new(sets, problem, stop)?;
        let l = problem.variables();
        let n = sets.len();
        let shape = match sets {
            Sets::Variables(_) => Shape::Tree { leaf: (0..l as u32).collect(), parent: vec![NONE; l] },
            Sets::Fos(fos) => {
                crate::problem::memory::ensure(
                    8 * (l + n) as u128,
                    &format!("the nesting of {n} linkage sets over {l} variables"),
                )?;
                match if as_tree { tree(fos, l, stop)? } else { None } {
                    Some((leaf, parent)) => Shape::Tree { leaf, parent },
                    None => index(fos, l, stop)?,
                }
            }
        };
        Ok(Conflicts { members, shape })
    }

    pub(crate) fn sets(&self) -> Sets<'a> {
        self.members.sets()
    }

    /// The number of sets.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no sets.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn problem(&self) -> &'a dyn GrayBoxProblem {
        self.members.problem()
    }

    /// The variables of set i.
    pub fn members(&self, i: usize) -> &[u32] {
        self.members.of(i)
    }

    /// Fresh marks for one thread.
    pub fn marks(&self) -> Marks {
        let var_mark = match self.shape {
            Shape::Tree { .. } => Vec::new(),
            Shape::Index { .. } => vec![0; self.problem().variables()],
        };
        Marks { mark: 0, set_mark: vec![0; self.len()], var_mark, closure: Vec::new() }
    }

    /// Calls `f` once for every set conflicting with set i.
    pub fn for_each(&self, i: usize, marks: &mut Marks, mut f: impl FnMut(u32)) {
        let mark = marks.next();
        let p = self.problem().functions();
        match &self.shape {
            Shape::Tree { leaf, parent } => {
                let set_mark = &mut marks.set_mark;
                // i's own chain first (without i), so that walks from its variables stop at i.
                set_mark[i] = mark;
                // Up from a set: each set met is new until the first one already met.
                let mut walk = |mut s: u32, f: &mut dyn FnMut(u32)| {
                    while s != NONE && set_mark[s as usize] != mark {
                        set_mark[s as usize] = mark;
                        f(s);
                        s = parent[s as usize];
                    }
                };
                walk(parent[i], &mut f);
                for_each_in_closure(p, self.members(i), |u| walk(leaf[u as usize], &mut f));
            }
            Shape::Index { offsets, sets } => {
                let Marks { set_mark, var_mark, closure, .. } = marks;
                closure.clear();
                for_each_in_closure(p, self.members(i), |u| {
                    if var_mark[u as usize] != mark {
                        var_mark[u as usize] = mark;
                        closure.push(u);
                    }
                });
                set_mark[i] = mark;
                for &u in closure.iter() {
                    for &j in &sets[offsets[u as usize]..offsets[u as usize + 1]] {
                        if set_mark[j as usize] != mark {
                            set_mark[j as usize] = mark;
                            f(j);
                        }
                    }
                }
            }
        }
    }

    /// The number of sets conflicting with each set (its LMIG degree), in parallel.
    ///
    /// For a tree, along heavy paths: going up a path from its lowest set, each set's conflicts
    /// are those of the set below it plus those of the variables it adds (its other children's),
    /// so the marks of one walk are kept all the way up. A variable is then walked from once per
    /// path above it (at most log2 of the number of sets), and each conflict is marked once per
    /// path: O(total set size + (variables + subfunction entries) * log(sets) + sum over the
    /// paths' top sets of their degrees), against the sum of all the degrees set by set.
    pub fn degrees(&self, stop: &StopCheck) -> Result<Vec<u32>> {
        crate::problem::memory::ensure(
            4 * self.len() as u128 * (6 + rayon::current_num_threads() as u128),
            &format!("the conflict counts of {} linkage sets", self.len()),
        )?;
        if let (Sets::Fos(fos), Shape::Tree { leaf, parent }) = (self.sets(), &self.shape) {
            return self.tree_degrees(fos, leaf, parent, stop);
        }
        let degrees = (0..self.len())
            .into_par_iter()
            .map_init(
                || (self.marks(), 0),
                |(marks, done), i| {
                    // A set's conflicts take time in its variables' subfunctions' variables.
                    stop.after(done, 16 * self.members(i).len())?;
                    let mut degree = 0u32;
                    self.for_each(i, marks, |_| degree += 1);
                    Ok(degree)
                },
            )
            .collect::<std::result::Result<Vec<u32>, StopReason>>()?;
        Ok(degrees)
    }
}

impl Conflicts<'_> {
    /// [`Conflicts::degrees`] of a tree, path by path.
    fn tree_degrees(&self, fos: &Fos, leaf: &[u32], parent: &[u32], stop: &StopCheck) -> Result<Vec<u32>> {
        let n = fos.len();
        let p = self.problem().functions();
        // Children in CSR form; the heavy child of each set is its largest (ties: lowest index).
        let mut offsets = vec![0u32; n + 1];
        for &q in parent {
            if q != NONE {
                offsets[q as usize + 1] += 1;
            }
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut children = vec![0u32; offsets[n] as usize];
        for (c, &q) in parent.iter().enumerate() {
            if q != NONE {
                children[fill[q as usize] as usize] = c as u32;
                fill[q as usize] += 1;
            }
        }
        drop(fill);
        let kids = |i: usize| &children[offsets[i] as usize..offsets[i + 1] as usize];
        let heavy: Vec<u32> = (0..n)
            .map(|i| kids(i).iter().copied().max_by_key(|&c| (fos.set(c as usize).len(), Reverse(c))).unwrap_or(NONE))
            .collect();
        // Pre-order positions and subtree extents: set c lies in set i's subtree exactly when
        // first[i] <= first[c] < first[i] + extent[i].
        let mut first = vec![0u32; n];
        let mut extent = vec![1u32; n];
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut pending: Vec<u32> = (0..n as u32).filter(|&i| parent[i as usize] == NONE).collect();
        pending.reverse();
        while let Some(i) = pending.pop() {
            first[i as usize] = order.len() as u32;
            order.push(i);
            pending.extend(kids(i as usize).iter().rev());
        }
        for &i in order.iter().rev() {
            if parent[i as usize] != NONE {
                extent[parent[i as usize] as usize] += extent[i as usize];
            }
        }
        // The walks run on pre-order positions: a path's sets and the variables it walks from lie
        // mostly in its top's subtree, one stretch of positions (a cache-friendly order).
        let up: Vec<u32> = order
            .iter()
            .map(|&i| parent[i as usize])
            .map(|q| if q == NONE { NONE } else { first[q as usize] })
            .collect();
        let leaf_at: Vec<u32> = leaf.iter().map(|&s| if s == NONE { NONE } else { first[s as usize] }).collect();
        drop(order);
        // Each variable's closure once: the positions of its own and its neighbours' smallest
        // sets, deduplicated and ascending (a subfunction of arity k lists k - 1 neighbours, and
        // a neighbour shared by several subfunctions would be walked from again).
        let l = p.variables();
        let lists: Vec<Vec<u32>> = (0..l)
            .into_par_iter()
            .map(|v| {
                let mut list = Vec::new();
                for_each_in_closure(p, &[v as u32], |u| {
                    if leaf_at[u as usize] != NONE {
                        list.push(leaf_at[u as usize]);
                    }
                });
                list.sort_unstable();
                list.dedup();
                list
            })
            .collect();
        let mut closure_at = Vec::with_capacity(l + 1);
        closure_at.push(0usize);
        for list in &lists {
            closure_at.push(closure_at.last().unwrap() + list.len());
        }
        let closure: Vec<u32> = lists.into_iter().flatten().collect();
        // The paths' top sets: the roots and every child that is not its parent's heavy one.
        let tops: Vec<u32> =
            (0..n as u32).filter(|&i| parent[i as usize] == NONE || heavy[parent[i as usize] as usize] != i).collect();
        let per_path: Vec<Vec<(u32, u32)>> = tops
            .par_iter()
            .map_init(
                || (self.marks(), Vec::new()),
                |(marks, path), &top| -> std::result::Result<Vec<(u32, u32)>, StopReason> {
                    stop.check()?;
                    path.clear();
                    let mut i = top;
                    while i != NONE {
                        path.push(i);
                        i = heavy[i as usize];
                    }
                    let mark = marks.next();
                    let set_mark = &mut marks.set_mark;
                    let mut count = 0u32;
                    // Up from a position until the first set already met; returns how many were new.
                    let walk = |mut at: u32, set_mark: &mut [u32]| {
                        let mut new = 0;
                        while at != NONE && set_mark[at as usize] != mark {
                            set_mark[at as usize] = mark;
                            new += 1;
                            at = up[at as usize];
                        }
                        new
                    };
                    let mut out = Vec::with_capacity(path.len());
                    let mut below = NONE;
                    let mut done = 0;
                    for &i in path.iter().rev() {
                        stop.after(&mut done, fos.set(i as usize).len())?;
                        // The variables of set i not in the set below it.
                        let skip = if below == NONE {
                            0..0
                        } else {
                            first[below as usize]..first[below as usize] + extent[below as usize]
                        };
                        for &v in fos.set(i as usize) {
                            if skip.contains(&leaf_at[v as usize]) {
                                continue;
                            }
                            for &at in &closure[closure_at[v as usize]..closure_at[v as usize + 1]] {
                                count += walk(at, set_mark);
                            }
                        }
                        // The count holds set i itself (it holds its own variables).
                        out.push((i, count - 1));
                        below = i;
                    }
                    Ok(out)
                },
            )
            .collect::<std::result::Result<_, StopReason>>()?;
        let mut degrees = vec![0u32; n];
        for (i, d) in per_path.into_iter().flatten() {
            degrees[i as usize] = d;
        }
        Ok(degrees)
    }
}

impl Marks {
    fn next(&mut self) -> u32 {
        self.mark = self.mark.wrapping_add(1);
        if self.mark == 0 {
            self.set_mark.fill(0);
            self.var_mark.fill(0);
            self.mark = 1;
        }
        self.mark
    }
}

/// The tree of a laminar family: each variable's smallest set and each set's smallest strict
/// superset, or `None` when two sets overlap without one containing the other. Sets are taken
/// smallest first (ties in FOS order, so of two equal sets the later is the parent); a set's
/// children are then the largest sets taken so far that hold its variables, and the family is
/// laminar exactly when every such child lies wholly inside it.
fn tree(fos: &Fos, l: usize, stop: &StopCheck) -> Result<Option<(Vec<u32>, Vec<u32>)>> {
    let n = fos.len();
    // Counting sort by size (stable: FOS order within a size).
    let largest = fos.largest_set();
    let mut start = vec![0usize; largest + 2];
    for s in fos.sets() {
        start[s.len() + 1] += 1;
    }
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
    let mut by_size = vec![0u32; n];
    for (i, s) in fos.sets().enumerate() {
        by_size[start[s.len()]] = i as u32;
        start[s.len()] += 1;
    }
    drop(start);
    let mut leaf = vec![NONE; l];
    let mut parent = vec![NONE; n];
    // top[v]: the largest set taken so far that holds v; seen[c] counts c's variables met in the
    // set being taken.
    let mut top = vec![NONE; l];
    let mut seen = vec![0u32; n];
    let mut done = 0;
    for &i in &by_size {
        let set = fos.set(i as usize);
        stop.after(&mut done, set.len())?;
        for &v in set {
            let Some(t) = top.get(v as usize) else { return Ok(None) };
            if *t == NONE {
                leaf[v as usize] = i;
            } else {
                seen[*t as usize] += 1;
            }
        }
        for &v in set {
            let t = top[v as usize];
            if t != NONE {
                // Every variable of child t must lie in set i (none outside it).
                if seen[t as usize] as usize != fos.set(t as usize).len() {
                    return Ok(None);
                }
                parent[t as usize] = i;
            }
        }
        for &v in set {
            let t = top[v as usize];
            if t != NONE {
                seen[t as usize] = 0;
            }
            top[v as usize] = i;
        }
    }
    Ok(Some((leaf, parent)))
}

/// The index of the sets holding each variable, sets ascending.
fn index(fos: &Fos, l: usize, stop: &StopCheck) -> Result<Shape> {
    let total = fos.total_size();
    crate::problem::memory::ensure(
        8 * (l as u128 + 1) + 4 * total as u128,
        &format!("the index of {} linkage sets", fos.len()),
    )?;
    let mut offsets = vec![0usize; l + 1];
    for set in fos.sets() {
        for &v in set {
            let slot = offsets
                .get_mut(v as usize + 1)
                .ok_or_else(|| Error::Internal(format!("a linkage set holds variable {v}, out of range 0..{l}")))?;
            *slot += 1;
        }
    }
    for v in 0..l {
        offsets[v + 1] += offsets[v];
    }
    let mut fill = offsets.clone();
    let mut sets = vec![0u32; total];
    let mut done = 0;
    for (i, set) in fos.sets().enumerate() {
        stop.after(&mut done, set.len())?;
        for &v in set {
            sets[fill[v as usize]] = i as u32;
            fill[v as usize] += 1;
        }
    }
    Ok(Shape::Index { offsets, sets })
}
