//! Where a key may go. A model API's base URL read as an address (scheme, host, port, path), its
//! origin (the unit a key is bound to), and the one rule every front end applies before a key
//! leaves: the key is sent only to a provider **and** origin its owner typed or confirmed
//! ([`KeyScope`], [`TrustedEndpoints`], [`key_use`]), and never in clear text to another machine
//! ([`plain_http_refusal`]). Base URLs are kept and exported only [`redact_base_url`]ed.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A base URL taken apart. Only `http` and `https` are addresses a key may go to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    pub scheme: String,
    /// Lowercased; an IPv6 host keeps its brackets (`[::1]`).
    pub host: String,
    /// The port, the scheme's default when the URL names none.
    pub port: u16,
    /// The path, `/` when empty; never the query or fragment.
    pub path: String,
    /// The URL carried `user:password@` (dropped everywhere it is kept).
    pub had_credentials: bool,
}

impl Address {
    /// Reads `url` (surrounding space ignored). Errors name what is wrong with it.
    pub fn parse(url: &str) -> Result<Address, String> {
        let url = url.trim();
        let (scheme, rest) =
            url.split_once("://").ok_or(format!("`{}` has no scheme (http:// or https://)", redact_base_url(url)))?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            other => return Err(format!("the scheme `{other}` is not http or https")),
        };
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        let (had_credentials, host_port) = match authority.rsplit_once('@') {
            Some((_, hp)) => (true, hp),
            None => (false, authority),
        };
        let (host, port) = split_host_port(host_port)?;
        if host.is_empty() {
            return Err("the address has no host".to_string());
        }
        let port = match port {
            Some(p) => p.parse::<u16>().map_err(|_| format!("the port `{p}` is not a number from 0 to 65535"))?,
            None => default_port,
        };
        let path_end = tail.find(['?', '#']).unwrap_or(tail.len());
        let path = if tail[..path_end].is_empty() { "/".to_string() } else { tail[..path_end].to_string() };
        Ok(Address { scheme, host: host.to_ascii_lowercase(), port, path, had_credentials })
    }

    /// `scheme://host:port`, the port always written: the unit a key is bound to.
    pub fn origin(&self) -> String {
        format!("{}://{}:{}", self.scheme, self.host, self.port)
    }

    /// This machine: `localhost` (and its subdomains), 127.0.0.0/8, `[::1]`.
    pub fn is_loopback(&self) -> bool {
        let h = self.host.as_str();
        if h == "localhost" || h.ends_with(".localhost") || h == "[::1]" {
            return true;
        }
        let parts: Vec<&str> = h.split('.').collect();
        parts.len() == 4 && parts[0] == "127" && parts.iter().all(|p| p.parse::<u8>().is_ok())
    }

    pub fn is_plain_http(&self) -> bool {
        self.scheme == "http"
    }
}

impl fmt::Display for Address {
    /// Scheme, host, port and path, spelled out (what a confirmation shows).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.origin(), self.path)
    }
}

fn split_host_port(host_port: &str) -> Result<(&str, Option<&str>), String> {
    if let Some(inner) = host_port.strip_prefix('[') {
        let close = inner.find(']').ok_or("an IPv6 host is missing its `]`".to_string())?;
        let host = &host_port[..close + 2];
        let after = &inner[close + 1..];
        return match after.strip_prefix(':') {
            Some(p) => Ok((host, Some(p))),
            None if after.is_empty() => Ok((host, None)),
            None => Err(format!("`{after}` after the IPv6 host is not a port")),
        };
    }
    Ok(match host_port.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (host_port, None),
    })
}

/// Query parameters a base URL may keep: they select an API version, never a credential.
const KEPT_QUERY_PARAMETERS: &[&str] = &["api-version"];

/// `url` as it may be kept, shown or exported: no `user:password@`, no fragment, and of the query
/// only the parameters in [`KEPT_QUERY_PARAMETERS`] (a `?key=` pasted into a base URL is a key).
/// Text that is not a URL comes back with the same parts cut.
pub fn redact_base_url(url: &str) -> String {
    let url = url.trim();
    let (prefix, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (format!("{scheme}://"), rest),
        None => (String::new(), url),
    };
    let rest = rest.split('#').next().unwrap_or("");
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let end = before_query.find('/').unwrap_or(before_query.len());
    let (authority, path) = before_query.split_at(end);
    let authority = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
    let kept: Vec<&str> = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or("");
            KEPT_QUERY_PARAMETERS.iter().any(|k| k.eq_ignore_ascii_case(name))
        })
        .collect();
    let query = if kept.is_empty() { String::new() } else { format!("?{}", kept.join("&")) };
    format!("{prefix}{authority}{path}{query}")
}

