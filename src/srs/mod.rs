//! The Groth16 structured reference string in the official `.params` / `.vk` format
//! (bellperson `Parameters::write`): mmap, section offsets, typed lazy point decoding,
//! validation against a circuit's shape, and where to find the files.
//!
//! Layout: vk = alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 (864 B), then a u32
//! big-endian count and the `ic` points; then five sections h, l, a, b_g1, b_g2, each a u32
//! big-endian count followed by uncompressed points (G1 96 B, G2 192 B, zcash encoding).
pub mod file;
pub mod locate;
pub mod points;
pub mod raw;
pub mod write;

pub use file::{ParamsFile, Section, SectionKind, Shape, VerifyingKey};
pub use locate::{params_dir, ParamsDirSource};
pub use raw::RawPoints;
