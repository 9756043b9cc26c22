//! `impl LanguageServer`: a delegation table from protocol methods to analysis.

use super::analysis::guarded;
use super::convert;
use super::output::{Frame, Outbox};
use super::publish::{params_of, DiagnosticsJson};
use super::state::{Document, State};
use crate::ide;
use apache_syntax::Encoding;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp::jsonrpc::Result;

/// The `workspace/executeCommand` names the server runs.
const COMMANDS: &[&str] =
    &["apache-lsp.migrateFile", "apache-lsp.migrateTree", "apache-lsp.explain", "apache-lsp.syntaxTree"];
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer};

pub struct Backend {
    client: Client,
    state: Arc<State>,
    /// Serialises publishing so an older analysis never overwrites a newer one.
    publish: tokio::sync::Mutex<()>,
    /// Where serialized publishDiagnostics go (see [`super::output`]).
    outbox: Outbox,
}

impl Backend {
    pub fn new(client: Client, outbox: Outbox) -> Backend {
        Backend { client, state: Arc::new(State::default()), publish: tokio::sync::Mutex::new(()), outbox }
    }

    /// Publishes diagnostics serialized by [`DiagnosticsJson`] through the output;
    /// through tower-lsp when that has ended or they could not be serialized. Call
    /// with `publish` held, so that publishes keep their order.
    async fn publish(&self, frame: std::result::Result<Frame, PublishDiagnosticsParams>) {
        let p = match frame {
            Ok(frame) => match self.outbox.send(frame).await {
                Ok(()) => return,
                Err(frame) => match params_of(&frame) {
                    Some(p) => p,
                    None => return tracing::error!("a diagnostics frame that does not read back"),
                },
            },
            Err(p) => p,
        };
        self.client.publish_diagnostics(p.uri, p.diagnostics, p.version).await;
    }

    fn path(&self, uri: &Url) -> Result<PathBuf> {
        convert::url_to_path(uri)
            .ok_or_else(|| tower_lsp::jsonrpc::Error::invalid_params(format!("not a file URI: {uri}")))
    }

    /// Analyses the document as it is now and publishes, unless a newer edit
    /// arrived meanwhile (that edit publishes its own results).
    async fn refresh(&self, uri: Url) {
        self.refresh_since(uri, "refresh", std::time::Instant::now()).await
    }

    /// [`Backend::refresh`] for a notification that arrived at `since`: logs the time
    /// from then until the diagnostics are published (target `apache_lsp::timing`).
    async fn refresh_since(&self, uri: Url, what: &str, since: std::time::Instant) {
        let Ok(path) = self.path(&uri) else { return };
        let Some(version) = self.state.version(&path) else { return };
        let state = self.state.clone();
        let p = path.clone();
        let applied = since.elapsed();
        let u = uri.clone();
        let result = tokio::task::spawn_blocking(move || {
            let uri = u;
            guarded("diagnostics", || {
                let enc = state.encoding();
                let overrides = state.severity_overrides.lock().unwrap().clone();
                let t = std::time::Instant::now();
                state.analyses.with(&state, &p, |analysis, l| {
                    let fd = l.cfg.file(l.file);
                    let found = analysis.diagnostics(l.file);
                    let analysed = t.elapsed();
                    let items: Vec<(&ide::diagnostics::Diagnostic, ide::Severity)> = found
                        .into_iter()
                        .filter_map(|d| {
                            let severity = match overrides.get(d.code).map(|s| s.to_ascii_lowercase()).as_deref() {
                                Some("off") | Some("none") => return None,
                                Some("error") => ide::Severity::Error,
                                Some("warning") => ide::Severity::Warning,
                                Some("information") | Some("info") => ide::Severity::Information,
                                Some("hint") => ide::Severity::Hint,
                                _ => d.severity,
                            };
                            Some((d, severity))
                        })
                        .collect();
                    let converted = t.elapsed() - analysed;
                    let n = items.len();
                    let mut published = state.published.lock().unwrap();
                    let json = published.entry(p.clone()).or_default();
                    // Only the diagnostics that differ from those last published are
                    // converted and serialized.
                    let updated = json.update_with(
                        &items,
                        |(d, severity), old| converts_to(&l.cfg, fd, enc, d, *severity, old),
                        |(d, severity)| to_lsp_diagnostic(&l.cfg, fd, enc, d, *severity),
                    );
                    let frame = match updated {
                        Ok(()) => Ok(json.frame(&uri, Some(version))),
                        Err(diags) => Err(PublishDiagnosticsParams::new(uri, diags, Some(version))),
                    };
                    (frame, n, analysed, converted, t.elapsed() - analysed - converted)
                })
            })
        })
        .await;
        let (frame, n, analysed, converted, serialized) = match result {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => {
                self.client.log_message(MessageType::ERROR, e.message).await;
                return;
            }
            Err(e) => {
                self.client.log_message(MessageType::ERROR, format!("analysis task failed: {e}")).await;
                return;
            }
        };
        let _guard = self.publish.lock().await;
        if self.state.version(&path) == Some(version) {
            let t = std::time::Instant::now();
            self.publish(frame).await;
            let detail = format!(
                "(edit {applied:?}, analysis {analysed:?}, severities {converted:?}, converting and serializing the changed of {n} {serialized:?}, \
                 queueing {:?})",
                t.elapsed()
            );
            super::timing(what, &uri, Some(version), Some(&detail), since);
        }
    }

