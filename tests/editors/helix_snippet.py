#!/usr/bin/env python3
"""Checks the Helix block of editors/README.md: valid TOML, an apache-lsp language server, and a
language that uses it for the agreed file patterns. (Helix is not packaged for Debian, so this is
as far as a test gets here.)"""
import os
import re
import sys
import tomllib

repo = os.environ["APACHE_LSP_REPO"]
text = open(os.path.join(repo, "editors/README.md"), encoding="utf-8").read()
m = re.search(r"<!-- test: helix.*?```toml\n(.*?)\n```", text, re.S)
try:
    assert m, "no ```toml block after '<!-- test: helix'"
    cfg = tomllib.loads(m.group(1))
    server = cfg["language-server"]["apache-lsp"]
    assert server["command"] == "apache-lsp", "language-server.apache-lsp.command"
    (lang,) = [l for l in cfg["language"] if l["name"] == "apache"]
    assert lang["language-servers"] == ["apache-lsp"], "language-servers"
    assert lang["comment-token"] == "#"
    globs = {ft["glob"] for ft in lang["file-types"] if isinstance(ft, dict)}
    want = {"httpd.conf", "apache2.conf", "httpd-*.conf", ".htaccess", "**/apache2/**/*.conf", "**/httpd/**/*.conf",
            "**/sites-available/*", "**/sites-enabled/*", "**/conf-available/*.conf", "**/conf.d/*.conf"}
    assert want <= globs, f"file-types lack {sorted(want - globs)}"
    assert not any(g in ("*.conf", "**/*.conf") for g in globs), "claims every *.conf"
except (AssertionError, KeyError, ValueError, tomllib.TOMLDecodeError) as e:
    print(f"FAIL: Helix snippet: {e!r}")
    sys.exit(1)
print(f"Helix snippet: valid TOML, {len(lang['file-types'])} file types, server {server['command']}")
print("PASS")
