//! The embedded PTX modules (composed from ptx/ by build.rs, see ptx/MODULES).

include!(concat!(env!("OUT_DIR"), "/ptx_modules.rs"));

/// The composed PTX text of module `name`.
pub fn module(name: &str) -> Option<&'static str> {
    MODULES.iter().find(|m| m.0 == name).map(|m| m.2)
}
