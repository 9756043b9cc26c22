//! Feature: workspace symbols — every virtual host by each of its names
//! (ServerName, ServerAlias; its address when it has none), every
//! request-matching or other named section by its argument, and every `Define`,
//! across the configurations of the workspace, found with fuzzy matching.
//!
//! Symbols come from the expanded tree, as httpd reads it: `${VAR}` substituted,
//! sections under a false `<IfModule>`/`<IfDefine>` absent, an Include'd file's
//! sections listed once even when it is read twice.
//!
//! Matching works like rust-analyzer's symbol search: the query's characters must
//! appear in the name in order, without regard to case (`exmpl` finds
//! `www.example.com`); exact names rank first, then prefixes, then substrings,
//! then scattered matches, tighter ones before looser.

use crate::ide::config::{Config, FileData, Node};
use apache_syntax::TextRange;
use std::collections::HashSet;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// A name a `<VirtualHost>` answers to.
    VirtualHost,
    /// A section named by its argument (`<Directory /var/www>` is `/var/www`).
    Section,
    /// A `Define`d variable.
    Define,
}

#[derive(Debug, Clone)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// What holds it, to tell equal names apart: `VirtualHost *:443`, `Directory in VirtualHost *:80 (example.com)`.
    pub container: Option<String>,
    pub file: Arc<FileData>,
    /// The whole section or directive, and the part to select (its header or name).
    pub full_range: TextRange,
    pub focus_range: TextRange,
}

/// Sections that are not worth a symbol: access blocks and method limits carry no name.
fn unnamed(section: &str) -> bool {
    matches!(
        section.to_ascii_lowercase().as_str(),
        "requireall" | "requireany" | "requirenone" | "limit" | "limitexcept" | "else"
    )
}

/// What to select: a section's header, or the variable's name in a `Define`.
fn focus(text: &str, n: &Node, name: &str) -> TextRange {
    let at = |o: usize| apache_syntax::TextSize::from(o as u32);
    if !n.is_section() {
        let (start, end) = (usize::from(n.loc.focus.end()), usize::from(n.loc.range.end()));
        if let Some(i) = text.get(start..end).and_then(|rest| rest.find(name)) {
            return TextRange::at(at(start + i), at(name.len()));
        }
        return n.loc.focus;
    }
    let header = &text[n.loc.focus];
    let lead = header.len() - header.trim_start().len();
    TextRange::at(n.loc.focus.start() + at(lead), at(header.trim().len()))
}

/// Every symbol of a loaded configuration, in configuration order, each once.
pub fn symbols(cfg: &Config) -> Vec<Symbol> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    // (node, label of the enclosing virtual host)
    let mut stack: Vec<(&Node, Option<String>)> = cfg.nodes.iter().rev().map(|n| (n, None)).collect();
    while let Some((n, vhost)) = stack.pop() {
        let mut push = |name: String, kind: SymbolKind, container: Option<String>, out: &mut Vec<Symbol>| {
            if name.is_empty() || !seen.insert((n.loc.file, n.loc.range, name.clone())) {
                return;
            }
            let file = cfg.files[n.loc.file].clone();
            let full_range = cfg.trimmed(&n.loc);
            let focus_range = focus(&file.text, n, &name);
            out.push(Symbol { name, kind, container, file, full_range, focus_range });
        };
        if n.is_section() && n.is("VirtualHost") {
            let address = n.args().join(" ");
            let names: Vec<&str> = n
                .children
                .iter()
                .filter(|c| !c.is_section() && (c.is("ServerName") || c.is("ServerAlias")))
                .flat_map(|c| c.args())
                .collect();
            if names.is_empty() {
                push(address.clone(), SymbolKind::VirtualHost, Some("VirtualHost".into()), &mut out);
            }
            for name in &names {
                push(name.to_string(), SymbolKind::VirtualHost, Some(format!("VirtualHost {address}")), &mut out);
            }
            let label = match names.first() {
                Some(first) => format!("VirtualHost {address} ({first})"),
                None => format!("VirtualHost {address}"),
            };
            stack.extend(n.children.iter().rev().map(|c| (c, Some(label.clone()))));
            continue;
        }
        if n.is_section() {
            if !unnamed(n.name()) && !n.args().is_empty() {
                let container = match &vhost {
                    Some(v) => format!("{} in {v}", n.name()),
                    None => n.name().to_string(),
                };
                push(n.args().join(" "), SymbolKind::Section, Some(container), &mut out);
            }
            stack.extend(n.children.iter().rev().map(|c| (c, vhost.clone())));
        } else if n.is("Define") {
            if let Some(name) = n.args().first() {
                push(name.to_string(), SymbolKind::Define, n.arg(1).map(str::to_string), &mut out);
            }
        }
    }
    out
}

