//! The device-memory plan of one GPU: which parameter sections stay resident on the device for
//! the life of the process and which are streamed from host memory at every MSM, given the
//! usable device memory and the working set one partition needs beside them.
//!
//! A resident section costs its converted size for good and saves, at every partition, the time
//! its MSM spends waiting for streamed points. Sections are kept resident in the order of seconds
//! saved per byte ([`stream_cost`]) while they fit beside the working set and its margin; the
//! others stream, and of those the ones that save most per byte are page-locked in host memory
//! within its budget ([`choose_pinned`]). When not even the working set fits, there is no plan:
//! the card is too small.
//!
//! The working set is [`working_set`]: the peak of the device bytes a partition holds at once,
//! measured stage by stage through the allocation ledger ([`super::ledger`]) and written down
//! per domain in docs/measurements.md, plus [`MARGIN`] for the allocator's pool and the frees
//! still in flight on the stream.
use super::ntt::HBuffers;
use crate::srs::SectionKind;

/// Headroom over the measured working set: the stream-ordered allocator's pool rounds
/// allocations up and returns freed memory only once the stream has passed the free. Small,
/// because the ledger's peaks already count every allocation until its stream has passed the
/// free (at 32GiB on the H100 a 22.7 GiB peak held under a 23.5 GiB plan).
pub const MARGIN_PERCENT: u64 = 2;
/// At least this much headroom, whatever the working set.
pub const MARGIN_MIN: u64 = 64 << 20;

/// One section as the planner sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Section {
    pub kind: SectionKind,
    /// Device bytes once converted.
    pub bytes: u64,
    /// Seconds one partition's MSM over this section takes longer when it streams.
    pub stream_cost: f64,
}

/// The plan for one device.
#[derive(Clone, Debug, PartialEq)]
pub struct Residency {
    /// Sections kept on the device, in the order they were chosen.
    pub resident: Vec<SectionKind>,
    /// Sections streamed from host memory at every MSM.
    pub streamed: Vec<SectionKind>,
    /// Device bytes of the resident sections.
    pub resident_bytes: u64,
    /// The working set the plan was made for, margin included.
    pub working_estimate: u64,
    /// Device bytes reserved for one partition's working set: all the capacity the resident
    /// sections leave (at least `working_estimate`).
    pub working_bytes: u64,
    /// What the plan may use: the usable device memory it was made for.
    pub capacity: u64,
}

impl Residency {
    /// The most device bytes the plan lets the prover hold at once.
    pub fn limit(&self) -> u64 {
        self.resident_bytes + self.working_bytes
    }

    pub fn is_resident(&self, kind: SectionKind) -> bool {
        self.resident.contains(&kind)
    }

    /// A smaller plan: the resident section that saves least per byte is streamed instead.
    /// None when every section already streams.
    pub fn without_cheapest(&self, sections: &[Section]) -> Option<Residency> {
        let last = *self.resident.last()?;
        let bytes = sections.iter().find(|s| s.kind == last).map_or(0, |s| s.bytes);
        let mut smaller = self.clone();
        smaller.resident.pop();
        smaller.streamed.push(last);
        smaller.resident_bytes -= bytes;
        smaller.working_bytes += bytes;
        Some(smaller)
    }

    /// "l, a, b_g1 resident (27.5 GiB); h, b_g2 streamed; working set 20.0 GiB planned, 50.5 GiB
    /// reserved; 78.0 GiB usable".
    pub fn describe(&self) -> String {
        let names = |v: &[SectionKind]| v.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ");
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let resident = if self.resident.is_empty() {
            "no section resident".to_string()
        } else {
            format!("{} resident ({:.1} GiB)", names(&self.resident), gib(self.resident_bytes))
        };
        let streamed =
            if self.streamed.is_empty() { String::new() } else { format!("; {} streamed", names(&self.streamed)) };
        format!(
            "{resident}{streamed}; working set {:.1} GiB planned, {:.1} GiB reserved; {:.1} GiB usable",
            gib(self.working_estimate),
            gib(self.working_bytes),
            gib(self.capacity)
        )
    }
}

