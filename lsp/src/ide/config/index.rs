//! An index of a loaded configuration, built once (lazily, by [`Config::index`]) and
//! shared by everything that evaluates requests against it.
//!
//! The request walk (`access::effective`) needs, for the main server and each virtual
//! host, its server-level directives and its sections by kind; choosing a virtual host
//! needs their addresses and names; every section's policy is built from its body. Asking
//! these of the node tree each time costs a pass over the whole configuration per request,
//! so a batch over every section (the checker, hovers over a big tree) turns quadratic.
//! Here they are computed once: lookups by key, and section policies memoized per section.
//!
//! Invariant: a [`Config`]'s nodes never change after loading; sections are named by
//! [`SecId`], resolved back to their node through the tree ([`Index::node`]).

use super::{Config, FileId, Node, NodeKind};
use crate::ide::access::{section_pattern, SectionPattern};
use crate::ide::policy::{self, PolicyCtx, SectionPolicy};
use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// Positions in [`Index::vhosts`], shared by the lookups that found them.
type VhostList = Arc<Vec<u32>>;

/// A section of the configuration: its number in a preorder walk of the tree.
pub type SecId = u32;
/// Parent of the top-level nodes in [`Index::place`].
const TOP: u32 = u32::MAX;

/// One server's level of the configuration: the main server's top-level nodes, or a
/// virtual host's body.
#[derive(Debug, Default)]
pub struct Scope {
    /// The last `DocumentRoot` / `AccessFileName` at this level.
    pub document_root: Option<String>,
    pub access_file_name: Option<Vec<String>>,
    /// `Alias`, `ScriptAlias`, `AliasMatch` and `ScriptAliasMatch` lines in configuration order:
    /// mod_alias keeps them in one list and takes the first entry that matches.
    pub aliases: Vec<AliasLine>,
    /// The last `MergeSlashes` at this level: false for `Off` (core's per-server flag: a
    /// virtual host without one takes the main server's; on by default).
    pub merge_slashes: Option<bool>,
    /// The words of each `UserDir` directive at this level, in order (read by
    /// `access::userdir`).
    pub userdir: Vec<Vec<String>>,
    /// `<Directory path>` sections (not `~`), in order.
    pub dirs: Vec<DirSection>,
    /// Positions in `dirs` of the plain ones, sorted by their normalised path (`/a/b`), then
    /// position (a lookup is a binary search, and costs no map per virtual host).
    dir_exact: Vec<u32>,
    /// Positions in `dirs` of the wildcard ones.
    dir_wild: Vec<u32>,
    /// `<DirectoryMatch re>` and `<Directory ~ re>`: the section, its expression and the
    /// number of `/` in it, by which httpd sorts them ([`regex_slashes`]).
    pub dir_regex: Vec<(SecId, Option<String>, usize)>,
    /// `<Files>`/`<FilesMatch>`, `<Location>`/`<LocationMatch>`, `<If>`/`<ElseIf>`/`<Else>`.
    pub files: Vec<SecId>,
    pub locations: Vec<SecId>,
    pub ifs: Vec<SecId>,
}

/// The four directives of mod_alias's one list of aliases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AliasKind {
    Alias,
    ScriptAlias,
    AliasMatch,
    ScriptAliasMatch,
}

impl AliasKind {
    /// Its URL side is a regular expression (`AliasMatch`, `ScriptAliasMatch`).
    pub fn is_regex(self) -> bool {
        matches!(self, AliasKind::AliasMatch | AliasKind::ScriptAliasMatch)
    }
    /// It gives the request the handler `cgi-script` (`ScriptAlias`, `ScriptAliasMatch`).
    pub fn is_script(self) -> bool {
        matches!(self, AliasKind::ScriptAlias | AliasKind::ScriptAliasMatch)
    }
    /// The directive's name.
    pub fn name(self) -> &'static str {
        match self {
            AliasKind::Alias => "Alias",
            AliasKind::ScriptAlias => "ScriptAlias",
            AliasKind::AliasMatch => "AliasMatch",
            AliasKind::ScriptAliasMatch => "ScriptAliasMatch",
        }
    }
    /// The kind of a directive named as the catalogue spells it.
    pub fn of(known: &str) -> Option<AliasKind> {
        Some(match known {
            "Alias" => AliasKind::Alias,
            "ScriptAlias" => AliasKind::ScriptAlias,
            "AliasMatch" => AliasKind::AliasMatch,
            "ScriptAliasMatch" => AliasKind::ScriptAliasMatch,
            _ => return None,
        })
    }
}

/// One entry of mod_alias's list: its directive, its URL side (a prefix, or a regular
/// expression) and its file-system side (a path, or a substitution).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasLine {
    pub kind: AliasKind,
    pub from: String,
    pub to: String,
}

#[derive(Debug)]
pub struct DirSection {
    pub id: SecId,
    /// Number of path components.
    pub depth: usize,
    /// The normalised path (`/a/b`), matched as a pattern when it has wildcards.
    pub path: String,
    pub wild: bool,
}

impl Scope {
    /// Plain and wildcard `<Directory>` sections of `depth` components matching the
    /// directory `prefix` (normalised, `/a/b`), in order. `wildcard` matches a pattern.
    pub fn dirs_at(&self, depth: usize, prefix: &str, wildcard: impl Fn(&str, &str) -> bool) -> Vec<SecId> {
        let path = |p: &u32| self.dirs[*p as usize].path.as_str();
        let from = self.dir_exact.partition_point(|p| path(p) < prefix);
        let to = from + self.dir_exact[from..].partition_point(|p| path(p) == prefix);
        if self.dir_wild.is_empty() {
            // Already in order (equal paths are sorted by position); none: no allocation.
            return self.dir_exact[from..to].iter().map(|&p| self.dirs[p as usize].id).collect();
        }
        let mut pos: Vec<u32> = self.dir_exact[from..to].to_vec();
        for &p in &self.dir_wild {
            let d = &self.dirs[p as usize];
            if d.depth == depth && wildcard(&d.path, prefix) {
                pos.push(p);
            }
        }
        pos.sort_unstable();
        pos.into_iter().map(|p| self.dirs[p as usize].id).collect()
    }

