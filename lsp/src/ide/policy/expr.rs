//! httpd 2.4's ap_expr language, parsed the way `ap_expr_parse` parses a boolean expression
//! (`<If>`, `<ElseIf>`, `Require expr`, …), to tell whether httpd accepts it and, if not, what
//! it says.
//!
//! Follows `server/util_expr_scan.l` (the scanner: strings, `%{…}` variables, regexes, operators)
//! and `server/util_expr_parse.y` (the grammar, a bison LALR(1) parser with verbose errors), and
//! the name lookups of `server/util_expr_eval.c` (`core_expr_lookup`, `expr_lookup_not_found`)
//! and of the modules that hook `expr_lookup` (mod_ssl, mod_proxy_hcheck).
//!
//! What httpd reports is built from two messages, as `ap_expr_parse` builds it:
//! * bison's: `syntax error, unexpected X[, expecting A or B …]` (at most four expected tokens
//!   are named; the state that names them is the one bison is in after its default reductions,
//!   which the recursive descent here reproduces at each place an error can be found), or
//!   `Failed to compile regular expression`;
//! * the scanner's or a name lookup's, the last one written (`Variable 'X' does not exist`,
//!   `Parse error near '#'`, …). A lookup failure does not stop the parse.
//!
//! When bison finds the scanner's error token where an expression or a string may start, it
//! aborts without a message of its own. Invariants: no IO, never panics, bounded by the input
//! (each token is read once; nesting recursion is bounded by `MAX_DEPTH`).

use super::addr::parse_require_ip;
use super::pcre::pcre_refuses;

/// httpd's `MAX_STRING_LEN`: the scanner's buffers for strings and regexes.
const MAX_STRING_LEN: usize = 8192;

/// Nesting beyond which we stop following (bison's stack limit is 10 000 states; httpd fails
/// with "memory exhausted" well past anything written by hand).
const MAX_DEPTH: usize = 2000;

/// Which modules add names to the language (their `expr_lookup` hooks).
#[derive(Debug, Clone, Copy, Default)]
pub struct Lookups {
    /// mod_ssl: `%{SSL_*}`, `SSL()`, `PeerExtList()`.
    pub ssl: bool,
    /// mod_proxy_hcheck: `%{HC_*}`, `HC()`.
    pub hcheck: bool,
    /// Parsed where httpd restricts the language (`AP_EXPR_FLAG_RESTRICTED`: an .htaccess
    /// file): the functions that read files, `file()` and `filesize()`, are refused.
    pub restricted: bool,
}

/// httpd's verdict on a parse: the parser's result and the message its error handler kept
/// (`ap_expr_yyerror`'s second message, when one was given).
fn verdict(result: Result<(), Fail>, error2: Option<String>) -> Result<(), String> {
    match result {
        Ok(()) => error2.map_or(Ok(()), Err),
        Err(Fail::Abort) => Err(error2.unwrap_or_else(|| "syntax error".into())),
        Err(Fail::Error(e)) => Err(match error2 {
            Some(e2) => format!("{e}: {e2}"),
            None => e,
        }),
    }
}

/// Parse a boolean expression: `Ok` when httpd accepts it, else httpd's message (what follows
/// `Cannot parse condition clause: ` or `Cannot parse expression in require line: `).
pub fn parse_bool(text: &str, lookups: Lookups) -> Result<(), String> {
    parse_tree(text, lookups).map(|_| ())
}

/// [`parse_bool`], keeping what was parsed: the expression's tree when httpd accepts it.
pub fn parse_tree(text: &str, lookups: Lookups) -> Result<Cond, String> {
    let mut p = Parser { lx: Lexer::new(text), la: None, error2: None, lookups, depth: 0 };
    let mut tree = None;
    let result = p.root().map(|c| tree = Some(c));
    verdict(result, p.error2.take())?;
    tree.ok_or_else(|| "syntax error".into())
}

/// A boolean expression as httpd's parser builds it (`util_expr_parse.y`'s `cond`/`comp`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    /// `true`, `false`.
    Bool(bool),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    /// `-X word` (the operator's name without its dash).
    Unary(String, Word),
    /// `word -name word`.
    Binary(String, Word, Word),
    /// `word OP word`, OP named as bison names it (`T_OP_EQ` for `-eq`, `T_OP_STR_EQ` for `==`…).
    Cmp(&'static str, Word, Word),
    /// `word -in {…}`; None for a list-returning function.
    In(Word, Option<Vec<Word>>),
    /// `word =~ /re/` (`negated` for `!~`).
    Regex {
        word: Word,
        pattern: String,
        icase: bool,
        negated: bool,
    },
}

/// A word: its parts, concatenated.
pub type Word = Vec<Part>;

/// One part of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text (a quoted string's text, a number).
    Lit(String),
    /// `%{NAME}`.
    Var(String),
    /// `%{name:arg}` or `name(arg)`.
    Func(String, Word),
    /// `$0`…`$9`: a capture of the last regex match.
    Backref,
}

