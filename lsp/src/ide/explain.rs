//! Feature: explain one request — the chain of sections, the request environment, mod_dir's
//! DirectoryIndex subrequest, the deciding rule, what httpd logs (and whether LogLevel lets it),
//! the status.

use crate::ide::access::branches::{self, Decided};
use crate::ide::access::{
    effective_decided, rejected_target, AppliedSection, Effective, EncodedSlashes, FsView, Rejected, RequestSpec,
};
use crate::ide::config::Config;
use crate::ide::error_document::Redirect;
use crate::ide::handler::Answer;
use crate::ide::policy::{Deciding, EnvVar, Layer, LogEntry, LogLevel, Outcome, TraceStep};
use crate::ide::setenvif::{EnvInputs, Val};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// One explained request.
#[derive(Debug)]
pub struct Explained {
    pub effective: Effective,
    /// For each entry of `effective.outcome.log`, why httpd does not write it (LogLevel).
    pub suppressed: Vec<Option<String>>,
    /// Why the port the client connected to is not known, when virtual hosts make it matter:
    /// every virtual host is then a candidate, whatever its address.
    pub port_unknown: Option<String>,
    /// When httpd answers the request target before walking any section (a `..` above the
    /// root, a bad escape, `%2F`, `%00`): no section, access check or file applies then.
    pub rejected: Option<Rejected>,
    /// What answers once access control passed: the file system through the default handler
    /// or mod_dir (its status is then `outcome.status`), or a handler explain does not predict.
    pub answer: Option<Answer>,
    /// The ErrorDocument naming a URL that turns the error answer into a redirect (302).
    pub error_document: Option<Redirect>,
    /// Whether `answer` is a redirect at translate_name, before the walk and access control
    /// ([`crate::ide::alias_redirect::at_translation`]).
    pub translated: bool,
}

impl std::ops::Deref for Explained {
    type Target = Effective;
    fn deref(&self) -> &Effective {
        &self.effective
    }
}

/// Explains `spec` with SetEnvIf evaluated from what `spec` says: the Host header from
/// `spec.host`, other headers unknown, `spec.request.env` as given values.
pub fn explain(cfg: &Config, spec: &RequestSpec) -> Explained {
    let inputs = EnvInputs {
        headers: spec.host.iter().map(|h| ("Host".to_string(), h.clone())).collect(),
        overrides: spec
            .request
            .env
            .vars
            .iter()
            .filter_map(|(k, v)| match v {
                EnvVar::Set(s) => Some((k.clone(), Some(s.clone()))),
                EnvVar::Absent => Some((k.clone(), None)),
                EnvVar::Unknown => None,
            })
            .collect(),
        ..EnvInputs::default()
    };
    explain_with(cfg, spec, &inputs)
}

/// Explains `spec` with SetEnvIf evaluated from `inputs`. When the port the client connected to
/// is not known (no `--port`, no port in the URL) and `Listen` names several, the request is
/// explained on each listening port (each picks its own virtual host): the status is given when
/// every port gives the same one, else it is unknown with every port's statuses possible.
pub fn explain_with(cfg: &Config, spec: &RequestSpec, inputs: &EnvInputs) -> Explained {
    // (A Listen on an address of the other family is not one this client reaches.)
    let client_v4 = spec.request.client.is_ipv4();
    let listens: Vec<_> =
        listen_addresses(cfg).into_iter().filter(|(a, _)| a.is_none_or(|a| a.is_ipv4() == client_v4)).collect();
    if spec.request.local_port.is_some() || listens.len() < 2 || cfg.index().vhosts.is_empty() {
        return explain_one(cfg, spec, inputs);
    }
    let mut each: Vec<(u16, Explained)> = listens
        .iter()
        .map(|&(addr, port)| {
            let mut on = spec.clone();
            on.request.local_port = Some(port);
            // A Listen on one address is the connection's local address too.
            if let Some(a) = addr {
                on.request.local_addr = a;
            }
            (port, explain_one(cfg, &on, inputs))
        })
        .collect();
    let per_port = each
        .iter()
        .map(|(port, e)| {
            let status = e
                .outcome
                .status
                .map_or_else(|| format!("unknown {:?}", e.outcome.possible_statuses), |s| s.to_string());
            format!("port {port}: {} → {status}", e.virtual_host.as_deref().unwrap_or("main server"))
        })
        .collect::<Vec<_>>()
        .join("; ");
    let ports = listens.iter().map(|(_, p)| p.to_string()).collect::<Vec<_>>().join(", ");
    let first_status = each[0].1.outcome.status;
    let agree = first_status.is_some() && each.iter().all(|(_, e)| e.outcome.status == first_status);
    let mut possible: Vec<u16> = each
        .iter()
        .flat_map(|(_, e)| e.outcome.status.into_iter().chain(e.outcome.possible_statuses.iter().copied()))
        .collect();
    possible.sort_unstable();
    possible.dedup();
    let (_, mut first) = each.swap_remove(0);
    if agree {
        first.port_unknown = Some(format!(
            "the port the client connected to is not known (Listen names {ports}; give --port); every port gives the \
             same status ({per_port}); shown: port {}",
            listens[0].1
        ));
    } else {
        let why = format!(
            "the port the client connected to is not known (Listen names {ports}; give --port), and the ports answer \
             differently: {per_port}"
        );
        let o = &mut first.effective.outcome;
        o.status = None;
        o.possible_statuses = possible;
        o.reason_unknown = Some(why.clone());
        first.port_unknown = Some(format!("{why}; shown: port {}", listens[0].1));
    }
    first
}

