//! Request contexts: the (server, URL) pairs whose walks reach the configuration's sections.
//!
//! A context fixes everything the walk depends on — the virtual host (by the connection's
//! address and port, then the Host header) and the URL — so that every section the
//! configuration names is reached by at least one context where that is possible: each
//! `<Location>` path (wildcards and regular expressions through a witness string), each
//! `<Directory>` mapped back to URLs through DocumentRoot and Alias, each `<Files>` name under
//! the directories it can apply to, and each directory holding an .htaccess file.

use crate::ide::access::{regex_matches, vhost_address, wildcard_match};
use crate::ide::config::{Config, Node, NodeKind};
use std::collections::BTreeSet;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// URLs per server above this are dropped (the proof then says it was bounded).
const MAX_URLS_PER_SERVER: usize = 400;
/// Directories an .htaccess search visits per root, at most.
const MAX_SCAN_DIRS: usize = 20_000;
const MAX_SCAN_DEPTH: usize = 24;

/// One server a request can reach: the main server or a virtual host.
#[derive(Debug, Clone)]
pub(super) struct Server<'a> {
    pub vhost: Option<&'a Node>,
    /// The Host header to send (a ServerName or ServerAlias of the virtual host).
    pub host: Option<String>,
    /// The connection's local address and port, when the virtual host names them.
    pub local: Option<(IpAddr, u16)>,
}

/// One request context: which server, which URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Ctx {
    pub server: usize,
    pub host: Option<String>,
    pub local: Option<(IpAddr, u16)>,
    pub url: String,
}

/// The servers of a configuration: each virtual host, and the main server when some
/// connection reaches it (no virtual hosts, or a Listen port no virtual host takes).
pub(super) fn servers(cfg: &Config) -> Vec<Server<'_>> {
    let vhosts: Vec<&Node> = cfg.nodes.iter().filter(|n| n.is_section() && n.is("VirtualHost")).collect();
    let mut out = Vec::new();
    if vhosts.is_empty() {
        out.push(Server { vhost: None, host: None, local: None });
        return out;
    }
    let vhost_ports: Vec<Option<u16>> =
        vhosts.iter().flat_map(|v| v.args.iter().map(|a| parse_address(a).map(|(_, p)| p))).collect();
    for l in cfg.nodes.iter().filter(|n| n.kind == NodeKind::Directive && n.is("Listen")) {
        let Some(port) = l.args.first().and_then(|a| listen_port(a)) else { continue };
        let taken = vhost_ports.iter().any(|p| matches!(p, Some(0)) || *p == Some(port) || p.is_none());
        if !taken {
            out.push(Server { vhost: None, host: None, local: Some(("127.0.0.1".parse().unwrap(), port)) });
            break;
        }
    }
    for v in vhosts {
        let host = v
            .children
            .iter()
            .filter(|c| c.kind == NodeKind::Directive && (c.is("ServerName") || c.is("ServerAlias")))
            .flat_map(|c| c.args.iter())
            .map(|n| n.split("://").last().unwrap_or(n).split(':').next().unwrap_or(n).to_string())
            .find(|n| !n.contains(['*', '?']));
        let local = v.args.first().and_then(|a| parse_address(a)).and_then(|(ip, port)| {
            let ip = ip.unwrap_or_else(|| "127.0.0.1".parse().unwrap());
            (port != 0).then_some((ip, port))
        });
        out.push(Server { vhost: Some(v), host, local });
    }
    out
}

/// `<VirtualHost>` address → (IP, None for `*`/`_default_`; port, 0 for any). None for names.
fn parse_address(arg: &str) -> Option<(Option<IpAddr>, u16)> {
    vhost_address(arg).ok()
}

fn listen_port(arg: &str) -> Option<u16> {
    arg.rsplit(':').next()?.parse().ok()
}

/// Where a server maps URLs: its DocumentRoot and its Alias/ScriptAlias pairs.
pub(super) struct Mapping {
    docroot: String,
    aliases: Vec<(String, String)>,
}

