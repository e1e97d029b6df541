//! filecoin-proofs' own WindowPoSt, WinningPoSt and SnapDeals provers on a post.json or
//! snap.json (docs/formats.md): the comparator for `filsnark prove window-post|winning-post|snap`
//! in benchmarks. Reads the parameters from FIL_PROOFS_PARAMETER_CACHE.
//! Usage: cargo run --release --example reference_post -- window-post|winning-post|snap INPUT PROOF_OUT
use std::path::Path;

use filecoin_proofs_api::post::{
    generate_single_window_post_with_vanilla, generate_window_post_with_vanilla, generate_winning_post_with_vanilla,
};
use filecoin_proofs_api::update::generate_empty_sector_update_proof_with_vanilla;
use filecoin_proofs_api::{PartitionProofBytes, PoStType};
use filsnark::input::{prover_id, PostInput, SnapInput};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (kind, input, out) = (&args[1], Path::new(&args[2]), &args[3]);
    let t = std::time::Instant::now();
    let proof = match kind.as_str() {
        "snap" => {
            let s = SnapInput::load(input)?;
            let p = &s.public;
            let vanilla = s.vanilla.into_iter().map(PartitionProofBytes).collect();
            generate_empty_sector_update_proof_with_vanilla(
                p.registered,
                vanilla,
                p.comm_r_old,
                p.comm_r_new,
                p.comm_d_new,
            )?
            .0
        }
        "window-post" | "winning-post" => {
            let typ = if kind == "window-post" { PoStType::Window } else { PoStType::Winning };
            let s = PostInput::load(input, typ)?;
            let p = &s.public;
            let prover = prover_id(p.miner_id);
            match (p.typ(), p.partition) {
                (PoStType::Window, Some(k)) => {
                    generate_single_window_post_with_vanilla(p.registered, &p.randomness, prover, &s.vanilla, k)?.0
                }
                (PoStType::Window, None) => {
                    generate_window_post_with_vanilla(p.registered, &p.randomness, prover, &s.vanilla)?.remove(0).1
                }
                (PoStType::Winning, _) => {
                    generate_winning_post_with_vanilla(p.registered, &p.randomness, prover, &s.vanilla)?.remove(0).1
                }
            }
        }
        other => anyhow::bail!("unknown kind {other}: window-post, winning-post or snap"),
    };
    eprintln!("reference {kind}: {:.2} s", t.elapsed().as_secs_f64());
    std::fs::write(out, proof)?;
    Ok(())
}
