pub mod code_box;
pub mod code_view;
pub mod edit_list;
pub mod evaluation;
pub mod marked_code;
pub mod progress_bar;
pub mod run_result;
pub mod theme_switch;
