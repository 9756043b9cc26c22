//! Check: regular expressions httpd compiles as it reads the line that holds them and PCRE
//! refuses, in the words of the section's or directive's handler:
//! * `<Directory ~>`, `<DirectoryMatch>`, `<Files ~>`, `<FilesMatch>`, `<Location ~>`,
//!   `<LocationMatch>` (`server/core.c`): `Regex could not be compiled`;
//! * `RewriteRule`, `RewriteCond` (mod_rewrite): `RewriteRule: cannot compile regular expression
//!   '…'`, and the same for `RewriteCond` (a condition's pattern only when it is a regex: not
//!   `expr`, `-f`…, `-lt`…, `<`, `>`, `=`);
//! * `AliasMatch`, `ScriptAliasMatch`, `RedirectMatch` (mod_alias), `ProxyPassMatch` and
//!   `ProxyPass ~` (mod_proxy): `Regular expression could not be compiled.`;
//! * `SetEnvIf`, `SetEnvIfNoCase`, `BrowserMatch`, `BrowserMatchNoCase` (mod_setenvif):
//!   `<directive> regex could not be compiled.` (not for a pattern of plain and escaped
//!   characters, matched as a string: `non_regex_pattern`), and for a header name that is a
//!   regex `<directive>Header name regex could not be compiled.`;
//! * `Header`/`RequestHeader … edit|edit*` and `Header echo` (mod_headers): `Header edit regex
//!   could not be compiled`, `Header echo regex could not be compiled`.
//!
//! Only what every PCRE2 release refuses is reported ([`pcre_refuses`]), only
//! where the module is loaded, and only when the line would not fail otherwise first (its other
//! words as the handler reads them before compiling). httpd does not start; in an .htaccess file
//! every request it applies to gets 500.

use super::Diagnostic;
use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::policy::pcre::pcre_refuses;

/// What httpd says of node `n` when a regex its handler compiles is refused; `in_path` when the
/// node is inside a `<Directory>`, `<Location>` or `<Files>` section (or is read from an
/// .htaccess file), where some directives take their pattern from the section instead.
pub(crate) fn refusal(cfg: &Config, n: &Node, in_path: bool) -> Option<String> {
    let loaded = |module: &str| cfg.module_loaded(module);
    let refused = |re: &str| pcre_refuses(re);
    let args = || n.arg_strings();
    match (n.kind, n.known()) {
        (NodeKind::Section, "Directory" | "Files" | "Location") => {
            let a = args();
            let [tilde, re] = &a[..] else { return None };
            (tilde == "~" && refused(re)).then(|| "Regex could not be compiled".to_string())
        }
        (NodeKind::Section, "DirectoryMatch" | "FilesMatch" | "LocationMatch") => {
            let a = args();
            let [re] = &a[..] else { return None };
            refused(re).then(|| "Regex could not be compiled".to_string())
        }
        (NodeKind::Directive, "RewriteRule") if loaded("rewrite_module") => {
            let (pattern, _, flags) = rewrite_args(n.raw_args())?;
            if flags.is_some_and(|f| super::rewrite_flags::refusal(true, f).is_some()) {
                return None;
            }
            let re = pattern.strip_prefix('!').unwrap_or(pattern);
            refused(re).then(|| format!("RewriteRule: cannot compile regular expression '{re}'"))
        }
        (NodeKind::Directive, "RewriteCond") if loaded("rewrite_module") => {
            let (input, pattern, flags) = rewrite_args(n.raw_args())?;
            if input.eq_ignore_ascii_case("expr")
                || flags.is_some_and(|f| super::rewrite_flags::refusal(false, f).is_some())
            {
                return None;
            }
            let re = pattern.strip_prefix('!').unwrap_or(pattern);
            (cond_is_regex(re) && refused(re)).then(|| format!("RewriteCond: cannot compile regular expression '{re}'"))
        }
        (NodeKind::Directive, "AliasMatch" | "ScriptAliasMatch") if loaded("alias_module") => {
            let a = args();
            let [re, _] = &a[..] else { return None };
            refused(re).then(|| "Regular expression could not be compiled.".to_string())
        }
        (NodeKind::Directive, "RedirectMatch") if loaded("alias_module") => {
            let a = args();
            let status = |w: &str| {
                ["permanent", "temp", "seeother", "gone"].iter().any(|k| w.eq_ignore_ascii_case(k))
                    || w.starts_with(|c: char| c.is_ascii_digit())
            };
            // (A status and two words, or a pattern and a URL; other forms are read otherwise
            // in a directory's context, or fail first.)
            let re = match &a[..] {
                [first, re, _] if status(first) => re,
                [re, _] if !status(re) => re,
                _ => return None,
            };
            refused(re).then(|| "Regular expression could not be compiled.".to_string())
        }
        (NodeKind::Directive, "ProxyPassMatch" | "ProxyPass") if loaded("proxy_module") && !in_path => {
            let a = args();
            let matching = n.known() == "ProxyPassMatch";
            let words: &[String] = match (&a[..], matching) {
                ([tilde, rest @ ..], false) if tilde == "~" => rest,
                (all, true) => all,
                _ => return None,
            };
            let [re, url, params @ ..] = words else { return None };
            // The parameters are read before the pattern is compiled: each must be read
            // without an error, and the URL must not be a `unix:` one (checked first too).
            let param_ok = |w: &String| {
                ["nocanon", "interpolate", "noquery"].iter().any(|k| w.eq_ignore_ascii_case(k))
                    || w.split_once('=').is_some_and(|(k, v)| {
                        !k.eq_ignore_ascii_case("mapping")
                            || v.eq_ignore_ascii_case("encoded")
                            || v.eq_ignore_ascii_case("servlet")
                    })
            };
            if re == "~" || url.to_ascii_lowercase().starts_with("unix:") || !params.iter().all(param_ok) {
                return None;
            }
            refused(re).then(|| "Regular expression could not be compiled.".to_string())
        }
        (NodeKind::Directive, name @ ("SetEnvIf" | "SetEnvIfNoCase" | "BrowserMatch" | "BrowserMatchNoCase"))
            if loaded("setenvif_module") =>
        {
            let a = args();
            let browser = name.starts_with("BrowserMatch");
            let (attribute, re) = match (&a[..], browser) {
                // (Compiled before the variables are read: a line without any is refused here
                // first.)
                ([re, ..], true) => ("User-Agent", re.as_str()),
                ([attribute, re, ..], false) => (attribute.as_str(), re.as_str()),
                _ => return None,
            };
            // A pattern with no metacharacter is matched as a string, never compiled.
            if crate::ide::setenvif::non_regex_pattern(re).is_none() && refused(re) {
                return Some(format!("{name} regex could not be compiled."));
            }
            let special =
                ["remote_addr", "remote_host", "request_uri", "request_method", "request_protocol", "server_addr"]
                    .iter()
                    .any(|s| attribute.eq_ignore_ascii_case(s));
            let header_regex = !attribute.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
            (!special && header_regex && refused(attribute))
                .then(|| format!("{name}Header name regex could not be compiled."))
        }
        (NodeKind::Directive, name @ ("Header" | "RequestHeader")) if loaded("headers_module") => {
            header_regex(name == "Header", &args()).filter(|(_, re)| refused(re)).map(|(m, _)| m.to_string())
        }
        _ => None,
    }
}

