//! Hostile files: include cycles, globs over thousands of files, binary data, NUL
//! bytes, a 100 MB file, a 20 MB line, 20 000 nested sections, unreadable files,
//! symbolic link loops. Each must give a clear diagnostic and a bounded run of the
//! real binary (`apache-lsp check`, and the server where it matters), never a
//! panic or a hang.
//!
//! The deadline on each child process detects hangs only (it fails the test when
//! the process never ends); it is not a speed assertion: speed is measured by the
//! benchmarks.

use apache_lsp_e2e::lsp::{server_binary, Client};
use serde_json::json;
use std::io::{Read, Write};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs a command, failing the test if it has not ended after `deadline`.
fn run_bounded(mut cmd: Command, deadline: Duration) -> Run {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hang: {cmd:?} did not end within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let run = Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&t_out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&t_err.join().unwrap()).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "panic: {}", run.stderr);
    run
}

/// `apache-lsp check <paths>` from `dir`; a panic fails the test, a hang too.
fn check(dir: &Path, paths: &[&str]) -> Run {
    check_with(server_binary(), dir, paths, None)
}

fn check_with(bin: PathBuf, dir: &Path, paths: &[&str], as_user: Option<&str>) -> Run {
    let mut cmd = match as_user {
        Some(uid) => {
            let mut c = Command::new("setpriv");
            c.args([&format!("--reuid={uid}"), &format!("--regid={uid}"), "--clear-groups"]).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    cmd.current_dir(dir).arg("check").args(paths);
    let r = run_bounded(cmd, Duration::from_secs(600));
    assert!(matches!(r.code, Some(0..=2)), "exit {:?}\n{}\n{}", r.code, r.stdout, r.stderr);
    r
}

fn write(path: &Path, text: impl AsRef<[u8]>) {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// A main configuration (it loads modules) with `body` after the module lines.
fn main_conf(dir: &Path, body: &str) -> PathBuf {
    let p = dir.join("httpd.conf");
    write(
        &p,
        format!(
            "LoadModule authz_core_module mod_authz_core.so\nLoadModule authz_host_module mod_authz_host.so\nLoadModule access_compat_module mod_access_compat.so\n{body}"
        ),
    );
    p
}

/// Lines of the report with a given code.
fn lines_with<'a>(r: &'a Run, code: &str) -> Vec<&'a str> {
    let tag = format!("[{code}]");
    r.stdout.lines().filter(|l| l.contains(&tag)).collect()
}

/// A deterministic stream of pseudo-random bytes.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut r = apache_lsp_e2e::XorShift(seed);
    (0..n).map(|_| (r.next_u64() >> 24) as u8).collect()
}

#[test]
fn include_cycle_between_two_files() {
    let d = tempfile::tempdir().unwrap();
    main_conf(d.path(), "Include a.conf\n");
    write(&d.path().join("a.conf"), "Include b.conf\n");
    write(&d.path().join("b.conf"), "Include a.conf\n<Directory /srv>\n  Order allow,deny\n</Directory>\n");
    let r = check(d.path(), &["httpd.conf"]);
    let cycles = lines_with(&r, "include-cycle");
    assert_eq!(cycles.len(), 1, "{}", r.stdout);
    assert!(cycles[0].contains("a.conf → ") && cycles[0].contains("b.conf →"), "{}", cycles[0]);
    // The rest of the cycle's files is still checked.
    assert_eq!(lines_with(&r, "deprecated-access").len(), 1, "{}", r.stdout);
    assert_eq!(r.code, Some(1));
}

#[test]
fn self_including_glob() {
    // `Include *.conf` in a file the glob matches: httpd recurses until its depth limit.
    let d = tempfile::tempdir().unwrap();
    main_conf(d.path(), "Include conf.d/*.conf\n");
    write(&d.path().join("conf.d/a.conf"), "Include conf.d/*.conf\nServerAdmin a@example.com\n");
    write(&d.path().join("conf.d/b.conf"), "<Directory /srv>\n  Order allow,deny\n</Directory>\n");
    let r = check(d.path(), &["httpd.conf"]);
    let cycles = lines_with(&r, "include-cycle");
    assert_eq!(cycles.len(), 1, "{}", r.stdout);
    assert!(cycles[0].contains("conf.d/a.conf → ") && cycles[0].ends_with("include depth limit"), "{}", cycles[0]);
    assert!(r.stdout.contains("conf.d/b.conf:2:3: warning[deprecated-access]"), "{}", r.stdout);
}

