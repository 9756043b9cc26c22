//! Planning a migration and proving it.
//!
//! Every request context is walked once with the engine ([`Analysis::new`]); each walk says,
//! for its path, which section's old-style rules are in effect (X: the last section with any
//! of them — mod_access_compat has no merger) and which section's Require lines are (L: the
//! last one that replaces the inherited ones). A rewrite of a set M of bodies is then planned
//! so that every path keeps its outcome:
//! * each X in M gets `H(X)` combined with the Require lines in effect for it: its own, or a
//!   copy of the ones it inherited (when every path agrees on where they come from), or the
//!   inherited ones through `AuthMerging`;
//! * a section after X whose Require lines replace X's (a child with only Require lines, which
//!   X's old-style denial defeats today) gets `H(X)` carried into its lines;
//! * an old-style section whose Require lines were inherited from a rewritten section is
//!   rewritten too (else the carried H would now reach it);
//! * an old-style section before X on some path joins M unless its rules are neutral (else it
//!   would become the rules in effect there once X's are gone).
//!
//! Whatever the plan, the proof is the engine's: every context reaching an edited body is
//! walked again on the edited configuration and every request class compared.

use super::body::Body;
use super::contexts::{self, Ctx, Subrequest};
use crate::ide::access::{policy_ctx, resolve, wildcard_match, FsOverlay, FsView, Origin, Resolved};
use crate::ide::catalogue::context::Overrides;
use crate::ide::config::{self, Config, FileData, FileId, Node, NodeKind};
use crate::ide::nonfatal;
use crate::ide::policy::{AuthMerging, PolicyCtx, SectionPolicy};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod edits;
mod later;
mod rewrites;
mod unsampled;
mod verify;
pub(super) use verify::Blame;

/// Where a body lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Key {
    Node(FileId, u32),
    Htaccess(PathBuf),
    /// A section of an .htaccess file (`<Files>`, `<FilesMatch>`): the file, the section's start.
    HtaccessSection(PathBuf, u32),
}

struct Sec {
    key: Key,
    /// Has old-style rules (a mod_access_compat config).
    compat: bool,
    /// Its authz_core config replaces the inherited one (Require lines, or AuthMerging Off).
    replaces: bool,
    /// Sets AuthMerging And|Or (merges instead of replacing).
    merging: bool,
}

struct Walk {
    ctx: Ctx,
    /// Walked with the URL's last component missing ([`FsView::last_missing`]): a twin of a
    /// walk that took it, no directory, to be there and met `<Directory>` sections for it.
    gone: bool,
    secs: Vec<usize>,
    eff: Resolved,
}

/// The set of bodies a rewrite touches and why.
#[derive(Debug, Clone, Default)]
pub(super) struct Cluster {
    pub rewrite: BTreeSet<usize>,
    /// Body → what is carried into its Require lines.
    pub carry: BTreeMap<usize, Carry>,
}

/// What a rewrite carries into a body whose Require lines replace rewritten old-style rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Carry {
    /// The host formula of this body, written out with the Require lines.
    Text(usize),
    /// `AuthMerging And` (Satisfy All) or `Or` (Satisfy Any): the body is reached under
    /// different old-style rules on different paths, and combines with what each path's
    /// rewritten rules leave in effect there.
    Merge { any: bool, sources: BTreeSet<usize> },
}

impl Carry {
    pub fn sources(&self) -> Vec<usize> {
        match self {
            Carry::Text(x) => vec![*x],
            Carry::Merge { sources, .. } => sources.iter().copied().collect(),
        }
    }
}

/// Why a plan cannot go ahead, and which bodies are to blame.
#[derive(Debug, Clone)]
pub(super) struct Blocked {
    pub culprits: BTreeSet<usize>,
    pub reason: String,
    /// A culprit's own reason where it differs from `reason` (the request that shows it).
    pub why: BTreeMap<usize, String>,
}

impl Blocked {
    pub fn new(culprits: BTreeSet<usize>, reason: String) -> Blocked {
        Blocked { culprits, reason, why: BTreeMap::new() }
    }

    /// Why `culprit` is to blame.
    pub fn reason_for(&self, culprit: usize) -> &str {
        self.why.get(&culprit).unwrap_or(&self.reason)
    }
}

/// Set-up shared by the configuration before and after: directories treated as existing and
/// probe aliases that let requests reach directories no URL maps to.
#[derive(Debug, Clone, Default)]
pub(super) struct Setup {
    dirs: BTreeSet<PathBuf>,
    /// The paths of the URLs `<Location>` sections are asked at (and their ancestors): taken to
    /// be directories too by the walks of [`Ctx::located`] contexts.
    located: BTreeSet<PathBuf>,
    /// For each server ([`contexts::servers`], in order), the URLs of the directories where a
    /// wildcard or regex `<Directory>` meets a `<Location>` holding access lines
    /// ([`contexts::location_pattern_meetings`]): their paths are among `located`, and the
    /// server's located contexts ask there.
    meeting_urls: Vec<Vec<String>>,
    /// (alias, directory, where: the top-level index of the virtual host it is added to, or
    /// None for the main server)
    probes: Vec<(String, String, Option<usize>)>,
    htaccess: Vec<PathBuf>,
    /// The real path of each .htaccess name found (a file is one body whatever the name it is
    /// read under, proven under every name and written once).
    real: HashMap<PathBuf, PathBuf>,
    /// Every name of each file found under a name other than its real path, by its real path.
    names: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// Symbolic links leading back above themselves: (link, target).
    pub loops: Vec<(PathBuf, PathBuf)>,
    /// Directories the .htaccess scan stopped short in.
    pub cut: Vec<PathBuf>,
    /// Texts of per-request files not taken from the disk (before any rewrite): an editor's open
    /// documents, pending texts.
    pub files: BTreeMap<PathBuf, Arc<str>>,
}

