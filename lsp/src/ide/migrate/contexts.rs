//! Request contexts: the (server, URL) pairs whose walks reach the configuration's sections.
//!
//! A context fixes everything the walk depends on — the virtual host (by the connection's
//! address and port, then the Host header) and the URL — so that every section the
//! configuration names is reached by at least one context where that is possible: each
//! `<Location>` path (wildcards and regular expressions through a witness string), each
//! `<Directory>` mapped back to URLs through DocumentRoot and Alias, each `<Files>` name under
//! the directories it can apply to, and each directory holding an .htaccess file.

use crate::ide::access::witnesses::{
    directory_examples, files_apart, files_applies, files_meeting, files_witnesses, regex_is_match, regex_witnesses,
    wildcard_witness,
};
use crate::ide::access::{
    section_pattern, user_dirs_on_disk, userdir_parts, vhost_address, wildcard_match, SectionPattern,
};
use crate::ide::config::index::{vhosts_serving, AliasKind, AliasLine};
use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::policy::addr::sockaddr_equal;
use std::collections::BTreeSet;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// URLs per server above this are dropped (the proof then says it was bounded); the URLs at
/// which each section is asked at all are kept whatever their number ([`within_budget`]).
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

/// One request context: which server, which URL, and which disk.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Ctx {
    pub server: usize,
    pub host: Option<String>,
    pub local: Option<(IpAddr, u16)>,
    pub url: String,
    /// Asked with every `<Location>` path taken to be a directory ([`located_urls`]): a file
    /// below one may be created at any time, and `<Files>`-type sections then apply to it.
    pub located: bool,
    /// The subrequest of mod_dir's that `url` is asked as, on the walk of the request making it.
    pub sub: Option<Subrequest>,
    /// The URL of the fresh directory `url` lies in, when it was made up for a pattern
    /// `<Directory>` to apply alone ([`fresh_examples`]): a change there holds in any directory
    /// no section names.
    pub fresh: Option<String>,
}

/// A subrequest mod_dir makes, asked as httpd walks it: its Directory phase is the walk of the
/// request making it where the file it maps to is a regular file of the directory that walk
/// ended in ([`crate::ide::access::resolve_subrequest`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Subrequest {
    /// The DirectoryIndex subrequest for a name in the directory the main request `main` (a
    /// directory URL) walked: `dir`, that directory's file system path.
    Index { main: String, dir: PathBuf },
    /// FallbackResource's subrequest for a name that is not there: `missing`, that request as a
    /// change names it (a DirectoryIndex subrequest's own missing name among them); `walked`, the
    /// file system path its walk stopped at, missing.
    Fallback { missing: String, walked: PathBuf },
}

impl Subrequest {
    /// The path whose Directory walk the subrequest may reuse.
    pub fn main_walk(&self) -> &Path {
        match self {
            Subrequest::Index { dir, .. } => dir,
            Subrequest::Fallback { walked, .. } => walked,
        }
    }

    /// How a change names it.
    pub fn note(&self) -> String {
        match self {
            Subrequest::Index { main, .. } => format!("as mod_dir's DirectoryIndex subrequest of {main}"),
            Subrequest::Fallback { missing, .. } => {
                format!("as FallbackResource's subrequest for the missing {missing}")
            }
        }
    }
}

/// The servers of a configuration that connections reach, each with the local address and
/// port of one connection reaching it (and the Host header picking it among the virtual hosts
/// set for that address). httpd hands a connection to the virtual hosts set for its local
/// address and port, else to the `*`/`_default_` ones for its port, else to the main server
/// ([`vhosts_serving`]); the connections are those the `Listen` lines accept: on an address a
/// `Listen` names, or, for a `Listen` on every address, on each address a virtual host names and
/// on one none names. (Without any `Listen` line, each virtual host's own address and an address
/// and port no virtual host takes, as `check` counts the main server in then.) The main server
/// comes first when a connection reaches it, then the virtual hosts reached, in configuration
/// order, each once.
pub(super) fn servers(cfg: &Config) -> Vec<Server<'_>> {
    let vhosts: Vec<&Node> = cfg.nodes.iter().filter(|n| n.is_section() && n.is("VirtualHost")).collect();
    if vhosts.is_empty() {
        return vec![Server { vhost: None, host: None, local: None }];
    }
    let addrs: Vec<Vec<(Option<IpAddr>, u16)>> =
        vhosts.iter().map(|v| v.args().filter_map(parse_address).collect()).collect();
    let named: Vec<IpAddr> = addrs.iter().flatten().filter_map(|(ip, _)| *ip).collect();
    // An address no virtual host names (where a `*` one, or the main server, answers).
    let unnamed = ["127.0.0.1", "::1"]
        .iter()
        .map(|a| a.parse::<IpAddr>().expect("a literal address"))
        .chain((2..=254u8).map(|i| IpAddr::from([127, 0, 0, i])))
        .find(|a| !named.iter().any(|n| sockaddr_equal(*n, *a)));
    let mut endpoints: Vec<(IpAddr, u16)> = Vec::new();
    let listens = crate::ide::explain::listen_addresses(cfg);
    if listens.is_empty() {
        for &(ip, port) in addrs.iter().flatten() {
            endpoints.extend(ip.or(unnamed).map(|ip| (ip, port)));
        }
        let taken = |p: u16| addrs.iter().flatten().any(|&(_, q)| q == p);
        if let (Some(ip), Some(port)) = (unnamed, (1..=u16::MAX).rev().find(|p| !taken(*p))) {
            endpoints.push((ip, port));
        }
    }
    for (addr, port) in listens {
        match addr {
            Some(ip) => endpoints.push((ip, port)),
            None => {
                let here = addrs.iter().flatten().filter(|(_, p)| *p == port || *p == 0).filter_map(|(ip, _)| *ip);
                endpoints.extend(here.chain(unnamed).map(|ip| (ip, port)));
            }
        }
    }
    let slices: Vec<&[(Option<IpAddr>, u16)]> = addrs.iter().map(Vec::as_slice).collect();
    let mut main: Option<(IpAddr, u16)> = None;
    let mut reached: Vec<Option<(IpAddr, u16)>> = vec![None; vhosts.len()];
    for (ip, port) in endpoints {
        let set = vhosts_serving(&slices, ip, port);
        if set.is_empty() {
            main.get_or_insert((ip, port));
        }
        for v in set {
            reached[v as usize].get_or_insert((ip, port));
        }
    }
    // A virtual host without a ServerName takes the main server's (`server/vhost.c`:
    // `fix_hostname` is not run for it; `ap_fini_vhost_config` fills it in).
    let main_name = cfg
        .nodes
        .iter()
        .rfind(|c| c.kind == NodeKind::Directive && c.is("ServerName"))
        .and_then(|c| c.arg(0))
        .map(host_of);
    let mut out: Vec<Server> = main.map(|l| Server { vhost: None, host: None, local: Some(l) }).into_iter().collect();
    for (v, local) in vhosts.into_iter().zip(reached) {
        let Some(local) = local else { continue };
        let names = v.children.iter().filter(|c| c.kind == NodeKind::Directive);
        let own = names.clone().filter(|c| c.is("ServerName")).flat_map(|c| c.args()).next().is_some();
        let host = names
            .filter(|c| c.is("ServerName") || c.is("ServerAlias"))
            .flat_map(|c| c.args())
            .map(host_of)
            .find(|n| !n.contains(['*', '?']))
            .or_else(|| main_name.clone().filter(|_| !own));
        out.push(Server { vhost: Some(v), host, local: Some(local) });
    }
    out
}

/// The host name of a ServerName or ServerAlias word (without scheme and port).
fn host_of(n: &str) -> String {
    n.split("://").last().unwrap_or(n).split(':').next().unwrap_or(n).to_string()
}

/// `<VirtualHost>` address → (IP, None for `*`/`_default_`; port, 0 for any). None for names.
fn parse_address(arg: &str) -> Option<(Option<IpAddr>, u16)> {
    vhost_address(arg).ok()
}

/// Where a server maps URLs: its DocumentRoot, mod_alias's list of aliases, and the
/// file-system `UserDir` entries in force (`/home/*/public_html`, `/home`) with the users'
/// directories found on disk under them.
pub(super) struct Mapping {
    docroot: String,
    /// `Alias`, `ScriptAlias`, `AliasMatch` and `ScriptAliasMatch` lines as mod_alias tries them
    /// (the first that matches maps the URL): the virtual host's own, then the main server's,
    /// each in configuration order.
    aliases: Vec<AliasLine>,
    userdir: Vec<String>,
    user_dirs: Vec<String>,
}

/// The words of the `UserDir` in force for `server` (its own, else the main server's), when
/// mod_userdir is loaded: only the entries naming file-system paths (`/home/*/public_html`,
/// `/home`), which need no lookup of users' home directories; the relative ones are
/// [`relative_userdir`]'s.
fn userdir_words(cfg: &Config, server: &Server) -> Vec<String> {
    if !cfg.module_loaded("userdir_module") {
        return vec![];
    }
    let last = |nodes: &mut dyn Iterator<Item = &Node>| {
        nodes
            .filter(|n| n.kind == NodeKind::Directive && n.is("UserDir"))
            .filter(|n| {
                n.arg(0).is_some_and(|w| {
                    !["enable", "enabled", "disable", "disabled"].iter().any(|k| w.eq_ignore_ascii_case(k))
                })
            })
            .last()
            .map(Node::arg_strings)
    };
    let own = server.vhost.and_then(|v| last(&mut v.children.iter()));
    own.or_else(|| last(&mut cfg.nodes.iter())).unwrap_or_default()
}

/// The `UserDir` entries a server uses that name a home directory relative path
/// (`public_html`), which only the passwd database maps.
pub(super) fn relative_userdir(cfg: &Config) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in servers(cfg) {
        for w in userdir_words(cfg, &s) {
            if !w.starts_with('/') && !w.contains(':') && !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
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
    let lines = |nodes: &mut dyn Iterator<Item = &Node>| -> Vec<AliasLine> {
        nodes
            .filter(|n| n.kind == NodeKind::Directive)
            .filter_map(|n| {
                let kind = AliasKind::of(n.known())?;
                Some(AliasLine { kind, from: n.arg(0)?.to_string(), to: n.arg(1)?.to_string() })
            })
            .collect()
    };
    let mut aliases = server.vhost.map(|v| lines(&mut v.children.iter())).unwrap_or_default();
    aliases.extend(lines(&mut cfg.nodes.iter()));
    let userdir: Vec<String> =
        userdir_words(cfg, server).into_iter().filter(|w| w.starts_with('/') && !w.contains(':')).collect();
    let user_dirs = userdir.iter().flat_map(|e| user_dirs_on_disk(e)).map(|(_, d)| d).collect();
    Mapping { docroot: root.trim_end_matches('/').to_string(), aliases, userdir, user_dirs }
}

impl Mapping {
    /// The directories URLs map to: the document root, the alias targets (of a regex alias,
    /// the directory its substitution names before its first group) and the users' directories
    /// found.
    fn roots(&self) -> Vec<&str> {
        std::iter::once(self.docroot.as_str())
            .chain(self.plain_aliases().map(|(_, to)| to))
            .chain(self.regex_aliases().filter_map(|(_, to)| regex_alias_root(to)))
            .chain(self.user_dirs.iter().map(String::as_str))
            .collect()
    }

    /// (from, to) of the `Alias` and `ScriptAlias` lines, in order.
    fn plain_aliases(&self) -> impl Iterator<Item = (&str, &str)> {
        self.aliases.iter().filter(|a| !a.kind.is_regex()).map(|a| (a.from.as_str(), a.to.as_str()))
    }

    /// (regex, substitution) of the `AliasMatch` and `ScriptAliasMatch` lines, in order.
    fn regex_aliases(&self) -> impl Iterator<Item = (&str, &str)> {
        self.aliases.iter().filter(|a| a.kind.is_regex()).map(|a| (a.from.as_str(), a.to.as_str()))
    }

    /// The position in `aliases` of the alias that maps URL `u` (the first that matches it),
    /// with the file name it gives; None when none does.
    fn alias_of(&self, u: &str) -> Option<(usize, String)> {
        self.aliases.iter().enumerate().find_map(|(i, a)| Some((i, crate::ide::access::alias_target(a, u)?)))
    }

    /// Whether a URL made for the alias at `i` (None: for the document root) reaches what it was
    /// made for: that alias is the first to match it, as the URL or as a directory's (with a
    /// final slash). An `Alias /nagios` written before `ScriptAlias /nagios/cgi-bin` takes
    /// every URL below /nagios, and the ScriptAlias's directory is reached by none of them.
    fn leads_through(&self, u: &str, i: Option<usize>) -> bool {
        let slashed = format!("{}/", u.trim_end_matches('/'));
        [u, slashed.as_str()].iter().any(|v| self.alias_of(v).map(|(k, _)| k) == i)
    }
}

/// The directory a regex alias's substitution names before its first group reference
/// (`/srv/out/` of `/srv/out/$1`), when it is an absolute path.
fn regex_alias_root(to: &str) -> Option<&str> {
    let dir = match group_ref(to) {
        Some((i, _)) => &to[..to[..i].rfind('/')? + 1],
        // (No group: the substitution names one path.)
        None => to,
    };
    (dir.starts_with('/') && !dir.contains('\\')).then_some(dir)
}

/// The first `$N` reference of a substitution: its byte offset and group number.
fn group_ref(to: &str) -> Option<(usize, usize)> {
    let b = to.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'$' if b[i + 1].is_ascii_digit() => return Some((i, usize::from(b[i + 1] - b'0'))),
            _ => i += 1,
        }
    }
    None
}

