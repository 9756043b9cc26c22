//! Check: `Options` lines httpd 2.4 refuses as it reads them (`server/core.c: set_options`):
//! words with `+`/`-` mixed with plain ones (httpd 2.2 accepted that), `None` or `All`
//! after another option or with a sign, and names that are no option.

use super::Diagnostic;
use crate::ide::catalogue;
use crate::ide::config::{Config, Node, NodeKind, Severity};

/// Checks `n`, the directive `d` of the catalogue.
pub(super) fn node(cfg: &Config, n: &Node, d: Option<&'static catalogue::Directive>, out: &mut Vec<Diagnostic>) {
    if n.kind != NodeKind::Directive || d.is_none_or(|d| d.name != "Options") {
        return;
    }
    let Some(refusal) = refusal(n.args()) else { return };
    out.push(Diagnostic::new(
        n.loc.file,
        cfg.trimmed(&n.loc),
        Severity::Error,
        "options-syntax",
        format!("{refusal}: {}", super::consequence(cfg)),
    ));
}

/// What `set_options` answers to these words (`ap_getword_conf`'s) in a configuration file,
/// in its words; None when it takes them. (What an .htaccess file's AllowOverride does not let
/// it set is the context check's: [`catalogue::context::Scope::check_options`].)
pub(crate) fn refusal<'a>(words: impl IntoIterator<Item = &'a str>) -> Option<String> {
    catalogue::context::options_refusal(words)
}

#[cfg(test)]
mod tests {
    use super::refusal;
    use crate::ide::diagnostics::tests::{render, render_diagnostics, Fixture};
    use expect_test::expect;

    #[test]
    fn words_as_set_options_reads_them() {
        let cases = [
            ("Indexes FollowSymLinks", None),
            ("+Indexes -FollowSymLinks", None),
            ("None +Indexes", None),
            ("all -indexes", None),
            ("+Indexes -FollowSymLinks Includes", Some("Either all Options must start with + or -, or no Option may.")),
            ("Indexes +FollowSymLinks", Some("Either all Options must start with + or -, or no Option may.")),
            ("Indexes None", Some("'Options None' must be the first Option given.")),
            ("+All", Some("You may not use 'Options +All' or 'Options -All'.")),
            ("-None", Some("You may not use 'Options +None' or 'Options -None'.")),
            ("Indexes All", Some("'Options All' must be the first option given.")),
            ("+Indexes +Frobnicate", Some("Illegal option Frobnicate")),
        ];
        for (line, want) in cases {
            assert_eq!(refusal(line.split(' ')).as_deref(), want, "{line}");
        }
    }

    #[test]
    fn refused_in_a_configuration_and_in_an_htaccess_file() {
        expect![[r#"
            /srv/httpd.conf:2: Error[options-syntax]: Either all Options must start with + or -, or no Option may.: httpd 2.4 will not start
            /srv/www/.htaccess:1: Error[options-syntax]: Illegal option Frobnicate: httpd answers 500 Internal Server Error to every request this .htaccess file applies to
        "#]]
        .assert_eq(&format!(
            "{}{}",
            render("//- /srv/httpd.conf\n<Directory /srv/www>\n  Options +Indexes FollowSymLinks\n  Options None +Indexes\n</Directory>\n"),
            htaccess("//- /srv/www/.htaccess\nOptions +Frobnicate\n")
        ));
    }

    /// The diagnostics of an .htaccess file read on its own.
    fn htaccess(fixture: &str) -> String {
        let fx = Fixture::parse(fixture);
        let cfg = crate::ide::config::load_fragment(std::path::Path::new(&fx.0[0].0), &fx);
        render_diagnostics(&cfg, &crate::ide::diagnostics::all(&cfg))
    }
}
