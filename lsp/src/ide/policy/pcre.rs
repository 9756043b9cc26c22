//! Whether PCRE2 refuses to compile a pattern, as `ap_regcomp` compiles it (8-bit, not UTF
//! unless the pattern starts with `(*UTF)`, no extended mode unless the pattern sets it,
//! PCRE2_DUPNAMES: a group name may be given twice).
//!
//! Only what every PCRE2 10.x release refuses is reported (httpd 2.4 links PCRE2 where it
//! can): an unbalanced parenthesis or class, a quantifier with nothing repeatable before it
//! (at the start, after `(`, `|`, an anchor or assertion escape such as `^`, `$`, `\b`, `\A`,
//! `\z`, `\G`, `\K`, after another quantifier, an option setting `(?i)` or a verb), a `{m,n}`
//! count above 65535 or out of order, an escape PCRE2 does not know (`\i`, `\L`, `\u`…) or does
//! not allow in a class (`[\B]`), a code point above 255 (`\x{100}`, `\400`), a class range out
//! of order or with a class at one end (`[z-a]`, `[\d-z]`), an unknown POSIX class name, a
//! POSIX class or collating element outside a class, a lookbehind that may match text of
//! unbounded length (`(?<=a+)`), a back reference or subroutine call to a group that does not
//! exist (`\1` with no group, `\k<name>`, `(?1)`, `(?(2)…)`), a malformed group name, a
//! conditional with more than two branches, more than 250 nested parentheses, an option
//! setting left open at the end (`(?i`), and a name after `(*` no release knows (`(*FOO)`).
//! Possessive quantifiers and atomic groups are accepted, as PCRE2 accepts them.
//!
//! Not reported, because PCRE2 releases differ: a lookbehind of bounded but varying length
//! (`(?<=a{1,2})`, `(?<=(a|bc))`: refused before 10.43, accepted since), `{,n}` and counts with
//! spaces (literal text before 10.43, quantifiers since), Unicode property names (each release
//! adds some).
//! Patterns in extended mode (`(?x)`), where `#` starts a comment, are not read at all.
//! Anything the reader is unsure of is taken as accepted. Invariants: no IO, never panics,
//! linear in the pattern (recursion bounded by PCRE2's own nesting limit).

/// PCRE2's default limit on nested parentheses (`PARENS_NEST_LIMIT`).
const NEST_LIMIT: usize = 250;

/// Escapes PCRE2 does not know, anywhere.
const UNKNOWN_ESCAPES: &[u8] = b"ijmqyIJMOTY";
/// Escapes of Perl's that PCRE2 refuses (`\F`, `\L`, `\l`, `\U`, `\u`).
const PERL_CASE_ESCAPES: &[u8] = b"FLlUu";
/// Escapes that match no character, or more than one: not allowed in a class.
const NOT_IN_CLASS: &[u8] = b"ABCGKNRXZkz";
/// Names after `(*` that some PCRE2 release knows: the backtracking verbs and the options a
/// pattern may start with (any other upper-case name is refused by every release).
const KNOWN_VERBS: &[&str] = &[
    "ACCEPT",
    "FAIL",
    "F",
    "COMMIT",
    "PRUNE",
    "SKIP",
    "THEN",
    "MARK",
    "UTF",
    "UTF8",
    "UTF16",
    "UTF32",
    "UCP",
    "NO_AUTO_POSSESS",
    "NO_START_OPT",
    "NO_DOTSTAR_ANCHOR",
    "NO_JIT",
    "NOTEMPTY",
    "NOTEMPTY_ATSTART",
    "LIMIT_MATCH",
    "LIMIT_DEPTH",
    "LIMIT_RECURSION",
    "LIMIT_HEAP",
    "CR",
    "LF",
    "CRLF",
    "ANYCRLF",
    "ANY",
    "NUL",
    "BSR_ANYCRLF",
    "BSR_UNICODE",
    "CASELESS_RESTRICT",
    "TURKISH_CASING",
];
/// POSIX class names (`[[:alpha:]]`).
const POSIX_CLASSES: &[&str] = &[
    "alpha", "lower", "upper", "alnum", "ascii", "blank", "cntrl", "digit", "graph", "print", "punct", "space", "word",
    "xdigit",
];

/// Whether PCRE2 surely refuses `pattern`.
pub(crate) fn pcre_refuses(pattern: &str) -> bool {
    // A configuration repeats its patterns (each virtual host's `<FilesMatch>`, `RewriteRule`,
    // `SetEnvIf`): the answers for short ones are remembered per thread, which spares reading a
    // pattern again (about 1 700 instructions each) for a hash and a comparison. Bounded in
    // count and length, so that no file of made-up patterns makes it grow without end.
    const MAX_KEPT: usize = 4096;
    const MAX_LEN: usize = 256;
    thread_local! {
        static SEEN: std::cell::RefCell<rustc_hash::FxHashMap<Box<str>, bool>> = Default::default();
    }
    if pattern.len() > MAX_LEN {
        return pcre2_error(pattern).is_some();
    }
    SEEN.with(|seen| {
        if let Some(&refused) = seen.borrow().get(pattern) {
            return refused;
        }
        let refused = pcre2_error(pattern).is_some();
        let mut seen = seen.borrow_mut();
        if seen.len() >= MAX_KEPT {
            seen.clear();
        }
        seen.insert(pattern.into(), refused);
        refused
    })
}