#[test]
fn glob_matching_thousands_of_files() {
    let d = tempfile::tempdir().unwrap();
    main_conf(d.path(), "Include sites/*.conf\nInclude tree/\n");
    let n = 3000;
    for i in 0..n {
        write(
            &d.path().join(format!("sites/site{i:05}.conf")),
            format!("<VirtualHost *:80>\n  ServerName s{i}.example.com\n</VirtualHost>\n"),
        );
    }
    // The last file in httpd's order has a problem: it proves every file was read.
    write(&d.path().join(format!("sites/site{n:05}.conf")), "<Directory /srv>\n  Allow from all\n</Directory>\n");
    for i in 0..1000 {
        write(&d.path().join(format!("tree/d{}/f{i:04}.conf", i % 10)), "ServerAdmin x@example.com\n");
    }
    let r = check(d.path(), &["httpd.conf"]);
    let dep = lines_with(&r, "deprecated-access");
    assert_eq!(dep.len(), 1, "{}", r.stdout);
    assert!(dep[0].contains(&format!("sites/site{n:05}.conf:2:3")), "{}", dep[0]);
    assert!(lines_with(&r, "include-missing").is_empty(), "{}", r.stdout);
}

#[test]
fn binary_and_non_utf8_files() {
    let d = tempfile::tempdir().unwrap();
    main_conf(d.path(), "Include binary.conf\nInclude latin1.conf\n");
    let mut bin = noise(200_000, 0x9E3779B97F4A7C15);
    bin[..4].copy_from_slice(b"\x7fELF");
    write(&d.path().join("binary.conf"), &bin);
    // "café" in Latin-1, then a line with an old directive.
    write(
        &d.path().join("latin1.conf"),
        b"ServerAdmin caf\xe9@example.com\n<Directory /srv>\n  Deny from all\n</Directory>\n",
    );
    let r = check(d.path(), &["httpd.conf"]);
    let bad = lines_with(&r, "not-utf8");
    assert_eq!(bad.len(), 2, "{}", r.stdout);
    assert!(bad.iter().any(|l| l.contains("binary.conf:1:1") && l.contains("offset 4")), "{bad:?}");
    assert!(bad.iter().any(|l| l.contains("latin1.conf:1:1") && l.contains("offset 15")), "{bad:?}");
    assert!(r.stdout.contains("latin1.conf:3:3: warning[deprecated-access]"), "{}", r.stdout);
    // Checking the binary file alone works too.
    let r = check(d.path(), &["binary.conf"]);
    assert_eq!(lines_with(&r, "not-utf8").len(), 1, "{}", r.stdout);
}

#[test]
fn nul_bytes_end_the_line_as_in_httpd() {
    // apache2 -t: "Argument for 'Require all' must be 'granted' or 'denied'" for this line.
    let d = tempfile::tempdir().unwrap();
    main_conf(d.path(), "<Directory /srv>\n  Require all\0granted\n</Directory>\nServer\0Admin x\n");
    let r = check(d.path(), &["httpd.conf"]);
    let nul: Vec<_> = r.stdout.lines().filter(|l| l.contains("NUL byte")).collect();
    assert_eq!(nul.len(), 2, "{}", r.stdout);
    assert!(nul[0].contains("httpd.conf:5:14: warning[syntax]"), "{}", nul[0]);
    assert!(r.stdout.contains("Argument for 'Require all' must be 'granted' or 'denied'"), "{}", r.stdout);
    assert!(r.stdout.contains("Invalid command 'Server'"), "{}", r.stdout);
}

#[test]
fn file_of_100_mb() {
    let d = tempfile::tempdir().unwrap();
    let p = main_conf(d.path(), "");
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    let filler = "# ".to_string() + &"padding ".repeat(12) + "\n";
    let mut lines = 3;
    let mut buf = String::new();
    while buf.len() < 100 << 20 {
        buf.push_str(&filler);
        lines += 1;
    }
    buf.push_str("<Directory /srv>\n  Satisfy any\n</Directory>\n");
    f.write_all(buf.as_bytes()).unwrap();
    drop(f);
    assert!(std::fs::metadata(&p).unwrap().len() >= 100 << 20);
    let r = check(d.path(), &["httpd.conf"]);
    // The diagnostic at the very end has the right line: the whole file was read.
    let dep = lines_with(&r, "deprecated-access");
    assert_eq!(dep.len(), 1, "{}", r.stdout);
    assert!(dep[0].contains(&format!("httpd.conf:{}:3", lines + 2)), "{}", dep[0]);
}

