//! A section's body as the policy builders take it: its directives and access blocks as
//! [`Item`]s, whole or only what the access layers read, and the access-control lines the
//! request walk shows for each applied section.

use super::ploc;
use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::policy::{self, Item};

/// A section body as the policy builders take it: directives and the access
/// blocks (`<Limit>`, `<RequireAll>`…); other nested sections are walked separately.
pub fn body_items(cfg: &Config, node: &Node) -> Vec<Item> {
    let mut out = Vec::new();
    for c in &node.children {
        let loc = ploc(cfg, &c.loc);
        match c.kind {
            NodeKind::Directive => out.push(directive_item(c, loc)),
            NodeKind::Section => {
                if matches!(c.known(), "Limit" | "LimitExcept" | "RequireAll" | "RequireAny" | "RequireNone") {
                    out.push(Item::Block {
                        name: c.name().into(),
                        args: c.args().to_vec(),
                        loc,
                        items: body_items(cfg, c),
                    });
                }
            }
        }
    }
    out
}

/// [`body_items`] with only what the compat and authz layers read: their directives
/// ([`policy::access_layer_directive`]) and the blocks that may hold them. Building
/// those two layers ([`policy::compat_from_items`], [`policy::authz_from_items`]) from
/// it gives what building them from the whole body gives, without copying the rest of
/// the section; a section without access control gives no items (and no allocation).
pub fn access_layer_items(cfg: &Config, node: &Node) -> Vec<Item> {
    items_reading(cfg, node, policy::access_layer_directive)
}

/// [`body_items`] with only what a section's policy ([`policy::section_from_items`]) reads:
/// the directives of its three layers ([`policy::policy_directive`]) and the blocks that may
/// hold them. Building the policy from it gives what building it from the whole body gives.
pub fn policy_items(cfg: &Config, node: &Node) -> Vec<Item> {
    items_reading(cfg, node, policy::policy_directive)
}

/// Whether [`items_reading`] keeps a child: a directive `reads` names, or a block that may
/// hold one.
fn keeps(c: &Node, reads: fn(&str) -> bool) -> bool {
    let name: &str = c.name();
    match c.kind {
        NodeKind::Directive => reads(name),
        NodeKind::Section => ["Limit", "LimitExcept", "RequireAll", "RequireAny", "RequireNone"]
            .iter()
            .any(|b| name.eq_ignore_ascii_case(b)),
    }
}

/// The nodes of a section's body that [`policy_items`] reads, in its order, each with its
/// depth: all a section's policy is made of but where it is written.
pub(crate) fn policy_input(node: &Node) -> impl Iterator<Item = (usize, &Node)> {
    input_reading(node, policy::policy_directive)
}

/// What a section's access layers are made of ([`access_layer_items`] but where it is written),
/// as a key: each node read with its depth, kind and text, the text by its identity
/// ([`Node::text_identity`]). Two sections of one loaded configuration with equal keys have equal
/// access-layer items but for their places; sections whose texts are equal but not shared get
/// different keys.
pub(crate) fn access_layer_key(node: &Node) -> Vec<(usize, bool, usize)> {
    input_reading(node, policy::access_layer_directive)
        .map(|(depth, c)| (depth, c.kind == NodeKind::Section, c.text_identity()))
        .collect()
}

/// The nodes of a section's body [`items_reading`] keeps, in its order, each with its depth.
fn input_reading(node: &Node, reads: fn(&str) -> bool) -> impl Iterator<Item = (usize, &Node)> {
    let mut stack: Vec<(usize, &Node)> = node.children.iter().rev().map(|c| (0, c)).collect();
    std::iter::from_fn(move || loop {
        let (depth, c) = stack.pop()?;
        if !keeps(c, reads) {
            continue;
        }
        if c.kind == NodeKind::Section {
            stack.extend(c.children.iter().rev().map(|g| (depth + 1, g)));
        }
        return Some((depth, c));
    })
}

/// [`body_items`] with the directives `reads` names and every block that may hold them.
fn items_reading(cfg: &Config, node: &Node, reads: fn(&str) -> bool) -> Vec<Item> {
    let mut out = Vec::new();
    for c in &node.children {
        if !keeps(c, reads) {
            continue;
        }
        let loc = ploc(cfg, &c.loc);
        let args = c.args().to_vec();
        out.push(match c.kind {
            NodeKind::Directive => Item::Directive { name: c.name().into(), args, raw_args: c.raw_args().into(), loc },
            NodeKind::Section => Item::Block { name: c.name().into(), args, loc, items: items_reading(cfg, c, reads) },
        });
    }
    out
}

