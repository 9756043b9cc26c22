//! What apache-lsp touches, seen by the kernel: `check` and the language server run under
//! `strace`, and every file they open, every program they start and every socket they make is
//! compared with what they may touch (issue #7, "Security"):
//! - files the configuration names (Include, IncludeOptional, the .htaccess files of the
//!   directories it serves) or that the workspace holds, and the system's own (shared libraries,
//!   /proc, /sys, /dev): nothing else, not a file beside an Include glob's matches;
//! - no program is executed;
//! - no socket is made and the resolver's files (/etc/hosts, nsswitch.conf, resolv.conf, gai.conf)
//!   are never read, although the configuration holds host-name rules and `User`/`Group` lines
//!   (looked up in /etc/passwd and /etc/group themselves);
//! - `explain --no-dns` stays off the network too, and `explain` without it is the one command
//!   that asks the resolver (the positive control that shows the trace sees a lookup).
//!
//! Needs `strace` (scripts/test installs it as root); without it, or where ptrace is not allowed,
//! the tests print a note and pass.

use apache_lsp_e2e::lsp::{file_uri, position_of, server_binary, Client};
use serde_json::json;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);
const TRACED: &str = "trace=execve,execveat,fork,vfork,clone,clone3,open,openat,openat2,socket,connect,sendto";
const RESOLVER_FILES: [&str; 4] = ["/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/gai.conf"];

/// Whether strace is here and may trace a child.
fn strace_works() -> bool {
    match Command::new("strace").args(["-f", "-o", "/dev/null", "true"]).output() {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            eprintln!(
                "note: strace cannot trace here ({}): security tests skipped",
                String::from_utf8_lossy(&out.stderr)
            );
            false
        }
        Err(_) => {
            eprintln!("note: strace is not installed (apt-get install strace): security tests skipped");
            false
        }
    }
}

/// A workspace with a main configuration that includes a glob and names host-name rules, a served
/// directory outside the workspace with .htaccess files, and decoys nobody names.
struct Tree {
    _dir: tempfile::TempDir,
    /// The workspace folder (holds the main configuration).
    ws: PathBuf,
    /// Outside the workspace: the served directory and the decoys.
    outside: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::Builder::new().prefix("apache-lsp-security-").tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let ws = root.join("ws");
        let outside = root.join("outside");
        for d in ["ws/conf.d", "outside/www/sub", "outside/decoy", "outside/extra", "outside/unnamed"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let o = outside.display();
        let write = |p: PathBuf, text: &str| std::fs::write(p, text).unwrap();
        write(
            ws.join("apache2.conf"),
            &format!(
                "ServerRoot \"{ws}\"\nListen 8080\nUser www-data\nGroup no-such-group-here\nInclude conf.d/*.conf\nIncludeOptional \"{o}/extra/*.conf\"\n\
                 DocumentRoot \"{o}/www\"\n<Directory \"{o}/www\">\n    AllowOverride All\n    Order deny,allow\n    \
                 Deny from all\n    Allow from .example.org 10.1.0.0/16\n</Directory>\n\
                 <Location /status>\n    Require host status.example.com\n</Location>\n",
                ws = ws.display()
            ),
        );
        write(
            ws.join("conf.d/site.conf"),
            "<VirtualHost *:8080>\n    ServerName www.example.net\n    <Location /admin>\n        \
             Require host admin.example.net\n        Require ip 192.0.2.1\n    </Location>\n</VirtualHost>\n",
        );
        // Beside the glob's matches, not matched by it: a file the workspace holds.
        write(ws.join("conf.d/README.txt"), "not configuration\n");
        write(outside.join("extra/more.conf"), "<Location /more>\n    Allow from all\n</Location>\n");
        write(outside.join("www/.htaccess"), "Require host intranet.example.org\n");
        write(outside.join("www/sub/.htaccess"), "Satisfy any\n");
        // Decoys: files nobody names, next to ones that are.
        write(outside.join("decoy/decoy.conf"), "Require all granted\n");
        write(outside.join("extra/more.conf.bak"), "Require all granted\n");
        write(outside.join("unnamed/.htaccess"), "Require all granted\n");
        Tree { _dir: dir, ws, outside }
    }

    /// Files nobody names and no workspace holds: never to be opened.
    fn decoys(&self) -> Vec<PathBuf> {
        vec![
            self.outside.join("decoy/decoy.conf"),
            self.outside.join("extra/more.conf.bak"),
            self.outside.join("unnamed/.htaccess"),
        ]
    }

