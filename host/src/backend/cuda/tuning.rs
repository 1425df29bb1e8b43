//! The CUDA backend's tuning knobs, as values: how whole generations run and the launch shapes.
//! Each population's backend takes its own [`CudaTuning`], so one process may run two tunings.
//! The values are run options in every build; the launch shapes they give need the `cuda` feature.

#[cfg(feature = "cuda")]
use cudarc::driver::{CudaFunction, LaunchConfig};
#[cfg(feature = "cuda")]
use pgomea_device::kernel_names::KIND_KERNELS;
use serde::{Deserialize, Serialize};

#[cfg(feature = "cuda")]
use super::gpu::{Gpu, cuda_err};
use crate::error::{Error, Result};

/// How the CUDA backend runs a whole generation when it need not stop between groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WholeGeneration {
    /// One cooperative launch of the whole-generation kernel (grid barriers between stages, or
    /// in GOM's one pass a barrier per solution's team of blocks);
    /// Forced Improvement and local search in one cooperative launch each too.
    Cooperative,
    /// No cooperative launch (what a device without it does): the pass kernels of every group
    /// captured once as a CUDA graph and replayed, Forced Improvement group by group, local
    /// search colour by colour.
    Graph,
    /// One launch of the generation-by-solution kernel: a block per solution runs every group
    /// with block barriers between stages (the solutions of a generation are independent), for
    /// GOM and Forced Improvement alike; local search with a block per solution too; any device.
    #[serde(rename = "by-solution")]
    BySolution,
}

/// How GOM runs a colour group on the GPU (the same results either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupPasses {
    /// One pass: each pair's crew also evaluates its own subfunctions (`stage::ONE_PASS`).
    One,
    /// Three passes, the subfunctions with a thread each in the middle one (`stage::THREE_PASSES`).
    Three,
}

/// The tuning of the CUDA backend (for benchmarks; the defaults are what measured best on an
/// H100). [`CudaTuning::validate`] checks every field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CudaTuning {
    /// How whole generations run; none: cooperatively where the device can, else as a graph.
    pub generation: Option<WholeGeneration>,
    /// How GOM runs a colour group; none: as the backend's one-pass rule says (`CudaTuning::one_pass`).
    pub group_passes: Option<GroupPasses>,
    /// Threads per block of the cooperative kernels: a multiple of 32 from 32 to 1024
    /// (default 512).
    pub generation_block: u32,
    /// The most blocks per multiprocessor in the grid of a cooperative kernel, from 1 to 32
    /// (default 2); fewer where the kernel's occupancy allows fewer (every block of a
    /// cooperative launch must be resident).
    pub generation_blocks_per_sm: u32,
    /// The most blocks of 128 threads per multiprocessor in the grid of the other kernels, from
    /// 1 to 64 (default 16: 2048 threads, a full H100 multiprocessor); their loops stride over
    /// the rest.
    pub blocks_per_sm: u32,
    /// Whether the search by solution keeps every variable's gain on pairwise kinds; none: where
    /// the block updates a mean colour's partners together, as on dense models
    /// (`CudaTuning::keeps_gains`, `docs/decisions/0029-kept-gains.md`).
    pub kept_gains: Option<bool>,
}

impl Default for CudaTuning {
    fn default() -> Self {
        CudaTuning {
            generation: None,
            group_passes: None,
            generation_block: 512,
            generation_blocks_per_sm: 2,
            blocks_per_sm: 16,
            kept_gains: None,
        }
    }
}

/// The partners a variable has at least, per variable of a mean colour, for the GPU to keep the
/// gains by default: on an H100, random graphs of 2000 vertices with 600 partners in colours of
/// 15 ran better with them, with 200 in colours of 41 alike, with 60 in colours of 100 worse
/// (`docs/decisions/0029-kept-gains.md`).
#[cfg(any(feature = "cuda", test))]
const KEPT_PARTNERS_PER_VARIABLE: u64 = 8;

