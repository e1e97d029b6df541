//! Inputs to the prover, each with the checks that need no circuit:
//! - [`c1`]   — the c1.json that lotus-bench and Curio write (wrapper and raw form);
//! - [`post`] — post.json, a WindowPoSt or WinningPoSt job;
//! - [`snap`] — snap.json, a SnapDeals (empty sector update) job;
//! - [`proof_type`] — registered seal proofs, sector sizes, the prover id of a miner;
//! - [`fields`] — the JSON field readers the post and snap inputs share.
pub mod c1;
pub mod fields;
pub mod post;
pub mod proof_type;
pub mod snap;

pub use c1::C1Input;
pub use post::{PostInput, PostPublic, PostSector};
pub use proof_type::{prover_id, PorepKind, SectorIdentity};
pub use snap::{SnapInput, SnapPublic};
