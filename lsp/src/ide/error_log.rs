//! Feature: reading httpd error-log lines (the refusals people paste when they ask "why 403?").
//!
//! Understands the default 2.4 format (`server/log.c: do_errorlog_default`):
//! `[time] [module:level] [pid P:tid T] [(errno)text: ][client IP:port] AHnnnnn: message[, referer: R]`
//! (also `[remote …]`, IPv6 clients written `[client ::1:port]`, no client part at all, no tid),
//! and 2.2's `[time] [level] [client IP] message`. The message was escaped by
//! `ap_escape_errorlog_item` (`\xHH` for bytes outside printable ASCII, `\\`, `\n`…), so a path
//! with non-ASCII characters is unescaped here.
//!
//! Invariants: pure text processing, no IO, never panics on any input.

use std::net::IpAddr;
use std::path::PathBuf;

/// The access-control layer an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LogLayer {
    /// mod_access_compat's host check (Order/Allow/Deny): AH01797.
    AccessCompat,
    /// mod_authz_core's Require evaluation (AH01630, AH01631, AH01629, AH01627, AH01753…).
    AuthzCore,
    /// Authentication (mod_auth_basic, mod_authn_file, mod_authn_core…).
    Authn,
    /// The core: requests needing a user without authentication (AH00027/AH00028), `.htaccess`
    /// errors.
    Core,
    /// An entry that is not one of the above (or a 2.2 line, which does not say).
    Unknown,
}

impl LogLayer {
    pub fn describe(self) -> &'static str {
        match self {
            LogLayer::AccessCompat => "mod_access_compat (Order/Allow/Deny)",
            LogLayer::AuthzCore => "mod_authz_core (Require)",
            LogLayer::Authn => "authentication",
            LogLayer::Core => "core",
            LogLayer::Unknown => "unknown layer",
        }
    }
}

/// What the entry names: a file-system path (`r->filename`) or a URL (`r->uri`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Path(PathBuf),
    Url(String),
}

/// One parsed error-log line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub time: Option<String>,
    /// `authz_core`; None for 2.2 lines.
    pub module: Option<String>,
    pub level: Option<String>,
    pub client: Option<IpAddr>,
    pub client_port: Option<u16>,
    /// `AH01630`.
    pub ah_code: Option<String>,
    /// The message after the code, unescaped.
    pub message: String,
    pub target: Option<Target>,
    /// The user the entry names (AH01631, AH01617, AH01618).
    pub user: Option<String>,
    pub referer: Option<String>,
    pub layer: LogLayer,
}

impl LogLine {
    /// An entry httpd writes when it refuses a request (or answers 500 for its configuration).
    pub fn is_refusal(&self) -> bool {
        match self.ah_code.as_deref() {
            Some(c) => REFUSALS.iter().any(|(code, _)| *code == c),
            None => {
                self.message.starts_with("client denied by server configuration")
                    || (self.module.as_deref() == Some("core") && self.message.contains(" not allowed "))
            }
        }
    }
}

/// The codes of refusals, with their layer.
const REFUSALS: &[(&str, LogLayer)] = &[
    ("AH01797", LogLayer::AccessCompat),
    ("AH01630", LogLayer::AuthzCore),
    ("AH01631", LogLayer::AuthzCore),
    ("AH01629", LogLayer::AuthzCore),
    ("AH01627", LogLayer::AuthzCore),
    ("AH01753", LogLayer::AuthzCore),
    ("AH01614", LogLayer::Authn),
    ("AH01615", LogLayer::Authn),
    ("AH01616", LogLayer::Authn),
    ("AH01617", LogLayer::Authn),
    ("AH01618", LogLayer::Authn),
    ("AH01619", LogLayer::Authn),
    ("AH01796", LogLayer::Authn),
    ("AH00027", LogLayer::Core),
    ("AH00028", LogLayer::Core),
];

/// A message as httpd writes it to the error log (`ap_escape_errorlog_item`): bytes outside
/// printable ASCII as `\xhh` (lowercase), `\n` `\r` `\t` `\b` `\v` for those controls, a
/// backslash doubled; a double quote is left as it is. [`unescape`] undoes it.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            8 => out.push_str("\\b"),
            11 => out.push_str("\\v"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = std::fmt::Write::write_fmt(&mut out, format_args!("\\x{b:02x}"));
            }
        }
    }
    out
}

