//! Feature: a loaded configuration and its diagnostics, kept up to date edit by
//! edit instead of loaded and checked again for every keystroke.
//!
//! An edit that [`FileData::edited`] could reparse locally replaced some blank,
//! comment and directive lines of one file by others, inside one section (or at
//! top level). When none of those directives is one the loader acts on
//! (the loader's `LOADER_DIRECTIVES`, `${VAR}` references), the configuration after the edit
//! is the one before with those directives' nodes replaced and every later
//! position of the file moved; [`Analysis::edit`] makes exactly that change. The
//! diagnostics then follow the groups of [`crate::ide::diagnostics`]:
//!
//! * syntax findings of the file are read from its new parse;
//! * findings of the local checks are computed again for the top-level node
//!   holding the edit only (a view of the configuration with that node alone and
//!   the whole configuration's policy context), the others are kept;
//! * loader problems are kept (no directive that makes one changed);
//! * the engine checks evaluate requests across everything: their findings are
//!   kept when no directive the request engine reads ([`read_by_engine`]) was
//!   among those replaced, and computed again (on demand) when one was;
//! * every kept finding after the edit moves with its text.
//!
//! Anything else — a section header or closer, a file included twice, a
//! directive the loader acts on — makes [`Analysis::edit`] return false and the
//! caller loads the configuration again. A property test checks that edited
//! analyses equal fresh ones, nodes and diagnostics alike.

use crate::ide::config::{standalone_directive, Config, FileData, FileId, Node, SecId};
use crate::ide::diagnostics::{self, Diagnostic};
use crate::ide::policy::PolicyCtx;
use apache_syntax::ast::{self, AstNode};
use apache_syntax::{LocalChange, SyntaxKind, TextRange, TextSize};
use std::sync::Arc;

/// Which group of checks a finding came from (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Syntax,
    Problems,
    Local,
    Engine,
}

/// A configuration with its diagnostics.
pub struct Analysis {
    cfg: Arc<Config>,
    /// Findings per file, each with its group.
    findings: Vec<Vec<(Group, Diagnostic)>>,
    /// The policy context of the whole configuration: only loading changes it.
    ctx: PolicyCtx,
    /// The engine findings are out of date (removed; computed again on demand).
    engine_stale: bool,
    /// The clients the engine findings were computed for (`hover::representative_clients`):
    /// when an edit changes them, every engine finding is computed again.
    engine_clients: Vec<(String, std::net::IpAddr)>,
}

impl Analysis {
    /// Checks a freshly loaded configuration.
    pub fn new(cfg: Config) -> Analysis {
        let ctx = crate::ide::access::policy_ctx(&cfg);
        let mut a = Analysis {
            findings: vec![Vec::new(); cfg.files.len()],
            cfg: Arc::new(cfg),
            ctx,
            engine_stale: true,
            engine_clients: Vec::new(),
        };
        for file in 0..a.cfg.files.len() {
            let mut out = Vec::new();
            diagnostics::syntax(&a.cfg, file, &mut out);
            a.add(Group::Syntax, out);
        }
        let mut out = Vec::new();
        diagnostics::problems(&a.cfg, &mut out);
        a.add(Group::Problems, out);
        let mut out = Vec::new();
        diagnostics::local(&a.cfg, &mut out);
        a.add(Group::Local, out);
        a
    }

    pub fn config(&self) -> &Arc<Config> {
        &self.cfg
    }

    /// Gives the configuration the .htaccess files found below the directories it serves
    /// ([`Config::htaccess_found`]), as they are now (`disk_unchanged`: the same scan, no file
    /// changed on disk since the last ones given). The engine findings (the precedence check
    /// asks whether those files re-open access) are computed again: when only the editor's
    /// texts changed, those of the sections the changed files can reach
    /// (`recheck_readers_of`); else all of them, on demand.
    pub fn set_htaccess_found(&mut self, found: Option<Arc<crate::ide::config::HtaccessFound>>, disk_unchanged: bool) {
        let changed = match (self.cfg.htaccess_found(), &found) {
            (Some(old), Some(new)) if disk_unchanged && Arc::ptr_eq(&old.paths, &new.paths) => {
                Some(new.dirs_changed_from(old))
            }
            _ => None,
        };
        // (Unshared here: the callers' copies of the configuration live for one request.)
        Arc::make_mut(&mut self.cfg).set_htaccess_found(found);
        if self.engine_stale {
            return;
        }
        let rechecked = match changed {
            Some(dirs) => dirs.is_empty() || self.recheck_readers_of(&dirs),
            None => false,
        };
        if !rechecked {
            for list in &mut self.findings {
                list.retain(|(g, _)| *g != Group::Engine);
            }
            self.engine_stale = true;
        }
    }

    /// Computes again the engine findings of the top-level nodes whose sections requests to
    /// the directories `dirs` can pass: every one outside a `<VirtualHost>` (the main server's
    /// sections are passed by every server's requests), and the `<VirtualHost>` sections of the
    /// servers whose requests may pass those directories ([`vhosts_passing`]). False when it
    /// cannot (the caller then computes all of them again).
    fn recheck_readers_of(&mut self, dirs: &[String]) -> bool {
        let cfg = &self.cfg;
        let ix = cfg.index();
        let mut hosts = std::collections::HashSet::new();
        for d in dirs {
            match vhosts_passing(cfg, d) {
                Some(h) => hosts.extend(h),
                None => return false,
            }
        }
        let tops: Vec<usize> = (0..cfg.nodes.len())
            .filter(|&i| {
                let n = &cfg.nodes[i];
                n.is_section() && !(n.is("VirtualHost") && ix.id(n).is_some_and(|id| !hosts.contains(&id)))
            })
            .collect();
        let covered: Vec<(FileId, TextRange)> = tops.iter().flat_map(|&i| coverage(&cfg.nodes[i])).collect();
        if !covered.iter().all(|(f, _)| read_once(cfg, *f)) {
            return false;
        }
        let sections: Vec<SecId> = tops
            .iter()
            .flat_map(|&i| cfg.nodes[i].walk())
            .filter(|n| n.is_section())
            .filter_map(|n| ix.id(n))
            .collect();
        let mut out = Vec::new();
        diagnostics::engine_for(cfg, &sections, &mut out);
        let within = |d: &Diagnostic| covered.iter().any(|(f, r)| *f == d.file && r.contains_range(d.range));
        for list in &mut self.findings {
            list.retain(|(g, d)| *g != Group::Engine || !within(d));
        }
        self.add(Group::Engine, out);
        true
    }

