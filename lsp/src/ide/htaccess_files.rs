//! Feature: the .htaccess files a configuration's server may read, for `check`: found by
//! scanning, within bounds, the directories it serves where an AllowOverride lets httpd read
//! them (or none applies: httpd 2.4 then reads them too, granting nothing), and the directories
//! its plain `<Directory>` sections open to overrides (not wildcard or regex ones: which
//! directories those reach is not known without a request). Built on the section index, so a tree of
//! thousands of virtual hosts costs a lookup per host, not a pass over the tree per host.

use crate::ide::access::wildcard_match;
use crate::ide::config::index::Scope;
use crate::ide::config::Config;
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many directories the scans read in all, and how deep each goes.
const MAX_DIRS: usize = 50_000;
const MAX_DEPTH: usize = 16;

/// The .htaccess files (by each server's AccessFileName) below the directories the
/// configuration serves, sorted. Symbolic links are not followed.
pub fn htaccess_files(cfg: &Config) -> Vec<PathBuf> {
    let ix = cfg.index();
    fn names_of<'a>(main: &'a Scope, scope: Option<&'a Scope>) -> Vec<&'a str> {
        match scope.and_then(|v| v.access_file_name.as_ref()).or(main.access_file_name.as_ref()) {
            Some(n) => n.iter().map(String::as_str).collect(),
            None => vec![".htaccess"],
        }
    }
    // Each directory to scan, with the file names its server reads.
    // (Keyed by the path's text: `Path` compares component by component, and a big tree has
    // tens of thousands of these.)
    // Each with the names its server reads, in AccessFileName's order (httpd takes the first found).
    let mut roots: HashMap<String, Vec<&str>> = HashMap::default();
    for vhost in std::iter::once(None).chain(ix.vhosts.iter().map(|v| Some(&v.scope))) {
        let scopes: Vec<&Scope> = std::iter::once(&ix.main).chain(vhost).collect();
        let names = names_of(&ix.main, vhost);
        let served = vhost
            .and_then(|v| v.document_root.as_deref())
            .or(ix.main.document_root.as_deref())
            .into_iter()
            .chain(scopes.iter().flat_map(|s| s.aliases[0].iter().chain(&s.aliases[1]).map(|(_, to)| to.as_str())));
        for dir in served {
            let dir = absolute(cfg, dir);
            if reads_htaccess(cfg, &scopes, &dir) {
                add_names(roots.entry(dir.to_string_lossy().into_owned()).or_default(), &names);
            }
        }
        // Directories its plain `<Directory>` sections open to overrides.
        for d in scopes.last().map_or(&[][..], |s| &s.dirs[..]) {
            if !d.wild
                && d.depth > 0
                && (ix.allow_override(d.id).is_some_and(grants) || ix.allow_override_list(d.id).is_some_and(grants))
            {
                add_names(roots.entry(d.path.clone()).or_default(), &names);
            }
        }
    }
    // A root inside another is scanned with it when the outer one looks for its names.
    let mut outer: Vec<(PathBuf, &Vec<&str>)> = Vec::new();
    for (r, names) in &roots {
        let mut up = r.as_str();
        let mut inside = false;
        while let Some((parent, _)) = up.rsplit_once('/') {
            if roots.get(parent).is_some_and(|n| names.iter().all(|m| n.contains(m))) {
                inside = true;
                break;
            }
            up = parent;
        }
        if !inside {
            outer.push((PathBuf::from(r), names));
        }
    }
    let budget = AtomicUsize::new(MAX_DIRS);
    let mut found: Vec<PathBuf> = outer.par_iter().flat_map_iter(|(root, names)| scan(root, names, &budget)).collect();
    found.sort();
    found.dedup();
    found
}

fn add_names<'a>(to: &mut Vec<&'a str>, names: &[&'a str]) {
    for n in names {
        if !to.contains(n) {
            to.push(n);
        }
    }
}

fn absolute(cfg: &Config, dir: &str) -> PathBuf {
    let p = Path::new(dir.trim_end_matches('/'));
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cfg.server_root.join(p)
    }
}

