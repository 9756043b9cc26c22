//! startup-account: the accounts `User` and `Group` name must exist on this machine
//! (mod_unixd's `unixd_set_user`/`unixd_set_group` look them up as they read the line, with
//! `server/mpm_common.c: ap_uname2id`/`ap_gname2id`: an unknown name stops httpd at once,
//! AH00543 "bad user name", AH00544 "bad group name"; `#N` is taken as the number `atoi` reads,
//! never looked up), and `User` must not be uid 0 (`User root`, `User #0`, or `#abc`, which
//! `atoi` reads as 0): httpd refuses to serve pages as root.
//!
//! Names are matched in /etc/passwd and /etc/group (exactly, case and all), not through the name
//! service, which may ask a directory server over the network ([`lookup`]).
//! Only for a configuration whose paths are this machine's ([`Config::disk_paths`]), and only
//! names without an unresolved `${VAR}` (Debian's envvars are resolved by the loader); each
//! distinct name is looked up once.

use super::Diagnostic;
use crate::ide::config::{Config, Node, TopLevel};
use rustc_hash::FxHashMap;

/// What has been learnt of each account named so far: its id, None when the system has none
/// of that name (Err when it could not tell).
#[derive(Default)]
pub(super) struct Seen {
    users: FxHashMap<String, Result<Option<u32>, ()>>,
    groups: FxHashMap<String, Result<Option<u32>, ()>>,
}

pub(super) fn node(cfg: &Config, node: &Node, seen: &mut Seen, out: &mut Vec<Diagnostic>) {
    if !cfg.disk_paths || node.is_section() || cfg.top == TopLevel::Htaccess {
        return;
    }
    let user = match node.known() {
        "User" => true,
        "Group" => false,
        _ => return,
    };
    let args = node.arg_strings();
    let [name] = &args[..] else { return };
    if let Some(refusal) = refusal(user, name, seen) {
        out.push(super::refused_line(cfg, node, "startup-account", &refusal));
    }
}

/// What httpd says of `User name` (`user`) or `Group name`, if it refuses it here.
fn refusal(user: bool, name: &str, seen: &mut Seen) -> Option<String> {
    if name.contains("${") {
        return None;
    }
    let id = match name.strip_prefix('#') {
        // (`atoi`'s int, cast to uid_t/gid_t.)
        Some(number) => Some(super::argument_values::atoi(number) as i32 as u32),
        None => {
            let known = if user { &mut seen.users } else { &mut seen.groups };
            let found = *known.entry(name.to_string()).or_insert_with(|| lookup(user, name));
            match found {
                Err(()) => return None,
                Ok(found) => found,
            }
        }
    };
    match id {
        None if user => Some(format!("bad user name {name} (AH00543): this machine has no such user account")),
        None => Some(format!("bad group name {name} (AH00544): this machine has no such group")),
        Some(0) if user => Some(format!(
            "User {name} is uid 0: httpd refuses to serve pages as root (it is built without BIG_SECURITY_HOLE)"
        )),
        Some(_) => None,
    }
}

/// The id of the user (`user`) or group `name` in the system's account files, /etc/passwd and
/// /etc/group (their name, password and id fields). The name service (`getpwnam`) is not asked:
/// besides those files it may ask a directory server over the network (LDAP, sssd, NIS), and no
/// diagnostic may reach the network. So a name those files lack is unknown here (`Err`, nothing
/// said) when a file defers to NIS (`+`/`-` lines), or cannot be read.
fn lookup(user: bool, name: &str) -> Result<Option<u32>, ()> {
    let path = if user { "/etc/passwd" } else { "/etc/group" };
    let text = std::fs::read(path).map_err(|_| ())?;
    id_in(&String::from_utf8_lossy(&text), name)
}

/// [`lookup`] in the text of an account file.
fn id_in(text: &str, name: &str) -> Result<Option<u32>, ()> {
    let mut defers = false;
    for line in text.lines() {
        defers |= line.starts_with(['+', '-']);
        let mut fields = line.split(':');
        if fields.next() == Some(name) {
            return Ok(fields.nth(1).and_then(|id| id.trim().parse().ok()));
        }
    }
    if defers {
        Err(())
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// root and its group exist on every Unix machine these tests run on; the names below
    /// are not valid account names anywhere.
    #[test]
    fn accounts_are_looked_up_on_this_machine() {
        let mut seen = Seen::default();
        assert_eq!(refusal(false, "root", &mut seen), None);
        assert_eq!(refusal(false, "#abc", &mut seen), None);
        assert_eq!(refusal(true, "#33", &mut seen), None);
        assert!(refusal(true, "root", &mut seen).unwrap().contains("uid 0"));
        assert!(refusal(true, "#x", &mut seen).unwrap().contains("uid 0"));
        let bad = "no such user!";
        assert_eq!(
            refusal(true, bad, &mut seen).unwrap(),
            format!("bad user name {bad} (AH00543): this machine has no such user account")
        );
        assert!(refusal(false, bad, &mut seen).unwrap().starts_with("bad group name"));
        assert_eq!(refusal(true, "${APACHE_RUN_USER}", &mut seen), None);
    }

    #[test]
    fn account_files_are_read_field_by_field() {
        let text = "root:x:0:0:root:/root:/bin/bash\nwww-data:x:33:33::/var/www:/usr/sbin/nologin\n";
        assert_eq!(id_in(text, "www-data"), Ok(Some(33)));
        assert_eq!(id_in(text, "WWW-DATA"), Ok(None));
        assert_eq!(id_in(text, "www"), Ok(None));
        // A file that defers to NIS cannot say a name is missing.
        assert_eq!(id_in(&format!("{text}+::::::\n"), "www"), Err(()));
        assert_eq!(id_in(&format!("{text}+::::::\n"), "root"), Ok(Some(0)));
    }
}
