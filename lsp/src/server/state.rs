//! Open documents and what the server negotiated, shared by the handlers.
//!
//! Edits are applied under a synchronous lock, in the order the client sent
//! them, with no `.await` while it is held.

use crate::ide::config::{FileData, FileSource, RealFs};
use crate::ide::workspace::Workspace;
use apache_syntax::{Encoding, LocalChange, TextRange, TextSize};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone)]
pub struct Document {
    pub text: Arc<str>,
    pub version: i32,
    /// `text` parsed, with its line index; kept in step edit by edit.
    pub file: Arc<FileData>,
    /// Which opening of the document this is (a document closed and opened again
    /// may hold anything).
    pub generation: u64,
    /// How many edits were applied since it was opened.
    pub seq: u64,
    /// The last edits, for the cached analyses to follow (older ones are dropped:
    /// an analysis that far behind loads again).
    pub edits: VecDeque<DocumentEdit>,
    /// Whether it is analysed as a main configuration; None until asked, and again
    /// after an edit that may change the answer.
    pub is_main: Option<bool>,
    /// The editor's text, while the document is analysed as the disk's bytes instead: the file
    /// begins with a byte-order mark the editor decoded and dropped, so httpd reads other
    /// bytes than the editor shows ([`Document::read_as_disk_when_marked`]). None otherwise.
    pub editor: Option<Arc<str>>,
}

/// One edit of a document: the document after it, and what its reparse re-read.
#[derive(Debug, Clone)]
pub struct DocumentEdit {
    pub seq: u64,
    pub file: Arc<FileData>,
    pub change: Option<LocalChange>,
}

/// How many edits a document remembers.
const KEPT_EDITS: usize = 16;

impl Document {
    pub fn new(path: &Path, text: String, version: i32) -> Document {
        static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let text: Arc<str> = Arc::from(text);
        let file = Arc::new(FileData::new(Arc::from(path), text.clone(), None));
        let generation = GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Document { text, version, file, generation, seq: 0, edits: VecDeque::new(), is_main: None, editor: None }
    }

    /// When the file on disk begins with a byte-order mark and the editor's text is its bytes
    /// decoded ([`crate::ide::bom::editor_shows_marked`]), analyses the bytes as httpd and
    /// `check` read them (the first line refused: 500 for an .htaccess file, no start for a
    /// server configuration file) rather than the editor's text. The first edit gives the
    /// document its editor's text back.
    pub fn read_as_disk_when_marked(&mut self) {
        let editor = self.editor.clone().unwrap_or_else(|| self.text.clone());
        let Ok(bytes) = crate::ide::config::read_regular(&self.file.path) else { return };
        if !crate::ide::bom::editor_shows_marked(&bytes, &editor) {
            return;
        }
        let (text, not_utf8) = crate::ide::config::decode(bytes);
        let fd = FileData::new(self.file.path.clone(), text, not_utf8);
        self.is_main = None;
        self.record(Arc::new(fd), None);
        self.editor = Some(editor);
    }

    /// The editor's text back, when the document was analysed as the disk's bytes.
    pub fn back_to_editor_text(&mut self) {
        if let Some(editor) = self.editor.take() {
            self.replace_all(editor.to_string());
        }
    }

    /// Replaces `delete` (offsets of the current text) by `insert`; the range is
    /// clamped onto the text and onto character boundaries.
    pub fn replace(&mut self, delete: TextRange, insert: &str) {
        let t = &*self.text;
        let clamp = |o: TextSize| {
            let mut o = usize::from(o).min(t.len());
            while !t.is_char_boundary(o) {
                o -= 1;
            }
            o
        };
        let (a, b) = (clamp(delete.start()), clamp(delete.end()));
        let mut s = String::with_capacity(t.len() - (b - a) + insert.len());
        s.push_str(&t[..a]);
        s.push_str(insert);
        s.push_str(&t[b..]);
        // Whether it is a main configuration depends on its LoadModule and ServerRoot lines.
        let mentions = |x: &str| {
            let x = x.to_ascii_lowercase();
            x.contains("loadmodule") || x.contains("serverroot")
        };
        let delete = TextRange::new(TextSize::from(a as u32), TextSize::from(b as u32));
        let (fd, change) = self.file.edited(Arc::from(s), delete, TextSize::of(insert));
        match change {
            Some(c) if !mentions(&t[c.old]) && !mentions(&fd.text[c.new]) => {}
            _ => self.is_main = None,
        }
        self.record(Arc::new(fd), change);
    }

    /// Replaces the whole text.
    pub fn replace_all(&mut self, text: String) {
        let fd = FileData::new(self.file.path.clone(), Arc::from(text), None);
        self.is_main = None;
        self.record(Arc::new(fd), None);
    }

    fn record(&mut self, file: Arc<FileData>, change: Option<LocalChange>) {
        self.editor = None;
        self.seq += 1;
        self.text = file.text.clone();
        self.file = file.clone();
        self.edits.push_back(DocumentEdit { seq: self.seq, file, change });
        while self.edits.len() > KEPT_EDITS {
            self.edits.pop_front();
        }
    }
}