    /// Runs a request against the document in the context of its configuration.
    fn with_config<T>(
        &self,
        uri: &Url,
        what: &str,
        f: impl FnOnce(&super::analysis::Loaded, &super::state::Overlay, Encoding) -> T,
    ) -> Result<Option<T>> {
        let path = self.path(uri)?;
        if self.state.version(&path).is_none() {
            return Ok(None);
        }
        let enc = self.state.encoding();
        guarded(what, || {
            self.state.analyses.with(&self.state, &path, |_, l| {
                let fs = self.state.snapshot();
                Some(f(l, &fs, enc))
            })
        })
    }

    /// Runs a read-only request against the document's parse.
    fn with_file<T>(&self, uri: &Url, what: &str, f: impl FnOnce(&ide::FileData, Encoding) -> T) -> Result<Option<T>> {
        let path = self.path(uri)?;
        let Some(fd) = self.state.docs.lock().unwrap().get(&path).map(|d| d.file.clone()) else {
            return Ok(None);
        };
        let enc = self.state.encoding();
        guarded(what, || Some(f(&fd, enc)))
    }
}

impl Backend {
    /// After the editor's text of a file changed (opened, edited, closed): re-analyses the other
    /// open documents of the roots that read it, an access file they serve or, with `tree_too`
    /// (its text is not the disk's, or was not), a file of their tree (an AllowOverride or
    /// LoadModule edited in apache2.conf changes what an open .htaccess or included file is
    /// told; [`super::cache`] gives their analyses the editor's text).
    async fn refresh_readers_of(&self, path: &Path, tree_too: bool) {
        let ws = self.state.workspace.lock().unwrap().clone();
        let reads = |r: &&ide::workspace::Root| r.has_access_file(path) || (tree_too && r.reaches(path));
        let roots: Vec<&PathBuf> = ws.roots.iter().filter(reads).map(|r| &r.main).collect();
        if roots.is_empty() {
            return;
        }
        let docs: Vec<PathBuf> =
            self.state.docs.lock().unwrap().keys().filter(|d| d.as_path() != path).cloned().collect();
        for doc in docs {
            if ws.root_for(&doc).is_some_and(|r| roots.contains(&&r.main)) {
                if let Some(uri) = convert::path_to_url(&doc) {
                    self.refresh(uri).await;
                }
            }
        }
    }

    /// Re-indexes the workspace, watches what it reads, and re-analyses the open
    /// documents the new index or the `changed` files affect.
    async fn reindex(&self, changed: &[PathBuf]) {
        let (old, new) = super::workspace::reindex(&self.client, &self.state).await;
        self.state.analyses.forget_unused(&self.state);
        super::workspace::register_watchers(&self.client, &self.state).await;
        for uri in super::workspace::affected_documents(&self.state, &old, &new, changed) {
            self.refresh(uri).await;
        }
    }
}

/// The folders to search for main configurations: the workspace folders, else the root.
fn workspace_folders(params: &InitializeParams) -> Vec<PathBuf> {
    let from_folders: Vec<PathBuf> =
        params.workspace_folders.iter().flatten().filter_map(|f| convert::url_to_path(&f.uri)).collect();
    if !from_folders.is_empty() {
        return from_folders;
    }
    #[allow(deprecated)]
    params.root_uri.as_ref().and_then(convert::url_to_path).into_iter().collect()
}

fn client_support(caps: &ClientCapabilities) -> super::state::ClientSupport {
    let watch = caps.workspace.as_ref().and_then(|w| w.did_change_watched_files.as_ref());
    let completion_item =
        caps.text_document.as_ref().and_then(|t| t.completion.as_ref()).and_then(|c| c.completion_item.as_ref());
    super::state::ClientSupport {
        work_done_progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
        watch_registration: watch.and_then(|w| w.dynamic_registration).unwrap_or(false),
        watch_relative_patterns: watch.and_then(|w| w.relative_pattern_support).unwrap_or(false),
        definition_links: caps
            .text_document
            .as_ref()
            .and_then(|t| t.definition.as_ref())
            .and_then(|d| d.link_support)
            .unwrap_or(false),
        snippets: completion_item.and_then(|i| i.snippet_support).unwrap_or(false),
        resolves_documentation: completion_item
            .and_then(|i| i.resolve_support.as_ref())
            .is_some_and(|r| r.properties.iter().any(|p| p == "documentation")),
    }
}

