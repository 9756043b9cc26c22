//! From a request's URL and Host to the server and file that serve it: the virtual host
//! picked by address and name, the URL normalised as httpd does before walking, and its
//! translation to a file system path through the Alias family or DocumentRoot.

use super::fs::path_text;
use super::patterns::with_regex;
use super::userdir::UserDirMap;
use crate::ide::config::index::{AliasLine, Scope};
use crate::ide::config::{Config, Index, Node, NodeKind};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// The main server's level and, when the request went to a virtual host, the host's.
pub(super) struct Server<'a> {
    pub(super) main: &'a Scope,
    pub(super) vhost: Option<&'a Scope>,
}

impl<'a> Server<'a> {
    /// The scopes in the order httpd merges sections: the main server's, then the vhost's.
    pub(super) fn scopes(&self) -> impl Iterator<Item = &'a Scope> {
        std::iter::once(self.main).chain(self.vhost)
    }
    /// mod_alias's list of aliases for this server ([`Scope::aliases`]): the virtual host's own
    /// lines first, then the main server's (`merge_alias_config` appends the base server's list
    /// to the virtual host's), each in configuration order, `Alias`, `ScriptAlias`, `AliasMatch`
    /// and `ScriptAliasMatch` alike.
    fn aliases(&self) -> impl Iterator<Item = &'a AliasLine> {
        self.vhost.into_iter().flat_map(|v| v.aliases.iter()).chain(self.main.aliases.iter())
    }
    /// Whether httpd merges runs of `/` in the request's path before the walk (`MergeSlashes`:
    /// the virtual host's, else the main server's; on by default).
    pub(super) fn merge_slashes(&self) -> bool {
        self.vhost.and_then(|v| v.merge_slashes).or(self.main.merge_slashes).unwrap_or(true)
    }
    /// The request's path as regexes see it (`r->uri`): `url`, the normalised `path`, except
    /// under `MergeSlashes Off` ([`unmerged_url`]).
    pub(super) fn regex_url(&self, path: &str, url: &str) -> String {
        if self.merge_slashes() {
            url.to_string()
        } else {
            unmerged_url(path)
        }
    }
}

pub(crate) fn vhost_label(n: &Node) -> String {
    let names: Vec<&str> = n
        .children
        .iter()
        .filter(|c| c.kind == NodeKind::Directive && (c.is("ServerName") || c.is("ServerAlias")))
        .flat_map(|c| c.args())
        .collect();
    match names.first() {
        Some(first) => format!("{} ({first})", n.args().join(" ")),
        None => n.args().join(" "),
    }
}

/// The port of a `Listen` directive's first word (`80`, `127.0.0.1:8080`, `[::1]:8080`).
pub fn listen_word_port(arg: &str) -> Option<u16> {
    let port = match arg.strip_prefix('[') {
        Some(v6) => v6.split_once("]:").map(|(_, p)| p),
        None => Some(arg.rsplit_once(':').map_or(arg, |(_, p)| p)),
    };
    port?.parse().ok()
}

/// One address of a `<VirtualHost>`: IP (None = `*` / `_default_`) and port (0 = any).
/// `Err` holds a host name (resolved by httpd at startup; not by us).
pub fn vhost_address(arg: &str) -> Result<(Option<IpAddr>, u16), String> {
    // server/vhost.c: get_addresses. ":*" (or a lone "*") is a wildcard port.
    let (w, wild_port) = match arg.strip_suffix(":*") {
        Some(w) => (w, true),
        None => (arg, false),
    };
    let (host, port) = if let Some(rest) = w.strip_prefix('[') {
        match rest.split_once(']') {
            Some((h, p)) => (h, p.strip_prefix(':')),
            None => (rest, None),
        }
    } else if w.matches(':').count() > 1 {
        (w, None)
    } else {
        match w.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (w, None),
        }
    };
    let port = match port {
        Some(p) if !wild_port => p.parse::<u16>().map_err(|_| arg.to_string())?,
        _ => 0,
    };
    if host == "*" || host.eq_ignore_ascii_case("_default_") {
        return Ok((None, port));
    }
    host.parse::<IpAddr>().map(|ip| (Some(ip), port)).map_err(|_| host.to_string())
}