/// Parse a string expression (`AP_EXPR_FLAG_STRING_RESULT`: `AuthName`, `Header set … expr=…`,
/// `Require user`…): text with `%{VAR}`, `%{func:arg}` and `$N` in it, quotes taken as
/// themselves, escapes read as in a quoted string. `Ok` when httpd accepts it, else httpd's
/// message.
pub fn parse_string(text: &str, lookups: Lookups) -> Result<(), String> {
    let mut lx = Lexer::new(text);
    // (`BEGIN(str)` with no delimiter: a quote never ends the string.)
    lx.mode = Mode::Str;
    lx.string_result = true;
    let mut p = Parser { lx, la: None, error2: None, lookups, depth: 0 };
    let result = p.string_root();
    verdict(result, p.error2.take())
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    True,
    False,
    Error,
    Digit(String),
    Id(String),
    Str(String),
    Regex(String, bool),
    Backref,
    Unary(String),
    Binary(String),
    StrBegin,
    StrEnd,
    VarBegin,
    VarEnd,
    /// `-eq`, `-lt`, `==`, `<`, … (their bison names).
    Cmp(&'static str),
    Reg,
    Nre,
    In,
    Concat,
    Or,
    And,
    Not,
    Char(char),
    End,
}

impl Tok {
    /// The token's name in bison's messages.
    fn name(&self) -> String {
        match self {
            Tok::True => "T_TRUE".into(),
            Tok::False => "T_FALSE".into(),
            Tok::Error => "T_ERROR".into(),
            Tok::Digit(_) => "T_DIGIT".into(),
            Tok::Id(_) => "T_ID".into(),
            Tok::Str(_) => "T_STRING".into(),
            Tok::Regex(_, false) => "T_REGEX".into(),
            Tok::Regex(_, true) => "T_REGEX_I".into(),
            Tok::Backref => "T_REGEX_BACKREF".into(),
            Tok::Unary(_) => "T_OP_UNARY".into(),
            Tok::Binary(_) => "T_OP_BINARY".into(),
            Tok::StrBegin => "T_STR_BEGIN".into(),
            Tok::StrEnd => "T_STR_END".into(),
            Tok::VarBegin => "T_VAR_BEGIN".into(),
            Tok::VarEnd => "T_VAR_END".into(),
            Tok::Cmp(n) => (*n).into(),
            Tok::Reg => "T_OP_REG".into(),
            Tok::Nre => "T_OP_NRE".into(),
            Tok::In => "T_OP_IN".into(),
            Tok::Concat => "T_OP_CONCAT".into(),
            Tok::Or => "T_OP_OR".into(),
            Tok::And => "T_OP_AND".into(),
            Tok::Not => "T_OP_NOT".into(),
            Tok::Char(c) => format!("'{c}'"),
            Tok::End => "$end".into(),
        }
    }

    fn starts_word(&self) -> bool {
        matches!(self, Tok::Digit(_) | Tok::Id(_) | Tok::StrBegin | Tok::VarBegin | Tok::Backref)
    }

    fn is_string_part(&self) -> bool {
        matches!(self, Tok::Str(_) | Tok::VarBegin | Tok::Backref)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Initial,
    Str,
    Var,
    VarArg,
}

struct Lexer<'a> {
    s: &'a [u8],
    at: usize,
    mode: Mode,
    /// `yy_push_state`: the modes to return to when a `%{…}` ends.
    stack: Vec<Mode>,
    buf: Vec<u8>,
    delim: u8,
    /// The scanner's own error message (`PERROR`), for the parser's `error2`.
    error: Option<String>,
    /// A string expression (`AP_EXPR_FLAG_STRING_RESULT`): the input is read as the inside
    /// of a string with no closing quote, which the end of the input closes.
    string_result: bool,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic()
}
fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            s: text.as_bytes(),
            at: 0,
            mode: Mode::Initial,
            stack: vec![],
            buf: vec![],
            delim: 0,
            error: None,
            string_result: false,
        }
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.s.get(self.at + k).copied()
    }

    fn fail(&mut self, msg: impl Into<String>) -> Tok {
        self.error = Some(msg.into());
        Tok::Error
    }

    fn take_buf(&mut self) -> Tok {
        let s = String::from_utf8_lossy(&self.buf).into_owned();
        self.buf.clear();
        Tok::Str(s)
    }

    fn append(&mut self, b: u8) -> Option<Tok> {
        self.buf.push(b);
        (self.buf.len() >= MAX_STRING_LEN).then(|| self.fail("String too long"))
    }

    fn next(&mut self) -> Tok {
        match self.mode {
            Mode::Initial => self.initial(),
            Mode::Str | Mode::VarArg => self.string(),
            Mode::Var => self.var(),
        }
    }

    fn pop(&mut self) {
        self.mode = self.stack.pop().unwrap_or(Mode::Initial);
    }

    /// Inside a quoted string (`str`) or a `%{func:arg}` argument (`vararg`).
    fn string(&mut self) -> Tok {
        let in_str = self.mode == Mode::Str;
        loop {
            let Some(c) = self.peek(0) else {
                if in_str && self.string_result {
                    // `<str><<EOF>>`: what is left is the last string; then the end.
                    self.mode = Mode::Initial;
                    return self.take_buf();
                }
                return self.fail("Unterminated string or variable");
            };
            match c {
                b'"' | b'\'' if in_str => {
                    if c != self.delim {
                        self.at += 1;
                        if let Some(t) = self.append(c) {
                            return t;
                        }
                    } else if self.buf.is_empty() {
                        self.at += 1;
                        self.mode = Mode::Initial;
                        return Tok::StrEnd;
                    } else {
                        return self.take_buf();
                    }
                }
                b'\n' => return self.fail("Unterminated string or variable"),
                b'\\' => {
                    let digits = self.s[self.at + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
                    if digits > 0 {
                        let run = &self.s[self.at + 1..self.at + 1 + digits];
                        // `\\[0-7]{1,3}` against `\\[0-9]+`: the longer match wins, the octal
                        // rule on a tie.
                        if digits <= 3 && run.iter().all(|b| (b'0'..=b'7').contains(b)) {
                            let v = run.iter().fold(0u32, |v, b| v * 8 + u32::from(b - b'0'));
                            if v > 0xff {
                                return self.fail("Escape sequence out of bound");
                            }
                            self.at += 1 + digits;
                            if let Some(t) = self.append(v as u8) {
                                return t;
                            }
                        } else {
                            return self.fail("Bad escape sequence");
                        }
                    } else {
                        let Some(e) = self.peek(1) else {
                            // A lone backslash at the end matches no rule of the scanner.
                            return self.fail("Unterminated string or variable");
                        };
                        let v = match e {
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            b'b' => 8,
                            b'f' => 12,
                            other => other,
                        };
                        self.at += 2;
                        if let Some(t) = self.append(v) {
                            return t;
                        }
                    }
                }
                b'$' if self.peek(1).is_some_and(|b| b.is_ascii_digit()) => {
                    if !self.buf.is_empty() {
                        return self.take_buf();
                    }
                    self.at += 2;
                    return Tok::Backref;
                }
                b'%' if self.peek(1) == Some(b'{') => {
                    if !self.buf.is_empty() {
                        return self.take_buf();
                    }
                    self.at += 2;
                    self.stack.push(self.mode);
                    self.mode = Mode::Var;
                    return Tok::VarBegin;
                }
                b'}' if !in_str => {
                    if !self.buf.is_empty() {
                        return self.take_buf();
                    }
                    self.at += 1;
                    self.pop();
                    return Tok::VarEnd;
                }
                b'"' | b'\'' => {
                    // A quote inside `%{func:arg}` matches no rule: flex's default rule copies it
                    // to the output and goes on.
                    self.at += 1;
                }
                _ => {
                    self.at += 1;
                    if let Some(t) = self.append(c) {
                        return t;
                    }
                }
            }
        }
    }

    /// Inside `%{`: a name, then `}` or `:`.
    fn var(&mut self) -> Tok {
        let Some(c) = self.peek(0) else {
            return self.fail("Unterminated string or variable");
        };
        if is_ident_start(c) {
            let n = self.s[self.at..].iter().take_while(|b| is_ident(**b)).count();
            let id = String::from_utf8_lossy(&self.s[self.at..self.at + n]).into_owned();
            self.at += n;
            return Tok::Id(id);
        }
        self.at += 1;
        match c {
            b'}' => {
                self.pop();
                Tok::VarEnd
            }
            b':' => {
                self.mode = Mode::VarArg;
                Tok::Char(':')
            }
            _ => self.fail(format!("Invalid character in variable name '{}'", c as char)),
        }
    }

    fn initial(&mut self) -> Tok {
        while self.peek(0).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n')) {
            self.at += 1;
        }
        let Some(c) = self.peek(0) else { return Tok::End };
        let rest = &self.s[self.at..];
        let word_len = if is_ident_start(c) { rest.iter().take_while(|b| is_ident(**b)).count() } else { 0 };
        const REGEX_DELIMS: &[u8] = b"/#$%^,;:_?|-!.'\"";
        if c == b'/' || (c == b'm' && rest.get(1).is_some_and(|d| REGEX_DELIMS.contains(d)) && word_len <= 2) {
            return self.regex();
        }
        let take = |lx: &mut Self, n: usize, t: Tok| {
            lx.at += n;
            t
        };
        match c {
            b'"' | b'\'' => {
                self.delim = c;
                self.buf.clear();
                self.mode = Mode::Str;
                take(self, 1, Tok::StrBegin)
            }
            b'%' if rest.get(1) == Some(&b'{') => {
                self.stack.push(Mode::Initial);
                self.mode = Mode::Var;
                take(self, 2, Tok::VarBegin)
            }
            b'$' if rest.get(1).is_some_and(u8::is_ascii_digit) => take(self, 2, Tok::Backref),
            b'=' => match rest.get(1) {
                Some(b'=') => take(self, 2, Tok::Cmp("T_OP_STR_EQ")),
                Some(b'~') => take(self, 2, Tok::Reg),
                _ => take(self, 1, Tok::Cmp("T_OP_STR_EQ")),
            },
            b'!' => match rest.get(1) {
                Some(b'=') => take(self, 2, Tok::Cmp("T_OP_STR_NE")),
                Some(b'~') => take(self, 2, Tok::Nre),
                _ => take(self, 1, Tok::Not),
            },
            b'<' if rest.get(1) == Some(&b'=') => take(self, 2, Tok::Cmp("T_OP_STR_LE")),
            b'<' => take(self, 1, Tok::Cmp("T_OP_STR_LT")),
            b'>' if rest.get(1) == Some(&b'=') => take(self, 2, Tok::Cmp("T_OP_STR_GE")),
            b'>' => take(self, 1, Tok::Cmp("T_OP_STR_GT")),
            b'&' if rest.get(1) == Some(&b'&') => take(self, 2, Tok::And),
            b'|' if rest.get(1) == Some(&b'|') => take(self, 2, Tok::Or),
            b'.' => take(self, 1, Tok::Concat),
            b'-' if rest.get(1).is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_') => {
                let n = 1 + 1 + rest[2..].iter().take_while(|b| is_ident(**b)).count();
                let name = String::from_utf8_lossy(&rest[1..n]).into_owned();
                let t = match name.as_str() {
                    "in" => Tok::In,
                    "eq" => Tok::Cmp("T_OP_EQ"),
                    "ne" => Tok::Cmp("T_OP_NE"),
                    "ge" => Tok::Cmp("T_OP_GE"),
                    "le" => Tok::Cmp("T_OP_LE"),
                    "gt" => Tok::Cmp("T_OP_GT"),
                    "lt" => Tok::Cmp("T_OP_LT"),
                    _ if n == 2 => Tok::Unary(name),
                    _ => Tok::Binary(name),
                };
                take(self, n, t)
            }
            b'-' | b'0'..=b'9' => {
                let sign = usize::from(c == b'-');
                let n = rest[sign..].iter().take_while(|b| b.is_ascii_digit()).count();
                if n == 0 {
                    self.at += 1;
                    return self.fail("Parse error near '-'");
                }
                let digits = String::from_utf8_lossy(&rest[..sign + n]).into_owned();
                take(self, sign + n, Tok::Digit(digits))
            }
            _ if word_len > 0 => {
                let word = String::from_utf8_lossy(&rest[..word_len]).into_owned();
                let t = match word.as_str() {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    "lt" => Tok::Cmp("T_OP_LT"),
                    "le" => Tok::Cmp("T_OP_LE"),
                    "gt" => Tok::Cmp("T_OP_GT"),
                    "ge" => Tok::Cmp("T_OP_GE"),
                    "ne" => Tok::Cmp("T_OP_NE"),
                    "eq" => Tok::Cmp("T_OP_EQ"),
                    "in" => Tok::In,
                    "true" => Tok::True,
                    "false" => Tok::False,
                    _ => Tok::Id(word),
                };
                take(self, word_len, t)
            }
            b'(' | b')' | b'{' | b'}' | b',' | b':' => take(self, 1, Tok::Char(c as char)),
            _ => {
                // `%c` of the byte; a character outside ASCII shows as its first byte's char.
                let shown = std::str::from_utf8(rest).ok().and_then(|s| s.chars().next()).unwrap_or(c as char);
                self.at += shown.len_utf8().min(rest.len());
                self.fail(format!("Parse error near '{shown}'"))
            }
        }
    }

    /// `m<d>…<d>[i]` or `/…/[i]`. Without its closing delimiter the scanner reaches the end
    /// of the input, which is the end token.
    fn regex(&mut self) -> Tok {
        let start = if self.s[self.at] == b'/' { 1 } else { 2 };
        let delim = self.s[self.at + start - 1];
        let body = &self.s[self.at + start..];
        let Some(len) = body.iter().position(|b| *b == delim) else {
            self.at = self.s.len();
            if body.len() >= MAX_STRING_LEN {
                return self.fail("Regexp too long");
            }
            return Tok::End;
        };
        if len >= MAX_STRING_LEN {
            return self.fail("Regexp too long");
        }
        let pattern = String::from_utf8_lossy(&body[..len]).into_owned();
        self.at += start + len + 1;
        let icase = self.peek(0) == Some(b'i');
        if icase {
            self.at += 1;
        }
        Tok::Regex(pattern, icase)
    }
}

