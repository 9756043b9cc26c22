//! Part of the `argument-value` check: the words handlers of single modules compare their
//! arguments with, read from each handler in httpd 2.4's source and held against `apache2 -t`
//! (`refusals_vs_httpd`): mod_autoindex's `IndexOptions` (`add_opts`), mod_ssl's
//! `SSLSessionCache`, `SSLRandomSeed` and `SSLPassPhraseDialog`, mod_userdir's `UserDir`,
//! mod_vhost_alias' format strings, `SubstituteMaxLineLength`, mod_dav's `Dav` and the map
//! types of mod_rewrite's `RewriteMap`.
//!
//! Names that other modules may register (socache and DAV providers, `int:` maps) are judged
//! only where every loaded module is one httpd ships, none else registering one. Whatever
//! needs the file system (the files of maps, seeds and dialogs) is left out: these checks read
//! the text alone.

use super::{atoi, strtol, Place};
use crate::ide::config::{Config, Node};

/// Whether the providers a name is looked up among are all known: the modules are known and
/// each is one of httpd's own.
fn providers_known(cfg: &Config) -> bool {
    cfg.modules_known && cfg.modules.iter().all(|m| crate::ide::catalogue::module_by_identifier(m).is_some())
}

/// The `IndexOptions` keywords that set an option bit (`add_opts`), case aside.
const INDEX_OPTIONS: &[&str] = &[
    "FancyIndexing",
    "FoldersFirst",
    "HTMLTable",
    "IconsAreLinks",
    "IgnoreCase",
    "IgnoreClient",
    "ScanHTMLTitles",
    "SuppressColumnSorting",
    "SuppressDescription",
    "SuppressHTMLPreamble",
    "SuppressIcon",
    "SuppressLastModified",
    "SuppressSize",
    "SuppressRules",
    "TrackModified",
    "VersionSort",
    "XHTML",
    "ShowForbidden",
    "AddAltClass",
];

/// What mod_autoindex's `add_opts` keeps between the words (and lines) of one record: whether
/// `None` and whether another option are among the options set without `+`/`-`.
#[derive(Default)]
struct IndexOpts {
    none: bool,
    other: bool,
}

impl IndexOpts {
    /// One word, in `add_opts`' order of tests; its refusal, if any.
    fn word(&mut self, w: &str) -> Option<&'static str> {
        let (action, w) = match w.as_bytes().first() {
            Some(b'+' | b'-') => (w.as_bytes()[0], &w[1..]),
            _ => (0, w),
        };
        let is = |k: &str| w.eq_ignore_ascii_case(k);
        let value = |k: &str| w.get(..k.len()).filter(|p| p.eq_ignore_ascii_case(k)).map(|_| &w[k.len()..]);
        if INDEX_OPTIONS.iter().any(|k| is(k)) {
            self.other |= action == 0;
            return None;
        }
        if is("None") {
            if action != 0 {
                return Some("Cannot combine '+' or '-' with 'None' keyword");
            }
            *self = IndexOpts { none: true, other: false };
            return None;
        }
        if is("IconWidth") || is("IconHeight") || is("UseOldDateFormat") {
            return None;
        }
        for (key, refused) in [
            ("IconWidth=", "Cannot combine '-' with IconWidth=n"),
            ("IconHeight=", "Cannot combine '-' with IconHeight=n"),
        ] {
            if value(key).is_some() {
                return (action == b'-').then_some(refused);
            }
        }
        let widths = [
            (
                "NameWidth",
                5,
                "NameWidth with no value may only appear as '-NameWidth'",
                "Cannot combine '-' with NameWidth=n",
                "NameWidth value must be greater than 5",
            ),
            (
                "DescriptionWidth",
                12,
                "DescriptionWidth with no value may only appear as '-DescriptionWidth'",
                "Cannot combine '-' with DescriptionWidth=n",
                "DescriptionWidth value must be greater than 12",
            ),
        ];
        for (key, min, bare, minus, small) in widths {
            if is(key) {
                return (action != b'-').then_some(bare);
            }
            if let Some(v) = value(&format!("{key}=")) {
                if action == b'-' {
                    return Some(minus);
                }
                let width = atoi(v);
                return (!v.starts_with('*') && width != 0 && width < min).then_some(small);
            }
        }
        if value("Type=").is_some() || value("Charset=").is_some() {
            return None;
        }
        Some("Invalid directory indexing option")
    }
}

