//! The command line: the same analysis as the server, for terminals and CI.

use crate::ide::{self, config, Severity};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(name = "apache-lsp", version, about = "Language server and checker for Apache httpd configuration", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Accepted for clients that pass it (vscode-languageclient, others): stdio is the only transport.
    #[arg(long, global = true, hide = true)]
    pub stdio: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the language server over stdin/stdout (the default).
    Lsp,
    /// Report problems in configuration files. A main configuration is followed
    /// through its Include/IncludeOptional lines, so the whole tree is checked.
    ///
    /// Exit status: 0 when nothing of severity warning or above was found, 1 when
    /// something was, 2 when the command could not run.
    Check {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Files or directories (a directory is checked through the httpd.conf or
        /// apache2.conf at its top, else file by file).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Rewrite Order/Allow/Deny/Satisfy into Require. Without --write, prints a
    /// unified diff. Only rewrites the engine proves keep every request's outcome,
    /// unless --allow-changes.
    ///
    /// Exit status: 0 when nothing old-style is left, 1 when something is, 2 on failure.
    Migrate {
        /// Replace the files (atomically: temporary file, fsync, rename).
        #[arg(long)]
        write: bool,
        /// Also apply rewrites that change access, and print every change.
        #[arg(long)]
        allow_changes: bool,
        /// Remove the UTF-8 byte-order mark a file begins with, then migrate it. httpd reads
        /// the mark as part of the first directive's name and refuses the whole file (it does
        /// not start; an .htaccess file answers 500), so without this such a file is left;
        /// with it httpd reads the file, which changes what it does (printed as an access change).
        #[arg(long)]
        remove_bom: bool,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Explain what httpd does with one request: the sections that apply, in
    /// merge order, the rule that decides, and the status.
    Explain(Box<ExplainArgs>),
}

#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The main configuration file (httpd.conf, apache2.conf), or a directory with one at its
    /// top (as `check` takes it). A file that a main configuration above it includes (a
    /// sites-enabled fragment, even one that loads modules or is named httpd.conf) is refused
    /// (exit 2), naming that configuration: httpd reads a fragment only with the rest of it. So is
    /// an .htaccess file. Any other file that does not look like a main configuration is
    /// explained as a whole server on its own, with a note saying so.
    pub config: PathBuf,
    /// The request: a URL path (/server-status), or an absolute URL
    /// (http://www.example.test:8080/server-status) whose host replaces --host, as httpd
    /// takes an absolute request's host over its Host header, and whose port, when written,
    /// is the port the client connected to (it picks among virtual hosts by port).
    // (The text is the command's help: the URL stays as a user types it.)
    #[allow(rustdoc::bare_urls)]
    #[arg(required_unless_present_any = ["log_line", "log_file"], conflicts_with_all = ["log_line", "log_file"])]
    pub url: Option<String>,
    /// Explain an error-log line instead of a URL: the requests that reach the path it names
    /// and the rule that refused them (2.4 and 2.2 formats).
    #[arg(long, value_name = "LINE", conflicts_with = "log_file")]
    pub log_line: Option<String>,
    /// Summarise the refusals of an error log: how many requests each rule refused, and the
    /// entries that could not be mapped.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// The client's address.
    #[arg(long, default_value = "127.0.0.1")]
    pub client: std::net::IpAddr,
    /// The server address the client connected to (for `Require local`); defaults
    /// to 127.0.0.1 for IPv4 loopback clients, ::1 for IPv6 ones, else the client's own.
    #[arg(long)]
    pub server_addr: Option<std::net::IpAddr>,
    /// The port the client connected to (it picks the virtual hosts that can serve the
    /// request, as the address does). Defaults to the URL's port, else to the port of the
    /// configuration's Listen directives when they name one.
    #[arg(long)]
    pub port: Option<u16>,
    /// The request carries valid credentials for this user.
    #[arg(long)]
    pub user: Option<String>,
    /// The request carries credentials that are wrong.
    #[arg(long, conflicts_with = "user")]
    pub wrong_password: bool,
    /// The Host header: picks the virtual host by ServerName/ServerAlias (as does a
    /// `--header "Host: NAME"`, which must then agree with it).
    #[arg(long)]
    pub host: Option<String>,
    #[arg(long, default_value = "GET")]
    pub method: String,
    /// An environment variable at access-check time, VAR=VALUE (or !VAR: absent). It
    /// overrides what SetEnvIf/BrowserMatch lines make of the request, which are evaluated
    /// otherwise.
    #[arg(long = "env", value_name = "VAR=VALUE")]
    pub env: Vec<String>,
    /// A request header NAME:VALUE (for SetEnvIf/BrowserMatch, `<If>`; `Host:` picks the
    /// virtual host, as --host does); repeatable. Headers not given are unknown, unless
    /// --only-headers.
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub header: Vec<String>,
    /// The request carries no header besides those of --header (and Host, from --host).
    #[arg(long)]
    pub only_headers: bool,
    /// The client's double-reverse-resolved host name, for host rules.
    #[arg(long)]
    pub client_host: Option<String>,
    /// Never resolve the client's address: host rules then give an unknown outcome.
    /// (Without it, explain resolves the address with the system resolver, only when
    /// a host rule is reached. Nothing else in apache-lsp touches the network.)
    #[arg(long)]
    pub no_dns: bool,
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    pub format: ExplainFormat,
}

impl ExplainArgs {
    /// A plain GET from `client` with no credentials (for the editor command).
    pub fn for_request(config: &Path, url: &str, client: &str) -> ExplainArgs {
        ExplainArgs {
            config: config.to_path_buf(),
            url: Some(url.to_string()),
            log_line: None,
            log_file: None,
            client: client.parse().unwrap_or(std::net::IpAddr::from([127, 0, 0, 1])),
            server_addr: None,
            port: None,
            user: None,
            wrong_password: false,
            host: None,
            method: "GET".into(),
            env: vec![],
            header: vec![],
            only_headers: false,
            client_host: None,
            no_dns: true,
            format: ExplainFormat::Text,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    Text,
    Json,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

/// One reported diagnostic, with 1-based positions, owning its texts (what [`check_paths`]
/// returns).
pub type Reported = Finding<String>;

pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information => "information",
        Severity::Hint => "hint",
    }
}

/// Where a directory holds its main configuration, as `check`, `explain` and `migrate` look.
const MAIN_NAMES: [&str; 3] = ["apache2.conf", "httpd.conf", "conf/httpd.conf"];

/// The configurations to load for the given paths: (path, is_main). Each path is made absolute
/// (against the working directory, as the loader reads it; `..` and symbolic links are kept),
/// so that a file named relatively is the same file as when a configuration reaches it: an
/// .htaccess file read alone is judged under its own directory, and one given beside its main
/// configuration is not read twice.
pub fn targets(paths: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>, String> {
    let mut out = Vec::new();
    for given in paths {
        let meta = std::fs::metadata(given).map_err(|e| format!("{}: {e}", given.display()))?;
        let absolute = absolute_path(given).map_err(|e| format!("{}: {e}", given.display()))?;
        let p = &absolute;
        if meta.is_dir() {
            if let Some(main) = MAIN_NAMES.iter().map(|n| p.join(n)).find(|m| m.is_file()) {
                out.push((main, true));
            } else {
                let mut files = Vec::new();
                walk_configs(p, &mut files, &mut std::collections::HashSet::new())?;
                files.sort();
                out.extend(files.into_iter().map(|f| (f, false)));
            }
        } else {
            // Checked without opening it: opening a FIFO would wait for a writer.
            if !meta.is_file() {
                return Err(format!("{}: not a regular file ({})", given.display(), config::file_kind(&meta)));
            }
            std::fs::File::open(p).map_err(|e| format!("{}: {e}", given.display()))?;
            // A file that loads modules, or is named httpd.conf, is still a fragment of a main
            // configuration above that includes it (Red Hat's `conf.d/wsgi.conf`, the
            // `httpd.conf` Debian's apache2.conf once included beside it).
            let main = crate::server::looks_like_main(p, &config::RealFs) && including_main_above(p).is_none();
            out.push((p.clone(), main));
        }
    }
    Ok(out)
}

/// The main configuration to explain a request through, from what `explain` was given: a
/// directory is read through the apache2.conf/httpd.conf at its top (as `check` reads it); a
/// file that a main configuration in a directory above includes (a `sites-enabled` fragment,
/// whatever its name or content) is refused, naming that configuration, since httpd reads the
/// fragment only with everything around it (as `migrate` proves nothing in a fragment read
/// alone); so is an access file, which httpd reads per directory.
pub fn explained_config(given: &Path) -> Result<PathBuf, String> {
    let meta = std::fs::metadata(given).map_err(|e| format!("cannot read {}: {e}", given.display()))?;
    if meta.is_dir() {
        return MAIN_NAMES.iter().map(|n| given.join(n)).find(|m| m.is_file()).ok_or_else(|| {
            format!(
                "{} is a directory without apache2.conf, httpd.conf or conf/httpd.conf at its top: give the main \
                 configuration file",
                given.display()
            )
        });
    }
    // An .htaccess file is read per directory, by the server that serves the directory.
    if ide::workspace::is_access_file(given) {
        return Err(format!(
            "{} is an access file: httpd reads it for the directory it lies in, under the server that serves \
             that directory, so explain the request through that server's main configuration",
            given.display()
        ));
    }
    absolute_path(given).map_err(|e| format!("{}: {e}", given.display()))?;
    // (A file that loads modules or is named httpd.conf may still be one: Red Hat's
    // `conf.d/wsgi.conf`, Debian's old `Include httpd.conf`.)
    if let Some(main) = including_main_above(given) {
        return Err(format!(
            "{} is a fragment of {}, which includes it: httpd reads it only with the rest of that \
             configuration, so explain the request through that one (apache-lsp explain {} …)",
            given.display(),
            main.display(),
            main.display()
        ));
    }
    Ok(given.to_path_buf())
}

/// The main configuration in a directory above `given` (its `apache2.conf`, `httpd.conf` or
/// `conf/httpd.conf`) that includes it, where one does.
fn including_main_above(given: &Path) -> Option<PathBuf> {
    let absolute = absolute_path(given).ok()?;
    // (Not the file itself under another name: a link to the main configuration is that one.)
    let real = std::fs::canonicalize(&absolute).ok();
    let above = absolute.ancestors().skip(1).flat_map(|dir| MAIN_NAMES.iter().map(move |n| dir.join(n)));
    let mut mains = above.filter(|m| m.is_file() && *m != absolute && std::fs::canonicalize(m).ok() != real);
    mains.find(|main| ide::workspace::find_file(&config::load(main, &config::RealFs), &absolute).is_some())
}

/// `path` made absolute against the working directory. A path with `..` in it is resolved
/// through the file system (its directory canonicalised, since `..` after a symbolic link leads
/// to the link target's parent), so that it names the file as the configuration's own paths do;
/// other paths keep their symbolic links and are only joined to the working directory.
fn absolute_path(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    if !absolute.components().any(|c| c == std::path::Component::ParentDir) {
        return Ok(absolute);
    }
    match (absolute.parent(), absolute.file_name()) {
        (Some(dir), Some(name)) => Ok(std::fs::canonicalize(dir)?.join(name)),
        // Ends in `..`: a directory.
        _ => std::fs::canonicalize(&absolute),
    }
}

/// Configuration files below `dir`. Each directory is visited once, however many
/// symbolic links lead to it, so link loops end.
fn walk_configs(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    seen: &mut std::collections::HashSet<PathBuf>,
) -> Result<(), String> {
    let real = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !seen.insert(real) {
        return Ok(());
    }
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read directory {}: {e}", dir.display()))?;
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk_configs(&p, out, seen)?;
        } else {
            let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            if name.ends_with(".conf") || name.contains("htaccess") {
                out.push(p);
            }
        }
    }
    Ok(())
}

/// Diagnostics of every file reachable from `paths`, deduplicated.
pub fn check_paths(paths: &[PathBuf]) -> Result<Vec<Reported>, String> {
    let mut out = Vec::new();
    let result = each_finding(&targets(paths)?, false, &mut |f| {
        out.push(f.to_owned());
        Ok(())
    });
    // Collecting into memory cannot fail.
    debug_assert!(result.is_ok());
    Ok(out)
}

/// One finding as the report gives it, with 1-based positions: its texts are borrowed from the
/// analysis while the report streams (`Finding<&str>`), owned when kept ([`Reported`]).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Finding<S> {
    pub file: S,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: &'static str,
    pub code: &'static str,
    pub message: S,
}

impl<S: AsRef<str>> Finding<S> {
    /// The same finding with its texts made by `f`.
    fn map<'a, T>(&'a self, f: impl Fn(&'a str) -> T) -> Finding<T> {
        Finding {
            file: f(self.file.as_ref()),
            line: self.line,
            column: self.column,
            end_line: self.end_line,
            end_column: self.end_column,
            severity: self.severity,
            code: self.code,
            message: f(self.message.as_ref()),
        }
    }

    pub fn to_owned(&self) -> Reported {
        self.map(str::to_owned)
    }

    pub fn as_finding(&self) -> Finding<&str> {
        self.map(|s| s)
    }
}

/// Gives `emit` the diagnostics of every target, in order, each once: a finding is the
/// same as an earlier one when its file name, line, column, code and message are (the
/// first is kept). With `leak`, the loaded configurations are never freed (the command
/// line's process ends right after: freeing a big tree node by node costs more than
/// building it). Stops at `emit`'s first error.
fn each_finding(
    targets: &[(PathBuf, bool)],
    leak: bool,
    emit: &mut dyn FnMut(&Finding<&str>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // (Fx: the names are hashed once per file of a tree of thousands.)
    use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
    // Findings kept so far by file name, for the names whose findings can meet again:
    // those of several files of one configuration (one file included under two paths
    // that print alike) and, with several targets, every one.
    let mut kept: HashMap<String, HashSet<FindingKey>> = HashMap::default();
    // An .htaccess file named beside a main configuration that serves its directory is read
    // as httpd reads it, under that configuration, and not again on its own: such targets
    // come after the main ones, and are skipped when one of those read them.
    let any_main = targets.iter().any(|(_, main)| *main);
    let later = |(p, main): &&(PathBuf, bool)| any_main && !*main && config::is_htaccess(p);
    let mut read_in_context: HashSet<PathBuf> = HashSet::default();
    let order = targets.iter().filter(|t| !later(t)).chain(targets.iter().filter(later));
    for (path, main) in order {
        if read_in_context.contains(path) {
            continue;
        }
        // Diagnostics need no syntax tree once the nodes are built.
        let phases = Phases::new();
        let cfg = config::load_for_batch(path, &config::RealFs, *main);
        phases.mark("load");
        // The .htaccess files of the directories a main configuration serves: found before the
        // check that reads them (the precedence check asks whether theirs re-open access), while
        // the others run. Where each finding starts and ends, as the report prints it, is found
        // by the check's worker.
        let (htaccess, diagnostics) = ide::diagnostics::in_order_after(
            &cfg,
            |cfg| {
                let found = if *main { ide::htaccess_files::htaccess_files(cfg) } else { Vec::new() };
                phases.mark("scan");
                found
            },
            |htaccess: &Vec<ide::htaccess_files::Found>| {
                let paths: std::sync::Arc<[std::path::PathBuf]> = htaccess.iter().map(|f| f.path.clone()).collect();
                (!paths.is_empty()).then(|| std::sync::Arc::new(config::HtaccessFound { paths, open: Vec::new() }))
            },
            |cfg, d| reported_span(cfg.file(d.file), d),
        );
        phases.mark("diagnostics");
        report_config(&cfg, diagnostics, targets.len() > 1, &mut kept, emit)?;
        phases.mark("report");
        // The .htaccess files of the directories a main configuration serves, read as httpd
        // reads them under it, for each server whose requests read them (those no server
        // reads say so; the list is empty unless the configuration is a main one).
        if !htaccess.is_empty() {
            use rayon::prelude::*;
            /// Files checked side by side before their findings are reported in order (each
            /// file's checks are small: run one by one, their set-up outweighs their work).
            const BATCH: usize = 256;
            let root = std::sync::Arc::new(cfg);
            read_in_context.extend(htaccess.iter().map(|found| found.path.clone()));
            let mut htaccess = htaccess.into_iter().peekable();
            while htaccess.peek().is_some() {
                let batch: Vec<_> = htaccess.by_ref().take(BATCH).collect();
                let checked: Vec<_> = batch
                    .into_par_iter()
                    .map(|found| {
                        // Checked under the AllowOverride of each server that reads it.
                        let mut h = config::load_in_context(&found.path, &config::RealFs, root.clone());
                        h.htaccess_servers = Some(found.servers.into());
                        let diagnostics: Vec<_> =
                            ide::diagnostics::in_order_with(&h, |d| reported_span(h.file(d.file), d)).collect();
                        (h, diagnostics)
                    })
                    .collect();
                for (h, diagnostics) in checked {
                    report_config(&h, diagnostics.into_iter(), true, &mut kept, emit)?;
                }
            }
            phases.mark("htaccess");
            if leak {
                std::mem::forget(root);
            }
            continue;
        }
        if leak {
            std::mem::forget(cfg);
        }
    }
    Ok(())
}

/// Where the report says a finding starts and ends (1-based lines and columns). An error on a
/// line continued with backslashes starts where httpd's own error would point: at the first
/// column of the logical line's last physical line (httpd has read them all when it reports);
/// it ends where the finding ends, or at the end of that line when the finding ends before it.
/// Warnings and notes, which httpd does not report, keep the finding's own start, as does the
/// editor's range of every finding.
fn reported_span(f: &config::FileData, d: &ide::diagnostics::Diagnostic) -> ((u32, u32), (u32, u32)) {
    let (mut start, mut end) = (d.range.start(), d.range.end());
    if d.severity == Severity::Error {
        let line = f.reported_line_start(start);
        if line > start {
            start = line;
            if end < start {
                let rest = &f.text[usize::from(start)..];
                let content = rest.find('\n').map_or(rest, |nl| rest[..nl].strip_suffix('\r').unwrap_or(&rest[..nl]));
                end = start + apache_syntax::TextSize::of(content);
            }
        }
    }
    (f.line_index.human(start, &f.text), f.line_index.human(end, &f.text))
}

/// A finding as twins are told apart: line, column, code and (shared) message.
type FindingKey = (u32, u32, &'static str, std::sync::Arc<str>);

/// Reports the findings of one loaded configuration, in order; `several` when other
/// configurations are reported in the same run (a file's findings may then meet again, and
/// twins are told apart across them through `kept`).
fn report_config(
    cfg: &config::Config,
    diagnostics: impl Iterator<Item = (ide::diagnostics::Diagnostic, ((u32, u32), (u32, u32)))>,
    several: bool,
    kept: &mut rustc_hash::FxHashMap<String, rustc_hash::FxHashSet<FindingKey>>,
    emit: &mut dyn FnMut(&Finding<&str>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use rustc_hash::FxHashMap as HashMap;
    {
        let names: Vec<String> = cfg.files.iter().map(|f| f.path.display().to_string()).collect();
        let mut files_named: HashMap<&str, u32> = HashMap::with_capacity_and_hasher(names.len(), Default::default());
        for n in &names {
            *files_named.entry(n.as_str()).or_default() += 1;
        }
        // Sorted by file, position, code and message: one file after the other, and a
        // finding's twins (same line and column) next to it. Each is dropped once reported.
        let mut rest = diagnostics.peekable();
        while let Some(file) = rest.peek().map(|(d, _)| d.file) {
            let name = &names[file];
            let remember = several || files_named[name.as_str()] > 1;
            let mut seen = remember.then(|| kept.remove(name).unwrap_or_default());
            // The findings already reported at the current line and column.
            let mut here: Vec<ide::diagnostics::Diagnostic> = Vec::new();
            let mut at = (0, 0);
            while let Some((d, ((line, column), (end_line, end_column)))) = rest.next_if(|(d, _)| d.file == file) {
                if (line, column) != at {
                    here.clear();
                    at = (line, column);
                }
                let twin = match &mut seen {
                    Some(seen) => !seen.insert((line, column, d.code, d.message.clone())),
                    None => here.iter().any(|k| k.code == d.code && k.message == d.message),
                };
                if twin {
                    continue;
                }
                emit(&Finding {
                    file: name,
                    line,
                    column,
                    end_line,
                    end_column,
                    severity: severity_name(d.severity),
                    code: d.code,
                    message: &d.message,
                })?;
                if seen.is_none() {
                    here.push(d);
                }
            }
            if let Some(seen) = seen {
                kept.insert(name.clone(), seen);
            }
        }
    }
    Ok(())
}

/// With `APACHE_LSP_PHASES` set, `check` prints to stderr the time and resident memory
/// after each phase (for profiling; the report itself is unchanged).
struct Phases(Option<std::time::Instant>);

impl Phases {
    fn new() -> Phases {
        Phases(std::env::var_os("APACHE_LSP_PHASES").map(|_| std::time::Instant::now()))
    }
    fn mark(&self, what: &str) {
        if let Some(t) = self.0 {
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let field = |name: &str| {
                status
                    .lines()
                    .find(|l| l.starts_with(name))
                    .map(|l| l[name.len()..].trim().to_string())
                    .unwrap_or_default()
            };
            // CPU time of every thread so far: beside the wall time, how busy the cores were.
            // SAFETY: getrusage fills the zeroed struct it is given and keeps no pointer.
            let cpu = unsafe {
                let mut u: libc::rusage = std::mem::zeroed();
                libc::getrusage(libc::RUSAGE_SELF, &mut u);
                let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
                secs(u.ru_utime) + secs(u.ru_stime)
            };
            eprintln!(
                "phase {what:<12} {:>8.1} ms  cpu {:>8.1} ms  rss {}  peak {}",
                t.elapsed().as_secs_f64() * 1e3,
                cpu * 1e3,
                field("VmRSS:"),
                field("VmHWM:")
            );
        }
    }
}

pub fn render(reported: &[Reported], format: Format) -> String {
    let mut r = Renderer::new(Vec::new(), format);
    // Writing to a Vec cannot fail.
    let _ = reported.iter().try_for_each(|f| r.add(&f.as_finding()));
    String::from_utf8(r.finish().unwrap_or_default()).unwrap_or_default()
}

/// A report written as its findings come (the report of a big tree is tens of
/// megabytes): the same text as rendering them all at once. After the reader went
/// away (a closed pipe, `| head`), findings are still counted but no longer written.
pub struct Renderer<W: std::io::Write> {
    w: W,
    format: Format,
    count: usize,
    errors: usize,
    warnings: usize,
    closed: bool,
    /// SARIF: the document around its results (before, indentation of a result, after).
    sarif: Option<(String, String, String)>,
    scratch: Vec<u8>,
}

impl<W: std::io::Write> Renderer<W> {
    pub fn new(w: W, format: Format) -> Self {
        Renderer { w, format, count: 0, errors: 0, warnings: 0, closed: false, sarif: None, scratch: Vec::new() }
    }

    /// Whether something of severity warning or above was reported.
    pub fn found_problems(&self) -> bool {
        self.errors + self.warnings > 0
    }

    pub fn add(&mut self, f: &Finding<&str>) -> std::io::Result<()> {
        match f.severity {
            "error" => self.errors += 1,
            "warning" => self.warnings += 1,
            _ => {}
        }
        self.count += 1;
        if self.closed {
            return Ok(());
        }
        let written = self.write_finding(f);
        self.check(written)
    }

    /// Writes what follows the last finding and flushes; gives back the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        if !self.closed {
            let written = self.write_end().and_then(|()| self.w.flush());
            self.check(written)?;
        }
        Ok(self.w)
    }

    fn check(&mut self, written: std::io::Result<()>) -> std::io::Result<()> {
        match written {
            // A closed pipe is the reader's choice, not a failure to report.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }

    fn write_finding(&mut self, f: &Finding<&str>) -> std::io::Result<()> {
        let w = &mut self.w;
        match self.format {
            Format::Text => {
                let mut n = itoa::Buffer::new();
                w.write_all(f.file.as_bytes())?;
                w.write_all(b":")?;
                w.write_all(n.format(f.line).as_bytes())?;
                w.write_all(b":")?;
                w.write_all(n.format(f.column).as_bytes())?;
                for part in [": ", f.severity, "[", f.code, "]: ", f.message, "\n"] {
                    w.write_all(part.as_bytes())?;
                }
                Ok(())
            }
            Format::Json => {
                // serde_json's pretty layout of `[Reported]`, field by field.
                w.write_all(if self.count == 1 { b"[\n  {\n    \"file\": " } else { b",\n  {\n    \"file\": " })?;
                json_str(w, f.file)?;
                // Numbers through itoa: `write!` spent a thousand instructions per finding.
                let mut n = itoa::Buffer::new();
                for (key, v) in [
                    (",\n    \"line\": ", f.line),
                    (",\n    \"column\": ", f.column),
                    (",\n    \"end_line\": ", f.end_line),
                    (",\n    \"end_column\": ", f.end_column),
                ] {
                    w.write_all(key.as_bytes())?;
                    w.write_all(n.format(v).as_bytes())?;
                }
                w.write_all(b",\n    \"severity\": ")?;
                json_str(w, f.severity)?;
                w.write_all(b",\n    \"code\": ")?;
                json_str(w, f.code)?;
                w.write_all(b",\n    \"message\": ")?;
                json_str(w, f.message)?;
                w.write_all(b"\n  }")
            }
            Format::Sarif => {
                if self.sarif.is_none() {
                    self.sarif = Some(sarif_frame());
                }
                let (before, indent, _) = self.sarif.as_ref().expect("set above");
                if self.count == 1 {
                    w.write_all(before.as_bytes())?;
                } else {
                    w.write_all(b",\n")?;
                    w.write_all(indent.as_bytes())?;
                }
                self.scratch.clear();
                serde_json::to_writer_pretty(&mut self.scratch, &sarif_result(f)).map_err(std::io::Error::other)?;
                // Each line of the result at the results' depth (strings hold no line breaks).
                for (i, line) in self.scratch.split(|&b| b == b'\n').enumerate() {
                    if i > 0 {
                        w.write_all(b"\n")?;
                        w.write_all(indent.as_bytes())?;
                    }
                    w.write_all(line)?;
                }
                Ok(())
            }
        }
    }

    fn write_end(&mut self) -> std::io::Result<()> {
        let w = &mut self.w;
        match self.format {
            Format::Text => writeln!(w, "{} error(s), {} warning(s)", self.errors, self.warnings),
            Format::Json => w.write_all(if self.count == 0 { b"[]\n" } else { b"\n]\n" }),
            Format::Sarif => match &self.sarif {
                Some((_, _, after)) => {
                    w.write_all(after.as_bytes())?;
                    writeln!(w)
                }
                None => {
                    serde_json::to_writer_pretty(&mut *w, &sarif_document(vec![])).map_err(std::io::Error::other)?;
                    writeln!(w)
                }
            },
        }
    }
}

/// `s` as a JSON string, escaped as serde_json escapes it.
fn json_str(w: &mut impl std::io::Write, s: &str) -> std::io::Result<()> {
    if needs_escape(s.as_bytes()) {
        return serde_json::to_writer(w, s).map_err(std::io::Error::other);
    }
    w.write_all(b"\"")?;
    w.write_all(s.as_bytes())?;
    w.write_all(b"\"")
}

/// Whether JSON needs some byte of `b` escaped: a control character, `"` or `\\`.
/// Eight bytes at a time (this runs over every byte of a report of tens of megabytes).
fn needs_escape(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero, or less than `n`: the exact tests of "Bit Twiddling Hacks".
    let less_than = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS != 0;
    let zero = |x: u64| less_than(x, 1);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if less_than(x, 0x20) || zero(x ^ (ONES * u64::from(b'"'))) || zero(x ^ (ONES * u64::from(b'\\'))) {
            return true;
        }
    }
    chunks.remainder().iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\')
}

fn sarif_result(r: &Finding<&str>) -> serde_json::Value {
    serde_json::json!({
        "ruleId": r.code,
        "level": match r.severity { "error" => "error", "warning" => "warning", _ => "note" },
        "message": { "text": r.message },
        "locations": [{ "physicalLocation": {
            "artifactLocation": { "uri": format!("file://{}", r.file) },
            "region": { "startLine": r.line, "startColumn": r.column, "endLine": r.end_line, "endColumn": r.end_column }
        }}]
    })
}

fn sarif_document(results: Vec<serde_json::Value>) -> serde_json::Value {
    serde_json::json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": { "driver": { "name": "apache-lsp", "version": env!("CARGO_PKG_VERSION"), "informationUri": "https://httpd.apache.org/docs/2.4/" } },
            "results": results
        }]
    })
}

