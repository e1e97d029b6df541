#!/usr/bin/env bash
# NI-PoRep and SnarkPack figures on the GPU machine (issue 23), from nothing, in one run:
# 1. aggregation of 819 sectors (1,024 proofs) on the machine's CPU, filsnark against
#    filecoin-proofs' aggregate_seal_commit_proofs (scripts/bench-aggregation.sh);
# 2. a real 2KiB NI-PoRep sector (sealed here by filecoin-proofs: c1 synth cannot make NI-PoRep
#    inputs), `bench porep -j J` on the GPU: seconds per sector against 13 × the partition
#    device time, the aggregates made while the next sectors' partitions are proved; one
#    output judged by verify_seal;
# 3. 32GiB: one NI-PoRep partition is the interactive circuit (18 challenges, the same
#    parameters), so `bench porep` over a synthetic interactive 32GiB c1.json gives the
#    partition device time, and aggregate_bench the SnarkPack V2 aggregate of one sector's
#    126 partition proofs (128 after padding). An NI-PoRep c1.json cannot be synthesized: its
#    challenges are drawn from comm_r, which depends on the labels of the challenged nodes,
#    and only sealing (PC1) makes every label consistent.
#   bash scripts/bench-ni-device.sh OUTDIR [PARTS] [J]     (after scripts/gpu-pack.sh here)
# PARTS: a comma-separated subset of agg,ni2k,32gib (default all three; each fits one 10-minute
# device command on its own, 32gib with its parameters made by an earlier SETUP_ONLY=1 run of
# scripts/bench-synthetic.sh or within the same command). J: 2KiB NI-PoRep sectors (default 8).
# Binaries: $P (default /tmp/filsnark-gpu-pack; unpacked from gpu-pack/ when missing).
set -uo pipefail
OUT=${1:?usage: bench-ni-device.sh OUTDIR [PARTS] [J]}
PARTS=${2:-agg,ni2k,32gib}
J=${3:-8}
want() { [[ ",$PARTS," == *",$1,"* ]]; }
cd "$(dirname "$0")/.."
P=${P:-/tmp/filsnark-gpu-pack}
if [ ! -x "$P/seal_2kib" ]; then
  mkdir -p "$P" && cp gpu-pack/COMMIT "$P/" 2>/dev/null
  for f in gpu-pack/*.gz; do gunzip -c "$f" > "$P/$(basename "$f" .gz)" && chmod +x "$P/$(basename "$f" .gz)"; done
fi
WORK=${WORK:-/tmp/filsnark-ni}
mkdir -p "$OUT" "$WORK"
rc=0
TIMEV=(); [ -x /usr/bin/time ] && TIMEV=(/usr/bin/time -f "peak RSS %M kB")
step() { # name, command...
  local name=$1; shift
  local t0=$(date +%s.%N)
  "${TIMEV[@]}" "$@" > "$OUT/$name.log" 2>&1; local r=$?
  local t1=$(date +%s.%N)
  printf '%-12s rc=%d %8s s\n' "$name" "$r" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" | tee -a "$OUT/summary.log"
  [ $r -ne 0 ] && rc=1
  return $r
}
{ echo "date: $(date -u +%FT%TZ)"; echo "commit: $(cat $P/COMMIT 2>/dev/null)"; nproc; nvidia-smi -L; } > "$OUT/env.log" 2>&1

params=$WORK/params-2kib
stem=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f
[ -f "$params/$stem.params" ] || step setup2k $P/filsnark params setup --proof porep --sector-size 2KiB --seed 1 --out "$params" --force

# 1. Aggregation of 819 sectors on the CPU (filsnark and filecoin-proofs; the bytes must agree).
want agg && step agg819 env BIN="$P" bash scripts/bench-aggregation.sh "$params" "$OUT/agg" 819

# 2. 2KiB NI-PoRep sectors on the GPU.
if want ni2k; then
  [ -f "$params/v28-fil-inner-product-v1.srs" ] ||
    step srs $P/filsnark params setup --proof aggregation --max-proofs 16 --seed 1 --out "$params" --force
  step seal-ni $P/seal_2kib "$WORK/c1-ni.json" 1000 1 42 StackedDrg2KiBV1_2_Feat_NonInteractivePoRep
  rm -rf "$WORK/ni-proofs"
  step bench-ni $P/filsnark bench porep --c1 "$WORK/c1-ni.json" --params-dir "$params" --device gpu -j "$J" --seed 9 \
    --out-dir "$WORK/ni-proofs" --json "$OUT/bench-ni.json" --timeline "$OUT/timeline-ni.svg"
  step verify-ni env FIL_PROOFS_PARAMETER_CACHE="$params" $P/verify_seal "$WORK/c1-ni.json" "$WORK/ni-proofs/proof-000.bin" 1000
fi

# 3. 32GiB: the partition device time (interactive partitions, NI's circuit) and the aggregate of 126.
if want 32gib; then
  step bench32 env P="$P" SKIP_PROVE=1 WORK="${WORK32:-/tmp/filsnark-synthetic-32GiB}" DEADLINE="${DEADLINE:-}" \
    bash scripts/bench-synthetic.sh 32GiB "$OUT/32gib" 3
  step agg126 $P/aggregate_bench "$params" 126 SnarkPackV2
fi
grep -h -E 'seconds|speed-up|identical|aggregate|filecoin-proofs|filsnark' "$OUT/agg/"*.log "$OUT/agg126.log" 2>/dev/null | tee -a "$OUT/summary.log"
exit $rc
