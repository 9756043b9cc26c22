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
use super::classes::{self, Dims};
use super::contexts::{self, Ctx};
use super::describe::{self, Change};
use super::formula::{self, Reading, Rules};
use super::Edit;
use crate::ide::access::{policy_ctx, resolve, wildcard_match, FsOverlay, FsView, Origin, Resolved};
use crate::ide::config::{self, Config, FileData, FileId, Node, NodeKind};
use crate::ide::policy::{AuthMerging, PolicyCtx, SectionPolicy};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    secs: Vec<usize>,
    eff: Resolved,
}

/// How the Require lines in effect are written into a rewritten body.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    Own,
    /// The Require lines every path had in effect, copied.
    Copy(Vec<formula::Rule>),
    Nothing,
    Inherited,
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
}

/// Set-up shared by the configuration before and after: directories treated as existing and
/// probe aliases that let requests reach directories no URL maps to.
#[derive(Debug, Clone, Default)]
pub(super) struct Setup {
    dirs: BTreeSet<PathBuf>,
    /// (alias, directory, where: the top-level index of the virtual host it is added to, or
    /// None for the main server)
    probes: Vec<(String, String, Option<usize>)>,
    htaccess: Vec<PathBuf>,
    /// Texts of per-request files that differ from the disk (before any rewrite).
    pub files: BTreeMap<PathBuf, Arc<str>>,
}

const PROBE_PREFIX: &str = "/__apache-lsp-probe-";

