//! `apache-lsp migrate --write` over every file of the shared corpus (../shared/corpus) that
//! holds old-style access directives (Order, Allow, Deny, Satisfy), each run by the real httpd
//! before and after the migration over the same request matrix.
//!
//! For each file a scratch server root is built around a copy of it (the corpus is read-only
//! and nothing is copied into the project): the harness preamble (free loopback port, scratch
//! ServerRoot and DocumentRoot), the modules its directives need from Debian's
//! /usr/lib/apache2/modules, the file included (or, for an .htaccess file, placed in the
//! document root under `AllowOverride All`). Server-level lines that would reach outside the
//! scratch root (Listen, ServerRoot, User, LoadModule, logs, Include, certificates…) are
//! commented out; absolute file-system paths the file names are moved under the scratch root
//! (`@ROOT@/fs/…`), and so are paths that start with a build-time placeholder (`@@ServerRoot@@/…`,
//! `@SERVERROOT@/…`, which become `@ROOT@/fs/ServerRoot/…`), and the directories created;
//! `<VirtualHost>` addresses move to the test port.
//! Every server the file makes httpd connect to — LDAP directories (`AuthLDAPURL`), proxied
//! back ends and remote proxies (`ProxyPass`, `ProxyPassMatch`, `ProxyPassReverse`,
//! `BalancerMember`, `ProxyRemote`, `ProxyRemoteMatch`, `ProxySet`, `RewriteRule … [P]`) — is
//! pointed at a closed loopback port (Unix sockets at a path under the scratch root that nothing
//! creates), identically before and after, so that mod_ldap and mod_proxy with its scheme
//! modules can be loaded and tests still talk to loopback only: a granted proxied request
//! answers 503 (an LDAP login 500), a refused one 403 or 401. A file that would still name a
//! target elsewhere after that rewrite is skipped and counted.
//! The request matrix comes from the file: its Location, Alias and ProxyPass URLs, the URLs of
//! its Directory sections, the names of its Files sections, its ServerNames as Host headers.
//!
//! A file is skipped only when httpd cannot start with it at all before migration; the counts
//! (with reasons and files) are printed. Every other file must migrate, pass `apache2 -t`, and
//! answer exactly the same statuses. In the shared corpus of this writing: 157 files hold
//! old-style directives, 131 are verified, 26 skipped (modules Debian does not ship — mod_wsgi,
//! mod_perl, mod_python, mod_php —, unfilled build-time placeholders, syntax 2.4 rejects).
//! `APACHE_LSP_CORPUS_ONLY=PART` limits the run to files whose path contains PART;
//! `APACHE_LSP_CORPUS_SHOW=1` also prints each file's modules and its answers before / after.

use apache_lsp::ide::catalogue;
use apache_lsp_e2e::httpd::{self, config_test, sources, Httpd, HttpdConfig, Request, DEFAULT_MODULES, MODULES_DIR};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if dir.join("SOURCES.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!("note: ../shared/corpus is not present beside the project; corpus migration test skipped");
        None
    }
}

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let tsv = std::fs::read_to_string(dir.join("SOURCES.tsv")).unwrap();
    tsv.lines().skip(1).filter_map(|l| l.split('\t').next()).map(|p| dir.join(p)).collect()
}

fn old_style() -> &'static Regex {
    static R: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| Regex::new(r"(?im)^[ \t]*(order|allow|deny|satisfy)[ \t]").unwrap())
}

/// Server-level directives that would reach outside the scratch root or clash with the
/// harness preamble; commented out in the copy.
const NEUTRALISED: &[&str] = &[
    "listen",
    "serverroot",
    "pidfile",
    "user",
    "group",
    "loadmodule",
    "loadfile",
    "errorlog",
    "customlog",
    "transferlog",
    "mutex",
    "lockfile",
    "scoreboardfile",
    "defaultruntimedir",
    "include",
    "includeoptional",
    "resourceconfig",
    "accessconfig",
    "typesconfig",
    "sslengine",
    "sslcertificatefile",
    "sslcertificatekeyfile",
    "sslcertificatechainfile",
    "sslcacertificatefile",
    "sslcacertificatepath",
    "sslcarevocationfile",
    "sslcarevocationpath",
    "sslsessioncache",
    "sslrandomseed",
    "sslpassphrasedialog",
    "sslmutex",
    "nsscertificatedatabase",
    "nssengine",
    "wsgisocketprefix",
    "suexecusergroup",
    "namevirtualhost",
    "startservers",
    "maxclients",
    "maxrequestworkers",
    "serverlimit",
    "minspareservers",
    "maxspareservers",
    "threadsperchild",
    "threadlimit",
    "minsparethreads",
    "maxsparethreads",
    "maxrequestsperchild",
    "maxconnectionsperchild",
    "coredumpdirectory",
    "scriptsock",
    "port",
    "bindaddress",
    "servertype",
    "cachedisable",
    "cacheroot",
];

