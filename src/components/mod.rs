pub mod code_view;
pub mod run_result;
