//! The protocol side of workspace indexing: progress reports while the roots
//! are loaded (`window/workDoneProgress`), the file watchers the server asks the
//! client for (`client/registerCapability` of `workspace/didChangeWatchedFiles`),
//! and which open documents a re-index or a change on disk affects. The
//! analysis itself is [`crate::ide::workspace`].

use super::analysis::guarded;
use super::convert;
use super::state::State;
use crate::ide::workspace::{self, Progress, Workspace};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp::lsp_types::notification::Progress as ProgressNotification;
use tower_lsp::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp::lsp_types::*;
use tower_lsp::Client;

const WATCH_REGISTRATION: &str = "apache-lsp/watched-files";

/// Progress reported through `$/progress` when the client supports it; silent otherwise.
struct Reporter<'a> {
    client: &'a Client,
    token: Option<NumberOrString>,
}

impl<'a> Reporter<'a> {
    async fn begin(client: &'a Client, state: &State, title: &str) -> Reporter<'a> {
        if !state.client.lock().unwrap().work_done_progress {
            return Reporter { client, token: None };
        }
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let token = NumberOrString::String(format!("apache-lsp/index/{n}"));
        if client
            .send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: token.clone() })
            .await
            .is_err()
        {
            return Reporter { client, token: None };
        }
        let r = Reporter { client, token: Some(token) };
        r.send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: title.into(),
            cancellable: Some(false),
            message: None,
            percentage: Some(0),
        }))
        .await;
        r
    }

    async fn send(&self, value: WorkDoneProgress) {
        if let Some(token) = &self.token {
            self.client
                .send_notification::<ProgressNotification>(ProgressParams {
                    token: token.clone(),
                    value: ProgressParamsValue::WorkDone(value),
                })
                .await;
        }
    }

    async fn report(&self, p: &Progress) {
        let (message, percentage) = match p {
            Progress::Scanning(dir) => (format!("searching {}", dir.display()), None),
            Progress::Loading { done, total, path } => {
                (format!("{}/{total} {}", done + 1, path.display()), Some((*done * 100 / (*total).max(1)) as u32))
            }
            Progress::LoadingLoose(n) => (format!("{n} file(s) no main configuration includes"), Some(100)),
        };
        self.send(WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: Some(false),
            message: Some(message),
            percentage,
        }))
        .await;
    }

    async fn end(&self, message: String) {
        self.send(WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message) })).await;
    }
}

/// Re-indexes the workspace folders (with progress) and returns the index before and after.
pub async fn reindex(client: &Client, state: &Arc<State>) -> (Arc<Workspace>, Arc<Workspace>) {
    let _serial = state.indexing.lock().await;
    let old = state.workspace.lock().unwrap().clone();
    if state.folders.lock().unwrap().is_empty() && state.root_config.lock().unwrap().is_none() {
        // Nothing to search: no progress to show.
        let new = Arc::new(Workspace::default());
        *state.workspace.lock().unwrap() = new.clone();
        return (old, new);
    }
    let reporter = Reporter::begin(client, state, "apache-lsp: indexing configuration").await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let st = state.clone();
    let task = tokio::task::spawn_blocking(move || {
        guarded("workspace index", || {
            let fs = st.snapshot();
            let folders = st.folders.lock().unwrap().clone();
            let explicit = st.root_config.lock().unwrap().clone();
            workspace::index(&folders, explicit.as_deref(), &fs, &mut |p| {
                let _ = tx.send(p);
            })
        })
    });
    // The channel closes when indexing is done.
    while let Some(p) = rx.recv().await {
        reporter.report(&p).await;
    }
    let new = match task.await {
        Ok(Ok(ws)) => Arc::new(ws),
        Ok(Err(e)) => {
            client.log_message(MessageType::ERROR, e.message).await;
            old.clone()
        }
        Err(e) => {
            client.log_message(MessageType::ERROR, format!("workspace indexing failed: {e}")).await;
            old.clone()
        }
    };
    *state.workspace.lock().unwrap() = new.clone();
    let files: usize = new.roots.iter().map(|r| r.cfg.files.len()).sum();
    reporter.end(format!("{} main configuration(s), {files} file(s)", new.roots.len())).await;
    tracing::info!("indexed {} roots, {} loose files", new.roots.len(), new.loose.len());
    (old, new)
}

/// Open documents whose analysis may differ after the index went from `old` to
/// `new` and `changed` files changed on disk: those whose root changed, whose root
/// reads a changed file, and those no root reaches (loaded alone, they may include one).
pub fn affected_documents(state: &State, old: &Workspace, new: &Workspace, changed: &[PathBuf]) -> Vec<Url> {
    let docs: Vec<PathBuf> = state.docs.lock().unwrap().keys().cloned().collect();
    docs.into_iter()
        .filter(|doc| {
            let (before, after) = (old.root_for(doc), new.root_for(doc));
            let root_changed = before.map(|r| &r.main) != after.map(|r| &r.main);
            let reads_changed = |r: Option<&workspace::Root>| {
                r.is_some_and(|r| changed.iter().any(|c| r.reaches(c) || r.serves_access_file(c)))
            };
            root_changed || reads_changed(before) || reads_changed(after) || (after.is_none() && !changed.is_empty())
        })
        .filter_map(|doc| convert::path_to_url(&doc))
        .collect()
}

