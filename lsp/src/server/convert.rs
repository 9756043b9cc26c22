//! Conversions between the protocol's positions and the analysis' offsets.
//! All encoding maths lives here; handlers never touch it.

use apache_syntax::{Encoding, LineColumn, LineIndex, TextRange, TextSize};
use tower_lsp::lsp_types as lsp;

pub fn position(index: &LineIndex, enc: Encoding, offset: TextSize) -> lsp::Position {
    let lc = index.line_col(offset, enc);
    lsp::Position { line: lc.line, character: lc.col }
}

pub fn range(index: &LineIndex, enc: Encoding, range: TextRange) -> lsp::Range {
    lsp::Range { start: position(index, enc, range.start()), end: position(index, enc, range.end()) }
}

/// The offset of a client position; positions past the end are clamped.
pub fn offset(index: &LineIndex, enc: Encoding, pos: lsp::Position) -> TextSize {
    index.offset(LineColumn { line: pos.line, col: pos.character }, enc)
}

pub fn text_range(index: &LineIndex, enc: Encoding, r: lsp::Range) -> TextRange {
    let (a, b) = (offset(index, enc, r.start), offset(index, enc, r.end));
    TextRange::new(a.min(b), a.max(b))
}

pub fn severity(s: crate::ide::Severity) -> lsp::DiagnosticSeverity {
    use crate::ide::Severity::*;
    match s {
        Error => lsp::DiagnosticSeverity::ERROR,
        Warning => lsp::DiagnosticSeverity::WARNING,
        Information => lsp::DiagnosticSeverity::INFORMATION,
        Hint => lsp::DiagnosticSeverity::HINT,
    }
}

pub fn url_to_path(url: &lsp::Url) -> Option<std::path::PathBuf> {
    url.to_file_path().ok()
}

pub fn path_to_url(path: &std::path::Path) -> Option<lsp::Url> {
    lsp::Url::from_file_path(path).ok()
}

/// A navigation target as (uri, whole range, selected range); a whole file is its start.
pub fn nav_target(t: &crate::ide::navigation::NavTarget, enc: Encoding) -> Option<(lsp::Url, lsp::Range, lsp::Range)> {
    let uri = path_to_url(&t.path)?;
    let (full, focus) = match &t.file {
        Some(fd) => (range(&fd.line_index, enc, t.full_range), range(&fd.line_index, enc, t.focus_range)),
        None => (lsp::Range::default(), lsp::Range::default()),
    };
    Some((uri, full, focus))
}