enum Fail {
    /// bison's YYABORT (the scanner's error where an expression or string may start).
    Abort,
    /// bison's own message.
    Error(String),
}

struct Parser<'a> {
    lx: Lexer<'a>,
    la: Option<Tok>,
    error2: Option<String>,
    lookups: Lookups,
    depth: usize,
}

type R = Result<(), Fail>;
type Parsed<T> = Result<T, Fail>;
/// A word and, when it is one plain quoted string, its text (what a lookup gets as a constant).
type WordParsed = Parsed<(Word, Option<String>)>;

fn syntax(unexpected: &Tok, expecting: &[&str]) -> Fail {
    let mut m = format!("syntax error, unexpected {}", unexpected.name());
    // bison names the expected tokens only when there are at most four.
    if !expecting.is_empty() && expecting.len() <= 4 {
        m.push_str(", expecting ");
        m.push_str(&expecting.join(" or "));
    }
    Fail::Error(m)
}

/// The tokens that may start a word (five: bison names none).
const WORD_START: &[&str] = &["T_DIGIT", "T_ID", "T_REGEX_BACKREF", "T_STR_BEGIN", "T_VAR_BEGIN"];
const EXPR_START: &[&str] = &[
    "T_TRUE",
    "T_FALSE",
    "T_ERROR",
    "T_DIGIT",
    "T_ID",
    "T_REGEX_BACKREF",
    "T_OP_UNARY",
    "T_STR_BEGIN",
    "T_VAR_BEGIN",
    "T_OP_NOT",
    "'('",
];

