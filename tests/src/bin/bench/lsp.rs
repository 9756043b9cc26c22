//! `bench -- lsp`: the language server's response times, measured through the real
//! binary over stdio as an editor drives it.
//!
//! * Incremental diagnostics: a 1 MB file (generated virtual hosts) is opened, then
//!   edited one character at a time; each edit is timed from sending `didChange` to
//!   receiving `publishDiagnostics` for that version. Edits alternate between
//!   inserting a character and deleting it again, in plain directives, in access
//!   directives (`Require ip …`, which change the access policy) and in comments.
//! * Hover in a large workspace: the 10 000-vhost tree is the root configuration;
//!   hovers on section headers and access directives of its site files are timed
//!   from request to response (the first one, which loads the whole tree, apart).
//!
//! Two times are printed for each: the client's (request or notification sent →
//! response or diagnostics received, JSON-RPC framing and pipes included), and the
//! server's own, which it logs to stderr from the start of the handler to the
//! moment the result is handed to the output (`APACHE_LSP_LOG=apache_lsp::timing=info`).
//! The server's CPU time over each edit (all threads, from /proc) is printed too.
//! Targets (issue #7): edit → diagnostics under 5 ms of server time, hover under 10 ms.
//!
//! Nothing here asserts a time: it prints medians, 95th percentiles and ratios.

use apache_lsp_e2e::lsp::Client;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// Issue #7's targets, in server time.
const EDIT_TARGET: Duration = Duration::from_millis(5);
const HOVER_TARGET: Duration = Duration::from_millis(10);

/// The e2e suite's stdio client, with the server's timing log beside it.
struct Timed {
    c: Client,
    /// The server's timing lines (see the module docs): `<what> <uri> [v<version>] [(detail)] <µs>us`.
    timings: Receiver<String>,
    /// The last timing line read.
    last_timing: String,
}

/// CPU time the server has used so far (all its threads), from /proc.
fn server_cpu(pid: u32) -> Option<Duration> {
    let mut ns = 0u64;
    for t in std::fs::read_dir(format!("/proc/{pid}/task")).ok()?.flatten() {
        let s = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
        ns += s.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(ns))
}

impl Timed {
    fn spawn(exe: &Path) -> Timed {
        let mut cmd = Command::new(exe);
        cmd.env("APACHE_LSP_LOG", "apache_lsp::timing=info").env("NO_COLOR", "1");
        let (c, log) = Client::spawn_logged(cmd);
        Timed { c, timings: log, last_timing: String::new() }
    }

    /// The server's own time for the next timing line starting with `what` (earlier
    /// lines of other messages are skipped).
    fn server_time(&mut self, what: &str) -> Option<Duration> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let line = self.timings.recv_timeout(deadline.checked_duration_since(Instant::now())?).ok()?;
            let Some((_, rest)) = line.split_once("apache_lsp::timing: ") else { continue };
            let rest = rest.trim();
            if rest.starts_with(what) {
                let us = rest.rsplit(' ').next()?.strip_suffix("us")?.parse().ok()?;
                self.last_timing = rest.to_string();
                return Some(Duration::from_micros(us));
            }
        }
    }

    /// Sends a request; returns the response and the moment it arrived.
    fn request(&mut self, method: &str, params: Value, timeout: Duration) -> (Instant, Value) {
        let id = self.c.send_request(method, params);
        self.c.response_at(id, timeout).unwrap_or_else(|| panic!("no response to {method} within {timeout:?}"))
    }

    fn cpu(&self) -> Duration {
        server_cpu(self.c.pid()).unwrap_or_default()
    }

    fn initialize(&mut self, options: Value) {
        self.c.initialize_with(json!({"general": {"positionEncodings": ["utf-16"]}}), &[], options);
    }

    /// Waits for the diagnostics of a version; returns them and the moment they arrived.
    fn diagnostics(&mut self, uri: &str, version: i64, timeout: Duration) -> Option<(Instant, Vec<Value>)> {
        self.c.diagnostics_at(uri, Some(version), timeout)
    }
}

