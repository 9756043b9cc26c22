//! Feature: explain an error-log entry — which requests reach the path it names, which
//! section and rule refused them — and summarise a whole error log by refusing rule.
//!
//! A refusal names a file-system path (AH01797, AH01630: `r->filename`) or a URL (AH01631,
//! AH01629, AH01617…: `r->uri`). Paths are mapped back to URLs through every server's
//! `Alias`/`ScriptAlias` and `DocumentRoot` (the main server's and each virtual host's; a path
//! whose basename is a DirectoryIndex name is also reached through its directory URL, by mod_dir's
//! subrequest). Each candidate request (GET — the line does not say the method — from the client
//! the line names) is run through the engine, and it *reproduces* the entry when the engine
//! predicts an entry with the same code naming the same path or URL.
//!
//! Invariants: no IO besides the engine's (the configuration's files, existence of paths);
//! host-name knowledge comes from the caller's resolver; entries that cannot be mapped are
//! reported with the reason, never guessed.

use crate::ide::access::{normalize_url, vhost_address, RequestSpec};
use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::error_log::{target_of, LogLayer, LogLine, Target};
use crate::ide::explain::{explain_with, layer_name, Explained};
use crate::ide::policy::{HostKnowledge, Loc, Request};
use crate::ide::setenvif::EnvInputs;
use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;

/// One request that may have produced the entry.
#[derive(Debug)]
pub struct Candidate {
    pub spec: RequestSpec,
    /// How the URL was found: `DocumentRoot /srv/www`, `Alias /icons/ …`, `DirectoryIndex`…
    pub via: String,
    pub explained: Explained,
    /// The engine predicts this very entry for this request.
    pub reproduces: bool,
}

/// An entry and the requests that reach what it names.
#[derive(Debug)]
pub struct LineExplanation {
    pub line: LogLine,
    /// Assumptions made because the line does not say (method, client…).
    pub assumptions: Vec<String>,
    pub candidates: Vec<Candidate>,
    /// Why nothing could be mapped (when `candidates` is empty).
    pub problem: Option<String>,
}

impl LineExplanation {
    /// The candidate to show: the first that reproduces the entry.
    pub fn best(&self) -> Option<&Candidate> {
        self.candidates.iter().find(|c| c.reproduces)
    }
}

/// A server (the main one or a virtual host) and how to address a request to it.
struct Server<'a> {
    node: Option<&'a Node>,
    index: Option<usize>,
}

fn servers(cfg: &Config) -> Vec<Server<'_>> {
    let mut v = vec![Server { node: None, index: None }];
    for (i, n) in cfg.nodes.iter().enumerate() {
        if n.is_section() && n.is("VirtualHost") {
            v.push(Server { node: Some(n), index: Some(i) });
        }
    }
    v
}

fn directives<'a>(nodes: &'a [Node], name: &str) -> impl Iterator<Item = &'a Node> + 'a {
    let name = name.to_string();
    nodes.iter().filter(move |n| n.kind == NodeKind::Directive && n.is(&name))
}

/// `path` below `root` on a component boundary: the rest (empty or starting with `/`).
fn strip_root<'p>(path: &'p str, root: &str) -> Option<&'p str> {
    let root = root.trim_end_matches('/');
    let rest = path.strip_prefix(root)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

/// The URLs of `server` that mod_alias or the DocumentRoot map to `path`, with how.
fn urls_for_path(cfg: &Config, server: &Server, path: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let vh: &[Node] = server.node.map(|v| &v.children[..]).unwrap_or(&[]);
    for name in ["Alias", "ScriptAlias"] {
        for d in directives(vh, name).chain(directives(&cfg.nodes, name)) {
            if let (Some(from), Some(to)) = (d.arg(0), d.arg(1)) {
                if let Some(rest) = strip_root(path, to) {
                    let url = if rest.is_empty() && !from.ends_with('/') {
                        from.to_string()
                    } else {
                        format!("{}{rest}", from.trim_end_matches('/'))
                    };
                    out.push((if url.is_empty() { "/".into() } else { url }, format!("{name} {from} {to}")));
                }
            }
        }
    }
    let root = directives(vh, "DocumentRoot")
        .last()
        .or_else(|| directives(&cfg.nodes, "DocumentRoot").last())
        .and_then(|d| d.arg(0).map(str::to_string))
        .unwrap_or_else(|| "/var/www/html".into());
    let root =
        if Path::new(&root).is_absolute() { root } else { cfg.server_root.join(root).to_string_lossy().into_owned() };
    if let Some(rest) = strip_root(path, &root) {
        out.push((if rest.is_empty() { "/".into() } else { rest.to_string() }, format!("DocumentRoot {root}")));
    }
    out
}

