//! Differential testing of the access-policy engine against the real httpd.
//!
//! A [`Case`] is a configuration body plus a request matrix (sources × credentials × methods ×
//! URLs). [`run_cases`] starts **one** httpd for one or more cases (their bodies concatenated, so
//! independent cases must live in separate parts of the document tree), sends every request,
//! reads the error-log text each request produced, and compares with the engine's prediction:
//! the configuration file httpd really reads is loaded with [`config::load`] and every request is
//! evaluated with [`access::effective`].
//!
//! What is compared, per request:
//! * the status, with httpd's answer mapped to the engine's terms by [`access_status`] (the
//!   engine predicts access control only: a 404 or 405 means "passed access control" = 200);
//! * an engine status of `None` (unknown) is **never** agreement: it is a mismatch unless the
//!   case declared, with [`Case::unknown_when`], that exactly this request is unknowable (and
//!   then a known answer is a mismatch too);
//! * the error log: every error/warning entry the engine predicts must be in httpd's log for
//!   that request (the AH code always; the whole message for the codes in [`MESSAGE_CODES`],
//!   which name the file-system path or the URI), and every AH code httpd logs for the request
//!   must have been predicted;
//! * optionally ([`Case::expect`]) the status the fact sheet documents, so that a named test also
//!   pins the behaviour itself and not only the agreement.
//!
//! Every mismatch is rendered with the configuration, the request, httpd's status and log, the
//! engine's `Outcome::render()` and the sections the engine applied.
//!
//! The second half of the module is a seeded generator of random configurations
//! ([`generate_cases`]) over a small grammar of sections and access directives, each case under
//! its own `/cN/` subtree of the document root so that many run in one httpd.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

use apache_lsp::ide::access::{self, Effective, RequestSpec};
use apache_lsp::ide::config;
use apache_lsp::ide::loglevel;
use apache_lsp::ide::policy::{HostKnowledge, LogLevel, Request as EngineRequest};
use apache_lsp::ide::setenvif::EnvInputs;
use std::sync::{Mutex, OnceLock};

use crate::httpd::{config_test, credentials, sources, Httpd, HttpdConfig, Request, GROUPS, USERS};

// ---------------------------------------------------------------------------------------------
// Requests

/// One request of the matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub method: String,
    pub url: String,
    pub source: IpAddr,
    /// Basic credentials sent (user, password).
    pub credentials: Option<(String, String)>,
    /// The Host header (`localhost` when None, as the harness sends).
    pub host: Option<String>,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
}

impl Probe {
    pub fn new(method: &str, url: &str, source: IpAddr, credentials: Option<(String, String)>) -> Probe {
        Probe { method: method.to_owned(), url: url.to_owned(), source, credentials, host: None, headers: vec![] }
    }

    /// The header `name` (case-insensitive), if the probe sends it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The user whose correct password was sent.
    pub fn user(&self) -> Option<&str> {
        let (u, p) = self.credentials.as_ref()?;
        USERS.iter().any(|(name, pw)| name == u && pw == p).then_some(u.as_str())
    }

    /// Credentials were sent but are wrong.
    pub fn bad_credentials(&self) -> bool {
        self.credentials.is_some() && self.user().is_none()
    }

    /// Whether the request comes from this source address.
    pub fn from(&self, source: &str) -> bool {
        self.source == source.parse::<IpAddr>().expect("a valid address")
    }

    pub fn describe(&self) -> String {
        let who = match &self.credentials {
            None => "no credentials".to_owned(),
            Some((u, p)) => format!("as {u}:{p}"),
        };
        let extra: String = self.headers.iter().map(|(n, v)| format!(", {n}: {v}")).collect();
        format!(
            "{} {} from {} {who} (Host: {}{extra})",
            self.method,
            self.url,
            self.source,
            self.host.as_deref().unwrap_or("localhost")
        )
    }

    pub fn to_request(&self) -> Request {
        let mut r = Request::new(&self.method, &self.url).source(self.source).credentials(self.credentials.clone());
        if let Some(h) = &self.host {
            r = r.host(h);
        }
        for (n, v) in &self.headers {
            r = r.header(n, v);
        }
        r
    }
}

/// The full matrix: every source of [`sources`] × every credential case of [`credentials`] ×
/// `methods` × `urls`.
pub fn matrix(urls: &[&str], methods: &[&str]) -> Vec<Probe> {
    let mut out = Vec::new();
    for url in urls {
        for method in methods {
            for source in sources() {
                for creds in credentials() {
                    out.push(Probe::new(method, url, source, creds));
                }
            }
        }
    }
    out
}

/// Every source of [`sources`] × `methods` × `urls` × header set, without credentials: for rules
/// that do not depend on who authenticates (SetEnvIf on headers, host names).
pub fn anon_matrix(urls: &[&str], methods: &[&str], header_sets: &[&[(&str, &str)]]) -> Vec<Probe> {
    let mut out = Vec::new();
    for url in urls {
        for method in methods {
            for source in sources() {
                for headers in header_sets {
                    let mut p = Probe::new(method, url, source, None);
                    p.headers = headers.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect();
                    out.push(p);
                }
            }
        }
    }
    out
}

/// httpd's status in the engine's terms. The engine predicts **access control** only
/// (`status == 200` means "passes access control"); what the handler does afterwards is not its
/// business. So a 404 (the resource does not exist, e.g. `/server-status` without a handler), a
/// 405 (the default handler refuses PUT/DELETE on a static file) and a 301 (mod_dir's fixup adds
/// the trailing slash of a directory URL, after access control) count as 200. Every other status
/// (401, 403, 500, and 200 itself) is compared as is.
pub fn access_status(httpd_status: u16) -> u16 {
    match httpd_status {
        301 | 404 | 405 => 200,
        s => s,
    }
}

/// Log codes whose predicted message is compared in full (they name the file-system path, the
/// URI or the user, which is the point of checking them).
pub const MESSAGE_CODES: &[&str] =
    &["AH01797", "AH01630", "AH01631", "AH01629", "AH01627", "AH00027", "AH00028", "AH00032", "AH00037"];

// ---------------------------------------------------------------------------------------------
// The engine side

