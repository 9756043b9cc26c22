//! Running `apache-lsp explain` beside a live httpd: the same request asked of both.

use crate::httpd::{Httpd, Request, USERS};
use crate::lsp::server_binary;
use serde_json::Value;
use std::process::Command;

/// `apache-lsp ARGS`: its exit code and standard output (standard error is printed when the
/// code is not 0).
pub fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(server_binary()).args(args).output().expect("run apache-lsp");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let code = out.status.code().unwrap_or(-1);
    if code != 0 {
        eprintln!("stderr: {}", String::from_utf8_lossy(&out.stderr));
    }
    (code, text)
}

/// `apache-lsp ARGS` with a JSON report, which must exit 0.
pub fn json(args: &[&str]) -> Value {
    let (code, text) = run(args);
    assert_eq!(code, 0, "{args:?}:\n{text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Sends each request to `httpd` and asks explain the same one (`--client`, `--port`,
/// `--method`, and with `tell_headers` `--only-headers` with the headers the request carries;
/// credentials are `--user NAME` when the harness's password file holds them, else
/// `--wrong-password`): a status explain states as certain must be httpd's, and an unknown one
/// (or "access granted") must list httpd's among the possible statuses. Returns httpd's statuses.
pub fn explain_agrees_with_httpd(httpd: &Httpd, requests: &[Request], tell_headers: bool) -> Vec<u16> {
    compare(httpd, requests, tell_headers, false)
}

/// [`explain_agrees_with_httpd`] (told the headers) where explain must state httpd's status as
/// certain for every request (no "unknown", no "access granted" with a list).
pub fn explain_states_httpds_status(httpd: &Httpd, requests: &[Request]) -> Vec<u16> {
    compare(httpd, requests, true, true)
}

fn compare(httpd: &Httpd, requests: &[Request], tell_headers: bool, certain: bool) -> Vec<u16> {
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let port = httpd.port().to_string();
    let mut seen = Vec::new();
    for r in requests {
        let real = httpd.send(r).unwrap_or_else(|e| panic!("{r:?}: {e}"));
        seen.push(real);
        let client = r.source.to_string();
        let mut args: Vec<String> =
            ["explain", conf, &r.path, "--format", "json", "--client", &client, "--port", &port]
                .iter()
                .map(|s| s.to_string())
                .collect();
        args.extend(["--method".into(), r.method.clone()]);
        if let Some(host) = &r.host {
            args.extend(["--host".into(), host.clone()]);
        }
        if tell_headers {
            args.push("--only-headers".into());
        }
        for (k, v) in r.headers_sent().into_iter().filter(|(k, _)| tell_headers && k != "Authorization") {
            args.extend(["--header".into(), format!("{k}:{v}")]);
        }
        match &r.credentials {
            Some((user, password)) if USERS.contains(&(user.as_str(), password.as_str())) => {
                args.extend(["--user".into(), user.clone()])
            }
            Some(_) => args.push("--wrong-password".into()),
            None => {}
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let v = json(&args);
        let possible = v["possible_statuses"].as_array().cloned().unwrap_or_default();
        let what = format!(
            "{} {} from {client} {:?} as {:?}: httpd {real}\n{v:#}",
            r.method, r.path, r.headers, r.credentials
        );
        if !certain && (v["status"].is_null() || v["status_from"] == "access-granted") {
            assert!(possible.contains(&Value::from(real)), "{what}");
        } else {
            assert_eq!(v["status"], real, "{what}");
        }
    }
    seen
}
