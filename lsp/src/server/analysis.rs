//! Which configuration a document is analysed in, and running analysis safely.

use crate::ide::config::{Config, FileId};
pub use crate::ide::workspace::is_main_config as looks_like_main;
use std::sync::Arc;

/// A document in the configuration it is analysed in (see [`super::cache`]): the
/// given root (configured or discovered) when it reaches the document, or serves it
/// as an .htaccess file; the document itself when it is a main configuration; else
/// the document alone as a fragment.
pub struct Loaded {
    pub cfg: Arc<Config>,
    pub file: FileId,
    pub main: std::path::PathBuf,
    pub is_main: bool,
    /// For an access file read per request: the root configuration that serves its directory
    /// (what the code actions prove their rewrites under). None when no root is known.
    pub access_root: Option<std::path::PathBuf>,
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
