//! Partitions through the two locks (docs/ARCHITECTURE.md, "The two-lock pipeline").
//!
//! Every partition of every proof is one *job*. A job goes through these stages:
//!
//! ```text
//!  picked ──▶ [host lock] synthesize ──▶ queue ──▶ [device lock d] prove ──▶ assemble + verify (CPU)
//!         host wait        synthesis    queue wait        device                 verify
//! ```
//!
//! - **In flight.** A job is *in flight* from the moment a worker picks it until its device phase
//!   has ended (its witness is dropped then). The number of jobs in flight is bounded by the
//!   memory budget: `in_flight = ⌊(budget − static) / per_partition⌋` (see [`budget`]). It is
//!   enforced by running exactly `min(in_flight, jobs)` worker threads, each carrying one job at a
//!   time from pick to verification; a worker picks its next job only when its last one is done.
//! - **Host lock.** A counting lock of `host = min(-c, in_flight)` permits, taken for synthesis
//!   only (the phase heavy on host memory bandwidth). Permits are granted in job order (proof 0's
//!   partitions before proof 1's), so several proofs flow in order rather than all at once.
//! - **Queue.** A synthesized job releases its host permit and waits for a device. The queue is
//!   FIFO in the order synthesis finished and bounded: at most `in_flight − devices` jobs can be
//!   in it, since every queued job is held by a worker.
//! - **Device locks.** One per device ([`crate::prover::Backend::devices`]); a queued job takes
//!   whichever device frees first. Nothing in the pipeline synchronises globally: each lock is
//!   its own mutex and condition variable, and no stage waits for all jobs of a round.
//! - **Errors.** The first error (or panic) in any stage aborts the run: waiting workers wake up
//!   and leave, running stages finish their current step, and `run` returns that first error.
//!
//! [`run`] is generic over the [`Stages`] (the scheduling is tested with sleeping fake stages);
//! [`proofs`] instantiates it for the proofs of every kind with a [`crate::prover::Backend`].
pub mod budget;
pub mod proofs;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

/// How many of each thing may run at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Host-lock permits: syntheses at once.
    pub host: usize,
    /// Jobs in flight (picked and not yet through the device): the memory bound.
    pub in_flight: usize,
    /// Device locks.
    pub devices: usize,
}

/// The work of one kind of job, stage by stage. Called from several threads at once.
pub trait Stages: Sync {
    type Job: Send + Sync;
    type Synth: Send;
    type Proved: Send;
    /// Under the host lock.
    fn synthesize(&self, job: &Self::Job) -> Result<Self::Synth>;
    /// Under the lock of device `device`.
    fn device(&self, device: usize, job: &Self::Job, synth: Self::Synth) -> Result<Self::Proved>;
    /// After the device lock is released (assembly, verification, collecting results).
    fn finish(&self, job: &Self::Job, proved: Self::Proved, record: &Record) -> Result<()>;
    /// The job for messages, e.g. "proof 0 partition 3 (c1.json)".
    fn name(&self, job: &Self::Job) -> String;
}

/// When each stage of one job began and ended, as offsets from the start of [`run`].
#[derive(Clone, Debug, Default)]
pub struct Record {
    /// Index of the job in the list given to [`run`].
    pub job: usize,
    pub device: usize,
    pub picked: Duration,
    pub synth_start: Duration,
    pub synth_end: Duration,
    pub device_start: Duration,
    pub device_end: Duration,
    pub done: Duration,
}

impl Record {
    pub fn host_wait(&self) -> Duration {
        self.synth_start - self.picked
    }
    pub fn synthesis(&self) -> Duration {
        self.synth_end - self.synth_start
    }
    pub fn queue_wait(&self) -> Duration {
        self.device_start - self.synth_end
    }
    pub fn device_time(&self) -> Duration {
        self.device_end - self.device_start
    }
    pub fn verify(&self) -> Duration {
        self.done - self.device_end
    }
}

/// What a run did: one record per job, in job order, and its wall time.
#[derive(Clone, Debug)]
pub struct RunRecords {
    pub records: Vec<Record>,
    pub wall: Duration,
}

/// A set of `n` slots handed out in ticket order: a caller waits until its ticket is the next
/// one to serve and a slot is free. Used for the host lock (tickets = job order) and for the
/// device locks (tickets = arrival order, one slot per device).
struct Slots {
    state: Mutex<SlotState>,
    cv: Condvar,
}

