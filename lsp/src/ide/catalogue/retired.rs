//! Directives of httpd 1.3 to 2.2 that httpd 2.4's command tables no longer hold (it answers
//! "Invalid command"), with what replaced them: configurations carried over from 2.2 fail to
//! start on these more than on any other line, and the generic "perhaps misspelled" says
//! nothing of the way out. (Names 2.4 still registers only to refuse them, such as `Port`, and
//! the 2.2 authorization switches are in the catalogue as removed directives.)

/// What replaced a retired directive, when `name` is one (compared without regard to case, as
/// httpd looks commands up).
pub(crate) fn replacement(name: &str) -> Option<&'static str> {
    RETIRED.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, r)| *r)
}

const RETIRED: &[(&str, &str)] = &[
    ("LockFile", "removed in 2.4: the lock file directory is set with `Mutex file:/path default`"),
    ("AcceptMutex", "removed in 2.4: the accept mutex is set with `Mutex <mechanism> mpm-accept`"),
    ("SSLMutex", "removed in 2.4: mod_ssl's mutexes are set with `Mutex <mechanism> ssl-cache` (and `ssl-stapling`)"),
    ("RewriteLock", "removed in 2.4: mod_rewrite's map mutex is set with `Mutex <mechanism> rewrite-map`"),
    ("AccessConfig", "removed in 2.3: name the file with `Include`"),
    ("ResourceConfig", "removed in 2.3: name the file with `Include`"),
    ("ServerType", "removed in 2.0: httpd always runs standalone"),
    ("BindAddress", "removed in 2.0: addresses and ports are set with `Listen`"),
    ("ClearModuleList", "removed in 2.0: modules are loaded with `LoadModule` only"),
    ("AddModule", "removed in 2.0: modules are loaded with `LoadModule` only"),
    ("AuthDigestFile", "removed in 2.2: mod_auth_digest reads `AuthUserFile` (with `AuthDigestProvider file`)"),
    ("Anonymous_Authoritative", "removed in 2.2: authentication providers are combined with `AuthBasicProvider`"),
    ("AuthLDAPAuthoritative", "removed in 2.2: use `AuthBasicProvider` and, in 2.4, Require containers"),
];

#[cfg(test)]
mod tests {
    #[test]
    fn retired_names_are_not_in_the_catalogue() {
        for (name, _) in super::RETIRED {
            assert!(super::super::directive(name).is_none(), "{name} is in the catalogue: say it there");
            assert!(super::replacement(&name.to_ascii_lowercase()).is_some());
        }
    }
}
