//! httpd's evaluation of an ap_expr boolean expression ([`super::expr::Cond`]) against what is
//! known of one request, in three values: true, false, or unknown (`None`) where the answer
//! depends on something not known (a header not given, the time, the environment, a file…).
//!
//! Follows `server/util_expr_eval.c`: `-eq`/`-lt`… compare the words' `apr_atoi64` values,
//! `==`/`<`… compare bytes (`strcmp`), `-in` compares with each word of the list, `=~` runs the
//! regex (`i`: case-blind); variable and function names are matched case-blind, unary operators
//! case-sensitive; `%{HTTP_HOST}` and `req('X')` read the request headers (the first of a name,
//! repeated ones merged with `, ` as httpd reads them); `-R` tests `r->useragent_addr`, `-ipmatch`
//! the address its left word names. A name or value without an answer here is unknown, never
//! guessed. `&&` is false when either side is, `||` true when either side is.
//! Invariants: no IO, never panics, bounded by the expression's size.

use super::addr::{inet_pton4, inet_pton6, parse_require_ip};
use super::expr::{Cond, Part, Word};
use std::net::IpAddr;

/// What is known of the request an expression is evaluated for. `None` fields are unknown.
#[derive(Debug, Clone, Default)]
pub struct ExprRequest<'a> {
    /// `r->useragent_addr` (`-R`, `%{REMOTE_ADDR}`).
    pub client: Option<IpAddr>,
    /// `c->client_ip` (`%{CONN_REMOTE_ADDR}`): the peer, which mod_remoteip may tell apart.
    pub peer: Option<IpAddr>,
    /// `r->method`.
    pub method: Option<&'a str>,
    /// `r->uri`: the decoded, normalized path without the query.
    pub uri: Option<&'a str>,
    /// Request headers as sent, in order (repeated names allowed).
    pub headers: &'a [(String, String)],
    /// No header was sent besides `headers`; otherwise one not listed is unknown.
    pub headers_complete: bool,
    /// Whether the connection is TLS (`%{HTTPS}`, `%{REQUEST_SCHEME}`).
    pub https: Option<bool>,
}

impl ExprRequest<'_> {
    /// `apr_table_get(r->headers_in, name)`: the values of `name` merged with `, ` (as httpd's
    /// header reader merges repeated fields); `""` for a header known absent (httpd's NULL
    /// reads as an empty string).
    fn header(&self, name: &str) -> Option<String> {
        let values: Vec<&str> =
            self.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str()).collect();
        if values.is_empty() {
            return self.headers_complete.then(String::new);
        }
        Some(values.join(", "))
    }

    /// `%{NAME}`.
    fn var(&self, name: &str) -> Option<String> {
        const HEADER_VARS: &[(&str, &str)] = &[
            ("HTTP_USER_AGENT", "User-Agent"),
            ("HTTP_PROXY_CONNECTION", "Proxy-Connection"),
            ("HTTP_REFERER", "Referer"),
            ("HTTP_COOKIE", "Cookie"),
            ("HTTP_FORWARDED", "Forwarded"),
            ("HTTP_HOST", "Host"),
            ("HTTP_ACCEPT", "Accept"),
        ];
        if let Some((_, header)) = HEADER_VARS.iter().find(|(v, _)| v.eq_ignore_ascii_case(name)) {
            return self.header(header);
        }
        let on_off = |b: bool| if b { "on" } else { "off" }.to_string();
        match name.to_ascii_uppercase().as_str() {
            "REQUEST_METHOD" => self.method.map(str::to_string),
            "REQUEST_URI" => self.uri.map(str::to_string),
            "REMOTE_ADDR" => self.client.map(|a| a.to_string()),
            "CONN_REMOTE_ADDR" => self.peer.map(|a| a.to_string()),
            "HTTPS" => self.https.map(on_off),
            "REQUEST_SCHEME" => self.https.map(|s| if s { "https" } else { "http" }.to_string()),
            "IPV6" => self.peer.map(|a| on_off(matches!(a, IpAddr::V6(v6) if v6.to_ipv4_mapped().is_none()))),
            _ => None,
        }
    }

    /// `name(arg)` / `%{name:arg}`.
    fn func(&self, name: &str, arg: &str) -> Option<String> {
        match name.to_ascii_lowercase().as_str() {
            "req" | "http" | "req_novary" => self.header(arg),
            "tolower" => Some(arg.to_ascii_lowercase()),
            "toupper" => Some(arg.to_ascii_uppercase()),
            _ => None,
        }
    }

    /// A word's value, when known.
    pub fn word(&self, word: &Word) -> Option<String> {
        let mut out = String::new();
        for part in word {
            match part {
                Part::Lit(s) => out.push_str(s),
                Part::Var(name) => out.push_str(&self.var(name)?),
                Part::Func(name, arg) => {
                    let arg = self.word(arg)?;
                    out.push_str(&self.func(name, &arg)?);
                }
                // The captures of the last regex that matched: not followed.
                Part::Backref => return None,
            }
        }
        Some(out)
    }
}

