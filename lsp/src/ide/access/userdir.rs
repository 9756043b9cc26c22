//! mod_userdir's translation of `/~user/rest` to a file (its translate_name hook, which runs
//! after mod_alias's and before the DocumentRoot): each word of the `UserDir` in effect is
//! tried in turn, the first whose user's directory exists is taken (httpd 2.4 looks at the
//! directory, not at the file the rest of the URL names in it), and the last is taken even when
//! its directory does not exist; a user the passwd database does not know skips a word that is
//! relative to home directories.

use super::url::Server;
use crate::ide::config::Config;
use std::path::PathBuf;

/// What mod_userdir does with a request's URL.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum UserDirMap {
    /// Not its URL (or the user is excluded): the next translator (DocumentRoot) maps it.
    Declined,
    /// `r->filename` is this path.
    File(PathBuf),
    /// A redirect (302) to this URL, at translate_name: `UserDir` names a URL.
    Redirect(String),
    /// The mapping cannot be told here (why).
    Unknown(String),
}

/// Whether `UserDir disabled` with no names was given (`Some(true)`), `UserDir enabled` with
/// no names (`Some(false)`), or neither (None).
#[derive(Default)]
struct Level {
    globally_disabled: Option<bool>,
    /// The words of the last `UserDir` that is not an enable/disable list.
    userdir: Option<Vec<String>>,
    enabled: Vec<String>,
    disabled: Vec<String>,
}

/// The mod_userdir configuration `vhost` gets (None: the main server's own), as httpd merges
/// server configurations: a virtual host without any `UserDir` line of its own has no
/// configuration of this module and shares the main server's whole, its lists of enabled and
/// disabled users included; one with a `UserDir` line gets its own, where the global switch and
/// the entries are its own else the main server's, and the lists are only its own (not merged).
fn merged(main: &[Vec<String>], vhost: Option<&[Vec<String>]>) -> Level {
    let main = level(main);
    match vhost.filter(|v| !v.is_empty()) {
        None => main,
        Some(own) => {
            let own = level(own);
            Level {
                globally_disabled: own.globally_disabled.or(main.globally_disabled),
                userdir: own.userdir.or(main.userdir),
                enabled: own.enabled,
                disabled: own.disabled,
            }
        }
    }
}

impl Level {
    /// Whether mod_userdir maps `/~user/` (the user is not disabled by name, nor by a global
    /// `UserDir disabled` without being enabled by name).
    fn serves(&self, user: &str) -> bool {
        let named = |list: &[String]| list.iter().any(|u| u == user);
        !named(&self.disabled) && (self.globally_disabled != Some(true) || named(&self.enabled))
    }
}

fn level(directives: &[Vec<String>]) -> Level {
    let mut l = Level::default();
    for words in directives {
        let Some(kw) = words.first() else { continue };
        let names = &words[1..];
        let disable = kw.eq_ignore_ascii_case("disable") || kw.eq_ignore_ascii_case("disabled");
        let enable = kw.eq_ignore_ascii_case("enable") || kw.eq_ignore_ascii_case("enabled");
        match (disable, enable, names.is_empty()) {
            (true, _, true) => l.globally_disabled = Some(true),
            (true, _, false) => l.disabled.extend(names.iter().cloned()),
            (_, true, true) => l.globally_disabled = Some(false),
            (_, true, false) => l.enabled.extend(names.iter().cloned()),
            _ => l.userdir = Some(words.clone()),
        }
    }
    l
}

