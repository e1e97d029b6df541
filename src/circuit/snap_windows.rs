//! The EmptySectorUpdate (SnapDeals) partition synthesized challenge by challenge on many cores
//! ([`super::window`]).
//!
//! storage-proofs-update's `EmptySectorUpdateCircuit::synthesize` is one function: a *prefix*
//! (the public inputs and their bits, phi, comm_c and the two roots, the apex leaves and the
//! partition path, the apex-tree check, then every challenge's bits from comm_r_new), then one
//! stretch per challenge that reads only the prefix's variables and its own, every one of the
//! same shape. Its gadgets (`apex_por`, `gen_challenge_bits`, `get_challenge_high_bits`,
//! `label_r_new`) are private to the crate, so [`synthesize_prefix`] and [`synthesize_challenge`]
//! are that function's body transcribed from storage-proofs-update 19.1.0, statement for
//! statement, on the crate's public pieces (bellperson's and neptune's gadgets,
//! storage-proofs-core's `por_no_challenge_input` and `select`, the crate's constants). The tests
//! (`snap_tests`) hold them to the crate: the same witness (inputs, aux, A·z, B·z, C·z and
//! densities) as the crate's synthesis of a partition, and the same R1CS from a blank one.
//!
//! The prefix is recorded once, but the hashes of each apex-tree row (SHA-256, which read only
//! the row below) go side by side; the challenges then go in groups to windows that record
//! straight into their stretch of the partition's vectors, side by side ([`record_items`]). A
//! 2KiB partition (1,705,044 constraints): a prefix of about 320,000 constraints, most of them
//! the 7 SHA-256 hashes of its 8-leaf apex tree (rows of 4, 2, 1), then 10 challenges of about
//! 138,000 each. The windows read the values recorded before
//! them where they lie (shared, never copied), so a large prefix (at 8MiB and up, the 128-leaf
//! apex tree and every challenge's bits) costs the windows nothing; they are about one per core.
//!
//! [`record_snap_partition`] records a whole blank partition this way (what the compiled
//! constraints are made of); [`synthesize_first`] records the prefix and the first challenges
//! only, the cut of a large partition that the tests hold the native witness to.
use std::sync::{Mutex, OnceLock};

use anyhow::{anyhow, ensure, Result};
use bellperson::gadgets::boolean::{field_into_allocated_bits_le, AllocatedBit, Boolean};
use bellperson::gadgets::multipack::pack_bits;
use bellperson::gadgets::num::AllocatedNum;
use bellperson::{ConstraintSystem, LinearCombination, SynthesisError};
use blstrs::Scalar as Fr;
use ff::{Field, PrimeField, PrimeFieldBits};
use filecoin_hashers::{HashFunction, Hasher};
use neptune::circuit::poseidon_hash;
use rayon::prelude::*;
use storage_proofs_core::gadgets::insertion::select;
use storage_proofs_core::gadgets::por::por_no_challenge_input;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::circuit::{PrivateInputs, PublicInputs};
use storage_proofs_update::constants::{
    hs, validate_tree_r_shape, TreeD, TreeDHasher, TreeRHasher, POSEIDON_CONSTANTS_GEN_RANDOMNESS,
};
use storage_proofs_update::{EmptySectorUpdateCircuit, PublicParams};

use super::window::{Counter, Span, Windowed};

/// What the challenges read from the prefix.
pub struct Prefix {
    partition_bits: Vec<AllocatedBit>,
    h_select_bits: Vec<AllocatedBit>,
    phi: AllocatedNum<Fr>,
    root_r_old: AllocatedNum<Fr>,
    root_r_new: AllocatedNum<Fr>,
    apex_leafs: Vec<AllocatedNum<Fr>>,
    /// Each challenge's random bits (without the partition bits).
    generated_bits: Vec<Vec<AllocatedBit>>,
}

/// Records `circuit` into `cs` as the crate's `synthesize` would, its apex tree's rows and its
/// challenges in up to `windows` groups side by side. `per`: the span of one challenge if known
/// (else the first group is recorded in place to learn it), computed beside the prefix.
pub fn synthesize_windows<Tree, W>(
    circuit: &EmptySectorUpdateCircuit<Tree>,
    cs: &mut W,
    windows: usize,
    per: impl FnOnce() -> Result<Option<Span>> + Send,
) -> Result<()>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
    W: Windowed + Send,
{
    let (prefix, per) = rayon::join(|| synthesize_prefix(cs, circuit, windows), per);
    let prefix = prefix.map_err(|e| anyhow!("synthesis of the update circuit's prefix failed: {e:#}"))?;
    let challenges = Challenges { circuit, prefix: &prefix };
    record_items(cs, &challenges, windows, per?)
        .map_err(|e| anyhow!("synthesis of the update circuit failed: {e:#}"))?;
    Ok(())
}

