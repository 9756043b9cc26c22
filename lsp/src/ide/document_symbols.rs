//! Feature: the outline of a file — its sections and their nesting.
//!
//! Labels read like the section header (`Directory /var/www`); a virtual host
//! adds its ServerName: `VirtualHost *:80 (example.com)`.

use apache_syntax::ast::{self, AstNode};
use apache_syntax::{Parse, TextRange};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StructureKind {
    VirtualHost,
    /// A read-time conditional (`<IfModule>`, `<IfDefine>`…).
    Conditional,
    /// A request-matching section (`<Directory>`, `<Location>`, `<Files>`, `<If>`…).
    Container,
    /// An authorization container or method limit (`<RequireAll>`, `<Limit>`).
    AccessBlock,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructureNode {
    pub parent: Option<usize>,
    pub label: String,
    pub detail: Option<String>,
    pub kind: StructureKind,
    /// The whole section.
    pub node_range: TextRange,
    /// The header, where the cursor goes.
    pub navigation_range: TextRange,
}

pub fn document_symbols(parse: &Parse) -> Vec<StructureNode> {
    let mut out = Vec::new();
    // Iterative walk: (section, parent index).
    let mut stack: Vec<(ast::Section, Option<usize>)> = Vec::new();
    let root = parse.tree();
    for item in root.items().collect::<Vec<_>>().into_iter().rev() {
        if let ast::Item::Section(s) = item {
            stack.push((s, None));
        }
    }
    while let Some((s, parent)) = stack.pop() {
        let name = s.name_text();
        let args: Vec<String> = s.args().map(|a| a.value()).collect();
        let mut label = if args.is_empty() { name.clone() } else { format!("{} {}", name, args.join(" ")) };
        let lname = name.to_ascii_lowercase();
        let kind = match lname.as_str() {
            "virtualhost" => StructureKind::VirtualHost,
            "ifmodule" | "ifdefine" | "ifversion" | "iffile" | "ifdirective" | "ifsection" => {
                StructureKind::Conditional
            }
            "directory" | "directorymatch" | "location" | "locationmatch" | "files" | "filesmatch" | "if"
            | "elseif" | "else" | "proxy" | "proxymatch" => StructureKind::Container,
            "requireall" | "requireany" | "requirenone" | "limit" | "limitexcept" => StructureKind::AccessBlock,
            _ => StructureKind::Other,
        };
        let mut detail = None;
        if kind == StructureKind::VirtualHost {
            let names: Vec<String> = s
                .items()
                .filter_map(|i| match i {
                    ast::Item::Directive(d) => Some(d),
                    _ => None,
                })
                .filter(|d| {
                    d.name().is_some_and(|n| {
                        let t = n.text();
                        t.eq_ignore_ascii_case("ServerName") || t.eq_ignore_ascii_case("ServerAlias")
                    })
                })
                .flat_map(|d| d.args().map(|a| a.value()).collect::<Vec<_>>())
                .collect();
            if let Some(first) = names.first() {
                label = format!("{label} ({first})");
            }
            if names.len() > 1 {
                detail = Some(names[1..].join(" "));
            }
        }
        let navigation_range = s.header().map(|h| h.syntax().text_range()).unwrap_or(s.syntax().text_range());
        let idx = out.len();
        out.push(StructureNode { parent, label, detail, kind, node_range: s.syntax().text_range(), navigation_range });
        let children: Vec<_> = s
            .items()
            .filter_map(|i| match i {
                ast::Item::Section(c) => Some(c),
                _ => None,
            })
            .collect();
        for c in children.into_iter().rev() {
            stack.push((c, Some(idx)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn check(src: &str) -> String {
        document_symbols(&apache_syntax::parse(src))
            .iter()
            .map(|n| format!("{:?} {:?} {:?} {:?}\n", n.parent, n.label, n.kind, n.node_range))
            .collect()
    }

    #[test]
    fn virtual_host_label_names_its_server() {
        expect![[r#"
            None "VirtualHost *:80 (example.com)" VirtualHost 0..146
            Some(0) "Directory /var/www" Container 70..131
            Some(1) "RequireAny" AccessBlock 91..118
        "#]]
        .assert_eq(&check("<VirtualHost *:80>\nServerName example.com\nServerAlias www.example.com\n<Directory /var/www>\n<RequireAny>\n</RequireAny>\n</Directory>\n</VirtualHost>\n"));
    }
}
