//! A harness that runs the real Apache httpd (`/usr/sbin/apache2`) so tests can check what the
//! server actually answers, not what we believe it answers.
//!
//! A test writes a configuration *body* (typically `<Directory @DOCROOT@>` sections with access
//! directives) into an [`HttpdConfig`]. The harness puts it behind a fixed preamble (ServerRoot,
//! Listen, logs, LoadModule lines, DocumentRoot, no `<Directory>` sections and no access
//! directives), writes the whole thing to `ROOT/httpd.conf` in a fresh temporary directory
//! together with a document tree, a password file and a group file, and [`Httpd::start`] runs
//! httpd in the foreground on a free loopback port. [`Httpd::send`] then makes raw HTTP/1.1
//! requests from a chosen *source* address (127.0.0.0/8 or `::1`), with or without Basic
//! credentials, and returns the status; the error log is there to check `AH01797` / `AH01630`
//! lines. [`HttpdConfig::main_config_path`] is the exact file httpd reads, so the engine under test
//! can read the same file.
//!
//! Safety rules this module keeps:
//! * **Loopback only.** httpd listens on `127.0.0.1` and `[::1]` only, requests go only to those,
//!   and [`Request`] refuses any source address outside `127.0.0.0/8` and `::1`.
//! * **It stops only what it started.** httpd is spawned as our own child in a new process group
//!   (necessary anyway: on shutdown httpd signals its whole process group, which would otherwise
//!   be the test binary). [`Drop`] sends SIGTERM to that pid, waits a bounded time, then SIGKILLs
//!   the pid and its process group (which holds only that httpd's own children). Nothing is ever
//!   killed by name.
//! * **Everything is bounded in time.** Start-up, `apache2 -t`, requests and shutdown all have
//!   deadlines; no loop waits forever.
//! * **Nothing is written outside the temporary server root**, which is removed on drop.
//!
//! Parallel use: every instance has its own temporary directory and a port no other instance in
//! this process has been given; a start that loses a port race with another process is retried
//! on a new port.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use tempfile::TempDir;

/// The httpd binary (Debian's name for it).
pub const APACHE2: &str = "/usr/sbin/apache2";
/// Where Debian installs the loadable modules.
pub const MODULES_DIR: &str = "/usr/lib/apache2/modules";
/// The MPM loaded unless a test asks for another: one single-threaded child, started in ~20 ms.
pub const DEFAULT_MPM: &str = "prefork";
/// Modules loaded by default (besides the MPM), by short name: `X` loads
/// `X_module` from `MODULES_DIR/mod_X.so`. Compiled in, and so always present:
/// core, mod_so, mod_watchdog, http_core, mod_log_config, mod_logio, mod_version, mod_unixd.
pub const DEFAULT_MODULES: &[&str] = &[
    "authz_core",
    "authz_host",
    "authz_user",
    "authz_groupfile",
    "access_compat",
    "authn_core",
    "authn_file",
    "auth_basic",
    "setenvif",
    "alias",
    "status",
    "dir",
    "mime",
];
/// The users in `ROOT/htpasswd`, as (name, password).
pub const USERS: &[(&str, &str)] = &[("alice", "apw"), ("bob", "bpw"), ("carol", "cpw"), ("dave", "dpw")];
/// `ROOT/htgroups`.
pub const GROUPS: &str = "admins: alice\nstaff: alice bob\n";
/// Source addresses a test may send from; `::1` is dropped by [`sources`] when unusable.
pub const SOURCES: &[&str] = &["127.0.0.1", "127.0.0.2", "127.1.2.3", "::1"];
/// Credential cases: none, two valid users, and a wrong password.
pub const CREDENTIALS: &[Option<(&str, &str)>] =
    &[None, Some(("alice", "apw")), Some(("bob", "bpw")), Some(("alice", "wrong"))];

/// `{SHA}` lines for [`USERS`] (base64 of SHA-1 of the password, as `htpasswd -s` writes them).
/// Constant so that the harness does not depend on apache2-utils; the auth tests check them.
const HTPASSWD: &str = "alice:{SHA}tGWP3X+9ZFwoWbDjnXEBjzIFjRI=\n\
                        bob:{SHA}1Hfnvouvt1+kHkP0znUIGxDyfYc=\n\
                        carol:{SHA}7n+SwjQNdcKKdTKU96n1ejIzqmc=\n\
                        dave:{SHA}6b35GwsOKUYxj2WkVeFO2CpWKYs=\n";

/// The document tree every instance gets (relative to the document root). There is deliberately
/// no `server-status`, so that requests for it go down the non-existent-file path.
const DOCUMENTS: &[&str] = &["index.html", "sub/index.html", "sub/deeper/index.html", "private/index.html", "a.txt"];

