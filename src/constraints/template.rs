//! The repeat check: whether every challenge's rows of a recorded R1CS are challenge 0's rows
//! with the challenge's own variables renumbered — checked entry by entry, never assumed.
//!
//! Challenge `j`'s rows are `prefix.constraints + j·per.constraints ..` of the recording. They
//! *repeat* challenge 0 when, row by row and matrix by matrix, they hold the same number of
//! terms, with the same coefficients, in the same order, on the columns [`shift`] maps
//! challenge 0's columns to: a column of the prefix stays; a column of challenge 0 moves by
//! `j·per.inputs` (an input) or `j·per.aux` (an aux variable).
use std::fmt;

use crate::circuit::r1cs::{Matrix, R1cs, INPUT_FLAG};
use crate::circuit::window::Span;

/// Challenge 0's column `col` (an [`INPUT_FLAG`]-encoded column) as challenge `j` has it.
#[inline(always)]
pub fn shift(col: u32, prefix: &Span, per: &Span, j: usize) -> u32 {
    if col & INPUT_FLAG != 0 {
        let i = (col & !INPUT_FLAG) as usize;
        if i < prefix.inputs {
            col
        } else {
            (i + j * per.inputs) as u32 | INPUT_FLAG
        }
    } else if (col as usize) < prefix.aux {
        col
    } else {
        (col as usize + j * per.aux) as u32
    }
}

/// Where a challenge first differs from challenge 0 shifted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub challenge: usize,
    /// 0, 1, 2 for A, B, C.
    pub matrix: usize,
    /// The row within the challenge.
    pub row: usize,
    pub what: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "challenge {} does not repeat challenge 0: its row {} of {}: {}",
            self.challenge,
            self.row,
            ["A", "B", "C"][self.matrix],
            self.what
        )
    }
}

fn col_name(col: u32) -> String {
    if col & INPUT_FLAG != 0 {
        format!("input {}", col & !INPUT_FLAG)
    } else {
        format!("aux {col}")
    }
}

/// Checks that challenges `1..challenges` of `r1cs` repeat challenge 0 (see the module doc),
/// and that challenge 0 reads only the prefix's variables and its own.
pub fn check_repeats(r1cs: &R1cs, prefix: &Span, per: &Span, challenges: usize) -> Result<(), Mismatch> {
    for (m, matrix) in [&r1cs.a, &r1cs.b, &r1cs.c].into_iter().enumerate() {
        check_own_columns(matrix, m, prefix, per)?;
        for j in 1..challenges {
            check_challenge(matrix, m, prefix, per, j)?;
        }
    }
    Ok(())
}

/// Challenge 0's columns lie in the prefix or in challenge 0.
fn check_own_columns(matrix: &Matrix, m: usize, prefix: &Span, per: &Span) -> Result<(), Mismatch> {
    for row in 0..per.constraints {
        for (col, _) in matrix.row(prefix.constraints + row) {
            let inside = if col & INPUT_FLAG != 0 {
                ((col & !INPUT_FLAG) as usize) < prefix.inputs + per.inputs
            } else {
                (col as usize) < prefix.aux + per.aux
            };
            if !inside {
                let what = format!("{} lies past challenge 0's variables", col_name(col));
                return Err(Mismatch { challenge: 0, matrix: m, row, what });
            }
        }
    }
    Ok(())
}

fn check_challenge(matrix: &Matrix, m: usize, prefix: &Span, per: &Span, j: usize) -> Result<(), Mismatch> {
    let first = prefix.constraints;
    let own = first + j * per.constraints;
    let mismatch = |row: usize, what: String| Mismatch { challenge: j, matrix: m, row, what };
    for row in 0..per.constraints {
        let (r0, rj) = (terms(matrix, first + row), terms(matrix, own + row));
        if r0.len() != rj.len() {
            return Err(mismatch(row, format!("{} terms where challenge 0 has {}", rj.len(), r0.len())));
        }
        for k in 0..r0.len() {
            let (want, got) = (shift(matrix.cols[r0.start + k], prefix, per, j), matrix.cols[rj.start + k]);
            if got != want {
                return Err(mismatch(
                    row,
                    format!("term {k} is {} where the shift gives {}", col_name(got), col_name(want)),
                ));
            }
            let (id0, idj) = (matrix.coeff_ids[r0.start + k], matrix.coeff_ids[rj.start + k]);
            if idj != id0 {
                return Err(mismatch(row, format!("term {k} has coefficient #{idj}, challenge 0 #{id0}")));
            }
        }
    }
    Ok(())
}

/// The positions of row `r`'s terms.
fn terms(matrix: &Matrix, r: usize) -> std::ops::Range<usize> {
    matrix.row_ptr[r] as usize..matrix.row_ptr[r + 1] as usize
}
