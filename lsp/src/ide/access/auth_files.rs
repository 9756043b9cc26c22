//! The password and group files a request's configuration names, as httpd opens them per
//! request: mod_authn_file opens its `AuthUserFile` when it checks a password, so a request with
//! credentials gets 500 (AH01620) where the file is not there, while httpd starts without a
//! word; mod_authz_groupfile reads its `AuthGroupFile` for each `Require group`, and denies where
//! it cannot (AH01665). The files are the ones in force for the request, .htaccess files
//! included (names relative to ServerRoot there too); so does mod_authn_dbm its
//! `AuthDBMUserFile`.

use crate::ide::config::Config;
use crate::ide::policy::{AuthnConfig, Request};
use std::path::{Path, PathBuf};

/// `written` as httpd opens it: absolute, or under ServerRoot.
pub fn resolved(cfg: &Config, written: &str) -> PathBuf {
    if Path::new(written).is_absolute() {
        PathBuf::from(written)
    } else {
        cfg.server_root.join(written)
    }
}

/// Whether a DBM file of type `kind` (`AuthDBMType`, as APR's DBM layer names them) can be
/// opened at `path`: SDBM keeps `path.pag` and `path.dir`; DB and GDBM the file itself; for
/// NDBM and the build's default type, any of these names counts. APR knows no other type.
fn dbm_openable(path: &Path, kind: &str) -> bool {
    let with = |ext: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(ext);
        PathBuf::from(p).is_file()
    };
    match kind.to_ascii_lowercase().as_str() {
        "sdbm" => with(".pag") && with(".dir"),
        "db" | "gdbm" => path.is_file(),
        "ndbm" | "default" => path.is_file() || with(".db") || (with(".pag") && with(".dir")),
        _ => false,
    }
}

/// Fills in what `request` knows of the password and group files `authn` (the request's merged
/// configuration, .htaccess files included) names, as httpd opens them per request: a missing
/// `AuthUserFile` (a 500 once a password is checked), and the members of the `AuthGroupFile`
/// groups, or that it cannot be opened. Only for a request that asks
/// ([`Request::auth_files_from_disk`]); the others are left as they are.
pub fn in_force(cfg: &Config, authn: &AuthnConfig, request: &mut Request) {
    if !request.auth_files_from_disk {
        return;
    }
    if let Some(f) = &authn.user_file {
        let path = resolved(cfg, &f.value);
        if !path.exists() {
            request.missing_user_files.insert(f.value.clone(), path.to_string_lossy().into_owned());
        } else if request.check_user_listed {
            let unlisted =
                request.user.as_ref().is_some_and(|u| users_in(&path).is_some_and(|users| !users.contains(u)));
            request.unlisted_user_file = unlisted.then(|| path.to_string_lossy().into_owned());
        }
    }
    if let Some(f) = &authn.dbm_user_file {
        let path = resolved(cfg, &f.value);
        if !dbm_openable(&path, authn.dbm_type.as_ref().map_or("default", |t| t.value.as_str())) {
            request.missing_dbm_user_file = Some(path.to_string_lossy().into_owned());
        }
    }
    if let Some(g) = &authn.group_file {
        let path = resolved(cfg, &g.value);
        match super::groups::memberships_in(&path) {
            Some(groups) => request.groups = Some(groups),
            None => request.unreadable_group_file = Some(path.to_string_lossy().into_owned()),
        }
    }
}

