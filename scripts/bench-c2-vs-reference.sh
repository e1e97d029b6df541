#!/usr/bin/env bash
# filsnark's CPU C2 against filecoin-proofs' own C2 on the same c1.json, parameters and machine:
# wall time, ratio and peak RSS of each. Needs 2KiB parameters in PARAMS_DIR (official names).
# Usage: scripts/bench-c2-vs-reference.sh PARAMS_DIR [C1_JSON] [MINER_ID]
# Run it on a quiet machine: both sides use every core.
set -euo pipefail
cd "$(dirname "$0")/.."
params=${1:?usage: $0 PARAMS_DIR [C1_JSON] [MINER_ID]}
c1=${2:-params/fixtures/c1-2kib-t01000-s1.json}
miner=${3:-1000}
cargo build --release -q --bin filsnark --example reference_c2
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
measure() { /usr/bin/time -f "%e %M" -o "$out/time" "$@" > "$out/log" 2>&1 || { cat "$out/log"; exit 1; }; cat "$out/time"; }
read -r fs_s fs_kb < <(measure target/release/filsnark prove porep --c1 "$c1" --miner-id "$miner" --params-dir "$params" -o "$out/fs.proof")
grep -A2 '^part' "$out/log" || true
read -r ref_s ref_kb < <(FIL_PROOFS_PARAMETER_CACHE="$params" measure target/release/examples/reference_c2 "$c1" "$out/ref.proof" "$miner")
printf '%-22s %10s %14s\n' side "wall s" "peak RSS MiB"
printf '%-22s %10.2f %14d\n' filsnark "$fs_s" $((fs_kb / 1024))
printf '%-22s %10.2f %14d\n' filecoin-proofs "$ref_s" $((ref_kb / 1024))
awk -v a="$ref_s" -v b="$fs_s" 'BEGIN { printf "speed-up: %.2fx\n", a / b }'