/// Serde's `serialize_with` for a kept base URL: whatever holds it (an [`crate::Endpoint`] in a
/// run manifest or a generation entry, a cached proposal) writes it [`redact_base_url`]ed, so a
/// credential typed into the URL never reaches a file, a store or an export.
pub fn serialize_redacted_base_url<S: serde::Serializer>(url: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&redact_base_url(url))
}

/// A provider at an origin: what a key is bound to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct KeyScope {
    pub provider: String,
    pub origin: String,
}

impl KeyScope {
    pub fn of(provider: &str, base_url: &str) -> Result<KeyScope, String> {
        Ok(KeyScope { provider: provider.trim().to_string(), origin: Address::parse(base_url)?.origin() })
    }

    /// A name for storage entries (`openai@https://api.openai.com:443`).
    pub fn storage_name(&self) -> String {
        format!("{}@{}", self.provider, self.origin)
    }
}

/// The scopes the user typed or confirmed on this device. Holds no key: it says only where a key
/// has been sent by its owner's choice.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustedEndpoints {
    scopes: BTreeSet<KeyScope>,
}

impl TrustedEndpoints {
    pub fn contains(&self, scope: &KeyScope) -> bool {
        self.scopes.contains(scope)
    }

    /// Records a scope the user typed (a form's Run or Test connection) or confirmed.
    pub fn trust(&mut self, scope: KeyScope) {
        self.scopes.insert(scope);
    }

    pub fn len(&self) -> usize {
        self.scopes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scopes.is_empty()
    }
}

/// What may happen with a key for an endpoint a stored or imported file names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyUse {
    /// The user typed or confirmed this provider at this origin before.
    Allowed(KeyScope),
    /// Nothing may be sent until the user has seen this address and said yes.
    Confirm { scope: KeyScope, address: Address },
    /// The address cannot take a key at all.
    Refused(String),
}

/// The one rule for a file's endpoint: allowed when its provider and origin are trusted, else the
/// address to confirm; refused when it is not an http(s) address, or plain http to another machine
/// (unless `allow_http`).
pub fn key_use(trusted: &TrustedEndpoints, provider: &str, base_url: &str, allow_http: bool) -> KeyUse {
    let address = match Address::parse(base_url) {
        Ok(a) => a,
        Err(e) => return KeyUse::Refused(format!("base URL: {e}")),
    };
    if let Some(refusal) = plain_http_refusal(&address, allow_http) {
        return KeyUse::Refused(refusal);
    }
    let scope = KeyScope { provider: provider.trim().to_string(), origin: address.origin() };
    if trusted.contains(&scope) { KeyUse::Allowed(scope) } else { KeyUse::Confirm { scope, address } }
}

