//! Evaluation of one request against the final merged configs (access_compat, authz_core,
//! authentication settings): which status httpd answers with, which layer and rule decided,
//! what it logs.
//!
//! Mirrors `server/request.c: ap_process_request_internal` (the Satisfy All/Any pipeline),
//! `mod_access_compat.c: check_dir_access`/`find_allowdeny`, `mod_authz_core.c:
//! apply_authz_sections`/`authorize_user_core`, the providers of mod_authz_core, mod_authz_host,
//! mod_authz_user, mod_authz_groupfile, and the authentication hooks of mod_auth_basic,
//! mod_auth_digest and mod_authn_core (`authenticate_no_user`).
//!
//! Invariants:
//! * No IO, no DNS: everything the request depends on is given in [`Request`].
//! * Never a guess. Unknown facts (an env var, the client's host name, the group file, `Require
//!   expr`, LDAP, third-party providers or auth types) are evaluated as *sets* of possible
//!   results, following httpd's evaluation order and short-circuits, so an unknown that is not
//!   reached or does not matter does not make the outcome unknown. `status` is `None` exactly
//!   when more than one status remains possible; `reason_unknown` then names the unknowns.
//!   Unknowns are treated as independent of each other (sound, possibly less precise).
//! * `status == Some(200)` means "passes access control"; the handler may still answer 404 etc.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::addr::{in_domain, sockaddr_equal, HostSpec, IpSubnet};
use super::authn::{AuthTypeKind, AuthnConfig};
use super::authz::{AuthzConfig, AuthzNode, LogicOp, NodeKind, Provider, Requirement};
use super::compat::{AccessEntry, CompatConfig, Order, Satisfy};
use super::items::{getwords_conf, is_expr_string, Loc, PolicyCtx};
use super::method::MethodId;

/// What is known about the client's host name (double-reverse lookup, done by httpd regardless
/// of HostnameLookups for `Allow from <host>` and `Require host`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HostKnowledge {
    /// The verified name.
    Known(String),
    /// The reverse or the forward lookup failed (httpd then has only the IP string,
    /// `remotehost_is_ip`): no host entry matches, `Require host` logs AH01753.
    NoName,
    /// Not known.
    #[default]
    Unknown,
}

/// One variable of `r->subprocess_env` at access-check time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvVar {
    /// Present (any value, even empty).
    Set(String),
    Absent,
    Unknown,
}

/// The request's environment (names compare case-insensitively, like APR tables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvKnowledge {
    pub vars: BTreeMap<String, EnvVar>,
    /// What holds for variables not in `vars` (`Absent` or `Unknown`).
    pub default: EnvVar,
}

impl Default for EnvKnowledge {
    fn default() -> Self {
        EnvKnowledge { vars: BTreeMap::new(), default: EnvVar::Absent }
    }
}

impl EnvKnowledge {
    /// All variables absent except these.
    pub fn with_set<I: IntoIterator<Item = (S, S)>, S: Into<String>>(vars: I) -> EnvKnowledge {
        EnvKnowledge {
            vars: vars.into_iter().map(|(k, v)| (k.into(), EnvVar::Set(v.into()))).collect(),
            default: EnvVar::Absent,
        }
    }

    /// Nothing is known.
    pub fn unknown() -> EnvKnowledge {
        EnvKnowledge { vars: BTreeMap::new(), default: EnvVar::Unknown }
    }

    pub fn get(&self, name: &str) -> &EnvVar {
        self.vars.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v).unwrap_or(&self.default)
    }
}

/// One request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Request method as sent (case-sensitive).
    pub method: String,
    /// URI (used only in log messages).
    pub uri: String,
    /// `r->useragent_addr`.
    pub client: IpAddr,
    /// The server-side address of the connection (`Require local`).
    pub local_addr: IpAddr,
    /// The server-side port of the connection, when known. Only then is `local_addr` taken as
    /// the real address the request arrived on, and the virtual host chosen by address and port
    /// first (`server/vhost.c: ap_update_vhost_given_ip`), then by name.
    pub local_port: Option<u16>,
    /// Without a port: whether the connection is known to be over `local_addr`'s address family
    /// (a hover's loopback client). A virtual host none of whose addresses can be of that family
    /// then cannot serve it (`ap_update_vhost_given_ip` looks the connection's address up), and
    /// with none left the main server answers.
    pub local_family_known: bool,
    /// Valid credentials for this user were sent.
    pub user: Option<String>,
    /// Credentials were sent but are wrong (unknown user or bad password).
    pub bad_credentials: bool,
    pub env: EnvKnowledge,
    pub client_host: HostKnowledge,
    /// user → groups, from the AuthGroupFile in effect; None = unknown. Keys are exact user
    /// names (`groups_for_user` compares users with `strcmp`); group names (trailing blanks
    /// trimmed) are matched case-insensitively, because `groups_for_user` stores them in an
    /// `apr_table` and `group_check_authorization` looks them up with `apr_table_get`.
    pub groups: Option<BTreeMap<String, BTreeSet<String>>>,
    /// Forward DNS answers for `Require forward-dns` names (lowercase); a missing name is
    /// unknown, an empty list means the lookup fails.
    pub forward_dns: BTreeMap<String, Vec<IpAddr>>,
    /// `AuthUserFile` arguments (as written) whose file is missing, with the path httpd opens:
    /// checking a password there is a 500 (AH01620). Files not named here are taken as readable.
    pub missing_user_files: BTreeMap<String, String>,
    /// The `AuthDBMUserFile` in force cannot be opened as its `AuthDBMType` names it (the path):
    /// checking a password there is a 500. None: taken as openable.
    pub missing_dbm_user_file: Option<String>,
    /// The `AuthGroupFile` in force could not be opened (the path httpd opens): `Require
    /// group` is denied (AH01665), as `group_check_authorization` denies it.
    pub unreadable_group_file: Option<String>,
    /// The files the `AuthUserFile` and `AuthGroupFile` in force name are looked at on this
    /// machine once the request's sections are merged (explain): `missing_user_files`, `groups`
    /// and `unreadable_group_file` are then filled in for those files
    /// (`crate::ide::access::auth_files::in_force`).
    pub auth_files_from_disk: bool,
    /// With [`Request::auth_files_from_disk`], `user` is also looked up in the `AuthUserFile` in
    /// force (explain's `--user`, a hover column naming a user), as mod_authn_file does.
    pub check_user_listed: bool,
    /// The `AuthUserFile` in force (the path httpd opens) exists and does not list `user`:
    /// mod_authn_file answers "user not found" (AH01618) and the request gets 401.
    pub unlisted_user_file: Option<String>,
}

impl Request {
    /// A GET-like request from `client` to `local_addr` with no credentials, empty env, unknown
    /// host name and groups.
    pub fn new(method: &str, client: IpAddr, local_addr: IpAddr) -> Request {
        Request {
            method: method.to_string(),
            uri: "/".into(),
            client,
            local_addr,
            local_port: None,
            local_family_known: false,
            user: None,
            bad_credentials: false,
            env: EnvKnowledge::default(),
            client_host: HostKnowledge::Unknown,
            groups: None,
            forward_dns: BTreeMap::new(),
            missing_user_files: BTreeMap::new(),
            missing_dbm_user_file: None,
            unreadable_group_file: None,
            auth_files_from_disk: false,
            check_user_listed: false,
            unlisted_user_file: None,
        }
    }
}

/// `authz_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AuthzStatus {
    Denied,
    Granted,
    Neutral,
    GeneralError,
    DeniedNoUser,
}

impl fmt::Display for AuthzStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // format_authz_result
        f.write_str(match self {
            AuthzStatus::Denied => "denied",
            AuthzStatus::Granted => "granted",
            AuthzStatus::DeniedNoUser => "denied (no authenticated user yet)",
            AuthzStatus::Neutral => "neutral",
            AuthzStatus::GeneralError => "general error",
        })
    }
}

/// The layer that decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// mod_access_compat (Order/Allow/Deny/Satisfy).
    AccessCompat,
    /// mod_authz_core (Require).
    AuthzCore,
    /// Authentication (mod_auth_basic, mod_auth_digest, mod_authn_core).
    Authn,
    /// The core request pipeline (AH00027/AH00028).
    Core,
}

/// Which layer and which rule decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deciding {
    pub layer: Layer,
    pub rule: String,
    pub loc: Option<Loc>,
}

/// One human-readable evaluation step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceStep {
    /// Nesting depth (for indentation).
    pub depth: u32,
    pub text: String,
    pub loc: Option<Loc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogLevel {
    /// `.htaccess` errors (`server/config.c: ap_parse_htaccess`).
    Alert,
    Error,
    Warning,
    Info,
}

/// A predicted error-log entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub ah_code: &'static str,
    /// Module name as in the log line, e.g. `access_compat`, `authz_core`.
    pub module: &'static str,
    pub level: LogLevel,
    pub message: String,
}

/// The result of evaluating one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The HTTP status (200 = passes access control); None = cannot be known.
    pub status: Option<u16>,
    /// Why the status cannot be known (only when `status` is None).
    pub reason_unknown: Option<String>,
    /// The statuses that remain possible (one element when `status` is known).
    pub possible_statuses: Vec<u16>,
    /// Which layer and rule decided (for a known status).
    pub deciding: Option<Deciding>,
    /// Evaluation steps in httpd's order.
    pub trace: Vec<TraceStep>,
    /// Predicted error-log entries (error/warning/info level, in order). Several are possible:
    /// AH01797 is logged even when Satisfy Any then lets authz grant.
    pub log: Vec<LogEntry>,
}

impl Outcome {
    /// Compact text rendering (for tests and hovers).
    pub fn render(&self) -> String {
        let mut s = String::new();
        match self.status {
            Some(st) => {
                let _ = writeln!(s, "status: {st}");
            }
            None => {
                let _ = writeln!(s, "status: unknown {:?}", self.possible_statuses);
                if let Some(r) = &self.reason_unknown {
                    let _ = writeln!(s, "reason: {r}");
                }
            }
        }
        if let Some(d) = &self.deciding {
            let at = d.loc.as_ref().map(|l| format!(" (line {})", l.line)).unwrap_or_default();
            let _ = writeln!(s, "deciding: {:?}: {}{at}", d.layer, d.rule);
        }
        for l in &self.log {
            let _ = writeln!(s, "log: [{}:{:?}] {}: {}", l.module, l.level, l.ah_code, l.message);
        }
        s.push_str("trace:\n");
        for t in &self.trace {
            let at = t.loc.as_ref().map(|l| format!(" (line {})", l.line)).unwrap_or_default();
            let _ = writeln!(s, "{}{}{at}", "  ".repeat(t.depth as usize + 1), t.text);
        }
        s
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
}

impl Tri {
    fn from(b: bool) -> Tri {
        if b {
            Tri::True
        } else {
            Tri::False
        }
    }
    fn values(self) -> &'static [bool] {
        match self {
            Tri::True => &[true],
            Tri::False => &[false],
            Tri::Unknown => &[true, false],
        }
    }
}

#[derive(Debug, Clone)]
struct Branch {
    status: AuthzStatus,
    rule: String,
    loc: Option<Loc>,
    logs: Vec<LogEntry>,
    /// When several Require lines decided together (every one granted under a RequireAll or
    /// AuthMerging And, every one denied under a RequireAny or AuthMerging Or): each line and its
    /// place. Empty when `rule` at `loc` decided alone.
    parts: Vec<(String, Option<Loc>)>,
    /// A node limited to other methods: granted under an AND parent without deciding anything.
    limited: bool,
}

impl Branch {
    /// The lines that decided: [`Branch::parts`], or the branch's own rule.
    fn decided_by(&self) -> impl Iterator<Item = (&String, &Option<Loc>)> {
        let own = self.parts.is_empty().then_some((&self.rule, &self.loc));
        own.into_iter().chain(self.parts.iter().map(|(r, l)| (r, l)))
    }
}

