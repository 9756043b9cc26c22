//! Feature: rewriting old-style access control (Order/Allow/Deny/Satisfy) into `Require`,
//! proven to keep every request's outcome.
//!
//! * [`quick_fixes`]: for the old-style bodies at a place — a section, or the top level of an
//!   .htaccess file — the behaviour-preserving rewrite (preferred), carrying the body's rules
//!   into the sections that inherit them where that is needed, and the rewrite the upgrade
//!   guide intends (never preferred) with the requests whose outcome it changes.
//! * [`migrate`]: every old-style body of a file or of the whole tree at once (fix-all, the
//!   workspace command, `apache-lsp migrate`).
//!
//! The text comes from the fact sheet's translation (§7, `formula`); which bodies change
//! together comes from the engine's walks (`plan`); and nothing is called
//! behaviour-preserving until the engine has walked every request context that reaches an
//! edited body on the edited configuration and found the same status for every request
//! class (`classes`) as before.

mod body;
mod classes;
mod contexts;
mod dead;
mod describe;
mod formula;
mod guards;
mod plan;
mod startup;

pub use describe::{summarize, Change};

use crate::ide::config::{self, Config, FileSource, Node};
use apache_syntax::{TextRange, TextSize};
use formula::Reading;
use plan::{Analysis, Cluster, Setup};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A text replacement in one file (a file of the configuration, or an .htaccess file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub path: Arc<Path>,
    pub range: TextRange,
    pub new_text: String,
}

/// Where a configuration comes from, so that it can be read again with edits applied.
pub struct Workspace<'a> {
    /// The main configuration, a fragment, or an .htaccess file read on its own.
    pub main: &'a Path,
    pub is_main: bool,
    pub fs: &'a dyn FileSource,
}

/// The root that an .htaccess file read on its own is judged under: its directory as the
/// document root, with every override allowed.
fn standalone_root(htaccess: &Path) -> (PathBuf, String) {
    let dir = htaccess.parent().unwrap_or(Path::new("/"));
    let root = dir.join(".apache-lsp-standalone-root.conf");
    let d = dir.display();
    (root, format!("DocumentRoot \"{d}\"\n<Directory \"{d}\">\n    AllowOverride All\n</Directory>\n"))
}

/// Why nothing in an .htaccess file read without its root configuration can be proven: what
/// it inherits from the server configuration, and what the server lets it override, are unknown.
const STANDALONE_UNPROVEN: &str = "no root configuration names this .htaccess file, so what it inherits from the server configuration is not known: a rewrite may drop an inherited Require or AuthType (opening password-protected content), and whether AllowOverride allows AuthConfig (which Require lines need, else every request is a 500) is not known either; open it in a workspace holding the main configuration, or set rootConfig";

fn is_htaccess_name(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().contains("htaccess"))
}

/// Why nothing in a configuration fragment read without the main configuration that includes it
/// can be proven: sections of the main configuration apply with its own (a `<Location />` merged
/// after its `<Directory>`, a `Require` or `AuthType` it inherits), and a rewrite that adds Require
/// lines replaces what it inherits.
const FRAGMENT_UNPROVEN: &str = "this file was read without the main configuration that includes it, so the sections of that configuration which apply with its own are not known: a rewrite may drop an inherited Require or AuthType (opening password-protected content), or be overridden by a section merged after it; migrate the main configuration (or open the folder holding it) instead";

impl Workspace<'_> {
    /// An .htaccess file read without its root configuration.
    pub fn standalone_htaccess(&self) -> bool {
        !self.is_main && is_htaccess_name(self.main)
    }

    /// Why no rewrite is proven for a file read without the configuration around it (an
    /// .htaccess file without its root, a fragment without its main configuration): None when
    /// the whole configuration is read.
    pub fn unproven_alone(&self) -> Option<&'static str> {
        match (self.is_main, self.standalone_htaccess()) {
            (true, _) => None,
            (false, true) => Some(STANDALONE_UNPROVEN),
            (false, false) => Some(FRAGMENT_UNPROVEN),
        }
    }

    /// The configuration with `pending` texts in place of the files' it reads, and the texts
    /// of the per-request (.htaccess) files among `pending` (and of the file itself when it is
    /// an .htaccess file read alone).
    pub fn load(&self, pending: &BTreeMap<PathBuf, Arc<str>>) -> (Config, BTreeMap<PathBuf, Arc<str>>) {
        struct Over<'a> {
            base: &'a dyn FileSource,
            files: &'a BTreeMap<PathBuf, Arc<str>>,
        }
        impl FileSource for Over<'_> {
            fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
                match self.files.get(path) {
                    Some(t) => Ok((t.clone(), None)),
                    None => self.base.read(path),
                }
            }
            fn disk_paths(&self) -> bool {
                self.base.disk_paths()
            }
            fn own_text(&self, path: &Path) -> Option<Arc<str>> {
                self.files.get(path).cloned().or_else(|| self.base.own_text(path))
            }
        }
        let mut files = pending.clone();
        let cfg = if self.standalone_htaccess() {
            let (root, text) = standalone_root(self.main);
            files.insert(root.clone(), Arc::from(text));
            config::load_for_batch(&root, &Over { base: self.fs, files: &files }, false)
        } else {
            // (Syntax trees are not needed: rewrites work on nodes and text.)
            config::load_for_batch(self.main, &Over { base: self.fs, files: &files }, self.is_main)
        };
        // .htaccess files are read per request: from the pending texts or the file source.
        let mut per_request: Vec<PathBuf> = pending.keys().filter(|p| cfg.file_id(p).is_none()).cloned().collect();
        if self.standalone_htaccess() {
            per_request.push(self.main.to_path_buf());
        }
        let mut texts = BTreeMap::new();
        for p in per_request {
            let text = match pending.get(&p) {
                Some(t) => Some(t.clone()),
                None => self.fs.read(&p).ok().map(|(t, _)| t),
            };
            if let Some(t) = text {
                texts.insert(p, t);
            }
        }
        (cfg, texts)
    }
}