/// Median, 95th percentile and maximum, in milliseconds; with a target, the
/// ratios of the median and the 95th percentile to it.
fn stats(mut v: Vec<Duration>, target: Option<Duration>) -> String {
    if v.is_empty() {
        return "no samples".into();
    }
    v.sort();
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1e3;
    let mut s =
        format!("median {:>7.3} ms, p95 {:>7.3} ms, max {:>7.3} ms (n={})", at(0.5), at(0.95), at(1.0), v.len());
    if let Some(t) = target {
        let t = t.as_secs_f64() * 1e3;
        let verdict = if at(0.95) <= t { "met" } else { "NOT met" };
        s.push_str(&format!("; target {t} ms: median {:.2}×, p95 {:.2}× of it ({verdict})", at(0.5) / t, at(0.95) / t));
    }
    s
}

fn uri(p: &Path) -> String {
    apache_lsp_e2e::lsp::file_uri(p)
}

/// A deterministic xorshift sequence, so that runs compare.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// (line, UTF-16 column) of a byte offset; the generated text is ASCII.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, before[start..].encode_utf16().count())
}

/// Offsets (just after `marker`) of lines that start, after indentation, with `prefix`.
fn edit_points(text: &str, prefix: &str, marker: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with(prefix) {
            if let Some(i) = line.find(marker) {
                out.push(off + i + marker.len());
            }
        }
        off += line.len();
    }
    out
}

pub fn run(exe: &Path, tree_for: &dyn Fn(usize) -> PathBuf, edits: usize, hovers: usize) {
    incremental(exe, &tree_for(1_000), edits);
    if hovers > 0 {
        hover(exe, &tree_for(10_000), hovers);
    }
}

