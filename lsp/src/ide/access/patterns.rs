//! How a `<Directory>`, `<Files>` or `<Location>` section (or its `…Match` form) is matched
//! against a request: fnmatch wildcards, regular expressions compiled and cached per thread,
//! and `<Location>`'s segment-wise prefix.

use crate::ide::config::Node;
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
/// `plain` says its plain pattern does.
pub(super) fn section_applies(n: &Node, text: &str, plain: impl Fn(&str, &str) -> bool) -> bool {
    match section_pattern(n) {
        Some(SectionPattern::Regex(re)) => regex_matches(re, text, false).unwrap_or(false),
        Some(SectionPattern::Wildcard(w)) => wildcard_match(w, text, true),
        Some(SectionPattern::Plain(p)) => plain(p, text),
        None => false,
    }
}

/// Compiled section patterns kept per thread. A compiled regex with its search caches takes tens
/// of kilobytes; a big tree has a pattern per virtual host (`<DirectoryMatch>` of its own root),
/// and walks of one virtual host's sections come together: keep few.
const PATTERNS_KEPT: usize = 64;

/// Runs `f` on the compiled regular expression; None when it does not compile (cached per thread).
pub(super) fn with_regex<T>(pattern: &str, case_insensitive: bool, f: impl FnOnce(&regex::Regex) -> T) -> Option<T> {
    thread_local! {
        static CACHE: RegexCache<regex::Regex> = Default::default();
    }
    let build = || regex::RegexBuilder::new(pattern).case_insensitive(case_insensitive).build().ok();
    with_cached(&CACHE, PATTERNS_KEPT, pattern, case_insensitive, build, f)
}

/// Whether the regular expression matches (cached per thread); None when it does not compile.
///
/// Built as [`regex::RegexBuilder`] builds it (the same syntax options and size limit over the
/// same engine: the same patterns compile, the same texts match) but without the search engines
/// that pay off only over many or long searches (full, one-pass and lazy DFAs): a walk tests each
/// `<DirectoryMatch>`, `<FilesMatch>` and `<LocationMatch>` against a few short texts, and
/// building those engines cost more than all its searches.
pub(crate) fn regex_matches(pattern: &str, text: &str, case_insensitive: bool) -> Option<bool> {
    use regex_automata::{meta, util::syntax, MatchKind};
    thread_local! {
        static LITERALS: RegexCache<crate::ide::literal_regex::Literal> = Default::default();
        static CACHE: RegexCache<meta::Regex> = Default::default();
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
    let build = || {
        // regex 1.x's `RegexBuilder::new` and `build_one_string`, engines left out.
        let config = meta::Config::new()
            .nfa_size_limit(Some(10 * (1 << 20)))
            .match_kind(MatchKind::LeftmostFirst)
            .utf8_empty(true)
            .dfa(false)
            .onepass(false)
            .hybrid(false);
        let syntax = syntax::Config::new().case_insensitive(case_insensitive).utf8(true);
        meta::Builder::new().configure(config).syntax(syntax).build(pattern).ok()
    };
    with_cached(&CACHE, PATTERNS_KEPT, pattern, case_insensitive, build, |r| r.is_match(text))
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
