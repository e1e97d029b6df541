//! One SnapDeals (EmptySectorUpdate) partition's witness as storage-proofs-update 19.1.0's
//! circuit allocates it (`EmptySectorUpdateCircuit::synthesize`, transcribed in
//! `circuit::snap_windows`), from plain inputs: the prefix, then every challenge on its own (in
//! parallel), joined in order.
//!
//! The prefix, in allocation order:
//! 1. `k_and_h_select` (a public input: the partition index `k` in the low bits, `h_select =
//!    2^i` above them), its low `partition bits + hs` bits, and `k` packed from its bits;
//! 2. comm_r_old, comm_d_new, comm_r_new (public inputs), then phi = H(comm_d_new ‖
//!    comm_r_old) with the randomness constants (Poseidon arity 2, another domain tag);
//! 3. comm_c, root_r_old, root_r_new, the partition's apex leaves, the partition path's
//!    siblings (tree D above the apex tree, one per partition bit);
//! 4. Poseidon(comm_c, root_r_old) and Poseidon(comm_c, root_r_new) (equal to the comm_rs);
//! 5. the apex tree, row by row (SHA-256 of two leaves, as `hash2_circuit`), and the partition
//!    path from its root to comm_d_new (`por_no_challenge_input`: [`root_of`]);
//! 6. per digest `j`: its index `k·digests + j`, H(comm_r_new ‖ index) and the digest's 255
//!    bits, which the challenges take `challenge bits − partition bits` at a time.
//!
//! A challenge (its bits: its generated bits, then the partition bits, all in the prefix):
//! 1. per `h` of `hs`: the top `h` bits packed and that value or zero (by `h_select`); then
//!    their sum, the selected high bits; rho = H(phi ‖ high bits) (randomness constants);
//! 2. leaf_r_old, leaf_d_new, leaf_d_new·rho, leaf_r_new = leaf_r_old + leaf_d_new·rho;
//! 3. tree R old's siblings (every level), its path to root_r_old, then the same for tree R
//!    new from leaf_r_new; both take their insertion indices from the challenge's bits;
//! 4. the apex leaf picked by the bits above the path to it (`select`: one pick per pair,
//!    most significant bit first), tree D's siblings up to it, and the path to it.
//!
//! No challenge has a public input: a partition's inputs are ONE and the four of the prefix.
use std::sync::OnceLock;

use anyhow::{bail, ensure, Result};
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;
use storage_proofs_update::constants::{hs, POSEIDON_CONSTANTS_GEN_RANDOMNESS};
use storage_proofs_update::PublicParams;

use super::merkle::{root_of, sha256_children, NodeHash};
use super::poseidon::Poseidon;
use super::shape::PathLevel;
use super::{PackedAux, PackedWitness, WitnessPart};

/// The numbers of a sector size's update circuit (its `PublicParams` and `hs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapShape {
    pub partition_count: usize,
    pub challenge_count: usize,
    /// Bits of a challenge: log2 of the sector's nodes.
    pub challenge_bit_len: usize,
    /// Bits of the partition index, the challenge's top bits.
    pub partition_bit_len: usize,
    /// Bits that choose an apex leaf, just below the partition bits.
    pub apex_leaf_bit_len: usize,
    /// The `h` values `h_select` chooses from.
    pub hs: Vec<usize>,
}

impl SnapShape {
    pub fn of(pp: &PublicParams) -> Self {
        SnapShape {
            partition_count: pp.partition_count,
            challenge_count: pp.challenge_count,
            challenge_bit_len: pp.challenge_bit_len,
            partition_bit_len: pp.partition_bit_len,
            apex_leaf_bit_len: pp.apex_leaf_bit_len,
            hs: hs(pp.sector_nodes).to_vec(),
        }
    }

    /// Challenge bits a digest gives each challenge (all but the partition bits).
    fn generated_bit_len(&self) -> usize {
        self.challenge_bit_len - self.partition_bit_len
    }

    /// Tree D levels from a leaf up to its apex leaf.
    fn levels_to_apex_leaf(&self) -> usize {
        self.generated_bit_len() - self.apex_leaf_bit_len
    }

