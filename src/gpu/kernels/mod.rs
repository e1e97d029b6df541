//! The kernel interface: typed, checked launches of every PTX kernel.
//!
//! [`generated`] is written by `scripts/gen-ptx.py` from the same kernel descriptions as the
//! PTX `.entry` signatures (`scripts/ptxgen/iface.py`): for each kernel an argument struct with
//! one named field per parameter (device buffers as [`DeviceSlice`]s of their element type,
//! scalars as `u32`) and a launcher whose `launch` checks the kernel's contract first — every
//! buffer's length against what the kernel touches with these arguments, alignment, the launch
//! geometry — so that a wrong call is an error, not memory corruption; one struct per PTX
//! module that loads it and holds its launchers; and the constants the host shares with the
//! kernels (block sizes, flag bits, table shapes). Kernels whose addresses come from indices
//! they read in device memory (the MSM's sort and accumulation) have `unsafe` launchers: the
//! caller vouches for the data, which no host check can see. docs/kernels.md describes the
//! scheme.
mod contract;
#[rustfmt::skip]
mod generated;

pub use super::driver::{Arg, Geometry, Kernel};
pub use super::memory::DeviceSlice;
pub use generated::*;

/// The blocks of a 2-D launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub x: u32,
    pub y: u32,
}

impl Grid {
    pub fn new(x: u32, y: u32) -> Grid {
        Grid { x, y }
    }
}

/// Width of a kernel parameter: a device address or a 32-bit scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    U64,
    U32,
}

/// One `.entry` parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub width: Width,
}

/// A kernel of a module, with its parameters (the generated table [`KERNELS`]).
#[derive(Clone, Copy, Debug)]
pub struct KernelInfo {
    pub module: &'static str,
    pub name: &'static str,
    pub params: &'static [Param],
}

/// Blocks of `block` threads that cover `threads` threads (at least one).
pub fn blocks_for(threads: usize, block: u32) -> u32 {
    threads.div_ceil(block as usize).max(1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::ptx::MODULES;

    /// (kernel, [(parameter, width)]) of every `.entry` in a PTX text.
    fn entries(ptx: &str) -> Vec<(String, Vec<(String, Width)>)> {
        let mut out = Vec::new();
        let mut rest = ptx;
        while let Some(at) = rest.find(".visible .entry ") {
            let after = &rest[at + ".visible .entry ".len()..];
            let open = after.find('(').expect("an .entry's parameter list");
            let close = after.find(')').expect("the end of an .entry's parameter list");
            let name = after[..open].trim().to_string();
            let params = after[open + 1..close]
                .split(',')
                .map(|p| {
                    let words: Vec<&str> = p.split_whitespace().collect();
                    assert_eq!(words.len(), 3, "{name}: parameter '{p}'");
                    assert_eq!(words[0], ".param", "{name}: parameter '{p}'");
                    let width = match words[1] {
                        ".u64" => Width::U64,
                        ".u32" => Width::U32,
                        t => panic!("{name}: parameter type {t}"),
                    };
                    (words[2].to_string(), width)
                })
                .collect();
            out.push((name, params));
            rest = &after[close..];
        }
        out
    }

    /// The generated launchers' parameter lists equal the `.entry` signatures of the composed
    /// modules that build.rs embeds (names, count, order, widths), kernel for kernel, and no
    /// module has a kernel without a launcher.
    #[test]
    fn launchers_match_the_composed_ptx() {
        let mut checked = 0;
        for (module, _, text) in MODULES {
            let ptx = entries(text);
            assert!(!ptx.is_empty(), "module {module} has no kernels");
            let ours: Vec<&KernelInfo> = KERNELS.iter().filter(|k| k.module == *module).collect();
            let names: Vec<&str> = ptx.iter().map(|(n, _)| n.as_str()).collect();
            let launchers: Vec<&str> = ours.iter().map(|k| k.name).collect();
            assert_eq!(names, launchers, "module {module}: kernels in the PTX and launchers differ");
            for (k, (name, params)) in ours.iter().zip(&ptx) {
                let expect: Vec<(String, Width)> = k.params.iter().map(|p| (p.name.to_string(), p.width)).collect();
                assert_eq!(&expect, params, "module {module}, kernel {name}");
                checked += 1;
            }
        }
        assert!(KERNELS.iter().all(|k| MODULES.iter().any(|m| m.0 == k.module)), "a launcher for a missing module");
        assert_eq!(checked, KERNELS.len());
    }

    #[test]
    fn the_signature_parser_reads_what_the_generator_prints() {
        let text = "// x\n.visible .entry k_a(\n    .param .u64 out,\n    .param .u32 n)\n{\n}\n\
                    .visible .entry k_b(\n    .param .u64 p)\n.maxntid 128, 1, 1\n{\n}\n";
        let e = entries(text);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0], ("k_a".to_string(), vec![("out".to_string(), Width::U64), ("n".to_string(), Width::U32)]));
        assert_eq!(e[1], ("k_b".to_string(), vec![("p".to_string(), Width::U64)]));
    }
}