/// Every distinct (address, port) the `Listen` lines name, in order: the address when one
/// is named (not a wildcard), None otherwise.
pub(crate) fn listen_addresses(cfg: &Config) -> Vec<(Option<std::net::IpAddr>, u16)> {
    let mut out = Vec::new();
    for n in cfg.nodes.iter().filter(|n| n.kind == crate::ide::config::NodeKind::Directive && n.is("Listen")) {
        let Some(arg) = n.args().next() else { continue };
        let Some(port) = crate::ide::access::listen_word_port(arg) else { continue };
        let host = match arg.strip_prefix('[') {
            Some(v6) => v6.split_once(']').map(|(h, _)| h),
            None => arg.rsplit_once(':').map(|(h, _)| h),
        };
        let addr = host.and_then(|h| h.parse::<std::net::IpAddr>().ok()).filter(|a| !a.is_unspecified());
        if !out.contains(&(addr, port)) {
            out.push((addr, port));
        }
    }
    out
}

/// [`explain_with`] on the connection `spec` describes. Where `<If>` chains on the request's way
/// hold what its answer reads, the request is explained again with each combination of their
/// branches ([`branches::combinations`]): when one answers otherwise, the status is unknown,
/// every combination's answer possible.
fn explain_one(cfg: &Config, spec: &RequestSpec, inputs: &EnvInputs) -> Explained {
    let base = explain_decided(cfg, spec, inputs, None);
    if base.rejected.is_some() {
        return base;
    }
    // mod_remoteip may give the request another client address (post_read_request, before
    // anything else reads it).
    match crate::ide::remote_ip::client(cfg, base.vhost_node, spec.request.client, inputs) {
        crate::ide::remote_ip::Client::Connection => explain_client(cfg, spec, inputs, base),
        crate::ide::remote_ip::Client::Header(addr, why) => {
            let mut from = spec.clone();
            from.request.client = addr;
            let mut x = explain_client(cfg, &from, inputs, explain_decided(cfg, &from, inputs, None));
            x.effective.outcome.trace.insert(0, TraceStep { depth: 0, text: why, loc: None });
            x
        }
        crate::ide::remote_ip::Client::Unknown(why) => {
            // The connection's address, and those the rules name with an outsider: the answer
            // is known when they all give the same one.
            let mut clients = vec![spec.request.client];
            for (_, a) in crate::ide::hover::representative_clients(&[cfg]) {
                if !clients.contains(&a) {
                    clients.push(a);
                }
            }
            let each: Vec<(std::net::IpAddr, Explained)> = clients
                .iter()
                .map(|&a| {
                    let mut from = spec.clone();
                    from.request.client = a;
                    (a, explain_client(cfg, &from, inputs, explain_decided(cfg, &from, inputs, None)))
                })
                .collect();
            let first = explain_client(cfg, spec, inputs, base);
            let Some(possible) = differing(&first, each.iter().map(|(_, x)| x)) else { return first };
            let per = each.iter().map(|(a, x)| format!("{a}: {}", answer_words(x))).collect::<Vec<_>>().join("; ");
            made_unknown(first, possible, format!("{why}; the answer depends on the client address ({per})"))
        }
    }
}

/// [`explain_one`] for the client address `spec` gives (`base`: explained with the `<If>`
/// branches untold).
fn explain_client(cfg: &Config, spec: &RequestSpec, inputs: &EnvInputs, base: Explained) -> Explained {
    if base.effective.chains.is_empty() {
        return base;
    }
    over_branches(cfg, spec, inputs, base)
}

/// The statuses an explained request may get: its status (with those the handler may answer
/// instead, when it is not predicted), or the statuses possible.
fn statuses(x: &Explained) -> Vec<u16> {
    match (x.outcome.status, &x.answer) {
        (Some(s), Some(Answer::Handler { may, .. })) => std::iter::once(s).chain(may.iter().copied()).collect(),
        (Some(s), _) => vec![s],
        (None, _) => x.outcome.possible_statuses.clone(),
    }
}

/// An explained request's answer in a few words.
fn answer_words(x: &Explained) -> String {
    match (x.outcome.status, &x.answer) {
        (Some(s), Some(Answer::Handler { why, .. })) => format!("{s} unless the handler answers otherwise ({why})"),
        (Some(s), _) => s.to_string(),
        (None, _) => format!("unknown {:?}", x.outcome.possible_statuses),
    }
}