/// mod_userdir's mapping of the normalised `url` for `server`.
pub(super) fn map(server: &Server, cfg: &Config, url: &str) -> UserDirMap {
    let Some(after) = url.strip_prefix("/~") else { return UserDirMap::Declined };
    if server.scopes().all(|s| s.userdir.is_empty()) || !cfg.module_loaded("userdir_module") {
        return UserDirMap::Declined;
    }
    let conf = merged(&server.main.userdir, server.vhost.map(|v| v.userdir.as_slice()));
    let Some(entries) = &conf.userdir else { return UserDirMap::Declined };
    let (user, dname) = match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, ""),
    };
    // httpd 2.4.71 declines an empty name and the names `.` and `..`; other names with dots
    // (`a.`, `a..`, `...`, `.a`) are users like any other (tested against httpd: `/~a./x` is
    // served from `a.`'s directory).
    if matches!(user, "" | "." | "..") {
        return UserDirMap::Declined;
    }
    if !conf.serves(user) {
        return UserDirMap::Declined;
    }
    for (i, entry) in entries.iter().enumerate() {
        let last = i + 1 == entries.len();
        let absolute = entry.starts_with('/');
        let (prefix, rest) = match entry.split_once('*') {
            Some((p, r)) => (Some(p), r),
            None => (None, entry.as_str()),
        };
        let redirect = UserDirMap::Redirect;
        let base = if rest.is_empty() || absolute {
            match prefix {
                Some(p) if p.contains(':') && !absolute => return redirect(format!("{p}{user}{rest}{dname}")),
                Some(p) => format!("{p}{user}{rest}"),
                None => format!("{entry}/{user}"),
            }
        } else if let Some(p) = prefix.filter(|p| p.contains(':')) {
            return redirect(format!("{p}{user}{dname}"));
        } else {
            if !PASSWD_LOOKUPS.load(std::sync::atomic::Ordering::Relaxed) {
                return UserDirMap::Unknown(format!(
                    "UserDir {entry}: user {user}'s home directory is not looked up here (the passwd database may be \
                     a network service; explain looks it up)"
                ));
            }
            match home_directory(user) {
                Ok(Some(home)) => format!("{home}/{rest}"),
                // No such user: no file name, so httpd goes on to the next entry, and after
                // the last declines (the DocumentRoot maps the URL).
                Ok(None) => continue,
                Err(e) => {
                    return UserDirMap::Unknown(format!(
                        "UserDir {entry}: user {user}'s home directory could not be looked up in the passwd \
                         database ({e})"
                    ))
                }
            }
        };
        // httpd looks at the user's directory (not at the file `dname` names in it).
        if last || std::fs::metadata(&base).is_ok() {
            return UserDirMap::File(PathBuf::from(format!("{base}{dname}")));
        }
    }
    UserDirMap::Declined
}

/// Users' directories listed per `UserDir` entry at most.
const MAX_USER_DIRS: usize = 64;

/// An absolute `UserDir` entry as (what comes before the user's name, what comes after it):
/// `/home/*/public_html` → (`/home/`, `/public_html`); `/home` → (`/home/`, ``).
pub(crate) fn userdir_parts(entry: &str) -> (String, &str) {
    match entry.split_once('*') {
        Some((p, r)) => (p.to_string(), r),
        None => (format!("{}/", entry.trim_end_matches('/')), ""),
    }
}

/// The users' directories on disk an absolute `UserDir` entry maps `/~user/` to, found by
/// listing the directory the entry names (no passwd lookup): (user, directory), sorted, at
/// most [`MAX_USER_DIRS`].
pub(crate) fn user_dirs_on_disk(entry: &str) -> Vec<(String, String)> {
    let (prefix, rest) = userdir_parts(entry);
    let (dir, head) = prefix.rsplit_once('/').unwrap_or(("", &prefix));
    let Ok(rd) = std::fs::read_dir(if dir.is_empty() { "/" } else { dir }) else { return vec![] };
    let mut out = Vec::new();
    for e in rd.flatten().take(10 * MAX_USER_DIRS) {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(user) = name.strip_prefix(head).filter(|u| !u.is_empty()) else { continue };
        let path = format!("{prefix}{user}{rest}");
        if std::path::Path::new(&path).is_dir() {
            out.push((user.to_string(), path.trim_end_matches('/').to_string()));
        }
        if out.len() >= MAX_USER_DIRS {
            break;
        }
    }
    out.sort();
    out
}

/// The users' directories on disk `server` maps `/~user/` to through the file-system entries
/// of the `UserDir` in force (`/home/*/public_html`, `/home`; not home-relative ones, which
/// need the passwd database), users it disables left out: directories it serves, where httpd
/// reads .htaccess files (`check`'s scan, and who reads them).
pub(crate) fn user_directories(cfg: &Config, server: crate::ide::config::ServerId) -> Vec<String> {
    let ix = cfg.index();
    let mut scopes = server.scopes(ix);
    let Some(main) = scopes.next() else { return vec![] };
    let conf = merged(&main.userdir, scopes.next().map(|v| v.userdir.as_slice()));
    let Some(entries) = conf.userdir.as_ref().filter(|_| cfg.module_loaded("userdir_module")) else {
        return vec![];
    };
    let mut out: Vec<String> = Vec::new();
    for (i, entry) in entries.iter().enumerate().filter(|(_, e)| e.starts_with('/') && !e.contains(':')) {
        for (user, dir) in user_dirs_on_disk(entry) {
            // A user whose directory under an earlier (file-system) entry exists is served
            // from there.
            let mut earlier = entries[..i].iter().filter(|e| e.starts_with('/') && !e.contains(':'));
            let shadowed = earlier.any(|e| {
                let (prefix, rest) = userdir_parts(e);
                std::path::Path::new(&format!("{prefix}{user}{rest}")).exists()
            });
            if conf.serves(&user) && !shadowed && !out.contains(&dir) {
                out.push(dir);
            }
        }
    }
    out
}

