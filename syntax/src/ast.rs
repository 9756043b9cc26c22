//! Typed views over the untyped tree. Every accessor returns `Option` (or an
//! iterator): a broken file still has a tree, just with pieces missing.

use crate::lexer::unquote_word;
use crate::{SyntaxKind, SyntaxKind::*, SyntaxNode, SyntaxToken};
use rowan::TextRange;

pub trait AstNode: Sized {
    fn can_cast(kind: SyntaxKind) -> bool;
    fn cast(node: SyntaxNode) -> Option<Self>;
    fn syntax(&self) -> &SyntaxNode;
}

macro_rules! ast_node {
    ($name:ident, $kind:ident) => {
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(SyntaxNode);
        impl AstNode for $name {
            fn can_cast(kind: SyntaxKind) -> bool {
                kind == $kind
            }
            fn cast(node: SyntaxNode) -> Option<Self> {
                (node.kind() == $kind).then(|| Self(node))
            }
            fn syntax(&self) -> &SyntaxNode {
                &self.0
            }
        }
    };
}

ast_node!(SourceFile, SOURCE_FILE);
ast_node!(Directive, DIRECTIVE);
ast_node!(Section, SECTION);
ast_node!(SectionHeader, SECTION_HEADER);
ast_node!(SectionCloser, SECTION_CLOSER);
ast_node!(Comment, COMMENT);
ast_node!(Name, NAME);
ast_node!(Argument, ARGUMENT);
ast_node!(ErrorLine, ERROR);

/// Something that can stand in a file or a section body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Item {
    Directive(Directive),
    Section(Section),
    Comment(Comment),
    Error(ErrorLine),
}

impl Item {
    pub fn cast(node: SyntaxNode) -> Option<Item> {
        Some(match node.kind() {
            DIRECTIVE => Item::Directive(Directive(node)),
            SECTION => Item::Section(Section(node)),
            COMMENT => Item::Comment(Comment(node)),
            ERROR => Item::Error(ErrorLine(node)),
            _ => return None,
        })
    }
    pub fn syntax(&self) -> &SyntaxNode {
        match self {
            Item::Directive(it) => it.syntax(),
            Item::Section(it) => it.syntax(),
            Item::Comment(it) => it.syntax(),
            Item::Error(it) => it.syntax(),
        }
    }
}

impl SourceFile {
    pub fn items(&self) -> impl Iterator<Item = Item> {
        self.0.children().filter_map(Item::cast)
    }
}

/// Text of a node without line continuations or line breaks: what httpd sees.
/// The text after a directive's or section header's name (up to a header's `>`), without
/// continuations, trimmed of the blanks httpd's `apr_isspace` knows (ASCII only: a
/// no-break space is part of the argument, as httpd reads it).
fn raw_args(node: &SyntaxNode) -> String {
    let mut s = String::new();
    for a in node.children_with_tokens().skip_while(|e| e.kind() != NAME).skip(1) {
        match a {
            rowan::NodeOrToken::Node(n) => s.push_str(&logical(&n)),
            rowan::NodeOrToken::Token(t) if t.kind() == WHITESPACE => s.push_str(t.text()),
            rowan::NodeOrToken::Token(t) if t.kind() == R_ANGLE => break,
            _ => {}
        }
    }
    trim_blanks(&s).to_string()
}

