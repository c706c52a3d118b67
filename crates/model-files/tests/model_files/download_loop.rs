//! The resumable, hash-checked download loop (`download_loop::download`), over the in-memory
//! store and the scripted server of `fakes.rs`.

use std::cell::RefCell;

use execbench_model_files::catalogue::FileSpec;
use execbench_model_files::download::{Checksum, KeptFile, PART_BYTES, Part, resume_point};
use execbench_model_files::download_loop::{PROGRESS_STEP, download};

use crate::fakes::{
    CONNECTION_RESET, MemoryStore, Reply, SERVE, STORE_FULL, ScriptedServer, UNREACHABLE, block_on, breaks_after,
    file_bytes,
};

const URL: &str = "https://models.example/org/repo/resolve/main/weights.gguf";
/// A bit over two parts: a download stores two full parts and a short last one.
const SIZE: usize = 2 * PART_BYTES + 12_345;
/// Chunks smaller and larger than a part, in turn.
const MIXED_CHUNKS: &[usize] = &[65_537, PART_BYTES + 4_097, 1_000];

type Outcome = Result<(u64, bool), (String, u64)>;

/// One call of the loop: its outcome and every progress call `(received, total)`.
fn run(store: &MemoryStore, server: &ScriptedServer, file: &FileSpec) -> (Outcome, Vec<(u64, Option<u64>)>) {
    let calls = RefCell::new(Vec::new());
    let progress = |received, total| calls.borrow_mut().push((received, total));
    let outcome = block_on(download(store, server, file, &progress));
    (outcome, calls.into_inner())
}

fn spec(sha256: Option<&str>) -> FileSpec {
    FileSpec { url: URL.into(), sha256: sha256.map(str::to_string), bytes: None }
}

fn part(offset: u64, len: u64) -> Part {
    Part { offset, len }
}

/// The message of a connection broken after `received` bytes of the file.
fn broken_message(received: usize) -> String {
    format!(
        "weights.gguf: the connection broke after {received} bytes ({CONNECTION_RESET}); {received} bytes are kept and the next download resumes there"
    )
}

/// The store holds `file` complete, checked against `sha256`, in contiguous parts and nothing else.
fn assert_complete(store: &MemoryStore, file: &[u8], sha256: Option<&str>, case: &str) {
    let index = store.index(URL).unwrap_or_else(|| panic!("{case}: no index"));
    assert!(index.complete, "{case}: {index:?}");
    assert_eq!(index.total, Some(file.len() as u64), "{case}");
    assert_eq!(index.sha256.as_deref(), sha256, "{case}");
    let (end, _, stray) = resume_point(&index.parts);
    assert_eq!((end, stray), (file.len() as u64, vec![]), "{case}: parts not contiguous: {:?}", index.parts);
    let named: Vec<u64> = index.parts.iter().map(|p| p.offset).collect();
    assert_eq!(store.stored_offsets(URL), named, "{case}: parts stored that the index does not name");
    assert!(store.indexed_bytes(URL) == file, "{case}: the kept bytes are not the file's");
}

/// Progress only grows, starts at `first` and ends at the whole size.
fn assert_progress(calls: &[(u64, Option<u64>)], first: usize, case: &str) {
    let total = Some(SIZE as u64);
    assert_eq!(calls.first(), Some(&(first as u64, total)), "{case}");
    assert_eq!(calls.last(), Some(&(SIZE as u64, total)), "{case}");
    assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0), "{case}: progress went back: {calls:?}");
    // At most one call per PROGRESS_STEP, beside the first and the last.
    let steps = (SIZE - first) as u64 / PROGRESS_STEP;
    assert!(calls.len() as u64 <= steps + 2, "{case}: {} progress calls", calls.len());
}

