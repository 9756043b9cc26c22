//! Feature: the request environment at access-check time, as mod_setenvif builds it.
//!
//! `SetEnvIf`, `SetEnvIfNoCase`, `BrowserMatch`, `BrowserMatchNoCase` (and `SetEnvIfExpr`, whose
//! expression is not evaluated) run twice per request (`modules/metadata/mod_setenvif.c:
//! match_headers`):
//! * in `post_read_request`, with the **server** configuration: the main server's top-level
//!   lines followed by the virtual host's (`merge_setenvif_config` appends). `Request_URI` is the
//!   path as sent then, not yet %-decoded or normalised;
//! * in `header_parser`, with the **per-directory** configuration: the lines of every section
//!   that applies (and of .htaccess files), in merge order. `Request_URI` is the decoded,
//!   normalised path by then, and a header that is absent falls back to the variable of that
//!   name, so these lines see what the server-level ones set.
//!
//! Both stages run before the access checks; `SetEnv` (mod_env) runs in the fixups, after them,
//! so it is invisible to `Allow from env=` and `Require env` (but a DirectoryIndex subrequest
//! sees it, see [`crate::ide::dir_index`]).
//!
//! Invariants:
//! * No IO, no DNS: everything comes from the configuration, the [`Request`] and the
//!   [`EnvInputs`]. Facts we do not have (a header not given, a host name not known, an
//!   expression) make a *match* unknown; a variable whose value then depends on it is unknown,
//!   and the access outcome becomes unknown only if a rule actually tests that variable.
//! * The quirks of the C code are kept: `VAR=` sets `1`, a value starting with `!` unsets,
//!   `$N`/`&` are substituted only for regular expressions (not for plain-string patterns),
//!   a run of lines testing the same attribute reads it once.

use crate::ide::access::normalize_url;
use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::pcre_match::{pregsub, Pcre};
use crate::ide::policy::{EnvKnowledge, EnvVar, HostKnowledge, Item, Loc, Request};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::IpAddr;

/// What the caller knows about the request beyond [`Request`].
#[derive(Debug, Clone)]
pub struct EnvInputs {
    /// Request headers as sent, in order (repeated names allowed).
    pub headers: Vec<(String, String)>,
    /// No header was sent besides `headers`. Otherwise a header not listed is unknown.
    pub headers_complete: bool,
    /// `Request_Protocol`.
    pub protocol: String,
    /// Variables given from outside (`explain --env`): they override what the configuration
    /// does. `None` = absent.
    pub overrides: Vec<(String, Option<String>)>,
    /// The variables the request starts with before mod_setenvif runs: none for a request read
    /// from the network; an internal redirect's new request gets the old one's, each renamed
    /// `REDIRECT_…`, and `REDIRECT_STATUS` ([`EnvInputs::redirected`]).
    pub inherited: Vec<(String, Val)>,
}

impl Default for EnvInputs {
    fn default() -> Self {
        EnvInputs {
            headers: vec![],
            headers_complete: false,
            protocol: "HTTP/1.1".into(),
            overrides: vec![],
            inherited: vec![],
        }
    }
}

impl EnvInputs {
    /// The inputs of the new request an internal redirect (`ap_internal_redirect`) makes of a
    /// request whose environment at the redirect was `env`: the same headers, and every variable
    /// of `env` renamed `REDIRECT_NAME` (`rename_original_env`), with `REDIRECT_STATUS` the old
    /// request's status (200 where it was going to be served). The new request then runs the
    /// post-read-request hook (server-level SetEnvIf) and, being no subrequest, the header
    /// parser (per-directory SetEnvIf) of its own.
    pub fn redirected(&self, env: &EnvReport, status: u16) -> EnvInputs {
        let mut inherited: Vec<(String, Val)> = env
            .vars
            .iter()
            .filter(|(_, v)| *v != Val::Absent)
            .map(|(k, v)| (format!("REDIRECT_{k}"), v.clone()))
            .collect();
        inherited.push(("REDIRECT_STATUS".into(), Val::Set(status.to_string())));
        EnvInputs { inherited, ..self.clone() }
    }
}

/// The directives the per-directory stage reads.
pub fn is_setenvif(name: &str) -> bool {
    ["SetEnvIf", "SetEnvIfNoCase", "SetEnvIfExpr", "BrowserMatch", "BrowserMatchNoCase"]
        .iter()
        .any(|d| d.eq_ignore_ascii_case(name))
}

