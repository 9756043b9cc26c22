//! Builds the lossless tree from logical lines.
//!
//! Invariants: the tree's text is the input, byte for byte, for every input; the
//! parser never fails and never recurses (sections are tracked on an explicit
//! stack, so deep nesting cannot overflow the call stack); errors are collected
//! beside the tree with the messages httpd itself prints.

use rowan::{GreenNode, GreenNodeBuilder, TextRange, TextSize};

use crate::lexer::{logical_lines, skip_space, word_end, LogicalLine};
use crate::SyntaxKind::{self, *};

/// A syntax error: what httpd would say, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub range: TextRange,
    /// False for what httpd tolerates in some cases (an `<IfModule>` left open at
    /// the end of a file is accepted when its condition is true).
    pub is_error: bool,
}

/// The result of parsing one file.
#[derive(Debug, Clone)]
pub struct Parse {
    pub green: GreenNode,
    pub errors: Vec<SyntaxError>,
}

struct Open {
    /// Held inline: section names are short, and a big file opens a section every few lines.
    name: compact_str::CompactString,
    header: TextRange,
    /// Whether a SECTION node was started for it (false past [`MAX_DEPTH`]).
    node: bool,
    /// Whether a closer of another name was met in its body and reported (`Expected </…>`):
    /// that error already says it is not closed.
    mismatched: bool,
}

/// Sections nested deeper than this are kept in the tree flat (header and closer
/// as siblings), so that no recursive walk or drop of the tree, here or in the
/// analyses built on it, can overflow a thread's stack (1000 levels did, in debug
/// builds on 2 MiB threads). Real configurations nest fewer than ten levels.
pub const MAX_DEPTH: usize = 256;

/// httpd's `VARBUF_MAX_LEN` (server/config.c): a configuration line of this many
/// bytes or more fails with "Line too long" (checked against httpd 2.4.x: 16 MiB − 1
/// bytes before the newline pass, 16 MiB do not).
pub const MAX_LINE: usize = 16 << 20;

struct Emitter<'l, 'a> {
    line: &'l LogicalLine<'a>,
    src: &'a str,
    next_cont: usize,
}

impl<'l, 'a> Emitter<'l, 'a> {
    fn flush_upto<S: Sink>(&mut self, b: &mut S, j: usize) {
        while let Some(&(cj, s, e)) = self.line.continuations.get(self.next_cont) {
            if cj > j {
                break;
            }
            b.token(CONTINUATION, &self.src[s..e]);
            self.next_cont += 1;
        }
    }

    fn start<S: Sink>(&mut self, b: &mut S, kind: SyntaxKind, at: usize) {
        self.flush_upto(b, at);
        b.start_node(kind);
    }

    /// Emits `[a, b)` of the joined text as `kind`, split around continuations.
    fn token<S: Sink>(&mut self, bld: &mut S, kind: SyntaxKind, a: usize, b: usize) {
        if a >= b {
            return;
        }
        if self.line.continuations.is_empty() {
            // One segment: joined offsets are source offsets from the line's start.
            let s = self.line.start;
            bld.token(kind, &self.src[s + a..s + b]);
            return;
        }
        self.flush_upto(bld, a);
        let mut piece = a;
        while let Some(&(cj, s, e)) = self.line.continuations.get(self.next_cont) {
            if cj >= b {
                break;
            }
            if cj > piece {
                let ps = self.line.to_src(piece);
                bld.token(kind, &self.src[ps..ps + (cj - piece)]);
            }
            bld.token(CONTINUATION, &self.src[s..e]);
            self.next_cont += 1;
            piece = cj;
        }
        let ps = self.line.to_src(piece);
        bld.token(kind, &self.src[ps..ps + (b - piece)]);
    }

    fn finish_line<S: Sink>(&mut self, bld: &mut S) {
        self.flush_upto(bld, usize::MAX);
        if let Some((a, b)) = self.line.nul_tail {
            bld.token(NUL_TAIL, &self.src[a..b]);
        }
        let nl = self.line.newline();
        if !nl.is_empty() {
            bld.token(NEWLINE, nl);
        }
    }