/// The DirectoryIndex names anywhere in the configuration, plus the default.
fn index_names(cfg: &Config) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = ["index.html".to_string()].into();
    for n in cfg.walk().filter(|n| n.is("DirectoryIndex")) {
        names.extend(n.args().filter(|a| !a.eq_ignore_ascii_case("disabled")).map(str::to_string));
    }
    names
}

/// The server-side address used to reach a server: loopback for loopback clients; otherwise an
/// address that is not the client's (a remote client is not local).
fn local_for(client: IpAddr) -> IpAddr {
    match client {
        IpAddr::V4(v) if v.is_loopback() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v) if v.is_loopback() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::new(192, 0, 2, 255)),
        IpAddr::V6(_) => IpAddr::V6("2001:db8::ff".parse().expect("valid")),
    }
}

/// The specs that address `server` (by name first, then by address).
fn addressings(server: &Server, client: IpAddr) -> Vec<(Option<String>, IpAddr, Option<u16>)> {
    let local = local_for(client);
    match server.node {
        // The main server: a port no virtual host listens on.
        None => vec![(None, local, None), (None, local, Some(1))],
        Some(v) => {
            let mut out = Vec::new();
            for c in v
                .children
                .iter()
                .filter(|c| c.kind == NodeKind::Directive && (c.is("ServerName") || c.is("ServerAlias")))
            {
                if let Some(name) = c.args().first() {
                    let name = name.split("://").last().unwrap_or(name);
                    out.push((Some(name.split(':').next().unwrap_or(name).to_string()), local, None));
                }
            }
            for a in &v.args() {
                if let Ok((ip, port)) = vhost_address(a) {
                    out.push((None, ip.unwrap_or(local), Some(if port == 0 { 80 } else { port })));
                }
            }
            out
        }
    }
}

/// Whether the engine predicts `line`'s entry (same code, same path or URL) for the request.
fn reproduces(line: &LogLine, e: &Explained) -> bool {
    e.outcome.log.iter().any(|entry| {
        let code = (!entry.ah_code.is_empty()).then_some(entry.ah_code);
        let same_code = match (line.ah_code.as_deref(), code) {
            (Some(a), Some(b)) => {
                a == b || (["AH01617", "AH01618"].contains(&a) && ["AH01617", "AH01618"].contains(&b))
            }
            // A 2.2 line: either layer's "client denied".
            (None, Some(b)) => line.message.starts_with("client denied") && ["AH01797", "AH01630"].contains(&b),
            (None, None) => return entry.message.trim_end() == line.message.trim_end(),
            (Some(_), None) => false,
        };
        same_code && target_of(code, &entry.message).0 == line.target
    })
}