#[test]
fn a_fresh_download_is_kept_in_contiguous_parts_and_checked() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    // (case, the sizes of the chunks the body arrives in, the parts kept: a part is stored once
    // it holds PART_BYTES, with the whole chunk that filled it, and the rest at the end)
    let cases: [(&str, &[usize], usize); 4] = [
        ("chunks smaller than a part", &[65_537], 3),
        ("chunks larger than a part", &[PART_BYTES + 4_097], 3),
        ("chunks of both sizes", MIXED_CHUNKS, 2),
        ("the file in one chunk", &[SIZE], 1),
    ];
    for (case, chunks, parts) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, chunks));
        let (outcome, progress) = run(&store, &server, &spec(Some(&sha)));
        assert_eq!(outcome, Ok((SIZE as u64, true)), "{case}");
        assert_eq!(server.ranges_asked(), vec![None], "{case}");
        assert_complete(&store, &file, Some(&sha), case);
        let kept = store.index(URL).unwrap().parts;
        assert_eq!(kept.len(), parts, "{case}: {kept:?}");
        assert!(kept[..parts - 1].iter().all(|p| p.len >= PART_BYTES as u64), "{case}: a short part before the last");
        assert_progress(&progress, 0, case);
    }
}

#[test]
fn a_broken_connection_keeps_what_arrived_and_the_next_download_resumes_there() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    // (case, where each try's connection breaks, in bytes of its body; a last try completes)
    let cases: [(&str, &[usize]); 5] = [
        ("within the first part", &[1_000]),
        ("just before a part is full", &[PART_BYTES - 1]),
        ("just after a full part", &[PART_BYTES + 5]),
        ("before any byte", &[0]),
        ("twice, the second time in a resumed body", &[PART_BYTES + 5, PART_BYTES + 3]),
    ];
    for (case, breaks) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        let mut kept = 0;
        let mut ranges_expected = Vec::new();
        for &bytes in breaks {
            ranges_expected.push((kept > 0).then(|| format!("bytes={kept}-")));
            server.script(&[breaks_after(bytes)]);
            let (outcome, progress) = run(&store, &server, &spec(Some(&sha)));
            kept += bytes;
            assert_eq!(outcome, Err((broken_message(kept), kept as u64)), "{case}");
            assert_eq!(progress.last(), Some(&(kept as u64, Some(SIZE as u64))), "{case}");
            if kept > 0 {
                let index = store.index(URL).unwrap();
                assert!(!index.complete && index.received() == kept as u64, "{case}: {index:?}");
                assert!(store.indexed_bytes(URL) == file[..kept], "{case}: the kept bytes are not the file's start");
            } else {
                assert!(store.is_empty(), "{case}: kept something of nothing");
            }
        }
        ranges_expected.push((kept > 0).then(|| format!("bytes={kept}-")));
        let (outcome, progress) = run(&store, &server, &spec(Some(&sha)));
        assert_eq!(outcome, Ok((SIZE as u64, true)), "{case}");
        assert_eq!(server.ranges_asked(), ranges_expected, "{case}");
        assert_complete(&store, &file, Some(&sha), case);
        assert_progress(&progress, kept, case);
    }
}

#[test]
fn a_server_that_ignores_range_makes_the_download_start_again() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    // (case, bytes kept when the server is asked for the rest and sends the whole file)
    let cases = [("one short part kept", 1_000), ("a full part kept", PART_BYTES + 5)];
    for (case, kept) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        server.script(&[breaks_after(kept), Reply::IgnoreRange]);
        let (outcome, _) = run(&store, &server, &spec(Some(&sha)));
        assert_eq!(outcome, Err((broken_message(kept), kept as u64)), "{case}");
        let (outcome, progress) = run(&store, &server, &spec(Some(&sha)));
        assert_eq!(outcome, Ok((SIZE as u64, true)), "{case}");
        assert_eq!(server.ranges_asked(), vec![None, Some(format!("bytes={kept}-"))], "{case}");
        assert_complete(&store, &file, Some(&sha), case);
        assert_progress(&progress, 0, case);
    }
}

