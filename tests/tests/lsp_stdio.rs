//! The real `apache-lsp` binary, driven over stdio as an editor would.

use apache_lsp_e2e::lsp::Client;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const URI: &str = "file:///tmp/apache-lsp-e2e/httpd.conf";

fn ranges_and_messages(diags: &[Value]) -> Vec<(Value, String)> {
    let mut v: Vec<_> =
        diags.iter().map(|d| (d["range"].clone(), d["message"].as_str().unwrap_or("").to_string())).collect();
    v.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.to_string().cmp(&b.0.to_string())));
    v
}

#[test]
fn initialize_negotiates_position_encoding() {
    let mut c = Client::spawn();
    let r = c.initialize(json!({}));
    assert_eq!(r["result"]["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(r["result"]["capabilities"]["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(r["result"]["serverInfo"]["name"], "apache-lsp");
    assert!(c.shutdown().is_some_and(|s| s.success()));

    let mut c = Client::spawn();
    let r = c.initialize(json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}));
    assert_eq!(r["result"]["capabilities"]["positionEncoding"], "utf-8");
}

#[test]
fn diagnostics_arrive_within_a_second_of_opening() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let t = Instant::now();
    c.open(URI, "<Directory /srv>\n  Require all granted\n");
    let diags = c.diagnostics(URI, Some(1), Duration::from_secs(1)).expect("diagnostics within 1 s");
    assert!(t.elapsed() < Duration::from_secs(1));
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["message"], "<Directory> was not closed.");
    assert_eq!(diags[0]["code"], "syntax");
    assert_eq!(diags[0]["range"]["start"]["line"], 0);
}

/// Byte offset of an LSP (line, UTF-16 column) position in `text`.
fn offset_utf16(text: &str, line: usize, col: usize) -> usize {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i == line {
            let mut units = 0;
            for (b, ch) in l.char_indices() {
                if units >= col || ch == '\n' {
                    return off + b;
                }
                units += ch.len_utf16();
            }
            return off + l.trim_end_matches('\n').len();
        }
        off += l.len();
    }
    text.len()
}

fn position_utf16(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, before[start..].encode_utf16().count())
}

#[test]
fn burst_of_incremental_edits_ends_like_a_fresh_open() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let mut text = String::from(
        "# Zugriff für Ärzte 😀\n<Directory /srv/é>\n  Require all granted\n</Directory>\n<Location /x>\n</Location>\n",
    );
    c.open(URI, &text);
    let _ = c.diagnostics(URI, Some(1), Duration::from_secs(5));
    // A deterministic pseudo-random sequence of insertions and deletions.
    // (No lone carriage returns: LSP counts them as line breaks, httpd does not.)
    let pieces = ["<Files a>\n", "</Files>\n", "é", "😀", "x", "\\\n", "</Directory>\n", "<If \"true\">\n", " ", "\t"];
    let mut seed: u64 = 0x2545F4914F6CDD1D;
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut version = 1;
    for _ in 0..300 {
        version += 1;
        let chars: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let a = chars[rnd(chars.len())];
        let (line, col) = position_utf16(&text, a);
        let (end, insert) = if rnd(3) == 0 {
            let b = chars[(chars.iter().position(|&x| x == a).unwrap() + 1 + rnd(4)).min(chars.len() - 1)];
            (b, "")
        } else {
            (a, pieces[rnd(pieces.len())])
        };
        let (eline, ecol) = position_utf16(&text, end);
        assert_eq!(offset_utf16(&text, line, col), a);
        text.replace_range(a..end, insert);
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version},
                   "contentChanges": [{"range": {"start": {"line": line, "character": col}, "end": {"line": eline, "character": ecol}}, "text": insert}]}),
        );
    }
    let last = c.diagnostics(URI, Some(version), Duration::from_secs(10)).expect("diagnostics for the last version");
    let fresh_uri = "file:///tmp/apache-lsp-e2e/fresh/httpd.conf";
    c.open(fresh_uri, &text);
    let fresh = c.diagnostics(fresh_uri, Some(1), Duration::from_secs(5)).expect("fresh diagnostics");
    assert_eq!(ranges_and_messages(&last), ranges_and_messages(&fresh));
    // And the server's text is the client's: the outline of both documents agrees.
    let a = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}));
    let b = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": fresh_uri}}));
    assert_eq!(a["result"], b["result"]);
}

#[test]
fn document_symbols_and_folding_ranges() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    c.open(URI, "<VirtualHost *:80>\n  ServerName example.com\n  <Directory /var/www>\n    Require all granted\n  </Directory>\n</VirtualHost>\n");
    let r = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}));
    let top = &r["result"][0];
    assert_eq!(top["name"], "VirtualHost *:80 (example.com)");
    assert_eq!(top["children"][0]["name"], "Directory /var/www");
    assert_eq!(top["children"][0]["range"]["start"]["line"], 2);
    let f = c.request("textDocument/foldingRange", json!({"textDocument": {"uri": URI}}));
    let folds: Vec<(i64, i64)> = f["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["startLine"].as_i64().unwrap(), f["endLine"].as_i64().unwrap()))
        .collect();
    assert_eq!(folds, vec![(0, 4), (2, 3)]);
}

#[test]
fn hostile_messages_do_not_kill_the_server() {
    let mut c = Client::spawn();
    // A request before initialize is refused, not crashed on.
    let r = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}));
    assert!(r.get("error").is_some(), "{r}");
    c.initialize(json!({}));
    // Malformed JSON in a well-framed message, and a message without headers.
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    let log =
        c.wait_for(Duration::from_secs(5), |m| m["method"] == "window/logMessage").expect("malformed message reported");
    assert!(log["params"]["message"].as_str().unwrap().contains("not valid JSON"), "{log}");
    c.send_raw(b"garbage\r\n\r\n");
    // An unknown method.
    let r = c.request("apache/unknownMethod", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    // Edits to a document that was never opened, and positions past the end.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///nope.conf", "version": 2}, "contentChanges": [{"text": "x"}]}),
    );
    c.open(URI, "Require all granted\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"range": {"start": {"line": 99, "character": 99}, "end": {"line": 120, "character": 0}}, "text": "\n<Directory />"}]}),
    );
    let d = c.diagnostics(URI, Some(2), Duration::from_secs(5)).expect("still publishing");
    assert!(d.iter().any(|d| d["message"] == "<Directory> was not closed."), "{d:?}");
    assert!(c.is_alive());
    assert!(c.shutdown().is_some());
}

#[test]
fn severity_overrides_from_initialization_options() {
    let mut c = Client::spawn();
    let r = c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {},
               "initializationOptions": {"diagnostics": {"severity": {"deprecated-access": "error", "syntax": "off"}}}}),
    );
    assert!(r.get("result").is_some());
    c.notify("initialized", json!({}));
    c.open(URI, "<Directory /srv>\n  Order deny,allow\n");
    let d = c.diagnostics(URI, Some(1), Duration::from_secs(5)).expect("diagnostics");
    assert!(d.iter().all(|d| d["code"] != "syntax"), "{d:?}");
    let dep: Vec<_> = d.iter().filter(|d| d["code"] == "deprecated-access").collect();
    assert_eq!(dep.len(), 1, "{d:?}");
    assert_eq!(dep[0]["severity"], 1);
    assert_eq!(dep[0]["tags"], json!([2]));
}
