//! The .htaccess files below a section, in the editor, over stdio with the real binary and the
//! real httpd: the workspace index keeps the .htaccess files it finds below the directories a
//! root configuration serves (as `check` finds them), scans again when one is created or
//! deleted on disk, and reads the editor's text of one opened or edited in it. The precedence
//! check (defeated-require) and the hover on the section then say what httpd does: an
//! .htaccess below that re-opens the inherited old-style denial leaves the section's Require
//! deciding (200 / 403), and without it the Require has no effect (403 / 403).

use apache_lsp_e2e::httpd::{require_apache2, Httpd, HttpdConfig, Request};
use apache_lsp_e2e::lsp::{file_uri, position_of, Client};
use serde_json::{json, Value};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

/// The configuration of `hover_vs_httpd::an_htaccess_reopening_below_keeps_the_require_in_effect`:
/// `Order allow,deny` with no Allow refuses every request to the document root, unless an
/// .htaccess below re-opens it; `<Location />` asks `Require ip 127.0.0.1`.
const BODY: &str = "<Directory @DOCROOT@>\n  AllowOverride Limit\n  Order allow,deny\n</Directory>\n<Location />\n  Require ip 127.0.0.1\n</Location>\n";
const REOPENING: &str = "Order deny,allow\nAllow from all\n";
const STILL_DENYING: &str = "Order allow,deny\n";

/// Whether a publication of `uri`'s diagnostics holds a defeated-require finding (`Some`), for
/// a message that is one.
fn trap_in(m: &Value, uri: &str) -> Option<bool> {
    (m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri).then(|| {
        m["params"]["diagnostics"].as_array().is_some_and(|d| d.iter().any(|d| d["code"] == "defeated-require"))
    })
}

/// Waits for a publication of `uri`'s diagnostics saying `trap` (earlier ones may still be in
/// flight) and returns it.
fn published(c: &mut Client, uri: &str, trap: bool, after: &str) -> Value {
    c.wait_for(WAIT, |m| trap_in(m, uri) == Some(trap)).unwrap_or_else(|| {
        panic!("no publication with defeated-require {trap} after {after}: {:#?}", c.backlog().collect::<Vec<_>>())
    })
}

/// The hover on `<Location />`.
fn hover(c: &mut Client, uri: &str, text: &str) -> String {
    hover_at(c, uri, text, "<Location />")
}

/// The hover at the third character of `at` in `text`.
fn hover_at(c: &mut Client, uri: &str, text: &str, at: &str) -> String {
    let r = c.request_within(
        WAIT,
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position_of(text, at, 2)}),
    );
    r["result"]["contents"]["value"].as_str().unwrap_or_else(|| panic!("no hover: {r}")).to_string()
}

/// The anonymous statuses of a hover's first table: the row of 127.0.0.1, and that of any
/// other client (127.0.0.2 is one).
fn table_cells(md: &str) -> (String, String) {
    let row = |label: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {label}")))
            .map(|l| l.split('|').nth(2).unwrap_or("").trim().to_string())
            .unwrap_or_else(|| panic!("no row for {label}: {md}"))
    };
    (row("local (127.0.0.1)"), row("any other"))
}

