//! A guard in front of tower-lsp's reader.
//!
//! tower-lsp stops reading for good after one undecodable message (its framed
//! reader ends on the first error), so a single malformed message would end the
//! session. This task re-frames stdin itself: well-formed messages pass through
//! untouched; a body that is not JSON, or headers without a usable
//! Content-Length, become a `$/apacheLsp/malformedMessage` notification that the
//! server reports to the client, and reading goes on.

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// Largest message accepted (a whole 100 MB document plus JSON overhead).
const MAX_MESSAGE: usize = 512 * 1024 * 1024;

pub const MALFORMED: &str = "$/apacheLsp/malformedMessage";

fn frame(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

fn malformed(reason: &str) -> Vec<u8> {
    let body = serde_json::json!({"jsonrpc": "2.0", "method": MALFORMED, "params": {"reason": reason}});
    frame(body.to_string().as_bytes())
}

/// Copies messages until EOF or the `exit` notification; returns whether `exit`
/// came after a `shutdown` request (the exit status the protocol asks for).
pub async fn pump(input: impl tokio::io::AsyncRead + Unpin, mut out: impl AsyncWrite + Unpin) -> bool {
    let mut r = BufReader::new(input);
    let mut shutdown_seen = false;
    loop {
        let mut len: Option<usize> = None;
        let mut bad_header = None;
        let mut saw_header = false;
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return false,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            let t = text.trim_end_matches(['\r', '\n']);
            if t.is_empty() {
                if saw_header {
                    break;
                }
                continue;
            }
            saw_header = true;
            if let Some((k, v)) = t.split_once(':') {
                if k.trim().eq_ignore_ascii_case("content-length") {
                    match v.trim().parse::<usize>() {
                        Ok(n) if n <= MAX_MESSAGE => len = Some(n),
                        _ => bad_header = Some(format!("bad Content-Length '{}'", v.trim())),
                    }
                }
            } else {
                bad_header = Some(format!("not a header line: '{}'", t.chars().take(80).collect::<String>()));
            }
        }
        let Some(n) = len else {
            let reason = bad_header.unwrap_or_else(|| "message without Content-Length".into());
            if out.write_all(&malformed(&reason)).await.is_err() {
                return false;
            }
            continue;
        };
        let mut body = vec![0; n];
        if r.read_exact(&mut body).await.is_err() {
            return false;
        }
        let mut exit = false;
        let msg = match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(mut v) if v.is_object() => {
                let method = v.get("method").and_then(|m| m.as_str()).map(str::to_string);
                match method.as_deref() {
                    Some("shutdown") => shutdown_seen = true,
                    Some("exit") => exit = true,
                    _ => {}
                }
                // Some clients (eglot) send `"params": null` to methods that take none;
                // tower-lsp rejects that, JSON-RPC allows omitting it.
                if matches!(method.as_deref(), Some("shutdown" | "exit"))
                    && v.get("params").is_some_and(|p| p.is_null())
                {
                    v.as_object_mut().map(|o| o.remove("params"));
                    frame(v.to_string().as_bytes())
                } else {
                    frame(&body)
                }
            }
            Ok(_) => malformed("the message is JSON but not an object"),
            Err(e) => malformed(&format!("the message body is not valid JSON: {e}")),
        };
        if out.write_all(&msg).await.is_err() {
            return false;
        }
        if exit {
            // Closing our end ends tower-lsp's reader, which ends the session.
            let _ = out.shutdown().await;
            return shutdown_seen;
        }
    }
}
