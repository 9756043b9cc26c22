//! Logical lines and httpd's word splitting.
//!
//! httpd reads a configuration file one *logical* line at a time: physical lines
//! ending in a backslash are joined with the next one (`ap_cfg_getline_core`), then
//! the joined text is trimmed and split into words by `ap_getword_conf`. This module
//! reproduces exactly that, while remembering where every byte of the joined text
//! came from, so that the parser can emit a lossless tree with the continuations
//! kept as their own tokens.

use memchr::memchr;

/// One logical line of the source.
#[derive(Debug)]
pub(crate) struct LogicalLine<'a> {
    src: &'a str,
    /// Source offset of the first byte of the line.
    pub(crate) start: usize,
    /// Source offset just past the content (before the final newline, if any).
    pub(crate) content_end: usize,
    /// Source offset just past the final newline (== `content_end` at EOF).
    pub(crate) end: usize,
    /// Source range of a NUL byte and what follows it on its physical line, which
    /// httpd never reads (the content ends at the NUL).
    pub(crate) nul_tail: Option<(usize, usize)>,
    /// Joined text without continuations (borrowed when there are none).
    joined: std::borrow::Cow<'a, str>,
    /// For each segment: (offset in `joined`, offset in source). Empty for a line without
    /// continuations (most lines), whose one segment is `(0, start)`: no allocation then.
    segments: Vec<(usize, usize)>,
    /// For each continuation: (offset in `joined` where it sits, source range).
    pub(crate) continuations: Vec<(usize, usize, usize)>,
}

/// Splits `src` into logical lines; never fails, covers every byte exactly once.
pub(crate) fn logical_lines(src: &str) -> impl Iterator<Item = LogicalLine<'_>> {
    let bytes = src.as_bytes();
    let has_nul = memchr(0, bytes).is_some();
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let mut segments = Vec::new();
        let mut continuations = Vec::new();
        let mut joined: Option<String> = None;
        let mut seg_start = start;
        loop {
            let nl = memchr(b'\n', &bytes[seg_start..]).map(|rel| seg_start + rel);
            let line_end = nl.unwrap_or(bytes.len());
            // httpd measures the line with strlen: a NUL ends it, and the rest of the
            // physical line (a backslash there included) is never seen.
            if let Some(z) = has_nul.then(|| memchr(0, &bytes[seg_start..line_end])).flatten() {
                let z = seg_start + z;
                if let Some(j) = joined.as_mut() {
                    j.push_str(&src[seg_start..z]);
                }
                pos = nl.map_or(bytes.len(), |nl| nl + 1);
                let mut l = finish(src, start, z, pos, joined, segments, continuations);
                l.nul_tail = Some((z, line_end));
                return Some(l);
            }
            match nl {
                None => {
                    // Last physical line without newline: a backslash here stays literal.
                    if let Some(j) = joined.as_mut() {
                        j.push_str(&src[seg_start..]);
                    }
                    pos = bytes.len();
                    return Some(finish(src, start, bytes.len(), bytes.len(), joined, segments, continuations));
                }
                Some(nl) => {
                    let Some(bs) = continuation_at(bytes, seg_start, nl) else {
                        let content_end = if nl > seg_start && bytes[nl - 1] == b'\r' { nl - 1 } else { nl };
                        if let Some(j) = joined.as_mut() {
                            j.push_str(&src[seg_start..content_end]);
                        }
                        pos = nl + 1;
                        return Some(finish(src, start, content_end, nl + 1, joined, segments, continuations));
                    };
                    if segments.is_empty() {
                        segments.push((0, start));
                    }
                    let j = joined.get_or_insert_with(String::new);
                    j.push_str(&src[seg_start..bs]);
                    continuations.push((j.len(), bs, nl + 1));
                    seg_start = nl + 1;
                    segments.push((j.len(), seg_start));
                }
            }
        }
    })
}

/// Where the backslash sits that continues the physical line `[start, nl)` (`nl` its `\n`)
/// onto the next one: right before the `\n` or the `\r\n`.
fn continuation_at(bytes: &[u8], start: usize, nl: usize) -> Option<usize> {
    let content_end = if nl > start && bytes[nl - 1] == b'\r' { nl - 1 } else { nl };
    (content_end > start && bytes[content_end - 1] == b'\\').then(|| content_end - 1)
}

