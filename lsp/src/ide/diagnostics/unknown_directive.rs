//! Check: directives httpd will not know, and wrong argument counts.
//!
//! httpd rejects these at startup ("Invalid command …", "… takes one argument").
//! We only say so where we know which modules are loaded (a main configuration
//! with its LoadModule lines); in a fragment analysed alone we do not guess.

use super::Diagnostic;
use crate::ide::catalogue;
use crate::ide::config::{Config, Node, NodeKind, Severity};

/// Directives whose arguments the access-policy checks validate precisely.
const VALIDATED_ELSEWHERE: &[&str] = &["Order", "Allow", "Deny", "Satisfy", "Require", "AuthMerging"];

/// What the check knows of the whole configuration.
pub(super) struct Known {
    /// LoadModule of something we have never heard of: it may define anything.
    foreign_module: bool,
}

impl Known {
    pub(super) fn new(cfg: &Config) -> Known {
        Known { foreign_module: cfg.modules.iter().any(|m| catalogue::module_by_identifier(m).is_none()) }
    }

    /// Checks `node`, the directive `d` of the catalogue (`None`: unknown).
    pub(super) fn node(
        &self,
        cfg: &Config,
        node: &Node,
        d: Option<&'static catalogue::Directive>,
        loaded: &mut super::ModulesLoaded,
        out: &mut Vec<Diagnostic>,
    ) {
        let foreign_module = self.foreign_module;
        if node.canonical().is_empty() {
            return;
        }
        let range = node.loc.focus;
        // A section's name written without its `<` (`LimitExcept GET`) names no command: httpd
        // registers sections as `<LimitExcept`.
        let d = d.filter(|d| !d.is_section || node.is_section());
        match d {
            None => {
                let (severity, known) = if cfg.modules_known && !foreign_module {
                    (Severity::Error, true)
                } else {
                    (Severity::Information, false)
                };
                let msg = if known {
                    format!("Invalid command '{}', perhaps misspelled or defined by a module not included in the server configuration", display_name(node))
                } else {
                    format!("'{}' is not a directive of httpd 2.4 or its bundled modules", display_name(node))
                };
                // A directive of an older httpd: what replaced it.
                let msg = match catalogue::retired::replacement(node.name()) {
                    Some(r) => format!("{msg}: {} was {r}", node.name()),
                    None => msg,
                };
                let msg = if node.name().starts_with(crate::ide::bom::BOM) {
                    format!("{msg}: the file begins with a UTF-8 byte-order mark, which httpd does not strip (it reads it as part of this name); save the file without it")
                } else {
                    msg
                };
                out.push(Diagnostic::new(node.loc.file, range, severity, "unknown-directive", msg));
            }
            Some(d) => {
                if d.status == catalogue::Status::Removed {
                    return; // reported by the removed-directive check
                }
                // A module Debian builds that does not define the name (the core's platform-only
                // directives, names only the manual knows): unknown to this httpd.
                if !d.in_build && d.modules().any(built_by_debian) {
                    let (severity, verdict) = if cfg.modules_known && !foreign_module {
                        (Severity::Error, "Invalid command '{}', perhaps misspelled or defined by a module not included in the server configuration")
                    } else {
                        (Severity::Information, "'{}' is not a directive of httpd 2.4 on Linux")
                    };
                    let why = match (d.module == "core").then(|| catalogue::values::platform_only(d.name)).flatten() {
                        Some(platform) => format!("{} exists only in {platform}", d.name),
                        None => {
                            format!("the manual documents {} but {} of this httpd does not define it", d.name, d.module)
                        }
                    };
                    let msg = format!("{}: {why}", verdict.replace("{}", &display_name(node)));
                    out.push(Diagnostic::new(node.loc.file, range, severity, "unknown-directive", msg));
                    return;
                }
                if !loaded.of(d) {
                    // Order/Allow/Deny/Satisfy have their own check with a migration hint.
                    if cfg.modules_known && !crate::ide::policy::is_compat_directive(node.canonical()) {
                        out.push(Diagnostic::new(
                            node.loc.file,
                            range,
                            Severity::Error,
                            "module-not-loaded",
                            format!(
                                "Invalid command '{}', perhaps misspelled or defined by a module not included in the server configuration: it comes from {}, which is not loaded",
                                display_name(node),
                                d.module
                            ),
                        ));
                    }
                    return;
                }
                // (The catalogue's spelling: compared exactly. The count is taken only of the
                // directives whose count matters.)
                if node.kind == NodeKind::Directive
                    && !matches!(
                        d.args,
                        catalogue::ArgKind::RawArgs | catalogue::ArgKind::TakeArgv | catalogue::ArgKind::Unknown
                    )
                    && !VALIDATED_ELSEWHERE.contains(&d.name)
                {
                    if let Some(msg) = catalogue::check_arg_words(d.args, node.args()) {
                        // The core's directives are there whatever modules are loaded.
                        let severity =
                            if cfg.modules_known || d.module == "core" { Severity::Error } else { Severity::Warning };
                        out.push(Diagnostic::new(
                            node.loc.file,
                            node.loc.range,
                            severity,
                            "argument-count",
                            format!("{} {msg}", d.name),
                        ));
                    }
                }
            }
        }
    }
}

