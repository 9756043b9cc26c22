//! module-dependency, more-than-one-mpm: `LoadModule` lines httpd refuses for what the lines
//! before them loaded.
//!
//! - A module built against another module's functions (mod_proxy_http calls mod_proxy's,
//!   mod_cache_disk mod_cache's): mod_so opens it with the symbols the modules loaded so far
//!   export, so before that module is loaded the dynamic linker refuses it, "Cannot load … into
//!   server: … undefined symbol", and httpd stops at that line. [`NEEDS`] lists them, as found on
//!   Debian's apache2 by loading each module of /usr/lib/apache2/modules on its own
//!   (`tests/tests/context_vs_httpd.rs` holds each pair to `apache2 -t` both ways).
//! - A second MPM: each registers the `mpm` hook, and once the configuration is read httpd
//!   counts them (`server/mpm_common.c: ap_check_mpm`, AH00534 "More than one MPM loaded.").
//!
//! Only for a main configuration, whose LoadModule lines are all seen in the order httpd reads
//! them; a fragment checked alone may rely on lines elsewhere.

use super::Diagnostic;
use crate::ide::config::modules::BUILTIN;
use crate::ide::config::{Config, Node, TopLevel};
use rustc_hash::FxHashSet;

/// (module, the module whose functions it calls): its LoadModule line needs an earlier one of
/// the other.
pub const NEEDS: &[(&str, &str)] = &[
    ("cache_disk_module", "cache_module"),
    ("cache_socache_module", "cache_module"),
    ("dav_fs_module", "dav_module"),
    ("dav_lock_module", "dav_module"),
    ("proxy_ajp_module", "proxy_module"),
    ("proxy_balancer_module", "proxy_module"),
    ("proxy_connect_module", "proxy_module"),
    ("proxy_express_module", "proxy_module"),
    ("proxy_fcgi_module", "proxy_module"),
    ("proxy_fdpass_module", "proxy_module"),
    ("proxy_ftp_module", "proxy_module"),
    ("proxy_hcheck_module", "proxy_module"),
    ("proxy_http_module", "proxy_module"),
    ("proxy_http2_module", "proxy_module"),
    ("proxy_scgi_module", "proxy_module"),
    ("proxy_uwsgi_module", "proxy_module"),
    ("proxy_wstunnel_module", "proxy_module"),
    ("session_cookie_module", "session_module"),
    ("session_crypto_module", "session_module"),
    ("session_dbd_module", "session_module"),
];

/// The modules loaded so far, in the order httpd reads the lines.
pub(super) struct Seen {
    loaded: FxHashSet<String>,
    mpm: Option<String>,
}

impl Default for Seen {
    fn default() -> Seen {
        Seen { loaded: BUILTIN.iter().map(|m| m.to_string()).collect(), mpm: None }
    }
}

pub(super) fn node(cfg: &Config, node: &Node, seen: &mut Seen, out: &mut Vec<Diagnostic>) {
    if cfg.top != TopLevel::Main || node.is_section() || node.known() != "LoadModule" {
        return;
    }
    let args = node.arg_strings();
    let (Some(id), file) = (args.first(), args.get(1).map_or("", String::as_str)) else { return };
    // (A module loaded already is skipped: module-loaded-twice.)
    if id.contains("${") || !seen.loaded.insert(id.clone()) {
        return;
    }
    if let Some((_, needed)) = NEEDS.iter().find(|(m, _)| m == id) {
        if !seen.loaded.contains(*needed) {
            let refusal = format!(
                "Cannot load {file} into server: undefined symbol: {id} calls functions of {needed}, which no earlier LoadModule line loads (load it first)"
            );
            out.push(super::refused_line(cfg, node, "module-dependency", &refusal));
        }
    }
    if id.starts_with("mpm_") {
        match &seen.mpm {
            Some(first) => {
                let refusal = format!(
                    "Configuration error: More than one MPM loaded (AH00534): {first} is loaded by an earlier LoadModule line, and httpd refuses both once it has read the configuration"
                );
                out.push(super::refused_line(cfg, node, "more-than-one-mpm", &refusal));
            }
            None => seen.mpm = Some(id.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    #[test]
    fn a_module_before_the_one_it_calls_and_a_second_mpm_are_refused() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[module-dependency]: httpd 2.4 will not start: Cannot load m/http.so into server: undefined symbol: proxy_http_module calls functions of proxy_module, which no earlier LoadModule line loads (load it first)
            /etc/httpd/httpd.conf:5: Error[more-than-one-mpm]: httpd 2.4 will not start: Configuration error: More than one MPM loaded (AH00534): mpm_event_module is loaded by an earlier LoadModule line, and httpd refuses both once it has read the configuration
            /etc/httpd/httpd.conf:6: Warning[module-loaded-twice]: module mpm_event_module is already loaded, skipping (AH01574): an earlier LoadModule line loads it
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m/e.so\nLoadModule proxy_http_module m/http.so\nLoadModule proxy_module m/p.so\nLoadModule proxy_fcgi_module m/f.so\nLoadModule mpm_prefork_module m/p.so\nLoadModule mpm_event_module m/e.so\n"));
    }

    #[test]
    fn a_fragment_and_a_false_conditional_say_nothing() {
        // A fragment may rely on lines elsewhere; httpd skips a false conditional's lines.
        let fx = crate::ide::diagnostics::tests::Fixture::parse(
            "//- /etc/httpd/conf.d/proxy_http.load\nLoadModule proxy_http_module m/http.so\n",
        );
        let cfg = crate::ide::config::load_fragment(std::path::Path::new(&fx.0[0].0), &fx);
        let found = crate::ide::diagnostics::all(&cfg);
        assert!(found.iter().all(|d| d.code != "module-dependency"), "{found:?}");
        assert_eq!(render("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m/e.so\n<IfDefine NOPE>\n  LoadModule mpm_prefork_module m/p.so\n  LoadModule dav_fs_module m/d.so\n</IfDefine>\n"), "");
    }
}
