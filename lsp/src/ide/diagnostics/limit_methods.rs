//! Check: `<Limit>`/`<LimitExcept>` headers httpd refuses as it reads them
//! (`server/core.c: ap_limit_section`): `TRACE` in a `<Limit>` (`TRACE cannot be controlled by
//! <Limit>, see TraceEnable`), a block that leaves no method of the enclosing one (`excludes all
//! methods`) or all of them (`specifies methods already excluded`), and, in an .htaccess file,
//! a method no one registered when httpd started (`Could not register method 'FOO' for <Limit
//! from .htaccess configuration`: an .htaccess file cannot add to the global method registry).
//!
//! Registered at startup: httpd's own methods, every method named by a `<Limit>`/`<LimitExcept>`
//! or `RegisterHttpMethod` of the server configuration, mod_actions' `Script` methods and
//! mod_dav's `BIND` and `SEARCH` ([`crate::ide::config::Index`]'s policy context). Method names
//! are case-sensitive: `<Limit get>` is not `GET`. An .htaccess file whose server configuration
//! is not known here is not judged on registration.

use super::Diagnostic;
use crate::ide::config::{Config, Node, TopLevel};
use crate::ide::policy::method::limit_mask;
use crate::ide::policy::MethodMask;
use std::collections::BTreeSet;

/// Whether `n` is a `<Limit>` or `<LimitExcept>` section.
pub(super) fn is_limit(n: &Node) -> bool {
    n.is_section() && matches!(n.known(), "Limit" | "LimitExcept")
}

/// Checks the outermost `<Limit>`/`<LimitExcept>` section `n` and those nested in it (each
/// within the methods of the one around it), stopping at the first refused one of a branch.
pub(super) fn node(cfg: &Config, n: &Node, out: &mut Vec<Diagnostic>) {
    let htaccess = cfg.top == TopLevel::Htaccess;
    let (mut registered, judge_registration) = match (&cfg.enclosing, htaccess) {
        (Some(server), true) => (server.index().ctx.registered_methods.clone(), true),
        (None, true) => (BTreeSet::new(), false),
        (_, false) => (cfg.index().ctx.registered_methods.clone(), false),
    };
    // (Not judged on registration: every method is taken as registered, as in the server
    // configuration, where a new name is registered as it is read.)
    limit(cfg, n, &MethodMask::all(), &mut registered, htaccess && judge_registration, out);
}

fn limit(
    cfg: &Config,
    n: &Node,
    outer: &MethodMask,
    registered: &mut BTreeSet<String>,
    htaccess: bool,
    out: &mut Vec<Diagnostic>,
) {
    match limit_mask(n.known(), &n.arg_strings(), outer, registered, htaccess) {
        Ok(mask) => {
            for c in n.children.iter().filter(|c| is_limit(c)) {
                limit(cfg, c, &mask, registered, htaccess, out);
            }
        }
        Err(refusal) => out.push(super::refused_line(cfg, n, "limit-methods", &refusal)),
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use crate::ide::diagnostics::tests::Fixture;
    use expect_test::expect;
    use std::path::Path;

    /// An .htaccess file read under the server configuration `root`: what this check says.
    fn htaccess_with_root(root: &str, htaccess: &str) -> String {
        let fx = Fixture::parse(&format!("//- /etc/httpd/httpd.conf\n{root}//- /srv/www/.htaccess\n{htaccess}"));
        let root = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let cfg = crate::ide::config::load_in_context(Path::new("/srv/www/.htaccess"), &fx, std::sync::Arc::new(root));
        let mut out = Vec::new();
        for n in cfg.walk().filter(|n| super::is_limit(n)) {
            super::node(&cfg, n, &mut out);
        }
        crate::ide::diagnostics::tests::render_diagnostics(&cfg, &out)
    }

    /// In an .htaccess file a method must have been registered at startup: by httpd, by a
    /// `<Limit>` or `RegisterHttpMethod` of the server configuration, by mod_dav (BIND, SEARCH)
    /// or mod_actions' `Script`; names are case-sensitive. Each refused one is a 500.
    #[test]
    fn htaccess_limits_name_only_methods_registered_at_startup() {
        expect![[r#"
            /srv/www/.htaccess:1: Error[limit-methods]: httpd answers 500 Internal Server Error to every request this .htaccess file applies to: Could not register method 'FOO' for <Limit from .htaccess configuration
            /srv/www/.htaccess:7: Error[limit-methods]: httpd answers 500 Internal Server Error to every request this .htaccess file applies to: Could not register method 'get' for <LimitExcept from .htaccess configuration
        "#]].assert_eq(&htaccess_with_root(
            concat!(
                "LoadModule dav_module m\nLoadModule actions_module m\n",
                "<Location /x>\n<LimitExcept BAR>\nRequire all denied\n</LimitExcept>\n</Location>\n",
                "RegisterHttpMethod BAZ\nScript QUX /cgi-bin/q\n",
            ),
            concat!(
                "<Limit FOO>\nRequire all denied\n</Limit>\n",
                "<Limit GET BAR BAZ QUX BIND SEARCH PROPFIND>\nRequire all denied\n</Limit>\n",
                "<LimitExcept get>\nRequire all denied\n</LimitExcept>\n",
            ),
        ));
    }

    /// In the server configuration: TRACE, a nested block that keeps no method of the outer
    /// one, a block naming every method; a new method name is registered as it is read.
    #[test]
    fn limit_headers_httpd_refuses_at_startup() {
        expect![[r#"
            /etc/httpd.conf:3: Error[limit-methods]: httpd 2.4 will not start: TRACE cannot be controlled by <Limit>, see TraceEnable
            /etc/httpd.conf:7: Error[limit-methods]: httpd 2.4 will not start: <Limit> directive excludes all methods
            /etc/httpd.conf:9: Error[limit-methods]: httpd 2.4 will not start: <Limit> directive specifies methods already excluded
            /etc/httpd.conf:13: Error[limit-methods]: httpd 2.4 will not start: <Limit> directive excludes all methods
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule authz_core_module m\n",
            "<Directory /srv>\n",
            "<Limit TRACE>\nRequire all granted\n</Limit>\n",
            "<Limit GET>\n<Limit POST>\n</Limit>\n<Limit GET>\n</Limit>\n</Limit>\n",
            "<LimitExcept FOO>\n<Limit FOO>\n</Limit>\n</LimitExcept>\n",
            "<Limit BAR>\nRequire all denied\n</Limit>\n",
            "</Directory>\n",
        )));
    }
}
