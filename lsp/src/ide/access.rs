//! Feature: the effective access policy of one request, as httpd computes it.
//!
//! Given a loaded [`Config`] and a request (URL, virtual host, client…), this
//! finds the sections that apply in httpd's merge order
//! (`server/request.c: ap_directory_walk`, `ap_file_walk`, `ap_location_walk`,
//! `ap_if_walk`; fact sheet §5.1), folds each phase, merges the three access
//! layers (mod_access_compat, mod_authz_core, mod_authn_core) and evaluates the
//! request with [`crate::ide::policy`]. It reads the file system only to know
//! which path components exist and to read `.htaccess` files.

use crate::ide::config::{self, Config, FileData, FileId, Node, NodeKind};
use crate::ide::policy::{
    self, evaluate, fold_phase, merge_authn, AuthnConfig, AuthzConfig, CompatConfig, Item, Outcome, PolicyCtx,
};
use apache_syntax::TextRange;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a request looks like to the server.
#[derive(Debug, Clone)]
pub struct RequestSpec {
    /// The URL path, e.g. `/server-status`.
    pub path: String,
    /// The Host header, used to pick a virtual host.
    pub host: Option<String>,
    pub request: policy::Request,
}

/// One section that applies to the request.
#[derive(Debug, Clone)]
pub struct AppliedSection {
    /// `Directory`, `DirectoryMatch`, `Files`, `Location`, `.htaccess`, `VirtualHost`…
    pub kind: String,
    pub args: Vec<String>,
    /// The file it is written in.
    pub path: Arc<Path>,
    /// Its id in the configuration (None for .htaccess files, read per request).
    pub file: Option<FileId>,
    pub range: TextRange,
    pub line: u32,
    /// Its access-control lines (Order, Allow, Deny, Satisfy, Require, Auth*…): (line, text).
    pub access_lines: Vec<(u32, String)>,
    /// What the section sets in each layer (None when it leaves the layer alone).
    pub compat: Option<CompatConfig>,
    pub authz: Option<AuthzConfig>,
    pub authn: Option<AuthnConfig>,
}

/// The result of walking and evaluating one request.
#[derive(Debug)]
pub struct Effective {
    /// The virtual host's label (`*:80 (example.com)`), or None for the main server.
    pub virtual_host: Option<String>,
    pub filesystem_path: PathBuf,
    pub sections: Vec<AppliedSection>,
    pub compat: Option<CompatConfig>,
    pub authz: Option<AuthzConfig>,
    pub authn: AuthnConfig,
    /// Startup errors found in the sections that apply (httpd would refuse to start).
    pub errors: Vec<policy::ConfigError>,
    /// Why the outcome cannot be known, when something on the path is out of our reach.
    pub unknown: Vec<String>,
    pub outcome: Outcome,
}

fn ploc(cfg: &Config, file: FileId, range: TextRange, line: u32) -> policy::Loc {
    policy::Loc { file: cfg.file(file).path.clone(), line, range: (range.start().into(), range.end().into()) }
}

/// A section body as the policy builders take it: directives and the access
/// blocks (`<Limit>`, `<RequireAll>`…); other nested sections are walked separately.
pub fn body_items(cfg: &Config, node: &Node) -> Vec<Item> {
    let mut out = Vec::new();
    for c in &node.children {
        let loc = ploc(cfg, c.loc.file, c.loc.range, c.loc.line);
        match c.kind {
            NodeKind::Directive => out.push(Item::Directive {
                name: c.name.clone(),
                args: c.args.clone(),
                raw_args: c.raw_args.clone(),
                loc,
            }),
            NodeKind::Section => {
                let l = c.name.to_ascii_lowercase();
                if matches!(l.as_str(), "limit" | "limitexcept" | "requireall" | "requireany" | "requirenone") {
                    out.push(Item::Block {
                        name: c.name.clone(),
                        args: c.args.clone(),
                        loc,
                        items: body_items(cfg, c),
                    });
                }
            }
        }
    }
    out
}

