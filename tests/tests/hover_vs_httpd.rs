//! The hover's outcome table against the real httpd.
//!
//! Each case builds a configuration with the harness, asks the hover of one section
//! (through the `ide` API, or through the real binary over stdio for `.htaccess`
//! files, which exercises root discovery), parses the table it shows (client,
//! anonymous, authenticated → status), then starts httpd on loopback and sends the
//! same request from the same client address, without credentials and with a valid
//! user's, and asserts the statuses are equal. Rows for clients outside loopback
//! (the table's "any other" address) cannot be sent from this machine and are
//! skipped with a note. Cases: the seed's two merge-precedence cases
//! (../shared/upgrade-2.2-to-2.4.md §5.3), each with and without a
//! `<Directory DOCROOT> Require all granted`, and inheritance across Directory,
//! Location and .htaccess.

use apache_lsp::ide;
use apache_lsp_e2e::differential::access_status;
use apache_lsp_e2e::httpd::{require_apache2, Httpd, HttpdConfig, Request, USERS};
use apache_lsp_e2e::lsp::{file_uri, position_of, Client};
use serde_json::json;
use std::net::IpAddr;
use std::time::Duration;

/// One row of the hover's table: a status per column.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    label: String,
    client: Option<IpAddr>,
    cells: Vec<Option<u16>>,
    /// The server the table says answers the row (its `server` column, when it has one).
    server: Option<String>,
    /// httpd's own statuses for the cells, once compared (`compare_with_httpd`).
    httpd: Vec<u16>,
}

/// What a hover says: the request it evaluated and its table, whose columns are `anonymous`,
/// then `as \`user\`` for each user the rules name, then `authenticated` (or `another valid
/// user` after named ones): any user the rules do not name. Inside a `<Limit>`, the table is
/// for a method the section applies to, and GET's table follows (`get`) where it differs.
#[derive(Debug)]
struct Outcome {
    method: String,
    url: String,
    columns: Vec<String>,
    /// Whether the table has a `server` column (after `client`).
    server_column: bool,
    rows: Vec<Row>,
    /// What the handler answers where access is granted: the status, and the cells it is said
    /// of (`label, column`), None for every granted cell.
    handled: Vec<(u16, Option<Vec<String>>)>,
    get: Option<Box<Outcome>>,
}

/// The method and URL of the first `` `METHOD /url` `` in `line`.
fn request_in(line: &str) -> Option<(String, String)> {
    let quoted = line.split('`').skip(1).step_by(2).find(|q| q.contains(" /"))?;
    let (method, url) = quoted.split_once(' ')?;
    Some((method.to_string(), url.to_string()))
}

fn parse_hover(md: &str) -> Outcome {
    let first = md.lines().find(|l| l.starts_with("**Effective access**")).unwrap_or("");
    let (method, url) = request_in(first).unwrap_or_else(|| panic!("no evaluated request in the hover:\n{md}"));
    let split =
        |line: &str| -> Vec<String> { line.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect() };
    let mut tables: Vec<Outcome> = Vec::new();
    let mut next_request = (method, url);
    for line in md.lines() {
        if line.starts_with("| client") {
            let (method, url) = next_request.clone();
            let mut columns: Vec<String> = split(line).into_iter().skip(1).collect();
            let server_column = columns.first().is_some_and(|c| c == "server");
            if server_column {
                columns.remove(0);
            }
            tables.push(Outcome { method, url, columns, server_column, rows: vec![], handled: vec![], get: None });
        } else if line.starts_with("For `GET ") && line.contains("does not apply to") {
            next_request = request_in(line).expect("GET's request");
        } else if let (Some(t), Some(rest)) = (tables.last_mut(), line.strip_prefix("Where access is granted ")) {
            let (whom, said) =
                rest.split_once(", httpd answers ").or_else(|| rest.split_once(" httpd answers ")).unwrap();
            let status = said.split(" with ").nth(1).and_then(|w| w.split(':').next()).and_then(|s| s.parse().ok());
            let cells = whom.strip_prefix("for ").map(|w| w.split("; ").map(str::to_string).collect());
            t.handled.push((status.unwrap_or_else(|| panic!("no status in {line:?}")), cells));
        } else if let (Some(t), true) = (tables.last_mut(), line.starts_with("| ") && !line.starts_with("|---")) {
            let mut cells = split(line);
            let server = t.server_column.then(|| cells.remove(1).trim_matches('`').to_string());
            assert_eq!(cells.len(), t.columns.len() + 1, "odd table row {line:?}");
            let label = cells[0].as_str();
            // "local (127.0.0.1)", "any other (192.0.2.1)", or the address a rule names.
            let addr = label.rsplit_once('(').map(|(_, a)| a.trim_end_matches(')')).unwrap_or(label);
            let addr = addr.split('/').next().unwrap_or(addr);
            t.rows.push(Row {
                label: label.to_string(),
                client: addr.parse().ok(),
                cells: cells[1..].iter().map(|c| c.parse().ok()).collect(),
                server,
                httpd: vec![],
            });
        }
    }
    assert!(tables.first().is_some_and(|t| !t.rows.is_empty()), "no outcome table in the hover:\n{md}");
    let mut tables = tables.into_iter();
    let mut outcome = tables.next().unwrap();
    outcome.get = tables.next().map(Box::new);
    outcome
}

/// The hover of the section whose header is `header` in the main configuration, through the API.
fn hover_via_api(cfg: &HttpdConfig, header: &str) -> String {
    cfg.write().expect("write the configuration");
    let main = cfg.main_config_path();
    let loaded = ide::config::load(&main, &ide::config::RealFs);
    let text = &loaded.file(0).text;
    let header = cfg.substitute(header);
    let at = text.find(&header).unwrap_or_else(|| panic!("{header} not in the configuration"));
    let (_, md) = ide::hover::hover(&loaded, 0, ((at + 2) as u32).into()).expect("a hover on the section");
    md
}

/// The hover on `needle` in the file `relative` (to the server root), through the real
/// binary, with the server root as the workspace folder: the server has to find the
/// main configuration itself.
fn hover_via_stdio(cfg: &HttpdConfig, relative: &str, needle: &str) -> String {
    cfg.write().expect("write the configuration");
    let path = cfg.root().join(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = file_uri(&path);
    let mut c = Client::spawn();
    c.initialize_with(json!({"window": {"workDoneProgress": true}}), &[cfg.root()], json!({}));
    c.wait_for(Duration::from_secs(20), |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
        .expect("the workspace is indexed");
    c.open(&uri, &text);
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position_of(&text, needle, 1)}),
    );
    let md = r["result"]["contents"]["value"].as_str().unwrap_or_else(|| panic!("no hover: {r}")).to_string();
    assert!(c.shutdown().is_some());
    md
}

/// Starts httpd and checks every loopback row of the table (and of GET's after it), each cell's
/// access status, and its full status where the hover says what the handler answers; returns
/// the tables with httpd's statuses.
fn compare_with_httpd(name: &str, cfg: HttpdConfig, md: &str) -> Outcome {
    let mut outcome = parse_hover(md);
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{name}: httpd did not start: {e}"));
    let mut compared = compare_table(name, &httpd, &mut outcome, md);
    if let Some(get) = outcome.get.as_mut() {
        compared += compare_table(name, &httpd, get, md);
    }
    assert!(compared >= 2, "{name}: nothing compared\n{md}");
    outcome
}

/// [`compare_with_httpd`] for one table: how many cells were compared.
fn compare_table(name: &str, httpd: &Httpd, outcome: &mut Outcome, md: &str) -> usize {
    // Each column's credentials: none, a named user's, or a valid user no column names.
    let named: Vec<&str> =
        outcome.columns.iter().filter_map(|c| c.strip_prefix("as `").and_then(|c| c.strip_suffix('`'))).collect();
    let credentials: Vec<Option<(&str, &str)>> = outcome
        .columns
        .iter()
        .map(|c| match c.as_str() {
            "anonymous" => None,
            c if c.starts_with("as `") => {
                let user = &c[4..c.len() - 1];
                Some(
                    *USERS.iter().find(|(u, _)| *u == user).unwrap_or_else(|| panic!("{name}: no password for {user}")),
                )
            }
            _ => Some(*USERS.iter().find(|(u, _)| !named.contains(u)).expect("a user no column names")),
        })
        .collect();
    let mut compared = 0;
    for row in &mut outcome.rows {
        let Some(client) = row.client.filter(|c| c.is_loopback()) else {
            eprintln!("note: {name}: row {:?} is not a loopback client; httpd cannot be asked for it here", row.label);
            continue;
        };
        for ((expected, credentials), column) in
            row.cells.iter().copied().zip(credentials.iter().copied()).zip(&outcome.columns)
        {
            let mut req = Request::new(&outcome.method, &outcome.url).source(client);
            if let Some((u, p)) = credentials {
                req = req.user(u, p);
            }
            let status = httpd.send(&req).unwrap_or_else(|e| panic!("{name}: {e}"));
            row.httpd.push(status);
            let how = if credentials.is_some() { "as an authenticated user" } else { "anonymously" };
            // An unknown cell claims nothing, provided the hover says why under the table.
            let said_why = |l: &str| {
                (l.contains("is not known here") && (l.starts_with("For every cell") || l.contains(&row.label)))
                    || l.starts_with("Some outcomes cannot be known")
            };
            if expected.is_none() && md.lines().any(said_why) {
                continue;
            }
            // A 301, 404 or 405 passed access control: the table is about access.
            let got = access_status(status);
            assert_eq!(
                expected,
                Some(got),
                "{name}: {} {} from {client} {how} — the hover says {expected:?}, httpd answered {status}\n{md}\nerror log:\n{}",
                outcome.method,
                outcome.url,
                httpd.error_log()
            );
            // Where access is granted, the handler's answer the hover states.
            let cell = format!("{}, {column}", row.label);
            let said = outcome.handled.iter().find(|(_, cells)| cells.as_ref().is_none_or(|c| c.contains(&cell)));
            if let (Some(200), Some((handled, _))) = (expected, said) {
                assert_eq!(
                    *handled, status,
                    "{name}: {} {} from {client} {how} — the hover says the handler answers {handled}, httpd answered {status}\n{md}",
                    outcome.method, outcome.url
                );
            }
            compared += 1;
        }
    }
    compared
}

fn status_of(outcome: &Outcome, client: &str) -> (Option<u16>, Option<u16>) {
    let want: IpAddr = client.parse().unwrap();
    let row = outcome.rows.iter().find(|r| r.client == Some(want)).unwrap_or_else(|| panic!("no row for {client}"));
    (row.cells[0], row.cells[row.cells.len() - 1])
}