/// The SARIF document with one result, cut around it: the text before the first result
/// (ending with its indentation), the indentation, and the text after the last result.
fn sarif_frame() -> (String, String, String) {
    const MARK: &str = "\u{1}result";
    let text = serde_json::to_string_pretty(&sarif_document(vec![serde_json::json!(MARK)])).unwrap_or_default();
    let quoted = serde_json::to_string(MARK).unwrap_or_default();
    let at = text.find(&quoted).unwrap_or(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = (at + quoted.len()).min(text.len());
    (text[..at].to_string(), text[line_start..at].to_string(), text[end..].to_string())
}

/// Builds the request an `explain` invocation describes.
pub fn request_spec(a: &ExplainArgs, cfg: &config::Config) -> Result<ide::access::RequestSpec, String> {
    use ide::policy::{EnvKnowledge, EnvVar, HostKnowledge, Request};
    let local = a.server_addr.unwrap_or(match a.client {
        std::net::IpAddr::V4(v) if v.is_loopback() => std::net::IpAddr::from([127, 0, 0, 1]),
        std::net::IpAddr::V6(v) if v.is_loopback() => std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        other => other,
    });
    let mut req = Request::new(&a.method, a.client, local);
    req.user = a.user.clone();
    req.bad_credentials = a.wrong_password;
    // What SetEnvIf makes of the request replaces this when it is evaluated
    // ([`request_inputs`]); the --env values stay either way.
    let mut env = EnvKnowledge::default();
    for (k, v) in env_overrides(a)? {
        env.vars.insert(k, v.map(EnvVar::Set).unwrap_or(EnvVar::Absent));
    }
    req.env = env;
    req.client_host = match (&a.client_host, a.no_dns) {
        (Some(h), _) => HostKnowledge::Known(h.clone()),
        (None, true) => HostKnowledge::Unknown,
        (None, false) if needs_host_name(cfg) => resolve_double_reverse(a.client),
        (None, false) => HostKnowledge::Unknown,
    };
    // The AuthUserFile and AuthGroupFile in force, as httpd opens them for the request.
    req.auth_files_from_disk = true;
    req.check_user_listed = true;
    let target = RequestTarget::parse(a.url.as_deref().unwrap_or("/"))?;
    // The connection's port: given, else the absolute URL's, else the one Listen names.
    req.local_port = a.port.or(target.port).or_else(|| ide::explain::listen_port(cfg).ok());
    let host = host_header(a, &target)?;
    Ok(ide::access::RequestSpec { path: target.path, host, request: req })
}

/// The request as explain's URL argument gives it.
#[derive(Debug, PartialEq)]
struct RequestTarget {
    /// From the first `/` on (query and fragment included: the walk drops them).
    path: String,
    /// An absolute URL's host and port as written (`www.example.test:8080`, `[::1]`).
    authority: Option<String>,
    /// An absolute URL's port, when written.
    port: Option<u16>,
}

impl RequestTarget {
    /// A path (`/x`), or an absolute `http://` or `https://` URL, parsed as httpd's
    /// `ap_parse_uri` reads a request line's target (an empty path read as `/`). Anything
    /// else is refused with the reason: httpd answers 400 to a target that is neither, and to
    /// one naming a user.
    fn parse(url: &str) -> Result<RequestTarget, String> {
        let bad = |why: &str| format!("URL {url:?}: {why} (a path such as /server-status, or http://HOST[:PORT]/PATH)");
        if url.starts_with('/') {
            // A target that is a path loses its leading run of slashes but one before httpd
            // parses it as a URI (`ap_parse_uri`): `//a/x` is the request for `/a/x` from the
            // first hook on (server-level SetEnvIf sees that), unlike an absolute URL's path.
            let path = format!("/{}", url.trim_start_matches('/'));
            return Ok(RequestTarget { path, authority: None, port: None });
        }
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(bad("neither a path nor an absolute URL"));
        };
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return Err(bad("only http and https URLs name a request to httpd"));
        }
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        if authority.contains('@') {
            return Err(bad("httpd answers 400 to a request naming a user (user@host)"));
        }
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => match v6.split_once(']') {
                Some((addr, port)) => (addr, port.strip_prefix(':')),
                None => return Err(bad("unclosed [ in the host")),
            },
            None => match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            },
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        let port = match port.filter(|p| !p.is_empty()) {
            Some(p) => Some(p.parse::<u16>().map_err(|_| bad("the port is not a number from 0 to 65535"))?),
            None => None,
        };
        let path = if path.starts_with('/') { path.to_string() } else { format!("/{path}") };
        Ok(RequestTarget { path, authority: Some(authority.to_string()), port })
    }
}

