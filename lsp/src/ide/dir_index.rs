//! Feature: mod_dir's DirectoryIndex subrequests, which decide directory URLs.
//!
//! `GET /dir/` is checked twice (`modules/mappers/mod_dir.c: fixup_dir`): first the request
//! itself, on the directory (`…/dir/`, whose basename for `<Files>` is empty); then, if it
//! passed, in the fixups, one subrequest per DirectoryIndex name (`ap_sub_req_lookup_uri`):
//! * always with the method GET, the same headers (credentials) and a copy of the request's
//!   environment as it is by then: SetEnvIf's variables *and* mod_env's `SetEnv` ones (mod_env's
//!   fixup runs before mod_dir's), without running SetEnvIf again;
//! * when the subrequest's sections and `<If>` branches (its conditions evaluated for it: GET,
//!   its own URI) are exactly the request's, httpd reuses the request's merged configuration and
//!   skips the access checks (`ap_process_request_internal`), else it checks them again for GET
//!   ([`crate::ide::subrequest`]);
//! * the first name that passes and is a regular file is served; a refusal (403, 500, or 401 when
//!   other names follow) is remembered and answered if no later name is served; a 401 from the
//!   last name is answered at once. The refusal is logged with the index file's path.
//!
//! Invariants: no IO besides what [`crate::ide::access`] does (existence of the index files);
//! an unknown subrequest outcome makes the request's outcome unknown.

use crate::ide::access::{normalize_url, Effective, FsView, RequestSpec};
use crate::ide::alias_redirect::Redirected;
use crate::ide::config::{level_directives, Config, Node};
use crate::ide::policy::{self, EnvVar, Item, TraceStep};
use std::path::{Path, PathBuf};

/// The directives this feature reads per directory.
pub fn reads(name: &str) -> bool {
    ["DirectoryIndex", "SetEnv", "UnsetEnv", "PassEnv"].iter().any(|d| d.eq_ignore_ascii_case(name))
}

/// One DirectoryIndex name tried.
#[derive(Debug)]
pub struct IndexTry {
    /// The subrequest's URL.
    pub url: String,
    pub filesystem_path: PathBuf,
    /// A regular file exists there.
    pub regular_file: bool,
    /// The subrequest's sections are the request's: httpd did not check access again.
    pub same_config: bool,
    /// The subrequest walked and evaluated (None when `same_config`).
    pub effective: Option<Effective>,
    /// Its access status (200 = passes), or the status its own mod_alias or mod_dir answers.
    pub status: Option<u16>,
    /// Why the subrequest's own fixups or translation answer `status` (a redirect, what its
    /// FallbackResource answers), if they do.
    pub answered: Option<String>,
    /// The name is not there, and the subrequest's own FallbackResource took it over: mod_dir
    /// serves the fallback ([`crate::ide::handler::index_fallback`]).
    pub taken_over: Option<TakenOver>,
}

/// A DirectoryIndex subrequest taken over by its FallbackResource's subrequest.
#[derive(Debug)]
pub struct TakenOver {
    /// The fallback URL.
    pub url: String,
    pub why: String,
    /// The fallback's subrequest, walked.
    pub effective: Box<Effective>,
}

impl IndexTry {
    /// The URL mod_dir serves when this try is served: the index name's, or its fallback's.
    pub fn served_url(&self) -> &str {
        self.taken_over.as_ref().map_or(&self.url, |t| &t.url)
    }

    /// The file served: the index file, or the fallback's.
    pub fn served_path(&self) -> &Path {
        self.taken_over.as_ref().map_or(&self.filesystem_path, |t| &t.effective.filesystem_path)
    }

    /// The walk whose sections the served file has, where it is not the request's.
    pub fn served_effective(&self) -> Option<&Effective> {
        self.taken_over.as_ref().map(|t| &*t.effective).or(self.effective.as_ref())
    }
}

