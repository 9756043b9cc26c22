#!/usr/bin/env bash
# Editor end-to-end tests: real editors, headless, against the apache-lsp binary.
#
#   tests/editors/run.sh [TEST...]     TEST: nvim011 nvim07 emacs vim vscode helix (default: all;
#                                      "nvim" = nvim011 nvim07)
#
# Each test opens tests/editors/fixtures/apache2.conf (2.2 Order/Allow in a <Directory>) with the
# project's own editor files and checks: deprecated-access diagnostics, hover with the effective
# access, the preferred "Rewrite as Require" quick fix applied, diagnostics withdrawn.
# Every test is then run again against tests/editors/fake-server.py (APACHE_LSP_E2E_BROKEN_SERVER=1:
# starts, publishes nothing) and must fail there; that proves the test can see a broken server.
#
# Env: APACHE_LSP_BIN             server binary (default: $CARGO_TARGET_DIR or target/, debug/apache-lsp;
#                                 built with cargo when absent)
#      APACHE_LSP_EDITOR_DEPS     install cache (default target/editor-deps; see install.sh)
#      APACHE_LSP_E2E_BROKEN_SERVER=1  run only against the fake server (the tests then fail)
#      APACHE_LSP_E2E_NEGATIVE=0  skip the runs against the fake server
#      APACHE_LSP_UPDATE_SCREENSHOTS=1  copy the VS Code hover/quick-fix screenshots to editors/vscode/images/
# Editors that are not installed are skipped with a note (tests/editors/install.sh installs them).
# Screenshots and logs of failures go to tests/artifacts/ (not committed).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DEPS=${APACHE_LSP_EDITOR_DEPS:-$REPO/target/editor-deps}
ARTIFACTS=$REPO/tests/artifacts
export APACHE_LSP_REPO=$REPO
mkdir -p "$ARTIFACTS"

BIN=${APACHE_LSP_BIN:-${CARGO_TARGET_DIR:-$REPO/target}/debug/apache-lsp}
if [ "${APACHE_LSP_E2E_BROKEN_SERVER:-0}" != 1 ] && [ ! -x "$BIN" ]; then
  echo "editors: $BIN is missing: cargo build -p apache-lsp"
  (cd "$REPO" && cargo build -q -p apache-lsp) || exit 1
