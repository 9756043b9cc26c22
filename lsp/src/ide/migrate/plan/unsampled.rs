//! Sections the proof cannot ask about: a regex section holding access rules for which no
//! example request could be built (a lookaround or back reference the witness builder reads
//! loosely, and whose loose witnesses the real pattern refuses). httpd applies it to the
//! requests it matches; the proof never sends one, so a rewrite of any other section whose
//! rules meet it there (a parent `<Directory>` whose Order/Allow it merges with) is unproven.
//! Taken as matching nothing, such a section let a parent's rewrite turn 200 into 403.

use super::{Analysis, Key};
use crate::ide::access::witnesses::{regex_is_match, regex_witnesses};
use crate::ide::access::{section_pattern, SectionPattern};
use crate::ide::config::{Config, Node};

/// Whether `n` or anything in its body is an access directive (old-style, Require and its
/// containers, authentication).
fn holds_access_rules(n: &Node) -> bool {
    let mut stack: Vec<&Node> = n.children.iter().collect();
    while let Some(c) = stack.pop() {
        let name = c.name();
        if super::super::body::is_compat(name)
            || ["Require", "Satisfy", "Auth"]
                .iter()
                .any(|p| name.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p)))
        {
            return true;
        }
        stack.extend(c.children.iter());
    }
    false
}

/// Whether no witness of the section's regular expression is matched by it (URLs for a
/// `<Location>`-type section are tried with a leading slash as the proof asks them).
fn unsampled_regex(n: &Node) -> Option<&str> {
    let Some(SectionPattern::Regex(pat)) = section_pattern(n) else { return None };
    let matched = regex_witnesses(pat).iter().any(|w| {
        regex_is_match(pat, w) || regex_is_match(pat, &format!("/{w}")) || regex_is_match(pat, &format!("/x{w}"))
    });
    (!matched).then_some(pat)
}

/// Why no rewrite can be proven while such a section exists: the first one, in the server
/// configuration or in an .htaccess file the walks read. None when there is none.
pub(super) fn unsampled(a: &Analysis) -> Option<String> {
    let unreached = |cfg: &Config, n: &Node, key: Key| -> Option<String> {
        if a.sec_of.contains_key(&key) || !holds_access_rules(n) {
            return None;
        }
        let pat = unsampled_regex(n)?;
        Some(format!(
            "<{} {}> at {}:{} holds access rules, but the proof can build no request its regular expression `{pat}` matches (a lookaround or back reference it cannot sample); httpd applies it to the requests it does match, where rewritten rules would meet it unproven: simplify that pattern, or rewrite by hand",
            n.name(),
            n.args().join(" "),
            cfg.file(n.loc.file).path.display(),
            cfg.line(&n.loc),
        ))
    };
    let cfg = a.cfg;
    for n in cfg.walk().filter(|n| n.is_section()) {
        if let Some(why) = unreached(cfg, n, a.node_key(n.loc.file, u32::from(n.loc.range.start()))) {
            return Some(why);
        }
    }
    for h in &a.setup.htaccess {
        let frag = crate::ide::config::load_fragment_under(std::sync::Arc::new(a.setup.read_htaccess(h)), cfg);
        for n in frag.nodes.iter().filter(|n| n.is_section()) {
            if let Some(why) =
                unreached(&frag, n, Key::HtaccessSection(a.setup.real_path(h), u32::from(n.loc.range.start())))
            {
                return Some(why);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::holds_access_rules;
    use crate::ide::config::{Loc, Node, NodeKind};

    fn node(kind: NodeKind, name: &str, children: Vec<Node>) -> Node {
        let loc = Loc { file: 0, range: Default::default(), focus: Default::default() };
        Node::new(kind, name, [""; 0], "", loc, children)
    }

    /// Names are matched by their first bytes without cutting a character (the config fuzzer
    /// found a directive named `\u{fffd}\u{fffd}\u{fffd}ll`, whose 7th byte is inside one).
    #[test]
    fn access_rules_are_found_by_name_whatever_bytes_the_names_hold() {
        let directive = |name: &str| node(NodeKind::Directive, name, Vec::new());
        let section = |children| node(NodeKind::Section, "LocationMatch", children);
        assert!(!holds_access_rules(&section(vec![directive("\u{fffd}\u{fffd}\u{fffd}ll"), directive("é")])));
        assert!(holds_access_rules(&section(vec![directive("\u{fffd}"), directive("authtype")])));
        assert!(holds_access_rules(&section(vec![directive("Deny")])));
        assert!(holds_access_rules(&section(vec![node(NodeKind::Section, "RequireAny", vec![])])));
    }
}