const GRANT_DOCROOT: &str = "<Directory @DOCROOT@>\n  Require all granted\n</Directory>\n";

/// Seed §5.3 "unexpected": the inherited `Deny from all` defeats `Require local`.
const UNEXPECTED: &str = "<Directory />\n  AllowOverride None\n  Order deny,allow\n  Deny from all\n</Directory>\n<Location /server-status>\n  SetHandler server-status\n  Require local\n</Location>\n";

/// Seed §5.3 "as expected": the Location's old-style rules replace the inherited (default)
/// host rules, but its Require layer is inherited from `<Directory />`: without a grant of the
/// document root, httpd refuses (the seed's 200 holds only with one; fact sheet §5.4, §8.1).
const AS_EXPECTED: &str = "<Directory />\n  AllowOverride None\n  Require all denied\n</Directory>\n<Location /server-status>\n  SetHandler server-status\n  Order deny,allow\n  Deny from all\n  Allow From 127.0.0.1\n</Location>\n";

#[test]
fn seed_unexpected_case_with_and_without_a_docroot_grant() {
    if !require_apache2() {
        return;
    }
    for (name, body) in
        [("unexpected", UNEXPECTED.to_string()), ("unexpected + docroot grant", format!("{GRANT_DOCROOT}{UNEXPECTED}"))]
    {
        let cfg = HttpdConfig::new(body);
        let md = hover_via_api(&cfg, "<Location /server-status>");
        assert!(md.contains("`Require local` has no effect here"), "{name}: the trap is stated\n{md}");
        let outcome = compare_with_httpd(name, cfg, &md);
        assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)), "{name}: the seed's HTTP 403");
    }
}

#[test]
fn seed_as_expected_case_with_and_without_a_docroot_grant() {
    if !require_apache2() {
        return;
    }
    for (name, body, local) in [
        ("as expected", AS_EXPECTED.to_string(), 403),
        ("as expected + docroot grant", format!("{GRANT_DOCROOT}{AS_EXPECTED}"), 200),
    ] {
        let cfg = HttpdConfig::new(body);
        let md = hover_via_api(&cfg, "<Location /server-status>");
        let outcome = compare_with_httpd(name, cfg, &md);
        assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(local), Some(local)), "{name}");
    }
    // The same with a loopback address that is not the client's: refused, as httpd refuses it.
    let body = format!("{GRANT_DOCROOT}{}", AS_EXPECTED.replace("Allow From 127.0.0.1", "Allow From 127.0.0.2"));
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Location /server-status>");
    let outcome = compare_with_httpd("as expected, other address", cfg, &md);
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)));
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)));
}

#[test]
fn inheritance_across_directory_and_location() {
    if !require_apache2() {
        return;
    }
    // A Directory grants one address; its subdirectory adds nothing (inherits); a Location
    // over it asks for a user unless the client is 127.0.0.3 (Satisfy any, old style).
    let body = "<Directory @DOCROOT@>\n  Require ip 127.0.0.2\n</Directory>\n<Directory @DOCROOT@/sub>\n  Options None\n</Directory>\n";
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@/sub>");
    let outcome = compare_with_httpd("directory inherits", cfg, &md);
    assert_eq!(outcome.url, "/sub/");
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)));

    let body = format!(
        "{body}<Location /sub/>\n  AuthType Basic\n  AuthName \"Zoë\"\n  AuthUserFile @ROOT@/htpasswd\n  Require valid-user\n</Location>\n"
    );
    let cfg = HttpdConfig::new(body.clone());
    let md = hover_via_api(&cfg, "<Location /sub/>");
    let outcome = compare_with_httpd("location replaces the directory's Require", cfg, &md);
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(401), Some(200)));

    let body = body.replace(
        "  Require valid-user\n",
        "  Require valid-user\n  Order allow,deny\n  Allow from 127.0.0.3\n  Satisfy any\n",
    );
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Location /sub/>");
    let outcome = compare_with_httpd("location with Satisfy any", cfg, &md);
    assert_eq!(status_of(&outcome, "127.0.0.3"), (Some(200), Some(200)));
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(401), Some(200)));
}

#[test]
fn htaccess_inherits_from_its_directory_found_by_the_server_itself() {
    if !require_apache2() {
        return;
    }
    // The server configuration grants the document root and lets .htaccess files set
    // access; the .htaccess of sub/ narrows it to one address. The hover is asked in the
    // .htaccess, opened alone: the binary finds httpd.conf in the workspace folder.
    let body = "<Directory @DOCROOT@>\n  AllowOverride AuthConfig Limit\n  Require all granted\n</Directory>\n";
    let htaccess = "# Zugang nur für 127.0.0.2 😀\nRequire ip 127.0.0.2\n";
    let cfg = HttpdConfig::new(body).file("htdocs/sub/.htaccess", htaccess);
    let md = hover_via_stdio(&cfg, "htdocs/sub/.htaccess", "Require ip");
    assert!(md.contains("`<.htaccess >`"), "the .htaccess is a section of the walk\n{md}");
    let outcome = compare_with_httpd(".htaccess narrows", cfg, &md);
    assert_eq!(outcome.url, "/sub/");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)));
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)));

    // Under the seed's trap: an inherited `Deny from all` beats the .htaccess's Require.
    let body = format!("<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n{body}");
    let cfg = HttpdConfig::new(body).file("htdocs/sub/.htaccess", htaccess);
    let md = hover_via_stdio(&cfg, "htdocs/sub/.htaccess", "Require ip");
    assert!(md.contains("`Require ip 127.0.0.2` has no effect here"), "{md}");
    let outcome = compare_with_httpd(".htaccess under an inherited Deny", cfg, &md);
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(403), Some(403)));
}

/// Round 11b §1: under `AllowOverride … Nonfatal=Override` httpd skips the .htaccess lines the
/// AllowOverride does not let in (AH02295): the hover's table is the inherited rules', both
/// ways (the skipped Require granted what httpd refuses; the skipped Deny refused what it serves).
#[test]
fn htaccess_lines_httpd_skips_under_nonfatal_do_not_count() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  AllowOverride Limit Nonfatal=Override\n  Require all denied\n</Directory>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/.htaccess", "Require all granted\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    assert!(md.contains("`<.htaccess >`"), "the .htaccess is read\n{md}");
    let outcome = compare_with_httpd("a skipped Require", cfg, &md);
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)));

    let body =
        "<Directory @DOCROOT@>\n  AllowOverride AuthConfig Nonfatal=Override\n  Require all granted\n</Directory>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/.htaccess", "Order deny,allow\nDeny from 127.0.0.1\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = compare_with_httpd("a skipped Deny", cfg, &md);
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(200), Some(200)));
}

/// Session 22 (helper N): an .htaccess line of mod_authn_dbm httpd skips under `Nonfatal=Override`
/// (AH02295) is the first of that module in the file, so httpd made the module's configuration
/// of the file before refusing it, and the module merges nothing: the inherited AuthDBMUserFile
/// no longer applies, and every password checked answers 500 (AH10285). The hover said 200.
#[test]
fn a_skipped_first_line_of_mod_authn_dbm_drops_the_inherited_dbm_file() {
    if !require_apache2() {
        return;
    }
    if std::process::Command::new("htdbm").arg("-?").output().is_err() {
        eprintln!("note: htdbm (apache2-utils) is not installed; skipping");
        return;
    }
    let body = "<Directory @DOCROOT@>\n  AllowOverride Limit Nonfatal=Override\n  AuthType Basic\n  AuthName r\n  AuthBasicProvider dbm\n  AuthDBMUserFile @ROOT@/users.dbm\n  Require valid-user\n</Directory>\n";
    let cfg = HttpdConfig::new(body).with_module("authn_dbm").file("htdocs/.htaccess", "AuthDBMType default\n");
    cfg.write().expect("write the configuration");
    let db = cfg.root().join("users.dbm");
    for (i, (user, password)) in USERS.iter().enumerate() {
        let flags = if i == 0 { "-cb" } else { "-b" };
        let made = std::process::Command::new("htdbm").arg(flags).arg(&db).args([user, password]).output().unwrap();
        assert!(made.status.success(), "{made:?}");
    }
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    assert!(md.contains("`<.htaccess >`"), "the .htaccess is read\n{md}");
    let outcome = compare_with_httpd("a skipped AuthDBMType", cfg, &md);
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(401), Some(500)));
}

