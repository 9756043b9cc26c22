//! Feature: formatting — the indentation of nested sections normalised, and
//! nothing else.
//!
//! Every logical line (a directive, a comment, a section header or closer, a
//! line httpd would reject) is indented by one unit per enclosing section.
//! The only bytes that change are blanks at the start of a logical line's first
//! physical line. Continuation lines (after a line ending in `\`) are left byte
//! for byte: httpd joins them to the line before with their blanks, and where
//! the joined text reaches an expression parser (`Require expr`, `<If>`,
//! `SetEnvIfExpr`, `expr=` arguments) a quote that does not start a word still
//! opens a string, whose blanks are part of the value — no reading of the words
//! tells every such place apart, so none is touched. Continued comment lines,
//! blank lines, text after a section's `>`, quoting and line endings are
//! untouched too.
//!
//! The result is idempotent: formatting formatted text changes nothing.

use apache_syntax::{Parse, SyntaxKind, SyntaxNode, TextRange, TextSize};

/// How one level of indentation is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatOptions {
    /// Columns per tab stop (and per level when indenting with spaces).
    pub tab_size: u32,
    pub insert_spaces: bool,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions { tab_size: 4, insert_spaces: true }
    }
}

impl FormatOptions {
    /// Columns per level: one tab, or as many spaces as a tab is wide.
    fn width_of_level(&self) -> u32 {
        self.tab_size.max(1)
    }
    /// The blanks for `width` columns: tabs then spaces, or spaces only.
    fn blanks(&self, width: u32) -> String {
        let tab = self.tab_size.max(1);
        if self.insert_spaces {
            " ".repeat(width as usize)
        } else {
            "\t".repeat((width / tab) as usize) + &" ".repeat((width % tab) as usize)
        }
    }
}

/// A replacement of the blanks at the start of one physical line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: TextRange,
    pub new_text: String,
}

