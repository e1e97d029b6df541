//! The moving range of prefix columns (SnapDeals' challenge bits) on a toy circuit shaped like
//! the update circuit: its prefix allocates per digest a hash and the bits of three challenges,
//! and challenge `j` reads its two bits at `(j / 3)·7 + 1 + (j % 3)·2`, offsets 0, 2, 4, 7, 9,
//! 11, 14 — not linear in `j`. The range and offsets are derived and checked, the compiled
//! shape expands row by row to the recording and evaluates as synthesis (A·z, B·z, C·z and
//! densities, the moved bits being in A and B); a corrupted offset, a read moved by another
//! offset and a read moved backwards are caught as mismatches; the file round-trips and refuses
//! a truncated or malformed offset table, naming the file.
use std::path::Path;

use bellperson::{ConstraintSystem, LinearCombination, SynthesisError};
use blstrs::Scalar;
use ff::Field;

use super::format;
use super::template::{check_repeats, derive_moving, Moving};
use super::tests::packed;
use super::*;
use crate::circuit::r1cs::{R1cs, R1csCs};
use crate::circuit::window::{synthesize_windows, ChallengeCircuit, Span, Windowed};
use crate::circuit::window_tests::assert_same_assignment;
use crate::circuit::witness::WitnessCs;
use crate::circuit::Assignment;

/// Digests of the toy prefix, each with bits for this many challenges of two bits each.
const DIGESTS: usize = 3;
const PER_DIGEST: usize = 3;
const BITS: usize = 2;
/// Aux per digest: its hash, then its bits.
const DIGEST_AUX: usize = 1 + PER_DIGEST * BITS;

/// Prefix: input x; per digest `d` an aux h (= d + 7) and 6 bits packing to it (1·h = Σ 2^k·b_k,
/// so the bits occur in A and B only where the challenges read them). Challenge j:
/// its bits b0, b1 (digest j / 3, bits (j % 3)·2 ..), aux z, t and input p;
/// (x + h_0 + b0 + 2·b1)·1 = z; z·b0 = t; (t + p)·(b1 + 3) = t + p (evaluation does not ask
/// for a satisfied row). A challenge's bits occur in A and B (the densities mark them at every
/// challenge's place; digest 2's last four bits, read by no challenge, in neither), h_0 (aux 0,
/// just below the moving range) in every challenge.
struct Digests {
    n: usize,
}

fn f(v: u64) -> Scalar {
    Scalar::from(v)
}

fn bit(d: usize, k: usize) -> bool {
    (d + 7) >> k & 1 == 1
}

impl ChallengeCircuit for Digests {
    fn num_challenges(&self) -> usize {
        self.n
    }

    fn synthesize_range<CS: ConstraintSystem<Scalar>>(
        &self,
        cs: &mut CS,
        range: std::ops::Range<usize>,
    ) -> Result<(), SynthesisError> {
        let x = cs.alloc_input(|| "x", || Ok(f(3)))?;
        let mut hashes = Vec::new();
        let mut bits = Vec::new();
        for d in 0..DIGESTS {
            let h = cs.alloc(|| "h", || Ok(f(d as u64 + 7)))?;
            hashes.push(h);
            let mut lc = LinearCombination::zero();
            for k in 0..PER_DIGEST * BITS {
                let v = bit(d, k);
                let b = cs.alloc(|| "b", || Ok(if v { Scalar::ONE } else { Scalar::ZERO }))?;
                lc = lc + (coeff::pow2_values()[k], b);
                bits.push(b);
            }
            // the bits in C only: the prefix puts none of them in the A and B densities
            cs.enforce(|| "pack", |lc| lc + CS::one(), |lc| lc + h, |_| lc);
        }
        for j in range {
            let (d, k) = (j / PER_DIGEST, j % PER_DIGEST);
            let (b0, b1) = (bits[d * PER_DIGEST * BITS + k * BITS], bits[d * PER_DIGEST * BITS + k * BITS + 1]);
            let (v0, v1) = (bit(d, k * BITS) as u64, bit(d, k * BITS + 1) as u64);
            let zv = v0 + 2 * v1 + 3 + 7;
            let z = cs.alloc(|| "z", || Ok(f(zv)))?;
            let t = cs.alloc(|| "t", || Ok(f(zv * v0)))?;
            let p = cs.alloc_input(|| "p", || Ok(f(100 + j as u64)))?;
            cs.enforce(|| "z", |lc| lc + b0 + (f(2), b1) + x + hashes[0], |lc| lc + CS::one(), |lc| lc + z);
            cs.enforce(|| "t", |lc| lc + z, |lc| lc + b0, |lc| lc + t);
            cs.enforce(|| "p", |lc| lc + t + p, |lc| lc + b1 + (f(3), CS::one()), |lc| lc + t + p);
        }
        Ok(())
    }
}