/// Applies edits to a text (edits must not overlap; overlapping ones are dropped).
pub fn apply(text: &str, edits: &[&Edit]) -> String {
    let mut e: Vec<&&Edit> = edits.iter().collect();
    e.sort_by_key(|e| std::cmp::Reverse(e.range.start()));
    let mut out = text.to_string();
    let mut limit = usize::MAX;
    for ed in e {
        let (a, b) = (usize::from(ed.range.start()), usize::from(ed.range.end()));
        if b > limit || b > out.len() || !out.is_char_boundary(a) || !out.is_char_boundary(b) {
            continue;
        }
        out.replace_range(a..b, &ed.new_text);
        limit = a;
    }
    out
}

/// A proposed rewrite.
#[derive(Debug, Clone)]
pub struct Rewrite {
    pub title: String,
    /// Everything the title summarises: which sections change, and how access changes.
    pub detail: String,
    pub edits: Vec<Edit>,
    /// Proven behaviour-preserving (and so offered as the preferred fix).
    pub preferred: bool,
    /// Requests whose outcome changes (empty when preferred).
    pub changes: Vec<Change>,
}

/// The configuration prepared for a proof, and its analysis.
struct Prepared {
    cfg: Config,
}

fn prepare(ws: &Workspace) -> (Prepared, Setup) {
    let (mut cfg, files) = ws.load(&BTreeMap::new());
    let setup = Setup::new(&cfg, files, ws.fs);
    setup.apply(&mut cfg);
    (Prepared { cfg }, setup)
}

/// The configuration after `edits`, set up as the analysed one was, with the file system view
/// its walks read .htaccess files through.
type After = (Config, plan::Views, BTreeMap<PathBuf, (Arc<str>, String)>);

fn after_config(ws: &Workspace, a: &Analysis, edits: &[Edit]) -> After {
    let mut texts: BTreeMap<PathBuf, (Arc<str>, String)> = BTreeMap::new();
    let mut by_path: BTreeMap<&Path, Vec<&Edit>> = BTreeMap::new();
    for e in edits {
        by_path.entry(&e.path).or_default().push(e);
    }
    for (p, mine) in by_path {
        let Some(orig) = a.original_text(p) else { continue };
        texts.insert(p.to_path_buf(), (orig.clone(), apply(&orig, &mine)));
    }
    let mut pending: BTreeMap<PathBuf, Arc<str>> = BTreeMap::new();
    for (p, (_, n)) in &texts {
        let n: Arc<str> = Arc::from(n.as_str());
        // (A file with several names reads the same under each.)
        pending.extend(a.other_names(p).into_iter().map(|o| (o, n.clone())));
        pending.insert(p.clone(), n);
    }
    let (mut cfg, files) = ws.load(&pending);
    a.setup.apply(&mut cfg);
    let fs = a.setup.fs(&files);
    (cfg, fs, texts)
}

fn list(labels: &[String], max: usize) -> String {
    let mut s = labels.iter().take(max).cloned().collect::<Vec<_>>().join(", ");
    if labels.len() > max {
        s.push_str(&format!(" and {} more", labels.len() - max));
    }
    s
}

fn files_of(edits: &[Edit]) -> usize {
    edits.iter().map(|e| &e.path).collect::<BTreeSet<_>>().len()
}

/// Why a body is left: what rewriting it would change, first on the requests its own rules
/// decide, else on those reaching the sections its rules would have to be carried into (whose
/// URLs the body itself may not reach, so the message names those sections).
fn blame_text(a: &Analysis, blame: &plan::Blame) -> String {
    if !blame.own.is_empty() {
        // (A request whose status is unknown both before and after is no change: the proof
        // cannot decide it.)
        let undecided = |c: &Change| c.before.is_none() && c.after.is_none();
        let changed: Vec<Change> = blame.own.iter().filter(|c| !undecided(c)).cloned().collect();
        if changed.is_empty() {
            return format!("the proof cannot decide what httpd answers: {}", changes_text(&blame.own, 3));
        }
        return format!("the rewrite would change access: {}", changes_text(&changed, 3));
    }
    let mut parts = Vec::new();
    for (into, changes) in blame.through.iter().take(2) {
        parts.push(format!("{}: {}", a.label(*into), changes_text(changes, 2)));
    }
    let more = blame.through.len().saturating_sub(2);
    format!(
        "its rules would also have to be carried into the Require lines of sections it shares requests with, and that would change access there: {}{}",
        parts.join("; "),
        if more > 0 { format!("; and {more} more section(s)") } else { String::new() }
    )
}