    /// Once every node was added: sorts the lookup of plain `<Directory>` paths.
    fn finish(mut self) -> Scope {
        let dirs = &self.dirs;
        self.dir_exact.sort_unstable_by(|a, b| dirs[*a as usize].path.cmp(&dirs[*b as usize].path).then(a.cmp(b)));
        self
    }

    fn add(&mut self, n: &Node, id: Option<SecId>) {
        // Names as the catalogue spells them (`Node::known`): no lowercased copy per node.
        match (n.kind, id) {
            (NodeKind::Directive, _) => {
                let alias = match n.known() {
                    "DocumentRoot" => {
                        self.document_root = n.arg(0).map(|s| s.to_string());
                        None
                    }
                    "AccessFileName" => {
                        self.access_file_name = Some(n.arg_strings());
                        None
                    }
                    "UserDir" => {
                        self.userdir.push(n.arg_strings());
                        None
                    }
                    "MergeSlashes" => {
                        // (Neither On nor Off: httpd refuses to start; the last valid one is kept.)
                        match n.arg(0) {
                            Some(a) if a.eq_ignore_ascii_case("on") => self.merge_slashes = Some(true),
                            Some(a) if a.eq_ignore_ascii_case("off") => self.merge_slashes = Some(false),
                            _ => {}
                        }
                        None
                    }
                    other => AliasKind::of(other),
                };
                if let (Some(kind), Some(from), Some(to)) = (alias, n.arg(0), n.arg(1)) {
                    self.aliases.push(AliasLine { kind, from: from.to_string(), to: to.to_string() });
                }
            }
            (NodeKind::Section, Some(id)) => {
                let known = n.known();
                match known {
                    "Directory" | "DirectoryMatch" => match section_pattern(n) {
                        Some(p @ (SectionPattern::Plain(dir) | SectionPattern::Wildcard(dir))) => {
                            let comps = components(dir);
                            let wild = matches!(p, SectionPattern::Wildcard(_));
                            let path = format!("/{}", comps.join("/"));
                            let pos = self.dirs.len() as u32;
                            self.dirs.push(DirSection { id, depth: comps.len(), path, wild });
                            if wild {
                                self.dir_wild.push(pos);
                            } else {
                                self.dir_exact.push(pos); // sorted by `finish`
                            }
                        }
                        Some(SectionPattern::Regex(re)) => {
                            self.dir_regex.push((id, Some(re.to_string()), regex_slashes(re)))
                        }
                        // A regex section without its expression (`<Directory ~>`, `<DirectoryMatch>`):
                        // it cannot be evaluated.
                        None if known == "DirectoryMatch" || n.arg(0).is_some() => self.dir_regex.push((id, None, 0)),
                        None => {}
                    },
                    "Files" | "FilesMatch" => self.files.push(id),
                    "Location" | "LocationMatch" => self.locations.push(id),
                    "If" | "ElseIf" | "Else" => self.ifs.push(id),
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// The key of a section in [`Index::by_ptr`]: its address in units of nodes. Distinct nodes
/// never overlap, so keys stay distinct, and unlike addresses (multiples of the node's
/// alignment) they vary in their low bits, which Fx hashing of an integer passes on to the
/// table's bucket index.
fn node_key(n: &Node) -> usize {
    n as *const Node as usize / std::mem::size_of::<Node>()
}

/// Components of a normalised absolute path (`/` has none).
pub fn components(p: &str) -> Vec<&str> {
    p.split('/').filter(|c| !c.is_empty()).collect()
}

/// One server of the configuration: the main server, or a virtual host by its position in
/// [`Index::vhosts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServerId {
    Main,
    Vhost(u32),
}

impl ServerId {
    /// Its scopes in the order httpd merges their sections: the main server's, then the
    /// virtual host's.
    pub fn scopes(self, ix: &Index) -> impl Iterator<Item = &Scope> {
        let own = match self {
            ServerId::Vhost(v) => ix.vhosts.get(v as usize).map(|v| &v.scope),
            ServerId::Main => None,
        };
        std::iter::once(&ix.main).chain(own)
    }
}

/// A `<VirtualHost>` at the top level.
#[derive(Debug)]
pub struct VirtualHost {
    pub id: SecId,
    pub scope: Scope,
    /// Its addresses: IP (None = `*`/`_default_`) and port (0 = any); host names left out.
    pub addrs: Vec<(Option<IpAddr>, u16)>,
    /// One of its addresses is a host name (resolved by httpd at startup, to either family).
    pub names_a_host: bool,
}

impl VirtualHost {
    /// Whether a connection over `local`'s address family may reach this host: one of its
    /// addresses is `*`/`_default_`, an address of that family (an IPv4-mapped IPv6 address
    /// counting as IPv4, as `sockaddr_equal` compares them), or a host name.
    pub fn takes_family_of(&self, local: IpAddr) -> bool {
        self.names_a_host
            || self
                .addrs
                .iter()
                .any(|(ip, _)| ip.is_none_or(|ip| ip.to_canonical().is_ipv4() == local.to_canonical().is_ipv4()))
    }
}

/// Facts of one section that the walk needs ([`Index::allow_override`],
/// [`Index::allow_override_list`], [`Index::files_in`], [`Index::ifs_in`],
/// [`Index::holds_access`]): 28 bytes, its lists kept in the index's shared
/// arrays (a big tree has hundreds of thousands of sections, nearly all without any).
#[derive(Debug, Clone, Copy)]
struct SectionFacts {
    /// The arguments of the last `AllowOverride` in its body: `Index::overrides[allow_override]`
    /// ([`NONE`]: none).
    allow_override: u32,
    /// The arguments of the last `AllowOverrideList` in its body, the same way.
    allow_override_list: u32,
    /// Nested `<Files>`/`<FilesMatch>`, and `<If>`/`<ElseIf>`/`<Else>` sections: ranges of `Index::nested`.
    files: (u32, u32),
    ifs: (u32, u32),
    /// An access directive somewhere in its body (for `<If>` sections).
    holds_access: bool,
}

/// No entry (in [`SectionFacts`]).
const NONE: u32 = u32::MAX;

/// The policy built from a section's body. (The body itself is not kept: a batch over
/// every section would hold a second copy of the configuration.)
#[derive(Debug)]
pub struct Built {
    pub policy: SectionPolicy,
    /// The errors of the compat and the authz layer alone, in their builders' order.
    pub compat_errors: Vec<policy::ConfigError>,
    pub authz_errors: Vec<policy::ConfigError>,
}

/// What a batch over many requests reads of a section's policy without merging it
/// (`access::Walked::before_merge`), and the layer errors the access-rules check reports: kept
/// for every section a batch walks, where the [`Built`] policies of tens of thousands of
/// sections would take tens of megabytes.
#[derive(Debug)]
pub struct PolicyOutline {
    /// Whether the section sets mod_access_compat's layer (its policy's `compat` is Some).
    pub sets_compat: bool,
    /// Whether the section has startup errors (its policy's `errors`).
    pub has_errors: bool,
    /// [`Built::compat_errors`] and [`Built::authz_errors`], when either has some.
    layer_errors: Option<Box<(Vec<policy::ConfigError>, Vec<policy::ConfigError>)>>,
}

impl PolicyOutline {
    fn of(b: &Built) -> PolicyOutline {
        let errors = !b.compat_errors.is_empty() || !b.authz_errors.is_empty();
        PolicyOutline {
            sets_compat: b.policy.compat.is_some(),
            has_errors: !b.policy.errors.is_empty(),
            layer_errors: errors.then(|| Box::new((b.compat_errors.clone(), b.authz_errors.clone()))),
        }
    }
}

pub struct Index {
    /// Per section: its parent section (or [`TOP`]) and its position among the parent's children.
    place: Vec<(u32, u32)>,
    /// Sections by address ([`node_key`]).
    by_ptr: rustc_hash::FxHashMap<usize, SecId>,
    facts: Vec<SectionFacts>,
    /// The lists of [`SectionFacts`].
    overrides: Vec<Box<[String]>>,
    nested: Vec<SecId>,
    pub main: Scope,
    pub vhosts: Vec<VirtualHost>,
    /// Virtual hosts by ServerName/ServerAlias (lowercased, scheme and port removed), in order.
    /// (name, virtual host), sorted: the hosts of a name are a range, in order.
    exact_names: Vec<(Box<str>, u32)>,
    /// Names with wildcards: (virtual host, pattern).
    wild_names: Vec<(u32, String)>,
    /// What cannot be known of virtual hosts whose addresses name hosts.
    pub host_addresses: Vec<String>,
    /// Virtual hosts for a connection's address and port, computed on demand.
    by_address: Mutex<HashMap<(IpAddr, u16), VhostList>>,
    /// [`Index::vhosts_of_family`], IPv6 then IPv4: found on first use.
    by_family: [OnceLock<Option<VhostList>>; 2],
    /// The main server's own `Options` as the directory walk starts from them, made on first
    /// use (a pass over the top level, which holds every virtual host).
    pub(crate) main_symlinks: std::sync::OnceLock<crate::ide::access::symlinks::SymlinkOptions>,
    /// Which modules, methods and providers the server has.
    pub ctx: PolicyCtx,
    /// Alias/ScriptAlias targets (trailing `/` removed) → the first such alias's source, in walk order.
    alias_targets: HashMap<String, (usize, String)>,
    /// The lengths of the keys of `alias_targets`, ascending: the only prefixes [`Index::alias_to`] looks up.
    alias_target_lens: Vec<usize>,
    built: Vec<OnceLock<Arc<Built>>>,
    outlines: Vec<OnceLock<PolicyOutline>>,
    /// Outlines without layer errors already made, by a hash of their section's
    /// [`crate::ide::access::policy_input`], with the section they were made of: a big tree
    /// repeats the same access blocks in thousands of virtual hosts.
    outline_memo: Mutex<rustc_hash::FxHashMap<u64, (SecId, bool, bool)>>,
    /// What mod_setenvif's evaluation reads of the main server's level.
    pub(crate) setenvif_main: OnceLock<crate::ide::setenvif::MainLevel>,
    /// The addresses access rules name (`hover::mentioned_addresses`).
    pub(crate) mentioned_addresses: OnceLock<Vec<(String, IpAddr)>>,
    /// What httpd says of each `<If>`/`<ElseIf>` section whose condition it cannot parse, by
    /// section ([`Index::condition_refusal`]): each condition parsed once, not on every walk.
    condition_refusals: OnceLock<rustc_hash::FxHashMap<SecId, String>>,
    /// Which servers read the .htaccess files of each directory
    /// ([`crate::ide::allow_override::Readers::of`]).
    pub(crate) readers: OnceLock<crate::ide::allow_override::Readers>,
    /// For an .htaccess file: the lines every server reading it skips
    /// (the htaccess-skipped check's), found once for all the checks.
    pub(crate) htaccess_skipped: OnceLock<Vec<crate::ide::nonfatal::Skipped>>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("sections", &self.place.len()).field("vhosts", &self.vhosts.len()).finish()
    }
}

/// A section's id, from its node.
type IdOf<'a> = dyn Fn(&Node) -> Option<SecId> + Sync + 'a;

/// What [`scopes`] finds: the main server's scope, the virtual hosts, their exact and
/// wildcard names, and the messages about addresses httpd would resolve.
type Scopes = (Scope, Vec<VirtualHost>, Vec<(Box<str>, u32)>, Vec<(u32, String)>, Vec<String>);

/// Per section, in `order`: its [`SectionFacts`]; with the `AllowOverride` lists and
/// nested section ids the facts point into.
fn section_facts(order: &[&Node], id_of: &IdOf) -> (Vec<SectionFacts>, Vec<Box<[String]>>, Vec<SecId>) {
    let (mut overrides, mut nested) = (Vec::new(), Vec::new());
    let is_if = |n: &Node| matches!(n.known(), "If" | "ElseIf" | "Else");
    let facts = order
        .iter()
        .map(|n| {
            let mut nested_where = |pick: &dyn Fn(&Node) -> bool| {
                let start = nested.len() as u32;
                nested.extend(n.children.iter().filter(|c| c.is_section() && pick(c)).filter_map(id_of));
                (start, nested.len() as u32)
            };
            let files = nested_where(&|c| matches!(c.known(), "Files" | "FilesMatch"));
            let ifs = nested_where(&is_if);
            let mut last_args = |name: &str| match super::level_directives(&n.children).filter(|c| c.is(name)).last() {
                Some(c) => {
                    overrides.push(c.arg_strings().into_boxed_slice());
                    overrides.len() as u32 - 1
                }
                None => NONE,
            };
            let allow_override = last_args("AllowOverride");
            let allow_override_list = last_args("AllowOverrideList");
            let holds_access = is_if(n) && n.walk().any(|d| crate::ide::access::is_access_directive(d.name()));
            SectionFacts { allow_override, allow_override_list, files, ifs, holds_access }
        })
        .collect();
    (facts, overrides, nested)
}

/// The main server's scope and each virtual host's (in file order), with the host names
/// (exact, lowercase and sorted later; wildcard) and the addresses httpd would resolve.
fn scopes(cfg: &Config, id_of: &IdOf) -> Scopes {
    use rayon::prelude::*;
    let mut main = Scope::default();
    let mut hosts: Vec<&Node> = Vec::new();
    for n in &cfg.nodes {
        if n.is_section() && n.is("VirtualHost") {
            hosts.push(n);
        } else {
            main.add(n, id_of(n));
        }
    }
    // Each virtual host's body on its own: they are many, and read nothing of each other.
    struct Host {
        vhost: VirtualHost,
        names: Vec<String>,
        resolved: Vec<String>,
    }
    let built: Vec<Host> = hosts
        .par_iter()
        .map(|n| {
            let mut scope = Scope::default();
            let mut names = Vec::new();
            for c in &n.children {
                scope.add(c, id_of(c));
                if c.kind == NodeKind::Directive && (c.is("ServerName") || c.is("ServerAlias")) {
                    for name in &c.args() {
                        let name = name.split("://").last().unwrap_or(name).split(':').next().unwrap_or(name);
                        names.push(name.to_ascii_lowercase());
                    }
                }
            }
            let mut addrs = Vec::new();
            let mut resolved = Vec::new();
            for a in &n.args() {
                match crate::ide::access::vhost_address(a) {
                    Ok(x) => addrs.push(x),
                    Err(name) => resolved.push(format!(
                        "<VirtualHost {}> at line {} names the host {name}, which httpd resolves at startup",
                        n.args().join(" "),
                        cfg.line(&n.loc)
                    )),
                }
            }
            let names_a_host = !resolved.is_empty();
            let vhost = VirtualHost { id: id_of(n).unwrap_or(TOP), scope: scope.finish(), addrs, names_a_host };
            Host { vhost, names, resolved }
        })
        .collect();
    let mut vhosts = Vec::with_capacity(built.len());
    let (mut exact_names, mut wild_names, mut host_addresses) = (Vec::new(), Vec::new(), Vec::new());
    for (vid, h) in built.into_iter().enumerate() {
        let vid = vid as u32;
        for name in h.names {
            if name.contains(['*', '?', '[']) {
                wild_names.push((vid, name));
            } else {
                exact_names.push((name.into_boxed_str(), vid));
            }
        }
        host_addresses.extend(h.resolved);
        vhosts.push(h.vhost);
    }
    (main.finish(), vhosts, exact_names, wild_names, host_addresses)
}

/// What the whole configuration tells every policy (modules, registered methods, provider
/// aliases), and each `Alias`/`ScriptAlias` target (without its final `/`) with the first
/// such directive naming it: its position in a walk of the tree, and its URL.
fn server_context(cfg: &Config) -> (PolicyCtx, HashMap<String, (usize, String)>) {
    let mut ctx = PolicyCtx {
        modules: policy::ModuleSet::only(cfg.modules.iter().map(|s| s.to_string())),
        // An .htaccess file is read per request: mod_authz_core's check_config hook (AH01624)
        // never sees it.
        htaccess: cfg.top == super::TopLevel::Htaccess,
        ..PolicyCtx::default()
    };
    let mut alias_targets: HashMap<String, (usize, String)> = HashMap::new();
    // mod_dav registers BIND and SEARCH at startup (dav_init_handler).
    if cfg.modules.contains("dav_module") {
        ctx.registered_methods.extend(["BIND", "SEARCH"].map(String::from));
    }
    for (i, n) in cfg.walk().enumerate() {
        if n.is_section() && (n.is("Limit") || n.is("LimitExcept")) {
            ctx.registered_methods.extend(n.args().map(str::to_string));
        }
        if n.is("RegisterHttpMethod") {
            ctx.registered_methods.extend(n.args().map(str::to_string));
        }
        // mod_actions registers the method of `Script METHOD cgi` as it reads the line.
        if n.is("Script") && cfg.modules.contains("actions_module") {
            ctx.registered_methods.extend(n.args().first().map(str::to_string));
        }
        if n.is_section() && n.is("AuthzProviderAlias") {
            if let Some(a) = n.args().get(1) {
                ctx.extra_authz_providers.insert(a.to_string());
            }
        }
        if n.is_section() && n.is("AuthnProviderAlias") {
            if let Some(a) = n.args().get(1) {
                ctx.extra_authn_providers.insert(a.to_string());
            }
        }
        if n.is("Alias") || n.is("ScriptAlias") {
            if let (Some(from), Some(to)) = (n.args().first(), n.args().get(1)) {
                alias_targets.entry(to.trim_end_matches('/').to_string()).or_insert((i, from.to_string()));
            }
        }
    }
    (ctx, alias_targets)
}

impl Index {
    pub fn build(cfg: &Config) -> Index {
        // Number the sections, depth first (iteratively), remembering where each sits.
        let mut place = Vec::new();
        let mut by_ptr = rustc_hash::FxHashMap::default();
        // Only sections go on the stack: directives, most of the nodes, are never numbered.
        fn sections(nodes: &[Node], parent: u32) -> impl Iterator<Item = (&Node, u32, u32)> {
            nodes.iter().enumerate().rev().filter(|(_, n)| n.is_section()).map(move |(i, n)| (n, parent, i as u32))
        }
        let mut stack: Vec<(&Node, u32, u32)> = sections(&cfg.nodes, TOP).collect();
        let mut order: Vec<&Node> = Vec::new();
        while let Some((n, parent, pos)) = stack.pop() {
            let id = place.len() as u32;
            place.push((parent, pos));
            by_ptr.insert(node_key(n), id);
            order.push(n);
            stack.extend(sections(&n.children, id));
        }
        // A directive has no number: not looked up.
        let id_of = |n: &Node| if n.is_section() { by_ptr.get(&node_key(n)).copied() } else { None };
        // The sections' facts, the servers' scopes and the server-wide context read the tree
        // independently: built side by side (the index is the one phase of `check` that
        // would otherwise leave a core idle).
        let (
            (facts, overrides, nested),
            ((main, vhosts, mut exact_names, wild_names, host_addresses), (ctx, alias_targets)),
        ) = rayon::join(
            || section_facts(&order, &id_of),
            || rayon::join(|| scopes(cfg, &id_of), || server_context(cfg)),
        );
        drop(order);
        let built = (0..place.len()).map(|_| OnceLock::new()).collect();
        let outlines = (0..place.len()).map(|_| OnceLock::new()).collect();
        let mut alias_target_lens: Vec<usize> = alias_targets.keys().map(String::len).collect();
        alias_target_lens.sort_unstable();
        alias_target_lens.dedup();
        Index {
            place,
            by_ptr,
            facts,
            overrides,
            nested,
            main,
            vhosts,
            exact_names: {
                exact_names.sort_unstable();
                exact_names.dedup();
                exact_names
            },
            wild_names,
            host_addresses,
            by_address: Mutex::new(HashMap::new()),
            by_family: Default::default(),
            main_symlinks: std::sync::OnceLock::new(),
            ctx,
            alias_targets,
            alias_target_lens,
            built,
            outlines,
            outline_memo: Mutex::default(),
            setenvif_main: OnceLock::new(),
            condition_refusals: OnceLock::new(),
            mentioned_addresses: OnceLock::new(),
            readers: OnceLock::new(),
            htaccess_skipped: OnceLock::new(),
        }
    }

    /// The directives (lowercase) whose nodes the index reads besides sections:
    /// editing one of them in place means building the index again.
    pub(crate) const READS: &'static [&'static str] = &[
        "allowoverride",
        "documentroot",
        "accessfilename",
        "alias",
        "scriptalias",
        "aliasmatch",
        "scriptaliasmatch",
        "servername",
        "serveralias",
        "registerhttpmethod",
    ];

    /// After directives not in [`Index::READS`] were replaced in place, as many as
    /// there were, none inside an `<If>`/`<ElseIf>`/`<Else>` section (whose facts
    /// say whether they hold access directives), and no section moved (the tree's
    /// sections are where they were): the structure still holds; what was computed
    /// from directives' contents or positions is computed again on next use
    /// (section policies carry source positions, which an edit moves). The caller
    /// checks those conditions (`ide::incremental`).
    pub(crate) fn directives_edited(&mut self, lines_moved: bool) -> bool {
        if lines_moved && !self.host_addresses.is_empty() {
            return false; // their messages name lines
        }
        for b in &mut self.built {
            *b = OnceLock::new();
        }
        for o in &mut self.outlines {
            *o = OnceLock::new();
        }
        self.outline_memo = Mutex::default();
        self.setenvif_main = OnceLock::new();
        self.mentioned_addresses = OnceLock::new();
        self.main_symlinks = OnceLock::new();
        self.condition_refusals = OnceLock::new();
        // (A `Listen` line decides whether the main server reads anything.)
        self.readers = OnceLock::new();
        self.htaccess_skipped = OnceLock::new();
        true
    }

    /// The arguments of the last `AllowOverride` in the section's body.
    pub fn allow_override(&self, id: SecId) -> Option<&[String]> {
        let i = self.facts[id as usize].allow_override;
        (i != NONE).then(|| &*self.overrides[i as usize])
    }

    /// The arguments of the last `AllowOverrideList` in the section's body.
    pub fn allow_override_list(&self, id: SecId) -> Option<&[String]> {
        let i = self.facts[id as usize].allow_override_list;
        (i != NONE).then(|| &*self.overrides[i as usize])
    }

    /// The `<Files>`/`<FilesMatch>` sections directly in the section's body, in order.
    pub fn files_in(&self, id: SecId) -> &[SecId] {
        let (from, to) = self.facts[id as usize].files;
        &self.nested[from as usize..to as usize]
    }

    /// The `<If>`/`<ElseIf>`/`<Else>` sections directly in the section's body, in order.
    pub fn ifs_in(&self, id: SecId) -> &[SecId] {
        let (from, to) = self.facts[id as usize].ifs;
        &self.nested[from as usize..to as usize]
    }

    /// What httpd says of the condition of `<If>`/`<ElseIf>` section `id` when it cannot parse it
    /// (the expr-syntax check's `refusal`); every such section of `cfg` is
    /// parsed once, when first asked.
    pub fn condition_refusal(&self, cfg: &Config, id: SecId) -> Option<&str> {
        let all = self.condition_refusals.get_or_init(|| {
            (0..self.len() as SecId)
                .filter_map(|s| {
                    let n = self.node(cfg, s);
                    (n.is("If") || n.is("ElseIf"))
                        .then(|| crate::ide::diagnostics::expr_syntax::refusal(cfg, n).map(|m| (s, m)))
                        .flatten()
                })
                .collect()
        });
        all.get(&id).map(String::as_str)
    }

    /// Whether an `<If>`/`<ElseIf>`/`<Else>` section holds an access directive at any depth.
    pub fn holds_access(&self, id: SecId) -> bool {
        self.facts[id as usize].holds_access
    }

    /// The section's id, when `n` is a section of this configuration.
    pub fn id(&self, n: &Node) -> Option<SecId> {
        self.by_ptr.get(&node_key(n)).copied()
    }

    /// The node of a section.
    pub fn node<'c>(&self, cfg: &'c Config, id: SecId) -> &'c Node {
        let mut cur = id;
        let mut path = [0u32; 64];
        let mut len = 0;
        loop {
            let (parent, pos) = self.place[cur as usize];
            if len == path.len() {
                // Deeper than any real configuration: take the allocating way.
                return self.chain(cfg, id).last().copied().unwrap_or(&cfg.nodes[0]);
            }
            path[len] = pos;
            len += 1;
            if parent == TOP {
                break;
            }
            cur = parent;
        }
        let mut level: &[Node] = &cfg.nodes;
        let mut node = &cfg.nodes[0];
        for &pos in path[..len].iter().rev() {
            node = &level[pos as usize];
            level = &node.children;
        }
        node
    }

