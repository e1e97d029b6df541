//! GPU checks without the main CLI: `info`, `selftest [N] [SEED]`, `bench`.
//! Exit status: 0 all passed, 1 a check failed or a CUDA error, 2 no GPU.
use filsnark::gpu;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cmd = args.first().map(String::as_str).unwrap_or("info");
    let fail = |e: gpu::GpuError| {
        eprintln!("{e}");
        if e.is_no_gpu() {
            ExitCode::from(2)
        } else {
            ExitCode::from(1)
        }
    };
    match cmd {
        "info" => {
            print!("{}", gpu::info::info_report());
            ExitCode::SUCCESS
        }
        "selftest" => {
            let n = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1 << 20);
            let r = match args
                .get(2)
                .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            {
                Some(seed) => gpu::selftest::run_seeded(n, seed),
                None => gpu::selftest::run(n),
            };
            match r {
                Ok(r) => {
                    println!("{r}");
                    if r.ok() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    }
                }
                Err(e) => fail(e),
            }
        }
        "bench" => match gpu::bench::kernels() {
            Ok(r) => {
                println!("{r}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        },
        _ => {
            eprintln!("usage: filsnark-gpu-check info | selftest [N] [SEED_HEX] | bench");
            ExitCode::from(1)
        }
    }
}
