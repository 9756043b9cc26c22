//! mod_rewrite's per-directory rules rewriting to a local URL (`mod_rewrite.c: hook_fixup`):
//! after the access checks of the request, at the fixups, a rule whose substitution is a local
//! path makes httpd redirect internally to that URL, which is then translated, walked and
//! checked again as a new request: the target's own sections may refuse it.
//!
//! Invariant: a redirect is said to happen only where every step is decided from the
//! configuration and the file system (the rule set in force, its patterns matched against the
//! per-directory path with PCRE, conditions that test `%{REQUEST_FILENAME}` with `-f`/`-d`,
//! the target computed from RewriteBase or the DocumentRoot); elsewhere it "may" happen.

use crate::ide::access::{normalize_url, translated_path, Effective, FsView, RequestSpec};
use crate::ide::config::Config;
use crate::ide::handler::Answer;
use crate::ide::pcre_match::{pregsub, Pcre};
use crate::ide::policy::items::Word;
use crate::ide::policy::Item;
use crate::ide::rewrite_flags::{RuleFlag, RuleFlags};
use std::path::Path;

/// mod_rewrite's directives read per directory (RewriteEngine: [`crate::ide::rewrite_symlinks`];
/// RewriteRule: [`crate::ide::handler`]).
pub fn reads(name: &str) -> bool {
    ["RewriteCond", "RewriteBase", "RewriteOptions"].iter().any(|d| d.eq_ignore_ascii_case(name))
}

/// An internal redirect mod_rewrite's per-directory rules make, or may make, of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Internal {
    /// The URL the request is redirected to, where it is known.
    pub url: Option<String>,
    /// The rule that rewrites it (`RewriteRule … at file:line`).
    pub rule: String,
    /// Whether the rule surely fires (else it may).
    pub certain: bool,
}

/// A rule with the conditions written before it.
struct Rule<'e> {
    args: &'e [Word],
    conds: Vec<&'e [Word]>,
    at: String,
}

/// Whether a match is known.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tri {
    Yes,
    No,
    Maybe,
}