/// `base` (the request explained with the `<If>` branches untold) against every combination of
/// the branches of the chains on its way: kept when each gives its answer, else unknown with
/// the statuses of all of them possible.
fn over_branches(cfg: &Config, spec: &RequestSpec, inputs: &EnvInputs, base: Explained) -> Explained {
    let chains = base.effective.chains.clone();
    let places = chains
        .iter()
        .flatten()
        .map(|b| format!("{} (holding {})", branches::place(cfg, b), branches::holding(cfg, b).join(", ")))
        .collect::<Vec<_>>()
        .join(", ");
    let known = branches::expr_request(cfg, spec, inputs);
    let value = |b: &branches::Branch| branches::condition(cfg, b, &known);
    let (possible, why) = match branches::combinations(cfg, &chains, &value) {
        None => (
            statuses(&base),
            format!(
                "the expressions of {places} are not evaluated to a known value for this request, and their branches \
                 make more than {} combinations: the statuses listed are those with no branch applying",
                branches::MAX_COMBINATIONS
            ),
        ),
        Some(combos) if combos.len() == 1 => {
            // Every condition on the way is known: httpd takes these branches.
            let d = &combos[0];
            let mut x = explain_decided(cfg, spec, inputs, Some(d));
            let text = format!(
                "the expressions of {places} evaluated against the request: httpd walks the request {}",
                branches::describe(cfg, d)
            );
            x.effective.outcome.trace.insert(0, TraceStep { depth: 0, text, loc: None });
            return x;
        }
        Some(combos) => {
            let each: Vec<(Decided, Explained)> =
                combos.into_iter().map(|d| (d.clone(), explain_decided(cfg, spec, inputs, Some(&d)))).collect();
            let Some(possible) = differing(&base, each.iter().map(|(_, x)| x)) else { return base };
            let per = each
                .iter()
                .map(|(d, x)| format!("{}: {}", branches::describe(cfg, d), answer_words(x)))
                .collect::<Vec<_>>()
                .join("; ");
            let mut why = format!(
                "the expressions of {places} are not evaluated to a known value for this request, and the answer \
                 depends on them ({per})"
            );
            // What else is unknown whichever branch applies.
            if let Some(r) = each.iter().find_map(|(_, x)| x.outcome.reason_unknown.as_ref()) {
                why.push_str(&format!("; {r}"));
            }
            (possible, why)
        }
    };
    made_unknown(base, possible, why)
}

/// The statuses the explained requests `each` may get, or None when `base`'s answer is known
/// and each of them gives it.
fn differing<'x>(base: &Explained, each: impl Iterator<Item = &'x Explained> + Clone) -> Option<Vec<u16>> {
    let same = |x: &Explained| {
        x.outcome.status == base.outcome.status && x.answer == base.answer && x.error_document == base.error_document
    };
    if base.outcome.status.is_some() && each.clone().all(same) {
        return None;
    }
    let mut possible: Vec<u16> = each.flat_map(statuses).collect();
    possible.sort_unstable();
    possible.dedup();
    Some(possible)
}

/// `x` with its status unknown: `possible` the statuses it may get, `why` the reason.
fn made_unknown(mut x: Explained, possible: Vec<u16>, why: String) -> Explained {
    let o = &mut x.effective.outcome;
    o.status = None;
    o.possible_statuses = possible;
    o.reason_unknown = Some(why);
    x.answer = None;
    x.error_document = None;
    x
}