/// Which modules, methods and providers the server has.
pub fn policy_ctx(cfg: &Config) -> PolicyCtx {
    let mut ctx = PolicyCtx::default();
    ctx.modules = policy::ModuleSet::only(cfg.modules.iter().map(|s| s.to_string()));
    for n in cfg.walk() {
        if n.is_section() && (n.is("Limit") || n.is("LimitExcept")) {
            for m in &n.args {
                ctx.registered_methods.insert(m.clone());
            }
        }
        if n.is("RegisterHttpMethod") {
            ctx.registered_methods.extend(n.args.iter().cloned());
        }
        if n.is_section() && n.is("AuthzProviderAlias") {
            if let Some(a) = n.args.get(1) {
                ctx.extra_authz_providers.insert(a.clone());
            }
        }
    }
    ctx
}

struct Server<'a> {
    /// Top-level nodes of the server (main server's; a vhost's come after).
    main: &'a [Node],
    vhost: Option<&'a Node>,
}

impl<'a> Server<'a> {
    /// Server-level directives, the vhost's taking precedence.
    fn directive(&self, name: &str) -> Option<&'a Node> {
        let v = self.vhost.and_then(|v| v.children.iter().rev().find(|n| n.kind == NodeKind::Directive && n.is(name)));
        v.or_else(|| self.main.iter().rev().find(|n| n.kind == NodeKind::Directive && n.is(name)))
    }
    /// Sections of a kind at server level: the main server's, then the vhost's.
    fn sections(&self, pred: impl Fn(&Node) -> bool) -> Vec<&'a Node> {
        let mut v: Vec<&Node> = self.main.iter().filter(|n| n.is_section() && pred(n)).collect();
        if let Some(vh) = self.vhost {
            v.extend(vh.children.iter().filter(|n| n.is_section() && pred(n)));
        }
        v
    }
    /// Directives of a kind at server level in order: the vhost's first (mod_alias
    /// merges the vhost's aliases before the main server's), then the main server's.
    fn all_directives(&self, name: &str) -> Vec<&'a Node> {
        let mut v: Vec<&Node> = Vec::new();
        if let Some(vh) = self.vhost {
            v.extend(vh.children.iter().filter(|n| n.kind == NodeKind::Directive && n.is(name)));
        }
        v.extend(self.main.iter().filter(|n| n.kind == NodeKind::Directive && n.is(name)));
        v
    }
}

fn vhost_label(n: &Node) -> String {
    let names: Vec<&str> = n
        .children
        .iter()
        .filter(|c| c.kind == NodeKind::Directive && (c.is("ServerName") || c.is("ServerAlias")))
        .flat_map(|c| c.args.iter().map(String::as_str))
        .collect();
    match names.first() {
        Some(first) => format!("{} ({first})", n.args.join(" ")),
        None => n.args.join(" "),
    }
}

/// One address of a `<VirtualHost>`: IP (None = `*` / `_default_`) and port (0 = any).
/// `Err` holds a host name (resolved by httpd at startup; not by us).
fn vhost_address(arg: &str) -> Result<(Option<IpAddr>, u16), String> {
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

/// The virtual hosts that can serve a connection to `local`:`port`
/// (`server/vhost.c: ap_update_vhost_given_ip`, `find_ipaddr`, `find_default_server`):
/// those listening on exactly that address and port, else on that address with any port,
/// else the `*`/`_default_` ones for that port, else for any port. Empty: the main server.
fn vhosts_for_address<'a>(vhosts: &[&'a Node], local: IpAddr, port: u16, unknown: &mut Vec<String>) -> Vec<&'a Node> {
    let addrs: Vec<Vec<(Option<IpAddr>, u16)>> = vhosts
        .iter()
        .map(|v| {
            v.args
                .iter()
                .filter_map(|a| match vhost_address(a) {
                    Ok(x) => Some(x),
                    Err(name) => {
                        unknown.push(format!(
                            "<VirtualHost {}> at line {} names the host {name}, which httpd resolves at startup",
                            v.args.join(" "),
                            v.loc.line
                        ));
                        None
                    }
                })
                .collect()
        })
        .collect();
    let same_ip = |ip: &Option<IpAddr>| ip.is_some_and(|ip| policy::addr::sockaddr_equal(ip, local));
    let in_tier = |tier: usize, (ip, p): &(Option<IpAddr>, u16)| match tier {
        0 => same_ip(ip) && *p == port,
        1 => same_ip(ip) && *p == 0,
        2 => ip.is_none() && *p == port,
        _ => ip.is_none() && *p == 0,
    };
    for tier in 0..4 {
        let set: Vec<&Node> =
            vhosts.iter().zip(&addrs).filter(|(_, a)| a.iter().any(|x| in_tier(tier, x))).map(|(v, _)| *v).collect();
        if !set.is_empty() {
            return set;
        }
    }
    Vec::new()
}

