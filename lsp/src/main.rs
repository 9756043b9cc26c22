fn main() {
    // Logs go to stderr; stdout belongs to the protocol.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("APACHE_LSP_LOG"))
        .init();
    std::process::exit(apache_lsp::cli::main());
}
