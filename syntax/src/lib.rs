//! Lossless syntax for Apache httpd configuration files.
//!
//! Architecture invariant: this crate does no IO, no async, and knows nothing of
//! the Language Server Protocol. It turns any text into a rowan tree whose text is
//! the input byte for byte, following httpd's own reading of configuration files
//! (`server/util.c: ap_cfg_getline_core`, `ap_getword_conf`; `server/config.c:
//! ap_build_config_sub`): logical lines joined by backslash continuations, comments
//! only where the first non-blank character is `#`, quoted words with httpd's
//! escapes, and `<Section>` nesting with the errors httpd reports.
//!
//! Errors live beside the tree ([`Parse::errors`]); broken lines live inside
//! `ERROR` nodes. Checks that need knowledge of particular directives belong to
//! the analysis layer, not here.

pub mod ast;
mod flat;
mod kind;
mod lexer;
mod line_index;
mod parser;
mod reparse;
mod soak;

pub use flat::{parse_flat, FlatNode, FlatParse};
pub use kind::{ApacheLanguage, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use lexer::{first_word, is_space, reported_line_start, split_words, unquote_word, unquoted, words};
pub use line_index::{Encoding, LineColumn, LineIndex};
pub use parser::{parse, Parse, SyntaxError, MAX_DEPTH, MAX_LINE};
pub use reparse::{LocalChange, Reparsed};
pub use rowan::{GreenNode, TextRange, TextSize};
pub use soak::{soak, Soaked};

impl Parse {
    pub fn syntax_node(&self) -> SyntaxNode {
        SyntaxNode::new_root(self.green.clone())
    }
    pub fn tree(&self) -> ast::SourceFile {
        use ast::AstNode;
        ast::SourceFile::cast(self.syntax_node()).expect("root is SOURCE_FILE")
    }
}

/// Renders a tree as indented `KIND@range "text"` lines, for snapshot tests and
/// the "Show syntax tree" command.
pub fn debug_tree(node: &SyntaxNode) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for ev in node.preorder_with_tokens() {
        match ev {
            rowan::WalkEvent::Enter(el) => {
                out.push_str(&"  ".repeat(depth));
                match &el {
                    rowan::NodeOrToken::Node(n) => {
                        out.push_str(&format!("{:?}@{:?}\n", n.kind(), n.text_range()));
                        depth += 1;
                    }
                    rowan::NodeOrToken::Token(t) => {
                        out.push_str(&format!("{:?}@{:?} {:?}\n", t.kind(), t.text_range(), t.text()));
                    }
                }
            }
            rowan::WalkEvent::Leave(el) => {
                if el.as_node().is_some() {
                    depth -= 1;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
