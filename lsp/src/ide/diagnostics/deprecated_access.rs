//! Check: old-style access directives (mod_access_compat), each saying what its
//! block does today.

use super::{Diagnostic, Messages};
use crate::ide::access;
use crate::ide::config::{Config, Node, NodeKind, SecId, Severity};
use crate::ide::policy::{self, HostSpec, MethodMask, Order, Satisfy};
use std::sync::Arc;

/// How many classes of methods a description names at most.
const MAX_METHOD_CLASSES: usize = 6;

/// What a section's Order/Allow/Deny/Satisfy do, in words: once when every method gets the same
/// rules, else for each class of methods its `<Limit>` blocks tell apart (methods of a class
/// share every Order, Satisfy, Allow and Deny line), classes alike said together.
pub fn describe(c: &policy::CompatConfig) -> String {
    let masks = c
        .orders
        .iter()
        .map(|o| &o.methods)
        .chain(c.satisfies.iter().map(|s| &s.methods))
        .chain(c.allows.iter().chain(&c.denies).map(|e| &e.methods));
    let mut classes = vec![MethodMask::all()];
    for m in masks.filter(|m| !m.is_all()) {
        classes = classes
            .iter()
            .flat_map(|k| [k.intersect(m), k.intersect(&m.complement())])
            .filter(|k| !k.is_empty())
            .collect();
        if classes.len() > MAX_METHOD_CLASSES {
            return "has rules that differ per HTTP method (<Limit>) in more ways than can be listed here".into();
        }
    }
    let mut said: Vec<(MethodMask, String)> = Vec::new();
    for k in classes {
        // Within a class every line applies to all its methods or to none.
        let only = |methods: &MethodMask| !methods.intersect(&k).is_empty();
        let view = policy::CompatConfig {
            orders: c.orders.iter().filter(|o| only(&o.methods)).cloned().collect(),
            allows: c.allows.iter().filter(|e| only(&e.methods)).cloned().collect(),
            denies: c.denies.iter().filter(|e| only(&e.methods)).cloned().collect(),
            satisfies: c.satisfies.iter().filter(|s| only(&s.methods)).cloned().collect(),
            loc: c.loc.clone(),
        };
        let what = describe_alike(&view);
        match said.iter_mut().find(|(_, w)| *w == what) {
            Some((m, _)) => *m = m.union(&k),
            None => said.push((k, what)),
        }
    }
    if let [(_, what)] = &said[..] {
        return what.clone();
    }
    let parts: Vec<String> = said.iter().map(|(m, what)| format!("{m}: {what}")).collect();
    format!("acts per HTTP method (<Limit>) — {}", parts.join("; "))
}

/// [`describe`] of lines that all apply to every method described.
fn describe_alike(c: &policy::CompatConfig) -> String {
    let order = c.orders.last().map(|o| o.value).unwrap_or(Order::DenyAllow);
    let a: Vec<&str> = c.allows.iter().map(|e| e.text.as_str()).collect();
    let d: Vec<&str> = c.denies.iter().map(|e| e.text.as_str()).collect();
    let a_all = c.allows.iter().any(|e| e.spec == HostSpec::All);
    let d_all = c.denies.iter().any(|e| e.spec == HostSpec::All);
    let ord = order.as_str();
    let host = match order {
        Order::AllowDeny | Order::MutualFailure => {
            if d_all {
                format!("denies everyone: with Order {ord}, `Deny from all` has the last word")
            } else if a.is_empty() {
                format!("denies everyone: with Order {ord} and no Allow line, the default is deny")
            } else if d.is_empty() && a_all {
                "allows everyone".into()
            } else if d.is_empty() {
                format!("allows only {}", a.join(", "))
            } else {
                format!("allows {} except {}", a.join(", "), d.join(", "))
            }
        }
        Order::DenyAllow => {
            if a_all {
                format!("allows everyone: with Order {ord}, `Allow from all` has the last word")
            } else if d.is_empty() {
                "allows everyone (no Deny line; Order deny,allow defaults to allow)".into()
            } else if d_all {
                if a.is_empty() {
                    "denies everyone".into()
                } else {
                    format!("allows only {}", a.join(", "))
                }
            } else if a.is_empty() {
                format!("denies {}, allows everyone else", d.join(", "))
            } else {
                format!("denies {} unless also {}", d.join(", "), a.join(", "))
            }
        }
    };
    match c.satisfies.last().map(|s| s.value) {
        Some(Satisfy::Any) => format!("{host}; with Satisfy Any, passing this host check skips Require entirely"),
        _ => host,
    }
}

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    if super::never_read(cfg) {
        return;
    }
    let mut state =
        State { compat_loaded: !cfg.modules_known || cfg.modules.contains("access_compat_module"), ..State::default() };
    for (id, section) in super::sections(cfg) {
        state.block(cfg, section, Some(id), out);
    }
    if let Some(top) = super::htaccess_top(cfg) {
        state.block(cfg, &top, None, out);
    }
}

