//! The precedence trap: a section's `Require` lines never take effect because old-style rules
//! written elsewhere answer every request they could decide first: mod_access_compat runs first
//! and refuses it (under `Satisfy All`), or lets it through (under `Satisfy Any`, Require is then
//! not consulted). Lines inside `<Limit>`/`<LimitExcept>` decide only the methods named there.
//! Shared by the `defeated-require` check, which runs it over every section in one batch, and the
//! hover, which states it under the table.

use crate::ide::access::{self, BeforeMerge, FsView};
use crate::ide::allow_override::{in_force, Readers};
use crate::ide::config::{Config, FileId, Node, SecId, ServerId};
use crate::ide::hover::{hover_env_inputs, representative_clients, set_client, spec};
use crate::ide::policy::{self, Layer};
use crate::ide::section_urls::{directory_url, is_container, section_urls, url_for};
use apache_syntax::TextRange;
use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A trap in a section: its Require lines never take effect because old-style rules written
/// elsewhere answer every request they could decide first (refuse it, or let it through under
/// `Satisfy Any`).
#[derive(Debug, Clone)]
pub struct Defeated {
    /// The lines reported: the first Require of the section's own body and of each of its
    /// `<Limit>`/`<LimitExcept>` blocks holding some, in order (every one of its Require lines
    /// is without effect; one finding per block).
    pub lines: Vec<DefeatedLine>,
    /// The rule deciding first: the last refusal found, else the last rule letting a request
    /// through.
    pub decided_by: String,
    pub deciding: Option<policy::Loc>,
    /// Where old rules under `Satisfy Any` let requests through before Require is consulted
    /// (httpd's `ap_process_request_internal`: the access checker's OK is enough): the rule, and
    /// whether others are refused (then `decided_by` is a refusal).
    pub let_through: Option<LetThrough>,
}

/// A rule, and where it is written.
type Rule = (String, Option<policy::Loc>);

/// Requests the old rules let through under `Satisfy Any` ([`Defeated::let_through`]).
#[derive(Debug, Clone)]
pub struct LetThrough {
    pub rule: String,
    pub loc: Option<policy::Loc>,
    /// Others are refused first ([`Defeated::decided_by`]).
    pub with_refusals: bool,
}

impl Defeated {
    /// This finding joined with the same section's at another URL: refusals in one and requests
    /// let through in the other make both said; a line's methods are said if either says them.
    fn absorb(&mut self, other: Defeated) {
        let (refused, through) = self.rules();
        let (other_refused, other_through) = other.rules();
        let refused = refused.or(other_refused);
        let through = through.or(other_through);
        if let Some((rule, loc)) = refused.clone().or_else(|| through.clone()) {
            (self.decided_by, self.deciding) = (rule, loc);
        }
        let with_refusals = refused.is_some();
        self.let_through = through.map(|(rule, loc)| LetThrough { rule, loc, with_refusals });
        for (mine, theirs) in self.lines.iter_mut().zip(other.lines) {
            if mine.methods.is_none() {
                mine.methods = theirs.methods;
            }
        }
    }

    /// The rule refusing requests and the rule letting requests through, where the finding has them.
    fn rules(&self) -> (Option<Rule>, Option<Rule>) {
        let decided = (self.decided_by.clone(), self.deciding.clone());
        match &self.let_through {
            None => (Some(decided), None),
            Some(l) => (l.with_refusals.then_some(decided), Some((l.rule.clone(), l.loc.clone()))),
        }
    }

    /// What the finding says of `line`: "`Require …` has no effect here: …"; `at` says where a
    /// rule is written (after its name).
    pub fn sentence(&self, line: &DefeatedLine, at: impl Fn(Option<&policy::Loc>) -> String) -> String {
        let (limited, what) = line.refuses_what();
        let head = format!("`{}` has no effect here: {limited}", line.text);
        match &self.let_through {
            None => format!("{head}`{}`{} refuses {what} first", self.decided_by, at(self.deciding.as_ref())),
            Some(l) if !l.with_refusals => {
                format!("{head}`{}`{} lets {what} through first", l.rule, at(l.loc.as_ref()))
            }
            Some(l) => format!(
                "{head}the old rules decide {what} first: `{}`{} refuses some, `{}`{} lets the others through",
                self.decided_by,
                at(self.deciding.as_ref()),
                l.rule,
                at(l.loc.as_ref())
            ),
        }
    }
}

/// One Require line of a [`Defeated`] section.
#[derive(Debug, Clone)]
pub struct DefeatedLine {
    pub at: (FileId, TextRange),
    /// `Require …` as written.
    pub text: String,
    /// The methods it applies to, said when its `<Limit>`/`<LimitExcept>` narrows them and some
    /// other method passes the old rules (in words: "POST", "methods other than GET,
    /// HEAD"); None: the old rules answer every request.
    pub methods: Option<String>,
}

impl DefeatedLine {
    /// What refuses first, said of the requests the line decides: ("", "every request"), or for
    /// a line limited to some methods ("it applies only to POST, and ", "every such request").
    pub fn refuses_what(&self) -> (String, &'static str) {
        match &self.methods {
            None => (String::new(), "every request"),
            Some(m) => (format!("it applies only to {m}, and "), "every such request"),
        }
    }
}

/// Whether a section's body holds a Require line, directly or inside its `<Limit>`/`<LimitExcept>`
/// blocks (those are not sections of their own for the trap: their lines are the section's,
/// limited to some methods).
pub fn holds_require(section: &Node) -> bool {
    !require_lines(&section.children).is_empty()
}

/// The first Require line of a body and of each of its `<Limit>`/`<LimitExcept>` blocks (nested
/// ones too) holding one, in order.
fn require_lines(nodes: &[Node]) -> Vec<&Node> {
    fn collect<'a>(nodes: &'a [Node], out: &mut Vec<&'a Node>) {
        out.extend(nodes.iter().find(|c| c.is("Require") && !c.is_section()));
        for c in nodes.iter().filter(|c| c.is_section() && is_limit(c)) {
            collect(&c.children, out);
        }
    }
    let mut out = Vec::new();
    collect(nodes, &mut out);
    out.sort_by_key(|n| n.loc.range.start());
    out
}

fn is_limit(n: &Node) -> bool {
    n.is("Limit") || n.is("LimitExcept")
}

/// A method mask in words: "POST", "GET, HEAD, POST", "methods other than GET, HEAD" (HEAD
/// has GET's method number: a mask holds both or neither).
fn methods_phrase(mask: &policy::MethodMask) -> String {
    let said = mask.to_string();
    let names = |list: &str| {
        let words = list.split(' ').flat_map(|m| if m == "GET" { vec!["GET", "HEAD"] } else { vec![m] });
        words.collect::<Vec<_>>().join(", ")
    };
    match said.strip_prefix("all methods except ") {
        Some(rest) => format!("methods other than {}", names(rest)),
        None => names(&said),
    }
}

