//! Group membership as mod_authz_groupfile reads it: each `AuthGroupFile` the configuration
//! names, read from disk (`group: user user …` lines; `groups_for_user` splits on blanks).

use crate::ide::config::{self, Config};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// user → the groups it belongs to, from every readable `AuthGroupFile` the configuration names
/// (relative paths under ServerRoot). Files that cannot be read add nothing.
pub fn group_memberships(cfg: &Config) -> BTreeMap<String, BTreeSet<String>> {
    let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut read: BTreeSet<PathBuf> = BTreeSet::new();
    for n in cfg.walk().filter(|n| n.is("AuthGroupFile")) {
        let Some(p) = n.args().next() else { continue };
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
