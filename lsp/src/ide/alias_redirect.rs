//! Feature: mod_alias's redirects (`Redirect`, `RedirectMatch`, `RedirectPermanent`,
//! `RedirectTemp`) as the status of a request (`modules/mappers/mod_alias.c`).
//!
//! Those written at server level (the main server's or a virtual host's own lines) are tried by
//! `translate_alias_redir` at translate_name, before the directory walk and before access
//! control: the redirect is the answer whatever access says (the virtual host's lines first,
//! then the main server's). So is the one-argument form in a `<Location>` or in an `<If>`
//! outside `<Directory>`/`<Files>`: httpd merges those before translate_name
//! (`server/request.c: walk_location_and_if`), and `try_redirect` reads them there first. The
//! others written in a section (`<Directory>`, `<Location>`, `<Files>`,
//! `<If>`, .htaccess) are tried by `fixup_redir` at the fixups, after access control passed and
//! before mod_dir and the handler: first the last section's one-argument form (`Redirect URL`
//! or `Redirect gone` inside the section, which applies to every request there), then the path
//! forms, the last merged section's lines first.
//!
//! A 3xx answers with the target; `gone` and other non-3xx statuses answer without one; a
//! target that is neither a URL nor a path (a `RedirectMatch` substitution) is a 500.

use crate::ide::access::patterns::with_regex;
use crate::ide::access::{regex_matches, AppliedSection, Effective};
use crate::ide::config::{Config, FileId, Node, NodeKind};
use crate::ide::handler::Answer;
use crate::ide::pcre_match::pregsub;
use crate::ide::policy::{Deciding, Item, Layer, Outcome, TraceStep};
use apache_syntax::TextRange;

/// A redirect's answer to a request: known, or which statuses it may give and why not known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redirected {
    Known { status: u16, why: String },
    Maybe { statuses: Vec<u16>, why: String },
}

/// One redirect line as `add_redirect_internal` reads its arguments.
#[derive(Debug, PartialEq, Eq)]
enum Line<'a> {
    /// Inside a section, with no path: applies to every request there (`Redirect [status] URL`,
    /// `Redirect gone`); `target` None for a status without URL.
    Whole { status: u16, target: Option<&'a str> },
    /// A URL-path prefix (or a regex for `RedirectMatch`) and the target, when the status is a
    /// redirect.
    Path { pattern: &'a str, regex: bool, status: u16, target: Option<&'a str> },
}

/// Reads a redirect directive's arguments as httpd does; None for one that is not a redirect
/// or that httpd refuses to load (the checker reports those).
fn parse<'a>(name: &str, args: &'a [String], in_section: bool) -> Option<Line<'a>> {
    let name = name.to_ascii_lowercase();
    let (default, regex) = match name.as_str() {
        "redirect" => (302, false),
        "redirectmatch" => (302, true),
        "redirectpermanent" => (301, false),
        "redirecttemp" => (302, false),
        _ => return None,
    };
    let arg1 = args.first()?.as_str();
    let arg2 = args.get(1).map(String::as_str);
    let arg3 = args.get(2).map(String::as_str);
    // RedirectPermanent and RedirectTemp take two arguments, a path and a URL: their first is
    // still read as a status word first, as httpd does.
    let (mut status, grok) = match arg1.to_ascii_lowercase().as_str() {
        "permanent" => (301, 1),
        "temp" => (302, 1),
        "seeother" => (303, 1),
        "gone" => (410, -1),
        w if w.starts_with(|c: char| c.is_ascii_digit()) => {
            let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
            let s: u16 = digits.parse().ok()?;
            (s, if is_redirect(s) { 1 } else { -1 })
        }
        _ => (default, 0),
    };
    if arg3.is_some() && grok == 0 {
        return None;
    }
    if in_section && ((grok > 0 && arg2.is_some() && arg3.is_none()) || (grok == 0 && arg2.is_none())) {
        return Some(Line::Whole { status, target: Some(if grok != 0 { arg2? } else { arg1 }) });
    }
    if in_section && grok < 0 && arg2.is_none() {
        return Some(Line::Whole { status, target: None });
    }
    let (pattern, target) = match (arg3, grok) {
        (None, 0) => (arg1, arg2),
        _ => (arg2?, arg3),
    };
    if grok == 0 {
        status = default;
    }
    // httpd refuses a redirect status without a URL, and a URL with another status.
    if is_redirect(status) != target.is_some() {
        return None;
    }
    Some(Line::Path { pattern, regex, status, target })
}