/// `s` without httpd's blanks at either end.
pub fn trim_blanks(s: &str) -> &str {
    // By bytes: blanks are ASCII, so the cuts fall on character boundaries.
    let b = s.as_bytes();
    let start = b.iter().position(|&c| !crate::lexer::is_space(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|&c| !crate::lexer::is_space(c)).map_or(start, |e| e + 1);
    &s[start..end]
}

fn logical(node: &SyntaxNode) -> String {
    let mut s = String::new();
    for t in node.descendants_with_tokens().filter_map(|e| e.into_token()) {
        if !matches!(t.kind(), CONTINUATION | NEWLINE | NUL_TAIL) {
            s.push_str(t.text());
        }
    }
    s
}

impl Directive {
    pub fn name(&self) -> Option<Name> {
        self.0.children().find_map(Name::cast)
    }
    pub fn args(&self) -> impl Iterator<Item = Argument> {
        self.0.children().filter_map(Argument::cast)
    }
    /// The logical line, continuations removed and blanks trimmed.
    pub fn logical_text(&self) -> String {
        trim_blanks(&logical(&self.0)).to_string()
    }
    /// Everything after the name, as a RAW_ARGS directive (`Require`) receives it.
    pub fn raw_args(&self) -> String {
        raw_args(&self.0)
    }
}

impl Section {
    pub fn header(&self) -> Option<SectionHeader> {
        self.0.children().find_map(SectionHeader::cast)
    }
    pub fn closer(&self) -> Option<SectionCloser> {
        self.0.children().find_map(SectionCloser::cast)
    }
    pub fn name(&self) -> Option<Name> {
        self.header()?.name()
    }
    /// The section's name as written, or "" when missing.
    pub fn name_text(&self) -> String {
        self.name().map(|n| n.text()).unwrap_or_default()
    }
    pub fn args(&self) -> impl Iterator<Item = Argument> {
        self.header().into_iter().flat_map(|h| h.args().collect::<Vec<_>>())
    }
    /// Items of the body, between header and closer.
    pub fn items(&self) -> impl Iterator<Item = Item> {
        self.0.children().filter_map(Item::cast)
    }
}

impl SectionHeader {
    pub fn name(&self) -> Option<Name> {
        self.0.children().find_map(Name::cast)
    }
    pub fn args(&self) -> impl Iterator<Item = Argument> {
        self.0.children().filter_map(Argument::cast)
    }
    pub fn r_angle(&self) -> Option<SyntaxToken> {
        self.0.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == R_ANGLE)
    }
    /// The header's argument text between the name and the closing `>`, as the
    /// section handler receives it.
    pub fn raw_args(&self) -> String {
        raw_args(&self.0)
    }
}

impl SectionCloser {
    pub fn name(&self) -> Option<Name> {
        self.0.children().find_map(Name::cast)
    }
    /// The logical line, continuations removed and blanks trimmed (what httpd compares with
    /// the closer it looks for).
    pub fn logical_text(&self) -> String {
        trim_blanks(&logical(&self.0)).to_string()
    }
}

impl Name {
    /// The name as httpd reads it (continuations removed; quotes kept off).
    pub fn text(&self) -> String {
        unquote_word(&logical(&self.0))
    }
    pub fn range(&self) -> TextRange {
        self.0.text_range()
    }
}

impl Argument {
    /// The argument as written, continuations removed, quotes kept.
    pub fn raw(&self) -> String {
        logical(&self.0)
    }
    /// The argument's value: quotes removed, escapes applied.
    pub fn value(&self) -> String {
        unquote_word(&self.raw())
    }
    pub fn is_quoted(&self) -> bool {
        self.0.first_token().map(|t| t.kind() == QUOTED).unwrap_or(false)
    }
    pub fn range(&self) -> TextRange {
        self.0.text_range()
    }
}

impl Comment {
    /// The comment text from `#` on (continuations removed).
    pub fn text(&self) -> String {
        logical(&self.0).trim().to_string()
    }
}

/// A `${NAME}` reference: its byte range within the text and the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarRef {
    pub start: usize,
    pub end: usize,
    pub name: String,
}

/// Whether `text` holds a `${`: the start of a [`var_refs`] reference. (Asked of every line
/// of every file: a byte search, not a substring search, whose set-up costs more than most
/// lines.)
pub fn has_var_ref(text: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'$', &b[from..]) {
        if b.get(from + i + 1) == Some(&b'{') {
            return true;
        }
        from += i + 1;
    }
    false
}

/// The `${NAME}` references in a piece of text, as `ap_resolve_env` finds them.
pub fn var_refs(text: &str) -> Vec<VarRef> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'$' && b[i + 1] == b'{' {
            if let Some(close) = memchr::memchr(b'}', &b[i + 2..]) {
                let end = i + 2 + close + 1;
                out.push(VarRef { start: i, end, name: text[i + 2..end - 1].to_string() });
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out
}