/// mod_autoindex's `add_opts` on `n`'s words, after the `IndexOptions` lines before it in the
/// same record (which may leave `None` set): each word, then `None` set together with an
/// option set without `+`/`-`. The earlier lines are read only for a line that sets such an
/// option and no `None` (the only one they can make refused); where the record is not known
/// whole, the line alone is judged.
pub(super) fn index_options_refusal(n: &Node, args: &[String], place: Place) -> Option<String> {
    const COMBINED: &str = "Cannot combine other IndexOptions keywords with 'None'";
    let mut alone = IndexOpts::default();
    for w in args {
        if let Some(why) = alone.word(w) {
            return Some(why.to_string());
        }
    }
    if alone.none || !alone.other {
        return (alone.none && alone.other).then(|| COMBINED.to_string());
    }
    let mut before = IndexOpts::default();
    for earlier in place.earlier(n).unwrap_or_default() {
        if earlier.known() == "IndexOptions" {
            for w in earlier.arg_strings() {
                before.word(&w);
            }
        }
    }
    before.none.then(|| COMBINED.to_string())
}

/// The socache providers httpd's modules register (`ap_register_provider`), by module.
const SOCACHE_PROVIDERS: &[(&str, &str)] = &[
    ("socache_shmcb_module", "shmcb"),
    ("socache_shmcb_module", "default"),
    ("socache_dbm_module", "dbm"),
    ("socache_dc_module", "dc"),
    ("socache_memcache_module", "memcache"),
    ("socache_redis_module", "redis"),
];

/// mod_ssl's `ssl_cmd_SSLSessionCache`: `none` or `nonenotnull` (case aside), else a socache
/// provider's exact name before an optional `:`. (What the provider says of the rest is not
/// judged.)
pub(super) fn ssl_session_cache_refusal(cfg: &Config, arg: &str) -> Option<String> {
    if arg.eq_ignore_ascii_case("none") || arg.eq_ignore_ascii_case("nonenotnull") || !providers_known(cfg) {
        return None;
    }
    let name = arg.split_once(':').map_or(arg, |(name, _)| name);
    let loaded: Vec<&str> =
        SOCACHE_PROVIDERS.iter().filter(|(m, _)| cfg.module_loaded(m)).map(|(_, name)| *name).collect();
    (!loaded.contains(&name)).then(|| {
        format!(
            "SSLSessionCache: '{name}' session cache not supported (known names: {}). Maybe you need to load the appropriate socache module (mod_socache_{name}?).",
            loaded.join(",")
        )
    })
}

/// mod_ssl's `ssl_cmd_SSLRandomSeed`: the context `startup` or `connect`, a source (an `egd:`
/// one needs an OpenSSL with EGD, which none since 1.1.0 has), and a byte count only for a
/// source other than `builtin`, not negative. (Whether the source's path exists is not judged.)
pub(super) fn ssl_random_seed_refusal(args: &[String]) -> Option<String> {
    let [context, source, rest @ ..] = args else { return None };
    if !context.eq_ignore_ascii_case("startup") && !context.eq_ignore_ascii_case("connect") {
        return Some(format!("SSLRandomSeed: invalid context: `{context}'"));
    }
    if source.len() > 4 && source.starts_with("egd:") {
        return Some(format!(
            "Invalid SSLRandomSeed entropy source `{source}': This version of OpenSSL does not support the Entropy Gathering Daemon (EGD)."
        ));
    }
    let bytes = rest.first().filter(|b| !b.is_empty())?;
    if source.eq_ignore_ascii_case("builtin") {
        return Some("SSLRandomSeed: byte specification not allowed for builtin seed source".to_string());
    }
    (atoi(bytes) < 0).then(|| "SSLRandomSeed: invalid number of bytes specified".to_string())
}

/// mod_ssl's `ssl_cmd_SSLPassPhraseDialog`: `builtin` (case aside), `exec:` then a path, or
/// `|` then a program. (Whether the `exec:` file exists is not judged.)
pub(super) fn ssl_pass_phrase_dialog_refusal(arg: &str) -> Option<String> {
    let known = arg.eq_ignore_ascii_case("builtin")
        || (arg.len() > 5 && arg.starts_with("exec:"))
        || (arg.len() > 1 && arg.starts_with('|'));
    (!known).then(|| "SSLPassPhraseDialog: Invalid argument".to_string())
}