fn changes_text(changes: &[Change], max: usize) -> String {
    let lines = summarize(changes);
    list(&lines, max).replace(", and", "; and")
}

/// Quick fixes for the old-style bodies of `path` that `range` touches.
pub fn quick_fixes(ws: &Workspace, path: &Path, range: TextRange) -> Vec<Rewrite> {
    let (p, setup) = prepare(ws);
    let a = Analysis::new(&p.cfg, setup);
    let mut out = Vec::new();
    for s in a.bodies_in(path, range) {
        out.extend(fixes_for(ws, &a, s));
    }
    let dead: Vec<(dead::DeadBranch, Edit)> = dead_branches(&p.cfg, &a, |f| f == path)
        .into_iter()
        .filter(|(d, _)| d.lines.intersect(range).is_some())
        .collect();
    for (d, e) in dead {
        let edits = vec![e];
        let (after, afs, _) = after_config(ws, &a, &edits);
        let (changes, _) = a.verify(&after, &afs, &edits, &mut Default::default());
        if changes.is_empty() {
            let standalone = ws.unproven_alone().is_some();
            out.push(Rewrite {
                title: if standalone {
                    format!(
                        "Remove the 2.2 branch {} (not proven: the file was read without the configuration around it, so which modules the server loads is not known)",
                        d.header
                    )
                } else {
                    format!("Remove the dead 2.2 branch {} (httpd 2.4 skips it)", d.header)
                },
                detail: format!(
                    "httpd 2.4 skips {} without reading its lines, so removing the block changes nothing it does; the old-style rules in it never apply.{}\nProven by the engine: every request class reaching the enclosing sections gets the same status before and after.",
                    d.header,
                    if standalone { " (Judged by Debian's default modules: no root configuration names this file.)" } else { "" }
                ),
                edits,
                // (Under the modules the server really loads it may not be dead.)
                preferred: !standalone,
                changes: vec![],
            });
        }
    }
    out
}

/// The dead 2.2 branches holding old-style lines in the files `in_scope` accepts (the
/// configuration's files and the .htaccess files the walks read), each with the edit removing it.
fn dead_branches(cfg: &Config, a: &Analysis, in_scope: impl Fn(&Path) -> bool) -> Vec<(dead::DeadBranch, Edit)> {
    let inactive = |cfg: &Config, id: usize| -> Vec<TextRange> {
        cfg.inactive.iter().filter(|(f, _)| *f == id).map(|(_, r)| *r).collect()
    };
    let mut files: Vec<(Arc<Path>, Arc<str>, Vec<TextRange>)> =
        cfg.files.iter().enumerate().map(|(i, f)| (f.path.clone(), f.text.clone(), inactive(cfg, i))).collect();
    files.extend(a.fragments().iter().map(|f| (f.file(0).path.clone(), f.file(0).text.clone(), inactive(f, 0))));
    let mut out = Vec::new();
    for (path, text, skipped) in files.into_iter().filter(|(p, _, _)| in_scope(p)) {
        for d in dead::dead_branches(&text, &skipped) {
            let e = Edit { path: path.clone(), range: d.lines, new_text: String::new() };
            out.push((d, e));
        }
    }
    out
}

