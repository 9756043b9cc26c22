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
}

impl State {
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
    fn exists(&self, path: &Path) -> bool {
        self.docs.contains_key(path) || RealFs.exists(path)
    }
}
