//! Password files the configuration names that are missing: mod_authn_file opens its
//! `AuthUserFile` when it checks a password, so a request with credentials gets 500 (AH01620)
//! where the file is not there, while httpd starts without a word.

use crate::ide::config::Config;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each `AuthUserFile` argument the configuration's own files name (as written) whose file does
/// not exist, with the path httpd opens (relative to ServerRoot, as `ap_set_file_slot` makes it).
pub fn missing_user_files(cfg: &Config) -> BTreeMap<String, String> {
    let mut missing = BTreeMap::new();
    for n in cfg.walk().filter(|n| n.is("AuthUserFile")) {
        let Some(written) = n.arg(0) else { continue };
        if missing.contains_key(written) {
            continue;
        }
        let path = resolved(cfg, written);
        if !path.exists() {
            missing.insert(written.to_string(), path.to_string_lossy().into_owned());
        }
    }
    missing
}

/// `written` as httpd opens it: absolute, or under ServerRoot.
pub fn resolved(cfg: &Config, written: &str) -> PathBuf {
    if Path::new(written).is_absolute() {
        PathBuf::from(written)
    } else {
        cfg.server_root.join(written)
    }
}
