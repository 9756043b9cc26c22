//! Feature: the effective access policy of one request, as httpd computes it.
//!
//! Given a loaded [`Config`] and a request (URL, virtual host, client…), this
//! finds the sections that apply in httpd's merge order
//! (`server/request.c: ap_directory_walk`, `ap_file_walk`, `ap_location_walk`,
//! `ap_if_walk`; fact sheet §5.1), folds each phase, merges the three access
//! layers (mod_access_compat, mod_authz_core, mod_authn_core) and evaluates the
//! request with [`crate::ide::policy`]. It reads the file system only to know
//! which path components exist and to read `.htaccess` files.

use super::regex_cache::{with_cached, RegexCache};
use crate::ide::config::index::{components, Built, Scope};
use crate::ide::config::{self, Config, FileData, FileId, Index, Node, NodeKind, SecId};
use crate::ide::policy::{
    self, evaluate, fold_phase, merge_authn, AuthnConfig, AuthzConfig, CompatConfig, Item, Outcome, PolicyCtx,
};
use apache_syntax::TextRange;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    /// Index in `cfg.nodes` of the virtual host serving the request.
    pub vhost_node: Option<usize>,
    /// Directives of the applied sections that features beyond access control read
    /// ([`is_per_dir_input`]: SetEnvIf, DirectoryIndex, SetEnv, LogLevel…), in merge order, each
    /// with the index of its section in `sections`.
    pub per_dir: Vec<(usize, Item)>,
    /// The request environment at access-check time, when SetEnvIf was evaluated
    /// ([`effective_with`]).
    pub env: Option<crate::ide::setenvif::EnvReport>,
    /// mod_dir's DirectoryIndex subrequests, for a directory URL that passed access control.
    pub index: Option<Box<crate::ide::dir_index::IndexLookup>>,
}

fn ploc(cfg: &Config, loc: &config::Loc) -> policy::Loc {
    let (fd, range) = (cfg.file(loc.file), loc.range);
    policy::Loc {
        file: fd.path.clone(),
        line: fd.line_of(range.start()),
        range: (range.start().into(), range.end().into()),
    }
}

/// A section body as the policy builders take it: directives and the access
/// blocks (`<Limit>`, `<RequireAll>`…); other nested sections are walked separately.
pub fn body_items(cfg: &Config, node: &Node) -> Vec<Item> {
    let mut out = Vec::new();
    for c in &node.children {
        let loc = ploc(cfg, &c.loc);
        match c.kind {
            NodeKind::Directive => out.push(directive_item(c, loc)),
            NodeKind::Section => {
                if matches!(c.known(), "Limit" | "LimitExcept" | "RequireAll" | "RequireAny" | "RequireNone") {
                    out.push(Item::Block {
                        name: c.name().into(),
                        args: c.args().to_vec(),
                        loc,
                        items: body_items(cfg, c),
                    });
                }
            }
        }
    }
    out
}

/// [`body_items`] with only what the compat and authz layers read: their directives
/// ([`policy::access_layer_directive`]) and the blocks that may hold them. Building
/// those two layers ([`policy::compat_from_items`], [`policy::authz_from_items`]) from
/// it gives what building them from the whole body gives, without copying the rest of
/// the section; a section without access control gives no items (and no allocation).
pub fn access_layer_items(cfg: &Config, node: &Node) -> Vec<Item> {
    items_reading(cfg, node, policy::access_layer_directive)
}

/// [`body_items`] with only what a section's policy ([`policy::section_from_items`]) reads:
/// the directives of its three layers ([`policy::policy_directive`]) and the blocks that may
/// hold them. Building the policy from it gives what building it from the whole body gives.
pub fn policy_items(cfg: &Config, node: &Node) -> Vec<Item> {
    items_reading(cfg, node, policy::policy_directive)
}

/// Whether [`items_reading`] keeps a child: a directive `reads` names, or a block that may
/// hold one.
fn keeps(c: &Node, reads: fn(&str) -> bool) -> bool {
    let name: &str = c.name();
    match c.kind {
        NodeKind::Directive => reads(name),
        NodeKind::Section => ["Limit", "LimitExcept", "RequireAll", "RequireAny", "RequireNone"]
            .iter()
            .any(|b| name.eq_ignore_ascii_case(b)),
    }
}

/// The nodes of a section's body that [`policy_items`] reads, in its order, each with its
/// depth: all a section's policy is made of but where it is written.
pub(crate) fn policy_input(node: &Node) -> impl Iterator<Item = (usize, &Node)> {
    let mut stack: Vec<(usize, &Node)> = node.children.iter().rev().map(|c| (0, c)).collect();
    std::iter::from_fn(move || loop {
        let (depth, c) = stack.pop()?;
        if !keeps(c, policy::policy_directive) {
            continue;
        }
        if c.kind == NodeKind::Section {
            stack.extend(c.children.iter().rev().map(|g| (depth + 1, g)));
        }
        return Some((depth, c));
    })
}

/// [`body_items`] with the directives `reads` names and every block that may hold them.
fn items_reading(cfg: &Config, node: &Node, reads: fn(&str) -> bool) -> Vec<Item> {
    let mut out = Vec::new();
    for c in &node.children {
        if !keeps(c, reads) {
            continue;
        }
        let loc = ploc(cfg, &c.loc);
        let args = c.args().to_vec();
        out.push(match c.kind {
            NodeKind::Directive => Item::Directive { name: c.name().into(), args, raw_args: c.raw_args().into(), loc },
            NodeKind::Section => Item::Block { name: c.name().into(), args, loc, items: items_reading(cfg, c, reads) },
        });
    }
    out
}

fn directive_item(c: &Node, loc: policy::Loc) -> Item {
    Item::Directive { name: c.name().into(), args: c.args().to_vec(), raw_args: c.raw_args().into(), loc }
}

/// Which modules, methods and providers the server has (computed once per configuration).
pub fn policy_ctx(cfg: &Config) -> PolicyCtx {
    cfg.index().ctx.clone()
}

/// The main server's level and, when the request went to a virtual host, the host's.
struct Server<'a> {
    main: &'a Scope,
    vhost: Option<&'a Scope>,
}

impl<'a> Server<'a> {
    /// The scopes in the order httpd merges sections: the main server's, then the vhost's.
    fn scopes(&self) -> impl Iterator<Item = &'a Scope> {
        std::iter::once(self.main).chain(self.vhost)
    }
    /// Alias-like directives of kind `k` ([`Scope::aliases`]) in order: the vhost's first
    /// (mod_alias merges the vhost's aliases before the main server's), then the main server's.
    fn aliases(&self, k: usize) -> impl Iterator<Item = &'a (String, String)> {
        self.vhost.into_iter().flat_map(move |v| v.aliases[k].iter()).chain(self.main.aliases[k].iter())
    }
}

