#!/usr/bin/env bash
# The one command run on the GPU machine: every GPU check and benchmark, logs
# into OUTDIR (the caller tars them: only a few files come back).
#   bash scripts/gpu-run.sh OUTDIR        (after scripts/gpu-pack.sh here)
# Environment: SELFTEST_N (default 1048576 elements per operation).
set -uo pipefail
OUT="${1:?usage: gpu-run.sh OUTDIR}"
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
# The pack's binaries are gzipped (scripts/gpu-pack.sh): unpacked into /tmp here.
P=/tmp/filsnark-gpu-pack
mkdir -p $P && cp gpu-pack/COMMIT $P/ 2>/dev/null
for f in gpu-pack/*.gz; do gunzip -c "$f" > "$P/$(basename "$f" .gz)" && chmod +x "$P/$(basename "$f" .gz)"; done
N="${SELFTEST_N:-1048576}"
rc=0
{
  echo "date: $(date -u +%FT%TZ)"; echo "commit: $(cat $P/COMMIT 2>/dev/null)"; uname -a
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
} > "$OUT/env.log" 2>&1
nvidia-smi dmon -s pc -d 1 > "$OUT/dmon.log" 2>&1 &
DMON=$!
step() { # name, command...
  local name=$1; shift
  local t0=$(date +%s.%N)
  "$@" > "$OUT/$name.log" 2>&1; local r=$?
  local t1=$(date +%s.%N)
  printf '%-10s rc=%d  %s s\n' "$name" "$r" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" | tee -a "$OUT/summary.log"
  [ $r -ne 0 ] && rc=1
  return 0
}
step info     $P/filsnark info
step selftest $P/filsnark selftest gpu --n "$N"
step bench    $P/filsnark bench kernels --max-log "${BENCH_MAX_LOG:-27}"
# Every packed GPU test binary, with the packed filsnark and test parameters made here.
export FILSNARK_BIN=$P/filsnark FILSNARK_EXPECT_GPU=1
for t in $P/gpu_*; do
  FILSNARK_SELFTEST_N=65536 step "$(basename "$t")" "$t" --include-ignored --test-threads=1 --nocapture
done
step setuppts $P/filsnark bench setup-points --chunks 2
# The built-in 2KiB sample on the GPU, then the pipeline (GPU sweep of issue 6) with its picture.
step prove    $P/filsnark prove porep --device gpu --seed 1 -o "$OUT/sample.proof"
step benchporep $P/filsnark bench porep --device gpu -j "${BENCH_J:-16}" --json "$OUT/bench-porep.json" --timeline "$OUT/timeline.svg"
step memcheck timeout 300 compute-sanitizer --tool memcheck --print-limit 20 $P/filsnark selftest gpu --n 4096
kill $DMON 2>/dev/null
{
  echo "== summary"; cat "$OUT/summary.log"
  echo "== info"; grep -E "CUDA driver|device|PTX:|FAILED|local memory" "$OUT/info.log"
  echo "== selftest"; grep -E "FAIL|PASS|self-test" "$OUT/selftest.log"
  echo "== memcheck"; grep -E "ERROR SUMMARY|PASS|FAIL" "$OUT/memcheck.log" | tail -3
  echo "== tests"; grep -E "test result|FAILED|panicked" "$OUT"/gpu_*.log
  echo "== bench"; cat "$OUT/bench.log"
  echo "== bench setup-points"; cat "$OUT/setuppts.log"
  echo "== prove"; cat "$OUT/prove.log"
  echo "== bench porep"; cat "$OUT/benchporep.log"
  echo "== clocks (dmon: mclk pclk MHz, count)"; awk '!/^#/ {print $5, $6}' "$OUT/dmon.log" | sort | uniq -c | sort -rn | head -5
} | tee -a "$OUT/summary.log"
exit $rc
