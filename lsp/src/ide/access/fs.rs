//! What the request walk knows of the file system: which paths are directories and the
//! `.htaccess` files, asked of the disk (once per batch when cached) or of an overlay, and
//! the `r->filename` httpd's directory walk ends on.

use super::walk::{HtaccessSlot, Refusals};
use crate::ide::catalogue::context::Overrides;
use crate::ide::config::index::components;
use crate::ide::config::{self, FileData};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// `r->filename` after `ap_directory_walk`: the translated path up to its first component that is
/// not a directory (a file, or nothing); what follows is PATH_INFO. A path that is a directory
/// all the way keeps the trailing slash it was requested with. This is the name httpd matches
/// `<Files>` and `<DirectoryMatch>` against and logs in AH01797/AH01630.
pub fn request_filename(translated: &Path) -> PathBuf {
    request_filename_in(&FsView::fresh(), translated)
}

pub(super) fn request_filename_in(fs: &FsView, translated: &Path) -> PathBuf {
    let s = path_text(translated);
    let comps = components(&s);
    // The path grown one component at a time ("/a", "/a/b", …: what `PathBuf::push` writes),
    // and where each of those prefixes ends.
    let mut full = String::with_capacity(s.len() + 1);
    let mut ends = Vec::with_capacity(comps.len());
    for c in &comps {
        full.push('/');
        full.push_str(c);
        ends.push(full.len());
    }
    // What the disk already told of each prefix, asked of the cache at once (a batch makes tens
    // of thousands of walks from two threads: one lock each, not one per prefix).
    let told = fs.disk_told(ends.iter().map(|&end| &full[..end]));
    // A directory's ancestors are directories: the walk starts after the deepest prefix the
    // disk already told is one (most requests share all but their last components).
    let known = told.iter().rposition(|&d| d == Some(true));
    let from = known.map_or(0, |k| k + 1);
    for (&end, &told) in ends[from..].iter().zip(&told[from..]) {
        if !fs.is_dir_told(Path::new(&full[..end]), told) {
            return PathBuf::from(&full[..end]);
        }
    }
    if full.is_empty() {
        PathBuf::from("/")
    } else if s.ends_with('/') {
        PathBuf::from(format!("{full}/"))
    } else {
        PathBuf::from(full)
    }
}

/// What the walk knows of the file system: which paths are directories, and the
/// `.htaccess` files. A batch over many requests ([`FsView::cached`], the checker)
/// asks each question once; a single request ([`FsView::fresh`]) asks afresh.
#[derive(Default)]
pub struct FsView {
    /// (Shared with [`FsView::last_missing`]'s twin: the disk answers both alike.)
    cache: Option<Arc<Mutex<FsCache>>>,
    overlay: Arc<FsOverlay>,
    /// The overlay's directories, and all its paths, by their bytes: asked at every step of
    /// every walk (a `Path` compares component by component, and a migration's overlay names
    /// thousands of directories).
    overlaid_dirs: Arc<rustc_hash::FxHashSet<std::ffi::OsString>>,
    overlaid: Arc<rustc_hash::FxHashSet<std::ffi::OsString>>,
    /// The disk holds the tree the server serves ([`FsView::deployed`]): the walk stops where
    /// httpd's does, at the first component that is not a directory.
    deployed: bool,
    /// The last component of each request, unless a directory, is taken to be missing
    /// ([`FsView::last_missing`]).
    last_missing: bool,
}

/// What a walk is told about the file system beyond the disk: directories taken to exist
/// (a migration proof covers every directory a configuration names, deployed here or not)
/// and per-request files (.htaccess) with other texts (pending rewrites, unsaved buffers).
#[derive(Default, Clone, Debug)]
pub struct FsOverlay {
    pub dirs: std::collections::BTreeSet<PathBuf>,
    pub files: std::collections::BTreeMap<PathBuf, Arc<str>>,
}

#[derive(Default)]
struct FsCache {
    /// Keyed by the path's bytes: hashing and comparing a `Path` goes component by component.
    /// (Fx: a batch looks up tens of thousands of long paths several times each.)
    dirs: rustc_hash::FxHashMap<std::ffi::OsString, bool>,
    files: rustc_hash::FxHashMap<std::ffi::OsString, Result<Option<Arc<FileData>>, String>>,
    links: rustc_hash::FxHashMap<std::ffi::OsString, Option<Link>>,
    /// Large .htaccess files parsed under a configuration ([`FsView::fragment`]), by the file
    /// read (held in `files`, so its address is not reused) and the configuration's address.
    fragments: rustc_hash::FxHashMap<(usize, usize), Arc<config::Config>>,
    /// Their policies, by the same key and the AllowOverride in force ([`FsView::htaccess_built`]).
    built: rustc_hash::FxHashMap<(usize, usize, Overrides), Arc<HtaccessSlot>>,
    /// The lines httpd's handlers refuse of the smaller ones, by the same key: a short list,
    /// where the check of every line of the file that gives it costs more than the walk.
    refusals: rustc_hash::FxHashMap<(usize, usize, Overrides), Arc<Refusals>>,
}

