//! Editor-agnostic analysis of httpd configuration.
//!
//! Architecture invariant: nothing here knows the Language Server Protocol (no
//! protocol crate is imported), and nothing here does IO except through
//! [`config::FileSource`] and the file system reads a configuration names
//! (Include targets, .htaccess files, auth files). Positions are byte offsets
//! ([`apache_syntax::TextRange`]); converting them is the protocol layer's job.
//! One feature, one file; each file's tests sit beside its code.

pub mod access;
pub mod alias_redirect;
pub mod allow_methods;
pub mod allow_override;
pub mod bom;
pub mod catalogue;
pub mod code_actions;
pub mod completion;
pub mod config;
pub mod defeated;
pub mod diagnostics;
pub mod dir_index;
pub mod document_highlight;
pub mod document_links;
pub mod document_symbols;
pub mod error_document;
pub mod error_log;
pub mod explain;
mod fnmatch;
pub mod folding_ranges;
pub mod formatting;
pub mod goto_definition;
pub mod handler;
pub mod hover;
pub mod htaccess_files;
pub mod incremental;
mod literal_regex;
pub mod log_explain;
pub mod loglevel;
pub mod migrate;
pub mod navigation;
pub mod nonfatal;
mod pcre_match;
pub mod policy;
pub mod references;
mod regex_cache;
pub mod remote_ip;
pub mod rewrite_flags;
pub mod rewrite_internal;
pub mod rewrite_symlinks;
mod row_server;
pub mod section_urls;
pub mod selection_ranges;
pub mod semantic_tokens;
pub mod setenvif;
mod shared_strings;
pub mod subrequest;
#[cfg(test)]
mod test_support;
pub mod workspace;
pub mod workspace_symbols;

pub use config::{Config, FileData, FileId, Severity};