/// `apr_atoi64` (`strtoll` in base 10): blanks, a sign, digits; 0 when there are none; clamped
/// on overflow.
fn atoi64(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        let d = i64::from(b - b'0');
        v = match v.checked_mul(10).and_then(|v| if neg { v.checked_sub(d) } else { v.checked_add(d) }) {
            Some(v) => v,
            None => return if neg { i64::MIN } else { i64::MAX },
        };
    }
    v
}

/// `ap_expr_eval_comp`'s comparisons.
fn compare(op: &str, a: &str, b: &str) -> Option<bool> {
    use std::cmp::Ordering::*;
    let int = || atoi64(a).cmp(&atoi64(b));
    let bytes = || a.as_bytes().cmp(b.as_bytes());
    Some(match op {
        "T_OP_EQ" => int() == Equal,
        "T_OP_NE" => int() != Equal,
        "T_OP_LT" => int() == Less,
        "T_OP_LE" => int() != Greater,
        "T_OP_GT" => int() == Greater,
        "T_OP_GE" => int() != Less,
        "T_OP_STR_EQ" => bytes() == Equal,
        "T_OP_STR_NE" => bytes() != Equal,
        "T_OP_STR_LT" => bytes() == Less,
        "T_OP_STR_LE" => bytes() != Greater,
        "T_OP_STR_GT" => bytes() == Greater,
        "T_OP_STR_GE" => bytes() != Less,
        _ => return None,
    })
}

/// An address literal as `apr_sockaddr_info_get` reads one without a lookup; None for a name
/// (which httpd would resolve).
fn literal_addr(s: &str) -> Option<IpAddr> {
    if let Some(v4) = inet_pton4(s.as_bytes()) {
        return Some(IpAddr::from(v4));
    }
    inet_pton6(s.as_bytes()).map(IpAddr::from)
}

