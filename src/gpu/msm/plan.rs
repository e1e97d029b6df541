//! Sizes of one MSM: window, chunk, work per thread, and the device memory they imply.
use super::tuning::MsmTuning;

/// Smallest and largest window sizes considered.
const C_MIN: u32 = 4;
const C_MAX: u32 = 22;

/// Window size c for `dense` scalars that are neither 0 nor 1: minimises
/// ceil(256/c) · (dense + 3·2^(c-1)), the mixed additions of the accumulation plus the bucket
/// reduction (two full additions per bucket, about three mixed ones). 2^20 → 16, 2^24 → 20,
/// 2^26 → 22.
pub fn window_bits(dense: usize) -> u32 {
    (C_MIN..=C_MAX).min_by_key(|&c| windows(c) as u64 * (dense as u64 + 3 * (1u64 << (c - 1)))).unwrap_or(16)
}

/// Number of signed c-bit windows of a scalar < r < 2^255: c·nwin ≥ 256 leaves room for the top carry.
pub fn windows(c: u32) -> u32 {
    256u32.div_ceil(c)
}

/// How many of `nwin` windows are c bits wide when the others are c - 1 and all cover 256 bits
/// (a scalar < r < 2^255 plus the top carry); nwin = windows(c).
pub fn wide_windows(c: u32, nwin: u32) -> u32 {
    (256 - nwin as i64 * (c as i64 - 1)).clamp(0, nwin as i64) as u32
}

/// Entries per thread of the accumulation: enough threads (`threads`, the target) to fill the
/// device several times over, at most 256 (the last wave's tail stays short).
pub fn entries_per_thread(total: usize, threads: usize) -> usize {
    total.div_ceil(threads.max(1)).clamp(8, 256)
}

/// Upper bound of the accumulation threads (one partial record each) for `entries` sorted
/// entries in `groups` window groups: per group at most max(threads, its entries / 256) + 1.
pub fn max_threads(entries: usize, threads: usize, groups: usize) -> usize {
    groups * (threads + 1) + entries.div_ceil(256)
}

/// Threads per block of the slim sort launches: one warp. The accumulation takes 14 warps of
/// 4608 registers per SM (142 registers, 7 blocks of 64 threads: 64512 of 65536), so the 1024
/// registers left hold one warp of at most 32 registers (msm_ranks and msm_scatter: 32).
pub const SLIM_BLOCK: u32 = 32;

/// Grid x of a slim sort launch over `len` elements in each of `rows` rows (grid y): `per_sm`
/// blocks per SM shared among the rows, so that the launch as a whole holds about `per_sm`
/// warps per SM; at least one block, at most one per 32 elements of a row.
pub fn slim_grid_x(len: usize, rows: u32, sms: u32, per_sm: u32) -> u32 {
    let blocks = (sms as usize * per_sm as usize / rows.max(1) as usize).max(1);
    blocks.min(len.div_ceil(SLIM_BLOCK as usize)).max(1) as u32
}

/// Records per thread in the levels of the run reduction.
pub const RUN_T: usize = 32;

/// log2 of the buckets per segment of the first bucket-reduction level: the largest that still
/// leaves `threads` threads (sms·512 by default). (sms·2048, shorter segments and a shorter last
/// wave, measured no faster at 2^26 on the H200 and slower at 2^20, where the extra segment
/// levels add latency.)
pub fn first_segment_log(nwin: u32, c: u32, threads: usize) -> u32 {
    let total = (nwin as usize) << (c - 1);
    let mut g = 0;
    while g < c - 1 && (total >> (g + 1)) >= threads {
        g += 1;
    }
    g
}

/// Chunks of at least this many points sort in one group per window (MsmTuning::groups
/// overrides): the device sorts window w+1 on a stream of its own while it accumulates window w.
/// H200, G1 2^26: 422 ms in one group, 404.5 in 12; 2^24: 119 -> 114 ms. Below, the host wait
/// and launches per group cost more than the overlap brings (2^20: 16.1 -> 16.8 ms).
const GROUPED_FROM: usize = 1 << 22;

/// One MSM (or batch addition, nwin = 0).
#[derive(Debug, Clone, Copy)]
pub struct MsmPlan {
    pub n: usize,
    /// Window bits (1 in batch mode, where only the ones bucket exists): the widest windows.
    pub c: u32,
    pub nwin: u32,
    /// The windows below `wide` are c bits wide, the others c - 1: 256 bits in all, so that the
    /// narrow windows use only the lower half of their buckets (fewer buckets to reduce).
    pub wide: u32,
    /// Window groups of the sort (at most nwin; 1 in batch mode).
    pub groups: u32,
    /// Points per chunk (a multiple of 32, so a chunk starts on a bitmap word).
    pub chunk: usize,
    pub tuning: MsmTuning,
}