/// [`explain_one`] with the `<If>` branches of `decided` taken as applying or not (untold when
/// None).
fn explain_decided(cfg: &Config, spec: &RequestSpec, inputs: &EnvInputs, decided: Option<&Decided>) -> Explained {
    let fs = FsView::deployed();
    let mut effective = effective_decided(cfg, &fs, spec, Some(inputs), decided);
    let slashes = encoded_slashes(cfg, effective.vhost_node);
    // (explain's target is a path or an absolute URL: never the `host:port` CONNECT needs.)
    let connect = (spec.request.method == "CONNECT").then_some(Rejected::ConnectTarget);
    let rejected = line_too_long(cfg, spec)
        .or(connect)
        .or_else(|| fragment(cfg, spec))
        .or_else(|| rejected_target(&spec.path, slashes))
        .or_else(|| trace(cfg, spec, effective.vhost_node));
    if let Some(why) = rejected {
        answer_before_walk(spec, &mut effective, why, slashes);
        if let (Rejected::Trace { .. }, Some(d)) = (why, crate::ide::handler::answered_at_translation(cfg, &effective))
        {
            // Server-level redirects and rewrites run before http_core's TRACE hook.
            let o = &mut effective.outcome;
            o.possible_statuses = [why.status(), 301, 302, 303, 307, 308, 403, 410].into();
            o.possible_statuses.sort_unstable();
            o.status = None;
            o.reason_unknown = Some(format!("{d} may answer TRACE before http_core does"));
        }
    } else if slashes == EncodedSlashes::NoDecode && spec.path.to_ascii_lowercase().contains("%2f") {
        // httpd keeps `%2F` encoded in the path it maps; the walk decodes it into a `/`.
        // What httpd answers with the `%2F` kept as text: the walk decodes `%25` into `%`, so the
        // same request with `%252F` walks the name httpd maps.
        let mut kept = spec.clone();
        kept.path = spec.path.replace("%2F", "%252F").replace("%2f", "%252f");
        let literal = explain_with(cfg, &kept, inputs);
        let o = &mut effective.outcome;
        o.possible_statuses = o
            .status
            .into_iter()
            .chain([404])
            .chain(o.possible_statuses.iter().copied())
            .chain(literal.outcome.status)
            .chain(literal.outcome.possible_statuses.iter().copied())
            .collect();
        o.possible_statuses.sort_unstable();
        o.possible_statuses.dedup();
        o.status = None;
        o.reason_unknown = Some(
            "AllowEncodedSlashes NoDecode keeps %2F encoded in the path httpd maps; explain's walk decodes it into a /"
                .into(),
        );
    }
    // A server-level redirect answers at translate_name, before the walk and access control.
    let translated =
        rejected.is_none().then(|| crate::ide::alias_redirect::at_translate_name(cfg, &effective, spec)).flatten();
    let answer = match (rejected, &translated) {
        (Some(_), _) => None,
        (None, Some(r)) => crate::ide::alias_redirect::answer_at_translation(&mut effective, r),
        (None, None) => crate::ide::handler::answer(cfg, &fs, spec, &effective),
    };
    if let Some(Answer::Handler { may, .. }) = &answer {
        // What the handler may answer instead is possible too.
        let possible = &mut effective.outcome.possible_statuses;
        possible.extend(may.iter().copied());
        possible.sort_unstable();
        possible.dedup();
    }
    if let Some(Answer::Unknown { why, may }) = &answer {
        // Granted, but what answers is not known (mod_rewrite may redirect internally).
        let o = &mut effective.outcome;
        o.status = None;
        o.possible_statuses = may.clone();
        o.reason_unknown = Some(format!("access granted, then {why}"));
    }
    // Unknown, with access granted among the possible answers: what the file system answers then
    // (404, 301…) is the status that is possible, as it is when access is known to pass.
    if rejected.is_none() && effective.outcome.status.is_none() && effective.outcome.possible_statuses.contains(&200) {
        let granted = crate::ide::handler::answer_if_granted(cfg, &fs, spec, &effective);
        let possible = &mut effective.outcome.possible_statuses;
        match granted {
            Some(Answer::File { status, .. }) => {
                possible.retain(|&s| s != 200);
                possible.push(status);
            }
            // What the handler may answer instead of its 200.
            Some(Answer::Handler { may, .. } | Answer::Unknown { may, .. }) => possible.extend(may),
            None => {}
        }
        possible.sort_unstable();
        possible.dedup();
    }
    if let (Some(Answer::File { status, why, log }), None) = (&answer, &translated) {
        let o = &mut effective.outcome;
        if o.status != Some(*status) {
            o.status = Some(*status);
            o.possible_statuses = vec![*status];
            o.deciding = Some(Deciding { layer: Layer::Core, rule: why.clone(), loc: None });
        }
        o.trace.push(TraceStep { depth: 0, text: format!("access granted; {status}: {why}"), loc: None });
        o.log.extend(log.iter().cloned());
    }
    // An error answer under an ErrorDocument naming a URL is a redirect. (A walk that failed
    // before the merge leaves only the server's level in force.)
    let walk_failed = translated.is_some()
        || effective.refused_symlink.is_some()
        || effective.outcome.deciding.as_ref().is_some_and(|d| d.rule.starts_with(".htaccess error"));
    // (A target refused before the walk gets the server's: its sections are never merged.)
    let error_document = crate::ide::error_document::apply(cfg, &mut effective, walk_failed || rejected.is_some());
    let suppressed = crate::ide::loglevel::suppressed(cfg, &effective);
    let port_unknown = match (spec.request.local_port, cfg.index().vhosts.is_empty()) {
        (None, false) => Some(format!(
            "the port the client connected to is not known ({}; give --port): every virtual host was a candidate",
            listen_port(cfg).err().unwrap_or_default()
        )),
        _ => None,
    };
    let translated = translated.is_some() && answer.is_some();
    Explained { effective, suppressed, port_unknown, rejected, answer, error_document, translated }
}

/// `AllowEncodedSlashes` of the virtual host (`vhost`: its index in `cfg.nodes`), else of the main
/// server (a server-level directive: httpd reads it from the server's configuration).
fn encoded_slashes(cfg: &Config, vhost: Option<usize>) -> EncodedSlashes {
    let last = |nodes: &[crate::ide::config::Node]| {
        nodes
            .iter()
            .rev()
            .filter(|n| n.kind == crate::ide::config::NodeKind::Directive && n.is("AllowEncodedSlashes"))
            .find_map(|n| n.args().next().map(str::to_ascii_lowercase))
    };
    let value = vhost.and_then(|v| cfg.nodes.get(v)).and_then(|v| last(&v.children)).or_else(|| last(&cfg.nodes));
    match value.as_deref() {
        Some("on") => EncodedSlashes::On,
        Some("nodecode") => EncodedSlashes::NoDecode,
        _ => EncodedSlashes::Off,
    }
}