/// The numeric fields: name, environment variable, least and most value, and the step.
const NUMBERS: [(&str, &str, u32, u32, u32); 3] = [
    ("generation_block", "PGOMEA_GENERATION_BLOCK", 32, 1024, 32),
    ("generation_blocks_per_sm", "PGOMEA_GENERATION_BLOCKS_PER_SM", 1, 32, 1),
    ("blocks_per_sm", "PGOMEA_BLOCKS_PER_SM", 1, 64, 1),
];

/// Whether `value` is in the range of numeric field `k`.
fn in_range(k: usize, value: u32) -> bool {
    let (_, _, least, most, step) = NUMBERS[k];
    (least..=most).contains(&value) && value.is_multiple_of(step)
}

/// What numeric field `k` takes.
fn expected(k: usize) -> String {
    let (_, _, least, most, step) = NUMBERS[k];
    let multiple = if step > 1 { format!("a multiple of {step} ") } else { String::new() };
    format!("expected {multiple}from {least} to {most}")
}

/// Warps per block of the warp-per-item kernels, threads per block of the thread-per-item ones.
#[cfg(feature = "cuda")]
const WARPS_PER_BLOCK: u32 = 4;
#[cfg(feature = "cuda")]
const THREADS_PER_BLOCK: u32 = 256;

impl CudaTuning {
    fn numbers_mut(&mut self) -> [&mut u32; 3] {
        [&mut self.generation_block, &mut self.generation_blocks_per_sm, &mut self.blocks_per_sm]
    }

    /// Checks every field; the error names the field.
    pub fn validate(&self) -> Result<()> {
        let numbers = [self.generation_block, self.generation_blocks_per_sm, self.blocks_per_sm];
        for (k, value) in numbers.into_iter().enumerate() {
            if !in_range(k, value) {
                return Err(Error::usage(format!("CUDA tuning: {} = {value}: {}", NUMBERS[k].0, expected(k))));
            }
        }
        Ok(())
    }

    /// The defaults, with the variables `variable` gives (the command line passes its process
    /// environment; the library reads none): `PGOMEA_CUDA_GENERATION=graph|cooperative|by-solution`,
    /// `PGOMEA_CUDA_GROUP_PASSES=one|three`, `PGOMEA_CUDA_KEPT_GAINS=on|off|auto`, `PGOMEA_GENERATION_BLOCK`,
    /// `PGOMEA_GENERATION_BLOCKS_PER_SM` and `PGOMEA_BLOCKS_PER_SM` where they are set; a bad value
    /// is an error that names its variable.
    pub fn from_variables(variable: impl Fn(&str) -> Option<String>) -> Result<CudaTuning> {
        let mut tuning = CudaTuning::default();
        if let Some(text) = variable("PGOMEA_CUDA_GENERATION") {
            tuning.generation = Some(match text.trim() {
                "graph" => WholeGeneration::Graph,
                "cooperative" => WholeGeneration::Cooperative,
                "by-solution" => WholeGeneration::BySolution,
                _ => {
                    return Err(Error::usage(format!(
                        "PGOMEA_CUDA_GENERATION={text}: expected graph, cooperative or by-solution"
                    )));
                }
            });
        }
        if let Some(text) = variable("PGOMEA_CUDA_GROUP_PASSES") {
            tuning.group_passes = Some(match text.trim() {
                "one" => GroupPasses::One,
                "three" => GroupPasses::Three,
                _ => return Err(Error::usage(format!("PGOMEA_CUDA_GROUP_PASSES={text}: expected one or three"))),
            });
        }
        if let Some(text) = variable("PGOMEA_CUDA_KEPT_GAINS") {
            tuning.kept_gains = match text.trim() {
                "on" => Some(true),
                "off" => Some(false),
                "auto" => None,
                _ => return Err(Error::usage(format!("PGOMEA_CUDA_KEPT_GAINS={text}: expected on, off or auto"))),
            };
        }
        for (k, field) in tuning.numbers_mut().into_iter().enumerate() {
            let name = NUMBERS[k].1;
            let Some(text) = variable(name) else { continue };
            match text.trim().parse::<u32>() {
                Ok(value) if in_range(k, value) => *field = value,
                _ => return Err(Error::usage(format!("{name}={text}: {}", expected(k)))),
            }
        }
        Ok(tuning)
    }

