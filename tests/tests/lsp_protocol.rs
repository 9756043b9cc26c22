//! The protocol under stress, over stdio with the real binary: requests before
//! `initialize`, unknown methods, malformed messages, positions and edits past the
//! end (also inside surrogate pairs), cancellation, bursts of edits, a panic in a
//! handler, and the input ending while a request waits for the client. The server
//! must answer each as the protocol says and keep serving.
//! (lsp_stdio.rs covers the basic cases: an unknown request, a non-JSON body,
//! one edit past the end, a burst of single edits compared by outline.)

use apache_lsp_e2e::lsp::Client;
use serde_json::{json, Value};
use std::time::Duration;

const URI: &str = "file:///tmp/apache-lsp-protocol/httpd.conf";
const TEXT: &str = "# Zugriff für Ärzte 😀\n<Directory /srv/é>\n  Order allow,deny\n  Allow from all\n</Directory>\n";

fn error_code(r: &Value) -> Option<i64> {
    r.get("error").and_then(|e| e["code"].as_i64())
}

fn td(uri: &str) -> Value {
    json!({ "uri": uri })
}

fn pos(line: u64, character: u64) -> Value {
    json!({ "line": line, "character": character })
}

/// The server's text of a document, as its syntax tree prints it.
fn tree(c: &mut Client, uri: &str) -> String {
    let r =
        c.request("workspace/executeCommand", json!({"command": "apache-lsp.syntaxTree", "arguments": [{"uri": uri}]}));
    r["result"].as_str().unwrap_or_else(|| panic!("no tree for {uri}: {r}")).to_string()
}

/// The server is alive and answering: a request on an open document gets a result.
fn assert_serving(c: &mut Client) {
    let r = c.request("textDocument/documentSymbol", json!({"textDocument": td(URI)}));
    assert!(r.get("result").is_some(), "not serving: {r}");
    assert!(c.is_alive());
}

