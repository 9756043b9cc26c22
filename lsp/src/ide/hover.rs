//! Feature: hover — the effective, merged access policy of a section, and what
//! the catalogue knows of a directive.

use crate::ide::access::{self, effective_with, BeforeMerge, Effective, FsView, RequestSpec};
use crate::ide::catalogue;
use crate::ide::config::{Config, FileId, Node, NodeKind, SecId};
use crate::ide::policy::{self, HostKnowledge, Layer, Request};
use apache_syntax::{TextRange, TextSize};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::IpAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Request-matching sections a hover explains.
fn is_container(n: &Node) -> bool {
    ["Directory", "DirectoryMatch", "Location", "LocationMatch", "Files", "FilesMatch", "VirtualHost"]
        .iter()
        .any(|k| n.canonical().eq_ignore_ascii_case(k))
}

/// The chain of nodes from the top to the innermost node of `file` containing `offset`.
fn path_to(cfg: &Config, file: FileId, offset: TextSize) -> Vec<&Node> {
    let mut chain = Vec::new();
    let mut level: &[Node] = &cfg.nodes;
    loop {
        let Some(n) = level.iter().find(|n| n.loc.file == file && n.loc.range.contains_inclusive(offset)) else {
            // A node from another file (an Include'd one) may contain our file's nodes.
            if let Some(n) = level.iter().find(|n| {
                n.is_section() && n.walk().any(|d| d.loc.file == file && d.loc.range.contains_inclusive(offset))
            }) {
                chain.push(n);
                level = &n.children;
                continue;
            }
            return chain;
        };
        chain.push(n);
        if n.kind == NodeKind::Directive {
            return chain;
        }
        level = &n.children;
    }
}

/// How many URLs [`section_urls`] gives at most.
const MAX_SECTION_URLS: usize = 16;

/// The first of [`section_urls`]: for a plain section, the URL it applies to.
pub fn url_for(cfg: &Config, chain: &[&Node]) -> Option<(String, Option<String>)> {
    section_urls(cfg, chain).into_iter().next()
}

/// URLs that may reach the innermost request section of `chain`, each with the virtual host name
/// to ask for: a plain section's own path (a `<Directory>` through the DocumentRoot or an Alias,
/// a `<Files>` name under the directory holding it); for a pattern, strings it matches (a
/// wildcard filled in, each branch of a regular expression, a `<DirectoryMatch>` tried beneath
/// the document root and alias targets, where requests reach it). Whether a pattern's URL really
/// reaches the section is for the walk to say ([`access::Walked::applies`]).
pub fn section_urls(cfg: &Config, chain: &[&Node]) -> Vec<(String, Option<String>)> {
    let vhost = chain.iter().find(|n| n.is("VirtualHost"));
    let host =
        vhost.and_then(|v| v.children.iter().find(|c| c.is("ServerName")).and_then(|c| c.arg(0).map(str::to_string)));
    let Some(pos) = chain.iter().rposition(|n| is_container(n) && !n.is("VirtualHost")) else { return vec![] };
    let section = chain[pos];
    let ix = cfg.index();
    let docroot = vhost
        .and_then(|v| v.children.iter().find(|c| c.is("DocumentRoot")))
        .map(|d| d.arg(0).map(str::to_string))
        .unwrap_or_else(|| ix.main.document_root.clone())
        .map(|d| d.trim_end_matches('/').to_string());
    // The directories URLs map to, where a regex `<Directory>` is tried.
    let roots = || {
        let scope = vhost.and_then(|v| ix.id(v)).and_then(|id| ix.vhosts.iter().find(|h| h.id == id)).map(|h| &h.scope);
        let mut roots: Vec<&str> = docroot.as_deref().into_iter().collect();
        for s in std::iter::once(&ix.main).chain(scope) {
            roots.extend(s.aliases[0].iter().chain(&s.aliases[1]).map(|(_, to)| to.as_str()));
        }
        roots
    };
    let dir_urls = |n: &Node| -> Vec<String> {
        let mut out = Vec::new();
        let regex = matches!(access::section_pattern(n), Some(access::SectionPattern::Regex(_)));
        for d in access::witnesses::directory_examples(n, &if regex { roots() } else { vec![] }) {
            if let Some(u) = directory_url(cfg, &docroot, &d) {
                out.push(u);
            }
        }
        out
    };
    use access::SectionPattern::{Plain, Regex, Wildcard};
    let pattern = access::section_pattern(section);
    let mut urls: Vec<String> = match (section.known(), pattern) {
        ("Location" | "LocationMatch", None) => vec!["/".into()],
        ("Location" | "LocationMatch", Some(Plain(p))) => vec![p.to_string()],
        ("Location" | "LocationMatch", Some(Wildcard(p))) => {
            access::witnesses::wildcard_witness(p, true).into_iter().collect()
        }
        ("Location" | "LocationMatch", Some(Regex(p))) => access::witnesses::regex_witnesses(p)
            .into_iter()
            .map(|w| if w.starts_with('/') { w } else { format!("/{w}") })
            .filter(|w| access::witnesses::regex_is_match(p, w))
            .collect(),
        ("Directory" | "DirectoryMatch", None) => directory_url(cfg, &docroot, "").into_iter().collect(),
        ("Directory" | "DirectoryMatch", Some(Plain(_) | Wildcard(_))) => dir_urls(section),
        // A regex `<Directory>` is matched against file names too: each witness is also asked
        // as a file.
        ("Directory" | "DirectoryMatch", Some(Regex(_))) => dir_urls(section)
            .into_iter()
            .flat_map(|u| [u.trim_end_matches('/').to_string(), u].into_iter().filter(|u| !u.is_empty()))
            .collect(),
        ("Files" | "FilesMatch", _) => {
            // A witness of an unanchored regex such as `\.txt$` is `.txt`, a hidden file's name
            // that other sections often refuse: `x.txt` is asked first when it matches too.
            let names: Vec<String> = access::witnesses::files_witnesses(section)
                .into_iter()
                .map(|w| match pattern {
                    Some(Regex(p)) if w.starts_with('.') && access::witnesses::regex_is_match(p, &format!("x{w}")) => {
                        format!("x{w}")
                    }
                    _ => w,
                })
                .collect();
            let dirs = match chain[..pos].iter().rev().find(|n| n.is("Directory") || n.is("DirectoryMatch")) {
                Some(d) => dir_urls(d),
                None => vec!["/".to_string()],
            };
            dirs.iter().flat_map(|d| names.iter().map(move |n| format!("{}/{n}", d.trim_end_matches('/')))).collect()
        }
        _ => vec![],
    };
    let mut seen = std::collections::HashSet::new();
    urls.retain(|u| seen.insert(u.clone()));
    urls.truncate(MAX_SECTION_URLS);
    urls.into_iter().map(|u| (if u.is_empty() { "/".into() } else { u }, host.clone())).collect()
}

/// The first of [`section_urls`] whose walk merges the innermost section of `chain`; else, for a
/// pattern `<Directory>`, the first directory on disk below the document root and alias targets
/// that it matches ([`disk_examples`]): a wildcard filled with `x` names no real directory.
fn reaching_url(cfg: &Config, chain: &[&Node], fs: &FsView) -> Option<(String, Option<String>)> {
    let pos = chain.iter().rposition(|n| is_container(n) && !n.is("VirtualHost"))?;
    let id = cfg.index().id(chain[pos])?;
    let reaches = |(u, h): &(String, Option<String>)| access::walk_request(cfg, fs, u, h.as_deref(), None).applies(id);
    let urls = section_urls(cfg, chain);
    if let Some(u) = urls.iter().find(|u| reaches(u)) {
        return Some(u.clone());
    }
    let section = chain[pos];
    if !(section.is("Directory") || section.is("DirectoryMatch")) {
        return None;
    }
    let host = chain
        .iter()
        .find(|n| n.is("VirtualHost"))
        .and_then(|v| v.children.iter().find(|c| c.is("ServerName")).and_then(|c| c.arg(0).map(str::to_string)));
    let (docroot, roots) = url_roots(cfg, chain);
    disk_examples(section, &roots)
        .into_iter()
        .filter_map(|p| directory_url(cfg, &docroot, &p).map(|u| (u, host.clone())))
        .find(|u| reaches(u))
}

