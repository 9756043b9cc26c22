//! mod_rewrite's per-directory refusal: its fixup hook (`mod_rewrite.c: hook_fixup`) answers 403
//! (AH00670) to every request whose merged per-directory configuration has `RewriteEngine On`
//! while the merged `Options` have neither FollowSymLinks nor SymLinksIfOwnerMatch, whether a
//! RewriteRule would match or not. It steps aside for a request naming the directory of the
//! last section merged without its trailing slash (left to mod_dir).

use crate::ide::access::Effective;
use crate::ide::config::Config;
use crate::ide::handler::Answer;
use crate::ide::policy::{Item, LogEntry, LogLevel};

/// The directives this feature reads per directory.
pub fn reads(name: &str) -> bool {
    name.eq_ignore_ascii_case("RewriteEngine")
}

/// The 403 mod_rewrite answers `e` (a request that passed access control) with, if it does.
pub fn forbidden(cfg: &Config, e: &Effective) -> Option<Answer> {
    if !cfg.module_loaded("rewrite_module") {
        return None;
    }
    // The per-directory engine state: the last RewriteEngine of the sections merged.
    let (section, on) = e.per_dir.iter().rev().find_map(|(i, item)| match item {
        Item::Directive { name, args, .. } if reads(name) => {
            Some((*i, args.first().is_some_and(|a| AsRef::<str>::as_ref(a).eq_ignore_ascii_case("on"))))
        }
        _ => None,
    })?;
    if !on || crate::ide::handler::request_options(cfg, e).any_symlinks() {
        return None;
    }
    // The directory mod_rewrite compares is the last merged section's.
    let last = e.sections.last()?;
    let directory = if last.kind == ".htaccess" {
        last.path.parent().map(|p| p.to_string_lossy().into_owned())
    } else {
        last.args.last().cloned()
    };
    let filename = e.filesystem_path.to_string_lossy();
    if directory.is_some_and(|d| d.trim_end_matches('/') == filename.trim_end_matches('/') && !filename.ends_with('/'))
    {
        return None;
    }
    let where_on = e.sections.get(section)?;
    Some(Answer::File {
        status: 403,
        why: format!(
            "RewriteEngine On ({} {} at {}:{}) where Options have neither FollowSymLinks nor SymLinksIfOwnerMatch: \
             mod_rewrite refuses every request here",
            where_on.kind,
            where_on.args.join(" "),
            where_on.path.display(),
            where_on.line
        ),
        log: Some(LogEntry {
            ah_code: "AH00670",
            module: "rewrite",
            level: LogLevel::Error,
            message: format!(
                "Options FollowSymLinks and SymLinksIfOwnerMatch are both off, so the RewriteRule directive is also \
                 forbidden due to its similar ability to circumvent directory restrictions : {filename}"
            ),
        }),
    })
}
