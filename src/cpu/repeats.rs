//! Scalars that repeat in a query: Σ s_i·P_i = Σ_v v·(Σ_{s_i = v} P_i).
//!
//! Poseidon Merkle circuits hash the same nodes again and again: the challenges of a small tree
//! open the same paths, and every WinningPoSt circuit sector hashes its sector's comm_c and
//! comm_r_last again. Their witness values repeat (a 2KiB WinningPoSt partition has some 4,900
//! distinct values among 90,000), so the points of equal scalars are summed first, one addition
//! each (batch-affine on AVX-512 IFMA: [`GroupSums`]), and the MSM runs over one point per
//! distinct value instead of some twenty additions per point. [`Distinct`] finds the repeats
//! while a query is split; [`summed_section`] writes the summed points as a section of their
//! own, which the MSMs read as they read the file's.
use std::collections::hash_map::{Entry, HashMap};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use blst::blst_fr;
use blstrs::Scalar;
use rayon::prelude::*;

use super::avx512::MIN_POINTS as AVX512_MIN_POINTS;
use crate::ec::{Curve, G1, G2, P1, P2};

/// A scalar by its Montgomery limbs (equal limbs, equal scalars).
#[derive(PartialEq, Eq)]
struct Limbs([u64; 4]);

impl Hash for Limbs {
    /// One word suffices: the values are field elements, mostly uniform, and small integers
    /// differ in their low limb too.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0[0] ^ self.0[1].rotate_left(32));
    }
}

/// Fibonacci hashing of the one word [`Limbs`] writes.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, _: &[u8]) {
        unreachable!("Limbs writes one u64")
    }
    fn write_u64(&mut self, w: u64) {
        self.0 = w.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The distinct values met so far, each with its position among the MSM's scalars.
#[derive(Default)]
pub struct Distinct(HashMap<Limbs, u32, BuildHasherDefault<WordHasher>>);

impl Distinct {
    /// The position of `v` if it was met before; else `v` takes position `next`.
    pub fn seen(&mut self, v: &Scalar, next: usize) -> Option<u32> {
        match self.0.entry(Limbs(blst_fr::from(*v).l)) {
            Entry::Occupied(e) => Some(*e.get()),
            Entry::Vacant(e) => {
                e.insert(next as u32);
                None
            }
        }
    }
}

/// Groups per parallel task of [`summed_section`].
const TASK: usize = 1 << 10;

/// The section of the distinct values' points: point g is the point `firsts[g]` of `raw` plus
/// every point `i` of `repeats` (i, g), encoded as `raw` encodes its points.
pub fn summed_section<C: GroupSums>(raw: &[u8], firsts: &[u32], repeats: &[(u32, u32)]) -> Vec<u8> {
    let size = C::UNCOMPRESSED_BYTES;
    let (starts, order) = by_group(firsts.len(), repeats);
    let mut out = vec![0u8; firsts.len() * size];
    out.par_chunks_mut(TASK * size).enumerate().for_each(|(t, bytes)| {
        // The task's groups with repeats: their slots, and their points (the first, then the rest).
        let (mut slots, mut members, mut bounds) = (Vec::new(), Vec::new(), vec![0u32]);
        for (j, slot) in bytes.chunks_mut(size).enumerate() {
            let g = t * TASK + j;
            let more = &order[starts[g] as usize..starts[g + 1] as usize];
            if more.is_empty() {
                slot.copy_from_slice(&raw[firsts[g] as usize * size..][..size]);
            } else {
                slots.push(j);
                members.push(firsts[g]);
                members.extend_from_slice(more);
                bounds.push(members.len() as u32);
            }
        }
        let sums = C::group_sums(raw, &members, &bounds);
        write_points::<C>(bytes, &slots.into_iter().zip(sums).collect::<Vec<_>>());
    });
    out
}

/// Σ of each group of a section's points, group k being the points
/// `members[bounds[k]..bounds[k + 1]]`: on AVX-512 IFMA from [`AVX512_MIN_POINTS`] points on, by
/// batch-affine additions ([`super::avx512::msm::group_sums_g1`]), else one blst mixed addition
/// per point.
pub trait GroupSums: Curve {
    fn group_sums(raw: &[u8], members: &[u32], bounds: &[u32]) -> Vec<Self::Jacobian>;
}

impl GroupSums for G1 {
    fn group_sums(raw: &[u8], members: &[u32], bounds: &[u32]) -> Vec<P1> {
        #[cfg(target_arch = "x86_64")]
        if members.len() >= AVX512_MIN_POINTS && crate::field::lanes::available() {
            return super::avx512::msm::group_sums_g1(raw, members, bounds);
        }
        blst_group_sums::<G1>(raw, members, bounds)
    }
}

impl GroupSums for G2 {
    fn group_sums(raw: &[u8], members: &[u32], bounds: &[u32]) -> Vec<P2> {
        #[cfg(target_arch = "x86_64")]
        if members.len() >= AVX512_MIN_POINTS && crate::field::lanes::available() {
            return super::avx512::msm::group_sums_g2(raw, members, bounds);
        }
        blst_group_sums::<G2>(raw, members, bounds)
    }
}

/// [`GroupSums::group_sums`] by blst.
fn blst_group_sums<C: Curve>(raw: &[u8], members: &[u32], bounds: &[u32]) -> Vec<C::Jacobian> {
    let size = C::UNCOMPRESSED_BYTES;
    let sum = |group: &[u32]| {
        group
            .iter()
            .fold(C::Jacobian::default(), |acc, &i| C::add_affine(&acc, &C::decode_trusted(&raw[i as usize * size..])))
    };
    bounds.windows(2).map(|w| sum(&members[w[0] as usize..w[1] as usize])).collect()
}

/// The repeats' point indices counting-sorted by group, and where each group's begin.
fn by_group(groups: usize, repeats: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32; groups + 1];
    for &(_, g) in repeats {
        starts[g as usize + 1] += 1;
    }
    for g in 0..groups {
        starts[g + 1] += starts[g];
    }
    let mut next = starts.clone();
    let mut order = vec![0u32; repeats.len()];
    for &(i, g) in repeats {
        order[next[g as usize] as usize] = i;
        next[g as usize] += 1;
    }
    (starts, order)
}

/// Encodes the Jacobian points `sums` (slot, point) into their slots of `bytes`, with one
/// inversion for all of them (a sum at infinity gets the encoding of infinity).
fn write_points<C: Curve>(bytes: &mut [u8], sums: &[(usize, C::Jacobian)]) {
    let size = C::UNCOMPRESSED_BYTES;
    let (inf, finite): (Vec<_>, Vec<_>) = sums.iter().partition(|(_, p)| C::is_inf(p));
    let jac: Vec<C::Jacobian> = finite.iter().map(|(_, p)| *p).collect();
    let affine = C::batch_to_affine_vec(&jac);
    for ((slot, _), a) in finite.iter().zip(&affine) {
        C::serialize(a, &mut bytes[slot * size..(slot + 1) * size]);
    }
    for (slot, _) in inf {
        C::serialize(&C::Affine::default(), &mut bytes[slot * size..(slot + 1) * size]);
    }
}