/// The working set with its margin.
pub fn with_margin(measured: u64) -> u64 {
    measured + (measured * MARGIN_PERCENT / 100).max(MARGIN_MIN)
}

/// The sections, most seconds saved per byte first; ties by size (smaller first), then by
/// section order.
fn by_saving(sections: &[Section]) -> Vec<&Section> {
    let mut order: Vec<&Section> = sections.iter().collect();
    order.sort_by(|x, y| {
        let (px, py) = (x.stream_cost / x.bytes.max(1) as f64, y.stream_cost / y.bytes.max(1) as f64);
        py.total_cmp(&px).then(x.bytes.cmp(&y.bytes)).then((x.kind as usize).cmp(&(y.kind as usize)))
    });
    order
}

/// Chooses the resident sections for `capacity` usable bytes and a partition working set of
/// `working` bytes (margin included). None when the working set alone does not fit.
pub fn plan(capacity: u64, working: u64, sections: &[Section]) -> Option<Residency> {
    if working > capacity {
        return None;
    }
    let order = by_saving(sections);
    let mut r = Residency {
        resident: vec![],
        streamed: vec![],
        resident_bytes: 0,
        working_estimate: working,
        working_bytes: 0,
        capacity,
    };
    for s in order {
        if s.stream_cost > 0.0 && r.resident_bytes + s.bytes + working <= capacity {
            r.resident.push(s.kind);
            r.resident_bytes += s.bytes;
        } else {
            r.streamed.push(s.kind);
        }
    }
    r.working_bytes = capacity - r.resident_bytes;
    Some(r)
}

/// Of the `streamed` sections, those to keep in page-locked host memory within `budget` bytes
/// ([`super::host_pin`]): most saved per byte first, each that still fits (a streamed MSM from
/// pinned memory is paced by the copy engine, not by the cores' copy into staging).
pub fn choose_pinned(streamed: &[SectionKind], sections: &[Section], budget: u64) -> Vec<SectionKind> {
    let mut left = budget;
    let mut chosen = Vec::new();
    for s in by_saving(sections) {
        if streamed.contains(&s.kind) && s.bytes > 0 && s.bytes <= left {
            left -= s.bytes;
            chosen.push(s.kind);
        }
    }
    chosen
}

/// Device bytes one partition of a circuit with a domain of `domain` points holds at once
/// beside the resident sections, margin excluded: the larger of its two heaviest stages. The H
/// stage in three buffers ([`h_stage`]: the fused pipeline's fourth buffer is used only where
/// the plan leaves room for it); the smallest MSM stage: its scalars (32 bytes a point), the
/// buckets of its widest windows (40 bytes a point allowed; 4.5 GiB, 36 a point, measured at
/// 2^27) and a streamed MSM's staging (two chunks of raw and one of converted points, at most
/// ~1 GiB). The MSM's workspace kept from one MSM to the next is not counted: it takes the room
/// the plan leaves (each MSM sizes its chunk to it) and is freed before the H stage when the
/// plan has no room for both. A fixed 256 MiB covers the small buffers. On the H100 at 32GiB
/// (domain 2^27, every section streamed under a 24 GiB cap, c42ef5b) the ledger measured
/// 17.5 GiB at the fused H stage and 11.2 GiB at the H MSM; this gives 13.75 GiB. `packed`: the
/// device bytes of the partition's packed witness ([`packed_witness`]; 0 for an assignment).
/// The packed witness stays through the query stages too (split or expanded), but the H stage,
/// which holds it beside three domain buffers, is always the larger: 96 bytes a point against
/// the MSM stage's 72 plus at most the same 1 GiB.
pub fn working_set(domain: u64, packed: u64) -> u64 {
    let staging = (2 * 288 * domain).min(1 << 30);
    let msm_stage = 32 * domain + 40 * domain + staging;
    h_stage(domain, packed).max(msm_stage) + (256 << 20)
}

