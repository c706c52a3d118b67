//! A Q8_0 weight matrix with our own matmul: the kernel that most of a real model's time goes to
//! (the Qwen2.5-Coder-0.5B file holds 525 M of its 630 M parameters in Q8_0 once its Q5_0 blocks
//! are rewritten: `repack.rs`).
//!
//! Why not candle's Q8_0 matmul: in the page (wasm SIMD128) it converts both blocks' f16 scales
//! to f32 in software at every block of every dot product, and multiplies one weight row at a
//! time. Here each block's scale is kept as f32, 4 weight rows are stored side by side
//! ([`QuadBlock`]: one stream of memory a pass) and multiplied together, and one pass over them
//! serves each token of a group of 16. Measured against candle's kernel on matrices of the 0.5B
//! model's shapes (min of rounds, one thread): in Node (V8, as Chromium), 4864 x 896 by one token
//! 0.30 against 0.54 ms, by 64 tokens 20 against 70 ms; natively (SSE4.1 against candle's AVX2)
//! 0.25 against 0.56 ms, 24 against 43 ms, and the 151936 x 896 output layer 7.4 against 15.4 ms,
//! but 896 x 4864 (long rows, where candle's AVX2 loop is at its best) 0.23 against 0.09 ms.
//!
//! The sums are candle's SIMD128 sums, in the same order: each block's 32 products are added
//! into 4 lanes of whole numbers (lane j takes elements 2j, 2j+1 of each 8), each lane is turned
//! to f32, times the product of the two scales, and added to the lane's total; the 4 totals are
//! added left to right. Whole-number sums are exact, so the page's answers do not change, and the
//! native build (SSE4.1 when the processor has it, else plain Rust) computes the very same
//! floats as the page. The unit tests hold SSE4.1 and plain Rust to one reference bit for bit;
//! the SIMD128 kernel was held to candle's in Node (bit-identical on 4864 x 896, 1 and 64 tokens,
//! 2026-12-05: a measurement, not a CI test), and in Chromium the worker's logits are held to the
//! NumPy reference (`tests/app/browser_model.rs`).

use candle_core::quantized::k_quants::{BlockQ8_0, GgmlType};
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

    /// `bytes`: whole Q8_0 blocks, `blocks` a row.
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

    /// Each row of `x` (`columns` wide) quantized to Q8_0 as candle quantizes a matmul's input.
    fn quantize(x: &[f32], columns: usize) -> Self {
        let blocks = columns / BLOCK;
        let mut quantized = vec![BlockQ8_0::zeros(); x.len() / BLOCK];
        for (row, out) in x.chunks_exact(columns).zip(quantized.chunks_exact_mut(blocks)) {
            BlockQ8_0::from_float(row, out);
        }
        // SAFETY: BlockQ8_0 is repr(C) and 34 bytes (candle asserts it): f16 scale, 32 i8.
        let bytes =
            unsafe { std::slice::from_raw_parts(quantized.as_ptr() as *const u8, quantized.len() * BLOCK_BYTES) };
        Self::from_q8_0_bytes(bytes, blocks)
    }
}

/// Block `b` of 4 consecutive weight rows, side by side: a pass over a row group reads one
/// stream of memory (4 rows kept apart, with their scales in another array, were 8 streams, and
/// the model's decode, which reads every weight once a token, was slower than candle's).
#[derive(Clone, Copy)]
#[repr(C)]
struct QuadBlock {
    scales: [f32; ROWS],
    values: [[i8; BLOCK]; ROWS],
}

/// A (rows, columns) Q8_0 weight, as [`QuadBlock`]s: group `g`'s block `b` is
/// `quads[g * blocks + b]`; the last group is padded with rows of zeros.
pub(crate) struct Q8Matrix {
    quads: Vec<QuadBlock>,
    rows: usize,
    blocks: usize,
}

