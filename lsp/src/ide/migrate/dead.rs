//! Dead 2.2 branches: `<IfModule !mod_authz_core.c>`, `<IfVersion < 2.3>` (and 2.0's
//! `<IfModule mod_access.c>`) around old-style lines. httpd 2.4 skips such a block without
//! reading its lines (the configuration loader does too: its body is an inactive range), so
//! removing the whole block changes nothing httpd does; the 2.4 branch beside it, if any, is
//! left as it is.
//!
//! Only blocks that are skipped with the configuration at hand *and* whose condition names
//! the 2.2 world are removed: a block skipped because some other module is not loaded today
//! (`<IfModule mod_ssl.c>`) is live once that module is, and stays.

use super::body::{is_compat, whole_lines};
use crate::ide::config::HTTPD_VERSION;
use apache_syntax::ast::{self, AstNode};
use apache_syntax::{TextRange, TextSize};

/// A removable block: the whole lines it spans, its header as written, and the line of its
/// first old-style directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DeadBranch {
    pub lines: TextRange,
    pub header: String,
    pub first_old_line: u32,
}

/// Whether a conditional section's test is false on every httpd 2.4: the absence of
/// mod_authz_core (new in 2.3, and what every `Require` needs), the presence of 2.0's
/// mod_access, or a version test no 2.4 release passes.
pub(super) fn names_pre_24(name: &str, args: &[String]) -> bool {
    let arg = args.first().map(String::as_str).unwrap_or("");
    match name.to_ascii_lowercase().as_str() {
        "ifmodule" => {
            let (neg, m) = match arg.strip_prefix('!') {
                Some(m) => (true, m),
                None => (false, arg),
            };
            let m = m.to_ascii_lowercase();
            if neg {
                matches!(m.as_str(), "mod_authz_core.c" | "authz_core_module")
            } else {
                matches!(m.as_str(), "mod_access.c" | "access_module")
            }
        }
        "ifversion" => version_excludes_24(args),
        _ => false,
    }
}

/// `<IfVersion [[!]op] version>` is false for every 2.4.x (plain comparisons only; regular
/// expressions are never taken as dead).
fn version_excludes_24(args: &[String]) -> bool {
    let (op, ver) = match args {
        [v] => ("=", v.as_str()),
        [op, v] => (op.as_str(), v.as_str()),
        _ => return false,
    };
    let (neg, op) = match op.strip_prefix('!') {
        Some(o) => (true, o),
        None => (false, op),
    };
    if op == "~" || ver.starts_with('/') {
        return false;
    }
    let mut parts = ver.split('.');
    let mut num = || parts.next().map(|p| p.parse::<u32>().ok());
    let (Some(Some(a)), b, c) = (num(), num(), num()) else { return false };
    let (Some(b), Some(c)) = (b.unwrap_or(Some(0)), c.unwrap_or(Some(0))) else { return false };
    let want = (a, b, c);
    let test = |have: (u32, u32, u32)| -> Option<bool> {
        let r = match op {
            "=" | "==" => have == want,
            "<" => have < want,
            "<=" => have <= want,
            ">" => have > want,
            ">=" => have >= want,
            _ => return None,
        };
        Some(r != neg)
    };
    // Comparisons are monotone over the 2.4 series: its first and last releases (and the one
    // this analysis models) decide; equality needs the series itself.
    let series = [(2, 4, 0), HTTPD_VERSION, (2, 4, u32::MAX)];
    match op {
        "=" | "==" => !neg && (want.0, want.1) != (2, 4),
        _ => series.iter().all(|v| test(*v) == Some(false)),
    }
}

/// `<IfVersion [[!]op] version>` is true for every 2.4.x: its comparison turned around
/// excludes them all (plain ordering comparisons only).
pub(super) fn version_holds_on_24(args: &[String]) -> bool {
    let [op, v] = args else { return false };
    let (neg, plain) = match op.strip_prefix('!') {
        Some(o) => (true, o),
        None => (false, op.as_str()),
    };
    if !matches!(plain, "<" | "<=" | ">" | ">=") {
        return false;
    }
    let turned = if neg { plain.to_string() } else { format!("!{plain}") };
    version_excludes_24(&[turned, v.clone()])
}

/// The dead 2.2 branches of `text` that hold old-style lines: outermost conditional sections
/// whose bodies httpd skips (`skipped`, the loader's inactive ranges) and whose condition
/// [`names_pre_24`].
pub(super) fn dead_branches(text: &str, skipped: &[TextRange]) -> Vec<DeadBranch> {
    if skipped.is_empty() {
        return vec![];
    }
    let root = apache_syntax::parse(text).syntax_node();
    let mut out: Vec<DeadBranch> = Vec::new();
    for node in root.descendants() {
        let Some(s) = ast::Section::cast(node.clone()) else { continue };
        let range = s.syntax().text_range();
        // Outermost only: one inside a block already taken goes with it.
        if out.iter().any(|d| d.lines.contains_range(range)) {
            continue;
        }
        let Some(header) = s.header() else { continue };
        if s.closer().is_none() {
            continue;
        }
        let body =
            TextRange::new(header.syntax().text_range().end(), s.closer().unwrap().syntax().text_range().start());
        if !skipped.contains(&body) {
            continue;
        }
        let args: Vec<String> = apache_syntax::split_words(&header.raw_args());
        if !names_pre_24(&s.name_text(), &args) {
            continue;
        }
        let first_old = s.syntax().descendants().filter_map(ast::Directive::cast).find_map(|d| {
            let n = d.name()?;
            is_compat(&n.text()).then(|| n.range().start())
        });
        let Some(at) = first_old else { continue };
        let header_text = text[header.syntax().text_range()].trim().to_string();
        // (The section's node ends after its closer's line break: trim to the closer.)
        let end = range.start() + TextSize::from(text[range].trim_end().len() as u32);
        out.push(DeadBranch {
            lines: whole_lines(text, TextRange::new(range.start(), end)),
            header: header_text,
            first_old_line: text[..usize::from(at)].matches('\n').count() as u32 + 1,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn conditions_false_on_every_24() {
        for (name, args, dead) in [
            ("IfModule", "!mod_authz_core.c", true),
            ("ifmodule", "!authz_core_module", true),
            ("IfModule", "mod_authz_core.c", false),
            ("IfModule", "!mod_authz_host.c", false),
            ("IfModule", "mod_access.c", true),
            ("IfModule", "mod_ssl.c", false),
            ("IfVersion", "< 2.3", true),
            ("IfVersion", "< 2.4", true),
            ("IfVersion", "<= 2.2.99", true),
            ("IfVersion", "2.2", true),
            ("IfVersion", "= 2.4", false),
            ("IfVersion", "< 2.4.10", false),
            ("IfVersion", ">= 2.3", false),
            ("IfVersion", "!>= 2.3", true),
            ("IfVersion", "~ ^2\\.2", false),
            ("IfVersion", "< x", false),
        ] {
            assert_eq!(names_pre_24(name, &words(args)), dead, "<{name} {args}>");
        }
    }
}
