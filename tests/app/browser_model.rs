//! The model worker (`crates/model-worker`) in real headless Chromium against the NumPy reference
//! of scripts/localmodel/make_tiny_gguf.py: the built worker module downloads the tiny fixtures
//! from the test's server (SHA-256 checked), loads them, and its logits and greedy tokens are
//! those crates/localmodel/tests/localmodel/reference.rs checks natively, with the same tolerances;
//! and they are the native engine's own, bit for bit.

use std::path::PathBuf;
use std::time::Duration;

use execbench_model_files::download::Checksum;
use execbench_testkit::browser::Browser;
use execbench_testkit::model_worker::{WorkerFile, ask_loaded_worker};
use execbench_testkit::static_server::{SUB_PATH, StaticServer};
use serde_json::{Value, json};

/// The native test's tolerances (crates/localmodel/tests/localmodel/reference.rs): against NumPy emulating
/// ggml's Q8_0 activations, against f32 activations, and what counts as an exact step.
const TOLERANCE_GGML: f32 = 0.3;
const TOLERANCE_FLOAT: f32 = 0.5;
const EXACT: f32 = 1e-4;

fn fixtures() -> PathBuf {
    execbench_testkit::repo_root().join("crates/localmodel/tests/fixtures")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn ids(v: &Value) -> Vec<u32> {
    v.as_array().expect("ids").iter().map(|x| x.as_u64().unwrap() as u32).collect()
}

fn logit_rows(name: &str, vocab: usize) -> Vec<Vec<f32>> {
    let all: Vec<f32> = read(name).chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    all.chunks(vocab).map(<[f32]>::to_vec).collect()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_worker_matches_the_numpy_reference_in_chromium() {
    let server = StaticServer::mount(vec![
        (SUB_PATH.to_string(), execbench_testkit::dist_dir()),
        ("/models/".to_string(), fixtures()),
    ]);
    let b = Browser::launch().await;
    b.client.goto(&server.base_url).await.unwrap();
    let reference: Value = serde_json::from_slice(&read("reference.json")).unwrap();
    let vocab = reference["vocab_size"].as_u64().unwrap() as usize;
    let prompt = ids(&reference["prompt_ids"]);
    for name in ["tiny-q8_0.gguf", "tiny-q4_0.gguf"] {
        let m = &reference["models"][name];
        let greedy = ids(&m["greedy_tokens"]);
        let url = |file: &str| format!("{}/models/{file}", server.origin);
        let file = |file: &str| WorkerFile { url: url(file), sha256: Checksum::of(&read(file)) };
        let question = json!({"kind": "logits", "prompt": prompt, "forced": greedy});
        let (gguf, tokenizer) = (file(name), file("tokenizer.json"));
        let asked = ask_loaded_worker(&b, &gguf, Some(&tokenizer), vec![question], Duration::from_secs(60));
        let worker = asked.await.unwrap_or_else(|e| panic!("{name}: {e}"));
        let answer = &worker.answers[0];
        assert_eq!(answer["kind"], "logits", "{name}: {answer}");
        assert!(answer["error"].is_null(), "{name}: {answer}");
        let rows: Vec<Vec<f32>> = serde_json::from_value(answer["rows"].clone()).unwrap();
        let ggml = logit_rows(m["logits_ggml"].as_str().unwrap(), vocab);
        let float = logit_rows(m["logits_float"].as_str().unwrap(), vocab);
        assert_eq!(rows.len(), ggml.len(), "{name}: one row after the prompt and one per forced token");
        let ggml_errors: Vec<f32> = rows.iter().zip(&ggml).map(|(a, b)| max_abs_diff(a, b)).collect();
        let float_errors: Vec<f32> = rows.iter().zip(&float).map(|(a, b)| max_abs_diff(a, b)).collect();
        let worst = |e: &[f32]| e.iter().copied().fold(0f32, f32::max);
        let exact = ggml_errors.iter().filter(|&&e| e <= EXACT).count();
        eprintln!(
            "{name} in Chromium: max |logit - reference| {:.3} (ggml activations; {exact} of {} steps within {EXACT:e}), {:.3} (f32 activations)",
            worst(&ggml_errors),
            rows.len(),
            worst(&float_errors)
        );
        assert!(worst(&ggml_errors) <= TOLERANCE_GGML, "{name}: {ggml_errors:?}");
        assert!(worst(&float_errors) <= TOLERANCE_FLOAT, "{name}: {float_errors:?}");
        assert!(exact >= 1, "{name}: no exact step: {ggml_errors:?}");
        assert_eq!(ids(&answer["greedy"]), greedy, "{name}: greedy tokens");

        // The page computes the command line's floats: the weights run on our own kernel (Q8_0
        // and Q4_0 here; Q4_1, Q4_K and Q6_K too), attention is our own f32 code, so the
        // worker's logits equal the native engine's bit for bit, not merely within the tolerance.
        let mut native = execbench_localmodel::LocalModel::load(&read(name), &read("tokenizer.json")).unwrap();
        let mut native_rows = vec![native.prefill(&prompt).unwrap()];
        for &token in &greedy {
            native_rows.push(native.step(token).unwrap());
        }
        let differing = |a: &[f32], b: &[f32]| a.iter().zip(b).filter(|(x, y)| x.to_bits() != y.to_bits()).count();
        let per_step: Vec<usize> = rows.iter().zip(&native_rows).map(|(a, b)| differing(a, b)).collect();
        let gap = rows.iter().zip(&native_rows).map(|(a, b)| max_abs_diff(a, b)).fold(0f32, f32::max);
        eprintln!("{name}: logits differing from the native engine's, per step {per_step:?} (largest gap {gap:e})");
        assert!(
            per_step.iter().all(|&n| n == 0),
            "{name}: the page's logits are not native's: {per_step:?}, gap {gap:e}"
        );
    }
    b.close().await;
}

/// The model worker is built with WebAssembly SIMD (scripts/model_worker_build.py), and a browser
/// without SIMD gets words, not a compile error: its loader's probe is a module Chromium validates
/// only because of its SIMD instruction, and with `WebAssembly.validate` saying no, the loader
/// stops the worker with the message the page shows.
#[tokio::test(flavor = "multi_thread")]
async fn the_model_worker_needs_simd_and_says_so_where_it_is_missing() {
    let dist = execbench_testkit::dist_dir();
    let module = std::fs::read(dist.join("execbench-model-worker_bg.wasm")).unwrap();
    let features = module.windows(15).position(|w| w == b"target_features").expect("a target_features section");
    let listed = &module[features..(features + 400).min(module.len())];
    assert!(listed.windows(7).any(|w| w == b"simd128"), "the module was built without SIMD128");
    let loader = std::fs::read_to_string(dist.join("execbench-model-worker_loader.js")).unwrap();
    let probe = loader.split("new Uint8Array([").nth(1).and_then(|r| r.split("])").next()).expect("the probe");
    let probe: Vec<u8> = probe.split(',').map(|b| b.trim().parse().unwrap()).collect();

    let server = StaticServer::mount(vec![(SUB_PATH.to_string(), dist.clone())]);
    let b = Browser::launch().await;
    // A file of the site that is not the app: no Content-Security-Policy, so a blob worker may run.
    b.client.goto(&format!("{}favicon.svg", server.base_url)).await.unwrap();
    let validates = "return WebAssembly.validate(new Uint8Array(arguments[0]))";
    assert_eq!(b.client.execute(validates, vec![json!(probe)]).await.unwrap(), json!(true));
    // The same module with the SIMD opcode's prefix (0xFD) replaced: not valid, so the probe
    // answers for SIMD and nothing else.
    let at = probe.iter().rposition(|&b| b == 0xFD).expect("a SIMD instruction");
    let mut broken = probe.clone();
    broken[at] = 0xFE;
    assert_eq!(b.client.execute(validates, vec![json!(broken)]).await.unwrap(), json!(false));

    let without_simd = r#"
        const loader = new URL('execbench-model-worker_loader.js', location.href).href;
        const source = 'WebAssembly.validate = () => false; importScripts(' + JSON.stringify(loader) + ');';
        const w = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
        window.__noSimd = null;
        w.onerror = (e) => { e.preventDefault(); window.__noSimd = String(e.message); };
        w.onmessage = (e) => { window.__noSimd = 'a message: ' + e.data; };
    "#;
    b.client.execute(without_simd, vec![]).await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let said = loop {
        let said = b.client.execute("return window.__noSimd", vec![]).await.unwrap();
        if let Some(said) = said.as_str() {
            break said.to_string();
        }
        assert!(std::time::Instant::now() < deadline, "the worker neither failed nor spoke");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(said.contains("This browser lacks WebAssembly SIMD, which the in-browser model needs"), "{said}");
    b.close().await;
}
