#!/usr/bin/env python3
"""A broken apache-lsp for the editor tests' negative runs (APACHE_LSP_E2E_BROKEN_SERVER=1).

It speaks enough LSP over stdio to be started by every editor (initialize,
shutdown, exit; null for any other request) but never publishes diagnostics and
has no hover or code actions: each editor test must fail against it.
Standard library only.
"""
import json
import sys

inp, out = sys.stdin.buffer, sys.stdout.buffer


def read_message():
    length = None
    while True:
        line = inp.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(inp.read(length)) if length is not None else {}


def send(obj):
    body = json.dumps(obj).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    out.flush()


while True:
    msg = read_message()
    if msg is None or msg.get("method") == "exit":
        break
    if "id" not in msg or "method" not in msg:
        continue  # a notification, or a response to us
    if msg["method"] == "initialize":
        result = {"capabilities": {"textDocumentSync": 1, "hoverProvider": True, "codeActionProvider": True},
                  "serverInfo": {"name": "apache-lsp (fake, broken)", "version": "0"}}
    else:
        result = None
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
