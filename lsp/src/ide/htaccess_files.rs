//! Feature: the .htaccess files a configuration's servers may read, for `check`, each with the
//! servers whose requests read it: found by scanning, within bounds, the directories the main
//! server and each virtual host serve (DocumentRoot, `Alias`/`ScriptAlias` targets) where the
//! AllowOverride in force under one of them lets httpd read them (or none applies: httpd 2.4
//! then reads them too, granting nothing), and the directories plain `<Directory>` sections
//! open to overrides (not wildcard or regex ones: which directories those reach is not known
//! without a request). Symbolic links to directories are followed (httpd follows them under
//! `Options FollowSymLinks`, its default, and reads the .htaccess files under the link's path),
//! each target once per scan and never one holding the link. Built on the section index, so a
//! tree of thousands of virtual hosts costs a lookup per host, not a pass over the tree per host.

use crate::ide::allow_override::{absolute, access_file_names, in_force, Readers};
use crate::ide::config::{Config, ServerId};
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many directories the scans read in all, and how deep each goes.
const MAX_DIRS: usize = 50_000;
const MAX_DEPTH: usize = 16;

/// An .htaccess file found, and the servers whose requests read it (those serving its
/// directory whose AccessFileName picks it there: [`Readers::servers`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub servers: Vec<ServerId>,
}

static DEFAULT_NAMES: std::sync::LazyLock<[String; 1]> = std::sync::LazyLock::new(|| [".htaccess".to_string()]);

/// The names `server` reads, in AccessFileName's order (httpd takes the first found).
fn names_of(cfg: &Config, server: ServerId) -> &[String] {
    access_file_names(cfg.index(), server).unwrap_or(&DEFAULT_NAMES[..])
}