#[test]
fn single_line_of_20_mb() {
    let d = tempfile::tempdir().unwrap();
    let big = "é".repeat(10 << 20); // 20 MiB of two-byte characters
    main_conf(d.path(), &format!("Header set X-Big \"{big}\"\n<Directory /srv>\n  Order deny,allow\n</Directory>\n"));
    let r = check(d.path(), &["httpd.conf"]);
    let long = lines_with(&r, "syntax");
    assert_eq!(long.len(), 1, "{}", r.stdout);
    assert!(long[0].contains("httpd.conf:4:1: error[syntax]: Line too long"), "{}", long[0]);
    assert!(r.stdout.contains("httpd.conf:6:3: warning[deprecated-access]"), "{}", r.stdout);

    // In the server: diagnostics, and a hover far along the line (UTF-16 columns).
    let uri = format!("file://{}/httpd.conf", d.path().display());
    let text = std::fs::read_to_string(d.path().join("httpd.conf")).unwrap();
    let mut c = Client::spawn();
    c.initialize(json!({}));
    c.open(&uri, &text);
    let diags = c.diagnostics(&uri, Some(1), Duration::from_secs(300)).expect("diagnostics");
    let long: Vec<_> = diags.iter().filter(|d| d["message"].as_str().unwrap().starts_with("Line too long")).collect();
    assert_eq!(long.len(), 1, "{diags:?}");
    assert_eq!(long[0]["range"]["start"]["line"], 3);
    assert_eq!(long[0]["range"]["end"]["character"], 18 + (10 << 20) + 1, "UTF-16 length of the line");
    let h = c.request_within(
        Duration::from_secs(300),
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 9_000_000}}),
    );
    assert!(h.get("error").is_none(), "{h}");
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

/// `depth` nested sections of `open`/`close` around `inner`.
fn nested(depth: usize, open: &str, close: &str, inner: &str) -> String {
    let mut s = String::with_capacity(depth * (open.len() + close.len()) + inner.len());
    for _ in 0..depth {
        s.push_str(open);
    }
    s.push_str(inner);
    for _ in 0..depth {
        s.push_str(close);
    }
    s
}

/// Shapes of deep nesting: plain sections, true conditionals (spliced by the
/// loader), and authorization containers (evaluated by the policy engine), at
/// 20 000 levels and just under the parser's depth bound (the deepest tree any
/// walk sees).
fn deep_shapes() -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    for depth in [20_000, apache_syntax::MAX_DEPTH - 2] {
        v.push(("directory", nested(depth, "<Directory /srv>\n", "</Directory>\n", "  Order allow,deny\n")));
        v.push(("ifmodule", nested(depth, "<IfModule authz_core_module>\n", "</IfModule>\n", "ServerAdmin x\n")));
        v.push((
            "requireall",
            format!(
                "DocumentRoot /srv\n<Directory /srv>\n{}</Directory>\n",
                nested(depth, "<RequireAll>\n", "</RequireAll>\n", "Require ip 127.0.0.1\n")
            ),
        ));
    }
    v
}

#[test]
fn twenty_thousand_nested_sections_in_check() {
    for (name, body) in deep_shapes() {
        let d = tempfile::tempdir().unwrap();
        main_conf(d.path(), &body);
        let r = check(d.path(), &["httpd.conf"]);
        let deep = body.lines().count() > 10_000;
        assert_eq!(
            r.stdout.contains("sections are nested more than"),
            deep,
            "{name}: {}",
            &r.stdout[..r.stdout.len().min(2000)]
        );
        // The other commands walk the same trees.
        for args in [&["migrate", "httpd.conf"][..], &["explain", "httpd.conf", "/", "--no-dns"]] {
            let mut cmd = Command::new(server_binary());
            cmd.current_dir(d.path()).args(args);
            let r = run_bounded(cmd, Duration::from_secs(600));
            assert!(matches!(r.code, Some(0 | 1)), "{name} {args:?}: {:?}\n{}", r.code, r.stderr);
        }
    }
}