/// Regex aliases' URLs tried per path, at most.
const MAX_REGEX_ALIAS_URLS: usize = 4;

/// URLs an `AliasMatch`/`ScriptAliasMatch` (`re` → `to`) maps to the file system path `p` (a
/// directory, or a file): each of the regex's examples with the text of the group `to` names
/// replaced by what `p` holds there, kept only where httpd's own substitution of it gives `p`
/// (with or without a trailing slash). `AliasMatch "^/am/(.*)$" "/srv/out/$1"` reaches
/// `/srv/out/sub` at `/am/sub`; a proof asking only the plain aliases missed those URLs, where
/// other `<Location>` sections apply (black-box round 15 F1: a `<Directory /srv/out>` rewrite
/// asked only through an `Alias /al` that a `<Location /al>` denied turned GET /am/x.txt 200 → 403).
fn regex_alias_urls(re: &str, to: &str, p: &str) -> Vec<String> {
    let p = p.trim_end_matches('/');
    let mut out: Vec<String> = Vec::new();
    // What the referenced group must hold, for `p` and for `p/`.
    let middles: Vec<(usize, String)> = match group_ref(to) {
        Some((i, no)) => {
            let (head, tail) = (&to[..i], &to[i + 2..]);
            if group_ref(tail).is_some() {
                return out;
            }
            let tail = crate::ide::pcre_match::pregsub(tail, b"", &[]);
            let head = crate::ide::pcre_match::pregsub(head, b"", &[]);
            [p.to_string(), format!("{p}/")]
                .into_iter()
                .filter_map(|q| {
                    let mid = q.strip_prefix(head.as_str())?.strip_suffix(tail.as_str())?;
                    Some((no, mid.to_string()))
                })
                .collect()
        }
        None => vec![(usize::MAX, String::new())],
    };
    let gives_p = |u: &str| -> bool {
        crate::ide::access::patterns::with_regex(re, false, |r| {
            r.captures(u.as_bytes())
                .filter(|c| !c.is_empty())
                .map(|c| crate::ide::pcre_match::pregsub(to, u.as_bytes(), &c))
        })
        .flatten()
        .is_some_and(|got| got.trim_end_matches('/') == p)
    };
    // (`p/` only where `p` gives none: the callers ask a directory with its slash anyway.)
    for (no, mid) in &middles {
        if !out.is_empty() {
            break;
        }
        for w in regex_witnesses(re) {
            let w = if w.starts_with('/') { w } else { format!("/{w}") };
            let caps = crate::ide::access::patterns::with_regex(re, false, |r| r.captures(w.as_bytes())).flatten();
            // (A group may end inside a character of a byte-wise pattern: nothing is built then.)
            let u = match caps.as_ref().and_then(|c| c.get(*no).copied().flatten()) {
                Some((s, e)) => match (w.get(..s), w.get(e..)) {
                    (Some(a), Some(b)) => format!("{a}{mid}{b}"),
                    _ => continue,
                },
                None => w.clone(),
            };
            if out.len() < MAX_REGEX_ALIAS_URLS && u.starts_with('/') && !out.contains(&u) && gives_p(&u) {
                out.push(u);
            }
        }
    }
    out
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
    // (Each only where no other alias takes it first.)
    out.retain(|u| m.leads_through(u, None));
    for (i, a) in m.aliases.iter().enumerate() {
        let (from, to) = (a.from.as_str(), a.to.as_str());
        let urls = if a.kind.is_regex() {
            regex_alias_urls(from, to, p)
        } else if let Some(rest) = under(p, to) {
            vec![format!("{}{}", from.trim_end_matches('/'), rest)]
        } else if under(to, p).is_some() && !above_docroot {
            // A directory above an alias target (and not above the document root, which
            // "/" already reaches).
            vec![from.to_string()]
        } else {
            vec![]
        };
        out.extend(urls.into_iter().filter(|u| m.leads_through(u, Some(i))));
    }
    // A user's directory (`/~user/…`), by the name the path holds where the entry has `*`.
    let user_urls = |p: &str| -> Vec<String> {
        let mut out = Vec::new();
        for entry in &m.userdir {
            let (prefix, rest) = userdir_parts(entry);
            let Some(after) = p.strip_prefix(prefix.as_str()) else { continue };
            let user = after.split('/').next().unwrap_or_default();
            let user = user.strip_suffix(rest).filter(|_| !rest.contains('/')).unwrap_or(user);
            let tail = after[user.len()..].strip_prefix(rest.trim_end_matches('/'));
            if let Some(tail) = tail.filter(|t| !user.is_empty() && (t.is_empty() || t.starts_with('/'))) {
                out.push(format!("/~{user}{tail}"));
            }
        }
        out
    };
    let own = user_urls(p);
    if own.is_empty() && !above_docroot {
        // A directory above users' directories (`/home/alice` above `/home/alice/public_html`):
        // their walks pass through it, and read its .htaccess file (black-box round 16, C F14).
        for d in m.user_dirs.iter().filter(|d| under(d, p).is_some_and(|r| !r.is_empty())) {
            out.extend(user_urls(d));
        }
    }
    out.extend(own);
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

/// How many directories a pattern section is tried beneath, and how many names its wildcards
/// are filled with, at most.
const MAX_MEETINGS: usize = 64;

/// [`directory_examples`] of each of `sections`, plus where pattern sections meet the others: a
/// regex is also tried beneath every other section's example (and beneath `meet_at`, the other
/// contexts' directories: those holding .htaccess files, those `<Location>` paths map to), and
/// each wildcard component filled with every name the other examples hold. `<DirectoryMatch
/// "/deeper">` and `<DirectoryMatch "/sub">` both apply to `…/sub/deeper`, which neither gives
/// alone, and where httpd merges both: a proof that never asks there misses how they combine.
/// httpd merges regex sections after every plain and wildcard one and after every .htaccess
/// file, so one reaching deeper than its own example meets them there: beneath each base the
/// regex is tried with its witness whole and with each of the witness's last components
/// (`<Directory ~ "…/a/.*/c">` beneath an .htaccess in `…/a/b` is `…/a/b/c`), and beneath the
/// wildcard sections' filled examples too (`…/*/b` filled to `…/a/b`). Each section's own
/// examples come first in its list; the second value holds how many there are.
fn directory_examples_meeting(
    sections: &[&Node],
    roots: &[&str],
    meet_at: &[String],
) -> (Vec<Vec<String>>, Vec<usize>) {
    let mut each: Vec<Vec<String>> = sections.iter().map(|n| directory_examples(n, roots)).collect();
    let own: Vec<usize> = each.iter().map(Vec::len).collect();
    let add_base = |bases: &mut Vec<String>, p: &str| {
        let p = p.trim_end_matches('/').to_string();
        if !p.is_empty() && !bases.contains(&p) {
            bases.push(p);
        }
    };
    let bases = capped_bases(roots, &each, meet_at, add_base);
    let mut names: Vec<&str> = Vec::new();
    for b in &bases {
        for c in b.split('/').filter(|c| !c.is_empty()) {
            if !names.contains(&c) {
                names.push(c);
            }
        }
    }
    names.truncate(MAX_MEETINGS);
    let add = |out: &mut Vec<String>, p: String, applies: bool| {
        if applies && !out.contains(&p) {
            out.push(p);
        }
    };
    // Wildcards first: their filled examples are bases the regexes are tried beneath.
    for (n, out) in sections.iter().zip(each.iter_mut()) {
        if let Some(SectionPattern::Wildcard(pat)) = section_pattern(n) {
            // One wildcard component at a time filled with each name it matches, the
            // others as the plain witness fills them.
            let comps: Vec<&str> = pat.split('/').collect();
            for (k, comp) in comps.iter().enumerate() {
                if !crate::ide::access::has_wildcard(comp) {
                    continue;
                }
                for name in names.iter().filter(|w| wildcard_match(comp, w, true)) {
                    let filled: Vec<String> = comps
                        .iter()
                        .enumerate()
                        .map(|(i, c)| match i == k {
                            true => (*name).to_string(),
                            false => wildcard_witness(c, true).unwrap_or_else(|| (*c).to_string()),
                        })
                        .collect();
                    let p = filled.join("/");
                    let applies = wildcard_match(pat, &p, true);
                    add(out, p, applies);
                }
            }
        }
    }
    let mut regex_bases = bases.clone();
    for (n, ex) in sections.iter().zip(&each) {
        if matches!(section_pattern(n), Some(SectionPattern::Wildcard(_))) {
            for p in ex {
                if regex_bases.len() < 2 * MAX_MEETINGS {
                    add_base(&mut regex_bases, p);
                }
            }
        }
    }
    // Twice: the second time beneath where the first grew the regexes, so that two regexes
    // meet below an .htaccess directory (`[a-z]/b` grown to `…/a/b` beneath `…/a`, then
    // `a/.*/c` grown to `…/a/b/c` beneath that, where both apply).
    for round in 0..2 {
        let mut grown: Vec<String> = Vec::new();
        for ((n, out), k) in sections.iter().zip(each.iter_mut()).zip(&own) {
            let Some(SectionPattern::Regex(pat)) = section_pattern(n) else { continue };
            let before = out.len();
            for w in regex_witnesses(pat) {
                let whole = if w.starts_with('/') { w.clone() } else { format!("/{w}") };
                let tails: Vec<&str> = match round {
                    0 => std::iter::once(whole.as_str()).chain(last_components(&w, 3)).collect(),
                    _ => last_components(&w, 3).collect(),
                };
                for tail in tails {
                    for b in &regex_bases {
                        let p = format!("{b}{tail}");
                        let applies = regex_is_match(pat, &p);
                        add(out, p, applies);
                    }
                }
            }
            grown.extend(out[before.max(*k)..].iter().cloned());
        }
        regex_bases.clear();
        for p in grown.iter().take(MAX_MEETINGS) {
            add_base(&mut regex_bases, p);
        }
    }
    (each, own)
}

/// The bases [`directory_examples_meeting`] grows regexes beneath, at most [`MAX_MEETINGS`]:
/// `roots`, the sections' own examples `each`, and `meet_at` (the directories of .htaccess files
/// and `<Location>` paths). When they are more, the three kinds take turns, so that each keeps a
/// share: taken in that order, the examples of 64 `<Directory>` sections (or 64 document roots)
/// left no room for the .htaccess and Location directories where a regex meets other rules.
fn capped_bases(
    roots: &[&str],
    each: &[Vec<String>],
    meet_at: &[String],
    add_base: impl Fn(&mut Vec<String>, &str),
) -> Vec<String> {
    let kinds: [Vec<&str>; 3] = [
        roots.to_vec(),
        meet_at.iter().map(String::as_str).collect(),
        each.iter().flatten().map(String::as_str).collect(),
    ];
    let mut bases: Vec<String> = Vec::new();
    if kinds.iter().map(Vec::len).sum::<usize>() <= MAX_MEETINGS {
        // (All of them, in the order the regexes' examples have always been grown in.)
        for p in kinds[0].iter().chain(&kinds[2]).chain(&kinds[1]) {
            add_base(&mut bases, p);
        }
        return bases;
    }
    let mut iters: Vec<std::slice::Iter<&str>> = kinds.iter().map(|k| k.iter()).collect();
    while bases.len() < MAX_MEETINGS {
        let mut any = false;
        for it in &mut iters {
            if let Some(p) = it.next() {
                any = true;
                if bases.len() < MAX_MEETINGS {
                    add_base(&mut bases, p);
                }
            }
        }
        if !any {
            break;
        }
    }
    bases
}

/// The last `k` (at most) suffixes of `w` that begin at a component: `/c`, `/b/c`, … of
/// `x/a/b/c` (a trailing slash kept, the whole string left out).
fn last_components(w: &str, k: usize) -> impl Iterator<Item = &str> {
    let body = w.trim_end_matches('/');
    body.rmatch_indices('/').filter(|(i, _)| *i > 0 && !w[i + 1..].starts_with('/')).take(k).map(move |(i, _)| &w[i..])
}

/// The URLs a `<Location>` or `<LocationMatch>` section is asked at: its path, or a witness of
/// its pattern. Each is also taken as a directory files are asked for in.
fn location_urls(n: &Node) -> Vec<String> {
    match section_pattern(n) {
        Some(SectionPattern::Regex(pat)) => regex_witnesses(pat)
            .into_iter()
            .filter_map(|w| {
                [w.clone(), format!("/{w}"), format!("/x{w}")]
                    .into_iter()
                    .find(|u| u.starts_with('/') && regex_is_match(pat, u))
            })
            .collect(),
        Some(SectionPattern::Wildcard(pat)) => wildcard_witness(pat, true).into_iter().collect(),
        Some(SectionPattern::Plain(pat)) if pat.starts_with('/') => vec![pat.to_string()],
        _ => vec![],
    }
}

/// Names a `<Location>` regex `pat` reaches beside its example URL `u`, where other directories'
/// rules apply than at `u`: `u`'s last component grown (`^/sub` reaches /subzq), and `u` below
/// another directory (`/private/` reaches /zq/private/), each kept only where the regex still
/// matches. Both are names no section names, so the walk takes them to be missing. Asked only at
/// its example, a `<LocationMatch "^/sub">` whose `Require all granted` met htdocs's old-style
/// `Deny` only at /sub…, under a `<Directory htdocs/sub>` resetting it, let a rewrite of htdocs
/// turn GET /subway.txt 403 → 200 (black-box round 15 F5).
fn grown_location_urls(pat: &str, u: &str) -> Vec<String> {
    let bare = u.trim_end_matches('/');
    let mut out: Vec<String> = Vec::new();
    for c in [format!("{bare}zq"), format!("{bare}-zq"), format!("/zq{u}")] {
        if c.starts_with('/') && c != u && !out.contains(&c) && regex_is_match(pat, &c) {
            out.push(c);
        }
    }
    out
}

/// Whether a section's pattern matches `text` (a URL, or a file name for `<Files>`; a plain
/// pattern only when equal: a `<Location>` prefix is asked at its own path elsewhere).
fn applies(pat: &SectionPattern, text: &str) -> bool {
    match pat {
        SectionPattern::Regex(p) => regex_is_match(p, text),
        SectionPattern::Wildcard(p) => wildcard_match(p, text, true),
        SectionPattern::Plain(p) => *p == text,
    }
}

/// The file system path a URL path maps to: through the first alias of mod_alias's list that
/// matches it, else below the document root (runs of `/` made one, as the walk takes them).
fn url_to_fs(u: &str, m: &Mapping) -> String {
    // A user's URL (`/~alice/…`) through the first file-system UserDir entry: mod_userdir
    // translates before mod_alias, and where the user's directory is not there yet this is the
    // path it has once made.
    if let (Some(after), Some(entry)) = (u.strip_prefix("/~"), m.userdir.first()) {
        let (user, tail) = after.split_at(after.find('/').unwrap_or(after.len()));
        if !matches!(user, "" | "." | "..") {
            let (prefix, rest) = userdir_parts(entry);
            return format!("{prefix}{user}{}{tail}", rest.trim_end_matches('/'));
        }
    }
    let path = match m.alias_of(u) {
        Some((_, p)) => p,
        None => format!("{}{u}", m.docroot),
    };
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out
}

/// A directory holding an .htaccess file, and the file names its `<Files>` sections apply to.
#[derive(Debug, Clone)]
pub(super) struct HtaccessDir {
    pub dir: PathBuf,
    pub names: Vec<String>,
    /// Those `<Files>` sections (copies: an .htaccess file is small), to find where they meet
    /// the server's own.
    pub files: Vec<Node>,
}

/// The URLs a server is asked at ([`urls`]).
pub(super) struct Urls {
    /// Asked on the disk as the proof takes it (a `<Location>` path no directory unless one is
    /// there or named).
    pub plain: BTreeSet<String>,
    /// Asked with the `<Location>` paths taken to be directories ([`located_urls`]).
    pub located: BTreeSet<String>,
    /// Some were dropped.
    pub bounded: bool,
    /// The URLs of the fresh directories pattern sections were asked in ([`fresh_examples`]).
    pub fresh: BTreeSet<String>,
}

/// URLs that reach the sections of one server; `pattern_meetings`, the URLs of its directories where a
/// wildcard or regex `<Directory>` meets a `<Location>` ([`location_pattern_meetings`]).
pub(super) fn urls(cfg: &Config, server: &Server, htaccess_dirs: &[HtaccessDir], pattern_meetings: &[String]) -> Urls {
    let m = mapping(cfg, server);
    let mut urls: BTreeSet<String> = ["/".to_string(), "/index.html".to_string()].into();
    // The URLs at which each section is asked at all (its path, its directory's, a file it
    // names in the directory it stands in): the budget never drops these, or the section would
    // be reached by no request and could never be rewritten.
    let mut own_urls: BTreeSet<String> = urls.clone();
    let mut dir_urls: BTreeSet<String> = ["/".to_string()].into();
    // Each Alias to a directory: a tree of its own, where none of the document root's
    // <Directory> sections or .htaccess files apply, so sections that apply anywhere (a
    // top-level <Files>) meet other rules there (a server-level <FilesMatch> rewritten beside a
    // virtual host's old-style <Location />, which replaces its Order/Allow/Deny before the
    // rewrite and not after, changed POST /al/x.txt 401 → 403 where only the alias led).
    for (from, to) in m.plain_aliases() {
        if to.ends_with('/') || !Path::new(to).is_file() {
            let d = format!("{}/", from.trim_end_matches('/'));
            urls.insert(d.clone());
            own_urls.insert(d.clone());
            dir_urls.insert(d);
        }
    }
    // Each regex alias's directory (the one its substitution names before its first group),
    // as the regex reaches it: the same tree of its own.
    for (re, to) in m.regex_aliases() {
        let root = regex_alias_root(to).filter(|r| r.ends_with('/') || !Path::new(r).is_file());
        for u in root.map(|root| regex_alias_urls(re, to, root)).unwrap_or_default() {
            let d = format!("{}/", u.trim_end_matches('/'));
            urls.insert(d.clone());
            own_urls.insert(d.clone());
            dir_urls.insert(d);
        }
    }
    // URL paths of Location sections, as directories a file may be asked for in.
    let mut location_dirs: BTreeSet<String> = BTreeSet::new();
    let scope: Vec<&Node> =
        cfg.nodes.iter().chain(server.vhost.map(|v| v.children.iter()).into_iter().flatten()).collect();
    let mut files: Vec<(&Node, Vec<String>)> = Vec::new();
    // Regex and wildcard `<Location>` patterns with their witnesses, tried again below where
    // the other sections' URLs lead once those are all known.
    let mut location_patterns: Vec<(SectionPattern, Vec<String>)> = Vec::new();
    // Regex and wildcard `<Location>` sections with each URL they are asked at.
    let mut pattern_locations: Vec<(SectionPattern, String)> = Vec::new();
    // Every `<Location>`-type section holding access lines with each URL it is asked at (its
    // pattern, None for a plain path, which applies below itself).
    let mut access_locations: Vec<(Option<SectionPattern>, String)> = Vec::new();
    let (directories, locations) = scope_sections(&scope);
    // The other contexts a regex `<Directory>` may reach deeper than its own example: the
    // directories holding .htaccess files, those `<Location>` paths map to, and each of their
    // ancestors (`<LocationMatch "^/d1/.*/x">` meets `<Directory ~ "/n$">` at /d1/n/x, n a
    // directory of /d1, or a missing name where the walk stops; `<LocationMatch
    // "^/d1/[a-z]+/x">`, asked at /d1/a/x, meets it there too, two components up).
    let mut location_paths: Vec<String> = Vec::new();
    for u in locations.iter().flat_map(|n| location_urls(n)) {
        let mut p = u.trim_end_matches('/');
        while !p.is_empty() {
            let fs = url_to_fs(p, &m);
            if !location_paths.contains(&fs) {
                location_paths.push(fs);
            }
            p = p.rsplit_once('/').map_or("", |(a, _)| a.trim_end_matches('/'));
        }
    }
    let meet_at: Vec<String> =
        htaccess_dirs.iter().map(|h| h.dir.to_string_lossy().into_owned()).chain(location_paths).collect();
    let (mut examples, mut own) = directory_examples_meeting(&directories, &m.roots(), &meet_at);
    // Each pattern section's examples in a fresh directory, among its own: where it applies
    // alone ([`fresh_examples`]).
    let mut fresh: BTreeSet<String> = BTreeSet::new();
    for (i, (ex, dirs)) in fresh_examples(&directories, &m, &locations).into_iter().enumerate() {
        fresh.extend(dirs);
        let ex: Vec<String> = ex.into_iter().filter(|p| !examples[i].contains(p)).collect();
        own[i] += ex.len();
        examples[i].splice(own[i] - ex.len()..own[i] - ex.len(), ex);
    }
    let examples_of = |n: &Node| {
        directories
            .iter()
            .position(|d| std::ptr::eq(*d, n))
            .map(|i| (examples[i].as_slice(), own[i]))
            .unwrap_or_default()
    };
    // The directories sections name themselves (not where a pattern was tried beneath another
    // section's): a server-level <Files> section is asked in each of these first.
    let mut named_dir_urls: BTreeSet<String> = dir_urls.clone();
    // Among them, those of sections holding old-style lines (what a rewrite changes), asked first.
    let mut old_dir_urls: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<(&Node, Option<Vec<String>>)> = scope.iter().map(|n| (*n, None)).collect();
    while let Some((n, dir_scope)) = stack.pop() {
        if !n.is_section() || n.is("VirtualHost") {
            continue;
        }
        let mut inner_scope = dir_scope.clone();
        match n.known() {
            "Location" | "LocationMatch" => {
                match section_pattern(n) {
                    Some(SectionPattern::Regex(pat)) => {
                        location_patterns.push((SectionPattern::Regex(pat), regex_witnesses(pat)));
                    }
                    Some(SectionPattern::Wildcard(pat)) => location_patterns
                        .push((SectionPattern::Wildcard(pat), wildcard_witness(pat, true).into_iter().collect())),
                    Some(SectionPattern::Plain(pat)) if pat.starts_with('/') => {
                        urls.insert(format!("{}/x", pat.trim_end_matches('/')));
                    }
                    _ => {}
                }
                let pattern = section_pattern(n).filter(|p| !matches!(p, SectionPattern::Plain(_)));
                let asked = location_urls(n);
                if let Some(SectionPattern::Regex(pat)) = section_pattern(n) {
                    for g in asked.iter().flat_map(|u| grown_location_urls(pat, u)) {
                        own_urls.insert(g.clone());
                        urls.insert(g);
                    }
                }
                for u in asked {
                    location_dirs.insert(format!("{}/", u.trim_end_matches('/')));
                    if let Some(p) = &pattern {
                        pattern_locations.push((*p, u.clone()));
                    }
                    if has_access_lines(n) {
                        access_locations.push((pattern, u.clone()));
                    }
                    own_urls.insert(u.clone());
                    urls.insert(u);
                }
            }
            "Directory" | "DirectoryMatch" => {
                let mut here = Vec::new();
                let regex = matches!(section_pattern(n), Some(SectionPattern::Regex(_)));
                let (examples, own) = examples_of(n);
                for (k, p) in examples.iter().enumerate() {
                    // A name the regex matches that no section names as a directory: the
                    // walk of a missing last component, where the regex applies and a wildcard
                    // `<Directory …/*>` does not (the proof takes the directories sections
                    // name to be there, so their own URLs never ask it).
                    if let (Some(SectionPattern::Regex(pat)), true) = (section_pattern(n), k < own) {
                        if let Some(q) = missing_sibling(pat, p) {
                            for u in fs_to_urls(&q, &m).into_iter().filter(|u| u != "/") {
                                let u = u.trim_end_matches('/').to_string();
                                own_urls.insert(u.clone());
                                urls.insert(u);
                            }
                        }
                    }
                    for u in fs_to_urls(p, &m) {
                        // A regex is matched against the whole file name: it may name files.
                        if regex && u != "/" {
                            urls.insert(u.trim_end_matches('/').to_string());
                        }
                        let d = format!("{}/", u.trim_end_matches('/'));
                        here.push(d.clone());
                        if k < own {
                            if holds_old_style(n) {
                                old_dir_urls.insert(d.clone());
                            }
                            named_dir_urls.insert(d.clone());
                            own_urls.insert(d.clone());
                            own_urls.insert(format!("{d}index.html"));
                        }
                        dir_urls.insert(d.clone());
                        urls.insert(d.clone());
                        urls.insert(format!("{d}index.html"));
                    }
                }
                inner_scope = Some(here);
            }
            "Files" | "FilesMatch" => files.push((n, dir_scope.clone().unwrap_or_default())),
            _ => {}
        }
        for c in &n.children {
            stack.push((c, inner_scope.clone()));
        }
    }
    // Where a pattern `<Location>` meets the others: its witness, or the witness's last
    // component, below each other section's URL (`<LocationMatch "/c150/.*index">` and
    // `<Location /c150/sub>` both apply to /c150/sub/index, which neither gives alone; a proof
    // that never asks there missed a rewrite letting PUT through, found by migrate_generated).
    // Every directory URL is a base, and only the URLs the pattern matches count against its
    // bound: taking the first few bases in name order let sections the pattern never reaches
    // decide which it was asked under (an empty `<Directory cgi>` no URL maps to, asked through a
    // probe alias, put `/__apache-lsp-probe-0__/…` and `/al/cgi/…` before `/d1/n/`, and
    // `<LocationMatch "^/d1/.*/x">` was no longer asked at /d1/n/x, where a regex `<Directory ~
    // "/[nt]$">` meets it on the missing name: its rewrite was proven and turned POST
    // /d1/s/n/x.txt 404 → 403, black-box round 15 seed 1026). When a pattern matches more, the
    // proof says it was bounded.
    // (Kept apart: when a server has more URLs than the proof takes, these go last, and every
    // section's own URLs stay.)
    let mut meetings: BTreeSet<String> = BTreeSet::new();
    let mut meetings_cut = false;
    let bases: Vec<&String> =
        location_dirs.iter().chain(dir_urls.iter().filter(|d| !location_dirs.contains(*d))).collect();
    for (pat, witnesses) in &location_patterns {
        let mut added = 0;
        let applies = |u: &str| match pat {
            SectionPattern::Regex(p) => regex_is_match(p, u),
            SectionPattern::Wildcard(p) => wildcard_match(p, u, true),
            SectionPattern::Plain(_) => false,
        };
        'pattern: for w in witnesses {
            let last = w.rsplit('/').find(|c| !c.is_empty()).unwrap_or_default();
            for b in &bases {
                for tail in [w.trim_start_matches('/'), last] {
                    let u = format!("{}/{tail}", b.trim_end_matches('/'));
                    if tail.is_empty() || urls.contains(&u) || meetings.contains(&u) || !applies(&u) {
                        continue;
                    }
                    if added == MAX_MEETINGS {
                        meetings_cut = true;
                        break 'pattern;
                    }
                    meetings.insert(u);
                    added += 1;
                }
            }
        }
    }
    // The server's `<Files>` sections, and names where two of them, or one of them and an
    // .htaccess file's, both apply: a regex `<Files ~ "^c">` with a Require and an .htaccess
    // `<FilesMatch "\.php$">` rewritten to Require lines that replace it meet only at names
    // like c.php, which neither's own names reach (black-box round 11a bug 10: 401 → 200).
    let server_files: Vec<&Node> = files.iter().map(|(f, _)| *f).collect();
    // What `pair` (files_meeting, files_apart) makes of `f` with each of `others` but itself.
    let with_others = |pair: fn(&Node, &Node) -> Vec<String>, others: &[&Node], f: &Node| -> Vec<String> {
        others.iter().filter(|g| !std::ptr::eq(**g, f)).flat_map(|g| pair(f, g)).collect()
    };
    // Names where two of them meet, and names where one applies without another that its own
    // names always meet.
    let meetings_with = |others: &[&Node], f: &Node| with_others(files_meeting, others, f);
    let apart_from = |others: &[&Node], f: &Node| with_others(files_apart, others, f);
    let mut htaccess_files: Vec<(String, Vec<String>)> = Vec::new();
    // The directories holding .htaccess files, and the file names `<Files>`-type sections apply
    // to with the directory URL below which they do and their patterns ([`location_joins`]).
    let mut htaccess_dir_urls: Vec<String> = Vec::new();
    let mut name_scopes: Vec<(String, Vec<SectionPattern>, Vec<String>)> = Vec::new();
    // File names `<Files>`-type sections with access lines apply to (where they meet, and
    // apart), with the URL of the directory below which they apply ("/" for the server's).
    let mut located_names: Vec<(String, Vec<String>)> = Vec::new();
    for h in htaccess_dirs {
        let mut names = h.names.clone();
        let own: Vec<&Node> = h.files.iter().collect();
        for f in &h.files {
            names.extend(meetings_with(&server_files, f));
            names.extend(meetings_with(&own, f));
            names.extend(apart_from(&server_files, f));
            names.extend(apart_from(&own, f));
        }
        let with_access: Vec<&Node> = h.files.iter().filter(|f| has_access_lines(f)).collect();
        for u in fs_to_urls(&h.dir.to_string_lossy(), &m) {
            let d = format!("{}/", u.trim_end_matches('/'));
            if !with_access.is_empty() {
                // (All the file's names: they are where its sections meet one another.)
                located_names.push((d.clone(), names.clone()));
            }
            dir_urls.insert(d.clone());
            named_dir_urls.insert(d.clone());
            urls.insert(d.clone());
            urls.insert(format!("{d}index.html"));
            own_urls.insert(d.clone());
            own_urls.insert(format!("{d}index.html"));
            own_urls.extend(names.iter().map(|name| format!("{d}{name}")));
            name_scopes.push((d.clone(), h.files.iter().filter_map(section_pattern).collect(), names.clone()));
            htaccess_dir_urls.push(d.clone());
            htaccess_files.push((d, names.clone()));
        }
    }
    // Files an .htaccess file's <Files> sections apply to (and, above, ones they do not): in
    // its directory and in every directory below it that other sections name (a deeper
    // .htaccess, a <Directory>, a <Location>). httpd merges those sections after the whole
    // directory walk for any file they match beneath the .htaccess, so there they meet the
    // deeper directories' own rules (a Require there stays in force only while the <Files>
    // section has none).
    for (d, names) in &htaccess_files {
        let below: Vec<&String> = dir_urls.iter().chain(&location_dirs).filter(|x| x.starts_with(d.as_str())).collect();
        for b in below {
            urls.extend(names.iter().map(|name| format!("{b}{name}")));
        }
    }
    for (f, scope) in files {
        let mut names = files_witnesses(f);
        names.extend(apart_from(&server_files, f));
        // Its own names in the first directory it stands in (at the top level, the root).
        let home = scope.first().map_or("/", String::as_str);
        own_urls.extend(names.iter().map(|name| format!("{home}{name}")));
        names.extend(meetings_with(&server_files, f));
        if has_access_lines(f) {
            // (Inside a <Directory>, the walk decides where it applies.)
            located_names.push(("/".to_string(), names.clone()));
            // Each name, and a missing one the section applies to, asked with a trailing
            // slash: the walk stops at the missing name (path info `/`), so the section applies
            // to it beside the `<Location>`-type sections that need the slash. Never asked, a
            // `<FilesMatch "^[ab]">` whose `Satisfy Any` let GET /al/ through (404) was
            // rewritten beside a `<LocationMatch "/$">` whose Require then decided: 403
            // (black-box round 15, C F4).
            // (The name itself only where no missing one is found: an existing file asked
            // with a slash is walked as the file.)
            for name in files_witnesses(f) {
                let missing = ["zq", "-zq", ".zq"].iter().map(|s| format!("{name}{s}")).find(|m| files_applies(f, m));
                let u = format!("{home}{}/", missing.unwrap_or(name));
                own_urls.insert(u.clone());
                urls.insert(u);
            }
        }
        // A <Files> section inside a <Directory> applies below it too, where other sections
        // (a deeper Directory, a DirectoryMatch, an .htaccess, a Location) may set other rules:
        // the file is asked for in each directory named under the scope as well.
        // (At the top level: the directories sections name, those of sections holding old-style
        // lines first (in name order, 63 directories before `htdocs/z` left z's block rewritten
        // beside a `<Files x.txt>` never asked there: round 17 C17 F11), then a few of those where
        // patterns meet, in name order. Taking only the first few of all of them in name order missed
        // /sub/ for a <Files "a.txt"> where a <Directory "htdocs/*/deeper"> had been tried
        // below every path component (/849/deeper/, /a/deeper/, …): a rewrite dropping the
        // Files section's Satisfy All changed /sub/a.txt 403 → 401/200, round 10 bug 2.)
        let dirs: BTreeSet<&String> = if scope.is_empty() {
            old_dir_urls
                .iter()
                .chain(named_dir_urls.iter().filter(|d| !old_dir_urls.contains(*d)))
                .take(MAX_MEETINGS)
                .chain(dir_urls.iter().take(8))
                .chain(location_dirs.iter().take(8))
                .collect()
        } else {
            // (The scope's own directories are among them.)
            dir_urls.iter().chain(&location_dirs).filter(|d| scope.iter().any(|s| d.starts_with(s.as_str()))).collect()
        };
        for d in dirs {
            urls.extend(names.iter().map(|name| format!("{d}{name}")));
        }
        if let Some(fp) = section_pattern(f) {
            let scopes = if scope.is_empty() { vec!["/".to_string()] } else { scope.clone() };
            name_scopes.extend(scopes.into_iter().map(|d| (d, vec![fp], names.clone())));
        }
    }
    // Where each pattern `<Location>` meets the directories holding .htaccess files and the
    // file names `<Files>`-type sections apply to (see [`location_joins`]).
    for (pat, u) in &pattern_locations {
        urls.extend(location_joins(pat, u, &htaccess_dir_urls, &name_scopes));
    }
    // A plain file of each directory sections name, one no other section picks out.
    let all_files: Vec<&Node> =
        server_files.iter().copied().chain(htaccess_dirs.iter().flat_map(|h| &h.files)).collect();
    for d in &named_dir_urls {
        let u = plain_file_url(d, &all_files, &locations);
        own_urls.insert(u.clone());
        urls.insert(u);
    }
    // Every directory also without its trailing slash: httpd checks access on the directory
    // itself before mod_dir redirects (or, with `DirectorySlash Off`, serves) the request, with
    // the sections that apply to the directory (its .htaccess file) and not those that need
    // the slash (`<LocationMatch "^/a/">`): asked only at /a/, an .htaccess file rewritten where
    // such a Location set the rules turned GET /a 401 → 301.
    let bare: Vec<String> = dir_urls
        .iter()
        .chain(&location_dirs)
        .map(|d| d.trim_end_matches('/').to_string())
        .filter(|d| !d.is_empty())
        .collect();
    urls.extend(bare);
    let (plain, bounded) = within_budget(own_urls, urls, meetings);
    let (mut located, mut cut) = located_urls(&access_locations, &located_names);
    // Where a wildcard or regex <Directory> meets a Location with access lines once the
    // Location's path is a directory: the directory and a plain file in it.
    for d in pattern_meetings {
        if located.len() + 2 > MAX_LOCATED_URLS {
            cut = true;
            break;
        }
        located.insert(plain_file_url(d, &all_files, &locations));
        located.insert(d.clone());
    }
    Urls { plain, located, bounded: bounded || cut || meetings_cut, fresh }
}

