//! The parser, on any bytes: never a panic, and the tree's text is the input,
//! byte for byte. Also every typed accessor, the line index (every offset maps to
//! a position and back) and the outline features built on the tree alone.
#![no_main]

use apache_lsp::ide::{config, document_symbols, folding_ranges};
use apache_syntax::ast;
use apache_syntax::{Encoding, LineColumn, LineIndex, TextSize};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Text as the loader makes it: invalid UTF-8 replaced.
    let (text, _) = config::decode(data.to_vec());
    let parse = apache_syntax::parse(&text);
    let root = parse.syntax_node();
    assert_eq!(root.text().to_string(), &*text, "lossless");
    let len = TextSize::of(&*text);
    for e in &parse.errors {
        assert!(e.range.end() <= len, "error range {:?} past the end {len:?}", e.range);
        assert!(
            text.is_char_boundary(usize::from(e.range.start())) && text.is_char_boundary(usize::from(e.range.end()))
        );
    }
    // Every accessor of every item, walking sections with an explicit stack.
    let mut stack: Vec<ast::Item> = parse.tree().items().collect();
    while let Some(item) = stack.pop() {
        match item {
            ast::Item::Directive(d) => {
                let _ = d.name().map(|n| (n.text(), n.range()));
                let _ = (d.logical_text(), d.raw_args());
                for a in d.args() {
                    let _ = (a.raw(), a.value(), a.is_quoted(), a.range());
                }
            }
            ast::Item::Section(s) => {
                let _ = s.name_text();
                if let Some(h) = s.header() {
                    let _ = (h.raw_args(), h.r_angle(), h.name().map(|n| n.text()));
                }
                let _ = s.closer().and_then(|c| c.name()).map(|n| n.text());
                for a in s.args() {
                    let _ = a.value();
                }
                stack.extend(s.items());
            }
            ast::Item::Comment(c) => {
                let _ = c.text();
            }
            ast::Item::Error(_) => {}
        }
    }
    // Offsets ⇄ positions, in both encodings, at every char boundary (bounded).
    let index = LineIndex::new(&text);
    for (i, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))).take(4096) {
        let off = TextSize::from(i as u32);
        for enc in [Encoding::Utf8, Encoding::Utf16] {
            let lc = index.line_col(off, enc);
            let back = index.offset(lc, enc);
            // Between `\r` and `\n` is no position for LSP (a column past the line's
            // content is clamped to its end): that one offset comes back before the `\r`.
            let in_crlf = i > 0 && text.as_bytes()[i - 1] == b'\r' && text.as_bytes().get(i) == Some(&b'\n');
            let expected = if in_crlf { off - TextSize::from(1) } else { off };
            assert_eq!(back, expected, "offset {i} → {lc:?} → {back:?}");
        }
    }
    // Positions past the end are clamped, never a panic.
    let _ = index.offset(LineColumn { line: u32::MAX, col: u32::MAX }, Encoding::Utf16);
    let _ = index.offset(LineColumn { line: 0, col: u32::MAX }, Encoding::Utf8);
    let _ = document_symbols::document_symbols(&parse);
    let _ = folding_ranges::folding_ranges(&parse);
    let _ = apache_syntax::debug_tree(&root);
});
