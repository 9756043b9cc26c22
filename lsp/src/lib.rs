//! apache-lsp: a language server and command-line checker for Apache httpd
//! configuration, built to make the 2.2 → 2.4 access-control migration safe.
//!
//! Layers, with one-way arrows: `apache_syntax` (text → tree) ← [`ide`] (analysis,
//! no protocol types) ← [`server`] (the protocol) and [`cli`] (the terminal).

pub mod cli;

/// Stack size of the threads that run analyses (the CLI's and the server's):
/// recursive walks of deeply nested sections need room, most of all in debug builds.
pub const STACK_SIZE: usize = 16 << 20;

pub mod ide;
pub mod line_diff;
pub mod migrate_cli;
pub mod server;