/// Picks the virtual host. With a known server port, first the set of virtual hosts for the
/// connection's address ([`vhosts_for_address`]; none → the main server). Then by name when
/// `host` matches a ServerName/ServerAlias, else the first of the set (the default one for its
/// address). Without a known port every virtual host is a candidate.
fn pick_vhost<'a>(
    cfg: &'a Config,
    host: Option<&str>,
    local: Option<(IpAddr, u16)>,
    unknown: &mut Vec<String>,
) -> Option<&'a Node> {
    let mut vhosts: Vec<&Node> = cfg.nodes.iter().filter(|n| n.is_section() && n.is("VirtualHost")).collect();
    if let Some((addr, port)) = local {
        vhosts = vhosts_for_address(&vhosts, addr, port, unknown);
    }
    if let Some(h) = host {
        let h = h.split(':').next().unwrap_or(h);
        for v in &vhosts {
            for c in &v.children {
                if c.kind == NodeKind::Directive && (c.is("ServerName") || c.is("ServerAlias")) {
                    for name in &c.args {
                        let name = name.split("://").last().unwrap_or(name).split(':').next().unwrap_or(name);
                        if wildcard_match(&name.to_ascii_lowercase(), &h.to_ascii_lowercase(), false) {
                            return Some(v);
                        }
                    }
                }
            }
        }
    }
    vhosts.first().copied()
}

/// fnmatch-style matching (`*`, `?`, `[…]`); with `pathname`, wildcards do not cross `/`.
pub fn wildcard_match(pattern: &str, text: &str, pathname: bool) -> bool {
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: pathname,
        require_literal_leading_dot: false,
    };
    glob::Pattern::new(pattern).map(|p| p.matches_with(text, opts)).unwrap_or(pattern == text)
}

fn has_wildcard(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

fn regex_matches(pattern: &str, text: &str, case_insensitive: bool) -> Option<bool> {
    cached_regex(pattern, case_insensitive).map(|r| r.is_match(text))
}

/// A compiled regex, cached per thread: every request tests every regex section and
/// AliasMatch, and compiling dominates (explain over many requests, hovers, migration checks).
fn cached_regex(pattern: &str, case_insensitive: bool) -> Option<regex::Regex> {
    type Cache = std::collections::HashMap<(String, bool), Option<regex::Regex>>;
    thread_local! {
        static CACHE: std::cell::RefCell<Cache> = std::cell::RefCell::new(Cache::new());
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 4096 {
            c.clear();
        }
        c.entry((pattern.to_string(), case_insensitive))
            .or_insert_with(|| regex::RegexBuilder::new(pattern).case_insensitive(case_insensitive).build().ok())
            .clone()
    })
}

/// Components of a normalised absolute path (`/` has none).
fn components(p: &str) -> Vec<&str> {
    p.split('/').filter(|c| !c.is_empty()).collect()
}