    /// Whether a path is one apache-lsp may open: the system's, the workspace's, or named by the
    /// configuration (the IncludeOptional match and the served directory's .htaccess files).
    fn may_open(&self, path: &Path, workspace_allowed: bool) -> bool {
        let system = ["/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/etc/ld.so.", "/proc/", "/sys/", "/dev/"];
        let s = path.to_string_lossy();
        if system.iter().any(|p| s.starts_with(p)) {
            return true;
        }
        // The account files `User` and `Group` are looked up in (read directly: the name
        // service, which may ask a directory server, is not used).
        if ["/etc/passwd", "/etc/group"].iter().any(|f| path == Path::new(f)) {
            return true;
        }
        let named = [
            self.ws.join("apache2.conf"),
            self.ws.join("conf.d/site.conf"),
            self.outside.join("extra/more.conf"),
            self.outside.join("www/.htaccess"),
            self.outside.join("www/sub/.htaccess"),
        ];
        if named.iter().any(|n| n == path) {
            return true;
        }
        // Directories are opened to list them (Include globs, the served tree's subdirectories).
        if path.is_dir() {
            return true;
        }
        workspace_allowed && path.starts_with(&self.ws)
    }
}

/// What a trace shows.
#[derive(Default, Debug)]
struct Trace {
    opened: BTreeSet<PathBuf>,
    execs: Vec<String>,
    sockets: Vec<String>,
}

/// Reads an strace log (`-f -o FILE`): paths of open/openat/openat2 (whatever their result),
/// execve lines and socket/connect/sendto lines.
fn read_trace(log: &Path) -> Trace {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("strace log {}: {e}", log.display()));
    let mut t = Trace::default();
    for line in text.lines() {
        // "PID syscall(args) = result", possibly split as "<unfinished ...>" / "<... resumed>".
        let call = line.split_once(' ').map(|(_, rest)| rest.trim_start()).unwrap_or(line);
        let name = call.split('(').next().unwrap_or("");
        match name {
            "open" | "openat" | "openat2" => {
                if let Some(p) = first_quoted(call) {
                    t.opened.insert(PathBuf::from(p));
                }
            }
            "execve" | "execveat" => t.execs.push(call.to_string()),
            "socket" | "connect" | "sendto" => t.sockets.push(call.to_string()),
            _ => {}
        }
    }
    t
}

/// The first double-quoted string of an strace line (paths are printed quoted).
fn first_quoted(call: &str) -> Option<String> {
    let start = call.find('"')? + 1;
    let end = start + call[start..].find('"')?;
    Some(call[start..end].to_string())
}

/// The strace command that runs `args` with the traced calls logged to `log`.
fn traced(log: &Path) -> Command {
    let mut cmd = Command::new("strace");
    // The dynamic loader would search the directories cargo puts in LD_LIBRARY_PATH.
    cmd.env_remove("LD_LIBRARY_PATH");
    cmd.args(["-f", "-qq", "-s", "4096", "-e", TRACED, "-o"]).arg(log).arg(server_binary());
    cmd
}

/// The checks shared by check and the server: nothing executed but the binary itself, no socket,
/// no resolver file, no decoy, and every opened file one it may open.
fn assert_confined(tree: &Tree, t: &Trace, what: &str, workspace_allowed: bool) {
    assert_eq!(t.execs.len(), 1, "{what}: programs executed besides apache-lsp itself: {:#?}", t.execs);
    assert!(t.execs[0].contains("apache-lsp"), "{what}: {:?}", t.execs[0]);
    assert!(t.sockets.is_empty(), "{what}: made sockets: {:#?}", t.sockets);
    for f in RESOLVER_FILES {
        assert!(!t.opened.contains(Path::new(f)), "{what}: read the resolver's {f}");
    }
    for d in tree.decoys() {
        assert!(!t.opened.contains(&d), "{what}: opened {}, which nothing names", d.display());
    }
    let stray: Vec<_> = t.opened.iter().filter(|p| !tree.may_open(p, workspace_allowed)).collect();
    assert!(stray.is_empty(), "{what}: opened files it may not: {stray:#?}");
}