/// Stretches of a circuit that record alike (the same span) and read only what was recorded
/// before them: the challenges, the hashes of one apex-tree row.
trait Items: Sync {
    type Out: Send;
    /// What an item is, for errors.
    const NAME: &'static str;
    fn count(&self) -> usize;
    fn record<CS: ConstraintSystem<Fr>>(&self, cs: &mut CS, i: usize) -> Result<Self::Out, SynthesisError>;
}

/// Records `items` into `cs` in order, in up to `windows` equal groups side by side; `per`: one item's span,
/// else learned from the first group, recorded in place. Returns the items' outputs in order.
fn record_items<W: Windowed, I: Items>(
    cs: &mut W,
    items: &I,
    windows: usize,
    per: Option<Span>,
) -> Result<Vec<I::Out>> {
    let n = items.count();
    let before = cs.span();
    // A counted span has no non-zeros: it fits only a recorder that keeps none (the witness).
    let per = per.filter(|_| before.nnz == [0; 3]);
    let groups = group_count(n, windows);
    let size = n / groups;
    let failed = |i: usize, e: SynthesisError| anyhow!("{} {i} failed: {e}", I::NAME);
    let mut out = Vec::with_capacity(n);
    if groups == 1 {
        for i in 0..n {
            out.push(items.record(cs, i).map_err(|e| failed(i, e))?);
        }
        return Ok(out);
    }
    let (first, per) = match per {
        Some(per) => (0, per),
        None => {
            for i in 0..size {
                out.push(items.record(cs, i).map_err(|e| failed(i, e))?);
            }
            (1, cs.span().since(before).div(size))
        }
    };
    let per_group = per.times(size);
    let opened = cs.open(before, per_group, groups - first);
    let closed = opened
        .into_par_iter()
        .enumerate()
        .map(|(j, mut w)| {
            let range = (first + j) * size..(first + j + 1) * size;
            let outs = range.map(|i| items.record(&mut w, i).map_err(|e| failed(i, e))).collect::<Result<Vec<_>>>()?;
            Ok((W::close(w)?, outs))
        })
        .collect::<Result<Vec<_>>>()?;
    let (closed, outs): (Vec<_>, Vec<_>) = closed.into_iter().unzip();
    cs.join(per_group, closed)?;
    out.extend(outs.into_iter().flatten());
    Ok(out)
}

/// The fewest equal groups, at least `want` where `n` allows, that `n` items split into.
fn group_count(n: usize, want: usize) -> usize {
    (want.max(1)..=n).find(|&g| n.is_multiple_of(g)).unwrap_or(1)
}

/// Spans of several items and of one.
trait SpanArith {
    fn times(self, k: usize) -> Span;
    fn div(self, k: usize) -> Span;
}

impl SpanArith for Span {
    fn times(self, k: usize) -> Span {
        Span::window_start(Span::default(), self, k)
    }
    /// One of `k` equal parts.
    fn div(self, k: usize) -> Span {
        let k = k.max(1);
        Span {
            inputs: self.inputs / k,
            aux: self.aux / k,
            constraints: self.constraints / k,
            nnz: self.nnz.map(|x| x / k),
        }
    }
}

/// The challenges after the prefix.
struct Challenges<'a, Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> {
    circuit: &'a EmptySectorUpdateCircuit<Tree>,
    prefix: &'a Prefix,
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> Items for Challenges<'_, Tree> {
    type Out = ();
    const NAME: &'static str = "challenge";
    fn count(&self) -> usize {
        self.circuit.pub_params.challenge_count
    }
    fn record<CS: ConstraintSystem<Fr>>(&self, cs: &mut CS, i: usize) -> Result<(), SynthesisError> {
        synthesize_challenge(cs, self.circuit, self.prefix, i)
    }
}

/// The hashes of one apex-tree row: hash `i` of the siblings `2i` and `2i + 1` of the row below.
struct ApexRow<'a>(&'a [AllocatedNum<Fr>]);

