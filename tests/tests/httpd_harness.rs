//! Tests of the real-httpd harness itself: each starts `/usr/sbin/apache2` on a loopback port
//! and checks statuses the server really returns. Each skips, with a note, when apache2 is not
//! installed.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use apache_lsp_e2e::httpd::{config_test, credentials, sources, Httpd, HttpdConfig, Request, USERS};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn start(config: HttpdConfig) -> Httpd {
    match Httpd::start(config) {
        Ok(httpd) => httpd,
        Err(e) => panic!("httpd did not start:\n{e}"),
    }
}

fn status(httpd: &Httpd, request: Request) -> u16 {
    httpd.send(&request).unwrap_or_else(|e| panic!("request failed: {e}"))
}

const GRANTED: &str = "<Directory @DOCROOT@>\n    Require all granted\n</Directory>\n";

#[test]
fn require_all_granted_serves_every_source() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let httpd = start(HttpdConfig::new(GRANTED));
    for source in sources() {
        for path in ["/", "/sub/", "/sub/deeper/", "/a.txt"] {
            assert_eq!(status(&httpd, Request::get(path).source(source)), 200, "{path} from {source}");
        }
        assert_eq!(status(&httpd, Request::get("/nope").source(source)), 404, "from {source}");
    }
    let body = httpd.fetch(&Request::get("/sub/deeper/")).unwrap().body_text();
    assert_eq!(body, "htdocs/sub/deeper/index.html\n");
}

#[test]
fn require_ip_admits_only_that_source() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let httpd = start(HttpdConfig::new("<Directory @DOCROOT@>\n    Require ip 127.0.0.2\n</Directory>\n"));
    for source in sources() {
        let (got, log) = httpd.send_logged(&Request::get("/").source(source)).unwrap();
        if source == ip("127.0.0.2") {
            assert_eq!(got, 200, "from {source}");
            assert_eq!(log, "", "from {source}");
        } else {
            assert_eq!(got, 403, "from {source}");
            assert!(log.contains("AH01630"), "from {source}: {log}");
            assert!(log.contains(&format!("[client {}", source)), "{log}");
        }
    }
}

#[test]
fn basic_auth_valid_user_asks_for_and_checks_passwords() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let httpd = start(HttpdConfig::new(
        "<Directory @DOCROOT@>\n\
         \x20   AuthType Basic\n\
         \x20   AuthName harness\n\
         \x20   AuthUserFile @ROOT@/htpasswd\n\
         \x20   Require valid-user\n\
         </Directory>\n",
    ));
    for creds in credentials() {
        let expected = match &creds {
            None => 401,
            Some((_, password)) if password == "wrong" => 401,
            Some(_) => 200,
        };
        for source in sources() {
            let got = status(&httpd, Request::get("/").source(source).credentials(creds.clone()));
            assert_eq!(got, expected, "{creds:?} from {source}");
        }
    }
    for (user, password) in USERS {
        assert_eq!(status(&httpd, Request::get("/").user(user, password)), 200, "{user}'s htpasswd line");
    }
    let challenge = httpd.fetch(&Request::get("/")).unwrap();
    assert_eq!(challenge.header("WWW-Authenticate"), Some("Basic realm=\"harness\""));
}

#[test]
fn htaccess_group_requirement_uses_the_group_file() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let config = HttpdConfig::new(
        "<Directory @DOCROOT@>\n\
         \x20   AllowOverride AuthConfig\n\
         \x20   Require all granted\n\
         </Directory>\n",
    )
    .file(
        "htdocs/private/.htaccess",
        "AuthType Basic\nAuthName private\nAuthUserFile @ROOT@/htpasswd\n\
         AuthGroupFile @ROOT@/htgroups\nRequire group admins\n",
    );
    let httpd = start(config);
    assert_eq!(status(&httpd, Request::get("/")), 200);
    assert_eq!(status(&httpd, Request::get("/private/")), 401);
    assert_eq!(status(&httpd, Request::get("/private/").user("alice", "apw")), 200);
    let (got, log) = httpd.send_logged(&Request::get("/private/").user("bob", "bpw")).unwrap();
    assert_eq!(got, 401, "a valid user outside the group is challenged again");
    assert!(log.contains("AH01631"), "{log}");
}

