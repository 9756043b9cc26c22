//! `apache-lsp explain` on the real binary: `--log-line` / `--log-file` fed with the lines the
//! real httpd wrote into its error log, the host-name options, and the SetEnvIf inputs
//! (`--header`, `--only-headers`, `--env`).
//!
//! For the log: one httpd serves a configuration with a refusal of each kind (an old-style Deny,
//! a Require, a `<Files>` refusal reached through a directory URL, an Alias, a virtual host, a
//! user failing `Require user`, a non-ASCII directory). The test sends the requests, takes the
//! error-log lines httpd wrote for each, and checks that the binary recovers the client, the
//! path, the layer, a URL that reproduces the entry and the refusing rule's line; then that
//! `--log-file` counts the refusals per rule. Skips (with a note) when apache2 is not installed.

use apache_lsp_e2e::explain::{explain_agrees_with_httpd, explain_states_httpds_status, json, run};
use apache_lsp_e2e::httpd::{config_test, require_apache2, Httpd, HttpdConfig, Request};
use apache_lsp_e2e::lsp::server_binary;
use serde_json::Value;
use std::net::IpAddr;
use std::path::Path;
use std::process::Command;

/// The 1-based line of the main configuration file holding `needle`.
fn line_of(config: &str, needle: &str) -> u64 {
    config.lines().position(|l| l.contains(needle)).map(|i| i as u64 + 1).unwrap_or_else(|| panic!("{needle}"))
}

const BODY: &str = "Alias /pics/ @ROOT@/pictures/
<Directory @DOCROOT@>
    Require all granted
</Directory>
<Directory @DOCROOT@/old>
    Order allow,deny
    Allow from 127.0.0.1
</Directory>
<Directory @DOCROOT@/new>
    Require ip 127.0.0.2
</Directory>
<Directory @DOCROOT@/idx>
    <Files index.html>
        Require all denied
    </Files>
</Directory>
<Directory @ROOT@/pictures>
    <RequireAll>
        Require all granted
        Require not ip 127.0.0.3
    </RequireAll>
</Directory>
<Directory @DOCROOT@/café>
    Require ip 10.9.9.9
</Directory>
<Directory @DOCROOT@/auth>
    AuthType Basic
    AuthName auth
    AuthUserFile @ROOT@/htpasswd
    Require user bob
</Directory>
<VirtualHost 127.0.0.1:@PORT@>
    ServerName vh.test
    <Location /vh-only>
        Order deny,allow
        Deny from 127.0.0.2
    </Location>
</VirtualHost>
";

/// (request, the config text of the refusing rule, the URL that reproduces the entry, code)
fn refusals() -> Vec<(Request, &'static str, &'static str, &'static str)> {
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    vec![
        (Request::get("/old/index.html").source(ip("127.0.0.2")), "Order allow,deny", "/old/index.html", "AH01797"),
        (Request::get("/new/index.html").source(ip("127.0.0.1")), "Require ip 127.0.0.2", "/new/index.html", "AH01630"),
        (Request::get("/idx/").source(ip("127.0.0.1")), "Require all denied", "/idx/", "AH01630"),
        (Request::get("/pics/a.png").source(ip("127.0.0.3")), "Require not ip 127.0.0.3", "/pics/a.png", "AH01630"),
        // Caf\xc3\xa9 in the log.
        (
            Request::get("/caf%C3%A9/index.html").source(ip("127.0.0.1")),
            "Require ip 10.9.9.9",
            "/café/index.html",
            "AH01630",
        ),
        (
            Request::get("/auth/index.html").source(ip("127.0.0.1")).user("alice", "apw"),
            "Require user bob",
            "/auth/index.html",
            "AH01631",
        ),
        (
            Request::get("/vh-only").source(ip("127.0.0.2")).host("vh.test"),
            "Deny from 127.0.0.2",
            "/vh-only",
            "AH01797",
        ),
    ]
}

#[test]
fn log_lines_written_by_httpd_are_explained() {
    if !require_apache2() {
        return;
    }
    let cfg = HttpdConfig::new(BODY)
        .file("htdocs/old/index.html", "x\n")
        .file("htdocs/new/index.html", "x\n")
        .file("htdocs/idx/index.html", "x\n")
        .file("htdocs/café/index.html", "x\n")
        .file("htdocs/auth/index.html", "x\n")
        .file("pictures/a.png", "x\n");
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    let conf_path = httpd.config().main_config_path();
    let conf = conf_path.to_str().unwrap().to_owned();
    let conf_text = std::fs::read_to_string(&conf_path).unwrap();
    let mut all_lines = Vec::new();
    for (req, rule, url, code) in refusals() {
        let (status, log) = httpd.send_logged(&req).unwrap();
        assert!(status == 403 || status == 401, "{} {}: {status}\n{log}", req.method, req.path);
        let line = log
            .lines()
            .find(|l| l.contains(code))
            .unwrap_or_else(|| panic!("no {code} for {}: {log}", req.path))
            .to_owned();
        all_lines.push(line.clone());
        let v = json(&["explain", &conf, "--log-line", &line, "--format", "json"]);
        let entry = &v["entry"];
        assert_eq!(entry["code"], code, "{v:#}");
        assert_eq!(entry["client"], req.source.to_string(), "{v:#}");
        if code != "AH01631" {
            let path = entry["filesystem_path"].as_str().unwrap_or_else(|| panic!("no path: {v:#}"));
            assert!(Path::new(path).is_absolute() && !path.contains("\\x"), "{path}");
        }
        let layer = if code == "AH01797" { "mod_access_compat (Order/Allow/Deny)" } else { "mod_authz_core (Require)" };
        assert_eq!(entry["layer"], layer);
        let candidates = v["candidates"].as_array().unwrap();
        let found = candidates
            .iter()
            .find(|c| c["reproduces"] == true && c["url"] == url)
            .unwrap_or_else(|| panic!("no candidate {url} reproduces {line}:\n{v:#}"));
        let deciding = &found["explain"]["deciding"];
        assert_eq!(deciding["line"], line_of(&conf_text, rule), "{line}\n{:#}", found["explain"]);
        assert_eq!(deciding["file"], conf.as_str());
        assert!(found["refusing_section"].as_str().is_some_and(|s| s.starts_with('<')), "{found:#}");
        if url == "/vh-only" {
            assert!(found["virtual_host"].as_str().is_some_and(|h| h.contains("vh.test")), "{found:#}");
        }
        // The text form names the rule and its place.
        let (_, text) = run(&["explain", &conf, "--log-line", &line]);
        assert!(text.contains(&format!("{conf}:{}", line_of(&conf_text, rule))), "{text}");
        assert!(text.contains("reproduces this entry"), "{text}");
    }
    // The whole log: every refusal mapped, counted under its rule.
    for (req, ..) in refusals().into_iter().take(2) {
        httpd.send(&req).unwrap();
    }
    let log_path = httpd.config().error_log_path();
    // mod_log_config / the error log are written before the response; still, wait for the lines.
    let v = json(&["explain", &conf, "--log-file", log_path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(v["refusals"], 9, "{v:#}");
    assert_eq!(v["unmapped"].as_array().unwrap().len(), 0, "{v:#}");
    let groups = v["groups"].as_array().unwrap();
    let count_of = |rule: &str| {
        let at = format!("{conf}:{}", line_of(&conf_text, rule));
        groups.iter().find(|g| g["rule_at"] == at.as_str()).map(|g| g["count"].as_u64().unwrap()).unwrap_or(0)
    };
    assert_eq!(count_of("Order allow,deny"), 2, "{v:#}");
    assert_eq!(count_of("Require ip 127.0.0.2"), 2, "{v:#}");
    assert_eq!(count_of("Require user bob"), 1, "{v:#}");
    assert_eq!(groups.iter().map(|g| g["count"].as_u64().unwrap()).sum::<u64>(), 9);
    let (_, text) = run(&["explain", &conf, "--log-file", log_path.to_str().unwrap()]);
    assert!(text.contains("9 refusals"), "{text}");
    assert!(text.contains("2 × <Directory"), "{text}");
}

/// Host-name rules in `explain`: the name given with --client-host, the system resolver's
/// answer (127.0.0.1 is `localhost` in Debian's /etc/hosts), and --no-dns.
#[test]
fn explain_resolves_host_names_or_takes_them_given() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("www");
    std::fs::create_dir_all(root.join("h")).unwrap();
    std::fs::write(root.join("h/x"), "x\n").unwrap();
    let conf = dir.path().join("httpd.conf");
    std::fs::write(
        &conf,
        format!(
            "LoadModule authz_core_module m\nLoadModule authz_host_module m\nDocumentRoot {}\n<Directory {}/h>\n  Require host localhost\n</Directory>\n",
            root.display(),
            root.display()
        ),
    )
    .unwrap();
    let conf = conf.to_str().unwrap();
    let status = |args: &[&str]| {
        let mut a = vec!["explain", conf, "/h/x", "--format", "json"];
        a.extend_from_slice(args);
        json(&a)["status"].clone()
    };
    assert_eq!(status(&["--client-host", "localhost"]), 200);
    assert_eq!(status(&["--client-host", "www.localhost"]), 200);
    assert_eq!(status(&["--client-host", "calhost"]), 403);
    assert_eq!(status(&["--no-dns"]), Value::Null);
    // Real resolution, as httpd's double-reverse lookup would find it.
    let expected = match apache_lsp::cli::resolve_double_reverse("127.0.0.1".parse().unwrap()) {
        apache_lsp::ide::policy::HostKnowledge::Known(n) if apache_lsp::ide::policy::in_domain("localhost", &n) => 200,
        _ => 403,
    };
    eprintln!("127.0.0.1 resolves here to a name matching `localhost`: {}", expected == 200);
    assert_eq!(status(&["--client", "127.0.0.1"]), expected);
    // 127.0.0.2 has no name in /etc/hosts: denied, with httpd's AH01753.
    let v = json(&["explain", conf, "/h/x", "--client", "127.0.0.2", "--format", "json"]);
    if v["status"] == 403 {
        assert!(v["error_log"].as_array().unwrap().iter().any(|e| e["code"] == "AH01753"), "{v:#}");
    }
}

/// SetEnvIf inputs: headers given or not, `--only-headers`, `--env` overriding.
#[test]
fn explain_evaluates_setenvif_from_the_headers_given() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("www");
    std::fs::create_dir_all(root.join("e")).unwrap();
    std::fs::write(root.join("e/x"), "x\n").unwrap();
    let conf = dir.path().join("httpd.conf");
    std::fs::write(
        &conf,
        format!(
            "LoadModule authz_core_module m\nLoadModule setenvif_module m\nDocumentRoot {root}\n\
SetEnvIf X-Token ^s$ TOK\nBrowserMatch ^curl CURL\n<Directory {root}/e>\n  Require env TOK CURL\n</Directory>\n",
            root = root.display()
        ),
    )
    .unwrap();
    let conf = conf.to_str().unwrap();
    let explain = |args: &[&str]| {
        let mut a = vec!["explain", conf, "/e/x", "--format", "json"];
        a.extend_from_slice(args);
        json(&a)
    };
    let v = explain(&[]);
    assert_eq!(v["status"], Value::Null, "{v:#}");
    assert!(v["reason"].as_str().is_some_and(|r| r.contains("--header")), "{v:#}");
    assert_eq!(explain(&["--header", "X-Token: s"])["status"], 200);
    assert_eq!(explain(&["--header", "User-Agent: curl/8.5"])["status"], 200);
    assert_eq!(explain(&["--only-headers"])["status"], 403);
    assert_eq!(explain(&["--only-headers", "--header", "x-token:s"])["status"], 200);
    assert_eq!(explain(&["--only-headers", "--env", "TOK=1"])["status"], 200);
    assert_eq!(
        explain(&["--header", "X-Token: s", "--header", "User-Agent: x", "--env", "!TOK", "--only-headers"])["status"],
        403
    );
    let v = explain(&["--header", "X-Token: s"]);
    let env = v["environment"].as_array().unwrap();
    assert!(env.iter().any(|e| e["name"] == "TOK" && e["state"] == "set" && e["set_by"]["line"] == 4), "{v:#}");
    let (code, _) = run(&["explain", conf, "/e/x", "--header", "no colon"]);
    assert_eq!(code, 2);
}

/// The URL argument as an absolute URL: its host picks the virtual host over the Host
/// header (httpd replaces the header with it), its port is the connection's; a Host header's
/// port and trailing dot do not count. Each request is sent to httpd as written (an
/// absolute-form request target where the URL is one) and explain must give its status.
#[test]
fn explain_takes_absolute_urls_and_host_headers_as_httpd_does() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName open.test\n</VirtualHost>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName closed.test\n    <Location />\n        Require all denied\n    </Location>\n</VirtualHost>\n";
    let httpd = Httpd::start(HttpdConfig::new(body).file("htdocs/index.html", "x\n")).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let port = httpd.port();
    let cases: Vec<(String, &str, u16)> = vec![
        ("http://closed.test/index.html".into(), "open.test", 403),
        ("http://open.test/index.html".into(), "closed.test", 200),
        (format!("http://CLOSED.test:{port}/index.html"), "open.test", 403),
        (format!("http://closed.test.:{port}"), "open.test", 403),
        ("/index.html".into(), "closed.test.", 403),
        ("/index.html".into(), "Closed.Test:1234", 403),
        ("/index.html".into(), "open.test", 200),
    ];
    for (target, host, expected) in cases {
        let real = httpd.send(&Request::get(&target).host(host)).unwrap_or_else(|e| panic!("{target}: {e}"));
        assert_eq!(real, expected, "httpd, {target} with Host {host}");
        let v = json(&["explain", conf, &target, "--host", host, "--format", "json"]);
        assert_eq!(v["status"], real, "explain {target} --host {host}:\n{v:#}");
    }
    // Targets httpd answers 400: neither a path nor an absolute URL, or naming a user.
    for target in ["index.html".to_string(), format!("http://user@closed.test:{port}/")] {
        assert_eq!(httpd.send(&Request::get(&target)), Ok(400), "{target}");
        let (code, _) = run(&["explain", conf, &target]);
        assert_eq!(code, 2, "explain {target}");
    }
}

/// The virtual host is picked among those for the connection's address and port first, as
/// httpd's `ap_update_vhost_given_ip` does: the `127.0.0.1:PORT` ones, else the `*:PORT` ones,
/// else the main server. The port is the one the configuration listens on (`--port` gives
/// another); a `*:PORT` vhost does not serve a request that reached the `127.0.0.1:PORT` set,
/// and a vhost on a port httpd does not listen on serves nothing.
#[test]
fn explain_picks_virtual_hosts_by_the_connections_address_and_port() {
    if !require_apache2() {
        return;
    }
    let ip_set = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<VirtualHost *:@PORT@>\n    ServerName star.test\n    <Location />\n        Require all denied\n    </Location>\n</VirtualHost>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName ip.test\n</VirtualHost>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName ip-closed.test\n    <Location />\n        Require all denied\n    </Location>\n</VirtualHost>\n";
    let other_port = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<VirtualHost *:19999>\n    ServerName other.test\n    <Location />\n        Require all denied\n    </Location>\n</VirtualHost>\n";
    for (body, hosts) in [
        (ip_set, &["star.test", "ip.test", "ip-closed.test", "unknown.test", "localhost"][..]),
        (other_port, &["other.test", "localhost"][..]),
    ] {
        let httpd =
            Httpd::start(HttpdConfig::new(body).file("htdocs/index.html", "x\n")).unwrap_or_else(|e| panic!("{e}"));
        let conf = httpd.config().main_config_path();
        let conf = conf.to_str().unwrap();
        let port = httpd.port().to_string();
        for host in hosts {
            let real = httpd.send(&Request::get("/index.html").host(host)).unwrap_or_else(|e| panic!("{host}: {e}"));
            let v = json(&["explain", conf, "/index.html", "--host", host, "--format", "json"]);
            assert_eq!(v["status"], real, "explain /index.html --host {host}:\n{v:#}");
            assert_eq!(v["local_port"], httpd.port(), "{v:#}");
            assert_eq!(v["local_port_unknown"], Value::Null, "{v:#}");
            let given = json(&["explain", conf, "/index.html", "--host", host, "--port", &port, "--format", "json"]);
            assert_eq!(given["status"], real, "explain /index.html --host {host} --port {port}:\n{given:#}");
        }
    }
}

/// Targets httpd answers before walking any section (`ap_process_request_internal`): a `..`
/// above the root or a bad `%` escape (400, AH10244 in the error log), `%2F` under the default
/// AllowEncodedSlashes Off and `%00` (404). explain gives httpd's status and its log entry, and
/// no section (at LogLevel info too, where httpd logs AH00026 for `%2F`); `AllowEncodedSlashes
/// On` lets `%2F` through to the walk.
#[test]
fn explain_answers_targets_httpd_refuses_before_the_walk() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/sub>\n    Require all denied\n</Directory>\n";
    let targets = [
        "/../index.html",
        "/sub/../../index.html",
        "/%2e%2e/index.html",
        "/.%2E/index.html",
        "/sub/%",
        "/index.html%zz",
        "/sub%2fi.html",
        "/sub%2Fi.html?x=%zz",
        "/index.html%00",
        "/sub/../index.html",
        "/%69ndex.html",
        "/index.html?q=%zz",
    ];
    for (allow, level) in [("", "warn"), ("AllowEncodedSlashes On\n", "warn"), ("", "info")] {
        let config = HttpdConfig::new(format!("{allow}{body}"))
            .log_level(level)
            .file("htdocs/index.html", "x\n")
            .file("htdocs/sub/i.html", "x\n");
        let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
        let conf = httpd.config().main_config_path();
        let conf = conf.to_str().unwrap();
        for target in targets {
            let (real, log) = httpd.send_logged(&Request::get(target)).unwrap_or_else(|e| panic!("{target}: {e}"));
            let v = json(&["explain", conf, target, "--format", "json"]);
            assert_eq!(v["status"], real, "{allow}explain {target}:\n{v:#}");
            if v["rejected_before_walk"].is_null() {
                assert!(real == 200 || real == 403, "{allow}{target}: {real}");
                continue;
            }
            assert_eq!(v["sections"], Value::Array(vec![]), "{target}:\n{v:#}");
            assert_eq!(v["filesystem_path"], Value::Null, "{target}:\n{v:#}");
            // What explain says httpd logs (at this LogLevel) is what it logged.
            let logged: Vec<&Value> =
                v["error_log"].as_array().unwrap().iter().filter(|e| e["logged"] == true).collect();
            // The request's entries (startup notices may be written after the first request).
            let entries = log.lines().filter(|l| l.contains("[client ")).count();
            assert_eq!(logged.len(), entries, "{target}: httpd logged {log:?}; explain {v:#}");
            for e in logged {
                let (module, level) = (e["module"].as_str().unwrap(), e["level"].as_str().unwrap());
                let (code, message) = (e["code"].as_str().unwrap(), e["message"].as_str().unwrap());
                let found = log
                    .lines()
                    .any(|l| l.contains(&format!("[{module}:{level}]")) && l.ends_with(&format!("{code}: {message}")));
                assert!(found, "{target}: explain's {e} not in httpd's log {log:?}");
            }
        }
    }
}