impl Items for ApexRow<'_> {
    type Out = AllocatedNum<Fr>;
    const NAME: &'static str = "apex-tree hash";
    fn count(&self) -> usize {
        self.0.len() / 2
    }
    fn record<CS: ConstraintSystem<Fr>>(&self, cs: &mut CS, i: usize) -> Result<AllocatedNum<Fr>, SynthesisError> {
        <TreeDHasher as Hasher>::Function::hash2_circuit(cs, &self.0[2 * i], &self.0[2 * i + 1])
    }
}

/// What one TreeD (SHA-256) hash of two field elements records, counted once on blank values.
fn apex_hash_span() -> Result<Span> {
    static SPAN: OnceLock<Span> = OnceLock::new();
    if let Some(s) = SPAN.get() {
        return Ok(*s);
    }
    let mut counter = Counter(Span::default());
    let mut num = || AllocatedNum::alloc(&mut counter, || Err(SynthesisError::AssignmentMissing));
    let (a, b) = (num(), num());
    let before = counter.0;
    let count = |e: SynthesisError| anyhow!("counting a blank TreeD hash: {e}");
    ApexRow(&[a.map_err(count)?, b.map_err(count)?]).record(&mut counter, 0).map_err(count)?;
    Ok(*SPAN.get_or_init(|| counter.0.since(before)))
}

/// What one challenge of `pp`'s circuit records in a witness (no non-zeros), counted on a
/// blank challenge after a blank prefix's variables with a system that runs no closure; every
/// challenge of every partition of a sector size records the same. Kept per sector size.
pub fn challenge_span<Tree>(pp: &PublicParams) -> Result<Span>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
{
    static SPANS: Mutex<Vec<(usize, Span)>> = Mutex::new(Vec::new());
    if let Some(&(_, s)) = SPANS.lock().unwrap().iter().find(|(n, _)| *n == pp.sector_nodes) {
        return Ok(s);
    }
    let circuit = EmptySectorUpdateCircuit::<Tree>::blank(pp.clone());
    let mut counter = Counter(Span::default());
    let blank = |e: SynthesisError| anyhow!("counting a blank update challenge: {e}");
    let prefix = blank_prefix(&mut counter, pp).map_err(blank)?;
    let before = counter.0;
    synthesize_challenge(&mut counter, &circuit, &prefix, 0).map_err(blank)?;
    let span = counter.0.since(before);
    SPANS.lock().unwrap().push((pp.sector_nodes, span));
    Ok(span)
}

/// The prefix's variables as a challenge reads them, allocated blank (values unknown).
fn blank_prefix<CS: ConstraintSystem<Fr>>(cs: &mut CS, pp: &PublicParams) -> Result<Prefix, SynthesisError> {
    let mut bits = |n: usize| (0..n).map(|_| AllocatedBit::alloc(&mut *cs, None)).collect::<Result<Vec<_>, _>>();
    let partition_bits = bits(pp.partition_bit_len)?;
    let h_select_bits = bits(hs(pp.sector_nodes).len())?;
    let generated_bits = vec![bits(pp.challenge_bit_len - pp.partition_bit_len)?];
    let mut num = || AllocatedNum::alloc(&mut *cs, || Err(SynthesisError::AssignmentMissing));
    let (phi, root_r_old, root_r_new) = (num()?, num()?, num()?);
    let apex_leafs = (0..pp.apex_leaf_count).map(|_| num()).collect::<Result<Vec<_>, _>>()?;
    Ok(Prefix { partition_bits, h_select_bits, phi, root_r_old, root_r_new, apex_leafs, generated_bits })
}

