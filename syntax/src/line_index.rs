//! Offsets ⇄ line/column, in UTF-8 bytes or UTF-16 code units.
//!
//! Two ways of counting lines meet here. The protocol's lines end at `\n`, `\r\n` or a
//! lone `\r` (LSP 3.17, "Text Documents"): [`LineIndex::line_col`] and [`LineIndex::offset`]
//! count that way, so that a client keeping a lone `\r` agrees on every position. httpd's
//! lines end at `\n` only (ap_cfg_getline reads up to it; a lone `\r` is a blank inside the
//! line, a `\r` before `\n` a trailing blank): [`LineIndex::line`] and [`LineIndex::human`],
//! which messages and the command line print, count httpd's way, as its own errors do.
//! Every conversion is total: positions past the end of a line or of the text
//! are clamped, never a panic, so that a client's stale position cannot crash a
//! request.

use rowan::{TextRange, TextSize};

/// How columns are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units (the LSP default).
    Utf16,
}

/// A 0-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineColumn {
    pub line: u32,
    pub col: u32,
}

/// Line starts and the multi-byte characters of a text, kept up to date edit by
/// edit ([`LineIndex::apply_edit`] costs the edited lines plus a shift of the
/// offsets after them, not a rescan of the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    len: TextSize,
    /// Where each line starts; the first line starts at 0.
    starts: Vec<TextSize>,
    /// The lines that end in `\r\n`, in order (few or none in most files: a line's content
    /// end is found from the next line's start, not kept per line).
    crlf: Vec<u32>,
    /// The lines that end in a lone `\r`, in order: line breaks for the protocol, not for
    /// httpd (almost always none).
    lone_cr: Vec<u32>,
    /// Every character of more than one byte: its offset and UTF-8 length, in order.
    wide: Vec<(TextSize, u8)>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let Scan { crlf, lone_cr, starts, wide } = scan(text, 0, text.len());
        let mut all = Vec::with_capacity(starts.len() + 1);
        all.push(0.into());
        all.extend(starts);
        LineIndex { len: TextSize::of(text), starts: all, crlf, lone_cr, wide }
    }

    /// Brings the index from the text before an edit to `new_text`, in which the
    /// bytes of `delete` (offsets of the old text) were replaced by `insert_len` bytes.
    pub fn apply_edit(&mut self, new_text: &str, delete: TextRange, insert_len: TextSize) {
        let new_len = TextSize::of(new_text);
        if delete.end() > self.len
            || u32::from(new_len) as i64
                != i64::from(u32::from(self.len)) - i64::from(u32::from(delete.len()))
                    + i64::from(u32::from(insert_len))
        {
            *self = LineIndex::new(new_text);
            return;
        }
        let shift = |o: TextSize| {
            TextSize::from(
                (i64::from(u32::from(o)) + i64::from(u32::from(insert_len)) - i64::from(u32::from(delete.len())))
                    as u32,
            )
        };
        let mut first = self.line_of(delete.start());
        // A `\n` inserted right after a lone `\r` joins it into one `\r\n` break: the line
        // that `\r` ends is rescanned too.
        if first > 0 && new_text.as_bytes().get(usize::from(self.starts[first]) - 1) == Some(&b'\r') {
            first -= 1;
        }
        let last = self.line_of(delete.end());
        let region_start = self.starts[first];
        // The old region ends after the line holding the end of the deletion.
        let old_end = self.starts.get(last + 1).copied().unwrap_or(self.len);
        let new_end = if last + 1 < self.starts.len() { shift(old_end) } else { new_len };
        let Scan { crlf, lone_cr, starts, wide } = scan(new_text, usize::from(region_start), usize::from(new_end));
        // Lines first..=last are replaced by the lines the region holds now: the lines after
        // them move by the change in the number of line breaks.
        let breaks_before = (last - first + usize::from(last + 1 < self.starts.len())) as i64;
        let moved = starts.len() as i64 - breaks_before;
        for (kept, found) in [(&mut self.crlf, crlf), (&mut self.lone_cr, lone_cr)] {
            let a = kept.partition_point(|&l| (l as usize) < first);
            let b = kept.partition_point(|&l| (l as usize) <= last);
            let tail: Vec<u32> = kept[b..].iter().map(|&l| (i64::from(l) + moved) as u32).collect();
            kept.truncate(a);
            kept.extend(found.iter().map(|&j| first as u32 + j));
            kept.extend(tail);
        }
        let tail_starts: Vec<TextSize> =
            self.starts[(last + 2).min(self.starts.len())..].iter().map(|&o| shift(o)).collect();
        self.starts.truncate(first + 1);
        self.starts.extend(starts);
        self.starts.extend(tail_starts);
        let a = self.wide.partition_point(|&(o, _)| o < region_start);
        let b = self.wide.partition_point(|&(o, _)| o < old_end);
        let tail: Vec<(TextSize, u8)> = self.wide[b..].iter().map(|&(o, l)| (shift(o), l)).collect();
        self.wide.truncate(a);
        self.wide.extend(wide);
        self.wide.extend(tail);
        self.len = new_len;
    }

    /// Number of the protocol's lines (a text ending in a line break has an empty last line).
    pub fn line_count(&self) -> u32 {
        self.starts.len() as u32
    }

    pub fn len(&self) -> TextSize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == TextSize::from(0)
    }

    /// Where a line's content ends: before its `\n`, `\r\n` or lone `\r`, or at the end of the text.
    fn content_end(&self, line: usize) -> TextSize {
        match self.starts.get(line + 1) {
            Some(&next) => next - TextSize::from(1 + u32::from(self.crlf.binary_search(&(line as u32)).is_ok())),
            None => self.len,
        }
    }

    /// The line holding `offset` (clamped into the text).
    fn line_of(&self, offset: TextSize) -> usize {
        self.starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// The start of the character holding `offset`.
    fn char_start(&self, offset: TextSize) -> TextSize {
        let i = self.wide.partition_point(|&(o, _)| o < offset);
        match i.checked_sub(1).map(|i| self.wide[i]) {
            Some((o, l)) if offset < o + TextSize::from(u32::from(l)) => o,
            _ => offset,
        }
    }

    /// The multi-byte characters in `[from, to)`.
    fn wide_in(&self, from: TextSize, to: TextSize) -> &[(TextSize, u8)] {
        let a = self.wide.partition_point(|&(o, _)| o < from);
        let b = self.wide.partition_point(|&(o, _)| o < to);
        &self.wide[a..b]
    }

    /// The 0-based line of `offset` (clamped to the text) as httpd counts lines: `\n` ends
    /// them, a lone `\r` does not ([`LineIndex::line_col`]'s line when there is none).
    pub fn line(&self, offset: TextSize) -> u32 {
        let line = self.line_of(offset.min(self.len));
        (line - self.lone_cr.partition_point(|&l| (l as usize) < line)) as u32
    }

    /// Where httpd's line holding the protocol's line `line` starts: back over the lines
    /// that only a lone `\r` ends.
    fn httpd_line_start(&self, mut line: usize) -> TextSize {
        while line > 0 && self.lone_cr.binary_search(&(line as u32 - 1)).is_ok() {
            line -= 1;
        }
        self.starts[line]
    }

    /// The protocol's line and column of `offset`, clamped into the text and onto a
    /// character boundary.
    pub fn line_col(&self, offset: TextSize, enc: Encoding) -> LineColumn {
        let offset = self.char_start(offset.min(self.len));
        let line = self.line_of(offset);
        let start = self.starts[line];
        let mut col = u32::from(offset - start);
        if enc == Encoding::Utf16 {
            for &(_, l) in self.wide_in(start, offset) {
                col -= u32::from(l) - utf16_len(l);
            }
        }
        LineColumn { line: line as u32, col }
    }

    /// The offset of a line/column, clamped: a line past the end maps to the end of
    /// the text, a column past the end of its line to the end of that line.
    pub fn offset(&self, pos: LineColumn, enc: Encoding) -> TextSize {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return self.len;
        }
        let (start, end) = (self.starts[line], self.content_end(line));
        let off = match enc {
            Encoding::Utf8 => u64::from(u32::from(start)) + u64::from(pos.col),
            Encoding::Utf16 => {
                // Walk the line's multi-byte characters, counting UTF-16 units.
                let (mut at8, mut at16) = (u64::from(u32::from(start)), 0u64);
                let want = u64::from(pos.col);
                let mut found = None;
                for &(o, l) in self.wide_in(start, end) {
                    let ascii = u64::from(u32::from(o)) - at8;
                    if want <= at16 + ascii {
                        found = Some(at8 + (want - at16));
                        break;
                    }
                    at16 += ascii;
                    at8 = u64::from(u32::from(o));
                    if want < at16 + u64::from(utf16_len(l)) {
                        found = Some(at8); // inside a surrogate pair: the character's start
                        break;
                    }
                    at16 += u64::from(utf16_len(l));
                    at8 += u64::from(l);
                }
                found.unwrap_or(at8 + (want - at16))
            }
        };
        let off = TextSize::from(off.min(u64::from(u32::from(end))) as u32);
        self.char_start(off)
    }

    /// The range of a (protocol) line's content, without its line break.
    pub fn line_range(&self, line: u32) -> Option<TextRange> {
        let l = line as usize;
        Some(TextRange::new(*self.starts.get(l)?, self.content_end(l)))
    }

    /// 1-based line and column, the way compilers print them (UTF-8 columns count characters),
    /// on httpd's lines ([`LineIndex::line`]).
    pub fn human(&self, offset: TextSize, text: &str) -> (u32, u32) {
        let offset = self.char_start(offset.min(self.len));
        let start = self.httpd_line_start(self.line_of(offset));
        let col = text
            .get(usize::from(start)..usize::from(offset))
            .map(|s| s.chars().count() as u32)
            .unwrap_or(u32::from(offset - start));
        (self.line(offset) + 1, col + 1)
    }
}