/// The document root of the server `chain` is in, and the directories its URLs map to (the
/// document root, then the Alias and ScriptAlias targets).
fn url_roots(cfg: &Config, chain: &[&Node]) -> (Option<String>, Vec<String>) {
    let ix = cfg.index();
    let vhost = chain.iter().find(|n| n.is("VirtualHost"));
    let docroot = vhost
        .and_then(|v| v.children.iter().find(|c| c.is("DocumentRoot")))
        .map(|d| d.arg(0).map(str::to_string))
        .unwrap_or_else(|| ix.main.document_root.clone())
        .map(|d| d.trim_end_matches('/').to_string());
    let scope = vhost.and_then(|v| ix.id(v)).and_then(|id| ix.vhosts.iter().find(|h| h.id == id)).map(|h| &h.scope);
    let mut roots: Vec<String> = docroot.iter().cloned().collect();
    for sc in std::iter::once(&ix.main).chain(scope) {
        roots.extend(sc.aliases[0].iter().chain(&sc.aliases[1]).map(|(_, to)| to.trim_end_matches('/').to_string()));
    }
    (docroot, roots)
}

/// How many directories [`disk_examples`] reads at most, and how deep below a root.
const DISK_EXAMPLES_DIRS: usize = 500;
const DISK_EXAMPLES_DEPTH: usize = 4;

/// Directories below `roots` on disk that a wildcard or regex `<Directory>` section matches,
/// breadth first, within bounds (symbolic links not followed).
fn disk_examples(section: &Node, roots: &[String]) -> Vec<String> {
    let matches: Box<dyn Fn(&str) -> bool> = match access::section_pattern(section) {
        Some(access::SectionPattern::Wildcard(p)) => {
            let p = p.trim_end_matches('/').to_string();
            Box::new(move |d: &str| access::wildcard_match(&p, d, true))
        }
        Some(access::SectionPattern::Regex(p)) => {
            let p = p.to_string();
            Box::new(move |d: &str| access::witnesses::regex_is_match(&p, d))
        }
        _ => return vec![],
    };
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<(std::path::PathBuf, usize)> =
        roots.iter().map(|r| (std::path::PathBuf::from(r), 0)).collect();
    let mut read = 0;
    while let Some((dir, depth)) = queue.pop_front() {
        if read == DISK_EXAMPLES_DIRS || depth > DISK_EXAMPLES_DEPTH {
            break;
        }
        read += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut subdirs: Vec<std::path::PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        subdirs.sort();
        for d in subdirs {
            if matches(&d.to_string_lossy()) {
                out.push(d.to_string_lossy().into_owned());
            }
            queue.push_back((d, depth + 1));
        }
    }
    out
}

/// The URL of a directory: through an Alias to it, or below the DocumentRoot (a
/// directory above the DocumentRoot is reached by `/`).
fn directory_url(cfg: &Config, docroot: &Option<String>, dir: &str) -> Option<String> {
    let p = dir.trim_end_matches('/').to_string();
    let via_alias = cfg.index().alias_to(&p).map(|(from, rest)| format!("{}{rest}/", from.trim_end_matches('/')));
    Some(match (docroot, via_alias) {
        (_, Some(u)) => u,
        (Some(d), None) if p.starts_with(d.as_str()) => format!("{}/", &p[d.len()..]),
        (Some(d), None) if d.starts_with(&p) || p.is_empty() => "/".into(),
        _ => return None,
    })
}

/// The URL an .htaccess file's directory is served at, and the virtual host to ask
/// for: through the main server's DocumentRoot or an Alias, else a virtual host's DocumentRoot.
fn access_file_url(server: &Config, dir: &Path) -> Option<(String, Option<String>)> {
    let dir = dir.to_string_lossy();
    let docroot_of = |nodes: &[Node]| {
        nodes
            .iter()
            .rev()
            .find(|c| c.kind == NodeKind::Directive && c.is("DocumentRoot"))
            .and_then(|d| d.args().first())
            .map(|d| d.trim_end_matches('/').to_string())
    };
    let main = docroot_of(&server.nodes);
    let vhosts = server.nodes.iter().filter(|n| n.is_section() && n.is("VirtualHost")).map(|v| {
        let host = v.children.iter().find(|c| c.is("ServerName")).and_then(|c| c.arg(0).map(str::to_string));
        (docroot_of(&v.children).or_else(|| main.clone()), host)
    });
    std::iter::once((main.clone(), None))
        .chain(vhosts)
        .find_map(|(root, host)| directory_url(server, &root, &dir).map(|u| (u, host)))
}

/// How many addresses the rules mention a table shows at most.
const MENTIONED_SHOWN: usize = 5;

/// The clients a table shows: a local one, each address the rules mention (at most
/// `MENTIONED_SHOWN`), and an outsider.
pub fn representative_clients(cfgs: &[&Config]) -> Vec<(String, IpAddr)> {
    let mut v: Vec<(String, IpAddr)> = vec![("local (127.0.0.1)".into(), "127.0.0.1".parse().unwrap())];
    for (w, ip) in cfgs.iter().flat_map(|c| mentioned_addresses(c).iter()) {
        if v.len() == 1 + MENTIONED_SHOWN {
            break;
        }
        if !v.iter().any(|(_, a)| a == ip) {
            v.push((w.clone(), *ip));
        }
    }
    v.push(("any other (192.0.2.1)".into(), "192.0.2.1".parse().unwrap()));
    v
}

/// The first addresses the configuration's Allow, Deny and `Require ip` lines name, in
/// walk order without repeats (as written, and its network address): as many as
/// [`representative_clients`] can take from one configuration (one more than it shows,
/// as 127.0.0.1 may be among them), so the walk stops early in a big configuration
/// (an edit of an access rule asks again). Kept in the configuration's index.
pub(crate) fn mentioned_addresses(cfg: &Config) -> &[(String, IpAddr)] {
    cfg.index().mentioned_addresses.get_or_init(|| {
        let mut seen = std::collections::HashSet::new();
        let mut v = Vec::new();
        for n in cfg.walk() {
            let words: Vec<&str> = if n.is("Allow") || n.is("Deny") {
                n.args().skip(1).collect()
            } else if n.is("Require") && n.args().find(|w| !w.eq_ignore_ascii_case("not")).is_some_and(|p| p == "ip") {
                n.args().skip_while(|w| w.eq_ignore_ascii_case("not")).skip(1).collect()
            } else {
                continue;
            };
            for w in words {
                if let Some(net) = policy::IpSubnet::parse_word(w).ok().and_then(|s| s.to_ipnet()) {
                    let ip = net.network();
                    if seen.insert(ip) {
                        v.push((w.to_string(), ip));
                        if v.len() > MENTIONED_SHOWN {
                            return v;
                        }
                    }
                }
            }
        }
        v
    })
}

/// Walks and evaluates a hover's request: SetEnvIf evaluated (headers other than Host unknown).
fn effective(cfg: &Config, spec: &RequestSpec) -> Effective {
    effective_with(cfg, spec, Some(&hover_env_inputs(&spec.host)))
}

/// What a hover knows of a request for SetEnvIf: its Host header only.
fn hover_env_inputs(host: &Option<String>) -> crate::ide::setenvif::EnvInputs {
    crate::ide::setenvif::EnvInputs {
        headers: host.iter().map(|h| ("Host".to_string(), h.clone())).collect(),
        ..Default::default()
    }
}

/// What httpd writes to the error log for one outcome: the entries (with why LogLevel drops
/// one), or what a refusal without an entry means.
fn log_summary(cfg: &Config, e: &Effective) -> String {
    let suppressed = crate::ide::loglevel::suppressed(cfg, e);
    let entries: Vec<String> = e
        .outcome
        .log
        .iter()
        .zip(&suppressed)
        .filter(|(l, why)| why.is_none() || l.level != policy::LogLevel::Info)
        .map(|(l, why)| {
            let text = format!("`{}`", crate::ide::explain::log_line(l));
            match why {
                Some(w) => format!("{text} ({w})"),
                None => text,
            }
        })
        .collect();
    if !entries.is_empty() {
        return entries.join("; ");
    }
    match e.outcome.status {
        Some(401) => "nothing (httpd asks for credentials without logging)".into(),
        _ => "nothing".into(),
    }
}

fn spec(url: &str, host: &Option<String>, client: IpAddr, user: Option<&str>) -> RequestSpec {
    let mut r = Request::new("GET", client, client);
    set_client(&mut r, client);
    r.user = user.map(str::to_string);
    r.client_host = HostKnowledge::NoName;
    r.groups = Some(Default::default());
    RequestSpec { path: url.to_string(), host: host.clone(), request: r }
}

