//! Open documents and what the server negotiated, shared by the handlers.
//!
//! Edits are applied under a synchronous lock, in the order the client sent
//! them, with no `.await` while it is held.

use crate::ide::config::{FileSource, RealFs};
use crate::ide::workspace::Workspace;
use apache_syntax::Encoding;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone)]
pub struct Document {
    pub text: Arc<str>,
    pub version: i32,
}

#[derive(Default)]
pub struct State {
    pub docs: Mutex<HashMap<PathBuf, Document>>,
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
        let docs: HashMap<PathBuf, Arc<str>> =
            self.docs.lock().unwrap().iter().map(|(p, d)| (p.clone(), d.text.clone())).collect();
        // An open file is also what the tree reads through a link to it (sites-enabled → sites-available).
        let by_target = docs.iter().filter_map(|(p, t)| Some((std::fs::canonicalize(p).ok()?, t.clone()))).collect();
        Overlay { docs, by_target }
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
}

impl FileSource for Overlay {
    fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
        if let Some(t) = self.docs.get(path) {
            return Ok((t.clone(), None));
        }
        if !self.by_target.is_empty() {
            if let Some(t) = std::fs::canonicalize(path).ok().and_then(|c| self.by_target.get(&c)) {
                return Ok((t.clone(), None));
            }
        }
        RealFs.read(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.docs.contains_key(path) || RealFs.exists(path)
    }
}
