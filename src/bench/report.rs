//! The bench report: what `--json` writes (schema in docs/bench-json.md) and the tables on stdout.
//!
//! Stability: fields are only ever added within a schema version; renaming, removing or
//! changing the meaning of a field bumps [`SCHEMA_VERSION`]. Times are seconds (f64) from the
//! start of the pipeline unless named otherwise; sizes are bytes.
use std::time::Duration;

use serde::Serialize;

use super::BenchOptions;
use crate::pipeline::budget::Bytes;
use crate::pipeline::proofs::{Input, RunReport};
use crate::prover::Backend;

/// The schema name of a PoRep report; other kinds are `filsnark-bench-<kind>` with the same
/// fields ([`schema_name`]).
pub const SCHEMA: &str = "filsnark-bench-porep";
pub const SCHEMA_VERSION: u32 = 2;

/// The stages drawn and summarized for each partition, in pipeline order.
pub const STAGES: [&str; 5] = ["witness", "evaluation", "queue", "device", "verify"];

#[derive(Serialize, Clone, Debug)]
pub struct BenchReport {
    pub schema: String,
    pub schema_version: u32,
    pub filsnark_version: &'static str,
    pub started_unix_s: f64,
    pub host: Host,
    pub backend: String,
    pub devices: Vec<String>,
    pub config: Config,
    pub inputs: Vec<InputInfo>,
    pub memory: Memory,
    pub wall_s: f64,
    pub throughput_s_per_proof: f64,
    pub proofs_per_hour: f64,
    pub device_busy_fraction: f64,
    pub device_busy: Vec<DeviceBusy>,
    pub peak_rss_bytes: u64,
    pub proofs: Vec<ProofEntry>,
    pub partitions: Vec<PartitionEntry>,
    pub summary: Summary,
}

#[derive(Serialize, Clone, Debug)]
pub struct Host {
    pub cpus: usize,
    pub mem_total_bytes: Option<u64>,
}

#[derive(Serialize, Clone, Debug)]
pub struct Config {
    pub proofs: usize,
    pub concurrency: usize,
    pub mem_budget_bytes: u64,
    pub mem_budget_source: &'static str,
    pub seed: Option<u64>,
    pub out_dir: Option<String>,
}

#[derive(Serialize, Clone, Debug)]
pub struct InputInfo {
    /// The input file (c1.json, post.json, snap.json); named `c1` since version 1.
    pub c1: String,
    pub proof: &'static str,
    pub sector_size: &'static str,
    pub miner_id: Option<u64>,
    pub sector_num: Option<u64>,
    pub sectors: usize,
    pub partitions: usize,
    pub params: String,
    pub params_bytes: u64,
}

#[derive(Serialize, Clone, Debug)]
pub struct Memory {
    pub budget_bytes: u64,
    pub per_partition_bytes: u64,
    pub static_bytes: u64,
    pub params_bytes: u64,
    pub device_working_bytes: u64,
    pub base_bytes: u64,
    pub budget_partitions: usize,
    pub in_flight_max: usize,
    pub host_permits: usize,
    pub queue_capacity: usize,
}

#[derive(Serialize, Clone, Debug)]
pub struct DeviceBusy {
    pub device: String,
    pub partitions: usize,
    pub busy_s: f64,
    pub busy_fraction: f64,
}

#[derive(Serialize, Clone, Debug)]
pub struct ProofEntry {
    pub index: usize,
    pub input: usize,
    pub start_s: f64,
    pub end_s: f64,
    pub wall_s: f64,
    pub bytes: usize,
    pub verified: bool,
    pub file: Option<String>,
}

#[derive(Serialize, Clone, Debug)]
pub struct PartitionEntry {
    pub proof: usize,
    pub partition: usize,
    pub device: usize,
    pub constraints: usize,
    pub picked_s: f64,
    pub synth_start_s: f64,
    pub synth_end_s: f64,
    pub device_start_s: f64,
    pub device_end_s: f64,
    pub done_s: f64,
    pub host_wait_s: f64,
    pub synthesis_s: f64,
    /// `native` (native witness and compiled constraints) or `gadgets` (the crates' synthesis).
    pub witness_path: &'static str,
    pub witness_s: f64,
    pub evaluation_s: f64,
    pub queue_wait_s: f64,
    pub device_s: f64,
    pub verify_s: f64,
    pub device_stages: DeviceStages,
}