/// `ap_is_HTTP_REDIRECT`.
fn is_redirect(status: u16) -> bool {
    (300..400).contains(&status)
}

/// `ap_is_url`: a scheme (letters, digits, `+`, `-`, `.`) and a colon.
fn is_url(s: &str) -> bool {
    match s.split_once(':') {
        Some((scheme, _)) => {
            !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }
        None => false,
    }
}

/// `alias_matches`: whether the URL-path prefix `fake` matches `uri` (any run of `/` in one
/// matches any run in the other, and the last component must match whole).
fn prefix_matches(uri: &str, fake: &str) -> bool {
    let (u, a) = (uri.as_bytes(), fake.as_bytes());
    let (mut i, mut j) = (0, 0);
    while j < a.len() {
        if a[j] == b'/' {
            if u.get(i) != Some(&b'/') {
                return false;
            }
            while a.get(j) == Some(&b'/') {
                j += 1;
            }
            while u.get(i) == Some(&b'/') {
                i += 1;
            }
        } else {
            if u.get(i) != Some(&a[j]) {
                return false;
            }
            i += 1;
            j += 1;
        }
    }
    j > 0 && (a[j - 1] == b'/' || i == u.len() || u[i] == b'/')
}

/// The answer of one line to `uri` (decoded, normalized), None when it does not apply.
fn answer(line: &Line, uri: &str, at: &str) -> Option<Redirected> {
    let (status, target, matched) = match *line {
        Line::Whole { status, target } => (status, target, format!("every request in its section ({at})")),
        Line::Path { pattern, regex: false, status, target } => {
            if !prefix_matches(uri, pattern) {
                return None;
            }
            (status, target, format!("{uri} under the path {pattern} ({at})"))
        }
        Line::Path { pattern, regex: true, status, target } => match regex_matches(pattern, uri, false) {
            Some(false) => return None,
            Some(true) => {
                let matched = format!("{uri} matching {pattern} ({at})");
                // The pattern matched: `ap_pregsub` makes the target from its groups.
                let made = target.filter(|t| t.contains('$')).and_then(|t| {
                    with_regex(pattern, false, |r| r.captures(uri.as_bytes()))
                        .flatten()
                        .filter(|caps| !caps.is_empty())
                        .map(|caps| pregsub(t, uri.as_bytes(), &caps))
                });
                if let Some(made) = made {
                    return Some(substituted(status, &made, &matched));
                }
                (status, target, matched)
            }
            None => {
                let mut statuses = vec![status];
                if target.is_some_and(|t| !t.starts_with('/') && !is_url(t)) {
                    statuses.push(500);
                }
                return Some(Redirected::Maybe {
                    statuses,
                    why: format!("the regular expression {pattern} ({at}) is not one explain evaluates"),
                });
            }
        },
    };
    let what = match target {
        Some(t) => format!("mod_alias redirects {matched} to {t}: {status}"),
        None => format!("mod_alias answers {matched} with {status}"),
    };
    match target {
        // A path or a URL; else a RedirectMatch substitution or an expression may make one.
        Some(t) if !t.starts_with('/') && !is_url(t) => {
            if t.starts_with('$') || t.starts_with("%{") {
                Some(Redirected::Maybe {
                    statuses: vec![status, 500],
                    why: format!("{what}, unless the target {t} turns out neither a URL nor a path (500)"),
                })
            } else {
                Some(Redirected::Known {
                    status: 500,
                    why: format!("{what}, but the target {t} is neither a URL nor a path: 500 (AH00674/AH00676)"),
                })
            }
        }
        _ => Some(Redirected::Known { status, why: what }),
    }
}

