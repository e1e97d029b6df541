//! Where the heavy math of `params setup` runs: the Lagrange basis at τ (an inverse NTT of the
//! powers of τ) and the fixed-base multiplications that turn each section's scalars into
//! encoded points. The CPU (blst window tables, rayon) and the GPU (module "generator_mul" over
//! the same tables, and the GPU NTT) give the same bytes; the GPU path streams each section in
//! larger chunks and computes chunk k + 1 while chunk k is written.
use anyhow::{anyhow, bail, Result};
use blstrs::Scalar;
use ff::Field;

use super::qap;
use crate::ec::generator_table::{g1_generator, g2_generator, G1Table, G2Table, Generator};
use crate::gpu::generator_mul::{GeneratorMul, DEFAULT_CHUNK};
use crate::gpu::layout::{scalar_words, scalar_words_mut};
use crate::gpu::ntt::Ntt;
use crate::gpu::Gpu;
use crate::prover::DeviceChoice;

/// Points per step of a section on the CPU.
const CPU_CHUNK: usize = 1 << 18;

/// s·G for the standard generators, as uncompressed zcash encodings.
pub trait FixedBase {
    /// s_i·G1 into `out[96·i..]`; `out.len()` = 96·`scalars.len()`.
    fn g1_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) -> Result<()>;
    /// s_i·G2 into `out[192·i..]`; `out.len()` = 192·`scalars.len()`.
    fn g2_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) -> Result<()>;

    /// `count` points of `g`: `fill(i, s)` writes scalars i.. into `s`, and `sink` receives the
    /// encoded points chunk by chunk, in order. By default one chunk at a time.
    fn stream(
        &self,
        g: Generator,
        count: usize,
        fill: &mut dyn FnMut(usize, &mut [Scalar]),
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let size = g.point_bytes();
        let chunk = CPU_CHUNK.min(count);
        let mut scalars = vec![Scalar::ZERO; chunk];
        let mut bytes = vec![0u8; chunk * size];
        let mut at = 0;
        while at < count {
            let n = chunk.min(count - at);
            fill(at, &mut scalars[..n]);
            let (s, b) = (&scalars[..n], &mut bytes[..n * size]);
            match g {
                Generator::G1 => self.g1_to_bytes(s, b)?,
                Generator::G2 => self.g2_to_bytes(s, b)?,
            }
            sink(b)?;
            at += n;
        }
        Ok(())
    }
}

/// The blst window tables of both generators (see [`crate::ec::generator_table`]).
pub struct CpuTables {
    pub g1: G1Table,
    pub g2: G2Table,
}

impl CpuTables {
    pub fn new() -> Self {
        let (g1, g2) = rayon::join(|| G1Table::new(&g1_generator()), || G2Table::new(&g2_generator()));
        CpuTables { g1, g2 }
    }
}

impl Default for CpuTables {
    fn default() -> Self {
        Self::new()
    }
}

impl FixedBase for CpuTables {
    fn g1_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) -> Result<()> {
        self.g1.mul_to_bytes(scalars, out);
        Ok(())
    }
    fn g2_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) -> Result<()> {
        self.g2.mul_to_bytes(scalars, out);
        Ok(())
    }
}

impl FixedBase for GeneratorMul {
    fn g1_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) -> Result<()> {
        GeneratorMul::g1_to_bytes(self, scalars, out)
    }
    fn g2_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) -> Result<()> {
        GeneratorMul::g2_to_bytes(self, scalars, out)
    }
    /// Double-buffered: the device computes the next chunk while `sink` handles this one.
    fn stream(
        &self,
        g: Generator,
        count: usize,
        fill: &mut dyn FnMut(usize, &mut [Scalar]),
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        GeneratorMul::stream(self, g, count, fill, sink)
    }
}

/// Where a setup runs.
pub enum SetupDevice {
    Cpu,
    Gpu(Gpu),
}

impl SetupDevice {
    /// The device for `--device`: `auto` takes GPU 0 if it opens, else the CPU (with a line on
    /// stderr); `gpu` or one ordinal without a usable GPU is an error; `cpu` is the CPU.
    pub fn open(choice: &DeviceChoice) -> Result<SetupDevice> {
        let ordinal = match choice {
            DeviceChoice::Cpu => return Ok(SetupDevice::Cpu),
            DeviceChoice::Auto => {
                return Ok(match Gpu::open(0) {
                    Ok(g) => SetupDevice::Gpu(g),
                    Err(e) => {
                        eprintln!("{e}; params setup runs on the CPU");
                        SetupDevice::Cpu
                    }
                });
            }
            DeviceChoice::Gpu => 0,
            DeviceChoice::Ordinals(v) if v.len() == 1 => v[0],
            DeviceChoice::Ordinals(_) => bail!("--device: params setup runs on one GPU; give one ordinal"),
        };
        Gpu::open(ordinal)
            .map(SetupDevice::Gpu)
            .map_err(|e| anyhow!("--device: {e} (--device cpu makes the parameters without a GPU)"))
    }

    /// "CPU" or "GPU 0 (NVIDIA H200)".
    pub fn describe(&self) -> String {
        match self {
            SetupDevice::Cpu => "CPU".into(),
            SetupDevice::Gpu(g) => {
                let d = g.ctx.device;
                format!("GPU {} ({})", d.ordinal, d.name().unwrap_or_else(|_| "unknown".into()))
            }
        }
    }

    /// L_r(τ) for r < 2^log_n (as [`qap::lagrange_at`]); on the GPU by its inverse NTT.
    pub fn lagrange_at(&self, tau: Scalar, log_n: u32) -> Result<Vec<Scalar>> {
        match self {
            SetupDevice::Cpu => Ok(qap::lagrange_at(tau, log_n)),
            SetupDevice::Gpu(gpu) => {
                let mut v = qap::powers(tau, 1 << log_n);
                let ntt = Ntt::new(gpu)?;
                let mut d = gpu.upload(scalar_words(&v))?;
                ntt.ntt(gpu, &mut d, log_n, true)?;
                d.copy_to_host(scalar_words_mut(&mut v))?;
                Ok(v)
            }
        }
    }

    /// The GPU's fixed-base encoder over `tables` (uploaded), or None on the CPU.
    pub fn fixed_base_gpu(&self, tables: &CpuTables) -> Result<Option<GeneratorMul>> {
        match self {
            SetupDevice::Cpu => Ok(None),
            SetupDevice::Gpu(gpu) => Ok(Some(GeneratorMul::with_tables(gpu, &tables.g1, &tables.g2, DEFAULT_CHUNK)?)),
        }
    }
}
