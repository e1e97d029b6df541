#!/usr/bin/env bash
# One device call for witness-only proving and the memory plan: the GPU tests of the prover
# (2KiB PoRep with the constraints evaluated on the device and with the gadgets' assignment,
# both against the CPU's bytes and verify_seal), then a 32GiB bench from a synthetic c1.json
# (scripts/bench-synthetic.sh, proofs judged by verify_seal) and the --gpu-mem-cap sweep
# (scripts/bench-caps.sh) while time remains. Logs go to OUTDIR.
#   bash scripts/gpu-witness-run.sh OUTDIR SECONDS "CAPS"     (after scripts/gpu-pack.sh here)
# J: proofs of the whole-card bench (default 3). SKIP_TESTS=1, SKIP_BENCH=1, SKIP_WITNESS=1 leave
# out the GPU tests with the 2KiB proof, the whole-card bench, the host-stage bench.
set -uo pipefail
O=${1:?usage}; SECS=${2:-560}; CAPS=${3:-"48 24"}
T=$(( $(date +%s) + SECS ))
cd "$(dirname "$0")/.."
. scripts/gpu-unpack.sh
[ -z "${SKIP_TESTS:-}" ] && for t in gpu_prover gpu_kernels gpu_post_snap; do
  [ -x $P/$t ] || continue
  timeout 150 $P/$t --include-ignored --test-threads=1 > "$O/$t.log" 2>&1
  echo "$t rc=$? $(grep -h 'test result' "$O/$t.log")" | tee -a "$O/summary.log"
done
if [ -z "${SKIP_TESTS:-}" ]; then
  $P/filsnark prove porep --device gpu --seed 1 -o "$O/sample.bin" > "$O/prove2k.log" 2>&1
  echo "prove2k rc=$?" | tee -a "$O/summary.log"
fi
# With SKIP_BENCH the c1.json and parameters are still made (or kept from an earlier call).
env DEADLINE=$T SKIP_PROVE=1 ${SKIP_BENCH:+SETUP_ONLY=1} bash scripts/bench-synthetic.sh 32GiB "$O/s" "${J:-3}"
echo "32GiB bench rc=$?" | tee -a "$O/summary.log"
# One 32GiB partition's host stage both ways (native + evaluation against the gadgets), core-seconds.
left=$(( T - $(date +%s) - 100 ))
[ -z "${SKIP_WITNESS:-}" ] && [ $left -gt 60 ] && timeout $left $P/filsnark bench witness --c1 /tmp/filsnark-synthetic-32GiB/c1.json \
  --miner-id 1000 --sector-num 7 --partition 9 > "$O/bench-witness.log" 2>&1
echo "bench witness rc=$?" | tee -a "$O/summary.log"
DEADLINE=$T MIN_LEFT=100 bash scripts/bench-caps.sh 32GiB "$O/caps" "$CAPS" 2
echo "caps rc=$?" | tee -a "$O/summary.log"
cat "$O/s/summary.log" "$O/caps/summary.log" 2>/dev/null
grep -hE "device phase|s/proof|plan|peak|resident|stream" "$O/s/bench.log" 2>/dev/null | head -20