/// `label`, then each line of `parts` with its place: the rule of a container that several
/// lines decided together.
fn decided_together(label: &str, verb: &str, parts: &[(String, Option<Loc>)]) -> String {
    let each: Vec<String> = parts
        .iter()
        .map(|(rule, loc)| match loc {
            Some(l) => format!("`{rule}` ({}:{})", l.file.display(), l.line),
            None => format!("`{rule}`"),
        })
        .collect();
    let list = match each.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    format!("{label}: {verb} by {list}")
}

#[derive(Debug, Clone)]
enum StageResult {
    Ok,
    Declined,
    Status(Option<u16>),
}

#[derive(Debug, Clone)]
struct StageOut {
    result: StageResult,
    deciding: Deciding,
    logs: Vec<LogEntry>,
}

#[derive(Debug, Clone)]
enum AuthnResult {
    User,
    NoUser,
    Status(Option<u16>),
}

#[derive(Debug, Clone)]
struct AuthnOut {
    result: AuthnResult,
    deciding: Deciding,
    logs: Vec<LogEntry>,
}

#[derive(Debug, Clone)]
struct Final {
    status: Option<u16>,
    deciding: Deciding,
    logs: Vec<LogEntry>,
}

fn log(ah_code: &'static str, module: &'static str, level: LogLevel, message: impl Into<String>) -> LogEntry {
    LogEntry { ah_code, module, level, message: message.into() }
}

fn dedup_branches(v: Vec<Branch>) -> Vec<Branch> {
    let mut out: Vec<Branch> = vec![];
    for b in v {
        if !out.iter().any(|o| o.status == b.status) {
            out.push(b);
        }
    }
    out
}

fn statuses(v: &[Branch]) -> String {
    v.iter().map(|b| b.status.to_string()).collect::<Vec<_>>().join(" | ")
}

/// Under a container, a child `cr` with the same status as the state `st` so far (both granted
/// under AND, both denied under OR): both decided, each with its lines. A child limited to other
/// methods decides nothing.
fn together(st: &Branch, cr: &Branch, take: impl Fn(&Branch) -> Branch) -> Branch {
    if cr.limited {
        return take(st);
    }
    if st.limited {
        return take(cr);
    }
    let mut b = take(st);
    let parts: Vec<(String, Option<Loc>)> =
        st.decided_by().chain(cr.decided_by()).map(|(r, l)| (r.clone(), l.clone())).collect();
    b.parts = parts;
    b
}

struct Eval<'a> {
    req: &'a Request,
    ctx: &'a PolicyCtx,
    authn: &'a AuthnConfig,
    method: MethodId,
    /// `r->user` during the current authz pass.
    user: Option<&'a str>,
    /// `user` is a name not told (wrong credentials mod_authn_anon accepted): `Require user`
    /// and `Require group` cannot be decided.
    user_name_unknown: bool,
    trace: Vec<TraceStep>,
    reasons: Vec<String>,
}

impl<'a> Eval<'a> {
    fn step(&mut self, depth: u32, text: impl Into<String>, loc: Option<&Loc>) -> usize {
        self.trace.push(TraceStep { depth, text: text.into(), loc: loc.cloned() });
        self.trace.len() - 1
    }

    fn unknown(&mut self, reason: String) {
        if !self.reasons.contains(&reason) {
            self.reasons.push(reason);
        }
    }

    fn env(&mut self, name: &str) -> Tri {
        match self.req.env.get(name) {
            EnvVar::Set(_) => Tri::True,
            EnvVar::Absent => Tri::False,
            EnvVar::Unknown => Tri::Unknown,
        }
    }

    // ---------------------------------------------------------------- mod_access_compat

    fn entry_matches(&mut self, e: &AccessEntry) -> Tri {
        match &e.spec {
            HostSpec::EnvPresent(n) => self.env(n),
            HostSpec::EnvAbsent(n) => match self.env(n) {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                Tri::Unknown => Tri::Unknown,
            },
            HostSpec::All => Tri::True,
            HostSpec::Ip(s) => Tri::from(s.test(self.req.client)),
            HostSpec::Host(name) => match &self.req.client_host {
                HostKnowledge::Known(h) => Tri::from(in_domain(name, h)),
                HostKnowledge::NoName => Tri::False,
                HostKnowledge::Unknown => Tri::Unknown,
            },
        }
    }

    fn entry_unknown_reason(e: &AccessEntry) -> String {
        match &e.spec {
            HostSpec::EnvPresent(n) | HostSpec::EnvAbsent(n) => {
                format!("environment variable {n} is not known (line {})", e.loc.line)
            }
            _ => format!("the client's host name (double-reverse DNS) is not known (line {})", e.loc.line),
        }
    }

