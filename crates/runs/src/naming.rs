//! What tells two runs apart where they are listed: a short name the user may change (by default
//! model, endpoint host, task and template, date), the endpoint's host, how many samples were
//! scored, and whether the run came from a file. The Runs page, a run's page and Compare show
//! these; a rename is stored with the run ([`rename`]) and in its run file (a state line).

use execbench_core::calendar::civil_from_days;
use execbench_providers::address::{Address, redact_base_url};

use crate::manifest::RunManifest;

/// A name longer than this is refused: it is a label, not a note.
pub const MAX_NAME_CHARS: usize = 120;

/// The host (and a port that is not the scheme's default) of an API run's endpoint; `None` for a
/// run with no endpoint (offline models, re-scored files) and for the presets answered in-process
/// (the simulated and the local model: their `.invalid` addresses name no server, and would only
/// puzzle where runs are listed). Never a path, query or credentials.
pub fn endpoint_host(manifest: &RunManifest) -> Option<String> {
    let api = manifest.api.as_ref()?;
    // Read as kept: a name shows where a run went even if its URL was typed with a credential.
    let address = Address::parse(&redact_base_url(&api.endpoint.base_url)).ok()?;
    if address.host.ends_with(".invalid") {
        return None;
    }
    Some(address.host_and_port())
}

/// The run's name when the user gave none: model, endpoint host, task and template, date (UTC),
/// joined by ` · `. The same manifest always gives the same name.
pub fn default_name(manifest: &RunManifest) -> String {
    let model = manifest.api.as_ref().map_or(manifest.model.as_str(), |a| a.endpoint.model.as_str());
    let mut parts = vec![model.to_string()];
    parts.extend(endpoint_host(manifest));
    let task = manifest.task.label();
    let template = &manifest.template.id;
    // Built-in template ids already say the task (`output-direct`).
    parts.push(if template.contains(task) { template.clone() } else { format!("{task} {template}") });
    parts.push(utc_time(manifest.created));
    parts.join(" · ")
}

/// The name shown: the user's, else the default.
pub fn run_name(manifest: &RunManifest) -> String {
    manifest.name.clone().unwrap_or_else(|| default_name(manifest))
}

/// A name as typed, made fit to store: spaces and line breaks collapsed, trimmed. `Ok(None)`: an
/// empty edit, which means the default name. Refused: a name too long, or one that looks like an
/// API key (a name is stored, exported and shown; a key must never be).
pub fn clean_name(typed: &str) -> Result<Option<String>, String> {
    let name = typed
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if name.is_empty() {
        return Ok(None);
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(format!("the name has {chars} characters; at most {MAX_NAME_CHARS}"));
    }
    if name.split(|c: char| c.is_whitespace() || "·,;()[]{}<>\"'`".contains(c)).any(looks_like_key) {
        return Err(
            "the name looks like it holds an API key; names are stored and exported with the run, keys never are"
                .to_string(),
        );
    }
    Ok(Some(name))
}

