//! mod_access_compat's per-directory configuration (Order / Allow / Deny / Satisfy).
//!
//! Mirrors `modules/aaa/mod_access_compat.c`: `create_access_compat_dir_config`, `order`,
//! `satisfy`, `allow_cmd`, `find_allowdeny`, `check_dir_access` (evaluation lives in
//! [`super::eval`]).
//!
//! Invariants:
//! * No IO.
//! * A section has a config iff it contains at least one of Order/Allow/Deny/Satisfy (also inside
//!   `<Limit>`); the config starts from the module default (deny,allow for every method, empty
//!   lists, Satisfy unspecified). The module has **no merger**: a section's config replaces the
//!   inherited one entirely ([`merge_compat`]); a section without one inherits unchanged.
//! * Order and Satisfy are per method: each directive sets the methods of its `<Limit>` mask;
//!   the value for a method is that of the last directive whose mask contains it.
//! * Allow/Deny entries record their `<Limit>` mask and are ignored for other methods.

use std::collections::BTreeSet;

use super::addr::HostSpec;
use super::items::{ConfigError, Item, Loc, PolicyCtx};
use super::method::{is_limit, is_require_container, limit_block_mask, MethodId, MethodMask};

/// `Order` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// `deny,allow` (the default): allowed if some Allow matches or no Deny matches.
    DenyAllow,
    /// `allow,deny`: allowed only if some Allow matches and no Deny matches.
    AllowDeny,
    /// `mutual-failure`: evaluated exactly like allow,deny.
    MutualFailure,
}

impl Order {
    pub fn as_str(self) -> &'static str {
        match self {
            Order::DenyAllow => "deny,allow",
            Order::AllowDeny => "allow,deny",
            Order::MutualFailure => "mutual-failure",
        }
    }
}

/// `Satisfy` value (`SATISFY_ALL`, `SATISFY_ANY`, `SATISFY_NOSPEC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Satisfy {
    /// Not specified: behaves as All.
    Unspecified,
    All,
    Any,
}

/// A per-method setting written by one directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    /// The methods the directive applies to (`cmd->limited`).
    pub methods: MethodMask,
    pub loc: Loc,
}

/// One word of an `Allow from`/`Deny from` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessEntry {
    pub spec: HostSpec,
    /// The word as written.
    pub text: String,
    pub methods: MethodMask,
    pub loc: Loc,
}

/// The access_compat config of one section (or the effective one after merging).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompatConfig {
    /// Order directives in config order.
    pub orders: Vec<Setting<Order>>,
    pub allows: Vec<AccessEntry>,
    pub denies: Vec<AccessEntry>,
    /// Satisfy directives in config order.
    pub satisfies: Vec<Setting<Satisfy>>,
    /// The first access_compat directive of the section that created this config.
    pub loc: Loc,
}

impl CompatConfig {
    fn new(loc: &Loc) -> CompatConfig {
        CompatConfig { orders: vec![], allows: vec![], denies: vec![], satisfies: vec![], loc: loc.clone() }
    }

    /// `order[method]` and the directive that set it (None = the default deny,allow).
    pub fn order_for(&self, m: &MethodId) -> (Order, Option<&Loc>) {
        match self.orders.iter().rev().find(|s| s.methods.contains(m)) {
            Some(s) => (s.value, Some(&s.loc)),
            None => (Order::DenyAllow, None),
        }
    }

    /// `satisfy[method]` and the directive that set it (None = unspecified).
    pub fn satisfy_for(&self, m: &MethodId) -> (Satisfy, Option<&Loc>) {
        match self.satisfies.iter().rev().find(|s| s.methods.contains(m)) {
            Some(s) => (s.value, Some(&s.loc)),
            None => (Satisfy::Unspecified, None),
        }
    }

    /// Allow entries taking part for this method, in config order.
    pub fn allows_for<'a>(&'a self, m: &'a MethodId) -> impl Iterator<Item = &'a AccessEntry> + 'a {
        self.allows.iter().filter(move |e| e.methods.contains(m))
    }

    /// Deny entries taking part for this method, in config order.
    pub fn denies_for<'a>(&'a self, m: &'a MethodId) -> impl Iterator<Item = &'a AccessEntry> + 'a {
        self.denies.iter().filter(move |e| e.methods.contains(m))
    }
}

