//! The llama architecture in the page (issue 58): the built model worker, in headless Chromium,
//! downloads SmolLM2-135M-Instruct's GGUF alone (98 MB, Q4_1, SHA-256 checked; from
//! `scripts/llama_server/fetch_smollm2.sh`, served by the test's static server), loads it with the
//! GGUF's own tokenizer (pre-tokenizer `smollm`) and answers a CRUXEval prompt greedily. The
//! answer must be the start of llama.cpp's greedy answer to the same request, recorded by
//! `scripts/llama_server/record_greedy.py` (one whose 160 tokens the native engine's greedy
//! answer matched exactly on 2026-12-02; crates/localmodel/tests/localmodel/llama_architecture.rs
//! holds the native engine to llama.cpp at every step of all ten).

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use execbench_model_files::download::Checksum;
use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::{SUB_PATH, StaticServer};
use serde_json::{Value, json};

/// Downloads the GGUF, loads it alone (`tokenizer: null`), then sends the chat body; the worker's
/// messages other than progress land in `window.__llama` (the last one ends it).
const DRIVE: &str = r#"
    const [gguf, body] = arguments;
    window.__llama = [];
    const w = new Worker('execbench-model-worker_loader.js');
    const send = (m) => w.postMessage(JSON.stringify(m));
    w.onerror = (e) => { window.__llama.push({ kind: 'error', error: String(e.message) }); };
    w.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.kind === 'progress') return;
        window.__llama.push(m);
        if (m.kind === 'ready') send({ kind: 'download', file: { url: gguf.url, sha256: gguf.sha256, bytes: null } });
        else if (m.kind === 'downloaded') send({ kind: 'load', gguf: gguf.url, tokenizer: null });
        else if (m.kind === 'loaded') send({ kind: 'chat', id: 1, body });
        else w.terminate();
    };
"#;

fn smollm2() -> PathBuf {
    let fetch = execbench_testkit::repo_root().join("scripts/llama_server/fetch_smollm2.sh");
    let output = Command::new("bash").arg(&fetch).stderr(Stdio::inherit()).output().expect("run fetch_smollm2.sh");
    assert!(output.status.success(), "SmolLM2's GGUF could not be fetched: the test cannot run");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

#[tokio::test(flavor = "multi_thread")]
async fn smollm2_from_its_gguf_alone_answers_in_the_page_as_llama_cpp_does() {
    let model = smollm2();
    let fixture: Value = serde_json::from_slice(
        &std::fs::read(
            execbench_testkit::repo_root().join("crates/localmodel/tests/fixtures/llama_cpp_greedy_smollm2.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let recorded = fixture["answers"].as_array().unwrap().iter().find(|a| a["key"] == "output/sample_2").unwrap();
    let mut body = recorded["body"].clone();
    body["max_tokens"] = json!(16);
    let server = StaticServer::mount(vec![
        (SUB_PATH.to_string(), execbench_testkit::dist_dir()),
        ("/smol/".to_string(), model.parent().unwrap().to_path_buf()),
    ]);
    let b = Browser::launch().await;
    b.client.goto(&server.base_url).await.unwrap();
    let name = model.file_name().unwrap().to_string_lossy().into_owned();
    let gguf = json!({"url": format!("{}/smol/{name}", server.origin), "sha256": Checksum::of(&std::fs::read(&model).unwrap())});
    b.client.execute(DRIVE, vec![gguf, json!(body.to_string())]).await.unwrap();
    let started = Instant::now();
    let messages = loop {
        let got = b.client.execute("return window.__llama", vec![]).await.unwrap();
        let list = got.as_array().cloned().unwrap_or_default();
        if list.last().is_some_and(|m| !["ready", "downloaded", "loaded"].contains(&m["kind"].as_str().unwrap_or(""))) {
            break list;
        }
        assert!(started.elapsed() < Duration::from_secs(900), "no answer in 15 minutes: {list:?}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    eprintln!("{:.0} s in the page", started.elapsed().as_secs_f64());
    let loaded = messages.iter().find(|m| m["kind"] == "loaded").unwrap_or_else(|| panic!("not loaded: {messages:?}"));
    let summary = loaded["summary"].as_str().unwrap();
    eprintln!("loaded in {} ms: {summary}", loaded["load_ms"]);
    assert!(
        summary.starts_with("30 layers, 576 wide, 9 heads (3 for keys/values), 49152 tokens")
            && summary.ends_with("the GGUF file's own tokenizer (pre-tokenizer smollm)"),
        "{summary}"
    );
    let reply = messages.last().unwrap();
    assert_eq!(reply["kind"], "reply", "{reply}");
    assert_eq!(reply["status"], 200, "{reply}");
    let answer: Value = serde_json::from_str(reply["body"].as_str().unwrap()).unwrap();
    let text = answer["choices"][0]["message"]["content"].as_str().unwrap();
    eprintln!("speed: {}; the page answered {text:?}", reply["speed"]);
    let tokens = answer["usage"]["completion_tokens"].as_u64().unwrap_or(0);
    assert!((1..=16).contains(&tokens), "{answer}");
    // The page's wasm kernels sum in other orders than native's and than llama.cpp's, and a greedy
    // answer goes elsewhere after the first near tie that flips (with our own decoder the page
    // parted from this answer within 16 tokens, 2026-12-02). Step-by-step agreement with llama.cpp
    // is held natively (llama_architecture.rs); here the answer must start as llama.cpp's does.
    let theirs = recorded["text"].as_str().unwrap();
    let shared = text.chars().zip(theirs.chars()).take_while(|(a, b)| a == b).count();
    eprintln!("the page's answer shares its first {shared} characters with llama.cpp's");
    assert!(shared >= 4, "the page: {text:?}\nllama.cpp: {theirs:?}");
    b.close().await;
}