/// The `<Directory>`-type and `<Location>`-type sections of a server's `scope` (its top-level
/// nodes and the main server's), at any depth outside other virtual hosts.
fn scope_sections<'c>(scope: &[&'c Node]) -> (Vec<&'c Node>, Vec<&'c Node>) {
    let (mut directories, mut locations) = (Vec::new(), Vec::new());
    let mut stack: Vec<&Node> = scope.to_vec();
    while let Some(n) = stack.pop() {
        if n.is_section() && !n.is("VirtualHost") {
            if n.is("Directory") || n.is("DirectoryMatch") {
                directories.push(n);
            }
            if n.is("Location") || n.is("LocationMatch") {
                locations.push(n);
            }
            stack.extend(n.children.iter());
        }
    }
    (directories, locations)
}

/// Names given to a fresh directory beneath a base, tried in order ([`fresh_examples`]).
const FRESH_NAMES: &[&str] = &["zqf", "zq-f", "_zqf", "0zqf"];
/// Examples [`fresh_examples`] keeps per section and base, at most.
const MAX_FRESH: usize = 4;

/// Where each regex or wildcard section of `directories` applies alone: in a fresh directory
/// (one no section names) beneath each base the server maps URLs to (its document root, alias
/// targets, users' directories), a regex grown there by its witness whole and by the witness's
/// last components (`<DirectoryMatch "/b[^/]*$">` at `htdocs/zqf/b`), a wildcard with each
/// wildcard component filled by the fresh name (`<Directory htdocs/*/b>` at `htdocs/zqf/b`);
/// each kept only where the pattern applies and some URL of it is covered by no `<Location>`-
/// type section of `locations` holding access lines that does not cover its base's URL too.
/// A regex reaches directories no section names, and there its rules meet only the inherited
/// ones: every example the others give may lie under a `<Location>` replacing the Require lines
/// (a `<LocationMatch "^/(a|b)">` over /b, /bzq, /a/b, /b/b), where a rewrite to `Require all
/// granted` of the regex's `Allow from all` under htdocs's `Require ip 127.0.0.1` changes
/// nothing, and httpd's answer for an existing htdocs/c/bz from 127.0.0.2 turned 403 → 200
/// (session 24). Only for a section none of whose own examples ([`directory_examples`]) stands
/// alone already (covered by no such Location, and named by no plain `<Directory>`): a
/// `<DirectoryMatch "/\.(git|svn|hg)">` asked at /.git needs no more, and asking every such
/// section again beneath every base took room in each server's budget from other sections'
/// meetings. Per section, the examples and the URLs of their fresh directories.
fn fresh_examples(directories: &[&Node], m: &Mapping, locations: &[&Node]) -> Vec<(Vec<String>, Vec<String>)> {
    let locations: Vec<&Node> = locations.iter().copied().filter(|l| has_access_lines(l)).collect();
    let roots: Vec<&str> = m.roots().into_iter().map(|r| r.trim_end_matches('/')).collect();
    // Whether `p`, beneath `root`, has a URL no Location covers that does not cover the root's.
    let alone = |p: &str, root: &str| -> bool {
        let base: Vec<String> =
            fs_to_urls(root, m).into_iter().map(|u| format!("{}/", u.trim_end_matches('/'))).collect();
        let covers = |l: &Node, u: &str| location_applies(l, u) || location_applies(l, &format!("{u}/"));
        fs_to_urls(p, m).iter().any(|u| !locations.iter().any(|l| covers(l, u) && !base.iter().any(|b| covers(l, b))))
    };
    // Directories plain `<Directory>` sections name: a pattern's example there meets their rules.
    let named: Vec<&str> = directories
        .iter()
        .filter_map(|n| match section_pattern(n) {
            Some(SectionPattern::Plain(p)) => Some(p.trim_end_matches('/')),
            _ => None,
        })
        .collect();
    // The root `p` lies beneath (the deepest), else `/`.
    let root_of = |p: &str| -> &str {
        roots.iter().copied().filter(|r| p.starts_with(&format!("{r}/"))).max_by_key(|r| r.len()).unwrap_or("/")
    };
    let fresh_dir_urls = |dir: &str| -> Vec<String> {
        fs_to_urls(dir, m).into_iter().map(|u| format!("{}/", u.trim_end_matches('/'))).collect()
    };
    directories
        .iter()
        .map(|n| {
            let mut out: Vec<String> = Vec::new();
            let mut dirs: Vec<String> = Vec::new();
            // Not where one of its own examples already stands alone.
            let own = directory_examples(n, &roots);
            if own.iter().any(|p| !named.contains(&p.trim_end_matches('/')) && alone(p, root_of(p))) {
                return (out, dirs);
            }
            match section_pattern(n) {
                Some(SectionPattern::Regex(pat)) => {
                    let witnesses = regex_witnesses(pat);
                    let tails: Vec<String> = witnesses
                        .iter()
                        .flat_map(|w| {
                            let whole = if w.starts_with('/') { w.clone() } else { format!("/{w}") };
                            std::iter::once(whole).chain(last_components(w, 3).map(str::to_string))
                        })
                        .collect();
                    for root in &roots {
                        for f in FRESH_NAMES {
                            let base = format!("{root}/{f}");
                            let mut here: Vec<String> = Vec::new();
                            for p in std::iter::once(base.clone()).chain(tails.iter().map(|t| format!("{base}{t}"))) {
                                if here.len() < MAX_FRESH
                                    && !here.contains(&p)
                                    && !p.contains("//")
                                    && regex_is_match(pat, &p)
                                    && alone(&p, root)
                                {
                                    here.push(p);
                                }
                            }
                            if !here.is_empty() {
                                dirs.extend(fresh_dir_urls(&base));
                                out.extend(here);
                                break;
                            }
                        }
                    }
                }
                Some(SectionPattern::Wildcard(pat)) => {
                    for f in FRESH_NAMES {
                        let filled: Option<Vec<String>> = pat
                            .split('/')
                            .map(|c| match crate::ide::access::has_wildcard(c) {
                                true => wildcard_witness(&c.replace('*', f), true),
                                false => Some(c.to_string()),
                            })
                            .collect();
                        let Some(p) = filled.map(|v| v.join("/")).filter(|p| wildcard_match(pat, p, true)) else {
                            continue;
                        };
                        if alone(&p, root_of(&p)) {
                            // (The fresh directory: the first component the fill made.)
                            let k = pat.split('/').position(crate::ide::access::has_wildcard).unwrap_or(0);
                            dirs.extend(fresh_dir_urls(&p.split('/').take(k + 1).collect::<Vec<_>>().join("/")));
                            out.push(p);
                            break;
                        }
                    }
                }
                _ => {}
            }
            (out, dirs)
        })
        .collect()
}