    /// Challenges per digest and digests per partition (`gen_challenge_bits`).
    fn digests(&self) -> (usize, u64) {
        let per_digest = Scalar::CAPACITY as usize / self.generated_bit_len();
        (per_digest, (self.challenge_count as f32 / per_digest as f32).ceil() as u64)
    }
}

/// One challenge's openings: the old and new replica leaves with their tree R paths, and the
/// new data leaf with its tree D path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapChallenge {
    pub leaf_r_old: Scalar,
    /// Per level, leaf level first: the siblings (arity − 1 of them).
    pub path_r_old: Vec<Vec<Scalar>>,
    pub leaf_d_new: Scalar,
    /// Per level, leaf level first: the one sibling (the whole path to comm_d_new).
    pub path_d_new: Vec<Scalar>,
    pub leaf_r_new: Scalar,
    pub path_r_new: Vec<Vec<Scalar>>,
}

/// One partition: the public values, the vanilla partition proof's values, and `h`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapPartition {
    pub k: usize,
    /// The number of high bits rho reads (one of the shape's `hs`).
    pub h: usize,
    pub comm_r_old: Scalar,
    pub comm_d_new: Scalar,
    pub comm_r_new: Scalar,
    pub comm_c: Scalar,
    pub root_r_old: Scalar,
    pub root_r_new: Scalar,
    pub apex_leaves: Vec<Scalar>,
    pub challenges: Vec<SnapChallenge>,
}

/// What the challenges read from the prefix.
#[derive(Clone, Debug)]
pub struct Prefix {
    /// Index of `h` in `hs` (the set bit of `h_select`).
    h_index: usize,
    phi: Scalar,
    /// Per challenge, its bits (the generated ones, then the partition bits above them).
    bits: Vec<u64>,
}

/// SnapDeals hashes phi, rho and the challenge digests with these (arity 2, a custom domain tag).
fn randomness() -> &'static Poseidon {
    static P: OnceLock<Poseidon> = OnceLock::new();
    P.get_or_init(|| Poseidon::from_constants(&*POSEIDON_CONSTANTS_GEN_RANDOMNESS))
}

fn poseidon2() -> &'static Poseidon {
    Poseidon::arity(2).expect("arity 2")
}

/// A partition's witness: inputs (with ONE) and aux, the challenges made in parallel. Fails,
/// naming the value, where the vanilla values do not fit the shape or do not hold (what the
/// circuit would not be satisfied by).
pub fn snap_partition(shape: &SnapShape, p: &SnapPartition) -> Result<PackedWitness> {
    let (w, prefix) = snap_prefix(shape, p)?;
    let parts = (0..shape.challenge_count)
        .into_par_iter()
        .map(|c| snap_challenge(shape, p, &prefix, c))
        .collect::<Result<Vec<_>>>()?;
    Ok(w.join(parts))
}