const PROBE_PREFIX: &str = "/__apache-lsp-probe-";

impl Setup {
    /// The files found per request are read through `source` (an editor's open document
    /// before the disk), unless `files` already holds their text.
    pub fn new(cfg: &Config, mut files: BTreeMap<PathBuf, Arc<str>>, source: &dyn config::FileSource) -> Setup {
        let scan = contexts::find_htaccess(cfg);
        let mut htaccess = scan.found;
        for h in &htaccess {
            if !files.contains_key(h) {
                if let Some(t) = source.own_text(h) {
                    files.insert(h.clone(), t);
                }
            }
        }
        let mut real: HashMap<PathBuf, PathBuf> = HashMap::new();
        let mut names: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
        for h in &htaccess {
            let r = std::fs::canonicalize(h).unwrap_or_else(|_| h.clone());
            names.entry(r.clone()).or_default().push(h.clone());
            real.insert(h.clone(), r);
        }
        names.retain(|r, n| n.iter().any(|n| n != r));
        htaccess.extend(files.keys().filter(|p| !htaccess.contains(p)).cloned().collect::<Vec<_>>());
        for f in files.keys() {
            real.entry(f.clone()).or_insert_with(|| f.clone());
        }
        let mut dirs = contexts::named_dirs(cfg);
        // The fresh directories pattern sections are asked in, where they apply alone.
        dirs.extend(contexts::fresh_dirs(cfg));
        for h in &htaccess {
            if let Some(d) = h.parent() {
                dirs.extend(d.ancestors().map(Path::to_path_buf));
            }
        }
        // Below an .htaccess file with <Files>/<FilesMatch> sections, the directories
        // <Location> sections name are taken to exist too: there those sections apply to the
        // files asked for and meet the Location's rules (a <LocationMatch "^/sub/d"> proven
        // only at a missing /sub/d missed htdocs/.htaccess's <Files a.txt> in /sub/deeper).
        // Elsewhere a Location path is most often no directory at all (/server-status).
        let with_files: Vec<&Path> = htaccess
            .iter()
            .filter(|h| {
                let text = match files.get(*h) {
                    Some(t) => t.clone(),
                    None => config::decode(config::read_regular(h).unwrap_or_default()).0,
                };
                text.to_ascii_lowercase().contains("<files")
            })
            .filter_map(|h| h.parent())
            .collect();
        for d in contexts::location_dirs(cfg) {
            if with_files.iter().any(|f| d.starts_with(f) && d.as_path() != *f) {
                dirs.extend(d.ancestors().map(Path::to_path_buf));
            }
        }
        // The directory of a pattern <Location>'s witness too: the proof asks there for a file
        // both the Location and a <Files> section apply to (/sub/dx.txt for "^/sub/d"), as httpd
        // reaches such files in any directory the pattern covers (/sub/deeper/a.txt).
        for d in contexts::location_pattern_parents(cfg) {
            dirs.extend(d.ancestors().map(Path::to_path_buf));
        }
        // Every Location path may become a directory, and files appear in it (the proof
        // must not hang on what this machine's disk holds today): the located contexts ask
        // there ([`contexts::located_urls`]).
        // So may the directories a wildcard or regex <Directory> reaches beneath one
        // ([`contexts::location_pattern_meetings`]).
        // (Found once per server: the located contexts of each are asked there too, from
        // `meeting_urls`.)
        let servers = contexts::servers(cfg);
        let found: Vec<Vec<(String, String)>> =
            servers.iter().map(|s| contexts::location_pattern_meetings(cfg, s)).collect();
        let meeting_paths = found.iter().flatten().map(|(_, p)| PathBuf::from(p));
        let located: BTreeSet<PathBuf> = contexts::location_dirs(cfg)
            .into_iter()
            .chain(meeting_paths)
            .flat_map(|d| d.ancestors().map(Path::to_path_buf).collect::<Vec<_>>())
            .filter(|d| !dirs.contains(d))
            .collect();
        let meeting_urls: Vec<Vec<String>> =
            found.into_iter().map(|m| m.into_iter().map(|(u, _)| u).collect()).collect();
        // A probe alias for each <Directory> no URL maps to (so that it can be reached), in the
        // server the section belongs to: its virtual host, or for the main server's sections the
        // main server when connections reach it, else the first virtual host they reach.
        let mut probes: Vec<(String, String, Option<usize>)> = Vec::new();
        let mappings = contexts::mappings(cfg);
        let vhost_positions: Vec<usize> = cfg
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_section() && n.is("VirtualHost"))
            .map(|(i, _)| i)
            .collect();
        let main_home = match servers.iter().any(|s| s.vhost.is_none()) {
            true => None,
            // (The first virtual host a connection reaches.)
            false => {
                servers.iter().find_map(|s| s.vhost).and_then(|v| cfg.nodes.iter().position(|n| std::ptr::eq(n, v)))
            }
        };
        let mut scopes: Vec<(Option<usize>, &Node)> = Vec::new();
        for (i, top) in cfg.nodes.iter().enumerate() {
            let home = if vhost_positions.contains(&i) { Some(i) } else { main_home };
            scopes.extend(top.walk().map(|n| (home, n)));
        }
        for (home, n) in scopes.into_iter().filter(|(_, n)| n.is_section() && n.is("Directory")) {
            let Some(p) = n.args().first().filter(|p| p.starts_with('/') && !p.contains(['*', '?', '['])) else {
                continue;
            };
            let reached = mappings.iter().any(|m| contexts::maps_to_url(m, p));
            if !reached && !probes.iter().any(|(_, t, h)| t == p && *h == home) {
                probes.push((format!("{PROBE_PREFIX}{}__", probes.len()), p.to_string(), home));
            }
        }
        Setup { dirs, located, meeting_urls, probes, htaccess, real, names, loops: scan.loops, cut: scan.cut, files }
    }

    /// The real path of an .htaccess file read under the name `p` (symbolic links resolved).
    pub fn real_path(&self, p: &Path) -> PathBuf {
        match self.real.get(p) {
            Some(r) => r.clone(),
            // (A name the scan did not reach: asked of the disk.)
            None => match std::fs::canonicalize(p) {
                Ok(r) if r != p => r,
                _ => p.to_path_buf(),
            },
        }
    }

    /// The other names the scan found for the .htaccess file whose real path is `real`.
    pub fn other_names<'a>(&'a self, real: &'a Path) -> impl Iterator<Item = &'a PathBuf> + 'a {
        self.names.get(real).into_iter().flatten().filter(move |n| n.as_path() != real)
    }

    /// Reads the .htaccess files `strip` accepts without the byte-order mark they begin with
    /// (`migrate --remove-bom`): returns each such file with its text as it was.
    pub fn without_bom(&mut self, strip: impl Fn(&Path) -> bool) -> Vec<(PathBuf, Arc<str>)> {
        let mut out = Vec::new();
        for h in self.htaccess.iter().filter(|h| strip(h)) {
            let original = match self.files.get(h) {
                Some(t) => t.clone(),
                None => config::decode(config::read_regular(h).unwrap_or_default()).0,
            };
            if crate::ide::bom::starts_with_bom(&original) {
                self.files.insert(h.clone(), Arc::from(&original[crate::ide::bom::BOM.len()..]));
                out.push((h.clone(), original));
            }
        }
        out
    }

    /// An .htaccess file as the walks read it: its pending text, else the disk's (regular
    /// files only; empty when it cannot be read).
    pub fn read_htaccess(&self, p: &Path) -> FileData {
        let (text, bad) = match self.files.get(p) {
            Some(t) => (t.clone(), None),
            None => config::decode(config::read_regular(p).unwrap_or_default()),
        };
        FileData::new(Arc::from(p), text, bad)
    }

    /// What the walks are told about the file system, with `pending` texts of per-request
    /// files over the ones they had.
    pub fn fs(&self, pending: &BTreeMap<PathBuf, Arc<str>>) -> Views {
        let mut files = self.files.clone();
        files.extend(pending.iter().map(|(p, t)| (p.clone(), t.clone())));
        // A file's text is read under each of its names.
        for (p, t) in pending {
            files.extend(self.other_names(p).map(|n| (n.clone(), t.clone())));
        }
        let located = FsOverlay { dirs: self.dirs.union(&self.located).cloned().collect(), files: files.clone() };
        Views {
            plain: FsView::overlaid(FsOverlay { dirs: self.dirs.clone(), files }),
            located: FsView::overlaid(located),
        }
    }

    /// What a change names besides a context's URL: for a [`Ctx::fresh`] one, what its made-up
    /// directory stands for; for a [`Ctx::located`] one, the directory it takes to be there; the
    /// subrequest it is asked as.
    pub fn located_note(c: &Ctx) -> Option<String> {
        let dir = &c.url[..c.url.rfind('/').map_or(0, |i| i + 1)];
        // (A fallback's missing name says where it was asked.)
        let fallback = matches!(c.sub, Some(Subrequest::Fallback { .. }));
        let located = (c.located && !fallback).then(|| format!("once {dir} is a directory"));
        let sub = c.sub.as_ref().map(Subrequest::note);
        let fresh = c
            .fresh
            .as_ref()
            .map(|d| format!("{d} standing for any directory no section names and no <Location> covers"));
        let notes: Vec<String> = [fresh, located, sub].into_iter().flatten().collect();
        (!notes.is_empty()).then(|| notes.join(", "))
    }

    /// A URL as people read it: requests through a probe alias name the directory instead.
    pub fn display_url(&self, url: &str) -> String {
        for (from, to, _) in &self.probes {
            if let Some(rest) = url.strip_prefix(from.as_str()) {
                return format!("{}{rest} (a file system path no URL maps to)", to.trim_end_matches('/'));
            }
        }
        url.to_string()
    }

    /// Adds the probe aliases (before the configuration is first used: its index is built then).
    pub fn apply(&self, cfg: &mut Config) {
        for (from, to, home) in &self.probes {
            let loc = config::Loc { file: 0, range: Default::default(), focus: Default::default() };
            let node = Node::new(NodeKind::Directive, "Alias", [from, to], &format!("{from} {to}"), loc, vec![]);
            match home.and_then(|i| cfg.nodes.get_mut(i)) {
                Some(vhost) => vhost.children.push(node),
                None => cfg.nodes.push(node),
            }
        }
    }
}

