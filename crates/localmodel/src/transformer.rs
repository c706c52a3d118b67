//! The decoder that qwen2 and llama GGUF files share, written here rather than taken from
//! candle-transformers for two reasons:
//! - its key/value cache can be cut back to a prefix ([`KvCache::truncate`]), so a prompt that
//!   starts as the last one did (every sample of a CRUXEval template, each of n samples) runs
//!   only its new tokens; candle's models can only clear their cache;
//! - the token embeddings stay quantized, one copy shared with a tied output layer, and only the
//!   rows a prompt uses are expanded (candle keeps a float copy: 545 MB for Qwen2.5's 0.5B).
//!
//! The arithmetic is candle's (its quantized matmuls, RMS norm, rotary embedding and softmax), in
//! the order llama.cpp computes a layer.

use std::sync::Arc;

use candle_core::quantized::{GgmlDType, QTensor, ggml_file, gguf_file};
use candle_core::{DType, Device, Tensor};

use crate::q8_matrix::Q8Matrix;
use crate::weight::Weight;

/// Shorthand: every fallible step here is a candle step.
type Result<T> = candle_core::Result<T>;

/// The hyper-parameters the forward pass needs, read from the GGUF metadata.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shape {
    pub layers: usize,
    pub hidden: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub context: usize,
    pub rms_eps: f64,
    pub rope_base: f32,
    /// Rotary pairs (i, i + d/2) as GPT-NeoX and Qwen2 have them; otherwise (2i, 2i + 1), as
    /// llama's GGUF files are laid out (llama.cpp's LLAMA_ROPE_TYPE_NEOX / NORM).
    pub neox_rope: bool,
}

/// One `x W^T (+ b)` with quantized `W`.
struct Linear {
    weight: Weight,
    bias: Option<Tensor>,
}

impl Linear {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let y = self.weight.forward(x)?;
        match &self.bias {
            Some(b) => y.broadcast_add(b),
            None => Ok(y),
        }
    }
}

struct Layer {
    attention_norm: Tensor,
    q: Linear,
    k: Linear,
    v: Linear,
    output: Weight,
    ffn_norm: Tensor,
    gate: Weight,
    up: Weight,
    down: Weight,
}

/// The token embeddings, still quantized: a row is expanded when a token is looked up. A Q8_0
/// table is kept in the layout of our Q8_0 kernel, so that a tied output layer multiplies by the
/// very same copy.
enum Embeddings {
    Q8(Arc<Q8Matrix>),
    Table { table: Arc<QTensor>, hidden: usize, row_bytes: usize },
}

impl Embeddings {
    fn new(table: Arc<QTensor>, hidden: usize) -> Result<Self> {
        if let Some(m) = Q8Matrix::from_qtensor(&table)? {
            return Ok(Embeddings::Q8(Arc::new(m)));
        }
        let dtype = table.dtype();
        if !hidden.is_multiple_of(dtype.block_size()) {
            candle_core::bail!("token_embd.weight: a row of {hidden} is not whole {dtype:?} blocks");
        }
        Ok(Embeddings::Table { row_bytes: hidden / dtype.block_size() * dtype.type_size(), table, hidden })
    }

    /// (ids.len(), hidden), f32.
    fn lookup(&self, ids: &[u32]) -> Result<Tensor> {
        let missing = |id: u32| candle_core::Error::Msg(format!("token id {id} has no embedding row"));
        let rows = match self {
            Embeddings::Q8(m) => ids
                .iter()
                .map(|&id| {
                    let row = m.row_f32(id as usize).ok_or_else(|| missing(id))?;
                    let n = row.len();
                    Tensor::from_vec(row, n, &Device::Cpu)
                })
                .collect::<Result<Vec<_>>>()?,
            Embeddings::Table { table, hidden, row_bytes } => {
                let data = table.data()?;
                let dtype: GgmlDType = table.dtype();
                ids.iter()
                    .map(|&id| {
                        let at = id as usize * row_bytes;
                        let bytes = data.get(at..at + row_bytes).ok_or_else(|| missing(id))?;
                        ggml_file::qtensor_from_ggml(dtype, bytes, vec![*hidden], &Device::Cpu)?
                            .dequantize(&Device::Cpu)
                    })
                    .collect::<Result<Vec<_>>>()?
            }
        };
        Tensor::stack(&rows, 0)
    }

    /// The table as a tied output layer's weight.
    fn as_output(&self) -> Result<Weight> {
        match self {
            Embeddings::Q8(m) => Ok(Weight::Q8(m.clone())),
            Embeddings::Table { table, .. } => Weight::shared(table.clone()),
        }
    }
}

/// The keys and values of the positions run so far, per layer: (1, kv_heads, positions, head_dim).
pub(crate) struct KvCache {
    layers: Vec<Option<(Tensor, Tensor)>>,
    len: usize,
}

impl KvCache {
    pub fn new(layers: usize) -> Self {
        KvCache { layers: vec![None; layers], len: 0 }
    }