/// The internal redirects the per-directory rule set in force for `spec` (walked: `e`) makes or
/// may make, in rule order; empty where it makes none. The first certain one ends the list.
pub fn redirects(cfg: &Config, spec: &RequestSpec, e: &Effective) -> Vec<Internal> {
    if !cfg.module_loaded("rewrite_module") {
        return Vec::new();
    }
    let is = |item: &Item, n: &str| matches!(item, Item::Directive { name, .. } if name.eq_ignore_ascii_case(n));
    // The engine state merges (the last RewriteEngine); the rules, base and directory are those of
    // the last section holding a mod_rewrite directive (a section without one has no
    // configuration of the module to merge), unless RewriteOptions asks for inheritance.
    let engine = e.per_dir.iter().rev().find(|(_, i)| is(i, "RewriteEngine"));
    let on = engine.is_some_and(|(_, i)| match i {
        Item::Directive { args, .. } => args.first().is_some_and(|a| a.eq_ignore_ascii_case("on")),
        _ => false,
    });
    if !on {
        return Vec::new();
    }
    let rewrite = |i: &Item| matches!(i, Item::Directive { name, .. } if name.len() > 7 && name[..7].eq_ignore_ascii_case("Rewrite"));
    let Some(&(last, _)) = e.per_dir.iter().rev().find(|(_, i)| rewrite(i)) else { return Vec::new() };
    let inherit = e.per_dir.iter().any(|(_, i)| is(i, "RewriteOptions"));
    let mut rules: Vec<Rule> = Vec::new();
    let mut conds = Vec::new();
    let mut base: Option<String> = None;
    for (s, item) in &e.per_dir {
        if *s != last && !inherit {
            continue;
        }
        let Item::Directive { name, args, loc, .. } = item else { continue };
        if name.eq_ignore_ascii_case("RewriteCond") {
            conds.push(&args[..]);
        } else if name.eq_ignore_ascii_case("RewriteBase") && *s == last {
            base = args.first().map(|a| a.to_string());
        } else if name.eq_ignore_ascii_case("RewriteRule") {
            let at = format!("RewriteRule {} at {}:{}", args.join(" "), loc.file.display(), loc.line);
            rules.push(Rule { args, conds: std::mem::take(&mut conds), at });
        }
    }
    // The section's directory (mod_rewrite's per-directory prefix): a plain <Directory> or an
    // .htaccess file's; elsewhere the per-directory path is not known.
    let dir = e.sections.get(last).and_then(|s| match s.kind.as_str() {
        ".htaccess" => s.path.parent().map(|p| p.to_string_lossy().trim_end_matches('/').to_string()),
        "Directory" if s.args.len() == 1 && !s.args[0].contains(['*', '?', '[']) => {
            Some(s.args[0].trim_end_matches('/').to_string())
        }
        _ => None,
    });
    let dir = if inherit { None } else { dir };
    let translated = translated_path(cfg, spec).to_string_lossy().into_owned();
    let url = normalize_url(&spec.path);
    // mod_rewrite declines the directory itself requested without its slash.
    if dir.as_deref().is_some_and(|d| translated == d) {
        return Vec::new();
    }
    let subject = dir.as_deref().and_then(|d| translated.strip_prefix(&format!("{d}/")).map(str::to_string));
    let docroot = crate::ide::access::document_root(cfg, spec).to_string_lossy().trim_end_matches('/').to_string();
    let filename = &e.filesystem_path;
    let mut out = Vec::new();
    // Once a rule may have rewritten the path, later patterns see a path not known.
    let mut rewritten = false;
    for rule in &rules {
        let (Some(pattern), Some(subst)) = (rule.args.first(), rule.args.get(1)) else { continue };
        let flags = RuleFlags::read(rule.args.get(2).map(|f| f.as_str()));
        let nocase = flags.any(&[RuleFlag::NoCase]);
        let last_rule = flags.any(&[RuleFlag::Last, RuleFlag::End]);
        let odd = flags.any(&[RuleFlag::Chain, RuleFlag::Skip, RuleFlag::Next]);
        let (negated, pattern) = match pattern.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, &pattern[..]),
        };
        let compiled = Pcre::compile(pattern, nocase);
        let caps = match (&subject, &compiled, rewritten) {
            (Some(s), Some(p), false) => p.captures(s.as_bytes()),
            _ => None,
        };
        let mut fires = match &caps {
            Some(c) if c.is_empty() == negated => Tri::Yes,
            Some(_) => Tri::No,
            None => Tri::Maybe,
        };
        if fires != Tri::No {
            fires = both(fires, conditions(&rule.conds, filename));
        }
        if odd && fires == Tri::Yes {
            fires = Tri::Maybe;
        }
        if fires == Tri::No {
            continue;
        }
        let external = flags.any(&[RuleFlag::Redirect, RuleFlag::Forbidden, RuleFlag::Gone, RuleFlag::Proxy])
            || subst.contains("://")
            || subst.starts_with("proxy:");
        if subst.as_str() == "-" || external {
            if fires == Tri::Yes && (last_rule || external) {
                break;
            }
            continue;
        }
        // The target: the substitution expanded, made absolute, the directory replaced by the
        // base or the DocumentRoot stripped.
        let expanded = match (&caps, &subject) {
            _ if subst.contains('%') || subst.contains("${") => None,
            (Some(c), Some(s)) if !negated && !c.is_empty() => Some(pregsub(subst, s.as_bytes(), c)),
            _ if !subst.contains('$') => Some(subst.to_string()),
            _ => None,
        };
        let path = expanded.map(|x| x.split('?').next().unwrap_or("").to_string());
        let target = path.and_then(|p| {
            let full = if p.starts_with('/') { p } else { format!("{}/{p}", dir.as_deref()?) };
            let inside = dir.as_deref().and_then(|d| full.strip_prefix(&format!("{d}/")));
            match (&base, inside) {
                (Some(b), Some(rest)) => Some(format!("{}/{rest}", b.trim_end_matches('/'))),
                (Some(_), None) => Some(full),
                (None, _) => match full.strip_prefix(&docroot) {
                    Some(rest) if rest.starts_with('/') && !docroot.is_empty() => Some(rest.to_string()),
                    _ if full.starts_with('/') && inside.is_none() => Some(full),
                    _ => None,
                },
            }
        });
        // Rewritten to itself: mod_rewrite ignores it.
        let same = target.as_deref().is_some_and(|t| normalize_url(t) == url) && fires == Tri::Yes;
        if !same {
            out.push(Internal { url: target, rule: rule.at.clone(), certain: fires == Tri::Yes && last_rule });
        }
        if fires == Tri::Yes && last_rule {
            break;
        }
        rewritten = true;
    }
    // A certain redirect only where no rule after it could change it.
    if out.len() > 1 {
        out.iter_mut().for_each(|i| i.certain = false);
    }
    out
}

