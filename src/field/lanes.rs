//! Eight field elements at a time on AVX-512 IFMA: Montgomery arithmetic over N limbs of 52 bits
//! (R = 2^(52·N)), one element per 64-bit lane. One implementation serves the scalar field Fr
//! (N = 5, R = 2^260: [`FR`]) and the base field Fp (N = 8, R = 2^416: [`FP`]); each is a
//! [`Modulus`], with the factors that move values between blst's Montgomery form and ours. The
//! CPU backend's NTT and MSM and the native witness's Poseidon use it.
//!
//! `vpmadd52luq`/`vpmadd52huq` add the low/high 52 bits of a 52×52-bit product to a 64-bit lane.
//! A multiplication is CIOS with one limb of the multiplier per row: the row's products and the
//! reduction's m·p are summed into 64-bit accumulators whose carries stay in place (at most 4N
//! terms of < 2^52 per lane, < 2^57), row i working on limbs i..=i+N of a 2N-limb window and
//! passing its low limb's carry up; one carry pass plus one conditional subtraction end it
//! ([`mul_lazy`]). Inputs and outputs are canonical: every limb < 2^52, the value < p.
//!
//! Everything here is `#[inline(always)]` and needs AVX-512F and AVX-512 IFMA: it is only
//! called from `#[target_feature(enable = "avx512f,avx512ifma")]` functions, which
//! [`available`] guards (checked at run time, once; `FILSNARK_CPU_AVX512=0` turns it off).
//!
//! Tests of code on these lanes ask [`available_for_test`] first: on a CPU without IFMA they print
//! a line naming the test and why it is skipped (straight to the terminal, past the test
//! harness's capture) and pass; with `FILSNARK_EXPECT_IFMA=1` in the environment (a CI machine
//! known to have IFMA) they fail instead, so that a lost CPU feature cannot pass unnoticed.
//!
//! # Safety
//! The one requirement of every `unsafe fn` here: the CPU has AVX-512F and AVX-512 IFMA (and the
//! caller is compiled with them), which is why their docs carry no `# Safety` section each.
#![allow(clippy::missing_safety_doc)]
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// r, the order of G1 and G2.
pub const FR: Modulus<5> = Modulus {
    p: [0xfffff00000001, 0x02fffe5bfefff, 0x9a1d80553bda4, 0x7d483339d8080, 0x073eda753299d],
    m0: 0xffffeffffffff,
    to_ours: [0x00234fffffdcb, 0x61039ef635000, 0xdce3c3e2e7505, 0x7fa6f1563642b, 0x0247db575276a],
    to_blst: [0x00001fffffffe, 0xfa00034802000, 0xcbc4ff55884b7, 0x056f998c4fefe, 0x01824b159acc5],
    one: [0x00022ffffffdd, 0x9700396c23000, 0xedf77458d1293, 0xdf20ff1776e6a, 0x026821fa14f77],
};

/// p, the base field of G1.
pub const FP: Modulus<8> = Modulus {
    p: [
        0xeffffffffaaab,
        0xfeb153ffffb9f,
        0x6b0f6241eabff,
        0x12bf6730d2a0f,
        0x764774b84f385,
        0x1ba7b6434bacd,
        0x1ea397fe69a4b,
        0x000000001a011,
    ],
    m0: 0x3fffcfffcfffd,
    to_ours: [
        0x7fde37dba9366,
        0x4e27525bc342b,
        0x1f5b1e9778489,
        0xb872b2b91b9dc,
        0xb206f497dfcaf,
        0x4137cc89a9b0b,
        0xd9d20d7e39959,
        0x000000000411c,
    ],
    to_blst: [
        0x900000002fffd,
        0x0bc40c0002760,
        0x3c758baebf400,
        0x57455f4898575,
        0xd77ce58537052,
        0x071a97a256ec6,
        0xec3fa80e4935c,
        0x0000000015f65,
    ],
    one: [
        0x6480ea8e9b9af,
        0x65766c8fe444f,
        0x8b540fea96f7d,
        0x3b2ee82efd422,
        0xa6723e5f0ade5,
        0xff6eb6fdd4230,
        0xe06ef23c24a25,
        0x0000000014c8e,
    ],
};