/// What httpd knows of one attribute's value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Text {
    Known(String),
    Unknown(String),
}

/// One variable's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Val {
    Set(String),
    /// Set, value not known.
    SetUnknown,
    Absent,
    Unknown,
}

impl Val {
    fn join(&self, other: &Val) -> Val {
        match (self, other) {
            (a, b) if a == b => a.clone(),
            (Val::Set(_) | Val::SetUnknown, Val::Set(_) | Val::SetUnknown) => Val::SetUnknown,
            _ => Val::Unknown,
        }
    }
}

#[derive(Debug, Clone)]
enum Attr {
    RemoteAddr,
    RemoteHost,
    ServerAddr,
    RequestUri,
    RequestMethod,
    RequestProtocol,
    /// A header (falls back to the variable of that name when absent).
    Header(String),
    /// Header names matching a regular expression (the last matching header counts).
    HeaderRegex(String),
    Expr,
}

#[derive(Debug, Clone)]
enum Feature {
    Set(String),
    Unset,
}

#[derive(Debug, Clone)]
struct Rule {
    text: String,
    attr: Attr,
    /// The attribute name as written (lowercased): the key of the "same attribute" run.
    attr_key: String,
    pattern: String,
    icase: bool,
    /// `non_regex_pattern`: a plain substring, no substitution.
    literal: Option<String>,
    features: Vec<(String, Feature)>,
    loc: Loc,
    /// The configuration record the line belongs to (runs never span two records).
    record: usize,
}

/// One change the configuration made to a variable.
#[derive(Debug, Clone)]
pub struct EnvStep {
    pub var: String,
    pub value: Val,
    /// The line that made it, as written.
    pub rule: String,
    pub loc: Option<Loc>,
    /// Why the line's match is not known (when it is not).
    pub unknown_because: Option<String>,
}

/// The environment at access-check time and how it came about.
#[derive(Debug, Clone, Default)]
pub struct EnvReport {
    /// Final state of every variable the configuration or the caller touched (original case).
    pub vars: Vec<(String, Val)>,
    pub steps: Vec<EnvStep>,
}

impl EnvReport {
    /// The knowledge the access evaluation takes: every other variable is absent.
    pub fn knowledge(&self) -> EnvKnowledge {
        let mut k = EnvKnowledge::default();
        for (name, v) in &self.vars {
            let e = match v {
                Val::Set(s) => EnvVar::Set(s.clone()),
                Val::SetUnknown => EnvVar::Set(String::new()),
                Val::Absent => EnvVar::Absent,
                Val::Unknown => EnvVar::Unknown,
            };
            k.vars.insert(name.clone(), e);
        }
        k
    }

    /// The variable's final state (case-insensitive).
    pub fn get(&self, name: &str) -> Val {
        self.vars.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone()).unwrap_or(Val::Absent)
    }

    /// Why `var` is unknown: the lines that made it so.
    pub fn why_unknown(&self, var: &str) -> Vec<String> {
        self.steps
            .iter()
            .filter(|s| s.var.eq_ignore_ascii_case(var) && s.unknown_because.is_some())
            .map(|s| {
                let at = s.loc.as_ref().map(|l| format!(" at {}:{}", l.file.display(), l.line)).unwrap_or_default();
                format!("`{}`{at}: {}", s.rule, s.unknown_because.as_deref().unwrap_or(""))
            })
            .collect()
    }
}

struct Env {
    vars: BTreeMap<String, (String, Val)>,
    steps: Vec<EnvStep>,
}

impl Env {
    fn get(&self, name: &str) -> Val {
        self.vars.get(&name.to_ascii_lowercase()).map(|(_, v)| v.clone()).unwrap_or(Val::Absent)
    }
    fn set(&mut self, name: &str, v: Val, rule: &Rule, why: Option<String>) {
        self.vars.insert(name.to_ascii_lowercase(), (name.to_string(), v.clone()));
        self.steps.push(EnvStep {
            var: name.to_string(),
            value: v,
            rule: rule.text.clone(),
            loc: Some(rule.loc.clone()),
            unknown_because: why,
        });
    }
}