/// URL path → file system path, through Alias/AliasMatch/ScriptAlias or DocumentRoot.
fn translate(server: &Server, cfg: &Config, url: &str) -> PathBuf {
    for d in server.all_directives("Alias").into_iter().chain(server.all_directives("ScriptAlias")) {
        if let [from, to, ..] = d.args.as_slice() {
            if let Some(rest) = alias_match(url, from) {
                return PathBuf::from(format!("{}{}", to, rest));
            }
        }
    }
    for d in server.all_directives("AliasMatch").into_iter().chain(server.all_directives("ScriptAliasMatch")) {
        if let [re, to, ..] = d.args.as_slice() {
            if let Some(r) = cached_regex(re, false) {
                if let Some(caps) = r.captures(url) {
                    let mut out = String::new();
                    caps.expand(&to.replace('$', "$$").replace("$$0", "${0}").replace("$$", "$"), &mut out);
                    return PathBuf::from(out);
                }
            }
        }
    }
    let root = server
        .directive("DocumentRoot")
        .and_then(|d| d.args.first().cloned())
        .unwrap_or_else(|| "/var/www/html".to_string());
    let root = if Path::new(&root).is_absolute() { PathBuf::from(root) } else { cfg.server_root.join(root) };
    let root = root.to_string_lossy().trim_end_matches('/').to_string();
    PathBuf::from(format!("{root}{url}"))
}

/// mod_alias's `alias_matches`: segment-wise prefix match where runs of `/` match
/// each other; returns the rest of the URL.
fn alias_match<'u>(url: &'u str, alias: &str) -> Option<&'u str> {
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

/// How the reason for an unknown outcome ends when an .htaccess file could not be read.
const UNREADABLE_HTACCESS: &str = "; httpd refuses the request (403, AH00529) if it cannot read it either";

/// One section of a phase: a node of the configuration, or an .htaccess file
/// read for this request together with the AllowOverride in force for it.
enum Contribution<'a> {
    Node(&'a Node),
    Htaccess(Arc<FileData>, Vec<String>),
}

impl<'a> Contribution<'a> {
    fn node(&self) -> Option<&'a Node> {
        match self {
            Contribution::Node(n) => Some(n),
            Contribution::Htaccess(..) => None,
        }
    }
}

