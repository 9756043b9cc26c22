//! Which configuration a document is analysed in, and running analysis safely.

use super::state::Overlay;
use crate::ide::config::{self, Config, FileId};
use std::path::Path;

/// Loads the configuration a document belongs to: the configured root when it
/// reaches the document, the document itself when it is a main configuration,
/// else the document alone as a fragment.
pub struct Loaded {
    pub cfg: Config,
    pub file: FileId,
    pub main: std::path::PathBuf,
    pub is_main: bool,
}

pub fn config_for(path: &Path, root: Option<&Path>, fs: &Overlay) -> Loaded {
    if let Some(root) = root {
        let cfg = config::load(root, fs);
        if let Some(file) = cfg.file_id(path) {
            return Loaded { cfg, file, main: root.to_path_buf(), is_main: true };
        }
    }
    let is_main = looks_like_main(path, fs);
    let cfg = if is_main { config::load(path, fs) } else { config::load_fragment(path, fs) };
    let file = cfg.file_id(path).unwrap_or(0);
    Loaded { cfg, file, main: path.to_path_buf(), is_main }
}

/// A main configuration by name, or by content (it loads modules or sets ServerRoot).
pub fn looks_like_main(path: &Path, fs: &dyn config::FileSource) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if name == "httpd.conf" || name == "apache2.conf" {
        return true;
    }
    if name.contains("htaccess") {
        return false;
    }
    fs.read(path)
        .map(|(t, _)| {
            t.lines().any(|l| {
                let l = l.trim_start().to_ascii_lowercase();
                l.starts_with("loadmodule ") || l.starts_with("serverroot ")
            })
        })
        .unwrap_or(false)
}

/// Runs `f`, turning a panic into an error message so one bad request cannot
/// take the server down.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, tower_lsp::jsonrpc::Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|e| {
        let msg = super::guard::panic_message(&*e);
        tracing::error!("panic in {what}: {msg}");
        let mut err = tower_lsp::jsonrpc::Error::internal_error();
        err.message = format!("internal error in {what}: {msg}").into();
        err
    })
}
