//! The memory budget: how many partitions may be in flight at once.
//!
//! Host memory is modelled as a fixed part held for the whole run plus a part per partition in
//! flight (picked, synthesized, queued or on a device; see the [pipeline](super) docs):
//!
//! ```text
//! static        = parameter files (mmapped; every page the prover touches counts in RSS)
//!               + devices × working memory of one device phase (Backend::working_bytes)
//!               + BASE_BYTES (binary, public parameters, verifying keys, thread stacks)
//! per_partition = 4 × domain × 32 B × 5/4
//! in_flight     = ⌊(budget − static) / per_partition⌋   (an error when < 1)
//! host permits  = min(-c, in_flight)
//! ```
//!
//! `per_partition` counts the witness of one partition at its largest: the A·z, B·z and C·z
//! evaluations grown to the domain for the H step, and the aux assignment (≤ domain), 32 bytes
//! per field element, with a quarter more for allocator slack, densities and the transient
//! linear combinations of synthesis. The domain is the next power of two of the constraints
//! (inputs' constraints included), read from the parameter file (its `h` section holds domain − 1
//! points), so every circuit is budgeted alike: for PoRep 2^22 at 2KiB and 8MiB (640 MiB per
//! partition), 2^23 at 512MiB (1.25 GiB), 2^27 at 32GiB and 64GiB (20 GiB, as cuzk measured per
//! partition); a 32GiB WindowPoSt partition (2,349 sectors) and a 32GiB SnapDeals partition are
//! also 2^27.
//!
//! The default budget is 90% of `MemAvailable` in /proc/meminfo when the run starts.
use std::fmt;

use anyhow::{anyhow, bail, Context, Result};

use crate::circuit::porep::expected_constraints;
use crate::input::PorepKind;
use crate::srs::{ParamsFile, SectionKind};

/// Process memory outside partitions and the parameter files.
pub const BASE_BYTES: u64 = 256 << 20;
/// Share of MemAvailable the default budget takes.
pub const DEFAULT_SHARE: f64 = 0.9;

/// The Groth16 evaluation domain of one partition of a PoRep of `kind`.
pub fn domain(kind: PorepKind) -> usize {
    expected_constraints(kind).next_power_of_two()
}

/// The evaluation domain of the circuit a parameter file is for: its `h` section has
/// domain − 1 points.
pub fn params_domain(srs: &ParamsFile) -> usize {
    srs.section(SectionKind::H).count + 1
}

/// Host bytes one partition of a circuit with evaluation domain `domain` holds in flight (see
/// the module docs).
pub fn partition_bytes(domain: usize) -> u64 {
    let witness = 4 * domain as u64 * 32;
    witness + witness / 4
}

/// Where the budget came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetSource {
    Flag,
    MemAvailable,
}

impl BudgetSource {
    pub fn name(self) -> &'static str {
        match self {
            BudgetSource::Flag => "--mem-budget",
            BudgetSource::MemAvailable => "90% of MemAvailable",
        }
    }
}

/// What the budget must hold besides the partitions.
#[derive(Clone, Debug)]
pub struct Demand {
    /// Largest evaluation domain among the inputs' circuits (sets the bytes per partition).
    pub domain: usize,
    /// That circuit, for messages (`porep 2KiB`).
    pub circuit: String,
    /// Sum of the sizes of the distinct parameter files.
    pub params_bytes: u64,
    pub devices: usize,
    /// Working memory of one device phase (host side).
    pub device_bytes: u64,
    /// `-c`: syntheses at once.
    pub concurrency: usize,
    /// Partitions to prove in all (no more than these are ever in flight).
    pub jobs: usize,
}

/// The resulting limits.
#[derive(Clone, Debug)]
pub struct MemoryPlan {
    pub budget: u64,
    pub source: BudgetSource,
    pub domain: usize,
    pub per_partition: u64,
    pub params_bytes: u64,
    pub device_bytes: u64,
    pub devices: usize,
    pub base: u64,
    /// Partitions the budget allows in flight (before capping at the number of jobs).
    pub budget_partitions: usize,
    /// Partitions in flight at most (= worker threads).
    pub in_flight: usize,
    /// Host-lock permits.
    pub host: usize,
    pub concurrency: usize,
}

