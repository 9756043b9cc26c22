//! Feature: document highlight — the occurrences of the variable under the
//! cursor in this file: `Define` and `UnDefine` write it, `${VAR}` and
//! `<IfDefine>` read it.

use crate::ide::config::{Config, FileId};
use crate::ide::navigation::{self, OccurrenceKind, Subject};
use apache_syntax::{TextRange, TextSize};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

pub fn document_highlight(cfg: &Config, file: FileId, offset: TextSize) -> Option<Vec<(TextRange, Access)>> {
    let Subject::Variable { name, .. } = navigation::subject_at(cfg, file, offset)? else { return None };
    Some(
        navigation::variable_occurrences(cfg, &name)
            .into_iter()
            .filter(|o| o.file == file)
            .map(|o| {
                let access = match o.kind {
                    OccurrenceKind::Define | OccurrenceKind::Undefine => Access::Write,
                    OccurrenceKind::IfDefine | OccurrenceKind::Use => Access::Read,
                };
                (o.range, access)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::navigation::tests::load_fixture;
    use expect_test::expect;

    #[test]
    fn highlights_only_this_file_with_read_and_write() {
        let l = load_fixture(
            "//- /srv/httpd.conf\nDefine PORT 80\nInclude /srv/b.conf\nListen ${PO█RT}\n//- /srv/b.conf\nDefine PORT 81\n",
        );
        let text = &l.cfg.file(l.file).text;
        let got: String = document_highlight(&l.cfg, l.file, l.offset)
            .unwrap()
            .iter()
            .map(|(r, a)| format!("{:?} {a:?} at {}\n", &text[*r], u32::from(r.start())))
            .collect();
        expect![[r#"
            "PORT" Write at 7
            "PORT" Read at 44
        "#]]
        .assert_eq(&got);
    }
}
