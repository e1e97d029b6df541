//! filecoin-proofs' own `verify_seal` on a c1.json and a seal proof: the chain's judgement of a
//! filsnark proof, for sizes the tests cannot seal (synthetic c1.json on the GPU machine). The
//! verifying key comes from FIL_PROOFS_PARAMETER_CACHE (the `.vk` beside the `.params`).
//! Usage: cargo run --release --example verify_seal -- C1.json PROOF [MINER_ID]
//! Exit status: 0 accepted, 1 rejected, 2 error.

#[path = "../tests/common/seal.rs"]
#[allow(dead_code)]
mod seal;

fn run() -> anyhow::Result<bool> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(args.len() >= 3, "usage: verify_seal C1.json PROOF [MINER_ID]");
    let (c1_path, proof_path) = (&args[1], &args[2]);
    let miner: u64 = args.get(3).map_or(Ok(1000), |s| s.parse())?;
    let (c1, sector) = seal::from_lotus_wrapper(&std::fs::read(c1_path)?)?;
    let proof = std::fs::read(proof_path)?;
    let t = std::time::Instant::now();
    let ok = seal::chain_accepts(&c1, miner, sector, &proof)?;
    eprintln!("verify_seal: {} in {:.2} s", if ok { "accepted" } else { "REJECTED" }, t.elapsed().as_secs_f64());
    Ok(ok)
}

fn main() {
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("verify_seal: {e:#}");
            std::process::exit(2)
        }
    }
}
