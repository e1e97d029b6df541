//! The MSM's tuning knobs in one place: what each trades, its default, and the environment
//! variable that overrides it (read once, by [`MsmTuning::from_env`], where a prover or a
//! benchmark starts; docs/tuning.md lists them for users). The defaults are the H100/H200
//! measurements of docs/tuning.md; the pipeline reads nothing from the environment itself.

/// The MSM's tuning knobs (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsmTuning {
    /// Window bits c (4..=24) instead of the cost model's choice (`FILSNARK_MSM_WINDOW`).
    pub window: Option<u32>,
    /// Sort groups per chunk instead of one per window from 2^22 points on
    /// (`FILSNARK_MSM_GROUPS`).
    pub groups: Option<u32>,
    /// Accumulation threads per SM, 64..=8192 (`FILSNARK_MSM_THREADS_PER_SM`, default 2048):
    /// enough waves that the last one is short; more adds partial records to join.
    pub threads_per_sm: u32,
    /// Threads per SM of the first bucket-reduction level, 64..=8192
    /// (`FILSNARK_MSM_SEGMENT_THREADS_PER_SM`, default 512): more gives shorter segments and
    /// more levels after them.
    pub segment_threads_per_sm: u32,
    /// Blocks of one warp per SM of the sort launches that run beside an accumulation, 1..=64
    /// (`FILSNARK_MSM_SLIM_BLOCKS`, default 1): each takes registers the accumulation would use.
    pub slim_blocks_per_sm: u32,
    /// MiB of raw points per chunk of a streamed MSM, 16..=2048 (`FILSNARK_MSM_STAGE_MIB`,
    /// default 256): two pinned staging buffers and two device buffers of this size, plus the
    /// converted chunk; a larger chunk has fewer sorts and joins, and takes more memory on both
    /// sides.
    pub stage_mib: u32,
    /// Print each MSM's phase times (CUDA events) to stderr (`FILSNARK_MSM_PHASES` set).
    pub phases: bool,
}

impl Default for MsmTuning {
    fn default() -> MsmTuning {
        MsmTuning {
            window: None,
            groups: None,
            threads_per_sm: 2048,
            segment_threads_per_sm: 512,
            slim_blocks_per_sm: 1,
            stage_mib: 256,
            phases: false,
        }
    }
}

impl MsmTuning {
    /// The defaults with every `FILSNARK_MSM_*` variable that is set applied; a value out of
    /// range is an error naming the variable.
    pub fn from_env() -> Result<MsmTuning, String> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// As [`MsmTuning::from_env`] over any source of variables.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<MsmTuning, String> {
        let number = |name: &str, lo: u32, hi: u32| -> Result<Option<u32>, String> {
            let Some(v) = var(name) else { return Ok(None) };
            match v.trim().parse::<u32>() {
                Ok(x) if (lo..=hi).contains(&x) => Ok(Some(x)),
                _ => Err(format!("{name}={v}: expected a whole number in {lo}..={hi}")),
            }
        };
        let d = MsmTuning::default();
        Ok(MsmTuning {
            window: number("FILSNARK_MSM_WINDOW", 4, 24)?,
            groups: number("FILSNARK_MSM_GROUPS", 1, 64)?,
            threads_per_sm: number("FILSNARK_MSM_THREADS_PER_SM", 64, 8192)?.unwrap_or(d.threads_per_sm),
            segment_threads_per_sm: number("FILSNARK_MSM_SEGMENT_THREADS_PER_SM", 64, 8192)?
                .unwrap_or(d.segment_threads_per_sm),
            slim_blocks_per_sm: number("FILSNARK_MSM_SLIM_BLOCKS", 1, 64)?.unwrap_or(d.slim_blocks_per_sm),
            stage_mib: number("FILSNARK_MSM_STAGE_MIB", 16, 2048)?.unwrap_or(d.stage_mib),
            phases: var("FILSNARK_MSM_PHASES").is_some(),
        })
    }

    /// Bytes of raw points per chunk of a streamed MSM.
    pub fn stage_bytes(&self) -> usize {
        (self.stage_mib as usize) << 20
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knobs_parse_with_their_ranges() {
        let none = |_: &str| None;
        assert_eq!(MsmTuning::from_vars(none).unwrap(), MsmTuning::default());
        let set = |name: &str| match name {
            "FILSNARK_MSM_WINDOW" => Some("21".to_string()),
            "FILSNARK_MSM_THREADS_PER_SM" => Some(" 1024 ".to_string()),
            "FILSNARK_MSM_PHASES" => Some(String::new()),
            "FILSNARK_MSM_STAGE_MIB" => Some("512".to_string()),
            _ => None,
        };
        let t = MsmTuning::from_vars(set).unwrap();
        assert_eq!((t.window, t.threads_per_sm, t.phases, t.groups), (Some(21), 1024, true, None));
        assert_eq!(t.stage_bytes(), 512 << 20);
        let bad = |name: &str| (name == "FILSNARK_MSM_SLIM_BLOCKS").then(|| "0".to_string());
        let e = MsmTuning::from_vars(bad).unwrap_err();
        assert!(e.contains("FILSNARK_MSM_SLIM_BLOCKS"), "{e}");
    }
}
