//! Compiled constraints: a circuit shape's R1CS recorded once, checked to repeat per
//! challenge, stored compactly on disk, and evaluated at a packed witness (A·z, B·z, C·z and the
//! densities) without running the gadgets.
//!
//! - [`compile_porep`] records a blank PoRep partition cut to its prefix and [`SAMPLED`]
//!   challenges, checks that challenges 1 and 2 repeat challenge 0 ([`template`]) and keeps the
//!   prefix's rows (the *head*), challenge 0's rows (the *template*) and the coefficient table
//!   ([`Compiled`]). Should the challenges not repeat, it records the whole partition and keeps
//!   it in the head.
//! - [`compile_post`] does the same for a PoSt partition, whose circuit sectors are its
//!   challenges (no prefix beyond ONE).
//! - [`compile_snap`] records a whole blank SnapDeals partition and keeps its prefix and
//!   challenge 0 as the template: its challenges read their bits from the prefix at columns
//!   that differ per challenge, which the template's moving range maps with one offset per
//!   challenge ([`template::Moving`]), derived from the recording and checked for every
//!   challenge.
//! - [`cache`] keeps a compiled shape on disk (`$FILSNARK_CACHE_DIR`, else
//!   `~/.cache/filsnark/constraints`) and in memory; [`format`] is its file.
//! - [`eval`] computes A·z, B·z, C·z on the CPU: the `Assignment` gadget synthesis makes.
//!
//! The tests (`tests`: a toy circuit and PoRep; `post_tests`, `snap_tests`: PoSt and SnapDeals;
//! `cache_tests`: the cache) compile shapes and evaluate them against the circuits' synthesis,
//! taking synthetic inputs and native witnesses from the circuit's tests (constraints import
//! circuit, never the reverse).
//!
//! # The layout (what a GPU evaluator uploads)
//!
//! Every array is `u32` except the table. A *block* (head or template) holds, for each of A, B
//! and C (`block.m[0..3]`), a CSR matrix of `block.rows` rows:
//!
//! - `row_ptr`: `rows + 1` offsets, `row_ptr[0] = 0`; row `r`'s terms are at
//!   `row_ptr[r] .. row_ptr[r + 1]`;
//! - `cols`: per term, the variable — bit 31 ([`INPUT_FLAG`]) set: public input
//!   `col & 0x7fff_ffff` (input 0 is ONE); clear: aux variable `col`;
//! - `codes`: per term, the coefficient ([`coeff`]): `code >> 30` = 0: `+2^k`, 1: `−2^k`
//!   (`k = code & 0xff`, ≤ 254; so code 0 is +1 and `0x4000_0000` is −1), 2: `table[code &
//!   0x3fff_ffff]`.
//!
//! `table` is `[Scalar]`: per element 4 little-endian u64 limbs in Montgomery form, which are
//! the 8 little-endian u32 words of the kernels' Fr. ±2^k needs no table: `k` doublings, or a
//! constant table of the 255 powers ([`coeff::pow2_values`]).
//!
//! The circuit's rows, in the order of A·z, B·z, C·z:
//!
//! 1. rows `0 .. prefix.constraints`: the head's rows, columns as they are;
//! 2. for challenge `j` in `0 .. challenges`, rows `prefix.constraints + j·per.constraints + t`
//!    for `t < per.constraints`: the template's row `t` with every column *shifted* — an input
//!    `i ≥ prefix.inputs` becomes `i + j·per.inputs`, an aux `i ≥ prefix.aux` becomes
//!    `i + j·per.aux`, an aux in the moving range `moving.lo ≤ i < moving.hi` (of the prefix;
//!    empty but for SnapDeals) becomes `i + moving.offsets[j]` (u32, `offsets[0] = 0`), the
//!    prefix's other columns stay;
//! 3. one row per public input `i` (bellperson's `input_i · 0 = 0`): A·z = `input_i`, B·z =
//!    C·z = 0 (not stored).
//!
//! z is `inputs` (Fr) and the packed aux of [`crate::witness::PackedWitness`]: aux `i` is a field
//! element when bit `i` of the field mask is set (its value is `fields[rank]`, `rank` = field
//! mask bits set below `i`), else the bit `i` of the value bits. The densities (which aux
//! occur in A; which inputs and aux occur in B) depend on the shape alone and are computed
//! here once ([`Compiled::densities`]).
pub mod cache;
#[cfg(test)]
mod cache_tests;
pub mod coeff;
pub mod compiled;
pub mod eval;
pub mod format;
mod limbs;
#[cfg(test)]
mod moving_tests;
#[cfg(test)]
mod post_tests;
#[cfg(test)]
mod snap_tests;
pub mod template;
#[cfg(test)]
mod tests;

