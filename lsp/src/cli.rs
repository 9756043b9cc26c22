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
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Explain what httpd does with one request: the sections that apply, in
    /// merge order, the rule that decides, and the status.
    Explain(ExplainArgs),
}

#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The main configuration file (httpd.conf, apache2.conf).
    pub config: PathBuf,
    /// The URL path of the request, e.g. /server-status.
    pub url: String,
    /// The client's address.
    #[arg(long, default_value = "127.0.0.1")]
    pub client: std::net::IpAddr,
    /// The server address the client connected to (for `Require local`); defaults
    /// to 127.0.0.1 for IPv4 loopback clients, ::1 for IPv6 ones, else the client's own.
    #[arg(long)]
    pub server_addr: Option<std::net::IpAddr>,
    /// The request carries valid credentials for this user.
    #[arg(long)]
    pub user: Option<String>,
    /// The request carries credentials that are wrong.
    #[arg(long, conflicts_with = "user")]
    pub wrong_password: bool,
    /// The Host header: picks the virtual host by ServerName/ServerAlias.
    #[arg(long)]
    pub host: Option<String>,
    #[arg(long, default_value = "GET")]
    pub method: String,
    /// An environment variable set for the request (as SetEnvIf would), VAR=VALUE.
    #[arg(long = "env", value_name = "VAR=VALUE")]
    pub env: Vec<String>,
    /// A request header NAME:VALUE (for SetEnvIf on headers).
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub header: Vec<String>,
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
            url: url.to_string(),
            client: client.parse().unwrap_or(std::net::IpAddr::from([127, 0, 0, 1])),
            server_addr: None,
            user: None,
            wrong_password: false,
            host: None,
            method: "GET".into(),
            env: vec![],
            header: vec![],
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

/// One reported diagnostic, with 1-based positions.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Reported {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: &'static str,
    pub code: &'static str,
    pub message: String,
}

pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information => "information",
        Severity::Hint => "hint",
    }
}

/// The configurations to load for the given paths: (path, is_main).
pub fn targets(paths: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>, String> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if meta.is_dir() {
            if let Some(main) =
                ["apache2.conf", "httpd.conf", "conf/httpd.conf"].iter().map(|n| p.join(n)).find(|m| m.is_file())
            {
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
                return Err(format!("{}: not a regular file ({})", p.display(), config::file_kind(&meta)));
            }
            std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let main = crate::server::looks_like_main(p, &config::RealFs);
            out.push((p.clone(), main));
        }
    }
    Ok(out)
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
    let mut out: Vec<Reported> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (path, main) in targets(paths)? {
        let cfg =
            if main { config::load(&path, &config::RealFs) } else { config::load_fragment(&path, &config::RealFs) };
        for d in ide::diagnostics::all(&cfg) {
            let f = cfg.file(d.file);
            let (line, column) = f.line_index.human(d.range.start(), &f.text);
            let (end_line, end_column) = f.line_index.human(d.range.end(), &f.text);
            let r = Reported {
                file: f.path.display().to_string(),
                line,
                column,
                end_line,
                end_column,
                severity: severity_name(d.severity),
                code: d.code,
                message: d.message,
            };
            if seen.insert((r.file.clone(), r.line, r.column, r.code, r.message.clone())) {
                out.push(r);
            }
        }
    }
    Ok(out)
}