/// Checks one section for the precedence trap.
pub fn defeated_require(cfg: &Config, chain: &[&Node]) -> Option<Defeated> {
    defeated_require_among(cfg, chain, &DefeatedBatch::new(&[cfg], htaccess_view(cfg)), &mut RecentWalks::default())
}

/// The file system as the precedence check reads a configuration's .htaccess files: the
/// editor's text of those it has open over the disk ([`crate::ide::config::HtaccessFound::fs_view`]).
pub fn htaccess_view(cfg: &Config) -> FsView {
    cfg.htaccess_found().map_or_else(FsView::cached, |f| f.fs_view())
}

/// What a batch of [`defeated_require`] checks shares: the clients to try
/// ([`representative_clients`]), the file system view, and the host checks already made.
pub struct DefeatedBatch {
    clients: Vec<(String, IpAddr)>,
    fs: FsView,
    /// mod_access_compat's refusal of each client whatever the method ([`access::host_check_refusal_by`]
    /// for each of [`trap_methods`]), by the section whose Order/Allow/Deny is in effect: many
    /// sections inherit the same rules.
    host_checks: Mutex<HashMap<SecId, Arc<[Option<policy::Deciding>]>>>,
    /// The main server's sections (outside every `<VirtualHost>`), nested ones included, made
    /// when first asked: a big tree's top level is mostly virtual hosts.
    main_sections: std::sync::OnceLock<Vec<SecId>>,
    /// Each server's [`Reopener`]s, by its `<VirtualHost>` (None: the main server), made when
    /// first asked: every section of a server checked for the trap looks at the same ones.
    reopeners: Mutex<HashMap<Option<SecId>, Arc<[Reopener]>>>,
    /// The directories of the .htaccess files the caller found ([`Config::htaccess_found`])
    /// that hold old-style lines, read when first asked.
    htaccess_compat: std::sync::OnceLock<Vec<String>>,
    /// Only the .htaccess files below this directory are read for `htaccess_compat` (a batch
    /// for one .htaccess file's trap: the others cannot re-open below it).
    htaccess_under: Option<std::path::PathBuf>,
}

