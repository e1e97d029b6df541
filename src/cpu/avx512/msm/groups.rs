//! Many sums of points at once, straight from a section's raw bytes: for each group, Σ of its
//! points, by the MSM's batch-affine accumulation ([`super::buckets::accumulate`]) with each
//! group as one bucket. For the points of equal scalars, summed before a query's MSM
//! ([`crate::cpu::repeats`]): blst added them one mixed Jacobian addition at a time, some
//! eleven multiplications each against six here.
use super::super::SyncPtr;
use super::buckets::{self, Cut};
use super::coord::{Coord, Fe2, Jacobian};
use super::curve::Fe;
use crate::ec::{Curve, P1, P2};

/// Σ of the G1 points of each group: group k holds the points `members[bounds[k]..bounds[k + 1]]`
/// of `raw`. Needs [`super::super::available`].
pub fn group_sums_g1(raw: &[u8], members: &[u32], bounds: &[u32]) -> Vec<P1> {
    group_sums::<Fe>(raw, members, bounds)
}

/// [`group_sums_g1`] over G2.
pub fn group_sums_g2(raw: &[u8], members: &[u32], bounds: &[u32]) -> Vec<P2> {
    group_sums::<Fe2>(raw, members, bounds)
}

fn group_sums<C: Coord>(raw: &[u8], members: &[u32], bounds: &[u32]) -> Vec<Jacobian<C>> {
    assert!(crate::field::lanes::available(), "AVX-512 IFMA sums called on a CPU without it");
    // SAFETY: the CPU has AVX-512F and IFMA (asserted above).
    unsafe { sums::<C>(raw, members, bounds) }
}

/// The groups' points in our form, each entry bucket k + 1 (0 means no entry) and its point;
/// points at infinity are left out (they add nothing, and the accumulation takes every entry for
/// a real point).
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn entries<C: Coord>(raw: &[u8], members: &[u32], bounds: &[u32]) -> (Vec<C::Point>, Vec<u64>) {
    let size = C::Group::UNCOMPRESSED_BYTES;
    let mut live = Vec::with_capacity(members.len());
    let mut entries = Vec::with_capacity(members.len());
    for k in 0..bounds.len() - 1 {
        for &i in &members[bounds[k] as usize..bounds[k + 1] as usize] {
            if !crate::ec::encoding::is_infinity(&raw[i as usize * size..]) {
                entries.push((k as u64 + 1) << 32 | live.len() as u64);
                live.push(i);
            }
        }
    }
    let mut pts = Vec::with_capacity(live.len().next_multiple_of(8));
    for at in live.chunks(8) {
        pts.extend_from_slice(&C::convert8_at(raw, at)[..at.len()]);
    }
    (pts, entries)
}

/// [`group_sums`] on one thread: the runs that begin at their bucket's first entry land in the
/// buckets, the partial sums of runs cut between slices are added to theirs after.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn sums<C: Coord>(raw: &[u8], members: &[u32], bounds: &[u32]) -> Vec<Jacobian<C>> {
    let groups = bounds.len() - 1;
    let (pts, entries) = entries::<C>(raw, members, bounds);
    let mut primary = vec![C::Point::default(); groups + 1];
    let mut extras = Vec::new();
    if !entries.is_empty() {
        let lanes = (entries.len() / (8 * 64)).clamp(1, 32);
        let cut = Cut { groups: lanes, len: entries.len().div_ceil(8 * lanes) };
        extras = buckets::accumulate::<C>(&pts, &entries, 0, cut, SyncPtr(primary.as_mut_ptr()));
    }
    let mut out: Vec<Jacobian<C>> =
        primary[1..].chunks(8).flat_map(|c| C::to_group_affine(c)).map(|p| C::Group::from_affine(&p)).collect();
    let parts: Vec<C::Point> = extras.iter().map(|e| e.1).collect();
    let parts: Vec<_> = parts.chunks(8).flat_map(|c| C::to_group_affine(c)).collect();
    for ((b, _), p) in extras.iter().zip(&parts) {
        let k = *b as usize - 1;
        out[k] = C::Group::add_affine(&out[k], p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec::sample::{encode_all, random_progression};
    use crate::ec::{G1, G2};
    use rand::{Rng, SeedableRng};

    /// Sums of groups of a section's points, as [`group_sums_g1`] takes and gives them.
    type Sums<C> = fn(&[u8], &[u32], &[u32]) -> Vec<<C as Curve>::Jacobian>;

    /// Groups of 1 to 40 points (some at infinity, some repeated, P and −P) against blst's sums.
    fn check<C: Curve>(sums: Sums<C>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
        let n = 3000;
        let mut pts = random_progression::<C>(n, &mut rng);
        for i in (0..n).step_by(17) {
            pts[i] = C::Affine::default();
        }
        pts[5] = C::neg_affine(&pts[4]);
        let raw = encode_all::<C>(&pts);
        let (mut members, mut bounds) = (vec![4, 5], vec![0, 2]);
        while members.len() < 2 * n {
            let k = rng.gen_range(1..=40);
            members.extend((0..k).map(|_| rng.gen_range(0..n as u32)));
            bounds.push(members.len() as u32);
        }
        let got = sums(&raw, &members, &bounds);
        for (k, w) in bounds.windows(2).enumerate() {
            let want = members[w[0] as usize..w[1] as usize]
                .iter()
                .fold(C::Jacobian::default(), |acc, &i| C::add_affine(&acc, &pts[i as usize]));
            assert!(C::eq(&got[k], &want), "group {k}");
        }
    }

    #[test]
    fn group_sums_match_blst() {
        if !crate::field::lanes::available_for_test("group_sums_match_blst") {
            return;
        }
        check::<G1>(group_sums_g1);
        check::<G2>(group_sums_g2);
    }
}