/// Device bytes of a packed witness on the device: value bits, field mask and the mask's ranks
/// (per aux one bit each, in u32 words, and a u32 rank per 64 aux), the field elements and the inputs (32 bytes each).
/// A 32GiB PoRep partition's is ~0.55 GiB (16.6M field elements); a 32GiB WindowPoSt
/// partition's ~3.8 GiB, almost all of its 127M aux being field elements.
pub fn packed_witness(aux: u64, fields: u64, inputs: u64) -> u64 {
    let words = aux.div_ceil(32);
    4 * (2 * words + aux.div_ceil(64)) + 32 * (fields + inputs)
}

/// Device bytes the three-buffer H stage allocates for a domain of `domain` points
/// ([`super::ntt::HBuffers::Three`]): A·z, B·z and the transforms' scratch, C·z taking a freed
/// one (32 bytes a point each), plus what the fused stage holds besides its buffers.
pub fn h_stage(domain: u64, packed: u64) -> u64 {
    3 * 32 * domain + h_stage_rest(domain, packed)
}

/// Device bytes the fused H stage allocates ([`super::ntt::HBuffers::Four`]): a, b, c and the
/// NTT's scratch at once (17.5 GiB at 2^27, as the ledger measured).
pub fn h_stage_fused(domain: u64, packed: u64) -> u64 {
    4 * 32 * domain + h_stage_rest(domain, packed)
}

/// The H stage beside its buffers: the packed witness (`packed` bytes) with the shape's compiled
/// constraints, at least 4 bytes a point (a PoRep partition's, measured), and what else the
/// ledger measured at this stage (1 GiB at 2^27: 8 bytes a point, at most 1 GiB). The MSM's
/// workspace kept from the partition before is freed first when the plan has no room for both.
fn h_stage_rest(domain: u64, packed: u64) -> u64 {
    (4 * domain).max(packed) + (8 * domain).min(1 << 30)
}

/// The H pipeline for a partition when `headroom` device bytes are left under the plan (None: no
/// limit): the fused one where it fits, else the three-buffer one the plan reserved.
pub fn h_buffers(headroom: Option<u64>, domain: u64, packed: u64) -> HBuffers {
    match headroom {
        Some(h) if h < h_stage_fused(domain, packed) => HBuffers::Three,
        _ => HBuffers::Four,
    }
}

/// Seconds an MSM over `kind`'s points spends longer per partition when they stream than when
/// they are resident: the upload of `bytes` at the pinned copy rate, less what of it hides
/// behind the MSM's own arithmetic (the H query's scalars are dense, so its accumulation covers
/// much of its upload; the others are mostly 0/1 sums that cannot hide it).
pub fn stream_cost(kind: SectionKind, bytes: u64) -> f64 {
    const UPLOAD_BYTES_PER_S: f64 = 20e9;
    let upload = bytes as f64 / UPLOAD_BYTES_PER_S;
    let hidden = match kind {
        SectionKind::H => 0.6,
        SectionKind::BG2 => 0.3,
        _ => 0.1,
    };
    upload * (1.0 - hidden)
}