/// The prefix's inputs and aux, and what the challenges read from it.
pub fn snap_prefix(shape: &SnapShape, p: &SnapPartition) -> Result<(PackedWitness, Prefix)> {
    check_partition(shape, p)?;
    let h_index = shape.hs.iter().position(|&h| h == p.h).expect("checked: h is one of hs");
    let k = p.k as u64;
    let k_and_h_select = k | 1 << (shape.partition_bit_len + h_index);
    let mut aux = PackedAux::default();
    aux.push_field(Scalar::from(k_and_h_select));
    aux.push_bits(k_and_h_select, (shape.partition_bit_len + shape.hs.len()) as u32);
    aux.push_field(Scalar::from(k));
    for v in [p.comm_r_old, p.comm_d_new, p.comm_r_new] {
        aux.push_field(v);
    }
    let phi = randomness().hash(&mut aux, &[p.comm_d_new, p.comm_r_old]);
    for v in [p.comm_c, p.root_r_old, p.root_r_new] {
        aux.push_field(v);
    }
    for &leaf in &p.apex_leaves {
        aux.push_field(leaf);
    }
    let above_apex = &p.challenges[0].path_d_new[shape.generated_bit_len()..];
    for &s in above_apex {
        aux.push_field(s);
    }
    for (root, comm_r, what) in [(p.root_r_old, p.comm_r_old, "old"), (p.root_r_new, p.comm_r_new, "new")] {
        ensure!(
            poseidon2().hash(&mut aux, &[p.comm_c, root]) == comm_r,
            "H(comm_c ‖ root_r_{what}) is not comm_r_{what}"
        );
    }

    let mut row = p.apex_leaves.clone();
    while row.len() > 1 {
        row = row.chunks(2).map(|pair| sha256_children(&mut aux, pair)).collect();
    }
    let partition_path = levels(above_apex.iter().map(|&s| vec![s]), k);
    ensure!(
        root_of(&mut aux, row[0], &partition_path, NodeHash::Sha256) == p.comm_d_new,
        "partition {}: the apex leaves and the partition path do not hash to comm_d_new",
        p.k
    );

    let generated = shape.generated_bit_len();
    let (per_digest, digests) = shape.digests();
    let mut bits = Vec::with_capacity(shape.challenge_count);
    for j in 0..digests {
        let index = Scalar::from(k * digests + j);
        aux.push_field(index);
        let digest = randomness().hash(&mut aux, &[p.comm_r_new, index]);
        aux.push_le_bits(&digest);
        let repr = digest.to_repr();
        let take = if j == digests - 1 { shape.challenge_count - bits.len() } else { per_digest };
        bits.extend((0..take).map(|i| bits_at(&repr, i * generated, generated) | k << generated));
    }
    let inputs = vec![Scalar::ONE, Scalar::from(k_and_h_select), p.comm_r_old, p.comm_d_new, p.comm_r_new];
    Ok((PackedWitness { inputs, aux }, Prefix { h_index, phi, bits }))
}

/// Challenge `c`'s aux, as if the prefix preceded it (it has no public input).
pub fn snap_challenge(shape: &SnapShape, p: &SnapPartition, prefix: &Prefix, c: usize) -> Result<WitnessPart> {
    let ch = &p.challenges[c];
    let bits = prefix.bits[c];
    let what = |x: &str| format!("partition {} challenge {c}: {x}", p.k);
    let mut aux = PackedAux::default();

    let bit_len = shape.challenge_bit_len;
    let mut high = Scalar::ZERO;
    for (i, &h) in shape.hs.iter().enumerate() {
        let c_high = Scalar::from(bits >> (bit_len - h));
        aux.push_field(c_high);
        let or_zero = if i == prefix.h_index { c_high } else { Scalar::ZERO };
        aux.push_field(or_zero);
        high += or_zero;
    }
    aux.push_field(high);
    let rho = randomness().hash(&mut aux, &[prefix.phi, high]);

    aux.push_field(ch.leaf_r_old);
    aux.push_field(ch.leaf_d_new);
    let d_rho = ch.leaf_d_new * rho;
    aux.push_field(d_rho);
    let leaf_r_new = ch.leaf_r_old + d_rho;
    aux.push_field(leaf_r_new);
    ensure!(leaf_r_new == ch.leaf_r_new, what("leaf_r_old + leaf_d_new·rho is not leaf_r_new"));

    for (leaf, path, root, tree) in
        [(ch.leaf_r_old, &ch.path_r_old, p.root_r_old, "old"), (leaf_r_new, &ch.path_r_new, p.root_r_new, "new")]
    {
        for s in path.iter().flatten() {
            aux.push_field(*s);
        }
        let levels = levels(path.iter().cloned(), bits);
        ensure!(
            root_of(&mut aux, leaf, &levels, NodeHash::Poseidon) == root,
            what(&format!("the tree R {tree} path does not hash to root_r_{tree}"))
        );
    }

    let below = shape.levels_to_apex_leaf();
    let mut state = p.apex_leaves.clone();
    for i in (0..shape.apex_leaf_bit_len).rev() {
        let bit = bits >> (below + i) & 1 == 1;
        let half = state.len() / 2;
        state = (0..half)
            .map(|j| {
                let v = if bit { state[half + j] } else { state[j] };
                aux.push_field(v);
                v
            })
            .collect();
    }
    let path = &ch.path_d_new[..below];
    for &s in path {
        aux.push_field(s);
    }
    let levels = levels(path.iter().map(|&s| vec![s]), bits);
    ensure!(
        root_of(&mut aux, ch.leaf_d_new, &levels, NodeHash::Sha256) == state[0],
        what("the tree D path does not hash to the apex leaf its bits choose")
    );
    Ok(WitnessPart { aux, inputs: Vec::new() })
}

