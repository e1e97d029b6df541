//! A witness with its booleans as bits: `z = (inputs, aux)` where aux variable `i` is either a
//! bit (its value in `bits`) or a field element (the next value of `fields`, in aux order).
//! At 32GiB a partition's 130M aux take ~16 MB of bits and ~54 MB of field values, against
//! 4.2 GB as 32-byte scalars.
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use crate::hostmem::SCALARS;

/// The aux half of a witness.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedAux {
    len: usize,
    /// Bit `i`: the value of aux `i` when it is a boolean; 0 when it is a field element.
    bits: Vec<u64>,
    /// Bit `i`: aux `i` is a field element (its value is in `fields`).
    field_mask: Vec<u64>,
    /// The field elements' values, in aux order.
    fields: Vec<Scalar>,
}

impl PackedAux {
    /// Room for `n` aux variables of which about `fields` are field elements.
    pub fn with_capacity(n: usize, fields: usize) -> Self {
        PackedAux {
            len: 0,
            bits: Vec::with_capacity(n.div_ceil(64)),
            field_mask: Vec::with_capacity(n.div_ceil(64)),
            fields: Vec::with_capacity(fields),
        }
    }

    /// Room for `n` more variables of which about `fields` are field elements.
    pub fn reserve(&mut self, n: usize, fields: usize) {
        self.bits.reserve(n.div_ceil(64) + 1);
        self.field_mask.reserve(n.div_ceil(64) + 1);
        self.fields.reserve(fields);
    }

    fn grow(&mut self) {
        if self.len.is_multiple_of(64) {
            self.bits.push(0);
            self.field_mask.push(0);
        }
        self.len += 1;
    }

    /// Appends a boolean variable.
    #[inline]
    pub fn push_bit(&mut self, b: bool) {
        self.grow();
        let i = self.len - 1;
        self.bits[i / 64] |= (b as u64) << (i % 64);
    }

    /// Appends the low `n` bits of `bits` (bit 0 first) as `n` boolean variables.
    #[inline]
    pub fn push_bits(&mut self, bits: u64, n: u32) {
        self.push_words(bits, 0, n);
    }

    /// Appends `n` variables whose value bits are the low `n` bits of `bits` and whose
    /// field-mask bits are those of `mask` (the values of the field elements are pushed
    /// separately).
    #[inline]
    fn push_words(&mut self, bits: u64, mask: u64, n: u32) {
        debug_assert!(n <= 64);
        if n == 0 {
            return;
        }
        let keep = if n == 64 { !0 } else { (1u64 << n) - 1 };
        let (bits, mask) = (bits & keep, mask & keep);
        let off = (self.len % 64) as u32;
        if off == 0 {
            self.bits.push(bits);
            self.field_mask.push(mask);
        } else {
            let last = self.bits.len() - 1;
            self.bits[last] |= bits << off;
            self.field_mask[last] |= mask << off;
            if off + n > 64 {
                self.bits.push(bits >> (64 - off));
                self.field_mask.push(mask >> (64 - off));
            }
        }
        self.len += n as usize;
    }

    /// Appends every variable of `other`, in order.
    pub fn append(&mut self, other: &PackedAux) {
        self.append_flags(other);
        self.fields.extend_from_slice(&other.fields);
    }

    /// Appends `other`'s variables without their field values: the caller appends those
    /// ([`PackedAux::extend_fields`]).
    fn append_flags(&mut self, other: &PackedAux) {
        self.bits.reserve(other.bits.len() + 1);
        self.field_mask.reserve(other.field_mask.len() + 1);
        for (w, (&bits, &mask)) in other.bits.iter().zip(&other.field_mask).enumerate() {
            let n = (other.len - 64 * w).min(64) as u32;
            self.push_words(bits, mask, n);
        }
    }

    /// Appends the field values of `parts` in order, copied on every core into room made once
    /// (a spent partition's, else new on huge pages: a 32GiB WindowPoSt partition's are 4 GB,
    /// and copied on one core after growing a vector they were a large serial part of its
    /// witness).
    fn extend_fields(&mut self, parts: &[&[Scalar]]) {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let start = self.fields.len();
        if self.fields.capacity() < start + total {
            let mut room = SCALARS.take(start + total);
            room.extend_from_slice(&self.fields);
            self.fields = room;
        }
        let spare = &mut self.fields.spare_capacity_mut()[..total];
        let mut slots = Vec::with_capacity(parts.len());
        let mut rest = spare;
        for p in parts {
            let (slot, tail) = rest.split_at_mut(p.len());
            slots.push((slot, *p));
            rest = tail;
        }
        slots.into_par_iter().for_each(|(slot, part)| {
            for (d, s) in slot.iter_mut().zip(part) {
                d.write(*s);
            }
        });
        // SAFETY: the slots split the first `total` spare elements among the parts, each as long
        // as its part, and every slot was written above.
        unsafe { self.fields.set_len(start + total) };
    }

    /// How many variables are booleans (the rest are field elements).
    pub fn count_bits(&self) -> usize {
        self.len - self.fields.len()
    }