fn fixes_for(ws: &Workspace, a: &Analysis, s: usize) -> Vec<Rewrite> {
    let label = a.body(s).label();
    let mut out = Vec::new();
    // A file httpd refuses as a whole: no rewrite of it is a migration (the fix removing the
    // byte-order mark is the editor's, beside these).
    if let Some(why) = a.refused_file(s) {
        out.push(Rewrite {
            title: format!("Cannot rewrite {label} as Require: {why}"),
            detail: why,
            edits: vec![],
            preferred: false,
            changes: vec![],
        });
        return out;
    }
    let htaccess_note = if let Some(why) = ws.unproven_alone() {
        Some(format!("not proven: {why}"))
    } else {
        a.htaccess_override_problem(s).or_else(|| a.loop_problem(s))
    };
    // The behaviour-preserving rewrite.
    let plan = a.cluster(&[s].into(), &BTreeSet::new()).and_then(|c| a.cluster_edits(&c).map(|e| (c, e)));
    let mut plan_edits = Vec::new();
    match plan {
        Err(b) => out.push(Rewrite {
            title: format!("Cannot rewrite {label} as Require without changing access: {}", b.reason),
            detail: b.reason_for(s).to_string(),
            edits: vec![],
            preferred: false,
            changes: vec![],
        }),
        Ok((cluster, edits)) => {
            // (Nor one carrying lines into a file a link back up repeats.)
            let htaccess_note = htaccess_note.or_else(|| cluster.carry.keys().find_map(|b| a.loop_problem(*b)));
            let (after, afs, _) = after_config(ws, a, &edits);
            let (changes, _) = a.verify(&after, &afs, &edits, &mut Default::default());
            plan_edits = edits.clone();
            let what = describe_cluster(a, s, &cluster, &edits);
            if changes.is_empty() && htaccess_note.is_none() && !edits.is_empty() {
                // (Kept as preferred, as migrate keeps it: the title says what the proof covers.)
                let touched: BTreeSet<usize> = cluster.rewrite.iter().chain(cluster.carry.keys()).copied().collect();
                let later = a.later_htaccess(&touched);
                let later_title = later.get(&s).or_else(|| later.values().next()).map(|l| {
                    let dirs: Vec<String> = l.dirs.iter().take(2).map(|d| d.display().to_string()).collect();
                    format!(
                        " (proven for today's .htaccess files; one written later in {}{} or below is merged otherwise)",
                        dirs.join(", "),
                        if l.dirs.len() > 2 { " …" } else { "" }
                    )
                });
                let later_detail: String =
                    later.iter().map(|(b, l)| format!("\n{}: {}.", a.label(*b), l.sentence())).collect();
                out.push(Rewrite {
                    title: format!("Rewrite as Require{}: {label}{}", what.0, later_title.unwrap_or_default()),
                    detail: format!("{}\nProven by the engine: every request class reaching the edited sections gets the same status before and after.{later_detail}", what.1),
                    edits,
                    preferred: true,
                    changes,
                });
            } else if !edits.is_empty() {
                let why = match &htaccess_note {
                    Some(n) => n.clone(),
                    None => format!("changes access: {}", changes_text(&changes, 3)),
                };
                out.push(Rewrite {
                    title: format!("Rewrite as Require{} ({why}): {label}", what.0),
                    detail: format!("{}\n{why}\n{}", what.1, summarize(&changes).join("\n")),
                    edits,
                    preferred: false,
                    changes,
                });
            }
        }
    }
    // The rewrite the upgrade guide intends: this body alone, the guide's reading of its rules.
    if let Ok(edits) = a.rewrite_edits(s, Reading::Guide) {
        if !edits.is_empty() && edits != plan_edits {
            let (after, afs, _) = after_config(ws, a, &edits);
            let (changes, _) = a.verify(&after, &afs, &edits, &mut Default::default());
            let why = if let Some(why) = ws.unproven_alone() {
                format!("not proven: {why}")
            } else if changes.is_empty() {
                "same access".to_string()
            } else {
                format!("changes access: {}", changes_text(&changes, 3))
            };
            out.push(Rewrite {
                title: format!("Rewrite {label} as the upgrade guide intends ({why})"),
                detail: format!(
                    "The upgrade guide's table rewrites this block on its own, reading `Deny from all` as a default and leaving inheriting sections alone. Requests whose outcome changes:\n{}",
                    summarize(&changes).join("\n")
                ),
                edits,
                preferred: false,
                changes,
            });
        }
    }
    out
}

/// Title part and detail text for a cluster rooted at `s`.
fn describe_cluster(a: &Analysis, s: usize, c: &Cluster, edits: &[Edit]) -> (String, String) {
    let others: Vec<String> = c.rewrite.iter().filter(|x| **x != s).map(|x| a.label(*x)).collect();
    let carried: Vec<String> = c.carry.keys().map(|l| a.label(*l)).collect();
    let mut title = String::new();
    let mut detail = format!("Rewrites {}", a.label(s));
    if !others.is_empty() {
        title.push_str(&format!(" together with {}", list(&others, 2)));
        detail.push_str(&format!(
            "\nTogether with (their old-style rules are inherited across these sections): {}",
            others.join(", ")
        ));
    }
    if !carried.is_empty() {
        title.push_str(&format!(
            ", carrying the inherited old-style restrictions into {} section{} ({} file{})",
            carried.len(),
            if carried.len() == 1 { "" } else { "s" },
            files_of(edits),
            if files_of(edits) == 1 { "" } else { "s" }
        ));
        detail.push_str(&format!(
            "\nThese sections' Require lines are defeated or restricted today by the old-style rules they inherit; the rewrite writes that restriction into them so that they keep answering as they do: {}",
            carried.join(", ")
        ));
    }
    (title, detail)
}

/// What to migrate.
#[derive(Clone, Copy)]
pub enum Scope<'p> {
    Tree,
    File(&'p Path),
}

/// The result of migrating many bodies at once.
#[derive(Debug, Default)]
pub struct Migration {
    pub edits: Vec<Edit>,
    /// path → (original text, new text)
    pub changed: BTreeMap<PathBuf, (Arc<str>, String)>,
    /// Old-style bodies left as they are, with why (`file:line: <Section>: reason`).
    pub left: Vec<String>,
    /// Requests whose outcome changes (only with `allow_changes`).
    pub changes: Vec<String>,
    /// Remarks on the proof (bounded searches, assumptions).
    pub notes: Vec<String>,
    /// The files the tree reads (the configuration's, and the .htaccess files its walks read,
    /// under every name found and by their real paths): a file given beside the main
    /// configuration is migrated with it.
    pub read: BTreeSet<PathBuf>,
}

/// Every old-style body in `scope` rewritten at once: all behaviour-preserving ones (together
/// with what they must carry), and with `allow_changes` the others as the upgrade guide
/// intends.
///
/// A file that begins with a byte-order mark is refused by httpd as a whole
/// ([`crate::ide::bom`]): its bodies are left, with why; [`migrate_removing_bom`] removes the mark.
pub fn migrate(ws: &Workspace, scope: Scope, allow_changes: bool) -> Migration {
    migrate_in(ws, scope, allow_changes, false).0
}

