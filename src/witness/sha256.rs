//! SHA-256 compressions with the variables bellperson 0.27's `sha256` gadget allocates, in its
//! order and polarity, computed a 32-bit word at a time.
//!
//! The gadget sees a word as 32 `Boolean`s, each a constant or a variable read as is (`Is`) or
//! negated (`Not`). [`Word`] keeps that per bit in three masks: the logical value, which bits
//! are variables, and which of those are negated. A negated bit's variable holds the negation
//! of its logical value, so the value a variable holds is `val ^ neg`.
//!
//! What the gadget allocates, and so what [`compress`] appends to the aux:
//! - message schedule, words 16..63: `s0 = rotr7 ⊕ rotr18 ⊕ shr3`, `s1 = rotr17 ⊕ rotr19 ⊕
//!   shr10` (two xors each) and the four-operand sum;
//! - each round: the deferred `e` sum (6 operands), `Σ1` (two xors), `ch`, the deferred `a`
//!   sum (7 operands), `Σ0` (two xors), `maj`;
//! - the final additions: `h0` (8 operands), `h4` (7), the others (2).
//!
//! A xor allocates one variable per bit where both inputs are variables (its value the xor of
//! the two variables' values; the result is negated when exactly one input was); a constant
//! false passes the other bit through, a constant true negates it, without allocation. `ch` and
//! `maj` fold constants case by case into an AND or nothing; with three variables `ch` allocates
//! its value, `maj` its value and then `b ∧ c`. A sum of operands that are all constant is a
//! constant; otherwise it allocates the bits of the whole (unreduced) sum: 33, 34 or 35 of them
//! for 2, 3–4 or 5–8 operands, the count fixed by the operand count, not by the values.
use blstrs::Scalar;
use ff::PrimeField;

use super::PackedAux;

/// The round constants of SHA-256 (FIPS 180-4).
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
];

/// The initial hash value of SHA-256 (FIPS 180-4).
const IV: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// A word of 32 gadget booleans (bit `j` is the word's bit of weight `2^j`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    /// Logical value of every bit.
    pub val: u32,
    /// Bits that are variables; the others are constants.
    pub var: u32,
    /// Variable bits read negated (`Not`); always clear on constant bits.
    pub neg: u32,
}

impl Word {
    pub const fn constant(val: u32) -> Self {
        Word { val, var: 0, neg: 0 }
    }

    /// A word of 32 variables read as they are.
    pub const fn variable(val: u32) -> Self {
        Word { val, var: !0, neg: 0 }
    }

    /// Variables except at `constant_bits`, whose values in `val` are the constants.
    pub const fn variable_except(val: u32, constant_bits: u32) -> Self {
        Word { val, var: !constant_bits, neg: 0 }
    }

    fn rotr(self, n: u32) -> Self {
        Word { val: self.val.rotate_right(n), var: self.var.rotate_right(n), neg: self.neg.rotate_right(n) }
    }

    /// Right shift: the bits shifted in are constant false.
    fn shr(self, n: u32) -> Self {
        Word { val: self.val >> n, var: self.var >> n, neg: self.neg >> n }
    }

    /// The values the variables hold (a negated bit's variable holds its negation).
    fn held(self) -> u32 {
        self.val ^ self.neg
    }

    fn bit(self, j: u32) -> Bit {
        let val = self.val >> j & 1 == 1;
        if self.var >> j & 1 == 1 {
            Bit::Var { val, neg: self.neg >> j & 1 == 1 }
        } else {
            Bit::Const(val)
        }
    }

    fn set(&mut self, j: u32, b: Bit) {
        match b {
            Bit::Const(v) => self.val |= (v as u32) << j,
            Bit::Var { val, neg } => {
                self.val |= (val as u32) << j;
                self.var |= 1 << j;
                self.neg |= (neg as u32) << j;
            }
        }
    }
}

/// One gadget boolean: a constant, or a variable with its logical value and polarity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    Const(bool),
    Var { val: bool, neg: bool },
}

impl Bit {
    fn not(self) -> Bit {
        match self {
            Bit::Const(v) => Bit::Const(!v),
            Bit::Var { val, neg } => Bit::Var { val: !val, neg: !neg },
        }
    }

    fn val(self) -> bool {
        match self {
            Bit::Const(v) | Bit::Var { val: v, .. } => v,
        }
    }
}

