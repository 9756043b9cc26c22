//! The unified diff `apache-lsp migrate` prints (without `--write`), read by the real
//! `patch -p1`: on the shape of round 7's random tree 100, where the hunk header was wrong and
//! patch refused the whole diff as malformed, and on random pairs of texts made of
//! configuration lines (CRLF lines, blank lines, a last line without newline). Every diff must
//! apply cleanly and give the new text byte for byte. (`migrate_generated` applies the diffs the
//! binary prints over whole generated trees.)
//!
//! Round 13: a file included through a symbolic link and a file that is not UTF-8, diffed by
//! the binary and applied with `patch -p1 -F0`, give what `migrate --write` writes.
//!
//! Skips (with a note) when patch is not installed.

use apache_lsp::migrate_cli::unified_diff;
use apache_lsp_e2e::snapshot;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

fn patch_installed() -> bool {
    let ok = Command::new("patch").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: patch is not installed; skipped");
    }
    ok
}

/// Writes `old` to `file`, applies the diff migrate prints for it with `patch -p1` from `/`, and
/// returns the file's text afterwards, or patch's complaint.
fn patched(file: &Path, old: &str, new: &str) -> Result<String, String> {
    std::fs::write(file, old).unwrap();
    let diff = unified_diff(file, old, new).unwrap_or_else(|e| panic!("{e}"));
    if diff.is_empty() {
        return Ok(old.to_string());
    }
    patch(&diff, &["--quiet"])?;
    Ok(std::fs::read_to_string(file).unwrap())
}

/// Applies `diff` with `patch -p1` from `/` (and `extra` arguments); patch's complaint if it fails.
fn patch(diff: &[u8], extra: &[&str]) -> Result<(), String> {
    let mut child = Command::new("patch")
        .args(["-p1", "-d", "/", "--batch", "--forward", "--no-backup-if-mismatch"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run patch");
    child.stdin.take().unwrap().write_all(diff).unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        return Err(format!(
            "patch: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(diff)
        ));
    }
    Ok(())
}

#[test]
fn the_diff_of_random_tree_100_applies() {
    if !patch_installed() {
        return;
    }
    // htdocs/sub/.htaccess of that tree (15 lines, no final newline) and what --write made of
    // it: its <RequireAny> moved into new <Limit>/<LimitExcept> blocks. The diff was headed
    // `@@ -1,15 +20,6 @@` over 25 new lines.
    let old = "<RequireAny>\n  Require ip 127.1.2.3\n  Require valid-user\n</RequireAny>\n<Limit POST PUT>\n  # old rules\n  ALLOW from fe80::/10\n  ALLOW from 127.0\n  Deny from ::1/128\n  Satisfy Any\n</Limit>\n<Files index.html>\n  Order allow,deny\n  Satisfy any\n</Files>";
    let new = "<Limit POST PUT>\n  Require ip fe80::/10 127.0\n  <RequireAll>\n    Require all granted\n    <RequireNone>\n      Require ip ::1/128\n    </RequireNone>\n  </RequireAll>\n  <RequireAny>\n    Require ip 127.1.2.3\n    Require valid-user\n  </RequireAny>\n</Limit>\n<LimitExcept POST PUT>\n  <RequireAny>\n    Require ip 127.1.2.3\n    Require valid-user\n  </RequireAny>\n</LimitExcept>\n<Limit POST PUT>\n  # old rules\n</Limit>\n<Files index.html>\n  Require all granted\n</Files>";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".htaccess");
    std::fs::write(&file, old).unwrap();
    let diff = String::from_utf8(unified_diff(&file, old, new).unwrap()).unwrap();
    assert!(diff.contains("\n@@ -1,15 +1,25 @@\n"), "{diff}");
    assert_eq!(patched(&file, old, new).unwrap_or_else(|e| panic!("{e}")), new);
}