    /// Keeps the first `len` positions only (nothing is copied: the tensors become views).
    pub fn truncate(&mut self, len: usize) -> Result<()> {
        if len >= self.len {
            return Ok(());
        }
        for layer in &mut self.layers {
            *layer = match layer.take() {
                Some((k, v)) if len > 0 => Some((k.narrow(2, 0, len)?, v.narrow(2, 0, len)?)),
                _ => None,
            };
        }
        self.len = len;
        Ok(())
    }
}

/// The weights of a qwen2 or llama decoder.
pub(crate) struct Transformer {
    shape: Shape,
    embeddings: Embeddings,
    layers: Vec<Layer>,
    norm: Tensor,
    output: Weight,
    /// (context, head_dim / 2) each.
    cos: Tensor,
    sin: Tensor,
}

impl Transformer {
    /// Reads the weights of `shape.layers` blocks; a missing `output.weight` means the output layer
    /// is the embeddings (tied).
    pub fn from_gguf<R: std::io::Read + std::io::Seek>(
        content: &gguf_file::Content,
        reader: &mut R,
        shape: Shape,
        biased_qkv: bool,
    ) -> Result<Self> {
        let cpu = Device::Cpu;
        let mut tensor = |name: &str| content.tensor(reader, name, &cpu);
        let embeddings_q = Arc::new(tensor("token_embd.weight")?);
        let output = match tensor("output.weight") {
            Ok(w) => Some(Weight::new(w)?),
            // Tied: the table is shared, unless its format is one rewritten for speed (then the
            // output layer has its own rewritten copy: 16 MB for SmolLM2's Q4_1 table).
            Err(_) if embeddings_q.dtype() == GgmlDType::Q4_1 => {
                let copy = ggml_file::qtensor_from_ggml(
                    GgmlDType::Q4_1,
                    &embeddings_q.data()?,
                    embeddings_q.shape().dims().to_vec(),
                    &cpu,
                )?;
                Some(Weight::new(copy)?)
            }
            Err(_) => None,
        };
        let norm = tensor("output_norm.weight")?.dequantize(&cpu)?;
        let mut layers = Vec::with_capacity(shape.layers);
        for i in 0..shape.layers {
            let mut weight = |part: &str| tensor(&format!("blk.{i}.{part}.weight"));
            let attention_norm = weight("attn_norm")?.dequantize(&cpu)?;
            let ffn_norm = weight("ffn_norm")?.dequantize(&cpu)?;
            let wq = Weight::new(weight("attn_q")?)?;
            let wk = Weight::new(weight("attn_k")?)?;
            let wv = Weight::new(weight("attn_v")?)?;
            let output = Weight::new(weight("attn_output")?)?;
            let gate = Weight::new(weight("ffn_gate")?)?;
            let up = Weight::new(weight("ffn_up")?)?;
            let down = Weight::new(weight("ffn_down")?)?;
            let mut bias = |part: &str| -> Result<Option<Tensor>> {
                match biased_qkv {
                    true => Ok(Some(tensor(&format!("blk.{i}.{part}.bias"))?.dequantize(&cpu)?)),
                    false => Ok(None),
                }
            };
            let (bq, bk, bv) = (bias("attn_q")?, bias("attn_k")?, bias("attn_v")?);
            layers.push(Layer {
                attention_norm,
                q: Linear { weight: wq, bias: bq },
                k: Linear { weight: wk, bias: bk },
                v: Linear { weight: wv, bias: bv },
                output,
                ffn_norm,
                gate,
                up,
                down,
            });
        }
        let (cos, sin) = rotary_tables(&shape)?;
        let embeddings = Embeddings::new(embeddings_q, shape.hidden)?;
        let output = match output {
            Some(w) => w,
            None => embeddings.as_output()?,
        };
        Ok(Transformer { shape, embeddings, layers, norm, output, cos, sin })
    }

    pub fn layers(&self) -> usize {
        self.shape.layers
    }

