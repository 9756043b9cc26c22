//! mod_authz_core's per-directory configuration: the Require tree, AuthMerging and
//! AuthzSendForbiddenOnFailure, built and merged exactly like httpd.
//!
//! Mirrors `modules/aaa/mod_authz_core.c`: `add_authz_provider`, `add_authz_section`,
//! `create_default_section`, `authz_merge_sections`, `authz_core_check_section` (check_config
//! hook: De Morgan rewrite of `<RequireNone>` + AH01624), `merge_authz_core_dir_config`; the
//! provider parsers `all_parse_config`, `method_parse_config`, `expr_parse_config`
//! (quote stripping only) and `mod_authz_host.c: ip_parse_config`. Evaluation
//! (`apply_authz_sections`) lives in [`super::eval`].
//!
//! Invariants:
//! * No IO.
//! * A section has a config iff it contains a Require line, a Require container, AuthMerging or
//!   AuthzSendForbiddenOnFailure (anywhere, also inside `<Limit>`); otherwise it inherits.
//! * A section's top-level Require lines and containers go into an implicit RequireAny
//!   ([`ContainerKind::Section`]); a non-negated child container with the same op as its parent
//!   is flattened into it (as httpd does); each node's method mask is its `<Limit>` mask
//!   (providers) or the union of its children's masks (containers).
//! * Provider names are case-sensitive; which exist depends on the loaded modules
//!   ([`PolicyCtx::modules`]).
//! * [`merge_authz`] is `merge_authz_core_dir_config`; [`fold_phase`] reproduces the per-phase
//!   fold of `server/request.c` (the "chain quirk": the last section of a phase decides how the
//!   whole phase combines with earlier phases).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::addr::{parse_require_ip, IpSubnet};
use super::items::{getword_conf, getwords_conf, ConfigError, Item, Loc, PolicyCtx, Word};
use super::method::{is_limit, is_require_container, limit_block_mask, MethodId, MethodMask};

/// Logic of a container node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicOp {
    And,
    Or,
}

/// `AuthMerging` (`authz_logic_op` of the dir config).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthMerging {
    /// No AuthMerging directive: behaves like Off.
    Unset,
    Off,
    And,
    Or,
}

/// Where a container node comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerKind {
    /// The implicit RequireAny holding a section's top-level Require lines.
    Section,
    RequireAll,
    RequireAny,
    RequireNone,
    /// Produced by `AuthMerging And|Or` when merging two sections (`is_merged`).
    Merged,
}

/// One node of the Require tree (`authz_section_conf`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthzNode {
    pub kind: NodeKind,
    pub negate: bool,
    /// `limited`: methods this node applies to.
    pub methods: MethodMask,
    /// The Require line or container opener; None for merged nodes.
    pub loc: Option<Loc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind {
    Require(Requirement),
    Container { op: LogicOp, origin: ContainerKind, children: Vec<AuthzNode> },
}

/// A `Require [not] provider args` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// Provider name, exact case.
    pub provider_name: String,
    /// The raw rest of the line after the provider name.
    pub args: String,
    pub provider: Provider,
}

/// A parsed provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provider {
    /// `all granted|denied`.
    All { granted: bool },
    /// `env V1 V2 …`: granted if any is present (names compared case-insensitively).
    Env(Vec<String>),
    /// `method M…`: granted if the request method is in the mask.
    Method(MethodMask),
    /// `expr …` (evaluated where it reads only what is known: [`super::expr_eval`]). `wants_user`:
    /// mentions REMOTE_USER, so a false result is DENIED_NO_USER.
    Expr { expr: String, wants_user: bool },
    /// `ip …`.
    Ip(Vec<IpSubnet>),
    /// `host …` (ap_expr string, raw).
    Host(String),
    /// `forward-dns …` (ap_expr string, raw).
    ForwardDns(String),
    /// `local` (arguments ignored).
    Local,
    /// `user …` (ap_expr string, raw).
    User(String),
    /// `valid-user` (arguments ignored).
    ValidUser,
    /// `group …` (mod_authz_groupfile; ap_expr string, raw).
    Group(String),
    /// `file-group` (needs the file's owner group: not modelled).
    FileGroup,
    /// `file-owner` (needs the file's owner: not modelled).
    FileOwner,
    /// `dbm-group …` (needs the DBM file: not modelled).
    DbmGroup(String),
    /// `dbm-file-group`.
    DbmFileGroup,
    /// `ldap-user|group|dn|attribute|filter` (outcome never known).
    Ldap,
    /// A provider that exists but is not modelled (dbd-*, ssl, aliases, Lua, FastCGI …).
    Opaque,
}

/// The authz_core config of one section (or the effective one after merging).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthzConfig {
    /// The Require tree (None: no Require in effect).
    pub section: Option<AuthzNode>,
    pub op: AuthMerging,
    pub op_loc: Option<Loc>,
    /// `AuthzSendForbiddenOnFailure` (None = unset = Off).
    pub forbidden_on_fail: Option<bool>,
    pub forbidden_loc: Option<Loc>,
}