/// The Host header httpd goes by: an absolute URL's host and port (httpd replaces the
/// header with them, `ap_update_vhost_from_headers`), else the request's Host header, given
/// with --host or `--header "Host: NAME"` (the two must agree, and the header be given once).
fn host_header(a: &ExplainArgs, target: &RequestTarget) -> Result<Option<String>, String> {
    let headers: Vec<&str> = a
        .header
        .iter()
        .filter_map(|h| h.split_once(':'))
        .filter(|(n, _)| n.trim().eq_ignore_ascii_case("Host"))
        .map(|(_, v)| v.trim())
        .collect();
    if headers.len() > 1 {
        return Err(format!(
            "--header gives the Host header {} times ({}): a request carries one, give it once",
            headers.len(),
            headers.join(", ")
        ));
    }
    let header = headers.first().map(|h| h.to_string());
    if let (Some(h), Some(given)) = (&a.host, &header) {
        if !h.eq_ignore_ascii_case(given) {
            return Err(format!(
                "--host {h} and --header \"Host: {given}\" name two hosts: a request carries one Host header, give \
                 one of them"
            ));
        }
    }
    Ok(target.authority.clone().or_else(|| a.host.clone()).or(header))
}

/// `--env` values: VAR=VALUE sets, !VAR unsets.
fn env_overrides(a: &ExplainArgs) -> Result<Vec<(String, Option<String>)>, String> {
    a.env
        .iter()
        .map(|kv| {
            let (k, v) = match kv.strip_prefix('!') {
                Some(k) => (k, None),
                None => match kv.split_once('=') {
                    Some((k, v)) => (k, Some(v.to_string())),
                    None => (kv.as_str(), Some(String::new())),
                },
            };
            if k.is_empty() {
                return Err(format!("--env {kv:?}: expected VAR=VALUE or !VAR"));
            }
            Ok((k.to_string(), v))
        })
        .collect()
}