pub(super) static CLASSES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub(super) struct Analysis<'c> {
    pub cfg: &'c Config,
    pub ctx: PolicyCtx,
    pub setup: Setup,
    nodes: HashMap<(FileId, u32), &'c Node>,
    frags: Vec<Config>,
    frag_of: HashMap<PathBuf, usize>,
    secs: Vec<Sec>,
    sec_of: HashMap<Key, usize>,
    walks: Vec<Walk>,
    by_sec: Vec<Vec<usize>>,
    /// The AllowOverride (and AllowOverrideList) in force for each .htaccess file read, one
    /// entry per distinct one among the servers whose requests read it.
    read_under: HashMap<PathBuf, Vec<Overrides>>,
    /// .htaccess files whose readers skip different lines of them ([`nonfatal`]): why no one
    /// body can stand for the file.
    skips_differ: HashMap<PathBuf, String>,
    /// For each file of the configuration, the first file that is the same file on disk (one
    /// included under two names, as Debian's `*-enabled` links to `*-available` are): its
    /// sections are one body each, proven in the contexts of every name and written once.
    file_rep: Vec<FileId>,
    /// The names each .htaccess file was read under by the walks, by its real path.
    htaccess_names: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    /// Some context list was cut short.
    pub bounded: bool,
    /// Why no rewrite can be proven at all: a section with access rules no request the proof
    /// can build reaches ([`unsampled`]), or a RewriteRule mapping URLs where the proof does
    /// not follow ([`rewrites`]).
    unsampled: Option<String>,
}

