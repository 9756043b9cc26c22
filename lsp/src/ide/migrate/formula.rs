//! The Require text that replaces old-style rules (fact sheet §7).
//!
//! For each class of methods that the section's rules treat alike (one class unless
//! `<Limit>`/`<LimitExcept>` split them), the host formula H is built from `Require
//! ip|host|env|all` nodes (§7.1) and combined with the Require lines in effect under that
//! class's Satisfy (§7.2). Several classes are written as `<Limit>`/`<LimitExcept>` blocks
//! (§7.2 option B): inside the section's implicit `<RequireAny>` a block yields nothing for
//! the methods it does not name, so each class decides only its own methods.

use crate::ide::policy::{AccessEntry, CompatConfig, HostSpec, MethodId, MethodMask, Order, Satisfy};
use std::collections::BTreeSet;

/// Which upgrade-guide reading to use for H.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// What httpd does (§2.3): under allow,deny a `Deny from all` has the last word.
    Exact,
    /// The upgrade guide's table: `Deny from all` means "nobody but the Allow lines", whatever
    /// the Order (its auth-and-address rows).
    Guide,
}

/// One Require element: a line, a container, or a `<Limit>` block of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rule {
    pub text: String,
    /// For a `<Limit>` block: its methods and its elements.
    pub limit: Option<(LimitSpec, Vec<String>)>,
}

/// The Require lines in effect that H is combined with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Rules {
    /// None: nothing else is required.
    None,
    /// These elements, written out.
    Lines(Vec<Rule>),
    /// Whatever is inherited, through `AuthMerging And|Or`.
    Inherited,
}

/// The `<Limit>` wrapper of one method class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LimitSpec {
    pub except: bool,
    pub methods: Vec<String>,
}

impl LimitSpec {
    /// The methods the block applies to (`cmd->limited`).
    pub fn mask(&self, registered: &BTreeSet<String>) -> MethodMask {
        let m = self
            .methods
            .iter()
            .fold(MethodMask::none(), |m, n| m.union(&MethodMask::of(&MethodId::resolve(n, registered))));
        if self.except {
            m.complement()
        } else {
            m
        }
    }
}

/// One class of methods and its host formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Class {
    pub limit: Option<LimitSpec>,
    /// H as lines of an OR context.
    pub h: Vec<String>,
    pub any: bool,
}

const GRANTED: &str = "Require all granted";
const DENIED: &str = "Require all denied";

/// One Allow/Deny word as a Require node (§7.1, exact).
fn entry_line(e: &AccessEntry) -> String {
    match &e.spec {
        HostSpec::All => GRANTED.into(),
        HostSpec::Ip(_) => format!("Require ip {}", e.text),
        HostSpec::Host(h) => format!("Require host {h}"),
        HostSpec::EnvPresent(v) => format!("Require env {v}"),
        HostSpec::EnvAbsent(v) => format!("<RequireAll>\n  {GRANTED}\n  Require not env {v}\n</RequireAll>"),
    }
}

pub(super) fn indent_block(text: &str, pad: &str) -> String {
    text.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n")
}

fn container(name: &str, lines: &[String]) -> String {
    format!("<{name}>\n{}\n</{name}>", indent_block(&lines.join("\n"), "  "))
}

/// OR of lines as one element (`<RequireAny>` unless there is a single line).
fn any_of(lines: &[String]) -> String {
    if lines.len() == 1 {
        lines[0].clone()
    } else {
        container("RequireAny", lines)
    }
}

/// Entries as Require lines: all addresses in one `Require ip` line, all host names in one
/// `Require host` line, all present-variable tests in one `Require env` line (each provider
/// grants when any of its words matches), each absent-variable test on its own.
fn entry_lines(entries: &[&AccessEntry]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let slot = |prefix: &str, word: &str, out: &mut Vec<String>| match out.iter_mut().find(|l| l.starts_with(prefix)) {
        Some(l) => {
            l.push(' ');
            l.push_str(word);
        }
        None => out.push(format!("{prefix}{word}")),
    };
    for e in entries {
        match &e.spec {
            HostSpec::Ip(_) => slot("Require ip ", &e.text, &mut out),
            HostSpec::Host(h) => slot("Require host ", h, &mut out),
            HostSpec::EnvPresent(v) => slot("Require env ", v, &mut out),
            _ => {
                let l = entry_line(e);
                if !out.contains(&l) {
                    out.push(l);
                }
            }
        }
    }
    out
}