/// Under `AllowEncodedSlashes NoDecode` httpd maps the path with `%2F` still encoded, which the
/// walk does not model: explain says the status is unknown, httpd's among the possible ones.
#[test]
fn explain_does_not_guess_encoded_slashes_kept_encoded() {
    if !require_apache2() {
        return;
    }
    let body = "AllowEncodedSlashes NoDecode\n<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/sub>\n    Require all denied\n</Directory>\n";
    let config = HttpdConfig::new(body).file("htdocs/sub/i.html", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for target in ["/sub%2fi.html", "/sub%2Fi.html"] {
        let real = httpd.send(&Request::get(target)).unwrap_or_else(|e| panic!("{target}: {e}"));
        let v = json(&["explain", conf, target, "--format", "json"]);
        assert_eq!(v["status"], Value::Null, "{target}: httpd {real}\n{v:#}");
        assert!(
            v["possible_statuses"].as_array().unwrap().contains(&Value::from(real)),
            "{target}: httpd {real}\n{v:#}"
        );
        assert!(v["reason"].as_str().unwrap().contains("NoDecode"), "{v:#}");
    }
}

/// Once access passes, the file system answers where only core's default handler and mod_dir
/// can: 404 for a missing file (AH00128), PATH_INFO after a file (AH00130) or a directory with
/// no index file and no mod_autoindex (AH00129), 301 for a
/// directory without its trailing slash (404 under DirectorySlash Off, which leaves the
/// directory to the default handler), 200 for a file or a DirectoryIndex file. Where a handler
/// may answer (SetHandler, AddHandler for the file's extension), explain says access is granted,
/// does not claim the handler's status, and lists httpd's among the possible ones.
#[test]
fn explain_predicts_what_the_file_system_answers_once_access_passes() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/noslash>\n    DirectorySlash Off\n</Directory>\n\
<Location /status>\n    SetHandler server-status\n</Location>\n\
AddHandler server-status .stat\n";
    let config = HttpdConfig::new(body)
        .log_level("info")
        .file("htdocs/index.html", "x\n")
        .file("htdocs/d/index.html", "x\n")
        .file("htdocs/sub/i.html", "x\n")
        .file("htdocs/noslash/i.html", "x\n")
        .file("htdocs/e/i.html", "x\n")
        .file("htdocs/page.stat", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let file = [
        "/missing.html",
        "/index.html",
        "/index.html/extra",
        "/d",
        "/d?x=1",
        "/d/",
        "/D/index.html",
        "/sub/i.html.",
        "/sub/missing/x",
        "/",
        "/e/",
        "/noslash",
    ];
    let handled = ["/status", "/page.stat"];
    for target in file.iter().chain(&handled) {
        let (real, log) = httpd.send_logged(&Request::get(target)).unwrap_or_else(|e| panic!("{target}: {e}"));
        let v = json(&["explain", conf, target, "--format", "json"]);
        if handled.contains(target) {
            assert_eq!(v["status_from"], "access-granted", "{target}: httpd {real}\n{v:#}");
            assert!(v["handler_unknown_because"].is_string(), "{v:#}");
            assert_eq!(v["status"], 200, "{v:#}");
            let possible = v["possible_statuses"].as_array().unwrap();
            assert!(possible.contains(&Value::from(real)), "{target}: httpd {real}\n{v:#}");
            continue;
        }
        assert_eq!(v["status"], real, "explain {target}:\n{v:#}");
        assert_eq!(v["status_from"], "file", "{target}:\n{v:#}");
        // The default handler's entries (info level) are the ones httpd wrote.
        for e in v["error_log"].as_array().unwrap() {
            let (code, message) = (e["code"].as_str().unwrap(), e["message"].as_str().unwrap());
            let found = log.lines().any(|l| l.contains("[core:info]") && l.ends_with(&format!("{code}: {message}")));
            assert!(found, "{target}: explain's {e} not in httpd's log {log:?}");
        }
    }
}

/// A DirectoryIndex inside `<If>`: httpd serves the `<If>`'s index where its expression holds
/// (other.html for `/`), the section's own list elsewhere. explain evaluates the expression on
/// the request's own URI (the index subrequest evaluates it again on its own): it names
/// other.html, never the index.html the section's own list would serve; on a header it is not
/// told, the status is unknown, 200 among the possible ones, and no index file is named.
#[test]
fn a_directory_index_inside_if_is_not_guessed() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n    DirectoryIndex index.html\n    <If \"%{REQUEST_URI} == '/' || %{HTTP:X-Other} == 'y'\">\n        DirectoryIndex other.html\n    </If>\n</Directory>\n";
    let config =
        HttpdConfig::new(body).file("htdocs/index.html", "A\n").file("htdocs/other.html", "B\n").dir("htdocs/sub");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let real = httpd.fetch(&Request::get("/")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((real.status, real.body.as_slice()), (200, &b"B\n"[..]), "httpd serves the <If>'s index");
    let conf = httpd.config().main_config_path();
    let v = json(&["explain", conf.to_str().unwrap(), "/", "--format", "json"]);
    assert_eq!(v["status"], 200, "{v:#}");
    assert!(v.to_string().contains("other.html") && !v.to_string().contains("index.html"), "{v:#}");
    let real = httpd.send(&Request::get("/sub/")).unwrap_or_else(|e| panic!("{e}"));
    let v = json(&["explain", conf.to_str().unwrap(), "/sub/", "--format", "json"]);
    assert!(v["status"].is_null(), "{v:#}");
    assert!(v["possible_statuses"].as_array().unwrap().contains(&real.into()), "httpd {real}: {v:#}");
    assert!(v["possible_statuses"].as_array().unwrap().contains(&200.into()), "{v:#}");
    assert!(v["reason"].as_str().unwrap().contains("(holding DirectoryIndex) are not evaluated"), "{v:#}");
    assert!(!v.to_string().contains("index.html"), "no index file named: {v:#}");
}

/// Regex `<Directory>` sections are merged in the order httpd sorts them: by the number of `/`
/// in their expression, then in configuration order (`server/core.c: reorder_sorter`), so a
/// later section with fewer slashes is merged first and the earlier one has the last word.
#[test]
fn regex_directory_sections_merge_by_slash_count() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<DirectoryMatch \"^@DOCROOT@/sub\">\n    Order allow,deny\n    Allow from 127.0.0.1\n</DirectoryMatch>\n\
<DirectoryMatch \"deeper\">\n    Order allow,deny\n    Allow from 127.0.0.2\n</DirectoryMatch>\n\
<DirectoryMatch \"^@DOCROOT@/sub/other\">\n    Order allow,deny\n    Allow from 127.0.0.3\n</DirectoryMatch>\n\
<DirectoryMatch \"^@DOCROOT@/sub/oth\">\n    Order allow,deny\n    Allow from 127.0.0.2\n</DirectoryMatch>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName vh.test\n    <DirectoryMatch \"/other\">\n        Order allow,deny\n        Allow from 127.0.0.1\n    </DirectoryMatch>\n</VirtualHost>\n";
    let httpd = Httpd::start(
        HttpdConfig::new(body).file("htdocs/sub/deeper/index.html", "x\n").file("htdocs/sub/other/index.html", "x\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let mut statuses = std::collections::BTreeSet::new();
    for path in ["/sub/deeper/index.html", "/sub/other/index.html"] {
        for host in ["localhost", "vh.test"] {
            for client in ["127.0.0.1", "127.0.0.2", "127.0.0.3"] {
                let real = httpd.send(&Request::get(path).host(host).source(client.parse().unwrap())).unwrap();
                let v = json(&["explain", conf, path, "--client", client, "--host", host, "--format", "json"]);
                assert_eq!(v["status"], real, "{path} from {client} on {host}:\n{v:#}");
                statuses.insert(real);
            }
        }
    }
    assert!(statuses.contains(&200) && statuses.contains(&403), "{statuses:?}");
}

/// An `<If>` holding access rules leaves the status unknown; the statuses said possible
/// include httpd's answer whether its expression holds or not.
#[test]
fn statuses_possible_under_an_if_include_httpds_answer() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all denied\n</Directory>\n\
<If \"-n %{HTTP:X-Go}\">\n    Require all granted\n</If>\n\
<Location /loc>\n    <If \"%{REQUEST_METHOD} == 'POST'\">\n        Require all granted\n    </If>\n</Location>\n";
    let httpd =
        Httpd::start(HttpdConfig::new(body).file("htdocs/index.html", "x\n").file("htdocs/loc/index.html", "x\n"))
            .unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (path, go) in
        [("/index.html", true), ("/index.html", false), ("/loc/index.html", true), ("/loc/index.html", false)]
    {
        let mut req = Request::get(path);
        if go {
            req = req.header("X-Go", "1");
        }
        let real = httpd.send(&req).unwrap();
        seen.insert(real);
        let v = json(&["explain", conf, path, "--format", "json"]);
        assert_eq!(v["status"], Value::Null, "{v:#}");
        let possible: Vec<u64> = v["possible_statuses"].as_array().unwrap().iter().filter_map(Value::as_u64).collect();
        assert!(possible.contains(&u64::from(real)), "{path} (X-Go: {go}): httpd {real}, possible {possible:?}");
    }
    assert_eq!(seen, [200, 403].into(), "both branches reached");
}

/// Round two of black-box findings: path info of a bare slash after a file (404), the file
/// system's answer among the statuses possible under an `<If>` (404 for a missing file, 301 for a
/// directory without its slash), and under `AllowEncodedSlashes NoDecode` the answer for the name
/// httpd maps with `%2F` kept as text (a `<DirectoryMatch>` on it refuses).
#[test]
fn statuses_possible_include_what_the_file_system_and_kept_slashes_give() {
    if !require_apache2() {
        return;
    }
    let body = "AllowEncodedSlashes NoDecode\n<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<DirectoryMatch \"\\.txt$\">\n    Require all denied\n</DirectoryMatch>\n\
<Location /cond>\n    <If \"%{QUERY_STRING} == 'x'\">\n        Require all denied\n    </If>\n</Location>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/index.html", "x\n")
        .file("htdocs/cond/d/index.html", "x\n")
        .file("htdocs/cond/index.html", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    // Known: a bare slash after a file is path info the default handler refuses.
    let real = httpd.send(&Request::get("/index.html/")).unwrap();
    assert_eq!(real, 404);
    assert_eq!(json(&["explain", conf, "/index.html/", "--format", "json"])["status"], real);
    // Unknown: httpd's answer is among those said possible.
    for target in ["/cond/missing", "/cond/d", "/cond/index.html", "/a%2Fb.txt", "/a%2fb.html"] {
        let real = httpd.send(&Request::get(target)).unwrap();
        let v = json(&["explain", conf, target, "--format", "json"]);
        assert_eq!(v["status"], Value::Null, "{target}: httpd {real}\n{v:#}");
        let possible: Vec<u64> = v["possible_statuses"].as_array().unwrap().iter().filter_map(Value::as_u64).collect();
        assert!(possible.contains(&u64::from(real)), "{target}: httpd {real}, possible {possible:?}");
    }
}

/// Methods other than GET once access passes, where only core's default handler and mod_dir
/// answer: POST is served as GET (a file 200, a missing one 404), OPTIONS 200 for any path, PUT,
/// DELETE and the other methods httpd knows (or a `<Limit>` registers) 405, a method httpd does
/// not know 501 (AH00135); a directory without its slash is redirected (301) whatever the
/// method. TRACE is answered before any section is walked: 200 under the default
/// `TraceEnable On`, even where access is denied, 405 under `TraceEnable Off`.
#[test]
fn explain_predicts_what_the_default_handler_answers_each_method() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/private>\n    Require all denied\n</Directory>\n\
<Location /brew>\n    <Limit BREW>\n        Require all granted\n    </Limit>\n</Location>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName notrace.test\n    TraceEnable Off\n</VirtualHost>\n";
    let config = HttpdConfig::new(body)
        .log_level("info")
        .file("htdocs/d/index.html", "x\n")
        .file("htdocs/e/i.html", "x\n")
        .file("htdocs/brew/index.html", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let paths = ["/index.html", "/missing", "/d", "/d/", "/e/", "/index.html/x", "/private/index.html", "/brew/"];
    let methods = ["POST", "OPTIONS", "PUT", "DELETE", "PATCH", "PROPFIND", "BREW", "FOO", "TRACE"];
    let mut seen = std::collections::BTreeSet::new();
    for host in ["localhost", "notrace.test"] {
        for method in methods {
            for path in paths {
                let req = Request::new(method, path).host(host);
                let (real, log) = httpd.send_logged(&req).unwrap_or_else(|e| panic!("{method} {path}: {e}"));
                seen.insert(real);
                let v = json(&["explain", conf, path, "--method", method, "--host", host, "--format", "json"]);
                assert_eq!(v["status"], real, "{method} {path} (Host {host}):\n{v:#}");
                assert!(v["handler_unknown_because"].is_null(), "{method} {path}:\n{v:#}");
                if method == "TRACE" {
                    assert_eq!(v["rejected_before_walk"], "trace", "{v:#}");
                    assert_eq!(v["sections"], Value::Array(vec![]), "{v:#}");
                }
                for e in v["error_log"].as_array().unwrap() {
                    let (code, message) = (e["code"].as_str().unwrap(), e["message"].as_str().unwrap());
                    let found = log.lines().any(|l| l.ends_with(&format!("{code}: {message}")));
                    assert!(found, "{method} {path}: explain's {e} not in httpd's log {log:?}");
                }
            }
        }
    }
    assert_eq!(seen, [200, 301, 403, 404, 405, 501].into(), "every answer reached");
}

/// Sends `method path` to httpd and asserts that explain states httpd's status as what the file
/// system and the handler answer, with each error-log entry it names found in httpd's log;
/// returns the status.
fn explain_states_the_files_answer(httpd: &Httpd, conf: &str, method: &str, path: &str) -> u16 {
    let (real, log) = httpd.send_logged(&Request::new(method, path)).unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let v = json(&["explain", conf, path, "--method", method, "--format", "json"]);
    assert_eq!(v["status"], real, "{method} {path}:\n{v:#}\nerror log: {log}");
    assert_eq!(v["status_from"], "file", "{method} {path}:\n{v:#}");
    for e in v["error_log"].as_array().unwrap() {
        let (code, message) = (e["code"].as_str().unwrap(), e["message"].as_str().unwrap());
        let found = log.lines().any(|l| l.ends_with(&format!("{code}: {message}")));
        assert!(found, "{method} {path}: explain's {e} not in httpd's log {log:?}");
    }
    real
}

/// mod_autoindex (loaded, as in Debian's default) answers a GET for a directory with no index
/// file: a listing (200) where the `Options` merged for the request hold Indexes — from a
/// `<Directory>`, a `<DirectoryMatch>` merged after it, an .htaccess file, also with
/// `DirectoryIndex disabled` — else 403 (AH01276). It declines POST, which the default handler
/// answers 404 (AH00129).
#[test]
fn explain_predicts_mod_autoindex() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n    AllowOverride None\n</Directory>\n\
<Directory @DOCROOT@/ix>\n    Options +Indexes\n</Directory>\n\
<Directory @DOCROOT@/dis>\n    Options Indexes\n    DirectoryIndex disabled\n</Directory>\n\
<DirectoryMatch \"/rx\">\n    Options Indexes\n</DirectoryMatch>\n\
<Directory @DOCROOT@/rx>\n    Options -Indexes\n</Directory>\n\
<Directory @DOCROOT@/ht>\n    AllowOverride Options\n</Directory>\n\
<Directory @DOCROOT@/all>\n    Options All\n    <Files x>\n        Options -Indexes\n    </Files>\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .with_module("autoindex")
        .log_level("info")
        .file("htdocs/e/i.html", "x\n")
        .file("htdocs/ix/i.html", "x\n")
        .file("htdocs/dis/index.html", "x\n")
        .file("htdocs/rx/i.html", "x\n")
        .file("htdocs/ht/.htaccess", "Options +Indexes\n")
        .file("htdocs/ht/no/.htaccess", "Options -Indexes\n")
        .file("htdocs/all/i.html", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for method in ["GET", "HEAD", "POST"] {
        for path in ["/e/", "/ix/", "/dis/", "/rx/", "/ht/", "/ht/no/", "/all/", "/sub/"] {
            seen.insert(explain_states_the_files_answer(&httpd, conf, method, path));
        }
    }
    assert_eq!(seen, [200, 403, 404].into(), "listing, refusal and POST's 404 all reached");
}

/// Round 15 F2: `ScriptAlias` gives its requests the handler `cgi-script` (as `SetHandler
/// cgi-script` does); with neither mod_cgi nor mod_cgid loaded no module serves it, so
/// mod_autoindex (which serves only the directory type) declines a directory with no index file
/// and the default handler answers 404 (AH00129), whatever Options says; a `SetHandler none` below
/// leaves the ScriptAlias's handler. An index file or a plain file is served by the default
/// handler (200). explain said 403 (autoindex's refusal) or 200 (a listing).
#[test]
fn a_cgi_handler_no_module_serves_is_not_answered_by_mod_autoindex() {
    if !require_apache2() {
        return;
    }
    let body = "ScriptAlias /cg/ @ROOT@/cgi/
<Directory @ROOT@/cgi>
    Require all granted
</Directory>
<Directory @ROOT@/cgi/ix>
    Options +Indexes
</Directory>
<Directory @ROOT@/cgi/none>
    Options +Indexes
    SetHandler none
</Directory>
<Directory @DOCROOT@>
    Require all granted
    Options +Indexes
</Directory>
<Directory @DOCROOT@/sh>
    SetHandler cgi-script
</Directory>
";
    let config = HttpdConfig::new(body)
        .with_module("autoindex")
        .log_level("info")
        .file("cgi/x.txt", "x\n")
        .file("cgi/ix/x.txt", "x\n")
        .file("cgi/none/x.txt", "x\n")
        .file("cgi/idx/index.html", "x\n")
        .file("htdocs/sh/x.txt", "x\n")
        .file("htdocs/ls/x.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for method in ["GET", "POST"] {
        for path in ["/cg/", "/cg/ix/", "/cg/none/", "/cg/idx/", "/cg/x.txt", "/sh/", "/ls/"] {
            seen.insert((method, path, explain_states_the_files_answer(&httpd, conf, method, path)));
        }
    }
    // The directories the handler takes from mod_autoindex are 404, the listing beside them 200.
    assert!(seen.contains(&("GET", "/cg/", 404)) && seen.contains(&("GET", "/sh/", 404)), "{seen:?}");
    assert!(seen.contains(&("GET", "/ls/", 200)), "{seen:?}");
}

/// With two `Listen` ports and no `--port`, each port picks its own virtual host: explain gives
/// the status only where both ports give the same, else says the status is unknown (the port is
/// not known) with each port's answer possible. With `--port` it is each port's answer.
#[test]
fn explain_considers_every_listening_port_when_none_is_given() {
    if !require_apache2() {
        return;
    }
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let body = format!(
        "Listen 127.0.0.1:{other}\n<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName first.test\n    <Location /sub>\n        Require all denied\n    </Location>\n</VirtualHost>\n\
<VirtualHost 127.0.0.1:{other}>\n    ServerName second.test\n</VirtualHost>\n"
    );
    let httpd = Httpd::start(HttpdConfig::new(body)).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for path in ["/sub/index.html", "/index.html", "/missing"] {
        let req = Request::get(path);
        let here = httpd.send(&req).unwrap_or_else(|e| panic!("{path}: {e}"));
        let there = req.send_to(other).unwrap_or_else(|e| panic!("{path} on {other}: {e}")).status;
        for (port, real) in [(httpd.port(), here), (other, there)] {
            let v = json(&["explain", conf, path, "--port", &port.to_string(), "--format", "json"]);
            assert_eq!(v["status"], real, "{path} on port {port}:\n{v:#}");
        }
        let v = json(&["explain", conf, path, "--format", "json"]);
        assert!(v["local_port_unknown"].is_string(), "{path}:\n{v:#}");
        if here == there {
            assert_eq!(v["status"], here, "{path}: both ports give {here}:\n{v:#}");
        } else {
            assert_eq!(v["status"], Value::Null, "{path}: httpd {here} and {there}:\n{v:#}");
            let possible = v["possible_statuses"].as_array().unwrap();
            assert!(possible.contains(&here.into()) && possible.contains(&there.into()), "{path}:\n{v:#}");
            assert!(v["reason"].as_str().unwrap().contains("port"), "{v:#}");
        }
    }
    assert_eq!(httpd.send(&Request::get("/sub/index.html")), Ok(403), "the ports differ somewhere");
}

/// A symbolic link to nothing is refused (403, AH00037) under the default FollowSymLinks too:
/// httpd cannot stat() its target. explain gives the status and says so, not that the Options
/// forbid it; a link the Options forbid is still blamed on them.
#[test]
fn a_dangling_symlink_is_refused_because_its_target_is_missing() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/strict>\n    Options -FollowSymLinks\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/strict/real.html", "x\n")
        .symlink("htdocs/dangling.html", "htdocs/nothere.html")
        .symlink("htdocs/strict/link.html", "htdocs/strict/real.html");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for (path, blamed) in [("/dangling.html", "target does not exist"), ("/strict/link.html", "Options")] {
        let (real, log) = httpd.send_logged(&Request::get(path)).unwrap();
        assert_eq!(real, 403, "{path}: {log}");
        assert!(log.contains("AH00037"), "{path}: {log}");
        let v = json(&["explain", conf, path, "--format", "json"]);
        assert_eq!(v["status"], real, "{path}:\n{v:#}");
        let rule = v["deciding"]["rule"].as_str().unwrap();
        assert!(rule.contains(blamed), "{path}: {rule}");
    }
}

/// The directory walk tests symbolic links under the Options of the `<Directory>` sections and
/// .htaccess files merged so far; `<DirectoryMatch>` sections are merged after the walk and do
/// not count: a `+FollowSymLinks` there does not let httpd follow the link (403, AH00037).
#[test]
fn regex_directory_options_do_not_count_for_the_symlink_test() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n    Options -FollowSymLinks\n</Directory>\n\
<DirectoryMatch \"/rx\">\n    Options +FollowSymLinks\n</DirectoryMatch>\n\
<Directory @DOCROOT@/plain>\n    Options +FollowSymLinks\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .symlink("htdocs/rx/l.html", "htdocs/index.html")
        .symlink("htdocs/plain/l.html", "htdocs/index.html");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for (path, expected) in [("/rx/l.html", 403), ("/plain/l.html", 200)] {
        let real = httpd.send(&Request::get(path)).unwrap();
        assert_eq!(real, expected, "{path}");
        let v = json(&["explain", conf, path, "--format", "json"]);
        assert_eq!(v["status"], real, "{path}:\n{v:#}");
    }
}