/// What the walks of a proof are told about the file system: the disk with the directories
/// the configuration names, and the same with every `<Location>` path a directory too, for
/// the contexts asked so ([`Ctx::located`]).
pub(super) struct Views {
    plain: FsView,
    located: FsView,
}

impl Views {
    /// Both views with the request's last component missing ([`FsView::last_missing`]).
    fn last_missing(&self) -> Views {
        Views { plain: self.plain.last_missing(), located: self.located.last_missing() }
    }
}

fn walk_ctx(cfg: &Config, fs: &Views, c: &Ctx) -> Resolved {
    let fs = if c.located { &fs.located } else { &fs.plain };
    match &c.sub {
        Some(sub) => {
            crate::ide::access::resolve_subrequest(cfg, fs, &c.url, c.host.as_deref(), c.local, sub.main_walk())
        }
        None => resolve(cfg, fs, &c.url, c.host.as_deref(), c.local),
    }
}

/// mod_dir's DirectoryIndex subrequests of a directory URL walked as `r`: one per name in
/// effect there (asked before and after a rewrite like any context: httpd reuses the
/// directory's walk for a regular file of it, so the rules in force may differ from the same
/// URL asked directly).
fn index_subrequests(cfg: &Config, c: &Ctx, r: &Resolved) -> Vec<Ctx> {
    if c.sub.is_some() || !c.url.ends_with('/') {
        return Vec::new();
    }
    let mut names = r.index_names(cfg);
    names.dedup();
    names
        .iter()
        .map(|n| crate::ide::dir_index::sub_url(&c.url, n))
        .filter(|u| u.starts_with(&c.url) && !u[c.url.len()..].contains('/'))
        .map(|url| {
            let sub = Subrequest::Index { main: c.url.clone(), dir: r.filesystem_path.clone() };
            Ctx { url, sub: Some(sub), ..c.clone() }
        })
        .collect()
}

/// Fallbacks of fallbacks asked, at most: each one deeper is a subrequest of the one before
/// (a relative FallbackResource in a missing directory names a new URL at every depth).
const MAX_FALLBACK_DEPTH: usize = 3;

/// mod_dir's FallbackResource subrequest for the request `c` walked as `r` (its walk with the
/// last component missing, where that differs), if `r` is a missing name's walk and a
/// FallbackResource is in force there: the fallback URL asked on `r`'s Directory walk, which
/// httpd reuses for a regular file of the directory holding the missing name (asked before and
/// after a rewrite like any context: the rules in force there may differ from the same URL asked
/// directly). `fs`: the view `r` was walked with.
fn fallback_subrequest(cfg: &Config, setup: &Setup, fs: &FsView, c: &Ctx, r: &Resolved) -> Option<Ctx> {
    let walked = &r.filesystem_path;
    if walked.as_os_str().to_string_lossy().ends_with('/') || fs.is_dir(walked) {
        return None;
    }
    let target = r.fallback_resource(cfg)?;
    // (The path alone: a query string is the subrequest's arguments.)
    let target = target.split('?').next().unwrap_or_default();
    // `ap_sub_req_lookup_uri` takes a relative URL from the request's directory.
    let url = if target.starts_with('/') {
        target.to_string()
    } else {
        let url = crate::ide::access::normalize_url(&c.url);
        format!("{}{target}", &url[..url.rfind('/').map_or(0, |i| i + 1)])
    };
    let mut missing = setup.display_url(&c.url);
    if let Some(note) = Setup::located_note(c) {
        missing = format!("{missing} ({note})");
    }
    Some(Ctx { url, sub: Some(Subrequest::Fallback { missing, walked: walked.clone() }), ..c.clone() })
}

