//! The editing features of the real `apache-lsp` binary over stdio: completion
//! (and resolve), formatting, range formatting, selection ranges, semantic
//! tokens, and context diagnostics of an .htaccess file under its root
//! configuration — with non-ASCII text, in UTF-16 and in negotiated UTF-8.

use apache_lsp_e2e::lsp::Client;
use serde_json::{json, Value};
use std::time::Duration;

const URI: &str = "file:///tmp/apache-lsp-e2e-editing/httpd.conf";

fn client(utf8: bool) -> Client {
    let mut c = Client::spawn();
    let general = if utf8 { json!({"positionEncodings": ["utf-8"]}) } else { json!({}) };
    let r = c.initialize(json!({
        "general": general,
        "textDocument": {"completion": {"completionItem": {
            "snippetSupport": true,
            "resolveSupport": {"properties": ["documentation"]},
        }}},
    }));
    assert_eq!(r["result"]["capabilities"]["positionEncoding"], if utf8 { "utf-8" } else { "utf-16" });
    c
}

/// Column of byte offset `byte` of `line` in the negotiated encoding.
fn col(line: &str, byte: usize, utf8: bool) -> usize {
    if utf8 {
        byte
    } else {
        line[..byte].encode_utf16().count()
    }
}

/// Where the protocol's lines start: after `\n`, `\r\n` and a lone `\r` (LSP 3.17).
fn line_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let breaks = (0..b.len()).filter(|&i| b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')));
    std::iter::once(0).chain(breaks.map(|i| i + 1)).collect()
}

/// Applies LSP text edits (UTF-16 positions) to `text`, as a client that follows the
/// protocol's line breaks does.
fn apply(text: &str, edits: &[Value]) -> String {
    let starts = line_starts(text);
    let offset = |pos: &Value| -> usize {
        let (line, ch) = (pos["line"].as_u64().unwrap() as usize, pos["character"].as_u64().unwrap() as usize);
        let start = starts.get(line).copied().unwrap_or(text.len());
        let l = text[start..].split(['\n', '\r']).next().unwrap();
        let mut units = 0;
        for (b, c) in l.char_indices() {
            if units >= ch {
                return start + b;
            }
            units += c.len_utf16();
        }
        start + l.len()
    };
    let mut edits: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| (offset(&e["range"]["start"]), offset(&e["range"]["end"]), e["newText"].as_str().unwrap().to_string()))
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (a, b, t) in edits {
        out.replace_range(a..b, &t);
    }
    out
}

#[test]
fn capabilities_are_advertised() {
    let mut c = Client::spawn();
    let r = c.initialize(json!({}));
    let caps = &r["result"]["capabilities"];
    assert_eq!(caps["documentFormattingProvider"], true);
    assert_eq!(caps["documentRangeFormattingProvider"], true);
    assert_eq!(caps["selectionRangeProvider"], true);
    assert_eq!(caps["completionProvider"]["resolveProvider"], true);
    assert!(caps["completionProvider"]["triggerCharacters"].as_array().unwrap().contains(&json!("<")));
    let legend = &caps["semanticTokensProvider"]["legend"];
    assert_eq!(
        legend["tokenTypes"],
        json!(["directive", "section", "argument", "variable", "comment", "string", "number", "operator"])
    );
    assert_eq!(legend["tokenModifiers"], json!(["deprecated"]));
    assert_eq!(caps["semanticTokensProvider"]["range"], true);
    assert_eq!(caps["semanticTokensProvider"]["full"]["delta"], true);
}

fn completion_of_define_after_non_ascii(utf8: bool) {
    let mut c = client(utf8);
    let line = "DocumentRoot \"/srv/é😀/${doc";
    let text = format!("Define docroot_für /srv\n<VirtualHost *:80>\n  {line}\n</VirtualHost>\n");
    c.open(URI, &text);
    let cursor = col(&format!("  {line}"), line.len() + 2, utf8);
    let r = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": URI}, "position": {"line": 2, "character": cursor}}),
    );
    let items = r["result"].as_array().unwrap_or_else(|| panic!("{r}"));
    let item = items.iter().find(|i| i["label"] == "docroot_für").unwrap_or_else(|| panic!("{r}"));
    let edit = &item["textEdit"];
    assert_eq!(edit["newText"], "docroot_für}");
    let start = col(&format!("  {line}"), line.len() + 2 - 3, utf8);
    assert_eq!(edit["range"]["start"], json!({"line": 2, "character": start}));
    assert_eq!(edit["range"]["end"], json!({"line": 2, "character": cursor}));
}

#[test]
fn completion_ranges_count_utf16_units() {
    completion_of_define_after_non_ascii(false);
}