    /// The diagnostics of one file, in file order, borrowed (a big file has thousands:
    /// the caller converts them without copying them first).
    pub fn diagnostics(&mut self, file: FileId) -> Vec<&Diagnostic> {
        self.refresh_engine();
        let mut out: Vec<&Diagnostic> = self.findings.get(file).into_iter().flatten().map(|(_, d)| d).collect();
        diagnostics::sort_refs(&mut out);
        out
    }

    /// All diagnostics of the configuration, in file order.
    pub fn all_diagnostics(&mut self) -> Vec<Diagnostic> {
        self.refresh_engine();
        let mut out: Vec<Diagnostic> = self.findings.iter().flatten().map(|(_, d)| d.clone()).collect();
        diagnostics::sort(&mut out);
        out
    }

    fn refresh_engine(&mut self) {
        if self.engine_stale {
            let mut out = Vec::new();
            diagnostics::engine(&self.cfg, &mut out);
            self.add(Group::Engine, out);
            self.engine_stale = false;
            self.engine_clients = crate::ide::hover::representative_clients(&[&self.cfg]);
        }
    }

    fn add(&mut self, group: Group, found: Vec<Diagnostic>) {
        for d in found {
            if let Some(list) = self.findings.get_mut(d.file) {
                list.push((group, d));
            }
        }
    }

