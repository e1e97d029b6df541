//! The compiled PoSt constraints against the crate's synthesis: compiled from a blank partition
//! (a template of one circuit sector, no prefix beyond ONE) and evaluated at the native witness,
//! they give the synthesis's A·z, B·z, C·z and densities, on whole 2KiB partitions (WindowPoSt
//! padded, WinningPoSt) and on the first sectors of 32GiB and 64GiB partitions, whose trees have
//! sub-tree and top levels. The native witness and the synthesis come from the circuit's tests,
//! which hold them equal.
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape64GiB};
use filecoin_proofs_api::RegisteredPoStProof;
use storage_proofs_core::merkle::MerkleTreeTrait;

use super::{compile_post, evaluate, Compiled};
use crate::circuit::post::PostCircuits;
use crate::circuit::post_tests::{first_sectors, native_and_synthesis, synthetic};
use crate::circuit::window_tests::assert_same_assignment;
use crate::circuit::ProofStatement;

fn compiled(registered: RegisteredPoStProof) -> Compiled {
    compile_post(registered, &|m| panic!("{registered:?}: {m}")).unwrap()
}

/// Whole 2KiB partitions (WindowPoSt padded, WinningPoSt): the native witness is the crate's
/// synthesis variable for variable, and the compiled constraints evaluated at it give the
/// synthesis's A·z, B·z, C·z and densities.
#[test]
fn post_native_witness_and_compiled_constraints_equal_synthesis() {
    use RegisteredPoStProof::*;
    for (registered, sectors) in [(StackedDrgWindow2KiBV1_2, 5), (StackedDrgWinning2KiBV1, 1)] {
        let input = synthetic(registered, sectors, 12);
        let circuits = PostCircuits::<SectorShape2KiB>::from_input(&input).unwrap();
        let c = compiled(registered);
        assert!(c.per.constraints > 0 && c.prefix.aux == 0, "{registered:?}: a template of one circuit sector");
        for k in 0..circuits.num_partitions() {
            let what = format!("{registered:?} partition {k}");
            let (native, want) = native_and_synthesis(&circuits, k, &what);
            assert_same_assignment(&evaluate(&c, &native).unwrap(), &want, &what);
        }
    }
}

/// The first circuit sectors of 32GiB (trees 8-8-0) and 64GiB (8-8-2) partitions: native equals
/// the crate's synthesis, and the compiled template repeated for them evaluates as synthesis.
fn check_first_sectors<Tree: 'static + MerkleTreeTrait>(registered: RegisteredPoStProof, sectors: usize, n: usize) {
    let (native, want) = first_sectors::<Tree>(registered, sectors, n);
    let c = compiled(registered).with_challenges(n).unwrap();
    assert_same_assignment(&evaluate(&c, &native).unwrap(), &want, &format!("{registered:?}, {n} sectors"));
}

#[test]
fn post_native_witness_of_32gib_and_64gib_sectors_equals_synthesis() {
    use RegisteredPoStProof::*;
    check_first_sectors::<SectorShape32GiB>(StackedDrgWindow32GiBV1_2, 3, 3);
    check_first_sectors::<SectorShape32GiB>(StackedDrgWinning32GiBV1, 1, 4);
    check_first_sectors::<SectorShape64GiB>(StackedDrgWindow64GiBV1_2, 2, 3);
}
