//! The bundled example (`examples/legacy`, the README's first command): `check` reports its old
//! access rules without an error on any machine, and what its comments claim is what httpd
//! answers. For httpd the example is served from a temporary root: its absolute paths, port and
//! the lines the harness writes itself (Listen, LoadModule, PidFile, ErrorLog) are replaced.

use apache_lsp_e2e::explain::{explain_agrees_with_httpd, run};
use apache_lsp_e2e::httpd::{require_apache2, Httpd, HttpdConfig, Request};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/legacy")
}

/// Where the example's comments say to copy its document root to serve it.
const DOCROOT: &str = "/tmp/apache-lsp-example/htdocs";

/// The codes of a text report's findings (`file:line:col: severity[code]: …`), with their severity.
fn findings(report: &str) -> Vec<(String, String)> {
    report
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(": ")?;
            let (severity, rest) = rest.split_once('[')?;
            let (code, _) = rest.split_once(']')?;
            Some((severity.to_string(), code.to_string()))
        })
        .collect()
}

#[test]
fn check_reports_the_example_without_errors() {
    let dir = example();
    let (code, report) = run(&["check", dir.to_str().unwrap()]);
    let found = findings(&report);
    assert_eq!(code, 1, "warnings only, exit 1:\n{report}");
    assert!(found.iter().all(|(s, _)| s != "error"), "no error on any machine:\n{report}");
    for expected in ["deprecated-access", "mixed-access"] {
        assert!(found.iter().any(|(_, c)| c == expected), "{expected} in:\n{report}");
    }
    // Whether `Require local` in status.conf is defeated depends on the disk (its comment says so).
    let defeated = found.iter().any(|(_, c)| c == "defeated-require");
    assert_eq!(defeated, !Path::new(DOCROOT).is_dir(), "{report}");
}

#[test]
fn the_examples_claims_hold_on_httpd() {
    if !require_apache2() {
        return;
    }
    let dir = example();
    let read = |rel: &str| {
        std::fs::read_to_string(dir.join(rel))
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
            .replace(DOCROOT, "@DOCROOT@")
            .replace("*:8080", "*:@PORT@")
    };
    // The harness writes these itself (and its own password file, where `AuthUserFile htpasswd`
    // points: alice's password there is `apw`).
    let theirs = ["Listen ", "LoadModule ", "PidFile ", "ErrorLog ", "ServerName "];
    let body: String = read("apache2.conf")
        .lines()
        .filter(|l| !theirs.iter().any(|t| l.starts_with(t)))
        .map(|l| format!("{l}\n"))
        .collect();
    let cfg = HttpdConfig::new(body)
        .with_module("status")
        .file("conf-enabled/status.conf", read("conf-enabled/status.conf"))
        .file("sites-enabled/intranet.conf", read("sites-enabled/intranet.conf"));
    let httpd = Httpd::start(cfg).expect("start httpd on the example");
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    let host = "intranet.example.test";
    let requests = [
        Request::get("/").source(ip("127.0.0.1")).host(host),
        Request::get("/private/").source(ip("127.0.0.1")).host(host),
        Request::get("/private/").source(ip("127.0.0.1")).host(host).user("alice", "apw"),
        Request::get("/server-status").source(ip("127.0.0.1")).host(host),
        Request::get("/server-status").source(ip("127.0.0.2")).host(host),
    ];
    let statuses = explain_agrees_with_httpd(&httpd, &requests, false);
    // intranet.conf: "with Order allow,deny, `Deny from all` has the last word, so nobody gets in",
    // not even a valid user from the one address allowed.
    assert_eq!(statuses[1..3], [403, 403], "{statuses:?}");
    // status.conf: with the document root in place, its <Directory> opens it again and local
    // clients get the page.
    assert_eq!(statuses[3..5], [200, 200], "{statuses:?}");
    // And check, on the same files, no longer calls that Require defeated.
    let main = httpd.config().main_config_path();
    let (_, report) = run(&["check", main.to_str().unwrap()]);
    let found = findings(&report);
    assert!(!found.iter().any(|(_, c)| c == "defeated-require"), "{report}");
    assert!(found.iter().any(|(_, c)| c == "mixed-access"), "{report}");
    httpd.stop();
}
