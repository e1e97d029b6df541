//! Coefficient classes: every non-zero coefficient of a compiled matrix is one `u32` *code*.
//!
//! | `code >> 30` | class | value |
//! |---|---|---|
//! | 0 | [`POS_POW2`] | `+2^k`, `k = code & 0xff` (`k` ≤ 254; code 0 is +1) |
//! | 1 | [`NEG_POW2`] | `−2^k = r − 2^k`, `k = code & 0xff` (code `0x4000_0000` is −1) |
//! | 2 | [`TABLE`] | `table[code & 0x3fff_ffff]`, an element of the coefficient table |
//!
//! Class 3 is unused. Bits 8–29 of a power-of-two code are zero. In the PoRep circuits almost
//! every coefficient is ±2^k (SHA-256 packs and unpacks words; booleans are constrained with
//! ±1); the table holds the rest (Poseidon's round constants and matrices): 2,466 distinct
//! coefficients at 32GiB, of which a few hundred are powers of two.
use std::collections::HashMap;
use std::sync::OnceLock;

use anyhow::{bail, Result};
use blstrs::Scalar;
use ff::Field;

/// Class of `+2^k`.
pub const POS_POW2: u32 = 0;
/// Class of `−2^k`.
pub const NEG_POW2: u32 = 1;
/// Class of a table element.
pub const TABLE: u32 = 2;
/// Where the class sits in a code.
pub const CLASS_SHIFT: u32 = 30;
/// The payload (exponent or table index) of a code.
pub const PAYLOAD_MASK: u32 = (1 << CLASS_SHIFT) - 1;
/// The largest exponent: 2^254 < r < 2^255.
pub const MAX_EXPONENT: u32 = 254;

/// The code of +1.
pub const PLUS_ONE: u32 = 0;
/// The code of −1.
pub const MINUS_ONE: u32 = NEG_POW2 << CLASS_SHIFT;

/// A coefficient decoded from its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coeff {
    /// `+2^k` (`negative` false) or `−2^k`.
    Pow2 { k: u32, negative: bool },
    /// `table[i]`.
    Table(u32),
}

/// Decodes a code (not checked against a table; see [`check_code`]).
#[inline(always)]
pub fn decode(code: u32) -> Coeff {
    let payload = code & PAYLOAD_MASK;
    match code >> CLASS_SHIFT {
        POS_POW2 => Coeff::Pow2 { k: payload, negative: false },
        NEG_POW2 => Coeff::Pow2 { k: payload, negative: true },
        _ => Coeff::Table(payload),
    }
}

/// Checks that `code` is a valid code for a table of `table_len` elements.
pub fn check_code(code: u32, table_len: usize) -> Result<()> {
    let payload = code & PAYLOAD_MASK;
    match code >> CLASS_SHIFT {
        POS_POW2 | NEG_POW2 if payload <= MAX_EXPONENT => Ok(()),
        TABLE if (payload as usize) < table_len => Ok(()),
        POS_POW2 | NEG_POW2 => bail!("coefficient code {code:#010x}: exponent {payload} is above {MAX_EXPONENT}"),
        TABLE => bail!("coefficient code {code:#010x}: table index {payload} past the table's {table_len}"),
        _ => bail!("coefficient code {code:#010x}: class 3 does not exist"),
    }
}

/// `2^k` for k = 0..=254.
pub fn pow2_values() -> &'static [Scalar] {
    static POW2: OnceLock<Vec<Scalar>> = OnceLock::new();
    POW2.get_or_init(|| {
        let mut v = Vec::with_capacity(MAX_EXPONENT as usize + 1);
        let mut p = Scalar::ONE;
        for _ in 0..=MAX_EXPONENT {
            v.push(p);
            p = p.double();
        }
        v
    })
}

fn limbs(s: &Scalar) -> [u64; 4] {
    blst::blst_fr::from(*s).l
}