    /// The section whose body holds section `id` (None at the top level).
    pub fn parent(&self, id: SecId) -> Option<SecId> {
        let (parent, _) = *self.place.get(id as usize)?;
        (parent != TOP).then_some(parent)
    }

    /// A top-level section's position in `cfg.nodes`.
    pub fn top_position(&self, id: SecId) -> Option<usize> {
        let (parent, pos) = *self.place.get(id as usize)?;
        (parent == TOP).then_some(pos as usize)
    }

    /// Number of sections.
    pub fn len(&self) -> usize {
        self.place.len()
    }

    pub fn is_empty(&self) -> bool {
        self.place.is_empty()
    }

    /// The section and the sections enclosing it, outermost first.
    pub fn chain<'c>(&self, cfg: &'c Config, id: SecId) -> Vec<&'c Node> {
        let mut path = Vec::new();
        let mut cur = id;
        loop {
            let (parent, pos) = self.place[cur as usize];
            path.push(pos);
            if parent == TOP {
                break;
            }
            cur = parent;
        }
        let mut level: &[Node] = &cfg.nodes;
        let mut chain = Vec::with_capacity(path.len());
        for pos in path.into_iter().rev() {
            let node = &level[pos as usize];
            chain.push(node);
            level = &node.children;
        }
        chain
    }

    /// [`Index::built`] if something asked for it already (else `None`: nothing is built).
    pub fn built_if_made(&self, id: SecId) -> Option<&Arc<Built>> {
        self.built.get(id as usize)?.get()
    }

    /// The errors of the section's compat and authz layers ([`Built::compat_errors`],
    /// [`Built::authz_errors`]) if something built its policy already (else `None`: nothing is built).
    pub fn layer_errors_if_made(&self, id: SecId) -> Option<(&[policy::ConfigError], &[policy::ConfigError])> {
        if let Some(b) = self.built.get(id as usize)?.get() {
            return Some((&b.compat_errors, &b.authz_errors));
        }
        let o = self.outlines.get(id as usize)?.get()?;
        Some(o.layer_errors.as_deref().map_or((&[], &[]), |(c, a)| (c, a)))
    }

    /// The section's policy (built once, with the server's [`PolicyCtx`]).
    pub fn built(&self, cfg: &Config, id: SecId) -> Arc<Built> {
        self.built[id as usize].get_or_init(|| Arc::new(self.build_policy(cfg, id))).clone()
    }

    /// What a batch reads of the section's policy ([`PolicyOutline`]), kept without the policy.
    pub fn outline(&self, cfg: &Config, id: SecId) -> &PolicyOutline {
        self.outlines[id as usize].get_or_init(|| match self.built[id as usize].get() {
            Some(b) => PolicyOutline::of(b),
            None => self.outline_of_input(cfg, id),
        })
    }

    /// The outline of a section whose policy is not built: that of an earlier section that
    /// reads the same (a policy is made of its body's names and words; where they are written
    /// shows only in errors, and outlines with errors are not shared), else built.
    fn outline_of_input(&self, cfg: &Config, id: SecId) -> PolicyOutline {
        use std::hash::{Hash, Hasher};
        let node = self.node(cfg, id);
        let mut h = rustc_hash::FxHasher::default();
        for (depth, c) in crate::ide::access::policy_input(node) {
            (depth, c.kind == NodeKind::Section, c.text.block()).hash(&mut h);
        }
        let key = h.finish();
        let same = |a: &Node, b: &Node| {
            let (mut x, mut y) = (crate::ide::access::policy_input(a), crate::ide::access::policy_input(b));
            loop {
                match (x.next(), y.next()) {
                    (None, None) => return true,
                    (Some((dx, cx)), Some((dy, cy)))
                        if dx == dy && cx.kind == cy.kind && cx.text.block() == cy.text.block() => {}
                    _ => return false,
                }
            }
        };
        let seen = self.outline_memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key).copied();
        if let Some((rep, sets_compat, has_errors)) = seen {
            if same(self.node(cfg, rep), node) {
                return PolicyOutline { sets_compat, has_errors, layer_errors: None };
            }
        }
        let outline = PolicyOutline::of(&self.build_policy(cfg, id));
        if outline.layer_errors.is_none() {
            self.outline_memo.lock().unwrap_or_else(|e| e.into_inner()).entry(key).or_insert((
                id,
                outline.sets_compat,
                outline.has_errors,
            ));
        }
        outline
    }

    fn build_policy(&self, cfg: &Config, id: SecId) -> Built {
        let items = crate::ide::access::policy_items(cfg, self.node(cfg, id));
        let (policy, compat_errors, authz_errors) = policy::section_from_items_with_layer_errors(&items, &self.ctx);
        Built { policy, compat_errors, authz_errors }
    }

    /// The first virtual host in `set` (ascending; None = all) answering to `host`.
    pub fn vhost_by_name(&self, host: &str, set: Option<&[u32]>) -> Option<u32> {
        let host = host_name(host);
        let member = |v: u32| set.is_none_or(|s| s.binary_search(&v).is_ok());
        let from = self.exact_names.partition_point(|(n, _)| **n < *host);
        let exact =
            self.exact_names[from..].iter().take_while(|(n, _)| **n == *host).map(|&(_, v)| v).find(|&v| member(v));
        let wild = self
            .wild_names
            .iter()
            .filter(|(v, _)| member(*v) && exact.is_none_or(|e| *v < e))
            .find(|(_, p)| crate::ide::access::wildcard_match(p, &host, false))
            .map(|(v, _)| *v);
        match (exact, wild) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The virtual hosts that can serve a connection to `local`:`port` (ascending), see
    /// `access::vhosts_for_address`.
    pub fn vhosts_for_address(&self, local: IpAddr, port: u16) -> Arc<Vec<u32>> {
        let mut cache = self.by_address.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry((local, port))
            .or_insert_with(|| {
                let addrs: Vec<&[(Option<IpAddr>, u16)]> = self.vhosts.iter().map(|v| v.addrs.as_slice()).collect();
                Arc::new(vhosts_serving(&addrs, local, port))
            })
            .clone()
    }

    /// The virtual hosts that can take a connection of `local`'s address family
    /// ([`VirtualHost::takes_family_of`], ascending); None when every one can. Found once per
    /// family: a batch asks for each of its requests.
    pub fn vhosts_of_family(&self, local: IpAddr) -> Option<VhostList> {
        let family = usize::from(local.to_canonical().is_ipv4());
        self.by_family[family]
            .get_or_init(|| {
                let takes: Vec<u32> =
                    (0..self.vhosts.len() as u32).filter(|&v| self.vhosts[v as usize].takes_family_of(local)).collect();
                (takes.len() < self.vhosts.len()).then(|| Arc::new(takes))
            })
            .clone()
    }

    /// The source of the first Alias/ScriptAlias (in file order) whose target is a prefix
    /// of `path`, with the rest of `path`.
    pub fn alias_to<'p>(&self, path: &'p str) -> Option<(&str, &'p str)> {
        let mut best: Option<(usize, &str, &'p str)> = None;
        // Only prefixes as long as some target can match (a batch asks for every section).
        let cuts = self.alias_target_lens.iter().copied().take_while(|&l| l <= path.len());
        for cut in cuts.filter(|&i| path.is_char_boundary(i)) {
            if let Some((order, from)) = self.alias_targets.get(&path[..cut]) {
                if best.is_none_or(|(o, _, _)| *order < o) {
                    best = Some((*order, from.as_str(), &path[cut..]));
                }
            }
        }
        best.map(|(_, from, rest)| (from, rest))
    }
}