fn parse_rule<S: std::ops::Deref<Target = str>>(name: &str, args: &[S], loc: &Loc, record: usize) -> Option<Rule> {
    let l = name.to_ascii_lowercase();
    let icase = l.ends_with("nocase");
    let (attr_name, rest): (&str, &[S]) = match l.as_str() {
        "setenvif" | "setenvifnocase" => (&**args.first()?, &args[1..]),
        "browsermatch" | "browsermatchnocase" => ("User-Agent", args),
        "setenvifexpr" => ("", args),
        _ => return None,
    };
    let (pattern, feats) = rest.split_first()?;
    if feats.is_empty() {
        // "Missing envariable expression": httpd refuses to start.
        return None;
    }
    let attr = if l == "setenvifexpr" {
        Attr::Expr
    } else {
        match attr_name.to_ascii_lowercase().as_str() {
            "remote_addr" => Attr::RemoteAddr,
            "remote_host" => Attr::RemoteHost,
            "server_addr" => Attr::ServerAddr,
            "request_uri" => Attr::RequestUri,
            "request_method" => Attr::RequestMethod,
            "request_protocol" => Attr::RequestProtocol,
            _ if attr_name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') => {
                Attr::Header(attr_name.to_string())
            }
            _ => Attr::HeaderRegex(attr_name.to_string()),
        }
    };
    let features = feats
        .iter()
        .map(|f| {
            // add_envvars: split at the first '='.
            match f.split_once('=') {
                Some((var, value)) if !value.is_empty() => (var.to_string(), Feature::Set(value.to_string())),
                Some((var, _)) => (var.to_string(), Feature::Set("1".into())),
                None => match f.strip_prefix('!') {
                    Some(var) => (var.to_string(), Feature::Unset),
                    None => (f.to_string(), Feature::Set("1".into())),
                },
            }
        })
        .collect();
    let text = format!("{name} {}", args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "));
    Some(Rule {
        text,
        attr,
        attr_key: attr_name.to_ascii_lowercase(),
        pattern: pattern.to_string(),
        icase,
        literal: non_regex_pattern(pattern),
        features,
        loc: loc.clone(),
        record,
    })
}

fn quote(a: &str) -> String {
    if a.is_empty() || a.contains(char::is_whitespace) {
        format!("\"{a}\"")
    } else {
        a.to_string()
    }
}

/// `non_regex_pattern`: the unescaped text when the pattern uses no regex syntax (only plain
/// characters and backslash-escaped metacharacters, a trailing backslash included); httpd
/// then matches it as a substring and never compiles it.
pub(crate) fn non_regex_pattern(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut in_escape = false;
    for c in s.chars() {
        match c {
            '^' | '.' | '$' | '|' | '(' | ')' | '[' | ']' | '*' | '+' | '?' | '{' | '}' => {
                if !in_escape {
                    return None;
                }
                in_escape = false;
                out.push(c);
            }
            '\\' => {
                if in_escape {
                    out.push('\\');
                }
                in_escape = !in_escape;
            }
            _ => {
                if in_escape {
                    return None;
                }
                out.push(c);
            }
        }
    }
    Some(out)
}

/// Runs `f` on the regex compiled as httpd compiles it (PCRE2, bytes), cached per thread;
/// None when it does not compile. A configuration's SetEnvIf lines are few and every request
/// runs all of them: keep many.
fn with_compiled<T>(pattern: &str, icase: bool, f: impl FnOnce(&Pcre) -> T) -> Option<T> {
    use super::regex_cache::{with_cached, RegexCache};
    thread_local! {
        static CACHE: RegexCache<Pcre> = Default::default();
    }
    with_cached(&CACHE, 1024, pattern, icase, || crate::ide::access::compile_regex(pattern, icase), f)
}

fn has_substitution(template: &str) -> bool {
    let t = template.as_bytes();
    t.iter().enumerate().any(|(i, &c)| c == b'$' && t.get(i + 1).is_some_and(u8::is_ascii_digit))
}

/// Which stage runs: the server configuration (post_read_request) or the per-directory one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Server,
    PerDir,
}

struct Ctx<'a> {
    req: &'a Request,
    inputs: &'a EnvInputs,
    raw_uri: String,
    uri: String,
    /// HostnameLookups in effect for the stage (Off/On/Double, lowercase).
    lookups: String,
    /// `RequestHeader … early` rewrites headers before the server stage.
    early_headers: bool,
}