#[test]
fn the_editor_sees_the_htaccess_files_below_a_section_as_httpd_reads_them() {
    if !require_apache2() {
        return;
    }
    let cfg = HttpdConfig::new(BODY).file("htdocs/sub/.htaccess", REOPENING);
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start: {e}"));
    // httpd reads the .htaccess file per request: what it answers now, from each client.
    let answers = || {
        let get = |from: &str| httpd.send(&Request::get("/sub/").source(from.parse().unwrap())).unwrap();
        (get("127.0.0.1"), get("127.0.0.2"))
    };
    let conf = httpd.config().main_config_path();
    let ht = httpd.config().docroot().join("sub/.htaccess");
    let (conf_uri, ht_uri) = (file_uri(&conf), file_uri(&ht));
    let text = std::fs::read_to_string(&conf).unwrap();

    // Re-opened below: the Require decides there.
    assert_eq!(answers(), (200, 403));
    assert!(httpd.error_log().contains("AH01630"), "{}", httpd.error_log());
    let mut c = Client::spawn();
    let r = c.initialize_with(json!({"window": {"workDoneProgress": true}}), &[httpd.config().root()], json!({}));
    assert!(r.get("result").is_some(), "{r}");
    c.wait_for(WAIT, |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end").expect("indexed");
    c.open(&conf_uri, &text);
    let diags = c.diagnostics(&conf_uri, Some(1), WAIT).expect("diagnostics");
    assert!(!diags.iter().any(|d| d["code"] == "defeated-require"), "{diags:#?}");
    let md = hover(&mut c, &conf_uri, &text);
    assert!(!md.contains("has no effect"), "{md}");

    // Deleted on disk: every request is refused before the Require, and the editor says so.
    std::fs::remove_file(&ht).unwrap();
    assert_eq!(answers(), (403, 403));
    assert!(httpd.error_log().contains("AH01797"), "{}", httpd.error_log());
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": ht_uri, "type": 3}]}));
    published(&mut c, &conf_uri, true, "the .htaccess was deleted");
    let md = hover(&mut c, &conf_uri, &text);
    assert!(md.contains("`Require ip 127.0.0.1` has no effect here"), "{md}");

    // Written again in the editor (not saved yet): its text is what the check reads.
    c.open(&ht_uri, REOPENING);
    published(&mut c, &conf_uri, false, "the .htaccess was opened in the editor");
    // The hover in it reads the editor's text too: the table is what httpd answers once saved.
    let md = hover_at(&mut c, &ht_uri, REOPENING, "Allow from all");
    assert_eq!(table_cells(&md), ("200".into(), "403".into()), "{md}");
    // Saved: httpd agrees.
    std::fs::write(&ht, REOPENING).unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": ht_uri, "type": 1}]}));
    assert_eq!(answers(), (200, 403));
    published(&mut c, &conf_uri, false, "the .htaccess was created");

    // Edited in the editor to an Order that allows no one: the Require has no effect again.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": ht_uri, "version": 2}, "contentChanges": [{"text": STILL_DENYING}]}),
    );
    published(&mut c, &conf_uri, true, "the .htaccess was edited");
    let md = hover_at(&mut c, &ht_uri, STILL_DENYING, "Order allow,deny");
    assert_eq!(table_cells(&md), ("403".into(), "403".into()), "{md}");
    std::fs::write(&ht, STILL_DENYING).unwrap();
    assert_eq!(answers(), (403, 403));
    let md = hover(&mut c, &conf_uri, &text);
    assert!(md.contains("`Require ip 127.0.0.1` has no effect here"), "{md}");
}

/// Whether `m` publishes `uri`'s diagnostics, and if so whether one has code `code`.
fn has_code(m: &Value, uri: &str, code: &str) -> Option<bool> {
    (m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .then(|| m["params"]["diagnostics"].as_array().is_some_and(|d| d.iter().any(|d| d["code"] == code)))
}

/// Editing the main configuration re-publishes the diagnostics of the other open documents of
/// its tree: the AllowOverride that lets an open .htaccess file's `Require` in is narrowed in
/// the editor (not saved), and the .htaccess gets its error at once, then loses it when the edit
/// is undone (black-box round 17 L1: they stayed as first published until a file changed on disk).
#[test]
fn an_edit_of_the_main_configuration_republishes_the_open_files_it_concerns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let conf = root.join("httpd.conf");
    let open_to = |overrides: &str| {
        format!(
            "# Überblick\nDocumentRoot {d}/htdocs\n<Directory {d}/htdocs>\n  AllowOverride {overrides}\n  Require all granted\n</Directory>\n",
            d = root.display()
        )
    };
    let text = open_to("All");
    std::fs::write(&conf, &text).unwrap();
    let ht = root.join("htdocs/s/.htaccess");
    std::fs::create_dir_all(ht.parent().unwrap()).unwrap();
    let require = "Require ip 127.0.0.2\n";
    std::fs::write(&ht, require).unwrap();
    let (conf_uri, ht_uri) = (file_uri(&conf), file_uri(&ht));

    let mut c = Client::spawn();
    let r = c.initialize_with(json!({"window": {"workDoneProgress": true}}), &[root], json!({}));
    assert!(r.get("result").is_some(), "{r}");
    c.wait_for(WAIT, |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end").expect("indexed");
    c.open(&conf_uri, &text);
    c.open(&ht_uri, require);
    let diags = c.diagnostics(&ht_uri, Some(1), WAIT).expect("diagnostics");
    assert!(!diags.iter().any(|d| d["code"] == "directive-context"), "{diags:#?}");

    for (version, overrides, refused) in [(2, "Limit", true), (3, "All", false)] {
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": conf_uri, "version": version}, "contentChanges": [{"text": open_to(overrides)}]}),
        );
        c.wait_for(WAIT, |m| has_code(m, &ht_uri, "directive-context") == Some(refused)).unwrap_or_else(|| {
            panic!(
                "no publication of the .htaccess after AllowOverride {overrides}: {:#?}",
                c.backlog().collect::<Vec<_>>()
            )
        });
    }
}