/// Asks the client to watch the configuration files of the folders, and every file
/// below the directories of roots outside them; re-registers when those change.
pub async fn register_watchers(client: &Client, state: &State) {
    let support = *state.client.lock().unwrap();
    if !support.watch_registration {
        return;
    }
    let folders = state.folders.lock().unwrap().clone();
    let ws = state.workspace.lock().unwrap().clone();
    let mut outside: Vec<PathBuf> = ws
        .roots
        .iter()
        .filter_map(|r| r.cfg.server_root.canonicalize().ok().or_else(|| r.main.parent().map(Path::to_path_buf)))
        .filter(|d| !folders.iter().any(|f| d.starts_with(f)))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    outside.sort();
    let registered = {
        let mut watched = state.watched_outside.lock().unwrap();
        if watched.as_ref() == Some(&outside) {
            return;
        }
        watched.replace(outside.clone()).is_some()
    };
    if registered {
        let _ = client
            .unregister_capability(vec![Unregistration {
                id: WATCH_REGISTRATION.into(),
                method: "workspace/didChangeWatchedFiles".into(),
            }])
            .await;
    }
    let mut watchers: Vec<FileSystemWatcher> = [
        "**/*.conf",
        "**/*.load",
        "**/.htaccess",
        "**/envvars",
        "**/*-enabled/**",
        "**/*-available/**",
        "**/conf.d/**",
        "**/conf.modules.d/**",
    ]
    .iter()
    .map(|p| FileSystemWatcher { glob_pattern: GlobPattern::String(p.to_string()), kind: None })
    .collect();
    for dir in &outside {
        let glob_pattern = match convert::path_to_url(dir) {
            Some(base) if support.watch_relative_patterns => {
                GlobPattern::Relative(RelativePattern { base_uri: OneOf::Right(base), pattern: "**/*".into() })
            }
            _ => GlobPattern::String(format!("{}/**/*", dir.display())),
        };
        watchers.push(FileSystemWatcher { glob_pattern, kind: None });
    }
    let options = DidChangeWatchedFilesRegistrationOptions { watchers };
    let registration = Registration {
        id: WATCH_REGISTRATION.into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: serde_json::to_value(options).ok(),
    };
    if let Err(e) = client.register_capability(vec![registration]).await {
        tracing::warn!("the client refused file watchers: {e}");
    }
}

/// The symbols of the workspace index, with the open documents as the editor shows them:
/// each open document's own symbols come from its current text, in its configuration.
pub fn symbols(state: &State) -> Vec<crate::ide::workspace_symbols::Symbol> {
    let ws = state.workspace.lock().unwrap().clone();
    let fs = state.snapshot();
    let open: Vec<PathBuf> = fs.docs.keys().cloned().collect();
    // Whether a symbol's file is open, under its own name or through a link (asked once per file).
    let mut open_files: std::collections::HashMap<Arc<Path>, bool> = Default::default();
    let mut out = Vec::new();
    for s in ws.symbols() {
        let is_open = *open_files.entry(s.file.path.clone()).or_insert_with(|| {
            fs.docs.contains_key(&*s.file.path)
                || (!fs.by_target.is_empty() && s.file.path.canonicalize().is_ok_and(|c| fs.by_target.contains_key(&c)))
        });
        if !is_open {
            out.push(s);
        }
    }
    // One file open under two names (a sites-enabled link and its sites-available target):
    // its symbols once, under the name its configuration reads it by if one of them is that.
    let mut per_file: std::collections::HashMap<PathBuf, (bool, Vec<crate::ide::workspace_symbols::Symbol>)> =
        Default::default();
    let mut order: Vec<PathBuf> = Vec::new();
    for doc in &open {
        // The document's own symbols, from its configuration as the cache keeps it.
        let Ok(found) = guarded("workspace/symbol", || {
            state.analyses.with(state, doc, |_, l| {
                let fd = l.cfg.files[l.file].clone();
                let symbols = crate::ide::workspace_symbols::symbols(&l.cfg);
                (fd, symbols)
            })
        }) else {
            continue;
        };
        let (fd, symbols) = found;
        // Reached through a link, the tree names the file otherwise than the editor does: use the editor's name.
        let shown = if &*fd.path == doc.as_path() {
            fd.clone()
        } else {
            Arc::new(crate::ide::FileData {
                path: Arc::from(doc.as_path()),
                text: fd.text.clone(),
                parse: fd.parse.clone(),
                line_index: fd.line_index.clone(),
                not_utf8: fd.not_utf8,
            })
        };
        let own: Vec<_> = symbols
            .into_iter()
            .filter(|s| s.file.path == fd.path)
            .map(|mut s| {
                s.file = shown.clone();
                s
            })
            .collect();
        let tree_name = &*fd.path == doc.as_path();
        let key = doc.canonicalize().unwrap_or_else(|_| doc.clone());
        match per_file.get_mut(&key) {
            Some(kept) if kept.0 || !tree_name => {}
            Some(kept) => *kept = (tree_name, own),
            None => {
                order.push(key.clone());
                per_file.insert(key, (tree_name, own));
            }
        }
    }
    for key in order {
        if let Some((_, symbols)) = per_file.remove(&key) {
            out.extend(symbols);
        }
    }
    out
}
