//! Feature: the effective access policy of one request, as httpd computes it.
//!
//! Given a loaded [`Config`] and a request (URL, virtual host, client…), this
//! finds the sections that apply in httpd's merge order
//! (`server/request.c: ap_directory_walk`, `ap_file_walk`, `ap_location_walk`,
//! `ap_if_walk`; fact sheet §5.1), folds each phase, merges the three access
//! layers (mod_access_compat, mod_authz_core, mod_authn_core) and evaluates the
//! request with [`crate::ide::policy`]. It reads the file system only to know
//! which path components exist and to read `.htaccess` files.

pub mod auth_files;
pub mod branches;
mod fs;
mod groups;
mod items;
pub(crate) mod patterns;
pub(crate) mod symlinks;
mod url;
mod userdir;
pub use userdir::allow_passwd_lookups;
pub(crate) use userdir::{user_directories, user_dirs_on_disk, userdir_parts};
mod walk;
pub(crate) mod witnesses;

pub use fs::{request_filename, FsOverlay, FsView};
pub use groups::group_memberships_in;
pub use items::{access_layer_items, body_items, is_access_directive, policy_items};
pub(crate) use items::{access_layer_key, policy_input};
pub use patterns::wildcard_match;
pub(crate) use patterns::{compile as compile_regex, has_wildcard, regex_matches, section_pattern, SectionPattern};
pub(crate) use url::{alias_match, alias_target};
pub use url::{listen_word_port, normalize_url, rejected_target, vhost_address, EncodedSlashes, Rejected};
pub use walk::{walk_request, BeforeMerge, Origin, Walked};

use crate::ide::config::{self, Config, FileId, NodeKind, SecId};
use crate::ide::policy::items::level_items;
use crate::ide::policy::{self, evaluate, AuthnConfig, AuthzConfig, CompatConfig, Item, Outcome, PolicyCtx};
use apache_syntax::TextRange;
use items::{access_lines, directive_item};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
pub(crate) use url::vhost_label;
use walk::{
    walk_request_as, Applied, Contribution, SymlinkRefusal, HTACCESS_IF, HTACCESS_IF_AUTH, MAYBE_INVALID_HTACCESS,
    UNREADABLE_HTACCESS,
};

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
    /// An `<If>` section on the way holding a DirectoryIndex, whose expression is not evaluated.
    pub index_condition: Option<String>,
    /// The `<If>` chains on the way whose branches hold what the answer reads
    /// ([`branches`]): the answer may differ with each combination of their branches.
    pub chains: Vec<branches::Chain>,
    /// The other `<If>` chains on the way, which hold nothing the answer reads.
    pub other_chains: Vec<branches::Chain>,
    /// The branches this request was walked with, when decided (mod_dir's subrequests decide
    /// theirs again: [`crate::ide::subrequest`]).
    pub decided: Option<branches::Decided>,
    /// The headers the `<If>` conditions were evaluated with (explain's), which a subrequest
    /// shares.
    pub inputs: Option<crate::ide::setenvif::EnvInputs>,
    /// The symbolic link on the way that httpd refuses to follow (403 before any access check).
    pub refused_symlink: Option<PathBuf>,
}

fn ploc(cfg: &Config, loc: &config::Loc) -> policy::Loc {
    let (fd, range) = (cfg.file(loc.file), loc.range);
    policy::Loc {
        file: fd.path.clone(),
        line: fd.line_of(range.start()),
        range: (range.start().into(), range.end().into()),
    }
}

