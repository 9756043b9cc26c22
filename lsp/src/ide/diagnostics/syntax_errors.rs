//! Check: what httpd's reader rejects (section nesting and headers).

use super::Diagnostic;
use crate::ide::config::{Config, FileId, Severity};

pub(super) fn check(cfg: &Config, file: FileId, out: &mut Vec<Diagnostic>) {
    for e in &cfg.file(file).parse.errors {
        if cfg.skipped_error(file, e) {
            continue;
        }
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

    /// What httpd would refuse in an .htaccess file it never reads (AllowOverride None for its
    /// directory) costs nothing now: a warning saying what reading it would cost, not an error
    /// that fails `check`. Read under AllowOverride All, the same file is an error.
    #[test]
    fn syntax_errors_in_an_htaccess_file_httpd_never_reads_are_warnings() {
        use crate::ide::config::{load, load_in_context};
        use crate::ide::diagnostics::tests::{render_diagnostics, Fixture};
        use std::path::Path;
        let found = |allow: &str| {
            let text = format!(
                "//- /etc/httpd/httpd.conf\n<Directory />\n  AllowOverride {allow}\n</Directory>\n//- /srv/www/.htaccess\n<Files x.txt>\nRequire all denied\nAuthName {}\n",
                "a".repeat(8200)
            );
            let fx = Fixture::parse(&text);
            let root = load(Path::new("/etc/httpd/httpd.conf"), &fx);
            let cfg = load_in_context(Path::new("/srv/www/.htaccess"), &fx, std::sync::Arc::new(root));
            let mut out = Vec::new();
            crate::ide::diagnostics::syntax(&cfg, 0, &mut out);
            render_diagnostics(&cfg, &out)
        };
        expect![[r#"
            /srv/www/.htaccess:1: Warning[syntax]: <Files> was not closed. (httpd never reads this file as the configuration stands, so this costs nothing now; were it read, every request it applies to would get 500)
            /srv/www/.htaccess:3: Warning[syntax]: Line too long: this line is 8209 bytes, and httpd reads .htaccess lines shorter than 8192 bytes (httpd never reads this file as the configuration stands, so this costs nothing now; were it read, every request it applies to would get 500)
        "#]]
        .assert_eq(&found("None"));
        let read = found("All");
        assert_eq!(read.matches("Error[syntax]").count(), 2, "{read}");
        assert!(!read.contains("never reads"), "{read}");
    }

    /// In the body of a false conditional section of an .htaccess file as in the server's
    /// configuration, what stops httpd's skipping reader is said on the section's own line (the
    /// request gets 500 with those words); the parser's errors inside are not httpd's.
    #[test]
    fn a_false_conditionals_body_in_an_htaccess_file_is_read_as_httpd_skips_it() {
        use crate::ide::config::{load, load_in_context};
        use crate::ide::diagnostics::tests::{render_diagnostics, Fixture};
        use std::path::Path;
        let found = |htaccess: &str| {
            let text = format!("//- /etc/httpd/httpd.conf\nLoadModule authz_core_module m\n<Directory />\n  AllowOverride All\n</Directory>\n//- /srv/www/.htaccess\n{htaccess}");
            let fx = Fixture::parse(&text);
            let root = load(Path::new("/etc/httpd/httpd.conf"), &fx);
            let cfg = load_in_context(Path::new("/srv/www/.htaccess"), &fx, std::sync::Arc::new(root));
            let mut out = Vec::new();
            crate::ide::diagnostics::syntax(&cfg, 0, &mut out);
            crate::ide::diagnostics::problems(&cfg, &mut out);
            render_diagnostics(&cfg, &out)
        };
        expect![[r#"
            /srv/www/.htaccess:2: Error[syntax]: Expected </Limit> but saw </Files>: httpd skips the body of this conditional section, its condition false here, reading only how the sections in it open and close, and names this line
            /srv/www/.htaccess:7: Error[syntax]: Expected </Files>> but saw </Files>: httpd skips the body of this conditional section, its condition false here, reading only how the sections in it open and close, and names this line
        "#]]
        .assert_eq(&found("Require all granted\n<IfModule !mod_authz_core.c>\n<Limit GET>\n</Files>\n</Limit>\n</IfModule>\n<IfDefine NOPE>\n<Files> x>\n</Files>\n</IfDefine>\n<IfDefine NOPE>\n<Files> x>\n</Files>>\n</IfDefine>\n"));
    }

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

    /// httpd names the last physical line of a line continued with backslashes, whatever
    /// the fault and whichever check finds it; a closer of another name says that the
    /// section is not closed, and nothing else says it again.
    #[test]
    fn errors_of_continued_lines_name_their_last_line() {
        expect![[r#"
            /etc/httpd/httpd.conf:4: Error[argument-count]: ServerName takes one argument
            /etc/httpd/httpd.conf:6: Error[unknown-directive]: Invalid command 'Foo', perhaps misspelled or defined by a module not included in the server configuration
            /etc/httpd/httpd.conf:9: Error[syntax]: Expected </Directory> but saw </Location>
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m\n",
            "ServerName a \\\n b \\\n c\nFoo \\\n bar\n",
            "<Directory \\\n /srv>\n</Location>\n",
        )));
    }

    /// mod_version reads an `<IfVersion` opener's words itself: its `>` ends the version word
    /// or is a word of its own, and its operator and version are refused as it reads them.
    /// `<Location` alone is `<Location>`.
    #[test]
    fn if_version_openers_are_read_as_mod_version_reads_them() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[syntax]: <IfVersion> directive missing closing '>'
            /etc/httpd/httpd.conf:4: Error[syntax]: <IfVersion> directive missing closing '>'
            /etc/httpd/httpd.conf:8: Error[syntax]: unrecognized operator '~='
            /etc/httpd/httpd.conf:10: Error[syntax]: Version appears to be invalid. It must have the format major[.minor[.patch]] where major, minor and patch are numbers.
            /etc/httpd/httpd.conf:12: Error[syntax]: <Location> directive requires additional arguments
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m\n",
            "<IfVersion >= 2.4\n</IfVersion>\n<IfVersion >= 2.4>x\n</IfVersion>\n",
            "<IfVersion >= 2.4 >\n</IfVersion>\n<IfVersion ~= 2.4>\n</IfVersion>\n<IfVersion\n</IfVersion>\n",
            "<Location\n</Location>\n",
            "<IfDefine NOPE>\n<IfVersion >= 2.4\n</IfVersion>\n</IfDefine>\n",
        )));
    }

    /// Inside a skipped conditional httpd minds only how sections nest.
    #[test]
    fn headers_inside_a_skipped_conditional_are_not_read() {
        expect![[r#"
            /etc/httpd/httpd.conf:10: Error[syntax]: Expected </Directory> but saw </IfDefine>: httpd skips the body of this conditional section, its condition false here, reading only how the sections in it open and close, and names this line
            /etc/httpd/httpd.conf:13: Error[syntax]: </Directory> without matching <Directory> section
            /etc/httpd/httpd.conf:14: Error[syntax]: <FilesMatch> directive requires additional arguments
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m\n",
            "<IfDefine NOPE>\n<IfDefine >\n</IfDefine>\n<FilesMatch>\n</FilesMatch>\n<Directory /srv\n</Directory>\n</IfDefine>\n",
            "<IfDefine NOPE>\n<Directory /srv>\n</IfDefine>\n</Directory>\n",
            "<FilesMatch>\n</FilesMatch>\n",
        )));
    }
}