/// Whether the AVX-512 IFMA kernels run: the CPU has them and `FILSNARK_CPU_AVX512` is not `0`.
pub fn available() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("FILSNARK_CPU_AVX512").map_or(true, |v| v != "0")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    })
}

/// Whether the IFMA test `test` can run here: true where [`available`]. Otherwise it writes
/// "skipped `test`: …" to the terminal and returns false, or panics where `FILSNARK_EXPECT_IFMA`
/// is `1` (IFMA expected: the test must not pass by skipping).
pub fn available_for_test(test: &str) -> bool {
    if available() {
        return true;
    }
    let why = if std::env::var("FILSNARK_CPU_AVX512").is_ok_and(|v| v == "0") {
        "FILSNARK_CPU_AVX512=0 turns the AVX-512 kernels off"
    } else {
        "this CPU has no AVX-512 IFMA"
    };
    if std::env::var("FILSNARK_EXPECT_IFMA").is_ok_and(|v| v == "1") {
        panic!("{test}: FILSNARK_EXPECT_IFMA=1, but {why}");
    }
    // Straight to stderr: the harness captures print!/eprint! of passing tests, not this.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped {test}: {why}");
    false
}

pub const MASK52: u64 = (1 << 52) - 1;

/// `[e(0), …, e(n−1)]` of vectors, for an expression `e` in `j`, by a plain loop. Not
/// `std::array::from_fn`: its closure is not always inlined (that depends on how the crate is
/// cut into codegen units), and an intrinsic called from a closure that is not inlined becomes a
/// function call per limb. Adding the MSM module made that happen in the NTT: the H polynomial
/// 2^20 went from 0.87 to 1.2 s.
macro_rules! per_limb {
    ($n:expr, |$j:ident| $e:expr) => {{
        let mut out = [_mm512_setzero_si512(); $n];
        for ($j, o) in out.iter_mut().enumerate() {
            *o = $e;
        }
        out
    }};
}
pub(crate) use per_limb;

/// A field's constants in 52-bit limbs, least significant first.
pub struct Modulus<const N: usize> {
    pub p: [u64; N],
    /// −p⁻¹ mod 2^52.
    pub m0: u64,
    /// Multiplying by this takes blst's Montgomery form x·2^(64·W) to ours, x·R.
    pub to_ours: [u64; N],
    /// Multiplying by this takes x·R back to x·2^(64·W).
    pub to_blst: [u64; N],
    /// R mod p: the element 1.
    pub one: [u64; N],
}

/// Eight elements: lane l of `self.0[j]` is limb j of element l.
#[derive(Clone, Copy)]
pub struct Lanes<const N: usize>(pub [__m512i; N]);

/// Eight elements in memory, laid out as [`Lanes`] (limb-major), 64-byte aligned.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct Packed<const N: usize>(pub [[u64; 8]; N]);

impl<const N: usize> Default for Packed<N> {
    fn default() -> Self {
        Packed([[0; 8]; N])
    }
}

impl<const N: usize> Packed<N> {
    /// Lane `l`'s limbs.
    pub fn get(&self, l: usize) -> [u64; N] {
        std::array::from_fn(|j| self.0[j][l])
    }

    pub fn set(&mut self, l: usize, v: &[u64; N]) {
        for (limb, x) in self.0.iter_mut().zip(v) {
            limb[l] = *x;
        }
    }
}

#[inline(always)]
pub unsafe fn splat64(v: u64) -> __m512i {
    _mm512_set1_epi64(v as i64)
}

/// The same element in all eight lanes.
#[inline(always)]
pub unsafe fn splat<const N: usize>(v: &[u64; N]) -> Lanes<N> {
    Lanes(per_limb!(N, |j| splat64(v[j])))
}

#[inline(always)]
pub unsafe fn load<const N: usize>(m: &Packed<N>) -> Lanes<N> {
    Lanes(per_limb!(N, |j| _mm512_load_si512(m.0[j].as_ptr() as *const _)))
}

#[inline(always)]
pub unsafe fn store<const N: usize>(m: &mut Packed<N>, v: &Lanes<N>) {
    for j in 0..N {
        _mm512_store_si512(m.0[j].as_mut_ptr() as *mut _, v.0[j]);
    }
}