/// `ap_escape_errorlog_item` undone: `\xHH`, `\\`, `\n`, `\r`, `\t`, `\b`, `\v`; bytes, then
/// UTF-8 (invalid sequences replaced).
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let hex = |j: usize| b.get(j).and_then(|c| (*c as char).to_digit(16));
            match b[i + 1] {
                b'x' => {
                    if let (Some(h), Some(l)) = (hex(i + 2), hex(i + 3)) {
                        out.push((h * 16 + l) as u8);
                        i += 4;
                        continue;
                    }
                }
                b'\\' => {
                    out.push(b'\\');
                    i += 2;
                    continue;
                }
                c @ (b'n' | b'r' | b't' | b'b' | b'v') => {
                    out.push(match c {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'b' => 8,
                        _ => 11,
                    });
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Takes a leading `[…]` group off `s`.
fn bracket(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    let rest = s.strip_prefix('[')?;
    let end = rest.find(']')?;
    Some((&rest[..end], &rest[end + 1..]))
}

/// `IP:port` as httpd writes it (IPv6 without brackets: `::1:53442`), or a bare IP (2.2).
fn client_addr(s: &str) -> (Option<IpAddr>, Option<u16>) {
    let s = s.trim();
    if let Ok(ip) = s.parse::<IpAddr>() {
        // A bare address (2.2), unless it is an IPv6 address whose last group is the port: httpd
        // always writes the port in 2.4, so prefer splitting when the rest still parses.
        if let Some((a, p)) = s.rsplit_once(':') {
            if let (Ok(ip6), Ok(port)) = (a.parse::<IpAddr>(), p.parse::<u16>()) {
                if ip.is_ipv6() && a.contains(':') {
                    return (Some(ip6), Some(port));
                }
            }
        }
        return (Some(ip), None);
    }
    if let Some((a, p)) = s.rsplit_once(':') {
        let a = a.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = a.parse::<IpAddr>() {
            return (Some(ip), p.parse().ok());
        }
    }
    (None, None)
}

fn is_level(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    matches!(l.as_str(), "emerg" | "alert" | "crit" | "error" | "warn" | "notice" | "info" | "debug")
        || (l.starts_with("trace") && l.len() == 6)
}

/// Parses one line; None when it is not an error-log entry.
pub fn parse_line(line: &str) -> Option<LogLine> {
    let line = line.trim_end_matches(['\r', '\n']);
    let mut rest = line;
    let mut time = None;
    let mut module = None;
    let mut level = None;
    let mut client = None;
    let mut client_port = None;
    // Leading bracket groups, in whatever subset the format has.
    while let Some((inner, after)) = bracket(rest) {
        let inner_t = inner.trim();
        if let Some((m, l)) = inner_t.split_once(':').filter(|(m, l)| !m.contains(' ') && is_level(l)) {
            module = Some(m.to_string());
            level = Some(l.to_string());
        } else if is_level(inner_t) {
            level = Some(inner_t.to_string());
        } else if inner_t.starts_with("pid ") {
            // The process and thread: nothing to learn.
        } else if let Some(c) = inner_t.strip_prefix("client ").or_else(|| inner_t.strip_prefix("remote ")) {
            (client, client_port) = client_addr(c);
        } else if time.is_none() && module.is_none() && level.is_none() {
            time = Some(inner_t.to_string());
        } else {
            break;
        }
        rest = after;
        if client.is_some() {
            break;
        }
    }
    if time.is_none() && level.is_none() && module.is_none() && client.is_none() {
        return None;
    }
    let mut msg = rest.trim_start();
    // `(13)Permission denied: ` (an APR status) and a client part after it.
    if msg.starts_with('(') {
        if let Some(p) = msg.find(": ") {
            msg = msg[p + 2..].trim_start();
        }
        if client.is_none() {
            if let Some((inner, after)) = bracket(msg) {
                if let Some(c) = inner.strip_prefix("client ").or_else(|| inner.strip_prefix("remote ")) {
                    (client, client_port) = client_addr(c);
                    msg = after.trim_start();
                }
            }
        }
    }
    let mut referer = None;
    if let Some(p) = msg.rfind(", referer: ") {
        referer = Some(unescape(&msg[p + ", referer: ".len()..]));
        msg = &msg[..p];
    }
    let (ah_code, body) = match msg.split_once(": ") {
        Some((c, b)) if c.len() == 7 && c.starts_with("AH") && c[2..].bytes().all(|d| d.is_ascii_digit()) => {
            (Some(c.to_string()), b)
        }
        _ => (None, msg),
    };
    let message = unescape(body);
    let layer = match &ah_code {
        Some(c) => REFUSALS.iter().find(|(code, _)| code == c).map(|(_, l)| *l).unwrap_or(LogLayer::Unknown),
        None if module.as_deref() == Some("core") && message.contains(" not allowed ") => LogLayer::Core,
        None => LogLayer::Unknown,
    };
    let (target, user) = target_of(ah_code.as_deref(), &message);
    Some(LogLine { time, module, level, client, client_port, ah_code, message, target, user, referer, layer })
}

/// The path or URL (and the user) a message names.
pub fn target_of(code: Option<&str>, m: &str) -> (Option<Target>, Option<String>) {
    let path_or_uri = |s: &str| {
        let s = s.trim();
        match s.strip_prefix("uri ") {
            Some(u) => Some(Target::Url(u.to_string())),
            None if s.starts_with('/') => Some(Target::Path(PathBuf::from(s))),
            None => None,
        }
    };
    if let Some(p) = m.strip_prefix("client denied by server configuration: ") {
        return (path_or_uri(p), None);
    }
    let quoted = |s: &str| s.split_once('"').and_then(|(_, r)| r.rsplit_once('"')).map(|(u, _)| u.to_string());
    match code {
        Some("AH01631") | Some("AH01617") => {
            // user NAME: authori[sz]ation/authentication failure for "URI": …
            let user = m.strip_prefix("user ").and_then(|r| r.split_once(": ")).map(|(u, _)| u.to_string());
            (quoted(m).map(Target::Url), user)
        }
        Some("AH01618") => {
            // user NAME not found: URI
            let (u, uri) = m.strip_prefix("user ").and_then(|r| r.split_once(" not found: ")).unzip();
            (uri.map(|u| Target::Url(u.trim().to_string())), u.map(str::to_string))
        }
        Some("AH01629") | Some("AH01614") | Some("AH01615") => {
            (m.rsplit_once(": ").map(|(_, u)| Target::Url(u.trim().to_string())), None)
        }
        Some("AH00027") | Some("AH00028") => (
            m.split_once(" for ")
                .and_then(|(_, r)| r.split_once(". Authentication not configured?"))
                .map(|(u, _)| Target::Url(u.to_string())),
            None,
        ),
        Some("AH01753") => (
            m.split_once("' to ").and_then(|(_, r)| r.split_once(" failed,")).map(|(u, _)| Target::Url(u.to_string())),
            None,
        ),
        // `.htaccess` errors: "<file>: <message>".
        None => {
            (m.split_once(": ").filter(|(f, _)| f.starts_with('/')).map(|(f, _)| Target::Path(PathBuf::from(f))), None)
        }
        _ => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(line: &str, expect: Expect) {
        expect.assert_debug_eq(&parse_line(line));
    }

    #[test]
    fn default_24_format_with_client() {
        check(
            "[Sun Nov 22 09:42:52.547622 2026] [authz_core:error] [pid 3616:tid 3616] [client 127.0.0.1:50592] AH01630: client denied by server configuration: /srv/www/sub/index.html",
            expect![[r#"
                Some(
                    LogLine {
                        time: Some(
                            "Sun Nov 22 09:42:52.547622 2026",
                        ),
                        module: Some(
                            "authz_core",
                        ),
                        level: Some(
                            "error",
                        ),
                        client: Some(
                            127.0.0.1,
                        ),
                        client_port: Some(
                            50592,
                        ),
                        ah_code: Some(
                            "AH01630",
                        ),
                        message: "client denied by server configuration: /srv/www/sub/index.html",
                        target: Some(
                            Path(
                                "/srv/www/sub/index.html",
                            ),
                        ),
                        user: None,
                        referer: None,
                        layer: AuthzCore,
                    },
                )
            "#]],
        );
    }

    fn brief(line: &str) -> String {
        match parse_line(line) {
            None => "not a log line".into(),
            Some(l) => format!(
                "{:?} {:?} client={:?}:{:?} code={:?} target={:?} user={:?} referer={:?} refusal={}",
                l.layer,
                l.module,
                l.client,
                l.client_port,
                l.ah_code,
                l.target,
                l.user,
                l.referer,
                l.is_refusal()
            ),
        }
    }

    #[test]
    fn variants() {
        let lines = [
            // IPv6 client, no tid, a referer.
            "[Mon Jan 01 00:00:00.000000 2024] [access_compat:error] [pid 12] [client ::1:53442] AH01797: client denied by server configuration: /var/www/html/server-status, referer: http://x/",
            // No client part.
            "[access_compat:error] [pid 12:tid 13] AH01797: client denied by server configuration: /var/www/html/a",
            // 2.2.
            "[Wed Oct 11 14:32:52 2000] [error] [client 127.0.0.1] client denied by server configuration: /export/home/live/ap/htdocs/test",
            // A user, a URL.
            "[x] [authz_core:error] [pid 1:tid 1] [client 127.0.0.2:1] AH01631: user alice: authorization failure for \"/private/\": ",
            "[x] [auth_basic:error] [pid 1:tid 1] [client 127.0.0.2:1] AH01617: user bob: authentication failure for \"/a b\": Password Mismatch",
            "[x] [auth_basic:error] [pid 1:tid 1] [client 127.0.0.2:1] AH01618: user eve not found: /secret/",
            "[x] [core:error] [pid 1:tid 1] [client 127.0.0.2:1] AH00027: No authentication done but request not allowed without authentication for /x. Authentication not configured?",
            // An .htaccess error (alert, no code).
            "[x] [core:alert] [pid 1:tid 1] [client 127.0.0.1:5] /srv/www/sub/.htaccess: Order not allowed here",
            // Something else.
            "[x] [mpm_prefork:notice] [pid 1] AH00163: Apache/2.4.71 (Debian) configured -- resuming normal operations",
            "[x] [core:error] [pid 1:tid 1] (13)Permission denied: [client 127.0.0.1:9] AH00035: access to /x denied",
            "uri uri",
            "",
            "[unterminated",
            // A mapped filename-less refusal (proxy): httpd says "uri".
            "[x] [authz_core:error] [pid 1:tid 1] [client 10.0.0.1:9] AH01630: client denied by server configuration: uri /proxied",
        ];
        let out: Vec<String> = lines.iter().map(|l| brief(l)).collect();
        expect![[r#"
            AccessCompat Some("access_compat") client=Some(::1):Some(53442) code=Some("AH01797") target=Some(Path("/var/www/html/server-status")) user=None referer=Some("http://x/") refusal=true
            AccessCompat Some("access_compat") client=None:None code=Some("AH01797") target=Some(Path("/var/www/html/a")) user=None referer=None refusal=true
            Unknown None client=Some(127.0.0.1):None code=None target=Some(Path("/export/home/live/ap/htdocs/test")) user=None referer=None refusal=true
            AuthzCore Some("authz_core") client=Some(127.0.0.2):Some(1) code=Some("AH01631") target=Some(Url("/private/")) user=Some("alice") referer=None refusal=true
            Authn Some("auth_basic") client=Some(127.0.0.2):Some(1) code=Some("AH01617") target=Some(Url("/a b")) user=Some("bob") referer=None refusal=true
            Authn Some("auth_basic") client=Some(127.0.0.2):Some(1) code=Some("AH01618") target=Some(Url("/secret/")) user=Some("eve") referer=None refusal=true
            Core Some("core") client=Some(127.0.0.2):Some(1) code=Some("AH00027") target=Some(Url("/x")) user=None referer=None refusal=true
            Core Some("core") client=Some(127.0.0.1):Some(5) code=None target=Some(Path("/srv/www/sub/.htaccess")) user=None referer=None refusal=true
            Unknown Some("mpm_prefork") client=None:None code=Some("AH00163") target=None user=None referer=None refusal=false
            Unknown Some("core") client=Some(127.0.0.1):Some(9) code=Some("AH00035") target=None user=None referer=None refusal=false
            not a log line
            not a log line
            not a log line
            AuthzCore Some("authz_core") client=Some(10.0.0.1):Some(9) code=Some("AH01630") target=Some(Url("/proxied")) user=None referer=None refusal=true
        "#]]
        .assert_eq(&(out.join("\n") + "\n"));
    }

    #[test]
    fn non_ascii_paths_are_unescaped() {
        let l = parse_line(
            "[x] [authz_core:error] [pid 1:tid 1] [client 127.0.0.1:1] AH01630: client denied by server configuration: /srv/www/caf\\xc3\\xa9/\\xe6\\x97\\xa5\\xe6\\x9c\\xac.html",
        )
        .unwrap();
        assert_eq!(l.target, Some(Target::Path(PathBuf::from("/srv/www/café/日本.html"))));
        // Already unescaped (pasted from a viewer that decoded it): kept.
        let l = parse_line("[x] [access_compat:error] [pid 1] [client 127.0.0.1:1] AH01797: client denied by server configuration: /srv/www/Ünïcödé").unwrap();
        assert_eq!(l.target, Some(Target::Path(PathBuf::from("/srv/www/Ünïcödé"))));
        // Escapes of backslash and quote, and a lone backslash.
        assert_eq!(unescape(r"a\\b\x41\q\"), "a\\bA\\q\\");
        assert_eq!(unescape(r"\xZZ\x4"), r"\xZZ\x4");
    }

    #[test]
    fn escaping_is_what_httpd_writes_and_unescape_undoes_it() {
        let raw = "/srv/nb\u{a0}/a\\b \"q\"\t\u{7f}é";
        assert_eq!(escape(raw), r#"/srv/nb\xc2\xa0/a\\b "q"\t\x7f\xc3\xa9"#);
        assert_eq!(unescape(&escape(raw)), raw);
    }

    #[test]
    fn garbage_never_panics() {
        for s in ["[", "]", "[]", "[[]]", "[a:b] [", "[client ]", "[client :::::] x", "[x] \\x", "[x] AH: ", "[x] (x"] {
            let _ = parse_line(s);
        }
    }
}