/// The directories [`fresh_examples`] makes up, under every server, with their ancestors: the
/// proof takes them to be there.
pub(super) fn fresh_dirs(cfg: &Config) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for s in servers(cfg) {
        let m = mapping(cfg, &s);
        let scope: Vec<&Node> =
            cfg.nodes.iter().chain(s.vhost.map(|v| v.children.iter()).into_iter().flatten()).collect();
        let (directories, locations) = scope_sections(&scope);
        for (ex, _) in fresh_examples(&directories, &m, &locations) {
            for p in ex {
                for a in Path::new(&p).ancestors() {
                    if !out.insert(a.to_path_buf()) {
                        break;
                    }
                }
            }
        }
    }
    out
}

/// Whether the `<Location>`-type section `l` applies to the URL `u` (a plain path as a prefix,
/// whether or not the match ends at a slash; `<Location />` taken as applying nowhere: it
/// applies everywhere alike).
fn location_applies(l: &Node, u: &str) -> bool {
    match section_pattern(l) {
        Some(SectionPattern::Regex(p)) => regex_is_match(p, u),
        Some(SectionPattern::Wildcard(p)) => wildcard_match(p, u, true),
        Some(SectionPattern::Plain(p)) => p != "/" && u.starts_with(p),
        None => false,
    }
}

