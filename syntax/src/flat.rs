//! The parser's nodes as a flat list, without a rowan tree: for batch work (the
//! checker reads every file once and never edits it).
//!
//! [`parse_flat`] runs the same parser as [`crate::parse`] (one code path, writing to
//! another [`Sink`]), so it finds the same nodes with the same ranges and the same
//! errors, by construction; tokens are only counted, never stored or hashed. `ARGUMENT`
//! nodes (a word each, nearly half of all nodes) are not made at all: the loader never
//! reads them (it splits a directive's logical text itself), so the parser hands this
//! sink each run of arguments as one token ([`Sink::ARGUMENTS`]). The
//! accessors mirror the [`crate::ast`] ones the configuration loader uses, and give the
//! same strings (a proptest below checks both claims on arbitrary input).
//!
//! Invariant: `nodes[0]` is the `SOURCE_FILE`; nodes are the tree's but `ARGUMENT`, in
//! preorder, and a node's descendants are exactly `i + 1 .. nodes[i].next`.

use crate::lexer::unquote_word;
use crate::parser::{parse_into, Sink, SyntaxError};
use crate::SyntaxKind::{self, *};
use rowan::{TextRange, TextSize};

/// One node of the tree, without its tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatNode {
    pub kind: SyntaxKind,
    pub start: u32,
    pub end: u32,
    /// Index just past this node's last descendant.
    pub next: u32,
    /// For a `SECTION_HEADER`: where its `>` is (`u32::MAX` when it has none).
    r_angle: u32,
}

/// A file's nodes and syntax errors (what [`crate::Parse`] holds, without the tree).
#[derive(Debug, Clone, Default)]
pub struct FlatParse {
    pub nodes: Vec<FlatNode>,
    /// Source ranges of the continuation and NUL-tail tokens, in order: the bytes that
    /// are in a node's range but not in its logical text.
    gaps: Vec<(u32, u32)>,
    pub errors: Vec<SyntaxError>,
}

struct FlatSink {
    out: FlatParse,
    open: Vec<usize>,
    offset: u32,
}

impl Sink for FlatSink {
    const ARGUMENTS: bool = false;
    fn start_node(&mut self, kind: SyntaxKind) {
        self.open.push(self.out.nodes.len());
        let at = self.offset;
        self.out.nodes.push(FlatNode { kind, start: at, end: at, next: 0, r_angle: u32::MAX });
    }
    fn token(&mut self, kind: SyntaxKind, text: &str) {
        let end = self.offset + text.len() as u32;
        match kind {
            CONTINUATION | NUL_TAIL => self.out.gaps.push((self.offset, end)),
            R_ANGLE => {
                if let Some(n) = self.open.last().and_then(|&i| self.out.nodes.get_mut(i)) {
                    if n.kind == SECTION_HEADER {
                        n.r_angle = self.offset;
                    }
                }
            }
            _ => {}
        }
        self.offset = end;
    }
    fn finish_node(&mut self) {
        if let Some(i) = self.open.pop() {
            let next = self.out.nodes.len() as u32;
            let n = &mut self.out.nodes[i];
            n.end = self.offset;
            n.next = next;
        }
    }
}

/// Parses `src` as [`crate::parse`] does, keeping node ranges only (`ARGUMENT` nodes left out).
pub fn parse_flat(src: &str) -> FlatParse {
    let mut sink = FlatSink {
        out: FlatParse { nodes: Vec::with_capacity(src.len() / 16), ..FlatParse::default() },
        open: Vec::new(),
        offset: 0,
    };
    let errors = parse_into(src, &mut sink);
    let mut out = sink.out;
    out.errors = errors;
    out.nodes.shrink_to_fit();
    out
}

impl FlatParse {
    pub fn range(&self, i: usize) -> TextRange {
        let n = &self.nodes[i];
        TextRange::new(TextSize::from(n.start), TextSize::from(n.end))
    }

    pub fn kind(&self, i: usize) -> SyntaxKind {
        self.nodes[i].kind
    }

    /// The direct children of node `i`, in order.
    pub fn children(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let end = self.nodes.get(i).map_or(0, |n| n.next as usize);
        let mut c = i + 1;
        std::iter::from_fn(move || {
            if c >= end {
                return None;
            }
            let here = c;
            c = self.nodes[c].next as usize;
            Some(here)
        })
    }

    /// The first child of `i` of kind `kind`.
    pub fn child(&self, i: usize, kind: SyntaxKind) -> Option<usize> {
        self.children(i).find(|&c| self.nodes[c].kind == kind)
    }

    /// [`crate::ast::Directive::logical_text`] of the DIRECTIVE node `i`.
    pub fn directive_logical_text(&self, src: &str, i: usize) -> String {
        let n = &self.nodes[i];
        crate::ast::trim_blanks(&self.logical_keep_newlines(src, n.start, n.end)).to_string()
    }

    /// [`crate::ast::SectionCloser::logical_text`] of the SECTION_CLOSER node `i`.
    pub fn closer_logical_text(&self, src: &str, i: usize) -> String {
        self.directive_logical_text(src, i)
    }

    /// [`crate::ast::Name::text`] of the NAME node `i`.
    pub fn name_text(&self, src: &str, i: usize) -> String {
        let n = &self.nodes[i];
        unquote_word(&self.logical_keep_newlines(src, n.start, n.end))
    }

