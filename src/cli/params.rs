//! `params info`: what a parameter file holds.
use std::path::PathBuf;

use anyhow::Result;
use clap::Subcommand;
use filsnark::srs::{ParamsFile, SectionKind};

#[derive(Subcommand)]
pub enum ParamsCmd {
    /// Print a .params file's verifying key summary and section counts.
    #[command(after_help = "Example:\n  filsnark params info /var/tmp/filecoin-proof-parameters/v28-stacked-proof-of-replication-…params")]
    Info {
        /// The .params file.
        file: PathBuf,
    },
}

pub fn run(cmd: ParamsCmd) -> Result<()> {
    let ParamsCmd::Info { file } = cmd;
    let p = ParamsFile::open(&file)?;
    println!("file: {}", file.display());
    println!("size: {} bytes", p.len());
    println!("public inputs (ic): {}", p.vk.ic.len());
    println!("{:<6} {:>14} {:>16} {:>8}", "section", "points", "offset", "bytes/pt");
    for kind in SectionKind::ALL {
        let s = p.section(kind);
        println!("{:<6} {:>14} {:>16} {:>8}", kind.name(), s.count, s.offset, kind.point_bytes());
    }
    let h = p.section(SectionKind::H).count;
    println!("domain: 2^{} (h = domain - 1)", (h + 1).next_power_of_two().trailing_zeros());
    Ok(())
}