/// Which modules, methods and providers the server has (computed once per configuration).
pub fn policy_ctx(cfg: &Config) -> PolicyCtx {
    cfg.index().ctx.clone()
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
    /// Where each phase's sections end in `applied` (httpd merges a phase's sections together,
    /// then onto what the earlier phases made: [`policy::fold_phase`]).
    phase_ends: Vec<usize>,
    /// The applied section whose Order/Allow/Deny/Satisfy are in effect ([`Resolved::compat`]):
    /// its policy is shared, not copied (an .htaccess blocklist holds thousands of lines).
    compat_built: Option<Arc<crate::ide::config::index::Built>>,
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
    /// A symbolic link the directory walk refuses: every request gets 403.
    symlink: Option<SymlinkRefusal>,
    /// [`Resolved::presumes_last_there`].
    presumed_there: bool,
    /// The variables the regex sections' named groups set on the walk (`MATCH_NAME`), in the
    /// order httpd sets them.
    pub(crate) match_vars: Vec<(String, String)>,
}

/// Walks the sections a request for `path` (on `host`, over a connection to `local`) meets
/// and merges them.
pub fn resolve(cfg: &Config, fs: &FsView, path: &str, host: Option<&str>, local: Option<(IpAddr, u16)>) -> Resolved {
    walk_request(cfg, fs, path, host, local).merge(cfg)
}

/// [`resolve`] for mod_dir's subrequest of `path` (a DirectoryIndex name, a FallbackResource)
/// made by a main request that walked the filename `main_walk` ([`walk_and_evaluate`]'s).
pub fn resolve_subrequest(
    cfg: &Config,
    fs: &FsView,
    path: &str,
    host: Option<&str>,
    local: Option<(IpAddr, u16)>,
    main_walk: &Path,
) -> Resolved {
    walk_request_as(cfg, fs, path, host, local.into(), Some(main_walk), None).merge(cfg)
}

impl Resolved {
    /// The server that answers the request: the virtual host its walk took, else the main one.
    pub fn server_id(&self) -> crate::ide::config::index::ServerId {
        use crate::ide::config::index::ServerId;
        self.vhost.map_or(ServerId::Main, ServerId::Vhost)
    }

    /// The DirectoryIndex names in effect on this walk (the default `index.html` without any).
    pub fn index_names(&self, cfg: &Config) -> Vec<String> {
        let ix = cfg.index();
        let (_, per_dir) = self.sections_and_per_dir(cfg);
        let vhost_node = self.vhost.and_then(|v| ix.top_position(ix.vhosts[v as usize].id));
        crate::ide::dir_index::names_in(cfg, vhost_node, &per_dir)
    }

    /// The FallbackResource in force on this walk, as written (the last one merged: the main
    /// server's, the virtual host's, then the sections' and .htaccess files' in merge order);
    /// None where none is, it is `disabled`, or mod_dir is not loaded.
    pub fn fallback_resource(&self, cfg: &Config) -> Option<String> {
        if !cfg.module_loaded("dir_module") {
            return None;
        }
        let ix = cfg.index();
        let is_it = |name: &str| name.eq_ignore_ascii_case("FallbackResource");
        fn of_node(n: &config::Node) -> Option<Option<&str>> {
            (n.kind == NodeKind::Directive && n.name().eq_ignore_ascii_case("FallbackResource")).then(|| n.arg(0))
        }
        let vhost = self.vhost.and_then(|v| ix.top_position(ix.vhosts[v as usize].id)).and_then(|i| cfg.nodes.get(i));
        let server = cfg.nodes.iter().chain(vhost.map(|v| v.children.as_slice()).unwrap_or_default());
        let mut found: Option<Option<&str>> = server.rev().find_map(of_node);
        for (c, _, items) in &self.applied {
            let last = match c {
                Contribution::Section(id) => ix.node(cfg, *id).children.iter().rev().find_map(of_node),
                _ => items
                    .iter()
                    .flatten()
                    .filter_map(|it| match it {
                        Item::Directive { name, args, .. } if is_it(name) => Some(args.first().map(|a| &**a)),
                        _ => None,
                    })
                    .next_back(),
            };
            found = last.or(found);
        }
        found.flatten().filter(|t| !t.eq_ignore_ascii_case("disabled")).map(str::to_string)
    }

    /// Whether `<Directory>` sections applied because the walk took the request's last
    /// component, no directory, to be there (a view that is neither deployed nor
    /// [`FsView::last_missing`]): for a missing file httpd's walk stops before them, so
    /// that request is walked again under [`FsView::last_missing`] where both must hold.
    pub fn presumes_last_there(&self) -> bool {
        self.presumed_there
    }

