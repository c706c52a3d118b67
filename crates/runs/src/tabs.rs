//! Two tabs, one run: what a page decides about a stored run that another tab of the same
//! browser may be driving. The page holds a lock per run (the Web Locks API, in
//! `src/browser/locks.rs`) for as long as it drives it; these rules only read whether the lock
//! was free, so they are tested natively.

use execbench_providers::KeyUse;

use crate::manifest::{RunEntry, RunState};

/// The name of the lock a tab holds while it drives `run_id` (one per run; a tab may drive one
/// run while another tab drives another).
pub fn lock_name(run_id: &str) -> String {
    format!("execbench-run:{run_id}")
}

/// The lock every import takes, so that two tabs importing the same file do not both pick the
/// same new id (one would replace the other's records).
pub const IMPORT_LOCK: &str = "execbench-import";

/// The name of the `BroadcastChannel` on which tabs tell each other that a run's stored entry
/// changed, so that every tab's list follows at once (not only when its Runs page opens).
pub const NOTICE_CHANNEL: &str = "execbench-runs";

/// What a tab tells the others about a run (after it is stored, so a tab that reads the store on
/// hearing it finds it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A session started driving it (a new run, Resume, Retry errors, Extend, a take-over).
    Started(String),
    /// The tab that drove it let go: the run ended (finished, stopped, failed) or could not start.
    Ended(String),
    /// It was imported.
    Imported(String),
    /// It was deleted with its records.
    Deleted(String),
}

impl Notice {
    /// The message posted: `started ID` (a run id may hold any characters, spaces included).
    pub fn to_message(&self) -> String {
        let (kind, id) = match self {
            Notice::Started(id) => ("started", id),
            Notice::Ended(id) => ("ended", id),
            Notice::Imported(id) => ("imported", id),
            Notice::Deleted(id) => ("deleted", id),
        };
        format!("{kind} {id}")
    }

    /// Reads a message; `None` for anything else posted on the channel (another version of the
    /// page, or nothing this tab knows).
    pub fn from_message(message: &str) -> Option<Notice> {
        let (kind, id) = message.split_once(' ')?;
        if id.is_empty() {
            return None;
        }
        let id = id.to_string();
        match kind {
            "started" => Some(Notice::Started(id)),
            "ended" => Some(Notice::Ended(id)),
            "imported" => Some(Notice::Imported(id)),
            "deleted" => Some(Notice::Deleted(id)),
            _ => None,
        }
    }
}

/// What a tab does on hearing a notice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// Nothing: this tab drives the run (the notice is old news), or already watches it.
    Nothing,
    /// Read the run's entry again and look at its lock as at load ([`seen`]): a run started
    /// elsewhere is then watched, so this tab takes it over if that tab closes.
    ReadAgain(String),
    /// Drop it from the list.
    Forget(String),
}

/// The rule for a heard notice: `drives_here`: this tab holds the run's lock; `watched`: it is
/// already listed as driven elsewhere (its lock awaited).
pub fn heard(notice: &Notice, drives_here: bool, watched: bool) -> Heard {
    match notice {
        Notice::Deleted(id) => Heard::Forget(id.clone()),
        _ if drives_here => Heard::Nothing,
        // A watched run's end comes with its lock, which this tab is waiting for.
        Notice::Started(_) | Notice::Ended(_) if watched => Heard::Nothing,
        Notice::Started(id) | Notice::Ended(id) | Notice::Imported(id) => Heard::ReadAgain(id.clone()),
    }
}

/// What the list says about a stored run as a tab reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Whatever its state says: nobody drives it, or this tab does.
    AsStored,
    /// Marked running, its lock held by another tab: shown as running there, with the progress
    /// the store has, and never driven here.
    DrivenElsewhere,
    /// Marked running, but nobody holds its lock: the tab that ran it was closed or reloaded.
    /// It becomes interrupted (stored so).
    CutOff,
}

/// How a tab sees `state` when the run's lock `free` (taken by this tab just now, for the look)
/// or held by another, and whether this tab itself drives it (`here`).
pub fn seen(state: RunState, here: bool, free: bool) -> Seen {
    match (state, here, free) {
        (_, true, _) => Seen::AsStored,
        (RunState::Running, false, true) => Seen::CutOff,
        (RunState::Running, false, false) => Seen::DrivenElsewhere,
        // A run another tab resumes while this one looks shows as running on the next look.
        (_, false, false) => Seen::DrivenElsewhere,
        (_, false, true) => Seen::AsStored,
    }
}

/// Can this tab use a key for the run, by the key rules of a Resume (`file_review`)?
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyAt {
    /// The run's requests go nowhere a key matters (offline, simulated, or no API).
    NotNeeded,
    /// The address is allowed here, and this tab has a key for it (remembered on this device).
    Remembered,
    /// The address is allowed, but no key is remembered for it: the user must type one.
    NotRemembered,
    /// The address was never confirmed in this browser: the user must say yes first.
    Unconfirmed,
    /// The address can take no key at all.
    Refused(String),
}

