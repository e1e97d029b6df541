#!/usr/bin/env bash
# Benchmark `filsnark params setup`: wall time and peak RSS per sector size.
# Usage: scripts/bench-setup.sh [SIZE...]            (default: 2KiB)
#   e.g. scripts/bench-setup.sh 2KiB 8MiB 512MiB
# Env: OUT (scratch directory, default /tmp/filsnark-bench-setup; emptied per size),
#      SEED (default 1), KEEP=1 keeps the generated files.
# Prints one line per size: size, wall s, peak RSS MiB, user s, sys s, .params bytes, and the
# tool's own phase timings above it.
# On a shared machine, other jobs take CPU time from the run: `nice -n -10 scripts/bench-setup.sh`
# (as root) gives it the cores first; the user/sys times are the load-independent figure.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(2KiB)
out=${OUT:-/tmp/filsnark-bench-setup}
seed=${SEED:-1}
cargo build --release --bin filsnark >&2
bin=target/release/filsnark
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB RAM"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+dirty')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
summary=()
for size in "${sizes[@]}"; do
  dir="$out/$size"
  rm -rf "$dir"
  mkdir -p "$dir"
  log="$out/$size.time"
  /usr/bin/time -v "$bin" params setup --proof porep --sector-size "$size" --seed "$seed" --out "$dir" 2>"$log"
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$log" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  rss=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$log")
  user=$(awk -F': ' '/User time/{print $2}' "$log")
  sys=$(awk -F': ' '/System time/{print $2}' "$log")
  bytes=$(stat -c %s "$dir"/*.params)
  summary+=("$(printf '%-7s wall %8.1f s  peak RSS %7s MiB  user %8.1f s  sys %6.1f s  params %s B' "$size" "$wall" "$rss" "$user" "$sys" "$bytes")")
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${summary[@]}"
