//! The kinds of tokens and nodes in the tree, and the rowan `Language` binding.

/// Every token and node kind. Tokens come first, nodes after `__LAST_TOKEN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
#[allow(non_camel_case_types)]
pub enum SyntaxKind {
    /// Spaces, tabs and other blanks httpd's `apr_isspace` accepts (except `\n`).
    WHITESPACE = 0,
    /// `\n` or `\r\n` ending a physical line.
    NEWLINE,
    /// A backslash immediately before a newline: httpd joins the next physical line.
    CONTINUATION,
    /// Comment text: a logical line whose first non-blank character is `#`.
    COMMENT_TEXT,
    /// An unquoted word (or a piece of one, when a continuation splits it).
    WORD,
    /// A double- or single-quoted word, quotes included (or a piece of one).
    QUOTED,
    /// `<` opening a section header.
    L_ANGLE,
    /// `</` opening a section closer.
    L_ANGLE_SLASH,
    /// `>` ending a section header or closer.
    R_ANGLE,
    /// Text httpd ignores after a section's `>` (`<Directory /> junk`).
    TRAILING,
    /// A NUL byte and the rest of its physical line: httpd's line reader stops at
    /// the NUL (the line ends there, no continuation), so it never sees them.
    NUL_TAIL,
    #[doc(hidden)]
    __LAST_TOKEN,

    /// The whole file.
    SOURCE_FILE,
    /// A simple directive: a name and its arguments, on one logical line.
    DIRECTIVE,
    /// A comment line (possibly continued onto further physical lines).
    COMMENT,
    /// A section: header, body items, and a closer when one was found.
    SECTION,
    /// `<Name args>`
    SECTION_HEADER,
    /// `</Name>`
    SECTION_CLOSER,
    /// The name of a directive or section.
    NAME,
    /// One argument, as httpd's tokenizer splits the line.
    ARGUMENT,
    /// A line the parser could not place, e.g. a closer without an opener.
    ERROR,
}

use SyntaxKind::*;

impl SyntaxKind {
    pub fn is_trivia(self) -> bool {
        matches!(self, WHITESPACE | NEWLINE | CONTINUATION | NUL_TAIL)
    }
    pub fn is_token(self) -> bool {
        (self as u16) < (__LAST_TOKEN as u16)
    }
}

impl From<SyntaxKind> for rowan::SyntaxKind {
    fn from(kind: SyntaxKind) -> Self {
        Self(kind as u16)
    }
}

/// The rowan language tag for httpd configuration.
#[derive(Debug, Copy, Clone, Ord, PartialOrd, Eq, PartialEq, Hash)]
pub enum ApacheLanguage {}

impl rowan::Language for ApacheLanguage {
    type Kind = SyntaxKind;
    fn kind_from_raw(raw: rowan::SyntaxKind) -> Self::Kind {
        assert!(raw.0 <= ERROR as u16 && raw.0 != __LAST_TOKEN as u16);
        // SAFETY: `SyntaxKind` is `repr(u16)` and the value was checked to be in range.
        unsafe { std::mem::transmute::<u16, SyntaxKind>(raw.0) }
    }
    fn kind_to_raw(kind: Self::Kind) -> rowan::SyntaxKind {
        kind.into()
    }
}

pub type SyntaxNode = rowan::SyntaxNode<ApacheLanguage>;
pub type SyntaxToken = rowan::SyntaxToken<ApacheLanguage>;
pub type SyntaxElement = rowan::SyntaxElement<ApacheLanguage>;