    /// The grid for `items` work items of a stage kernel, one warp (`per_warp`) or one thread
    /// each: enough blocks to cover them, at most [`CudaTuning::blocks_per_sm`] blocks of 128
    /// threads per multiprocessor (the kernels loop grid-stride over the rest).
    #[cfg(feature = "cuda")]
    pub(super) fn grid(&self, multiprocessors: u32, items: u64, per_warp: bool) -> LaunchConfig {
        let sms = multiprocessors as u64;
        let (per_block, threads, cap) = if per_warp {
            (WARPS_PER_BLOCK as u64, 32 * WARPS_PER_BLOCK, self.blocks_per_sm as u64 * sms)
        } else {
            (THREADS_PER_BLOCK as u64, THREADS_PER_BLOCK, (self.blocks_per_sm as u64 / 2).max(1) * sms)
        };
        let blocks = items.div_ceil(per_block).clamp(1, cap.max(1)) as u32;
        LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
    }

    /// The grid of cooperative kernel `f`: as many blocks per multiprocessor as its occupancy
    /// allows, at most [`CudaTuning::generation_blocks_per_sm`], of
    /// [`CudaTuning::generation_block`] threads; none where the device cannot launch
    /// cooperatively (`cooperative` false) or the tuning asks for no cooperative launch.
    #[cfg(feature = "cuda")]
    pub(super) fn cooperative_grid(
        &self,
        f: impl FnOnce() -> Result<CudaFunction>,
        multiprocessors: u32,
        cooperative: bool,
    ) -> Result<Option<LaunchConfig>> {
        if !cooperative || self.generation == Some(WholeGeneration::Graph) {
            return Ok(None);
        }
        let block = self.generation_block;
        let resident =
            f()?.occupancy_max_active_blocks_per_multiprocessor(block, 0, None).map_err(cuda_err("occupancy"))?;
        let per_sm = resident.min(self.generation_blocks_per_sm);
        Ok((per_sm > 0).then(|| LaunchConfig {
            grid_dim: (per_sm * multiprocessors, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        }))
    }

    /// Whether the search by solution, in blocks of `threads`, keeps the gains of `variables` in
    /// `colors` colour groups whose subfunctions have `entries` entries: where asked for, else by
    /// default on dense models, where the block updates a mean colour's partners together
    /// (`stage::kept_together`) and a variable has at least [`KEPT_PARTNERS_PER_VARIABLE`] partners
    /// per variable of its colour. There the recomputed gains are a few long sums that a few
    /// threads add while the block waits, where a kept gain is one read; on sparser models the
    /// per-variable work of the kept search costs more than it saves
    /// (`docs/decisions/0029-kept-gains.md`).
    #[cfg(any(feature = "cuda", test))]
    pub(super) fn keeps_gains(&self, variables: u64, colors: u64, entries: u64, threads: u32) -> bool {
        self.kept_gains.unwrap_or_else(|| {
            let size = variables.div_ceil(colors.max(1));
            let partners = entries / variables.max(1);
            pgomea_device::stage::kept_together(size as usize, threads as usize)
                && partners >= KEPT_PARTNERS_PER_VARIABLE * size
        })
    }
}

/// Where a block per solution runs whole generations by default: layouts of at most
/// `BY_SOLUTION_MAX_SETS` linkage sets (beyond, the blocks, each at its own group, no longer
/// share the layout in L2), and, in a population smaller than the device's multiprocessors,
/// groups of at most `BY_SOLUTION_MEAN_GROUP` sets on average (beyond, one multiprocessor per
/// solution is too little) (`docs/decisions/0020-whole-generations-by-solution.md`).
#[cfg(feature = "cuda")]
const BY_SOLUTION_MAX_SETS: usize = 1 << 16;
#[cfg(feature = "cuda")]
const BY_SOLUTION_MEAN_GROUP: usize = 256;

/// Where a block per solution runs local search by default: instances of at most this many
/// variables, whatever the population, where it was faster than the cooperative search
/// (`docs/decisions/0020-whole-generations-by-solution.md`).
#[cfg(feature = "cuda")]
const SEARCH_BY_SOLUTION_MAX_VARIABLES: usize = 1 << 16;

/// GOM in one pass per group where groups hold at least this many linkage sets on average: there
/// enough pairs keep the threads busy without stage 3's thread per subfunction, and below it three
/// passes were faster (`docs/decisions/0021-gom-in-one-pass.md`).
#[cfg(feature = "cuda")]
const ONE_PASS_MEAN_GROUP: usize = 256;

#[cfg(feature = "cuda")]
impl CudaTuning {
    /// The grid of local search with a block per solution (the search kernel's `by_solution`)
    /// for a population of `n` on an instance of `variables` variables; none where it runs
    /// otherwise. As [`CudaTuning::by_solution_grid`], with the search's rule.
    pub(super) fn search_by_solution_grid(
        &self,
        f: impl FnOnce() -> Result<CudaFunction>,
        multiprocessors: u32,
        n: usize,
        variables: usize,
    ) -> Result<Option<LaunchConfig>> {
        let Some(block) = self.search_block(multiprocessors, n, variables) else { return Ok(None) };
        fitting_grid(f, block, n, "local search")
    }