#[derive(Serialize, Clone, Debug)]
pub struct DeviceStages {
    /// A·z, B·z, C·z evaluated by the backend from a packed witness (`0` when the host did).
    pub evaluation_s: f64,
    pub h_ntt_s: f64,
    pub h_msm_s: f64,
    pub l_msm_s: f64,
    pub a_msm_s: f64,
    pub b_g1_msm_s: f64,
    pub b_g2_msm_s: f64,
}

#[derive(Serialize, Clone, Debug, Default)]
pub struct Stat {
    pub mean: f64,
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

impl Stat {
    pub fn of(values: impl IntoIterator<Item = f64>) -> Stat {
        let mut v: Vec<f64> = values.into_iter().collect();
        if v.is_empty() {
            return Stat::default();
        }
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Stat { mean: v.iter().sum::<f64>() / n as f64, min: v[0], median, max: v[n - 1] }
    }
}

#[derive(Serialize, Clone, Debug)]
pub struct Summary {
    pub proof_wall_s: Stat,
    pub host_wait_s: Stat,
    pub synthesis_s: Stat,
    pub witness_s: Stat,
    pub evaluation_s: Stat,
    pub queue_wait_s: Stat,
    pub device_s: Stat,
    pub verify_s: Stat,
}

/// The schema name of a report on proofs of `proof` kind (`porep`, `window-post`, …).
pub fn schema_name(proof: &str) -> String {
    format!("filsnark-bench-{proof}")
}

fn s(d: Duration) -> f64 {
    d.as_secs_f64()
}

impl BenchReport {
    pub fn new(started: f64, inputs: &[Input], run: &RunReport, opts: &BenchOptions, backend: &dyn Backend) -> Self {
        let m = &run.memory;
        let wall = s(run.wall);
        let partitions: Vec<PartitionEntry> = run
            .partitions
            .iter()
            .map(|p| {
                let r = &p.record;
                let t = &p.prove;
                PartitionEntry {
                    proof: p.proof,
                    partition: p.partition,
                    device: r.device,
                    constraints: p.constraints,
                    picked_s: s(r.picked),
                    synth_start_s: s(r.synth_start),
                    synth_end_s: s(r.synth_end),
                    device_start_s: s(r.device_start),
                    device_end_s: s(r.device_end),
                    done_s: s(r.done),
                    host_wait_s: s(r.host_wait()),
                    synthesis_s: s(r.synthesis()),
                    witness_path: if p.host.native { "native" } else { "gadgets" },
                    witness_s: s(p.host.witness),
                    evaluation_s: s(p.host.evaluation),
                    queue_wait_s: s(r.queue_wait()),
                    device_s: s(r.device_time()),
                    verify_s: s(r.verify()),
                    device_stages: DeviceStages {
                        evaluation_s: s(t.evaluation),
                        h_ntt_s: s(t.h_ntt),
                        h_msm_s: s(t.h_msm),
                        l_msm_s: s(t.l_msm),
                        a_msm_s: s(t.a_msm),
                        b_g1_msm_s: s(t.b_g1_msm),
                        b_g2_msm_s: s(t.b_g2_msm),
                    },
                }
            })
            .collect();
        let device_busy: Vec<DeviceBusy> = run
            .devices
            .iter()
            .enumerate()
            .map(|(d, name)| {
                let mine: Vec<_> = partitions.iter().filter(|p| p.device == d).collect();
                let busy: f64 = mine.iter().map(|p| p.device_s).sum();
                DeviceBusy {
                    device: name.clone(),
                    partitions: mine.len(),
                    busy_s: busy,
                    busy_fraction: if wall > 0.0 { busy / wall } else { 0.0 },
                }
            })
            .collect();
        let busy_total: f64 = device_busy.iter().map(|d| d.busy_s).sum();
        let proofs: Vec<ProofEntry> = run
            .proofs
            .iter()
            .map(|p| ProofEntry {
                index: p.index,
                input: p.input,
                start_s: s(p.start),
                end_s: s(p.end),
                wall_s: s(p.wall()),
                bytes: p.bytes.len(),
                verified: true,
                file: opts.out_dir.as_ref().map(|d| d.join(super::proof_file_name(p.index)).display().to_string()),
            })
            .collect();
        let n = proofs.len().max(1) as f64;
        let summary = Summary {
            proof_wall_s: Stat::of(proofs.iter().map(|p| p.wall_s)),
            host_wait_s: Stat::of(partitions.iter().map(|p| p.host_wait_s)),
            synthesis_s: Stat::of(partitions.iter().map(|p| p.synthesis_s)),
            witness_s: Stat::of(partitions.iter().map(|p| p.witness_s)),
            evaluation_s: Stat::of(partitions.iter().map(|p| p.evaluation_s)),
            queue_wait_s: Stat::of(partitions.iter().map(|p| p.queue_wait_s)),
            device_s: Stat::of(partitions.iter().map(|p| p.device_s)),
            verify_s: Stat::of(partitions.iter().map(|p| p.verify_s)),
        };
        BenchReport {
            schema: schema_name(inputs.first().map_or("porep", |i| i.label.circuit.proof.name())),
            schema_version: SCHEMA_VERSION,
            filsnark_version: env!("CARGO_PKG_VERSION"),
            started_unix_s: started,
            host: Host {
                cpus: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
                mem_total_bytes: crate::pipeline::budget::mem_total(),
            },
            backend: backend.name().to_string(),
            devices: run.devices.clone(),
            config: Config {
                proofs: opts.proofs,
                concurrency: opts.concurrency,
                mem_budget_bytes: m.budget,
                mem_budget_source: m.source.name(),
                seed: opts.seed,
                out_dir: opts.out_dir.as_ref().map(|d| d.display().to_string()),
            },
            inputs: inputs
                .iter()
                .map(|i| InputInfo {
                    c1: i.name.clone(),
                    proof: i.label.circuit.proof.name(),
                    sector_size: i.label.circuit.size.name(),
                    miner_id: i.label.miner_id,
                    sector_num: i.label.sector_num,
                    sectors: i.label.sectors,
                    partitions: i.circuits.num_partitions(),
                    params: i.srs.path.display().to_string(),
                    params_bytes: i.srs.len() as u64,
                })
                .collect(),
            memory: Memory {
                budget_bytes: m.budget,
                per_partition_bytes: m.per_partition,
                static_bytes: m.static_bytes(),
                params_bytes: m.params_bytes,
                device_working_bytes: m.device_bytes,
                base_bytes: m.base,
                budget_partitions: m.budget_partitions,
                in_flight_max: m.in_flight,
                host_permits: m.host,
                queue_capacity: m.queue_capacity(),
            },
            wall_s: wall,
            throughput_s_per_proof: wall / n,
            proofs_per_hour: if wall > 0.0 { 3600.0 * n / wall } else { 0.0 },
            device_busy_fraction: if wall > 0.0 { busy_total / (wall * run.devices.len().max(1) as f64) } else { 0.0 },
            device_busy,
            peak_rss_bytes: super::peak_rss().unwrap_or(0),
            proofs,
            partitions,
            summary,
        }
    }

