//! Check: `<Else>` and `<ElseIf>` sections httpd refuses because no `<If>` or `<ElseIf>`
//! comes before them in the same scope.
//!
//! httpd (core.c, `ap_add_if_conf`) keeps the `<If>`-family sections of each configuration
//! record in a list, and refuses an `<Else>`/`<ElseIf>` unless the list's last entry is an
//! `<If>` or `<ElseIf>`. So only the If-family sections of the same record count: directives
//! and other sections between them do not, `<IfModule>`/`<IfDefine>` bodies (spliced in by the
//! loader, as are included files) belong to the record around them, and the main server, each
//! `<VirtualHost>`, each `<Directory>`/`<Location>`/`<Files>`/`<Proxy>` section and each
//! `<If>`-family body is a record of its own. A server configuration then does not start; an
//! .htaccess file answers 500.
//!
//! The findings depend on section headers only (an edit that changes one loads the
//! configuration again), so they are kept across the editor's local edits.

use super::Diagnostic;
use crate::ide::config::{Config, Node, Severity, TopLevel};

/// What came last among the If-family sections of a scope.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    /// None yet: an `<Else>` here is refused.
    Nothing,
    /// An `<If>` or `<ElseIf>`: an `<Else>`/`<ElseIf>` may follow.
    Open,
    /// An `<Else>`: another `<Else>`/`<ElseIf>` is refused.
    Closed,
    /// Not known here (the top level of a fragment, or after a mod_macro `Use` line whose
    /// expansion may hold sections): nothing is claimed.
    Unknown,
}

/// Whether a section's body is a configuration record of its own, in which httpd reads
/// `<If>`-family sections.
fn own_scope(name: &str) -> bool {
    matches!(
        name,
        "VirtualHost"
            | "Directory"
            | "DirectoryMatch"
            | "Location"
            | "LocationMatch"
            | "Files"
            | "FilesMatch"
            | "Proxy"
            | "ProxyMatch"
            | "If"
            | "ElseIf"
            | "Else"
    )
}

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    // An .htaccess file no server reads answers nothing.
    if super::never_read(cfg) {
        return;
    }
    // A fragment's top level continues whatever includes it.
    let start = if cfg.top == TopLevel::Fragment { Last::Unknown } else { Last::Nothing };
    let mut scopes: Vec<(&[Node], Last)> = vec![(&cfg.nodes, start)];
    while let Some((body, mut last)) = scopes.pop() {
        for node in body {
            if !node.is_section() {
                if node.known() == "Use" {
                    last = Last::Unknown;
                }
                continue;
            }
            let name = node.known();
            match name {
                "If" => last = Last::Open,
                "ElseIf" | "Else" => {
                    if matches!(last, Last::Nothing | Last::Closed) {
                        out.push(finding(cfg, node, name, last));
                    }
                    if last != Last::Unknown {
                        last = if name == "Else" { Last::Closed } else { Last::Open };
                    }
                }
                _ => {}
            }
            if own_scope(name) && !node.children.is_empty() {
                scopes.push((&node.children, Last::Nothing));
            }
        }
    }
}

fn finding(cfg: &Config, node: &Node, name: &str, last: Last) -> Diagnostic {
    let before = match last {
        Last::Closed => "the If-family section before it in the same scope is an <Else>, which ends the chain",
        _ => "no <If> or <ElseIf> section comes before it in the same scope",
    };
    let message = format!(
        "<{name}> without a preceding <If> or <ElseIf>: {before} (only If-family sections count, in the \
         body of the same <VirtualHost>, <Directory>, <Location>, <Files> or <If>, or at the top level; \
         <IfModule>/<IfDefine> bodies and included files belong to the scope around them); {}",
        super::consequence(cfg)
    );
    Diagnostic::new(node.loc.file, node.loc.focus, Severity::Error, "else-without-if", message)
}

#[cfg(test)]
mod tests {
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;
    use std::path::Path;

    /// The lines (1-based) of the findings on a fixture (`//- /path` starts a file; the first
    /// one is the main configuration, `/c/main.conf` when the text names none).
    fn lines(text: &str) -> Vec<u32> {
        let text = if text.starts_with("//- ") { text.to_string() } else { format!("//- /c/main.conf\n{text}") };
        let fx = Fixture::parse(&text);
        let cfg = load(Path::new(&fx.0[0].0), &fx);
        let mut out = Vec::new();
        super::check(&cfg, &mut out);
        out.sort_by_key(|d| (d.file, d.range.start()));
        out.iter().map(|d| cfg.file(d.file).line_of(d.range.start())).collect()
    }

    #[test]
    fn an_else_needs_an_if_family_section_before_it_in_its_scope() {
        // Directives and other sections between them do not matter.
        assert_eq!(
            lines("<If \"true\">\n</If>\nServerName a\n<Directory /x>\n</Directory>\n<Else>\n</Else>\n"),
            [0u32; 0]
        );
        assert_eq!(
            lines(
                "<If \"true\">\n</If>\n<ElseIf \"false\">\n</ElseIf>\n<ElseIf \"true\">\n</ElseIf>\n<Else>\n</Else>\n"
            ),
            [0u32; 0]
        );
        // Nothing before, or an <Else> before.
        assert_eq!(lines("ServerName a\n<Else>\n</Else>\n"), [2]);
        assert_eq!(
            lines("<If \"true\">\n</If>\n<Else>\n</Else>\n<Else>\n</Else>\n<ElseIf \"true\">\n</ElseIf>\n"),
            [5, 7]
        );
    }

    #[test]
    fn each_section_body_is_a_scope_of_its_own_but_conditional_ones() {
        // The <If> in the main server does not reach into the virtual host, nor one <Directory>'s into another's.
        assert_eq!(lines("<If \"true\">\n</If>\n<VirtualHost *:80>\n<Else>\n</Else>\n</VirtualHost>\n"), [4]);
        assert_eq!(
            lines(
                "<Directory /x>\n<If \"true\">\n</If>\n</Directory>\n<Directory /x>\n<Else>\n</Else>\n</Directory>\n"
            ),
            [6]
        );
        // Inside an <If> body, a scope of its own.
        assert_eq!(lines("<If \"true\">\n<Else>\n</Else>\n</If>\n"), [2]);
        // <IfModule> bodies are spliced into the scope around them.
        assert_eq!(lines("<IfModule !mod_nothing.c>\n<If \"true\">\n</If>\n</IfModule>\n<Else>\n</Else>\n"), [0u32; 0]);
        assert_eq!(lines("<If \"true\">\n</If>\n<IfModule !mod_nothing.c>\n<Else>\n</Else>\n</IfModule>\n"), [0u32; 0]);
    }

    #[test]
    fn included_files_belong_to_the_scope_of_their_include_line() {
        let fx = "//- /c/main.conf\n<If \"true\">\n</If>\nInclude /c/more.conf\n//- /c/more.conf\n# comment\n<Else>\n</Else>\n";
        assert_eq!(lines(fx), [0u32; 0]);
        let fx =
            "//- /c/main.conf\nInclude /c/more.conf\n<ElseIf \"true\">\n</ElseIf>\n//- /c/more.conf\n<Else>\n</Else>\n";
        // (main.conf's finding first: files in load order.)
        assert_eq!(lines(fx), [2, 1]);
    }

    #[test]
    fn a_macro_use_line_may_hold_the_if() {
        assert_eq!(lines("Use M\n<Else>\n</Else>\n"), [0u32; 0]);
    }
}