/// `Boolean::and`: constants fold; two variables allocate their conjunction.
fn and(aux: &mut PackedAux, x: Bit, y: Bit) -> Bit {
    match (x, y) {
        (Bit::Const(false), _) | (_, Bit::Const(false)) => Bit::Const(false),
        (Bit::Const(true), o) | (o, Bit::Const(true)) => o,
        (Bit::Var { val: a, .. }, Bit::Var { val: b, .. }) => {
            aux.push_bit(a & b);
            Bit::Var { val: a & b, neg: false }
        }
    }
}

/// `Boolean::xor` of two words, bit 0 first.
pub fn xor(aux: &mut PackedAux, a: Word, b: Word) -> Word {
    let both = a.var & b.var;
    let held = a.held() ^ b.held();
    if both == !0 {
        aux.push_bits(held as u64, 32);
    } else if both != 0 {
        let (bits, n) = select_bits(held, both);
        aux.push_bits(bits, n);
    }
    let neg = (both & (a.neg ^ b.neg)) | (a.var & !b.var & (a.neg ^ b.val)) | (b.var & !a.var & (b.neg ^ a.val));
    Word { val: a.val ^ b.val, var: a.var | b.var, neg }
}

/// `(a ⊕ b) ⊕ c`, the two xors in that order.
fn xor3(aux: &mut PackedAux, a: Word, b: Word, c: Word) -> Word {
    let ab = xor(aux, a, b);
    xor(aux, ab, c)
}

/// The bits of `v` at the set bits of `mask`, packed from bit 0 up, and their count.
fn select_bits(v: u32, mut mask: u32) -> (u64, u32) {
    let (mut out, mut n) = (0u64, 0u32);
    while mask != 0 {
        let j = mask.trailing_zeros();
        out |= ((v >> j & 1) as u64) << n;
        n += 1;
        mask &= mask - 1;
    }
    (out, n)
}

/// `UInt32::sha256_ch`: `(e ∧ f) ⊕ (¬e ∧ g)` per bit.
pub fn ch(aux: &mut PackedAux, e: Word, f: Word, g: Word) -> Word {
    let value = (e.val & f.val) ^ (!e.val & g.val);
    if e.var & f.var & g.var == !0 {
        aux.push_bits(value as u64, 32);
        return Word::variable(value);
    }
    if e.var | f.var | g.var == 0 {
        return Word::constant(value);
    }
    let mut out = Word::constant(0);
    for j in 0..32 {
        out.set(j, ch_bit(aux, e.bit(j), f.bit(j), g.bit(j)));
    }
    out
}

/// `Boolean::sha256_ch`'s constant folding, in its order of cases.
fn ch_bit(aux: &mut PackedAux, a: Bit, b: Bit, c: Bit) -> Bit {
    let value = (a.val() & b.val()) ^ (!a.val() & c.val());
    match (a, b, c) {
        (Bit::Const(_), Bit::Const(_), Bit::Const(_)) => Bit::Const(value),
        (Bit::Const(false), _, c) => c,
        (a, Bit::Const(false), c) => and(aux, a.not(), c),
        (a, b, Bit::Const(false)) => and(aux, a, b),
        (a, b, Bit::Const(true)) => and(aux, a, b.not()).not(),
        (a, Bit::Const(true), c) => and(aux, a.not(), c.not()).not(),
        _ => {
            aux.push_bit(value);
            Bit::Var { val: value, neg: false }
        }
    }
}

/// `UInt32::sha256_maj`: the majority of `a`, `b`, `c` per bit.
pub fn maj(aux: &mut PackedAux, a: Word, b: Word, c: Word) -> Word {
    let value = (a.val & b.val) ^ (a.val & c.val) ^ (b.val & c.val);
    if a.var & b.var & c.var == !0 {
        aux.push_bits(interleave(value, b.val & c.val), 64);
        return Word::variable(value);
    }
    if a.var | b.var | c.var == 0 {
        return Word::constant(value);
    }
    let mut out = Word::constant(0);
    for j in 0..32 {
        out.set(j, maj_bit(aux, a.bit(j), b.bit(j), c.bit(j)));
    }
    out
}

