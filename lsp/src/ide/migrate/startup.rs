//! Access lines inside a conditional section whose test depends on how httpd is started:
//! `<IfDefine>` (the `-D` flags of the command line, which no file shows), `<IfModule>` (the
//! modules loaded), `<IfVersion>` (the release), `<IfFile>` (a file present at start-up),
//! `<IfDirective>`/`<IfSection>` (the modules again).
//!
//! The proof asks httpd's answers with the configuration as it stands, where each such test has
//! one truth. A rewrite joins a body's old-style lines and Require elements into one block: a
//! Require line taken out of a true `<IfDefine !X>` then applies under `-D X` too, and Require
//! lines written beside old-style lines a false `<IfDefine X>` holds meet them once httpd is
//! started with `-D X` (both read, and mod_access_compat's answer joined to Require's). Either
//! way the rewritten tree answers some request otherwise when the test turns. Such a body is
//! left, naming the conditional.
//!
//! Tests that hold on every 2.4 server stay out of this: `<IfModule mod_authz_core.c>` and
//! `<IfModule mod_authz_host.c>` (the Require lines a rewrite writes need them: without them httpd
//! refuses to start rather than answer otherwise), a module compiled into httpd, a version test every 2.4 release passes; so
//! do the ones [`super::dead`] removes and the mod_access_compat guards [`super::guards`] handles.

use super::body::is_compat;
use super::dead::names_pre_24;
use crate::ide::config::modules::{source_to_id, BUILTIN};
use apache_syntax::ast::{self, AstNode};
use apache_syntax::{SyntaxNode, TextRange, TextSize};

/// The conditional sections httpd evaluates as it reads the configuration.
const CONDITIONALS: &[&str] = &["IfDefine", "IfModule", "IfVersion", "IfFile", "IfDirective", "IfSection"];

fn is_conditional(name: &str) -> bool {
    CONDITIONALS.iter().any(|c| c.eq_ignore_ascii_case(name))
}

fn is_limit(name: &str) -> bool {
    name.eq_ignore_ascii_case("Limit") || name.eq_ignore_ascii_case("LimitExcept")
}

/// What a conditional's truth depends on, or None where it is the same on every 2.4 server
/// able to read the body's Require lines.
fn depends_on(name: &str, args: &[String]) -> Option<&'static str> {
    let first = args.first().map(String::as_str).unwrap_or("");
    if names_pre_24(name, args) || super::guards::tests_compat(first).is_some() {
        return None;
    }
    match name.to_ascii_lowercase().as_str() {
        "ifdefine" => Some("the -D flags httpd is started with"),
        "ifmodule" => {
            // (Either way: a compiled-in module is always there, and lines a rewrite writes
            // for the other two make httpd refuse to start without them.)
            let module = first.strip_prefix('!').unwrap_or(first);
            let id = if module.ends_with(".c") { source_to_id(module) } else { Some(module.to_string()) };
            // (Without mod_authz_core or mod_authz_host, httpd refuses at start-up the Require
            // lines a rewrite writes: it does not answer otherwise.)
            let needed = |id: &str| matches!(id, "authz_core_module" | "authz_host_module");
            let always = id.is_some_and(|id| needed(&id) || BUILTIN.contains(&id.as_str()));
            (!always).then_some("the modules httpd loads")
        }
        "ifversion" => (!super::dead::version_holds_on_24(args)).then_some("the release of httpd that reads it"),
        "iffile" => Some("whether the file it names exists when httpd starts"),
        _ => Some("the modules httpd loads"),
    }
}

/// Why a body's rewrite cannot be proven for every way httpd may be started: its first access
/// line (old-style, a Require element, a `<Limit>` holding them) inside a conditional section
/// whose test depends on the start-up. `within`: the body's section in `text`, header to
/// closer, or None for an .htaccess file's top level.
pub(super) fn startup_dependent(text: &str, within: Option<TextRange>) -> Option<String> {
    let section = within.is_some();
    let within = within.unwrap_or_else(|| TextRange::up_to(TextSize::of(text)));
    let slice = &text[within];
    // (Nothing to parse in the usual body.)
    if !slice.as_bytes().windows(3).any(|w| w[0] == b'<' && w[1..].eq_ignore_ascii_case(b"if")) {
        return None;
    }
    let root = apache_syntax::parse(slice).syntax_node();
    // The body's own section, whose nested sections other than conditionals and <Limit> are
    // bodies of their own.
    let outer = if section { root.descendants().find_map(ast::Section::cast) } else { None };
    let line_of = |at: TextSize| text[..usize::from(at + within.start())].matches('\n').count() + 1;
    for s in root.descendants().filter_map(ast::Section::cast) {
        let name = s.name_text();
        if !is_conditional(&name) || !own(s.syntax(), outer.as_ref().map(|o| o.syntax())) {
            continue;
        }
        let Some(header) = s.header() else { continue };
        let args = apache_syntax::split_words(&header.raw_args());
        let Some(why) = depends_on(&name, &args) else { continue };
        let Some(line) = first_access_line(s.syntax()) else { continue };
        let head = slice[header.syntax().text_range()].trim();
        return Some(format!(
            "its access line {} sits inside {head} (line {}), whose test depends on {why}: the proof holds \
             for this configuration as httpd starts with it, and a rewrite would answer otherwise once the \
             test turns; rewrite it by hand",
            line_of(line),
            line_of(header.syntax().text_range().start()),
        ));
    }
    None
}