/// ±2^k by the value's limbs → its code.
fn pow2_codes() -> &'static HashMap<[u64; 4], u32> {
    static CODES: OnceLock<HashMap<[u64; 4], u32>> = OnceLock::new();
    CODES.get_or_init(|| {
        let mut m = HashMap::new();
        for (k, p) in pow2_values().iter().enumerate() {
            m.insert(limbs(p), (POS_POW2 << CLASS_SHIFT) | k as u32);
            m.insert(limbs(&-*p), (NEG_POW2 << CLASS_SHIFT) | k as u32);
        }
        m
    })
}

/// The value of a code.
pub fn value(code: u32, table: &[Scalar]) -> Scalar {
    match decode(code) {
        Coeff::Pow2 { k, negative: false } => pow2_values()[k as usize],
        Coeff::Pow2 { k, negative: true } => -pow2_values()[k as usize],
        Coeff::Table(i) => table[i as usize],
    }
}

/// Builds the codes of a set of coefficients: ±2^k by class, anything else into the table
/// (each distinct value once, in the order first met).
#[derive(Default)]
pub struct Encoder {
    table: Vec<Scalar>,
    index: HashMap<[u64; 4], u32>,
}

impl Encoder {
    /// The code of a non-zero coefficient.
    pub fn encode(&mut self, c: &Scalar) -> Result<u32> {
        if crate::field::fr::is_zero(c) {
            bail!("a zero coefficient has no code (zero terms are not stored)");
        }
        let l = limbs(c);
        if let Some(&code) = pow2_codes().get(&l) {
            return Ok(code);
        }
        if let Some(&i) = self.index.get(&l) {
            return Ok((TABLE << CLASS_SHIFT) | i);
        }
        let i = self.table.len() as u32;
        if i > PAYLOAD_MASK {
            bail!("more than 2^30 distinct coefficients");
        }
        self.table.push(*c);
        self.index.insert(l, i);
        Ok((TABLE << CLASS_SHIFT) | i)
    }

    /// The table of the coefficients that are not ±2^k.
    pub fn into_table(self) -> Vec<Scalar> {
        self.table
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn codes_round_trip_to_their_values() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let two = Scalar::from(2u64);
        let mut values = vec![Scalar::ONE, -Scalar::ONE, two, -two, Scalar::from(3u64), -Scalar::from(1u64 << 40)];
        values.push(pow2_values()[254]);
        values.push(-pow2_values()[200]);
        values.extend((0..50).map(|_| Scalar::random(&mut rng)));
        values.push(Scalar::from(3u64)); // a repeat: the same table entry
        let mut enc = Encoder::default();
        let codes: Vec<u32> = values.iter().map(|v| enc.encode(v).unwrap()).collect();
        assert_eq!(&codes[..4], &[PLUS_ONE, MINUS_ONE, 1, MINUS_ONE | 1]);
        assert_eq!(codes[4], TABLE << CLASS_SHIFT);
        assert_eq!(codes[5], MINUS_ONE | 40);
        assert_eq!(codes[6], 254);
        assert_eq!(*codes.last().unwrap(), codes[4]);
        let table = enc.into_table();
        assert_eq!(table.len(), 51, "3 and the 50 random values");
        for (v, &code) in values.iter().zip(&codes) {
            assert_eq!(value(code, &table), *v);
            check_code(code, table.len()).unwrap();
        }
        assert!(Encoder::default().encode(&Scalar::ZERO).is_err());
    }

    #[test]
    fn invalid_codes_are_refused() {
        assert!(check_code(255, 0).is_err());
        assert!(check_code(MINUS_ONE | 255, 0).is_err());
        assert!(check_code(TABLE << CLASS_SHIFT | 3, 3).is_err());
        assert!(check_code(3 << CLASS_SHIFT, 100).is_err());
        check_code(TABLE << CLASS_SHIFT | 2, 3).unwrap();
    }
}
