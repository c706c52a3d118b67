//! Self-attention, the rotary embedding and the SiLU gate in plain f32 Rust, with every sum in
//! an order written here and `libm`'s functions (exp, sin, cos, pow) on every target.
//!
//! Why not candle's: its f32 matmul (the `gemm` crate) uses fused multiply-adds natively and
//! not in wasm, and `std`'s `exp` is the C library's natively and a Rust port of musl's in wasm.
//! Each rounds differently, so the page's answers drifted from the command line's on a few
//! samples in 20 (issue 58 asks for 19 of 20 identical). With the weight matmuls in our own
//! kernel (`q8_matrix.rs`) and these, the page computes the native build's very floats: Rust
//! never fuses a multiply and an add by itself, and each vector lane below is summed on its own,
//! so however the compiler vectorises a loop, the result is the written order's.

/// The keys and values of the positions run so far, per layer and key head:
/// `positions x head_dim` floats.
pub(crate) struct KvCache {
    layers: Vec<LayerCache>,
    head_dim: usize,
    pub(crate) len: usize,
}

#[derive(Clone, Default)]
struct LayerCache {
    keys: Vec<Vec<f32>>,
    values: Vec<Vec<f32>>,
}

impl KvCache {
    pub fn new(layers: usize, kv_heads: usize, head_dim: usize) -> Self {
        let layer = LayerCache { keys: vec![Vec::new(); kv_heads], values: vec![Vec::new(); kv_heads] };
        KvCache { layers: vec![layer; layers], head_dim, len: 0 }
    }

    /// Keeps the first `len` positions only.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        for layer in &mut self.layers {
            for head in layer.keys.iter_mut().chain(layer.values.iter_mut()) {
                head.truncate(len * self.head_dim);
            }
        }
        self.len = len;
    }
}

/// cos and sin of position * base^(-2i/d), (context, head_dim / 2) each.
pub(crate) struct Rotary {
    cos: Vec<f32>,
    sin: Vec<f32>,
    half: usize,
    /// Pairs (i, i + d/2) as GPT-NeoX and Qwen2 have them; otherwise (2i, 2i + 1), as llama's
    /// GGUF files are laid out (llama.cpp's LLAMA_ROPE_TYPE_NEOX / NORM).
    neox: bool,
}

impl Rotary {
    pub fn new(context: usize, head_dim: usize, base: f32, neox: bool) -> Self {
        let half = head_dim / 2;
        let inverse: Vec<f32> = (0..half).map(|i| 1.0 / libm::powf(base, (2 * i) as f32 / head_dim as f32)).collect();
        let angles = (0..context).flat_map(|p| inverse.iter().map(move |&f| p as f32 * f));
        let (cos, sin) = angles.map(|a| (libm::cosf(a), libm::sinf(a))).unzip();
        Rotary { cos, sin, half, neox }
    }

    /// Rotates each head of `rows` (one row a token, `heads x head_dim` wide; row `i` at
    /// position `start + i`).
    pub fn rotate(&self, rows: &mut [f32], width: usize, start: usize) {
        let d = 2 * self.half;
        for (i, row) in rows.chunks_exact_mut(width).enumerate() {
            let at = (start + i) * self.half;
            let (cos, sin) = (&self.cos[at..at + self.half], &self.sin[at..at + self.half]);
            for head in row.chunks_exact_mut(d) {
                for j in 0..self.half {
                    let (a, b) = if self.neox { (j, j + self.half) } else { (2 * j, 2 * j + 1) };
                    let (x, y) = (head[a], head[b]);
                    head[a] = x * cos[j] - y * sin[j];
                    head[b] = x * sin[j] + y * cos[j];
                }
            }
        }
    }
}

/// The shape attention needs.
#[derive(Clone, Copy)]
pub(crate) struct Heads {
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
}

