//! The configuration model and the policy engine, on a fuzzed main file, a fuzzed
//! included file and a fuzzed .htaccess file (the input's three parts, split at
//! lines `%%`): loading, every diagnostic, the effective policy of a few requests,
//! hovers at a few offsets, code actions and their proofs, the migration rewrite
//! applied and reloaded. Never a panic, and every range a feature returns lies in
//! its file, on character boundaries.
//!
//! Sandbox: the main and included files live in memory and Include resolves only
//! against them, so no input can make the harness read the machine's files. The
//! .htaccess file is real (the engine reads it per request from a temporary
//! directory the main file serves); inputs naming other access file names with a
//! path in them are skipped.
#![no_main]

use apache_lsp::ide::access::{effective, RequestSpec};
use apache_lsp::ide::code_actions::{code_actions, fix_all, LoadContext};
use apache_lsp::ide::config::{self, Config, FileSource, IncludeError};
use apache_lsp::ide::migrate::Workspace;
use apache_lsp::ide::policy::{HostKnowledge, Request};
use apache_lsp::ide::{diagnostics, explain, hover, migrate};
use apache_syntax::{TextRange, TextSize};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

struct Mem(Vec<(PathBuf, Arc<str>)>);

impl FileSource for Mem {
    fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
        self.0
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| (t.clone(), None))
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "not in the fuzzer's memory"))
    }

    fn resolve_include(&self, full: &Path, _optional: bool) -> Result<Vec<PathBuf>, IncludeError> {
        // A wildcard matches the files in memory; a directory names those below it.
        let pattern = glob::Pattern::new(&full.to_string_lossy()).ok();
        let mut files: Vec<PathBuf> = self
            .0
            .iter()
            .map(|(p, _)| p.clone())
            .filter(|p| p == full || p.starts_with(full) || pattern.as_ref().is_some_and(|g| g.matches_path(p)))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(IncludeError::NoMatch(format!("nothing in memory matches {}", full.display())));
        }
        Ok(files)
    }
}

/// The directory holding the real .htaccess, created once per process.
fn htdocs() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("apache-lsp-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(d.join("htdocs/sub")).unwrap();
        std::fs::write(d.join("htdocs/sub/page.html"), "x").unwrap();
        d.join("htdocs")
    })
}

fn assert_in(cfg: &Config, file: config::FileId, r: TextRange, what: &str) {
    let text = &cfg.file(file).text;
    assert!(usize::from(r.end()) <= text.len(), "{what}: {r:?} past the end ({})", text.len());
    assert!(
        text.is_char_boundary(usize::from(r.start())) && text.is_char_boundary(usize::from(r.end())),
        "{what}: {r:?} not on character boundaries"
    );
}

fuzz_target!(|data: &[u8]| {
    let (input, _) = config::decode(data.to_vec());
    let mut parts = input.splitn(3, "\n%%\n");
    let (main_text, inc_text, ht_text) =
        (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let docroot = htdocs();
    std::fs::write(docroot.join(".htaccess"), ht_text).unwrap();
    let main_path = PathBuf::from("/fuzz/httpd.conf");
    let inc_path = PathBuf::from("/fuzz/conf.d/inc.conf");
    let main = format!(
        "LoadModule authz_core_module m.so\nDocumentRoot {0}\n<Directory {0}>\nAllowOverride All\n</Directory>\n{main_text}\nInclude conf.d/inc.conf\n",
        docroot.display()
    );
    let fs = Mem(vec![(main_path.clone(), Arc::from(main)), (inc_path.clone(), Arc::from(inc_text))]);
    let cfg = config::load(&main_path, &fs);
    // The sandbox: an access file name with a path could point anywhere.
    if cfg.walk().filter(|n| n.is("AccessFileName")).any(|n| n.args().any(|a| a.contains('/') || a == "..")) {
        return;
    }
    for d in diagnostics::all(&cfg) {
        assert_in(&cfg, d.file, d.range, "diagnostic");
        for r in &d.related {
            assert_in(&cfg, r.file, r.range, "related information");
        }
    }
    // A few requests, their effective policy and its explanation.
    for (path, client, user) in [
        ("/", "127.0.0.1", None),
        ("/sub/page.html", "10.1.2.3", Some("alice")),
        ("/sub/../%2e%2e/x?q", "::1", None),
        ("/server-status", "192.0.2.7", Some("bob")),
    ] {
        let client = client.parse().unwrap();
        let local = if matches!(client, std::net::IpAddr::V4(_)) { "127.0.0.1" } else { "::1" };
        let mut request = Request::new("GET", client, local.parse().unwrap());
        request.user = user.map(str::to_string);
        request.client_host = HostKnowledge::NoName;
        request.groups = Some(Default::default());
        let spec = RequestSpec { path: path.to_string(), host: Some("fuzz.example".into()), request };
        let _ = effective(&cfg, &spec);
        let e = explain::explain(&cfg, &spec);
        let _ = explain::to_text(&spec, &e);
        let _ = explain::to_json(&spec, &e);
    }
    // Hovers at a few offsets of each fuzzed file, spread by the input's length.
    for file in [cfg.file_id(&main_path), cfg.file_id(&inc_path)].into_iter().flatten() {
        let len = cfg.file(file).text.len();
        for k in 0..6 {
            let mut off = len * k / 5;
            while !cfg.file(file).text.is_char_boundary(off) {
                off -= 1;
            }
            if let Some((r, _md)) = hover::hover(&cfg, file, TextSize::from(off as u32)) {
                assert_in(&cfg, file, r, "hover");
            }
        }
        // Code actions where the middle offset is, the fix-all (every rewrite of the file,
        // each proved by the engine), each edit applied and the result reloaded.
        let lc = LoadContext { main: &main_path, is_main: true, fs: &fs };
        let mut mid = len / 2;
        while !cfg.file(file).text.is_char_boundary(mid) {
            mid -= 1;
        }
        let mut actions = code_actions(&cfg, &lc, file, TextRange::empty(TextSize::from(mid as u32)));
        actions.extend(fix_all(&cfg, &lc, file));
        for a in &actions {
            // Each edit lies in its file (a configuration file, or an .htaccess read per request).
            let mut pending: BTreeMap<PathBuf, Vec<&migrate::Edit>> = BTreeMap::new();
            for e in &a.edits {
                match cfg.file_id(&e.path) {
                    Some(f) => assert_in(&cfg, f, e.range, "code action edit"),
                    None => {
                        let text = std::fs::read_to_string(&e.path).unwrap_or_default();
                        assert!(usize::from(e.range.end()) <= text.len(), "edit past the end of {}", e.path.display());
                    }
                }
                pending.entry(e.path.to_path_buf()).or_default().push(e);
            }
            // The rewritten configuration loads and is checked like any other.
            let texts: BTreeMap<PathBuf, Arc<str>> = pending
                .into_iter()
                .map(|(p, edits)| {
                    let old: Arc<str> = match cfg.file_id(&p) {
                        Some(f) => cfg.file(f).text.clone(),
                        None => Arc::from(std::fs::read_to_string(&p).unwrap_or_default()),
                    };
                    (p, Arc::from(migrate::apply(&old, &edits)))
                })
                .collect();
            let ws = Workspace { main: &main_path, is_main: true, fs: &fs };
            let (after, _) = ws.load(&texts);
            let _ = diagnostics::all(&after);
        }
    }
    // The .htaccess file on its own, as a fragment.
    let ht = config::load_fragment(&docroot.join(".htaccess"), &config::RealFs);
    for d in diagnostics::all(&ht) {
        assert_in(&ht, d.file, d.range, "htaccess diagnostic");
    }
});
