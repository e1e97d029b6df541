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

/// Staged uploads (two pinned buffers of 64 MiB filled on the staging pool) land every element
/// at its place: lengths around the chunk and task sizes, an offset into an existing buffer,
/// a fill that computes its elements from their positions, and a run of uploads back to back.
#[test]
#[ignore]
fn staged_uploads_arrive_whole() {
    let gpu = filsnark::gpu::Gpu::open(0).expect("a GPU");
    let value = |i: usize| (i as u32).wrapping_mul(0x9e37_79b9) ^ 0x5bd1_e995;
    let chunk = (64usize << 20) / 4;
    for n in [0, 1, 7, (1 << 18) + 3, chunk - 1, chunk, chunk + 1, 3 * chunk + 12345] {
        let src: Vec<u32> = (0..n).map(value).collect();
        let buf = gpu.upload(&src).unwrap();
        let mut back = vec![0u32; n];
        buf.copy_to_host(&mut back).unwrap();
        assert!(back == src, "upload of {n} words differs");
        let gen = gpu
            .upload_with(n, |first, d: &mut [u32]| d.iter_mut().enumerate().for_each(|(i, x)| *x = value(first + i)))
            .unwrap();
        gen.copy_to_host(&mut back).unwrap();
        assert!(back == src, "generated upload of {n} words differs");
    }
    let n = 2 * chunk + 99;
    let mut buf = gpu.alloc::<u32>(n + 1000).unwrap();
    buf.fill_bytes(0xab).unwrap();
    gpu.upload_into(&mut buf, 1000, n, |first, d: &mut [u32]| {
        d.iter_mut().enumerate().for_each(|(i, x)| *x = value(first + i))
    })
    .unwrap();
    let mut back = vec![0u32; n + 1000];
    buf.copy_to_host(&mut back).unwrap();
    assert!(back[..1000].iter().all(|&x| x == 0xabab_abab), "upload_into wrote before its offset");
    assert!(back[1000..].iter().enumerate().all(|(i, &x)| x == value(i)), "upload_into differs");
}
