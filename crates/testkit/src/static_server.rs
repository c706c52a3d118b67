//! A static file server on 127.0.0.1: serves folders under URL prefixes. The tests mount the built
//! site under a sub-path (`/execbench/`), the way GitHub Pages would, so relative URLs are tested.
//! The files are served by tower-http's `ServeDir` (percent-encoded paths decoded, paths that
//! leave the folder refused, `Content-Type` from the extension), on a thread of its own so that
//! it outlives whichever runtime a test starts it from.
//!
//! For download tests it also records every request (method, path, `Range`) and can cut the
//! next answer for a path after some bytes, as a dropped connection would.

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

pub struct StaticServer {
    /// The URL of the first mount, e.g. `http://127.0.0.1:PORT/execbench/`.
    pub base_url: String,
    pub origin: String,
    port: u16,
    mounts: Vec<(String, PathBuf)>,
    log: Log,
    /// Ends the serving thread (and with its runtime every open connection).
    running: Option<(tokio::sync::oneshot::Sender<()>, thread::JoinHandle<()>)>,
    /// This site in the browser pool's list of sites served now (crate::browser_pool).
    site: u64,
}

impl Drop for StaticServer {
    /// The test is done with the site (it serves on, see `serve`): a kept browser that saw it may
    /// be lent again.
    fn drop(&mut self) {
        crate::browser_pool::site_closed(self.site);
    }
}

pub const SUB_PATH: &str = "/execbench/";

impl StaticServer {
    /// Serves `root` under `/execbench/`.
    pub fn start(root: &Path) -> StaticServer {
        StaticServer::mount(vec![(SUB_PATH.to_string(), root.to_path_buf())])
    }

    /// Serves each folder under its prefix (`/prefix/`, or `/` for the whole site); a prefix is
    /// mounted once. A folder's `index.html` answers its prefix itself.
    pub fn mount(mounts: Vec<(String, PathBuf)>) -> StaticServer {
        // A port no earlier site of this process had: a kept browser never meets an origin twice
        // (crate::browser_pool).
        let listener = crate::browser_pool::site_listener();
        let port = listener.local_addr().expect("local address").port();
        let origin = format!("http://127.0.0.1:{port}");
        let base_url = format!("{origin}{}", mounts.first().map(|m| m.0.as_str()).unwrap_or("/"));
        let site = crate::browser_pool::site_opened(&origin);
        let mut server = StaticServer { base_url, origin, port, mounts, log: Log::default(), running: None, site };
        server.serve(listener);
        server
    }

    /// Stops serving, as a server that went away: connections are cut, new ones refused.
    pub fn stop(&mut self) {
        if let Some((stop, thread)) = self.running.take() {
            let _ = stop.send(());
            let _ = thread.join();
        }
    }

    /// Serves again at the same address (the same origin, so the browser's storage for it and
    /// its service worker still apply), from the same folders as they are now.
    pub fn restart(&mut self) {
        self.stop();
        let listener = TcpListener::bind(("127.0.0.1", self.port)).expect("bind the same port again");
        self.serve(listener);
    }

    fn serve(&mut self, listener: TcpListener) {
        // Built here, so that a bad mount panics in the caller rather than on the server's thread.
        let log = self.log.clone();
        let app = router(self.mounts.clone()).layer(axum::middleware::from_fn(move |request, next| {
            let log = log.clone();
            async move { log.serve(request, next).await }
        }));
        listener.set_nonblocking(true).expect("a non-blocking listener");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_current_thread().enable_all().build().expect("the server's runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("the listener in tokio");
                // Only `stop` stops it: a dropped server (a test that kept just its URL) serves on.
                let asked_to_stop = async {
                    if stopped.await.is_err() {
                        std::future::pending::<()>().await;
                    }
                };
                tokio::select! {
                    served = axum::serve(listener, app) => served.expect("serve the site"),
                    _ = asked_to_stop => {}
                }
            });
            // Dropping the runtime here drops every connection's task.
        });
        self.running = Some((stop, thread));
    }
}