/// Names tried for [`plain_file_url`], in order.
const PLAIN_NAMES: &[&str] = &["x.txt", "plain.txt", "a", "zq9.dat", "_.bin"];

/// A file in the directory URL `d` that none of the `<Files>`-type sections `files` and none of
/// the `<Location>`-type sections `locations` applies to (the first name tried when every one
/// is taken: sections applying to every name pick none out).
/// The directory's own rules meet the inherited ones there alone: `d` itself may be picked out
/// by a regex `<DirectoryMatch "…/d1/?$">` (which reaches the directory request, not its files)
/// and `d`index.html by a `<Location>` or `<Files>` section. Asked only at those two, a
/// `<Directory d1>` whose `<Limit POST> Allow from all` grants nothing under an inherited
/// `Require all denied` was rewritten to `Require all granted` (GET /d1/x.txt 403 → 200,
/// black-box round 14 F9).
fn plain_file_url(d: &str, files: &[&Node], locations: &[&Node]) -> String {
    let free = |name: &&str| {
        let u = format!("{d}{name}");
        !files.iter().any(|f| files_applies(f, name)) && !locations.iter().any(|l| location_applies(l, &u))
    };
    let name = PLAIN_NAMES.iter().find(|n| free(n)).unwrap_or(&PLAIN_NAMES[0]);
    format!("{d}{name}")
}

