#!/usr/bin/env bash
# Builds what the GPU machine runs (it has no Rust toolchain) into the
# git-ignored folder gpu-pack/: the release binary filsnark and the
# #[ignore]d GPU integration tests, debug info
# stripped so the travelling tree stays small. Checks the PTX first.
# Then, on the GPU machine: scripts/gpu-run.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ptx-check.sh
cargo build --release --bin filsnark
tests=$(cargo test --release --no-run --test gpu_kernels --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "gpu_kernels":
        print(m["executable"])')
rm -rf gpu-pack && mkdir -p gpu-pack
for b in target/release/filsnark; do
  objcopy --strip-debug "$b" "gpu-pack/$(basename "$b")"
done
objcopy --strip-debug "$tests" gpu-pack/gpu_kernels
git rev-parse HEAD > gpu-pack/COMMIT
git status --short -- src/gpu ptx build.rs scripts/gen-ptx.py scripts/ptxgen scripts/ptx-check.sh scripts/gpu-pack.sh scripts/gpu-run.sh tests/gpu_kernels.rs | sed 's/^/dirty: /' >> gpu-pack/COMMIT || true
du -sh gpu-pack/*