    /// [`crate::ast::SectionHeader::raw_args`] of the SECTION_HEADER node `h`.
    pub fn header_raw_args(&self, src: &str, h: usize) -> String {
        let n = &self.nodes[h];
        let Some(name) = self.child(h, NAME) else { return String::new() };
        let from = self.nodes[name].end;
        let to = if n.r_angle == u32::MAX { n.end } else { n.r_angle };
        // Tokens other than words and blanks (the final newline) are left out by the tree's
        // accessor; here only the line's end can hold one.
        let mut s = self.logical_keep_newlines(src, from, to);
        if n.r_angle == u32::MAX {
            let keep = s.trim_end_matches(['\n', '\r']).len();
            s.truncate(keep);
        }
        // (`<Name> words>`: the name's `>` is a TRAILING token the tree's accessor leaves out.)
        if let Some(rest) = s.strip_prefix('>') {
            s = rest.to_string();
        }
        crate::ast::trim_blanks(&s).to_string()
    }

    /// The text of `[start, end)` without continuations and NUL tails (what httpd reads).
    fn logical_keep_newlines(&self, src: &str, start: u32, end: u32) -> String {
        let mut s = String::with_capacity((end - start) as usize);
        let mut at = start;
        let first = self.gaps.partition_point(|g| g.1 <= start);
        for &(a, b) in &self.gaps[first..] {
            if a >= end {
                break;
            }
            if a > at {
                s.push_str(&src[at as usize..a as usize]);
            }
            at = at.max(b);
        }
        if at < end {
            s.push_str(&src[at as usize..end as usize]);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{self, AstNode};
    use proptest::prelude::*;

    /// Every node of the tree but `ARGUMENT` (preorder) against the flat list: kinds, ranges,
    /// errors, and the strings the loader reads (directive logical text, names, header arguments).
    fn same_as_tree(src: &str) -> Result<(), TestCaseError> {
        let tree = crate::parse(src);
        let flat = parse_flat(src);
        prop_assert_eq!(&flat.errors, &tree.errors);
        let kept = |n: &crate::SyntaxNode| n.kind() != ARGUMENT;
        let nodes: Vec<_> = tree.syntax_node().descendants().filter(kept).collect();
        prop_assert_eq!(nodes.len(), flat.nodes.len());
        for (i, n) in nodes.iter().enumerate() {
            prop_assert_eq!(n.kind(), flat.kind(i));
            prop_assert_eq!(n.text_range(), flat.range(i));
            let children: Vec<TextRange> = n.children().filter(kept).map(|c| c.text_range()).collect();
            let flat_children: Vec<TextRange> = flat.children(i).map(|c| flat.range(c)).collect();
            prop_assert_eq!(children, flat_children);
            if let Some(d) = ast::Directive::cast(n.clone()) {
                prop_assert_eq!(d.logical_text(), flat.directive_logical_text(src, i));
            }
            if let Some(name) = ast::Name::cast(n.clone()) {
                prop_assert_eq!(name.text(), flat.name_text(src, i));
            }
            if let Some(h) = ast::SectionHeader::cast(n.clone()) {
                prop_assert_eq!(h.raw_args(), flat.header_raw_args(src, i));
            }
            if let Some(c) = ast::SectionCloser::cast(n.clone()) {
                prop_assert_eq!(c.logical_text(), flat.closer_logical_text(src, i));
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn any_text_gives_the_tree_s_nodes(s in "(?s).{0,300}") {
            same_as_tree(&s)?;
        }

        #[test]
        fn config_like_text_gives_the_tree_s_nodes(s in proptest::collection::vec(prop_oneof![
            Just("<Directory /x>"), Just("</Directory>"), Just("<If \"a > b\">"), Just("</If >"),
            Just("<Files"), Just("<Files a b>"), Just("</Files>"), Just("<RequireAll x>"), Just("</RequireAll>"),
            Just("Require all granted"), Just("\\\n"), Just("\r\n"), Just("\n"), Just("# c \\"),
            Just("\"q\\\"x"), Just("'"), Just("${V}"), Just(" "), Just("\t"), Just("<"), Just(">"),
            Just("é😀"), Just("\\"), Just("\0"), Just("\r"), Just("x"), Just("</"),
        ], 0..60)) {
            same_as_tree(&s.concat())?;
        }
    }

    #[test]
    fn deep_nesting_is_flattened_alike() {
        let s = "<Directory /a>\nX 1\n".repeat(crate::MAX_DEPTH + 10) + &"</Directory>\n".repeat(crate::MAX_DEPTH + 10);
        same_as_tree(&s).unwrap();
    }

    /// The real-world configurations of `../shared/corpus`, when it is there.
    #[test]
    fn corpus_files_give_the_tree_s_nodes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        if !root.is_dir() {
            eprintln!("note: {} is absent; corpus comparison skipped", root.display());
            return;
        }
        let mut stack = vec![root];
        let mut n = 0;
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(bytes) = std::fs::read(&p) {
                    let text = String::from_utf8_lossy(&bytes);
                    if let Err(e) = same_as_tree(&text) {
                        panic!("{}: {e}", p.display());
                    }
                    n += 1;
                }
            }
        }
        assert!(n > 0, "the corpus holds no file");
    }
}
