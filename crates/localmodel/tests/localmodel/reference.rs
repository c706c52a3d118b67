//! The Rust inference against the NumPy reference of scripts/localmodel/make_tiny_gguf.py,
//! which wrote the fixtures (random weights, qwen2 architecture, Q8_0 and Q4_0).

use crate::common;

use common::*;
use execbench_localmodel::{ChatMessage, GenerateOptions, LocalModel, Sampling, StopReason, generate};

/// A step whose logits match the reference this closely computed exactly what ggml computes.
const EXACT: f32 = 1e-4;
/// Largest allowed |logit - reference| against the reference that quantizes activations to
/// Q8_0 as ggml does. An activation within float noise of a rounding boundary can land on the
/// neighbouring Q8_0 step here and not in NumPy (summation order differs); one such flip moves
/// these logits (of order 10) by up to about 0.25.
const TOLERANCE_GGML: f32 = 0.3;
/// Against the reference with f32 activations: the Q8_0 rounding of activations is the real
/// error of a quantized model (tests/reference_f32.rs checks the rest to 1e-4).
const TOLERANCE_FLOAT: f32 = 0.5;

#[test]
fn prompt_is_the_templates_and_tokens_are_the_tokenizers() {
    let r = reference();
    for name in MODELS {
        let model = load(name);
        let messages = [
            ChatMessage::new("system", r["system"].as_str().unwrap()),
            ChatMessage::new("user", r["user"].as_str().unwrap()),
        ];
        let prompt = model.render_chat(&messages).unwrap();
        assert_eq!(prompt, r["prompt_text"].as_str().unwrap(), "{name}");
        assert_eq!(model.encode(&prompt).unwrap(), ids(&r["prompt_ids"]), "{name}");
        let info = model.info();
        assert_eq!((info.architecture.as_str(), info.layers, info.heads, info.kv_heads), ("qwen2", 2, 4, 2));
        let im_end = model.encode("<|im_end|>").unwrap();
        assert_eq!(im_end.len(), 1);
        assert_eq!(info.end_tokens[0], im_end[0], "{name}: the file's eos is <|im_end|>");
    }
}

#[test]
fn logits_and_greedy_tokens_match_the_numpy_reference() {
    let r = reference();
    let vocab = r["vocab_size"].as_u64().unwrap() as usize;
    let prompt = ids(&r["prompt_ids"]);
    for name in MODELS {
        let m = &r["models"][name];
        let want_tokens = ids(&m["greedy_tokens"]);
        let ggml = logit_rows(m["logits_ggml"].as_str().unwrap(), vocab);
        let float = logit_rows(m["logits_float"].as_str().unwrap(), vocab);
        assert_eq!(ggml.len(), want_tokens.len() + 1);
        let mut model = load(name);
        let rows = teacher_forced(&mut model, &prompt, &want_tokens);
        let ggml_errors: Vec<f32> = rows.iter().zip(&ggml).map(|(a, b)| max_abs_diff(a, b)).collect();
        let float_errors: Vec<f32> = rows.iter().zip(&float).map(|(a, b)| max_abs_diff(a, b)).collect();
        let worst = |e: &[f32]| e.iter().copied().fold(0f32, f32::max);
        let exact_steps = ggml_errors.iter().filter(|&&e| e <= EXACT).count();
        eprintln!(
            "{name}: max |logit - reference| {:.3} (ggml activations; {exact_steps} of {} steps within {EXACT:e}), {:.3} (f32 activations)",
            worst(&ggml_errors),
            rows.len(),
            worst(&float_errors)
        );
        assert!(worst(&ggml_errors) <= TOLERANCE_GGML, "{name}: per step {ggml_errors:?}");
        assert!(worst(&float_errors) <= TOLERANCE_FLOAT, "{name}: per step {float_errors:?}");
        // Exact steps show the same computation, not merely a close one.
        assert!(exact_steps >= 1, "{name}: no step matches exactly: {ggml_errors:?}");

        let options = GenerateOptions { max_tokens: want_tokens.len(), sampling: Sampling::Greedy, stop_texts: vec![] };
        let got = generate(&mut model, &prompt, &options, |_, _| true).unwrap();
        assert_eq!(got.tokens, want_tokens, "{name}");
        assert_eq!(got.text, m["greedy_text"].as_str().unwrap(), "{name}");
        assert_eq!((got.stop, got.prompt_tokens), (StopReason::MaxTokens, prompt.len()));
    }
}

