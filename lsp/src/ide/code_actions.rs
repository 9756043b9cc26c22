//! Feature: code actions — rewrite old-style access blocks into Require, delete
//! removed directives, and fix a whole file at once.

use crate::ide::bom;
use crate::ide::catalogue::Status;
use crate::ide::config::{Config, FileId, FileSource, NodeKind, TopLevel};
use crate::ide::migrate::{self, Edit, Scope, Workspace};
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
    /// What the title summarises (sections touched, requests whose outcome changes).
    pub detail: String,
    pub kind: ActionKind,
    pub preferred: bool,
    /// Edits, possibly in several files (the sections a rewrite carries rules into).
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

impl LoadContext<'_> {
    fn workspace(&self) -> Workspace<'_> {
        Workspace { main: self.main, is_main: self.is_main, fs: self.fs }
    }
}

fn is_compat(name: &str) -> bool {
    crate::ide::policy::is_compat_directive(name)
}

/// Whether `range` of `file` touches old-style lines (cheap: no proof is attempted otherwise).
fn touches_old_style(cfg: &Config, file: FileId, range: Option<TextRange>) -> bool {
    let hit = |r: TextRange| range.is_none_or(|q| r.intersect(q).is_some());
    let top_level =
        cfg.nodes.iter().any(|n| n.loc.file == file && n.kind == NodeKind::Directive && is_compat(n.name()));
    // Old-style lines in bodies httpd skips (a dead 2.2 branch may be removed).
    let text = &cfg.file(file).text;
    let skipped = cfg
        .inactive
        .iter()
        .filter(|(f, r)| *f == file && hit(*r))
        .any(|(_, r)| text[*r].lines().any(|l| l.split_whitespace().next().is_some_and(is_compat)));
    skipped
        || (top_level && hit(TextRange::new(0.into(), (cfg.file(file).text.len() as u32).into())))
        || cfg.walk().any(|n| {
            n.is_section()
                && n.loc.file == file
                && hit(n.loc.range)
                && n.children.iter().any(|c| c.walk().any(|d| d.kind == NodeKind::Directive && is_compat(d.name())))
        })
}

fn access_action(r: migrate::Rewrite) -> Action {
    Action {
        title: r.title,
        detail: r.detail,
        kind: ActionKind::QuickFix,
        preferred: r.preferred,
        edits: r.edits,
        fixes: vec!["deprecated-access"],
    }
}

/// Rewrites of the old-style bodies of `path` (a file of the configuration `lc` loads, or an
/// .htaccess file it reads per request) that `range` touches.
pub fn access_fixes(lc: &LoadContext, path: &Path, range: TextRange) -> Vec<Action> {
    migrate::quick_fixes(&lc.workspace(), path, range)
        .into_iter()
        .filter(|r| !r.edits.is_empty())
        .map(access_action)
        .collect()
}

pub fn code_actions(cfg: &Config, lc: &LoadContext, file: FileId, range: TextRange) -> Vec<Action> {
    let mut out = Vec::new();
    if touches_old_style(cfg, file, Some(range)) {
        out.extend(access_fixes(lc, &cfg.file(file).path, range));
    }
    for n in cfg.walk() {
        if n.loc.file == file && n.loc.range.intersect(range).is_some() {
            if let Some(d) = n.directive().filter(|d| d.status == Status::Removed) {
                let text = &cfg.file(file).text;
                let start = text[..usize::from(n.loc.range.start())].rfind('\n').map(|i| i + 1).unwrap_or(0);
                let r = TextRange::new((start as u32).into(), n.loc.range.end());
                out.push(Action {
                    title: format!("Remove {} (removed in httpd 2.4)", d.name),
                    detail: String::new(),
                    kind: ActionKind::QuickFix,
                    preferred: true,
                    edits: vec![Edit { path: cfg.file(file).path.clone(), range: r, new_text: String::new() }],
                    fixes: vec!["removed-directive"],
                });
            }
        }
    }
    out
}

/// The fix removing the byte-order mark `file` begins with ([`crate::ide::bom`]), wherever in the
/// file it is asked for: never preferred, as it changes what httpd does (it refuses the file
/// today, and reads it without the mark), which its title says.
pub fn bom_fix(cfg: &Config, file: FileId) -> Option<Action> {
    let f = cfg.file(file);
    let range = bom::removal(&f.text)?;
    let htaccess = cfg.top == TopLevel::Htaccess;
    let nonfatal = htaccess
        && crate::ide::diagnostics::directive_context::agreed_overrides(cfg).is_some_and(|o| o.nonfatal_unknown());
    let title = if nonfatal {
        "Remove the byte-order mark (changes what httpd does: under AllowOverride Nonfatal=Unknown it skips the first directive today; without the mark it reads it)"
    } else {
        bom::removal_title(htaccess)
    };
    Some(Action {
        title: title.into(),
        detail: "httpd strips no byte-order mark: it reads the mark as part of the first directive's name, an invalid command, and evaluates nothing in the file. Removing it lets httpd read every line, so what the file says takes effect.".into(),
        kind: ActionKind::QuickFix,
        preferred: false,
        edits: vec![Edit { path: f.path.clone(), range, new_text: String::new() }],
        fixes: vec!["unknown-directive"],
    })
}