const START_TIMEOUT: Duration = Duration::from_secs(10);
const STOP_TIMEOUT: Duration = Duration::from_secs(5);
const CONFIG_TEST_TIMEOUT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(20);
const START_ATTEMPTS: usize = 5;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const IO_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a response may take to start. Host-name rules (`Require host`, `Allow from name`)
/// make httpd look the client up in DNS before it answers; where no name server replies (a CI
/// machine that reaches only package registries) each lookup waits for the resolver's full
/// timeout × attempts × name servers: 10 s with glibc's defaults and one server, 30 s with three.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(40);
const MAX_RESPONSE: usize = 1 << 20;

/// Whether the httpd binary is installed.
pub fn apache2_available() -> bool {
    Path::new(APACHE2).is_file()
}

/// Like [`apache2_available`], but prints why the calling test is being skipped.
/// Use as `if !require_apache2() { return; }`.
pub fn require_apache2() -> bool {
    let ok = apache2_available();
    if !ok {
        eprintln!(
            "note: {APACHE2} is not installed; skipping this real-httpd test \
             (install the `apache2` package; scripts/test does so in CI)"
        );
    }
    ok
}

/// Whether `[::1]` can be bound on this machine (cached).
pub fn ipv6_loopback_usable() -> bool {
    static USABLE: OnceLock<bool> = OnceLock::new();
    *USABLE.get_or_init(|| TcpListener::bind((Ipv6Addr::LOCALHOST, 0)).is_ok())
}

/// [`SOURCES`] parsed, without `::1` when IPv6 loopback is unusable.
pub fn sources() -> Vec<IpAddr> {
    SOURCES
        .iter()
        .map(|s| s.parse::<IpAddr>().expect("SOURCES are valid addresses"))
        .filter(|ip| ip.is_ipv4() || ipv6_loopback_usable())
        .collect()
}

/// Whether access rules in `text` name a host (`Allow from example.org`, `Require host x`): httpd
/// then looks the client address up (double reverse), so a test should send only from addresses
/// [`names_resolved_locally`] keeps, lest the lookup leave the machine (and time out).
pub fn rules_name_hosts(text: &str) -> bool {
    let re = regex::Regex::new(r"(?im)^\s*(?:allow\s+from|deny\s+from|require\s+(?:not\s+)?host)\s+(.*)$").unwrap();
    let names = re.captures_iter(text).any(|c| {
        c[1].split_whitespace().any(|t| {
            let t = t.trim_matches('"').to_ascii_lowercase();
            t != "all" && !t.starts_with("env=") && !t.contains(':') && t.chars().any(|ch| ch.is_ascii_alphabetic())
        })
    });
    names
}

/// The addresses of `sources` whose host lookup is answered on this machine: those /etc/hosts
/// names, and those the resolver answers (with a name or with "none") within a second. Where no
/// name server replies, httpd would wait for the resolver's full timeout on every request; such
/// addresses are left out, with a note. Each address is timed once per process.
pub fn names_resolved_locally(sources: Vec<IpAddr>) -> Vec<IpAddr> {
    static PROMPT: OnceLock<Mutex<BTreeMap<IpAddr, bool>>> = OnceLock::new();
    let listed: Vec<IpAddr> = fs::read_to_string("/etc/hosts")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    let cache = PROMPT.get_or_init(Default::default);
    // Unlisted, untimed addresses are looked up side by side: one resolver timeout in all.
    let untimed: Vec<IpAddr> = {
        let known = cache.lock().unwrap_or_else(|e| e.into_inner());
        sources.iter().copied().filter(|ip| !listed.contains(ip) && !known.contains_key(ip)).collect()
    };
    std::thread::scope(|scope| {
        for ip in untimed {
            scope.spawn(move || {
                let started = Instant::now();
                let _ = apache_lsp::cli::resolve_double_reverse(ip);
                let took = started.elapsed();
                let prompt = took < Duration::from_secs(1);
                if !prompt {
                    eprintln!(
                        "note: the resolver took {took:.1?} to look up {ip}; no requests from it to host-name rules"
                    );
                }
                cache.lock().unwrap_or_else(|e| e.into_inner()).insert(ip, prompt);
            });
        }
    });
    let known = cache.lock().unwrap_or_else(|e| e.into_inner());
    sources.into_iter().filter(|ip| listed.contains(ip) || known.get(ip) == Some(&true)).collect()
}

