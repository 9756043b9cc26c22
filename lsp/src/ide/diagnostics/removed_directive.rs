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
            format!(
                "httpd 2.4 will not start: Invalid command '{name}' (removed in 2.4: {}). Delete it; authorization now combines through RequireAny/RequireAll/RequireNone",
                d.description
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;

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
