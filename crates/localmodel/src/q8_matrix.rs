//! Quantized weight matrices held as 8-bit whole numbers, with our own matmul: the kernel that
//! nearly all of a real model's time goes to. The Qwen2.5-Coder-0.5B file holds every weight
//! matrix in a format this takes: Q8_0 (and Q5_0, rewritten as Q8_0: `repack.rs`), and Q4_K and
//! Q6_K (its 24 `ffn_down`, 104 M parameters), whose values are expanded here at load to one
//! byte each, with a scale a block of 32 (Q4_K, plus an offset for its minimum) or of 16 (Q6_K).
//!
//! Why not candle's matmuls: in the page (wasm SIMD128) its Q8_0 kernel converts both blocks' f16
//! scales to f32 in software at every block of every dot product, and multiplies one weight row
//! at a time; its Q4_K and Q6_K kernels unpack the bits again for every token. Profiled in Node
//! (V8, as Chromium) on the real file, 96-token prompts: with candle's k-quant kernels they took
//! 51% of the prefill for 29% of its multiply-adds; expanded here, the prefill went from 24 to 37
//! tokens a second and the decode from 52 to 39 ms a token. Here each block's scale is kept as
//! f32, 4 weight rows are stored side by side ([`QuadBlock`]: one stream of memory a pass) and
//! multiplied together, and one pass over them serves each token of a group of 16. Measured
//! against candle's Q8_0 kernel on matrices of the 0.5B model's shapes (min of rounds, one
//! thread): in Node, 4864 x 896 by one token 0.30 against 0.54 ms, by 64 tokens 20 against 70
//! ms; natively (SSE4.1 against candle's AVX2) 0.25 against 0.56 ms, 24 against 43 ms, and the
//! 151936 x 896 output layer 7.4 against 15.4 ms, but 896 x 4864 (long rows, where candle's AVX2
//! loop is at its best) 0.23 against 0.09 ms. Two tokens a pass (each weight block widened once
//! for both) was slower in Node: 35 against 38 prompt tokens a second (V8 runs out of registers).
//!
//! The order of the sums: the products of a span of one scale (32 values, or 16) are added into
//! 4 lanes of whole numbers (lane j takes elements 2j, 2j+1 of each 8), each lane is turned to
//! f32, times the product of the two scales, and added to the lane's total; the 4 totals are
//! added left to right. For Q8_0 that is candle's SIMD128 order. Whole-number sums are exact, so
//! the native build (AVX2 or SSE4.1 when the processor has them, else plain Rust) computes the
//! very same floats as the page (AVX2 against SSE4.1 natively, CPU time on the real file, 96
//! prompt tokens: prefill 55.5 against 45.5 tokens a second, decode 38.5 against 33.0). The unit
//! tests hold AVX2, SSE4.1 and plain Rust to one reference bit for bit;
//! the SIMD128 kernel was held to candle's in Node (bit-identical on 4864 x 896, 1 and 64 tokens,
//! 2026-12-05: a measurement), and in Chromium the worker's logits are held to the native
//! engine's bit for bit on the tiny Q8_0 and Q4_0 files (`tests/app/browser_model.rs`). Q4_0's
//! values are `(q - 8) * d`: on candle's kernels its logits differed from native's in the last
//! bits (about 200 of 256 a step, by up to 2e-6), so it is expanded here too.

use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Result, Tensor};

/// Values a Q8_0 block holds.
const BLOCK: usize = 32;
/// Bytes of a Q8_0 block in a GGUF file: f16 scale, 32 signed bytes.
const BLOCK_BYTES: usize = 34;
/// Weight rows multiplied together; tokens run against them in groups of [`TOKEN_GROUP`].
const ROWS: usize = 4;
/// Prompt tokens that share one pass over a group of weight rows (their quantized blocks stay in
/// the first-level cache: 16 x 896 bytes for Qwen's 0.5B).
const TOKEN_GROUP: usize = 16;

/// Quantized rows: block `b` of row `r` is `values[r * blocks + b]` times `scales[r * blocks + b]`.
pub(crate) struct Q8Rows {
    values: Vec<[i8; BLOCK]>,
    scales: Vec<f32>,
    blocks: usize,
}

impl Q8Rows {
    fn rows(&self) -> usize {
        self.scales.len() / self.blocks.max(1)
    }

    /// Row `r`'s blocks and their scales.
    fn row(&self, r: usize) -> (&[[i8; BLOCK]], &[f32]) {
        let span = r * self.blocks..(r + 1) * self.blocks;
        (&self.values[span.clone()], &self.scales[span])
    }

    /// `bytes`: whole Q8_0 blocks, `blocks` a row (candle's quantized blocks, in the tests).
    #[cfg(test)]
    fn from_q8_0_bytes(bytes: &[u8], blocks: usize) -> Self {
        let count = bytes.len() / BLOCK_BYTES;
        let mut values = Vec::with_capacity(count);
        let mut scales = Vec::with_capacity(count);
        for block in bytes.chunks_exact(BLOCK_BYTES) {
            scales.push(half::f16::from_le_bytes([block[0], block[1]]).to_f32());
            values.push(std::array::from_fn(|i| block[2 + i] as i8));
        }
        Q8Rows { values, scales, blocks }
    }

