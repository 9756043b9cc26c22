//! Shared helpers for end-to-end tests.

pub mod httpd;
pub mod lsp;