/// The sections that apply to a request, in merge order, grouped by phase.
fn walk<'a>(
    cfg: &'a Config,
    server: &Server<'a>,
    url: &str,
    fs_path: &Path,
    unknown: &mut Vec<String>,
) -> Vec<Vec<Contribution<'a>>> {
    let path = fs_path.to_string_lossy().to_string();
    let comps = components(&path);
    // How far the walk goes: the deepest existing directory, plus a final
    // component that is a file or does not exist.
    let mut depth = 0;
    let mut cur = PathBuf::from("/");
    for (i, c) in comps.iter().enumerate() {
        cur.push(c);
        depth = i + 1;
        if !cur.is_dir() {
            break;
        }
    }
    let mut dir_phase: Vec<Contribution> = Vec::new();
    let dirs = server.sections(|n| n.is("Directory") && n.args.first().map(|a| a != "~").unwrap_or(false));
    // Sorted by component count, stable (config order; the vhost's after the main server's).
    let mut dirs: Vec<(usize, &Node)> =
        dirs.into_iter().map(|n| (components(n.args.first().map(String::as_str).unwrap_or("")).len(), n)).collect();
    dirs.sort_by_key(|(k, _)| *k);
    let access_file_name =
        server.directive("AccessFileName").map(|d| d.args.clone()).unwrap_or_else(|| vec![".htaccess".to_string()]);
    let mut allow_override: Vec<String> = vec!["None".into()];
    for k in 0..=depth {
        let prefix: Vec<&str> = comps.iter().take(k).copied().collect();
        for (n, d) in &dirs {
            if *n != k {
                continue;
            }
            let dpath = d.args[0].clone();
            let dcomps = components(&dpath);
            let matches = if has_wildcard(&dpath) {
                wildcard_match(&format!("/{}", dcomps.join("/")), &format!("/{}", prefix.join("/")), true)
            } else {
                dcomps == prefix
            };
            if matches {
                if let Some(ao) =
                    d.children.iter().rev().find(|c| c.kind == NodeKind::Directive && c.is("AllowOverride"))
                {
                    allow_override = ao.args.clone();
                }
                dir_phase.push(Contribution::Node(d));
            }
        }
        // The .htaccess of the directory at this depth (only real directories).
        let dir_path = PathBuf::from(format!("/{}", prefix.join("/")));
        if k <= comps.len() && dir_path.is_dir() && !allow_override.iter().all(|a| a.eq_ignore_ascii_case("None")) {
            for name in &access_file_name {
                let p = dir_path.join(name);
                // Only a regular file: a FIFO here would block the walk for ever.
                match config::read_regular(&p) {
                    Ok(bytes) => {
                        let (text, bad) = config::decode(bytes);
                        let fd = Arc::new(FileData::new(Arc::from(p.as_path()), text, bad));
                        dir_phase.push(Contribution::Htaccess(fd, allow_override.clone()));
                        break;
                    }
                    Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {}
                    // httpd stops here with 403 when it cannot read the file (AH00529); whether
                    // it can, running as its own user, is not known from here.
                    Err(e) => {
                        unknown.push(format!("{} cannot be read here ({e}){UNREADABLE_HTACCESS}", p.display()));
                        break;
                    }
                }
            }
        }
    }
    // Regex Directory sections, in config order, against the full filename.
    for d in
        server.sections(|n| n.is("DirectoryMatch") || (n.is("Directory") && n.args.first().is_some_and(|a| a == "~")))
    {
        let re = if d.is("DirectoryMatch") { d.args.first() } else { d.args.get(1) };
        match re.map(|r| regex_matches(r, &path, false)) {
            Some(Some(true)) => dir_phase.push(Contribution::Node(d)),
            Some(None) => {
                unknown.push(format!("cannot evaluate the regular expression of <{}> at line {}", d.name, d.loc.line))
            }
            _ => {}
        }
    }
    // Files: server level, then nested in the matched Directory sections, in merge order.
    let mut files_candidates: Vec<&Node> = server.sections(|n| n.is("Files") || n.is("FilesMatch"));
    for c in &dir_phase {
        if let Some(n) = c.node() {
            files_candidates
                .extend(n.children.iter().filter(|x| x.is_section() && (x.is("Files") || x.is("FilesMatch"))));
        }
    }
    let base = comps.last().copied().unwrap_or("");
    let base = if comps.len() > depth { "" } else { base };
    let mut files_phase = Vec::new();
    for f in files_candidates {
        let regex = f.is("FilesMatch") || f.args.first().is_some_and(|a| a == "~");
        let pat = if f.args.first().is_some_and(|a| a == "~") { f.args.get(1) } else { f.args.first() };
        let Some(pat) = pat else { continue };
        let m = if regex {
            regex_matches(pat, base, false).unwrap_or(false)
        } else if has_wildcard(pat) {
            wildcard_match(pat, base, true)
        } else {
            pat == base
        };
        if m {
            files_phase.push(Contribution::Node(f));
        }
    }
    // Location: main server's then the vhost's, in config order, against the URL.
    let mut loc_phase = Vec::new();
    for l in server.sections(|n| n.is("Location") || n.is("LocationMatch")) {
        let regex = l.is("LocationMatch") || l.args.first().is_some_and(|a| a == "~");
        let pat = if l.args.first().is_some_and(|a| a == "~") { l.args.get(1) } else { l.args.first() };
        let Some(pat) = pat else { continue };
        let m = if regex {
            regex_matches(pat, url, false).unwrap_or(false)
        } else if has_wildcard(pat) {
            wildcard_match(pat, url, true)
        } else {
            location_prefix(pat, url)
        };
        if m {
            loc_phase.push(Contribution::Node(l));
        }
    }
    // <If> sections anywhere on the way: we do not evaluate ap_expr.
    let mut if_sections: Vec<&Node> = server.sections(|n| n.is("If") || n.is("ElseIf") || n.is("Else"));
    for c in dir_phase.iter().chain(&files_phase).chain(&loc_phase) {
        if let Some(n) = c.node() {
            if_sections
                .extend(n.children.iter().filter(|x| x.is_section() && (x.is("If") || x.is("ElseIf") || x.is("Else"))));
        }
    }
    for s in if_sections {
        if s.walk().any(|n| is_access_directive(&n.name)) {
            unknown.push(format!(
                "<{}> at {}:{} holds access rules, and its expression is not evaluated",
                s.name,
                cfg.file(s.loc.file).path.display(),
                s.loc.line
            ));
        }
    }
    vec![dir_phase, files_phase, loc_phase]
}