/// What httpd answers a target it refuses before the walk: the status, the rule, what it logs.
/// Nothing else of the walk applies (sections, environment, DirectoryIndex).
fn answer_before_walk(spec: &RequestSpec, e: &mut Effective, why: Rejected, slashes: EncodedSlashes) {
    let status = why.status();
    // Any 404 from `ap_unescape_url_ex` is logged as a %2f under AllowEncodedSlashes Off, a
    // `%00` too (httpd's message says so).
    let encoded_slash = LogEntry {
        ah_code: "AH00026",
        module: "core",
        level: LogLevel::Info,
        message: format!("found %2f (encoded '/') in URI path ({}), returning 404", spec.path),
    };
    let (rule, log) = match why {
        Rejected::InvalidPath => (
            "invalid URI path: a `..` above the root or a `%` without two hex digits (ap_normalize_path)",
            Some(LogEntry {
                ah_code: "AH10244",
                module: "core",
                level: LogLevel::Error,
                message: format!("invalid URI path ({})", spec.path),
            }),
        ),
        Rejected::EncodedSlash => {
            ("%2F in the path under AllowEncodedSlashes Off (ap_unescape_url)", Some(encoded_slash))
        }
        Rejected::EncodedNul => {
            ("%00 in the path (ap_unescape_url)", (slashes == EncodedSlashes::Off).then_some(encoded_slash))
        }
        Rejected::Trace { enabled: true } => {
            ("TRACE is echoed back before any section is walked (TraceEnable On, the default)", None)
        }
        Rejected::Trace { enabled: false } => ("TRACE is refused before any section is walked (TraceEnable Off)", None),
        Rejected::LineTooLong { .. } => ("the request line is longer than LimitRequestLine (read_request_line)", None),
        Rejected::ConnectTarget => ("CONNECT names a host:port, not a path (ap_parse_uri)", None),
        Rejected::Fragment => (
            "the request target holds a fragment (`#`), which HttpProtocolOptions Strict (the default) refuses \
             (ap_parse_request_line, logged at debug level only); clients strip it before sending",
            None,
        ),
    };
    e.outcome = Outcome {
        status: Some(status),
        reason_unknown: None,
        possible_statuses: vec![status],
        deciding: Some(Deciding { layer: Layer::Core, rule: rule.to_string(), loc: None }),
        trace: vec![TraceStep {
            depth: 0,
            text: format!("{status} before any section is walked: no access check runs"),
            loc: None,
        }],
        log: log.into_iter().collect(),
    };
    e.sections.clear();
    e.per_dir.clear();
    e.unknown.clear();
    e.compat = None;
    e.authz = None;
    e.env = None;
    e.index = None;
}

/// `Rejected::LineTooLong` when the request line (`METHOD target HTTP/1.1`) is longer than the
/// main server's `LimitRequestLine` (httpd reads it before it knows the virtual host).
fn line_too_long(cfg: &Config, spec: &RequestSpec) -> Option<Rejected> {
    let limit = cfg
        .nodes
        .iter()
        .rev()
        .filter(|n| n.kind == crate::ide::config::NodeKind::Directive && n.is("LimitRequestLine"))
        .find_map(|n| n.args().next().and_then(|a| a.parse::<usize>().ok()))
        .unwrap_or(8190);
    let line = spec.request.method.len() + 1 + spec.path.len() + " HTTP/1.1".len();
    // The line is read into LimitRequestLine + 2 bytes, which hold it with its line feed.
    (line > limit + 1).then_some(Rejected::LineTooLong { limit })
}

/// `Rejected::Fragment` when the target holds `#` and `HttpProtocolOptions` is not `Unsafe` for
/// the server reading the request line (the virtual host the connection reaches by address,
/// else the main server; a virtual host without the directive takes the main server's).
fn fragment(cfg: &Config, spec: &RequestSpec) -> Option<Rejected> {
    if !spec.path.contains('#') {
        return None;
    }
    let vhost = crate::ide::access::connection_vhost_node(cfg, spec);
    let strict = server_level(cfg, vhost, "HttpProtocolOptions", |n| {
        n.args().find_map(|w| match w.to_ascii_lowercase().as_str() {
            "strict" => Some(true),
            "unsafe" => Some(false),
            _ => None,
        })
    });
    strict.unwrap_or(true).then_some(Rejected::Fragment)
}

/// What the last `name` line that `value` reads something of says at the level of the virtual
/// host at `vhost` (its index in `cfg.nodes`), else at the main server's.
fn server_level<T>(
    cfg: &Config,
    vhost: Option<usize>,
    name: &str,
    value: impl Fn(&crate::ide::config::Node) -> Option<T>,
) -> Option<T> {
    let last = |nodes: &[crate::ide::config::Node]| {
        nodes.iter().rev().filter(|n| n.kind == crate::ide::config::NodeKind::Directive && n.is(name)).find_map(&value)
    };
    vhost.and_then(|v| cfg.nodes.get(v)).and_then(|v| last(&v.children)).or_else(|| last(&cfg.nodes))
}

/// `Rejected::Trace` for a TRACE request: `TraceEnable` of the virtual host (`vhost`: its index in
/// `cfg.nodes`), else of the main server.
fn trace(cfg: &Config, spec: &RequestSpec, vhost: Option<usize>) -> Option<Rejected> {
    if spec.request.method != "TRACE" {
        return None;
    }
    let value = server_level(cfg, vhost, "TraceEnable", |n| n.args().next().map(str::to_ascii_lowercase));
    Some(Rejected::Trace { enabled: value.as_deref() != Some("off") })
}

/// What `status` is (JSON `status_from`): httpd's answer before the walk (`request`: a target
/// it refuses, a redirect at translate_name), the access
/// checks' refusal (`access`), the file system's answer through the default handler or mod_dir
/// (`file`), or access granted with the handler's answer not predicted (`access-granted`).
/// None when the status is unknown.
fn status_from(e: &Explained) -> Option<&'static str> {
    e.outcome.status?;
    Some(match (&e.rejected, &e.answer) {
        (Some(_), _) => "request",
        (None, Some(_)) if e.translated => "request",
        (None, Some(Answer::File { .. })) => "file",
        (None, Some(Answer::Handler { .. } | Answer::Unknown { .. })) => "access-granted",
        (None, None) => "access",
    })
}