/// Whether users' home directories may be looked up ([`allow_passwd_lookups`]): the passwd
/// database can be a network service (LDAP, NIS), and only `explain`, which may resolve names,
/// contacts one; the editor's hovers and diagnostics never do.
static PASSWD_LOOKUPS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Lets this process look users' home directories up (the `explain` command).
pub fn allow_passwd_lookups() {
    PASSWD_LOOKUPS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// `user`'s home directory from the passwd database, looked up as httpd does when the
/// request comes (`apr_uid_homepath_get`: getpwnam_r): None when the database has no such user,
/// an error when the lookup itself failed (which says nothing of httpd's own lookup).
fn home_directory(user: &str) -> Result<Option<String>, String> {
    let Ok(name) = std::ffi::CString::new(user) else { return Ok(None) };
    let mut size = 16 * 1024;
    loop {
        let mut buf = vec![0u8; size];
        // SAFETY: every pointer given is valid for the call; `pwd`'s strings point into `buf`,
        // which outlives their use here.
        let rc = unsafe {
            let mut pwd: libc::passwd = std::mem::zeroed();
            let mut found: *mut libc::passwd = std::ptr::null_mut();
            let rc = libc::getpwnam_r(name.as_ptr(), &mut pwd, buf.as_mut_ptr().cast(), buf.len(), &mut found);
            if rc == 0 {
                if found.is_null() || pwd.pw_dir.is_null() {
                    return Ok(None);
                }
                return Ok(Some(std::ffi::CStr::from_ptr(pwd.pw_dir).to_string_lossy().into_owned()));
            }
            rc
        };
        match rc {
            // The entry does not fit: a bigger buffer, up to 1 MiB.
            libc::ERANGE if size < 1 << 20 => size *= 4,
            // What getpwnam_r may answer for a name it does not know.
            libc::ENOENT | libc::ESRCH | libc::EBADF | libc::EPERM => return Ok(None),
            _ => return Err(std::io::Error::from_raw_os_error(rc).to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where mod_userdir redirects `url` under `UserDir entry` (and the `extra` lines).
    fn redirect(entry: &str, extra: &str, url: &str) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("httpd.conf");
        let conf = format!("LoadModule userdir_module m\nLoadModule alias_module m\nUserDir {entry}\n{extra}");
        std::fs::write(&main, conf).unwrap();
        let cfg = crate::ide::config::load(&main, &crate::ide::config::RealFs);
        let request =
            crate::ide::policy::Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
        let spec = crate::ide::access::RequestSpec { path: url.to_string(), host: None, request };
        crate::ide::access::userdir_redirect(&cfg, &spec)
    }

    #[test]
    fn a_userdir_naming_a_url_redirects_as_mod_userdir_does() {
        let to = |entry: &str, url: &str| redirect(entry, "", url);
        assert_eq!(to("http://h/~*", "/~bob/a/b").as_deref(), Some("http://h/~bob/a/b"));
        assert_eq!(to("http://h/~*", "/~bob").as_deref(), Some("http://h/~bob"));
        // What follows the `*` is dropped from a URL (`translate_userdir`).
        assert_eq!(to("http://h/*/pub", "/~bob/x").as_deref(), Some("http://h/bob/x"));
        // Without `*`, the word is a directory under the user's home, not a URL.
        assert_eq!(to("http://h/users/", "/~bob/x"), None);
        assert_eq!(to("http://h/~*", "/x"), None);
        assert_eq!(redirect("http://h/~*", "UserDir disabled bob\n", "/~bob/x"), None);
        assert_eq!(redirect("http://h/~*", "Alias /~bob /srv\n", "/~bob/x"), None, "an Alias maps first");
    }

    #[test]
    fn home_directories_come_from_the_passwd_database() {
        assert_eq!(home_directory("root"), Ok(Some("/root".to_string())));
        assert_eq!(home_directory("no-such-user-apache-lsp"), Ok(None));
    }
}
