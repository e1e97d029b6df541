#!/usr/bin/env bash
# Assembles every PTX module exactly as the driver sees it (composed from the
# parts listed in ptx/MODULES, the same concatenation build.rs performs) with
# ptxas 13.0.88 for sm_90, and fails on an assembler error or on any spill.
# Installs ptxas (pip package nvidia-cuda-nvcc==13.0.88) when it is missing.
# Usage: scripts/ptx-check.sh [-v]   (-v prints the per-kernel resource lines)
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=13.0.88
find_ptxas() {
  python3 - <<'PY' 2>/dev/null
import os, importlib.util
spec = importlib.util.find_spec("nvidia")
for base in (spec.submodule_search_locations if spec else []):
    p = os.path.join(base, "cu13", "bin", "ptxas")
    if os.path.exists(p):
        print(p)
        break
PY
}
PTXAS="${PTXAS:-$(find_ptxas || true)}"
# (read the version into a variable: with pipefail, `ptxas --version | grep -q`
# can fail when grep closes the pipe early)
ver() { "$PTXAS" --version 2>/dev/null || true; }
if [ -z "$PTXAS" ] || [[ "$(ver)" != *"V${VERSION}"* ]]; then
  echo "ptx-check: installing nvidia-cuda-nvcc==${VERSION}" >&2
  python3 -m pip install -q "nvidia-cuda-nvcc==${VERSION}" >&2
  PTXAS="$(find_ptxas)"
fi
[[ "$(ver)" == *"V${VERSION}"* ]] || { echo "ptx-check: need ptxas ${VERSION}, got: $(ver | tail -1)" >&2; exit 1; }
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
fail=0
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue;; esac
  name="${line%%:*}"; parts="${line##*|}"
  out="$TMP/$name.ptx"; : > "$out"
  for p in $parts; do cat "ptx/$p" >> "$out"; done
  if ! "$PTXAS" -arch=sm_90 -v "$out" -o "$TMP/$name.cubin" > "$TMP/$name.log" 2>&1; then
    echo "FAIL $name: ptxas error"; grep -v "^ptxas info" "$TMP/$name.log" | head -20; fail=1; continue
  fi
  # ABI functions report "spill stores/loads"; without the ABI (our multi-return
  # .funcs) ptxas reports spilled registers as "bytes lmem". Both fail.
  spills=$(grep -E "[1-9][0-9]* bytes (spill (stores|loads)|lmem)" "$TMP/$name.log" || true)
  stack=$(grep -E "[1-9][0-9]* bytes stack frame" "$TMP/$name.log" || true)
  nk=$(grep -c "Compiling entry function" "$TMP/$name.log" || true)
  maxreg=$(grep -oE "Used [0-9]+ registers" "$TMP/$name.log" | awk '{print $2}' | sort -n | tail -1)
  if [ -n "$spills" ]; then
    echo "FAIL $name: spills"; grep -B1 -E "[1-9][0-9]* bytes (spill|lmem)" "$TMP/$name.log" | head -20; fail=1
  else
    echo "ok   $name: $nk kernels, max $maxreg registers, no spills${stack:+ (stack frame present)}"
  fi
  [ "${1:-}" = "-v" ] && grep -E "Compiling entry|Used|spill" "$TMP/$name.log"
done < ptx/MODULES
exit $fail
