//! Input data model of the policy core: configuration items of one section body.
//!
//! Invariants:
//! * No IO. Items are produced by the config-model code from the syntax tree, after conditional
//!   sections (`<IfModule>` …) were resolved and `${VAR}` was expanded.
//! * Directive and block names are kept as written; every consumer compares them
//!   case-insensitively (httpd looks directive names up lowercased, §1.4 of the fact sheet).
//! * `args` are tokenised exactly like httpd's `ap_getword_conf` ([`getword_conf`]); `raw_args`
//!   is the trimmed rest of the line, used by RAW_ARGS directives such as `Require`.
//!
//! This file also holds what the other policy modules share: [`ConfigError`] (a startup error
//! with httpd's exact message), [`PolicyCtx`] (which modules are loaded, which extension methods
//! are registered) and [`getword_conf`].

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// Names and arguments: short strings stored inline (the same type as the configuration
/// model's words, so items are made from nodes without allocating).
pub type Word = compact_str::CompactString;

/// Where something was written: file path + 1-based line, and a byte range in that file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: Arc<Path>,
    pub line: u32,
    pub range: (u32, u32),
}

/// One configuration item inside a section body, after conditionals (`<IfModule>` etc.) were
/// resolved and `${VAR}` expanded. Names are as written (compare case-insensitively).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Directive {
        name: Word,
        /// Tokenized like httpd's `ap_getword_conf`.
        args: Vec<Word>,
        /// Rest of line after the name, trimmed, for RAW_ARGS directives such as Require.
        raw_args: Word,
        loc: Loc,
    },
    Block {
        /// "Limit", "LimitExcept", "RequireAll", "RequireAny", "RequireNone" (other nested
        /// blocks like Files are not given here).
        name: Word,
        args: Vec<Word>,
        loc: Loc,
        items: Vec<Item>,
    },
}

/// The directives of a body as httpd applies them whatever the method: its own and those of its
/// `<Limit>`/`<LimitExcept>` blocks, in order ([`crate::ide::config::level_directives`] for
/// items).
pub fn level_items(items: &[Item]) -> impl Iterator<Item = &Item> {
    let mut stack: Vec<&Item> = items.iter().rev().collect();
    std::iter::from_fn(move || loop {
        let it = stack.pop()?;
        match it {
            Item::Directive { .. } => return Some(it),
            Item::Block { name, items, .. } if super::method::is_limit(name) => stack.extend(items.iter().rev()),
            Item::Block { .. } => {}
        }
    })
}

impl Item {
    /// The directive or block name as written.
    pub fn name(&self) -> &str {
        match self {
            Item::Directive { name, .. } | Item::Block { name, .. } => name,
        }
    }

    pub fn loc(&self) -> &Loc {
        match self {
            Item::Directive { loc, .. } | Item::Block { loc, .. } => loc,
        }
    }

    /// Case-insensitive name test (httpd looks directive names up lowercased).
    pub fn is(&self, name: &str) -> bool {
        self.name().eq_ignore_ascii_case(name)
    }

    pub fn is_directive(&self, name: &str) -> bool {
        matches!(self, Item::Directive { .. }) && self.is(name)
    }

    pub fn is_block(&self, name: &str) -> bool {
        matches!(self, Item::Block { .. }) && self.is(name)
    }
}

/// A configuration error that makes `apache2 -t` fail, with httpd's exact message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub loc: Loc,
    /// The message as httpd prints it (without the `AH00526: Syntax error on line N` prefix).
    pub message: String,
    /// Set for errors reported by a check_config hook rather than by the directive itself
    /// (e.g. `AH01624`); httpd prints those without file and line, followed by `AH00014`.
    pub ah_code: Option<&'static str>,
}

