//! The test of truth for a C1 output: storage-proofs-porep's own vanilla verifier
//! (`StackedDrg::verify_all_partitions`, what filecoin-proofs' `seal_commit_phase1` runs as its
//! sanity check) over the public inputs a verifier derives: the replica id from miner, sector
//! number, ticket and comm_d; the challenges from replica id, seed and partition.
//!
//! The vanilla verifier trusts the roots stored in the tree D and tree R openings and the
//! parent labels stored in the labeling proofs; the circuit does not: it hashes those paths,
//! and it recomputes each label from the parents' opened columns. Those checks are made here
//! too, so a c1 that passes would also satisfy the circuit. When anything fails, the checks
//! are walked one by one to name the partition, challenge and part (comm_r, tree D, columns,
//! tree R, a layer's label, the encoding).
use anyhow::{anyhow, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::{Domain, HashFunction, Hasher};
use filecoin_proofs::{
    parameters::public_params, DefaultPieceDomain, DefaultPieceHasher, SectorShape2KiB, SectorShape32GiB,
    SectorShape512MiB, SectorShape64GiB, SectorShape8MiB,
};
use storage_proofs_core::{drgraph::Graph, merkle::MerkleProofTrait, merkle::MerkleTreeTrait, proof::ProofScheme};
use storage_proofs_porep::stacked::{
    generate_replica_id, EncodingProof, LabelingProof, Proof, PublicInputs, PublicParams, ReplicaColumnProof,
    StackedDrg, Tau, TOTAL_PARENTS,
};

use crate::input::{prover_id, C1Input, PorepKind, SectorIdentity};

type G = DefaultPieceHasher;

/// A verdict: the c1 is well-formed but its vanilla proofs (or replica id) are wrong.
#[derive(Debug)]
pub struct Rejected(pub String);

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
impl std::error::Error for Rejected {}
type TreeDomain<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;

/// Checks the vanilla proofs of a c1 for the given sector with storage-proofs' verifier. A
/// [`Rejected`] error is the verdict; any other error is a failure to check.
pub fn verify_c1(c1: &C1Input, sector: &SectorIdentity) -> Result<()> {
    match c1.kind {
        PorepKind::S2KiB => verify_with::<SectorShape2KiB>(c1, sector),
        PorepKind::S8MiB => verify_with::<SectorShape8MiB>(c1, sector),
        PorepKind::S512MiB => verify_with::<SectorShape512MiB>(c1, sector),
        PorepKind::S32GiB => verify_with::<SectorShape32GiB>(c1, sector),
        PorepKind::S64GiB => verify_with::<SectorShape64GiB>(c1, sector),
    }
}

fn verify_with<Tree: 'static + MerkleTreeTrait>(c1: &C1Input, sector: &SectorIdentity) -> Result<()> {
    let out = &c1.output;
    let config = out.registered_proof.as_v1_config();
    let replica_id = generate_replica_id::<Tree::Hasher, _>(
        &prover_id(sector.miner_id),
        sector.sector_num,
        &out.ticket,
        out.comm_d,
        &config.porep_id,
    );
    let theirs: Fr = out.replica_id.into();
    if theirs != replica_id.into() {
        return Err(Rejected(format!(
            "the replica id is not the one of miner t0{} sector {} with this ticket and comm_d",
            sector.miner_id, sector.sector_num
        ))
        .into());
    }
    let pp = public_params::<Tree>(&config).context("building the PoRep public parameters")?;
    let comm_r = TreeDomain::<Tree>::try_from_bytes(&out.comm_r).context("comm_r is not a field element")?;
    let comm_d = DefaultPieceDomain::try_from_bytes(&out.comm_d).context("comm_d is not a field element")?;
    let pub_in = PublicInputs { replica_id, tau: Some(Tau { comm_d, comm_r }), k: None, seed: Some(out.seed) };
    let proofs: Vec<Vec<Proof<Tree, G>>> =
        out.vanilla_proofs.clone().try_into().map_err(|e| anyhow!("vanilla proofs do not fit the proof type: {e}"))?;
    let vanilla_ok = StackedDrg::<Tree, G>::verify_all_partitions(&pp, &pub_in, &proofs)?;
    match diagnose(&pp, &pub_in, &proofs) {
        None if vanilla_ok => Ok(()),
        None => Err(Rejected(
            "storage-proofs-porep's vanilla verifier rejects the proofs (partition count or proof shape)".into(),
        )
        .into()),
        Some(why) if vanilla_ok => {
            Err(Rejected(format!("the vanilla verifier accepts, but the circuit would not: {why}")).into())
        }
        Some(why) => Err(Rejected(format!("storage-proofs-porep's vanilla verifier rejects the proofs: {why}")).into()),
    }
}

