//! A guard in front of tower-lsp's reader.
//!
//! tower-lsp stops reading for good after one undecodable message (its framed
//! reader ends on the first error), so a single malformed message would end the
//! session. This task re-frames stdin itself: well-formed messages pass through
//! untouched; a body that is not JSON, or headers without a usable
//! Content-Length, become a `$/apacheLsp/malformedMessage` notification that the
//! server reports to the client, and reading goes on. A JSON object tower-lsp
//! would not decode is passed on as [`INVALID_REQUEST`] when it has a usable id
//! (the client gets InvalidRequest), else reported the same way.

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// Largest message accepted (a whole 100 MB document plus JSON overhead).
const MAX_MESSAGE: usize = 512 * 1024 * 1024;
/// Longest header line accepted; real ones are a few dozen bytes.
const MAX_HEADER_LINE: u64 = 8192;

pub const MALFORMED: &str = "$/apacheLsp/malformedMessage";
/// A request tower-lsp could not decode (a JSON object that is not JSON-RPC 2.0:
/// another version, an id that is neither an integer nor a string…) but whose id
/// is readable: passed on under this method so that it is answered with
/// InvalidRequest instead of ending the session.
pub const INVALID_REQUEST: &str = "$/apacheLsp/invalidRequest";

fn frame(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

/// Whether tower-lsp will decode the body: its own message types are the test.
fn is_message(body: &[u8]) -> bool {
    serde_json::from_slice::<tower_lsp::jsonrpc::Request>(body).is_ok()
        || serde_json::from_slice::<tower_lsp::jsonrpc::Response>(body).is_ok()
}

/// What to pass on instead of a JSON object that is not a JSON-RPC message.
fn invalid(v: &serde_json::Value) -> Vec<u8> {
    let reason = "not a JSON-RPC 2.0 request, notification or response";
    match v.get("id").filter(|id| id.is_i64() || id.is_string()) {
        Some(id) if v.get("method").is_some() => {
            let req = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": INVALID_REQUEST, "params": {"reason": reason}});
            frame(req.to_string().as_bytes())
        }
        _ => malformed(reason),
    }
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
            match (&mut r).take(MAX_HEADER_LINE).read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return false,
                Ok(_) => {}
            }
            if !line.ends_with(b"\n") && line.len() as u64 == MAX_HEADER_LINE {
                // No header is this long: skip to the end of the line, in bounded pieces.
                bad_header = Some(format!("a header line longer than {MAX_HEADER_LINE} bytes"));
                saw_header = true;
                loop {
                    line.clear();
                    match (&mut r).take(MAX_HEADER_LINE).read_until(b'\n', &mut line).await {
                        Ok(0) | Err(_) => return false,
                        Ok(_) if line.ends_with(b"\n") => break,
                        Ok(_) => {}
                    }
                }
                continue;
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
        // Read as it arrives: a Content-Length alone does not allocate the whole size.
        let mut body = Vec::new();
        match (&mut r).take(n as u64).read_to_end(&mut body).await {
            Ok(got) if got == n => {}
            _ => return false,
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
                if v.get("params").is_some_and(|p| p.is_null()) {
                    v.as_object_mut().map(|o| o.remove("params"));
                    body = v.to_string().into_bytes();
                }
                if is_message(&body) {
                    frame(&body)
                } else {
                    invalid(&v)
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