/// Explains one parsed entry. `base` carries what the caller knows of every request (groups,
/// …); `resolve` gives a client's host name.
pub fn explain_line(
    cfg: &Config,
    line: &LogLine,
    base: &Request,
    resolve: &dyn Fn(IpAddr) -> HostKnowledge,
) -> LineExplanation {
    let mut assumptions = vec!["method GET (an error-log line does not say the method)".to_string()];
    let client = line.client.unwrap_or_else(|| {
        assumptions.push("client 127.0.0.1 (the line names no client)".into());
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    });
    let mut ex = LineExplanation { line: line.clone(), assumptions, candidates: vec![], problem: None };
    let Some(target) = &line.target else {
        ex.problem = Some("the entry names no path or URL".into());
        return ex;
    };
    let names = index_names(cfg);
    let mut req = base.clone();
    req.method = "GET".into();
    req.client = client;
    req.client_host = resolve(client);
    match line.ah_code.as_deref() {
        Some("AH01631") => req.user = line.user.clone(),
        Some("AH01617" | "AH01618" | "AH01614") => req.bad_credentials = true,
        _ => {}
    }
    for server in servers(cfg) {
        // (url, via)
        let urls: Vec<(String, String)> = match target {
            Target::Url(u) => vec![(u.clone(), "the URL in the entry".into())],
            Target::Path(p) => {
                let p = p.to_string_lossy();
                let htaccess = line.ah_code.is_none() && line.layer == LogLayer::Core;
                let mut v = Vec::new();
                if htaccess {
                    // An .htaccess error: every request below its directory.
                    if let Some(dir) = Path::new(p.as_ref()).parent() {
                        for (u, via) in urls_for_path(cfg, &server, &dir.to_string_lossy()) {
                            v.push((format!("{}/", u.trim_end_matches('/')), via));
                        }
                    }
                } else {
                    v = urls_for_path(cfg, &server, &p);
                    let base_name = Path::new(p.as_ref()).file_name().map(|f| f.to_string_lossy().into_owned());
                    if base_name.is_some_and(|b| names.contains(&b)) && !p.ends_with('/') {
                        for (u, via) in v.clone() {
                            if let Some((dir, _)) = u.rsplit_once('/') {
                                v.push((format!("{dir}/"), format!("{via}, then mod_dir's DirectoryIndex subrequest")));
                            }
                        }
                    }
                }
                v
            }
        };
        for (url, via) in urls {
            let url = normalize_url(&url);
            for (host, local, port) in addressings(&server, client) {
                let mut r = req.clone();
                r.local_addr = local;
                r.local_port = port;
                let spec = RequestSpec { path: url.clone(), host: host.clone(), request: r };
                let inputs = EnvInputs {
                    headers: host.iter().map(|h| ("Host".to_string(), h.clone())).collect(),
                    ..EnvInputs::default()
                };
                let explained = explain_with(cfg, &spec, &inputs);
                if explained.vhost_node != server.index {
                    continue;
                }
                let reproduces = reproduces(line, &explained);
                ex.candidates.push(Candidate { spec, via: via.clone(), explained, reproduces });
                break;
            }
        }
    }
    if ex.candidates.is_empty() {
        ex.problem = Some(match target {
            Target::Path(p) => format!("no DocumentRoot or Alias of any server reaches {}", p.display()),
            Target::Url(u) => format!("no server answers {u}"),
        });
    } else if ex.best().is_none() {
        ex.problem =
            Some(format!("no request reaching it makes the engine predict this entry ({} tried)", ex.candidates.len()));
    }
    ex
}

/// The section a deciding rule is written in, among those that applied.
fn section_of(e: &Explained, loc: &Loc) -> Option<String> {
    let in_section = |s: &crate::ide::access::AppliedSection| {
        *s.path == *loc.file
            && (s.kind == ".htaccess"
                || (u32::from(s.range.start()) <= loc.range.0 && loc.range.1 <= u32::from(s.range.end())))
    };
    let mut all = e.sections.iter().chain(
        e.index
            .iter()
            .flat_map(|ix| ix.tries.iter().filter_map(|t| t.effective.as_ref()).flat_map(|s| s.sections.iter())),
    );
    all.rfind(|s| in_section(s)).map(|s| {
        format!(
            "<{}{}{}> at {}:{}",
            s.kind,
            if s.args.is_empty() { "" } else { " " },
            s.args.join(" "),
            s.path.display(),
            s.line
        )
    })
}

/// One group of the summary: the requests one rule refused.
#[derive(Debug, Clone)]
pub struct Group {
    /// The section holding the rule (None: no section, e.g. a default).
    pub section: Option<String>,
    pub layer: String,
    pub rule: String,
    pub rule_at: Option<String>,
    pub count: usize,
    /// URL → count.
    pub urls: BTreeMap<String, usize>,
    pub clients: BTreeSet<IpAddr>,
    pub codes: BTreeSet<String>,
}