use anyhow::Result;

pub use cache::{CacheKey, ConstraintCache};
pub use compiled::{Block, Compiled, Csr, Densities};
pub use eval::{evaluate, evaluate_abc, Abc};
pub use template::{Mismatch, Moving};

use crate::circuit::porep_windows::{record_porep, record_porep_sample};
use crate::circuit::post_windows::{record_post, record_post_sample};
#[doc(no_inline)]
pub use crate::circuit::r1cs::INPUT_FLAG;
use crate::circuit::r1cs::{R1cs, Sample};
use crate::circuit::snap_sample::record_snap_partition;
use crate::input::PorepKind;
use filecoin_proofs_api::RegisteredPoStProof;

/// Challenges recorded to compile a shape: the template and two more to check it against.
pub const SAMPLED: usize = 3;

/// Compiles one partition of a PoRep shape. `notify` hears when the challenges do not repeat
/// and the whole partition is recorded instead.
pub fn compile_porep(kind: PorepKind, notify: &dyn Fn(&str)) -> Result<Compiled> {
    let what = format!("{} PoRep challenges", kind.name());
    compile(&what, record_porep_sample(kind, SAMPLED)?, || record_porep(kind, true), notify)
}

/// Compiles one partition of a PoSt shape: its circuit sectors are the challenges (a WindowPoSt
/// partition's sectors, WinningPoSt's one-challenge sectors), and there is no prefix beyond ONE.
pub fn compile_post(registered: RegisteredPoStProof, notify: &dyn Fn(&str)) -> Result<Compiled> {
    let what = format!("{registered:?} circuit sectors");
    compile(&what, record_post_sample(registered, SAMPLED)?, || record_post(registered, true), notify)
}

/// Compiles one partition of a SnapDeals shape: the prefix in the head, challenge 0 as the
/// template. Each challenge reads its own bits in the prefix (`gen_challenge_bits` allocates,
/// per digest, H(comm_r_new ‖ index) and its 255 bits, before the first challenge; challenge `j`
/// reads its share of digest `j / per_digest`), at prefix columns that move from one challenge
/// to the next, not linearly in `j`. The template maps them through its moving range: the
/// whole blank partition is recorded, the range and every challenge's offset are derived from
/// it, and every term of every challenge is checked against challenge 0 so shifted
/// ([`Compiled::from_moving_sample`]); a challenge that does not repeat fails the compile with
/// the [`Mismatch`].
pub fn compile_snap(size: PorepKind) -> Result<Compiled> {
    let s = record_snap_partition(size)?;
    Compiled::from_moving_sample(&s.r1cs, s.prefix, s.per, s.challenges, s.partition_challenges, s.stem)
}

/// The compiled form of `sample`: prefix and template where the sampled challenges repeat, else
/// the whole partition's R1CS from `whole` in the head (`notify` hears why).
pub fn compile(
    what: &str,
    s: Sample,
    whole: impl FnOnce() -> Result<(R1cs, String)>,
    notify: &dyn Fn(&str),
) -> Result<Compiled> {
    match Compiled::from_sample(&s.r1cs, s.prefix, s.per, s.challenges, s.partition_challenges, s.stem) {
        Err(e) if e.downcast_ref::<Mismatch>().is_some() => {
            notify(&format!("the {what} do not repeat ({e}); keeping the whole R1CS"));
            drop(s.r1cs);
            let (r1cs, stem) = whole()?;
            Compiled::full(&r1cs, stem)
        }
        done => done,
    }
}