const ORDER_USAGE: &str = "order takes one argument, 'allow,deny', 'deny,allow', or 'mutual-failure'";
const SATISFY_USAGE: &str = "Satisfy takes one argument, access policy if both allow and require used ('all' or 'any')";

fn is_compat_directive(item: &Item) -> bool {
    matches!(item, Item::Directive { name, .. } if super::is_compat_directive(name))
}

struct Builder<'a> {
    ctx: &'a PolicyCtx,
    registered: std::borrow::Cow<'a, BTreeSet<String>>,
    conf: Option<CompatConfig>,
    errors: Vec<ConfigError>,
}

impl Builder<'_> {
    /// `parent_block`: the enclosing block name as written, and whether we are (at any depth)
    /// inside a `<RequireAll|Any|None>` (where `cmd->override` is OR_AUTHCFG only, so the
    /// OR_LIMIT directives Order/Allow/Deny are "not allowed").
    fn walk(&mut self, items: &[Item], limited: &MethodMask, parent_block: Option<&str>, in_require: bool) {
        for item in items {
            match item {
                Item::Block { name, items: body, .. } if is_limit(name) => {
                    let htaccess = self.ctx.htaccess;
                    if let Ok(mask) = limit_block_mask(item, limited, &mut self.registered, htaccess) {
                        self.walk(body, &mask, Some(name), in_require);
                    }
                }
                Item::Block { name, items: body, .. } if is_require_container(name) => {
                    self.walk(body, limited, Some(name), true);
                }
                Item::Block { .. } => {}
                Item::Directive { name, args, loc, .. } if is_compat_directive(item) => {
                    // ap_set_config_vectors creates the module config before invoke_cmd runs.
                    let conf = self.conf.get_or_insert_with(|| CompatConfig::new(loc));
                    let lname = name.to_ascii_lowercase();
                    if in_require && lname != "satisfy" {
                        let parent = parent_block.unwrap_or("RequireAll");
                        self.errors.push(ConfigError::new(loc, format!("{lname} not allowed in <{parent}> context")));
                        continue;
                    }
                    match lname.as_str() {
                        "order" => {
                            if args.len() != 1 || args[0].is_empty() {
                                self.errors.push(ConfigError::new(loc, ORDER_USAGE));
                                continue;
                            }
                            let v = &args[0];
                            let value = if v.eq_ignore_ascii_case("allow,deny") {
                                Order::AllowDeny
                            } else if v.eq_ignore_ascii_case("deny,allow") {
                                Order::DenyAllow
                            } else if v.eq_ignore_ascii_case("mutual-failure") {
                                Order::MutualFailure
                            } else {
                                self.errors.push(ConfigError::new(loc, "unknown order"));
                                continue;
                            };
                            conf.orders.push(Setting { value, methods: limited.clone(), loc: loc.clone() });
                        }
                        "satisfy" => {
                            if args.len() != 1 || args[0].is_empty() {
                                self.errors.push(ConfigError::new(loc, SATISFY_USAGE));
                                continue;
                            }
                            let value = if args[0].eq_ignore_ascii_case("all") {
                                Satisfy::All
                            } else if args[0].eq_ignore_ascii_case("any") {
                                Satisfy::Any
                            } else {
                                self.errors.push(ConfigError::new(loc, "Satisfy either 'any' or 'all'."));
                                continue;
                            };
                            conf.satisfies.push(Setting { value, methods: limited.clone(), loc: loc.clone() });
                        }
                        _ => {
                            // ITERATE2 (server/config.c: invoke_cmd): first word, then each
                            // further word until an empty one.
                            if args.len() < 2 || args[0].is_empty() {
                                self.errors.push(ConfigError::new(
                                    loc,
                                    format!(
                                        "{lname} requires at least two arguments, 'from' followed by hostnames or IP-address wildcards"
                                    ),
                                ));
                                continue;
                            }
                            for word in args[1..].iter().take_while(|w| !w.is_empty()) {
                                if !args[0].eq_ignore_ascii_case("from") {
                                    self.errors
                                        .push(ConfigError::new(loc, "allow and deny must be followed by 'from'"));
                                    break;
                                }
                                match HostSpec::parse(word) {
                                    Ok(spec) => {
                                        let entry = AccessEntry {
                                            spec,
                                            text: word.to_string(),
                                            methods: limited.clone(),
                                            loc: loc.clone(),
                                        };
                                        if lname == "allow" {
                                            conf.allows.push(entry);
                                        } else {
                                            conf.denies.push(entry);
                                        }
                                    }
                                    Err(msg) => {
                                        // httpd stops at the first bad word of the line.
                                        self.errors.push(ConfigError::new(loc, msg));
                                        break;
                                    }
                                }
                            }
                        }
                    }
                }
                Item::Directive { .. } => {}
            }
        }
    }
}