pub(super) fn directive_item(c: &Node, loc: policy::Loc) -> Item {
    Item::Directive { name: c.name().into(), args: c.args().to_vec(), raw_args: c.raw_args().into(), loc }
}

/// The access-control lines of a body, nested blocks included, in order.
pub(super) fn access_lines(items: &[Item]) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut stack: Vec<(&Item, usize)> = items.iter().rev().map(|i| (i, 0)).collect();
    while let Some((it, depth)) = stack.pop() {
        let pad = "  ".repeat(depth);
        match it {
            Item::Directive { name, raw_args, loc, .. } => {
                let l = name.to_ascii_lowercase();
                if is_access_directive(name) || l.starts_with("auth") {
                    out.push((loc.line, format!("{pad}{name} {raw_args}").trim_end().to_string()));
                }
            }
            Item::Block { name, args, loc, items } => {
                out.push((
                    loc.line,
                    format!("{pad}<{name}{}{}>", if args.is_empty() { "" } else { " " }, args.join(" ")),
                ));
                stack.extend(items.iter().rev().map(|i| (i, depth + 1)));
            }
        }
    }
    out
}

pub fn is_access_directive(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "order"
            | "allow"
            | "deny"
            | "satisfy"
            | "require"
            | "requireall"
            | "requireany"
            | "requirenone"
            | "authmerging"
            | "authtype"
            | "authzsendforbiddenonfailure"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config;
    use std::path::Path;

    /// Building the compat and authz layers from [`access_layer_items`], and the whole policy
    /// from [`policy_items`], gives what building them from the whole body gives:
    /// configurations and errors, in order.
    #[test]
    fn filtered_items_build_the_same_layers() {
        let fx = crate::ide::diagnostics::tests::Fixture::parse(concat!(
            "//- /etc/httpd/httpd.conf\n",
            "LoadModule authz_core_module m.so\nLoadModule authz_host_module m.so\n",
            "<Directory /a>\n  Options None\n  order deny,allow\n  Deny from all\n  Allow from 10.0.0.0/8 .example.com\n",
            "  Satisfy Any\n  AuthType Basic\n  Require valid-user\n  AuthMerging Or\n",
            "  AuthName \"a b\"\n  AuthUserFile /f\n  AuthBasicProvider file nosuch\n  AuthDigestProvider file\n  AuthName\n",
            "  <Limit POST PURGE>\n    Deny from 192.0.2.1\n    Require ip 10.1\n    DirectoryIndex x\n    AuthGroupFile /g\n  </Limit>\n",
            "  <LimitExcept GET>\n    Order allow,deny\n  </LimitExcept>\n  <Limit TRACE>\n    Allow from all\n  </Limit>\n",
            "  <RequireAll>\n    Require not ip 10.2\n    Header set X y\n    Order deny,allow\n  </RequireAll>\n",
            "  <RequireAny>\n    Options None\n  </RequireAny>\n  <RequireAny>\n    Require not host a\n  </RequireAny>\n",
            "  <Files x>\n    Require all denied\n  </Files>\n  Allow frm 1.2.3.4\n  Require frobnicate\n",
            "  AuthzSendForbiddenOnFailure On\n  Order sideways\n</Directory>\n",
            "<Location /b>\n  SetHandler none\n</Location>\n",
        ));
        let cfg = config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let ctx = &cfg.index().ctx;
        let mut checked = 0;
        for section in cfg.walk().filter(|n| n.is_section()) {
            let (all, filtered) = (body_items(&cfg, section), access_layer_items(&cfg, section));
            assert!(filtered.len() <= all.len());
            assert_eq!(policy::compat_from_items(&filtered, ctx), policy::compat_from_items(&all, ctx));
            assert_eq!(policy::authz_from_items(&filtered, ctx), policy::authz_from_items(&all, ctx));
            let policy = |items: &[Item]| format!("{:?}", policy::section_from_items_with_layer_errors(items, ctx));
            assert_eq!(policy(&policy_items(&cfg, section)), policy(&all));
            checked += usize::from(!all.is_empty());
        }
        assert!(checked >= 3, "{checked}");
        let dir = &cfg.nodes.iter().find(|n| n.is("Directory")).unwrap();
        let (_, compat_errors) = policy::compat_from_items(&access_layer_items(&cfg, dir), ctx);
        let (_, authz_errors) = policy::authz_from_items(&access_layer_items(&cfg, dir), ctx);
        assert!(compat_errors.len() >= 2 && !authz_errors.is_empty(), "{compat_errors:?} {authz_errors:?}");
        let location = &cfg.nodes.iter().find(|n| n.is("Location")).unwrap();
        assert!(access_layer_items(&cfg, location).is_empty());
    }
}
