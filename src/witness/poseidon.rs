//! Poseidon hashes with the variables neptune 11's legacy circuit (`poseidon_hash`) allocates.
//!
//! That circuit runs the optimised static form of the permutation: round constants compressed,
//! the MDS product of the last initial full round replaced by a pre-sparse matrix and every
//! partial round's by a sparse one (dense first row and column, identity elsewhere). Its
//! allocated values are therefore states of that form, not of the textbook rounds:
//! - first full round: the domain tag (element 0) is a constant and folds; every preimage
//!   element `x` allocates `(x + pre)²`, its square, and `(x + pre)·(x + pre)⁴ + post`;
//! - every other full round, each element allocates itself (the linear combination the MDS
//!   product left), its square, its fourth power and `x⁵ + key` (no key in the last round);
//! - each partial round: element 0 only, the same four;
//! - the result: element 1 allocated at the end.
//!
//! That is 3·arity + 28·width + 4·partial rounds + 1 field elements per hash.
use std::sync::OnceLock;

use blstrs::Scalar;
use ff::Field;
use filecoin_hashers::PoseidonArity;
use generic_array::typenum::{U11, U2, U8};
use neptune::poseidon::{Arity, PoseidonConstants};

use super::PackedAux;

/// One arity's constants in the form the circuit uses them.
pub struct Poseidon {
    pub(super) width: usize,
    pub(super) half_full_rounds: usize,
    pub(super) partial_rounds: usize,
    pub(super) domain_tag: Scalar,
    pub(super) round_constants: Vec<Scalar>,
    /// Matrices by column (`m_t[j][i]` is row `i`, column `j`): result `j` is the product of
    /// the state with column `j`.
    pub(super) mds_t: Vec<Vec<Scalar>>,
    pub(super) pre_sparse_t: Vec<Vec<Scalar>>,
    /// Per partial round: the first column and the rest of the first row.
    pub(super) sparse: Vec<(Vec<Scalar>, Vec<Scalar>)>,
}

fn transpose(m: &[Vec<Scalar>]) -> Vec<Vec<Scalar>> {
    (0..m.len()).map(|j| m.iter().map(|row| row[j]).collect()).collect()
}

impl Poseidon {
    fn of<A: PoseidonArity>() -> Self {
        Self::from_constants(A::PARAMETERS())
    }

    /// The circuit's form of any neptune constants (SnapDeals hashes its randomness with
    /// arity 2's rounds and matrices under another domain tag).
    pub fn from_constants<A: Arity<Scalar>>(c: &PoseidonConstants<Scalar, A>) -> Self {
        Poseidon {
            width: c.mds_matrices.m.len(),
            half_full_rounds: c.half_full_rounds,
            partial_rounds: c.partial_rounds,
            domain_tag: c.domain_tag,
            round_constants: c.compressed_round_constants.clone(),
            mds_t: transpose(&c.mds_matrices.m),
            pre_sparse_t: transpose(&c.pre_sparse_matrix),
            sparse: c.sparse_matrixes.iter().map(|s| (s.w_hat.clone(), s.v_rest.clone())).collect(),
        }
    }