#[test]
fn an_unknown_command_is_named_as_unknown() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let r =
        c.request("workspace/executeCommand", json!({"command": "apache-lsp.frobnicate", "arguments": [{"uri": URI}]}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let msg = r["error"]["message"].as_str().unwrap();
    assert!(msg.starts_with("unknown command \"apache-lsp.frobnicate\""), "{msg}");
    assert!(msg.contains("apache-lsp.migrateFile"), "{msg}");
}

#[test]
fn requests_before_initialize_are_refused_and_notifications_ignored() {
    let mut c = Client::spawn();
    for (method, params) in [
        ("textDocument/hover", json!({"textDocument": td(URI), "position": pos(0, 0)})),
        ("textDocument/documentSymbol", json!({"textDocument": td(URI)})),
        ("workspace/executeCommand", json!({"command": "apache-lsp.syntaxTree", "arguments": [{"uri": URI}]})),
        ("shutdown", Value::Null),
    ] {
        let r = c.request(method, params);
        assert_eq!(error_code(&r), Some(-32002), "{method}: ServerNotInitialized expected, got {r}");
    }
    // A notification before initialize is dropped: no diagnostics, no answer.
    c.open(URI, TEXT);
    c.initialize(json!({}));
    assert!(c.diagnostics(URI, None, Duration::from_millis(500)).is_none(), "didOpen before initialize was acted on");
    let r = c.request("textDocument/documentSymbol", json!({"textDocument": td(URI)}));
    assert_eq!(r["result"], Value::Null, "the document was never opened: {r}");
    // A second initialize is an error too (InvalidRequest).
    let r = c.request("initialize", json!({"capabilities": {}}));
    assert_eq!(error_code(&r), Some(-32600), "{r}");
    c.open(URI, TEXT);
    assert!(c.diagnostics(URI, Some(1), Duration::from_secs(10)).is_some());
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

#[test]
fn unknown_methods_and_malformed_messages() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    c.open(URI, TEXT);
    // Unknown request → MethodNotFound; unknown notification (and `$/` ones) → nothing.
    let r = c.request("apache/whatIsThis", json!({}));
    assert_eq!(error_code(&r), Some(-32601), "{r}");
    c.notify("apache/unknownNotification", json!({"x": 1}));
    c.notify("$/unknownProtocolNotification", json!({}));
    let r = c.request("$/unknownProtocolRequest", json!({}));
    assert_eq!(error_code(&r), Some(-32601), "{r}");
    // Known method, wrong params → InvalidParams.
    let r = c.request("textDocument/hover", json!({"textDocument": td(URI)}));
    assert_eq!(error_code(&r), Some(-32602), "{r}");
    let r = c.request("workspace/executeCommand", json!({"command": "apache-lsp.syntaxTree", "arguments": []}));
    assert_eq!(error_code(&r), Some(-32602), "{r}");
    let r = c.request("workspace/executeCommand", json!({"command": "apache-lsp.noSuchCommand", "arguments": [URI]}));
    assert_eq!(error_code(&r), Some(-32602), "{r}");
    // Shapes that are not messages: reported to the client, reading goes on.
    for raw in [
        &b"Content-Length: 2\r\n\r\n[]"[..],
        b"Content-Length: 4\r\n\r\ntrue",
        b"Content-Length: 99999999999999999999\r\n\r\n",
        b"Content-Type: application/json\r\n\r\n",
        b"Content-Length: 12\r\n\r\n{\"id\": [1]}\n",
        b"Content-Length: 4\r\n\r\n\xff\xfe\x00\x01",
    ] {
        c.send_raw(raw);
        assert_serving(&mut c);
    }
    // A header line of 100 000 bytes (read in bounded pieces, reported), then a
    // Content-Length promising more than ever comes is only waited for, not allocated.
    c.send_raw(&[&b"X-Junk: "[..], &[b'a'; 100_000], b"\r\n\r\n"].concat());
    assert_serving(&mut c);
    // The report travels through the server's client handle, so it may arrive after the
    // answer above: wait for it (bounded) and keep it for the count below.
    let long = c.wait_for(Duration::from_secs(20), |m| {
        m["params"]["message"].as_str().is_some_and(|t| t.contains("header line longer"))
    });
    assert!(long.is_some(), "the long header line was not reported: {:?}", c.backlog().collect::<Vec<_>>());
    c.keep(long.unwrap());
    let logs = c.backlog().filter(|m| m["method"] == "window/logMessage").count();
    assert!(logs >= 4, "malformed messages were not reported: {:?}", c.backlog().collect::<Vec<_>>());
    // JSON objects tower-lsp cannot decode (which used to end the session): a
    // request with a readable id is answered InvalidRequest, the rest reported.
    c.send(&json!({"jsonrpc": "1.0", "id": 900, "method": "textDocument/documentSymbol", "params": {"textDocument": td(URI)}}));
    let r = c.response(900, Duration::from_secs(10)).expect("an answer to the JSON-RPC 1.0 request");
    assert_eq!(error_code(&r), Some(-32600), "{r}");
    c.send(&json!({"jsonrpc": "2.0", "id": 1.5, "method": "textDocument/documentSymbol"}));
    c.send(&json!({"jsonrpc": "2.0", "id": "x", "method": 7}));
    let r = c.wait_for(Duration::from_secs(10), |m| m["id"] == "x").expect("an answer to the request named x");
    assert_eq!(error_code(&r), Some(-32600), "{r}");
    c.send(&json!({"jsonrpc": "2.0", "id": 901}));
    c.send(&json!({"jsonrpc": "2.0", "id": 902, "result": {"unasked": true}}));
    c.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": [1, 2]}));
    c.send(&json!({"jsonrpc": "2.0", "id": 903, "method": "textDocument/hover", "params": null}));
    let r = c.response(903, Duration::from_secs(10)).expect("an answer to hover without params");
    assert_eq!(error_code(&r), Some(-32602), "{r}");
    assert_serving(&mut c);
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

#[test]
fn positions_and_ranges_past_the_end_and_inside_characters() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    c.open(URI, TEXT);
    let _ = c.diagnostics(URI, Some(1), Duration::from_secs(10));
    let emoji_line = 0; // "# Zugriff für Ärzte 😀": the emoji's surrogate pair is at UTF-16 columns 20-21
    for p in [
        pos(0, 21),
        pos(emoji_line, 9999),
        pos(2, 3),
        pos(4, 400),
        pos(5, 0),
        pos(99, 0),
        pos(u32::MAX as u64, u32::MAX as u64),
    ] {
        let r = c.request("textDocument/hover", json!({"textDocument": td(URI), "position": p}));
        assert!(r.get("error").is_none(), "hover at {p}: {r}");
    }
    for (a, b) in
        [(pos(0, 21), pos(0, 21)), (pos(3, 0), pos(999, 999)), (pos(999, 0), pos(1000, 0)), (pos(4, 0), pos(1, 0))]
    {
        let r = c.request(
            "textDocument/codeAction",
            json!({"textDocument": td(URI), "range": {"start": a, "end": b}, "context": {"diagnostics": []}}),
        );
        assert!(r.get("error").is_none(), "codeAction {a}..{b}: {r}");
    }
    // The inverted range still finds the old-style block it covers.
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": td(URI), "range": {"start": pos(4, 0), "end": pos(1, 0)}, "context": {"diagnostics": []}}),
    );
    assert!(r["result"].as_array().is_some_and(|a| !a.is_empty()), "{r}");
    // Requests on documents that were never opened: no result, no error.
    let other = "file:///tmp/apache-lsp-protocol/never-opened.conf";
    for (m, p) in [
        ("textDocument/hover", json!({"textDocument": td(other), "position": pos(0, 0)})),
        ("textDocument/documentSymbol", json!({"textDocument": td(other)})),
        ("textDocument/foldingRange", json!({"textDocument": td(other)})),
        (
            "textDocument/codeAction",
            json!({"textDocument": td(other), "range": {"start": pos(0, 0), "end": pos(0, 0)}, "context": {"diagnostics": []}}),
        ),
        ("workspace/executeCommand", json!({"command": "apache-lsp.syntaxTree", "arguments": [{"uri": other}]})),
    ] {
        let r = c.request(m, p);
        assert_eq!(r["result"], Value::Null, "{m}: {r}");
    }
    // A URI that is not a file.
    let r =
        c.request("textDocument/hover", json!({"textDocument": {"uri": "untitled:Untitled-1"}, "position": pos(0, 0)}));
    assert_eq!(error_code(&r), Some(-32602), "{r}");
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

#[test]
fn edits_past_the_end_inside_characters_and_to_unknown_documents() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let other = "file:///tmp/apache-lsp-protocol/never-opened.conf";
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": other, "version": 2}, "contentChanges": [{"range": {"start": pos(0, 0), "end": pos(0, 0)}, "text": "x"}]}));
    c.notify("textDocument/didSave", json!({"textDocument": td(other)}));
    c.notify("textDocument/didClose", json!({"textDocument": td(other)}));
    c.open(URI, TEXT);
    // Several changes in one notification, applied in order; some past the end, one
    // starting inside the emoji's surrogate pair (it snaps to the character's start).
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": pos(50, 7), "end": pos(60, 0)}, "text": "ServerAdmin end@example.com\n"},
            {"range": {"start": pos(0, 21), "end": pos(0, 22)}, "text": "!"},
            {"range": {"start": pos(2, 2), "end": pos(2, 999)}, "text": "Require all granted"},
            {"range": {"start": pos(3, 0), "end": pos(4, 0)}, "text": ""},
        ]}),
    );
    let expected =
        "# Zugriff für Ärzte !\n<Directory /srv/é>\n  Require all granted\n</Directory>\nServerAdmin end@example.com\n";
    let d = c.diagnostics(URI, Some(2), Duration::from_secs(10)).expect("diagnostics of version 2");
    assert!(d.iter().all(|d| d["code"] != "deprecated-access"), "{d:?}");
    let fresh = "file:///tmp/apache-lsp-protocol/fresh.conf";
    c.open(fresh, expected);
    assert_eq!(tree(&mut c, URI), tree(&mut c, fresh));
    // A full replacement after incremental ones.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": "<Directory /srv>\n  Order deny,allow\n</Directory>\n"}]}),
    );
    let d = c.diagnostics(URI, Some(3), Duration::from_secs(10)).expect("diagnostics of version 3");
    assert!(d.iter().any(|d| d["code"] == "deprecated-access"), "{d:?}");
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

