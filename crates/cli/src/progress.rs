//! Progress on stderr for the long commands: an `indicatif` bar when stderr is a terminal; when it
//! is not (pipes, CI, the tests), the plain lines the commands have always printed, which scripts
//! and tests read.

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar on stderr, or `None` when stderr is not a terminal.
fn terminal_bar(total: usize) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let style = ProgressStyle::with_template("[{bar:30}] {pos}/{len} {elapsed}, {eta} left {wide_msg}")
        .expect("the template is valid")
        .progress_chars("#>-");
    Some(ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr()).with_style(style))
}

/// Progress over a loop of items, each ticked once when done.
pub struct Progress {
    total: usize,
    done: usize,
    started: Instant,
    bar: Option<ProgressBar>,
    /// Print the plain lines when there is no bar (off for commands that never printed them).
    plain_lines: bool,
    last_decile: usize,
}

impl Progress {
    /// A bar on a terminal, else a plain line every 10%.
    pub fn new(total: usize) -> Self {
        Progress {
            total,
            done: 0,
            started: Instant::now(),
            bar: terminal_bar(total),
            plain_lines: true,
            last_decile: 0,
        }
    }

    /// A bar on a terminal, and nothing at all otherwise.
    pub fn bar_only(total: usize) -> Self {
        Progress { plain_lines: false, ..Progress::new(total) }
    }

    /// One more item done; `failed` of all done so far failed.
    pub fn tick(&mut self, failed: usize) {
        self.done += 1;
        if let Some(bar) = &self.bar {
            bar.set_message(format!("({failed} failed)"));
            bar.set_position(self.done as u64);
            // Cleared when done: the command's summary follows, and the bar has no line end.
            if self.done >= self.total {
                bar.finish_and_clear();
            }
            return;
        }
        if !self.plain_lines {
            return;
        }
        let decile = (self.done * 10).checked_div(self.total).unwrap_or(10);
        if decile != self.last_decile || self.done == self.total {
            self.last_decile = decile;
            eprintln!("{}", self.plain_line(failed));
        }
    }

    /// The plain line: `[#####-----] 5/10 (1 failed) 0.3 s, 17 samples/s`.
    fn plain_line(&self, failed: usize) -> String {
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = if elapsed > 0.0 { self.done as f64 / elapsed } else { 0.0 };
        let width = 30;
        let filled = (self.done * width).checked_div(self.total).unwrap_or(width).min(width);
        format!(
            "[{}{}] {}/{} ({failed} failed) {:.1} s, {:.0} samples/s",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.done,
            self.total,
            elapsed,
            rate
        )
    }
}

/// Progress of a command whose library reports its status as events (`run`, `build generate`):
/// a bar on a terminal; otherwise the command prints its own status lines, as it always has.
pub struct StatusBar(ProgressBar);

impl StatusBar {
    /// `None` when stderr is not a terminal.
    pub fn on_terminal(total: usize) -> Option<StatusBar> {
        terminal_bar(total).map(StatusBar)
    }

    pub fn show(&self, done: usize, total: usize, message: &str) {
        self.0.set_length(total as u64);
        self.0.set_position(done as u64);
        self.0.set_message(message.to_string());
        if done >= total {
            self.0.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_line_fills_in_proportion() {
        let mut progress = Progress { bar: None, ..Progress::new(4) };
        progress.done = 1;
        let line = progress.plain_line(0);
        assert!(line.starts_with(&format!("[{}{}] 1/4 (0 failed) ", "#".repeat(7), "-".repeat(23))), "{line}");
        progress.done = 4;
        assert!(progress.plain_line(2).starts_with(&format!("[{}] 4/4 (2 failed) ", "#".repeat(30))));
        // An empty loop is done at once.
        let empty = Progress { bar: None, ..Progress::new(0) };
        assert!(empty.plain_line(0).starts_with(&format!("[{}] 0/0", "#".repeat(30))));
    }
}