/// `EmptySectorUpdateCircuit::synthesize` up to and including `gen_challenge_bits`, the apex
/// tree's rows in up to `windows` windows.
fn synthesize_prefix<Tree, W>(cs: &mut W, circuit: &EmptySectorUpdateCircuit<Tree>, windows: usize) -> Result<Prefix>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
    W: Windowed,
{
    let PublicParams {
        sector_nodes,
        challenge_count,
        challenge_bit_len,
        partition_count,
        partition_bit_len,
        apex_leaf_count,
        ..
    } = circuit.pub_params;
    let PublicInputs { k_and_h_select, comm_r_old, comm_d_new, comm_r_new } = circuit.pub_inputs.clone();
    let PrivateInputs { comm_c, root_r_old, root_r_new, ref apex_leafs, ref challenge_proofs } = circuit.priv_inputs;

    validate_tree_r_shape::<Tree>(sector_nodes);
    let hs = hs(sector_nodes);
    let h_select_bit_len = hs.len();

    let partition_path = challenge_proofs[0].path_d_new[challenge_bit_len - partition_bit_len..].to_vec();

    if let Some(k_and_h_select) = k_and_h_select {
        let bits: Vec<bool> = k_and_h_select.to_le_bits().into_iter().collect();
        let k_bits = &bits[..partition_bit_len];
        let mut k = 0;
        for (i, bit) in k_bits.iter().enumerate() {
            if *bit {
                k |= 1 << i;
            }
        }
        assert!(k < partition_count, "partition-index exceeds partition count");
        let h_select_bits = &bits[partition_bit_len..partition_bit_len + h_select_bit_len];
        assert_eq!(h_select_bits.iter().filter(|bit| **bit).count(), 1, "h_select does not have exactly one bit set");
        assert!(bits[partition_bit_len + h_select_bit_len..].iter().all(|bit| !*bit));
    }

    assert_eq!(apex_leafs.len(), apex_leaf_count);
    assert_eq!(partition_path.len(), partition_bit_len);
    assert!(partition_path.iter().all(|siblings| siblings.len() == 1));
    assert_eq!(challenge_proofs.len(), challenge_count);
    for challenge_proof in &challenge_proofs[1..] {
        assert_eq!(&challenge_proof.path_d_new[challenge_bit_len - partition_bit_len..], partition_path);
    }

    let k_and_h_select = AllocatedNum::alloc(cs.namespace(|| "k_and_h_select"), || {
        k_and_h_select.ok_or(SynthesisError::AssignmentMissing)
    })?;
    k_and_h_select.inputize(cs.namespace(|| "k_and_h_select (public input)"))?;

    let k_and_h_select_bits = {
        let bit_len = partition_bit_len + h_select_bit_len;
        let bits: Vec<Option<bool>> = if let Some(k_and_h_select) = k_and_h_select.get_value() {
            k_and_h_select.to_le_bits().into_iter().take(bit_len).map(Some).collect()
        } else {
            vec![None; bit_len]
        };
        let k_and_h_select_bits = bits
            .into_iter()
            .enumerate()
            .map(|(i, bit)| AllocatedBit::alloc(cs.namespace(|| format!("k_and_h_select_bit_{}", i)), bit))
            .collect::<Result<Vec<AllocatedBit>, SynthesisError>>()?;
        let mut lc = LinearCombination::<Fr>::zero();
        let mut pow2 = Fr::ONE;
        for bit in k_and_h_select_bits.iter() {
            lc = lc + (pow2, bit.get_variable());
            pow2 = pow2.double();
        }
        cs.enforce(
            || "k_and_h_select binary decomp",
            |_| lc,
            |lc| lc + W::one(),
            |lc| lc + k_and_h_select.get_variable(),
        );
        k_and_h_select_bits
    };

    let partition_bits = k_and_h_select_bits[..partition_bit_len].to_vec();
    let h_select_bits = k_and_h_select_bits[partition_bit_len..].to_vec();

    let partition = pack_bits(
        cs.namespace(|| "pack partition bits"),
        &partition_bits.iter().cloned().map(Into::into).collect::<Vec<Boolean>>(),
    )?;

    let comm_r_old =
        AllocatedNum::alloc(cs.namespace(|| "comm_r_old"), || comm_r_old.ok_or(SynthesisError::AssignmentMissing))?;
    comm_r_old.inputize(cs.namespace(|| "comm_r_old_input"))?;
    let comm_d_new =
        AllocatedNum::alloc(cs.namespace(|| "comm_d_new"), || comm_d_new.ok_or(SynthesisError::AssignmentMissing))?;
    comm_d_new.inputize(cs.namespace(|| "comm_d_new_input"))?;
    let comm_r_new =
        AllocatedNum::alloc(cs.namespace(|| "comm_r_new"), || comm_r_new.ok_or(SynthesisError::AssignmentMissing))?;
    comm_r_new.inputize(cs.namespace(|| "comm_r_new_input"))?;

    // phi = H(comm_d_new || comm_r_old)
    let phi = poseidon_hash(
        cs.namespace(|| "phi"),
        vec![comm_d_new.clone(), comm_r_old.clone()],
        &POSEIDON_CONSTANTS_GEN_RANDOMNESS,
    )?;

    let comm_c = AllocatedNum::alloc(cs.namespace(|| "comm_c"), || comm_c.ok_or(SynthesisError::AssignmentMissing))?;
    let root_r_old =
        AllocatedNum::alloc(cs.namespace(|| "root_r_old"), || root_r_old.ok_or(SynthesisError::AssignmentMissing))?;
    let root_r_new =
        AllocatedNum::alloc(cs.namespace(|| "root_r_new"), || root_r_new.ok_or(SynthesisError::AssignmentMissing))?;

    let apex_leafs = apex_leafs
        .iter()
        .enumerate()
        .map(|(i, leaf)| {
            AllocatedNum::alloc(cs.namespace(|| format!("apex_leaf_{}", i)), || {
                leaf.ok_or(SynthesisError::AssignmentMissing)
            })
        })
        .collect::<Result<Vec<AllocatedNum<Fr>>, SynthesisError>>()?;

    let partition_path = partition_path
        .iter()
        .enumerate()
        .map(|(i, siblings)| {
            AllocatedNum::alloc(cs.namespace(|| format!("partition_path_sibling_{}", i)), || {
                siblings[0].ok_or(SynthesisError::AssignmentMissing)
            })
            .map(|sibling| vec![sibling])
        })
        .collect::<Result<Vec<Vec<AllocatedNum<Fr>>>, SynthesisError>>()?;

    // comm_r = H(comm_c || root_r), old and new.
    let comm_r_old_calc =
        <TreeRHasher as Hasher>::Function::hash2_circuit(cs.namespace(|| "comm_r_old_calc"), &comm_c, &root_r_old)?;
    cs.enforce(
        || "enforce comm_r_old_calc == comm_r_old",
        |lc| lc + comm_r_old_calc.get_variable(),
        |lc| lc + W::one(),
        |lc| lc + comm_r_old.get_variable(),
    );
    let comm_r_new_calc =
        <TreeRHasher as Hasher>::Function::hash2_circuit(cs.namespace(|| "comm_r_new_calc"), &comm_c, &root_r_new)?;
    cs.enforce(
        || "enforce comm_r_new_calc == comm_r_new",
        |lc| lc + comm_r_new_calc.get_variable(),
        |lc| lc + W::one(),
        |lc| lc + comm_r_new.get_variable(),
    );

    apex_por(cs, apex_leafs.clone(), partition_bits.clone(), partition_path, comm_d_new, windows)?;

    let challenge_sans_partition_bit_len = challenge_bit_len - partition_bit_len;
    let generated_bits = gen_challenge_bits(
        cs.namespace(|| "gen_challenge_bits"),
        &comm_r_new,
        &partition,
        challenge_count,
        challenge_sans_partition_bit_len,
    )?;

    Ok(Prefix { partition_bits, h_select_bits, phi, root_r_old, root_r_new, apex_leafs, generated_bits })
}