fn workspace_symbol_kind(k: ide::workspace_symbols::SymbolKind) -> SymbolKind {
    use ide::workspace_symbols::SymbolKind::*;
    match k {
        VirtualHost => SymbolKind::NAMESPACE,
        Section => SymbolKind::MODULE,
        Define => SymbolKind::CONSTANT,
    }
}

impl Backend {
    /// A message the framing guard could not pass on: tell the client, keep serving.
    pub async fn malformed_message(&self, params: serde_json::Value) {
        let reason = params.get("reason").and_then(|r| r.as_str()).unwrap_or("malformed message");
        tracing::error!("malformed message: {reason}");
        self.client.log_message(MessageType::ERROR, format!("apache-lsp ignored a malformed message: {reason}")).await;
    }

    /// A request the framing guard found undecodable but answerable: InvalidRequest.
    pub async fn invalid_request(&self, params: serde_json::Value) -> Result<()> {
        let reason = params.get("reason").and_then(|r| r.as_str()).unwrap_or("invalid request");
        let mut err = tower_lsp::jsonrpc::Error::invalid_request();
        err.message = reason.to_string().into();
        Err(err)
    }
}

fn to_lsp_diagnostic(
    cfg: &ide::Config,
    fd: &ide::FileData,
    enc: Encoding,
    d: &ide::diagnostics::Diagnostic,
    severity: ide::Severity,
) -> Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .filter_map(|r| {
            let f = cfg.file(r.file);
            Some(DiagnosticRelatedInformation {
                location: Location {
                    uri: convert::path_to_url(&f.path)?,
                    range: convert::range(&f.line_index, enc, r.range),
                },
                message: r.message.to_string(),
            })
        })
        .collect();
    Diagnostic {
        range: convert::range(&fd.line_index, enc, d.range),
        severity: Some(convert::severity(severity)),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("apache-lsp".into()),
        message: d.message.to_string(),
        related_information: (!related.is_empty()).then_some(related),
        tags: d.deprecated.then(|| vec![DiagnosticTag::DEPRECATED]),
        ..Default::default()
    }
}

/// Whether `d` with `severity` converts to `old` (as [`to_lsp_diagnostic`] would make
/// it), without making it unless it has related information.
fn converts_to(
    cfg: &ide::Config,
    fd: &ide::FileData,
    enc: Encoding,
    d: &ide::diagnostics::Diagnostic,
    severity: ide::Severity,
    old: &Diagnostic,
) -> bool {
    if !d.related.is_empty() {
        return to_lsp_diagnostic(cfg, fd, enc, d, severity) == *old;
    }
    old.related_information.is_none()
        && *old.message == *d.message
        && old.severity == Some(convert::severity(severity))
        && matches!(&old.code, Some(NumberOrString::String(c)) if c == d.code)
        && old.tags.as_deref() == d.deprecated.then_some(&[DiagnosticTag::DEPRECATED][..])
        && old.range == convert::range(&fd.line_index, enc, d.range)
}

/// Symbols nest at most this deep; deeper ones hang from their ancestor at the
/// last level. Clients' JSON readers give up at about 128 levels (serde_json's
/// default, Python's recursion limit), and each symbol level costs two.
const MAX_SYMBOL_DEPTH: usize = 48;

/// Each symbol's parent once nesting is capped (parents come before children).
fn capped_parents(parents: impl Iterator<Item = Option<usize>>) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = Vec::new();
    let mut depth: Vec<usize> = Vec::new();
    for p in parents {
        let p = match p {
            Some(p) if depth[p] + 1 >= MAX_SYMBOL_DEPTH => out[p],
            p => p,
        };
        depth.push(p.map_or(0, |p| depth[p] + 1));
        out.push(p);
    }
    out
}