/// What mod_dir did for a directory URL.
#[derive(Debug)]
pub struct IndexLookup {
    /// The DirectoryIndex names in effect.
    pub names: Vec<String>,
    pub tries: Vec<IndexTry>,
    /// The index of the try that was served.
    pub served: Option<usize>,
    /// The index of the try whose refusal is the answer.
    pub refused_by: Option<usize>,
    /// Why the outcome of a subrequest is not known, if one's is not: mod_dir goes on to the
    /// next name whatever it answered, so the ways it may end are in `ends`.
    pub unknown: Option<String>,
    /// Every way mod_dir may end, given the subrequests whose outcome is not known (one way when
    /// all are known).
    pub ends: Vec<IndexEnd>,
}

/// How mod_dir's subrequests may end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum IndexEnd {
    /// A name passed and is a regular file: it is served.
    Served,
    /// A refusal, answered as it is (the last name's 401, or the last refusal remembered).
    Refused(u16),
    /// No name served nor refused: what answers a directory with no index file.
    NoIndex,
}

/// The server-level and per-directory directives of `names`, grouped by context in merge
/// order: the main server's, the virtual host's, then each applied section's.
fn contexts<'a>(cfg: &'a Config, e: &'a Effective, pred: impl Fn(&str) -> bool) -> Vec<Vec<(&'a str, Vec<String>)>> {
    contexts_of(cfg, e.vhost_node, &e.per_dir, pred)
}

/// [`contexts`] of a walk's virtual host (its position among the top-level nodes) and
/// per-directory items.
fn contexts_of<'a>(
    cfg: &'a Config,
    vhost_node: Option<usize>,
    per_dir: &'a [(usize, Item)],
    pred: impl Fn(&str) -> bool,
) -> Vec<Vec<(&'a str, Vec<String>)>> {
    let top = |nodes: &'a [Node]| -> Vec<(&'a str, Vec<String>)> {
        level_directives(nodes).filter(|n| pred(n.name())).map(|n| (n.name(), n.arg_strings())).collect()
    };
    let mut out = vec![top(&cfg.nodes)];
    if let Some(v) = vhost_node.and_then(|i| cfg.nodes.get(i)) {
        out.push(top(&v.children));
    }
    let mut last: Option<usize> = None;
    for (sec, item) in per_dir {
        if let Item::Directive { name, args, .. } = item {
            if !pred(name) {
                continue;
            }
            if last != Some(*sec) {
                out.push(Vec::new());
                last = Some(*sec);
            }
            out.last_mut().expect("pushed").push((name.as_str(), args.iter().map(|a| a.to_string()).collect()));
        }
    }
    out
}

/// The DirectoryIndex list in effect (`add_index`, `merge_dir_configs`): lines of one context
/// append, a later context replaces, `disabled` alone empties. None: the default `index.html`.
fn index_names(cfg: &Config, e: &Effective) -> Vec<String> {
    names_in(cfg, e.vhost_node, &e.per_dir)
}

/// [`index_names`] of a walk's virtual host (its position among the top-level nodes) and
/// per-directory items.
pub(crate) fn names_in(cfg: &Config, vhost_node: Option<usize>, per_dir: &[(usize, Item)]) -> Vec<String> {
    let mut names: Option<Vec<String>> = None;
    for ctx in contexts_of(cfg, vhost_node, per_dir, |n| n.eq_ignore_ascii_case("DirectoryIndex")) {
        if ctx.is_empty() {
            continue;
        }
        let mut list: Vec<String> = Vec::new();
        for (_, args) in ctx {
            if args.len() == 1 && args[0].eq_ignore_ascii_case("disabled") {
                list.clear();
            } else {
                list.extend(args.iter().cloned());
            }
        }
        names = Some(list);
    }
    names.unwrap_or_else(|| vec!["index.html".to_string()])
}