/// The port the server listens on, when every `Listen` directive names the same one (`Listen 80`,
/// `Listen 127.0.0.1:8080`, `Listen [::1]:8080`, `Listen 8443 https`): the port any client
/// connected to. `Err` says why it is not known (no Listen, several ports).
pub fn listen_port(cfg: &Config) -> Result<u16, String> {
    let mut ports: Vec<u16> = Vec::new();
    for n in cfg.nodes.iter().filter(|n| n.kind == crate::ide::config::NodeKind::Directive && n.is("Listen")) {
        let Some(arg) = n.args().next() else { continue };
        match crate::ide::access::listen_word_port(arg) {
            Some(p) if !ports.contains(&p) => ports.push(p),
            Some(_) => {}
            None => return Err(format!("Listen {arg} names no port")),
        }
    }
    match ports.as_slice() {
        [] => Err("no Listen directive".to_string()),
        [one] => Ok(*one),
        many => Err(format!(
            "Listen names several ports ({})",
            many.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")
        )),
    }
}

pub fn layer_name(l: Layer) -> &'static str {
    match l {
        Layer::AccessCompat => "mod_access_compat",
        Layer::AuthzCore => "mod_authz_core",
        Layer::Authn => "authentication",
        Layer::Core => "core",
    }
}

pub fn level_name(l: LogLevel) -> &'static str {
    match l {
        LogLevel::Alert => "alert",
        LogLevel::Error => "error",
        LogLevel::Warning => "warn",
        LogLevel::Info => "info",
    }
}

/// An entry as httpd writes it after the `[pid …] [client …]` part (the message escaped as
/// httpd escapes it: a path with non-ASCII bytes shows them as `\xhh`).
pub fn log_line(l: &LogEntry) -> String {
    let code = if l.ah_code.is_empty() { String::new() } else { format!("{}: ", l.ah_code) };
    format!("[{}:{}] {code}{}", l.module, level_name(l.level), crate::ide::error_log::escape(&l.message))
}

/// The access-log line shape for this request.
fn access_log_line(spec: &RequestSpec, e: &Effective) -> String {
    let status = e.outcome.status.map(|s| s.to_string()).unwrap_or_else(|| "???".into());
    format!("{} {} {} {}", spec.request.method, spec.path, status, spec.request.client)
}

fn val_text(v: &Val) -> String {
    match v {
        Val::Set(s) => format!("= {s:?}"),
        Val::SetUnknown => "set (value not known)".into(),
        Val::Absent => "absent".into(),
        Val::Unknown => "unknown".into(),
    }
}

fn section_json(s: &AppliedSection) -> Value {
    json!({
        "file": s.path.display().to_string(),
        "line": s.line,
        "kind": s.kind,
        "args": s.args,
        "access_lines": s.access_lines.iter().map(|(l, t)| json!({"line": l, "text": t})).collect::<Vec<_>>(),
        "mod_access_compat": s.compat.as_ref().map(|_| "replaces the inherited Order/Allow/Deny/Satisfy"),
        "mod_authz_core": s.authz.as_ref().map(|a| a.section.as_ref().map(|n| n.render()).unwrap_or_else(|| format!("AuthMerging {:?} with no Require", a.op))),
        "authn": s.authn.is_some(),
    })
}