    /// The Order/Allow/Deny/Satisfy in effect: the last applied section's that sets any.
    pub fn compat(&self) -> Option<&CompatConfig> {
        self.compat_built.as_ref().and_then(|b| b.policy.compat.as_ref())
    }

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
        self.outcome_under(cfg, request, env, self.authz.as_ref())
    }

    /// [`Resolved::outcome_in`] with `authz` in effect instead of the merged [`Resolved::authz`].
    fn outcome_under(
        &self,
        cfg: &Config,
        request: &policy::Request,
        env: Option<&crate::ide::setenvif::EnvReport>,
        authz: Option<&AuthzConfig>,
    ) -> Outcome {
        let mut request = request.clone();
        request.uri = self.url.clone();
        auth_files::in_force(cfg, &self.authn, &mut request);
        if let Some(r) = env {
            request.env = r.knowledge();
        }
        let mut outcome = evaluate(self.compat(), authz, &self.authn, &request, &cfg.index().ctx);
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
            if self.unknown.iter().any(|u| u.ends_with(HTACCESS_IF) || u.ends_with(HTACCESS_IF_AUTH)) {
                possible.extend([200, 403]);
            }
            if self.unknown.iter().any(|u| u.ends_with(HTACCESS_IF_AUTH)) {
                possible.push(401);
            }
            if self.unknown.iter().any(|u| u.ends_with(MAYBE_INVALID_HTACCESS)) {
                possible.push(500);
            }
            possible.sort_unstable();
            possible.dedup();
            outcome.possible_statuses = possible;
            outcome.reason_unknown = Some(self.unknown.join("; "));
            outcome.status = None;
        }
        // The Directory walk stops at the link, before any access check, and after the
        // .htaccess files above it, whose errors come first.
        if let (Some((link, code)), None) = (&self.symlink, &self.forbidden_override) {
            let message = symlinks::refusal_message(link);
            outcome.status = Some(403);
            outcome.reason_unknown = None;
            outcome.possible_statuses = vec![403];
            // `resolve_symlink` stat()s the target first: a link to nothing is refused whatever
            // the Options say (the one question asked of the disk again, for a refusal only).
            let rule = if std::fs::metadata(link).is_err() {
                format!(
                    "the symbolic link {}'s target does not exist (or cannot be reached): httpd refuses it whatever the Options",
                    link.display()
                )
            } else {
                "a symbolic link the Options in force do not let httpd follow".to_string()
            };
            outcome.deciding = Some(policy::Deciding { layer: policy::Layer::Core, rule, loc: None });
            outcome.log = vec![policy::LogEntry {
                ah_code: code,
                module: "core",
                level: policy::LogLevel::Error,
                message: message.clone(),
            }];
            outcome.trace.push(policy::TraceStep { depth: 0, text: format!("403: {message}"), loc: None });
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
                Contribution::HtaccessIf(fd, frag, id) => {
                    let range = frag.index().node(frag, *id).loc.range;
                    (Origin::HtaccessSection(range), fd.path.clone(), &built.policy)
                }
            })
            .collect()
    }

    /// The .htaccess files read, each with the AllowOverride and AllowOverrideList in force
    /// for it.
    pub fn htaccess_read(&self) -> impl Iterator<Item = (&Path, &crate::ide::catalogue::context::Overrides)> + '_ {
        self.applied.iter().filter_map(|(c, _, _)| match c {
            Contribution::Htaccess(fd, overrides, ..) => Some((&*fd.path, overrides)),
            _ => None,
        })
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
                    for d in config::level_directives(&ix.node(cfg, *id).children) {
                        if is_per_dir_input(d.name()) {
                            out.push((i, directive_item(d, ploc(cfg, &d.loc))));
                        }
                    }
                }
                Contribution::Htaccess(..) | Contribution::HtaccessFiles(..) | Contribution::HtaccessIf(..) => {
                    let body = items.as_deref().unwrap_or_default();
                    out.extend(level_items(body).filter(|it| is_per_dir_input(it.name())).map(|it| (i, it.clone())))
                }
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
        self.outcome_with_authz(cfg, raw_path, request, inputs, per_dir, self.authz.as_ref())
    }

    /// [`Resolved::outcome_with_setenvif`] with `authz` in effect instead of the merged
    /// [`Resolved::authz`] (such as [`Resolved::authz_without`]'s).
    pub fn outcome_with_authz(
        &self,
        cfg: &Config,
        raw_path: &str,
        request: &policy::Request,
        inputs: &crate::ide::setenvif::EnvInputs,
        per_dir: &[(usize, Item)],
        authz: Option<&AuthzConfig>,
    ) -> Outcome {
        if !self.reads_env(authz) {
            // No rule on the path tests a variable: what SetEnvIf makes of the request cannot
            // change the outcome (a batch over every section evaluates thousands of requests).
            return self.outcome_under(cfg, request, None, authz);
        }
        let ix = cfg.index();
        let vhost = self.vhost.map(|v| ix.node(cfg, ix.vhosts[v as usize].id));
        let env = crate::ide::setenvif::access_env(cfg, vhost, per_dir, &self.match_vars, raw_path, request, inputs);
        self.outcome_under(cfg, request, Some(&env), authz)
    }

    /// The authorization the merge makes if the applied section at position `skip` (of
    /// [`Resolved::applied`]) set none: what is in effect once that section's authorization
    /// lines are deleted (its phase merged without it, as httpd merges a section that holds no
    /// mod_authz_core directive).
    pub fn authz_without(&self, skip: usize) -> Option<AuthzConfig> {
        let mut authz: Option<AuthzConfig> = None;
        let mut start = 0;
        for &end in &self.phase_ends {
            let phase = (start..end).map(|i| if i == skip { None } else { self.applied[i].1.policy.authz.as_ref() });
            authz = policy::fold_phase(authz.as_ref(), phase);
            start = end;
        }
        authz
    }

    /// Whether no request gets an answer from the access checks: an .htaccess file on the way
    /// answers 500, or the outcome cannot be known (something on the path is out of our reach,
    /// httpd would refuse to start). [`Resolved::outcome`] has no 403 for any client then.
    pub fn answered_before_access_checks(&self) -> bool {
        self.forbidden_override.is_some()
            || self.symlink.is_some()
            || !self.errors.is_empty()
            || !self.unknown.is_empty()
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
        compat_refusal(self.compat()?, request, &cfg.index().ctx)
    }

    /// The section of the configuration whose Order/Allow/Deny is in effect (None when none is, or
    /// when it comes from an .htaccess file): two walks with the same source have the same
    /// [`Resolved::compat`].
    pub fn compat_source(&self) -> Option<SecId> {
        self.compat_source
    }

    /// Whether evaluating the merged policy, with `authz` in effect, can read the request's environment: an
    /// `Allow/Deny from env=` entry or a `Require env` line (the only readers of it).
    fn reads_env(&self, authz: Option<&AuthzConfig>) -> bool {
        use policy::authz::{NodeKind as Authz, Provider};
        let compat = self.compat().is_some_and(compat_reads_env);
        let mut stack: Vec<&policy::authz::AuthzNode> = authz.iter().filter_map(|a| a.section.as_ref()).collect();
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
                // A section of an .htaccess file: a `<Files>` section, an `<If>` branch.
                let in_htaccess = |fd: &Arc<config::FileData>, frag: &Config, n: &config::Node| {
                    (
                        n.name().to_string(),
                        n.arg_strings(),
                        fd.path.clone(),
                        None,
                        n.loc.range,
                        frag.line(&n.loc),
                        items.clone().unwrap_or_default(),
                    )
                };
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
                    Contribution::HtaccessFiles(fd, frag, i) => in_htaccess(fd, frag, &frag.nodes[*i]),
                    Contribution::HtaccessIf(fd, frag, id) => in_htaccess(fd, frag, frag.index().node(frag, *id)),
                };
                per_dir.extend(level_items(&body).filter(|it| is_per_dir_input(it.name())).map(|it| (i, it.clone())));
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
        || crate::ide::handler::reads(name)
        || crate::ide::rewrite_symlinks::reads(name)
        || crate::ide::rewrite_internal::reads(name)
        || crate::ide::error_document::reads(name)
        || crate::ide::allow_methods::reads(name)
}

