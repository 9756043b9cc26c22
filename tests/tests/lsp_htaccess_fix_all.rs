//! The editor's "fix all" (`source.fixAll`) and quick fixes on an .htaccess file, over stdio
//! with the real binary:
//! * an .htaccess file no root configuration names gets no fix-all edit at all (what it
//!   inherits from the server configuration is unknown), and its quick fixes say so and are
//!   never preferred;
//! * one below the main configuration the server's own workspace search found (no
//!   `rootConfig`) is analysed, fixed and migrated under it, also when it was opened before
//!   indexing finished; the fix-all edit keeps every answer of the real httpd;
//! * one beginning with a byte-order mark (httpd: 500 for every request) gets no rewrite, only
//!   the fix removing the mark, after which httpd evaluates it; quick fixes keep each file's own
//!   line endings and its missing final line break byte for byte.

use apache_lsp_e2e::httpd::{credentials, require_apache2, sources, Httpd, HttpdConfig, Request};
use apache_lsp_e2e::lsp::{file_uri, uri_path, Client};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

/// An .htaccess that, under a root whose `<Directory>` says `Require valid-user`, lets
/// 127.0.0.1 in without a password and asks everyone else for one (Satisfy Any).
const HTACCESS: &str = "Order deny,allow\nDeny from all\nAllow from 127.0.0.1\nSatisfy Any\n";

/// The code actions of `kind` for the whole of `text`.
fn actions(c: &mut Client, uri: &str, text: &str, kind: &str) -> Vec<Value> {
    let lines = text.matches('\n').count() + 1;
    let r = c.request_within(
        WAIT,
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri},
               "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}},
               "context": {"diagnostics": [], "only": [kind]}}),
    );
    r["result"].as_array().cloned().unwrap_or_else(|| panic!("no result: {r}"))
}

fn open_and_wait(c: &mut Client, path: &Path, text: &str) -> (String, Vec<Value>) {
    let uri = file_uri(path);
    c.open(&uri, text);
    let diags = c.diagnostics(&uri, Some(1), WAIT).expect("diagnostics");
    (uri, diags)
}

#[test]
fn an_htaccess_no_root_configuration_names_gets_no_fix_all() {
    let dir = tempfile::tempdir().unwrap();
    let ht = dir.path().join("htdocs/sub/.htaccess");
    std::fs::create_dir_all(ht.parent().unwrap()).unwrap();
    std::fs::write(&ht, HTACCESS).unwrap();
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let (uri, diags) = open_and_wait(&mut c, &ht, HTACCESS);
    assert!(diags.iter().any(|d| d["code"] == "deprecated-access"), "{diags:?}");
    let fix_all = actions(&mut c, &uri, HTACCESS, "source.fixAll");
    assert!(fix_all.is_empty(), "a fix-all edit on an .htaccess read alone: {fix_all:?}");
    let quick = actions(&mut c, &uri, HTACCESS, "quickfix");
    let rewrites: Vec<&Value> =
        quick.iter().filter(|a| a["title"].as_str().unwrap_or_default().starts_with("Rewrite")).collect();
    assert!(!rewrites.is_empty(), "{quick:?}");
    for a in rewrites {
        let title = a["title"].as_str().unwrap();
        assert_eq!(a["isPreferred"], false, "{title}");
        assert!(title.contains("not proven") && title.contains("inherited Require or AuthType"), "{title}");
    }
    // The workspace command shares the path: it applies nothing either.
    let id = c.send_request(
        "workspace/executeCommand",
        json!({"command": "apache-lsp.migrateFile", "arguments": [{"uri": uri}]}),
    );
    let edit = c.wait_for(WAIT, |m| m["method"] == "workspace/applyEdit").expect("applyEdit");
    let changes = edit["params"]["edit"]["changes"].as_object().cloned().unwrap_or_default();
    assert!(changes.values().all(|v| v.as_array().is_some_and(|e| e.is_empty())), "{edit}");
    c.send(&json!({"jsonrpc": "2.0", "id": edit["id"], "result": {"applied": true}}));
    let _ = c.response(id, WAIT).expect("the command's answer");
}

