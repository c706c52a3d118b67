//! A progress bar on stderr: redrawn in place on a terminal, a line every 10% otherwise.

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    total: usize,
    done: usize,
    started: Instant,
    terminal: bool,
    last_decile: usize,
}

impl Progress {
    pub fn new(total: usize) -> Self {
        Progress { total, done: 0, started: Instant::now(), terminal: std::io::stderr().is_terminal(), last_decile: 0 }
    }

    pub fn tick(&mut self, failed: usize) {
        self.done += 1;
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = if elapsed > 0.0 { self.done as f64 / elapsed } else { 0.0 };
        let width = 30;
        let filled = (self.done * width).checked_div(self.total).unwrap_or(width);
        let line = format!(
            "[{}{}] {}/{} ({failed} failed) {:.1} s, {:.0} samples/s",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.done,
            self.total,
            elapsed,
            rate
        );
        let mut err = std::io::stderr();
        if self.terminal {
            let _ = write!(err, "\r{line}");
            if self.done == self.total {
                let _ = writeln!(err);
            }
        } else {
            let decile = (self.done * 10).checked_div(self.total).unwrap_or(10);
            if decile != self.last_decile || self.done == self.total {
                self.last_decile = decile;
                let _ = writeln!(err, "{line}");
            }
        }
    }
}