/// One-character edits in a 1 MB file.
fn incremental(exe: &Path, tree: &Path, edits: usize) {
    // Site files of the generated tree, concatenated up to 1 MB.
    let mut sites: Vec<PathBuf> = std::fs::read_dir(tree.join("sites")).unwrap().flatten().map(|e| e.path()).collect();
    sites.sort();
    let mut text = String::new();
    for s in &sites {
        if text.len() >= 1 << 20 {
            break;
        }
        text.push_str(&std::fs::read_to_string(s).unwrap());
    }
    let dir = std::env::temp_dir().join("apache-lsp-bench-incremental");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("vhosts.conf");
    std::fs::write(&path, &text).unwrap();
    let u = uri(&path);
    println!(
        "\n== incremental diagnostics: {} ({:.2} MB, {} lines), {edits} edits of each kind ==",
        path.display(),
        text.len() as f64 / 1e6,
        text.lines().count()
    );
    let mut c = Timed::spawn(exe);
    c.initialize(json!({}));
    let t = Instant::now();
    c.c.open_version(&u, &text, 1);
    let (at, first) = c.diagnostics(&u, 1, Duration::from_secs(600)).expect("diagnostics after open");
    println!("open → diagnostics: {:.1} ms ({} diagnostics)", (at - t).as_secs_f64() * 1e3, first.len());

    let kinds: [(&str, Vec<usize>, &str); 3] = [
        ("plain directive (ServerAdmin)", edit_points(&text, "ServerAdmin ", "@"), "x"),
        ("access directive (Require ip)", edit_points(&text, "Require ip 1", "Require ip 1"), "0"),
        ("comment", edit_points(&text, "# ", "# "), "z"),
    ];
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let mut version = 1;
    for (what, points, ch) in kinds {
        if points.is_empty() {
            println!("{what}: no such line in the file");
            continue;
        }
        let (mut times, mut server, mut cpu) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..edits {
            let at = points[rng.below(points.len())];
            let (line, col) = position(&text, at);
            // Insert, then delete: two timed edits, and the text is back as it was.
            for insert in [true, false] {
                version += 1;
                let change = if insert {
                    json!({"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}}, "text": ch})
                } else {
                    json!({"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + 1}}, "text": ""})
                };
                let (cpu0, t) = (c.cpu(), Instant::now());
                c.c.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": u, "version": version}, "contentChanges": [change]}),
                );
                let (at, _) = c.diagnostics(&u, version, Duration::from_secs(600)).expect("diagnostics after an edit");
                times.push(at - t);
                cpu.push(c.cpu().saturating_sub(cpu0));
                server.extend(c.server_time(&format!("didChange {u} v{version} ")));
            }
        }
        println!("1-char edit in a {what}, didChange → publishDiagnostics");
        println!("    server time: {}", stats(server, Some(EDIT_TARGET)));
        if let Some(detail) = c.last_timing.split_once(" (").map(|(_, d)| d) {
            println!("    last edit's server time by stage: ({detail}");
        }
        println!("    client wall: {}", stats(times, None));
        println!("    server CPU:  {}", stats(cpu, None));
    }
    // The document is as it was opened: the diagnostics must be too.
    version += 1;
    c.c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": version}, "contentChanges": [{"text": text}]}),
    );
    let (_, last) = c.diagnostics(&u, version, Duration::from_secs(600)).expect("diagnostics after a full change");
    if last != first {
        println!("warning: the diagnostics after the edits differ from those of the original text");
    }
    c.c.shutdown();
}

/// Hovers in the 10 000-vhost workspace.
fn hover(exe: &Path, tree: &Path, hovers: usize) {
    let main = tree.join("apache2.conf");
    println!("\n== hover: workspace {} ==", main.display());
    let mut sites: Vec<PathBuf> = std::fs::read_dir(tree.join("sites")).unwrap().flatten().map(|e| e.path()).collect();
    sites.sort();
    let mut rng = Rng(0xD1B54A32D192ED03);
    let mut c = Timed::spawn(exe);
    c.initialize(json!({"rootConfig": main}));
    // Ten site files open, as in an editing session.
    let opened: Vec<(String, String)> = (0..10)
        .map(|_| {
            let p = &sites[rng.below(sites.len())];
            (uri(p), std::fs::read_to_string(p).unwrap())
        })
        .collect();
    let t = Instant::now();
    for (u, text) in &opened {
        c.c.open_version(u, text, 1);
    }
    for (u, _) in &opened {
        c.diagnostics(u, 1, Duration::from_secs(600)).expect("diagnostics after open");
    }
    println!("open 10 site files → diagnostics of each: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut headers = Vec::new();
    let mut access = Vec::new();
    for (i, (_, text)) in opened.iter().enumerate() {
        for (prefix, marker, is_header) in [
            ("<VirtualHost", "<Vi", true),
            ("<Directory ", "<Di", true),
            ("<Location ", "<Lo", true),
            ("Require ", "Req", false),
            ("Allow from", "All", false),
        ] {
            let into = if is_header { &mut headers } else { &mut access };
            into.extend(edit_points(text, prefix, marker).into_iter().map(|o| (i, position(text, o))));
        }
    }
    // The first hover after opening may wait for analysis still under way: timed apart.
    let (i, (line, col)) = headers[0];
    let t = Instant::now();
    let (at, _) = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": opened[i].0}, "position": {"line": line, "character": col}}),
        Duration::from_secs(600),
    );
    println!("first hover: {:.1} ms", (at - t).as_secs_f64() * 1e3);
    let _ = c.server_time("hover ");
    for (what, points) in [("section header", headers), ("access directive", access)] {
        let (mut times, mut server) = (Vec::new(), Vec::new());
        let mut empty = 0;
        for _ in 0..hovers {
            let (i, (line, col)) = points[rng.below(points.len())];
            let t = Instant::now();
            let (at, r) = c.request(
                "textDocument/hover",
                json!({"textDocument": {"uri": opened[i].0}, "position": {"line": line, "character": col}}),
                Duration::from_secs(300),
            );
            if r["result"].is_null() {
                empty += 1;
            }
            times.push(at - t);
            server.extend(c.server_time(&format!("hover {} ", opened[i].0)));
        }
        println!("hover on a {what}{}", if empty > 0 { format!(" ({empty} empty answers)") } else { String::new() });
        println!("    server time: {}", stats(server, Some(HOVER_TARGET)));
        println!("    client wall: {}", stats(times, None));
    }
    c.c.shutdown();
}
