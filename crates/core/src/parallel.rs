//! How many threads are worth using natively. The work itself is spread by each front end: the
//! command line over worker processes (`execbench_run`'s Python pool), the page over Web Workers.

use std::thread;

/// The number of threads worth using: the machine's cores (1 when unknown).
pub fn available_jobs() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}
