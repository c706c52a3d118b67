use std::time::Instant;
use execbench_perturb::{Kind, Options, perturb_sample, syntax};
fn main() {
    let text = std::fs::read_to_string("/work/shared/data/cruxeval/cruxeval.jsonl").unwrap();
    let samples = execbench_core::load_jsonl("c", &text).samples;
    let t = Instant::now();
    for s in &samples { syntax::parse(&s.call).unwrap(); }
    println!("calls: {:.1} ms, avg len {}", t.elapsed().as_secs_f64()*1e3, samples.iter().map(|s| s.call.len()).sum::<usize>()/800);
    let t = Instant::now();
    for _ in &samples { syntax::parse("x").unwrap(); }
    println!("tiny: {:.1} ms", t.elapsed().as_secs_f64()*1e3);
    println!("avg code len {}", samples.iter().map(|s| s.code.len()).sum::<usize>()/800);
    for kind in [Kind::Ren, Kind::Rtf, Kind::Gbc, Kind::PscAll, Kind::Mcc, Kind::Mps, Kind::Mhc] {
        let outs: Vec<_> = samples.iter().map(|s| perturb_sample(s, kind, &Options::default()).unwrap()).collect();
        let mut fresh = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            for o in &outs { syntax::parse(&o.code).unwrap(); }
            fresh = fresh.min(t.elapsed().as_secs_f64()*1e3);
        }
        println!("{kind}: fresh {fresh:.1} ms avg len {}", outs.iter().map(|o| o.code.len()).sum::<usize>()/800);
    }
}
