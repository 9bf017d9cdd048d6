#!/bin/sh
# A real VS Code end to end: code-server with the built .vsix, driven by Debian's Chromium (playwright-core).
# Not part of the default test suite; run on demand (docs/editors.md):
#
#     scripts/vscode_e2e.sh            # installs what it needs, builds the .vsix, runs, saves a screenshot
#
# It opens a workspace with a bad kernel, waits for the Problems panel to show the NKI diagnostic, and saves
# $SCRATCH/screenshot.png.  Everything it installs or writes goes under $SCRATCH (default /tmp/nki-vscode-e2e).
# Needs: root on Debian (apt-get), the npm registry, node 20 (code-server 4.100.3 runs on it; newer releases
# need node >= 22), and nki-verify installed in $PYTHON (default python3).
set -eu
HERE="$(cd "$(dirname "$0")/.." && pwd)"
SCRATCH="${SCRATCH:-/tmp/nki-vscode-e2e}"
PYTHON="${PYTHON:-python3}"
CODE_SERVER_VERSION=4.100.3
PORT="${PORT:-18080}"
mkdir -p "$SCRATCH/tmp" "$SCRATCH/xdg/config" "$SCRATCH/xdg/data" "$SCRATCH/xdg/cache" "$SCRATCH/xdg/state"
export TMPDIR="$SCRATCH/tmp" XDG_CONFIG_HOME="$SCRATCH/xdg/config" XDG_DATA_HOME="$SCRATCH/xdg/data" \
    XDG_CACHE_HOME="$SCRATCH/xdg/cache" XDG_STATE_HOME="$SCRATCH/xdg/state"

# 1. Debian packages: the browser, and what code-server's native modules and @vscode/ripgrep need offline
missing=""
for cmd in chromium rg pkg-config make g++; do command -v "$cmd" >/dev/null 2>&1 || missing="yes"; done
[ -e /usr/include/krb5.h ] || [ -e /usr/include/krb5/krb5.h ] || missing="yes"
if [ -n "$missing" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ripgrep libkrb5-dev pkg-config build-essential
fi

# 2. code-server and playwright-core from npm; @vscode/ripgrep finds Debian's rg in its cache, not a download
RG_CACHE="$TMPDIR/vscode-ripgrep-cache-1.15.11"
if [ ! -f "$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" ]; then
    mkdir -p "$RG_CACHE" "$SCRATCH/rg"
    cp "$(command -v rg)" "$SCRATCH/rg/rg"
    tar -C "$SCRATCH/rg" -czf "$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
fi
if [ ! -x "$SCRATCH/node/node_modules/.bin/code-server" ]; then
    mkdir -p "$SCRATCH/node"
    ( cd "$SCRATCH/node" && [ -f package.json ] || echo '{"private": true}' > package.json
      npm_config_dangerously_allow_all_scripts=true npm_config_unsafe_perm=true npm_config_yes=true \
          npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" playwright-core@1 )
fi

# 3. the extension: build and package the .vsix
( cd "$HERE/vscode-extension" && npm ci --no-audit --no-fund && \
  npx vsce package --no-dependencies -o "$SCRATCH/nki-verify.vsix" </dev/null )

# 4. a workspace with a bad kernel; the server runs from this checkout's interpreter
WS="$SCRATCH/workspace"
rm -rf "$WS" && mkdir -p "$WS/.vscode"
cp "$HERE/examples/tensor_add_bug.py" "$WS/"
INTERP="$("$PYTHON" -c 'import sys; print(sys.executable)')"
"$INTERP" -c "import lsp, pygls" || { echo "install nki-verify first: pip install -e '$HERE'"; exit 2; }
cat > "$WS/.vscode/settings.json" <<JSON
{
  "nkiVerify.interpreter": "$INTERP",
  "workbench.startupEditor": "none",
  "editor.stickyScroll.enabled": false,
  "editor.minimap.enabled": false,
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none"
}
JSON

# 5. code-server with the extension, on loopback without auth
CS="$SCRATCH/node/node_modules/.bin/code-server"
DATA="$SCRATCH/code-server-data"
rm -rf "$DATA"
"$CS" --user-data-dir "$DATA" --extensions-dir "$DATA/extensions" --install-extension "$SCRATCH/nki-verify.vsix"
"$CS" --user-data-dir "$DATA" --extensions-dir "$DATA/extensions" --auth none --bind-addr "127.0.0.1:$PORT" \
    --disable-telemetry --disable-update-check --disable-workspace-trust "$WS" > "$SCRATCH/code-server.log" 2>&1 &
CS_PID=$!
trap 'kill $CS_PID 2>/dev/null || true' EXIT INT TERM

# 6. Chromium (a fresh profile: VS Code keeps view state in the browser) opens the kernel, reads the Problems panel
rm -rf "$SCRATCH/browser-profile"
NODE_PATH="$SCRATCH/node/node_modules" node "$HERE/scripts/vscode_e2e.cjs" "http://127.0.0.1:$PORT/?folder=$WS" \
    "$SCRATCH/screenshot.png" "$SCRATCH/browser-profile"