/// The main configuration's `<Directory>` for the document root: basic authentication for
/// everyone, and the overrides an .htaccess may use (`AllowOverride` given).
fn root_body(allow_override: &str) -> String {
    format!(
        "<Directory \"@DOCROOT@\">\n  AllowOverride {allow_override}\n  AuthType Basic\n  AuthName x\n  AuthUserFile \"@ROOT@/htpasswd\"\n  Require valid-user\n</Directory>\n"
    )
}

/// A client that asked for progress, with `folder` as its workspace folder (no rootConfig).
fn workspace_client(folder: &Path) -> Client {
    let mut c = Client::spawn();
    let r = c.initialize_with(json!({"window": {"workDoneProgress": true}}), &[folder], json!({}));
    assert!(r.get("result").is_some(), "{r}");
    c
}

/// Waits for the end of the workspace indexing and returns its message.
fn indexed(c: &mut Client) -> String {
    let end = c
        .wait_for(WAIT, |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
        .expect("indexing ends");
    end["params"]["value"]["message"].as_str().unwrap_or_default().to_string()
}

/// Applies LSP text edits (ASCII text: UTF-16 columns are bytes) to `text`.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |pos: &Value| -> usize {
        let (line, ch) = (pos["line"].as_u64().unwrap() as usize, pos["character"].as_u64().unwrap() as usize);
        text.split_inclusive('\n').take(line).map(str::len).sum::<usize>() + ch
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| (offset(&e["range"]["start"]), offset(&e["range"]["end"]), e["newText"].as_str().unwrap()))
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (a, b, t) in spans {
        out.replace_range(a..b, t);
    }
    out
}

#[test]
fn an_htaccess_opened_before_indexing_is_analysed_again_under_the_root_found() {
    // AllowOverride AuthConfig does not grant Options: httpd answers 500 under this root,
    // which only the root's analysis knows (alone, every override is assumed).
    let cfg = HttpdConfig::new(root_body("AuthConfig")).file("htdocs/sub/.htaccess", "Options -Indexes\n");
    cfg.write().unwrap();
    let ht = cfg.docroot().join("sub/.htaccess");
    let mut c = workspace_client(cfg.root());
    // Opened at once: the index is still being built.
    let uri = file_uri(&ht);
    c.open(&uri, "Options -Indexes\n");
    assert_eq!(indexed(&mut c), "1 main configuration(s), 1 file(s)");
    let under_root = |m: &Value| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"].as_array().is_some_and(|d| {
                d.iter().any(|d| {
                    d["code"] == "directive-context"
                        && d["message"].as_str().is_some_and(|m| m.contains("AllowOverride AuthConfig (httpd.conf:"))
                })
            })
    };
    let published = c.wait_for(WAIT, under_root);
    assert!(published.is_some(), "never re-analysed under httpd.conf: {:?}", c.backlog().collect::<Vec<_>>());
}

/// A root granting AuthConfig and Limit with [`HTACCESS`] in `htdocs/sub`, written, and a client
/// whose workspace indexing found it: (the root, the .htaccess path, the client).
fn indexed_root_with_htaccess() -> (HttpdConfig, std::path::PathBuf, Client) {
    let cfg = HttpdConfig::new(root_body("AuthConfig Limit")).file("htdocs/sub/.htaccess", HTACCESS);
    cfg.write().unwrap();
    let ht = cfg.docroot().join("sub/.htaccess");
    let mut c = workspace_client(cfg.root());
    assert_eq!(indexed(&mut c), "1 main configuration(s), 1 file(s)");
    (cfg, ht, c)
}