fn mapping(cfg: &Config, server: &Server) -> Mapping {
    let own = |name: &str| -> Vec<&Node> {
        let mut v: Vec<&Node> = Vec::new();
        if let Some(vh) = server.vhost {
            v.extend(vh.children.iter().filter(|n| n.kind == NodeKind::Directive && n.is(name)));
        }
        v.extend(cfg.nodes.iter().filter(|n| n.kind == NodeKind::Directive && n.is(name)));
        v
    };
    let root = own("DocumentRoot")
        .first()
        .and_then(|d| d.arg(0).map(str::to_string))
        .unwrap_or_else(|| "/var/www/html".to_string());
    let root =
        if Path::new(&root).is_absolute() { root } else { cfg.server_root.join(root).to_string_lossy().to_string() };
    let mut aliases = Vec::new();
    for d in own("Alias").into_iter().chain(own("ScriptAlias")) {
        if let [from, to, ..] = &d.args[..] {
            aliases.push((from.to_string(), to.to_string()));
        }
    }
    Mapping { docroot: root.trim_end_matches('/').to_string(), aliases }
}

/// URLs that map to the file system path `p` (a directory or file), through the document
/// root or an alias.
fn fs_to_urls(p: &str, m: &Mapping) -> Vec<String> {
    let p = p.trim_end_matches('/');
    let mut out = Vec::new();
    let under = |p: &str, root: &str| -> Option<String> {
        let root = root.trim_end_matches('/');
        if p == root {
            return Some(String::new());
        }
        p.strip_prefix(root).filter(|r| r.starts_with('/')).map(str::to_string)
    };
    let above_docroot = under(&m.docroot, p).is_some() || p.is_empty();
    if let Some(rest) = under(p, &m.docroot) {
        out.push(if rest.is_empty() { "/".to_string() } else { rest });
    } else if above_docroot {
        out.push("/".to_string());
    }
    for (from, to) in &m.aliases {
        if let Some(rest) = under(p, to) {
            out.push(format!("{}{}", from.trim_end_matches('/'), rest));
        } else if under(to, p).is_some() && !above_docroot {
            // A directory above an alias target (and not above the document root, which
            // "/" already reaches).
            out.push(from.clone());
        }
    }
    out.into_iter().map(|u| if u.starts_with('/') { u } else { format!("/{u}") }).collect()
}

/// How each server maps URLs.
pub(super) fn mappings(cfg: &Config) -> Vec<Mapping> {
    servers(cfg).iter().map(|s| mapping(cfg, s)).collect()
}

/// Whether some URL maps to the file system path `p`.
pub(super) fn maps_to_url(m: &Mapping, p: &str) -> bool {
    !fs_to_urls(p, m).is_empty()
}

/// A string the shell-style pattern matches: wildcards replaced by plain characters.
fn wildcard_witness(pattern: &str, pathname: bool) -> Option<String> {
    let mut out = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '?' => out.push('x'),
            '[' => {
                let mut set = String::new();
                for d in chars.by_ref() {
                    if d == ']' && !set.is_empty() {
                        break;
                    }
                    set.push(d);
                }
                let (neg, set) = match set.strip_prefix(['!', '^']) {
                    Some(s) => (true, s.to_string()),
                    None => (false, set),
                };
                let pick = "abcxyz0123456789ABCXYZ-_.".chars().find(|ch| {
                    wildcard_match(&format!("[{}{set}]", if neg { "!" } else { "" }), &ch.to_string(), false)
                })?;
                out.push(pick);
            }
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
    wildcard_match(pattern, &out, pathname).then_some(out)
}

/// [`regex_witness_uncached`], remembered per pattern (main-server sections are asked about
/// once per server).
pub(super) fn regex_witness(pattern: &str) -> Option<String> {
    type Cache = std::collections::HashMap<String, Option<String>>;
    thread_local! {
        static CACHE: std::cell::RefCell<Cache> = std::cell::RefCell::new(Cache::new());
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 4096 {
            c.clear();
        }
        c.entry(pattern.to_string()).or_insert_with(|| regex_witness_uncached(pattern)).clone()
    })
}