/// What the model ran before the prompt, and how many of the prompt's tokens the cache then holds.
type ReuseCase = (&'static str, fn(&[u32]) -> Vec<u32>, usize);

#[test]
fn a_prompt_that_starts_as_the_sequence_before_runs_only_its_new_tokens() {
    let r = reference();
    let prompt = ids(&r["prompt_ids"]);
    let n = prompt.len();
    let cases: [ReuseCase; 5] = [
        ("its first half, then other tokens", |p| [&p[..p.len() / 2], &[7, 8, 9][..]].concat(), n / 2),
        ("the same prompt (its last token runs again, for its logits)", |p| p.to_vec(), n - 1),
        ("the prompt and more after it", |p| [p, &[5, 6][..]].concat(), n - 1),
        ("another first token", |p| [&[p[0] + 1][..], &p[1..]].concat(), 0),
        ("nothing", |_| Vec::new(), 0),
    ];
    for name in MODELS {
        let mut fresh = load(name);
        let want = fresh.prefill(&prompt).unwrap();
        let options = GenerateOptions { max_tokens: 6, sampling: Sampling::Greedy, stop_texts: vec![] };
        fresh.clear_cache();
        let want_tokens = generate(&mut fresh, &prompt, &options, |_, _| true).unwrap().tokens;
        for (case, before, reused) in cases {
            let mut model = load(name);
            let before = before(&prompt);
            if !before.is_empty() {
                model.prefill(&before).unwrap();
            }
            let got = model.prefill(&prompt).unwrap();
            assert_eq!(model.reused(), reused, "{name}, {case}");
            // Only the attention's float sums see a different split; the quantized matmuls are per row.
            assert!(max_abs_diff(&got, &want) <= 1e-3, "{name}, {case}: {}", max_abs_diff(&got, &want));
            let again = generate(&mut model, &prompt, &options, |_, _| true).unwrap();
            assert_eq!(again.tokens, want_tokens, "{name}, {case}");
            assert_eq!(model.reused(), n - 1, "{name}, {case}: after generating, the prompt is still held");
        }
    }
}

/// Options, an end token to add, the callback stops after n tokens, expected tokens and stop.
type StopCase<'a> = (GenerateOptions, Option<u32>, usize, &'a [u32], StopReason);

#[test]
fn generation_stops_where_it_is_told() {
    let r = reference();
    let prompt = ids(&r["prompt_ids"]);
    let name = MODELS[0];
    let greedy = ids(&r["models"][name]["greedy_tokens"]);
    let mut model = load(name);
    let text_of_first_three = model.decode(&greedy[..3]).unwrap();
    let opts =
        |max_tokens, stop_texts: Vec<String>| GenerateOptions { max_tokens, sampling: Sampling::Greedy, stop_texts };
    let cases: Vec<StopCase> = vec![
        (opts(20, vec![]), Some(greedy[3]), usize::MAX, &greedy[..3], StopReason::EndToken),
        (opts(20, vec![text_of_first_three.clone()]), None, usize::MAX, &greedy[..3], StopReason::StopText),
        (opts(20, vec![]), None, 2, &greedy[..2], StopReason::Cancelled),
        (opts(5, vec![]), None, usize::MAX, &greedy[..5], StopReason::MaxTokens),
        (opts(0, vec![]), None, usize::MAX, &[], StopReason::MaxTokens),
    ];
    let default_ends = model.info().end_tokens.clone();
    for (i, (options, extra_end, cancel_after, want, stop)) in cases.into_iter().enumerate() {
        let mut ends = default_ends.clone();
        ends.extend(extra_end);
        model.set_end_tokens(ends);
        let mut seen = 0;
        let got = generate(&mut model, &prompt, &options, |_, _| {
            seen += 1;
            seen < cancel_after
        })
        .unwrap();
        assert_eq!((got.tokens.as_slice(), got.stop), (want, stop), "case {i}");
        if stop == StopReason::StopText {
            assert_eq!(got.text, text_of_first_three, "case {i}: the text ends with the stop text");
        }
    }
}

#[test]
fn seeded_sampling_repeats_and_differs_between_seeds() {
    let r = reference();
    let prompt = ids(&r["prompt_ids"]);
    let mut model = load(MODELS[1]);
    let mut run = |seed| {
        let sampling = Sampling::Random { temperature: 1.0, top_p: 0.95, seed };
        let options = GenerateOptions { max_tokens: 12, sampling, stop_texts: vec![] };
        generate(&mut model, &prompt, &options, |_, _| true).unwrap().tokens
    };
    let (a, b, c) = (run(1), run(1), run(2));
    assert_eq!(a, b, "same seed, same tokens (prefill also clears the previous sequence)");
    assert_ne!(a, c, "another seed, other tokens");
}

#[test]
fn bad_files_are_refused_with_a_message_naming_them() {
    let gguf = read(MODELS[0]);
    let tokenizer = String::from_utf8(read("tokenizer.json")).unwrap();
    // A tokenizer from another model: one token spelled differently.
    let other_tokenizer = tokenizer.replacen("\"<|im_end|>\"", "\"<|im_stop|>\"", 2);
    assert_ne!(other_tokenizer, tokenizer);
    let cases: [(&[u8], &[u8], &str); 4] = [
        (&gguf[..gguf.len() / 2], tokenizer.as_bytes(), "loading the weights"),
        (b"GGUF but not really", tokenizer.as_bytes(), "reading the GGUF file"),
        (&gguf, b"{not json", "reading tokenizer.json"),
        (&gguf, other_tokenizer.as_bytes(), "not the same model's"),
    ];
    for (g, t, want) in cases {
        let err = LocalModel::load(g, t).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains(want), "expected {want:?} in {err:?}");
    }
}
