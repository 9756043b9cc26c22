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

pub fn format_options(o: &lsp::FormattingOptions) -> crate::ide::formatting::FormatOptions {
    crate::ide::formatting::FormatOptions { tab_size: o.tab_size, insert_spaces: o.insert_spaces }
}

pub fn text_edits(index: &LineIndex, enc: Encoding, edits: Vec<crate::ide::formatting::Edit>) -> Vec<lsp::TextEdit> {
    edits.into_iter().map(|e| lsp::TextEdit { range: range(index, enc, e.range), new_text: e.new_text }).collect()
}

/// A chain of ranges, innermost first, as nested selection ranges; an empty
/// chain selects the position itself.
pub fn selection_range(
    index: &LineIndex,
    enc: Encoding,
    at: lsp::Position,
    ranges: &[TextRange],
) -> lsp::SelectionRange {
    let mut current: Option<lsp::SelectionRange> = None;
    for r in ranges.iter().rev() {
        current = Some(lsp::SelectionRange { range: range(index, enc, *r), parent: current.map(Box::new) });
    }
    current.unwrap_or(lsp::SelectionRange { range: lsp::Range { start: at, end: at }, parent: None })
}

pub fn semantic_token_legend() -> lsp::SemanticTokensLegend {
    use crate::ide::semantic_tokens::HighlightKind;
    lsp::SemanticTokensLegend {
        token_types: HighlightKind::ALL.iter().map(|k| lsp::SemanticTokenType::new(k.name())).collect(),
        token_modifiers: vec![lsp::SemanticTokenModifier::DEPRECATED],
    }
}

/// Highlights (one line each, in text order) in the protocol's relative encoding.
pub fn semantic_tokens(
    index: &LineIndex,
    enc: Encoding,
    highlights: &[crate::ide::semantic_tokens::Highlight],
) -> Vec<lsp::SemanticToken> {
    use crate::ide::semantic_tokens::HighlightKind;
    let mut out = Vec::with_capacity(highlights.len());
    let (mut line, mut col) = (0, 0);
    for h in highlights {
        let kind = HighlightKind::ALL.iter().position(|k| *k == h.kind).unwrap_or(0) as u32;
        let (first, last) = (index.line_col(h.range.start(), enc).line, index.line_col(h.range.end(), enc).line);
        // A highlight httpd reads on one line may span the protocol's lines (a comment holding
        // a lone `\r`): a token per line, as a token cannot cross one.
        for l in first..=last {
            let Some(content) = index.line_range(l) else { break };
            let piece = TextRange::new(
                if l == first { h.range.start() } else { content.start() },
                if l == last { h.range.end() } else { content.end().max(content.start()) },
            );
            let (start, end) = (index.line_col(piece.start(), enc), index.line_col(piece.end(), enc));
            if end.line != start.line || end.col <= start.col {
                continue;
            }
            out.push(lsp::SemanticToken {
                delta_line: start.line - line,
                delta_start: if start.line == line { start.col - col } else { start.col },
                length: end.col - start.col,
                token_type: kind,
                token_modifiers_bitset: u32::from(h.deprecated),
            });
            (line, col) = (start.line, start.col);
        }
    }
    out
}

/// A completion item; its documentation is left for completionItem/resolve
/// when `defer_documentation` and it documents a catalogue entry.
pub fn completion_item(
    index: &LineIndex,
    enc: Encoding,
    item: crate::ide::completion::CompletionItem,
    defer_documentation: bool,
) -> lsp::CompletionItem {
    use crate::ide::completion::CompletionKind;
    let kind = match item.kind {
        CompletionKind::Directive => lsp::CompletionItemKind::KEYWORD,
        CompletionKind::Section => lsp::CompletionItemKind::SNIPPET,
        CompletionKind::Value => lsp::CompletionItemKind::VALUE,
        CompletionKind::Module => lsp::CompletionItemKind::MODULE,
        CompletionKind::Variable => lsp::CompletionItemKind::VARIABLE,
    };
    let deferred = defer_documentation && item.directive.is_some();
    #[allow(deprecated)]
    lsp::CompletionItem {
        kind: Some(if item.kind == CompletionKind::Section && !item.snippet {
            lsp::CompletionItemKind::STRUCT
        } else {
            kind
        }),
        detail: item.detail,
        documentation: item.documentation.filter(|_| !deferred).map(|md| {
            lsp::Documentation::MarkupContent(lsp::MarkupContent { kind: lsp::MarkupKind::Markdown, value: md })
        }),
        data: item.directive.filter(|_| deferred).map(|d| serde_json::json!({ "directive": d })),
        text_edit: Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit {
            range: range(index, enc, item.range),
            new_text: item.insert,
        })),
        insert_text_format: Some(if item.snippet {
            lsp::InsertTextFormat::SNIPPET
        } else {
            lsp::InsertTextFormat::PLAIN_TEXT
        }),
        deprecated: item.deprecated.then_some(true),
        tags: item.deprecated.then(|| vec![lsp::CompletionItemTag::DEPRECATED]),
        sort_text: Some(item.sort_text),
        filter_text: item.filter_text,
        label: item.label,
        ..Default::default()
    }
}

/// The documentation completionItem/resolve adds to an item `completion_item` deferred.
pub fn resolve_completion(mut item: lsp::CompletionItem) -> lsp::CompletionItem {
    let name = item.data.as_ref().and_then(|d| d.get("directive")).and_then(|d| d.as_str());
    if let Some(md) = name.and_then(crate::ide::completion::directive_documentation) {
        item.documentation =
            Some(lsp::Documentation::MarkupContent(lsp::MarkupContent { kind: lsp::MarkupKind::Markdown, value: md }));
    }
    item
}

/// The edit that turns the `old` tokens into the `new` ones: what lies between
/// their common beginning and their common end (in the protocol's units, five
/// integers a token).
pub fn semantic_token_edits(old: &[lsp::SemanticToken], new: &[lsp::SemanticToken]) -> Vec<lsp::SemanticTokensEdit> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..].iter().rev().zip(new[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (old_mid, new_mid) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    if old_mid.is_empty() && new_mid.is_empty() {
        return vec![];
    }
    vec![lsp::SemanticTokensEdit {
        start: 5 * prefix as u32,
        delete_count: 5 * old_mid.len() as u32,
        data: Some(new_mid.to_vec()),
    }]
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