    /// Applies an edit of `file`, whose new contents are `fd`, with the change its
    /// reparse reported. Returns false when the edit is not one this can follow: the
    /// analysis is then out of date (possibly half changed) and must be replaced by
    /// a fresh load.
    pub fn edit(&mut self, file: FileId, fd: Arc<FileData>, change: Option<LocalChange>) -> bool {
        let Some(change) = change else { return false };
        // An .htaccess file's top level is one block whose lines describe each other (the
        // deprecated-access and access-rules checks): such files are small, and analysed afresh.
        if self.cfg.top == crate::ide::config::TopLevel::Htaccess {
            return false;
        }
        let Some(old_fd) = self.cfg.files.get(file).cloned() else { return false };
        if old_fd.path != fd.path || old_fd.not_utf8.is_some() {
            return false;
        }
        // A byte-order mark added or removed decides whether httpd evaluates anything in the
        // file (`ide::bom`): every block's findings change, not the first node's alone.
        if crate::ide::bom::starts_with_bom(&old_fd.text) != crate::ide::bom::starts_with_bom(&fd.text) {
            return false;
        }
        let (Some(old_dirs), Some(new_dirs)) = (directives_in(&old_fd, change.old), directives_in(&fd, change.new))
        else {
            return false;
        };
        let mut new_nodes = Vec::with_capacity(new_dirs.len());
        for d in &new_dirs {
            match standalone_directive(&fd, file, d) {
                Some(n) => new_nodes.push(n),
                None => return false,
            }
        }
        // The replaced directives as nodes of the old text: only their names are read.
        let mut old_nodes = Vec::with_capacity(old_dirs.len());
        for d in &old_dirs {
            match standalone_directive(&old_fd, file, d) {
                Some(n) => old_nodes.push(n),
                None => return false,
            }
        }
        // The policy context of the whole configuration (kept in `ctx`) counts the
        // methods RegisterHttpMethod names: a change there reaches every section.
        // A mod_macro `Use` line may expand to sections: what may follow it (`<Else>`, the
        // problems group's else-without-if) changes.
        if names_of(&old_nodes, &new_nodes)
            .any(|n| n.eq_ignore_ascii_case("RegisterHttpMethod") || n.eq_ignore_ascii_case("Use"))
        {
            return false;
        }
        let engine_dirty = names_of(&old_nodes, &new_nodes).any(read_by_engine);

        // Where the replaced nodes are: nowhere when the lines are in a conditional
        // section whose condition is false.
        let inactive =
            self.cfg.inactive.iter().any(|(f, r)| *f == file && r.contains_range(change.old) && !change.old.is_empty());
        let place = if inactive {
            None
        } else {
            match locate(&self.cfg, file, change.old, old_dirs.len()) {
                Some(p) => Some(p),
                None => return false,
            }
        };
        if inactive {
            new_nodes.clear();
        }

        // Findings that the edit invalidates, in the old positions: the file's syntax
        // findings, and the local findings of the top-level node holding the edit (or
        // of the replaced top-level directives).
        let scope: Vec<(FileId, TextRange)> = match &place {
            Some(p) if !p.path.is_empty() => coverage(&self.cfg.nodes[p.path[0]]),
            _ => vec![(file, change.old)],
        };
        // Findings are told apart by where they are: that only works when the nodes
        // there are read once (a file included twice has its nodes in two places).
        let read_once = |f: FileId| read_once(&self.cfg, f);
        if !scope.iter().all(|(f, _)| read_once(*f)) {
            return false;
        }
        let within = |scope: &[(FileId, TextRange)], d: &Diagnostic| {
            scope.iter().any(|(f, r)| *f == d.file && r.contains_range(d.range))
        };
        // The engine findings the edit can change: those of the top-level nodes
        // [`engine_scope`] names, or all of them.
        let engine_tops = match engine_dirty && !self.engine_stale {
            true => engine_scope(&self.cfg, place.as_ref(), names_of(&old_nodes, &new_nodes)),
            false => None,
        };
        let engine_old: Vec<(FileId, TextRange)> =
            engine_tops.iter().flatten().flat_map(|&i| coverage(&self.cfg.nodes[i])).collect();
        if !engine_old.iter().all(|(f, _)| read_once(*f)) {
            return false;
        }
        for list in &mut self.findings {
            list.retain(|(g, d)| match g {
                Group::Syntax => d.file != file,
                Group::Local => !within(&scope, d),
                Group::Engine => !engine_dirty || (engine_tops.is_some() && !within(&engine_old, d)),
                Group::Problems => true,
            });
        }
        if engine_dirty && engine_tops.is_none() {
            self.engine_stale = true;
        }
        // Whether the index keeps its structure (see `Index::directives_edited`).
        let index_kept = match &place {
            Some(p) => {
                p.count == new_nodes.len()
                    && !names_of(&old_nodes, &new_nodes)
                        .any(|n| crate::ide::config::Index::READS.iter().any(|r| r.eq_ignore_ascii_case(n)))
                    && !p
                        .path
                        .iter()
                        .scan(&self.cfg.nodes[..], |l, &i| {
                            let n = &l[i];
                            *l = &n.children;
                            Some(n)
                        })
                        .any(|n| n.is("If") || n.is("ElseIf") || n.is("Else"))
            }
            None => new_nodes.is_empty(),
        };

        // The configuration after the edit.
        let (q, delta) = (change.old.end(), change.delta());
        let line_delta = i64::from(fd.line_of(change.new.end())) - i64::from(old_fd.line_of(q));
        let cfg = Arc::make_mut(&mut self.cfg);
        shift_config(cfg, file, q, delta);
        // The replaced nodes were shifted with the rest (harmlessly: shifts are total) and
        // are replaced in one splice, so that a level keeps its block when the count does
        // not change (the index finds sections by address, `Index::directives_edited`).
        if let Some(p) = &place {
            splice_level(&mut cfg.nodes, &p.path, p.start..p.start + p.count, &new_nodes);
        }
        cfg.files[file] = fd;
        if index_kept {
            cfg.directives_edited(line_delta != 0);
        } else {
            cfg.nodes_changed();
        }
        for list in &mut self.findings {
            for (_, d) in list.iter_mut() {
                if d.file == file {
                    d.range = shift(d.range, q, delta);
                }
                for r in &mut d.related {
                    if r.file == file {
                        r.range = shift(r.range, q, delta);
                    }
                }
            }
        }

        // New findings.
        let mut out = Vec::new();
        diagnostics::syntax(&self.cfg, file, &mut out);
        self.add(Group::Syntax, out);
        let (view_nodes, scope) = match &place {
            Some(p) if !p.path.is_empty() => {
                let top = self.cfg.nodes[p.path[0]].clone();
                let scope = coverage(&top);
                (vec![top], scope)
            }
            _ => (new_nodes, vec![(file, change.new)]),
        };
        if !view_nodes.is_empty() {
            let view = self.cfg.view(view_nodes, self.ctx.clone());
            let mut out = Vec::new();
            diagnostics::local(&view, &mut out);
            if out.iter().any(|d| !within(&scope, d)) {
                // A finding about something else than the node checked: this check is
                // not local after all. Start again from a fresh load rather than guess.
                tracing::warn!("a local check reported outside its node; analysing afresh");
                return false;
            }
            self.add(Group::Local, out);
        }
        if let Some(tops) = engine_tops {
            // The clients every finding was computed for must not have changed.
            if crate::ide::hover::representative_clients(&[&self.cfg]) != self.engine_clients {
                for list in &mut self.findings {
                    list.retain(|(g, _)| *g != Group::Engine);
                }
                self.engine_stale = true;
            } else {
                let ix = self.cfg.index();
                let sections: Vec<SecId> = tops
                    .iter()
                    .flat_map(|&i| self.cfg.nodes[i].walk())
                    .filter(|n| n.is_section())
                    .filter_map(|n| ix.id(n))
                    .collect();
                let mut out = Vec::new();
                diagnostics::engine_for(&self.cfg, &sections, &mut out);
                self.add(Group::Engine, out);
            }
        }
        true
    }
}

/// The names of the directives an edit replaces and of those it writes.
fn names_of<'a>(old: &'a [Node], new: &'a [Node]) -> impl Iterator<Item = &'a str> {
    old.iter().chain(new).map(|n| n.name())
}

/// The top-level nodes whose engine findings an edit of `names` at `place` can
/// change, when that can be told: an edit inside a virtual host changes what
/// requests to that host do, and what requests answered by it for other names do.
/// So: that host; every top-level section outside virtual hosts (their requests may
/// be answered by any host); and every host that may answer requests for another
/// host's name (no ServerName, or a name an earlier host answers to). Directives
/// that choose hosts by name or map URLs for every host (ServerName, ServerAlias,
/// the Alias family) change everything: None, as for an edit outside a virtual host.
fn engine_scope<'a>(
    cfg: &Config,
    place: Option<&Place>,
    mut names: impl Iterator<Item = &'a str>,
) -> Option<Vec<usize>> {
    let top = *place?.path.first()?;
    if !cfg.nodes[top].is("VirtualHost") || !cfg.nodes[top].is_section() {
        return None;
    }
    const EVERY_HOST: &[&str] =
        &["servername", "serveralias", "alias", "scriptalias", "aliasmatch", "scriptaliasmatch"];
    if names.any(|n| EVERY_HOST.contains(&n.to_ascii_lowercase().as_str())) {
        return None;
    }
    let ix = cfg.index();
    let mut out = vec![top];
    let mut vhost = 0u32;
    for (i, n) in cfg.nodes.iter().enumerate() {
        if !n.is_section() {
            continue;
        }
        if !n.is("VirtualHost") {
            out.push(i);
            continue;
        }
        let name = n.children.iter().find(|c| c.is("ServerName")).and_then(|c| c.args().first());
        let own = name.is_some_and(|name| {
            let host = name.split("://").last().unwrap_or(name);
            ix.vhost_by_name(host, None) == Some(vhost)
        });
        if !own && i != top {
            out.push(i);
        }
        vhost += 1;
    }
    Some(out)
}