    /// `find_allowdeny`: does any entry for this method match? Returns the deciding entry.
    fn find_allowdeny<'e>(&mut self, kind: &str, entries: Vec<&'e AccessEntry>) -> (Tri, Option<&'e AccessEntry>) {
        let mut first_unknown = None;
        // Entries past the first TRACED that do not match are counted, not traced one by one
        // (a blocklist of thousands of lines is evaluated for every client the proof asks).
        const TRACED: usize = 16;
        let mut untraced = 0;
        for (i, e) in entries.iter().enumerate() {
            let t = self.entry_matches(e);
            if i >= TRACED && t == Tri::False {
                untraced += 1;
                continue;
            }
            if untraced > 0 {
                self.step(2, format!("{kind} from: {untraced} more entries do not match"), None);
                untraced = 0;
            }
            self.step(
                2,
                format!(
                    "{kind} from {}: {}",
                    e.text,
                    match t {
                        Tri::True => "matches",
                        Tri::False => "does not match",
                        Tri::Unknown => "unknown",
                    }
                ),
                Some(&e.loc),
            );
            match t {
                Tri::True => return (Tri::True, Some(e)),
                Tri::Unknown if first_unknown.is_none() => first_unknown = Some(*e),
                _ => {}
            }
        }
        if untraced > 0 {
            self.step(2, format!("{kind} from: {untraced} more entries do not match"), None);
        }
        match first_unknown {
            Some(e) => {
                let r = Self::entry_unknown_reason(e);
                self.unknown(r);
                (Tri::Unknown, Some(e))
            }
            None => (Tri::False, None),
        }
    }

    /// `check_dir_access`. Returns (host check passes, deciding, logs) for every possibility.
    fn host_stage(&mut self, compat: Option<&CompatConfig>) -> Vec<(bool, Deciding, Vec<LogEntry>)> {
        let Some(c) = compat else {
            self.step(0, "access_compat: no Order/Allow/Deny in effect → host check passes", None);
            return vec![(
                true,
                Deciding {
                    layer: Layer::AccessCompat,
                    rule: "no Order/Allow/Deny in effect (default: allow)".into(),
                    loc: None,
                },
                vec![],
            )];
        };
        let m = self.method.clone();
        let (order, order_loc) = c.order_for(&m);
        let order_loc = order_loc.cloned();
        self.step(
            0,
            format!(
                "access_compat: Order {}{} for {}",
                order.as_str(),
                if order_loc.is_none() { " (default)" } else { "" },
                m
            ),
            order_loc.as_ref().or(Some(&c.loc)),
        );
        // check_dir_access walks the lists in the Order's sequence: Deny then Allow under
        // deny,allow; Allow then Deny under allow,deny; under mutual-failure Allow, then Deny
        // only when an Allow matched (`allowed && !denied` stops at the first false).
        let (a, a_entry, d, d_entry) = match order {
            Order::DenyAllow => {
                let (d, d_entry) = self.find_allowdeny("Deny", c.denies_for(&m).collect());
                let (a, a_entry) = self.find_allowdeny("Allow", c.allows_for(&m).collect());
                (a, a_entry, d, d_entry)
            }
            Order::AllowDeny => {
                let (a, a_entry) = self.find_allowdeny("Allow", c.allows_for(&m).collect());
                let (d, d_entry) = self.find_allowdeny("Deny", c.denies_for(&m).collect());
                (a, a_entry, d, d_entry)
            }
            Order::MutualFailure => {
                let (a, a_entry) = self.find_allowdeny("Allow", c.allows_for(&m).collect());
                if a == Tri::False {
                    if c.denies_for(&m).next().is_some() {
                        self.step(2, "Deny lines not read: no Allow matched", None);
                    }
                    (a, a_entry, Tri::False, None)
                } else {
                    let (d, d_entry) = self.find_allowdeny("Deny", c.denies_for(&m).collect());
                    (a, a_entry, d, d_entry)
                }
            }
        };
        let denied_log = || {
            vec![log(
                "AH01797",
                "access_compat",
                LogLevel::Error,
                format!("client denied by server configuration: {}", self.req.uri),
            )]
        };
        let entry_rule = |e: Option<&AccessEntry>, verb: &str| match e {
            Some(e) => (format!("{verb} from {}", e.text), Some(e.loc.clone())),
            None => (String::new(), None),
        };
        let mut out: Vec<(bool, Deciding, Vec<LogEntry>)> = vec![];
        for &av in a.values() {
            for &dv in d.values() {
                let ok = match order {
                    Order::DenyAllow => av || !dv,
                    Order::AllowDeny | Order::MutualFailure => av && !dv,
                };
                let (rule, loc) = match (order, av, dv) {
                    (Order::DenyAllow, true, _) => entry_rule(a_entry, "Allow"),
                    (Order::DenyAllow, false, true) => entry_rule(d_entry, "Deny"),
                    (Order::DenyAllow, false, false) => {
                        ("Order deny,allow: no Deny matches (default allow)".into(), order_loc.clone())
                    }
                    (_, _, true) => {
                        let (r, l) = entry_rule(d_entry, "Deny");
                        (format!("{r} (Order {}: Deny has the last word)", order.as_str()), l)
                    }
                    (_, true, false) => entry_rule(a_entry, "Allow"),
                    (_, false, false) => {
                        (format!("Order {}: no Allow matches (default deny)", order.as_str()), order_loc.clone())
                    }
                };
                if out.iter().any(|o| o.0 == ok) {
                    continue;
                }
                let logs = if ok { vec![] } else { denied_log() };
                out.push((ok, Deciding { layer: Layer::AccessCompat, rule, loc }, logs));
            }
        }
        let text = match out.as_slice() {
            [(true, ..)] => "host check passes".to_string(),
            [(false, ..)] => "host check fails (403, AH01797)".to_string(),
            _ => "host check result unknown".to_string(),
        };
        self.step(1, text, None);
        out
    }

    // ---------------------------------------------------------------- mod_authz_core

    fn branch(&self, node: &AuthzNode, status: AuthzStatus) -> Branch {
        Branch { status, rule: node.label(), loc: node.loc.clone(), logs: vec![], parts: vec![], limited: false }
    }

    fn possible(&mut self, node: &AuthzNode, st: &[AuthzStatus], reason: String) -> Vec<Branch> {
        self.unknown(reason);
        st.iter().map(|s| self.branch(node, *s)).collect()
    }

    /// `apply_authz_sections`.
    fn apply(&mut self, node: &AuthzNode, parent_op: LogicOp, depth: u32) -> Vec<Branch> {
        use AuthzStatus::*;
        if !node.methods.contains(&self.method) {
            let st = if parent_op == LogicOp::And { Granted } else { Neutral };
            self.step(depth, format!("{}: limited to {} → {st}", node.label(), node.methods), node.loc.as_ref());
            let mut b = self.branch(node, st);
            b.rule = format!("{} (limited to other methods)", node.label());
            b.limited = true;
            return vec![b];
        }
        let header = self.step(depth, node.label(), node.loc.as_ref());
        let mut result = match &node.kind {
            NodeKind::Require(r) => self.provider(node, r),
            NodeKind::Container { op, children, .. } => {
                let op = *op;
                let mut states: Vec<(Branch, bool)> = vec![(self.branch(node, Neutral), false)];
                for child in children {
                    if states.iter().all(|s| s.1) {
                        break;
                    }
                    let child_results = self.apply(child, op, depth + 1);
                    let mut next: Vec<(Branch, bool)> = vec![];
                    for (st, stopped) in states {
                        if stopped {
                            next.push((st, true));
                            continue;
                        }
                        for cr in &child_results {
                            let mut logs = st.logs.clone();
                            logs.extend(cr.logs.iter().cloned());
                            let take = |s: &Branch| Branch { logs: logs.clone(), ..s.clone() };
                            let item = if cr.status == GeneralError {
                                (take(cr), true)
                            } else if cr.status == Neutral {
                                (take(&st), false)
                            } else if op == LogicOp::And {
                                if cr.status == Denied {
                                    (take(cr), true)
                                } else if (cr.status == DeniedNoUser && st.status != Denied) || st.status == Neutral {
                                    (take(cr), false)
                                } else if cr.status == Granted && st.status == Granted {
                                    (together(&st, cr, take), false)
                                } else {
                                    (take(&st), false)
                                }
                            } else if cr.status == Granted {
                                (take(cr), true)
                            } else if (cr.status == DeniedNoUser && st.status == Denied) || st.status == Neutral {
                                (take(cr), false)
                            } else if cr.status == Denied && st.status == Denied {
                                (together(&st, cr, take), false)
                            } else {
                                (take(&st), false)
                            };
                            if !next.iter().any(|n| n.0.status == item.0.status && n.1 == item.1) {
                                next.push(item);
                            }
                        }
                    }
                    states = next;
                }
                states
                    .into_iter()
                    .map(|(mut b, _)| {
                        // Several lines decided together: the container (its place), and each of
                        // them with its place.
                        if !b.parts.is_empty() {
                            let verb = if b.status == Granted { "granted" } else { "denied" };
                            b.rule = decided_together(&node.label(), verb, &b.parts);
                            b.loc = node.loc.clone();
                        }
                        b
                    })
                    .collect()
            }
        };
        if node.negate {
            for b in &mut result {
                let new = match b.status {
                    Granted => Denied,
                    Denied | DeniedNoUser => Neutral,
                    s => s,
                };
                if new != b.status {
                    b.status = new;
                    b.rule = node.label();
                    b.loc = node.loc.clone();
                    b.parts.clear();
                }
            }
        }
        let result = dedup_branches(result);
        let text = format!("{} → {}", self.trace[header].text, statuses(&result));
        self.trace[header].text = text;
        result
    }

    /// The provider's `check_authorization` (before negation).
    fn provider(&mut self, node: &AuthzNode, r: &Requirement) -> Vec<Branch> {
        use AuthzStatus::*;
        let line = node.loc.as_ref().map(|l| l.line).unwrap_or(0);
        let user = self.user;
        let one = |s: &Self, st: AuthzStatus| vec![s.branch(node, st)];
        let with_log = |s: &Self, st: AuthzStatus, l: LogEntry| {
            let mut b = s.branch(node, st);
            b.logs.push(l);
            vec![b]
        };
        match &r.provider {
            Provider::All { granted } => one(self, if *granted { Granted } else { Denied }),
            Provider::Env(names) => {
                let mut unknown = None;
                for n in names {
                    match self.env(n) {
                        Tri::True => return one(self, Granted),
                        Tri::Unknown if unknown.is_none() => unknown = Some(n.clone()),
                        _ => {}
                    }
                }
                match unknown {
                    Some(n) => self.possible(
                        node,
                        &[Granted, Denied],
                        format!("environment variable {n} is not known (line {line})"),
                    ),
                    None => one(self, Denied),
                }
            }
            Provider::Method(mask) => one(self, if mask.contains(&self.method) { Granted } else { Denied }),
            Provider::Expr { expr, wants_user } => {
                // Evaluated where what it reads is known (the client's address, the method);
                // one that mentions REMOTE_USER is left alone (false is then DENIED_NO_USER,
                // which asks for credentials).
                let known = super::expr_eval::ExprRequest {
                    client: Some(self.req.client),
                    method: Some(self.req.method.as_str()),
                    ..Default::default()
                };
                let all = super::expr::Lookups { ssl: true, hcheck: true, restricted: false };
                match (!*wants_user).then(|| super::expr_eval::eval_text(expr, all, &known)).flatten() {
                    Some(true) => return one(self, Granted),
                    Some(false) => return one(self, Denied),
                    None => {}
                }
                let st: &[AuthzStatus] = if *wants_user {
                    &[Granted, Denied, DeniedNoUser, GeneralError]
                } else {
                    &[Granted, Denied, GeneralError]
                };
                self.possible(node, st, format!("Require expr is not evaluated (line {line})"))
            }
            Provider::Ip(subnets) => {
                one(self, if subnets.iter().any(|s| s.test(self.req.client)) { Granted } else { Denied })
            }
            Provider::Local => {
                let c = self.req.client;
                let v4 = IpSubnet::V4 { net: u32::from(Ipv4Addr::new(127, 0, 0, 0)), mask: 0xff00_0000 };
                let v6 = IpSubnet::V6 { net: u128::from(Ipv6Addr::LOCALHOST), mask: u128::MAX };
                let ok = sockaddr_equal(self.req.local_addr, c) || v4.test(c) || v6.test(c);
                one(self, if ok { Granted } else { Denied })
            }
            Provider::Host(args) => {
                let unable = || {
                    log(
                        "AH01753",
                        "authz_host",
                        LogLevel::Error,
                        format!(
                            "access check of '{args}' to {} failed, reason: unable to get the remote host name",
                            self.req.uri
                        ),
                    )
                };
                match self.req.client_host.clone() {
                    HostKnowledge::NoName => with_log(self, Denied, unable()),
                    HostKnowledge::Known(name) => {
                        if is_expr_string(args) {
                            return self.possible(
                                node,
                                &[Granted, Denied],
                                format!("Require host argument is an expression (line {line})"),
                            );
                        }
                        let (t, hash_log) = match args.find('#') {
                            Some(0) => {
                                return with_log(
                                    self,
                                    Denied,
                                    log(
                                        "AH10120",
                                        "authz_host",
                                        LogLevel::Error,
                                        format!(
                                        "authz_host authorize: dubious empty 'Require host {args}' with only comment"
                                    ),
                                    ),
                                )
                            }
                            Some(p) => (
                                &args[..p],
                                Some(log(
                                    "AH10121",
                                    "authz_host",
                                    LogLevel::Warning,
                                    format!("authz_host authorize: ignoring comment in 'Require host {args}'"),
                                )),
                            ),
                            None => (args.as_str(), None),
                        };
                        let ok = getwords_conf(t).iter().any(|w| in_domain(w, &name));
                        let mut b = self.branch(node, if ok { Granted } else { Denied });
                        b.logs.extend(hash_log);
                        vec![b]
                    }
                    HostKnowledge::Unknown => {
                        let t = args.split('#').next().unwrap_or("");
                        if !is_expr_string(args) && getwords_conf(t).is_empty() {
                            return one(self, Denied);
                        }
                        self.possible(
                            node,
                            &[Granted, Denied],
                            format!("the client's host name (double-reverse DNS) is not known (line {line})"),
                        )
                    }
                }
            }
            Provider::ForwardDns(args) => {
                if is_expr_string(args) {
                    return self.possible(
                        node,
                        &[Granted, Denied],
                        format!("Require forward-dns argument is an expression (line {line})"),
                    );
                }
                let mut unknown = None;
                for w in getwords_conf(args) {
                    let (name, stop) = match w.find('#') {
                        Some(0) => break,
                        Some(p) => (w[..p].to_string(), true),
                        None => (w.clone(), false),
                    };
                    let answer = self
                        .req
                        .forward_dns
                        .get(&name)
                        .or_else(|| self.req.forward_dns.get(&name.to_ascii_lowercase()));
                    match answer {
                        Some(addrs) if addrs.iter().any(|a| sockaddr_equal(*a, self.req.client)) => {
                            return one(self, Granted)
                        }
                        Some(_) => {}
                        None if unknown.is_none() => unknown = Some(name),
                        None => {}
                    }
                    if stop {
                        break;
                    }
                }
                match unknown {
                    Some(n) => self.possible(
                        node,
                        &[Granted, Denied],
                        format!("forward DNS of {n} is not known (line {line})"),
                    ),
                    None => one(self, Denied),
                }
            }
            Provider::User(_) | Provider::Group(_) if user.is_some() && self.user_name_unknown => self.possible(
                node,
                &[Granted, Denied],
                format!("the name mod_authn_anon accepted with the wrong credentials is not known (line {line})"),
            ),
            Provider::User(args) => {
                let Some(u) = user else { return one(self, DeniedNoUser) };
                if is_expr_string(args) {
                    return self.possible(
                        node,
                        &[Granted, Denied],
                        format!("Require user argument is an expression (line {line})"),
                    );
                }
                one(self, if getwords_conf(args).iter().any(|w| w == u) { Granted } else { Denied })
            }
            Provider::ValidUser => one(self, if user.is_some() { Granted } else { DeniedNoUser }),
            Provider::Group(args) => {
                let Some(u) = user else { return one(self, DeniedNoUser) };
                if self.authn.group_file.is_none() {
                    return with_log(
                        self,
                        Denied,
                        log(
                            "AH01664",
                            "authz_groupfile",
                            LogLevel::Error,
                            "No group file was specified in the configuration",
                        ),
                    );
                }
                if let Some(path) = &self.req.unreadable_group_file {
                    return with_log(
                        self,
                        Denied,
                        log(
                            "AH01665",
                            "authz_groupfile",
                            LogLevel::Error,
                            format!("Could not open group file: {path}"),
                        ),
                    );
                }
                let Some(groups) = &self.req.groups else {
                    return self.possible(
                        node,
                        &[Granted, Denied],
                        format!("the contents of the group file are not known (line {line})"),
                    );
                };
                let mine = groups.get(u).cloned().unwrap_or_default();
                if mine.is_empty() {
                    return with_log(
                        self,
                        Denied,
                        log(
                            "AH01666",
                            "authz_groupfile",
                            LogLevel::Info,
                            format!("Authorization of user {u} to access {} failed, reason: user doesn't appear in group file.", self.req.uri),
                        ),
                    );
                }
                if is_expr_string(args) {
                    return self.possible(
                        node,
                        &[Granted, Denied],
                        format!("Require group argument is an expression (line {line})"),
                    );
                }
                // groups_for_user builds an apr_table: group names compare case-insensitively.
                let ok = getwords_conf(args).iter().any(|w| mine.iter().any(|g| g.eq_ignore_ascii_case(w)));
                one(self, if ok { Granted } else { Denied })
            }
            Provider::FileGroup | Provider::FileOwner => {
                if user.is_none() {
                    return one(self, DeniedNoUser);
                }
                if matches!(r.provider, Provider::FileGroup) && self.authn.group_file.is_none() {
                    return with_log(
                        self,
                        Denied,
                        log(
                            "AH01668",
                            "authz_groupfile",
                            LogLevel::Error,
                            "No group file was specified in the configuration",
                        ),
                    );
                }
                self.possible(
                    node,
                    &[Granted, Denied],
                    format!("Require {} depends on the file's ownership (line {line})", r.provider_name),
                )
            }
            Provider::DbmGroup(_) | Provider::DbmFileGroup => {
                if user.is_none() {
                    return one(self, DeniedNoUser);
                }
                if self.authn.dbm_group_file.is_none() {
                    let code = if matches!(r.provider, Provider::DbmGroup(_)) { "AH01798" } else { "AH01802" };
                    return with_log(
                        self,
                        Denied,
                        log(code, "authz_dbm", LogLevel::Error, "No group file was specified in the configuration"),
                    );
                }
                self.possible(
                    node,
                    &[Granted, Denied, GeneralError],
                    format!("Require {} depends on the DBM group file (line {line})", r.provider_name),
                )
            }
            Provider::Ldap => self.possible(
                node,
                &[Granted, Denied, DeniedNoUser, GeneralError],
                format!("Require {} depends on the LDAP directory (line {line})", r.provider_name),
            ),
            Provider::Opaque => self.possible(
                node,
                &[Granted, Denied, DeniedNoUser, GeneralError],
                format!("Require {} is not modelled (line {line})", r.provider_name),
            ),
        }
    }

    fn auth_type_null(&self) -> bool {
        self.authn.auth_type_kind() == AuthTypeKind::None
    }

    /// `authorize_user_core(r, after_authn)`.
    fn authz_stage(&mut self, authz: Option<&AuthzConfig>, after_authn: bool) -> Vec<StageOut> {
        let pass = if after_authn { "authz_core (with user)" } else { "authz_core (userless)" };
        let d = |rule: String, loc: Option<Loc>| Deciding { layer: Layer::AuthzCore, rule, loc };
        let Some(section) = authz.and_then(|a| a.section.as_ref()) else {
            let at = self.authn.auth_type.clone();
            let no_directives = StageOut {
                result: StageResult::Ok,
                deciding: d("no Require in effect: granted (no directives)".into(), None),
                logs: vec![],
            };
            let error = StageOut {
                result: StageResult::Status(Some(500)),
                deciding: d("AuthType configured with no Require in effect".into(), at.as_ref().map(|v| v.loc.clone())),
                logs: vec![log(
                    "AH01627",
                    "authz_core",
                    LogLevel::Error,
                    "AuthType configured with no corresponding authorization directives",
                )],
            };
            return match self.authn.auth_type_kind() {
                AuthTypeKind::None => {
                    self.step(0, format!("{pass}: no Require in effect → granted (no directives)"), None);
                    vec![no_directives]
                }
                AuthTypeKind::Expr(e) => {
                    self.step(0, format!("{pass}: no Require in effect; AuthType is an expression"), None);
                    self.unknown(format!("AuthType {e} is an expression"));
                    vec![error, no_directives]
                }
                _ => {
                    self.step(
                        0,
                        format!("{pass}: no Require in effect but AuthType set → 500 (AH01627)"),
                        at.as_ref().map(|v| &v.loc),
                    );
                    vec![error]
                }
            };
        };
        self.step(0, format!("{pass}:"), None);
        let branches = self.apply(section, LogicOp::And, 1);
        let forbidden = authz.and_then(|a| a.forbidden_on_fail).unwrap_or(false);
        let mut out = vec![];
        for b in branches {
            let mut logs = b.logs.clone();
            let deciding = d(b.rule.clone(), b.loc.clone());
            let result = match b.status {
                AuthzStatus::Granted => StageResult::Ok,
                AuthzStatus::DeniedNoUser if after_authn => {
                    logs.push(log(
                        "AH01629",
                        "authz_core",
                        LogLevel::Error,
                        format!("authorization failure (no authenticated user): {}", self.req.uri),
                    ));
                    StageResult::Status(Some(401))
                }
                AuthzStatus::DeniedNoUser => StageResult::Declined,
                AuthzStatus::Denied | AuthzStatus::Neutral => {
                    if !after_authn || self.auth_type_null() {
                        logs.push(log(
                            "AH01630",
                            "authz_core",
                            LogLevel::Error,
                            format!("client denied by server configuration: {}", self.req.uri),
                        ));
                        StageResult::Status(Some(403))
                    } else {
                        logs.push(log(
                            "AH01631",
                            "authz_core",
                            LogLevel::Error,
                            format!(
                                "user {}: authorization failure for \"{}\": ",
                                self.user.unwrap_or(""),
                                self.req.uri
                            ),
                        ));
                        StageResult::Status(Some(if forbidden { 403 } else { 401 }))
                    }
                }
                AuthzStatus::GeneralError => StageResult::Status(Some(500)),
            };
            out.push(StageOut { result, deciding, logs });
        }
        out
    }

    // ---------------------------------------------------------------- authentication

    /// The check_user_id hooks (RUN_FIRST): mod_auth_basic / mod_auth_digest, then
    /// mod_authn_core's `authenticate_no_user`.
    fn authn_stage(&mut self) -> Vec<AuthnOut> {
        let at = self.authn.auth_type.clone();
        let at_loc = at.as_ref().map(|v| v.loc.clone());
        let d = |rule: String, loc: Option<Loc>| Deciding { layer: Layer::Authn, rule, loc };
        let status = |st: u16, rule: String, loc: Option<Loc>, logs: Vec<LogEntry>| AuthnOut {
            result: AuthnResult::Status(Some(st)),
            deciding: d(rule, loc),
            logs,
        };
        let unknown_out = |rule: String, loc: Option<Loc>| AuthnOut {
            result: AuthnResult::Status(None),
            deciding: d(rule, loc),
            logs: vec![],
        };
        let kind = self.authn.auth_type_kind();
        let (module, name) = match &kind {
            AuthTypeKind::None => {
                self.step(0, "authentication: no AuthType → no user", at_loc.as_ref());
                return vec![AuthnOut {
                    result: AuthnResult::NoUser,
                    deciding: d("no AuthType (authenticate_no_user)".into(), at_loc),
                    logs: vec![],
                }];
            }
            AuthTypeKind::Basic => ("auth_basic_module", "Basic"),
            AuthTypeKind::Digest => ("auth_digest_module", "Digest"),
            AuthTypeKind::Form => ("auth_form_module", "Form"),
            AuthTypeKind::Other(o) => {
                let r = format!("AuthType {o} needs a third-party module (or none handles it → 500 AH01796)");
                self.step(0, format!("authentication: {r}"), at_loc.as_ref());
                self.unknown(r.clone());
                return vec![unknown_out(r, at_loc)];
            }
            AuthTypeKind::Expr(e) => {
                let r = format!("AuthType {e} is an expression");
                self.step(0, format!("authentication: {r}"), at_loc.as_ref());
                self.unknown(r.clone());
                return vec![unknown_out(r, at_loc)];
            }
        };
        let raw = at.as_ref().map(|v| v.value.clone()).unwrap_or_default();
        if !self.ctx.modules.is_loaded(module) {
            self.step(0, format!("authentication: no module handles AuthType {raw} → 500 (AH01796)"), at_loc.as_ref());
            return vec![status(
                500,
                format!("AuthType {raw} configured without corresponding module"),
                at_loc,
                vec![log(
                    "AH01796",
                    "authn_core",
                    LogLevel::Error,
                    format!("AuthType {raw} configured without corresponding module"),
                )],
            )];
        }
        if name == "Form" {
            let r = "AuthType Form (mod_auth_form) is not modelled".to_string();
            self.step(0, format!("authentication: {r}"), at_loc.as_ref());
            self.unknown(r.clone());
            return vec![unknown_out(r, at_loc)];
        }
        let (module_log, need_name_code) =
            if name == "Basic" { ("auth_basic", "AH01615") } else { ("auth_digest", "AH01780") };
        if self.authn.auth_name.is_none() {
            self.step(
                0,
                format!("authentication: AuthType {name} without AuthName → 500 ({need_name_code})"),
                at_loc.as_ref(),
            );
            return vec![status(
                500,
                format!("AuthType {name} needs AuthName"),
                at_loc,
                vec![log(need_name_code, module_log, LogLevel::Error, format!("need AuthName: {}", self.req.uri))],
            )];
        }
        if self.req.user.is_none() && !self.req.bad_credentials {
            self.step(0, format!("authentication ({name}): no credentials sent → 401"), at_loc.as_ref());
            return vec![status(401, format!("AuthType {name}: credentials required"), at_loc, vec![])];
        }
        let providers = if name == "Basic" {
            self.authn.basic_providers.clone()
        } else {
            self.authn.digest.as_ref().and_then(|d| d.providers.clone())
        };
        if providers.is_none() && !self.ctx.modules.is_loaded("authn_file_module") {
            self.step(
                0,
                "authentication: no authn provider (default 'file' not loaded) → 500 (AH01616)",
                at_loc.as_ref(),
            );
            return vec![status(
                500,
                "no authn provider configured".into(),
                at_loc,
                vec![log("AH01616", module_log, LogLevel::Error, "No Authn provider configured")],
            )];
        }
        // mod_auth_basic asks the providers in turn while each answers "user not found"
        // (`authenticate_basic_user`); mod_authn_anon's answer follows from its settings.
        let mut list = providers.as_ref().map_or_else(|| vec!["file".to_string()], |p| p.value.clone());
        // A wrong credential may be a name mod_authn_anon knows with a password it refuses, or
        // (with no email check) one it takes.
        let mut anon_refuses = None;
        let mut anon_accepts = None;
        while name == "Basic" && list.first().is_some_and(|p| p == "anon") {
            list.remove(0);
            let Some(anon) = self.authn.anon.clone() else { continue };
            match self.req.user.clone() {
                Some(u) if anon.knows(&u) => {
                    let taken =
                        if anon.checks_password() { " (the password taken as one its email checks pass)" } else { "" };
                    self.step(
                        0,
                        format!("authentication ({name}): mod_authn_anon accepts {u}{taken}"),
                        Some(&anon.loc),
                    );
                    return vec![AuthnOut {
                        result: AuthnResult::User,
                        deciding: d(format!("authenticated as {u} by mod_authn_anon"), Some(anon.loc)),
                        logs: vec![],
                    }];
                }
                Some(u) => {
                    let text = format!("authentication ({name}): mod_authn_anon does not know {u}: the next provider");
                    self.step(0, text, Some(&anon.loc));
                }
                None if anon.checks_password() && anon.knows_some_name() => {
                    anon_refuses = Some(anon.loc);
                }
                // No email check: any password of a name it knows is taken, so are wrong ones.
                None if anon.any_user => {
                    self.step(
                        0,
                        format!(
                            "authentication ({name}): mod_authn_anon takes any name (Anonymous *) with any password \
                             (no email check): the wrong credentials authenticate, under the name sent"
                        ),
                        Some(&anon.loc),
                    );
                    return vec![AuthnOut {
                        result: AuthnResult::User,
                        deciding: d(
                            "authenticated by mod_authn_anon (Anonymous *, no email check)".into(),
                            Some(anon.loc),
                        ),
                        logs: vec![],
                    }];
                }
                None if anon.knows_some_name() => anon_accepts = Some(anon.loc),
                None => {}
            }
        }
        // A name it lists is taken whatever the password; another goes on to the next provider.
        let listed = anon_accepts.map(|loc| {
            self.unknown(
                "wrong credentials may be a name mod_authn_anon lists (taken with any password: no email check), \
                 or one it does not know, left to the next provider"
                    .to_string(),
            );
            AuthnOut {
                result: AuthnResult::User,
                deciding: d("authenticated by mod_authn_anon (a name it lists, no email check)".into(), Some(loc)),
                logs: vec![],
            }
        });
        if list.is_empty() {
            let who = self.req.user.clone().unwrap_or_default();
            self.step(
                0,
                format!("authentication ({name}): no provider knows the user → 401 (AH01618)"),
                at_loc.as_ref(),
            );
            let logs =
                vec![log("AH01618", module_log, LogLevel::Error, format!("user {who} not found: {}", self.req.uri))];
            let mut outs = vec![status(401, format!("AuthType {name}: no provider knows the user"), at_loc, logs)];
            outs.extend(listed);
            return outs;
        }
        let first = list.first().map(String::as_str);
        let mut outs = self.authn_provider(name, first, providers.map(|p| p.loc), at_loc.clone());
        if let Some(loc) = anon_refuses {
            if outs.iter().any(|o| !matches!(o.result, AuthnResult::Status(Some(401)))) {
                let r = "a wrong credential may be a name mod_authn_anon knows with a password its email checks \
                         refuse (401), or one it does not know, left to the next provider"
                    .to_string();
                self.unknown(r.clone());
                outs.push(status(401, r, Some(loc), vec![]));
            }
        }
        outs.extend(listed);
        outs
    }

    /// What the provider mod_auth_basic (or mod_auth_digest) settles on answers: mod_authn_file's
    /// errors where it is `file`, else the credentials as given (`--user`, `--wrong-password`).
    fn authn_provider(
        &mut self,
        name: &str,
        first: Option<&str>,
        providers_loc: Option<Loc>,
        at_loc: Option<Loc>,
    ) -> Vec<AuthnOut> {
        let d = |rule: String, loc: Option<Loc>| Deciding { layer: Layer::Authn, rule, loc };
        let status = |st: u16, rule: String, loc: Option<Loc>, logs: Vec<LogEntry>| AuthnOut {
            result: AuthnResult::Status(Some(st)),
            deciding: d(rule, loc),
            logs,
        };
        let no_file_code = if name == "Basic" { "AH01619" } else { "AH01621" };
        let first_is_file = first == Some("file");
        if first == Some("dbm") {
            // mod_authn_dbm opens its file for every password it checks (`fetch_dbm_value`).
            let file = self.authn.dbm_user_file.as_ref();
            let missing = match (file, &self.req.missing_dbm_user_file) {
                (None, _) => Some(("no AuthDBMUserFile is named".to_string(), "(null)".to_string())),
                (Some(f), Some(path)) => Some((format!("AuthDBMUserFile {} cannot be opened", f.value), path.clone())),
                (Some(_), None) => None,
            };
            if let Some((why, path)) = missing {
                self.step(
                    0,
                    format!("authentication: {why} → 500 (AH10285)"),
                    file.map(|f| &f.loc).or(at_loc.as_ref()),
                );
                let kind = self.authn.dbm_type.as_ref().map_or("default", |t| t.value.as_str()).to_string();
                return vec![status(
                    500,
                    why,
                    file.map(|f| f.loc.clone()).or(providers_loc).or(at_loc),
                    vec![log(
                        "AH10285",
                        "authn_dbm",
                        LogLevel::Error,
                        format!("could not open dbm (type {kind}) file: {path}"),
                    )],
                )];
            }
        }
        if first_is_file && self.authn.user_file.is_none() {
            self.step(
                0,
                format!("authentication: 'file' provider without AuthUserFile → 500 ({no_file_code})"),
                at_loc.as_ref(),
            );
            return vec![status(
                500,
                "AuthUserFile not specified".into(),
                providers_loc.or(at_loc),
                vec![log(
                    no_file_code,
                    "authn_file",
                    LogLevel::Error,
                    "AuthUserFile not specified in the configuration",
                )],
            )];
        }
        let missing = self.authn.user_file.as_ref().and_then(|f| Some((f, self.req.missing_user_files.get(&f.value)?)));
        if let (true, Some((file, path))) = (first_is_file, missing) {
            // mod_authn_file opens the file for every password it checks, right or wrong.
            self.step(
                0,
                format!("authentication: AuthUserFile {path} does not exist → 500 (AH01620)"),
                Some(&file.loc),
            );
            return vec![status(
                500,
                format!("AuthUserFile {} does not exist", file.value),
                Some(file.loc.clone()),
                vec![log("AH01620", "authn_file", LogLevel::Error, format!("Could not open password file: {path}"))],
            )];
        }
        let unlisted = self.req.unlisted_user_file.as_ref().zip(self.req.user.as_ref());
        if let (true, Some((path, u))) = (first_is_file, unlisted) {
            let file = self.authn.user_file.as_ref().map(|f| f.loc.clone());
            self.step(
                0,
                format!("authentication ({name}): {path} does not list the user {u} → 401 (AH01618)"),
                file.as_ref(),
            );
            return vec![status(
                401,
                format!("AuthUserFile {path} does not list {u}"),
                file,
                vec![log("AH01618", "auth_basic", LogLevel::Error, format!("user {u} not found: {}", self.req.uri))],
            )];
        }
        match &self.req.user {
            Some(u) => {
                self.step(0, format!("authentication ({name}): valid credentials for {u}"), at_loc.as_ref());
                vec![AuthnOut {
                    result: AuthnResult::User,
                    deciding: d(format!("authenticated as {u}"), at_loc),
                    logs: vec![],
                }]
            }
            None => {
                self.step(0, format!("authentication ({name}): wrong credentials → 401"), at_loc.as_ref());
                let logs = if name == "Basic" {
                    vec![log(
                        "AH01617",
                        "auth_basic",
                        LogLevel::Error,
                        format!("user: authentication failure for \"{}\": Password Mismatch (AH01618 if the user is unknown)", self.req.uri),
                    )]
                } else {
                    vec![]
                };
                vec![status(401, format!("AuthType {name}: wrong credentials"), at_loc, logs)]
            }
        }
    }
}