impl Ctx<'_> {
    fn header(&self, name: &str) -> Option<String> {
        let vals: Vec<&str> =
            self.inputs.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str()).collect();
        // httpd merges repeated request headers into one, comma-separated.
        (!vals.is_empty()).then(|| vals.join(", "))
    }

    fn value(&self, rule: &Rule, stage: Stage, env: &Env) -> Text {
        let unknown_header = |what: &str| {
            Text::Unknown(format!(
                "the request header {what} is not given (explain --header NAME:VALUE, --only-headers)"
            ))
        };
        match &rule.attr {
            Attr::RemoteAddr => Text::Known(self.req.client.to_string()),
            Attr::ServerAddr => Text::Known(self.req.local_addr.to_string()),
            Attr::RequestMethod => Text::Known(self.req.method.clone()),
            Attr::RequestProtocol => Text::Known(self.inputs.protocol.clone()),
            Attr::RequestUri => {
                Text::Known(if stage == Stage::Server { self.raw_uri.clone() } else { self.uri.clone() })
            }
            Attr::RemoteHost => remote_host(&self.lookups, self.req.client, &self.req.client_host),
            Attr::Expr => Text::Unknown("SetEnvIfExpr expressions are not evaluated".into()),
            _ if self.early_headers => {
                Text::Unknown("`RequestHeader … early` may change the request headers first".into())
            }
            Attr::Header(name) => match self.header(name) {
                Some(v) => Text::Known(v),
                None if !self.inputs.headers_complete => unknown_header(name),
                // Absent header: the variable of that name, "" when absent too.
                None => match env.get(name) {
                    Val::Set(v) => Text::Known(v),
                    Val::Absent => Text::Known(String::new()),
                    Val::SetUnknown | Val::Unknown => Text::Unknown(format!(
                        "the variable {name} (tested when no header {name} is sent) is not known"
                    )),
                },
            },
            Attr::HeaderRegex(re) => {
                if !self.inputs.headers_complete {
                    return unknown_header(&format!("matching /{re}/"));
                }
                let mut merged: Vec<(String, String)> = Vec::new();
                for (n, v) in &self.inputs.headers {
                    match merged.iter_mut().find(|(m, _)| m.eq_ignore_ascii_case(n)) {
                        Some((_, mv)) => {
                            mv.push_str(", ");
                            mv.push_str(v);
                        }
                        None => merged.push((n.clone(), v.clone())),
                    }
                }
                // The last header whose name matches; unknown when one could not be tested.
                let last = with_compiled(re, rule.icase, |r| {
                    for (n, v) in merged.iter().rev() {
                        match r.is_match(n.as_bytes()) {
                            Some(true) => return Some(Some(v.clone())),
                            Some(false) => {}
                            None => return None,
                        }
                    }
                    Some(None)
                })
                .flatten();
                match last {
                    Some(last) => Text::Known(last.unwrap_or_default()),
                    None => Text::Unknown(format!("the header-name regular expression {re} is not supported")),
                }
            }
        }
    }
}

/// `ap_get_useragent_host(r, REMOTE_NAME)` on a fresh connection: the IP string unless
/// HostnameLookups looks the name up.
fn remote_host(lookups: &str, client: IpAddr, host: &HostKnowledge) -> Text {
    match (lookups, host) {
        ("on" | "double", HostKnowledge::Known(n)) => Text::Known(n.to_ascii_lowercase()),
        ("double", HostKnowledge::NoName) => Text::Known(client.to_string()),
        ("on" | "double", _) => {
            Text::Unknown("Remote_Host needs the client's host name (HostnameLookups), which is not known".into())
        }
        _ => Text::Known(client.to_string()),
    }
}