/// The headers, protocol and --env values SetEnvIf is evaluated with.
pub fn request_inputs(a: &ExplainArgs) -> Result<ide::setenvif::EnvInputs, String> {
    let mut headers = Vec::new();
    let target = RequestTarget::parse(a.url.as_deref().unwrap_or("/"))?;
    if let Some(h) = host_header(a, &target)? {
        headers.push(("Host".to_string(), h));
    }
    for h in &a.header {
        let (n, v) = h.split_once(':').ok_or_else(|| format!("--header {h:?}: expected NAME:VALUE"))?;
        let n = n.trim();
        if n.is_empty() || n.contains(char::is_whitespace) {
            return Err(format!("--header {h:?}: expected NAME:VALUE"));
        }
        // (The Host header is the one host_header gives, first.)
        if !n.eq_ignore_ascii_case("Host") {
            headers.push((n.to_string(), v.trim().to_string()));
        }
    }
    Ok(ide::setenvif::EnvInputs {
        headers,
        headers_complete: a.only_headers,
        protocol: "HTTP/1.1".into(),
        overrides: env_overrides(a)?,
        inherited: vec![],
    })
}

/// Whether something in the configuration may need the client's host name: a host rule
/// (`Require host`, `Allow/Deny from` a name) or HostnameLookups (SetEnvIf Remote_Host).
fn needs_host_name(cfg: &config::Config) -> bool {
    cfg.walk().any(names_host)
}