/// What is known of the connection a request came on, for picking its virtual host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Nothing: every virtual host is a candidate.
    Unknown,
    /// Its address family only (that of the address given): the port is not known.
    Family(IpAddr),
    /// The server-side address and port.
    Known(IpAddr, u16),
}

impl Connection {
    /// The connection `r` came on, as far as it says ([`crate::ide::policy::Request::local_port`],
    /// [`crate::ide::policy::Request::local_family_known`]).
    pub fn of(r: &crate::ide::policy::Request) -> Connection {
        match (r.local_port, r.local_family_known) {
            (Some(p), _) => Connection::Known(r.local_addr, p),
            (None, true) => Connection::Family(r.local_addr),
            (None, false) => Connection::Unknown,
        }
    }
}

impl From<Option<(IpAddr, u16)>> for Connection {
    fn from(local: Option<(IpAddr, u16)>) -> Connection {
        local.map_or(Connection::Unknown, |(a, p)| Connection::Known(a, p))
    }
}

/// Picks the virtual host. With a known server port, first the set of virtual hosts for the
/// connection's address (`server/vhost.c: ap_update_vhost_given_ip`, `find_ipaddr`,
/// `find_default_server`: those listening on exactly that address and port, else on that
/// address with any port, else the `*`/`_default_` ones for that port, else for any port;
/// none → the main server). Then by name when `host` matches a ServerName/ServerAlias, else
/// the first of the set (the default one for its address). Without a known port every
/// virtual host is a candidate, except, where the connection's address family is known, those
/// that cannot take a connection of that family ([`crate::ide::config::index::VirtualHost::takes_family_of`]).
pub(super) fn pick_vhost(ix: &Index, host: Option<&str>, local: Connection, unknown: &mut Vec<String>) -> Option<u32> {
    let set = match local {
        Connection::Known(addr, port) => {
            unknown.extend(ix.host_addresses.iter().cloned());
            Some(ix.vhosts_for_address(addr, port))
        }
        Connection::Family(addr) => ix.vhosts_of_family(addr),
        Connection::Unknown => None,
    };
    if let Some(h) = host {
        if let Some(v) = ix.vhost_by_name(h, set.as_deref().map(Vec::as_slice)) {
            return Some(v);
        }
    }
    match set {
        Some(s) => s.first().copied(),
        None => (!ix.vhosts.is_empty()).then_some(0),
    }
}

/// URL path → file system path, through Alias/AliasMatch/ScriptAlias, mod_userdir or
/// DocumentRoot. `url` is the normalised path, `regex_url` the one regexes see ([`Server::regex_url`]).
/// When the mapping cannot be told (a user's home directory, a redirect), why is put in `unknown`.
pub(super) fn translate(
    server: &Server,
    cfg: &Config,
    (url, regex_url): (&str, &str),
    unknown: &mut Vec<String>,
) -> PathBuf {
    let p = translate_as_written(server, cfg, (url, regex_url), unknown);
    // The directory walk starts by making the name canonical (`apr_filepath_merge`): an Alias
    // target ending in `/` before a rest starting with one gives `//`, walked as one `/`.
    match path_text(&p) {
        t if t.contains("//") => {
            let mut out = String::with_capacity(t.len());
            for c in t.chars() {
                if !(c == '/' && out.ends_with('/')) {
                    out.push(c);
                }
            }
            PathBuf::from(out)
        }
        _ => p,
    }
}