/// Names the first check of the vanilla verifier or of the circuit that fails, if any.
fn diagnose<Tree: 'static + MerkleTreeTrait>(
    pp: &PublicParams<Tree>,
    pub_in: &PublicInputs<TreeDomain<Tree>, DefaultPieceDomain>,
    partitions: &[Vec<Proof<Tree, G>>],
) -> Option<String> {
    let tau = pub_in.tau.as_ref().expect("tau is set");
    for (k, proofs) in partitions.iter().enumerate() {
        let Some(first) = proofs.first() else {
            return Some(format!("partition {k} has no proofs"));
        };
        let comm_r = <Tree::Hasher as Hasher>::Function::hash2(&first.comm_c(), &first.comm_r_last());
        if comm_r != tau.comm_r {
            return Some(format!("partition {k}: Poseidon(comm_c, comm_r_last) is not comm_r"));
        }
        let challenges = pub_in.challenges(&pp.challenges, pp.graph.size(), Some(k));
        if challenges.len() != proofs.len() {
            return Some(format!("partition {k}: {} proofs for {} challenges", proofs.len(), challenges.len()));
        }
        for (i, (proof, &c)) in proofs.iter().zip(&challenges).enumerate() {
            if proof.comm_c() != first.comm_c() || proof.comm_r_last() != first.comm_r_last() {
                return Some(format!(
                    "partition {k}, challenge {i} (node {c}): its tree C or tree R root differs from the partition's"
                ));
            }
            if let Some(what) = failing_part(pp, pub_in, proof, c) {
                return Some(format!("partition {k}, challenge {i} (node {c}): {what}"));
            }
        }
    }
    None
}

/// The part of one challenge's proof that fails, if any: the vanilla verifier's checks, plus
/// what only the circuit checks (the tree D and tree R paths hash to their roots; each label
/// and the encoding key are the hash of the parents' *column* values).
fn failing_part<Tree: 'static + MerkleTreeTrait>(
    pp: &PublicParams<Tree>,
    pub_in: &PublicInputs<TreeDomain<Tree>, DefaultPieceDomain>,
    proof: &Proof<Tree, G>,
    challenge: usize,
) -> Option<String> {
    let tau = pub_in.tau.as_ref().expect("tau is set");
    let d = &proof.comm_d_proofs;
    if !d.validate(challenge) || d.root() != tau.comm_d {
        return Some("the tree D (comm_d) opening".into());
    }
    let mut parents = vec![0u32; pp.graph.degree()];
    if pp.graph.parents(challenge, &mut parents).is_err() {
        return Some("its parents cannot be derived".into());
    }
    let cols = &proof.replica_column_proofs;
    if !cols.verify(challenge, &parents) {
        return Some("a column opening in tree C (comm_c)".into());
    }
    if !proof.comm_r_last_proof.validate(challenge) {
        return Some("the tree R (comm_r_last) opening".into());
    }
    for layer in 1..=pp.num_layers {
        let Some(parents_at_layer) = column_parents(cols, layer) else {
            return Some(format!("a parent column has no layer {layer}"));
        };
        let (Some(lp), Ok(label)) = (proof.labeling_proofs.get(layer - 1), cols.c_x.get_node_at_layer(layer)) else {
            return Some(format!("no labeling proof for layer {layer}"));
        };
        if !lp.verify(&pub_in.replica_id, label) {
            return Some(format!("the label at layer {layer} is not the hash of its labeling proof's parents"));
        }
        let from_columns = LabelingProof::<Tree::Hasher>::new(layer as u32, challenge as u64, parents_at_layer);
        if !from_columns.verify(&pub_in.replica_id, label) {
            return Some(format!("the label at layer {layer} is not the hash of its parents' column values"));
        }
    }
    if !proof.encoding_proof.verify::<G>(
        &pub_in.replica_id,
        &proof.comm_r_last_proof.leaf(),
        &proof.comm_d_proofs.leaf(),
    ) {
        return Some("the encoding (replica node ≠ last label + data node)".into());
    }
    let layers = pp.num_layers;
    let Some(parents_at_last) = column_parents(cols, layers) else {
        return Some(format!("a parent column has no layer {layers}"));
    };
    let key = EncodingProof::<Tree::Hasher>::new(layers as u32, challenge as u64, parents_at_last);
    if !key.verify::<G>(&pub_in.replica_id, &proof.comm_r_last_proof.leaf(), &proof.comm_d_proofs.leaf()) {
        return Some("the encoding key is not the hash of the parents' column values".into());
    }
    None
}

/// The 37 parent values of the label at `layer`, read from the parents' opened columns as
/// the circuit reads them: DRG parents at `layer`, expander parents at `layer - 1`, cycled.
fn column_parents<P: MerkleProofTrait>(
    cols: &ReplicaColumnProof<P>,
    layer: usize,
) -> Option<Vec<<P::Hasher as Hasher>::Domain>> {
    let mut distinct = Vec::new();
    for c in &cols.drg_parents {
        distinct.push(*c.get_node_at_layer(layer).ok()?);
    }
    if layer > 1 {
        for c in &cols.exp_parents {
            distinct.push(*c.get_node_at_layer(layer - 1).ok()?);
        }
    }
    Some(distinct.iter().copied().cycle().take(TOTAL_PARENTS).collect())
}