/// Whether an explanation made without the client's host name walked an .htaccess file with a
/// rule that reads it (the server configuration had none, [`needs_host_name`]): httpd resolves
/// the name there as it does for the same rule in the server configuration.
fn htaccess_needs_host_name(e: &ide::access::Effective) -> bool {
    e.sections.iter().filter(|s| s.kind == ".htaccess").any(|s| {
        let cfg = config::load_fragment(&s.path, &config::RealFs);
        needs_host_name(&cfg)
    })
}

/// Whether `n` is a rule that reads the client's host name (`Require host`, `Allow`/`Deny from`
/// a name or domain, `HostnameLookups` on).
fn names_host(n: &config::Node) -> bool {
    let words = |skip: usize| n.args().skip(skip);
    if n.is("Require") {
        words(0).find(|w| !w.eq_ignore_ascii_case("not")).is_some_and(|p| p.eq_ignore_ascii_case("host"))
    } else if n.is("Allow") || n.is("Deny") {
        words(1).any(|w| {
            !(w.eq_ignore_ascii_case("all")
                || w.to_ascii_lowercase().starts_with("env=")
                || ide::policy::IpSubnet::parse_word(w).is_ok())
        })
    } else {
        n.is("HostnameLookups") && n.args().first().is_some_and(|a| !a.eq_ignore_ascii_case("off"))
    }
}

