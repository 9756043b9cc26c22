//! How a `<Directory>`, `<Files>` or `<Location>` section (or its `…Match` form) is matched
//! against a request: fnmatch wildcards, regular expressions compiled and cached per thread,
//! and `<Location>`'s segment-wise prefix.

use crate::ide::config::Node;
use crate::ide::pcre_match::Pcre;
use crate::ide::regex_cache::{with_cached, RegexCache};

/// fnmatch-style matching (`*`, `?`, `[…]`) as `apr_fnmatch` reads it; with `pathname`,
/// wildcards do not cross `/`.
pub fn wildcard_match(pattern: &str, text: &str, pathname: bool) -> bool {
    if !has_wildcard(pattern) {
        return pattern == text;
    }
    crate::ide::fnmatch::fnmatch(pattern, text, pathname, false)
}

/// Whether httpd takes `s` as a wildcard (`apr_fnmatch_test`: `*`, `?`, or a closed `[…]`).
pub(crate) fn has_wildcard(s: &str) -> bool {
    memchr::memchr3(b'*', b'?', b'[', s.as_bytes()).is_some() && crate::ide::fnmatch::is_wildcard(s)
}

/// How a `<Directory>`, `<Files>` or `<Location>` section (or its `…Match` form) names what it
/// applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SectionPattern<'a> {
    /// `<X ~ re>` or `<XMatch re>`.
    Regex(&'a str),
    /// A pattern with `*`, `?` or `[` (fnmatch).
    Wildcard(&'a str),
    /// A plain path or name.
    Plain(&'a str),
}

/// The pattern of a section; None when it has none. As in httpd's `dirsection`, `filesection`
/// and `urlsection`, a `…Match` section's first word is its expression (even `~`); otherwise a
/// first word `~` announces the expression after it.
pub(crate) fn section_pattern(n: &Node) -> Option<SectionPattern<'_>> {
    let name = n.name();
    let named_match = name.len() >= 5 && name.get(name.len() - 5..).is_some_and(|t| t.eq_ignore_ascii_case("match"));
    let mut args = n.args();
    let first = args.next();
    let tilde = !named_match && first == Some("~");
    let pat = if tilde { args.next() } else { first }?;
    Some(if tilde || named_match {
        SectionPattern::Regex(pat)
    } else if has_wildcard(pat) {
        SectionPattern::Wildcard(pat)
    } else {
        SectionPattern::Plain(pat)
    })
}

/// Whether the section applies to `text`: its regex (case-sensitive) or wildcard matches, or
/// `plain` says its plain pattern does; None when its regex cannot be evaluated (never to be
/// read as "does not apply").
pub(super) fn section_applies(n: &Node, text: &str, plain: impl Fn(&str, &str) -> bool) -> Option<bool> {
    match section_pattern(n) {
        Some(SectionPattern::Regex(re)) => regex_matches(re, text, false),
        Some(SectionPattern::Wildcard(w)) => Some(wildcard_match(w, text, true)),
        Some(SectionPattern::Plain(p)) => Some(plain(p, text)),
        None => Some(false),
    }
}

/// The variables a regex section that matched `text` sets in the request's environment
/// (`server/request.c`, the walks): `MATCH_` and the upper-cased name of each named group that
/// took part in the match, with the text it matched; none for a section without a regex.
pub(crate) fn section_match_vars(n: &Node, text: &str) -> Vec<(String, String)> {
    let Some(SectionPattern::Regex(re)) = section_pattern(n) else {
        return Vec::new();
    };
    if !re.contains("(?") {
        return Vec::new();
    }
    with_regex(re, false, |r| {
        let names = r.named_groups();
        if names.is_empty() {
            return Vec::new();
        }
        let caps = r.captures(text.as_bytes()).unwrap_or_default();
        let mut by_number: Vec<(usize, String)> = names;
        by_number.sort_by_key(|(i, _)| *i);
        by_number
            .into_iter()
            .filter_map(|(i, name)| {
                let (s, e) = caps.get(i).copied().flatten()?;
                let value = String::from_utf8_lossy(&text.as_bytes()[s..e]).into_owned();
                Some((format!("MATCH_{}", name.to_ascii_uppercase()), value))
            })
            .collect()
    })
    .unwrap_or_default()
}

/// Compiled section patterns kept per thread. A big tree has a pattern per virtual host
/// (`<DirectoryMatch>` of its own root), and walks of one virtual host's sections come
/// together: keep few.
const PATTERNS_KEPT: usize = 64;

/// Runs `f` on the pattern compiled as httpd compiles it ([`Pcre`]), cached per thread; None
/// when httpd's PCRE2 refuses it.
pub(crate) fn with_regex<T>(pattern: &str, case_insensitive: bool, f: impl FnOnce(&Pcre) -> T) -> Option<T> {
    thread_local! {
        static CACHE: RegexCache<Pcre> = Default::default();
    }
    with_cached(&CACHE, PATTERNS_KEPT, pattern, case_insensitive, || compile(pattern, case_insensitive), f)
}

/// [`Pcre::compile`], except for a pattern the PCRE2 httpd links surely refuses where the
/// bundled one (a later release) would take it ([`crate::ide::policy::pcre`]).
pub(crate) fn compile(pattern: &str, case_insensitive: bool) -> Option<Pcre> {
    if crate::ide::policy::pcre::pcre_refuses(pattern) {
        return None;
    }
    Pcre::compile(pattern, case_insensitive)
}

/// Whether the regular expression matches as httpd's PCRE2 matches it (cached per thread);
/// None when it is not known: PCRE2 refuses the pattern, or gives up on the text (a match
/// limit). Callers must not read None as "no match".
pub(crate) fn regex_matches(pattern: &str, text: &str, case_insensitive: bool) -> Option<bool> {
    thread_local! {
        static LITERALS: RegexCache<crate::ide::literal_regex::Literal> = Default::default();
    }
    // A pattern of literal text and groups is matched without compiling it. Those are kept
    // apart (and many more of them: they are small), so that a big tree's one pattern per
    // virtual host does not push the shared compiled ones out.
    if !case_insensitive {
        let literal = with_cached(
            &LITERALS,
            LITERALS_KEPT,
            pattern,
            false,
            || crate::ide::literal_regex::parse(pattern),
            |l| l.is_match(text),
        );
        if literal.is_some() {
            return literal;
        }
    }
    with_regex(pattern, case_insensitive, |r| r.is_match(text.as_bytes())).flatten()
}

/// Literal section patterns ([`crate::ide::literal_regex`]) kept per thread.
const LITERALS_KEPT: usize = 4096;

pub(super) fn location_prefix(pat: &str, url: &str) -> bool {
    // Plain paths match on a segment boundary; `/sub/` does not match `/sub`.
    if pat == "/" {
        return true;
    }
    url.starts_with(pat) && (pat.ends_with('/') || url.len() == pat.len() || url.as_bytes()[pat.len()] == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// `~` announces an expression in the plain forms; a `…Match` section's first word is its
    /// expression, `~` included (httpd's dirsection/filesection/urlsection).
    #[test]
    fn section_patterns_as_httpd_reads_them() {
        let fx = crate::ide::diagnostics::tests::Fixture::parse(concat!(
            "//- /etc/httpd/httpd.conf\n",
            "<Directory ~ \"^/a\">\n</Directory>\n<DirectoryMatch ~>\n</DirectoryMatch>\n",
            "<FilesMatch \"\\.x$\">\n</FilesMatch>\n<Files *.y>\n</Files>\n<Location /p>\n</Location>\n",
            "<Directory ~>\n</Directory>\n",
        ));
        let cfg = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let found: Vec<_> = cfg.nodes.iter().filter(|n| n.is_section()).map(section_pattern).collect();
        use SectionPattern::*;
        assert_eq!(
            found,
            [
                Some(Regex("^/a")),
                Some(Regex("~")),
                Some(Regex("\\.x$")),
                Some(Wildcard("*.y")),
                Some(Plain("/p")),
                None
            ]
        );
    }

    #[test]
    fn location_prefix_on_segment_boundary() {
        assert!(location_prefix("/sub", "/sub"));
        assert!(location_prefix("/sub", "/sub/x"));
        assert!(!location_prefix("/sub", "/subx"));
        assert!(!location_prefix("/sub/", "/sub"));
    }
}