/// The file system path `p` (an example of the regex `pat`) with its last component grown, when
/// the regex still matches it: a name no section names, so the walk takes it to be missing.
fn missing_sibling(pat: &str, p: &str) -> Option<String> {
    let p = p.trim_end_matches('/');
    if p.is_empty() {
        return None;
    }
    ["zq", "-zq", ".zq", "_zq", "0"].iter().map(|s| format!("{p}{s}")).find(|q| regex_is_match(pat, q))
}

/// URLs [`location_joins`] gives at most per URL a `<Location>` is asked at.
const MAX_JOINS: usize = 64;

/// URLs where a pattern `<Location>` (`pat`, asked at `u`) meets the rules of other sections
/// that its witness alone does not reach: its witness's last component (and the whole witness)
/// below each directory holding an .htaccess file (`htaccess_dirs`), and, in its witness's own
/// directory and in those, the file names `<Files>`-type sections apply to (`names`: the
/// directory URL below which they apply, their patterns, the names), alone and joined to the
/// last component either way round. Only URLs the Location's pattern matches are kept, and of the
/// names only those whose last component one of the patterns applies to.
/// `<LocationMatch "\.txt$">` and `<Files "q.*">` both apply to /q.x.txt, which neither's own
/// witness names (a rewrite of the Location's Allow into Require lines replaced the Files
/// section's Require valid-user: 401 → 200); the Location's rules meet htdocs/c/.htaccess's at
/// /c/.txt (its Require all granted kept an .htaccess Order/Allow's denial, which a rewrite
/// into Require lines loses to it: 403 → 200).
fn location_joins(
    pat: &SectionPattern,
    u: &str,
    htaccess_dirs: &[String],
    names: &[(String, Vec<SectionPattern>, Vec<String>)],
) -> Vec<String> {
    let (parent, last) = match u.rfind('/') {
        Some(i) => (&u[..=i], &u[i + 1..]),
        None => ("/", u),
    };
    let whole = u.trim_start_matches('/');
    let mut out: Vec<String> = Vec::new();
    let mut add = |c: String| {
        if out.len() < MAX_JOINS && c != u && !out.contains(&c) && applies(pat, &c) {
            out.push(c);
        }
    };
    let dirs = std::iter::once(parent).chain(htaccess_dirs.iter().map(String::as_str).filter(|d| *d != parent));
    for d in dirs {
        if d != parent {
            add(format!("{d}{last}"));
            add(format!("{d}{whole}"));
        }
        for (_, pats, ns) in names.iter().filter(|(scope, _, _)| d.starts_with(scope.as_str())) {
            for n in ns {
                for c in [n.clone(), format!("{n}{last}"), format!("{last}{n}")] {
                    if !c.contains('/') && pats.iter().any(|p| applies(p, &c)) {
                        add(format!("{d}{c}"));
                    }
                }
            }
        }
    }
    out
}

/// URLs asked for at most per server with the `<Location>` paths taken to be directories.
const MAX_LOCATED_URLS: usize = 2_000;

/// The URLs asked with every `<Location>` path taken to be a directory, and whether some were
/// dropped ([`MAX_LOCATED_URLS`]). Whether a Location path is a directory on this machine today
/// says nothing of the server's disk tomorrow: once `htdocs/api/v1/internal/` holds files,
/// `<Files>`-type sections apply to the files asked for there and merge before the Location's
/// sections (a `<LocationMatch "^/api/v[0-9]+/(internal|debug)">` rewritten to Require lines
/// beside an old-style `<FilesMatch "\.bak$">` turned 200 into 403 for
/// `/api/v1/internal/x.bak`). So each Location with access lines (`locations`: its pattern, None
/// for a plain path, and each URL it is asked at) is asked as a directory, and for each name
/// `names` holds below it (`<Files>`-type sections with access lines: the directory URL below
/// which they apply, and the names where they apply, meet and stand apart) a file in it that
/// the Location still applies to.
fn located_urls(
    locations: &[(Option<SectionPattern>, String)],
    names: &[(String, Vec<String>)],
) -> (BTreeSet<String>, bool) {
    let mut out: Vec<String> = Vec::new();
    if names.is_empty() {
        return (BTreeSet::new(), false);
    }
    for (pat, u) in locations {
        let base = u.trim_end_matches('/');
        if base.is_empty() {
            // (The document root: a directory in every proof.)
            continue;
        }
        let d = format!("{base}/");
        let still = |url: &str| pat.as_ref().is_none_or(|p| applies(p, url) || applies(p, url.trim_end_matches('/')));
        let below = names.iter().filter(|(at, _)| d.starts_with(at.as_str())).flat_map(|(_, n)| n);
        for url in std::iter::once(d.clone()).chain(below.map(|n| format!("{d}{n}"))) {
            if still(&url) && !out.contains(&url) {
                out.push(url);
            }
        }
    }
    let cut = out.len() > MAX_LOCATED_URLS;
    shallowest_first(&mut out);
    out.truncate(MAX_LOCATED_URLS);
    (out.into_iter().collect(), cut)
}

/// Whether a section holds access lines: old-style ones, Require lines (or their sections),
/// or authentication directives, at any depth.
/// Whether section `n` holds mod_access_compat lines (Order, Allow, Deny, Satisfy) at any depth.
fn holds_old_style(n: &Node) -> bool {
    n.walk().any(|c| crate::ide::policy::is_compat_directive(&c.name().to_ascii_lowercase()))
}

fn has_access_lines(n: &Node) -> bool {
    n.walk().any(|c| {
        let name = c.name().to_ascii_lowercase();
        crate::ide::policy::is_compat_directive(&name)
            || name.starts_with("require")
            || name.starts_with("auth")
            || name == "satisfy"
    })
}

/// The URLs a server is asked at: every section's `own` ones, then the others (`urls`, then
/// `meetings`) while fewer than [`MAX_URLS_PER_SERVER`] are taken, the shallowest first, and
/// whether some were dropped. (Taking them in name order dropped whole sections: 1 300 URLs
/// below `/.git/…`, where a `<DirectoryMatch "/\.(git|svn|hg)">` and `<Files ~ "^\.(git|svn|hg)">`
/// meet every directory, filled the budget before `/admin` or `/static/` were reached.)
fn within_budget(
    own: BTreeSet<String>,
    urls: BTreeSet<String>,
    meetings: BTreeSet<String>,
) -> (BTreeSet<String>, bool) {
    let mut others: Vec<String> = urls.into_iter().filter(|u| !own.contains(u)).collect();
    shallowest_first(&mut others);
    let mut later: Vec<String> = meetings.into_iter().filter(|u| !own.contains(u)).collect();
    shallowest_first(&mut later);
    let room = MAX_URLS_PER_SERVER.saturating_sub(own.len());
    let bounded = others.len() + later.len() > room;
    let mut out = own;
    out.extend(others.into_iter().chain(later).take(room));
    (out, bounded)
}

/// Sorts URLs by depth (how many `/` they hold), then by name. (A key holding a copy of each
/// URL, made at every comparison, took a quarter of migrate's instructions.)
fn shallowest_first(urls: &mut [String]) {
    urls.sort_unstable();
    urls.sort_by_cached_key(|u| u.matches('/').count());
}

/// `urls` in order, but each directory asked without its slash right after the one with it:
/// where both walk alike, the first stands for both, and a change is named at `/pub/` as people
/// know the directory rather than at `/pub`.
fn slash_first(urls: BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(urls.len());
    for u in &urls {
        if !u.ends_with('/') && urls.contains(&format!("{u}/")) {
            continue;
        }
        out.push(u.clone());
        if let Some(bare) = u.strip_suffix('/').filter(|b| urls.contains(*b)) {
            out.push(bare.to_string());
        }
    }
    out
}

/// Every context of the configuration; `meetings`, each server's URLs where pattern
/// `<Directory>` sections meet `<Location>` ones ([`location_pattern_meetings`]), in the order of
/// [`servers`].
pub(super) fn contexts(cfg: &Config, htaccess_dirs: &[HtaccessDir], meetings: &[Vec<String>]) -> (Vec<Ctx>, bool) {
    let mut out = Vec::new();
    let mut bounded = false;
    for (i, s) in servers(cfg).iter().enumerate() {
        let u = urls(cfg, s, htaccess_dirs, meetings.get(i).map_or(&[], Vec::as_slice));
        bounded |= u.bounded;
        let plain = slash_first(u.plain).into_iter().map(|url| (url, false));
        for (url, located) in plain.chain(u.located.into_iter().map(|url| (url, true))) {
            let fresh = u.fresh.iter().find(|d| url.starts_with(d.as_str())).cloned();
            out.push(Ctx { server: i, host: s.host.clone(), local: s.local, url, located, sub: None, fresh });
        }
    }
    (out, bounded)
}

/// The directories `<Location>` sections name (a regex one through its witness), under each
/// server that serves them. Files asked for in them meet an .htaccess file's `<Files>` sections
/// above them only if the directory exists (else httpd's walk stops at it and matches `<Files>`
/// against its name).
pub(super) fn location_dirs(cfg: &Config) -> BTreeSet<PathBuf> {
    location_paths(cfg, false)
}

/// The directories holding the URLs regex and wildcard `<Location>` sections are asked at
/// (their witness's parent). The proof asks there for the witness with a `<Files>` name appended
/// ([`urls`]), a file in that directory both sections apply to; httpd's walk only matches `<Files>`
/// against it when the directory exists.
pub(super) fn location_pattern_parents(cfg: &Config) -> BTreeSet<PathBuf> {
    location_paths(cfg, true).into_iter().filter_map(|p| p.parent().map(Path::to_path_buf)).collect()
}

/// The file system paths of the URLs `<Location>` sections are asked at (only pattern ones with
/// `patterns_only`), under each server that serves them.
fn location_paths(cfg: &Config, patterns_only: bool) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for s in servers(cfg) {
        let m = mapping(cfg, &s);
        let mut stack: Vec<&Node> =
            cfg.nodes.iter().chain(s.vhost.map(|v| v.children.iter()).into_iter().flatten()).collect();
        while let Some(n) = stack.pop() {
            if !n.is_section() || n.is("VirtualHost") {
                continue;
            }
            let pattern = !matches!(section_pattern(n), Some(SectionPattern::Plain(_)) | None);
            if (n.is("Location") || n.is("LocationMatch")) && (pattern || !patterns_only) {
                for u in location_urls(n) {
                    out.insert(PathBuf::from(url_to_fs(u.trim_end_matches('/'), &m)));
                }
            }
            stack.extend(n.children.iter());
        }
    }
    out
}

