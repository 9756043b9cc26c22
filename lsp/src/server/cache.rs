//! The configurations the open documents are analysed in, kept loaded between
//! requests and brought up to date with the documents' edits.
//!
//! A document is analysed in the tree of the root that reaches it (an `.htaccess`
//! file under the root serving its directory), else on its own as a main
//! configuration or a fragment ([`super::analysis::Loaded`]). Each such
//! configuration is loaded once and then follows the open documents: before each
//! use the edits made since are applied ([`Analysis::edit`]); an edit it cannot
//! follow, a document closed or opened with other contents, or a change on disk
//! to a file it reads, makes it load again.
//!
//! Locks: an entry's mutex is held while its analysis is brought up to date and
//! used; the document map only for short copies, never while waiting for an entry.

use super::analysis::Loaded;
use super::state::{DocumentEdit, Overlay, State};
use crate::ide::config::{self, FileId, FileSource, HtaccessFound, RealFs};
use crate::ide::incremental::Analysis;
use crate::ide::workspace::{find_file, is_access_file_name, is_main_config};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// A root of the workspace (configured or discovered).
    Root(PathBuf),
    /// A document that is a main configuration itself.
    Main(PathBuf),
    /// A document analysed alone as a fragment.
    Fragment(PathBuf),
}

#[derive(Default)]
struct Entry {
    /// None until loaded, and when it must load again.
    analysis: Option<Analysis>,
    /// For a root's configuration: the .htaccess files given to the analysis
    /// ([`Entry::sync_htaccess`]), with the index's count of changes to them then.
    htaccess: Option<(u64, Arc<HtaccessFound>)>,
    /// Open documents it reads: their generation, last edit applied, and file id.
    synced: HashMap<PathBuf, (u64, u64, FileId)>,
    /// Open documents it does not read (by generation).
    outside: HashMap<PathBuf, u64>,
}

#[derive(Default)]
pub struct Analyses {
    entries: Mutex<HashMap<Key, Arc<Mutex<Entry>>>>,
}

/// What the cache needs to know of an open document.
struct DocView {
    generation: u64,
    seq: u64,
    text: Arc<str>,
    edits: Vec<DocumentEdit>,
}

impl Analyses {
    /// Runs `f` with the up-to-date analysis of the configuration `path` is read in.
    pub fn with<T>(&self, state: &State, path: &Path, f: impl FnOnce(&mut Analysis, &Loaded) -> T) -> T {
        if let Some(root) = state.root_for(path) {
            let entry = self.entry(Key::Root(root.clone()));
            let mut e = entry.lock().unwrap();
            e.bring_up_to_date(state, &Key::Root(root.clone()));
            e.sync_htaccess(state, &root);
            let file = e.file_of(path);
            let a = e.analysis.as_mut().expect("loaded");
            if let Some(file) = file {
                let loaded = Loaded { cfg: a.config().clone(), file, main: root, is_main: true, access_root: None };
                return f(a, &loaded);
            }
            // An .htaccess file is read per request, under the server that serves its directory.
            if is_access_file_name(a.config(), path) {
                let cfg = config::load_in_context(path, &state.snapshot(), a.config().clone());
                let mut ha = Analysis::new(cfg);
                let loaded = Loaded {
                    cfg: ha.config().clone(),
                    file: 0,
                    main: path.to_path_buf(),
                    is_main: false,
                    access_root: Some(root),
                };
                return f(&mut ha, &loaded);
            }
        }
        let is_main = state.is_main(path);
        let key = if is_main { Key::Main(path.to_path_buf()) } else { Key::Fragment(path.to_path_buf()) };
        let entry = self.entry(key.clone());
        let mut e = entry.lock().unwrap();
        e.bring_up_to_date(state, &key);
        let file = e.file_of(path).unwrap_or(0);
        let a = e.analysis.as_mut().expect("loaded");
        let loaded = Loaded { cfg: a.config().clone(), file, main: path.to_path_buf(), is_main, access_root: None };
        f(a, &loaded)
    }

