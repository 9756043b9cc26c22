//! A minimal LSP client that drives the real `apache-lsp` binary over stdio.
//!
//! Every wait is bounded; the child is killed when the client is dropped.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// `apache-lsp migrate --write MAIN`, run to its end (the suites that rewrite a tree in place).
pub fn migrate_write(main: &std::path::Path) -> std::process::Output {
    Command::new(server_binary())
        .args(["migrate", "--write"])
        .arg(main)
        .output()
        .expect("run apache-lsp migrate --write")
}

/// The `apache-lsp` binary of this workspace, built on demand in the profile of the running
/// program (a test, or the bench binary): when it is missing or older than a source file of the
/// crates it is made of (`cargo test -p apache-lsp-e2e` alone does not build it; `cargo test
/// --workspace` does, with the workspace's features, and is not redone here).
pub fn server_binary() -> PathBuf {
    static CHECKED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    let exe = std::env::current_exe().expect("current_exe");
    // target/<profile>/deps/<test> or target/<profile>/<bin> → target/<profile>/apache-lsp
    let mut dir = exe.parent().expect("target dir");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir = dir.parent().expect("target dir");
    }
    let bin = dir.join("apache-lsp");
    let profile = match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev".to_string(),
        Some(p) => p.to_string(),
    };
    CHECKED.get_or_init(|| {
        let built = std::fs::metadata(&bin).and_then(|m| m.modified()).ok();
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let newest = ["lsp/src", "syntax/src", "lsp/Cargo.toml", "syntax/Cargo.toml"]
            .iter()
            .filter_map(|p| newest_mtime(&root.join(p), 0))
            .max();
        if built.is_none() || newest.is_some_and(|n| Some(n) > built) {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let st = Command::new(cargo)
                .args(["build", "--quiet", "--profile", &profile, "-p", "apache-lsp", "--bin", "apache-lsp"])
                .status()
                .expect("cargo build");
            assert!(st.success());
        }
    });
    bin
}

/// The latest modification time of a file or of the files below a directory (bounded depth).
fn newest_mtime(path: &std::path::Path, depth: usize) -> Option<std::time::SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return meta.modified().ok();
    }
    if depth > 8 {
        return None;
    }
    std::fs::read_dir(path).ok()?.flatten().filter_map(|e| newest_mtime(&e.path(), depth + 1)).max()
}

pub struct Client {
    child: Child,
    /// None once the input was closed.
    stdin: Option<ChildStdin>,
    /// Messages with the moment their last byte arrived (before parsing them).
    rx: Receiver<(Instant, Value)>,
    next_id: i64,
    /// Messages received while waiting for something else, with their arrival.
    backlog: Vec<(Instant, Value)>,
}

fn read_message(r: &mut impl BufRead) -> Option<(Instant, Value)> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse().ok();
        }
    }
    let mut buf = vec![0; len?];
    r.read_exact(&mut buf).ok()?;
    let at = Instant::now();
    serde_json::from_slice(&buf).ok().map(|v| (at, v))
}

impl Client {
    pub fn spawn() -> Client {
        Self::spawn_with(&[])
    }

    pub fn spawn_with(args: &[&str]) -> Client {
        Self::spawn_env(args, &[])
    }

    /// Spawns the server with extra environment variables.
    pub fn spawn_env(args: &[&str], env: &[(&str, &str)]) -> Client {
        let mut cmd = Command::new(server_binary());
        cmd.args(args).envs(env.iter().copied());
        Self::spawn_command(cmd)
    }

    /// Spawns a prepared command that runs the server (e.g. the server under a tracer), talking
    /// LSP on its stdin and stdout.
    pub fn spawn_command(cmd: Command) -> Client {
        Self::spawn_io(cmd, false).0
    }

    /// [`Client::spawn_command`], with the server's standard error read line by line
    /// into the returned channel (for its logs).
    pub fn spawn_logged(cmd: Command) -> (Client, Receiver<String>) {
        let (c, lines) = Self::spawn_io(cmd, true);
        (c, lines.expect("stderr is piped"))
    }

    fn spawn_io(mut cmd: Command, log: bool) -> (Client, Option<Receiver<String>>) {
        let stderr = if log { Stdio::piped() } else { Stdio::null() };
        let mut child =
            cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(stderr).spawn().expect("spawn apache-lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let lines = child.stderr.take().map(|err| {
            let (tx, rx) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            rx
        });
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::with_capacity(1 << 20, stdout);
            while let Some(msg) = read_message(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        (Client { child, stdin: Some(stdin), rx, next_id: 1, backlog: Vec::new() }, lines)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Messages received while waiting for others, oldest first.
    pub fn backlog(&self) -> impl Iterator<Item = &Value> {
        self.backlog.iter().map(|(_, m)| m)
    }

    /// Puts a message back into the backlog (it arrived now).
    pub fn keep(&mut self, m: Value) {
        self.backlog.push((Instant::now(), m));
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(bytes);
            let _ = stdin.flush();
        }
    }