/// The virtual hosts (positions in `addrs`, each host's `<VirtualHost>` addresses as
/// [`crate::ide::access::vhost_address`] reads them) that can serve a connection to
/// `local`:`port`, ascending: httpd's `server/vhost.c` (`ap_update_vhost_given_ip`,
/// `find_ipaddr`, `find_default_server`) takes those set for exactly that address and port,
/// else for that address with any port, else the `*`/`_default_` ones for that port, else
/// those for any port. None: the main server answers.
pub fn vhosts_serving(addrs: &[&[(Option<IpAddr>, u16)]], local: IpAddr, port: u16) -> Vec<u32> {
    let same_ip = |ip: &Option<IpAddr>| ip.is_some_and(|ip| policy::addr::sockaddr_equal(ip, local));
    let in_tier = |tier: usize, (ip, p): &(Option<IpAddr>, u16)| match tier {
        0 => same_ip(ip) && *p == port,
        1 => same_ip(ip) && *p == 0,
        2 => ip.is_none() && *p == port,
        _ => ip.is_none() && *p == 0,
    };
    for tier in 0..4 {
        let set: Vec<u32> =
            (0..addrs.len() as u32).filter(|&v| addrs[v as usize].iter().any(|a| in_tier(tier, a))).collect();
        if !set.is_empty() {
            return set;
        }
    }
    Vec::new()
}

