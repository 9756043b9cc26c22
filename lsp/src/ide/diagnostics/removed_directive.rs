//! Check: directives removed in 2.4 (httpd refuses to start).

use super::Diagnostic;
use crate::ide::catalogue::{self, Status};
use crate::ide::config::{Node, Severity};

/// Checks `n`, the directive `d` of the catalogue.
pub(super) fn node(n: &Node, d: Option<&'static catalogue::Directive>, out: &mut Vec<Diagnostic>) {
    if let Some(d) = d.filter(|d| d.status == Status::Removed) {
        let name: &str = n.name();
        out.push(Diagnostic::new(
            n.loc.file,
            n.loc.focus,
            Severity::Error,
            "removed-directive",
            format!("httpd 2.4 will not start: {}", refusal(name, d.description)),
        ));
    }
}

/// Names httpd 2.4 still registers, with a handler that refuses them with a reason of its own
/// (core.c's `Port`, mod_autoindex's `FancyIndexing`, mod_ssl's `SSLLog`/`SSLLogLevel`); the
/// others are gone from its command tables.
const REFUSED_BY_A_HANDLER: &[&str] = &["Port", "FancyIndexing", "SSLLog", "SSLLogLevel"];

/// What httpd says of `name` (its catalogue `description` says what replaced it).
fn refusal(name: &str, description: &str) -> String {
    if REFUSED_BY_A_HANDLER.iter().any(|n| n.eq_ignore_ascii_case(name)) {
        format!("it refuses `{name}` as no longer supported ({description}). Delete it")
    } else {
        format!("Invalid command '{name}', perhaps misspelled or defined by a module not included in the server configuration ({description}). Delete it")
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;

    #[test]
    fn a_name_httpd_refuses_itself_is_not_called_unknown() {
        expect_test::expect![[r#"
            /srv/a.conf:1: Error[removed-directive]: httpd 2.4 will not start: it refuses `Port` as no longer supported (Removed in 2.0: rejected with an error; use Listen to choose ports). Delete it
            /srv/a.conf:2: Error[removed-directive]: httpd 2.4 will not start: Invalid command 'AuthzUserAuthoritative', perhaps misspelled or defined by a module not included in the server configuration (Removed in 2.4; combine Require rules in RequireAny/RequireAll instead). Delete it
        "#]].assert_eq(&render("//- /srv/a.conf\nPort 80\nAuthzUserAuthoritative Off\n"));
    }

    #[test]
    fn authz_user_authoritative_is_fatal() {
        let out = render("//- /srv/a.conf\n<Directory /x>\n  AuthzUserAuthoritative Off\n</Directory>\n");
        assert!(
            out.contains(
                "Error[removed-directive]: httpd 2.4 will not start: Invalid command 'AuthzUserAuthoritative'"
            ),
            "{out}"
        );
    }
}
