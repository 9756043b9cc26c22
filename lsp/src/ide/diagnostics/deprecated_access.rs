//! Check: old-style access directives (mod_access_compat), each saying what its
//! block does today.

use super::{Diagnostic, Messages};
use crate::ide::access;
use crate::ide::bom;
use crate::ide::config::{Config, FileId, Node, NodeKind, SecId, Severity, TopLevel};
use crate::ide::policy::{self, HostSpec, IpSubnet, MethodMask, Order, Satisfy};
use std::sync::Arc;

/// What a block with an old-style line httpd refuses does: nothing, httpd does not start.
const REFUSED: &str = "includes a line httpd refuses (see access-config): httpd does not start";

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

/// Whether every client `inner` matches, `outer` matches too, for any request (exact where
/// said: the same spec, `all`, an IP subnet inside another of its family; else false).
fn covers(outer: &HostSpec, inner: &HostSpec) -> bool {
    match (outer, inner) {
        (HostSpec::All, _) => true,
        // A subnet is the addresses whose masked bits equal its network: `inner` lies inside
        // `outer` when `outer` masks no bit `inner` leaves free and their networks agree there.
        (HostSpec::Ip(IpSubnet::V4 { net: on, mask: om }), HostSpec::Ip(IpSubnet::V4 { net, mask })) => {
            om & !mask == 0 && net & om == *on
        }
        (HostSpec::Ip(IpSubnet::V6 { net: on, mask: om }), HostSpec::Ip(IpSubnet::V6 { net, mask })) => {
            om & !mask == 0 && net & om == *on
        }
        (o, i) => o == i,
    }
}

/// Whether no client matches both `a` and `b` (exact where said: two IP subnets; an IPv4 one
/// and an IPv6 one never match the same client, apr_ipsubnet_test matching IPv4-mapped clients
/// against IPv4 subnets only; else false).
fn disjoint(a: &HostSpec, b: &HostSpec) -> bool {
    match (a, b) {
        (HostSpec::Ip(IpSubnet::V4 { net: an, mask: am }), HostSpec::Ip(IpSubnet::V4 { net: bn, mask: bm })) => {
            (an ^ bn) & am & bm != 0
        }
        (HostSpec::Ip(IpSubnet::V6 { net: an, mask: am }), HostSpec::Ip(IpSubnet::V6 { net: bn, mask: bm })) => {
            (an ^ bn) & am & bm != 0
        }
        (HostSpec::Ip(_), HostSpec::Ip(_)) => true,
        _ => false,
    }
}

/// The words of the entries of `these` that `drop` does not drop.
fn kept(these: &[policy::AccessEntry], drop: impl Fn(&HostSpec) -> bool) -> Vec<&str> {
    these.iter().filter(|e| !drop(&e.spec)).map(|e| e.text.as_str()).collect()
}

/// How many words a description names; the others are counted. Each of a block's lines
/// carries its description, and blocklists of thousands of `Deny from` lines are common: named
/// whole, they made the diagnostics of such a file grow with the square of its length.
const NAMED: usize = 12;

/// Words for a description, each once, in the order written (a line may name an address that
/// an earlier line names too: `Allow from 127.0.0.1 ::1` and `Allow from 127.0.0.1`), the first
/// [`NAMED`] of them by name.
fn listed(words: &[&str]) -> String {
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::with_capacity(words.len());
    let distinct: Vec<&str> = words.iter().copied().filter(|w| seen.insert(w)).collect();
    match distinct.len().checked_sub(NAMED) {
        Some(more) if more > 0 => format!("{} and {more} more", distinct[..NAMED].join(", ")),
        _ => distinct.join(", "),
    }
}

