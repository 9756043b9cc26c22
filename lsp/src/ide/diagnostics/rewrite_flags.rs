//! mod_rewrite's flag fields, as `cmd_parseflagfield` (`modules/mappers/mod_rewrite.c`) splits
//! them and `cmd_rewriterule_setflag`/`cmd_rewritecond_setflag` read each flag: what httpd
//! says of the first it refuses. Read by the argument check (the line's error) and by the
//! regex and expression checks (the flags are read before the pattern is compiled: a line
//! whose flags are refused fails on them).

/// The blanks C's `isspace` takes.
const C_SPACE: [char; 6] = [' ', '\t', '\n', '\r', '\x0b', '\x0c'];

/// mod_rewrite's `cmd_parseflagfield` on a `RewriteRule` (`rule`) or `RewriteCond` flag field
/// (its third word, quotes taken off): `[` … `]`, split at each `,`, each flag's blanks
/// trimmed and its `=value` split off, then `cmd_rewriterule_setflag` or
/// `cmd_rewritecond_setflag` on each in turn. An empty flag (`[]`, `[L,]`, `[L,,R]`) is
/// refused too.
pub(crate) fn refusal(rule: bool, field: &str) -> Option<String> {
    let inner = field.strip_prefix('[').and_then(|f| f.strip_suffix(']'));
    let Some(inner) = inner else { return Some("bad flag delimiters".to_string()) };
    // (The closing `]` is read as one more comma.)
    let buffer = format!("{inner},");
    let mut key = buffer.as_str();
    while !key.is_empty() {
        let start = key.trim_start_matches(C_SPACE);
        let skipped = start.len() != key.len();
        let Some(comma) = start.find(',') else { break };
        let flag = match comma {
            // An empty flag: httpd ends it where it began, or (blanks before it) ends the
            // blank before it and reads the rest of the field as the flag.
            0 if skipped => start,
            _ => start[..comma].trim_end_matches(C_SPACE),
        };
        let (name, value) = flag.split_once('=').unwrap_or((flag, ""));
        let why = if rule { rule_flag_refusal(name, value) } else { cond_flag_refusal(name) };
        if why.is_some() {
            return why;
        }
        key = &start[comma + 1..];
    }
    None
}

/// `cmd_rewritecond_setflag`: `nocase`/`NC`, `ornext`/`OR`, `novary`/`NV`, case aside.
fn cond_flag_refusal(key: &str) -> Option<String> {
    let known = ["nocase", "NC", "ornext", "OR", "novary", "NV"];
    (!known.iter().any(|k| k.eq_ignore_ascii_case(key))).then(|| format!("unknown flag '{key}'"))
}

/// `cmd_rewriterule_setflag`: the flag's first letter, then the rest of its name compared case
/// aside (a `D…` flag is never refused); `BNE` needs a value, `R=` with a leading digit a
/// status httpd has a line for (or 500).
fn rule_flag_refusal(key: &str, value: &str) -> Option<String> {
    let mut chars = key.chars();
    let first = chars.next().map(|c| c.to_ascii_lowercase());
    let rest = chars.as_str();
    let is = |names: &[&str]| names.iter().any(|n| rest.eq_ignore_ascii_case(n));
    let known = match first {
        Some('b') => {
            if rest.eq_ignore_ascii_case("NE") {
                if value.is_empty() {
                    return Some("flag 'BNE' wants a list of characters (i.e. [BNE=...])".to_string());
                }
                true
            } else {
                is(&["", "ackrefescaping", "NP", "ackrefernoplus", "CTLS"])
            }
        }
        Some('c') => is(&["", "hain", "O", "ookie"]),
        Some('d') => true,
        Some('e') => is(&["", "nv", "nd"]),
        Some('f') => is(&["", "orbidden"]),
        Some('g') => is(&["", "one"]),
        Some('h') => is(&["", "andler"]),
        Some('l') => is(&["", "ast"]),
        Some('n') => is(&["E", "oescape", "", "ext", "S", "osubreq", "C", "ocase"]),
        Some('p') => is(&["", "roxy", "T", "assthrough"]),
        Some('q') => is(&["SA", "sappend", "SD", "sdiscard", "SL", "slast"]),
        Some('r') => {
            if !is(&["", "edirect"]) {
                false
            } else if value.starts_with(|c: char| c.is_ascii_digit()) {
                let status = atoi(value);
                let known = status == 500
                    || (0..=i64::from(u16::MAX)).contains(&status) && HTTP_STATUS_LINES.contains(&(status as u16));
                return (!known).then(|| format!("invalid HTTP response code '{value}' for flag 'R'"));
            } else {
                true
            }
        }
        Some('s') => is(&["", "kip"]),
        Some('t') => is(&["", "ype"]),
        Some('u') => is(&["nsafePrefixStat", "nsafeAllow3F", "NC"]),
        _ => false,
    };
    (!known).then(|| format!("unknown flag '{key}'"))
}

/// The statuses httpd has a status line for (`status_lines` in `modules/http/http_protocol.c`):
/// a `RewriteRule … [R=N]` with any other (but 500) is refused.
const HTTP_STATUS_LINES: &[u16] = &[
    100, 101, 102, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401,
    402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 423, 424, 426, 428, 429,
    431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
];

/// C's `atoi` on a string that starts with a digit, as glibc has it: `strtol` (saturated at
/// 64 bits) cut to an `int`.
fn atoi(s: &str) -> i64 {
    let digits = s.bytes().take_while(u8::is_ascii_digit);
    let long = digits.fold(0i64, |n, d| n.saturating_mul(10).saturating_add(i64::from(d - b'0')));
    i64::from(long as i32)
}

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
