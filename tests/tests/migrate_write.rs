//! `apache-lsp migrate --write` as a file writer: it keeps permissions and ownership, writes
//! through symbolic links to their targets, refuses (exit 2, nothing written) when a file
//! changed on disk since it was read, leaves every file either old or new when killed at any
//! moment, and keeps every byte outside the blocks it rewrites (CRLF, tabs, no final newline,
//! bytes that are not UTF-8). The result is checked by `apache2 -t` and by httpd's answers.

use apache_lsp_e2e::httpd::{self, config_test, sources, Httpd, HttpdConfig, Request};
use apache_lsp_e2e::lsp::{migrate_write, server_binary};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The temporary-file pattern of `migrate --write` (lsp/src/migrate_cli.rs TEMP_PREFIX/SUFFIX).
fn is_our_temp(name: &str) -> bool {
    name.starts_with(".apache-lsp-migrate.") && name.ends_with(".tmp")
}

/// A tree: `httpd.conf` including `conf.d/*.conf`, with `n` site files of old-style sections
/// (CRLF in odd ones, tabs, a final line without newline, a comment with bytes that are not UTF-8).
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new(n: usize) -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("conf.d")).unwrap();
        std::fs::create_dir_all(d.join("www")).unwrap();
        let root = d.display();
        std::fs::write(
            d.join("httpd.conf"),
            format!(
                "ServerRoot \"{root}\"\n{}DocumentRoot \"{root}/www\"\nInclude conf.d/*.conf\n",
                ["access_compat", "authz_core", "authz_host"]
                    .map(|m| format!("LoadModule {m}_module /usr/lib/apache2/modules/mod_{m}.so\n"))
                    .concat()
            ),
        )
        .unwrap();
        for i in 0..n {
            std::fs::create_dir_all(d.join(format!("www/s{i}"))).unwrap();
            std::fs::write(d.join(format!("conf.d/site{i:03}.conf")), site(&format!("{root}/www/s{i}"), i)).unwrap();
        }
        Tree { dir }
    }

    fn main(&self) -> PathBuf {
        self.dir.path().join("httpd.conf")
    }

    /// Every regular file and link below the root, by relative path, with its bytes.
    fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        apache_lsp_e2e::snapshot(self.dir.path())
    }
}

/// One site file's bytes.
fn site(dir: &str, i: usize) -> Vec<u8> {
    let eol = if i % 2 == 1 { "\r\n" } else { "\n" };
    let mut s = String::new();
    s.push_str(&format!("# site {i}: caf\u{e9} @BAD@{eol}"));
    s.push_str(&format!("<Directory \"{dir}\">{eol}"));
    s.push_str(&format!("\tOptions None{eol}"));
    s.push_str(&format!("\t# who may come in{eol}"));
    s.push_str(&format!("\tOrder deny,allow{eol}"));
    s.push_str(&format!("\tDeny from all{eol}"));
    s.push_str(&format!("\tAllow from 127.0.0.{}{eol}", 1 + i % 3));
    s.push_str(&format!("\tDirectoryIndex  index.html\t# kept{eol}"));
    s.push_str(&format!("</Directory>{eol}"));
    s.push_str("# trailing \t comment @BAD@ without a final newline");
    s.replace("@BAD@", "\u{1}").into_bytes().into_iter().map(|b| if b == 1 { 0xff } else { b }).collect()
}