pub fn to_json(spec: &RequestSpec, e: &Explained) -> Value {
    let env = e.env.as_ref().map(|r| {
        r.vars
            .iter()
            .map(|(k, v)| {
                let last = r.steps.iter().rev().find(|s| s.var.eq_ignore_ascii_case(k));
                json!({
                    "name": k,
                    "state": match v { Val::Set(_) | Val::SetUnknown => "set", Val::Absent => "absent", Val::Unknown => "unknown" },
                    "value": match v { Val::Set(s) => Some(s.clone()), _ => None },
                    "set_by": last.map(|s| json!({
                        "rule": s.rule,
                        "file": s.loc.as_ref().map(|l| l.file.display().to_string()),
                        "line": s.loc.as_ref().map(|l| l.line),
                    })),
                    "unknown_because": r.why_unknown(k),
                })
            })
            .collect::<Vec<_>>()
    });
    let index = e.index.as_ref().map(|ix| {
        json!({
            "names": ix.names,
            "served": ix.served.map(|i| ix.tries[i].url.clone()),
            "refused_by": ix.refused_by.map(|i| ix.tries[i].url.clone()),
            "subrequests": ix.tries.iter().map(|t| json!({
                "url": t.url,
                "filesystem_path": t.filesystem_path.display().to_string(),
                "regular_file": t.regular_file,
                "access_checked": !t.same_config,
                "status": t.status,
                "fallback": t.taken_over.as_ref().map(|f| f.url.clone()),
                "sections": t.effective.as_ref().map(|s| s.sections.iter().map(section_json).collect::<Vec<_>>()),
            })).collect::<Vec<_>>(),
        })
    });
    json!({
        "status": e.outcome.status,
        "status_from": status_from(e),
        "handler_unknown_because": match &e.answer {
            Some(Answer::Handler { why, .. } | Answer::Unknown { why, .. }) => Some(why.clone()),
            _ => None,
        },
        "reason": e.outcome.reason_unknown,
        "error_document": e.error_document.as_ref().map(|r| json!({
            "status": r.status,
            "location": r.location,
            "file": r.file,
            "line": r.line,
        })),
        "possible_statuses": e.outcome.possible_statuses,
        "virtual_host": e.virtual_host,
        "local_port": spec.request.local_port,
        "local_port_unknown": e.port_unknown,
        "filesystem_path": e.rejected.is_none().then(|| e.filesystem_path.display().to_string()),
        "rejected_before_walk": e.rejected.map(|r| match r {
            Rejected::InvalidPath => "invalid-path",
            Rejected::EncodedSlash => "encoded-slash",
            Rejected::EncodedNul => "encoded-nul",
            Rejected::Trace { .. } => "trace",
            Rejected::LineTooLong { .. } => "request-line-too-long",
            Rejected::ConnectTarget => "connect-target",
            Rejected::Fragment => "fragment",
        }),
        "url": spec.path,
        "method": spec.request.method,
        "client": spec.request.client.to_string(),
        "sections": e.sections.iter().map(section_json).collect::<Vec<_>>(),
        "environment": env,
        "directory_index": index,
        "deciding": e.outcome.deciding.as_ref().map(|d| json!({
            "layer": layer_name(d.layer),
            "rule": d.rule,
            "file": d.loc.as_ref().map(|l| l.file.display().to_string()),
            "line": d.loc.as_ref().map(|l| l.line),
        })),
        "trace": e.outcome.trace.iter().map(|t| t.text.clone()).collect::<Vec<_>>(),
        "error_log": e.outcome.log.iter().zip(&e.suppressed).map(|(l, sup)| json!({
            "code": l.ah_code, "module": l.module, "level": level_name(l.level), "message": l.message,
            "line": log_line(l),
            "logged": sup.is_none(),
            "not_logged_because": sup,
        })).collect::<Vec<_>>(),
        "access_log": access_log_line(spec, e),
        "startup_errors": e.errors.iter().map(|x| json!({"file": x.loc.file.display().to_string(), "line": x.loc.line, "message": x.message})).collect::<Vec<_>>(),
    })
}

fn sections_text(s: &mut String, sections: &[AppliedSection], pad: &str) {
    if sections.is_empty() {
        let _ = writeln!(s, "{pad}(none)");
    }
    for sec in sections {
        let _ = writeln!(s, "{pad}{}:{}  <{} {}>", sec.path.display(), sec.line, sec.kind, sec.args.join(" "));
        for (line, text) in &sec.access_lines {
            let _ = writeln!(s, "{pad}    {line:>5} | {text}");
        }
        if sec.compat.is_some() {
            let _ = writeln!(s, "{pad}      → mod_access_compat: replaces what it inherited");
        }
    }
}

