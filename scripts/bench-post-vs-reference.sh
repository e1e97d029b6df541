#!/usr/bin/env bash
# filsnark's CPU WindowPoSt, WinningPoSt and SnapDeals provers against filecoin-proofs' own, on
# the same input, parameters and machine: wall time, ratio and peak RSS of each, then
# filsnark's verifier on the reference proof (and the reverse is the tests' job).
# Needs 2KiB (or SIZE) window-post, winning-post and snap parameters in PARAMS_DIR under their
# official names (filsnark params setup --proof KIND --sector-size SIZE --out PARAMS_DIR).
# Usage: scripts/bench-post-vs-reference.sh PARAMS_DIR [SIZE] [REPEATS]
# Run it on a quiet machine: both sides use every core. Binaries come from $CARGO_TARGET_DIR
# (default target/).
set -euo pipefail
cd "$(dirname "$0")/.."
params=${1:?usage: $0 PARAMS_DIR [SIZE] [REPEATS]}
size=${2:-2KiB}
repeats=${3:-1}
cargo build --release -q --bin filsnark --example reference_post
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
bin=${CARGO_TARGET_DIR:-target}/release
fs=$bin/filsnark
# wall seconds, CPU seconds (user + system), peak RSS in KiB
measure() { /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" > "$out/log" 2>&1 || { cat "$out/log"; exit 1; }; awk '{ print $1, $2 + $3, $4 }' "$out/time"; }
$fs post synth --proof window-post --sector-size "$size" -o "$out/window-post.json" --seed 1 > /dev/null
$fs post synth --proof winning-post --sector-size "$size" -o "$out/winning-post.json" --seed 2 > /dev/null
$fs snap synth --sector-size "$size" -o "$out/snap.json" --seed 3 > /dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-14s %-8s %9s %9s %8s %9s %9s %8s %9s %9s\n' kind size "ours s" "ref s" ratio "ours cpu" "ref cpu" "cpu rat" "ours MiB" "ref MiB"
for kind in window-post winning-post snap; do
  for i in $(seq "$repeats"); do
    read -r fs_s fs_cpu fs_kb < <(measure $fs prove "$kind" --in "$out/$kind.json" --params-dir "$params" -o "$out/ours.proof")
    read -r ref_s ref_cpu ref_kb < <(FIL_PROOFS_PARAMETER_CACHE="$params" measure "$bin/examples/reference_post" "$kind" "$out/$kind.json" "$out/ref.proof")
    $fs verify "$kind" --in "$out/$kind.json" --params-dir "$params" --proof "$out/ref.proof" > /dev/null
    awk -v k="$kind" -v z="$size" -v a="$fs_s" -v b="$ref_s" -v e="$fs_cpu" -v f="$ref_cpu" -v c="$fs_kb" -v d="$ref_kb" \
      'BEGIN { printf "%-14s %-8s %9.2f %9.2f %7.2fx %9.2f %9.2f %7.2fx %9d %9d\n", k, z, a, b, b / a, e, f, f / e, c / 1024, d / 1024 }'
  done
done
