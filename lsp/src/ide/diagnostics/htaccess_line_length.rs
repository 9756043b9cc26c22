//! An .htaccess line of 8192 bytes or more: httpd reads .htaccess files a line at a time into a
//! buffer of `MAX_STRING_LEN` (8192) bytes, and a line that does not fit is "Line too long": the
//! request gets 500. (The main configuration's lines may be 16 MiB long: `syntax`.) Measured
//! per physical line, its newline aside, as the live server answers (8191 bytes: 200; 8192: 500).

use super::Diagnostic;
use crate::ide::config::{Config, FileId, TopLevel};
use apache_syntax::{TextRange, TextSize};

/// httpd's `MAX_STRING_LEN`, the buffer an .htaccess line is read into.
const HTACCESS_LINE: usize = 8192;

pub(super) fn check(cfg: &Config, file: FileId, out: &mut Vec<Diagnostic>) {
    if cfg.top != TopLevel::Htaccess {
        return;
    }
    for (range, len) in long_lines(&cfg.file(file).text) {
        out.push(Diagnostic::new(
            file,
            range,
            crate::ide::config::Severity::Error,
            "syntax",
            format!(
                "{}: Line too long: this line is {len} bytes, and httpd reads .htaccess lines shorter than {HTACCESS_LINE} bytes",
                super::consequence(cfg),
            ),
        ));
    }
}

/// Where httpd stops reading .htaccess text `text`, if it does: the first line too long for
/// its buffer, with httpd's words. (The request engine counts it as the file's 500, before
/// any line runs.)
pub(crate) fn first_too_long(text: &str) -> Option<(TextSize, &'static str)> {
    long_lines(text).next().map(|(range, _)| (range.start(), "Line too long"))
}

/// The physical lines of `text` of [`HTACCESS_LINE`] bytes or more (their newline aside), with
/// their length.
fn long_lines(text: &str) -> impl Iterator<Item = (TextRange, usize)> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        while start < text.len() {
            let end = memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i);
            let line = start;
            start = end + 1;
            if end - line >= HTACCESS_LINE {
                return Some((TextRange::new((line as u32).into(), (end as u32).into()), end - line));
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;

    #[test]
    fn htaccess_lines_of_8192_bytes_or_more() {
        let line = |n: usize| format!("AuthName {}\n", "a".repeat(n - "AuthName ".len()));
        let text = format!("{}{}Require all granted\n", line(8191), line(8192));
        let found = render(&format!("//- /srv/www/.htaccess\n{text}"));
        assert_eq!(found.lines().count(), 1, "{found}");
        assert!(found.starts_with("/srv/www/.htaccess:2: Error[syntax]: httpd answers 500"), "{found}");
        assert!(found.contains("Line too long: this line is 8192 bytes"), "{found}");
        // The main configuration's lines may be longer.
        let main = render(&format!("//- /srv/httpd.conf\n<Directory /srv>\n{text}</Directory>\n"));
        assert_eq!(main, "");
    }
}
