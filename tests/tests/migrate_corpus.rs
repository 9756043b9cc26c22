//! `apache-lsp migrate --write` over every file of the shared corpus (../shared/corpus) that
//! holds old-style access directives (Order, Allow, Deny, Satisfy), each run by the real httpd
//! before and after the migration over the same request matrix.
//!
//! For each file a scratch server root is built around a copy of it (the corpus is read-only
//! and nothing is copied into the project): the harness preamble (free loopback port, scratch
//! ServerRoot and DocumentRoot), the modules its directives need from Debian's
//! /usr/lib/apache2/modules, the file included (or, for an .htaccess file, placed in the
//! document root under `AllowOverride All`). Server-level lines that would reach outside the
//! scratch root (Listen, ServerRoot, User, LoadModule, logs, Include, certificates…) are
//! commented out; absolute file-system paths the file names are moved under the scratch root
//! (`@ROOT@/fs/…`) and the directories created; `<VirtualHost>` addresses move to the test port.
//! The request matrix comes from the file: its Location and Alias URLs, the URLs of its
//! Directory sections, the names of its Files sections, its ServerNames as Host headers.
//!
//! A file is skipped only when httpd cannot start with it at all before migration; the counts
//! (with reasons) are printed. Every other file must migrate, pass `apache2 -t`, and answer
//! exactly the same statuses.

use apache_lsp::ide::catalogue;
use apache_lsp_e2e::httpd::{self, config_test, sources, Httpd, HttpdConfig, Request, DEFAULT_MODULES, MODULES_DIR};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if dir.join("SOURCES.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!("note: ../shared/corpus is not present beside the project; corpus migration test skipped");
        None
    }
}

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let tsv = std::fs::read_to_string(dir.join("SOURCES.tsv")).unwrap();
    tsv.lines().skip(1).filter_map(|l| l.split('\t').next()).map(|p| dir.join(p)).collect()
}

fn old_style() -> &'static Regex {
    static R: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| Regex::new(r"(?im)^[ \t]*(order|allow|deny|satisfy)[ \t]").unwrap())
}

/// Server-level directives that would reach outside the scratch root or clash with the
/// harness preamble; commented out in the copy.
const NEUTRALISED: &[&str] = &[
    "listen",
    "serverroot",
    "pidfile",
    "user",
    "group",
    "loadmodule",
    "loadfile",
    "errorlog",
    "customlog",
    "transferlog",
    "mutex",
    "lockfile",
    "scoreboardfile",
    "defaultruntimedir",
    "include",
    "includeoptional",
    "resourceconfig",
    "accessconfig",
    "typesconfig",
    "sslengine",
    "sslcertificatefile",
    "sslcertificatekeyfile",
    "sslcertificatechainfile",
    "sslcacertificatefile",
    "sslcacertificatepath",
    "sslcarevocationfile",
    "sslcarevocationpath",
    "sslsessioncache",
    "sslrandomseed",
    "sslpassphrasedialog",
    "sslmutex",
    "nsscertificatedatabase",
    "nssengine",
    "wsgisocketprefix",
    "davlockdb",
    "suexecusergroup",
    "namevirtualhost",
    "startservers",
    "maxclients",
    "maxrequestworkers",
    "serverlimit",
    "minspareservers",
    "maxspareservers",
    "threadsperchild",
    "threadlimit",
    "minsparethreads",
    "maxsparethreads",
    "maxrequestsperchild",
    "maxconnectionsperchild",
    "coredumpdirectory",
    "scriptsock",
    "port",
    "bindaddress",
    "servertype",
    "cachedisable",
    "cacheroot",
];

/// Modules never loaded: they would contact servers the file names (directory servers,
/// proxied back ends), and tests talk to loopback only. Files that need them count as files
/// httpd cannot start with.
const OFF_LOOPBACK: &[&str] =
    &["ldap", "authnz_ldap", "proxy", "remoteip_proxy", "md", "socache_memcache", "socache_redis"];

/// Directives whose arguments include file-system paths the test maps under the scratch root.
const PATH_DIRECTIVES: &[&str] =
    &["<directory", "documentroot", "alias", "scriptalias", "authuserfile", "authgroupfile", "authdbmuserfile"];

struct Prepared {
    /// The copy's text, with `@ROOT@` for the scratch root.
    text: String,
    /// Directories to create (relative to the root) and files to create.
    dirs: BTreeSet<String>,
    files: BTreeSet<String>,
    urls: Vec<String>,
    hosts: Vec<Option<String>>,
    modules: Vec<String>,
    /// Client addresses (only those /etc/hosts names when the rules name hosts).
    sources: Vec<std::net::IpAddr>,
}

fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() || c == '>' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            (_, c) => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn prepare(text: &str, htaccess: bool) -> Prepared {
    // 1. The top components of absolute paths the file uses for files and directories.
    let mut tops: BTreeSet<String> = BTreeSet::new();
    for line in text.lines() {
        let w = words(line.trim_start());
        let Some(first) = w.first() else { continue };
        if PATH_DIRECTIVES.contains(&first.to_ascii_lowercase().as_str()) {
            for a in &w[1..] {
                if let Some(rest) = a.strip_prefix('/') {
                    if let Some(top) = rest.split('/').next().filter(|t| !t.is_empty() && !t.contains(['*', '?', '[']))
                    {
                        tops.insert(top.to_owned());
                    }
                }
            }
        }
    }
    let moved = |s: &str| -> String {
        if tops.is_empty() {
            return s.to_owned();
        }
        let alt = tops.iter().map(|t| regex::escape(t)).collect::<Vec<_>>().join("|");
        let re = Regex::new(&format!(r#"(^|[\s"'])/({alt})(/|\s|"|'|>|$)"#)).unwrap();
        // Twice: adjacent matches share their delimiter.
        let once = re.replace_all(s, "$1@ROOT@/fs/$2$3").into_owned();
        re.replace_all(&once, "$1@ROOT@/fs/$2$3").into_owned()
    };
    let mut out = String::new();
    let mut modules: BTreeSet<String> = DEFAULT_MODULES.iter().map(|m| m.to_string()).collect();
    let mut dirs = BTreeSet::new();
    let mut files = BTreeSet::new();
    let mut urls: Vec<String> = vec!["/".into(), "/index.html".into()];
    let mut names: Vec<String> = Vec::new();
    let mut docroots: Vec<String> = Vec::new();
    let mut aliases: Vec<(String, String)> = Vec::new();
    let mut directories: Vec<String> = Vec::new();
    let mut hosts: Vec<Option<String>> = vec![None];
    let mut blank_continuation = false;
    for line in text.split_inclusive('\n') {
        if blank_continuation {
            // The rest of a `<VirtualHost … \` line that was replaced as a whole.
            blank_continuation = line.trim_end().ends_with('\\');
            out.push('\n');
            continue;
        }
        let trimmed = line.trim_start();
        let w = words(trimmed);
        let name = w.first().map(|n| n.trim_start_matches("</").trim_start_matches('<').to_ascii_lowercase());
        let Some(name) = name else {
            out.push_str(line);
            continue;
        };
        if name.starts_with('#') {
            out.push_str(line);
            continue;
        }
        if NEUTRALISED.contains(&name.as_str()) && !htaccess {
            out.push_str(&format!("# (corpus test) {line}"));
            if !line.ends_with('\n') {
                out.push('\n');
            }
            continue;
        }
        if let Some(d) = catalogue::directive(&name) {
            for m in d.modules() {
                if let Some(short) = m.strip_suffix("_module") {
                    if Path::new(MODULES_DIR).join(format!("mod_{short}.so")).is_file()
                        && !short.starts_with("mpm_")
                        && !OFF_LOOPBACK.iter().any(|m| short.starts_with(m))
                    {
                        modules.insert(short.to_owned());
                    }
                }
            }
        }
        let mut line = moved(line);
        if name == "virtualhost" && trimmed.starts_with('<') && !trimmed.starts_with("</") && !htaccess {
            let indent = &line[..line.len() - line.trim_start().len()];
            blank_continuation = line.trim_end().ends_with('\\');
            line = format!("{indent}<VirtualHost *:@PORT@>\n");
        }
        out.push_str(&line);
        let mw = words(line.trim_start());
        let arg = |i: usize| mw.get(i).cloned().unwrap_or_default();
        match name.as_str() {
            "location" if trimmed.starts_with('<') => {
                let a = arg(1);
                if a.starts_with('/') && !a.contains(['*', '?', '[', '~']) && mw.len() == 2 {
                    urls.push(a.clone());
                    if !a.ends_with('/') {
                        urls.push(format!("{a}/"));
                    }
                }
            }
            "directory" if trimmed.starts_with('<') => directories.push(arg(1)),
            "files" if trimmed.starts_with('<') => {
                let a = arg(1);
                if !a.is_empty() && !a.contains(['*', '?', '[', '~', '/']) && mw.len() == 2 {
                    names.push(a);
                }
            }
            "documentroot" => docroots.push(arg(1)),
            "alias" | "scriptalias" if mw.len() == 3 => aliases.push((arg(1), arg(2))),
            "servername" | "serveralias" => {
                for h in &mw[1..] {
                    if !h.contains(['*', '@']) && hosts.len() < 3 {
                        hosts.push(Some(h.clone()));
                    }
                }
            }
            _ => {}
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // Modules that others need, or that arguments name (filters, DAV providers, proxy schemes).
    let implied: &[(&str, &str)] = &[("dav_fs", "dav"), ("cache_disk", "cache")];
    let named: &[(&str, &str)] = &[(r"\bDEFLATE\b", "deflate"), (r"(?i)\bdav\s+filesystem", "dav_fs")];
    for (needle, m) in named {
        if Regex::new(needle).unwrap().is_match(text) {
            modules.insert(m.to_string());
        }
    }
    for (m, needs) in implied {
        if modules.contains(*m) {
            modules.insert(needs.to_string());
        }
    }
    // Directories and files to create, and the URLs that reach the directories.
    let docroot = "@ROOT@/htdocs".to_owned();
    if docroots.is_empty() {
        docroots.push(docroot.clone());
    }
    for d in docroots.iter().chain(&directories) {
        if let Some(rel) = d.strip_prefix("@ROOT@/") {
            if !rel.contains(['*', '?', '[', '@']) {
                dirs.insert(rel.trim_end_matches('/').to_owned());
            }
        }
    }
    for (url, target) in &aliases {
        if let Some(rel) = target.strip_prefix("@ROOT@/") {
            let last = rel.rsplit('/').next().unwrap_or("");
            if last.contains('.') {
                files.insert(rel.to_owned());
            } else {
                dirs.insert(rel.trim_end_matches('/').to_owned());
            }
        }
        if url.starts_with('/') {
            urls.push(url.clone());
            if !url.ends_with('/') {
                urls.push(format!("{url}/"));
            }
        }
    }
    for d in &directories {
        let d = d.trim_end_matches('/');
        for root in &docroots {
            let root = root.trim_end_matches('/');
            if let Some(rest) = d.strip_prefix(root).filter(|r| r.is_empty() || r.starts_with('/')) {
                urls.push(format!("{rest}/"));
            }
        }
        for (url, target) in &aliases {
            let target = target.trim_end_matches('/');
            if let Some(rest) = d.strip_prefix(target).filter(|r| r.is_empty() || r.starts_with('/')) {
                urls.push(format!("{}{rest}/", url.trim_end_matches('/')));
            }
        }
    }
    for n in &names {
        urls.push(format!("/{n}"));
    }
    let mut seen = BTreeSet::new();
    urls.retain(|u| seen.insert(u.clone()) && !u.contains(['"', '\'', ' ']));
    urls.truncate(14);
    for d in dirs.clone() {
        files.insert(format!("{d}/index.html"));
    }
    for n in &names {
        files.insert(format!("htdocs/{n}"));
    }
    let sources = if httpd::rules_name_hosts(text) { httpd::names_resolved_locally(sources()) } else { sources() };
    Prepared { text: out, dirs, files, urls, hosts, modules: modules.into_iter().collect(), sources }
}

/// The harness configuration for a prepared text (`text` with `@ROOT@`).
fn server(p: &Prepared, text: &str, htaccess: bool) -> HttpdConfig {
    let modules: Vec<&str> = p.modules.iter().map(String::as_str).collect();
    let body = if htaccess {
        "<Directory @DOCROOT@>\n  AllowOverride All\n</Directory>\n".to_owned()
    } else {
        "Include \"@ROOT@/site.conf\"\n".to_owned()
    };
    let mut cfg = HttpdConfig::new(body).modules(&modules);
    for d in &p.dirs {
        cfg = cfg.dir(d);
    }
    for f in &p.files {
        cfg = cfg.file(f, format!("{f}\n"));
    }
    cfg.file(if htaccess { "htdocs/.htaccess" } else { "site.conf" }, text)
}

fn matrix(h: &Httpd, p: &Prepared) -> Result<Vec<(String, u16)>, String> {
    let mut out = Vec::new();
    for url in &p.urls {
        for host in &p.hosts {
            for src in p.sources.iter().copied() {
                for cred in [None, Some(("alice", "apw"))] {
                    for method in ["GET", "POST"] {
                        let mut r = Request::new(method, url).source(src);
                        if let Some(h) = host {
                            r = r.host(h);
                        }
                        if let Some((u, pw)) = cred {
                            r = r.user(u, pw);
                        }
                        let st = h.send(&r)?;
                        out.push((format!("{method} {url} Host {host:?} from {src} as {cred:?}"), st));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// httpd's complaint, shortened to a reason (the scratch root and line numbers left out, so
/// that alike reasons count together).
fn reason(msg: &str) -> String {
    let lines: Vec<&str> = msg.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("Invalid command") || l.contains("Syntax error"))
        .or_else(|| lines.iter().position(|l| l.contains(":error]") || l.contains(":emerg]") || l.contains(":crit]")))
        .or_else(|| {
            lines.iter().position(|l| !l.trim().is_empty() && !l.starts_with("---") && !l.starts_with("httpd "))
        });
    let Some(at) = at else { return "no message".into() };
    let mut line = lines[at].to_owned();
    // "Syntax error on line N of F:" is followed by the message on the next line.
    if line.trim_end().ends_with(':') {
        if let Some(next) = lines.get(at + 1) {
            line.push(' ');
            line.push_str(next);
        }
    }
    if let Some(i) = line.find("Invalid command '") {
        let rest = &line[i + 17..];
        let name = rest.split('\'').next().unwrap_or("");
        let off = catalogue::directive(name)
            .is_some_and(|d| d.modules().any(|m| OFF_LOOPBACK.iter().any(|o| m == format!("{o}_module"))));
        let why = if off { "module not loaded: it would contact servers off loopback" } else { "module not installed" };
        return format!("Invalid command '{name}' ({why})");
    }
    let line = Regex::new(r"/tmp/apache-lsp-httpd-[^/ :]+").unwrap().replace_all(&line, "ROOT");
    let line = Regex::new(r"^\[[^\]]*\] \[[^\]]*\] \[pid [^\]]*\] ").unwrap().replace(&line, "");
    let line = Regex::new(r"Syntax error on line \d+ of ([^:]+):").unwrap().replace_all(&line, "Syntax error in $1:");
    let line = Regex::new(r"line \d+").unwrap().replace_all(&line, "line N");
    let line = if line.contains("Unknown Authn provider: ldap") {
        format!("{line} (mod_authnz_ldap not loaded: it would contact servers off loopback)")
    } else {
        line.into_owned()
    };
    line.chars().take(140).collect()
}

enum Result1 {
    /// `left`: why migrate left old-style sections as they were.
    Verified {
        requests: usize,
        rewritten: bool,
        left: Vec<String>,
    },
    Skipped(String),
    Failed(String),
}

fn run_one(corpus: &Path, file: &Path) -> Result1 {
    let bytes = std::fs::read(file).unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let fname = file.file_name().unwrap().to_string_lossy().to_ascii_lowercase();
    let htaccess = fname.contains("htaccess");
    let p = prepare(&text, htaccess);
    let rel = file.strip_prefix(corpus).unwrap().display().to_string();
    // Before: httpd must start with the file at all.
    let before_cfg = server(&p, &p.text, htaccess);
    let (ok, msg) = config_test(&before_cfg);
    if !ok {
        return Result1::Skipped(reason(&msg));
    }
    let before = match Httpd::start(before_cfg) {
        Ok(h) => h,
        Err(e) => return Result1::Skipped(reason(&e)),
    };
    let a = match matrix(&before, &p) {
        Ok(a) => a,
        Err(e) => return Result1::Failed(format!("{rel}: request before migration: {e}")),
    };
    drop(before);
    // The migration, on a copy in its own scratch root.
    let work = server(&p, &p.text, htaccess);
    let main = work.write().unwrap();
    let root = work.root().display().to_string();
    let target = work.root().join(if htaccess { "htdocs/.htaccess" } else { "site.conf" });
    let copy_before = std::fs::read(&target).unwrap();
    let out = Command::new(apache_lsp_e2e::lsp::server_binary())
        .args(["migrate", "--write"])
        .arg(&main)
        .output()
        .expect("run apache-lsp migrate");
    if out.status.code() == Some(2) || out.status.code().is_none() {
        return Result1::Failed(format!("{rel}: migrate --write failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let migrated = std::fs::read(&target).unwrap();
    let rewritten = migrated != copy_before;
    let migrated = String::from_utf8_lossy(&migrated)
        .replace(&root, "@ROOT@")
        .replace(&format!("<VirtualHost *:{}>", work.port()), "<VirtualHost *:@PORT@>");
    let after_cfg = server(&p, &migrated, htaccess);
    let (ok, msg) = config_test(&after_cfg);
    if !ok {
        return Result1::Failed(format!("{rel}: apache2 -t rejects the migrated file:\n{msg}"));
    }
    let after = match Httpd::start(after_cfg) {
        Ok(h) => h,
        Err(e) => return Result1::Failed(format!("{rel}: httpd does not start after migration: {e}")),
    };
    let b = match matrix(&after, &p) {
        Ok(b) => b,
        Err(e) => return Result1::Failed(format!("{rel}: request after migration: {e}")),
    };
    let diffs: Vec<String> =
        a.iter().zip(&b).filter(|(x, y)| x.1 != y.1).map(|(x, y)| format!("  {}: {} → {}", x.0, x.1, y.1)).collect();
    if !diffs.is_empty() {
        return Result1::Failed(format!(
            "{rel}: httpd answers differently after migrate --write ({} of {}):\n{}\n--- stderr of migrate:\n{}",
            diffs.len(),
            a.len(),
            diffs.iter().take(12).cloned().collect::<Vec<_>>().join("\n"),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let left = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("left old-style: "))
        .map(|l| {
            // "left old-style: FILE:LINE: <Section args>: why" or "…: FILE:LINE: Order: why".
            let l = l.trim_start_matches("left old-style: ");
            let l = Regex::new(r"^\S+:\d+: ").unwrap().replace(l, "");
            let why = match l.strip_prefix('<').and_then(|r| r.split_once(">: ")) {
                Some((_, why)) => why.to_owned(),
                None => l.into_owned(),
            };
            let why = Regex::new(r"/tmp/apache-lsp-httpd-[^ :]+").unwrap().replace_all(&why, "PATH");
            let why = Regex::new(r"^(?i)(order|allow|deny|satisfy): ").unwrap().replace(&why, "");
            why.split(": /").next().unwrap_or(&why).chars().take(110).collect()
        })
        .collect();
    Result1::Verified { requests: a.len(), rewritten, left }
}

#[test]
fn every_corpus_file_with_old_style_rules_migrates_without_changing_httpds_answers() {
    let Some(corpus) = corpus_dir() else { return };
    if !httpd::require_apache2() {
        return;
    }
    let files: Vec<PathBuf> = corpus_files(&corpus)
        .into_iter()
        .filter(|f| std::fs::read(f).is_ok_and(|b| old_style().is_match(&String::from_utf8_lossy(&b))))
        .collect();
    let only = std::env::var("APACHE_LSP_CORPUS_ONLY").ok();
    let files: Vec<PathBuf> =
        files.into_iter().filter(|f| only.as_ref().is_none_or(|o| f.display().to_string().contains(o))).collect();
    let queue = Mutex::new(files.clone());
    let results: Mutex<Vec<(PathBuf, Result1)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let Some(f) = queue.lock().unwrap().pop() else { break };
                let r = std::panic::catch_unwind(|| run_one(&corpus, &f))
                    .unwrap_or_else(|_| Result1::Failed(format!("{}: the test panicked", f.display())));
                results.lock().unwrap().push((f, r));
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut verified, mut rewritten, mut requests) = (0, 0, 0);
    let mut left_why: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed = Vec::new();
    for (f, r) in &results {
        let rel = f.strip_prefix(&corpus).unwrap().display().to_string();
        match r {
            Result1::Verified { requests: n, rewritten: w, left } => {
                for why in left {
                    *left_why.entry(why.clone()).or_default() += 1;
                }
                verified += 1;
                rewritten += usize::from(*w);
                requests += n;
            }
            Result1::Skipped(why) => skipped.entry(why.clone()).or_default().push(rel),
            Result1::Failed(msg) => failed.push(msg.clone()),
        }
    }
    eprintln!("corpus migration: {} files hold old-style directives", files.len());
    eprintln!(
        "corpus migration: {verified} migrated and verified against httpd ({rewritten} rewritten, {} left as they were), {requests} requests compared",
        verified - rewritten
    );
    eprintln!("corpus migration: old-style sections migrate left as they were, by reason:");
    for (why, n) in &left_why {
        eprintln!("  {n} × {why}");
    }
    eprintln!(
        "corpus migration: {} skipped (httpd does not start with them even before migration):",
        skipped.values().map(Vec::len).sum::<usize>()
    );
    for (why, fs) in &skipped {
        eprintln!("  {} × {why}  (e.g. {})", fs.len(), fs[0]);
    }
    eprintln!("corpus migration: {} failed", failed.len());
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    assert!(verified > 0, "no corpus file could be verified");
}
