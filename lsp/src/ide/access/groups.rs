//! Group membership as mod_authz_groupfile reads it: the `AuthGroupFile` in effect, read from
//! disk (`group: user user …` lines; `groups_for_user` splits on blanks).

use crate::ide::config::{self, Config};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// user → the groups it belongs to in the group files `files` names (as written, relative to
/// ServerRoot when relative) and no others: the AuthGroupFile in effect for the requests at
/// hand, which are all httpd reads for them. (Reading every file the configuration names instead
/// meant walking all of it: a hover in a 10 000-host configuration spent most of its time there.)
pub fn group_memberships_in<'a>(
    cfg: &Config,
    files: impl Iterator<Item = &'a str>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut read: BTreeSet<PathBuf> = BTreeSet::new();
    for p in files {
        let p = if Path::new(p).is_absolute() { PathBuf::from(p) } else { cfg.server_root.join(p) };
        if !read.insert(p.clone()) {
            continue;
        }
        for (user, of) in memberships_in(&p).unwrap_or_default() {
            groups.entry(user).or_default().extend(of);
        }
    }
    groups
}

/// user → the groups it belongs to in the group file at `path`; None when it cannot be read.
pub fn memberships_in(path: &Path) -> Option<BTreeMap<String, BTreeSet<String>>> {
    let bytes = config::read_regular(path).ok()?;
    let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&bytes).lines() {
        if let Some((g, users)) = line.split_once(':') {
            for u in users.split_whitespace() {
                groups.entry(u.to_string()).or_default().insert(g.trim().to_string());
            }
        }
    }
    Some(groups)
}
