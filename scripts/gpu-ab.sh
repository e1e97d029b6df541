#!/usr/bin/env bash
# A against B on one GPU machine: the bench of two (or more) builds of filsnark, one after the
# other on the same card, synthetic c1.json and parameters (SIZE, default 32GiB), with each MSM's
# phase times (FILSNARK_MSM_PHASES) and every proof judged by verify_seal.
# First the GPU tests of the pack's build (B): TESTS, default "gpu_prover gpu_msm".
#   bash scripts/gpu-ab.sh OUTDIR SECONDS [J] [CAP]     (after scripts/gpu-pack.sh here)
# A is gpu-pack/filsnark-base.gz (copy an earlier pack's filsnark.gz there), B gpu-pack/filsnark.gz.
# CAP (GiB, optional) runs both under --gpu-mem-cap. SKIP_TESTS=1 leaves out the tests.
# BINS: the builds in gpu-pack to run, in order (default "filsnark-base filsnark").
set -uo pipefail
O=${1:?usage}; SECS=${2:-560}; J=${3:-3}; CAP=${4:-}
T=$(( $(date +%s) + SECS ))
cd "$(dirname "$0")/.."
. scripts/gpu-unpack.sh
if [ -z "${SKIP_TESTS:-}" ]; then
  for t in ${TESTS:-gpu_prover gpu_msm}; do
    timeout 200 $P/$t --include-ignored --test-threads=1 > "$O/$t.log" 2>&1
    echo "$t rc=$? $(grep -h 'test result' "$O/$t.log")" | tee -a "$O/summary.log"
  done
fi
SIZE=${SIZE:-32GiB}
env DEADLINE=$T SKIP_PROVE=1 SETUP_ONLY=1 bash scripts/bench-synthetic.sh "$SIZE" "$O/setup" "$J"
W=/tmp/filsnark-synthetic-$SIZE
arg=(); [ -n "$CAP" ] && arg=(--gpu-mem-cap "${CAP}GiB")
for b in ${BINS:-filsnark-base filsnark}; do
  left=$(( T - $(date +%s) - 20 ))
  if [ $left -lt 60 ]; then echo "$b: skipped (deadline)" | tee -a "$O/summary.log"; continue; fi
  rm -rf "$W/p-$b"
  FILSNARK_MSM_PHASES=1 /usr/bin/time -v timeout -s INT -k 10 $left $P/$b bench porep --c1 $W/c1.json \
    --params-dir $W/params --device gpu -j "$J" --seed 9 "${arg[@]}" --out-dir "$W/p-$b" --json "$O/$b.json" > "$O/$b.log" 2>&1
  echo "$b rc=$? $(grep -E 's/proof' "$O/$b.log" | tail -1)  peak RSS $(awk '/Maximum resident/ {print $6}' "$O/$b.log") kB" | tee -a "$O/summary.log"
  ok=0; bad=0
  for f in "$W/p-$b"/proof-*.bin; do
    [ -f "$f" ] || continue
    if env FIL_PROOFS_PARAMETER_CACHE=$W/params $P/verify_seal $W/c1.json "$f" 1000 >> "$O/verify-$b.log" 2>&1
    then ok=$((ok+1)); else bad=$((bad+1)); fi
  done
  echo "$b verify_seal ok=$ok bad=$bad" | tee -a "$O/summary.log"
done
