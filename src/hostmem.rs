//! Host memory advice shared by the CPU kernels and the constraint evaluation: large buffers
//! written once front to back fault in far faster on huge pages.

/// Asks the kernel for huge pages over [ptr, ptr + len) (2 MiB aligned). Only advice: without
/// huge pages it is slower, not wrong.
pub fn advise_huge(ptr: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        // SAFETY: madvise reads no memory; MADV_HUGEPAGE only changes how pages of the range are
        // backed, and a bad range makes the call fail (ignored), nothing else.
        unsafe { madvise(ptr as *mut _, len, MADV_HUGEPAGE) };
    }
}
