//! Precompression of the built site: `FILE.br` (brotli, quality 11) and `FILE.gz` (gzip -9) next
//! to each file, so that a static host configured for it (nginx `brotli_static`/`gzip_static`,
//! Caddy `precompressed`) serves the small copy without compressing on every request.
//!
//! The originals stay as they are: the service worker lists and caches only them (sw.js is
//! written before this runs), and a host that ignores the copies serves the originals.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Files smaller than this gain nothing worth a second request path on the host.
pub const MIN_BYTES: u64 = 1024;
/// Formats that are compressed already: recompressing them is slow and saves nothing.
const ALREADY_COMPRESSED: &[&str] = &["br", "gz", "zip", "png", "jpg", "jpeg", "gif", "webp", "woff2", "parquet"];

/// What one pass wrote, for the summary line.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub compressed: usize,
    pub skipped: usize,
    pub raw_bytes: u64,
    pub brotli_bytes: u64,
    pub gzip_bytes: u64,
}

#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error(format!("{}: {what}: {e}", path.display()))
}

/// Whether `path` is one this pass compresses (by name and size).
pub fn wants_copies(path: &Path, len: u64) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    len >= MIN_BYTES && !ALREADY_COMPRESSED.contains(&ext.as_str())
}

pub fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() / 3);
    // Window 2^22, as the benchmark's transfer sizes assume (docs/benchmark.md).
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 22, ..Default::default() };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).expect("writing to a Vec cannot fail");
    out
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::with_capacity(bytes.len() / 3), flate2::Compression::best());
    gz.write_all(bytes).expect("writing to a Vec cannot fail");
    gz.finish().expect("writing to a Vec cannot fail")
}

/// Every regular file under `dir` (hidden folders such as Trunk's `.stage` are not the site's).
fn site_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| io_error(&d, "cannot list", e))? {
            let entry = entry.map_err(|e| io_error(&d, "cannot list", e))?;
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.is_file() {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes the copies for every file of `dir` that wants them, on every core, largest file first
/// (brotli 11 takes about a minute for the 16 MB Python worker, so that one must start at once).
/// Copies left by an earlier pass are replaced (`.br` and `.gz` files are never compressed again;
/// Trunk writes a fresh dist/ on each build, so no copy outlives its original there).
pub fn precompress_dir(dir: &Path) -> Result<Report, Error> {
    let mut todo = Vec::new();
    let mut report = Report::default();
    for path in site_files(dir)? {
        let is_copy = matches!(path.extension().and_then(|e| e.to_str()), Some("br" | "gz"));
        if is_copy && path.with_extension("").is_file() {
            continue; // ours, from an earlier pass: replaced below
        }
        let len = std::fs::metadata(&path).map_err(|e| io_error(&path, "cannot read", e))?.len();
        if wants_copies(&path, len) {
            todo.push((len, path));
        } else {
            report.skipped += 1;
        }
    }
    todo.sort_by_key(|t| std::cmp::Reverse(t.0));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(todo.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some((_, path)) = todo.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    let result = compress_one(path);
                    results.lock().unwrap_or_else(|e| e.into_inner()).push(result);
                }
            });
        }
    });
    for result in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        let (raw, br, gz) = result?;
        report.compressed += 1;
        report.raw_bytes += raw;
        report.brotli_bytes += br;
        report.gzip_bytes += gz;
    }
    Ok(report)
}

fn compress_one(path: &Path) -> Result<(u64, u64, u64), Error> {
    let bytes = std::fs::read(path).map_err(|e| io_error(path, "cannot read", e))?;
    let br = brotli(&bytes);
    let gz = gzip(&bytes);
    for (suffix, data) in [(".br", &br), (".gz", &gz)] {
        let out = with_suffix(path, suffix);
        std::fs::write(&out, data).map_err(|e| io_error(&out, "cannot write", e))?;
    }
    Ok((bytes.len() as u64, br.len() as u64, gz.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("execbench-precompress-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn unbrotli(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        brotli::Decompressor::new(bytes, 4096).read_to_end(&mut out).unwrap();
        out
    }

    fn ungzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).unwrap();
        out
    }

    /// Text that compresses, different per file so a mix-up between files shows.
    fn text(seed: &str, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 32);
        for i in 0.. {
            if out.len() >= len {
                break;
            }
            out.extend_from_slice(format!("{seed} line {i}\n").as_bytes());
        }
        out.truncate(len);
        out
    }

    #[test]
    fn each_compressible_file_gets_copies_that_decompress_to_it() {
        let dir = scratch("site");
        std::fs::create_dir_all(dir.join("data/cruxeval")).unwrap();
        std::fs::create_dir_all(dir.join(".stage")).unwrap();
        // (path, contents, whether copies are expected)
        let cases: Vec<(&str, Vec<u8>, bool)> = vec![
            ("index.html", text("html", 5000), true),
            ("app_bg.wasm", text("wasm", 300_000), true),
            ("data/cruxeval/cruxeval.jsonl", text("jsonl", 20_000), true),
            ("favicon.svg", text("svg", 400), false),
            ("icons/icon-512.png", text("png", 5000), false),
            ("data/set.parquet", text("parquet", 5000), false),
            (".stage/leftover.js", text("stage", 5000), false),
        ];
        for (path, bytes, _) in &cases {
            let full = dir.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, bytes).unwrap();
        }
        let report = precompress_dir(&dir).unwrap();

        for (path, bytes, expected) in &cases {
            let full = dir.join(path);
            let (br, gz) = (with_suffix(&full, ".br"), with_suffix(&full, ".gz"));
            assert_eq!(br.is_file(), *expected, "{path}.br");
            assert_eq!(gz.is_file(), *expected, "{path}.gz");
            assert_eq!(&std::fs::read(&full).unwrap(), bytes, "{path}: the original is untouched");
            if *expected {
                let (br, gz) = (std::fs::read(br).unwrap(), std::fs::read(gz).unwrap());
                assert!(br.len() < bytes.len() && gz.len() < bytes.len(), "{path}: copies are smaller");
                assert_eq!(&unbrotli(&br), bytes, "{path}.br decompresses to the original");
                assert_eq!(&ungzip(&gz), bytes, "{path}.gz decompresses to the original");
            }
        }
        assert_eq!(report.compressed, 3);
        assert_eq!(report.skipped, 3, "svg (small), png and parquet");
        assert_eq!(report.raw_bytes, 325_000);

        // A second pass replaces the copies and never compresses a copy.
        let again = precompress_dir(&dir).unwrap();
        assert_eq!(again, report);
        assert!(!dir.join("index.html.br.br").exists() && !dir.join("index.html.gz.br").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_it() {
        let err = precompress_dir(Path::new("/nonexistent/execbench-dist")).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent/execbench-dist: cannot list"), "{err}");
    }
}
