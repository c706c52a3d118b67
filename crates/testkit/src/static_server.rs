//! A static file server on 127.0.0.1: serves folders under URL prefixes. The tests mount the built
//! site under a sub-path (`/execbench/`), the way GitHub Pages would, so relative URLs are tested.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;

pub struct StaticServer {
    /// The URL of the first mount, e.g. `http://127.0.0.1:PORT/execbench/`.
    pub base_url: String,
    pub origin: String,
}

pub const SUB_PATH: &str = "/execbench/";

impl StaticServer {
    /// Serves `root` under `/execbench/`.
    pub fn start(root: &Path) -> StaticServer {
        StaticServer::mount(vec![(SUB_PATH.to_string(), root.to_path_buf())])
    }

    /// Serves each folder under its prefix (`/prefix/`), first match wins.
    pub fn mount(mounts: Vec<(String, PathBuf)>) -> StaticServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        let port = listener.local_addr().expect("local address").port();
        let origin = format!("http://127.0.0.1:{port}");
        let base_url = format!("{origin}{}", mounts.first().map(|m| m.0.as_str()).unwrap_or("/"));
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mounts = mounts.clone();
                thread::spawn(move || serve(stream, &mounts));
            }
        });
        StaticServer { base_url, origin }
    }
}

fn serve(mut stream: TcpStream, mounts: &[(String, PathBuf)]) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let found = mounts.iter().find_map(|(prefix, root)| resolve(root, prefix, path));
    let response = match found {
        Some(file) => match std::fs::read(&file) {
            Ok(body) => (200, content_type(&file), body),
            Err(_) => (404, "text/plain", b"not found".to_vec()),
        },
        None => (404, "text/plain", b"not found".to_vec()),
    };
    let (status, kind, body) = response;
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        if status == 200 { "OK" } else { "Not Found" },
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

fn resolve(root: &Path, prefix: &str, path: &str) -> Option<PathBuf> {
    let rest = path.strip_prefix(prefix)?;
    if rest.split('/').any(|part| part == "..") {
        return None;
    }
    let file = if rest.is_empty() { root.join("index.html") } else { root.join(rest) };
    file.is_file().then_some(file)
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript",
        "wasm" => "application/wasm",
        "css" => "text/css",
        "json" => "application/json",
        "mjs" => "text/javascript",
        "zip" => "application/zip",
        "jsonl" => "application/jsonl",
        _ => "text/plain; charset=utf-8",
    }
}
