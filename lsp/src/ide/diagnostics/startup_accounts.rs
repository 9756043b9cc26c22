//! startup-account: the accounts `User` and `Group` name must exist on this machine
//! (mod_unixd's `unixd_set_user`/`unixd_set_group` look them up as they read the line, with
//! `server/mpm_common.c: ap_uname2id`/`ap_gname2id`: an unknown name stops httpd at once,
//! AH00543 "bad user name", AH00544 "bad group name"; `#N` is taken as the number `atoi` reads,
//! never looked up), and `User` must not be uid 0 (`User root`, `User #0`, or `#abc`, which
//! `atoi` reads as 0): httpd refuses to serve pages as root.
//!
//! Names are matched as the system's `getpwnam`/`getgrnam` match them (exactly, case and all).
//! Only for a configuration whose paths are this machine's ([`Config::disk_paths`]), and only
//! names without an unresolved `${VAR}` (Debian's envvars are resolved by the loader); each
//! distinct name is looked up once.

use super::Diagnostic;
use crate::ide::config::{Config, Node, TopLevel};
use rustc_hash::FxHashMap;
use std::ffi::CString;

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

/// The id of the user (`user`) or group `name` as the system's name service gives it.
fn lookup(user: bool, name: &str) -> Result<Option<u32>, ()> {
    let Ok(c_name) = CString::new(name) else { return Ok(None) };
    let mut buf = vec![0u8; 4096];
    loop {
        // SAFETY: the reentrant lookups write only into `entry` and `buf`, whose sizes are
        // given; `result` is set to point at `entry` or to null.
        let (rc, id) = unsafe {
            if user {
                let mut entry: libc::passwd = std::mem::zeroed();
                let mut result: *mut libc::passwd = std::ptr::null_mut();
                let rc = libc::getpwnam_r(c_name.as_ptr(), &mut entry, buf.as_mut_ptr().cast(), buf.len(), &mut result);
                (rc, (!result.is_null()).then_some(entry.pw_uid))
            } else {
                let mut entry: libc::group = std::mem::zeroed();
                let mut result: *mut libc::group = std::ptr::null_mut();
                let rc = libc::getgrnam_r(c_name.as_ptr(), &mut entry, buf.as_mut_ptr().cast(), buf.len(), &mut result);
                (rc, (!result.is_null()).then_some(entry.gr_gid))
            }
        };
        match rc {
            0 => return Ok(id),
            libc::ERANGE if buf.len() < 1 << 20 => buf.resize(buf.len() * 4, 0),
            // Not found is 0 with no entry; other codes say the lookup failed.
            libc::ENOENT | libc::ESRCH | libc::EBADF | libc::EPERM => return Ok(None),
            _ => return Err(()),
        }
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
}