    /// Each row of `x` (`columns` wide) quantized to Q8_0 as candle quantizes a matmul's input
    /// (the same values and scales), without its two library calls a value (`fmaxf` and `roundf`
    /// in wasm: 7% of the page's prefill) and without the copy from its block layout.
    fn quantize(x: &[f32], columns: usize) -> Self {
        let blocks = columns / BLOCK;
        let count = x.len() / BLOCK;
        let mut values = Vec::with_capacity(count);
        let mut scales = Vec::with_capacity(count);
        for block in x.chunks_exact(BLOCK) {
            let amax = block.iter().fold(0f32, |m, &v| if v.abs() > m { v.abs() } else { m });
            let d = amax / 127.0;
            let inverse = if d != 0.0 { 1.0 / d } else { 0.0 };
            values.push(std::array::from_fn(|i| round_half_away(block[i] * inverse) as i8));
            // The scale as candle keeps it: an f16.
            scales.push(half::f16::from_f32(d).to_f32());
        }
        Q8Rows { values, scales, blocks }
    }
}

/// `v.round()` (halves away from zero) for |v| < 2^23, in instructions every target has.
fn round_half_away(v: f32) -> i32 {
    let whole = v as i32;
    let rest = v - whole as f32;
    if rest >= 0.5 {
        whole + 1
    } else if rest <= -0.5 {
        whole - 1
    } else {
        whole
    }
}

/// Block `b` of 4 consecutive weight rows, side by side: a pass over a row group reads one
/// stream of memory (4 rows kept apart, with their scales in another array, were 8 streams, and
/// the model's decode, which reads every weight once a token, was slower than candle's). `H` is
/// how many scales a row's 32 values have: 1 (Q8_0, Q4_K) or 2 (Q6_K scales each 16 values).
#[derive(Clone, Copy)]
#[repr(C)]
struct QuadBlock<const H: usize> {
    scales: [[f32; H]; ROWS],
    values: [[i8; BLOCK]; ROWS],
}

impl<const H: usize> QuadBlock<H> {
    const EMPTY: Self = QuadBlock { scales: [[0.0; H]; ROWS], values: [[0; BLOCK]; ROWS] };
}

/// The blocks of a matrix, with one scale or two a block.
enum Quads {
    Whole(Vec<QuadBlock<1>>),
    Halves(Vec<QuadBlock<2>>),
}

/// One row's blocks as a file format holds them, in whole numbers: value `i` of block `b` is
/// `values[b][i] * scales[b][i / (BLOCK / H)] + offsets[b]`.
struct DecodedRow<const H: usize> {
    values: Vec<[i8; BLOCK]>,
    scales: Vec<[f32; H]>,
    offsets: Vec<f32>,
}

/// A (rows, columns) weight held as 8-bit whole numbers in [`QuadBlock`]s: group `g`'s block `b`
/// is `quads[g * blocks + b]`; the last group is padded with rows of zeros.
pub(crate) struct Q8Matrix {
    quads: Quads,
    /// Q4_1's and Q4_K's block minimums, (row group, block) like `quads`: what each value of a block has
    /// added, so a row's product gains `offset * (the sum of x over the block)`.
    offsets: Option<Vec<[f32; ROWS]>>,
    rows: usize,
    blocks: usize,
}

impl Q8Matrix {
    /// `t` when it is a 2-d Q8_0, Q4_0, Q4_1, Q4_K or Q6_K tensor whose rows are whole blocks; `None` for
    /// anything else, and for everything when `CANDLE_DEQUANTIZE_ALL` is set: candle then
    /// multiplies by the weights dequantized to f32, which the architecture's own test
    /// (`tests/reference_f32.rs`) asks for.
    pub fn from_qtensor(t: &QTensor) -> Result<Option<Self>> {
        if std::env::var_os("CANDLE_DEQUANTIZE_ALL").is_some() {
            return Ok(None);
        }
        let Ok((rows, columns)) = t.shape().dims2() else { return Ok(None) };
        let (block_values, block_bytes) = match t.dtype() {
            GgmlDType::Q8_0 => (BLOCK, BLOCK_BYTES),
            GgmlDType::Q4_0 => (BLOCK, Q4_0_BYTES),
            GgmlDType::Q4_1 => (BLOCK, Q4_1_BYTES),
            GgmlDType::Q4K => (SUPER, Q4_K_BYTES),
            GgmlDType::Q6K => (SUPER, Q6_K_BYTES),
            _ => return Ok(None),
        };
        if !columns.is_multiple_of(block_values) {
            return Ok(None);
        }
        let data = t.data()?;
        let row_bytes = columns / block_values * block_bytes;
        if data.len() != rows * row_bytes {
            candle_core::bail!("a {:?} tensor of {rows} x {columns} has {} bytes", t.dtype(), data.len());
        }
        let rows_of = || data.chunks_exact(row_bytes);
        Ok(Some(match t.dtype() {
            GgmlDType::Q8_0 => Self::build(rows, columns, rows_of().map(decode_q8_0), Quads::Whole),
            GgmlDType::Q4_0 => Self::build(rows, columns, rows_of().map(decode_q4_0), Quads::Whole),
            GgmlDType::Q4_1 => Self::build(rows, columns, rows_of().map(decode_q4_1), Quads::Whole),
            GgmlDType::Q4K => Self::build(rows, columns, rows_of().map(decode_q4_k), Quads::Whole),
            _ => Self::build(rows, columns, rows_of().map(decode_q6_k), Quads::Halves),
        }))
    }