/// A hover's request from `client`, over a loopback connection of its address family.
fn set_client(r: &mut Request, client: IpAddr) {
    r.client = client;
    r.local_addr = if client.is_ipv4() { "127.0.0.1".parse().unwrap() } else { "::1".parse().unwrap() };
}

/// A trap in a section: its Require lines never take effect because an old-style
/// rule inherited from elsewhere refuses every request first.
#[derive(Debug, Clone)]
pub struct Defeated {
    pub require: (FileId, TextRange),
    pub require_text: String,
    pub decided_by: String,
    pub deciding: Option<policy::Loc>,
}

/// Checks one section for the precedence trap.
pub fn defeated_require(cfg: &Config, chain: &[&Node]) -> Option<Defeated> {
    defeated_require_among(cfg, chain, &DefeatedBatch::new(&[cfg], FsView::fresh()), &mut RecentWalks::default())
}

/// What a batch of [`defeated_require`] checks shares: the clients to try
/// ([`representative_clients`]), the file system view, and the host checks already made.
pub struct DefeatedBatch {
    clients: Vec<(String, IpAddr)>,
    fs: FsView,
    /// mod_access_compat's answer to each client's GET ([`access::host_check_refusal_by`]), by
    /// the section whose Order/Allow/Deny is in effect: many sections inherit the same rules.
    host_checks: Mutex<HashMap<SecId, Arc<[Option<policy::Deciding>]>>>,
    /// The main server's sections (outside every `<VirtualHost>`), nested ones included, made
    /// when first asked: a big tree's top level is mostly virtual hosts.
    main_sections: std::sync::OnceLock<Vec<SecId>>,
}

/// What the last walks of one worker of a batch told before any merge (`Early`), by URL and
/// host: a few sections of a virtual host are reached by the same URL (a `<Location /admin>`
/// and the `<Directory>` serving /admin), and they come close together. Only the last
/// `RecentWalks::KEPT` are kept: a map of every walk would hold megabytes on a big tree.
#[derive(Default)]
pub struct RecentWalks(std::collections::VecDeque<(String, Option<String>, Early)>);

impl RecentWalks {
    const KEPT: usize = 64;
}

/// The trap's question as far as the request walk answers it alone: it depends on the URL and
/// the host only, not on the section that asks.
#[derive(Clone)]
enum Early {
    /// Every client's outcome is a 500 or unknown: no refusal by mod_access_compat.
    Answered,
    /// The host check in effect refuses every client: what decides each one.
    AllRefused(Arc<[Option<policy::Deciding>]>),
    /// Only the merge and the evaluation of each client tell.
    Evaluate,
}

impl DefeatedBatch {
    /// The clients are those the `mentioned` configurations name.
    pub fn new(mentioned: &[&Config], fs: FsView) -> DefeatedBatch {
        DefeatedBatch {
            clients: representative_clients(mentioned),
            fs,
            host_checks: Default::default(),
            main_sections: Default::default(),
        }
    }

    /// The host check's answer to each client, in order, where section `source`'s
    /// Order/Allow/Deny are in effect. The host check of a GET depends on those rules and the
    /// client only (not on the URL or the Host asked for).
    fn host_checks(
        &self,
        cfg: &Config,
        source: SecId,
        url: &str,
        host: &Option<String>,
    ) -> Arc<[Option<policy::Deciding>]> {
        if let Some(known) = self.host_checks.lock().unwrap_or_else(|e| e.into_inner()).get(&source) {
            return known.clone();
        }
        let mut sp = spec(url, host, self.clients[0].1, None);
        let checks: Arc<[_]> = self
            .clients
            .iter()
            .map(|(_, ip)| {
                set_client(&mut sp.request, *ip);
                access::host_check_refusal_by(cfg, source, &sp.request)
            })
            .collect();
        self.host_checks.lock().unwrap_or_else(|e| e.into_inner()).insert(source, checks.clone());
        checks
    }

    /// [`Early`] for `url` on `host`, from `recent` when it was walked lately; the walk too when
    /// it was made now.
    fn early(
        &self,
        cfg: &Config,
        url: &str,
        host: &Option<String>,
        recent: &mut RecentWalks,
    ) -> (Early, Option<access::Walked>) {
        if let Some((_, _, known)) = recent.0.iter().find(|(u, h, _)| u == url && h == host) {
            return (known.clone(), None);
        }
        let walked = access::walk_request(cfg, &self.fs, url, host.as_deref(), None);
        // With Satisfy All, a host check that refuses the client is the whole answer (a 403 decided
        // by mod_access_compat). When it refuses every client, the rules in effect are all there is
        // to know, and the walk tells whose they are without merging the sections' policies.
        let early = match walked.before_merge(cfg) {
            BeforeMerge::AnsweredBeforeAccessChecks => Early::Answered,
            BeforeMerge::CompatFrom(source) => {
                let checks = self.host_checks(cfg, source, url, host);
                if checks.iter().all(Option::is_some) {
                    Early::AllRefused(checks)
                } else {
                    Early::Evaluate
                }
            }
            BeforeMerge::Merge => Early::Evaluate,
        };
        if recent.0.len() == RecentWalks::KEPT {
            recent.0.pop_front();
        }
        recent.0.push_back((url.to_string(), host.clone(), early.clone()));
        (early, Some(walked))
    }
}

/// [`defeated_require`] for a batch: what the sections share is computed once ([`DefeatedBatch`]).
pub fn defeated_require_among(
    cfg: &Config,
    chain: &[&Node],
    batch: &DefeatedBatch,
    recent: &mut RecentWalks,
) -> Option<Defeated> {
    let section = chain.last()?;
    // A pattern section applies to requests no list of examples covers: no claim about all of them.
    if !matches!(access::section_pattern(section), Some(access::SectionPattern::Plain(_)) | None) {
        return None;
    }
    let (url, host) = url_for(cfg, chain)?;
    let own = Own { cfg, file: cfg.file(section.loc.file).path.clone(), range: Some(section.loc.range) };
    let found = defeated(cfg, &section.children, &own, &url, &host, batch, recent)?;
    // It holds at the section's own URL. "Every request" also means those the section shares with
    // sections whose Order/Allow/Deny let some client through (a `<Files>` inside it, a deeper
    // `<Directory>`, a `<Location>` below its URL): it must hold there too, and when such a section
    // may apply where no URL can be built for it, nothing is claimed.
    for (u, h) in reopening_urls(cfg, chain, &url, &host, batch)? {
        defeated(cfg, &section.children, &own, &u, &h, batch, recent)?;
    }
    Some(found)
}

/// How many URLs [`reopening_urls`] gives at most before it gives up.
const MAX_REOPENING_URLS: usize = 64;

