//! Feature: folding of sections and of runs of comment lines.

use apache_syntax::{Parse, SyntaxKind, TextRange};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldKind {
    Section,
    Comment,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fold {
    /// From the header to the end of the body: the closer stays visible.
    pub range: TextRange,
    pub kind: FoldKind,
}

pub fn folding_ranges(parse: &Parse) -> Vec<Fold> {
    let root = parse.syntax_node();
    let mut out = Vec::new();
    let mut comment_run: Option<(TextRange, usize)> = None;
    // `descendants` is a preorder traversal implemented without recursion.
    for node in root.descendants() {
        match node.kind() {
            SyntaxKind::SECTION => {
                let start = node.text_range().start();
                let end = node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::SECTION_CLOSER)
                    .map(|c| c.text_range().start())
                    .unwrap_or(node.text_range().end());
                out.push(Fold { range: TextRange::new(start, end), kind: FoldKind::Section });
            }
            SyntaxKind::COMMENT => {
                let r = node.text_range();
                comment_run = match comment_run {
                    Some((run, n)) if run.end() == r.start() => Some((run.cover(r), n + 1)),
                    Some((run, n)) => {
                        if n > 1 {
                            out.push(Fold { range: run, kind: FoldKind::Comment });
                        }
                        Some((r, 1))
                    }
                    None => Some((r, 1)),
                };
            }
            _ => {}
        }
    }
    if let Some((run, n)) = comment_run {
        if n > 1 {
            out.push(Fold { range: run, kind: FoldKind::Comment });
        }
    }
    out.sort_by_key(|f| f.range.start());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_comment_blocks_fold() {
        let src = "# a\n# b\n<Directory />\n  # c\n  Require all denied\n</Directory>\n";
        let folds = folding_ranges(&apache_syntax::parse(src));
        let shown: Vec<_> = folds.iter().map(|f| (f.kind, &src[f.range])).collect();
        assert_eq!(
            shown,
            vec![
                (FoldKind::Comment, "# a\n# b\n"),
                (FoldKind::Section, "<Directory />\n  # c\n  Require all denied\n")
            ]
        );
    }
}
