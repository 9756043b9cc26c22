//! Check: what httpd says of access rules at startup (bad Require arguments,
//! negative Require in an OR context, empty containers, unknown providers…),
//! and sections that mix old and new access control.

use super::Diagnostic;
use crate::ide::config::{Config, NodeKind, Severity};

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    let groupfile = cfg.modules.contains("authz_groupfile_module");
    let dbm = cfg.modules.contains("authz_dbm_module");
    let ix = cfg.index();
    // Every section in file order; its layers are built once, shared with the request walk.
    for id in 0..ix.len() as u32 {
        let section = ix.node(cfg, id);
        let l = section.name.to_ascii_lowercase();
        if matches!(l.as_str(), "limit" | "limitexcept" | "requireall" | "requireany" | "requirenone" | "virtualhost") {
            continue;
        }
        let built = ix.built(cfg, id);
        for e in built.compat_errors.iter().chain(&built.authz_errors) {
            let Some(file) = cfg.file_id(&e.loc.file) else { continue };
            let range = apache_syntax::TextRange::new(e.loc.range.0.into(), e.loc.range.1.into());
            let severity = if cfg.modules_known || !e.message.starts_with("Unknown Authz provider") {
                Severity::Error
            } else {
                Severity::Warning
            };
            out.push(Diagnostic::new(
                file,
                range,
                severity,
                "access-config",
                format!("httpd 2.4 will not start: {}", e.message),
            ));
        }
        // Require group where only mod_authz_dbm provides groups.
        for c in section.walk().filter(|c| c.is("Require")) {
            let words: Vec<&str> = c.words().skip_while(|w| w.eq_ignore_ascii_case("not")).collect();
            if words.first() == Some(&"group") && dbm && cfg.modules_known {
                let msg = if groupfile {
                    "`Require group` comes from mod_authz_groupfile, not mod_authz_dbm: with AuthDBMGroupFile every user gets 401 (AH01664). Use `Require dbm-group`"
                } else {
                    "httpd 2.4 will not start: Unknown Authz provider: group (mod_authz_dbm provides `dbm-group`). Use `Require dbm-group`"
                };
                out.push(Diagnostic::new(c.loc.file, cfg.trimmed(&c.loc), Severity::Error, "require-group-dbm", msg));
            }
        }
        // Old and new in one section.
        let has_old = section.children.iter().any(|c| {
            c.kind == NodeKind::Directive && matches!(c.name.to_ascii_lowercase().as_str(), "order" | "allow" | "deny")
        });
        let new: Vec<_> = section
            .children
            .iter()
            .filter(|c| c.is("Require") || c.is("RequireAll") || c.is("RequireAny") || c.is("RequireNone"))
            .collect();
        if has_old {
            for r in new {
                out.push(Diagnostic::new(
                    r.loc.file,
                    r.loc.focus,
                    Severity::Warning,
                    "mixed-access",
                    "old (Order/Allow/Deny) and new (Require) access control in one section: both must pass unless Satisfy Any, and they inherit separately",
                ));
            }
        }
    }
}
