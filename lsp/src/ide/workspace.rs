//! Which configuration a file belongs to: the main configurations ("roots")
//! found in the workspace folders, the include graph of each, the
//! directories each one serves (where its `.htaccess` files live), and the
//! `.htaccess` files found there as `check` finds them (within the same bounds),
//! scanned when first asked for and again after one was created or deleted.
//!
//! A file opened on its own (a `sites-enabled/*.conf` fragment, a `conf.d`
//! snippet) is analysed in the tree of the first root whose Include graph
//! reaches it; an `.htaccess` file under the root that serves its directory
//! (a DocumentRoot, an Alias target or a `<Directory>` at or above it). An
//! explicitly configured root is tried first. Files that no root reaches are
//! loaded alone, so workspace symbols still list their sections.
//!
//! Invariants: the folder walk is bounded (depth, entry count) and skips VCS,
//! build and dependency directories; symbolic links are compared by their
//! targets (Debian's `sites-enabled` entries are links into `sites-available`);
//! nothing here knows the protocol — progress is reported through a callback.

use crate::ide::config::{self, Config, FileId, FileSource};
use crate::ide::workspace_symbols::{self, Symbol};
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// How deep the folder walk goes, and how many entries it looks at in all.
const MAX_DEPTH: usize = 16;
const MAX_ENTRIES: usize = 100_000;
/// How many files no root reaches are loaded alone for symbols.
const MAX_LOOSE_FILES: usize = 5_000;

/// A main configuration and what it reaches.
#[derive(Debug)]
pub struct Root {
    pub main: PathBuf,
    pub cfg: Arc<Config>,
    /// Every file of its tree, as the loader named it and with links resolved.
    files: HashSet<PathBuf>,
    /// Directories whose `.htaccess` files httpd may read for it.
    served: Vec<PathBuf>,
    /// The names of its access files (every `AccessFileName`'s, else `.htaccess`).
    access_names: Vec<String>,
    /// The .htaccess files below the directories it serves, as `check` finds them
    /// ([`htaccess_files`](crate::ide::htaccess_files::htaccess_files)), once scanned (None
    /// before, and after one was created or deleted), and a count of the changes seen to them.
    htaccess: std::sync::Mutex<(u64, Option<Arc<[PathBuf]>>)>,
}

impl Root {
    pub fn new(main: PathBuf, cfg: Config) -> Root {
        let mut files = HashSet::new();
        for f in &cfg.files {
            files.insert(f.path.to_path_buf());
            if let Ok(c) = std::fs::canonicalize(&f.path) {
                files.insert(c);
            }
        }
        let served = served_directories(&cfg);
        let access_names = access_file_names(&cfg);
        Root { main, cfg: Arc::new(cfg), files, served, access_names, htaccess: Default::default() }
    }

    /// Whether the tree reads `path` (under this name or another link to it).
    pub fn reaches(&self, path: &Path) -> bool {
        self.files.contains(path) || std::fs::canonicalize(path).is_ok_and(|c| self.files.contains(&c))
    }

    /// Whether `path` is an access file (`.htaccess`, or the AccessFileName) in a directory this root serves.
    pub fn serves_access_file(&self, path: &Path) -> bool {
        self.named_as_access_file(path)
            && path.parent().is_some_and(|dir| self.served.iter().any(|s| dir.starts_with(s)))
    }

    /// Whether `path` is named as its access files are.
    fn named_as_access_file(&self, path: &Path) -> bool {
        let name = path.file_name().map(|n| n.to_string_lossy());
        name.is_some_and(|n| self.access_names.iter().any(|a| *a == n))
    }

    /// Whether `path` is an access file it serves ([`Root::serves_access_file`]) or one of
    /// those it found ([`Root::htaccess`], reached through a symbolic link).
    pub fn has_access_file(&self, path: &Path) -> bool {
        self.named_as_access_file(path)
            && (self.serves_access_file(path) || {
                let h = self.htaccess.lock().unwrap_or_else(|e| e.into_inner());
                h.1.as_ref().is_some_and(|found| found.iter().any(|p| p == path))
            })
    }

