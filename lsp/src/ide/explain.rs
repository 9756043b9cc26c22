//! Feature: explain one request — the chain of sections, the deciding rule, the status.

use crate::ide::access::{effective, Effective, RequestSpec};
use crate::ide::config::Config;
use crate::ide::policy::{Layer, LogLevel};
use serde_json::{json, Value};
use std::fmt::Write as _;

pub fn explain(cfg: &Config, spec: &RequestSpec) -> Effective {
    effective(cfg, spec)
}

fn layer_name(l: Layer) -> &'static str {
    match l {
        Layer::AccessCompat => "mod_access_compat",
        Layer::AuthzCore => "mod_authz_core",
        Layer::Authn => "authentication",
        Layer::Core => "core",
    }
}

fn level_name(l: LogLevel) -> &'static str {
    match l {
        LogLevel::Error => "error",
        LogLevel::Warning => "warn",
        LogLevel::Info => "info",
    }
}

/// The access-log line shape for this request.
fn access_log_line(spec: &RequestSpec, e: &Effective) -> String {
    let status = e.outcome.status.map(|s| s.to_string()).unwrap_or_else(|| "???".into());
    format!("{} {} {} {}", spec.request.method, spec.path, status, spec.request.client)
}

pub fn to_json(spec: &RequestSpec, e: &Effective) -> Value {
    json!({
        "status": e.outcome.status,
        "reason": e.outcome.reason_unknown,
        "possible_statuses": e.outcome.possible_statuses,
        "virtual_host": e.virtual_host,
        "filesystem_path": e.filesystem_path.display().to_string(),
        "url": spec.path,
        "method": spec.request.method,
        "client": spec.request.client.to_string(),
        "sections": e.sections.iter().map(|s| json!({
            "file": s.path.display().to_string(),
            "line": s.line,
            "kind": s.kind,
            "args": s.args,
            "access_lines": s.access_lines.iter().map(|(l, t)| json!({"line": l, "text": t})).collect::<Vec<_>>(),
            "mod_access_compat": s.compat.as_ref().map(|_| "replaces the inherited Order/Allow/Deny/Satisfy"),
            "mod_authz_core": s.authz.as_ref().map(|a| a.section.as_ref().map(|n| n.render()).unwrap_or_else(|| format!("AuthMerging {:?} with no Require", a.op))),
            "authn": s.authn.is_some(),
        })).collect::<Vec<_>>(),
        "deciding": e.outcome.deciding.as_ref().map(|d| json!({
            "layer": layer_name(d.layer),
            "rule": d.rule,
            "file": d.loc.as_ref().map(|l| l.file.display().to_string()),
            "line": d.loc.as_ref().map(|l| l.line),
        })),
        "trace": e.outcome.trace.iter().map(|t| t.text.clone()).collect::<Vec<_>>(),
        "error_log": e.outcome.log.iter().map(|l| json!({
            "code": l.ah_code, "module": l.module, "level": level_name(l.level), "message": l.message,
            "line": format!("[{}:{}] {}: {}", l.module, level_name(l.level), l.ah_code, l.message),
        })).collect::<Vec<_>>(),
        "access_log": access_log_line(spec, e),
        "startup_errors": e.errors.iter().map(|x| json!({"file": x.loc.file.display().to_string(), "line": x.loc.line, "message": x.message})).collect::<Vec<_>>(),
    })
}

pub fn to_text(spec: &RequestSpec, e: &Effective) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} {} from {}", spec.request.method, spec.path, spec.request.client);
    let _ = writeln!(s, "  virtual host: {}", e.virtual_host.as_deref().unwrap_or("main server"));
    let _ = writeln!(s, "  file system:  {}", e.filesystem_path.display());
    let _ = writeln!(s, "\nSections, in the order httpd merges them:");
    if e.sections.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for sec in &e.sections {
        let _ = writeln!(s, "  {}:{}  <{} {}>", sec.path.display(), sec.line, sec.kind, sec.args.join(" "));
        for (line, text) in &sec.access_lines {
            let _ = writeln!(s, "      {line:>5} | {text}");
        }
        if sec.compat.is_some() {
            let _ = writeln!(s, "        → mod_access_compat: replaces what it inherited");
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
    for l in &e.outcome.log {
        let _ = writeln!(s, "error log: [{}:{}] {}: {}", l.module, level_name(l.level), l.ah_code, l.message);
    }
    if e.outcome.status.is_some() {
        let _ = writeln!(s, "access log: {}", access_log_line(spec, e));
    }
    for err in &e.errors {
        let _ = writeln!(s, "startup error: {}:{}: {}", err.loc.file.display(), err.loc.line, err.message);
    }
    match e.outcome.status {
        Some(st) => {
            let _ = writeln!(s, "\nStatus: {st}");
        }
        None => {
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
