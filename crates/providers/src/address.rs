//! Where a key may go. A model API's base URL read as an address (scheme, host, port, path), its
//! origin (the unit a key is bound to), and the one rule every front end applies before a key
//! leaves: the key is sent only to a provider **and** origin its owner typed or confirmed
//! ([`KeyScope`], [`TrustedEndpoints`], [`key_use`]), and never in clear text to another machine
//! ([`plain_http_refusal`]). Base URLs are kept and exported only [`redact_base_url`]ed.
//!
//! One parser decides and sends: addresses are read by the `url` crate, which follows the WHATWG
//! URL standard as the browser's `fetch` and reqwest do (a `\` ends the host of an http(s) URL,
//! `0x7f.1` is 127.0.0.1, a Unicode host is its punycode), and every request is built from the
//! canonical URL that was checked ([`Address::at`]), never from the text as typed. What the
//! standard would quietly repair or accept and a person would not expect (credentials, tabs,
//! newlines, control characters) is refused in words.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use url::Url;

/// A base URL taken apart. Only `http` and `https` are addresses a key may go to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    pub scheme: String,
    /// As the URL standard serializes it: lowercased, punycode for a Unicode name, an IPv4 address
    /// in dotted decimal, an IPv6 host in brackets (`[::1]`).
    pub host: String,
    /// The port, the scheme's default when the URL names none.
    pub port: u16,
    /// The path, `/` when empty; never the query or fragment.
    pub path: String,
    /// The canonical URL without its fragment: what requests are built from.
    url: Url,
}

impl Address {
    /// Reads `url` (surrounding spaces ignored). Errors name what is wrong with it.
    pub fn parse(url: &str) -> Result<Address, String> {
        let text = url.trim_matches(' ');
        if let Some((at, c)) = text.char_indices().find(|(_, c)| c.is_control()) {
            let what = match c {
                '\t' => "a tab".to_string(),
                '\n' | '\r' => "a line break".to_string(),
                c => format!("the control character U+{:04X}", c as u32),
            };
            return Err(format!(
                "`{}` has {what} at character {}: an address is one line of visible characters",
                redact_base_url(&text.replace(|c: char| c.is_control(), " ")),
                text[..at].chars().count() + 1
            ));
        }
        let mut parsed = Url::parse(text).map_err(|e| match e {
            url::ParseError::RelativeUrlWithoutBase => {
                format!("`{}` has no scheme (http:// or https://)", redact_base_url(text))
            }
            e => format!("`{}` is not a valid address: {e}", redact_base_url(text)),
        })?;
        let default_port = match parsed.scheme() {
            "http" => 80,
            "https" => 443,
            other => return Err(format!("the scheme `{other}` is not http or https")),
        };
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(format!(
                "`{}` carries a user name or password (`user:password@`): a key is never taken from the address; type it in the key field",
                redact_base_url(text)
            ));
        }
        let host = match parsed.host_str() {
            Some(h) if !h.is_empty() => h.to_string(),
            _ => return Err("the address has no host".to_string()),
        };
        parsed.set_fragment(None);
        let port = parsed.port().unwrap_or(default_port);
        let path = parsed.path().to_string();
        Ok(Address { scheme: parsed.scheme().to_string(), host, port, path, url: parsed })
    }

    /// `scheme://host:port`, the port always written: the unit a key is bound to.
    pub fn origin(&self) -> String {
        format!("{}://{}:{}", self.scheme, self.host, self.port)
    }

    /// The canonical URL (no fragment): what the address is, written as every parser reads it.
    pub fn canonical(&self) -> &str {
        self.url.as_str()
    }

    /// The canonical URL without its query, and without a trailing `/`: a base that method paths
    /// are appended to.
    pub fn root(&self) -> String {
        let mut root = self.url.clone();
        root.set_query(None);
        root.as_str().trim_end_matches('/').to_string()
    }

    /// The query as written after `?` (percent-encoded as the standard does), if any.
    pub fn query(&self) -> Option<&str> {
        self.url.query()
    }

    /// The URL of `suffix` (a path starting with `/`, or empty, already percent-encoded where it
    /// must be, with its own `?query` if any) under this base, the base's query kept before the
    /// suffix's. Appending to the canonical root never changes the origin: the standard's own
    /// serialization has already ended its host.
    pub fn at(&self, suffix: &str) -> String {
        let (path, extra) = suffix.split_once('?').map_or((suffix, None), |(p, q)| (p, Some(q)));
        let query: Vec<&str> = self.query().into_iter().chain(extra).filter(|q| !q.is_empty()).collect();
        let query = if query.is_empty() { String::new() } else { format!("?{}", query.join("&")) };
        format!("{}{path}{query}", self.root())
    }

    /// This machine: `localhost` (and its subdomains), 127.0.0.0/8, `[::1]`.
    pub fn is_loopback(&self) -> bool {
        match self.url.host() {
            Some(url::Host::Domain(d)) => d == "localhost" || d.ends_with(".localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        }
    }

    pub fn is_plain_http(&self) -> bool {
        self.scheme == "http"
    }

    /// `host` with `:port` when the port is not the scheme's default (what messages name).
    pub fn host_and_port(&self) -> String {
        match self.url.port() {
            Some(p) => format!("{}:{p}", self.host),
            None => self.host.clone(),
        }
    }
}

impl fmt::Display for Address {
    /// Scheme, host, port and path, spelled out (what a confirmation shows).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.origin(), self.path)
    }
}

