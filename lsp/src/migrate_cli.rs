//! `apache-lsp migrate`: rewrite a configuration tree to Require, one verified
//! section at a time, and print a diff or write the files atomically.

use crate::ide::config::RealFs;
use crate::ide::migrate::{self, Scope, Workspace};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct Outcome {
    /// path → (original text, new text)
    pub changed: BTreeMap<PathBuf, (Arc<str>, String)>,
    /// Sections left old-style, with why.
    pub left: Vec<String>,
    /// Access changes accepted with --allow-changes.
    pub access_changes: Vec<String>,
    /// Remarks on the proof.
    pub notes: Vec<String>,
    /// The files the tree reads.
    pub read: std::collections::BTreeSet<PathBuf>,
}

/// Migrates the tree rooted at `main` (a main configuration, a fragment, or an .htaccess file),
/// removing the byte-order mark files begin with when `remove_bom`.
pub fn migrate(main: &Path, is_main: bool, allow_changes: bool, remove_bom: bool) -> Outcome {
    let ws = Workspace { main, is_main, fs: &RealFs };
    let m = if remove_bom {
        migrate::migrate_removing_bom(&ws, Scope::Tree, allow_changes)
    } else {
        migrate::migrate(&ws, Scope::Tree, allow_changes)
    };
    Outcome { changed: m.changed, left: m.left, access_changes: m.changes, notes: m.notes, read: m.read }
}

/// The unified diff `migrate` prints for one file, as [`diff_all`] prints it.
pub fn unified_diff(path: &Path, old: &str, new: &str) -> Result<Vec<u8>, String> {
    diff_all(&BTreeMap::from([(path.to_path_buf(), (Arc::from(old), new.to_string()))]))
}

/// The unified diff `migrate` prints (without `--write`): each file under its own path, a
/// symbolic link's target (the file `--write` replaces: patch(1) refuses to patch a link), with
/// `a/…` and `b/…` names for `patch -p1`, and its bytes as [`write_all`] would write them (bytes
/// that are not UTF-8 are copied, not replaced: the context must be the file's own). A file
/// reached under two names is diffed once. An error (nothing printed) where `--write` would
/// write nothing.
pub fn diff_all(changed: &BTreeMap<PathBuf, (Arc<str>, String)>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for p in plan(changed)? {
        let name = p.target.display();
        out.extend(crate::line_diff::unified_bytes(&format!("a{name}"), &format!("b{name}"), &p.now, &p.bytes, 3));
    }
    Ok(out)
}

/// A changed file as it is to be written.
struct Planned<'a> {
    /// The name the migration read it under.
    name: &'a PathBuf,
    /// The file itself (symbolic links followed).
    target: PathBuf,
    /// Its bytes on disk now.
    now: Vec<u8>,
    /// The bytes to write.
    bytes: Vec<u8>,
}

/// The files to write for `changed`, each once, after checking that none changed on disk since
/// it was read (else an error saying which).
fn plan(changed: &BTreeMap<PathBuf, (Arc<str>, String)>) -> Result<Vec<Planned<'_>>, String> {
    let mut plans: Vec<Planned> = Vec::new();
    for (p, (old, new)) in changed {
        let target = std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let now = std::fs::read(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        let bytes = new_bytes(&now, old, new).map_err(|e| format!("{}: {e}", p.display()))?;
        // One file under two names is written once, and only with one text for both.
        if let Some(q) = plans.iter().find(|q| q.target == target) {
            if q.bytes != bytes {
                return Err(format!(
                    "{} and {} are one file ({}) rewritten differently",
                    q.name.display(),
                    p.display(),
                    target.display()
                ));
            }
            continue;
        }
        plans.push(Planned { name: p, target, now, bytes });
    }
    Ok(plans)
}

/// Writes every changed file, atomically each, after checking that none changed on disk since
/// it was read (then nothing is written). Returns the files written: the files themselves, a
/// symbolic link's target rather than the link (the link stays a link).
///
/// The migration reads files as text (bytes that are not UTF-8 decoded lossily); what is
/// written keeps the file's own bytes for every line the rewrite did not touch.
pub fn write_all(changed: &BTreeMap<PathBuf, (Arc<str>, String)>) -> Result<Vec<PathBuf>, String> {
    test_pause();
    let plans = plan(changed).map_err(|e| format!("{e}; nothing written"))?;
    let mut written = Vec::new();
    for p in plans {
        write_atomic(&p.target, &p.now, &p.bytes).map_err(|e| {
            let done: Vec<String> = written.iter().map(|w: &PathBuf| w.display().to_string()).collect();
            format!("{e} (already written: {})", if done.is_empty() { "none".into() } else { done.join(", ") })
        })?;
        written.push(p.target);
    }
    Ok(written)
}