/// A section whose own Order/Allow/Deny let some representative client through, where a
/// section of the same server whose trap holds at its own URL may still decide below it.
struct Reopener {
    id: SecId,
    /// Its URLs ([`section_urls`]).
    urls: Vec<(String, Option<String>)>,
    /// For a `<Files>` section, the file names it matches ([`access::witnesses::files_witnesses`]),
    /// tried in the directory of the section asking.
    file_names: Vec<String>,
    /// The host those names are tried with: its virtual host's (None: the asking section's).
    files_host: Option<Option<String>>,
    /// Plain (no pattern): with no URL, no request meets it.
    plain: bool,
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
            reopeners: Default::default(),
            htaccess_compat: Default::default(),
            htaccess_under: None,
        }
    }

    /// This batch for the trap of one .htaccess file in `dir` ([`defeated_htaccess`]): only the
    /// .htaccess files below it are read.
    pub fn under(self, dir: &Path) -> DefeatedBatch {
        DefeatedBatch { htaccess_under: Some(dir.to_path_buf()), ..self }
    }

    /// The clients tried where `compat` is the Order/Allow/Deny in effect: the batch's, then an
    /// address of each network the rules name that those do not cover (the rules may let exactly
    /// those through: the batch's clients are the first addresses of the whole configuration).
    /// None when the rules name more than [`MAX_RULE_CLIENTS`] others (no claim then).
    fn clients_for(&self, compat: Option<&policy::CompatConfig>) -> Option<Vec<IpAddr>> {
        let mut out: Vec<IpAddr> = self.clients.iter().map(|(_, ip)| *ip).collect();
        let known = out.len();
        let named = compat.into_iter().flat_map(|c| c.allows.iter().chain(&c.denies)).filter_map(|e| match &e.spec {
            policy::HostSpec::Ip(s) => s.to_ipnet().map(|n| n.network()),
            _ => None,
        });
        for ip in named {
            if !out.contains(&ip) {
                if out.len() - known == MAX_RULE_CLIENTS {
                    return None;
                }
                out.push(ip);
            }
        }
        Some(out)
    }

    /// The host check's answer to each client of [`DefeatedBatch::clients_for`], in order, where
    /// section `source`'s Order/Allow/Deny are in effect (one more, unrefused, when there are too
    /// many to try). The host check of a GET depends on those rules and the client only (not on
    /// the URL or the Host asked for).
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
        let built = cfg.index().built(cfg, source);
        let compat = built.policy.compat.as_ref();
        let methods = trap_methods(compat, &[]);
        let clients = self.clients_for(compat);
        let too_many = clients.is_none();
        let checks: Arc<[_]> = clients
            .unwrap_or_default()
            .into_iter()
            .map(|ip| {
                set_client(&mut sp.request, ip);
                // Refused only when refused whatever the method (the first method's rule named).
                let mut first = None;
                for m in &methods {
                    sp.request.method.clone_from(m);
                    let refusal = access::host_check_refusal_by(cfg, source, &sp.request)?;
                    first.get_or_insert(refusal);
                }
                first
            })
            .chain(too_many.then_some(None))
            .collect();
        self.host_checks.lock().unwrap_or_else(|e| e.into_inner()).insert(source, checks.clone());
        checks
    }

    /// The [`Reopener`]s of a server: of the main server (`vhost` None), its own sections and
    /// every virtual host's (their requests pass the main server's sections too); of a virtual
    /// host, the main server's and its own. `url` and `host` are those of the first section
    /// asking (the host checks depend on the rules and the client only).
    fn reopeners(&self, cfg: &Config, vhost: Option<SecId>, url: &str, host: &Option<String>) -> Arc<[Reopener]> {
        if let Some(known) = self.reopeners.lock().unwrap_or_else(|e| e.into_inner()).get(&vhost) {
            return known.clone();
        }
        let ix = cfg.index();
        let main = self.main_sections.get_or_init(|| {
            let mut out = Vec::new();
            let mut stack: Vec<&Node> = cfg.nodes.iter().filter(|n| n.is_section() && !n.is("VirtualHost")).collect();
            while let Some(n) = stack.pop() {
                out.extend(ix.id(n));
                stack.extend(n.children.iter().filter(|c| c.is_section()));
            }
            out
        });
        let mut stack: Vec<&Node> = Vec::new();
        match vhost {
            Some(v) => stack.extend(ix.node(cfg, v).children.iter()),
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
        let mut out = Vec::new();
        for n in main.iter().map(|id| ix.node(cfg, *id)).chain(vhost_sections) {
            // (Old-style lines are looked for first: the policy's outline is made on demand.)
            let old_style = |c: &Node| policy::is_compat_directive(c.canonical());
            if !n
                .children
                .iter()
                .any(|c| old_style(c) || (c.is_section() && !is_container(c) && c.walk().any(old_style)))
            {
                continue;
            }
            let Some(t) = ix.id(n) else { continue };
            if !ix.outline(cfg, t).sets_compat || self.host_checks(cfg, t, url, host).iter().all(Option::is_some) {
                continue;
            }
            let t_chain = ix.chain(cfg, t);
            if (n.is("If") || n.is("ElseIf") || n.is("Else"))
                && !t_chain.iter().any(|c| is_container(c) && !c.is("VirtualHost"))
            {
                // A top-level `<If>` is on every walk of its server, the section's own included.
                continue;
            }
            let urls = section_urls(cfg, &t_chain);
            let is_files = n.is("Files") || n.is("FilesMatch");
            let files_host = (is_files && t_chain.iter().any(|c| c.is("VirtualHost")))
                .then(|| urls.first().and_then(|u| u.1.clone()));
            out.push(Reopener {
                id: t,
                file_names: if is_files { access::witnesses::files_witnesses(n) } else { Vec::new() },
                files_host,
                urls,
                plain: matches!(access::section_pattern(n), Some(access::SectionPattern::Plain(_)) | None),
            });
        }
        let out: Arc<[Reopener]> = out.into();
        self.reopeners.lock().unwrap_or_else(|e| e.into_inner()).entry(vhost).or_insert(out).clone()
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
    // A `<Limit>` block's lines belong to the section holding it, where they are checked.
    if is_limit(section) {
        return None;
    }
    // A pattern section applies to requests no list of examples covers: no claim about all of them.
    if !matches!(access::section_pattern(section), Some(access::SectionPattern::Plain(_)) | None) {
        return None;
    }
    let (url, host) = url_for(cfg, chain)?;
    let own = Own { cfg, file: cfg.file(section.loc.file).path.clone(), range: Some(section.loc.range) };
    let mut found = defeated(cfg, &section.children, &own, &url, &host, batch, recent)?;
    // It holds at the section's own URL. "Every request" also means those the section shares with
    // sections whose Order/Allow/Deny let some client through (a `<Files>` inside it, a deeper
    // `<Directory>`, a `<Location>` below its URL): it must hold there too, and when such a section
    // may apply where no URL can be built for it, nothing is claimed.
    // What decides there joins what the finding says (refused here, let through there).
    for (u, h) in reopening_urls(cfg, chain, &url, &host, batch)? {
        found.absorb(defeated(cfg, &section.children, &own, &u, &h, batch, recent)?);
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
    let server = chain.iter().find(|n| n.is("VirtualHost")).and_then(|v| ix.id(v));
    // `<Files>` names are tried in the section's directory (a `<Files>` section meets another
    // one only on a file name both match: on the section's own URL, walked already).
    let section_is_files = chain.last().is_some_and(|n| n.is("Files") || n.is("FilesMatch"));
    let in_chain: Vec<SecId> = chain.iter().filter_map(|c| ix.id(c)).collect();
    reopening_urls_below(cfg, server, &in_chain, section_is_files, url, host, batch)
}

/// [`reopening_urls`] for a body of `server`'s requests (its `<VirtualHost>`, None: the main
/// server) reached at `url` on `host`: `in_chain` are the sections holding it (on every walk
/// of it already), `is_files` whether it is a `<Files>` section's.
fn reopening_urls_below(
    cfg: &Config,
    server: Option<SecId>,
    in_chain: &[SecId],
    section_is_files: bool,
    url: &str,
    host: &Option<String>,
    batch: &DefeatedBatch,
) -> Option<Vec<(String, Option<String>)>> {
    let ix = cfg.index();
    let reopeners = batch.reopeners(cfg, server, url, host);
    let dir_of_url = format!("{}/", url.trim_end_matches('/'));
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for r in reopeners.iter() {
        if in_chain.contains(&r.id) {
            continue;
        }
        let files = if section_is_files { &[][..] } else { &r.file_names[..] };
        if r.urls.is_empty() && files.is_empty() {
            // A plain section no URL maps to is met by no request; a pattern no string was built
            // for may be met by any.
            if r.plain {
                continue;
            }
            return None;
        }
        // Only URLs below the section's own reach it (a section at the same URL or above it is on
        // the walk already made there). The walk itself is not asked: where a URL below is mapped
        // elsewhere, the section's Require may be taken for one that decides, and a finding is
        // lost, never made.
        let below = |u: &str| u.len() > url.len() && u.starts_with(url);
        out.extend(r.urls.iter().filter(|(u, _)| below(u)).cloned());
        let h = r.files_host.as_ref().unwrap_or(host);
        out.extend(files.iter().map(|name| format!("{dir_of_url}{name}")).filter(|u| below(u)).map(|u| (u, h.clone())));
        if out.len() > MAX_REOPENING_URLS {
            return None;
        }
    }
    // The directories below whose .htaccess files hold old-style lines (they replace the
    // inherited ones there), when the caller found the files.
    if let Some(found) = cfg.htaccess_found() {
        let dirs = batch.htaccess_compat.get_or_init(|| {
            found
                .all_paths()
                .filter(|p| batch.htaccess_under.as_ref().is_none_or(|d| p.starts_with(d)))
                .filter(|p| match found.open_text(p) {
                    Some(text) => holds_old_style_text(text),
                    None => holds_old_style_lines(p),
                })
                .filter_map(|p| p.parent().map(|d| d.to_string_lossy().into_owned()))
                .collect()
        });
        if !dirs.is_empty() {
            // Each is tried as every server that reads it and whose requests pass the section (a
            // main-server section is passed by every server's): one server may read it where
            // another's AllowOverride does not.
            let readers = Readers::of(cfg);
            let own_vhost = server.and_then(|id| ix.vhosts.iter().position(|v| v.id == id)).map(|p| p as u32);
            for d in dirs {
                for s in readers.servers(d) {
                    if own_vhost.is_some_and(|v| s != ServerId::Vhost(v)) || !in_force(cfg, s, d).reads_htaccess(ix) {
                        continue;
                    }
                    let Some(u) = server_directory_url(cfg, s, d).filter(|u| u.len() > url.len() && u.starts_with(url))
                    else {
                        continue;
                    };
                    let h = match own_vhost {
                        Some(_) => host.clone(),
                        None => host_reaching(cfg, s)?,
                    };
                    out.push((u, h));
                }
            }
            if out.len() > MAX_REOPENING_URLS {
                return None;
            }
        }
    }
    Some(out)
}

/// The URL server `s` serves directory `dir` at (its DocumentRoot, the main server's when it
/// sets none, or an Alias).
fn server_directory_url(cfg: &Config, s: ServerId, dir: &str) -> Option<String> {
    let ix = cfg.index();
    let docroot = match s {
        ServerId::Vhost(v) => ix.vhosts[v as usize].scope.document_root.clone(),
        ServerId::Main => None,
    }
    .or_else(|| ix.main.document_root.clone())
    .map(|d| d.trim_end_matches('/').to_string());
    directory_url(cfg, &docroot, dir)
}

/// The host name a walk asks for to reach server `s` (None: no name, for the main server
/// alone or the first virtual host without a ServerName). Walks reach a server by the host name
/// asked for: a server no name reaches (the main server beside virtual hosts, or a virtual host
/// another one's name hides) cannot be tried (None then).
fn host_reaching(cfg: &Config, s: ServerId) -> Option<Option<String>> {
    let ix = cfg.index();
    match s {
        ServerId::Main if ix.vhosts.is_empty() => Some(None),
        ServerId::Main => None,
        ServerId::Vhost(v) => {
            let name = ix
                .node(cfg, ix.vhosts[v as usize].id)
                .children
                .iter()
                .find(|c| c.is("ServerName"))
                .and_then(|c| c.arg(0).map(str::to_string));
            let reached = match &name {
                Some(n) => ix.vhost_by_name(n, None) == Some(v),
                None => v == 0,
            };
            reached.then_some(name)
        }
    }
}

/// How many servers may read an .htaccess file for [`defeated_htaccess`] to try them all.
pub const MAX_HTACCESS_SERVERS: usize = 4;

/// The precedence trap in an .htaccess file (`htaccess`, read under `server`): its own Require
/// lines, where every request of every server reading it is answered first by old-style rules
/// written outside it, at its directory's URL and below (where sections or .htaccess files with
/// old-style lines of their own may decide otherwise). No claim when a section of the file
/// holds old-style lines (a `<Files>` may re-open some names), a server reading it cannot be
/// reached by a walk, or more than [`MAX_HTACCESS_SERVERS`] read it.
pub fn defeated_htaccess(
    htaccess: &Config,
    server: &Config,
    batch: &DefeatedBatch,
    recent: &mut RecentWalks,
) -> Option<Defeated> {
    let path = htaccess.files.first()?.path.clone();
    let dir = path.parent()?.to_string_lossy().into_owned();
    let nested_old_style = htaccess
        .nodes
        .iter()
        .filter(|n| n.is_section())
        .any(|n| n.walk().any(|c| policy::is_compat_directive(c.canonical())) && !is_limit(n));
    if nested_old_style || require_lines(&htaccess.nodes).is_empty() {
        return None;
    }
    let ix = server.index();
    let servers: Vec<ServerId> = match &htaccess.htaccess_servers {
        Some(s) => s.to_vec(),
        None => Readers::of(server).servers(&dir),
    };
    // Each server is walked at the file's URL and below, for every file: a file many virtual
    // hosts share would cost a walk per host each (no claim then).
    if servers.len() > MAX_HTACCESS_SERVERS {
        return None;
    }
    let own = Own { cfg: htaccess, file: path.clone(), range: None };
    let mut found: Option<Defeated> = None;
    for s in servers {
        if !in_force(server, s, &dir).reads_htaccess(ix) {
            continue;
        }
        let url = server_directory_url(server, s, &dir)?;
        let host = host_reaching(server, s)?;
        let vhost = match s {
            ServerId::Vhost(v) => Some(ix.vhosts[v as usize].id),
            ServerId::Main => None,
        };
        let here = defeated(server, &htaccess.nodes, &own, &url, &host, batch, recent)?;
        match &mut found {
            Some(f) => f.absorb(here),
            None => found = Some(here),
        }
        for (u, h) in reopening_urls_below(server, vhost, &[], false, &url, &host, batch)? {
            let below = defeated(server, &htaccess.nodes, &own, &u, &h, batch, recent)?;
            found.as_mut()?.absorb(below);
        }
    }
    found
}

/// Whether an .htaccess file holds an Order, Allow, Deny or Satisfy line (read from disk, up to
/// its first megabyte; a file that cannot be read holds none).
fn holds_old_style_lines(path: &Path) -> bool {
    use std::io::Read;
    let mut text = Vec::new();
    let Ok(f) = std::fs::File::open(path) else { return false };
    if f.take(1 << 20).read_to_end(&mut text).is_err() {
        return false;
    }
    holds_old_style_text(&String::from_utf8_lossy(&text))
}

/// Whether the text of an .htaccess file holds an Order, Allow, Deny or Satisfy line.
fn holds_old_style_text(text: &str) -> bool {
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .any(|w| policy::is_compat_directive(w.trim_start_matches('<')))
}

/// Where a body of access directives is written: a section, or a whole .htaccess
/// file (`cfg` holds its text).
pub(crate) struct Own<'a> {
    pub(crate) cfg: &'a Config,
    pub(crate) file: Arc<Path>,
    pub(crate) range: Option<TextRange>,
}

impl Own<'_> {
    /// Whether an applied section ([`access::Resolved::applied`]) is this body.
    fn is(&self, origin: &access::Origin, path: &Path) -> bool {
        let here = match (origin, self.range) {
            (access::Origin::Node(_, r) | access::Origin::HtaccessSection(r), Some(own)) => *r == own,
            (access::Origin::Htaccess, None) => true,
            _ => false,
        };
        here && *path == *self.file
    }

    /// Whether a rule is written here.
    fn holds(&self, l: &policy::Loc) -> bool {
        // The range first: comparing paths goes component by component.
        self.range.is_none_or(|r| l.range.0 >= u32::from(r.start()) && l.range.1 <= u32::from(r.end()))
            && (Arc::ptr_eq(&l.file, &self.file) || *l.file == *self.file)
    }
}

