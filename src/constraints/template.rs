//! The repeat check: whether every challenge's rows of a recorded R1CS are challenge 0's rows
//! with the challenge's own variables renumbered — checked entry by entry, never assumed.
//!
//! Challenge `j`'s rows are `prefix.constraints + j·per.constraints ..` of the recording. They
//! *repeat* challenge 0 when, row by row and matrix by matrix, they hold the same number of
//! terms, with the same coefficients, in the same order, on the columns [`shift`] maps
//! challenge 0's columns to: a column of challenge 0 moves by `j·per.inputs` (an input) or
//! `j·per.aux` (an aux variable); an aux column of the prefix inside the [`Moving`] range
//! `lo..hi` moves by `offsets[j]`; every other column of the prefix stays.
//!
//! The moving range is SnapDeals': its prefix allocates every challenge's bits (per digest,
//! H(comm_r_new ‖ index) and its 255 bits) and challenge `j` reads its share of digest
//! `j / per_digest`, at `(j % per_digest)·bits` into it — columns that move per challenge, not
//! linearly in `j`. [`derive_moving`] finds the range and the offsets from a recording; the
//! check then holds every challenge to them like any other column. PoRep and PoSt have no
//! moving range ([`Moving::none`]).
use std::fmt;

use rayon::prelude::*;

use crate::circuit::r1cs::{Matrix, R1cs, INPUT_FLAG};
use crate::circuit::window::Span;

/// Aux columns of the prefix that each challenge reads at its own place: challenge 0's
/// column `col` in `lo..hi` is challenge `j`'s `col + offsets[j]`. Empty (`lo == hi`, no
/// offsets) for a template whose prefix columns all stay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Moving {
    pub lo: usize,
    pub hi: usize,
    /// Per challenge (at least as many as the circuit has): `offsets[0] = 0`.
    pub offsets: Vec<u32>,
}

impl Moving {
    /// No moving columns.
    pub fn none() -> Moving {
        Moving::default()
    }

    pub fn is_empty(&self) -> bool {
        self.lo >= self.hi
    }

    /// Whether challenge 0's aux column `col` (of the prefix) moves.
    #[inline(always)]
    pub fn moves(&self, col: usize) -> bool {
        self.lo <= col && col < self.hi
    }

    /// Challenge `j`'s offset (0 without a range).
    #[inline(always)]
    pub fn offset(&self, j: usize) -> u32 {
        if self.is_empty() {
            0
        } else {
            self.offsets[j]
        }
    }

    /// The largest offset of challenges `0..challenges` (0 without a range).
    pub fn max_offset(&self, challenges: usize) -> u32 {
        if self.is_empty() {
            0
        } else {
            self.offsets[..challenges.min(self.offsets.len())].iter().copied().max().unwrap_or(0)
        }
    }

    /// Bytes of the offset table.
    pub fn bytes(&self) -> usize {
        4 * self.offsets.len()
    }

    /// Checks the range and the table against a prefix of `prefix_aux` aux variables and a
    /// circuit of `challenges` challenges: the range lies in the prefix, the table covers the
    /// challenges, challenge 0's offset is 0 and every offset keeps the range in the prefix.
    /// An empty range has no table.
    pub fn check(&self, prefix_aux: usize, challenges: usize) -> Result<(), String> {
        if self.is_empty() {
            return match (self.lo, self.hi, self.offsets.len()) {
                (0, 0, 0) => Ok(()),
                (lo, hi, n) => Err(format!("an empty moving range {lo}..{hi} with {n} offsets")),
            };
        }
        let (lo, hi) = (self.lo, self.hi);
        if hi > prefix_aux {
            return Err(format!("the moving range {lo}..{hi} lies past the prefix's {prefix_aux} aux"));
        }
        if self.offsets.len() < challenges.max(1) {
            return Err(format!(
                "the moving range {lo}..{hi} has offsets for {} challenges, the circuit has {challenges}",
                self.offsets.len()
            ));
        }
        if self.offsets[0] != 0 {
            return Err(format!("challenge 0's offset is {}, not 0 (the template is challenge 0)", self.offsets[0]));
        }
        if let Some((j, &off)) =
            self.offsets.iter().enumerate().find(|&(_, &off)| hi as u64 + off as u64 > prefix_aux as u64)
        {
            return Err(format!(
                "challenge {j}'s offset {off} moves the range {lo}..{hi} past the prefix's {prefix_aux} aux"
            ));
        }
        Ok(())
    }
}

