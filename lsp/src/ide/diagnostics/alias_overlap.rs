//! Check: an `Alias` or `ScriptAlias` (with its two words) whose URL path an earlier alias of
//! the same server already takes (httpd's warning AH00671 at startup, from mod_alias's
//! `add_alias_internal`).
//!
//! mod_alias keeps one list per server (the main server's, and each virtual host's own, filled
//! as the lines are read, before the main server's list is merged into the hosts') and tries it
//! in order: the first entry that matches maps the URL. When a new path alias is read, httpd
//! compares its URL path with each earlier entry of the same list: a path alias that takes it as
//! mod_alias matches URLs (segment by segment, a run of slashes matching any run), or a regex
//! alias that matches it, means the new line is reached by few URLs or none. Regex aliases are
//! never the new line of such a comparison. The lines compared are the server-level ones only
//! (in a `<Location>`, the one-word form is another list). httpd shows the warning for a
//! virtual host's lines only where the host has a `LogLevel` of its own above them (its level is
//! not set yet as the lines are read); the overlap is the same, and is said in every server.

use super::{Diagnostic, Related};
use crate::ide::config::index::{AliasKind, AliasLine};
use crate::ide::config::{Config, Node, NodeKind, Severity, TopLevel};

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    if cfg.top != TopLevel::Main || !cfg.module_loaded("alias_module") {
        return;
    }
    server(cfg, &cfg.nodes, out);
    for v in cfg.nodes.iter().filter(|n| n.kind == NodeKind::Section && n.is("VirtualHost")) {
        server(cfg, &v.children, out);
    }
}

/// The aliases of one server's own lines, `nodes`, each compared with the earlier ones.
fn server(cfg: &Config, nodes: &[Node], out: &mut Vec<Diagnostic>) {
    let mut earlier: Vec<(&Node, AliasLine)> = Vec::new();
    for n in nodes.iter().filter(|n| n.kind == NodeKind::Directive) {
        let Some(kind) = AliasKind::of(n.known()) else { continue };
        let args = n.arg_strings();
        let [from, to] = &args[..] else { continue };
        let line = AliasLine { kind, from: from.clone(), to: to.clone() };
        if !kind.is_regex() {
            if let Some((first, taken_by)) = earlier.iter().find(|(_, e)| takes(e, from)) {
                let mut d = Diagnostic::new(
                    n.loc.file,
                    cfg.trimmed(&n.loc),
                    Severity::Warning,
                    "alias-overlap",
                    format!(
                        "this {} is reached by few URLs or none: the earlier {} {} of this server already takes its path {from}, and mod_alias maps a URL by the first alias that matches it (the overlap of httpd's startup warning AH00671)",
                        kind.name(),
                        taken_by.kind.name(),
                        taken_by.from,
                    ),
                );
                d.related.push(Related {
                    file: first.loc.file,
                    range: cfg.trimmed(&first.loc),
                    message: "the earlier alias".into(),
                });
                out.push(d);
            }
        }
        // (A regex httpd cannot compile stops it: that is another check's.)
        if !kind.is_regex() || !crate::ide::policy::pcre::pcre_refuses(from) {
            earlier.push((n, line));
        }
    }
}

/// Whether the earlier alias `e` takes the URL path `path` of a later path alias: as mod_alias
/// matches a URL against a path alias (a match of at least one character), or, for a regex
/// alias, when its regex matches the path.
fn takes(e: &AliasLine, path: &str) -> bool {
    if e.kind.is_regex() {
        return crate::ide::access::patterns::with_regex(&e.from, false, |r| r.is_match(path.as_bytes()))
            .flatten()
            .unwrap_or(false);
    }
    !e.from.is_empty() && crate::ide::access::alias_match(path, &e.from).is_some()
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    /// Each server's own list: the main server's lines among themselves, a virtual host's among
    /// its own (not against the main server's); a regex alias is compared as the earlier line
    /// only; runs of slashes match; a path that only shares a prefix of a segment is not taken.
    #[test]
    fn later_aliases_inside_an_earlier_ones_path_are_warned_of() {
        expect![[r#"
            /etc/httpd.conf:4: Warning[alias-overlap]: this Alias is reached by few URLs or none: the earlier Alias /a of this server already takes its path /a/b, and mod_alias maps a URL by the first alias that matches it (the overlap of httpd's startup warning AH00671)
            /etc/httpd.conf:5: Warning[alias-overlap]: this ScriptAlias is reached by few URLs or none: the earlier Alias /a of this server already takes its path /a//c/, and mod_alias maps a URL by the first alias that matches it (the overlap of httpd's startup warning AH00671)
            /etc/httpd.conf:7: Warning[alias-overlap]: this Alias is reached by few URLs or none: the earlier AliasMatch ^/x of this server already takes its path /xyz, and mod_alias maps a URL by the first alias that matches it (the overlap of httpd's startup warning AH00671)
            /etc/httpd.conf:12: Warning[alias-overlap]: this Alias is reached by few URLs or none: the earlier Alias /v of this server already takes its path /v/w, and mod_alias maps a URL by the first alias that matches it (the overlap of httpd's startup warning AH00671)
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule alias_module m\n",
            "Alias /a /srv/a\n",
            "Alias /ab /srv/ab\n",
            "Alias /a/b /srv/b\n",
            "ScriptAlias /a//c/ /srv/c/\n",
            "AliasMatch ^/x /srv/x\n",
            "Alias /xyz /srv/xyz\n",
            "AliasMatch ^/a/d /srv/d\n",
            "<VirtualHost *:80>\n",
            "  Alias /a/b /srv/b\n",
            "  Alias /v /srv/v\n",
            "  Alias /v/w /srv/w\n",
            "</VirtualHost>\n",
        )));
    }
}