impl Setup {
    pub fn new(cfg: &Config, files: BTreeMap<PathBuf, Arc<str>>) -> Setup {
        let mut htaccess = contexts::find_htaccess(cfg);
        htaccess.extend(files.keys().filter(|p| !htaccess.contains(p)).cloned().collect::<Vec<_>>());
        let mut dirs = contexts::named_dirs(cfg);
        for h in &htaccess {
            if let Some(d) = h.parent() {
                dirs.extend(d.ancestors().map(Path::to_path_buf));
            }
        }
        // A probe alias for each <Directory> no URL maps to (so that it can be reached), in the
        // server the section belongs to: its virtual host, or for the main server's sections the
        // main server when connections reach it, else the first virtual host.
        let mut probes: Vec<(String, String, Option<usize>)> = Vec::new();
        let mappings = contexts::mappings(cfg);
        let vhost_positions: Vec<usize> = cfg
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_section() && n.is("VirtualHost"))
            .map(|(i, _)| i)
            .collect();
        let main_reached = contexts::servers(cfg).iter().any(|s| s.vhost.is_none());
        let main_home = if main_reached { None } else { vhost_positions.first().copied() };
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
        Setup { dirs, probes, htaccess, files }
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
    pub fn fs(&self, pending: &BTreeMap<PathBuf, Arc<str>>) -> FsView {
        let mut files = self.files.clone();
        files.extend(pending.iter().map(|(p, t)| (p.clone(), t.clone())));
        FsView::overlaid(FsOverlay { dirs: self.dirs.clone(), files })
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
    /// Some context list was cut short.
    pub bounded: bool,
}

fn walk_ctx(cfg: &Config, fs: &FsView, c: &Ctx) -> Resolved {
    resolve(cfg, fs, &c.url, c.host.as_deref(), c.local)
}

fn key_of(origin: Origin, path: &Path) -> Key {
    match origin {
        Origin::Node(f, r) => Key::Node(f, u32::from(r.start())),
        Origin::Htaccess => Key::Htaccess(path.to_path_buf()),
        Origin::HtaccessSection(r) => Key::HtaccessSection(path.to_path_buf(), u32::from(r.start())),
    }
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
                let names = frag
                    .nodes
                    .iter()
                    .filter(|n| n.is_section() && (n.is("Files") || n.is("FilesMatch")))
                    .filter_map(contexts::files_witness)
                    .collect();
                Some(contexts::HtaccessDir { dir, names })
            })
            .collect();
        let (ctxs, bounded) = contexts::contexts(cfg, &dirs);
        if std::env::var_os("APACHE_LSP_MIGRATE_TRACE").is_some() {
            eprintln!("migrate: {} request contexts", ctxs.len());
        }
        let fs = setup.fs(&BTreeMap::new());
        type Walked = (Ctx, Vec<Key>, Vec<(bool, bool, bool)>, Resolved);
        let walked: Vec<Walked> = ctxs
            .into_par_iter()
            .map(|c| {
                let r = walk_ctx(cfg, &fs, &c);
                let applied = r.applied(cfg);
                let keys: Vec<Key> = applied.iter().map(|(n, p, _)| key_of(*n, p)).collect();
                let fl = applied.iter().map(|(_, _, p)| flags(p)).collect();
                drop(applied);
                (c, keys, fl, r)
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
            bounded,
        };
        for n in cfg.walk().filter(|n| n.is_section()) {
            a.nodes.insert((n.loc.file, u32::from(n.loc.range.start())), n);
        }
        let mut seen: HashMap<(Vec<Key>, bool, bool, bool), ()> = HashMap::new();
        for (c, keys, flags, e) in walked {
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
            a.walks.push(Walk { ctx: c, secs, eff: e });
        }
        a
    }

    fn load_frag(&mut self, p: &Path) {
        if self.frag_of.contains_key(p) {
            return;
        }
        let fd = Arc::new(self.setup.read_htaccess(p));
        // Read as the walks read it: under the server's modules and Defines.
        self.frags.push(config::load_fragment_under(fd, self.cfg));
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

    fn neutral(&self, s: usize) -> bool {
        let b = self.body(s);
        let p = b.policy(&self.ctx);
        match p.compat {
            Some(c) => formula::is_neutral(&formula::classes(&c, &b.limit_methods(&self.ctx), Reading::Exact)),
            None => true,
        }
    }

    /// Grows `seeds` into the set of bodies that must change together (module docs).
    pub fn cluster(&self, seeds: &BTreeSet<usize>, excluded: &BTreeSet<usize>) -> Result<Cluster, Blocked> {
        let mut m = seeds.clone();
        let blocked = |who: usize, why: String| Blocked { culprits: [who].into(), reason: why };
        if let Some(x) = m.iter().find(|x| excluded.contains(x)) {
            return Err(blocked(*x, format!("{} cannot be rewritten", self.label(*x))));
        }
        for _ in 0..10_000 {
            let mut carry: BTreeMap<usize, Carry> = BTreeMap::new();
            let mut blocked = Blocked { culprits: BTreeSet::new(), reason: String::new() };
            let mut grew = false;
            let walk_ids: BTreeSet<usize> = m.iter().flat_map(|s| self.by_sec[*s].iter().copied()).collect();
            // Carries first: they decide which walks the other rules look at. A body reached
            // under different old-style rules on different paths cannot hold one carried
            // formula; it is left alone and the proof decides.
            let mut sources: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
            for &w in &walk_ids {
                let secs = &self.walks[w].secs;
                let Some(px) = secs.iter().rposition(|s| self.secs[*s].compat) else { continue };
                let x = secs[px];
                if !m.contains(&x) {
                    continue;
                }
                if let Some(pl) = secs.iter().rposition(|s| self.secs[*s].replaces) {
                    if pl > px {
                        sources.entry(secs[pl]).or_default().insert(x);
                    }
                }
            }
            for (l, xs) in sources {
                let needed: Vec<usize> = xs.iter().copied().filter(|x| self.carry_needed(l, *x)).collect();
                if needed.is_empty() {
                    continue;
                }
                if xs.len() == 1 {
                    carry.insert(l, Carry::Text(needed[0]));
                } else if let Some(any) = self.common_satisfy(&xs) {
                    carry.insert(l, Carry::Merge { any, sources: xs });
                }
            }
            let walk_ids: BTreeSet<usize> =
                m.iter().chain(carry.keys()).flat_map(|s| self.by_sec[*s].iter().copied()).collect();
            for &w in &walk_ids {
                let secs = &self.walks[w].secs;
                let px = secs.iter().rposition(|s| self.secs[*s].compat);
                // Who decides the Require lines once the rewrite is done.
                let pl_after = secs.iter().rposition(|s| self.secs[*s].replaces || m.contains(s));
                let edited_l = pl_after.map(|p| secs[p]).filter(|l| m.contains(l) || carry.contains_key(l));
                match px {
                    Some(px) if m.contains(&secs[px]) => {
                        // The old-style rules that would be in effect once X's are gone. (One
                        // that cannot be rewritten stays; the proof then decides.)
                        for &y in secs[..px].iter().rev() {
                            if !self.secs[y].compat || m.contains(&y) {
                                continue;
                            }
                            if self.neutral(y) {
                                break;
                            }
                            if excluded.contains(&y) {
                                blocked.culprits.insert(secs[px]);
                                if blocked.reason.is_empty() {
                                    blocked.reason = format!(
                                        "{} keeps its old-style rules, which would then take effect where it applies",
                                        self.label(y)
                                    );
                                }
                                break;
                            }
                            m.insert(y);
                            grew = true;
                        }
                    }
                    Some(px) => {
                        // X keeps its old-style rules but would inherit edited Require lines.
                        let x = secs[px];
                        if edited_l.is_some() && !excluded.contains(&x) {
                            m.insert(x);
                            grew = true;
                        }
                    }
                    None => {}
                }
            }
            if !blocked.culprits.is_empty() {
                return Err(blocked);
            }
            if !grew {
                return Ok(Cluster { rewrite: m, carry });
            }
        }
        Err(Blocked { culprits: seeds.clone(), reason: "the rewrite does not settle".into() })
    }

    /// The Satisfy (Any: true) every method of every one of `xs` has, if they agree.
    fn common_satisfy(&self, xs: &BTreeSet<usize>) -> Option<bool> {
        let mut seen = BTreeSet::new();
        for x in xs {
            for c in self.classes_of(*x, Reading::Exact).ok()? {
                seen.insert(c.any);
            }
        }
        (seen.len() == 1).then(|| seen.into_iter().next().unwrap())
    }

    /// Whether `l`'s Require lines need `x`'s host rules written into them to keep their
    /// outcome: not when the rules let everyone through the host check (and do not bypass
    /// Require), nor when the Require lines deny everyone anyway (under Satisfy All).
    fn carry_needed(&self, l: usize, x: usize) -> bool {
        let Ok(classes) = self.classes_of(x, Reading::Exact) else { return true };
        if formula::is_neutral(&classes) {
            return false;
        }
        let denies_all =
            self.rules_of(l).is_ok_and(|r| r.len() == 1 && r[0].limit.is_none() && r[0].text == "Require all denied");
        !(denies_all && classes.iter().all(|c| !c.any))
    }

    /// How the Require lines in effect are written into rewritten body `x`.
    fn mode(&self, x: usize) -> Mode {
        if self.secs[x].replaces {
            return Mode::Own;
        }
        // What each path had in effect where x's old-style rules decided, as Require text:
        // the last replacing section's lines, or for none at all (without AuthType: httpd then
        // grants) `Require all granted`.
        let granted = || vec![formula::Rule { text: "Require all granted".into(), limit: None }];
        let mut seen: BTreeMap<Vec<String>, Vec<formula::Rule>> = BTreeMap::new();
        for &w in &self.by_sec[x] {
            let walk = &self.walks[w];
            let secs = &walk.secs;
            let Some(px) = secs.iter().rposition(|s| self.secs[*s].compat) else { continue };
            if secs[px] != x {
                continue;
            }
            if secs.iter().any(|s| self.secs[*s].merging) {
                return Mode::Inherited;
            }
            let rules = match secs.iter().rposition(|s| self.secs[*s].replaces) {
                Some(pl) if pl > px => continue,
                Some(pl) => match self.rules_of(secs[pl]) {
                    Ok(r) => r,
                    Err(_) => return Mode::Inherited,
                },
                None if walk.eff.authn.auth_type_kind() == crate::ide::policy::AuthTypeKind::None => granted(),
                None => return Mode::Inherited,
            };
            seen.insert(rules.iter().map(|r| r.text.clone()).collect(), rules);
        }
        match seen.len() {
            0 => Mode::Nothing,
            1 => Mode::Copy(seen.into_values().next().unwrap()),
            _ => Mode::Inherited,
        }
    }

    fn rules_of(&self, s: usize) -> Result<Vec<formula::Rule>, String> {
        Ok(self.body(s).parts()?.rules)
    }

    fn classes_of(&self, x: usize, reading: Reading) -> Result<Vec<formula::Class>, String> {
        let b = self.body(x);
        let p = b.policy(&self.ctx);
        if let Some(e) = p.errors.first() {
            return Err(format!("httpd rejects its lines: {}", e.message));
        }
        let c = p.compat.ok_or("it has no old-style rules")?;
        Ok(formula::classes(&c, &b.limit_methods(&self.ctx), reading))
    }

    /// The edits rewriting body `x` (without carrying anything anywhere).
    pub fn rewrite_edits(&self, x: usize, reading: Reading) -> Result<Vec<Edit>, String> {
        let b = self.body(x);
        if b.sets_authmerging(&self.ctx) {
            return Err("it already sets AuthMerging; combine by hand".into());
        }
        let parts = b.parts()?;
        let classes = self.classes_of(x, reading)?;
        let mode = self.mode(x);
        let rules = match &mode {
            Mode::Own => self.rules_of(x)?,
            Mode::Copy(r) => r.clone(),
            Mode::Nothing | Mode::Inherited => vec![],
        };
        let rules = match mode {
            // Inherited lines that cannot change the outcome are left out.
            Mode::Inherited | Mode::Copy(_) if formula::decides_alone(&classes) => Rules::None,
            // A copied `Require all granted` adds nothing to H.
            Mode::Copy(r) if r.len() == 1 && r[0].limit.is_none() && r[0].text == "Require all granted" => Rules::None,
            Mode::Inherited => Rules::Inherited,
            _ if rules.is_empty() => Rules::None,
            _ => Rules::Lines(rules),
        };
        let block = formula::block(&classes, &rules, &self.ctx.registered_methods)?;
        Ok(b.rewrite(&parts, &block))
    }

    /// The edits carrying host rules into `l`'s Require lines.
    fn carry_edits(&self, l: usize, carry: &Carry) -> Result<Vec<Edit>, String> {
        let b = self.body(l);
        if b.sets_authmerging(&self.ctx) {
            return Err(format!("{} sets AuthMerging", self.label(l)));
        }
        let parts = b.parts().map_err(|e| format!("{}: {e}", self.label(l)))?;
        if parts.rules.is_empty() {
            return Err(format!("{} has no Require lines to carry the rules into", self.label(l)));
        }
        let x = match carry {
            Carry::Text(x) => *x,
            Carry::Merge { any, .. } => {
                let line = if *any { "AuthMerging Or" } else { "AuthMerging And" };
                return Ok(b.insert_before_rules(&parts, line));
            }
        };
        let rules = self.rules_of(l)?;
        let classes = self.classes_of(x, Reading::Exact)?;
        let block = formula::block(&classes, &Rules::Lines(rules), &self.ctx.registered_methods)?;
        Ok(b.replace_rules(&parts, &block))
    }

    /// All edits of a cluster; Err names the body that cannot be written.
    pub fn cluster_edits(&self, c: &Cluster) -> Result<Vec<Edit>, Blocked> {
        let mut edits = Vec::new();
        for &x in &c.rewrite {
            edits.extend(
                self.rewrite_edits(x, Reading::Exact)
                    .map_err(|e| Blocked { culprits: [x].into(), reason: format!("{}: {e}", self.label(x)) })?,
            );
        }
        for (&l, carry) in &c.carry {
            edits.extend(
                self.carry_edits(l, carry)
                    .map_err(|e| Blocked { culprits: carry.sources().into_iter().collect(), reason: e })?,
            );
        }
        Ok(edits)
    }

    /// Bodies that `edits` touch, each with a hash of its edits.
    fn edited_secs(&self, edits: &[Edit]) -> BTreeMap<usize, u64> {
        use std::hash::{Hash, Hasher};
        let mut by_path: HashMap<&Path, Vec<&Edit>> = HashMap::new();
        for e in edits {
            by_path.entry(&e.path).or_default().push(e);
        }
        let mut out = BTreeMap::new();
        for (s, sec) in self.secs.iter().enumerate() {
            let b = self.body(s);
            let Some(mine) = by_path.get(&*b.path()) else { continue };
            let range = match &sec.key {
                Key::Node(..) | Key::HtaccessSection(..) => b.node.map(|n| n.loc.range),
                Key::Htaccess(_) => None,
            };
            let mut h = std::collections::hash_map::DefaultHasher::new();
            let mut any = false;
            for e in mine.iter().filter(|e| range.is_none_or(|r| r.contains_range(e.range))) {
                any = true;
                (e.range.start(), e.range.end(), &e.new_text).hash(&mut h);
            }
            if any {
                out.insert(s, h.finish());
            }
        }
        out
    }

    /// The proof: every context reaching an edited body, every request class, before and after.
    /// Returns the requests that change (empty: proven) and, per walk, the ones there.
    /// `proven` remembers the walks already proven for the same edits of their bodies (across
    /// the rounds of one migration), which are not walked again.
    pub fn verify(
        &self,
        after: &Config,
        after_fs: &FsView,
        edits: &[Edit],
        proven: &mut HashMap<usize, u64>,
    ) -> (Vec<Change>, BTreeMap<usize, Vec<Change>>) {
        use std::hash::{Hash, Hasher};
        let edited = self.edited_secs(edits);
        let walk_ids: BTreeSet<usize> = edited.keys().flat_map(|s| self.by_sec[*s].iter().copied()).collect();
        let sig = |w: usize| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            for s in &self.walks[w].secs {
                edited.get(s).hash(&mut h);
            }
            h.finish()
        };
        let todo: Vec<(usize, u64)> =
            walk_ids.into_iter().map(|w| (w, sig(w))).filter(|(w, h)| proven.get(w) != Some(h)).collect();
        // Walk each context again on the edited configuration; paths whose configurations
        // read the same before and after (up to where their lines are) are decided alike, so
        // each distinct pair is evaluated once.
        let walked: Vec<(usize, u64, Resolved, String)> = todo
            .into_par_iter()
            .map(|(w, hash)| {
                let walk = &self.walks[w];
                let e2 = walk_ctx(after, after_fs, &walk.ctx);
                let key = format!("{}#{}#{:?}", canonical(&walk.eff), canonical(&e2), walk.ctx.local);
                (w, hash, e2, key)
            })
            .collect();
        let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, (_, _, _, key)) in walked.iter().enumerate() {
            groups.entry(key.as_str()).or_default().push(i);
        }
        let groups: Vec<Vec<usize>> = groups.into_values().collect();
        // Per group: its members, the dimensions found, and each class with its status before
        // and after.
        type Decided = (Vec<usize>, Dims, Vec<(classes::Class, Option<u16>, Option<u16>)>);
        let decided: Vec<Decided> = groups
            .into_par_iter()
            .map(|members| {
                let (w, _, e2, _) = &walked[members[0]];
                let walk = &self.walks[*w];
                let mut dims = Dims::default();
                dims.add_resolved(&walk.eff);
                dims.add_resolved(e2);
                let reqs = dims.requests(walk.ctx.local.map(|l| l.0));
                CLASSES.fetch_add(reqs.len(), std::sync::atomic::Ordering::Relaxed);
                let mut differ = Vec::new();
                for class in reqs {
                    let a = classes::status(&walk.eff, self.cfg, &class.request);
                    let b = classes::status(e2, after, &class.request);
                    if a != b || a.is_none() {
                        differ.push((class, a, b));
                    }
                }
                (members, dims, differ)
            })
            .collect();
        let mut changes = Vec::new();
        let mut failing = BTreeMap::new();
        for (members, dims, differ) in decided {
            for i in members {
                let (w, hash, _, _) = &walked[i];
                if differ.is_empty() {
                    proven.insert(*w, *hash);
                    continue;
                }
                let walk = &self.walks[*w];
                let c: Vec<Change> =
                    differ.iter().map(|(class, a, b)| self.change(walk, &dims, class, *a, *b)).collect();
                changes.extend(c.iter().cloned());
                failing.insert(*w, c);
            }
        }
        (changes, failing)
    }

    fn change(&self, walk: &Walk, dims: &Dims, class: &classes::Class, a: Option<u16>, b: Option<u16>) -> Change {
        let r = &class.request;
        let mut extra = Vec::new();
        if class.host_split {
            extra.push(describe::host_extra(&r.client_host));
        }
        if class.env_split {
            let set: Vec<&String> = r.env.vars.keys().collect();
            extra.push(if set.is_empty() {
                "with none of the tested variables set".into()
            } else {
                format!("with {} set", set.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))
            });
        }
        Change {
            host: walk.ctx.host.clone(),
            url: self.setup.display_url(&walk.ctx.url),
            method: class.method_split.then(|| r.method.clone()),
            client: describe::client_class(r.client, &dims.nets, dims.local),
            extra,
            who: describe::who(r.user.as_deref(), r.bad_credentials),
            before: a,
            after: b,
        }
    }

    /// Bodies to blame for a failing walk: the rewritten body whose old-style rules were in
    /// effect there, else the sources of rules carried into it, else every rewritten body on it.
    /// Each blamed body with the changes on the walks it is blamed for.
    pub fn culprits(&self, failing: &BTreeMap<usize, Vec<Change>>, c: &Cluster) -> BTreeMap<usize, Vec<Change>> {
        let mut out: BTreeMap<usize, Vec<Change>> = BTreeMap::new();
        for (&w, changes) in failing {
            let secs = &self.walks[w].secs;
            let mut blamed: Vec<usize> = Vec::new();
            if let Some(x) = secs.iter().rev().find(|s| self.secs[**s].compat).filter(|x| c.rewrite.contains(x)) {
                blamed.push(*x);
            } else {
                blamed.extend(secs.iter().filter_map(|s| c.carry.get(s)).flat_map(|c| c.sources()));
                if blamed.is_empty() {
                    blamed.extend(secs.iter().filter(|s| c.rewrite.contains(s)));
                }
            }
            for b in blamed {
                out.entry(b).or_default().extend(changes.iter().cloned());
            }
        }
        out
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

    /// Text of where an .htaccess body's AllowOverride comes from, when it does not allow
    /// AuthConfig (the rewritten lines would then be a 500).
    pub fn htaccess_override_problem(&self, s: usize) -> Option<String> {
        let (Key::Htaccess(p) | Key::HtaccessSection(p, _)) = &self.secs[s].key else { return None };
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
        let ok = |a: &[String]| a.iter().any(|w| w.eq_ignore_ascii_case("All") || w.eq_ignore_ascii_case("AuthConfig"));
        match allow {
            Some((_, a)) if ok(&a) => None,
            Some((d, a)) => Some(format!(
                "AllowOverride {} (from {} at {}:{}) does not allow AuthConfig, so Require lines in {} would answer every request with 500; add AuthConfig to that AllowOverride first",
                a.join(" "),
                d.args().first().map(|x| format!("<Directory {x}>")).unwrap_or_default(),
                self.cfg.file(d.loc.file).path.display(),
                self.cfg.line(&d.loc),
                p.display()
            )),
            None => Some(format!(
                "no AllowOverride applies to {} (the default is None), so httpd does not read it",
                p.display()
            )),
        }
    }
}

/// What decides requests on a walked path, as text without where each rule is written:
/// two paths with the same text answer every request alike.
fn canonical(r: &Resolved) -> String {
    let s = format!(
        "{:?}|{:?}|{:?}|{}|{}|{}",
        r.compat,
        r.authz,
        r.authn,
        r.errors.is_empty(),
        r.unknown.is_empty(),
        r.htaccess_error().is_some()
    );
    // Drop every `Loc { … }` (file, line and range of a rule).
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(i) = rest.find("Loc {") {
        out.push_str(&rest[..i]);
        let mut depth = 0usize;
        let mut end = rest.len();
        for (j, ch) in rest[i..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push('L');
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}