/// From this size on, an .htaccess file parsed by a cached view is kept parsed: a blocklist of
/// thousands of lines in a directory above many sections is read on every walk that passes
/// it, and parsing it each time costs more than the walk. Smaller ones are parsed again (a
/// tree with tens of thousands of small files would otherwise hold them all parsed).
pub(super) const KEEP_PARSED_FROM: usize = 16 * 1024;

/// What lstat(), and stat() for a link, tell of `p`: whether it is a directory (through a
/// link) and the link it is, if one.
pub(super) fn ask_disk(p: &Path) -> (bool, Option<Link>) {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::metadata(p).ok();
            let link = Link {
                target_reached: target.is_some(),
                same_owner: target.as_ref().is_some_and(|t| t.uid() == m.uid()),
            };
            (target.is_some_and(|t| t.is_dir()), Some(link))
        }
        Ok(m) => (m.is_dir(), None),
        Err(_) => (false, None),
    }
}

/// A symbolic link as httpd's directory walk sees it (`server/request.c: resolve_symlink`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Link {
    /// Its target can be stat()ed.
    pub(super) target_reached: bool,
    /// Its target is owned by the link's owner (what `SymLinksIfOwnerMatch` asks).
    pub(super) same_owner: bool,
}

impl FsView {
    pub fn fresh() -> FsView {
        FsView::default()
    }
    /// A fresh view of a disk that holds the tree the server serves (explain on this machine):
    /// a `<Directory>` section for a directory that is not there applies to nothing, as in
    /// httpd's walk. The other views keep applying it: a configuration is often checked
    /// away from the tree it serves.
    pub fn deployed() -> FsView {
        FsView { deployed: true, ..FsView::default() }
    }
    /// Whether this view is [`FsView::deployed`].
    pub(super) fn is_deployed(&self) -> bool {
        self.deployed
    }
    pub fn cached() -> FsView {
        FsView { cache: Some(Arc::default()), ..FsView::default() }
    }
    /// A cached view with `overlay` over the disk.
    pub fn overlaid(overlay: FsOverlay) -> FsView {
        // (Keyed as the walk writes paths: components joined by single slashes, no trailing one.)
        let key = |p: &PathBuf| p.components().collect::<PathBuf>().into_os_string();
        let overlaid_dirs: rustc_hash::FxHashSet<_> = overlay.dirs.iter().map(key).collect();
        let overlaid = overlaid_dirs.iter().cloned().chain(overlay.files.keys().map(key)).collect();
        FsView {
            cache: Some(Arc::default()),
            overlay: Arc::new(overlay),
            overlaid_dirs: Arc::new(overlaid_dirs),
            overlaid: Arc::new(overlaid),
            deployed: false,
            last_missing: false,
        }
    }
    /// This view where the last component of each request, when it is no directory here, is
    /// not there at all: httpd's walk stats it, finds nothing and stops, so the `<Directory>`
    /// sections of its depth (a wildcard `…/*`, a file's own name) do not apply. The other views
    /// that are not [`FsView::deployed`] take it to be there (a file: those sections apply, as
    /// when httpd skips the stat of a path that exists); a request for a missing file is the
    /// other case, which a migration must keep too. Shares this view's cache.
    pub fn last_missing(&self) -> FsView {
        FsView {
            cache: self.cache.clone(),
            overlay: self.overlay.clone(),
            overlaid_dirs: self.overlaid_dirs.clone(),
            overlaid: self.overlaid.clone(),
            deployed: self.deployed,
            last_missing: true,
        }
    }
    /// Whether the walk stops before the last component when it is no directory: a deployed
    /// tree (where it is a file the walk may skip that stat), or [`FsView::last_missing`].
    pub(crate) fn stats_last(&self) -> bool {
        self.deployed || self.last_missing
    }
    pub(crate) fn is_dir(&self, p: &Path) -> bool {
        let told = self
            .cache
            .as_ref()
            .and_then(|c| c.lock().unwrap_or_else(|e| e.into_inner()).dirs.get(p.as_os_str()).copied());
        self.is_dir_told(p, told)
    }

    /// [`FsView::is_dir`] given what the cache holds of `p` ([`FsView::disk_told`]).
    fn is_dir_told(&self, p: &Path, told: Option<bool>) -> bool {
        if self.overlaid_dirs.contains(p.as_os_str()) {
            return true;
        }
        let Some(c) = &self.cache else { return p.is_dir() };
        if let Some(d) = told {
            return d;
        }
        // One lstat() tells both what the walk asks here and, for the symbolic-link check after
        // it, whether this is a link (a stat() more only for links).
        let (d, link) = ask_disk(p);
        let mut c = c.lock().unwrap_or_else(|e| e.into_inner());
        c.dirs.insert(p.as_os_str().to_os_string(), d);
        c.links.insert(p.as_os_str().to_os_string(), link);
        d
    }