pub fn to_text(spec: &RequestSpec, e: &Explained) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} {} from {}", spec.request.method, spec.path, spec.request.client);
    let _ = writeln!(s, "  virtual host: {}", e.virtual_host.as_deref().unwrap_or("main server"));
    match (spec.request.local_port, &e.port_unknown) {
        (_, Some(why)) => {
            let _ = writeln!(s, "  port:         unknown: {why}");
        }
        (Some(p), None) => {
            let _ = writeln!(s, "  port:         {} port {p}", spec.request.local_addr);
        }
        (None, None) => {}
    }
    match e.rejected {
        None => {
            let _ = writeln!(s, "  file system:  {}", e.filesystem_path.display());
        }
        Some(_) => {
            let _ = writeln!(s, "  file system:  none: httpd answers before mapping the URL");
        }
    }
    let _ = writeln!(s, "\nSections, in the order httpd merges them:");
    sections_text(&mut s, &e.sections, "  ");
    if let Some(r) = e.env.as_ref().filter(|r| !r.vars.is_empty()) {
        let _ = writeln!(s, "\nEnvironment at access-check time:");
        for (k, v) in &r.vars {
            // A value not known is explained by the lines whose match is not known (listed
            // below), not by the last line that may set it.
            let unknown = r.why_unknown(k);
            let by = r
                .steps
                .iter()
                .rev()
                .find(|st| st.var.eq_ignore_ascii_case(k))
                .map(|st| match &st.loc {
                    Some(l) => format!("  ({} at {}:{})", st.rule, l.file.display(), l.line),
                    None => format!("  ({})", st.rule),
                })
                .filter(|_| unknown.is_empty())
                .unwrap_or_default();
            let _ = writeln!(s, "  {k} {}{by}", val_text(v));
            for why in unknown {
                let _ = writeln!(s, "      unknown: {why}");
            }
        }
    }
    if let Some(ix) = &e.index {
        let _ = writeln!(s, "\nmod_dir: DirectoryIndex {} (subrequests with GET):", ix.names.join(" "));
        for (i, t) in ix.tries.iter().enumerate() {
            let st = t.status.map(|x| x.to_string()).unwrap_or_else(|| "unknown".into());
            let what = if ix.served == Some(i) && t.taken_over.is_some() {
                "no such file: its FallbackResource is served"
            } else if ix.served == Some(i) {
                "served"
            } else if ix.refused_by == Some(i) {
                "refused: this is the answer"
            } else if t.status == Some(200) && !t.regular_file {
                "no such file"
            } else {
                "refused"
            };
            let _ = writeln!(s, "  GET {} → {st} ({what}) {}", t.url, t.filesystem_path.display());
            match &t.effective {
                None => {
                    let _ = writeln!(s, "    same sections as the request: access not checked again");
                }
                Some(sub) => sections_text(&mut s, &sub.sections, "    "),
            }
        }
    }
    let _ = writeln!(s, "\nEvaluation:");
    for t in &e.outcome.trace {
        let at = t.loc.as_ref().map(|l| format!("  ({}:{})", l.file.display(), l.line)).unwrap_or_default();
        let _ = writeln!(s, "  {}{}{at}", "  ".repeat(t.depth as usize), t.text);
    }
    if let Some(d) = &e.outcome.deciding {
        let at = d.loc.as_ref().map(|l| format!(" at {}:{}", l.file.display(), l.line)).unwrap_or_default();
        let _ = writeln!(s, "\nDecided by {}: {}{at}", layer_name(d.layer), d.rule);
    }
    for (l, sup) in e.outcome.log.iter().zip(&e.suppressed) {
        let _ = writeln!(s, "error log: {}", log_line(l));
        if let Some(why) = sup {
            let _ = writeln!(s, "    ({why})");
        }
    }
    if e.outcome.status == Some(401) && e.outcome.log.is_empty() {
        let _ = writeln!(s, "error log: nothing (a 401 asking for credentials is not logged)");
    }
    if e.outcome.status.is_some() {
        let _ = writeln!(s, "access log: {}", access_log_line(spec, e));
    }
    for err in &e.errors {
        let _ = writeln!(s, "startup error: {}:{}: {}", err.loc.file.display(), err.loc.line, err.message);
    }
    match (e.outcome.status, &e.answer) {
        (Some(st), _) if e.error_document.is_some() => {
            let r = e.error_document.as_ref().expect("checked");
            let _ = writeln!(
                s,
                "\nStatus: {st} (the answer {} is turned into a redirect to {} by ErrorDocument {} at {}:{})",
                r.status, r.location, r.status, r.file, r.line
            );
        }
        (Some(st), Some(Answer::Handler { why, .. } | Answer::Unknown { why, .. })) => {
            let _ = writeln!(s, "\nStatus: {st} (access granted: {st} unless the handler answers otherwise: {why})");
        }
        (Some(st), Some(Answer::File { why, .. })) if e.translated => {
            let _ = writeln!(s, "\nStatus: {st} (before the walk and access control: {why})");
        }
        (Some(st), Some(Answer::File { why, .. })) => {
            let _ = writeln!(s, "\nStatus: {st} (access granted; {why})");
        }
        (Some(st), None) => {
            let _ = writeln!(s, "\nStatus: {st}");
        }
        (None, _) => {
            let _ = writeln!(
                s,
                "\nStatus: unknown (possible: {:?}): {}",
                e.outcome.possible_statuses,
                e.outcome.reason_unknown.as_deref().unwrap_or("")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The port every Listen names (inside an active `<IfModule>` too, as Debian's ports.conf
    /// has it), else why none is known.
    #[test]
    fn the_listen_port_is_known_when_every_listen_names_it() {
        let port = |body: &str| {
            let fx = crate::ide::diagnostics::tests::Fixture::parse(&format!(
                "//- /etc/httpd/httpd.conf\nLoadModule ssl_module m.so\n{body}"
            ));
            listen_port(&crate::ide::config::load(std::path::Path::new("/etc/httpd/httpd.conf"), &fx))
        };
        assert_eq!(port("Listen 80\n"), Ok(80));
        assert_eq!(port("Listen 127.0.0.1:8080\nListen [::1]:8080\n"), Ok(8080));
        assert_eq!(port("<IfModule ssl_module>\nListen 8443 https\n</IfModule>\n"), Ok(8443));
        assert_eq!(port("<IfModule mod_nothere.c>\nListen 443\n</IfModule>\nListen 80\n"), Ok(80));
        assert_eq!(port("Listen 80\nListen 443\n"), Err("Listen names several ports (80, 443)".to_string()));
        assert_eq!(port("ServerName x\n"), Err("no Listen directive".to_string()));
    }

    /// Each distinct (address, port) a Listen names; a wildcard address is none.
    #[test]
    fn listen_addresses_are_each_address_and_port() {
        let fx = crate::ide::diagnostics::tests::Fixture::parse(
            "//- /etc/httpd/httpd.conf\nListen 80\nListen 0.0.0.0:80\nListen 127.0.0.1:8080\nListen [::1]:8080\nListen 10.0.0.1:443 https\n",
        );
        let cfg = crate::ide::config::load(std::path::Path::new("/etc/httpd/httpd.conf"), &fx);
        let a = |s: &str| Some(s.parse::<std::net::IpAddr>().unwrap());
        assert_eq!(
            listen_addresses(&cfg),
            vec![(None, 80), (a("127.0.0.1"), 8080), (a("::1"), 8080), (a("10.0.0.1"), 443)]
        );
    }
}
