//! Regular expressions made only of literal text and groups of literal alternatives, matched
//! without compiling them.
//!
//! A section regex is tested against a handful of short texts, so compiling it is nearly all of
//! its cost (about 130 000 instructions for a `<DirectoryMatch "^/srv/www/site/(uploads|cache)/">`,
//! of which a big tree has one per virtual host). Most such patterns are an anchored path with
//! a group of names: this module reads those by hand and matches them directly. Anything else
//! (classes, quantifiers, `.`, flags, nested groups, other escapes) is left to PCRE2
//! ([`parse`] returns None), so the answer is always httpd's (property tests below hold the two
//! to each other).

/// One piece of a [`Literal`] pattern: text, or a group of alternatives tried in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Group(Vec<String>),
}

/// A pattern of the shape `^? (text | (alt|alt|…))* $?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Literal {
    start: bool,
    end: bool,
    pieces: Vec<Piece>,
}

/// Characters the regex syntax gives a meaning outside a class: taken literally only escaped.
const META: &[u8] = b"\\.+*?()|[]{}^$";

/// Reads `pattern` as a [`Literal`] pattern (case-sensitive, as the regex engine reads it
/// without flags), or None when it has anything else.
pub(crate) fn parse(pattern: &str) -> Option<Literal> {
    let b = pattern.as_bytes();
    // PCRE2 is handed the pattern NUL-terminated: leave that to it.
    if b.contains(&0) {
        return None;
    }
    let mut i = 0;
    let start = b.first() == Some(&b'^');
    if start {
        i = 1;
    }
    let mut end = false;
    let mut pieces: Vec<Piece> = Vec::new();
    let mut text: Vec<u8> = Vec::new();
    while i < b.len() {
        match b[i] {
            b'$' if i + 1 == b.len() => {
                end = true;
                i += 1;
            }
            b'\\' => {
                text.push(escaped(b, i)?);
                i += 2;
            }
            b'(' => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(String::from_utf8(std::mem::take(&mut text)).ok()?));
                }
                i += 1;
                if b[i..].starts_with(b"?:") {
                    i += 2;
                }
                let mut alts = Vec::new();
                let mut alt: Vec<u8> = Vec::new();
                loop {
                    match *b.get(i)? {
                        b')' => {
                            alts.push(String::from_utf8(std::mem::take(&mut alt)).ok()?);
                            i += 1;
                            break;
                        }
                        b'|' => {
                            alts.push(String::from_utf8(std::mem::take(&mut alt)).ok()?);
                            i += 1;
                        }
                        b'\\' => {
                            alt.push(escaped(b, i)?);
                            i += 2;
                        }
                        c if META.contains(&c) => return None,
                        c => {
                            alt.push(c);
                            i += 1;
                        }
                    }
                }
                pieces.push(Piece::Group(alts));
            }
            c if META.contains(&c) => return None,
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(String::from_utf8(text).ok()?));
    }
    Some(Literal { start, end, pieces })
}

/// The character the backslash at `i` escapes, when it is one the syntax reads literally
/// escaped (other escapes are classes, anchors or errors: left to the engine).
fn escaped(b: &[u8], i: usize) -> Option<u8> {
    b.get(i + 1).copied().filter(|c| META.contains(c))
}

