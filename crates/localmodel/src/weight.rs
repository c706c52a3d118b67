//! A weight matrix as the forward pass multiplies by it: Q8_0, Q4_K and Q6_K (and Q5_0,
//! rewritten as Q8_0 at load: `repack.rs`) by our own kernel (`q8_matrix.rs`); other formats
//! by candle's quantized matmul, on a format with vectorised kernels (`repack.rs` rewrites Q4_1
//! as Q4_0 and returns the block constants Q4_0 cannot hold, added back here as `x`'s block sums
//! times them).

use std::sync::Arc;

use candle_core::quantized::{QMatMul, QTensor};
use candle_core::{Device, Module, Tensor};

use crate::q8_matrix::Q8Matrix;
use crate::repack;

type Result<T> = candle_core::Result<T>;

/// `x W^T` for a quantized `W` of (rows, columns).
pub(crate) enum Weight {
    Q8(Arc<Q8Matrix>),
    Candle {
        matmul: QMatMul,
        /// (rows, columns / 32): what each Q4_1 block's values have above the Q4_0 ones.
        block_constants: Option<Tensor>,
    },
}

impl Weight {
    pub fn new(t: QTensor) -> Result<Weight> {
        if let Some((q4_0, constants)) = repack::q4_1_as_q4_0(&t)? {
            let (rows, columns) = t.shape().dims2()?;
            let constants = Tensor::from_vec(constants, (rows, columns / 32), &Device::Cpu)?;
            return Ok(Weight::Candle { matmul: QMatMul::from_qtensor(q4_0)?, block_constants: Some(constants) });
        }
        let t = repack::q5_0_as_q8_0(t)?;
        if let Some(m) = Q8Matrix::from_qtensor(&t)? {
            return Ok(Weight::Q8(Arc::new(m)));
        }
        Ok(Weight::Candle { matmul: QMatMul::from_qtensor(t)?, block_constants: None })
    }

    /// A weight kept as it is and shared (the tied output layer reads the embeddings' table).
    pub fn shared(t: Arc<QTensor>) -> Result<Weight> {
        Ok(Weight::Candle { matmul: QMatMul::from_arc(t)?, block_constants: None })
    }

    /// `x` is (tokens, columns); the result (tokens, rows).
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match self {
            Weight::Q8(m) => m.forward(x),
            Weight::Candle { matmul, block_constants } => {
                let y = matmul.forward(x)?;
                let Some(constants) = block_constants else { return Ok(y) };
                let (tokens, columns) = x.dims2()?;
                let sums = x.reshape((tokens, columns / 32, 32))?.sum(2)?;
                y + sums.matmul(&constants.t()?)?
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use candle_core::quantized::GgmlDType;

    use super::*;

    /// The rewritten Q4_1 weight gives what candle's own Q4_1 matmul gives, to rounding: both
    /// quantize `x` to 8 bits a block (Q8_0 against Q8_1), the sums are grouped otherwise.
    #[test]
    fn a_q4_1_weight_multiplies_as_candles_q4_1_matmul() {
        let cpu = Device::Cpu;
        let w: Vec<f32> = (0..64 * 96).map(|i| ((i * 31 % 89) as f32 - 30.0) * 0.013).collect();
        let x: Vec<f32> = (0..3 * 96).map(|i| ((i * 17 % 23) as f32 - 11.0) * 0.07).collect();
        let w = Tensor::from_vec(w, (64, 96), &cpu).unwrap();
        let q4_1 = || QTensor::quantize(&w, GgmlDType::Q4_1).unwrap();
        let x = Tensor::from_vec(x, (3, 96), &cpu).unwrap();
        let exact = x.matmul(&q4_1().dequantize(&cpu).unwrap().t().unwrap()).unwrap();
        let candles: Vec<f32> =
            QMatMul::from_qtensor(q4_1()).unwrap().forward(&x).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        let weight = Weight::new(q4_1()).unwrap();
        assert!(matches!(weight, Weight::Candle { block_constants: Some(_), .. }), "Q4_1 is rewritten");
        let ours: Vec<f32> = weight.forward(&x).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        let exact: Vec<f32> = exact.flatten_all().unwrap().to_vec1().unwrap();
        let worst = |got: &[f32]| got.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        // Ours is no further from the exact product than candle's own kernel, give or take.
        assert!(worst(&ours) <= worst(&candles) * 1.5 + 1e-3, "ours {} vs candle's {}", worst(&ours), worst(&candles));
        assert!(worst(&ours) < 0.05, "ours is off by {}", worst(&ours));
    }
}
