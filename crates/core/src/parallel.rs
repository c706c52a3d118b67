//! Spreading engine runs over threads, natively: one engine per thread, results in input order.
//!
//! RustPython's interpreter cannot move between threads, so each thread makes its own engine
//! inside itself. Threads take the next item from a shared index, so one slow item (a run that
//! waits out its time limit) holds up one thread, not a fixed share of the items. With one job
//! nothing is spawned: the items run on the caller's thread, as a plain loop would.
//!
//! Not for wasm32, where threads cannot be spawned: the page spreads runs over Web Workers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

/// The number of threads worth using: the machine's cores (1 when unknown).
pub fn available_jobs() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// `work(engine, item)` for every item, on up to `jobs` threads, each with its own engine from
/// `make_engine`. The results come back in the order of `items`, whatever order they finish in.
/// `on_done` sees each result on the caller's thread as it finishes (for progress), in finishing
/// order. A panic in `work` is the caller's panic, once every thread has stopped.
pub fn map_with_engines<T, R, E>(
    items: &[T],
    jobs: usize,
    make_engine: impl Fn() -> E + Sync,
    work: impl Fn(&mut E, &T) -> R + Sync,
    mut on_done: impl FnMut(&R),
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    if items.is_empty() {
        return Vec::new();
    }
    // No idle engines: each costs an interpreter's start-up and memory.
    let jobs = jobs.clamp(1, items.len().max(1));
    if jobs == 1 {
        let mut engine = make_engine();
        return items
            .iter()
            .map(|item| {
                let result = work(&mut engine, item);
                on_done(&result);
                result
            })
            .collect();
    }
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<R>> = items.iter().map(|_| None).collect();
    thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel::<(usize, R)>();
        let (next, make_engine, work) = (&next, &make_engine, &work);
        let threads: Vec<_> = (0..jobs)
            .map(|_| {
                let sender = sender.clone();
                scope.spawn(move || {
                    let mut engine = make_engine();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(index) else { break };
                        if sender.send((index, work(&mut engine, item))).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        // The receiving loop ends when every thread has dropped its sender: all done, or panicked.
        drop(sender);
        for (index, result) in receiver {
            on_done(&result);
            slots[index] = Some(result);
        }
        // The thread's own panic, not the scope's generic one, so the message says what broke.
        for thread in threads {
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    slots.into_iter().map(|slot| slot.expect("every item has a result when no thread panicked")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::time::Duration;

    /// An engine that says which one it is, so a test sees the work was shared.
    struct Counter {
        id: usize,
        runs: usize,
    }

    #[test]
    fn results_come_back_in_input_order_whatever_order_they_finish_in() {
        let items: Vec<u64> = (0..40).collect();
        let engines = AtomicUsize::new(0);
        let threads = Mutex::new(std::collections::BTreeSet::new());
        let mut seen = Vec::new();
        let results = map_with_engines(
            &items,
            4,
            || Counter { id: engines.fetch_add(1, Ordering::SeqCst), runs: 0 },
            |engine, item| {
                // Early items are slow, so later ones finish first.
                thread::sleep(Duration::from_millis(if *item < 4 { 30 } else { 1 }));
                engine.runs += 1;
                threads.lock().unwrap().insert(engine.id);
                item * 10
            },
            |result| seen.push(*result),
        );
        assert_eq!(results, items.iter().map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(engines.load(Ordering::SeqCst), 4, "one engine per thread");
        assert!(threads.lock().unwrap().len() > 1, "the work was shared");
        // Every result was reported once, as it finished.
        seen.sort_unstable();
        assert_eq!(seen, results);
    }

    #[test]
    fn one_job_runs_on_the_callers_thread_with_one_engine_in_order() {
        let caller = thread::current().id();
        let engines = AtomicUsize::new(0);
        let mut seen = Vec::new();
        let results = map_with_engines(
            &["a", "b", "c"],
            1,
            || engines.fetch_add(1, Ordering::SeqCst),
            |_, item| {
                assert_eq!(thread::current().id(), caller);
                item.to_uppercase()
            },
            |result| seen.push(result.clone()),
        );
        assert_eq!(results, ["A", "B", "C"]);
        assert_eq!(seen, results, "in order, as a plain loop");
        assert_eq!(engines.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn no_more_engines_than_items_and_none_for_nothing() {
        let engines = AtomicUsize::new(0);
        let results =
            map_with_engines(&[1, 2], 8, || engines.fetch_add(1, Ordering::SeqCst), |_, item| item + 1, |_| {});
        assert_eq!((results, engines.load(Ordering::SeqCst)), (vec![2, 3], 2));
        let none: Vec<i32> =
            map_with_engines(&[], 8, || engines.fetch_add(1, Ordering::SeqCst), |_, item: &i32| *item, |_| {});
        assert!(none.is_empty());
        assert_eq!(engines.load(Ordering::SeqCst), 2, "no engine made for no items");
        assert!(available_jobs() >= 1);
    }

    #[test]
    #[should_panic(expected = "item 3 broke")]
    fn a_panic_in_a_thread_is_the_callers() {
        map_with_engines(
            &[1, 2, 3, 4],
            2,
            || (),
            |_, item| if *item == 3 { panic!("item {item} broke") } else { *item },
            |_| {},
        );
    }
}