/// Appends the new positions' keys and values (`t` rows of `kv_heads x head_dim`) to layer
/// `layer` of `cache`, then returns each new position's attention over every position up to it:
/// `t` rows of `heads x head_dim`. `q` is rotated; query head `h` reads key head
/// `h / (heads / kv_heads)`.
pub(crate) fn attend(q: &[f32], k: &[f32], v: &[f32], cache: &mut KvCache, layer: usize, shape: Heads) -> Vec<f32> {
    let Heads { heads, kv_heads, head_dim: d } = shape;
    let t = q.len() / (heads * d);
    let start = cache.len;
    let layer = &mut cache.layers[layer];
    for (new, kept) in [(k, &mut layer.keys), (v, &mut layer.values)] {
        for row in new.chunks_exact(kv_heads * d) {
            for (head, kept) in row.chunks_exact(d).zip(kept.iter_mut()) {
                kept.extend_from_slice(head);
            }
        }
    }
    let scale = 1.0 / (d as f32).sqrt();
    let groups = heads / kv_heads;
    let mut out = vec![0f32; q.len()];
    let mut weights = Vec::with_capacity(start + t);
    for (i, (q, out)) in q.chunks_exact(heads * d).zip(out.chunks_exact_mut(heads * d)).enumerate() {
        let seen = start + i + 1;
        for (h, (q, out)) in q.chunks_exact(d).zip(out.chunks_exact_mut(d)).enumerate() {
            let (keys, values) = (&layer.keys[h / groups], &layer.values[h / groups]);
            weights.clear();
            weights.extend(keys.chunks_exact(d).take(seen).map(|k| dot(q, k) * scale));
            softmax(&mut weights);
            for (&w, v) in weights.iter().zip(values.chunks_exact(d)) {
                for (o, &v) in out.iter_mut().zip(v) {
                    *o += w * v;
                }
            }
        }
    }
    out
}

/// `a . b` in 8 lanes (lane l takes elements l, l + 8, ...), added pairwise at the end.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a8.remainder().iter().zip(b8.remainder()).fold(0.0, |s, (x, y)| s + x * y);
    for (a, b) in a8.zip(b8) {
        for l in 0..8 {
            lanes[l] += a[l] * b[l];
        }
    }
    ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7])) + tail
}

/// exp(x - max) / their sum, in place.
fn softmax(xs: &mut [f32]) {
    let max = xs.iter().fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m });
    for x in xs.iter_mut() {
        *x = libm::expf(*x - max);
    }
    let sum = xs.iter().fold(0f32, |s, &x| s + x);
    for x in xs.iter_mut() {
        *x /= sum;
    }
}