/// H for one method: its Order and the Allow/Deny entries that take part.
fn host_lines(order: Order, a: &[&AccessEntry], d: &[&AccessEntry], reading: Reading) -> Vec<String> {
    let al: Vec<String> = entry_lines(a);
    let dl: Vec<String> = entry_lines(d);
    let a_all = a.iter().any(|e| e.spec == HostSpec::All);
    let d_all = d.iter().any(|e| e.spec == HostSpec::All);
    let none_of = || container("RequireNone", &dl);
    match order {
        Order::AllowDeny | Order::MutualFailure if reading == Reading::Guide && d_all && !al.is_empty() => {
            // The guide reads `Deny from all` as a default, not as the last word.
            if a_all {
                vec![GRANTED.into()]
            } else {
                al
            }
        }
        Order::AllowDeny | Order::MutualFailure => {
            if al.is_empty() || d_all {
                vec![DENIED.into()]
            } else if dl.is_empty() {
                if a_all {
                    vec![GRANTED.into()]
                } else {
                    al
                }
            } else if a_all {
                vec![container("RequireAll", &[GRANTED.into(), none_of()])]
            } else {
                vec![container("RequireAll", &[any_of(&al), none_of()])]
            }
        }
        Order::DenyAllow => {
            if a_all || dl.is_empty() {
                vec![GRANTED.into()]
            } else if d_all {
                if al.is_empty() {
                    vec![DENIED.into()]
                } else {
                    al
                }
            } else {
                let mut v = al;
                v.push(container("RequireAll", &[GRANTED.into(), none_of()]));
                v
            }
        }
    }
}

/// The method classes of a section's old-style rules. `methods`: every method named by the
/// section's `<Limit>`/`<LimitExcept>` blocks, as (method, name as written).
pub(super) fn classes(c: &CompatConfig, methods: &[(MethodId, String)], reading: Reading) -> Vec<Class> {
    // Atoms: each named method, then the rest (every method none names; `M_INVALID` stands
    // for them: it is in exactly the masks that are `<LimitExcept>` or unrestricted).
    type Named<'m> = Option<&'m (MethodId, String)>;
    let mut atoms: Vec<(Named, MethodId)> = methods.iter().map(|m| (Some(m), m.0.clone())).collect();
    atoms.push((None, MethodId::Invalid));
    // Atoms that read alike: their methods, the host lines and whether Satisfy is Any.
    let mut out: Vec<(Vec<Named>, Vec<String>, bool)> = Vec::new();
    for (named, id) in atoms {
        let (order, _) = c.order_for(&id);
        let a: Vec<&AccessEntry> = c.allows_for(&id).collect();
        let d: Vec<&AccessEntry> = c.denies_for(&id).collect();
        let any = c.satisfy_for(&id).0 == Satisfy::Any;
        let h = host_lines(order, &a, &d, reading);
        match out.iter_mut().find(|(_, oh, oa)| *oh == h && *oa == any) {
            Some(slot) => slot.0.push(named),
            None => out.push((vec![named], h, any)),
        }
    }
    if out.len() == 1 {
        let (_, h, any) = out.pop().unwrap();
        return vec![Class { limit: None, h, any }];
    }
    out.into_iter()
        .map(|(members, h, any)| {
            let has_rest = members.iter().any(|m| m.is_none());
            let names = |sel: &dyn Fn(&(MethodId, String)) -> bool| -> Vec<String> {
                let mut seen: Vec<&MethodId> = Vec::new();
                methods
                    .iter()
                    .filter(|m| sel(m))
                    .filter(|m| {
                        let new = !seen.contains(&&m.0);
                        seen.push(&m.0);
                        new
                    })
                    .map(|m| m.1.clone())
                    .collect()
            };
            let limit = if has_rest {
                let excluded = names(&|m| !members.iter().flatten().any(|x| x.0 == m.0));
                LimitSpec { except: true, methods: excluded }
            } else {
                LimitSpec { except: false, methods: names(&|m| members.iter().flatten().any(|x| x.0 == m.0)) }
            };
            Class { limit: Some(limit), h, any }
        })
        .collect()
}

/// Whether the host check alone decides every method, whatever Require lines are in effect
/// (nobody passes under Satisfy All, or everybody passes under Satisfy Any).
pub(super) fn decides_alone(classes: &[Class]) -> bool {
    classes.iter().all(|c| (c.h == [DENIED] && !c.any) || (c.h == [GRANTED] && c.any))
}

/// Whether the rules let every request through the host check without bypassing Require
/// (H is true for every method and Satisfy is never Any): keeping them is harmless.
pub(super) fn is_neutral(classes: &[Class]) -> bool {
    classes.iter().all(|c| c.h == [GRANTED] && !c.any)
}

/// H combined with `rules` under one class's Satisfy (§7.2), as lines of an OR context.
fn combine_one(h: &[String], rules: &Rules, any: bool) -> Vec<String> {
    let granted = h == [GRANTED];
    let denied = h == [DENIED];
    let texts;
    let rules = match rules {
        Rules::Lines(r) if r.is_empty() => &Rules::None,
        Rules::Lines(r) => {
            texts = r.iter().map(|x| x.text.clone()).collect::<Vec<_>>();
            return combine_lines(h, &texts, any, granted, denied);
        }
        other => other,
    };
    match (any, rules) {
        (false, Rules::None) => h.to_vec(),
        (false, Rules::Inherited) => h.to_vec(),
        (true, Rules::None) => vec![GRANTED.into()],
        (true, Rules::Inherited) => h.to_vec(),
        (_, Rules::Lines(_)) => unreachable!("handled above"),
    }
}