/// Query parameters a base URL may keep: they select an API version, never a credential.
const KEPT_QUERY_PARAMETERS: &[&str] = &["api-version"];

/// `url` as it may be kept, shown or exported: no `user:password@`, no fragment, and of the query
/// only the parameters in [`KEPT_QUERY_PARAMETERS`] (a `?key=` pasted into a base URL is a key).
/// A URL comes back in its canonical form. Text that is not one comes back with the same parts
/// cut: everything from the first `?` or `#`, and whatever stands before an `@`.
pub fn redact_base_url(url: &str) -> String {
    let text = url.trim();
    if let Ok(mut parsed) = Url::parse(text)
        && parsed.has_host()
    {
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
        parsed.set_fragment(None);
        let kept: Vec<(String, String)> = parsed
            .query_pairs()
            .filter(|(name, _)| KEPT_QUERY_PARAMETERS.iter().any(|k| k.eq_ignore_ascii_case(name)))
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            parsed.set_query(None);
        } else {
            parsed.query_pairs_mut().clear().extend_pairs(kept);
        }
        let text = parsed.as_str();
        // The standard writes an empty path as `/`; a base URL typed without one is kept without.
        return match text.strip_suffix('/') {
            Some(bare) if parsed.path() == "/" && parsed.query().is_none() && !url.trim().ends_with('/') => {
                bare.to_string()
            }
            _ => text.to_string(),
        };
    }
    let cut = text.split(['?', '#']).next().unwrap_or("");
    match cut.rsplit_once('@') {
        Some((before, after)) => match before.find("://") {
            Some(i) => format!("{}{after}", &before[..i + 3]),
            None => after.to_string(),
        },
        None => cut.to_string(),
    }
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

/// Hosts where every account's sites share one origin: `OWNER.github.io/REPO/` and the owner's
/// other Pages sites are one origin to the browser.
/// (`scripts/python_worker_start.js` reads the same list: no saved start there.)
const SHARED_PAGE_HOSTS: &[&str] = &[".github.io", ".gitlab.io"];