/// The body of `EmptySectorUpdateCircuit::synthesize`'s challenge loop for challenge `c_index`.
pub fn synthesize_challenge<Tree, CS>(
    cs: &mut CS,
    circuit: &EmptySectorUpdateCircuit<Tree>,
    prefix: &Prefix,
    c_index: usize,
) -> Result<(), SynthesisError>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
    CS: ConstraintSystem<Fr>,
{
    let PublicParams { sector_nodes, challenge_bit_len, partition_bit_len, apex_leaf_bit_len, .. } = circuit.pub_params;
    let hs = hs(sector_nodes);
    let Prefix { partition_bits, h_select_bits, phi, root_r_old, root_r_new, apex_leafs, generated_bits } = prefix;
    let c_bits: Vec<AllocatedBit> = generated_bits[c_index].iter().chain(partition_bits.iter()).cloned().collect();

    // This challenge's rho.
    let c_high = get_challenge_high_bits(
        cs.namespace(|| format!("get_challenge_high_bits (c_index={})", c_index)),
        &c_bits,
        h_select_bits,
        &hs,
    )?;
    let rho = poseidon_hash(
        cs.namespace(|| format!("rho (c_index={})", c_index)),
        vec![phi.clone(), c_high.clone()],
        &POSEIDON_CONSTANTS_GEN_RANDOMNESS,
    )?;

    let challenge_proof = &circuit.priv_inputs.challenge_proofs[c_index];
    let leaf_r_old = AllocatedNum::alloc(cs.namespace(|| format!("leaf_r_old (c_index={})", c_index)), || {
        challenge_proof.leaf_r_old.ok_or(SynthesisError::AssignmentMissing)
    })?;
    let leaf_d_new = AllocatedNum::alloc(cs.namespace(|| format!("leaf_d_new (c_index={})", c_index)), || {
        challenge_proof.leaf_d_new.ok_or(SynthesisError::AssignmentMissing)
    })?;
    let leaf_r_new =
        label_r_new(cs.namespace(|| format!("leaf_r_new (c_index={})", c_index)), &leaf_r_old, &leaf_d_new, &rho)?;
    if let Some(leaf_r_new) = leaf_r_new.get_value() {
        assert_eq!(leaf_r_new, challenge_proof.leaf_r_new.unwrap());
    }

    let path_r_old = alloc_r_path(cs, &challenge_proof.path_r_old, "path_r_old", c_index)?;
    por_no_challenge_input::<Tree, _>(
        cs.namespace(|| format!("por tree_r_old (c_index={})", c_index)),
        c_bits.clone(),
        leaf_r_old.clone(),
        path_r_old,
        root_r_old.clone(),
    )?;
    let path_r_new = alloc_r_path(cs, &challenge_proof.path_r_new, "path_r_new", c_index)?;
    por_no_challenge_input::<Tree, _>(
        cs.namespace(|| format!("por tree_r_new (c_index={})", c_index)),
        c_bits.clone(),
        leaf_r_new.clone(),
        path_r_new,
        root_r_new.clone(),
    )?;

    let apex_leaf_bits: Vec<Boolean> = {
        let start = challenge_bit_len - partition_bit_len - apex_leaf_bit_len;
        let stop = start + apex_leaf_bit_len;
        c_bits[start..stop].iter().cloned().map(Into::into).collect()
    };
    let apex_leaf =
        select(cs.namespace(|| format!("select_apex_leaf (c_index={})", c_index)), apex_leafs, &apex_leaf_bits)?;

    let path_len_to_apex_leaf = challenge_bit_len - partition_bit_len - apex_leaf_bit_len;
    let c_bits_to_apex_leaf: Vec<AllocatedBit> = c_bits.into_iter().take(path_len_to_apex_leaf).collect();
    let path_to_apex_leaf = challenge_proof
        .path_d_new
        .iter()
        .take(path_len_to_apex_leaf)
        .enumerate()
        .map(|(tree_row, siblings)| {
            AllocatedNum::alloc(
                cs.namespace(|| format!("path_to_apex_leaf sibling (c_index={}, tree_row={})", c_index, tree_row)),
                || siblings[0].ok_or(SynthesisError::AssignmentMissing),
            )
            .map(|sibling| vec![sibling])
        })
        .collect::<Result<Vec<Vec<AllocatedNum<Fr>>>, SynthesisError>>()?;
    por_no_challenge_input::<TreeD, _>(
        cs.namespace(|| format!("por to_apex_leaf (c_index={})", c_index)),
        c_bits_to_apex_leaf,
        leaf_d_new,
        path_to_apex_leaf,
        apex_leaf,
    )
}