    /// The tables people read: setup, one line per proof, one per partition, stage summary.
    pub fn print(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let m = &self.memory;
        writeln!(
            out,
            "bench {}: {} proof(s) over {} input(s), backend {} ({}), -c {}",
            self.schema.trim_start_matches("filsnark-bench-"),
            self.config.proofs,
            self.inputs.len(),
            self.backend,
            self.devices.join(", "),
            self.config.concurrency
        )?;
        writeln!(
            out,
            "memory: budget {} ({}), {} per partition, {} static → {} partition(s) in flight, {} host permit(s)",
            Bytes(m.budget_bytes),
            self.config.mem_budget_source,
            Bytes(m.per_partition_bytes),
            Bytes(m.static_bytes),
            m.in_flight_max,
            m.host_permits
        )?;
        for (i, inp) in self.inputs.iter().enumerate() {
            let whose = match (inp.miner_id, inp.sector_num) {
                (Some(m), Some(n)) => format!(", miner t0{m} sector {n}"),
                (Some(m), None) => format!(", miner t0{m}, {} sector(s)", inp.sectors),
                _ => String::new(),
            };
            writeln!(
                out,
                "input {i}: {} ({} {}, {} partition(s){whose})",
                inp.c1, inp.proof, inp.sector_size, inp.partitions
            )?;
        }
        writeln!(out)?;
        writeln!(out, "{:>5} {:>5} {:>9} {:>9} {:>9}  verified", "proof", "input", "start s", "end s", "wall s")?;
        for p in &self.proofs {
            writeln!(
                out,
                "{:>5} {:>5} {:>9.3} {:>9.3} {:>9.3}  {}",
                p.index,
                p.input,
                p.start_s,
                p.end_s,
                p.wall_s,
                if p.verified { "yes" } else { "NO" }
            )?;
        }
        writeln!(out)?;
        writeln!(
            out,
            "{:>5} {:>4} {:>6} {:>10} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "proof", "part", "device", "host wait", "witness", "witness s", "eval s", "queue s", "device s", "verify s"
        )?;
        for p in &self.partitions {
            writeln!(
                out,
                "{:>5} {:>4} {:>6} {:>10.3} {:>8} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
                p.proof,
                p.partition,
                self.devices.get(p.device).map(String::as_str).unwrap_or("?"),
                p.host_wait_s,
                p.witness_path,
                p.witness_s,
                p.evaluation_s,
                p.queue_wait_s,
                p.device_s,
                p.verify_s
            )?;
        }
        writeln!(out)?;
        writeln!(out, "{:<10} {:>9} {:>9} {:>9} {:>9}", "stage", "mean s", "min s", "median s", "max s")?;
        let sm = &self.summary;
        for (name, st) in [
            ("proof", &sm.proof_wall_s),
            ("host wait", &sm.host_wait_s),
            ("synthesis", &sm.synthesis_s),
            ("witness", &sm.witness_s),
            ("evaluation", &sm.evaluation_s),
            ("queue", &sm.queue_wait_s),
            ("device", &sm.device_s),
            ("verify", &sm.verify_s),
        ] {
            writeln!(out, "{:<10} {:>9.3} {:>9.3} {:>9.3} {:>9.3}", name, st.mean, st.min, st.median, st.max)?;
        }
        self.print_device_stages(out)?;
        writeln!(out)?;
        let busy: Vec<String> =
            self.device_busy.iter().map(|d| format!("{} {:.1}%", d.device, 100.0 * d.busy_fraction)).collect();
        writeln!(
            out,
            "throughput: {:.3} s/proof ({:.1} proofs/hour); wall {:.3} s; device busy {:.1}% ({}); peak RSS {}",
            self.throughput_s_per_proof,
            self.proofs_per_hour,
            self.wall_s,
            100.0 * self.device_busy_fraction,
            busy.join(", "),
            Bytes(self.peak_rss_bytes)
        )?;
        writeln!(out, "all {} proof(s) verified", self.proofs.len())?;
        Ok(())
    }

    /// Mean milliseconds per partition of each step inside the device phase (the batch additions
    /// of the 0/1 split run inside each query's MSM and are counted there).
    fn print_device_stages(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let n = self.partitions.len().max(1) as f64;
        let mean =
            |f: fn(&DeviceStages) -> f64| 1e3 * self.partitions.iter().map(|p| f(&p.device_stages)).sum::<f64>() / n;
        writeln!(
            out,
            "device phase, mean ms per partition: evaluation {:.1}, H (NTTs) {:.1}, H MSM {:.1}, L MSM {:.1}, A MSM {:.1}, B G1 MSM {:.1}, B G2 MSM {:.1}",
            mean(|d| d.evaluation_s),
            mean(|d| d.h_ntt_s),
            mean(|d| d.h_msm_s),
            mean(|d| d.l_msm_s),
            mean(|d| d.a_msm_s),
            mean(|d| d.b_g1_msm_s),
            mean(|d| d.b_g2_msm_s)
        )
    }
}
