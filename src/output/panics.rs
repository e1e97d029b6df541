//! Panics as errors. A panic is a bug (in filsnark or a crate it calls), never the way a bad
//! input is reported; should one happen anyway, the user sees one `filsnark: error:` line that
//! names the job and the place of the panic, and exit status 2, not Rust's panic message and
//! status 101. [`install_hook`] records each panic's message and location instead of printing
//! them (set `RUST_BACKTRACE=1` to also get Rust's own report); [`message`] gives the record to
//! whoever catches the unwind (the pipeline for its workers, `main` for the rest).
use std::any::Any;
use std::sync::{Mutex, Once};

/// The last panic's message and location.
static LAST: Mutex<Option<(String, String)>> = Mutex::new(None);
static INSTALL: Once = Once::new();

/// Replaces Rust's panic report by a record that [`message`] returns. Once per process.
pub fn install_hook() {
    INSTALL.call_once(|| {
        let verbose = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            *LAST.lock().unwrap_or_else(|e| e.into_inner()) = Some((payload_text(info.payload()), at));
            if verbose {
                default(info);
            }
        }));
    });
}

/// What a caught panic was: its message, and where it happened when the hook recorded it (the
/// record of the same message: another thread's later panic does not mix in).
pub fn message(payload: &(dyn Any + Send)) -> String {
    let text = payload_text(payload);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    match last.take() {
        Some((recorded, at)) if recorded == text => format!("{text}{at}"),
        other => {
            *last = other;
            text
        }
    }
}

fn payload_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(e) = p.downcast_ref::<anyhow::Error>() {
        format!("{e:#}")
    } else {
        "a panic without a message".into()
    }
}

/// The sentence every caught panic ends in: what it means and what to do.
pub const REPORT: &str = "this is a bug in filsnark or a crate it uses, not a fault of the input; \
                          please report it with the command line (RUST_BACKTRACE=1 adds a backtrace)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_gives_its_message_and_place() {
        install_hook();
        let p = std::panic::catch_unwind(|| panic!("boom {}", 7)).unwrap_err();
        let m = message(p.as_ref());
        assert!(m.starts_with("boom 7 at src/output/panics.rs:"), "{m}");
        // anyhow errors given to panic_any, as the Filecoin hashers do.
        let p = std::panic::catch_unwind(|| std::panic::panic_any(anyhow::anyhow!("from_repr"))).unwrap_err();
        assert!(payload_text(p.as_ref()).contains("from_repr"));
    }
}
