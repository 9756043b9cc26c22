//! Migration against the real server: httpd answers the same request matrix
//! before and after `apache-lsp migrate` rewrites a configuration, and
//! `apache2 -t` accepts the result.

use apache_lsp_e2e::httpd::{
    self, config_test, credentials, sources, Httpd, HttpdConfig, Request, DEFAULT_MODULES as MODULES,
};

fn matrix(h: &Httpd, urls: &[&str]) -> Vec<(String, u16)> {
    let mut out = Vec::new();
    for url in urls {
        for src in sources() {
            for cred in credentials() {
                for method in ["GET", "POST"] {
                    let r = Request::new(method, url).source(src).credentials(cred.clone());
                    let st = h.send(&r).expect("request");
                    out.push((format!("{method} {url} from {src} {:?}", cred.as_ref().map(|c| &c.0)), st));
                }
            }
        }
    }
    out
}

/// Migrates `body`, then compares httpd's answers before and after. Returns the new body.
fn check(body: &str, urls: &[&str], expect_rewrite: bool) -> String {
    let before_cfg = HttpdConfig::new(body).modules(MODULES);
    let main = before_cfg.write().expect("write config");
    let root = before_cfg.root().display().to_string();
    let out = apache_lsp::migrate_cli::migrate(&main, true, false);
    let new_full =
        out.changed.get(&main).map(|(_, n)| n.clone()).unwrap_or_else(|| std::fs::read_to_string(&main).unwrap());
    let new_body = new_full.split("# END OF PREAMBLE\n").nth(1).expect("preamble marker").replace(&root, "@ROOT@");
    assert_eq!(expect_rewrite, !out.changed.is_empty(), "left: {:?}\nnew body:\n{new_body}", out.left);
    // Lines outside the rewritten blocks are byte-identical.
    if let Some((old, new)) = out.changed.get(&main) {
        let diff = similar_lines(old, new);
        assert!(diff.iter().all(|l| is_access_line(l)), "non-access lines changed: {diff:?}");
    }
    let after_cfg = HttpdConfig::new(new_body.clone()).modules(MODULES);
    let (ok, msg) = config_test(&after_cfg);
    assert!(ok, "apache2 -t rejects the rewrite:\n{msg}\n{new_body}");
    let before = Httpd::start(before_cfg).expect("start before");
    let a = matrix(&before, urls);
    drop(before);
    let after = Httpd::start(after_cfg).expect("start after");
    let b = matrix(&after, urls);
    let diffs: Vec<String> =
        a.iter().zip(&b).filter(|(x, y)| x.1 != y.1).map(|(x, y)| format!("{}: {} → {}", x.0, x.1, y.1)).collect();
    assert!(
        diffs.is_empty(),
        "httpd answers differently after migration:\n{}\n--- new body:\n{new_body}",
        diffs.join("\n")
    );
    new_body
}

fn similar_lines(old: &str, new: &str) -> Vec<String> {
    let old: std::collections::BTreeSet<&str> = old.lines().collect();
    let new: std::collections::BTreeSet<&str> = new.lines().collect();
    old.symmetric_difference(&new).map(|s| s.to_string()).collect()
}

fn is_access_line(l: &str) -> bool {
    let t = l.trim_start().to_ascii_lowercase();
    ["order", "allow", "deny", "satisfy", "require", "<require", "</require", "authmerging"]
        .iter()
        .any(|p| t.starts_with(p))
}

#[test]
fn guide_auth_and_address_example_keeps_denying_everyone() {
    if !httpd::require_apache2() {
        return;
    }
    let body = check(
        "<Directory @DOCROOT@>\n  AuthType Basic\n  AuthName x\n  AuthUserFile @ROOT@/htpasswd\n  Require valid-user\n  Order allow,deny\n  Deny from all\n  Allow from 127.0.0.1\n  Satisfy All\n</Directory>\n",
        &["/", "/sub/"],
        true,
    );
    assert!(body.contains("Require all denied"), "{body}");
}

#[test]
fn deny_allow_with_addresses_becomes_require_ip() {
    if !httpd::require_apache2() {
        return;
    }
    let body = check(
        "<Directory @DOCROOT@>\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2 ::1\n</Directory>\n",
        &["/", "/a.txt"],
        true,
    );
    // One Require line per provider: `Require ip 127.0.0.2 ::1`.
    assert!(body.contains("Require ip 127.0.0.2 ::1"), "{body}");
}

#[test]
fn allow_deny_with_exceptions_and_satisfy_any() {
    if !httpd::require_apache2() {
        return;
    }
    check(
        "<Directory @DOCROOT@>\n  AuthType Basic\n  AuthName x\n  AuthUserFile @ROOT@/htpasswd\n  Require user alice\n  Order allow,deny\n  Allow from 127.0.0.0/8\n  Deny from 127.0.0.2\n  Satisfy Any\n</Directory>\n",
        &["/", "/sub/index.html"],
        true,
    );
}

#[test]
fn rewrite_that_would_open_a_child_carries_the_restriction() {
    if !httpd::require_apache2() {
        return;
    }
    // <Directory /> denies; the Location's Require local never takes effect today.
    // Rewriting <Directory /> alone would let local clients into /server-status,
    // so migrate carries the inherited denial into the children (and httpd's
    // answers stay the same: `check` compares them before and after).
    let body = check(
        "<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n<Directory @DOCROOT@>\n  Require all granted\n</Directory>\n<Location /server-status>\n  SetHandler server-status\n  Require local\n</Location>\n",
        &["/", "/server-status"],
        true,
    );
    assert!(body.contains("<RequireAll>"), "{body}");
}