#[test]
fn a_refused_file_is_removed_from_the_store() {
    let file = file_bytes(SIZE);
    let (right, wrong) = (Checksum::of(&file), "0".repeat(64));
    let mismatch = format!(
        "weights.gguf: checksum mismatch, SHA-256 {right} but {wrong} was expected; the download was discarded"
    );
    // (case, expected hash, the server's replies, the refusal)
    let cases: [(&str, &str, &[Reply], String); 3] = [
        ("a wrong hash", &wrong, &[SERVE], mismatch.clone()),
        ("a wrong hash after a resume", &wrong, &[breaks_after(PART_BYTES + 5), SERVE], mismatch),
        (
            "a body shorter than announced",
            &right,
            &[Reply::EndsEarly(PART_BYTES + 5)],
            format!("weights.gguf: {} bytes received but the server announced {SIZE}", PART_BYTES + 5),
        ),
    ];
    for (case, sha, replies, refusal) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        server.script(replies);
        let mut outcome = run(&store, &server, &spec(Some(sha))).0;
        while outcome.as_ref().is_err_and(|(message, _)| message.contains(CONNECTION_RESET)) {
            outcome = run(&store, &server, &spec(Some(sha))).0;
        }
        assert_eq!(outcome, Err((refusal, 0)), "{case}");
        assert_eq!(server.ranges_asked().len(), replies.len(), "{case}");
        assert!(store.is_empty(), "{case}: something of a refused file is kept");
    }
}

#[test]
fn a_complete_file_is_not_asked_again() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    // (case, the hash it was kept against, whether it counts as checked)
    let cases = [("checked", Some(sha.as_str()), true), ("unchecked", None, false)];
    for (case, sha, checked) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        assert_eq!(run(&store, &server, &spec(sha)).0, Ok((SIZE as u64, checked)), "{case}");
        let (outcome, progress) = run(&store, &server, &spec(sha));
        assert_eq!(outcome, Ok((SIZE as u64, checked)), "{case}");
        assert_eq!(server.ranges_asked().len(), 1, "{case}: the kept file was asked again");
        assert_eq!(progress, vec![(SIZE as u64, Some(SIZE as u64))], "{case}");
        assert_complete(&store, &file, sha, case);
    }
}

#[test]
fn parts_kept_for_another_hash_are_dropped_and_the_download_starts_again() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    let other = "f".repeat(64);
    // (case, the hash the kept parts were checked against, the hash asked now)
    let cases = [
        ("another hash", Some(other.as_str()), Some(sha.as_str())),
        ("kept unchecked, now with a hash", None, Some(sha.as_str())),
        ("kept with a hash, now without", Some(sha.as_str()), None),
    ];
    for (case, kept_for, asked) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        let parts = vec![part(0, 1_000), part(1_000, 3_000)];
        store.keep(KeptFile { parts, total: Some(SIZE as u64), ..KeptFile::new(URL, kept_for) }, &file);
        let (outcome, progress) = run(&store, &server, &spec(asked));
        assert_eq!(outcome, Ok((SIZE as u64, asked.is_some())), "{case}");
        assert_eq!(server.ranges_asked(), vec![None], "{case}: the download did not start from 0");
        assert_complete(&store, &file, asked, case);
        assert_progress(&progress, 0, case);
    }
}