    fn build<const H: usize>(
        rows: usize,
        columns: usize,
        decoded: impl Iterator<Item = DecodedRow<H>>,
        wrap: fn(Vec<QuadBlock<H>>) -> Quads,
    ) -> Self {
        let blocks = columns / BLOCK;
        let groups = rows.div_ceil(ROWS) * blocks;
        let mut quads = vec![QuadBlock::<H>::EMPTY; groups];
        let mut offsets = vec![[0f32; ROWS]; groups];
        let mut offset_seen = false;
        for (r, row) in decoded.enumerate() {
            let at = r / ROWS * blocks;
            for (b, ((values, scales), &offset)) in row.values.iter().zip(&row.scales).zip(&row.offsets).enumerate() {
                let quad = &mut quads[at + b];
                quad.values[r % ROWS] = *values;
                quad.scales[r % ROWS] = *scales;
                offsets[at + b][r % ROWS] = offset;
                offset_seen |= offset != 0.0;
            }
        }
        Q8Matrix { quads: wrap(quads), offsets: offset_seen.then_some(offsets), rows, blocks }
    }

    /// Row `r` as f32 (an embedding looked up): each value times its scale, plus its block's
    /// offset, as candle dequantizes these formats (the same floats).
    pub fn row_f32(&self, r: usize) -> Option<Vec<f32>> {
        if r >= self.rows {
            return None;
        }
        let span = r / ROWS * self.blocks..(r / ROWS + 1) * self.blocks;
        let lane = r % ROWS;
        let offsets: Vec<f32> = match &self.offsets {
            Some(o) => o[span.clone()].iter().map(|o| o[lane]).collect(),
            None => vec![0.0; self.blocks],
        };
        fn values<const H: usize>(quads: &[QuadBlock<H>], lane: usize, offsets: &[f32]) -> Vec<f32> {
            let mut out = Vec::with_capacity(quads.len() * BLOCK);
            for (quad, &offset) in quads.iter().zip(offsets) {
                for (i, &q) in quad.values[lane].iter().enumerate() {
                    let v = q as f32 * quad.scales[lane][i / (BLOCK / H)];
                    // Q4_1's and Q4_K's values are `q * scale + offset`: the same two steps.
                    out.push(if offset != 0.0 { v + offset } else { v });
                }
            }
            out
        }
        Some(match &self.quads {
            Quads::Whole(q) => values(&q[span], lane, &offsets),
            Quads::Halves(q) => values(&q[span], lane, &offsets),
        })
    }

    /// `x W^T`: `x` is (tokens, columns) f32, the result (tokens, rows).
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (tokens, columns) = x.dims2()?;
        if columns != self.blocks * BLOCK {
            candle_core::bail!("a quantized matmul of {} columns given {columns}", self.blocks * BLOCK);
        }
        let x = x.flatten_all()?.to_vec1::<f32>()?;
        let mut out = vec![0f32; tokens * self.rows];
        let x = Q8Rows::quantize(&x, columns);
        self.multiply(&x, &mut out);
        if let Some(offsets) = &self.offsets {
            self.add_offsets(offsets, &x, &mut out);
        }
        Tensor::from_vec(out, (tokens, self.rows), &Device::Cpu)
    }

    /// Adds each row's `offset . (x's block sums)`, summed block by block in order (in f32,
    /// each lane on its own: the same floats however the compiler vectorises it). The sums are
    /// of the quantized x, as the main products are: with x's exact sums, the error of a row
    /// would follow its values less the offset, which for Q4_K's all-positive nibbles is often
    /// twice the values themselves (the unit test's Q4_K 7 x 512: worst error 0.045 with exact
    /// sums, 0.026 with these, candle's 0.026).
    fn add_offsets(&self, offsets: &[[f32; ROWS]], x: &Q8Rows, out: &mut [f32]) {
        let rows = self.rows;
        for t in 0..x.rows() {
            let (values, scales) = x.row(t);
            let sums: Vec<f32> =
                values.iter().zip(scales).map(|(v, &d)| v.iter().map(|&q| q as i32).sum::<i32>() as f32 * d).collect();
            for (g, group) in offsets.chunks_exact(self.blocks).enumerate() {
                let mut total = [0f32; ROWS];
                for (offset, &sum) in group.iter().zip(&sums) {
                    for (total, &o) in total.iter_mut().zip(offset) {
                        *total += o * sum;
                    }
                }
                let kept = ROWS.min(rows - g * ROWS);
                for (out, total) in out[t * rows + g * ROWS..][..kept].iter_mut().zip(total) {
                    *out += total;
                }
            }
        }
    }

    /// `out[t * rows + r]` = row `r` . row `t` of `x` (the offsets left out).
    fn multiply(&self, x: &Q8Rows, out: &mut [f32]) {
        self.multiply_with(Kernel::detect(), x, out)
    }

    fn multiply_with(&self, kernel: Kernel, x: &Q8Rows, out: &mut [f32]) {
        match &self.quads {
            Quads::Whole(q) => self.multiply_quads(q, kernel, x, out),
            Quads::Halves(q) => self.multiply_quads(q, kernel, x, out),
        }
    }

    fn multiply_quads<const H: usize>(&self, quads: &[QuadBlock<H>], kernel: Kernel, x: &Q8Rows, out: &mut [f32]) {
        let (rows, tokens) = (self.rows, x.rows());
        for first_token in (0..tokens).step_by(TOKEN_GROUP) {
            for (g, group) in quads.chunks_exact(self.blocks).enumerate() {
                let kept = ROWS.min(rows - g * ROWS);
                for t in first_token..tokens.min(first_token + TOKEN_GROUP) {
                    let sums = kernel.four_rows(group, x.row(t));
                    let at = t * rows + g * ROWS;
                    out[at..at + kept].copy_from_slice(&sums[..kept]);
                }
            }
        }
    }
}