struct SlotState {
    free: Vec<bool>,
    /// Next ticket to serve.
    serving: u64,
    /// Next ticket to hand out (for `acquire_next`).
    next: u64,
}

impl Slots {
    fn new(n: usize) -> Self {
        Slots { state: Mutex::new(SlotState { free: vec![true; n], serving: 0, next: 0 }), cv: Condvar::new() }
    }

    /// Takes the next ticket and waits for a slot; None when the run is aborted.
    fn acquire_next(&self, abort: &AtomicBool, start: Instant) -> Option<(usize, Duration)> {
        let ticket = {
            let mut st = self.state.lock().unwrap();
            st.next += 1;
            st.next - 1
        };
        self.acquire(ticket, abort, start)
    }

    /// Waits until `ticket` is served and a slot is free; returns the slot (the lowest free) and
    /// the time it was granted since `start` (read under the lock, so grants are ordered in time).
    fn acquire(&self, ticket: u64, abort: &AtomicBool, start: Instant) -> Option<(usize, Duration)> {
        let mut st = self.state.lock().unwrap();
        loop {
            if abort.load(Ordering::SeqCst) {
                return None;
            }
            if st.serving == ticket {
                if let Some(i) = st.free.iter().position(|f| *f) {
                    st.free[i] = false;
                    st.serving += 1;
                    self.cv.notify_all();
                    return Some((i, start.elapsed()));
                }
            }
            st = self.cv.wait(st).unwrap();
        }
    }

    fn release(&self, slot: usize) {
        let mut st = self.state.lock().unwrap();
        st.free[slot] = true;
        self.cv.notify_all();
    }

    fn wake_all(&self) {
        let _st = self.state.lock().unwrap();
        self.cv.notify_all();
    }
}

/// Releases a slot when dropped, so a failing or panicking stage never keeps a lock.
struct Held<'a> {
    slots: &'a Slots,
    slot: usize,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.slots.release(self.slot);
    }
}

struct Shared<'a, S: Stages> {
    stages: &'a S,
    jobs: &'a [S::Job],
    next_job: Mutex<usize>,
    host: Slots,
    devices: Slots,
    abort: AtomicBool,
    error: Mutex<Option<anyhow::Error>>,
    records: Mutex<Vec<Option<Record>>>,
    start: Instant,
}

impl<S: Stages> Shared<'_, S> {
    fn fail(&self, e: anyhow::Error) {
        let mut err = self.error.lock().unwrap();
        if err.is_none() {
            *err = Some(e);
        }
        drop(err);
        self.abort.store(true, Ordering::SeqCst);
        self.host.wake_all();
        self.devices.wake_all();
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn worker(&self) {
        loop {
            if self.abort.load(Ordering::SeqCst) {
                return;
            }
            let idx = {
                let mut n = self.next_job.lock().unwrap();
                if *n >= self.jobs.len() {
                    return;
                }
                *n += 1;
                *n - 1
            };
            if let Err(e) = self.one(idx) {
                self.fail(e);
                return;
            }
        }
    }

    /// Takes job `idx` through every stage. Ok(()) also when the run was aborted meanwhile.
    fn one(&self, idx: usize) -> Result<()> {
        let job = &self.jobs[idx];
        let mut rec = Record { job: idx, picked: self.now(), ..Default::default() };

        // Host lock, in job order.
        let Some((slot, granted)) = self.host.acquire(idx as u64, &self.abort, self.start) else { return Ok(()) };
        let held = Held { slots: &self.host, slot };
        rec.synth_start = granted;
        let name = || self.stages.name(job);
        let synth = guarded(|| self.stages.synthesize(job), "synthesis", name)?;
        rec.synth_end = self.now();
        drop(held);

        // Queue, then whichever device frees first.
        let Some((device, granted)) = self.devices.acquire_next(&self.abort, self.start) else { return Ok(()) };
        let held = Held { slots: &self.devices, slot: device };
        rec.device = device;
        rec.device_start = granted;
        let proved = guarded(|| self.stages.device(device, job, synth), "proving", name)?;
        rec.device_end = self.now();
        drop(held);

        let rec_done = Record { done: self.now(), ..rec.clone() };
        guarded(|| self.stages.finish(job, proved, &rec_done), "verification", name)?;
        rec.done = self.now();
        self.records.lock().unwrap()[idx] = Some(rec);
        Ok(())
    }
}