impl ConfigError {
    pub(crate) fn new(loc: &Loc, message: impl Into<String>) -> ConfigError {
        ConfigError { loc: loc.clone(), message: message.into(), ah_code: None }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.ah_code {
            Some(code) => write!(f, "{code}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Which modules are loaded (by their `LoadModule` identifier, e.g. `authz_host_module`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModuleSet {
    /// Assume every module this code knows about is loaded.
    #[default]
    All,
    /// Exactly these modules are loaded.
    Only(BTreeSet<String>),
}

impl ModuleSet {
    pub fn only<I: IntoIterator<Item = S>, S: Into<String>>(names: I) -> ModuleSet {
        ModuleSet::Only(names.into_iter().map(Into::into).collect())
    }

    pub fn is_loaded(&self, module: &str) -> bool {
        match self {
            ModuleSet::All => true,
            ModuleSet::Only(set) => set.contains(module),
        }
    }
}

/// Server-wide facts that building and evaluating a section depends on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PolicyCtx {
    /// Loaded modules: decides which `Require` providers exist (`Unknown Authz provider`), which
    /// `AuthType`s have a handler, whether the default `file` authn provider exists.
    pub modules: ModuleSet,
    /// Non-builtin HTTP method names registered with httpd's method registry (every name used
    /// in any `<Limit>`/`<LimitExcept>` of the server config, and `RegisterHttpMethod`).
    /// Method names are case-sensitive. Needed for `Require method` validation and to decide
    /// which method number an unusual request method gets (unregistered → `M_INVALID`).
    pub registered_methods: BTreeSet<String>,
    /// Authz provider names registered dynamically (`<AuthzProviderAlias>`, `LuaAuthzProvider`,
    /// `AuthnzFcgiDefineProvider`). Their outcome is never known.
    pub extra_authz_providers: BTreeSet<String>,
    /// Authn provider names registered dynamically (`<AuthnProviderAlias>` …).
    pub extra_authn_providers: BTreeSet<String>,
    /// The section is an `.htaccess` file: unknown `<Limit>` methods are errors, and the
    /// check_config hook of mod_authz_core (AH01624 check and De Morgan rewrite of
    /// `<RequireNone>`) never runs for it (`mod_authz_core.c: authz_core_check_config` only walks
    /// the dir configs created at startup).
    pub htaccess: bool,
}

fn is_c_space(b: u8) -> bool {
    // apr_isspace == C isspace in the "C" locale.
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// httpd's `ap_getword_conf` (`server/util.c`, with `substring_conf`): returns the next word
/// and the rest of the line (leading whitespace of the rest already skipped).
///
/// * Whitespace separates words; a word *starting* with `"` or `'` runs to the matching quote
///   (or end of line), the closing quote ends the word even if text follows.
/// * Inside quotes only `\<quote>` and `\\` are escapes; unquoted, only `\\`.
/// * At end of input it returns `""`.
///
/// The word is the lexer's ([`apache_syntax::first_word`], what nodes hold); a test keeps the C
/// code's steps as the reference.
pub fn getword_conf(line: &str) -> (String, &str) {
    match apache_syntax::first_word(line) {
        Some((word, rest)) => {
            (word.into_owned(), rest.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8)))
        }
        None => (String::new(), ""),
    }
}

/// The C idiom `while ((w = ap_getword_conf(p, &t)) && w[0])`: words up to the first empty one
/// (an empty quoted word `""` ends the list).
pub fn getwords_conf(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    loop {
        let (w, r) = getword_conf(rest);
        if w.is_empty() {
            return out;
        }
        out.push(w);
        rest = r;
    }
}

/// Does an ap_expr *string* (as used by `Require user/group/host/forward-dns`, `AuthType`,
/// `AuthName`) contain anything that is evaluated at request time? Plain text without `%{`,
/// `$<digit>` or a backslash is its own value.
pub fn is_expr_string(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(2).any(|w| (w[0] == b'%' && w[1] == b'{') || (w[0] == b'$' && w[1].is_ascii_digit()))
        || b.contains(&b'\\')
}

#[cfg(test)]
pub(crate) mod test_util {
    //! A tiny test-only parser: `<Name args>` opens a block, `</Name>` closes it, any other
    //! non-empty, non-`#` line is a directive.
    use super::*;

    pub(crate) fn loc_at(line: u32, start: u32, end: u32) -> Loc {
        Loc { file: Arc::from(Path::new("test.conf")), line, range: (start, end) }
    }

    fn tokenize_all(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = s.trim();
        while !rest.is_empty() {
            let (w, r) = getword_conf(rest);
            out.push(w);
            rest = r;
        }
        out
    }

    /// Parse lines into items. Panics on unbalanced blocks.
    pub(crate) fn items(src: &str) -> Vec<Item> {
        let mut stack: Vec<(String, Vec<String>, Loc, Vec<Item>)> =
            vec![(String::new(), vec![], loc_at(0, 0, 0), vec![])];
        let mut offset = 0u32;
        for (idx, raw_line) in src.split('\n').enumerate() {
            let line_no = idx as u32 + 1;
            let start = offset;
            offset += raw_line.len() as u32 + 1;
            let line = raw_line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let loc = loc_at(line_no, start, start + raw_line.len() as u32);
            if let Some(close) = line.strip_prefix("</") {
                let name = close.trim_end_matches('>').trim();
                let (open, args, bloc, body) = stack.pop().expect("unbalanced close");
                assert!(open.eq_ignore_ascii_case(name), "expected </{open}> saw </{name}>");
                stack.last_mut().expect("unbalanced").3.push(Item::Block {
                    name: open.into(),
                    args: args.into_iter().map(Word::from).collect(),
                    loc: bloc,
                    items: body,
                });
            } else if let Some(open) = line.strip_prefix('<') {
                let inner = match open.rfind('>') {
                    Some(p) => &open[..p],
                    None => open,
                };
                let (name, rest) = match inner.find(|c: char| c.is_ascii_whitespace()) {
                    Some(p) => (&inner[..p], &inner[p..]),
                    None => (inner, ""),
                };
                stack.push((name.to_string(), tokenize_all(rest), loc, vec![]));
            } else {
                let (name, rest) = match line.find(|c: char| c.is_ascii_whitespace()) {
                    Some(p) => (&line[..p], line[p..].trim()),
                    None => (line, ""),
                };
                stack.last_mut().unwrap().3.push(Item::Directive {
                    name: name.into(),
                    args: tokenize_all(rest).into_iter().map(Word::from).collect(),
                    raw_args: rest.into(),
                    loc,
                });
            }
        }
        assert_eq!(stack.len(), 1, "unclosed block");
        stack.pop().unwrap().3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            let (w, r) = getword_conf(rest);
            out.push(w);
            rest = r;
        }
        out
    }