/// What `--log-file` reports.
#[derive(Debug, Default)]
pub struct Summary {
    /// Lines read.
    pub lines: usize,
    /// Refusal entries among them.
    pub refusals: usize,
    /// Most refusals first.
    pub groups: Vec<Group>,
    /// Refusal lines that could not be mapped: (line number, line, why).
    pub unmapped: Vec<(usize, String, String)>,
}

/// Summarises the refusals of an error log (its text).
pub fn summarize(cfg: &Config, text: &str, base: &Request, resolve: &dyn Fn(IpAddr) -> HostKnowledge) -> Summary {
    let mut s = Summary::default();
    // Same entry (code, message, client, user) → same result.
    type Key = (Option<String>, String, Option<IpAddr>, Option<String>);
    // What an entry comes to: its fields as the summary shows them, or why it could not be read.
    type Outcome = Result<(String, String, Option<String>, Option<String>, String), String>;
    let mut cache: BTreeMap<Key, Outcome> = BTreeMap::new();
    let mut groups: BTreeMap<(Option<String>, String, Option<String>), Group> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        s.lines += 1;
        let Some(line) = crate::ide::error_log::parse_line(raw) else { continue };
        if !line.is_refusal() {
            continue;
        }
        s.refusals += 1;
        let key = (line.ah_code.clone(), line.message.clone(), line.client, line.user.clone());
        let result = cache
            .entry(key)
            .or_insert_with(|| {
                let ex = explain_line(cfg, &line, base, resolve);
                match ex.best() {
                    Some(c) => {
                        let d = c.explained.outcome.deciding.as_ref();
                        Ok((
                            d.map(|d| layer_name(d.layer)).unwrap_or("unknown").to_string(),
                            d.map(|d| d.rule.clone()).unwrap_or_default(),
                            d.and_then(|d| d.loc.as_ref()).map(|l| format!("{}:{}", l.file.display(), l.line)),
                            d.and_then(|d| d.loc.as_ref()).and_then(|l| section_of(&c.explained, l)),
                            c.spec.path.clone(),
                        ))
                    }
                    None => Err(ex.problem.unwrap_or_else(|| "not mapped".into())),
                }
            })
            .clone();
        match result {
            Ok((layer, rule, at, section, url)) => {
                let g = groups.entry((section.clone(), rule.clone(), at.clone())).or_insert_with(|| Group {
                    section,
                    layer,
                    rule,
                    rule_at: at,
                    count: 0,
                    urls: BTreeMap::new(),
                    clients: BTreeSet::new(),
                    codes: BTreeSet::new(),
                });
                g.count += 1;
                *g.urls.entry(url).or_default() += 1;
                g.clients.extend(line.client);
                g.codes.insert(line.ah_code.clone().unwrap_or_else(|| "(no code)".into()));
            }
            Err(why) => s.unmapped.push((i + 1, raw.to_string(), why)),
        }
    }
    s.groups = groups.into_values().collect();
    s.groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.rule_at.cmp(&b.rule_at)));
    s
}

fn target_text(t: &Option<Target>) -> String {
    match t {
        Some(Target::Path(p)) => format!("file-system path {}", p.display()),
        Some(Target::Url(u)) => format!("URL {u}"),
        None => "no path or URL".into(),
    }
}

fn candidate_line(c: &Candidate) -> String {
    let st = c.explained.outcome.status.map(|s| s.to_string()).unwrap_or_else(|| "unknown".into());
    format!(
        "{} {} {} on {} (via {}): {st}, {}",
        if c.reproduces { "✔" } else { "✘" },
        c.spec.request.method,
        c.spec.path,
        c.explained.virtual_host.as_deref().unwrap_or("the main server"),
        c.via,
        if c.reproduces { "reproduces this entry" } else { "does not log this entry" }
    )
}