/// Every behaviour-preserving rewrite of the old-style bodies of a file at once
/// (`source.fixAll`), with what they carry into other sections and files.
pub fn fix_all(cfg: &Config, lc: &LoadContext, file: FileId) -> Option<Action> {
    if !touches_old_style(cfg, file, None) {
        return None;
    }
    let path = cfg.file(file).path.clone();
    fix_all_in(lc, &path)
}

/// [`fix_all`] for a file given by path (an .htaccess file read per request too).
///
/// Nothing for a file read without the configuration around it (an .htaccess file without its
/// root, a fragment without its main configuration): no rewrite of it is proven (what it
/// inherits, and the sections merged with its own, are not known), and editors apply fix-all on
/// save without asking.
pub fn fix_all_in(lc: &LoadContext, path: &Path) -> Option<Action> {
    let ws = lc.workspace();
    if ws.unproven_alone().is_some() {
        return None;
    }
    let m = migrate::migrate(&ws, Scope::File(path), false);
    (!m.edits.is_empty()).then(|| Action {
        title: "Rewrite every old-style access block as Require (the behaviour-preserving ones)".into(),
        // (With migrate's notes: what the proof does not cover, as .htaccess files written later.)
        detail: if m.left.is_empty() {
            "Every old-style block of the file is rewritten.".to_string()
        } else {
            format!("Left as they are:\n{}", m.left.join("\n"))
        } + &m.notes.iter().map(|n| format!("\nNote: {n}")).collect::<String>(),
        kind: ActionKind::FixAll,
        preferred: false,
        edits: m.edits,
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

    /// The fix removing a byte-order mark: offered in a file that begins with one, never
    /// preferred, its title saying what changes; it deletes the mark's three bytes only.
    #[test]
    fn the_byte_order_mark_is_removed_by_a_fix_that_says_it_changes_httpd() {
        let fx = Fixture::parse("//- /srv/www/.htaccess\n\u{feff}Order deny,allow\r\nDeny from 127.0.0.2\r\n//- /srv/site.conf\n<Directory /srv>\n</Directory>\n");
        let cfg = crate::ide::config::load_fragment(std::path::Path::new("/srv/www/.htaccess"), &fx);
        let a = bom_fix(&cfg, 0).expect("a fix");
        assert!(!a.preferred);
        let edits: Vec<&Edit> = a.edits.iter().collect();
        expect_test::expect![[r#"
            Remove the byte-order mark (changes what httpd does: every request this .htaccess file applies to gets 500 today; without the mark httpd evaluates the file)
            "Order deny,allow\r\nDeny from 127.0.0.2\r\n""#]].assert_eq(&format!("{}\n{:?}", a.title, apply(&cfg.file(0).text, &edits)));
        let plain = load(std::path::Path::new("/srv/site.conf"), &fx);
        assert!(bom_fix(&plain, 0).is_none());
    }

    /// Where the AllowOverride lets an .htaccess file hold access lines, the proven rewrite stays
    /// preferred and its title says what the proof covers (one written later is merged
    /// otherwise: black-box round 17 B F1); fix-all keeps it, with migrate's note in its detail.
    /// Under `AllowOverride None` nothing is said.
    #[test]
    fn the_preferred_fix_says_an_htaccess_file_written_later_is_merged_otherwise() {
        let conf = |ao: &str| {
            format!("//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot /nonexistent\n<Directory /nonexistent>\n    AllowOverride {ao}\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n</Directory>\n")
        };
        let run = |ao: &str| {
            let fx = Fixture::parse(&conf(ao));
            let main = std::path::PathBuf::from(&fx.0[0].0);
            let cfg = load(&main, &fx);
            let lc = LoadContext { main: &main, is_main: true, fs: &fx };
            let all = TextRange::new(0.into(), (cfg.file(0).text.len() as u32).into());
            let a = code_actions(&cfg, &lc, 0, all).into_iter().next().expect("an action");
            let fix_all = fix_all(&cfg, &lc, 0).expect("fix-all");
            (a.preferred, a.title, fix_all.edits.len(), fix_all.detail)
        };
        let (preferred, title, edits, detail) = run("AuthConfig Limit");
        assert!(preferred && edits > 0);
        expect_test::expect![[r#"
            Rewrite as Require: <Directory /nonexistent> (proven for today's .htaccess files; one written later in /nonexistent or below is merged otherwise)"#]]
        .assert_eq(&title);
        assert!(detail.contains("Note: <Directory /nonexistent> (/srv/httpd.conf:5): proven for the .htaccess files on disk today, not for one written later in /nonexistent (and below)"), "{detail}");
        let (preferred, title, _, detail) = run("None");
        assert!(preferred);
        assert_eq!(title, "Rewrite as Require: <Directory /nonexistent>");
        assert!(!detail.contains("written later"), "{detail}");
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
