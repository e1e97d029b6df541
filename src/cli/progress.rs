//! Progress on a terminal for `prove porep`: a spinner while the c1 is checked and the
//! parameters and constraints load, then a bar of partitions proved of the total. Drawn on
//! stderr only when stderr is a terminal (nothing at all otherwise, so logs and scripts see
//! only the report), and cleared before the report is printed on stdout.
use std::io::IsTerminal;
use std::time::Duration;

use filsnark::pipeline::proofs::Events;
use indicatif::{ProgressBar, ProgressStyle};

pub struct ProveProgress {
    bar: ProgressBar,
}

impl ProveProgress {
    /// Shown on a terminal, hidden elsewhere.
    pub fn new() -> Self {
        let bar = if std::io::stderr().is_terminal() { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
        bar.enable_steady_tick(Duration::from_millis(200));
        ProveProgress { bar }
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
        self.bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} partitions proved and verified")
                .expect("a valid template")
                .progress_chars("=> "),
        );
    }

    fn partition_done(&self, _proof: usize, _partition: usize) {
        self.bar.inc(1);
    }
}
