//! Addition and negation of Fr elements on their four Montgomery limbs, inlined.
//! The evaluation adds far more than it multiplies; blst's addition is a call that writes its
//! result through memory in 64-bit stores which the caller then reads back as 128-bit loads (a
//! store-forwarding stall on every row). Montgomery form is linear, so adding limbs mod r is
//! adding the elements.
use blst::blst_fr;
use blstrs::Scalar;

/// r, the order of the scalar field, little-endian.
const R: [u64; 4] = [0xffff_ffff_0000_0001, 0x53bd_a402_fffe_5bfe, 0x3339_d808_09a1_d805, 0x73ed_a753_299d_7d48];

/// An element of Fr as its Montgomery limbs (reduced: below r).
pub type Fr4 = [u64; 4];

#[inline(always)]
pub fn of(s: &Scalar) -> Fr4 {
    blst_fr::from(*s).l
}

#[inline(always)]
pub fn scalar(l: Fr4) -> Scalar {
    Scalar::from(blst_fr { l })
}

/// a − b over 256 bits, and whether it borrowed.
#[inline(always)]
fn sub_256(a: &Fr4, b: &Fr4) -> (Fr4, bool) {
    let mut out = [0u64; 4];
    let mut borrow = false;
    for i in 0..4 {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        out[i] = d;
        borrow = b1 | b2;
    }
    (out, borrow)
}

/// a + b over 256 bits (no carry out for reduced inputs: 2r < 2^256).
#[inline(always)]
fn add_256(a: &Fr4, b: &Fr4) -> Fr4 {
    let mut out = [0u64; 4];
    let mut carry = false;
    for i in 0..4 {
        let (s, c1) = a[i].overflowing_add(b[i]);
        let (s, c2) = s.overflowing_add(carry as u64);
        out[i] = s;
        carry = c1 | c2;
    }
    out
}

/// a + b mod r.
#[inline(always)]
pub fn add(a: &Fr4, b: &Fr4) -> Fr4 {
    let s = add_256(a, b);
    match sub_256(&s, &R) {
        (d, false) => d,
        (_, true) => s,
    }
}

/// −a mod r.
#[inline(always)]
pub fn neg(a: &Fr4) -> Fr4 {
    if *a == [0; 4] {
        *a
    } else {
        sub_256(&R, a).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::{Field, PrimeField};
    use rand::SeedableRng;

    #[test]
    fn agrees_with_blst() {
        let r_minus_one: Vec<u8> = [R[0] - 1, R[1], R[2], R[3]].iter().flat_map(|l| l.to_le_bytes()).collect();
        assert_eq!((-Scalar::ONE).to_repr().as_ref(), &r_minus_one[..], "R is the modulus");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        let mut values = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(2u64)];
        values.extend((0..200).map(|_| Scalar::random(&mut rng)));
        for x in &values {
            assert_eq!(scalar(neg(&of(x))), -*x);
            for y in &values[..40] {
                assert_eq!(scalar(add(&of(x), &of(y))), *x + y);
            }
        }
    }
}