/// URLs below `url` where the innermost section of `chain` (reached at `url` on `host`) may meet a section
/// whose own Order/Allow/Deny let some representative client through: each such section of
/// the same server (and of every virtual host, for a main-server section), at its own URLs and,
/// for a `<Files>` name, under the directory of `url`. None when such a section has no URL to
/// try (a pattern no example is built for), or there are too many to try.
fn reopening_urls(
    cfg: &Config,
    chain: &[&Node],
    url: &str,
    host: &Option<String>,
    batch: &DefeatedBatch,
) -> Option<Vec<(String, Option<String>)>> {
    let ix = cfg.index();
    let in_vhost = chain.iter().find(|n| n.is("VirtualHost"));
    // The sections of the server: the main server's, and the virtual host's (or every virtual
    // host's, for a main-server section: their requests pass it too).
    let main = batch.main_sections.get_or_init(|| {
        let mut out = Vec::new();
        let mut stack: Vec<&Node> = cfg.nodes.iter().filter(|n| n.is_section() && !n.is("VirtualHost")).collect();
        while let Some(n) = stack.pop() {
            out.extend(ix.id(n));
            stack.extend(n.children.iter().filter(|c| c.is_section()));
        }
        out
    });
    let mut stack: Vec<&Node> = Vec::new();
    match in_vhost {
        Some(v) => stack.extend(v.children.iter()),
        None => stack.extend(ix.vhosts.iter().flat_map(|v| ix.node(cfg, v.id).children.iter())),
    }
    let vhost_sections = std::iter::from_fn(move || {
        while let Some(n) = stack.pop() {
            if n.is_section() {
                stack.extend(n.children.iter());
                return Some(n);
            }
        }
        None
    });
    let sections = main.iter().map(|id| ix.node(cfg, *id)).chain(vhost_sections);
    // `<Files>` names are tried in the section's directory (a `<Files>` section meets another
    // one only on a file name both match: on the section's own URL, walked already).
    let section_is_files = chain.last().is_some_and(|n| n.is("Files") || n.is("FilesMatch"));
    let dir_of_url = format!("{}/", url.trim_end_matches('/'));
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for n in sections {
        if chain.iter().any(|c| std::ptr::eq(*c, n)) {
            continue;
        }
        // (Old-style lines are looked for first: the policy's outline is made on demand.)
        let old_style = |c: &Node| policy::is_compat_directive(c.canonical());
        if !n.children.iter().any(|c| old_style(c) || (c.is_section() && !is_container(c) && c.walk().any(old_style))) {
            continue;
        }
        let Some(t) = ix.id(n) else { continue };
        if !ix.outline(cfg, t).sets_compat || batch.host_checks(cfg, t, url, host).iter().all(Option::is_some) {
            continue;
        }
        let t_chain = ix.chain(cfg, t);
        if (n.is("If") || n.is("ElseIf") || n.is("Else"))
            && !t_chain.iter().any(|c| is_container(c) && !c.is("VirtualHost"))
        {
            // A top-level `<If>` is on every walk of its server, the section's own included.
            continue;
        }
        let mut urls = section_urls(cfg, &t_chain);
        if (n.is("Files") || n.is("FilesMatch")) && !section_is_files {
            let h = t_chain
                .iter()
                .find(|c| c.is("VirtualHost"))
                .map_or(host.clone(), |_| urls.first().and_then(|u| u.1.clone()));
            urls.extend(
                access::witnesses::files_witnesses(n)
                    .into_iter()
                    .map(|name| (format!("{dir_of_url}{name}"), h.clone())),
            );
        }
        if urls.is_empty() {
            // A plain section no URL maps to is met by no request; a pattern no string was built
            // for may be met by any.
            if matches!(access::section_pattern(n), Some(access::SectionPattern::Plain(_)) | None) {
                continue;
            }
            return None;
        }
        // Only URLs below the section's own reach it (a section at the same URL or above it is on
        // the walk already made there). The walk itself is not asked: where a URL below is mapped
        // elsewhere, the section's Require may be taken for one that decides, and a finding is
        // lost, never made.
        out.extend(urls.into_iter().filter(|(u, _)| u.len() > url.len() && u.starts_with(url)));
        if out.len() > MAX_REOPENING_URLS {
            return None;
        }
    }
    Some(out)
}

/// Where a body of access directives is written: a section, or a whole .htaccess
/// file (`cfg` holds its text).
struct Own<'a> {
    cfg: &'a Config,
    file: Arc<Path>,
    range: Option<TextRange>,
}

impl Own<'_> {
    /// Whether a rule is written here.
    fn holds(&self, l: &policy::Loc) -> bool {
        // The range first: comparing paths goes component by component.
        self.range.is_none_or(|r| l.range.0 >= u32::from(r.start()) && l.range.1 <= u32::from(r.end()))
            && (Arc::ptr_eq(&l.file, &self.file) || *l.file == *self.file)
    }
}

/// The precedence trap for a body of directives (`nodes`, evaluated at `url`): it has
/// Require lines and no old-style ones, yet every representative client is refused by
/// a mod_access_compat rule written elsewhere.
fn defeated(
    cfg: &Config,
    nodes: &[Node],
    own: &Own<'_>,
    url: &str,
    host: &Option<String>,
    batch: &DefeatedBatch,
    recent: &mut RecentWalks,
) -> Option<Defeated> {
    let req = nodes.iter().find(|c| c.is("Require"))?;
    if nodes.iter().any(|c| policy::is_compat_directive(c.canonical())) {
        return None;
    }
    // The walk does not depend on the client: walk once, evaluate per client.
    let walked = match batch.early(cfg, url, host, recent) {
        (Early::Answered, _) => return None,
        (Early::AllRefused(checks), _) => return trap(req, own, checks.iter().map(Option::as_ref)),
        (Early::Evaluate, walked) => {
            walked.unwrap_or_else(|| access::walk_request(cfg, &batch.fs, url, host.as_deref(), None))
        }
    };
    let resolved = walked.merge(cfg);
    if resolved.answered_before_access_checks() {
        return None;
    }
    // Otherwise the full evaluation for the clients the host check does not refuse. Only after
    // a 200 can mod_dir's DirectoryIndex subrequest change the answer: then the full request.
    // SetEnvIf is evaluated per client, as [`effective`] does.
    let checks = resolved.compat_source().map(|source| batch.host_checks(cfg, source, url, host));
    let mut full: Option<(Vec<(usize, policy::Item)>, crate::ide::setenvif::EnvInputs)> = None;
    let mut sp = spec(url, host, batch.clients.first()?.1, None);
    let decisions = batch.clients.iter().enumerate().map(|(i, (_, ip))| {
        set_client(&mut sp.request, *ip);
        let refusal = match &checks {
            Some(checks) => checks[i].clone(),
            None => resolved.host_check_refusal(cfg, &sp.request),
        };
        refusal.or_else(|| {
            let (per_dir, inputs) = full.get_or_insert_with(|| (resolved.per_dir(cfg), hover_env_inputs(host)));
            let mut outcome = resolved.outcome_with_setenvif(cfg, url, &sp.request, inputs, per_dir);
            if outcome.status == Some(200) {
                outcome = access::effective_in(cfg, &batch.fs, &sp, Some(inputs)).outcome;
            }
            outcome.deciding.filter(|_| outcome.status == Some(403))
        })
    });
    trap(req, own, decisions)
}

/// The trap, given what decides each representative client's request, in order (None: not a
/// 403): it holds when every one is refused by mod_access_compat, by a rule written elsewhere;
/// the last one names the rule.
fn trap<D: std::borrow::Borrow<policy::Deciding>>(
    req: &Node,
    own: &Own<'_>,
    decisions: impl IntoIterator<Item = Option<D>>,
) -> Option<Defeated> {
    let mut decided = None;
    for d in decisions {
        let d = d?;
        let deciding = d.borrow();
        if deciding.layer != Layer::AccessCompat || deciding.loc.as_ref().is_some_and(|l| own.holds(l)) {
            return None;
        }
        decided = Some(d);
    }
    let d = decided?;
    let d = d.borrow();
    Some(Defeated {
        require: (req.loc.file, own.cfg.trimmed(&req.loc)),
        require_text: format!("Require {}", req.raw_args()),
        decided_by: d.rule.clone(),
        deciding: d.loc.clone(),
    })
}

fn loc_label(l: &policy::Loc) -> String {
    format!("{}:{}", l.file.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default(), l.line)
}

/// Markdown hover at `offset` of `file`.
pub fn hover(cfg: &Config, file: FileId, offset: TextSize) -> Option<(TextRange, String)> {
    if let Some(h) = skipped_line_hover(cfg, file, offset) {
        return Some(h);
    }
    let chain = path_to(cfg, file, offset);
    let last = *chain.last()?;
    // On a directive name that is not about access: the catalogue entry.
    if last.kind == NodeKind::Directive
        && !crate::ide::access::is_access_directive(last.name())
        && !last.canonical().get(..4).is_some_and(|p| p.eq_ignore_ascii_case("auth"))
    {
        if !last.loc.focus.contains_inclusive(offset) {
            return None;
        }
        let d = catalogue::directive(last.name())?;
        return Some((last.loc.focus, directive_doc(d)));
    }
    if let Some(server) = &cfg.enclosing {
        return access_file_hover(cfg, server, &chain, offset);
    }
    // On a section header or an access directive: the effective policy.
    let sec_idx = chain.iter().rposition(|n| is_container(n))?;
    let sections = &chain[..=sec_idx];
    let section = sections[sec_idx];
    if last.is_section() && !last.loc.focus.contains_inclusive(offset) && std::ptr::eq(last, section) {
        return None;
    }
    let range = if last.kind == NodeKind::Directive { last.loc.range } else { last.loc.focus };
    let pattern = !matches!(access::section_pattern(section), Some(access::SectionPattern::Plain(_)) | None);
    let fs = FsView::cached();
    let reached = reaching_url(cfg, sections, &fs);
    let Some((url, host)) = reached.clone().or_else(|| url_for(cfg, sections).filter(|_| !pattern)) else {
        let why = if pattern {
            "No request built from this pattern (its wildcards filled in, each branch of a regular expression, beneath the DocumentRoot and Alias targets) reaches this section, so there is no request to evaluate; requests this tool cannot build may still reach it."
        } else {
            "No URL reaches this section through DocumentRoot or Alias, so there is no request to evaluate."
        };
        return Some((range, format!("**<{} {}>**\n\n{why}", section.name(), section.args().join(" "))));
    };
    let trap = defeated_require(cfg, sections).map(trap_text);
    let mut md = policy_markdown(cfg, &url, &host, trap, &[cfg]);
    if pattern {
        let first_line = md.find('\n').unwrap_or(md.len());
        md.insert_str(first_line, &format!(" (a URL this section's pattern `{}` reaches)", section.args().join(" ")));
    }
    Some((range, md))
}

