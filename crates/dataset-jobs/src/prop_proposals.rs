//! Generated proposal caches (MHC's wrong answers asked of a model, `ProposalCache`): a cache
//! written as JSON Lines and read back is the same cache, with every base URL redacted and no
//! credential in the text; written again, the same bytes. A cache with one line damaged is
//! refused with the file's name and that line's number, and without that line the rest reads as
//! the cache of the other proposals: nothing else is lost.

use crate::model_wrong_answers::{ModelProposal, ProposalCache};
use execbench_perturb::Prediction;
use execbench_perturb::model_prompt::Rejected;
use execbench_proptest_cases::cases;
use execbench_providers::redact_base_url;
use proptest::prelude::*;

/// The secret planted in base URLs: it must never reach the written cache.
const SECRET: &str = "sk-SECRET42";

/// Base URLs as users type them: plain, with a kept `api-version`, with a credential in the user
/// part or the query, with a fragment.
fn base_url() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(vec!["https://", "http://", ""]),
        "[a-z0-9.-]{1,12}(:[0-9]{1,5})?",
        "(/[a-z0-9_]{0,6}){0,3}",
        any::<bool>(),
        proptest::sample::select(vec![
            "",
            "?api-version=2024-06-01",
            "?key=SECRET",
            "?api-version=1&key=SECRET",
            "#SECRET",
        ]),
    )
        .prop_map(|(scheme, host, path, user, query)| {
            let user = if user { format!("me:{SECRET}@") } else { String::new() };
            format!("{scheme}{user}{host}{path}{}", query.replace("SECRET", SECRET))
        })
}

fn proposal() -> impl Strategy<Value = ModelProposal> {
    (
        ("\\PC{1,10}", any::<bool>(), "[0-9a-f]{1,4}", proptest::sample::select(vec!["openai", "anthropic", "gemini"])),
        (base_url(), "\\PC{1,12}", 0u32..3, "[0-9.]{1,6}"),
        (
            proptest::option::of("\\PC{0,20}|[\\n\"\\\\{}\\[\\]]{1,6}"),
            proptest::collection::vec(("\\PC{0,12}", "\\PC{0,16}"), 0..3),
            proptest::option::of("\\PC{0,20}"),
            any::<u64>(),
            any::<u64>(),
        ),
    )
        .prop_map(
            |(
                (sample_id, input, sample_hash, provider),
                (base_url, model, prompt_version, app_version),
                (claim, rejected, error, prompt_tokens, completion_tokens),
            )| ModelProposal {
                sample_id,
                prediction: if input { Prediction::Input } else { Prediction::Output },
                sample_hash,
                provider: provider.to_string(),
                base_url,
                model,
                prompt_version,
                app_version,
                claim,
                rejected: rejected.into_iter().map(|(claim, why)| Rejected { claim, why }).collect(),
                error,
                prompt_tokens,
                completion_tokens,
            },
        )
}

/// Proposals whose keys are few, so that later ones replace earlier ones too.
fn proposals() -> impl Strategy<Value = Vec<ModelProposal>> {
    proptest::collection::vec(proposal(), 0..8)
}

fn cache_of(proposals: impl IntoIterator<Item = ModelProposal>) -> ProposalCache {
    let mut cache = ProposalCache::default();
    for proposal in proposals {
        cache.insert(proposal);
    }
    cache
}

/// What a stored proposal reads back as: its base URL redacted.
fn as_stored(mut proposal: ModelProposal) -> ModelProposal {
    proposal.base_url = redact_base_url(&proposal.base_url);
    proposal
}