/// [`CREDENTIALS`] as owned pairs, ready for [`Request::credentials`].
pub fn credentials() -> Vec<Option<(String, String)>> {
    CREDENTIALS.iter().map(|c| c.map(|(u, p)| (u.to_owned(), p.to_owned()))).collect()
}

// ---------------------------------------------------------------------------------------------
// Configuration

/// A server root in a temporary directory plus the configuration httpd will read from it.
///
/// The body may use `@ROOT@` (server root), `@DOCROOT@` (`@ROOT@/htdocs`) and `@PORT@`; they
/// are substituted in the body and in every extra file. The files are (re)written by
/// [`HttpdConfig::write`], which [`Httpd::start`] and [`config_test`] call; the port may change
/// if a start has to be retried, so read [`HttpdConfig::main_config_path`] through
/// [`Httpd::config`] once the server is up if the port matters.
pub struct HttpdConfig {
    dir: TempDir,
    port: u16,
    body: String,
    mpm: String,
    modules: Vec<String>,
    log_level: String,
    files: Vec<(PathBuf, Option<String>)>,
    /// Symbolic links: (link, target, the link's owner if not ours), relative to the server root.
    links: Vec<(PathBuf, PathBuf, Option<u32>)>,
}

impl HttpdConfig {
    /// A new server root with `body` after the preamble. Creates the temporary directory now.
    pub fn new(body: impl Into<String>) -> HttpdConfig {
        let dir =
            tempfile::Builder::new().prefix("apache-lsp-httpd-").tempdir().expect("create a temporary server root");
        HttpdConfig {
            dir,
            port: pick_port(),
            body: body.into(),
            mpm: DEFAULT_MPM.to_owned(),
            modules: DEFAULT_MODULES.iter().map(|m| (*m).to_owned()).collect(),
            log_level: "warn".to_owned(),
            files: Vec::new(),
            links: Vec::new(),
        }
    }

    /// Replaces the module list (short names such as `authz_core`; `mod_` and `_module` are
    /// stripped if given). The MPM is set separately with [`HttpdConfig::mpm`].
    pub fn modules(mut self, modules: &[&str]) -> HttpdConfig {
        self.modules = modules.iter().map(|m| short_module_name(m)).collect();
        self
    }

    /// Adds one module to the list (no-op if present).
    pub fn with_module(mut self, module: &str) -> HttpdConfig {
        let module = short_module_name(module);
        if !self.modules.contains(&module) {
            self.modules.push(module);
        }
        self
    }

    /// Removes one module from the list.
    pub fn without_module(mut self, module: &str) -> HttpdConfig {
        let module = short_module_name(module);
        self.modules.retain(|m| *m != module);
        self
    }

    /// Chooses the MPM: `prefork` (default), `event` or `worker`.
    pub fn mpm(mut self, mpm: &str) -> HttpdConfig {
        self.mpm = mpm.trim_start_matches("mpm_").to_owned();
        self
    }

    /// Replaces the `LogLevel` argument (default `warn`, which already logs the `error`-level
    /// AH01797 and AH01630 refusals), e.g. `"warn authz_core:debug"`.
    pub fn log_level(mut self, level: &str) -> HttpdConfig {
        self.log_level = level.to_owned();
        self
    }

    /// An extra file, relative to the server root (e.g. `htdocs/sub/.htaccess`); placeholders
    /// are substituted in `contents`. Parent directories are created.
    ///
    /// Panics on an absolute path or one with `..`: nothing is written outside the root.
    pub fn file(mut self, relative: impl AsRef<Path>, contents: impl Into<String>) -> HttpdConfig {
        let relative = checked_relative(relative.as_ref());
        self.files.push((relative, Some(contents.into())));
        self
    }

    /// A symbolic link at `relative` to `target` (both relative to the server root; the link
    /// holds the target's absolute path). Parent directories are created.
    pub fn symlink(self, relative: impl AsRef<Path>, target: impl AsRef<Path>) -> HttpdConfig {
        self.symlink_owned_by(relative, target, None)
    }

    /// [`HttpdConfig::symlink`], the link itself owned by user `owner` (only root may do that).
    pub fn symlink_owned_by(
        mut self,
        relative: impl AsRef<Path>,
        target: impl AsRef<Path>,
        owner: Option<u32>,
    ) -> HttpdConfig {
        self.links.push((checked_relative(relative.as_ref()), checked_relative(target.as_ref()), owner));
        self
    }

    /// An extra (empty) directory, relative to the server root.
    pub fn dir(mut self, relative: impl AsRef<Path>) -> HttpdConfig {
        let relative = checked_relative(relative.as_ref());
        self.files.push((relative, None));
        self
    }

