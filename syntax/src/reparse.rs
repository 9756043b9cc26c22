//! Incremental reparsing after an edit.
//!
//! httpd reads a file one logical line at a time, and only section headers and
//! closers (`<Name …>`, `</Name>`) relate a line to the lines around it. So when
//! every logical line an edit touches is, before and after the edit, a blank line,
//! a comment or a directive, the new tree is the old one with those lines'
//! elements replaced by the same lines lexed afresh: the section structure, and
//! with it every error (errors only ever sit on header and closer lines), is
//! unchanged, and the errors after the edit just move by its length.
//!
//! [`Parse::reparse`] finds the logical lines an edit touches (following
//! backslash continuations, which an edit can create or remove), re-lexes them,
//! and splices the new elements into the rowan tree, sharing every other node
//! with the old tree. Whenever that reasoning does not apply it parses the whole
//! text instead; either way the result equals [`crate::parse`] of the new text,
//! tree and errors alike (a property test checks this on random edits).

use rowan::{GreenNodeBuilder, Language, NodeOrToken, TextRange, TextSize};

use crate::lexer::logical_lines;
use crate::parser::{is_section_line, simple_line, Parse};
use crate::{ApacheLanguage, SyntaxKind::*, SyntaxNode};

/// Bounds on the work of the incremental path; beyond them a full parse is as good.
const MAX_SCAN_BYTES: usize = 64 * 1024;
const MAX_LINES: usize = 256;
const MAX_TOKENS: usize = 4096;

/// The logical lines an incremental reparse replaced: `old` in the old text became
/// `new` in the new text (both start at the same offset). Every line in both was a
/// blank line, a comment or a directive, all in one section (or at top level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalChange {
    pub old: TextRange,
    pub new: TextRange,
}

impl LocalChange {
    /// How far text after the change moved.
    pub fn delta(&self) -> i64 {
        i64::from(u32::from(self.new.len())) - i64::from(u32::from(self.old.len()))
    }
}

/// The result of [`Parse::reparse`].
#[derive(Debug, Clone)]
pub struct Reparsed {
    pub parse: Parse,
    /// The lines replaced, when the incremental path was taken; None after a full parse.
    pub local: Option<LocalChange>,
}

impl Parse {
    /// The parse of `new_text`, which is this parse's text with the bytes of `delete`
    /// replaced by `insert_len` new bytes. Equals `parse(new_text)`; cheap when the
    /// edit stays inside lines that are not section headers or closers.
    pub fn reparse(&self, new_text: &str, delete: TextRange, insert_len: TextSize) -> Reparsed {
        match incremental(self, new_text, delete, insert_len) {
            Some((parse, local)) => Reparsed { parse, local: Some(local) },
            None => Reparsed { parse: crate::parse(new_text), local: None },
        }
    }
}

