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

    #[test]
    fn load_module_of_a_compiled_in_or_loaded_module() {
        expect![[r#"
            /etc/httpd/httpd.conf:1: Warning[builtin-module]: module unixd_module is built-in and can't be loaded: Debian's apache2 has mod_unixd.c compiled in (`apache2 -l`) and will not start; builds that ship it as a loadable module accept this line
            /etc/httpd/httpd.conf:6: Warning[module-loaded-twice]: module alias_module is already loaded, skipping (AH01574): an earlier LoadModule line loads it
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule unixd_module m.so\nLoadModule alias_module m.so\n<IfModule !mod_version.c>\n  LoadModule version_module m.so\n</IfModule>\nLoadModule alias_module m.so\nLoadModule core_module m.so\n"));
    }
}