    /// The .htaccess files found below the directories it serves, scanned in `cfg` (its main
    /// configuration as loaded, whose section index the scan builds on: the caller's analysis
    /// has one) when not scanned yet, with the count of changes seen to them (it grows with
    /// each: a caller keeping what it made of them compares it).
    pub fn htaccess(&self, cfg: &Config) -> (u64, Arc<[PathBuf]>) {
        let mut h = self.htaccess.lock().unwrap_or_else(|e| e.into_inner());
        let found =
            h.1.get_or_insert_with(|| {
                crate::ide::htaccess_files::htaccess_files(cfg).into_iter().map(|f| f.path).collect()
            })
            .clone();
        (h.0, found)
    }

    /// Access files changed on disk: one created or deleted (`created_or_deleted`) makes the
    /// next [`Root::htaccess`] scan again; a change to one it found or serves counts as a
    /// change. Returns whether any concerned it.
    pub fn htaccess_changed(&self, changed: &[PathBuf], created_or_deleted: bool) -> bool {
        if !changed.iter().any(|p| self.has_access_file(p)) {
            return false;
        }
        let mut h = self.htaccess.lock().unwrap_or_else(|e| e.into_inner());
        h.0 += 1;
        if created_or_deleted {
            h.1 = None;
        }
        true
    }
}

/// The names of a configuration's access files: every AccessFileName's, else `.htaccess`.
fn access_file_names(cfg: &Config) -> Vec<String> {
    let mut names: Vec<String> =
        cfg.walk().filter(|n| n.is("AccessFileName")).flat_map(|n| n.args()).map(str::to_string).collect();
    if names.is_empty() {
        names.push(".htaccess".to_string());
    }
    names.sort();
    names.dedup();
    names
}

/// The roots and loose files of the workspace.
#[derive(Debug, Default)]
pub struct Workspace {
    /// In order of preference: the configured root first.
    pub roots: Vec<Root>,
    /// Configuration files no root reaches, each loaded alone.
    pub loose: Vec<Arc<Config>>,
}

/// What indexing is doing, for a progress report.
#[derive(Debug, Clone)]
pub enum Progress {
    Scanning(PathBuf),
    Loading {
        done: usize,
        total: usize,
        path: PathBuf,
    },
    /// Loading, each alone, the configuration files no root reaches.
    LoadingLoose(usize),
}

impl Workspace {
    /// The root `path` belongs to: its tree reaches it, or it is an access file in a
    /// directory the root serves.
    pub fn root_for(&self, path: &Path) -> Option<&Root> {
        self.roots.iter().find(|r| r.reaches(path)).or_else(|| self.roots.iter().find(|r| r.serves_access_file(path)))
    }

    /// Every symbol of every root and loose file, each written place once.
    pub fn symbols(&self) -> Vec<Symbol> {
        let mut seen = HashSet::new();
        self.roots
            .iter()
            .map(|r| &r.cfg)
            .chain(&self.loose)
            .flat_map(|c| workspace_symbols::symbols(c))
            .filter(|s| seen.insert((s.file.path.clone(), s.focus_range, s.name.clone())))
            .collect()
    }

    /// Whether a change to `path` on disk can change an analysis: a file of a tree,
    /// an access file a root serves, or anything that looks like configuration.
    pub fn affected_by(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| r.reaches(path) || r.serves_access_file(path))
            || self.loose.iter().any(|c| c.file_id(path).is_some())
            || looks_like_configuration(path)
    }

    /// Access files changed on disk ([`Root::htaccess_changed`], for each root); whether any
    /// root was concerned.
    pub fn htaccess_changed(&self, changed: &[PathBuf], created_or_deleted: bool) -> bool {
        let mut any = false;
        for r in &self.roots {
            any |= r.htaccess_changed(changed, created_or_deleted);
        }
        any
    }

    /// Whether changes to these files can change the index itself. Access files never
    /// do: httpd reads them per request, and so does the analysis.
    pub fn needs_reindex(&self, changed: &[PathBuf]) -> bool {
        changed.iter().any(|p| !is_access_file(p) && self.affected_by(p))
    }
}

