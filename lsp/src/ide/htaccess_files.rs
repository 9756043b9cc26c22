//! Feature: the .htaccess files a configuration's servers may read, for `check` and for the
//! editor's workspace index, each with the servers whose requests read it: found by scanning,
//! within bounds, the directories the main server and each virtual host serve (DocumentRoot,
//! `Alias`/`ScriptAlias` targets) where the AllowOverride in force under one of them lets httpd
//! read them (or none applies: httpd 2.4 then reads them too, granting nothing), and the
//! directories plain `<Directory>` sections open to overrides (not wildcard or regex ones: which
//! directories those reach is not known without a request). The main server counts only when
//! some request reaches it ([`main_server_answers`]).
//!
//! Symbolic links to directories are followed as httpd's directory walk follows them
//! (`server/request.c: resolve_symlink`): only where the `Options` in force for the directory
//! holding the link say FollowSymLinks, or SymLinksIfOwnerMatch with the link and its target
//! owned by the same user, for a server reading that directory (elsewhere httpd answers 403 and
//! never reads the .htaccess files behind the link); what is found behind a link is read by the
//! servers that follow it. Each target is scanned once per scan, and never one holding the
//! link. Built on the section index, so a tree of thousands of virtual hosts costs a lookup per
//! host, not a pass over the tree per host.

use crate::ide::access::symlinks::{follows_link, options_in_directory};
use crate::ide::allow_override::{
    absolute, access_file_names, at_or_below, in_force, main_server_answers, served_dirs, Readers,
};
use crate::ide::config::{Config, ServerId};
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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

/// Below a symbolic link, the servers whose walks followed every link on the way; None: no
/// link on the way.
type Through = Option<Arc<[ServerId]>>;

/// A directory holding access files: the names present, and [`Through`].
type Holding = (PathBuf, Vec<String>, Through);

/// Which of the servers a walk got to a directory with ([`Through`]; None: those reading it)
/// follow a symbolic link there: (directory, link, servers).
type Following<'a> = dyn Fn(&Path, &Path, &Through) -> Arc<[ServerId]> + Sync + 'a;