fn incremental(old: &Parse, new_text: &str, delete: TextRange, insert_len: TextSize) -> Option<(Parse, LocalChange)> {
    let old_len = usize::from(old.green.text_len());
    let (s, e, ins) = (usize::from(delete.start()), usize::from(delete.end()), usize::from(insert_len));
    if old_len == 0 || e > old_len || new_text.len() != old_len - (e - s) + ins || !new_text.is_char_boundary(s) {
        return None;
    }
    let delta = ins as i64 - (e - s) as i64;
    let shift = |old_offset: usize| (old_offset as i64 + delta) as usize;
    let root = SyntaxNode::new_root(old.green.clone());

    // The region starts where the logical line holding `s` starts; the text before
    // `s` is the same in both versions, so that is a line start in both.
    let mut a = line_start(new_text, s)?;
    // It ends at a line end of the old text at or after `e`…
    let b = old_line_end_at_or_after(&root, e, old_len)?;
    // …and then at the first place where the new text's lines, read from `a`, and
    // the old text's lines, read from `b` (the same bytes from there on), meet again.
    let mut p = sync(new_text, a, shift(b))?;
    let mut q = (p as i64 - delta) as usize;
    if q == a {
        // Whole lines inserted at `a`: take a neighbouring line along, so that the
        // region has a place in the old tree.
        if q < old_len {
            let next = logical_lines(&new_text[p..]).next()?;
            if is_section_line(&next) {
                return None;
            }
            p += next.end;
            q += next.end;
        } else {
            a = line_start(new_text, a.checked_sub(1)?)?;
        }
    }
    // Every line of the new region must be a simple line.
    let new_region = &new_text[a..p];
    if logical_lines(new_region).take(MAX_LINES + 1).enumerate().any(|(i, l)| i == MAX_LINES || is_section_line(&l)) {
        return None;
    }

    // The old region: consecutive children of one section (or of the file), all simple.
    let old_range = TextRange::new(ts(a), ts(q));
    let container = match root.covering_element(old_range) {
        NodeOrToken::Node(n) => n,
        NodeOrToken::Token(t) => t.parent()?,
    }
    .ancestors()
    .find(|n| matches!(n.kind(), SOURCE_FILE | SECTION))?;
    let first = container.child_or_token_at_range(TextRange::at(ts(a), ts(1)))?;
    let last = container.child_or_token_at_range(TextRange::at(ts(q - 1), ts(1)))?;
    if first.text_range().start() != ts(a) || last.text_range().end() != ts(q) {
        return None;
    }
    let (i, j) = (first.index(), last.index());
    let green = container.green();
    let simple = green.children().skip(i).take(j + 1 - i).all(|c| {
        matches!(ApacheLanguage::kind_from_raw(c.kind()), DIRECTIVE | COMMENT | WHITESPACE | NEWLINE | CONTINUATION)
    });
    if !simple {
        return None;
    }

    // Lex the new lines and splice them in.
    let mut builder = GreenNodeBuilder::new();
    builder.start_node(SOURCE_FILE.into());
    for line in logical_lines(new_region) {
        // A line with an error of its own (a NUL byte, too long for httpd) goes through the
        // full parse, which reports it.
        if line.nul_tail.is_some() || line.joined().len() >= crate::MAX_LINE {
            return None;
        }
        if !simple_line(&mut builder, new_region, &line) {
            return None;
        }
    }
    builder.finish_node();
    let fresh = builder.finish();
    let children: Vec<_> = fresh.children().map(|c| c.to_owned()).collect();
    let new_container = green.splice_children(i..=j, children);
    let new_root = container.replace_with(new_container);

    let errors = old
        .errors
        .iter()
        .map(|err| {
            let mut err = err.clone();
            if usize::from(err.range.start()) >= q {
                err.range = TextRange::new(ts(shift(err.range.start().into())), ts(shift(err.range.end().into())));
            }
            err
        })
        .collect();
    let change = LocalChange { old: old_range, new: TextRange::new(ts(a), ts(p)) };
    Some((Parse { green: new_root, errors }, change))
}

/// Start of the logical line holding offset `pos` (a physical line start whose
/// previous physical line does not end in a continuation backslash).
fn line_start(text: &str, pos: usize) -> Option<usize> {
    let b = text.as_bytes();
    let floor = pos.saturating_sub(MAX_SCAN_BYTES);
    let mut start = memchr::memrchr(b'\n', &b[floor..pos]).map(|i| floor + i + 1).unwrap_or(floor);
    loop {
        if start == 0 {
            return Some(0);
        }
        if start == floor {
            return None; // too far back to know
        }
        // The physical line ending at `start - 1` continues into ours when its
        // content (before an optional `\r`) ends in a backslash.
        let nl = start - 1;
        let content_end = if nl > 0 && b[nl - 1] == b'\r' { nl - 1 } else { nl };
        if content_end == 0 || b[content_end - 1] != b'\\' {
            return Some(start);
        }
        start = memchr::memrchr(b'\n', &b[floor..nl]).map(|i| floor + i + 1).unwrap_or(floor);
    }
}