/// The precedence trap for a body of directives (`nodes`, evaluated at `url`): it has
/// Require lines and no old-style ones, yet every request they could decide is answered first by
/// a mod_access_compat rule written elsewhere, for every representative client: refused, or
/// let through under `Satisfy Any` (then Require is not consulted).
///
/// Require lines inside `<Limit>`/`<LimitExcept>` blocks decide only the methods those name
/// (mod_authz_core grants the others at that section: `apply_authz_sections`); those methods
/// must be refused. For the other methods the lines still replace the authorization inherited
/// (AuthMerging Off), so each is either refused by the old rules too, or answered the same once
/// the lines are deleted.
pub(crate) fn defeated(
    cfg: &Config,
    nodes: &[Node],
    own: &Own<'_>,
    url: &str,
    host: &Option<String>,
    batch: &DefeatedBatch,
    recent: &mut RecentWalks,
) -> Option<Defeated> {
    let lines = require_lines(nodes);
    if lines.is_empty() || nodes.iter().any(|c| policy::is_compat_directive(c.canonical())) {
        return None;
    }
    // The walk does not depend on the client: walk once, evaluate per client.
    let walked = match batch.early(cfg, url, host, recent) {
        (Early::Answered, _) => return None,
        (Early::AllRefused(checks), _) => {
            return trap(&lines, own, |_| None, checks.iter().map(|c| c.as_ref().map(|d| (d, false))));
        }
        (Early::Evaluate, walked) => {
            walked.unwrap_or_else(|| access::walk_request(cfg, &batch.fs, url, host.as_deref(), None))
        }
    };
    let resolved = walked.merge(cfg);
    if resolved.answered_before_access_checks() {
        return None;
    }
    let limited = limited_requires(cfg, &resolved, own)?;
    // Otherwise the full evaluation for the clients the host check does not refuse. Only after
    // a 200 can mod_dir's DirectoryIndex subrequest change the answer: then the full request.
    // SetEnvIf is evaluated per client, as [`effective`] does.
    // Every method must be refused: rules under `<Limit>`/`<LimitExcept>` may let some through.
    let checks = resolved.compat_source().map(|source| batch.host_checks(cfg, source, url, host));
    let mut masks: Vec<policy::MethodMask> = Vec::new();
    if let Some(l) = &limited {
        masks.push(l.mask.clone());
        limited_masks(resolved.authz.as_ref(), &mut masks);
        limited_masks(l.without.as_ref(), &mut masks);
    }
    let methods = trap_methods(resolved.compat(), &masks);
    let registered = &cfg.index().ctx.registered_methods;
    let mut full: Option<(Vec<(usize, policy::Item)>, crate::ide::setenvif::EnvInputs)> = None;
    let mut sp = spec(url, host, batch.clients.first()?.1, None);
    // The clients the host checks were made for (those of the rules in effect).
    let clients = match resolved.compat_source() {
        Some(source) => batch.clients_for(cfg.index().built(cfg, source).policy.compat.as_ref()),
        None => batch.clients_for(resolved.compat()),
    }?;
    let mut decisions = Vec::with_capacity(clients.len() * methods.len());
    // Whether some method the lines do not apply to passes the old rules (and is answered the
    // same without the lines): then the finding says which methods they apply to.
    let mut some_method_passes = false;
    for (i, ip) in clients.iter().enumerate() {
        set_client(&mut sp.request, *ip);
        if let Some(refused) = checks.as_ref().and_then(|c| c.get(i).cloned().flatten()) {
            // The rules refuse every method alike.
            decisions.push((refused, false));
            continue;
        }
        for m in &methods {
            sp.request.method.clone_from(m);
            let applies = limited.as_ref().is_none_or(|l| l.mask.contains(&policy::MethodId::resolve(m, registered)));
            if checks.is_none() {
                if let Some(r) = resolved.host_check_refusal(cfg, &sp.request) {
                    decisions.push((r, false));
                    continue;
                }
            }
            let (per_dir, inputs) = full.get_or_insert_with(|| (resolved.per_dir(cfg), hover_env_inputs(host)));
            let mut outcome = resolved.outcome_with_setenvif(cfg, url, &sp.request, inputs, per_dir);
            let answered = outcome.status;
            let mut subrequest_evaluated = false;
            if outcome.status == Some(200) {
                let e = access::effective_in(cfg, &batch.fs, &sp, Some(inputs));
                subrequest_evaluated = e.index.as_ref().is_some_and(|l| l.tries.iter().any(|t| !t.same_config));
                outcome = e.outcome;
            }
            // A refusal, or old rules letting the request through under Satisfy Any (Require is
            // not consulted then).
            let through = outcome.status == Some(200);
            let decided = outcome.deciding.filter(|d| match outcome.status {
                Some(403) => true,
                Some(200) => d.layer == Layer::AccessCompat,
                _ => false,
            });
            if let Some(d) = decided.filter(|d| applies || refused_elsewhere(d, own)) {
                decisions.push((d, through));
                continue;
            }
            // Not decided by the old rules: the trap holds only for a method the lines do not
            // apply to, answered the same once they are deleted (the DirectoryIndex subrequest's
            // own evaluation is not redone without them: no claim then).
            let without = limited.as_ref().filter(|_| !applies)?.without.as_ref();
            let same = answered.is_some()
                && !subrequest_evaluated
                && resolved.outcome_with_authz(cfg, url, &sp.request, inputs, per_dir, without).status == answered;
            if !same {
                return None;
            }
            some_method_passes = true;
        }
    }
    let said = |line: &Node| Some(methods_phrase(&limited.as_ref().filter(|_| some_method_passes)?.mask_of(line)));
    trap(&lines, own, said, decisions.into_iter().map(Some))
}

