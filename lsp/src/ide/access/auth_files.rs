//! The password and group files a request's configuration names, as httpd opens them per
//! request: mod_authn_file opens its `AuthUserFile` when it checks a password, so a request with
//! credentials gets 500 (AH01620) where the file is not there, while httpd starts without a
//! word; mod_authz_groupfile reads its `AuthGroupFile` for each `Require group`, and denies where
//! it cannot (AH01665). The files are the ones in force for the request, .htaccess files
//! included (names relative to ServerRoot there too).

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

#[cfg(test)]
mod tests {
    use crate::ide::access::{resolve, FsView};
    use crate::ide::config::{self, RealFs};
    use crate::ide::policy;

    /// The status of GET `url` as `user` (None: anonymous; Some(None): a wrong password) where
    /// `www/.htaccess` holds `htaccess` and ROOT holds `groups` (`alice` in `admins`, `bob` in
    /// `staff`), the files read as explain reads them (or not, `from_disk` false).
    fn status(htaccess: &str, user: Option<Option<&str>>, from_disk: bool) -> Option<u16> {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www")).unwrap();
        std::fs::write(dir.path().join("groups"), "admins: alice\nstaff: bob\n").unwrap();
        std::fs::write(dir.path().join("www/.htaccess"), htaccess).unwrap();
        let main = dir.path().join("httpd.conf");
        let modules = ["authz_core", "authz_user", "authz_groupfile", "authn_core", "authn_file", "auth_basic"];
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
        let there = format!("{BASIC}AuthUserFile groups\nRequire valid-user\n");
        assert_eq!(status(&there, Some(Some("alice")), true), Some(200));
    }

    #[test]
    fn require_group_reads_the_group_file_in_force() {
        let group = |file: &str, group: &str| {
            format!("{BASIC}AuthUserFile groups\nAuthGroupFile {file}\nRequire group {group}\n")
        };
        assert_eq!(status(&group("groups", "admins"), Some(Some("alice")), true), Some(200));
        assert_eq!(status(&group("groups", "ADMINS"), Some(Some("alice")), true), Some(200));
        assert_eq!(status(&group("groups", "admins"), Some(Some("bob")), true), Some(401));
        assert_eq!(status(&group("groups", "staff"), Some(Some("bob")), true), Some(200));
        assert_eq!(status(&group("no-such-groups", "admins"), Some(Some("alice")), true), Some(401));
        // Not asked to look, the members are not known.
        assert_eq!(status(&group("groups", "admins"), Some(Some("alice")), false), None);
    }
}