impl MemoryPlan {
    pub fn static_bytes(&self) -> u64 {
        self.params_bytes + self.devices as u64 * self.device_bytes + self.base
    }
    /// Most jobs that can wait in the device queue at once.
    pub fn queue_capacity(&self) -> usize {
        self.in_flight.saturating_sub(self.devices).max(1).min(self.in_flight)
    }
    pub fn limits(&self) -> super::Limits {
        super::Limits { host: self.host, in_flight: self.in_flight, devices: self.devices }
    }

    pub fn new(budget: Option<u64>, d: &Demand) -> Result<Self> {
        if d.concurrency == 0 {
            bail!("-c/--concurrency must be at least 1");
        }
        let (budget, source) = match budget {
            Some(b) => (b, BudgetSource::Flag),
            None => ((mem_available()? as f64 * DEFAULT_SHARE) as u64, BudgetSource::MemAvailable),
        };
        let per_partition = partition_bytes(d.domain);
        let mut plan = MemoryPlan {
            budget,
            source,
            domain: d.domain,
            per_partition,
            params_bytes: d.params_bytes,
            device_bytes: d.device_bytes,
            devices: d.devices.max(1),
            base: BASE_BYTES,
            budget_partitions: 0,
            in_flight: 0,
            host: 0,
            concurrency: d.concurrency,
        };
        let fixed = plan.static_bytes();
        let need = fixed + per_partition;
        if budget < need {
            bail!(
                "memory budget {} ({}) is smaller than one partition in flight: a {} partition needs {} (domain 2^{}) on top \
                 of {} held for the whole run (parameter files {}, {} device(s) × {} working memory, {} base); \
                 give --mem-budget {} or more",
                Bytes(budget),
                source.name(),
                d.circuit,
                Bytes(per_partition),
                d.domain.trailing_zeros(),
                Bytes(fixed),
                Bytes(d.params_bytes),
                plan.devices,
                Bytes(d.device_bytes),
                Bytes(BASE_BYTES),
                Bytes(need),
            );
        }
        plan.budget_partitions = ((budget - fixed) / per_partition) as usize;
        plan.in_flight = plan.budget_partitions.min(d.jobs.max(1));
        plan.host = d.concurrency.min(plan.in_flight);
        Ok(plan)
    }
}

/// MemAvailable from /proc/meminfo, in bytes.
pub fn mem_available() -> Result<u64> {
    meminfo_field("MemAvailable")
        .context("cannot read MemAvailable from /proc/meminfo for the default memory budget; give --mem-budget")
}

/// MemTotal from /proc/meminfo, in bytes.
pub fn mem_total() -> Option<u64> {
    meminfo_field("MemTotal").ok()
}

fn meminfo_field(name: &str) -> Result<u64> {
    let text = std::fs::read_to_string("/proc/meminfo")?;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(name).and_then(|r| r.strip_prefix(':')) {
            let kb: u64 = rest.trim().trim_end_matches("kB").trim().parse()?;
            return Ok(kb * 1024);
        }
    }
    Err(anyhow!("no {name} line"))
}

/// Parses a size, one convention throughout filsnark (GNU coreutils' own):
/// - `KiB`, `MiB`, `GiB`, `TiB` and the bare letters `K`, `M`, `G`, `T` are binary (1024, 1024², …);
/// - `KB`, `MB`, `GB`, `TB` are decimal (1000, 1000², …);
/// - `B` or no unit: bytes.
///
/// Letters are case-insensitive (`8g`, `512mib`); a decimal fraction is allowed (`1.5GiB`,
/// rounded down to a byte). A size that does not fit in 64 bits is an error, never clamped.
pub fn parse_size(s: &str) -> Result<u64> {
    let bad = || anyhow!("{s:?} is not a size: write e.g. 8GiB, 512MiB, 64GB or 4096 (bytes)");
    let t = s.trim().to_ascii_lowercase();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mul: u128 = match unit.trim_start() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(bad()),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty() || frac.contains('.') {
        return Err(bad());
    }
    let too_big = || anyhow!("{s:?} is more than the largest size filsnark takes (2^64 − 1 bytes, 16 EiB)");
    // Integer part exactly; past 20 digits it cannot fit.
    let whole: u128 = if int.is_empty() { 0 } else { int.parse::<u64>().map_err(|_| too_big())?.into() };
    // The fraction to 18 digits (finer than a byte at every unit), rounded down.
    let digits = &frac[..frac.len().min(18)];
    let part: u128 = if digits.is_empty() { 0 } else { digits.parse::<u64>().map_err(|_| bad())?.into() };
    let bytes = whole * mul + part * mul / 10u128.pow(digits.len() as u32);
    u64::try_from(bytes).map_err(|_| too_big())
}

