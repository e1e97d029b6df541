//! The 0/1 split of a witness-only partition's queries (L, A, B) on the device.
//!
//! Nearly every aux variable of a Filecoin circuit is a bit (at 32GiB 128.5M of 130.2M per
//! partition), so each query Σ s_i·P_i is computed in two parts that never expand the bits to
//! 32-byte scalars:
//! - a batch addition of the points whose scalar is a one bit: a bitmap over the query's aux part
//!   (the witness's bits themselves for L, gathered by the shape's index list for A and B). From
//!   a section streamed through staging only the ones' points are gathered on the host and cross
//!   the bus (the bits are about half ones), then added under a bitmap of all ones;
//! - an MSM over the rest, the inputs and the field elements (~1.7M at 32GiB), their points
//!   gathered into a short contiguous list (on the device from a resident section, on the host
//!   from a streamed one).
//!
//! The MSM's sort then visits ~1.7M scalars in every window instead of ~130M, and its workspace
//! shrinks from ~18 GiB to a few hundred MiB. Where each field element sits in a query comes from
//! the shape's densities (kept on the host by [`DeviceShape`]) and the witness's field mask.
use blstrs::Scalar;
use rayon::prelude::*;

use super::evaluate::{DeviceShape, DeviceWitness};
use super::kernels::{EvaluateKernels, GatherArgs, GatherBitsArgs};
use super::layout::{scalar_words, Group};
use super::msm::{Msm, MsmPoints};
use super::staging::staging_pool;
use super::{DeviceBuffer, Gpu, GpuError, Result};
use crate::circuit::Density;
use crate::srs::RawPoints;
use crate::witness::PackedWitness;

/// Threads per block of the gathers (whole warps: gather_bits votes per warp).
const BLOCK: u32 = 256;

/// One query of a partition, split by its scalars' kind, on the device.
pub struct SplitQuery {
    /// Query position of the bitmap's bit 0: the inputs come first and are in the dense part.
    ones_first: usize,
    /// Bits in the bitmap: the query's aux entries.
    ones_len: usize,
    /// Bit j: the query's aux entry j is a bit equal to 1.
    ones: DeviceBuffer<u32>,
    /// Query positions of the dense part, ascending: the inputs, then the field elements.
    positions: Vec<u32>,
    positions_dev: DeviceBuffer<u32>,
    /// The dense part's scalars, 8 Montgomery words each.
    scalars: DeviceBuffer<u32>,
}

/// Whether a packed witness suits the split: at most half of its aux are field elements (a
/// 32GiB PoRep partition's are 1.3%). Else the dense parts are nearly whole queries, and the
/// queries' scalars are expanded instead ([`super::expand`]).
pub fn suits(w: &PackedWitness) -> bool {
    2 * w.aux.fields().len() <= w.aux.len()
}

