#!/usr/bin/env bash
# SnarkPack aggregation by filsnark against filecoin-proofs' aggregate_seal_commit_proofs on the
# same inputs and machine (examples/aggregate_bench.rs): 819 sectors of 2KiB (1,024 proofs after
# padding) and 8,190 proofs (819 sectors of 32GiB, 10 partitions each; 8,192 after padding), the
# most one lotus ProveCommitAggregate message takes. Prints the times and checks the bytes agree.
# On a host with a GPU, filsnark also aggregates with the pairing products' Miller loops on the GPU
# (only the products at or above its default threshold, then every product; AGG_SWEEP="0 64 512"
# times other thresholds) and prints those times beside the CPU path's, after checking the bytes
# are the CPU path's (FILSNARK_AGG_GPU=0 skips the GPU runs). Rows print as they are measured.
# PARAMS_DIR holds the 2KiB .vk (filecoin-proofs reads it); made with params setup if missing.
# Usage: scripts/bench-aggregation.sh PARAMS_DIR OUTDIR [COUNT...]
# On the GPU machine (no Rust toolchain): BIN=/tmp/filsnark-gpu-pack, holding filsnark and
# aggregate_bench (scripts/gpu-pack.sh packs both).
set -euo pipefail
params=${1:?usage: $0 PARAMS_DIR OUTDIR [COUNT...]}
out=${2:?usage: $0 PARAMS_DIR OUTDIR [COUNT...]}
shift 2
counts=("${@:-819 8190}")
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
  cargo build --release -q --bin filsnark --example aggregate_bench
  fs=target/release/filsnark; ab=target/release/examples/aggregate_bench
else
  fs=$BIN/filsnark; ab=$BIN/aggregate_bench
fi
mkdir -p "$out" "$params"
stem=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f
[ -f "$params/$stem.vk" ] || "$fs" params setup --proof porep --sector-size 2KiB --seed 1 --out "$params"
for c in ${counts[@]}; do
  for v in SnarkPackV2; do
    /usr/bin/time -f "%e s wall, peak RSS %M kB" "$ab" "$params" "$c" "$v" 2>&1 | tee "$out/aggregate-$c-$v.log"
  done
done
