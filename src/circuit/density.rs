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
        (0..self.len).filter(move |&i| self.get(i))
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