    /// Whitespace and words (each an ARGUMENT node) of `[a, end)`.
    fn arguments<S: Sink>(&mut self, bld: &mut S, text: &[u8], mut a: usize, end: usize) {
        if !S::ARGUMENTS {
            // The sink keeps neither ARGUMENT nodes nor their tokens: only the span, and the
            // continuations in it.
            self.token(bld, WORD, a, end);
            return;
        }
        while a < end {
            let w = skip_space(&text[..end], a);
            self.token(bld, WHITESPACE, a, w);
            if w >= end {
                break;
            }
            let (e, quoted) = word_end(&text[..end], w);
            self.start(bld, ARGUMENT, w);
            self.token(bld, if quoted { QUOTED } else { WORD }, w, e);
            bld.finish_node();
            a = e;
        }
    }
}

/// Section names whose opener needs at least one argument.
const NEEDS_ARGS: &[&str] = &[
    "directory",
    "directorymatch",
    "files",
    "filesmatch",
    "location",
    "locationmatch",
    "virtualhost",
    "ifmodule",
    "ifdefine",
    "ifversion",
    "iffile",
    "ifdirective",
    "ifsection",
    "if",
    "elseif",
    "limit",
    "limitexcept",
    "proxy",
    "proxymatch",
    "macro",
    "authnprovideralias",
    "authzprovideralias",
];
/// Section names whose opener takes no argument.
const NO_ARGS: &[&str] = &["requireall", "requireany", "requirenone", "else"];
/// Sections that accept one path or pattern only (`server/core.c: dirsection` & co.).
const SINGLE_PATH: &[&str] = &["directory", "directorymatch", "files", "filesmatch", "location", "locationmatch"];

/// Where the parser's output goes: a rowan builder (the lossless tree), or
/// [`crate::flat`]'s list of node ranges. Both see the same calls, in the same order.
pub(crate) trait Sink {
    /// Whether the sink keeps the ARGUMENT nodes and their tokens; when not, the parser
    /// hands it each run of arguments as one token (its continuations apart).
    const ARGUMENTS: bool = true;
    fn start_node(&mut self, kind: SyntaxKind);
    fn token(&mut self, kind: SyntaxKind, text: &str);
    fn finish_node(&mut self);
}

impl Sink for GreenNodeBuilder<'static> {
    fn start_node(&mut self, kind: SyntaxKind) {
        GreenNodeBuilder::start_node(self, kind.into());
    }
    fn token(&mut self, kind: SyntaxKind, text: &str) {
        GreenNodeBuilder::token(self, kind.into(), text);
    }
    fn finish_node(&mut self) {
        GreenNodeBuilder::finish_node(self);
    }
}

/// Parses a whole file. Never fails; see the module docs for the invariants.
pub fn parse(src: &str) -> Parse {
    let mut b = GreenNodeBuilder::new();
    let errors = parse_into(src, &mut b);
    Parse { green: b.finish(), errors }
}