/// The environment a subrequest mod_dir makes at its fixup (a DirectoryIndex name, the
/// FallbackResource URL) starts with: a copy of the request's (`ap_sub_req_method_uri`), which
/// mod_setenvif made and mod_env's fixup, run before mod_dir's, completed. The subrequest runs
/// neither the post-read-request nor the header-parser hooks: no SetEnvIf line runs for it.
pub(crate) fn subrequest_env(cfg: &Config, spec: &RequestSpec, e: &Effective) -> policy::EnvKnowledge {
    let mut env = match &e.env {
        Some(r) => r.knowledge(),
        None => spec.request.env.clone(),
    };
    for (k, v) in mod_env_vars(cfg, e) {
        let v = match (env.get(&k).clone(), v) {
            // mod_env overlays: a variable present stays present.
            (EnvVar::Set(s), _) => EnvVar::Set(s),
            (_, EnvVar::Set(s)) => EnvVar::Set(s),
            _ => EnvVar::Unknown,
        };
        env.vars.retain(|n, _| !n.eq_ignore_ascii_case(&k));
        env.vars.insert(k, v);
    }
    env
}

/// mod_env's variables after the fixups (`merge_env_dir_configs`, `fixup_env_module`): a
/// context's UnsetEnv removes what earlier contexts set with SetEnv, its SetEnv/PassEnv add.
fn mod_env_vars(cfg: &Config, e: &Effective) -> Vec<(String, EnvVar)> {
    if !cfg.module_loaded("env_module") {
        return vec![];
    }
    let mut acc: Vec<(String, EnvVar)> = Vec::new();
    let remove = |acc: &mut Vec<(String, EnvVar)>, k: &str| acc.retain(|(n, _)| !n.eq_ignore_ascii_case(k));
    for ctx in contexts(cfg, e, |n| matches!(n.to_ascii_lowercase().as_str(), "setenv" | "unsetenv" | "passenv")) {
        let mut local: Vec<(String, EnvVar)> = Vec::new();
        let mut unset: Vec<String> = Vec::new();
        for (name, args) in ctx {
            match name.to_ascii_lowercase().as_str() {
                "setenv" => {
                    if let Some(k) = args.first() {
                        remove(&mut local, k);
                        local.push((k.clone(), EnvVar::Set(args.get(1).cloned().unwrap_or_default())));
                    }
                }
                "unsetenv" => {
                    for k in &args {
                        remove(&mut local, k);
                        unset.push(k.clone());
                    }
                }
                _ => {
                    // PassEnv: present if httpd's own environment has it, which we do not know.
                    for k in &args {
                        remove(&mut local, k);
                        local.push((k.clone(), EnvVar::Unknown));
                    }
                }
            }
        }
        for k in &unset {
            remove(&mut acc, k);
        }
        for (k, v) in local {
            remove(&mut acc, &k);
            acc.push((k, v));
        }
    }
    acc
}

/// `ap_sub_req_lookup_uri`'s URL for an index name.
pub(crate) fn sub_url(dir_url: &str, name: &str) -> String {
    let name = name.split('?').next().unwrap_or(name);
    if name.starts_with('/') {
        name.to_string()
    } else {
        format!("{dir_url}{name}")
    }
}

/// The subrequest `sub` for the index name `name` of `main`'s directory, walked under `fs`, or
/// under `missing` (`fs`'s [`FsView::last_missing`], None where `fs` stats the last component
/// itself) when the name is not there: the directory is on this disk, and a name missing from it
/// is missing for httpd's walk too, which stops at it, so the `<Directory>` sections of its depth
/// (a wildcard `…/*`) do not apply, as a view presuming the last component there would have them.
/// A relative name's file is known before the walk (`<directory>/<name>`): one walk, under the
/// view it needs; an absolute name's file is known from its walk, walked again when missing. (The
/// walk's file is the judge: a name the walk maps elsewhere is walked again as well.)
fn walk_name(
    cfg: &Config,
    (fs, missing): (&FsView, Option<&FsView>),
    main: &crate::ide::subrequest::MainRequest,
    sub: &RequestSpec,
    name: &str,
) -> crate::ide::subrequest::Sub {
    let dir = &main.effective.filesystem_path;
    let walk = |view: &FsView| crate::ide::subrequest::walk(cfg, view, main, sub, Some(dir));
    let Some(missing) = missing else { return walk(fs) };
    let gone = |p: &Path| p.symlink_metadata().is_err();
    let name = name.split('?').next().unwrap_or(name);
    let predicted_gone = !name.starts_with('/') && gone(&dir.join(name));
    let walked = walk(if predicted_gone { missing } else { fs });
    if gone(&walked.effective.filesystem_path) == predicted_gone {
        walked
    } else {
        walk(if predicted_gone { fs } else { missing })
    }
}

