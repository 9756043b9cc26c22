//! Check: what went wrong while reading the tree (Include failures and cycles,
//! undefined variables, files that are not UTF-8).

use super::Diagnostic;
use crate::ide::config::Config;

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    for p in &cfg.problems {
        out.push(Diagnostic::new(p.file, p.range, p.severity, p.code, p.message.clone()));
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    #[test]
    fn missing_include_is_an_error_but_optional_is_silent() {
        expect![[r#"
            /srv/conf/main.conf:1: Error[include-missing]: Could not open configuration file /srv/conf/missing.conf: No such file or directory
        "#]]
        .assert_eq(&render("//- /srv/conf/main.conf\nInclude missing.conf\nIncludeOptional other.conf\n"));
    }

    #[test]
    fn include_cycle_reported_on_the_including_line() {
        expect![[r#"
            /srv/b.conf:1: Error[include-cycle]: Include cycle: /srv/a.conf → /srv/b.conf → /srv/a.conf; httpd would recurse until its include depth limit
        "#]]
        .assert_eq(&render("//- /srv/a.conf\nInclude /srv/b.conf\n//- /srv/b.conf\nInclude /srv/a.conf\n"));
    }
}
