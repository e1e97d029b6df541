//! filecoin-proofs' own verifiers on a post.json or snap.json and a proof: `verify_window_post`,
//! `verify_winning_post` or `verify_empty_sector_update_proof`, the chain's judgement of a
//! filsnark proof for inputs the tests cannot make (synthetic 32GiB inputs on the GPU machine).
//! The verifying key comes from FIL_PROOFS_PARAMETER_CACHE.
//! Usage: cargo run --release --example verify_post -- window-post|winning-post|snap INPUT PROOF
//! Exit status: 0 accepted, 1 rejected, 2 error.
use std::collections::BTreeMap;
use std::path::Path;

use filecoin_proofs_api::post::{verify_window_post, verify_winning_post};
use filecoin_proofs_api::update::verify_empty_sector_update_proof;
use filecoin_proofs_api::{PoStType, PublicReplicaInfo, SectorId};
use filsnark::input::{prover_id, PostInput, SnapInput};

fn run() -> anyhow::Result<bool> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(args.len() == 4, "usage: verify_post window-post|winning-post|snap INPUT PROOF");
    let (kind, input, proof) = (&args[1], Path::new(&args[2]), std::fs::read(&args[3])?);
    let t = std::time::Instant::now();
    let ok = match kind.as_str() {
        "snap" => {
            let p = SnapInput::load(input)?.public;
            verify_empty_sector_update_proof(p.registered, &proof, p.comm_r_old, p.comm_r_new, p.comm_d_new)?
        }
        "window-post" | "winning-post" => {
            let typ = if kind == "window-post" { PoStType::Window } else { PoStType::Winning };
            let p = PostInput::load(input, typ)?.public;
            let replicas: BTreeMap<SectorId, PublicReplicaInfo> = p
                .sectors
                .iter()
                .map(|s| (SectorId::from(s.num), PublicReplicaInfo::new(p.registered, s.comm_r)))
                .collect();
            match p.typ() {
                PoStType::Window => {
                    anyhow::ensure!(p.partition.is_none(), "verify_window_post takes every partition's proof");
                    verify_window_post(&p.randomness, &[(p.registered, &proof)], &replicas, prover_id(p.miner_id))?
                }
                PoStType::Winning => verify_winning_post(&p.randomness, &proof, &replicas, prover_id(p.miner_id))?,
            }
        }
        other => anyhow::bail!("unknown kind {other}: window-post, winning-post or snap"),
    };
    eprintln!("{kind}: {} in {:.2} s", if ok { "accepted" } else { "REJECTED" }, t.elapsed().as_secs_f64());
    Ok(ok)
}

fn main() {
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("verify_post: {e:#}");
            std::process::exit(2)
        }
    }
}