/// `Boolean::sha256_maj`'s constant folding, in its order of cases; three variables allocate
/// the majority and then `b ∧ c`.
fn maj_bit(aux: &mut PackedAux, a: Bit, b: Bit, c: Bit) -> Bit {
    let value = (a.val() & b.val()) ^ (a.val() & c.val()) ^ (b.val() & c.val());
    match (a, b, c) {
        (Bit::Const(_), Bit::Const(_), Bit::Const(_)) => Bit::Const(value),
        (Bit::Const(false), b, c) => and(aux, b, c),
        (a, Bit::Const(false), c) => and(aux, a, c),
        (a, b, Bit::Const(false)) => and(aux, a, b),
        (a, b, Bit::Const(true)) => and(aux, a.not(), b.not()).not(),
        (a, Bit::Const(true), c) => and(aux, a.not(), c.not()).not(),
        (Bit::Const(true), b, c) => and(aux, b.not(), c.not()).not(),
        (_, b, c) => {
            aux.push_bit(value);
            and(aux, b, c);
            Bit::Var { val: value, neg: false }
        }
    }
}

/// `x` on the even bits and `y` on the odd bits of the result.
fn interleave(x: u32, y: u32) -> u64 {
    fn spread(v: u32) -> u64 {
        let mut v = v as u64;
        v = (v | v << 16) & 0x0000_ffff_0000_ffff;
        v = (v | v << 8) & 0x00ff_00ff_00ff_00ff;
        v = (v | v << 4) & 0x0f0f_0f0f_0f0f_0f0f;
        v = (v | v << 2) & 0x3333_3333_3333_3333;
        (v | v << 1) & 0x5555_5555_5555_5555
    }
    spread(x) | spread(y) << 1
}

/// `UInt32::addmany`: the sum of 2 to 10 words, reduced mod 2^32 in the word it returns.
pub fn addmany(aux: &mut PackedAux, operands: &[Word]) -> Word {
    debug_assert!((2..=10).contains(&operands.len()));
    let sum: u64 = operands.iter().map(|w| w.val as u64).sum();
    if operands.iter().all(|w| w.var == 0) {
        return Word::constant(sum as u32);
    }
    let max = operands.len() as u64 * u32::MAX as u64;
    aux.push_bits(sum, 64 - max.leading_zeros());
    Word::variable(sum as u32)
}

/// A working variable whose sum the gadget defers until it is read.
#[derive(Clone, Copy)]
enum Deferred<const N: usize> {
    Concrete(Word),
    Sum([Word; N]),
}

impl<const N: usize> Deferred<N> {
    /// The sum (allocated now) with `extra` added, or the concrete word as it is.
    fn compute(self, aux: &mut PackedAux, extra: Option<Word>) -> Word {
        match self {
            Deferred::Concrete(w) => w,
            Deferred::Sum(ops) => match extra {
                None => addmany(aux, &ops),
                Some(x) => {
                    let mut all = [Word::constant(0); 8];
                    all[..N].copy_from_slice(&ops);
                    all[N] = x;
                    addmany(aux, &all[..N + 1])
                }
            },
        }
    }
}

/// `sha256_compression_function` of one 16-word block on `state`: appends the variables the
/// gadget allocates and returns the new state.
pub fn compress(aux: &mut PackedAux, block: &[Word; 16], state: &[Word; 8]) -> [Word; 8] {
    let w = message_schedule(aux, block);
    let (mut a, mut e) = (Deferred::<7>::Concrete(state[0]), Deferred::<6>::Concrete(state[4]));
    let [_, mut b, mut c, mut d, _, mut f, mut g, mut h] = *state;
    for (&k, &wi) in K.iter().zip(&w) {
        let new_e = e.compute(aux, None);
        let s1 = xor3(aux, new_e.rotr(6), new_e.rotr(11), new_e.rotr(25));
        let ch = ch(aux, new_e, f, g);
        let temp1 = [h, s1, ch, Word::constant(k), wi];
        let new_a = a.compute(aux, None);
        let s0 = xor3(aux, new_a.rotr(2), new_a.rotr(13), new_a.rotr(22));
        let maj = maj(aux, new_a, b, c);
        (h, g, f) = (g, f, new_e);
        e = Deferred::Sum([temp1[0], temp1[1], temp1[2], temp1[3], temp1[4], d]);
        (d, c, b) = (c, b, new_a);
        a = Deferred::Sum([temp1[0], temp1[1], temp1[2], temp1[3], temp1[4], s0, maj]);
    }
    let h0 = a.compute(aux, Some(state[0]));
    let h1 = addmany(aux, &[state[1], b]);
    let h2 = addmany(aux, &[state[2], c]);
    let h3 = addmany(aux, &[state[3], d]);
    let h4 = e.compute(aux, Some(state[4]));
    let h5 = addmany(aux, &[state[5], f]);
    let h6 = addmany(aux, &[state[6], g]);
    let h7 = addmany(aux, &[state[7], h]);
    [h0, h1, h2, h3, h4, h5, h6, h7]
}

