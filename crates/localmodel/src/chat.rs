use serde::Serialize;

use crate::error::{LocalModelError, context};

/// One turn of a conversation, as chat templates expect it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: &str, content: &str) -> Self {
        ChatMessage { role: role.to_string(), content: content.to_string() }
    }
}

/// Renders the model's own Jinja chat template (from the GGUF metadata) with the prompt for the
/// assistant's turn appended, so prompts are what the model was trained on.
pub(crate) fn render(
    template: &str,
    messages: &[ChatMessage],
    bos_token: &str,
    eos_token: &str,
) -> Result<String, LocalModelError> {
    let mut env = minijinja::Environment::new();
    // Chat templates are written for the Jinja settings Hugging Face renders them with.
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
        .map_err(context("the chat template's syntax settings"))?;
    env.set_syntax(syntax);
    env.add_function("raise_exception", |msg: String| -> Result<String, minijinja::Error> {
        Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, msg))
    });
    let ctx = minijinja::Value::from(minijinja::value::Serde(serde_json::json!({
        "messages": messages,
        "add_generation_prompt": true,
        "bos_token": bos_token,
        "eos_token": eos_token,
    })));
    env.render_str(template, ctx).map_err(context("the chat template (GGUF key tokenizer.chat_template)"))
}