/// mod_vhost_alias' `vhost_alias_set`: `none` (case aside) or an absolute path whose `%`
/// escapes are `%%`, `%p`, or `[-]N[+][.[-]M[+]]` with single digits.
pub(super) fn vhost_alias_refusal(map: &str) -> Option<String> {
    if !map.starts_with('/') {
        return (!map.eq_ignore_ascii_case("none"))
            .then(|| "format string must be an absolute path, or 'none'".to_string());
    }
    let b = map.as_bytes();
    let mut i = 0;
    // One `[-]N[+]` part at `i`: false when no digit.
    let part = |i: &mut usize| {
        *i += usize::from(b.get(*i) == Some(&b'-'));
        if !b.get(*i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        *i += 1;
        *i += usize::from(b.get(*i) == Some(&b'+'));
        true
    };
    while i < b.len() {
        i += 1;
        if b[i - 1] != b'%' {
            continue;
        }
        if matches!(b.get(i), Some(b'p' | b'%')) {
            i += 1;
            continue;
        }
        if !part(&mut i) {
            return Some("syntax error in format string".to_string());
        }
        if b.get(i) != Some(&b'.') {
            continue;
        }
        i += 1;
        if !part(&mut i) {
            return Some("syntax error in format string".to_string());
        }
    }
    None
}

/// mod_substitute's `set_max_line_length`: `apr_strtoff`, then nothing or one of `b`, `k`,
/// `m`, `g` (case aside), the product not negative.
pub(super) fn substitute_max_line_length_refusal(arg: &str) -> Option<String> {
    let (value, end) = strtol(arg);
    let refused = || {
        Some(
            "SubstituteMaxLineLength must be a non-negative integer optionally suffixed with 'b', 'k', 'm' or 'g'."
                .to_string(),
        )
    };
    let Some(value) = value else { return refused() };
    let scale: i64 = match arg[end..].to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        _ => return refused(),
    };
    if value.wrapping_mul(scale) < 0 {
        return refused();
    }
    None
}

/// mod_dav's `dav_cmd_dav`: `On` (the `filesystem` provider), `Off`, or the exact name of a
/// provider a loaded module registers (httpd's: mod_dav_fs's `filesystem`).
pub(super) fn dav_refusal(cfg: &Config, arg: &str) -> Option<String> {
    if arg.eq_ignore_ascii_case("off") || !providers_known(cfg) {
        return None;
    }
    let name = if arg.eq_ignore_ascii_case("on") { "filesystem" } else { arg };
    (name != "filesystem" || !cfg.module_loaded("dav_fs_module")).then(|| format!("Unknown DAV provider: {name}"))
}

/// The `int:` maps mod_rewrite registers itself (`map_pfn_register`), looked up by exact name.
const REWRITE_INTERNAL_MAPS: &[&str] = &["tolower", "toupper", "escape", "unescape"];

/// mod_rewrite's `cmd_rewritemap` on the map's type and source (the second word): `dbm` must be
/// followed by `:` or by `=type:`; `dbd:` and `fastdbd:` need mod_dbd; `int:` names a map a
/// module registered. (Files that must exist are not judged; nor whether APR knows a DBM type.)
pub(super) fn rewrite_map_refusal(cfg: &Config, source: &str) -> Option<String> {
    let prefix = |p: &str| source.get(..p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p));
    if prefix("txt:") || prefix("rnd:") {
        return None;
    }
    if prefix("dbm") {
        let well_formed = match source.as_bytes().get(3) {
            Some(b':') => true,
            Some(b'=') => source[4..].contains(':'),
            _ => false,
        };
        return (!well_formed).then(|| format!("RewriteMap: bad map:{source}"));
    }
    if prefix("dbd:") || prefix("fastdbd:") {
        return (!cfg.module_loaded("dbd_module"))
            .then(|| "RewriteMap types dbd and fastdbd require mod_dbd!".to_string());
    }
    if prefix("int:") {
        let name = &source[4..];
        return (providers_known(cfg) && !REWRITE_INTERNAL_MAPS.contains(&name))
            .then(|| format!("RewriteMap: internal map not found:{name}"));
    }
    None
}

/// The mutex types httpd's modules register (`ap_mutex_register`), by module; `default` is
/// always there.
const MUTEX_TYPES: &[(&str, &str)] = &[
    ("auth_digest_module", "authdigest-client"),
    ("auth_digest_module", "authdigest-opaque"),
    ("authn_socache_module", "authn-socache"),
    ("cache_socache_module", "cache-socache"),
    ("watchdog_module", "watchdog-callback"),
    ("dav_fs_module", "dav_fs-lockdb"),
    ("ldap_module", "ldap-cache"),
    ("lua_module", "lua-ivm-shm"),
    ("rewrite_module", "rewrite-map"),
    ("proxy_module", "proxy"),
    ("proxy_balancer_module", "proxy-balancer-shm"),
    ("ssl_module", "ssl-cache"),
    ("ssl_module", "ssl-stapling"),
    ("ssl_module", "ssl-stapling-refresh"),
    ("mpm_prefork_module", "mpm-accept"),
    ("mpm_worker_module", "mpm-accept"),
];