/// The recording of `n` challenges, its prefix and one challenge's span.
fn record(n: usize) -> (R1cs, Span, Span) {
    let mut cs = R1csCs::with_capacity(0, [0; 3]);
    let per = synthesize_windows(&Digests { n }, &mut cs, None).unwrap();
    let whole = cs.span();
    let prefix = Span {
        inputs: whole.inputs - n * per.inputs,
        aux: whole.aux - n * per.aux,
        constraints: whole.constraints - n * per.constraints,
        nnz: [0; 3],
    };
    (cs.finish().unwrap(), prefix, per)
}

fn witness(n: usize) -> Assignment {
    let mut cs = WitnessCs::with_capacity(0);
    Digests { n }.synthesize_range(&mut cs, 0..n).unwrap();
    cs.finish()
}

fn assert_evaluates_as(c: &Compiled, want: &Assignment, what: &str) {
    assert_same_assignment(&evaluate(c, &packed(want)).unwrap(), want, what);
}

const N: usize = 7;
/// Digest 0's bits for challenge 0 (aux 0 is digest 0's hash, read by every challenge).
const LO: usize = 1;
const OFFSETS: [u32; N] = [0, 2, 4, 7, 9, 11, 14];

fn moving() -> Moving {
    Moving { lo: LO, hi: LO + BITS, offsets: OFFSETS.to_vec() }
}

#[test]
fn moving_prefix_columns_are_derived_checked_and_evaluated() {
    let (r1cs, prefix, per) = record(N);
    assert_eq!((prefix.aux, per.aux), (DIGESTS * DIGEST_AUX, 2));
    // Without a moving range, challenge 1 does not repeat challenge 0.
    let e = Compiled::from_sample(&r1cs, prefix, per, N, N, "toy".into()).unwrap_err();
    let m = e.downcast_ref::<Mismatch>().unwrap_or_else(|| panic!("{e:#}"));
    assert_eq!((m.challenge, m.matrix, m.row), (1, 0, 0), "{m}");
    // (terms: input x, aux 0, then the bits)
    assert!(m.what.contains("term 2 is aux 3 where the shift gives aux 1"), "{m}");
    // With it: the range is challenge 0's bits (not digest 0's hash beside them).
    assert_eq!(derive_moving(&r1cs, &prefix, &per, N).unwrap(), moving());
    let c = Compiled::from_moving_sample(&r1cs, prefix, per, N, N, "toy".into()).unwrap();
    assert_eq!(c.moving, moving());
    assert_eq!((c.head.rows, c.template.rows, c.challenges), (prefix.constraints, 3, N));
    assert_eq!(c.bytes(), c.head.bytes() + c.template.bytes() + 4 * N + 32 * c.table.len());
    super::tests::assert_expands_to(&c, &r1cs, "toy digests");
    assert_evaluates_as(&c, &witness(N), "toy digests");
    // A window of the first challenges keeps the offsets; more challenges than offsets are refused.
    assert_evaluates_as(&c.with_challenges(4).unwrap(), &witness(4), "toy digests, 4 challenges");
    let e = c.with_challenges(N + 1).unwrap_err();
    assert!(format!("{e}").contains("has offsets for 7 challenges, the circuit has 8"), "{e}");
    // Compiled from fewer sampled challenges, the offsets are known for those only.
    let (r3, p3, q3) = record(3);
    let e = Compiled::from_moving_sample(&r3, p3, q3, 3, N, "toy".into()).unwrap_err();
    assert!(format!("{e}").contains("has offsets for 3 challenges, the circuit has 7"), "{e}");
    let c3 = Compiled::from_moving_sample(&r3, p3, q3, 3, 3, "toy".into()).unwrap();
    assert_eq!(c3.moving.offsets, OFFSETS[..3]);
    // One challenge: nothing moves.
    let (r1, p1, q1) = record(1);
    assert_eq!(Compiled::from_moving_sample(&r1, p1, q1, 1, 1, "toy".into()).unwrap().moving, Moving::none());
}

