//! Feature: the subrequests mod_dir makes for a request (a DirectoryIndex name, the
//! FallbackResource URL), walked and checked as httpd does them.
//!
//! `ap_sub_req_lookup_uri` makes a GET request for the new URI with the main request's headers
//! (`server/request.c: ap_sub_req_method_uri`), and `ap_process_request_internal` walks it like any
//! request: its `<If>` conditions are evaluated again, for the subrequest (the method is GET, the
//! URI its own), so a branch the main request took on `%{REQUEST_METHOD} == 'POST'` is not taken
//! there. The walks reuse the main request's merged configuration where they meet the same
//! sections and the same `<If>` branches; only then is the configuration the main request's, and
//! the access checks are skipped (`r->main->per_dir_config == r->per_dir_config`). Otherwise they
//! run again, for GET: a `<Limit POST>` does not apply, a `<LimitExcept POST>` does.
//!
//! The walks reuse a merged configuration only while every module hooked into the access phase
//! says its answer depends on the configuration alone (`ap_setup_auth_internal`): mod_allowmethods,
//! mod_log_debug and mod_lua hook in without saying so, and where one is loaded each walk that
//! meets a section for a new key merges afresh (`walk_caches_off` below). The subrequest's URI and
//! file name are never the main request's, so any `<Location>`-type, `<Files>`-type or
//! `<If>`-family section it meets, or a Directory walk it does not share with the main request
//! (a regular file in the directory the main request's walk ended in), makes its configuration a
//! new one, and its access is checked again.
//!
//! Invariants: no IO besides what [`crate::ide::access`] does; a branch whose condition cannot be
//! evaluated for the subrequest is walked both ways, and a configuration that may or may not be
//! the main request's leaves both answers possible.

use crate::ide::access::branches::{self, Branch, Chain, Decided};
use crate::ide::access::{walk_and_evaluate, Effective, FsView, RequestSpec};
use crate::ide::config::Config;
use crate::ide::policy::TraceStep;
use crate::ide::setenvif::EnvInputs;
use std::path::Path;

/// A subrequest walked and checked.
pub struct Sub {
    /// The subrequest walked and evaluated, its outcome the answer of its access step: 200 where
    /// its configuration is the main request's (the checks skipped).
    pub effective: Effective,
    /// Its configuration is the main request's: httpd did not check access again.
    pub same_config: bool,
}

/// The variables whose value a subrequest may not share with its main request (its method, its
/// URI and the file it maps to, whether it is one): a condition reading one of them is evaluated
/// for the subrequest or not known there.
const SUBREQUEST_VARIABLES: &[&str] = &[
    "REQUEST_METHOD",
    "REQUEST_URI",
    "REQUEST_FILENAME",
    "SCRIPT_FILENAME",
    "DOCUMENT_URI",
    "PATH_INFO",
    "IS_SUBREQ",
    "HANDLER",
    "CONTENT_TYPE",
    "REQUEST_STATUS",
];

/// Whether `<If>`-family section `b`'s condition may read what differs in a subrequest.
fn reads_the_request_line(cfg: &Config, b: &Branch) -> bool {
    let n = b.node(cfg);
    let text = n.args().first().unwrap_or_default().to_ascii_uppercase();
    SUBREQUEST_VARIABLES.iter().any(|v| text.contains(v))
}

/// The sections' identities: equal lists mean the walks met the same sections.
pub fn section_ids(e: &Effective) -> Vec<(&Path, u32, u32, &str)> {
    e.sections
        .iter()
        .map(|s| (&*s.path, u32::from(s.range.start()), u32::from(s.range.end()), s.kind.as_str()))
        .collect()
}

/// The request whose subrequests are walked, with what each of them is compared with, computed
/// once for all of them (mod_dir makes one per DirectoryIndex name).
pub struct MainRequest<'a> {
    pub spec: &'a RequestSpec,
    /// `spec` walked.
    pub effective: &'a Effective,
    /// Its sections' identities ([`section_ids`]).
    ids: Vec<(&'a Path, u32, u32, &'a str)>,
}

impl<'a> MainRequest<'a> {
    pub fn new(spec: &'a RequestSpec, effective: &'a Effective) -> MainRequest<'a> {
        MainRequest { spec, effective, ids: section_ids(effective) }
    }
}

