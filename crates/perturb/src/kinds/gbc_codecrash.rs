//! GBC under the `codecrash` profile (placeholder).
use tree_sitter::Tree;

use crate::edit::TextEdit;
use crate::rng::Rng;
use crate::{PerturbError, Program};

pub fn garbage_code(program: &Program, tree: &Tree, call_tree: &Tree, rng: &mut Rng) -> Result<Vec<TextEdit>, PerturbError> {
    crate::kinds::gbc::garbage_code(program, tree, call_tree, crate::Profile::Execbench, rng)
}