/// Where a wildcard or regex `<Directory>` meets a `<Location>` holding access lines once the
/// Location's path is a directory: the Location's own path when the pattern matches it, and the
/// examples the pattern is filled or grown to beneath it (`<Directory htdocs/*/sub>` beneath
/// `<Location /newd>` is `htdocs/newd/sub`), under `server`, each as (the URL of the directory,
/// its path). On this machine's disk the
/// Location's path may not be there, and the walk never reaches the pattern beneath it; once it
/// is, httpd merges the Location's rules with the pattern's there. Proven only on the disk as it
/// is, a `Deny from all` in `<Directory htdocs/*/sub>` rewritten to `Require all denied`, which
/// the Location's `Require ip` then replaces, turned GET /newd/sub/x.txt 403 into 200 once
/// htdocs/newd/sub was made (black-box round 16, C F10). The located contexts ask there.
pub(super) fn location_pattern_meetings(cfg: &Config, server: &Server) -> Vec<(String, String)> {
    let m = mapping(cfg, server);
    let scope: Vec<&Node> =
        cfg.nodes.iter().chain(server.vhost.map(|v| v.children.iter()).into_iter().flatten()).collect();
    let (mut patterns, mut locations): (Vec<&Node>, Vec<&Node>) = (Vec::new(), Vec::new());
    let mut stack = scope;
    while let Some(n) = stack.pop() {
        if !n.is_section() || n.is("VirtualHost") {
            continue;
        }
        let pattern = matches!(section_pattern(n), Some(SectionPattern::Regex(_) | SectionPattern::Wildcard(_)));
        if (n.is("Directory") || n.is("DirectoryMatch")) && pattern {
            patterns.push(n);
        }
        if (n.is("Location") || n.is("LocationMatch")) && has_access_lines(n) {
            locations.push(n);
        }
        stack.extend(n.children.iter());
    }
    if patterns.is_empty() || locations.is_empty() {
        return Vec::new();
    }
    // Each Location's URLs and the paths they map to (the document root itself is a directory
    // in every proof).
    let asked: Vec<(Option<SectionPattern>, String, String)> = locations
        .iter()
        .flat_map(|n| {
            let pat = section_pattern(n).filter(|p| !matches!(p, SectionPattern::Plain(_)));
            location_urls(n).into_iter().map(move |u| (pat, u))
        })
        .filter_map(|(pat, u)| {
            let base = u.trim_end_matches('/').to_string();
            (!base.is_empty()).then(|| (pat, base.clone(), url_to_fs(&base, &m)))
        })
        .collect();
    let meet_at: Vec<String> = asked.iter().map(|(_, _, p)| p.clone()).collect();
    let (examples, _) = directory_examples_meeting(&patterns, &m.roots(), &meet_at);
    let mut out = Vec::new();
    for (pat, base, l) in &asked {
        let here = patterns.iter().filter_map(|n| section_pattern(n)).any(|p| applies(&p, l));
        let below =
            examples.iter().flatten().map(|p| p.trim_end_matches('/')).filter(|p| {
                p.strip_prefix(l.as_str()).is_some_and(|rest| rest.starts_with('/') && !rest.contains("//"))
            });
        for p in here.then_some(l.as_str()).into_iter().chain(below) {
            let url = format!("{base}{}/", &p[l.len()..]);
            let still = |u: &str| pat.as_ref().is_none_or(|pt| applies(pt, u) || applies(pt, u.trim_end_matches('/')));
            if still(&url) && !out.iter().any(|(u, _): &(String, _)| *u == url) {
                out.push((url, p.to_string()));
            }
        }
    }
    out
}