impl AuthzNode {
    /// `format_authz_command`: `Require [not ]name args`, `<RequireAll>`, `<RequireAny>`,
    /// `<RequireNone>`, `<RequireNotAll>`, or `AuthMerging All|Any` for merged nodes.
    pub fn httpd_command(&self) -> String {
        match &self.kind {
            NodeKind::Require(r) => {
                format!("Require {}{} {}", if self.negate { "not " } else { "" }, r.provider_name, r.args)
            }
            NodeKind::Container { op, origin, .. } => {
                let merged = *origin == ContainerKind::Merged;
                let word = match (op, self.negate) {
                    (LogicOp::And, true) => "NotAll",
                    (LogicOp::And, false) => "All",
                    (LogicOp::Or, true) => "None",
                    (LogicOp::Or, false) => "Any",
                };
                if merged {
                    format!("AuthMerging {word}")
                } else {
                    format!("<Require{word}>")
                }
            }
        }
    }

    /// A readable one-line label (used in traces).
    pub fn label(&self) -> String {
        match &self.kind {
            NodeKind::Require(_) => self.httpd_command().trim_end().to_string(),
            NodeKind::Container { op, origin, .. } => match origin {
                ContainerKind::Section => "section's Require lines (implicit <RequireAny>)".into(),
                ContainerKind::Merged => format!(
                    "AuthMerging {} (inherited rules {} this section's)",
                    if *op == LogicOp::And { "And" } else { "Or" },
                    if *op == LogicOp::And { "AND" } else { "OR" }
                ),
                _ => self.httpd_command(),
            },
        }
    }

    /// Multi-line rendering of the tree (for tests and hovers).
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, 0);
        out
    }

    fn render_into(&self, out: &mut String, depth: usize) {
        let _ = write!(out, "{}{}", "  ".repeat(depth), self.label());
        if !self.methods.is_all() {
            let _ = write!(out, " [{}]", self.methods);
        }
        out.push('\n');
        if let NodeKind::Container { children, .. } = &self.kind {
            for c in children {
                c.render_into(out, depth + 1);
            }
        }
    }
}

/// The authz providers of httpd 2.4's bundled modules (`Require` names), each
/// with the module that registers it.
pub const PROVIDERS: &[(&str, &str)] = &[
    ("all", "authz_core_module"),
    ("env", "authz_core_module"),
    ("method", "authz_core_module"),
    ("expr", "authz_core_module"),
    ("ip", "authz_host_module"),
    ("host", "authz_host_module"),
    ("forward-dns", "authz_host_module"),
    ("local", "authz_host_module"),
    ("user", "authz_user_module"),
    ("valid-user", "authz_user_module"),
    ("group", "authz_groupfile_module"),
    ("file-group", "authz_groupfile_module"),
    ("file-owner", "authz_owner_module"),
    ("dbm-group", "authz_dbm_module"),
    ("dbm-file-group", "authz_dbm_module"),
    ("dbd-group", "authz_dbd_module"),
    ("dbd-login", "authz_dbd_module"),
    ("dbd-logout", "authz_dbd_module"),
    ("ldap-user", "authnz_ldap_module"),
    ("ldap-group", "authnz_ldap_module"),
    ("ldap-dn", "authnz_ldap_module"),
    ("ldap-attribute", "authnz_ldap_module"),
    ("ldap-filter", "authnz_ldap_module"),
    ("ssl", "ssl_module"),
    ("ssl-verify-client", "ssl_module"),
];

/// Authz provider name → module that registers it.
pub fn provider_module(name: &str) -> Option<&'static str> {
    PROVIDERS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

/// Is `name` a registered authz provider (exact case)?
pub fn provider_exists(name: &str, ctx: &PolicyCtx) -> bool {
    match provider_module(name) {
        Some("authz_core_module") => true,
        Some(m) => ctx.modules.is_loaded(m) || ctx.extra_authz_providers.contains(name),
        None => ctx.extra_authz_providers.contains(name),
    }
}

