//! Witnesses: strings a section's pattern matches (a wildcard filled in, a regular expression's
//! branches spelled out), so that a request can be built that reaches a pattern section. The
//! migration proof asks its requests there; the hover and the precedence check evaluate them.

use super::{regex_matches, section_pattern, wildcard_match, SectionPattern};
use crate::ide::config::Node;

/// A string the shell-style pattern matches: wildcards replaced by plain characters.
pub(crate) fn wildcard_witness(pattern: &str, pathname: bool) -> Option<String> {
    let mut out = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '?' => out.push('x'),
            '[' => {
                let mut set = String::new();
                for d in chars.by_ref() {
                    if d == ']' && !set.is_empty() {
                        break;
                    }
                    set.push(d);
                }
                let (neg, set) = match set.strip_prefix(['!', '^']) {
                    Some(s) => (true, s.to_string()),
                    None => (false, set),
                };
                let pick = "abcxyz0123456789ABCXYZ-_.".chars().find(|ch| {
                    wildcard_match(&format!("[{}{set}]", if neg { "!" } else { "" }), &ch.to_string(), false)
                })?;
                out.push(pick);
            }
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
    wildcard_match(pattern, &out, pathname).then_some(out)
}

/// How many strings [`regex_witnesses`] builds for one pattern at most.
const WITNESSES: usize = 8;

/// [`regex_witnesses_uncached`], remembered per pattern (main-server sections are asked about
/// once per server).
pub(crate) fn regex_witnesses(pattern: &str) -> Vec<String> {
    type Cache = std::collections::HashMap<String, Vec<String>>;
    thread_local! {
        static CACHE: std::cell::RefCell<Cache> = std::cell::RefCell::new(Cache::new());
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 4096 {
            c.clear();
        }
        c.entry(pattern.to_string()).or_insert_with(|| regex_witnesses_uncached(pattern)).clone()
    })
}

/// Strings the regular expression matches (not anchored), if they are easy to build: every
/// alternative of every alternation is in one of them (up to [`WITNESSES`]), so that a section
/// such as `<LocationMatch "^/app/(admin|api)">` is asked about for each of its branches, whose
/// URLs other sections may treat differently. Alternatives a URL can carry come first (a `#`,
/// `?`, `%` or space would not reach the server as written).
fn regex_witnesses_uncached(pattern: &str) -> Vec<String> {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn pick_char(ranges: &[(char, char)]) -> Option<char> {
        let inside = |c: char| ranges.iter().any(|(a, b)| *a <= c && c <= *b);
        "xa0Z-_."
            .chars()
            .chain('!'..='~')
            .find(|c| inside(*c) && !"/?#%".contains(*c))
            .or_else(|| ranges.iter().map(|r| r.0).find(|c| *c != '\n'))
    }
    /// A class of a few characters is most often an alternation the parser folded (`(a|c)` is
    /// read as `[ac]`): each character is a branch, asked like the branches of any alternation
    /// (`<DirectoryMatch "^/srv/(a|c)">` asked at `a` alone was proven where a `<Directory a>`
    /// beside it applies, and its rewrite took that one's Require valid-user to /c/: 200 → 500).
    /// A wider class gives one character, and so does a letter in both cases (`(?i)`, which
    /// would double the witnesses of every case-insensitive pattern without a new branch).
    fn class_witnesses(ranges: &[(char, char)]) -> Option<Vec<String>> {
        /// Classes of at most this many characters give each.
        const FEW: u32 = 4;
        let first = pick_char(ranges)?;
        let size: u32 = ranges.iter().map(|(a, b)| (*b as u32).saturating_sub(*a as u32) + 1).sum();
        let mut out = vec![first.to_string()];
        if size > FEW {
            return Some(out);
        }
        // (Only ASCII: a case-insensitive `k` also holds the Kelvin sign, which PCRE without
        // UTF mode does not match.)
        let each: Vec<char> = ranges.iter().flat_map(|(a, b)| *a..=*b).filter(|c| c.is_ascii() && *c != '\n').collect();
        let one_letter = matches!(each.as_slice(), [a, b] if a != b && a.eq_ignore_ascii_case(b));
        if !one_letter {
            out.extend(each.into_iter().filter(|c| *c != first).map(String::from));
        }
        Some(out)
    }
    let carried = |w: &String| !w.contains(['#', '?', '%', ' ']);
    // Each node's witnesses, never empty; a node without one fails the whole pattern.
    fn go(h: &Hir, carried: &dyn Fn(&String) -> bool) -> Option<Vec<String>> {
        Some(match h.kind() {
            HirKind::Empty | HirKind::Look(_) => vec![String::new()],
            HirKind::Literal(l) => vec![std::str::from_utf8(&l.0).ok()?.to_string()],
            HirKind::Class(Class::Unicode(c)) => {
                let ranges: Vec<(char, char)> = c.iter().map(|r| (r.start(), r.end())).collect();
                class_witnesses(&ranges)?
            }
            HirKind::Class(Class::Bytes(c)) => {
                let ranges: Vec<(char, char)> =
                    c.iter().filter(|r| r.end() < 0x80).map(|r| (r.start() as char, r.end() as char)).collect();
                class_witnesses(&ranges)?
            }
            HirKind::Repetition(r) => {
                let times = r.min.min(8) as usize;
                if times == 0 {
                    vec![String::new()]
                } else {
                    go(&r.sub, carried)?.into_iter().map(|w| w.repeat(times)).collect()
                }
            }
            HirKind::Capture(c) => go(&c.sub, carried)?,
            // The i-th witness takes the i-th (cycling) of each part's: every part's every
            // witness is used, without the parts' product.
            HirKind::Concat(v) => {
                let parts = v.iter().map(|x| go(x, carried)).collect::<Option<Vec<_>>>()?;
                let n = parts.iter().map(Vec::len).max().unwrap_or(1).min(WITNESSES);
                (0..n).map(|i| parts.iter().map(|p| p[i % p.len()].as_str()).collect()).collect()
            }
            HirKind::Alternation(v) => {
                let mut all: Vec<String> = v.iter().filter_map(|alt| go(alt, carried)).flatten().collect();
                if all.is_empty() {
                    return None;
                }
                // Stable: carried ones first, each branch's order kept.
                all.sort_by_key(|w| !carried(w));
                all.dedup();
                all.truncate(WITNESSES);
                all
            }
        })
    }
    let parse = |p: &str| regex_syntax::ParserBuilder::new().build().parse(p).ok();
    // A PCRE-only construct is read through a looser pattern; its strings are candidates only
    // (callers keep those PCRE2 matches).
    let Some(hir) = parse(pattern).or_else(|| parse(&loosened(pattern)?)) else { return vec![] };
    let mut out = go(&hir, &carried).unwrap_or_default();
    out.sort_by_key(|w| !carried(w));
    out.dedup();
    out
}