/// Carries each limb's bits above 52 into the next one (the top limb keeps its excess).
#[inline(always)]
unsafe fn normalize<const N: usize>(t: &mut [__m512i; N]) {
    let mask = splat64(MASK52);
    for j in 0..N - 1 {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
}

/// x mod p for x < 2p, normalised: x − p where that does not borrow.
#[inline(always)]
pub unsafe fn canonical<const N: usize>(f: &Modulus<N>, x: &Lanes<N>) -> Lanes<N> {
    let mask = splat64(MASK52);
    let mut d = [_mm512_setzero_si512(); N];
    let mut borrow = _mm512_setzero_si512();
    for (j, dj) in d.iter_mut().enumerate() {
        let v = _mm512_sub_epi64(_mm512_sub_epi64(x.0[j], splat64(f.p[j])), borrow);
        borrow = _mm512_srli_epi64(v, 63);
        *dj = _mm512_and_si512(v, mask);
    }
    // borrow = 1 where x < p: keep x there.
    let keep = _mm512_test_epi64_mask(borrow, borrow);
    Lanes(per_limb!(N, |j| _mm512_mask_blend_epi64(keep, d[j], x.0[j])))
}

/// a·b·R⁻¹ mod p.
#[inline(always)]
pub unsafe fn mul<const N: usize>(f: &Modulus<N>, a: &Lanes<N>, b: &Lanes<N>) -> Lanes<N> {
    canonical(f, &mul_lazy(f, a, b))
}

/// a·b·R⁻¹ mod p as a normalised value < 2p, for a·b < R·p (a, b < 2p suffice for both fields).
/// Montgomery multiplication by CIOS with the running sum kept in place in a window of 2N limbs.
/// The other schedule, shifting the sum down a limb per row, was slower wherever it was last
/// measured (2026-12-04, one binary, two cores): H polynomial 2^22 on a Zen 4 3.09 against 2.19 s,
/// 2^20 on the H200 host's Xeon 0.59–0.64 against 0.51–0.52 s; G1 MSM 2^20 on a Sapphire Rapids
/// (one thread, earlier) 2.33 against 1.52 s. An older build on that Sapphire Rapids had shifting
/// ahead for Fr (H 2^20: 0.89 against 1.05 s), which is why it was kept until then.
#[inline(always)]
pub unsafe fn mul_lazy<const N: usize>(f: &Modulus<N>, a: &Lanes<N>, b: &Lanes<N>) -> Lanes<N> {
    cios_window(f, a, b)
}

/// CIOS with its N rows written out over a window of 2N limbs (row i works on limbs i..=i+N), so
/// that no limb moves; the result is the window's top N limbs.
#[inline(always)]
unsafe fn cios_window<const N: usize>(f: &Modulus<N>, a: &Lanes<N>, b: &Lanes<N>) -> Lanes<N> {
    const { assert!(N <= 8) };
    let mut t = [_mm512_setzero_si512(); 16];
    // The rows written out with constant indices: as a loop (which the compiler left rolled for
    // N = 8), t lived on the stack and every row loaded and stored its limbs there.
    macro_rules! rows {
        ($($i:literal)*) => {$(
            if let Some(&ai) = a.0.get($i) {
                mul_row(f, &mut t, $i, ai, &b.0);
            }
        )*};
    }
    rows!(0 1 2 3 4 5 6 7);
    top_half(&mut t)
}

/// The window's top N limbs, normalised: the reduced product.
#[inline(always)]
unsafe fn top_half<const N: usize>(t: &mut [__m512i; 16]) -> Lanes<N> {
    let mask = splat64(MASK52);
    for j in N..2 * N - 1 {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
    Lanes(per_limb!(N, |j| t[N + j]))
}

/// Row i of the CIOS: t += ai·b·2^(52i) + m·p·2^(52i), m making limb i a multiple of 2^52; its
/// carry moves to limb i + 1.
#[inline(always)]
unsafe fn mul_row<const N: usize>(f: &Modulus<N>, t: &mut [__m512i; 16], i: usize, ai: __m512i, b: &[__m512i; N]) {
    for j in 0..N {
        t[i + j] = _mm512_madd52lo_epu64(t[i + j], ai, b[j]);
        t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], ai, b[j]);
    }
    reduce_row(f, t, i);
}