/// The provider's `parse_require_line` (errors are httpd's messages).
fn parse_provider(
    name: &str,
    args: &str,
    registered: &BTreeSet<String>,
    lookups: super::expr::Lookups,
) -> Result<Provider, String> {
    Ok(match name {
        "all" => {
            if args.eq_ignore_ascii_case("granted") {
                Provider::All { granted: true }
            } else if args.eq_ignore_ascii_case("denied") {
                Provider::All { granted: false }
            } else {
                return Err("Argument for 'Require all' must be 'granted' or 'denied'".into());
            }
        }
        "env" => Provider::Env(getwords_conf(args)),
        "method" => {
            let mut mask = MethodMask::none();
            for w in getwords_conf(args) {
                match MethodId::resolve(&w, registered) {
                    MethodId::Invalid => return Err(format!("Invalid Method '{w}'")),
                    id => mask = mask.union(&MethodMask::of(&id)),
                }
            }
            Provider::Method(mask)
        }
        "expr" => {
            let mut e = args;
            if e.len() >= 2 && e.starts_with('"') && e.ends_with('"') {
                e = &e[1..e.len() - 1];
            }
            super::expr::parse_bool(e, lookups).map_err(|m| format!("Cannot parse expression in require line: {m}"))?;
            Provider::Expr { expr: e.to_string(), wants_user: e.to_ascii_uppercase().contains("REMOTE_USER") }
        }
        "ip" => {
            let words = getwords_conf(args);
            if words.is_empty() {
                return Err("'require ip' requires an argument".into());
            }
            Provider::Ip(words.iter().map(|w| parse_require_ip(w)).collect::<Result<_, _>>()?)
        }
        "host" => Provider::Host(args.to_string()),
        "forward-dns" => Provider::ForwardDns(args.to_string()),
        "local" => Provider::Local,
        "user" => Provider::User(args.to_string()),
        "valid-user" => Provider::ValidUser,
        "group" => Provider::Group(args.to_string()),
        "file-group" => Provider::FileGroup,
        "file-owner" => Provider::FileOwner,
        "dbm-group" => Provider::DbmGroup(args.to_string()),
        "dbm-file-group" => Provider::DbmFileGroup,
        n if n.starts_with("ldap-") && provider_module(n).is_some() => Provider::Ldap,
        _ => Provider::Opaque,
    })
}

/// The modules that add names to ap_expr.
pub fn expr_lookups(ctx: &PolicyCtx) -> super::expr::Lookups {
    super::expr::Lookups {
        ssl: ctx.modules.is_loaded("ssl_module"),
        hcheck: ctx.modules.is_loaded("proxy_hcheck_module"),
        restricted: ctx.htaccess,
    }
}

struct Container {
    op: LogicOp,
    negate: bool,
    origin: ContainerKind,
    methods: MethodMask,
    children: Vec<AuthzNode>,
    loc: Option<Loc>,
}

impl Container {
    /// `create_default_section`.
    fn default_section(loc: &Loc) -> Container {
        Container {
            op: LogicOp::Or,
            negate: false,
            origin: ContainerKind::Section,
            methods: MethodMask::none(),
            children: vec![],
            loc: Some(loc.clone()),
        }
    }

    fn command(&self) -> String {
        self.clone_shallow().httpd_command()
    }

    fn clone_shallow(&self) -> AuthzNode {
        AuthzNode {
            kind: NodeKind::Container { op: self.op, origin: self.origin, children: vec![] },
            negate: self.negate,
            methods: self.methods.clone(),
            loc: self.loc.clone(),
        }
    }

    fn into_node(self) -> AuthzNode {
        AuthzNode {
            kind: NodeKind::Container { op: self.op, origin: self.origin, children: self.children },
            negate: self.negate,
            methods: self.methods,
            loc: self.loc,
        }
    }
}

struct Builder<'a> {
    ctx: &'a PolicyCtx,
    registered: std::borrow::Cow<'a, BTreeSet<String>>,
    errors: Vec<ConfigError>,
    has_conf: bool,
    op: AuthMerging,
    op_loc: Option<Loc>,
    forbidden: Option<bool>,
    forbidden_loc: Option<Loc>,
}

const AUTHMERGING_USAGE: &str = "AuthMerging takes one argument, controls how a <Directory>, \
<Location>, or similar directive's authorization directives are combined with those of its predecessor";