#[test]
fn the_fix_all_of_an_htaccess_under_the_root_found_keeps_every_answer_of_httpd() {
    if !require_apache2() {
        return;
    }
    let (cfg, ht, mut c) = indexed_root_with_htaccess();
    let (uri, _) = open_and_wait(&mut c, &ht, HTACCESS);
    // Hover shows the main configuration's <Directory> and its Require in the merge.
    let hover =
        c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 2}}));
    let md = hover["result"]["contents"]["value"].as_str().unwrap_or_default();
    assert!(md.contains("(httpd.conf:") && md.contains("Require valid-user"), "{md}");
    // The preferred quick fix is the proven one; fix-all gives the same text.
    let quick = actions(&mut c, &uri, HTACCESS, "quickfix");
    assert!(quick.iter().any(|a| a["isPreferred"] == true), "{quick:?}");
    let fix_all = actions(&mut c, &uri, HTACCESS, "source.fixAll");
    assert_eq!(fix_all.len(), 1, "{fix_all:?}");
    let changes = fix_all[0]["edit"]["changes"].as_object().expect("changes").clone();
    assert_eq!(changes.keys().map(|u| uri_path(u)).collect::<Vec<_>>(), vec![ht.clone()], "{changes:?}");
    let fixed = apply(HTACCESS, changes[&uri].as_array().unwrap());
    assert_eq!(fixed, "Require ip 127.0.0.1\nRequire valid-user\n");

    // httpd reads the .htaccess file per request: the same server answers before and after.
    let httpd = Httpd::start(cfg).expect("httpd starts");
    let before = matrix(&httpd);
    // The case the rewrite must keep: a password is still asked of everyone but 127.0.0.1.
    assert!(before.iter().any(|(_, ip, cred, s)| ip == "127.0.0.2" && cred == "None" && *s == 401), "{before:?}");
    assert!(before.iter().any(|(_, ip, cred, s)| ip == "127.0.0.1" && cred == "None" && *s == 200), "{before:?}");
    std::fs::write(&ht, &fixed).unwrap();
    let after = matrix(&httpd);
    let differ: Vec<_> = before.iter().zip(&after).filter(|(b, a)| b != a).collect();
    assert!(differ.is_empty(), "httpd answers otherwise after the fix-all: {differ:?}");
    assert_eq!(before.len(), SUB_URLS.len() * sources().len() * credentials().len());
}

/// URLs below the document root's `sub` directory, where the tests' .htaccess file is.
const SUB_URLS: [&str; 5] = ["/sub/", "/sub/index.html", "/sub/deeper/", "/sub/deeper/index.html", "/sub/missing.txt"];

/// httpd's answer to GET of each of [`SUB_URLS`] from each source address with each credential:
/// (url, client, credentials, status).
fn matrix(httpd: &Httpd) -> Vec<(String, String, String, u16)> {
    let mut out = Vec::new();
    for url in SUB_URLS {
        for ip in sources() {
            for cred in credentials() {
                let r = Request::get(url).source(ip).credentials(cred.clone());
                let status = httpd.send(&r).unwrap_or_else(|e| panic!("GET {url} from {ip}: {e}"));
                out.push((url.to_string(), ip.to_string(), format!("{cred:?}"), status));
            }
        }
    }
    out
}

/// The editor's text of an .htaccess file, not saved (here it differs from the disk's from the
/// start: lines added above, another address): its quick fixes and fix-all are proven and
/// written for that text, the one the user will save, not the disk's.
#[test]
fn the_fixes_of_an_unsaved_htaccess_are_made_for_the_editors_text() {
    if !require_apache2() {
        return;
    }
    let (cfg, ht, mut c) = indexed_root_with_htaccess();
    let buffer = "# kept\n# also kept\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy Any\n";
    let (uri, diags) = open_and_wait(&mut c, &ht, buffer);
    assert!(diags.iter().any(|d| d["code"] == "deprecated-access"), "{diags:?}");
    let expected = "# kept\n# also kept\nRequire ip 127.0.0.2\nRequire valid-user\n";
    let quick = actions(&mut c, &uri, buffer, "quickfix");
    let preferred: Vec<&Value> = quick.iter().filter(|a| a["isPreferred"] == true).collect();
    assert_eq!(preferred.len(), 1, "{quick:?}");
    let fix_all = actions(&mut c, &uri, buffer, "source.fixAll");
    assert_eq!(fix_all.len(), 1, "{fix_all:?}");
    for a in [preferred[0], &fix_all[0]] {
        let edits = a["edit"]["changes"][&uri].as_array().unwrap_or_else(|| panic!("{a}"));
        assert_eq!(apply(buffer, edits), expected, "{a}");
    }
    // Saved, the editor's text and its rewrite get the same answers from httpd (saved once the
    // server is up: starting writes the harness's files again).
    let httpd = Httpd::start(cfg).expect("httpd starts");
    std::fs::write(&ht, buffer).unwrap();
    let before = matrix(&httpd);
    assert!(before.iter().any(|(_, ip, cred, s)| ip == "127.0.0.2" && cred == "None" && *s == 200), "{before:?}");
    std::fs::write(&ht, expected).unwrap();
    let after = matrix(&httpd);
    let differ: Vec<_> = before.iter().zip(&after).filter(|(b, a)| b != a).collect();
    assert!(differ.is_empty(), "httpd answers otherwise after the fix: {differ:?}");
}