/// The evaluation text follows check_dir_access (mod_access_compat.c): the Deny lines first
/// under `Order deny,allow`, the Allow lines first under `allow,deny`, and under
/// `mutual-failure` the Deny lines only once an Allow matched. When several Require lines
/// decide together under AuthMerging (each inherited and own line granting under And, each
/// denying under Or), "Decided by" gives the AuthMerging line's place and each of those lines
/// with its place; one line deciding alone is named alone. Every status is httpd's.
#[test]
fn explain_reads_access_lines_in_httpds_order_and_names_each_deciding_line() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/da>\n    Order deny,allow\n    Allow from 127.0.0.1\n    Deny from 127.0.0.0/8\n</Directory>\n\
<Directory @DOCROOT@/ad>\n    Order allow,deny\n    Allow from 127.0.0.0/8\n    Deny from 127.0.0.2\n</Directory>\n\
<Directory @DOCROOT@/mf>\n    Order mutual-failure\n    Allow from 127.0.0.1\n    Deny from 127.0.0.2\n</Directory>\n\
<Directory @DOCROOT@/and>\n    Require ip 127.0.0.0/8\n</Directory>\n\
<Directory @DOCROOT@/and/in>\n    AuthMerging And\n    Require ip 127.0.0.1 127.0.0.2\n</Directory>\n\
<Directory @DOCROOT@/or>\n    Require ip 127.0.0.1\n</Directory>\n\
<Directory @DOCROOT@/or/in>\n    AuthMerging Or\n    Require ip 127.0.0.2\n</Directory>\n";
    let mut config = HttpdConfig::new(body);
    for d in ["da", "ad", "mf", "and/in", "or/in"] {
        config = config.file(format!("htdocs/{d}/index.html"), "x\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf_path = httpd.config().main_config_path();
    let conf = conf_path.to_str().unwrap().to_owned();
    let text = std::fs::read_to_string(&conf_path).unwrap();
    let place = |needle: &str| format!("{conf}:{}", line_of(&text, needle));
    let explain = |url: &str, client: &str| {
        let real = httpd.send(&Request::get(url).source(client.parse().unwrap())).unwrap();
        let v = json(&["explain", &conf, url, "--client", client, "--format", "json"]);
        assert_eq!(v["status"], real, "{url} from {client}:\n{v:#}");
        v
    };
    // The access_compat steps of the trace, as the words before the colon.
    let steps = |v: &Value| -> Vec<String> {
        v["trace"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t.as_str())
            .map(str::trim)
            .filter(|t| t.starts_with("Allow from") || t.starts_with("Deny ") || t.starts_with("Deny from"))
            .map(|t| t.split(':').next().unwrap().to_string())
            .collect()
    };
    for client in ["127.0.0.1", "127.0.0.2", "127.0.0.3"] {
        let v = explain("/da/index.html", client);
        assert_eq!(steps(&v), ["Deny from 127.0.0.0/8", "Allow from 127.0.0.1"], "{v:#}");
        let v = explain("/ad/index.html", client);
        assert_eq!(steps(&v), ["Allow from 127.0.0.0/8", "Deny from 127.0.0.2"], "{v:#}");
    }
    let v = explain("/mf/index.html", "127.0.0.1");
    assert_eq!(steps(&v), ["Allow from 127.0.0.1", "Deny from 127.0.0.2"], "{v:#}");
    let v = explain("/mf/index.html", "127.0.0.3");
    assert_eq!(steps(&v), ["Allow from 127.0.0.1", "Deny lines not read"], "{v:#}");
    assert_eq!(v["deciding"]["line"], line_of(&text, "Order mutual-failure"), "{v:#}");

    // AuthMerging And, both sides granting: the AuthMerging line, and each Require line.
    let v = explain("/and/in/index.html", "127.0.0.1");
    assert_eq!(v["status"], 200);
    let (a_line, b_line) = (place("Require ip 127.0.0.0/8"), place("Require ip 127.0.0.1 127.0.0.2"));
    let and_line = line_of(&text, "AuthMerging And");
    assert_eq!(v["deciding"]["line"], and_line, "{v:#}");
    let rule = v["deciding"]["rule"].as_str().unwrap();
    assert!(rule.contains(&format!("{a_line})")) && rule.contains(&format!("{b_line})")), "{rule}");
    let (_, out) = run(&["explain", &conf, "/and/in/index.html", "--client", "127.0.0.1"]);
    assert!(out.contains(&format!("at {conf}:{and_line}")) && out.contains(&a_line), "{out}");
    // This section's line alone refuses 127.0.0.3.
    let v = explain("/and/in/index.html", "127.0.0.3");
    assert_eq!(v["deciding"]["line"], line_of(&text, "Require ip 127.0.0.1 127.0.0.2"), "{v:#}");
    // AuthMerging Or, both sides denying: the AuthMerging line, and each Require line.
    let v = explain("/or/in/index.html", "127.0.0.3");
    assert_eq!(v["status"], 403);
    assert_eq!(v["deciding"]["line"], line_of(&text, "AuthMerging Or"), "{v:#}");
    let rule = v["deciding"]["rule"].as_str().unwrap();
    let or_parent = text.lines().position(|l| l.trim() == "Require ip 127.0.0.1").unwrap() + 1;
    assert!(rule.contains(&format!("{conf}:{or_parent})")), "{rule}");
    assert!(rule.contains(&format!("{})", place("Require ip 127.0.0.2"))), "{rule}");
    // One side granting decides alone.
    let v = explain("/or/in/index.html", "127.0.0.2");
    assert_eq!(v["deciding"]["line"], line_of(&text, "Require ip 127.0.0.2"), "{v:#}");
}

/// A request: method, path, client, Host.
type Asked = (&'static str, &'static str, &'static str, &'static str);

/// Asks httpd (started on `config`) each request `(method, path, client, Host)` and explain the
/// same: a status explain states is httpd's; an unknown one lists httpd's among those possible;
/// a 500 httpd gives for an .htaccess file it could not read comes with the words httpd logs
/// (its `[core:alert]`). Returns how many were unknown.
fn explain_agrees_under_if(
    name: &str,
    config: HttpdConfig,
    requests: &[(&str, &str, &str, &str)],
    known: bool,
) -> usize {
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{name}: {e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let mut unknown = 0;
    for &(method, path, client, host) in requests {
        let ip: IpAddr = client.parse().unwrap();
        if ip.is_ipv6() && !apache_lsp_e2e::httpd::ipv6_loopback_usable() {
            continue;
        }
        let logged = httpd.error_log_len();
        let real = httpd.send(&Request::new(method, path).source(ip).host(host)).unwrap();
        let args = ["explain", conf, path, "--method", method, "--client", client, "--host", host, "--format", "json"];
        let v = json(&args);
        let what = format!("{name}: {method} {path} from {client} on {host}: httpd {real}");
        let log = httpd.error_log_since(logged);
        let alert = log.lines().filter(|l| l.contains("[core:alert]")).find_map(|l| l.split_once("/.htaccess: "));
        if let (500, Some((_, words))) = (real, alert) {
            // (httpd's words, then what explain adds; or their start, as an argument count's help
            // text after them is not kept.)
            let said = htaccess_words(&v).filter(|s| !s.is_empty());
            let agree = said.is_some_and(|s| s.starts_with(words) || words.starts_with(s));
            assert!(agree, "{what}: httpd logs {words}\n{v:#}");
        }
        if v["status"].is_null() {
            assert!(!known, "{name}: every condition is known, so explain must give httpd's status\n{what}\n{v:#}");
            unknown += 1;
            assert!(v["possible_statuses"].as_array().unwrap().contains(&real.into()), "{what}\n{v:#}");
            assert!(v["reason"].as_str().unwrap().contains("not evaluated"), "{what}\n{v:#}");
        } else if v["handler_unknown_because"].is_null() {
            assert_eq!(v["status"], real, "{what}\n{v:#}");
        } else {
            // "200 unless the handler answers otherwise": explain says it does not predict it.
            assert_eq!(v["status"], 200, "{what}\n{v:#}");
        }
    }
    unknown
}

/// What explain says an .htaccess file it could not read is refused with (after `….htaccess: `).
fn htaccess_words(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => s.split_once("/.htaccess: ").map(|(_, w)| w),
        Value::Array(a) => a.iter().find_map(htaccess_words),
        Value::Object(o) => o.values().find_map(htaccess_words),
        _ => None,
    }
}

/// Round 7 bugs 4 and 6: directives inside `<If>`/`<ElseIf>`/`<Else>` that the answer reads
/// (Options, DirectorySlash, DirectoryIndex, Redirect, RewriteRule, SetHandler, AcceptPathInfo,
/// SetEnvIf feeding `Require env`) were ignored and the walk without them stated as certain.
/// Each combination of branches is now walked, and the conditions evaluated against the request:
/// where they read only the client's address, the method, the Host header or the path, explain
/// gives httpd's exact status; where they read a header not given, the time or the environment,
/// the answer is unknown with httpd's among the possible.
#[test]
fn directives_inside_if_branches_are_walked_with_each_combination() {
    if !require_apache2() {
        return;
    }
    let dir = |inner: &str| format!("<Directory @DOCROOT@>\n    Require all granted\n{inner}</Directory>\n");
    let noidx = |c: HttpdConfig| c.file("htdocs/noidx/f.txt", "f\n").file("htdocs/idx2/other.html", "o\n");
    let mut unknown = 0;
    let cases: Vec<(&str, HttpdConfig, Vec<Asked>)> = vec![
        (
            "Options +Indexes in <If -R>",
            noidx(HttpdConfig::new(dir("    Options None\n    <If \"-R '127.0.0.2'\">\n        Options +Indexes\n    </If>\n")).with_module("autoindex")),
            vec![("GET", "/noidx/", "127.0.0.1", "a.test"), ("GET", "/noidx/", "127.0.0.2", "a.test"), ("GET", "/a.txt", "127.0.0.2", "a.test")],
        ),
        (
            "If/ElseIf/Else",
            noidx(HttpdConfig::new(dir("    <If \"-R '127.0.0.2'\">\n        Require all denied\n    </If>\n    <ElseIf \"%{HTTP_HOST} == 'b.test'\">\n        Options +Indexes\n    </ElseIf>\n    <Else>\n        DirectorySlash Off\n    </Else>\n")).with_module("autoindex")),
            vec![("GET", "/noidx/", "127.0.0.1", "b.test"), ("GET", "/noidx/", "::1", "b.test"), ("GET", "/noidx", "127.0.0.1", "a.test"), ("GET", "/noidx/", "127.0.0.2", "b.test")],
        ),
        (
            "DirectorySlash Off for POST",
            HttpdConfig::new(dir("    <If \"%{REQUEST_METHOD} == 'POST'\">\n        DirectorySlash Off\n    </If>\n")),
            vec![("POST", "/sub", "127.0.0.1", "a.test"), ("GET", "/sub", "127.0.0.1", "a.test")],
        ),
        (
            "DirectoryIndex on a Host",
            noidx(HttpdConfig::new(dir("    <If \"%{HTTP_HOST} == 'b.test'\">\n        DirectoryIndex other.html\n    </If>\n"))),
            vec![("GET", "/idx2/", "127.0.0.1", "a.test"), ("GET", "/idx2/", "127.0.0.1", "b.test"), ("GET", "/sub/", "127.0.0.1", "b.test")],
        ),
        (
            "Redirect in <If> on the path",
            HttpdConfig::new(dir("    <If \"%{REQUEST_URI} =~ m#^/sub/#\">\n        Redirect 410\n    </If>\n")),
            vec![("GET", "/sub/index.html", "127.0.0.1", "a.test"), ("GET", "/a.txt", "127.0.0.1", "a.test")],
        ),
        (
            "RewriteRule [F] on a Host",
            HttpdConfig::new(dir("    RewriteEngine On\n    <If \"%{HTTP_HOST} == 'b.test'\">\n        RewriteRule ^ - [F]\n    </If>\n")).with_module("rewrite"),
            vec![("GET", "/a.txt", "127.0.0.1", "b.test"), ("GET", "/sub/", "127.0.0.1", "a.test")],
        ),
        (
            "SetHandler for GET",
            HttpdConfig::new(dir("    <If \"%{REQUEST_METHOD} == 'GET'\">\n        SetHandler server-status\n    </If>\n")),
            vec![("GET", "/nothere.txt", "127.0.0.1", "a.test"), ("POST", "/nothere.txt", "127.0.0.1", "a.test")],
        ),
        (
            "SetEnvIf feeding Require env",
            HttpdConfig::new("<Directory @DOCROOT@>\n    <If \"-R '127.0.0.2'\">\n        SetEnvIf Remote_Addr . ok\n    </If>\n    Require env ok\n</Directory>\n"),
            vec![("GET", "/a.txt", "127.0.0.1", "a.test"), ("GET", "/a.txt", "127.0.0.2", "a.test")],
        ),
        (
            "AcceptPathInfo",
            HttpdConfig::new(dir("    AcceptPathInfo Off\n    <If \"%{REQUEST_METHOD} == 'POST'\">\n        AcceptPathInfo On\n    </If>\n")),
            vec![("GET", "/a.txt/extra", "127.0.0.1", "a.test"), ("POST", "/a.txt/extra", "127.0.0.1", "a.test")],
        ),
        (
            "a Header only: no difference",
            HttpdConfig::new(dir("    <If \"-R '127.0.0.2'\">\n        Header always set X-A b\n    </If>\n")).with_module("headers"),
            vec![("GET", "/a.txt", "127.0.0.2", "a.test"), ("GET", "/nothere.txt", "127.0.0.2", "a.test")],
        ),
    ];
    for (name, config, requests) in cases {
        assert_eq!(explain_agrees_under_if(name, config, &requests, true), 0, "{name}");
    }
    // Conditions on what explain is not told: a header not given, the time, the environment.
    let unknowable: Vec<(&str, HttpdConfig, Vec<Asked>)> = vec![
        (
            "a header not given",
            HttpdConfig::new(dir("    <If \"%{HTTP:X-Test} == 'y' || req('X-Other') =~ /z/\">\n        Require all denied\n    </If>\n")),
            vec![("GET", "/a.txt", "127.0.0.1", "a.test")],
        ),
        (
            "the time",
            HttpdConfig::new(dir("    <If \"%{TIME_HOUR} -ge 0 && -R '127.0.0.0/8'\">\n        Require all denied\n    </If>\n")),
            vec![("GET", "/a.txt", "127.0.0.1", "a.test")],
        ),
        (
            "the environment, after a false <If>",
            HttpdConfig::new(dir("    <If \"-R '10.0.0.0/8'\">\n        Require all denied\n    </If>\n    <ElseIf \"-z %{ENV:nothing}\">\n        Redirect 410\n    </ElseIf>\n")),
            vec![("GET", "/a.txt", "127.0.0.1", "a.test")],
        ),
    ];
    for (name, config, requests) in unknowable {
        unknown += explain_agrees_under_if(name, config, &requests, false);
    }
    assert_eq!(unknown, 3, "each condition on what is not known leaves the answer unknown");
}

/// With every header given (--header, --only-headers), a condition on headers is known.
#[test]
fn if_conditions_on_headers_are_known_with_only_headers() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n    <If \"%{HTTP:X-Test} == 'y' && req('x-other') == ''\">\n        Require all denied\n    </If>\n</Directory>\n";
    let httpd = Httpd::start(HttpdConfig::new(body)).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for (value, want) in [("y", 403), ("n", 200)] {
        let real = httpd.send(&Request::get("/a.txt").header("X-Test", value)).unwrap();
        assert_eq!(real, want, "X-Test: {value}");
        let header = format!("X-Test: {value}");
        let v = json(&["explain", conf, "/a.txt", "--header", &header, "--only-headers", "--format", "json"]);
        assert_eq!(v["status"], real, "X-Test: {value}\n{v:#}");
        // Without --only-headers, X-Other may have been sent: unknown for the `y` request.
        let v = json(&["explain", conf, "/a.txt", "--header", &header, "--format", "json"]);
        if want == 403 {
            assert!(v["status"].is_null(), "{v:#}");
            assert!(v["possible_statuses"].as_array().unwrap().contains(&real.into()), "{v:#}");
        } else {
            assert_eq!(v["status"], real, "{v:#}");
        }
    }
}

/// Round 7 bug 5: a refusal under `ErrorDocument 403 http://…` is a 302 with the URL in
/// `Location:` (`ap_die_r`), and the refusal is still logged; a full URL for 401 is ignored
/// (401 kept); a granted request for a missing file is the default handler's 404 (the
/// ErrorDocument was named as its handler). Under `<If>` the 302 is among those possible.
#[test]
fn an_error_document_naming_a_url_makes_the_refusal_a_redirect() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require ip 127.0.0.1\n    ErrorDocument 403 http://example.invalid/denied\n</Directory>\n\
<Directory @DOCROOT@/sub>\n    AuthType Basic\n    AuthName x\n    AuthUserFile @ROOT@/htpasswd\n    Require valid-user\n    ErrorDocument 401 http://example.invalid/login\n</Directory>\n\
<Directory @DOCROOT@/private>\n    ErrorDocument 403 default\n    <If \"-R '127.0.0.3'\">\n        ErrorDocument 403 https://example.invalid/if\n    </If>\n</Directory>\n";
    let httpd = Httpd::start(HttpdConfig::new(body)).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for (path, client, want) in [
        ("/a.txt", "127.0.0.2", 302),
        ("/a.txt", "127.0.0.1", 200),
        ("/missing.txt", "127.0.0.1", 404),
        ("/missing.txt", "127.0.0.2", 302),
        ("/sub/index.html", "127.0.0.1", 401),
    ] {
        let ip: IpAddr = client.parse().unwrap();
        let real = httpd.fetch(&Request::get(path).source(ip)).unwrap();
        assert_eq!(real.status, want, "{path} from {client}: {}", real.head);
        let v = json(&["explain", conf, path, "--client", client, "--format", "json"]);
        assert_eq!(v["status"], real.status, "{path} from {client}:\n{v:#}");
        assert!(v["handler_unknown_because"].is_null(), "{path} from {client}:\n{v:#}");
        if want == 302 {
            assert!(real.head.contains("Location: http://example.invalid/denied"), "{}", real.head);
            assert_eq!(v["error_document"]["location"], "http://example.invalid/denied", "{v:#}");
            assert_eq!(v["error_document"]["status"], 403, "{v:#}");
            assert_eq!(v["error_log"][0]["code"], "AH01630", "the refusal is still logged:\n{v:#}");
            assert!(httpd.error_log().contains("AH01630"), "{}", httpd.error_log());
            assert!(v["deciding"]["rule"].as_str().unwrap().contains("Require ip 127.0.0.1"), "{v:#}");
        }
    }
    // Under <If -R>: the branch applies for 127.0.0.3 only (httpd: 302 there, 403 for
    // 127.0.0.2); the condition is evaluated against the client.
    for (client, want) in [("127.0.0.3", 302), ("127.0.0.2", 403)] {
        let real = httpd.send(&Request::get("/private/index.html").source(client.parse().unwrap())).unwrap();
        assert_eq!(real, want, "{client}");
        let v = json(&["explain", conf, "/private/index.html", "--client", client, "--format", "json"]);
        assert_eq!(v["status"], real, "{client}\n{v:#}");
    }
    // The text says where the redirect comes from.
    let (_, text) = run(&["explain", conf, "/a.txt", "--client", "127.0.0.2"]);
    assert!(text.contains("Status: 302 (the answer 403 is turned into a redirect to http://example.invalid/denied by ErrorDocument 403"), "{text}");
}

/// `Require expr` reading only the client's address and the method is evaluated: explain gives
/// httpd's status; one reading a header not given stays unknown with httpd's among the possible.
#[test]
fn require_expr_on_the_client_and_method_is_evaluated() {
    if !require_apache2() {
        return;
    }
    let body =
        "<Directory @DOCROOT@>\n    Require expr \"-R '127.0.0.2' || %{REQUEST_METHOD} == 'POST'\"\n</Directory>\n\
<Directory @DOCROOT@/sub>\n    Require expr \"%{HTTP:X-Token} == 's'\"\n</Directory>\n";
    let httpd = Httpd::start(HttpdConfig::new(body)).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for (method, client, want) in [("GET", "127.0.0.1", 403), ("GET", "127.0.0.2", 200), ("POST", "127.0.0.1", 200)] {
        let real = httpd.send(&Request::new(method, "/a.txt").source(client.parse().unwrap())).unwrap();
        let what = format!("{method} from {client}");
        assert_eq!(real, want, "{what}");
        let v = json(&["explain", conf, "/a.txt", "--method", method, "--client", client, "--format", "json"]);
        assert_eq!(v["status"], real, "{what}\n{v:#}");
    }
    let real = httpd.send(&Request::get("/sub/index.html")).unwrap();
    let v = json(&["explain", conf, "/sub/index.html", "--format", "json"]);
    assert!(v["status"].is_null(), "{v:#}");
    assert!(v["possible_statuses"].as_array().unwrap().contains(&real.into()), "httpd {real}\n{v:#}");
}

/// Round 8 bug 2: an `<If>` nested in an `<If>` (allowed since httpd 2.4.26) was not walked when
/// the outer branch applied: httpd's 403 was not among the statuses said possible. httpd walks
/// the sections nested in the branches it took after merging them, level by level
/// (`ap_if_walk_sub`): a deeper branch's Require replaces the one above it.
#[test]
fn nested_if_sections_are_walked_inside_the_branch_taken() {
    if !require_apache2() {
        return;
    }
    let dir = |inner: &str| format!("<Directory @DOCROOT@>\n    Require all granted\n{inner}</Directory>\n");
    let secret = |c: HttpdConfig| c.file("htdocs/secret.txt", "s\n");
    let cases: Vec<(&str, HttpdConfig, Vec<Asked>)> = vec![
        (
            "two deep",
            secret(HttpdConfig::new(dir("    <If \"-R '127.0.0.0/8'\">\n        <If \"%{REQUEST_URI} =~ /secret/\">\n            Require all denied\n        </If>\n    </If>\n"))),
            vec![("GET", "/secret.txt", "127.0.0.1", "a.test"), ("GET", "/secret.txt", "127.0.0.2", "a.test"), ("GET", "/secret.txt", "::1", "a.test"), ("GET", "/a.txt", "127.0.0.1", "a.test")],
        ),
        (
            "three deep, with ElseIf and Else at each level",
            HttpdConfig::new(dir("    <If \"%{REQUEST_METHOD} == 'GET'\">\n        <If \"-R '127.0.0.2'\">\n            Require all denied\n            <If \"%{HTTP_HOST} == 'b.test'\">\n                Require all granted\n            </If>\n        </If>\n        <ElseIf \"-R '::1'\">\n            Require ip 10.9.9.9\n        </ElseIf>\n        <Else>\n            <If \"%{REQUEST_URI} =~ m#^/sub/#\">\n                Redirect 410\n            </If>\n        </Else>\n    </If>\n    <Else>\n        Require all denied\n    </Else>\n")),
            vec![
                ("GET", "/a.txt", "127.0.0.2", "a.test"),
                ("GET", "/a.txt", "127.0.0.2", "b.test"),
                ("GET", "/a.txt", "::1", "b.test"),
                ("GET", "/sub/index.html", "127.0.0.1", "a.test"),
                ("GET", "/a.txt", "127.0.0.1", "a.test"),
                ("POST", "/a.txt", "127.0.0.1", "a.test"),
            ],
        ),
        (
            "nested in a Location",
            HttpdConfig::new(format!("{}<Location /sub>\n    <If \"-R '127.0.0.2'\">\n        <If \"%{{REQUEST_METHOD}} == 'GET'\">\n            Require all denied\n        </If>\n        <Else>\n            Redirect 410\n        </Else>\n    </If>\n</Location>\n", dir(""))),
            vec![("GET", "/sub/index.html", "127.0.0.2", "a.test"), ("POST", "/sub/index.html", "127.0.0.2", "a.test"), ("GET", "/sub/index.html", "127.0.0.1", "a.test")],
        ),
    ];
    for (name, config, requests) in cases {
        assert_eq!(explain_agrees_under_if(name, config, &requests, true), 0, "{name}");
    }
    // A nested condition on a header not given: unknown, httpd's status among the possible.
    let header = HttpdConfig::new(dir("    <If \"-R '127.0.0.0/8'\">\n        <If \"%{HTTP:X-Test} == 'y'\">\n            Require all denied\n        </If>\n    </If>\n"));
    assert_eq!(
        explain_agrees_under_if("a nested header", header, &[("GET", "/a.txt", "127.0.0.1", "a.test")], false),
        1
    );
}

/// Round 8 bug 3: the `<If>`/`<ElseIf>`/`<Else>` sections of an .htaccess file were not walked:
/// their access rules left the answer unknown and their other directives (ErrorDocument with a
/// full URL, Options, AcceptPathInfo) were ignored. They are now walked as the configuration's
/// branches are, after the Location phase (httpd's If walk takes the .htaccess file's sections
/// from the merged directory configuration), nested ones too.
#[test]
fn if_sections_of_an_htaccess_file_are_walked_like_the_configurations() {
    if !require_apache2() {
        return;
    }
    let dir = "<Directory @DOCROOT@>\n    AllowOverride All\n    Require all granted\n</Directory>\n";
    let ht =
        |text: &str| HttpdConfig::new(dir).file("htdocs/sub/.htaccess", text).file("htdocs/sub/noidx/f.txt", "f\n");
    let cases: Vec<(&str, HttpdConfig, Vec<Asked>)> = vec![
        (
            "If/ElseIf/Else: Require with ErrorDocument URL, AcceptPathInfo, Options -Indexes",
            ht("<If \"-R '127.0.0.2'\">\n  Require all denied\n  ErrorDocument 403 http://example.invalid/x\n</If>\n<ElseIf \"-R '::1'\">\n  AcceptPathInfo Off\n</ElseIf>\n<Else>\n  Options -Indexes\n</Else>\n").with_module("autoindex"),
            vec![
                ("GET", "/sub/a.txt", "127.0.0.2", "a.test"),
                ("GET", "/sub/a.txt/x", "127.0.0.2", "a.test"),
                ("GET", "/sub/index.html/x", "::1", "a.test"),
                ("GET", "/sub/index.html/x", "127.0.0.1", "a.test"),
                ("GET", "/sub/noidx/", "127.0.0.1", "a.test"),
                ("GET", "/sub/noidx/", "::1", "a.test"),
            ],
        ),
        (
            "Require in the Else, nested If in the If",
            ht("Options +Indexes\n<If \"%{REQUEST_METHOD} == 'GET'\">\n  <If \"-R '127.0.0.3'\">\n    Require all denied\n  </If>\n</If>\n<Else>\n  Require ip 10.9.9.9\n</Else>\n").with_module("autoindex"),
            vec![
                ("GET", "/sub/noidx/", "127.0.0.1", "a.test"),
                ("GET", "/sub/noidx/", "127.0.0.3", "a.test"),
                ("POST", "/sub/index.html", "127.0.0.1", "a.test"),
            ],
        ),
        (
            "inside a Files section of the .htaccess",
            ht("<Files \"index.html\">\n  <If \"-R '127.0.0.2'\">\n    Require all denied\n  </If>\n</Files>\n"),
            vec![("GET", "/sub/index.html", "127.0.0.2", "a.test"), ("GET", "/sub/index.html", "127.0.0.1", "a.test")],
        ),
    ];
    for (name, config, requests) in cases {
        assert_eq!(explain_agrees_under_if(name, config, &requests, true), 0, "{name}");
    }
    // A condition on a header not given: unknown, httpd's status among the possible. The
    // branches of a `<Files>` section only mod_dir's DirectoryIndex subrequest meets are
    // evaluated for it.
    let header = ht("<If \"%{HTTP:X-Test} == 'y'\">\n  Require all denied\n</If>\n");
    assert_eq!(explain_agrees_under_if("a header", header, &[("GET", "/sub/a.txt", "127.0.0.1", "a.test")], false), 1);
    let index = ht("<Files \"index.html\">\n  <If \"-R '127.0.0.2'\">\n    Require all denied\n  </If>\n</Files>\n");
    assert_eq!(
        explain_agrees_under_if("the index's Files", index, &[("GET", "/sub/", "127.0.0.2", "a.test")], false),
        0
    );
}

/// Regexes are matched as httpd's PCRE2 matches them (8-bit, no UTF): lookahead (Drupal's
/// shipped .htaccess), lookbehind (OpenMage's), a back reference, `\Q…\E`, and `\w`, which
/// does not match the bytes of `é`. Each .htaccess denies what its `<FilesMatch>` names; httpd
/// answers every request, and explain must give the same status.
#[test]
fn section_regexes_are_matched_as_httpds_pcre2() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AllowOverride All\n    Require all granted\n</Directory>\n";
    let dirs: &[(&str, &str, &[&str])] = &[
        (
            "d1",
            "<FilesMatch \"^(\\.(?!well-known).*|x\\.sql)$\">\n  Require all denied\n</FilesMatch>\n",
            &[".htpasswd", "x.sql", "a.txt", ".well-known"],
        ),
        ("d2", "<FilesMatch \"^\\w+\\.txt$\">\n  Require all denied\n</FilesMatch>\n", &["a.txt", "café.txt"]),
        ("d3", "<FilesMatch \"^(a)\\1\\.txt$\">\n  Require all denied\n</FilesMatch>\n", &["aa.txt", "a.txt"]),
        ("d4", "<FilesMatch \"^\\Qb+.txt\\E$\">\n  Require all denied\n</FilesMatch>\n", &["b+.txt", "bb.txt"]),
        (
            "d5",
            "<FilesMatch \"(?<!robots)\\.txt$\">\n  Order allow,deny\n  Deny from all\n</FilesMatch>\n",
            &["CHANGELOG.txt", "robots.txt"],
        ),
    ];
    let mut cfg = HttpdConfig::new(body);
    let mut urls = Vec::new();
    for (dir, htaccess, names) in dirs {
        cfg = cfg.file(format!("htdocs/{dir}/.htaccess"), *htaccess);
        for name in names.iter() {
            cfg = cfg.file(format!("htdocs/{dir}/{name}"), "x\n");
            urls.push(format!("/{dir}/{}", name.replace('é', "%C3%A9")));
        }
    }
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let mut statuses = std::collections::BTreeMap::new();
    for url in &urls {
        let real = httpd.send(&Request::get(url).source("127.0.0.1".parse().unwrap())).unwrap();
        let v = json(&["explain", conf, url, "--client", "127.0.0.1", "--format", "json"]);
        assert_eq!(v["status"], real, "{url}:\n{v:#}");
        statuses.insert(url.clone(), real);
    }
    // What httpd answered: each pattern both matches and does not.
    for (url, want) in [
        ("/d1/.htpasswd", 403),
        ("/d1/a.txt", 200),
        ("/d2/a.txt", 403),
        ("/d2/caf%C3%A9.txt", 200),
        ("/d3/aa.txt", 403),
        ("/d3/a.txt", 200),
        ("/d4/b+.txt", 403),
        ("/d4/bb.txt", 200),
        ("/d5/CHANGELOG.txt", 403),
        ("/d5/robots.txt", 200),
    ] {
        assert_eq!(statuses[url], want, "httpd on {url}: {statuses:?}");
    }
}

/// mod_userdir maps `/~user/rest` before the DocumentRoot: each form of `UserDir` (absolute with
/// `*`, absolute without, a name under the home directory from the passwd database, several
/// entries with the last taken even when missing, the enabled/disabled lists) is walked through
/// the directory it maps to, and explain answers what httpd answers, from each client. A user
/// the passwd database lacks (bob, alice) is mapped by the DocumentRoot under `UserDir
/// public_html`.
#[test]
fn explain_maps_userdir_urls_as_mod_userdir_does() {
    if !require_apache2() {
        return;
    }
    // `nobody`'s home in the passwd database is a directory that does not exist.
    let sections = "<Directory />\n    Require all denied\n</Directory>\n\
<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @ROOT@/ud>\n    Require ip 127.0.0.2\n</Directory>\n\
<Directory @ROOT@/plain>\n    Require all granted\n</Directory>\n";
    let forms = [
        "UserDir @ROOT@/ud/*/pub",
        "UserDir @ROOT@/plain",
        "UserDir public_html @ROOT@/ud/*/pub",
        "UserDir public_html",
        "UserDir @ROOT@/ud/*/pub\nUserDir disabled bob",
        "UserDir @ROOT@/plain\nUserDir disabled\nUserDir enabled bob",
    ];
    let targets = ["/~bob/a.txt", "/~alice/a.txt", "/~nobody/a.txt", "/~bob", "/~/a.txt", "/a.txt"];
    for form in forms {
        let config = HttpdConfig::new(format!("{sections}{form}\n"))
            .with_module("userdir")
            .file("htdocs/a.txt", "doc\n")
            .file("htdocs/~bob/a.txt", "doc\n")
            .file("ud/bob/pub/a.txt", "bob\n")
            .file("ud/nobody/pub/a.txt", "nobody\n")
            .file("plain/bob/a.txt", "bob\n");
        let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
        let conf = httpd.config().main_config_path();
        let conf = conf.to_str().unwrap();
        for target in targets {
            for client in ["127.0.0.1", "127.0.0.2"] {
                let ip: IpAddr = client.parse().unwrap();
                let real = httpd.send(&Request::get(target).source(ip)).unwrap_or_else(|e| panic!("{target}: {e}"));
                let v = json(&["explain", conf, target, "--client", client, "--format", "json"]);
                assert_eq!(v["status"], real, "{form}: GET {target} from {client}:\n{v:#}");
            }
        }
    }
}

