#!/usr/bin/env bash
# NI-PoRep C2 (2KiB: 13 partitions and their SnarkPack aggregate) by filsnark against
# filecoin-proofs' own seal_commit_phase2, on one freshly sealed NI sector, the same parameters
# and the same machine: wall time, ratio and peak RSS of each (scripts/bench-c2-vs-reference.sh).
# PARAMS_DIR must hold the 2KiB .params/.vk and v28-fil-inner-product-v1.srs under their
# official names, e.g. the tests' ~/.cache/filsnark/test-agg-v1, or one made with
#   filsnark params setup --proof porep --sector-size 2KiB --out DIR
#   filsnark params setup --proof aggregation --max-proofs 16 --out DIR
# Usage: scripts/bench-ni-vs-reference.sh PARAMS_DIR [MINER_ID] [SECTOR_NUM]
set -euo pipefail
cd "$(dirname "$0")/.."
params=${1:?usage: $0 PARAMS_DIR [MINER_ID] [SECTOR_NUM]}
miner=${2:-1000}
sector=${3:-1}
test -f "$params/v28-fil-inner-product-v1.srs" || { echo "no v28-fil-inner-product-v1.srs in $params" >&2; exit 2; }
cargo build --release -q --example seal_2kib
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
target/release/examples/seal_2kib "$work/c1-ni.json" "$miner" "$sector" 42 StackedDrg2KiBV1_2_Feat_NonInteractivePoRep
scripts/bench-c2-vs-reference.sh "$params" "$work/c1-ni.json" "$miner"