#[test]
fn stray_parts_are_dropped_and_the_download_resumes_after_the_contiguous_ones() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    // (case, the parts the index names, where the download resumes)
    let cases: [(&str, &[Part], usize); 5] = [
        ("a gap", &[part(0, 1_000), part(1_000, 2_000), part(5_000, 1_000)], 3_000),
        ("an overlap", &[part(0, 1_000), part(500, 1_000), part(1_000, 500)], 1_000),
        ("out of order, then a gap", &[part(1_000, 1_000), part(0, 1_000), part(3_000, 7)], 2_000),
        ("nothing from 0", &[part(1_000, 1_000), part(2_000, 1_000)], 0),
        ("an empty part", &[part(0, 1_000), part(1_000, 0), part(1_001, 9)], 1_000),
    ];
    for (case, parts, resumes_at) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        store.keep(KeptFile { parts: parts.to_vec(), ..KeptFile::new(URL, Some(&sha)) }, &file);
        let (outcome, progress) = run(&store, &server, &spec(Some(&sha)));
        assert_eq!(outcome, Ok((SIZE as u64, true)), "{case}");
        let range_expected = (resumes_at > 0).then(|| format!("bytes={resumes_at}-"));
        assert_eq!(server.ranges_asked(), vec![range_expected], "{case}");
        assert_complete(&store, &file, Some(&sha), case);
        assert_progress(&progress, resumes_at, case);
    }
}

#[test]
fn without_a_hash_the_file_is_kept_unchecked() {
    let file = file_bytes(SIZE);
    // (case, where the connection breaks on the tries before the last)
    let cases: [(&str, &[usize]); 2] = [("in one go", &[]), ("resumed", &[PART_BYTES + 5])];
    for (case, breaks) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        for &bytes in breaks {
            server.script(&[breaks_after(bytes)]);
            assert_eq!(run(&store, &server, &spec(None)).0, Err((broken_message(bytes), bytes as u64)), "{case}");
        }
        assert_eq!(run(&store, &server, &spec(None)).0, Ok((SIZE as u64, false)), "{case}");
        assert_complete(&store, &file, None, case);
    }
}

#[test]
fn a_failed_answer_is_named_and_what_is_kept_stays() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    let kept = PART_BYTES + 5;
    // (case, bytes kept before, the reply, the message)
    let cases: [(&str, usize, Reply, String); 8] = [
        ("not found, nothing kept", 0, Reply::Status(404), "weights.gguf: HTTP 404".into()),
        ("not found, a resume", kept, Reply::Status(404), "weights.gguf: HTTP 404".into()),
        ("a server error", kept, Reply::Status(500), "weights.gguf: HTTP 500".into()),
        (
            "range not satisfiable",
            kept,
            Reply::Status(416),
            format!(
                "weights.gguf: the server has no bytes after the {kept} kept (HTTP 416): the file changed or was complete"
            ),
        ),
        (
            "a resume from another byte",
            kept,
            Reply::ResumesAtZero,
            format!("weights.gguf: the server resumed at byte 0 but {kept} bytes are kept"),
        ),
        ("no body", 0, Reply::NoBody, "weights.gguf: the answer has no body".into()),
        (
            "no answer, nothing kept",
            0,
            Reply::Unreachable,
            format!("weights.gguf: the download could not start ({UNREACHABLE})"),
        ),
        (
            "no answer, a resume",
            kept,
            Reply::Unreachable,
            format!("weights.gguf: the download could not start ({UNREACHABLE})"),
        ),
    ];
    for (case, kept, reply, message) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        if kept > 0 {
            server.script(&[breaks_after(kept)]);
            assert_eq!(run(&store, &server, &spec(Some(&sha))).0, Err((broken_message(kept), kept as u64)), "{case}");
        }
        let index_before = store.index(URL);
        server.script(&[reply]);
        assert_eq!(run(&store, &server, &spec(Some(&sha))).0, Err((message, kept as u64)), "{case}");
        assert_eq!(store.index(URL), index_before, "{case}: the index changed");
        // Nothing kept was lost: the next download resumes where the failed one would have.
        assert_eq!(run(&store, &server, &spec(Some(&sha))).0, Ok((SIZE as u64, true)), "{case}");
        let range_expected = (kept > 0).then(|| format!("bytes={kept}-"));
        assert_eq!(server.ranges_asked().last(), Some(&range_expected), "{case}");
        assert_complete(&store, &file, Some(&sha), case);
    }
}

