//! Feature: a file that begins with a UTF-8 byte-order mark.
//!
//! httpd strips none. Its line reader trims only `apr_isspace` bytes, so the mark's three bytes
//! (EF BB BF) start the first line's first word, and that word is never a command: httpd says
//! `Invalid command '\xef\xbb\xbfOrder'` (or `'\xef\xbb\xbf#'` for a comment, `'\xef\xbb\xbf'` for
//! an empty line). A server configuration file holding one stops httpd at startup; an .htaccess
//! file holding one answers 500 to every request it applies to, unless `AllowOverride
//! Nonfatal=Unknown` has the word logged and skipped. The parser keeps the mark in the first
//! directive's name (so it is never taken for `Order`); this module says what that costs where a
//! feature describes or rewrites a file's rules ([`refusal`]), offers the fix that removes the
//! mark ([`removal`]), and lets `migrate --remove-bom` read files as they will be without it
//! ([`WithoutBom`]).

use crate::ide::config::{FileSource, IncludeError, Text};
use apache_syntax::{TextRange, TextSize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The mark, as text.
pub const BOM: &str = "\u{feff}";

/// Whether `text` begins with the mark.
pub fn starts_with_bom(text: &str) -> bool {
    text.starts_with(BOM)
}

/// Why httpd evaluates none of a file's lines, when `text` begins with the mark: `consequence`
/// says what httpd does instead (it does not start; it answers 500). None without the mark, or
/// when `nonfatal_unknown` (an .htaccess file under `AllowOverride Nonfatal=Unknown`: httpd then
/// skips the first directive and reads the rest).
pub fn refusal(text: &str, consequence: &str, nonfatal_unknown: bool) -> Option<String> {
    if !starts_with_bom(text) || nonfatal_unknown {
        return None;
    }
    let first = text.split(['\n', ' ', '\t', '\r']).next().unwrap_or_default();
    Some(format!(
        "has lines in a file that begins with a UTF-8 byte-order mark, which httpd reads as part of the first directive's name (Invalid command '{}'), so it evaluates nothing in that file: {consequence}",
        httpd_escaped(first)
    ))
}

/// A word as httpd prints it in an error: bytes outside printable ASCII as `\xHH`.
pub fn httpd_escaped(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for b in word.bytes() {
        if (0x20..0x7f).contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The range of the mark in `text`, which removing it deletes (None without one).
pub fn removal(text: &str) -> Option<TextRange> {
    starts_with_bom(text).then(|| TextRange::new(TextSize::from(0), TextSize::of(BOM)))
}

/// The title of the fix removing the mark: it changes what httpd does, and says how.
pub fn removal_title(htaccess: bool) -> &'static str {
    if htaccess {
        "Remove the byte-order mark (changes what httpd does: every request this .htaccess file applies to gets 500 today; without the mark httpd evaluates the file)"
    } else {
        "Remove the byte-order mark (changes what httpd does: it does not start with this file today; without the mark it reads the file)"
    }
}

/// Whether an editor's text of a file is the file's bytes `disk` decoded by the byte-order mark
/// they begin with (EF BB BF: UTF-8; FF FE: UTF-16LE; FE FF: UTF-16BE), the mark dropped.
/// Editors open such a file without the mark in the text they send, so the text shows a working
/// file where httpd, reading the bytes, refuses the first line (UTF-16 files also hold a NUL
/// after every ASCII byte). False for bytes without a mark, and for a text keeping the mark
/// (U+FEFF): that text says the refusal itself, at the editor's offsets.
pub fn editor_shows_marked(disk: &[u8], editor: &str) -> bool {
    if starts_with_bom(editor) {
        return false;
    }
    let utf16 = |rest: &[u8], unit: fn([u8; 2]) -> u16| -> bool {
        if !rest.len().is_multiple_of(2) {
            return false;
        }
        let units = rest.chunks_exact(2).map(|c| unit([c[0], c[1]]));
        let mut want = editor.chars();
        for c in char::decode_utf16(units) {
            if want.next() != Some(c.unwrap_or(char::REPLACEMENT_CHARACTER)) {
                return false;
            }
        }
        want.next().is_none()
    };
    if let Some(rest) = disk.strip_prefix(b"\xef\xbb\xbf") {
        String::from_utf8_lossy(rest) == editor
    } else if let Some(rest) = disk.strip_prefix(b"\xff\xfe") {
        utf16(rest, u16::from_le_bytes)
    } else if let Some(rest) = disk.strip_prefix(b"\xfe\xff") {
        utf16(rest, u16::from_be_bytes)
    } else {
        false
    }
}

/// A file source that reads every file `strip` accepts without its mark, remembering which had
/// one, with its text as it was (`migrate --remove-bom` plans and proves its rewrites on the
/// files as they will be).
pub struct WithoutBom<'a, F: Fn(&Path) -> bool + Sync> {
    pub base: &'a dyn FileSource,
    pub strip: F,
    pub stripped: Mutex<BTreeMap<PathBuf, Arc<str>>>,
}

/// `text` without its mark (unchanged without one), with the offset of its first invalid UTF-8
/// byte moved with it.
pub fn strip(text: Text) -> (Text, bool) {
    let (t, bad) = text;
    if !starts_with_bom(&t) {
        return ((t, bad), false);
    }
    let n = BOM.len();
    ((Arc::from(&t[n..]), bad.map(|b| b.saturating_sub(n))), true)
}

impl<F: Fn(&Path) -> bool + Sync> FileSource for WithoutBom<'_, F> {
    fn read(&self, path: &Path) -> std::io::Result<Text> {
        let t = self.base.read(path)?;
        if !(self.strip)(path) {
            return Ok(t);
        }
        let original = t.0.clone();
        let (t, had) = strip(t);
        if had {
            self.stripped.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf(), original);
        }
        Ok(t)
    }
    fn exists(&self, path: &Path) -> bool {
        self.base.exists(path)
    }
    fn disk_paths(&self) -> bool {
        self.base.disk_paths()
    }
    fn resolve_include(&self, full: &Path, optional: bool) -> Result<Vec<PathBuf>, IncludeError> {
        self.base.resolve_include(full, optional)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_word_is_said_as_httpd_prints_it() {
        let why = refusal("\u{feff}Order deny,allow\r\nDeny from all\r\n", "httpd does not start", false);
        expect_test::expect![[r#"Some("has lines in a file that begins with a UTF-8 byte-order mark, which httpd reads as part of the first directive's name (Invalid command '\\xef\\xbb\\xbfOrder'), so it evaluates nothing in that file: httpd does not start")"#]]
            .assert_eq(&format!("{why:?}"));
        assert_eq!(refusal("\u{feff}\n", "x", false).as_deref().map(|w| w.contains("'\\xef\\xbb\\xbf'")), Some(true));
        assert_eq!(refusal("\u{feff}Order deny,allow\n", "x", true), None);
        assert_eq!(refusal("Order deny,allow\n\u{feff}", "x", false), None);
    }

    #[test]
    fn an_editor_text_is_recognised_as_the_marked_bytes_decoded() {
        let text = "Order deny,allow\r\nDeny from all\r\n";
        let mut u8 = b"\xef\xbb\xbf".to_vec();
        u8.extend_from_slice(text.as_bytes());
        let le: Vec<u8> = [0xff, 0xfe].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let be: Vec<u8> = [0xfe, 0xff].into_iter().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect();
        for disk in [&u8, &le, &be] {
            assert!(editor_shows_marked(disk, text));
            assert!(!editor_shows_marked(disk, &format!("{BOM}{text}")));
            assert!(!editor_shows_marked(disk, "Order deny,allow\r\n"));
            assert!(!editor_shows_marked(disk, &format!("{text}x")));
        }
        assert!(!editor_shows_marked(text.as_bytes(), text));
        assert!(!editor_shows_marked(&le[..le.len() - 1], text));
        assert!(!editor_shows_marked(b"", ""));
    }

    #[test]
    fn stripping_moves_the_invalid_byte_offset() {
        let ((t, bad), had) = strip((Arc::from("\u{feff}Deny from \u{fffd}"), Some(13)));
        assert!(had);
        assert_eq!((&*t, bad), ("Deny from \u{fffd}", Some(10)));
        let ((t, _), had) = strip((Arc::from("Deny"), None));
        assert!(!had);
        assert_eq!(&*t, "Deny");
        assert_eq!(removal("\u{feff}x"), Some(TextRange::new(0.into(), 3.into())));
        assert_eq!(removal("x"), None);
    }
}
