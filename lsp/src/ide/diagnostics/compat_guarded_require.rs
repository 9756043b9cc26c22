//! Check: `Require` lines that apply only while mod_access_compat is loaded, because they
//! sit inside `<IfModule mod_access_compat.c>` (or `<IfModule access_compat_module>`, the
//! two names httpd's `<IfModule>` knows the module by). Migrating off Order/Allow/Deny leads
//! to unloading the module; httpd then skips the guard's body, and these lines with it: the
//! access they grant or deny silently goes. A warning on each, where the module is loaded
//! now (elsewhere the guard's body is not read at all). The loader keeps the guards' bodies
//! (`Config::compat_guarded`); a configuration without any pays one emptiness test.

use super::Diagnostic;
use crate::ide::config::{Config, FileId, Node, Severity};
use apache_syntax::{TextRange, TextSize};

/// What the warning says.
const MESSAGE: &str = "this Require applies only while mod_access_compat is loaded (it is inside <IfModule mod_access_compat.c>): unloading the module, which migrating off Order/Allow/Deny leads to, makes httpd skip it and the access it decides; write it outside the guard";

/// The guards' bodies, sorted and merged (nested guards are one), for lookups by position.
pub(super) struct Guards(Vec<(FileId, TextRange)>);

impl Guards {
    pub(super) fn new(cfg: &Config) -> Guards {
        let mut v = cfg.compat_guarded.clone();
        v.sort_by_key(|(f, r)| (*f, r.start()));
        let mut merged: Vec<(FileId, TextRange)> = Vec::with_capacity(v.len());
        for (f, r) in v {
            match merged.last_mut() {
                Some((lf, lr)) if *lf == f && r.start() <= lr.end() => *lr = lr.cover(r),
                _ => merged.push((f, r)),
            }
        }
        Guards(merged)
    }

    fn contains(&self, file: FileId, at: TextSize) -> bool {
        let i = self.0.partition_point(|(f, r)| (*f, r.start()) <= (file, at));
        i > 0 && self.0[i - 1].0 == file && self.0[i - 1].1.contains(at)
    }
}

/// The warning on `n` when it is a `Require` line in a guard's body.
pub(super) fn node(cfg: &Config, guards: &Guards, n: &Node, out: &mut Vec<Diagnostic>) {
    if guards.0.is_empty()
        || n.is_section()
        || n.known() != "Require"
        || !guards.contains(n.loc.file, n.loc.range.start())
    {
        return;
    }
    out.push(Diagnostic::new(n.loc.file, cfg.trimmed(&n.loc), Severity::Warning, "require-in-compat-guard", MESSAGE));
}
