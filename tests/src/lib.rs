//! Shared helpers for end-to-end tests.

pub mod differential;
pub mod httpd;
pub mod lsp;