/// PCRE2's message when it surely refuses `pattern` (httpd does not show it: each directive
/// says the pattern could not be compiled in its own words).
pub(crate) fn pcre2_error(pattern: &str) -> Option<&'static str> {
    let b = pattern.as_bytes();
    if extended_mode(b) {
        return None;
    }
    let option_n = {
        b.windows(2).enumerate().any(|(i, w)| {
            w == b"(?" && b[i + 2..].iter().take_while(|c| c.is_ascii_alphabetic() || **c == b'-').any(|c| *c == b'n')
        })
    };
    let branch_reset = pattern.contains("(?|");
    let mut r = Reader {
        b,
        i: 0,
        depth: 0,
        groups: 0,
        names: vec![],
        number_refs: vec![],
        name_refs: vec![],
        utf: pattern.starts_with("(*UTF"),
        // Numbers of groups are not counted where `(?|` reuses them or `(?n)` stops
        // plain groups capturing.
        numbers_unsure: branch_reset || option_n,
    };
    match r.pattern() {
        Ok(()) => {}
        Err(Stop::Unsure) => return None,
        Err(Stop::Refused(why)) => return Some(why),
    }
    let missing = "reference to non-existent subpattern";
    if !r.numbers_unsure && r.number_refs.iter().any(|n| *n > r.groups) {
        return Some(missing);
    }
    if r.name_refs.iter().any(|n| !r.names.contains(n)) {
        return Some(missing);
    }
    None
}

/// Whether a pattern sets PCRE's extended mode somewhere (`(?x)`, `(?ix:…)`…).
fn extended_mode(b: &[u8]) -> bool {
    b.windows(2).enumerate().any(|(i, w)| {
        w == b"(?" && b[i + 2..].iter().take_while(|c| c.is_ascii_alphabetic() || **c == b'-').any(|c| *c == b'x')
    })
}

enum Stop {
    /// PCRE2 refuses the pattern, with its message.
    Refused(&'static str),
    /// Something this reader does not follow: the pattern is taken as accepted.
    Unsure,
}

type R<T> = Result<T, Stop>;

/// What an item leaves for a quantifier after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    /// Something repeatable; `unbounded` when it may match text of any length.
    Repeatable { unbounded: bool },
    /// An anchor, an option setting, a verb, a quantifier: a quantifier after it is refused.
    Fixed,
    /// A comment, `\E`, an empty `\Q\E`: what came before stays what a quantifier follows.
    Nothing,
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
    /// Capturing groups opened so far.
    groups: u32,
    names: Vec<&'a [u8]>,
    number_refs: Vec<u32>,
    name_refs: Vec<&'a [u8]>,
    utf: bool,
    numbers_unsure: bool,
}

fn refused<T>(why: &'static str) -> R<T> {
    Err(Stop::Refused(why))
}

