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
}

/// Migrates the tree rooted at `main` (a main configuration, a fragment, or an .htaccess file).
pub fn migrate(main: &Path, is_main: bool, allow_changes: bool) -> Outcome {
    let ws = Workspace { main, is_main, fs: &RealFs };
    let m = migrate::migrate(&ws, Scope::Tree, allow_changes);
    Outcome { changed: m.changed, left: m.left, access_changes: m.changes, notes: m.notes }
}

pub fn unified_diff(path: &Path, old: &str, new: &str) -> String {
    let d = similar::TextDiff::from_lines(old, new);
    d.unified_diff()
        .context_radius(3)
        .header(&format!("a{}", path.display()), &format!("b{}", path.display()))
        .to_string()
}

/// Writes every changed file, atomically each, after checking that none changed on disk since
/// it was read (then nothing is written). Returns the files written.
pub fn write_all(changed: &BTreeMap<PathBuf, (Arc<str>, String)>) -> Result<Vec<PathBuf>, String> {
    for (p, (old, _)) in changed {
        let target = std::fs::canonicalize(p).map_err(|e| format!("{}: {e}; nothing written", p.display()))?;
        let now = std::fs::read(&target).map_err(|e| format!("{}: {e}; nothing written", target.display()))?;
        if now != old.as_bytes() {
            return Err(format!("{} changed on disk since it was read; nothing written", p.display()));
        }
    }
    let mut written = Vec::new();
    for (p, (old, new)) in changed {
        write_atomic(p, old, new).map_err(|e| {
            format!(
                "{e} (already written: {})",
                written.iter().map(|w: &PathBuf| w.display().to_string()).collect::<Vec<_>>().join(", ")
            )
        })?;
        written.push(p.clone());
    }
    Ok(written)
}

/// Replaces a file atomically: a temporary file in the same directory, fsync,
/// rename over the target (through symlinks, to their target), keeping the mode.
/// Refuses when the file on disk no longer holds `expected`.
pub fn write_atomic(path: &Path, expected: &str, new: &str) -> Result<(), String> {
    let target = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let now = std::fs::read(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    if now != expected.as_bytes() {
        return Err(format!("{} changed on disk since it was read; nothing written", path.display()));
    }
    let meta = std::fs::metadata(&target).map_err(|e| e.to_string())?;
    let dir = target.parent().ok_or("no parent directory")?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    tmp.write_all(new.as_bytes()).map_err(|e| e.to_string())?;
    tmp.as_file().sync_all().map_err(|e| e.to_string())?;
    std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::chown(tmp.path(), Some(meta.uid()), Some(meta.gid()));
    }
    tmp.persist(&target).map_err(|e| e.to_string())?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