#[test]
fn twenty_thousand_nested_sections_in_the_server() {
    // The server analyses on worker threads with small stacks: every request runs.
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let long = Duration::from_secs(300);
    for (i, (name, body)) in deep_shapes().into_iter().enumerate() {
        let uri = format!("file:///tmp/apache-lsp-hostile/deep{i}/httpd.conf");
        let text = format!("LoadModule authz_core_module m.so\nLoadModule authz_host_module m.so\n{body}");
        let lines = text.lines().count() as u32;
        c.open(&uri, &text);
        let diags = c.diagnostics(&uri, Some(1), long).unwrap_or_else(|| panic!("{name}: no diagnostics"));
        assert!(diags.iter().all(|d| d["range"]["start"]["line"].as_u64().unwrap() < lines as u64), "{name}");
        let td = json!({"uri": uri});
        let syms = c.request_within(long, "textDocument/documentSymbol", json!({"textDocument": td}));
        // Nested at most 48 deep: JSON readers (serde_json's default limit is 128
        // levels) must be able to take the answer; nothing is lost, only flattened.
        let (mut depth, mut count, mut level) = (0, 0, syms["result"].as_array().cloned().unwrap_or_default());
        while !level.is_empty() {
            depth += 1;
            count += level.len();
            level = level.iter().flat_map(|s| s["children"].as_array().cloned().unwrap_or_default()).collect();
        }
        assert!((40..=48).contains(&depth), "{name}: symbols nested {depth} deep");
        // One symbol per section the parser keeps (past its depth bound the tree is flat).
        let openers = body.lines().filter(|l| l.starts_with('<') && !l.starts_with("</")).count();
        assert_eq!(count, openers.min(apache_syntax::MAX_DEPTH), "{name}: symbols lost");
        let folds = c.request_within(long, "textDocument/foldingRange", json!({"textDocument": td}));
        assert!(folds["result"].as_array().is_some_and(|f| !f.is_empty()), "{name}: {folds}");
        let tree = c.request_within(
            long,
            "workspace/executeCommand",
            json!({"command": "apache-lsp.syntaxTree", "arguments": [{"uri": uri}]}),
        );
        assert!(tree["result"].as_str().is_some_and(|t| t.contains("SECTION")), "{name}");
        // Hover and code actions at the top, in the middle (the innermost line) and at the end.
        for line in [2, lines / 2, lines - 1] {
            let pos = json!({"line": line, "character": 1});
            let h = c.request_within(long, "textDocument/hover", json!({"textDocument": td, "position": pos}));
            assert!(h.get("error").is_none(), "{name} hover {line}: {h}");
            let a = c.request_within(
                long,
                "textDocument/codeAction",
                json!({"textDocument": td, "range": {"start": pos, "end": pos}, "context": {"diagnostics": []}}),
            );
            assert!(a.get("error").is_none(), "{name} codeAction {line}: {a}");
        }
        c.notify("textDocument/didClose", json!({"textDocument": td}));
    }
    assert!(c.is_alive());
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

#[test]
fn fifo_dangling_link_and_directory_where_a_file_is_expected() {
    // Readable by root too: a FIFO would block a reader forever, httpd refuses it
    // as "not a regular file"; a dangling link is a missing file.
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo.conf");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    symlink(d.path().join("nowhere.conf"), d.path().join("dangling.conf")).unwrap();
    main_conf(d.path(), "Include fifo.conf\nInclude dangling.conf\nIncludeOptional dangling.conf\n");
    let r = check(d.path(), &["httpd.conf"]);
    let missing = lines_with(&r, "include-missing");
    assert_eq!(missing.len(), 2, "{}", r.stdout);
    assert!(missing[0].contains("httpd.conf:4:1") && missing[0].contains("not a regular file (a FIFO)"), "{missing:?}");
    assert!(missing[1].contains("httpd.conf:5:1") && missing[1].contains("No such file"), "{missing:?}");
    // Checking a FIFO directly: refused without opening it (exit 2, a message).
    let r = check(d.path(), &["fifo.conf"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("not a regular file (a FIFO)"), "{}", r.stderr);
    // A server whose root configuration is a directory, or a FIFO, still serves.
    for root in [d.path().to_path_buf(), fifo.clone()] {
        let mut c = Client::spawn();
        c.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {},
                   "initializationOptions": {"rootConfig": root}}),
        );
        c.notify("initialized", json!({}));
        let uri = format!("file://{}/other.conf", d.path().display());
        c.open(&uri, "<Directory /srv>\n  Order allow,deny\n</Directory>\n");
        let diags = c.diagnostics(&uri, Some(1), Duration::from_secs(30)).expect("diagnostics");
        assert!(diags.iter().any(|d| d["code"] == "deprecated-access"), "{diags:?}");
        assert!(c.shutdown().is_some_and(|s| s.success()));
    }
}

