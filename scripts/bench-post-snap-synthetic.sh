#!/usr/bin/env bash
# Real-scale WindowPoSt, WinningPoSt and SnapDeals from nothing, in one run on a bare GPU
# machine: synthetic inputs (`post synth`: one full WindowPoSt partition, 2,349 sectors at
# 32GiB; `snap synth`: 16 partitions at 32GiB), INSECURE test parameters (`params setup
# --device gpu`), one proof of each on the GPU judged by filecoin-proofs' own verifier, the
# same proof on the CPU with the same seed where CPU=1 (bytes must be equal), then
# `bench KIND -j J` with its JSON (seconds, synthesis/device split, peak RSS) and timeline.
# GADGETS=1 also proves with the crates' gadget synthesis (--witness gadgets) on the GPU, whose
# bytes must equal the native witness's (the default). REF=1 then also runs filecoin-proofs' own prover (CPU: the crates are built without their GPU
# features) on the same input and parameters, with its seconds and peak RSS, and judges its proof
# with filsnark's verifier (at 32GiB this takes many minutes: mind DEADLINE). FIELD_AB=1 also
# proves and benches the PoSt kinds with FILSNARK_FIELD_WITNESS=device (the witness evaluated and
# its queries expanded on the device instead of on the host; docs/tuning.md), bytes compared.
#   bash scripts/bench-post-snap-synthetic.sh SIZE OUTDIR [J] [KINDS]
#   e.g. bash scripts/bench-post-snap-synthetic.sh 32GiB "$OUT/post" 2 "window-post snap"
# Binaries: $P (default /tmp/filsnark-gpu-pack, as unpacked by gpu-run.sh) holds filsnark,
# verify_post and reference_post. WORK (default /tmp/filsnark-synthetic-post-SIZE) keeps inputs and parameters
# between runs on the same machine, each kind's parameters in WORK/params/KIND; SETUP_ONLY=1
# stops after making them. DROP_PARAMS=1 makes each kind's parameters just before its runs and
# deletes them after, so that several 32GiB kinds fit a small disk (WindowPoSt's and SnapDeals'
# together need more than a 64 GiB disk has free). DEADLINE (epoch seconds) stops the bench in
# time (SIGINT) for the logs to come back.
set -uo pipefail
SIZE=${1:?usage: bench-post-snap-synthetic.sh SIZE OUTDIR [J] [KINDS]}
OUT=${2:?usage: bench-post-snap-synthetic.sh SIZE OUTDIR [J] [KINDS]}
J=${3:-2}
KINDS=${4:-window-post winning-post snap}
P=${P:-/tmp/filsnark-gpu-pack}
WORK=${WORK:-/tmp/filsnark-synthetic-post-$SIZE}
mkdir -p "$OUT" "$WORK/params"
rc=0
TIMEV=(); [ -x /usr/bin/time ] && TIMEV=(/usr/bin/time -v)   # peak RSS where GNU time exists
step() { # name, command...
  local name=$1; shift
  local t0=$(date +%s.%N)
  "${TIMEV[@]}" "$@" > "$OUT/$name.log" 2>&1; local r=$?
  local t1=$(date +%s.%N)
  printf '%-22s rc=%d %8s s  peak RSS %s kB\n' "$name" "$r" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" \
    "$(awk '/Maximum resident/ {print $6}' "$OUT/$name.log")" | tee -a "$OUT/summary.log"
  [ $r -ne 0 ] && rc=1
  return $r
}
left() { echo $(( ${DEADLINE:-$(( $(date +%s) + 86400 ))} - $(date +%s) )); }
pd() { echo "$WORK/params/$1"; }   # a kind's parameter directory
prepare() { # kind: its synthetic input and INSECURE parameters, unless made already
  local kind=$1 in="$WORK/$1.json"
  if [ ! -f "$in" ]; then
    case $kind in
      snap) step "synth-$kind" $P/filsnark snap synth --sector-size "$SIZE" --seed 5 -o "$in" || exit 1 ;;
      *) step "synth-$kind" $P/filsnark post synth --proof "$kind" --sector-size "$SIZE" --seed 5 -o "$in" || exit 1 ;;
    esac
  fi
  if [ ! -f "$(pd "$kind")/.done" ]; then
    mkdir -p "$(pd "$kind")"
    step "setup-$kind" $P/filsnark params setup --proof "$kind" --sector-size "$SIZE" --seed 1 --out "$(pd "$kind")" \
      --device "${SETUP_DEVICE:-gpu}" --force && touch "$(pd "$kind")/.done"
    [ -f "$(pd "$kind")/.done" ] || exit 1
  fi
  df -h "$WORK" > "$OUT/df-$kind.log" 2>&1; free -g >> "$OUT/df-$kind.log" 2>&1
}
if [ -z "${DROP_PARAMS:-}" ] || [ -n "${SETUP_ONLY:-}" ]; then
  for kind in $KINDS; do prepare "$kind"; done