/// The first end of a logical line of the old text at or after `e` (ends of lines
/// are the ends of NEWLINE tokens, a continuation's newline being part of a
/// CONTINUATION token, and the end of the text).
fn old_line_end_at_or_after(root: &SyntaxNode, e: usize, len: usize) -> Option<usize> {
    if e >= len {
        return Some(len);
    }
    let mut t = root.token_at_offset(ts(e)).right_biased()?;
    if usize::from(t.text_range().start()) == e {
        match t.prev_token() {
            None => return Some(e),
            Some(p) if p.kind() == NEWLINE => return Some(e),
            _ => {}
        }
    }
    for _ in 0..MAX_TOKENS {
        if t.kind() == NEWLINE {
            return Some(t.text_range().end().into());
        }
        match t.next_token() {
            Some(n) => t = n,
            None => return Some(len),
        }
    }
    None
}

/// Reads logical lines of `text` from `a` and from `b` (both line starts) until the
/// two readings reach the same line end; returns it.
fn sync(text: &str, a: usize, b: usize) -> Option<usize> {
    let mut from_a = logical_lines(&text[a..]).map(|l| a + l.end);
    let mut from_b = logical_lines(&text[b..]).map(|l| b + l.end);
    let (mut x, mut y) = (a, b);
    for _ in 0..2 * MAX_LINES {
        if x == y {
            return Some(x);
        }
        if x < y {
            x = from_a.next()?;
        } else {
            y = from_b.next()?;
        }
    }
    None
}