/// Runs mod_dir's fixup on a request that passed access control, updating its outcome.
pub fn apply(cfg: &Config, fs: &FsView, spec: &RequestSpec, e: &mut Effective) {
    if e.outcome.status != Some(200) {
        return;
    }
    let Some((lookup, unknown)) = lookup(cfg, fs, spec, e) else { return };
    let o = &mut e.outcome;
    for t in &lookup.tries {
        o.trace.push(TraceStep {
            depth: 0,
            text: format!(
                "mod_dir: GET {} (DirectoryIndex subrequest){}",
                t.url,
                if t.same_config { ": same sections, access not checked again" } else { ":" }
            ),
            loc: None,
        });
        if let Some(s) = &t.effective {
            o.trace.extend(s.outcome.trace.iter().map(|st| TraceStep { depth: st.depth + 1, ..st.clone() }));
            o.log.extend(s.outcome.log.iter().cloned());
        }
        if let Some(f) = &t.taken_over {
            o.trace.push(TraceStep { depth: 1, text: format!("it finds no file: {}:", f.why), loc: None });
            let s = &f.effective.outcome;
            o.trace.extend(s.trace.iter().map(|st| TraceStep { depth: st.depth + 2, ..st.clone() }));
            o.log.extend(s.log.iter().cloned());
        }
    }
    if let Some(reason) = unknown {
        // Each way mod_dir may end gives its status; where no name serves nor refuses, what
        // answers a directory with no index file (asked of the handler with no index served).
        let mut possible = Vec::new();
        for end in &lookup.ends {
            match end {
                IndexEnd::Served => possible.push(200),
                IndexEnd::Refused(s) => possible.push(*s),
                IndexEnd::NoIndex => {
                    let none = IndexLookup {
                        names: lookup.names.clone(),
                        tries: vec![],
                        served: None,
                        refused_by: None,
                        unknown: None,
                        ends: vec![IndexEnd::NoIndex],
                    };
                    e.index = Some(Box::new(none));
                    match crate::ide::handler::answer_if_granted(cfg, fs, spec, e) {
                        Some(crate::ide::handler::Answer::File { status, .. }) => possible.push(status),
                        Some(crate::ide::handler::Answer::Handler { may, .. }) => {
                            possible.push(200);
                            possible.extend(may);
                        }
                        Some(crate::ide::handler::Answer::Unknown { may, .. }) => possible.extend(may),
                        None => possible.push(200),
                    }
                    e.index = None;
                }
            }
        }
        possible.sort_unstable();
        possible.dedup();
        let o = &mut e.outcome;
        o.status = None;
        o.possible_statuses = possible;
        o.reason_unknown =
            Some(format!("{reason}; mod_dir goes on to the next DirectoryIndex name whatever that subrequest answers"));
        o.deciding = None;
    } else if lookup.served.is_none() {
        // (A refusal is always evaluated; were it not, the outcome is left as it was.)
        if let Some(t) = lookup.refused_by.and_then(|k| lookup.tries.get(k)) {
            let deciding = match (&t.answered, &t.effective) {
                (Some(why), _) => Some(policy::Deciding { layer: policy::Layer::Core, rule: why.clone(), loc: None }),
                (None, Some(s)) => s.outcome.deciding.clone().map(|d| policy::Deciding {
                    rule: format!("{} (DirectoryIndex subrequest {})", d.rule, t.url),
                    ..d
                }),
                // (A refusal is always evaluated; were it not, the outcome is left as it was.)
                (None, None) => None,
            };
            if deciding.is_some() {
                o.status = t.status;
                o.possible_statuses = t.status.into_iter().collect();
                o.deciding = deciding;
            }
        }
    }
    // (With nothing tried, what the handler answers is asked again, and is unknown too.)
    if !lookup.tries.is_empty() {
        e.index = Some(Box::new(lookup));
    }
}