impl KeyAt {
    /// From a continuation's key rule and whether a key is remembered for its scope.
    pub fn of(rule: Option<&KeyUse>, remembered: bool) -> KeyAt {
        match rule {
            None => KeyAt::NotNeeded,
            Some(KeyUse::Allowed(_)) if remembered => KeyAt::Remembered,
            Some(KeyUse::Allowed(_)) => KeyAt::NotRemembered,
            Some(KeyUse::Confirm { .. }) => KeyAt::Unconfirmed,
            Some(KeyUse::Refused(why)) => KeyAt::Refused(why.clone()),
        }
    }
}

/// What a tab does once the lock of a run it watched (driven by another tab) is granted to it:
/// the other tab let go, by finishing or stopping the run, or by closing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TakeOver {
    /// The other tab ended the run itself (finished, stopped, paused, failed): show it as
    /// stored, nothing to carry on.
    Ended,
    /// The other tab closed mid-run: resume it here, as Resume would.
    Resume,
    /// The other tab closed mid-run, but this tab cannot resume it now: store it as interrupted
    /// (Resume is offered) and say why.
    Interrupted(String),
    /// The run is no longer stored (deleted): drop it from the list.
    Gone,
}

/// The rule for a granted lock: `stored` is the run's entry read after the lock was granted;
/// `busy`: this tab's evaluation job is running another run; `dataset_ready`: the dataset the
/// run needs is loaded here.
pub fn take_over(stored: Option<&RunEntry>, key: &KeyAt, busy: bool, dataset_ready: bool) -> TakeOver {
    let Some(entry) = stored else { return TakeOver::Gone };
    if entry.state != RunState::Running {
        return TakeOver::Ended;
    }
    let why = if busy {
        Some("this tab is running another evaluation".to_string())
    } else if !dataset_ready {
        Some("the dataset is not loaded in this tab".to_string())
    } else {
        match key {
            KeyAt::NotNeeded | KeyAt::Remembered => None,
            KeyAt::NotRemembered if !entry.manifest.key_used => None,
            KeyAt::NotRemembered => Some("it needs the API key, which is not remembered on this device".to_string()),
            KeyAt::Unconfirmed => Some("its address has not been confirmed in this browser".to_string()),
            KeyAt::Refused(why) => Some(format!("its address takes no key: {why}")),
        }
    };
    match why {
        None => TakeOver::Resume,
        Some(why) => TakeOver::Interrupted(format!(
            "the tab that ran it was closed; it was not resumed here because {why}: Resume asks only for the samples without a record"
        )),
    }
}

#[cfg(test)]
mod tests {
    use execbench_providers::{Address, KeyScope};

    use super::*;
    use crate::store::conformance::manifest;

    #[test]
    fn how_a_tab_sees_a_stored_run() {
        use RunState::*;
        // (stored state, driven by this tab, lock free, seen as)
        let cases = [
            (Running, true, false, Seen::AsStored),
            (Running, false, true, Seen::CutOff),
            (Running, false, false, Seen::DrivenElsewhere),
            (Interrupted, false, true, Seen::AsStored),
            (Interrupted, false, false, Seen::DrivenElsewhere),
            (Paused, false, true, Seen::AsStored),
            (Finished, false, true, Seen::AsStored),
            (Finished, true, true, Seen::AsStored),
            (Failed, false, false, Seen::DrivenElsewhere),
        ];
        for (state, here, free, want) in cases {
            assert_eq!(seen(state, here, free), want, "{state:?}, here {here}, free {free}");
        }
    }

