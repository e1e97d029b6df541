//! Inputs to the prover, each with the checks that need no circuit:
//! - [`c1`]   — the c1.json that lotus-bench and Curio write (wrapper and raw form);
//! - [`post`] — post.json, a WindowPoSt or WinningPoSt job;
//! - [`snap`] — snap.json, a SnapDeals (empty sector update) job;
//! - [`agg`]  — agg.json, the sectors of a SnarkPack aggregate;
//! - [`proof_type`] — registered seal proofs, sector sizes, the identity of a sector (miner id,
//!   sector number) and the prover id of a miner;
//! - [`fields`] — the JSON field readers the post and snap inputs share;
//! - [`field`] — the check that field elements read from a file are canonical;
//! - [`vanilla`] — that check on every node of the vanilla proofs of a post.json or snap.json.
pub mod agg;
pub mod c1;
pub mod field;
pub mod fields;
pub mod post;
pub mod proof_type;
pub mod snap;
pub mod vanilla;

pub use agg::AggInput;
pub use c1::C1Input;
pub use post::{PostInput, PostPublic, PostSector};
pub use proof_type::{is_non_interactive, parse_miner_id, prover_id, PorepKind, SectorIdentity};
pub use snap::{SnapInput, SnapPublic};
