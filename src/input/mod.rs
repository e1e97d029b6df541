//! Inputs to the prover: the c1.json that lotus-bench and Curio write (wrapper and raw form),
//! the registered proof it names, and the identity of the sector (miner id, sector number).
pub mod c1;
pub mod proof_type;

pub use c1::C1Input;
pub use proof_type::{prover_id, PorepKind, SectorIdentity};