/// A TreeR Merkle path's siblings allocated row by row (`path_r_old` or `path_r_new`).
fn alloc_r_path<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    path: &[Vec<Option<Fr>>],
    name: &str,
    c_index: usize,
) -> Result<Vec<Vec<AllocatedNum<Fr>>>, SynthesisError> {
    path.iter()
        .enumerate()
        .map(|(tree_row, siblings)| {
            siblings
                .iter()
                .enumerate()
                .map(|(sibling_index, sibling)| {
                    AllocatedNum::alloc(
                        cs.namespace(|| {
                            format!(
                                "{} sibling (c_index={}, tree_row={}, sibling_index={})",
                                name, c_index, tree_row, sibling_index,
                            )
                        }),
                        || sibling.ok_or(SynthesisError::AssignmentMissing),
                    )
                })
                .collect::<Result<Vec<AllocatedNum<Fr>>, SynthesisError>>()
        })
        .collect()
}

/// Records `circuit`'s prefix (its apex tree's rows in up to `windows` windows side by side),
/// then its first `challenges` challenges in order; returns what one challenge records. The
/// prefix is the whole partition's (the digests of every challenge's bits included): of a
/// blank partition, this is the sample the compiled constraints are made from; of a real one,
/// what the native witness of the same cut is checked against.
pub fn synthesize_first<Tree, W>(
    circuit: &EmptySectorUpdateCircuit<Tree>,
    cs: &mut W,
    challenges: usize,
    windows: usize,
) -> Result<Span>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
    W: Windowed,
{
    let prefix = synthesize_prefix(cs, circuit, windows)?;
    let mut per = None;
    for c in 0..challenges {
        let before = cs.span();
        synthesize_challenge(cs, circuit, &prefix, c).map_err(|e| anyhow!("challenge {c} failed: {e}"))?;
        let span = cs.span().since(before);
        let first = *per.get_or_insert(span);
        ensure!(span == first, "challenge {c} records {span:?}, challenge 0 {first:?}");
    }
    Ok(per.unwrap_or_default())
}

