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
# Stripped of debug info and gzipped (the travelling tree is capped at 64 MiB; gpu-run.sh unpacks
# into /tmp); a binary that is missing stops the script.
t=${CARGO_TARGET_DIR:-target}/release
pack() { objcopy --strip-debug "$1" "gpu-pack/$2"; gzip -9 "gpu-pack/$2"; }
pack "$t/filsnark" filsnark
# filecoin-proofs' verify_seal, the chain's judgement of proofs from synthetic c1.json there.
pack "$t/examples/verify_seal" verify_seal
# filecoin-proofs' PoSt and SnapDeals verifiers, for synthetic post.json and snap.json there.
pack "$t/examples/verify_post" verify_post
# filecoin-proofs' own PoSt and SnapDeals provers (CPU), the comparator there (REF=1 in bench-post-snap-synthetic.sh).
pack "$t/examples/reference_post" reference_post
# SnarkPack aggregation against filecoin-proofs' (scripts/bench-aggregation.sh).
pack "$t/examples/aggregate_bench" aggregate_bench
# filecoin-proofs' sealing of a 2KiB sector (an NI-PoRep c1.json there: c1 synth cannot make one).
pack "$t/examples/seal_2kib" seal_2kib
while read -r name exe; do
  pack "$exe" "$name"
done <<< "$bins"
git rev-parse HEAD > gpu-pack/COMMIT
git status --short -- src/gpu src/bench ptx build.rs scripts/gen-ptx.py scripts/ptxgen scripts/ptx-check.sh scripts/gpu-pack.sh scripts/gpu-run.sh tests | sed 's/^/dirty: /' >> gpu-pack/COMMIT || true
du -sh gpu-pack/*
