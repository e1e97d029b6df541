//! An aggregate proof and its bytes, as bellperson's `AggregateProof::write` lays them out
//! (what filecoin-proofs returns and the chain stores). With ℓ = log₂ n rounds:
//!
//! | field | bytes |
//! |---|---|
//! | com_ab (T, U), com_c (T, U), ip_ab | 5 × 288 (Gt, torus-compressed) |
//! | agg_c | 48 (G1 compressed) |
//! | n | 4 (u32 little endian) |
//! | per round: comms_ab (left T, U, right T, U) | ℓ × 4 × 288 |
//! | per round: comms_c (left T, U, right T, U) | ℓ × 4 × 288 |
//! | per round: z_ab (left, right) | ℓ × 2 × 288 |
//! | per round: z_c (left, right) | ℓ × 2 × 48 |
//! | final A, B, C | 48 + 96 + 48 |
//! | final v key (α, β), final w key (α, β) | 2 × 96 + 2 × 48 |
//! | KZG opening of v (α, β), of w (α, β) | 2 × 96 + 2 × 48 |
//!
//! A Gt element is compressed to 6 Fp coefficients (48 bytes little endian each), blstrs'
//! `Compress`; decoding checks it is in the subgroup, as points are checked.
use anyhow::{anyhow, bail, Result};
use blstrs::{Compress, G1Affine, G2Affine, Gt};
use group::Group;

use super::commit::Commitment;

const GT: usize = 288;

/// The folded values and cross commitments of the GIPA recursion, and its last values.
#[derive(Clone, Debug, PartialEq)]
pub struct Gipa {
    pub nproofs: u32,
    /// Per round: the cross commitments of (A, B), left then right.
    pub comms_ab: Vec<(Commitment, Commitment)>,
    /// Per round: the cross commitments of C.
    pub comms_c: Vec<(Commitment, Commitment)>,
    /// Per round: the cross pairing products of A and B.
    pub z_ab: Vec<(Gt, Gt)>,
    /// Per round: the cross multi-exponentiations of C and r.
    pub z_c: Vec<(G1Affine, G1Affine)>,
    pub final_a: G1Affine,
    pub final_b: G2Affine,
    pub final_c: G1Affine,
    pub final_vkey: (G2Affine, G2Affine),
    pub final_wkey: (G1Affine, G1Affine),
}

/// A SnarkPack aggregate of n Groth16 proofs.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateProof {
    pub com_ab: Commitment,
    pub com_c: Commitment,
    /// Π e(A_i, B_i)^{r^i}.
    pub ip_ab: Gt,
    /// Σ r^i·C_i.
    pub agg_c: G1Affine,
    pub gipa: Gipa,
    pub vkey_opening: (G2Affine, G2Affine),
    pub wkey_opening: (G1Affine, G1Affine),
}

/// The encoded size of an aggregate of `n` proofs (a power of two).
pub fn encoded_len(n: usize) -> usize {
    let rounds = n.trailing_zeros() as usize;
    5 * GT + 48 + 4 + rounds * (10 * GT + 2 * 48) + 192 + 288 + 288
}

