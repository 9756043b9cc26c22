//! Check: directives httpd 2.4 still reads but has deprecated (other than mod_access_compat's,
//! which `deprecated_access` explains), each saying what httpd does with it. The two httpd
//! itself warns about at startup are warnings; the others, which it takes silently (or logs
//! at info level only), are information.

use super::Diagnostic;
use crate::ide::catalogue;
use crate::ide::config::{Config, Node, NodeKind, Severity};

/// Checks `n`, the directive `d` of the catalogue.
/// Only where the directive's module is loaded: else httpd stops at an unknown command.
pub(super) fn node(
    cfg: &Config,
    n: &Node,
    d: Option<&'static catalogue::Directive>,
    loaded: &mut super::ModulesLoaded,
    out: &mut Vec<Diagnostic>,
) {
    let Some(d) = d.filter(|d| d.deprecated && n.kind == NodeKind::Directive && d.module != "access_compat_module")
    else {
        return;
    };
    if cfg.modules_known && !loaded.of(d) {
        return;
    }
    let (severity, message) = match d.name {
        "NameVirtualHost" => (
            Severity::Warning,
            "NameVirtualHost has no effect in httpd 2.4, which logs AH00548 at startup: virtual hosts are told apart by their ServerName and ServerAlias without it. Delete the line".to_string(),
        ),
        "DefaultType" => {
            // `none` (and `off`) are what 2.4 means anyway: httpd says nothing of them.
            if n.args().next().is_none_or(|a| a.eq_ignore_ascii_case("none") || a.eq_ignore_ascii_case("off")) {
                return;
            }
            (
                Severity::Warning,
                "httpd 2.4 ignores this DefaultType and logs AH00117 at startup: a response whose type is not known gets no Content-Type. Set types with AddType or ForceType".to_string(),
            )
        }
        "MaxClients" => renamed("MaxClients", "MaxRequestWorkers", "AH00521"),
        "MaxRequestsPerChild" => renamed("MaxRequestsPerChild", "MaxConnectionsPerChild", "AH00545"),
        name => (
            Severity::Information,
            format!("{name} is deprecated; httpd 2.4 still reads it ({})", d.description),
        ),
    };
    let mut diag = Diagnostic::new(n.loc.file, cfg.trimmed(&n.loc), severity, "deprecated-directive", message);
    diag.deprecated = true;
    out.push(diag);
}

/// A directive httpd 2.4 reads under its new name, logging `code` at info level only.
fn renamed(old: &str, new: &str, code: &str) -> (Severity, String) {
    (
        Severity::Information,
        format!(
            "{old} is the 2.2 name of {new}: httpd 2.4 reads it the same, noting {code} at info level only. Rename it"
        ),
    )
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    #[test]
    fn deprecated_directives_say_what_httpd_does() {
        expect![[r#"
            /etc/httpd/httpd.conf:1: Warning[deprecated-directive]: NameVirtualHost has no effect in httpd 2.4, which logs AH00548 at startup: virtual hosts are told apart by their ServerName and ServerAlias without it. Delete the line
            /etc/httpd/httpd.conf:2: Warning[deprecated-directive]: httpd 2.4 ignores this DefaultType and logs AH00117 at startup: a response whose type is not known gets no Content-Type. Set types with AddType or ForceType
            /etc/httpd/httpd.conf:4: Information[deprecated-directive]: MaxClients is the 2.2 name of MaxRequestWorkers: httpd 2.4 reads it the same, noting AH00521 at info level only. Rename it
        "#]]
        .assert_eq(&render(
            "//- /etc/httpd/httpd.conf\nNameVirtualHost *:80\nDefaultType text/plain\nDefaultType None\nMaxClients 10\n<Directory /srv>\n  Order allow,deny\n</Directory>\n",
        ).lines().filter(|l| l.contains("deprecated-directive")).map(|l| format!("{l}\n")).collect::<String>());
    }
}