#[test]
fn a_corrupted_offset_or_moved_read_is_a_mismatch() {
    let (r1cs, prefix, per) = record(N);
    let check = |m: &Moving, r: &R1cs| check_repeats(r, &prefix, &per, m, N);
    check(&moving(), &r1cs).expect("the derived offsets hold");
    // Challenge 4's offset off by one: its first row reads its own bits elsewhere.
    let mut bad = moving();
    bad.offsets[4] += 1;
    let m = check(&bad, &r1cs).unwrap_err();
    assert_eq!((m.challenge, m.matrix, m.row), (4, 0, 0), "{m}");
    assert_eq!(
        m.to_string(),
        "challenge 4 does not repeat challenge 0: its row 0 of A: term 2 is aux 10 where the shift gives aux 11 \
         (challenge 0's aux 1 lies in the moving range 1..3, challenge 4's offset 10)"
    );
    // A range one column short leaves challenge 1's second bit where challenge 0's is.
    let short = Moving { hi: LO + 1, ..moving() };
    let m = check(&short, &r1cs).unwrap_err();
    assert_eq!((m.challenge, m.matrix, m.row), (1, 0, 0), "{m}");
    assert!(m.what.contains("term 3 is aux 4 where the shift gives aux 2"), "{m}");
    // An offset table that does not start at 0, or runs past the prefix, is refused outright.
    let mut first = moving();
    first.offsets[0] = 1;
    assert!(check(&first, &r1cs).unwrap_err().what.contains("challenge 0's offset is 1, not 0"));
    let mut past = moving();
    past.offsets[6] = prefix.aux as u32;
    assert!(check(&past, &r1cs).unwrap_err().what.contains("challenge 6's offset 21 moves the range 1..3 past"));
    // Challenge 5 reading its b0 at its b1 (aux 13): two offsets in one challenge.
    let b0_of = |j: usize| r1cs.a.row_ptr[prefix.constraints + j * per.constraints] as usize + 2;
    let mut other = r1cs.clone();
    other.a.cols[b0_of(5)] += 1;
    let e = Compiled::from_moving_sample(&other, prefix, per, N, N, "toy".into()).unwrap_err();
    let m = e.downcast_ref::<Mismatch>().unwrap_or_else(|| panic!("{e:#}"));
    assert_eq!((m.challenge, m.matrix, m.row), (5, 0, 0), "{m}");
    assert!(
        m.what.contains(
            "term 3 is aux 13 where challenge 0 reads aux 2: moved by 11, the challenge's other moved reads by 12"
        ),
        "{m}"
    );
    // Challenge 2 reading its b0 at aux 0, before challenge 0's: a move backwards.
    let mut back = r1cs.clone();
    back.a.cols[b0_of(2)] = 0;
    let m = derive_moving(&back, &prefix, &per, N).unwrap_err();
    assert_eq!((m.challenge, m.matrix, m.row), (2, 0, 0), "{m}");
    assert!(
        m.what.contains("term 2 is aux 0 where challenge 0 reads aux 1: a prefix read that moves backwards"),
        "{m}"
    );
    // Challenge 2 reading its b0 at its own z: not a move within the prefix, so the offset
    // comes from b1 alone, and the check finds the read.
    let mut own = r1cs.clone();
    own.a.cols[b0_of(2)] = (prefix.aux + 2 * per.aux) as u32;
    let e = Compiled::from_moving_sample(&own, prefix, per, N, N, "toy".into()).unwrap_err();
    let m = e.downcast_ref::<Mismatch>().unwrap_or_else(|| panic!("{e:#}"));
    assert_eq!((m.challenge, m.matrix, m.row), (2, 0, 0), "{m}");
    assert!(m.what.contains("term 2 is aux 25 where the shift gives aux 5"), "{m}");
}

