//! `apache-lsp check` reads files with the flat parser (no syntax trees) for speed; the
//! language server reads them with the lossless tree parser. Both must give the checker the
//! same configuration: on a generated tree (`../shared/bench/gen_config.py`, seeded) and on a
//! hand-made tree full of broken syntax, the report in every format is byte for byte the same
//! with `APACHE_LSP_TREE_PARSE` set (the loader's switch back to the tree parser, for tests).
//! The generated tree needs `../shared` beside the project; it skips with a note otherwise.

use apache_lsp_e2e::lsp::server_binary;
use std::path::Path;
use std::process::Command;

/// The report of `check --format <format> <path>`, with the flat parser and with the tree
/// parser, and the exit codes.
fn both(path: &Path, format: &str) -> ((String, i32), (String, i32)) {
    let run = |tree: bool| {
        let mut cmd = Command::new(server_binary());
        cmd.args(["check", "--format", format]).arg(path);
        if tree {
            cmd.env("APACHE_LSP_TREE_PARSE", "1");
        } else {
            cmd.env_remove("APACHE_LSP_TREE_PARSE");
        }
        let out = cmd.output().expect("run apache-lsp check");
        (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
    };
    (run(false), run(true))
}

fn assert_same(path: &Path) {
    for format in ["json", "text", "sarif"] {
        let (flat, tree) = both(path, format);
        assert!(flat.1 == 0 || flat.1 == 1, "check failed ({}): {}", flat.1, flat.0);
        assert!(!flat.0.is_empty());
        assert_eq!(flat.1, tree.1, "exit codes differ ({format})");
        if flat.0 != tree.0 {
            let first = flat.0.lines().zip(tree.0.lines()).position(|(a, b)| a != b);
            panic!("{format} reports differ (first differing line: {first:?})");
        }
    }
}

#[test]
fn generated_tree_reports_alike_with_both_parsers() {
    let gen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench/gen_config.py");
    if !gen.exists() {
        eprintln!("note: {} is absent (../shared is not beside the project); test skipped", gen.display());
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("tree");
    let st = Command::new("python3").arg(&gen).args(["--vhosts", "40", "--out"]).arg(&root).status().expect("python3");
    assert!(st.success(), "gen_config.py failed");
    let (flat, _) = both(&root.join("apache2.conf"), "json");
    let reported: serde_json::Value = serde_json::from_str(&flat.0).expect("JSON report");
    assert!(reported.as_array().is_some_and(|a| a.len() > 40), "the generated tree has findings: {}", flat.0);
    assert_same(&root.join("apache2.conf"));
}

#[test]
fn broken_syntax_reports_alike_with_both_parsers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let main = root.join("httpd.conf");
    std::fs::write(
        &main,
        format!(
            "LoadModule authz_core_module m.so\nLoadModule access_compat_module m.so\nServerRoot {}\n\
             Define X \"v w\"\nInclude conf.d/*.conf\n<Directory /srv>\n  Order allow,deny\n  Allow from \\\n    10.0.0.0/8 \\\n\
             \x20   ${{X}}\n  Require all granted\n</Directory>\n<Location /a>\n<Files x>\n</Location>\n</Files>\n\
             <IfModule nosuch_module>\n  Deny from all\n</IfModule>\n<Directory\n</Directory>\nRequire all\0denied\n\
             <VirtualHost *:80>\r\n  ServerName é.example\r\n  <Directory \"/srv/é\">\r\n    Deny from all\r\n    Require ip 10.1\r\n  </Directory>\r\n",
            root.display()
        ),
    )
    .unwrap();
    std::fs::create_dir(root.join("conf.d")).unwrap();
    std::fs::write(
        root.join("conf.d/a.conf"),
        "<Location />\n  Satisfy any\n  Require valid-user\n</Location>\n</Nope>\n",
    )
    .unwrap();
    std::fs::write(root.join("conf.d/b.conf"), "Include conf.d/b.conf\n<RequireAll x>\n</RequireAll>\n").unwrap();
    assert_same(&main);
}