/// [`describe`] of lines that all apply to every method described.
fn describe_alike(c: &policy::CompatConfig) -> String {
    let order = c.orders.last().map(|o| o.value).unwrap_or(Order::DenyAllow);
    let a: Vec<&str> = c.allows.iter().map(|e| e.text.as_str()).collect();
    let d: Vec<&str> = c.denies.iter().map(|e| e.text.as_str()).collect();
    let a_all = c.allows.iter().any(|e| e.spec == HostSpec::All);
    let d_all = c.denies.iter().any(|e| e.spec == HostSpec::All);
    let ord = order.as_str();
    let (host, passes) = match order {
        Order::AllowDeny | Order::MutualFailure => {
            // Allowed: some Allow matches and no Deny does. An Allow inside a Deny adds no one;
            // a Deny sharing no client with the Allows left takes no one away.
            let allows: Vec<&policy::AccessEntry> =
                c.allows.iter().filter(|e| !c.denies.iter().any(|x| covers(&x.spec, &e.spec))).collect();
            let denies = kept(&c.denies, |spec| allows.iter().all(|e| disjoint(spec, &e.spec)));
            let a2: Vec<&str> = allows.iter().map(|e| e.text.as_str()).collect();
            if d_all {
                (format!("denies everyone: with Order {ord}, `Deny from all` has the last word"), Passes::None)
            } else if a.is_empty() {
                (format!("denies everyone: with Order {ord} and no Allow line, the default is deny"), Passes::None)
            } else if a2.is_empty() {
                let why = format!(
                    "denies everyone: with Order {ord}, each client an Allow line matches is matched by a Deny line too, \
                     which has the last word"
                );
                (why, Passes::None)
            } else if d.is_empty() && a_all {
                ("allows everyone".into(), Passes::All)
            } else if denies.is_empty() {
                (format!("allows only {}", listed(&a2)), Passes::Some)
            } else {
                (format!("allows {} except {}", listed(&a2), listed(&denies)), Passes::Some)
            }
        }
        Order::DenyAllow => {
            // Allowed: some Allow matches or no Deny does. A Deny inside an Allow refuses no
            // one; an Allow sharing no client with the Denies left lets in no one more.
            let denies: Vec<&policy::AccessEntry> =
                c.denies.iter().filter(|e| !c.allows.iter().any(|x| covers(&x.spec, &e.spec))).collect();
            let allows = kept(&c.allows, |spec| denies.iter().all(|e| disjoint(spec, &e.spec)));
            let d2: Vec<&str> = denies.iter().map(|e| e.text.as_str()).collect();
            if a_all {
                (format!("allows everyone: with Order {ord}, `Allow from all` has the last word"), Passes::All)
            } else if d.is_empty() {
                ("allows everyone (no Deny line; Order deny,allow defaults to allow)".into(), Passes::All)
            } else if d2.is_empty() {
                let why = format!(
                    "allows everyone: with Order {ord}, each client a Deny line matches is matched by an Allow line \
                     too, which has the last word"
                );
                (why, Passes::All)
            } else if d_all {
                if a.is_empty() {
                    ("denies everyone".into(), Passes::None)
                } else {
                    (format!("allows only {}", listed(&a)), Passes::Some)
                }
            } else if a.is_empty() || allows.is_empty() {
                (format!("denies {}, allows everyone else", listed(&d2)), Passes::Some)
            } else {
                (format!("denies {} unless also {}", listed(&d2), listed(&allows)), Passes::Some)
            }
        }
    };
    match (c.satisfies.last().map(|s| s.value), passes) {
        // Every client passes: the host check's OK lets each request in before Require is read.
        (Some(Satisfy::Any), Passes::All) => {
            format!("{host}; with Satisfy Any, passing this host check skips Require entirely")
        }
        // A refusal by the host check is not the answer under Satisfy Any: httpd then runs the
        // authorization (ap_process_request_internal), and with no Require in effect
        // mod_authz_core lets the request in (500 with an AuthType and no Require).
        (Some(Satisfy::Any), passes) => {
            let through = match passes {
                Passes::Some => "a client it lets through gets in without Require being read; ",
                _ => "",
            };
            format!(
                "{host} — in its host check; with Satisfy Any a refusal there is not final: {through}a client it \
                 refuses is decided by the Require lines in effect (this section's or merged from other sections), \
                 and let in where none applies (500 where an AuthType is set without Require)"
            )
        }
        _ => host,
    }
}

/// Which clients a host check lets through, as far as its description tells.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Passes {
    All,
    /// Some clients, or ones the description cannot tell apart (names, `env=`).
    Some,
    None,
}

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    if super::never_read(cfg) {
        return;
    }
    let mut state = State {
        compat_loaded: !cfg.modules_known || cfg.modules.contains("access_compat_module"),
        // (Looked for once: most trees have no file beginning with a byte-order mark.)
        any_bom: cfg.files.iter().any(|f| bom::starts_with_bom(&f.text)),
        ..State::default()
    };
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
    /// Some file of the configuration begins with a byte-order mark.
    any_bom: bool,
    messages: Messages,
    whats: Messages,
    described: rustc_hash::FxHashMap<Vec<(usize, bool, usize)>, Arc<str>>,
    said: rustc_hash::FxHashMap<(&'c str, usize), Arc<str>>,
    text: String,
}

