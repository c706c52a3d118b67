//! One module per perturbation kind.

pub mod comments;
pub mod gbc;
pub mod gbc_codecrash;
pub mod hint;
pub mod ren;
pub mod rtf;