/// Directories the configuration names (every `<Directory>` path, document root and alias
/// target): the proof treats them as existing.
pub(super) fn named_dirs(cfg: &Config) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for s in servers(cfg) {
        let m = mapping(cfg, &s);
        out.insert(PathBuf::from(&m.docroot));
        for (_, to) in m.plain_aliases() {
            if to.ends_with('/') || !Path::new(to).is_file() {
                out.insert(PathBuf::from(to.trim_end_matches('/')));
            }
        }
    }
    let mappings = mappings(cfg);
    let roots: Vec<&str> = mappings.iter().flat_map(Mapping::roots).collect();
    let directories: Vec<&Node> =
        cfg.walk().filter(|n| n.is_section() && (n.is("Directory") || n.is("DirectoryMatch"))).collect();
    for p in directory_examples_meeting(&directories, &roots, &[]).0.iter().flatten() {
        out.insert(PathBuf::from(p.trim_end_matches('/')));
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

/// The .htaccess files under the directories the configuration serves, by the paths httpd's
/// walks read them under, and the symbolic links whose paths cannot all be enumerated.
#[derive(Debug, Default)]
pub(super) struct HtaccessScan {
    /// Each file under every name the scan reached it by: through a symbolic link to a
    /// directory the path goes on below the link (httpd's directory walk uses the path as
    /// requested: `htdocs/link/.htaccess` is merged under `<Directory htdocs>`), and a link to
    /// an .htaccess file is a name of its target.
    pub found: Vec<PathBuf>,
    /// Links to a directory holding them (`sub/up -> ..`), or met where the scan stops: below
    /// them httpd reads the files of the target again at every depth, which no list of
    /// contexts covers (link, target).
    pub loops: Vec<(PathBuf, PathBuf)>,
    /// Roots the scan stopped short in (more than [`MAX_SCAN_DIRS`] directories, or deeper
    /// than [`MAX_SCAN_DEPTH`]): files beyond were not seen.
    pub cut: Vec<PathBuf>,
}

/// .htaccess files (by AccessFileName) under the directories the configuration serves:
/// document roots, alias targets and `<Directory>` paths whose AllowOverride is not None.
/// Symbolic links to directories are followed (whether httpd follows one is the walks'
/// question: asking more paths than it serves costs only time); a link leading back above
/// itself is followed once, so that the first repetition is asked, and recorded in
/// [`HtaccessScan::loops`].
pub(super) fn find_htaccess(cfg: &Config) -> HtaccessScan {
    let names = access_file_names(cfg);
    let mut roots: BTreeSet<PathBuf> = BTreeSet::new();
    for s in servers(cfg) {
        let m = mapping(cfg, &s);
        roots.insert(PathBuf::from(&m.docroot));
        roots.extend(m.plain_aliases().map(|(_, t)| PathBuf::from(t)));
        roots.extend(m.user_dirs.iter().map(PathBuf::from));
    }
    for n in cfg.walk().filter(|n| n.is_section() && n.is("Directory")) {
        let ao = n.children.iter().rev().find(|c| c.is("AllowOverride"));
        if ao.is_some_and(|a| !a.args().all(|x| x.eq_ignore_ascii_case("None"))) {
            if let Some(p) = n.args().first().filter(|p| p.starts_with('/') && !p.contains(['*', '?', '['])) {
                if p != "/" {
                    roots.insert(PathBuf::from(p));
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    let mut loops = BTreeSet::new();
    let mut cut = Vec::new();
    for root in roots {
        if scan_root(root.clone(), &names, &mut found, &mut loops) {
            cut.push(root);
        }
    }
    HtaccessScan { found: found.into_iter().collect(), loops: loops.into_iter().collect(), cut }
}

/// Every AccessFileName the configuration names, and `.htaccess`.
fn access_file_names(cfg: &Config) -> Vec<String> {
    cfg.walk()
        .filter(|n| n.kind == NodeKind::Directive && n.is("AccessFileName"))
        .flat_map(|n| n.arg_strings())
        .chain(std::iter::once(".htaccess".to_string()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// .htaccess files in the directories on disk that wildcard `<Directory>` sections opening
/// overrides match, when a server's `UserDir` names a path relative to users' home directories
/// (`UserDir public_html` with `<Directory /home/*/public_html>`, Debian's userdir.conf): httpd
/// reads them for `/~user/…` requests, which only the passwd database maps to a directory, so no
/// request the proof asks reaches them.
pub(super) fn userdir_htaccess(cfg: &Config) -> Vec<PathBuf> {
    if relative_userdir(cfg).is_empty() {
        return vec![];
    }
    let names = access_file_names(cfg);
    let (mut found, mut loops) = (BTreeSet::new(), BTreeSet::new());
    for n in cfg.walk().filter(|n| n.is_section() && n.is("Directory")) {
        let ao = n.children.iter().rev().find(|c| c.is("AllowOverride"));
        let Some(pat) = n.args().first().filter(|p| p.starts_with('/') && crate::ide::access::has_wildcard(p)) else {
            continue;
        };
        if ao.is_some_and(|a| !a.args().all(|x| x.eq_ignore_ascii_case("None"))) {
            for dir in glob_dirs(pat) {
                scan_root(dir, &names, &mut found, &mut loops);
            }
        }
    }
    found.into_iter().collect()
}

/// Directories a wildcard `<Directory>` path is matched with on disk, at most.
const MAX_GLOB_DIRS: usize = 64;

/// The directories on disk a wildcard `<Directory>` path matches (at most [`MAX_GLOB_DIRS`]).
fn glob_dirs(pattern: &str) -> Vec<PathBuf> {
    let mut level: Vec<PathBuf> = vec![PathBuf::from("/")];
    for comp in pattern.split('/').filter(|c| !c.is_empty()) {
        let mut next = Vec::new();
        for d in &level {
            if !crate::ide::access::has_wildcard(comp) {
                let p = d.join(comp);
                if p.is_dir() {
                    next.push(p);
                }
                continue;
            }
            let Ok(rd) = std::fs::read_dir(d) else { continue };
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if wildcard_match(comp, &name, true) && e.path().is_dir() && next.len() < MAX_GLOB_DIRS {
                    next.push(e.path());
                }
            }
        }
        level = next;
    }
    level
}

/// Scans `root` for files named `names` as [`find_htaccess`] does, into `found` and `loops`.
/// Returns whether the scan stopped short (too many directories, or too deep).
fn scan_root(
    root: PathBuf,
    names: &[String],
    found: &mut BTreeSet<PathBuf>,
    loops: &mut BTreeSet<(PathBuf, PathBuf)>,
) -> bool {
    let mut budget = MAX_SCAN_DIRS;
    let mut cut = false;
    // (directory, depth, the real directories the way holds: the root's and each link
    // target's, and whether a loop was followed on the way)
    let start: Vec<PathBuf> = std::fs::canonicalize(&root).into_iter().collect();
    let mut stack = vec![(root, 0usize, start, false)];
    while let Some((dir, depth, chain, looped)) = stack.pop() {
        if budget == 0 {
            return true;
        }
        budget -= 1;
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut here: Option<PathBuf> = None;
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let name = e.file_name().to_string_lossy().to_string();
            if ft.is_dir() {
                cut |= depth >= MAX_SCAN_DEPTH;
                if depth < MAX_SCAN_DEPTH {
                    stack.push((e.path(), depth + 1, chain.clone(), looped));
                }
            } else if ft.is_symlink() {
                let Ok(target) = std::fs::canonicalize(e.path()) else { continue };
                if target.is_file() {
                    if names.contains(&name) {
                        found.insert(e.path());
                    }
                    continue;
                }
                if !target.is_dir() {
                    continue;
                }
                let here = here.get_or_insert_with(|| std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone()));
                let back = chain.iter().chain(std::iter::once(&*here)).any(|c| c.starts_with(&target));
                if back || depth >= MAX_SCAN_DEPTH {
                    loops.insert((e.path(), target.clone()));
                }
                if (back && looped) || depth >= MAX_SCAN_DEPTH {
                    continue;
                }
                let mut chain = chain.clone();
                chain.push(target);
                stack.push((e.path(), depth + 1, chain, looped || back));
            } else if ft.is_file() && names.contains(&name) {
                found.insert(e.path());
            }
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(kind: AliasKind, from: &str, to: &str) -> AliasLine {
        AliasLine { kind, from: from.into(), to: to.into() }
    }

    #[test]
    fn paths_map_back_to_urls() {
        let m = Mapping {
            docroot: "/srv/www".into(),
            aliases: vec![
                line(AliasKind::Alias, "/static/", "/srv/static/"),
                line(AliasKind::AliasMatch, "^/am/(.*)$", "/srv/out/$1"),
                line(AliasKind::AliasMatch, "^/one$", "/srv/one"),
            ],
            userdir: vec!["/home/*/public_html".into(), "/srv/users".into()],
            user_dirs: vec![],
        };
        assert_eq!(fs_to_urls("/srv/www/sub", &m), vec!["/sub"]);
        assert_eq!(fs_to_urls("/", &m), vec!["/"]);
        assert_eq!(fs_to_urls("/srv/static/img", &m), vec!["/static/img"]);
        assert!(fs_to_urls("/opt/other", &m).is_empty());
        // Users' directories through UserDir: the name where `*` stands, or below the entry.
        assert_eq!(fs_to_urls("/home/alice/public_html/sub", &m), vec!["/~alice/sub"]);
        assert_eq!(fs_to_urls("/home/alice/public_html", &m), vec!["/~alice"]);
        assert!(fs_to_urls("/home/alice/private", &m).is_empty());
        assert_eq!(fs_to_urls("/srv/users/bob/x", &m), vec!["/~bob/x"]);
        // Through a regex alias: its example with the group replaced, where the substitution
        // gives the path back.
        assert_eq!(fs_to_urls("/srv/out/sub", &m), vec!["/am/sub"]);
        assert_eq!(fs_to_urls("/srv/out", &m), vec!["/am/"]);
        assert_eq!(fs_to_urls("/srv/one", &m), vec!["/one"]);
        assert_eq!(m.roots(), vec!["/srv/www", "/srv/static/", "/srv/out/", "/srv/one"]);
    }

    /// mod_alias tries its one list in configuration order, whatever the directive: a
    /// `ScriptAlias /nagios/cgi-bin` before `Alias /nagios` maps the URLs below it (Debian's
    /// nagios3 layout), one after it maps none (black-box round 16 G1).
    #[test]
    fn aliases_are_tried_in_configuration_order() {
        let script = line(AliasKind::ScriptAlias, "/nagios/cgi-bin", "/srv/cgi");
        let alias = line(AliasKind::Alias, "/nagios", "/srv/share");
        let regex = line(AliasKind::AliasMatch, "^/nagios/cgi-bin/(.*)$", "/srv/cgi/$1");
        let m = |aliases: Vec<AliasLine>| Mapping {
            docroot: "/srv/www".into(),
            aliases,
            userdir: vec![],
            user_dirs: vec![],
        };
        let first = m(vec![script.clone(), alias.clone()]);
        assert_eq!(fs_to_urls("/srv/cgi/sub", &first), vec!["/nagios/cgi-bin/sub"]);
        assert_eq!(url_to_fs("/nagios/cgi-bin/x", &first), "/srv/cgi/x");
        assert_eq!(url_to_fs("/nagios/x", &first), "/srv/share/x");
        let after = m(vec![alias.clone(), script]);
        assert!(fs_to_urls("/srv/cgi/sub", &after).is_empty());
        assert_eq!(url_to_fs("/nagios/cgi-bin/x", &after), "/srv/share/cgi-bin/x");
        let regex_first = m(vec![regex.clone(), alias.clone()]);
        assert_eq!(url_to_fs("/nagios/cgi-bin/x", &regex_first), "/srv/cgi/x");
        assert_eq!(fs_to_urls("/srv/cgi/sub", &regex_first), vec!["/nagios/cgi-bin/sub"]);
        assert!(fs_to_urls("/srv/cgi/sub", &m(vec![alias, regex])).is_empty());
        // The document root's URL too, where an alias takes it.
        let over_root = m(vec![line(AliasKind::Alias, "/sub", "/srv/other")]);
        assert!(fs_to_urls("/srv/www/sub", &over_root).is_empty());
        assert_eq!(fs_to_urls("/srv/www/subway", &over_root), vec!["/subway"]);
    }

    /// A `<Location>` regex is also asked where it reaches beyond its example.
    #[test]
    fn location_regexes_are_asked_beside_their_examples() {
        assert_eq!(grown_location_urls("^/sub", "/sub"), vec!["/subzq", "/sub-zq"]);
        assert_eq!(grown_location_urls("/private/", "/private/"), vec!["/zq/private/"]);
        assert!(grown_location_urls("^/sub/?$", "/sub").is_empty());
    }

    #[test]
    fn location_paths_are_asked_as_directories_holding_the_files_sections_names() {
        let names = vec![
            ("/".to_string(), vec!["composer.json".to_string(), "x.bak".to_string()]),
            // (An .htaccess file's, in /api/.)
            ("/api/".to_string(), vec!["a.php".to_string()]),
        ];
        let locations = vec![
            (None, "/admin".to_string()),
            (Some(SectionPattern::Regex("^/api/v[0-9]+/(internal|debug)")), "/api/v0/internal".to_string()),
            // Ends with its pattern: no file below it is a URL it applies to.
            (Some(SectionPattern::Regex("^/status$")), "/status".to_string()),
            // The document root is a directory in every proof.
            (None, "/".to_string()),
        ];
        let (urls, cut) = located_urls(&locations, &names);
        assert!(!cut);
        let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
        assert_eq!(
            urls,
            [
                "/admin/",
                "/admin/composer.json",
                "/admin/x.bak",
                "/api/v0/internal/",
                "/api/v0/internal/a.php",
                "/api/v0/internal/composer.json",
                "/api/v0/internal/x.bak",
                "/status/"
            ]
        );
        // Without a `<Files>`-type section holding access lines, nothing is asked.
        assert_eq!(located_urls(&locations, &[]), (BTreeSet::new(), false));
        // Bounded, the shallowest first, and said so.
        let many: Vec<(Option<SectionPattern>, String)> =
            (0..MAX_LOCATED_URLS).map(|i| (None, format!("/l{i}"))).collect();
        let (urls, cut) = located_urls(&many, &names);
        assert!(cut && urls.len() == MAX_LOCATED_URLS && urls.contains("/l0/"));
    }

    #[test]
    fn location_patterns_are_joined_to_htaccess_directories_and_files_names() {
        let txt = SectionPattern::Regex("\\.txt$");
        let q = vec![("/".to_string(), vec![SectionPattern::Wildcard("q.*")], vec!["q.x".to_string()])];
        let joins = location_joins(&txt, "/.txt", &["/c/".to_string()], &q);
        // Joined either way round where the Files pattern still applies, below the root and the
        // .htaccess directory; the witness's own component below the .htaccess directory.
        assert_eq!(joins, ["/q.x.txt", "/c/.txt", "/c/q.x.txt"]);
        // Names of a scope the directory is not below are not used there.
        let deeper = vec![("/d/".to_string(), vec![SectionPattern::Wildcard("q.*")], vec!["q.x".to_string()])];
        assert_eq!(location_joins(&txt, "/.txt", &[], &deeper), Vec::<String>::new());
        // A pattern that needs the slash: the names inside its witness directory.
        let a = SectionPattern::Regex("^/a/");
        let php =
            vec![("/".to_string(), vec![SectionPattern::Regex("\\.(txt|php)$")], vec![".txt".into(), ".php".into()])];
        assert_eq!(location_joins(&a, "/a/", &["/c/".to_string()], &php), ["/a/.txt", "/a/.php"]);
        // Bounded.
        let many: Vec<String> = (0..200).map(|i| format!("/d{i}/")).collect();
        assert_eq!(location_joins(&txt, "/.txt", &many, &[]).len(), MAX_JOINS);
    }

    fn section(name: &str, args: &[&str]) -> Node {
        let loc = crate::ide::config::Loc { file: 0, range: Default::default(), focus: Default::default() };
        Node::new(NodeKind::Section, name, args, &args.join(" "), loc, Vec::new())
    }

    /// Many `<Directory>` sections leave room for the .htaccess and Location directories a regex
    /// is grown beneath.
    #[test]
    fn every_kind_of_base_keeps_a_share() {
        let plain: Vec<Node> =
            (0..2 * MAX_MEETINGS).map(|i| section("Directory", &[&format!("/srv/www/d{i}")])).collect();
        let re = section("DirectoryMatch", &["/b[^/]*$"]);
        let sections: Vec<&Node> = plain.iter().chain([&re]).collect();
        let meet_at = vec!["/srv/www/loc/deep".to_string()];
        let (each, _) = directory_examples_meeting(&sections, &["/srv/www"], &meet_at);
        let grown = each.last().expect("the regex's examples");
        assert!(grown.iter().any(|p| p == "/srv/www/loc/deep/b"), "{grown:?}");
        // Within the bound, every base is kept.
        let few: Vec<&Node> = plain.iter().take(3).chain([&re]).collect();
        let (each, _) = directory_examples_meeting(&few, &["/srv/www"], &meet_at);
        let grown = each.last().expect("the regex's examples");
        assert!(["/srv/www/b", "/srv/www/d2/b", "/srv/www/loc/deep/b"].iter().all(|p| grown.iter().any(|g| g == p)));
    }

    /// A pattern `<Directory>` is asked in a fresh directory beneath each base, where no
    /// `<Location>` covers it.
    #[test]
    fn pattern_directories_are_asked_in_a_fresh_directory() {
        let m = Mapping {
            docroot: "/srv/www".into(),
            aliases: vec![line(AliasKind::Alias, "/ql", "/srv/out")],
            userdir: vec![],
            user_dirs: vec![],
        };
        let mut granting = section("LocationMatch", &["^/(ql/)?(a|b|x)"]);
        let mut require = section("Require", &["all", "granted"]);
        require.kind = NodeKind::Directive;
        granting.children.push(require);
        let re = section("DirectoryMatch", &["/b[^/]*$"]);
        let wild = section("Directory", &["/srv/www/*/b*"]);
        let anchored = section("DirectoryMatch", &["^/srv/www/b"]);
        let got = fresh_examples(&[&re, &wild, &anchored], &m, &[&granting]);
        assert_eq!(got[0].0, ["/srv/www/zqf/b", "/srv/out/zqf/b"]);
        assert_eq!(got[0].1, ["/zqf/", "/ql/zqf/"]);
        assert_eq!(got[1].0, ["/srv/www/zqf/bzqf"]);
        // Every URL it matches lies under the Location: none.
        assert!(got[2].0.is_empty());
        // Its own example (/.git) stands alone already: none.
        let git = section("DirectoryMatch", &["/\\.(git|svn|hg)"]);
        assert!(fresh_examples(&[&git], &m, &[&granting])[0].0.is_empty());
        // Unless a plain <Directory> names it.
        let named = section("Directory", &["/srv/www/b"]);
        let beside = section("DirectoryMatch", &["/b[^/]*$"]);
        let root_only = Mapping { docroot: "/srv/www".into(), aliases: vec![], userdir: vec![], user_dirs: vec![] };
        assert!(fresh_examples(&[&beside], &root_only, &[])[0].0.is_empty());
        assert_eq!(fresh_examples(&[&beside, &named], &root_only, &[])[0].0, ["/srv/www/zqf/b"]);
        // A Location covering the fresh name too: the next name.
        let mut z = section("Location", &["/zqf"]);
        z.children = granting.children.clone();
        let got = fresh_examples(&[&re], &m, &[&granting, &z]);
        assert_eq!(got[0].0, ["/srv/www/zq-f/b", "/srv/out/zqf/b"]);
    }

    #[test]
    fn a_directory_without_its_slash_comes_right_after_it() {
        let urls: BTreeSet<String> = ["/a", "/a-b", "/a/", "/a/x", "/b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(slash_first(urls), ["/a-b", "/a/", "/a", "/a/x", "/b"]);
    }

    #[test]
    fn every_sections_own_urls_outlast_the_budget() {
        let set = |v: Vec<String>| v.into_iter().collect::<BTreeSet<String>>();
        // More URLs below /.git/ than the budget, all before /static/ in name order.
        let deep: Vec<String> = (0..MAX_URLS_PER_SERVER).map(|i| format!("/.git/.hg/{i}")).collect();
        let shallow: Vec<String> = (0..10).map(|i| format!("/z{i}")).collect();
        let own = set(vec!["/".into(), "/static/".into(), "/admin".into()]);
        let urls = set(deep.iter().chain(&shallow).cloned().collect());
        let (out, bounded) = within_budget(own.clone(), urls, set(vec!["/static/.git".into()]));
        assert!(bounded);
        assert_eq!(out.len(), MAX_URLS_PER_SERVER);
        assert!(own.iter().all(|u| out.contains(u)), "a section's own URL was dropped");
        // The shallow ones come before the deep ones, and meetings after both.
        assert!(shallow.iter().all(|u| out.contains(u)));
        assert!(!out.contains("/static/.git"));
        // Within the budget nothing is dropped.
        let (all, bounded) = within_budget(own, set(shallow), BTreeSet::new());
        assert!(!bounded && all.len() == 13);
    }
}
