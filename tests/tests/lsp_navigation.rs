//! Navigation and multi-file context through the real binary over stdio: document
//! links, go to definition, references, highlights, workspace symbols, root
//! discovery with progress, and files changed on disk — in a workspace whose paths
//! and text are not ASCII.

use apache_lsp_e2e::lsp::{file_uri, position_of, uri_path, Client};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(20);

/// A Debian-shaped tree under a directory with a space and non-ASCII letters.
struct Tree {
    _dir: tempfile::TempDir,
    folder: PathBuf,
    etc: PathBuf,
}

const MAIN: &str = "# Grüße 😀\nServerRoot \"@ETC@\"\nInclude conf/vars.conf\nIncludeOptional sites-enabled/*.conf\nDocumentRoot \"${WEB}/htdocs\"\n<Directory \"${WEB}/htdocs\">\n  AllowOverride All\n</Directory>\n<Location /privé>\n  AuthType Basic\n  AuthName \"Zoë\"\n  AuthUserFile pässwords\n  Require valid-user\n</Location>\n";
const VARS: &str = "Define WEB \"@FOLDER@/wëb\"\nDefine ÜBER 1\n";
const SITE: &str = "<VirtualHost *:80>\n  ServerName ünï.example\n  DocumentRoot \"${WEB}/😀\"\n  Alias /😀 \"${WEB}/😀\"\n  <Directory \"${WEB}/😀\">\n    Require all granted\n  </Directory>\n</VirtualHost>\n";

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::Builder::new().prefix("apache-lsp-nav-").tempdir().unwrap();
        let folder = dir.path().join("wörk späce");
        let etc = folder.join("etc/apache2");
        let put = |rel: &str, text: &str| {
            let p = etc.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            let text = text.replace("@ETC@", &etc.to_string_lossy()).replace("@FOLDER@", &folder.to_string_lossy());
            std::fs::write(p, text).unwrap();
        };
        put("apache2.conf", MAIN);
        put("conf/vars.conf", VARS);
        put("sites-available/ünï.conf", SITE);
        put("pässwords", "alice:{SHA}x\n");
        std::fs::create_dir_all(etc.join("sites-enabled")).unwrap();
        std::os::unix::fs::symlink("../sites-available/ünï.conf", etc.join("sites-enabled/ünï.conf")).unwrap();
        std::fs::create_dir_all(folder.join("wëb/htdocs")).unwrap();
        Tree { _dir: dir, folder, etc }
    }

    fn text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.etc.join(rel)).unwrap()
    }

    fn uri(&self, rel: &str) -> String {
        file_uri(&self.etc.join(rel))
    }
}

fn capabilities() -> Value {
    json!({
        "window": {"workDoneProgress": true},
        "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": true},
                      "workspaceFolders": true, "symbol": {}},
        "textDocument": {"definition": {"linkSupport": true}}
    })
}

/// Starts the server on the tree's folder and waits until the first index is done.
fn start(tree: &Tree) -> Client {
    let mut c = Client::spawn();
    let r = c.initialize_with(capabilities(), &[&tree.folder], json!({}));
    let caps = &r["result"]["capabilities"];
    for cap in ["documentLinkProvider", "definitionProvider", "referencesProvider", "documentHighlightProvider"] {
        assert!(!caps[cap].is_null(), "{cap} missing: {caps}");
    }
    assert_eq!(caps["workspaceSymbolProvider"], true);
    // Progress: a token is created, then begin … end on it.
    let create = c.wait_for(WAIT, |m| m["method"] == "window/workDoneProgress/create").expect("progress token created");
    let token = create["params"]["token"].clone();
    let begin = c
        .wait_for(WAIT, |m| {
            m["method"] == "$/progress" && m["params"]["token"] == token && m["params"]["value"]["kind"] == "begin"
        })
        .expect("progress begins");
    assert!(begin["params"]["value"]["title"].as_str().unwrap().contains("indexing"), "{begin}");
    let end = c
        .wait_for(WAIT, |m| {
            m["method"] == "$/progress" && m["params"]["token"] == token && m["params"]["value"]["kind"] == "end"
        })
        .expect("progress ends");
    assert_eq!(end["params"]["value"]["message"], "1 main configuration(s), 3 file(s)", "{end}");
    c
}