/// [`migrate`] after removing the byte-order mark the files in `scope` begin with (which
/// changes what httpd does: it refused them, and now reads them, said in `changes`): the
/// rewrites are planned and proven on the files as they are without it.
pub fn migrate_removing_bom(ws: &Workspace, scope: Scope, allow_changes: bool) -> Migration {
    let in_scope = |p: &Path| match scope {
        Scope::Tree => true,
        Scope::File(f) => p == f,
    };
    let src = crate::ide::bom::WithoutBom { base: ws.fs, strip: in_scope, stripped: Default::default() };
    let inner = Workspace { main: ws.main, is_main: ws.is_main, fs: &src };
    let (mut m, htaccess) = migrate_in(&inner, scope, allow_changes, true);
    let mut stripped: BTreeMap<PathBuf, Arc<str>> = htaccess.into_iter().collect();
    stripped.extend(src.stripped.into_inner().unwrap_or_else(|e| e.into_inner()));
    let n = TextSize::of(crate::ide::bom::BOM);
    for e in m.edits.iter_mut().filter(|e| stripped.contains_key(&*e.path)) {
        e.range = TextRange::new(e.range.start() + n, e.range.end() + n);
    }
    for (path, original) in stripped {
        let new = match m.changed.remove(&path) {
            Some((_, new)) => new,
            None => original[usize::from(n)..].to_string(),
        };
        m.edits.push(Edit {
            path: Arc::from(path.as_path()),
            range: TextRange::new(0.into(), n),
            new_text: String::new(),
        });
        m.changes.push(format!(
            "{}: removed the UTF-8 byte-order mark it began with: httpd read it as part of the first directive's name and refused the file; it now reads the file",
            path.display()
        ));
        m.changed.insert(path, (original, new));
    }
    m
}