/// The body a walk applied: a section by the file it is written in (the first of its names,
/// `file_rep`), an .htaccess file by its real path.
fn key_of(origin: Origin, path: &Path, file_rep: &[FileId], setup: &Setup) -> Key {
    match origin {
        Origin::Node(f, r) => Key::Node(file_rep.get(f).copied().unwrap_or(f), u32::from(r.start())),
        Origin::Htaccess => Key::Htaccess(setup.real_path(path)),
        Origin::HtaccessSection(r) => Key::HtaccessSection(setup.real_path(path), u32::from(r.start())),
    }
}

/// For each file of `cfg`, the one of its names that stands for it (by device and inode): the
/// name that is its real path if one is, else the first.
fn same_files(cfg: &Config) -> Vec<FileId> {
    use std::os::unix::fs::MetadataExt;
    let mut groups: HashMap<(u64, u64), Vec<FileId>> = HashMap::new();
    let ids: Vec<Option<(u64, u64)>> =
        cfg.files.iter().map(|f| std::fs::metadata(&f.path).ok().map(|m| (m.dev(), m.ino()))).collect();
    for (i, id) in ids.iter().enumerate() {
        if let Some(id) = id {
            groups.entry(*id).or_default().push(i);
        }
    }
    let mut rep: Vec<FileId> = (0..cfg.files.len()).collect();
    for names in groups.values().filter(|g| g.len() > 1) {
        let real = |f: &FileId| std::fs::canonicalize(&cfg.files[*f].path).is_ok_and(|r| *r == *cfg.files[*f].path);
        let chosen = names.iter().copied().find(real).unwrap_or(names[0]);
        names.iter().for_each(|f| rep[*f] = chosen);
    }
    rep
}

/// (has old-style rules, replaces the inherited Require lines, merges with them)
fn flags(p: &SectionPolicy) -> (bool, bool, bool) {
    let op = p.authz.as_ref().map(|a| a.op);
    let merging = matches!(op, Some(AuthMerging::And | AuthMerging::Or));
    let replaces = p.authz.as_ref().is_some_and(|a| a.section.is_some() || a.op != AuthMerging::Unset) && !merging;
    (p.compat.is_some(), replaces, merging)
}

