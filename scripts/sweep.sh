#!/usr/bin/env bash
# The c × j grid of `filsnark bench porep` (the seed's sweep: syntheses at once × proofs),
# one JSON report per point, then a summary table.
#
# Usage: scripts/sweep.sh [options] [--c1 FILE]...
#   --c1 FILE          input (repeatable; default: the built-in 2KiB sample). Each input is swept
#                      on its own grid (one per sector size you pass), unless --mix is given.
#   --mix              put all --c1 inputs into every run (proofs cycle through them)
#   -c "LIST"          syntheses at once to try (default: "1 2 4 8 15")
#   -j "LIST"          proofs per run to try (default: "10")
#   --mem-budget SIZE  memory budget for every run (default: filsnark's, 90% of MemAvailable)
#   --params-dir DIR   parameter directory (default: filsnark's)
#   --miner-id N       miner the inputs were sealed for (default 1000)
#   --seed N           reproducible r, s
#   --out DIR          where reports go (default /tmp/filsnark-sweep); per point
#                      <label>-c<C>-j<J>.json, .svg and .txt (the run's stdout and stderr)
#   --bin PATH         filsnark binary (default: build target/release/filsnark)
# Example (the seed's grid on a 32GiB c1):
#   scripts/sweep.sh --c1 /data/32g/c1.json -c "3 5 10 15 20 30" -j "10" --mem-budget 600GiB
# Output: the summary table on stdout (also <out>/summary.tsv): one line per point with
#   s/proof, proofs/hour, device busy %, mean synthesis/queue/device s, peak RSS, limits.
# A point that fails (e.g. a budget smaller than one partition) is reported as FAILED and the
# sweep goes on; the exit status is 1 if any point failed.
set -euo pipefail
cd "$(dirname "$0")/.."

c1s=()
mix=0
cs="1 2 4 8 15"
js="10"
extra=()
out=/tmp/filsnark-sweep
bin=
while [ $# -gt 0 ]; do
  case "$1" in
    --c1) c1s+=("$2"); shift 2 ;;
    --mix) mix=1; shift ;;
    -c) cs="$2"; shift 2 ;;
    -j) js="$2"; shift 2 ;;
    --mem-budget|--params-dir|--miner-id|--seed) extra+=("$1" "$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "sweep.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  cargo build --release --bin filsnark >&2
  bin=target/release/filsnark
fi
mkdir -p "$out"

# Groups of inputs: one per --c1, or all together with --mix; label = file stem.
groups=()
labels=()
if [ ${#c1s[@]} -eq 0 ]; then
  groups+=("")
  labels+=("sample-2kib")
elif [ $mix -eq 1 ]; then
  g=""
  for f in "${c1s[@]}"; do g+="--c1"$'\t'"$f"$'\t'; done
  groups+=("$g")
  labels+=("mix")
else
  for f in "${c1s[@]}"; do
    groups+=("--c1"$'\t'"$f"$'\t')
    b=$(basename "$f"); labels+=("${b%.*}")
  done
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB RAM"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src 2>/dev/null || echo '+dirty')"
failed=0
reports=()
for gi in "${!groups[@]}"; do
  IFS=$'\t' read -r -a inputs <<< "${groups[$gi]}"
  label=${labels[$gi]}
  for j in $js; do
    for c in $cs; do
      base="$out/$label-c$c-j$j"
      echo "== $label c=$c j=$j" >&2
      if "$bin" bench porep "${inputs[@]}" -j "$j" -c "$c" "${extra[@]}" \
          --json "$base.json" --timeline "$base.svg" >"$base.txt" 2>&1; then
        reports+=("$label	$c	$j	$base.json")
      else
        failed=1
        reports+=("$label	$c	$j	FAILED:$base.txt")
        tail -3 "$base.txt" >&2
      fi
    done
  done
done

printf '%s\n' "${reports[@]}" | python3 -c '
import json, sys
rows = [l.rstrip("\n").split("\t") for l in sys.stdin if l.strip()]
head = ["input", "c", "j", "s/proof", "proofs/h", "dev busy%", "synth s", "queue s", "device s", "peak RSS GiB", "in flight", "host permits"]
out = []
for label, c, j, path in rows:
    if path.startswith("FAILED:"):
        out.append([label, c, j, "FAILED (" + path[7:] + ")"])
        continue
    r = json.load(open(path))
    s, m = r["summary"], r["memory"]
    out.append([label, c, j, "%.3f" % r["throughput_s_per_proof"], "%.1f" % r["proofs_per_hour"],
                "%.1f" % (100 * r["device_busy_fraction"]), "%.3f" % s["synthesis_s"]["mean"],
                "%.3f" % s["queue_wait_s"]["mean"], "%.3f" % s["device_s"]["mean"],
                "%.2f" % (r["peak_rss_bytes"] / 2**30), str(m["in_flight_max"]), str(m["host_permits"])])
w = [max(len(x[i]) for x in [head] + out if i < len(x)) for i in range(len(head))]
for row in [head] + out:
    print("  ".join(v.rjust(w[i]) if i else v.ljust(w[i]) for i, v in enumerate(row)))
with open(sys.argv[1], "w") as f:
    for row in [head] + out:
        f.write("\t".join(row) + "\n")
' "$out/summary.tsv"
echo "reports: $out (summary.tsv)"
exit $failed
