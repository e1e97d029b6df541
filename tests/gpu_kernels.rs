//! GPU integration tests: they need a CUDA device, so they are #[ignore]d;
//! run them on the GPU machine with `--ignored` (scripts/gpu-run.sh does).
//! The non-ignored test checks that a machine without a GPU gets a clean
//! "no GPU" answer instead of a panic.

#[test]
fn no_gpu_is_reported_cleanly() {
    let s = filsnark::gpu::info::info_report();
    assert!(!s.is_empty());
    if let Err(e) = filsnark::gpu::selftest::run(64) {
        // on a machine without a GPU this must be the NoGpu variant
        assert!(e.is_no_gpu() || std::env::var("FILSNARK_EXPECT_GPU").is_ok(), "{e}");
    }
}

#[test]
#[ignore]
fn gpu_selftest_1m() {
    let n = std::env::var("FILSNARK_SELFTEST_N").ok().and_then(|s| s.parse().ok()).unwrap_or(1 << 20);
    let r = filsnark::gpu::selftest::run(n).expect("GPU self-test could not run");
    println!("{r}");
    assert!(r.ok(), "GPU self-test failed");
}

#[test]
#[ignore]
fn gpu_bench_kernels() {
    let r = filsnark::gpu::bench::kernels().expect("kernel benchmark could not run");
    println!("{r}");
    assert!(r.rows.iter().all(|row| row.ops_per_s > 0.0 && row.local_bytes == 0));
}

#[test]
#[ignore]
fn gpu_info_all_modules_jit() {
    let s = filsnark::gpu::info::info_report();
    println!("{s}");
    assert!(s.contains("every module JIT-compiles"), "{s}");
}