/// One request the server received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// The `Range` header, when there was one.
    pub range: Option<String>,
}

/// What the server saw, and the cuts it was asked to make.
#[derive(Clone, Default)]
struct Log {
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Path → bytes of body sent before the connection is dropped (once).
    cuts: Arc<Mutex<HashMap<String, usize>>>,
    /// Path → milliseconds the next answer waits before it is sent (once), as a slow network.
    delays: Arc<Mutex<HashMap<String, u64>>>,
}

impl Log {
    async fn serve(&self, request: Request, next: Next) -> Response {
        let path = request.uri().path().to_string();
        let range = request.headers().get(header::RANGE).and_then(|v| v.to_str().ok()).map(str::to_string);
        let method = request.method().to_string();
        self.seen.lock().unwrap().push(Seen { method: method.clone(), path: path.clone(), range });
        let cut = if method == "GET" { self.cuts.lock().unwrap().remove(&path) } else { None };
        let delay = if method == "GET" { self.delays.lock().unwrap().remove(&path) } else { None };
        if let Some(ms) = delay {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
        let response = next.run(request).await;
        let Some(keep) = cut else { return response };
        let (parts, body) = response.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
            return Response::from_parts(parts, Body::empty());
        };
        // The head (with the whole Content-Length) and `keep` bytes, then the connection fails.
        // The pause lets the server flush what was sent: an error right after would drop it unsent.
        let first = bytes.slice(..keep.min(bytes.len()));
        let body = futures_util::stream::unfold(0u8, move |step| {
            let first = first.clone();
            async move {
                match step {
                    0 => Some((Ok(first), 1)),
                    1 => {
                        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                        Some((Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "cut by the test")), 2))
                    }
                    _ => None,
                }
            }
        });
        Response::from_parts(parts, Body::from_stream(body))
    }
}

impl StaticServer {
    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Seen> {
        self.log.seen.lock().unwrap().clone()
    }

    /// The next GET of `path` (e.g. `/models/tiny.gguf`) sends `bytes` bytes of its body and
    /// then drops the connection.
    pub fn cut_next(&self, path: &str, bytes: usize) {
        self.log.cuts.lock().unwrap().insert(path.to_string(), bytes);
    }

    /// The next GET of `path` is answered `ms` milliseconds late, as over a slow network.
    pub fn delay_next(&self, path: &str, ms: u64) {
        self.log.delays.lock().unwrap().insert(path.to_string(), ms);
    }
}