/// Ways to damage one line of a cache file (never into a blank line, which is skipped).
#[derive(Clone, Debug)]
enum Damage {
    /// Cut after this many characters (fewer than the line has).
    Cut(usize),
    /// Replaced by other text.
    Replace(String),
    /// A field's value given the wrong type.
    WrongType(&'static str),
    /// A required field taken out.
    Remove(&'static str),
}

fn damage() -> impl Strategy<Value = Damage> {
    let field = proptest::sample::select(vec![
        "sample_id",
        "prediction",
        "sample_hash",
        "provider",
        "base_url",
        "model",
        "prompt_version",
        "app_version",
        "prompt_tokens",
        "completion_tokens",
    ]);
    prop_oneof![
        (0usize..400).prop_map(Damage::Cut),
        // A line blank but for Unicode white space is skipped like any blank line: not damage.
        "\\PC{1,24}".prop_filter("not blank", |t| !t.trim().is_empty()).prop_map(Damage::Replace),
        Just(Damage::Replace("[]".into())),
        Just(Damage::Replace("null".into())),
        field.clone().prop_map(Damage::WrongType),
        field.prop_map(Damage::Remove),
    ]
}

/// `line` damaged: always text that is not a stored proposal.
fn damaged(line: &str, damage: &Damage) -> String {
    match damage {
        Damage::Cut(at) => {
            let chars: Vec<char> = line.chars().collect();
            chars[..(*at).min(chars.len() - 1).max(1)].iter().collect()
        }
        Damage::Replace(text) if text.trim_start().starts_with('{') => format!("[{text}"),
        Damage::Replace(text) => text.clone(),
        Damage::WrongType(field) => {
            let mut value: serde_json::Value = serde_json::from_str(line).expect("a written line is JSON");
            // Numbers become text, text becomes a list.
            let wrong = match &value[*field] {
                serde_json::Value::String(_) => serde_json::json!(["x"]),
                _ => serde_json::json!("x"),
            };
            value[*field] = wrong;
            value.to_string()
        }
        Damage::Remove(field) => {
            let mut value: serde_json::Value = serde_json::from_str(line).expect("a written line is JSON");
            value.as_object_mut().expect("an object").remove(*field);
            value.to_string()
        }
    }
}

proptest! {
    #![proptest_config(cases(512))]

    /// A cache written and read back is the same cache (base URLs redacted), the text carries no
    /// credential, and written again it is the same text.
    #[test]
    fn a_cache_written_and_read_back_is_the_same_cache(proposals in proposals(), crlf in any::<bool>()) {
        let cache = cache_of(proposals.iter().cloned());
        let mut text = cache.to_jsonl();
        prop_assert_eq!(text.lines().count(), cache.len());
        prop_assert!(!text.contains(SECRET), "a credential was written: {}", text);
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let read = ProposalCache::parse("proposals.jsonl", &text).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&read, &cache_of(proposals.into_iter().map(as_stored)));
        prop_assert_eq!(read.to_jsonl(), cache.to_jsonl());
    }

    /// One damaged line: refused, naming the file and that line; without it the other lines read
    /// as the cache of the other proposals.
    #[test]
    fn a_damaged_line_is_named_and_costs_nothing_else(
        proposals in proptest::collection::vec(proposal(), 1..6),
        which in any::<proptest::sample::Index>(),
        damage in damage(),
    ) {
        let text = cache_of(proposals).to_jsonl();
        let lines: Vec<&str> = text.lines().collect();
        let at = which.index(lines.len());
        let bad = damaged(lines[at], &damage);
        let mut with_damage: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        with_damage[at] = bad.clone();
        let error = ProposalCache::parse("proposals.jsonl", &with_damage.join("\n"))
            .err()
            .ok_or_else(|| TestCaseError::fail(format!("line {} accepted: {bad:?}", at + 1)))?;
        let named = format!("proposals.jsonl:{}: not a stored proposal", at + 1);
        prop_assert!(error.starts_with(&named), "{} (want {})", error, named);
        prop_assert!(!error.contains(SECRET), "{}", error);
        let rest: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, l)| *l).collect();
        let without = ProposalCache::parse("proposals.jsonl", &rest.join("\n")).map_err(TestCaseError::fail)?;
        let others = rest.iter().map(|l| serde_json::from_str::<ModelProposal>(l).expect("a good line"));
        prop_assert_eq!(without.len(), lines.len() - 1);
        prop_assert_eq!(without, cache_of(others));
    }

    /// Any text is a cache or an error that names the file and a line.
    #[test]
    fn any_text_is_a_cache_or_a_named_line(text in "\\PC{0,80}|(\\{\"[a-z_]{1,12}\": ?(\"\\PC{0,6}\"|[0-9]{1,3}|null|\\[\\]), ?){0,4}") {
        if let Err(error) = ProposalCache::parse("proposals.jsonl", &text) {
            let line: Option<usize> = error
                .strip_prefix("proposals.jsonl:")
                .and_then(|rest| rest.split(':').next())
                .and_then(|n| n.parse().ok());
            prop_assert!(line.is_some_and(|n| n >= 1 && n <= text.lines().count()), "{}", error);
        }
    }
}