/// Where mod_userdir redirects `url` (a `UserDir` naming a URL), where no Alias of mod_alias
/// maps it first.
pub(super) fn userdir_redirect(server: &Server, cfg: &Config, path: &str) -> Option<String> {
    let url = normalize_url(path);
    let aliased = alias_of(server, (&url, &server.regex_url(path, &url))).is_some();
    let url = url.as_str();
    match super::userdir::map(server, cfg, url) {
        UserDirMap::Redirect(to) if !aliased => Some(to),
        _ => None,
    }
}

/// The alias of mod_alias that maps `url`, with the file name it gives: the first entry of the
/// server's list that matches (`try_alias_list`), whatever its kind. A `ScriptAlias
/// /nagios/cgi-bin` written before `Alias /nagios` maps /nagios/cgi-bin/x, and one written after
/// it never matches (httpd warns of it, AH00671).
fn alias_of<'a>(server: &Server<'a>, (url, regex_url): (&str, &str)) -> Option<(&'a AliasLine, String)> {
    server.aliases().find_map(|alias| {
        let text = if alias.kind.is_regex() { regex_url } else { url };
        Some((alias, alias_target(alias, text)?))
    })
}

/// The file name one alias gives `url`, where it matches it.
pub(crate) fn alias_target(alias: &AliasLine, url: &str) -> Option<String> {
    if !alias.kind.is_regex() {
        return alias_match(url, &alias.from).map(|rest| format!("{}{rest}", alias.to));
    }
    with_regex(&alias.from, false, |r| {
        r.captures(url.as_bytes())
            .filter(|caps| !caps.is_empty())
            .map(|caps| crate::ide::pcre_match::pregsub(&alias.to, url.as_bytes(), &caps))
    })
    .flatten()
}

/// The `ScriptAlias` or `ScriptAliasMatch` line (as written) that maps `url`, where one does:
/// mod_alias gives the request the handler `cgi-script` at translate_name.
pub(super) fn script_alias(server: &Server, path: &str) -> Option<String> {
    let url = normalize_url(path);
    let (alias, _) = alias_of(server, (&url, &server.regex_url(path, &url)))?;
    alias.kind.is_script().then(|| format!("{} {} {}", alias.kind.name(), alias.from, alias.to))
}

/// The file name mod_alias, mod_userdir or core's translate_name gives `url`, as written.
fn translate_as_written(server: &Server, cfg: &Config, urls: (&str, &str), unknown: &mut Vec<String>) -> PathBuf {
    let url = urls.0;
    if let Some((_, out)) = alias_of(server, urls) {
        return PathBuf::from(out);
    }
    match super::userdir::map(server, cfg, url) {
        UserDirMap::File(p) => return p,
        UserDirMap::Unknown(why) => unknown.push(why),
        // (Answered before the walk: crate::ide::alias_redirect::at_translate_name.)
        UserDirMap::Redirect(to) => unknown.push(format!("mod_userdir redirects {url} to {to} (302)")),
        UserDirMap::Declined => {}
    }
    let root = document_root(server, cfg);
    let root = path_text(&root);
    PathBuf::from(format!("{}{url}", root.trim_end_matches('/')))
}

/// The server's DocumentRoot (the virtual host's, else the main server's, else httpd's
/// compiled-in default), relative to the ServerRoot when written relative.
pub(super) fn document_root(server: &Server, cfg: &Config) -> PathBuf {
    let root = server
        .vhost
        .and_then(|v| v.document_root.clone())
        .or_else(|| server.main.document_root.clone())
        .unwrap_or_else(|| "/var/www/html".to_string());
    if Path::new(&root).is_absolute() {
        PathBuf::from(root)
    } else {
        cfg.server_root.join(root)
    }
}

/// mod_alias's `alias_matches`: segment-wise prefix match where runs of `/` match
/// each other; returns the rest of the URL.
pub(crate) fn alias_match<'u>(url: &'u str, alias: &str) -> Option<&'u str> {
    let (u, a) = (url.as_bytes(), alias.as_bytes());
    let (mut i, mut j) = (0, 0);
    while j < a.len() {
        if a[j] == b'/' {
            if i >= u.len() || u[i] != b'/' {
                return None;
            }
            while j < a.len() && a[j] == b'/' {
                j += 1;
            }
            while i < u.len() && u[i] == b'/' {
                i += 1;
            }
        } else {
            if i >= u.len() || u[i] != a[j] {
                return None;
            }
            i += 1;
            j += 1;
        }
    }
    if a.last() != Some(&b'/') && i < u.len() && u[i] != b'/' {
        return None;
    }
    Some(&url[i..])
}