fn definition(c: &mut Client, uri: &str, pos: Value) -> Vec<Value> {
    let r = c.request("textDocument/definition", json!({"textDocument": {"uri": uri}, "position": pos}));
    r["result"].as_array().cloned().unwrap_or_default()
}

#[test]
fn fragment_opened_alone_is_analysed_in_the_tree_that_includes_it() {
    let tree = Tree::new();
    let mut c = start(&tree);
    let reg =
        c.wait_for(WAIT, |m| m["method"] == "client/registerCapability").expect("file watchers registered dynamically");
    let r = &reg["params"]["registrations"][0];
    assert_eq!(r["method"], "workspace/didChangeWatchedFiles");
    let globs: Vec<String> = r["registerOptions"]["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["globPattern"].as_str().map(str::to_string))
        .collect();
    assert!(globs.contains(&"**/*.conf".to_string()) && globs.contains(&"**/.htaccess".to_string()), "{globs:?}");

    // Opened through its real name in sites-available (the tree reads it through the link).
    let site_uri = tree.uri("sites-available/ünï.conf");
    let site = tree.text("sites-available/ünï.conf");
    c.open(&site_uri, &site);
    let diags = c.diagnostics(&site_uri, Some(1), WAIT).expect("diagnostics");
    assert!(
        diags.iter().all(|d| d["code"] != "undefined-variable"),
        "${{WEB}} is Define'd in conf/vars.conf of the tree: {diags:?}"
    );

    // ${WEB} → its Define in another file. On the Alias line an emoji (two UTF-16 units,
    // four bytes) comes before the variable: its name starts at UTF-16 column 15.
    let pos = position_of(&site, "${WEB}/😀\"\n  <Dir", 3);
    assert_eq!(pos, json!({"line": 3, "character": 16}));
    let links = definition(&mut c, &site_uri, pos);
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(uri_path(links[0]["targetUri"].as_str().unwrap()), tree.etc.join("conf/vars.conf"));
    assert_eq!(
        links[0]["targetSelectionRange"],
        json!({"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 10}})
    );
    assert_eq!(
        links[0]["originSelectionRange"],
        json!({"start": {"line": 3, "character": 15}, "end": {"line": 3, "character": 18}})
    );

    let main_uri = tree.uri("apache2.conf");
    let main = tree.text("apache2.conf");
    c.open(&main_uri, &main);
    let _ = c.diagnostics(&main_uri, Some(1), WAIT);

    // Document links: the wildcard Include to the file it reads, the password file.
    let r = c.request("textDocument/documentLink", json!({"textDocument": {"uri": main_uri}}));
    let links: Vec<(String, PathBuf)> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let (s, e) = (&l["range"]["start"], &l["range"]["end"]);
            let line = main.lines().nth(s["line"].as_u64().unwrap() as usize).unwrap();
            let utf16: Vec<u16> = line.encode_utf16().collect();
            let text = String::from_utf16(
                &utf16[s["character"].as_u64().unwrap() as usize..e["character"].as_u64().unwrap() as usize],
            )
            .unwrap();
            (text, uri_path(l["target"].as_str().unwrap()))
        })
        .collect();
    assert_eq!(
        links,
        vec![
            ("conf/vars.conf".to_string(), tree.etc.join("conf/vars.conf")),
            ("sites-enabled/*.conf".to_string(), tree.etc.join("sites-enabled/ünï.conf")),
            ("pässwords".to_string(), tree.etc.join("pässwords")),
        ]
    );

    // Go to definition on the Include pattern: every file it reads.
    let targets = definition(&mut c, &main_uri, position_of(&main, "sites-enabled/*", 2));
    let paths: Vec<PathBuf> = targets.iter().map(|t| uri_path(t["targetUri"].as_str().unwrap())).collect();
    assert_eq!(paths, vec![tree.etc.join("sites-enabled/ünï.conf")]);

    // References of WEB from its use in apache2.conf: the Define and every use, in all files.
    let r = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": main_uri}, "position": position_of(&main, "${WEB}/htdocs\"\n<", 3),
               "context": {"includeDeclaration": true}}),
    );
    let mut refs: Vec<(PathBuf, u64)> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (uri_path(l["uri"].as_str().unwrap()), l["range"]["start"]["line"].as_u64().unwrap()))
        .collect();
    refs.sort();
    let site_in_tree = tree.etc.join("sites-enabled/ünï.conf");
    let mut want = vec![
        (tree.etc.join("apache2.conf"), 4),
        (tree.etc.join("apache2.conf"), 5),
        (tree.etc.join("conf/vars.conf"), 0),
        (site_in_tree.clone(), 2),
        (site_in_tree.clone(), 3),
        (site_in_tree, 4),
    ];
    want.sort();
    assert_eq!(refs, want);

    // Highlights in this file only, the uses read.
    let r = c.request(
        "textDocument/documentHighlight",
        json!({"textDocument": {"uri": main_uri}, "position": position_of(&main, "${WEB}/htdocs\"\n<", 3)}),
    );
    let kinds: Vec<(u64, u64)> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["range"]["start"]["line"].as_u64().unwrap(), h["kind"].as_u64().unwrap()))
        .collect();
    assert_eq!(kinds, vec![(4, 2), (5, 2)]);

    // Workspace symbols: the virtual host by its name, in the open document as the editor names it.
    let r = c.request("workspace/symbol", json!({"query": "ünï"}));
    let syms = r["result"].as_array().unwrap();
    assert_eq!(syms[0]["name"], "ünï.example", "{syms:?}");
    assert_eq!(syms[0]["containerName"], "VirtualHost *:80");
    assert_eq!(syms[0]["kind"], 3, "namespace");
    assert_eq!(uri_path(syms[0]["location"]["uri"].as_str().unwrap()), tree.etc.join("sites-available/ünï.conf"));
    let r = c.request("workspace/symbol", json!({"query": "prvé"}));
    let names: Vec<&str> = r["result"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["/privé"], "fuzzy: the query's letters in order");

    // The same file open under its sites-enabled link too: its virtual host once, under the
    // name the configuration reads it by.
    let link_uri = tree.uri("sites-enabled/ünï.conf");
    c.open(&link_uri, &site);
    let _ = c.diagnostics(&link_uri, Some(1), WAIT);
    let r = c.request("workspace/symbol", json!({"query": "ünï.example"}));
    let syms: Vec<&Value> = r["result"].as_array().unwrap().iter().filter(|s| s["name"] == "ünï.example").collect();
    assert_eq!(syms.len(), 1, "{syms:?}");
    assert_eq!(uri_path(syms[0]["location"]["uri"].as_str().unwrap()), tree.etc.join("sites-enabled/ünï.conf"));
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

