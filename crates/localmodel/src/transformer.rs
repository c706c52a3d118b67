//! The decoder that qwen2 and llama GGUF files share, written here rather than taken from
//! candle-transformers for two reasons:
//! - its key/value cache can be cut back to a prefix ([`KvCache::truncate`]), so a prompt that
//!   starts as the last one did (every sample of a CRUXEval template, each of n samples) runs
//!   only its new tokens; candle's models can only clear their cache;
//! - the token embeddings stay quantized, one copy shared with a tied output layer, and only the
//!   rows a prompt uses are expanded (candle keeps a float copy: 545 MB for Qwen2.5's 0.5B).
//!
//! The weight matmuls are our kernel's (`q8_matrix.rs`; candle's for the formats it does not
//! take), attention, the rotary embedding and the SiLU gate are `attention.rs`'s, the RMS norms
//! and the residual adds candle's: in the order llama.cpp computes a layer.

use std::sync::Arc;

use candle_core::quantized::{GgmlDType, QTensor, ggml_file, gguf_file};
use candle_core::{Device, Tensor};

use crate::attention::{self, Heads, KvCache, Rotary};
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

/// The token embeddings, still quantized: a row is expanded when a token is looked up. A table
/// in a format our kernel takes (Q8_0, Q4_0, Q4_1, Q4_K, Q6_K) is kept in its layout, so that a
/// tied output layer multiplies by the very same copy.
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

/// The weights of a qwen2 or llama decoder.
pub(crate) struct Transformer {
    shape: Shape,
    embeddings: Embeddings,
    layers: Vec<Layer>,
    norm: Tensor,
    output: Weight,
    rotary: Rotary,
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
        // Missing: tied to the embeddings' table, which is then shared.
        let output = tensor("output.weight").ok().map(Weight::new).transpose()?;
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
        let rotary = Rotary::new(shape.context, shape.head_dim, shape.rope_base, shape.neox_rope);
        let embeddings = Embeddings::new(embeddings_q, shape.hidden)?;
        let output = match output {
            Some(w) => w,
            None => embeddings.as_output()?,
        };
        Ok(Transformer { shape, embeddings, layers, norm, output, rotary })
    }

    /// An empty key/value cache for this model.
    pub fn new_cache(&self) -> KvCache {
        KvCache::new(self.shape.layers, self.shape.kv_heads, self.shape.head_dim)
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
        let heads = Heads { heads: s.heads, kv_heads: s.kv_heads, head_dim: s.head_dim };
        let floats = |y: Tensor| -> Result<Vec<f32>> { y.flatten_all()?.to_vec1::<f32>() };
        let mut x = self.embeddings.lookup(ids)?;
        for (i, layer) in self.layers.iter().enumerate() {
            let h = candle_nn::ops::rms_norm(&x, &layer.attention_norm, s.rms_eps as f32)?;
            let mut q = floats(layer.q.forward(&h)?)?;
            let mut k = floats(layer.k.forward(&h)?)?;
            let v = floats(layer.v.forward(&h)?)?;
            self.rotary.rotate(&mut q, s.heads * s.head_dim, start);
            self.rotary.rotate(&mut k, s.kv_heads * s.head_dim, start);
            let attended = attention::attend(&q, &k, &v, cache, i, heads);
            let attended = Tensor::from_vec(attended, (t, s.heads * s.head_dim), &Device::Cpu)?;
            x = (x + layer.output.forward(&attended)?)?;
            let h = candle_nn::ops::rms_norm(&x, &layer.ffn_norm, s.rms_eps as f32)?;
            let gate = layer.gate.forward(&h)?;
            let width = gate.dim(1)?;
            let gated = attention::silu_times(&floats(gate)?, &floats(layer.up.forward(&h)?)?);
            x = (x + layer.down.forward(&Tensor::from_vec(gated, (t, width), &Device::Cpu)?)?)?;
        }
        cache.len = start + t;
        let last = x.narrow(0, t - 1, 1)?;
        let last = candle_nn::ops::rms_norm(&last, &self.norm, s.rms_eps as f32)?;
        self.output.forward(&last)?.squeeze(0)?.to_vec1::<f32>()
    }
}