/// Why a key must not go to `address`: plain http to a host that is not this machine, where
/// anyone on the way reads it. None when it may (https, loopback, or `allow_http`).
pub fn plain_http_refusal(address: &Address, allow_http: bool) -> Option<String> {
    (address.is_plain_http() && !address.is_loopback() && !allow_http).then(|| {
        format!(
            "a key would travel unencrypted to {} (plain http:// to another machine): use https://, or allow plain http for this address on purpose",
            address.origin()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_taken_apart() {
        // (url, origin, path, loopback, credentials) or the start of the error.
        #[allow(clippy::type_complexity)]
        let cases: &[(&str, Result<(&str, &str, bool, bool), &str>)] = &[
            ("https://api.openai.com/v1", Ok(("https://api.openai.com:443", "/v1", false, false))),
            ("HTTPS://API.OpenAI.com:443/v1/", Ok(("https://api.openai.com:443", "/v1/", false, false))),
            ("http://127.0.0.1:8000/v1?x=1#f", Ok(("http://127.0.0.1:8000", "/v1", true, false))),
            ("http://localhost", Ok(("http://localhost:80", "/", true, false))),
            ("http://[::1]:11434/v1", Ok(("http://[::1]:11434", "/v1", true, false))),
            ("https://u:p@evil.example/v1", Ok(("https://evil.example:443", "/v1", false, true))),
            ("http://127.0.0.1.evil.example/v1", Ok(("http://127.0.0.1.evil.example:80", "/v1", false, false))),
            ("http://localhost@evil.example/", Ok(("http://evil.example:80", "/", false, true))),
            ("ftp://x/", Err("the scheme `ftp`")),
            ("api.openai.com/v1", Err("`api.openai.com/v1` has no scheme")),
            ("https:///v1", Err("the address has no host")),
            ("https://h:99999/", Err("the port `99999`")),
            ("http://[::1/", Err("an IPv6 host")),
        ];
        for (url, want) in cases {
            match (Address::parse(url), want) {
                (Ok(a), Ok((origin, path, loopback, creds))) => {
                    assert_eq!(
                        (a.origin().as_str(), a.path.as_str(), a.is_loopback(), a.had_credentials),
                        (*origin, *path, *loopback, *creds),
                        "{url}"
                    )
                }
                (Err(e), Err(start)) => assert!(e.starts_with(start), "{url}: {e}"),
                (got, _) => panic!("{url}: {got:?}"),
            }
        }
    }

    #[test]
    fn base_urls_are_kept_without_credentials_or_secret_parameters() {
        let cases = [
            (
                "https://generativelanguage.googleapis.com/v1beta?key=AIzaSECRET",
                "https://generativelanguage.googleapis.com/v1beta",
            ),
            ("https://user:pw@host.example/v1", "https://host.example/v1"),
            (
                "https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21&sig=S",
                "https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
            ),
            ("http://127.0.0.1:8000/v1#frag", "http://127.0.0.1:8000/v1"),
            ("  https://api.openai.com/v1  ", "https://api.openai.com/v1"),
            ("not a url?token=t", "not a url"),
        ];
        for (url, want) in cases {
            assert_eq!(redact_base_url(url), want, "{url}");
        }
    }

    #[test]
    fn a_key_goes_only_to_a_trusted_provider_at_a_trusted_origin() {
        let mut trusted = TrustedEndpoints::default();
        trusted.trust(KeyScope::of("openai", "https://api.openai.com/v1").unwrap());
        let decide = |provider: &str, url: &str, allow_http: bool| match key_use(&trusted, provider, url, allow_http) {
            KeyUse::Allowed(_) => "allowed".to_string(),
            KeyUse::Confirm { address, .. } => format!("confirm {address}"),
            KeyUse::Refused(why) => format!("refused: {}", why.split(':').next().unwrap_or("")),
        };
        let cases = [
            ("openai", "https://api.openai.com/v1", false, "allowed"),
            ("openai", "https://api.openai.com:443/v1/other", false, "allowed"),
            ("openai", "https://elsewhere.example/v1", false, "confirm https://elsewhere.example:443/v1"),
            ("openai", "https://api.openai.com:8443/v1", false, "confirm https://api.openai.com:8443/v1"),
            ("openai", "http://api.openai.com/v1", false, "refused: a key would travel unencrypted to http"),
            ("openai-compatible", "https://api.openai.com/v1", false, "confirm https://api.openai.com:443/v1"),
            ("openai", "http://127.0.0.1:9/v1", false, "confirm http://127.0.0.1:9/v1"),
            ("vllm", "http://10.0.0.5:8000/v1", true, "confirm http://10.0.0.5:8000/v1"),
            ("openai", "javascript:alert(1)", false, "refused: base URL"),
        ];
        for (provider, url, allow_http, want) in cases {
            assert_eq!(decide(provider, url, allow_http), want, "{provider} {url}");
        }
    }

    #[test]
    fn trusted_endpoints_round_trip_and_hold_no_key() {
        let mut trusted = TrustedEndpoints::default();
        trusted.trust(KeyScope::of("anthropic", "https://api.anthropic.com/v1").unwrap());
        let text = serde_json::to_string(&trusted).unwrap();
        assert_eq!(text, r#"{"scopes":[{"provider":"anthropic","origin":"https://api.anthropic.com:443"}]}"#);
        assert_eq!(serde_json::from_str::<TrustedEndpoints>(&text).unwrap(), trusted);
    }
}
