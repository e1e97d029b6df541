//! Poseidon hashes eight at a time on AVX-512 IFMA ([`crate::field::lanes`]): the rounds of
//! [`Poseidon::hash`], one hash per 64-bit lane, every lane's allocations recorded in order and
//! then appended to that lane's own aux, so each hash allocates exactly what it would alone.
//!
//! Why: a 32GiB WindowPoSt partition is 23,490 Merkle paths of arity-8 Poseidon hashes, about
//! 2,000 field multiplications each, and its witness is mostly those multiplications. blst
//! multiplies one pair at a time; IFMA multiplies eight. Without IFMA (or with
//! `FILSNARK_CPU_AVX512=0`), and for a Poseidon other than [`Poseidon::arity`]'s,
//! [`Poseidon::hash_many`] hashes one at a time.
use std::sync::OnceLock;

use blstrs::Scalar;

use super::poseidon::{Layer, Poseidon};
use super::PackedAux;
use crate::ec::Fr;
use crate::field::lanes::{self, Lanes, Packed, FR};

/// Eight elements of Fr, in the lanes' Montgomery form.
type F8 = Lanes<5>;

/// An element in the lanes' form: five 52-bit limbs, broadcast to every lane where used.
type Limbs = [u64; 5];

/// A Poseidon's constants in the lanes' form.
struct LaneConstants {
    domain_tag: Limbs,
    round_constants: Vec<Limbs>,
    mds_t: Vec<Vec<Limbs>>,
    pre_sparse_t: Vec<Vec<Limbs>>,
    sparse: Vec<(Vec<Limbs>, Vec<Limbs>)>,
}

impl LaneConstants {
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn of(p: &Poseidon) -> LaneConstants {
        let all = |v: &[Scalar]| v.iter().map(|x| ours(x)).collect::<Vec<_>>();
        LaneConstants {
            domain_tag: ours(&p.domain_tag),
            round_constants: all(&p.round_constants),
            mds_t: p.mds_t.iter().map(|c| all(c)).collect(),
            pre_sparse_t: p.pre_sparse_t.iter().map(|c| all(c)).collect(),
            sparse: p.sparse.iter().map(|(w, v)| (all(w), all(v))).collect(),
        }
    }
}

/// The lanes' constants of `p` when it is one of [`Poseidon::arity`]'s (made on first use).
fn lane_constants(p: &Poseidon) -> Option<&'static LaneConstants> {
    static TABLES: [OnceLock<LaneConstants>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let (k, arity) = [2, 8, 11].into_iter().enumerate().find(|&(_, a)| a + 1 == p.width)?;
    let shared = Poseidon::arity(arity)?;
    // SAFETY: only called where lanes::available() found AVX-512F and IFMA (hash_many).
    std::ptr::eq(p, shared).then(|| TABLES[k].get_or_init(|| unsafe { LaneConstants::of(shared) }))
}

/// `x` in the lanes' form.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn ours(x: &Scalar) -> Limbs {
    let mut m = Packed::<5>::default();
    lanes::store(&mut m, &lanes::from_blst::<5, 4>(&FR, &[Fr::from(*x).l; 8]));
    m.get(0)
}

impl Poseidon {
    /// Hashes `preimages[i]` (arity elements each), appending what the circuit allocates for it
    /// to `aux[i]`, as [`Poseidon::hash`] does one at a time; returns the hashes in order.
    pub fn hash_many(&self, aux: &mut [PackedAux], preimages: &[Vec<Scalar>]) -> Vec<Scalar> {
        assert_eq!(aux.len(), preimages.len(), "one aux per preimage");
        let Some(c) = lanes::available().then(|| lane_constants(self)).flatten() else {
            return aux.iter_mut().zip(preimages).map(|(a, p)| self.hash(a, p)).collect();
        };
        let mut record = Vec::with_capacity(self.allocations());
        let mut out = Vec::with_capacity(preimages.len());
        for (a, p) in aux.chunks_mut(8).zip(preimages.chunks(8)) {
            // SAFETY: lanes::available() found AVX-512F and IFMA.
            out.extend(unsafe { self.hash8(c, a, p, &mut record) });
        }
        out
    }

