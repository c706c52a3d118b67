use std::time::Instant;
use execbench_perturb::{syntax, Kind};
fn best<F: FnMut()>(mut f: F) -> f64 { let mut b = f64::INFINITY; for _ in 0..5 { let t = Instant::now(); f(); b = b.min(t.elapsed().as_secs_f64()*1000.0);} b }
fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let samples = execbench_core::load_jsonl(path, &text).samples;
    println!("fresh code  {:.1}", best(|| for s in &samples { std::hint::black_box(syntax::parse(&s.code).unwrap()); }));
    println!("fresh call  {:.1}", best(|| for s in &samples { std::hint::black_box(syntax::parse(&s.call).unwrap()); }));
    println!("fresh comb  {:.1}", best(|| for s in &samples { std::hint::black_box(syntax::parse(&format!("{}\n{}\n", s.code, s.call)).unwrap()); }));
    let trees: Vec<_> = samples.iter().map(|s| syntax::parse(&s.code).unwrap()).collect();
    println!("inc append  {:.1}", best(|| for (s, t) in samples.iter().zip(&trees) {
        let combined = format!("{}\n{}\n", s.code, s.call);
        let e = execbench_perturb::Edit { kind: Kind::Ren, start_byte: s.code.len(), end_byte: s.code.len(), after_start_byte: s.code.len(), before: String::new(), after: combined[s.code.len()..].to_string(), target: Default::default() };
        std::hint::black_box(syntax::reparse(t, &combined, &[e]).unwrap()); }));
    println!("misind+err  {:.1}", best(|| for (s, t) in samples.iter().zip(&trees) { std::hint::black_box(syntax::misindented(t.root_node(), &s.code)); std::hint::black_box(syntax::first_error(t.root_node())); }));
    println!("preorder    {:.1}", best(|| for t in &trees { std::hint::black_box(syntax::preorder(t.root_node())); }));
    println!("analysis    {:.1}", best(|| for (s, t) in samples.iter().zip(&trees) { std::hint::black_box(execbench_perturb::scope::Analysis::of(t.root_node(), &s.code)); }));
    println!("clone+drop  {:.1}", best(|| for t in &trees { std::hint::black_box(t.clone()); }));
}