/// Whether the request engine (the checks of `diagnostics::engine`, hover's
/// effective policy) reads directives of this name: access control, the names
/// that map URLs to files and pick virtual hosts, per-directory settings the
/// walk looks at. A test keeps this in step with the names the engine's source
/// mentions; the prefixes cover whole families (`Auth*`, `Require*`, `SSL*`).
pub fn read_by_engine(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    ENGINE_PREFIXES.iter().any(|p| l.starts_with(p)) || ENGINE_DIRECTIVES.contains(&l.as_str())
}

const ENGINE_PREFIXES: &[&str] =
    &["auth", "require", "ssl", "setenv", "browsermatch", "rewrite", "alias", "script", "remoteip"];

const ENGINE_DIRECTIVES: &[&str] = &[
    "acceptpathinfo",
    "accessfilename",
    "action",
    "addhandler",
    "addtype",
    "allow",
    "allowencodedslashes",
    "allowmethods",
    "allowoverride",
    "allowoverridelist",
    "anonymous",
    "anonymous_logemail",
    "anonymous_mustgiveemail",
    "anonymous_nouserid",
    "anonymous_verifyemail",
    "checkcaseonly",
    "checkspelling",
    "customlog",
    "deny",
    "directoryindex",
    "directoryslash",
    "documentroot",
    "error",
    "errordocument",
    "errorlog",
    "fallbackresource",
    "forcetype",
    "group",
    "header",
    "hostnamelookups",
    "httpprotocoloptions",
    "limitrequestbody",
    "limitrequestline",
    "listen",
    "loglevel",
    "logmessage",
    "mergeslashes",
    "options",
    "order",
    "passenv",
    "port",
    "proxypass",
    "proxypassmatch",
    "redirect",
    "redirectmatch",
    "redirectpermanent",
    "redirecttemp",
    "registerhttpmethod",
    "requestheader",
    "satisfy",
    "serveralias",
    "servername",
    "sethandler",
    "traceenable",
    "unsetenv",
    "user",
    "userdir",
    "virtualdocumentroot",
    "virtualdocumentrootip",
];

/// The directives of the top-level lines of `range` (whole lines of one
/// container, as [`LocalChange`] reports them). None if the lines are not that.
fn directives_in(fd: &FileData, range: TextRange) -> Option<Vec<ast::Directive>> {
    let mut out = Vec::new();
    if range.is_empty() {
        return Some(out);
    }
    let root = fd.parse.syntax_node();
    let container = match root.covering_element(range) {
        rowan::NodeOrToken::Node(n) => n,
        rowan::NodeOrToken::Token(t) => t.parent()?,
    }
    .ancestors()
    .find(|n| matches!(n.kind(), SyntaxKind::SOURCE_FILE | SyntaxKind::SECTION))?;
    let mut el = container.child_or_token_at_range(TextRange::at(range.start(), TextSize::from(1)));
    while let Some(e) = el {
        let r = e.text_range();
        if r.start() >= range.end() {
            break;
        }
        if !range.contains_range(r) {
            return None;
        }
        if let Some(d) = e.as_node().cloned().and_then(ast::Directive::cast) {
            out.push(d);
        }
        el = e.next_sibling_or_token();
    }
    Some(out)
}

/// Where the nodes of some lines of a file are in the configuration: the node
/// list (by indices from the top level down), and the nodes' place in it.
#[derive(Debug)]
struct Place {
    path: Vec<usize>,
    start: usize,
    count: usize,
}

fn level<'a>(nodes: &'a [Node], path: &[usize]) -> &'a [Node] {
    path.iter().fold(nodes, |l, &i| &l[i].children)
}

/// Replaces the nodes at `range` of the list at `path` (the top level, or a section's
/// body) by `new`. A list keeps its block when the count does not change.
fn splice_level(nodes: &mut Vec<Node>, path: &[usize], range: std::ops::Range<usize>, new: &[Node]) {
    match path.split_last() {
        None => {
            nodes.splice(range, new.iter().cloned());
        }
        Some((&last, outer)) => {
            let level = outer.iter().fold(&mut nodes[..], |l, &i| &mut l[i].children[..]);
            level[last].children.splice(range, new.iter().cloned());
        }
    }
}

/// Finds the `count` nodes of `file` inside `region` (or, with none, where nodes
/// for the region would go). None when that place cannot be told.
fn locate(cfg: &Config, file: FileId, region: TextRange, count: usize) -> Option<Place> {
    let includes: Vec<&(FileId, FileId, TextRange)> = cfg.included_from.iter().filter(|(c, _, _)| *c == file).collect();
    // The list holding the file's top-level nodes, from where they start.
    let (mut path, from) = match includes.as_slice() {
        [] if file == 0 => (Vec::new(), 0),
        [(_, parent, range)] if *parent != file => {
            let p = locate(cfg, *parent, *range, 1)?;
            (p.path, p.start + 1)
        }
        _ => return None,
    };
    let mut from = from;
    // Down through the file's sections holding the region.
    loop {
        let l = level(&cfg.nodes, &path);
        let holder = l.iter().enumerate().skip(from).position(|(_, n)| {
            n.is_section()
                && n.loc.file == file
                && n.loc.range.start() < region.start()
                && n.loc.range.contains_range(region)
        });
        match holder {
            Some(i) => {
                path.push(from + i);
                from = 0;
            }
            None => break,
        }
    }
    let l = level(&cfg.nodes, &path);
    let inside: Vec<usize> = (from..l.len())
        .filter(|&i| l[i].loc.file == file && region.contains_range(l[i].loc.range) && !l[i].loc.range.is_empty())
        .collect();
    if inside.len() != count {
        return None;
    }
    if let (Some(&first), Some(&last)) = (inside.first(), inside.last()) {
        if last + 1 - first != count {
            return None;
        }
        return Some(Place { path, start: first, count });
    }
    // No node there yet: before the file's next node, or after its previous one.
    if let Some(next) = (from..l.len()).find(|&i| l[i].loc.file == file && l[i].loc.range.start() >= region.end()) {
        return Some(Place { path, start: next, count: 0 });
    }
    match (from..l.len()).rev().find(|&i| l[i].loc.file == file && l[i].loc.range.end() <= region.start()) {
        Some(prev) if !(l[prev].is("Include") || l[prev].is("IncludeOptional")) => {
            Some(Place { path, start: prev + 1, count: 0 })
        }
        Some(_) => None,
        None if l.len() == from => Some(Place { path, start: from, count: 0 }),
        None => None,
    }
}