/// `explain --log-line` for people.
pub fn line_to_text(ex: &LineExplanation) -> String {
    let l = &ex.line;
    let mut s = String::new();
    let what = match (&l.module, &l.level) {
        (Some(m), Some(v)) => format!("[{m}:{v}]"),
        (None, Some(v)) => format!("[{v}] (httpd 2.2 format)"),
        _ => String::new(),
    };
    s.push_str(&format!(
        "Error-log entry: {} {what}{}\n",
        l.ah_code.as_deref().unwrap_or("(no code)"),
        l.client.map(|c| format!(" from client {c}")).unwrap_or_default()
    ));
    s.push_str(&format!("  refusing layer: {}\n", l.layer.describe()));
    s.push_str(&format!("  names the {}\n", target_text(&l.target)));
    for a in &ex.assumptions {
        s.push_str(&format!("  assuming {a}\n"));
    }
    if !ex.candidates.is_empty() {
        s.push_str("\nRequests that reach it:\n");
        for c in &ex.candidates {
            s.push_str(&format!("  {}\n", candidate_line(c)));
        }
    }
    if let Some(p) = &ex.problem {
        s.push_str(&format!("\nNot explained: {p}\n"));
    }
    if let Some(c) = ex.best() {
        if let Some(d) = &c.explained.outcome.deciding {
            let at = d.loc.as_ref().map(|l| format!(" at {}:{}", l.file.display(), l.line)).unwrap_or_default();
            let sec = d
                .loc
                .as_ref()
                .and_then(|l| section_of(&c.explained, l))
                .map(|s| format!(" in {s}"))
                .unwrap_or_default();
            s.push_str(&format!("\nRefused by {}: {}{at}{sec}\n", layer_name(d.layer), d.rule));
        }
        s.push_str(&format!("\n── {} {} ──\n", c.spec.request.method, c.spec.path));
        s.push_str(&crate::ide::explain::to_text(&c.spec, &c.explained));
    }
    s
}

/// `explain --log-line --format json`.
pub fn line_to_json(ex: &LineExplanation) -> serde_json::Value {
    use serde_json::json;
    let l = &ex.line;
    json!({
        "entry": {
            "code": l.ah_code, "module": l.module, "level": l.level, "time": l.time,
            "client": l.client.map(|c| c.to_string()), "client_port": l.client_port,
            "message": l.message, "user": l.user, "referer": l.referer,
            "layer": l.layer.describe(),
            "filesystem_path": match &l.target { Some(Target::Path(p)) => Some(p.display().to_string()), _ => None },
            "url": match &l.target { Some(Target::Url(u)) => Some(u.clone()), _ => None },
        },
        "assumptions": ex.assumptions,
        "problem": ex.problem,
        "candidates": ex.candidates.iter().map(|c| {
            let d = c.explained.outcome.deciding.as_ref();
            json!({
                "url": c.spec.path,
                "method": c.spec.request.method,
                "virtual_host": c.explained.virtual_host,
                "via": c.via,
                "status": c.explained.outcome.status,
                "reproduces": c.reproduces,
                "refusing_section": d.and_then(|d| d.loc.as_ref()).and_then(|l| section_of(&c.explained, l)),
                "explain": crate::ide::explain::to_json(&c.spec, &c.explained),
            })
        }).collect::<Vec<_>>(),
    })
}

/// `explain --log-file` for people.
pub fn summary_to_text(s: &Summary) -> String {
    let mut out = format!("{} lines, {} refusals\n", s.lines, s.refusals);
    if !s.groups.is_empty() {
        out.push_str("\nRefused requests by the rule that refused them:\n");
    }
    for g in &s.groups {
        out.push_str(&format!(
            "{:>6} × {}: {}{}\n",
            g.count,
            g.section.as_deref().unwrap_or("(no section)"),
            g.rule,
            g.rule_at.as_ref().map(|a| format!(" ({a})")).unwrap_or_default()
        ));
        out.push_str(&format!(
            "         layer {}, codes {}\n",
            g.layer,
            g.codes.iter().cloned().collect::<Vec<_>>().join(" ")
        ));
        let mut urls: Vec<(&String, &usize)> = g.urls.iter().collect();
        urls.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (u, n) in urls.iter().take(5) {
            out.push_str(&format!("         {n:>5} {u}\n"));
        }
        if urls.len() > 5 {
            out.push_str(&format!("         … and {} more URLs\n", urls.len() - 5));
        }
        out.push_str(&format!(
            "         clients: {}\n",
            g.clients.iter().take(8).map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
                + if g.clients.len() > 8 { " …" } else { "" }
        ));
    }
    if !s.unmapped.is_empty() {
        out.push_str(&format!("\n{} refusal(s) could not be mapped:\n", s.unmapped.len()));
        for (n, line, why) in &s.unmapped {
            out.push_str(&format!("  line {n}: {why}\n    {line}\n"));
        }
    }
    out
}