fn symbol_kind(k: &ide::document_symbols::StructureKind) -> SymbolKind {
    use ide::document_symbols::StructureKind::*;
    match k {
        VirtualHost => SymbolKind::NAMESPACE,
        Conditional => SymbolKind::PACKAGE,
        Container => SymbolKind::MODULE,
        AccessBlock => SymbolKind::STRUCT,
        Other => SymbolKind::OBJECT,
    }
}

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let offered =
            params.capabilities.general.as_ref().and_then(|g| g.position_encodings.clone()).unwrap_or_default();
        let enc = if offered.contains(&PositionEncodingKind::UTF8) { Encoding::Utf8 } else { Encoding::Utf16 };
        *self.state.encoding.lock().unwrap() = Some(enc);
        if let Some(root) =
            params.initialization_options.as_ref().and_then(|o| o.get("rootConfig")).and_then(|v| v.as_str())
        {
            *self.state.root_config.lock().unwrap() = Some(PathBuf::from(root));
        }
        *self.state.folders.lock().unwrap() = workspace_folders(&params);
        *self.state.client.lock().unwrap() = client_support(&params.capabilities);
        if let Some(map) = params
            .initialization_options
            .as_ref()
            .and_then(|o| o.get("diagnostics"))
            .and_then(|d| d.get("severity"))
            .and_then(|s| s.as_object())
        {
            let mut o = self.state.severity_overrides.lock().unwrap();
            for (k, v) in map {
                if let Some(v) = v.as_str() {
                    o.insert(k.clone(), v.to_string());
                }
            }
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(if enc == Encoding::Utf8 {
                    PositionEncodingKind::UTF8
                } else {
                    PositionEncodingKind::UTF16
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                })),
                document_symbol_provider: Some(OneOf::Left(true)),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                    code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::SOURCE_FIX_ALL]),
                    ..Default::default()
                })),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
                    ..Default::default()
                }),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(["<", "/", "{", "!", " "].map(String::from).to_vec()),
                    resolve_provider: Some(true),
                    ..Default::default()
                }),
                document_formatting_provider: Some(OneOf::Left(true)),
                document_range_formatting_provider: Some(OneOf::Left(true)),
                selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
                semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
                    SemanticTokensOptions {
                        legend: convert::semantic_token_legend(),
                        range: Some(true),
                        full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                        ..Default::default()
                    },
                )),
                document_link_provider: Some(DocumentLinkOptions {
                    resolve_provider: Some(false),
                    work_done_progress_options: Default::default(),
                }),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                document_highlight_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "apache-lsp".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        tracing::info!("initialized");
        self.reindex(&[]).await;
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let since = std::time::Instant::now();
        let Ok(path) = self.path(&params.text_document.uri) else { return };
        let mut doc = Document::new(&path, params.text_document.text, params.text_document.version);
        doc.read_as_disk_when_marked();
        // (A file of a tree opened as it is on disk changes nothing the others were told.)
        let tree_too = differs_from_disk(&path, &doc.text);
        self.state.docs.lock().unwrap().insert(path.clone(), doc);
        self.refresh_since(params.text_document.uri, "didOpen", since).await;
        self.refresh_readers_of(&path, tree_too).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let since = std::time::Instant::now();
        let Ok(path) = self.path(&params.text_document.uri) else { return };
        {
            // Applied synchronously, in arrival order, before any await.
            let enc = self.state.encoding();
            let mut docs = self.state.docs.lock().unwrap();
            let Some(doc) = docs.get_mut(&path) else {
                tracing::warn!("change to a document that is not open: {}", path.display());
                return;
            };
            // The editor's positions are in its text.
            doc.back_to_editor_text();
            for change in params.content_changes {
                match change.range {
                    None => doc.replace_all(change.text),
                    Some(r) => {
                        // Positions are in the text as the previous changes left it.
                        let range = convert::text_range(&doc.file.line_index, enc, r);
                        doc.replace(range, &change.text);
                    }
                }
            }
            doc.version = params.text_document.version;
        }
        let version = params.text_document.version;
        self.refresh_since(params.text_document.uri, "didChange", since).await;
        // (A later edit refreshes them in its turn.)
        if self.state.version(&path) == Some(version) {
            self.refresh_readers_of(&path, true).await;
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        // Saved with a byte-order mark the editor does not show, it is the disk's bytes again.
        if let Ok(path) = self.path(&params.text_document.uri) {
            if let Some(doc) = self.state.docs.lock().unwrap().get_mut(&path) {
                doc.read_as_disk_when_marked();
            }
        }
        self.refresh(params.text_document.uri).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let mut tree_too = false;
        if let Ok(path) = self.path(&params.text_document.uri) {
            let closed = self.state.docs.lock().unwrap().remove(&path);
            tree_too = closed.is_some_and(|d| differs_from_disk(&path, &d.text));
            self.state.analyses.forget_unused(&self.state);
            self.state.published.lock().unwrap().remove(&path);
        }
        // In order behind a publish of the document under way.
        {
            let _guard = self.publish.lock().await;
            self.publish(Ok(DiagnosticsJson::default().frame(&params.text_document.uri, None))).await;
        }
        // Closed, a file is the disk's again.
        if let Ok(path) = self.path(&params.text_document.uri) {
            self.refresh_readers_of(&path, tree_too).await;
        }
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let r = self.with_file(&params.text_document.uri, "documentSymbol", |fd, enc| {
            let nodes = ide::document_symbols::document_symbols(&fd.parse);
            // Build nested symbols bottom-up: children always follow their parent.
            let mut built: Vec<Option<DocumentSymbol>> = nodes
                .iter()
                .map(|n| {
                    #[allow(deprecated)]
                    Some(DocumentSymbol {
                        name: n.label.clone(),
                        detail: n.detail.clone(),
                        kind: symbol_kind(&n.kind),
                        tags: None,
                        deprecated: None,
                        range: convert::range(&fd.line_index, enc, n.node_range),
                        selection_range: convert::range(&fd.line_index, enc, n.navigation_range),
                        children: None,
                    })
                })
                .collect();
            let parents = capped_parents(nodes.iter().map(|n| n.parent));
            // Children were pushed last first: put them back in order as each node is done.
            let done = |mut s: DocumentSymbol| {
                if let Some(c) = s.children.as_mut() {
                    c.reverse();
                }
                s
            };
            for i in (0..nodes.len()).rev() {
                if let Some(p) = parents[i] {
                    let child = done(built[i].take().unwrap());
                    built[p].as_mut().unwrap().children.get_or_insert_with(Vec::new).push(child);
                }
            }
            DocumentSymbolResponse::Nested(built.into_iter().flatten().map(done).collect())
        })?;
        Ok(r)
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let since = std::time::Instant::now();
        let uri = params.text_document_position_params.text_document.uri;
        let pos = params.text_document_position_params.position;
        let r = self.with_config(&uri, "hover", |l, _, enc| {
            let fd = l.cfg.file(l.file);
            let offset = convert::offset(&fd.line_index, enc, pos);
            ide::hover::hover(&l.cfg, l.file, offset).map(|(range, md)| Hover {
                contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: md }),
                range: Some(convert::range(&fd.line_index, enc, range)),
            })
        })?;
        super::timing("hover", &uri, None, None, since);
        Ok(r.flatten())
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        let only = params.context.only.clone();
        let r = self.with_config(&uri, "codeAction", |l, fs, enc| {
            let fd = l.cfg.file(l.file);
            let range = convert::text_range(&fd.line_index, enc, params.range);
            let lc = ide::code_actions::LoadContext { main: &l.main, is_main: l.is_main, fs };
            // An .htaccess file is judged under the root configuration that serves it (configured
            // or found in the workspace), as its diagnostics are.
            let root_lc =
                l.access_root.as_deref().map(|r| ide::code_actions::LoadContext { main: r, is_main: true, fs });
            let mut actions = Vec::new();
            let wants =
                |k: &CodeActionKind| only.as_ref().is_none_or(|o| o.iter().any(|w| k.as_str().starts_with(w.as_str())));
            if wants(&CodeActionKind::QUICKFIX) {
                match &root_lc {
                    Some(rl) => {
                        let mut v = ide::code_actions::access_fixes(rl, &fd.path, range);
                        if v.is_empty() {
                            v = ide::code_actions::code_actions(&l.cfg, &lc, l.file, range);
                        }
                        actions.extend(v);
                    }
                    None => actions.extend(ide::code_actions::code_actions(&l.cfg, &lc, l.file, range)),
                }
                actions.extend(ide::code_actions::bom_fix(&l.cfg, l.file));
            }
            if wants(&CodeActionKind::SOURCE_FIX_ALL) {
                match &root_lc {
                    Some(rl) => actions.extend(ide::code_actions::fix_all_in(rl, &fd.path)),
                    None => actions.extend(ide::code_actions::fix_all(&l.cfg, &lc, l.file)),
                }
            }
            // A document analysed as the disk's bytes (a byte-order mark the editor does not
            // show) has offsets the editor's text does not: no edit of it can be placed there.
            let doc = self.path(&uri).ok();
            let as_disk = doc
                .as_ref()
                .is_some_and(|p| self.state.docs.lock().unwrap().get(p).is_some_and(|d| d.editor.is_some()));
            actions
                .into_iter()
                .filter_map(|a| {
                    let changes = workspace_changes(&l.cfg, fs, enc, &a.edits);
                    if as_disk && changes.keys().any(|k| convert::url_to_path(k) == doc) {
                        return None;
                    }
                    Some(CodeActionOrCommand::CodeAction(CodeAction {
                        title: a.title,
                        kind: Some(match a.kind {
                            ide::code_actions::ActionKind::QuickFix => CodeActionKind::QUICKFIX,
                            ide::code_actions::ActionKind::FixAll => CodeActionKind::SOURCE_FIX_ALL,
                        }),
                        is_preferred: Some(a.preferred),
                        edit: Some(WorkspaceEdit { changes: Some(changes), ..Default::default() }),
                        data: (!a.detail.is_empty()).then(|| serde_json::json!({ "detail": a.detail })),
                        ..Default::default()
                    }))
                })
                .collect::<Vec<_>>()
        })?;
        Ok(r)
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<serde_json::Value>> {
        // Hidden, for the test suite only: proves a panic in a handler is answered, not fatal.
        if params.command == "apache-lsp.testPanic"
            && std::env::var_os("APACHE_LSP_TEST_PANIC").is_some_and(|v| v == "1")
        {
            panic!("apache-lsp.testPanic: a panic the test suite asked for");
        }
        if !COMMANDS.contains(&params.command.as_str()) {
            return Err(tower_lsp::jsonrpc::Error::invalid_params(format!(
                "unknown command {:?}; this server runs {}",
                params.command,
                COMMANDS.join(", ")
            )));
        }
        let arg = params.arguments.first().cloned().unwrap_or_default();
        let uri = arg
            .get("uri")
            .and_then(|u| u.as_str())
            .or_else(|| arg.as_str())
            .and_then(|u| Url::parse(u).ok())
            .ok_or_else(|| tower_lsp::jsonrpc::Error::invalid_params("expected { uri }"))?;
        match params.command.as_str() {
            "apache-lsp.syntaxTree" => {
                let r =
                    self.with_file(&uri, "syntaxTree", |fd, _| apache_syntax::debug_tree(&fd.parse.syntax_node()))?;
                Ok(r.map(serde_json::Value::String))
            }
            "apache-lsp.explain" => {
                let url = arg.get("url").and_then(|v| v.as_str()).unwrap_or("/").to_string();
                let client = arg.get("client").and_then(|v| v.as_str()).unwrap_or("127.0.0.1").to_string();
                let r = self.with_config(&uri, "explain", |l, _, _| {
                    let args = crate::cli::ExplainArgs::for_request(&l.main, &url, &client);
                    match crate::cli::request_spec(&args, &l.cfg) {
                        Ok(spec) => ide::explain::to_text(&spec, &ide::explain::explain(&l.cfg, &spec)),
                        Err(e) => e,
                    }
                })?;
                Ok(r.map(serde_json::Value::String))
            }
            "apache-lsp.migrateFile" | "apache-lsp.migrateTree" => {
                let tree = params.command.ends_with("Tree");
                let edit = self.with_config(&uri, "migrate", |l, fs, enc| {
                    // An .htaccess file is migrated under the root configuration that serves it.
                    let ws = match &l.access_root {
                        Some(root) => ide::migrate::Workspace { main: root, is_main: true, fs },
                        None => ide::migrate::Workspace { main: &l.main, is_main: l.is_main, fs },
                    };
                    let path = l.cfg.file(l.file).path.clone();
                    let scope = if tree { ide::migrate::Scope::Tree } else { ide::migrate::Scope::File(&path) };
                    let m = ide::migrate::migrate(&ws, scope, false);
                    WorkspaceEdit { changes: Some(workspace_changes(&l.cfg, fs, enc, &m.edits)), ..Default::default() }
                })?;
                if let Some(edit) = edit {
                    let _ = self.client.apply_edit(edit).await;
                }
                Ok(None)
            }
            other => Err(tower_lsp::jsonrpc::Error::invalid_params(format!("unknown command {other}"))),
        }
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.with_file(&params.text_document.uri, "foldingRange", |fd, enc| {
            ide::folding_ranges::folding_ranges(&fd.parse)
                .into_iter()
                .filter_map(|f| {
                    let r = convert::range(&fd.line_index, enc, f.range);
                    // The range ends at the start of the closer's line: fold up to the line before.
                    let end_line = if r.end.character == 0 { r.end.line.saturating_sub(1) } else { r.end.line };
                    (end_line > r.start.line).then(|| FoldingRange {
                        start_line: r.start.line,
                        end_line,
                        kind: Some(match f.kind {
                            ide::folding_ranges::FoldKind::Comment => FoldingRangeKind::Comment,
                            ide::folding_ranges::FoldKind::Section => FoldingRangeKind::Region,
                        }),
                        ..Default::default()
                    })
                })
                .collect()
        })
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        self.with_config(&params.text_document.uri, "documentLink", |l, fs, enc| {
            let fd = l.cfg.file(l.file);
            ide::document_links::document_links(&l.cfg, l.file, fs)
                .into_iter()
                .map(|d| DocumentLink {
                    range: convert::range(&fd.line_index, enc, d.range),
                    target: convert::path_to_url(&d.target),
                    tooltip: Some(d.tooltip),
                    data: None,
                })
                .collect()
        })
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let p = params.text_document_position_params;
        let links = self.state.client.lock().unwrap().definition_links;
        let r = self.with_config(&p.text_document.uri, "definition", |l, fs, enc| {
            let fd = l.cfg.file(l.file);
            let offset = convert::offset(&fd.line_index, enc, p.position);
            let (origin, targets) = ide::goto_definition::goto_definition(&l.cfg, l.file, offset, fs)?;
            let origin = convert::range(&fd.line_index, enc, origin);
            let targets: Vec<_> = targets.iter().filter_map(|t| convert::nav_target(t, enc)).collect();
            Some(if links {
                GotoDefinitionResponse::Link(
                    targets
                        .into_iter()
                        .map(|(uri, full, focus)| LocationLink {
                            origin_selection_range: Some(origin),
                            target_uri: uri,
                            target_range: full,
                            target_selection_range: focus,
                        })
                        .collect(),
                )
            } else {
                GotoDefinitionResponse::Array(
                    targets.into_iter().map(|(uri, _, focus)| Location { uri, range: focus }).collect(),
                )
            })
        })?;
        Ok(r.flatten())
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let p = params.text_document_position;
        let decl = params.context.include_declaration;
        let r = self.with_config(&p.text_document.uri, "references", |l, _, enc| {
            let fd = l.cfg.file(l.file);
            let offset = convert::offset(&fd.line_index, enc, p.position);
            let found = ide::references::references(&l.cfg, l.file, offset, decl)?;
            Some(
                found
                    .iter()
                    .filter_map(|o| {
                        let f = l.cfg.file(o.file);
                        Some(Location {
                            uri: convert::path_to_url(&f.path)?,
                            range: convert::range(&f.line_index, enc, o.range),
                        })
                    })
                    .collect(),
            )
        })?;
        Ok(r.flatten())
    }

    async fn document_highlight(&self, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        let p = params.text_document_position_params;
        let r = self.with_config(&p.text_document.uri, "documentHighlight", |l, _, enc| {
            let fd = l.cfg.file(l.file);
            let offset = convert::offset(&fd.line_index, enc, p.position);
            let found = ide::document_highlight::document_highlight(&l.cfg, l.file, offset)?;
            Some(
                found
                    .into_iter()
                    .map(|(range, access)| DocumentHighlight {
                        range: convert::range(&fd.line_index, enc, range),
                        kind: Some(match access {
                            ide::document_highlight::Access::Read => DocumentHighlightKind::READ,
                            ide::document_highlight::Access::Write => DocumentHighlightKind::WRITE,
                        }),
                    })
                    .collect(),
            )
        })?;
        Ok(r.flatten())
    }

    async fn symbol(&self, params: WorkspaceSymbolParams) -> Result<Option<Vec<SymbolInformation>>> {
        let enc = self.state.encoding();
        let symbols = guarded("workspace/symbol", || super::workspace::symbols(&self.state))?;
        let found = ide::workspace_symbols::search(&symbols, &params.query, 256);
        #[allow(deprecated)]
        let out = found
            .into_iter()
            .filter_map(|s| {
                Some(SymbolInformation {
                    name: s.name.clone(),
                    kind: workspace_symbol_kind(s.kind),
                    tags: None,
                    deprecated: None,
                    location: Location {
                        uri: convert::path_to_url(&s.file.path)?,
                        range: convert::range(&s.file.line_index, enc, s.focus_range),
                    },
                    container_name: s.container.clone(),
                })
            })
            .collect();
        Ok(Some(out))
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let ws = self.state.workspace.lock().unwrap().clone();
        let created_or_deleted = params.changes.iter().any(|c| c.typ != FileChangeType::CHANGED);
        let on_disk: Vec<PathBuf> = params.changes.iter().filter_map(|c| convert::url_to_path(&c.uri)).collect();
        // The .htaccess files the roots found: scanned again when one came or went.
        ws.htaccess_changed(&on_disk, created_or_deleted);
        self.state.analyses.files_changed(&self.state, &on_disk, created_or_deleted);
        let changed: Vec<PathBuf> = on_disk.into_iter().filter(|p| ws.affected_by(p)).collect();
        if ws.needs_reindex(&changed) {
            self.reindex(&changed).await;
        } else {
            for uri in super::workspace::affected_documents(&self.state, &ws, &ws, &changed) {
                self.refresh(uri).await;
            }
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        {
            let mut folders = self.state.folders.lock().unwrap();
            let removed: Vec<PathBuf> =
                params.event.removed.iter().filter_map(|f| convert::url_to_path(&f.uri)).collect();
            folders.retain(|f| !removed.contains(f));
            folders.extend(params.event.added.iter().filter_map(|f| convert::url_to_path(&f.uri)));
        }
        self.reindex(&[]).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        // VS Code sends its `apacheLsp` settings section; other clients send the options object.
        let settings = params.settings.get("apacheLsp").unwrap_or(&params.settings);
        let Some(root) = settings.get("rootConfig").and_then(|v| v.as_str()) else { return };
        let root = root.trim();
        let folder = self.state.folders.lock().unwrap().first().cloned();
        let root = (!root.is_empty()).then(|| {
            let mut text = root.to_string();
            if let Some(f) = &folder {
                text = text.replace("${workspaceFolder}", &f.to_string_lossy());
            }
            if let (Some(rest), Some(home)) = (text.strip_prefix("~/"), std::env::var_os("HOME")) {
                text = PathBuf::from(home).join(rest).to_string_lossy().into_owned();
            }
            let p = PathBuf::from(text);
            match &folder {
                Some(f) if p.is_relative() => f.join(p),
                _ => p,
            }
        });
        let changed = {
            let mut current = self.state.root_config.lock().unwrap();
            let changed = *current != root;
            *current = root;
            changed
        };
        if changed {
            self.reindex(&[]).await;
        }
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let uri = params.text_document_position.text_document.uri;
        let pos = params.text_document_position.position;
        let client = *self.state.client.lock().unwrap();
        let r = self.with_config(&uri, "completion", |l, _, enc| {
            let fd = l.cfg.file(l.file);
            let offset = convert::offset(&fd.line_index, enc, pos);
            let items = ide::completion::completions(&l.cfg, l.file, offset, client.snippets)
                .into_iter()
                .map(|i| convert::completion_item(&fd.line_index, enc, i, client.resolves_documentation))
                .collect();
            CompletionResponse::Array(items)
        })?;
        Ok(r)
    }

    async fn completion_resolve(&self, item: CompletionItem) -> Result<CompletionItem> {
        guarded("completionItem/resolve", || convert::resolve_completion(item))
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.with_file(&params.text_document.uri, "formatting", |fd, enc| {
            let edits = ide::formatting::format(&fd.parse, convert::format_options(&params.options), None);
            convert::text_edits(&fd.line_index, enc, edits)
        })
    }

    async fn range_formatting(&self, params: DocumentRangeFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.with_file(&params.text_document.uri, "rangeFormatting", |fd, enc| {
            let range = convert::text_range(&fd.line_index, enc, params.range);
            let edits = ide::formatting::format(&fd.parse, convert::format_options(&params.options), Some(range));
            convert::text_edits(&fd.line_index, enc, edits)
        })
    }

    async fn selection_range(&self, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
        self.with_file(&params.text_document.uri, "selectionRange", |fd, enc| {
            // A position on a line past the document's last is in no range at all: no answer
            // (one on a line, past its end, is taken as the line's end, as the protocol says).
            let end = convert::position(&fd.line_index, enc, fd.parse.syntax_node().text_range().end());
            if params.positions.iter().any(|p| p.line > end.line) {
                return vec![];
            }
            params
                .positions
                .iter()
                .map(|&pos| {
                    let offset = convert::offset(&fd.line_index, enc, pos);
                    let ranges = ide::selection_ranges::selection_ranges(&fd.parse, offset);
                    convert::selection_range(&fd.line_index, enc, pos, &ranges)
                })
                .collect()
        })
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        self.with_file(&params.text_document.uri, "semanticTokens/full", |fd, enc| {
            let highlights = ide::semantic_tokens::semantic_tokens(&fd.parse, None);
            let data = convert::semantic_tokens(&fd.line_index, enc, &highlights);
            let id = self.state.remember_semantic_tokens(&fd.path, data.clone());
            SemanticTokensResult::Tokens(SemanticTokens { result_id: Some(id), data })
        })
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        self.with_file(&params.text_document.uri, "semanticTokens/full/delta", |fd, enc| {
            let highlights = ide::semantic_tokens::semantic_tokens(&fd.parse, None);
            let data = convert::semantic_tokens(&fd.line_index, enc, &highlights);
            let previous = self.state.semantic_tokens.lock().unwrap().get(&*fd.path).cloned();
            let id = self.state.remember_semantic_tokens(&fd.path, data.clone());
            match previous.filter(|(prev_id, _)| *prev_id == params.previous_result_id) {
                Some((_, old)) => SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta {
                    result_id: Some(id),
                    edits: convert::semantic_token_edits(&old, &data),
                }),
                None => SemanticTokensFullDeltaResult::Tokens(SemanticTokens { result_id: Some(id), data }),
            }
        })
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        self.with_file(&params.text_document.uri, "semanticTokens/range", |fd, enc| {
            let range = convert::text_range(&fd.line_index, enc, params.range);
            let highlights = ide::semantic_tokens::semantic_tokens(&fd.parse, Some(range));
            let data = convert::semantic_tokens(&fd.line_index, enc, &highlights);
            SemanticTokensRangeResult::Tokens(SemanticTokens { result_id: None, data })
        })
    }
}

