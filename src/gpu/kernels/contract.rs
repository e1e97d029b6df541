//! The checks the generated launchers run before a launch, and the arithmetic their contract
//! expressions use: unsigned, in u128 so that no product of kernel parameters wraps,
//! subtraction stopping at 0 and everything else saturating at `u128::MAX` (the generator's
//! Python evaluation of the same expressions, scripts/ptxgen/iface.py, does the same).
use super::{Arg, DeviceSlice, Param, Width};
use crate::gpu::{GpuError, Pod, Result};

pub fn add(a: u128, b: u128) -> u128 {
    a.saturating_add(b)
}
pub fn sub(a: u128, b: u128) -> u128 {
    a.saturating_sub(b)
}
pub fn mul(a: u128, b: u128) -> u128 {
    a.saturating_mul(b)
}
/// a · 2^b.
pub fn shl(a: u128, b: u128) -> u128 {
    if a == 0 {
        0
    } else if b >= 128 {
        u128::MAX
    } else {
        a.saturating_mul(1 << b)
    }
}
pub fn and(a: u128, b: u128) -> u128 {
    a & b
}
pub fn min(a: u128, b: u128) -> u128 {
    a.min(b)
}
pub fn div_ceil(a: u128, b: u128) -> u128 {
    if b == 0 {
        u128::MAX
    } else {
        a.div_ceil(b)
    }
}

/// A launch rule of `kernel`: an error naming it when `ok` is false.
pub fn rule(kernel: &str, ok: bool, why: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(GpuError::Invalid(format!("kernel {kernel}: launch rule broken: {why}")))
    }
}

/// Buffer `param` of `kernel` holds at least `elems` elements from its start, at an address that
/// is a multiple of `align` bytes.
pub fn need<T: Pod>(kernel: &str, param: &str, s: &DeviceSlice<'_, T>, elems: u128, align: u64) -> Result<()> {
    if (s.len() as u128) < elems {
        return Err(GpuError::Invalid(format!(
            "kernel {kernel}: buffer {param} holds {} elements, the launch needs {elems}",
            s.len()
        )));
    }
    if !s.address().is_multiple_of(align) {
        return Err(GpuError::Invalid(format!(
            "kernel {kernel}: buffer {param} at {:#x} is not aligned to {align} bytes",
            s.address()
        )));
    }
    Ok(())
}

/// [`need`] for a buffer the arguments make the kernel read: it must be given.
pub fn need_some<T: Pod>(
    kernel: &str,
    param: &str,
    s: &Option<DeviceSlice<'_, T>>,
    elems: u128,
    align: u64,
) -> Result<()> {
    match s {
        Some(s) => need(kernel, param, s, elems, align),
        None => Err(GpuError::Invalid(format!("kernel {kernel}: buffer {param} is needed with these arguments"))),
    }
}

/// The arguments have the widths of the `.entry`'s parameters, in order.
pub fn check_widths(kernel: &str, args: &[Arg], params: &[Param]) -> Result<()> {
    let width = |a: &Arg| match a {
        Arg::U64(_) => Width::U64,
        Arg::U32(_) => Width::U32,
    };
    if args.len() != params.len() || args.iter().zip(params).any(|(a, p)| width(a) != p.width) {
        return Err(GpuError::Invalid(format!("kernel {kernel}: arguments do not match its parameters")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The saturating semantics the contracts rely on: nothing wraps to a small number.
    #[test]
    fn contract_arithmetic_saturates() {
        assert_eq!(sub(3, 5), 0);
        assert_eq!(mul(u128::MAX, 2), u128::MAX);
        assert_eq!(shl(8, 200), u128::MAX);
        assert_eq!(shl(0, 200), 0);
        assert_eq!(shl(8, 27), 8 << 27);
        assert_eq!(div_ceil(7, 2), 4);
        assert_eq!(div_ceil(7, 0), u128::MAX);
        assert_eq!(add(u128::MAX, 1), u128::MAX);
        assert!(rule("k", false, "why").is_err() && rule("k", true, "why").is_ok());
        let params = [Param { name: "p", width: Width::U64 }, Param { name: "n", width: Width::U32 }];
        assert!(check_widths("k", &[Arg::U64(0), Arg::U32(1)], &params).is_ok());
        assert!(check_widths("k", &[Arg::U32(1), Arg::U64(0)], &params).is_err());
        assert!(check_widths("k", &[Arg::U64(0)], &params).is_err());
    }
}