#[test]
fn completion_ranges_count_utf8_bytes_when_negotiated() {
    completion_of_define_after_non_ascii(true);
}

#[test]
fn directive_completion_follows_the_section_and_resolves_documentation() {
    let mut c = client(false);
    let text = "# Zugriff für Ärzte 😀\n<Directory \"/srv/é\">\n  Requ\n</Directory>\n";
    c.open(URI, text);
    let r = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": URI}, "position": {"line": 2, "character": 6}}),
    );
    let items = r["result"].as_array().unwrap();
    let labels: Vec<&str> = items.iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(labels.contains(&"Require"), "{labels:?}");
    assert!(!labels.contains(&"DocumentRoot"), "not allowed in <Directory>");
    let require = items.iter().find(|i| i["label"] == "Require").unwrap();
    assert_eq!(
        require["textEdit"]["range"],
        json!({"start": {"line": 2, "character": 2}, "end": {"line": 2, "character": 6}})
    );
    assert!(require.get("documentation").is_none(), "deferred to resolve: {require}");
    let resolved = c.request("completionItem/resolve", require.clone());
    let doc = resolved["result"]["documentation"]["value"].as_str().unwrap();
    assert!(doc.contains("https://httpd.apache.org/docs/2.4/mod/mod_authz_core.html#require"), "{doc}");
    // A section as a snippet with its closing tag.
    let dir = items.iter().find(|i| i["label"] == "<Files>").unwrap();
    assert_eq!(dir["insertTextFormat"], 2);
    assert_eq!(dir["textEdit"]["newText"], "<Files ${1:filename}>\n\t$0\n</Files>");
    // Deprecated directives are tagged.
    let order = items.iter().find(|i| i["label"] == "Order").unwrap();
    assert_eq!(order["tags"], json!([1]));
    // Require providers after `Require `.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 2, "character": 6}, "end": {"line": 2, "character": 6}}, "text": "ire all "}]}),
    );
    let r = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": URI}, "position": {"line": 2, "character": 14}}),
    );
    let labels: Vec<&str> = r["result"].as_array().unwrap().iter().filter_map(|i| i["label"].as_str()).collect();
    assert_eq!(labels, vec!["granted", "denied"]);
}

#[test]
fn formatting_indents_sections_and_nothing_else() {
    let mut c = client(false);
    let text = "<VirtualHost *:80>\nServerName é.example # 😀\n<Directory \"/srv/é\">\n# Zugriff für Ärzte\nRequire ip 10.0.0.0/8 \\\n    192.0.2.1\n</Directory>\n\n</VirtualHost>\n";
    c.open(URI, text);
    let r = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    let formatted = apply(text, r["result"].as_array().unwrap());
    assert_eq!(
        formatted,
        "<VirtualHost *:80>\n    ServerName é.example # 😀\n    <Directory \"/srv/é\">\n        # Zugriff für Ärzte\n        Require ip 10.0.0.0/8 \\\n    192.0.2.1\n    </Directory>\n\n</VirtualHost>\n"
    );
    // Formatting the result again changes nothing.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": formatted}]}),
    );
    let r = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(r["result"], json!([]));
    // Tabs, and only the lines of the range.
    let r = c.request(
        "textDocument/rangeFormatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 8, "insertSpaces": false},
               "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 5}}}),
    );
    let edits = r["result"].as_array().unwrap();
    assert_eq!(edits.len(), 1, "{edits:?}");
    assert_eq!(edits[0]["newText"], "\t\t");
    assert_eq!(edits[0]["range"]["start"]["line"], 3);
}

/// A lone `\r` ends a line for the protocol, not for httpd (which reads `Require ip 10.0.0.1
/// 10.0.0.2` as one line): formatting edits and incremental changes land where a client
/// counting the protocol's lines puts them, and the server's copy stays the client's.
#[test]
fn a_lone_cr_ends_a_line_in_every_position() {
    let mut c = client(false);
    let text = "<Directory /srv>\n  Require ip 10.0.0.1\r10.0.0.2\n  Require ip 192.168.0.1\n</Directory>\n";
    c.open(URI, text);
    let format = |c: &mut Client| {
        let r = c.request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": true}}),
        );
        r["result"].as_array().unwrap().clone()
    };
    let edits = format(&mut c);
    let lines: Vec<u64> = edits.iter().map(|e| e["range"]["start"]["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [1, 3], "{edits:?}");
    let formatted = apply(text, &edits);
    assert_eq!(
        formatted,
        "<Directory /srv>\n    Require ip 10.0.0.1\r10.0.0.2\n    Require ip 192.168.0.1\n</Directory>\n"
    );
    // `#` typed at the start of the protocol's line 3 (the last Require), then a word at
    // the start of line 2 (after the lone `\r`): the server's text is the client's.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": formatted}]}),
    );
    let mut client_text = formatted.clone();
    let mut version = 2;
    for (line, insert) in [(3, "#"), (2, "10.0.0.3 ")] {
        version += 1;
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version}, "contentChanges": [
                {"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                 "text": insert}]}),
        );
        client_text.insert_str(line_starts(&client_text)[line], insert);
    }
    assert_eq!(
        client_text,
        "<Directory /srv>\n    Require ip 10.0.0.1\r10.0.0.3 10.0.0.2\n#    Require ip 192.168.0.1\n</Directory>\n"
    );
    // Formatting the server's copy indents the comment it now holds on line 3, and nothing else.
    let edits = format(&mut c);
    assert_eq!(apply(&client_text, &edits), client_text.replace("#    Require", "    #    Require"), "{edits:?}");
}