/// The file-system path `spec`'s URL translates to (Alias family or DocumentRoot), before the
/// directory walk splits it into `r->filename` ([`Effective::filesystem_path`]) and PATH_INFO.
pub fn translated_path(cfg: &Config, spec: &RequestSpec) -> PathBuf {
    let server = server_of(cfg, spec);
    let url = normalize_url(&spec.path);
    url::translate(&server, cfg, (&url, &server.regex_url(&spec.path, &url)), &mut Vec::new())
}

/// The server (main, and the virtual host) answering `spec`.
fn server_of<'c>(cfg: &'c Config, spec: &RequestSpec) -> url::Server<'c> {
    let ix = cfg.index();
    let vhost = url::pick_vhost(ix, spec.host.as_deref(), url::Connection::of(&spec.request), &mut Vec::new());
    url::Server { main: &ix.main, vhost: vhost.map(|v| &ix.vhosts[v as usize].scope) }
}

/// The `ScriptAlias` or `ScriptAliasMatch` line that maps `spec`'s URL (giving it the handler
/// `cgi-script`), if one does.
pub fn script_alias(cfg: &Config, spec: &RequestSpec) -> Option<String> {
    url::script_alias(&server_of(cfg, spec), &spec.path)
}

/// Where mod_userdir redirects `spec`'s URL (302, at translate_name), if it does.
pub fn userdir_redirect(cfg: &Config, spec: &RequestSpec) -> Option<String> {
    url::userdir_redirect(&server_of(cfg, spec), cfg, &spec.path)
}

