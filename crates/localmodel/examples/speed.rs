//! Native prefill and decode speed on a GGUF file (e.g. the random-weight 0.5B shape that
//! scripts/localmodel/make_tiny_gguf.py --shape 0.5b writes):
//!
//!     cargo run --release -p execbench-localmodel --example speed -- MODEL.gguf tokenizer.json [PROMPT_TOKENS] [DECODE_TOKENS]

use std::time::Instant;

use execbench_localmodel::LocalModel;

fn main() {
    if let Err(e) = run() {
        eprintln!("speed: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [gguf, tokenizer, rest @ ..] = args.as_slice() else {
        return Err("usage: speed MODEL.gguf tokenizer.json [PROMPT_TOKENS] [DECODE_TOKENS]".into());
    };
    let prompt_tokens: usize = rest.first().map(|s| s.parse()).transpose()?.unwrap_or(256);
    let decode_tokens: usize = rest.get(1).map(|s| s.parse()).transpose()?.unwrap_or(32);

    let started = Instant::now();
    let mut model = LocalModel::load(&std::fs::read(gguf)?, &std::fs::read(tokenizer)?)?;
    let load = started.elapsed().as_secs_f64();
    // A code-like prompt, repeated to the wanted length; the weights are random, so only speed counts.
    let unit = model.encode("def f(xs):\n    return [x * 2 for x in xs if x % 3]\n")?;
    let prompt: Vec<u32> = unit.iter().copied().cycle().take(prompt_tokens).collect();

    let started = Instant::now();
    let mut logits = model.prefill(&prompt)?;
    let prefill = started.elapsed().as_secs_f64();
    let started = Instant::now();
    for _ in 0..decode_tokens {
        let next = logits.iter().enumerate().fold(0, |best, (i, &l)| if l > logits[best] { i } else { best });
        logits = model.step(next as u32)?;
    }
    let decode = started.elapsed().as_secs_f64();
    println!(
        "{gguf}: load {load:.2} s; prefill {prompt_tokens} tokens {prefill:.2} s = {:.1} tokens/s; decode {decode_tokens} tokens {decode:.2} s = {:.1} tokens/s",
        prompt_tokens as f64 / prefill,
        decode_tokens as f64 / decode
    );
    Ok(())
}