/// Why keys are not safe on the page at `page_url`, when it is served from an origin that other
/// sites share (a GitHub or GitLab Pages host): any page of that origin can read what this one
/// keeps (remembered keys, trusted addresses, stored runs, Cache Storage). None elsewhere.
pub fn shared_origin_warning(page_url: &str) -> Option<String> {
    let url = Url::parse(page_url).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let host = host.trim_end_matches('.');
    SHARED_PAGE_HOSTS.iter().find(|suffix| host.ends_with(*suffix))?;
    Some(format!(
        "This page is served from {host}, an origin every site of that account shares: any of them can read the keys remembered here, trust addresses for them, change stored runs and replace the cached app. Do not remember a key here; host execbench on an origin of its own (docs/deploy.md)."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (url, origin, path, loopback) or the start of the error. The rows under "found" are the
    /// cases where the hand-written parser this replaced and the browser's disagreed.
    #[test]
    fn addresses_are_taken_apart() {
        #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
        let cases: &[(&str, Result<(&str, &str, bool), &str>)] = &[
            ("https://api.openai.com/v1", Ok(("https://api.openai.com:443", "/v1", false))),
            ("HTTPS://API.OpenAI.com:443/v1/", Ok(("https://api.openai.com:443", "/v1/", false))),
            ("http://127.0.0.1:8000/v1?x=1#f", Ok(("http://127.0.0.1:8000", "/v1", true))),
            ("http://localhost", Ok(("http://localhost:80", "/", true))),
            ("http://[::1]:11434/v1", Ok(("http://[::1]:11434", "/v1", true))),
            ("http://127.0.0.1.evil.example/v1", Ok(("http://127.0.0.1.evil.example:80", "/v1", false))),
            ("  https://api.openai.com/v1  ", Ok(("https://api.openai.com:443", "/v1", false))),
            // found: a backslash ends the host of an http(s) URL.
            (
                "https://evil.example\\@api.openai.com/v1",
                Ok(("https://evil.example:443", "/@api.openai.com/v1", false)),
            ),
            (
                "https://api.openai.com\\.evil.example/v1",
                Ok(("https://api.openai.com:443", "/.evil.example/v1", false)),
            ),
            // found: IPv4 in other notations, and hosts the standard rewrites.
            ("http://0x7f.1:9/v1", Ok(("http://127.0.0.1:9", "/v1", true))),
            ("http://2130706433/", Ok(("http://127.0.0.1:80", "/", true))),
            ("http://[0:0::1]/", Ok(("http://[::1]:80", "/", true))),
            ("https://API.OPENAI.COM./v1", Ok(("https://api.openai.com.:443", "/v1", false))),
            ("https://b\u{fc}cher.example/", Ok(("https://xn--bcher-kva.example:443", "/", false))),
            ("https://api.openai.com%2Eevil.example/", Ok(("https://api.openai.com.evil.example:443", "/", false))),
            ("https://api.openai.com:/v1", Ok(("https://api.openai.com:443", "/v1", false))),
            ("https:api.openai.com/v1", Ok(("https://api.openai.com:443", "/v1", false))),
            ("https:/\\api.openai.com/v1", Ok(("https://api.openai.com:443", "/v1", false))),
            ("https://api.openai.com#@evil.example/", Ok(("https://api.openai.com:443", "/", false))),
            ("https://api.openai.com?@evil.example/", Ok(("https://api.openai.com:443", "/", false))),
            // refused in words
            ("https://u:p@evil.example/v1", Err("`https://evil.example/v1` carries a user name or password")),
            ("http://localhost@evil.example/", Err("`http://evil.example/` carries a user name or password")),
            ("https://api.openai.com@evil.example/v1", Err("`https://evil.example/v1` carries a user name")),
            ("https://api.openai.com\tx/v1", Err("`https://api.openai.com x/v1` has a tab at character 23")),
            ("https://api.open\nai.com/v1", Err("`https://api.open ai.com/v1` has a line break at character 17")),
            ("https://api.openai.com/v1\n", Err("`https://api.openai.com/v1` has a line break")),
            ("https://a\u{0}b/", Err("`https://a b/` has the control character U+0000")),
            ("ftp://x/", Err("the scheme `ftp`")),
            ("javascript:alert(1)", Err("the scheme `javascript`")),
            ("api.openai.com/v1", Err("`api.openai.com/v1` has no scheme")),
            ("https:///v1", Ok(("https://v1:443", "/", false))),
            ("https://", Err("`https://` is not a valid address: empty host")),
            ("https://h:99999/", Err("`https://h:99999/` is not a valid address: invalid port number")),
            ("http://[::1/", Err("`http://[::1/` is not a valid address: invalid IPv6 address")),
            ("https://exa mple.com/", Err("`https://exa mple.com/` is not a valid address")),
        ];
        for (url, want) in cases {
            match (Address::parse(url), want) {
                (Ok(a), Ok((origin, path, loopback))) => {
                    assert_eq!(
                        (a.origin().as_str(), a.path.as_str(), a.is_loopback()),
                        (*origin, *path, *loopback),
                        "{url:?}"
                    )
                }
                (Err(e), Err(start)) => assert!(e.starts_with(start), "{url:?}: {e}"),
                (got, _) => panic!("{url:?}: {got:?}"),
            }
        }
    }

    /// Requests are built from the canonical URL, so what is appended lands in the path, under
    /// the origin that was checked, and the base's query stays a query.
    #[test]
    fn requests_go_under_the_checked_origin() {
        let cases = [
            ("https://api.openai.com/v1", "/chat/completions", "https://api.openai.com/v1/chat/completions"),
            ("https://api.openai.com/v1/", "/chat/completions", "https://api.openai.com/v1/chat/completions"),
            ("https://api.openai.com", "/v1/x", "https://api.openai.com/v1/x"),
            ("https://evil.example\\@api.openai.com/v1", "/x", "https://evil.example/@api.openai.com/v1/x"),
            (
                "https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
                "/chat/completions",
                "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
            ),
            ("http://0x7f.1:8000/v1#frag", "/models", "http://127.0.0.1:8000/v1/models"),
        ];
        for (base, suffix, want) in cases {
            assert_eq!(Address::parse(base).unwrap().at(suffix), want, "{base}");
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
            ("https://evil.example\\@api.openai.com/v1", "https://evil.example/@api.openai.com/v1"),
            ("HTTPS://API.OpenAI.com", "https://api.openai.com"),
            ("https://u:p@h:99999/v1?key=k", "https://h:99999/v1"),
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
            (
                "openai",
                "https://evil.example\\@api.openai.com/v1",
                false,
                "confirm https://evil.example:443/@api.openai.com/v1",
            ),
            ("openai", "https://api.openai.com\t/v1", false, "refused: base URL"),
            ("openai", "https://sk-x@api.openai.com/v1", false, "refused: base URL"),
        ];
        for (provider, url, allow_http, want) in cases {
            assert_eq!(decide(provider, url, allow_http), want, "{provider} {url}");
        }
    }

    /// (page URL, warned)
    #[test]
    fn pages_on_a_shared_origin_are_warned_about() {
        let cases = [
            ("https://owner.github.io/execbench/", true),
            ("https://owner.github.io/execbench/#/evaluate", true),
            ("https://OWNER.GITHUB.IO./execbench/", true),
            ("https://owner.github.io/", true),
            ("https://group.gitlab.io/execbench/", true),
            ("https://execbench.example/", false),
            ("https://github.io.example/x/", false),
            ("http://127.0.0.1:8080/", false),
            ("file:///tmp/index.html", false),
            ("not a url", false),
        ];
        for (page, warned) in cases {
            assert_eq!(shared_origin_warning(page).is_some(), warned, "{page}");
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