    #[test]
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
    fn what_a_tab_does_when_the_driving_tab_lets_go() {
        let entry = |state: RunState, key_used: bool| {
            let mut m = manifest("r", 10);
            m.key_used = key_used;
            let mut e = RunEntry::new(m, 0.0);
            e.state = state;
            e
        };
        let resume = TakeOver::Resume;
        let interrupted = |part: &str| part.to_string();
        // (stored entry, key here, busy, dataset loaded, what happens: Resume / Ended / Gone, or
        // Interrupted with a note containing the text)
        let cases: Vec<(Option<RunEntry>, KeyAt, bool, bool, Result<TakeOver, String>)> = vec![
            (None, KeyAt::NotNeeded, false, true, Ok(TakeOver::Gone)),
            (Some(entry(RunState::Finished, false)), KeyAt::NotNeeded, false, true, Ok(TakeOver::Ended)),
            (Some(entry(RunState::Paused, true)), KeyAt::Remembered, false, true, Ok(TakeOver::Ended)),
            (Some(entry(RunState::Failed, true)), KeyAt::Remembered, false, true, Ok(TakeOver::Ended)),
            (Some(entry(RunState::Running, false)), KeyAt::NotNeeded, false, true, Ok(resume.clone())),
            (Some(entry(RunState::Running, true)), KeyAt::Remembered, false, true, Ok(resume.clone())),
            // A run that sent no key needs none now.
            (Some(entry(RunState::Running, false)), KeyAt::NotRemembered, false, true, Ok(resume)),
            (
                Some(entry(RunState::Running, true)),
                KeyAt::NotRemembered,
                false,
                true,
                Err(interrupted("needs the API key")),
            ),
            (
                Some(entry(RunState::Running, true)),
                KeyAt::Unconfirmed,
                false,
                true,
                Err(interrupted("not been confirmed")),
            ),
            (
                Some(entry(RunState::Running, true)),
                KeyAt::Refused("plain http".into()),
                false,
                true,
                Err(interrupted("takes no key: plain http")),
            ),
            (
                Some(entry(RunState::Running, false)),
                KeyAt::NotNeeded,
                true,
                true,
                Err(interrupted("another evaluation")),
            ),
            (
                Some(entry(RunState::Running, false)),
                KeyAt::NotNeeded,
                false,
                false,
                Err(interrupted("dataset is not loaded")),
            ),
        ];
        for (stored, key, busy, ready, want) in cases {
            let got = take_over(stored.as_ref(), &key, busy, ready);
            match want {
                Ok(want) => assert_eq!(got, want, "{key:?} busy {busy} ready {ready}"),
                Err(part) => match &got {
                    TakeOver::Interrupted(note) => {
                        assert!(note.contains(&part) && note.contains("Resume"), "{note}")
                    }
                    other => panic!("{key:?}: {other:?}, not interrupted with `{part}`"),
                },
            }
        }
    }

    #[test]
    fn key_rules_read_as_what_a_tab_can_do() {
        let scope = KeyScope { provider: "openai-compatible".into(), origin: "http://127.0.0.1:9".into() };
        let address = Address::parse("http://127.0.0.1:9/v1").unwrap();
        let cases = [
            (None, false, KeyAt::NotNeeded),
            (Some(KeyUse::Allowed(scope.clone())), true, KeyAt::Remembered),
            (Some(KeyUse::Allowed(scope.clone())), false, KeyAt::NotRemembered),
            (Some(KeyUse::Confirm { scope, address }), true, KeyAt::Unconfirmed),
            (Some(KeyUse::Refused("no".into())), true, KeyAt::Refused("no".into())),
        ];
        for (rule, remembered, want) in cases {
            assert_eq!(KeyAt::of(rule.as_ref(), remembered), want);
        }
    }

    #[test]
    fn what_a_tab_does_on_hearing_of_a_run() {
        let id = || "run 7".to_string();
        let again = Heard::ReadAgain(id());
        // (notice, this tab drives it, already watched, what it does)
        let cases = [
            (Notice::Started(id()), false, false, again.clone()),
            (Notice::Started(id()), true, false, Heard::Nothing),
            (Notice::Started(id()), false, true, Heard::Nothing),
            (Notice::Ended(id()), false, false, again.clone()),
            (Notice::Ended(id()), false, true, Heard::Nothing),
            (Notice::Ended(id()), true, false, Heard::Nothing),
            (Notice::Imported(id()), false, false, again.clone()),
            (Notice::Imported(id()), false, true, again),
            (Notice::Deleted(id()), false, false, Heard::Forget(id())),
            (Notice::Deleted(id()), false, true, Heard::Forget(id())),
            (Notice::Deleted(id()), true, false, Heard::Forget(id())),
        ];
        for (notice, here, watched, want) in cases {
            assert_eq!(heard(&notice, here, watched), want, "{notice:?}, here {here}, watched {watched}");
        }
    }

    #[test]
    fn notices_read_back_and_other_messages_are_ignored() {
        let odd = "a run: with spaces, ünïcode and \"quotes\" ";
        for notice in [
            Notice::Started("r1".into()),
            Notice::Ended(odd.into()),
            Notice::Imported("cruxeval-imported-2".into()),
            Notice::Deleted(odd.into()),
        ] {
            assert_eq!(Notice::from_message(&notice.to_message()), Some(notice.clone()), "{notice:?}");
        }
        for other in ["", "started", "started ", "go", "resumed r1", "STARTED r1", "{\"run\": 1}"] {
            assert_eq!(Notice::from_message(other), None, "{other:?}");
        }
    }

    #[test]
    fn every_run_has_its_own_lock() {
        assert_ne!(lock_name("run-1"), lock_name("run-10"));
        assert_ne!(lock_name("a"), IMPORT_LOCK);
    }
}
