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

/// An .htaccess file written after the rewrite, where the AllowOverride in force lets it hold
/// access lines (black-box round 17, B F1 and C F5): mod_access_compat has no merger, so before
/// the rewrite a file's Order/Allow/Deny replaced the section's, and afterwards they apply beside
/// its Require lines; and the file's Require lines replace the section's under `AuthMerging Off`,
/// where before the section's Order/Allow/Deny still applied beside them. No rewrite keeps both:
/// migrate keeps the rewrite (proven for the files on disk) and says so in a note naming the
/// section and the directory. httpd is asked for the file's answers before and after.
struct Later {
    name: &'static str,
    /// The lines after `<Directory @DOCROOT@>`: AllowOverride, AllowOverrideList.
    overrides: &'static str,
    /// The section's old-style lines.
    rules: &'static str,
    /// The .htaccess file written in htdocs/q after migrating.
    htaccess: &'static str,
    client: &'static str,
    /// GET /q/x.txt: (original tree, migrated tree), both with the file written.
    expected: (u16, u16),
    /// migrate notes the gap.
    noted: bool,
}

const DENY_BUT_2: &str = "  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2\n";
const OPEN: &str = "  Order allow,deny\n  Allow from all\n";

fn later_cases() -> Vec<Later> {
    let case = |name, overrides, rules, htaccess, expected: (u16, u16), noted| Later {
        name,
        overrides,
        rules,
        htaccess,
        client: "127.0.0.1",
        expected,
        noted,
    };
    vec![
        // The two directions both testers found.
        case(
            "AuthConfig Limit, a 2.4 file",
            "  AllowOverride AuthConfig Limit\n",
            DENY_BUT_2,
            "Require all granted\n",
            (403, 200),
            true,
        ),
        case(
            "AuthConfig Limit, a 2.2 file",
            "  AllowOverride AuthConfig Limit\n",
            DENY_BUT_2,
            "Order allow,deny\nAllow from all\n",
            (200, 403),
            true,
        ),
        case(
            "Limit, a 2.2 file",
            "  AllowOverride Limit\n",
            DENY_BUT_2,
            "Order allow,deny\nAllow from all\n",
            (200, 403),
            true,
        ),
        case("All, a 2.4 file", "  AllowOverride All\n", DENY_BUT_2, "Require all granted\n", (403, 200), true),
        case(
            "AllowOverrideList Require, a 2.4 file",
            "  AllowOverride None\n  AllowOverrideList Require\n",
            DENY_BUT_2,
            "Require all granted\n",
            (403, 200),
            true,
        ),
        // Under AuthConfig the file's writer could open the directory before the rewrite too.
        case(
            "AuthConfig, Satisfy Any",
            "  AllowOverride AuthConfig\n",
            DENY_BUT_2,
            "Satisfy Any\nRequire all granted\n",
            (200, 200),
            true,
        ),
        // The common WordPress shape: an open section; the files applications write to close a
        // directory answer alike (still noted: AuthMerging Or would not).
        case(
            "All, open, a 2.2 file closing",
            "  AllowOverride All\n",
            OPEN,
            "Order deny,allow\nDeny from all\n",
            (403, 403),
            true,
        ),
        case("All, open, a 2.4 file closing", "  AllowOverride All\n", OPEN, "Require all denied\n", (403, 403), true),
        // httpd never reads the file: nothing to note.
        case("None", "  AllowOverride None\n", DENY_BUT_2, "Require all granted\n", (403, 403), false),
    ]
}

fn later_status(body: &str, htaccess: &str, client: &str, name: &str) -> u16 {
    let cfg = HttpdConfig::new(body).file("htdocs/q/x.txt", "x\n").file("htdocs/q/.htaccess", htaccess);
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{name}: httpd did not start:\n{e}"));
    httpd.send(&Request::get("/q/x.txt").source(client.parse::<IpAddr>().unwrap())).unwrap()
}

#[test]
fn an_htaccess_file_written_later_is_merged_otherwise_and_migrate_says_so() {
    if !require_apache2() {
        return;
    }
    for c in later_cases() {
        let body = format!("<Directory @DOCROOT@>\n{}{}</Directory>\n", c.overrides, c.rules);
        // The tree as migrate sees it: htdocs/q there, no .htaccess file yet.
        let cfg = HttpdConfig::new(body.as_str()).file("htdocs/q/x.txt", "x\n");
        let main = cfg.write().unwrap();
        let before = std::fs::read_to_string(&main).unwrap();
        let out = migrate_write(&main);
        let said = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(0), "{}: {said}", c.name);
        let after = std::fs::read_to_string(&main).unwrap();
        assert_ne!(after, before, "{}: not rewritten: {said}", c.name);
        let docroot = cfg.docroot().display().to_string();
        let note = format!("note: <Directory {docroot}> ({}:", main.display());
        let noted = said.lines().find(|l| l.starts_with(&note));
        assert_eq!(noted.is_some(), c.noted, "{}: {said}", c.name);
        if let Some(n) = noted {
            assert!(n.contains(&format!("not for one written later in {docroot} (and below)")), "{}: {n}", c.name);
        }
        // The migrated body, its paths made the harness's again.
        let root = cfg.root().display().to_string();
        let migrated = after.split("# END OF PREAMBLE\n").nth(1).unwrap().replace(&root, "@ROOT@");
        assert!(!migrated.contains("Order"), "{}: {migrated}", c.name);
        let got =
            (later_status(&body, c.htaccess, c.client, c.name), later_status(&migrated, c.htaccess, c.client, c.name));
        assert_eq!(got, c.expected, "{}: GET /q/x.txt from {} (original, migrated)\n{migrated}", c.name, c.client);
        // Without the file, the rewrite answers alike (what the proof covers).
        let today = |b: &str| {
            let cfg = HttpdConfig::new(b).file("htdocs/q/x.txt", "x\n");
            let httpd = Httpd::start(cfg).unwrap();
            httpd.send(&Request::get("/q/x.txt").source(c.client.parse::<IpAddr>().unwrap())).unwrap()
        };
        assert_eq!(today(&body), today(&migrated), "{}", c.name);
    }
}
