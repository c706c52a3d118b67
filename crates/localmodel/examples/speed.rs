//! Native prefill and decode speed on a GGUF file (e.g. the random-weight 0.5B shape that
//! scripts/localmodel/make_tiny_gguf.py --shape 0.5b writes):
//!
//!     cargo run --release -p execbench-localmodel --example speed -- MODEL.gguf tokenizer.json|- [PROMPT_TOKENS] [DECODE_TOKENS]

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
    // "-": the GGUF's own tokenizer.
    let tokenizer = match tokenizer.as_str() {
        "-" => None,
        path => Some(std::fs::read(path)?),
    };
    let mut model = LocalModel::load_with(&std::fs::read(gguf)?, tokenizer.as_deref())?;
    let load = started.elapsed().as_secs_f64();
    // A code-like prompt, repeated to the wanted length; the weights are random, so only speed counts.
    let unit = model.encode("def f(xs):\n    return [x * 2 for x in xs if x % 3]\n")?;
    let prompt: Vec<u32> = unit.iter().copied().cycle().take(prompt_tokens).collect();

    let (started, cpu0) = (Instant::now(), cpu_seconds());
    let mut logits = model.prefill(&prompt)?;
    let (prefill, cpu1) = (started.elapsed().as_secs_f64(), cpu_seconds());
    let started = Instant::now();
    for _ in 0..decode_tokens {
        let next = logits.iter().enumerate().fold(0, |best, (i, &l)| if l > logits[best] { i } else { best });
        logits = model.step(next as u32)?;
    }
    let (decode, cpu2) = (started.elapsed().as_secs_f64(), cpu_seconds());
    // On a shared machine wall time depends on the others' load; CPU time much less so.
    if let (Some(c0), Some(c1), Some(c2)) = (cpu0, cpu1, cpu2) {
        println!(
            "CPU time (all threads): prefill {:.2} s = {:.1} tokens per CPU-second; decode {:.2} s = {:.1} tokens per CPU-second",
            c1 - c0,
            prompt_tokens as f64 / (c1 - c0),
            c2 - c1,
            decode_tokens as f64 / (c2 - c1)
        );
    }
    println!(
        "{gguf}: load {load:.2} s; prefill {prompt_tokens} tokens {prefill:.2} s = {:.1} tokens/s; decode {decode_tokens} tokens {decode:.2} s = {:.1} tokens/s",
        prompt_tokens as f64 / prefill,
        decode_tokens as f64 / decode
    );
    Ok(())
}

/// This process's user + system CPU time (Linux), None elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces, so split after its closing paren).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0) // USER_HZ is 100 on Linux
}
