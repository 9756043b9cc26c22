//! .htaccess files written after a rewrite: what the proof does not cover.
//!
//! The proof reads the .htaccess files on disk. Where the AllowOverride (or
//! AllowOverrideList) in force on a rewritten body's walks lets an .htaccess file hold access
//! lines, one written there later meets the rewritten body otherwise than it met the old one:
//! mod_access_compat has no merger (the file's Order/Allow/Deny replaced the body's, and no
//! longer replace its Require lines), and under `AuthMerging Off` the file's Require lines
//! replace the body's (which they did not while the body's Order/Allow/Deny applied beside
//! them). No rewrite keeps both, so the rewrite is kept and the gap is said.

use super::Analysis;
use crate::ide::access::Resolved;
use crate::ide::allow_override;
use crate::ide::catalogue::context::Overrides;
use crate::ide::config::index::ServerId;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// Where later .htaccess files may hold access lines on the walks of a body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::ide::migrate) struct LaterHtaccess {
    /// The shallowest such directories (those below each are covered by it).
    pub dirs: Vec<PathBuf>,
    /// Somewhere there a Require line is allowed (AuthConfig, or AllowOverrideList Require).
    pub require: bool,
    /// Somewhere there Order/Allow/Deny lines are allowed (Limit, or listed).
    pub compat: bool,
}

impl LaterHtaccess {
    /// One sentence: where, and how such a file is merged otherwise after the rewrite.
    pub fn sentence(&self) -> String {
        let shown: Vec<String> = self.dirs.iter().take(3).map(|d| d.display().to_string()).collect();
        let more = match self.dirs.len().saturating_sub(3) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let mut how = Vec::new();
        if self.require {
            how.push("its Require lines and the section's replace one another (the one merged later wins, under AuthMerging Off), where before the section's Order/Allow/Deny still applied beside them");
        }
        if self.compat {
            how.push("its Order/Allow/Deny apply beside the section's Require lines, where before they and the section's Order/Allow/Deny replaced one another");
        }
        format!(
            "proven for the .htaccess files on disk today, not for one written later in {}{more} (and below), where the AllowOverride in force lets it hold access lines: after the rewrite {}",
            shown.join(", "),
            how.join("; and ")
        )
    }
}

/// What the overrides `o` let an .htaccess file hold: (Require lines, Order/Allow/Deny lines).
fn admits(o: &Overrides) -> (bool, bool) {
    let grants = |n: &str| crate::ide::catalogue::directive(n).is_some_and(|d| o.grants(d));
    (grants("Require"), ["Order", "Allow", "Deny"].iter().any(|n| grants(n)))
}

/// The directories whose .htaccess file a walk reads (or would, were one there): those above
/// the file it maps to, and the path itself when it is a directory URL's.
fn walk_dirs(r: &Resolved) -> Vec<PathBuf> {
    let p = &r.filesystem_path;
    let start: &Path = if p.as_os_str().to_string_lossy().ends_with('/') { p } else { p.parent().unwrap_or(p) };
    // (Without a trailing slash, as people read a directory.)
    start.ancestors().map(|d| d.components().collect()).collect()
}

impl Analysis<'_> {
    /// For each of `bodies` that some walk reaches through a directory where an .htaccess file
    /// written later may hold access lines: where, and which kinds.
    pub fn later_htaccess(&self, bodies: &BTreeSet<usize>) -> BTreeMap<usize, LaterHtaccess> {
        let ix = self.cfg.index();
        let mut judged: std::collections::HashMap<(ServerId, PathBuf), (bool, bool)> = Default::default();
        let mut out = BTreeMap::new();
        for &s in bodies {
            let mut found: BTreeMap<PathBuf, (bool, bool)> = BTreeMap::new();
            let mut seen: HashSet<(ServerId, PathBuf)> = HashSet::new();
            for &w in self.by_sec.get(s).into_iter().flatten() {
                let r = &self.walks[w].eff;
                let server = r.server_id();
                for d in walk_dirs(r) {
                    if !seen.insert((server, d.clone())) {
                        continue;
                    }
                    let kinds = *judged.entry((server, d.clone())).or_insert_with(|| {
                        let f = allow_override::in_force(self.cfg, server, &d.to_string_lossy());
                        admits(&Overrides::parse(f.allow_override(ix), f.allow_override_list(ix)))
                    });
                    if kinds.0 || kinds.1 {
                        let e = found.entry(d).or_default();
                        e.0 |= kinds.0;
                        e.1 |= kinds.1;
                    }
                }
            }
            if found.is_empty() {
                continue;
            }
            let mut later = LaterHtaccess::default();
            for (d, (require, compat)) in &found {
                later.require |= require;
                later.compat |= compat;
                if !later.dirs.iter().any(|up| d.starts_with(up)) {
                    later.dirs.push(d.clone());
                }
            }
            out.insert(s, later);
        }
        out
    }
}