impl<'c> Analysis<'c> {
    /// Walks every context of `cfg` (already set up with `setup`).
    pub fn new(cfg: &'c Config, setup: Setup) -> Analysis<'c> {
        let ctx = policy_ctx(cfg);
        let dirs: Vec<contexts::HtaccessDir> = setup
            .htaccess
            .iter()
            .filter_map(|h| {
                let dir = h.parent()?.to_path_buf();
                let frag = config::load_fragment_under(Arc::new(setup.read_htaccess(h)), cfg);
                let files: Vec<config::Node> = frag
                    .nodes
                    .iter()
                    .filter(|n| n.is_section() && (n.is("Files") || n.is("FilesMatch")))
                    .cloned()
                    .collect();
                // (Every branch of each pattern: `<FilesMatch "\.(txt|php)$">` asked only at `.txt`
                // was proven where a `<LocationMatch "\.txt$">` beside it set the rules, and its
                // rewrite opened the php files: 401 → 200.)
                let names = files.iter().flat_map(crate::ide::access::witnesses::files_witnesses).collect();
                Some(contexts::HtaccessDir { dir, names, files })
            })
            .collect();
        let (ctxs, bounded) = contexts::contexts(cfg, &dirs, &setup.meeting_urls);
        if std::env::var_os("APACHE_LSP_MIGRATE_TRACE").is_some() {
            eprintln!("migrate: {} request contexts", ctxs.len());
            for c in &ctxs {
                eprintln!("migrate:   server {} {}", c.server, c.url);
            }
        }
        let fs = setup.fs(&BTreeMap::new());
        let gone_fs = fs.last_missing();
        let file_rep = same_files(cfg);
        type Walked = ((Ctx, bool), Vec<Key>, Vec<(bool, bool, bool)>, Resolved, Vec<Arc<Path>>);
        let one = |c: Ctx, gone: bool, r: Resolved| -> Walked {
            let applied = r.applied(cfg);
            let keys: Vec<Key> = applied.iter().map(|(n, p, _)| key_of(*n, p, &file_rep, &setup)).collect();
            let fl = applied.iter().map(|(_, _, p)| flags(p)).collect();
            let read: Vec<Arc<Path>> =
                applied.iter().filter(|(n, _, _)| !matches!(n, Origin::Node(..))).map(|(_, p, _)| p.clone()).collect();
            drop(applied);
            ((c, gone), keys, fl, r, read)
        };
        // A request whose last component the walk took to be there is also walked with it
        // missing: httpd answers a request for a file that is not there too.
        // Each context's subrequests are asked after it: its DirectoryIndex names, and the
        // FallbackResource of its walk for a missing name (and of theirs, to a depth).
        let walked: Vec<Walked> = ctxs
            .into_par_iter()
            .flat_map_iter(|c| {
                let mut out = Vec::new();
                let mut todo = std::collections::VecDeque::from([(c, 0usize)]);
                while let Some((c, depth)) = todo.pop_front() {
                    let r = walk_ctx(cfg, &fs, &c);
                    todo.extend(index_subrequests(cfg, &c, &r).into_iter().map(|s| (s, depth)));
                    let twin = r.presumes_last_there().then(|| walk_ctx(cfg, &gone_fs, &c));
                    if depth < MAX_FALLBACK_DEPTH {
                        let (missing, view) = match &twin {
                            Some(g) => (g, &gone_fs),
                            None => (&r, &fs),
                        };
                        let view = if c.located { &view.located } else { &view.plain };
                        todo.extend(fallback_subrequest(cfg, &setup, view, &c, missing).map(|f| (f, depth + 1)));
                    }
                    out.push(one(c.clone(), false, r));
                    out.extend(twin.map(|g| one(c, true, g)));
                }
                out
            })
            .collect();
        let mut a = Analysis {
            cfg,
            ctx,
            setup,
            nodes: HashMap::new(),
            frags: Vec::new(),
            frag_of: HashMap::new(),
            secs: Vec::new(),
            sec_of: HashMap::new(),
            walks: Vec::new(),
            by_sec: Vec::new(),
            read_under: HashMap::new(),
            skips_differ: HashMap::new(),
            file_rep,
            htaccess_names: BTreeMap::new(),
            bounded,
            unsampled: None,
        };
        // (By the file's real path, as bodies are keyed: one read through a link counts too.)
        for (_, _, _, e, _) in &walked {
            for (p, o) in e.htaccess_read() {
                let under = a.read_under.entry(a.setup.real_path(p)).or_default();
                if !under.contains(o) {
                    under.push(o.clone());
                }
            }
        }
        // (A section of a file with several names by the name that stands for it.)
        for n in cfg.walk().filter(|n| n.is_section()) {
            if a.file_rep[n.loc.file] == n.loc.file {
                a.nodes.entry((n.loc.file, u32::from(n.loc.range.start()))).or_insert(n);
            }
        }
        for n in cfg.walk().filter(|n| n.is_section()) {
            a.nodes.entry((a.file_rep[n.loc.file], u32::from(n.loc.range.start()))).or_insert(n);
        }
        let mut seen: HashMap<(Vec<Key>, bool, bool, bool), ()> = HashMap::new();
        for ((c, gone), keys, flags, e, read) in walked {
            for (k, name) in keys.iter().filter(|k| !matches!(k, Key::Node(..))).zip(read) {
                if let Key::Htaccess(r) | Key::HtaccessSection(r, _) = k {
                    if !a.htaccess_names.get(r).is_some_and(|n| n.contains(&*name)) {
                        a.htaccess_names.entry(r.clone()).or_default().insert(name.to_path_buf());
                    }
                }
            }
            let sig = (keys.clone(), e.errors.is_empty(), e.unknown.is_empty(), e.htaccess_error().is_some());
            if seen.insert(sig, ()).is_some() {
                continue;
            }
            let mut secs = Vec::new();
            for (k, (compat, replaces, merging)) in keys.into_iter().zip(flags) {
                let id = match a.sec_of.get(&k) {
                    Some(id) => *id,
                    None => {
                        if let Key::Htaccess(p) | Key::HtaccessSection(p, _) = &k {
                            a.load_frag(p);
                        }
                        a.secs.push(Sec { key: k.clone(), compat, replaces, merging });
                        a.by_sec.push(Vec::new());
                        a.sec_of.insert(k, a.secs.len() - 1);
                        a.secs.len() - 1
                    }
                };
                secs.push(id);
            }
            let w = a.walks.len();
            for s in &secs {
                if a.by_sec[*s].last() != Some(&w) {
                    a.by_sec[*s].push(w);
                }
            }
            a.walks.push(Walk { ctx: c, gone, secs, eff: e });
        }
        a.unsampled = unsampled::unsampled(&a).or_else(|| rewrites::unfollowed(a.cfg));
        a
    }

    fn load_frag(&mut self, p: &Path) {
        if self.frag_of.contains_key(p) {
            return;
        }
        let fd = Arc::new(self.setup.read_htaccess(p));
        // Read as the walks read it: under the server's modules and Defines, without the lines
        // httpd skips under `AllowOverride Nonfatal=…` (a skipped old-style line stands as
        // what it still does: [`nonfatal::without`]), when every server reading it skips the same.
        let frag = config::load_fragment_under(fd, self.cfg);
        let under = self.read_under.get(p).map(Vec::as_slice).unwrap_or_default();
        let skips: Vec<Vec<nonfatal::Skipped>> = under.iter().map(|o| nonfatal::skipped(&frag, o)).collect();
        let frag = match &skips[..] {
            [first, rest @ ..] if rest.iter().all(|s| s == first) => {
                if first.is_empty() {
                    frag
                } else {
                    nonfatal::without(&frag, first)
                }
            }
            [] => frag,
            _ => {
                let each: Vec<String> = under.iter().map(Overrides::describe).collect();
                self.skips_differ.insert(
                    p.to_path_buf(),
                    format!(
                        "the servers reading {} skip different lines of it ({}), so no one rewrite holds for all of them; rewrite it by hand",
                        p.display(),
                        each.join("; ")
                    ),
                );
                frag
            }
        };
        self.frags.push(frag);
        self.frag_of.insert(p.to_path_buf(), self.frags.len() - 1);
    }

    pub fn body(&self, s: usize) -> Body<'_> {
        match &self.secs[s].key {
            Key::Node(f, start) => {
                let n = self.nodes[&(*f, *start)];
                Body { cfg: self.cfg, file: n.loc.file, node: Some(n), children: &n.children, htaccess: false }
            }
            Key::Htaccess(p) => {
                let frag = &self.frags[self.frag_of[p]];
                Body { cfg: frag, file: 0, node: None, children: &frag.nodes, htaccess: true }
            }
            Key::HtaccessSection(p, start) => {
                let frag = &self.frags[self.frag_of[p]];
                let n = frag
                    .nodes
                    .iter()
                    .find(|n| u32::from(n.loc.range.start()) == *start)
                    .expect("a walked .htaccess section is among its file's nodes");
                Body { cfg: frag, file: 0, node: Some(n), children: &n.children, htaccess: true }
            }
        }
    }