    fn entry(&self, key: Key) -> Arc<Mutex<Entry>> {
        self.entries.lock().unwrap().entry(key).or_default().clone()
    }

    /// Files changed on disk: every configuration reading one loads again (one the
    /// editor has open is read from the editor, not the disk). With files created
    /// or deleted, an Include wildcard may now match otherwise: all load again.
    pub fn files_changed(&self, state: &State, changed: &[PathBuf], created_or_deleted: bool) {
        let open: Vec<PathBuf> = state.docs.lock().unwrap().keys().cloned().collect();
        let entries: Vec<Arc<Mutex<Entry>>> = self.entries.lock().unwrap().values().cloned().collect();
        for entry in entries {
            let mut e = entry.lock().unwrap();
            let reads = |e: &Entry| {
                let Some(a) = &e.analysis else { return false };
                changed.iter().any(|p| !open.contains(p) && find_file(a.config(), p).is_some())
            };
            if created_or_deleted || reads(&e) {
                *e = Entry::default();
            }
        }
    }

    /// Forgets the configurations no open document is analysed in.
    pub fn forget_unused(&self, state: &State) {
        let open: Vec<PathBuf> = state.docs.lock().unwrap().keys().cloned().collect();
        let roots: Vec<PathBuf> = open.iter().filter_map(|p| state.root_for(p)).collect();
        self.entries.lock().unwrap().retain(|k, _| match k {
            Key::Root(r) => roots.contains(r),
            Key::Main(p) | Key::Fragment(p) => open.contains(p),
        });
    }
}