pub fn render(reported: &[Reported], format: Format) -> String {
    match format {
        Format::Text => {
            let mut s = String::new();
            for r in reported {
                s.push_str(&format!("{}:{}:{}: {}[{}]: {}\n", r.file, r.line, r.column, r.severity, r.code, r.message));
            }
            let errors = reported.iter().filter(|r| r.severity == "error").count();
            let warnings = reported.iter().filter(|r| r.severity == "warning").count();
            s.push_str(&format!("{errors} error(s), {warnings} warning(s)\n"));
            s
        }
        Format::Json => serde_json::to_string_pretty(reported).unwrap_or_default() + "\n",
        Format::Sarif => {
            let results: Vec<serde_json::Value> = reported
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "ruleId": r.code,
                        "level": match r.severity { "error" => "error", "warning" => "warning", _ => "note" },
                        "message": { "text": r.message },
                        "locations": [{ "physicalLocation": {
                            "artifactLocation": { "uri": format!("file://{}", r.file) },
                            "region": { "startLine": r.line, "startColumn": r.column, "endLine": r.end_line, "endColumn": r.end_column }
                        }}]
                    })
                })
                .collect();
            let sarif = serde_json::json!({
                "version": "2.1.0",
                "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
                "runs": [{
                    "tool": { "driver": { "name": "apache-lsp", "version": env!("CARGO_PKG_VERSION"), "informationUri": "https://httpd.apache.org/docs/2.4/" } },
                    "results": results
                }]
            });
            serde_json::to_string_pretty(&sarif).unwrap_or_default() + "\n"
        }
    }
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
    let mut env = EnvKnowledge::default();
    // Variables the configuration may set per request are unknown unless given.
    for n in cfg.walk() {
        let l = n.name.to_ascii_lowercase();
        let var = match l.as_str() {
            "setenvif" | "setenvifnocase" | "setenvifexpr" => n.args.get(2).or(n.args.get(1)),
            "browsermatch" | "browsermatchnocase" => n.args.get(1),
            "setenv" => n.args.first(),
            _ => None,
        };
        if let Some(v) = var {
            let name = v.trim_start_matches('!').split('=').next().unwrap_or(v).to_string();
            env.vars.insert(name, EnvVar::Unknown);
        }
    }
    for kv in &a.env {
        let (k, v) = kv.split_once('=').unwrap_or((kv.as_str(), ""));
        env.vars.insert(k.to_string(), EnvVar::Set(v.to_string()));
    }
    req.env = env;
    req.client_host = match (&a.client_host, a.no_dns) {
        (Some(h), _) => HostKnowledge::Known(h.clone()),
        (None, true) => HostKnowledge::Unknown,
        (None, false) => resolve_double_reverse(a.client),
    };
    // Group membership from AuthGroupFile files the configuration names.
    let mut groups = std::collections::BTreeMap::new();
    for n in cfg.walk().filter(|n| n.is("AuthGroupFile")) {
        if let Some(p) = n.args.first() {
            let p = if std::path::Path::new(p).is_absolute() { PathBuf::from(p) } else { cfg.server_root.join(p) };
            if let Ok(text) = config::read_regular(&p).map(|b| String::from_utf8_lossy(&b).into_owned()) {
                for line in text.lines() {
                    if let Some((g, users)) = line.split_once(':') {
                        for u in users.split_whitespace() {
                            groups
                                .entry(u.to_string())
                                .or_insert_with(std::collections::BTreeSet::new)
                                .insert(g.trim().to_string());
                        }
                    }
                }
            }
        }
    }
    req.groups = Some(groups);
    Ok(ide::access::RequestSpec { path: a.url.clone(), host: a.host.clone(), request: req })
}

/// httpd's double-reverse lookup of a client address (`REMOTE_DOUBLE_REV`):
/// reverse, then forward; the name counts only if the forward answer holds the address.
fn resolve_double_reverse(ip: std::net::IpAddr) -> ide::policy::HostKnowledge {
    use ide::policy::HostKnowledge;
    let Ok(out) = std::process::Command::new("getent").arg("hosts").arg(ip.to_string()).output() else {
        return HostKnowledge::Unknown;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(name) = text.split_whitespace().nth(1).map(str::to_string) else { return HostKnowledge::NoName };
    let Ok(fwd) = std::process::Command::new("getent").arg("ahosts").arg(&name).output() else {
        return HostKnowledge::Unknown;
    };
    let confirmed =
        String::from_utf8_lossy(&fwd.stdout).lines().any(|l| l.split_whitespace().next() == Some(&ip.to_string()));
    if confirmed {
        HostKnowledge::Known(name)
    } else {
        HostKnowledge::NoName
    }
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
        Some(Command::Migrate { write, allow_changes, paths }) => {
            let targets = match targets(&paths) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("apache-lsp migrate: {e}");
                    return 2;
                }
            };
            let mut left_any = false;
            for (path, main) in targets {
                let out = crate::migrate_cli::migrate(&path, main, allow_changes);
                for (p, (old, new)) in &out.changed {
                    if write {
                        if let Err(e) = crate::migrate_cli::write_atomic(p, old, new) {
                            eprintln!("apache-lsp migrate: {e}");
                            return 2;
                        }
                        eprintln!("rewrote {}", p.display());
                    } else {
                        print!("{}", crate::migrate_cli::unified_diff(p, old, new));
                    }
                }
                for c in &out.access_changes {
                    eprintln!("access changes: {c}");
                }
                for l in &out.left {
                    eprintln!("left old-style: {l}");
                }
                left_any |= !out.left.is_empty();
            }
            i32::from(left_any)
        }
        Some(Command::Explain(a)) => {
            if std::fs::metadata(&a.config).is_err() {
                eprintln!("apache-lsp explain: cannot read {}", a.config.display());
                return 2;
            }
            let cfg = config::load(&a.config, &config::RealFs);
            let spec = match request_spec(&a, &cfg) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("apache-lsp explain: {e}");
                    return 2;
                }
            };
            let e = ide::explain::explain(&cfg, &spec);
            match a.format {
                ExplainFormat::Text => print!("{}", ide::explain::to_text(&spec, &e)),
                ExplainFormat::Json => {
                    println!("{}", serde_json::to_string_pretty(&ide::explain::to_json(&spec, &e)).unwrap_or_default())
                }
            }
            0
        }
        Some(Command::Check { format, paths }) => match check_paths(&paths) {
            Ok(reported) => {
                print!("{}", render(&reported, format));
                let bad = reported.iter().any(|r| r.severity == "error" || r.severity == "warning");
                i32::from(bad)
            }
            Err(e) => {
                eprintln!("apache-lsp check: {e}");
                2
            }
        },
    }
}