fn is_limit_block(n: &Node) -> bool {
    n.kind == NodeKind::Section && crate::ide::policy::method::is_limit(n.name())
}

/// What the check keeps from block to block. Blocks that read alike (the same rules in many
/// virtual hosts) give the same messages: descriptions are shared (`whats`), those of unbuilt
/// sections made once per access layer (`described`), and each message once per directive
/// name and description (`said`).
#[derive(Default)]
struct State<'c> {
    compat_loaded: bool,
    messages: Messages,
    whats: Messages,
    described: rustc_hash::FxHashMap<Vec<(usize, bool, usize)>, Arc<str>>,
    said: rustc_hash::FxHashMap<(&'c str, usize), Arc<str>>,
    text: String,
}

impl<'c> State<'c> {
    /// The old-style lines of one block: a section (`id`: its number in the index), or an
    /// .htaccess file's top level.
    fn block(&mut self, cfg: &'c Config, section: &'c Node, id: Option<SecId>, out: &mut Vec<Diagnostic>) {
        // Lines in its <Limit> and <LimitExcept> blocks are the section's, for some methods.
        if is_limit_block(section) {
            return;
        }
        let olds = || {
            let mut stack: Vec<&'c Node> = section.children.iter().rev().collect();
            std::iter::from_fn(move || {
                while let Some(c) = stack.pop() {
                    if c.kind == NodeKind::Section {
                        if is_limit_block(c) {
                            stack.extend(c.children.iter().rev());
                        }
                    } else if policy::is_compat_directive(c.canonical()) {
                        return Some(c);
                    }
                }
                None
            })
        };
        if olds().next().is_none() {
            return;
        }
        if !self.compat_loaded {
            for d in olds() {
                let name: &str = d.name();
                let message = self.messages.get(&format!(
                    "{}: Invalid command '{name}': it comes from mod_access_compat, which is not loaded; use Require",
                    super::consequence(cfg)
                ));
                out.push(Diagnostic::new(
                    d.loc.file,
                    d.loc.focus,
                    Severity::Error,
                    "access-compat-not-loaded",
                    message,
                ));
            }
            return;
        }
        // What the block does, said once for all its old-style lines: from the section's
        // policy when the request walk built it, else from its compat layer alone (not kept).
        let describe_layer = |c: Option<&policy::CompatConfig>| c.map(describe).unwrap_or_default();
        let what = match id.and_then(|id| cfg.index().built_if_made(id)) {
            Some(built) => self.whats.get(&describe_layer(built.policy.compat.as_ref())),
            None => {
                let key = access::access_layer_key(section);
                match self.described.get(&key) {
                    Some(what) => what.clone(),
                    None => {
                        let items = access::access_layer_items(cfg, section);
                        let what = self
                            .whats
                            .get(&describe_layer(policy::compat_from_items(&items, &cfg.index().ctx).0.as_ref()));
                        self.described.insert(key, what.clone());
                        what
                    }
                }
            }
        };
        for d in olds() {
            let message = self.said.entry((d.name(), Arc::as_ptr(&what).cast::<u8>() as usize)).or_insert_with(|| {
                self.text.clear();
                for part in ["`", d.name(), "` is deprecated (mod_access_compat); this block ", &what] {
                    self.text.push_str(part);
                }
                self.messages.get(&self.text)
            });
            let mut diag = Diagnostic::new(
                d.loc.file,
                cfg.trimmed(&d.loc),
                Severity::Warning,
                "deprecated-access",
                message.clone(),
            );
            diag.deprecated = true;
            out.push(diag);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    #[test]
    fn deny_from_all_has_the_last_word_under_allow_deny() {
        expect![[r#"
            /srv/site.conf:2: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block denies everyone: with Order allow,deny, `Deny from all` has the last word
            /srv/site.conf:3: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block denies everyone: with Order allow,deny, `Deny from all` has the last word
            /srv/site.conf:4: Warning[deprecated-access]: `Allow` is deprecated (mod_access_compat); this block denies everyone: with Order allow,deny, `Deny from all` has the last word
        "#]]
        .assert_eq(&render("//- /srv/site.conf\n<Directory /srv>\n  Order allow,deny\n  Deny from all\n  Allow from 127.0.0.1\n</Directory>\n"));
    }

    /// Blocks made of the same lines are described once; each line still gets its own finding,
    /// and a block that differs its own description.
    #[test]
    fn alike_blocks_share_their_description() {
        let section = |dir: &str, rules: &str| format!("<Directory /{dir}>\n{rules}</Directory>\n");
        let denied = "  Order allow,deny\n  Deny from all\n";
        let fixture = format!(
            "//- /srv/site.conf\n{}{}{}",
            section("a", denied),
            section("b", "  Order allow,deny\n  Allow from 10.0.0.0/8\n"),
            section("c", denied),
        );
        expect![[r#"
            /srv/site.conf:2: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block denies everyone: with Order allow,deny, `Deny from all` has the last word
            /srv/site.conf:3: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block denies everyone: with Order allow,deny, `Deny from all` has the last word
            /srv/site.conf:6: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block allows only 10.0.0.0/8
            /srv/site.conf:7: Warning[deprecated-access]: `Allow` is deprecated (mod_access_compat); this block allows only 10.0.0.0/8
            /srv/site.conf:10: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block denies everyone: with Order allow,deny, `Deny from all` has the last word
            /srv/site.conf:11: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block denies everyone: with Order allow,deny, `Deny from all` has the last word
        "#]].assert_eq(&render(&fixture));
    }

    #[test]
    fn old_style_without_access_compat_stops_httpd() {
        expect![[r#"
            /etc/httpd/httpd.conf:3: Error[access-compat-not-loaded]: httpd 2.4 will not start: Invalid command 'Order': it comes from mod_access_compat, which is not loaded; use Require
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule authz_core_module m.so\n<Directory />\n  Order deny,allow\n</Directory>\n"));
    }

    /// An .htaccess file's own lines are its directory's block: described like a section's,
    /// and its sections' beside them.
    #[test]
    fn htaccess_top_level_is_a_block() {
        expect![[r#"
            /srv/www/.htaccess:1: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block allows only 192.168.0.0/16
            /srv/www/.htaccess:2: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block allows only 192.168.0.0/16
            /srv/www/.htaccess:3: Warning[deprecated-access]: `Allow` is deprecated (mod_access_compat); this block allows only 192.168.0.0/16
            /srv/www/.htaccess:5: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block denies everyone: with Order allow,deny and no Allow line, the default is deny
        "#]]
        .assert_eq(&render("//- /srv/www/.htaccess\nOrder deny,allow\nDeny from all\nAllow from 192.168.0.0/16\n<Files x>\n  Order allow,deny\n</Files>\n"));
    }

    /// Lines inside `<Limit>` belong to their section's rules for those methods: the section is
    /// described per class of methods, and lines outside the block count for the class too.
    #[test]
    fn limit_blocks_are_described_per_method() {
        expect![[r#"
            /srv/site.conf:3: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block acts per HTTP method (<Limit>) — GET: allows only 127.0.0.1, 127.0.0.2; all methods except GET: allows everyone (no Deny line; Order deny,allow defaults to allow)
            /srv/site.conf:4: Warning[deprecated-access]: `Allow` is deprecated (mod_access_compat); this block acts per HTTP method (<Limit>) — GET: allows only 127.0.0.1, 127.0.0.2; all methods except GET: allows everyone (no Deny line; Order deny,allow defaults to allow)
            /srv/site.conf:6: Warning[deprecated-access]: `Allow` is deprecated (mod_access_compat); this block acts per HTTP method (<Limit>) — GET: allows only 127.0.0.1, 127.0.0.2; all methods except GET: allows everyone (no Deny line; Order deny,allow defaults to allow)
            /srv/site.conf:10: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block acts per HTTP method (<Limit>) — all methods except GET: denies everyone; GET: allows everyone (no Deny line; Order deny,allow defaults to allow)
            /srv/site.conf:15: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block allows everyone (no Deny line; Order deny,allow defaults to allow)
            /srv/site.conf:17: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block allows everyone (no Deny line; Order deny,allow defaults to allow)
        "#]]
        .assert_eq(&render("//- /srv/site.conf\n<Directory /srv>\n  <Limit GET>\n    Order allow,deny\n    Allow from 127.0.0.1\n  </Limit>\n  Allow from 127.0.0.2\n</Directory>\n<Directory /srv/x>\n  <LimitExcept GET>\n    Deny from all\n  </LimitExcept>\n</Directory>\n<Directory /srv/y>\n  <Limit POST>\n    Order deny,allow\n  </Limit>\n  Order deny,allow\n</Directory>\n"));
    }
}