fn combine_lines(h: &[String], r: &[String], any: bool, granted: bool, denied: bool) -> Vec<String> {
    if h == r {
        return h.to_vec();
    }
    match any {
        false if granted => r.to_vec(),
        false if r == [GRANTED] && !denied => h.to_vec(),
        false => vec![container("RequireAll", &[any_of(h), any_of(r)])],
        true if granted || r == [GRANTED] => vec![GRANTED.into()],
        true if denied => r.to_vec(),
        true => h.iter().chain(r).cloned().collect(),
    }
}

/// The rules as they apply within one class of methods: `<Limit>` elements for other methods
/// dropped, those for all of the class's methods unwrapped, the others kept (they narrow).
fn rules_within(rules: &Rules, class: &MethodMask, registered: &BTreeSet<String>) -> Rules {
    let Rules::Lines(r) = rules else { return rules.clone() };
    let mut out = Vec::new();
    for x in r {
        match &x.limit {
            None => out.push(x.clone()),
            Some((spec, inner)) => {
                let m = spec.mask(registered);
                if class.intersect(&m).is_empty() {
                    continue;
                }
                if class.is_subset_of(&m) {
                    out.extend(inner.iter().map(|t| Rule { text: t.clone(), limit: None }));
                } else {
                    out.push(x.clone());
                }
            }
        }
    }
    Rules::Lines(out)
}

/// The block that replaces a section's old-style rules (and its moved Require elements):
/// lines at the section's top level. Err when the combination cannot be written.
pub(super) fn block(classes: &[Class], rules: &Rules, registered: &BTreeSet<String>) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    if *rules == Rules::Inherited {
        let any = classes[0].any;
        if classes.iter().any(|c| c.any != any) {
            return Err("its Satisfy differs per method and the Require lines it combines with are inherited".into());
        }
        out.push(if any { "AuthMerging Or" } else { "AuthMerging And" }.to_string());
    }
    if classes.len() == 1 && classes[0].limit.is_none() {
        out.extend(combine_one(&classes[0].h, rules, classes[0].any));
        return Ok(out);
    }
    for c in classes {
        let l = c.limit.as_ref().expect("several classes have limits");
        let name = if l.except { "LimitExcept" } else { "Limit" };
        let body = combine_one(&c.h, &rules_within(rules, &l.mask(registered), registered), c.any);
        if body.is_empty() {
            continue;
        }
        out.push(format!("<{name} {}>\n{}\n</{name}>", l.methods.join(" "), indent_block(&body.join("\n"), "  ")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::policy::items::test_util::items;
    use crate::ide::policy::{compat_from_items, PolicyCtx};

    fn render(src: &str, rules: Rules, reading: Reading) -> String {
        let it = items(src);
        let (c, e) = compat_from_items(&it, &PolicyCtx::default());
        assert!(e.is_empty(), "{e:?}");
        let c = c.unwrap();
        let mut methods = Vec::new();
        for i in &it {
            if let crate::ide::policy::Item::Block { args, .. } = i {
                for a in args {
                    methods.push((MethodId::resolve(a, &Default::default()), a.to_string()));
                }
            }
        }
        block(&classes(&c, &methods, reading), &rules, &Default::default()).unwrap().join("\n")
    }

    #[test]
    fn order_values_give_the_fact_sheet_formulas() {
        expect_test::expect![[r#"
            Require ip 10.0.0.0/8
            <RequireAll>
              Require all granted
              <RequireNone>
                Require ip 10.1.0.0/16
              </RequireNone>
            </RequireAll>"#]]
        .assert_eq(&render(
            "Order deny,allow\nDeny from 10.1.0.0/16\nAllow from 10.0.0.0/8",
            Rules::None,
            Reading::Exact,
        ));
        expect_test::expect![[r#"
            <RequireAll>
              Require ip 10.0.0.0/8
              <RequireNone>
                Require ip 10.1.0.0/16
              </RequireNone>
            </RequireAll>"#]]
        .assert_eq(&render(
            "Order mutual-failure\nDeny from 10.1.0.0/16\nAllow from 10.0.0.0/8",
            Rules::None,
            Reading::Exact,
        ));
    }

    #[test]
    fn the_guide_reads_deny_from_all_as_a_default() {
        let src = "Order allow,deny\nDeny from all\nAllow from 127.0.0.1";
        assert_eq!(render(src, Rules::None, Reading::Exact), "Require all denied");
        assert_eq!(render(src, Rules::None, Reading::Guide), "Require ip 127.0.0.1");
    }

    #[test]
    fn per_method_rules_become_limit_blocks() {
        expect_test::expect![[r#"
            <Limit POST PUT>
              <RequireAll>
                Require all denied
                Require valid-user
              </RequireAll>
            </Limit>
            <LimitExcept POST PUT>
              <RequireAll>
                Require ip 127.0.0.1
                Require valid-user
              </RequireAll>
            </LimitExcept>"#]]
        .assert_eq(&render(
            "Order deny,allow\nDeny from all\nAllow from 127.0.0.1\n<Limit POST PUT>\nAllow from 1.2.3.4\nOrder allow,deny\nDeny from all\n</Limit>",
            Rules::Lines(vec![Rule { text: "Require valid-user".into(), limit: None }]),
            Reading::Exact,
        ));
    }
}