/// Path levels of `siblings` whose insertion indices are `bits` read from bit 0 up,
/// log2(arity) bits a level.
fn levels(siblings: impl Iterator<Item = Vec<Scalar>>, bits: u64) -> Vec<PathLevel> {
    let mut shift = 0;
    siblings
        .map(|siblings| {
            let n = (siblings.len() + 1).trailing_zeros();
            let index = (bits >> shift & ((1 << n) - 1)) as usize;
            shift += n;
            PathLevel { siblings, index }
        })
        .collect()
}

/// Bits `start..start + len` of a little-endian 32-byte integer (len ≤ 57).
fn bits_at(repr: &[u8; 32], start: usize, len: usize) -> u64 {
    let mut word = [0u8; 8];
    let from = start / 8;
    let n = (32 - from).min(8);
    word[..n].copy_from_slice(&repr[from..from + n]);
    (u64::from_le_bytes(word) >> (start % 8)) & ((1 << len) - 1)
}

/// The shape checks the circuit asserts (or needs to find its indices), as errors.
fn check_partition(shape: &SnapShape, p: &SnapPartition) -> Result<()> {
    let at = format!("partition {}", p.k);
    ensure!(p.k < shape.partition_count, "{at}: a sector of this size has {} partitions", shape.partition_count);
    if !shape.hs.contains(&p.h) {
        bail!("{at}: h = {} is not one of the circuit's {:?}", p.h, shape.hs);
    }
    ensure!(
        p.apex_leaves.len() == 1 << shape.apex_leaf_bit_len,
        "{at}: {} apex leaves, the circuit has {}",
        p.apex_leaves.len(),
        1 << shape.apex_leaf_bit_len
    );
    ensure!(
        p.challenges.len() == shape.challenge_count,
        "{at}: {} challenges, the circuit has {}",
        p.challenges.len(),
        shape.challenge_count
    );
    let above = shape.generated_bit_len();
    for (c, ch) in p.challenges.iter().enumerate() {
        ensure!(
            ch.path_d_new.len() == shape.challenge_bit_len,
            "{at} challenge {c}: a tree D path of {} levels, the sector's has {}",
            ch.path_d_new.len(),
            shape.challenge_bit_len
        );
        ensure!(
            ch.path_d_new[above..] == p.challenges[0].path_d_new[above..],
            "{at} challenge {c}: its tree D path above the apex tree is not challenge 0's"
        );
        for (path, tree) in [(&ch.path_r_old, "old"), (&ch.path_r_new, "new")] {
            let arities_fit = path.iter().all(|s| matches!(s.len(), 1 | 7));
            let bits: u32 = path.iter().map(|s| (s.len() + 1).trailing_zeros()).sum();
            ensure!(
                arities_fit && bits as usize == shape.challenge_bit_len,
                "{at} challenge {c}: the tree R {tree} path does not fit {} challenge bits in levels of arity 2 or 8",
                shape.challenge_bit_len
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The randomness hash is neptune's with the crate's constants.
    #[test]
    fn randomness_hash_equals_neptune() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (a, b) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
        let mut aux = PackedAux::default();
        let ours = randomness().hash(&mut aux, &[a, b]);
        let theirs = neptune::Poseidon::new_with_preimage(&[a, b], &*POSEIDON_CONSTANTS_GEN_RANDOMNESS).hash();
        assert_eq!(ours, theirs);
        assert_eq!(aux.len(), 311);
    }

    #[test]
    fn bits_at_reads_little_endian_bits() {
        let mut repr = [0u8; 32];
        repr[0] = 0b1010_1100;
        repr[1] = 0b0000_0011;
        repr[31] = 0x3f;
        assert_eq!(bits_at(&repr, 2, 6), 0b101011);
        assert_eq!(bits_at(&repr, 6, 4), 0b1110);
        assert_eq!(bits_at(&repr, 250, 5), 0b01111);
    }
}