/// Row i's reduction: t += m·p·2^(52i), m making limb i a multiple of 2^52; its carry moves to
/// limb i + 1.
#[inline(always)]
unsafe fn reduce_row<const N: usize>(f: &Modulus<N>, t: &mut [__m512i; 16], i: usize) {
    let m = _mm512_madd52lo_epu64(_mm512_setzero_si512(), t[i], splat64(f.m0));
    for j in 0..N {
        t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, splat64(f.p[j]));
        t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, splat64(f.p[j]));
    }
    t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
}

#[inline(always)]
pub unsafe fn sqr<const N: usize>(f: &Modulus<N>, a: &Lanes<N>) -> Lanes<N> {
    canonical(f, &sqr_lazy(f, a))
}

/// a²·R⁻¹ mod p as a normalised value < 2p (as [`mul_lazy`], a < 2p): each product a_i·a_j
/// (i < j) once and doubled, then the squares a_i², then the N rows of reduction over the same
/// 2N-limb window. For Fp, 200 multiply-adds instead of 264. Each limb gets the same number of
/// product terms as in a multiplication, so the same bounds hold.
#[inline(always)]
pub unsafe fn sqr_lazy<const N: usize>(f: &Modulus<N>, a: &Lanes<N>) -> Lanes<N> {
    const { assert!(N <= 8) };
    let a = &a.0;
    let mut t = [_mm512_setzero_si512(); 16];
    // Constant indices throughout (see `cios_window`): each macro step is one row i.
    macro_rules! each_row {
        ($body:ident) => {
            $body!(0);
            $body!(1);
            $body!(2);
            $body!(3);
            $body!(4);
            $body!(5);
            $body!(6);
            $body!(7);
        };
    }
    macro_rules! cross {
        ($i:literal) => {
            if $i < N {
                for j in $i + 1..N {
                    t[$i + j] = _mm512_madd52lo_epu64(t[$i + j], a[$i], a[j]);
                    t[$i + j + 1] = _mm512_madd52hi_epu64(t[$i + j + 1], a[$i], a[j]);
                }
            }
        };
    }
    each_row!(cross);
    for v in t.iter_mut().take(2 * N) {
        *v = _mm512_add_epi64(*v, *v);
    }
    macro_rules! square {
        ($i:literal) => {
            if $i < N {
                t[2 * $i] = _mm512_madd52lo_epu64(t[2 * $i], a[$i], a[$i]);
                t[2 * $i + 1] = _mm512_madd52hi_epu64(t[2 * $i + 1], a[$i], a[$i]);
            }
        };
    }
    each_row!(square);
    macro_rules! reduce {
        ($i:literal) => {
            if $i < N {
                reduce_row(f, &mut t, $i);
            }
        };
    }
    each_row!(reduce);
    top_half(&mut t)
}

/// a + b mod p.
#[inline(always)]
pub unsafe fn add<const N: usize>(f: &Modulus<N>, a: &Lanes<N>, b: &Lanes<N>) -> Lanes<N> {
    let mut t: [__m512i; N] = per_limb!(N, |j| _mm512_add_epi64(a.0[j], b.0[j]));
    normalize(&mut t);
    canonical(f, &Lanes(t))
}

/// a − b mod p.
#[inline(always)]
pub unsafe fn sub<const N: usize>(f: &Modulus<N>, a: &Lanes<N>, b: &Lanes<N>) -> Lanes<N> {
    let mask = splat64(MASK52);
    let mut d = [_mm512_setzero_si512(); N];
    let mut borrow = _mm512_setzero_si512();
    for (j, dj) in d.iter_mut().enumerate() {
        let v = _mm512_sub_epi64(_mm512_sub_epi64(a.0[j], b.0[j]), borrow);
        borrow = _mm512_srli_epi64(v, 63);
        *dj = _mm512_and_si512(v, mask);
    }
    // Where a < b, add p back (the borrow out of the top limb cancels its carry).
    let neg = _mm512_test_epi64_mask(borrow, borrow);
    let mut t: [__m512i; N] = per_limb!(N, |j| _mm512_mask_add_epi64(d[j], neg, d[j], splat64(f.p[j])));
    normalize(&mut t);
    t[N - 1] = _mm512_and_si512(t[N - 1], mask);
    Lanes(t)
}