/// Require lines of a body that `<Limit>`/`<LimitExcept>` blocks narrow to some methods.
struct Limited {
    /// The methods they apply to (mod_authz_core's `limited` of the section).
    mask: policy::MethodMask,
    /// The authorization in effect once they are deleted ([`access::Resolved::authz_without`]).
    without: Option<policy::AuthzConfig>,
    /// The body's own Require tree, each line with its methods.
    tree: policy::AuthzNode,
}

impl Limited {
    /// The methods one Require line applies to (the body's if it is not found in the tree).
    fn mask_of(&self, line: &Node) -> policy::MethodMask {
        let range = (u32::from(line.loc.range.start()), u32::from(line.loc.range.end()));
        let mut stack = vec![&self.tree];
        while let Some(n) = stack.pop() {
            match &n.kind {
                policy::NodeKind::Require(_) if n.loc.as_ref().is_some_and(|l| l.range == range) => {
                    return n.methods.clone();
                }
                policy::NodeKind::Require(_) => {}
                policy::NodeKind::Container { children, .. } => stack.extend(children),
            }
        }
        self.mask.clone()
    }
}

/// [`Limited`] for the body `own` where it applies on `resolved`'s walk: Some(None) when its
/// Require lines apply to every method (or it does not apply there: every method must be
/// refused then), None when deleting them is not a question this check answers (AuthMerging or
/// AuthzSendForbiddenOnFailure beside them would stay, with an authorization of their own).
fn limited_requires(cfg: &Config, resolved: &access::Resolved, own: &Own<'_>) -> Option<Option<Limited>> {
    let applied = resolved.applied(cfg);
    let Some(at) = applied.iter().position(|(origin, path, _)| own.is(origin, path)) else { return Some(None) };
    let Some(authz) = &applied[at].2.authz else { return Some(None) };
    let Some(tree) = authz.section.as_ref().filter(|t| !t.methods.is_all()) else { return Some(None) };
    if authz.op_loc.is_some() || authz.forbidden_loc.is_some() {
        return None;
    }
    Some(Some(Limited { mask: tree.methods.clone(), without: resolved.authz_without(at), tree: tree.clone() }))
}

/// The method masks narrower than every method in an authorization tree.
fn limited_masks(authz: Option<&policy::AuthzConfig>, out: &mut Vec<policy::MethodMask>) {
    let mut stack: Vec<&policy::AuthzNode> = authz.and_then(|a| a.section.as_ref()).into_iter().collect();
    while let Some(n) = stack.pop() {
        if !n.methods.is_all() {
            out.push(n.methods.clone());
        }
        if let policy::NodeKind::Container { children, .. } = &n.kind {
            stack.extend(children);
        }
    }
}

/// Whether an answer is mod_access_compat's, by a rule not written in `own`.
fn refused_elsewhere(d: &policy::Deciding, own: &Own<'_>) -> bool {
    d.layer == Layer::AccessCompat && !d.loc.as_ref().is_some_and(|l| own.holds(l))
}

