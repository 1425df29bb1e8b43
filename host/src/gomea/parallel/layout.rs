//! The flat arrays of parallel GOM, built once per run and shared by both backends (the CUDA
//! backend uploads them as they are).
//!
//! The linkage sets are renumbered into *slots*, ordered by colour group: group g owns slots
//! `group_slots[g]..group_slots[g+1]`. Slot s has the variables `vars[var_offsets[s]..var_offsets[s+1]]`
//! and the dependent subfunctions (those that read a variable of the set, each once)
//! `dep_subfunctions[dep_offsets[s]..dep_offsets[s+1]]`. Within a group the slots' dependent
//! subfunctions are contiguous, so a group's are one range `dep_offsets[first]..dep_offsets[last]`
//! and stage 4 reduces them by key (the slot) segment by segment. The device crate's
//! `stage::Layout` is this layout's pointers.
//!
//! Within a group, the slots are ordered by how many GPU threads work on one of them
//! ([`pgomea_device::gom::crew_kind`]: a lane, a warp, a block), with `group_crews` marking where each
//! crew's slots end; the order of the slots of a group changes no result (they are mixed in
//! parallel), only how the kernels share the work out.

use pgomea_device::gom::{CrewKind, crew_kind};
use pgomea_device::stage::{BufferSizes, Layout, SearchArgs};

use crate::gomea::local_search::{AnnealSchedule, VariableColors, search_args};
use crate::linkage::fos::Fos;
use crate::problem::{ArrayPlace, GrayBoxProblem};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupLayout {
    pub variables: usize,
    pub group_slots: Vec<u32>,
    /// Per group, two counts from its first slot: where the slots for one lane end, and where
    /// the slots for one warp end (the rest are for one block each).
    pub group_crews: Vec<u32>,
    /// The FOS index of each slot (the `set` coordinate of the random counter).
    pub slot_set: Vec<u32>,
    pub var_offsets: Vec<u32>,
    pub vars: Vec<u32>,
    pub dep_offsets: Vec<u32>,
    pub dep_subfunctions: Vec<u32>,
    /// The largest number of slots, and of dependent entries, in one group (buffer sizes).
    pub max_group_slots: usize,
    pub max_group_deps: usize,
    /// The colour groups of the variables for local search (none when it is off), and its
    /// annealing schedule.
    pub variable_colors: VariableColors,
    pub anneal: AnnealSchedule,
}

impl GroupLayout {
    pub fn new(problem: &dyn GrayBoxProblem, fos: &Fos, groups: &[Vec<u32>]) -> Self {
        let l = problem.variables();
        let mut layout = GroupLayout {
            variables: l,
            group_slots: vec![0],
            group_crews: Vec::new(),
            slot_set: Vec::new(),
            var_offsets: vec![0],
            vars: Vec::new(),
            dep_offsets: vec![0],
            dep_subfunctions: Vec::new(),
            max_group_slots: 0,
            max_group_deps: 0,
            variable_colors: VariableColors::default(),
            anneal: AnnealSchedule::default(),
        };
        let mut in_set = vec![false; l];
        for group in groups {
            let dep_start = layout.dep_subfunctions.len();
            let mut slots: Vec<(CrewKind, u32, Vec<u32>)> = Vec::with_capacity(group.len());
            for &set_index in group {
                let set = &fos.sets[set_index as usize];
                for &v in set {
                    in_set[v as usize] = true;
                }
                // A subfunction is listed by the first of its variables (in its own order) that
                // lies in the set, so once.
                let mut deps = Vec::new();
                for &v in set {
                    for &e in problem.dependent_subfunctions(v as usize) {
                        let first = problem.subfunction_variables(e as usize).iter().find(|&&u| in_set[u as usize]);
                        if first == Some(&v) {
                            deps.push(e);
                        }
                    }
                }
                for &v in set {
                    in_set[v as usize] = false;
                }
                slots.push((crew_kind(set.len(), deps.len()), set_index, deps));
            }
            // A stable sort: within a crew, the colouring's order.
            slots.sort_by_key(|&(c, _, _)| c);
            let end = |c: CrewKind| slots.partition_point(|&(x, _, _)| x <= c) as u32;
            layout.group_crews.extend([end(CrewKind::Lane), end(CrewKind::Warp)]);
            for (_, set_index, deps) in slots {
                layout.slot_set.push(set_index);
                layout.vars.extend_from_slice(&fos.sets[set_index as usize]);
                layout.var_offsets.push(layout.vars.len() as u32);
                layout.dep_subfunctions.extend_from_slice(&deps);
                layout.dep_offsets.push(layout.dep_subfunctions.len() as u32);
            }
            layout.group_slots.push(layout.slot_set.len() as u32);
            layout.max_group_slots = layout.max_group_slots.max(group.len());
            layout.max_group_deps = layout.max_group_deps.max(layout.dep_subfunctions.len() - dep_start);
        }
        layout
    }

    pub fn groups(&self) -> usize {
        self.group_slots.len() - 1
    }

    /// The slots of group g.
    pub fn slots(&self, g: usize) -> std::ops::Range<usize> {
        self.group_slots[g] as usize..self.group_slots[g + 1] as usize
    }

    /// The dependent entries of group g.
    pub fn deps(&self, g: usize) -> std::ops::Range<usize> {
        let s = self.slots(g);
        self.dep_offsets[s.start] as usize..self.dep_offsets[s.end] as usize
    }

    pub fn set_vars(&self, slot: usize) -> &[u32] {
        &self.vars[self.var_offsets[slot] as usize..self.var_offsets[slot + 1] as usize]
    }

    /// The sizes of the buffers of a population of `n` in this layout.
    pub fn buffer_sizes(&self, n: usize) -> BufferSizes {
        BufferSizes {
            n,
            l: self.variables,
            row_slots: self.max_group_slots.max(1),
            row_deps: self.max_group_deps.max(1),
            groups: self.groups(),
        }
    }

    /// What every population of a run shares, put in `place`: the layout's arrays (in the order
    /// of the device's `Layout`) and what local search reads, with the problem's `incidence`
    /// (`Subfunctions::incidence`).
    pub fn place<P: ArrayPlace>(
        &self,
        incidence: (&[u32], &[u32]),
        place: &mut P,
    ) -> Result<(Layout, SearchArgs), P::Error> {
        let arrays = [
            &self.group_slots,
            &self.group_crews,
            &self.slot_set,
            &self.var_offsets,
            &self.vars,
            &self.dep_offsets,
            &self.dep_subfunctions,
        ];
        let mut pointers = [Default::default(); Layout::ARRAYS];
        for (p, a) in pointers.iter_mut().zip(arrays) {
            *p = place.place(a)?;
        }
        let search = search_args(&self.variable_colors, incidence, &self.anneal, place)?;
        Ok((Layout::from_arrays(pointers), search))
    }
}
