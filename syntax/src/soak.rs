//! How httpd skips the body of a section it does not read (a conditional section whose
//! condition is false): `server/config.c: ap_soak_end_container` reads on, line by line, and
//! looks at nothing but each line's first word. A word starting with `</` must close the
//! innermost section open in the body (its last byte, whatever it is, taken off, the rest
//! compared without case); any other word starting with `<` opens one, named by the whole
//! word, less a last `>` only when nothing follows the word on its line. So `<Directory> /srv>`
//! there opens a section named `Directory>`, which only `</Directory>>` closes, and
//! `</Limitx` closes `<Limit`. The first closer of another name, or the end of the file,
//! stops httpd; it names the line of the section it was skipping (the caller's).

use crate::lexer::{first_word, logical_lines, skip_space};
use rowan::{TextRange, TextSize};

/// What httpd's skipping reader made of a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Soaked {
    /// The body ends with the logical line `closer` (its source range, from its first physical
    /// line's start, its newline excluded).
    Closed { closer: TextRange },
    /// httpd refuses the configuration, in its words; `at` is the line where it stopped
    /// (a closer of another name), or the end of the file (an empty range there).
    Refused { message: String, at: TextRange },
}

/// Skips the body that starts at `from` (a line start of `src`) of the section `name` (as
/// httpd names it, without `<`), as `ap_soak_end_container` does.
pub fn soak(src: &str, from: usize, name: &str) -> Soaked {
    let from = from.min(src.len());
    let from = if src.is_char_boundary(from) { from } else { src.len() };
    // Section names as httpd keeps them (each without its `<`), innermost last.
    let mut open: Vec<String> = vec![name.to_string()];
    for line in logical_lines(&src[from..]) {
        let text = line.joined();
        let Some((word, rest)) = first_word(text) else { continue };
        let Some(after_lt) = word.strip_prefix('<') else { continue };
        let at = || {
            TextRange::new(
                TextSize::from((from + line.last_physical_start()) as u32),
                TextSize::from((from + line.content_end) as u32),
            )
        };
        if after_lt.starts_with('/') {
            // The word less its last byte, whatever it is (`</` alone leaves `<`), is what
            // httpd prints; its name after `</` is compared with the section's.
            let printed = &word.as_bytes()[..word.len() - 1];
            let seen = printed.get(2..).unwrap_or_default();
            let top = open.last().map(String::as_bytes).unwrap_or_default();
            if !seen.eq_ignore_ascii_case(top) {
                let printed = String::from_utf8_lossy(printed);
                let top = open.last().map(String::as_str).unwrap_or_default();
                return Soaked::Refused { message: format!("Expected </{top}> but saw {printed}>"), at: at() };
            }
            open.pop();
            if open.is_empty() {
                let start = TextSize::from((from + line.start) as u32);
                return Soaked::Closed {
                    closer: TextRange::new(start, TextSize::from((from + line.content_end) as u32)),
                };
            }
        } else {
            let alone = skip_space(rest.as_bytes(), 0) == rest.len();
            let name = match after_lt.strip_suffix('>') {
                Some(stripped) if alone => stripped,
                _ => after_lt,
            };
            open.push(name.to_string());
        }
    }
    let end = TextSize::from(src.len() as u32);
    let top = open.last().map(String::as_str).unwrap_or_default();
    Soaked::Refused { message: format!("Expected </{top}> before end of configuration"), at: TextRange::new(end, end) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(src: &str) -> String {
        let from = src.find('\n').map_or(src.len(), |i| i + 1);
        match soak(src, from, "IfModule") {
            Soaked::Closed { closer } => format!("closed by {:?}", &src[closer]),
            Soaked::Refused { message, at } => format!("{message} at {:?}", &src[at]),
        }
    }

    #[test]
    fn skipped_bodies_are_read_for_their_first_words_only() {
        // Arguments, `>` and words after a closer are not looked at.
        assert_eq!(
            show("<IfModule x>\n<Directory /a\nFoo >\n</Directory> x\n</IfModule> # end\nAfter\n"),
            "closed by \"</IfModule> # end\""
        );
        // A closer of another name stops httpd, named as written.
        assert_eq!(
            show("<IfModule x>\n<limit GET>\n</Files>\n</IfModule>\n"),
            "Expected </limit> but saw </Files> at \"</Files>\""
        );
        assert_eq!(show("<IfModule x>\n</Files>\n"), "Expected </IfModule> but saw </Files> at \"</Files>\"");
        // The closer's last byte goes, whatever it is.
        assert_eq!(
            show("<IfModule x>\n<Limit GET>\n</Limit\n</IfModule>\n"),
            "Expected </Limit> but saw </Limi> at \"</Limit\""
        );
        assert_eq!(show("<IfModule x>\n<Limit GET>\n</Limitx\n</ifmodule>\n"), "closed by \"</ifmodule>\"");
        // `<Name> words>`: the section's name keeps its `>`.
        assert_eq!(
            show("<IfModule x>\n<Directory> /srv>\n</Directory>\n</IfModule>\n"),
            "Expected </Directory>> but saw </Directory> at \"</Directory>\""
        );
        assert_eq!(show("<IfModule x>\n<Directory> /srv>\n</Directory>>\n</IfModule>\n"), "closed by \"</IfModule>\"");
        assert_eq!(show("<IfModule x>\n  <Files>  \n</Files>\n</IfModule>"), "closed by \"</IfModule>\"");
        // The end of the file, innermost first; continued lines are one line.
        assert_eq!(show("<IfModule x>\n<Directory /x>\n"), "Expected </Directory> before end of configuration at \"\"");
        assert_eq!(
            show("<IfModule x>\n<Directory \\\n /x>\n</Directory>\n</If\\\nModule>\n"),
            "closed by \"</If\\\\\\nModule>\""
        );
        assert_eq!(show("<IfModule x>\n</IfModule \\\n>\n"), "Expected </IfModule> but saw </IfModul> at \">\"");
        assert_eq!(show("<IfModule x>\n\"</IfModule>\"\n"), "closed by \"\\\"</IfModule>\\\"\"");
        assert_eq!(show("<IfModule x>\n</\n"), "Expected </IfModule> but saw <> at \"</\"");
    }
}