fi
case "$BIN" in /*) ;; *) BIN=$REPO/$BIN ;; esac

NVIM011=$DEPS/nvim-venv/bin/nvim
CODE_SERVER=$DEPS/code-server/node_modules/.bin/code-server
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(nvim011 nvim07 emacs vim vscode helix)
expanded=()
for t in "${tests[@]}"; do
  case "$t" in nvim) expanded+=(nvim011 nvim07) ;; *) expanded+=("$t") ;; esac
done

# Why TEST cannot run here, or nothing.
unavailable() {
  case "$1" in
    nvim011) [ -x "$NVIM011" ] || echo "Neovim 0.11 ($NVIM011) not installed" ;;
    nvim07) command -v nvim >/dev/null || echo "nvim (Debian neovim) not installed" ;;
    emacs) { command -v emacs >/dev/null && [ -d /usr/share/emacs/site-lisp/elpa/eglot-1.9 ]; } \
             || echo "emacs + elpa-eglot + elpa-apache-mode not installed" ;;
    vim) { command -v vim >/dev/null && [ -d /usr/share/vim-ale ]; } || echo "vim + vim-ale not installed" ;;
    vscode) { [ -x "$CODE_SERVER" ] && [ -x /usr/bin/chromium ] && [ -d "$DEPS/pw/node_modules/playwright-core" ] \
                && [ -d "$DEPS/vscode-ext/node_modules" ]; } \
              || echo "code-server, chromium, playwright-core or the extension's node_modules not installed" ;;
    helix) python3 -c 'import tomllib' 2>/dev/null || echo "python3 >= 3.11 (tomllib) missing" ;;
    *) echo "unknown test $1" ;;
  esac
}

VSIX=$DEPS/apache-lsp.vsix
build_vsix() { # the .vsix from the current editors/vscode sources, in the cached copy with node_modules
  local dest=$DEPS/vscode-ext
  find "$dest" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
  tar -C "$REPO/editors/vscode" --exclude=./node_modules --exclude=./out --exclude=./server --exclude='*.vsix' -cf - . \
    | tar -C "$dest" -xf -
  (cd "$dest" && APACHE_LSP_BUNDLE_SERVER=0 VSIX_OUT="$VSIX" npm run -s package >"$DEPS/vsix.log" 2>&1) \
    || { cat "$DEPS/vsix.log"; return 1; }
}

# run_test TEST SERVER: runs one editor test with SERVER as apache-lsp; its output on stdout.
run_test() {
  local t=$1 server=$2 bindir
  bindir=$(mktemp -d /tmp/apache-lsp-bin.XXXXXX)
  ln -s "$server" "$bindir/apache-lsp"   # the README snippets start "apache-lsp" from PATH
  local -a cmd
  case "$t" in
    nvim011) cmd=("$NVIM011" --headless -u NONE -i NONE -c "luafile $HERE/nvim/nvim011.lua") ;;
    nvim07) cmd=(nvim --headless -u NONE -i NONE -c "luafile $HERE/nvim/nvim07.lua") ;;
    emacs) cmd=(emacs --batch -l "$HERE/emacs/eglot-test.el") ;;
    vim) cmd=(vim -N -u NONE -i NONE -es -S "$HERE/vim/ale-test.vim") ;;
    vscode) cmd=(env CODE_SERVER="$CODE_SERVER" VSIX="$VSIX" PW_DIR="$DEPS/pw" APACHE_LSP_SERVER="$server"
                 ARTIFACTS="$ARTIFACTS/vscode${BROKEN_SUFFIX:-}" "$HERE/vscode/run.sh") ;;
    helix) cmd=(python3 "$HERE/helix_snippet.py") ;;
  esac
  (cd "$bindir" && PATH="$bindir:$PATH" timeout 180 "${cmd[@]}" 2>&1) | tr -d '\r'
  local rc=${PIPESTATUS[0]}
  rm -rf "$bindir"
  return $rc
}

now() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
pass=() fail=() skip=()
for t in "${expanded[@]}"; do
  why=$(unavailable "$t")
  if [ -n "$why" ]; then
    echo "editors: SKIP $t: $why (install: tests/editors/install.sh, as root for the apt part)"
    skip+=("$t"); continue
  fi
  if [ "$t" = vscode ] && ! build_vsix; then
    echo "editors: FAIL vscode: the .vsix did not build"; fail+=("vscode"); continue
  fi
  if [ "${APACHE_LSP_E2E_BROKEN_SERVER:-0}" != 1 ]; then
    echo "=== editors: $t"
    t0=$(now)
    if run_test "$t" "$BIN" | tee "$ARTIFACTS/$t.log" | sed 's/^/    /' && grep -q '^\(\[.*\] \)\?PASS$' "$ARTIFACTS/$t.log"; then
      echo "editors: PASS $t ($(secs "$t0") s)"; pass+=("$t")
    else
      echo "editors: FAIL $t ($(secs "$t0") s; log: tests/artifacts/$t.log)"; fail+=("$t")
    fi
  fi
  [ "$t" = helix ] && continue   # a static check: no server to break
  if [ "${APACHE_LSP_E2E_NEGATIVE:-1}" = 1 ] || [ "${APACHE_LSP_E2E_BROKEN_SERVER:-0}" = 1 ]; then
    echo "=== editors: $t against the broken server (must fail)"
    t0=$(now)
    out=$(APACHE_LSP_E2E_BROKEN_SERVER=1 APACHE_LSP_E2E_TIMEOUT_MS=${APACHE_LSP_E2E_BROKEN_TIMEOUT_MS:-3000} \
          BROKEN_SUFFIX=-broken run_test "$t" "$HERE/fake-server.py")
    rc=$?
    printf '%s\n' "$out" > "$ARTIFACTS/$t-broken.log"
    printf '%s\n' "$out" | grep -m1 'FAIL' | sed 's/^/    /'
    if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'FAIL.*deprecated-access diagnostics'; then
      echo "editors: PASS $t detects the broken server ($(secs "$t0") s)"; pass+=("$t-negative")
    else
      echo "editors: FAIL $t did not detect the broken server (exit $rc; log: tests/artifacts/$t-broken.log)"
      fail+=("$t-negative")
    fi
  fi
done

if [ "${APACHE_LSP_UPDATE_SCREENSHOTS:-0}" = 1 ] && [[ " ${pass[*]:-} " == *" vscode "* ]]; then
  mkdir -p "$REPO/editors/vscode/images"
  cp "$ARTIFACTS/vscode/vscode-hover.png" "$REPO/editors/vscode/images/hover.png"
  cp "$ARTIFACTS/vscode/vscode-quickfix.png" "$REPO/editors/vscode/images/quickfix.png"
  echo "editors: screenshots copied to editors/vscode/images/"
fi

echo "editors: ${#pass[@]} passed (${pass[*]:-}), ${#fail[@]} failed (${fail[*]:-}), ${#skip[@]} skipped (${skip[*]:-})"
[ ${#fail[@]} -eq 0 ]