/// `AllowEncodedSlashes` in effect for a request (the server's or the virtual host's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodedSlashes {
    /// The default: a `%2F` in the path is answered 404.
    Off,
    On,
    /// Accepted and left encoded.
    NoDecode,
}

/// Why httpd answers a request target before walking any section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    /// 400: a `..` that climbs above the root, or a `%` not followed by two hex digits
    /// (`ap_normalize_path`; logged as AH10244 "invalid URI path").
    InvalidPath,
    /// 404: `%2F` under `AllowEncodedSlashes Off` (logged at info level, AH00026).
    EncodedSlash,
    /// 404: `%00`.
    EncodedNul,
    /// TRACE, which http_core answers from its map_to_storage hook (`ap_send_http_trace`),
    /// before the directory walk and the access checks: 200 (echoed) under `TraceEnable On` or
    /// `Extended` (the default is On), 405 under `TraceEnable Off`.
    Trace { enabled: bool },
    /// 414: a request line longer than the main server's `LimitRequestLine` (8190 by default),
    /// refused while it is read, before any virtual host is chosen.
    LineTooLong { limit: usize },
    /// 400: CONNECT with a target that is not `host:port` (`apr_uri_parse_hostinfo` fails
    /// on a path, `ap_parse_uri`).
    ConnectTarget,
    /// 400: a target holding `#` (a fragment) under `HttpProtocolOptions Strict`, the default
    /// (`ap_parse_request_line`, AH02421); clients never send one.
    Fragment,
}

impl Rejected {
    pub fn status(self) -> u16 {
        match self {
            Rejected::InvalidPath | Rejected::ConnectTarget | Rejected::Fragment => 400,
            Rejected::EncodedSlash | Rejected::EncodedNul => 404,
            Rejected::Trace { enabled: true } => 200,
            Rejected::Trace { enabled: false } => 405,
            Rejected::LineTooLong { .. } => 414,
        }
    }
}

/// What httpd does with a request target's path before the walk (`server/request.c:
/// ap_process_request_internal`): `ap_normalize_path` with `AP_NORMALIZE_NOT_ABOVE_ROOT`,
/// `AP_NORMALIZE_DECODE_UNRESERVED` (and merging slashes), whose failure is a 400; then
/// `ap_unescape_url_ex`, a 400 for a bad escape, a 404 for `%00` or, without
/// AllowEncodedSlashes, `%2F`. None when the request goes on to the walk. `raw` is the target's
/// path as sent (a query or fragment is not part of it).
pub fn rejected_target(raw: &str, slashes: EncodedSlashes) -> Option<Rejected> {
    let path = raw.split(['?', '#']).next().unwrap_or("");
    let mut p = path.as_bytes().to_vec();
    if !normalize_path(&mut p) {
        return Some(Rejected::InvalidPath);
    }
    // `unescape_url` with AP_UNESCAPE_URL_KEEP_UNRESERVED (already decoded) and
    // FORBID_SLASHES (Off) or KEEP_SLASHES (NoDecode): a bad escape wins over a bad path.
    let (mut bad_escape, mut bad_path) = (false, None);
    let mut i = 0;
    while let Some(at) = p[i..].iter().position(|&b| b == b'%').map(|k| k + i) {
        match (p.get(at + 1).copied().and_then(hex), p.get(at + 2).copied().and_then(hex)) {
            (Some(h), Some(l)) => match h * 16 + l {
                0 => bad_path = bad_path.or(Some(Rejected::EncodedNul)),
                b'/' if slashes == EncodedSlashes::Off => bad_path = bad_path.or(Some(Rejected::EncodedSlash)),
                _ => {}
            },
            _ => bad_escape = true,
        }
        i = at + 1;
    }
    if bad_escape {
        Some(Rejected::InvalidPath)
    } else {
        bad_path
    }
}

