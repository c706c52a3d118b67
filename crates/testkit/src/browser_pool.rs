//! Chromium kept between tests. Starting one (chromedriver, Chromium, a new profile) and quitting
//! it costs about 2 CPU-seconds, and the app's end-to-end tests start about 110 (docs/performance.md,
//! CI time). A browser a test is done with waits here, on a blank page, for the next test.
//!
//! What a test must not see of the tests before it is their pages and their stored data, which a
//! browser keeps per origin (IndexedDB, Cache Storage, service workers, local storage). So:
//! - every site server of the process gets a port none had before ([`site_listener`]): no two
//!   tests share an origin;
//! - a kept browser that has been to a site still served is not lent (so a test that opens
//!   "another browser" on its own site gets one that never saw it); where it has been is what its
//!   window's history says when its test is done (the caller keeps only a browser with one
//!   window and a whole history);
//! - the origins a kept browser has been to are cleared before it is lent again (the caller does
//!   it, [`Lent::forgotten`]), so its profile does not grow from test to test.
//!
//! Not kept (the caller's rules): the browser of a test that failed, one whose network conditions
//! were changed, traced ones and ones on a kept profile. Every kept browser is killed when the
//! process exits.

use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Child;
use std::sync::{Mutex, MutexGuard, Once};

/// A chromedriver with one open session on its own Chromium, waiting on a blank page.
pub(crate) struct Kept {
    pub driver: Child,
    pub port: u16,
    pub session: String,
    pub profile: Option<PathBuf>,
    /// The origins this browser has been to since it was last lent.
    pub seen: BTreeSet<String>,
}

/// A browser handed out, with the origins of earlier tests to clear before it is used.
pub(crate) struct Lent {
    pub kept: Kept,
    pub forgotten: Vec<String>,
}

struct Pool {
    idle: Vec<Kept>,
    /// Sites served now, by the id their server got from [`site_opened`].
    sites: BTreeMap<u64, String>,
    /// Every port a site server had in this process.
    ports: BTreeSet<u16>,
    /// chromedriver process groups (its Chromium joins it) of every kept and lent browser.
    groups: BTreeSet<u32>,
    next_id: u64,
}

static POOL: Mutex<Pool> = Mutex::new(Pool::new());

fn pool() -> MutexGuard<'static, Pool> {
    // A test that panicked while holding the lock left the pool consistent (no step panics).
    POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Pool {
    const fn new() -> Pool {
        Pool { idle: Vec::new(), sites: BTreeMap::new(), ports: BTreeSet::new(), groups: BTreeSet::new(), next_id: 0 }
    }

    fn site_opened(&mut self, origin: &str) -> u64 {
        self.next_id += 1;
        self.sites.insert(self.next_id, origin.to_string());
        self.next_id
    }

    fn lend(&mut self) -> Option<Lent> {
        let served: BTreeSet<&String> = self.sites.values().collect();
        let free = self.idle.iter().position(|kept| kept.seen.iter().all(|origin| !served.contains(origin)))?;
        let mut kept = self.idle.swap_remove(free);
        let forgotten = std::mem::take(&mut kept.seen).into_iter().collect();
        Some(Lent { kept, forgotten })
    }
}

/// A listener on 127.0.0.1 on a port no site server of this process had before.
pub(crate) fn site_listener() -> TcpListener {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        let port = listener.local_addr().expect("local address").port();
        if pool().ports.insert(port) {
            return listener;
        }
    }
}

/// A site served from now on at `origin`.
pub(crate) fn site_opened(origin: &str) -> u64 {
    pool().site_opened(origin)
}

/// The site's server handle is gone: its tests are done with it.
pub(crate) fn site_closed(id: u64) {
    pool().sites.remove(&id);
}

/// A kept browser that has been to no site served now, if there is one.
pub(crate) fn lend() -> Option<Lent> {
    pool().lend()
}

/// A browser whose test is done waits for the next test.
pub(crate) fn give_back(kept: Kept) {
    pool().idle.push(kept);
}

/// chromedriver's process group `group` is killed when the process exits, unless
/// [`process_group_ended`] says it already was.
pub(crate) fn process_group_started(group: u32) {
    static AT_EXIT: Once = Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: registers a plain function with the C library, once.
        unsafe { libc::atexit(kill_every_group) };
    });
    pool().groups.insert(group);
}

pub(crate) fn process_group_ended(group: u32) {
    pool().groups.remove(&group);
}

/// At exit (libtest ends with `exit`): the kept browsers' processes and profiles go.
extern "C" fn kill_every_group() {
    // try_lock: a thread still inside the pool at exit must not hang the process.
    let Ok(mut pool) = POOL.try_lock() else { return };
    for &group in &pool.groups {
        // SAFETY: a signal to a process group this process started.
        unsafe { libc::kill(-(group as i32), libc::SIGKILL) };
    }
    for kept in pool.idle.drain(..) {
        if let Some(profile) = kept.profile {
            let _ = std::fs::remove_dir_all(profile);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(seen: &[&str]) -> Kept {
        let driver = std::process::Command::new("true").spawn().expect("spawn `true`");
        Kept {
            driver,
            port: 0,
            session: String::new(),
            profile: None,
            seen: seen.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Which idle browser a test gets, given the sites served when it asks, step by step.
    #[test]
    fn a_browser_is_lent_only_where_it_went_to_no_site_served_now_and_forgets_those_it_did() {
        let mut pool = Pool::new();
        let one = pool.site_opened("http://127.0.0.1:1");
        let two = pool.site_opened("http://127.0.0.1:2");
        assert!(pool.lend().is_none(), "the pool starts empty");
        pool.idle.push(kept(&["http://127.0.0.1:1"]));
        // Its site is still served (its test opens another browser on it): not lent.
        assert!(pool.lend().is_none(), "a browser that went to a site still served was lent");
        pool.sites.remove(&one);
        // Site 2 is served, but the browser never went there: lent, with site 1 to clear.
        let lent = pool.lend().expect("the kept browser is free again");
        assert_eq!(lent.forgotten, vec!["http://127.0.0.1:1".to_string()]);
        assert!(lent.kept.seen.is_empty());
        assert!(pool.lend().is_none(), "one browser lent twice");
        // Of two, the one that went only to closed sites.
        pool.idle.push(kept(&["http://127.0.0.1:2"]));
        pool.idle.push(kept(&["http://127.0.0.1:1", "http://127.0.0.1:3"]));
        let lent = pool.lend().expect("the second is free");
        assert_eq!(lent.forgotten.len(), 2);
        pool.sites.remove(&two);
        assert!(pool.lend().is_some(), "site 2 is closed now");
    }

    #[test]
    fn site_ports_are_never_handed_out_twice() {
        let ports: BTreeSet<u16> = (0..200).map(|_| site_listener().local_addr().unwrap().port()).collect();
        assert_eq!(ports.len(), 200);
    }
}