/// httpd's double-reverse lookup of a client address (`REMOTE_DOUBLE_REV`,
/// `server/core.c: ap_get_remote_host`): reverse (the name lowercased), then forward; the name
/// counts only if the forward answer holds the address. Uses the system resolver (NSS) through
/// getnameinfo and getaddrinfo, as httpd does; nothing is executed.
pub fn resolve_double_reverse(ip: std::net::IpAddr) -> ide::policy::HostKnowledge {
    use ide::policy::HostKnowledge;
    use std::net::ToSocketAddrs;
    let name = match reverse_lookup(ip) {
        Ok(Some(name)) => name.to_ascii_lowercase(),
        Ok(None) => return HostKnowledge::NoName,
        Err(()) => return HostKnowledge::Unknown,
    };
    let confirmed = match (name.as_str(), 0u16).to_socket_addrs() {
        Ok(mut addrs) => addrs.any(|a| a.ip() == ip),
        Err(_) => false,
    };
    if confirmed {
        HostKnowledge::Known(name)
    } else {
        HostKnowledge::NoName
    }
}

/// The name the resolver gives an address (getnameinfo with NI_NAMEREQD): `Ok(None)` when it has
/// none, `Err` when the resolver failed for another reason (the answer is then unknown).
fn reverse_lookup(ip: std::net::IpAddr) -> Result<Option<String>, ()> {
    // SAFETY: sockaddr_storage is plain data, valid when zeroed; it is large enough for either
    // family, and only the family's own struct is written into it.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match ip {
        std::net::IpAddr::V4(v4) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: 0,
                sin_addr: libc::in_addr { s_addr: u32::from_ne_bytes(v4.octets()) },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_in fits in sockaddr_storage, which is aligned for it.
            unsafe { std::ptr::write(&mut storage as *mut _ as *mut libc::sockaddr_in, sin) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        std::net::IpAddr::V6(v6) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: 0,
                sin6_flowinfo: 0,
                sin6_addr: libc::in6_addr { s6_addr: v6.octets() },
                sin6_scope_id: 0,
            };
            // SAFETY: sockaddr_in6 fits in sockaddr_storage, which is aligned for it.
            unsafe { std::ptr::write(&mut storage as *mut _ as *mut libc::sockaddr_in6, sin6) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    let mut host = [0 as libc::c_char; 1025]; // NI_MAXHOST
                                              // SAFETY: the address points at `len` initialised bytes; `host` is writable for its length and
                                              // getnameinfo NUL-terminates what it writes; no service buffer is asked for.
    let rc = unsafe {
        libc::getnameinfo(
            &storage as *const _ as *const libc::sockaddr,
            len as libc::socklen_t,
            host.as_mut_ptr(),
            host.len() as libc::socklen_t,
            std::ptr::null_mut(),
            0,
            libc::NI_NAMEREQD,
        )
    };
    match rc {
        0 => {
            // SAFETY: on success `host` holds a NUL-terminated string.
            let name = unsafe { std::ffi::CStr::from_ptr(host.as_ptr()) };
            Ok(Some(name.to_string_lossy().into_owned()))
        }
        libc::EAI_NONAME => Ok(None),
        _ => Err(()),
    }
}

/// `explain --log-line` / `--log-file`: the CLI reads the file, the analysis maps entries.
fn explain_log(a: &ExplainArgs, cfg: &config::Config, base: &ide::policy::Request) -> i32 {
    use ide::policy::HostKnowledge;
    let cache = std::cell::RefCell::new(std::collections::HashMap::new());
    let lookups = !a.no_dns && a.client_host.is_none() && needs_host_name(cfg);
    let resolve = |ip: std::net::IpAddr| -> HostKnowledge {
        if let Some(h) = &a.client_host {
            return HostKnowledge::Known(h.clone());
        }
        if !lookups {
            return HostKnowledge::Unknown;
        }
        cache.borrow_mut().entry(ip).or_insert_with(|| resolve_double_reverse(ip)).clone()
    };
    let print_json = |v: serde_json::Value| println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    if let Some(text) = &a.log_line {
        let Some(line) = ide::error_log::parse_line(text) else {
            eprintln!("apache-lsp explain: not an error-log line: {text:?}");
            return 2;
        };
        let ex = ide::log_explain::explain_line(cfg, &line, base, &resolve);
        match a.format {
            ExplainFormat::Text => print!("{}", ide::log_explain::line_to_text(&ex)),
            ExplainFormat::Json => print_json(ide::log_explain::line_to_json(&ex)),
        }
        return 0;
    }
    let Some(file) = &a.log_file else { return 2 };
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("apache-lsp explain: {}: {e}", file.display());
            return 2;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let summary = ide::log_explain::summarize(cfg, &text, base, &resolve);
    match a.format {
        ExplainFormat::Text => print!("{}", ide::log_explain::summary_to_text(&summary)),
        ExplainFormat::Json => print_json(ide::log_explain::summary_to_json(&summary)),
    }
    0
}

/// Runs the CLI; returns the process exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        None | Some(Command::Lsp) => match crate::server::run_stdio() {
            Ok(code) => code,
            Err(e) => {
                eprintln!("apache-lsp: {e}");
                2
            }
        },
        Some(Command::Migrate { write, allow_changes, remove_bom, paths }) => {
            let targets = match targets(&paths) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("apache-lsp migrate: {e}");
                    return 2;
                }
            };
            let mut left_any = false;
            let mut changed: std::collections::BTreeMap<PathBuf, (std::sync::Arc<str>, String)> = Default::default();
            // Main configurations first: a file given beside the one whose tree reads it (one of
            // its .htaccess files, an included fragment) is migrated as part of that tree.
            let (mains, parts): (Vec<_>, Vec<_>) = targets.into_iter().partition(|(_, main)| *main);
            let mut read_by: Vec<(PathBuf, std::collections::BTreeSet<PathBuf>)> = Vec::new();
            for (path, main) in mains.into_iter().chain(parts) {
                let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                if let Some((tree, _)) = read_by.iter().find(|(_, r)| r.contains(&path) || r.contains(&real)) {
                    eprintln!("note: {} is read by {}: migrated as part of that tree", path.display(), tree.display());
                    continue;
                }
                let out = crate::migrate_cli::migrate(&path, main, allow_changes, remove_bom);
                if main {
                    read_by.push((path.clone(), out.read.clone()));
                }
                for (p, (old, new)) in out.changed {
                    match changed.get(&p) {
                        Some((_, n)) if *n != new => {
                            eprintln!(
                                "apache-lsp migrate: {} is rewritten differently as part of two trees; left as it is",
                                p.display()
                            );
                            changed.remove(&p);
                            left_any = true;
                        }
                        _ => {
                            changed.insert(p, (old, new));
                        }
                    }
                }
                for n in &out.notes {
                    eprintln!("note: {n}");
                }
                for c in &out.access_changes {
                    eprintln!("access changes: {c}");
                }
                for l in &out.left {
                    eprintln!("left old-style: {l}");
                }
                left_any |= !out.left.is_empty();
            }
            if write {
                match crate::migrate_cli::write_all(&changed) {
                    Ok(written) => written.iter().for_each(|p| eprintln!("rewrote {}", p.display())),
                    Err(e) => {
                        eprintln!("apache-lsp migrate: {e}");
                        return 2;
                    }
                }
            } else {
                match crate::migrate_cli::diff_all(&changed) {
                    Ok(diff) => {
                        use std::io::Write as _;
                        let mut stdout = std::io::stdout().lock();
                        if let Err(e) = stdout.write_all(&diff).and_then(|()| stdout.flush()) {
                            eprintln!("apache-lsp migrate: {e}");
                            return 2;
                        }
                    }
                    Err(e) => {
                        eprintln!("apache-lsp migrate: {e}; no diff printed");
                        return 2;
                    }
                }
            }
            i32::from(left_any)
        }
        Some(Command::Explain(a)) => {
            // explain may ask the system what httpd would ask it (names, users' home directories).
            ide::access::allow_passwd_lookups();
            let main = match explained_config(&a.config) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("apache-lsp explain: {e}");
                    return 2;
                }
            };
            if !crate::server::looks_like_main(&main, &config::RealFs) {
                eprintln!(
                    "note: {} does not look like a main configuration (not named httpd.conf or apache2.conf, no \
                     ServerRoot, no LoadModule): it is explained as a whole server on its own, with httpd's defaults \
                     for all it does not set; where a main configuration includes it, httpd may answer otherwise",
                    main.display()
                );
            }
            let cfg = config::load(&main, &config::RealFs);
            if a.host.is_some() && a.url.as_deref().is_some_and(|u| !u.starts_with('/')) {
                eprintln!(
                    "apache-lsp explain: --host is not used: the URL names the host (httpd goes by an absolute \
                     request's host, not by its Host header)"
                );
            }
            let mut spec = match request_spec(&a, &cfg) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("apache-lsp explain: {e}");
                    return 2;
                }
            };
            let inputs = match request_inputs(&a) {
                Ok(i) => i,
                Err(e) => {
                    eprintln!("apache-lsp explain: {e}");
                    return 2;
                }
            };
            if a.log_line.is_some() || a.log_file.is_some() {
                return explain_log(&a, &cfg, &spec.request);
            }
            let mut e = ide::explain::explain_with(&cfg, &spec, &inputs);
            let unresolved = matches!(spec.request.client_host, ide::policy::HostKnowledge::Unknown);
            if unresolved && !a.no_dns && a.client_host.is_none() && htaccess_needs_host_name(&e) {
                spec.request.client_host = resolve_double_reverse(a.client);
                e = ide::explain::explain_with(&cfg, &spec, &inputs);
            }
            match a.format {
                ExplainFormat::Text => print!("{}", ide::explain::to_text(&spec, &e)),
                ExplainFormat::Json => {
                    println!("{}", serde_json::to_string_pretty(&ide::explain::to_json(&spec, &e)).unwrap_or_default())
                }
            }
            0
        }
        Some(Command::Check { format, paths }) => {
            let targets = match targets(&paths) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("apache-lsp check: {e}");
                    return 2;
                }
            };
            let stdout = std::io::stdout();
            let mut report = Renderer::new(std::io::BufWriter::with_capacity(1 << 16, stdout.lock()), format);
            let written = each_finding(&targets, true, &mut |f| report.add(f));
            let bad = report.found_problems();
            if let Err(e) = written.and_then(|()| report.finish().map(drop)) {
                eprintln!("apache-lsp check: {e}");
                return 2;
            }
            i32::from(bad)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_targets_are_paths_or_absolute_urls() {
        let t = |u: &str| RequestTarget::parse(u).map(|t| (t.path, t.authority, t.port));
        let some = |s: &str| Some(s.to_string());
        assert_eq!(t("/a b/?q"), Ok(("/a b/?q".into(), None, None)));
        assert_eq!(t("///a//b/?q"), Ok(("/a//b/?q".into(), None, None)));
        assert_eq!(t("http://h.test//a"), Ok(("//a".into(), some("h.test"), None)));
        assert_eq!(t("http://Www.Example.test/x"), Ok(("/x".into(), some("Www.Example.test"), None)));
        assert_eq!(t("HTTPS://h.test:8443"), Ok(("/".into(), some("h.test:8443"), Some(8443))));
        assert_eq!(t("http://h.test:81?x=1"), Ok(("/?x=1".into(), some("h.test:81"), Some(81))));
        assert_eq!(t("http://[::1]:8080/é"), Ok(("/é".into(), some("[::1]:8080"), Some(8080))));
        assert_eq!(t("http://[::1]/"), Ok(("/".into(), some("[::1]"), None)));
        assert_eq!(t("http://h.test:/"), Ok(("/".into(), some("h.test:"), None)));
        for bad in ["server-status", "", "ftp://h/x", "http:///x", "http://h:99999/", "http://[::1/", "http://u:pw@h/"]
        {
            let e = t(bad).unwrap_err();
            assert!(e.contains("/server-status"), "{bad}: {e}");
        }
    }

    #[test]
    fn needs_escape_finds_what_serde_json_escapes() {
        for len in 0..20 {
            let plain: String = "aé~ {}/!#".chars().cycle().take(len).collect();
            assert!(!needs_escape(plain.as_bytes()), "{plain:?}");
            for special in ['"', '\\', '\n', '\t', '\u{0}', '\u{1f}'] {
                for at in 0..=plain.len() {
                    if !plain.is_char_boundary(at) {
                        continue;
                    }
                    let s = format!("{}{special}{}", &plain[..at], &plain[at..]);
                    assert!(needs_escape(s.as_bytes()), "{s:?}");
                }
            }
        }
        // Each byte value against serde_json's own answer.
        for b in 0u8..=0x7f {
            let s = format!("abcdefg{}hij", b as char);
            let escaped = serde_json::to_string(&s).unwrap() != format!("\"{s}\"");
            assert_eq!(needs_escape(s.as_bytes()), escaped, "{b:#x}");
        }
    }

    #[test]
    fn streamed_reports_render_as_serde_json_renders_them() {
        let r = |file: &str, line: u32, severity: &'static str, message: &str| Reported {
            file: file.into(),
            line,
            column: 3,
            end_line: line,
            end_column: 9,
            severity,
            code: "some-code",
            message: message.into(),
        };
        let all = [
            r("/a b/é.conf", 1, "error", "plain"),
            r("/a\"q\".conf", 2, "warning", "tab\there, quote \" and back\\slash"),
            r("/c.conf", 3, "information", "ctl \u{1} end"),
        ];
        for n in 0..=all.len() {
            let some = &all[..n];
            let json = serde_json::to_string_pretty(some).unwrap() + "\n";
            assert_eq!(render(some, Format::Json), json);
            let sarif = serde_json::to_string_pretty(&sarif_document(
                some.iter().map(|r| sarif_result(&r.as_finding())).collect(),
            ))
            .unwrap()
                + "\n";
            assert_eq!(render(some, Format::Sarif), sarif);
        }
        let text = [r("/a b/é.conf", 1, "error", "plain"), r("/a\"q\".conf", 2, "warning", "quote \" there")];
        expect_test::expect![[r#"
            /a b/é.conf:1:3: error[some-code]: plain
            /a"q".conf:2:3: warning[some-code]: quote " there
            1 error(s), 1 warning(s)
        "#]]
        .assert_eq(&render(&text, Format::Text));
    }
}
