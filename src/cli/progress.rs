//! Progress on a terminal for `prove` (every kind) and `bench porep|window-post|winning-post|
//! snap`: a spinner while the inputs are checked and the parameters and constraints load, then
//! a bar of partitions proved of the total (for a bench, with the proofs verified). Drawn on
//! stderr only when stderr is a terminal (nothing at all otherwise, so logs, scripts and
//! `--json` see only the report), and cleared before the report is printed on stdout.
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Result;
use filsnark::job::ProveReport;
use filsnark::pipeline::proofs::Events;
use indicatif::{ProgressBar, ProgressStyle};

/// Runs one `prove` with the terminal's progress, cleared before anything else is printed.
pub fn with_progress(prove: impl FnOnce(&dyn Events) -> Result<ProveReport>) -> Result<ProveReport> {
    let progress = ProveProgress::new();
    let report = prove(&progress);
    progress.finish();
    report
}

pub struct ProveProgress {
    bar: ProgressBar,
    /// Proofs the run makes (a bench's `-j`; 1 for `prove`).
    proofs: usize,
    verified: AtomicUsize,
}

impl ProveProgress {
    /// The progress of one proof (`prove`).
    pub fn new() -> Self {
        Self::of_proofs(1)
    }

    /// The progress of a run of `proofs` proofs (`bench -j`); shown on a terminal, hidden
    /// elsewhere.
    pub fn of_proofs(proofs: usize) -> Self {
        let bar = if std::io::stderr().is_terminal() { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
        bar.enable_steady_tick(Duration::from_millis(200));
        ProveProgress { bar, proofs, verified: AtomicUsize::new(0) }
    }

    /// Whether anything is drawn (stderr is a terminal).
    pub fn is_drawn(&self) -> bool {
        !self.bar.is_hidden()
    }

    /// Removes the bar before the report.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Events for ProveProgress {
    fn stage(&self, what: &str) {
        self.bar
            .set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("a valid template"));
        self.bar.set_message(what.to_string());
    }

    fn partitions(&self, total: usize) {
        self.bar.set_length(total as u64);
        self.bar.set_position(0);
        self.bar.set_message(self.proofs_message(0));
        self.bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} partitions proved and verified{msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
    }

    fn partition_done(&self, _proof: usize, _partition: usize) {
        self.bar.inc(1);
    }

    fn proof_done(&self, _proof: usize, _bytes: &[u8]) -> Result<()> {
        let n = self.verified.fetch_add(1, Ordering::SeqCst) + 1;
        self.bar.set_message(self.proofs_message(n));
        Ok(())
    }
}

impl ProveProgress {
    /// ", n/m proofs" after the bar of a run of several proofs; nothing for one.
    fn proofs_message(&self, verified: usize) -> String {
        if self.proofs > 1 {
            format!(", {verified}/{} proofs", self.proofs)
        } else {
            String::new()
        }
    }
}