fn both(a: Tri, b: Tri) -> Tri {
    match (a, b) {
        (Tri::No, _) | (_, Tri::No) => Tri::No,
        (Tri::Yes, Tri::Yes) => Tri::Yes,
        _ => Tri::Maybe,
    }
}

/// Whether the conditions before a rule hold: decided for `%{REQUEST_FILENAME}` tested with
/// `-f`/`-d` (negated or not; `r->filename`, the walked file), without `[OR]`; Maybe otherwise.
fn conditions(conds: &[&[Word]], filename: &Path) -> Tri {
    let mut all = Tri::Yes;
    for c in conds {
        let (Some(test), Some(pattern)) = (c.first(), c.get(1)) else { return Tri::Maybe };
        if c.len() > 2 || test.as_str() != "%{REQUEST_FILENAME}" {
            all = both(all, Tri::Maybe);
            continue;
        }
        let (negated, op) = match pattern.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, &pattern[..]),
        };
        let meta = std::fs::metadata(filename);
        let holds = match op {
            "-f" => meta.is_ok_and(|m| m.is_file()),
            "-d" => meta.is_ok_and(|m| m.is_dir()),
            _ => {
                all = both(all, Tri::Maybe);
                continue;
            }
        };
        all = both(all, if holds != negated { Tri::Yes } else { Tri::No });
    }
    all
}

/// What mod_rewrite's per-directory rules make of a request access control let through.
pub enum Rewritten {
    /// It surely redirects internally: what the new request answers.
    Known(Answer),
    /// It may redirect internally: why, and the statuses the targets may answer.
    Maybe { why: String, may: Vec<u16> },
}