/// [`migrate`], reading the .htaccess files in scope without their byte-order mark when
/// `remove_bom` (those are returned with their texts as they were).
fn migrate_in(
    ws: &Workspace,
    scope: Scope,
    allow_changes: bool,
    remove_bom: bool,
) -> (Migration, Vec<(PathBuf, Arc<str>)>) {
    let trace = std::env::var_os("APACHE_LSP_MIGRATE_TRACE").is_some();
    let t0 = std::time::Instant::now();
    let (p, mut setup) = prepare(ws);
    let stripped = if remove_bom {
        setup.without_bom(|f| match scope {
            Scope::Tree => true,
            Scope::File(x) => f == x,
        })
    } else {
        Vec::new()
    };
    if trace {
        eprintln!("migrate: loaded and set up in {:?}", t0.elapsed());
    }
    let a = Analysis::new(&p.cfg, setup);
    if trace {
        eprintln!("migrate: {} in {:?}", a.stats(), t0.elapsed());
    }
    let read = p.cfg.files.iter().map(|f| f.path.to_path_buf()).chain(a.htaccess_read()).collect();
    let mut out = Migration { read, ..Default::default() };
    if a.bounded {
        out.notes.push("the configuration has more URLs than the proof enumerates; some were not compared".into());
    }
    if ws.unproven_alone().is_some() && !ws.standalone_htaccess() {
        out.notes.push(if allow_changes {
            format!(
                "{} was read without the main configuration that includes it: the rewrite does not see the Require and AuthType lines its sections inherit from that configuration, nor the sections merged after its own (the access changes listed leave them out: a rewrite may open password-protected content)",
                ws.main.display()
            )
        } else {
            format!(
                "{} was read without the main configuration that includes it: no rewrite of it can be proven (the sections of that configuration which apply with its own are not known), so nothing in it is rewritten; migrate the main configuration instead",
                ws.main.display()
            )
        });
    }
    if ws.standalone_htaccess() {
        out.notes.push(if allow_changes {
            format!(
                "{} was read without its root configuration: the rewrite assumes AllowOverride allows AuthConfig, does not see the Require and AuthType lines it inherits from the server configuration (the access changes listed leave them out), and judges its <IfModule> sections by Debian's default modules (not the ones a server loads)",
                ws.main.display()
            )
        } else {
            format!(
                "{} was read without its root configuration: no rewrite of it can be proven (what it inherits from the server configuration is not known), so nothing in it is rewritten; migrate the main configuration that serves its directory instead",
                ws.main.display()
            )
        });
    }
    // (A file given by another of its names is the same file.)
    let scope_file = match scope {
        Scope::File(f) => Some(a.identity(f)),
        Scope::Tree => None,
    };
    let in_scope = |s: usize| scope_file.as_ref().is_none_or(|f| *a.body(s).path() == **f);
    let seeds: BTreeSet<usize> = a.old_style().into_iter().filter(|s| in_scope(*s)).collect();
    let mut excluded: BTreeMap<usize, String> = BTreeMap::new();
    // An .htaccess file read alone: nothing the proof finds holds under the real server, so
    // no rewrite is called behaviour-preserving (only --allow-changes rewrites it, as the guide does).
    let alone = ws.unproven_alone();
    for s in &seeds {
        if let Some(why) = alone.filter(|_| !allow_changes) {
            excluded.insert(*s, why.to_string());
        } else if let Some(why) = a.refused_file(*s) {
            excluded.insert(*s, why);
        } else if let Some(why) = a.htaccess_override_problem(*s) {
            excluded.insert(*s, why);
        } else if let Some(why) = a.loop_problem(*s) {
            excluded.insert(*s, why);
        }
    }
    let mut done: Option<(Cluster, Vec<Edit>)> = None;
    let mut proven = std::collections::HashMap::new();
    for _round in 0..10_000 {
        let ex: BTreeSet<usize> = excluded.keys().copied().collect();
        let todo: BTreeSet<usize> = seeds.difference(&ex).copied().collect();
        if todo.is_empty() {
            break;
        }
        let step = a.cluster(&todo, &ex);
        if trace {
            eprintln!("migrate:   cluster at {:?}", t0.elapsed());
        }
        let step = step.and_then(|c| a.cluster_edits(&c).map(|e| (c, e)));
        if trace {
            eprintln!("migrate:   edits at {:?}", t0.elapsed());
        }
        let (cluster, edits) = match step {
            // A carry into a file a link back up repeats is no more proven than its own rewrite.
            Ok((c, _)) if c.carry.keys().chain(&c.rewrite).any(|b| a.loop_problem(*b).is_some()) => {
                for b in &c.rewrite {
                    if let Some(why) = a.loop_problem(*b) {
                        excluded.entry(*b).or_insert(why);
                    }
                }
                for (b, carry) in c.carry.iter() {
                    if let Some(why) = a.loop_problem(*b) {
                        carry.sources().into_iter().for_each(|s| {
                            excluded.entry(s).or_insert_with(|| why.clone());
                        });
                    }
                }
                continue;
            }
            Ok(x) => x,
            Err(b) => {
                if trace {
                    eprintln!("migrate:   blocked: {}", b.reason);
                }
                for &c in &b.culprits {
                    excluded.entry(c).or_insert_with(|| b.reason_for(c).to_string());
                }
                continue;
            }
        };
        let (after, afs, _) = after_config(ws, &a, &edits);
        if trace {
            eprintln!("migrate:   reloaded at {:?}", t0.elapsed());
        }
        let (changes, failing) = a.verify(&after, &afs, &edits, &mut proven);
        if trace {
            eprintln!("migrate:   {} classes so far", plan::CLASSES.load(std::sync::atomic::Ordering::Relaxed));
            eprintln!(
                "migrate: round {_round}: {} bodies, {} carries, {} edits, {} changes, at {:?}",
                cluster.rewrite.len(),
                cluster.carry.len(),
                edits.len(),
                changes.len(),
                t0.elapsed()
            );
        }
        if changes.is_empty() {
            done = Some((cluster, edits));
            break;
        }
        let culprits = a.culprits(&failing, &cluster);
        if culprits.is_empty() {
            break;
        }
        for (c, blame) in culprits {
            let why = blame_text(&a, &blame);
            if trace {
                eprintln!("migrate:   blamed {}: {why}", a.label(c));
            }
            excluded.entry(c).or_insert(why);
        }
    }
    let (cluster, mut edits) = done.unwrap_or_default();
    // With --allow-changes, what is left is rewritten as the upgrade guide intends.
    let mut guided = BTreeSet::new();
    if allow_changes {
        for s in excluded.keys() {
            // Bodies whose Require lines httpd would not accept where they stand: no reading of
            // them, not even the guide's, is a migration (every request would get a 500).
            // Nor are those of a file httpd refuses as a whole.
            if cluster.rewrite.contains(s) || a.htaccess_override_problem(*s).is_some() || a.refused_file(*s).is_some()
            {
                continue;
            }
            if let Ok(e) = a.rewrite_edits(*s, Reading::Guide) {
                if !e.is_empty() {
                    edits.extend(e);
                    guided.insert(*s);
                }
            }
        }
    }
    // What the proof does not cover: .htaccess files written later where the AllowOverride lets
    // them hold access lines (the rewrite is kept: such a file's writer governs that directory's
    // access before and after; only which of its lines do so changes).
    let touched: BTreeSet<usize> = cluster.rewrite.iter().chain(cluster.carry.keys()).chain(&guided).copied().collect();
    for (s, later) in a.later_htaccess(&touched) {
        out.notes.push(format!("{}: {}", a.label(s), later.sentence()));
    }
    // Dead 2.2 branches go (proven on their own: no request class changes).
    // (Not in a file httpd refuses as a whole: nothing in it is rewritten.)
    let in_file = |f: &Path| {
        let refused = a.original_text(f).is_some_and(|t| crate::ide::bom::starts_with_bom(&t));
        !refused
            && match scope {
                Scope::Tree => true,
                Scope::File(x) => f == x,
            }
    };
    let mut dead_lines: BTreeSet<(PathBuf, u32)> = BTreeSet::new();
    // (Which modules the server loads is not known for an .htaccess file read alone.)
    let dead = if alone.is_some() && !allow_changes { Vec::new() } else { dead_branches(&p.cfg, &a, in_file) };
    if !dead.is_empty() {
        let dead_edits: Vec<Edit> = dead.iter().map(|(_, e)| e.clone()).collect();
        let (after, afs, _) = after_config(ws, &a, &dead_edits);
        let (changes, _) = a.verify(&after, &afs, &dead_edits, &mut Default::default());
        // (Should the proof ever fail, the blocks stay and are listed as left below.)
        if changes.is_empty() {
            for (d, e) in dead {
                let text = a.original_text(&e.path).unwrap_or_default();
                let first = text[..usize::from(d.lines.start())].matches('\n').count() as u32 + 1;
                let last = text[..usize::from(d.lines.end())].trim_end_matches('\n').matches('\n').count() as u32 + 1;
                dead_lines.extend((first..=last).map(|l| (e.path.to_path_buf(), l)));
                edits.push(e);
            }
        }
    }
    for s in seeds.iter().filter(|s| !cluster.rewrite.contains(s) && !guided.contains(s)) {
        let why = excluded.get(s).cloned().unwrap_or_else(|| "no rewrite was possible".into());
        // (A reason about the body itself need not name it twice.)
        let own = format!("{}: ", a.label(*s));
        let why = why.strip_prefix(&own).map(str::to_string).unwrap_or(why);
        let b = a.body(*s);
        out.left.push(format!("{}: {}: {why}", b.place(), b.label()));
    }
    // Old-style sections no request reaches cannot be proven either way.
    let request_sections =
        ["Directory", "DirectoryMatch", "Files", "FilesMatch", "Location", "LocationMatch", "If", "ElseIf", "Else"];
    for n in p.cfg.walk().filter(|n| n.is_section() && request_sections.contains(&n.known())) {
        let in_file = match scope {
            Scope::Tree => true,
            Scope::File(f) => *p.cfg.file(n.loc.file).path == *f,
        };
        let old = n.children.iter().any(|c| !c.is_section() && body::is_compat(c.name()));
        if in_file && old && a.sec(&a.node_key(n.loc.file, u32::from(n.loc.range.start()))).is_none() {
            let why = if n.is("If") || n.is("ElseIf") || n.is("Else") {
                "rules inside <If> are not rewritten: their expression is evaluated per request, which the proof does not do"
            } else {
                "no request the configuration can receive reaches it, so no rewrite of it can be proven"
            };
            out.left.push(format!(
                "{}:{}: <{} {}>: {why}",
                p.cfg.file(n.loc.file).path.display(),
                p.cfg.line(&n.loc),
                n.name(),
                n.args().join(" ")
            ));
        }
    }
    // Old-style lines that none of the above accounts for (inside conditional sections httpd
    // skips, or inside sections of an .htaccess file) are left too, and said so.
    let mut accounted: BTreeSet<(PathBuf, u32)> = dead_lines;
    let mut mark = |cfg: &Config, nodes: &[Node]| {
        // The body's own lines: its directives and its <Limit> blocks (not nested sections).
        let own = |c: &&Node| c.is("Limit") || c.is("LimitExcept") || !c.is_section();
        let mut stack: Vec<&Node> = nodes.iter().filter(own).collect();
        while let Some(n) = stack.pop() {
            if n.kind == config::NodeKind::Directive && body::is_compat(n.name()) {
                accounted.insert((a.identity(&cfg.file(n.loc.file).path), cfg.line(&n.loc)));
            }
            stack.extend(n.children.iter().filter(own));
        }
    };
    for s in &seeds {
        let b = a.body(*s);
        mark(b.cfg, b.children);
    }
    for n in p.cfg.walk().filter(|n| n.is_section()) {
        if out
            .left
            .iter()
            .any(|l| l.starts_with(&format!("{}:{}: ", p.cfg.file(n.loc.file).path.display(), p.cfg.line(&n.loc))))
        {
            mark(&p.cfg, &n.children);
        }
    }
    let inactive = |cfg: &Config, id: usize| -> Vec<TextRange> {
        cfg.inactive.iter().filter(|(f, _)| *f == id).map(|(_, r)| *r).collect()
    };
    let mut files: Vec<(Arc<Path>, Arc<str>, Vec<TextRange>)> =
        p.cfg.files.iter().enumerate().map(|(i, f)| (f.path.clone(), f.text.clone(), inactive(&p.cfg, i))).collect();
    files.extend(a.fragments().iter().map(|f| (f.file(0).path.clone(), f.file(0).text.clone(), inactive(f, 0))));
    // (A file with several names once, by the name it is identified by.)
    files.retain(|(path, _, _)| a.identity(path) == **path);
    for (path, text, skipped) in files {
        let in_scope = match scope {
            Scope::Tree => true,
            Scope::File(f) => *path == *f,
        };
        if in_scope {
            let is_accounted = |l| accounted.contains(&(path.to_path_buf(), l));
            for (line, place) in unaccounted_old_style(&text, &skipped, is_accounted) {
                out.left.push(format!("{}:{line}: {place}", path.display()));
            }
        }
    }
    // .htaccess files in users' directories only the passwd database maps (`UserDir
    // public_html`): no request the proof asks reaches them, so their old-style lines stay.
    if matches!(scope, Scope::Tree) && ws.is_main {
        for root in &a.setup.cut {
            out.left.push(format!(
                "{}: the search for .htaccess files below this directory stopped short (too many directories, or too deep): old-style lines in files beyond it are not seen: they are not rewritten, and nothing proves none is left",
                root.display()
            ));
        }
        let read: BTreeSet<PathBuf> = a.htaccess_read().collect();
        for h in contexts::userdir_htaccess(&p.cfg).into_iter().filter(|h| !read.contains(h)) {
            let text = config::decode(config::read_regular(&h).unwrap_or_default()).0;
            for (line, _) in unaccounted_old_style(&text, &[], |_| false) {
                out.left.push(format!(
                    "{}:{line}: httpd reads this file for /~user/ requests (UserDir {}), which only the passwd database maps to users' directories; migrate does not look users up, so no rewrite of it can be proven; rewrite it by hand",
                    h.display(),
                    contexts::relative_userdir(&p.cfg).join(" ")
                ));
            }
        }
    }
    out.left.extend(compat_guards_left(&p.cfg, &a, &edits, |f| match scope {
        Scope::Tree => true,
        Scope::File(x) => f == x,
    }));
    if edits.is_empty() {
        return (out, stripped);
    }
    let (after, afs, texts) = after_config(ws, &a, &edits);
    if !guided.is_empty() {
        let (changes, _) = a.verify(&after, &afs, &edits, &mut Default::default());
        out.changes = summarize(&changes);
    }
    out.changed = texts.into_iter().filter(|(_, (o, n))| **o != **n).collect();
    out.edits = edits;
    (out, stripped)
}