impl Literal {
    /// Whether the pattern matches somewhere in `text` (at its start with `^`, up to its end
    /// with `$`).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let t = text.as_bytes();
        if self.start {
            return self.match_at(t, 0, 0);
        }
        match self.pieces.first() {
            // Only where the first text occurs, overlapping occurrences included (`\.\.$` in
            // `...` matches at the second dot, not the first).
            Some(Piece::Text(first)) => {
                let first = first.as_bytes();
                (0..t.len().saturating_sub(first.len()) + 1)
                    .any(|at| t[at..].starts_with(first) && self.match_at(t, 0, at))
            }
            _ => (0..=t.len()).any(|at| self.match_at(t, 0, at)),
        }
    }

    /// Whether pieces `k..` match `t` from `at` (every alternative of a group is tried).
    fn match_at(&self, t: &[u8], k: usize, at: usize) -> bool {
        let Some(p) = self.pieces.get(k) else { return !self.end || at == t.len() };
        match p {
            Piece::Text(s) => t[at..].starts_with(s.as_bytes()) && self.match_at(t, k + 1, at + s.len()),
            Piece::Group(alts) => {
                alts.iter().any(|a| t[at..].starts_with(a.as_bytes()) && self.match_at(t, k + 1, at + a.len()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::pcre_match::Pcre;
    use proptest::prelude::*;

    /// httpd's answer: PCRE2 compiled as `ap_regcomp` compiles it.
    fn engine(pattern: &str, text: &str) -> bool {
        Pcre::compile(pattern, false).unwrap().is_match(text.as_bytes()).unwrap()
    }

    #[test]
    fn reads_paths_and_groups_and_leaves_the_rest() {
        let l = parse(r"^/srv/www/a\.b/(uploads|cache)/").unwrap();
        assert!(l.is_match("/srv/www/a.b/cache/x"));
        assert!(!l.is_match("/srv/www/a.b/tmp/x"));
        assert!(!l.is_match("x/srv/www/a.b/cache/"));
        let l = parse(r"(?:\.git|\.svn)$").unwrap();
        assert!(l.is_match("/a/.git"));
        assert!(!l.is_match("/a/.git/x"));
        for other in [r"jpe?g", r"a.b", r"[ab]", r"(?i:a)", r"(a(b))", r"\d", r"a{2}", r"\/", "a$b", "^", "(a"] {
            if let Some(l) = parse(other) {
                // Only a pattern that is all literal may pass; "^" is (it matches everything).
                assert_eq!(other, "^", "{other} was read as {l:?}");
            }
        }
        assert!(parse("^").unwrap().is_match("anything"));
    }

    #[test]
    fn overlapping_occurrences_of_the_first_text_are_all_tried() {
        // The first occurrence of `..` in `...` (at 0) leads to no match; the second does.
        assert!(parse(r"\.\.$").unwrap().is_match("..."));
        assert!(parse(r"aa(b|c)").unwrap().is_match("aaab"));
        assert!(!parse(r"\.\.$").unwrap().is_match("..a"));
    }

    #[test]
    fn alternatives_are_all_tried() {
        // The first alternative matches its prefix, only the second leads to a match.
        let l = parse("^(a|ab)c$").unwrap();
        assert!(l.is_match("abc"));
        assert!(l.is_match("ac"));
        assert!(!l.is_match("abbc"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Every pattern this module reads matches exactly where the regex engine matches.
        #[test]
        fn agrees_with_the_engine(
            pattern in r"\^?([ab/é-]|\\[.$^()|]|\((\?:)?([ab/é]|\\\.){0,2}(\|([ab/é]|\\\.){0,2}){0,2}\)){0,5}\$?",
            text in r"[ab/.é$^()|]{0,8}",
        ) {
            let l = parse(&pattern);
            prop_assert!(l.is_some(), "{} not read", pattern);
            prop_assert_eq!(l.unwrap().is_match(&text), engine(&pattern, &text), "{} on {}", pattern, text);
        }

        /// Patterns of any characters: read only when all literal, and then alike.
        #[test]
        fn any_pattern_read_agrees_with_the_engine(pattern in r"[ab^$()|\\.?*:!<=>QEZ#\[\]{}é\n]{0,10}", text in "[ab.é\n]{0,6}") {
            if let Some(l) = parse(&pattern) {
                let re = Pcre::compile(&pattern, false);
                prop_assert!(re.is_some(), "{} read but does not compile", pattern);
                prop_assert_eq!(Some(l.is_match(&text)), re.unwrap().is_match(text.as_bytes()), "{} on {}", pattern, text);
            }
        }
    }
}