/// Hover on a line inside a conditional section httpd skips (`<IfVersion < 2.4>`,
/// `<IfModule !mod_authz_core.c>`, a module not loaded): httpd never reads it, so it has no
/// policy to show; say so, name the conditional, and add the catalogue's entry.
fn skipped_line_hover(cfg: &Config, file: FileId, offset: TextSize) -> Option<(TextRange, String)> {
    // The innermost inactive body holding the offset.
    let body = cfg
        .inactive
        .iter()
        .filter(|(f, r)| *f == file && r.contains(offset))
        .map(|(_, r)| *r)
        .min_by_key(|r| r.len())?;
    let data = cfg.file(file);
    let text: &str = &data.text;
    let index = &data.line_index;
    let line_of = |o: TextSize| index.line_col(o, apache_syntax::Encoding::Utf8).line;
    let line_range = index.line_range(line_of(offset))?;
    let line = &text[line_range];
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return None;
    }
    let word = trimmed.split(|c: char| c.is_whitespace()).next().unwrap_or("");
    let word_start = line_range.start() + TextSize::from((line.len() - line.trim_start().len()) as u32);
    let range = TextRange::at(word_start, TextSize::from(trimmed.len() as u32));
    // The conditional's header is the line the body starts after.
    let header_line = line_of(body.start().checked_sub(TextSize::from(1)).unwrap_or_default());
    let header = text[TextRange::new(index.line_range(header_line)?.start(), body.start())].trim();
    let header_line = header_line + 1;
    let v = crate::ide::config::HTTPD_VERSION;
    let mut md = format!(
        "**Skipped by httpd**: this line is inside `{header}` (line {header_line}), whose condition is false with this configuration (httpd {}.{}.{}, the modules and Defines it loads), so httpd never reads it: it has no effect.\n",
        v.0, v.1, v.2
    );
    let name = word.trim_start_matches('<').trim_start_matches('/').trim_end_matches('>');
    if let Some(d) = catalogue::directive(name) {
        md.push_str("\n---\n\n");
        md.push_str(&directive_doc(d));
    }
    Some((range, md))
}

fn trap_text(t: Defeated) -> String {
    let at = t.deciding.as_ref().map(|l| format!(" ({})", loc_label(l))).unwrap_or_default();
    format!("⚠ `{}` has no effect here: `{}`{at} refuses every request first.", t.require_text, t.decided_by)
}

/// Hover in an .htaccess file read under `server`: the effective policy of its
/// directory's URL (or of a `<Files>` name in it), every section on the way included.
fn access_file_hover(cfg: &Config, server: &Config, chain: &[&Node], offset: TextSize) -> Option<(TextRange, String)> {
    let last = *chain.last()?;
    let range = if last.kind == NodeKind::Directive {
        last.loc.range
    } else if last.loc.focus.contains_inclusive(offset) {
        last.loc.focus
    } else {
        return None;
    };
    let path = cfg.file(last.loc.file).path.clone();
    let dir = path.parent()?;
    let Some((mut url, host)) = access_file_url(server, dir) else {
        return Some((
            range,
            format!(
                "**{}**\n\nNo URL reaches `{}` through a DocumentRoot or Alias of the server configuration, so there is no request to evaluate.",
                path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                dir.display()
            ),
        ));
    };
    if let Some(name) = chain.iter().find(|n| n.is("Files")).and_then(|f| f.args().first()) {
        if !name.contains(['*', '?', '[', '~']) {
            url = format!("{}/{name}", url.trim_end_matches('/'));
        }
    }
    let own = Own { cfg, file: path.clone(), range: None };
    let batch = DefeatedBatch::new(&[server, cfg], FsView::fresh());
    let trap = defeated(server, &cfg.nodes, &own, &url, &host, &batch, &mut RecentWalks::default()).map(trap_text);
    Some((range, policy_markdown(server, &url, &host, trap, &[server, cfg])))
}