/// The client's host name as httpd finds it (double-reverse lookup with the system resolver),
/// once per address for the whole test run.
pub fn client_host(ip: IpAddr) -> HostKnowledge {
    static CACHE: OnceLock<Mutex<BTreeMap<IpAddr, HostKnowledge>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(BTreeMap::new()));
    if let Some(h) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&ip) {
        return h.clone();
    }
    let h = apache_lsp::cli::resolve_double_reverse(ip);
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(ip, h.clone());
    h
}

/// The engine, loaded from the exact configuration file httpd reads.
pub struct Engine {
    pub cfg: config::Config,
    /// The port httpd listens on (the server side of every connection).
    port: Option<u16>,
    groups: BTreeMap<String, BTreeSet<String>>,
}

impl Engine {
    /// Loads `main`; `port` is the port the requests arrive on, when httpd runs.
    pub fn load(main: &Path, port: Option<u16>) -> Engine {
        let cfg = config::load(main, &config::RealFs);
        let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for line in GROUPS.lines() {
            if let Some((g, users)) = line.split_once(':') {
                for u in users.split_whitespace() {
                    groups.entry(u.to_owned()).or_default().insert(g.trim().to_owned());
                }
            }
        }
        Engine { cfg, port, groups }
    }

    /// The request as the engine sees it: the server-side address is 127.0.0.1 for IPv4 sources
    /// (the harness always connects there) and ::1 for ::1, on httpd's port; the client's host
    /// name as the system resolver gives it; the group file's contents are known.
    pub fn spec(&self, p: &Probe) -> RequestSpec {
        let local = match p.source {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
        };
        let mut req = EngineRequest::new(&p.method, p.source, local);
        req.local_port = self.port;
        req.user = p.user().map(str::to_owned);
        req.bad_credentials = p.bad_credentials();
        req.client_host = client_host(p.source);
        req.groups = Some(self.groups.clone());
        RequestSpec {
            path: p.url.clone(),
            host: Some(p.host.clone().unwrap_or_else(|| "localhost".to_owned())),
            request: req,
        }
    }

    /// Exactly the headers the harness sends, so SetEnvIf is evaluated on what httpd sees.
    pub fn inputs(&self, p: &Probe) -> EnvInputs {
        EnvInputs { headers: p.to_request().headers_sent(), headers_complete: true, ..EnvInputs::default() }
    }

    pub fn predict(&self, p: &Probe) -> Effective {
        access::effective_with(&self.cfg, &self.spec(p), Some(&self.inputs(p)))
    }
}

// ---------------------------------------------------------------------------------------------
// Cases

type ProbePredicate = Box<dyn Fn(&Probe) -> bool + Send + Sync>;
type ProbeStatus = Box<dyn Fn(&Probe) -> u16 + Send + Sync>;

/// One differential case.
pub struct Case {
    pub name: String,
    pub body: String,
    /// Extra files (relative to the server root; placeholders are substituted).
    pub files: Vec<(String, String)>,
    /// Symbolic links (link, target, the link's owner if not ours), relative to the server root.
    pub links: Vec<(String, String, Option<u32>)>,
    pub probes: Vec<Probe>,
    unknown: Option<ProbePredicate>,
    expect: Option<ProbeStatus>,
}

impl Case {
    /// A case with no requests yet; add them with [`Case::urls`] or [`Case::probes`].
    pub fn new(name: &str, body: &str) -> Case {
        Case {
            name: name.to_owned(),
            body: body.to_owned(),
            files: vec![],
            links: vec![],
            probes: vec![],
            unknown: None,
            expect: None,
        }
    }

    /// Adds the full matrix over these URLs and methods.
    pub fn urls(mut self, urls: &[&str], methods: &[&str]) -> Case {
        self.probes.extend(matrix(urls, methods));
        self
    }

    /// Adds [`anon_matrix`] over these URLs, methods and header sets.
    pub fn anon(mut self, urls: &[&str], methods: &[&str], header_sets: &[&[(&str, &str)]]) -> Case {
        self.probes.extend(anon_matrix(urls, methods, header_sets));
        self
    }

    pub fn probes(mut self, probes: Vec<Probe>) -> Case {
        self.probes.extend(probes);
        self
    }

    /// Sets the Host header of every request added so far.
    pub fn host(mut self, host: &str) -> Case {
        for p in &mut self.probes {
            p.host = Some(host.to_owned());
        }
        self
    }

    pub fn file(mut self, relative: &str, contents: &str) -> Case {
        self.files.push((relative.to_owned(), contents.to_owned()));
        self
    }

    /// A symbolic link at `relative` to `target` (both relative to the server root).
    pub fn symlink(mut self, relative: &str, target: &str) -> Case {
        self.links.push((relative.to_owned(), target.to_owned(), None));
        self
    }

    /// [`Case::symlink`], the link owned by user `uid` (only root may ask).
    pub fn symlink_owned_by(mut self, relative: &str, target: &str, uid: u32) -> Case {
        self.links.push((relative.to_owned(), target.to_owned(), Some(uid)));
        self
    }

    /// The requests for which the engine must say "unknown" (and no others).
    pub fn unknown_when(mut self, f: impl Fn(&Probe) -> bool + Send + Sync + 'static) -> Case {
        self.unknown = Some(Box::new(f));
        self
    }

    /// The status (in engine terms, see [`access_status`]) that the fact sheet documents for
    /// each request; httpd must answer it (and the engine must agree with httpd).
    pub fn expect(mut self, f: impl Fn(&Probe) -> u16 + Send + Sync + 'static) -> Case {
        self.expect = Some(Box::new(f));
        self
    }

    fn expects_unknown(&self, p: &Probe) -> bool {
        self.unknown.as_ref().is_some_and(|f| f(p))
    }
}

/// The result of running cases.
#[derive(Debug, Default)]
pub struct Report {
    pub cases: usize,
    pub requests: usize,
    /// Fully rendered mismatches.
    pub mismatches: Vec<String>,
    /// httpd's statuses (in engine terms) → count, to see that the matrix exercises every outcome.
    pub statuses: BTreeMap<u16, usize>,
    /// AH code → how many predicted entries were found in httpd's log with the same whole
    /// message (for AH01797/AH01630…: the same file-system path).
    pub log_checked: BTreeMap<String, usize>,
}