impl AggregateProof {
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let n = self.gipa.nproofs as usize;
        let mut out = Vec::with_capacity(encoded_len(n));
        for x in [&self.com_ab.0, &self.com_ab.1, &self.com_c.0, &self.com_c.1, &self.ip_ab] {
            put_gt(&mut out, x)?;
        }
        out.extend_from_slice(&self.agg_c.to_compressed());
        out.extend_from_slice(&self.gipa.nproofs.to_le_bytes());
        for comms in [&self.gipa.comms_ab, &self.gipa.comms_c] {
            for (l, r) in comms {
                for x in [&l.0, &l.1, &r.0, &r.1] {
                    put_gt(&mut out, x)?;
                }
            }
        }
        for (l, r) in &self.gipa.z_ab {
            put_gt(&mut out, l)?;
            put_gt(&mut out, r)?;
        }
        for (l, r) in &self.gipa.z_c {
            out.extend_from_slice(&l.to_compressed());
            out.extend_from_slice(&r.to_compressed());
        }
        let g = &self.gipa;
        out.extend_from_slice(&g.final_a.to_compressed());
        out.extend_from_slice(&g.final_b.to_compressed());
        out.extend_from_slice(&g.final_c.to_compressed());
        out.extend_from_slice(&g.final_vkey.0.to_compressed());
        out.extend_from_slice(&g.final_vkey.1.to_compressed());
        out.extend_from_slice(&g.final_wkey.0.to_compressed());
        out.extend_from_slice(&g.final_wkey.1.to_compressed());
        out.extend_from_slice(&self.vkey_opening.0.to_compressed());
        out.extend_from_slice(&self.vkey_opening.1.to_compressed());
        out.extend_from_slice(&self.wkey_opening.0.to_compressed());
        out.extend_from_slice(&self.wkey_opening.1.to_compressed());
        debug_assert_eq!(out.len(), encoded_len(n));
        Ok(out)
    }

    /// Decodes an aggregate; every element must be valid and no byte may be left over. The
    /// error says which element is malformed.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader { bytes, at: 0 };
        let com_ab = (r.gt("com_ab")?, r.gt("com_ab")?);
        let com_c = (r.gt("com_c")?, r.gt("com_c")?);
        let ip_ab = r.gt("ip_ab")?;
        let agg_c = r.g1("agg_c")?;
        let nproofs = u32::from_le_bytes(r.take(4, "the proof count")?.try_into().unwrap());
        if nproofs < 2 || !nproofs.is_power_of_two() || nproofs as usize > super::srs::MAX_VECTOR {
            bail!("the aggregate claims {nproofs} proofs: not a power of two from 2 on");
        }
        let rounds = nproofs.trailing_zeros() as usize;
        let mut comms = |what: &str| -> Result<Vec<(Commitment, Commitment)>> {
            (0..rounds).map(|_| Ok(((r.gt(what)?, r.gt(what)?), (r.gt(what)?, r.gt(what)?)))).collect()
        };
        let comms_ab = comms("comms_ab")?;
        let comms_c = comms("comms_c")?;
        let z_ab = (0..rounds).map(|_| Ok((r.gt("z_ab")?, r.gt("z_ab")?))).collect::<Result<_>>()?;
        let z_c = (0..rounds).map(|_| Ok((r.g1("z_c")?, r.g1("z_c")?))).collect::<Result<_>>()?;
        let gipa = Gipa {
            nproofs,
            comms_ab,
            comms_c,
            z_ab,
            z_c,
            final_a: r.g1("final_a")?,
            final_b: r.g2("final_b")?,
            final_c: r.g1("final_c")?,
            final_vkey: (r.g2("final_vkey")?, r.g2("final_vkey")?),
            final_wkey: (r.g1("final_wkey")?, r.g1("final_wkey")?),
        };
        let vkey_opening = (r.g2("vkey_opening")?, r.g2("vkey_opening")?);
        let wkey_opening = (r.g1("wkey_opening")?, r.g1("wkey_opening")?);
        if r.at != bytes.len() {
            bail!("{} bytes after the end of an aggregate of {nproofs} proofs ({} bytes)", bytes.len() - r.at, r.at);
        }
        Ok(AggregateProof { com_ab, com_c, ip_ab, agg_c, gipa, vkey_opening, wkey_opening })
    }
}

fn put_gt(out: &mut Vec<u8>, x: &Gt) -> Result<()> {
    // blstrs' torus compression divides by the second Fp6 half, which only the identity lacks.
    if bool::from(x.is_identity()) {
        bail!("an aggregate value is the identity of Gt, which has no compressed form");
    }
    x.write_compressed(&mut *out).map_err(|e| anyhow!("compressing a Gt element: {e}"))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        let s = self.bytes.get(self.at..self.at + n).ok_or_else(|| {
            anyhow!("the aggregate ends at byte {} inside {what} (truncated: {} bytes)", self.at, self.bytes.len())
        })?;
        self.at += n;
        Ok(s)
    }

    fn gt(&mut self, what: &str) -> Result<Gt> {
        let at = self.at;
        let b = self.take(GT, what)?;
        Gt::read_compressed(b).map_err(|_| anyhow!("{what} at byte {at} is not a valid compressed Gt element"))
    }

    fn g1(&mut self, what: &str) -> Result<G1Affine> {
        let at = self.at;
        let b = self.take(48, what)?;
        Option::from(G1Affine::from_compressed(b.try_into().unwrap()))
            .ok_or_else(|| anyhow!("{what} at byte {at} is not a valid compressed G1 point"))
    }

    fn g2(&mut self, what: &str) -> Result<G2Affine> {
        let at = self.at;
        let b = self.take(96, what)?;
        Option::from(G2Affine::from_compressed(b.try_into().unwrap()))
            .ok_or_else(|| anyhow!("{what} at byte {at} is not a valid compressed G2 point"))
    }
}
