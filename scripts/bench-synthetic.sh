#!/usr/bin/env bash
# Real-scale PoRep C2 from nothing, in one run on a bare GPU machine (issue 7's bench mode):
# a synthetic c1.json (`filsnark c1 synth`), INSECURE test parameters (`params setup`), one
# proof on the GPU and one on the CPU with the same seed (their bytes must be equal), the
# proof judged by filecoin-proofs' verify_seal, then `bench porep -j J` with its JSON and picture.
#   bash scripts/bench-synthetic.sh SIZE OUTDIR [J]      e.g. 512MiB "$OUT/512mib" 3
# Binaries: $P (default /tmp/filsnark-gpu-pack, as unpacked by gpu-run.sh) holds filsnark and
# verify_seal. SKIP_CPU=1 skips the CPU proof (it takes minutes at 32GiB); SKIP_PROVE=1 skips
# the single proofs too: verify_seal then judges the bench's proofs (kept with --out-dir).
# DEADLINE (epoch seconds) stops the bench in time (SIGINT) for the logs to come back;
# SETUP_DEVICE (default gpu) is params setup's --device. A WORK dir kept from an earlier run
# on the same machine skips the c1.json and the parameters it already holds (SETUP_ONLY=1 stops
# after making them).
set -uo pipefail
SIZE=${1:?usage: bench-synthetic.sh SIZE OUTDIR [J]}
OUT=${2:?usage: bench-synthetic.sh SIZE OUTDIR [J]}
J=${3:-3}
P=${P:-/tmp/filsnark-gpu-pack}
WORK=${WORK:-/tmp/filsnark-synthetic-$SIZE}
mkdir -p "$OUT" "$WORK"
rc=0
TIMEV=(); [ -x /usr/bin/time ] && TIMEV=(/usr/bin/time -v)   # peak RSS where GNU time exists
step() { # name, command...
  local name=$1; shift
  local t0=$(date +%s.%N)
  "${TIMEV[@]}" "$@" > "$OUT/$name.log" 2>&1; local r=$?
  local t1=$(date +%s.%N)
  printf '%-12s rc=%d %8s s  peak RSS %s kB\n' "$name" "$r" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" \
    "$(awk '/Maximum resident/ {print $6}' "$OUT/$name.log")" | tee -a "$OUT/summary.log"
  [ $r -ne 0 ] && rc=1
  return $r
}
left() { echo $(( ${DEADLINE:-$(( $(date +%s) + 86400 ))} - $(date +%s) )); }
if [ ! -f "$WORK/c1.json" ]; then
  step synth $P/filsnark c1 synth --sector-size "$SIZE" --miner-id 1000 --sector-num 7 --seed 5 -o "$WORK/c1.json" || exit 1
fi
if [ ! -f "$WORK/params/.done" ]; then
  step setup $P/filsnark params setup --proof porep --sector-size "$SIZE" --seed 1 --out "$WORK/params" \
    --device "${SETUP_DEVICE:-gpu}" --force && touch "$WORK/params/.done"
  [ -f "$WORK/params/.done" ] || exit 1
fi
df -h "$WORK" > "$OUT/df.log" 2>&1; free -g >> "$OUT/df.log" 2>&1
[ -n "${SETUP_ONLY:-}" ] && exit $rc   # the c1.json and parameters only, for a later run
if [ -z "${SKIP_PROVE:-}" ]; then
step prove-gpu $P/filsnark prove porep --c1 "$WORK/c1.json" --params-dir "$WORK/params" --device gpu --seed 9 -o "$WORK/gpu.proof"
if [ -z "${SKIP_CPU:-}" ]; then
  step prove-cpu $P/filsnark prove porep --c1 "$WORK/c1.json" --params-dir "$WORK/params" --device cpu --seed 9 -o "$WORK/cpu.proof"
  if cmp "$WORK/gpu.proof" "$WORK/cpu.proof"; then echo "GPU and CPU proofs: identical" | tee -a "$OUT/summary.log"
  else echo "GPU and CPU proofs: DIFFERENT" | tee -a "$OUT/summary.log"; rc=1; fi
fi
step verify-seal env FIL_PROOFS_PARAMETER_CACHE="$WORK/params" $P/verify_seal "$WORK/c1.json" "$WORK/gpu.proof" 1000
fi
rm -rf "$WORK/bench-proofs"
step bench timeout -s INT -k 15 "$(left)" $P/filsnark bench porep --c1 "$WORK/c1.json" --params-dir "$WORK/params" \
  --device gpu -j "$J" --seed 9 --out-dir "$WORK/bench-proofs" --json "$OUT/bench.json" --timeline "$OUT/timeline.svg"
if [ -n "${SKIP_PROVE:-}" ]; then
  for f in "$WORK"/bench-proofs/proof-*.bin; do
    [ -f "$f" ] && step "verify-seal-$(basename "$f" .bin)" env FIL_PROOFS_PARAMETER_CACHE="$WORK/params" \
      $P/verify_seal "$WORK/c1.json" "$f" 1000
  done
fi
exit $rc
