//! apache-lsp: a language server and command-line checker for Apache httpd
//! configuration, built to make the 2.2 → 2.4 access-control migration safe.
//!
//! Layers, with one-way arrows: `apache_syntax` (text → tree) ← [`ide`] (analysis,
//! no protocol types) ← [`server`] (the protocol) and [`cli`] (the terminal).

pub mod cli;
pub mod ide;
pub mod migrate_cli;
pub mod server;
