pub mod code_view;
pub mod dataset_switcher;
pub mod edit_list;
pub mod evaluation;
pub mod marked_code;
pub mod progress_bar;
pub mod run_result;
pub mod theme_switch;