/// The position in `cfg.nodes` of the virtual host a connection for `spec` reaches before its
/// Host header is read (the first of those set for the connection's address and port: httpd
/// reads the request line with its configuration), None for the main server.
pub fn connection_vhost_node(cfg: &Config, spec: &RequestSpec) -> Option<usize> {
    let ix = cfg.index();
    let vhost = url::pick_vhost(ix, None, url::Connection::of(&spec.request), &mut Vec::new());
    vhost.and_then(|v| ix.top_position(ix.vhosts[v as usize].id))
}

/// The DocumentRoot of the server answering `spec` (its Host and connection address).
pub fn document_root(cfg: &Config, spec: &RequestSpec) -> PathBuf {
    let ix = cfg.index();
    let vhost = url::pick_vhost(ix, spec.host.as_deref(), url::Connection::of(&spec.request), &mut Vec::new());
    let server = url::Server { main: &ix.main, vhost: vhost.map(|v| &ix.vhosts[v as usize].scope) };
    url::document_root(&server, cfg)
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
    effective_decided(cfg, fs, spec, env, None)
}

/// [`effective_in`] with the `<If>` branches of `decided` taken as applying or not.
pub fn effective_decided(
    cfg: &Config,
    fs: &FsView,
    spec: &RequestSpec,
    env: Option<&crate::ide::setenvif::EnvInputs>,
    decided: Option<&branches::Decided>,
) -> Effective {
    let mut e = walk_and_evaluate(cfg, fs, spec, env, None, decided);
    crate::ide::dir_index::apply(cfg, fs, spec, &mut e);
    e
}