    /// The server root (`@ROOT@`).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The document root (`@DOCROOT@`).
    pub fn docroot(&self) -> PathBuf {
        self.root().join("htdocs")
    }

    /// The port (`@PORT@`).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The main configuration file httpd is started with.
    pub fn main_config_path(&self) -> PathBuf {
        self.root().join("httpd.conf")
    }

    pub fn error_log_path(&self) -> PathBuf {
        self.root().join("error.log")
    }

    pub fn access_log_path(&self) -> PathBuf {
        self.root().join("access.log")
    }

    pub fn htpasswd_path(&self) -> PathBuf {
        self.root().join("htpasswd")
    }

    pub fn htgroups_path(&self) -> PathBuf {
        self.root().join("htgroups")
    }

    fn pid_path(&self) -> PathBuf {
        self.root().join("httpd.pid")
    }

    fn stderr_path(&self) -> PathBuf {
        self.root().join("stderr.log")
    }

    /// Substitutes `@ROOT@`, `@DOCROOT@` and `@PORT@`.
    pub fn substitute(&self, text: &str) -> String {
        text.replace("@DOCROOT@", &self.docroot().to_string_lossy())
            .replace("@ROOT@", &self.root().to_string_lossy())
            .replace("@PORT@", &self.port.to_string())
    }

    /// The text of the main configuration file: preamble, then the substituted body.
    pub fn main_config_text(&self) -> String {
        let root = self.root().display().to_string();
        let port = self.port;
        let mut s = String::new();
        let mut line = |l: String| {
            s.push_str(&l);
            s.push('\n');
        };
        line("# Written by the apache-lsp-e2e httpd harness. Preamble: no <Directory>, no access".into());
        line("# directives. The test's body follows the END OF PREAMBLE line.".into());
        line(format!("ServerRoot \"{root}\""));
        line("ServerName localhost".into());
        line(format!("Listen 127.0.0.1:{port}"));
        if ipv6_loopback_usable() {
            line(format!("Listen [::1]:{port}"));
        }
        line(format!("PidFile \"{root}/httpd.pid\""));
        line(format!("DefaultRuntimeDir \"{root}/run\""));
        line(format!("ErrorLog \"{root}/error.log\""));
        line(format!("LogLevel {}", self.log_level));
        line("LogFormat \"%a %u \\\"%r\\\" %>s\" harness".into());
        line(format!("CustomLog \"{root}/access.log\" harness"));
        line("Timeout 10".into());
        line("KeepAlive Off".into());
        let mpm = &self.mpm;
        line(format!("LoadModule mpm_{mpm}_module {MODULES_DIR}/mod_mpm_{mpm}.so"));
        // Few processes and threads: tests send one request at a time.
        let mpm_settings: &[&str] = match mpm.as_str() {
            "prefork" => {
                &["StartServers 1", "MinSpareServers 1", "MaxSpareServers 2", "ServerLimit 4", "MaxRequestWorkers 4"]
            }
            "event" | "worker" => &[
                "StartServers 1",
                "ServerLimit 1",
                "ThreadLimit 4",
                "ThreadsPerChild 4",
                "MinSpareThreads 1",
                "MaxSpareThreads 4",
                "MaxRequestWorkers 4",
            ],
            _ => &[],
        };
        for setting in mpm_settings {
            line((*setting).to_owned());
        }
        for m in &self.modules {
            line(format!("LoadModule {m}_module {MODULES_DIR}/mod_{m}.so"));
        }
        if let Some((user, group)) = run_as() {
            line(format!("User {user}"));
            line(format!("Group {group}"));
        }
        if self.modules.iter().any(|m| m == "mime") {
            line(format!("TypesConfig \"{root}/mime.types\""));
        }
        line(format!("DocumentRoot \"{root}/htdocs\""));
        line("# END OF PREAMBLE".into());
        s.push_str(&self.substitute(&self.body));
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s
    }

    /// Writes the configuration, the document tree, the auth files and the extra files.
    /// Everything is made readable by the user httpd's children run as.
    pub fn write(&self) -> io::Result<PathBuf> {
        let root = self.root();
        set_mode(root, 0o755)?;
        let docroot = self.docroot();
        mkdir(&docroot)?;
        mkdir(&root.join("run"))?;
        for doc in DOCUMENTS {
            write_file(&docroot.join(doc), &format!("htdocs/{doc}\n"))?;
        }
        write_file(&self.htpasswd_path(), HTPASSWD)?;
        write_file(&self.htgroups_path(), GROUPS)?;
        write_file(&root.join("mime.types"), "text/html html htm\ntext/plain txt\n")?;
        for (relative, contents) in &self.files {
            let path = root.join(relative);
            match contents {
                Some(contents) => write_file(&path, &self.substitute(contents))?,
                None => mkdir(&path)?,
            }
        }
        for (link, target, owner) in &self.links {
            let path = root.join(link);
            if let Some(parent) = path.parent() {
                mkdir(parent)?;
            }
            if path.symlink_metadata().is_ok() {
                fs::remove_file(&path)?;
            }
            std::os::unix::fs::symlink(root.join(target), &path)?;
            if let Some(uid) = owner {
                std::os::unix::fs::lchown(&path, Some(*uid), None)?;
            }
        }
        let main = self.main_config_path();
        write_file(&main, &self.main_config_text())?;
        Ok(main)
    }
}