/// Where httpd's line counter stands when it reports the logical line that holds `offset`:
/// the start of that line's last physical line (after the backslash continuations that
/// follow `offset`; a NUL ends the logical line where it stands, as in `logical_lines`).
/// Its errors name that line, whichever physical line the fault is on.
pub fn reported_line_start(src: &str, offset: usize) -> usize {
    let bytes = src.as_bytes();
    let offset = offset.min(bytes.len());
    let mut start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |i| i + 1);
    while let Some(nl) = memchr(b'\n', &bytes[start..]).map(|rel| start + rel) {
        if memchr(0, &bytes[start..nl]).is_some() || continuation_at(bytes, start, nl).is_none() {
            break;
        }
        start = nl + 1;
    }
    start
}

fn finish<'a>(
    src: &'a str,
    start: usize,
    content_end: usize,
    end: usize,
    joined: Option<String>,
    segments: Vec<(usize, usize)>,
    continuations: Vec<(usize, usize, usize)>,
) -> LogicalLine<'a> {
    let joined = match joined {
        Some(s) => std::borrow::Cow::Owned(s),
        None => std::borrow::Cow::Borrowed(&src[start..content_end]),
    };
    LogicalLine { src, start, content_end, end, nul_tail: None, joined, segments, continuations }
}

impl<'a> LogicalLine<'a> {
    /// The line as httpd sees it before trimming: continuations removed.
    pub(crate) fn joined(&self) -> &str {
        &self.joined
    }

    /// Source offset of a position in the joined text. At a segment boundary the
    /// position maps to the start of the later segment.
    pub(crate) fn to_src(&self, j: usize) -> usize {
        if self.segments.is_empty() {
            return self.start + j;
        }
        let k = match self.segments.binary_search_by(|&(sj, _)| sj.cmp(&j)) {
            Ok(k) => k,
            Err(k) => k - 1,
        };
        // Several segments can start at the same joined offset (an empty physical
        // line between two continuations): take the last one.
        let mut k = k;
        while k + 1 < self.segments.len() && self.segments[k + 1].0 == j {
            k += 1;
        }
        let (sj, ss) = self.segments[k];
        ss + (j - sj)
    }

    /// Source offset where the last physical line of this logical line starts:
    /// httpd names that line in its errors (its line counter has moved on).
    pub(crate) fn last_physical_start(&self) -> usize {
        self.segments.last().map(|s| s.1).unwrap_or(self.start)
    }

    /// Source text of the newline ending this line ("" at EOF).
    pub(crate) fn newline(&self) -> &'a str {
        let from = self.nul_tail.map_or(self.content_end, |t| t.1);
        &self.src[from..self.end]
    }
}

/// httpd's `apr_isspace` (C locale), excluding the newline the lexer already removed.
#[inline]
pub fn is_space(b: u8) -> bool {
    // One load instead of a chain of compares: every byte of every word is tested.
    SPACE[usize::from(b)]
}

/// [`is_space`] by byte.
static SPACE: [bool; 256] = {
    let mut t = [false; 256];
    let spaces = [b' ', b'\t', b'\n', b'\r', 0x0b, 0x0c];
    let mut i = 0;
    while i < spaces.len() {
        t[spaces[i] as usize] = true;
        i += 1;
    }
    t
};

/// Ends at the end of the word starting at `pos` (which must not be a blank), the way
/// `ap_getword_conf` delimits it. Returns the end offset and whether it was quoted.
pub(crate) fn word_end(text: &[u8], pos: usize) -> (usize, bool) {
    let q = text[pos];
    if q == b'"' || q == b'\'' {
        // From one quote or backslash to the next: the bytes between are the word's.
        let mut i = pos + 1;
        loop {
            let Some(k) = memchr::memchr2(q, b'\\', &text[i..]) else {
                i = text.len();
                break;
            };
            i += k;
            if text[i] == q {
                break;
            }
            i += if i + 1 < text.len() && (text[i + 1] == q || text[i + 1] == b'\\') { 2 } else { 1 };
        }
        if i < text.len() {
            i += 1; // the closing quote
        }
        (i, true)
    } else {
        let mut i = pos;
        while i < text.len() && !is_space(text[i]) {
            i += 1;
        }
        (i, false)
    }
}