/// One request without mod_dir's subrequest: what a subrequest itself is (`main_walk`: the
/// filename its main request walked, whose Directory phase httpd reuses for a regular file of
/// the directory it names or is in: `walk::walk_request_as`), with
/// the `<If>` branches of `decided` taken as applying or not.
pub fn walk_and_evaluate(
    cfg: &Config,
    fs: &FsView,
    spec: &RequestSpec,
    env_inputs: Option<&crate::ide::setenvif::EnvInputs>,
    main_walk: Option<&Path>,
    decided: Option<&branches::Decided>,
) -> Effective {
    let ix = cfg.index();
    let local = url::Connection::of(&spec.request);
    let walked = walk_request_as(cfg, fs, &spec.path, spec.host.as_deref(), local, main_walk, decided);
    let chains = walked.chains().to_vec();
    let other_chains = walked.other_chains().to_vec();
    let index_condition = walked.index_condition().map(str::to_string);
    let r = walked.clone().merge(cfg);
    let (sections, per_dir) = r.sections_and_per_dir(cfg);
    let vhost = r.vhost.map(|v| ix.node(cfg, ix.vhosts[v as usize].id));
    let env = env_inputs.map(|inputs| {
        crate::ide::setenvif::access_env(cfg, vhost, &per_dir, &r.match_vars, &spec.path, &spec.request, inputs)
    });
    let mut outcome = r.outcome_in(cfg, &spec.request, env.as_ref());
    // Untold <If> branches holding access rules: the statuses possible are those of every
    // combination of branches httpd may take, given what is known of the request
    // ([`branches::combinations`], each condition evaluated with [`branches::condition`]).
    if decided.is_none() && outcome.status.is_none() {
        let access_chains: Vec<branches::Chain> =
            chains.iter().filter(|c| c.iter().any(|b| branches::holds_access(b.node(cfg)))).cloned().collect();
        if !access_chains.is_empty() {
            let untold;
            let inputs = match env_inputs {
                Some(i) => i,
                None => {
                    untold = crate::ide::setenvif::EnvInputs::default();
                    &untold
                }
            };
            let known = branches::expr_request(cfg, spec, inputs);
            let value = |b: &branches::Branch| branches::condition(cfg, b, &known);
            match branches::combinations(cfg, &access_chains, &value) {
                Some(combos) => {
                    let mut possible = Vec::new();
                    for d in &combos {
                        let w = walk_request_as(cfg, fs, &spec.path, spec.host.as_deref(), local, main_walk, Some(d));
                        let o = w.merge(cfg).outcome_in(cfg, &spec.request, env.as_ref());
                        possible.extend(o.status.into_iter().chain(o.possible_statuses));
                    }
                    possible.sort_unstable();
                    possible.dedup();
                    outcome.possible_statuses = possible;
                }
                None => {
                    if let Some(why) = outcome.reason_unknown.as_mut() {
                        why.push_str(&format!(
                            "; their branches make more than {} combinations: the statuses listed are those with no branch applying",
                            branches::MAX_COMBINATIONS
                        ));
                    }
                }
            }
        }
    }
    // mod_allowmethods' access checker runs before every other: its 405 stands whatever they
    // decide (not where the walk itself failed).
    let walk_failed = r.symlink.is_some()
        || outcome.deciding.as_ref().is_some_and(|d| d.rule.starts_with(".htaccess error"))
        || !r.errors.is_empty();
    if !walk_failed {
        let target = r.filesystem_path.to_string_lossy();
        if let Some(refused) = crate::ide::allow_methods::refusal(cfg, &per_dir, &spec.request.method, &target) {
            outcome = refused;
        }
    }
    let compat = r.compat().cloned();
    Effective {
        virtual_host: vhost.map(vhost_label),
        vhost_node: r.vhost.and_then(|v| ix.top_position(ix.vhosts[v as usize].id)),
        sections,
        filesystem_path: r.filesystem_path,
        compat,
        authz: r.authz,
        authn: r.authn,
        errors: r.errors,
        unknown: r.unknown,
        outcome,
        per_dir,
        env,
        index: None,
        index_condition,
        chains,
        other_chains,
        decided: decided.cloned(),
        inputs: env_inputs.cloned(),
        refused_symlink: r.symlink.map(|(p, _)| p),
    }
}
