//! The request the caller sends, and its redacted copy for logs and stored results.

use serde::{Deserialize, Serialize};

/// One HTTP request, ready for `fetch` or any HTTP client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// Headers whose values are credentials.
const SECRET_HEADERS: &[&str] = &["authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key"];

/// Query parameters that carry keys (Gemini accepts `?key=`; this crate never puts a key there,
/// but a user-typed base URL might).
const SECRET_PARAMS: &[&str] = &["key", "api_key", "api-key"];

const MASK: &str = "***";

impl HttpRequest {
    /// A copy safe to show or store: the values of secret headers (authorization, x-api-key,
    /// api-key, x-goog-api-key) replaced by "***", and any `key=` query parameter too.
    pub fn redacted(&self) -> HttpRequest {
        let headers = self
            .headers
            .iter()
            .map(|(name, value)| {
                let secret = SECRET_HEADERS.iter().any(|s| name.trim().eq_ignore_ascii_case(s));
                (name.clone(), if secret { MASK.to_string() } else { value.clone() })
            })
            .collect();
        HttpRequest { method: self.method.clone(), url: redact_url(&self.url), headers, body: self.body.clone() }
    }
}

fn redact_url(url: &str) -> String {
    let Some(q) = url.find('?') else {
        return url.to_string();
    };
    let (head, rest) = url.split_at(q + 1);
    let (query, fragment) = match rest.find('#') {
        Some(h) => rest.split_at(h),
        None => (rest, ""),
    };
    let params: Vec<String> = query
        .split('&')
        .map(|p| {
            let name = p.split('=').next().unwrap_or("");
            if SECRET_PARAMS.iter().any(|s| name.eq_ignore_ascii_case(s)) {
                format!("{name}={MASK}")
            } else {
                p.to_string()
            }
        })
        .collect();
    format!("{head}{}{fragment}", params.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_headers_and_query_keys() {
        let req = HttpRequest {
            method: "POST".into(),
            url: "https://h/v1/m:gen?alt=sse&key=SECRET&x=1#frag".into(),
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Authorization".into(), "Bearer SECRET".into()),
                ("x-api-key".into(), "SECRET".into()),
                ("API-KEY".into(), "SECRET".into()),
                ("x-goog-api-key".into(), "SECRET".into()),
                ("anthropic-version".into(), "2023-06-01".into()),
            ],
            body: "{}".into(),
        };
        let r = req.redacted();
        assert_eq!(r.url, "https://h/v1/m:gen?alt=sse&key=***&x=1#frag");
        assert!(!format!("{r:?}").contains("SECRET"));
        assert_eq!(r.headers[0].1, "application/json");
        assert_eq!(r.headers[5].1, "2023-06-01");
        assert_eq!(req.headers[1].1, "Bearer SECRET", "the original is untouched");
        let plain = HttpRequest { url: "http://h/v1?monkey=1".into(), ..req.clone() };
        assert_eq!(plain.redacted().url, "http://h/v1?monkey=1");
    }
}