impl Builder<'_> {
    fn walk(&mut self, items: &[Item], limited: &MethodMask, current: &mut Option<Container>) {
        for item in items {
            match item {
                Item::Block { name, items: body, .. } if is_limit(name) => {
                    let htaccess = self.ctx.htaccess;
                    if let Ok(mask) = limit_block_mask(item, limited, &mut self.registered, htaccess) {
                        self.walk(body, &mask, current);
                    }
                }
                Item::Block { name, args, loc, items: body } if is_require_container(name) => {
                    self.has_conf = true;
                    self.add_section(name, args, loc, body, limited, current);
                }
                Item::Block { .. } => {}
                Item::Directive { name, args, raw_args, loc } => {
                    if name.eq_ignore_ascii_case("Require") {
                        self.has_conf = true;
                        self.add_provider(raw_args, loc, limited, current);
                    } else if name.eq_ignore_ascii_case("AuthMerging") {
                        self.has_conf = true;
                        if args.len() != 1 || args[0].is_empty() {
                            self.errors.push(ConfigError::new(loc, AUTHMERGING_USAGE));
                            continue;
                        }
                        let v = &args[0];
                        self.op = if v.eq_ignore_ascii_case("Off") {
                            AuthMerging::Off
                        } else if v.eq_ignore_ascii_case("And") {
                            AuthMerging::And
                        } else if v.eq_ignore_ascii_case("Or") {
                            AuthMerging::Or
                        } else {
                            self.errors.push(ConfigError::new(loc, "AuthMerging must be one of: Off | And | Or"));
                            continue;
                        };
                        self.op_loc = Some(loc.clone());
                    } else if name.eq_ignore_ascii_case("AuthzSendForbiddenOnFailure") {
                        self.has_conf = true;
                        // FLAG (server/config.c: invoke_cmd): first word must be on/off, the rest
                        // is ignored.
                        match args.first().map(|a| a.to_ascii_lowercase()).as_deref() {
                            Some("on") => self.forbidden = Some(true),
                            Some("off") => self.forbidden = Some(false),
                            _ => {
                                self.errors
                                    .push(ConfigError::new(loc, "AuthzSendForbiddenOnFailure must be On or Off"));
                                continue;
                            }
                        }
                        self.forbidden_loc = Some(loc.clone());
                    }
                }
            }
        }
    }

    /// `add_authz_provider`.
    fn add_provider(&mut self, raw: &str, loc: &Loc, limited: &MethodMask, current: &mut Option<Container>) {
        let (mut name, mut rest) = getword_conf(raw);
        let mut negate = false;
        if name.eq_ignore_ascii_case("not") {
            (name, rest) = getword_conf(rest);
            negate = true;
        }
        if !provider_exists(&name, self.ctx) {
            self.errors.push(ConfigError::new(loc, format!("Unknown Authz provider: {name}")));
            return;
        }
        let provider = match parse_provider(&name, rest, &self.registered, expr_lookups(self.ctx)) {
            Ok(p) => p,
            Err(e) => {
                self.errors.push(ConfigError::new(loc, e));
                return;
            }
        };
        let parent = current.get_or_insert_with(|| Container::default_section(loc));
        if negate && parent.op == LogicOp::Or {
            self.errors.push(ConfigError::new(
                loc,
                format!("negative Require directive has no effect in {} directive", parent.command()),
            ));
            return;
        }
        parent.methods = parent.methods.union(limited);
        parent.children.push(AuthzNode {
            kind: NodeKind::Require(Requirement { provider_name: name, args: rest.to_string(), provider }),
            negate,
            methods: limited.clone(),
            loc: Some(loc.clone()),
        });
    }

    /// `add_authz_section`.
    fn add_section(
        &mut self,
        name: &str,
        args: &[Word],
        loc: &Loc,
        body: &[Item],
        limited: &MethodMask,
        current: &mut Option<Container>,
    ) {
        let (op, negate, origin, canon) = if name.eq_ignore_ascii_case("RequireAll") {
            (LogicOp::And, false, ContainerKind::RequireAll, "<RequireAll")
        } else if name.eq_ignore_ascii_case("RequireAny") {
            (LogicOp::Or, false, ContainerKind::RequireAny, "<RequireAny")
        } else {
            (LogicOp::Or, true, ContainerKind::RequireNone, "<RequireNone")
        };
        if !args.is_empty() {
            self.errors.push(ConfigError::new(loc, format!("{canon}> directive doesn't take additional arguments")));
            return;
        }
        let mut inner = Some(Container {
            op,
            negate,
            origin,
            methods: MethodMask::none(),
            children: vec![],
            loc: Some(loc.clone()),
        });
        let before = self.errors.len();
        self.walk(body, limited, &mut inner);
        let inner = inner.expect("container stays set");
        if self.errors.len() > before {
            // httpd returns the first child error; nothing is attached.
            return;
        }
        if inner.children.is_empty() {
            self.errors.push(ConfigError::new(
                loc,
                format!("{} directive contains no authorization directives", inner.command()),
            ));
            return;
        }
        let parent = current.get_or_insert_with(|| Container::default_section(loc));
        if inner.negate && parent.op == LogicOp::Or {
            self.errors.push(ConfigError::new(
                loc,
                format!("{} directive has no effect in {} directive", inner.command(), parent.command()),
            ));
            return;
        }
        parent.methods = parent.methods.union(&inner.methods);
        if !inner.negate && inner.op == parent.op {
            // "be associative"
            parent.children.extend(inner.children);
        } else {
            parent.children.push(inner.into_node());
        }
    }
}

/// `authz_core_check_section`: De Morgan rewrite of negated children whose op differs from
/// the parent's (a `<RequireNone>` inside `<RequireAll>` becomes its children, each negated),
/// then AH01624 if every child is negative. Returns false on error.
fn check_section(node: &mut AuthzNode, is_conf: bool, errors: &mut Vec<ConfigError>) -> bool {
    let command = node.httpd_command();
    let loc = node.loc.clone();
    let NodeKind::Container { op, children, .. } = &mut node.kind else {
        return true;
    };
    let op = *op;
    let mut i = 0;
    while i < children.len() {
        if let NodeKind::Container { op: child_op, .. } = &children[i].kind {
            let child_op = *child_op;
            if !check_section(&mut children[i], false, errors) {
                return false;
            }
            if children[i].negate && child_op != op {
                let child = children.remove(i);
                let NodeKind::Container { children: grandkids, .. } = child.kind else { unreachable!() };
                let n = grandkids.len();
                for (k, mut g) in grandkids.into_iter().enumerate() {
                    g.negate = !g.negate;
                    children.insert(i + k, g);
                }
                i += n;
                continue;
            }
        }
        i += 1;
    }
    if !children.iter().any(|c| !c.negate) {
        let what = if is_conf { "<Directory>, <Location>, or similar".to_string() } else { command };
        if let Some(loc) = loc {
            errors.push(ConfigError {
                loc,
                message: format!("{what} directive contains only negative authorization directives"),
                ah_code: Some("AH01624"),
            });
        }
        return false;
    }
    true
}

