//! mod_rewrite's flag fields (`[L,NC,R=301]`), read as `modules/mappers/mod_rewrite.c` reads
//! them: `cmd_parseflagfield` splits the field, `cmd_rewriterule_setflag` and
//! `cmd_rewritecond_setflag` name each flag. The one reader of every feature that asks what a
//! `RewriteRule`'s or `RewriteCond`'s flags are (the refusal check, the internal redirects, the
//! handlers, the migration, the environment).

/// The blanks C's `isspace` takes.
const C_SPACE: [char; 6] = [' ', '\t', '\n', '\r', '\x0b', '\x0c'];

/// Each flag of a field (the flag word, quotes taken off) as `cmd_parseflagfield` splits them,
/// given to `each` as (name, value; `""` without one) until it returns something, which is
/// returned: the field is `[` … `]`, split at each `,`, each flag's blanks trimmed and its value
/// split off at the first `=`. An empty flag (`[]`, `[L,]`) has an empty name; blanks before
/// an empty flag end the blank before it, and the rest of the field, its `]` read as a comma, is
/// the flag (`[L, ,R]` has the flags `L`, `,R,` and `R`). `Err` when the field is not in
/// brackets (httpd refuses it: "bad flag delimiters").
pub fn each_flag<T>(field: &str, mut each: impl FnMut(&str, &str) -> Option<T>) -> Result<Option<T>, &'static str> {
    let inner = field.strip_prefix('[').and_then(|f| f.strip_suffix(']')).ok_or("bad flag delimiters")?;
    // (The closing `]` is read as one more comma.)
    let buffer = format!("{inner},");
    let mut key = buffer.as_str();
    while !key.is_empty() {
        let start = key.trim_start_matches(C_SPACE);
        let skipped = start.len() != key.len();
        let Some(comma) = start.find(',') else { break };
        let flag = match comma {
            0 if skipped => start,
            _ => start[..comma].trim_end_matches(C_SPACE),
        };
        let (name, value) = flag.split_once('=').unwrap_or((flag, ""));
        if let Some(found) = each(name, value) {
            return Ok(Some(found));
        }
        key = &start[comma + 1..];
    }
    Ok(None)
}

/// A `RewriteRule` flag, as `cmd_rewriterule_setflag` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleFlag {
    /// `B`, `backrefescaping`.
    Escape,
    /// `BNE` (which wants a value).
    NoEscapeChars,
    /// `BNP`, `backrefernoplus`.
    EscapeNoPlus,
    /// `BCTLS`.
    EscapeControls,
    /// `C`, `chain`.
    Chain,
    /// `CO`, `cookie`.
    Cookie,
    /// `D`, `DPI`, `discardpath`; and any other name starting with `D`, which httpd takes and
    /// ignores.
    DiscardPath,
    /// `E`, `env`.
    Env,
    /// `END`.
    End,
    /// `F`, `forbidden`.
    Forbidden,
    /// `G`, `gone`.
    Gone,
    /// `H`, `handler`.
    Handler,
    /// `L`, `last`.
    Last,
    /// `NE`, `noescape`.
    NoEscape,
    /// `N`, `next`.
    Next,
    /// `NS`, `nosubreq`.
    NoSubreq,
    /// `NC`, `nocase`.
    NoCase,
    /// `P`, `proxy`.
    Proxy,
    /// `PT`, `passthrough`.
    PassThrough,
    /// `QSA`, `qsappend`.
    QsAppend,
    /// `QSD`, `qsdiscard`.
    QsDiscard,
    /// `QSL`, `qslast`.
    QsLast,
    /// `R`, `redirect`.
    Redirect,
    /// `S`, `skip`.
    Skip,
    /// `T`, `type`.
    Type,
    /// `UnsafePrefixStat`.
    UnsafePrefixStat,
    /// `UnsafeAllow3F`.
    UnsafeAllow3F,
    /// `UNC`.
    Unc,
}