fn run<'r>(rules: impl IntoIterator<Item = &'r Rule>, stage: Stage, ctx: &Ctx, env: &mut Env) {
    let mut last: Option<(usize, &str)> = None;
    let mut val = Text::Known(String::new());
    for rule in rules {
        if !matches!(rule.attr, Attr::Expr) {
            let key = (rule.record, rule.attr_key.as_str());
            if last.as_ref() != Some(&key) {
                last = Some(key);
                val = ctx.value(rule, stage, env);
            }
        }
        // (matched?, regex captures for substitution)
        let (matched, subject): (Result<bool, String>, Option<String>) = match (&rule.attr, &val) {
            (Attr::Expr, _) => (Err("SetEnvIfExpr expressions are not evaluated".into()), None),
            (_, Text::Unknown(why)) => (Err(why.clone()), None),
            (_, Text::Known(v)) => match &rule.literal {
                Some(lit) => {
                    let ok = if rule.icase {
                        v.to_ascii_lowercase().contains(&lit.to_ascii_lowercase())
                    } else {
                        v.contains(lit.as_str())
                    };
                    (Ok(ok), None)
                }
                None => match with_compiled(&rule.pattern, rule.icase, |re| re.is_match(v.as_bytes())).flatten() {
                    Some(m) => (Ok(m), Some(v.clone())),
                    None => (Err(format!("the regular expression {} is not supported", rule.pattern)), None),
                },
            },
        };
        if matches!(rule.attr, Attr::Expr) {
            // ap_expr_exec_re may replace the value a following line of the same run reads.
            val = Text::Unknown("an earlier SetEnvIfExpr line may have changed the value".into());
        }
        match matched {
            Ok(false) => {}
            Ok(true) => {
                for (var, f) in &rule.features {
                    let v = match f {
                        Feature::Unset => Val::Absent,
                        Feature::Set(t) if t.starts_with('!') => Val::Absent,
                        Feature::Set(t) => match (&rule.literal, &subject) {
                            (None, Some(s)) => {
                                let set = with_compiled(&rule.pattern, rule.icase, |re| {
                                    re.captures(s.as_bytes())
                                        .filter(|c| !c.is_empty())
                                        .map(|c| pregsub(t, s.as_bytes(), &c))
                                })
                                .flatten();
                                Val::Set(set.unwrap_or_else(|| t.clone()))
                            }
                            _ => Val::Set(t.clone()),
                        },
                    };
                    env.set(var, v, rule, None);
                }
            }
            Err(why) => {
                for (var, f) in &rule.features {
                    let if_matched = match f {
                        Feature::Unset => Val::Absent,
                        Feature::Set(t) if t.starts_with('!') => Val::Absent,
                        Feature::Set(t) if rule.literal.is_none() && has_substitution(t) => Val::SetUnknown,
                        Feature::Set(t) => Val::Set(t.clone()),
                    };
                    let old = env.get(var);
                    let new = old.join(&if_matched);
                    let because = (new != old).then(|| why.clone());
                    env.set(var, new, rule, because);
                }
            }
        }
    }
}

/// The `SetEnvIf`-family lines of a body, in order.
fn rules_of(items: &[Item], record: usize, out: &mut Vec<Rule>) {
    for it in crate::ide::policy::items::level_items(items) {
        if let Item::Directive { name, args, loc, .. } = it {
            if is_setenvif(name) {
                out.extend(parse_rule(name, args, loc, record));
            }
        }
    }
}

fn node_rules(cfg: &Config, nodes: &[Node], record: usize, out: &mut Vec<Rule>) {
    for n in crate::ide::config::level_directives(nodes).filter(|n| is_setenvif(n.name())) {
        let loc = Loc {
            file: cfg.file(n.loc.file).path.clone(),
            line: cfg.line(&n.loc),
            range: (n.loc.range.start().into(), n.loc.range.end().into()),
        };
        out.extend(parse_rule(n.name(), &n.args().collect::<Vec<_>>(), &loc, record));
    }
}

/// What [`access_env`] reads of the main server's level (its top-level directives), found
/// once per configuration (`Index::setenvif_main`): a batch over every
/// section must not scan the top level, which holds every virtual host, per request.
pub struct MainLevel {
    /// Index in `cfg.nodes` of the last `HostnameLookups`.
    lookups_at: Option<usize>,
    early_headers: bool,
    rules: Vec<Rule>,
    rewrite_rules: Vec<usize>,
}

impl MainLevel {
    fn of(cfg: &Config) -> MainLevel {
        let mut rules = Vec::new();
        node_rules(cfg, &cfg.nodes, 0, &mut rules);
        let directive = |n: &Node, name: &str| n.kind == NodeKind::Directive && n.is(name);
        MainLevel {
            lookups_at: cfg.nodes.iter().rposition(|n| directive(n, "HostnameLookups")),
            early_headers: cfg.nodes.iter().any(|n| {
                directive(n, "RequestHeader") && n.args().last().is_some_and(|a| a.eq_ignore_ascii_case("early"))
            }),
            rules,
            rewrite_rules: (0..cfg.nodes.len()).filter(|&i| directive(&cfg.nodes[i], "RewriteRule")).collect(),
        }
    }
}

impl std::fmt::Debug for MainLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MainLevel").field("rules", &self.rules.len()).finish()
    }
}

fn last_directive<'a>(nodes: &'a [Node], name: &str) -> Option<&'a Node> {
    nodes.iter().rev().find(|n| n.kind == NodeKind::Directive && n.is(name))
}