/// The regex a `Header`/`RequestHeader` line compiles, with what httpd says when it cannot:
/// the match of `edit`/`edit*` and the header name of `Header echo`. None when the line has
/// none, or fails before it is compiled (an unknown action, a missing substitution).
fn header_regex(outgoing: bool, words: &[String]) -> Option<(&'static str, &str)> {
    let mut words = words.iter().map(String::as_str);
    let mut action = words.next()?;
    if outgoing && (action.eq_ignore_ascii_case("always") || action.eq_ignore_ascii_case("onsuccess")) {
        action = words.next()?;
    }
    let header = words.next()?;
    let value = words.next();
    let subs = words.next();
    let clause = words.next();
    if words.next().is_some() {
        return None; // "… has too many arguments"
    }
    if action.eq_ignore_ascii_case("edit") || action.eq_ignore_ascii_case("edit*") {
        subs?;
        return Some(("Header edit regex could not be compiled", value?));
    }
    // The header name is compiled before the words after it are judged: a third word is taken
    // as the condition (`Header echo a\ b` reads `a\` and `b`); a fourth is "Header echo takes
    // two arguments" first, a fifth "Too many arguments to directive".
    if action.eq_ignore_ascii_case("echo") && outgoing && clause.is_none() && (value.is_none() || subs.is_none()) {
        return Some(("Header echo regex could not be compiled", header));
    }
    None
}

/// mod_rewrite's own reading of a `RewriteRule`/`RewriteCond` line (`parseargline`): two
/// words and an optional third, each bare or in single or double quotes, a backslash before a
/// space keeping it in the word. None when the line has fewer than two words or more than three.
fn rewrite_args(line: &str) -> Option<(&str, &str, Option<&str>)> {
    let (a1, a2, a3, rest) = parseargline(line)?;
    rest.trim().is_empty().then_some((a1, a2, a3))
}

/// [`rewrite_args`] as httpd reads the line, which ignores whatever follows the third word
/// (`[R, L]` is the flags `[R,`): the three words, None when there are fewer than two.
pub(super) fn rewrite_words(line: &str) -> Option<(&str, &str, Option<&str>)> {
    let (a1, a2, a3, _) = parseargline(line)?;
    Some((a1, a2, a3))
}

