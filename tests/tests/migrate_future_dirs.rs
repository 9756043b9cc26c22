//! A wildcard `<Directory>` below a `<Location>` whose path is no directory yet (a site not
//! deployed, a user without a home directory): httpd's walk never reaches the wildcard there
//! today, and merges the two once the directory is made. `migrate` leaves such a block; held
//! against httpd: the rewrite it would otherwise make (`Deny from all` → `Require all denied`,
//! which the Location's `Require` then replaces) answers alike until the directory is made, and
//! otherwise after (black-box round 16, C F9, F10). And a `Require expr` naming a client address
//! is asked from that address: carrying a `Require all denied` beside it changed an answer at once.

use apache_lsp_e2e::httpd::{require_apache2, Httpd, HttpdConfig, Request};
use apache_lsp_e2e::lsp::migrate_write;
use std::net::IpAddr;

struct Case {
    name: &'static str,
    /// The configuration, with the block migrate must leave.
    body: String,
    /// The rewrite that is not safe: the body with these replacements.
    rewrite: &'static [(&'static str, &'static str)],
    modules: &'static [&'static str],
    /// Files there from the start, and those made after migrating (relative to the root).
    files: &'static [&'static str],
    made: &'static [&'static str],
    /// (URL, client): where httpd's answers part.
    request: (&'static str, &'static str),
}

/// A Location not deployed, and a pattern section (opener, closer) reaching below it.
fn below_a_location(name: &'static str, open: &str, close: &str) -> Case {
    Case {
        name,
        body: format!("<Location /newd>\n  Require ip 127.0.0.2\n</Location>\n{open}\n  Deny from all\n{close}\n"),
        rewrite: &[("  Deny from all\n", "  Require all denied\n")],
        modules: &[],
        files: &["htdocs/i.html"],
        made: &["htdocs/newd/sub/x.txt"],
        request: ("/newd/sub/x.txt", "127.0.0.2"),
    }
}

fn cases() -> Vec<Case> {
    vec![
        below_a_location("a wildcard below a Location not deployed", "<Directory @DOCROOT@/*/sub>", "</Directory>"),
        below_a_location(
            "a regex Directory below a Location not deployed",
            "<DirectoryMatch \"^@DOCROOT@/[^/]+/sub\">",
            "</DirectoryMatch>",
        ),
        Case {
            name: "a user's directory not made yet",
            body: "UserDir @ROOT@/home/\n<Location /~alice>\n  Require ip 127.0.0.2\n</Location>\n<Directory @ROOT@/home/*/pub>\n  Deny from all\n</Directory>\n".into(),
            rewrite: &[("  Deny from all\n", "  Require all denied\n")],
            modules: &["userdir"],
            files: &["htdocs/i.html", "home/.keep"],
            made: &["home/alice/pub/x.txt"],
            request: ("/~alice/pub/x.txt", "127.0.0.2"),
        },
        Case {
            name: "a Require expr naming a client address",
            body: "UserDir @ROOT@/home/\n<Location /~alice>\n  Require expr \"%{REMOTE_ADDR} == '127.0.0.2'\"\n</Location>\n<Directory @ROOT@/home/*/pub>\n  Deny from all\n</Directory>\n".into(),
            rewrite: &[
                (
                    "  Require expr \"%{REMOTE_ADDR} == '127.0.0.2'\"\n",
                    "  <RequireAll>\n    Require all denied\n    Require expr \"%{REMOTE_ADDR} == '127.0.0.2'\"\n  </RequireAll>\n",
                ),
                ("  Deny from all\n", "  Require all denied\n"),
            ],
            modules: &["userdir"],
            files: &["htdocs/i.html", "home/alice/pub/y.txt"],
            made: &[],
            request: ("/~alice/x.txt", "127.0.0.2"),
        },
    ]
}

fn config(c: &Case, body: &str, made: bool) -> HttpdConfig {
    let mut cfg = HttpdConfig::new(body);
    for m in c.modules {
        cfg = cfg.with_module(m);
    }
    let extra = if made { c.made } else { &[] };
    for f in c.files.iter().chain(extra) {
        cfg = cfg.file(f, "x\n");
    }
    cfg
}

fn status(c: &Case, body: &str, made: bool) -> u16 {
    let httpd = Httpd::start(config(c, body, made)).unwrap_or_else(|e| panic!("{}: httpd did not start:\n{e}", c.name));
    let (url, client) = c.request;
    httpd.send(&Request::get(url).source(client.parse::<IpAddr>().unwrap())).unwrap()
}

#[test]
fn blocks_a_directory_made_later_would_meet_a_location_in_are_left() {
    if !require_apache2() {
        return;
    }
    for c in &cases() {
        let mut unsafe_body = c.body.to_string();
        for (from, to) in c.rewrite {
            assert!(unsafe_body.contains(from), "{}: {from:?}", c.name);
            unsafe_body = unsafe_body.replacen(from, to, 1);
        }
        // migrate leaves the block.
        let cfg = config(c, &c.body, false);
        let main = cfg.write().unwrap();
        let before = std::fs::read_to_string(&main).unwrap();
        let out = migrate_write(&main);
        let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {said}", c.name);
        assert_eq!(std::fs::read_to_string(&main).unwrap(), before, "{}: {said}", c.name);
        // httpd: the rewrite answers otherwise, today or once the directory is made.
        let now = (status(c, &c.body, false), status(c, &unsafe_body, false));
        if c.made.is_empty() {
            assert_ne!(now.0, now.1, "{}: {now:?}", c.name);
            continue;
        }
        assert_eq!(now.0, now.1, "{}: the rewrite differs before the directory is made", c.name);
        let later = (status(c, &c.body, true), status(c, &unsafe_body, true));
        assert_eq!(later, (403, 200), "{}: once made: original, rewrite", c.name);
    }
}
