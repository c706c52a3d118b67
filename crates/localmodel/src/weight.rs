//! A weight matrix as the forward pass multiplies by it: Q8_0, Q4_0, Q4_1, Q4_K and Q6_K (and Q5_0,
//! rewritten as Q8_0 at load: `repack.rs`) by our own kernel (`q8_matrix.rs`), which computes
//! the same floats in the page and natively; other formats by candle's quantized matmul.

use std::sync::Arc;

use candle_core::quantized::{QMatMul, QTensor};
use candle_core::{Module, Tensor};

use crate::q8_matrix::Q8Matrix;
use crate::repack;

type Result<T> = candle_core::Result<T>;

/// `x W^T` for a quantized `W` of (rows, columns).
pub(crate) enum Weight {
    Q8(Arc<Q8Matrix>),
    Candle(QMatMul),
}

impl Weight {
    pub fn new(t: QTensor) -> Result<Weight> {
        let t = repack::q5_0_as_q8_0(t)?;
        if let Some(m) = Q8Matrix::from_qtensor(&t)? {
            return Ok(Weight::Q8(Arc::new(m)));
        }
        Ok(Weight::Candle(QMatMul::from_qtensor(t)?))
    }

    /// A weight kept as it is and shared (the tied output layer reads the embeddings' table).
    pub fn shared(t: Arc<QTensor>) -> Result<Weight> {
        Ok(Weight::Candle(QMatMul::from_arc(t)?))
    }

    /// `x` is (tokens, columns); the result (tokens, rows).
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match self {
            Weight::Q8(m) => m.forward(x),
            Weight::Candle(matmul) => matmul.forward(x),
        }
    }
}
