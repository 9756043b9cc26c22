//! The Language Server Protocol layer: the only code that speaks the protocol.
//!
//! Handlers translate (`from_proto → ide → to_proto`) and nothing else; a panic
//! inside analysis becomes an error response for that request alone.

mod analysis;
mod backend;
mod convert;
mod framing;
mod state;

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
    let clean = rt.block_on(async {
        let (service, socket) = tower_lsp::LspService::build(Backend::new)
            .custom_method(framing::MALFORMED, Backend::malformed_message)
            .finish();
        let (reader, writer) = tokio::io::duplex(1 << 20);
        let pump = tokio::spawn(framing::pump(tokio::io::stdin(), writer));
        tower_lsp::Server::new(reader, tokio::io::stdout(), socket).serve(service).await;
        pump.await.unwrap_or(false)
    });
    // The stdin reader is a blocking thread that may never return: do not wait for it.
    rt.shutdown_background();
    Ok(if clean { 0 } else { 1 })
}
