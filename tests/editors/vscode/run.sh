#!/usr/bin/env bash
# VS Code end-to-end test: code-server (VS Code 1.100.3) with the project's .vsix, in headless Chromium.
# Env: CODE_SERVER (its bin), VSIX (the built extension), PW_DIR (folder whose node_modules has
#      playwright-core), APACHE_LSP_SERVER (binary the extension is pointed at through
#      apacheLsp.server.path), ARTIFACTS (screenshot folder), APACHE_LSP_REPO.
# Normally run by tests/editors/run.sh, which installs and builds all of these.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${CODE_SERVER:?}" "${VSIX:?}" "${PW_DIR:?}" "${APACHE_LSP_SERVER:?}" "${ARTIFACTS:?}" "${APACHE_LSP_REPO:?}"
mkdir -p "$ARTIFACTS"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

W=$(mktemp -d /tmp/apache-lsp-vscode.XXXXXX)
mkdir -p "$W"/{ud/User,ext,ws,cfg,xdg-data,xdg-config}
# code-server writes logs and a heartbeat under XDG dirs whatever --user-data-dir says: keep them in $W
export XDG_DATA_HOME="$W/xdg-data" XDG_CONFIG_HOME="$W/xdg-config"
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" > "$W/cfg/config.yaml"
python3 - "$APACHE_LSP_SERVER" > "$W/ud/User/settings.json" <<'PY'
import json, sys
print(json.dumps({
    "apacheLsp.server.path": sys.argv[1], "apacheLsp.trace.server": "messages",
    "workbench.startupEditor": "none", "telemetry.telemetryLevel": "off", "update.mode": "none",
    "extensions.autoCheckUpdates": False, "workbench.enableExperiments": False,
    "workbench.tips.enabled": False, "chat.commandCenter.enabled": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden", "editor.minimap.enabled": False,
    "window.commandCenter": False, "workbench.layoutControl.enabled": False,
}, indent=1))
PY
cp "$APACHE_LSP_REPO/tests/editors/fixtures/apache2.conf" "$W/ws/apache2.conf"
CS_ARGS=(--config "$W/cfg/config.yaml" --user-data-dir "$W/ud" --extensions-dir "$W/ext")

"$CODE_SERVER" "${CS_ARGS[@]}" --install-extension "$VSIX" >"$W/install.log" 2>&1 \
  || { cat "$W/install.log"; exit 1; }

# its own process group, so that the extension host and the language server go with it
setsid "$CODE_SERVER" "${CS_ARGS[@]}" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override "$W/ws" >"$W/code-server.log" 2>&1 &
CS_PID=$!
cleanup() {
  kill -TERM -- "-$CS_PID" 2>/dev/null || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$CS_PID" 2>/dev/null || break; sleep 0.2; done
  kill -KILL -- "-$CS_PID" 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.3; done

rc=0
NODE_PATH="$PW_DIR/node_modules" node "$HERE/e2e.js" "http://127.0.0.1:$PORT/" "$ARTIFACTS" || rc=$?
if [ $rc -ne 0 ]; then
  echo "--- extension host log (apache-lsp channel):"
  find "$W/ud/logs" \( -name 'apache-lsp.log' -o -name '*apache-lsp trace.log' \) -exec tail -n 80 {} + 2>/dev/null || true
fi
exit $rc
