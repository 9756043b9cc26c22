//! Check: what httpd says of access rules at startup (bad Require arguments,
//! negative Require in an OR context, empty containers, unknown providers…),
//! and sections that mix old and new access control.

use super::{Diagnostic, Messages};
use crate::ide::access;
use crate::ide::config::{Config, Node, NodeKind, SecId, Severity};
use crate::ide::policy;

/// Blocks that are part of their section's body, not sections of their own here.
fn is_inner_block(name: &str) -> bool {
    ["Limit", "LimitExcept", "RequireAll", "RequireAny", "RequireNone", "VirtualHost"]
        .iter()
        .any(|b| name.eq_ignore_ascii_case(b))
}

fn is_require_block(name: &str) -> bool {
    ["RequireAll", "RequireAny", "RequireNone"].iter().any(|n| name.eq_ignore_ascii_case(n))
}

/// Whether some item, at any depth, is one `pick` (given its name and whether it is a
/// block) picks.
fn holds(items: &[policy::Item], pick: &dyn Fn(&str, bool) -> bool) -> bool {
    items.iter().any(|i| match i {
        policy::Item::Directive { name, .. } => pick(name, false),
        policy::Item::Block { name, items, .. } => pick(name, true) || holds(items, pick),
    })
}

/// The errors of a section's compat and authz layers, built from its access lines alone.
fn layer_errors(
    cfg: &Config,
    section: &Node,
    ctx: &policy::PolicyCtx,
) -> (Vec<policy::ConfigError>, Vec<policy::ConfigError>) {
    let items = access::access_layer_items(cfg, section);
    // A layer without any of its directives has nothing to say.
    let compat = holds(&items, &|name, block| !block && policy::is_compat_directive(name));
    let authz = holds(&items, &|name, block| {
        if block {
            is_require_block(name)
        } else {
            policy::is_authz_directive(name)
        }
    });
    (
        if compat { policy::compat_from_items(&items, ctx).1 } else { vec![] },
        if authz { policy::authz_from_items(&items, ctx).1 } else { vec![] },
    )
}

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    if super::never_read(cfg) {
        return;
    }
    let mut state = State {
        groupfile: cfg.modules.contains("authz_groupfile_module"),
        dbm_group: cfg.modules.contains("authz_dbm_module") && cfg.modules_known,
        messages: Messages::default(),
        clean: Default::default(),
    };
    // Every section in file order, then an .htaccess file's top level.
    for (id, section) in super::sections(cfg) {
        if !is_inner_block(section.name()) {
            state.block(cfg, section, Some(id), out);
        }
    }
    if let Some(top) = super::htaccess_top(cfg) {
        state.block(cfg, &top, None, out);
    }
}

struct State {
    groupfile: bool,
    dbm_group: bool,
    /// The same errors recur in blocks that read alike.
    messages: Messages,
    /// Access layers made of the same lines (the same blocks in many virtual hosts) that gave
    /// no error: the errors of the others name where they are written, and are made for each.
    clean: rustc_hash::FxHashSet<Vec<(usize, bool, usize)>>,
}