/// The parser proper, writing to any [`Sink`]; returns the errors, sorted by position.
pub(crate) fn parse_into<S: Sink>(src: &str, b: &mut S) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut too_deep = false;
    b.start_node(SOURCE_FILE);

    for line in logical_lines(src) {
        // Errors point at the last physical line of a continued line, as httpd's do.
        let line_range = TextRange::new(ts(line.last_physical_start()), ts(line.content_end));
        if let Some((a, b)) = line.nul_tail {
            errors.push(SyntaxError {
                message: "a NUL byte: httpd's reader ends the line here and ignores the rest of it".into(),
                range: TextRange::new(ts(a), ts(b)),
                is_error: false,
            });
        }
        if line.joined().len() >= MAX_LINE {
            errors.push(err(
                format!(
                    "Line too long: this line is {} bytes; httpd reads lines shorter than {} MiB and refuses to start",
                    line.joined().len(),
                    MAX_LINE >> 20
                ),
                line_range,
            ));
        }
        if simple_line(b, src, &line) {
            continue;
        }
        let text = line.joined().as_bytes();
        let mut em = Emitter { line: &line, src, next_cont: 0 };
        let first = skip_space(text, 0);
        let (wend, _) = word_end(text, first);
        let word = &line.joined()[first..wend];
        if let Some(name) = word.strip_prefix("</") {
            let has_gt = name.ends_with('>');
            let name = if has_gt { &name[..name.len() - 1] } else { name };
            let matches_top = stack.last().map(|o| o.name.eq_ignore_ascii_case(name));
            let outer = stack.iter().rposition(|o| o.name.eq_ignore_ascii_case(name));
            if !has_gt {
                errors.push(err(format!("</{name}> directive missing closing '>'"), line_range));
            }
            match (matches_top, outer) {
                (Some(true), _) => {}
                (Some(false), Some(i)) => {
                    let top = stack.last().unwrap();
                    // (Said once of a section: at the first closer of another name in its body.)
                    if !top.mismatched {
                        errors.push(err(format!("Expected </{}> but saw </{name}>", top.name), line_range));
                    }
                    while stack.len() > i + 1 {
                        if stack.pop().is_some_and(|o| o.node) {
                            b.finish_node();
                        }
                    }
                }
                (Some(false), None) => {
                    let top = stack.last_mut().unwrap();
                    errors.push(err(format!("Expected </{}> but saw </{name}>", top.name), line_range));
                    top.mismatched = true;
                }
                (None, _) => {
                    errors.push(err(format!("</{name}> without matching <{name}> section"), line_range));
                }
            }
            let closes = outer.is_some();
            em.start(b, if closes { SECTION_CLOSER } else { ERROR }, 0);
            em.token(b, WHITESPACE, 0, first);
            em.token(b, L_ANGLE_SLASH, first, first + 2);
            em.start(b, NAME, first + 2);
            em.token(b, WORD, first + 2, first + 2 + name.len());
            b.finish_node();
            if has_gt {
                em.token(b, R_ANGLE, wend - 1, wend);
            }
            trailing(&mut em, b, text, wend);
            em.finish_line(b);
            b.finish_node();
            if closes && stack.pop().is_some_and(|o| o.node) {
                b.finish_node(); // SECTION
            }
            continue;
        }
        {
            // A header: `simple_line` took every line whose first word does not start with `<`.
            let name_gt = word.len() > 2 && word.ends_with('>');
            let name = if name_gt { &word[1..word.len() - 1] } else { &word[1..] };
            // The lists are lowercase; httpd compares section names without case.
            let listed = |list: &[&str]| list.iter().any(|l| l.eq_ignore_ascii_case(name));
            let node = stack.len() < MAX_DEPTH;
            if node {
                em.start(b, SECTION, 0);
            } else if !too_deep {
                too_deep = true;
                errors.push(err(
                    format!("sections are nested more than {MAX_DEPTH} deep; the tree is kept flat from here"),
                    line_range,
                ));
            }
            em.start(b, SECTION_HEADER, 0);
            em.token(b, WHITESPACE, 0, first);
            em.token(b, L_ANGLE, first, first + 1);
            em.start(b, NAME, first + 1);
            em.token(b, WORD, first + 1, first + 1 + name.len());
            b.finish_node();
            let mut nargs = 0;
            let mut words = 0;
            // (Where the section's arguments end, its `>`, when it has one.)
            let mut arg_end = Some(wend);
            // httpd reads `<Name` alone as `<Name>`: an opener with nothing after its name is
            // handed the arguments `>` (`ap_build_config_sub`).
            let bare = !name_gt && skip_space(text, wend) == text.len();
            // `<Name> words`: httpd hands the handler the words after `<Name>`, where a
            // section's handler looks for its `>` (only the form without one is judged here).
            let words_after_gt = name_gt && skip_space(text, wend) < text.len();
            let gt_then_words = words_after_gt
                && !text[wend..].contains(&b'>')
                && (listed(NEEDS_ARGS) || listed(NO_ARGS))
                && !name.eq_ignore_ascii_case("ifversion");
            // `<Name> words>`: the handler is handed the same words as for `<Name words>` (the
            // name's `>` is taken off, `ap_build_config_sub`), and finds its `>` at the end; the
            // first `>` is then no more than a TRAILING token before the arguments.
            let gt_then_args = words_after_gt && text[wend..].contains(&b'>');
            let mut header_errors = Vec::new();
            if (name_gt && !gt_then_args) || bare {
                if name_gt {
                    em.token(b, R_ANGLE, wend - 1, wend);
                }
                trailing(&mut em, b, text, wend);
            } else {
                if gt_then_args {
                    em.token(b, TRAILING, wend - 1, wend);
                }
                let rest = &text[wend..];
                match memchr::memrchr(b'>', rest) {
                    Some(q) => {
                        let q = wend + q;
                        arg_end = Some(q);
                        nargs = count_words(text, wend, q);
                        words = nargs;
                        em.arguments(b, text, wend, q);
                        em.token(b, R_ANGLE, q, q + 1);
                        trailing(&mut em, b, text, q + 1);
                    }
                    None => {
                        header_errors.push(format!("<{name}> directive missing closing '>'"));
                        em.arguments(b, text, wend, text.len());
                        nargs = 1; // do not report a second error
                        arg_end = None;
                    }
                }
            }
            em.finish_line(b);
            b.finish_node(); // SECTION_HEADER
                             // (A condition, `start_cond_section`, is refused the same way when its first word
                             // is empty.)
            let no_condition =
                || listed(CONDITIONS) && arg_end.is_some_and(|end| condition_word_empty(&text[wend..end]));
            if (nargs == 0 && listed(NEEDS_ARGS)) || no_condition() {
                header_errors.push(format!("<{name}> directive requires additional arguments"));
            }
            if words > 0 && listed(NO_ARGS) {
                // (core.c's `ifsection` says it its own way, whatever case the name is written in.)
                header_errors.push(if name.eq_ignore_ascii_case("else") {
                    "<Else> does not take an argument".to_string()
                } else {
                    format!("<{name}> directive doesn't take additional arguments")
                });
            }
            if listed(SINGLE_PATH) {
                let limit = if first_word(line.joined(), wend) == Some("~") { 2 } else { 1 };
                if words > limit {
                    header_errors.push(format!("Multiple <{name}> arguments not (yet) supported."));
                }
            }
            // mod_version splits its words itself and looks for the `>` at the end of one.
            if name.eq_ignore_ascii_case("ifversion") {
                let args = if (name_gt && !words_after_gt) || bare { ">" } else { &line.joined()[wend..] };
                header_errors = if_version_error(args).into_iter().collect();
            }
            if gt_then_words {
                header_errors = vec![format!("<{name}> directive missing closing '>'")];
            }
            errors.extend(header_errors.into_iter().map(|m| err(m, line_range)));
            stack.push(Open { name: name.into(), header: line_range, node, mismatched: false });
        }
    }
    for open in stack.iter().rev() {
        if open.mismatched {
            if open.node {
                b.finish_node();
            }
            continue;
        }
        let mut e = err(format!("<{}> was not closed.", open.name), open.header);
        if CONDITIONALS.iter().any(|c| c.eq_ignore_ascii_case(&open.name)) {
            e.message.push_str(" (httpd accepts this only while the condition is true)");
            e.is_error = false;
        }
        errors.push(e);
        if open.node {
            b.finish_node();
        }
    }
    b.finish_node();
    errors.sort_by_key(|e| e.range.start());
    errors
}