/// Whether `word` looks like a secret: a provider's key prefix followed by more, or a long run of
/// letters and digits with both in it (model names are short segments joined by `-`, `_`, `.`).
fn looks_like_key(word: &str) -> bool {
    const PREFIXES: [&str; 9] = ["sk-", "sk_", "gsk_", "xai-", "AIza", "ghp_", "hf_", "pplx-", "Bearer"];
    if word.len() >= 16 && PREFIXES.iter().any(|p| word.starts_with(p)) {
        return true;
    }
    word.split(['-', '_', '.', '/', ':', '+', '=']).any(|segment| {
        segment.len() >= 20
            && segment.chars().all(|c| c.is_ascii_alphanumeric())
            && segment.chars().any(|c| c.is_ascii_digit())
            && segment.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// `2026-11-27 09:05:00` for seconds since 1970, in UTC: to the second, so two runs started a
/// minute apart (or less) still get names of their own.
pub fn utc_time(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let (year, month, day) = civil_from_days(days);
    let s = seconds % 86_400;
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::fixtures::manifest;
    use crate::settings::ApiSettings;
    use execbench_providers::Endpoint;

    fn api_manifest(base_url: &str, model: &str) -> RunManifest {
        let mut m = manifest("r1", 1_795_770_300);
        m.model = format!("{model} (openai-compatible)");
        m.api = Some(ApiSettings::new(Endpoint {
            provider: "openai-compatible".into(),
            base_url: base_url.into(),
            model: model.into(),
        }));
        m
    }

    #[test]
    fn default_names_say_model_host_task_template_and_date() {
        let offline = manifest("r0", 0);
        let mut custom_template = manifest("r2", 86_400 * 365 + 3_599);
        custom_template.template.id = "mine".into();
        let cases: Vec<(RunManifest, &str)> = vec![
            (offline, "oracle · output-direct · 1970-01-01 00:00:00"),
            (
                api_manifest("https://api.openai.com/v1", "gpt-4o-mini"),
                "gpt-4o-mini · api.openai.com · output-direct · 2026-11-27 09:05:00",
            ),
            (
                api_manifest("http://user:pw@127.0.0.1:8080/v1?key=secret", "mock-model"),
                "mock-model · 127.0.0.1:8080 · output-direct · 2026-11-27 09:05:00",
            ),
            (custom_template, "oracle · output mine · 1971-01-01 00:59:59"),
        ];
        for (m, expected) in cases {
            assert_eq!(default_name(&m), expected);
            assert_eq!(run_name(&m), expected, "no name given: the default");
        }
    }

    #[test]
    fn the_endpoint_host_drops_path_query_credentials_and_default_ports() {
        let cases = [
            ("https://api.openai.com/v1", Some("api.openai.com")),
            ("https://EXAMPLE.org:443/x", Some("example.org")),
            ("http://localhost:11434/v1", Some("localhost:11434")),
            ("http://a:b@[::1]:9/v1?api-key=s", Some("[::1]:9")),
            ("not a url", None),
            ("http://local-model.invalid/v1", None),
            ("http://simulated.invalid/v1", None),
        ];
        for (url, expected) in cases {
            assert_eq!(endpoint_host(&api_manifest(url, "m")).as_deref(), expected, "{url}");
        }
        assert_eq!(endpoint_host(&manifest("r", 0)), None, "an offline run has no endpoint");
    }

    #[test]
    fn typed_names_are_cleaned_or_refused() {
        let too_long = "x".repeat(121);
        let cases: Vec<(&str, Result<Option<&str>, &str>)> = vec![
            ("  baseline  ", Ok(Some("baseline"))),
            ("two\n lines\tand  spaces", Ok(Some("two lines and spaces"))),
            ("", Ok(None)),
            ("   \n ", Ok(None)),
            ("Meta-Llama-3.1-70B-Instruct-Turbo · T=0.2", Ok(Some("Meta-Llama-3.1-70B-Instruct-Turbo · T=0.2"))),
            ("run 2026-11-27 retry", Ok(Some("run 2026-11-27 retry"))),
            ("my sk-proj-abcdefghijklmnop run", Err("looks like it holds an API key")),
            ("AIzaSyA1234567890abcdef", Err("looks like it holds an API key")),
            ("key 9f86d081884c7d659a2feaa0c55ad015", Err("looks like it holds an API key")),
            (&too_long, Err("121 characters")),
        ];
        for (typed, expected) in cases {
            match (clean_name(typed), expected) {
                (Ok(got), Ok(want)) => assert_eq!(got.as_deref(), want, "{typed:?}"),
                (Err(got), Err(want)) => assert!(got.contains(want), "{typed:?}: {got}"),
                (got, want) => panic!("{typed:?}: got {got:?}, wanted {want:?}"),
            }
        }
    }
}
