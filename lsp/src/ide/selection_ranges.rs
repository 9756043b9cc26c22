//! Feature: selection ranges ("expand selection") — from the word under the
//! cursor outwards: a `${VAR}` reference, the word, the arguments, the
//! directive (or section header, closer, comment), the body of its section,
//! the section, and so on through every enclosing section to the whole file.
//!
//! Ranges never include a line's leading blanks or its line break, so each
//! step selects what a reader sees as the thing; every range contains the one
//! before it, as the protocol requires.

use apache_syntax::{Parse, SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

/// The ranges to expand through at `offset`, innermost first.
pub fn selection_ranges(parse: &Parse, offset: TextSize) -> Vec<TextRange> {
    let root = parse.syntax_node();
    let offset = offset.min(root.text_range().end());
    let mut out: Vec<TextRange> = Vec::new();
    // Only ranges around the cursor (not a line's trimmed text when the cursor is in
    // its indentation), each around the one before.
    let mut push = |r: Option<TextRange>| {
        if let Some(r) = r.filter(|r| r.contains_inclusive(offset)) {
            if out.last().is_none_or(|last| r != *last && r.contains_range(*last)) {
                out.push(r);
            }
        }
    };
    let token = pick_token(&root, offset);
    if let Some(t) = &token {
        if matches!(t.kind(), SyntaxKind::WORD | SyntaxKind::QUOTED) {
            push(var_ref_at(t, offset));
        }
    }
    let Some(start) = token.as_ref().and_then(|t| t.parent()) else {
        push(trimmed(&root));
        return out;
    };
    for node in start.ancestors() {
        match node.kind() {
            SyntaxKind::NAME | SyntaxKind::ARGUMENT => {
                // A quoted word: first what is between the quotes.
                if let Some(inner) = inside_quotes(&node) {
                    push(Some(inner));
                }
                push(Some(node.text_range()));
            }
            SyntaxKind::DIRECTIVE | SyntaxKind::SECTION_HEADER => {
                let args: Vec<TextRange> =
                    node.children().filter(|c| c.kind() == SyntaxKind::ARGUMENT).map(|c| c.text_range()).collect();
                if args.len() > 1 && args.iter().any(|a| a.contains_inclusive(offset)) {
                    push(Some(args[0].cover(args[args.len() - 1])));
                }
                push(trimmed(&node));
            }
            SyntaxKind::COMMENT | SyntaxKind::SECTION_CLOSER | SyntaxKind::ERROR => push(trimmed(&node)),
            SyntaxKind::SECTION => {
                push(body(&node));
                push(trimmed(&node));
            }
            SyntaxKind::SOURCE_FILE => push(trimmed(&node)),
            _ => {}
        }
    }
    out
}

/// The token the cursor is on: the one to its left at the end of a word.
fn pick_token(root: &SyntaxNode, offset: TextSize) -> Option<SyntaxToken> {
    let useful = |t: &SyntaxToken| !t.kind().is_trivia();
    match root.token_at_offset(offset) {
        rowan::TokenAtOffset::None => None,
        rowan::TokenAtOffset::Single(t) => Some(t),
        rowan::TokenAtOffset::Between(l, r) => {
            if useful(&r) {
                Some(r)
            } else if useful(&l) {
                Some(l)
            } else {
                Some(r)
            }
        }
    }
}

/// A `${NAME}` (or `%{NAME}`) inside the token around the cursor.
fn var_ref_at(t: &SyntaxToken, offset: TextSize) -> Option<TextRange> {
    let text = t.text();
    let start = t.text_range().start();
    let b = text.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if (b[i] == b'$' || b[i] == b'%') && b[i + 1] == b'{' {
            if let Some(close) = text[i + 2..].find('}') {
                let r =
                    TextRange::new(start + TextSize::from(i as u32), start + TextSize::from((i + 3 + close) as u32));
                if r.contains_inclusive(offset) {
                    return Some(r);
                }
                i += close + 3;
                continue;
            }
        }
        i += 1;
    }
    None
}

fn inside_quotes(node: &SyntaxNode) -> Option<TextRange> {
    let text = node.text().to_string();
    let q = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    if text.len() < 2 || !text.ends_with(q) {
        return None;
    }
    let r = node.text_range();
    Some(TextRange::new(r.start() + TextSize::from(1), r.end() - TextSize::from(1)))
}

