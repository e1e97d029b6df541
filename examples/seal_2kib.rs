//! Seals a 2KiB sector with filecoin-proofs and writes its c1.json in the lotus-bench wrapper
//! format. Used to make the fixture that ships in params/fixtures/, and NI-PoRep c1.json files
//! for benchmarks (PROOF_TYPE StackedDrg2KiBV1_2_Feat_NonInteractivePoRep).
//! Usage: cargo run --release --example seal_2kib -- OUT.json [MINER_ID] [SECTOR_NUM] [SEED] [PROOF_TYPE]
#[path = "../tests/common/seal.rs"]
#[allow(dead_code)]
mod seal;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let out = args.get(1).expect("usage: seal_2kib OUT.json [MINER_ID] [SECTOR_NUM] [SEED] [PROOF_TYPE]");
    let miner: u64 = args.get(2).map_or(Ok(1000), |s| s.parse())?;
    let sector: u64 = args.get(3).map_or(Ok(1), |s| s.parse())?;
    let seed: u64 = args.get(4).map_or(Ok(42), |s| s.parse())?;
    let proof: filecoin_proofs_api::RegisteredSealProof =
        serde_json::from_value(args.get(5).map_or("StackedDrg2KiBV1_1", |s| s.as_str()).into())?;
    let dir = tempfile::tempdir()?;
    let c1 = seal::seal_2kib_as(proof, miner, sector, seed, dir.path())?;
    std::fs::write(out, seal::lotus_wrapper(&c1, sector)?)?;
    eprintln!("wrote {out} (miner t0{miner}, sector {sector})");
    Ok(())
}
