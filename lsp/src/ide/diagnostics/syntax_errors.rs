//! Check: what httpd's reader rejects (section nesting and headers).

use super::Diagnostic;
use crate::ide::config::{Config, FileId, Severity};

pub(super) fn check(cfg: &Config, file: FileId, out: &mut Vec<Diagnostic>) {
    for e in &cfg.file(file).parse.errors {
        // An unclosed conditional the loader found false says so itself.
        if !e.is_error
            && cfg.problems.iter().any(|p| p.file == file && p.code == "syntax" && p.range.start() == e.range.start())
        {
            continue;
        }
        let severity = if e.is_error { Severity::Error } else { Severity::Warning };
        out.push(Diagnostic::new(file, e.range, severity, "syntax", e.message.clone()));
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    #[test]
    fn unclosed_section_reported_on_opener_line() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[syntax]: <Directory> was not closed.
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nServerName x\n<Directory />\n  Require all denied\n"));
    }

    /// An unclosed conditional: fine for httpd while its condition is true; when it is false,
    /// httpd hunts for the closer to the end and stops, an error where the modules are known
    /// (a warning where they are only assumed).
    #[test]
    fn unclosed_conditional_is_an_error_when_false() {
        expect![[r#"
            /etc/httpd/httpd.conf:4: Error[syntax]: <IfModule> was not closed, and its condition is false here: httpd looks for its closer to the end of the configuration (Expected </IfModule> before end of configuration)
            /etc/httpd/httpd.conf:5: Warning[syntax]: <IfModule> was not closed. (httpd accepts this only while the condition is true)
        "#]]
        .assert_eq(&render(
            "//- /etc/httpd/httpd.conf\nLoadModule rewrite_module m.so\n<IfDefine NOPE>\n</IfDefine>\n<ifmodule mod_nosuch.c>\n<IfModule mod_rewrite.c>\nRewriteEngine On\n",
        ));
        expect![[r#"
            /srv/site.conf:1: Warning[syntax]: <IfModule> was not closed, and its condition is false here: httpd looks for its closer to the end of the configuration (Expected </IfModule> before end of configuration)
        "#]]
        .assert_eq(&render("//- /srv/site.conf\n<IfModule mod_nosuch.c>\nFoo\n"));
    }

    /// A backslash continuation that meets the end of the file: httpd drops the backslash.
    #[test]
    fn continuation_at_the_end_of_a_file_is_dropped() {
        assert_eq!(render("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m\nServerAdmin a@b \\\n"), "");
        assert_eq!(render("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m\n<Directory /x>\n</Directory>\nOptions Indexes\\\r\n"), "");
        // Without its newline the backslash is a word.
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[argument-count]: ServerAdmin takes one argument
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m\nServerAdmin a@b \\"));
    }
}