/// The users a password file lists, as mod_authn_file reads it (`check_password`): each line's
/// text up to its first `:`, blank and `#` lines aside. None where it cannot be read.
fn users_in(path: &Path) -> Option<std::collections::BTreeSet<String>> {
    let bytes = crate::ide::config::read_regular(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
    Some(lines.map(|l| l.split(':').next().unwrap_or(l).to_string()).collect())
}

#[cfg(test)]
mod tests {
    use crate::ide::access::{resolve, FsView};
    use crate::ide::config::{self, RealFs};
    use crate::ide::policy;

    /// The status of GET `url` as `user` (None: anonymous; Some(None): a wrong password) where
    /// `www/.htaccess` holds `htaccess` and ROOT holds `groups` (`alice` in `admins`, `bob` in
    /// `staff`) and `users` (alice, bob), the files read as explain reads them (or not,
    /// `from_disk` false).
    fn status(htaccess: &str, user: Option<Option<&str>>, from_disk: bool) -> Option<u16> {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www")).unwrap();
        std::fs::write(dir.path().join("groups"), "admins: alice\nstaff: bob\n").unwrap();
        std::fs::write(dir.path().join("users"), "# the team\nalice:{SHA}x\n\n  bob:y\n").unwrap();
        std::fs::write(dir.path().join("www/.htaccess"), htaccess).unwrap();
        let main = dir.path().join("httpd.conf");
        let modules =
            ["authz_core", "authz_user", "authz_groupfile", "authn_core", "authn_file", "authn_dbm", "auth_basic"];
        let loads: String = modules.iter().map(|m| format!("LoadModule {m}_module m\n")).collect();
        std::fs::write(
            &main,
            format!("ServerRoot {d}\n{loads}DocumentRoot {d}/www\n<Directory {d}/www>\nAllowOverride AuthConfig\n</Directory>\n"),
        )
        .unwrap();
        let cfg = config::load(&main, &RealFs);
        let r = resolve(&cfg, &FsView::fresh(), "/", None, None);
        let mut req = policy::Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
        req.auth_files_from_disk = from_disk;
        req.check_user_listed = from_disk;
        match user {
            Some(Some(u)) => req.user = Some(u.to_string()),
            Some(None) => req.bad_credentials = true,
            None => {}
        }
        r.outcome(&cfg, &req).status
    }

    const BASIC: &str = "AuthType Basic\nAuthName x\n";

    #[test]
    fn a_password_file_named_in_an_htaccess_file_is_looked_at_where_it_is_in_force() {
        let missing = format!("{BASIC}AuthUserFile no-such-file\nRequire valid-user\n");
        assert_eq!(status(&missing, None, true), Some(401));
        assert_eq!(status(&missing, Some(Some("alice")), true), Some(500));
        assert_eq!(status(&missing, Some(None), true), Some(500));
        // Not asked to look: taken as readable (the hover, check).
        assert_eq!(status(&missing, Some(Some("alice")), false), Some(200));
        let there = format!("{BASIC}AuthUserFile users\nRequire valid-user\n");
        assert_eq!(status(&there, Some(Some("alice")), true), Some(200));
        assert_eq!(status(&there, Some(Some("bob")), true), Some(200));
        // A user the file does not list: "user not found" (AH01618), 401 (round 17 H1, C17 F14).
        assert_eq!(status(&there, Some(Some("zed")), true), Some(401));
        assert_eq!(status(&there, Some(Some("zed")), false), Some(200), "not looked at");
    }

    #[test]
    fn require_group_reads_the_group_file_in_force() {
        let group = |file: &str, group: &str| {
            format!("{BASIC}AuthUserFile users\nAuthGroupFile {file}\nRequire group {group}\n")
        };
        assert_eq!(status(&group("groups", "admins"), Some(Some("alice")), true), Some(200));
        assert_eq!(status(&group("groups", "ADMINS"), Some(Some("alice")), true), Some(200));
        assert_eq!(status(&group("groups", "admins"), Some(Some("bob")), true), Some(401));
        assert_eq!(status(&group("groups", "staff"), Some(Some("bob")), true), Some(200));
        assert_eq!(status(&group("no-such-groups", "admins"), Some(Some("alice")), true), Some(401));
        // Not asked to look, the members are not known.
        assert_eq!(status(&group("groups", "admins"), Some(Some("alice")), false), None);
    }

    #[test]
    fn dbm_files_are_looked_for_under_the_names_their_type_opens() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("users");
        let sdbm = dir.path().join("s");
        std::fs::write(&db, "x").unwrap();
        for ext in [".pag", ".dir"] {
            std::fs::write(dir.path().join(format!("s{ext}")), "x").unwrap();
        }
        assert!(
            super::dbm_openable(&db, "default") && super::dbm_openable(&db, "DB") && super::dbm_openable(&db, "GDBM")
        );
        assert!(!super::dbm_openable(&db, "SDBM"), "SDBM opens users.pag and users.dir");
        assert!(super::dbm_openable(&sdbm, "SDBM") && super::dbm_openable(&sdbm, "default"));
        assert!(!super::dbm_openable(&sdbm, "DB"));
        assert!(!super::dbm_openable(&db, "nosuchtype"));
        assert!(!super::dbm_openable(&dir.path().join("none"), "default"));
    }

    #[test]
    fn a_dbm_password_file_that_cannot_be_opened_is_a_500_once_credentials_come() {
        let dbm = |file: &str| format!("{BASIC}AuthBasicProvider dbm\n{file}Require valid-user\n");
        let unnamed = dbm("");
        assert_eq!(status(&unnamed, None, true), Some(401));
        assert_eq!(status(&unnamed, Some(Some("alice")), true), Some(500));
        assert_eq!(status(&unnamed, Some(None), false), Some(500));
        let missing = dbm("AuthDBMUserFile no-such.db\n");
        assert_eq!(status(&missing, Some(None), true), Some(500));
        assert_eq!(status(&missing, Some(Some("alice")), false), Some(200), "not looked at: taken as openable");
        let there = dbm("AuthDBMUserFile groups\n");
        assert_eq!(status(&there, Some(Some("alice")), true), Some(200));
        assert_eq!(status(&there, Some(None), true), Some(401));
    }
}