/// The blocks testing mod_access_compat (in the files `in_scope` accepts) that still hold lines
/// once `edits` are made, each as a line of what is left: while they do, the tree does not work
/// the same once the module is unloaded, which is what the migration is for. (None when the
/// configuration does not load the module: unloading it then changes nothing.)
fn compat_guards_left(cfg: &Config, a: &Analysis, edits: &[Edit], in_scope: impl Fn(&Path) -> bool) -> Vec<String> {
    if !cfg.modules.contains("access_compat_module") {
        return vec![];
    }
    let texts = cfg
        .files
        .iter()
        .map(|f| (&f.path, &f.text))
        .chain(a.fragments().iter().map(|f| (&f.file(0).path, &f.file(0).text)));
    let mut out = Vec::new();
    // (A file with several names once, by the name it is identified by.)
    for (path, text) in texts.filter(|(p, _)| in_scope(p) && a.identity(p) == ***p) {
        let mut taken: Vec<TextRange> = Vec::new();
        for g in guards::compat_guards(text, None) {
            // Outermost only; one the edits remove (or replace) whole is gone.
            if taken.iter().any(|t| t.contains_range(g.lines))
                || edits.iter().any(|e| *e.path == **path && e.range.contains_range(g.lines))
            {
                continue;
            }
            let inside: Vec<Edit> = edits
                .iter()
                .filter(|e| *e.path == **path && g.inner.contains_range(e.range))
                .map(|e| Edit { path: e.path.clone(), range: e.range - g.inner.start(), new_text: e.new_text.clone() })
                .collect();
            let inner = apply(&text[g.inner], &inside.iter().collect::<Vec<_>>());
            if let Some(why) = g.left_reason(&inner, true) {
                let line = text[..usize::from(g.lines.start())].matches('\n').count() + 1;
                out.push(format!("{}:{line}: {why}", path.display()));
                taken.push(g.lines);
            }
        }
    }
    out
}

