//! Snapshot tests of trees and errors. `UPDATE_EXPECT=1 cargo test -p apache-syntax`
//! blesses changed snapshots. Files in `test_data/ok` must parse without errors,
//! files in `test_data/err` must produce some; each has a `.rast` snapshot beside it.

use expect_test::{expect, expect_file, Expect};
use std::path::PathBuf;

use crate::{ast::AstNode, debug_tree, parse};

fn render(src: &str) -> String {
    let p = parse(src);
    let node = p.syntax_node();
    assert_eq!(node.text().to_string(), src, "lossless");
    let mut out = debug_tree(&node);
    for e in &p.errors {
        out.push_str(&format!("error {:?}: {}\n", e.range, e.message));
    }
    out
}

fn check(src: &str, expect: Expect) {
    expect.assert_eq(&render(src));
}

fn errors(src: &str) -> Vec<String> {
    parse(src).errors.into_iter().map(|e| e.message).collect()
}

#[test]
fn directive_with_quoted_and_plain_arguments() {
    check(
        "Alias /icons/ \"/usr/share/apache2/icons/\"\n",
        expect![[r##"
            SOURCE_FILE@0..42
              DIRECTIVE@0..42
                NAME@0..5
                  WORD@0..5 "Alias"
                WHITESPACE@5..6 " "
                ARGUMENT@6..13
                  WORD@6..13 "/icons/"
                WHITESPACE@13..14 " "
                ARGUMENT@14..41
                  QUOTED@14..41 "\"/usr/share/apache2/icons/\""
                NEWLINE@41..42 "\n"
        "##]],
    );
}

#[test]
fn continuation_inside_a_word_joins_it() {
    check(
        "Order allow,\\\ndeny\r\n",
        expect![[r##"
            SOURCE_FILE@0..20
              DIRECTIVE@0..20
                NAME@0..5
                  WORD@0..5 "Order"
                WHITESPACE@5..6 " "
                ARGUMENT@6..18
                  WORD@6..12 "allow,"
                  CONTINUATION@12..14 "\\\n"
                  WORD@14..18 "deny"
                NEWLINE@18..20 "\r\n"
        "##]],
    );
    let p = parse("Order allow,\\\ndeny\r\n");
    let d = match p.tree().items().next() {
        Some(crate::ast::Item::Directive(d)) => d,
        other => panic!("{other:?}"),
    };
    assert_eq!(d.args().map(|a| a.value()).collect::<Vec<_>>(), vec!["allow,deny"]);
}

#[test]
fn continued_comment_swallows_next_line() {
    check(
        "# note \\\nDeny from all\nRequire all granted",
        expect![[r##"
            SOURCE_FILE@0..42
              COMMENT@0..23
                COMMENT_TEXT@0..7 "# note "
                CONTINUATION@7..9 "\\\n"
                COMMENT_TEXT@9..22 "Deny from all"
                NEWLINE@22..23 "\n"
              DIRECTIVE@23..42
                NAME@23..30
                  WORD@23..30 "Require"
                WHITESPACE@30..31 " "
                ARGUMENT@31..34
                  WORD@31..34 "all"
                WHITESPACE@34..35 " "
                ARGUMENT@35..42
                  WORD@35..42 "granted"
        "##]],
    );
}

#[test]
fn hash_after_directive_is_argument_text() {
    let p = parse("Order deny,allow # c\n");
    let d = match p.tree().items().next() {
        Some(crate::ast::Item::Directive(d)) => d,
        other => panic!("{other:?}"),
    };
    assert_eq!(d.args().map(|a| a.value()).collect::<Vec<_>>(), vec!["deny,allow", "#", "c"]);
    assert!(p.errors.is_empty());
}

#[test]
fn nested_sections_case_insensitive_closers() {
    check(
        "<IfModule !mod_x.c>\n  <directory \"/var/www\">\n    Require all granted\n  </DIRECTORY>\n</ifmodule>\n",
        expect![[r#"
            SOURCE_FILE@0..96
              SECTION@0..96
                SECTION_HEADER@0..20
                  L_ANGLE@0..1 "<"
                  NAME@1..9
                    WORD@1..9 "IfModule"
                  WHITESPACE@9..10 " "
                  ARGUMENT@10..18
                    WORD@10..18 "!mod_x.c"
                  R_ANGLE@18..19 ">"
                  NEWLINE@19..20 "\n"
                SECTION@20..84
                  SECTION_HEADER@20..45
                    WHITESPACE@20..22 "  "
                    L_ANGLE@22..23 "<"
                    NAME@23..32
                      WORD@23..32 "directory"
                    WHITESPACE@32..33 " "
                    ARGUMENT@33..43
                      QUOTED@33..43 "\"/var/www\""
                    R_ANGLE@43..44 ">"
                    NEWLINE@44..45 "\n"
                  DIRECTIVE@45..69
                    WHITESPACE@45..49 "    "
                    NAME@49..56
                      WORD@49..56 "Require"
                    WHITESPACE@56..57 " "
                    ARGUMENT@57..60
                      WORD@57..60 "all"
                    WHITESPACE@60..61 " "
                    ARGUMENT@61..68
                      WORD@61..68 "granted"
                    NEWLINE@68..69 "\n"
                  SECTION_CLOSER@69..84
                    WHITESPACE@69..71 "  "
                    L_ANGLE_SLASH@71..73 "</"
                    NAME@73..82
                      WORD@73..82 "DIRECTORY"
                    R_ANGLE@82..83 ">"
                    NEWLINE@83..84 "\n"
                SECTION_CLOSER@84..96
                  L_ANGLE_SLASH@84..86 "</"
                  NAME@86..94
                    WORD@86..94 "ifmodule"
                  R_ANGLE@94..95 ">"
                  NEWLINE@95..96 "\n"
        "#]],
    );
}

#[test]
fn if_expression_and_ifversion_operators() {
    let p = parse("<If \"%{REMOTE_ADDR} -ipmatch '10.0.0.0/8'\">\n</If>\n<IfVersion >= 2.4>\n</IfVersion>\n<Directory ~ \"^/var/www/.*\">\n</Directory>\n<RequireAll>\n</RequireAll>\n");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let names: Vec<_> = p
        .tree()
        .items()
        .filter_map(|i| match i {
            crate::ast::Item::Section(s) => Some((s.name_text(), s.args().map(|a| a.value()).collect::<Vec<_>>())),
            _ => None,
        })
        .collect();
    expect![[r##"
        [
            (
                "If",
                [
                    "%{REMOTE_ADDR} -ipmatch '10.0.0.0/8'",
                ],
            ),
            (
                "IfVersion",
                [
                    ">=",
                    "2.4",
                ],
            ),
            (
                "Directory",
                [
                    "~",
                    "^/var/www/.*",
                ],
            ),
            (
                "RequireAll",
                [],
            ),
        ]
    "##]]
    .assert_debug_eq(&names);
}

#[test]
fn section_errors_read_like_httpd() {
    expect![[r##"
        [
            "<Directory> was not closed.",
        ]
    "##]]
    .assert_debug_eq(&errors("<Directory />\nRequire all granted\n"));
    expect![[r##"
        [
            "</Directory> without matching <Directory> section",
        ]
    "##]]
    .assert_debug_eq(&errors("</Directory>\n"));
    expect![[r##"
        [
            "Expected </Directory> but saw </Location>",
        ]
    "##]]
    .assert_debug_eq(&errors("<Directory />\n</Location>\n</Directory>\n"));
    expect![[r##"
        [
            "</Directory> directive missing closing '>'",
        ]
    "##]]
    .assert_debug_eq(&errors("<Directory />\n</Directory >\n"));
    expect![[r##"
        [
            "<Directory> directive missing closing '>'",
        ]
    "##]]
    .assert_debug_eq(&errors("<Directory /var/www\n</Directory>\n"));
    expect![[r##"
        [
            "<Directory> directive requires additional arguments",
        ]
    "##]]
    .assert_debug_eq(&errors("<Directory>\n</Directory>\n"));
    expect![[r##"
        [
            "Multiple <Directory> arguments not (yet) supported.",
        ]
    "##]]
    .assert_debug_eq(&errors("<Directory /a /b>\n</Directory>\n"));
    expect![[r##"
        [
            "<RequireAll> directive doesn't take additional arguments",
        ]
    "##]]
    .assert_debug_eq(&errors("<RequireAll x>\n</RequireAll>\n"));
    // A closer of another name already says the section is not closed.
    expect![[r##"
        [
            "Expected </Directory> but saw </Location>",
        ]
    "##]]
    .assert_debug_eq(&errors("<Directory \\\n />\n</Location>\n"));
}

/// `<Name` alone is `<Name>` to httpd (it hands the opener the arguments `>`); mod_version
/// looks for an `<IfVersion` opener's `>` at the end of its words, not anywhere.
#[test]
fn openers_without_their_gt_read_like_httpd() {
    check(
        "<Location \n</Location>\n",
        expect![[r#"
            SOURCE_FILE@0..23
              SECTION@0..23
                SECTION_HEADER@0..11
                  L_ANGLE@0..1 "<"
                  NAME@1..9
                    WORD@1..9 "Location"
                  WHITESPACE@9..10 " "
                  NEWLINE@10..11 "\n"
                SECTION_CLOSER@11..23
                  L_ANGLE_SLASH@11..13 "</"
                  NAME@13..21
                    WORD@13..21 "Location"
                  R_ANGLE@21..22 ">"
                  NEWLINE@22..23 "\n"
            error 0..10: <Location> directive requires additional arguments
        "#]],
    );
    expect![[r##"
        [
            "<IfVersion> directive missing closing '>'",
            "<IfVersion> directive missing closing '>'",
            "<IfVersion takes one, two or three arguments, a comparison operator, a version (and a delimiter)",
            "Version appears to be invalid. It must have the format major[.minor[.patch]] where major, minor and patch are numbers.",
            "unrecognized operator '!'",
            "Missing delimiting / of regular expression.",
        ]
    "##]]
    .assert_debug_eq(&errors(concat!(
        "<IfVersion >= 2.4\n</IfVersion>\n<IfVersion >= 2.4>x\n</IfVersion>\n<IfVersion a b c d>\n</IfVersion>\n",
        "<IfVersion>\n</IfVersion>\n<IfVersion ! 2.4>\n</IfVersion>\n<IfVersion = /2>\n</IfVersion>\n",
        "<IfVersion >= 2.4 >\n</IfVersion>\n<IfVersion 2.4.1.>\n</IfVersion>\n<IfVersion ~ x>\n</IfVersion>\n<IfVersion \"2>\"\n</IfVersion>\n",
    )));
}

#[test]
fn text_after_section_markers_is_ignored_trailing() {
    let p = parse("<Directory />  junk\n</Directory> more\n");
    assert!(p.errors.is_empty());
    assert!(debug_tree(&p.syntax_node()).contains("TRAILING"));
}

#[test]
fn unclosed_sections_report_on_opener_lines_innermost_first() {
    let p = parse("<VirtualHost *:80>\n<Directory />\n");
    let msgs: Vec<_> = p.errors.iter().map(|e| (u32::from(e.range.start()), e.message.clone())).collect();
    assert_eq!(
        msgs,
        vec![(0, "<VirtualHost> was not closed.".to_string()), (19, "<Directory> was not closed.".to_string())]
    );
}

#[test]
fn deep_nesting_does_not_overflow() {
    let n: usize = std::env::var("DEPTH").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let mut s = String::new();
    for _ in 0..n {
        s.push_str("<IfModule x>\n");
    }
    for _ in 0..n {
        s.push_str("</IfModule>\n");
    }
    let p = parse(&s);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors.first());
    assert!(p.errors[0].message.contains("nested more than"));
    assert_eq!(p.syntax_node().text().to_string(), s);
}

fn test_data(dir: &str) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test_data").join(dir);
    let mut v: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "conf"))
        .collect();
    v.sort();
    v
}

#[test]
fn test_data_ok_files_parse_cleanly() {
    for path in test_data("ok") {
        let src = std::fs::read_to_string(&path).unwrap();
        let p = parse(&src);
        assert!(p.errors.is_empty(), "{}: {:?}", path.display(), p.errors);
        expect_file![path.with_extension("rast")].assert_eq(&render(&src));
    }
}

#[test]
fn test_data_err_files_have_errors() {
    for path in test_data("err") {
        let src = std::fs::read_to_string(&path).unwrap();
        assert!(!parse(&src).errors.is_empty(), "{} should have errors", path.display());
        expect_file![path.with_extension("rast")].assert_eq(&render(&src));
    }
}

#[test]
fn typed_accessors_tolerate_missing_pieces() {
    let p = parse("<\n</>\n\"\n");
    for item in p.tree().items() {
        let _ = item.syntax().text();
    }
    let _ = p.tree().syntax().text();
}

mod props {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn any_text_round_trips(s in "(?s).{0,300}") {
            let p = crate::parse(&s);
            prop_assert_eq!(p.syntax_node().text().to_string(), s);
        }

        #[test]
        fn config_like_text_round_trips(s in proptest::collection::vec(prop_oneof![
            Just("<Directory /x>"), Just("</Directory>"), Just("<If \"a > b\">"), Just("</If >"),
            Just("Require all granted"), Just("\\\n"), Just("\r\n"), Just("\n"), Just("# c \\"),
            Just("\"q\\\"x"), Just("'"), Just("${V}"), Just(" "), Just("\t"), Just("<"), Just(">"),
            Just("é😀"), Just("\\"), Just("\0"), Just("<Location"), Just("<IfVersion >= 2.4"),
        ], 0..60)) {
            let s: String = s.concat();
            let p = crate::parse(&s);
            prop_assert_eq!(p.syntax_node().text().to_string(), s);
        }

        #[test]
        fn trim_blanks_trims_httpd_s_blanks_only(s in "[ \t\r\n\x0b\x0ca é😀\u{a0}]{0,12}") {
            let by_char = s.trim_matches(|c: char| c.is_ascii() && crate::lexer::is_space(c as u8));
            prop_assert_eq!(crate::ast::trim_blanks(&s), by_char);
        }

        #[test]
        fn has_var_ref_is_a_search_for_dollar_brace(s in "[${}a é]{0,20}") {
            prop_assert_eq!(crate::ast::has_var_ref(&s), s.contains("${"));
        }
    }
}

#[test]
fn a_nul_byte_ends_the_line_for_httpd() {
    // httpd measures each physical line with strlen: after a NUL nothing is read,
    // not even a continuation backslash (checked with apache2 -t: `Require all\0granted`
    // fails with "Argument for 'Require all' must be 'granted' or 'denied'").
    check(
        "Require all\0granted \\\nServerName x\n",
        expect![[r#"
            SOURCE_FILE@0..35
              DIRECTIVE@0..22
                NAME@0..7
                  WORD@0..7 "Require"
                WHITESPACE@7..8 " "
                ARGUMENT@8..11
                  WORD@8..11 "all"
                NUL_TAIL@11..21 "\0granted \\"
                NEWLINE@21..22 "\n"
              DIRECTIVE@22..35
                NAME@22..32
                  WORD@22..32 "ServerName"
                WHITESPACE@32..33 " "
                ARGUMENT@33..34
                  WORD@33..34 "x"
                NEWLINE@34..35 "\n"
            error 11..21: a NUL byte: httpd's reader ends the line here and ignores the rest of it
        "#]],
    );
    let p = parse("A \\\nB\0C\r\nD\0");
    assert_eq!(p.syntax_node().text().to_string(), "A \\\nB\0C\r\nD\0");
    let d: Vec<String> = p
        .tree()
        .items()
        .filter_map(|i| match i {
            crate::ast::Item::Directive(d) => Some(d.logical_text()),
            _ => None,
        })
        .collect();
    assert_eq!(d, vec!["A B", "D"]);
}

#[test]
fn lines_of_16_mib_are_too_long_for_httpd() {
    let ok = format!("ServerAdmin {}\n", "a".repeat(crate::MAX_LINE - 13));
    assert!(parse(&ok).errors.is_empty());
    let long = format!("ServerAdmin {}\nServerName x\n", "a".repeat(crate::MAX_LINE - 12));
    let p = parse(&long);
    assert_eq!(p.errors.len(), 1);
    assert!(p.errors[0].message.starts_with("Line too long"), "{}", p.errors[0].message);
    assert_eq!(p.syntax_node().text().to_string(), long);
}

/// Raw arguments lose only the blanks httpd's `apr_isspace` knows: a no-break space at
/// the end of a section's or a directive's arguments is part of them, in both parsers.
#[test]
fn raw_args_keep_a_trailing_no_break_space() {
    let src = "<Directory /srv/x\u{a0}>\n  Require ip 10.0.0.1\u{a0}\t\n</Directory>\n";
    let root = parse(src).syntax_node();
    let section = root.descendants().find_map(crate::ast::Section::cast).expect("a section");
    assert_eq!(section.header().expect("a header").raw_args(), "/srv/x\u{a0}");
    let directive = root.descendants().find_map(crate::ast::Directive::cast).expect("a directive");
    assert_eq!(directive.raw_args(), "ip 10.0.0.1\u{a0}");
    let flat = crate::parse_flat(src);
    let header = (0..flat.nodes.len()).find(|&i| flat.nodes[i].kind == crate::SyntaxKind::SECTION_HEADER);
    assert_eq!(flat.header_raw_args(src, header.expect("a flat header")), "/srv/x\u{a0}");
}

/// `start_cond_section` reads the first word after a leading `!`: an empty one (`""`, `''`,
/// nothing) is refused like a missing argument; `"!"` and `! name` are conditions.
#[test]
fn a_condition_with_an_empty_first_word_is_refused() {
    expect![[r#"
        [
            "<IfModule> directive requires additional arguments",
            "<IfDefine> directive requires additional arguments",
            "<IfFile> directive requires additional arguments",
            "<IfModule> directive requires additional arguments",
        ]
    "#]].assert_debug_eq(&errors(
        "<IfModule \"\">\n</IfModule>\n<IfDefine !>\n</IfDefine>\n<IfFile ''>\n</IfFile>\n<IfModule !\"\" x>\n</IfModule>\n",
    ));
    assert!(errors("<IfModule \"!\">\n</IfModule>\n<IfModule ! mod_alias.c>\n</IfModule>\n").is_empty());
    assert!(errors("<IfDefine !X>\n</IfDefine>\n<IfModule \"x\"y>\n</IfModule>\n").is_empty());
}

/// core.c's `ifsection` refuses any text before an `<Else>`'s `>` (a condition written out of
/// habit, an empty quoted word, a second `>`), in words of its own; blanks alone are nothing.
#[test]
fn an_else_takes_no_argument() {
    let src = "<Else x>\n</Else>\n<Else \"\">\n</Else>\n<ELSE > >\n</ELSE>\n<Else \\\n  \"%{REMOTE_ADDR} == '1.2.3.4'\">\n</Else>\n";
    expect![[r#"
        [
            "<Else> does not take an argument",
            "<Else> does not take an argument",
            "<Else> does not take an argument",
            "<Else> does not take an argument",
        ]
    "#]]
    .assert_debug_eq(&errors(src));
    assert!(errors("<Else>\n</Else>\n<Else   >\n</Else>\n<Else\n</Else>\n").is_empty());
}

/// `<Name> words`: httpd hands the section's handler the words after `<Name>`, and with no `>`
/// among them the handler says the opener misses its `>` (not that it has no argument).
#[test]
fn words_after_a_closed_section_name_are_an_opener_without_its_gt() {
    expect![[r#"
        [
            "<Directory> directive missing closing '>'",
            "<Else> directive missing closing '>'",
            "<IfVersion> directive missing closing '>'",
        ]
    "#]]
    .assert_debug_eq(&errors(
        "<Directory> /srv\n</Directory>\n<Else> # otherwise\n</Else>\n<IfVersion> >= 2.4\n</IfVersion>\n",
    ));
    // Unknown names are not judged here (httpd: Invalid command), nor a blank after the `>`.
    assert!(errors("<Foo> x\n</Foo>\n<Directory> \t\n</Directory>\n").iter().all(|e| !e.contains("closing '>'")));
}
