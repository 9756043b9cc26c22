//! Check: ap_expr conditions httpd refuses as it reads the line that holds them, in the words of
//! the directive's handler followed by ap_expr's own message ([`policy::expr`]):
//! * `<If>`/`<ElseIf>` (`server/core.c`): `Cannot parse condition clause: …`;
//! * `SetEnvIfExpr` (mod_setenvif): `Could not parse expression "…": …`;
//! * `Header`/`RequestHeader` with a condition `expr=…` (mod_headers):
//!   `Can't parse envclause/expression: …`;
//! * `RewriteCond expr "…"` (mod_rewrite): `RewriteCond: cannot compile expression "…" …`;
//! * `CustomLog … expr=…` (mod_log_config): ap_expr's message alone.
//!
//! Each only where its module is loaded (else httpd stops at `Invalid command` first). httpd does
//! not start; in an .htaccess file every request it applies to gets 500. (`Require expr` is the
//! access rules' check.) Expressions parsed for a string value, `Header set X "expr=…"`,
//! `AuthName`, `Redirect`/`Alias` in `<Location>`…, are [`string_refusal`]'s.

use super::Diagnostic;
use crate::ide::catalogue;
use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::policy;

/// The modules that add names to ap_expr, as far as the configuration tells (all of them when
/// it does not say which modules are loaded: no name is refused that might exist); in an
/// .htaccess file, the restricted language.
pub(crate) fn lookups(cfg: &Config) -> policy::expr::Lookups {
    let loaded = |m: &str| !cfg.modules_known || cfg.modules.contains(m);
    policy::expr::Lookups {
        ssl: loaded("ssl_module"),
        hcheck: loaded("proxy_hcheck_module"),
        restricted: cfg.top == crate::ide::config::TopLevel::Htaccess,
    }
}

/// What httpd says of node `n` when a boolean ap_expr its handler parses is refused: an
/// `<If>`/`<ElseIf>` condition, or one of the directives of the module doc whose module `cfg`
/// loads. None when httpd takes it, or when the line fails otherwise first (the directive's
/// other errors are not this check's: nothing is said then).
pub(crate) fn refusal(cfg: &Config, n: &Node) -> Option<String> {
    let parse = |text: &str| policy::expr::parse_bool(text, lookups(cfg)).err();
    let loaded = |module: &str| cfg.module_loaded(module);
    match (n.kind, n.known()) {
        (NodeKind::Section, "If" | "ElseIf") => {
            // No argument at all is the container's own error, reported elsewhere.
            let condition = n.args().first()?;
            Some(format!("Cannot parse condition clause: {}", parse(condition)?))
        }
        (NodeKind::Directive, "SetEnvIfExpr") if loaded("setenvif_module") => {
            // (No expression at all: "Missing expression for SetEnvIfExpr", not an ap_expr's.)
            let expr = n.args().first().filter(|e| !e.is_empty())?;
            Some(format!("Could not parse expression \"{expr}\": {}", parse(expr)?))
        }
        (NodeKind::Directive, name @ ("Header" | "RequestHeader")) if loaded("headers_module") => {
            let words = n.arg_strings();
            let condition = header_condition(name == "Header", &words)?;
            let expr = strip_prefix_ignore_case(condition, "expr=")?;
            Some(format!("Can't parse envclause/expression: {}", parse(expr)?))
        }
        (NodeKind::Directive, "RewriteCond") if loaded("rewrite_module") => {
            let args = n.arg_strings();
            let [input, pattern, ..] = &args[..] else { return None };
            if !input.eq_ignore_ascii_case("expr") || args.len() > 3 {
                return None;
            }
            // (The flags are read first: one httpd refuses is the line's error.)
            if args.get(2).is_some_and(|f| super::rewrite_flags::refusal(false, f).is_some()) {
                return None;
            }
            // A leading `!` negates the condition and is not the expression's.
            let expr = pattern.strip_prefix('!').unwrap_or(pattern);
            // (2.4.71 writes no colon after the quoted expression.)
            Some(format!("RewriteCond: cannot compile expression \"{expr}\" {}", parse(expr)?))
        }
        (NodeKind::Directive, "CustomLog") if loaded("log_config_module") => {
            let args = n.arg_strings();
            let [_, _, clause] = &args[..] else { return None };
            // (An empty one is "missing condition", not an ap_expr's.)
            let expr = strip_prefix_ignore_case(clause, "expr=").filter(|e| !e.is_empty())?;
            parse(expr)
        }
        _ => None,
    }
}

/// `text` without `prefix`, compared as ASCII without case (`strncasecmp`).
fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}

/// The condition clause of a `Header` (`outgoing`) or `RequestHeader` line, as mod_headers'
/// `header_cmd` and `header_inout_cmd` find it among the words: None when there is none, or
/// when the line fails before its condition is parsed (too many words, an unknown action, a
/// missing value).
fn header_condition(outgoing: bool, words: &[String]) -> Option<&str> {
    header_line(outgoing, words)?.1
}