    /// Up to eight hashes in lockstep (lanes past `pre.len()` repeat the last preimage and are
    /// dropped), in [`Poseidon::hash`]'s order of rounds and allocations.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn hash8(
        &self,
        c: &LaneConstants,
        aux: &mut [PackedAux],
        pre: &[Vec<Scalar>],
        rec: &mut Vec<F8>,
    ) -> Vec<Scalar> {
        let (n, w) = (pre.len(), self.width);
        debug_assert!(pre.iter().all(|p| p.len() + 1 == w));
        rec.clear();
        let mut state = Vec::with_capacity(w);
        state.push(lanes::splat(&c.domain_tag));
        // Element i of every lane's preimage.
        #[allow(clippy::needless_range_loop)]
        for i in 0..w - 1 {
            let words: [[u64; 4]; 8] = std::array::from_fn(|l| Fr::from(pre[l.min(n - 1)][i]).l);
            state.push(lanes::from_blst::<5, 4>(&FR, &words));
        }
        let mut keys = c.round_constants.iter();
        let (first, second): (Vec<&Limbs>, Vec<&Limbs>) =
            (keys.by_ref().take(w).collect(), keys.by_ref().take(w).collect());
        let x = lanes::add(&FR, &state[0], &lanes::splat(first[0]));
        state[0] =
            lanes::add(&FR, &lanes::mul(&FR, &lanes::sqr(&FR, &lanes::sqr(&FR, &x)), &x), &lanes::splat(second[0]));
        for i in 1..w {
            let x = lanes::add(&FR, &state[i], &lanes::splat(first[i]));
            let x2 = lanes::sqr(&FR, &x);
            let x4 = lanes::sqr(&FR, &x2);
            state[i] = lanes::add(&FR, &lanes::mul(&FR, &x4, &x), &lanes::splat(second[i]));
            rec.extend([x2, x4, state[i]]);
        }
        let mut round = 0;
        self.mix8(c, &mut state, &mut round);
        for _ in 1..self.half_full_rounds {
            for x in state.iter_mut() {
                *x = sbox8(rec, x, keys.next());
            }
            self.mix8(c, &mut state, &mut round);
        }
        for _ in 0..self.partial_rounds {
            state[0] = sbox8(rec, &state[0], Some(keys.next().expect("a key per partial round")));
            self.mix8(c, &mut state, &mut round);
        }
        for r in 0..self.half_full_rounds {
            let keyed = r + 1 < self.half_full_rounds;
            for x in state.iter_mut() {
                *x = sbox8(rec, x, if keyed { keys.next() } else { None });
            }
            self.mix8(c, &mut state, &mut round);
        }
        rec.push(state[1]);
        for v in rec.iter() {
            let words = lanes::to_blst::<5, 4>(&FR, v);
            for (a, l) in aux.iter_mut().zip(words) {
                a.push_field(Scalar::from(Fr { l }));
            }
        }
        let words = lanes::to_blst::<5, 4>(&FR, &state[1]);
        words[..n].iter().map(|&l| Scalar::from(Fr { l })).collect()
    }

    /// [`Poseidon::hash`]'s linear layer of round `round` on eight states (then counts it).
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mix8(&self, c: &LaneConstants, state: &mut Vec<F8>, round: &mut usize) {
        *state = match self.layer(*round) {
            Layer::PreSparse => product8(state, &c.pre_sparse_t),
            Layer::Sparse(k) => {
                let (w_hat, v_rest) = &c.sparse[k];
                let mut out = Vec::with_capacity(state.len());
                out.push(dot8(state, w_hat));
                for j in 1..state.len() {
                    out.push(lanes::add(&FR, &state[j], &lanes::mul(&FR, &state[0], &lanes::splat(&v_rest[j - 1]))));
                }
                out
            }
            Layer::Mds => product8(state, &c.mds_t),
        };
        *round += 1;
    }
}

/// The state times a matrix given by columns.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn product8(state: &[F8], columns: &[Vec<Limbs>]) -> Vec<F8> {
    let mut out = Vec::with_capacity(columns.len());
    for col in columns {
        out.push(dot8(state, col));
    }
    out
}

/// Σ state[i]·m[i].
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn dot8(state: &[F8], m: &[Limbs]) -> F8 {
    let mut acc = lanes::mul(&FR, &state[0], &lanes::splat(&m[0]));
    for (x, k) in state.iter().zip(m).skip(1) {
        acc = lanes::add(&FR, &acc, &lanes::mul(&FR, x, &lanes::splat(k)));
    }
    acc
}

/// `quintic_s_box` on eight unallocated elements: records `x`, `x²`, `x⁴`, `x⁵ + key`.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn sbox8(rec: &mut Vec<F8>, x: &F8, key: Option<&Limbs>) -> F8 {
    let x2 = lanes::sqr(&FR, x);
    let x4 = lanes::sqr(&FR, &x2);
    let x5 = lanes::mul(&FR, &x4, x);
    let out = match key {
        Some(k) => lanes::add(&FR, &x5, &lanes::splat(k)),
        None => x5,
    };
    rec.extend([*x, x2, x4, out]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use rand::SeedableRng;

    /// Every count of hashes from 1 to 17 (one to three batches, partial last lanes) of each
    /// arity, on the lanes: the same hashes and the same allocations, lane by lane, as one at a
    /// time.
    #[test]
    fn eight_lanes_allocate_what_one_hash_does() {
        if !lanes::available_for_test("eight_lanes_allocate_what_one_hash_does") {
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for arity in [2, 8, 11] {
            let p = Poseidon::arity(arity).unwrap();
            assert!(lane_constants(p).is_some(), "arity {arity} is hashed on the lanes");
            for n in [1, 3, 8, 9, 17] {
                let pre: Vec<Vec<Scalar>> =
                    (0..n).map(|_| (0..arity).map(|_| Scalar::random(&mut rng)).collect()).collect();
                let mut many = vec![PackedAux::default(); n];
                let got = p.hash_many(&mut many, &pre);
                for (i, (pre, aux)) in pre.iter().zip(&many).enumerate() {
                    let mut one = PackedAux::default();
                    assert_eq!(got[i], p.hash(&mut one, pre), "arity {arity}, {n} hashes: hash {i}");
                    assert_eq!(aux, &one, "arity {arity}, {n} hashes: allocations of hash {i}");
                }
            }
        }
    }
}