impl Report {
    pub fn merge(&mut self, other: Report) {
        self.cases += other.cases;
        self.requests += other.requests;
        self.mismatches.extend(other.mismatches);
        for (k, v) in other.statuses {
            *self.statuses.entry(k).or_default() += v;
        }
        for (k, v) in other.log_checked {
            *self.log_checked.entry(k).or_default() += v;
        }
    }

    /// Panics with every mismatch (the first `limit` in full; all of them go to the file named
    /// by `APACHE_LSP_DIFF_REPORT` when it is set).
    pub fn assert_clean(&self, limit: usize) {
        if self.mismatches.is_empty() {
            return;
        }
        if let Some(path) = std::env::var_os("APACHE_LSP_DIFF_REPORT") {
            let _ = std::fs::write(&path, self.mismatches.join("\n"));
        }
        let mut s = format!(
            "{} mismatch(es) between httpd and the engine over {} request(s) of {} case(s):\n",
            self.mismatches.len(),
            self.requests,
            self.cases
        );
        for m in self.mismatches.iter().take(limit) {
            s.push_str(m);
            s.push('\n');
        }
        if self.mismatches.len() > limit {
            let _ = writeln!(s, "… and {} more", self.mismatches.len() - limit);
        }
        panic!("{s}");
    }
}

/// Reads the error log incrementally (the harness's `error_log_since` rereads the whole file,
/// which is quadratic over thousands of requests).
struct LogTail {
    file: Option<File>,
    path: PathBuf,
    pos: u64,
}

impl LogTail {
    fn new(path: PathBuf) -> LogTail {
        let mut t = LogTail { file: None, path, pos: 0 };
        t.read();
        t
    }

    fn read(&mut self) -> String {
        if self.file.is_none() {
            self.file = File::open(&self.path).ok();
        }
        let Some(f) = self.file.as_mut() else { return String::new() };
        let mut buf = Vec::new();
        if f.seek(SeekFrom::Start(self.pos)).is_ok() && f.read_to_end(&mut buf).is_ok() {
            self.pos += buf.len() as u64;
        }
        String::from_utf8_lossy(&buf).into_owned()
    }
}

/// The AH codes of the error-log lines that belong to a request (`[client …]`).
fn logged_codes(log: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in log.lines().filter(|l| l.contains("[client ")) {
        if let Some(i) = line.find("] AH") {
            let code: String = line[i + 2..].chars().take(7).collect();
            if code.len() == 7 && code[2..].chars().all(|c| c.is_ascii_digit()) {
                out.insert(code);
            }
        }
    }
    out
}

/// What is wrong with one observation (empty = agreement).
///
/// `suppressed` says, per predicted log entry, why LogLevel keeps httpd from writing it;
/// `checked` counts the entries whose code and whole message (file-system path) were found.
fn judge(
    case: &Case,
    p: &Probe,
    httpd_status: u16,
    log: &str,
    eff: &Effective,
    suppressed: &[Option<String>],
    checked: &mut BTreeMap<String, usize>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let got = access_status(httpd_status);
    if let Some(expect) = &case.expect {
        let want = expect(p);
        if want != got {
            problems.push(format!("httpd answered {got}, the fact sheet documents {want}"));
        }
    }
    let outcome = &eff.outcome;
    let unknown_expected = case.expects_unknown(p);
    match outcome.status {
        // Unknown, as declared: httpd's answer must be among those said possible.
        None if unknown_expected => {
            if !outcome.possible_statuses.contains(&got) {
                problems.push(format!(
                    "the engine says unknown with {:?} possible, and httpd answered {httpd_status} (= {got} in engine terms)",
                    outcome.possible_statuses
                ));
            }
            return problems;
        }
        None => {
            problems.push(format!(
                "the engine says unknown ({}); an unknown is never agreement",
                outcome.reason_unknown.as_deref().unwrap_or("no reason given")
            ));
            return problems;
        }
        Some(s) if unknown_expected => {
            problems.push(format!("the engine answers {s} where the case declares the outcome unknowable"));
        }
        Some(s) if s != got => {
            problems.push(format!("status: httpd {httpd_status} (= {got} in engine terms), engine {s}"));
            return problems;
        }
        Some(_) => {}
    }
    // The error log: what LogLevel lets through must be there, what it suppresses must not.
    if got == 403
        && !outcome.log.iter().any(|l| ["AH01797", "AH01630", "AH01631", "AH00032", "AH00037"].contains(&l.ah_code))
    {
        problems.push("a 403 without a predicted AH01797/AH01630/AH01631/AH00032/AH00037 log entry".to_owned());
    }
    let logged = logged_codes(log);
    for (l, why) in outcome.log.iter().zip(suppressed) {
        if let Some(why) = why {
            if !l.ah_code.is_empty() && logged.contains(l.ah_code) {
                problems.push(format!("the engine says {} is {why}, but httpd logged it", l.ah_code));
            }
            continue;
        }
        if !matches!(l.level, LogLevel::Alert | LogLevel::Error | LogLevel::Warning) && l.ah_code.is_empty() {
            continue;
        }
        // httpd escapes what it writes (non-ASCII bytes as \xhh).
        let message = apache_lsp::ide::error_log::escape(&l.message);
        if l.ah_code.is_empty() {
            // Messages without a code (e.g. an .htaccess error, logged as "<file>: <message>").
            if !log.contains(&message) {
                problems.push(format!("predicted log message `{}` is not in httpd's log", l.message));
            }
        } else if !log.contains(l.ah_code) {
            problems.push(format!("predicted log entry {}: {} is not in httpd's log", l.ah_code, l.message));
        } else if MESSAGE_CODES.contains(&l.ah_code) {
            if log.contains(&format!("{}: {}", l.ah_code, message)) {
                *checked.entry(l.ah_code.to_owned()).or_default() += 1;
            } else {
                problems.push(format!("predicted log message `{}: {}` differs from httpd's", l.ah_code, l.message));
            }
        } else if l.ah_code == "AH01617" {
            // A wrong password: httpd writes `user NAME: authentication failure for "URI":
            // Password Mismatch`; the engine does not know the name, but the URI it does.
            let uri =
                l.message.split_once("failure for ").and_then(|(_, r)| r.split_once(": Password")).map(|(u, _)| u);
            let user = p.credentials.as_ref().map(|(u, _)| u.as_str()).unwrap_or("");
            let want = uri.map(|u| format!("AH01617: user {user}: authentication failure for {u}: Password Mismatch"));
            if !want.as_ref().is_some_and(|w| log.contains(w.as_str())) {
                problems.push(format!("predicted log message `{}` differs from httpd's (wanted {want:?})", l.message));
            }
        }
    }
    let predicted_codes: BTreeSet<&str> =
        outcome.log.iter().zip(suppressed).filter(|(_, w)| w.is_none()).map(|(l, _)| l.ah_code).collect();
    for code in logged {
        if !predicted_codes.contains(code.as_str()) {
            problems.push(format!("httpd logged {code}, which the engine did not predict"));
        }
    }
    problems
}

