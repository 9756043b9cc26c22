//! The unified diff `apache-lsp migrate` prints (without `--write`), read by the real
//! `patch -p1`: on the shape of round 7's random tree 100, where the hunk header was wrong and
//! patch refused the whole diff as malformed, and on random pairs of texts made of
//! configuration lines (CRLF lines, blank lines, a last line without newline). Every diff must
//! apply cleanly and give the new text byte for byte. (`migrate_generated` applies the diffs the
//! binary prints over whole generated trees.)
//!
//! Skips (with a note) when patch is not installed.

use apache_lsp::migrate_cli::unified_diff;
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
    let diff = unified_diff(file, old, new);
    if diff.is_empty() {
        return Ok(old.to_string());
    }
    let mut child = Command::new("patch")
        .args(["-p1", "-d", "/", "--batch", "--forward", "--no-backup-if-mismatch", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run patch");
    child.stdin.take().unwrap().write_all(diff.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        return Err(format!(
            "patch: {}{}\n{diff}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(std::fs::read_to_string(file).unwrap())
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
    assert!(unified_diff(&file, old, new).contains("\n@@ -1,15 +1,25 @@\n"));
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