/// `ap_set_mutex`'s mechanisms (`ap_parse_mutex`, the part before any `:`), case aside, on
/// Linux, where APR has them all; `none` and `no` are the ones that set no mutex.
const MUTEX_MECHANISM_NAMES: &[&str] =
    &["none", "no", "default", "yes", "fcntl", "file", "flock", "posixsem", "sem", "sysvsem", "pthread"];

/// `AP_ALL_AVAILABLE_MUTEXES_STRING` as Linux builds of httpd spell it.
const MUTEX_MECHANISMS: &str = "Mutex mechanisms are: 'none', 'default', 'flock:/path/to/file', 'fcntl:/path/to/file', 'file:/path/to/file', 'pthread', 'sysvsem', 'posixsem', 'sem'";

/// `ap_set_mutex` (server/util_mutex.c): a mechanism first (an empty word is none), then mutex
/// types (none means `default`), taken from the last: each one a loaded module registered
/// (looked up by exact name; judged where every loaded module is httpd's own), and none of
/// them accepting `none` (no module of httpd's registers one that does). (A mechanism's
/// directory, which must exist, is not judged.)
pub(super) fn mutex_refusal(cfg: &Config, args: &[String]) -> Option<String> {
    let (mechanism, types) = args.split_first()?;
    if mechanism.is_empty() {
        return Some(format!("Mutex requires at least a mechanism argument ({})", MUTEX_MECHANISMS));
    }
    let name = mechanism.split_once(':').map_or(mechanism.as_str(), |(m, _)| m);
    if !MUTEX_MECHANISM_NAMES.iter().any(|m| m.eq_ignore_ascii_case(name)) {
        return Some(format!("Invalid Mutex argument {mechanism} ({})", MUTEX_MECHANISMS));
    }
    let no_mutex = name.eq_ignore_ascii_case("none") || name.eq_ignore_ascii_case("no");
    let known = providers_known(cfg);
    let mut types: Vec<&str> =
        types.iter().map(String::as_str).filter(|t| !t.eq_ignore_ascii_case("omitpid")).collect();
    if types.is_empty() {
        types.push("default");
    }
    for t in types.iter().rev() {
        let registered = *t == "default" || MUTEX_TYPES.iter().any(|(m, name)| name == t && cfg.module_loaded(m));
        if !registered {
            // (An empty type is no name any module registers.)
            return (known || t.is_empty()).then(|| format!("Mutex type {t} is not valid"));
        }
        if no_mutex {
            return Some(format!("None is not allowed for mutex type {t}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    /// IndexOptions' words, and `None` with another option over the lines of one record.
    #[test]
    fn index_options_words_and_none_across_a_record() {
        expect![[r#"
            /etc/httpd.conf:2: Error[argument-value]: httpd 2.4 will not start: Invalid directory indexing option
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: Cannot combine '+' or '-' with 'None' keyword
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: DescriptionWidth value must be greater than 12
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: NameWidth with no value may only appear as '-NameWidth'
            /etc/httpd.conf:9: Error[argument-value]: httpd 2.4 will not start: Cannot combine other IndexOptions keywords with 'None'
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule autoindex_module m\n",
            "IndexOptions FancyIndexing Bogus\n",
            "IndexOptions +None\n",
            "IndexOptions NameWidth=* DescriptionWidth=5\n",
            "IndexOptions NameWidth\n",
            "IndexOptions NameWidth=0 -IconWidth IconHeight=abc Type=text/html -DescriptionWidth\n",
            "<Directory /srv>\nIndexOptions None +FancyIndexing\n",
            "IndexOptions SuppressSize\n</Directory>\n",
            "<Directory /srv2>\nIndexOptions FancyIndexing\nIndexOptions None\n</Directory>\n",
        )));
    }

    /// mod_ssl's session cache, seed and dialog words; Mutex mechanisms and types; the SSLv3
    /// protocol; the server-wide ones only outside sections.
    #[test]
    fn ssl_and_mutex_words() {
        expect![[r#"
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: SSLSessionCache: 'Default' session cache not supported (known names: shmcb,default). Maybe you need to load the appropriate socache module (mod_socache_Default?).
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: SSLRandomSeed: invalid context: `foo'
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: Invalid SSLRandomSeed entropy source `egd:/x': This version of OpenSSL does not support the Entropy Gathering Daemon (EGD).
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: SSLRandomSeed: byte specification not allowed for builtin seed source
            /etc/httpd.conf:10: Error[argument-value]: httpd 2.4 will not start: SSLPassPhraseDialog: Invalid argument
            /etc/httpd.conf:12: Error[argument-value]: httpd 2.4 will not start: Invalid Mutex argument bogus:/tmp (Mutex mechanisms are: 'none', 'default', 'flock:/path/to/file', 'fcntl:/path/to/file', 'file:/path/to/file', 'pthread', 'sysvsem', 'posixsem', 'sem')
            /etc/httpd.conf:13: Error[argument-value]: httpd 2.4 will not start: Mutex type c is not valid
            /etc/httpd.conf:14: Error[argument-value]: httpd 2.4 will not start: None is not allowed for mutex type ssl-cache
            /etc/httpd.conf:16: Error[argument-value]: httpd 2.4 will not start: SSLv3 not supported by this version of OpenSSL
            /etc/httpd.conf:17: Error[argument-value]: httpd 2.4 will not start: SSLProtocol: Illegal protocol '#c'
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule mpm_event_module m\nLoadModule ssl_module m\nLoadModule socache_shmcb_module m\n",
            "SSLSessionCache Default\n",
            "SSLSessionCache shmcb:/run/c(512000)\n",
            "SSLRandomSeed foo builtin\n",
            "SSLRandomSeed startup egd:/x\n",
            "SSLRandomSeed connect builtin 512\n",
            "SSLRandomSeed Startup file:/dev/urandom 512\n",
            "SSLPassPhraseDialog EXEC:/bin/true\n",
            "SSLPassPhraseDialog |/bin/cat\n",
            "Mutex bogus:/tmp\n",
            "Mutex sysvsem # c\n",
            "Mutex none ssl-cache\n",
            "Mutex file:/tmp default ssl-stapling OmitPID\n",
            "SSLProtocol SSLv3\n",
            "SSLProtocol all -SSLv3 #c\n",
            "SSLProtocol all -sslv3 +TLSv1.2\n",
        )));
    }

    /// UserDir without a word, mod_vhost_alias' formats, SubstituteMaxLineLength, Dav
    /// providers and RewriteMap types.
    #[test]
    fn single_module_words() {
        expect![[r#"
            /etc/httpd.conf:2: Error[argument-value]: httpd 2.4 will not start: UserDir requires an argument.
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: syntax error in format string
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: syntax error in format string
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: format string must be an absolute path, or 'none'
            /etc/httpd.conf:11: Error[argument-value]: httpd 2.4 will not start: SubstituteMaxLineLength must be a non-negative integer optionally suffixed with 'b', 'k', 'm' or 'g'.
            /etc/httpd.conf:12: Error[argument-value]: httpd 2.4 will not start: SubstituteMaxLineLength must be a non-negative integer optionally suffixed with 'b', 'k', 'm' or 'g'.
            /etc/httpd.conf:16: Error[argument-value]: httpd 2.4 will not start: Unknown DAV provider: Filesystem
            /etc/httpd.conf:20: Error[argument-value]: httpd 2.4 will not start: RewriteMap: bad map:dbm=sdbm
            /etc/httpd.conf:21: Error[argument-value]: httpd 2.4 will not start: RewriteMap: internal map not found:ToUpper
            /etc/httpd.conf:22: Error[argument-value]: httpd 2.4 will not start: RewriteMap types dbd and fastdbd require mod_dbd!
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule userdir_module m\nUserDir\nUserDir disabled\n",
            "LoadModule vhost_alias_module m\nVirtualDocumentRoot /srv/%x\nVirtualScriptAliasIP /srv/%1.x\nVirtualDocumentRoot srv\n",
            "VirtualDocumentRoot /srv/%0/%-1.2/%3+/%p/%%\n",
            "LoadModule substitute_module m\n<Location /x>\nSubstituteMaxLineLength 10kb\nSubstituteMaxLineLength -1\n",
            "SubstituteMaxLineLength 10K\n",
            "LoadModule dav_module m\nLoadModule dav_fs_module m\nDav Filesystem\nDav On\n</Location>\n",
            "LoadModule rewrite_module m\nRewriteMap a dbm=sdbm\nRewriteMap b int:ToUpper\nRewriteMap c fastdbd:SELECT 1\n",
            "RewriteMap d int:toupper\nRewriteMap e DBM=db:/etc/passwd\n",
        )));
    }
}