/// The edits that format the file, or only the lines that intersect `range`.
pub fn format(parse: &Parse, options: FormatOptions, range: Option<TextRange>) -> Vec<Edit> {
    let root = parse.syntax_node();
    let mut out = Vec::new();
    // A line is formatted when it starts between the start of the range's first line and the
    // range's end; a range ending at the start of a later line leaves that line out, as an
    // editor's selection of whole lines does.
    let range = range.map(|r| {
        let text = root.text().to_string();
        let at = usize::from(r.start()).min(text.len());
        let line_start = text.as_bytes()[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        (TextSize::from(line_start as u32), r.end())
    });
    let wanted =
        |line_start: TextSize| range.is_none_or(|(a, b)| a <= line_start && (line_start < b || line_start == a));
    for node in root.descendants() {
        let depth = match node.kind() {
            SyntaxKind::DIRECTIVE | SyntaxKind::COMMENT | SyntaxKind::ERROR => sections_around(&node),
            SyntaxKind::SECTION_HEADER | SyntaxKind::SECTION_CLOSER => sections_around(&node).saturating_sub(1),
            _ => continue,
        };
        // An ERROR line or a closer may sit directly in a flat (over-deep) tree: the
        // depth is where it stands either way.
        format_item(&node, depth, options, &wanted, &mut out);
    }
    out.sort_by_key(|e| e.range.start());
    out
}

/// How many sections enclose a node.
fn sections_around(node: &SyntaxNode) -> u32 {
    node.ancestors().skip(1).filter(|a| a.kind() == SyntaxKind::SECTION).count() as u32
}

fn format_item(
    node: &SyntaxNode,
    depth: u32,
    options: FormatOptions,
    wanted: &dyn Fn(TextSize) -> bool,
    out: &mut Vec<Edit>,
) {
    let tokens: Vec<_> = node.descendants_with_tokens().filter_map(|e| e.into_token()).collect();
    let Some(first) = tokens.first() else { return };
    let start = node.text_range().start();
    // The first line: its leading blanks, if any, are the first token.
    let (old, old_range) = if first.kind() == SyntaxKind::WHITESPACE {
        (first.text().to_string(), first.text_range())
    } else {
        (String::new(), TextRange::empty(start))
    };
    let new = options.blanks(options.width_of_level() * depth);
    if wanted(start) && new != old {
        out.push(Edit { range: old_range, new_text: new });
    }
}

/// The text with the edits applied (edits sorted and disjoint, as [`format()`] returns them).
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for e in edits {
        out.push_str(&text[last..usize::from(e.range.start())]);
        out.push_str(&e.new_text);
        last = usize::from(e.range.end());
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(before: &str, options: FormatOptions, after: Expect) {
        let edits = format(&apache_syntax::parse(before), options, None);
        let formatted = apply(before, &edits);
        after.assert_eq(&formatted);
        let again = format(&apache_syntax::parse(&formatted), options, None);
        assert!(again.is_empty(), "not idempotent: {again:?}");
    }

    const TWO: FormatOptions = FormatOptions { tab_size: 2, insert_spaces: true };

    #[test]
    fn nested_sections_get_one_level_each() {
        check(
            "<VirtualHost *:80>\nServerName é.example\n      <Directory /srv/www>\n# Zugriff für alle\n    Require all granted\n   </Directory>\n</VirtualHost>\n",
            TWO,
            expect![[r#"
                <VirtualHost *:80>
                  ServerName é.example
                  <Directory /srv/www>
                    # Zugriff für alle
                    Require all granted
                  </Directory>
                </VirtualHost>
            "#]],
        );
    }

    #[test]
    fn tabs_when_the_client_asks_for_them() {
        check(
            "<IfModule mod_ssl.c>\n  <Location />\n      SSLRequireSSL\n  </Location>\n</IfModule>\n",
            FormatOptions { tab_size: 8, insert_spaces: false },
            expect![[r#"
                <IfModule mod_ssl.c>
                	<Location />
                		SSLRequireSSL
                	</Location>
                </IfModule>
            "#]],
        );
    }

    #[test]
    fn continuation_lines_are_left_byte_for_byte() {
        // httpd hands `Require expr`'s joined line to the expression parser, for which `'/a `
        // opens a string: the blanks after the `\` are in the value (reindenting them turned a
        // 200 into a 403). Word-split lines are left alone too: no reading tells them apart.
        check(
            "<Directory /srv>\n        Require expr %{REQUEST_URI}=='/a \\\n  b/'\n        RewriteCond %{HTTP_HOST} \\\n            ^www [NC]\nHeader set X \"a \\\n   b\"\n          Options Indexes\\\n  FollowSymLinks\n</Directory>\n",
            TWO,
            expect![[r#"
                <Directory /srv>
                  Require expr %{REQUEST_URI}=='/a \
                  b/'
                  RewriteCond %{HTTP_HOST} \
                            ^www [NC]
                  Header set X "a \
                   b"
                  Options Indexes\
                  FollowSymLinks
                </Directory>
            "#]],
        );
    }

    #[test]
    fn blank_lines_trailing_text_and_crlf_are_untouched() {
        check(
            "<Location /a> trailing junk\r\n   \r\nRequire all denied   \r\n</Location>\r\n",
            TWO,
            expect!["<Location /a> trailing junk\r\n   \r\n  Require all denied   \r\n</Location>\r\n"],
        );
    }

    #[test]
    fn broken_files_are_indented_where_they_stand() {
        check(
            "<Directory /srv>\n</Location>\nRequire all granted\n",
            TWO,
            expect![[r#"
                <Directory /srv>
                  </Location>
                  Require all granted
            "#]],
        );
    }

    /// `█`…`█` marks the range to format.
    fn check_range(fixture: &str, after: Expect) {
        let a = fixture.find('█').unwrap();
        let b = fixture.rfind('█').unwrap() - '█'.len_utf8();
        let text = fixture.replace('█', "");
        let range = TextRange::new(TextSize::from(a as u32), TextSize::from(b as u32));
        after.assert_eq(&apply(&text, &format(&apache_syntax::parse(&text), TWO, Some(range))));
    }

    #[test]
    fn a_range_ending_at_the_start_of_a_line_leaves_that_line_out() {
        check_range(
            "<Directory /a>\n█Options None\n█Require all granted\n</Directory>\n",
            expect![[r#"
                <Directory /a>
                  Options None
                Require all granted
                </Directory>
            "#]],
        );
    }

    #[test]
    fn range_formatting_touches_only_the_lines_in_the_range() {
        check_range(
            "<Directory /a>\nOptions None\n<Files x>\nRequ█ire all granted\n</Files>\nAllowOverride█ None\n</Directory>\n",
            expect![[r#"
                <Directory /a>
                Options None
                <Files x>
                    Require all granted
                  </Files>
                  AllowOverride None
                </Directory>
            "#]],
        );
    }

    mod prop {
        use super::super::*;
        use proptest::prelude::*;

        fn strip_line_starts(text: &str) -> Vec<&str> {
            text.split('\n').map(|l| l.trim_start_matches([' ', '\t'])).collect()
        }

        proptest! {
            #[test]
            fn formatting_is_idempotent_and_changes_only_line_starts(
                text in crate::ide::test_support::config_text(),
                tab_size in 1u32..9,
                insert_spaces: bool,
            ) {
                let options = FormatOptions { tab_size, insert_spaces };
                let once = apply(&text, &format(&apache_syntax::parse(&text), options, None));
                prop_assert_eq!(strip_line_starts(&text), strip_line_starts(&once));
                // A line after a `\` line is the same, byte for byte.
                let continued = |t: &str| -> Vec<String> {
                    let lines: Vec<&str> = t.split('\n').collect();
                    (1..lines.len())
                        .filter(|&i| lines[i - 1].trim_end_matches('\r').ends_with('\\'))
                        .map(|i| lines[i].to_string())
                        .collect()
                };
                prop_assert_eq!(continued(&text), continued(&once));
                let twice = apply(&once, &format(&apache_syntax::parse(&once), options, None));
                prop_assert_eq!(&once, &twice);
                // What httpd reads is the same: every logical line splits into the same words.
                let words = |t: &str| -> Vec<Vec<String>> {
                    use apache_syntax::ast::{AstNode, Directive, SectionHeader};
                    let p = apache_syntax::parse(t);
                    p.syntax_node()
                        .descendants()
                        .filter_map(|n| {
                            let (name, args) = if let Some(d) = Directive::cast(n.clone()) {
                                (d.name(), d.args().collect::<Vec<_>>())
                            } else {
                                let h = SectionHeader::cast(n)?;
                                (h.name(), h.args().collect())
                            };
                            let name = name.map(|n| n.text()).unwrap_or_default();
                            Some(std::iter::once(name).chain(args.iter().map(|a| a.value())).collect())
                        })
                        .collect()
                };
                prop_assert_eq!(words(&text), words(&once));
            }
        }
    }
}
