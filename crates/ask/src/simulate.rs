//! A simulated model: an [`HttpClient`] that answers OpenAI-style chat requests itself, after a
//! simulated latency, with the dataset's own answers (a set share of them wrong on purpose) and
//! token counts. No key, no network, nothing paid: the whole flow of a real run (concurrency,
//! streaming, usage, costs and the spend cap, the store, resume) can be tried, and is tested,
//! without a provider. The run engine cannot tell it from a real server.

use std::collections::HashMap;

use execbench_core::Sample;
use execbench_eval::Task;
use execbench_eval::prompt::Template;
use execbench_providers::{ErrorKind, HttpRequest, ProviderError};
use serde_json::{Value, json};

use execbench_io::{Clock, HttpClient, HttpHead, ResponseBody};
pub use execbench_runs::settings::Simulation;

/// The simulated token count of a text: one token per started group of four characters (the mock
/// model server's rule too), so tests can derive every usage figure.
pub fn simulated_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// The preset id the page and the command line use for it.
pub const PROVIDER: &str = "simulated";

/// Answers the prompts of one job.
pub struct SimulatedHttp<C> {
    clock: C,
    simulation: Simulation,
    task: Task,
    /// The last message of each sample's prompt → (position, sample).
    prompts: HashMap<String, (usize, Sample)>,
}

impl<C: Clock> SimulatedHttp<C> {
    pub fn new(clock: C, simulation: Simulation, samples: &[Sample], template: &Template) -> Self {
        let prompts = samples
            .iter()
            .enumerate()
            .filter_map(|(i, s)| template.render(s).messages.last().map(|m| (m.content.clone(), (i, s.clone()))))
            .collect();
        SimulatedHttp { clock, simulation, task: template.task, prompts }
    }

    fn answer(&self, position: usize, sample: &Sample) -> String {
        let wrong = self.simulation.wrong_every.is_some_and(|k| k > 0 && (position + 1).is_multiple_of(k));
        if self.task == Task::Question {
            // A question's truth rides in its sample; the wrong answer is a well-formed other one.
            let answer = match execbench_core::question::Question::from_sample(sample) {
                Some(Ok(question)) if wrong => question.truth.wrong_answer_text(),
                _ => sample.output.clone(),
            };
            return format!("[ANSWER]{answer}[/ANSWER]");
        }
        let (call, value) = match (self.task, wrong) {
            (_, false) => (sample.call.clone(), sample.output.clone()),
            (Task::Output, true) => {
                (sample.call.clone(), if sample.output == "None" { "0".into() } else { "None".into() })
            }
            (Task::Input | Task::Question, true) => (format!("{}(None)", sample.function_name), sample.output.clone()),
        };
        format!("[ANSWER]\nassert {call} == {value}\n[/ANSWER]")
    }

    fn reply(&self, request: &HttpRequest) -> Result<(u16, String), String> {
        let body: Value = serde_json::from_str(&request.body).map_err(|e| format!("not JSON: {e}"))?;
        let last = body
            .pointer("/messages")
            .and_then(Value::as_array)
            .and_then(|m| m.last())
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some((position, sample)) = self.prompts.get(last) else {
            return Ok((400, json!({"error": {"message": "the simulated model only knows the prompts of the run it was made for", "type": "invalid_request_error"}}).to_string()));
        };
        let n = body.get("n").and_then(Value::as_u64).unwrap_or(1).max(1);
        let text = self.answer(*position, sample);
        let prompt_tokens: u64 = body.pointer("/messages").and_then(Value::as_array).map_or(0, |m| {
            m.iter().filter_map(|m| m.get("content").and_then(Value::as_str)).map(simulated_tokens).sum()
        });
        let per_answer = simulated_tokens(&text) + self.simulation.reasoning_tokens;
        let usage = json!({
            "prompt_tokens": prompt_tokens,
            "completion_tokens": per_answer * n,
            "total_tokens": prompt_tokens + per_answer * n,
            "completion_tokens_details": {"reasoning_tokens": self.simulation.reasoning_tokens * n},
        });
        let model = body.get("model").cloned().unwrap_or(Value::Null);
        let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
        if !stream {
            let choices: Vec<Value> = (0..n)
                .map(
                    |i| json!({"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}),
                )
                .collect();
            return Ok((200, json!({"id": "simulated", "object": "chat.completion", "model": model, "choices": choices, "usage": usage}).to_string()));
        }
        let mut events = String::new();
        for i in 0..n {
            // The text in two pieces, as a stream would bring it.
            let (a, b) = text.split_at(text.len() / 2);
            for piece in [a, b] {
                events.push_str(&format!("data: {}\n\n", json!({"id": "simulated", "model": model, "choices": [{"index": i, "delta": {"content": piece}, "finish_reason": null}]})));
            }
            events.push_str(&format!("data: {}\n\n", json!({"id": "simulated", "model": model, "choices": [{"index": i, "delta": {}, "finish_reason": "stop"}]})));
        }
        events.push_str(&format!(
            "data: {}\n\n",
            json!({"id": "simulated", "model": model, "choices": [], "usage": usage})
        ));
        events.push_str("data: [DONE]\n\n");
        Ok((200, events))
    }
}

/// The whole body at once.
pub struct SimulatedBody(Option<Vec<u8>>);

impl ResponseBody for SimulatedBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        Ok(self.0.take())
    }
}

impl<C: Clock> HttpClient for SimulatedHttp<C> {
    type Body = SimulatedBody;

    async fn send(&self, request: &HttpRequest) -> Result<HttpHead<SimulatedBody>, ProviderError> {
        let (status, body) = self.reply(request).map_err(|message| ProviderError {
            kind: ErrorKind::BadRequest,
            status: None,
            message,
            retry_after_ms: None,
        })?;
        // Dropping this future (Stop, a time-out) cancels the wait, as it aborts a real request.
        self.clock.sleep(self.simulation.latency_ms).await;
        let headers = vec![(
            "content-type".to_string(),
            if body.starts_with("data:") { "text/event-stream" } else { "application/json" }.to_string(),
        )];
        Ok(HttpHead { status, headers, body: SimulatedBody(Some(body.into_bytes())) })
    }
}