/// 2a mod p.
#[inline(always)]
pub unsafe fn dbl<const N: usize>(f: &Modulus<N>, a: &Lanes<N>) -> Lanes<N> {
    add(f, a, a)
}

/// Lanes where `m` is set take `b`, the others `a`.
#[inline(always)]
pub unsafe fn blend<const N: usize>(m: __mmask8, a: &Lanes<N>, b: &Lanes<N>) -> Lanes<N> {
    Lanes(per_limb!(N, |j| _mm512_mask_blend_epi64(m, a.0[j], b.0[j])))
}

/// Lanes holding 0.
#[inline(always)]
pub unsafe fn is_zero<const N: usize>(a: &Lanes<N>) -> __mmask8 {
    let mut or = a.0[0];
    for j in 1..N {
        or = _mm512_or_si512(or, a.0[j]);
    }
    _mm512_testn_epi64_mask(or, or)
}

/// Eight values in blst's Montgomery form (W words each: x·2^(64·W), canonical) in ours, x·R.
#[inline(always)]
pub unsafe fn from_blst<const N: usize, const W: usize>(f: &Modulus<N>, x: &[[u64; W]; 8]) -> Lanes<N> {
    let mut m = Packed::<N>::default();
    for (l, w) in x.iter().enumerate() {
        m.set(l, &limbs_from_words(w));
    }
    mul(f, &load(&m), &splat(&f.to_ours))
}

/// Eight values of ours back in blst's Montgomery form.
#[inline(always)]
pub unsafe fn to_blst<const N: usize, const W: usize>(f: &Modulus<N>, v: &Lanes<N>) -> [[u64; W]; 8] {
    let mut m = Packed::<N>::default();
    store(&mut m, &mul(f, v, &splat(&f.to_blst)));
    std::array::from_fn(|l| words_from_limbs(&m.get(l)))
}

/// x (W 64-bit words, least significant first) as N limbs of 52 bits.
pub fn limbs_from_words<const W: usize, const N: usize>(w: &[u64; W]) -> [u64; N] {
    std::array::from_fn(|j| {
        let (bit, word) = (52 * j, 52 * j / 64);
        let shift = bit % 64;
        let mut v = w.get(word).map_or(0, |x| x >> shift);
        if shift > 12 {
            v |= w.get(word + 1).map_or(0, |x| x << (64 - shift));
        }
        v & MASK52
    })
}