/// Whether `c` holds for `r`: Some(true/false), or None when that depends on what is unknown.
pub fn eval(c: &Cond, r: &ExprRequest) -> Option<bool> {
    match c {
        Cond::Bool(b) => Some(*b),
        Cond::Not(c) => eval(c, r).map(|b| !b),
        Cond::And(a, b) => match (eval(a, r), eval(b, r)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Cond::Or(a, b) => match (eval(a, r), eval(b, r)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Cond::Unary(op, arg) => match op.as_str() {
            "R" => {
                // The subnet is the constant the parser checked.
                let subnet = parse_require_ip(&r.word(arg)?).ok()?;
                r.client.map(|a| subnet.test(a))
            }
            "n" => r.word(arg).map(|v| !v.is_empty()),
            "z" => r.word(arg).map(|v| v.is_empty()),
            "T" => r.word(arg).map(|v| {
                !(v.is_empty()
                    || v.eq_ignore_ascii_case("off")
                    || v.eq_ignore_ascii_case("no")
                    || v.eq_ignore_ascii_case("false")
                    || v == "0")
            }),
            // File and URL tests (-d, -f, -U…): the file system and subrequests are not read.
            _ => None,
        },
        Cond::Binary(op, left, right) => {
            let op = op.to_ascii_lowercase();
            match op.as_str() {
                "ipmatch" => {
                    let subnet = parse_require_ip(&r.word(right)?).ok()?;
                    let addr = r.word(left)?;
                    literal_addr(&addr).map(|a| subnet.test(a))
                }
                "strmatch" | "fnmatch" => {
                    let (text, pattern) = (r.word(left)?, r.word(right)?);
                    // apr_fnmatch's escapes and classes are not all the glob reader's.
                    if pattern.contains(['\\', '[']) {
                        return None;
                    }
                    Some(crate::ide::access::patterns::wildcard_match(&pattern, &text, op == "fnmatch"))
                }
                _ => None,
            }
        }
        Cond::Cmp(op, a, b) => compare(op, &r.word(a)?, &r.word(b)?),
        Cond::In(word, list) => {
            let needle = r.word(word);
            let mut unknown = needle.is_none();
            for w in list.as_ref()? {
                match (&needle, r.word(w)) {
                    (Some(n), Some(v)) if *n == v => return Some(true),
                    (Some(_), Some(_)) => {}
                    _ => unknown = true,
                }
            }
            (!unknown).then_some(false)
        }
        Cond::Regex { word, pattern, icase, negated } => {
            let text = r.word(word)?;
            // PCRE reads bytes; the regex engine here reads Unicode text: only ASCII is sure.
            if !text.is_ascii() || !pattern.is_ascii() {
                return None;
            }
            crate::ide::access::patterns::regex_matches(pattern, &text, *icase).map(|m| m != *negated)
        }
    }
}

/// Parses `text` as `<If>` and `Require expr` parse it and evaluates it; None when httpd
/// refuses it or its value is unknown.
pub fn eval_text(text: &str, lookups: super::expr::Lookups, r: &ExprRequest) -> Option<bool> {
    super::expr::parse_tree(text, lookups).ok().and_then(|c| eval(&c, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::policy::expr::Lookups;
    use expect_test::expect;

    fn show(r: &ExprRequest, cases: &[&str]) -> String {
        cases
            .iter()
            .map(|c| {
                let v = match super::super::expr::parse_tree(c, Lookups::default()) {
                    Err(e) => format!("refused: {e}"),
                    Ok(t) => match eval(&t, r) {
                        Some(b) => b.to_string(),
                        None => "unknown".into(),
                    },
                };
                format!("{c}  =>  {v}\n")
            })
            .collect()
    }

    fn known<'a>(headers: &'a [(String, String)]) -> ExprRequest<'a> {
        ExprRequest {
            client: Some("10.1.2.3".parse().unwrap()),
            peer: Some("10.1.2.3".parse().unwrap()),
            method: Some("GET"),
            uri: Some("/admin/x.html"),
            headers,
            headers_complete: false,
            https: Some(false),
        }
    }

    #[test]
    fn operators_against_a_known_request() {
        let headers = [("Host".to_string(), "www.example.com".to_string())];
        let r = known(&headers);
        expect![[r#"
            true  =>  true
            false  =>  false
            !true  =>  false
            -R '10.0.0.0/8'  =>  true
            -R '192.168.0.0/16'  =>  false
            -R '10.1.2.3'  =>  true
            %{REMOTE_ADDR} -ipmatch '10.1.0.0/16'  =>  true
            '192.168.1.1' -ipmatch '10.0.0.0/8'  =>  false
            'host.example' -ipmatch '10.0.0.0/8'  =>  unknown
            %{REMOTE_ADDR} == '10.1.2.3'  =>  true
            %{remote_addr} == '10.1.2.3'  =>  true
            %{REQUEST_METHOD} in {'GET', 'HEAD'}  =>  true
            %{REQUEST_METHOD} -in {'POST'}  =>  false
            %{REQUEST_METHOD} == 'get'  =>  false
            %{HTTP_HOST} == 'www.example.com'  =>  true
            %{HTTP_HOST} =~ /^WWW\./  =>  false
            %{HTTP_HOST} =~ /^WWW\./i  =>  true
            %{HTTP_HOST} !~ /^www\./  =>  false
            req('host') == 'www.example.com'  =>  true
            %{HTTP:Host} == 'www.example.com'  =>  true
            tolower(%{REQUEST_METHOD}) == 'get'  =>  true
            %{REQUEST_URI} =~ m#^/admin#  =>  true
            %{REQUEST_URI} == '/admin/x.html'  =>  true
            %{HTTPS} == 'on'  =>  false
            %{REQUEST_SCHEME} == 'http'  =>  true
            -n %{HTTP_HOST}  =>  true
            -z %{HTTP_HOST}  =>  false
            -T 'Off'  =>  false
            -T '0'  =>  false
            -T '00'  =>  true
            10 -eq 010  =>  true
            '10' == '010'  =>  false
            '9' -lt '10'  =>  true
            '9' < '10'  =>  false
            'abc' -eq 0  =>  true
            ' -5x' -lt -4  =>  true
            'a' . %{REQUEST_METHOD} == 'aGET'  =>  true
            %{REQUEST_URI} -strmatch '/admin/*'  =>  true
            %{REQUEST_URI} -fnmatch '/*.html'  =>  false
            %{REQUEST_URI} -strmatch '/*.html'  =>  true
        "#]]
        .assert_eq(&show(
            &r,
            &[
                "true",
                "false",
                "!true",
                "-R '10.0.0.0/8'",
                "-R '192.168.0.0/16'",
                "-R '10.1.2.3'",
                "%{REMOTE_ADDR} -ipmatch '10.1.0.0/16'",
                "'192.168.1.1' -ipmatch '10.0.0.0/8'",
                "'host.example' -ipmatch '10.0.0.0/8'",
                "%{REMOTE_ADDR} == '10.1.2.3'",
                "%{remote_addr} == '10.1.2.3'",
                "%{REQUEST_METHOD} in {'GET', 'HEAD'}",
                "%{REQUEST_METHOD} -in {'POST'}",
                "%{REQUEST_METHOD} == 'get'",
                "%{HTTP_HOST} == 'www.example.com'",
                r"%{HTTP_HOST} =~ /^WWW\./",
                r"%{HTTP_HOST} =~ /^WWW\./i",
                r"%{HTTP_HOST} !~ /^www\./",
                "req('host') == 'www.example.com'",
                "%{HTTP:Host} == 'www.example.com'",
                "tolower(%{REQUEST_METHOD}) == 'get'",
                "%{REQUEST_URI} =~ m#^/admin#",
                "%{REQUEST_URI} == '/admin/x.html'",
                "%{HTTPS} == 'on'",
                "%{REQUEST_SCHEME} == 'http'",
                "-n %{HTTP_HOST}",
                "-z %{HTTP_HOST}",
                "-T 'Off'",
                "-T '0'",
                "-T '00'",
                "10 -eq 010",
                "'10' == '010'",
                "'9' -lt '10'",
                "'9' < '10'",
                "'abc' -eq 0",
                "' -5x' -lt -4",
                "'a' . %{REQUEST_METHOD} == 'aGET'",
                "%{REQUEST_URI} -strmatch '/admin/*'",
                "%{REQUEST_URI} -fnmatch '/*.html'",
                "%{REQUEST_URI} -strmatch '/*.html'",
            ],
        ));
    }

    /// What is not known stays unknown, unless the other side of `&&`/`||` decides.
    #[test]
    fn unknown_propagation() {
        let headers = [("Host".to_string(), "a".to_string())];
        let r = known(&headers);
        expect![[r#"
            %{HTTP:X-Forwarded-For} == '1'  =>  unknown
            %{HTTP_USER_AGENT} =~ /curl/  =>  unknown
            %{TIME_HOUR} -lt 12  =>  unknown
            %{ENV:x} == 'y'  =>  unknown
            env('x') == 'y'  =>  unknown
            -f '/etc/passwd'  =>  unknown
            req('X') == 'a' && false  =>  false
            false && req('X') == 'a'  =>  false
            req('X') == 'a' && true  =>  unknown
            req('X') == 'a' || true  =>  true
            true || req('X') == 'a'  =>  true
            req('X') == 'a' || false  =>  unknown
            !(req('X') == 'a')  =>  unknown
            %{REQUEST_METHOD} in {'POST', req('X')}  =>  unknown
            %{REQUEST_METHOD} in {req('X'), 'GET'}  =>  true
            $1 == 'a'  =>  unknown
        "#]]
        .assert_eq(&show(
            &r,
            &[
                "%{HTTP:X-Forwarded-For} == '1'",
                "%{HTTP_USER_AGENT} =~ /curl/",
                "%{TIME_HOUR} -lt 12",
                "%{ENV:x} == 'y'",
                "env('x') == 'y'",
                "-f '/etc/passwd'",
                "req('X') == 'a' && false",
                "false && req('X') == 'a'",
                "req('X') == 'a' && true",
                "req('X') == 'a' || true",
                "true || req('X') == 'a'",
                "req('X') == 'a' || false",
                "!(req('X') == 'a')",
                "%{REQUEST_METHOD} in {'POST', req('X')}",
                "%{REQUEST_METHOD} in {req('X'), 'GET'}",
                "$1 == 'a'",
            ],
        ));
        // With every header given, one not sent reads as empty.
        let complete = ExprRequest { headers_complete: true, ..known(&headers) };
        expect![[r#"
            %{HTTP:X-Forwarded-For} == ''  =>  true
            -z %{HTTP_USER_AGENT}  =>  true
            req('host') . req('HOST') == 'aa'  =>  true
        "#]]
        .assert_eq(&show(
            &complete,
            &["%{HTTP:X-Forwarded-For} == ''", "-z %{HTTP_USER_AGENT}", "req('host') . req('HOST') == 'aa'"],
        ));
        // Nothing known of the request: only constants decide.
        let blank = ExprRequest::default();
        expect![[r#"
            -R '10.0.0.0/8'  =>  unknown
            %{HTTPS} == 'off'  =>  unknown
            'a' < 'b'  =>  true
        "#]]
        .assert_eq(&show(&blank, &["-R '10.0.0.0/8'", "%{HTTPS} == 'off'", "'a' < 'b'"]));
    }
}