/// Build a section's authz_core config from its items. `None` when the section has no
/// authz_core directive (→ inherit). Errors of `<Limit>` blocks themselves are not reported
/// here (see [`super::section_from_items`]); such blocks are skipped.
pub fn authz_from_items(items: &[Item], ctx: &PolicyCtx) -> (Option<AuthzConfig>, Vec<ConfigError>) {
    let mut b = Builder {
        ctx,
        registered: std::borrow::Cow::Borrowed(&ctx.registered_methods),
        errors: vec![],
        has_conf: false,
        op: AuthMerging::Unset,
        op_loc: None,
        forbidden: None,
        forbidden_loc: None,
    };
    let mut top: Option<Container> = None;
    b.walk(items, &MethodMask::all(), &mut top);
    if !b.has_conf {
        return (None, b.errors);
    }
    let mut section = top.map(Container::into_node);
    if let Some(s) = &mut section {
        // The check_config hook only runs when every directive was accepted (a directive error
        // stops startup first), and never for .htaccess.
        if !ctx.htaccess && b.errors.is_empty() {
            check_section(s, true, &mut b.errors);
        }
    }
    let conf = AuthzConfig {
        section,
        op: b.op,
        op_loc: b.op_loc,
        forbidden_on_fail: b.forbidden,
        forbidden_loc: b.forbidden_loc,
    };
    (Some(conf), b.errors)
}

/// `merge_authz_core_dir_config(base, new)`:
/// 1. `new` has no AuthMerging and no Require, `base` has rules → `base` (with base's op).
/// 2. `new.op` is Off or unset, or neither has rules → `new` (replaces `base` entirely; an
///    explicit `AuthMerging Off` without Require therefore discards the inherited rules).
/// 3. Otherwise a node with op And/Or over base's tree then new's tree; result op = new's.
/// 4. AuthzSendForbiddenOnFailure: new's if set, else base's.
pub fn merge_authz(base: &AuthzConfig, new: &AuthzConfig) -> AuthzConfig {
    let mut conf = if new.op == AuthMerging::Unset && new.section.is_none() && base.section.is_some() {
        base.clone()
    } else if matches!(new.op, AuthMerging::Off | AuthMerging::Unset)
        || (base.section.is_none() && new.section.is_none())
    {
        new.clone()
    } else {
        let op = if new.op == AuthMerging::And { LogicOp::And } else { LogicOp::Or };
        let section = match (&base.section, &new.section) {
            (Some(b), Some(n)) => AuthzNode {
                methods: b.methods.union(&n.methods),
                kind: NodeKind::Container { op, origin: ContainerKind::Merged, children: vec![b.clone(), n.clone()] },
                negate: false,
                // The AuthMerging line that joins them.
                loc: new.op_loc.clone(),
            },
            (Some(b), None) => b.clone(),
            (None, Some(n)) => n.clone(),
            (None, None) => unreachable!("handled by the second branch"),
        };
        AuthzConfig {
            section: Some(section),
            op: new.op,
            op_loc: new.op_loc.clone(),
            forbidden_on_fail: None,
            forbidden_loc: None,
        }
    };
    if new.forbidden_on_fail.is_some() {
        conf.forbidden_on_fail = new.forbidden_on_fail;
        conf.forbidden_loc = new.forbidden_loc.clone();
    } else {
        conf.forbidden_on_fail = base.forbidden_on_fail;
        conf.forbidden_loc = base.forbidden_loc.clone();
    }
    conf
}

/// `ap_merge_per_dir_configs` for authz_core: a missing `new` keeps `base`, a missing `base`
/// takes `new`, otherwise [`merge_authz`].
pub fn merge_authz_opt(base: Option<&AuthzConfig>, new: Option<&AuthzConfig>) -> Option<AuthzConfig> {
    match (base, new) {
        (b, None) => b.cloned(),
        (None, Some(n)) => Some(n.clone()),
        (Some(b), Some(n)) => Some(merge_authz(b, n)),
    }
}