/// Whether a logical line is a section header or closer (its first word starts with `<`):
/// the only lines whose meaning depends on the lines around them.
pub(crate) fn is_section_line(line: &LogicalLine<'_>) -> bool {
    let text = line.joined().as_bytes();
    let first = skip_space(text, 0);
    first < text.len() && text[first] == b'<'
}

/// Emits a blank line, a comment or a directive, and returns true; returns false
/// (emitting nothing) for a section header or closer. These lines produce no errors
/// and are emitted the same wherever they stand, which is what lets
/// [`crate::reparse`] re-lex them alone.
pub(crate) fn simple_line<S: Sink>(b: &mut S, src: &str, line: &LogicalLine<'_>) -> bool {
    let text = line.joined().as_bytes();
    let mut em = Emitter { line, src, next_cont: 0 };
    let first = skip_space(text, 0);
    if first >= text.len() {
        em.token(b, WHITESPACE, 0, text.len());
        em.finish_line(b);
        return true;
    }
    if text[first] == b'#' {
        em.start(b, COMMENT, 0);
        em.token(b, WHITESPACE, 0, first);
        em.token(b, COMMENT_TEXT, first, text.len());
        em.finish_line(b);
        b.finish_node();
        return true;
    }
    if text[first] == b'<' {
        return false;
    }
    let (wend, _) = word_end(text, first);
    em.start(b, DIRECTIVE, 0);
    em.token(b, WHITESPACE, 0, first);
    em.start(b, NAME, first);
    em.token(b, if text[first] == b'"' || text[first] == b'\'' { QUOTED } else { WORD }, first, wend);
    b.finish_node();
    em.arguments(b, text, wend, text.len());
    em.finish_line(b);
    b.finish_node();
    true
}

fn trailing<S: Sink>(em: &mut Emitter<'_, '_>, b: &mut S, text: &[u8], from: usize) {
    let w = skip_space(text, from);
    em.token(b, WHITESPACE, from, w);
    em.token(b, TRAILING, w, text.len());
}

