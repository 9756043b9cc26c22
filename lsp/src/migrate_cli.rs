//! `apache-lsp migrate`: rewrite a configuration tree to Require, one verified
//! section at a time, and print a diff or write the files atomically.

use crate::ide::config::{self, Config, FileSource, RealFs};
use crate::ide::migrate::{apply, old_style_sections, rewrite_section};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Disk with our pending rewrites on top.
struct Pending<'a> {
    base: &'a dyn FileSource,
    files: BTreeMap<PathBuf, Arc<str>>,
}

impl FileSource for Pending<'_> {
    fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
        match self.files.get(path) {
            Some(t) => Ok((t.clone(), None)),
            None => self.base.read(path),
        }
    }
}

pub struct Outcome {
    /// path → (original text, new text)
    pub changed: BTreeMap<PathBuf, (Arc<str>, String)>,
    /// Sections left old-style, with why.
    pub left: Vec<String>,
    /// Access changes accepted with --allow-changes.
    pub access_changes: Vec<String>,
}

pub fn migrate(main: &Path, is_main: bool, allow_changes: bool) -> Outcome {
    let mut pending = Pending { base: &RealFs, files: BTreeMap::new() };
    let mut originals: BTreeMap<PathBuf, Arc<str>> = BTreeMap::new();
    let mut refused: BTreeSet<(PathBuf, String, usize)> = BTreeSet::new();
    let mut left = Vec::new();
    let mut access_changes = Vec::new();
    let load = |fs: &dyn FileSource| if is_main { config::load(main, fs) } else { config::load_fragment(main, fs) };
    // Each round rewrites one section and reloads, so that every rewrite is
    // verified against the configuration as it is after the previous ones.
    for _round in 0..10_000 {
        let cfg: Config = load(&pending);
        let mut progressed = false;
        let mut seen: BTreeMap<(PathBuf, String), usize> = BTreeMap::new();
        for section in old_style_sections(&cfg) {
            let fd = cfg.file(section.loc.file);
            let header = fd.text[usize::from(section.loc.focus.start())..usize::from(section.loc.focus.end())]
                .trim()
                .to_string();
            let n = seen.entry((fd.path.to_path_buf(), header.clone())).or_insert(0);
            *n += 1;
            let key = (fd.path.to_path_buf(), header.clone(), *n);
            if refused.contains(&key) {
                continue;
            }
            let rw = rewrite_section(&cfg, main, is_main, section, &pending);
            let accept = !rw.edits.is_empty() && (rw.preserving || allow_changes);
            if !accept {
                let why = rw
                    .refused
                    .clone()
                    .unwrap_or_else(|| format!("the rewrite would change access: {}", rw.changes.join("; ")));
                left.push(format!("{}:{}: {header}: {why}", fd.path.display(), section.loc.line));
                refused.insert(key);
                continue;
            }
            if !rw.preserving {
                for c in &rw.changes {
                    access_changes.push(format!("{}:{}: {header}: {c}", fd.path.display(), section.loc.line));
                }
            }
            let edits: Vec<_> = rw.edits.iter().collect();
            let new_text = apply(&fd.text, &edits);
            originals.entry(fd.path.to_path_buf()).or_insert_with(|| fd.text.clone());
            pending.files.insert(fd.path.to_path_buf(), Arc::from(new_text));
            progressed = true;
            break;
        }
        if !progressed {
            break;
        }
    }
    let changed = originals
        .into_iter()
        .filter_map(|(p, orig)| {
            let new = pending.files.get(&p)?.to_string();
            (new != *orig).then_some((p, (orig, new)))
        })
        .collect();
    Outcome { changed, left, access_changes }
}

pub fn unified_diff(path: &Path, old: &str, new: &str) -> String {
    let d = similar::TextDiff::from_lines(old, new);
    d.unified_diff()
        .context_radius(3)
        .header(&format!("a{}", path.display()), &format!("b{}", path.display()))
        .to_string()
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