/// Whether `parseargline` refuses the line ("bad argument line"): its first word (quoted or
/// not) runs to the end of the line, with nothing after it, not even the closing quote or a
/// space (httpd has stripped the line's trailing blanks).
pub(super) fn rewrite_line_refused(line: &str) -> bool {
    let s = line.trim_start();
    let b = s.as_bytes();
    let quote = b.first().copied().filter(|c| matches!(c, b'"' | b'\''));
    let mut i = usize::from(quote.is_some());
    while i < b.len() {
        let c = b[i];
        if (c.is_ascii_whitespace() && quote.is_none()) || Some(c) == quote {
            return false;
        }
        if c == b'\\' && b.get(i + 1).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i += 1;
    }
    true
}

/// `parseargline`'s words (a quoted one ends at the same quote, a backslash before it or
/// not) and the text after the third.
fn parseargline(line: &str) -> Option<(&str, &str, Option<&str>, &str)> {
    fn word(s: &str) -> Option<(&str, &str)> {
        let s = s.trim_start();
        if s.is_empty() {
            return None;
        }
        let b = s.as_bytes();
        let quote = matches!(b[0], b'"' | b'\'').then_some(b[0]);
        let start = usize::from(quote.is_some());
        let mut i = start;
        while i < b.len() {
            let c = b[i];
            if (c.is_ascii_whitespace() && quote.is_none()) || Some(c) == quote {
                break;
            }
            if c == b'\\' && b.get(i + 1).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            i += 1;
        }
        // The closing quote (or the space) ends the word and is skipped.
        Some((&s[start..i], s.get(i + 1..).unwrap_or("")))
    }
    let (a1, rest) = word(line)?;
    let (a2, rest) = word(rest)?;
    match word(rest) {
        None => Some((a1, a2, None, "")),
        Some((a3, rest)) => Some((a1, a2, Some(a3), rest)),
    }
}

/// Whether a RewriteCond pattern (after its `!`) is a regex, not one of the tests mod_rewrite
/// recognises first (`-d`…, `-lt`…, `<`, `>`, `=`).
fn cond_is_regex(p: &str) -> bool {
    let b = p.as_bytes();
    if b.len() < 2 {
        return true;
    }
    match b[0] {
        b'-' if b.len() == 2 => !matches!(b[1], b'f' | b's' | b'd' | b'x' | b'h' | b'L' | b'l' | b'U' | b'F'),
        b'-' if b.len() >= 4 => !matches!(&b[1..3], b"lt" | b"le" | b"gt" | b"ge" | b"eq" | b"ne"),
        b'<' | b'>' | b'=' => false,
        _ => true,
    }
}

/// Checks `n`; `in_path` as for [`refusal`].
pub(super) fn node(cfg: &Config, n: &Node, in_path: bool, out: &mut Vec<Diagnostic>) {
    let Some(refusal) = refusal(cfg, n, in_path) else { return };
    out.push(super::refused_line(cfg, n, "regex-syntax", &refusal));
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    /// mod_setenvif matches a pattern of plain and backslash-escaped characters as a string
    /// and never compiles it (`non_regex_pattern`): `"\\"` (one backslash after the quotes are
    /// read), `x\` and `Mozilla\` (`Mozilla\ x` is two words) are accepted; a pattern with a
    /// metacharacter is compiled, and refused when PCRE2 refuses it.
    #[test]
    fn setenvif_plain_patterns_are_never_compiled() {
        expect![[r#"
            /etc/httpd.conf:5: Error[regex-syntax]: httpd 2.4 will not start: SetEnvIf regex could not be compiled.
            /etc/httpd.conf:6: Error[regex-syntax]: httpd 2.4 will not start: BrowserMatch regex could not be compiled.
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule setenvif_module m\n",
            "SetEnvIf Request_URI \"\\\\\" has_backslash\n",
            "SetEnvIfNoCase Request_URI x\\ x\n",
            "BrowserMatchNoCase Mozilla\\ x\n",
            "SetEnvIf Request_URI ^a\\ x\n",
            "BrowserMatch (a\\ old\n",
        )));
    }

    /// mod_version compiles an `<IfVersion>` regex as it reads the opener (the loader's, which
    /// judges conditional sections): one PCRE2 refuses stops httpd on that line, in each regex
    /// form; a false section around it is skipped unread.
    #[test]
    fn if_version_regexes_pcre2_refuses_stop_httpd() {
        expect![[r#"
            /etc/httpd.conf:1: Error[regex-syntax]: httpd 2.4 will not start: Unable to compile regular expression
            /etc/httpd.conf:3: Error[regex-syntax]: httpd 2.4 will not start: Unable to compile regular expression
            /etc/httpd.conf:5: Error[regex-syntax]: httpd 2.4 will not start: Unable to compile regular expression
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "<IfVersion ~ (>\n</IfVersion>\n",
            "<IfVersion = /(/>\n</IfVersion>\n",
            "<IfVersion !~ a{2,1}>\n</IfVersion>\n",
            "<IfVersion ~ ^2\\.4>\n</IfVersion>\n",
            "<IfDefine NOPE>\n<IfVersion ~ (>\n</IfVersion>\n</IfDefine>\n",
        )));
    }
}