    /// Whether GOM runs each colour group of a layout with `slots` linkage sets in `groups` groups
    /// in one pass: where asked for, else by default where groups hold at least
    /// `ONE_PASS_MEAN_GROUP` sets on average (enough pairs to keep the threads busy without a
    /// thread per subfunction).
    pub(super) fn one_pass(&self, slots: usize, groups: usize) -> bool {
        match self.group_passes {
            Some(passes) => passes == GroupPasses::One,
            None => slots >= ONE_PASS_MEAN_GROUP * groups.max(1),
        }
    }

    /// The grid of the generation-by-solution kernel `f` for a population of `n` whose layout
    /// has `slots` linkage sets in `groups` colour groups; none where whole generations run
    /// another way: where asked for, or by default where measurement found it faster
    /// (`BY_SOLUTION_MAX_SETS`); the block as `block_per_solution` says, halved until the
    /// kernel's registers let one be resident.
    pub(super) fn by_solution_grid(
        &self,
        f: impl FnOnce() -> Result<CudaFunction>,
        multiprocessors: u32,
        n: usize,
        slots: usize,
        groups: usize,
    ) -> Result<Option<LaunchConfig>> {
        let Some(block) = self.by_solution_block(multiprocessors, n, slots, groups) else { return Ok(None) };
        fitting_grid(f, block, n, "the generation by solution")
    }

    /// The block size of [`CudaTuning::by_solution_grid`] before the kernel's registers are
    /// considered, or none.
    fn by_solution_block(&self, multiprocessors: u32, n: usize, slots: usize, groups: usize) -> Option<u32> {
        let small = slots <= BY_SOLUTION_MAX_SETS
            && (n >= multiprocessors as usize || slots <= BY_SOLUTION_MEAN_GROUP * groups.max(1));
        self.block_per_solution(multiprocessors, n, small)
    }

    /// The block size of [`CudaTuning::search_by_solution_grid`] before the kernel's registers
    /// are considered, or none.
    fn search_block(&self, multiprocessors: u32, n: usize, variables: usize) -> Option<u32> {
        self.block_per_solution(multiprocessors, n, variables <= SEARCH_BY_SOLUTION_MAX_VARIABLES)
    }

