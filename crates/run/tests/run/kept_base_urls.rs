//! A base URL is kept only without its secrets. Whatever a user typed into it (`?key=`,
//! `user:password@`, a fragment, a signature next to `api-version`), every form in which the run
//! engine keeps or exports an endpoint writes it through `redact_base_url`: the run file's
//! manifest line, a stored run's entry (what IndexedDB and the JSONL store keep), the run's export,
//! its CodeCrash-layout rows with their provenance, and a kept model generation's entry.

use crate::common;

use common::identity_sample;
use execbench_providers::Endpoint;
use execbench_run::api::ApiSettings;
use execbench_run::generation_store::{GenerationEntry, conformance as generations};
use execbench_run::manifest::RunEntry;
use execbench_run::manifest::RunManifest;
use execbench_run::runfile::{export_codecrash, export_run, manifest_line, read_run_file};
use execbench_run::store::conformance as runs;

/// (base URL as typed, as kept)
const CASES: [(&str, &str); 4] = [
    ("https://generativelanguage.googleapis.com/v1beta?key=SECRET", "https://generativelanguage.googleapis.com/v1beta"),
    ("https://user:SECRET@proxy.example/v1", "https://proxy.example/v1"),
    (
        "https://x.openai.azure.com/openai?api-version=2024-10-21&sig=SECRET",
        "https://x.openai.azure.com/openai?api-version=2024-10-21",
    ),
    ("https://proxy.example/v1#SECRET", "https://proxy.example/v1"),
];

fn api(base_url: &str) -> ApiSettings {
    ApiSettings::new(Endpoint { provider: "gemini".into(), base_url: base_url.into(), model: "gemini-test".into() })
}

fn manifest(base_url: &str) -> RunManifest {
    RunManifest { api: Some(api(base_url)), ..runs::manifest("run-1", 0) }
}

/// Every kept or exported form of an endpoint, by name, for a base URL typed as `typed`.
fn kept_forms(typed: &str) -> Vec<(&'static str, String)> {
    let manifest = manifest(typed);
    let entry = RunEntry::new(manifest.clone(), 1.0);
    let records = vec![runs::record("a", 0, Some(1.0), false), runs::record("b", 1, None, true)];
    let generation = GenerationEntry { api: api(typed), ..generations::entry(1_000.0) };
    vec![
        ("run file manifest line", manifest_line(&manifest)),
        ("stored run entry", serde_json::to_string(&entry).unwrap()),
        ("exported run", export_run(&entry, &records)),
        (
            "CodeCrash-layout rows",
            export_codecrash(&manifest, &[identity_sample("a"), identity_sample("b")], &records).0,
        ),
        ("row provenance", serde_json::to_string(&manifest.row_provenance()).unwrap()),
        ("kept generation entry", serde_json::to_string(&generation).unwrap()),
    ]
}

#[test]
fn no_kept_or_exported_form_holds_the_secret_of_a_base_url() {
    for (typed, kept) in CASES {
        for (form, text) in kept_forms(typed) {
            assert!(!text.contains("SECRET"), "{form}, base URL {typed}: {text}");
        }
        // What is kept reads back as the URL without its secrets (and the key-free parts intact).
        let read = read_run_file("run.jsonl", &export_run(&RunEntry::new(manifest(typed), 1.0), &[])).unwrap();
        assert_eq!(read.manifest.api.unwrap().endpoint.base_url, kept, "{typed}");
        let generation = GenerationEntry { api: api(typed), ..generations::entry(1_000.0) };
        let back: GenerationEntry = serde_json::from_str(&serde_json::to_string(&generation).unwrap()).unwrap();
        assert_eq!(back.api.endpoint.base_url, kept, "{typed}");
    }
}