/// Walks `sub` (a GET of its own URI) made by the request `main`; `main_walk`: the filename
/// whose Directory walk the subrequest may reuse (`main`'s: a DirectoryIndex name's directory, a
/// FallbackResource's missing name).
pub fn walk(cfg: &Config, fs: &FsView, main: &MainRequest, sub: &RequestSpec, main_walk: Option<&Path>) -> Sub {
    let (spec, main_ids, main) = (main.spec, &main.ids, main.effective);
    let untold = EnvInputs::default();
    let inputs = main.inputs.as_ref().unwrap_or(&untold);
    let main_known = branches::expr_request(cfg, spec, inputs);
    let sub_known = branches::expr_request(cfg, sub, inputs);
    // A condition's value for the subrequest: evaluated for it, else (not known) the main
    // request's branch where the condition reads nothing the subrequest changes (the main
    // request was walked with one value of it: the headers are shared).
    let inherited = |b: &Branch| {
        let d = main.decided.as_ref().filter(|d| d.considered.contains(b))?;
        (branches::condition(cfg, b, &main_known).is_none() && !reads_the_request_line(cfg, b))
            .then(|| d.applying.contains(b))
    };
    let value = |b: &Branch| branches::condition(cfg, b, &sub_known).or_else(|| inherited(b));
    let probe = walk_and_evaluate(cfg, fs, sub, None, main_walk, None);
    let mut ways: Vec<Effective> = Vec::new();
    let mut too_many = false;
    if probe.chains.is_empty() {
        ways.push(probe);
    } else {
        match branches::combinations(cfg, &probe.chains, &value) {
            Some(combos) => {
                ways.extend(combos.iter().map(|d| walk_and_evaluate(cfg, fs, sub, None, main_walk, Some(d))))
            }
            None => {
                too_many = true;
                ways.push(probe);
            }
        }
    }
    // Per way: its access step's statuses, and whether its configuration is the main request's.
    let mut statuses: Vec<u16> = Vec::new();
    let mut same_all = true;
    let mut reasons: Vec<String> = Vec::new();
    let caches_off = walk_caches_off(cfg);
    for w in &ways {
        let same = if section_ids(w) != *main_ids || w.refused_symlink.is_some() {
            Some(false)
        } else if caches_off {
            merged_alike_without_caches(cfg, fs, w, main_walk, &sub_known).and_then(|alike| {
                if alike {
                    same_branches(cfg, &w.other_chains, &main_known, &sub_known)
                } else {
                    Some(false)
                }
            })
        } else {
            same_branches(cfg, &w.other_chains, &main_known, &sub_known)
        };
        let checked = match w.outcome.status {
            Some(s) => vec![s],
            None => w.outcome.possible_statuses.clone(),
        };
        match same {
            Some(true) => statuses.push(200),
            Some(false) => statuses.extend(&checked),
            None => {
                statuses.push(200);
                statuses.extend(&checked);
            }
        }
        same_all &= same == Some(true);
        if same.is_none() && checked != [200] {
            reasons.push(format!(
                "whether the subrequest GET {} takes the same <If> branches as the request is not known (httpd checks \
                 its access again only where it does not)",
                sub.path
            ));
        } else if same == Some(false) && w.outcome.status.is_none() {
            reasons.extend(w.outcome.reason_unknown.clone());
        }
    }
    statuses.sort_unstable();
    statuses.dedup();
    let branched = ways.len() > 1;
    let mut effective = ways.swap_remove(0);
    effective.inputs = main.inputs.clone();
    let o = &mut effective.outcome;
    if same_all {
        o.status = Some(200);
        o.possible_statuses = vec![200];
        o.deciding = None;
        o.reason_unknown = None;
        return Sub { effective, same_config: true };
    }
    if too_many {
        o.status = None;
        o.possible_statuses = statuses;
        o.reason_unknown = Some(format!(
            "the <If> branches on the way of the subrequest GET {} make more than {} combinations",
            sub.path,
            branches::MAX_COMBINATIONS
        ));
    } else if statuses.len() == 1 && reasons.is_empty() {
        if o.status != Some(statuses[0]) {
            // A way whose configuration is the main request's where the first one's is not.
            o.deciding = None;
        }
        o.status = Some(statuses[0]);
        o.possible_statuses = statuses;
    } else if statuses.len() > 1 || !reasons.is_empty() {
        o.status = None;
        o.possible_statuses = statuses;
        let mut why = reasons.join("; ");
        if branched {
            if !why.is_empty() {
                why.push_str("; ");
            }
            why.push_str(&format!(
                "the <If> conditions on the way of the subrequest GET {} are not all known for it",
                sub.path
            ));
        }
        o.reason_unknown = Some(why);
    }
    if branched && effective.outcome.status.is_some() {
        let text = format!("the <If> branches of the subrequest GET {} give the same answer each way", sub.path);
        effective.outcome.trace.insert(0, TraceStep { depth: 0, text, loc: None });
    }
    Sub { effective, same_config: false }
}