/// Build a section's access_compat config from its items. `None` when the section has no
/// Order/Allow/Deny/Satisfy at all (→ inherit). Errors of `<Limit>` blocks themselves are not
/// reported here (see [`super::section_from_items`]); such blocks are skipped.
pub fn compat_from_items(items: &[Item], ctx: &PolicyCtx) -> (Option<CompatConfig>, Vec<ConfigError>) {
    let mut b =
        Builder { ctx, registered: std::borrow::Cow::Borrowed(&ctx.registered_methods), conf: None, errors: vec![] };
    b.walk(items, &MethodMask::all(), None, false);
    (b.conf, b.errors)
}

/// `ap_merge_per_dir_configs` for a module without merger: `new` replaces `base` if present.
pub fn merge_compat(base: Option<&CompatConfig>, new: Option<&CompatConfig>) -> Option<CompatConfig> {
    new.or(base).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::policy::items::test_util::items;

    fn build(src: &str) -> (Option<CompatConfig>, Vec<String>) {
        let (c, e) = compat_from_items(&items(src), &PolicyCtx::default());
        (c, e.into_iter().map(|e| e.message).collect())
    }

    fn errors(src: &str) -> Vec<String> {
        build(src).1
    }

    fn m(name: &str) -> MethodId {
        MethodId::resolve(name, &BTreeSet::new())
    }

    #[test]
    fn section_without_compat_directives_has_no_config() {
        assert_eq!(build("Require all granted\n<Limit POST>\nRequire valid-user\n</Limit>").0, None);
    }

    #[test]
    fn any_compat_directive_creates_a_default_config() {
        let c = build("Satisfy All").0.unwrap();
        assert_eq!(c.order_for(&m("GET")), (Order::DenyAllow, None));
        assert!(c.allows.is_empty() && c.denies.is_empty());
        let c = build("<Limit POST>\nDeny from all\n</Limit>").0.unwrap();
        assert_eq!(c.denies_for(&m("GET")).count(), 0);
        assert_eq!(c.denies_for(&m("POST")).count(), 1);
    }

    #[test]
    fn order_values_are_case_insensitive_and_validated() {
        let c = build("Order ALLOW,Deny").0.unwrap();
        assert_eq!(c.order_for(&m("GET")).0, Order::AllowDeny);
        assert_eq!(build("Order \"Mutual-Failure\"").0.unwrap().order_for(&m("GET")).0, Order::MutualFailure);
        assert_eq!(errors("Order deny, allow"), vec![ORDER_USAGE]);
        assert_eq!(errors("Order deny,allow # c"), vec![ORDER_USAGE]);
        assert_eq!(errors("Order \"deny, allow\""), vec!["unknown order"]);
        assert_eq!(errors("Order"), vec![ORDER_USAGE]);
    }

    #[test]
    fn order_and_satisfy_are_per_method_inside_limit() {
        let c = build("<Limit GET>\nOrder allow,deny\nSatisfy Any\n</Limit>\nAllow from 10.2").0.unwrap();
        assert_eq!(c.order_for(&m("GET")).0, Order::AllowDeny);
        assert_eq!(c.order_for(&m("HEAD")).0, Order::AllowDeny);
        assert_eq!(c.order_for(&m("POST")).0, Order::DenyAllow);
        assert_eq!(c.satisfy_for(&m("GET")).0, Satisfy::Any);
        assert_eq!(c.satisfy_for(&m("POST")).0, Satisfy::Unspecified);
        assert_eq!(c.allows_for(&m("POST")).count(), 1);
    }

    #[test]
    fn limit_except_get_excludes_head_for_order() {
        let c = build("<LimitExcept GET>\nOrder allow,deny\n</LimitExcept>").0.unwrap();
        assert_eq!(c.order_for(&m("HEAD")).0, Order::DenyAllow);
        assert_eq!(c.order_for(&m("PUT")).0, Order::AllowDeny);
    }

    #[test]
    fn satisfy_values() {
        assert_eq!(build("Satisfy any").0.unwrap().satisfy_for(&m("GET")).0, Satisfy::Any);
        assert_eq!(errors("Satisfy some"), vec!["Satisfy either 'any' or 'all'."]);
        assert_eq!(errors("Satisfy"), vec![SATISFY_USAGE]);
    }

    #[test]
    fn allow_requires_from_and_two_arguments() {
        assert_eq!(
            errors("Allow 1.2.3.4"),
            vec!["allow requires at least two arguments, 'from' followed by hostnames or IP-address wildcards"]
        );
        assert_eq!(
            errors("Deny from"),
            vec!["deny requires at least two arguments, 'from' followed by hostnames or IP-address wildcards"]
        );
        assert_eq!(errors("Allow From foo bar").len(), 0);
        assert_eq!(errors("Allow to 1.2.3.4"), vec!["allow and deny must be followed by 'from'"]);
    }

    #[test]
    fn several_hosts_per_line_are_independent_entries() {
        let c = build("Allow from 10.1 10.2 example.test env=X\nAllow from all").0.unwrap();
        assert_eq!(c.allows.len(), 5);
        assert_eq!(c.allows[3].spec, HostSpec::EnvPresent("X".into()));
    }

    #[test]
    fn empty_word_ends_the_allow_list() {
        let c = build("Allow from \"\" 10.1").0.unwrap();
        assert!(c.allows.is_empty());
    }

    #[test]
    fn allow_comment_is_rejected() {
        assert_eq!(errors("Allow from 1.2.3.4 # c"), vec!["No comments are allowed here"]);
        assert_eq!(errors("Deny from all #c"), vec!["No comments are allowed here"]);
    }

    #[test]
    fn invalid_ip_in_allow_is_rejected_with_apr_message() {
        assert_eq!(errors("Allow from 127.0/16"), vec!["The specified IP address is invalid."]);
        assert_eq!(errors("Allow from foo.com/16"), vec!["An IP address was expected"]);
        assert_eq!(errors("Deny from 10.0.0.0/0"), vec!["The specified network mask is invalid."]);
        assert_eq!(errors("Deny from ::ffff:1.2.3.4"), vec!["The specified IP address is invalid."]);
    }

    #[test]
    fn order_inside_require_container_is_not_allowed() {
        assert_eq!(
            errors("<RequireAll>\nRequire all granted\nOrder allow,deny\n</RequireAll>"),
            vec!["order not allowed in <RequireAll> context"]
        );
        assert_eq!(
            errors("<RequireAny>\n<Limit GET>\nAllow from all\n</Limit>\n</RequireAny>"),
            vec!["allow not allowed in <Limit> context"]
        );
        // Satisfy is OR_AUTHCFG and allowed there.
        assert!(errors("<RequireAll>\nSatisfy Any\n</RequireAll>").is_empty());
    }

    #[test]
    fn merge_is_replace() {
        let parent = build("Deny from all").0;
        let child = build("Allow from 127.0.0.1").0;
        assert_eq!(merge_compat(parent.as_ref(), child.as_ref()), child);
        assert_eq!(merge_compat(parent.as_ref(), None), parent);
    }
}