fn render_sections(eff: &Effective) -> String {
    let mut s = String::new();
    if let Some(v) = &eff.virtual_host {
        let _ = writeln!(s, "  (virtual host {v})");
    }
    let _ = writeln!(s, "  file-system path: {}", eff.filesystem_path.display());
    for sec in &eff.sections {
        let _ = writeln!(s, "  <{} {}>  {}:{}", sec.kind, sec.args.join(" "), sec.path.display(), sec.line);
        for (line, text) in &sec.access_lines {
            let _ = writeln!(s, "      {line:>4}: {text}");
        }
    }
    if !eff.errors.is_empty() {
        let _ = writeln!(s, "  startup errors: {:?}", eff.errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>());
    }
    s
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

#[allow(clippy::too_many_arguments)]
fn render_mismatch(
    case: &Case,
    common: &str,
    cfg: &HttpdConfig,
    p: &Probe,
    httpd_status: u16,
    log: &str,
    eff: &Effective,
    problems: &[String],
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "=== MISMATCH in case `{}`", case.name);
    for pr in problems {
        let _ = writeln!(s, "  * {pr}");
    }
    let _ = writeln!(s, "request: {}", p.describe());
    let _ = writeln!(s, "httpd: {httpd_status} (= {} in engine terms)", access_status(httpd_status));
    let _ = write!(s, "httpd error log for this request:\n{}", indent(if log.is_empty() { "(nothing)" } else { log }));
    let _ = write!(s, "engine outcome:\n{}", indent(&eff.outcome.render()));
    let _ = write!(s, "engine's applied sections:\n{}", render_sections(eff));
    let _ = writeln!(s, "configuration (after the harness preamble; @DOCROOT@ = {}):", cfg.docroot().display());
    if !common.is_empty() {
        s.push_str(&indent(common));
    }
    s.push_str(&indent(&case.body));
    for (f, text) in &case.files {
        let _ = write!(s, "file {f}:\n{}", indent(text));
    }
    s
}

fn build_config(common: &str, cases: &[&Case]) -> HttpdConfig {
    let mut body = String::from(common);
    for c in cases {
        let _ = write!(body, "# ---- case {}\n{}\n", c.name, c.body);
    }
    let mut cfg = HttpdConfig::new(body);
    for c in cases {
        for (f, text) in &c.files {
            cfg = cfg.file(f, text.as_str());
        }
        for (link, target, owner) in &c.links {
            cfg = cfg.symlink_owned_by(link, target, *owner);
        }
    }
    cfg
}

/// Runs `cases` in one httpd (bodies concatenated after `common`) and compares every request.
/// Returns Err with httpd's output when it does not start.
pub fn run_cases(common: &str, cases: &[&Case]) -> Result<Report, String> {
    let httpd = Httpd::start(build_config(common, cases))?;
    let engine = Engine::load(&httpd.config().main_config_path(), Some(httpd.port()));
    let mut tail = LogTail::new(httpd.config().error_log_path());
    let mut report = Report { cases: cases.len(), ..Report::default() };
    for case in cases {
        for p in &case.probes {
            tail.read();
            let status = httpd.send(&p.to_request()).map_err(|e| format!("case {}: {e}", case.name))?;
            let log = tail.read();
            let eff = engine.predict(p);
            report.requests += 1;
            *report.statuses.entry(access_status(status)).or_default() += 1;
            let suppressed = loglevel::suppressed(&engine.cfg, &eff);
            let problems = judge(case, p, status, &log, &eff, &suppressed, &mut report.log_checked);
            if !problems.is_empty() {
                report.mismatches.push(render_mismatch(case, common, httpd.config(), p, status, &log, &eff, &problems));
            }
        }
    }
    Ok(report)
}

/// Runs one hand-written case in its own httpd and panics on any mismatch. Returns the report
/// (empty when apache2 is missing).
pub fn check(case: Case) -> Report {
    if !crate::httpd::require_apache2() {
        return Report::default();
    }
    assert!(!case.probes.is_empty(), "case {} has no requests", case.name);
    let report = run_cases("", &[&case]).unwrap_or_else(|e| panic!("case {}: httpd did not start:\n{e}", case.name));
    eprintln!("case {}: {} requests, log entries checked: {:?}", case.name, report.requests, report.log_checked);
    report.assert_clean(12);
    report
}

// ---------------------------------------------------------------------------------------------
// Generated cases

/// SplitMix64: small, deterministic, good enough to pick grammar productions.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Allow/Deny arguments: every form of §2.4 that the sources can tell apart.
const HOSTS: &[&str] = &[
    "all",
    "127.0.0.1",
    "127.0.0.2",
    "127.1.2.3",
    "127.0",
    "127.0.0.",
    "127.1",
    "127.0.0.0/31",
    "127.0.0.0/255.255.255.254",
    "127.0.0.2/32",
    "10.0.0.0/8",
    "::1",
    "::1/128",
    "env=IS_TWO",
    "env=!IS_TWO",
    "env=GEN_ON",
    "env=GEN_POST",
];

