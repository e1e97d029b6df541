//! Makes 2KiB PoRep parameters with the crates' own generator (bellperson
//! `generate_random_parameters`), under their official names in FIL_PROOFS_PARAMETER_CACHE.
//! The slow reference that `filsnark params setup` is measured against (~12 min on 2 cores).
//! Usage: FIL_PROOFS_PARAMETER_CACHE=DIR cargo run --release --example crate_params
use filecoin_proofs::{parameters::public_params, DefaultPieceHasher, SectorShape2KiB};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_porep::stacked::{StackedCompound, StackedDrg};

fn main() -> anyhow::Result<()> {
    let config = filecoin_proofs_api::RegisteredSealProof::StackedDrg2KiBV1_1.as_v1_config();
    let pp = public_params::<SectorShape2KiB>(&config)?;
    let mut rng = rand::rngs::OsRng;
    let t = std::time::Instant::now();
    type C = StackedCompound<SectorShape2KiB, DefaultPieceHasher>;
    <C as CompoundProof<StackedDrg<'_, SectorShape2KiB, DefaultPieceHasher>, _>>::groth_params(Some(&mut rng), &pp)?;
    <C as CompoundProof<StackedDrg<'_, SectorShape2KiB, DefaultPieceHasher>, _>>::verifying_key(Some(&mut rng), &pp)?;
    eprintln!("crate generator: {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}