/// The places a top-level node's subtree covers: its own range, and that of every
/// node inside it that comes from another file.
/// The `<VirtualHost>` sections whose requests may pass directory `dir` (absolute): those whose
/// DocumentRoot or an Alias/ScriptAlias target is `dir`, a directory above it or one below it
/// (httpd's walk reads the .htaccess file of each directory from `/` down to the one a request
/// maps to). None when that cannot be told: a regular-expression alias may map a request
/// anywhere, and a server with no DocumentRoot has httpd's built-in one.
fn vhosts_passing(cfg: &Config, dir: &str) -> Option<std::collections::HashSet<SecId>> {
    use crate::ide::allow_override::{absolute, at_or_below, served_dirs};
    use crate::ide::config::ServerId;
    let ix = cfg.index();
    let mut out = std::collections::HashSet::new();
    for (v, host) in ix.vhosts.iter().enumerate() {
        let server = ServerId::Vhost(v as u32);
        if server.scopes(ix).any(|s| s.aliases.iter().any(|a| a.kind.is_regex()))
            || host.scope.document_root.is_none() && ix.main.document_root.is_none()
        {
            return None;
        }
        let mut served = served_dirs(ix, server).map(|t| absolute(cfg, t));
        if served.any(|t| at_or_below(dir, &t) || at_or_below(&t, dir)) {
            out.insert(host.id);
        }
    }
    Some(out)
}

/// Whether the nodes of `file` are read once (a file included twice has its nodes in two
/// places, and findings are told apart by where they are).
fn read_once(cfg: &Config, file: FileId) -> bool {
    cfg.included_from.iter().filter(|(c, _, _)| *c == file).count() <= usize::from(file != 0)
}

fn coverage(top: &Node) -> Vec<(FileId, TextRange)> {
    let mut out = vec![(top.loc.file, top.loc.range)];
    let mut stack: Vec<&Node> = vec![top];
    while let Some(n) = stack.pop() {
        for c in &n.children {
            if c.loc.file != n.loc.file {
                out.push((c.loc.file, c.loc.range));
            }
            stack.push(c);
        }
    }
    out
}

/// A range of the old text in the new one, for an edit that replaced text before
/// `q` and moved everything from `q` on by `delta`: after it, moved; around it
/// (an enclosing section), its end moved; before it, unchanged.
fn shift(r: TextRange, q: TextSize, delta: i64) -> TextRange {
    let mv = |o: TextSize| TextSize::from((i64::from(u32::from(o)) + delta).max(0) as u32);
    if r.start() >= q {
        TextRange::new(mv(r.start()), mv(r.end()))
    } else if r.end() >= q {
        // (Ranges that began inside the replaced text are dropped by the callers;
        // never make an inverted one.)
        TextRange::new(r.start(), mv(r.end()).max(r.start()))
    } else {
        r
    }
}

