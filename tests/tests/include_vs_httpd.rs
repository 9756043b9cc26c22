//! Which files an `Include`/`IncludeOptional` reads, and when it is an error, against httpd:
//! each case is a small tree and a main configuration; `apache2 -t -D DUMP_INCLUDES` lists
//! the files httpd read and says whether it refused, and the loader must report an include
//! error exactly when httpd refuses, and otherwise read the same files in the same order.

use apache_lsp::ide::config::{self, RealFs};
use apache_lsp_e2e::httpd::require_apache2;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tree: files (path, text) and symbolic links (path, target) under a fresh directory.
struct Tree {
    root: tempfile::TempDir,
}

impl Tree {
    fn new(files: &[&str], links: &[(&str, &str)]) -> Tree {
        let root = tempfile::tempdir().unwrap();
        for (i, f) in files.iter().enumerate() {
            let p = root.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            if f.ends_with('/') {
                std::fs::create_dir_all(&p).unwrap();
            } else {
                std::fs::write(&p, format!("Define INCLUDED_{i}\n")).unwrap();
            }
        }
        for (link, target) in links {
            std::os::unix::fs::symlink(target, root.path().join(link)).unwrap();
        }
        Tree { root }
    }

    /// The main configuration holding `lines`, written at the tree's top.
    fn main(&self, lines: &str) -> PathBuf {
        let root = self.root.path().display();
        let main = self.root.path().join("main.conf");
        std::fs::write(
            &main,
            format!(
                "ServerRoot {root}\nServerName localhost\nErrorLog /dev/null\nPidFile {root}/pid\n\
                 LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so\n{lines}\n"
            ),
        )
        .unwrap();
        main
    }
}

/// httpd's answer: the files it included (in order), and whether it refused the configuration.
fn httpd_reads(main: &Path) -> (Vec<PathBuf>, bool, String) {
    let out = Command::new("apache2")
        .args(["-t", "-D", "DUMP_INCLUDES", "-f"])
        .arg(main)
        .args(["-d", &main.parent().unwrap().display().to_string()])
        .output()
        .expect("apache2 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let files = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix('(').and_then(|r| r.split_once(") ")))
        .filter(|(line, _)| *line != "*")
        .map(|(_, p)| PathBuf::from(p))
        .collect();
    (files, !out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The loader's answer: the files read (the main one left out) and whether it reported an
/// include error.
fn loader_reads(main: &Path) -> (Vec<PathBuf>, bool, String) {
    let cfg = config::load(main, &RealFs);
    // Each inclusion in order (a file included twice is read twice, as httpd reads it).
    let files = cfg.included_from.iter().map(|(child, _, _)| cfg.file(*child).path.to_path_buf()).collect();
    let errors: Vec<String> =
        cfg.problems.iter().filter(|p| p.code.starts_with("include")).map(|p| p.message.clone()).collect();
    (files, !errors.is_empty(), errors.join("; "))
}

#[test]
fn include_globs_read_what_httpd_reads() {
    if !require_apache2() {
        return;
    }
    let files = [
        "m/a/x.conf",
        "m/b/x.conf",
        "m/c/other.conf",
        "m/.h/x.conf",
        "real/x.conf",
        "s/x/y.conf",
        "conf.d/10-a.conf",
        "conf.d/20-b.conf",
        "conf.d/.hidden.conf",
        "conf.d/sub/30-c.conf",
        "empty/",
        "star/a*b.conf",
        "star/axb.conf",
        "c/a[.conf",
        "c/a[b.conf",
        "c/ab.conf",
        "d/a[/f.conf",
    ];
    let links = [("m/l", "../real"), ("conf.d/40-link.conf", "../real/x.conf")];
    let cases = [
        // apr_fnmatch negates a set with `^` as with `!`.
        "Include m/[^a]/x.conf",
        "Include m/[!a]/x.conf",
        "Include m/[ab]/x.conf",
        // A plain component after a wildcard is required in each directory matched (m/c has
        // none); IncludeOptional skips it.
        "Include m/*/x.conf",
        "IncludeOptional m/*/x.conf",
        "Include m/[ab]/x.conf\nInclude m/[ab]/*.conf",
        // A wildcard matching nothing at some level.
        "Include m/*/nothing*.conf",
        "IncludeOptional m/*/nothing*.conf",
        "IncludeOptional */x.conf",
        "Include */x/y.conf",
        "IncludeOptional */x/y.conf",
        // A directory that is not there, under a wildcard and under a plain path.
        "IncludeOptional missing/*.conf",
        "Include missing/*.conf",
        // Leading dots, links, directories matched last, escapes.
        "Include conf.d/*.conf",
        "Include conf.d/*",
        "Include conf.d",
        "Include empty/*.conf",
        "IncludeOptional empty/*.conf",
        "Include star/a\\*b.conf",
        "Include star/a*b.conf",
        "Include m/.*/x.conf",
        "Include m/**/x.conf",
        // A `[` never closed is a plain character; the wildcards after it stay wildcards.
        "Include c/a[*.conf",
        "Include c/a[?.conf",
        "Include c/a[b*",
        "IncludeOptional c/a[*.conf",
        "Include d/a[*/f.conf",
    ];
    let tree = Tree::new(&files, &links);
    let mut wrong = Vec::new();
    for case in cases {
        let main = tree.main(case);
        let (httpd, httpd_refused, why) = httpd_reads(&main);
        let (ours, we_refuse, said) = loader_reads(&main);
        // httpd stops at the first error: which files it read before is beside the point.
        if (!httpd_refused && httpd != ours) || httpd_refused != we_refuse {
            wrong.push(format!(
                "{case:?}\n  httpd: {httpd:?} refused={httpd_refused} {why}\n  ours:  {ours:?} error={we_refuse} {said}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases differ:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

/// A `ServerRoot` line of two words (Debian's tree, whose modules come from an `IncludeOptional`
/// relative to the server root): httpd refuses that line, whatever modules are loaded, and reads
/// nothing after it. check says so on that line as an error, with or without modules found, and
/// takes no server root from the refused line, so the includes after it raise no error httpd
/// would not give (black-box round 16, F6).
#[test]
fn a_refused_server_root_is_an_error_and_moves_no_include() {
    if !require_apache2() {
        return;
    }
    for with_modules in [true, false] {
        let tree = Tree::new(&["ports.conf"], &[]);
        let root = tree.root.path();
        if with_modules {
            std::fs::create_dir_all(root.join("mods")).unwrap();
            std::fs::write(
                root.join("mods/mpm_event.load"),
                "LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so\n",
            )
            .unwrap();
        }
        let main = root.join("apache2.conf");
        std::fs::write(
            &main,
            format!(
                "# Debian-ish\nServerRoot Define {0}\nServerName localhost\nErrorLog /dev/null\nPidFile {0}/pid\n\
                 IncludeOptional mods/*.load\nInclude ports.conf\n",
                root.display()
            ),
        )
        .unwrap();
        let out = Command::new("apache2").args(["-t", "-f"]).arg(&main).arg("-d").arg(root).output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success(), "{said}");
        assert!(said.contains("Syntax error on line 2 of") && said.contains("ServerRoot takes one argument"), "{said}");
        let reported = apache_lsp::cli::check_paths(std::slice::from_ref(&main)).unwrap();
        let errors: Vec<_> = reported.iter().filter(|r| r.severity == "error").collect();
        assert!(
            errors.len() == 1 && errors[0].line == 2 && said.contains(&errors[0].message),
            "with modules {with_modules}: httpd says {said}; we report {reported:?}"
        );
    }
}
