//! One process drives a run file at a time. `execbench run` holds an exclusive lock on
//! `<RUN.jsonl>.lock` for as long as it runs; a second process on the same file is refused before
//! any request, naming the process that holds it (its pid and host, written in the lock file).
//!
//! The lock is the operating system's (`File::try_lock`), so it goes with its process: a run that
//! was killed leaves the lock file behind but never a held lock, and the next `--resume` takes it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The held lock; released (and its file removed) when dropped.
pub struct RunLock {
    file: File,
    path: PathBuf,
}

/// The lock file of a run file: the same name with `.lock` after it.
pub fn lock_path(run_file: &Path) -> PathBuf {
    let mut name = run_file.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Who this process is, as the lock file says it.
fn holder_line() -> String {
    format!("pid {} on {}", std::process::id(), host_name())
}

fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into our buffer.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    match std::str::from_utf8(&buf[..end]) {
        Ok(name) if ok && !name.is_empty() => name.to_string(),
        _ => "this machine".to_string(),
    }
}

/// Takes the lock of `run_file` or says who holds it.
pub fn lock_run_file(run_file: &Path) -> Result<RunLock, String> {
    let path = lock_path(run_file);
    // A holder that finishes removes the file; a file opened just before that removal is locked
    // by nobody else, so the lock is taken again on whatever the path names now.
    for _ in 0..8 {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| format!("cannot open the lock file {}: {e}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let holder = if holder.is_empty() { "another process" } else { holder };
                return Err(format!(
                    "{} is being run by {holder} (its lock: {}); wait for it to end, or stop it, then --resume",
                    run_file.display(),
                    path.display()
                ));
            }
            Err(TryLockError::Error(e)) => return Err(format!("cannot lock {}: {e}", path.display())),
        }
        if !names_same_file(&file, &path) {
            continue;
        }
        let written = file.set_len(0).and_then(|_| file.rewind()).and_then(|_| writeln!(file, "{}", holder_line()));
        written.map_err(|e| format!("cannot write the lock file {}: {e}", path.display()))?;
        return Ok(RunLock { file, path });
    }
    Err(format!("cannot lock {}: its lock file keeps changing", run_file.display()))
}

#[cfg(unix)]
fn names_same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(held), Ok(named)) => held.dev() == named.dev() && held.ino() == named.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn names_same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Removed while still held, so no other process can lock this file and then lose it.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_free_once_dropped() {
        let dir = std::env::temp_dir().join(format!("execbench-runlock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let run = dir.join("run.jsonl");
        let held = lock_run_file(&run).expect("the first lock");
        let written = std::fs::read_to_string(lock_path(&run)).unwrap();
        assert_eq!(written.trim(), holder_line());
        // Locks are per open file, so a second open in this process is refused as another's is.
        let refused = lock_run_file(&run).err().unwrap_or_default();
        assert!(refused.contains(&format!("is being run by pid {}", std::process::id())), "{refused}");
        drop(held);
        assert!(!lock_path(&run).exists(), "the lock file goes with the lock");
        // A lock file left by a killed process (content, no lock) does not block.
        std::fs::write(lock_path(&run), "pid 1 on elsewhere\n").unwrap();
        let again = lock_run_file(&run).expect("a stale lock file is taken over");
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