    /// Appends the 255 bits of `v`, least significant first (`AllocatedNum::to_bits_le`).
    pub fn push_le_bits(&mut self, v: &Scalar) {
        let repr = v.to_repr();
        for (i, chunk) in repr.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            self.push_bits(word, if i == 3 { 63 } else { 64 });
        }
    }

    /// Appends a field-element variable.
    #[inline]
    pub fn push_field(&mut self, v: Scalar) {
        self.grow();
        let i = self.len - 1;
        self.field_mask[i / 64] |= 1 << (i % 64);
        self.fields.push(v);
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether aux `i` is a field element.
    #[inline]
    pub fn is_field(&self, i: usize) -> bool {
        self.field_mask[i / 64] >> (i % 64) & 1 == 1
    }

    /// The value bit of aux `i` (0 for a field element).
    #[inline]
    pub fn bit(&self, i: usize) -> bool {
        self.bits[i / 64] >> (i % 64) & 1 == 1
    }

    /// Words of value bits (bit `i % 64` of word `i / 64`).
    pub fn bit_words(&self) -> &[u64] {
        &self.bits
    }

    /// Words of the field mask.
    pub fn field_mask_words(&self) -> &[u64] {
        &self.field_mask
    }

    /// The field elements' values, in aux order.
    pub fn fields(&self) -> &[Scalar] {
        &self.fields
    }

    /// Every aux value as a scalar, in order (what gadget synthesis records).
    pub fn to_scalars(&self) -> Vec<Scalar> {
        self.iter().collect()
    }

    /// The aux values as scalars, in order, one at a time.
    pub fn iter(&self) -> impl Iterator<Item = Scalar> + '_ {
        let mut next = self.fields.iter();
        (0..self.len).map(move |i| {
            if self.is_field(i) {
                *next.next().expect("field mask and values agree")
            } else if self.bit(i) {
                Scalar::ONE
            } else {
                Scalar::ZERO
            }
        })
    }

    /// Packs scalars: 0 and 1 as bits, anything else as a field element. Any split of the
    /// values between bits and fields evaluates alike; this one is for tests and for the
    /// gadget path's assignments.
    pub fn from_scalars(aux: &[Scalar]) -> Self {
        let mut p = PackedAux::with_capacity(aux.len(), 0);
        for v in aux {
            if crate::field::fr::is_zero(v) {
                p.push_bit(false);
            } else if crate::field::fr::is_one(v) {
                p.push_bit(true);
            } else {
                p.push_field(*v);
            }
        }
        p
    }
}

/// One partition's witness: public inputs (with the leading ONE) and packed aux.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedWitness {
    pub inputs: Vec<Scalar>,
    pub aux: PackedAux,
}

/// What one challenge (a PoRep challenge, a PoSt circuit sector) adds to a partition's witness:
/// its aux variables and its public inputs, made on its own and joined in order.
pub struct WitnessPart {
    pub aux: PackedAux,
    pub inputs: Vec<Scalar>,
}

impl PackedWitness {
    /// Gives the field values' memory back for the next partition ([`SCALARS`]).
    pub fn recycle(self) {
        SCALARS.give(self.aux.fields);
    }

    /// `self` (the prefix) followed by `parts` in order.
    pub fn join(mut self, parts: Vec<WitnessPart>) -> PackedWitness {
        let bits: usize = parts.iter().map(|c| c.aux.len()).sum();
        self.aux.reserve(bits, 0);
        for c in &parts {
            self.aux.append_flags(&c.aux);
        }
        let fields: Vec<&[Scalar]> = parts.iter().map(|c| c.aux.fields()).collect();
        self.aux.extend_fields(&fields);
        for c in parts {
            self.inputs.extend(c.inputs);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn scalars_round_trip_through_bits_and_fields() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let values: Vec<Scalar> = (0..1000)
            .map(|i| match i % 5 {
                0 | 1 => Scalar::ZERO,
                2 => Scalar::ONE,
                _ => Scalar::random(&mut rng),
            })
            .collect();
        let p = PackedAux::from_scalars(&values);
        assert_eq!(p.len(), values.len());
        assert_eq!(p.to_scalars(), values);
        assert_eq!(
            p.fields().len(),
            values.iter().filter(|v| !crate::field::fr::is_zero(v) && !crate::field::fr::is_one(v)).count()
        );
        assert!(p.is_field(3) && !p.is_field(2) && p.bit(2) && !p.bit(0));
    }

    /// `push_bits` and `append` at every offset within a word agree with one `push_bit` or
    /// `push_field` per variable.
    #[test]
    fn words_and_appends_equal_single_pushes() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for lead in 0..130 {
            let mut one_by_one = PackedAux::default();
            let mut words = PackedAux::default();
            let mut tail = PackedAux::default();
            for i in 0..lead {
                one_by_one.push_bit(i % 3 == 0);
                words.push_bit(i % 3 == 0);
            }
            for n in [1u32, 7, 32, 35, 63, 64] {
                let v = rand::RngCore::next_u64(&mut rng);
                for j in 0..n {
                    one_by_one.push_bit(v >> j & 1 == 1);
                }
                tail.push_bits(v, n);
                let f = Scalar::random(&mut rng);
                one_by_one.push_field(f);
                tail.push_field(f);
            }
            words.append(&tail);
            assert_eq!(words, one_by_one, "{lead} leading bits");
            assert_eq!(words.count_bits(), lead + 1 + 7 + 32 + 35 + 63 + 64);
        }
    }
}