/// Positions of the aux field elements of a packed witness, ascending.
pub fn field_positions(w: &PackedWitness) -> Vec<u32> {
    let mut out = Vec::with_capacity(w.aux.fields().len());
    for (k, &word) in w.aux.field_mask_words().iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            out.push((k * 64) as u32 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
    out
}

/// The L query: every aux variable, no inputs.
pub fn l_query(gpu: &Gpu, k: &EvaluateKernels, w: &DeviceWitness, fields: &[u32]) -> Result<SplitQuery> {
    let n = w.aux_len();
    let mut ones = gpu.alloc::<u32>(n.div_ceil(32).max(1))?;
    ones.copy_from_device(0, w.bits(), 0, n.div_ceil(32))?;
    dense_part(gpu, k, w, &[], fields.to_vec(), None, 0, n, ones)
}

/// The A query: every input, then the aux variables that occur in A.
pub fn a_query(
    gpu: &Gpu,
    k: &EvaluateKernels,
    s: &DeviceShape,
    w: &DeviceWitness,
    fields: &[u32],
) -> Result<SplitQuery> {
    density_query(gpu, k, w, w.inputs().to_vec(), s.a_density(), s.a_aux(), fields)
}

/// The B queries: the inputs, then the aux variables, that occur in B.
pub fn b_query(
    gpu: &Gpu,
    k: &EvaluateKernels,
    s: &DeviceShape,
    w: &DeviceWitness,
    fields: &[u32],
) -> Result<SplitQuery> {
    let inputs: Vec<Scalar> = s.b_inputs().iter().map(|&i| w.inputs()[i]).collect();
    density_query(gpu, k, w, inputs, s.b_density(), s.b_aux(), fields)
}

/// A query of `inputs`, then the aux variables of a density (with its ranks, and its set
/// positions on the device).
fn density_query(
    gpu: &Gpu,
    k: &EvaluateKernels,
    w: &DeviceWitness,
    inputs: Vec<Scalar>,
    (dens, ranks): (&Density, &[usize]),
    aux_index: &DeviceBuffer<u32>,
    fields: &[u32],
) -> Result<SplitQuery> {
    let ones = gather_bits(gpu, k, w.bits(), aux_index, dens.count())?;
    let (positions, index) = in_query(dens, ranks, fields, inputs.len());
    dense_part(gpu, k, w, &inputs, positions, Some(&index), inputs.len(), dens.count(), ones)
}

/// The field elements that occur in a query's density: their query positions (after `first`
/// inputs) and their indices among the witness's field elements.
fn in_query(dens: &Density, ranks: &[usize], fields: &[u32], first: usize) -> (Vec<u32>, Vec<u32>) {
    let mut positions: Vec<u32> = (0..first as u32).collect();
    let mut index = Vec::new();
    for (j, &i) in fields.iter().enumerate() {
        if let Some(r) = dens.rank(ranks, i as usize) {
            positions.push((first + r) as u32);
            index.push(j as u32);
        }
    }
    (positions, index)
}

/// Uploads the dense part: `inputs` at positions 0.., then the field elements `index` names
/// (None: all of them, in order, copied on the device).
#[allow(clippy::too_many_arguments)]
fn dense_part(
    gpu: &Gpu,
    k: &EvaluateKernels,
    w: &DeviceWitness,
    inputs: &[Scalar],
    positions: Vec<u32>,
    index: Option<&[u32]>,
    ones_first: usize,
    ones_len: usize,
    ones: DeviceBuffer<u32>,
) -> Result<SplitQuery> {
    let n = positions.len();
    let mut scalars = gpu.alloc::<u32>(n.max(1) * 8)?;
    if !inputs.is_empty() {
        gpu.upload_slice_into(&mut scalars, 0, scalar_words(inputs))?;
    }
    let Some(index) = index else {
        debug_assert!(inputs.is_empty());
        if n > 0 {
            scalars.copy_from_device(0, w.fields(), 0, n * 8)?;
        }
        return Ok(SplitQuery {
            ones_first,
            ones_len,
            ones,
            positions_dev: upload_positions(gpu, &positions)?,
            positions,
            scalars,
        });
    };
    debug_assert_eq!(positions.len(), inputs.len() + index.len());
    if !index.is_empty() {
        let idx = gpu.upload(index)?;
        let args = GatherArgs {
            out: scalars.slice(inputs.len() * 8..)?,
            src: w.fields().view(),
            idx: idx.view(),
            n: index.len() as u32,
        };
        // SAFETY: every index names one of the witness's field elements (they come from its
        // field mask, whose set bits DeviceWitness::upload matched with the values).
        unsafe { k.gather().launch(&gpu.stream, blocks(index.len()), BLOCK, &args)? };
    }
    let positions_dev = upload_positions(gpu, &positions)?;
    Ok(SplitQuery { ones_first, ones_len, ones, positions, positions_dev, scalars })
}

/// The dense part's positions on the device (one element at least: every argument is a valid address).
fn upload_positions(gpu: &Gpu, positions: &[u32]) -> Result<DeviceBuffer<u32>> {
    gpu.upload(if positions.is_empty() { &[0u32][..] } else { positions })
}

/// Bit j of the result = bit idx[j] of `bits`, j < n.
fn gather_bits(
    gpu: &Gpu,
    k: &EvaluateKernels,
    bits: &DeviceBuffer<u32>,
    idx: &DeviceBuffer<u32>,
    n: usize,
) -> Result<DeviceBuffer<u32>> {
    let out = gpu.alloc::<u32>(n.div_ceil(32).max(1))?;
    if n > 0 {
        let args = GatherBitsArgs { out: out.view(), src: bits.view(), idx: idx.view(), n: n as u32 };
        // SAFETY: the index list holds the set positions of a density over the shape's aux
        // variables (DeviceShape::upload), each below the aux count whose bits `bits` holds.
        unsafe { k.gather_bits().launch(&gpu.stream, blocks(n), BLOCK, &args)? };
    }
    Ok(out)
}

fn blocks(n: usize) -> u32 {
    n.div_ceil(BLOCK as usize).max(1) as u32
}

impl SplitQuery {
    /// Σ s_j·P_j over the query: the batch addition of the ones plus the MSM of the dense part,
    /// its points gathered from the section's (device or host). From a section streamed through
    /// staging only the ones' points are gathered and moved (about half of the query's), not
    /// every point of the query under the device's bitmap: on the H100 at a 24 GiB cap, L and A
    /// took 16-19% less time.
    pub fn sum<G: Group>(&self, gpu: &Gpu, msm: &Msm, k: &EvaluateKernels, points: MsmPoints) -> Result<G::Jac> {
        let have = match &points {
            MsmPoints::Device { buf, first } => (buf.len() / (2 * G::W)).saturating_sub(*first),
            MsmPoints::Host(raw) => raw.len() / G::SER,
            MsmPoints::Pinned { bytes, first } => (bytes.len() / G::SER).saturating_sub(*first),
            MsmPoints::Gathered { .. } => {
                return Err(GpuError::Invalid(format!("a split query sums a whole {} section", G::NAME)))
            }
        };
        if self.ones_first + self.ones_len > have {
            return Err(GpuError::Invalid(format!(
                "a query of {} points for a {} section of {have}",
                self.ones_first + self.ones_len,
                G::NAME
            )));
        }
        let n = self.positions.len();
        let (dense, ones) = match points {
            MsmPoints::Device { buf, first } => {
                let gathered = self.gather_points::<G>(gpu, k, buf, first)?;
                let dense =
                    msm.msm_first::<G>(gpu, MsmPoints::Device { buf: &gathered, first: 0 }, &self.scalars, n, 0)?;
                let ones = MsmPoints::Device { buf, first: first + self.ones_first };
                (dense, msm.batch_add::<G>(gpu, ones, &self.ones, self.ones_len)?)
            }
            MsmPoints::Host(raw) => {
                let points = MsmPoints::Gathered { bytes: raw.bytes(), positions: &self.positions };
                let dense = msm.msm_first::<G>(gpu, points, &self.scalars, n, 0)?;
                (dense, self.gathered_ones::<G>(gpu, msm, raw.bytes())?)
            }
            MsmPoints::Pinned { bytes, first } => {
                let dense = self.copied_msm::<G>(gpu, msm, bytes.host(first * G::SER..)?)?;
                let ones = MsmPoints::Pinned { bytes, first: first + self.ones_first };
                (dense, msm.batch_add::<G>(gpu, ones, &self.ones, self.ones_len)?)
            }
            MsmPoints::Gathered { .. } => unreachable!("refused above"),
        };
        Ok(G::add(&ones, &dense))
    }

    /// The MSM of the dense part, its points gathered on the host from a section's raw bytes
    /// into a buffer of their own, then streamed.
    fn copied_msm<G: Group>(&self, gpu: &Gpu, msm: &Msm, raw: &[u8]) -> Result<G::Jac> {
        let bytes = gather_raw(raw, G::SER, &self.positions);
        msm.msm_first::<G>(gpu, MsmPoints::Host(RawPoints::memory(&bytes)), &self.scalars, self.positions.len(), 0)
    }

    /// The batch addition of the ones, their points gathered on the host from a section's raw
    /// bytes: the bitmap comes back from the device as the list of the ones' positions, and
    /// every gathered point is added.
    fn gathered_ones<G: Group>(&self, gpu: &Gpu, msm: &Msm, raw: &[u8]) -> Result<G::Jac> {
        let mut words = vec![0u32; self.ones_len.div_ceil(32)];
        if !words.is_empty() {
            self.ones.copy_to_host(&mut words)?;
        }
        let positions = set_positions(&mut words, self.ones_len, self.ones_first);
        if positions.is_empty() {
            return Ok(G::Jac::default());
        }
        let every = gpu.upload(&all_ones(positions.len()))?;
        msm.batch_add::<G>(gpu, MsmPoints::Gathered { bytes: raw, positions: &positions }, &every, positions.len())
    }

    /// The dense part's points, gathered from a converted section on the device.
    fn gather_points<G: Group>(
        &self,
        gpu: &Gpu,
        k: &EvaluateKernels,
        buf: &DeviceBuffer<u32>,
        first: usize,
    ) -> Result<DeviceBuffer<u32>> {
        let words = 2 * G::W;
        let n = self.positions.len();
        let out = gpu.alloc::<u32>(n.max(1) * words)?;
        if n > 0 {
            let kernel = if G::W == 12 { k.gather_g1() } else { k.gather_g2() };
            if kernel.elem_words() as usize != words {
                return Err(GpuError::Invalid(format!(
                    "the {} gather's point layout differs from the host's",
                    G::NAME
                )));
            }
            let args = GatherArgs {
                out: out.view(),
                src: buf.slice(first * words..)?,
                idx: self.positions_dev.view(),
                n: n as u32,
            };
            // SAFETY: every position is below the query's length, which `sum` checked against
            // the points the section holds from `first` on.
            unsafe { kernel.launch(&gpu.stream, blocks(n), BLOCK, &args)? };
        }
        Ok(out)
    }
}

/// The raw bytes of the points `positions` of a section (`size` bytes each), on the staging
/// pool's cores (the global pool is busy with other partitions' synthesis).
fn gather_raw(raw: &[u8], size: usize, positions: &[u32]) -> Vec<u8> {
    let mut out = vec![0u8; positions.len() * size];
    staging_pool().install(|| {
        out.par_chunks_mut(size * 4096).zip(positions.par_chunks(4096)).for_each(|(dst, pos)| {
            for (d, &p) in dst.chunks_exact_mut(size).zip(pos) {
                let at = p as usize * size;
                d.copy_from_slice(&raw[at..at + size]);
            }
        })
    });
    out
}

/// `first + j` for each bit j < n set in `words` (bits past n cleared first), ascending, on the
/// staging pool's cores (the global pool is busy with other partitions' synthesis).
fn set_positions(words: &mut [u32], n: usize, first: usize) -> Vec<u32> {
    const BLOCK_WORDS: usize = 1 << 16;
    if let Some(last) = words.last_mut() {
        if !n.is_multiple_of(32) {
            *last &= (1u32 << (n % 32)) - 1;
        }
    }
    let words = &*words;
    staging_pool().install(|| {
        let counts: Vec<usize> =
            words.par_chunks(BLOCK_WORDS).map(|b| b.iter().map(|w| w.count_ones() as usize).sum()).collect();
        let mut out = vec![0u32; counts.iter().sum()];
        let mut parts = Vec::with_capacity(counts.len());
        let mut rest = &mut out[..];
        for &c in &counts {
            let (part, tail) = rest.split_at_mut(c);
            parts.push(part);
            rest = tail;
        }
        words.par_chunks(BLOCK_WORDS).zip(parts).enumerate().for_each(|(b, (block, dst))| {
            let mut o = 0;
            for (i, &w) in block.iter().enumerate() {
                let base = first + (b * BLOCK_WORDS + i) * 32;
                let mut bits = w;
                while bits != 0 {
                    dst[o] = (base + bits.trailing_zeros() as usize) as u32;
                    o += 1;
                    bits &= bits - 1;
                }
            }
        });
        out
    })
}

/// A bitmap of `n` set bits.
fn all_ones(n: usize) -> Vec<u32> {
    let mut w = vec![u32::MAX; n / 32];
    if !n.is_multiple_of(32) {
        w.push((1u32 << (n % 32)) - 1);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::witness::PackedAux;
    use ff::Field;
    use rand::{Rng, SeedableRng};

    /// The host half of the split: field positions from the mask, and each query's dense
    /// positions and field indices, against a direct walk over the query's entries.
    #[test]
    fn dense_positions_match_a_walk_over_the_query() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for n in [0usize, 1, 63, 64, 65, 300, 1000] {
            let values: Vec<Scalar> = (0..n)
                .map(|_| match rng.gen_range(0..4) {
                    0 => Scalar::ZERO,
                    1 => Scalar::ONE,
                    _ => Scalar::random(&mut rng),
                })
                .collect();
            let aux = PackedAux::from_scalars(&values);
            let w = PackedWitness { inputs: vec![Scalar::ONE; 3], aux };
            let fields = field_positions(&w);
            let want: Vec<u32> = (0..n as u32).filter(|&i| w.aux.is_field(i as usize)).collect();
            assert_eq!(fields, want, "n {n}");
            let mut dens = Density::default();
            dens.grow(n);
            for i in 0..n {
                if rng.gen_bool(0.7) {
                    dens.set(i);
                }
            }
            let (positions, index) = in_query(&dens, &dens.ranks(), &fields, 3);
            // the query: 3 inputs, then the aux entries of the density in order
            let query: Vec<usize> = dens.iter_set().collect();
            let mut want_pos: Vec<u32> = vec![0, 1, 2];
            let mut want_idx = Vec::new();
            for (q, &i) in query.iter().enumerate() {
                if let Some(j) = fields.iter().position(|&f| f as usize == i) {
                    want_pos.push(3 + q as u32);
                    want_idx.push(j as u32);
                }
            }
            assert_eq!((positions, index), (want_pos, want_idx), "n {n}");
        }
    }

    #[test]
    fn raw_gather_copies_whole_points() {
        let raw: Vec<u8> = (0..96 * 10).map(|b| b as u8).collect();
        let got = gather_raw(&raw, 96, &[7, 0, 7, 9]);
        let want: Vec<u8> = [7usize, 0, 7, 9].iter().flat_map(|&p| raw[p * 96..p * 96 + 96].to_vec()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn set_positions_list_the_set_bits_below_n() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        for n in [0usize, 1, 31, 32, 33, 1000, (1 << 16) * 32 + 77] {
            let words: Vec<u32> = (0..n.div_ceil(32) + 1).map(|_| rng.gen()).collect();
            let want: Vec<u32> =
                (0..n).filter(|&j| words[j / 32] >> (j % 32) & 1 == 1).map(|j| (j + 5) as u32).collect();
            let mut w = words[..n.div_ceil(32)].to_vec();
            assert_eq!(set_positions(&mut w, n, 5), want, "n {n}");
        }
        for n in [0usize, 1, 32, 33, 95] {
            let w = all_ones(n);
            assert_eq!(w.len(), n.div_ceil(32));
            assert_eq!(w.iter().map(|x| x.count_ones() as usize).sum::<usize>(), n);
        }
    }

    /// What decides which GPU path the test proofs take: the 2KiB PoSt partitions that
    /// tests/gpu_post_snap.rs proves are mostly field elements, so under
    /// `FILSNARK_FIELD_WITNESS=device` their queries are expanded ([`super::super::expand`]);
    /// SnapDeals' are mostly bits and split. A witness of exactly half field elements splits.
    #[test]
    fn post_witnesses_are_expanded_and_snap_witnesses_split() {
        use crate::circuit::post::PostCircuits;
        use crate::circuit::{post_tests::synthetic, snap_tests::circuits_of, ProofCircuits};
        use crate::input::PorepKind;
        use filecoin_proofs::SectorShape2KiB;
        use filecoin_proofs_api::RegisteredPoStProof::*;

        for (registered, sectors) in [(StackedDrgWindow2KiBV1_2, 3), (StackedDrgWinning2KiBV1, 1)] {
            let circuits = PostCircuits::<SectorShape2KiB>::from_input(&synthetic(registered, sectors, 4)).unwrap();
            let w = circuits.native_witness(0).unwrap().unwrap();
            assert!(!suits(&w), "{registered:?}: {} of {} aux are field elements", w.aux.fields().len(), w.aux.len());
        }
        let snap = circuits_of::<SectorShape2KiB>(PorepKind::S2KiB, 3);
        let w = snap.native_witness(0).unwrap().unwrap();
        assert!(suits(&w), "SnapDeals 2KiB: {} of {} aux are field elements", w.aux.fields().len(), w.aux.len());

        let mut half = PackedAux::with_capacity(4, 2);
        half.push_bit(true);
        half.push_field(Scalar::ONE);
        half.push_bit(false);
        half.push_field(Scalar::ONE);
        let witness = |aux| PackedWitness { inputs: vec![Scalar::ONE], aux };
        assert!(suits(&witness(half.clone())));
        half.push_field(Scalar::ONE);
        assert!(!suits(&witness(half)));
    }
}
