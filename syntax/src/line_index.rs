//! Offsets ⇄ line/column, in UTF-8 bytes or UTF-16 code units.
//!
//! Lines end at `\n` (a `\r` before it belongs to the line break for column
//! purposes only as far as clients count it; httpd ignores it as trailing blank).
//! Every conversion is total: positions past the end of a line or of the text
//! are clamped, never a panic, so that a client's stale position cannot crash a
//! request.

use line_index::{LineCol, WideEncoding, WideLineCol};
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

#[derive(Debug, Clone)]
pub struct LineIndex {
    inner: line_index::LineIndex,
    /// The text length and where each line's content ends (before `\r\n`/`\n`).
    content_ends: Vec<TextSize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut content_ends = Vec::new();
        let b = text.as_bytes();
        for nl in memchr::memchr_iter(b'\n', b) {
            let end = if nl > 0 && b[nl - 1] == b'\r' { nl - 1 } else { nl };
            content_ends.push(TextSize::from(end as u32));
        }
        content_ends.push(TextSize::of(text));
        LineIndex { inner: line_index::LineIndex::new(text), content_ends }
    }

    /// Number of lines (a text ending in a newline has an empty last line).
    pub fn line_count(&self) -> u32 {
        self.content_ends.len() as u32
    }

    pub fn len(&self) -> TextSize {
        self.inner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.len() == TextSize::from(0)
    }

    /// Line and column of `offset`, clamped into the text and onto a character boundary.
    pub fn line_col(&self, offset: TextSize, enc: Encoding) -> LineColumn {
        let mut offset = offset.min(self.inner.len());
        let lc = loop {
            if let Some(lc) = self.inner.try_line_col(offset) {
                break lc;
            }
            // Inside a multi-byte character: step back to its start.
            offset -= TextSize::from(1);
        };
        match enc {
            Encoding::Utf8 => LineColumn { line: lc.line, col: lc.col },
            Encoding::Utf16 => {
                let w =
                    self.inner.to_wide(WideEncoding::Utf16, lc).unwrap_or(WideLineCol { line: lc.line, col: lc.col });
                LineColumn { line: w.line, col: w.col }
            }
        }
    }

    /// The offset of a line/column, clamped: a line past the end maps to the end of
    /// the text, a column past the end of its line to the end of that line.
    pub fn offset(&self, pos: LineColumn, enc: Encoding) -> TextSize {
        if pos.line as usize >= self.content_ends.len() {
            return self.inner.len();
        }
        let start = self.inner.line(pos.line).map(|r| r.start()).unwrap_or(self.inner.len());
        let end = self.content_ends[pos.line as usize];
        let col = match enc {
            Encoding::Utf8 => pos.col,
            Encoding::Utf16 => self
                .inner
                .to_utf8(WideEncoding::Utf16, WideLineCol { line: pos.line, col: pos.col })
                .map(|lc| lc.col)
                .unwrap_or(u32::MAX),
        };
        let mut off = start.checked_add(TextSize::from(col)).unwrap_or(end).min(end);
        // Onto a character boundary.
        while self.inner.try_line_col(off).is_none() && off > start {
            off -= TextSize::from(1);
        }
        off
    }

    /// The range of a line's content, without its line break.
    pub fn line_range(&self, line: u32) -> Option<TextRange> {
        let start = self.inner.line(line)?.start();
        Some(TextRange::new(start, *self.content_ends.get(line as usize)?))
    }

    /// 1-based line and column, the way compilers print them (UTF-8 columns count characters).
    pub fn human(&self, offset: TextSize, text: &str) -> (u32, u32) {
        let lc = self.line_col(offset, Encoding::Utf8);
        let start = self.inner.offset(LineCol { line: lc.line, col: 0 }).unwrap_or_default();
        let col = text
            .get(usize::from(start)..usize::from(start) + lc.col as usize)
            .map(|s| s.chars().count() as u32)
            .unwrap_or(lc.col);
        (lc.line + 1, col + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
