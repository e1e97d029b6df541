//! Device memory accounting: every [`DeviceBuffer`](super::DeviceBuffer) of a context is counted
//! here when it is allocated and when it is freed, so the memory plan can be checked against what
//! the prover really holds. The ledger keeps the bytes in use, the peak since the last mark, and
//! an optional limit (the plan's reservation): an allocation that would pass the limit fails with
//! [`GpuError::OutOfPlan`] before the driver is asked, instead of an out-of-memory error from deep
//! inside a kernel pipeline, or a neighbour's allocation failing later.
use std::sync::atomic::{AtomicU64, Ordering};

use super::GpuError;

/// No limit.
const UNLIMITED: u64 = u64::MAX;

#[derive(Debug)]
pub struct Ledger {
    used: AtomicU64,
    peak: AtomicU64,
    limit: AtomicU64,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger { used: AtomicU64::new(0), peak: AtomicU64::new(0), limit: AtomicU64::new(UNLIMITED) }
    }
}

impl Ledger {
    /// Counts `bytes` as allocated, or refuses them when they would pass the limit.
    pub fn reserve(&self, bytes: u64) -> Result<(), GpuError> {
        let limit = self.limit.load(Ordering::Relaxed);
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let after = used.saturating_add(bytes);
            if after > limit {
                return Err(GpuError::OutOfPlan { requested: bytes, in_use: used, limit });
            }
            match self.used.compare_exchange_weak(used, after, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => {
                    self.peak.fetch_max(after, Ordering::AcqRel);
                    return Ok(());
                }
                Err(now) => used = now,
            }
        }
    }

    /// Counts `bytes` as freed.
    pub fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// Bytes in use now.
    pub fn in_use(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }

    /// The most bytes in use at once since the last [`Ledger::mark`].
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Acquire)
    }

    /// Starts a new peak measurement from the bytes in use now.
    pub fn mark(&self) {
        self.peak.store(self.in_use(), Ordering::Release);
    }

    /// Sets (Some) or lifts (None) the limit on the bytes in use.
    pub fn set_limit(&self, limit: Option<u64>) {
        self.limit.store(limit.unwrap_or(UNLIMITED), Ordering::Release);
    }

    /// The limit, if any.
    pub fn limit(&self) -> Option<u64> {
        Some(self.limit.load(Ordering::Acquire)).filter(|&l| l != UNLIMITED)
    }

    /// Bytes that may still be allocated under the limit, if any.
    pub fn headroom(&self) -> Option<u64> {
        self.limit().map(|l| l.saturating_sub(self.in_use()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_peaks_and_refuses_past_the_limit() {
        let l = Ledger::default();
        l.reserve(100).unwrap();
        l.reserve(50).unwrap();
        l.release(100);
        assert_eq!((l.in_use(), l.peak()), (50, 150));
        l.mark();
        assert_eq!(l.peak(), 50);
        l.set_limit(Some(120));
        let err = l.reserve(71).unwrap_err();
        assert!(matches!(err, GpuError::OutOfPlan { requested: 71, in_use: 50, limit: 120 }), "{err:?}");
        assert!(err.to_string().contains("memory plan"), "{err}");
        assert_eq!(l.in_use(), 50, "a refused allocation is not counted");
        assert_eq!(l.headroom(), Some(70));
        l.reserve(70).unwrap();
        assert_eq!(l.headroom(), Some(0));
        l.set_limit(None);
        assert_eq!(l.headroom(), None);
        l.reserve(1 << 40).unwrap();
        assert_eq!(l.limit(), None);
    }
}
