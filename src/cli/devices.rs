//! `--device`, `--gpu-mem-cap` and `--pin-host-mem`: where partitions are proved and what each
//! GPU may use, shared by every `prove` and `bench` command.
use anyhow::Result;
use clap::Args;
use filsnark::devices;
use filsnark::gpu::prover::GpuLimits;
use filsnark::pipeline::budget::parse_size;
use filsnark::prover::{Backend, DeviceChoice};

#[derive(Args)]
pub struct DeviceArgs {
    /// auto (every GPU, else the CPU; a failing GPU falls back to the CPU with a warning), cpu, gpu (a GPU or an
    /// error), or GPU ordinals such as 0,1
    #[arg(long, default_value = "auto")]
    pub device: DeviceChoice,
    /// Cap each GPU's usable memory, e.g. 16GiB (units as for --mem-budget): parameters that do not fit beside a partition are streamed from host
    /// memory for every MSM, as on a smaller card
    #[arg(long, value_parser = parse_size)]
    pub gpu_mem_cap: Option<u64>,
    /// Page-lock up to SIZE of host memory for the parameter sections that stream, e.g. 32GiB: the
    /// copy engine then reads them in place instead of the cores copying each chunk into staging
    /// first; 0 turns it off
    #[arg(long, value_parser = parse_size, value_name = "SIZE", default_value = "0")]
    pub pin_host_mem: u64,
}

impl DeviceArgs {
    pub fn backend(&self) -> Result<Box<dyn Backend>> {
        devices::select(&self.device, GpuLimits { mem_cap: self.gpu_mem_cap, host_pin: self.pin_host_mem })
    }
}
