//! Roots of unity of Fr (2-adicity 32) and tables of powers, shared by the CPU and GPU NTTs
//! and by `params setup`'s Lagrange basis.
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// Powers per parallel task.
const PIECE: usize = 1 << 12;

/// A primitive 2^log_n-th root of unity.
pub fn root_of_unity(log_n: u32) -> Scalar {
    assert!(log_n <= Scalar::S, "domain 2^{log_n} exceeds Fr's 2-adicity");
    let mut w = Scalar::ROOT_OF_UNITY;
    for _ in log_n..Scalar::S {
        w = w.square();
    }
    w
}

/// base^0 … base^(count-1).
pub fn powers(base: Scalar, count: usize) -> Vec<Scalar> {
    let mut out = vec![Scalar::ZERO; count];
    out.par_chunks_mut(PIECE).enumerate().for_each(|(c, part)| {
        let mut acc = base.pow_vartime([(c * PIECE) as u64]);
        for v in part {
            *v = acc;
            acc *= base;
        }
    });
    out
}