/// The answer of a RedirectMatch whose target `made` came out of the substitution: mod_alias
/// parses it as a URI and writes it back (`apr_uri_unparse`, which keeps a scheme only with a
/// host), then wants a path or a URL.
fn substituted(status: u16, made: &str, matched: &str) -> Redirected {
    let what = format!("mod_alias redirects {matched} to {made}");
    if !is_redirect(status) {
        return Redirected::Known { status, why: format!("mod_alias answers {matched} with {status}") };
    }
    let with_host = made.split_once("://").is_some_and(|(scheme, _)| is_url(&format!("{scheme}:")));
    if made.starts_with('/') || with_host {
        Redirected::Known { status, why: format!("{what}: {status}") }
    } else if !is_url(made) {
        Redirected::Known { status: 500, why: format!("{what}, neither a URL nor a path: 500 (AH00674/AH00676)") }
    } else {
        // A scheme without a host: what the URI parser keeps of it is not modelled.
        Redirected::Maybe { statuses: vec![status, 500], why: format!("{what}, a scheme without a host") }
    }
}

/// What a redirect answers `uri` at translate_name, before the directory walk and access
/// control: the one-argument form of the last `<Location>` or `<If>` outside any `<Directory>`
/// and `<Files>` that holds one (httpd walks those before translate_name, and `try_redirect`
/// reads the merged result), else the server's lines (the virtual host's, then the main
/// server's; the first that applies).
pub fn at_translation(cfg: &Config, e: &Effective, uri: &str) -> Option<Redirected> {
    if !uri.starts_with('/') || !cfg.module_loaded("alias_module") {
        return None;
    }
    let whole = e
        .per_dir
        .iter()
        .filter_map(|(level, item)| {
            let Item::Directive { name, args, loc, .. } = item else { return None };
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            let line @ Line::Whole { .. } = parse(name, &args, true)? else { return None };
            let section = e.sections.get(*level)?;
            if !walked_before_translation(cfg, section) {
                return None;
            }
            let at = format!("{name} {} at {}:{}", args.join(" "), loc.file.display(), loc.line);
            answer(&line, uri, &at)
        })
        .last();
    if whole.is_some() {
        return whole;
    }
    let vhost = e.vhost_node.and_then(|i| cfg.nodes.get(i)).map(|v| v.children.as_slice()).unwrap_or_default();
    vhost.iter().chain(&cfg.nodes).filter(|n| n.kind == NodeKind::Directive).find_map(|n| {
        let args = n.arg_strings();
        let line = parse(n.name(), &args, false)?;
        let at =
            format!("{} {} at {}:{}", n.name(), args.join(" "), cfg.file(n.loc.file).path.display(), cfg.line(&n.loc));
        answer(&line, uri, &at)
    })
}

/// What answers `spec` at translate_name, before the walk: mod_alias's redirects
/// ([`at_translation`]), else mod_userdir's redirect of a `/~user` URL to the URL its
/// `UserDir` names (302; mod_userdir's hook runs after mod_alias's, and an Alias maps first).
pub fn at_translate_name(cfg: &Config, e: &Effective, spec: &crate::ide::access::RequestSpec) -> Option<Redirected> {
    at_translation(cfg, e, &crate::ide::access::normalize_url(&spec.path)).or_else(|| {
        let to = crate::ide::access::userdir_redirect(cfg, spec)?;
        Some(Redirected::Known { status: 302, why: format!("mod_userdir redirects to {to} (UserDir names a URL)") })
    })
}

