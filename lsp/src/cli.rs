//! The command line: the same analysis as the server, for terminals and CI.

use crate::ide::{self, config, Severity};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(name = "apache-lsp", version, about = "Language server and checker for Apache httpd configuration", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
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
                walk_configs(p, &mut files, 0);
                files.sort();
                out.extend(files.into_iter().map(|f| (f, false)));
            }
        } else {
            std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let main = crate::server::looks_like_main(p, &config::RealFs);
            out.push((p.clone(), main));
        }
    }
    Ok(out)
}

fn walk_configs(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk_configs(&p, out, depth + 1);
        } else {
            let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            if name.ends_with(".conf") || name.contains("htaccess") {
                out.push(p);
            }
        }
    }
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