    /// The constants of the arities the PoRep circuit hashes (2, 8, 11); `None` for others.
    pub fn arity(arity: usize) -> Option<&'static Poseidon> {
        static P2: OnceLock<Poseidon> = OnceLock::new();
        static P8: OnceLock<Poseidon> = OnceLock::new();
        static P11: OnceLock<Poseidon> = OnceLock::new();
        match arity {
            2 => Some(P2.get_or_init(Poseidon::of::<U2>)),
            8 => Some(P8.get_or_init(Poseidon::of::<U8>)),
            11 => Some(P11.get_or_init(Poseidon::of::<U11>)),
            _ => None,
        }
    }

    /// Field elements one hash allocates.
    pub fn allocations(&self) -> usize {
        3 * (self.width - 1) + 28 * self.width + 4 * self.partial_rounds + 1
    }

    /// Hashes `preimage` (exactly arity elements), appending what the circuit allocates;
    /// returns the hash.
    pub fn hash(&self, aux: &mut PackedAux, preimage: &[Scalar]) -> Scalar {
        debug_assert_eq!(preimage.len() + 1, self.width);
        let mut state = Vec::with_capacity(self.width);
        state.push(self.domain_tag);
        state.extend_from_slice(preimage);
        let mut keys = self.round_constants.iter().copied();
        let mut round = 0;

        let pre: Vec<Scalar> = keys.by_ref().take(self.width).collect();
        let post: Vec<Scalar> = keys.by_ref().take(self.width).collect();
        let x = state[0] + pre[0];
        state[0] = x.square().square() * x + post[0];
        for i in 1..self.width {
            let x = state[i] + pre[i];
            let x2 = push(aux, x.square());
            let x4 = push(aux, x2.square());
            state[i] = push(aux, x4 * x + post[i]);
        }
        self.mix(&mut state, &mut round);

        for _ in 1..self.half_full_rounds {
            self.full_round(aux, &mut state, &mut keys, true);
            self.mix(&mut state, &mut round);
        }
        for _ in 0..self.partial_rounds {
            let key = keys.next().expect("a key per partial round");
            state[0] = sbox(aux, state[0], Some(key));
            self.mix(&mut state, &mut round);
        }
        for r in 0..self.half_full_rounds {
            self.full_round(aux, &mut state, &mut keys, r + 1 < self.half_full_rounds);
            self.mix(&mut state, &mut round);
        }
        push(aux, state[1])
    }

    /// A full round after the first: every element through the S-box, with the next keys
    /// unless it is the terminal round.
    fn full_round(
        &self,
        aux: &mut PackedAux,
        state: &mut [Scalar],
        keys: &mut impl Iterator<Item = Scalar>,
        keyed: bool,
    ) {
        for x in state.iter_mut() {
            let key = if keyed { Some(keys.next().expect("a key per element")) } else { None };
            *x = sbox(aux, *x, key);
        }
    }

    /// The linear layer of round `round` (then counts it): the MDS matrix, the pre-sparse
    /// matrix in the last initial full round, a sparse matrix in each partial round.
    fn mix(&self, state: &mut Vec<Scalar>, round: &mut usize) {
        *state = match self.layer(*round) {
            Layer::PreSparse => product(state, &self.pre_sparse_t),
            Layer::Sparse(k) => {
                let (w_hat, v_rest) = &self.sparse[k];
                let first = state.iter().zip(w_hat).map(|(x, w)| *x * w).sum();
                std::iter::once(first).chain((1..self.width).map(|j| state[j] + state[0] * v_rest[j - 1])).collect()
            }
            Layer::Mds => product(state, &self.mds_t),
        };
        *round += 1;
    }

    /// Which linear layer round `round` ends with.
    pub(super) fn layer(&self, round: usize) -> Layer {
        let sparse_from = self.half_full_rounds - 1;
        if round == sparse_from {
            Layer::PreSparse
        } else if round > sparse_from && round < self.half_full_rounds + self.partial_rounds {
            Layer::Sparse(round - sparse_from - 1)
        } else {
            Layer::Mds
        }
    }
}

/// A round's linear layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layer {
    Mds,
    /// The last initial full round's.
    PreSparse,
    /// Partial round k's sparse matrix.
    Sparse(usize),
}

/// The state times a matrix given by columns.
fn product(state: &[Scalar], columns: &[Vec<Scalar>]) -> Vec<Scalar> {
    columns.iter().map(|col| state.iter().zip(col).map(|(x, m)| *x * m).sum()).collect()
}

/// `quintic_s_box` on an unallocated element: allocates it, `x²`, `x⁴`, `x⁵ + key`.
fn sbox(aux: &mut PackedAux, x: Scalar, key: Option<Scalar>) -> Scalar {
    push(aux, x);
    let x2 = push(aux, x.square());
    let x4 = push(aux, x2.square());
    push(aux, x4 * x + key.unwrap_or(Scalar::ZERO))
}

#[inline]
fn push(aux: &mut PackedAux, v: Scalar) -> Scalar {
    aux.push_field(v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use filecoin_hashers::{poseidon::PoseidonHasher, HashFunction, Hasher};
    use rand::SeedableRng;

    /// The witness's hash is the hasher's own, and each arity allocates the documented count
    /// (311, 505, 598).
    #[test]
    fn hash_equals_neptune_and_counts_allocations() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let (a, b) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
        let mut aux = PackedAux::default();
        let ours = Poseidon::arity(2).unwrap().hash(&mut aux, &[a, b]);
        let theirs: Scalar = <PoseidonHasher as Hasher>::Function::hash2(&a.into(), &b.into()).into();
        assert_eq!(ours, theirs);
        assert_eq!(aux.len(), 311);
        for (arity, count) in [(8, 505), (11, 598)] {
            let p = Poseidon::arity(arity).unwrap();
            let mut aux = PackedAux::default();
            let pre: Vec<Scalar> = (0..arity).map(|_| Scalar::random(&mut rng)).collect();
            p.hash(&mut aux, &pre);
            assert_eq!((aux.len(), p.allocations()), (count, count), "arity {arity}");
        }
    }
}
