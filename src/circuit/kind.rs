//! Which circuit a parameter file is for: the proof kind (PoRep, WindowPoSt, WinningPoSt,
//! SnapDeals) and the sector size. Each has its own official parameter file, named by the
//! crates' cache identifier of its public parameters, and its own blank circuit to record the
//! R1CS from (`params setup`).
use anyhow::{bail, Result};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredUpdateProof};

use super::r1cs::R1cs;
use crate::input::snap::registered_update;
use crate::input::PorepKind;

/// The kinds of Groth16 proof filsnark makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofKind {
    Porep,
    WindowPost,
    WinningPost,
    Snap,
}

impl ProofKind {
    pub const ALL: [ProofKind; 4] = [Self::Porep, Self::WindowPost, Self::WinningPost, Self::Snap];

    /// The command-line name: `porep`, `window-post`, `winning-post`, `snap`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Porep => "porep",
            Self::WindowPost => "window-post",
            Self::WinningPost => "winning-post",
            Self::Snap => "snap",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        match Self::ALL.iter().find(|k| k.name() == s) {
            Some(k) => Ok(*k),
            None => bail!("unknown proof kind {s:?}: expected porep, window-post, winning-post or snap"),
        }
    }
}

/// A circuit: proof kind and sector size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CircuitKind {
    pub proof: ProofKind,
    pub size: PorepKind,
}

impl CircuitKind {
    pub fn new(proof: ProofKind, size: PorepKind) -> Self {
        CircuitKind { proof, size }
    }

    /// `window-post 32GiB`.
    pub fn name(&self) -> String {
        format!("{} {}", self.proof.name(), self.size.name())
    }

    /// The registered PoSt proof of a PoSt circuit (WindowPoSt V1_2, WinningPoSt V1).
    pub fn registered_post(&self) -> Option<RegisteredPoStProof> {
        use RegisteredPoStProof::*;
        let (window, winning) = match self.size {
            PorepKind::S2KiB => (StackedDrgWindow2KiBV1_2, StackedDrgWinning2KiBV1),
            PorepKind::S8MiB => (StackedDrgWindow8MiBV1_2, StackedDrgWinning8MiBV1),
            PorepKind::S512MiB => (StackedDrgWindow512MiBV1_2, StackedDrgWinning512MiBV1),
            PorepKind::S32GiB => (StackedDrgWindow32GiBV1_2, StackedDrgWinning32GiBV1),
            PorepKind::S64GiB => (StackedDrgWindow64GiBV1_2, StackedDrgWinning64GiBV1),
        };
        match self.proof {
            ProofKind::WindowPost => Some(window),
            ProofKind::WinningPost => Some(winning),
            _ => None,
        }
    }

    /// The registered update proof of a SnapDeals circuit.
    pub fn registered_update(&self) -> Option<RegisteredUpdateProof> {
        (self.proof == ProofKind::Snap).then(|| registered_update(self.size))
    }

    /// The official parameter file stem, from the public parameters alone (no synthesis).
    pub fn stem(&self) -> Result<String> {
        match self.proof {
            ProofKind::Porep => super::porep::porep_stem(self.size),
            ProofKind::WindowPost | ProofKind::WinningPost => {
                super::post_windows::post_stem(self.registered_post().expect("a PoSt kind"))
            }
            ProofKind::Snap => Ok(super::snap::snap_stem(self.size)),
        }
    }

    /// Records the R1CS of one partition from a blank synthesis (PoRep challenges and PoSt
    /// sectors in parallel when `parallel`: the same R1CS either way); returns it and the stem.
    pub fn record(&self, parallel: bool) -> Result<(R1cs, String)> {
        match self.proof {
            ProofKind::Porep => super::porep_windows::record_porep(self.size, parallel),
            ProofKind::WindowPost | ProofKind::WinningPost => {
                super::post_windows::record_post(self.registered_post().expect("a PoSt kind"), parallel)
            }
            ProofKind::Snap => super::snap::record_snap(self.size),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        for k in ProofKind::ALL {
            assert_eq!(ProofKind::parse(k.name()).unwrap(), k);
        }
        assert!(ProofKind::parse("post").is_err());
    }

    /// Every circuit of every size is named as in storage-proofs-core's parameters.json, the
    /// list of official files, and the PoSt names are the ones filecoin-proofs looks up.
    #[test]
    fn stems_are_the_official_names() {
        use storage_proofs_core::parameter_cache::PARAMETERS;
        let sizes = [PorepKind::S2KiB, PorepKind::S8MiB, PorepKind::S512MiB, PorepKind::S32GiB, PorepKind::S64GiB];
        for proof in ProofKind::ALL {
            for size in sizes {
                let c = CircuitKind::new(proof, size);
                let stem = c.stem().unwrap();
                assert!(
                    PARAMETERS.contains_key(&format!("{stem}.params")),
                    "{}: {stem} is not an official name",
                    c.name()
                );
                if let Some(p) = c.registered_post() {
                    let theirs = p.cache_params_path().unwrap();
                    assert_eq!(theirs.file_name().unwrap().to_str().unwrap(), format!("{stem}.params"));
                }
            }
        }
        let s = CircuitKind::new(ProofKind::Snap, PorepKind::S32GiB).stem().unwrap();
        assert_eq!(
            s,
            "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"
        );
    }
}
