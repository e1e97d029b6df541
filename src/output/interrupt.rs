//! The signal handler and the temp files it removes. The handler only does async-signal-safe
//! things: atomic loads, `unlink`, `_exit`. Registered paths are leaked C strings (a few dozen
//! bytes per write, and only once the handler is installed), so the handler never reads freed
//! memory; a slot is cleared after the rename, and unlinking a renamed temp name is harmless.
//! Used by every command that writes files under their final names via temp files: proofs
//! (`prove`, `bench`) and parameters (`params setup`).
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::Once;

extern "C" {
    fn signal(signum: c_int, handler: usize) -> usize;
    fn unlink(path: *const c_char) -> c_int;
    fn _exit(status: c_int) -> !;
}
const SIGINT: c_int = 2;
const SIGTERM: c_int = 15;
const SLOTS: usize = 64;

static PENDING: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(null_mut()) }; SLOTS];
static INSTALLED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(sig: c_int) {
    for slot in &PENDING {
        let p = slot.load(Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: a registered path is a leaked, NUL-terminated C string that is never freed;
            // unlink is async-signal-safe.
            unsafe { unlink(p) };
        }
    }
    // SAFETY: _exit is async-signal-safe and does not return.
    unsafe { _exit(128 + sig) }
}

/// Installs the SIGINT/SIGTERM handler (once; later calls do nothing).
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        INSTALLED.store(true, Ordering::SeqCst);
        let handler = on_signal as extern "C" fn(c_int) as usize;
        // SAFETY: `on_signal` has the C handler signature and does only async-signal-safe work.
        unsafe {
            signal(SIGINT, handler);
            signal(SIGTERM, handler);
        }
    });
}

/// Clears its slot when dropped (after the rename, or after a failed write removed the file).
pub struct Pending(Option<usize>);

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            PENDING[i].store(null_mut(), Ordering::SeqCst);
        }
    }
}

/// Registers `tmp` for removal by the handler (more than 64 writes at once go unregistered).
pub fn register(tmp: &Path) -> Pending {
    if !INSTALLED.load(Ordering::SeqCst) {
        return Pending(None);
    }
    let Ok(c) = CString::new(tmp.as_os_str().as_bytes()) else { return Pending(None) };
    let p = Box::leak(c.into_boxed_c_str()).as_ptr() as *mut c_char;
    for (i, slot) in PENDING.iter().enumerate() {
        if slot.compare_exchange(null_mut(), p, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            return Pending(Some(i));
        }
    }
    Pending(None)
}
