//! The Language Server Protocol layer: the only code that speaks the protocol.
//!
//! Handlers translate (`from_proto → ide → to_proto`) and nothing else; a panic
//! inside analysis becomes an error response for that request alone.

mod analysis;
mod backend;
mod cache;
mod convert;
mod framing;
mod guard;
mod state;
mod workspace;

pub use analysis::looks_like_main;
pub use backend::Backend;

/// Runs the server over stdin/stdout until the client says exit. Returns the
/// exit status: 0 after shutdown + exit, 1 when the client exited without
/// shutting down or the input ended.
pub fn run_stdio() -> std::io::Result<i32> {
    // Analyses walk trees recursively (nesting is bounded by the parser): give
    // every thread the same generous stack as the CLI's.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(crate::STACK_SIZE)
        .enable_all()
        .build()?;
    let clean = rt.block_on(serve(tokio::io::stdin(), tokio::io::stdout(), std::time::Duration::from_secs(5)));
    // The stdin reader is a blocking thread that may never return: do not wait for it.
    rt.shutdown_background();
    Ok(if clean { 0 } else { 1 })
}

/// Serves one session over any pair of byte streams (stdio, a test's or a
/// fuzzer's buffers). Returns whether the client shut down cleanly.
///
/// When the input ends, requests already read get `grace` to finish and be
/// answered; then the session ends even if a handler still waits for the client
/// (an `applyEdit` the client will never answer now).
pub async fn serve(
    input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    output: impl tokio::io::AsyncWrite + Unpin,
    grace: std::time::Duration,
) -> bool {
    let (service, socket) = tower_lsp::LspService::build(Backend::new)
        .custom_method(framing::MALFORMED, Backend::malformed_message)
        .custom_method(framing::INVALID_REQUEST, Backend::invalid_request)
        .finish();
    let (reader, writer) = tokio::io::duplex(1 << 20);
    let mut pump = tokio::spawn(framing::pump(input, writer));
    let server = tower_lsp::Server::new(reader, output, socket).serve(guard::Guard(service));
    tokio::pin!(server);
    tokio::select! {
        _ = &mut server => pump.await.unwrap_or(false),
        clean = &mut pump => {
            let _ = tokio::time::timeout(grace, &mut server).await;
            clean.unwrap_or(false)
        }
    }
}

/// Logs how long the server took over a message, from its handler's start, with
/// what it spent the time on (the `bench -- lsp` benchmark reads these lines: run
/// with `APACHE_LSP_LOG=apache_lsp::timing=info`). The total comes last.
fn timing(
    what: &str,
    uri: &tower_lsp::lsp_types::Url,
    version: Option<i32>,
    detail: Option<&str>,
    since: std::time::Instant,
) {
    let us = since.elapsed().as_micros();
    let version = version.map(|v| format!(" v{v}")).unwrap_or_default();
    let detail = detail.unwrap_or_default();
    tracing::info!(target: "apache_lsp::timing", "{what} {uri}{version} {detail} {us}us");
}