#[test]
fn files_changed_on_disk_are_picked_up() {
    let tree = Tree::new();
    let mut c = start(&tree);
    let site_uri = tree.uri("sites-enabled/ünï.conf");
    c.open(&site_uri, &tree.text("sites-enabled/ünï.conf"));
    let d = c.diagnostics(&site_uri, Some(1), WAIT).expect("diagnostics");
    assert!(d.iter().all(|d| d["code"] != "undefined-variable"), "{d:?}");

    // (Nothing else in flight.)
    while c.diagnostics(&site_uri, None, Duration::from_millis(300)).is_some() {}
    // An .htaccess appears in a directory the tree serves: the documents of that tree are
    // analysed again (without re-indexing: httpd reads it per request).
    let access = tree.folder.join("wëb/htdocs/.htaccess");
    std::fs::write(&access, "Require all denied\n").unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": file_uri(&access), "type": 1}]}));
    assert!(c.diagnostics(&site_uri, Some(1), WAIT).is_some(), "re-published after the .htaccess appeared");

    // The included file that defines WEB is edited outside the editor.
    std::fs::write(tree.etc.join("conf/vars.conf"), "# WEB is gone\n").unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": tree.uri("conf/vars.conf"), "type": 2}]}));
    // Re-published once the index saw the change (earlier publications may still be in flight).
    let undefined = |m: &Value| {
        m["params"]["diagnostics"]
            .as_array()
            .map_or(0, |d| d.iter().filter(|d| d["code"] == "undefined-variable").count())
    };
    let m = c
        .wait_for(WAIT, |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == site_uri && undefined(m) > 0
        })
        .expect("re-published after the change on disk");
    assert_eq!(undefined(&m), 3, "one for each line using ${{WEB}}: {m}");

    // A new site appears in sites-enabled: the index (workspace symbols) sees it.
    std::fs::write(
        tree.etc.join("sites-enabled/nëw.conf"),
        "<VirtualHost *:8080>\n  ServerName nëw.example\n</VirtualHost>\n",
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": tree.uri("sites-enabled/nëw.conf"), "type": 1}]}),
    );
    let mut names = Vec::new();
    for _ in 0..200 {
        let r = c.request("workspace/symbol", json!({"query": "nëw"}));
        names = r["result"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()).collect();
        if !names.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert_eq!(names, vec!["nëw.example"]);
    // Drain what the re-indexing published, then check that an unrelated file changes nothing.
    while c.diagnostics(&site_uri, None, Duration::from_millis(300)).is_some() {}

    // A change to a file nothing reads re-publishes nothing.
    std::fs::write(tree.folder.join("nötes.txt"), "x").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&tree.folder.join("nötes.txt")), "type": 1}]}),
    );
    assert!(c.diagnostics(&site_uri, None, Duration::from_millis(500)).is_none());
    assert!(c.shutdown().is_some_and(|s| s.success()));
}