    pub fn send(&mut self, msg: &Value) {
        let body = serde_json::to_vec(msg).unwrap();
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend(body);
        self.send_raw(&framed);
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits (bounded) for its response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_within(Duration::from_secs(10), method, params)
    }

    /// Sends a request and waits up to `timeout` for its response (a hang detector,
    /// not a speed assertion: give heavy requests in debug builds room).
    pub fn request_within(&mut self, timeout: Duration, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id, timeout).unwrap_or_else(|| panic!("no response to {method} within {timeout:?}"))
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Waits for the response to request `id`.
    pub fn response(&mut self, id: i64, timeout: Duration) -> Option<Value> {
        self.response_at(id, timeout).map(|(_, m)| m)
    }

    /// [`Client::response`], with the moment it arrived.
    pub fn response_at(&mut self, id: i64, timeout: Duration) -> Option<(Instant, Value)> {
        self.wait_for_at(timeout, |m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// Waits for a message matching `pred`, keeping the others in the backlog.
    pub fn wait_for(&mut self, timeout: Duration, pred: impl FnMut(&Value) -> bool) -> Option<Value> {
        self.wait_for_at(timeout, pred).map(|(_, m)| m)
    }

    /// [`Client::wait_for`], with the moment the message arrived.
    pub fn wait_for_at(&mut self, timeout: Duration, mut pred: impl FnMut(&Value) -> bool) -> Option<(Instant, Value)> {
        if let Some(i) = self.backlog.iter().position(|(_, m)| pred(m)) {
            return Some(self.backlog.remove(i));
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            match self.rx.recv_timeout(left) {
                Ok((at, m)) => {
                    if m.get("method")
                        .and_then(|v| v.as_str())
                        .is_some_and(|s| s.starts_with("window/") || s.starts_with("client/"))
                        && m.get("id").is_some()
                    {
                        // Answer server-to-client requests (progress, registration) so it never blocks.
                        let id = m["id"].clone();
                        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": null}));
                    }
                    if pred(&m) {
                        return Some((at, m));
                    }
                    self.backlog.push((at, m));
                }
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Waits for the diagnostics of `uri`, optionally for a given version.
    pub fn diagnostics(&mut self, uri: &str, version: Option<i64>, timeout: Duration) -> Option<Vec<Value>> {
        self.diagnostics_at(uri, version, timeout).map(|(_, d)| d)
    }

    /// [`Client::diagnostics`], with the moment they arrived.
    pub fn diagnostics_at(
        &mut self,
        uri: &str,
        version: Option<i64>,
        timeout: Duration,
    ) -> Option<(Instant, Vec<Value>)> {
        let (at, m) = self.wait_for_at(timeout, |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && version.is_none_or(|v| m["params"]["version"] == json!(v))
        })?;
        Some((at, m["params"]["diagnostics"].as_array().cloned().unwrap_or_default()))
    }

    pub fn initialize(&mut self, capabilities: Value) -> Value {
        let r = self.request("initialize", json!({"processId": null, "rootUri": null, "capabilities": capabilities}));
        self.notify("initialized", json!({}));
        r
    }

    /// Initializes with workspace folders and extra initialization options.
    pub fn initialize_with(&mut self, capabilities: Value, folders: &[&std::path::Path], options: Value) -> Value {
        let folders: Vec<Value> = folders
            .iter()
            .map(|f| json!({"uri": file_uri(f), "name": f.file_name().map(|n| n.to_string_lossy().into_owned())}))
            .collect();
        let r = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": capabilities,
                   "workspaceFolders": folders, "initializationOptions": options}),
        );
        self.notify("initialized", json!({}));
        r
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.open_version(uri, text, 1);
    }

    pub fn open_version(&mut self, uri: &str, text: &str, version: i64) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "apacheconf", "version": version, "text": text}}),
        );
    }

    /// Shuts down politely; returns the exit status if the server exited in time.
    pub fn shutdown(mut self) -> Option<std::process::ExitStatus> {
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Closes the server's stdin (end of input) and waits up to `timeout` for it to exit.
    pub fn close_input(mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        drop(self.stdin.take());
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Bytes a `file:` URI path keeps as they are (the url crate's path set, kept for comparisons).
fn keep_in_uri(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b)
}

/// The `file:` URI of an absolute path, percent-encoding what a URI path cannot hold.
pub fn file_uri(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut s = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if keep_in_uri(b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// The path of a `file:` URI (percent-decoded).
pub fn uri_path(uri: &str) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    let rest = uri.strip_prefix("file://").unwrap_or(uri);
    let b = rest.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&rest[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

/// The LSP position (line, UTF-16 column) of the first occurrence of `needle` in
/// `text`, plus `delta` characters.
pub fn position_of(text: &str, needle: &str, delta: usize) -> Value {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the text"));
    let at = at + needle.chars().take(delta).map(char::len_utf8).sum::<usize>();
    let before = &text[..at];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    json!({"line": line, "character": before[start..].encode_utf16().count()})
}