/// A string the regular expression matches (not anchored), if one is easy to build.
fn regex_witness_uncached(pattern: &str) -> Option<String> {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn pick_char(ranges: &[(char, char)]) -> Option<char> {
        let inside = |c: char| ranges.iter().any(|(a, b)| *a <= c && c <= *b);
        "xa0Z-_."
            .chars()
            .chain('!'..='~')
            .find(|c| inside(*c) && !"/?#%".contains(*c))
            .or_else(|| ranges.iter().map(|r| r.0).find(|c| *c != '\n'))
    }
    fn go(h: &Hir, out: &mut String) -> Option<()> {
        match h.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(l) => out.push_str(std::str::from_utf8(&l.0).ok()?),
            HirKind::Class(Class::Unicode(c)) => {
                let ranges: Vec<(char, char)> = c.iter().map(|r| (r.start(), r.end())).collect();
                out.push(pick_char(&ranges)?);
            }
            HirKind::Class(Class::Bytes(c)) => {
                let ranges: Vec<(char, char)> =
                    c.iter().filter(|r| r.end() < 0x80).map(|r| (r.start() as char, r.end() as char)).collect();
                out.push(pick_char(&ranges)?);
            }
            HirKind::Repetition(r) => {
                for _ in 0..r.min.min(8) {
                    go(&r.sub, out)?;
                }
            }
            HirKind::Capture(c) => go(&c.sub, out)?,
            HirKind::Concat(v) => {
                for x in v {
                    go(x, out)?;
                }
            }
            // The first alternative a URL can carry (a `#`, `?` or `%` would not reach the
            // server as written), else the first.
            HirKind::Alternation(v) => {
                let mut first = None;
                for alt in v {
                    let mut w = String::new();
                    if go(alt, &mut w).is_none() {
                        continue;
                    }
                    if !w.contains(['#', '?', '%', ' ']) {
                        first = Some(w);
                        break;
                    }
                    first.get_or_insert(w);
                }
                out.push_str(&first?);
            }
        }
        Some(())
    }
    let hir = regex_syntax::ParserBuilder::new().build().parse(pattern).ok()?;
    let mut out = String::new();
    go(&hir, &mut out)?;
    Some(out)
}

fn regex_is_match(pattern: &str, text: &str) -> bool {
    regex_matches(pattern, text, false).unwrap_or(false)
}

/// The pattern of a section (`<X ~ re>` or `<XMatch re>`) and whether it is a regex.
fn section_pattern(n: &Node) -> Option<(&str, bool)> {
    let tilde = n.args.first().is_some_and(|a| a == "~");
    let regex = tilde || n.name.to_ascii_lowercase().ends_with("match");
    let pat = if tilde { n.args.get(1) } else { n.args.first() };
    pat.map(|p| (p.as_str(), regex))
}

/// Directory paths a `<Directory>`/`<DirectoryMatch>` section applies to, as examples.
fn directory_examples(n: &Node) -> Vec<String> {
    let Some((pat, regex)) = section_pattern(n) else { return vec![] };
    if regex {
        match regex_witness(pat) {
            Some(w) if w.starts_with('/') && regex_is_match(pat, &w) => vec![w],
            _ => vec![],
        }
    } else if pat.contains(['*', '?', '[']) {
        wildcard_witness(pat, true).into_iter().collect()
    } else {
        vec![pat.to_string()]
    }
}

/// A file name a `<Files>`/`<FilesMatch>` section applies to, if one is found.
pub(super) fn files_witness(f: &Node) -> Option<String> {
    let (pat, regex) = section_pattern(f)?;
    if regex {
        regex_witness(pat).filter(|w| !w.is_empty() && !w.contains('/') && regex_is_match(pat, w))
    } else if pat.contains(['*', '?', '[']) {
        wildcard_witness(pat, true)
    } else {
        Some(pat.to_string())
    }
}

/// A directory holding an .htaccess file, and the file names its `<Files>` sections apply to.
#[derive(Debug, Clone)]
pub(super) struct HtaccessDir {
    pub dir: PathBuf,
    pub names: Vec<String>,
}