/// Whether httpd merges `section` before translate_name (`walk_location_and_if`): a
/// `<Location>`, or an `<If>` branch of the configuration files not inside a `<Directory>` or
/// `<Files>` (one in an .htaccess file is read during the directory walk).
fn walked_before_translation(cfg: &Config, section: &AppliedSection) -> bool {
    let kind = section.kind.to_ascii_lowercase();
    if kind.starts_with("location") {
        return true;
    }
    if !matches!(kind.as_str(), "if" | "elseif" | "else") {
        return false;
    }
    let Some(file) = section.file else { return false };
    // The sections enclosing it, from the top.
    fn enclosing<'c>(nodes: &'c [Node], file: FileId, range: TextRange, out: &mut Vec<&'c str>) -> bool {
        for n in nodes.iter().filter(|n| n.is_section()) {
            if n.loc.file == file && n.loc.range == range {
                return true;
            }
            out.push(n.name());
            if enclosing(&n.children, file, range, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut around = Vec::new();
    enclosing(&cfg.nodes, file, section.range, &mut around)
        && around.iter().all(|k| {
            let k = k.to_ascii_lowercase();
            k.starts_with("location") || k == "virtualhost" || k == "if" || k == "elseif" || k == "else"
        })
}

/// What a redirect in the sections merged for the request (`e.per_dir`) answers `uri` at the
/// fixups, once access control passed: the last section's one-argument form first, then the
/// path forms, the last merged section's lines first (`merge_alias_dir_config` puts a
/// section's lines before those it overrides).
pub fn at_fixup(cfg: &Config, e: &Effective, uri: &str) -> Option<Redirected> {
    if !cfg.module_loaded("alias_module") {
        return None;
    }
    let mut whole: Option<Redirected> = None;
    // Per merged section (its level), its path forms in written order.
    let mut levels: Vec<(usize, Vec<Redirected>)> = Vec::new();
    for (level, item) in &e.per_dir {
        let Item::Directive { name, args, loc, .. } = item else { continue };
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let Some(line) = parse(name, &args, true) else { continue };
        let at = format!("{name} {} at {}:{}", args.join(" "), loc.file.display(), loc.line);
        match line {
            Line::Whole { .. } => whole = answer(&line, uri, &at),
            Line::Path { .. } => {
                let Some(r) = answer(&line, uri, &at) else { continue };
                match levels.last_mut() {
                    Some((l, rs)) if l == level => rs.push(r),
                    _ => levels.push((*level, vec![r])),
                }
            }
        }
    }
    whole.or_else(|| {
        // The first that applies in merge order; one that may or may not apply leaves the
        // next possible too.
        let mut maybe: Option<(Vec<u16>, Vec<String>)> = None;
        for r in levels.into_iter().rev().flat_map(|(_, rs)| rs) {
            match r {
                Redirected::Known { status, why } => match maybe {
                    None => return Some(Redirected::Known { status, why }),
                    Some((mut st, whys)) => {
                        st.push(status);
                        return Some(Redirected::Maybe { statuses: st, why: whys.join("; ") });
                    }
                },
                Redirected::Maybe { statuses, why } => {
                    let m = maybe.get_or_insert_with(Default::default);
                    m.0.extend(statuses);
                    m.1.push(why);
                }
            }
        }
        maybe.map(|(statuses, whys)| Redirected::Maybe { statuses, why: whys.join("; ") })
    })
}

/// Sets `e` to what a server-level redirect `r` answers before the walk: a known status
/// replaces the walk (no section applies, no access check runs, nothing is logged); one that
/// may apply leaves the walk's answers possible beside its own. The answer, for a known one.
pub fn answer_at_translation(e: &mut Effective, r: &Redirected) -> Option<Answer> {
    match r {
        Redirected::Known { status, why } => {
            e.outcome = Outcome {
                status: Some(*status),
                reason_unknown: None,
                possible_statuses: vec![*status],
                deciding: Some(Deciding { layer: Layer::Core, rule: why.clone(), loc: None }),
                trace: vec![TraceStep {
                    depth: 0,
                    text: format!("{status} at translate_name, before any section is walked: no access check runs"),
                    loc: None,
                }],
                log: Vec::new(),
            };
            e.sections.clear();
            e.per_dir.clear();
            e.unknown.clear();
            e.compat = None;
            e.authz = None;
            e.index = None;
            Some(Answer::File { status: *status, why: why.clone(), log: None })
        }
        Redirected::Maybe { statuses, why } => {
            let o = &mut e.outcome;
            o.possible_statuses.extend(o.status.take());
            o.possible_statuses.extend(statuses.iter().copied());
            o.possible_statuses.sort_unstable();
            o.possible_statuses.dedup();
            o.reason_unknown = Some(format!("a server-level redirect may answer before the walk: {why}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    /// The argument forms `add_redirect_internal` tells apart, in and outside a section.
    #[test]
    fn redirect_arguments_are_read_as_httpd_reads_them() {
        let a = args("301 http://x/");
        assert_eq!(parse("Redirect", &a, true), Some(Line::Whole { status: 301, target: Some("http://x/") }));
        // Outside a section the URL would be the path, and the URL is missing: httpd refuses it.
        assert_eq!(parse("Redirect", &a, false), None);
        let a = args("gone");
        assert_eq!(parse("Redirect", &a, true), Some(Line::Whole { status: 410, target: None }));
        let a = args("http://x/");
        assert_eq!(parse("Redirect", &a, true), Some(Line::Whole { status: 302, target: Some("http://x/") }));
        let a = args("/a http://x/");
        assert_eq!(
            parse("Redirect", &a, true),
            Some(Line::Path { pattern: "/a", regex: false, status: 302, target: Some("http://x/") })
        );
        let a = args("seeother /a /b");
        assert_eq!(
            parse("Redirect", &a, false),
            Some(Line::Path { pattern: "/a", regex: false, status: 303, target: Some("/b") })
        );
        let a = args("gone /a");
        assert_eq!(
            parse("Redirect", &a, false),
            Some(Line::Path { pattern: "/a", regex: false, status: 410, target: None })
        );
        let a = args("^/a(.*) http://x/$1");
        assert_eq!(
            parse("RedirectMatch", &a, false),
            Some(Line::Path { pattern: "^/a(.*)", regex: true, status: 302, target: Some("http://x/$1") })
        );
        let a = args("/a http://x/");
        assert_eq!(
            parse("RedirectPermanent", &a, false),
            Some(Line::Path { pattern: "/a", regex: false, status: 301, target: Some("http://x/") })
        );
        // A non-redirect status with a URL, three arguments with an unknown first: refused.
        assert_eq!(parse("Redirect", &args("404 /a http://x/"), false), None);
        assert_eq!(parse("Redirect", &args("nope /a http://x/"), false), None);
    }

    /// `alias_matches`: runs of slashes match each other, the last component whole.
    #[test]
    fn a_redirect_path_matches_whole_components() {
        assert!(prefix_matches("/sub/a.txt", "/sub"));
        assert!(prefix_matches("/sub", "/sub"));
        assert!(prefix_matches("//sub//a", "/sub/"));
        assert!(!prefix_matches("/subway", "/sub"));
        assert!(prefix_matches("/subway", "/"));
        assert!(!prefix_matches("/other", "/sub"));
    }

    /// Once the pattern matched, the groups make the target, and the answer is known.
    #[test]
    fn a_substituted_target_is_judged_once_made() {
        let line = Line::Path { pattern: "^/a/(.*)$", regex: true, status: 301, target: Some("$1") };
        let status = |uri: &str| match answer(&line, uri, "x") {
            Some(Redirected::Known { status, .. }) => Some(status),
            _ => None,
        };
        assert_eq!(status("/a/"), Some(500));
        assert_eq!(status("/a/word"), Some(500));
        assert_eq!(status("/a//p"), Some(301));
        assert_eq!(status("/a/https://h/p"), Some(301));
        // A scheme without a host is not judged.
        assert_eq!(status("/a/mailto:x"), None);
        assert_eq!(status("/b"), None);
    }

    /// A target that is neither a path nor a URL is a 500.
    #[test]
    fn a_target_neither_url_nor_path_is_an_error() {
        let line = Line::Path { pattern: "/a", regex: false, status: 302, target: Some("elsewhere") };
        assert!(matches!(answer(&line, "/a", "x"), Some(Redirected::Known { status: 500, .. })));
        let line = Line::Path { pattern: "^/a(.*)", regex: true, status: 301, target: Some("$1") };
        // (The groups make `/b`, a path.)
        assert!(matches!(answer(&line, "/a/b", "x"), Some(Redirected::Known { status: 301, .. })));
        assert_eq!(answer(&line, "/b", "x"), None);
        // Lookaround, as PCRE2 evaluates it.
        let line = Line::Path { pattern: "^/(?!b)", regex: true, status: 302, target: Some("/b") };
        assert!(matches!(answer(&line, "/a", "x"), Some(Redirected::Known { status: 302, .. })));
        assert_eq!(answer(&line, "/b", "x"), None);
    }
}