/// A user the passwd database does not know, under a `UserDir` entry relative to the home
/// directory: mod_userdir finds no directory for the entry and goes on to the next, and after the
/// last declines, so the DocumentRoot maps the URL (httpd's answer is held by
/// `explain_maps_userdir_urls_as_mod_userdir_does`).
#[test]
fn a_userdir_user_without_a_home_directory_is_mapped_by_the_document_root() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("httpd.conf");
    let docroot = dir.path().join("htdocs");
    std::fs::create_dir_all(docroot.join("~no-such-user-apache-lsp")).unwrap();
    std::fs::write(docroot.join("~no-such-user-apache-lsp/a.txt"), "x\n").unwrap();
    let text = format!(
        "LoadModule userdir_module /usr/lib/apache2/modules/mod_userdir.so\nDocumentRoot {0}\n\
<Directory {0}>\n    Require all granted\n</Directory>\n<Directory {0}/~no-such-user-apache-lsp>\n    \
Require all denied\n</Directory>\nUserDir public_html\n",
        docroot.display()
    );
    std::fs::write(&conf, text).unwrap();
    let v = json(&["explain", conf.to_str().unwrap(), "/~no-such-user-apache-lsp/a.txt", "--format", "json"]);
    assert_eq!(v["status"], 403, "{v:#}");
}