    /// The .htaccess files the walks read, each loaded on its own.
    pub fn fragments(&self) -> &[Config] {
        &self.frags
    }

    /// Counts, for tracing.
    pub fn stats(&self) -> String {
        format!("{} distinct walks over {} bodies", self.walks.len(), self.secs.len())
    }

    /// The body at `key`, if some request reaches it.
    pub fn sec(&self, key: &Key) -> Option<usize> {
        self.sec_of.get(key).copied()
    }

    /// Every old-style body some request reaches.
    pub fn old_style(&self) -> Vec<usize> {
        (0..self.secs.len()).filter(|s| self.secs[*s].compat).collect()
    }

    pub fn label(&self, s: usize) -> String {
        let b = self.body(s);
        format!("{} ({})", b.label(), b.place())
    }

    /// Original texts of the files `edits` touch, by path.
    pub fn original_text(&self, path: &Path) -> Option<Arc<str>> {
        if let Some(id) = self.cfg.file_id(path) {
            return Some(self.cfg.file(id).text.clone());
        }
        self.frag_of.get(path).map(|i| self.frags[*i].file(0).text.clone())
    }

    /// The old-style body written at `file`/`range` (a section of the root configuration, or an
    /// .htaccess file's top level when `path` is one).
    pub fn bodies_in(&self, path: &Path, range: apache_syntax::TextRange) -> Vec<usize> {
        // (The file under the name it is identified by: opened through a link, it is the same.)
        let path = &*self.identity(path);
        let mut out = Vec::new();
        for (s, sec) in self.secs.iter().enumerate() {
            if !sec.compat {
                continue;
            }
            match &sec.key {
                // The top level, unless the range lies inside one of the file's sections.
                Key::Htaccess(p) if p == path => {
                    let frag = &self.frags[self.frag_of[p]];
                    if !frag.nodes.iter().any(|n| n.is_section() && n.loc.range.contains_range(range)) {
                        out.push(s);
                    }
                }
                Key::Node(f, _) if *self.cfg.file(*f).path == *path => {
                    let n = self.body(s).node.expect("node body");
                    if n.loc.range.intersect(range).is_some() {
                        out.push(s);
                    }
                }
                Key::HtaccessSection(p, _) if p == path => {
                    let n = self.body(s).node.expect("section body");
                    if n.loc.range.intersect(range).is_some() {
                        out.push(s);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Why httpd evaluates nothing in the file holding body `s` (a byte-order mark before its
    /// first directive, [`crate::ide::bom`]): no rewrite of it keeps or changes anything.
    pub fn refused_file(&self, s: usize) -> Option<String> {
        let b = self.body(s);
        let text = &b.cfg.file(b.file).text;
        if !crate::ide::bom::starts_with_bom(text) {
            return None;
        }
        let (consequence, nonfatal) = match &self.secs[s].key {
            Key::Node(..) => ("httpd does not start", false),
            // (Under `AllowOverride Nonfatal=Unknown` httpd skips the first directive. No module
            // defines a name beginning with the mark, whichever the server loads.)
            Key::Htaccess(p) | Key::HtaccessSection(p, _) => (
                "httpd answers 500 to every request this .htaccess file applies to",
                self.allow_override_of(p).is_some_and(|(_, words)| {
                    words
                        .iter()
                        .any(|w| w.eq_ignore_ascii_case("Nonfatal=Unknown") || w.eq_ignore_ascii_case("Nonfatal=All"))
                }),
            ),
        };
        crate::ide::bom::refusal(text, consequence, nonfatal).map(|why| {
            format!(
                "it {why}; remove the byte-order mark first (migrate --remove-bom, or the editor's quick fix), which changes what httpd does"
            )
        })
    }

    /// Text of where an .htaccess body's AllowOverride comes from, when it does not allow
    /// AuthConfig (the rewritten lines would then be a 500, or skipped under Nonfatal=Override).
    /// Decided by the AllowOverride and AllowOverrideList in force under each server whose
    /// requests read the file, under any of the names they read it by (a link's path is merged
    /// under the link's directory's sections), as the walks found them; servers that never read
    /// it do not count.
    pub fn htaccess_override_problem(&self, s: usize) -> Option<String> {
        let (Key::Htaccess(p) | Key::HtaccessSection(p, _)) = &self.secs[s].key else { return None };
        if let Some(why) = self.skips_differ.get(p) {
            return Some(why.clone());
        }
        let require = crate::ide::catalogue::directive("Require")?;
        let refusing = self.read_under.get(p)?.iter().find(|o| !o.grants(require))?;
        let names: Vec<&Path> = std::iter::once(p.as_path())
            .chain(self.htaccess_names.get(p).into_iter().flatten().map(PathBuf::as_path))
            .collect();
        // Where it is written, when the <Directory> scan finds the same words (under some name).
        let allow = names
            .iter()
            .find_map(|name| {
                let (d, words) = self.allow_override_of(name)?;
                (Overrides::parse(Some(&words), None) == *refusing).then(|| {
                    let read_as = match *name == p.as_path() {
                        true => String::new(),
                        false => format!(", read as {}", name.display()),
                    };
                    format!(
                        "AllowOverride {} (from {} at {}:{}{read_as})",
                        words.join(" "),
                        d.args().first().map(|x| format!("<Directory {x}>")).unwrap_or_default(),
                        self.cfg.file(d.loc.file).path.display(),
                        self.cfg.line(&d.loc),
                    )
                })
            })
            .unwrap_or_else(|| format!("{} (in force for its directory)", refusing.describe()));
        Some(if refusing.nonfatal() {
            format!(
                "{allow} does not allow AuthConfig, so httpd would skip Require lines written in {} (Nonfatal=Override: logged, AH02295) and the rewrite would lose the rules; add AuthConfig to that AllowOverride first",
                p.display()
            )
        } else {
            format!(
                "{allow} does not allow AuthConfig, so Require lines in {} would answer every request with 500; add AuthConfig to that AllowOverride first",
                p.display()
            )
        })
    }

    /// Why an .htaccess body cannot be proven because a symbolic link leads back above itself
    /// to a directory holding it: httpd then reads the file again at every depth below the
    /// link (`sub/up -> ..`: `/sub/up/sub/up/…`), under rules no finite list of requests covers.
    pub fn loop_problem(&self, s: usize) -> Option<String> {
        let (Key::Htaccess(real) | Key::HtaccessSection(real, _)) = &self.secs[s].key else { return None };
        let (link, target) = self.setup.loops.iter().find(|(_, t)| real.starts_with(t))?;
        Some(format!(
            "the symbolic link {} leads back to {}, above itself: httpd reads {} again at every depth below the link, where no finite set of requests proves a rewrite; remove the link, or rewrite by hand",
            link.display(),
            target.display(),
            real.display()
        ))
    }

    /// The .htaccess files the walks read: each under its real path and every name read by.
    pub fn htaccess_read(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.htaccess_names.iter().flat_map(|(r, n)| std::iter::once(r).chain(n)).cloned()
    }

    /// The key of the section of file `file` starting at `start` (the first name of its file).
    pub fn node_key(&self, file: FileId, start: u32) -> Key {
        Key::Node(self.file_rep.get(file).copied().unwrap_or(file), start)
    }

    /// The name a file is identified by: for a file of the configuration the first of its
    /// names, for an .htaccess file its real path.
    pub fn identity(&self, path: &Path) -> PathBuf {
        match self.cfg.file_id(path) {
            Some(f) => self.cfg.file(self.file_rep[f]).path.to_path_buf(),
            None => self.setup.real_path(path),
        }
    }

    /// The other names of the file the configuration reads at `path`, or of the .htaccess
    /// file whose real path is `path`: each is given an edited text too.
    pub fn other_names(&self, path: &Path) -> Vec<PathBuf> {
        match self.cfg.file_id(path) {
            Some(f) => (0..self.cfg.files.len())
                .filter(|g| *g != f && self.file_rep[*g] == self.file_rep[f])
                .map(|g| self.cfg.file(g).path.to_path_buf())
                .collect(),
            None => {
                let mut n: BTreeSet<PathBuf> = self.setup.other_names(path).cloned().collect();
                n.extend(self.htaccess_names.get(path).into_iter().flatten().filter(|n| n.as_path() != path).cloned());
                n.into_iter().collect()
            }
        }
    }

    /// The AllowOverride in force for the .htaccess file `p` (the section it is written in, and
    /// its words), None where none applies.
    fn allow_override_of(&self, p: &Path) -> Option<(&'c Node, Vec<String>)> {
        let dir = p.parent()?.to_string_lossy().into_owned();
        let comps = config::index::components(&dir);
        let mut allow: Option<(&Node, Vec<String>)> = None;
        // As httpd's directory walk: non-regex <Directory> sections (AllowOverride is refused in
        // the others) whose pattern, wildcards included, matches the path cut to as many
        // components as it has; shorter ones first, then in configuration order.
        let mut dirs: Vec<(usize, &Node)> = self
            .cfg
            .walk()
            .filter(|n| n.is_section() && n.is("Directory"))
            .filter_map(|n| {
                let pat = n.args().first()?;
                if pat == "~" {
                    return None;
                }
                let k = config::index::components(pat).len();
                let prefix = format!("/{}", comps.get(..k)?.join("/"));
                let pat = if k == 0 { "/" } else { pat.trim_end_matches('/') };
                wildcard_match(pat, &prefix, true).then_some((k, n))
            })
            .collect();
        dirs.sort_by_key(|(k, _)| *k);
        for (_, d) in dirs {
            if let Some(ao) = d.children.iter().rev().find(|c| c.is("AllowOverride")) {
                allow = Some((d, ao.arg_strings()));
            }
        }
        allow
    }
}
