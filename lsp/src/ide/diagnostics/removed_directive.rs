//! Check: directives removed in 2.4 (httpd refuses to start).

use super::Diagnostic;
use crate::ide::catalogue::{self, Status};
use crate::ide::config::{Config, Severity};

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    for n in cfg.walk() {
        if let Some(d) = catalogue::directive(&n.name).filter(|d| d.status == Status::Removed) {
            out.push(Diagnostic::new(
                n.loc.file,
                n.loc.focus,
                Severity::Error,
                "removed-directive",
                format!(
                    "httpd 2.4 will not start: Invalid command '{}' (removed in 2.4: {}). Delete it; authorization now combines through RequireAny/RequireAll/RequireNone",
                    n.name, d.description
                ),
            ));
        }
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
