//! The machine a run measured on: how many cores it has and how busy it was. On a shared machine
//! the browser timings move with the load (docs/performance.md: the same build's "Python ready"
//! offline 109-129 ms idle, 142-159 ms with one of two cores busy), so every run prints what it
//! ran beside, and `--busy-cores N` takes N cores on purpose, to measure a loaded device the same
//! way twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

use crate::figures::{Amount, Figure};

/// Threads that keep cores busy until dropped: the competing work of `--busy-cores N`.
pub struct Busy {
    stop: Arc<AtomicBool>,
    rounds: Arc<AtomicU64>,
    threads: Vec<JoinHandle<()>>,
}

impl Busy {
    /// Starts `cores` spinning threads (none for 0).
    pub fn hold(cores: usize) -> Busy {
        let stop = Arc::new(AtomicBool::new(false));
        let rounds = Arc::new(AtomicU64::new(0));
        let threads = (0..cores)
            .map(|i| {
                let (stop, rounds) = (stop.clone(), rounds.clone());
                std::thread::Builder::new()
                    .name(format!("busy-core-{i}"))
                    .spawn(move || spin(&stop, &rounds))
                    .expect("a busy thread starts")
            })
            .collect();
        Busy { stop, rounds, threads }
    }

    /// Rounds of work done so far by all the threads (each round is about a million additions).
    pub fn rounds(&self) -> u64 {
        self.rounds.load(Ordering::Relaxed)
    }
}

/// Arithmetic the optimiser cannot drop, checking `stop` between rounds; not `spin_loop`, which
/// tells the core to idle.
fn spin(stop: &AtomicBool, rounds: &AtomicU64) {
    let mut x = 0u64;
    while !stop.load(Ordering::Relaxed) {
        for i in 0..1_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        rounds.fetch_add(1, Ordering::Relaxed);
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// The one-minute load average from the text of `/proc/loadavg` (`0.38 2.62 3.38 1/234 5678`).
pub fn parse_load(text: &str) -> Option<f64> {
    text.split_whitespace().next()?.parse().ok().filter(|load: &f64| load.is_finite() && *load >= 0.0)
}

/// The one-minute load average, where the system says it (Linux); `None` elsewhere.
pub fn load_average() -> Option<f64> {
    parse_load(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

/// What the machine was doing around a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conditions {
    pub cores: usize,
    pub busy_cores: usize,
    pub load_before: Option<f64>,
    pub load_after: Option<f64>,
    /// Rounds of work the busy threads did ([`Busy::rounds`]): proof they ran.
    pub busy_rounds: u64,
}

impl Conditions {
    /// One line for the top of the output (before the run) or its end.
    pub fn describe(&self) -> String {
        let load = |l: Option<f64>| l.map_or("unknown".to_string(), |l| format!("{l:.2}"));
        let mut line = format!(
            "machine: {} logical core(s); load average (1 min) before the run {}",
            self.cores,
            load(self.load_before)
        );
        if self.load_after.is_some() {
            line.push_str(&format!(", after it {}", load(self.load_after)));
        }
        if self.busy_cores > 0 {
            line.push_str(&format!(
                "; {} core(s) kept busy by the benchmark itself throughout (--busy-cores)",
                self.busy_cores
            ));
        }
        if self.busy_rounds > 0 {
            line.push_str(&format!(", which did {} rounds of work", self.busy_rounds));
        }
        line
    }

    /// The same as figures, so `--json` carries the conditions beside the times.
    pub fn figures(&self) -> Vec<Figure> {
        let row = |metric: &str, amount: Option<Amount>| Figure::alone("machine", metric, amount);
        let load = |l: Option<f64>| l.map(|l| Amount::Text(format!("{l:.2}")));
        vec![
            row("logical cores", Some(Amount::Text(self.cores.to_string()))),
            row("cores kept busy by the benchmark (--busy-cores)", Some(Amount::Text(self.busy_cores.to_string()))),
            row("load average (1 min) before the run", load(self.load_before)),
            row("load average (1 min) after the run", load(self.load_after)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn load_average_from_proc_text() {
        let cases: [(&str, Option<f64>); 6] = [
            ("0.38 2.62 3.38 1/234 5678\n", Some(0.38)),
            ("12.00 1 1 1/1 1", Some(12.0)),
            ("", None),
            ("abc 1 1", None),
            ("-1 0 0", None),
            ("NaN 0 0", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_load(text), expected, "{text:?}");
        }
    }

    #[test]
    fn busy_threads_work_while_held_and_stop_when_dropped() {
        let busy = Busy::hold(1);
        let deadline = Instant::now() + Duration::from_secs(30);
        while busy.rounds() < 3 {
            assert!(Instant::now() < deadline, "a busy thread did no work in 30 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        let rounds = busy.rounds.clone();
        drop(busy);
        let after_drop = rounds.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(rounds.load(Ordering::Relaxed), after_drop, "a busy thread went on after the drop");
        assert_eq!(Busy::hold(0).threads.len(), 0);
    }

    #[test]
    fn conditions_say_the_load_and_the_busy_cores() {
        let quiet = Conditions { cores: 2, busy_cores: 0, load_before: Some(0.38), load_after: None, busy_rounds: 0 };
        assert_eq!(quiet.describe(), "machine: 2 logical core(s); load average (1 min) before the run 0.38");
        let loaded = Conditions { cores: 2, busy_cores: 1, load_before: None, load_after: Some(1.2), busy_rounds: 7 };
        assert_eq!(
            loaded.describe(),
            "machine: 2 logical core(s); load average (1 min) before the run unknown, after it 1.20; \
             1 core(s) kept busy by the benchmark itself throughout (--busy-cores), which did 7 rounds of work"
        );
        let rows = loaded.figures();
        assert_eq!(rows.len(), 4);
        assert!(rows.iter().all(|r| r.section == "machine"));
        assert_eq!(rows[1].execbench, Some(Amount::Text("1".into())));
        assert_eq!(rows[2].execbench, None);
    }
}