/// Indexes the workspace: finds the roots in `folders` (plus `explicit`, first),
/// loads each, and loads alone the configuration files none reaches.
pub fn index(
    folders: &[PathBuf],
    explicit: Option<&Path>,
    fs: &dyn FileSource,
    progress: &mut dyn FnMut(Progress),
) -> Workspace {
    let mut candidates = Vec::new();
    let mut budget = MAX_ENTRIES;
    for f in folders {
        progress(Progress::Scanning(f.clone()));
        walk(f, 0, &mut budget, &mut candidates);
    }
    candidates.sort();
    candidates.dedup();
    let mut mains: Vec<PathBuf> =
        candidates.iter().filter(|p| has_main_name(p) || (is_conf(p) && is_main_config(p, fs))).cloned().collect();
    // Conventional names first, then shallower paths.
    mains.sort_by_key(|p| (!has_main_name(p), p.components().count(), p.clone()));
    if let Some(e) = explicit {
        mains.retain(|p| p != e);
        mains.insert(0, e.to_path_buf());
    }
    let total = mains.len();
    let mut roots: Vec<Root> = Vec::new();
    for (i, main) in mains.into_iter().enumerate() {
        progress(Progress::Loading { done: i, total, path: main.clone() });
        // A main-looking file another root includes is part of that tree, not a root.
        if Some(main.as_path()) != explicit && roots.iter().any(|r| r.reaches(&main)) {
            continue;
        }
        let cfg = config::load(&main, fs);
        let root = Root::new(main, cfg);
        // An earlier candidate this one includes stops being a root of its own.
        roots.retain(|r| Some(r.main.as_path()) == explicit || !root.reaches(&r.main));
        roots.push(root);
    }
    let loose: Vec<&PathBuf> = candidates
        .iter()
        .filter(|p| !is_access_file(p) && !roots.iter().any(|r| r.reaches(p)))
        .take(MAX_LOOSE_FILES)
        .collect();
    if !loose.is_empty() {
        progress(Progress::LoadingLoose(loose.len()));
    }
    let loose = loose.into_iter().map(|p| Arc::new(config::load_fragment(p, fs))).collect();
    Workspace { roots, loose }
}