fn ts(n: usize) -> TextSize {
    TextSize::from(n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Applies `insert` over `delete` (byte offsets) of `text` and reparses.
    fn edit(text: &str, delete: std::ops::Range<usize>, insert: &str) -> (String, Reparsed) {
        let old = crate::parse(text);
        let mut new = text.to_string();
        new.replace_range(delete.clone(), insert);
        let range = TextRange::new(ts(delete.start), ts(delete.end));
        let r = old.reparse(&new, range, TextSize::of(insert));
        (new, r)
    }

    /// The reparse equals a fresh parse; returns the replaced region, if incremental.
    fn check(text: &str, delete: std::ops::Range<usize>, insert: &str) -> Option<(std::ops::Range<usize>, String)> {
        let (new, r) = edit(text, delete, insert);
        let fresh = crate::parse(&new);
        assert_eq!(r.parse.syntax_node().text().to_string(), new, "lossless");
        assert_eq!(r.parse.green, fresh.green, "tree of {new:?}");
        assert_eq!(r.parse.errors, fresh.errors, "errors of {new:?}");
        r.local.map(|l| (usize::from(l.new.start())..usize::from(l.new.end()), new[l.new].to_string()))
    }

    const DOC: &str = "ServerName a\n<Directory /srv>\n  Require all granted\n  Options None\n</Directory>\n# end\n";

    #[test]
    fn one_character_in_a_directive_relexes_its_line() {
        let at = DOC.find("granted").unwrap();
        assert_eq!(check(DOC, at..at, "x"), Some((30..53, "  Require all xgranted\n".into())));
        assert_eq!(check(DOC, at..at + 1, ""), Some((30..51, "  Require all ranted\n".into())));
        // In a comment, and in the last line.
        let at = DOC.find("end").unwrap();
        assert!(check(DOC, at..at + 3, "fin").is_some());
    }

    #[test]
    fn continuations_made_or_removed_take_the_joined_lines() {
        // A backslash at the end of a line joins the next one into the region.
        let at = DOC.find("granted").unwrap() + "granted".len();
        assert_eq!(check(DOC, at..at, " \\"), Some((30..69, "  Require all granted \\\n  Options None\n".into())));
        // Removing it splits them again.
        let joined = "A 1 \\\nB 2\nC 3\n";
        assert_eq!(check(joined, 4..5, ""), Some((0..9, "A 1 \nB 2\n".into())));
        // A backslash joining a directive with a closer changes the structure.
        assert_eq!(check(DOC, DOC.find("None").unwrap() + 4..DOC.find("None").unwrap() + 4, "\\"), None);
    }

    #[test]
    fn section_lines_fall_back_to_a_full_parse() {
        // Typing in a header, turning a directive into a header, deleting a closer.
        assert_eq!(check(DOC, 14..14, "x"), None);
        assert_eq!(check(DOC, 32..32, "<"), None);
        let close = DOC.find("</Directory>").unwrap();
        assert_eq!(check(DOC, close..close + 13, ""), None);
    }

    #[test]
    fn whole_lines_inserted_or_deleted() {
        let line = DOC.find("  Options").unwrap();
        // Inserted before a line: the line after comes along.
        assert_eq!(check(DOC, line..line, "  Foo 1\n"), Some((line..line + 23, "  Foo 1\n  Options None\n".into())));
        // Deleted: nothing is left in the new text.
        assert_eq!(check(DOC, line..line + 15, ""), Some((line..line, String::new())));
        // Appended at the end of the file: the last line comes along.
        let end = DOC.len();
        assert_eq!(check(DOC, end..end, "Listen 80\n"), Some((end - 6..end + 10, "# end\nListen 80\n".into())));
        // At the end of an unclosed section the new line joins the section.
        let open = "<Directory />\n  Require all denied\n";
        assert!(check(open, open.len()..open.len(), "  Options None\n").is_some());
    }

    #[test]
    fn errors_after_the_edit_move() {
        let text = "A 1\n<Directory>\n</Files>\n";
        let (new, r) = edit(text, 2..3, "123");
        assert!(r.local.is_some());
        assert_eq!(r.parse.errors, crate::parse(&new).errors);
        assert_eq!(r.parse.errors[0].range.start(), ts(6));
    }

    fn piece() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("<Directory /x>"),
            Just("</Directory>"),
            Just("<If \"a > b\">"),
            Just("</If >"),
            Just("Require all granted"),
            Just("Allow from 10"),
            Just("\\\n"),
            Just("\r\n"),
            Just("\n"),
            Just("\n"),
            Just("\n"),
            Just("# c \\"),
            Just("\"q\\\"x"),
            Just("'"),
            Just(" "),
            Just("\t"),
            Just("<"),
            Just(">"),
            Just("é😀"),
            Just("\\"),
            Just("x"),
            Just("\r"),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn reparse_equals_a_fresh_parse(
            text in proptest::collection::vec(piece(), 0..60),
            at in 0usize..1000,
            len in 0usize..6,
            insert in proptest::collection::vec(piece(), 0..3),
        ) {
            let text: String = text.concat();
            let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
            let a = bounds[at % bounds.len()];
            let b = bounds[(at % bounds.len() + len).min(bounds.len() - 1)];
            check(&text, a..b, &insert.concat());
        }

        #[test]
        fn single_character_edits_of_directives_stay_local(
            lines in proptest::collection::vec(prop_oneof![
                Just("  Require all granted\n"), Just("Options None\n"), Just("# note\n"), Just("\n"),
                Just("Header set X \"a b\"\n"),
            ], 1..20),
            at in 0usize..1000,
            ch in prop_oneof![Just("a"), Just(" "), Just("\""), Just("é"), Just("")],
        ) {
            let text = format!("<VirtualHost *:80>\n{}</VirtualHost>\n", lines.concat());
            let body = "<VirtualHost *:80>\n".len()..text.len() - "</VirtualHost>\n".len();
            let a = body.start + at % body.len();
            if text.is_char_boundary(a) && text.as_bytes()[a] != b'\n' || ch.is_empty() {
                let del = if ch.is_empty() && text.as_bytes()[a] != b'\n' { a..a + 1 } else { a..a };
                prop_assert!(check(&text, del, ch).is_some());
            }
        }
    }
}