/// Names core and the modules define (`util_expr_eval.c`).
const VARIABLES: &[&str] = &[
    "TIME_YEAR",
    "TIME_MON",
    "TIME_DAY",
    "TIME_HOUR",
    "TIME_MIN",
    "TIME_SEC",
    "TIME_WDAY",
    "TIME",
    "SERVER_SOFTWARE",
    "API_VERSION",
    "HTTP_USER_AGENT",
    "HTTP_PROXY_CONNECTION",
    "HTTP_REFERER",
    "HTTP_COOKIE",
    "HTTP_FORWARDED",
    "HTTP_HOST",
    "HTTP_ACCEPT",
    "REQUEST_METHOD",
    "REQUEST_SCHEME",
    "REQUEST_URI",
    "REQUEST_FILENAME",
    "REMOTE_HOST",
    "REMOTE_IDENT",
    "REMOTE_USER",
    "SERVER_ADMIN",
    "SERVER_NAME",
    "SERVER_PORT",
    "SERVER_PROTOCOL",
    "SCRIPT_FILENAME",
    "PATH_INFO",
    "QUERY_STRING",
    "IS_SUBREQ",
    "DOCUMENT_ROOT",
    "AUTH_TYPE",
    "THE_REQUEST",
    "CONTENT_TYPE",
    "HANDLER",
    "REQUEST_LOG_ID",
    "SCRIPT_USER",
    "SCRIPT_GROUP",
    "DOCUMENT_URI",
    "LAST_MODIFIED",
    "CONTEXT_PREFIX",
    "CONTEXT_DOCUMENT_ROOT",
    "REQUEST_STATUS",
    "REMOTE_ADDR",
    "REMOTE_PORT",
    "HTTPS",
    "IPV6",
    "CONN_LOG_ID",
    "CONN_REMOTE_ADDR",
    "HTTP2",
];
const STRING_FUNCTIONS: &[&str] = &[
    "osenv",
    "env",
    "resp",
    "req",
    "http",
    "note",
    "reqenv",
    "req_novary",
    "tolower",
    "toupper",
    "escape",
    "unescape",
    "file",
    "filesize",
    "base64",
    "unbase64",
    "sha1",
    "md5",
    "ldap",
];
/// The string functions that read files, which a restricted parse refuses (`restricted` in
/// `util_expr_eval.c`'s provider table). (httpd 2.4.71 does not restrict the file test
/// operators, `-f` and its kin, in an .htaccess file: it answers them.)
const RESTRICTED_FUNCTIONS: &[&str] = &["file", "filesize"];
const UNARY_OPERATORS: &[&str] = &["n", "z", "R", "T", "d", "e", "f", "s", "L", "h", "x", "F", "U", "A"];
const BINARY_OPERATORS: &[&str] = &["ipmatch", "fnmatch", "strmatch", "strcmatch"];