/// A configuration whose hovers take a while: many virtual hosts and sections.
fn big_config() -> String {
    let mut s = String::from(
        "LoadModule authz_core_module m.so\nLoadModule authz_host_module m.so\nLoadModule access_compat_module m.so\n",
    );
    for i in 0..400 {
        s.push_str(&format!(
            "<VirtualHost *:80>\n  ServerName s{i}.example.com\n  DocumentRoot /srv/s{i}\n  <Directory /srv/s{i}>\n    Order deny,allow\n    Deny from 10.{i}.0.0/16\n  </Directory>\n  <Location /admin{i}>\n    Require ip 127.0.0.1\n  </Location>\n</VirtualHost>\n",
            i = i % 250
        ));
    }
    s
}

#[test]
fn cancellation_answers_every_request_and_the_server_keeps_serving() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let text = big_config();
    c.open(URI, &text);
    let _ = c.diagnostics(URI, Some(1), Duration::from_secs(120));
    // Requests cancelled right after they are sent, and one cancelled twice.
    let mut ids = Vec::new();
    for line in [3, 200, 2000, 4000] {
        let id = c.send_request("textDocument/hover", json!({"textDocument": td(URI), "position": pos(line, 3)}));
        c.notify("$/cancelRequest", json!({"id": id}));
        ids.push(id);
    }
    c.notify("$/cancelRequest", json!({"id": ids[0]}));
    // Cancelling what does not exist (done, or never sent) is ignored.
    c.notify("$/cancelRequest", json!({"id": 987_654}));
    c.notify("$/cancelRequest", json!({"id": "not-a-request"}));
    for id in ids {
        let r = c.response(id, Duration::from_secs(300)).unwrap_or_else(|| panic!("request {id} never answered"));
        // Either cancelled, or it finished first: both are answers.
        assert!(error_code(&r) == Some(-32800) || r.get("result").is_some(), "{r}");
    }
    assert_serving(&mut c);
    let r = c.request_within(
        Duration::from_secs(300),
        "textDocument/hover",
        json!({"textDocument": td(URI), "position": pos(6, 3)}),
    );
    assert!(r["result"]["contents"]["value"].as_str().is_some_and(|v| v.contains("Effective access")), "{r}");
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

