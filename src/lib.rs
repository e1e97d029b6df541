//! filsnark: a Filecoin Groth16 prover.
//!
//! The library is laid out by the stage of the math each module owns:
//! - [`aggregate`] — `aggregate porep` / `verify aggregate`: SnarkPack over the sectors of an agg.json.
//! - [`input`]   — c1.json (lotus/Curio wrapper and raw form), post.json, snap.json, agg.json,
//!   registered proofs, sector shapes.
//! - [`circuit`] — building Filecoin circuits and recording their witness (A·z, B·z, C·z, densities).
//! - [`constraints`] — a shape's R1CS compiled once (per-challenge template, coefficient classes,
//!   on-disk cache) and evaluated at a packed witness (A·z, B·z, C·z, densities).
//! - [`witness`] — the native PoRep witness: a partition's inputs and aux straight from the
//!   vanilla proofs (SHA-256, Poseidon, packing), packed as bits and field elements.
//! - [`srs`]     — the official `.params`/`.vk` format: mmap, section offsets, validation, lookup.
//! - [`groth16`] — backend-independent Groth16: H polynomial plan, proof assembly, encoding, verification.
//! - [`prover`]  — the backend-neutral prover layer: the `Backend` trait, `Witness`, `Proved`,
//!   stage timings, `--device` choices; [`devices`] turns a choice into a backend.
//! - [`field`]   — the scalar field Fr as limbs, roots of unity.
//! - [`cpu`]     — NTT and MSM on the CPU (blst + rayon): the reference and the fallback.
//! - [`ec`]      — the curve layer over blst: G1/G2 arithmetic, fields, encodings, generator tables.
//! - [`gpu`]     — CUDA driver runtime (cudarc), embedded PTX modules, kernel launchers.
//! - [`setup`]   — `params setup`: INSECURE test parameters in the official format.
//! - [`output`]  — atomic writes, output-path checks, interrupts, panics as errors;
//!   [`hostmem`] — large host buffers: huge-page advice, spent vectors kept for reuse.
//! - [`pipeline`] — partitions through the host lock and the device locks, memory budget, timings.
//! - [`bench`]   — `bench porep|window-post|winning-post|snap`: the report (JSON, tables) and the
//!   SVG timeline.
//! - [`synth`]   — synthetic C1 outputs, post.json and snap.json: valid vanilla proofs without
//!   sealing a sector.
//! - [`job`]     — one proof job end to end (pipeline, self-verification, atomic write), for
//!   every kind; [`porep`], [`post`] and [`snap`] are the three input families on top of it.
//! - [`snarkpack`] — SnarkPack aggregation of Groth16 proofs (NI-PoRep, ProveCommitAggregate).
//! - [`fuzzing`] — the checks every fuzz target runs on one input (tests/ and fuzz/ share them).
pub mod aggregate;
pub mod bench;
pub mod circuit;
pub mod constraints;
pub mod cpu;
pub mod devices;
pub mod ec;
pub mod field;
pub mod fuzzing;
pub mod gpu;
pub mod groth16;
pub mod hostmem;
pub mod input;
pub mod job;
pub mod output;
pub mod pipeline;
pub mod porep;
pub mod post;
pub mod prover;
pub mod setup;
pub mod snap;
pub mod snarkpack;
pub mod srs;
pub mod synth;
pub mod witness;