pub(crate) fn skip_space(text: &[u8], mut pos: usize) -> usize {
    while pos < text.len() && is_space(text[pos]) {
        pos += 1;
    }
    pos
}

/// The value of one word as `ap_getword_conf` returns it: quotes removed and the
/// escapes httpd honours applied (`\"`/`\'` for the same quote and `\\` in quoted
/// words; `\\` in unquoted words). Every other backslash stays.
pub fn unquote_word(word: &str) -> String {
    unquoted(word).into_owned()
}

/// [`unquote_word`], borrowing from `word` when nothing but the quotes is removed.
pub fn unquoted(word: &str) -> std::borrow::Cow<'_, str> {
    let b = word.as_bytes();
    // Whether the word holds a backslash: without one, no escape can hide its closing quote,
    // and nothing but the quotes is removed.
    let escapes = memchr(b'\\', b).is_some();
    let (body, quote) = match b.first() {
        Some(&q @ (b'"' | b'\'')) => {
            let closed = if escapes { closes_at_end(&b[1..], q) } else { b.len() >= 2 && b[b.len() - 1] == q };
            (&word[1..if closed { b.len() - 1 } else { b.len() }], Some(q))
        }
        _ => (word, None),
    };
    if !escapes {
        return std::borrow::Cow::Borrowed(body);
    }
    let bb = body.as_bytes();
    let mut out = Vec::with_capacity(bb.len());
    let mut i = 0;
    while i < bb.len() {
        if bb[i] == b'\\' && i + 1 < bb.len() && (bb[i + 1] == b'\\' || Some(bb[i + 1]) == quote) {
            out.push(bb[i + 1]);
            i += 2;
        } else {
            out.push(bb[i]);
            i += 1;
        }
    }
    std::borrow::Cow::Owned(
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// Whether a quoted word (`rest`: what follows its opening quote `q`, as [`word_end`] delimits
/// it) ends with its closing quote: the first quote the tokenizer's walk meets that is not
/// escaped (`\<q>` and `\\` are read in pairs) is the last byte. A word that runs to the end of
/// the line without one, `"a\"` among them, keeps its last quote as an escaped one.
fn closes_at_end(rest: &[u8], q: u8) -> bool {
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == q {
            return i == rest.len() - 1;
        }
        i += if rest[i] == b'\\' && i + 1 < rest.len() && (rest[i + 1] == q || rest[i + 1] == b'\\') { 2 } else { 1 };
    }
    false
}

/// Splits text into words exactly as httpd's `ap_getword_conf` does, returning each
/// word's value. Used for RAW_ARGS directives and after `${VAR}` expansion.
pub fn split_words(text: &str) -> Vec<String> {
    words(text).map(std::borrow::Cow::into_owned).collect()
}

/// The first word of `text` as `ap_getword_conf` returns it (quotes removed, escapes applied),
/// and what follows that word (blanks before the next word included); None when `text` holds
/// only blanks.
pub fn first_word(text: &str) -> Option<(std::borrow::Cow<'_, str>, &str)> {
    let b = text.as_bytes();
    let pos = skip_space(b, 0);
    if pos >= b.len() {
        return None;
    }
    let (end, _) = word_end(b, pos);
    Some((unquoted(&text[pos..end]), &text[end..]))
}