fn short_module_name(name: &str) -> String {
    let name = name.strip_prefix("mod_").unwrap_or(name);
    let name = name.strip_suffix(".so").unwrap_or(name);
    name.strip_suffix("_module").unwrap_or(name).to_owned()
}

fn checked_relative(path: &Path) -> PathBuf {
    assert!(
        path.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)),
        "harness files must be relative to the server root, without `..`: {}",
        path.display()
    );
    path.to_owned()
}

/// Creates `dir` and its missing parents, each with mode 0755.
fn mkdir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        mkdir(parent)?;
    }
    fs::create_dir(dir)?;
    set_mode(dir, 0o755)
}

fn write_file(path: &Path, contents: &str) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        mkdir(parent)?;
    }
    fs::write(path, contents)?;
    set_mode(path, 0o644)
}

fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

/// Whether the tests run as root (and so may give files to other owners).
pub fn euid_is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The `User`/`Group` to name when running as root (httpd refuses to serve as root); `None`
/// when not root, where httpd cannot switch user anyway.
fn run_as() -> Option<(&'static str, &'static str)> {
    if !euid_is_root() {
        return None;
    }
    let has = |file: &str, name: &str| {
        fs::read_to_string(file).map(|t| t.lines().any(|l| l.split(':').next() == Some(name))).unwrap_or(false)
    };
    if has("/etc/passwd", "www-data") && has("/etc/group", "www-data") {
        Some(("www-data", "www-data"))
    } else {
        Some(("nobody", if has("/etc/group", "nogroup") { "nogroup" } else { "nobody" }))
    }
}

/// When running as root, the children run as another user, who must be able to reach the
/// server root through every ancestor directory.
fn check_ancestors_traversable(root: &Path) -> Result<(), String> {
    if !euid_is_root() {
        return Ok(());
    }
    for dir in root.ancestors().skip(1) {
        if let Ok(meta) = fs::metadata(dir) {
            if meta.permissions().mode() & 0o001 == 0 {
                return Err(format!(
                    "{} is not world-traversable, so httpd's unprivileged children could not \
                     read the server root {}; point TMPDIR elsewhere",
                    dir.display(),
                    root.display()
                ));
            }
        }
    }
    Ok(())
}

/// A loopback port that is free on 127.0.0.1 (and ::1 when used) right now and that no other
/// instance in this process has been given.
fn pick_port() -> u16 {
    static GIVEN: Mutex<Option<HashSet<u16>>> = Mutex::new(None);
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    let given = given.get_or_insert_with(HashSet::new);
    for _ in 0..100 {
        let Ok(listener) = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)) else {
            continue;
        };
        let Ok(addr) = listener.local_addr() else {
            continue;
        };
        let port = addr.port();
        if given.contains(&port) {
            continue;
        }
        if ipv6_loopback_usable() && TcpListener::bind((Ipv6Addr::LOCALHOST, port)).is_err() {
            continue;
        }
        given.insert(port);
        return port;
    }
    panic!("could not find a free loopback port in 100 tries");
}

// ---------------------------------------------------------------------------------------------
// Running httpd

/// Runs `apache2 -t -f ROOT/httpd.conf` (after writing the files) and returns whether it
/// accepted the configuration, with its combined stdout and stderr.
pub fn config_test(cfg: &HttpdConfig) -> (bool, String) {
    let main = match cfg.write() {
        Ok(main) => main,
        Err(e) => return (false, format!("harness: could not write the configuration: {e}")),
    };
    let out_path = cfg.root().join("config-test.log");
    let run = || -> Result<(bool, String), String> {
        let out = fs::File::create(&out_path).map_err(|e| e.to_string())?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let mut child = apache2_command()
            .arg("-t")
            .arg("-f")
            .arg(&main)
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .spawn()
            .map_err(|e| format!("could not run {APACHE2}: {e}"))?;
        let status = wait_bounded(&mut child, CONFIG_TEST_TIMEOUT);
        let output = read_lossy(&out_path);
        match status {
            Some(status) => Ok((status.success(), output)),
            None => {
                kill_own_group(&mut child);
                Err(format!("`apache2 -t` did not finish in {CONFIG_TEST_TIMEOUT:?}\n{output}"))
            }
        }
    };
    run().unwrap_or_else(|e| (false, format!("harness: {e}")))
}

