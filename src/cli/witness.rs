//! `--witness`: how every `prove` and `bench` of a proof makes its partitions' witnesses.
use clap::Args;
use filsnark::pipeline::proofs::WitnessMode;

/// How partitions get their witness: shared by every `prove` and `bench` of a proof.
#[derive(Args)]
pub struct WitnessArgs {
    /// How each partition's witness is made: native (from the vanilla proofs, with the shape's compiled
    /// constraints, cached in $FILSNARK_CACHE_DIR or ~/.cache/filsnark/constraints) or gadgets (the Filecoin
    /// crates' circuit synthesis, the reference); both give the same proof
    #[arg(long, default_value = "native")]
    pub witness: WitnessMode,
}