/// The .htaccess files (by each server's AccessFileName) below the directories the
/// configuration serves, sorted by path.
pub fn htaccess_files(cfg: &Config) -> Vec<Found> {
    let ix = cfg.index();
    // Each directory to scan, with the file names its servers read.
    // (Keyed by the path's text: `Path` compares component by component, and a big tree has
    // tens of thousands of these.)
    let mut roots: HashMap<String, Vec<&str>> = HashMap::default();
    let servers = std::iter::once(ServerId::Main).chain((0..ix.vhosts.len() as u32).map(ServerId::Vhost));
    for server in servers {
        let own = match server {
            ServerId::Vhost(v) => Some(&ix.vhosts[v as usize].scope),
            ServerId::Main => None,
        };
        let names = names_of(cfg, server);
        let served =
            own.and_then(|v| v.document_root.as_deref()).or(ix.main.document_root.as_deref()).into_iter().chain(
                server.scopes(ix).flat_map(|s| s.aliases[0].iter().chain(&s.aliases[1]).map(|(_, to)| to.as_str())),
            );
        for dir in served {
            let dir = absolute(cfg, dir);
            if in_force(cfg, server, &dir).reads_htaccess(ix) {
                add_names(roots.entry(dir).or_default(), names);
            }
        }
        // Directories its own plain `<Directory>` sections open to overrides.
        for d in own.unwrap_or(&ix.main).dirs.iter() {
            use crate::ide::allow_override::grants;
            if !d.wild
                && d.depth > 0
                && (ix.allow_override(d.id).is_some_and(grants) || ix.allow_override_list(d.id).is_some_and(grants))
            {
                add_names(roots.entry(d.path.clone()).or_default(), names);
            }
        }
    }
    // A root inside another is scanned with it when the outer one looks for its names.
    let mut outer: Vec<(PathBuf, &Vec<&str>)> = Vec::new();
    for (r, names) in &roots {
        let mut up = r.as_str();
        let mut inside = false;
        while let Some((parent, _)) = up.rsplit_once('/') {
            let parent = if parent.is_empty() { "/" } else { parent };
            if parent != up && roots.get(parent).is_some_and(|n| names.iter().all(|m| n.contains(m))) {
                inside = true;
                break;
            }
            if parent == "/" {
                break;
            }
            up = parent;
        }
        if !inside {
            outer.push((PathBuf::from(r), names));
        }
    }
    let budget = AtomicUsize::new(MAX_DIRS);
    let mut dirs: Vec<(PathBuf, Vec<String>)> =
        outer.par_iter().flat_map_iter(|(root, names)| scan(root, names, &budget)).collect();
    dirs.sort();
    dirs.dedup();
    if dirs.is_empty() {
        return Vec::new();
    }
    let readers = Readers::new(cfg);
    let mut found: Vec<Found> = Vec::new();
    for (dir, present) in dirs {
        // Each server reads the first of its names there.
        let mut files: Vec<Found> = Vec::new();
        for server in readers.servers(&dir.to_string_lossy()) {
            let Some(name) = names_of(cfg, server).iter().find(|n| present.contains(n)) else { continue };
            let path = dir.join(name);
            match files.iter_mut().find(|f| f.path == path) {
                Some(f) => f.servers.push(server),
                None => files.push(Found { path, servers: vec![server] }),
            }
        }
        found.extend(files);
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

fn add_names<'a>(to: &mut Vec<&'a str>, names: &'a [String]) {
    for n in names {
        if !to.contains(&n.as_str()) {
            to.push(n);
        }
    }
}

/// The directories in `root` and below holding files named `names`, each with the names
/// present there, depth first, while `budget` lasts. Symbolic links to directories are
/// followed, each target once, and not to a directory above the link (a loop).
fn scan(root: &Path, names: &[&str], budget: &AtomicUsize) -> Vec<(PathBuf, Vec<String>)> {
    let mut found = Vec::new();
    // The targets followed, the root's own included; made at the first link met (resolving the
    // root costs a system call per component, for every root of a tree of thousands of hosts).
    let mut followed: Option<HashSet<PathBuf>> = None;
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        if budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1)).is_err() {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut present: Vec<String> = Vec::new();
        let mut here: Option<PathBuf> = None;
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && depth < MAX_DEPTH {
                stack.push((e.path(), depth + 1));
            } else if kind.is_symlink() && depth < MAX_DEPTH {
                // A link to a directory: httpd walks it under the link's path.
                let Ok(target) = std::fs::canonicalize(e.path()) else { continue };
                if !target.is_dir() {
                    if let Some(n) = e.file_name().to_str().filter(|n| names.contains(n)) {
                        present.push(n.to_string()); // a link to a file is read as the file
                    }
                    continue;
                }
                let here = here.get_or_insert_with(|| std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone()));
                let followed = followed.get_or_insert_with(|| std::fs::canonicalize(root).into_iter().collect());
                if !here.starts_with(&target) && followed.insert(target) {
                    stack.push((e.path(), depth + 1));
                }
            } else if kind.is_file() {
                if let Some(n) = e.file_name().to_str().filter(|n| names.contains(n)) {
                    present.push(n.to_string());
                }
            }
        }
        if !present.is_empty() {
            found.push((dir, present));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files [`htaccess_files`] finds for the main configuration `conf`, relative to `root`.
    fn found_below(root: &Path, conf: &Path) -> Vec<String> {
        let cfg = crate::ide::config::load(conf, &crate::ide::config::RealFs);
        htaccess_files(&cfg).iter().map(|f| f.path.strip_prefix(root).unwrap().display().to_string()).collect()
    }

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
        let found = found_below(dir.path(), &conf);
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
        let found = found_below(dir.path(), &conf);
        assert_eq!(found, ["listed/.acl", "www/.acl", "www/b/.htaccess"]);
    }

    /// Each file with the servers that read it: the AccessFileName of each decides which file
    /// of a directory it reads; a symbolic link to a directory is scanned under its own path
    /// (httpd walks it there), and a link back up is not followed.
    #[test]
    fn servers_per_file_and_symbolic_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        for (sub, name) in [("shared", ".htaccess"), ("shared", ".acl"), ("real/inner", ".htaccess")] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
            std::fs::write(dir.path().join(sub).join(name), "").unwrap();
        }
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("shared/linked")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("shared"), dir.path().join("real/inner/up")).unwrap();
        let conf = dir.path().join("httpd.conf");
        std::fs::write(
            &conf,
            format!(
                "DocumentRoot {root}/shared\n<VirtualHost *:80>\n  ServerName a.test\n  AccessFileName .acl\n</VirtualHost>\n\
<VirtualHost *:80>\n  ServerName b.test\n</VirtualHost>\n"
            ),
        )
        .unwrap();
        let cfg = crate::ide::config::load(&conf, &crate::ide::config::RealFs);
        let found: Vec<String> = htaccess_files(&cfg)
            .iter()
            .map(|f| format!("{} {:?}", f.path.strip_prefix(dir.path()).unwrap().display(), f.servers))
            .collect();
        assert_eq!(
            found,
            [
                "shared/.acl [Vhost(0)]",
                "shared/.htaccess [Main, Vhost(1)]",
                "shared/linked/inner/.htaccess [Main, Vhost(1)]",
            ]
        );
    }
}