fn router(mounts: Vec<(String, PathBuf)>) -> Router {
    let mut app = Router::new();
    for (prefix, root) in mounts {
        let files = ServeDir::new(root);
        app = match prefix.trim_end_matches('/') {
            "" => app.fallback_service(files),
            prefix => app.nest_service(prefix, files),
        };
    }
    // The tests rebuild the site between runs: a browser must never answer from its cache.
    app.layer(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, HeaderValue::from_static("no-store")))
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use super::*;

    /// A folder of its own under the system's temporary folder, holding `files` (path, text).
    fn site(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("execbench-testkit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        root
    }

    /// (status, lower-cased head, body) of a GET of `path`, as sent (no encoding added here).
    fn get(server: &StaticServer, path: &str) -> (u16, String, String) {
        let address = server.origin.strip_prefix("http://").unwrap();
        let mut stream = TcpStream::connect(address).unwrap();
        write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").unwrap();
        // A cut answer may end in a reset: what was read before it counts.
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        let response = String::from_utf8_lossy(&bytes).into_owned();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        (status, head.to_ascii_lowercase(), body.to_string())
    }

    #[test]
    fn requests_are_recorded_a_cut_answer_stops_after_its_bytes_and_a_delayed_one_comes_late() {
        let root = site("cut", &[("big.bin", &"x".repeat(10_000))]);
        let server = StaticServer::start(&root);
        server.cut_next("/execbench/big.bin", 1_000);
        let (status, head, body) = get(&server, "/execbench/big.bin");
        assert_eq!((status, body.len()), (200, 1_000), "only the bytes before the cut");
        assert!(head.contains("content-length: 10000"), "the head announced the whole file: {head}");
        let (_, _, body) = get(&server, "/execbench/big.bin");
        assert_eq!(body.len(), 10_000, "one cut only");
        server.delay_next("/execbench/big.bin", 400);
        let started = std::time::Instant::now();
        assert_eq!(get(&server, "/execbench/big.bin").2.len(), 10_000);
        assert!(started.elapsed() >= std::time::Duration::from_millis(400), "answered late");
        let seen = server.requests();
        assert_eq!(seen.len(), 3);
        assert_eq!(
            (seen[0].method.as_str(), seen[0].path.as_str(), seen[0].range.as_ref()),
            ("GET", "/execbench/big.bin", None)
        );
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_stopped_server_refuses_and_a_restarted_one_serves_at_the_same_address() {
        let root = site("restart", &[("index.html", "one")]);
        let mut server = StaticServer::start(&root);
        assert_eq!(get(&server, "/execbench/").2, "one");
        server.stop();
        let address = server.origin.strip_prefix("http://").unwrap();
        assert!(TcpStream::connect(address).is_err(), "nothing listens while stopped");
        std::fs::write(root.join("index.html"), "two").unwrap();
        server.restart();
        assert_eq!(get(&server, "/execbench/").2, "two");
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_percent_encoded_path_is_served_decoded() {
        let root = site("spaces", &[("data/my file.jsonl", "{\"id\": 1}\n"), ("café.txt", "crème")]);
        let server = StaticServer::start(&root);
        assert_eq!(server.base_url, format!("{}/execbench/", server.origin));
        let (status, _, body) = get(&server, "/execbench/data/my%20file.jsonl");
        assert_eq!((status, body.as_str()), (200, "{\"id\": 1}\n"));
        let (status, _, body) = get(&server, "/execbench/caf%C3%A9.txt");
        assert_eq!((status, body.as_str()), (200, "crème"));
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn the_site_is_served_under_its_prefix_with_types_and_no_caching() {
        let root = site(
            "mounts",
            &[("index.html", "<p>app</p>"), ("app_bg.wasm", "\0asm"), ("worker.js", "x"), ("sub/page.html", "sub")],
        );
        let other = site("other", &[("bench.html", "bench")]);
        let server = StaticServer::mount(vec![("/execbench/".into(), root.clone()), ("/bench/".into(), other)]);
        let (status, head, body) = get(&server, "/execbench/");
        assert_eq!((status, body.as_str()), (200, "<p>app</p>"), "the folder's index.html");
        assert!(head.contains("content-type: text/html") && head.contains("cache-control: no-store"), "{head}");
        let (status, head, _) = get(&server, "/execbench/app_bg.wasm?v=1");
        assert!(status == 200 && head.contains("content-type: application/wasm"), "{head}");
        let (_, head, _) = get(&server, "/execbench/worker.js");
        assert!(head.contains("content-type: text/javascript"), "{head}");
        assert_eq!(get(&server, "/execbench/sub/page.html").2, "sub");
        assert_eq!(get(&server, "/bench/bench.html").2, "bench");
        // Not under a mount, not in the folder, or out of it.
        assert_eq!(get(&server, "/elsewhere/index.html").0, 404);
        assert_eq!(get(&server, "/execbench/missing.html").0, 404);
        assert_eq!(get(&server, "/bench/index.html").0, 404, "each prefix serves its own folder");
        let secret = root.parent().unwrap().join(format!("execbench-testkit-secret-{}", std::process::id()));
        std::fs::write(&secret, "no").unwrap();
        let escape = format!("/execbench/../execbench-testkit-secret-{}", std::process::id());
        assert_eq!(get(&server, &escape).0, 404);
        assert_eq!(get(&server, &escape.replace("..", "%2e%2e")).0, 404);
        let _ = std::fs::remove_file(secret);
        let _ = std::fs::remove_dir_all(root);
    }
}