/// Edits by document, with ranges in the client's encoding (files outside the configuration,
/// such as .htaccess files, are read through the overlay).
fn workspace_changes(
    cfg: &ide::config::Config,
    fs: &dyn ide::config::FileSource,
    enc: Encoding,
    edits: &[ide::migrate::Edit],
) -> std::collections::HashMap<Url, Vec<TextEdit>> {
    let mut changes: std::collections::HashMap<Url, Vec<TextEdit>> = Default::default();
    let mut indexes: std::collections::HashMap<&std::path::Path, Option<apache_syntax::LineIndex>> = Default::default();
    for e in edits {
        let index = indexes.entry(&e.path).or_insert_with(|| match cfg.file_id(&e.path) {
            Some(id) => Some(cfg.file(id).line_index.clone()),
            None => fs.read(&e.path).ok().map(|(t, _)| apache_syntax::LineIndex::new(&t)),
        });
        let (Some(index), Some(u)) = (index.as_ref(), convert::path_to_url(&e.path)) else { continue };
        changes
            .entry(u)
            .or_default()
            .push(TextEdit { range: convert::range(index, enc, e.range), new_text: e.new_text.clone() });
    }
    changes
}

/// Whether the editor's `text` of `path` is not the file's bytes on disk (or the file cannot be
/// read).
fn differs_from_disk(path: &Path, text: &str) -> bool {
    std::fs::read(path).map_or(true, |bytes| bytes != text.as_bytes())
}
