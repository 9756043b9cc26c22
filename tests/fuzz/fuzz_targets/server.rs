//! The server's message stream: any bytes on its input go through the framing
//! guard and tower-lsp's dispatch to the handlers. Never a panic that escapes a
//! handler, never a hang; the session ends when the input does.
//!
//! Each input runs as-is and again behind a valid `initialize`, so that the
//! handlers past initialization are reached. Sandbox: inputs that could make the
//! server read the machine's files (Include, a root configuration, variables or
//! JSON escapes that could spell them, access file names) or wait for a client
//! answer (the migrate commands' applyEdit) are skipped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use std::time::Duration;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .thread_stack_size(apache_lsp::STACK_SIZE)
            .enable_all()
            .build()
            .unwrap()
    })
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

const FORBIDDEN: &[&str] = &["include", "rootconfig", "${", "\\u", "accessfilename", "migrate", "authgroupfile"];

fuzz_target!(|data: &[u8]| {
    let lower = String::from_utf8_lossy(data).to_ascii_lowercase();
    if FORBIDDEN.iter().any(|f| lower.contains(f)) {
        return;
    }
    let init = frame(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}}"#);
    let initialized = frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
    let behind_init = [init, initialized, data.to_vec()].concat();
    for input in [data.to_vec(), behind_init] {
        let out = runtime().block_on(async {
            let input = std::io::Cursor::new(input);
            let mut output = Vec::new();
            let run = apache_lsp::server::serve(input, &mut output, Duration::from_millis(500));
            // A hang detector, not a speed limit: the grace period bounds the end.
            tokio::time::timeout(Duration::from_secs(60), run).await.expect("the session did not end");
            output
        });
        // Whatever came out is well-framed JSON.
        let mut rest = &out[..];
        while !rest.is_empty() {
            let text = String::from_utf8_lossy(rest);
            let header_end = text.find("\r\n\r\n").expect("a header");
            let len: usize = text[..header_end]
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .expect("Content-Length")
                .trim()
                .parse()
                .unwrap();
            let body = &rest[header_end + 4..header_end + 4 + len];
            let _: serde_json::Value = serde_json::from_slice(body).expect("JSON body");
            rest = &rest[header_end + 4 + len..];
        }
    }
});
