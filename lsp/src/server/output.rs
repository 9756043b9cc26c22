//! The server's output: tower-lsp's byte stream, with whole messages that the
//! backend serialized itself put between tower-lsp's messages.
//!
//! tower-lsp turns every notification's parameters into a `serde_json::Value`
//! before writing it, which for a large `publishDiagnostics` (thousands of
//! diagnostics, a megabyte of JSON) costs more than the analysis did. The backend
//! serializes those straight from the typed structs instead and hands the
//! finished [`Frame`] to an [`Outbox`]. One task owns the real output: it copies
//! tower-lsp's bytes through, follows their `Content-Length` headers to know where
//! each message ends, and writes a queued frame only there, never inside a
//! message. Frames leave in the order they were queued.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// One whole message: its header and its JSON body.
#[derive(Debug)]
pub struct Frame {
    header: String,
    body: Vec<u8>,
}

impl Frame {
    /// Frames a JSON body; `Content-Length` counts its bytes.
    pub fn new(body: Vec<u8>) -> Frame {
        Frame { header: format!("Content-Length: {}\r\n\r\n", body.len()), body }
    }

    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The frame as written.
    #[cfg(test)]
    pub fn to_bytes(&self) -> Vec<u8> {
        [self.header.as_bytes(), &self.body].concat()
    }

    async fn write_to(&self, out: &mut (impl AsyncWrite + Unpin)) -> std::io::Result<()> {
        out.write_all(self.header.as_bytes()).await?;
        out.write_all(&self.body).await
    }
}

/// Where the backend queues frames for the output task.
#[derive(Clone)]
pub struct Outbox(mpsc::Sender<Frame>);

impl Outbox {
    /// Queues a frame behind those queued before; waits while the queue is full
    /// (the client reads slowly). Gives the frame back when the output task has
    /// ended.
    pub async fn send(&self, frame: Frame) -> Result<(), Frame> {
        self.0.send(frame).await.map_err(|e| e.0)
    }
}

/// Frames waiting for the output; the backend waits beyond that (as it waits for
/// tower-lsp's own queue), so a client that stops reading does not grow memory.
const QUEUED: usize = 4;

/// Wraps `out`: returns the stream tower-lsp writes to, the outbox, and the task
/// that writes both to `out`. The task ends when tower-lsp's stream ends (after
/// writing the frames queued until then) or when writing fails.
pub fn output(
    out: impl AsyncWrite + Unpin,
) -> (tokio::io::DuplexStream, Outbox, impl std::future::Future<Output = ()>) {
    let (server_side, ours) = tokio::io::duplex(1 << 16);
    let (tx, rx) = mpsc::channel(QUEUED);
    (server_side, Outbox(tx), mux(ours, rx, out))
}

async fn mux(
    mut from_server: impl AsyncRead + Unpin,
    mut frames: mpsc::Receiver<Frame>,
    mut out: impl AsyncWrite + Unpin,
) {
    let mut buf = vec![0u8; 1 << 16];
    let mut bounds = Boundaries::default();
    let mut frames_open = true;
    loop {
        tokio::select! {
            read = from_server.read(&mut buf) => {
                let n = match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut chunk = &buf[..n];
                while !chunk.is_empty() {
                    let k = bounds.advance(chunk);
                    if out.write_all(&chunk[..k]).await.is_err() {
                        return;
                    }
                    chunk = &chunk[k..];
                    if bounds.at_boundary() && write_queued(&mut frames, &mut out).await.is_err() {
                        return;
                    }
                }
            }
            frame = frames.recv(), if frames_open && bounds.at_boundary() => match frame {
                Some(f) => {
                    if f.write_to(&mut out).await.is_err() || write_queued(&mut frames, &mut out).await.is_err() {
                        return;
                    }
                }
                None => frames_open = false,
            },
        }
        if out.flush().await.is_err() {
            return;
        }
    }
    // tower-lsp's stream ended: frames queued until now still go out, if they
    // can do so whole.
    if bounds.at_boundary() {
        let _ = write_queued(&mut frames, &mut out).await;
    }
    let _ = out.flush().await;
}

/// Writes the frames queued now, without waiting for more.
async fn write_queued(frames: &mut mpsc::Receiver<Frame>, out: &mut (impl AsyncWrite + Unpin)) -> std::io::Result<()> {
    while let Ok(f) = frames.try_recv() {
        f.write_to(out).await?;
    }
    Ok(())
}

/// Follows a stream of framed messages (`Content-Length` headers, a blank line,
/// the body) to know where each one ends.
#[derive(Debug, Default)]
struct Boundaries {
    /// Bytes of the message's body still to come; None while in its headers.
    body_left: Option<usize>,
    /// The header line read so far (only its start is kept: real ones are short).
    line: Vec<u8>,
    /// Whether this message's headers began.
    in_headers: bool,
    content_length: usize,
}

/// Header bytes kept of one line; longer lines are cut (they are not Content-Length).
const KEPT_LINE: usize = 256;

impl Boundaries {
    /// Whether everything seen so far is whole messages.
    fn at_boundary(&self) -> bool {
        self.body_left.is_none() && !self.in_headers && self.line.is_empty()
    }