/// Whether httpd reads an .htaccess file in `dir` for a server of `scopes` (the main server's,
/// then its virtual host's): the AllowOverride of the deepest plain or wildcard `<Directory>`
/// holding one is not None, or none applies.
fn reads_htaccess(cfg: &Config, scopes: &[&Scope], dir: &Path) -> bool {
    let ix = cfg.index();
    let text = dir.to_string_lossy();
    let comps: Vec<&str> = text.split('/').filter(|c| !c.is_empty()).collect();
    let mut in_force: Option<&[String]> = None;
    let mut list: &[String] = &[];
    let mut prefix = String::from("/");
    for k in 0..=comps.len() {
        if k > 0 {
            if k > 1 {
                prefix.push('/');
            }
            prefix.push_str(comps[k - 1]);
        }
        for scope in scopes {
            for id in scope.dirs_at(k, &prefix, |pat, text| wildcard_match(pat, text, true)) {
                if let Some(ao) = ix.allow_override(id) {
                    in_force = Some(ao);
                }
                if let Some(l) = ix.allow_override_list(id) {
                    list = l;
                }
            }
        }
    }
    in_force.is_none_or(grants) || grants(list)
}

/// Whether an AllowOverride or AllowOverrideList line grants something.
fn grants(args: &[String]) -> bool {
    !args.iter().all(|a| a.eq_ignore_ascii_case("None"))
}

/// The files named `names` in `root` and below, depth first, while `budget` lasts.
fn scan(root: &Path, names: &[&str], budget: &AtomicUsize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        if budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1)).is_err() {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        // httpd reads the first of the names it finds in a directory, and only that one.
        let mut first: Option<(usize, PathBuf)> = None;
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && depth < MAX_DEPTH {
                stack.push((e.path(), depth + 1));
            } else if kind.is_file() {
                let rank = e.file_name().to_str().and_then(|n| names.iter().position(|m| *m == n));
                if let Some(rank) = rank.filter(|&r| first.as_ref().is_none_or(|(f, _)| r < *f)) {
                    first = Some((rank, e.path()));
                }
            }
        }
        found.extend(first.map(|(_, p)| p));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files found under a tree: where AllowOverride lets httpd read them, where none
    /// applies, below a section opening a directory to overrides; not where None is in force.
    #[test]
    fn found_where_httpd_may_read_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        for sub in ["open/a", "closed/b", "unset", "closed/opened/c", "vh"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
            std::fs::write(dir.path().join(sub).join(".htaccess"), "").unwrap();
        }
        std::fs::write(dir.path().join("vh/.acl"), "").unwrap();
        let conf = dir.path().join("httpd.conf");
        std::fs::write(
            &conf,
            format!(
                "DocumentRoot {root}/open\nAlias /c {root}/closed\nAlias /u {root}/unset\n\
<Directory {root}/open>\n  AllowOverride All\n</Directory>\n<Directory {root}/closed>\n  AllowOverride None\n</Directory>\n\
<Directory {root}/closed/opened>\n  AllowOverride AuthConfig\n</Directory>\n\
<VirtualHost *:80>\n  DocumentRoot {root}/vh\n  AccessFileName .acl\n</VirtualHost>\n"
            ),
        )
        .unwrap();
        let cfg = crate::ide::config::load(&conf, &crate::ide::config::RealFs);
        let found: Vec<String> =
            htaccess_files(&cfg).iter().map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string()).collect();
        // (The virtual host reads `.acl` in its document root.)
        assert_eq!(found, ["closed/opened/c/.htaccess", "open/a/.htaccess", "unset/.htaccess", "vh/.acl"]);
    }

    /// httpd reads the first of AccessFileName's names it finds in a directory, and only that;
    /// AllowOverrideList alone opens a directory too.
    #[test]
    fn first_name_found_and_override_list() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        for (sub, name) in [("www", ".htaccess"), ("www", ".acl"), ("www/b", ".htaccess"), ("listed", ".acl")] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
            std::fs::write(dir.path().join(sub).join(name), "").unwrap();
        }
        let conf = dir.path().join("httpd.conf");
        std::fs::write(
            &conf,
            format!(
                "DocumentRoot {root}/www\nAccessFileName .acl .htaccess\n<Directory />\n  AllowOverride None\n</Directory>\n\
<Directory {root}/www>\n  AllowOverride All\n</Directory>\n<Directory {root}/listed>\n  AllowOverrideList Require\n</Directory>\n"
            ),
        )
        .unwrap();
        let cfg = crate::ide::config::load(&conf, &crate::ide::config::RealFs);
        let found: Vec<String> =
            htaccess_files(&cfg).iter().map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string()).collect();
        assert_eq!(found, ["listed/.acl", "www/.acl", "www/b/.htaccess"]);
    }
}