/// mod_dir's subrequests for `spec`, a directory URL, as they run once access control passed
/// (whatever `e.outcome` says), with why the outcome of one cannot be known; None where mod_dir
/// looks up no index (not a directory, mod_dir not loaded, `DirectoryIndex disabled`).
pub fn lookup(cfg: &Config, fs: &FsView, spec: &RequestSpec, e: &Effective) -> Option<(IndexLookup, Option<String>)> {
    let url = normalize_url(&spec.path);
    let dir = e.filesystem_path.to_string_lossy().to_string();
    // (mod_dir asks the URL for its trailing slash: the file name may lack it, `Alias /a/ /srv/a`.)
    if !url.ends_with('/') || !Path::new(&dir).is_dir() || !cfg.module_loaded("dir_module") {
        return None;
    }
    // mod_alias's fixup runs before mod_dir's: a redirect of the directory URL itself answers
    // first, and no index is looked up.
    if let Some(Redirected::Known { .. }) = crate::ide::alias_redirect::at_fixup(cfg, e, &url) {
        return None;
    }
    let names = index_names(cfg, e);
    if names.is_empty() && e.index_condition.is_none() {
        return None;
    }
    // A DirectoryIndex under a condition not evaluated: the list mod_dir uses is not known.
    if let Some(at) = &e.index_condition {
        let lookup = IndexLookup { names, tries: vec![], served: None, refused_by: None, unknown: None, ends: vec![] };
        return Some((lookup, Some(format!("a DirectoryIndex inside {at} applies when its expression holds, and it is not evaluated: which index file is served is not known"))));
    }
    let env = subrequest_env(cfg, spec, e);
    let mut lookup = IndexLookup {
        names: names.clone(),
        tries: vec![],
        served: None,
        refused_by: None,
        unknown: None,
        ends: vec![],
    };
    let main = crate::ide::subrequest::MainRequest::new(spec, e);
    let missing = (!fs.stats_last()).then(|| fs.last_missing());
    let mut unknown: Option<String> = None;
    // The refusal remembered so far, on each way the subrequests not known may take.
    let mut ways: Vec<Option<u16>> = vec![None];
    for (i, name) in names.iter().enumerate() {
        let last = i + 1 == names.len();
        let mut req = spec.request.clone();
        req.method = "GET".into();
        req.env = env.clone();
        let sub_spec = RequestSpec { path: sub_url(&url, name), host: spec.host.clone(), request: req };
        let crate::ide::subrequest::Sub { effective: sub, same_config: same } =
            walk_name(cfg, (fs, missing.as_ref()), &main, &sub_spec, name);
        let regular = sub.filesystem_path.is_file();
        let mut status = sub.outcome.status;
        let mut answered = None;
        // A name that is a directory without its trailing slash: the subrequest's own fixups
        // redirect it (mod_dir), and mod_dir passes the redirect on when no later name serves.
        if status == Some(200) && !regular && !sub_spec.path.ends_with('/') && sub.filesystem_path.is_dir() {
            if let Some(crate::ide::handler::Answer::File { status: s, .. }) =
                crate::ide::handler::answer_if_granted(cfg, fs, &sub_spec, &sub)
            {
                if (300..400).contains(&s) {
                    status = Some(s);
                    answered = Some(format!(
                        "the DirectoryIndex subrequest GET {} is a directory without its trailing slash: mod_dir \
                         passes its redirect on ({s})",
                        sub_spec.path
                    ));
                }
            }
        }
        // mod_alias in the subrequest: the server's lines at translate_name, before access
        // control; its sections' lines at its fixups, once access passed.
        let sub_path = normalize_url(&sub_spec.path);
        let redirect = crate::ide::alias_redirect::at_translation(cfg, &sub, &sub_path).or_else(|| {
            (status == Some(200)).then(|| crate::ide::alias_redirect::at_fixup(cfg, &sub, &sub_path)).flatten()
        });
        let mut redirect_unknown = None;
        match redirect {
            Some(Redirected::Known { status: s, why }) => {
                status = Some(s);
                answered = Some(format!("the DirectoryIndex subrequest GET {} gets {s}: {why}", sub_spec.path));
            }
            Some(Redirected::Maybe { statuses, why }) => {
                status = None;
                redirect_unknown = Some((why, statuses));
            }
            None => {}
        }
        // A name that is not there, with no handler set: the subrequest's own mod_dir fixup runs
        // its FallbackResource (`dir_fixups`), whose subrequest takes it over (served), or whose
        // answer becomes the index subrequest's (a 404: it steps aside, the name is not there).
        let mut serves = regular;
        let mut taken_over = None;
        if status == Some(200) && answered.is_none() && sub.filesystem_path.symlink_metadata().is_err() {
            use crate::ide::handler::IndexFallback;
            match crate::ide::handler::index_fallback(cfg, fs, &sub_spec, &sub) {
                None | Some(IndexFallback::Answers { status: 404, .. }) => {}
                Some(IndexFallback::TakesOver { url, why, effective }) => {
                    serves = true;
                    taken_over = Some(TakenOver { url, why, effective });
                }
                Some(IndexFallback::Answers { status: s, why }) => {
                    status = Some(s);
                    answered =
                        Some(format!("the DirectoryIndex subrequest GET {} finds no file: {why}", sub_spec.path));
                }
                Some(IndexFallback::Unknown { why, may, serves: s }) => {
                    status = None;
                    serves = s;
                    redirect_unknown = Some((format!("it finds no file: {why}"), may));
                }
            }
        }
        let statuses = match status {
            Some(s) => vec![s],
            None => {
                let (reason, possible) = redirect_unknown.unwrap_or_else(|| {
                    (sub.outcome.reason_unknown.clone().unwrap_or_default(), sub.outcome.possible_statuses.clone())
                });
                if unknown.is_none() {
                    unknown = Some(format!("the DirectoryIndex subrequest for {}: {reason}", sub_spec.path));
                }
                possible
            }
        };
        lookup.tries.push(IndexTry {
            url: sub_spec.path.clone(),
            filesystem_path: sub.filesystem_path.clone(),
            regular_file: regular,
            same_config: same,
            status,
            answered,
            effective: (!same).then_some(sub),
            taken_over,
        });
        // The try as each way takes it (`fixup_dir`): served, a 401 of the last name answered
        // at once, a refusal remembered, or on to the next name.
        let mut next = Vec::new();
        for way in &ways {
            for &s in &statuses {
                match s {
                    200 if serves => lookup.ends.push(IndexEnd::Served),
                    // (Not remembered: `fixup_dir` keeps no 404.)
                    200 | 404 => next.push(*way),
                    // A redirect is passed on at once, as is the last name's 401.
                    300..=399 => lookup.ends.push(IndexEnd::Refused(s)),
                    401 if last => lookup.ends.push(IndexEnd::Refused(401)),
                    s => next.push(Some(s)),
                }
            }
        }
        next.sort_unstable();
        next.dedup();
        ways = next;
        if unknown.is_none() {
            match status {
                Some(200) if serves => lookup.served = Some(i),
                Some(401) if last => lookup.refused_by = Some(i),
                Some(300..=399) => lookup.refused_by = Some(i),
                Some(200 | 404) => {}
                _ => lookup.refused_by = Some(i),
            }
        }
        if ways.is_empty() {
            break;
        }
    }
    lookup.ends.extend(ways.into_iter().map(|w| w.map_or(IndexEnd::NoIndex, IndexEnd::Refused)));
    lookup.ends.sort_unstable();
    lookup.ends.dedup();
    lookup.unknown = unknown.clone();
    Some((lookup, unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_urls_are_relative_to_the_directory_unless_absolute() {
        assert_eq!(sub_url("/d/", "index.html"), "/d/index.html");
        assert_eq!(sub_url("/d/", "/cgi/index.pl?x=1"), "/cgi/index.pl");
    }
}