/// Bytes of a Q4_0 block: f16 scale, 16 bytes of nibbles.
const Q4_0_BYTES: usize = 18;
/// Bytes of a Q4_1 block: f16 scale, f16 minimum, 16 bytes of nibbles.
const Q4_1_BYTES: usize = 20;
/// Values a k-quant super-block holds (Q4_K, Q6_K).
const SUPER: usize = 256;
/// Bytes of a Q4_K super-block: f16 scale, f16 minimum scale, 12 bytes of 6-bit scales and
/// minimums for its 8 blocks of 32, 128 bytes of nibbles.
const Q4_K_BYTES: usize = 144;
/// Bytes of a Q6_K super-block: 128 bytes of low nibbles, 64 of high bit pairs, 16 signed 8-bit
/// scales (one per 16 values), f16 scale.
const Q6_K_BYTES: usize = 210;

fn f16_at(bytes: &[u8], at: usize) -> f32 {
    half::f16::from_le_bytes([bytes[at], bytes[at + 1]]).to_f32()
}

/// A Q8_0 row: each block's f16 scale, its 32 signed bytes.
fn decode_q8_0(row: &[u8]) -> DecodedRow<1> {
    let blocks = row.len() / BLOCK_BYTES;
    let mut out = DecodedRow {
        values: Vec::with_capacity(blocks),
        scales: Vec::with_capacity(blocks),
        offsets: vec![0.0; blocks],
    };
    for block in row.chunks_exact(BLOCK_BYTES) {
        out.scales.push([f16_at(block, 0)]);
        out.values.push(std::array::from_fn(|i| block[2 + i] as i8));
    }
    out
}

/// The 32 nibbles of a Q4_0 or Q4_1 block, in value order: value `j` is the low nibble of byte
/// `j` for j < 16, the high nibble of byte `j - 16` after.
fn block_nibbles(bytes: &[u8]) -> [u8; BLOCK] {
    std::array::from_fn(|j| if j < 16 { bytes[j] & 0xF } else { bytes[j - 16] >> 4 })
}

/// A Q4_0 row: value `j` of a block is `(q - 8) * d`, `q` the low nibble of byte `j` for j < 16,
/// the high nibble of byte `j - 16` after.
fn decode_q4_0(row: &[u8]) -> DecodedRow<1> {
    let blocks = row.len() / Q4_0_BYTES;
    let mut out = DecodedRow {
        values: Vec::with_capacity(blocks),
        scales: Vec::with_capacity(blocks),
        offsets: vec![0.0; blocks],
    };
    for block in row.chunks_exact(Q4_0_BYTES) {
        out.values.push(block_nibbles(&block[2..]).map(|q| q as i8 - 8));
        out.scales.push([f16_at(block, 0)]);
    }
    out
}

/// A Q4_1 row (SmolLM2's files): value `j` of a block is `q * d + m`, `q` the low nibble of byte
/// `j` for j < 16, the high nibble of byte `j - 16` after.
fn decode_q4_1(row: &[u8]) -> DecodedRow<1> {
    let blocks = row.len() / Q4_1_BYTES;
    let mut out = DecodedRow {
        values: Vec::with_capacity(blocks),
        scales: Vec::with_capacity(blocks),
        offsets: Vec::with_capacity(blocks),
    };
    for block in row.chunks_exact(Q4_1_BYTES) {
        out.values.push(block_nibbles(&block[4..]).map(|q| q as i8));
        out.scales.push([f16_at(block, 0)]);
        out.offsets.push(f16_at(block, 2));
    }
    out
}

/// A Q4_K row. In each super-block, block `j` (values 32j..32j+32) is `d * scale_j * q -
/// dmin * min_j` with `q` a nibble: blocks 2k and 2k + 1 are the low and the high nibbles of
/// bytes 32k..32k+32. The 6-bit scale and minimum of blocks 0-3 are the low 6 bits of bytes j
/// and j + 4 of the 12; those of blocks 4-7 take their low 4 bits from byte j + 4's two nibbles
/// and their top 2 bits from the top bits of bytes j - 4 and j (the layout ggml documents).
fn decode_q4_k(row: &[u8]) -> DecodedRow<1> {
    let blocks = row.len() / Q4_K_BYTES * (SUPER / BLOCK);
    let mut out = DecodedRow {
        values: Vec::with_capacity(blocks),
        scales: Vec::with_capacity(blocks),
        offsets: Vec::with_capacity(blocks),
    };
    for sb in row.chunks_exact(Q4_K_BYTES) {
        let (d, dmin) = (f16_at(sb, 0), f16_at(sb, 2));
        let (packed, nibbles) = (&sb[4..16], &sb[16..]);
        for j in 0..SUPER / BLOCK {
            let (scale, min) = match j < 4 {
                true => (packed[j] & 63, packed[j + 4] & 63),
                false => (
                    (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4),
                    (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4),
                ),
            };
            let bytes = &nibbles[32 * (j / 2)..32 * (j / 2) + 32];
            let high = j % 2 == 1;
            out.values.push(std::array::from_fn(|i| if high { bytes[i] >> 4 } else { bytes[i] & 0xF } as i8));
            out.scales.push([d * scale as f32]);
            // Stored negated: candle's `d * scale * q - dmin * min` is `d * scale * q + offset`.
            out.offsets.push(-(dmin * min as f32));
        }
    }
    out
}