/// Runs `f`, turning a panic into an error that names the job and the stage.
fn guarded<T>(f: impl FnOnce() -> Result<T>, stage: &str, job: impl FnOnce() -> String) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = crate::output::panics::message(p.as_ref());
            Err(anyhow!("{}: {stage} stopped on an internal error ({msg}); {}", job(), crate::output::panics::REPORT))
        }
    }
}

/// Runs every job through the stages within `limits`; returns when all are done or the first
/// error has stopped the run.
pub fn run<S: Stages>(stages: &S, jobs: &[S::Job], limits: Limits) -> Result<RunRecords> {
    if limits.host == 0 || limits.in_flight == 0 || limits.devices == 0 {
        return Err(anyhow!("pipeline limits must all be at least 1: {limits:?}"));
    }
    let shared = Shared {
        stages,
        jobs,
        next_job: Mutex::new(0),
        host: Slots::new(limits.host.min(limits.in_flight)),
        devices: Slots::new(limits.devices),
        abort: AtomicBool::new(false),
        error: Mutex::new(None),
        records: Mutex::new(vec![None; jobs.len()]),
        start: Instant::now(),
    };
    let workers = limits.in_flight.min(jobs.len());
    std::thread::scope(|scope| {
        for w in 0..workers {
            let shared = &shared;
            std::thread::Builder::new()
                .name(format!("pipeline-{w}"))
                .spawn_scoped(scope, move || shared.worker())
                .expect("spawn a pipeline worker");
        }
    });
    let wall = shared.now();
    if let Some(e) = shared.error.into_inner().unwrap() {
        return Err(e);
    }
    let records = shared.records.into_inner().unwrap();
    let records = records
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.ok_or_else(|| anyhow!("pipeline job {i} did not finish")))
        .collect::<Result<Vec<_>>>()?;
    Ok(RunRecords { records, wall })
}