impl RuleFlag {
    /// The flag `name` names: its first letter, then the rest of the name compared case aside
    /// (so `l`, `L`, `Last` and `LAST` are all [`RuleFlag::Last`]). None for a name httpd
    /// refuses ("unknown flag").
    pub fn named(name: &str) -> Option<RuleFlag> {
        use RuleFlag::*;
        let mut chars = name.chars();
        let first = chars.next()?.to_ascii_lowercase();
        let rest = chars.as_str();
        let is = |names: &[&str]| names.iter().any(|n| rest.eq_ignore_ascii_case(n));
        Some(match first {
            'b' if is(&["", "ackrefescaping"]) => Escape,
            'b' if is(&["NE"]) => NoEscapeChars,
            'b' if is(&["NP", "ackrefernoplus"]) => EscapeNoPlus,
            'b' if is(&["CTLS"]) => EscapeControls,
            'c' if is(&["", "hain"]) => Chain,
            'c' if is(&["O", "ookie"]) => Cookie,
            'd' => DiscardPath,
            'e' if is(&["", "nv"]) => Env,
            'e' if is(&["nd"]) => End,
            'f' if is(&["", "orbidden"]) => Forbidden,
            'g' if is(&["", "one"]) => Gone,
            'h' if is(&["", "andler"]) => Handler,
            'l' if is(&["", "ast"]) => Last,
            'n' if is(&["E", "oescape"]) => NoEscape,
            'n' if is(&["", "ext"]) => Next,
            'n' if is(&["S", "osubreq"]) => NoSubreq,
            'n' if is(&["C", "ocase"]) => NoCase,
            'p' if is(&["", "roxy"]) => Proxy,
            'p' if is(&["T", "assthrough"]) => PassThrough,
            'q' if is(&["SA", "sappend"]) => QsAppend,
            'q' if is(&["SD", "sdiscard"]) => QsDiscard,
            'q' if is(&["SL", "slast"]) => QsLast,
            'r' if is(&["", "edirect"]) => Redirect,
            's' if is(&["", "kip"]) => Skip,
            't' if is(&["", "ype"]) => Type,
            'u' if is(&["nsafePrefixStat"]) => UnsafePrefixStat,
            'u' if is(&["nsafeAllow3F"]) => UnsafeAllow3F,
            'u' if is(&["NC"]) => Unc,
            _ => return None,
        })
    }
}

/// A `RewriteCond` flag, as `cmd_rewritecond_setflag` names it (case aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CondFlag {
    /// `NC`, `nocase`.
    NoCase,
    /// `OR`, `ornext`.
    OrNext,
    /// `NV`, `novary`.
    NoVary,
}

impl CondFlag {
    /// The flag `name` names; None for a name httpd refuses.
    pub fn named(name: &str) -> Option<CondFlag> {
        let is = |names: &[&str]| names.iter().any(|n| name.eq_ignore_ascii_case(n));
        Some(match () {
            _ if is(&["nocase", "NC"]) => CondFlag::NoCase,
            _ if is(&["ornext", "OR"]) => CondFlag::OrNext,
            _ if is(&["novary", "NV"]) => CondFlag::NoVary,
            _ => return None,
        })
    }
}

/// A `RewriteRule`'s flags: those of its field httpd knows, each with its value, in order.
/// (A field httpd refuses stops it from starting: the refusal check says so; here its known
/// flags are read all the same, and a field out of brackets has none.)
#[derive(Debug, Clone, Default)]
pub struct RuleFlags {
    flags: Vec<(RuleFlag, Box<str>)>,
}

impl RuleFlags {
    /// The flags of a rule's third word (`None`: the rule has none).
    pub fn read(field: Option<&str>) -> RuleFlags {
        let mut flags = Vec::new();
        if let Some(field) = field {
            let _ = each_flag(field, |name, value| {
                flags.extend(RuleFlag::named(name).map(|f| (f, Box::from(value))));
                None::<()>
            });
        }
        RuleFlags { flags }
    }

    /// Whether one of `flags` is set.
    pub fn any(&self, flags: &[RuleFlag]) -> bool {
        self.flags.iter().any(|(f, _)| flags.contains(f))
    }

    /// The values of each `flag` set, in order (`""` for one without a value).
    pub fn values(&self, flag: RuleFlag) -> impl Iterator<Item = &str> {
        self.flags.iter().filter(move |(f, _)| *f == flag).map(|(_, v)| &**v)
    }