/// URLs that reach the sections of one server.
pub(super) fn urls(cfg: &Config, server: &Server, htaccess_dirs: &[HtaccessDir]) -> (BTreeSet<String>, bool) {
    let m = mapping(cfg, server);
    let mut urls: BTreeSet<String> = ["/".to_string(), "/index.html".to_string()].into();
    let mut dir_urls: BTreeSet<String> = ["/".to_string()].into();
    let scope: Vec<&Node> =
        cfg.nodes.iter().chain(server.vhost.map(|v| v.children.iter()).into_iter().flatten()).collect();
    let mut files: Vec<(&Node, Vec<String>)> = Vec::new();
    let mut stack: Vec<(&Node, Option<Vec<String>>)> = scope.iter().map(|n| (*n, None)).collect();
    while let Some((n, dir_scope)) = stack.pop() {
        if !n.is_section() || n.is("VirtualHost") {
            continue;
        }
        let l = n.name.to_ascii_lowercase();
        let mut inner_scope = dir_scope.clone();
        match l.as_str() {
            "location" | "locationmatch" => {
                if let Some((pat, regex)) = section_pattern(n) {
                    if regex {
                        if let Some(w) = regex_witness(pat) {
                            for u in [w.clone(), format!("/{w}"), format!("/x{w}")] {
                                if u.starts_with('/') && regex_is_match(pat, &u) {
                                    urls.insert(u);
                                    break;
                                }
                            }
                        }
                    } else if pat.contains(['*', '?', '[']) {
                        urls.extend(wildcard_witness(pat, true));
                    } else if pat.starts_with('/') {
                        urls.insert(pat.to_string());
                        urls.insert(format!("{}/x", pat.trim_end_matches('/')));
                    }
                }
            }
            "directory" | "directorymatch" => {
                let mut here = Vec::new();
                for p in directory_examples(n) {
                    for u in fs_to_urls(&p, &m) {
                        let d = format!("{}/", u.trim_end_matches('/'));
                        here.push(d.clone());
                        dir_urls.insert(d.clone());
                        urls.insert(d.clone());
                        urls.insert(format!("{d}index.html"));
                    }
                }
                inner_scope = Some(here);
            }
            "files" | "filesmatch" => files.push((n, dir_scope.clone().unwrap_or_default())),
            _ => {}
        }
        for c in &n.children {
            stack.push((c, inner_scope.clone()));
        }
    }
    for h in htaccess_dirs {
        for u in fs_to_urls(&h.dir.to_string_lossy(), &m) {
            let d = format!("{}/", u.trim_end_matches('/'));
            dir_urls.insert(d.clone());
            urls.insert(d.clone());
            urls.insert(format!("{d}index.html"));
            // Files its <Files> sections apply to (and, above, ones they do not).
            for name in &h.names {
                urls.insert(format!("{d}{name}"));
            }
        }
    }
    for (f, scope) in files {
        let Some(name) = files_witness(f) else { continue };
        let dirs: Vec<&String> =
            if scope.is_empty() { dir_urls.iter().take(8).collect() } else { scope.iter().collect() };
        for d in dirs {
            urls.insert(format!("{d}{name}"));
        }
    }
    let bounded = urls.len() > MAX_URLS_PER_SERVER;
    (urls.into_iter().take(MAX_URLS_PER_SERVER).collect(), bounded)
}

/// Every context of the configuration.
pub(super) fn contexts(cfg: &Config, htaccess_dirs: &[HtaccessDir]) -> (Vec<Ctx>, bool) {
    let mut out = Vec::new();
    let mut bounded = false;
    for (i, s) in servers(cfg).iter().enumerate() {
        let (urls, b) = urls(cfg, s, htaccess_dirs);
        bounded |= b;
        for url in urls {
            out.push(Ctx { server: i, host: s.host.clone(), local: s.local, url });
        }
    }
    (out, bounded)
}