/// The compiled toy with its moving range written to `dir` under `key`.
fn stored(dir: &Path, key: &str) -> (Compiled, std::path::PathBuf) {
    let (r1cs, prefix, per) = record(N);
    let c = Compiled::from_moving_sample(&r1cs, prefix, per, N, N, "toy".into()).unwrap();
    let path = dir.join("toy.constraints");
    format::write(&path, key, &c).unwrap();
    (c, path)
}

/// Where the moving range's fields start in the file: header, stem, seven counts.
fn moving_at(key: &str, stem: &str) -> usize {
    16 + key.len() + 8 + 4 + stem.len() + 7 * 8
}

/// `bytes` with the body length and checksum made to fit what it now holds.
fn resealed(mut bytes: Vec<u8>, key: &str) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let start = 16 + key.len() + 8;
    bytes.truncate(bytes.len() - 32);
    let body = (bytes.len() - start) as u64;
    bytes[start - 8..start].copy_from_slice(&body.to_le_bytes());
    let digest = Sha256::digest(&bytes[start..]);
    bytes.extend_from_slice(&digest);
    bytes
}

#[test]
fn the_file_keeps_the_moving_range_and_refuses_a_bad_offset_table() {
    let dir = tempfile::tempdir().unwrap();
    let key = "toy digests | test";
    let (c, path) = stored(dir.path(), key);
    assert_eq!(format::read(&path, key).unwrap(), c, "round trip");
    let good = std::fs::read(&path).unwrap();
    let at = moving_at(key, "toy");
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    assert_eq!([u64_at(&good, at), u64_at(&good, at + 8), u64_at(&good, at + 16)], [1, 3, 7]);
    let offsets = at + 24;
    let read = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        let e = format::read(&path, key).unwrap_err();
        let text = format!("{e:#}");
        assert!(text.contains(&path.display().to_string()), "the error names the file: {text}");
        text
    };
    let put = |b: &mut Vec<u8>, i: usize, v: u64| b[i..i + 8].copy_from_slice(&v.to_le_bytes());
    // A count past the body's end (checksum untouched: counts are checked first).
    let mut huge = good.clone();
    put(&mut huge, at + 16, 1 << 40);
    let e = read(&huge);
    assert!(e.contains("the moving range's offset table") && e.contains("runs past the end of the body"), "{e}");
    // The table cut to 6 offsets (count, length and checksum consistent): fewer than the challenges.
    let mut cut = good.clone();
    put(&mut cut, at + 16, 6);
    cut.drain(offsets + 24..offsets + 28);
    let e = read(&resealed(cut, key));
    assert!(e.contains("has offsets for 6 challenges, the circuit has 7"), "{e}");
    // A malformed table: challenge 0's offset not 0; an offset that leaves the prefix.
    let mut first = good.clone();
    first[offsets] = 1;
    let e = read(&resealed(first, key));
    assert!(e.contains("challenge 0's offset is 1, not 0"), "{e}");
    let mut past = good.clone();
    past[offsets + 4 * 5..offsets + 4 * 6].copy_from_slice(&19u32.to_le_bytes());
    let e = read(&resealed(past, key));
    assert!(e.contains("challenge 5's offset 19 moves the range 1..3 past the prefix's 21 aux"), "{e}");
    // A range past the prefix, an empty range that keeps offsets.
    let mut range = good.clone();
    put(&mut range, at + 8, 22);
    let e = read(&resealed(range, key));
    assert!(e.contains("the moving range 1..22 lies past the prefix's 21 aux"), "{e}");
    let mut empty = good.clone();
    put(&mut empty, at + 8, 1);
    let e = read(&resealed(empty, key));
    assert!(e.contains("an empty moving range 1..1 with 7 offsets"), "{e}");
    // A flipped offset byte without a new checksum: corrupt.
    let mut flipped = good.clone();
    flipped[offsets + 8] ^= 1;
    assert!(read(&flipped).contains("does not match"));
    // A file of the format before the moving range is refused by its version.
    let mut v1 = good.clone();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    assert!(read(&v1).contains("format version 1, this filsnark reads 2"));
    std::fs::write(&path, &good).unwrap();
    assert_eq!(format::read(&path, key).unwrap(), c, "the good file still reads");
}