/// `apache2` with a clean environment, in a process group of its own.
fn apache2_command() -> Command {
    let mut cmd = Command::new(APACHE2);
    cmd.env_clear().env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").env("LANG", "C").stdin(Stdio::null()).process_group(0);
    cmd
}

/// A running httpd, stopped on drop.
pub struct Httpd {
    child: Child,
    // `Drop::drop` stops the server before the fields are dropped, so the temporary root
    // outlives the server.
    config: HttpdConfig,
}

impl Httpd {
    /// Writes the configuration and starts httpd in the foreground, returning once its pid file
    /// names it and the port accepts connections. On failure returns the error log and stderr.
    /// If the port turns out to be taken, retries on another one (the config is rewritten).
    pub fn start(mut config: HttpdConfig) -> Result<Httpd, String> {
        if !apache2_available() {
            return Err(format!("{APACHE2} is not installed"));
        }
        check_ancestors_traversable(config.root())?;
        let mut last_error = String::new();
        for attempt in 0..START_ATTEMPTS {
            if attempt > 0 {
                config.port = pick_port();
            }
            match start_once(&config)? {
                Ok(child) => return Ok(Httpd { child, config }),
                Err(AddressInUse(report)) => last_error = report,
            }
        }
        Err(format!("httpd could not bind a port in {START_ATTEMPTS} attempts:\n{last_error}"))
    }

    pub fn config(&self) -> &HttpdConfig {
        &self.config
    }

    pub fn port(&self) -> u16 {
        self.config.port
    }

    /// The pid of the httpd parent process (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `request` and returns the HTTP status.
    pub fn send(&self, request: &Request) -> Result<u16, String> {
        self.fetch(request).map(|r| r.status)
    }

    /// Sends `request` and returns the status with the error-log text written meanwhile
    /// (httpd logs a refusal before it sends the response, so this is complete).
    pub fn send_logged(&self, request: &Request) -> Result<(u16, String), String> {
        let offset = self.error_log_len();
        let status = self.send(request)?;
        Ok((status, self.error_log_since(offset)))
    }

    /// Sends `request` and returns the whole response.
    pub fn fetch(&self, request: &Request) -> Result<Response, String> {
        request.send_to(self.config.port)
    }

    /// The whole error log.
    pub fn error_log(&self) -> String {
        read_lossy(&self.config.error_log_path())
    }

    /// The current length of the error log, for [`Httpd::error_log_since`].
    pub fn error_log_len(&self) -> u64 {
        fs::metadata(self.config.error_log_path()).map(|m| m.len()).unwrap_or(0)
    }

    /// The error-log text written after `offset` (a value of [`Httpd::error_log_len`]).
    pub fn error_log_since(&self, offset: u64) -> String {
        let bytes = fs::read(self.config.error_log_path()).unwrap_or_default();
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(bytes.len());
        String::from_utf8_lossy(&bytes[start..]).into_owned()
    }

    /// The access log (format: `%a %u "%r" %>s`). mod_log_config writes the line when the
    /// request is finished, which may be a moment after the client has read the response.
    pub fn access_log(&self) -> String {
        read_lossy(&self.config.access_log_path())
    }

    /// Stops the server now (SIGTERM, bounded wait, then SIGKILL) and returns how it exited.
    pub fn stop(mut self) -> Option<ExitStatus> {
        self.stop_inner()
    }

    fn stop_inner(&mut self) -> Option<ExitStatus> {
        if let Ok(Some(status)) = self.child.try_wait() {
            return Some(status);
        }
        signal(self.child.id(), libc::SIGTERM);
        let status = wait_bounded(&mut self.child, STOP_TIMEOUT);
        if status.is_none() {
            eprintln!("httpd harness: pid {} ignored SIGTERM; killing it", self.child.id());
            kill_own_group(&mut self.child);
        }
        status
    }
}

impl Drop for Httpd {
    fn drop(&mut self) {
        self.stop_inner();
    }
}

struct AddressInUse(String);