/// Formatting never changes what httpd does: a `Require expr` string continued over two lines
/// keeps the blanks after the `\\` (httpd hands the joined line to the expression parser, for
/// which `'/a ` opens a string). Formatted through the binary, then both texts served by httpd.
#[test]
fn formatting_keeps_what_a_continued_expression_means_to_httpd() {
    use apache_lsp_e2e::httpd::{require_apache2, Httpd, HttpdConfig, Request};
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n        Require expr %{REQUEST_URI}=='/a \\\n  b/'\n</Directory>\n";
    let mut c = client(false);
    c.open(URI, body);
    let r = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    let formatted = apply(body, r["result"].as_array().unwrap());
    assert_eq!(formatted, body.replace("        Require", "    Require"));
    // Three blanks (one before the `\\`, two after) are in the string: granted, then 404 for
    // want of a file; two are not: refused.
    let answers = |text: &str| -> Vec<u16> {
        let httpd = Httpd::start(HttpdConfig::new(text)).expect("httpd starts");
        ["/a%20%20%20b/", "/a%20%20b/"].iter().map(|p| httpd.send(&Request::get(p)).expect("answer")).collect()
    };
    let before = answers(body);
    assert_eq!(before, [404, 403]);
    assert_eq!(answers(&formatted), before);
}

#[test]
fn selection_ranges_expand_from_the_word() {
    let mut c = client(false);
    let text = "<Directory \"/srv/é😀\">\n  Require ip 10.0.0.0/8\n</Directory>\n";
    c.open(URI, text);
    let r = c.request(
        "textDocument/selectionRange",
        json!({"textDocument": {"uri": URI}, "positions": [{"line": 1, "character": 15}, {"line": 0, "character": 18}]}),
    );
    let mut chain = vec![];
    let mut cur = &r["result"][0];
    while !cur.is_null() {
        chain.push(cur["range"].clone());
        cur = &cur["parent"];
    }
    assert_eq!(
        chain,
        vec![
            json!({"start": {"line": 1, "character": 13}, "end": {"line": 1, "character": 23}}),
            json!({"start": {"line": 1, "character": 10}, "end": {"line": 1, "character": 23}}),
            json!({"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 23}}),
            json!({"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 12}}),
        ]
    );
    // In the quoted path after `é😀` (UTF-16: é is 1 unit, 😀 is 2).
    assert_eq!(
        r["result"][1]["range"],
        json!({"start": {"line": 0, "character": 12}, "end": {"line": 0, "character": 20}})
    );
}

#[test]
fn selection_ranges_past_the_end_of_the_document_are_none() {
    let mut c = client(false);
    c.open(URI, "<Directory /srv>\n  Require all granted\n</Directory>\n");
    for line in [4u64, 100, (1 << 31) - 1] {
        let r = c.request(
            "textDocument/selectionRange",
            json!({"textDocument": {"uri": URI}, "positions": [{"line": line, "character": line}]}),
        );
        assert_eq!(r["result"], json!([]), "line {line}: {r}");
    }
    // Past the end of an existing line: the line's end, inside the directive.
    let r = c.request(
        "textDocument/selectionRange",
        json!({"textDocument": {"uri": URI}, "positions": [{"line": 1, "character": 80}]}),
    );
    assert_eq!(r["result"][0]["range"]["start"]["line"], 1, "{r}");
}

/// (line, start, length, type name, deprecated) of encoded semantic tokens.
fn decode(data: &Value) -> Vec<(u64, u64, u64, &'static str, bool)> {
    const TYPES: [&str; 8] =
        ["directive", "section", "argument", "variable", "comment", "string", "number", "operator"];
    let d: Vec<u64> = data.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let (mut line, mut start) = (0, 0);
    d.chunks(5)
        .map(|t| {
            line += t[0];
            start = if t[0] == 0 { start + t[1] } else { t[1] };
            (line, start, t[2], TYPES[t[3] as usize], t[4] == 1)
        })
        .collect()
}

fn semantic_tokens_after_non_ascii(utf8: bool) {
    let mut c = client(utf8);
    let line = "<Directory \"/srv/é😀/${site}\">";
    let text = format!("# für\n{line}\n  Order allow,deny\n</Directory>\n");
    c.open(URI, &text);
    let r = c.request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": URI}}));
    let tokens = decode(&r["result"]["data"]);
    let var_start = line.find("${").unwrap();
    let var = (1, col(line, var_start, utf8) as u64, 7, "variable", false);
    assert!(tokens.contains(&var), "{tokens:?}");
    let string = (
        1,
        col(line, 11, utf8) as u64,
        col(line, var_start, utf8) as u64 - col(line, 11, utf8) as u64,
        "string",
        false,
    );
    assert!(tokens.contains(&string), "{tokens:?}");
    assert!(tokens.contains(&(0, 0, col("# für", 6, utf8) as u64, "comment", false)), "{tokens:?}");
    assert!(tokens.contains(&(2, 2, 5, "directive", true)), "Order is deprecated: {tokens:?}");
    let r = c.request(
        "textDocument/semanticTokens/range",
        json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 2, "character": 0}, "end": {"line": 3, "character": 0}}}),
    );
    assert_eq!(decode(&r["result"]["data"]), vec![(2, 2, 5, "directive", true), (2, 8, 10, "argument", false)]);
}