impl MsmPlan {
    /// `dense`: the number of scalars neither 0 nor 1 (None: batch addition). The window comes
    /// from [`window_bits`] unless the tuning names one.
    pub fn new(n: usize, dense: Option<usize>, chunk: usize, tuning: MsmTuning) -> MsmPlan {
        let (c, nwin) = match dense {
            Some(d) => {
                let c = tuning.window.filter(|c| (C_MIN..=24).contains(c)).unwrap_or_else(|| window_bits(d.max(1)));
                (c, windows(c))
            }
            None => (1, 0),
        };
        // at most `chunk` points, a multiple of 32 (at least 32); all of them when chunk >= n;
        // rows·chunk (digit table, sorted entries) below 2^31: the kernels index them with u32
        let chunk = if chunk == 0 || chunk >= n { n.next_multiple_of(32) } else { (chunk / 32 * 32).max(32) };
        let cap = ((1usize << 31) / (nwin as usize + 1)) / 32 * 32;
        let wide = wide_windows(c, nwin);
        let chunk = chunk.min(cap);
        let default = if chunk >= GROUPED_FROM { nwin } else { 1 };
        let groups = tuning.groups.unwrap_or(default).clamp(1, nwin.max(1));
        MsmPlan { n, c, nwin, wide, groups, chunk, tuning }
    }

    /// Accumulation threads wanted in flight on `sms` SMs.
    pub fn threads(&self, sms: u32) -> usize {
        sms as usize * self.tuning.threads_per_sm as usize
    }

    /// log2 of the buckets per segment of the first bucket-reduction level ([`first_segment_log`]).
    pub fn first_segment_log(&self, sms: u32) -> u32 {
        first_segment_log(self.nwin, self.c, sms as usize * self.tuning.segment_threads_per_sm as usize)
    }

    /// The windows [w0, w1) of each sort group (batch mode: one group, the ones row alone).
    pub fn window_groups(&self) -> Vec<(u32, u32)> {
        let (g, nwin) = (self.groups, self.nwin);
        (0..g).map(|i| (nwin * i / g, nwin * (i + 1) / g)).collect()
    }

    /// Partial records of the accumulation of one chunk (every group's, side by side).
    pub fn records(&self, sms: u32) -> usize {
        max_threads(self.entries(), self.threads(sms), self.groups as usize)
    }

    /// Buckets per window.
    pub fn nb(&self) -> usize {
        1 << (self.c - 1)
    }
    /// Whether the bucket reduction skips the upper half of the narrow windows' buckets, which
    /// no digit reaches (a (c−1)-bit window's digits reach bucket 2^(c−2) at most): the windows
    /// are mixed and the first reduction level has at least two segments per window. Those
    /// buckets are then neither cleared nor read.
    pub fn skips_narrow_upper(&self, sms: u32) -> bool {
        self.wide < self.nwin && (self.nb() >> self.first_segment_log(sms)) >= 2
    }

    /// The bucket ranges [k0, k1) to set to infinity before the first chunk: every bucket, or
    /// all but the narrow windows' upper halves (2^26: 3.2 of 4.8 GB).
    pub fn live_buckets(&self, sms: u32) -> Vec<(usize, usize)> {
        if !self.skips_narrow_upper(sms) {
            return vec![(0, self.buckets())];
        }
        let (nb, wide) = (self.nb(), self.wide as usize);
        let narrow = (wide..self.nwin as usize).map(|w| (w * nb, w * nb + nb / 2));
        std::iter::once((0, wide * nb))
            .filter(|r| r.1 > 0)
            .chain(narrow)
            .chain([(self.ones(), self.buckets())])
            .collect()
    }

    /// Index of the ones bucket (after every window's buckets).
    pub fn ones(&self) -> usize {
        self.nwin as usize * self.nb()
    }
    /// Buckets in all, the ones bucket included.
    pub fn buckets(&self) -> usize {
        self.ones() + 1
    }
    /// Rows of the digit table: one per window and the ones row.
    pub fn rows(&self) -> usize {
        self.nwin as usize + 1
    }
    /// Words of the digit table and of the rank table (the batch addition sorts without them).
    pub fn digit_words(&self) -> usize {
        if self.nwin == 0 {
            1
        } else {
            self.rows() * self.chunk
        }
    }
    /// Most sorted entries a chunk can produce.
    pub fn entries(&self) -> usize {
        self.chunk * (self.nwin as usize).max(1)
    }
    pub fn chunks(&self) -> usize {
        self.n.div_ceil(self.chunk)
    }

    /// Device bytes the chunk workspace and the buckets take (xyzz = words per XYZZ point).
    pub fn bytes(&self, xyzz: usize, sms: u32) -> usize {
        let t1 = self.records(sms);
        let words = 2 * self.digit_words()
            + 2 * self.entries()
            + 3 * self.buckets()
            + (self.buckets() + t1 + t1 / RUN_T + 2) * xyzz
            + 2 * t1;
        4 * words
    }