/// The .htaccess files (by each server's AccessFileName) below the directories the
/// configuration serves, sorted by path.
pub fn htaccess_files(cfg: &Config) -> Vec<Found> {
    let ix = cfg.index();
    // Each directory to scan, with the file names its servers read.
    // (Keyed by the path's text: `Path` compares component by component, and a big tree has
    // tens of thousands of these.)
    let mut roots: HashMap<String, Vec<&str>> = HashMap::default();
    let main = main_server_answers(cfg).then_some(ServerId::Main);
    let servers = main.into_iter().chain((0..ix.vhosts.len() as u32).map(ServerId::Vhost));
    for server in servers {
        let own = match server {
            ServerId::Vhost(v) => Some(&ix.vhosts[v as usize].scope),
            ServerId::Main => None,
        };
        let names = names_of(cfg, server);
        // (With the users' directories a file-system UserDir maps `/~user/` to, found on disk.)
        let served: Vec<String> = served_dirs(ix, server)
            .map(|dir| absolute(cfg, dir))
            .chain(crate::ide::access::user_directories(cfg, server))
            .collect();
        for dir in &served {
            if in_force(cfg, server, dir).reads_htaccess(ix) {
                add_names(roots.entry(dir.clone()).or_default(), names);
            }
        }
        use crate::ide::allow_override::grants;
        let opens = |d: &crate::ide::config::index::DirSection| {
            !d.wild
                && d.depth > 0
                && (ix.allow_override(d.id).is_some_and(grants) || ix.allow_override_list(d.id).is_some_and(grants))
        };
        // Directories its own plain `<Directory>` sections open to overrides.
        for d in own.unwrap_or(&ix.main).dirs.iter().filter(|d| opens(d)) {
            add_names(roots.entry(d.path.clone()).or_default(), names);
        }
        // For a virtual host, those the main server's sections open below a directory it
        // serves, where its own sections leave them open: its requests read them even when no
        // request reaches the main server (its own `<Directory>` for the same path, with no
        // AllowOverride, keeps the main server's).
        if own.is_some() {
            let below = |d: &str| served.iter().any(|s| at_or_below(d, s));
            for d in ix.main.dirs.iter().filter(|d| opens(d) && below(&d.path)) {
                if in_force(cfg, server, &d.path).reads_htaccess(ix) {
                    add_names(roots.entry(d.path.clone()).or_default(), names);
                }
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
    // Who reads each directory: made when first needed (a link met, or a file found), and
    // kept in the configuration's index for the checks that ask again.
    let readers = || Readers::of(cfg);
    // Which of `servers` (None: those reading `dir`) follow the link `link` in `dir`.
    let following = |dir: &Path, link: &Path, servers: &Through| -> Arc<[ServerId]> {
        let dir = dir.to_string_lossy();
        let candidates = match servers {
            Some(s) => s.to_vec(),
            None => readers().servers(&dir),
        };
        candidates.into_iter().filter(|&s| follows_link(&options_in_directory(cfg, s, &dir), link)).collect()
    };
    let budget = AtomicUsize::new(MAX_DIRS);
    let mut dirs: Vec<Holding> =
        outer.par_iter().flat_map_iter(|(root, names)| scan(root, names, &budget, &following)).collect();
    dirs.sort();
    dirs.dedup();
    if dirs.is_empty() {
        return Vec::new();
    }
    let readers = readers();
    let mut found: Vec<Found> = Vec::new();
    for (dir, present, through) in dirs {
        // Each server reads the first of its names there.
        let mut files: Vec<Found> = Vec::new();
        for server in readers.servers(&dir.to_string_lossy()) {
            if through.as_ref().is_some_and(|t| !t.contains(&server)) {
                continue;
            }
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
/// present there, depth first, while `budget` lasts. A symbolic link to a directory is
/// followed when `following` (the directory holding it, the link, the servers whose walks got
/// there) names a server that follows it; each target once, and not to a directory above the
/// link (a loop).
fn scan(root: &Path, names: &[&str], budget: &AtomicUsize, following: &Following) -> Vec<Holding> {
    let mut found = Vec::new();
    // The targets followed, the root's own included; made at the first link met (resolving the
    // root costs a system call per component, for every root of a tree of thousands of hosts).
    let mut followed: Option<HashSet<PathBuf>> = None;
    let mut stack: Vec<(PathBuf, usize, Through)> = vec![(root.to_path_buf(), 0, None)];
    while let Some((dir, depth, through)) = stack.pop() {
        if budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1)).is_err() {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut present: Vec<String> = Vec::new();
        let mut here: Option<PathBuf> = None;
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && depth < MAX_DEPTH {
                stack.push((e.path(), depth + 1, through.clone()));
            } else if kind.is_symlink() && depth < MAX_DEPTH {
                // A link to a directory: httpd walks it under the link's path, where the options
                // in force let it.
                let Ok(target) = std::fs::canonicalize(e.path()) else { continue };
                if !target.is_dir() {
                    if let Some(n) = e.file_name().to_str().filter(|n| names.contains(n)) {
                        present.push(n.to_string()); // a link to a file is read as the file
                    }
                    continue;
                }
                let here = here.get_or_insert_with(|| std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone()));
                let followed = followed.get_or_insert_with(|| std::fs::canonicalize(root).into_iter().collect());
                if here.starts_with(&target) || followed.contains(&target) {
                    continue;
                }
                let servers = following(&dir, &e.path(), &through);
                if !servers.is_empty() {
                    followed.insert(target);
                    stack.push((e.path(), depth + 1, Some(servers)));
                }
            } else if kind.is_file() {
                if let Some(n) = e.file_name().to_str().filter(|n| names.contains(n)) {
                    present.push(n.to_string());
                }
            }
        }
        if !present.is_empty() {
            found.push((dir, present, through));
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

    /// Each file with its servers, relative to `root`.
    fn found_with_servers(root: &Path, conf: &Path) -> Vec<String> {
        let cfg = crate::ide::config::load(conf, &crate::ide::config::RealFs);
        htaccess_files(&cfg)
            .iter()
            .map(|f| format!("{} {:?}", f.path.strip_prefix(root).unwrap().display(), f.servers))
            .collect()
    }

    /// A link is followed only where the Options in force for the directory holding it let
    /// httpd's walk follow it, for the servers whose Options do: the main server's
    /// `-FollowSymLinks` below `nofollow` hides what is behind its link there, a virtual host
    /// that sets FollowSymLinks there reads it; SymLinksIfOwnerMatch follows a link owned as
    /// its target is.
    #[test]
    fn links_followed_where_options_allow() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        for t in ["t1", "t2", "t3"] {
            std::fs::create_dir_all(dir.path().join(t)).unwrap();
            std::fs::write(dir.path().join(t).join(".htaccess"), "").unwrap();
        }
        for sub in ["www/follow", "www/nofollow", "www/owner"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::os::unix::fs::symlink(dir.path().join("t1"), dir.path().join("www/follow/l")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("t2"), dir.path().join("www/nofollow/l")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("t3"), dir.path().join("www/owner/l")).unwrap();
        let conf = dir.path().join("httpd.conf");
        let body = format!(
            "DocumentRoot {root}/www\n<Directory {root}/www/nofollow>\n  Options -FollowSymLinks\n</Directory>\n\
<Directory {root}/www/owner>\n  Options SymLinksIfOwnerMatch\n</Directory>\n"
        );
        std::fs::write(&conf, &body).unwrap();
        assert_eq!(
            found_with_servers(dir.path(), &conf),
            ["www/follow/l/.htaccess [Main]", "www/owner/l/.htaccess [Main]"]
        );
        // A virtual host on another port serving the same tree, following links there.
        std::fs::write(
            &conf,
            format!(
                "{body}Listen 80\nListen 8080\n<VirtualHost *:8080>\n  <Directory {root}/www/nofollow>\n    Options +FollowSymLinks\n  </Directory>\n</VirtualHost>\n"
            ),
        )
        .unwrap();
        assert_eq!(
            found_with_servers(dir.path(), &conf),
            [
                "www/follow/l/.htaccess [Main, Vhost(0)]",
                "www/nofollow/l/.htaccess [Vhost(0)]",
                "www/owner/l/.htaccess [Main, Vhost(0)]"
            ]
        );
    }

    /// Users' directories a file-system UserDir maps `/~user/` to are found by listing the
    /// directory the entry names (never by looking users up): read where the wildcard
    /// `<Directory>` opens them, by the servers whose UserDir names them, not for users it
    /// disables; none without mod_userdir.
    #[test]
    fn user_directories_through_userdir() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        for user in ["alice", "bob", "carol"] {
            let d = dir.path().join(format!("home/{user}/public_html/sub"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join(".htaccess"), "").unwrap();
        }
        std::fs::create_dir_all(dir.path().join("www")).unwrap();
        let conf = dir.path().join("httpd.conf");
        let body = format!(
            "DocumentRoot {root}/www\nUserDir {root}/home/*/public_html\nUserDir disabled carol\n\
<Directory {root}/home/*/public_html>\n  AllowOverride All\n</Directory>\n"
        );
        std::fs::write(&conf, format!("LoadModule userdir_module m\n{body}")).unwrap();
        assert_eq!(
            found_with_servers(dir.path(), &conf),
            ["home/alice/public_html/sub/.htaccess [Main]", "home/bob/public_html/sub/.htaccess [Main]"]
        );
        std::fs::write(&conf, &body).unwrap();
        assert!(found_with_servers(dir.path(), &conf).is_empty());
    }

    /// The main server reads an .htaccess file only when some request reaches it: not when
    /// virtual hosts take every address and port httpd listens on.
    #[test]
    fn main_server_only_when_some_listen_has_no_virtual_host() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        for sub in ["main", "a", "b"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
            std::fs::write(dir.path().join(sub).join(".htaccess"), "").unwrap();
        }
        let conf = dir.path().join("httpd.conf");
        let hosts = format!(
            "<VirtualHost *:80>\n  DocumentRoot {root}/a\n</VirtualHost>\n<VirtualHost *:80>\n  DocumentRoot {root}/b\n</VirtualHost>\n"
        );
        let found = |listen: &str| {
            std::fs::write(&conf, format!("DocumentRoot {root}/main\n{listen}{hosts}")).unwrap();
            found_with_servers(dir.path(), &conf)
        };
        let hosts_only = ["a/.htaccess [Vhost(0)]", "b/.htaccess [Vhost(1)]"];
        assert_eq!(found("Listen 80\n"), hosts_only);
        assert_eq!(found("Listen 127.0.0.1:80\nListen [::1]:80\n"), hosts_only);
        // A port no virtual host takes, or an address a host set for another one leaves.
        let with_main = ["a/.htaccess [Vhost(0)]", "b/.htaccess [Vhost(1)]", "main/.htaccess [Main]"];
        assert_eq!(found("Listen 80\nListen 8080\n"), with_main);
        std::fs::write(
            &conf,
            format!("DocumentRoot {root}/main\nListen 80\n<VirtualHost 127.0.0.1:80>\n  DocumentRoot {root}/a\n</VirtualHost>\n"),
        )
        .unwrap();
        assert_eq!(found_with_servers(dir.path(), &conf), ["a/.htaccess [Vhost(0)]", "main/.htaccess [Main]"]);
    }
}
