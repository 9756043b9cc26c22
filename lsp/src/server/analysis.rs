//! Which configuration a document is analysed in, and running analysis safely.

use super::state::Overlay;
use crate::ide::config::{self, Config, FileId};
pub use crate::ide::workspace::is_main_config as looks_like_main;
use crate::ide::workspace::{find_file, is_access_file_name};
use std::path::Path;
use std::sync::Arc;

/// Loads the configuration a document belongs to: the given root (configured or
/// discovered) when it reaches the document, or serves it as an .htaccess file;
/// the document itself when it is a main configuration; else the document alone
/// as a fragment.
pub struct Loaded {
    pub cfg: Config,
    pub file: FileId,
    pub main: std::path::PathBuf,
    pub is_main: bool,
}

pub fn config_for(path: &Path, root: Option<&Path>, fs: &Overlay) -> Loaded {
    if let Some(root) = root {
        let cfg = config::load(root, fs);
        if let Some(file) = find_file(&cfg, path) {
            return Loaded { cfg, file, main: root.to_path_buf(), is_main: true };
        }
        // An .htaccess file is read per request, under the server that serves its directory.
        if is_access_file_name(&cfg, path) {
            let cfg = config::load_in_context(path, fs, Arc::new(cfg));
            return Loaded { cfg, file: 0, main: path.to_path_buf(), is_main: false };
        }
    }
    let is_main = looks_like_main(path, fs);
    let cfg = if is_main { config::load(path, fs) } else { config::load_fragment(path, fs) };
    let file = cfg.file_id(path).unwrap_or(0);
    Loaded { cfg, file, main: path.to_path_buf(), is_main }
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