    /// Consumes the start of `bytes` up to the end of the first message ending in
    /// it, or all of it; returns how many bytes were consumed.
    fn advance(&mut self, bytes: &[u8]) -> usize {
        let mut i = 0;
        while i < bytes.len() {
            match self.body_left {
                Some(left) => {
                    let k = left.min(bytes.len() - i);
                    i += k;
                    self.body_left = Some(left - k);
                }
                None => {
                    let rest = &bytes[i..];
                    let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
                        self.keep(rest);
                        return bytes.len();
                    };
                    self.keep(&rest[..nl]);
                    i += nl + 1;
                    self.end_line();
                }
            }
            if self.body_left == Some(0) {
                self.body_left = None;
                return i;
            }
        }
        i
    }

    fn keep(&mut self, part: &[u8]) {
        let room = KEPT_LINE.saturating_sub(self.line.len());
        self.line.extend_from_slice(&part[..part.len().min(room)]);
        // A line holds something even when its start was all that was kept.
        if !part.is_empty() {
            self.in_headers = true;
        }
    }

    fn end_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches('\r');
        if text.is_empty() {
            if self.in_headers {
                // The blank line after the headers: the body follows.
                self.in_headers = false;
                self.body_left = Some(std::mem::take(&mut self.content_length));
            }
            return;
        }
        self.in_headers = true;
        if let Some((k, v)) = text.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-length") {
                self.content_length = v.trim().parse().unwrap_or(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use tokio::io::AsyncWriteExt;

    fn framed(v: &Value) -> Vec<u8> {
        let body = v.to_string();
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    /// Splits `bytes` into messages, checking each header and that each body is
    /// exactly `Content-Length` bytes of JSON.
    fn messages(mut bytes: &[u8]) -> Vec<Value> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").expect("headers end");
            let header = std::str::from_utf8(&bytes[..end]).unwrap();
            let n: usize = header.strip_prefix("Content-Length: ").expect(header).parse().unwrap();
            let body = &bytes[end + 4..end + 4 + n];
            out.push(serde_json::from_slice(body).expect("a whole JSON body"));
            bytes = &bytes[end + 4 + n..];
        }
        out
    }

    /// A message with non-ASCII text, so that bytes and characters differ.
    fn message(from: &str, i: usize) -> Value {
        json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": format!("{from} {i} ünïcödé █ 日本語 🦀")}})
    }

    /// Writes `bytes` in pieces of 1 to 13 bytes, cutting headers, the blank line
    /// and multi-byte characters, letting the other tasks run between pieces.
    async fn write_in_pieces(to: &mut (impl AsyncWrite + Unpin), bytes: &[u8]) {
        let (mut at, mut k) = (0, 0);
        while at < bytes.len() {
            k = (k * 7 + 3) % 13 + 1;
            let end = (at + k).min(bytes.len());
            to.write_all(&bytes[at..end]).await.unwrap();
            tokio::task::yield_now().await;
            at = end;
        }
    }

    #[tokio::test]
    async fn frames_go_whole_between_messages_written_in_small_pieces() {
        let n = 60;
        let mut out = Vec::new();
        let (mut server, outbox, task) = output(&mut out);
        let server_writes = async move {
            let all: Vec<u8> = (0..n).flat_map(|i| framed(&message("server", i))).collect();
            write_in_pieces(&mut server, &all).await;
            // Ends tower-lsp's stream, and so the task (once the queued frames are out).
            drop(server);
        };
        let backend_queues = async move {
            for i in 0..n {
                let f = Frame::new(message("queued", i).to_string().into_bytes());
                outbox.send(f).await.unwrap();
                tokio::task::yield_now().await;
            }
        };
        tokio::join!(server_writes, backend_queues, task);
        let got = messages(&out);
        assert_eq!(got.len(), 2 * n);
        let from = |who: &str| -> Vec<Value> {
            got.iter().filter(|m| m["params"]["message"].as_str().unwrap().starts_with(who)).cloned().collect()
        };
        assert_eq!(from("server"), (0..n).map(|i| message("server", i)).collect::<Vec<_>>());
        assert_eq!(from("queued"), (0..n).map(|i| message("queued", i)).collect::<Vec<_>>());
        // They did interleave: the queued frames did not all wait for the end.
        let first_queued = got.iter().position(|m| m["params"]["message"].as_str().unwrap().starts_with("queued"));
        assert!(first_queued.unwrap() < n);
    }

    #[tokio::test]
    async fn a_frame_queued_inside_a_message_waits_for_its_end() {
        let (client_end, out) = tokio::io::duplex(1 << 20);
        let (mut server, outbox, task) = output(out);
        let task = tokio::spawn(task);
        let a = framed(&message("server", 1));
        let (head, tail) = a.split_at(a.len() / 2);
        server.write_all(head).await.unwrap();
        let mut client_end = client_end;
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        // The output passed the first half on: the frame is queued inside the message.
        while got.len() < head.len() {
            let n = client_end.read(&mut buf).await.unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        outbox.send(Frame::new(message("queued", 1).to_string().into_bytes())).await.unwrap();
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
        server.write_all(tail).await.unwrap();
        // With tower-lsp silent after a whole message, a queued frame still goes out.
        outbox.send(Frame::new(message("queued", 2).to_string().into_bytes())).await.unwrap();
        let want = vec![message("server", 1), message("queued", 1), message("queued", 2)];
        while messages_so_far(&got) < want.len() {
            let n = client_end.read(&mut buf).await.unwrap();
            assert!(n > 0, "output ended early");
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(messages(&got), want);
        drop(server);
        task.await.unwrap();
        // The output has ended: a frame comes back, for the caller to send another way.
        assert!(outbox.send(Frame::new(b"{}".to_vec())).await.is_err());
    }

    /// How many whole messages `bytes` holds.
    fn messages_so_far(bytes: &[u8]) -> usize {
        let mut b = Boundaries::default();
        let (mut at, mut whole) = (0, 0);
        while at < bytes.len() {
            at += b.advance(&bytes[at..]);
            whole += b.at_boundary() as usize;
        }
        whole
    }

    #[test]
    fn content_length_counts_bytes() {
        let f = Frame::new("\"é🦀\"".as_bytes().to_vec());
        assert_eq!(f.header, "Content-Length: 8\r\n\r\n");
    }
}