/// The first directive of an .htaccess file that its AllowOverride forbids
/// (httpd answers 500 and logs "<file>: <name> not allowed here"): its offset and that message.
fn htaccess_override_violation(frag: &Config, allow: &[String]) -> Option<(u32, String)> {
    let path = frag.nodes.first().map(|n| frag.file(n.loc.file).path.display().to_string()).unwrap_or_default();
    first_forbidden(&frag.nodes, None, allow).map(|(line, msg)| (line, format!("{path}: {msg}")))
}

/// `server/config.c: invoke_cmd`'s override check over `nodes` in file order (a section is
/// checked before its body). The message names the command as its module registers it
/// (mod_access_compat registers "order", "allow" and "deny" in lowercase; sections keep their
/// "<"), and the enclosing section as written when there is one.
fn first_forbidden(nodes: &[Node], parent: Option<&str>, allow: &[String]) -> Option<(u32, String)> {
    let allowed = |class: &str| {
        allow.iter().any(|a| {
            let a = a.to_ascii_lowercase();
            a == "all" || a == class || (class == "options" && a.starts_with("options"))
        })
    };
    for n in nodes {
        if let Some(d) = crate::ide::catalogue::directive(&n.name) {
            let classes: Vec<&str> = d
                .req_override
                .split('|')
                .filter_map(|c| match c.trim() {
                    "OR_LIMIT" => Some("limit"),
                    "OR_AUTHCFG" => Some("authconfig"),
                    "OR_FILEINFO" => Some("fileinfo"),
                    "OR_INDEXES" => Some("indexes"),
                    "OR_OPTIONS" => Some("options"),
                    "OR_ALL" => Some("*"),
                    _ => None,
                })
                .collect();
            if !(classes.contains(&"*") || classes.iter().any(|c| allowed(c))) {
                let cmd_name = match d.name {
                    "Order" | "Allow" | "Deny" => d.name.to_ascii_lowercase(),
                    _ if d.is_section => format!("<{}", d.name),
                    _ => d.name.to_string(),
                };
                let msg = match parent {
                    Some(p) => format!("{cmd_name} not allowed in <{p}> context"),
                    None => format!("{cmd_name} not allowed here"),
                };
                return Some((u32::from(n.loc.range.start()), msg));
            }
        }
        if n.is_section() {
            if let Some(v) = first_forbidden(&n.children, Some(&n.name), allow) {
                return Some(v);
            }
        }
    }
    None
}

fn location_prefix(pat: &str, url: &str) -> bool {
    // Plain paths match on a segment boundary; `/sub/` does not match `/sub`.
    if pat == "/" {
        return true;
    }
    url.starts_with(pat) && (pat.ends_with('/') || url.len() == pat.len() || url.as_bytes()[pat.len()] == b'/')
}

/// The access-control lines of a body, nested blocks included, in order.
fn access_lines(items: &[Item]) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut stack: Vec<(&Item, usize)> = items.iter().rev().map(|i| (i, 0)).collect();
    while let Some((it, depth)) = stack.pop() {
        let pad = "  ".repeat(depth);
        match it {
            Item::Directive { name, raw_args, loc, .. } => {
                let l = name.to_ascii_lowercase();
                if is_access_directive(name) || l.starts_with("auth") {
                    out.push((loc.line, format!("{pad}{name} {raw_args}").trim_end().to_string()));
                }
            }
            Item::Block { name, args, loc, items } => {
                out.push((
                    loc.line,
                    format!("{pad}<{name}{}{}>", if args.is_empty() { "" } else { " " }, args.join(" ")),
                ));
                stack.extend(items.iter().rev().map(|i| (i, depth + 1)));
            }
        }
    }
    out
}