impl Parser<'_> {
    fn peek(&mut self) -> &Tok {
        if self.la.is_none() {
            let t = self.lx.next();
            if let Some(e) = self.lx.error.take() {
                self.error2 = Some(e);
            }
            self.la = Some(t);
        }
        self.la.as_ref().expect("just set")
    }

    fn next(&mut self) -> Tok {
        self.peek();
        self.la.take().expect("peeked")
    }

    fn lookup_failed(&mut self, kind: &str, name: &str) {
        self.error2 = Some(format!("{kind} '{name}' does not exist"));
    }

    fn root(&mut self) -> Parsed<Cond> {
        let c = self.expr()?;
        match self.next() {
            Tok::End => Ok(c),
            t => Err(syntax(&t, &["$end"])),
        }
    }

    /// `root: T_EXPR_STRING string`: string parts up to the end.
    fn string_root(&mut self) -> R {
        let mut first = true;
        loop {
            let t = self.next();
            match t {
                Tok::End if !first => return Ok(()),
                // `string: T_ERROR { YYABORT }` as the first part.
                Tok::Error if first => return Err(Fail::Abort),
                Tok::Str(_) | Tok::Backref => {}
                Tok::VarBegin => {
                    self.var()?;
                }
                t if first => return Err(syntax(&t, &["T_ERROR", "T_STRING", "T_REGEX_BACKREF", "T_VAR_BEGIN"])),
                // (After a part, bison has reduced to `root` by default: it expects the end.)
                t => return Err(syntax(&t, &["$end"])),
            }
            first = false;
        }
    }

    /// `expr` with its operators: `||` below `&&`, both right-associative.
    fn expr(&mut self) -> Parsed<Cond> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Fail::Error("memory exhausted".into()));
        }
        let mut c = self.conjunction()?;
        if *self.peek() == Tok::Or {
            self.next();
            c = Cond::Or(Box::new(c), Box::new(self.expr()?));
        }
        self.depth -= 1;
        Ok(c)
    }

    fn conjunction(&mut self) -> Parsed<Cond> {
        let mut c = self.primary()?;
        if *self.peek() == Tok::And {
            self.next();
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(Fail::Error("memory exhausted".into()));
            }
            c = Cond::And(Box::new(c), Box::new(self.conjunction()?));
            self.depth -= 1;
        }
        Ok(c)
    }

    fn primary(&mut self) -> Parsed<Cond> {
        let t = self.next();
        match t {
            Tok::True => Ok(Cond::Bool(true)),
            Tok::False => Ok(Cond::Bool(false)),
            Tok::Error => Err(Fail::Abort),
            Tok::Not => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(Fail::Error("memory exhausted".into()));
                }
                let c = self.primary()?;
                self.depth -= 1;
                Ok(Cond::Not(Box::new(c)))
            }
            Tok::Char('(') => {
                let c = self.expr()?;
                match self.next() {
                    Tok::Char(')') => Ok(c),
                    t => Err(syntax(&t, &["T_OP_OR", "T_OP_AND", "')'"])),
                }
            }
            Tok::Unary(name) => {
                let (arg, constant) = self.word()?;
                self.peek();
                self.unary_lookup(&name, constant.as_deref());
                Ok(Cond::Unary(name, arg))
            }
            t if t.starts_word() => {
                let (left, _) = self.word_from(t)?;
                match self.next() {
                    Tok::Cmp(op) => Ok(Cond::Cmp(op, left, self.word()?.0)),
                    Tok::In => Ok(Cond::In(left, self.wordlist()?)),
                    t @ (Tok::Reg | Tok::Nre) => match self.next() {
                        Tok::Regex(pattern, icase) => {
                            if pcre_refuses(&pattern) {
                                Err(Fail::Error("Failed to compile regular expression".into()))
                            } else {
                                Ok(Cond::Regex { word: left, pattern, icase, negated: t == Tok::Nre })
                            }
                        }
                        t => Err(syntax(&t, &["T_REGEX", "T_REGEX_I"])),
                    },
                    Tok::Binary(name) => {
                        let (arg, constant) = self.word()?;
                        self.peek();
                        self.binary_lookup(&name, constant.as_deref());
                        Ok(Cond::Binary(name, left, arg))
                    }
                    t => Err(syntax(&t, &[])),
                }
            }
            t => Err(syntax(&t, EXPR_START)),
        }
    }

    /// A word and its concatenations, with its text when it is one plain quoted string (what
    /// a lookup gets as a constant argument).
    fn word(&mut self) -> WordParsed {
        let t = self.next();
        if !t.starts_word() {
            return Err(syntax(&t, WORD_START));
        }
        self.word_from(t)
    }

    fn word_from(&mut self, first: Tok) -> WordParsed {
        let (mut parts, mut constant) = self.word_part(first)?;
        while *self.peek() == Tok::Concat {
            self.next();
            constant = None;
            let t = self.next();
            if !t.starts_word() {
                return Err(syntax(&t, WORD_START));
            }
            parts.extend(self.word_part(t)?.0);
        }
        Ok((parts, constant))
    }

    fn word_part(&mut self, first: Tok) -> WordParsed {
        match first {
            Tok::Digit(d) => Ok((vec![Part::Lit(d)], None)),
            Tok::Backref => Ok((vec![Part::Backref], None)),
            Tok::VarBegin => Ok((vec![self.var()?], None)),
            Tok::StrBegin => {
                let t = self.next();
                if t == Tok::StrEnd {
                    return Ok((vec![Part::Lit(String::new())], Some(String::new())));
                }
                self.string(t, &["T_STRING", "T_REGEX_BACKREF", "T_STR_END", "T_VAR_BEGIN"])
            }
            Tok::Id(name) => {
                let arg = self.call(&name)?;
                self.function_lookup(&name);
                Ok((vec![Part::Func(name, arg)], None))
            }
            t => Err(syntax(&t, WORD_START)),
        }
    }

    /// `( word )` after a function's name.
    fn call(&mut self, _name: &str) -> Parsed<Word> {
        match self.next() {
            Tok::Char('(') => {}
            t => return Err(syntax(&t, &["'('"])),
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Fail::Error("memory exhausted".into()));
        }
        let (arg, _) = self.word()?;
        self.depth -= 1;
        match self.next() {
            Tok::Char(')') => Ok(arg),
            t => Err(syntax(&t, &["T_OP_CONCAT", "')'"])),
        }
    }

    /// The parts of a string after its first token `first`, up to the token that ends it
    /// (`T_STR_END` or `T_VAR_END`, taken); `more` is what bison expects after a part. Returns
    /// the parts, and the text when the string is one plain part.
    fn string(&mut self, first: Tok, more: &[&str]) -> WordParsed {
        let end = if more.contains(&"T_STR_END") { Tok::StrEnd } else { Tok::VarEnd };
        let mut parts = Vec::new();
        let mut constant = match first {
            Tok::Error => return Err(Fail::Abort),
            Tok::Str(s) => {
                parts.push(Part::Lit(s.clone()));
                Some(s)
            }
            t @ (Tok::VarBegin | Tok::Backref) => {
                parts.push(self.string_part(t)?);
                None
            }
            t => {
                let start: &[&str] = if end == Tok::StrEnd {
                    &["T_ERROR", "T_STRING", "T_REGEX_BACKREF", "T_STR_END", "T_VAR_BEGIN"]
                } else {
                    &["T_ERROR", "T_STRING", "T_REGEX_BACKREF", "T_VAR_BEGIN"]
                };
                return Err(syntax(&t, start));
            }
        };
        loop {
            let t = self.next();
            if t == end {
                return Ok((parts, constant));
            }
            if !t.is_string_part() {
                return Err(syntax(&t, more));
            }
            constant = None;
            parts.push(self.string_part(t)?);
        }
    }

    fn string_part(&mut self, t: Tok) -> Parsed<Part> {
        match t {
            Tok::VarBegin => self.var(),
            Tok::Str(s) => Ok(Part::Lit(s)),
            _ => Ok(Part::Backref),
        }
    }

    /// After `%{`: `NAME}` or `NAME:string}`.
    fn var(&mut self) -> Parsed<Part> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Fail::Error("memory exhausted".into()));
        }
        let name = match self.next() {
            Tok::Id(name) => name,
            t => return Err(syntax(&t, &["T_ID"])),
        };
        let part = match self.next() {
            Tok::VarEnd => {
                if !self.variable_exists(&name) {
                    self.lookup_failed("Variable", &name);
                }
                Part::Var(name)
            }
            Tok::Char(':') => {
                let t = self.next();
                let (arg, _) = self.string(t, &["T_STRING", "T_REGEX_BACKREF", "T_VAR_BEGIN", "T_VAR_END"])?;
                self.function_lookup(&name);
                Part::Func(name, arg)
            }
            t => return Err(syntax(&t, &["T_VAR_END", "':'"])),
        };
        self.depth -= 1;
        Ok(part)
    }

    /// After `-in`: `{ word, … }` (its words) or a list function's call (None).
    fn wordlist(&mut self) -> Parsed<Option<Vec<Word>>> {
        match self.next() {
            Tok::Id(name) => {
                self.call(&name)?;
                if !(self.lookups.ssl && name == "PeerExtList") {
                    self.lookup_failed("List-returning function", &name);
                }
                Ok(None)
            }
            Tok::Char('{') => {
                let mut words = Vec::new();
                loop {
                    words.push(self.word()?.0);
                    match self.next() {
                        Tok::Char(',') => {}
                        Tok::Char('}') => return Ok(Some(words)),
                        t => return Err(syntax(&t, &["'}'", "','"])),
                    }
                }
            }
            t => Err(syntax(&t, &["T_ID", "'{'"])),
        }
    }

    fn variable_exists(&self, name: &str) -> bool {
        VARIABLES.iter().any(|v| v.eq_ignore_ascii_case(name))
            || (self.lookups.ssl && name.starts_with("SSL_"))
            || (self.lookups.hcheck && name.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("HC_")))
    }

    /// A string function's name: one httpd or a loaded module provides (case aside), and not
    /// one a restricted parse refuses.
    fn function_lookup(&mut self, name: &str) {
        if !STRING_FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(name)) && !self.module_function(name) {
            self.lookup_failed("Function", name);
        } else if let Some(f) =
            RESTRICTED_FUNCTIONS.iter().find(|f| self.lookups.restricted && f.eq_ignore_ascii_case(name))
        {
            self.error2 = Some(format!("{f} not available in restricted context"));
        }
    }

    fn module_function(&self, name: &str) -> bool {
        (self.lookups.ssl && name == "SSL") || (self.lookups.hcheck && name.eq_ignore_ascii_case("HC"))
    }

    fn unary_lookup(&mut self, name: &str, arg: Option<&str>) {
        if !UNARY_OPERATORS.contains(&name) {
            self.error2 = Some(format!("Unary operator '-{name}' does not exist"));
        } else if name == "R" {
            self.subnet_arg(name, arg);
        }
    }

    fn binary_lookup(&mut self, name: &str, arg: Option<&str>) {
        match BINARY_OPERATORS.iter().find(|b| b.eq_ignore_ascii_case(name)) {
            None => self.error2 = Some(format!("Binary operator '-{name}' does not exist")),
            Some(&"ipmatch") => self.subnet_arg(name, arg),
            Some(_) => {}
        }
    }

    /// `subnet_parse_arg`: the argument must be a constant `addr[/mask]`.
    fn subnet_arg(&mut self, name: &str, arg: Option<&str>) {
        match arg {
            None => self.error2 = Some(format!("-{name} requires subnet/netmask as constant argument")),
            Some(a) => {
                if parse_require_ip(a).is_err() {
                    self.error2 = Some("parsing of subnet/netmask failed".into());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    /// In an .htaccess file (a restricted parse) `file()` and `filesize()` are refused, as
    /// functions or in `%{name:arg}` form, case aside; the file test operators are not.
    #[test]
    fn restricted_parse_refuses_the_functions_that_read_files() {
        let restricted = Lookups { restricted: true, ..Lookups::default() };
        assert_eq!(parse_bool("file('/x') == ''", restricted), Err("file not available in restricted context".into()));
        assert_eq!(
            parse_bool("%{FILESIZE:/x} -gt 0", restricted),
            Err("filesize not available in restricted context".into())
        );
        assert_eq!(parse_bool("-f '/x' && -d '/y' && md5('a') == 'b'", restricted), Ok(()));
        assert_eq!(parse_bool("file('/x') == ''", Lookups::default()), Ok(()));
    }

    fn show(cases: &[&str]) -> String {
        cases
            .iter()
            .map(|c| match parse_bool(c, Lookups::default()) {
                Ok(()) => format!("{c}\n  ok\n"),
                Err(e) => format!("{c}\n  {e}\n"),
            })
            .collect()
    }

    #[test]
    fn accepted_expressions() {
        expect![[r#"
            true
              ok
            (true) && ((false)) || !true
              ok
            %{REMOTE_ADDR} -ipmatch '10.0.0.0/8'
              ok
            %{HTTP:Accept} == 'x' && %{ENV:x} == 'y'
              ok
            req('X') =~ /^a(b|c)*$/i
              ok
            %{TIME_HOUR} -lt 12 and %{TIME_HOUR} gt 6
              ok
            -f '/etc/passwd' || -d %{REQUEST_FILENAME}
              ok
            %{REMOTE_ADDR} in {'a', 'b' . 'c', tolower(%{HTTP_HOST})}
              ok
            'a\n%{REMOTE_ADDR}$1' == $1
              ok
            %{QUERY_STRING} =~ m#a/b#
              ok
            -R '127.0.0.1'
              ok
        "#]]
        .assert_eq(&show(&[
            "true",
            "(true) && ((false)) || !true",
            "%{REMOTE_ADDR} -ipmatch '10.0.0.0/8'",
            "%{HTTP:Accept} == 'x' && %{ENV:x} == 'y'",
            "req('X') =~ /^a(b|c)*$/i",
            "%{TIME_HOUR} -lt 12 and %{TIME_HOUR} gt 6",
            "-f '/etc/passwd' || -d %{REQUEST_FILENAME}",
            "%{REMOTE_ADDR} in {'a', 'b' . 'c', tolower(%{HTTP_HOST})}",
            "'a\\n%{REMOTE_ADDR}$1' == $1",
            "%{QUERY_STRING} =~ m#a/b#",
            "-R '127.0.0.1'",
        ]));
    }

    #[test]
    fn refused_expressions_in_httpds_words() {
        expect![[r#"
            
              syntax error, unexpected $end
            %{REMOTE_ADDR} ==
              syntax error, unexpected $end
            %{BOGUS} == %{ALSO}
              Variable 'ALSO' does not exist
            %{BOGUS} == 1 &&
              syntax error, unexpected $end: Variable 'BOGUS' does not exist
            (true
              syntax error, unexpected $end, expecting T_OP_OR or T_OP_AND or ')'
            true)
              syntax error, unexpected ')', expecting $end
            true false
              syntax error, unexpected T_FALSE, expecting $end
            'a' 'b'
              syntax error, unexpected T_STR_BEGIN
            %{REMOTE_ADDR} -in {'a' 'b'}
              syntax error, unexpected T_STR_BEGIN, expecting '}' or ','
            %{REMOTE_ADDR} == 'a' #
              syntax error, unexpected T_ERROR, expecting $end: Parse error near '#'
            %{REMOTE ADDR} == 'a'
              syntax error, unexpected T_ERROR, expecting T_VAR_END or ':': Invalid character in variable name ' '
            %{X:y
              Unterminated string or variable
            '\400' == 'a'
              Escape sequence out of bound
            '\9' == 'a'
              Bad escape sequence
            %{REMOTE_ADDR} =~ /(/
              Failed to compile regular expression
            -ipmatch '1.2.3.4'
              syntax error, unexpected T_OP_BINARY
            %{REMOTE_ADDR} -ipmatch '1.2.3.400'
              parsing of subnet/netmask failed
            %{REMOTE_ADDR} -ipmatch %{REMOTE_ADDR}
              -ipmatch requires subnet/netmask as constant argument
            %{REMOTE_ADDR} -foo '1'
              Binary operator '-foo' does not exist
            -q 'x'
              Unary operator '-q' does not exist
            nope('X') == 'y'
              Function 'nope' does not exist
            %{REMOTE_ADDR} -in foo('x')
              List-returning function 'foo' does not exist
            %{SSL_FOO} == 'x'
              Variable 'SSL_FOO' does not exist
        "#]]
        .assert_eq(&show(&[
            "",
            "%{REMOTE_ADDR} ==",
            "%{BOGUS} == %{ALSO}",
            "%{BOGUS} == 1 &&",
            "(true",
            "true)",
            "true false",
            "'a' 'b'",
            "%{REMOTE_ADDR} -in {'a' 'b'}",
            "%{REMOTE_ADDR} == 'a' #",
            "%{REMOTE ADDR} == 'a'",
            "%{X:y",
            "'\\400' == 'a'",
            "'\\9' == 'a'",
            "%{REMOTE_ADDR} =~ /(/",
            "-ipmatch '1.2.3.4'",
            "%{REMOTE_ADDR} -ipmatch '1.2.3.400'",
            "%{REMOTE_ADDR} -ipmatch %{REMOTE_ADDR}",
            "%{REMOTE_ADDR} -foo '1'",
            "-q 'x'",
            "nope('X') == 'y'",
            "%{REMOTE_ADDR} -in foo('x')",
            "%{SSL_FOO} == 'x'",
        ]));
    }

    /// String expressions: quotes, `%`, `$` and `}` alone are text; the parts are checked as
    /// in a quoted string of a boolean expression.
    #[test]
    fn string_expressions_in_httpds_words() {
        let show = |cases: &[&str]| -> String {
            cases
                .iter()
                .map(|c| format!("{c}\n  {}\n", parse_string(c, Lookups::default()).err().unwrap_or("ok".into())))
                .collect()
        };
        expect![[r#"

              ok
            Area %{SERVER_NAME}
              ok
            it's "quoted" 50% $ } {
              ok
            %{tolower:%{HTTP_HOST}} $1
              ok
            %{BOGUS}
              Variable 'BOGUS' does not exist
            %{REMOTE_ADDR
              syntax error, unexpected T_ERROR, expecting T_VAR_END or ':': Unterminated string or variable
            a %{}
              syntax error, unexpected T_VAR_END, expecting T_ID
            %{nope:x}
              Function 'nope' does not exist
            \400
              Escape sequence out of bound
            $1 and \9
              syntax error, unexpected T_ERROR, expecting $end: Bad escape sequence
            %{X Y}
              syntax error, unexpected T_ERROR, expecting T_VAR_END or ':': Invalid character in variable name ' '
        "#]]
        .assert_eq(&show(&[
            "",
            "Area %{SERVER_NAME}",
            "it's \"quoted\" 50% $ } {",
            "%{tolower:%{HTTP_HOST}} $1",
            "%{BOGUS}",
            "%{REMOTE_ADDR",
            "a %{}",
            "%{nope:x}",
            "\\400",
            "$1 and \\9",
            "%{X Y}",
        ]));
    }

    #[test]
    fn module_names_exist_when_their_module_is_loaded() {
        let ssl = Lookups { ssl: true, ..Lookups::default() };
        assert_eq!(parse_bool("%{SSL_PROTOCOL} == 'TLSv1.3' && SSL('x') == ''", ssl), Ok(()));
        assert_eq!(parse_bool("'a' -in PeerExtList('1.2.3')", ssl), Ok(()));
        assert!(parse_bool("%{ssl_PROTOCOL} == ''", ssl).is_err(), "mod_ssl's prefix is case-sensitive");
    }

    proptest::proptest! {
        /// Whatever the input, the parser answers (and never panics).
        #[test]
        fn never_panics(s in "\\PC{0,80}") {
            let _ = parse_bool(&s, Lookups::default());
        }

        /// Inputs made of the language's own pieces reach deeper.
        #[test]
        fn never_panics_on_pieces(parts in proptest::collection::vec(proptest::sample::select(vec![
            "%{", "}", ":", "'", "\"", "(", ")", "{", ",", "==", "=~", "/a(/", "m#x#i", "-in", "-ipmatch",
            "-f", "&&", "||", "!", "true", "REMOTE_ADDR", "req", "$1", "\\", "\\400", " ", "\n", "1", ".",
        ]), 0..40)) {
            let _ = parse_bool(&parts.concat(), Lookups { ssl: true, hcheck: true, restricted: false });
        }
    }
}
