//! Feature: code actions — rewrite old-style access blocks into Require, delete
//! removed directives, and fix a whole file at once.

use crate::ide::catalogue::{self, Status};
use crate::ide::config::{Config, FileId, FileSource};
use crate::ide::migrate::{old_style_sections, rewrite_section, Edit};
use apache_syntax::TextRange;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    QuickFix,
    FixAll,
}

#[derive(Debug, Clone)]
pub struct Action {
    pub title: String,
    pub kind: ActionKind,
    pub preferred: bool,
    pub edits: Vec<Edit>,
    /// Diagnostic codes this action resolves.
    pub fixes: Vec<&'static str>,
}

/// The context a configuration was loaded in: needed to reload it after an edit.
pub struct LoadContext<'a> {
    pub main: &'a Path,
    pub is_main: bool,
    pub fs: &'a dyn FileSource,
}

pub fn code_actions(cfg: &Config, lc: &LoadContext, file: FileId, range: TextRange) -> Vec<Action> {
    let mut out = Vec::new();
    for section in old_style_sections(cfg) {
        if section.loc.file != file || section.loc.range.intersect(range).is_none() {
            continue;
        }
        let rw = rewrite_section(cfg, lc.main, lc.is_main, section, lc.fs);
        if rw.edits.is_empty() {
            continue;
        }
        if rw.preserving {
            out.push(Action {
                title: rw.title,
                kind: ActionKind::QuickFix,
                preferred: true,
                edits: rw.edits,
                fixes: vec!["deprecated-access"],
            });
        } else {
            let shown: Vec<String> = rw.changes.iter().take(3).cloned().collect();
            out.push(Action {
                title: format!("{} — {}{}", rw.title, shown.join("; "), if rw.changes.len() > 3 { "; …" } else { "" }),
                kind: ActionKind::QuickFix,
                preferred: false,
                edits: rw.edits,
                fixes: vec!["deprecated-access"],
            });
        }
    }
    for n in cfg.walk() {
        if n.loc.file == file && n.loc.range.intersect(range).is_some() {
            if let Some(d) = catalogue::directive(&n.name).filter(|d| d.status == Status::Removed) {
                let text = &cfg.file(file).text;
                let start = text[..usize::from(n.loc.range.start())].rfind('\n').map(|i| i + 1).unwrap_or(0);
                let r = TextRange::new((start as u32).into(), n.loc.range.end());
                out.push(Action {
                    title: format!("Remove {} (removed in httpd 2.4)", d.name),
                    kind: ActionKind::QuickFix,
                    preferred: true,
                    edits: vec![Edit { file, range: r, new_text: String::new() }],
                    fixes: vec!["removed-directive"],
                });
            }
        }
    }
    out
}

/// Every behaviour-preserving rewrite of a file (`source.fixAll`).
pub fn fix_all(cfg: &Config, lc: &LoadContext, file: FileId) -> Option<Action> {
    let mut edits = Vec::new();
    for section in old_style_sections(cfg) {
        if section.loc.file != file {
            continue;
        }
        let rw = rewrite_section(cfg, lc.main, lc.is_main, section, lc.fs);
        if rw.preserving {
            edits.extend(rw.edits);
        }
    }
    (!edits.is_empty()).then(|| Action {
        title: "Rewrite every old-style access block as Require (behaviour-preserving ones)".into(),
        kind: ActionKind::FixAll,
        preferred: false,
        edits,
        fixes: vec!["deprecated-access"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;
    use crate::ide::migrate::apply;

    fn rewrite(fixture: &str) -> (bool, String) {
        let fx = Fixture::parse(fixture);
        let main = std::path::PathBuf::from(&fx.0[0].0);
        let cfg = load(&main, &fx);
        let lc = LoadContext { main: &main, is_main: true, fs: &fx };
        let actions = code_actions(&cfg, &lc, 0, TextRange::new(0.into(), (cfg.file(0).text.len() as u32).into()));
        let a = actions.first().expect("an action");
        let edits: Vec<&Edit> = a.edits.iter().collect();
        (a.preferred, apply(&cfg.file(0).text, &edits))
    }

    #[test]
    fn allow_deny_with_one_address_becomes_require_ip() {
        let (preferred, text) = rewrite("//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot /nonexistent\n<Directory /nonexistent>\n    # keep me\n    Order allow,deny\n    Allow from 127.0.0.1\n</Directory>\n");
        assert!(preferred);
        expect_test::expect![[r#"
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            DocumentRoot /nonexistent
            <Directory /nonexistent>
                # keep me
                Require ip 127.0.0.1
            </Directory>
        "#]]
        .assert_eq(&text);
    }

    #[test]
    fn guide_auth_and_address_example_becomes_all_denied_with_auth() {
        let (preferred, text) = rewrite("//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule authz_user_module m\nLoadModule authn_core_module m\nLoadModule auth_basic_module m\nLoadModule authn_file_module m\nDocumentRoot /nonexistent\n<Directory /nonexistent>\n  AuthType Basic\n  AuthName x\n  AuthUserFile /nonexistent/htpasswd\n  Require valid-user\n  Order allow,deny\n  Deny from all\n  Allow from 127.0.0.1\n  Satisfy All\n</Directory>\n");
        assert!(preferred, "{text}");
        assert!(
            text.contains("<RequireAll>\n    Require all denied\n    Require valid-user\n  </RequireAll>"),
            "{text}"
        );
    }
}
