//! What `check` reports of an .htaccess file's lines that httpd's handlers refuse as they run
//! them, for the request engine: there each is a 500 for every request that reads the file.
//! The engine judges the file's structure, the directives httpd does not know or the
//! AllowOverride forbids, `Options`, expressions, regexes and `Error` lines itself; what it
//! takes from here are the errors of the other checks of a line's words, `argument-value` and
//! `argument-count`, as the file's own diagnostics give them.
//!
//! Only an .htaccess file's own lines are read (for any other configuration, nothing), with
//! the modules and `<AuthnProviderAlias>` names of the server that reads it: an edit of the
//! server's configuration changes nothing here but through what only loading changes. (So the
//! incremental analysis's list of the directives the engine reads need not name these.)

use super::Diagnostic;
use crate::ide::config::{Config, Severity, TopLevel};
use apache_syntax::TextSize;
use std::collections::BTreeSet;

/// The codes of the checks whose errors on an .htaccess line the engine takes from here.
const CODES: &[&str] = &["argument-value", "argument-count"];

/// The lines of .htaccess file `frag` httpd refuses as its handlers run them: where each line
/// starts (its node's range), and httpd's words. `authn_providers`: the `<AuthnProviderAlias>`
/// names the server defines, which an .htaccess file may name.
pub(crate) fn of(frag: &Config, authn_providers: &BTreeSet<String>) -> Vec<(TextSize, String)> {
    if frag.top != TopLevel::Htaccess {
        return Vec::new();
    }
    let mut out: Vec<Diagnostic> = Vec::new();
    super::nodes(frag, &mut out);
    let consequence = super::consequence(frag);
    out.into_iter()
        .filter(|d| d.severity == Severity::Error && d.file == 0 && CODES.contains(&d.code))
        .filter(|d| {
            let alias = d.message.rsplit_once("Unknown Authn provider: ").map(|(_, w)| w);
            !alias.is_some_and(|w| authn_providers.contains(w))
        })
        .map(|d| {
            let said = d.message.strip_prefix(consequence).map_or(&*d.message, |rest| rest.trim_start_matches(": "));
            (d.range.start(), said.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::ide::config::{load, load_fragment_under, FileData};
    use crate::ide::diagnostics::tests::Fixture;
    use std::path::Path;
    use std::sync::Arc;

    /// An .htaccess file's refused words, in httpd's words, each at its line; a provider the
    /// server's `<AuthnProviderAlias>` defines is no refusal; a main configuration gives nothing.
    #[test]
    fn the_refusals_of_an_htaccess_file_and_only_of_one() {
        let main = "//- /etc/httpd/httpd.conf\nLoadModule authn_core_module m\nLoadModule auth_basic_module m\nLoadModule authn_file_module m\n<AuthnProviderAlias file mine>\n</AuthnProviderAlias>\nErrorDocument On /e.html\n";
        let fx = Fixture::parse(main);
        let server = load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let text = "ErrorDocument On /e.html\nAuthBasicProvider mine\nAuthBasicProvider other\nAuthName a b\n";
        let fd = Arc::new(FileData::new(Arc::from(Path::new("/srv/www/.htaccess")), Arc::from(text), None));
        let frag = load_fragment_under(fd.clone(), &server);
        let aliases = server.index().ctx.extra_authn_providers.clone();
        let found: Vec<String> =
            super::of(&frag, &aliases).into_iter().map(|(at, m)| format!("{}: {m}", fd.line_of(at))).collect();
        expect_test::expect![[r#"
            [
                "1: Unsupported HTTP response code On",
                "3: Unknown Authn provider: other",
                "4: AuthName takes one argument",
            ]
        "#]]
        .assert_debug_eq(&found);
        assert!(super::of(&server, &aliases).is_empty());
    }
}