#[test]
fn burst_of_batched_edits_in_utf8_ends_like_a_fresh_open() {
    // Like lsp_stdio's burst, but with UTF-8 positions and several changes per
    // notification, compared by the server's own syntax tree (its exact text).
    let mut c = Client::spawn();
    let r = c.initialize(json!({"general": {"positionEncodings": ["utf-8"]}}));
    assert_eq!(r["result"]["capabilities"]["positionEncoding"], "utf-8");
    let mut text = TEXT.to_string();
    c.open(URI, &text);
    let pieces = ["<Files a>\n", "</Files>\n", "é", "😀", "Require all granted\n", "\\\n", "</Directory>\n", " ", "\0"];
    let mut rng = apache_lsp_e2e::XorShift(0x9E3779B97F4A7C15);
    let mut rnd = |n: usize| rng.below(n);
    let position = |text: &str, off: usize| {
        let line = text[..off].matches('\n').count();
        let start = text[..off].rfind('\n').map(|i| i + 1).unwrap_or(0);
        pos(line as u64, (off - start) as u64)
    };
    let mut version = 1;
    for _ in 0..200 {
        version += 1;
        let mut changes = Vec::new();
        for _ in 0..1 + rnd(4) {
            let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
            let k = rnd(bounds.len());
            let a = bounds[k];
            let b = bounds[(k + rnd(3)).min(bounds.len() - 1)];
            let insert = if rnd(3) == 0 { "" } else { pieces[rnd(pieces.len())] };
            changes.push(json!({"range": {"start": position(&text, a), "end": position(&text, b)}, "text": insert}));
            text.replace_range(a..b, insert);
        }
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version}, "contentChanges": changes}),
        );
    }
    let last = c.diagnostics(URI, Some(version), Duration::from_secs(30)).expect("diagnostics of the last version");
    let fresh = "file:///tmp/apache-lsp-protocol/fresh/httpd.conf";
    c.open(fresh, &text);
    let first = c.diagnostics(fresh, Some(1), Duration::from_secs(30)).expect("fresh diagnostics");
    assert_eq!(diagnostic_keys(&last), diagnostic_keys(&first));
    assert_eq!(tree(&mut c, URI), tree(&mut c, fresh));
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