/// Whether `node` belongs to the body whose own node is `outer` (or the file's top level): every
/// section between them is a conditional or a `<Limit>`.
fn own(node: &SyntaxNode, outer: Option<&SyntaxNode>) -> bool {
    node.ancestors().skip(1).filter_map(ast::Section::cast).take_while(|a| Some(a.syntax()) != outer).all(|a| {
        let n = a.name_text();
        is_conditional(&n) || is_limit(&n)
    })
}

/// Where the first access line in a conditional's body starts: an old-style directive, a
/// Require line or container, not counting those of nested bodies.
fn first_access_line(section: &SyntaxNode) -> Option<TextSize> {
    section.descendants().find_map(|n| {
        let access = if let Some(d) = ast::Directive::cast(n.clone()) {
            d.name().is_some_and(|name| {
                let t = name.text();
                is_compat(&t) || t.eq_ignore_ascii_case("Require")
            })
        } else if let Some(s) = ast::Section::cast(n.clone()) {
            ["RequireAll", "RequireAny", "RequireNone"].iter().any(|r| s.name_text().eq_ignore_ascii_case(r))
        } else {
            false
        };
        (access && own(&n, Some(section))).then(|| n.text_range().start())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn reason(text: &str) -> String {
        let within = text.find("<Directory").map(|start| {
            let end = text.rfind("</Directory>").unwrap() + "</Directory>".len();
            TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32))
        });
        startup_dependent(text, within).unwrap_or_else(|| "none".into())
    }

    #[test]
    fn a_require_line_in_an_ifdefine_is_named() {
        let text = "# x\n<Directory /x>\n  Order deny,allow\n  Deny from 127.0.0.2\n  <IfDefine !NOIP>\n    Require ip 127.0.0.1\n  </IfDefine>\n</Directory>\n";
        expect![[r#"its access line 6 sits inside <IfDefine !NOIP> (line 5), whose test depends on the -D flags httpd is started with: the proof holds for this configuration as httpd starts with it, and a rewrite would answer otherwise once the test turns; rewrite it by hand"#]]
        .assert_eq(&reason(text));
    }

    #[test]
    fn old_lines_in_a_module_test_inside_a_limit_are_named() {
        let text = "<Directory /x>\n  Order allow,deny\n  <Limit GET>\n    <IfModule mod_ssl.c>\n      Allow from 127.0.0.2\n    </IfModule>\n  </Limit>\n</Directory>\n";
        expect![[r#"its access line 5 sits inside <IfModule mod_ssl.c> (line 4), whose test depends on the modules httpd loads: the proof holds for this configuration as httpd starts with it, and a rewrite would answer otherwise once the test turns; rewrite it by hand"#]]
        .assert_eq(&reason(text));
    }

    #[test]
    fn tests_every_24_server_passes_and_other_lines_are_not_named() {
        // Require needs mod_authz_core (and `Require ip`, mod_authz_host); mod_version is compiled in; every 2.4 passes `>= 2.4`;
        // the mod_access_compat guards and dead 2.2 branches are handled apart; a conditional
        // holding no access line, or one inside a nested <Files>, is not the body's concern.
        for text in [
            "<Directory /x>\n  Deny from all\n  <IfModule mod_authz_core.c>\n    Require all denied\n  </IfModule>\n</Directory>\n",
            "<Directory /x>\n  <IfModule mod_authz_host.c>\n    Deny from all\n  </IfModule>\n</Directory>\n",
            "<Directory /x>\n  Deny from all\n  <IfModule version_module>\n    Require all denied\n  </IfModule>\n</Directory>\n",
            "<Directory /x>\n  Deny from all\n  <IfVersion >= 2.4>\n    Require all denied\n  </IfVersion>\n</Directory>\n",
            "<Directory /x>\n  <IfModule mod_access_compat.c>\n    Deny from all\n  </IfModule>\n</Directory>\n",
            "<Directory /x>\n  Require all denied\n  <IfModule !mod_authz_core.c>\n    Deny from all\n  </IfModule>\n</Directory>\n",
            "<Directory /x>\n  Deny from all\n  <IfDefine X>\n    Options -Indexes\n  </IfDefine>\n</Directory>\n",
            "<Directory /x>\n  Deny from all\n  <Files a>\n    <IfDefine X>\n      Allow from all\n    </IfDefine>\n  </Files>\n</Directory>\n",
        ] {
            assert_eq!(reason(text), "none", "{text}");
        }
        // A version test some 2.4 release fails is named.
        let text = "<Directory /x>\n  Deny from all\n  <IfVersion = 2.4.71>\n    Require all denied\n  </IfVersion>\n</Directory>\n";
        assert!(reason(text).contains("the release of httpd"), "{}", reason(text));
    }

    #[test]
    fn an_htaccess_top_level_is_read_whole() {
        let text = "Order allow,deny\n<IfFile /etc/flag>\n  Allow from all\n</IfFile>\n";
        assert!(
            reason(text).starts_with("its access line 3 sits inside <IfFile /etc/flag> (line 2)"),
            "{}",
            reason(text)
        );
    }
}