fn utf16_len(utf8_len: u8) -> u32 {
    if utf8_len == 4 {
        2
    } else {
        1
    }
}

/// What [`scan`] finds.
struct Scan {
    /// Which line breaks are `\r\n`, by their index among the breaks found.
    crlf: Vec<u32>,
    /// Which are a lone `\r`.
    lone_cr: Vec<u32>,
    /// Where the lines after the breaks start.
    starts: Vec<TextSize>,
    /// The multi-byte characters.
    wide: Vec<(TextSize, u8)>,
}

/// The line breaks of `text[from..to]` (`from` starts a line; a `\r` at `to - 1` is lone only
/// if `text` has no `\n` at `to`), and its multi-byte characters.
fn scan(text: &str, from: usize, to: usize) -> Scan {
    let all = text.as_bytes();
    let b = &all[from..to];
    let at = |i: usize| TextSize::from((from + i) as u32);
    // Sized from a count first: an index lives as long as its file, and vectors grown by
    // doubling would keep up to half their room spare (LineIndex::new adds the first start).
    let lines = memchr::memchr_iter(b'\n', b).count();
    let (mut crlf, mut lone_cr) = (Vec::new(), Vec::new());
    let mut starts = Vec::with_capacity(lines);
    let mut breaks = 0u32;
    for i in memchr::memchr2_iter(b'\n', b'\r', b) {
        if b[i] == b'\r' {
            if all.get(from + i + 1) == Some(&b'\n') {
                continue; // the `\n` after it ends the line
            }
            lone_cr.push(breaks);
        } else if i > 0 && b[i - 1] == b'\r' {
            crlf.push(breaks);
        }
        starts.push(at(i + 1));
        breaks += 1;
    }
    let mut wide = Vec::new();
    let text = &text[from..to];
    if !text.is_ascii() {
        for (i, c) in text.char_indices() {
            if c.len_utf8() > 1 {
                wide.push((at(i), c.len_utf8() as u8));
            }
        }
    }
    Scan { crlf, lone_cr, starts, wide }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_is_line_col_s_line_at_every_offset() {
        let text = "Define é 😀x\r\nb\n\nü\n";
        let idx = LineIndex::new(text);
        for o in 0..=text.len() as u32 + 3 {
            let o = TextSize::from(o);
            assert_eq!(idx.line(o), idx.line_col(o, Encoding::Utf8).line, "{o:?}");
        }
    }

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        let text = "Define é 😀x\r\nb\n";
        let idx = LineIndex::new(text);
        let x = TextSize::from(text.find('x').unwrap() as u32);
        assert_eq!(idx.line_col(x, Encoding::Utf8), LineColumn { line: 0, col: 14 });
        assert_eq!(idx.line_col(x, Encoding::Utf16), LineColumn { line: 0, col: 11 });
        assert_eq!(idx.offset(LineColumn { line: 0, col: 11 }, Encoding::Utf16), x);
        assert_eq!(idx.human(x, text), (1, 11));
    }

    #[test]
    fn out_of_range_positions_clamp() {
        let text = "ab\r\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.offset(LineColumn { line: 0, col: 99 }, Encoding::Utf16), TextSize::from(2));
        assert_eq!(idx.offset(LineColumn { line: 9, col: 0 }, Encoding::Utf16), TextSize::from(6));
        assert_eq!(idx.line_col(TextSize::from(99), Encoding::Utf8), LineColumn { line: 1, col: 2 });
        // The middle of a multi-byte character clamps to its start.
        let idx = LineIndex::new("é");
        assert_eq!(idx.line_col(TextSize::from(1), Encoding::Utf16), LineColumn { line: 0, col: 0 });
    }

    #[test]
    fn a_lone_cr_ends_a_protocol_line_but_not_httpd_s() {
        let text = "<Directory /srv>\n  Require ip 10.0.0.1\r10.0.0.2\n  Require ip 192.168.0.1\n";
        let idx = LineIndex::new(text);
        let second = TextSize::from(text.find("10.0.0.2").unwrap() as u32);
        let third = TextSize::from(text.find("  Require ip 192").unwrap() as u32);
        // The protocol: the lone `\r` starts line 2, the last Require is on line 3.
        assert_eq!(idx.line_col(second, Encoding::Utf16), LineColumn { line: 2, col: 0 });
        assert_eq!(idx.line_col(third, Encoding::Utf16), LineColumn { line: 3, col: 0 });
        assert_eq!(idx.offset(LineColumn { line: 3, col: 2 }, Encoding::Utf16), third + TextSize::from(2));
        assert_eq!(idx.line_range(1).map(|r| &text[r]), Some("  Require ip 10.0.0.1"));
        // httpd: one line `Require ip 10.0.0.1 10.0.0.2` (line 2), the last Require on line 3.
        assert_eq!((idx.line(second), idx.line(third)), (1, 2));
        assert_eq!(idx.human(second, text), (2, 23));
        assert_eq!(idx.human(third, text), (3, 1));
    }

    #[test]
    fn a_newline_typed_after_a_lone_cr_joins_it() {
        let mut text = String::from("a\rb\rc");
        let mut idx = LineIndex::new(&text);
        assert_eq!(idx.line_count(), 3);
        for (at, insert) in [(2, "\n"), (5, "\n"), (0, "\r"), (1, "\n")] {
            text.insert_str(at, insert);
            let r = TextRange::empty(TextSize::from(at as u32));
            idx.apply_edit(&text, r, TextSize::of(insert));
            assert_eq!(idx, LineIndex::new(&text), "{text:?}");
        }
        assert_eq!(idx.line_count(), 4);
    }

    #[test]
    fn edits_update_the_index_in_place() {
        let mut text = String::from("a\r\nbé\n😀\n");
        let mut idx = LineIndex::new(&text);
        for (range, insert) in [(1..1, "x\n"), (0..4, ""), (2..2, "é"), (11..11, "\r\nq")] {
            let r = TextRange::new(TextSize::from(range.start as u32), TextSize::from(range.end as u32));
            let r = TextRange::new(r.start().min(TextSize::of(&text)), r.end().min(TextSize::of(&text)));
            text.replace_range(usize::from(r.start())..usize::from(r.end()), insert);
            idx.apply_edit(&text, r, TextSize::of(insert));
            assert_eq!(idx, LineIndex::new(&text), "{text:?}");
        }
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn piece() -> impl Strategy<Value = &'static str> {
            prop_oneof![Just("a"), Just("\n"), Just("\r\n"), Just("\r"), Just("é"), Just("😀"), Just("一"), Just(" ")]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(1000))]
            #[test]
            fn apply_edit_equals_a_fresh_index(
                text in proptest::collection::vec(piece(), 0..40),
                at in 0usize..100,
                len in 0usize..8,
                insert in proptest::collection::vec(piece(), 0..4),
                probe in 0u32..60,
            ) {
                let mut text: String = text.concat();
                let mut idx = LineIndex::new(&text);
                let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
                let a = bounds[at % bounds.len()];
                let b = bounds[(at % bounds.len() + len).min(bounds.len() - 1)];
                let insert = insert.concat();
                text.replace_range(a..b, &insert);
                idx.apply_edit(&text, TextRange::new((a as u32).into(), (b as u32).into()), TextSize::of(&insert));
                let fresh = LineIndex::new(&text);
                prop_assert_eq!(&idx, &fresh);
                // Conversions agree with counting by hand.
                let off = TextSize::from(probe.min(text.len() as u32));
                let lc = fresh.line_col(off, Encoding::Utf16);
                let start = fresh.char_start(off);
                let before = &text[..usize::from(start)];
                // The protocol's breaks: `\n`, and a `\r` the text does not follow with `\n`.
                let breaks: Vec<usize> = text
                    .bytes()
                    .enumerate()
                    .filter(|&(i, c)| c == b'\n' || (c == b'\r' && text.as_bytes().get(i + 1) != Some(&b'\n')))
                    .map(|(i, _)| i)
                    .filter(|&i| i < before.len())
                    .collect();
                let line = breaks.len() as u32;
                let line_start = breaks.last().map(|i| i + 1).unwrap_or(0);
                let col = before[line_start..].encode_utf16().count() as u32;
                prop_assert_eq!(lc, LineColumn { line, col });
                // httpd's lines: `\n` only.
                let httpd_line = before.matches('\n').count() as u32;
                prop_assert_eq!(fresh.line(off), httpd_line);
                let httpd_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
                let human_col = before[httpd_start..].chars().count() as u32;
                prop_assert_eq!(fresh.human(off, &text), (httpd_line + 1, human_col + 1));
                // (Between `\r` and `\n` is past the line's content: clamped to its end.)
                let content_end = fresh.line_range(line).unwrap().end();
                prop_assert_eq!(fresh.offset(lc, Encoding::Utf16), start.min(content_end));
            }
        }
    }
}
