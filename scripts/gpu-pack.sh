#!/usr/bin/env bash
# Builds what the GPU machine runs (it has no Rust toolchain) into the
# git-ignored folder gpu-pack/: the release binary filsnark and every
# tests/gpu_*.rs binary (their GPU tests are #[ignore]d), debug info
# stripped and gzipped so the travelling tree stays small. Checks the PTX first.
# Then, on the GPU machine: scripts/gpu-run.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ptx-check.sh
cargo build --release --bin filsnark --example verify_seal --example verify_post --example reference_post --example aggregate_bench --example seal_2kib
# Every tests/gpu_*.rs binary (GPU tests are #[ignore]d there; gpu-run.sh runs them all).
names=$(ls tests/gpu_*.rs | xargs -n1 basename | sed 's/\.rs$//')
bins=$(cargo test --release --no-run $(printf -- '--test %s ' $names) --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"].startswith("gpu_"):
        print(m["target"]["name"], m["executable"])')
rm -rf gpu-pack && mkdir -p gpu-pack
# gzip: the travelling tree is capped at 64 MiB; gpu-run.sh unpacks into /tmp.
objcopy --strip-debug target/release/filsnark gpu-pack/filsnark && gzip -9 gpu-pack/filsnark
# filecoin-proofs' verify_seal, the chain's judgement of proofs from synthetic c1.json there.
objcopy --strip-debug target/release/examples/verify_seal gpu-pack/verify_seal && gzip -9 gpu-pack/verify_seal
# filecoin-proofs' PoSt and SnapDeals verifiers, for synthetic post.json and snap.json there.
objcopy --strip-debug target/release/examples/verify_post gpu-pack/verify_post && gzip -9 gpu-pack/verify_post
# filecoin-proofs' own PoSt and SnapDeals provers (CPU), the comparator there (REF=1 in bench-post-snap-synthetic.sh).
objcopy --strip-debug target/release/examples/reference_post gpu-pack/reference_post && gzip -9 gpu-pack/reference_post
# SnarkPack aggregation against filecoin-proofs' (scripts/bench-aggregation.sh).
objcopy --strip-debug target/release/examples/aggregate_bench gpu-pack/aggregate_bench && gzip -9 gpu-pack/aggregate_bench
# filecoin-proofs' sealing of a 2KiB sector (an NI-PoRep c1.json there: c1 synth cannot make one).
objcopy --strip-debug target/release/examples/seal_2kib gpu-pack/seal_2kib && gzip -9 gpu-pack/seal_2kib
while read -r name exe; do
  objcopy --strip-debug "$exe" "gpu-pack/$name" && gzip -9 "gpu-pack/$name"
done <<< "$bins"
git rev-parse HEAD > gpu-pack/COMMIT
git status --short -- src/gpu src/bench ptx build.rs scripts/gen-ptx.py scripts/ptxgen scripts/ptx-check.sh scripts/gpu-pack.sh scripts/gpu-run.sh tests | sed 's/^/dirty: /' >> gpu-pack/COMMIT || true
du -sh gpu-pack/*