/// A Q6_K row. In each super-block, value `v` is `d * scales[v / 16] * (q - 32)` with `q` six
/// bits: in each half of 128 values, value `32k + l` takes its low 4 bits from byte `l` (k = 0, 2)
/// or `l + 32` (k = 1, 3) of the half's 64 nibble bytes, low nibble for k < 2, and its top 2 bits
/// from bits 2k, 2k + 1 of the half's byte `l` of high bits (the layout ggml documents).
fn decode_q6_k(row: &[u8]) -> DecodedRow<2> {
    let blocks = row.len() / Q6_K_BYTES * (SUPER / BLOCK);
    let mut out = DecodedRow {
        values: Vec::with_capacity(blocks),
        scales: Vec::with_capacity(blocks),
        offsets: vec![0.0; blocks],
    };
    for sb in row.chunks_exact(Q6_K_BYTES) {
        let (low, high, scales) = (&sb[..128], &sb[128..192], &sb[192..208]);
        let d = f16_at(sb, 208);
        for half in 0..2 {
            let (low, high) = (&low[64 * half..64 * half + 64], &high[32 * half..32 * half + 32]);
            for k in 0..4 {
                out.values.push(std::array::from_fn(|l| {
                    let nibble = match k {
                        0 => low[l] & 0xF,
                        1 => low[l + 32] & 0xF,
                        2 => low[l] >> 4,
                        _ => low[l + 32] >> 4,
                    };
                    ((nibble | (((high[l] >> (2 * k)) & 3) << 4)) as i8) - 32
                }));
                let first = 8 * half + 2 * k;
                out.scales.push([d * scales[first] as i8 as f32, d * scales[first + 1] as i8 as f32]);
            }
        }
    }
    out
}

type Row<'a> = (&'a [[i8; BLOCK]], &'a [f32]);

/// Which instructions compute the dot products; every one gives the same floats.
#[derive(Clone, Copy)]
enum Kernel {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    Simd128,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Sse41,
    #[allow(dead_code)] // unused where SIMD128 is compiled in
    Plain,
}

impl Kernel {
    fn detect() -> Kernel {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return Kernel::Simd128;
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("sse4.1") {
            return Kernel::Sse41;
        }
        #[allow(unreachable_code)]
        Kernel::Plain
    }

    /// The dot products of a group of 4 weight rows with one token's row.
    fn four_rows<const H: usize>(self, w: &[QuadBlock<H>], x: Row<'_>) -> [f32; ROWS] {
        match self {
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => simd128::four_rows(w, x),
            // SAFETY: detected above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::four_rows(w, x) },
            // SAFETY: detected above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse41 => unsafe { sse41::four_rows(w, x) },
            Kernel::Plain => plain::four_rows(w, x),
        }
    }
}

/// The lanes' order in plain Rust: the reference the vector kernels are held to. Within a
/// block's span of one scale (32 values, or 16), lane j takes elements 2j and 2j + 1 of each 8
/// as whole numbers (exact, so their order does not matter), is turned to f32, times the scales'
/// product, and added to lane j's total; spans in order; the 4 totals added left to right.
mod plain {
    use super::{BLOCK, QuadBlock, ROWS, Row};

    /// One span's products summed into 4 lanes, as a 16-bit dot product instruction pairs them.
    pub fn lanes(w: &[i8], x: &[i8]) -> [i32; 4] {
        std::array::from_fn(|j| {
            (0..w.len() / 8)
                .map(|g| {
                    let (a, b) = (8 * g + 2 * j, 8 * g + 2 * j + 1);
                    w[a] as i32 * x[a] as i32 + w[b] as i32 * x[b] as i32
                })
                .sum()
        })
    }

    pub fn four_rows<const H: usize>(w: &[QuadBlock<H>], (xv, xd): Row<'_>) -> [f32; ROWS] {
        let span = BLOCK / H;
        std::array::from_fn(|r| {
            let mut total = [0f32; 4];
            for ((quad, x), &x_scale) in w.iter().zip(xv).zip(xd) {
                for h in 0..H {
                    let d = quad.scales[r][h] * x_scale;
                    let sums = lanes(&quad.values[r][h * span..(h + 1) * span], &x[h * span..(h + 1) * span]);
                    for (lane, sum) in total.iter_mut().zip(sums) {
                        *lane += sum as f32 * d;
                    }
                }
            }
            total[0] + total[1] + total[2] + total[3]
        })
    }
}

#[cfg(target_arch = "x86_64")]
mod sse41 {
    use std::arch::x86_64::*;

    use super::{BLOCK, QuadBlock, ROWS, Row};

    // No closures here: a closure does not take its function's target features, and the
    // intrinsics would then be calls.
    #[target_feature(enable = "sse4.1")]
    fn widen(q: &[i8; BLOCK]) -> [__m128i; 4] {
        let p = q.as_ptr();
        // SAFETY: 4 loads of 8 bytes inside the 32-byte block.
        unsafe {
            [
                _mm_cvtepi8_epi16(_mm_loadl_epi64(p as *const __m128i)),
                _mm_cvtepi8_epi16(_mm_loadl_epi64(p.add(8) as *const __m128i)),
                _mm_cvtepi8_epi16(_mm_loadl_epi64(p.add(16) as *const __m128i)),
                _mm_cvtepi8_epi16(_mm_loadl_epi64(p.add(24) as *const __m128i)),
            ]
        }
    }