#[test]
fn access_compat_order_deny_allow_logs_ah01797_with_the_path() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let httpd = start(HttpdConfig::new(
        "<Directory @DOCROOT@>\n\
         \x20   Order deny,allow\n\
         \x20   Deny from all\n\
         \x20   Allow from 127.0.0.1\n\
         </Directory>\n",
    ));
    let docroot = httpd.config().docroot().display().to_string();
    for source in sources() {
        let (got, log) = httpd.send_logged(&Request::get("/sub/").source(source)).unwrap();
        if source == ip("127.0.0.1") {
            assert_eq!(got, 200);
        } else {
            assert_eq!(got, 403, "from {source}");
            assert!(log.contains("AH01797"), "{log}");
            assert!(log.contains(&format!("{docroot}/sub/")), "{log}");
        }
    }
    // A file that does not exist is still governed by the Directory of its parent, and the log
    // names the would-be file.
    let (got, log) = httpd.send_logged(&Request::get("/server-status").source(ip("127.0.0.2"))).unwrap();
    assert_eq!(got, 403);
    assert!(log.contains(&format!("AH01797: client denied by server configuration: {docroot}/server-status")), "{log}");
    assert_eq!(status(&httpd, Request::get("/server-status")), 404);
}

#[test]
fn config_test_rejects_order_without_access_compat() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n    Order allow,deny\n    Allow from all\n</Directory>\n";
    let (ok, output) = config_test(&HttpdConfig::new(body));
    assert!(ok, "{output}");
    assert!(output.contains("Syntax OK"), "{output}");

    let config = HttpdConfig::new(body).without_module("access_compat");
    let (ok, output) = config_test(&config);
    assert!(!ok, "{output}");
    assert!(output.contains("Invalid command 'Order'"), "{output}");
    assert!(output.contains(&config.main_config_path().display().to_string()), "{output}");

    let err =
        Httpd::start(HttpdConfig::new(body).without_module("access_compat")).err().expect("httpd must refuse to start");
    assert!(err.contains("Invalid command 'Order'"), "{err}");
}

#[test]
fn event_mpm_and_custom_module_list_start() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let config = HttpdConfig::new(GRANTED).mpm("event").modules(&["authz_core", "dir"]);
    let text = config.main_config_text();
    assert!(text.contains("mod_mpm_event.so"));
    assert!(!text.contains("mod_access_compat.so"));
    let httpd = start(config);
    assert_eq!(status(&httpd, Request::get("/")), 200);
    assert_eq!(status(&httpd, Request::get("/sub/deeper/")), 200);
    let log = httpd.error_log();
    assert!(!log.contains(":warn]") && !log.contains(":error]"), "{log}");
}

#[test]
fn parallel_instances_get_separate_ports_and_roots_and_stop_on_drop() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let servers: Vec<Httpd> = (0..3).map(|i| start(HttpdConfig::new(format!("{GRANTED}# instance {i}\n")))).collect();
    for (i, a) in servers.iter().enumerate() {
        for b in &servers[i + 1..] {
            assert_ne!(a.port(), b.port());
            assert_ne!(a.config().root(), b.config().root());
        }
        assert_eq!(status(a, Request::get("/a.txt")), 200);
        let main = std::fs::read_to_string(a.config().main_config_path()).unwrap();
        assert!(main.contains(&format!("# instance {i}")));
        assert!(main.contains(&format!("Listen 127.0.0.1:{}", a.port())));
    }
    let ports: Vec<u16> = servers.iter().map(Httpd::port).collect();
    let roots: Vec<_> = servers.iter().map(|s| s.config().root().to_owned()).collect();
    let pids: Vec<u32> = servers.iter().map(Httpd::pid).collect();
    drop(servers);
    for ((port, root), pid) in ports.into_iter().zip(roots).zip(pids) {
        let closed = std::net::TcpStream::connect(("127.0.0.1", port)).is_err();
        assert!(closed, "port {port} still open");
        assert!(!root.exists(), "{} not removed", root.display());
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "pid {pid} alive");
    }
}

#[test]
fn start_stop_cycle_is_fast() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let t0 = Instant::now();
    let httpd = start(HttpdConfig::new(GRANTED));
    let started = t0.elapsed();
    assert_eq!(status(&httpd, Request::get("/")), 200);
    let log = httpd.error_log();
    assert!(!log.contains(":warn]") && !log.contains(":error]"), "{log}");
    let t1 = Instant::now();
    let exit = httpd.stop();
    let stopped = t1.elapsed();
    eprintln!("httpd start {started:?}, stop {stopped:?}, exit {exit:?}");
    assert!(exit.is_some(), "httpd needed SIGKILL");
    assert!(started < Duration::from_secs(3), "start took {started:?}");
    assert!(stopped < Duration::from_secs(3), "stop took {stopped:?}");
}
