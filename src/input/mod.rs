//! Inputs to the prover: the c1.json that lotus-bench and Curio write (wrapper and raw form),
//! the registered proof it names, the identity of the sector (miner id, sector number), and
//! agg.json (the sectors of a SnarkPack aggregate), and the check that field elements read from
//! a file are canonical.
pub mod agg;
pub mod c1;
pub mod field;
pub mod proof_type;

pub use agg::AggInput;
pub use c1::C1Input;
pub use proof_type::{is_non_interactive, parse_miner_id, prover_id, PorepKind, SectorIdentity};
