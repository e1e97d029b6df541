#!/usr/bin/env bash
# The device-memory sweep of the 32GiB plan: `bench porep` under each --gpu-mem-cap, with
# device memory sampled every second (peak against the printed plan), peak RSS, and every
# proof judged by filecoin-proofs' verify_seal.
#   bash scripts/bench-caps.sh SIZE OUTDIR "CAP..." [PROOFS]   e.g. 32GiB "$OUT/caps" "80 48 24" 3
# Needs the c1.json and parameters of scripts/bench-synthetic.sh (same WORK dir) and the
# unpacked pack in $P. DEADLINE (epoch seconds): a cap is skipped when under MIN_LEFT
# (default 150) seconds remain, and a running bench is stopped (SIGINT) at the deadline.
# CAP "none" runs without --gpu-mem-cap (the whole card). EXTRA: more bench arguments (e.g.
# "--pin-host-mem 0"); TAG: a suffix for the cap's folder and summary line (an A/B in one OUTDIR).
set -uo pipefail
SIZE=${1:?usage}; OUT=${2:?usage}; CAPS=${3:?usage}; J=${4:-3}
P=${P:-/tmp/filsnark-gpu-pack}
WORK=${WORK:-/tmp/filsnark-synthetic-$SIZE}
mkdir -p "$OUT"
TIMEV=(); [ -x /usr/bin/time ] && TIMEV=(/usr/bin/time -v)
left() { echo $(( ${DEADLINE:-$(( $(date +%s) + 86400 ))} - $(date +%s) )); }
rc=0
for cap in $CAPS; do
  if [ "$(left)" -lt "${MIN_LEFT:-150}" ]; then echo "cap $cap: skipped (deadline)" | tee -a "$OUT/summary.log"; continue; fi
  arg=(); [ "$cap" != none ] && arg=(--gpu-mem-cap "${cap}GiB")
  read -r -a extra <<< "${EXTRA:-}"
  arg+=("${extra[@]}")
  d="$OUT/cap-$cap${TAG:+-$TAG}"; mkdir -p "$d"; rm -rf "$WORK/caps-proofs"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 > "$d/mem.log" 2>/dev/null &
  SMI=$!
  t0=$(date +%s.%N)
  "${TIMEV[@]}" timeout -s INT -k 15 "$(left)" $P/filsnark bench porep --c1 "$WORK/c1.json" \
    --params-dir "$WORK/params" --device gpu -j "$J" --seed 9 "${arg[@]}" \
    --out-dir "$WORK/caps-proofs" --json "$d/bench.json" > "$d/bench.log" 2>&1
  r=$?; t1=$(date +%s.%N)
  kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
  ok=0; bad=0
  for f in "$WORK"/caps-proofs/proof-*.bin; do
    [ -f "$f" ] || continue
    if env FIL_PROOFS_PARAMETER_CACHE="$WORK/params" $P/verify_seal "$WORK/c1.json" "$f" 1000 >> "$d/verify.log" 2>&1
    then ok=$((ok+1)); else bad=$((bad+1)); fi
  done
  printf 'cap %-5s %s rc=%d %7.1f s  peak device %s MiB  peak RSS %s kB  verify_seal ok=%d bad=%d\n' "$cap" "${TAG:-}" "$r" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$(sort -n "$d/mem.log" | tail -1)" \
    "$(awk '/Maximum resident/ {print $6}' "$d/bench.log")" "$ok" "$bad" | tee -a "$OUT/summary.log"
  grep -iE "plan|resident|stream|pinned|peak|s/proof|error|warning|out of memory|retry" "$d/bench.log" | head -30 >> "$OUT/summary.log"
  { [ $r -ne 0 ] || [ $bad -ne 0 ]; } && rc=1
done
exit $rc
