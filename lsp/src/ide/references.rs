//! Feature: find references of a variable — every `Define`, `UnDefine`,
//! `<IfDefine>` and `${VAR}` naming it, in every file of the tree (sections
//! whose condition is false included: renaming a variable must see them too).

use crate::ide::config::{Config, FileId};
use crate::ide::navigation::{self, Occurrence, OccurrenceKind, Subject};
use apache_syntax::TextSize;

/// The occurrences of the variable at `offset`; the `Define`s only when `include_declaration`.
pub fn references(cfg: &Config, file: FileId, offset: TextSize, include_declaration: bool) -> Option<Vec<Occurrence>> {
    let Subject::Variable { name, .. } = navigation::subject_at(cfg, file, offset)? else { return None };
    Some(
        navigation::variable_occurrences(cfg, &name)
            .into_iter()
            .filter(|o| include_declaration || o.kind != OccurrenceKind::Define)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::navigation::tests::load_fixture;
    use expect_test::{expect, Expect};

    fn check(fixture: &str, include_declaration: bool, expect: Expect) {
        let l = load_fixture(fixture);
        let got: String = references(&l.cfg, l.file, l.offset, include_declaration)
            .unwrap_or_default()
            .iter()
            .map(|o| {
                let fd = l.cfg.file(o.file);
                format!("{}:{} {:?} {:?}\n", fd.path.display(), fd.line_of(o.range.start()), o.kind, &fd.text[o.range])
            })
            .collect();
        expect.assert_eq(&got);
    }

    #[test]
    fn every_use_across_files_including_inactive_ones() {
        check(
            r#"
//- /srv/httpd.conf
Define DOCROOT /srv/wëb
Include /srv/site.conf
<IfDefine DOCROOT>
DocumentRoot ${DOCROOT}
</IfDefine>
<IfModule mod_nope.c>
Alias /x "${docroot}/x"
</IfModule>
UnDefine DOCROOT
//- /srv/site.conf
<Directory "${DOC█ROOT}/ünï">
</Directory>
"#,
            true,
            expect![[r#"
                /srv/httpd.conf:1 Define "DOCROOT"
                /srv/httpd.conf:3 IfDefine "DOCROOT"
                /srv/httpd.conf:4 Use "DOCROOT"
                /srv/httpd.conf:7 Use "docroot"
                /srv/httpd.conf:9 Undefine "DOCROOT"
                /srv/site.conf:1 Use "DOCROOT"
            "#]],
        );
    }

    #[test]
    fn without_declarations_and_ifdefine_compares_case() {
        check(
            "//- /srv/httpd.conf\nDefine █Tls\n<IfDefine TLS>\n</IfDefine>\nServerName ${TLS}\n",
            false,
            expect![[r#"
                /srv/httpd.conf:4 Use "TLS"
            "#]],
        );
    }

    #[test]
    fn not_on_a_variable() {
        check("//- /srv/httpd.conf\nServerName █example.com\n", true, expect![[""]]);
    }
}