impl<'a> Reader<'a> {
    fn peek(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    fn pattern(&mut self) -> R<()> {
        self.alternation(false)?;
        match self.peek(0) {
            None => Ok(()),
            _ => refused("unmatched closing parenthesis"),
        }
    }

    /// Branches up to a `)` (not taken) or the end: the number of branches, and whether one
    /// may match text of unbounded length. In a lookbehind (`behind`), such a branch is refused.
    fn alternation(&mut self, behind: bool) -> R<(usize, bool)> {
        let mut branches = 1;
        let mut unbounded = false;
        loop {
            let u = self.sequence()?;
            if behind && u {
                return refused("lookbehind assertion is not fixed length");
            }
            unbounded |= u;
            match self.peek(0) {
                Some(b'|') => {
                    self.i += 1;
                    branches += 1;
                }
                _ => return Ok((branches, unbounded)),
            }
        }
    }

    /// Items up to `|`, `)` or the end: whether they may match text of unbounded length.
    fn sequence(&mut self) -> R<bool> {
        let mut last = Item::Fixed;
        let mut unbounded = false;
        while let Some(c) = self.peek(0) {
            if c == b'|' || c == b')' {
                break;
            }
            if let Some(q) = self.quantifier()? {
                let Item::Repeatable { unbounded: inner } = last else {
                    return refused("quantifier does not follow a repeatable item");
                };
                unbounded |= inner || q;
                last = Item::Fixed;
                continue;
            }
            match self.item()? {
                Item::Nothing => {}
                item => {
                    if let Item::Repeatable { unbounded: u } = item {
                        unbounded |= u;
                    }
                    last = item;
                }
            }
        }
        Ok(unbounded)
    }

    /// A quantifier at the reader (taken, with its lazy `?` or possessive `+`): whether it has
    /// no upper bound. None when there is none (a `{` that is no count is a literal).
    fn quantifier(&mut self) -> R<Option<bool>> {
        let unbounded = match self.peek(0) {
            Some(b'*' | b'+') => {
                self.i += 1;
                true
            }
            Some(b'?') => {
                self.i += 1;
                false
            }
            Some(b'{') => {
                let Some((min, max, len)) = counted(&self.b[self.i..]) else { return Ok(None) };
                if min > 65535 || max.is_some_and(|n| n > 65535) {
                    return refused("number too big in {} quantifier");
                }
                if max.is_some_and(|n| n < min) {
                    return refused("numbers out of order in {} quantifier");
                }
                self.i += len;
                max.is_none()
            }
            _ => return Ok(None),
        };
        if matches!(self.peek(0), Some(b'?' | b'+')) {
            self.i += 1;
        }
        Ok(Some(unbounded))
    }

    fn item(&mut self) -> R<Item> {
        let c = self.b[self.i];
        match c {
            b'\\' => self.escape(),
            b'[' => self.class(),
            b'(' => self.group(),
            b'^' | b'$' => {
                self.i += 1;
                Ok(Item::Fixed)
            }
            _ => {
                self.i += 1;
                Ok(Item::Repeatable { unbounded: false })
            }
        }
    }

    /// An escape outside a class.
    fn escape(&mut self) -> R<Item> {
        let Some(e) = self.peek(1) else { return refused("\\ at end of pattern") };
        let one = Item::Repeatable { unbounded: false };
        if e.is_ascii_digit() {
            self.i += 1;
            return self.digits_escape(false).map(|_| one);
        }
        self.i += 2;
        match e {
            b'b' | b'B' | b'A' | b'z' | b'Z' | b'G' | b'K' => Ok(Item::Fixed),
            b'E' => Ok(Item::Nothing),
            b'Q' => Ok(if self.quoted() { one } else { Item::Nothing }),
            b'g' => {
                self.g_reference()?;
                Ok(one)
            }
            b'k' => {
                let Some(close) = self.peek(0).and_then(closing) else {
                    return refused("\\k is not followed by a braced, angle-bracketed, or quoted name");
                };
                self.i += 1;
                let name = self.name(close)?;
                self.name_refs.push(name);
                Ok(one)
            }
            b'N' => {
                if self.b[self.i..].starts_with(b"{U+") && !self.utf {
                    return refused("\\N{U+dddd} is supported only in Unicode (UTF) mode");
                }
                if self.peek(0) == Some(b'{') && counted(&self.b[self.i..]).is_none() {
                    return Err(Stop::Unsure);
                }
                Ok(one)
            }
            _ => self.common_escape(e).map(|_| one),
        }
    }

    /// The escapes read alike in and out of a class, the reader after the escape's letter:
    /// the character's value when it is one (None for a class such as `\d`).
    fn common_escape(&mut self, e: u8) -> R<Option<u32>> {
        if UNKNOWN_ESCAPES.contains(&e) {
            return refused("unrecognized character follows \\");
        }
        if PERL_CASE_ESCAPES.contains(&e) {
            return refused("PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, or \\u");
        }
        Ok(match e {
            b'c' => {
                let Some(x) = self.peek(0) else { return refused("\\c at end of pattern") };
                if !(32..127).contains(&x) {
                    return refused("\\c must be followed by a printable ASCII character");
                }
                self.i += 1;
                Some(u32::from(x.to_ascii_uppercase() ^ 0x40))
            }
            b'x' => {
                if self.peek(0) == Some(b'{') {
                    let digits = self.b[self.i + 1..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
                    if digits == 0 || self.peek(1 + digits) != Some(b'}') {
                        return Err(Stop::Unsure);
                    }
                    let v = self.value(self.i + 1, digits, 16);
                    self.i += digits + 2;
                    self.code_point(v)?
                } else {
                    let digits = self.b[self.i..].iter().take(2).take_while(|c| c.is_ascii_hexdigit()).count();
                    let v = self.value(self.i, digits, 16);
                    self.i += digits;
                    Some(v)
                }
            }
            b'o' => {
                if self.peek(0) != Some(b'{') {
                    return refused("missing opening brace after \\o");
                }
                let digits = self.b[self.i + 1..].iter().take_while(|c| (b'0'..=b'7').contains(c)).count();
                if digits == 0 || self.peek(1 + digits) != Some(b'}') {
                    return Err(Stop::Unsure);
                }
                let v = self.value(self.i + 1, digits, 8);
                self.i += digits + 2;
                self.code_point(v)?
            }
            b'p' | b'P' => {
                match self.peek(0) {
                    Some(b'{') => match self.b[self.i..].iter().position(|c| *c == b'}') {
                        Some(end) if end > 1 => self.i += end + 1,
                        _ => return refused("malformed \\P or \\p sequence"),
                    },
                    Some(_) => self.i += 1,
                    None => return refused("malformed \\P or \\p sequence"),
                }
                None
            }
            b'd' | b'D' | b's' | b'S' | b'w' | b'W' | b'h' | b'H' | b'v' | b'V' => None,
            b'a' => Some(7),
            b'e' => Some(27),
            b'f' => Some(12),
            b'n' => Some(10),
            b'r' => Some(13),
            b't' => Some(9),
            other => Some(u32::from(other)),
        })
    }

    /// A value above 255 is no character outside UTF mode.
    fn code_point(&self, v: u32) -> R<Option<u32>> {
        if v > 0xff && !self.utf {
            return refused("character code point value in \\x{} or \\o{} is too large");
        }
        Ok(Some(v))
    }

    /// `digits` digits at `at` in base `radix`, saturated.
    fn value(&self, at: usize, digits: usize, radix: u32) -> u32 {
        self.b[at..at + digits]
            .iter()
            .fold(0u32, |v, d| v.saturating_mul(radix).saturating_add(char::from(*d).to_digit(radix).unwrap_or(0)))
    }

    /// After a backslash, at a digit: a back reference or an octal character. In a class,
    /// always a character (`\8` and `\9` the digits). Its value when it is a character.
    fn digits_escape(&mut self, in_class: bool) -> R<Option<u32>> {
        let first = self.b[self.i];
        if !in_class && first != b'0' {
            let digits = self.b[self.i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let n = self.value(self.i, digits, 10);
            // A back reference when below 10, starting with 8 or 9, or when that many groups
            // are already open; else octal.
            if n < 10 || first >= b'8' || n <= self.groups {
                self.i += digits;
                self.number_refs.push(n);
                return Ok(None);
            }
        }
        if first >= b'8' {
            self.i += 1;
            return Ok(Some(u32::from(first)));
        }
        let digits = self.b[self.i..].iter().take(3).take_while(|c| (b'0'..=b'7').contains(c)).count();
        let v = self.value(self.i, digits, 8);
        self.i += digits;
        if v > 0o377 && !self.utf {
            return refused("octal value is greater than \\377 in 8-bit non-UTF-8 mode");
        }
        Ok(Some(v))
    }

    /// `\Q…\E` (the reader after `\Q`): whether it quotes anything.
    fn quoted(&mut self) -> bool {
        match self.b[self.i..].windows(2).position(|w| w == b"\\E") {
            Some(end) => {
                self.i += end + 2;
                end > 0
            }
            None => {
                let any = self.i < self.b.len();
                self.i = self.b.len();
                any
            }
        }
    }

    /// After `\g`: a back reference or a subroutine call, by number, relative number or name.
    fn g_reference(&mut self) -> R<()> {
        let malformed = "\\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number";
        let (text, call) = match self.peek(0) {
            Some(open @ (b'{' | b'<' | b'\'')) => {
                let close = closing(open).unwrap_or(b'}');
                let Some(end) = self.b[self.i + 1..].iter().position(|c| *c == close) else {
                    return Err(Stop::Unsure);
                };
                let text = &self.b[self.i + 1..self.i + 1 + end];
                self.i += end + 2;
                (text, open != b'{')
            }
            Some(b'+' | b'-' | b'0'..=b'9') => {
                let sign = usize::from(!self.b[self.i].is_ascii_digit());
                let digits = self.b[self.i + sign..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits == 0 {
                    return refused(malformed);
                }
                let text = &self.b[self.i..self.i + sign + digits];
                self.i += sign + digits;
                (text, false)
            }
            _ => return refused(malformed),
        };
        self.reference(text, call)
    }

    /// A reference by `text` (a number, `+n`, `-n` or a name); `call` for a subroutine call,
    /// where 0 is the whole pattern.
    fn reference(&mut self, text: &'a [u8], call: bool) -> R<()> {
        let (sign, digits) = match text.first() {
            Some(s @ (b'+' | b'-')) => (Some(*s), &text[1..]),
            _ => (None, text),
        };
        if digits.is_empty() {
            return Err(Stop::Unsure);
        }
        if digits.iter().all(u8::is_ascii_digit) {
            let n = digits.iter().fold(0u32, |v, d| v.saturating_mul(10).saturating_add(u32::from(d - b'0')));
            let absolute = match sign {
                None => n,
                Some(b'+') => self.groups.saturating_add(n),
                Some(_) => {
                    if n == 0 || n > self.groups {
                        return refused("reference to non-existent subpattern");
                    }
                    self.groups + 1 - n
                }
            };
            if absolute == 0 && !(call && sign.is_none()) {
                return refused("reference to non-existent subpattern");
            }
            self.number_refs.push(absolute);
            return Ok(());
        }
        if sign.is_some() || !valid_name(text) {
            return Err(Stop::Unsure);
        }
        self.name_refs.push(text);
        Ok(())
    }

    /// A group name up to `close` (taken), the reader at its first character.
    fn name(&mut self, close: u8) -> R<&'a [u8]> {
        let start = self.i;
        let len = self.b[start..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
        let name = &self.b[start..start + len];
        if len == 0 {
            return if self.peek(0).is_some_and(|c| c.is_ascii()) {
                refused("subpattern name expected")
            } else {
                Err(Stop::Unsure)
            };
        }
        if name[0].is_ascii_digit() {
            return refused("subpattern name must start with a non-digit");
        }
        if len > 32 {
            return refused("subpattern name is too long (maximum 32 code units)");
        }
        match self.b.get(start + len) {
            Some(c) if *c == close => {}
            Some(c) if !c.is_ascii() => return Err(Stop::Unsure),
            _ => return refused("syntax error in subpattern name (missing terminator?)"),
        }
        self.i = start + len + 1;
        Ok(name)
    }

    /// A class, the reader at its `[`.
    fn class(&mut self) -> R<Item> {
        let one = Item::Repeatable { unbounded: false };
        // `[:name:]`, `[.x.]`, `[=x=]` outside a class.
        if let Some(t @ (b':' | b'.' | b'=')) = self.peek(1) {
            if posix_end(self.b, self.i + 1, t).is_some() {
                return refused(if t == b':' {
                    "POSIX named classes are supported only within a class"
                } else {
                    "POSIX collating elements are not supported"
                });
            }
        }
        // PCRE2's word boundaries `[[:<:]]`, `[[:>:]]`.
        if self.b[self.i..].starts_with(b"[[:<:]]") || self.b[self.i..].starts_with(b"[[:>:]]") {
            self.i += 7;
            return Ok(one);
        }
        self.i += 1;
        if self.peek(0) == Some(b'^') {
            self.i += 1;
        }
        let mut first = true;
        // The previous member: Some(value) for a character, None for a class (`\d`).
        let mut previous: Option<Option<u32>> = None;
        // A range waiting for its second end: the first end.
        let mut range_from: Option<Option<u32>> = None;
        loop {
            let Some(c) = self.peek(0) else { return refused("missing terminating ] for character class") };
            if c == b']' && !first {
                self.i += 1;
                if range_from.is_some() {
                    return Err(Stop::Unsure);
                }
                return Ok(one);
            }
            first = false;
            if c == b'-' && previous.is_some() && range_from.is_none() && self.peek(1) != Some(b']') {
                self.i += 1;
                range_from = previous.take();
                if range_from == Some(None) {
                    return refused("invalid range in character class");
                }
                continue;
            }
            let member: Option<Option<u32>> = match c {
                b'[' if matches!(self.peek(1), Some(b':' | b'.' | b'=')) => {
                    let t = self.b[self.i + 1];
                    match posix_end(self.b, self.i + 1, t) {
                        Some(end) => {
                            if t != b':' {
                                return refused("POSIX collating elements are not supported");
                            }
                            let name = &self.b[self.i + 2..end];
                            let name = name.strip_prefix(b"^").unwrap_or(name);
                            if !POSIX_CLASSES.iter().any(|p| p.as_bytes() == name) {
                                return refused("unknown POSIX class name");
                            }
                            self.i = end + 2;
                            Some(None)
                        }
                        None => {
                            self.i += 1;
                            Some(Some(u32::from(c)))
                        }
                    }
                }
                b'\\' => {
                    let Some(e) = self.peek(1) else {
                        return refused("missing terminating ] for character class");
                    };
                    if e.is_ascii_digit() {
                        self.i += 1;
                        Some(self.digits_escape(true)?)
                    } else if e == b'E' {
                        self.i += 2;
                        None
                    } else if e == b'Q' {
                        self.i += 2;
                        // Each quoted character is a member: the first may end a range, the
                        // last may start one (a longer quote ending a range is not followed).
                        match self.b[self.i..].windows(2).position(|w| w == b"\\E") {
                            Some(0) => None,
                            Some(end) if end > 1 && range_from.is_some() => return Err(Stop::Unsure),
                            Some(end) => {
                                let last = self.b[self.i + end - 1];
                                self.i += end + 2;
                                Some(Some(u32::from(last)))
                            }
                            None => return refused("missing terminating ] for character class"),
                        }
                    } else if NOT_IN_CLASS.contains(&e) {
                        if e == b'N' {
                            return refused("\\N is not supported in a class");
                        }
                        return refused("escape sequence is invalid in character class");
                    } else {
                        self.i += 2;
                        Some(match e {
                            b'b' => Some(8),
                            b'g' => Some(u32::from(b'g')),
                            _ => self.common_escape(e)?,
                        })
                    }
                }
                _ => {
                    self.i += 1;
                    Some(Some(u32::from(c)))
                }
            };
            let Some(member) = member else { continue };
            match range_from.take() {
                Some(from) => {
                    let Some(to) = member else { return refused("invalid range in character class") };
                    if from.is_some_and(|f| to < f) {
                        return refused("range out of order in character class");
                    }
                    previous = None;
                }
                None => previous = Some(member),
            }
        }
    }

    /// A group, the reader at its `(`.
    fn group(&mut self) -> R<Item> {
        self.depth += 1;
        if self.depth > NEST_LIMIT {
            return refused("parentheses are too deeply nested");
        }
        let item = self.group_inner()?;
        self.depth -= 1;
        Ok(item)
    }

    fn group_inner(&mut self) -> R<Item> {
        self.i += 1;
        let mut behind = false;
        let mut zero_width = false;
        match (self.peek(0), self.peek(1)) {
            (Some(b'*'), Some(c)) if c.is_ascii_alphabetic() || c == b':' => {
                // A verb, or an assertion by name (`(*pla:…)`).
                let name_len =
                    self.b[self.i + 1..].iter().take_while(|c| c.is_ascii_alphabetic() || **c == b'_').count();
                let name = &self.b[self.i + 1..self.i + 1 + name_len];
                if name.first().is_some_and(u8::is_ascii_lowercase) && self.peek(1 + name_len) == Some(b':') {
                    self.i += 2 + name_len;
                    behind = name.ends_with(b"lookbehind") || name.ends_with(b"lb");
                    zero_width = behind || name.ends_with(b"lookahead") || name.ends_with(b"la");
                } else {
                    let Some(end) = self.b[self.i..].iter().position(|c| *c == b')') else {
                        return Err(Stop::Unsure);
                    };
                    if name.first().is_some_and(u8::is_ascii_lowercase) {
                        return refused("(*alpha_assertion) not recognized");
                    }
                    if name_len > 0 && !KNOWN_VERBS.iter().any(|v| v.as_bytes() == name) {
                        return refused("(*VERB) not recognized or malformed");
                    }
                    self.i += end + 1;
                    return Ok(if name == b"ACCEPT" { Item::Repeatable { unbounded: false } } else { Item::Fixed });
                }
            }
            (Some(b'?'), next) => {
                self.i += 1;
                match next {
                    Some(b'#') => {
                        let Some(end) = self.b[self.i..].iter().position(|c| *c == b')') else {
                            return refused("missing ) after (?# comment");
                        };
                        self.i += end + 1;
                        return Ok(Item::Nothing);
                    }
                    Some(b':' | b'|' | b'>') => self.i += 1,
                    Some(b'=' | b'!' | b'*') => {
                        self.i += 1;
                        zero_width = true;
                    }
                    Some(b'<') if matches!(self.peek(1), Some(b'=' | b'!' | b'*')) => {
                        self.i += 2;
                        behind = true;
                        zero_width = true;
                    }
                    Some(b'<' | b'\'') => {
                        self.i += 1;
                        self.named_group(if next == Some(b'<') { b'>' } else { b'\'' })?;
                    }
                    Some(b'P') => match self.peek(1) {
                        Some(b'<') => {
                            self.i += 2;
                            self.named_group(b'>')?;
                        }
                        Some(b'=' | b'>') => {
                            self.i += 2;
                            let name = self.name(b')')?;
                            self.name_refs.push(name);
                            return Ok(Item::Repeatable { unbounded: false });
                        }
                        _ => return Err(Stop::Unsure),
                    },
                    Some(b'&') => {
                        self.i += 1;
                        let name = self.name(b')')?;
                        self.name_refs.push(name);
                        return Ok(Item::Repeatable { unbounded: false });
                    }
                    Some(b'R') if self.peek(1) == Some(b')') => {
                        self.i += 2;
                        return Ok(Item::Repeatable { unbounded: false });
                    }
                    Some(c)
                        if c.is_ascii_digit()
                            || (matches!(c, b'+' | b'-') && self.peek(1).is_some_and(|d| d.is_ascii_digit())) =>
                    {
                        let len = 1 + self.b[self.i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                        if self.peek(len) != Some(b')') {
                            return Err(Stop::Unsure);
                        }
                        let text = &self.b[self.i..self.i + len];
                        self.i += len + 1;
                        self.reference(text, true)?;
                        return Ok(Item::Repeatable { unbounded: false });
                    }
                    Some(b'(') => return self.conditional(),
                    Some(b'C') => {
                        let Some(end) = self.b[self.i..].iter().position(|c| *c == b')') else {
                            return Err(Stop::Unsure);
                        };
                        let arg = &self.b[self.i + 1..self.i + end];
                        if !arg.is_empty()
                            && arg.iter().all(u8::is_ascii_digit)
                            && self.value(self.i + 1, arg.len(), 10) > 255
                        {
                            return refused("number after (?C is greater than 255");
                        }
                        self.i += end + 1;
                        return Ok(Item::Fixed);
                    }
                    _ => {
                        // Options: letters, `-`, `^`, then `)` (setting them) or `:` (a group).
                        let len = self.b[self.i..]
                            .iter()
                            .take_while(|c| c.is_ascii_alphabetic() || **c == b'-' || **c == b'^')
                            .count();
                        let letters = &self.b[self.i..self.i + len];
                        if letters.iter().any(|c| c.is_ascii_alphabetic() && !b"imnsxJUarDSWPT".contains(c)) {
                            return refused("unrecognized character after (? or (?-");
                        }
                        if letters.iter().any(|c| b"arDSWPT".contains(c)) {
                            return Err(Stop::Unsure);
                        }
                        match self.peek(len) {
                            Some(b')') => {
                                self.i += len + 1;
                                return Ok(Item::Fixed);
                            }
                            Some(b':') => self.i += len + 1,
                            Some(c) if c.is_ascii() => return refused("unrecognized character after (? or (?-"),
                            None => return refused("missing closing parenthesis"),
                            _ => return Err(Stop::Unsure),
                        }
                    }
                }
            }
            _ => self.groups += 1,
        }
        let (_, unbounded) = self.alternation(behind)?;
        self.close()?;
        Ok(Item::Repeatable { unbounded: unbounded && !zero_width })
    }

    /// The `)` that closes a group.
    fn close(&mut self) -> R<()> {
        if self.peek(0) != Some(b')') {
            return refused("missing closing parenthesis");
        }
        self.i += 1;
        Ok(())
    }

    /// A named capturing group, the reader at its name.
    fn named_group(&mut self, close: u8) -> R<()> {
        // (Names may repeat: `ap_regcomp` compiles with PCRE2_DUPNAMES.)
        let name = self.name(close)?;
        self.names.push(name);
        self.groups += 1;
        Ok(())
    }

    /// A conditional group, the reader at the `(` of its condition.
    fn conditional(&mut self) -> R<Item> {
        self.i += 1;
        let rest = &self.b[self.i..];
        let mut define = false;
        if rest.starts_with(b"?") || rest.starts_with(b"*") {
            // An assertion: read as a group.
            self.i -= 1;
            self.group()?;
        } else {
            let Some(end) = rest.iter().position(|c| *c == b')') else { return Err(Stop::Unsure) };
            let cond = &rest[..end];
            self.i += end + 1;
            match cond {
                b"DEFINE" => define = true,
                [b'<', name @ .., b'>'] | [b'\'', name @ .., b'\''] if valid_name(name) => self.name_refs.push(name),
                [first, ..] if first.is_ascii_digit() || matches!(first, b'+' | b'-') => self.reference(cond, false)?,
                [b'R', ..] => {}
                _ if valid_name(cond) => self.name_refs.push(cond),
                _ => return Err(Stop::Unsure),
            }
        }
        let (branches, unbounded) = self.alternation(false)?;
        if define && branches > 1 {
            return refused("DEFINE subpattern contains more than one branch");
        }
        if branches > 2 {
            return refused("conditional subpattern contains more than two branches");
        }
        self.close()?;
        Ok(Item::Repeatable { unbounded })
    }
}

/// The closing delimiter of a name that opens with `open`.
fn closing(open: u8) -> Option<u8> {
    match open {
        b'<' => Some(b'>'),
        b'\'' => Some(b'\''),
        b'{' => Some(b'}'),
        _ => None,
    }
}

fn valid_name(name: &[u8]) -> bool {
    name.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && name.len() <= 32
        && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// PCRE2's `check_posix_syntax`: from the terminator `t` at `at` (after a `[`), the index of
/// the `t` of the closing `t]`, if the text is a POSIX class or collating element.
fn posix_end(b: &[u8], at: usize, t: u8) -> Option<usize> {
    let mut i = at + 1;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        if b[i] == b'\\' && matches!(next, Some(b']' | b'\\')) {
            i += 1;
        } else if (b[i] == b'[' && next == Some(t)) || b[i] == b']' {
            return None;
        } else if b[i] == t && next == Some(b']') {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// `{m}`, `{m,}` or `{m,n}` at the start of `b`: (m, n, its length in bytes). Counts too big
/// for a u64 are taken as `u64::MAX`.
fn counted(b: &[u8]) -> Option<(u64, Option<u64>, usize)> {
    let number = |from: usize| -> (u64, usize) {
        let digits = b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        let value = b[from..from + digits]
            .iter()
            .try_fold(0u64, |v, d| v.checked_mul(10)?.checked_add(u64::from(d - b'0')))
            .unwrap_or(u64::MAX);
        (value, digits)
    };
    let (min, digits) = number(1);
    if digits == 0 {
        return None;
    }
    let mut at = 1 + digits;
    let mut max = Some(min);
    if b.get(at) == Some(&b',') {
        let (n, digits) = number(at + 1);
        max = (digits > 0).then_some(n);
        at += 1 + digits;
    }
    (b.get(at) == Some(&b'}')).then_some((min, max, at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn show(patterns: &[&str]) -> String {
        patterns.iter().map(|p| format!("{p:<24} {}\n", pcre2_error(p).unwrap_or("ok"))).collect()
    }

    /// Each checked against PCRE2 10.42's `pcre2_compile` (the library Debian's httpd links).
    #[test]
    fn what_every_pcre2_refuses() {
        expect![[r#"
            ^*                       quantifier does not follow a repeatable item
            $+                       quantifier does not follow a repeatable item
            \b?                      quantifier does not follow a repeatable item
            \A*                      quantifier does not follow a repeatable item
            \z{2}                    quantifier does not follow a repeatable item
            \G*                      quantifier does not follow a repeatable item
            \K+                      quantifier does not follow a repeatable item
            a**                      quantifier does not follow a repeatable item
            a{2}{3}                  quantifier does not follow a repeatable item
            (?i)*                    quantifier does not follow a repeatable item
            (?)*                     quantifier does not follow a repeatable item
            a(*SKIP)*                quantifier does not follow a repeatable item
            (?#x)*                   quantifier does not follow a repeatable item
            \Q\E*                    quantifier does not follow a repeatable item
            *                        quantifier does not follow a repeatable item
            (*)                      quantifier does not follow a repeatable item
            x|+                      quantifier does not follow a repeatable item
            a{2,1}                   numbers out of order in {} quantifier
            a{65536}                 number too big in {} quantifier
            (                        missing closing parenthesis
            )                        unmatched closing parenthesis
            a)                       unmatched closing parenthesis
            [a                       missing terminating ] for character class
            []                       missing terminating ] for character class
            [^]                      missing terminating ] for character class
            \                        \ at end of pattern
            \c                       \c at end of pattern
            \i                       unrecognized character follows \
            \L                       PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u
            \x{100}                  character code point value in \x{} or \o{} is too large
            \o{400}                  character code point value in \x{} or \o{} is too large
            \400                     octal value is greater than \377 in 8-bit non-UTF-8 mode
            [\400]                   octal value is greater than \377 in 8-bit non-UTF-8 mode
            \o                       missing opening brace after \o
            \p                       malformed \P or \p sequence
            [z-a]                    range out of order in character class
            [\r-\n]                  range out of order in character class
            [\d-z]                   invalid range in character class
            [a-\w]                   invalid range in character class
            [a-[:digit:]]            invalid range in character class
            [[:foo:]]                unknown POSIX class name
            [:alpha:]                POSIX named classes are supported only within a class
            [.a.]                    POSIX collating elements are not supported
            [[=a=]]                  POSIX collating elements are not supported
            [\B]                     escape sequence is invalid in character class
            [\N]                     \N is not supported in a class
            (?<=a+)b                 lookbehind assertion is not fixed length
            (?<=a|b*)                lookbehind assertion is not fixed length
            (?<!\d{2,})              lookbehind assertion is not fixed length
            (?<=x(?:y|z)*)           lookbehind assertion is not fixed length
            (?<=(?<=a+))             lookbehind assertion is not fixed length
            \1                       reference to non-existent subpattern
            (a)\2                    reference to non-existent subpattern
            \8                       reference to non-existent subpattern
            \g{2}(a)                 reference to non-existent subpattern
            \g{-2}(a)                reference to non-existent subpattern
            \g                       \g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number
            \k<n>                    reference to non-existent subpattern
            \k                       \k is not followed by a braced, angle-bracketed, or quoted name
            (?P=n)                   reference to non-existent subpattern
            (?&n)                    reference to non-existent subpattern
            (?1)                     reference to non-existent subpattern
            (?-1)                    reference to non-existent subpattern
            (?(1)a)                  reference to non-existent subpattern
            (?(<n>)a)                reference to non-existent subpattern
            (?(n)a)                  reference to non-existent subpattern
            (?(?=a)b|c|d)            conditional subpattern contains more than two branches
            (?(DEFINE)a|b)           DEFINE subpattern contains more than one branch
            (?<1n>a)                 subpattern name must start with a non-digit
            (?<a-b>x)                syntax error in subpattern name (missing terminator?)
            (?z)                     unrecognized character after (? or (?-
            (?%)                     unrecognized character after (? or (?-
            (?C256)                  number after (?C is greater than 255
            \N{U+41}                 \N{U+dddd} is supported only in Unicode (UTF) mode
            (?i                      missing closing parenthesis
            a(?i-s                   missing closing parenthesis
            (*FOO)a                  (*VERB) not recognized or malformed
            a(*BAR)                  (*VERB) not recognized or malformed
            (*foo)                   (*alpha_assertion) not recognized
        "#]].assert_eq(&show(&[
            "^*", "$+", "\\b?", "\\A*", "\\z{2}", "\\G*", "\\K+", "a**", "a{2}{3}", "(?i)*", "(?)*", "a(*SKIP)*",
            "(?#x)*", "\\Q\\E*", "*", "(*)", "x|+", "a{2,1}", "a{65536}", "(", ")", "a)", "[a", "[]", "[^]", "\\",
            "\\c", "\\i", "\\L", "\\x{100}", "\\o{400}", "\\400", "[\\400]", "\\o", "\\p", "[z-a]", "[\\r-\\n]",
            "[\\d-z]", "[a-\\w]", "[a-[:digit:]]", "[[:foo:]]", "[:alpha:]", "[.a.]", "[[=a=]]", "[\\B]", "[\\N]",
            "(?<=a+)b", "(?<=a|b*)", "(?<!\\d{2,})", "(?<=x(?:y|z)*)", "(?<=(?<=a+))", "\\1", "(a)\\2", "\\8",
            "\\g{2}(a)", "\\g{-2}(a)", "\\g", "\\k<n>", "\\k", "(?P=n)", "(?&n)", "(?1)", "(?-1)", "(?(1)a)",
            "(?(<n>)a)", "(?(n)a)", "(?(?=a)b|c|d)", "(?(DEFINE)a|b)", "(?<1n>a)", "(?<a-b>x)",
            "(?z)", "(?%)", "(?C256)", "\\N{U+41}", "(?i", "a(?i-s", "(*FOO)a", "a(*BAR)", "(*foo)",
        ]));
    }

    #[test]
    fn what_pcre2_accepts() {
        expect![[r#"
            a++                      ok
            a*+                      ok
            a?+                      ok
            a{2}+                    ok
            (?>a+)                   ok
            (?=a)*                   ok
            ()*                      ok
            (?:)*                    ok
            a(?#x)*                  ok
            (*ACCEPT)*               ok
            a{,3}                    ok
            x{ 2 }                   ok
            {2}a                     quantifier does not follow a repeatable item
            a{1,2                    ok
            a{65535}                 ok
            \_                       ok
            \E                       ok
            \Qa(\E*                  ok
            \xzz                     ok
            \x{ff}                   ok
            \377                     ok
            \10                      ok
            (a)\10                   ok
            \2(a)(b)                 ok
            (a)\g{-1}                ok
            (a)(?1)                  ok
            (?R)                     ok
            (?0)                     ok
            \g<0>                    ok
            (?<n>a)\k{n}             ok
            (?P<n>a)(?P=n)           ok
            (?<n>x)(?(n)a|b)         ok
            (?(R)a)                  ok
            (?(DEFINE)a)             ok
            (?(?=a)b|c)              ok
            (?<n>a)(?<n>b)           ok
            (?|(?<n>a)|(?<n>b))      ok
            (?|(a)|(b))\1            ok
            (?<=a|bc)                ok
            (?<=a{2})                ok
            (?<=(?=a+)b)             ok
            (?<=\Qab\E)              ok
            (?<=a{1,2})              ok
            (?<=(a|bc))              ok
            (?x)a # (                ok
            []a]                     ok
            [^]a]                    ok
            [a-]                     ok
            [%--]                    ok
            [\x41-a]                 ok
            [\n-\r]                  ok
            [[:alpha:][:^digit:]]    ok
            [[:alpha]                ok
            [:x]                     ok
            a[:]                     ok
            [\8]                     ok
            [\b]                     ok
            [[:<:]]a                 ok
            \p{L}\pL                 ok
            (*UTF)\x{100}            ok
            (*pla:a)                 ok
            (*MARK:x)a               ok
            (*:x)a                   ok
            (*THEN:x)                ok
            (*F)                     ok
            (*LIMIT_MATCH=10)a       ok
            (*UTF8)a                 ok
            (?C1)                    ok
            (?-i)                    ok
            (?^)                     ok
            (?i:a)*                  ok
            (?<!a)                   ok
            (?(+1)a|b)()             ok
        "#]]
        .assert_eq(&show(&[
            "a++",
            "a*+",
            "a?+",
            "a{2}+",
            "(?>a+)",
            "(?=a)*",
            "()*",
            "(?:)*",
            "a(?#x)*",
            "(*ACCEPT)*",
            "a{,3}",
            "x{ 2 }",
            "{2}a",
            "a{1,2",
            "a{65535}",
            "\\_",
            "\\E",
            "\\Qa(\\E*",
            "\\xzz",
            "\\x{ff}",
            "\\377",
            "\\10",
            "(a)\\10",
            "\\2(a)(b)",
            "(a)\\g{-1}",
            "(a)(?1)",
            "(?R)",
            "(?0)",
            "\\g<0>",
            "(?<n>a)\\k{n}",
            "(?P<n>a)(?P=n)",
            "(?<n>x)(?(n)a|b)",
            "(?(R)a)",
            "(?(DEFINE)a)",
            "(?(?=a)b|c)",
            "(?<n>a)(?<n>b)",
            "(?|(?<n>a)|(?<n>b))",
            "(?|(a)|(b))\\1",
            "(?<=a|bc)",
            "(?<=a{2})",
            "(?<=(?=a+)b)",
            "(?<=\\Qab\\E)",
            "(?<=a{1,2})",
            "(?<=(a|bc))",
            "(?x)a # (",
            "[]a]",
            "[^]a]",
            "[a-]",
            "[%--]",
            "[\\x41-a]",
            "[\\n-\\r]",
            "[[:alpha:][:^digit:]]",
            "[[:alpha]",
            "[:x]",
            "a[:]",
            "[\\8]",
            "[\\b]",
            "[[:<:]]a",
            "\\p{L}\\pL",
            "(*UTF)\\x{100}",
            "(*pla:a)",
            "(*MARK:x)a",
            "(*:x)a",
            "(*THEN:x)",
            "(*F)",
            "(*LIMIT_MATCH=10)a",
            "(*UTF8)a",
            "(?C1)",
            "(?-i)",
            "(?^)",
            "(?i:a)*",
            "(?<!a)",
            "(?(+1)a|b)()",
        ]));
    }

    /// 250 nested groups are the most PCRE2 takes.
    #[test]
    fn nesting_limit() {
        let nested = |n: usize| format!("{}{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(pcre2_error(&nested(250)), None);
        assert_eq!(pcre2_error(&nested(251)), Some("parentheses are too deeply nested"));
    }

    proptest::proptest! {
        /// Whatever the input, the reader answers (and never panics).
        #[test]
        fn never_panics(s in "\\PC{0,60}") {
            let _ = pcre2_error(&s);
        }

        /// Inputs made of PCRE's own pieces reach deeper.
        #[test]
        fn never_panics_on_pieces(parts in proptest::collection::vec(proptest::sample::select(vec![
            "(", ")", "(?", "(?<", "(?<=", "(?P", "(*", "[", "]", "[:", ":]", "\\", "\\Q", "\\E", "\\g", "\\k",
            "{", "}", "1", ",", "-", "+", "*", "?", "|", "^", "a", "<n>", "'", "\\x{", "\\o{", "=", "!", "#",
        ]), 0..40)) {
            let _ = pcre2_error(&parts.concat());
        }
    }
}