/// `explain --log-file --format json`.
pub fn summary_to_json(s: &Summary) -> serde_json::Value {
    use serde_json::json;
    json!({
        "lines": s.lines,
        "refusals": s.refusals,
        "groups": s.groups.iter().map(|g| json!({
            "count": g.count, "section": g.section, "rule": g.rule, "rule_at": g.rule_at, "layer": g.layer,
            "codes": g.codes, "urls": g.urls, "clients": g.clients.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "unmapped": s.unmapped.iter().map(|(n, l, why)| json!({"line_number": n, "line": l, "reason": why})).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;
    use crate::ide::error_log::parse_line;
    use expect_test::expect;

    fn cfg(text: &str) -> Config {
        let fx = Fixture::parse(text);
        load(Path::new(&fx.0[0].0), &fx)
    }

    fn base() -> Request {
        let mut r = Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
        r.groups = Some(Default::default());
        r
    }

    fn no_dns(_: IpAddr) -> HostKnowledge {
        HostKnowledge::NoName
    }

    /// A configuration over a real document tree (the walk follows existing directories):
    /// `ROOT` is replaced by the temporary directory.
    const CONF: &str = "//- /etc/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule alias_module m\nDocumentRoot ROOT/www\nAlias /icons/ ROOT/icons/\n<Directory ROOT/www/private>\n  Require ip 127.0.0.1\n</Directory>\n<Directory ROOT/icons>\n  Order allow,deny\n</Directory>\n<VirtualHost *:80>\n  ServerName v.test\n  DocumentRoot ROOT/v\n  <Location /admin>\n    Require all denied\n  </Location>\n</VirtualHost>\n";

    fn setup() -> (tempfile::TempDir, Config, String) {
        let dir = tempfile::tempdir().unwrap();
        for d in ["www/private", "icons", "v"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        std::fs::write(dir.path().join("www/private/index.html"), "x").unwrap();
        let root = dir.path().to_string_lossy().into_owned();
        let c = cfg(&CONF.replace("ROOT", &root));
        (dir, c, root)
    }

    fn render(ex: &LineExplanation) -> String {
        let mut s = String::new();
        for c in &ex.candidates {
            let d = c.explained.outcome.deciding.as_ref();
            s.push_str(&format!(
                "{} {} on {} via {}: {:?} reproduces={} rule={:?} at line {:?}\n",
                c.spec.request.method,
                c.spec.path,
                c.explained.virtual_host.as_deref().unwrap_or("main"),
                c.via,
                c.explained.outcome.status,
                c.reproduces,
                d.map(|d| d.rule.clone()),
                d.and_then(|d| d.loc.as_ref()).map(|l| l.line)
            ));
        }
        if let Some(p) = &ex.problem {
            s.push_str(&format!("problem: {p}\n"));
        }
        s
    }

    #[test]
    fn paths_map_back_through_document_root_and_alias() {
        let (_d, c, root) = setup();
        let line = |s: &str| parse_line(&s.replace("ROOT", &root)).unwrap();
        let l = line("[x] [authz_core:error] [pid 1:tid 1] [client 127.0.0.2:4] AH01630: client denied by server configuration: ROOT/www/private/index.html");
        expect![[r#"
            GET /private/index.html on main via DocumentRoot ROOT/www: Some(403) reproduces=true rule=Some("Require ip 127.0.0.1") at line Some(8)
            GET /private/ on main via DocumentRoot ROOT/www, then mod_dir's DirectoryIndex subrequest: Some(403) reproduces=false rule=Some("Require ip 127.0.0.1") at line Some(8)
        "#]]
        .assert_eq(&render(&explain_line(&c, &l, &base(), &no_dns)).replace(&root, "ROOT"));
        let l = line("[x] [access_compat:error] [pid 1:tid 1] [client ::1:4] AH01797: client denied by server configuration: ROOT/icons/a.png");
        expect![[r#"
            GET /icons/a.png on main via Alias /icons/ ROOT/icons/: Some(403) reproduces=true rule=Some("Order allow,deny: no Allow matches (default deny)") at line Some(11)
            GET /icons/a.png on *:80 (v.test) via Alias /icons/ ROOT/icons/: Some(403) reproduces=true rule=Some("Order allow,deny: no Allow matches (default deny)") at line Some(11)
        "#]]
        .assert_eq(&render(&explain_line(&c, &l, &base(), &no_dns)).replace(&root, "ROOT"));
    }

    #[test]
    fn urls_are_tried_on_every_server_and_only_matching_ones_reproduce() {
        let (_d, c, root) = setup();
        let line = |s: &str| parse_line(&s.replace("ROOT", &root)).unwrap();
        let l = line("[x] [authz_core:error] [pid 1:tid 1] [client 127.0.0.1:4] AH01630: client denied by server configuration: ROOT/v/admin");
        expect![[r#"
            GET /admin on *:80 (v.test) via DocumentRoot ROOT/v: Some(403) reproduces=true rule=Some("Require all denied") at line Some(17)
        "#]]
        .assert_eq(&render(&explain_line(&c, &l, &base(), &no_dns)).replace(&root, "ROOT"));
        let l = line("[x] [authz_core:error] [pid 1:tid 1] [client 127.0.0.1:4] AH01630: client denied by server configuration: /elsewhere/x");
        expect![[r#"
            problem: no DocumentRoot or Alias of any server reaches /elsewhere/x
        "#]]
        .assert_eq(&render(&explain_line(&c, &l, &base(), &no_dns)).replace(&root, "ROOT"));
    }

    #[test]
    fn summary_groups_by_refusing_rule() {
        let (_d, c, root) = setup();
        let log = "[x] [authz_core:error] [pid 1:tid 1] [client 127.0.0.2:4] AH01630: client denied by server configuration: ROOT/www/private/index.html\n\
[x] [authz_core:error] [pid 1:tid 1] [client 127.0.0.3:4] AH01630: client denied by server configuration: ROOT/www/private/a\n\
[x] [mpm_prefork:notice] [pid 1] AH00163: Apache configured\n\
[x] [access_compat:error] [pid 1:tid 1] [client 127.0.0.2:4] AH01797: client denied by server configuration: ROOT/icons/a.png\n\
[x] [authz_core:error] [pid 1:tid 1] [client 127.0.0.2:4] AH01630: client denied by server configuration: /elsewhere\n";
        let s = summarize(&c, &log.replace("ROOT", &root), &base(), &no_dns);
        let mut out = format!("{} lines, {} refusals\n", s.lines, s.refusals);
        for g in &s.groups {
            out.push_str(&format!("{} × {:?} {} {:?} {:?}\n", g.count, g.section, g.rule, g.urls, g.codes));
        }
        for (n, _, why) in &s.unmapped {
            out.push_str(&format!("line {n}: {why}\n"));
        }
        expect![[r#"
            5 lines, 4 refusals
            2 × Some("<Directory ROOT/www/private> at /etc/httpd.conf:7") Require ip 127.0.0.1 {"/private/a": 1, "/private/index.html": 1} {"AH01630"}
            1 × Some("<Directory ROOT/icons> at /etc/httpd.conf:10") Order allow,deny: no Allow matches (default deny) {"/icons/a.png": 1} {"AH01797"}
            line 5: no DocumentRoot or Alias of any server reaches /elsewhere
        "#]]
        .assert_eq(&out.replace(&root, "ROOT"));
    }
}