impl Entry {
    /// Gives the analysis of root `main` the .htaccess files below the directories it serves,
    /// as the workspace index found them (scanned in this analysis's configuration when the
    /// index has not yet) and with the editor's text of those open, when they changed since it
    /// was last given them.
    fn sync_htaccess(&mut self, state: &State, main: &Path) {
        let ws = state.workspace.lock().unwrap().clone();
        let Some(root) = ws.roots.iter().find(|r| r.main == main) else { return };
        let Some(a) = self.analysis.as_mut() else { return };
        let (count, paths) = root.htaccess(a.config());
        let mut open: Vec<(PathBuf, Arc<str>)> = state
            .docs
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| root.has_access_file(p))
            .map(|(p, d)| (p.clone(), d.text.clone()))
            .collect();
        open.sort_by(|a, b| a.0.cmp(&b.0));
        let same = |(c, given): &(u64, Arc<HtaccessFound>)| {
            *c == count
                && Arc::ptr_eq(&given.paths, &paths)
                && given.open.len() == open.len()
                && given.open.iter().zip(&open).all(|(a, b)| a.0 == b.0 && Arc::ptr_eq(&a.1, &b.1))
        };
        if self.htaccess.as_ref().is_some_and(same) {
            return;
        }
        let disk_unchanged = self.htaccess.as_ref().is_some_and(|(c, _)| *c == count);
        let found = Arc::new(HtaccessFound { paths, open });
        a.set_htaccess_found(Some(found.clone()), disk_unchanged);
        self.htaccess = Some((count, found));
    }

    /// The file id of an open document this analysis reads.
    fn file_of(&self, path: &Path) -> Option<FileId> {
        self.synced.get(path).map(|s| s.2).or_else(|| find_file(self.analysis.as_ref()?.config(), path))
    }

    /// Applies the open documents' edits made since the last use, or loads again.
    fn bring_up_to_date(&mut self, state: &State, key: &Key) {
        if self.analysis.is_some() && !self.follow_edits(state) {
            tracing::debug!("analysing {key:?} afresh");
            self.analysis = None;
        }
        if self.analysis.is_none() {
            self.load(state, key);
        }
    }

    /// Follows the documents' edits; false when it cannot.
    fn follow_edits(&mut self, state: &State) -> bool {
        let docs: HashMap<PathBuf, DocView> = {
            let open = state.docs.lock().unwrap();
            open.iter()
                .map(|(p, d)| {
                    let since = self.synced.get(p).filter(|s| s.0 == d.generation).map(|s| s.1).unwrap_or(u64::MAX);
                    let edits = d.edits.iter().filter(|e| e.seq > since).cloned().collect();
                    let view = DocView { generation: d.generation, seq: d.seq, text: d.text.clone(), edits };
                    (p.clone(), view)
                })
                .collect()
        };
        let Some(a) = self.analysis.as_mut() else { return false };
        // Documents closed since: the file is the disk's again.
        let closed: Vec<PathBuf> = self.synced.keys().filter(|p| !docs.contains_key(*p)).cloned().collect();
        for p in closed {
            let (_, _, file) = self.synced.remove(&p).expect("synced");
            match RealFs.read(&p) {
                Ok((text, None)) if text == a.config().files[file].text => {}
                _ => return false,
            }
        }
        self.outside.retain(|p, g| docs.get(p).is_some_and(|d| d.generation == *g));
        for (p, d) in &docs {
            match self.synced.get(p).copied() {
                Some((generation, seq, file)) if generation == d.generation => {
                    if seq == d.seq {
                        continue;
                    }
                    // The edits must follow on from the last one applied.
                    if d.edits.first().map(|e| e.seq) != Some(seq + 1) {
                        return false;
                    }
                    for e in &d.edits {
                        if !a.edit(file, e.file.clone(), e.change) {
                            return false;
                        }
                    }
                    self.synced.insert(p.clone(), (generation, d.seq, file));
                }
                Some(_) => return false,
                None => {
                    if self.outside.contains_key(p) {
                        continue;
                    }
                    match find_file(a.config(), p) {
                        // Opened with what the analysis read from the disk: nothing changes.
                        Some(file) if a.config().files[file].text == d.text => {
                            self.synced.insert(p.clone(), (d.generation, d.seq, file));
                        }
                        Some(_) => return false,
                        None => {
                            self.outside.insert(p.clone(), d.generation);
                        }
                    }
                }
            }
        }
        true
    }

    fn load(&mut self, state: &State, key: &Key) {
        // The documents as loaded: the overlay and their edit counts from one look.
        let (fs, seen) = {
            let open = state.docs.lock().unwrap();
            let seen: Vec<(PathBuf, u64, u64)> = open.iter().map(|(p, d)| (p.clone(), d.generation, d.seq)).collect();
            (Overlay::of(&open), seen)
        };
        let cfg = match key {
            Key::Root(main) | Key::Main(main) => config::load(main, &fs),
            Key::Fragment(path) => config::load_fragment(path, &fs),
        };
        self.synced.clear();
        self.outside.clear();
        self.htaccess = None;
        for (p, generation, seq) in seen {
            match find_file(&cfg, &p) {
                Some(file) => {
                    self.synced.insert(p, (generation, seq, file));
                }
                None => {
                    self.outside.insert(p, generation);
                }
            }
        }
        self.analysis = Some(Analysis::new(cfg));
    }
}

impl State {
    /// Whether a document is analysed as a main configuration (remembered per document).
    pub fn is_main(&self, path: &Path) -> bool {
        if let Some(known) = self.docs.lock().unwrap().get(path).and_then(|d| d.is_main) {
            return known;
        }
        let text = self.docs.lock().unwrap().get(path).map(|d| d.text.clone());
        let answer = match &text {
            Some(t) => is_main_config(path, &One(path, t.clone())),
            None => is_main_config(path, &RealFs),
        };
        if let Some(d) = self.docs.lock().unwrap().get_mut(path) {
            if text.as_ref().is_some_and(|t| Arc::ptr_eq(t, &d.text)) {
                d.is_main = Some(answer);
            }
        }
        answer
    }
}

/// One document's text over the disk.
struct One<'a>(&'a Path, Arc<str>);

impl FileSource for One<'_> {
    fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
        if path == self.0 {
            Ok((self.1.clone(), None))
        } else {
            RealFs.read(path)
        }
    }
}
