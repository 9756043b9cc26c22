//! Access lines inside a conditional whose test depends on how httpd is started (here
//! `<IfModule mod_status.c>`; `<IfDefine>` and the `-D` flags work the same way): the proof can
//! only ask httpd as the tree starts it, so `migrate` leaves such a body and names the
//! conditional. Held against httpd: the rewrite the tool wrote before (the Require line taken
//! out of the conditional and joined to the old-style rules) answers every request as the
//! original while mod_status is loaded, and otherwise once it is not (round 16, C16 F4).

use apache_lsp_e2e::httpd::{require_apache2, Httpd, HttpdConfig, Request};
use apache_lsp_e2e::lsp::migrate_write;
use std::net::IpAddr;

/// The original body: old-style rules, and a Require line the conditional holds.
const ORIGINAL: &str = "<Directory @DOCROOT@/b>\n  Order deny,allow\n  Deny from 127.0.0.2\n  \
<IfModule mod_status.c>\n    Require ip 127.0.0.1 127.0.0.2\n  </IfModule>\n</Directory>\n";

/// What `migrate` wrote for it before: one block joining both, the conditional left empty.
const JOINED: &str = "<Directory @DOCROOT@/b>\n  <RequireAll>\n    <RequireAll>\n      Require all granted\n      \
<RequireNone>\n        Require ip 127.0.0.2\n      </RequireNone>\n    </RequireAll>\n    \
Require ip 127.0.0.1 127.0.0.2\n  </RequireAll>\n  <IfModule mod_status.c>\n  </IfModule>\n</Directory>\n";

const CLIENTS: [&str; 3] = ["127.0.0.1", "127.0.0.2", "127.0.0.3"];

fn config(body: &str, status: bool) -> HttpdConfig {
    let cfg = HttpdConfig::new(body).file("htdocs/b/x.txt", "x\n");
    if status {
        cfg.with_module("status")
    } else {
        cfg.without_module("status")
    }
}

/// httpd's status for GET /b/x.txt from each client.
fn answers(body: &str, status: bool) -> Vec<u16> {
    let httpd = Httpd::start(config(body, status)).unwrap_or_else(|e| panic!("httpd did not start:\n{e}"));
    CLIENTS
        .iter()
        .map(|c| httpd.send(&Request::get("/b/x.txt").source(c.parse::<IpAddr>().unwrap())).unwrap())
        .collect()
}

#[test]
fn a_body_whose_access_lines_a_module_test_holds_is_left_and_the_joined_rewrite_would_differ() {
    if !require_apache2() {
        return;
    }
    // The tool leaves the body as it is and names the conditional.
    let cfg = config(ORIGINAL, true);
    let main = cfg.write().unwrap();
    let before = std::fs::read_to_string(&main).unwrap();
    let out = migrate_write(&main);
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(std::fs::read_to_string(&main).unwrap(), before, "{said}");
    assert!(said.contains("sits inside <IfModule mod_status.c>"), "{said}");
    assert!(said.contains("depends on the modules httpd loads"), "{said}");

    // Why: with mod_status loaded the joined rewrite answers as the original (what the proof
    // asked), without it the Require line applies in the rewrite and not in the original.
    let (original, joined) = (answers(ORIGINAL, true), answers(JOINED, true));
    assert_eq!(original, [200, 403, 403]);
    assert_eq!(joined, original);
    let (original, joined) = (answers(ORIGINAL, false), answers(JOINED, false));
    assert_eq!(original, [200, 403, 200]);
    assert_eq!(joined, [200, 403, 403]);
}