#[test]
fn an_htaccess_under_the_root_found_that_allows_only_limit_gets_no_fix_all() {
    // Require needs AuthConfig: under AllowOverride Limit every request would be a 500.
    let cfg = HttpdConfig::new(root_body("Limit")).file("htdocs/sub/.htaccess", HTACCESS);
    cfg.write().unwrap();
    let ht = cfg.docroot().join("sub/.htaccess");
    let mut c = workspace_client(cfg.root());
    assert_eq!(indexed(&mut c), "1 main configuration(s), 1 file(s)");
    let (uri, _) = open_and_wait(&mut c, &ht, HTACCESS);
    let fix_all = actions(&mut c, &uri, HTACCESS, "source.fixAll");
    assert!(fix_all.is_empty(), "{fix_all:?}");
    let quick = actions(&mut c, &uri, HTACCESS, "quickfix");
    let rewrite = quick
        .iter()
        .find(|a| a["title"].as_str().unwrap_or_default().starts_with("Rewrite as Require"))
        .unwrap_or_else(|| panic!("{quick:?}"));
    assert_eq!(rewrite["isPreferred"], false);
    let title = rewrite["title"].as_str().unwrap();
    assert!(title.contains("AllowOverride Limit (from <Directory") && title.contains("httpd.conf:"), "{title}");
    // The workspace command migrates it under the root too: nothing is applied.
    let id = c.send_request(
        "workspace/executeCommand",
        json!({"command": "apache-lsp.migrateFile", "arguments": [{"uri": uri}]}),
    );
    let edit = c.wait_for(WAIT, |m| m["method"] == "workspace/applyEdit").expect("applyEdit");
    let changes = edit["params"]["edit"]["changes"].as_object().cloned().unwrap_or_default();
    assert!(changes.values().all(|v| v.as_array().is_some_and(|e| e.is_empty())), "{edit}");
    c.send(&json!({"jsonrpc": "2.0", "id": edit["id"], "result": {"applied": true}}));
    let _ = c.response(id, WAIT).expect("the command's answer");
}