#[test]
fn configured_root_outside_the_folders_is_watched_and_used() {
    let tree = Tree::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let mut c = Client::spawn();
    c.initialize_with(capabilities(), &[elsewhere.path()], json!({"rootConfig": tree.etc.join("apache2.conf")}));
    let reg = c.wait_for(WAIT, |m| m["method"] == "client/registerCapability").expect("watchers registered");
    let watchers = reg["params"]["registrations"][0]["registerOptions"]["watchers"].as_array().unwrap().clone();
    let relative: Vec<PathBuf> =
        watchers.iter().filter_map(|w| w["globPattern"]["baseUri"].as_str()).map(uri_path).collect();
    assert_eq!(relative, vec![tree.etc.canonicalize().unwrap()], "{watchers:?}");
    let site_uri = tree.uri("sites-available/ünï.conf");
    let site = tree.text("sites-available/ünï.conf");
    c.open(&site_uri, &site);
    let links = definition(&mut c, &site_uri, position_of(&site, "${WEB}/😀\"\n  <Dir", 3));
    assert_eq!(links.len(), 1, "{links:?}");
    assert!(c.shutdown().is_some());
}

#[test]
fn definition_without_link_support_answers_locations() {
    let tree = Tree::new();
    let mut c = Client::spawn();
    c.initialize_with(json!({}), &[&tree.folder], json!({}));
    let main_uri = tree.uri("apache2.conf");
    let main = tree.text("apache2.conf");
    c.open(&main_uri, &main);
    // Wait until the index has the tree (no progress without the capability: poll).
    let mut locs = Vec::new();
    for _ in 0..100 {
        locs = definition(&mut c, &main_uri, position_of(&main, "pässwords", 1));
        if !locs.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(locs.len(), 1, "{locs:?}");
    assert_eq!(uri_path(locs[0]["uri"].as_str().unwrap()), tree.etc.join("pässwords"));
    assert_eq!(locs[0]["range"], json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}));
    assert!(c.shutdown().is_some());
}
