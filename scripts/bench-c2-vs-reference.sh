#!/usr/bin/env bash
# filsnark's CPU C2 against filecoin-proofs' own C2 on the same c1.json, parameters and machine:
# wall time, ratio and peak RSS of each. Needs 2KiB parameters in PARAMS_DIR (official names).
# Usage: scripts/bench-c2-vs-reference.sh PARAMS_DIR [C1_JSON] [MINER_ID]
# Run it on a quiet machine: both sides use every core. CPU s (user + system) is printed beside
# the wall time: on a machine shared with other work it says how much of the wall time was ours.
set -euo pipefail
cd "$(dirname "$0")/.."
params=${1:?usage: $0 PARAMS_DIR [C1_JSON] [MINER_ID]}
c1=${2:-params/fixtures/c1-2kib-t01000-s1.json}
miner=${3:-1000}
cargo build --release -q --bin filsnark --example reference_c2
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
measure() { /usr/bin/time -f "%e %M %U %S" -o "$out/time" "$@" > "$out/log" 2>&1 || { cat "$out/log"; exit 1; }; cat "$out/time"; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
read -r fs_s fs_kb fs_u fs_sys < <(measure target/release/filsnark prove porep --c1 "$c1" --miner-id "$miner" --params-dir "$params" -o "$out/fs.proof")
grep -A2 '^part' "$out/log" || true
read -r ref_s ref_kb ref_u ref_sys < <(FIL_PROOFS_PARAMETER_CACHE="$params" measure target/release/examples/reference_c2 "$c1" "$out/ref.proof" "$miner")
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %10s %10s %14s\n' side "wall s" "CPU s" "peak RSS MiB"
printf '%-22s %10.2f %10.2f %14d\n' filsnark "$fs_s" "$(awk -v u="$fs_u" -v s="$fs_sys" 'BEGIN{print u+s}')" $((fs_kb / 1024))
printf '%-22s %10.2f %10.2f %14d\n' filecoin-proofs "$ref_s" "$(awk -v u="$ref_u" -v s="$ref_sys" 'BEGIN{print u+s}')" $((ref_kb / 1024))
awk -v a="$ref_s" -v b="$fs_s" -v au="$ref_u" -v as="$ref_sys" -v bu="$fs_u" -v bs="$fs_sys" \
  'BEGIN { printf "speed-up: %.2fx wall, %.2fx CPU time\n", a / b, (au + as) / (bu + bs) }'