/// Applies LSP text edits to `text`, their columns counted in UTF-16 code units.
fn apply_utf16(text: &str, edits: &[Value]) -> String {
    let offset = |pos: &Value| -> usize {
        let (line, ch) = (pos["line"].as_u64().unwrap() as usize, pos["character"].as_u64().unwrap() as usize);
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= ch {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| (offset(&e["range"]["start"]), offset(&e["range"]["end"]), e["newText"].as_str().unwrap()))
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (a, b, t) in spans {
        out.replace_range(a..b, t);
    }
    out
}

#[test]
fn an_htaccess_beginning_with_a_byte_order_mark_gets_only_the_fix_removing_it() {
    if !require_apache2() {
        return;
    }
    // httpd reads `\xef\xbb\xbfOrder`, an invalid command: every request is a 500. No finding
    // describes the Deny as working, no rewrite is offered (nor fix-all), and the fix removing the
    // mark (not preferred: it changes httpd) leaves the rest byte for byte; httpd then evaluates it.
    let text = "\u{feff}Order deny,allow\r\nDeny from 127.0.0.2\r\n";
    let cfg = HttpdConfig::new(root_body("All").replace("Require valid-user", "Require all granted"))
        .file("htdocs/sub/.htaccess", text)
        .file("htdocs/sub/index.html", "sub\n");
    cfg.write().unwrap();
    let ht = cfg.docroot().join("sub/.htaccess");
    let mut c = workspace_client(cfg.root());
    assert_eq!(indexed(&mut c), "1 main configuration(s), 1 file(s)");
    let (uri, diags) = open_and_wait(&mut c, &ht, text);
    let unknown = diags.iter().find(|d| d["code"] == "unknown-directive").unwrap_or_else(|| panic!("{diags:?}"));
    assert!(unknown["message"].as_str().unwrap().contains("'\\xef\\xbb\\xbfOrder'"), "{unknown}");
    let deny = diags.iter().find(|d| d["code"] == "deprecated-access").unwrap_or_else(|| panic!("{diags:?}"));
    let said = deny["message"].as_str().unwrap();
    assert!(said.contains("byte-order mark") && said.contains("500") && !said.contains("allows"), "{said}");
    assert!(actions(&mut c, &uri, text, "source.fixAll").is_empty());
    let quick = actions(&mut c, &uri, text, "quickfix");
    assert!(quick.iter().all(|a| a["isPreferred"] != true), "{quick:?}");
    assert!(!quick.iter().any(|a| a["title"].as_str().unwrap().starts_with("Rewrite")), "{quick:?}");
    let remove = quick
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Remove the byte-order mark"))
        .unwrap_or_else(|| panic!("{quick:?}"));
    assert!(remove["title"].as_str().unwrap().contains("changes what httpd does"), "{remove}");
    let fixed = apply_utf16(text, remove["edit"]["changes"][&uri].as_array().unwrap());
    assert_eq!(fixed.as_bytes(), &text.as_bytes()[3..]);

    let httpd = Httpd::start(cfg).expect("httpd starts");
    let ask = |h: &Httpd| -> Vec<u16> {
        sources().into_iter().map(|ip| h.send(&Request::get("/sub/index.html").source(ip)).unwrap()).collect()
    };
    let before = ask(&httpd);
    assert!(before.iter().all(|s| *s == 500), "{before:?}");
    std::fs::write(&ht, &fixed).unwrap();
    let after = ask(&httpd);
    for (ip, s) in sources().into_iter().zip(&after) {
        assert_eq!(*s, if ip.to_string() == "127.0.0.2" { 403 } else { 200 }, "{ip}: {after:?}");
    }
}

#[test]
fn a_quick_fix_keeps_mixed_line_endings_and_a_missing_final_newline() {
    if !require_apache2() {
        return;
    }
    // LF among CRLF lines, and no final line break: the preferred fix writes its lines (more
    // than the three it replaces) with the first replaced line's ending (CRLF) and ends the file
    // where it ended, with no break.
    let text = "# keep\nOrder deny,allow\r\nDeny from 127.0.0.2\nAllow from 127.0.0.3";
    let cfg = HttpdConfig::new(root_body("All").replace("Require valid-user", "Require all granted"))
        .file("htdocs/sub/.htaccess", text)
        .file("htdocs/sub/index.html", "sub\n");
    cfg.write().unwrap();
    let ht = cfg.docroot().join("sub/.htaccess");
    let mut c = workspace_client(cfg.root());
    assert_eq!(indexed(&mut c), "1 main configuration(s), 1 file(s)");
    let (uri, _) = open_and_wait(&mut c, &ht, text);
    let quick = actions(&mut c, &uri, text, "quickfix");
    let preferred = quick.iter().find(|a| a["isPreferred"] == true).unwrap_or_else(|| panic!("{quick:?}"));
    let fixed = apply_utf16(text, preferred["edit"]["changes"][&uri].as_array().unwrap());
    assert_eq!(
        fixed,
        "# keep\nRequire ip 127.0.0.3\r\n<RequireAll>\r\n  Require all granted\r\n  <RequireNone>\r\n    Require ip 127.0.0.2\r\n  </RequireNone>\r\n</RequireAll>"
    );
    let httpd = Httpd::start(cfg).expect("httpd starts");
    let ask = |h: &Httpd| -> Vec<u16> {
        sources().into_iter().map(|ip| h.send(&Request::get("/sub/index.html").source(ip)).unwrap()).collect()
    };
    let before = ask(&httpd);
    assert!(before.contains(&403) && before.contains(&200), "{before:?}");
    std::fs::write(&ht, &fixed).unwrap();
    assert_eq!(ask(&httpd), before);
}

/// Black-box round 17 T17 F3: an .htaccess saved "with BOM" (UTF-8) or as UTF-16 is sent by
/// editors decoded, without the mark, so its text looks like a working file while httpd reads
/// the bytes and refuses the first line (500 for every request). An open document equal to the
/// disk's bytes decoded is analysed as those bytes, as `check` reads them: the 500 is said, no
/// rewrite is offered, and no fix edits its text (offsets in the bytes are not the editor's).
#[test]
fn an_htaccess_saved_with_a_byte_order_mark_the_editor_hides_is_a_500() {
    if !require_apache2() {
        return;
    }
    let text = "Order deny,allow\r\nDeny from all\r\nAllow from 127.0.0.2\r\n";
    let utf8: Vec<u8> = b"\xef\xbb\xbf".iter().copied().chain(text.bytes()).collect();
    let utf16: Vec<u8> = [0xff, 0xfe].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
    let cfg = HttpdConfig::new(root_body("All").replace("Require valid-user", "Require all granted"))
        .file("htdocs/u8/index.html", "u8\n")
        .file("htdocs/u16/index.html", "u16\n");
    cfg.write().unwrap();
    let (ht8, ht16) = (cfg.docroot().join("u8/.htaccess"), cfg.docroot().join("u16/.htaccess"));
    std::fs::write(&ht8, &utf8).unwrap();
    std::fs::write(&ht16, &utf16).unwrap();
    let mut c = workspace_client(cfg.root());
    assert!(indexed(&mut c).starts_with("1 main configuration(s)"));
    for ht in [&ht8, &ht16] {
        let (uri, diags) = open_and_wait(&mut c, ht, text);
        let unknown = diags.iter().find(|d| d["code"] == "unknown-directive").unwrap_or_else(|| panic!("{diags:?}"));
        assert_eq!(unknown["severity"], 1, "{unknown}");
        assert!(unknown["message"].as_str().unwrap().starts_with("Invalid command '\\x"), "{unknown}");
        assert!(
            !diags.iter().any(|d| d["message"].as_str().unwrap().contains("allows only 127.0.0.2")),
            "the rules are described as working: {diags:?}"
        );
        assert!(actions(&mut c, &uri, text, "source.fixAll").is_empty());
        let quick = actions(&mut c, &uri, text, "quickfix");
        assert!(quick.is_empty(), "a fix edits the editor's text at offsets of the disk's bytes: {quick:?}");
    }
    // The UTF-8 one: the hover on the Deny line says the 500.
    let hover = c.request_within(
        WAIT,
        "textDocument/hover",
        json!({"textDocument": {"uri": file_uri(&ht8)}, "position": {"line": 1, "character": 2}}),
    );
    let md = hover["result"]["contents"]["value"].as_str().unwrap_or_else(|| panic!("{hover}"));
    assert!(md.contains("500"), "{md}");
    assert!(!md.contains("| 200"), "{md}");

    let httpd = Httpd::start(cfg).expect("httpd starts");
    for dir in ["u8", "u16"] {
        for ip in sources() {
            let s = httpd.send(&Request::get(&format!("/{dir}/index.html")).source(ip)).unwrap();
            assert_eq!(s, 500, "{dir} {ip}");
        }
    }
}