/// N limbs of 52 bits (value < 2^(64·W)) as W 64-bit words.
pub fn words_from_limbs<const N: usize, const W: usize>(l: &[u64; N]) -> [u64; W] {
    let mut w = [0u64; W];
    for (j, &v) in l.iter().enumerate() {
        let (bit, word) = (52 * j, 52 * j / 64);
        let shift = bit % 64;
        if word < W {
            w[word] |= v << shift;
        }
        if shift > 12 && word + 1 < W {
            w[word + 1] |= v >> (64 - shift);
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::{available_for_test, FP, FR};
    use blstrs::{Fp, Scalar};
    use ff::{Field, PrimeField};
    use rand::SeedableRng;

    fn fr_words(v: &Scalar) -> [u64; 4] {
        crate::ec::Fr::from(*v).l
    }

    fn fr_from_words(w: [u64; 4]) -> Scalar {
        Scalar::from(crate::ec::Fr { l: w })
    }

    /// Eight Fr values through ours: op on lanes, back to blst.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn fr_op(x: &[Scalar; 8], y: &[Scalar; 8], op: u8) -> [Scalar; 8] {
        let a = from_blst(&FR, &x.map(|v| fr_words(&v)));
        let b = from_blst(&FR, &y.map(|v| fr_words(&v)));
        let c = match op {
            0 => mul(&FR, &a, &b),
            1 => add(&FR, &a, &b),
            2 => sub(&FR, &a, &b),
            _ => sqr(&FR, &a),
        };
        to_blst::<5, 4>(&FR, &c).map(fr_from_words)
    }

    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn fp_op(x: &[Fp; 8], y: &[Fp; 8], op: u8) -> [Fp; 8] {
        let w = |v: &Fp| crate::ec::Fp::from(*v).l;
        let a = from_blst(&FP, &x.map(|v| w(&v)));
        let b = from_blst(&FP, &y.map(|v| w(&v)));
        let c = match op {
            0 => mul(&FP, &a, &b),
            1 => add(&FP, &a, &b),
            2 => sub(&FP, &a, &b),
            _ => sqr(&FP, &a),
        };
        to_blst::<8, 6>(&FP, &c).map(|l| Fp::from(crate::ec::Fp { l }))
    }

    /// mul_lazy(x + p, y + p) and sqr_lazy(x + p), made canonical: the lazy forms take operands
    /// up to 2p, as the bucket additions give them.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn fp_lazy_plus_p(x: &[Fp; 8], y: &[Fp; 8]) -> ([Fp; 8], [Fp; 8]) {
        let w = |v: &Fp| crate::ec::Fp::from(*v).l;
        let plus_p = |v: Lanes<8>| {
            let mut t: [__m512i; 8] = per_limb!(8, |j| _mm512_add_epi64(v.0[j], splat64(FP.p[j])));
            normalize(&mut t);
            Lanes(t)
        };
        let a = plus_p(from_blst(&FP, &x.map(|v| w(&v))));
        let b = plus_p(from_blst(&FP, &y.map(|v| w(&v))));
        let back = |c: Lanes<8>| to_blst::<8, 6>(&FP, &canonical(&FP, &c)).map(|l| Fp::from(crate::ec::Fp { l }));
        (back(mul_lazy(&FP, &a, &b)), back(sqr_lazy(&FP, &a)))
    }

    #[test]
    fn lanes_match_blst_for_fr_and_fp() {
        if !available_for_test("lanes_match_blst_for_fr_and_fp") {
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(52);
        let fr_edge = [Scalar::ZERO, Scalar::ONE, -Scalar::ONE, -Scalar::from(2u64)];
        let fp_edge = [Fp::ZERO, Fp::ONE, -Fp::ONE, -Fp::from(2u64)];
        for round in 0..200 {
            let x: [Scalar; 8] = std::array::from_fn(|l| {
                if round < 4 && l < 4 {
                    fr_edge[(l + round) % 4]
                } else {
                    Scalar::random(&mut rng)
                }
            });
            let y: [Scalar; 8] =
                std::array::from_fn(
                    |l| if round < 4 { fr_edge[(l * 3 + round) % 4] } else { Scalar::random(&mut rng) },
                );
            // SAFETY: available_for_test found AVX-512F and IFMA.
            let (m, a, s, q) = unsafe { (fr_op(&x, &y, 0), fr_op(&x, &y, 1), fr_op(&x, &y, 2), fr_op(&x, &y, 3)) };
            for l in 0..8 {
                assert_eq!(m[l], x[l] * y[l], "Fr mul {:?} {:?}", x[l].to_repr(), y[l].to_repr());
                assert_eq!(a[l], x[l] + y[l], "Fr add");
                assert_eq!(s[l], x[l] - y[l], "Fr sub");
                assert_eq!(q[l], x[l].square(), "Fr sqr");
            }
            let x: [Fp; 8] =
                std::array::from_fn(
                    |l| if round < 4 && l < 4 { fp_edge[(l + round) % 4] } else { Fp::random(&mut rng) },
                );
            let y: [Fp; 8] =
                std::array::from_fn(|l| if round < 4 { fp_edge[(l * 3 + round) % 4] } else { Fp::random(&mut rng) });
            // SAFETY: available_for_test found AVX-512F and IFMA.
            let (m, a, s, q) = unsafe { (fp_op(&x, &y, 0), fp_op(&x, &y, 1), fp_op(&x, &y, 2), fp_op(&x, &y, 3)) };
            // SAFETY: available_for_test found AVX-512F and IFMA.
            let (ml, ql) = unsafe { fp_lazy_plus_p(&x, &y) };
            for l in 0..8 {
                assert_eq!(ml[l], x[l] * y[l], "Fp mul_lazy, operands + p");
                assert_eq!(ql[l], x[l].square(), "Fp sqr_lazy, operand + p");
                assert_eq!(m[l], x[l] * y[l], "Fp mul");
                assert_eq!(a[l], x[l] + y[l], "Fp add");
                assert_eq!(s[l], x[l] - y[l], "Fp sub");
                assert_eq!(q[l], x[l].square(), "Fp sqr");
            }
        }
    }
}
