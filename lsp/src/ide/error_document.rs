//! Feature: an `ErrorDocument` naming a full URL turns an error answer into a redirect.
//!
//! When a request ends in an error status, httpd looks up the ErrorDocument for that status in
//! the request's merged configuration (`modules/http/http_request.c: ap_die_r`); one that is a
//! URL (`server/util.c: ap_is_url`: a scheme of letters, digits, `+`, `-`, `.` before a `:`)
//! makes it answer 302 with `Location:` that URL instead of the error (the refusal is still
//! logged). `server/core.c: set_error_document` tells the kinds apart: a text with a space is a
//! message, one starting with `/` a local path, then a URL; a full URL for 401 is ignored at
//! startup (AH00113), so a 401 stays a 401. `ErrorDocument N default` restores the canned answer.
//!
//! Invariant: no IO; only the configuration's directives are read (the main server's, the
//! virtual host's, then those of the sections the request merged, in merge order).

use crate::ide::access::Effective;
use crate::ide::config::{level_directives, Config};
use crate::ide::policy::{Item, TraceStep};

/// The directives this feature reads per directory.
pub fn reads(name: &str) -> bool {
    name.eq_ignore_ascii_case("ErrorDocument")
}

/// An error answer httpd turns into a redirect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The error status the request ended in.
    pub status: u16,
    /// Where the client is sent (`Location:`).
    pub location: String,
    /// The ErrorDocument line: its file and line.
    pub file: String,
    pub line: u32,
}

/// What the ErrorDocument in effect for `status` makes of it: a [`Redirect`] when it is a full
/// URL. `walk_failed`: the request failed before its sections were merged (an .htaccess file
/// httpd cannot read or parse, a symbolic link it refuses): only the server's level counts.
pub fn redirect(cfg: &Config, e: &Effective, status: u16, walk_failed: bool) -> Option<Redirect> {
    if status < 400 || status == 401 {
        return None;
    }
    let vhost = e.vhost_node.and_then(|i| cfg.nodes.get(i)).map(|v| v.children.as_slice()).unwrap_or_default();
    let server = level_directives(&cfg.nodes).chain(level_directives(vhost)).filter(|n| reads(n.name())).map(|n| {
        let fd = cfg.file(n.loc.file);
        (n.arg_strings(), fd.path.display().to_string(), fd.line_of(n.loc.range.start()))
    });
    let per_dir = e.per_dir.iter().filter(|_| !walk_failed).filter_map(|(_, it)| match it {
        Item::Directive { name, args, loc, .. } if reads(name) => {
            Some((args.iter().map(|a| a.to_string()).collect(), loc.file.display().to_string(), loc.line))
        }
        _ => None,
    });
    // The last line for this status wins (`merge_core_dir_configs` overlays them by status).
    let (args, file, line) = server.chain(per_dir).filter(|(args, ..)| code(args) == Some(status)).last()?;
    let target = args.get(1)?;
    is_url(target).then(|| Redirect { status, location: target.clone(), file, line })
}

/// The status an ErrorDocument line names (`atoi` of its first argument).
fn code(args: &[String]) -> Option<u16> {
    let a = args.first()?;
    let digits: String = a.trim_start().chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Whether `set_error_document` stores `text` as a URL to redirect to.
fn is_url(text: &str) -> bool {
    if text.contains(' ') || text.starts_with('/') || text.eq_ignore_ascii_case("default") {
        return false;
    }
    match text.find(':') {
        Some(0) | None => false,
        Some(i) => text[..i].chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')),
    }
}

/// Applies the ErrorDocument redirect to `e`'s outcome: a known error status becomes 302 (the
/// rule that decided it and the log stay), each possible one too. Returns the redirect made of a
/// known status.
pub fn apply(cfg: &Config, e: &mut Effective, walk_failed: bool) -> Option<Redirect> {
    match e.outcome.status {
        Some(status) => {
            let Some(r) = redirect(cfg, e, status, walk_failed) else {
                // The other answers possible (a handler's) may be redirected.
                let mapped: Vec<u16> = e
                    .outcome
                    .possible_statuses
                    .iter()
                    .map(|&s| if s != status && redirect(cfg, e, s, walk_failed).is_some() { 302 } else { s })
                    .collect();
                let o = &mut e.outcome;
                o.possible_statuses = mapped;
                o.possible_statuses.sort_unstable();
                o.possible_statuses.dedup();
                return None;
            };
            let o = &mut e.outcome;
            o.status = Some(302);
            o.possible_statuses = vec![302];
            o.trace.push(TraceStep {
                depth: 0,
                text: format!(
                    "{status} answered with a redirect: ErrorDocument {status} {} (302, Location: {})",
                    r.location, r.location
                ),
                loc: None,
            });
            Some(r)
        }
        None => {
            let mapped: Vec<u16> = e
                .outcome
                .possible_statuses
                .iter()
                .map(|&s| if redirect(cfg, e, s, walk_failed).is_some() { 302 } else { s })
                .collect();
            let o = &mut e.outcome;
            o.possible_statuses = mapped;
            o.possible_statuses.sort_unstable();
            o.possible_statuses.dedup();
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_full_url_is_a_redirect() {
        assert!(is_url("http://example.com/x"));
        assert!(is_url("svn+ssh://h/x"));
        assert!(is_url("mailto:x@y"));
        assert!(!is_url("/local.html"));
        assert!(!is_url("\"Go away"));
        assert!(!is_url("Go away: now"));
        assert!(!is_url(":x"));
        assert!(!is_url("no_colon"));
        assert!(!is_url("a_b:c"));
        assert!(!is_url("default"));
        assert_eq!(code(&["403".into()]), Some(403));
        assert_eq!(code(&["x".into()]), None);
    }
}
