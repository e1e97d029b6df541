#!/usr/bin/env bash
# Writes the seed corpus of the coverage-guided fuzzer (fuzz/, cargo-fuzz): the valid inputs the
# seeded fuzzer of tests/fuzz_parsers.rs and tests/fuzz_post_snap.rs starts from, one directory
# per target under fuzz/corpus/ (c1, agg, params, vk, srs, seal_proof, aggregate_proof,
# window_post, winning_post, snap). The generators are the tests' own (the ignored
# `write_corpus` tests), so the corpus is what CI's fuzzer starts from, and the tests that run
# first check that every seed is accepted.
#
#   scripts/fuzz-corpus.sh            # into fuzz/corpus
#   scripts/fuzz-corpus.sh DIR        # into DIR/<target>
#
# Existing files of the same names are replaced; other files (what libFuzzer added) are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
export FILSNARK_FUZZ_CORPUS="$(realpath -m "${1:-fuzz/corpus}")"
for t in fuzz_parsers fuzz_post_snap; do
    nice -n 19 cargo test --release --test "$t" -- --ignored --exact write_corpus --nocapture
done
ls -l "$FILSNARK_FUZZ_CORPUS"/*