/// Runs one job whose synthesis panics, through [`run`]: the error a bug in a stage gives
/// (`filsnark selftest panic --in-worker`).
pub fn panic_in_a_worker() -> Result<()> {
    struct Panicking;
    impl Stages for Panicking {
        type Job = ();
        type Synth = ();
        type Proved = ();
        fn synthesize(&self, _: &()) -> Result<()> {
            panic!("selftest panic in a pipeline worker")
        }
        fn device(&self, _: usize, _: &(), _: ()) -> Result<()> {
            Ok(())
        }
        fn finish(&self, _: &(), _: (), _: &Record) -> Result<()> {
            Ok(())
        }
        fn name(&self, _: &()) -> String {
            "selftest job 0".into()
        }
    }
    run(&Panicking, &[()], Limits { host: 1, in_flight: 1, devices: 1 }).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Sleeping stages that count how many run at once.
    struct Fake {
        synth_ms: u64,
        device_ms: u64,
        host_now: AtomicUsize,
        host_max: AtomicUsize,
        flight_now: AtomicUsize,
        flight_max: AtomicUsize,
        dev_busy: Vec<AtomicBool>,
        fail_at: Option<usize>,
        panic_at: Option<usize>,
        finished: Mutex<Vec<usize>>,
    }

    impl Fake {
        fn new(synth_ms: u64, device_ms: u64, devices: usize) -> Self {
            Fake {
                synth_ms,
                device_ms,
                host_now: AtomicUsize::new(0),
                host_max: AtomicUsize::new(0),
                flight_now: AtomicUsize::new(0),
                flight_max: AtomicUsize::new(0),
                dev_busy: (0..devices).map(|_| AtomicBool::new(false)).collect(),
                fail_at: None,
                panic_at: None,
                finished: Mutex::new(Vec::new()),
            }
        }
    }

    fn bump(now: &AtomicUsize, max: &AtomicUsize) {
        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
        max.fetch_max(n, Ordering::SeqCst);
    }

    impl Stages for Fake {
        type Job = usize;
        type Synth = usize;
        type Proved = usize;
        fn synthesize(&self, job: &usize) -> Result<usize> {
            bump(&self.flight_now, &self.flight_max);
            bump(&self.host_now, &self.host_max);
            std::thread::sleep(Duration::from_millis(self.synth_ms));
            self.host_now.fetch_sub(1, Ordering::SeqCst);
            if self.fail_at == Some(*job) {
                anyhow::bail!("job {job} failed");
            }
            Ok(*job)
        }
        fn device(&self, device: usize, job: &usize, synth: usize) -> Result<usize> {
            assert_eq!(*job, synth);
            assert!(!self.dev_busy[device].swap(true, Ordering::SeqCst), "device {device} used twice at once");
            if self.panic_at == Some(*job) {
                self.dev_busy[device].store(false, Ordering::SeqCst);
                panic!("boom at {job}");
            }
            std::thread::sleep(Duration::from_millis(self.device_ms));
            self.dev_busy[device].store(false, Ordering::SeqCst);
            self.flight_now.fetch_sub(1, Ordering::SeqCst);
            Ok(synth)
        }
        fn finish(&self, job: &usize, proved: usize, _r: &Record) -> Result<()> {
            assert_eq!(*job, proved);
            self.finished.lock().unwrap().push(*job);
            Ok(())
        }
        fn name(&self, job: &usize) -> String {
            format!("fake job {job}")
        }
    }

    #[test]
    fn respects_host_and_in_flight_limits() {
        let fake = Fake::new(20, 10, 1);
        let jobs: Vec<usize> = (0..24).collect();
        let out = run(&fake, &jobs, Limits { host: 3, in_flight: 5, devices: 1 }).unwrap();
        assert_eq!(out.records.len(), 24);
        assert!(fake.host_max.load(Ordering::SeqCst) <= 3);
        assert_eq!(fake.host_max.load(Ordering::SeqCst), 3, "the host lock should fill up");
        assert!(fake.flight_max.load(Ordering::SeqCst) <= 5);
        for r in &out.records {
            assert!(r.picked <= r.synth_start && r.synth_start <= r.synth_end);
            assert!(r.synth_end <= r.device_start && r.device_start <= r.device_end && r.device_end <= r.done);
        }
        // One device: device intervals never overlap.
        let mut iv: Vec<_> = out.records.iter().map(|r| (r.device_start, r.device_end)).collect();
        iv.sort();
        assert!(iv.windows(2).all(|w| w[0].1 <= w[1].0));
    }

    #[test]
    fn synthesis_starts_in_job_order() {
        let fake = Fake::new(5, 1, 1);
        let jobs: Vec<usize> = (0..16).collect();
        let out = run(&fake, &jobs, Limits { host: 2, in_flight: 8, devices: 1 }).unwrap();
        let starts: Vec<_> = out.records.iter().map(|r| r.synth_start).collect();
        assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");
    }

    #[test]
    fn several_devices_share_the_queue() {
        let fake = Fake::new(1, 30, 3);
        let jobs: Vec<usize> = (0..12).collect();
        let out = run(&fake, &jobs, Limits { host: 4, in_flight: 8, devices: 3 }).unwrap();
        let mut used = [0; 3];
        for r in &out.records {
            used[r.device] += 1;
        }
        assert!(used.iter().all(|&n| n > 0), "every device should get work: {used:?}");
        // Three devices at 30 ms each: 12 jobs take about 4 rounds, not 12.
        assert!(out.wall < Duration::from_millis(12 * 30), "{:?}", out.wall);
    }

    #[test]
    fn an_error_stops_the_run_without_deadlock() {
        let mut fake = Fake::new(2, 2, 1);
        fake.fail_at = Some(5);
        let jobs: Vec<usize> = (0..40).collect();
        let err = run(&fake, &jobs, Limits { host: 2, in_flight: 4, devices: 1 }).unwrap_err();
        assert!(format!("{err}").contains("job 5 failed"), "{err}");
        assert!(fake.finished.lock().unwrap().len() < 40);
    }

    #[test]
    fn a_panic_becomes_an_error() {
        let mut fake = Fake::new(1, 1, 2);
        fake.panic_at = Some(3);
        let jobs: Vec<usize> = (0..10).collect();
        let err = run(&fake, &jobs, Limits { host: 2, in_flight: 4, devices: 2 }).unwrap_err();
        let err = format!("{err}");
        assert!(err.contains("boom at 3") && err.contains("fake job 3: "), "{err}");
        assert!(err.contains("internal error") && err.contains("please report it"), "{err}");
    }

    #[test]
    fn more_permits_than_jobs() {
        let fake = Fake::new(1, 1, 1);
        let out = run(&fake, &[0, 1], Limits { host: 15, in_flight: 15, devices: 1 }).unwrap();
        assert_eq!(out.records.len(), 2);
    }
}
