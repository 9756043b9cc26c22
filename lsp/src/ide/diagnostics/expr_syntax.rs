//! Check: `<If>` and `<ElseIf>` conditions httpd refuses as it reads them (`server/core.c`:
//! `Cannot parse condition clause: …`, with ap_expr's own message, [`policy::expr`]). httpd does
//! not start; in an .htaccess file every request it applies to gets 500.

use super::Diagnostic;
use crate::ide::catalogue;
use crate::ide::config::{Config, Node, NodeKind, Severity};
use crate::ide::policy;

/// The modules that add names to ap_expr, as far as the configuration tells (all of them when
/// it does not say which modules are loaded: no name is refused that might exist).
pub(crate) fn lookups(cfg: &Config) -> policy::expr::Lookups {
    let loaded = |m: &str| !cfg.modules_known || cfg.modules.contains(m);
    policy::expr::Lookups { ssl: loaded("ssl_module"), hcheck: loaded("proxy_hcheck_module") }
}

/// What httpd says of `<If>`/`<ElseIf>` node `n`'s condition, when it refuses it.
pub(crate) fn refusal(cfg: &Config, n: &Node) -> Option<String> {
    if n.kind != NodeKind::Section || !(n.is("If") || n.is("ElseIf")) {
        return None;
    }
    // No argument at all is the container's own error, reported elsewhere.
    let condition = n.args().first()?;
    let e = policy::expr::parse_bool(condition, lookups(cfg)).err()?;
    Some(format!("Cannot parse condition clause: {e}"))
}

/// Checks `n`, the directive `d` of the catalogue.
pub(super) fn node(cfg: &Config, n: &Node, d: Option<&'static catalogue::Directive>, out: &mut Vec<Diagnostic>) {
    if d.is_none() {
        return;
    }
    let Some(refusal) = refusal(cfg, n) else { return };
    out.push(Diagnostic::new(
        n.loc.file,
        cfg.trimmed(&n.loc),
        Severity::Error,
        "expr-syntax",
        format!("{}: {refusal}", super::consequence(cfg)),
    ));
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    #[test]
    fn conditions_httpd_refuses() {
        expect![[r#"
            /etc/httpd.conf:2: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse condition clause: syntax error, unexpected $end
            /etc/httpd.conf:4: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse condition clause: Variable 'BOGUS' does not exist
        "#]]
        .assert_eq(&render(
            "//- /etc/httpd.conf\n<Directory /srv>\n<If \"%{REMOTE_ADDR} ==\">\n</If>\n<ElseIf \"%{BOGUS} == 'x'\">\n</ElseIf>\n<If \"-f '/x' && %{HTTP:X} =~ /a/\">\n</If>\n</Directory>\n",
        ));
        expect![[r#"
            /srv/www/.htaccess:1: Error[expr-syntax]: httpd answers 500 Internal Server Error to every request this .htaccess file applies to: Cannot parse condition clause: syntax error, unexpected T_FALSE, expecting $end
        "#]]
        .assert_eq(&render("//- /srv/www/.htaccess\n<If \"true false\">\n</If>\n"));
    }
}
