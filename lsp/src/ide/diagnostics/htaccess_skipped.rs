//! Check: lines of an .htaccess file httpd skips under `AllowOverride … Nonfatal=…`
//! ([`crate::ide::nonfatal`]), and nothing else about them.
//!
//! Under `Nonfatal=Unknown` (or `All`) a directive httpd does not know is logged (AH02296) and
//! skipped: a warning here, not the "Invalid command" error that would claim a 500. Under
//! `Nonfatal=Override` (or `All`) a line the AllowOverride does not let in is logged (AH02295)
//! and skipped, a section with its body; directive-context says so. httpd never runs a skipped
//! line, so its arguments and its body are never checked either: [`retain_run`] drops every
//! other finding inside it (the structure of the file, which httpd reads before running any
//! line, still counts). Only lines every server reading the file skips are treated so.

use super::{directive_context, Diagnostic};
use crate::ide::config::{Config, Severity, TopLevel};
use crate::ide::nonfatal::{self, Skipped, Why};

/// The lines of .htaccess file `cfg` that every server reading it skips; empty for other files
/// and where the AllowOverride in force is not known. Found once per loaded file.
pub(crate) fn everywhere(cfg: &Config) -> &[Skipped] {
    if cfg.top != TopLevel::Htaccess {
        return &[];
    }
    cfg.index().htaccess_skipped.get_or_init(|| find(cfg))
}

fn find(cfg: &Config) -> Vec<Skipped> {
    let Some(groups) = directive_context::overrides_read(cfg) else { return Vec::new() };
    let mut reading = groups.iter().map(|(_, o)| o).filter(|o| o.reads_htaccess());
    let Some(first) = reading.next() else { return Vec::new() };
    let mut skips = nonfatal::skipped(cfg, first);
    for o in reading {
        let other = nonfatal::skipped(cfg, o);
        skips.retain(|s| other.contains(s));
    }
    skips
}

/// .htaccess file `cfg` as httpd runs it ([`nonfatal::without`]), for the checks that read
/// what its lines do together (deprecated-access, access-rules, defeated-require); None when
/// nothing is skipped everywhere. It has the same files and positions.
pub(crate) fn as_run(cfg: &Config) -> Option<Config> {
    let skips = everywhere(cfg);
    (!skips.is_empty()).then(|| nonfatal::without(cfg, skips))
}

/// A warning on each unknown directive skipped ([`Why::Unknown`]); those the AllowOverride
/// keeps out are directive-context's.
pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    for s in everywhere(cfg).iter().filter(|s| s.why == Why::Unknown) {
        let text = &cfg.file(s.file).text;
        let start = usize::from(s.range.start());
        let len = text.get(start..).map_or(0, |t| t.find(|c: char| c.is_whitespace() || c == '>').unwrap_or(t.len()));
        let range = apache_syntax::TextRange::at(s.range.start(), (len as u32).into());
        out.push(Diagnostic::new(s.file, range, Severity::Warning, "htaccess-skipped", s.message()));
    }
}

/// Drops the findings inside lines httpd skips, but the notices that it skips them
/// (directive-context, [`check`]'s and the file-wide `htaccess-…` ones) and the errors in the
/// file's structure (section nesting).
pub(crate) fn retain_run(cfg: &Config, out: &mut Vec<Diagnostic>) {
    let skips = everywhere(cfg);
    if skips.is_empty() {
        return;
    }
    out.retain(|d| {
        let Some(s) = skips.iter().find(|s| s.file == d.file && s.range.contains_range(d.range)) else { return true };
        let fd = cfg.file(d.file);
        match d.code {
            "syntax" => structural(&d.message),
            "directive-context" => fd.line_of(d.range.start()) == fd.line_of(s.range.start()),
            code => code.starts_with("htaccess-"),
        }
    });
}

/// Whether a syntax error is one httpd meets reading the file's structure, before any line runs.
fn structural(message: &str) -> bool {
    message.starts_with("</") || message.starts_with("Expected </") || message.ends_with("was not closed.")
}

#[cfg(test)]
mod tests {
    use crate::ide::config::load_in_context;
    use crate::ide::diagnostics::tests::Fixture;
    use expect_test::expect;
    use std::path::Path;