/// Whether the `<If>` chains holding nothing the answer reads take the same branches in the
/// request (`main`) and its subrequest (`sub`): None when that is not known.
fn same_branches(
    cfg: &Config,
    chains: &[Chain],
    main: &crate::ide::policy::expr_eval::ExprRequest,
    sub: &crate::ide::policy::expr_eval::ExprRequest,
) -> Option<bool> {
    if chains.is_empty() {
        return Some(true);
    }
    let in_main = |b: &Branch| branches::condition(cfg, b, main);
    let in_sub = |b: &Branch| branches::condition(cfg, b, sub);
    let one = |c: Option<Vec<Decided>>| c.filter(|c| c.len() == 1).map(|mut c| c.swap_remove(0));
    if let (Some(m), Some(s)) =
        (one(branches::combinations(cfg, chains, &in_main)), one(branches::combinations(cfg, chains, &in_sub)))
    {
        return Some(m.applying == s.applying);
    }
    // Conditions not known: alike where they read nothing the subrequest changes.
    chains
        .iter()
        .flatten()
        .all(|b| match (in_main(b), in_sub(b)) {
            (Some(x), Some(y)) => x == y,
            _ => !reads_the_request_line(cfg, b),
        })
        .then_some(true)
}

/// Whether httpd's walks merge every configuration afresh for a new key: a module is loaded whose
/// access-phase hook is not registered as depending on the configuration alone (mod_allowmethods
/// and mod_lua hook `access_checker` directly, mod_log_debug says "per URI"), so
/// `ap_setup_auth_internal` leaves the walk caches off (`cached &= auth_internal_per_conf`).
/// (mod_auth_form hooks `check_user_id` directly too, yet httpd 2.4.71 was seen to keep the caches
/// with it: not counted.)
fn walk_caches_off(cfg: &Config) -> bool {
    ["allowmethods_module", "log_debug_module", "lua_module"].iter().any(|m| cfg.module_loaded(m))
}

/// With the walk caches off ([`walk_caches_off`]), whether way `w` of a subrequest still ends with
/// the main request's merged configuration: its Directory walk is the main request's, taken over
/// without a merge (a regular file in the directory where `main_walk`'s walk ended: the
/// "familiar" path of `ap_directory_walk`), and it meets no `<Location>`-type, `<Files>`-type
/// or `<If>`-family section, each of which the walk merges again for the subrequest's URI or file
/// name. None where an `<If>` holding nothing the answer reads may or may not apply to it.
fn merged_alike_without_caches(
    cfg: &Config,
    fs: &FsView,
    w: &Effective,
    main_walk: Option<&Path>,
    sub_known: &crate::ide::policy::expr_eval::ExprRequest,
) -> Option<bool> {
    let per_uri = |k: &str| {
        ["Location", "LocationMatch", "Files", "FilesMatch", "If", "ElseIf", "Else"]
            .iter()
            .any(|x| k.eq_ignore_ascii_case(x))
    };
    if w.sections.iter().any(|s| per_uri(&s.kind)) || w.decided.as_ref().is_some_and(|d| !d.applying.is_empty()) {
        return Some(false);
    }
    let ended_in = main_walk.and_then(|p| p.ancestors().find(|a| fs.is_dir(a)));
    let file = &w.filesystem_path;
    let shared = ended_in.is_some_and(|d| file.parent() == Some(d)) && file.is_file();
    let dir_sections = w.sections.iter().any(|s| !per_uri(&s.kind));
    if !shared && dir_sections {
        return Some(false);
    }
    if w.other_chains.is_empty() {
        return Some(true);
    }
    let in_sub = |b: &Branch| branches::condition(cfg, b, sub_known);
    let combos = branches::combinations(cfg, &w.other_chains, &in_sub)?;
    let none = combos.iter().all(|d| d.applying.is_empty());
    let some = combos.iter().all(|d| !d.applying.is_empty());
    match (none, some) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}
