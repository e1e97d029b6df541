//! SnarkPack against bellperson's `groth16::aggregate`, on real Groth16 proofs of a small
//! circuit (x·y = z, z public, fresh random values each run): the same SRS file, proofs and
//! transcript input give the same aggregate bytes for V1 and V2 and every size tried; both
//! verifiers accept them; both reject other public inputs, another transcript input, and a
//! flipped byte.
use bellperson::groth16 as bp;
use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::{Bls12, Scalar};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use super::seal::{aggregate_seal, verify_seal};
use super::setup::srs_bytes;
use super::srs::SrsFile;
use super::{AggregateProof, Version};
use crate::groth16::Proof;
use crate::srs::VerifyingKey;

struct Product {
    x: Option<Scalar>,
    y: Option<Scalar>,
}

impl Circuit<Scalar> for Product {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || self.x.ok_or(SynthesisError::AssignmentMissing))?;
        let y = cs.alloc(|| "y", || self.y.ok_or(SynthesisError::AssignmentMissing))?;
        let z = cs.alloc_input(
            || "z",
            || Ok(self.x.ok_or(SynthesisError::AssignmentMissing)? * self.y.ok_or(SynthesisError::AssignmentMissing)?),
        )?;
        cs.enforce(|| "x*y=z", |lc| lc + x, |lc| lc + y, |lc| lc + z);
        Ok(())
    }
}