    #[target_feature(enable = "sse4.1")]
    pub fn four_rows<const H: usize>(w: &[QuadBlock<H>], (xv, xd): Row<'_>) -> [f32; ROWS] {
        // 8-value pieces a scale covers.
        let pieces = 4 / H;
        let mut total = [_mm_setzero_ps(); ROWS];
        for ((quad, xq), &x_scale) in w.iter().zip(xv).zip(xd) {
            let x = widen(xq);
            for ((total, values), scales) in total.iter_mut().zip(&quad.values).zip(&quad.scales) {
                let v = widen(values);
                for (h, &w_scale) in scales.iter().enumerate() {
                    let first = h * pieces;
                    let mut sum = _mm_madd_epi16(v[first], x[first]);
                    for i in first + 1..first + pieces {
                        sum = _mm_add_epi32(sum, _mm_madd_epi16(v[i], x[i]));
                    }
                    let scaled = _mm_mul_ps(_mm_cvtepi32_ps(sum), _mm_set1_ps(w_scale * x_scale));
                    *total = _mm_add_ps(*total, scaled);
                }
            }
        }
        let mut out = [0f32; ROWS];
        for (out, total) in out.iter_mut().zip(total) {
            let mut lanes = [0f32; 4];
            // SAFETY: 4 floats into a 4-float array.
            unsafe { _mm_storeu_ps(lanes.as_mut_ptr(), total) };
            *out = lanes[0] + lanes[1] + lanes[2] + lanes[3];
        }
        out
    }
}

/// The SSE4.1 kernel's very sums with 16 values widened and multiplied at a time: the 8 lanes
/// of a 256-bit product hold the 4 pairs of pieces 0 and 2 (low half) and of 1 and 3 (high half)
/// of a block, or of one 16-value span's two pieces, and the halves added give the SSE4.1 lanes
/// (whole numbers: exact in any order); the floats are then handled exactly as there.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{BLOCK, QuadBlock, ROWS, Row};

    /// Values 0-15 and 16-31 of a block, as 16-bit numbers.
    #[target_feature(enable = "avx2")]
    fn widen(q: &[i8; BLOCK]) -> [__m256i; 2] {
        let p = q.as_ptr();
        // SAFETY: 2 loads of 16 bytes inside the 32-byte block.
        unsafe {
            [
                _mm256_cvtepi8_epi16(_mm_loadu_si128(p as *const __m128i)),
                _mm256_cvtepi8_epi16(_mm_loadu_si128(p.add(16) as *const __m128i)),
            ]
        }
    }

    #[target_feature(enable = "avx2")]
    fn halves_added(v: __m256i) -> __m128i {
        _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
    }

    #[target_feature(enable = "avx2")]
    pub fn four_rows<const H: usize>(w: &[QuadBlock<H>], (xv, xd): Row<'_>) -> [f32; ROWS] {
        let mut total = [_mm_setzero_ps(); ROWS];
        for ((quad, xq), &x_scale) in w.iter().zip(xv).zip(xd) {
            let x = widen(xq);
            for ((total, values), scales) in total.iter_mut().zip(&quad.values).zip(&quad.scales) {
                let v = widen(values);
                let (first, second) = (_mm256_madd_epi16(v[0], x[0]), _mm256_madd_epi16(v[1], x[1]));
                let sums = match H {
                    1 => [halves_added(_mm256_add_epi32(first, second)), _mm_setzero_si128()],
                    _ => [halves_added(first), halves_added(second)],
                };
                for (&sum, &w_scale) in sums.iter().zip(scales) {
                    let scaled = _mm_mul_ps(_mm_cvtepi32_ps(sum), _mm_set1_ps(w_scale * x_scale));
                    *total = _mm_add_ps(*total, scaled);
                }
            }
        }
        let mut out = [0f32; ROWS];
        for (out, total) in out.iter_mut().zip(total) {
            let mut lanes = [0f32; 4];
            // SAFETY: 4 floats into a 4-float array.
            unsafe { _mm_storeu_ps(lanes.as_mut_ptr(), total) };
            *out = lanes[0] + lanes[1] + lanes[2] + lanes[3];
        }
        out
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use std::arch::wasm32::*;

    use super::{BLOCK, QuadBlock, ROWS, Row};

    #[inline(always)]
    fn widen(q: &[i8; BLOCK]) -> [v128; 4] {
        let p = q.as_ptr();
        // SAFETY: 4 loads of 8 bytes inside the 32-byte block.
        unsafe { std::array::from_fn(|i| i16x8_load_extend_i8x8(p.add(8 * i))) }
    }

    pub fn four_rows<const H: usize>(w: &[QuadBlock<H>], (xv, xd): Row<'_>) -> [f32; ROWS] {
        // 8-value pieces a scale covers.
        let pieces = 4 / H;
        let mut total = [f32x4_splat(0.0); ROWS];
        for ((quad, xq), &x_scale) in w.iter().zip(xv).zip(xd) {
            let x = widen(xq);
            for ((total, values), scales) in total.iter_mut().zip(&quad.values).zip(&quad.scales) {
                let v = widen(values);
                for (h, &w_scale) in scales.iter().enumerate() {
                    let first = h * pieces;
                    let mut sum = i32x4_dot_i16x8(v[first], x[first]);
                    for i in first + 1..first + pieces {
                        sum = i32x4_add(sum, i32x4_dot_i16x8(v[i], x[i]));
                    }
                    let scaled = f32x4_mul(f32x4_convert_i32x4(sum), f32x4_splat(w_scale * x_scale));
                    *total = f32x4_add(*total, scaled);
                }
            }
        }
        std::array::from_fn(|r| {
            let t = total[r];
            f32x4_extract_lane::<0>(t)
                + f32x4_extract_lane::<1>(t)
                + f32x4_extract_lane::<2>(t)
                + f32x4_extract_lane::<3>(t)
        })
    }
}

#[cfg(test)]
mod tests {
    use candle_core::quantized::k_quants::{BlockQ8_0, GgmlType};

    use super::*;

    /// (rows, columns, tokens): a row group and a remainder, several token groups and a partial one.
    const SHAPES: [(usize, usize, usize); 4] = [(4, 32, 1), (7, 64, 3), (9, 96, 17), (13, 128, 40)];
    /// The same for the k-quants, whose rows are whole super-blocks of 256.
    const K_SHAPES: [(usize, usize, usize); 3] = [(4, 256, 1), (7, 512, 3), (9, 256, 17)];

