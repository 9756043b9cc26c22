//! Configuration fragments given to the CLI alone (black-box round 17, T17 F1, F2, F4): a
//! `conf.d` snippet that loads a module (Red Hat's `wsgi.conf`, `passenger.conf`) is still a
//! fragment. Before, a `LoadModule` line made it a main configuration: `migrate --write` "proved"
//! `Order allow,deny` + `Allow from all` equal to `Require all granted`, which dropped the
//! `Require valid-user` the including configuration's parent `<Directory>` gives it (real httpd:
//! 401 → 200), and `check` said httpd would not start without mod_access_compat.

use apache_lsp_e2e::explain::run;
use apache_lsp_e2e::httpd::{require_apache2, Httpd, HttpdConfig, Request};
use apache_lsp_e2e::lsp::server_binary;
use std::process::Command;

/// The snippet: loads a module, then a 2.2 block for a directory below the document root.
const SNIPPET: &str = "LoadModule headers_module /usr/lib/apache2/modules/mod_headers.so\n\
<Directory @DOCROOT@/app>\n    Order allow,deny\n    Allow from all\n</Directory>\n";

/// `apache-lsp ARGS`: exit code, standard output, standard error.
fn apache_lsp(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(server_binary()).args(args).output().expect("run apache-lsp");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// In a tree whose main configuration includes it: migrate rewrites nothing in it (httpd keeps
/// answering 401 to the anonymous request), explain refuses it naming the main configuration,
/// and check reads it as a fragment (no "will not start" for mod_access_compat).
#[test]
fn a_conf_d_snippet_loading_a_module_is_a_fragment_of_the_tree_above() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AuthType Basic\n    AuthName staff\n    AuthUserFile @ROOT@/htpasswd\n    \
Require valid-user\n</Directory>\nIncludeOptional @ROOT@/conf.d/*.conf\n";
    let config = HttpdConfig::new(body).file("htdocs/app/x.txt", "x\n").file("conf.d/app.conf", SNIPPET);
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let root = httpd.config().root().to_path_buf();
    let snippet = root.join("conf.d/app.conf");
    let ask = |who: Option<(&str, &str)>| {
        let r = Request::get("/app/x.txt");
        let r = match who {
            Some((u, p)) => r.user(u, p),
            None => r,
        };
        httpd.send(&r).unwrap_or_else(|e| panic!("{e}"))
    };
    let before = (ask(None), ask(Some(("alice", "apw"))));
    assert_eq!(before, (401, 200), "the inherited Require valid-user applies");
    let text = std::fs::read(&snippet).unwrap();

    let s = snippet.to_str().unwrap();
    let (code, _, err) = apache_lsp(&["migrate", "--write", s]);
    assert_eq!(code, Some(1), "left, not rewritten: {err}");
    assert!(err.contains("read without the main configuration that includes it"), "{err}");
    assert_eq!(std::fs::read(&snippet).unwrap(), text, "nothing written");
    assert_eq!((ask(None), ask(Some(("alice", "apw")))), before);

    let (code, out, err) = apache_lsp(&["explain", s, "/app/x.txt"]);
    assert_eq!(code, Some(2), "{out}{err}");
    let main = httpd.config().main_config_path();
    assert!(err.contains("fragment") && err.contains(main.to_str().unwrap()), "{err}");

    let (_, report) = run(&["check", s]);
    assert!(!report.contains("error[access-compat-not-loaded]"), "{report}");
}

/// Alone, with no configuration above: still a fragment (it lies in `conf.d`). migrate proves
/// nothing in it, and with --allow-changes says what the rewrite does not see.
#[test]
fn a_conf_d_snippet_alone_is_migrated_only_with_what_it_assumes_said() {
    let dir = tempfile::tempdir().unwrap();
    let snippet = dir.path().join("conf.d/app.conf");
    std::fs::create_dir_all(snippet.parent().unwrap()).unwrap();
    std::fs::write(&snippet, SNIPPET.replace("@DOCROOT@", "/srv/www")).unwrap();
    let s = snippet.to_str().unwrap();
    let (code, out, err) = apache_lsp(&["migrate", s]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.is_empty(), "no diff: {out}");
    assert!(err.contains("read without the main configuration that includes it"), "{err}");

    let (code, out, err) = apache_lsp(&["migrate", "--allow-changes", s]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("+    Require all granted"), "the guide's rewrite: {out}");
    assert!(err.contains("does not see the Require and AuthType lines"), "{err}");

    let (_, report) = run(&["check", s]);
    assert!(!report.contains("error[access-compat-not-loaded]"), "{report}");
}

/// A fragment named `httpd.conf` that an `apache2.conf` beside it includes (Debian's 2.2-era
/// `Include httpd.conf`; T17 F12) is that tree's fragment too: migrate rewrites nothing in it and
/// explain names apache2.conf. An access file is refused by explain (httpd reads it per
/// directory), and any other file that does not look like a main configuration is explained
/// with a note that it was taken for a whole server (T17 F13).
#[test]
fn explain_and_migrate_refuse_what_is_no_main_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let main = root.join("apache2.conf");
    std::fs::write(
        &main,
        "<Directory /srv/www>\n    AuthType Basic\n    AuthName staff\n    AuthUserFile /etc/htpasswd\n    \
Require valid-user\n</Directory>\nInclude httpd.conf\n",
    )
    .unwrap();
    let user = root.join("httpd.conf");
    let old = "<Directory /srv/www/app>\n    Order allow,deny\n    Allow from all\n</Directory>\n";
    std::fs::write(&user, old).unwrap();
    let u = user.to_str().unwrap();
    let (code, out, err) = apache_lsp(&["migrate", "--write", u]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(err.contains("read without the main configuration that includes it"), "{err}");
    assert_eq!(std::fs::read_to_string(&user).unwrap(), old, "nothing written");
    let (code, _, err) = apache_lsp(&["explain", u, "/app/x.txt"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("fragment") && err.contains(main.to_str().unwrap()), "{err}");

    let htaccess = root.join(".htaccess");
    std::fs::write(&htaccess, "Order deny,allow\nDeny from all\n").unwrap();
    let (code, out, err) = apache_lsp(&["explain", htaccess.to_str().unwrap(), "/x.txt"]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(out.is_empty() && err.contains("access file"), "{out}{err}");

    let loose = root.join("other/app.conf");
    std::fs::create_dir_all(loose.parent().unwrap()).unwrap();
    std::fs::write(&loose, old).unwrap();
    let (code, out, err) = apache_lsp(&["explain", loose.to_str().unwrap(), "/app/x.txt"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("Status:"), "{out}");
    assert!(err.contains("does not look like a main configuration"), "{err}");
}

/// Black-box round 17 T17 F15: a relative `Include` in a sites-available fragment checked alone
/// is read by httpd under the ServerRoot of the configuration including it (unknown for the
/// fragment alone), not under the fragment's folder: check said `include-missing` (an error,
/// exit 1) where httpd, given the tree's ServerRoot, starts.
#[test]
fn a_relative_include_of_a_fragment_checked_alone_is_no_error() {
    if !require_apache2() {
        return;
    }
    let fragment = "Include conf-available/params.conf\nIncludeOptional conf.d/*.conf\n\
<Directory @DOCROOT@>\n    Include snippets/common.conf\n</Directory>\n";
    let config = HttpdConfig::new("Include sites-available/a.conf\n")
        .file("sites-available/a.conf", fragment)
        .file("conf-available/params.conf", "ServerSignature Off\n")
        .file("snippets/common.conf", "Options -Indexes\n");
    let (ok, log) = apache_lsp_e2e::httpd::config_test(&config);
    assert!(ok, "apache2 -t refuses the tree: {log}");
    let path = config.root().join("sites-available/a.conf");
    let (code, out, err) = apache_lsp(&["check", path.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!out.contains("error[include-missing]"), "{out}");
    // Alone, what is not read is said, as information.
    assert!(out.contains("info[include-missing]") || out.contains("information[include-missing]"), "{out}");
    // A ServerRoot line in the file itself makes its relative paths known again.
    let rooted = format!("ServerRoot {}\n{fragment}", config.root().join("sites-available").display());
    std::fs::write(&path, rooted).unwrap();
    let (code, out, err) = apache_lsp(&["check", path.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("error[include-missing]"), "{out}");
}

/// Black-box round 17 T17 F7: an .htaccess file checked alone whose `AuthUserFile` is relative:
/// httpd reads it under the ServerRoot (here the harness's root, holding the file), unknown for
/// the file alone; check said it was missing under the .htaccess file's folder (a 500).
#[test]
fn a_relative_auth_user_file_of_an_htaccess_checked_alone_is_not_missing() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AllowOverride All\n    Require all granted\n</Directory>\n";
    let ht = "AuthUserFile htpasswd\nAuthType Basic\nAuthName x\nRequire valid-user\n";
    let config = HttpdConfig::new(body).file("htdocs/d/.htaccess", ht).file("htdocs/d/x.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let (user, pw) = apache_lsp_e2e::httpd::USERS[0];
    assert_eq!(httpd.send(&Request::get("/d/x.txt").user(user, pw)).unwrap(), 200);
    let path = httpd.config().root().join("htdocs/d/.htaccess");
    let (code, out, err) = apache_lsp(&["check", path.to_str().unwrap()]);
    assert!(!out.contains("missing-auth-file"), "{out}{err}");
    assert_eq!(code, Some(0), "{out}{err}");
}