/// Whether Debian's httpd has the module `identifier` (compiled in, or shipped as a shared object).
pub(crate) fn built_by_debian(identifier: &str) -> bool {
    identifier == "core"
        || catalogue::module_by_identifier(identifier).is_some_and(|m| m.builtin_debian || m.debian_so.is_some())
}

/// The name as httpd prints it (bytes outside printable ASCII as `\xHH`: an invisible
/// byte-order mark shows).
fn display_name(node: &crate::ide::config::Node) -> String {
    let name = crate::ide::bom::httpd_escaped(node.name());
    if node.kind == NodeKind::Section {
        format!("<{name}")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    /// A section's name without its `<` is no command httpd knows.
    #[test]
    fn section_names_written_as_directives() {
        expect![[r#"
            /etc/httpd/httpd.conf:3: Error[unknown-directive]: Invalid command 'LimitExcept', perhaps misspelled or defined by a module not included in the server configuration
            /etc/httpd/httpd.conf:5: Error[unknown-directive]: Invalid command 'Directory', perhaps misspelled or defined by a module not included in the server configuration
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule mpm_event_module m\n<Directory /srv>\nLimitExcept GET\n</Directory>\nDirectory /srv\n"));
    }

    #[test]
    fn directives_of_older_releases_say_what_replaced_them() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[unknown-directive]: Invalid command 'LockFile', perhaps misspelled or defined by a module not included in the server configuration: LockFile was removed in 2.4: the lock file directory is set with `Mutex file:/path default`
            /etc/httpd/httpd.conf:3: Error[unknown-directive]: Invalid command 'acceptmutex', perhaps misspelled or defined by a module not included in the server configuration: acceptmutex was removed in 2.4: the accept mutex is set with `Mutex <mechanism> mpm-accept`
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule authz_core_module modules/mod_authz_core.so\nLockFile /var/lock/httpd\nacceptmutex flock\n"));
    }

    #[test]
    fn unknown_directive_is_an_error_only_when_modules_are_known() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[unknown-directive]: Invalid command 'Frobnicate', perhaps misspelled or defined by a module not included in the server configuration
            /etc/httpd/httpd.conf:3: Error[module-not-loaded]: Invalid command 'RewriteEngine', perhaps misspelled or defined by a module not included in the server configuration: it comes from rewrite_module, which is not loaded
        "#]]
        .assert_eq(&render("//- /etc/httpd/httpd.conf\nLoadModule authz_core_module modules/mod_authz_core.so\nFrobnicate on\nRewriteEngine on\n"));
        expect![[r#"
            /srv/site.conf:1: Information[unknown-directive]: 'Frobnicate' is not a directive of httpd 2.4 or its bundled modules
        "#]]
        .assert_eq(&render("//- /srv/site.conf\nFrobnicate on\nRewriteEngine on\n"));
    }

    /// Directives of other platforms' builds (`#ifdef WIN32`, `#ifdef GPROF` in core.c).
    #[test]
    fn directives_of_other_platforms_are_unknown_on_linux() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[unknown-directive]: Invalid command 'UNCList', perhaps misspelled or defined by a module not included in the server configuration: UNCList exists only in httpd for Windows
            /etc/httpd/httpd.conf:3: Error[unknown-directive]: Invalid command 'gprofdir', perhaps misspelled or defined by a module not included in the server configuration: GprofDir exists only in httpd built for profiling with gprof (GPROF)
        "#]]
        .assert_eq(&render(
            "//- /etc/httpd/httpd.conf\nLoadModule authz_core_module modules/mod_authz_core.so\nUNCList host\ngprofdir /tmp\n",
        ));
        expect![[r#"
            /srv/site.conf:1: Information[unknown-directive]: 'ScriptInterpreterSource' is not a directive of httpd 2.4 on Linux: ScriptInterpreterSource exists only in httpd for Windows
        "#]]
        .assert_eq(&render("//- /srv/site.conf\nScriptInterpreterSource Registry\n"));
    }

    #[test]
    fn wrong_argument_count_of_a_take1_directive() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[argument-count]: ServerName takes one argument
        "#]]
        .assert_eq(&render(
            "//- /etc/httpd/httpd.conf\nLoadModule authz_core_module modules/mod_authz_core.so\nServerName a b c\n",
        ));
    }

    /// The core's directives are there whatever modules are loaded: a wrong count is an error
    /// where the modules are not known too (a fragment, a tree whose LoadModule lines were not
    /// found; black-box round 16, F6).
    #[test]
    fn a_core_directives_argument_count_does_not_depend_on_the_modules() {
        expect![[r#"
            /srv/site.conf:1: Error[argument-count]: ServerRoot takes one argument
        "#]]
        .assert_eq(&render("//- /srv/site.conf\nServerRoot a b\n"));
    }
}