/// Words 16..63 of the message schedule, allocated as the gadget does.
fn message_schedule(aux: &mut PackedAux, block: &[Word; 16]) -> [Word; 64] {
    let mut w = [Word::constant(0); 64];
    w[..16].copy_from_slice(block);
    for i in 16..64 {
        let x = w[i - 15];
        let s0 = xor3(aux, x.rotr(7), x.rotr(18), x.shr(3));
        let y = w[i - 2];
        let s1 = xor3(aux, y.rotr(17), y.rotr(19), y.shr(10));
        w[i] = addmany(aux, &[w[i - 16], s0, w[i - 7], s1]);
    }
    w
}

/// The `sha256` gadget on a message of whole words: pads it (constants) and compresses every
/// block from the constant IV. Returns the digest's state words.
pub fn sha256(aux: &mut PackedAux, message: &[Word]) -> [Word; 8] {
    let bit_len = 32 * message.len() as u64;
    let blocks = (message.len() + 1 + 2).div_ceil(16);
    let mut state = IV.map(Word::constant);
    let word = |i: usize| -> Word {
        match i {
            i if i < message.len() => message[i],
            i if i == message.len() => Word::constant(0x8000_0000),
            i if i == 16 * blocks - 2 => Word::constant((bit_len >> 32) as u32),
            i if i == 16 * blocks - 1 => Word::constant(bit_len as u32),
            _ => Word::constant(0),
        }
    };
    for blk in 0..blocks {
        let block: [Word; 16] = std::array::from_fn(|j| word(16 * blk + j));
        state = compress(aux, &block, &state);
    }
    state
}

/// The digest's bytes, big-endian words in order (the standard SHA-256 output).
pub fn digest_bytes(state: &[Word; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, w) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&w.val.to_be_bytes());
    }
    out
}

/// The eight message words of a field element as the crates hash it: its 32-byte
/// little-endian encoding, each byte most significant bit first. The gadget bits come from
/// `to_bits_le` (255 variables) padded with a constant false bit 255, which lands on bit 7 of
/// word 7.
pub fn field_words(v: &Scalar) -> [Word; 8] {
    let repr = v.to_repr();
    std::array::from_fn(|k| {
        let val = u32::from_be_bytes([repr[4 * k], repr[4 * k + 1], repr[4 * k + 2], repr[4 * k + 3]]);
        if k == 7 {
            Word::variable_except(val, 1 << 7)
        } else {
            Word::variable(val)
        }
    })
}

/// The field element a digest is packed into (`pack_bits` of its first 254 bits, each byte
/// least significant bit first): the digest read little-endian with its top two bits cleared.
pub fn digest_scalar(state: &[Word; 8]) -> Scalar {
    let mut bytes = digest_bytes(state);
    bytes[31] &= 0x3f;
    Scalar::from_repr_vartime(bytes).expect("254 bits are below the modulus")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngCore, SeedableRng};
    use sha2::{Digest, Sha256};

    /// Plain SHA-256 from the words' values: the witness computes the real digest.
    #[test]
    fn digest_equals_sha2() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for words in [0usize, 1, 13, 14, 16, 30, 312] {
            let msg: Vec<u32> = (0..words).map(|_| rng.next_u32()).collect();
            let bytes: Vec<u8> = msg.iter().flat_map(|w| w.to_be_bytes()).collect();
            let ours = digest_bytes(&sha256(
                &mut PackedAux::default(),
                &msg.iter().map(|&v| Word::variable(v)).collect::<Vec<_>>(),
            ));
            assert_eq!(ours.as_slice(), Sha256::digest(&bytes).as_slice(), "{words} words");
        }
    }

    /// A block of variables with a variable state allocates 26,166 variables; with the IV
    /// and an all-constant block, none.
    #[test]
    fn counts_of_a_full_and_a_constant_block() {
        let mut aux = PackedAux::default();
        let block = [Word::variable(7); 16];
        let state = [Word::variable(3); 8];
        compress(&mut aux, &block, &state);
        assert_eq!(aux.len(), 26_166);
        let mut none = PackedAux::default();
        compress(&mut none, &[Word::constant(1); 16], &IV.map(Word::constant));
        assert_eq!(none.len(), 0);
    }
}
