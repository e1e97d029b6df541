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

/// Every module JIT-compiles on the device and no kernel uses local memory (a spill there would
/// cost the kernel its speed; ptxas shows none here, and the driver's JIT must agree).
#[test]
#[ignore]
fn gpu_info_all_modules_jit() {
    let s = filsnark::gpu::info::info_report();
    println!("{s}");
    assert!(s.contains("every module JIT-compiles"), "{s}");
    assert!(!s.contains("local memory (spills)"), "a kernel uses local memory:\n{s}");
}

/// A launch that breaks a kernel's contract is an error naming the kernel and the reason, and
/// nothing runs: a buffer too short, a misaligned slice, a block too large for the kernel's
/// shared slots, an NTT pass whose tables are missing; the right call then still works.
#[test]
#[ignore]
fn broken_launch_contracts_are_errors() {
    use filsnark::gpu::kernels::{
        ElementwiseBinaryArgs, GeneratorMulArgs, GeneratorMulKernels, NttKernels, NttPassArgs, SelftestKernels,
    };
    let gpu = filsnark::gpu::Gpu::open(0).expect("a GPU");
    let k = SelftestKernels::load(&gpu).unwrap();
    let n = 1000usize;
    let (a, b) = (gpu.alloc::<u32>(8 * n).unwrap(), gpu.alloc::<u32>(8 * n).unwrap());
    let short = gpu.alloc::<u32>(8 * n - 1).unwrap();
    let err = |r: filsnark::gpu::Result<()>| r.expect_err("a broken contract must be refused").to_string();
    let call = |out, in0| ElementwiseBinaryArgs { out, in0, in1: b.view(), n: n as u32 };
    let e = err(k.fr_add().launch(&gpu.stream, 4, 256, &call(short.view(), a.view())));
    assert!(e.contains("k_fr_add") && e.contains("buffer out"), "{e}");
    let e = err(k.fr_add().launch(&gpu.stream, 4, 256, &call(a.view(), short.slice(1..).unwrap())));
    assert!(e.contains("in0"), "{e}");
    let mut out = gpu.alloc::<u32>(8 * n).unwrap();
    out.fill_bytes(0).unwrap();
    k.fr_add().launch(&gpu.stream, 4, 256, &call(out.view(), a.view())).expect("the right call");
    gpu.stream.synchronize().unwrap();

    let gm = GeneratorMulKernels::load(&gpu).unwrap();
    let scalars = gpu.alloc::<blstrs::Scalar>(64).unwrap();
    let pts = gpu.alloc::<u8>(64 * 192).unwrap();
    let table = gpu.alloc::<u32>(1).unwrap();
    let args = GeneratorMulArgs { out: pts.view(), scalars: scalars.view(), table: table.view(), n: 64 };
    let e = err(gm.g2().launch(&gpu.stream, 1, 128, &args));
    assert!(e.contains("fb_g2"), "{e}");

    let ntt = NttKernels::load(&gpu).unwrap();
    let data = gpu.alloc::<u32>(8 << 10).unwrap();
    let tw = gpu.alloc::<u32>(8 * 256).unwrap();
    let pass = NttPassArgs {
        src: data.view(),
        dst: data.view(),
        tw: tw.view(),
        p1: None,
        p2: None,
        pa: None,
        pb: None,
        pz: None,
        lg_s: 1,
        lg_k: 0,
        lg_g: 1,
        lg_b: 9,
        flags: filsnark::gpu::kernels::ntt::FLAG_FACTOR,
    };
    let e = err(ntt.ntt_r9().launch(&gpu.stream, &pass));
    assert!(e.contains("p1"), "{e}");
    let e = err(ntt.ntt_r9().launch(&gpu.stream, &NttPassArgs { flags: 0, lg_g: 2, ..pass }));
    assert!(e.contains("launch rule"), "{e}");
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

/// Every device buffer is counted in its context's ledger while it lives, one that a second
/// stream used included (its free waits for that stream's work), and under a limit an
/// allocation past it is refused as out of memory without being counted.
#[test]
#[ignore]
fn device_buffers_are_counted_in_the_ledger() {
    use filsnark::gpu::kernels::{blocks_for, ElementwiseBinaryArgs, SelftestKernels};
    let gpu = filsnark::gpu::Gpu::open(0).expect("a GPU");
    let k = SelftestKernels::load(&gpu).unwrap();
    let ledger = &gpu.ctx.ledger;
    let base = ledger.in_use();
    let n = 1usize << 20;
    let (a, b, out) =
        (gpu.alloc::<u32>(8 * n).unwrap(), gpu.alloc::<u32>(8 * n).unwrap(), gpu.alloc::<u32>(8 * n).unwrap());
    assert_eq!(ledger.in_use(), base + 3 * 32 * n as u64);
    let side = filsnark::gpu::Stream::new(&gpu.ctx).unwrap();
    let args = ElementwiseBinaryArgs { out: out.view(), in0: a.view(), in1: b.view(), n: n as u32 };
    k.fr_add().launch(&side, blocks_for(n, 256), 256, &args).expect("a launch on a second stream");
    drop((a, b, out));
    assert_eq!(ledger.in_use(), base, "freed buffers stay counted");
    side.synchronize().unwrap();
    gpu.stream.synchronize().unwrap();

    ledger.set_limit(Some(base + 1000));
    let refused = gpu.alloc::<u32>(1000).err();
    ledger.set_limit(None);
    let e = refused.expect("an allocation past the limit is refused");
    assert!(e.is_out_of_memory(), "{e}");
    assert_eq!(ledger.in_use(), base, "a refused allocation is counted");
    drop(gpu.alloc::<u32>(1000).expect("the same allocation without the limit"));
    assert_eq!(ledger.in_use(), base);
}