fn hex(b: u8) -> Option<u8> {
    char::from(b).to_digit(16).map(|d| d as u8)
}

/// `server/util.c: ap_normalize_path` with NOT_ABOVE_ROOT, DECODE_UNRESERVED and MERGE_SLASHES,
/// step by step on the bytes (a port: its index arithmetic is httpd's): false where httpd
/// fails (a `..` above the root, an invalid `%` escape; the walk goes on to the end either way).
fn normalize_path(path: &mut Vec<u8>) -> bool {
    if path.first() != Some(&b'/') {
        return path.as_slice() == b"*";
    }
    path.push(0);
    let p = path;
    let unreserved = |c: u8| c != 0 && (c.is_ascii_alphanumeric() || b"-._~".contains(&c));
    let slash_or_nul = |c: u8| c == b'/' || c == 0;
    let (mut l, mut w, mut ok) = (1usize, 1usize, true);
    while p[l] != 0 {
        if p[l] == b'%' {
            match (hex(p[l + 1]), if p[l + 1] == 0 { None } else { hex(p[l + 2]) }) {
                (Some(h), Some(lo)) => {
                    let c = h * 16 + lo;
                    if unreserved(c) {
                        l += 2;
                        p[l] = c;
                    }
                }
                _ => ok = false,
            }
        }
        if w == 0 || p[w - 1] == b'/' {
            if p[l] == b'/' {
                while p[l] == b'/' {
                    l += 1;
                }
                continue;
            }
            if p[l] == b'.' {
                if slash_or_nul(p[l + 1]) {
                    l += 1;
                    if p[l] != 0 {
                        l += 1;
                    }
                    continue;
                }
                let mut n = l + 1;
                let dot = p[n] == b'.' || {
                    p[n] == b'%'
                        && {
                            n += 1;
                            p[n] == b'2'
                        }
                        && {
                            n += 1;
                            p[n] == b'e' || p[n] == b'E'
                        }
                };
                if dot && slash_or_nul(p[n + 1]) {
                    if w > 1 {
                        loop {
                            w -= 1;
                            if w == 0 || p[w - 1] == b'/' {
                                break;
                            }
                        }
                    } else {
                        ok = false;
                    }
                    l = n + 1;
                    if p[l] != 0 {
                        l += 1;
                    }
                    continue;
                }
            }
        }
        p[w] = p[l];
        w += 1;
        l += 1;
    }
    p.truncate(w);
    ok
}

/// Decodes `%XX`, merges `//`, resolves `.` and `..` as httpd does before walking.
pub fn normalize_url(u: &str) -> String {
    if is_normal_url(u) {
        return u.to_string();
    }
    normalized(u)
}

