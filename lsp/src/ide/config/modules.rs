//! Which modules a configuration has, and how `<IfModule>` names them.

/// The httpd version `<IfVersion>` is evaluated against: a 2.4 server, as in
/// Debian's `apache2` package.
pub const HTTPD_VERSION: (u32, u32, u32) = (2, 4, 71);

/// Compiled into Debian's apache2 binary (`apache2 -l`).
pub const BUILTIN: &[&str] = &[
    "core_module",
    "so_module",
    "watchdog_module",
    "http_module",
    "log_config_module",
    "logio_module",
    "version_module",
    "unixd_module",
];

/// The source file of a module Debian's apache2 has compiled in and mod_so refuses to load
/// (`module … is built-in and can't be loaded`): those whose source is named `mod_*.c`
/// (`modules/core/mod_so.c: load_module` compares the identifier with that name). `core.c`
/// and `http_core.c` are not named so.
pub fn compiled_in_source(id: &str) -> Option<String> {
    let base = id.strip_suffix("_module")?;
    (BUILTIN.contains(&id) && id != "core_module" && id != "http_module").then(|| format!("mod_{base}.c"))
}

/// What Debian enables out of the box (`/etc/apache2/mods-enabled`), assumed for a
/// file analysed without a root configuration.
pub const DEBIAN_DEFAULT: &[&str] = &[
    "access_compat_module",
    "alias_module",
    "auth_basic_module",
    "authn_core_module",
    "authn_file_module",
    "authz_core_module",
    "authz_host_module",
    "authz_user_module",
    "autoindex_module",
    "deflate_module",
    "dir_module",
    "env_module",
    "filter_module",
    "mime_module",
    "mpm_event_module",
    "negotiation_module",
    "reqtimeout_module",
    "setenvif_module",
    "status_module",
];

/// A set of module identifiers (`authz_core_module`).
///
/// Hashed: the checks ask whether a module is loaded for most nodes of a configuration (a
/// search tree compared the name with half a dozen others each time); listed in order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ModuleSet {
    ids: rustc_hash::FxHashSet<String>,
}

impl std::fmt::Debug for ModuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModuleSet").field("ids", &self.iter().collect::<std::collections::BTreeSet<_>>()).finish()
    }
}

impl ModuleSet {
    pub fn builtin() -> ModuleSet {
        ModuleSet { ids: BUILTIN.iter().map(|s| s.to_string()).collect() }
    }
    pub fn debian_default() -> ModuleSet {
        let mut m = ModuleSet::builtin();
        for id in DEBIAN_DEFAULT {
            m.insert(id);
        }
        m
    }
    pub fn insert(&mut self, id: &str) {
        self.ids.insert(id.to_string());
    }
    pub fn remove(&mut self, id: &str) {
        self.ids.remove(id);
    }
    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }
    /// The identifiers, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let mut ids: Vec<&str> = self.ids.iter().map(|s| s.as_str()).collect();
        ids.sort_unstable();
        ids.into_iter()
    }
    /// `<IfModule name>`: httpd matches the module's source file name
    /// (`mod_authz_core.c`) or its identifier (`authz_core_module`), exactly
    /// (`server/core.c: find_module`). `mod_authz_core` alone matches nothing.
    pub fn matches_ifmodule(&self, name: &str) -> bool {
        if name.ends_with(".c") {
            return source_to_id(name).is_some_and(|id| self.contains(&id));
        }
        self.contains(name)
    }
}

/// The identifier of the module built from a source file, e.g. `mod_authz_core.c`
/// → `authz_core_module`, `event.c` → `mpm_event_module`.
pub fn source_to_id(source: &str) -> Option<String> {
    let stem = source.strip_suffix(".c")?;
    Some(match stem {
        "core" => "core_module".into(),
        "http_core" => "http_module".into(),
        "event" | "prefork" | "worker" | "winnt" | "netware" | "mpmt_os2" => format!("mpm_{stem}_module"),
        "mod_php5" | "mod_php7" | "mod_php" => format!("{}_module", &stem[4..]),
        _ => format!("{}_module", stem.strip_prefix("mod_").unwrap_or(stem)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ifmodule_matches_source_name_or_identifier_only() {
        let m = ModuleSet::debian_default();
        assert!(m.matches_ifmodule("mod_authz_core.c"));
        assert!(m.matches_ifmodule("authz_core_module"));
        assert!(!m.matches_ifmodule("mod_authz_core"));
        assert!(!m.matches_ifmodule("authz_core"));
        assert!(!m.matches_ifmodule("mod_AUTHZ_core.c"));
        assert!(m.matches_ifmodule("mod_version.c"));
        assert!(m.matches_ifmodule("event.c"));
    }
}
