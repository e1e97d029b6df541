//! The fixture that ties the PTX generator's Fp12 reference (scripts/ptxgen/fp12_ref.py) and its
//! simulator test (scripts/ptxgen/simtest_fp12.py) to blst: fixed inputs and blst's outputs for
//! an Fp12 product and square, a G2 point's precomputed lines, one line evaluated at a G1 point
//! and multiplied in (blst's mul_by_xy00z0), and a whole loop over precomputed lines.
//!
//! Each value is the hex of blst's struct bytes (little-endian Montgomery limbs, the layout the
//! kernels read). The test regenerates the file's text and asserts the committed file equals it;
//! `FILSNARK_WRITE_FIXTURE=1 cargo test --release --test fp12_fixture` rewrites it.
use blst::{blst_fp, blst_fp12, blst_fp6, blst_p1_affine, blst_p2_affine};
use blstrs::{Fp12, G1Projective, G2Projective};
use ff::Field;
use filsnark::ec::convert::{g1_affines_as_blst, g2_affines_as_blst};
use filsnark::ec::pairing::line_at;
use group::{Curve as _, Group};
use rand::SeedableRng;
use std::fmt::Write as _;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/ptxgen/fp12_blst.txt");

/// The hex of the field elements' limbs in memory order (little-endian bytes).
fn hex(fps: &[blst_fp]) -> String {
    fps.iter().flat_map(|x| x.l).flat_map(u64::to_le_bytes).map(|b| format!("{b:02x}")).collect()
}

fn fp12_limbs(x: &blst_fp12) -> Vec<blst_fp> {
    x.fp6.iter().flat_map(fp6_limbs).collect()
}

fn fp6_limbs(x: &blst_fp6) -> Vec<blst_fp> {
    x.fp2.iter().flat_map(|c| c.fp).collect()
}

fn fixture() -> String {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0xf12);
    let a = blst_fp12::from(Fp12::random(&mut rng));
    let b = blst_fp12::from(Fp12::random(&mut rng));
    let p1 = [G1Projective::random(&mut rng).to_affine()];
    let q1 = [G2Projective::random(&mut rng).to_affine()];
    let p: blst_p1_affine = g1_affines_as_blst(&p1)[0];
    let q: blst_p2_affine = g2_affines_as_blst(&q1)[0];
    let (mut mul, mut sqr, mut by_line, mut miller) =
        (blst_fp12::default(), blst_fp12::default(), blst_fp12::default(), blst_fp12::default());
    let mut lines = vec![blst_fp6::default(); 68];
    let line1 = {
        // SAFETY: blst reads its inputs and writes one element (68 lines for precompute_lines,
        // which the loop over lines reads) through valid references.
        unsafe {
            blst::blst_fp12_mul(&mut mul, &a, &b);
            blst::blst_fp12_sqr(&mut sqr, &a);
            blst::blst_precompute_lines(lines.as_mut_ptr(), &q);
            blst::blst_miller_loop_lines(&mut miller, lines.as_ptr(), &p);
        }
        line_at(&lines[1], &p)
    };
    // SAFETY: as above.
    unsafe { blst::blst_fp12_mul_by_xy00z0(&mut by_line, &a, &line1) };
    let mut s = String::from(
        "# Written by tests/fp12_fixture.rs from blst (hex of blst's struct bytes): read by simtest_fp12.py.\n",
    );
    let mut put = |name: &str, fps: Vec<blst_fp>| writeln!(s, "{name} {}", hex(&fps)).unwrap();
    put("a", fp12_limbs(&a));
    put("b", fp12_limbs(&b));
    put("mul", fp12_limbs(&mul));
    put("sqr", fp12_limbs(&sqr));
    put("p", vec![p.x, p.y]);
    put("q", [q.x, q.y].iter().flat_map(|c| c.fp).collect());
    for k in [0, 1, 2, 67] {
        put(&format!("line{k}"), fp6_limbs(&lines[k]));
    }
    put("line1_at_p", fp6_limbs(&line1));
    put("mul_by_line1", fp12_limbs(&by_line));
    put("miller_loop_lines", fp12_limbs(&miller));
    s
}

#[test]
fn fixture_is_blsts() {
    let want = fixture();
    if std::env::var("FILSNARK_WRITE_FIXTURE").is_ok() {
        std::fs::write(PATH, &want).unwrap();
    }
    let have = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(have == want, "{PATH} differs from blst's values: rerun with FILSNARK_WRITE_FIXTURE=1");
}