#[test]
fn a_full_store_keeps_the_parts_it_took_and_the_next_download_resumes_after_them() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, &[65_537]));
    store.set_room_for_parts(Some(1));
    let (outcome, _) = run(&store, &server, &spec(Some(&sha)));
    let first_part = store.index(URL).expect("the part it took is indexed").received();
    assert!(first_part >= PART_BYTES as u64, "{first_part}");
    assert_eq!(outcome, Err((format!("weights.gguf: {STORE_FULL}"), first_part)));
    store.set_room_for_parts(None);
    assert_eq!(run(&store, &server, &spec(Some(&sha))).0, Ok((SIZE as u64, true)));
    assert_eq!(server.ranges_asked(), vec![None, Some(format!("bytes={first_part}-"))]);
    assert_complete(&store, &file, Some(&sha), "a full store");
}

/// Every byte kept, but the tab closed before the index said so: the next download asks nothing
/// (a `Range` past the end would be answered 416 every time) and gives the verdict on what is kept.
#[test]
fn a_file_kept_whole_but_not_marked_complete_is_concluded_without_a_request() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    let parts = vec![part(0, PART_BYTES as u64), part(PART_BYTES as u64, (SIZE - PART_BYTES) as u64)];
    // (case, the hash asked, the outcome)
    let cases: [(&str, Option<&str>, Outcome); 3] = [
        ("checked", Some(&sha), Ok((SIZE as u64, true))),
        ("unchecked", None, Ok((SIZE as u64, false))),
        (
            "another hash's bytes",
            Some(&"0".repeat(64)),
            Err((
                format!(
                    "weights.gguf: checksum mismatch, SHA-256 {sha} but {} was expected; the download was discarded",
                    "0".repeat(64)
                ),
                0,
            )),
        ),
    ];
    for (case, asked, expected) in cases {
        let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
        let kept = KeptFile {
            url: URL.into(),
            sha256: asked.map(str::to_string),
            total: Some(SIZE as u64),
            parts: parts.clone(),
            complete: false,
        };
        store.keep(kept, &file);
        let (outcome, progress) = run(&store, &server, &spec(asked));
        assert_eq!(outcome, expected, "{case}");
        assert_eq!(server.ranges_asked(), Vec::<Option<String>>::new(), "{case}: asked the server");
        assert_eq!(progress.last(), Some(&(SIZE as u64, Some(SIZE as u64))), "{case}");
        match expected {
            Ok(_) => assert_complete(&store, &file, asked, case),
            Err(_) => assert!(store.is_empty(), "{case}: a refused file is kept"),
        }
    }
}

/// A server that ignores `Range`, and then a connection broken before a byte of the new copy:
/// the index no longer names the parts that were dropped, so the next download starts cleanly
/// instead of failing on a missing part.
#[test]
fn a_restart_cut_before_its_first_byte_leaves_an_index_that_resumes() {
    let file = file_bytes(SIZE);
    let sha = Checksum::of(&file);
    let (store, server) = (MemoryStore::default(), ScriptedServer::new(URL, &file, MIXED_CHUNKS));
    let kept = PART_BYTES + 5;
    server.script(&[breaks_after(kept), Reply::IgnoreRangeAndBreak(0)]);
    let (outcome, _) = run(&store, &server, &spec(Some(&sha)));
    assert_eq!(outcome, Err((broken_message(kept), kept as u64)));
    let (outcome, _) = run(&store, &server, &spec(Some(&sha)));
    assert_eq!(outcome, Err((broken_message(0), 0)));
    let index = store.index(URL).expect("an index");
    assert_eq!(index.parts, vec![], "the index names dropped parts: {index:?}");
    let (outcome, _) = run(&store, &server, &spec(Some(&sha)));
    assert_eq!(outcome, Ok((SIZE as u64, true)));
    assert_eq!(server.ranges_asked(), vec![None, Some(format!("bytes={kept}-")), None]);
    assert_complete(&store, &file, Some(&sha), "after the restart");
}
