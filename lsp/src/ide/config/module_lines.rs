//! `LoadModule` lines as mod_so reads them, one after the other as the configuration is read:
//! `load_module` runs when httpd reads the line (`EXEC_ON_READ`), wherever it stands, even in
//! a section httpd refuses only later (`<Foo>` unknown: `apache2 -t` names the LoadModule line
//! inside it first); only a `<Macro>` body, which mod_macro keeps for `Use`, runs none of its
//! lines where it stands (the loader reads no LoadModule line there). What httpd says of each
//! line:
//!
//! - module-loaded-twice: a module an earlier line loaded is skipped with a warning (AH01574).
//! - builtin-module: one Debian's apache2 has compiled in stops httpd there (a warning: other
//!   builds load it).
//! - module-dependency: a module built against another module's functions (mod_proxy_http
//!   calls mod_proxy's, mod_cache_disk mod_cache's): mod_so opens it with the symbols the
//!   modules loaded so far export, so before that module is loaded the dynamic linker refuses
//!   it, "Cannot load … into server: … undefined symbol", and httpd stops at that line.
//!   [`NEEDS`] lists them, as found on Debian's apache2 by loading each module of
//!   /usr/lib/apache2/modules on its own (`tests/tests/context_vs_httpd.rs` holds each pair to
//!   `apache2 -t` both ways).
//! - more-than-one-mpm: each MPM registers the `mpm` hook, and once the configuration is read
//!   httpd counts them (`server/mpm_common.c: ap_check_mpm`, AH00534 "More than one MPM
//!   loaded.").
//!
//! The last two only for a main configuration, whose LoadModule lines are all seen in the order
//! httpd reads them; a fragment checked alone may rely on lines elsewhere.

use super::modules::compiled_in_source;
use super::Severity;
use std::collections::HashSet;

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

/// What httpd says first where it refuses to start, outside an .htaccess file.
pub(crate) const WILL_NOT_START: &str = "httpd 2.4 will not start";

/// The modules the LoadModule lines read so far loaded (mod_so's own list: not the modules
/// compiled in, nor those a fragment is assumed to run with), and the first MPM among them.
#[derive(Default)]
pub(super) struct ModuleLines {
    loaded: HashSet<String>,
    mpm: Option<String>,
}

/// What httpd says of a LoadModule line.
pub(super) struct Said {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// Said of the line from its name on, its trailing blanks left out (as every line httpd
    /// refuses), rather than of the whole line.
    pub from_name: bool,
}

impl ModuleLines {
    /// The line `LoadModule id file`, read in a main configuration (`main`) or not.
    pub(super) fn line(&mut self, id: &str, file: &str, main: bool) -> Vec<Said> {
        let said = |severity, code, message, from_name| Said { severity, code, message, from_name };
        if !self.loaded.insert(id.to_string()) {
            let message =
                format!("module {id} is already loaded, skipping (AH01574): an earlier LoadModule line loads it");
            return vec![said(Severity::Warning, "module-loaded-twice", message, false)];
        }
        let mut out = Vec::new();
        if let Some(source) = compiled_in_source(id) {
            // Only as Debian builds httpd: Red Hat's and upstream's ship these as modules.
            out.push(said(Severity::Warning, "builtin-module", format!("module {id} is built-in and can't be loaded: Debian's apache2 has {source} compiled in (`apache2 -l`) and will not start; builds that ship it as a loadable module accept this line"), false));
        }
        if !main || id.contains("${") {
            return out;
        }
        if let Some((_, needed)) = NEEDS.iter().find(|(m, _)| *m == id) {
            if !self.loaded.contains(*needed) {
                let message = format!("{WILL_NOT_START}: Cannot load {file} into server: undefined symbol: {id} calls functions of {needed}, which no earlier LoadModule line loads (load it first)");
                out.push(said(Severity::Error, "module-dependency", message, true));
            }
        }
        if id.starts_with("mpm_") {
            match &self.mpm {
                Some(first) => {
                    let message = format!("{WILL_NOT_START}: Configuration error: More than one MPM loaded (AH00534): {first} is loaded by an earlier LoadModule line, and httpd refuses both once it has read the configuration");
                    out.push(said(Severity::Error, "more-than-one-mpm", message, true));
                }
                None => self.mpm = Some(id.to_string()),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    #[test]
    fn load_module_of_a_compiled_in_or_loaded_module() {
        expect![[r#"
            /etc/httpd/httpd.conf:1: Warning[builtin-module]: module unixd_module is built-in and can't be loaded: Debian's apache2 has mod_unixd.c compiled in (`apache2 -l`) and will not start; builds that ship it as a loadable module accept this line
            /etc/httpd/httpd.conf:6: Warning[module-loaded-twice]: module alias_module is already loaded, skipping (AH01574): an earlier LoadModule line loads it
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule unixd_module m.so\nLoadModule alias_module m.so\n<IfModule !mod_version.c>\n  LoadModule version_module m.so\n</IfModule>\nLoadModule alias_module m.so\nLoadModule core_module m.so\n"));
    }

    #[test]
    fn a_module_before_the_one_it_calls_and_a_second_mpm_are_refused() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[module-dependency]: httpd 2.4 will not start: Cannot load m/http.so into server: undefined symbol: proxy_http_module calls functions of proxy_module, which no earlier LoadModule line loads (load it first)
            /etc/httpd/httpd.conf:5: Error[more-than-one-mpm]: httpd 2.4 will not start: Configuration error: More than one MPM loaded (AH00534): mpm_event_module is loaded by an earlier LoadModule line, and httpd refuses both once it has read the configuration
            /etc/httpd/httpd.conf:6: Warning[module-loaded-twice]: module mpm_event_module is already loaded, skipping (AH01574): an earlier LoadModule line loads it
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m/e.so\nLoadModule proxy_http_module m/http.so\nLoadModule proxy_module m/p.so\nLoadModule proxy_fcgi_module m/f.so\nLoadModule mpm_prefork_module m/p.so\nLoadModule mpm_event_module m/e.so\n"));
    }

    /// httpd runs LoadModule as it reads the line, before it looks at the section around it:
    /// inside a section it does not know, the line is refused first (`apache2 -t` names it).
    #[test]
    fn a_line_in_a_section_httpd_refuses_later_is_read_first() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[unknown-directive]: Invalid command '<Foo', perhaps misspelled or defined by a module not included in the server configuration
            /etc/httpd/httpd.conf:3: Error[module-dependency]: httpd 2.4 will not start: Cannot load m/http.so into server: undefined symbol: proxy_http_module calls functions of proxy_module, which no earlier LoadModule line loads (load it first)
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m/e.so\n<Foo>\n  LoadModule proxy_http_module m/http.so\n</Foo>\n"));
    }

    /// mod_macro keeps a `<Macro>` body for `Use`: its LoadModule lines load nothing where they
    /// stand (`apache2 -t`: Syntax OK). Without mod_macro, `<Macro>` is a section httpd does
    /// not know, and the line is read as in any other.
    #[test]
    fn a_macro_body_loads_nothing_where_it_stands() {
        let body =
            "<Macro P>\n  LoadModule proxy_http_module m/h.so\n  LoadModule mpm_prefork_module m/p.so\n</Macro>\n";
        assert_eq!(
            render(&format!(
                "//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m/e.so\nLoadModule macro_module m/m.so\n{body}"
            )),
            ""
        );
        let found = render(&format!("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m/e.so\n{body}"));
        assert!(
            found.contains(":3: Error[module-dependency]") && found.contains(":4: Error[more-than-one-mpm]"),
            "{found}"
        );
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
