#!/usr/bin/env python3
"""Seed inputs for the fuzz targets, written into a corpus directory per target.

usage: seeds.py OUT_DIR CONFIG_FILE...

  OUT_DIR/parser/  each configuration file as it is
  OUT_DIR/config/  main file, included file and .htaccess, split by lines `%%`
  OUT_DIR/server/  a session over stdio that opens the file and asks everything
Only the Python standard library; inputs the server target skips (Include, ${…})
are kept out of the server seeds.
"""
import hashlib, json, os, sys

FORBIDDEN = ["include", "rootconfig", "${", "\\u", "accessfilename", "migrate", "authgroupfile"]


def frame(msg):
    body = json.dumps(msg, ensure_ascii=False).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def session(text, utf8):
    uri = "file:///srv/fuzz/httpd.conf"
    td = {"uri": uri}
    lines = text.split("\n")
    last = max(len(lines) - 1, 0)
    mid = {"line": last // 2, "character": 2}
    caps = {"general": {"positionEncodings": ["utf-8"]}} if utf8 else {}
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": caps}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "apacheconf", "version": 1, "text": text}}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"textDocument": td, "position": mid}},
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/documentSymbol", "params": {"textDocument": td}},
        {"jsonrpc": "2.0", "id": 4, "method": "textDocument/foldingRange", "params": {"textDocument": td}},
        {"jsonrpc": "2.0", "id": 5, "method": "textDocument/codeAction",
         "params": {"textDocument": td, "range": {"start": {"line": 0, "character": 0}, "end": {"line": last, "character": 0}},
                    "context": {"diagnostics": []}}},
        {"jsonrpc": "2.0", "id": 6, "method": "workspace/executeCommand",
         "params": {"command": "apache-lsp.syntaxTree", "arguments": [{"uri": uri}]}},
        {"jsonrpc": "2.0", "id": 7, "method": "workspace/executeCommand",
         "params": {"command": "apache-lsp.explain", "arguments": [{"uri": uri, "url": "/", "client": "10.0.0.1"}]}},
        {"jsonrpc": "2.0", "method": "textDocument/didChange",
         "params": {"textDocument": {"uri": uri, "version": 2},
                    "contentChanges": [{"range": {"start": mid, "end": {"line": last, "character": 0}}, "text": "Order deny,allow\n"}]}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 8}},
        {"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover",
         "params": {"textDocument": td, "position": {"line": last + 5, "character": 99}}},
        {"jsonrpc": "2.0", "id": 9, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    return b"".join(frame(m) for m in msgs)


def hostile_session():
    """Messages out of order and out of shape, then a valid request."""
    parts = [
        frame({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
               "params": {"textDocument": {"uri": "file:///x.conf"}, "position": {"line": 0, "character": 0}}}),
        b"Content-Length: 9\r\n\r\n{not json",
        b"garbage\r\n\r\n",
        b"Content-Length: 99999999999999999999\r\n\r\n",
        b"Content-Length: 2\r\n\r\n[]",
        frame({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"capabilities": {}}}),
        frame({"jsonrpc": "2.0", "id": 3, "method": "apache/unknown", "params": {}}),
        frame({"jsonrpc": "2.0", "method": "apache/unknownNotification", "params": {}}),
        frame({"jsonrpc": "2.0", "method": "textDocument/didChange",
               "params": {"textDocument": {"uri": "file:///nope.conf", "version": 2}, "contentChanges": [{"text": "x"}]}}),
        frame({"jsonrpc": "2.0", "id": 4, "method": "shutdown", "params": None}),
        frame({"jsonrpc": "2.0", "method": "exit", "params": None}),
    ]
    return b"".join(parts)


def main():
    out, files = sys.argv[1], sys.argv[2:]
    for t in ("parser", "config", "server"):
        os.makedirs(os.path.join(out, t), exist_ok=True)
    with open(os.path.join(out, "server", "hostile-session"), "wb") as fh:
        fh.write(hostile_session())
    texts = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                data = fh.read(64 * 1024)
        except OSError:
            continue
        texts.append(data)
    for i, data in enumerate(texts):
        name = hashlib.sha1(data).hexdigest()[:16]
        with open(os.path.join(out, "parser", name), "wb") as fh:
            fh.write(data)
        # Small parts: the engine reads the .htaccess for every request it evaluates.
        other = texts[(i + 1) % len(texts)][:2048]
        ht = texts[(i + 2) % len(texts)][:1024]
        with open(os.path.join(out, "config", name), "wb") as fh:
            fh.write(data[:4096] + b"\n%%\n" + other + b"\n%%\n" + ht)
        text = data[:8192].decode("utf-8", "replace")
        if not any(f in text.lower() for f in FORBIDDEN):
            with open(os.path.join(out, "server", name), "wb") as fh:
                fh.write(session(text, utf8=i % 2 == 1))


if __name__ == "__main__":
    main()