/// One walk phase (Directory incl. .htaccess and regex sections / Files / Location / If): fold
/// the phase's matched sections left to right, then merge the folded result onto `running`
/// (`server/request.c: ap_directory_walk`, `ap_file_walk`, `ap_location_walk`,
/// `ap_if_walk_sub`). Because the folded config carries the op of the phase's last section, an
/// `AuthMerging And|Or` there also decides how earlier sections of the same phase combine with
/// the previous phases.
pub fn fold_phase<'a, I>(running: Option<&AuthzConfig>, phase: I) -> Option<AuthzConfig>
where
    I: IntoIterator<Item = Option<&'a AuthzConfig>>,
{
    let mut folded: Option<AuthzConfig> = None;
    for s in phase {
        folded = merge_authz_opt(folded.as_ref(), s);
    }
    merge_authz_opt(running, folded.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::policy::items::test_util::items;
    use crate::ide::policy::ModuleSet;
    use expect_test::expect;

    fn build_ctx(src: &str, ctx: &PolicyCtx) -> (Option<AuthzConfig>, Vec<String>) {
        let (c, e) = authz_from_items(&items(src), ctx);
        (c, e.into_iter().map(|e| e.to_string()).collect())
    }

    fn build(src: &str) -> (Option<AuthzConfig>, Vec<String>) {
        build_ctx(src, &PolicyCtx::default())
    }

    fn tree(src: &str) -> String {
        let (c, e) = build(src);
        assert!(e.is_empty(), "{e:?}");
        c.unwrap().section.map(|s| s.render()).unwrap_or_default()
    }

    fn errors(src: &str) -> Vec<String> {
        build(src).1
    }

    fn merged(parts: &[&str]) -> AuthzConfig {
        let mut acc: Option<AuthzConfig> = None;
        for p in parts {
            acc = merge_authz_opt(acc.as_ref(), build(p).0.as_ref());
        }
        acc.unwrap()
    }

    #[test]
    fn top_level_require_lines_go_into_implicit_require_any() {
        expect![[r#"
            section's Require lines (implicit <RequireAny>)
              Require ip 10.0.0.0/8
              Require valid-user
        "#]]
        .assert_eq(&tree("Require ip 10.0.0.0/8\nRequire valid-user"));
    }

    #[test]
    fn same_op_child_container_is_flattened() {
        expect![[r#"
            section's Require lines (implicit <RequireAny>)
              Require ip 10.1
              Require ip 10.2
              <RequireAll>
                Require ip 10.3
                Require ip 10.4
                Require ip 10.5
        "#]]
        .assert_eq(&tree(
            "Require ip 10.1\n<RequireAny>\nRequire ip 10.2\n</RequireAny>\n<RequireAll>\nRequire ip 10.3\n<RequireAll>\nRequire ip 10.4\nRequire ip 10.5\n</RequireAll>\n</RequireAll>",
        ));
    }

    #[test]
    fn limit_masks_are_recorded_and_containers_union_them() {
        expect![[r#"
            section's Require lines (implicit <RequireAny>) [GET POST]
              <RequireAll> [POST]
                Require valid-user [POST]
              Require ip 10.1 [GET]
        "#]]
        .assert_eq(&tree(
            "<RequireAll>\n<Limit POST>\nRequire valid-user\n</Limit>\n</RequireAll>\n<Limit GET>\nRequire ip 10.1\n</Limit>",
        ));
    }

    #[test]
    fn require_none_inside_require_all_is_rewritten_by_de_morgan() {
        expect![[r#"
            section's Require lines (implicit <RequireAny>)
              <RequireAll>
                Require ip 127.0.0.0/8
                Require not ip 127.0.0.2
                Require not env X
        "#]]
        .assert_eq(&tree(
            "<RequireAll>\nRequire ip 127.0.0.0/8\n<RequireNone>\nRequire ip 127.0.0.2\nRequire env X\n</RequireNone>\n</RequireAll>",
        ));
    }

    #[test]
    fn htaccess_skips_the_check_config_rewrite_and_ah01624() {
        let ctx = PolicyCtx { htaccess: true, ..Default::default() };
        let (c, e) = build_ctx("<RequireAll>\nRequire not ip 10.1\n</RequireAll>", &ctx);
        assert!(e.is_empty());
        assert!(c.unwrap().section.is_some());
        let (c, _) = build_ctx(
            "<RequireAll>\nRequire all granted\n<RequireNone>\nRequire ip 10.1\n</RequireNone>\n</RequireAll>",
            &ctx,
        );
        expect![[r#"
            section's Require lines (implicit <RequireAny>)
              <RequireAll>
                Require all granted
                <RequireNone>
                  Require ip 10.1
        "#]]
        .assert_eq(&c.unwrap().section.unwrap().render());
    }

    #[test]
    fn require_not_in_or_context_is_rejected() {
        assert_eq!(
            errors("Require not ip 10.1"),
            vec!["negative Require directive has no effect in <RequireAny> directive"]
        );
        assert_eq!(
            errors("<RequireAny>\nRequire all granted\nRequire not ip 10.1\n</RequireAny>"),
            vec!["negative Require directive has no effect in <RequireAny> directive"]
        );
        assert_eq!(
            errors(
                "<RequireAll>\nRequire all granted\n<RequireNone>\nRequire not ip 10.1\n</RequireNone>\n</RequireAll>"
            ),
            vec!["negative Require directive has no effect in <RequireNone> directive"]
        );
    }

    #[test]
    fn require_none_in_or_context_is_rejected() {
        assert_eq!(
            errors("<RequireNone>\nRequire ip 10.1\n</RequireNone>"),
            vec!["<RequireNone> directive has no effect in <RequireAny> directive"]
        );
        assert_eq!(
            errors("<RequireAll>\nRequire all granted\n<RequireNone>\n<RequireNone>\nRequire ip 10.1\n</RequireNone>\n</RequireNone>\n</RequireAll>"),
            vec!["<RequireNone> directive has no effect in <RequireNone> directive"]
        );
    }

    #[test]
    fn only_negative_require_all_is_rejected_by_check_config() {
        assert_eq!(
            errors("<RequireAll>\nRequire not ip 10.1\n</RequireAll>"),
            vec!["AH01624: <RequireAll> directive contains only negative authorization directives"]
        );
        // also a RequireAll containing only RequireNone's (after the De Morgan rewrite)
        assert_eq!(
            errors("<RequireAll>\n<RequireNone>\nRequire ip 10.1\n</RequireNone>\n</RequireAll>"),
            vec!["AH01624: <RequireAll> directive contains only negative authorization directives"]
        );
    }

    #[test]
    fn empty_container_and_container_with_args_are_rejected() {
        assert_eq!(
            errors("<RequireAll>\n</RequireAll>"),
            vec!["<RequireAll> directive contains no authorization directives"]
        );
        assert_eq!(
            errors("<RequireAny foo>\nRequire all granted\n</RequireAny>"),
            vec!["<RequireAny> directive doesn't take additional arguments"]
        );
    }

    #[test]
    fn unknown_provider_names_are_case_sensitive() {
        assert_eq!(errors("Require ALL granted"), vec!["Unknown Authz provider: ALL"]);
        assert_eq!(errors("Require All granted"), vec!["Unknown Authz provider: All"]);
        assert_eq!(errors("Require"), vec!["Unknown Authz provider: "]);
        assert_eq!(errors("Require not"), vec!["Unknown Authz provider: "]);
        assert_eq!(
            errors("Require NOT all granted"),
            vec!["negative Require directive has no effect in <RequireAny> directive"]
        );
    }

    #[test]
    fn providers_depend_on_loaded_modules() {
        let ctx = PolicyCtx {
            modules: ModuleSet::only(["authz_core_module", "authz_dbm_module", "authz_user_module"]),
            ..Default::default()
        };
        assert_eq!(build_ctx("Require group admins", &ctx).1, vec!["Unknown Authz provider: group"]);
        assert_eq!(build_ctx("Require ip 10.1", &ctx).1, vec!["Unknown Authz provider: ip"]);
        assert!(build_ctx("Require dbm-group admins", &ctx).1.is_empty());
        assert!(build_ctx("Require all granted", &ctx).1.is_empty());
        let ctx = PolicyCtx {
            modules: ModuleSet::only(["authz_owner_module"]),
            extra_authz_providers: ["admins-alias".to_string()].into(),
            ..Default::default()
        };
        assert_eq!(build_ctx("Require file-group", &ctx).1, vec!["Unknown Authz provider: file-group"]);
        assert!(build_ctx("Require file-owner", &ctx).1.is_empty());
        assert!(build_ctx("Require admins-alias", &ctx).1.is_empty());
    }

    #[test]
    fn require_all_argument_check() {
        assert_eq!(errors("Require all granted # c"), vec!["Argument for 'Require all' must be 'granted' or 'denied'"]);
        assert_eq!(errors("Require all"), vec!["Argument for 'Require all' must be 'granted' or 'denied'"]);
        assert_eq!(errors("Require all \"granted\""), vec!["Argument for 'Require all' must be 'granted' or 'denied'"]);
        assert!(errors("Require all GRANTED").is_empty());
    }

    #[test]
    fn require_ip_parse_errors() {
        assert_eq!(errors("Require ip 1.2.3.4 # c"), vec!["ip address '#' appears to be invalid"]);
        assert_eq!(errors("Require ip"), vec!["'require ip' requires an argument"]);
        assert_eq!(
            errors("Require ip \"1.2.3.4 1.2.3.5\""),
            vec!["ip address '1.2.3.4 1.2.3.5' appears to be invalid"]
        );
        assert!(errors("Require ip 127.1 127.0.0.2/255.255.255.255 fd00::/64").is_empty());
    }

    #[test]
    fn providers_without_parser_ignore_arguments() {
        assert!(errors("Require local foo bar").is_empty());
        assert!(errors("Require valid-user extra # c").is_empty());
        assert!(errors("Require env").is_empty());
    }

    #[test]
    fn require_method_names_are_validated_case_sensitively() {
        assert_eq!(errors("Require method get"), vec!["Invalid Method 'get'"]);
        assert_eq!(errors("Require method FOO"), vec!["Invalid Method 'FOO'"]);
        // a <Limit FOO> earlier in the config registers FOO
        assert!(errors("<Limit FOO>\nRequire all granted\n</Limit>\nRequire method FOO").is_empty());
        assert!(errors("Require method GET POST HEAD").is_empty());
    }

    #[test]
    fn expr_quotes_are_stripped() {
        let (c, _) = build("Require expr \"%{REMOTE_USER} == 'alice'\"");
        let s = c.unwrap().section.unwrap();
        let NodeKind::Container { children, .. } = &s.kind else { panic!() };
        let NodeKind::Require(r) = &children[0].kind else { panic!() };
        assert_eq!(r.provider, Provider::Expr { expr: "%{REMOTE_USER} == 'alice'".into(), wants_user: true });
    }

    #[test]
    fn authmerging_and_forbidden_flag() {
        let (c, e) = build("AuthMerging and\nAuthzSendForbiddenOnFailure On extra");
        assert!(e.is_empty());
        let c = c.unwrap();
        assert_eq!((c.op, c.forbidden_on_fail, c.section.is_none()), (AuthMerging::And, Some(true), true));
        assert_eq!(errors("AuthMerging Both"), vec!["AuthMerging must be one of: Off | And | Or"]);
        assert_eq!(errors("AuthzSendForbiddenOnFailure yes"), vec!["AuthzSendForbiddenOnFailure must be On or Off"]);
    }

    #[test]
    fn section_without_authz_directives_has_no_config() {
        assert_eq!(build("Order deny,allow\nAuthType Basic").0, None);
    }

    #[test]
    fn default_merge_replaces() {
        let m = merged(&["Require all denied", "Require all granted"]);
        expect![[r#"
            section's Require lines (implicit <RequireAny>)
              Require all granted
        "#]]
        .assert_eq(&m.section.unwrap().render());
    }

    #[test]
    fn section_without_authz_config_inherits() {
        let m = merged(&["Require all denied", "Order allow,deny"]);
        assert!(m.section.unwrap().render().contains("Require all denied"));
    }

    #[test]
    fn forbidden_flag_only_section_keeps_base_rules_and_op() {
        let m = merged(&["AuthMerging Or\nRequire ip 10.1", "AuthzSendForbiddenOnFailure On"]);
        assert_eq!(m.op, AuthMerging::Or);
        assert_eq!(m.forbidden_on_fail, Some(true));
        assert!(m.section.is_some());
    }

    #[test]
    fn explicit_authmerging_off_without_require_grants() {
        let m = merged(&["Require all denied", "AuthMerging Off"]);
        assert_eq!(m.section, None);
    }

    #[test]
    fn authmerging_and_or_combine_base_then_new() {
        let m = merged(&["Require ip 10.1", "AuthMerging And\nRequire valid-user"]);
        expect![[r#"
            AuthMerging And (inherited rules AND this section's)
              section's Require lines (implicit <RequireAny>)
                Require ip 10.1
              section's Require lines (implicit <RequireAny>)
                Require valid-user
        "#]]
        .assert_eq(&m.section.unwrap().render());
        let m = merged(&["Require ip 10.1", "AuthMerging Or\nRequire valid-user"]);
        assert_eq!(m.section.as_ref().unwrap().httpd_command(), "AuthMerging Any");
        assert_eq!(m.op, AuthMerging::Or);
    }

    #[test]
    fn authmerging_and_without_require_inherits() {
        let m = merged(&["Require ip 10.1", "AuthMerging And"]);
        assert_eq!(m.section.unwrap().render(), tree("Require ip 10.1"));
        assert_eq!(m.op, AuthMerging::And);
    }

    #[test]
    fn location_phase_last_authmerging_controls_fold() {
        // Directory: Require all denied; Location /sub: Require all granted;
        // Location /sub/index.html: AuthMerging And + Require ip 127.0.0.1.
        let dir = build("Require all denied").0;
        let running = fold_phase(None, [dir.as_ref()]);
        let l1 = build("Require all granted").0;
        let l2 = build("AuthMerging And\nRequire ip 127.0.0.1").0;
        let result = fold_phase(running.as_ref(), [l1.as_ref(), l2.as_ref()]).unwrap();
        expect![[r#"
            AuthMerging And (inherited rules AND this section's)
              section's Require lines (implicit <RequireAny>)
                Require all denied
              AuthMerging And (inherited rules AND this section's)
                section's Require lines (implicit <RequireAny>)
                  Require all granted
                section's Require lines (implicit <RequireAny>)
                  Require ip 127.0.0.1
        "#]]
        .assert_eq(&result.section.unwrap().render());
    }

    #[test]
    fn location_phase_explicit_off_in_first_section_is_overridden_by_later_and() {
        let running = build("Require all denied").0;
        let l1 = build("AuthMerging Off\nRequire all granted").0;
        let l2 = build("AuthMerging And").0;
        let result = fold_phase(running.as_ref(), [l1.as_ref(), l2.as_ref()]).unwrap();
        assert_eq!(result.section.unwrap().httpd_command(), "AuthMerging All");
    }

    #[test]
    fn sections_without_authmerging_fold_like_the_chain() {
        let running = build("Require all denied").0;
        let l1 = build("Require all granted").0;
        let l2 = build("Require ip 10.1").0;
        let result = fold_phase(running.as_ref(), [l1.as_ref(), None, l2.as_ref()]).unwrap();
        assert_eq!(result, build("Require ip 10.1").0.unwrap());
    }
}
