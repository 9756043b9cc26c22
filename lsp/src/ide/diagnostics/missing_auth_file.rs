//! missing-auth-file: an `AuthUserFile` naming a file that is not on this machine. httpd starts
//! (mod_authn_file opens the file only when it checks a password), then answers 500 (AH01620)
//! to every request whose credentials are checked against it.

use super::Diagnostic;
use crate::ide::config::{Config, Node, Severity, TopLevel};
use rustc_hash::FxHashMap;

/// What the walk has found of each file named so far (a big tree names the same few again and
/// again): whether it exists.
#[derive(Default)]
pub(super) struct Seen(FxHashMap<String, bool>);

pub(super) fn node(cfg: &Config, node: &Node, seen: &mut Seen, out: &mut Vec<Diagnostic>) {
    if node.is_section() || !node.is("AuthUserFile") {
        return;
    }
    let Some(written) = node.arg(0) else { return };
    // A relative path is under the ServerRoot, unknown for a fragment or an .htaccess file
    // checked alone (its folder is only a guess there), unless the file says it.
    let guessed_root = match cfg.top {
        TopLevel::Main => false,
        TopLevel::Fragment => true,
        TopLevel::Htaccess => cfg.enclosing.is_none(),
    };
    if guessed_root && !std::path::Path::new(written).is_absolute() && !cfg.walk().any(|n| n.is("ServerRoot")) {
        return;
    }
    let exists = match seen.0.get(written) {
        Some(&e) => e,
        None => {
            let e = crate::ide::access::auth_files::resolved(cfg, written).exists();
            seen.0.insert(written.to_string(), e);
            e
        }
    };
    if exists {
        return;
    }
    let path = crate::ide::access::auth_files::resolved(cfg, written);
    out.push(Diagnostic::new(
        node.loc.file,
        cfg.trimmed(&node.loc),
        Severity::Warning,
        "missing-auth-file",
        format!(
            "{} does not exist on this machine: httpd starts, but answers 500 to every request whose password is \
             checked against it (AH01620: Could not open password file)",
            path.display()
        ),
    ));
}