/// The environment of a request at access-check time.
///
/// `vhost` is the virtual host serving it (None: the main server); `per_dir` the directives of
/// the sections that apply, in merge order, each with the index of its section (a
/// configuration record of its own); `raw_path` the request target as sent.
pub fn access_env(
    cfg: &Config,
    vhost: Option<&Node>,
    per_dir: &[(usize, Item)],
    match_vars: &[(String, String)],
    raw_path: &str,
    req: &Request,
    inputs: &EnvInputs,
) -> EnvReport {
    let loaded = |m: &str| cfg.module_loaded(m);
    let main = cfg.index().setenvif_main.get_or_init(|| MainLevel::of(cfg));
    let mut env = Env { vars: BTreeMap::new(), steps: vec![] };
    for (k, v) in &inputs.inherited {
        env.vars.insert(k.to_ascii_lowercase(), (k.clone(), v.clone()));
        env.steps.push(EnvStep {
            var: k.clone(),
            value: v.clone(),
            rule: "copied by the internal redirect".into(),
            loc: None,
            unknown_because: (*v == Val::Unknown).then(|| "its value in the request redirected is not known".into()),
        });
    }
    let server_lookups = vhost
        .and_then(|v| last_directive(&v.children, "HostnameLookups"))
        .or_else(|| main.lookups_at.map(|i| &cfg.nodes[i]))
        .and_then(|d| d.arg(0))
        .map(|a| a.to_ascii_lowercase())
        .unwrap_or_else(|| "off".into());
    let early = |n: &Node| {
        n.kind == NodeKind::Directive
            && n.is("RequestHeader")
            && n.args().last().is_some_and(|a| a.eq_ignore_ascii_case("early"))
    };
    let early_headers =
        loaded("headers_module") && (main.early_headers || vhost.is_some_and(|v| v.children.iter().any(early)));
    let mut ctx = Ctx {
        req,
        inputs,
        raw_uri: raw_path.split(['?', '#']).next().unwrap_or("").to_string(),
        uri: normalize_url(raw_path),
        lookups: server_lookups,
        early_headers,
    };
    if loaded("unique_id_module") {
        env.vars.insert("unique_id".into(), ("UNIQUE_ID".into(), Val::SetUnknown));
    }
    if loaded("setenvif_module") {
        // The main server's lines, then the virtual host's (not copied: this runs per request).
        let mut own = Vec::new();
        if let Some(v) = vhost {
            node_rules(cfg, &v.children, 1, &mut own);
        }
        run(main.rules.iter().chain(&own), Stage::Server, &ctx, &mut env);
    }
    // Server-level RewriteRules run in translate_name, between the two stages.
    if loaded("rewrite_module") {
        let top = main.rewrite_rules.iter().map(|&i| &cfg.nodes[i]);
        let top = top.chain(vhost.map(|v| &v.children[..]).unwrap_or(&[]).iter().filter(|n| n.is("RewriteRule")));
        for n in top.filter(|n| n.kind == NodeKind::Directive) {
            for var in rewrite_env_vars(n.arg(2)) {
                let loc = Loc {
                    file: cfg.file(n.loc.file).path.clone(),
                    line: cfg.line(&n.loc),
                    range: (n.loc.range.start().into(), n.loc.range.end().into()),
                };
                let rule = Rule {
                    text: format!("RewriteRule {}", n.raw_args()),
                    attr: Attr::Expr,
                    attr_key: String::new(),
                    pattern: String::new(),
                    icase: false,
                    literal: None,
                    features: vec![],
                    loc,
                    record: 0,
                };
                env.set(&var, Val::Unknown, &rule, Some("RewriteRule flags are not evaluated".into()));
            }
        }
    }
    // The walks (after translate_name, before the header parser) set the named groups of the
    // regex sections that matched.
    for (k, v) in match_vars {
        env.vars.insert(k.to_ascii_lowercase(), (k.clone(), Val::Set(v.clone())));
        env.steps.push(EnvStep {
            var: k.clone(),
            value: Val::Set(v.clone()),
            rule: "a named group of a regex section matching the request".into(),
            loc: None,
            unknown_because: None,
        });
    }
    if loaded("setenvif_module") {
        let mut rules = Vec::new();
        for (record, item) in per_dir {
            rules_of(std::slice::from_ref(item), record + 2, &mut rules);
        }
        if let Some(l) = per_dir.iter().rev().find_map(|(_, i)| match i {
            Item::Directive { name, args, .. } if name.eq_ignore_ascii_case("HostnameLookups") => args.first(),
            _ => None,
        }) {
            ctx.lookups = l.to_ascii_lowercase().to_string();
        }
        run(&rules, Stage::PerDir, &ctx, &mut env);
    }
    for (k, v) in &inputs.overrides {
        let val = match v {
            Some(s) => Val::Set(s.clone()),
            None => Val::Absent,
        };
        env.vars.insert(k.to_ascii_lowercase(), (k.clone(), val.clone()));
        env.steps.push(EnvStep {
            var: k.clone(),
            value: val,
            rule: "given with --env".into(),
            loc: None,
            unknown_because: None,
        });
    }
    EnvReport { vars: env.vars.into_values().collect(), steps: env.steps }
}