/// One start attempt. The outer error is fatal; the inner one asks for a retry on another port.
fn start_once(config: &HttpdConfig) -> Result<Result<Child, AddressInUse>, String> {
    let main = config.write().map_err(|e| format!("could not write the configuration: {e}"))?;
    for stale in [config.pid_path(), config.error_log_path(), config.stderr_path()] {
        let _ = fs::remove_file(stale);
    }
    let out = fs::File::create(config.stderr_path()).map_err(|e| e.to_string())?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut child = apache2_command()
        .arg("-f")
        .arg(&main)
        .arg("-DFOREGROUND")
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .map_err(|e| format!("could not run {APACHE2}: {e}"))?;
    let pid = child.id().to_string();
    let deadline = Instant::now() + START_TIMEOUT;
    let report = |what: &str| {
        format!(
            "httpd {what}\n--- stderr ---\n{}--- error log ---\n{}",
            read_lossy(&config.stderr_path()),
            read_lossy(&config.error_log_path())
        )
    };
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let report = report(&format!("exited during start-up ({status})"));
            if report.contains("Address already in use") {
                return Ok(Err(AddressInUse(report)));
            }
            return Err(report);
        }
        // The pid file is written after the listeners are bound, so once it names our child the
        // port is ours (and not some other process's that happens to be listening).
        let pid_ok = fs::read_to_string(config.pid_path()).is_ok_and(|p| p.trim() == pid);
        if pid_ok
            && TcpStream::connect_timeout(&SocketAddr::from((Ipv4Addr::LOCALHOST, config.port)), CONNECT_TIMEOUT)
                .is_ok()
        {
            return Ok(Ok(child));
        }
        if Instant::now() >= deadline {
            kill_own_group(&mut child);
            return Err(report(&format!("was not ready after {START_TIMEOUT:?}")));
        }
        std::thread::sleep(POLL);
    }
}

fn signal(pid: u32, sig: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill has no memory-safety preconditions; pid is our own child, not yet reaped.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

/// SIGKILLs `child` and the process group it leads (created for it by `apache2_command`, so it
/// holds only httpd's own children), then reaps it.
fn kill_own_group(child: &mut Child) {
    if let Ok(pgid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: as in `signal`; a negative pid addresses the process group `pgid`, which is
        // the group `process_group(0)` made for this child.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = wait_bounded(child, STOP_TIMEOUT);
}

fn wait_bounded(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

fn read_lossy(path: &Path) -> String {
    String::from_utf8_lossy(&fs::read(path).unwrap_or_default()).into_owned()
}

// ---------------------------------------------------------------------------------------------
// Requests

/// One HTTP/1.1 request, sent with `Connection: close` from a loopback source address.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The raw request target, sent as is (e.g. `/sub/`, `/%73ub/`).
    pub path: String,
    /// The client address: in 127.0.0.0/8 (then sent to 127.0.0.1) or `::1` (sent to `[::1]`).
    pub source: IpAddr,
    /// Basic credentials (user, password).
    pub credentials: Option<(String, String)>,
    /// The `Host` header; `localhost` when `None`.
    pub host: Option<String>,
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn new(method: &str, path: &str) -> Request {
        Request {
            method: method.to_owned(),
            path: path.to_owned(),
            source: IpAddr::V4(Ipv4Addr::LOCALHOST),
            credentials: None,
            host: None,
            headers: Vec::new(),
        }
    }

    pub fn get(path: &str) -> Request {
        Request::new("GET", path)
    }

    pub fn source(mut self, source: IpAddr) -> Request {
        self.source = source;
        self
    }

    /// Basic credentials, or none; takes the items of [`credentials`] directly.
    pub fn credentials(mut self, credentials: Option<(String, String)>) -> Request {
        self.credentials = credentials;
        self
    }

    pub fn user(self, user: &str, password: &str) -> Request {
        self.credentials(Some((user.to_owned(), password.to_owned())))
    }

    pub fn host(mut self, host: &str) -> Request {
        self.host = Some(host.to_owned());
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    fn destination(&self, port: u16) -> Result<SocketAddr, String> {
        match self.source {
            IpAddr::V4(v4) if v4.is_loopback() => Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port))),
            IpAddr::V6(v6) if v6 == Ipv6Addr::LOCALHOST => Ok(SocketAddr::from((Ipv6Addr::LOCALHOST, port))),
            other => Err(format!("source {other} is not a loopback address the harness allows")),
        }
    }

    /// Every header the request carries, in the order sent (the engine is told exactly these).
    pub fn headers_sent(&self) -> Vec<(String, String)> {
        let mut h = vec![("Host".to_owned(), self.host.clone().unwrap_or_else(|| "localhost".to_owned()))];
        if let Some((user, password)) = &self.credentials {
            h.push(("Authorization".to_owned(), format!("Basic {}", base64(format!("{user}:{password}").as_bytes()))));
        }
        h.extend(self.headers.iter().cloned());
        h.push(("Connection".to_owned(), "close".to_owned()));
        h
    }

    fn text(&self) -> String {
        let mut s = format!("{} {} HTTP/1.1\r\n", self.method, self.path);
        for (name, value) in self.headers_sent() {
            let _ = write!(s, "{name}: {value}\r\n");
        }
        s.push_str("\r\n");
        s
    }

    /// Sends this request to `port` on the loopback address of its source's family (a second
    /// port the server listens on; [`Httpd::fetch`] sends to the harness's own).
    pub fn send_to(&self, port: u16) -> Result<Response, String> {
        let what = || format!("{} {} from {}", self.method, self.path, self.source);
        let destination = self.destination(port)?;
        let domain = if self.source.is_ipv4() { Domain::IPV4 } else { Domain::IPV6 };
        let socket =
            Socket::new(domain, Type::STREAM, Some(Protocol::TCP)).map_err(|e| format!("{}: socket: {e}", what()))?;
        socket
            .bind(&SockAddr::from(SocketAddr::new(self.source, 0)))
            .map_err(|e| format!("{}: bind to source: {e}", what()))?;
        socket
            .connect_timeout(&SockAddr::from(destination), CONNECT_TIMEOUT)
            .map_err(|e| format!("{}: connect to {destination}: {e}", what()))?;
        let mut stream = TcpStream::from(socket);
        stream.set_read_timeout(Some(RESPONSE_TIMEOUT)).map_err(|e| e.to_string())?;
        stream.set_write_timeout(Some(IO_TIMEOUT)).map_err(|e| e.to_string())?;
        stream.write_all(self.text().as_bytes()).map_err(|e| format!("{}: write: {e}", what()))?;
        let deadline = Instant::now() + RESPONSE_TIMEOUT;
        let mut raw = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => raw.extend_from_slice(&buf[..n]),
                // The server may reset the connection after a complete response; keep what came.
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset && !raw.is_empty() => break,
                Err(e) => return Err(format!("{}: read: {e}", what())),
            }
            if raw.len() > MAX_RESPONSE || Instant::now() >= deadline {
                break;
            }
        }
        Response::parse(&raw)
            .ok_or_else(|| format!("{}: not an HTTP response: {:?}", what(), String::from_utf8_lossy(&raw)))
    }
}