/// Moves every position of `file` in the configuration.
fn shift_config(cfg: &mut Config, file: FileId, q: TextSize, delta: i64) {
    let mut stack: Vec<&mut Node> = cfg.nodes.iter_mut().collect();
    while let Some(n) = stack.pop() {
        if n.loc.file == file && n.loc.range.end() < q {
            // Before the edit: so is everything of `file` inside it (other files' nodes
            // below it, from an Include, do not move).
            continue;
        }
        if n.loc.file == file {
            n.loc.range = shift(n.loc.range, q, delta);
            n.loc.focus = shift(n.loc.focus, q, delta);
        }
        stack.extend(n.children.iter_mut());
    }
    for p in &mut cfg.problems {
        if p.file == file {
            p.range = shift(p.range, q, delta);
        }
    }
    for (f, r) in cfg.inactive.iter_mut().chain(cfg.compat_guarded.iter_mut()) {
        if *f == file {
            *r = shift(*r, q, delta);
        }
    }
    for (_, parent, r) in &mut cfg.included_from {
        if *parent == file {
            *r = shift(*r, q, delta);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::{load, load_fragment};
    use crate::ide::diagnostics::tests::Fixture;
    use proptest::prelude::*;
    use std::path::Path;

    const MAIN: &str = r#"//- /srv/httpd.conf
LoadModule authz_core_module m.so
LoadModule authz_host_module m.so
LoadModule access_compat_module m.so
LoadModule alias_module m.so
LoadModule authz_groupfile_module m.so
LoadModule authz_dbm_module m.so
ServerName main.example
DocumentRoot /nonexistent-docroot
<Directory />
  Order deny,allow
  Deny from all
</Directory>
<IfModule mod_nothing.c>
  Frobnicate on
</IfModule>
<IfModule mod_authz_core.c>
  Options None
</IfModule>
Include /srv/site.conf
<VirtualHost *:80>
  ServerName v.example
  Include /srv/inner.conf
  <Location /status>
    Require local
    <Limit POST>
      Require all denied
    </Limit>
  </Location>
</VirtualHost>
<VirtualHost *:80>
  ServerName w.example
  DocumentRoot /nonexistent-w
  <Directory /nonexistent-w>
    Require all granted
    Options None
  </Directory>
</VirtualHost>
<VirtualHost *:80>
  DocumentRoot /nonexistent-u
  <Directory /nonexistent-u>
    Require ip 10.9.9.9
  </Directory>
</VirtualHost>
# trailing comment
//- /srv/site.conf
<Location /server-status>
  Require local
  Require group admins
</Location>
ServerAdmin webmaster@example.com
//- /srv/inner.conf
Alias /x /nonexistent-x
<Directory /nonexistent-x>
  Order allow,deny
  Allow from 10.0.0.1
  Require all granted
</Directory>
"#;

    const FRAGMENT: &str = "//- /srv/frag.conf\n<VirtualHost *:80>\n  ServerName f\n  <Directory /x>\n    Order deny,allow\n    Allow from all\n  </Directory>\n  Frobnicate on\n</VirtualHost>\nHeader set X 1\n";

    /// Old and new lines side by side at an .htaccess file's top level, and in a section.
    const HTACCESS: &str = "//- /srv/www/.htaccess\nOrder deny,allow\nDeny from all\nAllow from 10.0.0.0/8\nRequire ip 10.0.0.1\n<Files x>\n  Order allow,deny\n</Files>\n";

    fn load_fx(fx: &Fixture) -> Config {
        let main = Path::new(&fx.0[0].0);
        if fx.0[0].1.contains("LoadModule") {
            load(main, fx)
        } else {
            load_fragment(main, fx)
        }
    }

    /// Replaces `range` of file `i` by `insert`, updates `a` (or reloads), and
    /// checks the result against a fresh load. Returns whether `a` followed the edit.
    fn edit_and_compare(
        fx: &mut Fixture,
        a: &mut Analysis,
        i: usize,
        range: std::ops::Range<usize>,
        insert: &str,
    ) -> bool {
        let path = fx.0[i].0.clone();
        let mut text = fx.0[i].1.clone();
        text.replace_range(range.clone(), insert);
        fx.0[i].1 = text.clone();
        let followed = match a.cfg.file_id(Path::new(&path)) {
            Some(file) => {
                let old = a.cfg.files[file].clone();
                let delete = TextRange::new(TextSize::from(range.start as u32), TextSize::from(range.end as u32));
                let (fd, change) = old.edited(Arc::from(text.as_str()), delete, TextSize::of(insert));
                a.edit(file, Arc::new(fd), change)
            }
            None => false,
        };
        if !followed {
            *a = Analysis::new(load_fx(fx));
        }
        let mut fresh = Analysis::new(load_fx(fx));
        assert_eq!(
            format!("{:#?}", a.cfg.nodes),
            format!("{:#?}", fresh.cfg.nodes),
            "nodes after {insert:?} at {range:?} in {path}"
        );
        assert_eq!(format!("{:?}", a.cfg.problems), format!("{:?}", fresh.cfg.problems));
        assert_eq!(a.cfg.inactive, fresh.cfg.inactive);
        assert_eq!(a.cfg.compat_guarded, fresh.cfg.compat_guarded);
        assert_eq!(a.cfg.included_from, fresh.cfg.included_from);
        let texts: Vec<&str> = a.cfg.files.iter().map(|f| &*f.text).collect();
        let fresh_texts: Vec<&str> = fresh.cfg.files.iter().map(|f| &*f.text).collect();
        assert_eq!(texts, fresh_texts);
        // The index the analysis kept (or built again) says what a fresh one says.
        let (ia, ib) = (a.cfg.index(), fresh.cfg.index());
        assert_eq!(ia.len(), ib.len());
        for id in 0..ib.len() as u32 {
            assert_eq!(
                format!("{:?}", ia.built(&a.cfg, id).policy),
                format!("{:?}", ib.built(&fresh.cfg, id).policy),
                "section {id} after {insert:?} at {range:?} in {path}"
            );
        }
        assert_eq!(
            a.all_diagnostics(),
            fresh.all_diagnostics(),
            "diagnostics after {insert:?} at {range:?} in {path}:\n{text}"
        );
        followed
    }

    fn at(fx: &Fixture, file: usize, needle: &str) -> usize {
        fx.0[file].1.find(needle).unwrap_or_else(|| panic!("{needle:?} not in file {file}"))
    }

    #[test]
    fn typing_in_directives_is_followed_without_reloading() {
        let mut fx = Fixture::parse(MAIN);
        let mut a = Analysis::new(load_fx(&fx));
        // The fixture has findings of every group, the engine's among them.
        let codes: Vec<&str> = a.all_diagnostics().iter().map(|d| d.code).collect();
        assert!(codes.contains(&"defeated-require"), "{codes:?}");
        let followed = |fx: &mut Fixture, a: &mut Analysis, file, needle: &str, del: usize, ins: &str| {
            let p = at(fx, file, needle);
            edit_and_compare(fx, a, file, p..p + del, ins)
        };
        // An access rule in one virtual host: the other hosts' engine findings are kept.
        assert!(followed(&mut fx, &mut a, 0, "Require ip 10.9.9.9", 0, "#"));
        assert!(followed(&mut fx, &mut a, 0, "Options None\n  </Directory>", 0, "Order allow,deny\n    "));
        // A plain directive, an access directive, a comment, in the main file and in included ones.
        assert!(followed(&mut fx, &mut a, 0, "main.example", 0, "x"));
        assert!(followed(&mut fx, &mut a, 0, "deny,allow", 0, "x"));
        assert!(followed(&mut fx, &mut a, 0, "trailing", 0, "a "));
        assert!(followed(&mut fx, &mut a, 1, "webmaster", 1, ""));
        assert!(followed(&mut fx, &mut a, 1, "group admins", 0, "x"));
        assert!(followed(&mut fx, &mut a, 2, "10.0.0.1", 1, "2"));
        assert!(followed(&mut fx, &mut a, 0, "Require all denied", 0, "# "));
        // New lines and deleted ones, inside an inactive conditional too.
        assert!(followed(&mut fx, &mut a, 0, "  Frobnicate", 0, "  Order allow,deny\n"));
        assert!(followed(&mut fx, &mut a, 0, "  Options None\n", 15, ""));
        assert!(followed(&mut fx, &mut a, 2, "  Require all granted\n", 0, "  Satisfy Any\n"));
        // A section header, a directive the loader acts on: loaded again.
        assert!(!followed(&mut fx, &mut a, 0, "<Location /status>", 0, "x"));
        assert!(!followed(&mut fx, &mut a, 1, "ServerAdmin", 0, "Define X 1\n"));
        assert!(!followed(&mut fx, &mut a, 0, "ServerName v", 0, "Include /srv/site.conf\n"));
    }

    #[test]
    fn a_fragment_and_its_engine_findings() {
        let mut fx = Fixture::parse(FRAGMENT);
        let mut a = Analysis::new(load_fx(&fx));
        let p = at(&fx, 0, "Allow from all");
        assert!(edit_and_compare(&mut fx, &mut a, 0, p + 11..p + 14, "10"));
        let p = at(&fx, 0, "Frobnicate");
        assert!(edit_and_compare(&mut fx, &mut a, 0, p..p, "X"));
        let end = fx.0[0].1.len();
        assert!(edit_and_compare(&mut fx, &mut a, 0, end..end, "Require all granted\n"));
    }

    /// The editor's text of an .htaccess file changing (opened, edited, closed) re-checks only
    /// the sections requests to its directory pass, and the findings equal a fresh analysis's
    /// with the same files: the file below virtual host a re-opens the main server's denial
    /// there (a's Require decides again), and b's finding stays.
    #[test]
    fn htaccess_text_changes_recheck_the_sections_reaching_them() {
        use crate::ide::config::HtaccessFound;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        for sub in ["a", "b", "c"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        let main = dir.path().join("httpd.conf");
        let host = |name: &str| {
            format!("<VirtualHost *:80>\n  ServerName {name}.test\n  DocumentRoot {d}/{name}\n  <Directory {d}/{name}>\n    Require ip 127.0.0.1\n  </Directory>\n</VirtualHost>\n")
        };
        std::fs::write(
            &main,
            format!("LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nListen 80\nDocumentRoot {d}/c\n<Directory {d}>\n  AllowOverride All\n  Order allow,deny\n</Directory>\n{}{}", host("a"), host("b")),
        )
        .unwrap();
        let cfg = load(&main, &crate::ide::config::RealFs);
        let ht = dir.path().join("a/.htaccess");
        let paths: Arc<[std::path::PathBuf]> = Arc::from(Vec::new());
        let found = |open: Option<&str>| {
            Arc::new(HtaccessFound {
                paths: paths.clone(),
                open: open.map(|t| (ht.clone(), Arc::<str>::from(t))).into_iter().collect(),
            })
        };
        let mut a = Analysis::new(cfg.clone());
        a.set_htaccess_found(Some(found(None)), false);
        let traps = |a: &mut Analysis| {
            a.all_diagnostics().iter().filter(|x| x.code == "defeated-require").map(|x| x.range).collect::<Vec<_>>()
        };
        assert_eq!(traps(&mut a).len(), 2);
        for (step, text) in
            [Some("Order deny,allow\nAllow from all\n"), Some("Order allow,deny\n"), Some("Order deny,allow\n"), None]
                .into_iter()
                .enumerate()
        {
            a.set_htaccess_found(Some(found(text)), true);
            assert!(!a.engine_stale, "step {step}: re-checked in place, not all again");
            let mut fresh = Analysis::new(cfg.clone());
            fresh.set_htaccess_found(Some(found(text)), false);
            assert_eq!(a.all_diagnostics(), fresh.all_diagnostics(), "step {step}");
            let expected = if text.is_some_and(|t| t.contains("deny,allow")) { 1 } else { 2 };
            assert_eq!(traps(&mut a).len(), expected, "step {step}: {text:?}");
        }
    }

    /// Lines an edit may insert: every kind of line the analysis treats differently.
    fn line() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "  Require all granted\n",
            "  Require ip 10.1.2.3\n",
            "  Require group admins\n",
            "  Order allow,deny\n",
            "  Allow from 127.0.0.1\n",
            "  Deny from all\n",
            "  Satisfy Any\n",
            "ServerAdmin a@b\n",
            "ServerName n.example\n",
            "Options -Indexes\n",
            "Frobnicate on\n",
            "AuthzUserAuthoritative On\n",
            "DocumentRoot /nonexistent-docroot\n",
            "Alias /y /nonexistent-y\n",
            "RegisterHttpMethod FOO\n",
            "Define V 1\n",
            "Header set X ${V}\n",
            "LoadModule rewrite_module m.so\n",
            "Include /srv/site.conf\n",
            "# comment\n",
            "\n",
            "Options \\\n",
            "<Limit GET>\n",
            "</Limit>\n",
            "<Directory /nonexistent-z>\n",
            "</Directory>\n",
            "MaxRequestWorkers 10\n",
            "Use M\n",
            "<If \"true\">\n",
            "</If>\n",
            "<Else>\n",
            "</Else>\n",
        ])
    }

    #[derive(Debug, Clone)]
    enum Edit {
        InsertLine(usize, usize, &'static str),
        DeleteLine(usize, usize),
        Char(usize, usize, bool, char),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            (0usize..3, 0usize..1000, line()).prop_map(|(f, l, s)| Edit::InsertLine(f, l, s)),
            (0usize..3, 0usize..1000).prop_map(|(f, l)| Edit::DeleteLine(f, l)),
            (
                0usize..3,
                0usize..10_000,
                any::<bool>(),
                prop::sample::select(vec!['x', ' ', '1', '#', '"', '\\', '\n', 'é'])
            )
                .prop_map(|(f, o, del, c)| Edit::Char(f, o, del, c)),
        ]
    }

    fn line_starts(t: &str) -> Vec<usize> {
        std::iter::once(0).chain(t.match_indices('\n').map(|(i, _)| i + 1)).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn edited_analysis_equals_a_fresh_one(kind in 0..3usize, edits in proptest::collection::vec(edit(), 1..10)) {
            let mut fx = Fixture::parse([MAIN, FRAGMENT, HTACCESS][kind]);
            let mut a = Analysis::new(load_fx(&fx));
            for e in edits {
                let n = fx.0.len();
                match e {
                    Edit::InsertLine(f, l, s) => {
                        let f = f % n;
                        let starts = line_starts(&fx.0[f].1);
                        let p = starts[l % starts.len()];
                        edit_and_compare(&mut fx, &mut a, f, p..p, s);
                    }
                    Edit::DeleteLine(f, l) => {
                        let f = f % n;
                        let t = fx.0[f].1.clone();
                        let starts = line_starts(&t);
                        let i = l % starts.len();
                        let end = starts.get(i + 1).copied().unwrap_or(t.len());
                        edit_and_compare(&mut fx, &mut a, f, starts[i]..end, "");
                    }
                    Edit::Char(f, o, del, c) => {
                        let f = f % n;
                        let t = fx.0[f].1.clone();
                        let bounds: Vec<usize> = t.char_indices().map(|(i, _)| i).chain([t.len()]).collect();
                        let i = o % bounds.len();
                        if del && i + 1 < bounds.len() {
                            edit_and_compare(&mut fx, &mut a, f, bounds[i]..bounds[i + 1], "");
                        } else {
                            edit_and_compare(&mut fx, &mut a, f, bounds[i]..bounds[i], &c.to_string());
                        }
                    }
                }
            }
        }
    }

    /// The directive names the request engine's source mentions, found by reading
    /// the source of every module the engine checks reach (from
    /// `diagnostics/defeated_require.rs`, following `crate::ide::…` and `super::…`
    /// paths; the catalogue is data about directives, not configuration, and is left
    /// out). Each must be one [`read_by_engine`] answers yes for (or one the loader
    /// acts on, never edited in place), or an edit of it would leave the engine's
    /// findings stale. Not followed: `diagnostics::htaccess_refusals`, which reads an
    /// .htaccess file's own lines only (nothing of any other configuration, held below), and
    /// those files' edits make the engine read them again (`set_htaccess_found`).
    #[test]
    fn every_directive_the_engine_reads_is_known_to_read_by_engine() {
        let ide = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ide");
        // A module's file; for a directory module, the file of the item named after it when
        // it is one of its modules (`diagnostics::directive_context`), else all of its files.
        let file_of = |module: &str, sub: &str| -> Vec<std::path::PathBuf> {
            let single = ide.join(format!("{module}.rs"));
            let dir = ide.join(module);
            if single.exists() {
                vec![single]
            } else if !sub.is_empty() && dir.join(format!("{sub}.rs")).exists() {
                vec![dir.join(format!("{sub}.rs"))]
            } else if dir.is_dir() {
                let mut v: Vec<_> = std::fs::read_dir(&dir)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "rs"))
                    .collect();
                v.sort();
                v
            } else {
                vec![]
            }
        };
        let mut todo = vec![ide.join("diagnostics/defeated_require.rs")];
        let htaccess_only = ide.join("diagnostics/htaccess_refusals.rs");
        // (What it reads of a server's configuration: nothing, whatever lines it holds.)
        let fx = crate::ide::diagnostics::tests::Fixture::parse(
            "//- /etc/httpd/httpd.conf\nLoadModule alias_module m\nErrorDocument On /e.html\nServerName a*\nAuthName a b\n",
        );
        let server = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        assert!(crate::ide::diagnostics::htaccess_refusals::of(&server, &Default::default()).is_empty());
        let mut seen = std::collections::BTreeSet::new();
        let mut missing = std::collections::BTreeSet::new();
        while let Some(path) = todo.pop() {
            if path == htaccess_only || !seen.insert(path.clone()) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let here = path.parent().unwrap().strip_prefix(&ide).unwrap().to_string_lossy().into_owned();
            for (i, _) in code.match_indices("crate::ide::").chain(code.match_indices("super::")) {
                let rest = &code[i..];
                let rest = rest.strip_prefix("crate::ide::").map(|r| (r, String::new())).unwrap_or_else(|| {
                    (&rest["super::".len()..], if here.is_empty() { String::new() } else { format!("{here}/") })
                });
                let ident =
                    |t: &str| -> String { t.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
                let name = ident(rest.0);
                let sub = rest.0[name.len()..].strip_prefix("::").map(ident).unwrap_or_default();
                let module = format!("{}{name}", rest.1);
                if !name.is_empty() && !module.starts_with("catalogue") {
                    todo.extend(file_of(&module, &sub));
                }
            }
            for lit in code.split('"').skip(1).step_by(2) {
                let loader = crate::ide::config::LOADER_DIRECTIVES.contains(&lit.to_ascii_lowercase().as_str());
                if crate::ide::catalogue::directive(lit).is_some_and(|d| !d.is_section)
                    && !read_by_engine(lit)
                    && !loader
                {
                    missing.insert(lit.to_ascii_lowercase());
                }
            }
        }
        assert!(seen.len() > 5, "the engine's modules were not found: {seen:?}");
        assert!(missing.is_empty(), "add these to ENGINE_DIRECTIVES in ide/incremental.rs: {missing:?}");
        // And the loader's own directives are never treated as standalone.
        for name in crate::ide::config::LOADER_DIRECTIVES {
            let fd = FileData::new(Arc::from(Path::new("/x.conf")), Arc::from(format!("{name} a\n")), None);
            let d = fd.parse.tree().items().find_map(|i| match i {
                ast::Item::Directive(d) => Some(d),
                _ => None,
            });
            assert!(standalone_directive(&fd, 0, &d.unwrap()).is_none(), "{name}");
        }
    }
}