/// A node's range without leading blanks or trailing blanks and line breaks.
fn trimmed(node: &SyntaxNode) -> Option<TextRange> {
    let tokens = || node.descendants_with_tokens().filter_map(|e| e.into_token());
    let significant = |t: &SyntaxToken| !matches!(t.kind(), SyntaxKind::WHITESPACE | SyntaxKind::NEWLINE);
    let first = tokens().find(significant)?;
    let last = tokens().filter(significant).last()?;
    Some(TextRange::new(first.text_range().start(), last.text_range().end()))
}

/// A section's body: from its first item to its last, trimmed.
fn body(section: &SyntaxNode) -> Option<TextRange> {
    let items: Vec<TextRange> = section
        .children()
        .filter(|c| !matches!(c.kind(), SyntaxKind::SECTION_HEADER | SyntaxKind::SECTION_CLOSER))
        .filter_map(|c| trimmed(&c))
        .collect();
    Some(items.first()?.cover(*items.last()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    /// `█` marks the cursor; each range is shown as its text (line breaks as `⏎`), innermost first.
    fn check(fixture: &str, expect: Expect) {
        let offset = TextSize::from(fixture.find('█').expect("cursor marker") as u32);
        let text = fixture.replace('█', "");
        let ranges = selection_ranges(&apache_syntax::parse(&text), offset);
        let shown: Vec<String> = ranges.iter().map(|r| format!("{}\n", text[*r].replace('\n', "⏎"))).collect();
        expect.assert_eq(&shown.concat());
    }

    const CONFIG: &str = "<VirtualHost *:80>\n  ServerName é.example\n  <Directory \"/srv/www\">\n    # Zugriff\n    Require ip 10.0.0.0/8 192.0.2.1\n    Options -Indexes\n  </Directory>\n</VirtualHost>\n";

    fn at(marker_after: &str) -> String {
        let i = CONFIG.find(marker_after).unwrap() + marker_after.len();
        format!("{}█{}", &CONFIG[..i], &CONFIG[i..])
    }

    #[test]
    fn word_arguments_directive_body_section_file() {
        check(
            &at("Require ip 10.0"),
            expect![[r#"
            10.0.0.0/8
            ip 10.0.0.0/8 192.0.2.1
            Require ip 10.0.0.0/8 192.0.2.1
            # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes
            <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>
            ServerName é.example⏎  <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>
            <VirtualHost *:80>⏎  ServerName é.example⏎  <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>⏎</VirtualHost>
        "#]],
        );
    }

    #[test]
    fn quoted_section_argument_and_its_quotes() {
        check(
            &at("<Directory \"/srv"),
            expect![[r#"
            /srv/www
            "/srv/www"
            <Directory "/srv/www">
            <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>
            ServerName é.example⏎  <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>
            <VirtualHost *:80>⏎  ServerName é.example⏎  <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>⏎</VirtualHost>
        "#]],
        );
    }

    #[test]
    fn variable_reference_inside_a_word() {
        check(
            "Define root /srv\nDocumentRoot ${ro█ot}/htdocs\n",
            expect![[r#"
            ${root}
            ${root}/htdocs
            DocumentRoot ${root}/htdocs
            Define root /srv⏎DocumentRoot ${root}/htdocs
        "#]],
        );
    }

    #[test]
    fn on_a_closer_and_in_an_empty_file() {
        check(
            &at("  </Dir"),
            expect![[r#"
            Directory
            </Directory>
            <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>
            ServerName é.example⏎  <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>
            <VirtualHost *:80>⏎  ServerName é.example⏎  <Directory "/srv/www">⏎    # Zugriff⏎    Require ip 10.0.0.0/8 192.0.2.1⏎    Options -Indexes⏎  </Directory>⏎</VirtualHost>
        "#]],
        );
        check("█", expect![""]);
    }

    proptest::proptest! {
        #[test]
        fn every_range_holds_the_cursor_and_the_range_before((text, offset) in crate::ide::test_support::text_and_offset()) {
            let offset = TextSize::from(offset as u32);
            let ranges = selection_ranges(&apache_syntax::parse(&text), offset);
            for (i, r) in ranges.iter().enumerate() {
                proptest::prop_assert!(r.contains_inclusive(offset), "{r:?} {offset:?}");
                proptest::prop_assert!(usize::from(r.end()) <= text.len());
                proptest::prop_assert!(text.is_char_boundary(r.start().into()) && text.is_char_boundary(r.end().into()));
                if i > 0 {
                    proptest::prop_assert!(r.contains_range(ranges[i - 1]) && *r != ranges[i - 1]);
                }
            }
        }
    }
}
