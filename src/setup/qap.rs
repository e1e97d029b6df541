//! The QAP at τ: the Lagrange basis of the evaluation domain evaluated at τ (an inverse NTT of
//! the powers of τ, as bellperson's generator does), and per variable the sums
//! u_j(τ) = Σ_r A[r][j]·L_r(τ) (likewise v with B, w with C).
//!
//! The per-variable sums run over a transpose of the matrix (counting sort by column with
//! atomic cursors; entries pack row and coefficient id in a u64), then in parallel over
//! columns. Field addition is exact, so the order the scatter leaves within a column does not
//! change any sum.
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::circuit::r1cs::{Matrix, R1cs, INPUT_FLAG, ONE_ID};
use crate::cpu::ntt::EvaluationDomain;

/// τ^i for i < n, in parallel.
pub fn powers(tau: Scalar, n: usize) -> Vec<Scalar> {
    let mut out = vec![Scalar::ZERO; n];
    let chunk = 1 << 14;
    out.par_chunks_mut(chunk).enumerate().for_each(|(c, part)| {
        let mut acc = tau.pow_vartime([(c * chunk) as u64]);
        for v in part {
            *v = acc;
            acc *= tau;
        }
    });
    out
}

/// L_r(τ) for r < 2^log_n: the Lagrange basis of the domain of 2^log_n-th roots of unity.
pub fn lagrange_at(tau: Scalar, log_n: u32) -> Vec<Scalar> {
    let domain = EvaluationDomain::new(log_n);
    let mut v = powers(tau, domain.n);
    domain.intt(&mut v);
    v
}

/// Column of a stored index: inputs first, then aux.
#[inline]
fn column(c: u32, num_inputs: usize) -> usize {
    if c & INPUT_FLAG != 0 {
        (c & !INPUT_FLAG) as usize
    } else {
        num_inputs + c as usize
    }
}

/// Σ_r M[r][j]·lag[r] for every variable j (inputs, then aux), each times `scale`.
pub fn eval_columns(r1cs: &R1cs, m: &Matrix, lag: &[Scalar], scale: Scalar) -> Vec<Scalar> {
    let vars = r1cs.num_vars();
    let ni = r1cs.num_inputs;
    assert!(lag.len() >= m.rows());
    let rows_per_task = (m.rows() / (8 * rayon::current_num_threads()).max(1)).clamp(1 << 12, 1 << 20);

    // Count the entries of each column.
    let counts: Vec<AtomicU32> = (0..vars).map(|_| AtomicU32::new(0)).collect();
    m.cols.par_chunks(1 << 16).for_each(|cs| {
        for &c in cs {
            counts[column(c, ni)].fetch_add(1, Relaxed);
        }
    });
    // Column starts; reuse `counts` as scatter cursors.
    let mut col_ptr = Vec::with_capacity(vars + 1);
    let mut at = 0u32;
    for c in &counts {
        col_ptr.push(at);
        at += c.load(Relaxed);
        c.store(col_ptr[col_ptr.len() - 1], Relaxed);
    }
    col_ptr.push(at);

    // Scatter (row, coefficient id) into column order.
    let entries: Vec<AtomicU64> = (0..m.nnz()).map(|_| AtomicU64::new(0)).collect();
    let rows: Vec<usize> = (0..m.rows()).step_by(rows_per_task).collect();
    rows.par_iter().for_each(|&r0| {
        for r in r0..(r0 + rows_per_task).min(m.rows()) {
            for (c, id) in m.row(r) {
                let pos = counts[column(c, ni)].fetch_add(1, Relaxed);
                entries[pos as usize].store((r as u64) << 32 | id as u64, Relaxed);
            }
        }
    });
    drop(counts);

    // Sum each column.
    let coeffs = &r1cs.coeffs;
    let mut out = vec![Scalar::ZERO; vars];
    out.par_iter_mut().with_min_len(1 << 12).enumerate().for_each(|(j, o)| {
        let mut acc = Scalar::ZERO;
        for e in &entries[col_ptr[j] as usize..col_ptr[j + 1] as usize] {
            let e = e.load(Relaxed);
            let (r, id) = ((e >> 32) as usize, e as u32);
            if id == ONE_ID {
                acc += lag[r];
            } else {
                acc += lag[r] * coeffs[id as usize];
            }
        }
        *o = if scale == Scalar::ONE { acc } else { acc * scale };
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::r1cs::R1csCs;
    use bellperson::ConstraintSystem;
    use rand::SeedableRng;

    #[test]
    fn lagrange_basis_interpolates_at_tau() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let tau = Scalar::random(&mut rng);
        let log_n = 5;
        let lag = lagrange_at(tau, log_n);
        // Σ_r L_r(τ)·f(ω^r) = f(τ) for f of degree < n; take f(x) = 3 + x^7.
        let w = crate::field::root_of_unity(log_n);
        let f = |x: Scalar| Scalar::from(3u64) + x.pow_vartime([7u64]);
        let sum = lag.iter().enumerate().fold(Scalar::ZERO, |acc, (r, l)| acc + *l * f(w.pow_vartime([r as u64])));
        assert_eq!(sum, f(tau));
    }

    #[test]
    fn column_sums_match_rows() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut cs = R1csCs::new();
        let vars: Vec<_> = (0..50).map(|_| cs.alloc(|| "", || Ok(Scalar::ONE)).unwrap()).collect();
        let inp = cs.alloc_input(|| "", || Ok(Scalar::ONE)).unwrap();
        for k in 0..40 {
            let c = Scalar::random(&mut rng);
            cs.enforce(
                || "",
                |lc| lc + (c, vars[k]) + vars[k + 3] + inp,
                |lc| lc + vars[k + 1],
                |lc| lc + (c, vars[k + 2]),
            );
        }
        let r = cs.finish().unwrap();
        let lag: Vec<Scalar> = (0..64).map(|_| Scalar::random(&mut rng)).collect();
        let scale = Scalar::from(5u64);
        let u = eval_columns(&r, &r.a, &lag, scale);
        // Naive: for a variable, sum over rows.
        let mut want = vec![Scalar::ZERO; r.num_vars()];
        for (row, l) in lag.iter().enumerate().take(r.num_constraints) {
            for (c, id) in r.a.row(row) {
                want[column(c, r.num_inputs)] += *l * r.coeffs[id as usize] * scale;
            }
        }
        assert_eq!(u, want);
    }
}