/// `path → id` of a configuration's files.
pub fn file_ids(cfg: &Config) -> HashMap<Arc<Path>, FileId> {
    let mut m = HashMap::with_capacity(cfg.files.len());
    for (i, f) in cfg.files.iter().enumerate() {
        m.entry(f.path.clone()).or_insert(i);
    }
    m
}

/// How httpd ranks a regex `<Directory>` section among the others (`server/core.c`:
/// `dirsection` sets `d_components` to `ap_count_dirs` of the expression as written, 0 for
/// exactly `/`; `reorder_sorter` sorts regex sections by it, then in configuration order): the
/// number of `/` in it.
pub fn regex_slashes(re: &str) -> usize {
    if re == "/" {
        0
    } else {
        re.bytes().filter(|&b| b == b'/').count()
    }
}

/// The name httpd matches against ServerName and ServerAlias for a Host header
/// (`server/vhost.c: fix_hostname`): without its port, lowercased, one trailing dot dropped;
/// an IPv6 literal without its brackets.
fn host_name(header: &str) -> String {
    let host = match header.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => match header.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
            _ => header,
        },
    };
    let host = host.to_ascii_lowercase();
    match host.strip_suffix('.') {
        Some(h) if !h.is_empty() => h.to_string(),
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::config::{load, Config};
    use crate::ide::diagnostics::tests::Fixture;
    use std::path::Path;

    #[test]
    fn host_headers_are_read_as_httpd_fixes_them() {
        for (header, name) in [
            ("WWW.Example.Test", "www.example.test"),
            ("www.example.test.:8080", "www.example.test"),
            ("[::1]:80", "::1"),
            ("[FE80::1]", "fe80::1"),
            (".", "."),
        ] {
            assert_eq!(super::host_name(header), name, "{header}");
        }
    }

    /// The spellings the index, the walk, completion and migrate match `Node::known`
    /// against: a name the catalogue spelled differently would never match.
    #[test]
    fn names_matched_through_known_are_the_catalogue_spellings() {
        for name in [
            "DocumentRoot",
            "AccessFileName",
            "Alias",
            "ScriptAlias",
            "AliasMatch",
            "ScriptAliasMatch",
            "Directory",
            "DirectoryMatch",
            "Files",
            "FilesMatch",
            "Location",
            "LocationMatch",
            "If",
            "ElseIf",
            "Else",
            "Limit",
            "LimitExcept",
            "RequireAll",
            "RequireAny",
            "RequireNone",
            "SetEnv",
            "SetEnvIf",
            "SetEnvIfNoCase",
            "BrowserMatch",
            "BrowserMatchNoCase",
            "SetEnvIfExpr",
        ] {
            assert_eq!(crate::ide::catalogue::directive(name).map(|d| d.name), Some(name));
        }
        let c = cfg("<directorymatch ^/x>\n</directorymatch>\nfrobnicate on\n");
        assert_eq!(c.nodes[0].known(), "DirectoryMatch");
        assert_eq!(c.nodes[1].known(), "");
    }

    fn cfg(text: &str) -> Config {
        let fx = Fixture::parse(&format!("//- /etc/httpd/httpd.conf\n{text}"));
        load(Path::new("/etc/httpd/httpd.conf"), &fx)
    }

    /// Sections that read alike share one outline; each is the one its own policy gives,
    /// and a section whose layers have errors keeps its own (its errors name its lines).
    #[test]
    fn outlines_shared_by_alike_bodies_are_their_own() {
        let body = "Order deny,allow\nDeny from all\nAllow from 10.1\n<Limit GET>\nRequire all granted\n</Limit>\nAuthType Basic\n";
        let bad = "Require ip 300.1.1.1\n";
        let text = format!(
            "<Directory /a>\n{body}</Directory>\n<Location /b>\n{body}</Location>\n<Directory /c>\n{bad}</Directory>\n<Directory /d>\n{bad}</Directory>\n<Directory /e>\nOrder deny,allow\nDeny from all\n</Directory>\n"
        );
        let c = cfg(&text);
        let ix = c.index();
        for id in 0..ix.len() as u32 {
            let own = super::PolicyOutline::of(&ix.build_policy(&c, id));
            let got = ix.outline(&c, id);
            assert_eq!((got.sets_compat, got.has_errors), (own.sets_compat, own.has_errors), "section {id}");
            assert_eq!(got.layer_errors.is_some(), own.layer_errors.is_some(), "section {id}");
            if let (Some(g), Some(o)) = (&got.layer_errors, &own.layer_errors) {
                assert_eq!(g.1.first().map(|e| e.loc.line), o.1.first().map(|e| e.loc.line), "section {id}");
            }
        }
        // /a's outline was made (section 0; 1 is its <Limit>), /b's (2) taken from it; /c and
        // /d (4, 5: errors) are not shared.
        let memo = ix.outline_memo.lock().unwrap();
        assert!(ix.outline(&c, 0).layer_errors.is_none() && ix.outline(&c, 4).layer_errors.is_some());
        assert!(memo.values().any(|&(rep, ..)| rep == 0));
        assert!(!memo.values().any(|&(rep, ..)| rep == 2 || rep == 4 || rep == 5));
    }

    /// The first line of each section `dirs_at` gives.
    fn dirs_at(c: &Config, depth: usize, prefix: &str) -> Vec<u32> {
        let ix = c.index();
        let found = ix.main.dirs_at(depth, prefix, |p, t| crate::ide::access::wildcard_match(p, t, true));
        found.into_iter().map(|id| c.line(&ix.node(c, id).loc)).collect()
    }

    #[test]
    fn plain_and_wildcard_directories_come_in_file_order() {
        let c = cfg("<Directory /srv/a>\n</Directory>\n<Directory /srv/*>\n</Directory>\n<Directory /srv/b>\n</Directory>\n<Directory \"/srv/a/\">\n</Directory>\n<Directory /srv//a>\n</Directory>\n<Directory /srv>\n</Directory>\n");
        assert_eq!(dirs_at(&c, 2, "/srv/a"), [1, 3, 7, 9]);
        assert_eq!(dirs_at(&c, 2, "/srv/b"), [3, 5]);
        assert_eq!(dirs_at(&c, 2, "/srv/c"), [3]);
        assert_eq!(dirs_at(&c, 1, "/srv"), [11]);
        assert_eq!(dirs_at(&c, 2, "/srv/aa"), [3]);
        assert!(dirs_at(&c, 0, "/").is_empty());
    }

    #[test]
    fn a_host_name_picks_the_first_virtual_host_that_has_it() {
        let c = cfg("<VirtualHost *:80>\n  ServerName b.example\n</VirtualHost>\n<VirtualHost *:80>\n  ServerName a.example\n  ServerAlias b.example B.Example:8080 http://c.example\n</VirtualHost>\n<VirtualHost *:80>\n  ServerAlias *.example\n</VirtualHost>\n<VirtualHost *:80>\n  ServerName a.example\n</VirtualHost>\n");
        let ix = c.index();
        assert_eq!(ix.vhost_by_name("a.example", None), Some(1));
        assert_eq!(ix.vhost_by_name("B.EXAMPLE:443", None), Some(0));
        assert_eq!(ix.vhost_by_name("b.example", Some(&[1, 3])), Some(1));
        assert_eq!(ix.vhost_by_name("c.example", None), Some(1));
        // A wildcard name of an earlier host wins over an exact name of a later one.
        assert_eq!(ix.vhost_by_name("a.example", Some(&[2, 3])), Some(2));
        assert_eq!(ix.vhost_by_name("z.example", None), Some(2));
        assert_eq!(ix.vhost_by_name("example", None), None);
    }

    #[test]
    fn section_facts_list_nested_sections_and_the_last_allow_override() {
        let c = cfg("<Directory /srv>\n  AllowOverride None\n  <Files a>\n  </Files>\n  <If \"true\">\n    Require all denied\n  </If>\n  <FilesMatch b>\n  </FilesMatch>\n  AllowOverride AuthConfig Limit\n</Directory>\n<Location />\n</Location>\n");
        let ix = c.index();
        let line = |id: u32| c.line(&ix.node(&c, id).loc);
        assert_eq!(ix.allow_override(0), Some(&["AuthConfig".to_string(), "Limit".to_string()][..]));
        assert_eq!(ix.files_in(0).iter().map(|&i| line(i)).collect::<Vec<_>>(), [3, 8]);
        assert_eq!(ix.ifs_in(0).iter().map(|&i| line(i)).collect::<Vec<_>>(), [5]);
        assert!(ix.holds_access(ix.ifs_in(0)[0]));
        let location = (0..ix.len() as u32).find(|&i| line(i) == 12).unwrap();
        assert_eq!(ix.allow_override(location), None);
        assert!(ix.files_in(location).is_empty() && ix.ifs_in(location).is_empty());
    }
}