    proptest::proptest! {
        /// The lexer's words (what nodes hold, and what [`getword_conf`] gives) are those of the C
        /// code step by step: quotes, escapes and blanks in any order, unclosed quotes included,
        /// and so is the rest of the line after each.
        #[test]
        fn the_lexer_s_words_are_getword_conf_s(line in "[ a\"'\\\\b\t\r]{0,24}") {
            let mut rest = line.as_str();
            let mut port = Vec::new();
            loop {
                let (ours, our_rest) = getword_conf(rest);
                let (theirs, their_rest) = getword_conf_port(rest);
                proptest::prop_assert_eq!((&ours, our_rest), (&theirs, their_rest), "{:?}", line);
                // Only blanks were left: the end of the line, not an empty (quoted) word.
                if rest.trim_start_matches([' ', '\t', '\r']).is_empty() {
                    break;
                }
                port.push(theirs);
                rest = their_rest;
            }
            let lexer: Vec<String> = apache_syntax::words(&line).map(|w| w.into_owned()).collect();
            proptest::prop_assert_eq!(lexer, port, "{:?}", line);
        }
    }

    /// `ap_getword_conf` step by step as the C code does it (`server/util.c`, with
    /// `substring_conf`): the reference [`getword_conf`] is held to.
    ///
    /// * Whitespace separates words; a word *starting* with `"` or `'` runs to the matching quote
    ///   (or end of line), the closing quote ends the word even if text follows.
    /// * Inside quotes only `\<quote>` and `\\` are escapes; unquoted, only `\\`.
    /// * At end of input it returns `""`.
    fn getword_conf_port(line: &str) -> (String, &str) {
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() && is_c_space(b[i]) {
            i += 1;
        }
        if i == b.len() {
            return (String::new(), &line[i..]);
        }
        let quote = b[i];
        let (start, len, mut end, q) = if quote == b'"' || quote == b'\'' {
            let mut e = i + 1;
            while e < b.len() && b[e] != quote {
                if b[e] == b'\\' && e + 1 < b.len() && (b[e + 1] == quote || b[e + 1] == b'\\') {
                    e += 2;
                } else {
                    e += 1;
                }
            }
            (i + 1, e - i - 1, e, Some(quote))
        } else {
            let mut e = i;
            while e < b.len() && !is_c_space(b[e]) {
                e += 1;
            }
            (i, e - i, e, None)
        };
        // substring_conf: note it may peek one byte past the substring, like the C code.
        let mut out = Vec::with_capacity(len);
        let mut k = 0;
        while k < len {
            let c = b[start + k];
            let next = b.get(start + k + 1).copied();
            if c == b'\\' && (next == Some(b'\\') || (q.is_some() && next == q)) {
                k += 1;
                out.push(b[start + k]);
            } else {
                out.push(c);
            }
            k += 1;
        }
        if q.is_some() && end < b.len() && b[end] == quote {
            end += 1;
        }
        while end < b.len() && is_c_space(b[end]) {
            end += 1;
        }
        (String::from_utf8_lossy(&out).into_owned(), &line[end..])
    }

    #[test]
    fn getword_conf_quotes_end_word_even_if_text_follows() {
        assert_eq!(words(r#""ab"cd"#), vec!["ab", "cd"]);
        assert_eq!(words(r#"a"b c"#), vec![r#"a"b"#, "c"]);
    }

    #[test]
    fn getword_conf_escapes_only_quote_and_backslash() {
        assert_eq!(words(r#""a\"b" 'c\'d' "e\nf" "g\'h""#), vec![r#"a"b"#, "c'd", r"e\nf", r"g\'h"]);
        assert_eq!(words(r"a\\b a\b"), vec![r"a\b", r"a\b"]);
    }

    #[test]
    fn getword_conf_unclosed_quote_runs_to_end_of_line() {
        assert_eq!(words(r#""a b"#), vec!["a b"]);
    }

    #[test]
    fn getwords_conf_stops_at_empty_quoted_word() {
        assert_eq!(getwords_conf(r#"a "" b"#), vec!["a"]);
    }

    #[test]
    fn expr_strings_are_detected() {
        assert!(is_expr_string("%{REMOTE_USER}"));
        assert!(is_expr_string("a$1"));
        assert!(!is_expr_string("alice bob"));
    }

    #[test]
    fn test_parser_builds_nested_blocks() {
        let it = test_util::items("Order deny,allow\n<Limit GET>\n  Require all granted\n</Limit>\n");
        assert_eq!(it.len(), 2);
        assert!(it[0].is_directive("order"));
        match &it[1] {
            Item::Block { name, args, items, .. } => {
                assert_eq!(name, "Limit");
                assert_eq!(args, &vec!["GET".to_string()]);
                assert_eq!(items[0].loc().line, 3);
            }
            _ => panic!(),
        }
    }
}