    /// Every finding of `check` on /srv/www/.htaccess under `AllowOverride allow`.
    fn findings(allow: &str, htaccess: &str) -> String {
        let root = format!("LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule auth_basic_module m\nLoadModule authn_core_module m\nDocumentRoot /srv/www\n<Directory /srv/www>\n  AllowOverride {allow}\n  Require all granted\n</Directory>\n");
        findings_under(&root, htaccess)
    }

    /// Every finding of `check` on /srv/www/.htaccess read under the server configuration `root`.
    fn findings_under(root: &str, htaccess: &str) -> String {
        let fx = Fixture::parse(&format!("//- /etc/httpd/httpd.conf\n{root}//- /srv/www/.htaccess\n{htaccess}"));
        let root = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let cfg = load_in_context(Path::new("/srv/www/.htaccess"), &fx, std::sync::Arc::new(root));
        crate::ide::diagnostics::all(&cfg)
            .iter()
            .map(|d| {
                format!("{}: {:?}[{}]: {}\n", cfg.file(d.file).line_of(d.range.start()), d.severity, d.code, d.message)
            })
            .collect()
    }

    /// Round 13 H2: a skipped AuthUserFile or AuthGroupFile is not "ignored": httpd made the
    /// module's configuration of the file before refusing the line, and those modules merge
    /// nothing, so the inherited file no longer applies (httpd: 500 with AH01619, 401 with
    /// AH01664). A skipped AuthType (mod_authn_core merges) is ignored.
    #[test]
    fn a_skipped_line_of_a_module_without_a_merger_is_said_to_reset_it() {
        let root = "LoadModule authz_core_module m\nLoadModule auth_basic_module m\nLoadModule authn_core_module m\nLoadModule authn_file_module m\nLoadModule authz_groupfile_module m\nDocumentRoot /srv/www\n<Directory /srv/www>\n  AllowOverride Limit Nonfatal=Override\n  AuthType Basic\n  AuthName r\n  AuthUserFile /etc/pw\n  Require valid-user\n</Directory>\n";
        let found = findings_under(root, "AuthUserFile /etc/pw\nAuthGroupFile /etc/groups\nAuthType Basic\n");
        expect![[r#"
            1: Warning[directive-context]: AuthUserFile in .htaccess forbidden by AllowOverride; httpd logs a warning and skips it, yet not harmlessly: httpd makes authn_file_module's settings for this file before refusing the line, with nothing set, and that module merges nothing, so they replace the inherited ones: an AuthUserFile set above no longer applies here (Basic authentication with the file provider then answers 500, AH01619)
            2: Warning[directive-context]: AuthGroupFile in .htaccess forbidden by AllowOverride; httpd logs a warning and skips it, yet not harmlessly: httpd makes authz_groupfile_module's settings for this file before refusing the line, with nothing set, and that module merges nothing, so they replace the inherited ones: an AuthGroupFile set above no longer applies here (`Require group` then refuses every user: 401, AH01664)
            3: Warning[directive-context]: AuthType in .htaccess forbidden by AllowOverride; httpd logs a warning and ignores it
        "#]].assert_eq(&found);
    }

    /// Session 22: httpd makes a module's configuration of a vector (the file's, a `<Files>`
    /// section's) at the first line of the module there, run or skipped: only a skipped line
    /// that is the first of a module without a merger in its vector resets anything (held to
    /// httpd by explain_cli.rs::only_the_first_line_of_a_module_without_a_merger_resets_it).
    #[test]
    fn only_the_first_skipped_line_of_a_module_in_its_vector_is_said_to_reset_it() {
        let root = "LoadModule authz_core_module m\nLoadModule auth_basic_module m\nLoadModule authn_core_module m\nLoadModule authn_file_module m\nLoadModule authn_dbm_module m\nLoadModule access_compat_module m\nDocumentRoot /srv/www\n<Directory /srv/www>\n  AllowOverride Limit Nonfatal=Override\n  AllowOverrideList AuthDBMType\n  Require all granted\n</Directory>\n";
        let htaccess = "AuthDBMType default\nAuthDBMUserFile /etc/users.dbm\nAuthUserFile /etc/pw\nAuthUserFile /etc/pw\n<Files a.txt>\n  AuthUserFile /etc/pw\n</Files>\nSatisfy any\n";
        let found = findings_under(root, htaccess);
        expect![[r#"
            2: Warning[directive-context]: AuthDBMUserFile in .htaccess forbidden by AllowOverride; httpd logs a warning and ignores it
            3: Warning[directive-context]: AuthUserFile in .htaccess forbidden by AllowOverride; httpd logs a warning and skips it, yet not harmlessly: httpd makes authn_file_module's settings for this file before refusing the line, with nothing set, and that module merges nothing, so they replace the inherited ones: an AuthUserFile set above no longer applies here (Basic authentication with the file provider then answers 500, AH01619)
            4: Warning[directive-context]: AuthUserFile in .htaccess forbidden by AllowOverride; httpd logs a warning and ignores it
            6: Warning[directive-context]: AuthUserFile in .htaccess forbidden by AllowOverride; httpd logs a warning and skips it, yet not harmlessly: httpd makes authn_file_module's settings for the section around it before refusing the line, with nothing set, and that module merges nothing, so they replace the inherited ones: an AuthUserFile set above no longer applies here (Basic authentication with the file provider then answers 500, AH01619)
            8: Warning[directive-context]: Satisfy in .htaccess forbidden by AllowOverride; httpd logs a warning and skips it, yet not harmlessly: httpd makes access_compat_module's settings for this file before refusing the line, with nothing set, and that module merges nothing, so they replace the inherited ones: the Order, Allow, Deny and Satisfy rules set above no longer apply here
        "#]].assert_eq(&found);
    }

    /// Round 11c finding 10: an unknown directive under Nonfatal=Unknown is a warning, not an
    /// error claiming a 500; inside a `<RequireAll>` (walked with AuthConfig alone) it stays one.
    #[test]
    fn unknown_lines_under_nonfatal_unknown_are_skipped_not_errors() {
        expect![[r#"
            1: Warning[htaccess-skipped]: Optionz is not a directive httpd knows here: under AllowOverride Nonfatal=Unknown httpd logs a warning (AH02296) and skips it
            3: Warning[htaccess-skipped]: <Frob is not a directive httpd knows here: under AllowOverride Nonfatal=Unknown httpd logs a warning (AH02296) and skips it with everything inside it
            7: Error[unknown-directive]: Invalid command 'Frobnicate', perhaps misspelled or defined by a module not included in the server configuration
        "#]]
        .assert_eq(&findings(
            "All Nonfatal=All",
            "Optionz x\nRequire all granted\n<Frob a>\n  Require ip 10.0.0.256\n</Frob>\n<RequireAll>\n  Frobnicate on\n  Require all granted\n</RequireAll>\n",
        ));
    }

    /// Round 11c finding 11: under Nonfatal=Override what httpd skips is said once, its
    /// arguments and body unchecked; the file's structure still counts; what lines do together
    /// is read without the skipped ones (no Satisfy Any).
    #[test]
    fn lines_skipped_under_nonfatal_override_are_not_checked() {
        expect![[r#"
            1: Warning[directive-context]: AuthName in .htaccess forbidden by AllowOverride; httpd logs a warning and ignores it
            2: Warning[directive-context]: <Directory in .htaccess forbidden by AllowOverride; httpd logs a warning and ignores it
        "#]]
        .assert_eq(&findings(
            "FileInfo Nonfatal=Override",
            "AuthName \"a\" b\n<Directory /srv>\n  Require ip 10.0.0.256\n</Directory>\n",
        ));
        expect![[r#"
            1: Warning[deprecated-access]: `Order` is deprecated (mod_access_compat); this block allows only 127.0.0.1
            2: Warning[deprecated-access]: `Allow` is deprecated (mod_access_compat); this block allows only 127.0.0.1
            3: Warning[directive-context]: Satisfy in .htaccess forbidden by AllowOverride; httpd logs a warning and ignores it
        "#]]
        .assert_eq(&findings("Limit Nonfatal=Override", "Order allow,deny\nAllow from 127.0.0.1\nSatisfy any\n"));
        expect![[r#"
            1: Warning[directive-context]: <Files in .htaccess forbidden by AllowOverride; httpd logs a warning and ignores it
            1: Error[syntax]: <Files> was not closed.
        "#]]
        .assert_eq(&findings("Nonfatal=Override", "<Files x>\n  Frobnicate\n"));
    }
}