struct Fixture {
    params: bp::Parameters<Bls12>,
    gvk: VerifyingKey,
    srs_path: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn fixture(rng: &mut ChaCha20Rng, max_proofs: usize) -> Fixture {
    let params = bp::generate_random_parameters::<Bls12, _, _>(Product { x: None, y: None }, rng).unwrap();
    let mut vk_bytes = Vec::new();
    params.vk.write(&mut vk_bytes).unwrap();
    let (gvk, _) = crate::srs::file::parse_vk(&vk_bytes, std::path::Path::new("toy.vk")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let srs_path = dir.path().join("toy.srs");
    std::fs::write(&srs_path, srs_bytes(2 * max_proofs, rand::random())).unwrap();
    Fixture { params, gvk, srs_path, _dir: dir }
}

/// `count` proofs (bellperson's) and their public inputs (with the leading ONE).
fn proofs(f: &Fixture, count: usize, rng: &mut ChaCha20Rng) -> (Vec<bp::Proof<Bls12>>, Vec<Vec<Scalar>>) {
    (0..count)
        .map(|_| {
            let (x, y) = (Scalar::random(&mut *rng), Scalar::random(&mut *rng));
            let p = bp::create_random_proof(Product { x: Some(x), y: Some(y) }, &f.params, &mut *rng).unwrap();
            (p, vec![Scalar::ONE, x * y])
        })
        .unzip()
}

fn ours(p: &bp::Proof<Bls12>) -> Proof {
    Proof { a: p.a, b: p.b, c: p.c }
}

fn bp_version(v: Version) -> bp::aggregate::AggregateVersion {
    match v {
        Version::V1 => bp::aggregate::AggregateVersion::V1,
        Version::V2 => bp::aggregate::AggregateVersion::V2,
    }
}

fn bp_verify(f: &Fixture, inputs: &[Vec<Scalar>], include: &[u8], bytes: &[u8], v: Version) -> bool {
    let Ok(proof) = bp::aggregate::AggregateProof::<Bls12>::read(std::io::Cursor::new(bytes)) else {
        return false;
    };
    let n = proof.tmipp.gipa.nproofs as usize;
    let generic = read_generic(f);
    let (_, vk) = generic.specialize(n);
    let pvk = bp::prepare_verifying_key(&f.params.vk);
    let without_one: Vec<Vec<Scalar>> = inputs.iter().map(|x| x[1..].to_vec()).collect();
    bp::aggregate::verify_aggregate_proof(&vk, &pvk, rand::rngs::OsRng, &without_one, &proof, include, bp_version(v))
        .unwrap_or(false)
}

fn read_generic(f: &Fixture) -> bp::aggregate::GenericSRS<Bls12> {
    let bytes = std::fs::read(&f.srs_path).unwrap();
    bp::aggregate::GenericSRS::<Bls12>::read(&mut &bytes[..]).unwrap()
}

#[test]
fn aggregates_match_bellperson_and_verify_on_both_sides() {
    let mut rng = ChaCha20Rng::seed_from_u64(rand::random());
    let f = fixture(&mut rng, 8);
    let srs = SrsFile::open(&f.srs_path).unwrap();
    let generic = read_generic(&f);
    let include = b"seeds and comm_rs";
    for (count, version) in [(2, Version::V1), (3, Version::V2), (8, Version::V2), (5, Version::V1)] {
        let (bp_proofs, inputs) = proofs(&f, count, &mut rng);
        let n = super::seal::target_len(count);
        let mut padded = bp_proofs.clone();
        padded.resize(n, bp_proofs[count - 1].clone());
        let (pk_ref, _) = generic.specialize(n);
        let theirs = bp::aggregate::aggregate_proofs(&pk_ref, include, &padded, bp_version(version)).unwrap();
        let mut their_bytes = Vec::new();
        theirs.write(&mut their_bytes).unwrap();

        let pk = srs.prover_key(n).unwrap();
        let mine = aggregate_seal(&pk, include, bp_proofs.iter().map(ours).collect(), version).unwrap();
        assert_eq!(mine.len(), super::proof::encoded_len(n));
        assert!(mine == their_bytes, "{count} proofs, {version:?}: the bytes differ from bellperson's");
        assert_eq!(AggregateProof::from_bytes(&mine).unwrap().to_bytes().unwrap(), mine);

        let vk = srs.verifier_key(n).unwrap();
        assert_eq!(verify_seal(&vk, &f.gvk, inputs.clone(), include, &mine, version).unwrap(), Ok(()));
        assert!(bp_verify(&f, &super::seal::pad(inputs.clone(), n), include, &mine, version));

        // Another public input, another transcript input, the other version: rejected by both.
        let mut wrong = inputs.clone();
        wrong[count - 1][1] += Scalar::ONE;
        assert!(verify_seal(&vk, &f.gvk, wrong.clone(), include, &mine, version).unwrap().is_err());
        assert!(!bp_verify(&f, &super::seal::pad(wrong, n), include, &mine, version));
        assert!(verify_seal(&vk, &f.gvk, inputs.clone(), b"other", &mine, version).unwrap().is_err());
        let other = if version == Version::V1 { Version::V2 } else { Version::V1 };
        assert!(verify_seal(&vk, &f.gvk, inputs.clone(), include, &mine, other).unwrap().is_err());
        // One flipped byte anywhere: here in the middle of the GIPA rounds, and in the openings.
        for at in [mine.len() / 2, mine.len() - 10] {
            let mut flipped = mine.clone();
            flipped[at] ^= 0x04;
            assert!(verify_seal(&vk, &f.gvk, inputs.clone(), include, &flipped, version).unwrap().is_err());
            assert!(!bp_verify(&f, &super::seal::pad(inputs.clone(), n), include, &flipped, version));
        }
    }
}

#[test]
fn srs_capacity_and_corruption_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("v28-fil-inner-product-v1.srs");
    let bytes = srs_bytes(8, 1);
    std::fs::write(&p, &bytes).unwrap();
    let f = SrsFile::open(&p).unwrap();
    assert_eq!(f.max_proofs(), 4);
    let e = f.prover_key(8).err().unwrap().to_string();
    assert!(e.contains("supports at most 4 proofs") && e.contains("v28-fil-inner-product-v1.srs"), "{e}");

    std::fs::write(&p, &bytes[..bytes.len() - 7]).unwrap();
    let e = SrsFile::open(&p).err().unwrap().to_string();
    assert!(e.contains("truncated") && e.contains("h_beta_powers"), "{e}");

    let mut bad = bytes.clone();
    bad[4 + 48 * 3 + 5] ^= 0x10; // a byte inside g_alpha point 3
    std::fs::write(&p, &bad).unwrap();
    let e = SrsFile::open(&p).unwrap().prover_key(4).err().unwrap().to_string();
    assert!(e.contains("g_alpha_powers point 3") && e.contains("corrupt"), "{e}");

    let mut huge = bytes;
    huge[..4].copy_from_slice(&(super::srs::MAX_VECTOR as u32 + 1).to_be_bytes());
    std::fs::write(&p, &huge).unwrap();
    let e = SrsFile::open(&p).err().unwrap().to_string();
    assert!(e.contains("corrupt") && e.contains("g_alpha_powers"), "{e}");
}

/// Miller loops "elsewhere", as a device offers them: groups of `per` pairs, each group's loop
/// over precomputed lines, the groups' values multiplied (the GPU kernel's decomposition); or a
/// device that always fails.
struct Elsewhere {
    per: usize,
    fails: bool,
    calls: std::sync::atomic::AtomicUsize,
}

impl crate::ec::MillerLoops for Elsewhere {
    fn label(&self) -> String {
        "test device".into()
    }
    fn pays(&self, pairs: usize) -> bool {
        pairs >= 1
    }
    fn sharing_g2(
        &self,
        ps: &[&[crate::ec::P1Affine]],
        q: &[crate::ec::P2Affine],
    ) -> anyhow::Result<Vec<crate::ec::MillerProduct>> {
        use crate::ec::{G2Lines, MillerProduct};
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if self.fails {
            anyhow::bail!("out of memory, say");
        }
        let lines: Vec<G2Lines> = q.iter().map(G2Lines::of).collect();
        let product = |p: &[crate::ec::P1Affine]| {
            p.chunks(self.per)
                .zip(lines.chunks(self.per))
                .map(|(p, l)| MillerProduct::of_lines(p, l))
                .fold(MillerProduct::one(), |f, g| f.mul(&g))
        };
        Ok(ps.iter().map(|p| product(p)).collect())
    }
}

/// The aggregate's bytes do not depend on where the Miller loops run: every product handed to
/// a device that groups the pairs, or to one that fails (the CPU takes them back), gives the
/// CPU's bytes, V1 and V2.
#[test]
fn aggregates_with_the_loops_elsewhere_are_the_same_bytes() {
    use super::ipp::Pairings;
    use super::seal::aggregate_seal_on;
    let mut rng = ChaCha20Rng::seed_from_u64(rand::random());
    let f = fixture(&mut rng, 8);
    let srs = SrsFile::open(&f.srs_path).unwrap();
    for (count, version) in [(8, Version::V2), (5, Version::V1)] {
        let (bp_proofs, _) = proofs(&f, count, &mut rng);
        let mine: Vec<Proof> = bp_proofs.iter().map(ours).collect();
        let pk = srs.prover_key(super::seal::target_len(count)).unwrap();
        let cpu = aggregate_seal(&pk, b"include", mine.clone(), version).unwrap();
        for (per, fails) in [(1, false), (3, false), (1, true)] {
            let d = Elsewhere { per, fails, calls: Default::default() };
            let got = aggregate_seal_on(&pk, b"include", mine.clone(), version, Pairings::on(&d)).unwrap();
            assert!(got == cpu, "{count} proofs, {version:?}, groups of {per}, fails {fails}: other bytes");
            assert!(d.calls.into_inner() > 0, "the device was never asked");
        }
    }
}