/// Positive Require lines (after `Require `).
const REQUIRES: &[&str] = &[
    "all granted",
    "all denied",
    "ip 127.0.0.1",
    "ip 127.0.0.2 127.1.2.3",
    "ip 127.0",
    "ip 127.0.0.0/31",
    "ip 127.0.0.0/255.255.255.254",
    "ip ::1",
    "local",
    "env IS_TWO",
    "env GEN_ON",
    "env GEN_POST IS_TWO",
    "method GET",
    "method POST",
    "user alice",
    "user bob",
    "user alice bob",
    "valid-user",
    "group admins",
    "group staff",
];

/// Negatable Require lines (no user tests, which become NEUTRAL anyway, but keep a few).
const NEGATABLE: &[&str] = &[
    "ip 127.0.0.2",
    "ip 127.1",
    "ip ::1",
    "env IS_TWO",
    "env GEN_ON",
    "method POST",
    "user bob",
    "all denied",
    "local",
];

/// The server-level lines every generated batch shares.
pub const GENERATED_COMMON: &str = "SetEnvIf Remote_Addr ^127\\.0\\.0\\.2$ IS_TWO\n\
SetEnvIf X-Gen ^on$ GEN_ON\nSetEnvIfNoCase Request_Method ^post$ GEN_POST\n";

/// Per-directory SetEnvIf lines a generated section may start with (they run before the access
/// checks, in merge order, and see the server-level variables).
const SETENVIF_LINES: &[&str] = &[
    "SetEnvIf Remote_Addr ^127\\.1\\. IS_TWO",
    "SetEnvIf IS_TWO ^1$ !IS_TWO GEN_ON",
    "BrowserMatch ^gen/ GEN_ON",
    "SetEnvIf Request_URI /sub/ GEN_POST",
    "SetEnvIf X-Gen ^on$ !GEN_ON",
    "SetEnvIfNoCase X-GEN ^ON$ IS_TWO=yes",
];

fn gen_hosts(rng: &mut Rng) -> String {
    let n = 1 + rng.below(3);
    (0..n).map(|_| *rng.pick(HOSTS)).collect::<Vec<_>>().join(" ")
}

/// A Require container's lines. `op`: "All", "Any" or "None".
fn gen_container(rng: &mut Rng, op: &str, depth: usize, pad: &str, out: &mut Vec<String>) {
    out.push(format!("{pad}<Require{op}>"));
    let inner = format!("{pad}    ");
    let n = 1 + rng.below(3);
    for _ in 0..n {
        let roll = rng.below(10);
        if depth < 2 && roll < 2 {
            // Nested container: RequireNone only where it is allowed (inside RequireAll).
            let child = if op == "All" { *rng.pick(&["Any", "None", "Any"]) } else { "All" };
            gen_container(rng, child, depth + 1, &inner, out);
        } else if op == "All" && roll < 4 {
            out.push(format!("{inner}Require not {}", rng.pick(NEGATABLE)));
        } else {
            out.push(format!("{inner}Require {}", rng.pick(REQUIRES)));
        }
    }
    out.push(format!("{pad}</Require{op}>"));
}

/// The lines of one section body (or .htaccess file), indented with `pad`.
fn gen_section_body(rng: &mut Rng, pad: &str) -> Vec<String> {
    let lines = gen_section_lines(rng, pad);
    lines.into_iter().map(|l| mutate(rng, l)).collect()
}

/// Startup errors (or, in .htaccess, 500s) from §1.2–§1.6, §2.2–§2.5, §3.1, §3.5, §4:
/// replacement lines, used rarely.
const BROKEN: &[&str] = &[
    "Order deny, allow",
    "Order sideways",
    "Order \"deny, allow\"",
    "Allow 127.0.0.1",
    "Allow to 127.0.0.1",
    "Allow from 127.0/16",
    "Deny from 10.0.0.0/33",
    "Deny from 10.0.0.0/0",
    "Allow from ::ffff:127.0.0.1",
    "Allow from 127.0.0.1 # comment",
    "Deny from 1.2.3.4.5",
    "Require ALL granted",
    "Require All granted",
    "Require ip foo",
    "Require ip",
    "Require ip 127.0.0.1 # comment",
    "Require all granted # comment",
    "Require method get",
    "Require",
    "Satisfy maybe",
    "AuthMerging sideways",
    "<RequireAll>\n</RequireAll>",
    "<RequireAny extra>\n    Require all granted\n</RequireAny>",
    "<Limit TRACE>\n    Require all granted\n</Limit>",
];