#[test]
fn unreadable_files_and_directories() {
    // Root reads mode-000 files, so as root the check runs as `nobody` (setpriv);
    // as another user mode 000 works directly. Without either, say so and skip.
    let root = unsafe { libc::geteuid() } == 0;
    let has_setpriv = Command::new("setpriv").arg("--version").output().is_ok_and(|o| o.status.success());
    if root && !has_setpriv {
        eprintln!("skipping unreadable_files_and_directories: running as root without setpriv to drop privileges");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    main_conf(
        dir,
        "Include secret.conf\nIncludeOptional secret.conf\nInclude locked/\nInclude locked-glob/*.conf\nInclude open/*.conf\n",
    );
    write(&dir.join("secret.conf"), "Require all granted\n");
    write(&dir.join("locked/a.conf"), "Require all granted\n");
    write(&dir.join("locked-glob/a.conf"), "Require all granted\n");
    write(&dir.join("open/a.conf"), "<Directory /srv>\n  Order allow,deny\n</Directory>\n");
    // The binary must be reachable for `nobody`: a copy in the (opened) temp dir.
    let bin = dir.join("apache-lsp");
    std::fs::copy(server_binary(), &bin).unwrap();
    for (p, mode) in [(dir, 0o755), (&*bin, 0o755), (&dir.join("secret.conf"), 0), (&dir.join("locked"), 0)] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    std::fs::set_permissions(dir.join("locked-glob"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let r = check_with(bin, dir, &["httpd.conf"], root.then_some("65534"));
    let missing = lines_with(&r, "include-missing");
    assert_eq!(missing.len(), 4, "{}\n{}", r.stdout, r.stderr);
    assert!(missing[0].contains("httpd.conf:4:1") && missing[0].contains("Permission denied"), "{missing:?}");
    // IncludeOptional is silent about missing files only.
    assert!(missing[1].contains("httpd.conf:5:1") && missing[1].contains("Permission denied"), "{missing:?}");
    assert!(
        missing[2].contains("httpd.conf:6:1")
            && missing[2].contains("Could not open directory")
            && missing[2].contains("locked"),
        "{missing:?}"
    );
    assert!(missing[3].contains("httpd.conf:7:1") && missing[3].contains("Could not open directory"), "{missing:?}");
    // What could be read is still checked.
    assert!(r.stdout.contains("open/a.conf:2:3: warning[deprecated-access]"), "{}", r.stdout);
    // check on an unreadable directory tree: an error, not a silent pass.
    let r = check_with(dir.join("apache-lsp"), dir, &["locked"], root.then_some("65534"));
    assert_eq!(r.code, Some(2), "{}", r.stdout);
    assert!(r.stderr.contains("Permission denied"), "{}", r.stderr);
    // Let the temp dir be removed.
    for p in ["secret.conf", "locked", "locked-glob"] {
        std::fs::set_permissions(dir.join(p), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn symlink_loops() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // a → b → a
    symlink("b.conf", dir.join("a.conf")).unwrap();
    symlink("a.conf", dir.join("b.conf")).unwrap();
    // A directory in an Include directory linking to its parent, and one to itself.
    write(&dir.join("conf.d/x.conf"), "<Directory /srv>\n  Order allow,deny\n</Directory>\n");
    symlink("..", dir.join("conf.d/up")).unwrap();
    symlink(".", dir.join("conf.d/self")).unwrap();
    main_conf(dir, "Include a.conf\nInclude conf.d/\n");
    let r = check(dir, &["httpd.conf"]);
    let missing = lines_with(&r, "include-missing");
    assert_eq!(missing.len(), 2, "{}", r.stdout);
    assert!(missing[0].contains("httpd.conf:4:1") && missing[0].contains("Too many levels of symbolic links"));
    assert!(missing[1].contains("httpd.conf:5:1") && missing[1].contains("symbolic link loop"), "{}", missing[1]);
    // The link loop inside a glob's match, and `check` of the looping directory.
    let d2 = tempfile::tempdir().unwrap();
    write(&d2.path().join("sites/a/site.conf"), "<Directory /srv>\n  Order allow,deny\n</Directory>\n");
    symlink("..", d2.path().join("sites/a/loop")).unwrap();
    main_conf(d2.path(), "Include sites/*\n");
    let r = check(d2.path(), &["httpd.conf"]);
    assert!(lines_with(&r, "include-missing").iter().any(|l| l.contains("symbolic link loop")), "{}", r.stdout);
    std::fs::remove_file(d2.path().join("httpd.conf")).unwrap();
    let r = check(d2.path(), &["."]);
    assert_eq!(lines_with(&r, "deprecated-access").len(), 1, "{}", r.stdout);
}

#[test]
fn includes_that_fan_out_exponentially() {
    // f0 includes f1 twice, f1 includes f2 twice, …: 2^40 inclusions for httpd too.
    let d = tempfile::tempdir().unwrap();
    for i in 0..40 {
        write(&d.path().join(format!("f{i}.conf")), format!("Include f{0}.conf\nInclude f{0}.conf\n", i + 1));
    }
    write(&d.path().join("f40.conf"), "ServerAdmin x@example.com\n");
    main_conf(d.path(), "Include f0.conf\n");
    let r = check(d.path(), &["httpd.conf"]);
    let limit = lines_with(&r, "include-limit");
    assert_eq!(limit.len(), 1, "{}", r.stdout);
    assert!(limit[0].contains("included again and again"), "{}", limit[0]);
}

#[test]
fn unreadable_htaccess_agrees_with_httpd() {
    // httpd answers 403 (AH00529) when it cannot read an .htaccess file: here a
    // directory named .htaccess (unreadable for anyone) and a mode-000 file (for
    // httpd's workers, which run as www-data or nobody). apache-lsp cannot know
    // whether httpd's user can read what it cannot, so its outcome is unknown with
    // 403 among the possible statuses and the reason given.
    use apache_lsp_e2e::httpd::{Httpd, HttpdConfig, Request};
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AllowOverride All\n    Require all granted\n</Directory>\n";
    let cfg = HttpdConfig::new(body)
        .dir("htdocs/dir/.htaccess")
        .file("htdocs/dir/index.html", "dir\n")
        .file("htdocs/locked/.htaccess", "Require all granted\n")
        .file("htdocs/locked/index.html", "locked\n");
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start:\n{e}"));
    let root = httpd.config().root().to_path_buf();
    let locked = root.join("htdocs/locked/.htaccess");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    assert_eq!(httpd.send(&Request::get("/dir/")).unwrap(), 403, "a directory named .htaccess");
    assert_eq!(httpd.send(&Request::get("/locked/")).unwrap(), 403, "a mode-000 .htaccess");
    assert!(httpd.error_log().contains("AH00529"), "{}", httpd.error_log());
    let main = httpd.config().main_config_path();
    let explain = |url: &str, as_user: Option<&str>| {
        let mut cmd = match as_user {
            Some(uid) => {
                let mut c = Command::new("setpriv");
                c.args([&format!("--reuid={uid}"), &format!("--regid={uid}"), "--clear-groups"]).arg(server_binary());
                c
            }
            None => Command::new(server_binary()),
        };
        cmd.arg("explain").arg(&main).arg(url).args(["--no-dns", "--format", "json"]);
        let r = run_bounded(cmd, Duration::from_secs(120));
        assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
        serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap()
    };
    let e = explain("/dir/", None);
    assert_eq!(e["status"], serde_json::Value::Null, "{e}");
    assert!(e["possible_statuses"].as_array().unwrap().contains(&json!(403)), "{e}");
    assert!(e["reason"].as_str().unwrap().contains("AH00529"), "{e}");
    // The mode-000 file, read as an unprivileged user (root reads it, httpd's user does not).
    let root_user = unsafe { libc::geteuid() } == 0;
    if root_user && Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("unreadable_htaccess_agrees_with_httpd: no setpriv, the mode-000 case is skipped");
        httpd.stop();
        return;
    }
    let e = explain("/locked/", root_user.then_some("65534"));
    assert!(e["possible_statuses"].as_array().unwrap().contains(&json!(403)), "{e}");
    assert!(e["reason"].as_str().unwrap().contains("Permission denied"), "{e}");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    httpd.stop();
}