/// How well `query` matches `name`: lower is better, None when it does not.
pub fn fuzzy_score(query: &str, name: &str) -> Option<(u8, usize)> {
    let q: Vec<char> = query.chars().flat_map(char::to_lowercase).collect();
    let n: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    if q.is_empty() {
        return Some((4, 0));
    }
    if q == n {
        return Some((0, 0));
    }
    if n.starts_with(&q) {
        return Some((1, n.len() - q.len()));
    }
    if n.windows(q.len()).any(|w| w == q.as_slice()) {
        return Some((2, n.len() - q.len()));
    }
    // Scattered: greedy leftmost match, scored by the span it covers.
    let mut qi = 0;
    let (mut first, mut last) = (None, 0);
    for (i, c) in n.iter().enumerate() {
        if qi < q.len() && *c == q[qi] {
            first.get_or_insert(i);
            last = i;
            qi += 1;
        }
    }
    (qi == q.len()).then(|| (3, last + 1 - first.unwrap_or(0) - q.len()))
}

/// The symbols matching `query`, best first, at most `limit`.
pub fn search<'a>(symbols: impl IntoIterator<Item = &'a Symbol>, query: &str, limit: usize) -> Vec<&'a Symbol> {
    let query = query.trim();
    let mut hits: Vec<((u8, usize), &Symbol)> =
        symbols.into_iter().filter_map(|s| fuzzy_score(query, &s.name).map(|k| (k, s))).collect();
    if query.is_empty() {
        // Nothing to rank by: configuration order.
        return hits.into_iter().take(limit).map(|(_, s)| s).collect();
    }
    hits.sort_by(|(a, x), (b, y)| a.cmp(b).then(x.name.len().cmp(&y.name.len())).then(x.name.cmp(&y.name)));
    hits.into_iter().take(limit).map(|(_, s)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::navigation::tests::load_fixture;
    use expect_test::{expect, Expect};

    const TREE: &str = r#"
//- /etc/apache2/apache2.conf
ServerRoot /etc/apache2
Define SITE exämple.org
Include sites/*.conf
Include sites/main.conf
<Directory /var/www/>
  <RequireAll>
  </RequireAll>
</Directory>
<IfModule mod_nope.c>
<Location /hidden>
</Location>
</IfModule>
//- /etc/apache2/sites/main.conf
<VirtualHost *:80>
  ServerName ${SITE}
  ServerAlias www.${SITE} static.example.org
  <Location /server-status>
  </Location>
</VirtualHost>
<VirtualHost 127.0.0.1:8080>
</VirtualHost>
"#;

    fn check(query: &str, expect: Expect) {
        let l = load_fixture(TREE);
        let all = symbols(&l.cfg);
        let got: String = search(&all, query, 100)
            .iter()
            .map(|s| {
                format!(
                    "{:?} {:?} [{}] {}:{} {:?}\n",
                    s.kind,
                    s.name,
                    s.container.as_deref().unwrap_or(""),
                    s.file.path.display(),
                    s.file.line_of(s.focus_range.start()),
                    &s.file.text[s.focus_range]
                )
            })
            .collect();
        expect.assert_eq(&got);
    }

    #[test]
    fn every_symbol_of_the_tree_once() {
        check(
            "",
            expect![[r#"
                Define "SITE" [exämple.org] /etc/apache2/apache2.conf:2 "SITE"
                VirtualHost "exämple.org" [VirtualHost *:80] /etc/apache2/sites/main.conf:1 "<VirtualHost *:80>"
                VirtualHost "www.exämple.org" [VirtualHost *:80] /etc/apache2/sites/main.conf:1 "<VirtualHost *:80>"
                VirtualHost "static.example.org" [VirtualHost *:80] /etc/apache2/sites/main.conf:1 "<VirtualHost *:80>"
                Section "/server-status" [Location in VirtualHost *:80 (exämple.org)] /etc/apache2/sites/main.conf:4 "<Location /server-status>"
                VirtualHost "127.0.0.1:8080" [VirtualHost] /etc/apache2/sites/main.conf:7 "<VirtualHost 127.0.0.1:8080>"
                Section "/var/www/" [Directory] /etc/apache2/apache2.conf:5 "<Directory /var/www/>"
            "#]],
        );
    }

    #[test]
    fn fuzzy_query_ranks_prefix_then_substring_then_scattered() {
        check(
            "st",
            expect![[r#"
                VirtualHost "static.example.org" [VirtualHost *:80] /etc/apache2/sites/main.conf:1 "<VirtualHost *:80>"
                Section "/server-status" [Location in VirtualHost *:80 (exämple.org)] /etc/apache2/sites/main.conf:4 "<Location /server-status>"
                Define "SITE" [exämple.org] /etc/apache2/apache2.conf:2 "SITE"
            "#]],
        );
    }

    #[test]
    fn non_ascii_and_case_insensitive() {
        check(
            "WWW.EXÄ",
            expect![[r#"
                VirtualHost "www.exämple.org" [VirtualHost *:80] /etc/apache2/sites/main.conf:1 "<VirtualHost *:80>"
            "#]],
        );
    }

    #[test]
    fn scores() {
        assert_eq!(fuzzy_score("abc", "abc"), Some((0, 0)));
        assert_eq!(fuzzy_score("ab", "abc"), Some((1, 1)));
        assert_eq!(fuzzy_score("bc", "abc"), Some((2, 1)));
        assert_eq!(fuzzy_score("ac", "abc"), Some((3, 1)));
        assert_eq!(fuzzy_score("ca", "abc"), None);
    }
}