#[test]
fn semantic_tokens_in_utf16() {
    semantic_tokens_after_non_ascii(false);
}

#[test]
fn semantic_tokens_in_utf8() {
    semantic_tokens_after_non_ascii(true);
}

#[test]
fn htaccess_is_checked_under_the_root_configurations_allow_override() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("httpd.conf");
    let www = dir.path().join("www-é");
    std::fs::create_dir(&www).unwrap();
    std::fs::write(&root, format!("<Directory \"{}\">\n  AllowOverride AuthConfig\n</Directory>\n", www.display()))
        .unwrap();
    let mut c = Client::spawn();
    let r = c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {},
               "initializationOptions": {"rootConfig": root.to_str().unwrap()}}),
    );
    assert!(r.get("result").is_some(), "{r}");
    c.notify("initialized", json!({}));
    let uri = format!("file://{}", www.join(".htaccess").display()).replace('é', "%C3%A9");
    c.open(&uri, "# für Ärzte\nRequire valid-user\nOptions -Indexes\n");
    let diags = c.diagnostics(&uri, Some(1), Duration::from_secs(10)).expect("diagnostics");
    let ctx: Vec<&Value> = diags.iter().filter(|d| d["code"] == "directive-context").collect();
    assert_eq!(ctx.len(), 1, "{diags:?}");
    let msg = ctx[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("Options not allowed here; AllowOverride AuthConfig (httpd.conf:2) does not grant Options"),
        "{msg}"
    );
    assert!(msg.contains("500"), "{msg}");
    assert_eq!(ctx[0]["range"]["start"], json!({"line": 2, "character": 0}));
}

#[test]
fn semantic_token_deltas_rebuild_the_full_tokens() {
    let mut c = client(false);
    let text = "# für 😀\n<Directory /srv>\n  Require all granted\n</Directory>\nServerName é.example\n";
    c.open(URI, text);
    let full = c.request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": URI}}));
    let id = full["result"]["resultId"].as_str().expect("a result id").to_string();
    let mut data: Vec<Value> = full["result"]["data"].as_array().unwrap().clone();
    // Insert a directive in the middle of the file.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "text": "  Order deny,allow\n"}]}),
    );
    let delta = c.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": URI}, "previousResultId": id}),
    );
    let edits = delta["result"]["edits"].as_array().unwrap_or_else(|| panic!("a delta: {delta}"));
    assert_eq!(edits.len(), 1, "{edits:?}");
    let (start, delete) =
        (edits[0]["start"].as_u64().unwrap() as usize, edits[0]["deleteCount"].as_u64().unwrap() as usize);
    data.splice(start..start + delete, edits[0]["data"].as_array().unwrap().iter().cloned());
    let fresh = c.request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": URI}}));
    assert_eq!(Value::Array(data), fresh["result"]["data"]);
    assert!(decode(&fresh["result"]["data"]).contains(&(2, 2, 5, "directive", true)));
    // An unknown previous id: all tokens again.
    let again = c.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": URI}, "previousResultId": "nope"}),
    );
    assert_eq!(again["result"]["data"], fresh["result"]["data"]);
}