/// `migrate --write` started with the test pause: returns once it says it is ready to write.
fn paused(main: &Path, go: &Path) -> Child {
    let mut child = Command::new(server_binary())
        .args(["migrate", "--write"])
        .arg(main)
        .env("APACHE_LSP_MIGRATE_TEST_PAUSE", go)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if line.contains("ready to write") {
            // Keep draining stderr so the child never blocks on a full pipe.
            std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
            return child;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("migrate --write never got ready to write (last line {line:?})");
}

fn wait_bounded(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("migrate --write did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Lines (with their endings) of a byte text.
fn lines(b: &[u8]) -> Vec<&[u8]> {
    b.split_inclusive(|c| *c == b'\n').collect()
}

#[test]
fn lines_outside_rewritten_blocks_keep_every_byte() {
    let t = Tree::new(4);
    let before = t.snapshot();
    let out = migrate_write(&t.main());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let after = t.snapshot();
    assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>(), "files appeared or vanished");
    for (rel, old) in &before {
        let new = &after[rel];
        if !rel.starts_with("conf.d/") {
            assert_eq!(old, new, "{rel} changed");
            continue;
        }
        assert_ne!(old, new, "{rel} was not rewritten");
        let crlf = old.windows(2).any(|w| w == b"\r\n");
        // Removed lines are old-style ones, added ones Require lines with the file's line
        // ending and indentation; every other line is byte for byte what it was.
        let (ol, nl) = (lines(old), lines(new));
        let removed: Vec<&&[u8]> = ol.iter().filter(|l| !nl.contains(l)).collect();
        let added: Vec<&&[u8]> = nl.iter().filter(|l| !ol.contains(l)).collect();
        for l in &removed {
            let s = String::from_utf8_lossy(l);
            let w = s.trim_start().to_ascii_lowercase();
            assert!(["order", "allow", "deny"].iter().any(|p| w.starts_with(p)), "{rel}: removed {s:?}");
        }
        assert!(!added.is_empty());
        for l in &added {
            let s = String::from_utf8_lossy(l);
            assert!(s.starts_with("\tRequire "), "{rel}: added {s:?}");
            assert_eq!(s.ends_with("\r\n"), crlf, "{rel}: line ending of {s:?}");
        }
        let kept: Vec<&&[u8]> = ol.iter().filter(|l| nl.contains(l)).collect();
        assert_eq!(kept.len() + removed.len(), ol.len());
        assert_eq!(old.last(), new.last(), "{rel}: the final line changed");
        assert!(new.ends_with(b"without a final newline"), "{rel}");
        assert!(new.contains(&0xff), "{rel}: the byte that is not UTF-8 is gone");
    }
    // Nothing old-style left: a second run has nothing to do.
    let again = migrate_write(&t.main());
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(t.snapshot(), after);
}

#[test]
fn rewritten_odd_files_are_accepted_and_answer_alike() {
    if !httpd::require_apache2() {
        return;
    }
    // The same odd bytes, included into a real server: apache2 -t accepts the result and httpd
    // answers the same before and after. Two roots: one kept as it is, one migrated.
    let make = || {
        let cfg = HttpdConfig::new("Include @ROOT@/site.conf\n");
        cfg.write().unwrap();
        let site_path = cfg.root().join("site.conf");
        std::fs::write(&site_path, site(&cfg.docroot().join("sub").display().to_string(), 1)).unwrap();
        (cfg, site_path)
    };
    let ask = |h: &Httpd| -> Vec<u16> {
        let mut v = Vec::new();
        for src in sources() {
            for url in ["/sub/", "/sub/index.html", "/"] {
                v.push(h.send(&Request::get(url).source(src)).unwrap());
            }
        }
        v
    };
    let (old_cfg, _) = make();
    let (new_cfg, site_path) = make();
    let out = migrate_write(&new_cfg.main_config_path());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read(&site_path).unwrap();
    assert!(text.contains(&0xff) && String::from_utf8_lossy(&text).contains("Require ip 127.0.0.2"));
    let (ok, msg) = config_test(&new_cfg);
    assert!(ok, "{msg}");
    let a = ask(&Httpd::start(old_cfg).unwrap());
    let b = ask(&Httpd::start(new_cfg).unwrap());
    assert_eq!(a, b);
    assert!(a.contains(&403) && a.contains(&200), "{a:?}");
}

#[test]
fn permissions_and_ownership_are_kept() {
    let t = Tree::new(2);
    let f = t.dir.path().join("conf.d/site000.conf");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
    let owner = if is_root() {
        // Another user and group (daemon on Debian): only root can give a file away.
        std::os::unix::fs::chown(&f, Some(1), Some(1)).unwrap();
        Some((1, 1))
    } else {
        eprintln!("note: not root; ownership is checked as the current user only");
        None
    };
    let before = std::fs::metadata(&f).unwrap();
    let out = migrate_write(&t.main());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let after = std::fs::metadata(&f).unwrap();
    assert_ne!(before.ino(), after.ino(), "not replaced by rename");
    assert_eq!(after.permissions().mode() & 0o7777, 0o640);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    if let Some((u, g)) = owner {
        assert_eq!((after.uid(), after.gid()), (u, g));
    }
    assert!(String::from_utf8_lossy(&std::fs::read(&f).unwrap()).contains("Require ip"));
}

#[test]
fn symlinks_are_written_through_to_their_targets() {
    let t = Tree::new(2);
    let d = t.dir.path();
    // conf.d/site001.conf becomes a link to real/site001.conf; the main file is reached
    // through a link too.
    std::fs::create_dir_all(d.join("real")).unwrap();
    std::fs::rename(d.join("conf.d/site001.conf"), d.join("real/site001.conf")).unwrap();
    std::os::unix::fs::symlink("../real/site001.conf", d.join("conf.d/site001.conf")).unwrap();
    std::os::unix::fs::symlink("httpd.conf", d.join("main-link.conf")).unwrap();
    let out = migrate_write(&d.join("main-link.conf"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let link = d.join("conf.d/site001.conf");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("../real/site001.conf"));
    let target = String::from_utf8_lossy(&std::fs::read(d.join("real/site001.conf")).unwrap()).into_owned();
    assert!(target.contains("Require ip 127.0.0.2") && !target.contains("Order"), "{target}");
    assert!(std::fs::symlink_metadata(d.join("main-link.conf")).unwrap().file_type().is_symlink());
    let leftovers: Vec<String> = t.snapshot().into_keys().filter(|k| k.contains(".apache-lsp-migrate.")).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_file_changed_since_it_was_read_is_refused_and_nothing_is_written() {
    let t = Tree::new(6);
    let before = t.snapshot();
    let go = t.dir.path().join("go");
    let mut child = paused(&t.main(), &go);
    // Another editor saves one of the files meanwhile.
    let changed = t.dir.path().join("conf.d/site003.conf");
    let mut text = std::fs::read(&changed).unwrap();
    text.extend_from_slice(b"\n# edited meanwhile\n");
    std::fs::write(&changed, &text).unwrap();
    std::fs::write(&go, "").unwrap();
    let st = wait_bounded(&mut child, Duration::from_secs(30));
    assert_eq!(st.code(), Some(2));
    std::fs::remove_file(&go).unwrap();
    let after = t.snapshot();
    for (rel, old) in &before {
        if rel == "conf.d/site003.conf" {
            assert_eq!(after[rel], text);
        } else {
            assert_eq!(&after[rel], old, "{rel} was written");
        }
    }
    assert_eq!(before.len(), after.len(), "a file appeared: {:?}", after.keys());
}

#[test]
fn killed_at_any_moment_every_file_is_old_or_new() {
    // The old and the new tree, from one uninterrupted run.
    let n = 40;
    let reference = Tree::new(n);
    let old = reference.snapshot();
    let go = reference.dir.path().join("go");
    let mut child = paused(&reference.main(), &go);
    let t0 = Instant::now();
    std::fs::write(&go, "").unwrap();
    assert_eq!(wait_bounded(&mut child, Duration::from_secs(60)).code(), Some(0));
    let write_time = t0.elapsed();
    std::fs::remove_file(&go).unwrap();
    let new = reference.snapshot();
    let rewritten = old.iter().filter(|(k, v)| new[*k] != **v).count();
    assert_eq!(rewritten, n, "every site file is rewritten by an uninterrupted run");
    // Kill runs at delays spread over (and a little past) the time the writes took.
    let steps = 16u32;
    let (mut untouched, mut partial, mut complete, mut leftovers) = (0, 0, 0, 0);
    for i in 0..steps {
        let delay = write_time * i / (steps - 4);
        let t = Tree::new(n);
        // Same paths as the reference, so compare by relative path with the root replaced.
        let root_old = reference.dir.path().display().to_string();
        let root_new = t.dir.path().display().to_string();
        let fix = |b: &Vec<u8>| -> Vec<u8> {
            let s = String::from_utf8_lossy(b).replace(&root_old, &root_new);
            // Only the roots differ; the bytes that are not UTF-8 are put back.
            s.replace('\u{FFFD}', "\u{1}").into_bytes().into_iter().map(|c| if c == 1 { 0xff } else { c }).collect()
        };
        let go = t.dir.path().join("go");
        let mut child = paused(&t.main(), &go);
        std::fs::write(&go, "").unwrap();
        std::thread::sleep(delay);
        // SIGKILL to our own child, by its pid.
        let _ = child.kill();
        let _ = child.wait();
        let _ = std::fs::remove_file(&go);
        let now = t.snapshot();
        let mut n_new = 0;
        for (rel, bytes) in &now {
            if let Some(o) = old.get(rel) {
                let (o, nw) = (fix(o), fix(&new[rel]));
                assert!(*bytes == o || *bytes == nw, "{rel} is neither old nor new after a kill at {delay:?}");
                n_new += usize::from(*bytes != o);
            } else {
                // Leftovers: only our temporary files (a kill between creating one and
                // renaming it over its file leaves it; it is never read as configuration).
                let name = Path::new(rel).file_name().unwrap().to_string_lossy().into_owned();
                assert!(is_our_temp(&name), "unexpected file {rel} after a kill at {delay:?}");
                leftovers += 1;
            }
        }
        for rel in old.keys() {
            assert!(now.contains_key(rel), "{rel} vanished after a kill at {delay:?}");
        }
        match n_new {
            0 => untouched += 1,
            x if x == n => complete += 1,
            _ => partial += 1,
        }
    }
    eprintln!(
        "kill test: {steps} kills over {write_time:?} of writing: {untouched} before any write, {partial} mid-way, {complete} after all; \
         {leftovers} temporary files left by the kills"
    );
    // Delays are spread over the measured write time, so some kill lands between two files.
    assert!(partial > 0, "no kill landed mid-way; the test did not test what it says");
}

/// `apache-lsp ARGS` run in `dir`: (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(server_binary()).current_dir(dir).args(args).output().expect("run apache-lsp");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_htaccess_named_by_a_relative_path_is_migrated() {
    if !httpd::require_apache2() {
        return;
    }
    // An .htaccess file below a served directory, named relatively from three working
    // directories (`..` in one): each run says what the absolute path says (once a relative name
    // was silently skipped, exit 0), and `--write` with a relative path rewrites it into what
    // httpd answers alike (the guide's rewrite, --allow-changes: read alone, nothing is proven).
    let htaccess = "Order deny,allow\nDeny from all\nAllow from 127.0.0.1\n";
    let make = || {
        let cfg = HttpdConfig::new("<Directory @DOCROOT@>\n    AllowOverride All\n</Directory>\n")
            .file("htdocs/sub/.htaccess", htaccess)
            .file("htdocs/sub/index.html", "sub\n")
            .dir("htdocs/sub/d");
        cfg.write().unwrap();
        cfg
    };
    let (old_cfg, new_cfg) = (make(), make());
    let root = new_cfg.root().to_path_buf();
    let file = new_cfg.docroot().join("sub/.htaccess");
    // Read alone (no root configuration), nothing can be proven: every name leaves it, saying so.
    let absolute = run_in(&root, &["migrate", file.to_str().unwrap()]);
    assert_eq!(absolute.0, Some(1), "{}", absolute.2);
    assert!(absolute.2.contains("left old-style") && absolute.1.is_empty(), "{absolute:?}");
    for (dir, arg) in [("", "htdocs/sub/.htaccess"), ("htdocs/sub", ".htaccess"), ("htdocs/sub/d", "../.htaccess")] {
        let relative = run_in(&root.join(dir), &["migrate", arg]);
        assert_eq!(relative, absolute, "migrate {arg} in {dir:?}");
    }
    // With --allow-changes, the upgrade guide's rewrite, alike by every name.
    let absolute = run_in(&root, &["migrate", "--allow-changes", file.to_str().unwrap()]);
    assert_eq!(absolute.0, Some(0), "{}", absolute.2);
    assert!(absolute.1.contains("-Order deny,allow") && absolute.1.contains("+Require ip 127.0.0.1"), "{}", absolute.1);
    for (dir, arg) in [("", "htdocs/sub/.htaccess"), ("htdocs/sub", ".htaccess"), ("htdocs/sub/d", "../.htaccess")] {
        let relative = run_in(&root.join(dir), &["migrate", "--allow-changes", arg]);
        assert_eq!(relative, absolute, "migrate --allow-changes {arg} in {dir:?}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), htaccess, "written without --write");
    let written = run_in(&root.join("htdocs"), &["migrate", "--write", "--allow-changes", "sub/.htaccess"]);
    assert_eq!(written.0, Some(0), "{}", written.2);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "Require ip 127.0.0.1\n");
    // Nothing old-style left, by either name.
    assert_eq!(run_in(&root.join("htdocs/sub"), &["migrate", ".htaccess"]).1, "");
    let ask = |h: &Httpd| -> Vec<u16> {
        sources().into_iter().map(|src| h.send(&Request::get("/sub/index.html").source(src)).unwrap()).collect()
    };
    let a = ask(&Httpd::start(old_cfg).unwrap());
    let b = ask(&Httpd::start(new_cfg).unwrap());
    assert_eq!(a, b);
    assert!(a.contains(&200), "{a:?}");
}

#[test]
fn check_reads_an_htaccess_named_beside_its_configuration_under_it() {
    // Naming a served directory's .htaccess file beside its main configuration, by any path,
    // adds nothing to the main configuration's report: the file is read under it (here its
    // Require is outside AllowOverride Limit: httpd answers 500), not again on its own, where
    // it would look valid.
    if !httpd::require_apache2() {
        return;
    }
    let cfg = HttpdConfig::new("<Directory @DOCROOT@>\n    AllowOverride Limit\n</Directory>\n")
        .file("htdocs/.htaccess", "Require ip 127.0.0.1\n");
    cfg.write().unwrap();
    let root = cfg.root().to_path_buf();
    let main = cfg.main_config_path();
    let file = cfg.docroot().join(".htaccess");
    let alone = run_in(&root, &["check", "--format", "json", main.to_str().unwrap()]);
    assert!(alone.1.contains("\"directive-context\"") && alone.1.contains("Require not allowed here"), "{}", alone.1);
    let main_rel = main.strip_prefix(&root).unwrap().to_str().unwrap().to_string();
    for (dir, args) in [
        ("", vec![main_rel.as_str(), "htdocs/.htaccess"]),
        ("", vec!["htdocs/.htaccess", main_rel.as_str()]),
        ("htdocs", vec![".htaccess", main.to_str().unwrap()]),
        ("", vec![main.to_str().unwrap(), file.to_str().unwrap()]),
    ] {
        let both = run_in(&root.join(dir), &[&["check", "--format", "json"][..], &args].concat());
        assert_eq!(both, alone, "check {args:?} in {dir:?}");
    }
    let h = Httpd::start(cfg).unwrap();
    assert_eq!(h.send(&Request::get("/")).unwrap(), 500);
}

/// What httpd answers for `url` from every source.
fn answers(h: &Httpd, url: &str) -> Vec<u16> {
    sources().into_iter().map(|src| h.send(&Request::get(url).source(src)).unwrap()).collect()
}

#[test]
fn an_htaccess_beginning_with_a_byte_order_mark_is_left_unless_asked_to_remove_it() {
    if !httpd::require_apache2() {
        return;
    }
    // httpd strips no byte-order mark: it reads `\xef\xbb\xbfOrder`, an invalid command, and
    // answers 500 to every request the file applies to. migrate leaves the file (exit 1, nothing
    // written, the mark named); --remove-bom removes it and rewrites the rest, which httpd then
    // answers as it answers the file with only the mark removed.
    let bom = "\u{feff}Order deny,allow\r\nDeny from 127.0.0.2\r\n";
    let cfg = HttpdConfig::new("<Directory @DOCROOT@>\n    AllowOverride All\n</Directory>\n")
        .file("htdocs/sub/.htaccess", bom)
        .file("htdocs/sub/index.html", "sub\n");
    cfg.write().unwrap();
    let root = cfg.root().to_path_buf();
    let main = cfg.main_config_path();
    let main = main.to_str().unwrap();
    let file = cfg.docroot().join("sub/.htaccess");
    let h = Httpd::start(cfg).unwrap();
    let with_mark = answers(&h, "/sub/index.html");
    assert!(with_mark.iter().all(|s| *s == 500), "{with_mark:?}");
    assert!(h.error_log().contains("Invalid command '\\xef\\xbb\\xbfOrder'"), "{}", h.error_log());
    // Asked to migrate, it says why the file is left and writes nothing.
    for args in
        [&["migrate", main][..], &["migrate", "--write", main], &["migrate", "--write", "--allow-changes", main]]
    {
        let (code, stdout, stderr) = run_in(&root, args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(
            stderr.contains("left old-style:")
                && stderr.contains("byte-order mark")
                && stderr.contains("httpd answers 500 to every request"),
            "{args:?}: {stderr}"
        );
        assert_eq!(std::fs::read(&file).unwrap(), bom.as_bytes(), "{args:?}");
    }
    // The file with the mark removed by hand: httpd evaluates it.
    std::fs::write(&file, &bom.as_bytes()[3..]).unwrap();
    let without_mark = answers(&h, "/sub/index.html");
    assert!(without_mark.contains(&403) && without_mark.contains(&200), "{without_mark:?}");
    std::fs::write(&file, bom).unwrap();
    assert_eq!(answers(&h, "/sub/index.html"), with_mark);
    let (code, _, stderr) = run_in(&root, &["migrate", "--write", "--remove-bom", main]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("access changes:") && stderr.contains("removed the UTF-8 byte-order mark"), "{stderr}");
    let written = std::fs::read(&file).unwrap();
    assert_eq!(
        String::from_utf8(written).unwrap(),
        "<RequireAll>\r\n  Require all granted\r\n  <RequireNone>\r\n    Require ip 127.0.0.2\r\n  </RequireNone>\r\n</RequireAll>\r\n"
    );
    assert_eq!(answers(&h, "/sub/index.html"), without_mark);
}

#[test]
fn rewrites_keep_mixed_line_endings_and_a_missing_final_newline_byte_for_byte() {
    if !httpd::require_apache2() {
        return;
    }
    // .htaccess files (read per request: one server answers before and after). A line that
    // becomes one line keeps its own ending (LF among CRLF); lines that become more take the
    // first one's (LF in `b`, CRLF in `c`); a file without a final line break gets none.
    let files = [
        ("a", "# all\r\nAllow from all\n# end\r\n", "# all\r\nRequire all granted\n# end\r\n"),
        (
            "b",
            "# b\r\nOrder deny,allow\nDeny from 127.0.0.2\r\n# end\r\n",
            "# b\r\n<RequireAll>\n  Require all granted\n  <RequireNone>\n    Require ip 127.0.0.2\n  </RequireNone>\n</RequireAll>\n# end\r\n",
        ),
        (
            "c",
            "# c\nOrder deny,allow\r\nDeny from 127.0.0.2",
            "# c\n<RequireAll>\r\n  Require all granted\r\n  <RequireNone>\r\n    Require ip 127.0.0.2\r\n  </RequireNone>\r\n</RequireAll>",
        ),
    ];
    let mut cfg = HttpdConfig::new("<Directory @DOCROOT@>\n    AllowOverride All\n</Directory>\n");
    for (d, old, _) in files {
        cfg = cfg.file(format!("htdocs/{d}/.htaccess"), old).file(format!("htdocs/{d}/index.html"), "x\n");
    }
    cfg.write().unwrap();
    let main = cfg.main_config_path();
    let docroot = cfg.docroot();
    let h = Httpd::start(cfg).unwrap();
    let ask = |h: &Httpd| -> Vec<u16> {
        files.iter().flat_map(|(d, _, _)| answers(h, &format!("/{d}/index.html"))).collect()
    };
    let before = ask(&h);
    assert!(before.contains(&403) && before.contains(&200) && !before.contains(&500), "{before:?}");
    let out = migrate_write(&main);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for (d, _, new) in files {
        assert_eq!(String::from_utf8(std::fs::read(docroot.join(d).join(".htaccess")).unwrap()).unwrap(), new, "{d}");
    }
    assert_eq!(ask(&h), before);
}