/// Modules never loaded: they would contact servers off loopback that no rewrite of the copy
/// can redirect (certificate authorities, cache servers), and tests talk to loopback only.
/// Files that need them count as files httpd cannot start with. (LDAP and proxy modules are
/// loaded: the copy points every directory server and back end at [`CLOSED`].)
const OFF_LOOPBACK: &[&str] = &["md", "socache_memcache", "socache_redis"];

/// Directives whose arguments name servers httpd connects to: LDAP directories, proxied back
/// ends and remote proxies, and the substitution of a `RewriteRule` with the `P` flag.
const NETWORK_TARGETS: &[&str] = &[
    "authldapurl",
    "proxypass",
    "proxypassmatch",
    "proxypassreverse",
    "balancermember",
    "proxyremote",
    "proxyremotematch",
    "proxyset",
    "rewriterule",
];

/// Where every network target of the copy points: the discard port on loopback, which nothing
/// listens on here, so a proxied request answers 503 and an LDAP login 500, alike before and
/// after the migration.
const CLOSED: &str = "127.0.0.1:9";

/// The modules that serve a proxy URL scheme.
fn scheme_modules(scheme: &str) -> &'static [&'static str] {
    match scheme {
        "http" | "https" => &["proxy_http"],
        "ws" | "wss" => &["proxy_wstunnel"],
        "ajp" => &["proxy_ajp"],
        "fcgi" => &["proxy_fcgi"],
        "scgi" => &["proxy_scgi"],
        "uwsgi" => &["proxy_uwsgi"],
        "h2" | "h2c" => &["proxy_http2"],
        "ftp" => &["proxy_ftp"],
        "balancer" => &["proxy_balancer", "slotmem_shm", "lbmethod_byrequests"],
        _ => &[],
    }
}

/// The arguments of a directive line, each as its byte range in the line (quotes included).
fn arg_spans(line: &str) -> Vec<(usize, usize)> {
    static R: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let re = R.get_or_init(|| Regex::new(r#""(?:[^"\\]|\\.)*"|'[^']*'|\S+"#).unwrap());
    re.find_iter(line).map(|m| (m.start(), m.end())).skip(1).collect()
}

fn unquote(t: &str) -> (&str, &str) {
    for q in ['"', '\''] {
        if let Some(inner) = t.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return (inner, if q == '"' { "\"" } else { "'" });
        }
    }
    (t, "")
}

/// Whether a `RewriteRule` flags argument holds the proxy flag.
fn proxy_flag(flags: &str) -> bool {
    let (flags, _) = unquote(flags);
    flags.starts_with('[')
        && flags
            .trim_matches(['[', ']'])
            .split(',')
            .any(|f| f.trim().eq_ignore_ascii_case("p") || f.trim().eq_ignore_ascii_case("proxy"))
}

/// Where a Unix-socket target (`unix:/path|http://host/…`) of the copy points: a socket path
/// under the scratch root that nothing creates.
const CLOSED_SOCKET: &str = "unix:@ROOT@/closed.sock";

/// A Unix-socket target split into its socket and the URL after `|`.
fn unix_target(url: &str) -> Option<(&str, &str)> {
    url.get(..5).filter(|p| p.eq_ignore_ascii_case("unix:"))?;
    url.split_once('|')
}

/// `url` with its host (and port) replaced by [`CLOSED`]; the path and query kept. A Unix
/// socket target gets [`CLOSED_SOCKET`] (the URL after `|` only names the Host header);
/// `https`, `wss` and `h2` become their plain forms (the port is closed either way). Balancer
/// names are kept: their members are rewritten. None when `url` is not an absolute URL.
fn loopback_url(url: &str) -> Option<String> {
    if let Some((_, rest)) = unix_target(url) {
        return Some(format!("{CLOSED_SOCKET}|{rest}"));
    }
    let (scheme, rest) = url.split_once("://")?;
    let lower = scheme.to_ascii_lowercase();
    if lower.is_empty() || !lower.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c)) {
        return None;
    }
    if lower == "balancer" {
        return Some(url.to_owned());
    }
    let plain = match lower.as_str() {
        "https" => "http",
        "wss" => "ws",
        "h2" => "h2c",
        other => other,
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(format!("{plain}://{CLOSED}{}", &rest[host_end..]))
}