#[derive(Default)]
pub struct State {
    pub docs: Mutex<HashMap<PathBuf, Document>>,
    /// The configurations the open documents are analysed in, kept between requests.
    pub analyses: super::cache::Analyses,
    pub encoding: Mutex<Option<Encoding>>,
    pub root_config: Mutex<Option<PathBuf>>,
    /// Severity overrides per diagnostic code ("error", "warning", "information",
    /// "hint", or "off"), from initializationOptions.diagnostics.severity.
    pub severity_overrides: Mutex<HashMap<String, String>>,
    /// The workspace folders, searched for main configurations.
    pub folders: Mutex<Vec<PathBuf>>,
    /// The roots found in the folders (the configured one first) and what they reach.
    pub workspace: Mutex<Arc<Workspace>>,
    /// What the client said it supports.
    pub client: Mutex<ClientSupport>,
    /// Serialises workspace indexing, so a later index is never overwritten by an earlier one.
    pub indexing: tokio::sync::Mutex<()>,
    /// Directories outside the folders whose files are watched (they hold a root's
    /// tree); None until watchers were registered.
    pub watched_outside: Mutex<Option<Vec<PathBuf>>>,
    /// The semantic tokens last sent per document, for semanticTokens/full/delta:
    /// (result id, tokens).
    pub semantic_tokens: Mutex<HashMap<PathBuf, (String, Vec<tower_lsp::lsp_types::SemanticToken>)>>,
    next_result_id: std::sync::atomic::AtomicU64,
    /// The diagnostics last serialized per open document, whose JSON the next
    /// publish reuses where they did not change.
    pub published: Mutex<HashMap<PathBuf, super::publish::DiagnosticsJson>>,
}

/// Client capabilities the server adapts to.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClientSupport {
    pub work_done_progress: bool,
    pub watch_registration: bool,
    pub watch_relative_patterns: bool,
    pub definition_links: bool,
    /// Completion items may be snippets.
    pub snippets: bool,
    /// The client asks for completion documentation through completionItem/resolve.
    pub resolves_documentation: bool,
}

impl State {
    /// Remembers the tokens sent for a document and returns their result id. Only
    /// the most recent documents are kept: a client asking for a delta against a
    /// forgotten id gets all tokens again.
    pub fn remember_semantic_tokens(&self, path: &Path, tokens: Vec<tower_lsp::lsp_types::SemanticToken>) -> String {
        const KEPT: usize = 64;
        let id = self.next_result_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_string();
        let mut map = self.semantic_tokens.lock().unwrap();
        if map.len() >= KEPT && !map.contains_key(path) {
            map.clear();
        }
        map.insert(path.to_path_buf(), (id.clone(), tokens));
        id
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding.lock().unwrap().unwrap_or(Encoding::Utf16)
    }
    pub fn snapshot(&self) -> Overlay {
        Overlay::of(&self.docs.lock().unwrap())
    }
    /// The main configuration a document is analysed under: the first root of the
    /// workspace that reaches it, else the configured one (if any).
    pub fn root_for(&self, path: &Path) -> Option<PathBuf> {
        let ws = self.workspace.lock().unwrap().clone();
        ws.root_for(path).map(|r| r.main.clone()).or_else(|| self.root_config.lock().unwrap().clone())
    }
    pub fn version(&self, path: &Path) -> Option<i32> {
        self.docs.lock().unwrap().get(path).map(|d| d.version)
    }
}

/// Open documents over the disk: what the editor shows wins.
pub struct Overlay {
    pub docs: HashMap<PathBuf, Arc<str>>,
    /// The open documents by their path with links resolved.
    pub by_target: HashMap<PathBuf, Arc<str>>,
    /// Their parses, which loading reuses.
    parsed: HashMap<PathBuf, Arc<FileData>>,
}

impl Overlay {
    pub fn of(open: &HashMap<PathBuf, Document>) -> Overlay {
        let docs: HashMap<PathBuf, Arc<str>> = open.iter().map(|(p, d)| (p.clone(), d.text.clone())).collect();
        // An open file is also what the tree reads through a link to it (sites-enabled → sites-available).
        let by_target = docs.iter().filter_map(|(p, t)| Some((std::fs::canonicalize(p).ok()?, t.clone()))).collect();
        let parsed = open.iter().map(|(p, d)| (p.clone(), d.file.clone())).collect();
        Overlay { docs, by_target, parsed }
    }
}

impl FileSource for Overlay {
    fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
        match self.own_text(path) {
            Some(t) => {
                let not_utf8 = self.parsed(path, &t).and_then(|fd| fd.not_utf8);
                Ok((t, not_utf8))
            }
            None => RealFs.read(path),
        }
    }
    fn exists(&self, path: &Path) -> bool {
        self.docs.contains_key(path) || RealFs.exists(path)
    }
    fn own_text(&self, path: &Path) -> Option<Arc<str>> {
        if let Some(t) = self.docs.get(path) {
            return Some(t.clone());
        }
        if self.by_target.is_empty() {
            return None;
        }
        std::fs::canonicalize(path).ok().and_then(|c| self.by_target.get(&c)).cloned()
    }
    fn parsed(&self, path: &Path, text: &Arc<str>) -> Option<Arc<FileData>> {
        self.parsed.get(path).filter(|fd| Arc::ptr_eq(&fd.text, text)).cloned()
    }
}
