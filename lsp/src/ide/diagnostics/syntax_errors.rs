//! Check: what httpd's reader rejects (section nesting and headers).

use super::Diagnostic;
use crate::ide::config::{Config, FileId, Severity};

pub(super) fn check(cfg: &Config, file: FileId, out: &mut Vec<Diagnostic>) {
    for e in &cfg.file(file).parse.errors {
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
}
