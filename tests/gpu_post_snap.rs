//! WindowPoSt, WinningPoSt and SnapDeals on the GPU against the CPU: the same proof bytes for
//! the same `--seed`, with the parameters resident on the device and streamed from host memory
//! (`--gpu-mem-cap`), and with a witness of field elements (PoSt's) evaluated on the device
//! and its queries expanded there (`FILSNARK_FIELD_WITNESS=device`), on 2KiB sectors sealed and
//! updated in the test with filecoin-proofs' vanilla proofs, and filecoin-proofs' verifiers
//! accept the GPU proofs. They need a CUDA
//! device, so they are #[ignore]d; the GPU machine runs them with `--include-ignored`
//! (scripts/gpu-run.sh).
mod common;

use std::path::Path;

use common::post::{self as fixtures, WINDOW, WINNING};
use common::{filsnark_env, init_post_env, path_str, seal::prover_id, stderr};
use filecoin_proofs_api::post::{verify_window_post, verify_winning_post};
use filecoin_proofs_api::update::verify_empty_sector_update_proof;

const MINER: u64 = 1000;

/// Proves `input` on the CPU, the GPU (resident), the GPU under a 2.5 GiB cap (partly streamed)
/// and the GPU evaluating a witness of field elements itself, resident and streamed, with one
/// seed; asserts all are identical and returns the GPU proof.
fn same_bytes_everywhere(kind: &str, params: &Path, input: &Path, dir: &Path) -> Vec<u8> {
    let prove = |device: &[&str], env: &[(&str, &str)], name: &str| {
        let out = dir.join(format!("{kind}-{name}.proof"));
        let mut args = vec!["prove", kind, "--in", path_str(input), "--params-dir", path_str(params)];
        args.extend_from_slice(&["--seed", "42", "-o", path_str(&out)]);
        args.extend_from_slice(device);
        let o = filsnark_env(&args, env);
        assert!(o.status.success(), "prove {kind} {device:?} {env:?} failed: {}", stderr(&o));
        std::fs::read(&out).unwrap()
    };
    let on_device = [("FILSNARK_FIELD_WITNESS", "device")];
    let capped = ["--device", "0", "--gpu-mem-cap", "2560MiB"];
    let cpu = prove(&["--device", "cpu"], &[], "cpu");
    let gpu = prove(&["--device", "gpu"], &[], "gpu");
    let streamed = prove(&capped, &[], "streamed");
    let expanded = prove(&["--device", "gpu"], &on_device, "expanded");
    let expanded_streamed = prove(&capped, &on_device, "expanded-streamed");
    assert_eq!(gpu, cpu, "{kind}: GPU and CPU proofs differ for the same seed");
    assert_eq!(streamed, cpu, "{kind}: streamed GPU and CPU proofs differ for the same seed");
    assert_eq!(expanded, cpu, "{kind}: GPU proofs with the witness expanded on the device differ from the CPU's");
    assert_eq!(expanded_streamed, cpu, "{kind}: streamed GPU proofs with the witness expanded differ from the CPU's");
    gpu
}

fn write_json(dir: &Path, name: &str, v: &serde_json::Value) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(v).unwrap()).unwrap();
    p
}

#[test]
#[ignore]
fn post_and_snap_same_bytes_on_gpu_and_cpu_and_filecoin_proofs_accepts() {
    let params = init_post_env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    let sectors = fixtures::seal_sectors(d, MINER, &[3, 5, 9], 10);
    let r = fixtures::randomness(1);
    let vanilla = fixtures::vanilla(WINDOW, &r, MINER, &sectors);
    let input = write_json(d, "window.json", &fixtures::post_json(WINDOW, MINER, &r, &sectors, &vanilla, None));
    let gpu = same_bytes_everywhere("window-post", &params, &input, d);
    let replicas = fixtures::replicas(WINDOW, &sectors);
    assert!(verify_window_post(&r, &[(WINDOW, &gpu)], &replicas, prover_id(MINER)).unwrap(), "window-post rejected");

    let one = &sectors[..1];
    let vanilla = fixtures::vanilla(WINNING, &r, MINER, one);
    let input = write_json(d, "winning.json", &fixtures::post_json(WINNING, MINER, &r, one, &vanilla, None));
    let gpu = same_bytes_everywhere("winning-post", &params, &input, d);
    let replicas = fixtures::replicas(WINNING, one);
    assert!(verify_winning_post(&r, &gpu, &replicas, prover_id(MINER)).unwrap(), "winning-post rejected");

    let u = fixtures::update_sector(d, MINER, 11, 30).unwrap();
    let input = write_json(d, "snap.json", &fixtures::snap_json(&u));
    let gpu = same_bytes_everywhere("snap", &params, &input, d);
    let ok = verify_empty_sector_update_proof(fixtures::UPDATE, &gpu, u.comm_r_old, u.comm_r_new, u.comm_d_new);
    assert!(ok.unwrap(), "snap rejected");
}
