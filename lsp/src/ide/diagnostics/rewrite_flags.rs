//! mod_rewrite's flag fields, read as httpd reads them ([`crate::ide::rewrite_flags`]): what
//! httpd says of the first flag it refuses. Read by the argument check (the line's error) and by the
//! regex and expression checks (the flags are read before the pattern is compiled: a line
//! whose flags are refused fails on them).

use crate::ide::rewrite_flags::{atoi, each_flag, CondFlag, RuleFlag};

/// mod_rewrite's `cmd_parseflagfield` on a `RewriteRule` (`rule`) or `RewriteCond` flag field
/// (its third word, quotes taken off), [`each_flag`], then `cmd_rewriterule_setflag` or
/// `cmd_rewritecond_setflag` on each flag in turn. An empty flag (`[]`, `[L,]`, `[L,,R]`) is
/// refused too.
pub(crate) fn refusal(rule: bool, field: &str) -> Option<String> {
    let each = |name: &str, value: &str| if rule { rule_flag_refusal(name, value) } else { cond_flag_refusal(name) };
    each_flag(field, each).unwrap_or_else(|delimiters| Some(delimiters.to_string()))
}

/// `cmd_rewritecond_setflag`: `nocase`/`NC`, `ornext`/`OR`, `novary`/`NV`, case aside.
fn cond_flag_refusal(key: &str) -> Option<String> {
    CondFlag::named(key).is_none().then(|| format!("unknown flag '{key}'"))
}

/// `cmd_rewriterule_setflag`: a name [`RuleFlag::named`] does not know; `BNE` without a value;
/// `R=` with a leading digit and a status httpd has no line for (but 500).
fn rule_flag_refusal(key: &str, value: &str) -> Option<String> {
    match RuleFlag::named(key) {
        None => Some(format!("unknown flag '{key}'")),
        Some(RuleFlag::NoEscapeChars) if value.is_empty() => {
            Some("flag 'BNE' wants a list of characters (i.e. [BNE=...])".to_string())
        }
        Some(RuleFlag::Redirect) if value.starts_with(|c: char| c.is_ascii_digit()) => {
            let status = atoi(value);
            let known = status == 500
                || (0..=i64::from(u16::MAX)).contains(&status) && HTTP_STATUS_LINES.contains(&(status as u16));
            (!known).then(|| format!("invalid HTTP response code '{value}' for flag 'R'"))
        }
        Some(_) => None,
    }
}

/// The statuses httpd has a status line for (`status_lines` in `modules/http/http_protocol.c`):
/// a `RewriteRule … [R=N]` with any other (but 500) is refused.
const HTTP_STATUS_LINES: &[u16] = &[
    100, 101, 102, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401,
    402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 423, 424, 426, 428, 429,
    431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
];

#[cfg(test)]
mod tests {
    use super::refusal;

    /// Fields httpd refuses, in its words, and neighbours it takes (each held to `apache2 -t`
    /// in `context_vs_httpd::rewrite_flags_match_apache2_t`).
    #[test]
    fn flags_as_mod_rewrite_reads_them() {
        let rule = |f: &str| refusal(true, f);
        let cond = |f: &str| refusal(false, f);
        assert_eq!(rule("[OR]").as_deref(), Some("unknown flag 'OR'"));
        assert_eq!(rule("[L,]").as_deref(), Some("unknown flag ''"));
        assert_eq!(rule("[]").as_deref(), Some("unknown flag ''"));
        assert_eq!(rule("[L, ,R]").as_deref(), Some("unknown flag ',R,'"));
        assert_eq!(rule("[E=\"X:a,b\"]").as_deref(), Some("unknown flag 'b\"'"));
        assert_eq!(rule("[R=999]").as_deref(), Some("invalid HTTP response code '999' for flag 'R'"));
        assert_eq!(rule("[R=3xx]").as_deref(), Some("invalid HTTP response code '3xx' for flag 'R'"));
        assert_eq!(rule("[BNE=]").as_deref(), Some("flag 'BNE' wants a list of characters (i.e. [BNE=...])"));
        assert_eq!(rule("[L").as_deref(), Some("bad flag delimiters"));
        assert_eq!(cond("[L]").as_deref(), Some("unknown flag 'L'"));
        for fine in ["[ L , R ]", "[DX]", "[R=500]", "[R=foo]", "[R=]", "[co=a:b]", "[BNP,UNC,qsl,END]", "[L=x]"] {
            assert_eq!(rule(fine), None, "{fine}");
        }
        assert_eq!(cond("[nocase,OR,nv]"), None);
    }
}