/// The planner's view of sections of these sizes (device bytes, in [`SectionKind::ALL`] order).
pub fn sections(bytes: [u64; 5]) -> Vec<Section> {
    SectionKind::ALL
        .iter()
        .zip(bytes)
        .map(|(&kind, bytes)| Section { kind, bytes, stream_cost: stream_cost(kind, bytes) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use SectionKind::*;

    const GIB: u64 = 1 << 30;

    /// The 32GiB PoRep sections (device bytes as converted: the raw sizes).
    fn porep_32gib() -> Vec<Section> {
        sections([12 * GIB, 12 * GIB + GIB / 2, 12 * GIB, 3 * GIB, 6 * GIB])
    }

    fn check(p: &Residency, secs: &[Section]) {
        assert!(p.limit() <= p.capacity, "plan {p:?} exceeds its capacity");
        let mut all: Vec<_> = p.resident.iter().chain(&p.streamed).copied().collect();
        all.sort_by_key(|k| *k as usize);
        assert_eq!(all, SectionKind::ALL.to_vec(), "every section is resident or streamed, once");
        let bytes: u64 = secs.iter().filter(|s| p.is_resident(s.kind)).map(|s| s.bytes).sum();
        assert_eq!(bytes, p.resident_bytes);
    }

    #[test]
    fn never_exceeds_capacity_and_places_every_section_once() {
        let secs = porep_32gib();
        let working = with_margin(working_set(1 << 27, 0));
        for cap_gib in [24u64, 32, 40, 48, 64, 80, 141] {
            let cap = cap_gib * GIB;
            match plan(cap, working, &secs) {
                Some(p) => check(&p, &secs),
                None => assert!(working > cap, "no plan although the working set fits {cap_gib} GiB"),
            }
        }
    }

    /// A packed witness larger than the 4 bytes a point the H stage allows for (a 32GiB
    /// WindowPoSt partition: 126,902,376 aux, almost all field elements) widens the working set by
    /// the difference; a PoRep partition's (130,169,893 aux, 16.6M field elements) about matches it.
    #[test]
    fn a_large_packed_witness_widens_the_working_set() {
        let d = 1u64 << 27;
        let post = packed_witness(126_902_376, 126_000_000, 25_840);
        assert!(post > 3 * GIB + GIB / 2 && post < 4 * GIB, "{post}");
        assert_eq!(working_set(d, post) - working_set(d, 0), post - 4 * d);
        let porep = packed_witness(130_169_893, 16_610_668, 18 * 176);
        assert!(porep.abs_diff(4 * d) < GIB / 16, "{porep}");
        assert_eq!(working_set(d, d), working_set(d, 0), "at most 4 bytes a point changes nothing");
        // With its compiled constraints' head (the prefix's few rows) a PoRep partition's plan
        // under a 24 GiB cap still keeps B G1 and B G2 resident.
        let p = plan(23 * GIB + GIB / 2, with_margin(working_set(d, porep + GIB / 16)), &porep_32gib()).unwrap();
        assert_eq!(p.resident, vec![BG1, BG2], "{p:?}");
    }

    /// The working sets measured on the H100: a 32GiB partition (domain 2^27) proved with every
    /// section streamed under a 24 GiB cap (23.5 GiB usable; stage peaks 17.5 GiB at the fused H
    /// stage, 11.2 at the H MSM), and small circuits under a 1 GiB cap (0.5 GiB usable beside the
    /// context). The three-buffer H stage holds one 4 GiB buffer less, so under a 24 GiB cap the
    /// plan keeps b_g1 and b_g2 resident beside it.
    #[test]
    fn measured_working_sets_fit_their_caps() {
        assert!(h_stage_fused(1 << 27, 0) >= 17 * GIB + GIB / 2, "below the measured 17.5 GiB");
        assert_eq!(h_stage_fused(1 << 27, 0) - h_stage(1 << 27, 0), 4 * GIB, "one buffer of the domain");
        assert!(working_set(1 << 27, 0) >= 11 * GIB + GIB / 4, "below the measured 11.2 GiB of the H MSM");
        assert!(with_margin(working_set(1 << 27, 0)) <= 14 * GIB + GIB / 4);
        assert!(with_margin(working_set(1 << 18, 0)) <= GIB / 2);
        let p = plan(23 * GIB + GIB / 2, with_margin(working_set(1 << 27, 0)), &porep_32gib()).unwrap();
        assert_eq!(p.resident, vec![BG1, BG2], "{p:?}");
    }

    /// The fused H pipeline where the plan leaves room for its fourth buffer, the three-buffer
    /// one where it does not, the fused one without a limit.
    #[test]
    fn fused_h_only_where_its_fourth_buffer_fits() {
        let d = 1u64 << 27;
        assert_eq!(h_buffers(None, d, 0), HBuffers::Four);
        assert_eq!(h_buffers(Some(h_stage_fused(d, 0)), d, 0), HBuffers::Four);
        assert_eq!(h_buffers(Some(h_stage_fused(d, 0) - 1), d, 0), HBuffers::Three);
        let p = plan(23 * GIB + GIB / 2, with_margin(working_set(d, 0)), &porep_32gib()).unwrap();
        assert!(p.working_bytes >= h_stage(d, 0), "the plan reserves the three-buffer stage");
        assert_eq!(h_buffers(Some(p.working_bytes), d, 0), HBuffers::Three);
        let whole = plan(139 * GIB, with_margin(working_set(d, 0)), &porep_32gib()).unwrap();
        assert_eq!(h_buffers(Some(whole.working_bytes), d, 0), HBuffers::Four);
    }

    #[test]
    fn everything_resident_when_it_fits_nothing_when_nothing_fits() {
        let secs = porep_32gib();
        let all = plan(200 * GIB, 20 * GIB, &secs).unwrap();
        assert!(all.streamed.is_empty(), "{all:?}");
        let none = plan(21 * GIB, 20 * GIB, &secs).unwrap();
        assert!(none.resident.is_empty(), "{none:?}");
        assert_eq!(plan(19 * GIB, 20 * GIB, &secs), None);
    }

    #[test]
    fn partial_residency_keeps_what_saves_most_per_byte() {
        let secs = porep_32gib();
        // 80 GB card: ~78 GiB usable, 20 GiB working set: 58 GiB for sections (all need 45.5).
        let p = plan(78 * GIB, 40 * GIB, &secs).unwrap();
        check(&p, &secs);
        // 38 GiB: the sparse queries (most saved per byte) before the dense H.
        assert!(p.is_resident(BG1) && p.is_resident(L) && p.is_resident(A), "{p:?}");
        assert!(!p.is_resident(H), "{p:?}");
        // A section that does not fit is skipped, and a smaller one after it still goes in.
        let q = plan(40 * GIB, 20 * GIB, &secs).unwrap();
        check(&q, &secs);
        assert!(q.resident_bytes <= 20 * GIB && q.is_resident(BG1), "{q:?}");
    }

    #[test]
    fn a_smaller_plan_streams_the_cheapest_resident_section() {
        let secs = porep_32gib();
        let p = plan(200 * GIB, 20 * GIB, &secs).unwrap();
        let mut q = p.clone();
        let mut steps = 0;
        while let Some(next) = q.without_cheapest(&secs) {
            assert!(next.resident_bytes < q.resident_bytes && next.working_bytes > q.working_bytes);
            assert_eq!(next.limit(), q.limit(), "the freed bytes go to the working set");
            check(&next, &secs);
            q = next;
            steps += 1;
        }
        assert_eq!(steps, 5);
        assert!(q.resident.is_empty() && q.resident_bytes == 0);
        // The first to go is the one chosen last: the least saved per byte.
        assert_eq!(p.without_cheapest(&secs).unwrap().streamed, vec![*p.resident.last().unwrap()]);
    }

    #[test]
    fn pinned_sections_are_streamed_ones_within_the_budget() {
        let secs = porep_32gib();
        // A 24 GiB card: b_g1 and b_g2 resident; a 32 GiB host budget holds the sparse queries
        // (24.5 GiB), not h besides.
        let p = plan(23 * GIB + GIB / 2, with_margin(working_set(1 << 27, 0)), &secs).unwrap();
        let pinned = choose_pinned(&p.streamed, &secs, 32 * GIB);
        assert_eq!(pinned, vec![L, A], "{p:?}");
        let bytes: u64 = secs.iter().filter(|s| pinned.contains(&s.kind)).map(|s| s.bytes).sum();
        assert!(bytes <= 32 * GIB);
        // A section too large for what is left is skipped; a smaller one after it still goes in.
        assert_eq!(choose_pinned(&p.streamed, &secs, 13 * GIB), vec![L]);
        assert_eq!(choose_pinned(&[L, A, H], &secs, 12 * GIB), vec![A]);
        assert_eq!(choose_pinned(&[H, BG2], &secs, 13 * GIB), vec![BG2]);
        assert!(choose_pinned(&p.streamed, &secs, 0).is_empty());
        // Resident sections are never pinned.
        let all = plan(200 * GIB, 20 * GIB, &secs).unwrap();
        assert!(choose_pinned(&all.streamed, &secs, 100 * GIB).is_empty());
    }

    #[test]
    fn describes_itself() {
        let p = plan(78 * GIB, 40 * GIB, &porep_32gib()).unwrap();
        let d = p.describe();
        assert!(d.contains("resident") && d.contains("streamed") && d.contains("78.0 GiB usable"), "{d}");
    }
}
