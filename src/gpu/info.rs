//! `filsnark info`: driver, devices and whether every embedded PTX module
//! JIT-compiles, with registers and local memory per kernel.
use super::driver::{self, Context, Device, Module};
use super::ptx;
use std::fmt::Write as _;

/// Kernel names (`.visible .entry NAME(`) declared in a PTX text.
pub fn kernel_names(ptx_text: &str) -> Vec<String> {
    ptx_text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
        .map(|r| r.split('(').next().unwrap_or("").trim().to_string())
        .collect()
}

/// The full `filsnark info` text. Never fails: without a driver or a device
/// it says so plainly (and that proving runs on the CPU).
pub fn info_report() -> String {
    let mut s = String::new();
    match report_inner(&mut s) {
        Ok(()) => {}
        Err(e) if e.is_no_gpu() => {
            let _ = writeln!(s, "GPU: none ({e}); filsnark will prove on the CPU.");
        }
        Err(e) => {
            let _ = writeln!(s, "GPU: error: {e}");
        }
    }
    s
}

fn report_inner(s: &mut String) -> driver::Result<()> {
    let v = driver::driver_version()?;
    let _ = writeln!(s, "CUDA driver: {}.{} (cuDriverGetVersion {v})", v / 1000, (v % 1000) / 10);
    let devs = Device::all()?;
    for d in &devs {
        let ctx = Context::new(*d)?;
        let (free, total) = ctx.mem_info()?;
        let (maj, min) = d.compute_capability()?;
        let _ = writeln!(
            s,
            "device {}: {} | {} SMs | {:.1} GiB free / {:.1} GiB total | compute capability {maj}.{min} | max SM clock {} MHz",
            d.ordinal,
            d.name()?,
            d.sm_count()?,
            free as f64 / (1u64 << 30) as f64,
            total as f64 / (1u64 << 30) as f64,
            d.clock_khz()? / 1000
        );
    }
    // JIT every module on device 0.
    let ctx = Context::new(devs[0])?;
    let mut all_ok = true;
    for (name, desc, text) in ptx::MODULES {
        match Module::load(&ctx, name, text) {
            Ok(m) => {
                let ks = kernel_names(text);
                let _ = writeln!(s, "PTX module {name}: JIT ok in {:.0} ms, {} kernels ({desc})", m.load_ms, ks.len());
                for k in ks {
                    let f = m.kernel(&k)?;
                    let (regs, local) = (f.num_regs()?, f.local_bytes()?);
                    let flag = if local > 0 { "  <-- local memory (spills)" } else { "" };
                    let _ = writeln!(s, "    {k:<24} {regs:>3} registers, {local:>4} B local{flag}");
                }
            }
            Err(e) => {
                all_ok = false;
                let _ = writeln!(s, "PTX module {name}: FAILED\n{e}");
            }
        }
    }
    let _ =
        writeln!(s, "PTX: {}", if all_ok { "every module JIT-compiles" } else { "some modules FAILED to JIT-compile" });
    Ok(())
}