thread_local! {
    /// Internal redirects being followed on this thread (httpd stops at LimitInternalRecursion, 10).
    static DEPTH: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// The internal redirect mod_rewrite's per-directory rules make of `spec` (walked: `e`), followed:
/// the target asked as a new request with the same method, client and credentials (its own
/// translation, walk and access checks). None where no rule rewrites it to a local URL.
pub fn answer(cfg: &Config, fs: &FsView, spec: &RequestSpec, e: &Effective) -> Option<Rewritten> {
    let found = redirects(cfg, spec, e);
    let first = found.first()?;
    if DEPTH.with(|d| d.get()) >= 10 {
        return Some(Rewritten::Maybe {
            why: format!(
                "mod_rewrite redirects internally again and again ({}), up to LimitInternalRecursion",
                first.rule
            ),
            may: vec![500],
        });
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    let followed: Vec<(Option<String>, Option<Answer>)> =
        found.iter().map(|i| (i.url.clone(), i.url.as_ref().map(|u| follow(cfg, fs, spec, e, u)))).collect();
    DEPTH.with(|d| d.set(d.get() - 1));
    if let ([(Some(url), Some(a))], true) = (&followed[..], first.certain) {
        let says = format!("mod_rewrite redirects internally to {url} ({})", first.rule);
        return Some(Rewritten::Known(match a.clone() {
            Answer::File { status, why, log } => Answer::File { status, why: format!("{says}: {why}"), log },
            Answer::Handler { why, may } => Answer::Handler { why: format!("{says}: {why}"), may },
            Answer::Unknown { why, may } => Answer::Unknown { why: format!("{says}: {why}"), may },
        }));
    }
    let mut may = Vec::new();
    for (_, a) in &followed {
        match a {
            Some(Answer::File { status, .. }) => may.push(*status),
            Some(Answer::Handler { may: m, .. }) => may.extend(std::iter::once(200).chain(m.iter().copied())),
            Some(Answer::Unknown { may: m, .. }) => may.extend(m.iter().copied()),
            // A target not known: what a local URL commonly answers.
            None => may.extend([200, 403, 404]),
        }
    }
    let to = first.url.as_deref().unwrap_or("a URL not known here");
    let why = format!("mod_rewrite may redirect internally to {to} ({})", first.rule);
    Some(Rewritten::Maybe { why, may })
}

/// What the new request for `url` made by an internal redirect of `spec` answers.
fn follow(cfg: &Config, fs: &FsView, spec: &RequestSpec, e: &Effective, url: &str) -> Answer {
    let new = RequestSpec { path: url.to_string(), host: spec.host.clone(), request: spec.request.clone() };
    // The new request starts with the old one's variables renamed REDIRECT_… (mod_rewrite's
    // fixup runs before mod_env's: SetEnv has not added its own yet) and runs SetEnvIf again.
    let inputs = match (&e.inputs, &e.env) {
        (Some(i), Some(env)) => Some(i.redirected(env, 200)),
        _ => None,
    };
    let x = crate::ide::access::effective_in(cfg, fs, &new, inputs.as_ref());
    match x.outcome.status {
        Some(200) => crate::ide::handler::answer(cfg, fs, &new, &x)
            .unwrap_or_else(|| Answer::Handler { why: format!("{url} is granted"), may: vec![] }),
        Some(status) => {
            let rule = x.outcome.deciding.as_ref().map_or_else(String::new, |d| format!(": {}", d.rule));
            Answer::File {
                status,
                why: format!("{url} is refused ({status}{rule})"),
                log: x.outcome.log.first().cloned(),
            }
        }
        None => Answer::Unknown {
            why: format!("{url}: {}", x.outcome.reason_unknown.clone().unwrap_or_default()),
            may: x.outcome.possible_statuses.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;

    /// The redirects of GET `url` from 127.0.0.1 under `body` (DocumentRoot /nonexistent, so
    /// every `-f`/`-d` test fails), as (target, certain).
    fn redirects_of(body: &str, url: &str) -> Vec<(Option<String>, bool)> {
        let text = format!(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule rewrite_module m\n\
             DocumentRoot /nonexistent\n{body}"
        );
        let fx = Fixture::parse(&text);
        let main = std::path::PathBuf::from(&fx.0[0].0);
        let cfg = load(&main, &fx);
        let spec = crate::ide::hover::spec(url, &None, "127.0.0.1".parse().unwrap(), None);
        let e = crate::ide::access::effective(&cfg, &spec);
        redirects(&cfg, &spec, &e).into_iter().map(|i| (i.url, i.certain)).collect()
    }

    const WORDPRESS: &str = "<Directory /nonexistent>\nRewriteEngine On\nRewriteBase /\n\
        RewriteRule ^index\\.php$ - [L]\nRewriteCond %{REQUEST_FILENAME} !-f\n\
        RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . /index.php [L]\n</Directory>\n";

    #[test]
    fn wordpress_front_controller_is_followed() {
        assert_eq!(redirects_of(WORDPRESS, "/blog/post"), [(Some("/index.php".into()), true)]);
        // `^index\.php$ - [L]` ends the rules; `.` does not match the directory itself.
        assert_eq!(redirects_of(WORDPRESS, "/index.php"), []);
        assert_eq!(redirects_of(WORDPRESS, "/"), []);
        // Off: no redirect.
        assert_eq!(redirects_of(&WORDPRESS.replace("Engine On", "Engine Off"), "/blog/post"), []);
    }

    #[test]
    fn relative_targets_and_back_references_are_expanded() {
        // (The walk stops at the first missing directory: the DocumentRoot's section applies.)
        let body = "<Directory /nonexistent>\nRewriteEngine On\nRewriteRule ^app/data/(.*)$ x/$1 [L]\n</Directory>\n";
        assert_eq!(redirects_of(body, "/app/data/f.txt"), [(Some("/x/f.txt".into()), true)]);
        assert_eq!(redirects_of(body, "/app/other"), []);
        let based = body.replace("On\n", "On\nRewriteBase /b\n");
        assert_eq!(redirects_of(&based, "/app/data/f.txt"), [(Some("/b/x/f.txt".into()), true)]);
    }

    #[test]
    fn conditions_not_evaluated_leave_a_possible_redirect() {
        let body = "<Directory /nonexistent>\nRewriteEngine On\nRewriteCond %{HTTP_HOST} ^www\n\
            RewriteRule ^(.*)$ /%1/$1 [L]\n</Directory>\n";
        assert_eq!(redirects_of(body, "/a"), [(None, false)]);
        let body =
            "<Directory /nonexistent>\nRewriteEngine On\nRewriteRule ^a$ /b\nRewriteRule ^c$ /d [L]\n</Directory>\n";
        // Without [L] the next rules see the rewritten path: neither is certain.
        assert_eq!(redirects_of(body, "/a"), [(Some("/b".into()), false), (Some("/d".into()), false)]);
    }
}