pub fn is_access_directive(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "order"
            | "allow"
            | "deny"
            | "satisfy"
            | "require"
            | "requireall"
            | "requireany"
            | "requirenone"
            | "authmerging"
            | "authtype"
            | "authzsendforbiddenonfailure"
    )
}

/// Walks and evaluates one request.
pub fn effective(cfg: &Config, spec: &RequestSpec) -> Effective {
    let mut unknown = Vec::new();
    let local = spec.request.local_port.map(|p| (spec.request.local_addr, p));
    let vhost = pick_vhost(cfg, spec.host.as_deref(), local, &mut unknown);
    let server = Server { main: &cfg.nodes, vhost };
    let url = normalize_url(&spec.path);
    let fs_path = translate(&server, cfg, &url);
    let ctx = policy_ctx(cfg);
    let phases = walk(cfg, &server, &url, &fs_path, &mut unknown);
    let mut sections = Vec::new();
    let mut errors = Vec::new();
    let mut compat: Option<CompatConfig> = None;
    let mut authz: Option<AuthzConfig> = None;
    let mut authn = AuthnConfig::default();
    let mut forbidden_override: Option<String> = None;
    for phase in phases {
        let mut built: Vec<Option<AuthzConfig>> = Vec::new();
        for c in phase {
            let mut sctx = ctx.clone();
            let mut htaccess_violation: Option<(u32, String)> = None;
            let (kind, args, path, file, range, line, items) = match &c {
                Contribution::Node(n) => (
                    n.name.clone(),
                    n.args.clone(),
                    cfg.file(n.loc.file).path.clone(),
                    Some(n.loc.file),
                    n.loc.range,
                    n.loc.line,
                    body_items(cfg, n),
                ),
                Contribution::Htaccess(fd, allow) => {
                    sctx.htaccess = true;
                    let frag = config::load_fragment_from(fd.clone());
                    htaccess_violation = htaccess_override_violation(&frag, allow);
                    let top = Node {
                        kind: NodeKind::Section,
                        name: ".htaccess".into(),
                        args: vec![],
                        raw_args: String::new(),
                        loc: config::Loc { file: 0, range: TextRange::default(), focus: TextRange::default(), line: 1 },
                        children: frag.nodes.clone(),
                    };
                    let items = body_items(&frag, &top);
                    (".htaccess".to_string(), vec![], fd.path.clone(), None, TextRange::default(), 1, items)
                }
            };
            // All layers plus the <Limit> blocks' own errors (TRACE, unknown methods…).
            let policy::SectionPolicy { compat: cc, authz: a, authn: n, errors: section_errors, .. } =
                policy::section_from_items(&items, &sctx);
            if let Contribution::Htaccess(fd, _) = &c {
                // An .htaccess is read per request (server/config.c: ap_parse_htaccess): its
                // first error, a forbidden directive or a bad argument, is a 500 at request
                // time with "<file>: <message>" logged, not a startup error. "First" in the
                // order httpd meets them: the override check of a line comes before the line
                // runs; a Require container's own verdicts ("contains no authorization
                // directives", "has no effect in") come after its body (add_authz_section).
                let first_error = htaccess_violation
                    .take()
                    .map(|(offset, m)| (offset, 0, m))
                    .into_iter()
                    .chain(section_errors.iter().map(|e| {
                        let at_close = e.message.starts_with("<Require")
                            && (e.message.ends_with("directive contains no authorization directives")
                                || e.message.contains("directive has no effect in"));
                        // (The range's end is exclusive: the next line may start there.)
                        let offset = if at_close { e.loc.range.1.saturating_sub(1) } else { e.loc.range.0 };
                        (offset, 1, format!("{}: {}", fd.path.display(), e.message))
                    }))
                    .min_by_key(|(offset, prio, _)| (*offset, *prio));
                if forbidden_override.is_none() {
                    forbidden_override = first_error.map(|(_, _, m)| m);
                }
            } else {
                errors.extend(section_errors);
            }
            if cc.is_some() {
                compat = cc.clone();
            }
            if let Some(n) = &n {
                authn = merge_authn(&authn, n);
            }
            built.push(a.clone());
            let access_lines = access_lines(&items);
            sections.push(AppliedSection {
                kind,
                args,
                path,
                file,
                range,
                line,
                access_lines,
                compat: cc,
                authz: a,
                authn: n,
            });
        }
        authz = fold_phase(authz.as_ref(), built.iter().map(|a| a.as_ref()));
    }
    let mut request = spec.request.clone();
    request.uri = url.clone();
    let mut outcome = evaluate(compat.as_ref(), authz.as_ref(), &authn, &request, &ctx);
    // httpd logs the file name it mapped the request to, not the URL.
    let fname = fs_path.display().to_string();
    for l in &mut outcome.log {
        if l.message.ends_with(&url) {
            let cut = l.message.len() - url.len();
            l.message = format!("{}{}", &l.message[..cut], fname);
        }
    }
    if !unknown.is_empty() && outcome.status.is_some() {
        let possible = outcome.status.into_iter().chain(outcome.possible_statuses.iter().copied());
        let mut possible: Vec<u16> = possible.collect();
        if unknown.iter().any(|u| u.ends_with(UNREADABLE_HTACCESS)) {
            possible.push(403);
        }
        possible.sort_unstable();
        possible.dedup();
        outcome.possible_statuses = possible;
        outcome.reason_unknown = Some(unknown.join("; "));
        outcome.status = None;
    }
    if let Some(why) = forbidden_override {
        // The Directory walk fails before any access check runs: nothing else is logged.
        outcome.status = Some(500);
        outcome.reason_unknown = None;
        outcome.possible_statuses = vec![500];
        outcome.deciding =
            Some(policy::Deciding { layer: policy::Layer::Core, rule: format!(".htaccess error: {why}"), loc: None });
        // Logged at level alert, without an AH code.
        outcome.log = vec![policy::LogEntry {
            ah_code: "",
            module: "core",
            level: policy::LogLevel::Error,
            message: why.clone(),
        }];
        outcome.trace.push(policy::TraceStep { depth: 0, text: format!("500: {why}"), loc: None });
    }
    if !errors.is_empty() {
        let msg = errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ");
        outcome.reason_unknown = Some(format!("httpd would refuse to start: {msg}"));
        outcome.status = None;
    }
    Effective {
        virtual_host: vhost.map(vhost_label),
        filesystem_path: fs_path,
        sections,
        compat,
        authz,
        authn,
        errors,
        unknown,
        outcome,
    }
}

/// Decodes `%XX`, merges `//`, resolves `.` and `..` as httpd does before walking.
pub fn normalize_url(u: &str) -> String {
    let u = u.split(['?', '#']).next().unwrap_or("");
    let mut bytes = Vec::new();
    let b = u.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() + 0 && i + 2 <= b.len() - 1 {
            if let Ok(v) = u8::from_str_radix(&u[i + 1..i + 3], 16) {
                bytes.push(v);
                i += 3;
                continue;
            }
        }
        bytes.push(b[i]);
        i += 1;
    }
    let s = String::from_utf8_lossy(&bytes).to_string();
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn location_prefix_on_segment_boundary() {
        assert!(location_prefix("/sub", "/sub"));
        assert!(location_prefix("/sub", "/sub/x"));
        assert!(!location_prefix("/sub", "/subx"));
        assert!(!location_prefix("/sub/", "/sub"));
    }

    #[test]
    fn urls_are_normalised_before_matching() {
        assert_eq!(normalize_url("//a/./b/../%73ub/"), "/a/sub/");
        assert_eq!(normalize_url("/x?y=1"), "/x");
    }
}
