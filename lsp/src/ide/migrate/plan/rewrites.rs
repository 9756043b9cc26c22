//! URLs mod_rewrite maps where the proof does not follow: a `RewriteRule` of the main server or
//! of a virtual host (run at translate_name, before the directory walk) whose substitution is
//! a file system path, or a URL path taken below the DocumentRoot, hands the request to a
//! directory other than the one its URL names, while the `<Location>` sections still match the
//! URL as sent. The walks the proof asks map URLs through DocumentRoot and the aliases only, so
//! the requests such a rule reaches (any URL its pattern matches, with the sections of that URL,
//! in the directory its substitution names) are never asked: rewriting `<Directory out>` where
//! `RewriteRule "^/rw/(.*)$" "/srv/out/$1"` led turned GET /rw/x.txt 200 → 403 while the proof
//! asked only an Alias of `out` that a `<Location>` denied (black-box round 15 F1). Such a
//! configuration is not proven; the refusal names the rule.

use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::rewrite_flags::RuleFlags;

/// Whether `n` is the directive `name`.
fn directive(n: &Node, name: &str) -> bool {
    n.kind == NodeKind::Directive && n.is(name)
}

/// Whether a rule with these flags (`[R=301,L]`) leaves the request to a directory walk of
/// another name: not a redirect, a refusal, a gone, a proxy, nor a pass-through (which maps a
/// new URL the proof may ask as it is).
fn maps_to_a_path(flags: Option<&str>) -> bool {
    use crate::ide::rewrite_flags::RuleFlag::*;
    !RuleFlags::read(flags).any(&[Redirect, Forbidden, Gone, Proxy, PassThrough])
}

/// The first server-level `RewriteRule` (where `RewriteEngine On` is in force in the same
/// scope, and mod_rewrite is loaded) whose substitution names another path: where it is, as
/// the reason no rewrite is proven. None when there is none.
pub(super) fn unfollowed(cfg: &Config) -> Option<String> {
    if !cfg.module_loaded("rewrite_module") {
        return None;
    }
    let vhosts = cfg.nodes.iter().filter(|n| n.is_section() && n.is("VirtualHost")).map(|v| v.children.as_slice());
    for scope in std::iter::once(cfg.nodes.as_slice()).chain(vhosts) {
        let on = scope
            .iter()
            .rfind(|n| directive(n, "RewriteEngine"))
            .and_then(|n| n.arg(0))
            .is_some_and(|a| a.eq_ignore_ascii_case("on"));
        if !on {
            continue;
        }
        for n in scope.iter().filter(|n| directive(n, "RewriteRule")) {
            let Some(to) = n.arg(1) else { continue };
            if to == "-" || to.contains("://") || !maps_to_a_path(n.arg(2)) {
                continue;
            }
            return Some(format!(
                "RewriteRule {} at {}:{} maps the URLs it matches to {to}, a directory other than theirs, which the proof does not follow (it asks URLs through DocumentRoot and Alias only): no rewrite is proven; rewrite by hand, or test the result against httpd",
                n.raw_args(),
                cfg.file(n.loc.file).path.display(),
                cfg.line(&n.loc),
            ));
        }
    }
    None
}