#[test]
fn check_reads_only_what_the_configuration_names_and_never_the_network() {
    if !strace_works() {
        return;
    }
    let tree = Tree::new();
    let log = tree.ws.parent().unwrap().join("check.strace");
    let out = traced(&log).arg("check").arg(tree.ws.join("apache2.conf")).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The run did its job: the inherited old-style rules and the .htaccess were read.
    assert!(stdout.contains("deprecated"), "check found nothing:\n{stdout}");
    // The accounts were looked up, without the name service (no nsswitch.conf, no socket, below).
    assert!(stdout.contains("bad group name no-such-group-here"), "{stdout}");
    let t = read_trace(&log);
    for named in [tree.outside.join("extra/more.conf"), tree.outside.join("www/.htaccess")] {
        assert!(t.opened.contains(&named), "check did not read {}: {:#?}", named.display(), t.opened);
    }
    // check reads the configuration only: not even the workspace's other files.
    assert!(!t.opened.contains(&tree.ws.join("conf.d/README.txt")), "check read a file the glob does not match");
    assert_confined(&tree, &t, "check", false);
}

#[test]
fn the_server_reads_only_named_and_workspace_files_and_never_the_network() {
    if !strace_works() {
        return;
    }
    let tree = Tree::new();
    let log = tree.ws.parent().unwrap().join("server.strace");
    let mut c = Client::spawn_command(traced(&log));
    c.initialize_with(
        json!({"workspace": {"workspaceFolders": true, "symbol": {}},
               "textDocument": {"hover": {"contentFormat": ["markdown"]}, "publishDiagnostics": {}}}),
        &[&tree.ws],
        json!({}),
    );
    let main = tree.ws.join("apache2.conf");
    let uri = file_uri(&main);
    let text = std::fs::read_to_string(&main).unwrap();
    c.open(&uri, &text);
    let diags = c.diagnostics(&uri, Some(1), WAIT).expect("diagnostics of the main configuration");
    assert!(diags.iter().any(|d| d["code"] == "deprecated-access"), "{diags:#?}");
    // Hover on the sections with host-name rules, code actions, links, symbols, completion.
    for needle in ["<Directory", "<Location /status"] {
        let r = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position_of(&text, needle, 2)}),
        );
        let md = r["result"]["contents"]["value"].as_str().unwrap_or_default().to_string();
        assert!(md.contains("Effective access"), "hover on {needle}: {r}");
    }
    let end = json!({"line": text.lines().count(), "character": 0});
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": end},
               "context": {"diagnostics": diags}}),
    );
    assert!(r["result"].is_array(), "{r}");
    let r = c.request("textDocument/documentLink", json!({"textDocument": {"uri": uri}}));
    assert!(r["result"].is_array(), "{r}");
    let r = c.request("workspace/symbol", json!({"query": "admin"}));
    assert!(r["result"].is_array(), "{r}");
    let r = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": position_of(&text, "Require host status", 8)}),
    );
    assert!(!r["result"].is_null(), "{r}");
    c.shutdown().expect("the server exits on shutdown");
    let t = read_trace(&log);
    assert!(t.opened.contains(&tree.outside.join("www/.htaccess")), "the served .htaccess was not read");
    assert_confined(&tree, &t, "the server", true);
}

#[test]
fn explain_resolves_only_when_asked_to() {
    if !strace_works() {
        return;
    }
    let tree = Tree::new();
    let main = tree.ws.join("apache2.conf");
    // A host rule decides /status: with --no-dns the outcome is unknown and nothing is looked up.
    let log = tree.ws.parent().unwrap().join("explain-nodns.strace");
    let out = traced(&log).arg("explain").arg(&main).arg("/status").arg("--no-dns").output().unwrap();
    assert!(!out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = read_trace(&log);
    assert_confined(&tree, &t, "explain --no-dns", false);
    // Without it, explain asks the system resolver for the client's name: the trace sees the
    // resolver at work, which shows that the checks above would see a lookup.
    let log = tree.ws.parent().unwrap().join("explain-dns.strace");
    let out = traced(&log).arg("explain").arg(&main).arg("/status").output().unwrap();
    assert!(!out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = read_trace(&log);
    let resolver_used = RESOLVER_FILES.iter().any(|f| t.opened.contains(Path::new(f))) || !t.sockets.is_empty();
    assert!(resolver_used, "explain did not consult the resolver: {:#?}", t.opened);
    assert_eq!(t.execs.len(), 1, "explain executed a program: {:#?}", t.execs);
}
