//! Wildcards as APR's `apr_fnmatch` reads them (httpd's `Include` globs, `<Directory>` and
//! `<Files>` wildcards, `-fnmatch` in expressions), over the `glob` crate's matcher. The two
//! read a few spellings differently, which are translated here: APR negates a bracket set with
//! `^` as well as `!` (`[^a]`; the crate takes `^` as a member), and a backslash outside a set
//! makes the next character literal (`\*`; the crate takes the backslash itself).

use std::borrow::Cow;

/// Whether `pattern` holds a wildcard, as `apr_fnmatch_test` decides: `*` or `?`, or a `[`
/// closed by a later `]`; a backslash hides the character after it.
pub(crate) fn is_wildcard(pattern: &str) -> bool {
    let mut open = false;
    let mut bytes = pattern.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'*' | b'?' => return true,
            // The guard takes the hidden character (a backslash at the end hides nothing).
            b'\\' if bytes.next().is_none() => return false,
            b'[' => open = true,
            b']' if open => return true,
            _ => {}
        }
    }
    false
}

/// `pattern` in the `glob` crate's spelling: `[^` becomes `[!`, and `\c` outside a set becomes
/// `c`, written `[c]` when `c` is one of the crate's wildcard characters.
fn in_glob_spelling(pattern: &str) -> Cow<'_, str> {
    if !pattern.contains(['\\', '^', '[']) && !pattern.contains("**") {
        return Cow::Borrowed(pattern);
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => match chars.get(i + 1) {
                Some(&c) => {
                    if matches!(c, '*' | '?' | '[') {
                        out.extend(['[', c, ']']);
                    } else {
                        out.push(c);
                    }
                    i += 2;
                }
                None => {
                    out.push('\\');
                    i += 1;
                }
            },
            '[' => {
                // A set runs to the first `]` after its first member (which may be `]`).
                let mut j = i + 1;
                let negated = matches!(chars.get(j), Some('!' | '^'));
                if negated {
                    j += 1;
                }
                let first = j;
                while j < chars.len() && (chars[j] != ']' || j == first) {
                    j += 1;
                }
                if j >= chars.len() {
                    out.push_str("[[]"); // never closed: a plain `[`
                    i += 1;
                    continue;
                }
                out.push('[');
                if negated {
                    out.push('!');
                }
                out.extend(&chars[first..=j]);
                i = j + 1;
            }
            // Two stars match what one does (the crate reads `**` as recursion, or refuses it).
            '*' if out.ends_with('*') => i += 1,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// Whether `text` matches the wildcard `pattern` as `apr_fnmatch` answers: with `pathname`
/// (APR_FNM_PATHNAME) no wildcard crosses a `/`; with `period` (APR_FNM_PERIOD) a leading `.`
/// is matched only by a `.` written in the pattern. A pattern the matcher cannot read matches
/// only itself.
pub(crate) fn fnmatch(pattern: &str, text: &str, pathname: bool, period: bool) -> bool {
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: pathname,
        require_literal_leading_dot: period,
    };
    glob::Pattern::new(&in_glob_spelling(pattern)).map(|p| p.matches_with(text, opts)).unwrap_or(pattern == text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_negated_with_a_caret_or_a_bang() {
        for p in ["[^a]", "[!a]"] {
            assert!(!fnmatch(p, "a", true, false), "{p}");
            assert!(fnmatch(p, "b", true, false), "{p}");
        }
        assert!(fnmatch("[]a]", "]", true, false));
        assert!(fnmatch("[^]a]x", "bx", true, false));
        assert!(!fnmatch("[^]a]x", "]x", true, false));
        assert!(fnmatch("a^b", "a^b", true, false));
    }

    #[test]
    fn a_backslash_makes_the_next_character_literal() {
        assert!(fnmatch("a\\*", "a*", true, false));
        assert!(!fnmatch("a\\*", "ab", true, false));
        assert!(fnmatch("\\[x]", "[x]", true, false));
        assert!(fnmatch("a\\b*", "abc", true, false));
    }

    #[test]
    fn leading_dots_and_separators() {
        assert!(!fnmatch("*", ".h", true, true));
        assert!(fnmatch("*", ".h", true, false));
        assert!(fnmatch(".*", ".h", true, true));
        assert!(!fnmatch("/srv/*", "/srv/a/b", true, false));
        assert!(fnmatch("/srv/*", "/srv/a/b", false, false));
        assert!(fnmatch("a[", "a[", true, false));
        // A `[` never closed is a plain character, wildcards after it stay wildcards.
        for (p, t) in
            [("a[*.conf", "a[.conf"), ("a[*.conf", "a[b.conf"), ("a[?.conf", "a[b.conf"), ("a[b*", "a[b.conf")]
        {
            assert!(fnmatch(p, t, true, true), "{p} {t}");
        }
        assert!(fnmatch("a**b", "axyb", true, false));
        assert!(!fnmatch("a**b", "ax/b", true, false));
    }

    #[test]
    fn what_is_a_wildcard() {
        for (p, wild) in [
            ("a*", true),
            ("a?", true),
            ("[ab]", true),
            ("a[b", false),
            ("a]b", false),
            ("\\*", false),
            ("a\\", false),
            ("plain/path", false),
        ] {
            assert_eq!(is_wildcard(p), wild, "{p}");
        }
    }
}