/// Bytes for people: `1.25 GiB`.
#[derive(Clone, Copy)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as f64;
        let units = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
        for (name, shift) in units {
            if self.0 >= 1 << shift {
                return write!(f, "{:.2} {name}", b / (1u64 << shift) as f64);
            }
        }
        write!(f, "{} B", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demand() -> Demand {
        Demand {
            domain: 1 << 22,
            circuit: "porep 2KiB".into(),
            params_bytes: 1_114_707_768,
            devices: 1,
            device_bytes: 800 << 20,
            concurrency: 15,
            jobs: 10,
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8GiB").unwrap(), 8 << 30);
        assert_eq!(parse_size("8g").unwrap(), 8 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4096B").unwrap(), 4096);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1G").is_err());
        // Decimal units are decimal; the binary ones binary.
        assert_eq!(parse_size("10TB").unwrap(), 10_000_000_000_000);
        assert_eq!(parse_size("10TiB").unwrap(), 10 << 40);
        assert_eq!(parse_size("64GB").unwrap(), 64_000_000_000);
        assert_eq!(parse_size("1kb").unwrap(), 1000);
        assert_eq!(parse_size("1.5KiB").unwrap(), 1536);
        assert_eq!(parse_size("0.001KB").unwrap(), 1);
        assert_eq!(parse_size(" 2 GiB ").unwrap(), 2 << 30);
        assert_eq!(parse_size(".5k").unwrap(), 512);
        // What does not fit is an error, not a clamp.
        assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
        for big in ["18446744073709551616", "16777216TiB", "99999999999999999999999", "18446744073709551615.5K"] {
            assert!(parse_size(big).unwrap_err().to_string().contains("largest size"), "{big}");
        }
        for bad in ["", ".", "1..5G", "1.2.3", "inf", "NaN", "1e9", "0x10", "5 GiBs", "G", "1PiB", "1.-5G"] {
            assert!(parse_size(bad).unwrap_err().to_string().contains("is not a size"), "{bad}");
        }
    }

    #[test]
    fn partition_sizes() {
        assert_eq!(domain(PorepKind::S2KiB), 1 << 22);
        assert_eq!(partition_bytes(domain(PorepKind::S2KiB)), 640 << 20);
        assert_eq!(partition_bytes(domain(PorepKind::S32GiB)), 20 << 30);
    }

    #[test]
    fn budget_sets_the_limits() {
        let d = demand();
        let fixed = d.params_bytes + d.device_bytes + BASE_BYTES;
        let plan = MemoryPlan::new(Some(fixed + 3 * (640 << 20) + 5), &d).unwrap();
        assert_eq!((plan.in_flight, plan.host), (3, 3));
        let plan = MemoryPlan::new(Some(64 << 30), &d).unwrap();
        assert_eq!((plan.in_flight, plan.host), (10, 10), "capped by the jobs");
        let plan = MemoryPlan::new(Some(64 << 30), &Demand { concurrency: 2, ..d.clone() }).unwrap();
        assert_eq!((plan.in_flight, plan.host), (10, 2));
    }

    #[test]
    fn budget_below_one_partition_is_an_error() {
        let e = MemoryPlan::new(Some(100 << 20), &demand()).unwrap_err().to_string();
        assert!(e.contains("memory budget 100.00 MiB"), "{e}");
        assert!(e.contains("smaller than one partition"), "{e}");
        assert!(e.contains("640.00 MiB"), "{e}");
    }
}