    /// What a cached view already found on the disk of each path (not the overlay: an overlaid
    /// directory's parents may be missing), under one lock; None where it has not asked (and
    /// for every path when the view is not cached).
    fn disk_told<'p>(&self, paths: impl ExactSizeIterator<Item = &'p str>) -> Vec<Option<bool>> {
        let Some(c) = &self.cache else { return vec![None; paths.len()] };
        let c = c.lock().unwrap_or_else(|e| e.into_inner());
        paths.map(|p| c.dirs.get(std::ffi::OsStr::new(p)).copied()).collect()
    }

    /// What lstat() tells of `p`: the link, None when it is not one (or not there). A path of
    /// the overlay is taken for a plain directory or file.
    pub(super) fn symlink(&self, p: &Path) -> Option<Link> {
        if self.overlaid.contains(p.as_os_str()) {
            return None;
        }
        let ask = || ask_disk(p).1;
        let Some(c) = &self.cache else { return ask() };
        if let Some(l) = c.lock().unwrap_or_else(|e| e.into_inner()).links.get(p.as_os_str()) {
            return *l;
        }
        let l = ask();
        c.lock().unwrap_or_else(|e| e.into_inner()).links.insert(p.as_os_str().to_os_string(), l);
        l
    }

    /// An .htaccess file: its text, None when it is not there (ENOENT, ENOTDIR: httpd
    /// goes on), or why it cannot be read (httpd stops with 403, AH00529).
    pub(super) fn read(&self, p: &Path) -> Result<Option<Arc<FileData>>, String> {
        let read = || {
            if let Some(text) = self.overlay.files.get(p) {
                return Ok(Some(Arc::new(FileData::new(Arc::from(p), text.clone(), None))));
            }
            // Only a regular file: a FIFO here would block the walk for ever.
            match config::read_regular(p) {
                Ok(bytes) => {
                    let (text, bad) = config::decode(bytes);
                    Ok(Some(Arc::new(FileData::new(Arc::from(p), text, bad))))
                }
                Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
                    Ok(None)
                }
                Err(e) => Err(e.to_string()),
            }
        };
        let Some(c) = &self.cache else { return read() };
        if let Some(f) = c.lock().unwrap_or_else(|e| e.into_inner()).files.get(p.as_os_str()) {
            return f.clone();
        }
        let f = read();
        // (The first read kept, should two walks read it at once: the caches below are keyed by
        // its address, which must not be freed and reused while the view lives.)
        c.lock().unwrap_or_else(|e| e.into_inner()).files.entry(p.as_os_str().to_os_string()).or_insert(f).clone()
    }
}

impl FsView {
    /// `fd` (an .htaccess file [`FsView::read`] gave) parsed under the server configuration
    /// `cfg`. A cached view keeps large files parsed, by `cfg`'s address: it is used with
    /// configurations that outlive it (a batch over one configuration, or a proof over two).
    pub(super) fn fragment(&self, fd: &Arc<FileData>, cfg: &config::Config) -> Arc<config::Config> {
        let key = (Arc::as_ptr(fd) as usize, cfg as *const config::Config as usize);
        let cache = self.cache.as_ref().filter(|_| fd.text.len() >= KEEP_PARSED_FROM);
        if let Some(c) = cache {
            if let Some(f) = c.lock().unwrap_or_else(|e| e.into_inner()).fragments.get(&key) {
                return f.clone();
            }
        }
        let frag = Arc::new(config::load_fragment_under(fd.clone(), cfg));
        if let Some(c) = cache {
            c.lock().unwrap_or_else(|e| e.into_inner()).fragments.insert(key, frag.clone());
        }
        frag
    }

    /// Where the policy of `fd` under `cfg` and `overrides` is built once merged: shared by
    /// every walk of a cached view for a large file ([`KEEP_PARSED_FROM`]), the walk's own otherwise
    /// (but for the lines httpd's handlers refuse, shared by every walk of a cached view: the
    /// file read is kept by the view, so its address is not reused).
    pub(super) fn htaccess_built(
        &self,
        fd: &Arc<FileData>,
        cfg: &config::Config,
        overrides: &Overrides,
    ) -> Arc<HtaccessSlot> {
        let Some(c) = self.cache.as_ref() else {
            return Arc::default();
        };
        let key = (Arc::as_ptr(fd) as usize, cfg as *const config::Config as usize, overrides.clone());
        let mut c = c.lock().unwrap_or_else(|e| e.into_inner());
        if fd.text.len() >= KEEP_PARSED_FROM {
            return c.built.entry(key).or_default().clone();
        }
        let refusals = c.refusals.entry(key).or_default().clone();
        Arc::new(HtaccessSlot { built: Default::default(), refusals })
    }
}

/// A path's text: borrowed when it is UTF-8 (checked a word at a time, where
/// `to_string_lossy` walks it in chunks), made lossy otherwise.
pub(super) fn path_text(p: &Path) -> std::borrow::Cow<'_, str> {
    p.to_str().map_or_else(|| p.to_string_lossy(), std::borrow::Cow::Borrowed)
}