/// `u` with each `%` and two hex digits decoded (as `ap_unescape_url` wants them: bytes, the
/// next ones may be part of a multibyte character, and a sign is not a digit).
fn decoded(u: &str) -> String {
    let mut bytes = Vec::new();
    let b = u.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let hex = |at: usize| b.get(at).and_then(|&c| char::from(c).to_digit(16));
        if b[i] == b'%' {
            if let (Some(high), Some(low)) = (hex(i + 1), hex(i + 2)) {
                bytes.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        bytes.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// [`normalize_url`] for any URL.
fn normalized(u: &str) -> String {
    let s = decoded(u.split(['?', '#']).next().unwrap_or(""));
    let trailing = s.ends_with('/') && s.len() > 1;
    let mut out: Vec<&str> = Vec::new();
    for seg in s.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            x => out.push(x),
        }
    }
    let mut r = format!("/{}", out.join("/"));
    if trailing && r != "/" {
        r.push('/');
    }
    r
}

/// The request's path as httpd walks it under `MergeSlashes Off`: [`normalize_url`]'s, except that
/// runs of `/` stay as sent (`ap_normalize_path` without `AP_NORMALIZE_MERGE_SLASHES`; a `..`
/// takes back one segment, an empty one too). `<LocationMatch>` and `AliasMatch` regexes are
/// matched against it, while `<Location>` prefixes are compared with the slashes merged.
pub(super) fn unmerged_url(u: &str) -> String {
    let merged = normalize_url(u);
    let path = u.split(['?', '#']).next().unwrap_or("");
    if !path.starts_with('/') || !path.contains("//") {
        return merged;
    }
    let s = decoded(path);
    let segs: Vec<&str> = s[1..].split('/').collect();
    let mut out: Vec<&str> = Vec::new();
    for seg in &segs {
        match *seg {
            "." => {}
            ".." => {
                out.pop();
            }
            x => out.push(x),
        }
    }
    let mut r = format!("/{}", out.join("/"));
    if matches!(segs.last(), Some(&".") | Some(&"..")) && !r.ends_with('/') {
        r.push('/');
    }
    r
}

/// Whether [`normalize_url`] gives `u` back unchanged (most URLs a walk is asked for): it
/// starts with `/` and has no query, fragment or `%`, and none of its segments is empty
/// (a trailing `/` aside), `.` or `..`.
fn is_normal_url(u: &str) -> bool {
    let Some(rest) = u.strip_prefix('/') else { return false };
    if memchr::memchr3(b'?', b'#', b'%', rest.as_bytes()).is_some() {
        return false;
    }
    // A trailing `/` ends an empty last segment, which normalizing keeps.
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    (rest.is_empty() && !u.ends_with("//")) || rest.split('/').all(|seg| !matches!(seg, "" | "." | ".."))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A URL taken as already normal is what normalizing it gives.
        #[test]
        fn normal_urls_are_their_own_normal_form(u in "[/a.%?#2Fé]{0,12}|(/[a.é%#]{0,3}){0,4}/?") {
            proptest::prop_assert_eq!(normalize_url(&u), normalized(&u));
            if is_normal_url(&u) {
                proptest::prop_assert_eq!(normalized(&u), u);
            }
        }
    }

    /// Under `MergeSlashes Off` runs of `/` stay; `.` and `..` are resolved as ever, a `..`
    /// taking back an empty segment too.
    #[test]
    fn unmerged_paths_keep_their_runs_of_slashes() {
        assert_eq!(unmerged_url("/c//d/x.txt"), "/c//d/x.txt");
        assert_eq!(unmerged_url("//e/x.txt?q=//"), "//e/x.txt");
        assert_eq!(unmerged_url("/a//../b"), "/a/b");
        assert_eq!(unmerged_url("/c//x/../d/%78.txt"), "/c//d/x.txt");
        assert_eq!(unmerged_url("/a//b/."), "/a//b/");
        assert_eq!(unmerged_url("/c/d/x.txt"), "/c/d/x.txt");
    }

    /// `%XX` needs two hex digits; anything else stays as written, multibyte text included
    /// (a `<Location "/%aé">` once made the checker panic slicing inside the `é`).
    #[test]
    fn percent_escapes_are_decoded_only_with_two_hex_digits() {
        assert_eq!(normalize_url("/a%2Fb/%41%62c"), "/a/b/Abc");
        assert_eq!(normalize_url("/%aé"), "/%aé");
        assert_eq!(normalize_url("/é%"), "/é%");
        assert_eq!(normalize_url("/x%4"), "/x%4");
        assert_eq!(normalize_url("/%+a/%-1"), "/%+a/%-1");
        assert_eq!(normalize_url("/%c3%a9/./b/../"), "/é/");
        assert_eq!(normalize_url("/%ff"), "/\u{FFFD}");
    }

    /// The checker on a configuration whose Location names such a URL: findings, no panic.
    #[test]
    fn a_location_with_a_broken_escape_before_multibyte_text_is_checked() {
        let fx = crate::ide::diagnostics::tests::Fixture::parse(concat!(
            "//- /etc/httpd/httpd.conf
",
            "LoadModule authz_core_module m.so\nLoadModule access_compat_module m.so\n",
            "<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n",
            "<Location \"/%aé\">\n  Require all granted\n</Location>\n",
        ));
        let cfg = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let found = crate::ide::diagnostics::all(&cfg);
        assert!(found.iter().any(|d| d.code == "defeated-require"), "{found:?}");
    }

    /// What httpd answers before the walk (each checked against the real server in
    /// tests/tests/explain_cli.rs).
    #[test]
    fn targets_httpd_refuses_before_the_walk() {
        use EncodedSlashes::*;
        let r = |u: &str| rejected_target(u, Off);
        assert_eq!(r("/../index.html"), Some(Rejected::InvalidPath));
        assert_eq!(r("/sub/../../index.html"), Some(Rejected::InvalidPath));
        assert_eq!(r("/%2e%2e/index.html"), Some(Rejected::InvalidPath));
        assert_eq!(r("/.%2E/x"), Some(Rejected::InvalidPath));
        assert_eq!(r("/sub/%"), Some(Rejected::InvalidPath));
        assert_eq!(r("/a%zz"), Some(Rejected::InvalidPath));
        assert_eq!(r("/a%4"), Some(Rejected::InvalidPath));
        assert_eq!(r("/sub%2fi.html"), Some(Rejected::EncodedSlash));
        assert_eq!(r("/sub%2Fi.html%"), Some(Rejected::InvalidPath));
        assert_eq!(r("/index.html%00"), Some(Rejected::EncodedNul));
        assert_eq!(rejected_target("/sub%2fi.html", On), None);
        assert_eq!(rejected_target("/sub%2fi.html", NoDecode), None);
        assert_eq!(rejected_target("/x%00%2f", On), Some(Rejected::EncodedNul));
        for fine in ["/", "/sub/../index.html", "//a/./b/..", "/a/..", "/%41/x?q=%zz", "/x#%", "/...", "/a..b/%20"] {
            assert_eq!(r(fine), None, "{fine}");
        }
    }

    #[test]
    fn alias_matching_follows_mod_alias() {
        assert_eq!(alias_match("/icons/a.png", "/icons/"), Some("a.png"));
        assert_eq!(alias_match("/icons", "/icons/"), None);
        assert_eq!(alias_match("/iconsx", "/icons"), None);
        assert_eq!(alias_match("/icons/a", "/icons"), Some("/a"));
        assert_eq!(alias_match("//icons//a", "/icons/"), Some("a"));
    }

    #[test]
    fn virtual_host_addresses_parse_like_get_addresses() {
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        assert_eq!(vhost_address("127.0.0.1:8080"), Ok((ip("127.0.0.1"), 8080)));
        assert_eq!(vhost_address("127.0.0.1"), Ok((ip("127.0.0.1"), 0)));
        assert_eq!(vhost_address("127.0.0.1:*"), Ok((ip("127.0.0.1"), 0)));
        assert_eq!(vhost_address("[::1]:80"), Ok((ip("::1"), 80)));
        assert_eq!(vhost_address("::1"), Ok((ip("::1"), 0)));
        assert_eq!(vhost_address("*:443"), Ok((None, 443)));
        assert_eq!(vhost_address("_default_"), Ok((None, 0)));
        assert_eq!(vhost_address("*"), Ok((None, 0)));
        assert_eq!(vhost_address("www.example.com:80"), Err("www.example.com".to_string()));
    }

    #[test]
    fn urls_are_normalised_before_matching() {
        assert_eq!(normalize_url("//a/./b/../%73ub/"), "/a/sub/");
        assert_eq!(normalize_url("/x?y=1"), "/x");
    }
}