/// Diagnostics in a form that compares across documents: everything but the URIs
/// (related information is in the same document here).
fn diagnostic_keys(d: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = d
        .iter()
        .map(|d| {
            let related: Vec<String> = d["relatedInformation"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| format!("{} {}", r["location"]["range"], r["message"]))
                .collect();
            format!("{} {} {} {} {related:?}", d["range"], d["severity"], d["code"], d["message"])
        })
        .collect();
    v.sort();
    v
}

#[test]
fn burst_of_directive_edits_in_utf16_ends_like_a_fresh_open() {
    // Edits inside directive lines and whole directive lines added, the kind the
    // server follows incrementally (without loading the document again), in a text
    // whose diagnostics depend on the whole configuration (an inherited Deny
    // defeating a Require in a virtual host), positions in UTF-16 over non-ASCII
    // text. After the burst, and half-way, the diagnostics must be those of a
    // fresh open of the same text.
    const TEXT: &str = "# Zugriff für Ärzte 😀 — ünïcödé\nDocumentRoot /srv/wwü\n<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n<VirtualHost *:80>\n  ServerName a.example\n  DocumentRoot /srv/a\n  # Kommentar für 😀\n  <Directory /srv/a>\n    Require all granted\n    Options None\n  </Directory>\n</VirtualHost>\n<VirtualHost *:80>\n  ServerName b.example\n  DocumentRoot /srv/b\n  <Directory /srv/b>\n    Order allow,deny\n    Allow from 10.0.0.1\n    Require ip 10.1.2.3 # é\n  </Directory>\n</VirtualHost>\n";
    let uri = "file:///tmp/apache-lsp-protocol/burst16/httpd.conf";
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let mut text = TEXT.to_string();
    c.open(uri, &text);
    let opened = c.diagnostics(uri, Some(1), Duration::from_secs(30)).expect("diagnostics after open");
    let codes: Vec<&str> = opened.iter().filter_map(|d| d["code"].as_str()).collect();
    for code in ["defeated-require", "deprecated-access"] {
        assert!(codes.contains(&code), "the text should start with a {code} finding: {codes:?}");
    }
    let chars = ["x", "é", "😀", "1", " ", "#", "."];
    let lines = ["    Require all denied\n", "    Allow from 10.0.0.2\n", "    Order deny,allow\n", "  # ä 😀\n"];
    let mut rng = apache_lsp_e2e::XorShift(0xC0FFEE1234567);
    let position = |text: &str, off: usize| {
        let line = text[..off].matches('\n').count();
        let start = text[..off].rfind('\n').map(|i| i + 1).unwrap_or(0);
        pos(line as u64, text[start..off].encode_utf16().count() as u64)
    };
    let mut version = 1;
    let mut compared = 0;
    // Compares the document's diagnostics and tree with those of a fresh open.
    let mut compare = |c: &mut Client, text: &str, version: i64| {
        let last = c.diagnostics(uri, Some(version), Duration::from_secs(30)).expect("diagnostics of the last version");
        compared += 1;
        let fresh = format!("file:///tmp/apache-lsp-protocol/burst16-fresh{compared}/httpd.conf");
        c.open(&fresh, text);
        let first = c.diagnostics(&fresh, Some(1), Duration::from_secs(30)).expect("fresh diagnostics");
        assert_eq!(diagnostic_keys(&last), diagnostic_keys(&first), "after {version} versions:\n{text}");
        assert_eq!(tree(c, uri), tree(c, &fresh));
        c.notify("textDocument/didClose", json!({"textDocument": td(&fresh)}));
    };
    // First an edit inside the access rules of one virtual host: its findings are
    // computed again, the others kept.
    for (needle, insert) in
        [("Require all granted", " "), ("Require ip 10.1.2.3", "0"), ("Options None", "\n    Order allow,deny")]
    {
        version += 1;
        let at = text.find(needle).expect(needle) + needle.len();
        let p = position(&text, at);
        text.insert_str(at, insert);
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": {"start": p, "end": p}, "text": insert}]}),
        );
        compare(&mut c, &text, version);
    }
    for _ in 0..240 {
        version += 1;
        // Lines holding a directive (not a section's header or closer).
        let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        let plain: Vec<usize> =
            starts.iter().copied().filter(|&s| s < text.len() && !text[s..].trim_start().starts_with('<')).collect();
        let line_start = plain[rng.below(plain.len())];
        let line_end = text[line_start..].find('\n').map(|i| line_start + i).unwrap_or(text.len());
        let (a, b, insert) = match rng.below(4) {
            0 => (line_start, line_start, lines[rng.below(lines.len())]),
            k => {
                let bounds: Vec<usize> =
                    text[line_start..line_end].char_indices().map(|(i, _)| line_start + i).chain([line_end]).collect();
                let a = bounds[rng.below(bounds.len())];
                let next = bounds.iter().copied().find(|&x| x > a).unwrap_or(a);
                if k == 1 {
                    (a, next, "")
                } else {
                    (a, a, chars[rng.below(chars.len())])
                }
            }
        };
        let change = json!({"range": {"start": position(&text, a), "end": position(&text, b)}, "text": insert});
        text.replace_range(a..b, insert);
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
        );
        // Half-way through bursts of 40, and after each.
        if version % 40 == 0 {
            compare(&mut c, &text, version);
        }
    }
    compare(&mut c, &text, version);
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

