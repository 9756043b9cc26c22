// Millions of small, short-lived allocations from several threads (check, migrate): glibc
// malloc spent about a quarter of `check`'s time in the allocator; mimalloc is faster and
// keeps less memory per thread.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Logs go to stderr; stdout belongs to the protocol.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("APACHE_LSP_LOG"))
        .init();
    // The main thread's stack is whatever the environment gave it: run on our own.
    let code = std::thread::Builder::new()
        .stack_size(apache_lsp::STACK_SIZE)
        .spawn(apache_lsp::cli::main)
        .and_then(|t| t.join().map_err(|_| std::io::Error::other("panic")))
        .unwrap_or(101);
    std::process::exit(code);
}
