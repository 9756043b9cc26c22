//! Open documents and what the server negotiated, shared by the handlers.
//!
//! Edits are applied under a synchronous lock, in the order the client sent
//! them, with no `.await` while it is held.

use crate::ide::config::{FileSource, RealFs};
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
    /// What the client said at initialize that it can take.
    pub client: Mutex<ClientCapabilities>,
    /// The semantic tokens last sent per document, for semanticTokens/full/delta:
    /// (result id, tokens).
    pub semantic_tokens: Mutex<HashMap<PathBuf, (String, Vec<tower_lsp::lsp_types::SemanticToken>)>>,
    next_result_id: std::sync::atomic::AtomicU64,
}

/// The parts of the client's capabilities the handlers follow.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClientCapabilities {
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
        Overlay { docs: self.docs.lock().unwrap().iter().map(|(p, d)| (p.clone(), d.text.clone())).collect() }
    }
    pub fn version(&self, path: &Path) -> Option<i32> {
        self.docs.lock().unwrap().get(path).map(|d| d.version)
    }
}

/// Open documents over the disk: what the editor shows wins.
pub struct Overlay {
    pub docs: HashMap<PathBuf, Arc<str>>,
}

impl FileSource for Overlay {
    fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
        match self.docs.get(path) {
            Some(t) => Ok((t.clone(), None)),
            None => RealFs.read(path),
        }
    }
}