/// Old-style directives of `text` on lines `accounted` does not hold, one entry per enclosing
/// section: (line of the first, where they are and why they stay).
/// `skipped` are the bodies of conditional sections httpd skips.
fn unaccounted_old_style(text: &str, skipped: &[TextRange], accounted: impl Fn(u32) -> bool) -> Vec<(u32, String)> {
    use apache_syntax::ast::{self, AstNode};
    let root = apache_syntax::parse(text).syntax_node();
    let mut out: Vec<(u32, String)> = Vec::new();
    let mut seen_sections = BTreeSet::new();
    for node in root.descendants() {
        let Some(d) = ast::Directive::cast(node.clone()) else { continue };
        let Some(name) = d.name() else { continue };
        if !body::is_compat(&name.text()) {
            continue;
        }
        let at = usize::from(name.range().start());
        let line = text[..at].matches('\n').count() as u32 + 1;
        if accounted(line) {
            continue;
        }
        let sections: Vec<ast::Section> = node.ancestors().filter_map(ast::Section::cast).collect();
        let key = sections.first().map(|s| u32::from(s.syntax().text_range().start()));
        if !seen_sections.insert(key) {
            continue;
        }
        let header = |s: &ast::Section| {
            let args: Vec<String> = s.args().map(|a| a.raw()).collect();
            format!("<{} {}>", s.name_text(), args.join(" ")).replace(" >", ">")
        };
        let off = name.range().start();
        // The outermost skipped conditional is why (those nested in it are skipped with it).
        let conditional = sections.iter().rev().find(|s| {
            let n = s.name_text().to_ascii_lowercase();
            // The conditional whose skipped body holds the line (not one nested inside it).
            n.starts_with("if")
                && n != "if"
                && skipped.iter().any(|r| r.contains(off) && s.syntax().text_range().contains_range(*r))
        });
        let why = match (conditional, sections.first()) {
            (Some(c), _) => format!(
                "{}: inside {}, which httpd skips with this configuration, so no rewrite of it can be proven; rewrite or remove it by hand",
                name.text(),
                header(c)
            ),
            // (Sections of the configuration no request reaches are named before; these
            // are an .htaccess file's.)
            (None, Some(s)) if s.name_text().to_ascii_lowercase().starts_with("files") => format!(
                "{}: in {}: no request the configuration can receive reaches it, so no rewrite of it can be proven",
                name.text(),
                header(s)
            ),
            (None, Some(s)) => format!(
                "{}: in {}: the migration does not rewrite old-style rules here; rewrite it by hand",
                name.text(),
                header(s)
            ),
            (None, None) => format!("{}: no request the configuration can receive reaches it", name.text()),
        };
        out.push((line, why));
    }
    out
}

#[cfg(test)]
mod tests;
