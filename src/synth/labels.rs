//! Stacked-DRG labels at the nodes a vanilla proof shows, without labeling the sector.
//!
//! The label of node v at layer l is SHA-256(replica_id ‖ l as u32 BE ‖ v as u64 BE ‖ 0²⁰ ‖
//! p₀ … p₃₆) with the top two bits cleared, where p is the parents' labels cycled to 37:
//! at layer 1 the 6 DRG (base) parents at layer 1; above, the 6 base parents at layer l and
//! the 8 expander parents at layer l − 1. (storage-proofs-porep's `LabelingProof`.)
//!
//! A *challenged* node's labels are computed from its parents' labels, layer by layer. Every
//! other node's label is random but a fixed function of (key, node, layer), so the same node
//! and layer has one value in every column and labeling proof. Base parents precede their
//! child and expander parents sit one layer lower, so computing layer by layer, nodes in
//! ascending order, finds every challenged parent's label already made.
use std::collections::{BTreeSet, HashMap};

use anyhow::{anyhow, Result};
use filecoin_hashers::{sha256::Sha256Hasher, Domain, HashFunction, Hasher};
use storage_proofs_core::drgraph::Graph;
use storage_proofs_porep::stacked::{StackedBucketGraph, TOTAL_PARENTS};

/// The labels a synthetic vanilla proof needs, for one replica.
pub struct SparseLabels<'g, H: 'static + Hasher> {
    graph: &'g StackedBucketGraph<H>,
    replica_id: H::Domain,
    layers: usize,
    key: [u8; 32],
    challenged: BTreeSet<u32>,
    computed: HashMap<(u32, usize), H::Domain>,
}

/// The DRG (base) parents of `node`, all smaller than it.
pub fn drg_parents<H: 'static + Hasher>(graph: &StackedBucketGraph<H>, node: u32) -> Result<Vec<u32>> {
    let mut p = vec![0u32; graph.base_graph().degree()];
    graph.base_parents(node as usize, &mut p)?;
    Ok(p)
}

/// The expander parents of `node` (any index; their labels are one layer lower).
pub fn exp_parents<H: 'static + Hasher>(graph: &StackedBucketGraph<H>, node: u32) -> Result<Vec<u32>> {
    let mut p = vec![0u32; graph.expansion_degree()];
    graph.expanded_parents(node as usize, &mut p)?;
    Ok(p)
}

/// A label from its replica, layer, node and the 37 parent labels.
pub fn create_label<D: Domain>(replica_id: &D, layer: usize, node: u32, parents: &[D]) -> D {
    let mut buf = Vec::with_capacity(64 + 32 * parents.len());
    buf.extend_from_slice(replica_id.as_ref());
    buf.extend_from_slice(&(layer as u32).to_be_bytes());
    buf.extend_from_slice(&(node as u64).to_be_bytes());
    buf.resize(64, 0);
    for p in parents {
        buf.extend_from_slice(p.as_ref());
    }
    fr_safe_sha256::<D>(&buf)
}

/// SHA-256 with the top two bits cleared (a valid field element), into any domain.
fn fr_safe_sha256<D: Domain>(bytes: &[u8]) -> D {
    let h = <Sha256Hasher as Hasher>::Function::hash(bytes);
    let repr: [u8; 32] = h.into();
    D::from(repr)
}

/// The stand-in label of a node that no proof recomputes.
fn random_label<D: Domain>(key: &[u8; 32], node: u32, layer: usize) -> D {
    let mut buf = Vec::with_capacity(64);
    buf.extend_from_slice(b"filsnark synth label");
    buf.extend_from_slice(key);
    buf.extend_from_slice(&(layer as u32).to_le_bytes());
    buf.extend_from_slice(&node.to_le_bytes());
    fr_safe_sha256::<D>(&buf)
}

impl<'g, H: 'static + Hasher> SparseLabels<'g, H> {
    /// Computes every layer's label of every challenged node.
    pub fn compute(
        graph: &'g StackedBucketGraph<H>,
        replica_id: H::Domain,
        layers: usize,
        key: [u8; 32],
        challenges: impl IntoIterator<Item = u32>,
    ) -> Result<Self> {
        let challenged: BTreeSet<u32> = challenges.into_iter().collect();
        let mut labels = Self { graph, replica_id, layers, key, challenged, computed: HashMap::new() };
        for layer in 1..=layers {
            for &node in &labels.challenged {
                let parents = labels.parent_labels(node, layer)?;
                let label = create_label(&labels.replica_id, layer, node, &parents);
                labels.computed.insert((node, layer), label);
            }
        }
        Ok(labels)
    }

    pub fn layers(&self) -> usize {
        self.layers
    }

    /// The label of `node` at `layer` (1-based).
    pub fn label(&self, node: u32, layer: usize) -> Result<H::Domain> {
        if !self.challenged.contains(&node) {
            return Ok(random_label(&self.key, node, layer));
        }
        self.computed
            .get(&(node, layer))
            .copied()
            .ok_or_else(|| anyhow!("label of challenged node {node} at layer {layer} is needed before it is computed"))
    }

    /// The column of `node`: its labels at layers 1..=layers.
    pub fn column(&self, node: u32) -> Result<Vec<H::Domain>> {
        (1..=self.layers).map(|l| self.label(node, l)).collect()
    }

    /// The 37 parent labels hashed into the label of `node` at `layer`.
    pub fn parent_labels(&self, node: u32, layer: usize) -> Result<Vec<H::Domain>> {
        let mut distinct = Vec::with_capacity(self.graph.degree());
        for p in drg_parents(self.graph, node)? {
            distinct.push(self.label(p, layer)?);
        }
        if layer > 1 {
            for p in exp_parents(self.graph, node)? {
                distinct.push(self.label(p, layer - 1)?);
            }
        }
        Ok(distinct.iter().copied().cycle().take(TOTAL_PARENTS).collect())
    }
}
