//! The progress bar of a slow input: drawn on standard error once an input has taken
//! [`DELAY`], and only when standard error is a terminal, so quick runs and redirected
//! output never see it.

use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// How long an input runs before its bar appears.
pub const DELAY: Duration = Duration::from_secs(1);

/// The progress of one input.
pub struct Progress {
    label: String,
    /// The input's length, when known (files); streams show a byte count and a rate.
    total: Option<u64>,
    started: Instant,
    enabled: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Progress for the input `label`; nothing is ever drawn unless `wanted` and standard
    /// error is a terminal.
    pub fn new(label: &str, total: Option<u64>, wanted: bool) -> Progress {
        Progress {
            label: label.to_owned(),
            total,
            started: Instant::now(),
            enabled: wanted && io::stderr().is_terminal(),
            bar: None,
        }
    }

    /// `done` bytes of the input are checked.
    pub fn set(&mut self, done: u64) {
        if !self.enabled {
            return;
        }
        if self.bar.is_none() && self.started.elapsed() >= DELAY {
            self.bar = Some(self.draw());
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// The input is done: the bar, if any, disappears.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }

    fn draw(&self) -> ProgressBar {
        // Both draw on standard error.
        let (bar, template) = match self.total {
            Some(total) => (
                ProgressBar::new(total),
                "{prefix} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
            ),
            None => (
                ProgressBar::no_length(),
                "{prefix} {spinner} {bytes} {binary_bytes_per_sec}",
            ),
        };
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(self.label.clone());
        bar
    }
}
