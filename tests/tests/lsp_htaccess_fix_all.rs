//! The editor's "fix all" (`source.fixAll`) and quick fixes on an .htaccess file, over stdio
//! with the real binary: an .htaccess file no root configuration names gets no fix-all edit
//! at all (what it inherits from the server configuration is unknown), and its quick fixes
//! say so and are never preferred.

use apache_lsp_e2e::lsp::{file_uri, Client};
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