    /// Halves the chunk until the workspace fits in `free` bytes (not below 2^16 points).
    pub fn fit(mut self, free: usize, xyzz: usize, sms: u32) -> MsmPlan {
        while self.bytes(xyzz, sms) > free && self.chunk > 1 << 16 {
            self.chunk = (self.chunk / 2).next_multiple_of(32);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_the_cost_model() {
        assert_eq!(window_bits(1 << 20), 16);
        assert_eq!(window_bits(1 << 24), 20);
        assert_eq!(window_bits(1 << 26), 22);
        for c in C_MIN..=C_MAX {
            assert!(c * windows(c) >= 256 && c * (windows(c) - 1) < 256);
            let (nwin, wide) = (windows(c), wide_windows(c, windows(c)));
            assert!(c * wide + (c - 1) * (nwin - wide) >= 256);
            assert!(wide == 0 || c * wide + (c - 1) * (nwin - wide) == 256);
        }
        let t = MsmTuning::default();
        let p26 = MsmPlan::new(1 << 26, Some(1 << 26), 0, t);
        assert_eq!((p26.c, p26.nwin, p26.wide), (22, 12, 4)); // 4 x 22 + 8 x 21 bits
        let groups = MsmPlan { groups: 5, ..p26 }.window_groups();
        assert_eq!(groups.len(), 5);
        assert!(groups.windows(2).all(|g| g[0].1 == g[1].0 && g[0].0 < g[0].1));
        assert_eq!((groups[0].0, groups[4].1), (0, 12));
        let p = MsmPlan::new(1000, Some(1000), 0, t);
        assert_eq!(p.chunk, 1024);
        assert_eq!(MsmPlan::new(5000, Some(1), 1000, t).chunk, 992);
        assert_eq!(MsmPlan::new(5000, Some(1), 1000, t).chunks(), 6);
        let sparse = MsmPlan::new(1 << 27, Some(3), 0, t);
        assert!(sparse.rows() * sparse.chunk <= 1 << 31 && sparse.chunk.is_multiple_of(32));
        assert_eq!(p.buckets(), p.nwin as usize * p.nb() + 1);
        let b = MsmPlan::new(70, None, 0, t);
        assert_eq!((b.nwin, b.ones(), b.buckets()), (0, 0, 1));
        assert_eq!(first_segment_log(12, 22, 132 * 512), 8);
        assert_eq!(first_segment_log(16, 16, 132 * 512), 2);
        assert_eq!(p26.first_segment_log(132), 8);
        let forced = MsmPlan::new(1 << 26, Some(1 << 26), 0, MsmTuning { window: Some(20), groups: Some(3), ..t });
        assert_eq!((forced.c, forced.groups), (20, 3));
        assert_eq!(slim_grid_x(1 << 26, 1, 132, 1), 132);
        assert_eq!(slim_grid_x(1 << 26, 2, 132, 1), 66); // the last group: its window and the ones row
        assert_eq!(slim_grid_x(1 << 26, 1, 132, 3), 396);
        assert_eq!(slim_grid_x(100, 1, 132, 1), 4);
        assert_eq!(slim_grid_x(1, 200, 132, 1), 1);
    }

    /// The cleared ranges cover every bucket a digit reaches and the ones bucket; at 2^26 they
    /// leave out the 8 narrow windows' upper halves.
    #[test]
    fn live_buckets_cover_every_reachable_bucket() {
        for (n, sms) in [(1usize << 26, 132), (1 << 20, 132), (5000, 132), (1 << 26, 1)] {
            let p = MsmPlan::new(n, Some(n), 0, MsmTuning::default());
            let live = p.live_buckets(sms);
            let covered = |k: usize| live.iter().any(|&(k0, k1)| (k0..k1).contains(&k));
            for w in 0..p.nwin as usize {
                // bucket b holds digit b + 1; a window of `bits` reaches digit 2^(bits - 1)
                let bits = if (w as u32) < p.wide { p.c } else { p.c - 1 };
                let reach = 1usize << (bits - 1);
                assert!(covered(w * p.nb()) && covered(w * p.nb() + reach - 1), "n {n} window {w}");
            }
            assert!(covered(p.ones()));
            let total: usize = live.iter().map(|r| r.1 - r.0).sum();
            if p.skips_narrow_upper(sms) {
                assert_eq!(total, p.buckets() - (p.nwin - p.wide) as usize * p.nb() / 2);
            } else {
                assert_eq!(live, vec![(0, p.buckets())]);
            }
        }
        assert!(MsmPlan::new(1 << 26, Some(1 << 26), 0, MsmTuning::default()).skips_narrow_upper(132));
        assert!(!MsmPlan::new(70, None, 0, MsmTuning::default()).skips_narrow_upper(132));
    }
}