    /// Runs `ids` at the positions after those `cache` holds, appends their keys and values to it,
    /// and returns the logits after the last of them.
    pub fn forward(&self, ids: &[u32], cache: &mut KvCache) -> Result<Vec<f32>> {
        let s = &self.shape;
        let (start, t) = (cache.len, ids.len());
        if t == 0 {
            candle_core::bail!("no tokens to run");
        }
        if start + t > s.context {
            candle_core::bail!("{} positions exceed the context of {}", start + t, s.context);
        }
        let cos = self.cos.narrow(0, start, t)?;
        let sin = self.sin.narrow(0, start, t)?;
        // Additive causal mask over (new positions, all positions), broadcast over heads.
        let mask = (t > 1).then(|| causal_mask(t, start)).transpose()?;
        let groups = s.heads / s.kv_heads;
        let scale = 1.0 / (s.head_dim as f64).sqrt();
        let mut x = self.embeddings.lookup(ids)?;
        for (layer, kv) in self.layers.iter().zip(cache.layers.iter_mut()) {
            let h = candle_nn::ops::rms_norm(&x, &layer.attention_norm, s.rms_eps as f32)?;
            // (1, heads, t, head_dim), rotated.
            let split = |y: Tensor, heads: usize| y.reshape((1, t, heads, s.head_dim))?.transpose(1, 2)?.contiguous();
            let rotate = |y: &Tensor| match s.neox_rope {
                true => candle_nn::rotary_emb::rope(y, &cos, &sin),
                false => candle_nn::rotary_emb::rope_i(y, &cos, &sin),
            };
            let q = rotate(&split(layer.q.forward(&h)?, s.heads)?)?;
            let k = rotate(&split(layer.k.forward(&h)?, s.kv_heads)?)?;
            let v = split(layer.v.forward(&h)?, s.kv_heads)?;
            let (k, v) = match kv.take() {
                Some((k0, v0)) => (Tensor::cat(&[&k0, &k], 2)?, Tensor::cat(&[&v0, &v], 2)?),
                None => (k, v),
            };
            *kv = Some((k.clone(), v.clone()));
            let all = start + t;
            // The query heads that share a key head sit next to each other (head i reads key
            // head i / groups): as (kv_heads, groups * t) rows they meet their keys in one
            // matmul, and the keys are never copied per query head.
            let q = q.reshape((1, s.kv_heads, groups * t, s.head_dim))?;
            let scores = (q.matmul(&k.t()?)? * scale)?;
            let scores = match &mask {
                Some(m) => scores.reshape((1, s.kv_heads, groups, t, all))?.broadcast_add(m)?.reshape((
                    1,
                    s.kv_heads,
                    groups * t,
                    all,
                ))?,
                None => scores,
            };
            let weights = candle_nn::ops::softmax_last_dim(&scores)?;
            let attended = weights.matmul(&v.contiguous()?)?; // (1, kv_heads, groups * t, head_dim)
            let attended = attended.reshape((1, s.heads, t, s.head_dim))?.transpose(1, 2)?.reshape((t, s.hidden))?;
            x = (x + layer.output.forward(&attended)?)?;
            let h = candle_nn::ops::rms_norm(&x, &layer.ffn_norm, s.rms_eps as f32)?;
            let gated = (candle_nn::ops::silu(&layer.gate.forward(&h)?)? * layer.up.forward(&h)?)?;
            x = (x + layer.down.forward(&gated)?)?;
        }
        cache.len = start + t;
        let last = x.narrow(0, t - 1, 1)?;
        let last = candle_nn::ops::rms_norm(&last, &self.norm, s.rms_eps as f32)?;
        self.output.forward(&last)?.squeeze(0)?.to_vec1::<f32>()
    }
}

/// cos and sin of position * base^(-2i/d), computed in f32 as candle and llama.cpp do.
fn rotary_tables(shape: &Shape) -> Result<(Tensor, Tensor)> {
    let d = shape.head_dim;
    let inverse: Vec<f32> = (0..d).step_by(2).map(|i| 1f32 / shape.rope_base.powf(i as f32 / d as f32)).collect();
    let inverse = Tensor::new(inverse.as_slice(), &Device::Cpu)?.reshape((1, d / 2))?;
    let positions =
        Tensor::arange(0, shape.context as u32, &Device::Cpu)?.to_dtype(DType::F32)?.reshape((shape.context, 1))?;
    let angles = positions.matmul(&inverse)?;
    Ok((angles.cos()?, angles.sin()?))
}

/// (t, start + t): 0 where query i (at position start + i) may see key j, -inf after it.
fn causal_mask(t: usize, start: usize) -> Result<Tensor> {
    let all = start + t;
    let values: Vec<f32> =
        (0..t).flat_map(|i| (0..all).map(move |j| if j > start + i { f32::NEG_INFINITY } else { 0.0 })).collect();
    Tensor::from_vec(values, (t, all), &Device::Cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mask_lets_each_new_position_see_the_kept_prefix_and_itself() {
        let mask = causal_mask(2, 3).unwrap().to_vec2::<f32>().unwrap();
        let seen: Vec<Vec<bool>> = mask.iter().map(|row| row.iter().map(|&v| v == 0.0).collect()).collect();
        assert_eq!(seen, vec![vec![true, true, true, true, false], vec![true, true, true, true, true]]);
    }

    #[test]
    fn a_cut_cache_keeps_its_first_positions() {
        let k = Tensor::arange(0f32, 12.0, &Device::Cpu).unwrap().reshape((1, 1, 4, 3)).unwrap();
        let mut cache = KvCache { layers: vec![Some((k.clone(), k))], len: 4 };
        cache.truncate(2).unwrap();
        assert_eq!(cache.len, 2);
        let (k, _) = cache.layers[0].as_ref().unwrap();
        assert_eq!(k.flatten_all().unwrap().to_vec1::<f32>().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        cache.truncate(0).unwrap();
        assert!(cache.layers[0].is_none());
        assert_eq!(cache.len, 0);
    }
}
