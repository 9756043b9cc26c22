//! Feature: mod_allowmethods' `AllowMethods`, which refuses with 405 a method its sections do
//! not list (`modules/aaa/mod_allowmethods.c`, as in 2.4). Its access checker is hooked before every
//! other, so it answers before mod_access_compat, authentication and authorization.
//!
//! Invariant: reads only the directives the walk merged for the request (no IO); a method the
//! configuration cannot name (not built in, not registered) is allowed only where no list is
//! enforced.

use crate::ide::config::Config;
use crate::ide::policy::{Deciding, Item, Layer, LogEntry, LogLevel, Outcome, TraceStep};
use std::collections::BTreeSet;

/// The directives this feature reads per directory.
pub fn reads(name: &str) -> bool {
    name.eq_ignore_ascii_case("AllowMethods")
}

/// The methods a section allows (`am_allowmethods` in 2.4: a section's lines add up, `reset`
/// empties the list); empty: nothing enforced.
fn section_list(lines: &[&[String]]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for args in lines {
        if args.len() == 1 && args[0].eq_ignore_ascii_case("reset") {
            names.clear();
        } else {
            names.extend(args.iter().cloned());
        }
    }
    names
}

/// Whether `method` passes `list` (HEAD counts as GET: its method number is GET's).
fn allows(list: &BTreeSet<String>, method: &str) -> bool {
    let m = if method == "HEAD" { "GET" } else { method };
    list.is_empty() || list.contains(m)
}

/// The AllowMethods lines in force for a request whose merged directives are `per_dir` (those
/// of the last section holding any: a section's list replaces the one before,
/// `am_merge_conf`), when they refuse `method`: the last of them.
fn refusing_line<'a>(per_dir: &'a [(usize, Item)], method: &str) -> Option<&'a Item> {
    let lines: Vec<(usize, &Item)> = per_dir
        .iter()
        .filter(|(_, item)| matches!(item, Item::Directive { name, .. } if reads(name)))
        .map(|(sec, item)| (*sec, item))
        .collect();
    let (sec, last) = *lines.last()?;
    let args: Vec<Vec<String>> = lines
        .iter()
        .filter(|(s, _)| *s == sec)
        .filter_map(|(_, item)| match item {
            Item::Directive { args, .. } => Some(args.iter().map(|a| a.to_string()).collect()),
            _ => None,
        })
        .collect();
    let list = section_list(&args.iter().map(Vec::as_slice).collect::<Vec<_>>());
    (!allows(&list, method)).then_some(last)
}

/// The outcome of a request mod_allowmethods refuses (405), if it does: `per_dir` the
/// directives merged for it, `target` the file name it logs (else the URL).
pub fn refusal(cfg: &Config, per_dir: &[(usize, Item)], method: &str, target: &str) -> Option<Outcome> {
    if !cfg.module_loaded("allowmethods_module") {
        return None;
    }
    let Some(Item::Directive { raw_args, loc, .. }) = refusing_line(per_dir, method) else { return None };
    let rule = format!("AllowMethods {raw_args}");
    Some(Outcome {
        status: Some(405),
        reason_unknown: None,
        possible_statuses: vec![405],
        deciding: Some(Deciding { layer: Layer::Core, rule: rule.clone(), loc: Some(loc.clone()) }),
        trace: vec![TraceStep {
            depth: 0,
            text: format!(
                "mod_allowmethods (access checker, before every other): {method} is not allowed by {rule}: 405"
            ),
            loc: Some(loc.clone()),
        }],
        log: vec![LogEntry {
            ah_code: "AH01623",
            module: "allowmethods",
            level: LogLevel::Error,
            message: format!("client method denied by server configuration: '{method}' to {target}"),
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(lines: &[&str]) -> BTreeSet<String> {
        let lines: Vec<Vec<String>> =
            lines.iter().map(|l| l.split_whitespace().map(str::to_string).collect()).collect();
        section_list(&lines.iter().map(Vec::as_slice).collect::<Vec<_>>())
    }

    /// A section's lines add up, `reset` empties the list (nothing enforced); HEAD is GET.
    #[test]
    fn allow_methods_lines_of_a_section_add_up() {
        let get = list(&["GET"]);
        assert!(allows(&get, "GET") && allows(&get, "HEAD"));
        assert!(!allows(&get, "POST") && !allows(&get, "OPTIONS") && !allows(&get, "FOO"));
        let both = list(&["GET", "POST"]);
        assert!(allows(&both, "POST") && allows(&both, "GET") && !allows(&both, "PUT"));
        assert!(allows(&list(&["GET", "reset"]), "PUT"));
        assert!(!allows(&list(&["reset", "GET"]), "PUT"));
    }
}