    /// The block per solution: asked for (`generation` by-solution), of
    /// [`CudaTuning::generation_block`] threads; by default where `small` (the caller's rule)
    /// holds, of 1024 threads while every solution has a multiprocessor of its own, 512 while it
    /// has half of one, else 256.
    fn block_per_solution(&self, multiprocessors: u32, n: usize, small: bool) -> Option<u32> {
        let sms = multiprocessors as usize;
        match self.generation {
            Some(WholeGeneration::BySolution) => Some(self.generation_block),
            Some(_) => None,
            None if !small => None,
            None if n <= sms => Some(1024),
            None if n <= 2 * sms => Some(512),
            None => Some(256),
        }
    }
}

/// A block per solution for `n` solutions, of `block` threads or, where kernel `f`'s registers
/// do not let that many be resident, half as many, and so on.
#[cfg(feature = "cuda")]
fn fitting_grid(
    f: impl FnOnce() -> Result<CudaFunction>,
    mut block: u32,
    n: usize,
    what: &str,
) -> Result<Option<LaunchConfig>> {
    let f = f()?;
    while f.occupancy_max_active_blocks_per_multiprocessor(block, 0, None).map_err(cuda_err("occupancy"))? == 0 {
        if block == 32 {
            return Err(Error::Cuda(format!("the kernel of {what} cannot run even 32 threads in a block")));
        }
        block = (block / 2 / 32 * 32).max(32);
    }
    Ok(Some(LaunchConfig { grid_dim: (n as u32, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }))
}

#[cfg(feature = "cuda")]
impl Gpu {
    /// How the whole generations of a population of `n` of problem kind `kind` (`Kind::NAME`)
    /// run with `tuning`, in words: "by solution, N blocks of B", "cooperative, N blocks of B" or
    /// "graph", then "one pass" or "three passes". `slots` and `groups` are the layout's linkage
    /// sets and colour groups.
    pub fn whole_generation(
        &self,
        kind: &str,
        tuning: &CudaTuning,
        n: usize,
        slots: usize,
        groups: usize,
    ) -> Result<String> {
        let (_, names) = KIND_KERNELS
            .iter()
            .find(|(k, _)| *k == kind)
            .ok_or_else(|| Error::Cuda(format!("no kernels for problem kind {kind}")))?;
        let one_pass = tuning.one_pass(slots, groups);
        let (generation, by_solution) = names.gom_generation(one_pass);
        let passes = if one_pass { "one pass" } else { "three passes" };
        let shape = |c: LaunchConfig| format!("{} blocks of {}, {passes}", c.grid_dim.0, c.block_dim.0);
        let function = |name| move || Ok(self.kernel(name)?.function);
        if let Some(c) = tuning.by_solution_grid(function(by_solution), self.multiprocessors, n, slots, groups)? {
            return Ok(format!("by solution, {}", shape(c)));
        }
        Ok(match tuning.cooperative_grid(function(generation), self.multiprocessors, self.cooperative)? {
            Some(c) => format!("cooperative, {}", shape(c)),
            None => format!("graph, {passes}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_and_a_field_out_of_range_is_named() {
        CudaTuning::default().validate().unwrap();
        let bad = [
            (CudaTuning { generation_block: 48, ..CudaTuning::default() }, "generation_block = 48"),
            (CudaTuning { generation_block: 2048, ..CudaTuning::default() }, "generation_block = 2048"),
            (CudaTuning { generation_blocks_per_sm: 0, ..CudaTuning::default() }, "generation_blocks_per_sm = 0"),
            (CudaTuning { blocks_per_sm: 65, ..CudaTuning::default() }, "blocks_per_sm = 65"),
        ];
        for (tuning, field) in bad {
            let e = tuning.validate().unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
        let edges =
            CudaTuning { generation_block: 1024, generation_blocks_per_sm: 32, blocks_per_sm: 1, ..Default::default() };
        edges.validate().unwrap();
    }

    #[test]
    fn the_gains_are_kept_by_default_on_dense_models_only() {
        let auto = CudaTuning::default();
        // The measured models (variables, colours, entries), blocks of 1024: a complete graph of
        // 1000 vertices (a colour per vertex) and a random graph with 600 partners per vertex
        // keep them; with 200 or 60 partners, G23, a 3D glass (two colours) do not.
        assert!(auto.keeps_gains(1000, 1000, 999_000, 1024));
        assert!(auto.keeps_gains(2000, 130, 1_200_000, 1024));
        assert!(!auto.keeps_gains(2000, 49, 400_000, 1024));
        assert!(!auto.keeps_gains(2000, 20, 120_000, 1024));
        assert!(!auto.keeps_gains(2000, 10, 40_000, 1024));
        assert!(!auto.keeps_gains(3375, 2, 20_250, 1024));
        // The edges: colours of 16 with 128 partners keep them, with 127 not; colours of 129
        // are too many flips for the block, whatever the partners.
        assert!(auto.keeps_gains(1600, 100, 1600 * 128, 1024));
        assert!(!auto.keeps_gains(1600, 100, 1600 * 127, 1024));
        assert!(!auto.keeps_gains(129 * 10, 10, 129 * 10 * 2000, 1024));
        let (on, off) = (CudaTuning { kept_gains: Some(true), ..auto }, CudaTuning { kept_gains: Some(false), ..auto });
        assert!(on.keeps_gains(3375, 2, 20_250, 1024));
        assert!(!off.keeps_gains(1000, 1000, 999_000, 1024));
    }

    #[test]
    fn the_environment_sets_the_knobs_and_a_bad_variable_is_named() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(CudaTuning::from_variables(vars(&[])).unwrap(), CudaTuning::default());
        let t = CudaTuning::from_variables(vars(&[
            ("PGOMEA_CUDA_GENERATION", "graph"),
            ("PGOMEA_GENERATION_BLOCK", "256"),
            ("PGOMEA_GENERATION_BLOCKS_PER_SM", "4"),
            ("PGOMEA_BLOCKS_PER_SM", " 8 "),
            ("PGOMEA_CUDA_GROUP_PASSES", "three"),
            ("PGOMEA_CUDA_KEPT_GAINS", "on"),
        ]))
        .unwrap();
        let expected = CudaTuning {
            generation: Some(WholeGeneration::Graph),
            group_passes: Some(GroupPasses::Three),
            generation_block: 256,
            generation_blocks_per_sm: 4,
            blocks_per_sm: 8,
            kept_gains: Some(true),
        };
        assert_eq!(t, expected);
        let auto = CudaTuning::from_variables(vars(&[("PGOMEA_CUDA_KEPT_GAINS", "auto")])).unwrap();
        assert_eq!(auto.kept_gains, None);
        let by_solution = CudaTuning::from_variables(vars(&[("PGOMEA_CUDA_GENERATION", "by-solution")])).unwrap();
        assert_eq!(by_solution.generation, Some(WholeGeneration::BySolution));
        for (bad, named) in [
            (&[("PGOMEA_CUDA_GENERATION", "fast")][..], "PGOMEA_CUDA_GENERATION=fast"),
            (&[("PGOMEA_GENERATION_BLOCK", "500")][..], "PGOMEA_GENERATION_BLOCK=500"),
            (&[("PGOMEA_GENERATION_BLOCKS_PER_SM", "two")][..], "PGOMEA_GENERATION_BLOCKS_PER_SM=two"),
            (&[("PGOMEA_BLOCKS_PER_SM", "0")][..], "PGOMEA_BLOCKS_PER_SM=0"),
            (&[("PGOMEA_CUDA_GROUP_PASSES", "two")][..], "PGOMEA_CUDA_GROUP_PASSES=two"),
            (&[("PGOMEA_CUDA_KEPT_GAINS", "yes")][..], "PGOMEA_CUDA_KEPT_GAINS=yes"),
        ] {
            let pairs: &'static [(&'static str, &'static str)] = bad;
            let e = CudaTuning::from_variables(vars(pairs)).unwrap_err().to_string();
            assert!(e.contains(named) && e.contains("expected"), "{e}");
        }
    }

    #[test]
    fn a_tuning_reads_back_from_json_and_unknown_fields_are_refused() {
        let t = CudaTuning { generation: Some(WholeGeneration::Cooperative), blocks_per_sm: 4, ..Default::default() };
        let text = serde_json::to_string(&t).unwrap();
        assert!(text.contains("\"generation\":\"cooperative\""), "{text}");
        assert_eq!(serde_json::from_str::<CudaTuning>(&text).unwrap(), t);
        let t = CudaTuning { generation: Some(WholeGeneration::BySolution), ..Default::default() };
        let text = serde_json::to_string(&t).unwrap();
        assert!(text.contains("\"generation\":\"by-solution\""), "{text}");
        assert_eq!(serde_json::from_str::<CudaTuning>(&text).unwrap(), t);
        // Missing fields take their defaults.
        let partial: CudaTuning = serde_json::from_str(r#"{"generation_block": 256}"#).unwrap();
        assert_eq!(partial, CudaTuning { generation_block: 256, ..Default::default() });
        assert!(serde_json::from_str::<CudaTuning>(r#"{"block": 256}"#).is_err());
    }

    #[cfg(feature = "cuda")]
    #[test]
    fn a_block_per_solution_where_it_measured_faster_or_where_asked() {
        let auto = CudaTuning::default();
        // H100: 132 multiprocessors. G1 (1598 sets, 171 groups), G55 (9998, 122), G81 (39998, 42),
        // a 10^5-vertex torus (about 2 x 10^5 sets).
        assert_eq!(auto.by_solution_block(132, 16, 1598, 171), Some(1024));
        assert_eq!(auto.by_solution_block(132, 16, 9998, 122), Some(1024));
        assert_eq!(auto.by_solution_block(132, 16, 39998, 42), None);
        assert_eq!(auto.by_solution_block(132, 64, 39998, 42), None);
        assert_eq!(auto.by_solution_block(132, 256, 39998, 42), Some(512));
        assert_eq!(auto.by_solution_block(132, 1024, 39998, 42), Some(256));
        assert_eq!(auto.by_solution_block(132, 1024, 199_998, 60), None);
        let asked = CudaTuning { generation: Some(WholeGeneration::BySolution), generation_block: 96, ..auto };
        assert_eq!(asked.by_solution_block(132, 1024, 199_998, 60), Some(96));
        for other in [WholeGeneration::Cooperative, WholeGeneration::Graph] {
            let t = CudaTuning { generation: Some(other), ..auto };
            assert_eq!(t.by_solution_block(132, 256, 1598, 171), None);
            assert_eq!(t.search_block(132, 256, 800), None);
        }
        // Local search: G81's 20000 variables at any population, not a 10^5-vertex torus.
        assert_eq!(auto.search_block(132, 16, 20000), Some(1024));
        assert_eq!(auto.search_block(132, 200, 20000), Some(512));
        assert_eq!(auto.search_block(132, 16, 99856), None);
        assert_eq!(asked.search_block(132, 16, 99856), Some(96));
    }

    #[cfg(feature = "cuda")]
    #[test]
    fn gom_in_one_pass_where_groups_are_large_or_where_asked() {
        let auto = CudaTuning::default();
        // G81 (39998 sets, 42 groups), a 10^4-vertex torus (19998, 40) and 10^4 shuffled traps
        // (19998, 31) in one pass; G55 (9998, 122), 3-SAT n = 10^4 (19998, 375), NK n = 2000
        // (3998, 153) and G1 (1598, 171) in three.
        for (slots, groups) in [(39998, 42), (19998, 40), (19998, 31)] {
            assert!(auto.one_pass(slots, groups), "{slots} sets in {groups} groups");
        }
        for (slots, groups) in [(9998, 122), (19998, 375), (3998, 153), (1598, 171)] {
            assert!(!auto.one_pass(slots, groups), "{slots} sets in {groups} groups");
        }
        let one = CudaTuning { group_passes: Some(GroupPasses::One), ..auto };
        let three = CudaTuning { group_passes: Some(GroupPasses::Three), ..auto };
        assert!(one.one_pass(1598, 171) && !three.one_pass(39998, 42));
        let text = serde_json::to_string(&one).unwrap();
        assert!(text.contains("\"group_passes\":\"one\""), "{text}");
    }

    #[cfg(feature = "cuda")]
    #[test]
    fn grids_cover_the_items_up_to_the_cap() {
        let t = CudaTuning { blocks_per_sm: 4, ..Default::default() };
        // One warp per item, four per block of 128 threads.
        let g = t.grid(10, 9, true);
        assert_eq!((g.grid_dim.0, g.block_dim.0), (3, 128));
        assert_eq!(t.grid(10, 1 << 30, true).grid_dim.0, 40);
        // One thread per item, blocks of 256, half as many blocks.
        assert_eq!((t.grid(10, 257, false).grid_dim.0, t.grid(10, 257, false).block_dim.0), (2, 256));
        assert_eq!(t.grid(10, 1 << 30, false).grid_dim.0, 20);
        assert_eq!(t.grid(10, 0, false).grid_dim.0, 1);
    }
}
