//! `Require` lines inside `<IfModule mod_access_compat.c>` (or `access_compat_module`) apply
//! only while the module is loaded: held against httpd with and without it, and check's
//! `require-in-compat-guard` warning held to where httpd's answers differ.

use apache_lsp_e2e::httpd::{require_apache2, Httpd, HttpdConfig, Request};

const BODY: &str = "<Directory @DOCROOT@>\n  Require all granted\n</Directory>\n\
<Directory @DOCROOT@/guarded>\n  <IfModule mod_access_compat.c>\n    Require ip 10.0.0.0/8\n  </IfModule>\n</Directory>\n\
<Directory @DOCROOT@/by_identifier>\n  <IfModule access_compat_module>\n    <RequireAll>\n      Require all denied\n    </RequireAll>\n  </IfModule>\n</Directory>\n\
<Directory @DOCROOT@/negated>\n  <IfModule !mod_access_compat.c>\n    Require all denied\n  </IfModule>\n</Directory>\n\
<Directory @DOCROOT@/plain>\n  Require ip 10.0.0.0/8\n</Directory>\n";

/// The lines check warns about (1-based), the guarded Require lines of the configuration
/// (those in the first two directories), and the statuses httpd answers for each directory.
fn run(compat: bool) -> (Vec<u32>, Vec<u32>, Vec<(&'static str, u16)>) {
    let mut cfg = HttpdConfig::new(BODY);
    for dir in ["guarded", "by_identifier", "negated", "plain"] {
        cfg = cfg.file(format!("htdocs/{dir}/a.txt"), "a\n");
    }
    if !compat {
        cfg = cfg.without_module("access_compat");
    }
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start:\n{e}"));
    let statuses = ["guarded", "by_identifier", "negated", "plain"]
        .into_iter()
        .map(|dir| (dir, httpd.send(&Request::get(&format!("/{dir}/a.txt"))).unwrap()))
        .collect();
    let reported = apache_lsp::cli::check_paths(&[httpd.config().main_config_path()]).unwrap();
    let lines = reported.iter().filter(|r| r.code == "require-in-compat-guard").map(|r| r.line).collect();
    let text = httpd.config().main_config_text();
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1;
    (lines, vec![line_of("Require ip 10.0.0.0/8"), line_of("Require all denied")], statuses)
}

#[test]
fn require_under_a_compat_guard_is_dropped_with_the_module_and_check_says_so() {
    if !require_apache2() {
        return;
    }
    let (warned, guarded, with) = run(true);
    // Loaded: the guarded lines apply (403 from the loopback), the negated guard's do not.
    assert_eq!(with, [("guarded", 403), ("by_identifier", 403), ("negated", 200), ("plain", 403)]);
    let (unwarned, _, without) = run(false);
    // Unloaded: httpd skips the guarded lines, the parent's Require all granted decides.
    assert_eq!(without, [("guarded", 200), ("by_identifier", 200), ("negated", 403), ("plain", 403)]);
    // The warning is on exactly the lines whose effect the unloading drops.
    assert_eq!(warned, guarded);
    assert!(unwarned.is_empty(), "{unwarned:?}");
}