/// Round-three findings, each held to httpd: the table's authenticated columns are the users the
/// Require lines name (carol; a member of the named group), not a fixed one the configuration
/// never mentions; a wildcard `<Directory>` is hovered at a directory it governs; regex sections
/// at a URL they reach, not "no URL reaches this section".
#[test]
fn named_users_and_pattern_sections_as_httpd_answers_them() {
    if !require_apache2() {
        return;
    }
    let auth = "  AuthType Basic\n  AuthName x\n  AuthUserFile @ROOT@/htpasswd\n  AuthGroupFile @ROOT@/htgroups\n";
    let body = format!("<Directory @DOCROOT@>\n{auth}  Require user carol\n</Directory>\n");
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = compare_with_httpd("Require user carol", cfg, &md);
    assert!(outcome.columns.contains(&"as `carol`".to_string()), "{md}");
    assert_eq!(outcome.rows[0].cells, [Some(401), Some(200), Some(401)], "{md}");

    let body = format!("<Directory @DOCROOT@>\n{auth}  Require group admins\n</Directory>\n");
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = compare_with_httpd("Require group admins", cfg, &md);
    assert!(outcome.columns.contains(&"as `alice`".to_string()), "the group's member: {md}");
    assert_eq!(outcome.rows[0].cells, [Some(401), Some(200), Some(401)], "{md}");

    let body = "<Directory @DOCROOT@>\n  Order deny,allow\n  Deny from 127.0.0.2\n</Directory>\n<Directory @DOCROOT@/*/deeper>\n  Allow from all\n</Directory>\n";
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@/*/deeper>");
    let outcome = compare_with_httpd("wildcard directory", cfg, &md);
    assert_eq!(outcome.url, "/sub/deeper/");
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)));

    let body = "<Directory @DOCROOT@>\n  Require all granted\n</Directory>\n<FilesMatch \"\\.txt$\">\n  Require ip 127.0.0.2\n</FilesMatch>\n<LocationMatch \"^/sub/\">\n  Require ip 127.0.0.2\n</LocationMatch>\n<DirectoryMatch \"^@DOCROOT@/priv\">\n  Require ip 127.0.0.2\n</DirectoryMatch>\n";
    for header in ["<FilesMatch", "<LocationMatch", "<DirectoryMatch"] {
        let cfg = HttpdConfig::new(body);
        let md = hover_via_api(&cfg, header);
        let outcome = compare_with_httpd(header, cfg, &md);
        assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)), "{header}: {md}");
        assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)), "{header}: {md}");
    }
}

/// A Require that decides some requests is not "defeated": a `<Files>` inside its section
/// re-opens the inherited denial for one file, where the Require then decides (httpd: 200 for
/// 127.0.0.1, 403 with AH01630 for 127.0.0.2). check once told users to delete it.
#[test]
fn a_require_deciding_beneath_a_reopened_denial_is_not_called_defeated() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  Order allow,deny\n</Directory>\n<Directory @DOCROOT@/sub>\n  Require ip 127.0.0.1\n  <Files a.txt>\n    Allow from all\n  </Files>\n</Directory>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/sub/a.txt", "a\n");
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start: {e}"));
    let get = |from: &str| httpd.send(&Request::get("/sub/a.txt").source(from.parse().unwrap())).unwrap();
    assert_eq!((get("127.0.0.1"), get("127.0.0.2")), (200, 403));
    assert!(httpd.error_log().contains("AH01630"), "the Require refused 127.0.0.2:\n{}", httpd.error_log());
    let reported = apache_lsp::cli::check_paths(&[httpd.config().main_config_path()]).unwrap();
    assert!(!reported.iter().any(|r| r.code == "defeated-require"), "{reported:#?}");
}

/// An .htaccess below that only some servers read: the main server (answering on ::1) reads it
/// and re-opens the inherited denial there, while a virtual host on 127.0.0.1 has AllowOverride
/// None. On ::1 the Require decides (httpd 403 with AH01630 for ::1; 200 once it is deleted), so
/// no trap is reported.
#[test]
fn an_htaccess_only_the_main_server_reads_keeps_the_require_in_effect() {
    if !require_apache2() || !apache_lsp_e2e::httpd::ipv6_loopback_usable() {
        eprintln!("skipped: needs apache2 and the ::1 loopback");
        return;
    }
    let body = |require: &str| {
        format!("<Directory @DOCROOT@>\n  AllowOverride All\n  Order deny,allow\n  Deny from all\n</Directory>\n<Directory @DOCROOT@/sub>\n{require}</Directory>\n<VirtualHost 127.0.0.1:@PORT@>\n  ServerName a.test\n  DocumentRoot @DOCROOT@\n  <Directory @DOCROOT@>\n    AllowOverride None\n  </Directory>\n</VirtualHost>\n")
    };
    for with_require in [true, false] {
        let require = if with_require { "  Require ip 127.0.0.1\n" } else { "" };
        let cfg = HttpdConfig::new(body(require))
            .file("htdocs/sub/deeper/.htaccess", "Order allow,deny\nAllow from all\n")
            .file("htdocs/sub/deeper/a.txt", "a\n");
        let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start: {e}"));
        let get = |from: &str| httpd.send(&Request::get("/sub/deeper/a.txt").source(from.parse().unwrap())).unwrap();
        let statuses = (get("127.0.0.1"), get("127.0.0.2"), get("::1"));
        if with_require {
            assert_eq!(statuses, (403, 403, 403));
            assert!(httpd.error_log().contains("AH01630"), "the Require refused ::1:\n{}", httpd.error_log());
            let reported = apache_lsp::cli::check_paths(&[httpd.config().main_config_path()]).unwrap();
            assert!(!reported.iter().any(|r| r.code == "defeated-require"), "{reported:#?}");
        } else {
            assert_eq!(statuses, (403, 403, 200), "deleting the Require opens ::1");
        }
    }
}

/// Old-style rules limited to some methods: `<Limit POST> Allow from all` under `Order
/// allow,deny` lets POST through, and there the Require below decides (httpd: 200 for 127.0.0.1,
/// 403 with AH01630 for 127.0.0.2; deleting the Require opens POST to 127.0.0.2). `Satisfy Any`
/// for POST likewise. No trap is reported. Where the limited rules refuse every method
/// (`<Limit POST>` and `<LimitExcept POST>` both denying), httpd refuses every method by the
/// old rules (AH01797) and check reports it.
#[test]
fn a_require_deciding_another_method_is_not_called_defeated() {
    if !require_apache2() {
        return;
    }
    let parent = |limited: &str| format!("<Directory @DOCROOT@>\n  Order allow,deny\n{limited}</Directory>\n");
    let cases = [
        ("  <Limit POST>\n    Allow from all\n  </Limit>\n", false),
        ("  <LimitExcept GET HEAD>\n    Allow from all\n  </LimitExcept>\n", false),
        ("  <Limit POST>\n    Deny from all\n  </Limit>\n  <LimitExcept POST>\n    Deny from all\n  </LimitExcept>\n", true),
    ];
    for (limited, trapped) in cases {
        for with_require in [true, false] {
            let require = if with_require { "  Require ip 127.0.0.1\n" } else { "" };
            let body = format!("{}<Directory @DOCROOT@/sub>\n{require}</Directory>\n", parent(limited));
            let cfg = HttpdConfig::new(body).file("htdocs/sub/a.txt", "a\n");
            let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start: {e}"));
            let send = |method: &str, from: &str| {
                httpd.send(&Request::new(method, "/sub/a.txt").source(from.parse().unwrap())).unwrap()
            };
            let statuses: Vec<u16> = [("GET", "127.0.0.1"), ("POST", "127.0.0.1"), ("POST", "127.0.0.2")]
                .into_iter()
                .map(|(m, from)| send(m, from))
                .collect();
            let reported = apache_lsp::cli::check_paths(&[httpd.config().main_config_path()]).unwrap();
            let trap = reported.iter().any(|r| r.code == "defeated-require");
            match (trapped, with_require) {
                (false, true) => {
                    // POST passes the old rules; the Require decides it.
                    assert_eq!(statuses, vec![403, 200, 403], "{limited}");
                    assert!(httpd.error_log().contains("AH01630"), "{}", httpd.error_log());
                    assert!(!trap, "{limited}{reported:#?}");
                }
                (false, false) => assert_eq!(statuses[2], 200, "without the Require POST is open: {limited}"),
                (true, true) => {
                    assert_eq!(statuses, vec![403, 403, 403], "{limited}");
                    assert!(!httpd.error_log().contains("AH01630"), "{}", httpd.error_log());
                    assert!(trap, "{limited}{reported:#?}");
                }
                (true, false) => assert_eq!(statuses, vec![403, 403, 403], "{limited}"),
            }
        }
    }
}

/// The old rules in effect let through only an address the configuration names late (after
/// five others): the Require decides that client's requests (403 with it, AH01630; 200 without
/// it), so it is not "without effect". check tried only the configuration's first addresses and
/// claimed it was (a false finding inviting a deletion that opens the directory to 127.0.0.2).
#[test]
fn a_require_deciding_for_an_address_named_late_is_not_called_defeated() {
    if !require_apache2() {
        return;
    }
    let early = "<Directory @DOCROOT@/other>\n  Order deny,allow\n  Deny from 127.0.0.11 127.0.0.12 127.0.0.13 127.0.0.14 127.0.0.15\n</Directory>\n";
    let reopened = "<Directory @DOCROOT@>\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2\n</Directory>\n";
    for with_require in [true, false] {
        let require = if with_require { "  Require ip 127.0.0.9\n" } else { "" };
        let body = format!("{early}{reopened}<Directory @DOCROOT@/sub>\n{require}</Directory>\n");
        let cfg = HttpdConfig::new(body).file("htdocs/sub/a.txt", "a\n").file("htdocs/other/a.txt", "o\n");
        let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start: {e}"));
        let from = |ip: &str| httpd.send(&Request::get("/sub/a.txt").source(ip.parse().unwrap())).unwrap();
        let statuses = (from("127.0.0.1"), from("127.0.0.2"));
        let reported = apache_lsp::cli::check_paths(&[httpd.config().main_config_path()]).unwrap();
        let trap = reported.iter().any(|r| r.code == "defeated-require");
        if with_require {
            assert_eq!(statuses, (403, 403));
            assert!(httpd.error_log().contains("AH01630"), "{}", httpd.error_log());
            assert!(!trap, "{reported:#?}");
        } else {
            assert_eq!(statuses, (403, 200), "without the Require 127.0.0.2 is let in");
        }
    }
}

/// Each method of `METHODS_TRIED` from 127.0.0.1, 127.0.0.2 and 127.0.0.3, for `/sub/a.txt`: httpd's
/// statuses under `cfg`, with `check`'s defeated-require findings (their messages).
fn statuses_and_findings(cfg: HttpdConfig) -> (Vec<(String, u16)>, Vec<String>) {
    statuses_and_findings_at(cfg, &["/sub/a.txt"])
}

/// [`statuses_and_findings`] for each of `urls`.
fn statuses_and_findings_at(cfg: HttpdConfig, urls: &[&str]) -> (Vec<(String, u16)>, Vec<String>) {
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start: {e}"));
    let mut statuses = Vec::new();
    for url in urls {
        for from in ["127.0.0.1", "127.0.0.2", "127.0.0.3"] {
            for m in METHODS_TRIED {
                let status = httpd.send(&Request::new(m, url).source(from.parse().unwrap())).unwrap();
                statuses.push((format!("{m} {url} from {from}"), status));
            }
        }
    }
    let reported = apache_lsp::cli::check_paths(&[httpd.config().main_config_path()]).unwrap();
    let findings = reported.iter().filter(|r| r.code == "defeated-require").map(|r| r.message.to_string()).collect();
    (statuses, findings)
}

/// Builtin methods, HEAD (GET's number), a custom method and lowercase `get` (another method).
const METHODS_TRIED: [&str; 9] = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "FOO", "get"];

/// A Require inside `<Limit>`/`<LimitExcept>` decides only the methods named there (httpd grants
/// the others at its section, AH01625 "directive limited to other methods"), and it replaces the
/// inherited authorization for every method. check reports it as having no effect exactly when
/// httpd answers every method from each client the same with the Require deleted: the
/// findings' three shapes (round 6, M2), nested blocks, a custom method, an inherited
/// `Require all granted`. Near misses, where deleting it changes answers: a method it names
/// passes the old rules (POST PUT; lowercase `get`); the inherited Require it replaces refuses
/// PUT; an AuthType with no other Require (500 without it).
#[test]
fn a_require_limited_to_methods_the_old_rules_refuse_is_called_defeated() {
    if !require_apache2() {
        return;
    }
    let deny_get_post = "  <Limit GET POST>\n    Order deny,allow\n    Deny from all\n  </Limit>\n";
    let req = "    Require ip 127.0.0.1\n";
    let cases: [(String, String, Option<&str>); 10] = [
        (
            deny_get_post.into(),
            format!("  <Limit POST>\n{req}  </Limit>\n"),
            Some("it applies only to POST, and `Deny from all`"),
        ),
        (
            "  Order allow,deny\n  <Limit POST>\n    Allow from all\n  </Limit>\n".into(),
            format!("  <Limit GET>\n{req}  </Limit>\n"),
            Some("it applies only to GET, HEAD, and `Order allow,deny"),
        ),
        (
            "  Order deny,allow\n  Deny from all\n  <LimitExcept GET>\n    Allow from all\n  </LimitExcept>\n".into(),
            format!("  <Limit GET>\n{req}  </Limit>\n"),
            Some("it applies only to GET, HEAD, and `Deny from all`"),
        ),
        (
            deny_get_post.into(),
            format!("  <Limit GET POST>\n  <LimitExcept GET>\n{req}  </LimitExcept>\n  </Limit>\n"),
            Some("it applies only to POST, and"),
        ),
        (
            "  Order deny,allow\n  Deny from all\n  <Limit FOO>\n    Allow from all\n  </Limit>\n".into(),
            format!("  <LimitExcept FOO>\n{req}  </LimitExcept>\n"),
            Some("it applies only to methods other than FOO, and"),
        ),
        (format!("{deny_get_post}  Require all granted\n"), format!("  <Limit POST>\n{req}  </Limit>\n"), Some("POST")),
        (deny_get_post.into(), format!("  <Limit POST PUT>\n{req}  </Limit>\n"), None),
        (
            "  Order deny,allow\n  Deny from all\n  <Limit get>\n    Allow from all\n  </Limit>\n".into(),
            format!("  <Limit get>\n{req}  </Limit>\n"),
            None,
        ),
        (format!("{deny_get_post}  Require all denied\n"), format!("  <Limit POST>\n{req}  </Limit>\n"), None),
        (
            format!("{deny_get_post}  AuthType Basic\n  AuthName x\n"),
            format!("  <Limit POST>\n{req}  </Limit>\n"),
            None,
        ),
    ];
    for (parent, child, trapped) in cases {
        let body = |child: &str| {
            format!("<Directory @DOCROOT@>\n{parent}</Directory>\n<Directory @DOCROOT@/sub>\n{child}</Directory>\n")
        };
        let cfg = |child: &str| HttpdConfig::new(body(child)).file("htdocs/sub/a.txt", "a\n");
        let (with, findings) = statuses_and_findings(cfg(&child));
        // Deleted, and the blocks it leaves empty with it.
        let (without, _) = statuses_and_findings(cfg(""));
        let changed: Vec<String> = with
            .iter()
            .zip(&without)
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, b)| format!("{}: {} → {}", a.0, a.1, b.1))
            .collect();
        match trapped {
            Some(said) => {
                assert!(changed.is_empty(), "deleting it changes answers:\n{}{changed:#?}", body(&child));
                assert_eq!(findings.len(), 1, "{}{findings:#?}", body(&child));
                assert!(findings[0].contains(said), "{}{findings:#?}", body(&child));
            }
            None => {
                assert!(!changed.is_empty(), "deleting it changes nothing:\n{}", body(&child));
                assert!(findings.is_empty(), "{}{findings:#?}\nhttpd: {changed:#?}", body(&child));
            }
        }
    }
}

/// The same in an .htaccess file, hovered there: its `<Limit POST>` Require decides nothing
/// under an inherited `<Limit GET POST>` denial (httpd answers every method from each client the
/// same once it is deleted), and the hover says so; with PUT in the block too, the Require decides
/// PUT and the hover does not call it defeated.
#[test]
fn a_limited_require_in_an_htaccess_is_called_defeated_when_httpd_ignores_it() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  AllowOverride All\n  <Limit GET POST>\n    Order deny,allow\n    Deny from all\n  </Limit>\n</Directory>\n";
    for (methods, trapped) in [("POST", true), ("POST PUT", false)] {
        let htaccess = format!("<Limit {methods}>\n  Require ip 127.0.0.1\n</Limit>\n");
        let cfg =
            |text: &str| HttpdConfig::new(body).file("htdocs/sub/.htaccess", text).file("htdocs/sub/a.txt", "a\n");
        let md = hover_via_stdio(&cfg(&htaccess), "htdocs/sub/.htaccess", "Require ip");
        let (with, _) = statuses_and_findings(cfg(&htaccess));
        let (without, _) = statuses_and_findings(cfg(""));
        let changed: Vec<_> = with.iter().zip(&without).filter(|(a, b)| a.1 != b.1).collect();
        if trapped {
            assert!(changed.is_empty(), "{changed:#?}");
            assert!(md.contains("has no effect here: it applies only to POST, and `Deny from all`"), "{md}");
        } else {
            assert!(!changed.is_empty(), "deleting it changes nothing");
            assert!(!md.contains("has no effect"), "{md}");
        }
    }
}

/// `Satisfy Any` with old rules letting a request through: httpd grants it without consulting
/// Require (request.c: the access checker's OK is enough). An .htaccess in the Require's
/// directory doing so for every client (round 6, M5) makes the Require decide nothing, and check
/// says it lets every request through first; with a deeper .htaccess refusing everyone, or a
/// `<Files>` section elsewhere letting one file name through under the inherited denial, the old
/// rules decide every
/// request (some refused, the others let through) and check says both. Near misses, where
/// deleting the Require changes answers: the Allow names one client only (Require decides the
/// others: 127.0.0.3 is refused with it, let in without), a deeper .htaccess sets `Satisfy All`
/// again (Require decides there).
#[test]
fn a_require_the_old_rules_let_every_request_past_is_called_defeated() {
    if !require_apache2() {
        return;
    }
    let parent = "<Directory @DOCROOT@>\n  AllowOverride All\n  Order deny,allow\n  Deny from all\n</Directory>\n";
    let req = "  Require ip 127.0.0.1\n";
    let any_all = "Satisfy Any\nAllow from all\n";
    let cases: [(&str, &str, &str, Option<&str>); 5] = [
        (any_all, "", "", Some("`Allow from all (Satisfy Any: Require is not consulted)` lets every request through first")),
        (
            any_all,
            "Order deny,allow\nDeny from all\n",
            "",
            Some("the old rules decide every request first: `Deny from all` refuses some, `Allow from all (Satisfy Any: Require is not consulted)` lets the others through"),
        ),
        ("", "", "<Files a.txt>\n  Satisfy Any\n  Allow from all\n</Files>\n", Some("refuses some, `Allow from all (Satisfy Any: Require is not consulted)` lets the others through")),
        ("Satisfy Any\nOrder allow,deny\nAllow from 127.0.0.2\n", "", "", None),
        (any_all, "Satisfy All\n", "", None),
    ];
    for (htaccess, deeper, files, trapped) in cases {
        let cfg = |require: &str| {
            let body = format!("{parent}<Directory @DOCROOT@/sub>\n{require}</Directory>\n{files}");
            let mut cfg = HttpdConfig::new(body)
                .file("htdocs/sub/a.txt", "a\n")
                .file("htdocs/sub/b.txt", "b\n")
                .file("htdocs/sub/deeper/a.txt", "a\n");
            for (at, text) in [("htdocs/sub/.htaccess", htaccess), ("htdocs/sub/deeper/.htaccess", deeper)] {
                if !text.is_empty() {
                    cfg = cfg.file(at, text);
                }
            }
            cfg
        };
        let urls = ["/sub/a.txt", "/sub/b.txt", "/sub/deeper/a.txt"];
        let (with, findings) = statuses_and_findings_at(cfg(req), &urls);
        let (without, _) = statuses_and_findings_at(cfg(""), &urls);
        let changed: Vec<String> = with
            .iter()
            .zip(&without)
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, b)| format!("{}: {} → {}", a.0, a.1, b.1))
            .collect();
        let case = format!("sub/.htaccess {htaccess:?}, deeper {deeper:?}, files {files:?}");
        match trapped {
            Some(said) => {
                assert!(changed.is_empty(), "{case}: deleting it changes answers: {changed:#?}");
                assert_eq!(findings.len(), 1, "{case}: {findings:#?}");
                assert!(findings[0].contains(said), "{case}: {findings:#?}");
            }
            None => {
                assert!(!changed.is_empty(), "{case}: deleting it changes nothing");
                assert!(findings.is_empty(), "{case}: {findings:#?}\nhttpd: {changed:#?}");
            }
        }
    }
}

/// The same through an .htaccess file below the section: its Order/Allow/Deny replace the
/// inherited denial there, and the Require decides (httpd: 200 for 127.0.0.1, 403 with AH01630
/// for 127.0.0.2). Without the file, httpd refuses both by the inherited rule (AH01797) and check
/// reports the trap.
#[test]
fn an_htaccess_reopening_below_keeps_the_require_in_effect() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  AllowOverride Limit\n  Order allow,deny\n</Directory>\n<Location />\n  Require ip 127.0.0.1\n</Location>\n";
    for reopened in [true, false] {
        let mut cfg = HttpdConfig::new(body);
        if reopened {
            cfg = cfg.file("htdocs/sub/.htaccess", "Order deny,allow\nAllow from all\n");
        }
        let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start: {e}"));
        let get = |from: &str| httpd.send(&Request::get("/sub/").source(from.parse().unwrap())).unwrap();
        let reported = apache_lsp::cli::check_paths(&[httpd.config().main_config_path()]).unwrap();
        let trap = reported.iter().any(|r| r.code == "defeated-require");
        if reopened {
            assert_eq!((get("127.0.0.1"), get("127.0.0.2")), (200, 403));
            assert!(httpd.error_log().contains("AH01630"), "{}", httpd.error_log());
            assert!(!trap, "{reported:#?}");
        } else {
            assert_eq!((get("127.0.0.1"), get("127.0.0.2")), (403, 403));
            assert!(httpd.error_log().contains("AH01797"), "{}", httpd.error_log());
            assert!(trap, "{reported:#?}");
        }
    }
}

/// A `<Files>` holding `Require not ip` beside `Require all granted` (a negative line in the
/// implicit RequireAny): httpd refuses to start, naming the line. The hover's table is all unknown, it
/// says first that httpd refuses to start, names no deciding rule, and shows no Require as in
/// effect (the line left once the refused one is dropped is not what httpd runs).
#[test]
fn hover_under_a_require_httpd_refuses_says_httpd_does_not_start() {
    if !require_apache2() {
        return;
    }
    let body = format!("{GRANT_DOCROOT}<Files a.txt>\n  Require not ip 127.0.0.2\n  Require all granted\n</Files>\n");
    let cfg = HttpdConfig::new(body).file("htdocs/a.txt", "x\n");
    let md = hover_via_api(&cfg, "<Files a.txt>");
    let (ok, output) = apache_lsp_e2e::httpd::config_test(&cfg);
    assert!(!ok, "httpd accepted it:\n{output}");
    let line = output
        .split("Syntax error on line ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("httpd named no line:\n{output}"));
    assert!(md.contains(&format!("(httpd.conf:{line})")), "httpd refuses line {line}:\n{output}\n{md}");
    let outcome = parse_hover(&md);
    assert!(outcome.rows.iter().all(|r| r.cells.iter().all(Option::is_none)), "{md}");
    let first_said = md.lines().skip(1).find(|l| !l.trim().is_empty()).unwrap_or_default();
    assert!(first_said.starts_with("**httpd refuses to start**"), "{md}");
    assert!(md.contains("negative Require directive has no effect in <RequireAny> directive"), "{md}");
    assert!(!md.contains("decided by") && !md.contains("Effective Require"), "{md}");
}

const AUTH: &str = "  AuthType Basic\n  AuthName x\n  AuthUserFile @ROOT@/htpasswd\n";

/// The cell of `outcome`'s first loopback row (127.0.0.1) under `column`: the hover's status and
/// httpd's.
fn local_cell(outcome: &Outcome, column: &str) -> (Option<u16>, u16) {
    let row =
        outcome.rows.iter().find(|r| r.client == Some("127.0.0.1".parse().unwrap())).expect("a row for 127.0.0.1");
    let i = outcome.columns.iter().position(|c| c == column).unwrap_or_else(|| panic!("no column {column}"));
    (row.cells[i], row.httpd[i])
}

/// Round-5 bug 2: under a Require that needs a user, the hover said "httpd answers `GET /` with
/// 404: a directory with no DirectoryIndex file" (it asked mod_dir on behalf of the anonymous
/// request, refused with 401); httpd serves index.html to a valid user, whose subrequest carries
/// the same credentials. Each case is held cell by cell, the handler's statement included, with
/// the index file present and absent, in a `<Directory>` and in an .htaccess file.
#[test]
fn directory_index_is_asked_with_each_cells_credentials() {
    if !require_apache2() {
        return;
    }
    let footnote = "Where access is granted";
    for (name, require, column, want) in [
        ("valid-user", "  Require valid-user\n", "authenticated", 200),
        ("Require user carol", "  Require user carol\n", "as `carol`", 200),
        ("Require user carol, another user", "  Require user carol\n", "another valid user", 401),
        (
            "AuthzSendForbiddenOnFailure",
            "  AuthzSendForbiddenOnFailure On\n  Require user carol\n",
            "another valid user",
            403,
        ),
        (
            "Require not user",
            "  <RequireAll>\n    Require valid-user\n    Require not user bob\n  </RequireAll>\n",
            "another valid user",
            200,
        ),
    ] {
        let body = format!("<Directory @DOCROOT@>\n{AUTH}{require}</Directory>\n<Directory @DOCROOT@/empty>\n  Options None\n</Directory>\n");
        let cfg = HttpdConfig::new(body.clone()).dir("htdocs/empty");
        let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
        assert!(!md.contains(footnote), "{name}: index.html is served\n{md}");
        let outcome = compare_with_httpd(name, cfg, &md);
        assert_eq!(local_cell(&outcome, "anonymous"), (Some(401), 401), "{name}\n{md}");
        assert_eq!(local_cell(&outcome, column), (Some(want), want), "{name}\n{md}");
        // No index file: every granted cell meets the default handler's 404.
        let cfg = HttpdConfig::new(body).dir("htdocs/empty");
        let md = hover_via_api(&cfg, "<Directory @DOCROOT@/empty>");
        assert!(
            md.contains("httpd answers `GET /empty/` with 404: a directory with no DirectoryIndex file"),
            "{name}\n{md}"
        );
        let outcome = compare_with_httpd(&format!("{name}, no index"), cfg, &md);
        if want == 200 {
            assert_eq!(local_cell(&outcome, column), (Some(200), 404), "{name}\n{md}");
        }
    }
    // The index file in a section of its own: its subrequest is checked again, with the
    // request's credentials, and refuses the valid user it does not name (httpd: 401). Round 14
    // F1: the user it names has a column, which httpd grants (the subrequest is walked only for
    // credentials the directory lets through, so the columns come from every cell's walk; the
    // table had "authenticated" alone, 401).
    let body = format!("<Directory @DOCROOT@>\n{AUTH}  Require valid-user\n</Directory>\n<Files index.html>\n  Require user bob\n</Files>\n");
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = compare_with_httpd("index.html for bob only", cfg, &md);
    assert_eq!(local_cell(&outcome, "another valid user"), (Some(401), 401), "{md}");
    assert_eq!(local_cell(&outcome, "as `bob`"), (Some(200), 200), "{md}");

    // The same in an .htaccess file, through the binary.
    let body = "<Directory @DOCROOT@>\n  AllowOverride AuthConfig\n  Require all granted\n</Directory>\n";
    let htaccess = "AuthType Basic\nAuthName x\nAuthUserFile @ROOT@/htpasswd\nRequire valid-user\n";
    for (dir, status) in [("sub", 200), ("empty", 404)] {
        let cfg = HttpdConfig::new(body).file(format!("htdocs/{dir}/.htaccess"), htaccess);
        let md = hover_via_stdio(&cfg, &format!("htdocs/{dir}/.htaccess"), "Require valid-user");
        assert_eq!(md.contains(footnote), status == 404, "{dir}\n{md}");
        let outcome = compare_with_httpd(&format!(".htaccess in {dir}/"), cfg, &md);
        assert_eq!(outcome.url, format!("/{dir}/"));
        assert_eq!(local_cell(&outcome, "anonymous"), (Some(401), 401), "{md}");
        assert_eq!(local_cell(&outcome, "authenticated"), (Some(200), status), "{md}");
    }
}

/// Round 5: a hover inside `<Limit POST>` showed only GET's table. It now shows a method the
/// section applies to, and GET's table where it differs; both are held to httpd cell by cell.
#[test]
fn inside_a_limit_the_hover_shows_a_method_it_applies_to() {
    if !require_apache2() {
        return;
    }
    let body = format!("{GRANT_DOCROOT}<Location /sub/>\n  <LimitExcept GET HEAD>\n    Require ip 127.0.0.2\n  </LimitExcept>\n</Location>\n<Location /private/>\n{AUTH}  <Limit POST>\n    Require valid-user\n  </Limit>\n</Location>\n");
    let cfg = HttpdConfig::new(body.clone());
    let md = hover_via_api(&cfg, "Require ip 127.0.0.2");
    let outcome = compare_with_httpd("LimitExcept GET HEAD", cfg, &md);
    assert_eq!((outcome.method.as_str(), outcome.url.as_str()), ("POST", "/sub/"), "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)), "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)), "{md}");
    let get = outcome.get.as_ref().unwrap_or_else(|| panic!("GET's table differs:\n{md}"));
    assert_eq!(status_of(get, "127.0.0.1"), (Some(200), Some(200)), "{md}");

    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "Require valid-user");
    let outcome = compare_with_httpd("Limit POST", cfg, &md);
    assert_eq!(outcome.method, "POST", "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(401), Some(200)), "{md}");
    assert!(outcome.get.is_some(), "GET's table differs:\n{md}");
}

/// The statuses a hover's line "httpd's answer … depends on the `<If>` expressions" lists for
/// `cell` (`label, column`), when such a line names it (or every cell).
fn branch_statuses(md: &str, cell: &str) -> Option<Vec<u16>> {
    let line = md.lines().find(|l| {
        l.contains("depends on the `<If>` expressions")
            && (l.starts_with("For every cell,")
                || l.split(", httpd's answer").next().is_some_and(|w| w.contains(cell)))
    })?;
    let (_, each) = line.split_once("not known here: ")?;
    let mut out = Vec::new();
    for part in each.split("; ") {
        out.extend(part.split_whitespace().next().and_then(|w| w.parse::<u16>().ok()));
        if let Some((_, may)) = part.split_once("it may with ") {
            out.extend(
                may.split(|c: char| !c.is_ascii_digit())
                    .take_while(|w| !w.is_empty())
                    .filter_map(|w| w.parse::<u16>().ok()),
            );
        }
    }
    Some(out)
}

/// Round 7 bug 4 (hover): directives inside `<If>` that the answer reads were ignored and the
/// table and its handler line stated the walk without them. Each cell's `<If>` conditions are now
/// evaluated against its request (client, method, Host, URL): where they read only those, the
/// cell states httpd's answer; where one reads what a cell does not know (a header), every
/// combination of branches is walked, a line lists each combination's answer, and httpd's must be
/// among them. An `ErrorDocument 403 http://…` shows the refusal as 302 (bug 5). On the `<If>`
/// line itself the hover says the table depends on it.
#[test]
fn the_hover_walks_each_combination_of_if_branches() {
    if !require_apache2() {
        return;
    }
    let noidx = "<Directory @DOCROOT@/noidx>";
    let cases = [
        (
            "SetEnvIf feeding Require env",
            "  <If \"-R '127.0.0.0/8'\">\n    SetEnvIf Remote_Addr . ok\n  </If>\n  Require env ok\n",
            None,
        ),
        (
            "RewriteRule [F]",
            "  Require all granted\n  RewriteEngine On\n  <If \"-R '127.0.0.1'\">\n    RewriteRule ^ - [F]\n  </If>\n",
            Some("rewrite"),
        ),
        (
            "Options +Indexes",
            "  Require all granted\n  Options None\n  <If \"-R '127.0.0.1'\">\n    Options +Indexes\n  </If>\n",
            Some("autoindex"),
        ),
        (
            "Redirect 410",
            "  Require all granted\n  <If \"%{REQUEST_METHOD} == 'GET'\">\n    Redirect 410\n  </If>\n",
            None,
        ),
        (
            "RewriteRule [F] on a header",
            "  Require all granted\n  RewriteEngine On\n  <If \"%{HTTP:X-Test} == 'y'\">\n    RewriteRule ^ - [F]\n  </If>\n",
            Some("rewrite"),
        ),
    ];
    for (name, inner, module) in cases {
        let config = || {
            let cfg = HttpdConfig::new(format!("{noidx}\n{inner}</Directory>\n")).file("htdocs/noidx/f.txt", "f\n");
            match module {
                Some(m) => cfg.with_module(m),
                None => cfg,
            }
        };
        let cfg = config();
        let md = hover_via_api(&cfg, noidx);
        let outcome = parse_hover(&md);
        assert_eq!(outcome.url, "/noidx/", "{name}\n{md}");
        let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut compared = 0;
        for row in outcome.rows.iter().filter(|r| r.client.is_some_and(|c| c.is_loopback())) {
            let real = httpd.send(&Request::get("/noidx/").source(row.client.unwrap())).unwrap();
            let cell = format!("{}, anonymous", row.label);
            let on_header = name.ends_with("on a header");
            if on_header {
                let listed = branch_statuses(&md, &cell)
                    .unwrap_or_else(|| panic!("{name}: no line says the <If> changes {cell}\n{md}"));
                assert!(listed.contains(&real), "{name}: {cell}: httpd {real}, the hover lists {listed:?}\n{md}");
            } else {
                assert!(branch_statuses(&md, &cell).is_none(), "{name}: {cell}: every condition is known\n{md}");
                // httpd's access answer, or a grant the handler answers otherwise.
                let s = row.cells[0].unwrap_or_else(|| panic!("{name}: {cell}: unknown, httpd {real}\n{md}"));
                assert!(s == access_status(real) || s == 200, "{name}: {cell}: {s}, httpd {real}\n{md}");
            }
            compared += 1;
        }
        assert!(compared >= 1, "{name}: nothing compared\n{md}");
        // On the <If> line: the table depends on it where a condition is not known.
        let on_if = hover_via_api(&config(), "<If ");
        assert!(on_if.starts_with("Inside `<If>`"), "{name}\n{on_if}");
        if name.ends_with("on a header") {
            assert!(on_if.contains("depends on the `<If>` expressions"), "{name}\n{on_if}");
        }
    }
    // A refusal under ErrorDocument 403 http://…: 302, with the refusal's log entry.
    let body = "<Directory @DOCROOT@>\n  <RequireAll>\n    Require all granted\n    Require not ip 127.0.0.2\n  </RequireAll>\n  ErrorDocument 403 http://example.invalid/no\n</Directory>\n";
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = parse_hover(&md);
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(httpd.send(&Request::get("/").source("127.0.0.2".parse().unwrap())).unwrap(), 302);
    assert_eq!(status_of(&outcome, "127.0.0.2").0, Some(302), "{md}");
    assert!(
        md.contains("- 302 for 127.0.0.2") && md.contains("AH01630") && md.contains("by ErrorDocument at line"),
        "{md}"
    );
}

/// Round 8 bug 2 (hover): an `<If>` nested in an `<If>` is walked inside the branch httpd takes,
/// after it (`ap_if_walk_sub`). Each loopback cell of the table states httpd's status for its
/// client, the directory's index served where access passes.
#[test]
fn the_hover_walks_if_sections_nested_in_the_branch_taken() {
    if !require_apache2() {
        return;
    }
    let head = "<Directory @DOCROOT@/idx>";
    let body = format!(
        "{head}\n  Require all granted\n  <If \"-R '127.0.0.0/8'\">\n    <If \"-R '127.0.0.1'\">\n      Require all denied\n    </If>\n    <Else>\n      Require ip 127.0.0.2\n      <If \"%{{REQUEST_METHOD}} == 'GET'\">\n        Require ip 127.0.0.3\n      </If>\n    </Else>\n  </If>\n</Directory>\n"
    );
    let cfg = HttpdConfig::new(body).file("htdocs/idx/index.html", "i\n");
    let md = hover_via_api(&cfg, head);
    let outcome = parse_hover(&md);
    assert_eq!(outcome.url, "/idx/", "{md}");
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut compared = Vec::new();
    for row in outcome.rows.iter().filter(|r| r.client.is_some_and(|c| c.is_loopback())) {
        let client = row.client.unwrap();
        let real = httpd.send(&Request::get("/idx/").source(client)).unwrap();
        assert_eq!(row.cells[0], Some(real), "{}: httpd {real}\n{md}", row.label);
        compared.push((client.to_string(), real));
    }
    // 127.0.0.1 meets the inner Require all denied; another loopback address the innermost
    // `Require ip 127.0.0.3`, merged last.
    assert!(compared.iter().any(|(c, s)| c == "127.0.0.1" && *s == 403), "{compared:?}\n{md}");
    assert!(compared.len() >= 2, "{compared:?}\n{md}");
}

/// Round 8 bug 3 (hover): the `<If>` branches of an .htaccess file on the way are walked like
/// the configuration's: a refusal there under `ErrorDocument 403 http://…` is httpd's 302, the
/// other clients' cells httpd's 200, none unknown.
#[test]
fn the_hover_walks_the_if_branches_of_an_htaccess_file() {
    if !require_apache2() {
        return;
    }
    let head = "<Directory @DOCROOT@/sub>";
    let body = format!("{head}\n  AllowOverride All\n  Require all granted\n</Directory>\n");
    let htaccess = "<If \"-R '127.0.0.1'\">\n  Require all denied\n  ErrorDocument 403 http://example.invalid/x\n</If>\n<Else>\n  AcceptPathInfo Off\n</Else>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/sub/.htaccess", htaccess);
    let md = hover_via_api(&cfg, head);
    assert!(branch_statuses(&md, "").is_none(), "every condition is known\n{md}");
    let outcome = compare_with_httpd(".htaccess <If>", cfg, &md);
    assert_eq!(outcome.url, "/sub/", "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1").0, Some(302), "{md}");
}

/// mod_alias in the hover's table: a `<Location>`'s one-argument `Redirect` answers at
/// translate_name, before its own `Require all denied` (every cell is the redirect's status; a
/// 302, since the harness counts a 301 as mod_dir's, after access);
/// a `<Directory>`'s answers after access control (the refused clients keep their 403, the
/// others get the redirect's status as the handler's answer); `DirectorySlash Off` on a directory
/// URL without its slash: the default handler's 404 where access passes.
#[test]
fn mod_alias_redirects_and_directory_slash_in_the_table() {
    if !require_apache2() {
        return;
    }
    let body = format!(
        "{GRANT_DOCROOT}<Location /sub>\n  Require all denied\n  Redirect 302 http://example.invalid/\n</Location>\n"
    );
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Location /sub>");
    let outcome = compare_with_httpd("location redirect before access", cfg, &md);
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(302), Some(302)));

    let body = format!(
        "{GRANT_DOCROOT}<Directory @DOCROOT@/sub>\n  Require ip 127.0.0.2\n  Redirect 302 http://example.invalid/\n</Directory>\n"
    );
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@/sub>");
    // (The harness's comparison counts a status after access as a 200 for a 301 only: asked here.)
    let outcome = parse_hover(&md);
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)));
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)));
    assert_eq!(outcome.handled.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [302], "{md}");
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    for (client, real) in [("127.0.0.1", 403), ("127.0.0.2", 302)] {
        let req = Request::new(&outcome.method, &outcome.url).source(client.parse().unwrap());
        assert_eq!(httpd.send(&req).unwrap(), real, "{client}\n{md}");
    }

    let body = format!(
        "{GRANT_DOCROOT}<Location /sub>\n  Require ip 127.0.0.2\n</Location>\n<Directory @DOCROOT@/sub>\n  DirectorySlash Off\n</Directory>\n"
    );
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Location /sub>");
    let outcome = compare_with_httpd("directory slash off", cfg, &md);
    assert_eq!(outcome.url, "/sub");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)));
    assert!(outcome.handled.iter().any(|(s, _)| *s == 404), "{md}");
}

/// Round 13 §J2: the hover's example file for a `<FilesMatch>` is missing from the disk while
/// a wildcard `<Directory …/*>` would reach it if it existed: httpd's walk stops at the missing
/// file, so the wildcard's Order does not apply (anonymous 401, a user 404, not 403).
#[test]
fn a_wildcard_directory_does_not_reach_the_missing_example_file() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@/*>\n  Order allow,deny\n</Directory>\n<FilesMatch \"\\.php$\">\n  AuthType Basic\n  AuthName r\n  AuthUserFile @ROOT@/htpasswd\n  Require valid-user\n</FilesMatch>\n";
    let cfg = HttpdConfig::new(body).with_module("access_compat");
    let md = hover_via_api(&cfg, "<FilesMatch");
    assert!(md.starts_with("⚠ **Not on this disk**"), "{md}");
    assert!(
        md.lines().any(|l| l.starts_with("**Effective access**") && l.contains("(a URL this section's pattern")),
        "{md}"
    );
    let outcome = compare_with_httpd("wildcard Directory, missing example file", cfg, &md);
    assert_eq!(outcome.rows[0].cells[0], Some(401), "{md}");
}

/// The same shape with a file of the pattern on disk: the hover asks for that file (not a
/// made-up name, which the walk would stop short of), the wildcard `<Directory>` applies to
/// it, and httpd refuses everyone (403), as the table says.
#[test]
fn a_file_on_disk_is_the_example_before_a_made_up_name() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@/*>\n  Order allow,deny\n</Directory>\n<FilesMatch \"\\.php$\">\n  AuthType Basic\n  AuthName r\n  AuthUserFile @ROOT@/htpasswd\n  Require valid-user\n</FilesMatch>\n";
    let cfg = HttpdConfig::new(body)
        .with_module("access_compat")
        .file("htdocs/zeta.php", "<?php\n")
        .file("htdocs/index.php", "<?php\n")
        .file("htdocs/notes.txt", "x\n");
    let md = hover_via_api(&cfg, "<FilesMatch");
    assert!(!md.contains("Not on this disk"), "{md}");
    let outcome = compare_with_httpd("wildcard Directory, example file on disk", cfg, &md);
    assert_eq!(outcome.url, "/index.php", "{md}");
    assert_eq!(outcome.rows[0].cells[0], Some(403), "{md}");
}

/// A `<Directory>` for a directory missing from the disk while its parent is there: httpd's
/// walk stops before it, so it applies to no request (the parent's sections answer); the hover
/// says so first, and explain answers what httpd answers.
#[test]
fn a_directory_missing_from_the_disk_is_said_to_apply_to_nothing() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@/priv>\n  Require all granted\n</Directory>\n\
<Directory @DOCROOT@/priv/nosub>\n  Require all denied\n  <Files x.txt>\n    Require all denied\n  </Files>\n</Directory>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/priv/secret.txt", "x\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@/priv/nosub>");
    assert!(md.starts_with("⚠ **Not on this disk**"), "{md}");
    // Round 13 (minor): a `<Files>` inside it is said to apply to nothing too.
    let files = hover_via_api(&cfg, "<Files x.txt>");
    assert!(files.starts_with("⚠ **Not on this disk**"), "{files}");
    let present = hover_via_api(&cfg, "<Directory @DOCROOT@/priv>");
    assert!(!present.contains("Not on this disk"), "{present}");
    // Black-box round 17 T17 F5: the note and the table agree (the note said the table was a
    // tree's where the directory exists, above this machine's table): it is httpd's answer here.
    assert!(md.contains("The table below is httpd's answer on this machine"), "{md}");
    assert!(!md.contains("for a tree where the directory exists"), "{md}");
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut outcome = parse_hover(&md);
    assert!(compare_table("missing directory", &httpd, &mut outcome, &md) >= 2, "{md}");
    let conf = httpd.config().main_config_path();
    for url in ["/priv/nosub/", "/priv/nosub/x.txt"] {
        let real = httpd.send(&Request::get(url)).unwrap();
        assert_eq!(real, 404, "{url}: the denial of the missing directory does not apply");
        let out = std::process::Command::new(apache_lsp_e2e::lsp::server_binary())
            .args(["explain", conf.to_str().unwrap(), url, "--format", "json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], real, "{url}: {v:#}");
    }
}

/// mod_allowmethods answers 405 before every other access check: the hover's cells say so
/// where httpd refuses the method (the harness's other tables read a 405 as the default
/// handler's, after access passed, so this one is compared by hand).
#[test]
fn allow_methods_refusal_is_in_the_hover_table() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  Require all granted\n  AllowMethods POST\n</Directory>\n";
    let cfg = HttpdConfig::new(body).with_module("allowmethods").file("htdocs/index.html", "x\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = parse_hover(&md);
    assert_eq!(outcome.method, "GET", "{md}");
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    let real = httpd.send(&Request::get(&outcome.url)).unwrap();
    assert_eq!(real, 405, "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(real), Some(real)), "{md}");
}

/// mod_dir's DirectoryIndex subrequest for a file of the requested directory keeps that
/// directory's `<Directory>` sections (httpd reuses the request's directory walk): a regex section
/// matching `…/a/` still applies to `index.html`, a wildcard matching the file does not.
#[test]
fn the_table_of_a_directory_url_keeps_the_directorys_sections_for_its_index() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  Order allow,deny\n  Allow from all\n  Deny from 127.0.0.2\n</Directory>\n\
<Directory ~ \"@DOCROOT@/a/$\">\n  Order allow,deny\n  Allow from all\n</Directory>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/a/index.html", "x\n");
    let md = hover_via_api(&cfg, "<Directory ~");
    let outcome = compare_with_httpd("regex directory of the index", cfg, &md);
    assert_eq!(outcome.url, "/a/", "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)), "{md}");

    let auth = "  AuthType Basic\n  AuthName x\n  AuthUserFile @ROOT@/htpasswd\n";
    let body = format!("<Directory @DOCROOT@>\n  Require all granted\n</Directory>\n<Directory @DOCROOT@/*>\n{auth}  Require user alice\n</Directory>\n");
    let cfg = HttpdConfig::new(body).file("htdocs/index.html", "x\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = compare_with_httpd("wildcard directory of the index", cfg, &md);
    assert_eq!(outcome.url, "/", "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(200), Some(200)), "{md}");
}

/// The hover looks no host name up: a cell a host-name rule decides is unknown, with the rule
/// named under the table, never a status httpd may contradict (httpd finds 127.0.0.1's name,
/// `localhost`, by its double-reverse lookup).
#[test]
fn cells_host_name_rules_decide_are_unknown() {
    if !require_apache2() {
        return;
    }
    let auth = "  AuthType Basic\n  AuthName x\n  AuthUserFile @ROOT@/htpasswd\n";
    let cases = [
        "  Order deny,allow\n  Deny from localhost\n".to_string(),
        "  Order deny,allow\n  Deny from all\n  Allow from .example.com\n".to_string(),
        format!("{auth}  Require host localhost\n"),
    ];
    for rules in cases {
        let cfg = HttpdConfig::new(format!("<Directory @DOCROOT@>\n{rules}</Directory>\n"));
        let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
        let mut outcome = parse_hover(&md);
        let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{rules}: httpd did not start: {e}"));
        // (Every cell httpd is asked for and the hover states agrees; the unknown ones are skipped.)
        compare_table(&rules, &httpd, &mut outcome, &md);
        let local = outcome.rows.iter().find(|r| r.client == Some("127.0.0.1".parse().unwrap())).expect("local row");
        assert_eq!(local.cells[0], None, "{rules}: httpd answered {:?}\n{md}", local.httpd);
        assert!(md.contains("host name"), "{rules}: the rule is named: {md}");
    }
}

/// A virtual host on IPv4 addresses only is never reached over IPv6: httpd picks the host by the
/// connection's address first, and a `::1` client lands on the main server. The table has no
/// row for such a client (it would show this host's answer), and says why.
#[test]
fn an_ipv4_virtual_hosts_table_has_no_ipv6_row() {
    if !require_apache2() || !apache_lsp_e2e::httpd::ipv6_loopback_usable() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  Require all denied\n</Directory>\n\
<VirtualHost 127.0.0.1:@PORT@>\n  <Directory @DOCROOT@/a>\n    Require ip ::1 127.0.0.2\n  </Directory>\n</VirtualHost>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/a/index.html", "x\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@/a>");
    let mut outcome = parse_hover(&md);
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    assert!(compare_table("IPv4 virtual host", &httpd, &mut outcome, &md) >= 2, "{md}");
    assert!(outcome.rows.iter().all(|r| r.client.is_none_or(|c| c.is_ipv4())), "{md}");
    assert!(md.contains("No row for ::1"), "{md}");
    // What httpd answers the ::1 client: the main server's refusal, not this host's grant.
    let v6 = httpd.send(&Request::get(&outcome.url).source("::1".parse().unwrap())).unwrap();
    assert_eq!(v6, 403);
}

/// A `<Files>` inside a wildcard `<Directory>` is hovered at its name under a directory on disk
/// the wildcard matches: under the wildcard filled with `x`, a directory that does not exist, the
/// name would be path info and the section would not apply (httpd answers such a URL otherwise).
#[test]
fn a_files_section_in_a_wildcard_directory_is_hovered_where_it_applies() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  Require all granted\n</Directory>\n\
<Directory @DOCROOT@/*>\n  <Files s.php>\n    Require ip 127.0.0.2\n  </Files>\n</Directory>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/a/s.php", "x\n");
    let md = hover_via_api(&cfg, "<Files s.php>");
    let outcome = compare_with_httpd("Files in a wildcard directory", cfg, &md);
    assert_eq!(outcome.url, "/a/s.php", "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(403), Some(403)), "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.2"), (Some(200), Some(200)), "{md}");
}

/// Round 13 H1: a main-server section's table when the virtual hosts listen on one address
/// family only. A client of the other family connects over that family's loopback, where no
/// virtual host listens, so the main server answers it (httpd: 200 from the Directory's `Allow`),
/// while a client of the hosts' family reaches the host, whose `<Location />` refuses (403). The
/// table showed the host's 403 for both families.
#[test]
fn a_main_server_sections_table_sends_the_other_familys_clients_to_the_main_server() {
    if !require_apache2() || !apache_lsp_e2e::httpd::ipv6_loopback_usable() {
        eprintln!("skipped: needs apache2 and the ::1 loopback");
        return;
    }
    for (vhost, main_client, host_client) in
        [("127.0.0.1:@PORT@", "::1", "127.0.0.1"), ("[::1]:@PORT@", "127.0.0.1", "::1")]
    {
        let body = format!(
            "<Directory @DOCROOT@>\n  Order allow,deny\n  Allow from all\n  Allow from ::1\n</Directory>\n\
<VirtualHost {vhost}>\n  ServerName v1.test\n  DocumentRoot @DOCROOT@\n  <Location />\n    Require all denied\n  </Location>\n</VirtualHost>\n"
        );
        let cfg = HttpdConfig::new(body).file("htdocs/index.html", "x\n");
        let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
        let outcome = compare_with_httpd(vhost, cfg, &md);
        assert_eq!(status_of(&outcome, main_client), (Some(200), Some(200)), "{vhost}: {md}");
        assert_eq!(status_of(&outcome, host_client), (Some(403), Some(403)), "{vhost}: {md}");
    }
}

/// Round 13 H4: the index file's own `Require group` (a `<Files>` naming it) gives the table a
/// column for the group's member: GET / is answered by mod_dir's subrequest for index.html, which
/// httpd grants alice (200) and refuses anonymous and other users (401). The table had only
/// "authenticated", a user outside the group.
#[test]
fn the_index_files_require_group_gets_a_column_for_its_member() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  Require all granted\n</Directory>\n<Files \"index.html\">\n  AuthType Basic\n  AuthName r\n  AuthUserFile @ROOT@/htpasswd\n  AuthGroupFile @ROOT@/htgroups\n  Require group admins\n</Files>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/index.html", "x\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = compare_with_httpd("index file's Require group", cfg, &md);
    assert_eq!(outcome.url, "/", "{md}");
    assert!(outcome.columns.contains(&"as `alice`".to_string()), "{md}");
    assert_eq!(outcome.rows[0].cells, [Some(401), Some(200), Some(401)], "{md}");
}

/// Round 13 H5: `Require group` in an .htaccess file whose own AuthGroupFile names the group: the
/// table reads that file too (the configuration's files name none), so the member has a column,
/// which httpd grants (200; the AuthType and AuthUserFile inside `<Limit PUT>` apply to every
/// method, `<Limit>` restricting access directives only).
#[test]
fn an_htaccess_files_own_group_file_gives_its_member_a_column() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  AllowOverride All\n</Directory>\n";
    let htaccess = "AuthName \"r\"\nAuthGroupFile @ROOT@/htgroups\nRequire group admins\n<Limit PUT>\n  AuthUserFile @ROOT@/htpasswd\n  AuthType Basic\n</Limit>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/.htaccess", htaccess).file("htdocs/index.html", "x\n");
    let md = hover_via_stdio(&cfg, "htdocs/.htaccess", "Require group");
    let outcome = compare_with_httpd("an .htaccess file's Require group", cfg, &md);
    assert!(outcome.columns.contains(&"as `alice`".to_string()), "{md}");
    assert_eq!(outcome.rows[0].cells, [Some(401), Some(200), Some(401)], "{md}");
}

/// Round 13 H2 (the hover's part): an `AuthUserFile` line skipped under `Nonfatal=Override` still
/// replaces the inherited one (mod_authn_file merges nothing), so a valid user's credentials get
/// 500 (AH01619) beneath; the table said 200.
#[test]
fn a_skipped_auth_user_file_line_is_a_500_for_credentials_in_the_table() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  AllowOverride Limit Nonfatal=Override\n  AuthType Basic\n  AuthName r\n  AuthUserFile @ROOT@/htpasswd\n  Require valid-user\n</Directory>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/sub/.htaccess", "AuthUserFile @ROOT@/htpasswd\n");
    let md = hover_via_stdio(&cfg, "htdocs/sub/.htaccess", "AuthUserFile");
    let outcome = compare_with_httpd("a skipped AuthUserFile", cfg, &md);
    assert_eq!(outcome.url, "/sub/", "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(401), Some(500)), "{md}");
}

/// Round 14 F2: `Require user bob` inside the `<Else>` that 127.0.0.1 takes: httpd grants bob
/// (200) and refuses the others (401). The table's columns came from the request walked with the
/// branches untold, where neither branch applies: no column for bob, 401 for every user.
#[test]
fn a_require_user_in_the_else_a_client_takes_gets_a_column() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@/sub>\n  <If \"-R '10.0.0.0/8'\">\n  </If>\n  <Else>\n    AuthType Basic\n    AuthName r\n    AuthUserFile @ROOT@/htpasswd\n    Require user bob\n  </Else>\n</Directory>\n";
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@/sub>");
    let outcome = compare_with_httpd("Require user in an <Else>", cfg, &md);
    assert_eq!(outcome.url, "/sub/", "{md}");
    assert!(outcome.columns.contains(&"as `bob`".to_string()), "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(401), Some(401)), "{md}");
    assert_eq!(outcome.rows[0].cells[1], Some(200), "{md}");
}

/// Round 14 F4: the DirectoryIndex name `index.php` is missing from the directory, which is on
/// this disk; httpd's walk of mod_dir's subrequest stops at the missing file, so the wildcard
/// `<Directory …/*>` (credentials required) does not apply to it: anonymous clients are granted,
/// and with no index file and no mod_autoindex httpd answers 404. The table said 401, walking the
/// subrequest as if the file were there.
#[test]
fn a_wildcard_directory_does_not_reach_a_missing_directory_index_name() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  DirectoryIndex index.php\n  Require all granted\n</Directory>\n<Directory @DOCROOT@/*>\n  AuthType Basic\n  AuthName r\n  AuthUserFile @ROOT@/htpasswd\n  Require valid-user\n</Directory>\n";
    let cfg = HttpdConfig::new(body).file("htdocs/index.html", "x\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
    let outcome = compare_with_httpd("wildcard Directory, missing index name", cfg, &md);
    assert_eq!(outcome.url, "/", "{md}");
    assert_eq!(status_of(&outcome, "127.0.0.1"), (Some(200), Some(200)), "{md}");
    assert!(outcome.handled.iter().any(|(s, _)| *s == 404), "{md}");
}

/// Round 15 F6: `Require user alice bob carol`: httpd grants each of the three (200) and refuses
/// a valid user none names (dave, 401). The table had columns for the first two names only, so
/// carol read as "another valid user", 401.
#[test]
fn each_user_a_require_user_names_gets_a_column() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@/sub>\n  AuthType Basic\n  AuthName r\n  AuthUserFile @ROOT@/htpasswd\n  Require user alice bob\n  Require user carol\n</Directory>\n";
    let cfg = HttpdConfig::new(body);
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@/sub>");
    let outcome = compare_with_httpd("three named users", cfg, &md);
    let columns = ["anonymous", "as `alice`", "as `bob`", "as `carol`", "another valid user"];
    assert_eq!(outcome.columns, columns, "{md}");
    assert_eq!(outcome.rows[0].cells, [Some(401), Some(200), Some(200), Some(200), Some(401)], "{md}");
    assert_eq!(outcome.rows[0].httpd, [401, 200, 200, 200, 401], "{md}");
}

/// A per-directory RewriteRule to a local URL (a Nextcloud-like `RewriteRule ^data/(.*)$ /nc/x.txt`
/// in the parent's .htaccess): httpd redirects internally after the access checks of the section's
/// URL, and the target's own `Require all denied` refuses it. Under the table (access control's
/// answer: granted), the hover says httpd answers 403, naming the rule (round-16 G3).
#[test]
fn a_per_directory_rewrite_is_answered_by_its_target() {
    if !require_apache2() {
        return;
    }
    let body = "<Directory @DOCROOT@>\n  AllowOverride All\n</Directory>\n\
<Directory @DOCROOT@/nc>\n  Require all denied\n</Directory>\n\
<Directory @DOCROOT@/nc/app>\n  Require all granted\n</Directory>\n\
<Directory @DOCROOT@/nc/app/data>\n  Require all granted\n</Directory>\n";
    let cfg = HttpdConfig::new(body)
        .with_module("rewrite")
        .file("htdocs/nc/x.txt", "x\n")
        .file("htdocs/nc/app/.htaccess", "RewriteEngine On\nRewriteRule ^data/(.*)$ /nc/x.txt [L]\n")
        .file("htdocs/nc/app/data/index.html", "x\n");
    let md = hover_via_api(&cfg, "<Directory @DOCROOT@/nc/app/data>");
    // The table is access control's answer (granted); the note under it says what httpd answers.
    let note = "httpd answers `GET /nc/app/data/` with 403: mod_rewrite redirects internally to /nc/x.txt";
    assert!(md.contains(note), "{md}");
    let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(httpd.send(&Request::get("/nc/app/data/")), Ok(403));
}

/// Round 16 G2: httpd sends a connection to the virtual host naming its local address before any
/// `*` one (`<VirtualHost [::1]>`, `<VirtualHost 127.0.0.1>`), and picks by name only among the
/// hosts of that address. A loopback client connects over the loopback of its family, so every
/// `::1` (or 127.0.0.1) row of a main-server section's table, and of a section inside the `*`
/// host, is answered by the host on that address: httpd refuses them by the main server's `Deny`,
/// which the `*` host's `<Location>` would have reopened. The tables answered them in the `*` host
/// (200). Each row now says which server answers it.
#[test]
fn a_loopback_row_is_answered_by_the_virtual_host_on_its_address() {
    if !require_apache2() || !apache_lsp_e2e::httpd::ipv6_loopback_usable() {
        eprintln!("skipped: needs apache2 and the ::1 loopback");
        return;
    }
    for (addr, denied, other) in [("[::1]", "::1", "127.0.0.1"), ("127.0.0.1", "127.0.0.1", "::1")] {
        let body = format!(
            "<VirtualHost *>\n  ServerName v1.test\n  DocumentRoot @DOCROOT@\n  <Location /d1>\n    Order allow,deny\n    Allow from all\n  </Location>\n</VirtualHost>\n\
<VirtualHost {addr}>\n  ServerName v2.test\n  DocumentRoot @DOCROOT@\n</VirtualHost>\n\
<Directory @DOCROOT@/d1>\n  Order deny,allow\n  Deny from {denied}\n</Directory>\n"
        );
        let cfg = || HttpdConfig::new(body.clone()).file("htdocs/d1/x.txt", "x\n");
        for header in ["<Directory @DOCROOT@/d1>", "<Location /d1>"] {
            let name = format!("{addr} {header}");
            let cfg = cfg();
            let md = hover_via_api(&cfg, header);
            let outcome = compare_with_httpd(&name, cfg, &md);
            assert_eq!(status_of(&outcome, denied).0, Some(403), "{name}: {md}");
            let row = outcome.rows.iter().find(|r| r.client == Some(denied.parse().unwrap())).unwrap();
            assert_eq!(row.server.as_deref(), Some(format!("{addr} (v2.test)").as_str()), "{name}: {md}");
            if let Some(row) = outcome.rows.iter().find(|r| r.client == Some(other.parse().unwrap())) {
                assert_eq!(row.server.as_deref(), Some("* (v1.test)"), "{name}: {md}");
                assert_eq!(row.cells[0], Some(200), "{name}: {md}");
            }
        }
        // Naming the `*` host in the Host header changes nothing: httpd picks by name only among
        // the hosts of the connection's address.
        let httpd = Httpd::start(cfg()).unwrap_or_else(|e| panic!("{e}"));
        let req = Request::get("/d1/x.txt").source(denied.parse().unwrap()).host("v1.test");
        assert_eq!(httpd.send(&req).unwrap(), 403, "{addr}");
    }
}

/// The password file in force, as httpd reads it per request (black-box round 17 B17 H1, H3): a
/// user a Require line names but the file does not list is refused (401, AH01618), and a missing
/// file makes every request with credentials a 500 (AH01620). The hover's columns say the same.
#[test]
fn a_password_file_missing_or_not_listing_a_user_as_httpd_reads_it() {
    if !require_apache2() {
        return;
    }
    for (file, carol, zed) in [("htpasswd", 200, 401), ("no-such-file", 500, 500)] {
        let body = format!(
            "<Directory @DOCROOT@>\n  AuthType Basic\n  AuthName x\n  AuthUserFile @ROOT@/{file}\n  Require user carol zed\n</Directory>\n"
        );
        let cfg = HttpdConfig::new(body).file("htdocs/index.html", "x\n");
        let md = hover_via_api(&cfg, "<Directory @DOCROOT@>");
        let httpd = Httpd::start(cfg).unwrap_or_else(|e| panic!("httpd did not start: {e}"));
        let get = |u: &str, p: &str| httpd.send(&Request::get("/").user(u, p)).unwrap();
        assert_eq!((get("carol", "cpw"), get("zed", "zpw")), (carol, zed), "{file}");
        assert!(md.contains("| client | anonymous | as `carol` | as `zed` |"), "{md}");
        assert!(md.contains(&format!("| local (127.0.0.1) | 401 | {carol} | {zed} |")), "{file}: {md}");
    }
}