/// The methods a trap is tried with: GET, and where Order/Allow/Deny/Satisfy lines are limited
/// to some methods (`<Limit>`, `<LimitExcept>`), or `extra` masks are given (those of Require
/// lines), the methods the masks name and one they do not (between them, every way the rules
/// can answer).
fn trap_methods(compat: Option<&policy::CompatConfig>, extra: &[policy::MethodMask]) -> Vec<String> {
    let mut out = vec!["GET".to_string()];
    let compat_masks = compat.into_iter().flat_map(|c| {
        (c.orders.iter().map(|s| &s.methods))
            .chain(c.satisfies.iter().map(|s| &s.methods))
            .chain(c.allows.iter().chain(&c.denies).map(|e| &e.methods))
    });
    let mut named = std::collections::BTreeSet::new();
    let mut limited = false;
    for m in compat_masks.chain(extra).filter(|m| !m.is_all()) {
        limited = true;
        named.extend(m.distinguishing_names());
    }
    if limited {
        out.extend(named.iter().filter(|m| *m != "GET").cloned());
        let other = ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND"].into_iter().find(|m| !named.contains(*m));
        out.extend(other.map(str::to_string));
    }
    out
}

/// How many addresses the old rules in effect may name beyond the representative clients for
/// [`defeated`] to try them all (a longer list, such as a blocklist, makes no claim).
const MAX_RULE_CLIENTS: usize = 32;