// The crate's private gadgets (storage-proofs-update 19.1.0, src/gadgets.rs), transcribed.

/// `num` as `Fr::NUM_BITS` allocated bits, little-endian, and their binary decomposition.
fn allocated_num_to_allocated_bits<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    num: &AllocatedNum<Fr>,
) -> Result<Vec<AllocatedBit>, SynthesisError> {
    let bits = field_into_allocated_bits_le(&mut cs, num.get_value())?;
    assert_eq!(bits.len(), Fr::NUM_BITS as usize);
    let mut lc = LinearCombination::<Fr>::zero();
    let mut pow2 = Fr::ONE;
    for bit in bits.iter() {
        lc = lc + (pow2, bit.get_variable());
        pow2 = pow2.double();
    }
    cs.enforce(|| "binary decomp", |_| lc, |lc| lc + CS::one(), |lc| lc + num.get_variable());
    Ok(bits)
}

/// The partition's apex tree from `apex_leafs`, and `partition_path` from its root to comm_d.
/// The hashes of a row read only the row below: each row's hashes are recorded side by side.
fn apex_por<W: Windowed>(
    cs: &mut W,
    apex_leafs: Vec<AllocatedNum<Fr>>,
    partition_bits: Vec<AllocatedBit>,
    partition_path: Vec<Vec<AllocatedNum<Fr>>>,
    comm_d: AllocatedNum<Fr>,
    windows: usize,
) -> Result<()> {
    let apex_tree_height = apex_leafs.len().trailing_zeros() as usize;
    let per = apex_hash_span()?;
    let mut row = apex_leafs;
    for row_index in 0..apex_tree_height {
        row = record_items(cs, &ApexRow(&row), windows, Some(per))
            .map_err(|e| anyhow!("apex tree row {row_index}: {e:#}"))?;
    }
    let apex_root = row[0].clone();
    por_no_challenge_input::<TreeD, _>(
        cs.namespace(|| "partition-tree por"),
        partition_bits,
        apex_root,
        partition_path,
        comm_d,
    )?;
    Ok(())
}

/// Every challenge's random bits for the partition: digest_j = H(comm_r_new || k·digests + j).
fn gen_challenge_bits<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    comm_r_new: &AllocatedNum<Fr>,
    partition: &AllocatedNum<Fr>,
    challenges: usize,
    bits_per_challenge: usize,
) -> Result<Vec<Vec<AllocatedBit>>, SynthesisError> {
    let challenges_per_digest = Fr::CAPACITY as usize / bits_per_challenge;
    let digests_per_partition = (challenges as f32 / challenges_per_digest as f32).ceil() as u64;
    let mut generated_bits = Vec::with_capacity(challenges);
    for j in 0..digests_per_partition {
        let digest_index = AllocatedNum::alloc(cs.namespace(|| format!("digest_index_{}", j)), || {
            let k = partition.get_value().ok_or(SynthesisError::AssignmentMissing)?;
            Ok(k * Fr::from(digests_per_partition) + Fr::from(j))
        })?;
        cs.enforce(
            || format!("digest_index_{} == k * digests_per_partition + {}", j, j),
            |lc| lc + (Fr::from(digests_per_partition), partition.get_variable()) + (Fr::from(j), CS::one()),
            |lc| lc + CS::one(),
            |lc| lc + digest_index.get_variable(),
        );
        let digest = poseidon_hash(
            cs.namespace(|| format!("digest_{}", j)),
            vec![comm_r_new.clone(), digest_index.clone()],
            &POSEIDON_CONSTANTS_GEN_RANDOMNESS,
        )?;
        let digest_bits = allocated_num_to_allocated_bits(cs.namespace(|| format!("digest_{}_bits", j)), &digest)?;
        let challenges_to_take =
            if j == digests_per_partition - 1 { challenges - generated_bits.len() } else { challenges_per_digest };
        digest_bits.chunks(bits_per_challenge).take(challenges_to_take).for_each(|bits| {
            generated_bits.push(bits.to_vec());
        });
    }
    Ok(generated_bits)
}