/// [`split_words`] as an iterator, borrowing each word from `text` when it can.
pub fn words(text: &str) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let (w, after) = first_word(rest)?;
        rest = after;
        Some(w)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_follow_getword_conf() {
        assert_eq!(split_words(r#"  a "b c" 'd e'  f"g "#), vec!["a", "b c", "d e", "f\"g"]);
        assert_eq!(split_words(r#""ab"cd"#), vec!["ab", "cd"]);
        assert_eq!(split_words(r#""a\"b\\c\n""#), vec![r#"a"b\c\n"#]);
        assert_eq!(split_words(r#"'it\'s' "x\'y""#), vec!["it's", r"x\'y"]);
        assert_eq!(split_words(r"a\\b c\d"), vec![r"a\b", r"c\d"]);
        assert_eq!(split_words(r#""unterminated word"#), vec!["unterminated word"]);
    }

    /// A word that runs to the end of the line keeps an escaped last quote, unescaped: httpd
    /// 2.4 says `Illegal option Foo"` for `Options "Foo\"` (apache2 -t, 2.4.71).
    #[test]
    fn an_unclosed_word_keeps_its_escaped_last_quote() {
        assert_eq!(split_words(r#""Foo\""#), vec![r#"Foo""#]);
        assert_eq!(split_words(r"'a\'"), vec!["a'"]);
        assert_eq!(split_words(r#""a\\" b"#), vec![r"a\", "b"]);
        assert_eq!(split_words(r#""a\\\" b"#), vec![r#"a\" b"#]);
    }

    /// The scans as first written, byte by byte: the reference for the faster ones.
    fn word_end_bytewise(text: &[u8], pos: usize) -> (usize, bool) {
        let q = text[pos];
        if q == b'"' || q == b'\'' {
            let mut i = pos + 1;
            while i < text.len() && text[i] != q {
                if text[i] == b'\\' && i + 1 < text.len() && (text[i + 1] == q || text[i + 1] == b'\\') {
                    i += 2;
                } else {
                    i += 1;
                }
            }
            (if i < text.len() { i + 1 } else { i }, true)
        } else {
            let mut i = pos;
            while i < text.len() && !is_space(text[i]) {
                i += 1;
            }
            (i, false)
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Words end where the byte-by-byte scan says, in any bytes (control characters and
        /// bytes above 0x7f included).
        #[test]
        fn word_ends_in_any_bytes_as_byte_by_byte(text in proptest::collection::vec(proptest::prop_oneof![
            4 => proptest::strategy::Just(b'a'),
            1 => proptest::strategy::Just(b' '),
            1 => proptest::strategy::Just(b'"'),
            1 => proptest::strategy::Just(b'\\'),
            1 => proptest::strategy::Just(0x01u8),
            1 => proptest::strategy::Just(0x21u8),
            1 => proptest::strategy::Just(0xa0u8),
            1 => proptest::prelude::any::<u8>(),
        ], 1..48)) {
            for pos in 0..text.len() {
                proptest::prop_assert_eq!(word_end(&text, pos), word_end_bytewise(&text, pos));
            }
        }

        /// Words end where the byte-by-byte scan says, escapes and unclosed quotes included.
        #[test]
        fn words_scan_as_byte_by_byte(text in "[a \"'\\\\x\t]{1,16}") {
            let b = text.as_bytes();
            for pos in 0..b.len() {
                proptest::prop_assert_eq!(word_end(b, pos), word_end_bytewise(b, pos));
            }
            // Without a backslash, unquoting removes a leading quote and the same one at the end.
            for end in 0..=text.len() {
                let w = &text[..end];
                if !w.contains('\\') {
                    let q = w.chars().next().filter(|c| *c == '"' || *c == '\'');
                    let inner = q.map_or(w, |q| w[1..].strip_suffix(q).unwrap_or(&w[1..]));
                    proptest::prop_assert_eq!(unquoted(w), inner);
                }
            }
        }
    }

    #[test]
    fn continuation_joins_lines_and_keeps_next_indent() {
        let src = "Error [foo \\\n    bar]\nNext\r\nlast\\";
        let lines: Vec<_> = logical_lines(src).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].joined(), "Error [foo     bar]");
        assert_eq!(lines[0].continuations.len(), 1);
        assert_eq!(lines[1].joined(), "Next");
        assert_eq!(lines[1].newline(), "\r\n");
        assert_eq!(lines[2].joined(), "last\\");
    }

    /// httpd's line for any offset of a logical line is that of its last physical line.
    #[test]
    fn reported_line_is_the_last_physical_line() {
        let src = "A \\\n b \\\r\n c\nD\\ \nE\0\\\nF\\\n";
        let lines: Vec<_> = logical_lines(src).collect();
        for l in &lines {
            for o in l.start..l.end {
                assert_eq!(reported_line_start(src, o), l.last_physical_start(), "offset {o} of {:?}", l.joined());
            }
        }
        assert_eq!(lines.len(), 4);
        // A continuation at the end of the text continues onto the empty last line.
        assert_eq!(reported_line_start(src, src.len()), src.len());
        assert_eq!(reported_line_start(src, src.len() + 5), src.len());
    }

    #[test]
    fn double_backslash_still_continues() {
        let lines: Vec<_> = logical_lines("a\\\\\nb\n").collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].joined(), "a\\b");
    }
}