impl Q8Matrix {
    /// `t` when it is a 2-d Q8_0 tensor whose rows are whole blocks; `None` for anything else, and
    /// for everything when `CANDLE_DEQUANTIZE_ALL` is set: candle then multiplies by the weights
    /// dequantized to f32, which the architecture's own test (`tests/reference_f32.rs`) asks for.
    pub fn from_qtensor(t: &QTensor) -> Result<Option<Self>> {
        if t.dtype() != GgmlDType::Q8_0 || std::env::var_os("CANDLE_DEQUANTIZE_ALL").is_some() {
            return Ok(None);
        }
        let Ok((rows, columns)) = t.shape().dims2() else { return Ok(None) };
        if !columns.is_multiple_of(BLOCK) {
            return Ok(None);
        }
        let data = t.data()?;
        let blocks = columns / BLOCK;
        if data.len() != rows * blocks * BLOCK_BYTES {
            candle_core::bail!("a Q8_0 tensor of {rows} x {columns} has {} bytes", data.len());
        }
        let empty = QuadBlock { scales: [0.0; ROWS], values: [[0; BLOCK]; ROWS] };
        let mut quads = vec![empty; rows.div_ceil(ROWS) * blocks];
        for (r, row) in data.chunks_exact(blocks * BLOCK_BYTES).enumerate() {
            for (b, block) in row.chunks_exact(BLOCK_BYTES).enumerate() {
                let quad = &mut quads[r / ROWS * blocks + b];
                quad.scales[r % ROWS] = half::f16::from_le_bytes([block[0], block[1]]).to_f32();
                quad.values[r % ROWS] = std::array::from_fn(|i| block[2 + i] as i8);
            }
        }
        Ok(Some(Q8Matrix { quads, rows, blocks }))
    }

    /// Row `r` as f32 (an embedding looked up): each value times its block's scale, as candle
    /// dequantizes Q8_0.
    pub fn row_f32(&self, r: usize) -> Option<Vec<f32>> {
        if r >= self.rows {
            return None;
        }
        let group = &self.quads[r / ROWS * self.blocks..(r / ROWS + 1) * self.blocks];
        let lane = r % ROWS;
        Some(
            group
                .iter()
                .flat_map(|quad| quad.values[lane].iter().map(move |&q| q as f32 * quad.scales[lane]))
                .collect(),
        )
    }