/// What [`evaluate`] answers when mod_access_compat's host check alone settles the request:
/// with Satisfy All (or unspecified) for its method, a host check that certainly fails is a 403
/// whatever Require and authentication say (`ap_process_request_internal` stops there). Returns
/// the rule deciding that 403, as [`evaluate`] names it; None when the host check passes, is not
/// known, or Satisfy Any lets Require decide (then only [`evaluate`] knows).
pub fn host_check_refusal(compat: &CompatConfig, req: &Request, ctx: &PolicyCtx) -> Option<Deciding> {
    let method = MethodId::resolve(&req.method, &ctx.registered_methods);
    if compat.satisfy_for(&method).0 == Satisfy::Any {
        return None;
    }
    let authn = AuthnConfig::default();
    let mut ev =
        Eval { req, ctx, authn: &authn, method, user: None, user_name_unknown: false, trace: vec![], reasons: vec![] };
    let mut host = ev.host_stage(Some(compat));
    match host.as_slice() {
        [(false, ..)] => host.pop().map(|(_, d, _)| d),
        _ => None,
    }
}

/// Evaluate one request against the effective configs (`compat`/`authz` None = no such config
/// in effect), following `ap_process_request_internal`.
pub fn evaluate(
    compat: Option<&CompatConfig>,
    authz: Option<&AuthzConfig>,
    authn: &AuthnConfig,
    req: &Request,
    ctx: &PolicyCtx,
) -> Outcome {
    let method = MethodId::resolve(&req.method, &ctx.registered_methods);
    let mut ev = Eval {
        req,
        ctx,
        authn,
        method: method.clone(),
        user: None,
        user_name_unknown: false,
        trace: vec![],
        reasons: vec![],
    };
    let (satisfy, sat_loc) = compat.map(|c| c.satisfy_for(&method)).unwrap_or((Satisfy::Unspecified, None));
    let any = satisfy == Satisfy::Any;
    ev.step(
        0,
        match satisfy {
            Satisfy::Any => format!("Satisfy Any for {method}: host check OR Require"),
            Satisfy::All => format!("Satisfy All for {method}: host check AND Require"),
            Satisfy::Unspecified => format!("Satisfy not specified for {method} (= All): host check AND Require"),
        },
        sat_loc,
    );
    let host = ev.host_stage(compat);
    let mut finals: Vec<Final> = vec![];
    let needs_authz = host.iter().any(|(ok, ..)| *ok != any);
    let userless = if needs_authz { ev.authz_stage(authz, false) } else { vec![] };
    let needs_authn = userless.iter().any(|u| matches!(u.result, StageResult::Declined));
    let authn_outs = if needs_authn { ev.authn_stage() } else { vec![] };
    let needs_user_pass = authn_outs.iter().any(|a| matches!(a.result, AuthnResult::User));
    let with_user = if needs_user_pass {
        ev.user = req.user.as_deref();
        if ev.user.is_none() {
            // Wrong credentials mod_authn_anon took: a user, under the name sent.
            ev.user = Some("");
            ev.user_name_unknown = true;
        }
        ev.authz_stage(authz, true)
    } else {
        vec![]
    };
    for (ok, deciding, logs) in &host {
        if *ok && any {
            let mut d = deciding.clone();
            d.rule = format!("{} (Satisfy Any: Require is not consulted)", d.rule);
            finals.push(Final { status: Some(200), deciding: d, logs: logs.clone() });
            continue;
        }
        if !*ok && !any {
            finals.push(Final { status: Some(403), deciding: deciding.clone(), logs: logs.clone() });
            continue;
        }
        for u in &userless {
            let mut l1 = logs.clone();
            l1.extend(u.logs.iter().cloned());
            match u.result {
                StageResult::Ok => finals.push(Final { status: Some(200), deciding: u.deciding.clone(), logs: l1 }),
                StageResult::Status(s) => finals.push(Final { status: s, deciding: u.deciding.clone(), logs: l1 }),
                StageResult::Declined => {
                    for a in &authn_outs {
                        let mut l2 = l1.clone();
                        l2.extend(a.logs.iter().cloned());
                        match a.result {
                            AuthnResult::Status(s) => {
                                finals.push(Final { status: s, deciding: a.deciding.clone(), logs: l2 })
                            }
                            AuthnResult::NoUser => {
                                let code = if any { "AH00028" } else { "AH00027" };
                                l2.push(log(
                                    code,
                                    "core",
                                    LogLevel::Error,
                                    format!(
                                        "No authentication done but request not allowed without authentication for {}. Authentication not configured?",
                                        req.uri
                                    ),
                                ));
                                finals.push(Final {
                                    status: Some(500),
                                    deciding: Deciding {
                                        layer: Layer::Core,
                                        rule: format!("{} needs a user but no AuthType is in effect", u.deciding.rule),
                                        loc: u.deciding.loc.clone(),
                                    },
                                    logs: l2,
                                });
                            }
                            AuthnResult::User => {
                                for w in &with_user {
                                    let mut l3 = l2.clone();
                                    l3.extend(w.logs.iter().cloned());
                                    let status = match w.result {
                                        StageResult::Ok => Some(200),
                                        StageResult::Status(s) => s,
                                        StageResult::Declined => Some(500),
                                    };
                                    finals.push(Final { status, deciding: w.deciding.clone(), logs: l3 });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let mut possible: Vec<u16> = finals.iter().filter_map(|f| f.status).collect();
    possible.sort_unstable();
    possible.dedup();
    let determinate = finals.iter().all(|f| f.status.is_some()) && possible.len() == 1;
    let trace = std::mem::take(&mut ev.trace);
    if determinate {
        let f = finals.into_iter().next().expect("at least one outcome");
        Outcome {
            status: f.status,
            reason_unknown: None,
            possible_statuses: possible,
            deciding: Some(f.deciding),
            trace,
            log: f.logs,
        }
    } else {
        Outcome {
            status: None,
            reason_unknown: Some(ev.reasons.join("; ")),
            possible_statuses: possible,
            deciding: None,
            trace,
            log: vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::policy::items::test_util::items;
    use crate::ide::policy::{section_from_items, EffectivePolicy, ModuleSet, SectionPolicy};
    use expect_test::expect;

    fn ctx() -> PolicyCtx {
        PolicyCtx::default()
    }

    fn sec(src: &str) -> SectionPolicy {
        let s = section_from_items(&items(src), &ctx());
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        s
    }

    /// Each inner slice is one walk phase (Directory, Files, Location, If) in walk order.
    fn phases(ph: &[&[&str]]) -> EffectivePolicy {
        let mut e = EffectivePolicy::server_default();
        for p in ph {
            let secs: Vec<SectionPolicy> = p.iter().map(|s| sec(s)).collect();
            let refs: Vec<&SectionPolicy> = secs.iter().collect();
            e = e.apply_phase(&refs);
        }
        e
    }

    /// Sections in successive phases (one section per phase).
    fn chain(srcs: &[&str]) -> EffectivePolicy {
        let mut e = EffectivePolicy::server_default();
        for s in srcs {
            e = e.apply_phase(&[&sec(s)]);
        }
        e
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn req(method: &str, client: &str) -> Request {
        Request::new(method, ip(client), ip("10.255.255.1"))
    }

    fn get(client: &str) -> Request {
        req("GET", client)
    }

    fn with_user(mut r: Request, u: &str) -> Request {
        r.user = Some(u.into());
        r
    }

    fn with_bad(mut r: Request) -> Request {
        r.bad_credentials = true;
        r
    }

    fn st(e: &EffectivePolicy, r: &Request) -> Option<u16> {
        e.evaluate(r, &ctx()).status
    }

    fn codes(o: &Outcome) -> Vec<&'static str> {
        o.log.iter().map(|l| l.ah_code).collect()
    }

    const BASIC: &str = "AuthType Basic\nAuthName realm\nAuthUserFile /etc/pw\n";

    /// The host check alone ([`host_check_refusal`]) names a refusal only where [`evaluate`]
    /// answers 403 with the same deciding rule, whatever Require and authentication say:
    /// Satisfy All/Any (per `<Limit>` mask), every Order, hosts, env= rules, <Limit> lists.
    #[test]
    fn host_check_refusal_agrees_with_the_whole_evaluation() {
        let compats = [
            "Order deny,allow\nDeny from all",
            "Order allow,deny\nAllow from 127.0.0.1",
            "Order allow,deny\nAllow from all\nDeny from 127.0.0.2",
            "Order mutual-failure\nAllow from 127.0.0.0/8\nDeny from 127.0.0.2",
            "Order deny,allow\nDeny from all\nSatisfy Any",
            "Order deny,allow\nDeny from all\n<Limit POST>\nSatisfy Any\n</Limit>",
            "<Limit POST>\nOrder allow,deny\n</Limit>",
            "<LimitExcept GET>\nDeny from all\n</LimitExcept>",
            "Order deny,allow\nDeny from all\nAllow from env=ok",
            "Order allow,deny\nAllow from example.com",
            "Satisfy All",
        ];
        let authzs =
            ["", "Require all granted", "Require all denied", "Require local", &format!("{BASIC}Require valid-user")];
        let mut refused = 0;
        for c in compats {
            for a in authzs {
                let e = chain(&[c, a]);
                let compat = e.compat.as_ref().expect("rules in effect");
                for method in ["GET", "POST", "DELETE"] {
                    for client in ["127.0.0.1", "127.0.0.2", "192.0.2.1"] {
                        for user in [None, Some("alice")] {
                            let mut r = req(method, client);
                            r.user = user.map(str::to_string);
                            let whole = e.evaluate(&r, &ctx());
                            if let Some(d) = host_check_refusal(compat, &r, &ctx()) {
                                refused += 1;
                                assert_eq!(whole.status, Some(403), "{c:?} {a:?} {method} {client}");
                                assert_eq!(whole.deciding.as_ref(), Some(&d), "{c:?} {a:?} {method} {client}");
                            } else if whole.status == Some(403)
                                && whole.deciding.as_ref().is_some_and(|d| d.layer == Layer::AccessCompat)
                            {
                                // Left to the whole evaluation only where Satisfy Any lets Require decide, or
                                // the host check's answer is not known (env=, host names).
                                let m = MethodId::resolve(method, &ctx().registered_methods);
                                assert!(
                                    compat.satisfy_for(&m).0 == Satisfy::Any
                                        || c.contains("env=")
                                        || c.contains(".com"),
                                    "{c:?} {a:?} {method} {client}"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(refused > 100, "{refused}");
    }

    // ---------------------------------------------------------------- §2 access_compat

    #[test]
    fn no_access_directives_anywhere_grants() {
        assert_eq!(st(&chain(&[]), &get("192.0.2.2")), Some(200));
    }

    #[test]
    fn deny_allow_allow_overrides_deny_default_allow() {
        let e = chain(&["Order deny,allow\nDeny from all\nAllow from 127.0.0.1"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
        let e = chain(&["Order deny,allow"]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(200));
    }

    #[test]
    fn allow_deny_order_deny_all_has_last_word() {
        let e = chain(&["Order allow,deny\nDeny from all\nAllow from 127.0.0.1"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(403));
        let e = chain(&["Order allow,deny\nAllow from all\nDeny from 127.0.0.2"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
    }

    #[test]
    fn allow_deny_with_nothing_configured_denies() {
        let e = chain(&["Order allow,deny"]);
        let o = e.evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!(o.status, Some(403));
        assert_eq!(codes(&o), vec!["AH01797"]);
        assert_eq!(o.deciding.unwrap().layer, Layer::AccessCompat);
    }

    #[test]
    fn mutual_failure_is_allow_deny() {
        let e = chain(&["Order mutual-failure\nAllow from 127.0.0.0/8\nDeny from 127.0.0.2"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
        assert_eq!(st(&e, &get("192.0.2.2")), Some(403));
    }

    #[test]
    fn child_with_only_allow_gets_fresh_default_and_allows_everyone() {
        // mg01
        let e = chain(&["Deny from all", "Allow from 127.0.0.1"]);
        assert_eq!(st(&e, &get("192.0.2.2")), Some(200));
    }

    #[test]
    fn child_lists_replace_parent_lists() {
        // mg02
        let e = chain(&["Order allow,deny\nAllow from 127.0.0.1 127.0.0.2", "Deny from 127.0.0.2"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.1.2.3")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
    }

    #[test]
    fn child_with_only_satisfy_or_limited_deny_resets_host_check() {
        // mg03, mg05
        assert_eq!(st(&chain(&["Deny from all", "Satisfy All"]), &get("192.0.2.2")), Some(200));
        let e = chain(&["Deny from all", "<Limit POST>\nDeny from all\n</Limit>"]);
        assert_eq!(st(&e, &get("192.0.2.2")), Some(200));
        assert_eq!(st(&e, &req("POST", "192.0.2.2")), Some(403));
    }

    #[test]
    fn require_only_child_keeps_parent_deny() {
        // mg04
        let o = chain(&["Deny from all", "Require all granted"]).evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!(o.status, Some(403));
        assert_eq!(codes(&o), vec!["AH01797"]);
    }

    #[test]
    fn head_counts_as_get_and_limit_except_get_excludes_head() {
        let e = chain(&["<LimitExcept GET>\nOrder allow,deny\n</LimitExcept>"]);
        assert_eq!(st(&e, &req("HEAD", "127.0.0.1")), Some(200));
        assert_eq!(st(&e, &req("GET", "127.0.0.1")), Some(200));
        assert_eq!(st(&e, &req("PUT", "127.0.0.1")), Some(403));
        // an unregistered method is M_INVALID, which <LimitExcept> covers
        assert_eq!(st(&e, &req("BREW", "127.0.0.1")), Some(403));
    }

    #[test]
    fn per_method_order_inside_limit() {
        // lim01/lim02
        let e = chain(&["<Limit GET>\nOrder allow,deny\nAllow from 127.0.0.1\n</Limit>\nAllow from 127.0.0.2"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(200));
        assert_eq!(st(&e, &get("127.1.2.3")), Some(403));
        assert_eq!(st(&e, &req("POST", "127.1.2.3")), Some(200));
    }

    #[test]
    fn allow_env_entries() {
        let e = chain(&["Order allow,deny\nAllow from env=is_two"]);
        let mut r = get("127.0.0.1");
        r.env = EnvKnowledge::with_set([("IS_TWO", "")]);
        assert_eq!(st(&e, &r), Some(200));
        assert_eq!(st(&e, &get("127.0.0.1")), Some(403));
        let e = chain(&["Order allow,deny\nAllow from env=!skip"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        r.env = EnvKnowledge::with_set([("skip", "1")]);
        assert_eq!(st(&e, &r), Some(403));
    }

    #[test]
    fn allow_host_name_needs_double_reverse_name() {
        let e = chain(&["Order allow,deny\nAllow from example.test"]);
        let mut r = get("127.0.0.2");
        r.client_host = HostKnowledge::Known("a.example.test".into());
        assert_eq!(st(&e, &r), Some(200));
        r.client_host = HostKnowledge::Known("a.nogoodexample.test".into());
        assert_eq!(st(&e, &r), Some(403));
        r.client_host = HostKnowledge::NoName;
        assert_eq!(st(&e, &r), Some(403));
        r.client_host = HostKnowledge::Unknown;
        let o = e.evaluate(&r, &ctx());
        assert_eq!(o.status, None);
        assert_eq!(o.possible_statuses, vec![200, 403]);
        assert!(o.reason_unknown.unwrap().contains("host name"));
    }

    #[test]
    fn unknown_host_that_does_not_matter_keeps_status_known() {
        // deny,allow with only Allow entries: allowed whatever the Allow entries say.
        let e = chain(&["Order deny,allow\nAllow from example.test"]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(200));
        // A definite match before/after an unknown entry decides.
        let e = chain(&["Order allow,deny\nAllow from example.test 127.0.0.2"]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(200));
    }

    #[test]
    fn ipv4_entry_matches_ipv4_mapped_client() {
        let e = chain(&["Order allow,deny\nAllow from 127.0.0.1"]);
        assert_eq!(st(&e, &get("::ffff:127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("::1")), Some(403));
    }

    // ---------------------------------------------------------------- §3 authz_core

    #[test]
    fn require_lines_in_a_section_are_ored() {
        let e = chain(&["Require ip 127.0.0.1\nRequire ip 127.0.0.2"]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(200));
        let o = e.evaluate(&get("127.1.2.3"), &ctx());
        assert_eq!(o.status, Some(403));
        assert_eq!(codes(&o), vec!["AH01630"]);
    }

    #[test]
    fn require_only_inside_limit_post_places_no_restriction_on_get() {
        // lm10
        let e = chain(&[&format!("{BASIC}<Limit POST>\nRequire valid-user\n</Limit>")]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &req("POST", "127.0.0.1")), Some(401));
    }

    #[test]
    fn limited_node_is_neutral_under_or_parent() {
        // lm12: <Limit POST> Require all denied </Limit> + Require ip X: X can still POST.
        let e = chain(&["<Limit POST>\nRequire all denied\n</Limit>\nRequire ip 127.0.0.1"]);
        assert_eq!(st(&e, &req("POST", "127.0.0.1")), Some(200));
        assert_eq!(st(&e, &req("POST", "127.0.0.2")), Some(403));
        // A GET-only grant is neutral for POST in the implicit RequireAny.
        let e = chain(&["Require all denied\n<Limit GET>\nRequire all granted\n</Limit>"]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(200));
        assert_eq!(st(&e, &req("POST", "127.0.0.2")), Some(403));
    }

    #[test]
    fn limited_node_is_granted_under_and_parent() {
        let e =
            chain(&["<RequireAll>\nRequire ip 127.0.0.1\n<Limit POST>\nRequire all denied\n</Limit>\n</RequireAll>"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &req("POST", "127.0.0.1")), Some(403));
    }

    #[test]
    fn userless_pass_decides_first_wrong_password_from_allowed_ip_gets_200() {
        // au06
        let e = chain(&[&format!("{BASIC}Require ip 127.0.0.1\nRequire valid-user")]);
        assert_eq!(st(&e, &with_bad(get("127.0.0.1"))), Some(200));
        assert_eq!(st(&e, &with_bad(get("127.0.0.2"))), Some(401));
        assert_eq!(st(&e, &with_user(get("127.0.0.2"), "alice")), Some(200));
    }

    #[test]
    fn require_not_user_never_triggers_authentication() {
        // neg01
        let e = chain(&[&format!("{BASIC}<RequireAll>\nRequire ip 127.0.0.0/8\nRequire not user bob\n</RequireAll>")]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "bob")), Some(200));
    }

    #[test]
    fn require_none_denies_when_a_child_grants() {
        let e = chain(&[
            "<RequireAll>\nRequire all granted\n<RequireNone>\nRequire ip 127.0.0.2\n</RequireNone>\n</RequireAll>",
        ]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
    }

    #[test]
    fn no_require_and_no_auth_type_grants_but_auth_type_without_require_is_500() {
        assert_eq!(st(&chain(&["Require all denied", "AuthMerging Off"]), &get("127.0.0.1")), Some(200));
        // au04
        let o = chain(&[BASIC]).evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!(o.status, Some(500));
        assert_eq!(codes(&o), vec!["AH01627"]);
        assert_eq!(st(&chain(&["AuthType None"]), &get("127.0.0.1")), Some(200));
    }

    #[test]
    fn basic_auth_missing_or_wrong_credentials_is_401() {
        // au01
        let e = chain(&[&format!("{BASIC}Require valid-user")]);
        let o = e.evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!(o.status, Some(401));
        assert_eq!(o.deciding.unwrap().layer, Layer::Authn);
        let o = e.evaluate(&with_bad(get("127.0.0.1")), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(401), vec!["AH01617"]));
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "alice")), Some(200));
    }

    #[test]
    fn anonymous_names_are_accepted_or_left_to_the_next_provider() {
        let anon = "AuthType Basic\nAuthName realm\nAuthBasicProvider anon\nAnonymous guest\nRequire valid-user";
        let e = chain(&[anon]);
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "GUEST")), Some(200));
        let o = e.evaluate(&with_user(get("127.0.0.1"), "alice"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(401), vec!["AH01618"]));
        // A section with any Anonymous line starts from the module's defaults: no names.
        let e = chain(&[anon, "Anonymous_VerifyEmail On"]);
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "guest")), Some(401));
        // Unknown to anon, the next provider decides (the file's user is taken as valid).
        let both = "AuthType Basic\nAuthName realm\nAuthBasicProvider anon file\nAuthUserFile /pw\nAnonymous guest\nRequire valid-user";
        let e = chain(&[both]);
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "alice")), Some(200));
        assert_eq!(st(&e, &with_bad(get("127.0.0.1"))), Some(401));
        // A wrong credential may be refused by anon's email check (401) or by a missing file (500).
        let mut r = with_bad(get("127.0.0.1"));
        r.missing_user_files.insert("/pw".into(), "/pw".into());
        let o = e.evaluate(&r, &ctx());
        assert_eq!((o.status, o.possible_statuses), (None, vec![401, 500]));
    }

    #[test]
    fn wrong_credentials_mod_authn_anon_takes_without_an_email_check() {
        let open = "AuthType Basic\nAuthName realm\nAuthBasicProvider anon\nAnonymous *\nAnonymous_MustGiveEmail Off\n";
        // Any name, any password: a user, whose name is not told.
        assert_eq!(st(&chain(&[&format!("{open}Require valid-user")]), &with_bad(get("127.0.0.1"))), Some(200));
        let o = chain(&[&format!("{open}Require user bob")]).evaluate(&with_bad(get("127.0.0.1")), &ctx());
        assert_eq!((o.status, o.possible_statuses), (None, vec![200, 401]));
        // The email check on: the wrong credentials are refused.
        let checked = open.replace("Off", "On");
        assert_eq!(st(&chain(&[&format!("{checked}Require valid-user")]), &with_bad(get("127.0.0.1"))), Some(401));
        // A list of names: the credentials may be a listed name (taken) or another (refused).
        let listed = "AuthType Basic\nAuthName realm\nAuthBasicProvider anon\nAnonymous guest\nAnonymous_MustGiveEmail Off\nRequire valid-user";
        let o = chain(&[listed]).evaluate(&with_bad(get("127.0.0.1")), &ctx());
        assert_eq!((o.status, o.possible_statuses), (None, vec![200, 401]));
    }

    #[test]
    fn authenticated_user_failing_require_user_gets_401_or_403_with_forbidden_on_failure() {
        // au02, au03
        let e = chain(&[&format!("{BASIC}Require user alice")]);
        let o = e.evaluate(&with_user(get("127.0.0.1"), "bob"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(401), vec!["AH01631"]));
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "alice")), Some(200));
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "Alice")), Some(401), "user names are case-sensitive");
        let e = chain(&[&format!("{BASIC}Require user alice\nAuthzSendForbiddenOnFailure On")]);
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "bob")), Some(403));
    }

    #[test]
    fn requiring_a_user_without_auth_type_is_500_ah00027() {
        // au05
        let o = chain(&["Require valid-user"]).evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(500), vec!["AH00027"]));
        assert_eq!(o.deciding.unwrap().layer, Layer::Core);
        let o = chain(&["AuthType None\nRequire valid-user"]).evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!(o.status, Some(500));
    }

    #[test]
    fn require_all_of_host_and_user_403_without_prompt_when_host_fails() {
        // au07, au09
        let e = chain(&[&format!(
            "{BASIC}AuthzSendForbiddenOnFailure On\n<RequireAll>\nRequire ip 127.0.0.1\nRequire valid-user\n</RequireAll>"
        )]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
        assert_eq!(st(&e, &get("127.0.0.1")), Some(401));
        assert_eq!(st(&e, &with_user(get("127.0.0.1"), "alice")), Some(200));
    }

    #[test]
    fn basic_auth_needs_auth_name_and_user_file() {
        let e = chain(&["AuthType Basic\nAuthUserFile /p\nRequire valid-user"]);
        let o = e.evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(500), vec!["AH01615"]));
        let e = chain(&["AuthType Basic\nAuthName r\nRequire valid-user"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(401));
        let o = e.evaluate(&with_user(get("127.0.0.1"), "alice"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(500), vec!["AH01619"]));
    }

    #[test]
    fn auth_type_without_its_module_is_500_ah01796() {
        let c = PolicyCtx { modules: ModuleSet::only(["authz_user_module", "authn_file_module"]), ..ctx() };
        let e = chain(&[&format!("{BASIC}Require valid-user")]);
        let o = e.evaluate(&get("127.0.0.1"), &c);
        assert_eq!((o.status, codes(&o)), (Some(500), vec!["AH01796"]));
    }

    #[test]
    fn explicit_authmerging_off_without_require_grants() {
        // am06
        let e = chain(&["Require all denied", "AuthMerging Off"]);
        assert_eq!(st(&e, &get("192.0.2.2")), Some(200));
    }

    #[test]
    fn authmerging_default_replaces_and_and_or_combine() {
        // am01, am02, am03, am05
        assert_eq!(st(&chain(&["Require all denied", "Require ip 127.0.0.1"]), &get("127.0.0.1")), Some(200));
        let e = chain(&["Require ip 127.0.0.0/8", "AuthMerging And\nRequire ip 127.0.0.2 192.0.2.2"]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(200));
        assert_eq!(st(&e, &get("192.0.2.2")), Some(403));
        let e = chain(&["Require ip 127.0.0.1", "AuthMerging Or\nRequire ip 192.0.2.2"]);
        assert_eq!(st(&e, &get("192.0.2.2")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
        let e = chain(&["Require ip 127.0.0.1", "AuthMerging And"]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
    }

    #[test]
    fn location_phase_last_authmerging_controls_fold() {
        // am07: Directory Require all denied; Location /sub Require all granted;
        // Location /sub/index.html AuthMerging And + Require ip 127.0.0.1 → 403 for everyone.
        let e = phases(&[&["Require all denied"], &["Require all granted", "AuthMerging And\nRequire ip 127.0.0.1"]]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(403));
        // The "nearest predecessor" reading (each section merged one by one) would give 200.
        let naive = chain(&["Require all denied", "Require all granted", "AuthMerging And\nRequire ip 127.0.0.1"]);
        assert_eq!(st(&naive, &get("127.0.0.1")), Some(200));
        // am07b baseline without AuthMerging.
        let e = phases(&[&["Require all denied"], &["Require all granted", "Require ip 127.0.0.1"]]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        // am08: explicit Off first, AuthMerging And without Require second.
        let e = phases(&[&["Require all denied"], &["AuthMerging Off\nRequire all granted", "AuthMerging And"]]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(403));
    }

    #[test]
    fn require_env_method_and_providers() {
        let e = chain(&["Require env A B"]);
        let mut r = get("127.0.0.1");
        r.env = EnvKnowledge::with_set([("b", "")]);
        assert_eq!(st(&e, &r), Some(200));
        assert_eq!(st(&e, &get("127.0.0.1")), Some(403));
        assert_eq!(st(&chain(&["Require env"]), &r), Some(403));
        let e = chain(&["Require method GET POST"]);
        assert_eq!(st(&e, &req("HEAD", "127.0.0.1")), Some(200));
        assert_eq!(st(&e, &req("PUT", "127.0.0.1")), Some(403));
    }

    #[test]
    fn require_ip_forms_and_ipv6() {
        // rip01
        let e = chain(&["Require ip 127.1 127.0.0.2/255.255.255.255 fd00::/64"]);
        assert_eq!(st(&e, &get("127.1.2.3")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(200));
        assert_eq!(st(&e, &get("fd00::2")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.1")), Some(403));
        assert_eq!(st(&e, &get("::1")), Some(403));
    }

    #[test]
    fn require_local_checks_loopback_or_connection_local_address() {
        // loc01
        let e = chain(&["Require local"]);
        let conn = |c: &str, l: &str| Request::new("GET", ip(c), ip(l));
        assert_eq!(st(&e, &conn("192.0.2.2", "192.0.2.2")), Some(200));
        assert_eq!(st(&e, &conn("192.0.2.2", "127.0.0.1")), Some(403));
        assert_eq!(st(&e, &conn("fd00::2", "fd00::2")), Some(200));
        assert_eq!(st(&e, &conn("fd00::2", "::1")), Some(403));
        assert_eq!(st(&e, &conn("::1", "fd00::2")), Some(200));
        assert_eq!(st(&e, &conn("127.1.2.3", "192.0.2.2")), Some(200));
        assert_eq!(st(&e, &conn("::ffff:192.0.2.2", "192.0.2.2")), Some(200));
    }

    #[test]
    fn require_host_without_verified_name_denies_and_logs_ah01753() {
        let e = chain(&["Require host example.test"]);
        let mut r = get("127.0.0.2");
        r.client_host = HostKnowledge::NoName;
        let o = e.evaluate(&r, &ctx());
        assert_eq!((o.status, codes(&o)), (Some(403), vec!["AH01753", "AH01630"]));
        r.client_host = HostKnowledge::Known("b.sub.example.test".into());
        assert_eq!(st(&e, &r), Some(200));
        let e = chain(&["Require host localhost # later example.test"]);
        r.client_host = HostKnowledge::Known("a.example.test".into());
        let o = e.evaluate(&r, &ctx());
        assert_eq!((o.status, codes(&o)), (Some(403), vec!["AH10121", "AH01630"]));
    }

    #[test]
    fn require_forward_dns_uses_given_answers() {
        let e = chain(&["Require forward-dns vm"]);
        let mut r = get("127.0.0.1");
        assert_eq!(st(&e, &r), None);
        r.forward_dns.insert("vm".into(), vec![ip("127.0.0.1")]);
        assert_eq!(st(&e, &r), Some(200));
    }

    #[test]
    fn require_group_needs_group_file_and_knowledge() {
        let e = chain(&[&format!("{BASIC}Require group admins")]);
        // grp04: no AuthGroupFile → every authenticated user 401.
        let o = e.evaluate(&with_user(get("127.0.0.1"), "alice"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(401), vec!["AH01664", "AH01631"]));
        assert_eq!(st(&e, &get("127.0.0.1")), Some(401));
        let e = chain(&[&format!("{BASIC}AuthGroupFile /g\nRequire group Admins")]);
        let mut r = with_user(get("127.0.0.1"), "alice");
        assert_eq!(st(&e, &r), None, "group file contents unknown");
        r.groups = Some([("alice".to_string(), ["admins".to_string()].into())].into());
        assert_eq!(st(&e, &r), Some(200));
        let r = with_user(r, "bob");
        assert_eq!(st(&e, &r), Some(401));
    }

    // ---------------------------------------------------------------- unknowns

    #[test]
    fn granted_sibling_evaluated_earlier_short_circuits_unknown_expr() {
        let e = chain(&["Require ip 127.0.0.1\nRequire expr %{HTTP_HOST} == 'x'"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        let o = e.evaluate(&get("127.0.0.2"), &ctx());
        assert_eq!(o.status, None);
        assert_eq!(o.possible_statuses, vec![200, 403, 500]);
        assert!(o.reason_unknown.unwrap().contains("Require expr"));
    }

    #[test]
    fn denied_sibling_in_require_all_short_circuits_unknowns() {
        let e = chain(&["<RequireAll>\nRequire ip 127.0.0.1\nRequire ldap-group cn=x\n</RequireAll>"]);
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
        assert_eq!(st(&e, &get("127.0.0.1")), None);
    }

    #[test]
    fn unknown_env_var_matters_only_when_reached() {
        let e = chain(&["Require env X"]);
        let mut r = get("127.0.0.1");
        r.env = EnvKnowledge::unknown();
        let o = e.evaluate(&r, &ctx());
        assert_eq!(o.status, None);
        assert!(o.reason_unknown.unwrap().contains("environment variable X"));
        let e = chain(&["Require all granted\nRequire env X"]);
        assert_eq!(st(&e, &r), Some(200));
    }

    // ---------------------------------------------------------------- §5.3 Satisfy

    #[test]
    fn satisfy_all_both_layers_must_pass() {
        // sat03, sat05
        let e = chain(&["Order allow,deny\nAllow from 127.0.0.1\nRequire ip 127.0.0.0/8"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(403));
        let o = chain(&["Order allow,deny\nAllow from all\nRequire ip 10.0.0.1"]).evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(403), vec!["AH01630"]));
    }

    #[test]
    fn satisfy_any_ignores_require_all_denied_when_host_passes() {
        // sat04, sat06
        let e = chain(&["Order allow,deny\nAllow from 127.0.0.1\nSatisfy Any\nRequire all denied"]);
        let o = e.evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!(o.status, Some(200));
        assert_eq!(o.deciding.unwrap().layer, Layer::AccessCompat);
        let o = e.evaluate(&get("127.0.0.2"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(403), vec!["AH01797", "AH01630"]));
    }

    #[test]
    fn satisfy_any_without_require_grants_everyone() {
        // sat09
        let e = chain(&["Order deny,allow\nDeny from all\nSatisfy Any"]);
        let o = e.evaluate(&get("192.0.2.2"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(200), vec!["AH01797"]));
        // sat10: with an AuthType → 500
        let e = chain(&[&format!("{BASIC}Order deny,allow\nDeny from all\nSatisfy Any")]);
        let o = e.evaluate(&get("192.0.2.2"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(500), vec!["AH01797", "AH01627"]));
    }

    #[test]
    fn satisfy_any_with_no_deny_rules_never_asks_for_a_password() {
        // sat01, sat07
        let e = chain(&[&format!("{BASIC}Require valid-user\nAllow from 192.168.1\nSatisfy Any")]);
        assert_eq!(st(&e, &get("192.0.2.2")), Some(200));
    }

    #[test]
    fn satisfy_any_falls_back_to_authentication_when_host_fails() {
        let e = chain(&[&format!("{BASIC}Order allow,deny\nAllow from 127.0.0.1\nSatisfy Any\nRequire valid-user")]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.2")), Some(401));
        let o = e.evaluate(&with_user(get("127.0.0.2"), "alice"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(200), vec!["AH01797"]));
        let e = chain(&["Order allow,deny\nSatisfy Any\nRequire valid-user"]);
        let o = e.evaluate(&get("127.0.0.2"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(500), vec!["AH01797", "AH00028"]));
    }

    #[test]
    fn satisfy_is_per_method_and_reset_by_child_compat_config() {
        let e = chain(&["<Limit POST>\nSatisfy Any\n</Limit>\nOrder allow,deny\nRequire all granted"]);
        assert_eq!(st(&e, &req("POST", "127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("127.0.0.1")), Some(403));
        let e = chain(&["Satisfy Any\nRequire all denied", "Order deny,allow"]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(403));
    }

    // ---------------------------------------------------------------- §5.4 examples

    #[test]
    fn mixed_example_1_inherited_deny_from_directory_wins_over_location_require() {
        // q5a: <Directory /> Deny from all + <Location /server-status> Require local
        let e = phases(&[&["Order deny,allow\nDeny from all"], &["Require local"]]);
        let o = e.evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(403), vec!["AH01797"]));
        // q5e: reset the compat layer in the Location
        let e = phases(&[&["Order deny,allow\nDeny from all"], &["Order allow,deny\nAllow from all\nRequire local"]]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("192.0.2.2")), Some(403));
        // q5d: Satisfy Any opens it to everyone
        let e = phases(&[&["Order deny,allow\nDeny from all"], &["Satisfy Any\nRequire local"]]);
        assert_eq!(st(&e, &get("192.0.2.2")), Some(200));
    }

    #[test]
    fn mixed_example_2_inherited_require_all_denied() {
        // q5b
        let loc = "Order deny,allow\nDeny from all\nAllow from 127.0.0.1";
        let e = phases(&[&["Require all denied"], &[loc]]);
        let o = e.evaluate(&get("127.0.0.1"), &ctx());
        assert_eq!((o.status, codes(&o)), (Some(403), vec!["AH01630"]));
        // q5c: DocumentRoot grant in the Directory phase
        let e = phases(&[&["Require all denied", "Require all granted"], &[loc]]);
        assert_eq!(st(&e, &get("127.0.0.1")), Some(200));
        assert_eq!(st(&e, &get("192.0.2.2")), Some(403));
    }

    /// check_dir_access reads Deny first under deny,allow, Allow first under allow,deny, and
    /// under mutual-failure the Deny lines only once an Allow matched.
    #[test]
    fn host_check_trace_follows_each_order() {
        let lines = "Allow from 127.0.0.1\nDeny from 127.0.0.0/8\n";
        let trace = |order: &str, client: &str| {
            let o = chain(&[&format!("Order {order}\n{lines}")]).evaluate(&get(client), &ctx());
            o.render()
        };
        expect![[r#"
            status: 200
            deciding: AuthzCore: no Require in effect: granted (no directives)
            trace:
              Satisfy not specified for GET (= All): host check AND Require
              access_compat: Order deny,allow for GET (line 1)
                  Deny from 127.0.0.0/8: matches (line 3)
                  Allow from 127.0.0.1: matches (line 2)
                host check passes
              authz_core (userless): no Require in effect → granted (no directives)
        "#]]
        .assert_eq(&trace("deny,allow", "127.0.0.1"));
        expect![[r#"
            status: 403
            deciding: AccessCompat: Deny from 127.0.0.0/8 (Order allow,deny: Deny has the last word) (line 3)
            log: [access_compat:Error] AH01797: client denied by server configuration: /
            trace:
              Satisfy not specified for GET (= All): host check AND Require
              access_compat: Order allow,deny for GET (line 1)
                  Allow from 127.0.0.1: matches (line 2)
                  Deny from 127.0.0.0/8: matches (line 3)
                host check fails (403, AH01797)
        "#]]
        .assert_eq(&trace("allow,deny", "127.0.0.1"));
        expect![[r#"
            status: 403
            deciding: AccessCompat: Order mutual-failure: no Allow matches (default deny) (line 1)
            log: [access_compat:Error] AH01797: client denied by server configuration: /
            trace:
              Satisfy not specified for GET (= All): host check AND Require
              access_compat: Order mutual-failure for GET (line 1)
                  Allow from 127.0.0.1: does not match (line 2)
                  Deny lines not read: no Allow matched
                host check fails (403, AH01797)
        "#]]
        .assert_eq(&trace("mutual-failure", "127.0.0.2"));
    }

    /// When several Require lines decide together (every one granted under AuthMerging And or
    /// a RequireAll, every one denied under AuthMerging Or or the implicit RequireAny), the
    /// deciding rule names each of them with its place, and the container's own line; one line
    /// deciding alone is named alone.
    #[test]
    fn rules_deciding_together_are_each_named_with_their_place() {
        let deciding = |e: &EffectivePolicy, client: &str| {
            let o = e.evaluate(&get(client), &ctx());
            let d = o.deciding.unwrap();
            format!("{:?} {} (at line {:?})", o.status, d.rule, d.loc.map(|l| l.line))
        };
        let and = chain(&["Require ip 127.0.0.0/8", "AuthMerging And\nRequire ip 127.0.0.1 127.0.0.2"]);
        expect!["Some(200) AuthMerging And (inherited rules AND this section's): granted by `Require ip 127.0.0.0/8` (test.conf:1) and `Require ip 127.0.0.1 127.0.0.2` (test.conf:2) (at line Some(1))"].assert_eq(&deciding(&and, "127.0.0.1"));
        // One side denies: that line alone.
        expect!["Some(403) Require ip 127.0.0.1 127.0.0.2 (at line Some(2))"].assert_eq(&deciding(&and, "127.0.0.3"));
        let or = chain(&["Require ip 10.0.0.1", "AuthMerging Or\nRequire ip 10.0.0.2\nRequire ip 10.0.0.3"]);
        expect!["Some(403) AuthMerging Or (inherited rules OR this section's): denied by `Require ip 10.0.0.1` (test.conf:1), `Require ip 10.0.0.2` (test.conf:2) and `Require ip 10.0.0.3` (test.conf:3) (at line Some(1))"].assert_eq(&deciding(&or, "127.0.0.1"));
        // A RequireAll whose lines all grant; a line limited to other methods decides nothing.
        let all =
            chain(&["<RequireAll>\nRequire ip 127.0.0.1\n<Limit POST>\nRequire all denied\n</Limit>\n</RequireAll>"]);
        expect!["Some(200) Require ip 127.0.0.1 (at line Some(2))"].assert_eq(&deciding(&all, "127.0.0.1"));
    }

    #[test]
    fn trace_rendering() {
        let e = chain(&[&format!(
            "{BASIC}Order allow,deny\nAllow from 127.0.0.0/8\n<RequireAll>\nRequire ip 127.0.0.1\nRequire valid-user\n</RequireAll>"
        )]);
        let o = e.evaluate(&get("127.0.0.1"), &ctx());
        expect![[r#"
            status: 401
            deciding: Authn: AuthType Basic: credentials required (line 1)
            trace:
              Satisfy not specified for GET (= All): host check AND Require
              access_compat: Order allow,deny for GET (line 4)
                  Allow from 127.0.0.0/8: matches (line 5)
                host check passes
              authz_core (userless):
                section's Require lines (implicit <RequireAny>) → denied (no authenticated user yet) (line 6)
                  <RequireAll> → denied (no authenticated user yet) (line 6)
                    Require ip 127.0.0.1 → granted (line 7)
                    Require valid-user → denied (no authenticated user yet) (line 8)
              authentication (Basic): no credentials sent → 401 (line 1)
        "#]]
        .assert_eq(&o.render());
    }
}