    /// The status each `R` flag sets, as `cmd_rewriterule_setflag` reads its value and httpd
    /// answers it: `permanent` 301, `temp` 302, `seeother` 303 (case aside), a value starting
    /// with a digit its leading number (C's `atoi`, `301x` is 301); without a value the rule's
    /// default, 302; any other word (`gone` among them: Redirect's word, not mod_rewrite's)
    /// sets the status 0, not a redirect's, and httpd answers 302 in its place.
    pub fn redirect_statuses(&self) -> impl Iterator<Item = u16> + '_ {
        self.values(RuleFlag::Redirect).map(|value| {
            let status = match value {
                v if v.eq_ignore_ascii_case("permanent") => 301,
                v if v.eq_ignore_ascii_case("temp") => 302,
                v if v.eq_ignore_ascii_case("seeother") => 303,
                v if v.starts_with(|c: char| c.is_ascii_digit()) => atoi(v),
                _ => 0,
            };
            u16::try_from(status).ok().filter(|&s| s != 0).unwrap_or(302)
        })
    }
}

/// C's `atoi` on a string that starts with a digit, as glibc has it: `strtol` (saturated at 64
/// bits) cut to an `int`.
pub fn atoi(s: &str) -> i64 {
    let digits = s.bytes().take_while(u8::is_ascii_digit);
    let long = digits.fold(0i64, |n, d| n.saturating_mul(10).saturating_add(i64::from(d - b'0')));
    i64::from(long as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every flag of `field`, as (name, value).
    fn split(field: &str) -> Result<Vec<(String, String)>, &'static str> {
        let mut out = Vec::new();
        each_flag(field, |n, v| {
            out.push((n.to_string(), v.to_string()));
            None::<()>
        })?;
        Ok(out)
    }

    #[test]
    fn fields_split_as_cmd_parseflagfield_splits_them() {
        let pairs = |p: &[(&str, &str)]| Ok(p.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect());
        assert_eq!(split("[L,NC]"), pairs(&[("L", ""), ("NC", "")]));
        assert_eq!(split("[ L , R=301 ]"), pairs(&[("L", ""), ("R", "301")]));
        assert_eq!(split("[E=X:a=b,L]"), pairs(&[("E", "X:a=b"), ("L", "")]));
        assert_eq!(split("[]"), pairs(&[("", "")]));
        assert_eq!(split("[L,]"), pairs(&[("L", ""), ("", "")]));
        assert_eq!(split("[L, ,R]"), pairs(&[("L", ""), (",R,", ""), ("R", "")]));
        assert_eq!(split("L"), Err("bad flag delimiters"));
    }

    #[test]
    fn names_are_read_by_their_first_letter_then_case_aside() {
        assert_eq!(RuleFlag::named("l"), Some(RuleFlag::Last));
        assert_eq!(RuleFlag::named("LAST"), Some(RuleFlag::Last));
        assert_eq!(RuleFlag::named("nC"), Some(RuleFlag::NoCase));
        assert_eq!(RuleFlag::named("end"), Some(RuleFlag::End));
        assert_eq!(RuleFlag::named("pt"), Some(RuleFlag::PassThrough));
        assert_eq!(RuleFlag::named("DX"), Some(RuleFlag::DiscardPath));
        assert_eq!(RuleFlag::named("OR"), None);
        assert_eq!(RuleFlag::named(""), None);
        assert_eq!(CondFlag::named("Or"), Some(CondFlag::OrNext));
        assert_eq!(CondFlag::named("L"), None);
    }

    #[test]
    fn redirect_statuses_are_those_httpd_answers() {
        let statuses = |f: &str| RuleFlags::read(Some(f)).redirect_statuses().collect::<Vec<_>>();
        assert_eq!(statuses("[R]"), [302]);
        assert_eq!(statuses("[redirect=Permanent,L]"), [301]);
        assert_eq!(statuses("[R=seeother]"), [303]);
        assert_eq!(statuses("[R=301x]"), [301]);
        assert_eq!(statuses("[R=gone]"), [302]);
        assert_eq!(statuses("[R=404]"), [404]);
        assert_eq!(statuses("[L]"), [0u16; 0]);
        let flags = RuleFlags::read(Some("[nc,L,X,E=a:b]"));
        assert!(flags.any(&[RuleFlag::NoCase]) && flags.any(&[RuleFlag::Last]));
        assert_eq!(flags.values(RuleFlag::Env).collect::<Vec<_>>(), ["a:b"]);
        assert!(!RuleFlags::read(Some("L")).any(&[RuleFlag::Last]));
    }
}