/// The effective policy of `GET url` as markdown: the sections in merge order, the
/// resulting Require, the outcome table (for the clients the `mentioned`
/// configurations name), the deciding rule and `trap` if any.
fn policy_markdown(
    cfg: &Config,
    url: &str,
    host: &Option<String>,
    trap: Option<String>,
    mentioned: &[&Config],
) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "**Effective access** for `GET {url}`{}",
        host.as_ref().map(|h| format!(" on `{h}`")).unwrap_or_default()
    );
    let base = effective(cfg, &spec(url, host, "127.0.0.1".parse().unwrap(), None));
    // httpd stops at a line it refuses before any request: no rule decides, and the rules left
    // once that line is dropped are not ones httpd runs.
    let refuses = !base.errors.is_empty();
    if refuses {
        let _ =
            writeln!(md, "\n**httpd refuses to start** with the sections that apply here, so it answers no request:");
        for e in &base.errors {
            let _ = writeln!(md, "- {} ({})", e.message, loc_label(&e.loc));
        }
    }
    let _ = writeln!(md, "\nFile system: `{}`\n", base.filesystem_path.display());
    let _ = writeln!(md, "Sections in merge order:");
    for s in &base.sections {
        let layers: Vec<&str> = [
            s.compat.as_ref().map(|_| "mod_access_compat (replaces)"),
            s.authz.as_ref().map(|_| "mod_authz_core"),
            s.authn.as_ref().map(|_| "authn"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let file = s.path.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
        let _ = writeln!(
            md,
            "- `<{} {}>` ({file}:{}){}",
            s.kind,
            s.args.join(" "),
            s.line,
            if layers.is_empty() { String::new() } else { format!(": {}", layers.join(", ")) }
        );
    }
    if let Some(a) = base.authz.as_ref().and_then(|a| a.section.as_ref()).filter(|_| !refuses) {
        let _ = writeln!(md, "\nEffective Require:\n```apache\n{}```", a.render());
    }
    if let Some(c) = base.compat.as_ref().filter(|_| !refuses) {
        let _ =
            writeln!(md, "\nEffective Order/Allow/Deny: {}", crate::ide::diagnostics::deprecated_access::describe(c));
    }
    let _ = writeln!(md, "\n| client | anonymous | authenticated |\n|---|---|---|");
    // Refused rows grouped by what httpd logs for them: (status, log text) → who.
    let mut refused: Vec<((u16, String), Vec<String>, IpAddr)> = Vec::new();
    for (label, ip) in representative_clients(mentioned) {
        let a = effective(cfg, &spec(url, host, ip, None));
        let b = effective(cfg, &spec(url, host, ip, Some("alice")));
        let show = |s: Option<u16>| s.map(|s| s.to_string()).unwrap_or_else(|| "unknown".into());
        let _ = writeln!(md, "| {label} | {} | {} |", show(a.outcome.status), show(b.outcome.status));
        for (e, who) in [(&a, "anonymous"), (&b, "authenticated")] {
            let Some(st) = e.outcome.status.filter(|s| *s != 200) else { continue };
            let key = (st, log_summary(cfg, e));
            let row = format!("{label}, {who}");
            match refused.iter_mut().find(|(k, ..)| *k == key) {
                Some((_, v, _)) => v.push(row),
                None => refused.push((key, vec![row], ip)),
            }
        }
    }
    if !refused.is_empty() {
        let _ = writeln!(md, "\nError log of the refused rows:");
        for ((st, log), who, ip) in &refused {
            let _ = writeln!(md, "- {st} for {}: {log}; access log `GET {url} {st} {ip}`", who.join("; "));
        }
    }
    if let Some(d) = base.outcome.deciding.as_ref().filter(|_| !refuses) {
        let at = d.loc.as_ref().map(|l| format!(" ({})", loc_label(l))).unwrap_or_default();
        let _ = writeln!(md, "\nFor 127.0.0.1, decided by {:?}: `{}`{at}", d.layer, d.rule);
    }
    if let Some(t) = trap {
        let _ = writeln!(md, "\n{t}");
    }
    if let Some(r) = &base.outcome.reason_unknown {
        let _ = writeln!(md, "\nSome outcomes cannot be known: {r}");
    }
    md
}

pub(crate) fn directive_doc(d: &catalogue::Directive) -> String {
    let mut s = format!("**{}** — {}\n\n", d.name, d.description);
    let _ = writeln!(s, "```apache\n{}\n```", d.syntax);
    let _ = writeln!(s, "Module: `{}` · Context: {}", d.module, d.contexts);
    if !d.override_class.is_empty() {
        let _ = writeln!(s, " · Override: {}", d.override_class);
    }
    if !d.default.is_empty() {
        let _ = writeln!(s, "\nDefault: `{}`", d.default);
    }
    if d.deprecated {
        s.push_str("\n**Deprecated.**\n");
    }
    if d.status == catalogue::Status::Removed {
        s.push_str("\n**Removed in httpd 2.4: httpd will not start with it.**\n");
    }
    let _ = writeln!(s, "\n[Documentation]({})", d.url);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::access::resolve;
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;
    use std::path::Path;

    /// The first URL each top-level section of the main server is asked at: patterns classified
    /// as the walk classifies them and filled in with a string they match (a wildcard `<Directory>`
    /// was once asked at its literal `/sub*/`); a section without an argument is its empty pattern.
    #[test]
    fn url_for_reads_patterns_as_the_walk_does() {
        let fx = Fixture::parse(
            "//- /etc/httpd/httpd.conf\nDocumentRoot /srv/www\n<Location /admin>\n</Location>\n<Location>\n</Location>\n<Location ~ ^/x>\n</Location>\n<Location /a*>\n</Location>\n<Directory /srv/www/sub*>\n</Directory>\n<Directory ~ ^/srv>\n</Directory>\n<Files a.php>\n</Files>\n<Files *.php>\n</Files>\n<LocationMatch ^/y>\n</LocationMatch>\n",
        );
        let cfg = load(Path::new(&fx.0[0].0), &fx);
        let urls: Vec<Option<String>> =
            cfg.nodes.iter().filter(|n| n.is_section()).map(|n| url_for(&cfg, &[n]).map(|(u, _)| u)).collect();
        let want = [
            Some("/admin"),
            Some("/"),
            Some("/x"),
            Some("/ax"),
            Some("/subx/"),
            Some("/"),
            Some("/a.php"),
            Some("/x.php"),
            Some("/y"),
        ];
        assert_eq!(urls, want.map(|u| u.map(str::to_string)));
    }

    /// The precedence trap of each section holding a Require (`line: decided by`), in a
    /// configuration (`{d}`: a fresh directory holding `www/sub/a.txt` and `other/`) whose
    /// document root is `{d}/www`.
    fn traps(conf: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www/sub")).unwrap();
        std::fs::create_dir_all(dir.path().join("other")).unwrap();
        std::fs::write(dir.path().join("www/sub/a.txt"), "x").unwrap();
        let main = dir.path().join("httpd.conf");
        let head = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot {d}/www\n";
        std::fs::write(&main, format!("{head}{conf}").replace("{d}", &d)).unwrap();
        let cfg = load(&main, &crate::ide::config::RealFs);
        let ix = cfg.index();
        (0..ix.len() as SecId)
            .map(|id| ix.chain(&cfg, id))
            .filter(|chain| chain.last().is_some_and(|n| n.children.iter().any(|c| c.is("Require"))))
            .filter_map(|chain| {
                defeated_require(&cfg, &chain)
                    .map(|t| format!("{}: {}", cfg.line(&chain.last().unwrap().loc), t.decided_by))
            })
            .collect()
    }

    /// "Refuses every request first" must hold for every request the section applies to: a
    /// section beneath it whose own Order/Allow/Deny let clients through (a `<Files>` inside it, a
    /// deeper `<Directory>`, a `<Location>` below its URL) makes the Require decide there, and
    /// deleting it, as the finding invites, would open those URLs. (Each case was a false finding;
    /// httpd answered 200 to 127.0.0.1 and 403, AH01630, to 127.0.0.2.)
    #[test]
    fn sections_reopening_beneath_cancel_the_trap() {
        let deny_root = "<Directory {d}/www>\n Order allow,deny\n</Directory>\n";
        // A <Files> inside the section.
        let found = traps(&format!("{deny_root}<Directory {{d}}/www/sub>\n Require ip 127.0.0.1\n <Files a.txt>\n  Allow from all\n </Files>\n</Directory>\n"));
        assert!(found.is_empty(), "{found:?}");
        // A deeper <Directory>, under a <Location /> Require.
        let found = traps(&format!("{deny_root}<Directory {{d}}/www/sub>\n Allow from all\n</Directory>\n<Location />\n Require ip 127.0.0.1\n</Location>\n"));
        assert!(found.is_empty(), "{found:?}");
        // A <Location> re-opening one file under a denying one.
        let found = traps("<Location /sub>\n Order allow,deny\n</Location>\n<Location /sub/a.txt>\n Order deny,allow\n</Location>\n<Directory {d}/www/sub>\n Require ip 127.0.0.1\n</Directory>\n");
        assert!(found.is_empty(), "{found:?}");
        // Sections that refuse everyone themselves, or that the section never meets, leave it.
        let found = traps(&format!("{deny_root}<Directory {{d}}/www/sub>\n Require ip 127.0.0.1\n <Files a.txt>\n  Deny from all\n </Files>\n</Directory>\n<Directory {{d}}/other>\n Allow from all\n</Directory>\n<Location /elsewhere>\n Allow from all\n</Location>\n"));
        assert_eq!(found, ["8: Order allow,deny: no Allow matches (default deny)"]);
        // A re-opening pattern section no URL can be built for: nothing is claimed.
        let found = traps(&format!("{deny_root}<Directory {{d}}/www/sub>\n Require ip 127.0.0.1\n</Directory>\n<FilesMatch \"[\"\">\n Allow from all\n</FilesMatch>\n"));
        assert!(found.is_empty(), "{found:?}");
    }

    /// A pattern section's hover evaluates a request that reaches it, not its pattern taken
    /// literally (`GET /*/deeper/`, which left the section out and showed its parent's 403), and
    /// a regex section is not said to be reached by no URL. httpd answered 200 from 127.0.0.2 at
    /// /sub/deeper/ (the wildcard section's Allow), 403 from 127.0.0.1 at /a.txt, /sub/ and
    /// /private/ (each regex section's Require).
    #[test]
    fn pattern_sections_are_hovered_at_a_url_they_reach() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        for sub in ["www/sub/deeper", "www/private"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("www/a.txt"), "x").unwrap();
        let main = dir.path().join("httpd.conf");
        let conf = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n Order deny,allow\n Deny from 127.0.0.2\n</Directory>\n<Directory {d}/www/*/deeper>\n Allow from all\n</Directory>\n<FilesMatch \"\\.txt$\">\n Require ip 127.0.0.2\n</FilesMatch>\n<LocationMatch \"^/sub/\">\n Require ip 127.0.0.2\n</LocationMatch>\n<DirectoryMatch \"^{d}/www/priv\">\n Require ip 127.0.0.2\n</DirectoryMatch>\n";
        std::fs::write(&main, conf.replace("{d}", &d)).unwrap();
        let cfg = load(&main, &crate::ide::config::RealFs);
        let text = cfg.file(0).text.clone();
        let hover_on = |header: &str| {
            let at = text.find(&header.replace("{d}", &d)).unwrap() + 2;
            hover(&cfg, 0, TextSize::from(at as u32)).unwrap().1
        };
        let md = hover_on("<Directory {d}/www/*/deeper>");
        assert!(md.starts_with("**Effective access** for `GET /sub/deeper/` (a URL this section's pattern"), "{md}");
        assert!(md.contains(&format!("`<Directory {d}/www/*/deeper>`")), "the section is merged: {md}");
        assert!(md.contains("| 127.0.0.2 | 200 | 200 |"), "{md}");
        for (header, url) in [("<FilesMatch", "/x.txt"), ("<LocationMatch", "/sub/"), ("<DirectoryMatch", "/private/")]
        {
            let md = hover_on(header);
            assert!(md.contains(&format!("for `GET {url}")), "{header}: {md}");
            // Merged, and refusing 127.0.0.1 by its Require (127.0.0.2 meets the Deny above).
            assert!(md.contains(&format!("- `{header} ")), "{header}: {md}");
            assert!(
                md.contains("| local (127.0.0.1) | 403 | 403 |") && md.contains("| 127.0.0.2 | 403 | 403 |"),
                "{header}: {md}"
            );
        }
    }

    /// `█` marks the cursor (it cannot clash with `$` in regexes or `${VAR}`).
    fn check(fixture: &str) -> String {
        let marker = fixture.find('█').expect("cursor marker");
        let fx = Fixture::parse(&fixture.replace('█', ""));
        let cfg = load(Path::new(&fx.0[0].0), &fx);
        // The marker is in the first file.
        let header = fixture[..marker].rfind("//- ").unwrap();
        let first_line_end = fixture[header..].find('\n').unwrap() + header + 1;
        let offset = TextSize::from((marker - first_line_end) as u32);
        hover(&cfg, 0, offset).map(|(_, md)| md).unwrap_or_default()
    }

    #[test]
    fn hover_shows_the_inherited_deny_defeating_require_local() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot /nonexistent-docroot\n<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n<Loc█ation /server-status>\n  Require local\n</Location>\n",
        );
        assert!(md.contains("| local (127.0.0.1) | 403 | 403 |"), "{md}");
        assert!(
            md.contains(
                "`Require local` has no effect here: `Deny from all` (httpd.conf:7) refuses every request first"
            ),
            "{md}"
        );
    }

    #[test]
    fn hover_names_the_log_entry_of_each_refused_row() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule auth_basic_module m\nLoadModule authn_file_module m\nLoadModule authn_core_module m\nLoadModule authz_user_module m\nDocumentRoot /nonexistent-docroot\n<Location /deny>\n  Order allow,deny\n  Allow from 127.0.0.1\n</Location>\n<Loc█ation /auth>\n  AuthType Basic\n  AuthName a\n  AuthUserFile /nonexistent-pw\n  Require user bob\n</Location>\n",
        );
        let refused: Vec<&str> = md.lines().filter(|l| l.starts_with("- 40")).collect();
        expect_test::expect![[r#"
            [
                "- 401 for local (127.0.0.1), anonymous; any other (192.0.2.1), anonymous: nothing (httpd asks for credentials without logging); access log `GET /auth 401 127.0.0.1`",
                "- 401 for local (127.0.0.1), authenticated; any other (192.0.2.1), authenticated: `[authz_core:error] AH01631: user alice: authorization failure for \"/auth\": `; access log `GET /auth 401 127.0.0.1`",
            ]
        "#]]
        .assert_debug_eq(&refused);
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule access_compat_module m\nDocumentRoot /nonexistent-docroot\nLogLevel warn access_compat:crit\n<Loc█ation /deny>\n  Order allow,deny\n  Allow from 127.0.0.1\n</Location>\n<Location /deny/x>\n  LogLevel info\n</Location>\n",
        );
        let refused: Vec<&str> = md.lines().filter(|l| l.starts_with("- 40")).collect();
        expect_test::expect![[r#"
            [
                "- 403 for any other (192.0.2.1), anonymous; any other (192.0.2.1), authenticated: `[access_compat:error] AH01797: client denied by server configuration: /nonexistent-docroot` (not logged at LogLevel access_compat:crit (an entry of level error; `LogLevel warn access_compat:crit` at /srv/httpd.conf:4)); access log `GET /deny 403 192.0.2.1`",
            ]
        "#]]
        .assert_debug_eq(&refused);
    }

    /// A Require line httpd refuses (here a negative one beside a positive one, outside any
    /// RequireAll): the hover says first that httpd does not start, names
    /// no deciding rule and shows no Require as in effect (the lines left are not what httpd runs).
    #[test]
    fn hover_under_a_refused_require_says_httpd_does_not_start() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nDocumentRoot /nonexistent-docroot\n<Directory />\n  Require all granted\n</Directory>\n<Loc█ation /x>\n  Require not ip 127.0.0.2\n  Require all granted\n</Location>\n",
        );
        expect_test::expect![[r#"
            **Effective access** for `GET /x`

            **httpd refuses to start** with the sections that apply here, so it answers no request:
            - negative Require directive has no effect in <RequireAny> directive (httpd.conf:8)

            File system: `/nonexistent-docroot`

            Sections in merge order:
            - `<Directory />` (httpd.conf:4): mod_authz_core
            - `<Location /x>` (httpd.conf:7): mod_authz_core

            | client | anonymous | authenticated |
            |---|---|---|
            | local (127.0.0.1) | unknown | unknown |
            | 127.0.0.2 | unknown | unknown |
            | any other (192.0.2.1) | unknown | unknown |

            Some outcomes cannot be known: httpd would refuse to start: negative Require directive has no effect in <RequireAny> directive
        "#]].assert_eq(&md);
    }

    #[test]
    fn hover_on_a_line_httpd_skips_says_so() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nDocumentRoot /nonexistent-docroot\n<Directory /srv/www>\n  <IfVersion < 2.4>\n    Order allow,deny\n    Al█low from all\n  </IfVersion>\n  Require all granted\n</Directory>\n",
        );
        expect_test::expect![[r#"
            **Skipped by httpd**: this line is inside `<IfVersion < 2.4>` (line 4), whose condition is false with this configuration (httpd 2.4.71, the modules and Defines it loads), so httpd never reads it: it has no effect.

            ---"#]].assert_eq(md.lines().take(3).collect::<Vec<_>>().join("\n").as_str());
        // Nested: the innermost skipped conditional is named.
        let md = check(
            "//- /srv/httpd.conf\n<IfModule !mod_authz_core.c>\n  <IfModule mod_access.c>\n    Or█der allow,deny\n  </IfModule>\n</IfModule>\n",
        );
        assert!(md.starts_with("**Skipped by httpd**: this line is inside `<IfModule mod_access.c>` (line 2)"), "{md}");
        // A comment in a skipped body has no hover.
        assert_eq!(check("//- /srv/httpd.conf\n<IfVersion < 2.4>\n  # Or█der\n</IfVersion>\n"), "");
    }

    #[test]
    fn hover_on_a_plain_directive_shows_the_catalogue() {
        let md = check("//- /srv/httpd.conf\nServer█Name example.com\n");
        assert!(md.contains("**ServerName**"), "{md}");
        assert!(md.contains("https://httpd.apache.org/docs/2.4/mod/core.html#servername"), "{md}");
    }

    #[test]
    fn hover_in_an_htaccess_file_explains_its_directory_under_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sïte");
        std::fs::create_dir_all(root.join("htdocs/sub")).unwrap();
        let main = root.join("httpd.conf");
        std::fs::write(
            &main,
            format!(
                "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot \"{r}/htdocs\"\n<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n<Directory \"{r}/htdocs\">\n  AllowOverride All\n  Require all granted\n</Directory>\n",
                r = root.display()
            ),
        )
        .unwrap();
        let access = root.join("htdocs/sub/.htaccess");
        std::fs::write(&access, "Require ip 127.0.0.2\n").unwrap();
        let server = std::sync::Arc::new(load(&main, &crate::ide::config::RealFs));
        let cfg = crate::ide::config::load_in_context(&access, &crate::ide::config::RealFs, server);
        let md = hover(&cfg, 0, TextSize::from(2)).map(|(_, md)| md).unwrap_or_default();
        assert!(md.contains("**Effective access** for `GET /sub/`"), "{md}");
        assert!(md.contains("- `<.htaccess >`"), "{md}");
        // mod_access_compat's inherited Deny wins over the .htaccess's Require (fact sheet: the
        // precedence trap), for the address the .htaccess names as for any other.
        assert!(md.contains("| local (127.0.0.1) | 403 | 403 |"), "{md}");
        assert!(md.contains("| 127.0.0.2 | 403 | 403 |"), "{md}");
        assert!(
            md.contains("⚠ `Require ip 127.0.0.2` has no effect here: `Deny from all` (httpd.conf:7) refuses every request first."),
            "{md}"
        );
    }

    /// The precedence trap as the full evaluation finds it, client by client (each outcome
    /// evaluated whole, DirectoryIndex subrequest included): the oracle for [`defeated`]'s
    /// shortcuts (the host check alone, shared across a batch).
    fn defeated_by_full_evaluation(cfg: &Config, chain: &[&Node]) -> Option<Defeated> {
        let section = chain.last()?;
        let (url, host) = url_for(cfg, chain)?;
        let req = section.children.iter().find(|c| c.is("Require"))?;
        if section.children.iter().any(|c| policy::is_compat_directive(c.canonical())) {
            return None;
        }
        let resolved = resolve(cfg, &FsView::fresh(), &url, host.as_deref(), None);
        let per_dir = resolved.per_dir(cfg);
        let inputs = hover_env_inputs(&host);
        let mut decided = None;
        for (_, ip) in representative_clients(&[cfg]) {
            let sp = spec(&url, &host, ip, None);
            let mut outcome = resolved.outcome_with_setenvif(cfg, &url, &sp.request, &inputs, &per_dir);
            if outcome.status == Some(200) {
                outcome = effective(cfg, &sp).outcome;
            }
            let d = outcome.deciding.clone()?;
            if outcome.status != Some(403) || d.layer != Layer::AccessCompat {
                return None;
            }
            let file = cfg.file(section.loc.file).path.clone();
            let r = section.loc.range;
            if d.loc.as_ref().is_some_and(|l| {
                *l.file == *file && l.range.0 >= u32::from(r.start()) && l.range.1 <= u32::from(r.end())
            }) {
                return None;
            }
            decided = Some(d);
        }
        let d = decided?;
        Some(Defeated {
            require: (req.loc.file, cfg.trimmed(&req.loc)),
            require_text: format!("Require {}", req.raw_args()),
            decided_by: d.rule.clone(),
            deciding: d.loc,
        })
    }

    /// Loads `conf` (`{d}` is a fresh directory holding `www/` with `sub/`, `idx/index.html`,
    /// `ht/` and `ht2/`, and the `.htaccess` files of `htaccess`) and checks every section holding a
    /// Require in one batch, as the checker does, against [`defeated_by_full_evaluation`]. Returns
    /// each finding as `line: decided by`.
    fn batch_agrees_with_full_evaluation(conf: &str, htaccess: &[(&str, &str)]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        for sub in ["www/sub", "www/idx", "www/ht", "www/ht2"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("www/idx/index.html"), "x").unwrap();
        for (at, text) in htaccess {
            std::fs::write(dir.path().join(at), text).unwrap();
        }
        let main = dir.path().join("httpd.conf");
        let head = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule setenvif_module m\nLoadModule dir_module m\nLoadModule authn_core_module m\nLoadModule authz_user_module m\nDocumentRoot {d}/www\nDirectoryIndex index.html\n";
        std::fs::write(&main, format!("{head}{conf}").replace("{d}", &d)).unwrap();
        let cfg = load(&main, &crate::ide::config::RealFs);
        let ix = cfg.index();
        let batch = DefeatedBatch::new(&[&cfg], FsView::cached());
        let mut found = Vec::new();
        for id in 0..ix.len() as SecId {
            let chain = ix.chain(&cfg, id);
            if !chain.last().is_some_and(|n| n.children.iter().any(|c| c.is("Require"))) {
                continue;
            }
            let fast = defeated_require_among(&cfg, &chain, &batch, &mut RecentWalks::default());
            let full = defeated_by_full_evaluation(&cfg, &chain);
            assert_eq!(
                format!("{fast:?}"),
                format!("{full:?}"),
                "section at line {}",
                cfg.line(&chain.last().unwrap().loc)
            );
            if let Some(t) = fast {
                found.push(format!("{}: {}", cfg.line(&chain.last().unwrap().loc), t.decided_by));
            }
        }
        found
    }

    #[test]
    fn batch_shortcuts_agree_with_the_full_evaluation() {
        // Location after Directory, compat in the section itself (inside <Limit>), a Location
        // replacing the inherited rules.
        let found = batch_agrees_with_full_evaluation(
            "<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n<Location /a>\n  Require local\n</Location>\n<Location /b>\n  <Limit GET>\n    Order allow,deny\n  </Limit>\n  Require all granted\n</Location>\n<Location /c>\n  Order allow,deny\n  Allow from all\n</Location>\n<Location /c/d>\n  Require all denied\n</Location>\n<Directory {d}/www/sub>\n  Require ip 127.0.0.2\n</Directory>\n<Location /e>\n  Require all granted\n</Location>\n",
            &[],
        );
        assert_eq!(found, ["14: Deny from all", "30: Deny from all", "33: Deny from all"]);
        // Satisfy Any: Require decides after a failed host check.
        let found = batch_agrees_with_full_evaluation(
            "<Directory />\n  Order deny,allow\n  Deny from all\n  Satisfy Any\n</Directory>\n<Location /a>\n  Require all denied\n</Location>\n<Location /b>\n  Require all granted\n</Location>\n<Location /sub/>\n  Require all granted\n</Location>\n",
            &[],
        );
        assert!(found.is_empty(), "{found:?}");
        // <Limit> masks: Satisfy Any for POST only leaves GET to the host check; a Deny for
        // POST only lets GET through.
        let found = batch_agrees_with_full_evaluation(
            "<Directory />\n  Order deny,allow\n  Deny from all\n  <Limit POST>\n    Satisfy Any\n  </Limit>\n</Directory>\n<Location /a>\n  Require all granted\n</Location>\n<Directory {d}/www/sub>\n  <Limit POST>\n    Order allow,deny\n  </Limit>\n</Directory>\n<Location /sub/x>\n  Require all granted\n</Location>\n",
            &[],
        );
        assert_eq!(found, ["17: Deny from all"]);
        // Allow/Deny from env= (SetEnvIf decides per client), Order mutual-failure.
        let found = batch_agrees_with_full_evaluation(
            "SetEnvIf Remote_Addr \"^127\\.0\\.0\\.1$\" ok\n<Directory />\n  Order deny,allow\n  Deny from all\n  Allow from env=ok\n</Directory>\n<Location /a>\n  Require all granted\n</Location>\n<Directory {d}/www/sub>\n  Order allow,deny\n  Allow from env=nobody\n</Directory>\n<Location /sub/x>\n  Require all granted\n</Location>\n<Directory {d}/www/ht>\n  Order mutual-failure\n  Allow from 127.0.0.1\n  Deny from all\n</Directory>\n<Location /ht/x>\n  Require all granted\n</Location>\n<Directory {d}/www/ht2>\n  Order mutual-failure\n  Allow from all\n  Deny from 192.0.2.1\n</Directory>\n<Location /ht2/x>\n  Require all granted\n</Location>\n",
            &[],
        );
        assert_eq!(
            found,
            [
                "23: Order allow,deny: no Allow matches (default deny)",
                // mutual-failure reads the Deny lines only once an Allow matched.
                "31: Order mutual-failure: no Allow matches (default deny)"
            ]
        );
        // .htaccess layers: one refuses everyone (its rules have no section), one lets
        // everyone through the host check.
        let found = batch_agrees_with_full_evaluation(
            "<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n<Directory {d}/www/ht>\n  AllowOverride All\n</Directory>\n<Location /ht/x>\n  Require all granted\n</Location>\n<Directory {d}/www/ht2>\n  AllowOverride Limit\n  Require all granted\n</Directory>\n<Location /ht2/x>\n  Require local\n</Location>\n",
            &[("www/ht/.htaccess", "Order allow,deny\nDeny from all\n"), ("www/ht2/.htaccess", "Order deny,allow\nAllow from all\n")],
        );
        assert_eq!(found, ["17: Deny from all (Order allow,deny: Deny has the last word)"]);
        // No rules in effect for the directory, but mod_dir's subrequest for its index meets some.
        let found = batch_agrees_with_full_evaluation(
            "<Directory {d}/www/idx>\n  Require all granted\n</Directory>\n<Files index.html>\n  Order allow,deny\n</Files>\n<Location /sub/>\n  Require all granted\n</Location>\n",
            &[],
        );
        assert_eq!(
            found,
            [
                "10: Order allow,deny: no Allow matches (default deny) (DirectoryIndex subrequest /idx/index.html)",
                "16: Order allow,deny: no Allow matches (default deny) (DirectoryIndex subrequest /sub/index.html)"
            ]
        );
    }
}