/// A `Header`/`RequestHeader` line as `header_inout_cmd` reads it: the text its
/// `parse_format_string` reads (the value, the substitution of `edit`; none for `unset` and
/// `echo`) and the condition clause. None when the line fails before its condition is read.
pub(super) fn header_line(outgoing: bool, words: &[String]) -> Option<(Option<&str>, Option<&str>)> {
    let mut words = words.iter().map(String::as_str);
    let mut action = words.next()?;
    if outgoing && (action.eq_ignore_ascii_case("always") || action.eq_ignore_ascii_case("onsuccess")) {
        action = words.next()?;
    }
    let _header = words.next()?;
    let value = words.next();
    let subs = words.next();
    let clause = words.next();
    if words.next().is_some() {
        return None; // "… has too many arguments"
    }
    let action = action.to_ascii_lowercase();
    let known = ["set", "setifempty", "add", "append", "merge", "unset", "echo", "edit", "edit*", "note"];
    if !known.contains(&action.as_str()) {
        return None;
    }
    Some(match action.as_str() {
        // The regex is compiled before the condition is read: one that may fail to (that our
        // parser does not read, as PCRE might not) leaves the condition unread.
        "edit" | "edit*" => {
            subs?;
            regex_syntax::Parser::new().parse(value?).ok()?;
            (subs, clause)
        }
        _ if clause.is_some() => return None, // "Too many arguments to directive"
        "unset" | "echo" => match (value, subs) {
            (Some(_), Some(_)) => return None, // "… takes two arguments"
            (Some(v), None) => {
                if action == "echo" && !outgoing {
                    return None; // "Header echo only valid on Header directives"
                }
                (None, Some(v))
            }
            (None, _) => (None, None),
        },
        _ => {
            value?;
            (value, subs)
        }
    })
}

/// Whether mod_headers takes the condition clause of a `Header`/`RequestHeader` line:
/// `early`, `env=` with a name, or `expr=` with a boolean expression it parses.
pub(super) fn header_condition_ok(cfg: &Config, clause: &str) -> bool {
    clause.eq_ignore_ascii_case("early")
        || strip_prefix_ignore_case(clause, "env=").is_some_and(|v| !v.is_empty() && v != "!")
        || strip_prefix_ignore_case(clause, "expr=").is_some_and(|e| policy::expr::parse_bool(e, lookups(cfg)).is_ok())
}

/// What httpd says of node `n` when a string expression its handler parses as it reads the
/// line is refused (`ap_expr_parse_cmd` with `AP_EXPR_FLAG_STRING_RESULT`, read by
/// [`policy::expr::parse_string`]): `AuthName`, `AuthType` (mod_authn_core), `SetHandler`,
/// `ErrorDocument` (core), `LogMessage` (mod_log_debug), a `Header`/`RequestHeader` value
/// `expr=…` (mod_headers, after its condition), and inside a section with a path (`in_path`)
/// `Alias`/`ScriptAlias` with one argument and `Redirect` with a URL only (mod_alias). Only
/// where the module is loaded, and only when the line fails nothing else first.
pub(crate) fn string_refusal(cfg: &Config, n: &Node, in_path: bool) -> Option<String> {
    if n.kind != NodeKind::Directive {
        return None;
    }
    let parse = |text: &str| policy::expr::parse_string(text, lookups(cfg)).err();
    let loaded = |module: &str| cfg.module_loaded(module);
    // The words, copied only for the directives read here (every node passes by).
    let words = || n.arg_strings();
    match n.known() {
        name @ ("AuthName" | "AuthType") if loaded("authn_core_module") => {
            let args = words();
            let [word] = &args[..] else { return None };
            Some(format!("Cannot parse expression '{word}' in {name}: {}", parse(word)?))
        }
        "SetHandler" => {
            let args = words();
            let [word] = &args[..] else { return None };
            Some(format!("Can't parse expression : {}", parse(word)?))
        }
        "ErrorDocument" => {
            let args = words();
            let [code, msg] = &args[..] else { return None };
            // A status httpd has no canned response for is refused first; `default` is no
            // expression; a URL for 401 is ignored (with a notice).
            let status: u16 = code.parse().ok().filter(|c| (400..=599).contains(c))?;
            let url = msg.contains("://");
            if msg.eq_ignore_ascii_case("default") || (status == 401 && url) {
                return None;
            }
            Some(format!("Cannot parse expression in ErrorDocument: {}", parse(msg)?))
        }
        "LogMessage" if loaded("log_debug_module") => {
            let args = words();
            let message = args.first().filter(|_| args.len() <= 3)?;
            Some(format!("Could not parse message expression '{message}': {}", parse(message)?))
        }
        name @ ("Header" | "RequestHeader") if loaded("headers_module") => {
            let args = words();
            let (value, clause) = header_line(name == "Header", &args)?;
            // The condition is read first: it must be one httpd takes.
            if clause.is_some_and(|c| !header_condition_ok(cfg, c)) {
                return None;
            }
            // (`strncmp`: the prefix is `expr=` in lower case only.)
            let expr = value?.strip_prefix("expr=")?;
            Some(format!("Can't parse value expression : {}", parse(expr)?))
        }
        "Alias" | "ScriptAlias" if in_path && loaded("alias_module") => {
            let args = words();
            let [target] = &args[..] else { return None };
            Some(format!("Cannot parse alias expression '{target}': {}", parse(target)?))
        }
        "Redirect" if in_path && loaded("alias_module") => {
            let args = words();
            let first = args.first()?;
            let word = |w: &str| first.eq_ignore_ascii_case(w);
            // mod_alias' "grokarg1": a redirect status, another status, or a URL path.
            let grok = if word("permanent") || word("temp") || word("seeother") {
                1
            } else if word("gone") {
                -1
            } else if first.starts_with(|c: char| c.is_ascii_digit()) {
                let status = first
                    .bytes()
                    .take_while(u8::is_ascii_digit)
                    .fold(0u32, |v, d| v.saturating_mul(10).saturating_add(u32::from(d - b'0')));
                if (300..400).contains(&status) {
                    1
                } else {
                    -1
                }
            } else {
                0
            };
            let url = match (&args[..], grok) {
                ([_, url], 1) => url,
                ([url], 0) => url,
                _ => return None,
            };
            Some(format!("Cannot parse redirect expression '{url}': {}", parse(url)?))
        }
        _ => None,
    }
}

