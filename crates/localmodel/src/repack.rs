//! Q5_0 weights rewritten at load time as Q8_0, value for value, for our kernel (`q8_matrix.rs`).
//!
//! candle's Q5_0 dot product is its plain loop (no AVX, no SIMD128 version), and the real
//! Qwen2.5-Coder-0.5B file keeps 388 M of its parameters in Q5_0. A Q5_0 value is a whole number
//! from -16 to 15 times its block's f16 scale; a Q8_0 block (the same 32 values, the same f16
//! scale, one signed byte each) holds it exactly. So the rewrite loses nothing and costs 34
//! bytes a block instead of 22 (about 145 MB more for that file). Measured with the bench's
//! `realmodel` section on 10 CRUXEval-O samples: 43.8 s a sample before, 8.6 s after, the same
//! 9 of 10 answers identical to llama.cpp's (docs/local-model.md).

use candle_core::quantized::{GgmlDType, QTensor, ggml_file};
use candle_core::{Device, Result};

/// A Q5_0 block: f16 scale, 32 fifth bits, 32 low nibbles (16 bytes: value j low, j + 16 high).
const Q5_0_BLOCK: usize = 22;
/// A Q8_0 block: f16 scale, 32 signed bytes.
const Q8_0_BLOCK: usize = 34;

/// `t` as Q8_0 when it is Q5_0 (every value the same); any other tensor as it is.
pub(crate) fn q5_0_as_q8_0(t: QTensor) -> Result<QTensor> {
    if t.dtype() != GgmlDType::Q5_0 {
        return Ok(t);
    }
    let dims = t.shape().dims().to_vec();
    let data = t.data()?;
    if data.len() % Q5_0_BLOCK != 0 {
        candle_core::bail!("a Q5_0 tensor of {} bytes is not whole blocks", data.len());
    }
    let mut out = Vec::with_capacity(data.len() / Q5_0_BLOCK * Q8_0_BLOCK);
    for block in data.chunks_exact(Q5_0_BLOCK) {
        out.extend_from_slice(&block[0..2]);
        let fifth_bits = u32::from_le_bytes([block[2], block[3], block[4], block[5]]);
        let nibbles = &block[6..Q5_0_BLOCK];
        let value = |low4: u8, j: usize| ((low4 as u32 | ((fifth_bits >> j) & 1) << 4) as i32 - 16) as i8 as u8;
        out.extend((0..16).map(|j| value(nibbles[j] & 0x0f, j)));
        out.extend((0..16).map(|j| value(nibbles[j] >> 4, j + 16)));
    }
    ggml_file::qtensor_from_ggml(GgmlDType::Q8_0, &out, dims, &Device::Cpu)
}

#[cfg(test)]
mod tests {
    use candle_core::Tensor;

    use super::*;

    #[test]
    fn q5_0_becomes_q8_0_holding_every_value_exactly() {
        // Values across several blocks and scales, both signs, the extremes of a block included.
        let values: Vec<f32> =
            (0..4 * 32 * 3).map(|i| ((i * 37 % 101) as f32 - 50.0) * (1.0 + (i / 32) as f32)).collect();
        let weights = Tensor::from_vec(values, (4, 96), &Device::Cpu).unwrap();
        let q5 = QTensor::quantize(&weights, GgmlDType::Q5_0).unwrap();
        let expected: Vec<f32> = q5.dequantize(&Device::Cpu).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        let q8 = q5_0_as_q8_0(q5).unwrap();
        assert_eq!(q8.dtype(), GgmlDType::Q8_0);
        assert_eq!(q8.shape().dims(), [4, 96]);
        let got: Vec<f32> = q8.dequantize(&Device::Cpu).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(got, expected, "every value, bit for bit");
        // Another format passes through untouched.
        let q4 = QTensor::quantize(&weights, GgmlDType::Q4_0).unwrap();
        assert_eq!(q5_0_as_q8_0(q4).unwrap().dtype(), GgmlDType::Q4_0);
    }
}