/// The enabled and disabled lists of mod_userdir in a `<VirtualHost>`: one with no `UserDir` line
/// of its own shares the main server's whole configuration of the module, lists included; one
/// with a `UserDir` line has only its own lists (the global `UserDir disabled` and the entries
/// are still the main server's). explain maps each user as httpd does, from each client
/// (black-box round 16, F1).
#[test]
fn userdir_lists_in_virtual_hosts_as_httpd_merges_them() {
    if !require_apache2() {
        return;
    }
    let body = "UserDir @ROOT@/home/*/public_html\nUserDir disabled\nUserDir enabled alice carol\nUserDir disabled carol\n\
<Directory @DOCROOT@/~carol>\n    Require all denied\n</Directory>\n\
<Directory @ROOT@/home>\n    Require ip 127.0.0.2\n</Directory>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName plain.test\n    DocumentRoot @DOCROOT@\n</VirtualHost>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName own.test\n    DocumentRoot @DOCROOT@\n    UserDir enabled carol\n</VirtualHost>\n";
    let mut config = HttpdConfig::new(body).with_module("userdir");
    for user in ["alice", "bob", "carol"] {
        config = config
            .file(format!("htdocs/~{user}/x.txt"), "doc\n")
            .file(format!("home/{user}/public_html/x.txt"), "home\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for host in ["plain.test", "own.test"] {
        for user in ["alice", "bob", "carol"] {
            for client in ["127.0.0.1", "127.0.0.2"] {
                requests.push(Request::get(&format!("/~{user}/x.txt")).host(host).source(client.parse().unwrap()));
            }
        }
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    // plain.test: alice enabled (her home, 127.0.0.2 only), bob globally disabled (the document
    // root), carol disabled by name (the document root's ~carol, denied). own.test: only carol is
    // enabled, by its own list, and nobody is disabled by name.
    assert_eq!(seen, [403, 200, 200, 200, 403, 403, 200, 200, 200, 200, 403, 200], "the cases this test is about");
}

/// Several `UserDir` entries: httpd takes the first whose user's directory exists, whatever the
/// rest of the URL names in it (a file missing there is not looked for under the next entry), and
/// the last when none exists (black-box round 16, F2).
#[test]
fn userdir_takes_the_first_entry_whose_user_directory_exists() {
    if !require_apache2() {
        return;
    }
    let body = "UserDir @ROOT@/home/*/www @ROOT@/alt/\n\
<Directory @ROOT@/home>\n    Require all denied\n</Directory>\n\
<Directory @ROOT@/alt>\n    Require ip 127.0.0.1\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .with_module("userdir")
        .dir("home/alice/www")
        .file("alt/alice/y.txt", "alt\n")
        .file("alt/bob/y.txt", "alt\n")
        .file("home/carol/www/sub/x.txt", "home\n")
        .file("alt/carol/y.txt", "alt\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let paths = ["/~alice/y.txt", "/~alice/zz", "/~alice", "/~bob/y.txt", "/~bob", "/~carol/y.txt", "/~dave/y.txt"];
    let mut requests = Vec::new();
    for path in paths {
        for client in ["127.0.0.1", "127.0.0.2"] {
            requests.push(Request::get(path).source(client.parse().unwrap()));
        }
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(
        seen,
        [403, 403, 403, 403, 403, 403, 200, 403, 301, 403, 403, 403, 404, 403],
        "the cases this test is about"
    );
}

/// The user names mod_userdir declines: httpd 2.4.71 leaves `/~./x` and `/~../x` to the
/// DocumentRoot and maps every other name with dots (`a.`, `a..`, `...`, `.a`) into the `UserDir`
/// (black-box round 16, F11). Each name has a file both under the DocumentRoot and in its user
/// directory, and each place lets in one client only, so the status tells which place served it.
#[test]
fn userdir_declines_only_the_names_dot_and_dot_dot() {
    if !require_apache2() {
        return;
    }
    let body = "UserDir @ROOT@/home/*/pub\n\
<Directory @ROOT@/home>\n    Require ip 127.0.0.1\n</Directory>\n\
<Directory @DOCROOT@>\n    Require ip 127.0.0.2\n</Directory>\n";
    let names = [".", "..", "a.", "a..", "...", ".a"];
    let mut config = HttpdConfig::new(body).with_module("userdir");
    for name in names {
        config = config.file(format!("htdocs/~{name}/x"), "doc\n");
        // (`..`'s would be outside home; `.`'s is home/pub/x, where a walk of `/~./x` would go.)
        if name != ".." {
            config = config.file(format!("home/{name}/pub/x"), "home\n");
        }
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for name in names {
        for client in ["127.0.0.1", "127.0.0.2"] {
            requests.push(Request::get(&format!("/~{name}/x")).source(client.parse().unwrap()));
        }
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    // `.` and `..`: the DocumentRoot (127.0.0.2 only); the others: the user's directory (127.0.0.1).
    assert_eq!(seen, [403, 200, 403, 200, 200, 403, 200, 403, 200, 403, 200, 403], "the cases this test is about");
}

/// mod_rewrite's fixup refuses (403, AH00670) every request in a directory whose merged
/// per-directory configuration turns the engine on while Options have neither FollowSymLinks
/// nor SymLinksIfOwnerMatch, whether a rule matches or not; elsewhere the rules run.
#[test]
fn rewrite_without_followsymlinks_is_refused_as_httpd_does() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Options +FollowSymLinks\n    AllowOverride All\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/config>\n    Options -FollowSymLinks\n    AllowOverride None\n</Directory>\n\
<Directory @DOCROOT@/owner>\n    Options -FollowSymLinks +SymLinksIfOwnerMatch\n</Directory>\n\
<Directory @DOCROOT@/off>\n    Options None\n    RewriteEngine Off\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .with_module("rewrite")
        .file("htdocs/.htaccess", "RewriteEngine On\nRewriteRule ^favicon\\.ico$ skins/favicon.ico\n")
        .file("htdocs/a.txt", "x\n")
        .file("htdocs/config/a.txt", "x\n")
        .file("htdocs/owner/a.txt", "x\n")
        .file("htdocs/off/a.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for target in ["/a.txt", "/config/a.txt", "/config/missing", "/config/", "/owner/a.txt", "/off/a.txt"] {
        let (real, log) = httpd.send_logged(&Request::get(target)).unwrap_or_else(|e| panic!("{target}: {e}"));
        let v = json(&["explain", conf, target, "--format", "json"]);
        if real == 403 {
            assert_eq!(v["status"], 403, "GET {target}: httpd 403\n{v:#}");
            assert!(log.contains("AH00670"), "{log}");
            assert!(v["error_log"].as_array().unwrap().iter().any(|e| e["code"] == "AH00670"), "{v:#}");
        } else {
            let possible: Vec<u64> =
                v["possible_statuses"].as_array().unwrap().iter().filter_map(Value::as_u64).collect();
            assert!(possible.contains(&(real as u64)), "GET {target}: httpd {real}\n{v:#}");
            assert!(!possible.contains(&403), "GET {target}: httpd {real}\n{v:#}");
        }
    }
}

/// An `AuthUserFile` that is not there: httpd starts, answers 401 without credentials and 500
/// (AH01620) once it checks a password, right or wrong; beside a file that is there, the
/// answers are the usual ones. explain answers each as httpd does, and check warns
/// (missing-auth-file) on the missing file's line only.
#[test]
fn a_missing_auth_user_file_is_a_500_once_credentials_are_checked() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/gone>\n    AuthType Basic\n    AuthName gone\n    AuthUserFile no-such-htpasswd\n    Require valid-user\n</Directory>\n\
<Directory @DOCROOT@/here>\n    AuthType Basic\n    AuthName here\n    AuthUserFile @ROOT@/htpasswd\n    Require valid-user\n</Directory>\n";
    let config = HttpdConfig::new(body).file("htdocs/gone/a.txt", "x\n").file("htdocs/here/a.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    for target in ["/gone/a.txt", "/here/a.txt"] {
        for cred in apache_lsp_e2e::httpd::credentials() {
            let (real, log) = httpd
                .send_logged(&Request::get(target).credentials(cred.clone()))
                .unwrap_or_else(|e| panic!("{target}: {e}"));
            let mut args = vec!["explain", conf, target, "--format", "json"];
            if let Some((user, password)) = &cred {
                if password == "wrong" {
                    args.push("--wrong-password");
                } else {
                    args.extend(["--user", user.as_str()]);
                }
            }
            let v = json(&args);
            assert_eq!(v["status"], real, "GET {target} as {cred:?}:\n{v:#}");
            if real == 500 {
                assert!(log.contains("AH01620"), "{log}");
                assert!(v["error_log"].as_array().unwrap().iter().any(|e| e["code"] == "AH01620"), "{v:#}");
            }
        }
    }
    let (_, report) = run(&["check", conf]);
    let warned: Vec<&str> = report.lines().filter(|l| l.contains("missing-auth-file")).collect();
    assert_eq!(warned.len(), 1, "{report}");
    assert!(warned[0].contains("no-such-htpasswd"), "{report}");
}

/// explain given the configuration's directory reads it through the main configuration at its
/// top, as check does, and answers what httpd answers; given a fragment that main configuration
/// includes, it refuses (exit 2) and names the main configuration, rather than answering from
/// the fragment alone.
#[test]
fn explain_reads_a_directory_through_its_main_configuration_and_refuses_fragments() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
IncludeOptional @ROOT@/sites-enabled/*.conf\n";
    let site = "<Location /private>\n    Require ip 127.0.0.2\n</Location>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/index.html", "x\n")
        .file("htdocs/private/a.txt", "x\n")
        .file("sites-enabled/site.conf", site);
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let root = httpd.config().root().to_str().unwrap().to_string();
    for target in ["/index.html", "/private/a.txt", "/missing"] {
        for client in ["127.0.0.1", "127.0.0.2"] {
            let ip: IpAddr = client.parse().unwrap();
            let real = httpd.send(&Request::get(target).source(ip)).unwrap_or_else(|e| panic!("{target}: {e}"));
            let v = json(&["explain", &root, target, "--client", client, "--format", "json"]);
            assert_eq!(v["status"], real, "explain DIR {target} from {client}:\n{v:#}");
        }
    }
    let fragment = format!("{root}/sites-enabled/site.conf");
    let out = Command::new(server_binary()).args(["explain", &fragment, "/private/a.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{root}/httpd.conf")) && stderr.contains("fragment"), "{stderr}");
}

/// A host-name rule written only in an .htaccess file: explain asks the resolver as it does for
/// the same rule in the server configuration, and answers what httpd answers from each client
/// whose name the resolver gives promptly (cPanel's `Allow from localhost` shape).
#[test]
fn host_name_rules_in_htaccess_files_are_resolved_too() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AllowOverride All\n    Require all granted\n</Directory>\n\
HostnameLookups Off\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/a.txt", "x\n")
        .file("htdocs/.htaccess", "Order deny,allow\nDeny from all\nAllow from localhost\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let clients = apache_lsp_e2e::httpd::names_resolved_locally(apache_lsp_e2e::httpd::sources());
    assert!(clients.contains(&"127.0.0.1".parse::<IpAddr>().unwrap()), "{clients:?}");
    for client in clients {
        let real = httpd.send(&Request::get("/a.txt").source(client)).unwrap_or_else(|e| panic!("{client}: {e}"));
        let c = client.to_string();
        let v = json(&["explain", conf, "/a.txt", "--client", &c, "--format", "json"]);
        assert_eq!(v["status"], real, "GET /a.txt from {client}:\n{v:#}");
        // Without the resolver the name stays unknown, httpd's answer among the possible ones.
        let v = json(&["explain", conf, "/a.txt", "--client", &c, "--no-dns", "--format", "json"]);
        assert!(v["status"].is_null(), "{v:#}");
        assert!(v["possible_statuses"].as_array().unwrap().contains(&real.into()), "{v:#}");
    }
}

/// mod_alias's redirects and mod_dir's DirectorySlash decide the status: a server-level
/// `Redirect` answers at translate_name, before a `<Directory>` that refuses, and so does the
/// one-argument form in a `<Location>` (httpd walks `<Location>` before translate_name, so it
/// redirects where the same `<Location>` refuses); the path form in a `<Location>` and any form
/// in a `<Directory>` answer after access control (the refusal wins); `RedirectMatch` with `$1`,
/// `Redirect gone`, `RedirectPermanent`, `seeother`, a `Redirect` in an .htaccess and in
/// `<If>`/`<Else>` branches; `DirectorySlash Off` and `On` on a directory URL without its
/// slash, with and without an index file, listed by mod_autoindex or refused. Every request is
/// sent to httpd from each client and explain must give httpd's status, as a certain one.
#[test]
fn explain_predicts_mod_alias_redirects_and_directory_slash() {
    if !require_apache2() {
        return;
    }
    let body = "Redirect /srv-denied http://example.invalid/s
RedirectMatch ^/rm/(.*)$ http://example.invalid/m/$1
RedirectMatch 301 ^/rm2/([a-z]+)\\.txt$ /target/$1
RedirectPermanent /perm http://example.invalid/p
Redirect seeother /other /elsewhere
<Directory @DOCROOT@>
    Require all granted
    AllowOverride FileInfo
</Directory>
<Directory @DOCROOT@/srv-denied>
    Require all denied
</Directory>
<Location /loc-denied>
    Require all denied
    Redirect 301 http://example.invalid/l
</Location>
<Location /loc>
    Redirect 307 http://example.invalid/l
</Location>
<Location /loc-path>
    Require all denied
    Redirect /loc-path http://example.invalid/l
</Location>
<Directory @DOCROOT@/dir-denied>
    Require all denied
    Redirect 301 http://example.invalid/d
</Directory>
<Directory @DOCROOT@/gone>
    Redirect gone /gone/old
</Directory>
<Directory @DOCROOT@/br>
    <If \"-R '127.0.0.2'\">
        Redirect 302 http://example.invalid/b
    </If>
    <Else>
        Redirect 410
    </Else>
</Directory>
<Directory @DOCROOT@/off>
    DirectorySlash Off
</Directory>
<Directory @DOCROOT@/offix>
    DirectorySlash Off
    Options +Indexes
</Directory>
";
    let config = HttpdConfig::new(body)
        .with_module("autoindex")
        .file("htdocs/srv-denied/a.txt", "x\n")
        .file("htdocs/loc-denied/a.txt", "x\n")
        .file("htdocs/loc/a.txt", "x\n")
        .file("htdocs/loc-path/a.txt", "x\n")
        .file("htdocs/dir-denied/a.txt", "x\n")
        .file("htdocs/rm2/a.txt", "x\n")
        .file("htdocs/gone/old/a.txt", "x\n")
        .file("htdocs/gone/new.txt", "x\n")
        .file("htdocs/br/a.txt", "x\n")
        .file("htdocs/ht/.htaccess", "Redirect 308 /ht/in http://example.invalid/h\n")
        .file("htdocs/ht/a.txt", "x\n")
        .file("htdocs/ht/in/a.txt", "x\n")
        .file("htdocs/off/index.html", "x\n")
        .file("htdocs/off/empty/a.txt", "x\n")
        .file("htdocs/offix/index.html", "x\n")
        .file("htdocs/on/index.html", "x\n")
        .dir("htdocs/on/empty");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let paths = [
        "/srv-denied/a.txt",
        "/loc-denied/a.txt",
        "/loc/a.txt",
        "/loc-path/a.txt",
        "/dir-denied/a.txt",
        "/rm/x/y",
        "/rm2/a.txt",
        "/rm2/A.txt",
        "/perm/q",
        "/other",
        "/gone/old/a.txt",
        "/gone/new.txt",
        "/br/a.txt",
        "/ht/a.txt",
        "/ht/in/a.txt",
        "/off",
        "/off/empty",
        "/offix",
        "/on",
        "/on/empty",
    ];
    let mut seen = std::collections::BTreeSet::new();
    for client in ["127.0.0.1", "127.0.0.2"] {
        for path in paths {
            let real = httpd
                .send(&Request::get(path).source(client.parse().unwrap()))
                .unwrap_or_else(|e| panic!("{client} {path}: {e}"));
            seen.insert(real);
            let v = json(&["explain", conf, path, "--client", client, "--format", "json"]);
            assert_eq!(v["status"], real, "{client} {path}:\n{v:#}");
            assert_eq!(v["possible_statuses"], serde_json::json!([real]), "{client} {path}:\n{v:#}");
            // Answered before the walk: no section's refusal is reported.
            if ["/srv-denied/a.txt", "/loc-denied/a.txt", "/perm/q"].contains(&path) {
                assert_eq!(v["status_from"], "request", "{client} {path}:\n{v:#}");
                assert_eq!(v["error_log"], serde_json::json!([]), "{client} {path}:\n{v:#}");
            }
        }
    }
    assert_eq!(seen, [200, 301, 302, 303, 307, 308, 403, 404, 410].into(), "every kind of answer reached");
}

/// Round 11b §1 and 11a bug 7: under `AllowOverride … Nonfatal=Override` (or `All`) httpd logs
/// an .htaccess line the AllowOverride does not let in (AH02295) and skips it, a section with
/// its body; under `Nonfatal=Unknown` (or `All`) a directive it does not know (AH02296). The
/// inherited rules decide, both ways: explain must walk without those lines (it granted where
/// httpd refuses, and refused or asked for credentials where httpd serves). A skipped
/// Order/Allow/Deny still replaces the inherited ones with mod_access_compat's defaults.
#[test]
fn htaccess_lines_httpd_skips_under_nonfatal_take_no_effect() {
    if !require_apache2() {
        return;
    }
    let case = |allow: &str, inherited: &str, ht: &str| {
        HttpdConfig::new(format!("<Directory @DOCROOT@>\n    {allow}\n    {inherited}\n</Directory>\n"))
            .file("htdocs/sub/.htaccess", ht)
            .file("htdocs/sub/noidx/f.txt", "f\n")
            .with_module("autoindex")
            .with_module("access_compat")
    };
    let cases: Vec<(&str, [&str; 3], Vec<Asked>, &str)> = vec![
        (
            "Require skipped under Limit Nonfatal=Override: the inherited denial stands",
            ["AllowOverride Limit Nonfatal=Override", "Require all denied", "Require all granted\n"],
            vec![("GET", "/sub/index.html", "127.0.0.1", "a.test")],
            "AH02295",
        ),
        (
            "Order/Deny skipped under AuthConfig Nonfatal=Override",
            [
                "AllowOverride AuthConfig Nonfatal=Override",
                "Require all granted",
                "Order deny,allow\nDeny from 127.0.0.2\n",
            ],
            vec![("GET", "/sub/index.html", "127.0.0.2", "a.test"), ("GET", "/sub/index.html", "127.0.0.1", "a.test")],
            "AH02295",
        ),
        (
            "a <Files> section, credentials, Options and an unknown line skipped under Nonfatal=All",
            [
                "AllowOverride Nonfatal=All\n    Options Indexes",
                "Require all granted",
                "<Files index.html>\n  Require all denied\n</Files>\nFrobnicate on\nOptions -Indexes\nAuthType Basic\nAuthName r\nRequire valid-user\n",
            ],
            vec![
                ("GET", "/sub/index.html", "127.0.0.1", "a.test"),
                ("GET", "/sub/noidx/", "127.0.0.1", "a.test"),
            ],
            "AH02296",
        ),
        (
            "Deny skipped under AuthConfig Nonfatal=Override still replaces the inherited Order/Deny",
            [
                "AllowOverride AuthConfig Nonfatal=Override",
                "Require all granted\n    Order deny,allow\n    Deny from all",
                "Deny from 10.0.0.1\n",
            ],
            vec![("GET", "/sub/index.html", "127.0.0.1", "a.test"), ("GET", "/index.html", "127.0.0.1", "a.test")],
            "AH02295",
        ),
        // Round 13 §J1: only the file's first mod_access_compat line makes that module's
        // configuration; a skipped line after a `Satisfy Any` httpd ran leaves it in force.
        (
            "Satisfy Any, then a Deny skipped under AuthConfig Nonfatal=Override: the Satisfy Any stands",
            [
                "AllowOverride AuthConfig Nonfatal=Override",
                "AuthType Basic\n    AuthName r\n    AuthUserFile /nonexistent/users\n    Require valid-user",
                "Satisfy Any\nDeny from 10.0.0.0/8\n",
            ],
            vec![("GET", "/sub/index.html", "127.0.0.1", "a.test"), ("GET", "/index.html", "127.0.0.1", "a.test")],
            "AH02295",
        ),
        (
            "a Deny skipped under AuthConfig Nonfatal=Override, then Satisfy Any",
            [
                "AllowOverride AuthConfig Nonfatal=Override",
                "AuthType Basic\n    AuthName r\n    AuthUserFile /nonexistent/users\n    Require valid-user",
                "Deny from 10.0.0.0/8\nSatisfy Any\n",
            ],
            vec![("GET", "/sub/index.html", "127.0.0.1", "a.test")],
            "AH02295",
        ),
        (
            "Satisfy any, then an Allow skipped under AuthConfig Nonfatal=All, a deeper Order mutual-failure",
            [
                "AllowOverride AuthConfig Nonfatal=All",
                "Require all denied\n</Directory>\n<Directory @DOCROOT@/sub/noidx>\n    Order mutual-failure",
                "Satisfy any\nAllow from 127\n",
            ],
            vec![("GET", "/sub/index.html", "127.0.0.1", "a.test"), ("GET", "/sub/noidx/f.txt", "127.0.0.1", "a.test")],
            "AH02295",
        ),
        (
            "Satisfy Any, then a Deny skipped in a <Files> section: that section's vector is reset",
            [
                "AllowOverride AuthConfig Nonfatal=Override",
                "Require all denied",
                "Satisfy Any\n<Files index.html>\n  Deny from 10.0.0.0/8\n</Files>\n",
            ],
            vec![("GET", "/sub/index.html", "127.0.0.1", "a.test"), ("GET", "/sub/noidx/f.txt", "127.0.0.1", "a.test")],
            "AH02295",
        ),
        (
            "a read-time <IfDefine> where no class is granted: its header skipped, its closer a 500",
            ["AllowOverride Nonfatal=Override", "Require all granted", "<IfDefine X>\n</IfDefine>\n"],
            vec![("GET", "/sub/index.html", "127.0.0.1", "a.test")],
            "AH02295",
        ),
        (
            "Options +Indexes skipped under AuthConfig Nonfatal=Override",
            ["AllowOverride AuthConfig Nonfatal=Override\n    Options None", "Require all granted", "Options +Indexes\n"],
            vec![("GET", "/sub/noidx/", "127.0.0.1", "a.test")],
            "AH02295",
        ),
    ];
    for (name, [allow, inherited, ht], requests, logged) in cases {
        let httpd = Httpd::start(case(allow, inherited, ht)).unwrap_or_else(|e| panic!("{name}: {e}"));
        for &(method, path, client, host) in &requests {
            let ip: IpAddr = client.parse().unwrap();
            httpd.send(&Request::new(method, path).source(ip).host(host)).unwrap();
        }
        // The premise: httpd skipped the lines (and said so) rather than failing the request.
        assert!(httpd.error_log().contains(logged), "{name}: {}", httpd.error_log());
        httpd.stop();
        assert_eq!(explain_agrees_under_if(name, case(allow, inherited, ht), &requests, true), 0, "{name}");
    }
}

/// Round 13 H2: an `AuthUserFile` or `AuthGroupFile` line httpd skips under `AllowOverride Limit
/// Nonfatal=Override` (AH02295) is not harmless: httpd makes the module's configuration of the
/// .htaccess file before refusing the line, mod_authn_file and mod_authz_groupfile merge nothing,
/// so the inherited file no longer applies beneath. alice's credentials get 500 (AH01619,
/// AuthUserFile not specified) or 401 (AH01664, no group file), where the parent directory
/// serves her; explain said 200.
#[test]
fn a_skipped_auth_file_line_still_replaces_the_inherited_file() {
    if !require_apache2() {
        return;
    }
    let cases = [
        ("AuthUserFile", "Require valid-user", "AuthUserFile @ROOT@/htpasswd\n", 500, "AH01619"),
        (
            "AuthGroupFile",
            "AuthGroupFile @ROOT@/htgroups\n    Require group admins",
            "AuthGroupFile @ROOT@/htgroups\n",
            401,
            "AH01664",
        ),
    ];
    for (name, rules, htaccess, beneath, logged) in cases {
        let body = format!(
            "<Directory @DOCROOT@>\n    AllowOverride Limit Nonfatal=Override\n    AuthType Basic\n    AuthName r\n    AuthUserFile @ROOT@/htpasswd\n    {rules}\n</Directory>\n"
        );
        let cfg = HttpdConfig::new(body).file("htdocs/sub/.htaccess", htaccess);
        let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let requests = [
            Request::get("/sub/index.html").user("alice", "apw"),
            Request::get("/index.html").user("alice", "apw"),
            Request::get("/sub/index.html"),
        ];
        let seen = explain_agrees_with_httpd(&httpd, &requests, true);
        assert_eq!(seen, [beneath, 200, 401], "{name}");
        let log = httpd.error_log();
        assert!(log.contains("AH02295") && log.contains(logged), "{name}: {log}");
    }
}

/// Session 22 (helper N): httpd makes a module's per-directory configuration of a vector (the
/// .htaccess file's, or a `<Files>` section's in it) at the first line of that module there,
/// whether it then runs the line or skips it (`ap_set_config_vectors` before `invoke_cmd`); a
/// module without a merger then has only that vector's settings. So under `Nonfatal=Override`
/// the first line of such a module in its vector resets what it inherited even when skipped,
/// and a later skipped line of it changes nothing. mod_authn_dbm (`AuthDBMUserFile`,
/// `AuthDBMType`) and mod_authz_dbm (`AuthDBMGroupFile`, `AuthzDBMType`) are such modules: a
/// section with only their type line drops the inherited file. alice's credentials get 500
/// (AH10285, no DBM file named) or 401 (no DBM group file, AH01798) where the inherited file
/// would serve her (or fail to open: 500); explain inherited the file (200, or a DBM group file it
/// does not read, so "401 or 500 possible" where httpd's 401 is certain).
#[test]
fn only_the_first_line_of_a_module_without_a_merger_resets_it() {
    if !require_apache2() || !htdbm_available() {
        return;
    }
    let dbm = "AuthType Basic\n    AuthName r\n    AuthBasicProvider dbm\n    AuthDBMUserFile @ROOT@/users.dbm\n    Require valid-user";
    let file = "AuthType Basic\n    AuthName r\n    AuthUserFile @ROOT@/htpasswd\n    Require valid-user";
    let groups = "AuthType Basic\n    AuthName r\n    AuthUserFile @ROOT@/htpasswd\n    AuthDBMGroupFile @ROOT@/no-groups\n    Require dbm-group admins";
    // (name, the document root's rules, its AllowOverride, sub/.htaccess, alice's statuses for
    // /sub/a.txt, /sub/b.txt and /a.txt, and which of them explain must state as certain: all
    // but those the inherited DBM group file decides, which explain does not read)
    type Case<'a> = (&'a str, &'a str, &'a str, &'a str, [u16; 3], [bool; 3]);
    let cases: [Case; 8] = [
        (
            "AuthDBMType let in by AllowOverrideList, then AuthDBMUserFile skipped: the file is gone",
            dbm,
            "Limit Nonfatal=Override\n    AllowOverrideList AuthDBMType",
            "AuthDBMType default\nAuthDBMUserFile @ROOT@/users.dbm\n",
            [500, 500, 200],
            [true; 3],
        ),
        (
            "two skipped lines of mod_authn_dbm: the first resets it",
            dbm,
            "Limit Nonfatal=Override",
            "AuthDBMUserFile @ROOT@/users.dbm\nAuthDBMType default\n",
            [500, 500, 200],
            [true; 3],
        ),
        (
            "AuthDBMUserFile let in, AuthDBMType skipped in <Files a.txt> (its own vector) and after it at the top",
            dbm,
            "Limit Nonfatal=Override\n    AllowOverrideList AuthDBMUserFile",
            "AuthDBMUserFile @ROOT@/users.dbm\n<Files a.txt>\n  AuthDBMType default\n</Files>\nAuthDBMType SDBM\n",
            [500, 200, 200],
            [true; 3],
        ),
        (
            "AuthDBMType alone, let in: mod_authn_dbm merges nothing",
            dbm,
            "AuthConfig",
            "AuthDBMType default\n",
            [500, 500, 200],
            [true; 3],
        ),
        (
            "two skipped AuthUserFile lines",
            file,
            "Limit Nonfatal=Override",
            "AuthUserFile @ROOT@/htpasswd\nAuthUserFile @ROOT@/htpasswd\n",
            [500, 500, 200],
            [true; 3],
        ),
        (
            "a skipped AuthUserFile in <Files a.txt> resets that section's vector only",
            file,
            "Limit Nonfatal=Override",
            "<Files a.txt>\n  AuthUserFile @ROOT@/htpasswd\n</Files>\n",
            [500, 200, 200],
            [true; 3],
        ),
        (
            "AuthzDBMType alone, let in: the inherited AuthDBMGroupFile is gone",
            groups,
            "AuthConfig",
            "AuthzDBMType default\n",
            [401, 401, 500],
            [true, true, false],
        ),
        (
            "AuthzDBMType skipped in <Files a.txt>",
            groups,
            "Limit Nonfatal=Override",
            "<Files a.txt>\n  AuthzDBMType default\n</Files>\n",
            [401, 500, 500],
            [true, false, false],
        ),
    ];
    for (name, rules, allow, htaccess, expected, certain) in cases {
        let body = format!("<Directory @DOCROOT@>\n    AllowOverride {allow}\n    {rules}\n</Directory>\n");
        let cfg = HttpdConfig::new(body)
            .with_module("authn_dbm")
            .with_module("authz_dbm")
            .file("htdocs/sub/.htaccess", htaccess)
            .file("htdocs/sub/a.txt", "a\n")
            .file("htdocs/sub/b.txt", "b\n")
            .file("htdocs/a.txt", "a\n");
        let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let db = httpd.config().root().join("users.dbm");
        let made = Command::new("htdbm").arg("-cb").arg(&db).args(["alice", "apw"]).output().unwrap();
        assert!(made.status.success(), "{made:?}");
        let mut seen = Vec::new();
        for (path, certain) in ["/sub/a.txt", "/sub/b.txt", "/a.txt"].into_iter().zip(certain) {
            let request = [Request::get(path).user("alice", "apw")];
            seen.extend(match certain {
                true => explain_states_httpds_status(&httpd, &request),
                false => explain_agrees_with_httpd(&httpd, &request, true),
            });
        }
        assert_eq!(seen, expected, "{name}: {}", httpd.error_log());
    }
}

/// httpd's directory walk stops at the first component that is not there (the rest is path
/// info): a `<Directory>` for a deeper directory that does not exist applies to nothing, and
/// one naming a file applies only when the walk skipped the stat of it (the whole path exists,
/// FollowSymLinks without SymLinksIfOwnerMatch).
#[test]
fn sections_for_directories_that_do_not_exist_never_apply() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory />\n    Require all denied\n</Directory>\n\
<Directory @DOCROOT@>\n    Require all granted\n    Options FollowSymLinks\n</Directory>\n\
<Directory @DOCROOT@/priv>\n    Require all denied\n</Directory>\n\
<Directory @DOCROOT@/priv/nosub>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/open>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/open/nosub>\n    Require all denied\n</Directory>\n\
<Directory @DOCROOT@/b.txt>\n    Require all denied\n</Directory>\n\
<Directory @DOCROOT@/owner>\n    Options SymLinksIfOwnerMatch\n</Directory>\n\
<Directory @DOCROOT@/owner/c.txt>\n    Require all denied\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/priv/secret.txt", "x\n")
        .file("htdocs/open/o.txt", "x\n")
        .file("htdocs/b.txt", "x\n")
        .file("htdocs/owner/c.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let paths = [
        "/priv/nosub/",
        "/priv/nosub",
        "/priv/nosub/x.txt",
        "/open/nosub/",
        "/open/nosub/x.txt",
        "/b.txt",
        "/b.txt/x",
        "/owner/c.txt",
    ];
    let seen = explain_agrees_with_httpd(&httpd, &paths.map(Request::get), true);
    assert_eq!(seen, [403, 403, 403, 404, 404, 403, 404, 200], "the cases this test is about");
}

/// Round 13 §J2: a wildcard `<Directory …/*>` is matched against the directories httpd's walk
/// reaches: an existing file of the DocumentRoot (whose stat the walk skips) gets it, a missing
/// file or one below a missing directory does not (the walk stops at the missing component).
#[test]
fn a_wildcard_directory_does_not_reach_missing_paths() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Files \"*.txt\">\n    Require group admins\n</Files>\n\
<Directory @DOCROOT@/*>\n    Order allow,deny\n</Directory>\n\
<FilesMatch \"\\.php$\">\n    AuthType Basic\n    AuthName r\n    AuthUserFile /nonexistent/users\n    Require valid-user\n</FilesMatch>\n";
    let config = HttpdConfig::new(body)
        .with_module("access_compat")
        .file("htdocs/x.txt", "x\n")
        .file("htdocs/s.php", "x\n")
        .file("htdocs/sub/y.txt", "y\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let paths =
        ["/x.txt", "/nope.txt", "/sub/y.txt", "/sub/nope.txt", "/api/v1/x.txt", "/s.php", "/x.php", "/api/v1/x.bak"];
    let seen = explain_agrees_with_httpd(&httpd, &paths.map(Request::get), true);
    assert_eq!(seen, [403, 500, 403, 403, 404, 403, 401, 404], "the cases this test is about");
}

/// mod_dir goes on to the next DirectoryIndex name whatever a subrequest answers: where the
/// access check of one name is not known, the statuses possible are those of every way the
/// names may end (httpd serves the next name, answers a refusal, or finds no index).
#[test]
fn an_index_name_whose_access_is_unknown_leaves_the_next_names_possible() {
    if !require_apache2() {
        return;
    }
    let body = "DirectoryIndex index.html index.php\n\
<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Files index.html>\n    Require expr \"%{HTTP:X-A} == 'a'\"\n</Files>\n\
<Files index.php>\n    Require ip 127.0.0.2\n</Files>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/php/index.php", "x\n")
        .file("htdocs/both/index.php", "x\n")
        .file("htdocs/both/index.html", "x\n")
        .file("htdocs/html/index.html", "x\n")
        .file("htdocs/none/n.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for client in ["127.0.0.1", "127.0.0.2"] {
        for path in ["/php/", "/both/", "/html/", "/none/"] {
            for a in ["a", "b"] {
                requests.push(Request::get(path).source(client.parse().unwrap()).header("X-A", a));
            }
        }
    }
    // Told the header, explain knows each answer; untold, httpd's is among the possible ones.
    let told = explain_agrees_with_httpd(&httpd, &requests, true);
    let untold = explain_agrees_with_httpd(&httpd, &requests, false);
    assert_eq!(told, untold);
    let seen: std::collections::BTreeSet<u16> = told.into_iter().collect();
    assert_eq!(seen, [200, 403, 404].into(), "served by the first or the next name, refused, or no index");
}

/// mod_allowmethods refuses a method its sections do not list with 405, before every other
/// access check (a section's lines add up; a later section's list replaces; `reset` stops it).
#[test]
fn allow_methods_refuses_the_methods_it_does_not_list() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n    AllowMethods GET\n</Directory>\n\
<Directory @DOCROOT@/sub>\n    AllowMethods POST\n    AllowMethods PUT\n</Directory>\n\
<Directory @DOCROOT@/priv>\n    AllowMethods GET POST\n    Require ip 127.0.0.2\n</Directory>\n\
<Location /open>\n    AllowMethods reset\n</Location>\n";
    let config = HttpdConfig::new(body)
        .with_module("allowmethods")
        .file("htdocs/b.txt", "x\n")
        .file("htdocs/sub/x.txt", "x\n")
        .file("htdocs/priv/secret.txt", "x\n")
        .file("htdocs/open/o.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests = [
        ("POST", "/b.txt"),
        ("HEAD", "/b.txt"),
        ("OPTIONS", "/b.txt"),
        ("FOO", "/b.txt"),
        ("get", "/b.txt"),
        ("POST", "/missing"),
        ("GET", "/sub/x.txt"),
        ("POST", "/sub/x.txt"),
        ("PUT", "/sub/x.txt"),
        ("OPTIONS", "/priv/secret.txt"),
        ("POST", "/priv/secret.txt"),
        ("POST", "/open/o.txt"),
    ];
    let seen = explain_agrees_with_httpd(&httpd, &requests.map(|(m, p)| Request::new(m, p)), true);
    assert_eq!(seen, [405, 200, 405, 405, 405, 405, 405, 200, 405, 405, 403, 200], "the cases this test is about");
}

/// mod_remoteip: a connection from a trusted proxy takes its client address from
/// RemoteIPHeader (read right to left through the listed proxies; a private address from a
/// proxy that is not internal is ignored), and the access rules see that address. Untold, the
/// header leaves the address, so the status, unknown.
#[test]
fn remoteip_gives_the_client_address_the_access_rules_see() {
    if !require_apache2() {
        return;
    }
    let body = "RemoteIPHeader X-Test\nRemoteIPInternalProxy 127.0.0.0/30\nRemoteIPTrustedProxy 127.0.0.5\n\
<Directory @DOCROOT@>\n    Require ip 10.1.2.3 8.8.8.8\n</Directory>\n\
<Directory @DOCROOT@/sub>\n    Require ip 127.0.0.1\n</Directory>\n";
    let config =
        HttpdConfig::new(body).with_module("remoteip").file("htdocs/b.txt", "x\n").file("htdocs/sub/x.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let cases = [
        ("/sub/x.txt", "127.0.0.1", Some("10.1.2.3")),
        ("/b.txt", "127.0.0.1", Some("10.1.2.3")),
        ("/b.txt", "127.0.0.1", None),
        ("/sub/x.txt", "127.0.0.1", None),
        ("/b.txt", "127.0.0.9", Some("10.1.2.3")),
        ("/b.txt", "127.0.0.5", Some("10.1.2.3")),
        ("/b.txt", "127.0.0.5", Some("8.8.8.8")),
        ("/b.txt", "127.0.0.1", Some("8.8.8.8, 127.0.0.2")),
        ("/b.txt", "127.0.0.1", Some("10.1.2.3,127.0.0.5")),
        ("/b.txt", "127.0.0.1", Some("8.8.8.8,127.0.0.5")),
        ("/sub/x.txt", "127.0.0.1", Some("127.0.0.1,")),
    ];
    let requests = cases.map(|(path, source, header)| {
        let r = Request::get(path).source(source.parse().unwrap());
        match header {
            Some(h) => r.header("X-Test", h),
            None => r,
        }
    });
    let told = explain_agrees_with_httpd(&httpd, &requests, true);
    assert_eq!(told, [403, 200, 403, 200, 403, 403, 200, 200, 403, 200, 200], "the cases this test is about");
    explain_agrees_with_httpd(&httpd, &requests, false);
}

/// Alias targets as httpd walks them: a `//` where the target's slash meets the URL's is one
/// `/` (`apr_filepath_merge`), and mod_dir asks the URL, not the file name, for its trailing
/// slash (`Alias /al/ /srv/out`: `/al/` is a directory with its slash, whose index names map
/// next to it).
#[test]
fn alias_targets_with_and_without_a_trailing_slash_are_walked_as_httpd_does() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @ROOT@>\n    Require all granted\n</Directory>\n\
Alias /static @ROOT@/out/\nAlias /al/ @ROOT@/out\nAliasMatch ^/am(/.*)?$ @ROOT@/out/$1\nAlias /a2/ @ROOT@/out//\n\
Alias /ix/ @ROOT@/listed\n\
<Directory @ROOT@/out/d>\n    Require all denied\n</Directory>\n\
<Directory @ROOT@/listed>\n    Options Indexes\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .with_module("autoindex")
        .file("out/f.txt", "x\n")
        .file("out/index.html", "x\n")
        .file("out/d/g.txt", "x\n")
        .file("listed/l.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests = [
        ("GET", "/static/f.txt"),
        ("GET", "/static/index.html"),
        ("GET", "/static"),
        ("GET", "/static/"),
        ("GET", "/static/d/g.txt"),
        ("GET", "/static/nope"),
        ("GET", "/al/"),
        ("HEAD", "/al/"),
        ("POST", "/al/"),
        ("GET", "/al/f.txt"),
        ("GET", "/am/f.txt"),
        ("GET", "/am"),
        ("GET", "/am/"),
        ("GET", "/a2/f.txt"),
        ("GET", "/a2/d/g.txt"),
        ("GET", "/ix/"),
    ];
    let seen = explain_agrees_with_httpd(&httpd, &requests.map(|(m, p)| Request::new(m, p)), true);
    let distinct: std::collections::BTreeSet<u16> = seen.into_iter().collect();
    assert_eq!(distinct, [200, 301, 403, 404].into(), "every kind of answer reached");
}

/// Where a handler other than the default one may answer (MultiViews, CheckSpelling,
/// FallbackResource, RewriteRule flags), the statuses possible hold httpd's answer, the
/// default handler's where they step aside included; a handler no module serves (cgi-script
/// without mod_cgi) leaves the default handler's answer certain.
#[test]
fn statuses_possible_under_other_handlers_hold_httpds_answer() {
    if !require_apache2() {
        return;
    }
    let body = "RewriteEngine On\nRewriteRule ^/forbid - [F]\nRewriteRule ^/gone - [G]\n\
RewriteRule ^/go$ http://example.invalid/ [R=302,L]\n\
<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/mv>\n    Options MultiViews\n    ErrorDocument 404 http://example.invalid/e\n</Directory>\n\
<Directory @DOCROOT@/sp>\n    CheckSpelling On\n</Directory>\n\
<Directory @DOCROOT@/fb>\n    FallbackResource /fb/index.html\n</Directory>\n\
<Directory @DOCROOT@/fb/sub>\n    FallbackResource disabled\n</Directory>\n\
<Directory @DOCROOT@/fb/priv>\n    FallbackResource /fb/priv/secret.txt\n</Directory>\n\
<Files secret.txt>\n    Require ip 127.0.0.2\n</Files>\n\
<Directory @DOCROOT@/cgi>\n    AddHandler cgi-script .txt\n</Directory>\n\
<Directory @DOCROOT@/mvx>\n    Options MultiViews\n    Require expr \"%{REQUEST_URI} =~ /\\.txt$/\"\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .with_module("mime")
        .with_module("negotiation")
        .with_module("speling")
        .with_module("rewrite")
        .with_module("autoindex")
        .without_module("cgi")
        .without_module("cgid")
        .file("htdocs/mv/a.html", "x\n")
        .file("htdocs/mv/noidx/n.txt", "x\n")
        .file("htdocs/sp/Case.TXT", "x\n")
        .file("htdocs/sp/b.txt", "x\n")
        .file("htdocs/fb/index.html", "x\n")
        .file("htdocs/fb/sub/s.txt", "x\n")
        .file("htdocs/fb/priv/secret.txt", "x\n")
        .file("htdocs/cgi/c.txt", "x\n")
        .file("htdocs/plain.html", "x\n")
        .file("htdocs/mvx/a.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for (m, p) in [
        ("GET", "/mv/noidx/"),
        ("GET", "/mv/noidx"),
        ("PUT", "/mv/a.html"),
        ("FOO", "/mv/a.html"),
        ("GET", "/mv/missing"),
        ("GET", "/mv/a"),
        ("GET", "/mv/a.html/x"),
        ("GET", "/sp/case.txt"),
        ("GET", "/sp/b.tx"),
        ("GET", "/sp/missing"),
        ("PUT", "/sp/b.tx"),
        ("GET", "/fb/sub/missing"),
        ("GET", "/fb/priv/nope"),
        ("GET", "/fb/missing"),
        ("PUT", "/fb/missing"),
        ("GET", "/fb/index.html/x"),
        ("GET", "/gone"),
        ("GET", "/go"),
        ("GET", "/forbid"),
        ("PUT", "/plain.html"),
        ("PUT", "/cgi/c.txt"),
        ("FOO", "/cgi/c.txt"),
        ("GET", "/cgi/c.txt/x"),
        // Access unknown (Require expr), MultiViews on a missing name: 404 is possible.
        ("GET", "/mvx/missing.txt"),
        ("GET", "/mvx/a.txt"),
    ] {
        requests.push(Request::new(m, p));
    }
    requests.push(Request::get("/fb/priv/nope").source("127.0.0.2".parse().unwrap()));
    let seen: std::collections::BTreeSet<u16> =
        explain_agrees_with_httpd(&httpd, &requests, true).into_iter().collect();
    assert_eq!(seen, [200, 301, 302, 403, 404, 405, 410, 501].into(), "every kind of answer reached");
}

/// A RewriteRule's `[R=…]` status as mod_rewrite reads it: `permanent`, `temp` and `seeother`
/// by name (case aside), a value starting with a digit by its leading number (`301x` is 301),
/// and any other word (`gone`, which Redirect knows but mod_rewrite does not) leaves a 302.
/// Each rule in a directory of its own, so that explain's possible statuses (every rule that
/// applies) are those of one rule: they hold httpd's answer.
#[test]
fn a_rewrite_redirects_status_is_read_as_mod_rewrite_reads_it() {
    if !require_apache2() {
        return;
    }
    let rules = [
        ("gone", "R=gone"),
        ("gone-upper", "redirect=GONE"),
        ("digits", "R=301x"),
        ("permanent", "r=Permanent"),
        ("seeother", "R=seeother,L"),
        ("plain", "R"),
    ];
    let mut body = String::from("<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n");
    for (dir, flags) in rules {
        body.push_str(&format!(
            "<Directory @DOCROOT@/{dir}>\n    RewriteEngine On\n    RewriteRule ^ http://example.invalid/ [{flags}]\n</Directory>\n"
        ));
    }
    let config =
        rules.iter().fold(HttpdConfig::new(body).with_module("rewrite"), |c, (dir, _)| c.dir(format!("htdocs/{dir}")));
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests: Vec<Request> = rules.iter().map(|(dir, _)| Request::get(&format!("/{dir}/x"))).collect();
    let seen = explain_agrees_with_httpd(&httpd, &requests, true);
    assert_eq!(seen, [302, 302, 301, 301, 303, 302], "httpd's answers, rule by rule");
}

/// A target refused before the walk (a bad path, `%2F`, `%00`, TRACE under TraceEnable Off) gets
/// the server's ErrorDocument: a full URL makes it a 302.
#[test]
fn targets_refused_before_the_walk_get_the_servers_error_document() {
    if !require_apache2() {
        return;
    }
    let body = "ErrorDocument 400 http://example.invalid/bad\nErrorDocument 404 http://example.invalid/nf\n\
ErrorDocument 405 http://example.invalid/na\nTraceEnable Off\n\
<Directory @DOCROOT@>\n    Require all granted\n    ErrorDocument 404 /err.html\n</Directory>\n";
    let config = HttpdConfig::new(body).file("htdocs/b.txt", "x\n").file("htdocs/sub/s.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests = [
        ("GET", "/sub/../../b.txt"),
        ("GET", "/%zz"),
        ("GET", "/sub%2fx"),
        ("GET", "/x%00"),
        ("TRACE", "/b.txt"),
        ("GET", "/missing"),
    ];
    let seen = explain_agrees_with_httpd(&httpd, &requests.map(|(m, p)| Request::new(m, p)), true);
    assert_eq!(seen, [302, 302, 302, 302, 302, 404], "the cases this test is about");
}

/// A DirectoryIndex name that is a directory without its trailing slash: its subrequest is
/// redirected by mod_dir, and mod_dir passes the redirect on at once (even before a later name
/// that exists).
#[test]
fn a_directory_index_naming_a_directory_passes_its_redirect_on() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/sub>\n    DirectoryIndex deep nope.html\n</Directory>\n\
<Directory @DOCROOT@/first>\n    DirectoryIndex ../sub idx.txt\n</Directory>\n\
<Directory @DOCROOT@/plain>\n    DirectoryIndex nosuch index.html\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/sub/deep/y.txt", "x\n")
        .file("htdocs/first/idx.txt", "x\n")
        .file("htdocs/plain/index.html", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests = [("GET", "/sub/"), ("HEAD", "/sub/"), ("POST", "/sub/"), ("GET", "/first/"), ("GET", "/plain/")];
    let seen = explain_agrees_with_httpd(&httpd, &requests.map(|(m, p)| Request::new(m, p)), true);
    assert_eq!(seen, [301, 301, 301, 301, 200], "the cases this test is about");
}

/// A request line longer than LimitRequestLine is refused with 414 while it is read, CONNECT
/// with a path (not `host:port`) with 400 while it is parsed.
#[test]
fn request_lines_refused_while_read_or_parsed() {
    if !require_apache2() {
        return;
    }
    let body = "LimitRequestLine 100\n<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n";
    let httpd = Httpd::start(HttpdConfig::new(body)).unwrap_or_else(|e| panic!("{e}"));
    let long = |n: usize| format!("/{}", "a".repeat(n));
    let requests = [
        Request::get(&long(86)),
        Request::get(&long(87)),
        Request::get(&long(88)),
        Request::get(&long(140)),
        Request::new("POST", &long(86)),
        Request::new("POST", &long(87)),
        // CONNECT needs host:port: a path is refused while the request line is parsed.
        Request::new("CONNECT", "/b.txt"),
        Request::new("CONNECT", "/"),
    ];
    let seen = explain_agrees_with_httpd(&httpd, &requests, true);
    assert_eq!(seen, [404, 404, 414, 414, 404, 414, 400, 400], "both sides of the limit, and CONNECT");
}

/// A DirectoryIndex name with a path after a file (`n.txt/`, `n.txt/x`): the subrequest finds the
/// regular file, mod_dir serves it, and the default handler then refuses the path info (404,
/// AH00130) unless AcceptPathInfo is On for the directory itself (core takes it from the request's
/// sections before mod_dir runs: one in the index file's `<Files>` does not count).
#[test]
fn a_directory_index_name_with_path_info_is_refused_by_the_default_handler() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/slash>\n    DirectoryIndex n.txt/\n</Directory>\n\
<Directory @DOCROOT@/deeper>\n    DirectoryIndex n.txt/more other.txt\n</Directory>\n\
<Directory @DOCROOT@/on>\n    DirectoryIndex n.txt/\n</Directory>\n\
<Directory @DOCROOT@/on>\n    <Files n.txt>\n        AcceptPathInfo On\n    </Files>\n</Directory>\n\
<Directory @DOCROOT@/plain>\n    DirectoryIndex n.txt\n</Directory>\n\
<Directory @DOCROOT@/ondir>\n    DirectoryIndex n.txt/\n    AcceptPathInfo On\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/ondir/n.txt", "x\n")
        .file("htdocs/slash/n.txt", "x\n")
        .file("htdocs/deeper/n.txt", "x\n")
        .file("htdocs/deeper/other.txt", "x\n")
        .file("htdocs/on/n.txt", "x\n")
        .file("htdocs/plain/n.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests = [
        ("GET", "/slash/"),
        ("HEAD", "/slash/"),
        ("POST", "/deeper/"),
        ("GET", "/on/"),
        ("GET", "/plain/"),
        ("GET", "/ondir/"),
    ];
    let seen = explain_agrees_with_httpd(&httpd, &requests.map(|(m, p)| Request::new(m, p)), true);
    assert_eq!(seen, [404, 404, 404, 404, 200, 200], "the cases this test is about");
}

/// mod_authn_anon (`AuthBasicProvider anon`): a name the `Anonymous` list holds (any case, `*`
/// any name) is accepted with a password the email checks pass (MustGiveEmail, on by default: not
/// empty; VerifyEmail: an `@` and a `.`), one with a password they refuse is a 401 at once, and
/// any other name goes on to the next provider (a 401 when there is none). A section with any
/// Anonymous directive replaces the inherited settings whole (the module has no merger).
/// `--user NAME` says the password is one the provider accepts; `--wrong-password` one it refuses.
#[test]
fn anonymous_credentials_are_checked_as_mod_authn_anon_checks_them() {
    if !require_apache2() {
        return;
    }
    let auth = "    AuthType Basic\n    AuthName anon\n";
    let body = format!(
        "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/anon>\n{auth}    AuthBasicProvider anon\n    Anonymous guest Visitor\n    Require valid-user\n</Directory>\n\
<Directory @DOCROOT@/anon/reset>\n    Anonymous_VerifyEmail On\n</Directory>\n\
<Directory @DOCROOT@/both>\n{auth}    AuthBasicProvider anon file\n    AuthUserFile @ROOT@/htpasswd\n    Anonymous guest\n    Anonymous_MustGiveEmail Off\n    Require valid-user\n</Directory>\n\
<Directory @DOCROOT@/star>\n{auth}    AuthBasicProvider anon\n    Anonymous *\n    Require user bob\n</Directory>\n\
<Directory @DOCROOT@/unset>\n{auth}    AuthBasicProvider anon\n    Anonymous_NoUserID On\n    Require valid-user\n</Directory>\n"
    );
    let config = HttpdConfig::new(body)
        .with_module("authn_anon")
        .file("htdocs/anon/a.txt", "x\n")
        .file("htdocs/anon/reset/a.txt", "x\n")
        .file("htdocs/both/a.txt", "x\n")
        .file("htdocs/star/a.txt", "x\n")
        .file("htdocs/unset/a.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    // (target, user, password sent, what explain is told: the password is accepted or not)
    let cases = [
        ("/anon/a.txt", None, "", true),
        ("/anon/a.txt", Some("guest"), "me@example.org", true),
        ("/anon/a.txt", Some("VISITOR"), "me", true),
        ("/anon/a.txt", Some("guest"), "", false),
        ("/anon/a.txt", Some("alice"), "apw", true),
        ("/anon/reset/a.txt", Some("guest"), "me@example.org", true),
        ("/both/a.txt", Some("guest"), "", true),
        ("/both/a.txt", Some("alice"), "apw", true),
        ("/both/a.txt", Some("alice"), "wrong", false),
        ("/star/a.txt", Some("bob"), "me", true),
        ("/star/a.txt", Some("alice"), "me", true),
        ("/star/a.txt", Some("alice"), "", false),
        ("/unset/a.txt", Some("guest"), "me", true),
    ];
    let mut seen = Vec::new();
    for (target, user, password, accepted) in cases {
        let mut req = Request::get(target);
        if let Some(user) = user {
            req = req.user(user, password);
        }
        let real = httpd.send(&req).unwrap_or_else(|e| panic!("{target}: {e}"));
        seen.push(real);
        let mut args = vec!["explain", conf, target, "--format", "json"];
        match (user, accepted) {
            (Some(user), true) => args.extend(["--user", user]),
            (Some(_), false) => args.push("--wrong-password"),
            (None, _) => {}
        }
        let v = json(&args);
        let what = format!("GET {target} as {user:?}:{password:?}:\n{v:#}");
        if target == "/both/a.txt" && !accepted {
            // Wrong credentials may be a name mod_authn_anon lists, which it takes with any
            // password (no email check here): explain is not told the name.
            assert!(v["status"].is_null(), "{what}");
            assert!(v["possible_statuses"].as_array().unwrap().contains(&Value::from(real)), "{what}");
        } else {
            assert_eq!(v["status"], real, "{what}");
        }
    }
    assert_eq!(seen, [401, 200, 200, 401, 401, 401, 200, 200, 401, 200, 401, 401, 401], "the cases this test is about");
}

/// A RedirectMatch target with `$N`: once the pattern matched, the substitution is known, and so
/// is mod_alias's answer: the redirect where it makes a path or a URL, a 500 (AH00674/AH00676)
/// where it makes neither (an empty group, a bare word).
#[test]
fn redirect_match_substitutions_are_made_as_mod_alias_makes_them() {
    if !require_apache2() {
        return;
    }
    let body = "RedirectMatch ^/srv/([a-z]*)(/.*)?$ $1$2\n\
RedirectMatch 301 ^/abs/(.*)$ /target/$1\n\
<Directory @DOCROOT@>\n    Require all granted\n    RedirectMatch ^/dir/(.*)$ $1\n    RedirectMatch ^/url/(.*)$ http://example.invalid/$1\n</Directory>\n";
    let config = HttpdConfig::new(body).dir("htdocs/dir").dir("htdocs/url");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let port = httpd.port().to_string();
    let targets = ["/srv/", "/srv/abc", "/srv/abc/d", "/srv/ABC", "/abs/x", "/dir/", "/dir/x", "/url/z"];
    let mut seen = Vec::new();
    for target in targets {
        let real = httpd.send(&Request::get(target)).unwrap_or_else(|e| panic!("{target}: {e}"));
        seen.push(real);
        let v = json(&["explain", conf, target, "--format", "json", "--client", "127.0.0.1", "--port", &port]);
        assert_eq!(v["status"], real, "GET {target}:\n{v:#}");
    }
    assert_eq!(seen, [500, 500, 500, 404, 301, 500, 500, 302], "the cases this test is about");
}

/// A DirectoryIndex subrequest for a file of the requested directory reuses the request's
/// directory walk (`server/request.c: ap_directory_walk`, the walk cache copied from `r->main`):
/// its `<Directory>` sections are the directory's, not the file's (a wildcard matching the file, a
/// regex matching the directory only), while its `<Files>` and `<Location>` sections are its own;
/// with no section of its own, the access checks are not run again at all.
#[test]
fn a_directory_index_subrequest_keeps_the_directorys_sections() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Order allow,deny\n    Allow from all\n    Deny from 127.0.0.2\n</Directory>\n\
<Directory ~ \"@DOCROOT@/(a|f|l)/$\">\n    Order allow,deny\n    Allow from all\n</Directory>\n\
<Directory @DOCROOT@/f>\n    <Files index.html>\n        Options +Indexes\n    </Files>\n</Directory>\n\
<Location /l/index.html>\n    Options +Indexes\n</Location>\n\
<Directory @DOCROOT@/w/*>\n    AuthType Basic\n    AuthName w\n    AuthUserFile @ROOT@/htpasswd\n    Require user alice\n</Directory>\n\
<Directory @DOCROOT@/d>\n    <Files index.html>\n        Deny from all\n    </Files>\n</Directory>\n\
<Directory @DOCROOT@/s>\n    DirectoryIndex sub/index.html\n</Directory>\n\
<Directory @DOCROOT@/s/sub>\n    Order deny,allow\n    Deny from 127.0.0.1\n</Directory>\n\
<Directory ~ \"@DOCROOT@/s/$\">\n    Order allow,deny\n    Allow from all\n</Directory>\n";
    let mut config = HttpdConfig::new(body);
    for d in ["a", "f", "l", "w", "d", "s/sub"] {
        config = config.file(format!("htdocs/{d}/index.html"), "x\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for client in ["127.0.0.1", "127.0.0.2"] {
        for path in ["/a/", "/a/index.html", "/f/", "/l/", "/w/", "/w/index.html", "/d/", "/s/"] {
            requests.push(Request::get(path).source(client.parse().unwrap()));
        }
    }
    let seen = explain_agrees_with_httpd(&httpd, &requests, true);
    assert_eq!(
        seen,
        [200, 200, 200, 200, 200, 401, 403, 403, 200, 403, 200, 200, 403, 403, 403, 200],
        "the cases this test is about"
    );
}

/// Basic authentication set up in .htaccess files: an `AuthUserFile` that is not there (relative
/// to ServerRoot, as in the configuration), none at all, and one that is there. Without
/// credentials each is the usual 401; once httpd checks a password, right or wrong, the missing
/// file is a 500 (AH01620) and the unnamed one a 500 (AH01619).
#[test]
fn a_missing_auth_user_file_named_in_an_htaccess_file_is_a_500_once_credentials_are_checked() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AllowOverride AuthConfig\n    Require all granted\n</Directory>\n";
    let basic = "AuthType Basic\nAuthName ht\nRequire valid-user\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/gone/.htaccess", format!("{basic}AuthUserFile no-such-htpasswd\n"))
        .file("htdocs/gone/a.txt", "x\n")
        .file("htdocs/unnamed/.htaccess", basic)
        .file("htdocs/unnamed/a.txt", "x\n")
        .file("htdocs/here/.htaccess", format!("{basic}AuthUserFile @ROOT@/htpasswd\n"))
        .file("htdocs/here/a.txt", "x\n")
        .file("htdocs/here/gone/.htaccess", "AuthUserFile @ROOT@/no-such-htpasswd\n")
        .file("htdocs/here/gone/a.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for target in ["/gone/a.txt", "/unnamed/a.txt", "/here/a.txt", "/here/gone/a.txt"] {
        for cred in
            apache_lsp_e2e::httpd::credentials().into_iter().take(2).chain([Some(("alice".into(), "wrong".into()))])
        {
            requests.push(Request::get(target).credentials(cred));
        }
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(seen, [401, 500, 500, 401, 500, 500, 401, 200, 401, 401, 500, 500], "the cases this test is about");
}

/// `Require group` reads the `AuthGroupFile` in force for the request, and only that one: two
/// files holding different members for the same group, one named relative to ServerRoot in an
/// .htaccess file, and one that is not there (AH01665: denied, so 401 once a user is known).
#[test]
fn require_group_reads_the_group_file_in_force() {
    if !require_apache2() {
        return;
    }
    let basic = "AuthType Basic\n    AuthName g\n    AuthUserFile @ROOT@/htpasswd\n";
    let body = format!(
        "<Directory @DOCROOT@>\n    AllowOverride AuthConfig\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/g1>\n    {basic}    AuthGroupFile @ROOT@/htgroups\n    Require group admins\n</Directory>\n\
<Directory @DOCROOT@/g2>\n    {basic}    AuthGroupFile @ROOT@/groups2\n    Require group admins\n</Directory>\n\
<Directory @DOCROOT@/g3>\n    {basic}    AuthGroupFile @ROOT@/no-such-groups\n    Require group admins staff\n</Directory>\n\
<Directory @DOCROOT@/g4>\n    {basic}    AuthGroupFile @ROOT@/htgroups\n    Require group staff\n</Directory>\n"
    );
    let config = HttpdConfig::new(body)
        .file("groups2", "admins: bob\nstaff:\n")
        .file("htdocs/g1/a.txt", "x\n")
        .file("htdocs/g2/a.txt", "x\n")
        .file("htdocs/g3/a.txt", "x\n")
        .file("htdocs/g4/a.txt", "x\n")
        .file("htdocs/g4/sub/.htaccess", "AuthGroupFile groups2\n")
        .file("htdocs/g4/sub/a.txt", "x\n")
        .file(
            "htdocs/g5/.htaccess",
            "AuthType Basic\nAuthName g\nAuthUserFile htpasswd\nAuthGroupFile groups2\nRequire group admins\n",
        )
        .file("htdocs/g5/a.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for target in ["/g1/a.txt", "/g2/a.txt", "/g3/a.txt", "/g4/a.txt", "/g4/sub/a.txt", "/g5/a.txt"] {
        for (user, password) in [("alice", "apw"), ("bob", "bpw"), ("carol", "cpw")] {
            requests.push(Request::get(target).user(user, password));
        }
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(
        seen,
        [200, 401, 401, 401, 200, 401, 401, 401, 401, 200, 200, 401, 401, 401, 401, 401, 200, 401],
        "the cases this test is about"
    );
}

/// FallbackResource on a missing name: mod_dir's subrequest for the fallback URL is walked with
/// its own sections and credentials (`fixup_dflt`): a refusal (403, 401) or redirect there is the
/// answer; a regular file it may serve takes the request over, answering as it would its own
/// method; a fallback that is not there either, or an existing name, are answered as usual.
#[test]
fn fallback_resource_is_answered_as_its_subrequest_is() {
    if !require_apache2() {
        return;
    }
    let body = "Redirect /moved http://example.invalid/elsewhere\n\
<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/fb>\n    FallbackResource /fb/index.html\n</Directory>\n\
<Directory @DOCROOT@/deny>\n    FallbackResource /private/index.html\n</Directory>\n\
<Directory @DOCROOT@/private>\n    Require all denied\n</Directory>\n\
<Directory @DOCROOT@/auth>\n    FallbackResource /locked/f.html\n</Directory>\n\
<Directory @DOCROOT@/locked>\n    AuthType Basic\n    AuthName l\n    AuthUserFile @ROOT@/htpasswd\n    Require user alice\n</Directory>\n\
<Directory @DOCROOT@/gone>\n    FallbackResource /gone/nothing.html\n</Directory>\n\
<Directory @DOCROOT@/todir>\n    FallbackResource /sub\n</Directory>\n\
<Directory @DOCROOT@/redir>\n    FallbackResource /moved/x\n</Directory>\n\
<Directory @DOCROOT@/handled>\n    FallbackResource /handled/handled.html\n</Directory>\n\
<Files handled.html>\n    SetHandler default-handler\n</Files>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/fb/index.html", "x\n")
        .file("htdocs/fb/a.txt", "x\n")
        .dir("htdocs/deny")
        .dir("htdocs/auth")
        .file("htdocs/locked/f.html", "x\n")
        .dir("htdocs/gone")
        .dir("htdocs/todir")
        .dir("htdocs/redir")
        .dir("htdocs/handled");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = vec![
        Request::get("/fb/missing"),
        Request::get("/fb/missing?q=1"),
        Request::get("/fb/a.txt"),
        Request::new("POST", "/fb/missing"),
        Request::new("OPTIONS", "/fb/missing"),
        Request::get("/deny/missing"),
        Request::get("/auth/missing"),
        Request::get("/auth/missing").user("alice", "apw"),
        Request::get("/auth/missing").user("bob", "bpw"),
        Request::get("/gone/missing"),
        Request::get("/todir/missing"),
        Request::get("/redir/missing"),
    ];
    for r in &mut requests {
        r.source = "127.0.0.1".parse().unwrap();
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(seen, [200, 200, 200, 200, 200, 403, 401, 200, 401, 500, 301, 302], "the cases this test is about");
    // A missing fallback whose subrequest gets a handler: mod_dir does not fall back again
    // there (`dir_fixups`), and the handler's answer is not predicted.
    let seen = explain_agrees_with_httpd(&httpd, &[Request::get("/handled/missing")], false);
    assert_eq!(seen, [404]);
}

/// mod_alias in a DirectoryIndex subrequest: the server's Redirect of the index URL (at
/// translate_name, before access control), one in the index file's `<Files>` or in the
/// directory's own section (the subrequest's fixups, once its access passed), a `<Location>`'s
/// one-argument form; mod_dir passes a redirect on at once and remembers another status.
#[test]
fn redirects_in_a_directory_index_subrequest_are_passed_on() {
    if !require_apache2() {
        return;
    }
    let body = "Redirect /t/index.html http://example.invalid/t\n\
<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/f>\n    <Files index.html>\n        Redirect /f/index.html http://example.invalid/f\n    </Files>\n</Directory>\n\
<Directory @DOCROOT@/d>\n    Redirect /d/index.html http://example.invalid/d\n</Directory>\n\
<Location /l/index.html>\n    Redirect gone\n</Location>\n\
<Directory @DOCROOT@/m>\n    DirectoryIndex a.html index.html\n    RedirectMatch 301 ^/m/a\\.html$ /m/moved\n</Directory>\n\
<Directory @DOCROOT@/x>\n    Redirect /x/index.html http://example.invalid/x\n    <Files index.html>\n        Require all denied\n    </Files>\n</Directory>\n";
    let mut config = HttpdConfig::new(body).file("htdocs/m/a.html", "x\n");
    for d in ["t", "f", "d", "l", "m", "x"] {
        config = config.file(format!("htdocs/{d}/index.html"), "x\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests: Vec<Request> =
        ["/t/", "/f/", "/d/", "/l/", "/m/", "/x/", "/sub/"].iter().map(|p| Request::get(p)).collect();
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(seen, [302, 302, 302, 410, 301, 403, 200], "the cases this test is about");
}

/// `UserDir` naming a URL: mod_userdir redirects `/~user…` there (302) at translate_name, before
/// any access check, whether the user exists or not; with `*` the user's name replaces it and
/// what follows the `*` is dropped; a disabled user, a mod_alias Redirect or Alias for the URL
/// (mod_alias's hook runs first) are answered as usual.
#[test]
fn userdir_urls_redirect_before_access_control() {
    if !require_apache2() {
        return;
    }
    let body = "RedirectPermanent /~dave http://example.invalid/alias\n\
Alias /~erin @DOCROOT@/sub\n\
<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Location /~carol>\n    Require all denied\n</Location>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName v1.test\n    DocumentRoot @DOCROOT@\n    UserDir http://example.invalid/~*\n    UserDir disabled root\n</VirtualHost>\n\
<VirtualHost 127.0.0.1:@PORT@>\n    ServerName v2.test\n    DocumentRoot @DOCROOT@\n    UserDir http://example.invalid/*/pub\n</VirtualHost>\n";
    let config = HttpdConfig::new(body).with_module("userdir");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for host in ["v1.test", "v2.test"] {
        for path in ["/~alice/x", "/~no-such-user", "/~root/", "/~carol/", "/~dave/", "/~erin/"] {
            requests.push(Request::get(path).host(host));
        }
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(seen, [302, 302, 404, 302, 301, 200, 302, 302, 302, 302, 301, 200], "the cases this test is about");
}

/// `AuthDigestProvider anon` (or `ldap`): mod_auth_digest refuses at start-up a provider that
/// gives no realm's hash; explain does not answer as if httpd ran, and says why.
#[test]
fn a_digest_provider_without_realm_hashes_keeps_httpd_from_starting() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/dg>\n    AuthType Digest\n    AuthName dg\n    AuthDigestProvider anon\n    Anonymous guest\n    Require valid-user\n</Directory>\n";
    let config =
        HttpdConfig::new(body).with_module("authn_anon").with_module("auth_digest").file("htdocs/dg/a.txt", "x\n");
    let (ok, output) = config_test(&config);
    assert!(!ok && output.contains("doesn't support Digest Authentication"), "{output}");
    let conf = config.main_config_path();
    let v = json(&["explain", conf.to_str().unwrap(), "/dg/a.txt", "--format", "json", "--client", "127.0.0.1"]);
    assert!(v["status"].is_null(), "{v:#}");
    let why = v["reason"].as_str().unwrap_or_default();
    assert!(why.contains("refuse to start") && why.contains("doesn't support Digest Authentication"), "{v:#}");
}

/// `--wrong-password` where mod_authn_anon checks no email (`Anonymous_MustGiveEmail Off`): under
/// `Anonymous *` any credentials authenticate, so `Require valid-user` grants (httpd's 200) and
/// `Require user` depends on the name sent, which explain is not told; under a list of names, the
/// credentials may be a listed name (taken) or not (the next provider refuses them). explain
/// states the first and lists httpd's answer for the others.
#[test]
fn wrong_credentials_mod_authn_anon_takes_without_an_email_check() {
    if !require_apache2() {
        return;
    }
    let auth = "    AuthType Basic\n    AuthName anon\n    Anonymous_MustGiveEmail Off\n";
    let body = format!(
        "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/open>\n{auth}    AuthBasicProvider anon\n    Anonymous *\n    Require valid-user\n</Directory>\n\
<Directory @DOCROOT@/open-user>\n{auth}    AuthBasicProvider anon\n    Anonymous *\n    Require user bob\n</Directory>\n\
<Directory @DOCROOT@/listed>\n{auth}    AuthBasicProvider anon file\n    AuthUserFile @ROOT@/htpasswd\n    Anonymous guest\n    Require valid-user\n</Directory>\n"
    );
    let mut config = HttpdConfig::new(body).with_module("authn_anon");
    for d in ["open", "open-user", "listed"] {
        config = config.file(format!("htdocs/{d}/a.txt"), "x\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    // (target, user, password; explain is told only that the credentials are wrong; whether it
    // must state the status)
    let cases = [
        ("/open/a.txt", "alice", "wrong", true),
        ("/open-user/a.txt", "alice", "wrong", false),
        ("/open-user/a.txt", "bob", "wrong", false),
        ("/listed/a.txt", "alice", "wrong", false),
        ("/listed/a.txt", "guest", "wrong", false),
    ];
    let mut seen = Vec::new();
    for (target, user, password, certain) in cases {
        let real = httpd.send(&Request::get(target).user(user, password)).unwrap_or_else(|e| panic!("{target}: {e}"));
        seen.push(real);
        let v = json(&["explain", conf, target, "--format", "json", "--wrong-password"]);
        let what = format!("GET {target} as {user}:{password}: httpd {real}\n{v:#}");
        if certain {
            assert_eq!(v["status"], real, "{what}");
        } else {
            assert!(v["status"].is_null(), "{what}");
            assert!(v["possible_statuses"].as_array().unwrap().contains(&Value::from(real)), "{what}");
        }
    }
    assert_eq!(seen, [200, 401, 200, 401, 200], "the cases this test is about");
}

/// Whether htdbm (apache2-utils), which writes the DBM password files, is installed; says so when not.
fn htdbm_available() -> bool {
    let there = Command::new("htdbm").arg("-?").output().is_ok();
    if !there {
        eprintln!("note: htdbm (apache2-utils) is not installed; skipping");
    }
    there
}

/// `AuthBasicProvider dbm` (mod_authn_dbm), which opens its `AuthDBMUserFile` for every password
/// it checks: a file that is not there, or none named, is a 500 once credentials come (none: 401);
/// a DBM file that is there (written by htdbm, the default DBM type) answers as the credentials
/// are: explain does not read DBM files, and takes `--user` as valid there.
#[test]
fn a_dbm_password_file_is_opened_for_every_password_checked() {
    if !require_apache2() || !htdbm_available() {
        return;
    }
    let auth = "    AuthType Basic\n    AuthName d\n    AuthBasicProvider dbm\n    Require valid-user\n";
    let body = format!(
        "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/gone>\n{auth}    AuthDBMUserFile @ROOT@/no-such.dbm\n</Directory>\n\
<Directory @DOCROOT@/unnamed>\n{auth}</Directory>\n\
<Directory @DOCROOT@/here>\n{auth}    AuthDBMUserFile users.dbm\n</Directory>\n\
<Directory @DOCROOT@/sdbm>\n{auth}    AuthDBMUserFile @ROOT@/users.dbm\n    AuthDBMType SDBM\n</Directory>\n"
    );
    let mut config = HttpdConfig::new(body).with_module("authn_dbm");
    for d in ["gone", "unnamed", "here", "sdbm"] {
        config = config.file(format!("htdocs/{d}/a.txt"), "x\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let db = httpd.config().root().join("users.dbm");
    let made = Command::new("htdbm").arg("-cb").arg(&db).args(["alice", "apw"]).output().unwrap();
    assert!(made.status.success(), "{made:?}");
    let mut requests = Vec::new();
    for target in ["/gone/a.txt", "/unnamed/a.txt", "/here/a.txt", "/sdbm/a.txt"] {
        requests.push(Request::get(target));
        requests.push(Request::get(target).user("alice", "apw"));
        requests.push(Request::get(target).user("alice", "wrong"));
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(seen, [401, 500, 500, 401, 500, 500, 401, 200, 401, 401, 500, 500], "the cases this test is about");
}

/// A URL without its trailing slash naming a symbolic link to a directory: the walk follows the
/// link (FollowSymLinks), so `r->finfo` is the directory's and mod_dir redirects (301), as for
/// the directory itself; with its slash the index file is served. Round 13 CLI E2: explain said
/// 200, taking the link for something a handler may answer.
#[test]
fn a_symbolic_link_to_a_directory_is_redirected_without_its_slash() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/off>\n    DirectorySlash Off\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/real/index.html", "x\n")
        .symlink("htdocs/link", "htdocs/real")
        .dir("htdocs/off")
        .symlink("htdocs/off/link", "htdocs/real");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for method in ["GET", "POST", "PUT"] {
        for path in ["/link", "/link/", "/real", "/off/link"] {
            requests.push(Request::new(method, path));
        }
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(seen, [301, 200, 301, 404, 301, 200, 301, 404, 301, 405, 301, 405], "the cases this test is about");
}

/// mod_dir's subrequests (a DirectoryIndex name, the FallbackResource URL) are GET requests whose
/// `<If>` conditions httpd evaluates again (`ap_sub_req_method_uri`): where a branch the request
/// took on its method is not taken there, or its sections differ, the configuration is not the
/// request's and the access checks run again, for GET (`ap_process_request_internal`), so a
/// `<Limit POST>` that let the POST in does not apply, a `<LimitExcept POST>` does, and an
/// `<If POST>` granting it is not taken: 403 (round 13 CLI E3, E6; explain said 200). An `<If>`
/// holding nothing the answer reads counts too; without one the configuration is the request's
/// and the POST is served.
#[test]
fn subrequests_evaluate_their_if_conditions_and_limits_as_get() {
    if !require_apache2() {
        return;
    }
    let post = "<If \"%{REQUEST_METHOD} == 'POST'\">";
    let body = format!(
        "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/limit>\n    Require all denied\n    <Limit POST>\n        Require all granted\n    </Limit>\n    {post}\n        AddType text/plain .post\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/limit-alone>\n    Require all denied\n    <Limit POST>\n        Require all granted\n    </Limit>\n</Directory>\n\
<Directory @DOCROOT@/except>\n    <LimitExcept POST>\n        Require all denied\n    </LimitExcept>\n    {post}\n        AddType text/plain .post\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/if>\n    Require all denied\n    {post}\n        Require all granted\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/fb>\n    FallbackResource /fb/index.html\n    Require all denied\n    {post}\n        Require all granted\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/uri>\n    Require all denied\n    <If \"%{{REQUEST_URI}} == '/uri/'\">\n        Require all granted\n    </If>\n</Directory>\n"
    );
    let mut config = HttpdConfig::new(body);
    for d in ["limit", "limit-alone", "except", "if", "fb", "uri"] {
        config = config.file(format!("htdocs/{d}/index.html"), "x\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for path in ["/limit/", "/limit-alone/", "/except/", "/if/", "/fb/missing", "/fb/index.html", "/uri/"] {
        requests.push(Request::new("POST", path));
        requests.push(Request::get(path));
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(
        seen,
        [403, 403, 200, 403, 403, 403, 403, 403, 403, 403, 200, 403, 403, 403],
        "the cases this test is about"
    );
}

/// The virtual host is picked by the Host header whether it is given with --host or with
/// `--header "Host: …"`, as httpd picks it by name (`ap_update_vhost_from_headers`); the two
/// naming different hosts, or the header given twice, are refused (exit 2) with a message
/// naming them. explain took no host from `--header` and answered for the default host.
#[test]
fn a_host_header_given_with_header_picks_the_virtual_host() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<VirtualHost *:@PORT@>\n    ServerName a.test\n    DocumentRoot @DOCROOT@\n</VirtualHost>\n\
<VirtualHost *:@PORT@>\n    ServerName b.test\n    DocumentRoot @DOCROOT@\n    <Location />\n        Require all denied\n    </Location>\n</VirtualHost>\n";
    let httpd = Httpd::start(HttpdConfig::new(body).file("htdocs/index.html", "x\n")).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let port = httpd.port().to_string();
    for host in ["a.test", "b.test", "B.TEST"] {
        let real = httpd.send(&Request::get("/").host(host)).unwrap();
        let header = format!("Host: {host}");
        let v = json(&["explain", conf, "/", "--format", "json", "--port", &port, "--header", &header]);
        assert_eq!(v["status"], real, "Host {host}: httpd {real}\n{v:#}");
        assert_eq!(real, if host == "a.test" { 200 } else { 403 });
        // The same, told with --host too.
        let v = json(&["explain", conf, "/", "--format", "json", "--port", &port, "--header", &header, "--host", host]);
        assert_eq!(v["status"], real, "{v:#}");
    }
    for args in [
        vec!["--host", "a.test", "--header", "Host: b.test"],
        vec!["--header", "Host: a.test", "--header", "Host: b.test"],
    ] {
        let mut all = vec!["explain", conf, "/", "--port", &port];
        all.extend(args.iter().copied());
        let out = Command::new(server_binary()).args(&all).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("a.test") && err.contains("b.test") && err.contains("Host"), "{err}");
    }
}

/// Round 13 H5: an .htaccess file naming its AuthGroupFile at its top and its AuthUserFile inside
/// `<Limit PUT>`: `<Limit>` restricts only the access lines, so the password file applies to GET
/// too and a member of the group is served. explain agrees (a member 200, another user 401).
#[test]
fn an_auth_user_file_inside_limit_applies_to_every_method() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AllowOverride AuthConfig Limit\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/cfg>\n    AuthType Basic\n    AuthName c\n    Require group admins\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/ht/a.txt", "x\n")
        .file(
            "htdocs/ht/.htaccess",
            "AuthType Basic\nAuthName h\nAuthGroupFile htgroups\n<Limit PUT>\nAuthUserFile htpasswd\n</Limit>\nRequire group admins\n",
        )
        .file("htdocs/cfg/a.txt", "x\n")
        .file("htdocs/cfg/.htaccess", "AuthGroupFile @ROOT@/htgroups\n<Limit PUT>\nAuthUserFile @ROOT@/htpasswd\n</Limit>\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for path in ["/ht/a.txt", "/cfg/a.txt"] {
        requests.push(Request::get(path).user("alice", "apw"));
        requests.push(Request::get(path).user("bob", "bpw"));
        requests.push(Request::get(path));
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(seen, [200, 401, 401, 200, 401, 401], "the cases this test is about");
}

/// Session 23 (black-box round 14, F9 and the `Error` line): what httpd refuses as it reads an
/// .htaccess file is a 500 for each request the file applies to, and explain says so: the closer
/// of a true conditional section with words after it (a false one's is fine), an `Error` line.
/// And `<Directory> path>` is the section of that path, as `<Directory path>` is.
#[test]
fn htaccess_lines_httpd_refuses_as_it_reads_them_are_500s() {
    if !require_apache2() {
        return;
    }
    let dir = "<Directory @DOCROOT@>\n    AllowOverride All\n    Require all granted\n</Directory>\n";
    let ht = |text: &str| HttpdConfig::new(dir).file("htdocs/sub/.htaccess", text);
    let asked: &[Asked] =
        &[("GET", "/sub/index.html", "127.0.0.1", "a.test"), ("GET", "/a.txt", "127.0.0.1", "a.test")];
    let cases: Vec<(&str, HttpdConfig)> = vec![
        ("true closer with a comment", ht("<IfModule mod_authz_core.c>\n  Require all granted\n</IfModule> # note\n")),
        ("true IfDefine closer with a word", ht("<IfDefine !NOPE>\n  Require all granted\n</IfDefine> x\n")),
        (
            "false closer with a comment",
            ht("<IfModule !mod_authz_core.c>\n  deny from all\n</IfModule> # note\nRequire all granted\n"),
        ),
        ("an Error line", ht("Require all granted\nError \"stop here\"\n")),
        ("an Error line in a false conditional", ht("<IfDefine NOPE>\nError x\n</IfDefine>\n")),
        // Session 24: what stops httpd's skipping reader in a false conditional's body, and the
        // lines check refuses under argument-value and argument-count.
        (
            "a closer of another section in a false conditional",
            ht("<IfModule !mod_authz_core.c>\n<Limit GET>\n</Files>\n</Limit>\n</IfModule>\nRequire all granted\n"),
        ),
        (
            "<Files> x> in a false conditional",
            ht("<IfDefine NOPE>\n<Files> x>\n</Files>\n</IfDefine>\nRequire all granted\n"),
        ),
        (
            "<Files> x> closed by </Files>> there",
            ht("<IfDefine NOPE>\n<Files> x>\n</Files>>\n</IfDefine>\nRequire all granted\n"),
        ),
        ("a false conditional left open", ht("Require all granted\n<IfModule !mod_authz_core.c>\n")),
        ("an ErrorDocument status", ht("Require all granted\nErrorDocument On /e.html\n")),
        ("a word count", ht("Require all granted\nAuthName a b\n")),
        ("a keyword", ht("Require all granted\nDirectorySlash maybe\n")),
        (
            "<Directory> path>",
            HttpdConfig::new(format!("{dir}<Directory> @DOCROOT@/sub>\n    Require all denied\n</Directory>\n")),
        ),
    ];
    for (name, config) in cases {
        assert_eq!(explain_agrees_under_if(name, config, asked, true), 0, "{name}");
    }
}

/// FallbackResource inside mod_dir's DirectoryIndex subrequest (black-box round 14, F4/F4b): a
/// missing index name runs its FallbackResource inside the index subrequest, and mod_dir serves
/// the fallback, or passes its refusal or AH00125's 500 on (not mod_autoindex's listing).
#[test]
fn fallback_inside_the_index_subrequest_is_answered_as_httpd_does() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Options Indexes\n    Require all granted\n    FallbackResource /front.html\n</Directory>\n\
<Files front.html>\n    Require ip 127.0.0.2\n</Files>\n\
<Directory @DOCROOT@/fb2>\n    FallbackResource /fb2/missing.html\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .with_module("autoindex")
        .file("htdocs/front.html", "f\n")
        .file("htdocs/sub/x.txt", "x\n")
        .file("htdocs/fb2/x.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    let requests = vec![
        // /sub/index.html falls back to /front.html, which mod_dir serves.
        Request::get("/sub/").source(ip("127.0.0.1")),
        Request::get("/sub/").source(ip("127.0.0.2")),
        Request::new("POST", "/sub/").source(ip("127.0.0.2")),
        Request::new("HEAD", "/sub/").source(ip("127.0.0.1")),
        // A fallback to a missing name of its own directory: AH00125 inside the index subrequest.
        Request::get("/fb2/").source(ip("127.0.0.1")),
        Request::get("/fb2/nothing").source(ip("127.0.0.1")),
    ];
    let seen = explain_agrees_with_httpd(&httpd, &requests, true);
    assert_eq!(seen, [200, 200, 200, 200, 500, 500], "the cases this test is about");
}

/// FallbackResource's subrequest reuses the missing name's Directory walk (black-box round 14,
/// F13): the wildcard `<Directory htdocs/*>` never applied to the missing `htdocs/api`, so only
/// `<Directory htdocs>` is in force for the fallback `/index.html`, which asked directly gets
/// the wildcard.
#[test]
fn the_fallback_subrequest_reuses_the_missing_names_walk() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all denied\n    FallbackResource /index.html\n</Directory>\n\
<Directory @DOCROOT@/*>\n    Require all granted\n</Directory>\n\
<Location /api>\n    Require all granted\n</Location>\n";
    let config = HttpdConfig::new(body).file("htdocs/index.html", "i\n").file("htdocs/a/x.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests = vec![
        Request::get("/api/users"),
        Request::get("/api"),
        Request::get("/index.html"),
        Request::get("/a/missing"),
        Request::get("/other"),
    ];
    let seen = explain_agrees_with_httpd(&httpd, &requests, true);
    assert_eq!(seen, [403, 403, 200, 200, 403], "the cases this test is about");
}

/// mod_alias keeps `Alias`, `ScriptAlias`, `AliasMatch` and `ScriptAliasMatch` in one list and
/// maps a URL through the first entry that matches it, in configuration order; a virtual host's
/// own entries come before the main server's (black-box round 16 G1: Debian's nagios3 layout,
/// `ScriptAlias /nagios/cgi-bin` before `Alias /nagios`, was mapped through the Alias into
/// share/cgi-bin, "granted, 404", where httpd answers 403 from the ScriptAlias's directory).
#[test]
fn the_first_alias_of_mod_alias_list_maps_the_url() {
    if !require_apache2() {
        return;
    }
    let deny = "<Directory @ROOT@/nagios/cgi>\n    Order deny,allow\n    Deny from all\n</Directory>\n";
    let script = "ScriptAlias /nagios/cgi-bin @ROOT@/nagios/cgi\n";
    let alias = "Alias /nagios @ROOT@/nagios/share\n";
    let vhost = |inner: &str| format!("<VirtualHost *:@PORT@>\n    ServerName localhost\n    {inner}</VirtualHost>\n");
    // (configuration, where /nagios/cgi-bin/x.txt maps: the ScriptAlias's directory or share's)
    let cases: Vec<(String, &str)> = vec![
        (format!("{script}{alias}{deny}"), "cgi"),
        (
            format!("ScriptAlias /nagios/cgi-bin/ @ROOT@/nagios/cgi/\nAlias /nagios/ @ROOT@/nagios/share/\n{deny}"),
            "cgi",
        ),
        (format!("AliasMatch \"^/nagios/cgi-bin/(.*)$\" \"@ROOT@/nagios/cgi/$1\"\n{alias}{deny}"), "cgi"),
        (format!("{alias}{script}{deny}"), "share"),
        (format!("{alias}AliasMatch \"^/nagios/cgi-bin/(.*)$\" \"@ROOT@/nagios/cgi/$1\"\n{deny}"), "share"),
        (format!("{alias}{}{deny}", vhost(script)), "cgi"),
        (format!("{script}{}{deny}", vhost(alias)), "share"),
    ];
    for (body, into) in cases {
        let config = HttpdConfig::new(body.as_str())
            .file("nagios/cgi/x.txt", "cgi\n")
            .file("nagios/share/index.html", "share\n")
            .file("nagios/share/cgi-bin/x.txt", "share\n");
        let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
        let requests: Vec<Request> =
            ["/nagios/cgi-bin/x.txt", "/nagios/cgi-bin/", "/nagios//cgi-bin/x.txt", "/nagios/index.html"]
                .iter()
                .map(|u| Request::get(u))
                .collect();
        let seen = explain_agrees_with_httpd(&httpd, &requests, false);
        assert_eq!(seen[0], if into == "cgi" { 403 } else { 200 }, "{body}");
        let conf = httpd.config().main_config_path();
        let port = httpd.port().to_string();
        let v =
            json(&["explain", conf.to_str().unwrap(), "/nagios/cgi-bin/x.txt", "--port", &port, "--format", "json"]);
        let fs = v["filesystem_path"].as_str().unwrap_or_default().to_string();
        assert!(
            fs.ends_with(&format!("nagios/{into}{}", if into == "cgi" { "/x.txt" } else { "/cgi-bin/x.txt" })),
            "{body}\n{v:#}"
        );
    }
}

/// Under `MergeSlashes Off` httpd keeps runs of `/` in the path: a `<LocationMatch>` or an
/// `AliasMatch` regex is matched against the path as sent (`/c//d/x.txt` is not `^/c/d`), while a
/// `<Location>` prefix is compared with the slashes merged (`ap_location_walk`); a virtual host
/// takes the main server's setting unless it has its own (black-box round 16 F7: explain 403
/// where httpd 200).
#[test]
fn merge_slashes_off_keeps_the_slashes_regexes_see() {
    if !require_apache2() {
        return;
    }
    let sections = "<LocationMatch \"^/c/d\">\n    Require all denied\n</LocationMatch>\n\
<LocationMatch \"/e/x\">\n    Require all denied\n</LocationMatch>\n\
<Location /f/g>\n    Require all denied\n</Location>\n\
AliasMatch \"^/am/d/(.*)$\" \"@ROOT@/other/$1\"\n\
<Directory @ROOT@/other>\n    Require all denied\n</Directory>\n";
    let targets = [
        "/c//d/x.txt",
        "/c/d/x.txt",
        "/c/d//x.txt",
        "/e//x.txt",
        "//e/x.txt",
        "/e/x.txt",
        "/f//g/x.txt",
        "/f/g/x.txt",
        "/am//d/x.txt",
        "/am/d/x.txt",
        "/c//x/../d/x.txt",
        "/c/./d/x.txt",
    ];
    // (configuration, whether the server answering has MergeSlashes Off)
    let bodies = [
        (format!("MergeSlashes Off\n{sections}"), true),
        (sections.to_string(), false),
        (format!("MergeSlashes Off\n{sections}<VirtualHost *:@PORT@>\n    ServerName localhost\n</VirtualHost>\n"), true),
        (
            format!("<VirtualHost *:@PORT@>\n    ServerName localhost\n    MergeSlashes Off\n</VirtualHost>\n{sections}"),
            true,
        ),
        (
            format!(
                "MergeSlashes Off\n<VirtualHost *:@PORT@>\n    ServerName localhost\n    MergeSlashes On\n</VirtualHost>\n{sections}"
            ),
            false,
        ),
    ];
    for (body, off) in &bodies {
        let config = HttpdConfig::new(body.as_str())
            .file("htdocs/c/d/x.txt", "x\n")
            .file("htdocs/c/x/x.txt", "x\n")
            .file("htdocs/e/x.txt", "x\n")
            .file("htdocs/f/g/x.txt", "x\n")
            .file("htdocs/am/d/x.txt", "x\n")
            .file("other/x.txt", "x\n");
        let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
        let requests: Vec<Request> = targets.iter().map(|u| Request::get(u)).collect();
        let seen = explain_states_httpds_status(&httpd, &requests);
        // Under Off the regexes miss the unmerged paths (200 there); merged, every target is refused.
        assert_eq!(seen.contains(&200), *off, "{body}: {seen:?}");
    }
}

/// A request target holding `#` is answered 400 while httpd reads the request line, under
/// `HttpProtocolOptions Strict` (the default); under `Unsafe` the fragment is dropped (black-box
/// round 16 F8).
#[test]
fn a_fragment_in_the_target_is_refused_unless_unsafe() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@/sub>\n    Require all denied\n</Directory>\n";
    let vhost = "<VirtualHost *:@PORT@>\n    ServerName localhost\n    HttpProtocolOptions Unsafe\n</VirtualHost>\n";
    for (options, want) in [("", 400), ("HttpProtocolOptions Unsafe\n", 200), (vhost, 200)] {
        let config = HttpdConfig::new(format!("{options}{body}"))
            .file("htdocs/index.html", "x\n")
            .file("htdocs/sub/index.html", "x\n");
        let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
        let requests: Vec<Request> =
            ["/index.html#f", "/sub/index.html#f", "/index.html?q#f"].iter().map(|u| Request::get(u)).collect();
        let seen = explain_states_httpds_status(&httpd, &requests);
        assert_eq!(seen[0], want, "{options}");
        if want == 400 {
            let conf = httpd.config().main_config_path();
            let v = json(&["explain", conf.to_str().unwrap(), "/index.html#f", "--format", "json"]);
            assert_eq!(v["rejected_before_walk"], "fragment", "{v:#}");
            assert_eq!(v["sections"], Value::Array(vec![]), "{v:#}");
        }
    }
}

/// A per-directory RewriteRule to a local URL (WordPress's front controller in .htaccess, a
/// Nextcloud-like `RewriteRule ^data/(.*)$ /x.txt` in a sub-directory's): mod_rewrite redirects
/// internally at the fixups, after the access checks of the request, and httpd answers the new
/// request, whose own sections may refuse it. Where the rules are decided (the patterns, the
/// `%{REQUEST_FILENAME} !-f/!-d` conditions, RewriteBase), explain states httpd's status (403
/// from `<Files index.php>` for 127.0.0.3, 403 for the target outside the granted directory;
/// 200 where the file is there or the rule `^index\.php$ - [L]` stops the rules). Where a
/// condition it does not evaluate stands in the way, the status is unknown, with httpd's among
/// the possible ones and the target named.
#[test]
fn a_per_directory_rewrite_to_a_local_url_is_answered_by_the_target() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  AllowOverride All\n</Directory>\n\
<Files index.php>\n  Order deny,allow\n  Deny from 127.0.0.3\n</Files>\n\
<Directory @DOCROOT@/nc>\n  Require all denied\n</Directory>\n\
<Directory @DOCROOT@/nc/app>\n  Require all granted\n</Directory>\n\
<Directory @DOCROOT@/host>\n  RewriteEngine On\n  RewriteCond %{HTTP_HOST} ^localhost\n  RewriteRule . /index.php [L]\n</Directory>\n";
    let wp = "RewriteEngine On\nRewriteBase /\nRewriteRule ^index\\.php$ - [L]\n\
RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . /index.php [L]\n";
    let config = HttpdConfig::new(body)
        .with_module("rewrite")
        .file("htdocs/index.php", "x\n")
        .file("htdocs/.htaccess", wp)
        .file("htdocs/d1/x.txt", "x\n")
        .file("htdocs/nc/x.txt", "x\n")
        .file("htdocs/nc/app/.htaccess", "RewriteEngine On\nRewriteRule ^data/(.*)$ /nc/x.txt [L]\n")
        .file("htdocs/nc/app/data/f.txt", "x\n")
        .file("htdocs/nc/app/other.txt", "x\n")
        .file("htdocs/host/y.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let three: IpAddr = "127.0.0.3".parse().unwrap();
    let mut requests = Vec::new();
    for path in ["/blog/some-post", "/index.php", "/d1/x.txt", "/d1/missing", "/nc/app/data/f.txt", "/nc/app/other.txt"]
    {
        requests.push(Request::get(path));
        requests.push(Request::get(path).source(three));
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    // httpd: the front controller refuses 127.0.0.3 only; the Nextcloud-like target is denied.
    assert_eq!(seen, [200, 403, 200, 403, 200, 200, 200, 403, 403, 403, 200, 200]);
    // A condition on the Host header is not evaluated: unknown, httpd's answer among the possible.
    let seen = explain_agrees_with_httpd(&httpd, &[Request::get("/host/y.txt").source(three)], false);
    assert_eq!(seen, [403]);
    let conf = httpd.config().main_config_path();
    let v = json(&["explain", conf.to_str().unwrap(), "/host/y.txt", "--client", "127.0.0.3", "--format", "json"]);
    assert!(v["status"].is_null(), "{v:#}");
    let reason = v["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("mod_rewrite may redirect internally to /index.php"), "{v:#}");
}

/// An .htaccess line of 8192 bytes or more stops httpd reading the file ("Line too long"):
/// every request it applies to gets 500, a comment line too; 8191 bytes are read. explain
/// answers the same, and migrate does not "prove" a rewrite that shortens such a line (which
/// would turn the 500 into 200). Black-box round 17 T17 F6.
#[test]
fn an_htaccess_line_too_long_for_httpd_is_a_500_to_explain_and_migrate() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AllowOverride All\n    Require all granted\n</Directory>\n";
    let deny: Vec<String> = (0..700).map(|i| format!("env=NOPE{i}")).collect();
    let long_deny = format!("Deny from {}\n", deny.join(" "));
    assert!(long_deny.len() > 8192);
    let comment = |n: usize| format!("#{}\nRequire all granted\n", "x".repeat(n - 1));
    let config = HttpdConfig::new(body)
        .file("htdocs/d/x.txt", "x\n")
        .file("htdocs/d/.htaccess", long_deny)
        .file("htdocs/c/x.txt", "x\n")
        .file("htdocs/c/.htaccess", comment(8192))
        .file("htdocs/k/x.txt", "x\n")
        .file("htdocs/k/.htaccess", comment(8191));
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let requests: Vec<Request> = ["/d/x.txt", "/c/x.txt", "/k/x.txt"].into_iter().map(Request::get).collect();
    assert_eq!(explain_states_httpds_status(&httpd, &requests), [500, 500, 200]);
    let conf = httpd.config().main_config_path();
    let (_, diff) = run(&["migrate", conf.to_str().unwrap()]);
    assert!(!diff.contains("d/.htaccess"), "the long Deny line is left as it is:\n{diff}");
}

/// Session 25 (E): httpd reuses a merged configuration for mod_dir's subrequests only while every
/// module hooked into the access phase says its answer depends on the configuration alone
/// (`ap_setup_auth_internal`, `cached &= auth_internal_per_conf` in each walk). mod_allowmethods,
/// mod_log_debug and mod_lua do not, and with one loaded (no directive of theirs needed) a
/// subrequest whose walk meets a `<Location>`, a `<Files>`/`<FilesMatch>` or an `<If>` that
/// applies, or whose Directory walk is not the main request's (an index name in a subdirectory,
/// a missing one), has a configuration of its own: its access is checked again, as GET, and a
/// `<Limit POST>` that let the POST in does not apply there (403). Without them, or where the
/// subrequest is a file of the same directory meeting none of those, the POST is served. explain
/// said 200 for each with the modules loaded.
#[test]
fn subrequests_are_checked_again_where_a_module_turns_the_walk_caches_off() {
    if !require_apache2() {
        return;
    }
    let lim = "    Require all denied\n    <Limit POST>\n        Require all granted\n    </Limit>\n";
    let ours = "<If \"%{REMOTE_ADDR} == '127.0.0.1'\">";
    let body = format!(
        "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Location /loc/>\n    AddType text/plain .zz\n</Location>\n\
<Directory @DOCROOT@/loc>\n{lim}</Directory>\n\
<Directory @DOCROOT@/star>\n{lim}    <Files *>\n        AddType text/plain .zz\n    </Files>\n</Directory>\n\
<Directory @DOCROOT@/fm>\n{lim}    <FilesMatch .*>\n        AddType text/plain .zz\n    </FilesMatch>\n</Directory>\n\
<Directory @DOCROOT@/ifother>\n{lim}    {ours}\n        AddType text/plain .zz\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/ifread>\n{lim}    {ours}\n        SetEnvIf Remote_Addr . E=1\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/fb>\n{lim}    FallbackResource /fb/index.html\n    {ours}\n        AddType text/plain .zz\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/fbplain>\n{lim}    FallbackResource /fbplain/index.html\n</Directory>\n\
<Directory @DOCROOT@/deep>\n{lim}    DirectoryIndex sub/index.html\n</Directory>\n\
<Directory @DOCROOT@/noindex>\n{lim}</Directory>\n\
<Directory @DOCROOT@/plain>\n{lim}</Directory>\n"
    );
    let make = || {
        let mut c = HttpdConfig::new(body.clone()).file("htdocs/deep/sub/index.html", "x\n").dir("htdocs/noindex");
        for d in ["loc", "star", "fm", "ifother", "ifread", "fb", "fbplain", "plain"] {
            c = c.file(format!("htdocs/{d}/index.html"), "x\n");
        }
        c
    };
    let paths = [
        "/loc/",
        "/star/",
        "/fm/",
        "/ifother/",
        "/ifread/",
        "/fb/missing",
        "/fbplain/missing",
        "/deep/",
        "/noindex/",
        "/plain/",
    ];
    let mut requests: Vec<Request> = paths.iter().map(|p| Request::new("POST", p)).collect();
    requests.extend(paths.iter().map(|p| Request::get(p)));
    let get: Vec<u16> = vec![403; paths.len()];
    for module in ["", "allowmethods", "log_debug", "lua"] {
        let config = if module.is_empty() { make() } else { make().with_module(module) };
        let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
        let seen = explain_states_httpds_status(&httpd, &requests);
        let post: &[u16] = if module.is_empty() {
            &[200, 200, 200, 200, 200, 200, 200, 200, 404, 200]
        } else {
            &[403, 403, 403, 403, 403, 403, 200, 403, 403, 200]
        };
        assert_eq!(seen[..paths.len()], *post, "POST with {module:?}: the cases this test is about");
        assert_eq!(seen[paths.len()..], *get, "GET with {module:?}");
    }
}

/// Session 25 (E), round 13 CLI E2 in general: a symbolic link the walk follows is walked under
/// its own path, not its target's (the target's `<Directory>` does not apply), however it is
/// reached (through an Alias, through a link to a link, in the middle of the path); named without
/// its slash it is mod_dir's 301; not followed (`Options -FollowSymLinks`) it is a 403; a link to
/// a file with a slash after it is a 404. Holds on main (explain_cli's earlier test covers the plain
/// case); here so that it keeps holding.
#[test]
fn symbolic_links_are_walked_under_their_own_path() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/real>\n    Require all denied\n</Directory>\n\
<Directory @DOCROOT@/nofollow>\n    Options -FollowSymLinks\n</Directory>\n\
Alias /al @ROOT@/aliased\n<Directory @ROOT@/aliased>\n    Require all granted\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/real/index.html", "x\n")
        .file("htdocs/real3/sub/index.html", "x\n")
        .symlink("htdocs/lreal", "htdocs/real")
        .symlink("htdocs/lreal3", "htdocs/real3")
        .symlink("htdocs/llreal3", "htdocs/lreal3")
        .symlink("htdocs/nofollow/l", "htdocs/real3")
        .symlink("aliased/link", "htdocs/real3")
        .symlink("htdocs/lfile", "htdocs/real3/sub/index.html");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let paths = [
        "/real/",
        "/lreal",
        "/lreal/",
        "/lreal/index.html",
        "/lreal3/sub",
        "/llreal3",
        "/llreal3/sub/",
        "/nofollow/l",
        "/nofollow/l/",
        "/al/link",
        "/al/link/sub",
        "/al/link/sub/",
        "/lfile",
        "/lfile/",
    ];
    let expected = [403, 301, 200, 200, 301, 301, 200, 403, 403, 301, 301, 200, 200, 404];
    for method in ["GET", "POST"] {
        let requests: Vec<Request> = paths.iter().map(|p| Request::new(method, p)).collect();
        let seen = explain_states_httpds_status(&httpd, &requests);
        assert_eq!(seen, expected, "{method}: the cases this test is about");
    }
}

/// Session 25 (E), round 13 H5 in general: `<Limit>`/`<LimitExcept>` restrict only the access
/// lines, so an `AuthUserFile`, `AuthGroupFile`, `AuthType` or `AuthName` inside one applies to
/// every method, in an .htaccess file and in the server's configuration alike. Holds on main.
#[test]
fn auth_settings_inside_limit_apply_to_every_method() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/h5>\n    AllowOverride AuthConfig Limit\n</Directory>\n\
<Directory @DOCROOT@/h6>\n    AllowOverride AuthConfig Limit\n</Directory>\n\
<Directory @DOCROOT@/h7>\n    AuthType Basic\n    AuthName h7\n    <LimitExcept PUT>\n        AuthUserFile @ROOT@/htpasswd\n        AuthGroupFile @ROOT@/htgroups\n    </LimitExcept>\n    Require group admins\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .file("htdocs/h5/a.txt", "x\n")
        .file(
            "htdocs/h5/.htaccess",
            "AuthType Basic\nAuthName h\n<LimitExcept GET>\nAuthGroupFile htgroups\n</LimitExcept>\n<Limit PUT>\nAuthUserFile htpasswd\n</Limit>\nRequire group admins\n",
        )
        .file("htdocs/h6/a.txt", "x\n")
        .file("htdocs/h6/.htaccess", "<Limit POST>\nAuthType Basic\nAuthName h\nAuthUserFile htpasswd\n</Limit>\nRequire valid-user\n")
        .file("htdocs/h7/a.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    for method in ["GET", "POST"] {
        let mut requests = Vec::new();
        for path in ["/h5/a.txt", "/h6/a.txt", "/h7/a.txt"] {
            requests.push(Request::new(method, path).user("alice", "apw"));
            requests.push(Request::new(method, path).user("bob", "bpw"));
            requests.push(Request::new(method, path));
        }
        let seen = explain_states_httpds_status(&httpd, &requests);
        assert_eq!(seen, [200, 401, 401, 200, 200, 401, 200, 401, 401], "{method}: the cases this test is about");
    }
}

/// Session 25 (E), round 13 CLI E3/E6 in general: mod_dir's subrequest is a GET of its own URI
/// with the request's headers, so an `<If>` on the method (`!= 'GET'` too) or on the URI is not
/// taken there and its access is checked again (a `<Limit GET>` refusing it, a `<Files>`'s or an
/// .htaccess file's `<If>`, a FallbackResource into another directory), while one on a header the
/// request carries is taken alike and the request is served. Holds on main.
#[test]
fn subrequests_take_the_requests_headers_but_their_own_method_and_uri() {
    if !require_apache2() {
        return;
    }
    let post = "<If \"%{REQUEST_METHOD} == 'POST'\">";
    let body = format!(
        "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<Directory @DOCROOT@/limget>\n    <Limit GET>\n        Require all denied\n    </Limit>\n    {post}\n        AddType text/plain .post\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/ne>\n    Require all denied\n    <If \"%{{REQUEST_METHOD}} != 'GET'\">\n        Require all granted\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/fbo>\n    FallbackResource /other/index.html\n</Directory>\n\
<Directory @DOCROOT@/other>\n    Require all denied\n    {post}\n        Require all granted\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/hdr>\n    FallbackResource /hdr/index.html\n    Require all denied\n    <If \"%{{HTTP:X-A}} == 'y'\">\n        Require all granted\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/furi>\n    FallbackResource /furi/index.html\n    Require all denied\n    <If \"%{{REQUEST_URI}} == '/furi/missing'\">\n        Require all granted\n    </If>\n</Directory>\n\
<Directory @DOCROOT@/filesif>\n    <Files index.html>\n        Require all denied\n        {post}\n            Require all granted\n        </If>\n    </Files>\n</Directory>\n\
<Directory @DOCROOT@/ht>\n    AllowOverride All\n</Directory>\n"
    );
    let mut config = HttpdConfig::new(body).dir("htdocs/fbo").file(
        "htdocs/ht/.htaccess",
        "Require all denied\n<Limit POST>\nRequire all granted\n</Limit>\n<If \"%{REQUEST_METHOD} == 'POST'\">\nAddType text/plain .post\n</If>\n",
    );
    for d in ["limget", "ne", "other", "hdr", "furi", "filesif", "ht"] {
        config = config.file(format!("htdocs/{d}/index.html"), "x\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    for (method, expected) in [
        ("GET", [403, 403, 403, 403, 403, 403, 200, 403]),
        ("POST", [403, 403, 403, 403, 403, 403, 200, 403]),
        ("PUT", [405, 403, 403, 403, 403, 403, 405, 403]),
    ] {
        let mut requests: Vec<Request> = ["/limget/", "/ne/", "/fbo/missing", "/furi/missing", "/filesif/", "/ht/"]
            .iter()
            .map(|p| Request::new(method, p))
            .collect();
        requests.push(Request::new(method, "/hdr/missing").header("X-A", "y"));
        requests.push(Request::new(method, "/hdr/missing"));
        let seen = explain_states_httpds_status(&httpd, &requests);
        assert_eq!(seen, expected, "{method}: the cases this test is about");
    }
}

/// Session 25 (E): the Host header given with `--header` picks the virtual host whatever the
/// header name's case and spacing, with a port, a trailing dot, any case, or a ServerAlias
/// wildcard, as `--host` does; an absolute URL's host is taken over it. Holds on main.
#[test]
fn a_host_header_given_with_header_is_read_as_httpd_reads_it() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n\
<VirtualHost *:@PORT@>\n    ServerName a.test\n    DocumentRoot @DOCROOT@\n</VirtualHost>\n\
<VirtualHost *:@PORT@>\n    ServerName b.test\n    ServerAlias *.w.test\n    DocumentRoot @DOCROOT@\n    <Location />\n        Require all denied\n    </Location>\n</VirtualHost>\n";
    let httpd = Httpd::start(HttpdConfig::new(body).file("htdocs/index.html", "x\n")).unwrap_or_else(|e| panic!("{e}"));
    let conf = httpd.config().main_config_path();
    let conf = conf.to_str().unwrap();
    let port = httpd.port().to_string();
    let with_port = format!("b.test:{port}");
    for (host, status) in
        [("b.test", 403), ("B.TEST.", 403), ("x.w.test", 403), (&*with_port, 403), ("b.test:1", 403), ("a.test", 200)]
    {
        let real = httpd.send(&Request::get("/").host(host)).unwrap();
        assert_eq!(real, status, "Host {host}");
        for form in [format!("Host: {host}"), format!("host:{host}"), format!("HOST:  {host} ")] {
            let v = json(&["explain", conf, "/", "--format", "json", "--port", &port, "--header", &form]);
            assert_eq!(v["status"], real, "{form:?}: httpd {real}\n{v:#}");
        }
    }
    for (url, host, status) in [("http://a.test/", "b.test", 200), ("http://b.test/", "a.test", 403)] {
        let real = httpd.send(&Request::get(url).host(host)).unwrap();
        assert_eq!(real, status, "{url} with Host {host}");
        let form = format!("Host: {host}");
        let v = json(&["explain", conf, url, "--format", "json", "--port", &port, "--header", &form]);
        assert_eq!(v["status"], real, "{url} {form:?}: httpd {real}\n{v:#}");
    }
}

/// A `<Limit>`/`<LimitExcept>` confines only the access-control lines it holds to its methods:
/// httpd applies every other line in it (SetEnvIf, BrowserMatch, DirectoryIndex, Options), in a
/// section or an .htaccess file, whatever the method. Black-box round 17 C17 F6.
#[test]
fn lines_other_than_access_control_inside_limit_apply_to_every_method() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    AllowOverride All\n</Directory>\n\
<Directory @DOCROOT@/b>\n    <Limit POST>\n        SetEnvIf X-Key \"^k$\" key\n    </Limit>\n    Require env key\n</Directory>\n\
<Directory @DOCROOT@/a>\n    Order deny,allow\n    Deny from env=bot\n    <Limit GET POST>\n        BrowserMatch \"^bot\" bot\n    </Limit>\n</Directory>\n\
<Directory @DOCROOT@/c>\n    <Limit GET>\n        DirectoryIndex x.txt\n    </Limit>\n    Order deny,allow\n    Deny from 127.0.0.2\n</Directory>\n\
<Directory @DOCROOT@/e>\n    <LimitExcept POST>\n        Options Indexes\n    </LimitExcept>\n</Directory>\n";
    let config = HttpdConfig::new(body)
        .with_module("autoindex")
        .file("htdocs/a/x.txt", "x\n")
        .file("htdocs/b/x.txt", "x\n")
        .file("htdocs/c/x.txt", "x\n")
        .file("htdocs/e/z.txt", "x\n")
        .file("htdocs/f/x.txt", "x\n")
        .file(
            "htdocs/f/.htaccess",
            "<LimitExcept GET>\n    SetEnvIf X-Key ^k$ fkey\n</LimitExcept>\nRequire env fkey\n",
        );
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let mut requests = Vec::new();
    for method in ["GET", "POST"] {
        for path in ["/a/x.txt", "/b/x.txt", "/f/x.txt"] {
            requests.push(Request::new(method, path));
            requests.push(Request::new(method, path).header("User-Agent", "bot/1").header("X-Key", "k"));
        }
        for client in ["127.0.0.1", "127.0.0.2"] {
            requests.push(Request::new(method, "/c/").source(client.parse().unwrap()));
        }
        requests.push(Request::new(method, "/e/"));
    }
    let seen = explain_states_httpds_status(&httpd, &requests);
    let get = &seen[..seen.len() / 2];
    // GET: the BrowserMatch in <Limit GET POST> refuses the bot, the SetEnvIf in <Limit POST>
    // (<LimitExcept GET>) grants the key, the DirectoryIndex in <Limit GET> serves /c/ and the
    // Options Indexes in <LimitExcept POST> lists /e/.
    assert_eq!(get, [200, 403, 403, 200, 403, 200, 200, 403, 200], "{seen:?}");
}

/// The subrequest mod_dir makes for FallbackResource starts with a copy of the request's
/// environment (SetEnvIf's variables) and runs no SetEnvIf of its own; mod_rewrite's internal
/// redirect hands the new request the old one's variables renamed `REDIRECT_…`, and the new
/// request runs the server's and its own sections' SetEnvIf again. Black-box round 17 C17 F15.
#[test]
fn subrequests_and_internal_redirects_carry_the_requests_environment_as_httpd_does() {
    if !require_apache2() {
        return;
    }
    let body = "SetEnvIf User-Agent \"^bot\" bot\n\
<Directory @DOCROOT@/t>\n    Order allow,deny\n    Allow from all\n    Deny from env=bot\n</Directory>\n\
<Directory @DOCROOT@/u>\n    Require env REDIRECT_bot\n</Directory>\n\
<Directory @DOCROOT@/v>\n    SetEnvIf User-Agent \"^bot\" vb\n    Order allow,deny\n    Allow from all\n    Deny from env=vb\n</Directory>\n\
<Directory @DOCROOT@/c>\n    FallbackResource /t/y.txt\n</Directory>\n\
<Directory @DOCROOT@/d>\n    FallbackResource /u/y.txt\n</Directory>\n\
<Directory @DOCROOT@/e>\n    FallbackResource /v/y.txt\n</Directory>\n\
<Directory @DOCROOT@/a>\n    Options FollowSymLinks\n    RewriteEngine On\n    RewriteRule ^go$ /t/y.txt [L]\n    RewriteRule ^gu$ /u/y.txt [L]\n    RewriteRule ^gv$ /v/y.txt [L]\n</Directory>\n";
    let mut config = HttpdConfig::new(body).with_module("rewrite").file("htdocs/a/x.txt", "x\n");
    for d in ["t", "u", "v"] {
        config = config.file(format!("htdocs/{d}/y.txt"), "y\n");
    }
    for d in ["c", "d", "e"] {
        config = config.file(format!("htdocs/{d}/i.html"), "i\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let paths = ["/c/nothing", "/d/nothing", "/e/nothing", "/a/go", "/a/gu", "/a/gv"];
    let mut requests: Vec<Request> = paths.iter().map(|p| Request::get(p).header("User-Agent", "bot/2")).collect();
    requests.extend(paths.iter().map(|p| Request::get(p).header("User-Agent", "curl/8")));
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(&seen[..6], [403, 403, 200, 403, 200, 403], "the bot: {seen:?}");
    assert_eq!(&seen[6..], [200, 403, 200, 200, 403, 200], "no bot: {seen:?}");
}

/// A request target that is a path starting with `//` is the request for the path with one
/// leading slash from httpd's first hook on (server-level `SetEnvIf Request_URI` sees it so);
/// an absolute URL's path keeps its slashes. Black-box round 17 C17 F1.
#[test]
fn a_leading_run_of_slashes_is_one_slash_to_server_level_setenvif() {
    if !require_apache2() {
        return;
    }
    let body = "SetEnvIf Request_URI \"^/a/\" ina\nSetEnvIf Request_URI \"^//\" dbl\n\
<Directory @DOCROOT@/e>\n    Order allow,deny\n    Allow from all\n    Deny from env=ina\n</Directory>\n\
<Directory @DOCROOT@/a>\n    Order allow,deny\n    Allow from all\n    Deny from env=dbl\n</Directory>\n";
    let config = HttpdConfig::new(body).file("htdocs/a/x.txt", "x\n").file("htdocs/e/x.txt", "x\n");
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let port = httpd.port();
    let absolute = format!("http://localhost:{port}//a/x.txt");
    let paths = ["//a/x.txt", "///a/x.txt", "//a/../e/x.txt", "/a//x.txt", "/a//../e/x.txt", absolute.as_str()];
    let requests: Vec<Request> = paths.iter().map(|p| Request::get(p)).collect();
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(&seen[..3], [200, 200, 403], "{seen:?}");
}

/// The named groups of a regex section that matches (`<DirectoryMatch>`, `<LocationMatch>`,
/// `<FilesMatch>`, `<Files ~>`) set `MATCH_NAME` in the request's environment during the walk,
/// before the access checks, even where the section holds nothing else. Black-box round 17 C17 F3.
#[test]
fn named_groups_of_regex_sections_set_match_variables() {
    if !require_apache2() {
        return;
    }
    let body = "<DirectoryMatch \"^@DOCROOT@/(?<sub>[ab])\">\n    Require env MATCH_SUB\n</DirectoryMatch>\n\
<LocationMatch \"^/(?<loc>c|d)/\">\n    Order deny,allow\n    Deny from all\n    Allow from env=MATCH_LOC\n</LocationMatch>\n\
<Directory @DOCROOT@/e>\n    <FilesMatch \"(?<ext>txt)$\">\n        Order deny,allow\n        Deny from all\n        Allow from env=MATCH_EXT\n    </FilesMatch>\n</Directory>\n\
<Files ~ \"(?<nm>^y)\">\n    Require env MATCH_NM\n</Files>\n\
<DirectoryMatch \"^@DOCROOT@/(?<sub>g)\">\n</DirectoryMatch>\n\
<Directory @DOCROOT@/g>\n    Order deny,allow\n    Deny from all\n    Allow from env=MATCH_SUB\n</Directory>\n\
<Directory @DOCROOT@/f>\n    Order deny,allow\n    Deny from all\n    Allow from env=MATCH_SUB\n</Directory>\n";
    let mut config = HttpdConfig::new(body);
    for d in ["a", "c", "e", "f", "g"] {
        config = config.file(format!("htdocs/{d}/x.txt"), "x\n").file(format!("htdocs/{d}/y.html"), "y\n");
    }
    let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
    let paths = ["/a/x.txt", "/a/nope", "/c/x.txt", "/e/x.txt", "/e/y.html", "/g/x.txt", "/f/x.txt", "/c/y.html"];
    let requests: Vec<Request> = paths.iter().map(|p| Request::get(p)).collect();
    let seen = explain_states_httpds_status(&httpd, &requests);
    assert_eq!(seen, [200, 404, 200, 200, 200, 200, 403, 200], "{seen:?}");
}