/// The variables a RewriteRule's flags set (`E=VAR:value`, `env=VAR`, `E=!VAR`).
fn rewrite_env_vars(flags: Option<&str>) -> Vec<String> {
    let flags = crate::ide::rewrite_flags::RuleFlags::read(flags);
    flags
        .values(crate::ide::rewrite_flags::RuleFlag::Env)
        .map(|v| v.trim_start_matches('!').split(':').next().unwrap_or(""))
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .collect()
}

/// Adds to an "environment variable X is not known" reason why X is not known.
pub fn explain_unknown(reason: &str, report: &EnvReport) -> String {
    let mut out = reason.to_string();
    for (var, _) in report.vars.iter().filter(|(_, v)| *v == Val::Unknown) {
        if reason.contains(&format!("environment variable {var} is not known")) {
            let why = report.why_unknown(var);
            if !why.is_empty() {
                let _ = write!(out, "; {var} depends on {}", why.join(", "));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;
    use expect_test::{expect, Expect};
    use std::path::Path;

    fn env_of(fixture: &str, client: &str, path: &str, inputs: &EnvInputs, per_dir_section: Option<&str>) -> String {
        let fx = Fixture::parse(fixture);
        let cfg = load(Path::new(&fx.0[0].0), &fx);
        let mut req = Request::new("GET", client.parse().unwrap(), "127.0.0.1".parse().unwrap());
        req.client_host = HostKnowledge::Known("localhost".into());
        let mut per_dir = Vec::new();
        if let Some(sec) = per_dir_section {
            for (i, n) in cfg.nodes.iter().filter(|n| n.is_section() && n.is(sec)).enumerate() {
                for it in crate::ide::access::body_items(&cfg, n) {
                    per_dir.push((i, it));
                }
            }
        }
        let r = access_env(&cfg, None, &per_dir, &[], path, &req, inputs);
        let mut s = String::new();
        for (k, v) in &r.vars {
            let _ = writeln!(s, "{k}: {v:?}");
        }
        s
    }

    fn check(fixture: &str, client: &str, path: &str, inputs: &EnvInputs, expect: Expect) {
        expect.assert_eq(&env_of(fixture, client, path, inputs, Some("Directory")));
    }

    const MODS: &str = "LoadModule setenvif_module m\n";

    fn complete(headers: &[(&str, &str)]) -> EnvInputs {
        EnvInputs {
            headers: headers.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
            headers_complete: true,
            ..EnvInputs::default()
        }
    }

    #[test]
    fn remote_addr_and_features() {
        let f = format!(
            "//- /c/httpd.conf\n{MODS}SetEnvIf Remote_Addr ^127\\.0\\.0\\.(\\d)$ LAST=$1 WHOLE=& ONE EMPTY= BANG=!x !GONE\nSetEnvIf Remote_Addr 127\\.0\\.0 PLAIN=$1\n"
        );
        check(
            &f,
            "127.0.0.2",
            "/",
            &EnvInputs::default(),
            expect![[r#"
                BANG: Absent
                EMPTY: Set("1")
                GONE: Absent
                LAST: Set("2")
                ONE: Set("1")
                PLAIN: Set("$1")
                WHOLE: Set("&")
            "#]],
        );
    }

    #[test]
    fn server_stage_sees_the_raw_uri_per_dir_stage_the_normalised_one() {
        let f = format!(
            "//- /c/httpd.conf\n{MODS}SetEnvIf Request_URI ^/s%75b/ RAW\nSetEnvIf Request_URI ^/sub/ S_DECODED\n<Directory />\nSetEnvIf Request_URI ^/s%75b/ D_RAW\nSetEnvIf Request_URI ^/sub/ DECODED\nSetEnvIf RAW 1 FROM_SERVER_STAGE\n</Directory>\n"
        );
        check(
            &f,
            "127.0.0.1",
            "/s%75b//x",
            &complete(&[]),
            expect![[r#"
                DECODED: Set("1")
                FROM_SERVER_STAGE: Set("1")
                RAW: Set("1")
            "#]],
        );
    }

    #[test]
    fn headers_unknown_unless_given_or_complete() {
        let f = format!(
            "//- /c/httpd.conf\n{MODS}BrowserMatchNoCase ^curl CURL\nSetEnvIf X-Test ^$ NO_TEST\nSetEnvIf ^X-T.*$ yes RE_HEADER\nSetEnvIf Referer . HAS_REF\n"
        );
        check(
            &f,
            "127.0.0.1",
            "/",
            &EnvInputs { headers: vec![("User-Agent".into(), "CURL/8".into())], ..EnvInputs::default() },
            expect![[r#"
                CURL: Set("1")
                HAS_REF: Unknown
                NO_TEST: Unknown
                RE_HEADER: Unknown
            "#]],
        );
        check(
            &f,
            "127.0.0.1",
            "/",
            &complete(&[("X-Thing", "yes"), ("User-Agent", "Mozilla")]),
            expect![[r#"
                NO_TEST: Set("1")
                RE_HEADER: Set("1")
            "#]],
        );
    }

    #[test]
    fn absent_header_falls_back_to_the_variable() {
        let f = format!("//- /c/httpd.conf\n{MODS}SetEnvIf Remote_Addr . A=x\nSetEnvIf A ^x$ B\n");
        check(
            &f,
            "127.0.0.1",
            "/",
            &complete(&[]),
            expect![[r#"
                A: Set("x")
                B: Set("1")
            "#]],
        );
    }

    #[test]
    fn unknown_match_only_blurs_what_differs() {
        // `!ABSENT` leaves an absent variable absent whatever the header says.
        let f =
            format!("//- /c/httpd.conf\n{MODS}SetEnvIf Remote_Addr . KEEP=1\nSetEnvIf X-Y y KEEP=1 !ABSENT MAYBE=$0\n");
        check(
            &f,
            "127.0.0.1",
            "/",
            &EnvInputs::default(),
            expect![[r#"
                ABSENT: Absent
                KEEP: Set("1")
                MAYBE: Unknown
            "#]],
        );
    }

    #[test]
    fn remote_host_is_the_address_without_hostname_lookups() {
        let f =
            format!("//- /c/httpd.conf\n{MODS}SetEnvIf Remote_Host ^127 IP\nSetEnvIf Remote_Host ^localhost$ NAME\n");
        check(
            &f,
            "127.0.0.1",
            "/",
            &EnvInputs::default(),
            expect![[r#"
            IP: Set("1")
        "#]],
        );
        let f = format!("//- /c/httpd.conf\n{MODS}HostnameLookups On\nSetEnvIf Remote_Host ^localhost$ NAME\n");
        check(
            &f,
            "127.0.0.1",
            "/",
            &EnvInputs::default(),
            expect![[r#"
            NAME: Set("1")
        "#]],
        );
    }

    #[test]
    fn without_mod_setenvif_nothing_is_set() {
        check(
            "//- /c/httpd.conf\nLoadModule authz_core_module m\nSetEnvIf Remote_Addr . A\n",
            "127.0.0.1",
            "/",
            &EnvInputs::default(),
            expect![[r#""#]],
        );
    }

    #[test]
    fn overrides_win() {
        let f = format!("//- /c/httpd.conf\n{MODS}SetEnvIf Remote_Addr . A\n");
        let inputs =
            EnvInputs { overrides: vec![("A".into(), None), ("B".into(), Some("2".into()))], ..EnvInputs::default() };
        check(
            &f,
            "127.0.0.1",
            "/",
            &inputs,
            expect![[r#"
            A: Absent
            B: Set("2")
        "#]],
        );
    }

    #[test]
    fn non_regex_patterns_are_unescaped_substrings() {
        assert_eq!(non_regex_pattern("127\\.0"), Some("127.0".into()));
        assert_eq!(non_regex_pattern("Mozilla/4"), Some("Mozilla/4".into()));
        assert_eq!(non_regex_pattern("^Mozilla"), None);
        assert_eq!(non_regex_pattern("\\d"), None);
    }
}