/// A response as received (the body is not de-chunked).
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    /// Status line and headers, without the blank line.
    pub head: String,
    pub body: Vec<u8>,
}

impl Response {
    fn parse(raw: &[u8]) -> Option<Response> {
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n");
        let (head, body) = match split {
            Some(i) => (&raw[..i], raw[i + 4..].to_vec()),
            None => (raw, Vec::new()),
        };
        let head = String::from_utf8_lossy(head).into_owned();
        let mut status_line = head.lines().next()?.split_whitespace();
        if !status_line.next()?.starts_with("HTTP/") {
            return None;
        }
        let status = status_line.next()?.parse().ok()?;
        Some(Response { status, head, body })
    }

    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn base64(input: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(TABLE[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let cases = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg==")];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(b"alice:apw"), "YWxpY2U6YXB3");
    }

    #[test]
    fn module_names_are_normalised() {
        assert_eq!(short_module_name("mod_access_compat.so"), "access_compat");
        assert_eq!(short_module_name("authz_core_module"), "authz_core");
        assert_eq!(short_module_name("status"), "status");
    }

    #[test]
    fn response_status_and_headers_parse() {
        let r =
            Response::parse(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\n\r\nbody").unwrap();
        assert_eq!(r.status, 401);
        assert_eq!(r.header("www-authenticate"), Some("Basic realm=\"x\""));
        assert_eq!(r.body_text(), "body");
    }

    #[test]
    fn start_moves_to_another_port_when_its_port_is_taken() {
        if !require_apache2() {
            return;
        }
        let config = HttpdConfig::new("<Directory @DOCROOT@>\nRequire all granted\n</Directory>\n");
        let taken = config.port();
        let _squatter = TcpListener::bind((Ipv4Addr::LOCALHOST, taken)).unwrap();
        let httpd = Httpd::start(config).unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(httpd.port(), taken);
        assert_eq!(httpd.send(&Request::get("/")), Ok(200));
        let main = fs::read_to_string(httpd.config().main_config_path()).unwrap();
        assert!(main.contains(&format!("Listen 127.0.0.1:{}\n", httpd.port())), "{main}");
    }

    #[test]
    #[should_panic(expected = "relative to the server root")]
    fn files_outside_the_root_are_refused() {
        let _ = HttpdConfig::new("").file("../escape", "x");
    }
}