fi
[ -n "${SETUP_ONLY:-}" ] && exit $rc
for kind in $KINDS; do
  in="$WORK/$kind.json"
  prepare "$kind"
  params="$(pd "$kind")"
  step "prove-gpu-$kind" $P/filsnark prove "$kind" --in "$in" --params-dir "$params" --device gpu --seed 9 -o "$WORK/$kind-gpu.proof"
  step "verify-$kind" env FIL_PROOFS_PARAMETER_CACHE="$params" $P/verify_post "$kind" "$in" "$WORK/$kind-gpu.proof"
  if [ -n "${GADGETS:-}" ]; then
    step "prove-gpu-gadgets-$kind" $P/filsnark prove "$kind" --in "$in" --params-dir "$params" --device gpu --seed 9 \
      --witness gadgets -o "$WORK/$kind-gadgets.proof"
    if cmp "$WORK/$kind-gpu.proof" "$WORK/$kind-gadgets.proof"; then echo "$kind: native and gadget witnesses give identical proofs" | tee -a "$OUT/summary.log"
    else echo "$kind: native and gadget witnesses give DIFFERENT proofs" | tee -a "$OUT/summary.log"; rc=1; fi
  fi
  fielddev=""; [ -n "${FIELD_AB:-}" ] && [ "$kind" != snap ] && fielddev=1
  if [ -n "$fielddev" ]; then
    step "prove-gpu-fielddev-$kind" env FILSNARK_FIELD_WITNESS=device $P/filsnark prove "$kind" --in "$in" \
      --params-dir "$params" --device gpu --seed 9 -o "$WORK/$kind-fielddev.proof"
    if cmp "$WORK/$kind-gpu.proof" "$WORK/$kind-fielddev.proof"; then echo "$kind: host and device evaluation give identical proofs" | tee -a "$OUT/summary.log"
    else echo "$kind: host and device evaluation give DIFFERENT proofs" | tee -a "$OUT/summary.log"; rc=1; fi
  fi
  if [ -n "${CPU:-}" ]; then
    step "prove-cpu-$kind" $P/filsnark prove "$kind" --in "$in" --params-dir "$params" --device cpu --seed 9 -o "$WORK/$kind-cpu.proof"
    if cmp "$WORK/$kind-gpu.proof" "$WORK/$kind-cpu.proof"; then echo "$kind: GPU and CPU proofs identical" | tee -a "$OUT/summary.log"
    else echo "$kind: GPU and CPU proofs DIFFERENT" | tee -a "$OUT/summary.log"; rc=1; fi
  fi
  step "bench-$kind" timeout -s INT -k 15 "$(left)" $P/filsnark bench "$kind" --in "$in" --params-dir "$params" \
    --device gpu -j "$J" --seed 9 --json "$OUT/bench-$kind.json" --timeline "$OUT/timeline-$kind.svg"
  if [ -n "$fielddev" ]; then
    step "bench-fielddev-$kind" env FILSNARK_FIELD_WITNESS=device timeout -s INT -k 15 "$(left)" $P/filsnark bench \
      "$kind" --in "$in" --params-dir "$params" --device gpu -j "$J" --seed 9 --json "$OUT/bench-fielddev-$kind.json" \
      --timeline "$OUT/timeline-fielddev-$kind.svg"
  fi
  if [ -n "${REF:-}" ]; then
    step "reference-$kind" timeout -s INT -k 15 "$(left)" env FIL_PROOFS_PARAMETER_CACHE="$params" \
      $P/reference_post "$kind" "$in" "$WORK/$kind-ref.proof" &&
      step "verify-ref-$kind" $P/filsnark verify "$kind" --in "$in" --params-dir "$params" --proof "$WORK/$kind-ref.proof"
  fi
  [ -n "${DROP_PARAMS:-}" ] && rm -rf "$params"
done
exit $rc