/// For the test suite only: with `APACHE_LSP_MIGRATE_TEST_PAUSE=PATH`, `migrate --write` says
/// so on stderr once everything is computed and waits (at most 30 s) for PATH to exist before
/// it checks and writes the files, so that a test can change a file in between.
fn test_pause() {
    let Some(go) = std::env::var_os("APACHE_LSP_MIGRATE_TEST_PAUSE") else { return };
    eprintln!("apache-lsp migrate: ready to write");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !Path::new(&go).exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The bytes to write: `now` (the file on disk) with the rewrite of `old` (the text the
/// migration read, `now` decoded) into `new` applied line by line. Lines the rewrite kept are
/// copied from `now`, so bytes that are not UTF-8 survive; an error when `now` no longer
/// decodes to `old` (the file changed since it was read) or when a rewritten line would lose
/// such bytes.
pub fn new_bytes(now: &[u8], old: &str, new: &str) -> Result<Vec<u8>, String> {
    if now == old.as_bytes() {
        return Ok(new.as_bytes().to_vec());
    }
    const CHANGED: &str = "changed on disk since it was read";
    let byte_lines: Vec<&[u8]> = now.split_inclusive(|b| *b == b'\n').collect();
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    if byte_lines.len() != old_lines.len()
        || byte_lines.iter().zip(&old_lines).any(|(b, o)| String::from_utf8_lossy(b) != *o)
    {
        return Err(CHANGED.into());
    }
    let mut out = Vec::with_capacity(now.len() + new.len().saturating_sub(old.len()));
    for op in crate::line_diff::line_ops(&old_lines, &new_lines) {
        match op {
            similar::DiffOp::Equal { old_index, len, .. } => {
                byte_lines[old_index..old_index + len].iter().for_each(|l| out.extend_from_slice(l));
            }
            similar::DiffOp::Delete { .. } => {}
            similar::DiffOp::Insert { new_index, new_len, .. }
            | similar::DiffOp::Replace { new_index, new_len, .. } => {
                for l in &new_lines[new_index..new_index + new_len] {
                    if l.contains('\u{FFFD}') {
                        return Err(format!(
                            "a rewritten line would replace bytes that are not UTF-8: {:?}",
                            l.trim_end()
                        ));
                    }
                    out.extend_from_slice(l.as_bytes());
                }
            }
        }
    }
    Ok(out)
}

/// The name pattern of the temporary files `write_atomic` creates beside a file: hidden, ending
/// in `.tmp` so that no `Include *.conf` pattern reads one. A process killed between creating
/// one and renaming it over the file leaves it behind (nothing else does).
pub const TEMP_PREFIX: &str = ".apache-lsp-migrate.";
pub const TEMP_SUFFIX: &str = ".tmp";

/// Replaces a file atomically: a temporary file in the same directory, fsync, rename over the
/// target (through symlinks, to their target, so that the link stays a link), keeping the mode
/// and the owner. Refuses when the file on disk no longer holds `expected`.
pub fn write_atomic(path: &Path, expected: &[u8], new: &[u8]) -> Result<(), String> {
    let target = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let now = std::fs::read(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    if now != expected {
        return Err(format!("{} changed on disk since it was read; not written", path.display()));
    }
    let meta = std::fs::metadata(&target).map_err(|e| e.to_string())?;
    let dir = target.parent().ok_or("no parent directory")?;
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{name}."))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    tmp.write_all(new).map_err(|e| e.to_string())?;
    std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Only root may give a file away; others keep their own ownership (as an editor would).
        let _ = std::os::unix::fs::chown(tmp.path(), Some(meta.uid()), Some(meta.gid()));
    }
    tmp.as_file().sync_all().map_err(|e| e.to_string())?;
    tmp.persist(&target).map_err(|e| e.to_string())?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_lines_keep_their_bytes() {
        let now =
            b"# caf\xe9 \xff\r\n<Directory /x>\r\n\tOrder deny,allow\r\n\tDeny from all\r\n</Directory>\r\n# end \xfe";
        let old = String::from_utf8_lossy(now).into_owned();
        let new = old.replace("\tOrder deny,allow\r\n\tDeny from all\r\n", "\tRequire all denied\r\n");
        let out = new_bytes(now, &old, &new).unwrap();
        assert_eq!(
            out,
            b"# caf\xe9 \xff\r\n<Directory /x>\r\n\tRequire all denied\r\n</Directory>\r\n# end \xfe".to_vec()
        );
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_refused() {
        let old = "Order deny,allow\n# \u{FFFD}\n";
        assert!(new_bytes(b"Order deny,allow\n# \xff\nDeny from all\n", old, "Require all granted\n").is_err());
        assert!(new_bytes(b"Order allow,deny\n", "Order deny,allow\n", "x\n").is_err());
        // Valid UTF-8: the new text as it is.
        assert_eq!(new_bytes(b"a\nb", "a\nb", "a\nc").unwrap(), b"a\nc".to_vec());
    }

    #[test]
    fn a_rewritten_line_may_not_drop_bytes() {
        let now = b"<Limit GET> # \xff\nOrder deny,allow\n</Limit>\n";
        let old = String::from_utf8_lossy(now).into_owned();
        let new = old.replace("Order deny,allow\n", "Require all granted\n").replace("<Limit GET>", "<Limit GET POST>");
        assert!(new_bytes(now, &old, &new).unwrap_err().contains("not UTF-8"));
    }
}