#[test]
fn a_panic_in_a_handler_is_an_error_response_and_the_server_keeps_serving() {
    let mut c = Client::spawn_env(&[], &[("APACHE_LSP_TEST_PANIC", "1")]);
    c.initialize(json!({}));
    c.open(URI, TEXT);
    for _ in 0..3 {
        let r = c.request("workspace/executeCommand", json!({"command": "apache-lsp.testPanic", "arguments": [URI]}));
        assert_eq!(error_code(&r), Some(-32603), "{r}");
        assert!(r["error"]["message"].as_str().is_some_and(|m| m.contains("a panic the test suite asked for")), "{r}");
        assert_serving(&mut c);
    }
    let r = c.request("textDocument/hover", json!({"textDocument": td(URI), "position": pos(1, 2)}));
    assert!(r["result"]["contents"]["value"].as_str().is_some(), "{r}");
    assert!(c.shutdown().is_some_and(|s| s.success()));
    // Without the variable the command does not exist.
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let r = c.request("workspace/executeCommand", json!({"command": "apache-lsp.testPanic", "arguments": [URI]}));
    assert_eq!(error_code(&r), Some(-32602), "{r}");
}

#[test]
fn input_ending_while_a_request_waits_for_the_client_ends_the_server() {
    // migrateFile asks the client to apply an edit and waits for the answer; this
    // client never answers and closes the server's input instead.
    let mut c = Client::spawn();
    c.initialize(json!({}));
    c.open(URI, TEXT);
    let _ = c.diagnostics(URI, Some(1), Duration::from_secs(10));
    let id = c.send_request(
        "workspace/executeCommand",
        json!({"command": "apache-lsp.migrateFile", "arguments": [{"uri": URI}]}),
    );
    let edit = c.wait_for(Duration::from_secs(30), |m| m["method"] == "workspace/applyEdit").expect("applyEdit");
    assert!(edit["params"]["edit"]["changes"][URI].is_array(), "{edit}");
    assert!(c.backlog().all(|m| m["id"] != json!(id)), "answered before the client did");
    let st = c.close_input(Duration::from_secs(30)).expect("the server did not exit after its input ended");
    assert_eq!(st.code(), Some(1), "input ended without shutdown");
}

#[test]
fn exit_without_shutdown_and_requests_after_shutdown() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let r = c.request("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    let r = c.request("textDocument/documentSymbol", json!({"textDocument": td(URI)}));
    assert_eq!(error_code(&r), Some(-32600), "after shutdown: {r}");
    c.notify("exit", Value::Null);
    let st = c.close_input(Duration::from_secs(10)).expect("exit");
    assert_eq!(st.code(), Some(0));

    let mut c = Client::spawn();
    c.initialize(json!({}));
    c.notify("exit", Value::Null);
    let st = c.close_input(Duration::from_secs(10)).expect("exit");
    assert_eq!(st.code(), Some(1), "exit without shutdown");
}