/// The trap, given what decides each representative client's request, in order (None: neither
/// a 403 nor old rules letting it through; `true` with a rule letting it through): it holds when
/// every one is decided by mod_access_compat, by a rule written elsewhere. The last refusal
/// names the rule (the last rule letting requests through, if none). `lines` are reported, each
/// with the methods `said` of it ([`DefeatedLine::methods`]).
fn trap<D: std::borrow::Borrow<policy::Deciding>>(
    lines: &[&Node],
    own: &Own<'_>,
    said: impl Fn(&Node) -> Option<String>,
    decisions: impl IntoIterator<Item = Option<(D, bool)>>,
) -> Option<Defeated> {
    let (mut refused, mut through) = (None, None);
    for d in decisions {
        let (d, let_through) = d?;
        if !refused_elsewhere(d.borrow(), own) {
            return None;
        }
        if let_through {
            through = Some(d);
        } else {
            refused = Some(d);
        }
    }
    let let_through = through.as_ref().map(|t| LetThrough {
        rule: t.borrow().rule.clone(),
        loc: t.borrow().loc.clone(),
        with_refusals: refused.is_some(),
    });
    let d = refused.or(through)?;
    let d = d.borrow();
    let lines = lines
        .iter()
        .map(|req| DefeatedLine {
            at: (req.loc.file, own.cfg.trimmed(&req.loc)),
            text: format!("Require {}", req.raw_args()),
            methods: said(req),
        })
        .collect();
    Some(Defeated { lines, decided_by: d.rule.clone(), deciding: d.loc.clone(), let_through })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::access::resolve;
    use crate::ide::config::load;
    use crate::ide::hover::effective;

    /// The precedence trap of each section holding a Require (`line: decided by`), in a
    /// configuration (`{d}`: a fresh directory holding `www/sub/a.txt` and `other/`) whose
    /// document root is `{d}/www`.
    fn traps(conf: &str) -> Vec<String> {
        traps_with(conf, &[])
    }

    /// [`traps`] with files written first (`(path under {d}, text)`), such as .htaccess files;
    /// a finding letting requests through says so (`let through: rule`).
    fn traps_with(conf: &str, files: &[(&str, &str)]) -> Vec<String> {
        let (_dir, cfg, _) = tree(conf, files);
        let ix = cfg.index();
        (0..ix.len() as SecId)
            .map(|id| ix.chain(&cfg, id))
            .filter(|chain| chain.last().is_some_and(|n| holds_require(n)))
            .filter_map(|chain| {
                defeated_require(&cfg, &chain).map(|t| {
                    let limited: String =
                        t.lines.iter().filter_map(|l| l.methods.as_ref()).map(|m| format!(" [{m}]")).collect();
                    let through = match &t.let_through {
                        Some(l) if l.with_refusals => format!(" (others let through: {})", l.rule),
                        Some(l) => format!("let through: {}", l.rule),
                        None => String::new(),
                    };
                    let refused =
                        if t.let_through.as_ref().is_some_and(|l| !l.with_refusals) { "" } else { &t.decided_by };
                    format!("{}: {refused}{through}{limited}", cfg.line(&chain.last().unwrap().loc))
                })
            })
            .collect()
    }

    /// `conf` loaded as [`traps`] writes it, with `files` written first, and the .htaccess files
    /// found as check finds them (the precedence check asks whether they re-open).
    fn tree(conf: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, Config, Vec<crate::ide::htaccess_files::Found>) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www/sub/deeper")).unwrap();
        std::fs::create_dir_all(dir.path().join("other")).unwrap();
        std::fs::write(dir.path().join("www/sub/a.txt"), "x").unwrap();
        for (at, text) in files {
            std::fs::write(dir.path().join(at), text).unwrap();
        }
        let main = dir.path().join("httpd.conf");
        let head = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot {d}/www\n";
        std::fs::write(&main, format!("{head}{conf}").replace("{d}", &d)).unwrap();
        let mut cfg = load(&main, &crate::ide::config::RealFs);
        let found = crate::ide::htaccess_files::htaccess_files(&cfg);
        let paths: Vec<_> = found.iter().map(|f| f.path.clone()).collect();
        if !paths.is_empty() {
            cfg.set_htaccess_found(Some(Arc::new(crate::ide::config::HtaccessFound {
                paths: paths.into(),
                open: Vec::new(),
            })));
        }
        (dir, cfg, found)
    }

    /// The statuses the model gives for /sub/a.txt under `conf` (as [`traps`] writes it), for
    /// clients 127.0.0.1, 127.0.0.2 and 192.0.2.1 and a spread of methods: builtin ones, HEAD, a
    /// custom one, and lowercase `get`.
    fn statuses(conf: &str) -> Vec<Option<u16>> {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www/sub")).unwrap();
        std::fs::write(dir.path().join("www/sub/a.txt"), "x").unwrap();
        let main = dir.path().join("httpd.conf");
        let head = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule authn_core_module m\nLoadModule auth_basic_module m\nDocumentRoot {d}/www\n";
        std::fs::write(&main, format!("{head}{conf}").replace("{d}", &d)).unwrap();
        let cfg = load(&main, &crate::ide::config::RealFs);
        let mut out = Vec::new();
        for ip in ["127.0.0.1", "127.0.0.2", "192.0.2.1"] {
            for m in ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND", "FOO", "get"] {
                let mut sp = spec("/sub/a.txt", &None, ip.parse().unwrap(), None);
                sp.request.method = m.to_string();
                out.push(effective(&cfg, &FsView::fresh(), &sp).outcome.status);
            }
        }
        out
    }

    /// Require lines inside `<Limit>`/`<LimitExcept>` decide only the methods named there: the
    /// trap holds when the inherited old rules refuse every one of those, and deleting the lines
    /// changes no other method's answer (they replace the inherited authorization for every
    /// method). Each case is held to the model's own answers with the lines deleted; those of
    /// the findings (round 6, M2) were held to httpd: no response of 8 methods × 2 clients changed.
    #[test]
    fn requires_limited_to_refused_methods_are_defeated() {
        let conf = |parent: &str, child: &str| {
            format!("<Directory {{d}}/www>\n{parent}</Directory>\n<Directory {{d}}/www/sub>\n{child}</Directory>\n")
        };
        let limit = |head: &str, body: &str| format!(" <{head}>\n{body} </{}>\n", head.split(' ').next().unwrap());
        let req = "  Require ip 127.0.0.1\n";
        let deny_get_post = limit("Limit GET POST", "  Order deny,allow\n  Deny from all\n");
        let cases: Vec<(String, String, Option<&str>)> = vec![
            // The findings' three shapes.
            (deny_get_post.clone(), limit("Limit POST", req), Some("Deny from all [POST]")),
            (
                format!(" Order allow,deny\n{}", limit("Limit POST", "  Allow from all\n")),
                limit("Limit GET", req),
                Some("Order allow,deny: no Allow matches (default deny) [GET, HEAD]"),
            ),
            (
                format!(" Order deny,allow\n Deny from all\n{}", limit("LimitExcept GET", "  Allow from all\n")),
                limit("Limit GET", req),
                Some("Deny from all [GET, HEAD]"),
            ),
            // Nested blocks: POST only.
            (
                deny_get_post.clone(),
                limit("Limit GET POST", &limit("LimitExcept GET", req)),
                Some("Deny from all [POST]"),
            ),
            // A custom method let through, the Require on every other one.
            (
                format!(" Order deny,allow\n Deny from all\n{}", limit("Limit FOO", "  Allow from all\n")),
                limit("LimitExcept FOO", req),
                Some("Deny from all [methods other than FOO]"),
            ),
            // An inherited Require granting every method: deleting the lines leaves it, as the
            // lines' section granted the other methods.
            (format!("{deny_get_post} Require all granted\n"), limit("Limit POST", req), Some("Deny from all [POST]")),
            // Near misses. A method the lines name passes the old rules: they decide it.
            (deny_get_post.clone(), limit("Limit POST PUT", req), None),
            (
                format!(" Order allow,deny\n{}", limit("Limit POST", "  Allow from all\n")),
                limit("Limit POST", req),
                None,
            ),
            (
                format!(" Order deny,allow\n Deny from all\n{}", limit("Limit get", "  Allow from all\n")),
                limit("Limit get", req),
                None,
            ),
            (
                format!(" Order deny,allow\n Deny from all\n{}", limit("Limit FOO", "  Allow from all\n")),
                limit("Limit FOO", req),
                None,
            ),
            // The lines replace an inherited Require refusing PUT: deleting them refuses PUT again.
            (format!("{deny_get_post} Require all denied\n"), limit("Limit POST", req), None),
            // An AuthType with no other Require: without the lines, 500 (AH01627) for PUT.
            (format!("{deny_get_post} AuthType Basic\n AuthName x\n"), limit("Limit POST", req), None),
            // AuthMerging beside the lines stays when they are deleted: not this check's question.
            (deny_get_post.clone(), format!(" AuthMerging And\n{}", limit("Limit POST", req)), None),
        ];
        for (parent, child, want) in cases {
            let with = conf(&parent, &child);
            let found = traps(&with);
            // (4 lines of head, then the parent <Directory>.)
            let line = 7 + parent.lines().count();
            let want: Vec<String> = want.into_iter().map(|w| format!("{line}: {w}")).collect();
            assert_eq!(found, want, "{with}");
            // The model with the lines deleted: a trap changes no answer, a near miss some. (With
            // AuthMerging beside them nothing changes here either; the check makes no claim.)
            let without = strip_empty_limits(&conf(&parent, &child.replace(req, "")));
            let changed = statuses(&with) != statuses(&without);
            if !child.contains("AuthMerging") {
                assert_eq!(changed, want.is_empty(), "{with}\n{without}");
            }
        }
    }

    /// Each `<Limit>`/`<LimitExcept>` block holding Require lines gets its own finding (its first
    /// line), as the section's own lines do; under rules refusing every request, none names methods.
    #[test]
    fn each_block_of_require_lines_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("httpd.conf");
        let conf = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule authn_core_module m\nLoadModule auth_basic_module m\nLoadModule authz_user_module m\nDocumentRoot {d}\n<Location />\n Order deny,allow\n Deny from all\n</Location>\n<Location /upload>\n <LimitExcept GET POST OPTIONS>\n  Require all denied\n </LimitExcept>\n <Limit POST>\n  AuthType Basic\n  AuthName x\n  Require valid-user\n  Require user a\n </Limit>\n</Location>\n";
        std::fs::write(&main, conf.replace("{d}", &dir.path().display().to_string())).unwrap();
        let cfg = load(&main, &crate::ide::config::RealFs);
        let ix = cfg.index();
        let section = (0..ix.len() as SecId)
            .map(|id| ix.chain(&cfg, id))
            .find(|c| c.last().unwrap().is("Location") && c.last().unwrap().arg(0) == Some("/upload"))
            .unwrap();
        let t = defeated_require(&cfg, &section).expect("a trap");
        let said: Vec<(u32, &str, Option<&str>)> = t
            .lines
            .iter()
            .map(|l| (cfg.file(l.at.0).line_of(l.at.1.start()), l.text.as_str(), l.methods.as_deref()))
            .collect();
        assert_eq!(said, [(14, "Require all denied", None), (19, "Require valid-user", None)]);
    }

    /// Under `Satisfy Any`, old rules that let a client through answer without Require (round 6,
    /// M5: an .htaccess in the Require's directory with `Satisfy Any` and `Allow from all`; httpd
    /// answered every request the same with the Require deleted). Refusals elsewhere below are
    /// said with it; a client the Allow does not name, or a deeper `Satisfy All`, leaves the
    /// Require deciding (httpd: 127.0.0.3 refused with it, let in without).
    #[test]
    fn requires_the_old_rules_let_through_are_defeated() {
        let conf = "<Directory {d}/www>\n AllowOverride All\n Order deny,allow\n Deny from all\n</Directory>\n<Directory {d}/www/sub>\n Require ip 127.0.0.1\n</Directory>\n";
        let any_all = ("www/sub/.htaccess", "Satisfy Any\nAllow from all\n");
        let through = "let through: Allow from all (Satisfy Any: Require is not consulted)";
        assert_eq!(traps_with(conf, &[any_all]), [format!("10: {through}")]);
        let found = traps_with(conf, &[any_all, ("www/sub/deeper/.htaccess", "Order deny,allow\nDeny from all\n")]);
        assert_eq!(
            found,
            ["10: Deny from all (others let through: Allow from all (Satisfy Any: Require is not consulted))"]
        );
        let one = ("www/sub/.htaccess", "Satisfy Any\nOrder allow,deny\nAllow from 127.0.0.2\n");
        assert!(traps_with(conf, &[one]).is_empty());
        assert!(traps_with(conf, &[any_all, ("www/sub/deeper/.htaccess", "Satisfy All\n")]).is_empty());
    }

    /// The trap in .htaccess files (round 13, C2: `Require all granted` in one, under an
    /// inherited `Deny from all`, got no finding; httpd answered 403): found as in a section,
    /// and not where an .htaccess file or a `<Directory>` below re-opens the host check (there
    /// the Require decides: httpd answered 127.0.0.2 with 403 under `Require ip 127.0.0.1`), nor
    /// where the file's own old-style lines or those of a `<Files>` in it decide.
    #[test]
    fn requires_in_htaccess_files_are_checked_like_sections() {
        let traps_in = |conf: &str, files: &[(&str, &str)]| -> Vec<String> {
            let (dir, cfg, found) = tree(conf, files);
            let server = Arc::new(cfg);
            let mut out = Vec::new();
            for f in found {
                let mut h = crate::ide::config::load_in_context(&f.path, &crate::ide::config::RealFs, server.clone());
                h.htaccess_servers = Some(f.servers.into());
                let batch = DefeatedBatch::new(&[&server, &h], htaccess_view(&server));
                if let Some(t) = defeated_htaccess(&h, &server, &batch, &mut RecentWalks::default()) {
                    let at = f.path.strip_prefix(dir.path()).unwrap().display().to_string();
                    out.push(format!("{at}: {}", t.decided_by));
                }
            }
            out
        };
        let conf = "<Directory {d}/www>\n AllowOverride All\n Order deny,allow\n Deny from all\n</Directory>\n";
        let req = ("www/sub/.htaccess", "Require all granted\n");
        assert_eq!(traps_in(conf, &[req]), ["www/sub/.htaccess: Deny from all"]);
        // Re-opened below, by an .htaccess file or a <Directory>.
        assert!(traps_in(conf, &[req, ("www/sub/deeper/.htaccess", "Order allow,deny\nAllow from all\n")]).is_empty());
        let reopened = format!("{conf}<Directory {{d}}/www/sub/deeper>\n Allow from all\n</Directory>\n");
        assert!(traps_in(&reopened, &[req]).is_empty());
        // Its own old-style lines, or a <Files> section's in it.
        assert!(traps_in(conf, &[("www/sub/.htaccess", "Require all granted\nAllow from all\n")]).is_empty());
        let files = "Require all granted\n<Files a.txt>\n Allow from all\n</Files>\n";
        assert!(traps_in(conf, &[("www/sub/.htaccess", files)]).is_empty());
        // Nothing refuses: no trap.
        let open = "<Directory {d}/www>\n AllowOverride All\n</Directory>\n";
        assert!(traps_in(open, &[req]).is_empty());
    }

    /// `conf` without the `<Limit>`/`<LimitExcept>` blocks a deletion left empty, nested ones too.
    fn strip_empty_limits(conf: &str) -> String {
        let mut out: Vec<&str> = Vec::new();
        for l in conf.lines() {
            let closes = l.trim_start().starts_with("</Limit");
            if closes && out.last().is_some_and(|p| p.trim_start().starts_with("<Limit")) {
                out.pop();
                continue;
            }
            out.push(l);
        }
        out.join("\n") + "\n"
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

    /// Old-style lines limited to some methods refuse "every request" only if every method is
    /// refused: a `<Limit POST>` letting POST through (or making it Satisfy Any) leaves the
    /// Require deciding POST. (Each was a false finding: httpd answered POST from 127.0.0.1 with
    /// 200 and from 127.0.0.2 with 403, AH01630; without the Require, 200.)
    #[test]
    fn rules_letting_some_method_through_cancel_the_trap() {
        let parent = |limited: &str| {
            format!("<Directory {{d}}/www>\n Order allow,deny\n{limited}</Directory>\n<Directory {{d}}/www/sub>\n Require ip 127.0.0.1\n</Directory>\n")
        };
        for limited in [
            " <Limit POST>\n  Allow from all\n </Limit>\n",
            " <LimitExcept GET HEAD>\n  Allow from all\n </LimitExcept>\n",
            " Deny from all\n <Limit POST>\n  Satisfy Any\n </Limit>\n",
            " <Limit FOO>\n  Allow from all\n </Limit>\n",
        ] {
            let found = traps(&parent(limited));
            assert!(found.is_empty(), "{limited}: {found:?}");
        }
        // Limited lines that refuse every method alike keep it.
        let found = traps(&parent(
            " <Limit POST>\n  Deny from all\n </Limit>\n <LimitExcept POST>\n  Deny from all\n </LimitExcept>\n",
        ));
        assert_eq!(found.len(), 1, "{found:?}");
        let found = traps(&parent(" <Limit GET>\n  Deny from all\n </Limit>\n"));
        assert_eq!(found.len(), 1, "{found:?}");
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
        let methods = trap_methods(resolved.compat(), &[]);
        for (ip, method) in
            representative_clients(&[cfg]).into_iter().flat_map(|(_, ip)| methods.iter().map(move |m| (ip, m)))
        {
            let mut sp = spec(&url, &host, ip, None);
            sp.request.method.clone_from(method);
            let mut outcome = resolved.outcome_with_setenvif(cfg, &url, &sp.request, &inputs, &per_dir);
            if outcome.status == Some(200) {
                outcome = effective(cfg, &FsView::fresh(), &sp).outcome;
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
            lines: vec![DefeatedLine {
                at: (req.loc.file, cfg.trimmed(&req.loc)),
                text: format!("Require {}", req.raw_args()),
                methods: None,
            }],
            decided_by: d.rule.clone(),
            deciding: d.loc,
            let_through: None,
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
        // <Limit> masks: Satisfy Any for POST only leaves GET to the host check, and lets the
        // Require decide POST (no trap at line 17: httpd grants POST there); a Deny for POST only
        // lets GET through.
        let found = batch_agrees_with_full_evaluation(
            "<Directory />\n  Order deny,allow\n  Deny from all\n  <Limit POST>\n    Satisfy Any\n  </Limit>\n</Directory>\n<Location /a>\n  Require all granted\n</Location>\n<Directory {d}/www/sub>\n  <Limit POST>\n    Order allow,deny\n  </Limit>\n</Directory>\n<Location /sub/x>\n  Require all granted\n</Location>\n",
            &[],
        );
        assert!(found.is_empty(), "{found:?}");
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