    /// Every format the kernel takes, with its shapes.
    fn cases() -> Vec<(GgmlDType, usize, usize, usize)> {
        let mut cases: Vec<_> = SHAPES.iter().map(|&(r, c, t)| (GgmlDType::Q8_0, r, c, t)).collect();
        for dtype in [GgmlDType::Q4_0, GgmlDType::Q4_1] {
            cases.extend(SHAPES.iter().map(|&(r, c, t)| (dtype, r, c, t)));
        }
        for dtype in [GgmlDType::Q4K, GgmlDType::Q6K] {
            cases.extend(K_SHAPES.iter().map(|&(r, c, t)| (dtype, r, c, t)));
        }
        cases
    }

    /// Weights with negative and positive values and blocks of different ranges, so that the
    /// k-quants' scales, minimums and high bits all vary.
    fn weight(dtype: GgmlDType, rows: usize, columns: usize) -> QTensor {
        let w: Vec<f32> = (0..rows * columns)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.021 * (1.0 + (i / 32 % 5) as f32) + (i / 64 % 3) as f32 * 0.3)
            .collect();
        QTensor::quantize(&Tensor::from_vec(w, (rows, columns), &Device::Cpu).unwrap(), dtype).unwrap()
    }

    fn input(tokens: usize, columns: usize) -> Vec<f32> {
        (0..tokens * columns).map(|i| ((i * 13 % 29) as f32 - 14.0) * 0.11).collect()
    }

    /// A row's blocks: values and their scales.
    type Blocks = Vec<([i8; BLOCK], Vec<f32>)>;

    /// Every row's blocks, and how many scales a block has.
    fn decoded_rows(q: &QTensor) -> (Vec<Blocks>, usize) {
        let (rows, _) = q.shape().dims2().unwrap();
        let data = q.data().unwrap();
        let row_bytes = data.len() / rows;
        let rows = data.chunks_exact(row_bytes);
        fn flat<const H: usize>(d: DecodedRow<H>) -> Blocks {
            d.values.into_iter().zip(d.scales).map(|(v, s)| (v, s.to_vec())).collect()
        }
        match q.dtype() {
            GgmlDType::Q8_0 => (rows.map(|r| flat(decode_q8_0(r))).collect(), 1),
            GgmlDType::Q4_0 => (rows.map(|r| flat(decode_q4_0(r))).collect(), 1),
            GgmlDType::Q4_1 => (rows.map(|r| flat(decode_q4_1(r))).collect(), 1),
            GgmlDType::Q4K => (rows.map(|r| flat(decode_q4_k(r))).collect(), 1),
            _ => (rows.map(|r| flat(decode_q6_k(r))).collect(), 2),
        }
    }

    /// Row by row from the file's own blocks, in the lanes' order, with nothing of the kernels'
    /// layout or tiling: what every kernel must give, bit for bit (the offsets left out).
    fn reference(q: &QTensor, x: &Q8Rows) -> Vec<f32> {
        let (w, scales_a_block) = decoded_rows(q);
        let span = BLOCK / scales_a_block;
        let dot = |w: &Blocks, (xv, xd): Row<'_>| {
            let mut total = [0f32; 4];
            for ((values, scales), (xq, &x_scale)) in w.iter().zip(xv.iter().zip(xd)) {
                for (h, &w_scale) in scales.iter().enumerate() {
                    let part = h * span..(h + 1) * span;
                    let sums = plain::lanes(&values[part.clone()], &xq[part]);
                    for (lane, sum) in total.iter_mut().zip(sums) {
                        *lane += sum as f32 * (w_scale * x_scale);
                    }
                }
            }
            total[0] + total[1] + total[2] + total[3]
        };
        let mut out = Vec::new();
        for t in 0..x.rows() {
            out.extend(w.iter().map(|row| dot(row, x.row(t))));
        }
        out
    }

    #[test]
    fn every_kernel_gives_the_reference_sums_bit_for_bit() {
        for (dtype, rows, columns, tokens) in cases() {
            let q = weight(dtype, rows, columns);
            let m = Q8Matrix::from_qtensor(&q).unwrap().unwrap();
            let x = Q8Rows::quantize(&input(tokens, columns), columns);
            let want = reference(&q, &x);
            let mut kernels = vec![("plain", Kernel::Plain)];
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("sse4.1") {
                kernels.push(("sse4.1", Kernel::Sse41));
            }
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                kernels.push(("avx2", Kernel::Avx2));
            }
            for (name, kernel) in kernels {
                let mut got = vec![f32::NAN; tokens * rows];
                m.multiply_with(kernel, &x, &mut got);
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{name}, {dtype:?} {rows} x {columns}, {tokens} tokens");
            }
        }
    }

    #[test]
    fn the_product_is_candles_to_rounding_and_the_rows_dequantize_as_candles() {
        for (dtype, rows, columns, tokens) in cases() {
            let q = weight(dtype, rows, columns);
            let m = Q8Matrix::from_qtensor(&q).unwrap().unwrap();
            let x = Tensor::from_vec(input(tokens, columns), (tokens, columns), &Device::Cpu).unwrap();
            let ours: Vec<f32> = m.forward(&x).unwrap().flatten_all().unwrap().to_vec1().unwrap();
            let qmatmul = candle_core::quantized::QMatMul::from_qtensor(weight(dtype, rows, columns)).unwrap();
            let candles: Vec<f32> =
                candle_core::Module::forward(&qmatmul, &x).unwrap().flatten_all().unwrap().to_vec1().unwrap();
            let dequantized: Vec<f32> = q.dequantize(&Device::Cpu).unwrap().flatten_all().unwrap().to_vec1().unwrap();
            let exact: Vec<f32> = x
                .matmul(&Tensor::from_vec(dequantized.clone(), (rows, columns), &Device::Cpu).unwrap().t().unwrap())
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1()
                .unwrap();
            let rows_f32: Vec<f32> = (0..rows).flat_map(|r| m.row_f32(r).unwrap()).collect();
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&rows_f32), bits(&dequantized), "{dtype:?} {rows} x {columns}");
            // Candle quantizes x per 256 values for the k-quants, we per 32: both are near the
            // product with exact x, ours no further.
            let worst = |got: &[f32]| {
                got.iter().zip(&exact).map(|(a, b)| (a - b).abs() / b.abs().max(1.0)).fold(0f32, f32::max)
            };
            assert!(
                worst(&ours) <= worst(&candles).max(1e-4) * 1.5,
                "{dtype:?} {rows} x {columns}: ours off by {}, candle's by {}",
                worst(&ours),
                worst(&candles)
            );
            if dtype == GgmlDType::Q8_0 {
                // The same quantized x as candle's: the same sums up to their order.
                for (a, b) in ours.iter().zip(&candles) {
                    assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{rows} x {columns}: ours {a}, candle's {b}");
                }
            }
            assert!(m.row_f32(rows).is_none());
        }
    }

    #[test]
    fn minimums_become_offsets_and_q6_k_has_two_scales_a_block() {
        let q4 = Q8Matrix::from_qtensor(&weight(GgmlDType::Q4K, 4, 256)).unwrap().unwrap();
        assert!(matches!(q4.quads, Quads::Whole(_)) && q4.offsets.is_some());
        let q4_1 = Q8Matrix::from_qtensor(&weight(GgmlDType::Q4_1, 4, 256)).unwrap().unwrap();
        assert!(matches!(q4_1.quads, Quads::Whole(_)) && q4_1.offsets.is_some());
        let q6 = Q8Matrix::from_qtensor(&weight(GgmlDType::Q6K, 4, 256)).unwrap().unwrap();
        assert!(matches!(q6.quads, Quads::Halves(_)) && q6.offsets.is_none());
        let q8 = Q8Matrix::from_qtensor(&weight(GgmlDType::Q8_0, 4, 256)).unwrap().unwrap();
        assert!(matches!(q8.quads, Quads::Whole(_)) && q8.offsets.is_none());
        let q4_0 = Q8Matrix::from_qtensor(&weight(GgmlDType::Q4_0, 4, 256)).unwrap().unwrap();
        assert!(matches!(q4_0.quads, Quads::Whole(_)) && q4_0.offsets.is_none());
    }

    #[test]
    fn x_is_quantized_as_candle_quantizes_it() {
        // Halves to round (2.5, -2.5 with a scale of 1), a zero block, tiny and large values.
        let mut x: Vec<f32> = (0..32).map(|i| if i == 0 { 127.0 } else { (i % 7) as f32 - 3.5 }).collect();
        x.extend([0f32; 32]);
        x.extend((0..32).map(|i| (i as f32 - 16.0) * 1e-7));
        x.extend(input(5, 64).iter().map(|v| v * 37.0));
        let ours = Q8Rows::quantize(&x, 32);
        let mut candles = vec![BlockQ8_0::zeros(); x.len() / BLOCK];
        BlockQ8_0::from_float(&x, &mut candles);
        // SAFETY: as in the kernel's own quantize before: BlockQ8_0 is 34 bytes, repr(C).
        let bytes = unsafe { std::slice::from_raw_parts(candles.as_ptr() as *const u8, candles.len() * BLOCK_BYTES) };
        let candles = Q8Rows::from_q8_0_bytes(bytes, 1);
        assert_eq!(ours.values, candles.values);
        assert_eq!(
            ours.scales.iter().map(|s| s.to_bits()).collect::<Vec<_>>(),
            candles.scales.iter().map(|s| s.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(&ours.values[0][..8], &[127, -3, -2, -1, 1, 2, 3, -4], "halves round away from zero");
    }

    #[test]
    fn the_lanes_pair_elements_as_the_dot_instructions_do() {
        let w: [i8; BLOCK] = std::array::from_fn(|i| i as i8);
        let x = [1i8; BLOCK];
        // Lane 0: elements 0, 1, 8, 9, 16, 17, 24, 25.
        assert_eq!(plain::lanes(&w, &x), [100, 116, 132, 148]);
        // A 16-value span (Q6_K's): elements 0, 1, 8, 9 in lane 0.
        assert_eq!(plain::lanes(&w[..16], &x[..16]), [18, 26, 34, 42]);
    }

    #[test]
    fn other_formats_and_shapes_are_left_to_candle() {
        let w = Tensor::from_vec(vec![0.5f32; 64], (2, 32), &Device::Cpu).unwrap();
        let q5_1 = QTensor::quantize(&w, GgmlDType::Q5_1).unwrap();
        assert!(Q8Matrix::from_qtensor(&q5_1).unwrap().is_none());
        let m = Q8Matrix::from_qtensor(&weight(GgmlDType::Q8_0, 2, 32)).unwrap().unwrap();
        let wrong = Tensor::zeros((1, 64), candle_core::DType::F32, &Device::Cpu).unwrap();
        assert!(m.forward(&wrong).is_err(), "a width that is not the weight's is refused");
    }
}
