//! filecoin-proofs' own C2 on a c1.json: the comparator for `filsnark prove` in benchmarks and
//! the generator of reference proofs in tests. Makes the crates' random parameters in
//! FIL_PROOFS_PARAMETER_CACHE when they are missing (slow: ~12 minutes for 2KiB on 2 cores).
//! Usage: cargo run --release --example reference_c2 -- C1.json PROOF_OUT [MINER_ID]
use filecoin_proofs_api::seal::seal_commit_phase2;
use filecoin_proofs_api::SectorId;

#[path = "../tests/common/seal.rs"]
#[allow(dead_code)]
mod seal;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (c1_path, out) = (&args[1], &args[2]);
    let miner: u64 = args.get(3).map_or(Ok(1000), |s| s.parse())?;
    let (c1, sector) = seal::from_lotus_wrapper(&std::fs::read(c1_path)?)?;
    let t = std::time::Instant::now();
    let proof = seal_commit_phase2(c1, seal::prover_id(miner), SectorId::from(sector))?;
    eprintln!("reference C2: {:.2} s", t.elapsed().as_secs_f64());
    std::fs::write(out, proof.proof)?;
    Ok(())
}