#[test]
fn random_diffs_apply() {
    if !patch_installed() {
        return;
    }
    let pool = [
        "<Limit POST PUT>\n",
        "</Limit>\n",
        "<RequireAny>\n",
        "</RequireAny>\n",
        "  Require valid-user\n",
        "  Require all granted\n",
        "  Order allow,deny\r\n",
        "  Allow from 127.0\r\n",
        "  # old rules\n",
        "\n",
        "</Files>",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("site.conf");
    let mut failures = Vec::new();
    for _ in 0..600 {
        let mut text = || {
            let len = next(16);
            let mut s = String::new();
            for k in 0..len {
                let l = pool[next(pool.len())];
                // A line without a newline can only be the last.
                if l.ends_with('\n') || k + 1 == len {
                    s.push_str(l);
                }
            }
            s
        };
        let (old, new) = (text(), text());
        match patched(&file, &old, &new) {
            Ok(got) if got == new => {}
            Ok(got) => failures.push(format!("{old:?} → {new:?}: patch gave {got:?}")),
            Err(e) => failures.push(format!("{old:?} → {new:?}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 600 diffs fail:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n")
    );
}

/// Round 13 (D1, D2): Debian's layout, a site file included through its sites-enabled link, and
/// a file in Latin-1. The diff named the link (patch: "not a regular file -- refusing to patch")
/// and printed the Latin-1 bytes of its context lines as U+FFFD (`patch -F0` and `git apply`
/// refused the hunk). Now it names the file `--write` writes and carries its bytes: applied with
/// `patch -p1 -F0` it gives byte for byte what `migrate --write` writes, and the link stays a link;
/// `--write` names the file it wrote.
#[test]
fn the_diff_names_the_linked_file_and_keeps_its_bytes() {
    if !patch_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let r = root.display();
    for sub in ["sites-available", "sites-enabled", "htdocs/x"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    let modules = ["access_compat", "authz_core", "authz_host"]
        .map(|m| format!("LoadModule {m}_module /usr/lib/apache2/modules/mod_{m}.so\n"))
        .concat();
    std::fs::write(
        root.join("apache2.conf"),
        format!("ServerRoot {r}\n{modules}DocumentRoot {r}/htdocs\nIncludeOptional sites-enabled/*.conf\nInclude latin.conf\n"),
    )
    .unwrap();
    std::fs::write(
        root.join("sites-available/site.conf"),
        format!("<Directory {r}/htdocs>\n    Order allow,deny\n    Allow from all\n</Directory>\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../sites-available/site.conf", root.join("sites-enabled/site.conf")).unwrap();
    let mut latin = b"# caf\xe9\n".to_vec();
    latin.extend_from_slice(
        format!("<Directory {r}/htdocs/x>\nOrder deny,allow\nDeny from all\n</Directory>\n").as_bytes(),
    );
    latin.extend_from_slice(b"# na\xefve\n");
    std::fs::write(root.join("latin.conf"), &latin).unwrap();
    let before = snapshot(&root);
    let migrate = |write: bool| {
        let mut c = Command::new(apache_lsp_e2e::lsp::server_binary());
        c.arg("migrate");
        if write {
            c.arg("--write");
        }
        let out = c.arg(root.join("apache2.conf")).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let diff = migrate(false).stdout;
    let text = String::from_utf8_lossy(&diff);
    assert!(
        text.contains(&format!("--- a{r}/sites-available/site.conf\n+++ b{r}/sites-available/site.conf\n")),
        "{text}"
    );
    assert!(!text.contains("sites-enabled"), "{text}");
    assert!(diff.windows(6).any(|w| w == b" # caf"), "{text}");
    assert!(diff.windows(7).any(|w| w == b" # caf\xe9"), "the context line keeps its byte: {text}");
    patch(&diff, &["-F0"]).unwrap_or_else(|e| panic!("{e}"));
    let patched = snapshot(&root);
    // Back to the old files, then --write.
    for (rel, bytes) in &before {
        if !bytes.starts_with(b"-> ") {
            std::fs::write(root.join(rel), bytes).unwrap();
        }
    }
    let err = String::from_utf8_lossy(&migrate(true).stderr).into_owned();
    assert!(err.contains(&format!("rewrote {r}/sites-available/site.conf\n")), "{err}");
    assert!(!err.contains("sites-enabled"), "{err}");
    let written = snapshot(&root);
    assert_eq!(patched, written);
    assert_ne!(written, before);
    assert_eq!(written["sites-enabled/site.conf"], b"-> ../sites-available/site.conf".to_vec());
    assert!(written["latin.conf"].starts_with(b"# caf\xe9\n"), "{:?}", String::from_utf8_lossy(&written["latin.conf"]));
    assert!(String::from_utf8_lossy(&written["sites-available/site.conf"]).contains("Require all granted"));
}