/// Challenge 0's column `col` (an [`INPUT_FLAG`]-encoded column) as challenge `j` has it.
#[inline(always)]
pub fn shift(col: u32, prefix: &Span, per: &Span, moving: &Moving, j: usize) -> u32 {
    if col & INPUT_FLAG != 0 {
        let i = (col & !INPUT_FLAG) as usize;
        if i < prefix.inputs {
            col
        } else {
            (i + j * per.inputs) as u32 | INPUT_FLAG
        }
    } else if (col as usize) < prefix.aux {
        if moving.moves(col as usize) {
            col + moving.offsets[j]
        } else {
            col
        }
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
/// prefix columns in `moving` moved by their challenge's offset, and that challenge 0 reads
/// only the prefix's variables and its own. The first mismatch in the order matrix, challenge,
/// row, term is reported (the challenges are checked in parallel).
pub fn check_repeats(
    r1cs: &R1cs,
    prefix: &Span,
    per: &Span,
    moving: &Moving,
    challenges: usize,
) -> Result<(), Mismatch> {
    if !moving.is_empty() {
        // The recording's own prefix must hold the range, and the offsets cover the challenges.
        if let Err(what) = moving.check(prefix.aux, challenges) {
            return Err(Mismatch { challenge: 0, matrix: 0, row: 0, what });
        }
    }
    for (m, matrix) in [&r1cs.a, &r1cs.b, &r1cs.c].into_iter().enumerate() {
        check_own_columns(matrix, m, prefix, per)?;
        let first = (1..challenges)
            .into_par_iter()
            .map(|j| check_challenge(matrix, m, prefix, per, moving, j))
            .find_first(Result::is_err);
        if let Some(e) = first {
            return e;
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

fn check_challenge(
    matrix: &Matrix,
    m: usize,
    prefix: &Span,
    per: &Span,
    moving: &Moving,
    j: usize,
) -> Result<(), Mismatch> {
    let first = prefix.constraints;
    let own = first + j * per.constraints;
    let mismatch = |row: usize, what: String| Mismatch { challenge: j, matrix: m, row, what };
    for row in 0..per.constraints {
        let (r0, rj) = (terms(matrix, first + row), terms(matrix, own + row));
        if r0.len() != rj.len() {
            return Err(mismatch(row, format!("{} terms where challenge 0 has {}", rj.len(), r0.len())));
        }
        for k in 0..r0.len() {
            let col0 = matrix.cols[r0.start + k];
            let (want, got) = (shift(col0, prefix, per, moving, j), matrix.cols[rj.start + k]);
            if got != want {
                let how = if col0 & INPUT_FLAG == 0 && moving.moves(col0 as usize) {
                    format!(
                        " (challenge 0's aux {col0} lies in the moving range {}..{}, challenge {j}'s offset {})",
                        moving.lo, moving.hi, moving.offsets[j]
                    )
                } else {
                    String::new()
                };
                return Err(mismatch(
                    row,
                    format!("term {k} is {} where the shift gives {}{how}", col_name(got), col_name(want)),
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

/// The moving range of a recording of `challenges` challenges: the prefix aux columns that
/// challenge 0 reads and some challenge reads elsewhere (later in the prefix), and per
/// challenge the one offset by which all of its moved reads move. It is only a proposal:
/// [`check_repeats`] then holds every term of every challenge to it. Fails where a
/// challenge's reads move backwards or by different offsets. No moved read: [`Moving::none`].
pub fn derive_moving(r1cs: &R1cs, prefix: &Span, per: &Span, challenges: usize) -> Result<Moving, Mismatch> {
    // Per challenge (in parallel): its offset and the range of challenge 0's columns it moves.
    let found = (1..challenges)
        .into_par_iter()
        .map(|j| {
            let mut seen: Option<(u32, u32, u32)> = None; // (offset, lo, hi)
            for (m, matrix) in [&r1cs.a, &r1cs.b, &r1cs.c].into_iter().enumerate() {
                moved_reads(matrix, m, prefix, per, j, &mut seen)?;
            }
            Ok(seen)
        })
        .collect::<Result<Vec<_>, Mismatch>>()?;
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    let mut offsets = vec![0u32];
    for s in &found {
        offsets.push(s.map_or(0, |(off, _, _)| off));
        if let Some((_, l, h)) = *s {
            (lo, hi) = (lo.min(l), hi.max(h));
        }
    }
    if lo >= hi {
        return Ok(Moving::none());
    }
    Ok(Moving { lo: lo as usize, hi: hi as usize, offsets })
}

/// Challenge `j`'s reads of prefix aux columns other than challenge 0's in `matrix`: folds
/// their offset and the range of challenge 0's columns into `seen`.
fn moved_reads(
    matrix: &Matrix,
    m: usize,
    prefix: &Span,
    per: &Span,
    j: usize,
    seen: &mut Option<(u32, u32, u32)>,
) -> Result<(), Mismatch> {
    let first = prefix.constraints;
    let own = first + j * per.constraints;
    for row in 0..per.constraints {
        let (r0, rj) = (terms(matrix, first + row), terms(matrix, own + row));
        if r0.len() != rj.len() {
            continue; // the check reports it
        }
        for k in 0..r0.len() {
            let (c0, cj) = (matrix.cols[r0.start + k], matrix.cols[rj.start + k]);
            let prefix_aux = |c: u32| c & INPUT_FLAG == 0 && (c as usize) < prefix.aux;
            if c0 == cj || !prefix_aux(c0) || !prefix_aux(cj) {
                continue; // unmoved, or not a move within the prefix: the check judges it
            }
            let mismatch = |what: String| Mismatch { challenge: j, matrix: m, row, what };
            if cj < c0 {
                return Err(mismatch(format!(
                    "term {k} is aux {cj} where challenge 0 reads aux {c0}: a prefix read that moves backwards"
                )));
            }
            let off = cj - c0;
            match seen {
                None => *seen = Some((off, c0, c0 + 1)),
                Some((o, _, _)) if *o != off => {
                    return Err(mismatch(format!(
                        "term {k} is aux {cj} where challenge 0 reads aux {c0}: moved by {off}, the challenge's \
                         other moved reads by {o}"
                    )))
                }
                Some((_, lo, hi)) => (*lo, *hi) = ((*lo).min(c0), (*hi).max(c0 + 1)),
            }
        }
    }
    Ok(())
}

/// The positions of row `r`'s terms.
fn terms(matrix: &Matrix, r: usize) -> std::ops::Range<usize> {
    matrix.row_ptr[r] as usize..matrix.row_ptr[r + 1] as usize
}