/// What mod_version refuses in the arguments of an `<IfVersion` opener before it compares
/// anything (`args`: the text after the name; `>` for an opener without arguments): one to
/// three words; the second ending in `>`, or a third that is `>` (a lone `>` after one word
/// is taken as that third); a known operator; a version of dotted numbers, or a `/regex/`
/// after `=` (the pattern itself is not compiled here).
fn if_version_error(args: &str) -> Option<String> {
    let words: Vec<std::borrow::Cow<'_, str>> = crate::lexer::words(args).collect();
    if words.len() > 3 || words.first().is_none_or(|w| w.is_empty()) {
        return Some(
            "<IfVersion takes one, two or three arguments, a comparison operator, a version (and a delimiter)".into(),
        );
    }
    let (mut op, mut version, mut third) = match &words[..] {
        [v] => ("=", &**v, None),
        [o, v] => (&**o, &**v, None),
        [o, v, t] => (&**o, &**v, Some(&**t)),
        _ => return None,
    };
    if third.is_none() && version == ">" {
        (version, op, third) = (op, "=", Some(">"));
    }
    let version = match (version.is_empty(), third == Some(">")) {
        (true, _) => None,
        (false, true) => Some(version),
        (false, false) => version.strip_suffix('>'),
    };
    let Some(version) = version else {
        return Some("<IfVersion> directive missing closing '>'".into());
    };
    // `!` negates (alone it is the operator); the operator is one character, or two ending
    // in `=` (`~=` excepted).
    let bare = op.strip_prefix('!').filter(|o| !o.is_empty()).unwrap_or(op).as_bytes();
    let invalid = || {
        (!version_is_valid(version)).then(|| {
            "Version appears to be invalid. It must have the format major[.minor[.patch]] where major, minor and patch are numbers.".to_string()
        })
    };
    match bare {
        [b'=', ..] if bare.len() == 1 || bare == b"==" => match version.strip_prefix('/') {
            None => invalid(),
            Some(rest) => (!rest.ends_with('/')).then(|| "Missing delimiting / of regular expression.".to_string()),
        },
        [b'~'] => None,
        [b'<' | b'>'] | [b'<' | b'>', b'='] => invalid(),
        _ => Some(format!("unrecognized operator '{op}'")),
    }
}

/// Whether mod_version reads `v` as a version: a digit first, then digits and dots making at
/// most three numbers (a dot after the third is allowed).
fn version_is_valid(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    v.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && v.bytes().all(|c| c.is_ascii_digit() || c == b'.')
        && (parts.len() <= 3 || (parts.len() == 4 && parts[3].is_empty()))
}

/// The conditional sections httpd reads with `start_cond_section` (server/core.c).
const CONDITIONS: &[&str] = &["ifmodule", "ifdefine", "iffile", "ifdirective", "ifsection"];

/// Whether `start_cond_section` finds no condition in a section's arguments `args` (the text
/// before its `>`): after a `!` that begins them, the first word as `ap_getword_conf` reads
/// it is empty (nothing, `""` or `''`).
fn condition_word_empty(args: &[u8]) -> bool {
    let start = args.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(args.len());
    let mut rest = &args[start..];
    if rest.first() == Some(&b'!') {
        rest = &rest[1..];
    }
    let start = rest.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(rest.len());
    let rest = &rest[start..];
    match rest {
        [] => true,
        [q, r, ..] if (*q == b'"' || *q == b'\'') && r == q => true,
        _ => false,
    }
}

fn count_words(text: &[u8], mut a: usize, end: usize) -> usize {
    let mut n = 0;
    loop {
        a = skip_space(&text[..end], a);
        if a >= end {
            return n;
        }
        a = word_end(&text[..end], a).0;
        n += 1;
    }
}

fn first_word(text: &str, from: usize) -> Option<&str> {
    let b = text.as_bytes();
    let a = skip_space(b, from);
    (a < b.len()).then(|| {
        let (e, _) = word_end(b, a);
        &text[a..e]
    })
}

fn ts(n: usize) -> TextSize {
    TextSize::from(n as u32)
}

fn err(message: String, range: TextRange) -> SyntaxError {
    SyntaxError { message, range, is_error: true }
}

/// Read-time conditional sections (`server/core.c: start_cond_section`, mod_version).
const CONDITIONALS: &[&str] = &["ifmodule", "ifdefine", "ifversion", "iffile", "ifdirective", "ifsection"];
