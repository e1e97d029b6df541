//! A bitset over variables: which inputs or aux variables occur (with a non-zero coefficient)
//! in the A or B polynomials. It decides which scalars meet the `a`, `b_g1`, `b_g2` points.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Density {
    words: Vec<u64>,
    len: usize,
}

impl Density {
    pub fn with_capacity(n: usize) -> Self {
        Self { words: Vec::with_capacity(n.div_ceil(64)), len: 0 }
    }

    /// Appends one variable, not (yet) occurring.
    #[inline]
    pub fn push(&mut self) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.len += 1;
    }

    #[inline]
    pub fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of variables that occur.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Appends `n` variables, none occurring.
    pub fn grow(&mut self, n: usize) {
        self.len += n;
        self.words.resize(self.len.div_ceil(64), 0);
    }

    /// Marks as occurring every variable `offset + i` for which `other` has `i`: the density of
    /// a stretch of the variables recorded on its own, merged back at its place.
    pub fn or_at(&mut self, other: &Density, offset: usize) {
        assert!(offset + other.len <= self.len, "merged density runs past the end");
        let (word, shift) = (offset / 64, offset % 64);
        for (j, &w) in other.words.iter().enumerate().filter(|(_, w)| **w != 0) {
            self.words[word + j] |= w << shift;
            if shift != 0 && w >> (64 - shift) != 0 {
                self.words[word + j + 1] |= w >> (64 - shift);
            }
        }
    }

    /// Indices of the variables that occur, in order.
    pub fn iter_set(&self) -> impl Iterator<Item = usize> + '_ {
        self.iter_set_from(&[], 0)
    }

    /// The number of occurring variables before each 64-bit word: with it,
    /// [`Density::iter_set_from`] starts anywhere without walking the words before.
    pub fn ranks(&self) -> Vec<usize> {
        let mut before = 0;
        self.words
            .iter()
            .map(|w| {
                let r = before;
                before += w.count_ones() as usize;
                r
            })
            .collect()
    }

    /// Among the occurring variables, the place of variable `i` (None when it does not occur).
    /// `ranks` is [`Density::ranks`].
    #[inline]
    pub fn rank(&self, ranks: &[usize], i: usize) -> Option<usize> {
        let (w, b) = (i / 64, i % 64);
        let word = *self.words.get(w)?;
        (word >> b & 1 == 1).then(|| ranks[w] + (word & ((1u64 << b) - 1)).count_ones() as usize)
    }

    /// The indices of the occurring variables from the `k`-th one on (k from 0), in order.
    /// `ranks` is [`Density::ranks`]; with k = 0 it may be empty.
    pub fn iter_set_from<'a>(&'a self, ranks: &'a [usize], k: usize) -> impl Iterator<Item = usize> + 'a {
        debug_assert!(k == 0 || !ranks.is_empty(), "iter_set_from needs the ranks past the first bit");
        // The word holding the k-th set bit: the last one with fewer than k + 1 bits before it.
        let w = ranks.partition_point(|&r| r <= k).saturating_sub(1);
        let mut first = self.words.get(w).copied().unwrap_or(0);
        for _ in 0..k - ranks.get(w).copied().unwrap_or(0) {
            first &= first.wrapping_sub(1); // drops the lowest set bit
        }
        let rest = self.words.iter().copied().enumerate().skip(w + 1);
        std::iter::once((w, first)).chain(rest).flat_map(|(i, mut bits)| {
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    i * 64 + b
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Density;

    #[test]
    fn set_get_count() {
        let mut d = Density::default();
        for _ in 0..130 {
            d.push();
        }
        for i in [0, 63, 64, 129] {
            d.set(i);
        }
        assert_eq!(d.count(), 4);
        assert!(d.get(63) && d.get(64) && !d.get(65));
        assert_eq!(d.iter_set().collect::<Vec<_>>(), vec![0, 63, 64, 129]);
    }

    #[test]
    fn iter_set_from_any_rank_is_the_tail_of_iter_set() {
        let mut rng = 0x9e3779b97f4a7c15u64;
        for len in [0usize, 1, 63, 64, 65, 200, 1000] {
            for fill in [0u64, 1, 8, 32, 64] {
                let mut d = Density::default();
                d.grow(len);
                for i in 0..len {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    if rng % 64 < fill {
                        d.set(i);
                    }
                }
                let all: Vec<usize> = (0..len).filter(|&i| d.get(i)).collect();
                assert_eq!(d.iter_set().collect::<Vec<_>>(), all, "len {len} fill {fill}");
                let ranks = d.ranks();
                for k in 0..=all.len() + 1 {
                    let tail: Vec<usize> = d.iter_set_from(&ranks, k).collect();
                    assert_eq!(tail, all[k.min(all.len())..], "len {len} fill {fill} from {k}");
                }
                for i in 0..len {
                    assert_eq!(
                        d.rank(&ranks, i),
                        all.iter().position(|&a| a == i),
                        "len {len} fill {fill} rank of {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn grow_and_merge_at_any_offset() {
        let mut part = Density::default();
        part.grow(100);
        for i in [0, 1, 63, 64, 99] {
            part.set(i);
        }
        for offset in [0, 1, 37, 64, 65, 127, 200] {
            let mut whole = Density::default();
            whole.grow(offset + 103);
            whole.set(0);
            whole.or_at(&part, offset);
            let mut want: Vec<usize> = [0].into_iter().chain([0, 1, 63, 64, 99].map(|i| i + offset)).collect();
            want.dedup();
            assert_eq!(whole.iter_set().collect::<Vec<_>>(), want, "offset {offset}");
            assert_eq!(whole.len(), offset + 103);
        }
    }
}