impl State {
    /// One block: a section (`id`: its number in the index) or an .htaccess file's top level.
    /// Its errors come from its policy or its outline when the request walk made one, else
    /// from its access layers alone (not kept).
    fn block(&mut self, cfg: &Config, section: &Node, id: Option<SecId>, out: &mut Vec<Diagnostic>) {
        let consequence = super::consequence(cfg);
        let made;
        let (compat_errors, authz_errors) = match id.and_then(|id| cfg.index().layer_errors_if_made(id)) {
            Some(errors) => errors,
            None => {
                let key = access::access_layer_key(section);
                if key.is_empty() || self.clean.contains(&key) {
                    (&[][..], &[][..])
                } else {
                    made = layer_errors(cfg, section, &cfg.index().ctx);
                    if made.0.is_empty() && made.1.is_empty() {
                        self.clean.insert(key);
                    }
                    (made.0.as_slice(), made.1.as_slice())
                }
            }
        };
        for e in compat_errors.iter().chain(authz_errors) {
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
                self.messages.get(&format!("{consequence}: {}", e.message)),
            ));
        }
        // Require group where only mod_authz_dbm provides groups: each Require once, from
        // the innermost section holding it (the blocks of its body are walked through).
        if self.dbm_group {
            let mut stack: Vec<&Node> = vec![section];
            while let Some(c) = stack.pop() {
                if c.is("Require") {
                    let mut words = c.args().skip_while(|w| w.eq_ignore_ascii_case("not"));
                    if words.next() == Some("group") {
                        let msg = if self.groupfile {
                            "`Require group` comes from mod_authz_groupfile, not mod_authz_dbm: with AuthDBMGroupFile every user gets 401 (AH01664). Use `Require dbm-group`".to_string()
                        } else {
                            format!("{consequence}: Unknown Authz provider: group (mod_authz_dbm provides `dbm-group`). Use `Require dbm-group`")
                        };
                        out.push(Diagnostic::new(
                            c.loc.file,
                            cfg.trimmed(&c.loc),
                            Severity::Error,
                            "require-group-dbm",
                            self.messages.get(&msg),
                        ));
                    }
                }
                if std::ptr::eq(c, section) || is_inner_block(c.name()) {
                    stack.extend(c.children.iter().rev());
                }
            }
        }
        // Old and new in one section.
        let has_old = section.children.iter().any(|c| {
            c.kind == NodeKind::Directive
                && ["Order", "Allow", "Deny"].iter().any(|o| c.canonical().eq_ignore_ascii_case(o))
        });
        if has_old {
            for r in section
                .children
                .iter()
                .filter(|c| c.is("Require") || c.is("RequireAll") || c.is("RequireAny") || c.is("RequireNone"))
            {
                out.push(Diagnostic::new(
                    r.loc.file,
                    r.loc.focus,
                    Severity::Warning,
                    "mixed-access",
                    self.messages.get("old (Order/Allow/Deny) and new (Require) access control in one section: both must pass unless Satisfy Any, and they inherit separately"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    /// Sections made of the same access lines are checked once when they give no error; those
    /// that give one each get it at their own line.
    #[test]
    fn alike_sections_each_get_their_own_errors() {
        let section = |dir: &str, rule: &str| format!("<Directory /{dir}>\n  Require {rule}\n</Directory>\n");
        let fixture = format!(
            "//- /etc/httpd.conf\nLoadModule authz_core_module m.so\nLoadModule authz_host_module m.so\n{}{}{}{}",
            section("a", "all granted"),
            section("b", "all granted"),
            section("c", "ip 10.0.0.300"),
            section("d", "ip 10.0.0.300"),
        );
        expect![[r#"
            /etc/httpd.conf:10: Error[access-config]: httpd 2.4 will not start: ip address '10.0.0.300' appears to be invalid: The specified IP address is invalid.
            /etc/httpd.conf:13: Error[access-config]: httpd 2.4 will not start: ip address '10.0.0.300' appears to be invalid: The specified IP address is invalid.
        "#]].assert_eq(&render(&fixture));
    }

    /// In an .htaccess file (its top level and its sections) an error is a 500 for each request
    /// it applies to, and old and new lines side by side at its top level are a mixture.
    #[test]
    fn htaccess_errors_are_500s() {
        expect![[r#"
            /srv/www/.htaccess:1: Error[access-config]: httpd answers 500 Internal Server Error to every request this .htaccess file applies to: ip address '10.0.0.300' appears to be invalid: The specified IP address is invalid.
            /srv/www/.htaccess:1: Warning[mixed-access]: old (Order/Allow/Deny) and new (Require) access control in one section: both must pass unless Satisfy Any, and they inherit separately
            /srv/www/.htaccess:2: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block allows everyone (no Deny line; Order deny,allow defaults to allow)
            /srv/www/.htaccess:4: Error[access-config]: httpd answers 500 Internal Server Error to every request this .htaccess file applies to: ip address '10.0.0.301' appears to be invalid: The specified IP address is invalid.
        "#]]
        .assert_eq(&render("//- /srv/www/.htaccess\nRequire ip 10.0.0.300\nOrder deny,allow\n<Files x>\n  Require ip 10.0.0.301\n</Files>\n"));
    }

    /// mod_authz_core's check of containers holding only negative Require lines (AH01624) runs
    /// at startup over the server's configuration only: in an .htaccess file such a container
    /// is accepted, and it never grants (httpd answers 403, AH01630).
    #[test]
    fn htaccess_only_negative_container_is_no_error() {
        let body = "<RequireAll>\n  Require not ip 127.0.0.2\n</RequireAll>\n";
        expect![""].assert_eq(&render(&format!("//- /srv/www/.htaccess\n{body}")));
        expect![[r#"
            /etc/httpd.conf:4: Error[access-config]: httpd 2.4 will not start: <RequireAll> directive contains only negative authorization directives
        "#]]
        .assert_eq(&render(&format!("//- /etc/httpd.conf\nLoadModule authz_core_module m.so\nLoadModule authz_host_module m.so\n<Directory /srv/www>\n{body}</Directory>\n")));
    }
}