impl<'c> State<'c> {
    /// Why httpd evaluates nothing in `file`, said once per file ([`bom::refusal`]).
    fn refused_file(&mut self, cfg: &Config, file: FileId) -> Option<Arc<str>> {
        let text = &cfg.file(file).text;
        if !bom::starts_with_bom(text) {
            return None;
        }
        // Under `AllowOverride Nonfatal=Unknown` (every server that reads the .htaccess file)
        // httpd skips the first directive and reads the rest.
        let nonfatal = cfg.top == TopLevel::Htaccess
            && super::directive_context::overrides_read(cfg).is_some_and(|groups| {
                groups.iter().filter(|(_, o)| o.reads_htaccess()).all(|(_, o)| o.nonfatal_unknown())
            });
        bom::refusal(text, super::consequence(cfg), nonfatal).map(|why| self.whats.get(&why))
    }

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
        // A line httpd refuses stops it at startup (access-config says which): the lines left
        // describe no block httpd runs.
        let describe_layer = |c: Option<&policy::CompatConfig>, refused: bool| match (c, refused) {
            (_, true) => REFUSED.to_string(),
            (c, false) => c.map(describe).unwrap_or_default(),
        };
        // (Its lines may come from an included file.)
        let refused = if self.any_bom {
            std::iter::once(section.loc.file).chain(olds().map(|d| d.loc.file)).find_map(|f| self.refused_file(cfg, f))
        } else {
            None
        };
        let what = match refused {
            // A file httpd refuses as a whole (a byte-order mark before its first directive):
            // none of its blocks does anything.
            Some(why) => why,
            None => match id.and_then(|id| cfg.index().built_if_made(id)) {
                Some(built) => {
                    self.whats.get(&describe_layer(built.policy.compat.as_ref(), !built.compat_errors.is_empty()))
                }
                None => {
                    let key = access::access_layer_key(section);
                    match self.described.get(&key) {
                        Some(what) => what.clone(),
                        None => {
                            let items = access::access_layer_items(cfg, section);
                            let (compat, errors) = policy::compat_from_items(&items, &cfg.index().ctx);
                            let what = self.whats.get(&describe_layer(compat.as_ref(), !errors.is_empty()));
                            self.described.insert(key, what.clone());
                            what
                        }
                    }
                }
            },
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

    /// A blocklist names its first twelve addresses and counts the others (each line carries the
    /// description: named whole, thousands of lines made it quadratic, round 17 T17 F14).
    #[test]
    fn long_lists_name_twelve_addresses_and_count_the_rest() {
        let denies: String = (0..20).map(|i| format!("Deny from 10.0.{i}.0/24\n")).collect();
        let found = render(&format!("//- /srv/.htaccess\nOrder deny,allow\n{denies}Deny from 10.0.0.0/24\n"));
        let first = found.lines().next().unwrap_or_default();
        expect![[r#"/srv/.htaccess:1: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block denies 10.0.0.0/24, 10.0.1.0/24, 10.0.2.0/24, 10.0.3.0/24, 10.0.4.0/24, 10.0.5.0/24, 10.0.6.0/24, 10.0.7.0/24, 10.0.8.0/24, 10.0.9.0/24, 10.0.10.0/24, 10.0.11.0/24 and 8 more, allows everyone else"#]]
        .assert_eq(first);
        assert_eq!(found.lines().count(), 22, "{found}");
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

    /// The description of one block (its first finding's, after "this block ").
    fn said(rules: &str) -> String {
        let out = render(&format!("//- /srv/site.conf\n<Directory /srv>\n{rules}</Directory>\n"));
        let first = out.lines().next().unwrap_or_default();
        first.split_once("this block ").map(|(_, what)| what.to_string()).unwrap_or_else(|| out.clone())
    }

    /// Where the Allow and Deny sets overlap or cancel (the same spec, a subnet inside another,
    /// `all`), the description says what is left; where the arithmetic is not exact (names,
    /// `env=`), the lines as written.
    #[test]
    fn overlapping_allow_and_deny_are_said_simply() {
        let cases = [
            "  Order deny,allow\n  Deny from ::1\n  Allow from ::1\n",
            "  Order deny,allow\n  Deny from 10.1.0.0/16\n  Allow from 10.0.0.0/8\n",
            "  Order deny,allow\n  Deny from 10.0.0.0/8 192.168.1.1\n  Allow from 10.0.0.0/8 172.16.0.1\n",
            "  Order deny,allow\n  Deny from 10.0.0.0/8\n  Allow from 10.1.0.0/16 172.16.0.1\n",
            "  Order allow,deny\n  Allow from 127.0.0.1 127.0.0.2\n  Deny from 127.0.0.2\n",
            "  Order allow,deny\n  Allow from 10.1\n  Deny from 10.0.0.0/255.0.0.0\n",
            "  Order mutual-failure\n  Allow from 10.0.0.0/8 ::1\n  Deny from 10.1.0.0/16 192.168.1.1 ::2\n",
            "  Order allow,deny\n  Allow from 127.0.0.1\n  Deny from ::1\n",
            "  Order allow,deny\n  Allow from all\n  Deny from env=bot\n",
            "  Order deny,allow\n  Deny from example.com\n  Allow from env=ok\n",
            "  Order allow,deny\n  Allow from example.com\n  Deny from example.com\n",
            "  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.1 ::1\n  Allow from 127.0.0.1\n",
        ];
        let out: Vec<String> =
            cases.iter().map(|c| format!("{} => {}", c.trim().replace("\n  ", " | "), said(c))).collect();
        expect![[r#"
            Order deny,allow | Deny from ::1 | Allow from ::1 => allows everyone: with Order deny,allow, each client a Deny line matches is matched by an Allow line too, which has the last word
            Order deny,allow | Deny from 10.1.0.0/16 | Allow from 10.0.0.0/8 => allows everyone: with Order deny,allow, each client a Deny line matches is matched by an Allow line too, which has the last word
            Order deny,allow | Deny from 10.0.0.0/8 192.168.1.1 | Allow from 10.0.0.0/8 172.16.0.1 => denies 192.168.1.1, allows everyone else
            Order deny,allow | Deny from 10.0.0.0/8 | Allow from 10.1.0.0/16 172.16.0.1 => denies 10.0.0.0/8 unless also 10.1.0.0/16
            Order allow,deny | Allow from 127.0.0.1 127.0.0.2 | Deny from 127.0.0.2 => allows only 127.0.0.1
            Order allow,deny | Allow from 10.1 | Deny from 10.0.0.0/255.0.0.0 => denies everyone: with Order allow,deny, each client an Allow line matches is matched by a Deny line too, which has the last word
            Order mutual-failure | Allow from 10.0.0.0/8 ::1 | Deny from 10.1.0.0/16 192.168.1.1 ::2 => allows 10.0.0.0/8, ::1 except 10.1.0.0/16
            Order allow,deny | Allow from 127.0.0.1 | Deny from ::1 => allows only 127.0.0.1
            Order allow,deny | Allow from all | Deny from env=bot => allows all except env=bot
            Order deny,allow | Deny from example.com | Allow from env=ok => denies example.com unless also env=ok
            Order allow,deny | Allow from example.com | Deny from example.com => denies everyone: with Order allow,deny, each client an Allow line matches is matched by a Deny line too, which has the last word
            Order deny,allow | Deny from all | Allow from 127.0.0.1 ::1 | Allow from 127.0.0.1 => allows only 127.0.0.1, ::1"#]].assert_eq(&out.join("\n"));
    }

    /// Under Satisfy Any a refusal by the host check is not the answer: Require decides, and
    /// with none in effect httpd lets the client in (round 13, C1: `Deny from all` with Satisfy
    /// Any and no Require anywhere was said to deny everyone; httpd answers 200 to every client).
    /// A host check letting everyone through lets every request in without Require.
    #[test]
    fn satisfy_any_makes_a_refusal_not_final() {
        let cases = [
            "  Order deny,allow\n  Deny from all\n  Satisfy Any\n",
            "  Order allow,deny\n  Allow from 127.0.0.1\n  Satisfy any\n",
            "  Order allow,deny\n  Allow from all\n  Satisfy Any\n",
            "  Order deny,allow\n  Deny from all\n  Satisfy All\n",
        ];
        let out: Vec<String> =
            cases.iter().map(|c| format!("{} => {}", c.trim().replace("\n  ", " | "), said(c))).collect();
        expect![[r#"
            Order deny,allow | Deny from all | Satisfy Any => denies everyone — in its host check; with Satisfy Any a refusal there is not final: a client it refuses is decided by the Require lines in effect (this section's or merged from other sections), and let in where none applies (500 where an AuthType is set without Require)
            Order allow,deny | Allow from 127.0.0.1 | Satisfy any => allows only 127.0.0.1 — in its host check; with Satisfy Any a refusal there is not final: a client it lets through gets in without Require being read; a client it refuses is decided by the Require lines in effect (this section's or merged from other sections), and let in where none applies (500 where an AuthType is set without Require)
            Order allow,deny | Allow from all | Satisfy Any => allows everyone; with Satisfy Any, passing this host check skips Require entirely
            Order deny,allow | Deny from all | Satisfy All => denies everyone"#]].assert_eq(&out.join("\n"));
    }

    /// A file that begins with a byte-order mark: httpd reads it as part of the first word
    /// (`\xef\xbb\xbfOrder`, `\xef\xbb\xbf#`), an invalid command, and evaluates nothing in the
    /// file; no block of it is described as working, and the mark is not taken for whitespace.
    #[test]
    fn a_file_beginning_with_a_byte_order_mark_is_refused_whole() {
        expect![[r#"
            /srv/www/.htaccess:1: Information[unknown-directive]: '\xef\xbb\xbfOrder' is not a directive of httpd 2.4 or its bundled modules: the file begins with a UTF-8 byte-order mark, which httpd does not strip (it reads it as part of this name); save the file without it
            /srv/www/.htaccess:2: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block has lines in a file that begins with a UTF-8 byte-order mark, which httpd reads as part of the first directive's name (Invalid command '\xef\xbb\xbfOrder'), so it evaluates nothing in that file: httpd answers 500 Internal Server Error to every request this .htaccess file applies to
        "#]].assert_eq(&render("//- /srv/www/.htaccess\n\u{feff}Order deny,allow\r\nDeny from 127.0.0.2\r\n"));
        expect![[r#"
            /srv/site.conf:1: Information[unknown-directive]: '\xef\xbb\xbf#' is not a directive of httpd 2.4 or its bundled modules: the file begins with a UTF-8 byte-order mark, which httpd does not strip (it reads it as part of this name); save the file without it
            /srv/site.conf:3: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block has lines in a file that begins with a UTF-8 byte-order mark, which httpd reads as part of the first directive's name (Invalid command '\xef\xbb\xbf#'), so it evaluates nothing in that file: httpd 2.4 will not start
            /srv/site.conf:4: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block has lines in a file that begins with a UTF-8 byte-order mark, which httpd reads as part of the first directive's name (Invalid command '\xef\xbb\xbf#'), so it evaluates nothing in that file: httpd 2.4 will not start
        "#]].assert_eq(&render(
            "//- /srv/site.conf\n\u{feff}# hosts\n<Directory /srv>\n  Order deny,allow\n  Deny from all\n</Directory>\n",
        ));
    }

    /// A Deny or Allow line httpd refuses (a mask of 0 bits) stops it at startup: the block's
    /// findings say so and describe nothing else.
    #[test]
    fn a_refused_line_is_said_and_nothing_else() {
        expect![[r#"
            /srv/site.conf:2: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block includes a line httpd refuses (see access-config): httpd does not start
            /srv/site.conf:3: Error[access-config]: httpd 2.4 will not start: The specified network mask is invalid.
            /srv/site.conf:3: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block includes a line httpd refuses (see access-config): httpd does not start
            /srv/site.conf:4: Warning[deprecated-access]: `Allow` is deprecated (mod_access_compat); this block includes a line httpd refuses (see access-config): httpd does not start
            /srv/site.conf:7: Error[access-config]: httpd 2.4 will not start: The specified network mask is invalid.
            /srv/site.conf:7: Warning[deprecated-access]: `Deny` is deprecated (mod_access_compat); this block includes a line httpd refuses (see access-config): httpd does not start
        "#]].assert_eq(&render(
            "//- /srv/site.conf\n<Directory /srv>\n  Order deny,allow\n  Deny from ::/0\n  Allow from 127.0.0.1\n</Directory>\n<Directory /srv/b>\n  Deny from 0.0.0.0/0\n</Directory>\n",
        ));
    }
}