/// Checks `n` for [`string_refusal`].
pub(super) fn string_node(cfg: &Config, n: &Node, in_path: bool, out: &mut Vec<Diagnostic>) {
    let Some(refusal) = string_refusal(cfg, n, in_path) else { return };
    out.push(super::refused_line(cfg, n, "expr-syntax", &refusal));
}

/// Checks `n`, the directive `d` of the catalogue.
pub(super) fn node(cfg: &Config, n: &Node, d: Option<&'static catalogue::Directive>, out: &mut Vec<Diagnostic>) {
    if d.is_none() {
        return;
    }
    let Some(refusal) = refusal(cfg, n) else { return };
    out.push(super::refused_line(cfg, n, "expr-syntax", &refusal));
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    #[test]
    fn conditions_httpd_refuses() {
        expect![[r#"
            /etc/httpd.conf:2: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse condition clause: syntax error, unexpected $end
            /etc/httpd.conf:4: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse condition clause: Variable 'BOGUS' does not exist
        "#]]
        .assert_eq(&render(
            "//- /etc/httpd.conf\n<Directory /srv>\n<If \"%{REMOTE_ADDR} ==\">\n</If>\n<ElseIf \"%{BOGUS} == 'x'\">\n</ElseIf>\n<If \"-f '/x' && %{HTTP:X} =~ /a/\">\n</If>\n</Directory>\n",
        ));
        expect![[r#"
            /srv/www/.htaccess:1: Error[expr-syntax]: httpd answers 500 Internal Server Error to every request this .htaccess file applies to: Cannot parse condition clause: syntax error, unexpected T_FALSE, expecting $end
        "#]]
        .assert_eq(&render("//- /srv/www/.htaccess\n<If \"true false\">\n</If>\n"));
    }

    /// The other directives whose handlers parse a boolean ap_expr, in their handlers' words;
    /// a line that fails before its condition is read, a condition that is no expression
    /// (`env=`, `early`) and a module not loaded are not this check's.
    #[test]
    fn directives_holding_expressions_httpd_refuses() {
        expect![[r#"
            /etc/httpd.conf:5: Error[expr-syntax]: httpd 2.4 will not start: Could not parse expression "%{X} ==": syntax error, unexpected $end: Variable 'X' does not exist
            /etc/httpd.conf:6: Error[expr-syntax]: httpd 2.4 will not start: Can't parse envclause/expression: syntax error, unexpected $end: Variable 'X' does not exist
            /etc/httpd.conf:7: Error[expr-syntax]: httpd 2.4 will not start: Can't parse envclause/expression: syntax error, unexpected T_OP_STR_EQ
            /etc/httpd.conf:8: Error[expr-syntax]: httpd 2.4 will not start: Can't parse envclause/expression: Variable 'NOPE' does not exist
            /etc/httpd.conf:9: Error[expr-syntax]: httpd 2.4 will not start: Can't parse envclause/expression: syntax error, unexpected $end
            /etc/httpd.conf:10: Error[expr-syntax]: httpd 2.4 will not start: RewriteCond: cannot compile expression "true false" syntax error, unexpected T_FALSE, expecting $end
            /etc/httpd.conf:12: Error[expr-syntax]: httpd 2.4 will not start: syntax error, unexpected $end, expecting T_REGEX or T_REGEX_I: Variable 'X' does not exist
            /etc/httpd.conf:14: Error[argument-value]: httpd 2.4 will not start: Too many arguments to directive
            /etc/httpd.conf:15: Error[expr-syntax]: httpd 2.4 will not start: Can't parse value expression : Variable 'X' does not exist
            /etc/httpd.conf:16: Error[argument-value]: httpd 2.4 will not start: Header echo only valid on Header directives
            /etc/httpd.conf:18: Error[argument-value]: httpd 2.4 will not start: Missing expression for SetEnvIfExpr
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule setenvif_module m\nLoadModule headers_module m\nLoadModule rewrite_module m\n",
            "<Directory /srv>\n",
            "SetEnvIfExpr \"%{X} ==\" a=1\n",
            "Header always set X y \"expr=%{X} ==\"\n",
            "Header edit X ^a b \"expr===\"\n",
            "RequestHeader unset X \"expr=%{NOPE} == 'a'\"\n",
            "Header echo ^X \"expr=!\"\n",
            "RewriteCond expr \"!true false\"\n",
            "</Directory>\n",
            "CustomLog /x common \"expr=%{X} =~\"\n",
            "Header set X y env=Z\n",
            "Header set X y z \"expr=bad\"\n",
            "Header set X \"expr=%{X} ==\"\n",
            "RequestHeader echo X \"expr=bad\"\n",
            "RewriteCond %{X} \"expr==\"\n",
            "SetEnvIfExpr \"\"\n",
        )));
        // String expressions, in their handlers' words; Alias and Redirect only in a section
        // with a path, and only their forms that take one.
        expect![[r#"
            /etc/httpd.conf:6: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse expression '%{BOGUS}' in AuthName: Variable 'BOGUS' does not exist
            /etc/httpd.conf:7: Error[expr-syntax]: httpd 2.4 will not start: Can't parse expression : syntax error, unexpected T_ERROR, expecting T_VAR_END or ':': Unterminated string or variable
            /etc/httpd.conf:8: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse expression in ErrorDocument: Function 'nope' does not exist
            /etc/httpd.conf:9: Error[expr-syntax]: httpd 2.4 will not start: Could not parse message expression 'a %{}': syntax error, unexpected T_VAR_END, expecting T_ID
            /etc/httpd.conf:10: Error[expr-syntax]: httpd 2.4 will not start: Can't parse value expression : Variable 'BOGUS' does not exist
            /etc/httpd.conf:11: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse alias expression '/srv/%{BOGUS}': Variable 'BOGUS' does not exist
            /etc/httpd.conf:12: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse redirect expression 'http://h/%{BOGUS}': Variable 'BOGUS' does not exist
            /etc/httpd.conf:13: Error[expr-syntax]: httpd 2.4 will not start: Cannot parse redirect expression 'http://h/%{BOGUS}': Variable 'BOGUS' does not exist
            /etc/httpd.conf:15: Error[argument-value]: httpd 2.4 will not start: error: missing environment variable name. envclause should be in the form env=envar
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule headers_module m\nLoadModule log_debug_module m\nLoadModule alias_module m\n",
            "LoadModule authn_core_module m\n",
            "<Location /x>\n",
            "AuthName \"%{BOGUS}\"\n",
            "SetHandler \"%{X\"\n",
            "ErrorDocument 404 \"%{nope:x}\"\n",
            "LogMessage \"a %{}\"\n",
            "Header set X \"expr=%{BOGUS}\" early\n",
            "Alias \"/srv/%{BOGUS}\"\n",
            "Redirect 301 \"http://h/%{BOGUS}\"\n",
            "Redirect \"http://h/%{BOGUS}\"\n",
            "AuthType \"Basic %{REMOTE_ADDR}\"\n",
            "Header set X \"expr=%{BOGUS}\" env=\n",
            "Redirect 404 \"/%{BOGUS}\"\n",
            "ErrorDocument 500 default\n",
            "</Location>\n",
            "Redirect /a \"http://h/%{BOGUS}\"\n",
        )));
        // Without mod_headers, the line is an unknown directive first.
        expect![[r#"
            /etc/httpd.conf:2: Error[module-not-loaded]: Invalid command 'Header', perhaps misspelled or defined by a module not included in the server configuration: it comes from headers_module, which is not loaded
        "#]].assert_eq(&render(
            "//- /etc/httpd.conf\nLoadModule rewrite_module m\nHeader set X y \"expr=%{X} ==\"\n",
        ));
    }
}