    /// `x W^T`: `x` is (tokens, columns) f32, the result (tokens, rows).
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (tokens, columns) = x.dims2()?;
        if columns != self.blocks * BLOCK {
            candle_core::bail!("a Q8_0 matmul of {} columns given {columns}", self.blocks * BLOCK);
        }
        let x = x.flatten_all()?.to_vec1::<f32>()?;
        let mut out = vec![0f32; tokens * self.rows];
        self.multiply(&Q8Rows::quantize(&x, columns), &mut out);
        Tensor::from_vec(out, (tokens, self.rows), &Device::Cpu)
    }

    /// Row group `g`'s blocks.
    fn group(&self, g: usize) -> &[QuadBlock] {
        &self.quads[g * self.blocks..(g + 1) * self.blocks]
    }

    /// `out[t * rows + r]` = row `r` . row `t` of `x`.
    fn multiply(&self, x: &Q8Rows, out: &mut [f32]) {
        self.multiply_with(Kernel::detect(), x, out)
    }

    fn multiply_with(&self, kernel: Kernel, x: &Q8Rows, out: &mut [f32]) {
        let (rows, tokens) = (self.rows, x.rows());
        for first_token in (0..tokens).step_by(TOKEN_GROUP) {
            for g in 0..rows.div_ceil(ROWS) {
                let group = self.group(g);
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

type Row<'a> = (&'a [[i8; BLOCK]], &'a [f32]);

/// Which instructions compute the dot products; every one gives the same floats.
#[derive(Clone, Copy)]
enum Kernel {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    Simd128,
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
        if std::arch::is_x86_feature_detected!("sse4.1") {
            return Kernel::Sse41;
        }
        #[allow(unreachable_code)]
        Kernel::Plain
    }

    /// The dot products of a group of 4 weight rows with one token's row.
    fn four_rows(self, w: &[QuadBlock], x: Row<'_>) -> [f32; ROWS] {
        match self {
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => simd128::four_rows(w, x),
            // SAFETY: detected above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse41 => unsafe { sse41::four_rows(w, x) },
            Kernel::Plain => plain::four_rows(w, x),
        }
    }
}

/// The lanes' order in plain Rust: the reference the vector kernels are held to.
mod plain {
    use super::{BLOCK, QuadBlock, ROWS, Row};

    /// One block's products summed into 4 lanes: lane j takes elements 2j and 2j + 1 of each 8,
    /// as a 16-bit dot product instruction pairs them.
    pub fn lanes(w: &[i8; BLOCK], x: &[i8; BLOCK]) -> [i32; 4] {
        std::array::from_fn(|j| {
            (0..BLOCK / 8)
                .map(|g| {
                    let (a, b) = (8 * g + 2 * j, 8 * g + 2 * j + 1);
                    w[a] as i32 * x[a] as i32 + w[b] as i32 * x[b] as i32
                })
                .sum()
        })
    }

    pub fn four_rows(w: &[QuadBlock], (xv, xd): Row<'_>) -> [f32; ROWS] {
        std::array::from_fn(|r| {
            let mut total = [0f32; 4];
            for ((quad, x), &x_scale) in w.iter().zip(xv).zip(xd) {
                let d = quad.scales[r] * x_scale;
                for (lane, sum) in total.iter_mut().zip(lanes(&quad.values[r], x)) {
                    *lane += sum as f32 * d;
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
    pub fn four_rows(w: &[QuadBlock], (xv, xd): Row<'_>) -> [f32; ROWS] {
        let mut total = [_mm_setzero_ps(); ROWS];
        for ((quad, xq), &x_scale) in w.iter().zip(xv).zip(xd) {
            let x = widen(xq);
            for ((total, values), &w_scale) in total.iter_mut().zip(&quad.values).zip(&quad.scales) {
                let v = widen(values);
                let mut sum = _mm_madd_epi16(v[0], x[0]);
                sum = _mm_add_epi32(sum, _mm_madd_epi16(v[1], x[1]));
                sum = _mm_add_epi32(sum, _mm_madd_epi16(v[2], x[2]));
                sum = _mm_add_epi32(sum, _mm_madd_epi16(v[3], x[3]));
                let scaled = _mm_mul_ps(_mm_cvtepi32_ps(sum), _mm_set1_ps(w_scale * x_scale));
                *total = _mm_add_ps(*total, scaled);
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

    pub fn four_rows(w: &[QuadBlock], (xv, xd): Row<'_>) -> [f32; ROWS] {
        let mut total = [f32x4_splat(0.0); ROWS];
        for ((quad, xq), &x_scale) in w.iter().zip(xv).zip(xd) {
            let x = widen(xq);
            for ((total, values), &w_scale) in total.iter_mut().zip(&quad.values).zip(&quad.scales) {
                let v = widen(values);
                let mut sum = i32x4_dot_i16x8(v[0], x[0]);
                sum = i32x4_add(sum, i32x4_dot_i16x8(v[1], x[1]));
                sum = i32x4_add(sum, i32x4_dot_i16x8(v[2], x[2]));
                sum = i32x4_add(sum, i32x4_dot_i16x8(v[3], x[3]));
                let scaled = f32x4_mul(f32x4_convert_i32x4(sum), f32x4_splat(w_scale * x_scale));
                *total = f32x4_add(*total, scaled);
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
    use super::*;

    /// (rows, columns, tokens): a row group and a remainder, several token groups and a partial one.
    const SHAPES: [(usize, usize, usize); 4] = [(4, 32, 1), (7, 64, 3), (9, 96, 17), (13, 128, 40)];

    fn weight(rows: usize, columns: usize) -> QTensor {
        let w: Vec<f32> = (0..rows * columns).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.021).collect();
        QTensor::quantize(&Tensor::from_vec(w, (rows, columns), &Device::Cpu).unwrap(), GgmlDType::Q8_0).unwrap()
    }

    fn input(tokens: usize, columns: usize) -> Vec<f32> {
        (0..tokens * columns).map(|i| ((i * 13 % 29) as f32 - 14.0) * 0.11).collect()
    }

    /// Row by row from the file's own blocks, in the lanes' order, with nothing of the kernels'
    /// layout or tiling: what every kernel must give, bit for bit.
    fn reference(q: &QTensor, x: &Q8Rows) -> Vec<f32> {
        let (_, columns) = q.shape().dims2().unwrap();
        let w = Q8Rows::from_q8_0_bytes(&q.data().unwrap(), columns / BLOCK);
        let dot = |(wv, wd): Row<'_>, (xv, xd): Row<'_>| {
            let mut total = [0f32; 4];
            for b in 0..wv.len() {
                for (lane, sum) in total.iter_mut().zip(plain::lanes(&wv[b], &xv[b])) {
                    *lane += sum as f32 * (wd[b] * xd[b]);
                }
            }
            total[0] + total[1] + total[2] + total[3]
        };
        let mut out = Vec::new();
        for t in 0..x.rows() {
            out.extend((0..w.rows()).map(|r| dot(w.row(r), x.row(t))));
        }
        out
    }

    #[test]
    fn every_kernel_gives_the_reference_sums_bit_for_bit() {
        for (rows, columns, tokens) in SHAPES {
            let q = weight(rows, columns);
            let m = Q8Matrix::from_qtensor(&q).unwrap().unwrap();
            let x = Q8Rows::quantize(&input(tokens, columns), columns);
            let want = reference(&q, &x);
            let mut kernels = vec![("plain", Kernel::Plain)];
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("sse4.1") {
                kernels.push(("sse4.1", Kernel::Sse41));
            }
            for (name, kernel) in kernels {
                let mut got = vec![f32::NAN; tokens * rows];
                m.multiply_with(kernel, &x, &mut got);
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{name}, {rows} x {columns}, {tokens} tokens");
            }
        }
    }

    #[test]
    fn the_product_is_candles_to_rounding_and_the_rows_dequantize_as_candles() {
        for (rows, columns, tokens) in SHAPES {
            let q = weight(rows, columns);
            let m = Q8Matrix::from_qtensor(&q).unwrap().unwrap();
            let x = Tensor::from_vec(input(tokens, columns), (tokens, columns), &Device::Cpu).unwrap();
            let ours: Vec<f32> = m.forward(&x).unwrap().flatten_all().unwrap().to_vec1().unwrap();
            let qmatmul = candle_core::quantized::QMatMul::from_qtensor(weight(rows, columns)).unwrap();
            let candles: Vec<f32> =
                candle_core::Module::forward(&qmatmul, &x).unwrap().flatten_all().unwrap().to_vec1().unwrap();
            for (a, b) in ours.iter().zip(&candles) {
                assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{rows} x {columns}: ours {a}, candle's {b}");
            }
            let dequantized: Vec<f32> = q.dequantize(&Device::Cpu).unwrap().flatten_all().unwrap().to_vec1().unwrap();
            let rows_f32: Vec<f32> = (0..rows).flat_map(|r| m.row_f32(r).unwrap()).collect();
            assert_eq!(rows_f32, dequantized, "{rows} x {columns}");
            assert!(m.row_f32(rows).is_none());
        }
    }

    #[test]
    fn the_lanes_pair_elements_as_the_dot_instructions_do() {
        let w: [i8; BLOCK] = std::array::from_fn(|i| i as i8);
        let x = [1i8; BLOCK];
        // Lane 0: elements 0, 1, 8, 9, 16, 17, 24, 25.
        assert_eq!(plain::lanes(&w, &x), [100, 116, 132, 148]);
    }

    #[test]
    fn other_formats_and_shapes_are_left_to_candle() {
        let w = Tensor::from_vec(vec![0.5f32; 64], (2, 32), &Device::Cpu).unwrap();
        let q4 = QTensor::quantize(&w, GgmlDType::Q4_0).unwrap();
        assert!(Q8Matrix::from_qtensor(&q4).unwrap().is_none());
        let m = Q8Matrix::from_qtensor(&weight(2, 32)).unwrap().unwrap();
        let wrong = Tensor::zeros((1, 64), candle_core::DType::F32, &Device::Cpu).unwrap();
        assert!(m.forward(&wrong).is_err(), "a width that is not the weight's is refused");
    }
}
