//! Points in bulk for tests and benchmarks: distinct, valid, and cheap to make (one inversion
//! for all), from a seeded random start.
use rand::RngCore;

use super::curve::Curve;

/// start + G, start + 2·G, …, start + n·G in affine form (G the generator).
pub fn progression<C: Curve>(start: &C::Jacobian, n: usize) -> Vec<C::Affine> {
    let g = C::generator();
    let mut acc = *start;
    let jac: Vec<C::Jacobian> = (0..n)
        .map(|_| {
            acc = C::add(&acc, &g);
            acc
        })
        .collect();
    C::batch_to_affine_vec(&jac)
}

/// [`progression`] from a random multiple of G.
pub fn random_progression<C: Curve>(n: usize, rng: &mut impl RngCore) -> Vec<C::Affine> {
    let mut k = [0u8; 32];
    rng.fill_bytes(&mut k);
    progression::<C>(&C::mult(&C::generator(), &k, 255), n)
}

/// The points' uncompressed encodings one after the other, as a `.params` section stores them
/// (infinity as 0x40 then zeros).
pub fn encode_all<C: Curve>(points: &[C::Affine]) -> Vec<u8> {
    let size = C::UNCOMPRESSED_BYTES;
    let mut out = vec![0u8; points.len() * size];
    for (p, b) in points.iter().zip(out.chunks_exact_mut(size)) {
        C::serialize(p, b);
    }
    out
}