fn walk(dir: &Path, depth: usize, budget: &mut usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // Not followed into linked directories (loops); linked files are kept.
        let is_dir = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
        if is_dir {
            if !(name.starts_with('.') || matches!(name.as_str(), "node_modules" | "target" | "__pycache__")) {
                walk(&p, depth + 1, budget, out);
            }
        } else if looks_like_configuration(&p) {
            out.push(p);
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

/// Whether `path` is named as httpd's main configurations are (`httpd.conf`, `apache2.conf`).
fn has_main_name(path: &Path) -> bool {
    matches!(file_name(path).as_str(), "httpd.conf" | "apache2.conf")
}

/// The directories Debian's and Red Hat's layouts include wholesale.
const INCLUDED_WHOLESALE: &[&str] =
    &["sites-enabled", "sites-available", "conf-enabled", "conf-available", "conf.d", "conf.modules.d"];

/// Whether `path` lies in a directory a packaged layout includes wholesale (those of
/// [`INCLUDED_WHOLESALE`], and Debian's `mods-enabled`/`mods-available`): a fragment, whatever
/// it holds (Red Hat's `conf.d/wsgi.conf` and `conf.modules.d/*.conf` load modules).
fn in_included_directory(path: &Path) -> bool {
    let parent = path.parent().map(file_name).unwrap_or_default();
    INCLUDED_WHOLESALE.contains(&parent.as_str()) || parent.starts_with("mods-")
}

fn is_conf(path: &Path) -> bool {
    file_name(path).ends_with(".conf")
}

/// Whether `path` is named like an access file (`.htaccess`, `foo.htaccess`, `htaccess.txt`).
pub fn is_access_file(path: &Path) -> bool {
    file_name(path).contains("htaccess")
}

/// A file the walk keeps: `*.conf`, access files, and anything in the directories
/// Debian and Red Hat include wholesale (`sites-enabled/`, `conf.d/`…).
pub fn looks_like_configuration(path: &Path) -> bool {
    let parent = path.parent().map(file_name).unwrap_or_default();
    is_conf(path) || is_access_file(path) || INCLUDED_WHOLESALE.contains(&parent.as_str())
}

/// A main configuration by name, or by content: it sets ServerRoot, or it loads modules and
/// does not lie where packaged layouts keep included fragments (`conf.d`, `sites-*`, `mods-*`…).
pub fn is_main_config(path: &Path, fs: &dyn FileSource) -> bool {
    if has_main_name(path) {
        return true;
    }
    if is_access_file(path) {
        return false;
    }
    let fragment_place = in_included_directory(path);
    fs.read(path)
        .map(|(t, _)| {
            t.lines().any(|l| {
                let l = l.trim_start().to_ascii_lowercase();
                (l.starts_with("loadmodule ") && !fragment_place) || l.starts_with("serverroot ")
            })
        })
        .unwrap_or(false)
}

/// Whether `path` is named like the server's access files (`AccessFileName`, default `.htaccess`).
pub fn is_access_file_name(cfg: &Config, path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    access_file_names(cfg).contains(&name)
}

/// The file of `cfg` that `path` names, directly or through a symbolic link.
pub fn find_file(cfg: &Config, path: &Path) -> Option<FileId> {
    cfg.file_id(path).or_else(|| {
        let want = std::fs::canonicalize(path).ok()?;
        cfg.file_by_canonical_path(&want)
    })
}

/// Directories where httpd may read access files for this configuration: every
/// DocumentRoot and Alias target, and every `<Directory>` that allows overrides.
fn served_directories(cfg: &Config) -> Vec<PathBuf> {
    let abs = |p: &str| {
        let p = Path::new(p);
        normalize(&if p.is_absolute() { p.to_path_buf() } else { cfg.server_root.join(p) })
    };
    let mut out = Vec::new();
    for n in cfg.walk() {
        if !n.is_section() && n.is("DocumentRoot") {
            out.extend(n.args().first().map(&abs));
        } else if !n.is_section() && (n.is("Alias") || n.is("ScriptAlias")) {
            out.extend(n.args().last().map(&abs));
        } else if n.is_section() && n.is("Directory") && n.args().len() == 1 {
            let allows = n
                .children
                .iter()
                .rev()
                .find(|c| c.is("AllowOverride"))
                .is_some_and(|c| !c.args().all(|a| a.eq_ignore_ascii_case("None")));
            if allows {
                // A wildcard pattern (`/srv/*/htdocs`) serves directories below its literal part.
                let pat = n.arg(0).unwrap_or_default();
                let literal: Vec<&str> = pat.split('/').take_while(|c| !c.contains(['*', '?', '['])).collect();
                out.push(abs(&literal.join("/")));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `.` and `..` resolved lexically, trailing slashes dropped.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::RealFs;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (p, text) in files {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    fn rel(root: &Path, p: &Path) -> String {
        p.strip_prefix(root).unwrap_or(p).display().to_string()
    }

    /// Which files are main configurations: by name, by ServerRoot, or by LoadModule outside
    /// the directories packaged layouts include wholesale (round 17 T17 F1: Red Hat's
    /// `conf.d/wsgi.conf` loads its module and is a fragment all the same).
    #[test]
    fn modules_loaded_in_an_included_directory_make_no_main_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let load = "LoadModule wsgi_module modules/mod_wsgi.so\n";
        write(
            root,
            &[
                ("conf/httpd.conf", "# nothing\n"),
                ("custom.conf", load),
                ("rooted.conf", "ServerRoot /etc/httpd\n"),
                ("conf.d/wsgi.conf", load),
                ("conf.modules.d/00-base.conf", load),
                ("mods-enabled/wsgi.load", load),
                ("sites-available/app.conf", load),
                ("conf.d/rooted.conf", "ServerRoot /etc/httpd\n"),
                ("conf.d/.htaccess", load),
            ],
        );
        let paths = [
            "conf/httpd.conf",
            "custom.conf",
            "rooted.conf",
            "conf.d/wsgi.conf",
            "conf.modules.d/00-base.conf",
            "mods-enabled/wsgi.load",
            "sites-available/app.conf",
            "conf.d/rooted.conf",
            "conf.d/.htaccess",
        ];
        let (main, fragment): (Vec<&str>, Vec<&str>) =
            paths.iter().partition(|p| is_main_config(&root.join(p), &RealFs));
        let main: Vec<String> =
            fragment.iter().map(|p| format!("-{p}")).chain(main.iter().map(|p| format!("+{p}"))).collect();
        expect_test::expect![[r#"
            [
                "-conf.d/wsgi.conf",
                "-conf.modules.d/00-base.conf",
                "-mods-enabled/wsgi.load",
                "-sites-available/app.conf",
                "-conf.d/.htaccess",
                "+conf/httpd.conf",
                "+custom.conf",
                "+rooted.conf",
                "+conf.d/rooted.conf",
            ]
        "#]]
        .assert_debug_eq(&main);
    }

    #[test]
    fn fragment_is_found_in_the_root_that_includes_it_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wörk");
        write(
            &root,
            &[
                ("apache2/apache2.conf", "ServerRoot \"ROOT/apache2\"\nIncludeOptional sites-enabled/*.conf\n"),
                ("apache2/sites-available/ünï.conf", "<VirtualHost *:80>\nServerName ünï.example\n</VirtualHost>\n"),
                ("apache2/sites-available/off.conf", "<VirtualHost *:80>\nServerName off.example\n</VirtualHost>\n"),
                ("other/notes.txt", "not configuration\n"),
                (".git/config.conf", "ServerRoot /nope\n"),
            ],
        );
        let main = root.join("apache2/apache2.conf");
        let text = std::fs::read_to_string(&main).unwrap().replace("ROOT", &root.to_string_lossy());
        std::fs::write(&main, text).unwrap();
        std::fs::create_dir_all(root.join("apache2/sites-enabled")).unwrap();
        std::os::unix::fs::symlink("../sites-available/ünï.conf", root.join("apache2/sites-enabled/ünï.conf")).unwrap();

        let mut steps = Vec::new();
        let ws = index(std::slice::from_ref(&root), None, &RealFs, &mut |p| steps.push(format!("{p:?}")));
        assert_eq!(ws.roots.len(), 1);
        assert_eq!(rel(&root, &ws.roots[0].main), "apache2/apache2.conf");
        let available = root.join("apache2/sites-available/ünï.conf");
        let r = ws.root_for(&available).expect("the linked fragment belongs to apache2.conf");
        assert_eq!(r.main, main);
        assert!(find_file(&r.cfg, &available).is_some());
        assert!(ws.root_for(&root.join("apache2/sites-available/off.conf")).is_none());
        // Loose files still give symbols; the .git directory is never walked.
        let mut names: Vec<String> = ws.symbols().into_iter().map(|s| s.name).collect();
        names.sort();
        assert_eq!(names, vec!["off.example", "ünï.example"]);
        assert!(steps.iter().any(|s| s.starts_with("Loading")), "{steps:?}");
    }

    #[test]
    fn htaccess_belongs_to_the_root_serving_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let conf = format!(
            "ServerRoot \"{r}\"\nDocumentRoot \"{r}/htdocs\"\nAlias /files {r}/files/\n<Directory {r}/private>\nAllowOverride AuthConfig\n</Directory>\n<Directory {r}/users/*/public>\nAllowOverride Limit\n</Directory>\n",
            r = root.display()
        );
        write(
            root,
            &[
                ("httpd.conf", &conf),
                ("htdocs/sub/.htaccess", "Require all denied\n"),
                ("files/.htaccess", ""),
                ("private/x/.htaccess", ""),
                ("elsewhere/.htaccess", ""),
                ("users/ann/public/.htaccess", ""),
            ],
        );
        let ws = index(&[root.to_path_buf()], None, &RealFs, &mut |_| {});
        for (p, served) in [
            ("htdocs/sub/.htaccess", true),
            ("files/.htaccess", true),
            ("private/x/.htaccess", true),
            ("elsewhere/.htaccess", false),
            ("users/ann/public/.htaccess", true),
        ] {
            assert_eq!(ws.root_for(&root.join(p)).is_some(), served, "{p}");
        }
    }

    #[test]
    fn included_main_looking_file_is_not_a_root_and_explicit_root_comes_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let r = root.display();
        write(
            root,
            &[
                ("conf/httpd.conf", &format!("ServerRoot {r}\nInclude conf/modules.conf\n")),
                ("conf/modules.conf", "LoadModule status_module modules/mod_status.so\n"),
                ("alt/apache2.conf", &format!("Include {r}/conf/modules.conf\n")),
            ],
        );
        let ws = index(&[root.to_path_buf()], None, &RealFs, &mut |_| {});
        let mains: Vec<String> = ws.roots.iter().map(|x| rel(root, &x.main)).collect();
        assert_eq!(mains, vec!["alt/apache2.conf", "conf/httpd.conf"]);
        let explicit = root.join("conf/httpd.conf");
        let ws = index(&[root.to_path_buf()], Some(&explicit), &RealFs, &mut |_| {});
        assert_eq!(rel(root, &ws.root_for(&root.join("conf/modules.conf")).unwrap().main), "conf/httpd.conf");
    }

    /// A root keeps the .htaccess files `check` finds below what it serves: scanned when first
    /// asked, the same list until one is created or deleted (then scanned again), each change
    /// it is told of counted.
    #[test]
    fn a_root_keeps_its_htaccess_files_until_one_comes_or_goes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let conf = format!("ServerRoot \"{r}\"\nDocumentRoot \"{r}/htdocs\"\n", r = root.display());
        write(
            root,
            &[("httpd.conf", &conf), ("htdocs/a/.htaccess", "Require all granted\n"), ("elsewhere/.htaccess", "")],
        );
        let ws = index(&[root.to_path_buf()], None, &RealFs, &mut |_| {});
        let r = &ws.roots[0];
        let names =
            |(count, found): (u64, Arc<[PathBuf]>)| (count, found.iter().map(|p| rel(root, p)).collect::<Vec<_>>());
        assert_eq!(names(r.htaccess(&r.cfg)), (0, vec!["htdocs/a/.htaccess".to_string()]));
        write(root, &[("htdocs/b/.htaccess", "")]);
        // Not told yet: the list stands.
        assert_eq!(names(r.htaccess(&r.cfg)).1, ["htdocs/a/.htaccess"]);
        assert!(!ws.htaccess_changed(&[root.join("elsewhere/.htaccess")], true));
        assert!(ws.htaccess_changed(&[root.join("htdocs/b/.htaccess")], true));
        assert_eq!(
            names(r.htaccess(&r.cfg)),
            (1, vec!["htdocs/a/.htaccess".to_string(), "htdocs/b/.htaccess".to_string()])
        );
        // A change to one found: counted, not scanned again.
        assert!(ws.htaccess_changed(&[root.join("htdocs/a/.htaccess")], false));
        assert_eq!(names(r.htaccess(&r.cfg)).0, 2);
    }
}