/// Harmless variations httpd accepts: directive names in any case, keyword arguments in any
/// case, quoted single arguments, `Require local`/`valid-user` with ignored arguments; and,
/// rarely, a broken line (see [`BROKEN`]).
fn mutate(rng: &mut Rng, line: String) -> String {
    let trimmed = line.trim_start();
    let pad = &line[..line.len() - trimmed.len()];
    if trimmed.starts_with('<') || trimmed.is_empty() {
        return line;
    }
    if rng.chance(1) {
        return BROKEN[rng.below(BROKEN.len())].lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n");
    }
    if !rng.chance(12) {
        return line;
    }
    let (name, rest) = trimmed.split_once(' ').unwrap_or((trimmed, ""));
    let name = match rng.below(3) {
        0 => name.to_ascii_lowercase(),
        1 => name.to_ascii_uppercase(),
        _ => name
            .chars()
            .enumerate()
            .map(|(i, c)| if i % 2 == 0 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
            .collect(),
    };
    let lname = name.to_ascii_lowercase();
    let rest = match lname.as_str() {
        "order" | "satisfy" | "authmerging" => match rng.below(3) {
            0 => rest.to_ascii_uppercase(),
            1 => format!("\"{rest}\""),
            _ => format!("'{}'", rest.to_ascii_lowercase()),
        },
        "allow" | "deny" => rest.replacen("from", "FROM", 1).replace("env=", "ENV="),
        "require" if rest == "local" || rest == "valid-user" => format!("{rest} ignored words"),
        "require" if rest.starts_with("all ") => rest.replace("granted", "GRANTED").replace("denied", "Denied"),
        _ => rest.to_string(),
    };
    format!("{pad}{name} {rest}")
}

fn gen_section_lines(rng: &mut Rng, pad: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if rng.chance(12) {
        lines.push(format!("{pad}{}", rng.pick(SETENVIF_LINES)));
    }
    let limit = |rng: &mut Rng| -> Option<(&'static str, &'static str)> {
        if rng.chance(15) {
            Some(*rng.pick(&[
                ("<Limit POST>", "</Limit>"),
                ("<LimitExcept GET>", "</LimitExcept>"),
                ("<Limit GET>", "</Limit>"),
                ("<Limit GET POST>", "</Limit>"),
                ("<LimitExcept POST PUT>", "</LimitExcept>"),
                ("<Limit PUT DELETE>", "</Limit>"),
            ]))
        } else {
            None
        }
    };
    // mod_access_compat.
    if rng.chance(50) {
        let mut compat = Vec::new();
        if rng.chance(70) {
            compat.push(format!("Order {}", rng.pick(&["allow,deny", "deny,allow", "mutual-failure", "Deny,Allow"])));
        }
        for _ in 0..rng.below(3) {
            compat.push(format!("Allow from {}", gen_hosts(rng)));
        }
        for _ in 0..rng.below(3) {
            compat.push(format!("Deny from {}", gen_hosts(rng)));
        }
        if rng.chance(35) {
            compat.push(format!("Satisfy {}", rng.pick(&["Any", "All", "any"])));
        }
        if compat.is_empty() {
            compat.push("Satisfy All".to_owned());
        }
        match limit(rng) {
            Some((open, close)) => {
                let k = rng.below(compat.len() + 1);
                let (outside, inside) = compat.split_at(k);
                lines.extend(outside.iter().map(|l| format!("{pad}{l}")));
                lines.push(format!("{pad}{open}"));
                lines.extend(inside.iter().map(|l| format!("{pad}    {l}")));
                if inside.is_empty() {
                    lines.push(format!("{pad}    Order allow,deny"));
                }
                lines.push(format!("{pad}{close}"));
            }
            None => lines.extend(compat.iter().map(|l| format!("{pad}{l}"))),
        }
    }
    // mod_authz_core.
    if rng.chance(60) {
        let mut authz = Vec::new();
        let n = 1 + rng.below(2);
        for _ in 0..n {
            match rng.below(10) {
                0..=5 => authz.push(format!("{pad}Require {}", rng.pick(REQUIRES))),
                6 | 7 => gen_container(rng, "All", 1, pad, &mut authz),
                8 => gen_container(rng, "Any", 1, pad, &mut authz),
                // Rarely something httpd refuses at startup (or, in .htaccess, answers
                // with a 500): the engine must say so too.
                _ if rng.chance(50) => authz.push(format!("{pad}Require {}", rng.pick(REQUIRES))),
                _ => {
                    if rng.chance(50) {
                        authz.push(format!("{pad}Require not {}", rng.pick(NEGATABLE)));
                    } else {
                        gen_container(rng, "None", 1, pad, &mut authz);
                    }
                }
            }
        }
        match limit(rng) {
            Some((open, close)) => {
                lines.push(format!("{pad}{open}"));
                lines.extend(authz.iter().map(|l| format!("    {l}")));
                lines.push(format!("{pad}{close}"));
            }
            None => lines.extend(authz),
        }
    }
    if rng.chance(25) {
        lines.push(format!("{pad}AuthMerging {}", rng.pick(&["And", "Or", "Off"])));
    }
    if rng.chance(5) {
        lines.push(format!("{pad}AuthzSendForbiddenOnFailure On"));
    }
    // Authentication.
    if rng.chance(40) {
        if rng.chance(5) {
            lines.push(format!("{pad}AuthType None"));
        } else {
            lines.push(format!("{pad}AuthType Basic"));
            lines.push(format!("{pad}AuthName \"gen\""));
            if rng.chance(92) {
                lines.push(format!("{pad}AuthUserFile @ROOT@/htpasswd"));
            }
            if rng.chance(80) {
                lines.push(format!("{pad}AuthGroupFile @ROOT@/htgroups"));
            }
            if rng.chance(10) {
                lines.push(format!("{pad}AuthBasicProvider file"));
            }
        }
    }
    lines
}

/// The kinds of section a generated case draws 1–3 from.
const KINDS: &[&str] =
    &["dir", "sub", "loc", "files", "loc2", "htaccess", "dirmatch", "filesmatch", "htaccess_top", "locmatch", "vhost"];

fn push_body(body: &mut String, lines: &[String]) {
    for l in lines {
        let _ = writeln!(body, "{l}");
    }
}

/// One generated case under `/c{index}/`: 1–3 distinct kinds of section among
/// `<Directory DOCROOT/cN>`, `<Directory DOCROOT/cN/sub>` (sometimes with its own
/// AllowOverride), `<Location /cN/sub>`, `<Location /cN>` (the two Locations in either order),
/// `<LocationMatch>`, `<Files index.html>` and `<FilesMatch>` (nested in the first Directory),
/// an `.htaccess` in `cN` or in `cN/sub` (with an AllowOverride in the first Directory), and
/// `<DirectoryMatch "/cN/sub">`, and a name-based `<VirtualHost 127.0.0.1:PORT>` named
/// `cN.test` with one or two of the Directory/Location sections inside (the requests then carry
/// that Host header), each with random access directives. Requests: `/cN/index.html`,
/// `/cN/a.txt` and `/cN/sub/index.html` over the whole matrix, GET and POST (plus two of PUT,
/// DELETE, HEAD, OPTIONS when the case uses Limit; sometimes HEAD otherwise).
pub fn generated_case(rng: &mut Rng, index: usize) -> Case {
    let c = format!("c{index}");
    let want = 1 + rng.below(3);
    let mut kinds: Vec<&str> = Vec::new();
    while kinds.len() < want {
        let k = *rng.pick(KINDS);
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    let has = |k: &str| kinds.contains(&k);
    let mut body = String::new();
    let mut files = vec![
        (format!("htdocs/{c}/index.html"), format!("{c}/index.html\n")),
        (format!("htdocs/{c}/a.txt"), format!("{c}/a.txt\n")),
        (format!("htdocs/{c}/sub/index.html"), format!("{c}/sub/index.html\n")),
    ];
    if has("dir") || has("files") || has("filesmatch") || has("htaccess") || has("htaccess_top") {
        let _ = writeln!(body, "<Directory @DOCROOT@/{c}>");
        if has("htaccess") || has("htaccess_top") {
            let _ = writeln!(
                body,
                "    AllowOverride {}",
                rng.pick(&["AuthConfig Limit", "All", "AuthConfig Limit", "AuthConfig", "Limit"])
            );
        }
        if has("dir") {
            push_body(&mut body, &gen_section_body(rng, "    "));
        }
        if has("files") {
            let _ = writeln!(body, "    <Files index.html>");
            push_body(&mut body, &gen_section_body(rng, "        "));
            let _ = writeln!(body, "    </Files>");
        }
        if has("filesmatch") {
            let _ = writeln!(body, "    <FilesMatch \"{}\">", rng.pick(&["\\.txt$", "^index", "\\.(html|txt)$"]));
            push_body(&mut body, &gen_section_body(rng, "        "));
            let _ = writeln!(body, "    </FilesMatch>");
        }
        let _ = writeln!(body, "</Directory>");
    }
    if has("htaccess_top") {
        let mut text = String::new();
        push_body(&mut text, &gen_section_body(rng, ""));
        files.push((format!("htdocs/{c}/.htaccess"), text));
    }
    if has("htaccess") {
        let mut text = String::new();
        push_body(&mut text, &gen_section_body(rng, ""));
        files.push((format!("htdocs/{c}/sub/.htaccess"), text));
    }
    if has("sub") {
        let _ = writeln!(body, "<Directory @DOCROOT@/{c}/sub>");
        if has("htaccess") && rng.chance(30) {
            let _ = writeln!(body, "    AllowOverride {}", rng.pick(&["None", "AuthConfig", "Limit", "All"]));
        }
        push_body(&mut body, &gen_section_body(rng, "    "));
        let _ = writeln!(body, "</Directory>");
    }
    if has("dirmatch") {
        let _ = writeln!(body, "<DirectoryMatch \"/{c}/sub\">");
        push_body(&mut body, &gen_section_body(rng, "    "));
        let _ = writeln!(body, "</DirectoryMatch>");
    }
    // Location sections in either order (config order is merge order).
    let mut locations = Vec::new();
    if has("loc2") {
        locations.push(format!("/{c}"));
    }
    if has("loc") {
        locations.push(format!("/{c}/sub"));
    }
    if locations.len() == 2 && rng.chance(30) {
        locations.reverse();
    }
    for l in locations {
        let _ = writeln!(body, "<Location {l}>");
        push_body(&mut body, &gen_section_body(rng, "    "));
        let _ = writeln!(body, "</Location>");
    }
    if has("locmatch") {
        let _ =
            writeln!(body, "<LocationMatch \"{}\">", rng.pick(&[format!("^/{c}/(sub|a)"), format!("/{c}/.*index")]));
        push_body(&mut body, &gen_section_body(rng, "    "));
        let _ = writeln!(body, "</LocationMatch>");
    }
    if has("vhost") {
        // A name-based virtual host of its own on 127.0.0.1 (requests from ::1 reach the main
        // server), whose sections come after the main server's at equal depth.
        let _ = writeln!(body, "<VirtualHost 127.0.0.1:@PORT@>\n    ServerName {c}.test");
        let inner = ["Directory @DOCROOT@/{c}", "Directory @DOCROOT@/{c}/sub", "Location /{c}/sub"];
        let first = rng.below(inner.len());
        let second = if rng.chance(40) { Some((first + 1 + rng.below(inner.len() - 1)) % inner.len()) } else { None };
        for i in std::iter::once(first).chain(second) {
            let header = inner[i].replace("{c}", &c);
            let (kind, _) = header.split_once(' ').unwrap_or((&header, ""));
            let _ = writeln!(body, "    <{header}>");
            push_body(&mut body, &gen_section_body(rng, "        "));
            let _ = writeln!(body, "    </{kind}>");
        }
        let _ = writeln!(body, "</VirtualHost>");
    }
    let mut methods = vec!["GET", "POST"];
    if body.contains("<Limit") || files.iter().any(|(_, t)| t.contains("<Limit")) {
        // Two more methods, so that per-method rules meet methods on both sides of the mask.
        let extra = ["PUT", "DELETE", "HEAD", "OPTIONS"];
        let i = rng.below(extra.len());
        let j = (i + 1 + rng.below(extra.len() - 1)) % extra.len();
        methods.extend([extra[i], extra[j]]);
    } else if rng.chance(10) {
        methods.push("HEAD");
    }
    let urls = [format!("/{c}/index.html"), format!("/{c}/a.txt"), format!("/{c}/sub/index.html")];
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let mut case = Case::new(&format!("generated #{index}"), &body).urls(&urls, &methods);
    // Headers for the SetEnvIf lines, on a deterministic part of the matrix.
    for (i, p) in case.probes.iter_mut().enumerate() {
        if i % 2 == 1 {
            p.headers.push(("X-Gen".to_owned(), "on".to_owned()));
        }
        if i % 3 == 0 {
            p.headers.push(("User-Agent".to_owned(), "gen/1".to_owned()));
        }
    }
    if has("vhost") {
        case = case.host(&format!("{c}.test"));
    }
    for (f, text) in files {
        case = case.file(&f, &text);
    }
    case
}

/// `count` generated cases from `seed`.
pub fn generate_cases(seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..count).map(|i| generated_case(&mut rng, i)).collect()
}

/// One GET from 127.0.0.1 per URL and Host header of a case: together they reach every section
/// of a generated case (the engine reports the startup errors of the sections a request meets).
fn url_probes(case: &Case) -> Vec<Probe> {
    let urls: BTreeSet<(&str, Option<&String>)> =
        case.probes.iter().map(|p| (p.url.as_str(), p.host.as_ref())).collect();
    urls.into_iter()
        .map(|(u, h)| Probe { host: h.cloned(), ..Probe::new("GET", u, IpAddr::V4(Ipv4Addr::LOCALHOST), None) })
        .collect()
}

/// Summary of a generated run.
#[derive(Debug, Default)]
pub struct GeneratedSummary {
    pub report: Report,
    /// Cases httpd refused to start with (and the engine agreed).
    pub rejected: usize,
    /// Why they were refused (the engine's first error message) → count.
    pub rejections: BTreeMap<String, usize>,
    pub batches: usize,
}

/// Runs generated cases in batches of `batch` cases per httpd. Cases whose configuration the
/// engine finds startup errors in are checked with `apache2 -t` one by one (httpd must refuse
/// them); the rest must start, and if a batch does not, its cases are tested one by one to
/// find the ones httpd refuses but the engine accepts.
pub fn run_generated(cases: &[Case], batch: usize) -> GeneratedSummary {
    let mut summary = GeneratedSummary::default();
    for chunk in cases.chunks(batch.max(1)) {
        summary.batches += 1;
        // What the engine thinks of each case's startup.
        let draft = build_config(GENERATED_COMMON, &chunk.iter().collect::<Vec<_>>());
        let main = draft.write().expect("write the draft configuration");
        let engine = Engine::load(&main, None);
        let mut good: Vec<&Case> = Vec::new();
        for case in chunk {
            let mut errors: Vec<String> = Vec::new();
            for p in url_probes(case) {
                for e in engine.predict(&p).errors {
                    if !errors.contains(&e.message) {
                        errors.push(e.message);
                    }
                }
            }
            if errors.is_empty() {
                good.push(case);
                continue;
            }
            summary.report.cases += 1;
            // Alone, so that the line numbers are those httpd reports.
            let alone = build_config(GENERATED_COMMON, &[case]);
            let main = alone.write().expect("write the configuration");
            let engine_alone = Engine::load(&main, None);
            let mut errors_alone = Vec::new();
            for p in url_probes(case) {
                errors_alone.extend(engine_alone.predict(&p).errors);
            }
            let (ok, output) = config_test(&alone);
            let rendered: Vec<String> =
                errors_alone.iter().map(|e| format!("line {}: {}", e.loc.line, e.message)).collect();
            if ok {
                summary.report.mismatches.push(format!(
                    "=== MISMATCH in case `{}`: the engine reports startup errors {:?}, but httpd accepts the \
                     configuration\nconfiguration:\n{}",
                    case.name,
                    rendered,
                    indent(&case.body)
                ));
            } else if !errors_alone.iter().any(|e| {
                // httpd reports one error: a directive's with "line N of FILE", or a check_config
                // hook's (AH01624) without a line.
                output.contains(&e.message)
                    && (e.ah_code.is_some() || output.contains(&format!("line {} of", e.loc.line)))
            }) {
                summary.report.mismatches.push(format!(
                    "=== MISMATCH in case `{}`: httpd refuses the configuration with another error than the \
                     engine's {:?}\napache2 -t:\n{}configuration:\n{}",
                    case.name,
                    rendered,
                    indent(&output),
                    indent(&case.body)
                ));
            } else {
                summary.rejected += 1;
                *summary.rejections.entry(errors[0].clone()).or_default() += 1;
            }
        }
        drop(draft);
        // The batch httpd must accept.
        let (ok, _) = config_test(&build_config(GENERATED_COMMON, &good));
        if !ok {
            let mut kept = Vec::new();
            for case in good {
                let (ok, output) = config_test(&build_config(GENERATED_COMMON, &[case]));
                if ok {
                    kept.push(case);
                } else {
                    summary.report.cases += 1;
                    summary.report.mismatches.push(format!(
                        "=== MISMATCH in case `{}`: httpd refuses the configuration, the engine reports no startup \
                         error\napache2 -t:\n{}configuration:\n{}",
                        case.name,
                        indent(&output),
                        indent(&case.body)
                    ));
                }
            }
            good = kept;
        }
        if good.is_empty() {
            continue;
        }
        match run_cases(GENERATED_COMMON, &good) {
            Ok(r) => summary.report.merge(r),
            Err(e) => summary.report.mismatches.push(format!("=== a batch of generated cases did not start:\n{e}")),
        }
    }
    summary
}

/// Runs several hand-written cases in one httpd (they must not interfere: separate directories
/// or URLs) and panics on any mismatch. Returns the report (empty when apache2 is missing).
pub fn check_all(common: &str, cases: Vec<Case>) -> Report {
    if !crate::httpd::require_apache2() {
        return Report::default();
    }
    let refs: Vec<&Case> = cases.iter().collect();
    for c in &refs {
        assert!(!c.probes.is_empty(), "case {} has no requests", c.name);
    }
    let report = run_cases(common, &refs).unwrap_or_else(|e| panic!("httpd did not start:\n{e}"));
    eprintln!("{} cases: {} requests, log entries checked: {:?}", report.cases, report.requests, report.log_checked);
    report.assert_clean(12);
    report
}

/// Checks that httpd refuses to start with `body` and that the engine reports a startup error
/// for it (on some request for `urls`) with httpd's message, and httpd's line unless the error
/// comes from a check_config hook. Returns httpd's `apache2 -t` output.
pub fn check_refused(body: &str, urls: &[&str]) -> String {
    if !crate::httpd::require_apache2() {
        return String::new();
    }
    let cfg = HttpdConfig::new(body);
    let (ok, output) = config_test(&cfg);
    assert!(!ok, "httpd accepts the configuration:\n{body}\n{output}");
    let engine = Engine::load(&cfg.main_config_path(), None);
    let mut errors = Vec::new();
    for url in urls {
        errors.extend(engine.predict(&Probe::new("GET", url, IpAddr::V4(Ipv4Addr::LOCALHOST), None)).errors);
    }
    let rendered: Vec<String> = errors.iter().map(|e| format!("line {}: {}", e.loc.line, e.message)).collect();
    assert!(
        errors.iter().any(|e| output.contains(&e.message)
            && (e.ah_code.is_some() || output.contains(&format!("line {} of", e.loc.line)))),
        "httpd refuses the configuration with another error than the engine's {rendered:?}\n\
         apache2 -t:\n{output}\nconfiguration:\n{}",
        cfg.main_config_text()
    );
    output
}
