//! Feature: semantic highlighting — what each piece of a line is to httpd.
//!
//! Directive names, section tags (`<Directory`, `>`, `</Directory>`), arguments,
//! quoted strings, numbers, `${VAR}` and `%{VAR}` references, comments (and the
//! text httpd ignores after a section's `>`), and the `!`/`~` operators of
//! section arguments. Directive and section names that httpd 2.4 deprecates or
//! removed (`Order`, `Allow`, `AuthzUserAuthoritative`…) carry the deprecated
//! modifier.
//!
//! Every highlight lies on one physical line (a continuation splits a word into
//! pieces), highlights never overlap, and they come in text order: what the
//! protocol's encoding needs.

use crate::ide::catalogue::{self, Status};
use apache_syntax::{Parse, SyntaxKind, SyntaxToken, TextRange, TextSize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HighlightKind {
    Directive,
    /// A section's tag: its name and angle brackets.
    Section,
    Argument,
    Variable,
    Comment,
    String,
    Number,
    Operator,
}

impl HighlightKind {
    /// Every kind, in the order of the legend the server announces.
    pub const ALL: [HighlightKind; 8] = [
        HighlightKind::Directive,
        HighlightKind::Section,
        HighlightKind::Argument,
        HighlightKind::Variable,
        HighlightKind::Comment,
        HighlightKind::String,
        HighlightKind::Number,
        HighlightKind::Operator,
    ];

    pub fn name(self) -> &'static str {
        match self {
            HighlightKind::Directive => "directive",
            HighlightKind::Section => "section",
            HighlightKind::Argument => "argument",
            HighlightKind::Variable => "variable",
            HighlightKind::Comment => "comment",
            HighlightKind::String => "string",
            HighlightKind::Number => "number",
            HighlightKind::Operator => "operator",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Highlight {
    pub range: TextRange,
    pub kind: HighlightKind,
    pub deprecated: bool,
}

/// The highlights of the file, or of the part of it that intersects `range`.
pub fn semantic_tokens(parse: &Parse, range: Option<TextRange>) -> Vec<Highlight> {
    let root = parse.syntax_node();
    let mut out = Vec::new();
    for t in root.descendants_with_tokens().filter_map(|e| e.into_token()) {
        if range.is_some_and(|r| r.intersect(t.text_range()).is_none_or(|i| i.is_empty() && !r.is_empty())) {
            continue;
        }
        highlight_token(&t, &mut out);
    }
    out
}

fn highlight_token(t: &SyntaxToken, out: &mut Vec<Highlight>) {
    let parent = t.parent().map(|p| p.kind());
    let grandparent = t.parent().and_then(|p| p.parent()).map(|g| g.kind());
    let mut push = |range: TextRange, kind: HighlightKind, deprecated: bool| {
        if !range.is_empty() {
            out.push(Highlight { range, kind, deprecated });
        }
    };
    match t.kind() {
        SyntaxKind::COMMENT_TEXT | SyntaxKind::TRAILING => push(t.text_range(), HighlightKind::Comment, false),
        SyntaxKind::L_ANGLE | SyntaxKind::L_ANGLE_SLASH | SyntaxKind::R_ANGLE => {
            push(t.text_range(), HighlightKind::Section, false)
        }
        SyntaxKind::WORD | SyntaxKind::QUOTED if parent == Some(SyntaxKind::NAME) => {
            let kind = if grandparent == Some(SyntaxKind::DIRECTIVE) {
                HighlightKind::Directive
            } else {
                HighlightKind::Section
            };
            let name = t.parent().map(|n| n.text().to_string()).unwrap_or_default();
            let deprecated = catalogue::directive(apache_syntax::unquote_word(&name).trim())
                .is_some_and(|d| d.deprecated || d.status == Status::Removed);
            push(t.text_range(), kind, deprecated);
        }
        SyntaxKind::WORD | SyntaxKind::QUOTED => {
            let quoted = t.kind() == SyntaxKind::QUOTED || word_is_quoted(t);
            let text = t.text();
            let start = t.text_range().start();
            let at = |i: usize| start + TextSize::from(i as u32);
            // A leading `!` (negated condition) or a lone `~` (regex section) is an operator.
            let mut from = 0;
            if grandparent == Some(SyntaxKind::SECTION_HEADER) && !quoted && first_piece(t) {
                if text == "~" {
                    push(t.text_range(), HighlightKind::Operator, false);
                    return;
                }
                if text.starts_with('!') {
                    push(TextRange::new(at(0), at(1)), HighlightKind::Operator, false);
                    from = 1;
                }
            }
            let plain = if quoted {
                HighlightKind::String
            } else if is_number(&argument_text(t)) {
                HighlightKind::Number
            } else {
                HighlightKind::Argument
            };
            for (a, b) in var_refs(text) {
                if a < from {
                    continue;
                }
                push(TextRange::new(at(from), at(a)), plain, false);
                push(TextRange::new(at(a), at(b)), HighlightKind::Variable, false);
                from = b;
            }
            push(TextRange::new(at(from), at(text.len())), plain, false);
        }
        _ => {}
    }
}

/// Whether a WORD piece belongs to an argument that starts with a quote (a quoted
/// word continued onto another line keeps its QUOTED kind; this covers the rest).
fn word_is_quoted(t: &SyntaxToken) -> bool {
    t.parent().and_then(|p| p.first_token()).is_some_and(|f| f.kind() == SyntaxKind::QUOTED)
}

fn first_piece(t: &SyntaxToken) -> bool {
    t.parent().and_then(|p| p.first_token()).is_some_and(|f| f == *t)
}

fn argument_text(t: &SyntaxToken) -> String {
    t.parent().map(|p| p.text().to_string()).unwrap_or_default()
}

fn is_number(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

/// Byte ranges of `${…}` and `%{…}` references in a piece of text.
fn var_refs(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if (b[i] == b'$' || b[i] == b'%') && b[i + 1] == b'{' {
            if let Some(close) = memchr_close(&b[i + 2..]) {
                out.push((i, i + 3 + close));
                i += 3 + close;
                continue;
            }
        }
        i += 1;
    }
    out
}

fn memchr_close(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    /// Each highlight as `kind[+deprecated] "text"`, one per line; `█`…`█`
    /// optionally marks the range asked for.
    fn check(fixture: &str, expect: Expect) {
        let marks: Vec<usize> = fixture.match_indices('█').map(|(i, _)| i).collect();
        let text = fixture.replace('█', "");
        let range = match marks[..] {
            [a, b] => Some(TextRange::new(TextSize::from(a as u32), TextSize::from((b - '█'.len_utf8()) as u32))),
            _ => None,
        };
        let shown: String = semantic_tokens(&apache_syntax::parse(&text), range)
            .iter()
            .map(|h| {
                let m = if h.deprecated { "+deprecated" } else { "" };
                format!("{}{m} {:?}\n", h.kind.name(), &text[h.range])
            })
            .collect();
        expect.assert_eq(&shown);
    }

    #[test]
    fn directives_sections_arguments_and_comments() {
        check(
            "# Zugriff für Ärzte\n<Directory \"/srv/${site}\"> ignored\n  Order deny,allow\n  Require ip 10.0.0.0/8\n  LimitRequestBody 1024\n</Directory>\n",
            expect![[r##"
                comment "# Zugriff für Ärzte"
                section "<"
                section "Directory"
                string "\"/srv/"
                variable "${site}"
                string "\""
                section ">"
                comment "ignored"
                directive+deprecated "Order"
                argument "deny,allow"
                directive "Require"
                argument "ip"
                argument "10.0.0.0/8"
                directive "LimitRequestBody"
                number "1024"
                section "</"
                section "Directory"
                section ">"
            "##]],
        );
    }

    #[test]
    fn operators_variables_and_continuations() {
        check(
            "<IfModule !mod_ssl.c>\n<Directory ~ \"^/srv\">\nRewriteCond %{HTTP_HOST} \\\n  ^www\n</Directory>\n</IfModule>\n",
            expect![[r#"
                section "<"
                section "IfModule"
                operator "!"
                argument "mod_ssl.c"
                section ">"
                section "<"
                section "Directory"
                operator "~"
                string "\"^/srv\""
                section ">"
                directive "RewriteCond"
                variable "%{HTTP_HOST}"
                argument "^www"
                section "</"
                section "Directory"
                section ">"
                section "</"
                section "IfModule"
                section ">"
            "#]],
        );
    }

    #[test]
    fn removed_directives_are_deprecated_and_a_range_limits_the_result() {
        check(
            "ServerName a\n█AuthzUserAuthoritative Off\n█Listen 80\n",
            expect![[r#"
            directive+deprecated "AuthzUserAuthoritative"
            argument "Off"
        "#]],
        );
    }

    proptest::proptest! {
        #[test]
        fn highlights_are_ordered_disjoint_and_on_one_line(text in crate::ide::test_support::config_text()) {
            let highlights = semantic_tokens(&apache_syntax::parse(&text), None);
            let mut end = TextSize::from(0);
            for h in &highlights {
                proptest::prop_assert!(!h.range.is_empty() && h.range.start() >= end, "{h:?} after {end:?}");
                let piece = &text[h.range];
                proptest::prop_assert!(!piece.contains('\n'), "{piece:?}");
                end = h.range.end();
            }
        }
    }
}