/// Directories the configuration names (every `<Directory>` path, document root and alias
/// target): the proof treats them as existing.
pub(super) fn named_dirs(cfg: &Config) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for s in servers(cfg) {
        let m = mapping(cfg, &s);
        out.insert(PathBuf::from(&m.docroot));
        for (_, to) in &m.aliases {
            if to.ends_with('/') || !Path::new(to).is_file() {
                out.insert(PathBuf::from(to.trim_end_matches('/')));
            }
        }
    }
    for n in cfg.walk().filter(|n| n.is_section() && (n.is("Directory") || n.is("DirectoryMatch"))) {
        for p in directory_examples(n) {
            out.insert(PathBuf::from(p.trim_end_matches('/')));
        }
    }
    // Their ancestors too: the walk stops at the first missing component.
    let mut all = BTreeSet::new();
    for p in out {
        if !p.is_absolute() {
            continue;
        }
        for a in p.ancestors() {
            if !all.insert(a.to_path_buf()) {
                break;
            }
        }
    }
    all
}

/// .htaccess files (by AccessFileName) under the directories the configuration serves:
/// document roots, alias targets and `<Directory>` paths whose AllowOverride is not None.
pub(super) fn find_htaccess(cfg: &Config) -> Vec<PathBuf> {
    let names: Vec<String> = cfg
        .walk()
        .filter(|n| n.kind == NodeKind::Directive && n.is("AccessFileName"))
        .flat_map(|n| n.arg_strings())
        .chain(std::iter::once(".htaccess".to_string()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut roots: BTreeSet<PathBuf> = BTreeSet::new();
    for s in servers(cfg) {
        let m = mapping(cfg, &s);
        roots.insert(PathBuf::from(&m.docroot));
        roots.extend(m.aliases.iter().map(|(_, t)| PathBuf::from(t)));
    }
    for n in cfg.walk().filter(|n| n.is_section() && n.is("Directory")) {
        let ao = n.children.iter().rev().find(|c| c.is("AllowOverride"));
        if ao.is_some_and(|a| !a.args.iter().all(|x| x.eq_ignore_ascii_case("None"))) {
            if let Some(p) = n.args.first().filter(|p| p.starts_with('/') && !p.contains(['*', '?', '['])) {
                if p != "/" {
                    roots.insert(PathBuf::from(p));
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    for root in roots {
        let mut budget = MAX_SCAN_DIRS;
        let mut stack = vec![(root, 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let Ok(rd) = std::fs::read_dir(&dir) else { continue };
            for e in rd.flatten() {
                let Ok(ft) = e.file_type() else { continue };
                let name = e.file_name().to_string_lossy().to_string();
                if ft.is_dir() && depth < MAX_SCAN_DEPTH {
                    stack.push((e.path(), depth + 1));
                } else if ft.is_file() && names.contains(&name) {
                    found.insert(e.path());
                }
            }
        }
    }
    found.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_witnesses_match_their_regex() {
        for re in ["^/api/v[0-9]+/(internal|debug)", "\\.(?i:bak|old|orig|sw[op]|dist)$", "^\\.ht", "^/(a|b)/x?$"] {
            let w = regex_witness(re).unwrap_or_else(|| panic!("no witness for {re}"));
            assert!(regex_is_match(re, &w), "{re}: {w}");
        }
    }

    #[test]
    fn alternatives_a_url_can_carry_are_preferred() {
        let re = r"(^#.*#|\.(bak|config|ini)|~)$";
        let w = regex_witness(re).unwrap();
        assert!(!w.contains('#') && regex_is_match(re, &w), "{w}");
    }

    #[test]
    fn wildcard_witnesses_match_their_pattern() {
        for p in ["/srv/*/public", "/s?b/[a-c]x", "/x/[!a]"] {
            let w = wildcard_witness(p, true).unwrap();
            assert!(wildcard_match(p, &w, true), "{p}: {w}");
        }
    }

    #[test]
    fn paths_map_back_to_urls() {
        let m = Mapping { docroot: "/srv/www".into(), aliases: vec![("/static/".into(), "/srv/static/".into())] };
        assert_eq!(fs_to_urls("/srv/www/sub", &m), vec!["/sub"]);
        assert_eq!(fs_to_urls("/", &m), vec!["/"]);
        assert_eq!(fs_to_urls("/srv/static/img", &m), vec!["/static/img"]);
        assert!(fs_to_urls("/opt/other", &m).is_empty());
    }
}
