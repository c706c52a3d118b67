//! Address strings for the differential test of where a key goes (`e2e_keys`): the pieces an
//! attacker or a slip of the keyboard puts into a base URL, combined. Every combination of the
//! short lists, then seeded random draws from the longer ones, so a run sees thousands of
//! different strings and the same ones every time.

/// Schemes and what follows them (`https:\\host` and `https:/\host` are one URL to the standard).
const SCHEMES: &[&str] = &[
    "https://",
    "http://",
    "HTTPS://",
    "hTtP://",
    "https:",
    "https:/",
    "https:\\\\",
    "https:/\\",
    "https:///",
    "ftp://",
    "javascript:",
];
/// What may stand before a host: userinfo in every form, and text meant to look like it.
const USERINFO: &[&str] = &[
    "",
    "@",
    "u@",
    "u:p@",
    ":@",
    "sk-key@",
    "a@b@",
    "api.openai.com@",
    "evil.example\\@",
    "evil.example%40",
    "evil.example%5C@",
    "u:p%40x@",
    "evil.example#@",
    "evil.example?@",
    "evil.example/@",
    "127.0.0.1:9\\@",
];
const HOSTS: &[&str] = &[
    "api.openai.com",
    "API.OpenAI.COM",
    "api.openai.com.",
    "evil.example",
    "127.0.0.1",
    "127.1",
    "0x7f.1",
    "0x7f000001",
    "2130706433",
    "0177.0.0.1",
    "127.0.0.01",
    "0.0.0.0",
    "[::1]",
    "[0:0::1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "localhost",
    "LOCALHOST",
    "a.localhost",
    "localhost.evil.example",
    "b\u{fc}cher.example",
    "xn--bcher-kva.example",
    "\u{ff41}pi.example",
    "api.openai.com%2eevil.example",
    "ex%41mple.com",
    "a..b",
    ".example",
    "exa mple",
    "",
    "api\u{3002}openai\u{3002}com",
    "xn--",
    "256.1.1.1",
    "1.2.3",
    "[::1",
    "\u{2100}.example",
    "a%00b",
];
const PORTS: &[&str] = &["", ":", ":443", ":80", ":8080", ":0", ":65535", ":65536", ":08080", ":-1", ":x", ":443:80"];
const TAILS: &[&str] = &[
    "",
    "/",
    "/v1",
    "/v1/",
    "\\v1",
    "?x=1",
    "#f",
    "\\@api.openai.com/v1",
    "@api.openai.com/v1",
    "/%2e%2e/v1",
    ";x",
    "/v1?api-version=2024-10-21",
    "/./v1/../v2",
    "\\\\evil.example/v1",
    "/v1#@evil.example",
    " /v1",
    "\t/v1",
    "/v1\n",
    "%20/v1",
];

/// Every scheme, userinfo and host with a few ports and tails, then `random` more drawn from all
/// the lists with a fixed seed.
pub fn addresses(random: usize) -> Vec<String> {
    let mut out = Vec::new();
    for scheme in SCHEMES {
        for user in USERINFO {
            for host in HOSTS {
                for (port, tail) in [("", "/v1"), (":8443", ""), ("", "\\@api.openai.com/v1")] {
                    out.push(format!("{scheme}{user}{host}{port}{tail}"));
                }
            }
        }
    }
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut pick = |n: usize| {
        // xorshift64*: fixed, dependency-free, good enough to spread the draws.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    };
    for _ in 0..random {
        let mut s = String::new();
        s.push_str(SCHEMES[pick(SCHEMES.len())]);
        // Sometimes two userinfo pieces, sometimes a tail before the host too.
        for _ in 0..1 + pick(2) {
            s.push_str(USERINFO[pick(USERINFO.len())]);
        }
        s.push_str(HOSTS[pick(HOSTS.len())]);
        s.push_str(PORTS[pick(PORTS.len())]);
        for _ in 0..pick(3) {
            s.push_str(TAILS[pick(TAILS.len())]);
        }
        out.push(s);
    }
    out.sort();
    out.dedup();
    out
}
