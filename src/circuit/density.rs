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
}