fn vhost_label(n: &Node) -> String {
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

/// Picks the virtual host. With a known server port, first the set of virtual hosts for the
/// connection's address (`server/vhost.c: ap_update_vhost_given_ip`, `find_ipaddr`,
/// `find_default_server`: those listening on exactly that address and port, else on that
/// address with any port, else the `*`/`_default_` ones for that port, else for any port;
/// none → the main server). Then by name when `host` matches a ServerName/ServerAlias, else
/// the first of the set (the default one for its address). Without a known port every
/// virtual host is a candidate.
fn pick_vhost(ix: &Index, host: Option<&str>, local: Option<(IpAddr, u16)>, unknown: &mut Vec<String>) -> Option<u32> {
    let set = local.map(|(addr, port)| {
        unknown.extend(ix.host_addresses.iter().cloned());
        ix.vhosts_for_address(addr, port)
    });
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

/// fnmatch-style matching (`*`, `?`, `[…]`); with `pathname`, wildcards do not cross `/`.
pub fn wildcard_match(pattern: &str, text: &str, pathname: bool) -> bool {
    if !has_wildcard(pattern) {
        return pattern == text;
    }
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

/// How a `<Directory>`, `<Files>` or `<Location>` section (or its `…Match` form) names what it
/// applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SectionPattern<'a> {
    /// `<X ~ re>` or `<XMatch re>`.
    Regex(&'a str),
    /// A pattern with `*`, `?` or `[` (fnmatch).
    Wildcard(&'a str),
    /// A plain path or name.
    Plain(&'a str),
}

impl<'a> SectionPattern<'a> {
    /// The pattern as written (the expression, for a regex).
    pub(crate) fn text(self) -> &'a str {
        match self {
            SectionPattern::Regex(p) | SectionPattern::Wildcard(p) | SectionPattern::Plain(p) => p,
        }
    }
}

/// The pattern of a section; None when it has none. As in httpd's `dirsection`, `filesection`
/// and `urlsection`, a `…Match` section's first word is its expression (even `~`); otherwise a
/// first word `~` announces the expression after it.
pub(crate) fn section_pattern(n: &Node) -> Option<SectionPattern<'_>> {
    let name = n.name();
    let named_match = name.len() >= 5 && name.get(name.len() - 5..).is_some_and(|t| t.eq_ignore_ascii_case("match"));
    let tilde = !named_match && n.args().first().is_some_and(|a| a == "~");
    let pat = if tilde { n.args().get(1) } else { n.args().first() }?;
    Some(if tilde || named_match {
        SectionPattern::Regex(pat)
    } else if has_wildcard(pat) {
        SectionPattern::Wildcard(pat)
    } else {
        SectionPattern::Plain(pat)
    })
}

/// Whether the section applies to `text`: its regex (case-sensitive) or wildcard matches, or
/// `plain` says its plain pattern does.
fn section_applies(n: &Node, text: &str, plain: impl Fn(&str, &str) -> bool) -> bool {
    match section_pattern(n) {
        Some(SectionPattern::Regex(re)) => regex_matches(re, text, false).unwrap_or(false),
        Some(SectionPattern::Wildcard(w)) => wildcard_match(w, text, true),
        Some(SectionPattern::Plain(p)) => plain(p, text),
        None => false,
    }
}

/// Compiled section patterns kept per thread. A compiled regex with its search caches takes tens
/// of kilobytes; a big tree has a pattern per virtual host (`<DirectoryMatch>` of its own root),
/// and walks of one virtual host's sections come together: keep few.
const PATTERNS_KEPT: usize = 64;

/// Runs `f` on the compiled regular expression; None when it does not compile (cached per thread).
fn with_regex<T>(pattern: &str, case_insensitive: bool, f: impl FnOnce(&regex::Regex) -> T) -> Option<T> {
    thread_local! {
        static CACHE: RegexCache<regex::Regex> = Default::default();
    }
    let build = || regex::RegexBuilder::new(pattern).case_insensitive(case_insensitive).build().ok();
    with_cached(&CACHE, PATTERNS_KEPT, pattern, case_insensitive, build, f)
}

/// Whether the regular expression matches (cached per thread); None when it does not compile.
///
/// Built as [`regex::RegexBuilder`] builds it (the same syntax options and size limit over the
/// same engine: the same patterns compile, the same texts match) but without the search engines
/// that pay off only over many or long searches (full, one-pass and lazy DFAs): a walk tests each
/// `<DirectoryMatch>`, `<FilesMatch>` and `<LocationMatch>` against a few short texts, and
/// building those engines cost more than all its searches.
pub(crate) fn regex_matches(pattern: &str, text: &str, case_insensitive: bool) -> Option<bool> {
    use regex_automata::{meta, util::syntax, MatchKind};
    thread_local! {
        static LITERALS: RegexCache<crate::ide::literal_regex::Literal> = Default::default();
        static CACHE: RegexCache<meta::Regex> = Default::default();
    }
    // A pattern of literal text and groups is matched without compiling it. Those are kept
    // apart (and many more of them: they are small), so that a big tree's one pattern per
    // virtual host does not push the shared compiled ones out.
    if !case_insensitive {
        let literal = with_cached(
            &LITERALS,
            LITERALS_KEPT,
            pattern,
            false,
            || crate::ide::literal_regex::parse(pattern),
            |l| l.is_match(text),
        );
        if literal.is_some() {
            return literal;
        }
    }
    let build = || {
        // regex 1.x's `RegexBuilder::new` and `build_one_string`, engines left out.
        let config = meta::Config::new()
            .nfa_size_limit(Some(10 * (1 << 20)))
            .match_kind(MatchKind::LeftmostFirst)
            .utf8_empty(true)
            .dfa(false)
            .onepass(false)
            .hybrid(false);
        let syntax = syntax::Config::new().case_insensitive(case_insensitive).utf8(true);
        meta::Builder::new().configure(config).syntax(syntax).build(pattern).ok()
    };
    with_cached(&CACHE, PATTERNS_KEPT, pattern, case_insensitive, build, |r| r.is_match(text))
}

/// Literal section patterns ([`crate::ide::literal_regex`]) kept per thread.
const LITERALS_KEPT: usize = 4096;

/// URL path → file system path, through Alias/AliasMatch/ScriptAlias or DocumentRoot.
fn translate(server: &Server, cfg: &Config, url: &str) -> PathBuf {
    for (from, to) in server.aliases(0).chain(server.aliases(1)) {
        if let Some(rest) = alias_match(url, from) {
            return PathBuf::from(format!("{}{}", to, rest));
        }
    }
    for (re, to) in server.aliases(2).chain(server.aliases(3)) {
        let expanded = with_regex(re, false, |r| {
            r.captures(url).map(|caps| {
                let mut out = String::new();
                caps.expand(&to.replace('$', "$$").replace("$$0", "${0}").replace("$$", "$"), &mut out);
                out
            })
        });
        if let Some(Some(out)) = expanded {
            return PathBuf::from(out);
        }
    }
    let root = server
        .vhost
        .and_then(|v| v.document_root.clone())
        .or_else(|| server.main.document_root.clone())
        .unwrap_or_else(|| "/var/www/html".to_string());
    let root = if Path::new(&root).is_absolute() { PathBuf::from(root) } else { cfg.server_root.join(root) };
    let root = root.to_string_lossy().trim_end_matches('/').to_string();
    PathBuf::from(format!("{root}{url}"))
}

/// `r->filename` after `ap_directory_walk`: the translated path up to its first component that is
/// not a directory (a file, or nothing); what follows is PATH_INFO. A path that is a directory
/// all the way keeps the trailing slash it was requested with. This is the name httpd matches
/// `<Files>` and `<DirectoryMatch>` against and logs in AH01797/AH01630.
pub fn request_filename(translated: &Path) -> PathBuf {
    request_filename_in(&FsView::fresh(), translated)
}

fn request_filename_in(fs: &FsView, translated: &Path) -> PathBuf {
    let s = translated.to_string_lossy();
    let comps = components(&s);
    // The path grown one component at a time ("/a", "/a/b", …: what `PathBuf::push` writes),
    // and where each of those prefixes ends.
    let mut full = String::with_capacity(s.len() + 1);
    let mut ends = Vec::with_capacity(comps.len());
    for c in &comps {
        full.push('/');
        full.push_str(c);
        ends.push(full.len());
    }
    // A directory's ancestors are directories: the walk of a batch starts after the deepest
    // prefix the disk already told is one (most requests share all but their last components).
    let known = (0..comps.len()).rev().find(|&k| fs.disk_said_dir(&full[..ends[k]]));
    for &end in &ends[known.map_or(0, |k| k + 1)..] {
        if !fs.is_dir(Path::new(&full[..end])) {
            return PathBuf::from(&full[..end]);
        }
    }
    if full.is_empty() {
        PathBuf::from("/")
    } else if s.ends_with('/') {
        PathBuf::from(format!("{full}/"))
    } else {
        PathBuf::from(full)
    }
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

/// One section of a phase: a section of the configuration, or an .htaccess file
/// read for this request together with the AllowOverride in force for it.
#[derive(Debug, Clone)]
enum Contribution {
    Section(SecId),
    /// The file, the AllowOverride in force for it, and the file loaded under the server.
    Htaccess(Arc<FileData>, Vec<String>, Arc<Config>),
    /// A `<Files>`/`<FilesMatch>` section of an .htaccess file (in the Files phase): the file,
    /// the file loaded, and the section's index among its top-level nodes (`<IfModule>`
    /// bodies httpd reads are spliced in there).
    HtaccessFiles(Arc<FileData>, Arc<Config>, usize),
}

/// Where an applied section is written ([`Resolved::applied`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A section of the configuration: its file and range.
    Node(FileId, TextRange),
    /// An .htaccess file's top level.
    Htaccess,
    /// A section of an .htaccess file: its range in that file.
    HtaccessSection(TextRange),
}

/// The `<Files>`/`<FilesMatch>` sections among an .htaccess file's top-level nodes.
fn htaccess_files_sections(frag: &Config) -> impl Iterator<Item = (usize, &Node)> {
    frag.nodes.iter().enumerate().filter(|(_, n)| n.is_section() && (n.is("Files") || n.is("FilesMatch")))
}

/// An applied section: what it is, its policy, and (for an .htaccess file, which has no
/// node to re-read) its body.
type Applied = (Contribution, Arc<Built>, Option<Vec<Item>>);

/// What the walk knows of the file system: which paths are directories, and the
/// `.htaccess` files. A batch over many requests ([`FsView::cached`], the checker)
/// asks each question once; a single request ([`FsView::fresh`]) asks afresh.
#[derive(Default)]
pub struct FsView {
    cache: Option<Mutex<FsCache>>,
    overlay: FsOverlay,
}

/// What a walk is told about the file system beyond the disk: directories taken to exist
/// (a migration proof covers every directory a configuration names, deployed here or not)
/// and per-request files (.htaccess) with other texts (pending rewrites, unsaved buffers).
#[derive(Default, Clone, Debug)]
pub struct FsOverlay {
    pub dirs: std::collections::BTreeSet<PathBuf>,
    pub files: std::collections::BTreeMap<PathBuf, Arc<str>>,
}

#[derive(Default)]
struct FsCache {
    /// Keyed by the path's bytes: hashing and comparing a `Path` goes component by component.
    /// (Fx: a batch looks up tens of thousands of long paths several times each.)
    dirs: rustc_hash::FxHashMap<std::ffi::OsString, bool>,
    files: rustc_hash::FxHashMap<std::ffi::OsString, Result<Option<Arc<FileData>>, String>>,
}

impl FsView {
    pub fn fresh() -> FsView {
        FsView { cache: None, overlay: FsOverlay::default() }
    }
    pub fn cached() -> FsView {
        FsView { cache: Some(Mutex::default()), overlay: FsOverlay::default() }
    }
    /// A cached view with `overlay` over the disk.
    pub fn overlaid(overlay: FsOverlay) -> FsView {
        FsView { cache: Some(Mutex::default()), overlay }
    }
    fn is_dir(&self, p: &Path) -> bool {
        if self.overlay.dirs.contains(p) {
            return true;
        }
        let Some(c) = &self.cache else { return p.is_dir() };
        if let Some(&d) = c.lock().unwrap_or_else(|e| e.into_inner()).dirs.get(p.as_os_str()) {
            return d;
        }
        let d = p.is_dir();
        c.lock().unwrap_or_else(|e| e.into_inner()).dirs.insert(p.as_os_str().to_os_string(), d);
        d
    }
    /// Whether a cached view already found `p` to be a directory on the disk (not only in
    /// the overlay: an overlaid directory's parents may be missing).
    fn disk_said_dir(&self, p: &str) -> bool {
        let Some(c) = &self.cache else { return false };
        c.lock().unwrap_or_else(|e| e.into_inner()).dirs.get(std::ffi::OsStr::new(p)) == Some(&true)
    }

    /// An .htaccess file: its text, None when it is not there (ENOENT, ENOTDIR: httpd
    /// goes on), or why it cannot be read (httpd stops with 403, AH00529).
    fn read(&self, p: &Path) -> Result<Option<Arc<FileData>>, String> {
        let read = || {
            if let Some(text) = self.overlay.files.get(p) {
                return Ok(Some(Arc::new(FileData::new(Arc::from(p), text.clone(), None))));
            }
            // Only a regular file: a FIFO here would block the walk for ever.
            match config::read_regular(p) {
                Ok(bytes) => {
                    let (text, bad) = config::decode(bytes);
                    Ok(Some(Arc::new(FileData::new(Arc::from(p), text, bad))))
                }
                Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
                    Ok(None)
                }
                Err(e) => Err(e.to_string()),
            }
        };
        let Some(c) = &self.cache else { return read() };
        if let Some(f) = c.lock().unwrap_or_else(|e| e.into_inner()).files.get(p.as_os_str()) {
            return f.clone();
        }
        let f = read();
        c.lock().unwrap_or_else(|e| e.into_inner()).files.insert(p.as_os_str().to_os_string(), f.clone());
        f
    }
}

/// The sections that apply to a request, in merge order, grouped by phase.
fn walk(
    cfg: &Config,
    fs: &FsView,
    server: &Server,
    url: &str,
    fs_path: &Path,
    unknown: &mut Vec<String>,
) -> Vec<Vec<Contribution>> {
    let ix = cfg.index();
    let path = fs_path.to_string_lossy().to_string();
    let comps = components(&path);
    // How far the walk goes: the deepest existing directory, plus a final component that is a
    // file or does not exist. `fs_path` ([`request_filename_in`]) ends there, every component
    // before its last one a directory.
    let depth = comps.len();
    let mut dir_phase: Vec<Contribution> = Vec::new();
    // AccessFileName: the vhost's, else the main server's, else httpd's default.
    static DEFAULT_ACCESS_FILE: std::sync::LazyLock<[String; 1]> =
        std::sync::LazyLock::new(|| [".htaccess".to_string()]);
    let names: &[String] = server
        .vhost
        .and_then(|v| v.access_file_name.as_deref())
        .or(server.main.access_file_name.as_deref())
        .unwrap_or(&DEFAULT_ACCESS_FILE[..]);
    const NONE: &[String] = &[];
    let mut allow_override: &[String] = NONE;
    // The directory at depth k: "/" then "/a", "/a/b", … grown one component at a time.
    let mut prefix = String::with_capacity(path.len() + 1);
    prefix.push('/');
    // <Directory> sections by component count, then in order (the main server's, then the vhost's).
    for k in 0..=depth {
        if k > 0 {
            if k > 1 {
                prefix.push('/');
            }
            prefix.push_str(comps[k - 1]);
        }
        for scope in server.scopes() {
            for id in scope.dirs_at(k, &prefix, |pat, text| wildcard_match(pat, text, true)) {
                if let Some(ao) = ix.allow_override(id) {
                    allow_override = ao;
                }
                dir_phase.push(Contribution::Section(id));
            }
        }
        // The .htaccess of the directory at this depth (only real directories: those above the
        // last component are). No AllowOverride yet means None.
        if !allow_override.iter().all(|a| a.eq_ignore_ascii_case("None"))
            && (k < depth || fs.is_dir(Path::new(&prefix)))
        {
            for name in names {
                let p = Path::new(&prefix).join(name);
                match fs.read(&p) {
                    Ok(Some(fd)) => {
                        let frag = Arc::new(config::load_fragment_under(fd.clone(), cfg));
                        dir_phase.push(Contribution::Htaccess(fd, allow_override.to_vec(), frag));
                        break;
                    }
                    Ok(None) => {}
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
    for scope in server.scopes() {
        for (id, re) in &scope.dir_regex {
            match re.as_deref().map(|r| regex_matches(r, &path, false)) {
                Some(Some(true)) => dir_phase.push(Contribution::Section(*id)),
                Some(None) => {
                    let d = ix.node(cfg, *id);
                    unknown.push(format!(
                        "cannot evaluate the regular expression of <{}> at line {}",
                        d.name(),
                        cfg.line(&d.loc)
                    ))
                }
                _ => {}
            }
        }
    }
    let in_phase = |phase: &[Contribution]| -> Vec<SecId> {
        phase
            .iter()
            .filter_map(|c| match c {
                Contribution::Section(id) => Some(*id),
                Contribution::Htaccess(..) | Contribution::HtaccessFiles(..) => None,
            })
            .collect()
    };
    // Files: server level, then nested in the matched Directory sections and .htaccess files,
    // in merge order (`merge_core_dir_configs` appends each one's `sec_file`).
    let mut files_candidates: Vec<Contribution> =
        server.scopes().flat_map(|s| s.files.iter().map(|id| Contribution::Section(*id))).collect();
    for c in &dir_phase {
        match c {
            Contribution::Section(id) => {
                files_candidates.extend(ix.files_in(*id).iter().map(|f| Contribution::Section(*f)))
            }
            Contribution::Htaccess(fd, _, frag) => files_candidates.extend(
                htaccess_files_sections(frag).map(|(i, _)| Contribution::HtaccessFiles(fd.clone(), frag.clone(), i)),
            ),
            Contribution::HtaccessFiles(..) => {}
        }
    }
    // The basename of `r->filename` ([`request_filename`]); a directory requested with its
    // trailing slash is `…/dir/`: basename "".
    let base = if path.ends_with('/') { "" } else { comps.last().copied().unwrap_or("") };
    let mut files_phase = Vec::new();
    for c in files_candidates {
        let f = match &c {
            Contribution::Section(id) => ix.node(cfg, *id),
            Contribution::HtaccessFiles(_, frag, i) => &frag.nodes[*i],
            Contribution::Htaccess(..) => continue,
        };
        if section_applies(f, base, |name, base| name == base) {
            files_phase.push(c);
        }
    }
    // Location: main server's then the vhost's, in config order, against the URL.
    let mut loc_phase = Vec::new();
    for id in server.scopes().flat_map(|s| s.locations.iter().copied()) {
        if section_applies(ix.node(cfg, id), url, location_prefix) {
            loc_phase.push(Contribution::Section(id));
        }
    }
    // <If> sections anywhere on the way: we do not evaluate ap_expr.
    let mut if_sections: Vec<SecId> = server.scopes().flat_map(|s| s.ifs.iter().copied()).collect();
    for id in in_phase(&dir_phase).into_iter().chain(in_phase(&files_phase)).chain(in_phase(&loc_phase)) {
        if_sections.extend(ix.ifs_in(id).iter().copied());
    }
    for id in if_sections {
        if ix.holds_access(id) {
            let s = ix.node(cfg, id);
            unknown.push(format!(
                "<{}> at {}:{} holds access rules, and its expression is not evaluated",
                s.name(),
                cfg.file(s.loc.file).path.display(),
                cfg.line(&s.loc)
            ));
        }
    }
    vec![dir_phase, files_phase, loc_phase]
}

/// The first directive of an .htaccess file that its AllowOverride forbids
/// (httpd answers 500 and logs "<file>: <name> not allowed here"): its offset and that message.
/// The rules are `server/config.c: invoke_cmd`'s and `ap_check_cmd_context`'s
/// ([`crate::ide::catalogue::context`]), over the nodes in file order (a section
/// before its body); violations `AllowOverride Nonfatal=Override` lets pass are skipped.
fn htaccess_override_violation(frag: &Config, allow: &[String]) -> Option<(u32, String)> {
    use crate::ide::catalogue::context::{Overrides, Refusal, Scope};
    let path = frag.nodes.first().map(|n| frag.file(n.loc.file).path.display().to_string()).unwrap_or_default();
    let overrides = Overrides::parse(Some(allow), None);
    let top = Scope::htaccess(Some(&overrides));
    let mut stack: Vec<(&Node, Scope)> = frag.nodes.iter().rev().map(|n| (n, top.clone())).collect();
    while let Some((n, scope)) = stack.pop() {
        let Some(d) = n.directive() else { continue };
        if let Some(r) = scope.check(d).filter(|r| r.kind == Refusal::Request) {
            return Some((u32::from(n.loc.range.start()), format!("{path}: {}", r.message)));
        }
        if let Some(inner) = n.is_section().then(|| scope.enter(n.name())).flatten() {
            stack.extend(n.children.iter().rev().map(|c| (c, inner.clone())));
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

/// One request's walk and merged configuration, before any client is considered: what
/// every request for the same URL, Host and connection address shares. The checker
/// resolves each section once and evaluates it for many clients ([`Resolved::outcome`]).
pub struct Resolved {
    vhost: Option<u32>,
    /// The normalised URL.
    pub url: String,
    pub filesystem_path: PathBuf,
    /// The sections that apply, in merge order, with their bodies and policies.
    applied: Vec<Applied>,
    pub compat: Option<CompatConfig>,
    /// The section of the configuration `compat` comes from (None: none, or an .htaccess file).
    compat_source: Option<SecId>,
    pub authz: Option<AuthzConfig>,
    pub authn: AuthnConfig,
    /// Startup errors found in the sections that apply (httpd would refuse to start).
    pub errors: Vec<policy::ConfigError>,
    /// Why the outcome cannot be known, when something on the path is out of our reach.
    pub unknown: Vec<String>,
    /// The first error of an .htaccess file on the way: every request gets 500.
    forbidden_override: Option<String>,
}

/// Walks the sections a request for `path` (on `host`, over a connection to `local`) meets
/// and merges them.
pub fn resolve(cfg: &Config, fs: &FsView, path: &str, host: Option<&str>, local: Option<(IpAddr, u16)>) -> Resolved {
    walk_request(cfg, fs, path, host, local).merge(cfg)
}

/// One request's walk: the sections it meets, in merge order, before their policies are
/// merged ([`Walked::merge`]). A batch that needs only which section's Order/Allow/Deny is in
/// effect asks [`Walked::before_merge`] and merges only when that does not tell.
pub struct Walked {
    vhost: Option<u32>,
    url: String,
    filesystem_path: PathBuf,
    phases: Vec<Vec<Contribution>>,
    unknown: Vec<String>,
}

/// What a walk tells of mod_access_compat's layer without merging the sections' policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeforeMerge {
    /// No request gets an answer from the access checks ([`Resolved::answered_before_access_checks`]:
    /// something on the path is out of reach, or a section has startup errors).
    AnsweredBeforeAccessChecks,
    /// The Order/Allow/Deny in effect are this section's ([`Resolved::compat_source`]), and the
    /// access checks answer.
    CompatFrom(SecId),
    /// Only the merge tells: an .htaccess file is on the way, or no section sets Order/Allow/Deny.
    Merge,
}

/// The walk of [`resolve`].
pub fn walk_request(cfg: &Config, fs: &FsView, path: &str, host: Option<&str>, local: Option<(IpAddr, u16)>) -> Walked {
    let ix = cfg.index();
    let mut unknown = Vec::new();
    let vhost = pick_vhost(ix, host, local, &mut unknown);
    let server = Server { main: &ix.main, vhost: vhost.map(|v| &ix.vhosts[v as usize].scope) };
    let url = normalize_url(path);
    let filesystem_path = request_filename_in(fs, &translate(&server, cfg, &url));
    let phases = walk(cfg, fs, &server, &url, &filesystem_path, &mut unknown);
    Walked { vhost, url, filesystem_path, phases, unknown }
}

impl Walked {
    /// What the walk tells of mod_access_compat's layer from each section's
    /// [`crate::ide::config::index::PolicyOutline`] alone: what [`Walked::merge`] would put in
    /// [`Resolved::compat_source`] and [`Resolved::answered_before_access_checks`], when that
    /// does not take an .htaccess file's policy.
    pub fn before_merge(&self, cfg: &Config) -> BeforeMerge {
        if !self.unknown.is_empty() {
            return BeforeMerge::AnsweredBeforeAccessChecks;
        }
        let ix = cfg.index();
        let mut source = None;
        for c in self.phases.iter().flatten() {
            let Contribution::Section(id) = c else { return BeforeMerge::Merge };
            let outline = ix.outline(cfg, *id);
            if outline.has_errors {
                return BeforeMerge::AnsweredBeforeAccessChecks;
            }
            if outline.sets_compat {
                source = Some(*id);
            }
        }
        source.map_or(BeforeMerge::Merge, BeforeMerge::CompatFrom)
    }

    /// Merges the sections' policies, phase by phase, as httpd does.
    pub fn merge(self, cfg: &Config) -> Resolved {
        let ix = cfg.index();
        let Walked { vhost, url, filesystem_path, phases, unknown } = self;
        let mut applied = Vec::new();
        let mut errors = Vec::new();
        let mut compat: Option<CompatConfig> = None;
        let mut compat_source = None;
        let mut authz: Option<AuthzConfig> = None;
        let mut authn = AuthnConfig::default();
        let mut forbidden_override: Option<String> = None;
        for phase in phases {
            let start = applied.len();
            for c in phase {
                let (built, items) = match &c {
                    Contribution::Section(id) => (ix.built(cfg, *id), None),
                    Contribution::Htaccess(fd, allow, frag) => {
                        let (built, items, first_error) = htaccess(fd, frag, allow, &ix.ctx);
                        if forbidden_override.is_none() {
                            forbidden_override = first_error;
                        }
                        (built, Some(items))
                    }
                    Contribution::HtaccessFiles(_, frag, i) => {
                        // (Its errors are the file's: found when the file is read, above.)
                        let items = body_items(frag, &frag.nodes[*i]);
                        let mut sctx = ix.ctx.clone();
                        sctx.htaccess = true;
                        let (policy, compat_errors, authz_errors) =
                            policy::section_from_items_with_layer_errors(&items, &sctx);
                        (Arc::new(Built { policy, compat_errors, authz_errors }), Some(items))
                    }
                };
                let p = &built.policy;
                if matches!(c, Contribution::Section(_)) {
                    errors.extend(p.errors.iter().cloned());
                }
                if p.compat.is_some() {
                    compat = p.compat.clone();
                    compat_source = match c {
                        Contribution::Section(id) => Some(id),
                        Contribution::Htaccess(..) | Contribution::HtaccessFiles(..) => None,
                    };
                }
                if let Some(n) = &p.authn {
                    authn = merge_authn(&authn, n);
                }
                applied.push((c, built, items));
            }
            authz = fold_phase(authz.as_ref(), applied[start..].iter().map(|(_, b, _)| b.policy.authz.as_ref()));
        }
        Resolved {
            vhost,
            url,
            filesystem_path,
            applied,
            compat,
            compat_source,
            authz,
            authn,
            errors,
            unknown,
            forbidden_override,
        }
    }
}

/// An .htaccess file's body and policy, and the first error httpd meets in it (in its top
/// level or in its `<Files>` sections: httpd reads the whole file before any section applies).
fn htaccess(
    fd: &Arc<FileData>,
    frag: &Config,
    allow: &[String],
    ctx: &PolicyCtx,
) -> (Arc<Built>, Vec<Item>, Option<String>) {
    let mut sctx = ctx.clone();
    sctx.htaccess = true;
    let violation = htaccess_override_violation(frag, allow);
    let loc = config::Loc { file: 0, range: TextRange::default(), focus: TextRange::default() };
    let top = Node::new(NodeKind::Section, ".htaccess", [""; 0], "", loc, frag.nodes.clone());
    let items = body_items(frag, &top);
    // All layers plus the <Limit> blocks' own errors (TRACE, unknown methods…).
    let (policy, compat_errors, authz_errors) = policy::section_from_items_with_layer_errors(&items, &sctx);
    let section_errors: Vec<policy::ConfigError> = htaccess_files_sections(frag)
        .flat_map(|(_, n)| policy::section_from_items(&body_items(frag, n), &sctx).errors)
        .collect();
    // An .htaccess is read per request (server/config.c: ap_parse_htaccess): its
    // first error, a forbidden directive or a bad argument, is a 500 at request
    // time with "<file>: <message>" logged, not a startup error. "First" in the
    // order httpd meets them: the override check of a line comes before the line
    // runs; a Require container's own verdicts ("contains no authorization
    // directives", "has no effect in") come after its body (add_authz_section).
    let first_error = violation
        .map(|(offset, m)| (offset, 0, m))
        .into_iter()
        .chain(policy.errors.iter().chain(&section_errors).map(|e| {
            let at_close = e.message.starts_with("<Require")
                && (e.message.ends_with("directive contains no authorization directives")
                    || e.message.contains("directive has no effect in"));
            // (The range's end is exclusive: the next line may start there.)
            let offset = if at_close { e.loc.range.1.saturating_sub(1) } else { e.loc.range.0 };
            (offset, 1, format!("{}: {}", fd.path.display(), e.message))
        }))
        .min_by_key(|(offset, prio, _)| (*offset, *prio))
        .map(|(_, _, m)| m);
    (Arc::new(Built { policy, compat_errors, authz_errors }), items, first_error)
}

impl Resolved {
    /// What httpd answers `request` (its URI is taken from the resolved URL).
    pub fn outcome(&self, cfg: &Config, request: &policy::Request) -> Outcome {
        self.outcome_in(cfg, request, None)
    }

    /// [`Resolved::outcome`] in the environment SetEnvIf made (`env`), if evaluated.
    fn outcome_in(
        &self,
        cfg: &Config,
        request: &policy::Request,
        env: Option<&crate::ide::setenvif::EnvReport>,
    ) -> Outcome {
        let mut request = request.clone();
        request.uri = self.url.clone();
        if let Some(r) = env {
            request.env = r.knowledge();
        }
        let mut outcome = evaluate(self.compat.as_ref(), self.authz.as_ref(), &self.authn, &request, &cfg.index().ctx);
        if let (Some(r), Some(reason)) = (env, outcome.reason_unknown.as_mut()) {
            *reason = crate::ide::setenvif::explain_unknown(reason, r);
        }
        // httpd logs the file name it mapped the request to, not the URL.
        let fname = self.filesystem_path.display().to_string();
        for l in &mut outcome.log {
            if l.message.ends_with(&self.url) {
                let cut = l.message.len() - self.url.len();
                l.message = format!("{}{}", &l.message[..cut], fname);
            }
        }
        if !self.unknown.is_empty() && outcome.status.is_some() {
            let possible = outcome.status.into_iter().chain(outcome.possible_statuses.iter().copied());
            let mut possible: Vec<u16> = possible.collect();
            if self.unknown.iter().any(|u| u.ends_with(UNREADABLE_HTACCESS)) {
                possible.push(403);
            }
            possible.sort_unstable();
            possible.dedup();
            outcome.possible_statuses = possible;
            outcome.reason_unknown = Some(self.unknown.join("; "));
            outcome.status = None;
        }
        if let Some(why) = &self.forbidden_override {
            // The Directory walk fails before any access check runs: nothing else is logged.
            outcome.status = Some(500);
            outcome.reason_unknown = None;
            outcome.possible_statuses = vec![500];
            outcome.deciding = Some(policy::Deciding {
                layer: policy::Layer::Core,
                rule: format!(".htaccess error: {why}"),
                loc: None,
            });
            // Logged at level alert, without an AH code.
            outcome.log = vec![policy::LogEntry {
                ah_code: "",
                module: "core",
                level: policy::LogLevel::Alert,
                message: why.clone(),
            }];
            outcome.trace.push(policy::TraceStep { depth: 0, text: format!("500: {why}"), loc: None });
        }
        if !self.errors.is_empty() {
            let msg = self.errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ");
            outcome.reason_unknown = Some(format!("httpd would refuse to start: {msg}"));
            outcome.status = None;
        }
        outcome
    }

    /// The sections that apply, in merge order, cheaply: where each is written, the file's
    /// path, and the section's policy.
    pub fn applied(&self, cfg: &Config) -> Vec<(Origin, Arc<Path>, &policy::SectionPolicy)> {
        let ix = cfg.index();
        self.applied
            .iter()
            .map(|(c, built, _)| match c {
                Contribution::Section(id) => {
                    let n = ix.node(cfg, *id);
                    (Origin::Node(n.loc.file, n.loc.range), cfg.file(n.loc.file).path.clone(), &built.policy)
                }
                Contribution::Htaccess(fd, ..) => (Origin::Htaccess, fd.path.clone(), &built.policy),
                Contribution::HtaccessFiles(fd, frag, i) => {
                    (Origin::HtaccessSection(frag.nodes[*i].loc.range), fd.path.clone(), &built.policy)
                }
            })
            .collect()
    }

    /// Whether an .htaccess file on the way answers every request with 500.
    pub fn htaccess_error(&self) -> Option<&str> {
        self.forbidden_override.as_deref()
    }

    /// The sections that apply, in merge order, as [`Effective`] shows them.
    pub fn sections(&self, cfg: &Config) -> Vec<AppliedSection> {
        self.sections_and_per_dir(cfg).0
    }

    /// The directives of the applied sections that other features read ([`Effective::per_dir`]).
    pub fn per_dir(&self, cfg: &Config) -> Vec<(usize, Item)> {
        let ix = cfg.index();
        let mut out = Vec::new();
        for (i, (c, _, items)) in self.applied.iter().enumerate() {
            match c {
                Contribution::Section(id) => {
                    // Only directives are per-directory inputs: no need to build the whole body.
                    for d in ix.node(cfg, *id).children.iter().filter(|d| d.kind == NodeKind::Directive) {
                        if is_per_dir_input(d.name()) {
                            out.push((i, directive_item(d, ploc(cfg, &d.loc))));
                        }
                    }
                }
                Contribution::Htaccess(..) | Contribution::HtaccessFiles(..) => out
                    .extend(items.iter().flatten().filter(|it| is_per_dir_input(it.name())).map(|it| (i, it.clone()))),
            }
        }
        out
    }

    /// [`Resolved::outcome`] in the environment mod_setenvif makes of the request
    /// ([`crate::ide::setenvif::access_env`]); `raw_path` is the request target as sent,
    /// `per_dir` what [`Resolved::per_dir`] gives.
    pub fn outcome_with_setenvif(
        &self,
        cfg: &Config,
        raw_path: &str,
        request: &policy::Request,
        inputs: &crate::ide::setenvif::EnvInputs,
        per_dir: &[(usize, Item)],
    ) -> Outcome {
        if !self.reads_env() {
            // No rule on the path tests a variable: what SetEnvIf makes of the request cannot
            // change the outcome (a batch over every section evaluates thousands of requests).
            return self.outcome_in(cfg, request, None);
        }
        let ix = cfg.index();
        let vhost = self.vhost.map(|v| ix.node(cfg, ix.vhosts[v as usize].id));
        let env = crate::ide::setenvif::access_env(cfg, vhost, per_dir, raw_path, request, inputs);
        self.outcome_in(cfg, request, Some(&env))
    }

    /// Whether no request gets an answer from the access checks: an .htaccess file on the way
    /// answers 500, or the outcome cannot be known (something on the path is out of our reach,
    /// httpd would refuse to start). [`Resolved::outcome`] has no 403 for any client then.
    pub fn answered_before_access_checks(&self) -> bool {
        self.forbidden_override.is_some() || !self.errors.is_empty() || !self.unknown.is_empty()
    }

    /// When mod_access_compat's host check certainly refuses `request` with 403 whatever Require
    /// says ([`policy::host_check_refusal`]), the rule deciding it: what [`Resolved::outcome`] and
    /// [`Resolved::outcome_with_setenvif`] name, without evaluating the rest. None when only the
    /// full evaluation knows (no Order/Allow/Deny in effect, Satisfy Any, a rule reading the
    /// environment, a host check that passes or is unknown, [`Resolved::answered_before_access_checks`]).
    pub fn host_check_refusal(&self, cfg: &Config, request: &policy::Request) -> Option<policy::Deciding> {
        if self.answered_before_access_checks() {
            return None;
        }
        compat_refusal(self.compat.as_ref()?, request, &cfg.index().ctx)
    }

    /// The section of the configuration whose Order/Allow/Deny is in effect (None when none is, or
    /// when it comes from an .htaccess file): two walks with the same source have the same
    /// [`Resolved::compat`].
    pub fn compat_source(&self) -> Option<SecId> {
        self.compat_source
    }

    /// Whether evaluating the merged policy can read the request's environment: an
    /// `Allow/Deny from env=` entry or a `Require env` line (the only readers of it).
    fn reads_env(&self) -> bool {
        use policy::authz::{NodeKind as Authz, Provider};
        let compat = self.compat.as_ref().is_some_and(compat_reads_env);
        let mut stack: Vec<&policy::authz::AuthzNode> = self.authz.iter().filter_map(|a| a.section.as_ref()).collect();
        while let Some(n) = stack.pop() {
            match &n.kind {
                Authz::Require(r) if matches!(r.provider, Provider::Env(_)) => return true,
                Authz::Require(_) => {}
                Authz::Container { children, .. } => stack.extend(children),
            }
        }
        compat
    }

    /// [`Resolved::sections`], and the directives of theirs other features read
    /// ([`Effective::per_dir`]).
    fn sections_and_per_dir(&self, cfg: &Config) -> (Vec<AppliedSection>, Vec<(usize, Item)>) {
        let ix = cfg.index();
        let mut per_dir = Vec::new();
        let sections = self
            .applied
            .iter()
            .enumerate()
            .map(|(i, (c, built, items))| {
                let (kind, args, path, file, range, line, body) = match c {
                    Contribution::Section(id) => {
                        let n = ix.node(cfg, *id);
                        (
                            n.name().to_string(),
                            n.arg_strings(),
                            cfg.file(n.loc.file).path.clone(),
                            Some(n.loc.file),
                            n.loc.range,
                            cfg.line(&n.loc),
                            body_items(cfg, n),
                        )
                    }
                    Contribution::Htaccess(fd, ..) => (
                        ".htaccess".to_string(),
                        vec![],
                        fd.path.clone(),
                        None,
                        TextRange::default(),
                        1,
                        items.clone().unwrap_or_default(),
                    ),
                    Contribution::HtaccessFiles(fd, frag, i) => {
                        let n = &frag.nodes[*i];
                        (
                            n.name().to_string(),
                            n.arg_strings(),
                            fd.path.clone(),
                            None,
                            n.loc.range,
                            frag.line(&n.loc),
                            items.clone().unwrap_or_default(),
                        )
                    }
                };
                per_dir.extend(body.iter().filter(|it| is_per_dir_input(it.name())).map(|it| (i, it.clone())));
                let access_lines = access_lines(&body);
                AppliedSection {
                    kind,
                    args,
                    path,
                    file,
                    range,
                    line,
                    access_lines,
                    compat: built.policy.compat.clone(),
                    authz: built.policy.authz.clone(),
                    authn: built.policy.authn.clone(),
                }
            })
            .collect();
        (sections, per_dir)
    }

    /// The virtual host's label (`*:80 (example.com)`), or None for the main server.
    pub fn virtual_host(&self, cfg: &Config) -> Option<String> {
        let ix = cfg.index();
        self.vhost.map(|v| vhost_label(ix.node(cfg, ix.vhosts[v as usize].id)))
    }
}

/// [`Resolved::host_check_refusal`] where the Order/Allow/Deny in effect are section `source`'s
/// ([`BeforeMerge::CompatFrom`]): the merge would take them as they are.
pub fn host_check_refusal_by(cfg: &Config, source: SecId, request: &policy::Request) -> Option<policy::Deciding> {
    let ix = cfg.index();
    compat_refusal(ix.built(cfg, source).policy.compat.as_ref()?, request, &ix.ctx)
}

/// [`policy::host_check_refusal`], except for rules SetEnvIf decides (`Allow from env=`): those
/// are the full evaluation's business.
fn compat_refusal(compat: &CompatConfig, request: &policy::Request, ctx: &PolicyCtx) -> Option<policy::Deciding> {
    if compat_reads_env(compat) {
        return None;
    }
    policy::host_check_refusal(compat, request, ctx)
}

/// Whether mod_access_compat's host check reads the request's environment (`Allow/Deny from env=`).
fn compat_reads_env(c: &CompatConfig) -> bool {
    c.allows
        .iter()
        .chain(&c.denies)
        .any(|e| matches!(e.spec, policy::HostSpec::EnvPresent(_) | policy::HostSpec::EnvAbsent(_)))
}

/// Directives outside access control that the other request features read per directory.
pub fn is_per_dir_input(name: &str) -> bool {
    crate::ide::setenvif::is_setenvif(name)
        || crate::ide::dir_index::reads(name)
        || crate::ide::loglevel::reads(name)
        || name.eq_ignore_ascii_case("HostnameLookups")
}

/// Walks and evaluates one request, with the environment given in `spec.request.env`
/// (SetEnvIf is not evaluated), including mod_dir's DirectoryIndex subrequest.
pub fn effective(cfg: &Config, spec: &RequestSpec) -> Effective {
    effective_with(cfg, spec, None)
}

/// Like [`effective`]; with `env`, the request environment is what mod_setenvif makes of the
/// request ([`crate::ide::setenvif::access_env`]) instead of `spec.request.env`.
pub fn effective_with(cfg: &Config, spec: &RequestSpec, env: Option<&crate::ide::setenvif::EnvInputs>) -> Effective {
    effective_in(cfg, &FsView::fresh(), spec, env)
}

/// [`effective_with`] seen through `fs`: a batch of requests asks the disk each question once.
pub fn effective_in(
    cfg: &Config,
    fs: &FsView,
    spec: &RequestSpec,
    env: Option<&crate::ide::setenvif::EnvInputs>,
) -> Effective {
    let mut e = walk_and_evaluate(cfg, fs, spec, env);
    crate::ide::dir_index::apply(cfg, spec, &mut e);
    e
}

/// One request without mod_dir's subrequest: what a subrequest itself is.
pub fn walk_and_evaluate(
    cfg: &Config,
    fs: &FsView,
    spec: &RequestSpec,
    env_inputs: Option<&crate::ide::setenvif::EnvInputs>,
) -> Effective {
    let ix = cfg.index();
    let local = spec.request.local_port.map(|p| (spec.request.local_addr, p));
    let r = resolve(cfg, fs, &spec.path, spec.host.as_deref(), local);
    let (sections, per_dir) = r.sections_and_per_dir(cfg);
    let vhost = r.vhost.map(|v| ix.node(cfg, ix.vhosts[v as usize].id));
    let env = env_inputs
        .map(|inputs| crate::ide::setenvif::access_env(cfg, vhost, &per_dir, &spec.path, &spec.request, inputs));
    let outcome = r.outcome_in(cfg, &spec.request, env.as_ref());
    Effective {
        virtual_host: vhost.map(vhost_label),
        vhost_node: r.vhost.and_then(|v| ix.top_position(ix.vhosts[v as usize].id)),
        sections,
        filesystem_path: r.filesystem_path,
        compat: r.compat,
        authz: r.authz,
        authn: r.authn,
        errors: r.errors,
        unknown: r.unknown,
        outcome,
        per_dir,
        env,
        index: None,
    }
}

/// Decodes `%XX`, merges `//`, resolves `.` and `..` as httpd does before walking.
pub fn normalize_url(u: &str) -> String {
    if is_normal_url(u) {
        return u.to_string();
    }
    normalized(u)
}

/// [`normalize_url`] for any URL.
fn normalized(u: &str) -> String {
    let u = u.split(['?', '#']).next().unwrap_or("");
    let mut bytes = Vec::new();
    let b = u.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Two hex digits, as `ap_unescape_url` wants (bytes: the next ones may be part of a
        // multibyte character, and a sign is not a digit).
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

    /// `~` announces an expression in the plain forms; a `…Match` section's first word is its
    /// expression, `~` included (httpd's dirsection/filesection/urlsection).
    #[test]
    fn section_patterns_as_httpd_reads_them() {
        let fx = crate::ide::diagnostics::tests::Fixture::parse(concat!(
            "//- /etc/httpd/httpd.conf\n",
            "<Directory ~ \"^/a\">\n</Directory>\n<DirectoryMatch ~>\n</DirectoryMatch>\n",
            "<FilesMatch \"\\.x$\">\n</FilesMatch>\n<Files *.y>\n</Files>\n<Location /p>\n</Location>\n",
            "<Directory ~>\n</Directory>\n",
        ));
        let cfg = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let found: Vec<_> = cfg.nodes.iter().filter(|n| n.is_section()).map(section_pattern).collect();
        use SectionPattern::*;
        assert_eq!(
            found,
            [
                Some(Regex("^/a")),
                Some(Regex("~")),
                Some(Regex("\\.x$")),
                Some(Wildcard("*.y")),
                Some(Plain("/p")),
                None
            ]
        );
    }

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

    /// Building the compat and authz layers from [`access_layer_items`], and the whole policy
    /// from [`policy_items`], gives what building them from the whole body gives:
    /// configurations and errors, in order.
    #[test]
    fn filtered_items_build_the_same_layers() {
        let fx = crate::ide::diagnostics::tests::Fixture::parse(concat!(
            "//- /etc/httpd/httpd.conf\n",
            "LoadModule authz_core_module m.so\nLoadModule authz_host_module m.so\n",
            "<Directory /a>\n  Options None\n  order deny,allow\n  Deny from all\n  Allow from 10.0.0.0/8 .example.com\n",
            "  Satisfy Any\n  AuthType Basic\n  Require valid-user\n  AuthMerging Or\n",
            "  AuthName \"a b\"\n  AuthUserFile /f\n  AuthBasicProvider file nosuch\n  AuthDigestProvider file\n  AuthName\n",
            "  <Limit POST PURGE>\n    Deny from 192.0.2.1\n    Require ip 10.1\n    DirectoryIndex x\n    AuthGroupFile /g\n  </Limit>\n",
            "  <LimitExcept GET>\n    Order allow,deny\n  </LimitExcept>\n  <Limit TRACE>\n    Allow from all\n  </Limit>\n",
            "  <RequireAll>\n    Require not ip 10.2\n    Header set X y\n    Order deny,allow\n  </RequireAll>\n",
            "  <RequireAny>\n    Options None\n  </RequireAny>\n  <RequireAny>\n    Require not host a\n  </RequireAny>\n",
            "  <Files x>\n    Require all denied\n  </Files>\n  Allow frm 1.2.3.4\n  Require frobnicate\n",
            "  AuthzSendForbiddenOnFailure On\n  Order sideways\n</Directory>\n",
            "<Location /b>\n  SetHandler none\n</Location>\n",
        ));
        let cfg = config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let ctx = &cfg.index().ctx;
        let mut checked = 0;
        for section in cfg.walk().filter(|n| n.is_section()) {
            let (all, filtered) = (body_items(&cfg, section), access_layer_items(&cfg, section));
            assert!(filtered.len() <= all.len());
            assert_eq!(policy::compat_from_items(&filtered, ctx), policy::compat_from_items(&all, ctx));
            assert_eq!(policy::authz_from_items(&filtered, ctx), policy::authz_from_items(&all, ctx));
            let policy = |items: &[Item]| format!("{:?}", policy::section_from_items_with_layer_errors(items, ctx));
            assert_eq!(policy(&policy_items(&cfg, section)), policy(&all));
            checked += usize::from(!all.is_empty());
        }
        assert!(checked >= 3, "{checked}");
        let dir = &cfg.nodes.iter().find(|n| n.is("Directory")).unwrap();
        let (_, compat_errors) = policy::compat_from_items(&access_layer_items(&cfg, dir), ctx);
        let (_, authz_errors) = policy::authz_from_items(&access_layer_items(&cfg, dir), ctx);
        assert!(compat_errors.len() >= 2 && !authz_errors.is_empty(), "{compat_errors:?} {authz_errors:?}");
        let location = &cfg.nodes.iter().find(|n| n.is("Location")).unwrap();
        assert!(access_layer_items(&cfg, location).is_empty());
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
    fn location_prefix_on_segment_boundary() {
        assert!(location_prefix("/sub", "/sub"));
        assert!(location_prefix("/sub", "/sub/x"));
        assert!(!location_prefix("/sub", "/subx"));
        assert!(!location_prefix("/sub/", "/sub"));
    }

    /// `<Files>` sections of an .htaccess file apply in the Files phase, after the directory's
    /// own lines, for files in its directory and below; its `<IfModule>` follow the server's
    /// modules (mod_status is not loaded here, though Debian enables it by default).
    #[test]
    fn files_sections_of_an_htaccess_file_apply_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www/sub")).unwrap();
        let main = dir.path().join("httpd.conf");
        std::fs::write(&main, format!("LoadModule authz_core_module m\nLoadModule access_compat_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n  AllowOverride All\n</Directory>\n")).unwrap();
        std::fs::write(dir.path().join("www/.htaccess"), "Order allow,deny\nAllow from all\n<Files \"*.ini\">\n  Order allow,deny\n  Deny from all\n</Files>\n<IfModule mod_status.c>\n  <Files a.txt>\n    Order allow,deny\n  </Files>\n</IfModule>\n").unwrap();
        let cfg = config::load(&main, &config::RealFs);
        let fs = FsView::fresh();
        let status = |url: &str| {
            let r = resolve(&cfg, &fs, url, None, None);
            let req = policy::Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
            let kinds: Vec<String> = r.sections(&cfg).iter().map(|s| s.kind.clone()).collect();
            (r.outcome(&cfg, &req).status, kinds.join(" "))
        };
        assert_eq!(status("/x.ini"), (Some(403), "Directory .htaccess Files".to_string()));
        assert_eq!(status("/sub/x.ini"), (Some(403), "Directory .htaccess Files".to_string()));
        assert_eq!(status("/x.html"), (Some(200), "Directory .htaccess".to_string()));
        assert_eq!(status("/a.txt"), (Some(200), "Directory .htaccess".to_string()));
    }

    #[test]
    fn urls_are_normalised_before_matching() {
        assert_eq!(normalize_url("//a/./b/../%73ub/"), "/a/sub/");
        assert_eq!(normalize_url("/x?y=1"), "/x");
    }
}