/// `pattern` with PCRE constructs the `regex` syntax lacks made into ones it reads, each
/// matching at least what the original does where it matches: lookaround assertions dropped,
/// atomic and branch-reset groups made plain groups, possessive quantifiers greedy, `\Q…\E`
/// escaped, `\Z` as `$`, a back reference as its group's text. None when something else is in
/// the way. The result only proposes strings: they are tested against the real pattern.
fn loosened(pattern: &str) -> Option<String> {
    let b: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut in_class = false;
    while i < b.len() {
        let c = b[i];
        if in_class {
            match c {
                '\\' => {
                    out.push(c);
                    out.push(*b.get(i + 1)?);
                    i += 2;
                    continue;
                }
                ']' => in_class = false,
                _ => {}
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '\\' => {
                let e = *b.get(i + 1)?;
                i += 2;
                match e {
                    'Q' => {
                        let mut lit = String::new();
                        while i < b.len() && !(b[i] == '\\' && b.get(i + 1) == Some(&'E')) {
                            lit.push(b[i]);
                            i += 1;
                        }
                        i += 2;
                        out.push_str(&regex_syntax::escape(&lit));
                    }
                    'E' => {}
                    'Z' => out.push('$'),
                    '1'..='9' => {
                        let mut no = e.to_digit(10)? as usize;
                        while i < b.len() && b[i].is_ascii_digit() {
                            no = no * 10 + b[i].to_digit(10)? as usize;
                            i += 1;
                        }
                        // The group's own text again (what it matches the reference may match
                        // too), as a group of its own, so that a quantifier after it stays its.
                        let text = capture_group(&b, no)
                            .filter(|g| !g.contains('\\'))
                            .and_then(|g| loosened(&g))
                            .unwrap_or_default();
                        out.push_str(&format!("(?:{text})"));
                    }
                    e => {
                        out.push('\\');
                        out.push(e);
                    }
                }
                continue;
            }
            '[' => {
                in_class = true;
                out.push(c);
                i += 1;
                // A `]` first in the class (after `^`) is a member, in both syntaxes.
                for lead in ['^', ']'] {
                    if b.get(i) == Some(&lead) {
                        out.push(lead);
                        i += 1;
                    }
                }
                continue;
            }
            '(' => {
                let rest: String = b[i..b.len().min(i + 4)].iter().collect();
                if ["(?=", "(?!", "(?<=", "(?<!"].iter().any(|l| rest.starts_with(l)) {
                    i = group_end(&b, i)? + 1;
                    continue;
                }
                if rest.starts_with("(?>") || rest.starts_with("(?|") {
                    out.push_str("(?:");
                    i += 3;
                    continue;
                }
            }
            '+' if i > 0 && matches!(b[i - 1], '+' | '*' | '?' | '}') && !out.ends_with('\\') => {
                i += 1;
                continue;
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    Some(out)
}

/// The body of capturing group `no` (1-based, counted by opening parenthesis as PCRE counts
/// them), None when there is no such group.
fn capture_group(b: &[char], no: usize) -> Option<String> {
    let mut seen = 0;
    for i in parentheses(b, 0).filter(|&i| b[i] == '(') {
        let named = b.get(i + 1) == Some(&'?')
            && matches!((b.get(i + 2), b.get(i + 3)), (Some('<'), Some(c)) if *c != '=' && *c != '!')
            || b.get(i + 1) == Some(&'?') && matches!(b.get(i + 2), Some('P' | '\''));
        if b.get(i + 1) != Some(&'?') || named {
            seen += 1;
            if seen == no {
                let end = group_end(b, i)?;
                let body: String = b[i + 1..end].iter().collect();
                // A named group's body starts after its name.
                return Some(match named {
                    true => body.split_once(['>', '\'']).map(|(_, r)| r.to_string())?,
                    false => body,
                });
            }
        }
    }
    None
}

/// The index of the `)` closing the group opened at `open`.
fn group_end(b: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in parentheses(b, open) {
        if b[i] == '(' {
            depth += 1;
        } else {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The indices, from `from` on, of the `(` and `)` that open and close groups: neither escaped
/// nor inside a class.
fn parentheses(b: &[char], from: usize) -> impl Iterator<Item = usize> + '_ {
    let (mut i, mut in_class) = (from, false);
    std::iter::from_fn(move || {
        while i < b.len() {
            let at = i;
            i += 1;
            match b[at] {
                '\\' => i += 1,
                '[' if !in_class => in_class = true,
                ']' if in_class => in_class = false,
                '(' | ')' if !in_class => return Some(at),
                _ => {}
            }
        }
        None
    })
}

pub(crate) fn regex_is_match(pattern: &str, text: &str) -> bool {
    regex_matches(pattern, text, false).unwrap_or(false)
}

/// Directory paths a `<Directory>`/`<DirectoryMatch>` section applies to, as examples. A regex
/// is not anchored unless it says so: `<DirectoryMatch "/app/private">` applies to every
/// directory whose path holds `/app/private`, so its witness is also tried under each of
/// `roots` (the directories URLs map to), where requests can reach it.
pub(crate) fn directory_examples(n: &Node, roots: &[&str]) -> Vec<String> {
    match section_pattern(n) {
        Some(SectionPattern::Regex(pat)) => {
            let mut out: Vec<String> = Vec::new();
            for w in regex_witnesses(pat) {
                let tail = if w.starts_with('/') { w.clone() } else { format!("/{w}") };
                let here = std::iter::once(w).chain(roots.iter().map(|r| format!("{}{tail}", r.trim_end_matches('/'))));
                out.extend(
                    here.filter(|p| p.starts_with('/') && regex_is_match(pat, p) && !out.contains(p))
                        .collect::<Vec<_>>(),
                );
            }
            out
        }
        Some(SectionPattern::Wildcard(pat)) => wildcard_witness(pat, true).into_iter().collect(),
        Some(SectionPattern::Plain(pat)) => vec![pat.to_string()],
        None => vec![],
    }
}

/// File names a `<Files>`/`<FilesMatch>` section applies to (one per branch of a regex).
pub(crate) fn files_witnesses(f: &Node) -> Vec<String> {
    match section_pattern(f) {
        Some(SectionPattern::Regex(pat)) => regex_witnesses(pat)
            .into_iter()
            .filter(|w| !w.is_empty() && !w.contains('/') && regex_is_match(pat, w))
            .collect(),
        Some(SectionPattern::Wildcard(pat)) => wildcard_witness(pat, true).into_iter().collect(),
        Some(SectionPattern::Plain(pat)) => vec![pat.to_string()],
        None => vec![],
    }
}

/// File names both `<Files>`-type sections `a` and `b` apply to, where they meet: among their
/// witnesses and the names joining a witness of one to a witness of the other (`<Files ~ "^c">`
/// and `<FilesMatch "\.php$">` meet at `cx.php`, which neither's own witnesses name). Empty when
/// no such name is matched by both (they may still meet at names not tried).
pub(crate) fn files_meeting(a: &Node, b: &Node) -> Vec<String> {
    /// Names kept per pair: a proof asks each in several directories.
    const MAX: usize = 4;
    let (Some(pa), Some(pb)) = (section_pattern(a), section_pattern(b)) else { return Vec::new() };
    let applies = name_applies;
    let (wa, wb) = (files_witnesses(a), files_witnesses(b));
    let mut out: Vec<String> = Vec::new();
    for x in &wa {
        for y in &wb {
            for c in [x.clone(), y.clone(), format!("{x}{y}"), format!("{y}{x}")] {
                if out.len() < MAX && !c.contains('/') && !out.contains(&c) && applies(&pa, &c) && applies(&pb, &c) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// Whether the `<Files>`-type section `f` applies to the file name `name`.
pub(crate) fn files_applies(f: &Node, name: &str) -> bool {
    section_pattern(f).is_some_and(|p| name_applies(&p, name))
}

/// Whether a `<Files>`-type pattern applies to the file name `name`.
fn name_applies(p: &SectionPattern, name: &str) -> bool {
    match p {
        SectionPattern::Regex(r) => regex_is_match(r, name),
        SectionPattern::Wildcard(w) => wildcard_match(w, name, true),
        SectionPattern::Plain(s) => *s == name,
    }
}

/// File names the `<Files>`-type section `a` applies to and `b` does not, when every witness
/// of `a` is one `b` applies to as well (empty otherwise: `a` is already asked apart from `b`).
/// `<Files "*.txt">`'s witness `x.txt` is also `<Files x.txt>`'s name: asked only there, `*.txt`
/// was never seen alone, where `x.txt`'s rules do not follow it (a rewrite copying x.txt's
/// Require valid-user into `*.txt` turned /c/y.txt 200 → 500). The names tried are the
/// witnesses changed in one place: a character replaced or dropped, or one added at either end.
pub(crate) fn files_apart(a: &Node, b: &Node) -> Vec<String> {
    /// Names kept per pair.
    const MAX: usize = 2;
    /// Longer witnesses are not varied (names are short; this bounds the work per pair).
    const LONGEST: usize = 64;
    let (Some(pa), Some(pb)) = (section_pattern(a), section_pattern(b)) else { return Vec::new() };
    let wa = files_witnesses(a);
    if wa.is_empty() || !wa.iter().all(|w| name_applies(&pb, w)) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for w in wa.iter().filter(|w| w.len() <= LONGEST) {
        let chars: Vec<char> = w.chars().collect();
        let mut variants: Vec<String> = Vec::new();
        for fill in ['q', 'y', '0'] {
            variants.push(format!("{fill}{w}"));
            variants.push(format!("{w}{fill}"));
            for i in 0..chars.len() {
                let mut v = chars.clone();
                v[i] = fill;
                variants.push(v.into_iter().collect());
            }
        }
        for i in 0..chars.len() {
            let mut v = chars.clone();
            v.remove(i);
            variants.push(v.into_iter().collect());
        }
        for c in variants {
            if out.len() < MAX && !c.is_empty() && !out.contains(&c) && name_applies(&pa, &c) && !name_applies(&pb, &c)
            {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_sections_meet_where_a_name_joins_their_witnesses() {
        use crate::ide::config::{Loc, NodeKind};
        let section = |name: &str, args: &[&str]| {
            let loc = Loc { file: 0, range: Default::default(), focus: Default::default() };
            Node::new(NodeKind::Section, name, args, &args.join(" "), loc, Vec::new())
        };
        let starts_c = section("Files", &["~", "^c"]);
        let php = section("FilesMatch", &["\\.(php|html)$"]);
        let met = files_meeting(&starts_c, &php);
        assert!(!met.is_empty());
        for name in &met {
            assert!(name.starts_with('c') && (name.ends_with(".php") || name.ends_with(".html")), "{name}");
        }
        // Ends with c, starts with .ht: joined the other way round.
        let ends_c = section("FilesMatch", &["c$"]);
        let ht = section("Files", &[".ht*"]);
        assert!(files_meeting(&ends_c, &ht).iter().all(|n| n.starts_with(".ht") && n.ends_with('c')));
        assert!(!files_meeting(&ends_c, &ht).is_empty());
        // Two different plain names never meet.
        assert!(files_meeting(&section("Files", &["a.txt"]), &section("Files", &["b.txt"])).is_empty());
        // A pattern whose witness another section names is also asked where that one does not apply.
        let txt = section("Files", &["*.txt"]);
        let x = section("Files", &["x.txt"]);
        let apart = files_apart(&txt, &x);
        assert!(!apart.is_empty());
        assert!(apart.iter().all(|n| wildcard_match("*.txt", n, true) && n != "x.txt"), "{apart:?}");
        let re = section("FilesMatch", &["^\\w\\.txt$"]);
        let apart = files_apart(&re, &x);
        assert!(apart.iter().all(|n| regex_is_match("^\\w\\.txt$", n) && n != "x.txt"), "{apart:?}");
        assert!(!apart.is_empty());
        // Already apart, or never apart: nothing to add.
        assert!(files_apart(&txt, &section("Files", &["a.php"])).is_empty());
        assert!(files_apart(&x, &txt).is_empty());
    }

    #[test]
    fn regex_witnesses_match_their_regex() {
        for re in ["^/api/v[0-9]+/(internal|debug)", "\\.(?i:bak|old|orig|sw[op]|dist)$", "^\\.ht", "^/(a|b)/x?$"] {
            let ws = regex_witnesses(re);
            assert!(!ws.is_empty(), "no witness for {re}");
            for w in ws {
                assert!(regex_is_match(re, &w), "{re}: {w}");
            }
        }
        // One-character branches, which the parser reads as a class, are each a witness; a
        // wide class, or one letter in both cases, gives one.
        let ws = regex_witnesses("^/srv/(a|c)");
        assert!(ws.contains(&"/srv/a".to_string()) && ws.contains(&"/srv/c".to_string()), "{ws:?}");
        assert_eq!(regex_witnesses("^/srv/[a-z]$").len(), 1);
        assert_eq!(regex_witnesses("(?i)^/x$").len(), 1);
    }

    #[test]
    fn pcre_only_patterns_have_witnesses_pcre2_matches() {
        for re in [
            r"^(?!index).*\.(txt|sql)$",
            r"^(\.(?!well-known).*|x\.sql)$",
            r"(?<!robots)\.txt$",
            r"^(?<!x)a\.txt$",
            r"^(?>a|ab)\.txt$",
            r"^(a)\1?\.txt$",
            r"^(ab|cd)-\1$",
            r"^(?<n>x+)(y)\2\1$",
            r"^\Qa.b[\E(c|d)$",
            r"\.txt\Z",
            r"^a++\.txt$",
            r"^/(?!private)",
            r"^[](?=]x(?=y)y$",
        ] {
            let ws = regex_witnesses(re);
            assert!(ws.iter().any(|w| regex_is_match(re, w)), "{re}: {ws:?}");
        }
        assert_eq!(loosened(r"^(?!a(b)\))[(?=]\Q(?!\E\1x*+"), Some(r"^[(?=]\(\?!(?:b)x*".to_string()));
        // `(?=` left open: nothing to read.
        assert_eq!(loosened("a(?=b"), None);
    }

    #[test]
    fn every_branch_of_an_alternation_has_a_witness() {
        assert_eq!(regex_witnesses("^/c76/(sub|a)"), ["/c76/sub", "/c76/a"]);
        assert_eq!(regex_witnesses("^/(ab|cd)/(pp|qq|rr)$"), ["/ab/pp", "/cd/qq", "/ab/rr"]);
        // Never more than WITNESSES, however many branches.
        let many = format!("^/({})$", (0..20).map(|i| format!("b{i}")).collect::<Vec<_>>().join("|"));
        assert_eq!(regex_witnesses(&many).len(), WITNESSES);
    }

    #[test]
    fn alternatives_a_url_can_carry_are_preferred() {
        let re = r"(^#.*#|\.(bak|config|ini)|~)$";
        let w = regex_witnesses(re).into_iter().next().unwrap();
        assert!(!w.contains('#') && regex_is_match(re, &w), "{w}");
    }

    #[test]
    fn wildcard_witnesses_match_their_pattern() {
        for p in ["/srv/*/public", "/s?b/[a-c]x", "/x/[!a]"] {
            let w = wildcard_witness(p, true).unwrap();
            assert!(wildcard_match(p, &w, true), "{p}: {w}");
        }
    }
}