/// The line with every network target its directive names pointed at [`CLOSED`] (the line
/// unchanged when the directive names none).
fn to_loopback(line: &str, name: &str) -> String {
    if !NETWORK_TARGETS.contains(&name) {
        return line.to_owned();
    }
    let spans = arg_spans(line);
    let targets: Vec<usize> = if name == "rewriterule" {
        // RewriteRule pattern substitution [flags]: only a proxied substitution connects.
        match spans.get(2) {
            Some(&flags) if spans.len() == 3 && proxy_flag(&line[flags.0..flags.1]) => vec![1],
            _ => vec![],
        }
    } else {
        (0..spans.len()).collect()
    };
    let mut out = line.to_owned();
    for &i in targets.iter().rev() {
        let (s, e) = spans[i];
        let (inner, q) = unquote(&line[s..e]);
        let new = match loopback_url(inner) {
            Some(u) => u,
            // A proxied substitution that is a local path: mod_rewrite would proxy it to this
            // server's own name, which the Host header decides.
            None if name == "rewriterule" && inner.starts_with('/') => format!("http://{CLOSED}{inner}"),
            None => continue,
        };
        out.replace_range(s..e, &format!("{q}{new}{q}"));
    }
    out
}

/// Every network target of a prepared text that does not point at [`CLOSED`] (nor at a
/// balancer), by line: the check that the rewrite left nothing reaching off loopback.
fn off_loopback_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let Some(first) = trimmed.split_whitespace().next() else { continue };
        let name = first.to_ascii_lowercase();
        if name.starts_with('#') || !NETWORK_TARGETS.contains(&name.as_str()) {
            continue;
        }
        let spans = arg_spans(trimmed);
        let args: Vec<&str> = spans.iter().map(|&(s, e)| unquote(&trimmed[s..e]).0).collect();
        let checked: Vec<&str> = if name == "rewriterule" {
            if args.len() == 3 && proxy_flag(args[2]) {
                vec![args[1]]
            } else {
                vec![]
            }
        } else {
            args.into_iter().filter(|a| a.contains("://") || a.to_ascii_lowercase().starts_with("unix:")).collect()
        };
        for a in checked {
            let ok = match unix_target(a) {
                Some((socket, _)) => socket == CLOSED_SOCKET,
                None => match a.split_once("://") {
                    Some((scheme, rest)) => {
                        scheme.eq_ignore_ascii_case("balancer")
                            || (!scheme.contains([':', '|']) && rest.split(['/', '?', '#']).next() == Some(CLOSED))
                    }
                    None => false,
                },
            };
            if !ok {
                out.push(format!("{first} {a}"));
            }
        }
    }
    out
}

/// Directives whose arguments include file-system paths the test maps under the scratch root.
const PATH_DIRECTIVES: &[&str] =
    &["<directory", "documentroot", "alias", "scriptalias", "authuserfile", "authgroupfile", "authdbmuserfile"];

/// Placeholders the harness fills in itself (see `HttpdConfig::substitute`).
const HARNESS_PLACEHOLDERS: &[&str] = &["@ROOT@", "@DOCROOT@", "@PORT@"];

/// How many leading arguments of a path directive are URLs rather than paths.
fn url_args(directive: &str) -> usize {
    usize::from(matches!(directive, "alias" | "scriptalias"))
}

struct Prepared {
    /// The copy's text, with `@ROOT@` for the scratch root.
    text: String,
    /// Directories to create (relative to the root) and files to create.
    dirs: BTreeSet<String>,
    files: BTreeSet<String>,
    urls: Vec<String>,
    hosts: Vec<Option<String>>,
    modules: Vec<String>,
    /// Client addresses (only those /etc/hosts names when the rules name hosts).
    sources: Vec<std::net::IpAddr>,
    /// Network targets the copy still names off loopback (see [`off_loopback_targets`]).
    off_loopback: Vec<String>,
}

fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() || c == '>' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            (_, c) => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn prepare(text: &str, htaccess: bool) -> Prepared {
    // 1. The top components of absolute paths the file uses for files and directories, and
    // the build-time placeholders (`@@ServerRoot@@/…`, `@SERVERROOT@/…`) its paths start with.
    let mut tops: BTreeSet<String> = BTreeSet::new();
    let mut placeholders: BTreeSet<String> = BTreeSet::new();
    let placeholder = Regex::new(r"^(@@?[A-Za-z_]+@@?)(?:/|$)").unwrap();
    for line in text.lines() {
        let w = words(line.trim_start());
        let Some(first) = w.first() else { continue };
        let first = first.to_ascii_lowercase();
        if PATH_DIRECTIVES.contains(&first.as_str()) {
            for a in &w[url_args(&first) + 1..] {
                if let Some(c) = placeholder.captures(a).filter(|c| !HARNESS_PLACEHOLDERS.contains(&&c[1])) {
                    placeholders.insert(c[1].to_owned());
                }
                if let Some(rest) = a.strip_prefix('/') {
                    if let Some(top) = rest.split('/').next().filter(|t| !t.is_empty() && !t.contains(['*', '?', '[']))
                    {
                        tops.insert(top.to_owned());
                    }
                }
            }
        }
    }
    let alt = |set: &BTreeSet<String>| set.iter().map(|t| regex::escape(t)).collect::<Vec<_>>().join("|");
    let tops_re = Regex::new(&format!(r#"(^|[\s"'])/({})(/|\s|"|'|>|$)"#, alt(&tops))).unwrap();
    let placeholders_re = Regex::new(&format!(r#"(^|[\s"'])({})(/|\s|"|'|>|$)"#, alt(&placeholders))).unwrap();
    let moved = |s: &str| -> String {
        let mut s = s.to_owned();
        // Twice: adjacent matches share their delimiter.
        for _ in 0..2 {
            if !tops.is_empty() {
                s = tops_re.replace_all(&s, "$1@ROOT@/fs/$2$3").into_owned();
            }
            if !placeholders.is_empty() {
                s = placeholders_re
                    .replace_all(&s, |c: &regex::Captures| {
                        format!("{}@ROOT@/fs/{}{}", &c[1], c[2].trim_matches('@'), &c[3])
                    })
                    .into_owned();
            }
        }
        s
    };
    let mut out = String::new();
    let mut modules: BTreeSet<String> = DEFAULT_MODULES.iter().map(|m| m.to_string()).collect();
    let mut dirs = BTreeSet::new();
    let mut files = BTreeSet::new();
    let mut urls: Vec<String> = vec!["/".into(), "/index.html".into()];
    let mut names: Vec<String> = Vec::new();
    let mut docroots: Vec<String> = Vec::new();
    let mut aliases: Vec<(String, String)> = Vec::new();
    let mut directories: Vec<String> = Vec::new();
    let mut hosts: Vec<Option<String>> = vec![None];
    let mut blank_continuation = false;
    for line in text.split_inclusive('\n') {
        if blank_continuation {
            // The rest of a `<VirtualHost … \` line that was replaced as a whole.
            blank_continuation = line.trim_end().ends_with('\\');
            out.push('\n');
            continue;
        }
        let trimmed = line.trim_start();
        let w = words(trimmed);
        let name = w.first().map(|n| n.trim_start_matches("</").trim_start_matches('<').to_ascii_lowercase());
        let Some(name) = name else {
            out.push_str(line);
            continue;
        };
        if name.starts_with('#') {
            out.push_str(line);
            continue;
        }
        if NEUTRALISED.contains(&name.as_str()) && !htaccess {
            out.push_str(&format!("# (corpus test) {line}"));
            if !line.ends_with('\n') {
                out.push('\n');
            }
            continue;
        }
        if let Some(d) = catalogue::directive(&name) {
            for m in d.modules() {
                if let Some(short) = m.strip_suffix("_module") {
                    if Path::new(MODULES_DIR).join(format!("mod_{short}.so")).is_file()
                        && !short.starts_with("mpm_")
                        && !OFF_LOOPBACK.iter().any(|m| short.starts_with(m))
                    {
                        modules.insert(short.to_owned());
                    }
                }
            }
        }
        // Paths move; the URL an Alias maps stays.
        let keep = match url_args(&name) {
            0 => 0,
            n => arg_spans(line).get(n - 1).map_or(0, |&(_, e)| e),
        };
        let mut line = to_loopback(&format!("{}{}", &line[..keep], moved(&line[keep..])), &name);
        if name == "davlockdb" && !htaccess {
            // DAV's lock database, kept under the scratch root.
            let indent = &line[..line.len() - line.trim_start().len()];
            line = format!("{indent}DavLockDB \"@ROOT@/var/DavLock\"\n");
            dirs.insert("var".to_owned());
        }
        if name == "virtualhost" && trimmed.starts_with('<') && !trimmed.starts_with("</") && !htaccess {
            let indent = &line[..line.len() - line.trim_start().len()];
            blank_continuation = line.trim_end().ends_with('\\');
            line = format!("{indent}<VirtualHost *:@PORT@>\n");
        }
        out.push_str(&line);
        let mw = words(line.trim_start());
        let arg = |i: usize| mw.get(i).cloned().unwrap_or_default();
        match name.as_str() {
            "location" if trimmed.starts_with('<') => {
                let a = arg(1);
                if a.starts_with('/') && !a.contains(['*', '?', '[', '~']) && mw.len() == 2 {
                    urls.push(a.clone());
                    if !a.ends_with('/') {
                        urls.push(format!("{a}/"));
                    }
                }
            }
            "directory" if trimmed.starts_with('<') => directories.push(arg(1)),
            "files" if trimmed.starts_with('<') => {
                let a = arg(1);
                if !a.is_empty() && !a.contains(['*', '?', '[', '~', '/']) && mw.len() == 2 {
                    names.push(a);
                }
            }
            "documentroot" => docroots.push(arg(1)),
            "alias" | "scriptalias" if mw.len() == 3 => aliases.push((arg(1), arg(2))),
            // A proxied path: granted, it answers 503 (its back end is closed); refused, 403.
            "proxypass" if mw.len() >= 3 && arg(1).starts_with('/') => urls.push(arg(1)),
            "servername" | "serveralias" => {
                for h in &mw[1..] {
                    if !h.contains(['*', '@']) && hosts.len() < 3 {
                        hosts.push(Some(h.clone()));
                    }
                }
            }
            _ => {}
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // Modules that arguments name (filters, DAV providers, proxy schemes, balancer methods),
    // then the modules that others need.
    let named: &[(&str, &str)] = &[
        (r"\bDEFLATE\b", "deflate"),
        (r"(?i)\bdav\s+filesystem", "dav_fs"),
        (r"(?im)^\s*dav\s+on\b", "dav_fs"),
        (r"(?im)^\s*davlockdb\s", "dav_fs"),
        (r"(?i)\bbalancer://", "proxy_balancer"),
    ];
    for (needle, m) in named {
        if Regex::new(needle).unwrap().is_match(text) {
            modules.insert(m.to_string());
        }
    }
    let scheme = Regex::new(r"(?i)\b([a-z][a-z0-9+.-]*)://").unwrap();
    let lbmethod = Regex::new(r"(?i)\blbmethod=([a-z]+)").unwrap();
    for line in out.lines() {
        let name = line.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        if NETWORK_TARGETS.contains(&name.as_str()) && name != "authldapurl" && name != "rewriterule"
            || name == "rewriterule" && line.contains(CLOSED)
        {
            for c in scheme.captures_iter(line) {
                modules.extend(scheme_modules(&c[1].to_ascii_lowercase()).iter().map(|m| m.to_string()));
            }
        }
        for c in lbmethod.captures_iter(line) {
            modules.insert(format!("lbmethod_{}", c[1].to_ascii_lowercase()));
        }
    }
    let implied: &[(&str, &[&str])] = &[
        ("dav_fs", &["dav"]),
        ("cache_disk", &["cache"]),
        ("authnz_ldap", &["ldap"]),
        ("proxy_balancer", &["proxy", "slotmem_shm", "lbmethod_byrequests"]),
    ];
    for (m, needs) in implied {
        if modules.contains(*m) {
            modules.extend(needs.iter().map(|n| n.to_string()));
        }
    }
    // Every proxy module needs mod_proxy; mod_proxy with no scheme module answers 500 to
    // every proxied request, so it gets the HTTP one.
    if modules.iter().any(|m| m.starts_with("proxy_")) {
        modules.insert("proxy".to_owned());
    }
    if modules.contains("proxy") {
        modules.insert("proxy_http".to_owned());
    }
    modules.retain(|m| Path::new(MODULES_DIR).join(format!("mod_{m}.so")).is_file());
    // Directories and files to create, and the URLs that reach the directories.
    let docroot = "@ROOT@/htdocs".to_owned();
    if docroots.is_empty() {
        docroots.push(docroot.clone());
    }
    for d in docroots.iter().chain(&directories) {
        if let Some(rel) = d.strip_prefix("@ROOT@/") {
            if !rel.contains(['*', '?', '[', '@']) {
                dirs.insert(rel.trim_end_matches('/').to_owned());
            }
        }
    }
    for (url, target) in &aliases {
        if let Some(rel) = target.strip_prefix("@ROOT@/") {
            let last = rel.rsplit('/').next().unwrap_or("");
            if last.contains('.') {
                files.insert(rel.to_owned());
            } else {
                dirs.insert(rel.trim_end_matches('/').to_owned());
            }
        }
        if url.starts_with('/') {
            urls.push(url.clone());
            if !url.ends_with('/') {
                urls.push(format!("{url}/"));
            }
        }
    }
    for d in &directories {
        let d = d.trim_end_matches('/');
        for root in &docroots {
            let root = root.trim_end_matches('/');
            if let Some(rest) = d.strip_prefix(root).filter(|r| r.is_empty() || r.starts_with('/')) {
                urls.push(format!("{rest}/"));
            }
        }
        for (url, target) in &aliases {
            let target = target.trim_end_matches('/');
            if let Some(rest) = d.strip_prefix(target).filter(|r| r.is_empty() || r.starts_with('/')) {
                urls.push(format!("{}{rest}/", url.trim_end_matches('/')));
            }
        }
    }
    for n in &names {
        urls.push(format!("/{n}"));
    }
    let mut seen = BTreeSet::new();
    urls.retain(|u| seen.insert(u.clone()) && !u.contains(['"', '\'', ' ']));
    urls.truncate(14);
    for d in dirs.clone() {
        files.insert(format!("{d}/index.html"));
    }
    for n in &names {
        files.insert(format!("htdocs/{n}"));
    }
    let sources = if httpd::rules_name_hosts(text) { httpd::names_resolved_locally(sources()) } else { sources() };
    let off_loopback = off_loopback_targets(&out);
    Prepared { text: out, dirs, files, urls, hosts, modules: modules.into_iter().collect(), sources, off_loopback }
}

/// The harness configuration for a prepared text (`text` with `@ROOT@`).
fn server(p: &Prepared, text: &str, htaccess: bool) -> HttpdConfig {
    let modules: Vec<&str> = p.modules.iter().map(String::as_str).collect();
    let body = if htaccess {
        "<Directory @DOCROOT@>\n  AllowOverride All\n</Directory>\n".to_owned()
    } else {
        "Include \"@ROOT@/site.conf\"\n".to_owned()
    };
    let mut cfg = HttpdConfig::new(body).modules(&modules);
    for d in &p.dirs {
        cfg = cfg.dir(d);
    }
    for f in &p.files {
        cfg = cfg.file(f, format!("{f}\n"));
    }
    cfg.file(if htaccess { "htdocs/.htaccess" } else { "site.conf" }, text)
}

fn matrix(h: &Httpd, p: &Prepared) -> Result<Vec<(String, u16)>, String> {
    let mut out = Vec::new();
    for url in &p.urls {
        for host in &p.hosts {
            for src in p.sources.iter().copied() {
                for cred in [None, Some(("alice", "apw"))] {
                    for method in ["GET", "POST"] {
                        let mut r = Request::new(method, url).source(src);
                        if let Some(h) = host {
                            r = r.host(h);
                        }
                        if let Some((u, pw)) = cred {
                            r = r.user(u, pw);
                        }
                        let st = h.send(&r)?;
                        out.push((format!("{method} {url} Host {host:?} from {src} as {cred:?}"), st));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// httpd's complaint, shortened to a reason (the scratch root and line numbers left out, so
/// that alike reasons count together).
fn reason(msg: &str) -> String {
    let lines: Vec<&str> = msg.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("Invalid command") || l.contains("Syntax error"))
        .or_else(|| lines.iter().position(|l| l.contains(":error]") || l.contains(":emerg]") || l.contains(":crit]")))
        .or_else(|| {
            lines.iter().position(|l| !l.trim().is_empty() && !l.starts_with("---") && !l.starts_with("httpd "))
        });
    let Some(at) = at else { return "no message".into() };
    let mut line = lines[at].to_owned();
    // "Syntax error on line N of F:" is followed by the message on the next line.
    if line.trim_end().ends_with(':') {
        if let Some(next) = lines.get(at + 1) {
            line.push(' ');
            line.push_str(next);
        }
    }
    if let Some(i) = line.find("Invalid command '") {
        let rest = &line[i + 17..];
        let name = rest.split('\'').next().unwrap_or("");
        let off = catalogue::directive(name)
            .is_some_and(|d| d.modules().any(|m| OFF_LOOPBACK.iter().any(|o| m == format!("{o}_module"))));
        let why = if off { "module not loaded: it would contact servers off loopback" } else { "module not installed" };
        return format!("Invalid command '{name}' ({why})");
    }
    let line = Regex::new(r"/tmp/apache-lsp-httpd-[^/ :]+").unwrap().replace_all(&line, "ROOT");
    let line = Regex::new(r"^\[[^\]]*\] \[[^\]]*\] \[pid [^\]]*\] ").unwrap().replace(&line, "");
    let line = Regex::new(r"Syntax error on line \d+ of ([^:]+):").unwrap().replace_all(&line, "Syntax error in $1:");
    let line = Regex::new(r"line \d+").unwrap().replace_all(&line, "line N");
    let line = if line.contains("Unknown Authn provider: ldap") {
        format!("{line} (mod_authnz_ldap not loaded: it would contact servers off loopback)")
    } else {
        line.into_owned()
    };
    line.chars().take(140).collect()
}

enum Result1 {
    /// `left`: why migrate left old-style sections as they were.
    Verified {
        requests: usize,
        rewritten: bool,
        left: Vec<String>,
    },
    Skipped(String),
    Failed(String),
}

fn run_one(corpus: &Path, file: &Path) -> Result1 {
    let bytes = std::fs::read(file).unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let fname = file.file_name().unwrap().to_string_lossy().to_ascii_lowercase();
    let htaccess = fname.contains("htaccess");
    let p = prepare(&text, htaccess);
    let rel = file.strip_prefix(corpus).unwrap().display().to_string();
    if let Some(t) = p.off_loopback.first() {
        return Result1::Skipped(format!(
            "a network target the test cannot point at loopback ({} in all; e.g. `{}`)",
            p.off_loopback.len(),
            t.chars().take(60).collect::<String>()
        ));
    }
    // Before: httpd must start with the file at all.
    let before_cfg = server(&p, &p.text, htaccess);
    let (ok, msg) = config_test(&before_cfg);
    if !ok {
        return Result1::Skipped(reason(&msg));
    }
    let before = match Httpd::start(before_cfg) {
        Ok(h) => h,
        Err(e) => return Result1::Skipped(reason(&e)),
    };
    let a = match matrix(&before, &p) {
        Ok(a) => a,
        Err(e) => return Result1::Failed(format!("{rel}: request before migration: {e}")),
    };
    drop(before);
    // The migration, on a copy in its own scratch root.
    let work = server(&p, &p.text, htaccess);
    let main = work.write().unwrap();
    let root = work.root().display().to_string();
    let target = work.root().join(if htaccess { "htdocs/.htaccess" } else { "site.conf" });
    let copy_before = std::fs::read(&target).unwrap();
    let out = apache_lsp_e2e::lsp::migrate_write(&main);
    if out.status.code() == Some(2) || out.status.code().is_none() {
        return Result1::Failed(format!("{rel}: migrate --write failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let migrated = std::fs::read(&target).unwrap();
    let rewritten = migrated != copy_before;
    let migrated = String::from_utf8_lossy(&migrated)
        .replace(&root, "@ROOT@")
        .replace(&format!("<VirtualHost *:{}>", work.port()), "<VirtualHost *:@PORT@>");
    let after_cfg = server(&p, &migrated, htaccess);
    let (ok, msg) = config_test(&after_cfg);
    if !ok {
        return Result1::Failed(format!("{rel}: apache2 -t rejects the migrated file:\n{msg}"));
    }
    let after = match Httpd::start(after_cfg) {
        Ok(h) => h,
        Err(e) => return Result1::Failed(format!("{rel}: httpd does not start after migration: {e}")),
    };
    let b = match matrix(&after, &p) {
        Ok(b) => b,
        Err(e) => return Result1::Failed(format!("{rel}: request after migration: {e}")),
    };
    if std::env::var_os("APACHE_LSP_CORPUS_SHOW").is_some() {
        // For looking into one file (with APACHE_LSP_CORPUS_ONLY): its modules and answers.
        eprintln!("{rel}: modules {}", p.modules.join(" "));
        for (x, y) in a.iter().zip(&b) {
            eprintln!("{rel}: {}: {} / {}", x.0, x.1, y.1);
        }
    }
    let diffs: Vec<String> =
        a.iter().zip(&b).filter(|(x, y)| x.1 != y.1).map(|(x, y)| format!("  {}: {} → {}", x.0, x.1, y.1)).collect();
    if !diffs.is_empty() {
        return Result1::Failed(format!(
            "{rel}: httpd answers differently after migrate --write ({} of {}):\n{}\n--- stderr of migrate:\n{}",
            diffs.len(),
            a.len(),
            diffs.iter().take(12).cloned().collect::<Vec<_>>().join("\n"),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let left = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("left old-style: "))
        .map(|l| {
            // "left old-style: FILE:LINE: <Section args>: why" or "…: FILE:LINE: Order: why".
            let l = l.trim_start_matches("left old-style: ");
            let l = Regex::new(r"^\S+:\d+: ").unwrap().replace(l, "");
            let why = match l.strip_prefix('<').and_then(|r| r.split_once(">: ")) {
                Some((_, why)) => why.to_owned(),
                None => l.into_owned(),
            };
            let why = Regex::new(r"/tmp/apache-lsp-httpd-[^ :]+").unwrap().replace_all(&why, "PATH");
            let why = Regex::new(r"^(?i)(order|allow|deny|satisfy): ").unwrap().replace(&why, "");
            why.split(": /").next().unwrap_or(&why).chars().take(110).collect()
        })
        .collect();
    Result1::Verified { requests: a.len(), rewritten, left }
}

#[test]
fn every_corpus_file_with_old_style_rules_migrates_without_changing_httpds_answers() {
    let Some(corpus) = corpus_dir() else { return };
    if !httpd::require_apache2() {
        return;
    }
    let files: Vec<PathBuf> = corpus_files(&corpus)
        .into_iter()
        .filter(|f| std::fs::read(f).is_ok_and(|b| old_style().is_match(&String::from_utf8_lossy(&b))))
        .collect();
    let only = std::env::var("APACHE_LSP_CORPUS_ONLY").ok();
    let files: Vec<PathBuf> =
        files.into_iter().filter(|f| only.as_ref().is_none_or(|o| f.display().to_string().contains(o))).collect();
    let queue = Mutex::new(files.clone());
    let results: Mutex<Vec<(PathBuf, Result1)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let Some(f) = queue.lock().unwrap().pop() else { break };
                let r = std::panic::catch_unwind(|| run_one(&corpus, &f))
                    .unwrap_or_else(|_| Result1::Failed(format!("{}: the test panicked", f.display())));
                results.lock().unwrap().push((f, r));
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut verified, mut rewritten, mut requests) = (0, 0, 0);
    let mut left_why: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed = Vec::new();
    for (f, r) in &results {
        let rel = f.strip_prefix(&corpus).unwrap().display().to_string();
        match r {
            Result1::Verified { requests: n, rewritten: w, left } => {
                for why in left {
                    *left_why.entry(why.clone()).or_default() += 1;
                }
                verified += 1;
                rewritten += usize::from(*w);
                requests += n;
            }
            Result1::Skipped(why) => skipped.entry(why.clone()).or_default().push(rel),
            Result1::Failed(msg) => failed.push(msg.clone()),
        }
    }
    eprintln!("corpus migration: {} files hold old-style directives", files.len());
    eprintln!(
        "corpus migration: {verified} migrated and verified against httpd ({rewritten} rewritten, {} left as they were), {requests} requests compared",
        verified - rewritten
    );
    eprintln!("corpus migration: old-style sections migrate left as they were, by reason:");
    for (why, n) in &left_why {
        eprintln!("  {n} × {why}");
    }
    eprintln!(
        "corpus migration: {} skipped (httpd does not start with them even before migration):",
        skipped.values().map(Vec::len).sum::<usize>()
    );
    for (why, fs) in &skipped {
        eprintln!("  {} × {why}", fs.len());
        for f in fs {
            eprintln!("      {f}");
        }
    }
    eprintln!("corpus migration: {} failed", failed.len());
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    assert!(verified > 0, "no corpus file could be verified");
}

#[test]
fn network_targets_of_the_copy_point_at_a_closed_loopback_port() {
    let cases = [
        (
            "AuthLDAPUrl \"ldaps://ldap-us-ro.apache.org:636 ldap2.example.org/ou=people,dc=apache,dc=org?uid\" NONE",
            "AuthLDAPUrl \"ldaps://127.0.0.1:9/ou=people,dc=apache,dc=org?uid\" NONE",
        ),
        (
            "  ProxyPass /cobbler_api http://localhost:25151/ retry=0",
            "  ProxyPass /cobbler_api http://127.0.0.1:9/ retry=0",
        ),
        (
            "ProxyPassMatch ^/(.*\\.php)$ fcgi://127.0.0.1:9000/srv/$1",
            "ProxyPassMatch ^/(.*\\.php)$ fcgi://127.0.0.1:9/srv/$1",
        ),
        ("ProxyPass /a ajp://tomcat:8009/a", "ProxyPass /a ajp://127.0.0.1:9/a"),
        ("ProxyPass /s https://secure.example.com", "ProxyPass /s http://127.0.0.1:9"),
        ("ProxyPass balancer://foo1/", "ProxyPass balancer://foo1/"),
        (
            "BalancerMember http://@SERVERNAME@:@PORT@/x loadfactor=1",
            "BalancerMember http://127.0.0.1:9/x loadfactor=1",
        ),
        ("ProxyRemote * http://firewall.example.com:81", "ProxyRemote * http://127.0.0.1:9"),
        (
            "ProxyPass \"unix:/run/httpd/custodia.sock|http://localhost/keys/\"",
            "ProxyPass \"unix:@ROOT@/closed.sock|http://localhost/keys/\"",
        ),
        (
            "RewriteRule ^/past/(.*) http://old.example.com/past/$1 [L,P]",
            "RewriteRule ^/past/(.*) http://127.0.0.1:9/past/$1 [L,P]",
        ),
        ("RewriteRule ^/p/(.*) /local/$1 [P]", "RewriteRule ^/p/(.*) http://127.0.0.1:9/local/$1 [P]"),
        // Not proxied: a redirect connects nowhere.
        ("RewriteRule ^/r http://example.com/ [R,L]", "RewriteRule ^/r http://example.com/ [R,L]"),
    ];
    for (line, want) in cases {
        let name = line.split_whitespace().next().unwrap().to_ascii_lowercase();
        let got = to_loopback(line, &name);
        assert_eq!(got, want, "{line}");
        assert!(off_loopback_targets(&got).is_empty(), "{got}");
    }
    // What the rewrite cannot redirect is reported, so that the file is skipped.
    let left = off_loopback_targets(
        "ProxyPass /x http://example.com/\nRewriteRule ^/y $1 [P]\n# ProxyPass /z http://example.org/\n",
    );
    assert_eq!(left, ["ProxyPass http://example.com/", "RewriteRule $1"]);
}