/// The `h` high bits of a challenge, `h = hs[i]` chosen by the one set bit `i` of `h_select`.
fn get_challenge_high_bits<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    c_bits: &[AllocatedBit],
    h_select_bits: &[AllocatedBit],
    hs: &[usize],
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    assert_eq!(h_select_bits.len(), hs.len());
    let bit_len = c_bits.len();
    let c_bits: Vec<Boolean> = c_bits.iter().cloned().map(Into::into).collect();
    let c_high_and_zeros = hs
        .iter()
        .zip(h_select_bits.iter())
        .enumerate()
        .map(|(k, (h, h_select_bit))| {
            let c_high = pack_bits(cs.namespace(|| format!("c_high (h={}, k={})", h, k)), &c_bits[bit_len - h..])?;
            let c_high_or_zero =
                AllocatedNum::alloc(cs.namespace(|| format!("c_high_or_zero (h={}, k={})", h, k)), || {
                    if h_select_bit.get_value().ok_or(SynthesisError::AssignmentMissing)? {
                        c_high.get_value().ok_or(SynthesisError::AssignmentMissing)
                    } else {
                        Ok(Fr::ZERO)
                    }
                })?;
            cs.enforce(
                || format!("c_high_or_zero == c_high * h_select_bit (h={}, k={})", h, k),
                |lc| lc + c_high.get_variable(),
                |lc| lc + h_select_bit.get_variable(),
                |lc| lc + c_high_or_zero.get_variable(),
            );
            Ok(c_high_or_zero)
        })
        .collect::<Result<Vec<AllocatedNum<Fr>>, SynthesisError>>()?;
    let c_high_selected = AllocatedNum::alloc(cs.namespace(|| "c_high_selected"), || {
        let mut sum = c_high_and_zeros[0].get_value().ok_or(SynthesisError::AssignmentMissing)?;
        for c_high_or_zero in &c_high_and_zeros[1..] {
            sum += c_high_or_zero.get_value().ok_or(SynthesisError::AssignmentMissing)?;
        }
        Ok(sum)
    })?;
    cs.enforce(
        || "c_high_selected == dot(c_highs, h_select_bits)",
        |mut lc| {
            for c_high_or_zero in c_high_and_zeros.iter() {
                lc = lc + c_high_or_zero.get_variable();
            }
            lc
        },
        |lc| lc + CS::one(),
        |lc| lc + c_high_selected.get_variable(),
    );
    Ok(c_high_selected)
}

/// label_r_new = label_r_old + label_d_new · rho.
fn label_r_new<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    label_r_old: &AllocatedNum<Fr>,
    label_d_new: &AllocatedNum<Fr>,
    rho: &AllocatedNum<Fr>,
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    let label_d_new_rho = label_d_new.mul(cs.namespace(|| "label_d_new * rho"), rho)?;
    let label_r_new = AllocatedNum::alloc(cs.namespace(|| "label_r_new"), || {
        let label_r_old = label_r_old.get_value().ok_or(SynthesisError::AssignmentMissing)?;
        let label_d_new_rho = label_d_new_rho.get_value().ok_or(SynthesisError::AssignmentMissing)?;
        Ok(label_r_old + label_d_new_rho)
    })?;
    cs.enforce(
        || "label_r_new == label_r_old + label_d_new * rho",
        |lc| lc + label_r_old.get_variable() + label_d_new_rho.get_variable(),
        |lc| lc + CS::one(),
        |lc| lc + label_r_new.get_variable(),
    );
    Ok(label_r_new)
}