/// `silu(gate) * up`, element by element: silu(g) = g / (1 + exp(-g)).
pub(crate) fn silu_times(gate: &[f32], up: &[f32]) -> Vec<f32> {
    gate.iter().zip(up).map(|(&g, &u)| g / (1.0 + libm::expf(-g)) * u).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attention written out the long way (scores, softmax, weighted sum) in f64.
    fn long_way(q: &[f32], keys: &[Vec<f32>], values: &[Vec<f32>], shape: Heads, start: usize) -> Vec<f64> {
        let Heads { heads, kv_heads, head_dim: d } = shape;
        let mut out = Vec::new();
        for (i, q) in q.chunks_exact(heads * d).enumerate() {
            for (h, q) in q.chunks_exact(d).enumerate() {
                let g = h / (heads / kv_heads);
                let scores: Vec<f64> = keys[g]
                    .chunks_exact(d)
                    .take(start + i + 1)
                    .map(|k| q.iter().zip(k).map(|(&a, &b)| a as f64 * b as f64).sum::<f64>() / (d as f64).sqrt())
                    .collect();
                let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                let sum: f64 = e.iter().sum();
                for j in 0..d {
                    out.push(e.iter().zip(values[g].chunks_exact(d)).map(|(w, v)| w / sum * v[j] as f64).sum());
                }
            }
        }
        out
    }

    fn numbers(n: usize, seed: usize) -> Vec<f32> {
        (0..n).map(|i| ((i * 7919 + seed * 104729) % 2003) as f32 / 1001.0 - 1.0).collect()
    }

    #[test]
    fn attention_over_a_kept_prefix_and_new_positions_is_the_long_way_round() {
        let shape = Heads { heads: 4, kv_heads: 2, head_dim: 16 };
        let row = shape.kv_heads * shape.head_dim;
        let mut cache = KvCache::new(1, shape.kv_heads, shape.head_dim);
        // 3 positions first, then 2 more against them: each new position sees the kept ones.
        let (k1, v1, q1) = (numbers(3 * row, 1), numbers(3 * row, 2), numbers(3 * 64, 3));
        let first = attend(&q1, &k1, &v1, &mut cache, 0, shape);
        cache.len = 3;
        let (k2, v2, q2) = (numbers(2 * row, 4), numbers(2 * row, 5), numbers(2 * 64, 6));
        let second = attend(&q2, &k2, &v2, &mut cache, 0, shape);
        let per_head = |k: &[f32]| -> Vec<Vec<f32>> {
            (0..shape.kv_heads)
                .map(|g| k.chunks_exact(row).flat_map(|r| r[g * 16..(g + 1) * 16].to_vec()).collect())
                .collect()
        };
        let all = |a: &[f32], b: &[f32]| [a, b].concat();
        let want_first = long_way(&q1, &per_head(&k1), &per_head(&v1), shape, 0);
        let want_second = long_way(&q2, &per_head(&all(&k1, &k2)), &per_head(&all(&v1, &v2)), shape, 3);
        for (got, want) in [(first, want_first), (second, want_second)] {
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                assert!((*g as f64 - w).abs() < 1e-5, "{g} against {w}");
            }
        }
        cache.len = 5;
        cache.truncate(2);
        assert_eq!(cache.layers[0].keys[1].len(), 2 * 16);
    }

    #[test]
    fn the_dot_product_takes_every_element_and_the_softmax_sums_to_one() {
        for n in [1, 8, 13, 64] {
            let (a, b) = (numbers(n, 1), numbers(n, 2));
            let want: f64 = a.iter().zip(&b).map(|(&x, &y)| x as f64 * y as f64).sum();
            assert!((dot(&a, &b) as f64 - want).abs() < 1e-5, "{n} elements");
        }
        let mut xs = vec![1.0, 2.0, 3.0, -50.0];
        softmax(&mut xs);
        assert!((xs.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(xs[2] > xs[1] && xs[1] > xs[0] && xs[3] < 1e-20);
    }

    #[test]
    fn the_rotation_pairs_halves_for_neox_and_neighbours_otherwise() {
        // Position 1, head_dim 4, base 1: angles 1 and 1 (base^0 = base^0.5 = 1).
        for (neox, pairs) in [(true, [(0, 2), (1, 3)]), (false, [(0, 1), (2, 3)])] {
            let rotary = Rotary::new(2, 4, 1.0, neox);
            let mut row = vec![1.0, 2.0, 3.0, 4.0];
            rotary.rotate(&mut row, 4, 1);
            let (c, s) = (1f32.cos(), 1f32.sin());
            let original = [1.0f32, 2.0, 3.0, 4.0];
            for (a, b) in pairs {
                let (x, y) = (original[a], original[b]);
                assert!((row[a] - (x * c - y * s)).abs() < 1e-6, "neox {neox}: element {a}");
                assert!((row[b] - (x * s + y * c)).abs() < 1e-6, "neox {neox}: element {b}");
            }
        }
    }

    #[test]
    fn silu_gates_as_its_formula() {
        let got = silu_times(&[0.0, 1.0, -2.0], &[5.0, 2.0, 1.0]);
        let want = [0.0, 2.0 / (1.0 + (-1f32).exp()), -2.0 / (1.0 + 2f32.exp())];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-6);
        }
    }
}
